//! # gtsim-fuzzkit: what the fuzz harnesses share
//!
//! The harnesses (`crates/isa/tests/fuzz.rs`, `crates/cli/tests/fuzz.rs`,
//! `crates/gpu/tests/fuzz_replay.rs`; see `docs/FUZZING.md`) are plain seeded random
//! testing on stable Rust: every case is reproducible from its seed. They share this
//! generator and the environment knobs that size a campaign. The generator is
//! xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
//! generators, scrambled", 2016: shifts 12, 25, 27 and the multiplier
//! 0x2545F4914F6CDD1D); it is written out here rather than taken from a crate so that
//! the seeds of the campaigns recorded in `docs/FUZZING.md` keep reproducing exactly.

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
}
