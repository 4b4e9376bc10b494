//! Fuzzing the device with mutated traces: the embedded triangle capture (a real crocus
//! submission stream) with random bytes of its memory writes (batches, state, kernels,
//! vertex data) and of the AUB file itself changed, replayed under small hangcheck
//! limits. Whatever the guest memory holds, a replay must end — with images or with hang
//! reports — and never panic, and the same input must give the same result.
//!
//! The default run is short; `GTSIM_FUZZ_CASES=N` runs N cases (docs/FUZZING.md).

use gtsim_fuzzkit::Rng;
use gtsim_gpu::aub::{Event, parse};
use gtsim_gpu::device::DeviceLimits;
use gtsim_gpu::replay::replay_limited;
use gtsim_pipe3d::draw::WorkLimits;

const TRACE: &[u8] = include_bytes!("../../cli/data/triangle.aub");

fn cases() -> u64 {
    gtsim_fuzzkit::cases(24)
}

const LIMITS: DeviceLimits = DeviceLimits {
    max_commands: 20_000,
    work: WorkLimits {
        eu_instructions: 2_000_000,
        vertices: 20_000,
        pixels: 200_000,
        host_seconds: 0, // counts only: the outcome may not depend on the host
    },
};

/// Values that tend to reach edge cases in command and state fields.
const INTERESTING: [u32; 8] = [
    0,
    1,
    0xffff_ffff,
    0x7fff_ffff,
    0x8000_0000,
    0x0200_0003,
    0x0000_ffff,
    0x7a00_0003,
];

fn mutate(rng: &mut Rng, data: &mut [u8]) {
    gtsim_fuzzkit::mutate_dwords(rng, data, &INTERESTING);
}

/// A harness's seed: `fixed` (its regression cases) unless `GTSIM_FUZZ_SEED` is set
/// (`scripts/fuzz-fresh.sh`); that seed is then mixed with `salt`, so that the two
/// harnesses draw different inputs from one fresh seed.
fn seed(fixed: u64, salt: u64) -> u64 {
    gtsim_fuzzkit::seed(fixed ^ salt) ^ salt
}

/// A compact summary of a replay: its hangs and draws, and a hash (FNV-1a) of each
/// render target's pixels as `gtsim replay` reads them for its PNGs (or the error that
/// read gives), so that two runs agree on the images, not only on the counts.
fn summary(r: &gtsim_gpu::replay::Replay) -> String {
    let images: Vec<String> = r
        .render_targets
        .iter()
        .map(|rt| match gtsim_gpu::replay::read_rgba8(&r.mem, rt) {
            Ok((w, h, px)) => {
                let hash = px.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                    (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                });
                format!("{:#x} {w}x{h} {hash:016x}", rt.surface.base)
            }
            Err(e) => format!("{:#x} {e}", rt.surface.base),
        })
        .collect();
    format!(
        "{} submissions, {} draws, hangs {:?}, images {images:?}",
        r.submissions,
        r.draws,
        r.hangs
            .iter()
            .map(|(i, h)| format!("{i}: {h}"))
            .collect::<Vec<_>>()
    )
}

#[test]
fn mutated_memory_writes_end_in_images_or_hangs() {
    let base = parse(TRACE);
    let writes: Vec<usize> = base
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Write { data, .. } if data.len() >= 4))
        .map(|(i, _)| i)
        .collect();
    assert!(!writes.is_empty(), "the trace has memory writes");
    // The writes that hold a batch (the address an Exec's MI_BATCH_BUFFER_START jumps
    // to): half of the mutations go there, where they reach the command streamer.
    let batch_addrs: Vec<u64> = base
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Exec { commands, .. } => commands.get(1).map(|&a| u64::from(a)),
            _ => None,
        })
        .collect();
    let batches: Vec<usize> = writes
        .iter()
        .copied()
        .filter(|&i| match &base.events[i] {
            Event::Write { addr, data, .. } => batch_addrs
                .iter()
                .any(|b| (*addr..*addr + data.len() as u64).contains(b)),
            _ => false,
        })
        .collect();
    assert!(
        !batches.is_empty(),
        "the trace's batches are among its writes"
    );
    let mut hung = 0;
    // Past the campaign's cases, more run (up to eight times as many) while one of the
    // two outcomes has not been reached: a mutation hangs a few times in a hundred, so
    // a fresh seed's first cases may all still render.
    let mut ran = 0;
    for case in 0..cases() * 8 {
        if case >= cases() && hung > 0 && hung < ran {
            break;
        }
        ran += 1;
        let mut rng = Rng(seed(0x9e37_79b9_7f4a_7c15, 0x6d65_6d00_0000_0000) ^ (case + 1));
        let mut t = base.clone();
        for _ in 0..1 + rng.below(3) {
            let i = if rng.below(2) == 0 {
                batches[rng.below(batches.len())]
            } else {
                writes[rng.below(writes.len())]
            };
            if let Event::Write { data, .. } = &mut t.events[i] {
                mutate(&mut rng, data);
            }
        }
        let r = replay_limited(&t, LIMITS, |_, _| {});
        hung += usize::from(!r.hangs.is_empty());
        if case < 4 {
            // Determinism: the same input gives the same result.
            let again = replay_limited(&t, LIMITS, |_, _| {});
            assert_eq!(summary(&r), summary(&again), "case {case}");
        }
    }
    eprintln!("{ran} mutated traces replayed, {hung} of them hung");
    // Both outcomes are reached: some mutations hang, some still render.
    assert!(hung > 0 && hung < ran, "{hung} of {ran} hung");
}

/// The AUB file itself mutated (1-8 dwords), every other file (and a quarter of the rest)
/// also cut at a random byte: parsing reads it whole or refuses it (a typed `AubError`
/// ends it, or a packet it cannot use is skipped with a diagnostic), and what was read
/// replays to its end. Both are reached for any seed: a cut lands inside a packet unless
/// it falls exactly between two of the file's 14 packets (139,604 bytes), so the odd
/// cases are refused; 1-8 mutated dwords reach its 324 bytes of packet headers about once
/// in a hundred cases, so the even cases not cut (three quarters of them) read whole:
/// about 37% of all cases read whole, 63% are refused.
#[test]
fn mutated_trace_files_parse_and_replay_or_are_refused() {
    let (mut whole, mut refused) = (0, 0);
    for case in 0..cases() {
        let mut rng = Rng(seed(0x5851_f42d_4c95_7f2d, 0x6669_6c65_0000_0000) ^ (case + 1));
        let mut bytes = TRACE.to_vec();
        mutate(&mut rng, &mut bytes);
        let cut = rng.below(4) == 0;
        if cut || case % 2 == 1 {
            bytes.truncate(rng.below(bytes.len()));
        }
        let t = parse(&bytes);
        if t.error.is_none() && t.diagnostics.is_empty() {
            whole += 1;
        } else {
            refused += 1;
        }
        let _ = replay_limited(&t, LIMITS, |_, _| {});
    }
    eprintln!(
        "{} mutated files: {whole} read whole, {refused} refused",
        whole + refused
    );
    assert!(
        whole > 0 && refused > 0,
        "both outcomes: {whole} read whole, {refused} refused"
    );
}
