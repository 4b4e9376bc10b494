//! Fuzzing the Gen11 path: a Gen8+ (memtrace, execlist) trace holding a hand-assembled
//! Ice Lake batch (register loads, MI_MATH, MI_ATOMIC, state, PIPE_CONTROL, a
//! second-level batch) is mutated byte by byte, then parsed, decoded as Gen11 and run on
//! an Ice Lake device under small limits. Whatever the bytes, every step ends (with
//! diagnostics or hang reports), never panics, and gives the same result twice. Each
//! harness counts the cases that completed (the trace read whole, every submission done)
//! and those that ended in a typed error (a trace error or diagnostic, a hang) and
//! requires both.
//!
//! The default run is short; `GTSIM_FUZZ_CASES=N` runs N cases, `GTSIM_FUZZ_SEED` another
//! seed (docs/FUZZING.md).

use gtsim_fuzzkit::Rng;
use gtsim_gpu::aub::{Event, MemtraceWriter, parse};
use gtsim_gpu::device::{Device, DeviceLimits, Platform, Ring};
use gtsim_mem::AddressSpace;
use gtsim_pipe3d::draw::WorkLimits;

const LIMITS: DeviceLimits = DeviceLimits {
    max_commands: 5_000,
    work: WorkLimits {
        eu_instructions: 100_000,
        vertices: 1_000,
        pixels: 10_000,
        host_seconds: 0, // counts only: the outcome may not depend on the host
    },
};

const BATCH: u64 = 0xffff_fffe_fffe_e000;
const SECOND: u64 = 0x1_0000_2000;

