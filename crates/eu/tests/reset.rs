//! `Thread::reset_for`: a reused thread cleared only where its next program can read
//! (`Program::read_registers`) runs that program exactly as a fresh thread does. Every
//! corpus kernel runs twice from the same payload (the registers it can read filled with
//! pseudo-random dwords), once on a new thread and once on a thread whose every
//! register held other values before `reset_for`: the messages it sends (every payload
//! byte), the registers it reads at the end, its instruction count and how it ended
//! must be the same. Both ways run on the interpreter and with the JIT.

mod common;

use gtsim_eu::exec::{ExecError, Program, RegisterSet, SharedFunctions, Thread};
use gtsim_eu::harness::Recorder;
use gtsim_fuzzkit::Rng;
use gtsim_isa::Encoding;

/// Writes pseudo-random dwords into the registers of `set`.
fn fill(t: &mut Thread, set: RegisterSet, rng: &mut Rng) {
    let grf = t.grf_bytes_mut();
    for reg in set.iter() {
        for d in grf[reg * 32..reg * 32 + 32].chunks_mut(4) {
            d.copy_from_slice(&(rng.next_u64() as u32).to_le_bytes());
        }
    }
}

/// Runs `prog` on `t`: how it ended, the messages it sent, the registers it can read.
fn run(prog: &Program, t: &mut Thread) -> (String, Vec<String>, Vec<u8>) {
    let mut rec = Recorder::default();
    let ended = format!(
        "{:?}",
        t.run_program(prog, &mut rec as &mut dyn SharedFunctions, 200_000)
    );
    let messages = rec.messages.iter().map(|m| format!("{m:?}")).collect();
    let readable = prog
        .read_registers()
        .iter()
        .flat_map(|r| t.grf_bytes()[r * 32..r * 32 + 32].to_vec())
        .collect();
    (ended, messages, readable)
}

#[test]
fn a_thread_reset_for_a_program_runs_it_as_a_new_thread_does() {
    let mut narrowed = 0;
    for k in common::corpus::kernels() {
        for jit in [false, true] {
            let mut prog = Program::new(Encoding::IvyBridge, &k.code);
            prog.set_jit_cache(None);
            prog.set_jit(jit);
            let read = prog.read_registers();
            if read != RegisterSet::ALL {
                narrowed += 1;
            }
            let seed = gtsim_fuzzkit::seed(0) ^ (k.code.len() as u64 * 31 + u64::from(jit));
            let mut fresh = Thread::new(k.simd);
            fill(&mut fresh, read, &mut Rng::new(seed));
            let want = run(&prog, &mut fresh);
            // A thread that ran something else: every register holds other values.
            let mut used = Thread::new(k.simd);
            fill(&mut used, RegisterSet::ALL, &mut Rng::new(seed ^ 0x5eed));
            used.reset_for(k.simd, &prog);
            fill(&mut used, read, &mut Rng::new(seed));
            assert_eq!(run(&prog, &mut used), want, "{} (JIT {jit})", k.name);
        }
    }
    // The corpus's kernels end at an EOT and branch only inside themselves.
    assert!(
        narrowed > 40,
        "{narrowed} kernels read fewer than all registers"
    );
}

/// The accumulator and the channels waiting in control flow are thread state too: a
/// thread that ran a kernel writing the accumulator (integer `mul`) and stopped with
/// channels parked inside an `if` (its instruction budget ran out there) is, after
/// `reset_for`, a new thread in every architectural bit, and after `rewind` the thread
/// it was made from.
#[test]
fn the_accumulator_and_the_waiting_channels_are_restored() {
    let text = "mul(8) g10<1>D g2<8,8,1>D 0x7D { align1 1Q };
cmp.g.f0.0(8) null<1>D g2<8,8,1>D 0x3D { align1 1Q };
(+f0.0) if(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };
add(8) g11<1>D g2<8,8,1>D 0x1D { align1 1Q };
add(8) g11<1>D g11<8,8,1>D 0x1D { align1 1Q };
LABEL0:
endif(8) JIP: LABEL1 { align1 1Q };
LABEL1:
nop ;";
    let code = gtsim_isa::asm::assemble(text, gtsim_isa::asm::Compaction::Never).unwrap();
    for jit in [false, true] {
        let mut prog = Program::new(Encoding::IvyBridge, &code);
        prog.set_jit_cache(None);
        prog.set_jit(jit);
        let mut source = Thread::new(8);
        source.grf_bytes_mut()[64..96]
            .iter_mut()
            .enumerate()
            .for_each(|(i, b)| *b = if i % 4 == 0 { i as u8 / 4 } else { 0 });
        // Four instructions: the mul, the cmp, the if and the first add; channels 0-3
        // (g2 <= 3) wait at the endif.
        let run_from_source = || {
            let mut t = source.clone();
            let mut rec = Recorder::default();
            let stopped = t.run_program(&prog, &mut rec as &mut dyn SharedFunctions, 4);
            assert!(
                matches!(stopped, Err(ExecError::Budget { budget: 4, .. })),
                "{stopped:?}"
            );
            assert_ne!(t.snapshot(), source.snapshot());
            t
        };
        let mut t = run_from_source();
        t.rewind(&source);
        assert_eq!(t.snapshot(), source.snapshot(), "rewind (JIT {jit})");
        let mut t = run_from_source();
        t.reset_for(8, &prog);
        let fresh = Thread::new(8);
        // The registers the program cannot read are kept; all the rest is new.
        let read = prog.read_registers();
        let grf_words = 128 * 32 / 8;
        let (got, want) = (t.snapshot(), fresh.snapshot());
        for r in read.iter() {
            assert_eq!(got[r * 4..r * 4 + 4], want[r * 4..r * 4 + 4], "g{r}");
        }
        assert_eq!(got[grf_words..], want[grf_words..], "reset_for (JIT {jit})");
    }
}
