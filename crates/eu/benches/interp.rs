//! Interpreter throughput on real crocus kernels.
//!
//! The kernels are the ones Mesa 22.3's crocus compiled for the demo clients running on
//! gtsim (`crates/isa/tests/corpus/*.pairs`, captured with INTEL_DEBUG=...,hex; see that
//! directory's README). Each kernel runs as one thread at its dispatch width from a
//! deterministic register file (g1..g127 filled with small floats), with the recording
//! null shared function answering every message with zeros. The figure is
//! channel-instructions per second: per executed instruction, the channels of its span
//! that were dispatched and not waiting in control flow.
//!
//! Run: `cargo bench -p gtsim-eu --bench interp` (release profile). Prints one line per
//! kernel and a total.

use gtsim_eu::exec::{Program, SharedFunctions, Thread};
use gtsim_eu::harness::Recorder;
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

fn main() {
    const BUDGET: u64 = 1_000_000;
    let mut total_ins = 0u64;
    let mut total_ch = 0u64;
    let mut total_time = 0f64;
    for k in kernels() {
        // Repeat each kernel for at least ~50 ms of work.
        let mut reps = 0u64;
        let mut ins = 0u64;
        let mut ch = 0u64;
        let prog = Program::new(gtsim_isa::Encoding::IvyBridge, &k.code);
        let initial = thread(k.simd);
        let start = Instant::now();
        let mut failure = None;
        while start.elapsed().as_secs_f64() < 0.05 {
            let mut t = initial.clone();
            let mut sf = Recorder::default();
            match t.run_program(&prog, &mut sf as &mut dyn SharedFunctions, BUDGET) {
                Ok(n) => ins += n,
                Err(e) => {
                    failure = Some(e.to_string());
                    break;
                }
            }
            ch += t.channel_instructions;
            reps += 1;
        }
        let secs = start.elapsed().as_secs_f64();
        match failure {
            Some(e) => println!("{:<70} SIMD{:<2} skipped: {e}", k.name, k.simd),
            None => {
                println!(
                    "{:<70} SIMD{:<2} {:>6} instr/run {:>8.1} M channel-instr/s",
                    k.name,
                    k.simd,
                    ins / reps,
                    ch as f64 / secs / 1e6
                );
                total_ins += ins;
                total_ch += ch;
                total_time += secs;
            }
        }
    }
    println!(
        "total: {:.1} M instructions/s, {:.1} M channel-instructions/s ({} instructions in {:.2} s)",
        total_ins as f64 / total_time / 1e6,
        total_ch as f64 / total_time / 1e6,
        total_ins,
        total_time
    );
}