fn dwords(d: &[u32]) -> Vec<u8> {
    d.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A harness's seed: `fixed` (its regression cases) unless `GTSIM_FUZZ_SEED` is set
/// (`scripts/fuzz-fresh.sh`); that seed is then mixed with `salt`, so that the file's
/// harnesses draw different inputs from one fresh seed.
fn seed(fixed: u64, salt: u64) -> u64 {
    gtsim_fuzzkit::seed(fixed ^ salt) ^ salt
}

/// The values [`trace`]'s batch computes with: CS_GPR0 and CS_GPR1 (which MI_MATH adds),
/// MI_ATOMIC's operand, PIPE_CONTROL's immediate and the second-level batch's
/// MI_STORE_DATA_IMM value.
const VALUES: [u32; 5] = [5, 7, 9, 0xfeed, 42];

/// A trace of one submission, its commands hand-assembled from genxml gen11.xml's
/// layouts (see crates/gpu/src/device/gen11_tests.rs for each one worked out).
fn trace() -> Vec<u8> {
    trace_with(VALUES)
}

/// [`trace`] with other [`VALUES`]: any values run to the end.
fn trace_with([gpr0, gpr1, atomic, immediate, stored]: [u32; 5]) -> Vec<u8> {
    let mut w = MemtraceWriter::new("fuzz", 0x8a52);
    let batch = [
        0x6904_0300u32, // PIPELINE_SELECT 3D
        0x1100_0003,    // LRI CS_GPR0 = 5, CS_GPR1 = 7 (VALUES)
        0x2600,
        gpr0,
        0x2608,
        gpr1,
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
        atomic,
        0,
        0x7a00_0004, // PIPE_CONTROL write immediate
        1 << 14,
        0x3008,
        1,
        immediate,
        0,
        0x0500_0000,
    ];
    w.write_memory(BATCH, &dwords(&batch));
    w.write_memory(
        SECOND,
        &dwords(&[(0x20 << 23) | 2, 0x3010, 1, stored, 0x0500_0000, 0]),
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

/// Parse, decode and run: a summary of what happened, and whether it completed (see
/// [`run_with_memory`]).
fn run(bytes: &[u8]) -> (String, bool) {
    let (summary, completed, _) = run_with_memory(bytes);
    (summary, completed)
}

/// [`run`], with the memory after the run. Completed: the trace was read whole (no
/// error, no diagnostic) and had submissions, and every one ran to its end; otherwise the
/// case ended in a typed error (a trace error or diagnostic, or a hang).
fn run_with_memory(bytes: &[u8]) -> (String, bool, AddressSpace) {
    let t = parse(bytes);
    let items = gtsim_gpu::trace::decode_trace(&gtsim_spec::gen11::GENERATION, &t);
    let mut mem = AddressSpace::new();
    let mut dev = Device::with_platform(Platform::IceLake);
    dev.limits = LIMITS;
    let mut results = vec![];
    let mut completed = t.error.is_none() && t.diagnostics.is_empty();
    for e in &t.events {
        match e {
            Event::Write { addr, data, .. } => mem.load(*addr, data),
            Event::Exec {
                offset, commands, ..
            } => {
                mem.load(*offset, &dwords(commands));
                let r = dev.submit(1, *offset, &mut mem).map(|r| r.commands);
                completed &= r.is_ok();
                results.push(format!("{r:?}"));
            }
            _ => {}
        }
    }
    completed &= !results.is_empty();
    (
        format!(
            "{} items, {} diagnostics, {results:?}",
            items.len(),
            t.diagnostics.len()
        ),
        completed,
        mem,
    )
}

#[test]
fn the_unmutated_trace_runs_to_its_end() {
    use gtsim_mem::Memory;
    let (r, completed, mem) = run_with_memory(&trace());
    assert!(completed, "{r}");
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

/// Every other case plausible, the trace with random [`VALUES`] (which runs to its end);
/// the others the trace with 1-8 dwords mutated. Of its 269 dwords about half are ones a
/// change breaks (packet headers, addresses and sizes, page table entries, the context
/// image's ring and PML4 fields, most of the batch), so a mutated case ends in a typed
/// error about 88% of the time: completed about 56% of all cases, errors 44%, for any
/// seed.
#[test]
fn mutated_gen11_traces_end_and_repeat() {
    let base = trace();
    let mut rng = Rng::new(seed(0x6e11, 0x6731_3100_0000_0000));
    let (mut completed, mut errors) = (0, 0);
    for case in 0..gtsim_fuzzkit::cases(40) {
        let bytes = if case % 2 == 1 {
            trace_with(std::array::from_fn(|_| rng.next_u64() as u32))
        } else {
            let mut bytes = base.clone();
            mutate(&mut rng, &mut bytes);
            bytes
        };
        let first = run(&bytes);
        assert_eq!(first, run(&bytes), "case {case}: not deterministic");
        if first.1 {
            completed += 1;
        } else {
            errors += 1;
        }
    }
    assert!(
        completed > 0 && errors > 0,
        "both outcomes: {completed} completed, {errors} typed errors"
    );
}

/// A trace of one video enhancement submission as iHD builds one (media-driver
/// VeboxRenderVeboxCmd's order): MI_FLUSH_DW, VEBOX_STATE, the two VEBOX_SURFACE_STATEs,
/// SFC_LOCK, SFC_STATE, SFC_AVS_STATE, the coefficient tables, SFC_IEF_STATE,
/// SFC_FRAME_START, VEB_DI_IECP, a tag-writing MI_FLUSH_DW, MI_BATCH_BUFFER_END; the
/// headers are those media-driver's constructors build (mhw_*_hwcmd_g11_X.cpp).
fn vebox_trace() -> Vec<u8> {
    vebox_trace_of(&vebox_batch().0)
}

/// [`vebox_trace`]'s batch, and where each of its VEBOX and SFC commands starts (the last
/// one VEB_DI_IECP, 24 dwords).
fn vebox_batch() -> (Vec<u32>, Vec<usize>) {
    let mut batch = vec![0x1300_0082u32, 0, 0, 0, 0];
    let mut starts = vec![];
    let mut command = |header: u32, dwords: usize, fill: &[(usize, u32)]| {
        starts.push(batch.len());
        let mut c = vec![0u32; dwords];
        c[0] = header;
        for &(i, v) in fill {
            c[i] = v;
        }
        batch.extend(c);
    };
    command(0x7402_0011, 19, &[(1, 1 << 2)]);
    for id in 0..2 {
        command(
            0x7400_0007,
            9,
            &[(1, id), (2, 319 << 4 | 239 << 18), (3, 4 << 27)],
        );
    }
    command(0x7500_0000, 2, &[(1, 1)]);
    command(0x7501_0020, 34, &[(8, 159 | 119 << 16)]);
    command(0x7502_0002, 4, &[]);
    command(0x7505_007f, 129, &[(1, 0x4040)]);
    command(0x7506_003f, 65, &[(1, 0x4040)]);
    command(0x7503_0016, 24, &[]);
    command(0x7504_0000, 2, &[]);
    command(0x7403_0016, 24, &[(1, 319)]);
    batch.extend([0x1300_4002, 0x3000, 1, 0xfeed, 0x0500_0000]);
    (batch, starts)
}

/// A trace running `batch` on the video enhancement ring.
fn vebox_trace_of(batch: &[u32]) -> Vec<u8> {
    let mut w = MemtraceWriter::new("fuzz", 0x8a52);
    w.write_memory(BATCH, &dwords(batch));
    w.write_memory(0x1_0000_3000, &[0; 64]);
    w.exec_in_context_on_vecs(BATCH, 2);
    w.drain()
}

/// A VEBOX frame the model runs: VEBOX_STATE with Global IECP Enable and the IECP
/// state at 0x40000 (DW4 bits 31:12) with ProcAmp on (contrast 1.5, brightness +1);
/// 64x16 NV12 input and output surfaces (linear, pitch 64, chroma at row 16); a
/// VEB_DI_IECP over columns 0..=63 from 0x50000 to 0x60000.
fn vebox_frame_trace() -> Vec<u8> {
    let mut w = MemtraceWriter::new("fuzz", 0x8a52);
    let mut batch = vec![];
    let mut command = |header: u32, dwords: usize, fill: &[(usize, u32)]| {
        let mut c = vec![0u32; dwords];
        c[0] = header;
        for &(i, v) in fill {
            c[i] = v;
        }
        batch.extend(c);
    };
    command(0x7402_0011, 19, &[(1, 1 << 2), (4, 0x4_0000)]);
    for id in 0..2 {
        command(
            0x7400_0007,
            9,
            &[
                (1, id),
                (2, 63 << 4 | 15 << 18),
                (3, 4 << 27 | 1 << 20 | 63 << 3),
                (4, 16),
            ],
        );
    }
    command(0x7403_0016, 24, &[(1, 63), (2, 0x5_0000), (12, 0x6_0000)]);
    batch.extend([0x1300_4002, 0x3000, 1, 0xfeed, 0x0500_0000]);
    w.write_memory(BATCH, &dwords(&batch));
    let mut iecp = vec![0u32; 115];
    iecp[53] = 192 << 17 | 16 << 1 | 1;
    iecp[54] = 256 << 16;
    w.write_memory(0x4_0000, &dwords(&iecp));
    let frame: Vec<u8> = (0..64 * 24).map(|i| (i * 7 % 251) as u8).collect();
    w.write_memory(0x5_0000, &frame);
    w.write_memory(0x6_0000, &vec![0; 64 * 24]);
    w.write_memory(0x1_0000_3000, &[0; 64]);
    w.exec_in_context_on_vecs(BATCH, 2);
    w.drain()
}

/// A VEBOX frame sent through the SFC: 32x16 NV12 at 0x50000 (linear, pitch 32, chroma
/// at row 16), chroma up- and downsampling bypassed; SFC_LOCK (VE-SFC), SFC_STATE
/// (VE-to-SFC, 4:2:0 in, the 8x8 poly-phase AVS with adaptive filtering bypassed at 2:1
/// both ways, CSC on, 16x8 YUYV out at 0x60000, pitch 32), SFC_AVS_STATE (sharpness 128,
/// vertical siting 4/8), identity coefficient tables (tap 3 = 64), SFC_IEF_STATE (an
/// identity transform), SFC_FRAME_START, VEB_DI_IECP over columns 0..=31, and where
/// each command starts in the batch (which [`sfc_frame_trace_of`] ends).
fn sfc_frame_batch() -> (Vec<u32>, Vec<usize>) {
    let mut batch = vec![];
    let mut starts = vec![];
    let mut command = |header: u32, dwords: usize, fill: &[(usize, u32)]| {
        starts.push(batch.len());
        let mut c = vec![0u32; dwords];
        c[0] = header;
        for &(i, v) in fill {
            c[i] |= v;
        }
        batch.extend(c);
    };
    command(0x7402_0011, 19, &[(18, 3 << 10)]);
    command(
        0x7400_0007,
        9,
        &[
            (2, 31 << 4 | 15 << 18),
            (3, 4 << 27 | 1 << 20 | 31 << 3),
            (4, 16),
        ],
    );
    command(0x7500_0000, 2, &[(1, 1)]);
    command(
        0x7501_0020,
        34,
        &[
            (1, 1 | 1 << 4),
            (2, 31 | 15 << 16),
            (3, 5 | 4 << 8),
            (4, 1 << 4 | 1 << 7 | 3 << 8 | 1 << 19),
            (5, 31 | 15 << 16),
            (7, 15 | 7 << 16),
            (8, 15 | 7 << 16),
            (13, 0x3ff),
            (14, 1 << 18),
            (15, 1 << 18),
            (17, 0x6_0000),
            (29, 31 << 3),
        ],
    );
    command(0x7502_0002, 4, &[(1, 128 << 24), (3, 4)]);
    let luma: Vec<(usize, u32)> = (0..32)
        .map(|p| (1 + 4 * p + 1, 64 << 16 | 64 << 24))
        .collect();
    command(0x7505_007f, 129, &luma);
    let chroma: Vec<(usize, u32)> = (0..32).map(|p| (1 + 2 * p, 64 << 16 | 64 << 24)).collect();
    command(0x7506_003f, 65, &chroma);
    command(
        0x7503_0016,
        24,
        &[(16, 1 | 1024 << 3), (18, 1024), (20, 1024)],
    );
    command(0x7504_0000, 2, &[]);
    command(0x7403_0016, 24, &[(1, 31), (2, 0x5_0000)]);
    batch.extend([0x1300_4002, 0x3000, 1, 0xfeed]);
    (batch, starts)
}

/// [`sfc_frame_batch`]'s batch (ended) as a trace with its input frame.
fn sfc_frame_trace_of(batch: &[u32]) -> Vec<u8> {
    let mut w = MemtraceWriter::new("fuzz", 0x8a52);
    let mut batch = batch.to_vec();
    batch.push(0x0500_0000);
    w.write_memory(BATCH, &dwords(&batch));
    let frame: Vec<u8> = (0..32 * 24).map(|i| (i * 13 % 251) as u8).collect();
    w.write_memory(0x5_0000, &frame);
    w.write_memory(0x6_0000, &vec![0; 64 * 24]);
    w.write_memory(0x1_0000_3000, &[0; 64]);
    w.exec_in_context_on_vecs(BATCH, 2);
    w.drain()
}

/// Parse and run on the ring each submission names: a summary, and whether it completed
/// (as [`run_with_memory`] counts it).
fn run_on_rings(bytes: &[u8]) -> (String, bool) {
    let t = parse(bytes);
    let mut mem = AddressSpace::new();
    let mut dev = Device::with_platform(Platform::IceLake);
    dev.limits = LIMITS;
    let mut results = vec![];
    let mut completed = t.error.is_none() && t.diagnostics.is_empty();
    for e in &t.events {
        match e {
            Event::Write { addr, data, .. } => mem.load(*addr, data),
            Event::Exec {
                offset,
                commands,
                ring,
            } => {
                mem.load(*offset, &dwords(commands));
                let engine = if *ring == gtsim_gpu::aub::TYPE_RING_PRB3 {
                    Ring::VideoEnhance
                } else {
                    Ring::Render
                };
                let r = dev
                    .submit_on(engine, 1, *offset, &mut mem)
                    .map(|r| r.commands);
                completed &= r.is_ok();
                results.push(format!("{r:?}"));
            }
            _ => {}
        }
    }
    completed &= !results.is_empty();
    // What the frame wrote, when there was one.
    let mut out = vec![0u8; 64 * 24];
    let written = mem.read(0x6_0000, &mut out).is_ok();
    let sum: u64 = out
        .iter()
        .enumerate()
        .map(|(i, &b)| (i as u64 + 1) * u64::from(b))
        .sum();
    (
        format!(
            "{} diagnostics, {results:?}, output {written} {sum}",
            t.diagnostics.len()
        ),
        completed,
    )
}

/// The VEBOX frame runs (its output lands); mutated (the states, the surfaces, the
/// frame's columns and addresses), it ends as a result or a typed hang (both reached),
/// the same twice, with the same output. Both for any seed without plausible cases: of
/// the trace's 1,222 dwords about three quarters are the input and output frames' pixels
/// and other data any value of which runs (a change elsewhere, in a header, an address, a
/// page table, the batch or the IECP state, mostly ends in a typed error), so 1-8 mutated
/// dwords still complete some 35-50% of the time.
#[test]
fn mutated_vebox_frames_end_and_repeat() {
    let base = vebox_frame_trace();
    let (r, _) = run_on_rings(&base);
    assert!(
        r.contains("[\"Ok(7)\"]") && !r.ends_with("output true 0"),
        "{r}"
    );
    let mut rng = Rng::new(seed(0xf7a3e, 0x6672_616d_0000_0000));
    let (mut completed, mut errors) = (0, 0);
    for case in 0..gtsim_fuzzkit::cases(40) {
        let mut bytes = base.clone();
        mutate(&mut rng, &mut bytes);
        let first = run_on_rings(&bytes);
        assert_eq!(
            first,
            run_on_rings(&bytes),
            "case {case}: not deterministic"
        );
        if first.1 {
            completed += 1;
        } else {
            errors += 1;
        }
    }
    assert!(
        completed > 0 && errors > 0,
        "both outcomes: {completed} completed, {errors} typed errors"
    );
}

/// The video enhancement ring's batch runs to VEB_DI_IECP, which is refused by name (its
/// SFC_STATE's pipe mode 0, the video decoder's); mutated, its VEBOX and SFC commands end as results or typed hangs, the
/// same twice. The batch itself ends in that refusal, so a mutated one almost always
/// ends in a typed error; every other case is plausible instead: the batch without its
/// VEB_DI_IECP (MI_NOOPs in its place) and with 1-4 dwords of the VEBOX and SFC commands'
/// fields random, which those commands only latch, so it runs to its end. Completed about
/// half the cases, errors the other half, for any seed.
#[test]
fn mutated_vebox_traces_end_and_repeat() {
    let base = vebox_trace();
    let (r, _) = run_on_rings(&base);
    assert!(
        r.contains("VEB_DI_IECP") && r.contains("SFC Pipe Mode 0"),
        "{r}"
    );
    let mut rng = Rng::new(seed(0x7eb0, 0x7665_626f_0000_0000));
    let (mut completed, mut errors) = (0, 0);
    for case in 0..gtsim_fuzzkit::cases(40) {
        let bytes = if case % 2 == 1 {
            let (mut batch, starts) = vebox_batch();
            let (vebox_state, iecp) = (starts[0], *starts.last().expect("VEB_DI_IECP"));
            batch[iecp..iecp + 24].fill(0);
            for _ in 0..1 + rng.below(4) {
                // A dword after VEBOX_STATE's header and before VEB_DI_IECP, not a header.
                let at = vebox_state + 1 + rng.below(iecp - vebox_state - 1);
                if !starts.contains(&at) {
                    batch[at] = rng.next_u64() as u32;
                }
            }
            vebox_trace_of(&batch)
        } else {
            let mut bytes = base.clone();
            mutate(&mut rng, &mut bytes);
            bytes
        };
        let first = run_on_rings(&bytes);
        assert_eq!(
            first,
            run_on_rings(&bytes),
            "case {case}: not deterministic"
        );
        if first.1 {
            completed += 1;
        } else {
            errors += 1;
        }
    }
    assert!(
        completed > 0 && errors > 0,
        "both outcomes: {completed} completed, {errors} typed errors"
    );
}

/// The SFC frame runs (its scaled output lands); mutated, as bytes of the trace or as
/// 1-4 random dwords of the SFC's state commands (sizes, formats, modes, tables,
/// siting, the transform), it ends as a result or a typed hang (both reached), the same
/// twice with the same output. The device's pixel limit (10,000) bounds what a random
/// size costs: a larger frame is a typed hang before any work.
#[test]
fn mutated_sfc_frames_end_and_repeat() {
    let (batch, starts) = sfc_frame_batch();
    let base = sfc_frame_trace_of(&batch);
    let (r, done) = run_on_rings(&base);
    assert!(done && !r.ends_with("output true 0"), "{r}");
    let mut rng = Rng::new(seed(0x5fc, 0x7366_6300_0000_0000));
    let (mut completed, mut errors) = (0, 0);
    // The SFC commands: from SFC_LOCK (the third command) to SFC_FRAME_START.
    let (first, last) = (starts[2], starts[starts.len() - 2]);
    for case in 0..gtsim_fuzzkit::cases(40) {
        let bytes = if case % 2 == 0 {
            let mut bytes = base.clone();
            mutate(&mut rng, &mut bytes);
            bytes
        } else {
            let mut b = batch.clone();
            for _ in 0..1 + rng.below(4) {
                let at = first + 1 + rng.below(last - first - 1);
                if !starts.contains(&at) {
                    b[at] = rng.next_u64() as u32;
                }
            }
            sfc_frame_trace_of(&b)
        };
        let first_run = run_on_rings(&bytes);
        assert_eq!(
            first_run,
            run_on_rings(&bytes),
            "case {case}: not deterministic"
        );
        if first_run.1 {
            completed += 1;
        } else {
            errors += 1;
        }
    }
    assert!(
        completed > 0 && errors > 0,
        "both outcomes: {completed} completed, {errors} typed errors"
    );
}
