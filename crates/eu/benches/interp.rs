//! Interpreter throughput on real crocus kernels.
//!
//! The kernels are the ones Mesa 22.3's crocus compiled for the demo clients running on
//! gtsim (`crates/isa/tests/corpus/*.pairs`, captured with INTEL_DEBUG=...,hex; see that
//! directory's README). Each kernel runs as one thread at its dispatch width from a
//! deterministic register file (g1..g127 filled with small floats), with a null shared
//! function answering every message with zeros (and recording nothing). The figure is
//! channel-instructions per second: per executed instruction, the channels of its span
//! that were dispatched and not waiting in control flow.
//!
//! Every kernel runs three times: on the interpreter (micro-ops and the per-channel
//! interpreter, JIT off), with the JIT's quick tier (the program compiled at once), and
//! with its optimized tier (`Program::optimize`, what a long-running program reaches).
//!
//! Run: `cargo bench -p gtsim-eu --bench interp` (release profile). Prints one line per
//! kernel and a total for each. `GTSIM_BENCH_TIER=0`, `1` or `2` measures only the
//! interpreter, the quick or the optimized tier (the others print 0), for profilers;
//! `GTSIM_BENCH_KERNEL=TEXT` only the kernels whose name contains TEXT.

use gtsim_eu::exec::{Program, SharedFunctions, Thread};
use std::time::Instant;

#[path = "../tests/common/corpus.rs"]
mod corpus;
use corpus::kernels;

/// g1..g127 with floats in [0, 1) from a fixed linear congruential sequence; g0 zero.
fn thread(simd: u8) -> Thread {
    let mut t = Thread::new(simd);
    let mut x = 0x1234_5678u32;
    for chunk in t.grf_bytes_mut()[32..].chunks_mut(4) {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        chunk.copy_from_slice(&((x >> 8) as f32 / (1u32 << 24) as f32).to_le_bytes());
    }
    t
}

/// The null shared function: every message is answered with zeros, nothing recorded
/// (message handling is the shared functions' cost, not the EU's).
struct Null;

impl SharedFunctions for Null {
    fn send(
        &mut self,
        m: &gtsim_eu::exec::Message,
    ) -> Result<Vec<[u8; 32]>, gtsim_eu::exec::MessageError> {
        Ok(vec![[0; 32]; m.response_length as usize])
    }
}

/// Runs `prog` repeatedly for about 50 ms: (instructions, channel-instructions, seconds),
/// or why it failed. Each run starts from `initial` in one reused thread, rewound to it
/// (`Thread::rewind`: only the registers the kernel can write are copied back, as a
/// dispatcher writes only a payload, rather than the whole 4 KiB register file); the
/// clock is read every 64 runs. With `GTSIM_BENCH_BATCHES=N` each kernel runs exactly
/// N x 64 times instead, for instruction-counting profilers (`valgrind --tool=callgrind`),
/// whose counts, unlike the clock, do not vary from run to run.
fn measure(prog: &Program, initial: &Thread) -> Result<(u64, u64, f64), String> {
    const BUDGET: u64 = 1_000_000;
    let batches: Option<u32> = std::env::var("GTSIM_BENCH_BATCHES")
        .ok()
        .and_then(|b| b.parse().ok());
    let (mut ins, mut ch) = (0u64, 0u64);
    let mut t = initial.clone();
    let start = Instant::now();
    let mut done = 0;
    while batches.map_or(start.elapsed().as_secs_f64() < 0.05, |b| done < b) {
        done += 1;
        for _ in 0..64 {
            t.rewind(initial);
            ins += t
                .run_program(prog, &mut Null as &mut dyn SharedFunctions, BUDGET)
                .map_err(|e| e.to_string())?;
            ch += t.channel_instructions;
        }
    }
    Ok((ins, ch, start.elapsed().as_secs_f64()))
}

fn main() {
    // (instructions, channel-instructions, seconds): interpreter, quick JIT, optimized JIT.
    let mut totals = [(0u64, 0u64, 0f64); 3];
    // GTSIM_BENCH_TIER=0|1|2 measures one column only (for profilers).
    let only: Option<usize> = std::env::var("GTSIM_BENCH_TIER")
        .ok()
        .and_then(|t| t.parse().ok());
    // GTSIM_BENCH_KERNEL=TEXT measures only the kernels whose name contains TEXT.
    let only_kernel = std::env::var("GTSIM_BENCH_KERNEL").ok();
    for k in kernels() {
        if only_kernel
            .as_ref()
            .is_some_and(|t| !k.name.contains(t.as_str()))
        {
            continue;
        }
        let initial = thread(k.simd);
        let mut line = format!("{:<64} SIMD{:<2}", k.name, k.simd);
        let mut results = vec![];
        for (tier, (jit, optimized)) in [(false, false), (true, false), (true, true)]
            .into_iter()
            .enumerate()
        {
            if only.is_some_and(|o| o != tier) {
                results.push(Ok((0, 0, 0.0)));
                continue;
            }
            let mut prog = Program::new(gtsim_isa::Encoding::IvyBridge, &k.code);
            // Each tier as it compiles, not the disk cache's best code for the kernel.
            prog.set_jit_cache(None);
            prog.set_jit(jit);
            if optimized {
                prog.optimize();
            }
            results.push(measure(&prog, &initial));
        }
        match results.iter().find_map(|r| r.as_ref().err()) {
            None => {
                let rates: Vec<f64> = results
                    .iter()
                    .zip(totals.iter_mut())
                    .map(|(r, t)| {
                        let r = r.as_ref().map_or((0, 0, 1.0), |r| *r);
                        t.0 += r.0;
                        t.1 += r.1;
                        t.2 += r.2;
                        if r.2 > 0.0 {
                            r.1 as f64 / r.2 / 1e6
                        } else {
                            0.0
                        }
                    })
                    .collect();
                line += &format!(
                    " {:>8.1} M channel-instr/s interpreted {:>8.1} M quick JIT {:>8.1} M optimized JIT",
                    rates[0], rates[1], rates[2]
                );
            }
            Some(e) => line += &format!(" skipped: {e}"),
        }
        println!("{line}");
    }
    for (what, (ins, ch, secs)) in ["interpreter", "JIT (quick)", "JIT (optimized)"]
        .iter()
        .zip(totals)
    {
        if secs == 0.0 {
            continue;
        }
        println!(
            "total, {what}: {:.1} M instructions/s, {:.1} M channel-instructions/s ({ins} instructions in {secs:.2} s)",
            ins as f64 / secs / 1e6,
            ch as f64 / secs / 1e6,
        );
    }
}
