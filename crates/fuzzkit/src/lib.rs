//! # gtsim-fuzzkit: what the fuzz harnesses share
//!
//! The harnesses (`crates/isa/tests/fuzz.rs`, `crates/cli/tests/fuzz.rs`,
//! `crates/gpu/tests/fuzz_replay.rs`, and the i915 ones in `crates/i915/src/fuzz.rs` and
//! `i915-stress fuzz`; see `docs/FUZZING.md`) are plain seeded random
//! testing on stable Rust: every case is reproducible from its seed. They share this
//! generators and the environment knobs that size a campaign. The main generator is
//! xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
//! generators, scrambled", 2016: shifts 12, 25, 27 and the multiplier
//! 0x2545F4914F6CDD1D); the i915 harnesses use splitmix64. Both are written out here
//! rather than taken from a crate so that the seeds of the campaigns recorded in
//! `docs/FUZZING.md` and `crates/i915/README.md` keep reproducing exactly.

/// The xorshift64* generator. Its state must not be 0 (a zero state stays zero).
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// A generator from `seed`, forced odd so that the state is never zero.
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// The splitmix64 generator (Steele, Lea and Flood, "Fast splittable pseudorandom
/// number generators", 2014: increment 0x9E3779B97F4A7C15, mixers 0xBF58476D1CE4E5B9 and
/// 0x94D049BB133111EB) of the i915 ioctl harnesses, in process and through the preload
/// library (`i915-stress fuzz`); any state is fine.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// True once in `n` times on average.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

/// A harness's seed: `GTSIM_FUZZ_SEED` when it is set, else `default`. The default
/// seeds are the regression cases every `cargo test` replays; CI runs the harnesses a
/// second time with a fresh `GTSIM_FUZZ_SEED` it prints (`scripts/fuzz-fresh.sh`), so that
/// each run tries new inputs and a failure can be replayed from the log.
pub fn seed(default: u64) -> u64 {
    env_u64("GTSIM_FUZZ_SEED", default)
}

/// The environment variable `name` as a number, or `default` when it is unset or not a
/// number.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The campaign size: `GTSIM_FUZZ_CASES`, or `default` for the short run every
/// `cargo test` makes.
pub fn cases(default: u64) -> u64 {
    env_u64("GTSIM_FUZZ_CASES", default)
}

/// Mutates 1 to 8 dwords of `data` (little-endian, at dword offsets): each becomes one of
/// `interesting`, has one bit flipped, or takes random bits, a third of the time each.
/// The mutation the trace harnesses share (`crates/gpu/tests/fuzz_replay.rs`,
/// `crates/inspect/tests/fuzz_inspect.rs`); data shorter than a dword is left alone.
pub fn mutate_dwords(rng: &mut Rng, data: &mut [u8], interesting: &[u32]) {
    if data.len() < 4 {
        return;
    }
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(data.len() / 4) * 4;
        let old = u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
        let v = match rng.below(3) {
            0 => interesting
                .get(rng.below(interesting.len()))
                .copied()
                .unwrap_or(0),
            1 => old ^ (1 << rng.below(32)),
            _ => rng.next_u64() as u32,
        };
        data[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_outputs_match_the_published_algorithm() {
        // Worked by hand from the three shifts and the multiplier for state 1:
        // x ^= x >> 12 -> 1; x ^= x << 25 -> 0x2000001; x ^= x >> 27 -> 0x2000001;
        // output 0x2000001 * 0x2545F4914F6CDD1D mod 2^64.
        let mut r = Rng(1);
        assert_eq!(
            r.next_u64(),
            0x0200_0001u64.wrapping_mul(0x2545_f491_4f6c_dd1d)
        );
        assert_eq!(r.0, 0x0200_0001);
        assert_eq!(Rng::new(0).0, 1);
        assert_eq!(Rng(5).below(0), 0);
    }

    #[test]
    fn splitmix_matches_the_published_first_output() {
        // The reference implementation's first output for seed 0 is 0xE220A8397B1DCDAF.
        assert_eq!(SplitMix64(0).next_u64(), 0xe220_a839_7b1d_cdaf);
    }
}
