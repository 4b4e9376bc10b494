//! Fuzzing the Gen11 path: a Gen8+ (memtrace, execlist) trace holding a hand-assembled
//! Ice Lake batch (register loads, MI_MATH, MI_ATOMIC, state, PIPE_CONTROL, a
//! second-level batch) is mutated byte by byte, then parsed, decoded as Gen11 and run on
//! an Ice Lake device under small limits. Whatever the bytes, every step ends (with
//! diagnostics or hang reports), never panics, and gives the same result twice.
//!
//! The default run is short; `GTSIM_FUZZ_CASES=N` runs N cases (docs/FUZZING.md).

use gtsim_fuzzkit::Rng;
use gtsim_gpu::aub::{Event, MemtraceWriter, parse};
use gtsim_gpu::device::{Device, DeviceLimits, Platform};
use gtsim_mem::AddressSpace;
use gtsim_pipe3d::draw::WorkLimits;

const LIMITS: DeviceLimits = DeviceLimits {
    max_commands: 5_000,
    work: WorkLimits {
        eu_instructions: 100_000,
        vertices: 1_000,
        pixels: 10_000,
    },
};

const BATCH: u64 = 0xffff_fffe_fffe_e000;
const SECOND: u64 = 0x1_0000_2000;

fn dwords(d: &[u32]) -> Vec<u8> {
    d.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A trace of one submission, its commands hand-assembled from genxml gen11.xml's
/// layouts (see crates/gpu/src/device/gen11_tests.rs for each one worked out).
fn trace() -> Vec<u8> {
    let mut w = MemtraceWriter::new("fuzz", 0x8a52);
    let batch = [
        0x6904_0300u32, // PIPELINE_SELECT 3D
        0x1100_0003,    // LRI CS_GPR0 = 5, CS_GPR1 = 7
        0x2600,
        5,
        0x2608,
        7,
        (0x1a << 23) | 3, // MI_MATH: R2 = R0 + R1
        (0x080 << 20) | (0x20 << 10),
        (0x080 << 20) | (0x21 << 10) | 1,
        0x100 << 20,
        (0x180 << 20) | (2 << 10) | 0x31,
        (0x31 << 23) | (1 << 22) | (1 << 8) | 1, // second-level batch
        SECOND as u32,
        (SECOND >> 32) as u32,
        0x784b_0000, // 3DSTATE_VF_TOPOLOGY TRILIST
        4,
        (47 << 23) | (1 << 18) | (0x07 << 8) | 3, // MI_ATOMIC ADD dword, inline
        0x3000,                                   // address 0x1_0000_3000: low, high
        1,
        9,
        0,
        0x7a00_0004, // PIPE_CONTROL write immediate
        1 << 14,
        0x3008,
        1,
        0xfeed,
        0,
        0x0500_0000,
    ];
    w.write_memory(BATCH, &dwords(&batch));
    w.write_memory(
        SECOND,
        &dwords(&[(0x20 << 23) | 2, 0x3010, 1, 42, 0x0500_0000, 0]),
    );
    w.write_memory(0x1_0000_3000, &[0; 64]);
    w.exec_in_context(BATCH, 1);
    w.drain()
}

fn mutate(rng: &mut Rng, data: &mut [u8]) {
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(data.len() / 4) * 4;
        let v = match rng.below(3) {
            0 => [0, 1, u32::MAX, 0x8000_0000, 0x7a00_0004, 0x1880_0101][rng.below(6)],
            1 => u32::from_le_bytes(data[at..at + 4].try_into().unwrap()) ^ (1 << rng.below(32)),
            _ => rng.next_u64() as u32,
        };
        data[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
}

/// Parse, decode and run: a summary of what happened.
fn run(bytes: &[u8]) -> String {
    run_with_memory(bytes).0
}

fn run_with_memory(bytes: &[u8]) -> (String, AddressSpace) {
    let t = parse(bytes);
    let items = gtsim_gpu::trace::decode_trace(&gtsim_spec::gen11::GENERATION, &t);
    let mut mem = AddressSpace::new();
    let mut dev = Device::with_platform(Platform::IceLake);
    dev.limits = LIMITS;
    let mut results = vec![];
    for e in &t.events {
        match e {
            Event::Write { addr, data, .. } => mem.load(*addr, data),
            Event::Exec {
                offset, commands, ..
            } => {
                mem.load(*offset, &dwords(commands));
                results.push(format!(
                    "{:?}",
                    dev.submit(1, *offset, &mut mem).map(|r| r.commands)
                ));
            }
            _ => {}
        }
    }
    (
        format!(
            "{} items, {} diagnostics, {results:?}",
            items.len(),
            t.diagnostics.len()
        ),
        mem,
    )
}

#[test]
fn the_unmutated_trace_runs_to_its_end() {
    use gtsim_mem::Memory;
    let (r, mem) = run_with_memory(&trace());
    // Counted by hand: the ring's MI_BATCH_BUFFER_START (1); the batch's PIPELINE_SELECT,
    // LRI, MI_MATH and the second-level MI_BATCH_BUFFER_START (5); there MI_STORE_DATA_IMM
    // and MI_BATCH_BUFFER_END (7); back, 3DSTATE_VF_TOPOLOGY, MI_ATOMIC, PIPE_CONTROL and
    // MI_BATCH_BUFFER_END: 11 commands.
    assert!(r.ends_with("[\"Ok(11)\"]"), "{r}");
    let read = |a: u64| mem.read_u32(a).unwrap();
    assert_eq!(read(0x1_0000_3010), 42, "second-level MI_STORE_DATA_IMM");
    assert_eq!(read(0x1_0000_3000), 9, "MI_ATOMIC ADD 9 to 0");
    assert_eq!(read(0x1_0000_3008), 0xfeed, "PIPE_CONTROL immediate");
}

#[test]
fn mutated_gen11_traces_end_and_repeat() {
    let base = trace();
    let mut rng = Rng::new(gtsim_fuzzkit::env_u64("GTSIM_FUZZ_SEED", 0x6e11));
    for case in 0..gtsim_fuzzkit::cases(40) {
        let mut bytes = base.clone();
        mutate(&mut rng, &mut bytes);
        let first = run(&bytes);
        assert_eq!(first, run(&bytes), "case {case}: not deterministic");
    }
}
