//! The timestamp register tm0 (`Thread::timestamp`): Mesa's ARB_shader_clock reads it
//! twice in a thread (`mov(4)` of tm0.0-tm0.3, WE_all) and takes tm0.0-tm0.1 as a
//! 64-bit time; the second reading must exceed the first (the extension's "monotonic
//! within an invocation"). A thread dispatched with tm0 at T reads T, then T + 1, with
//! tm0.2-tm0.3 zero, the same on the interpreter and with the JIT; a thread reset for
//! the next dispatch starts at 0 unless its dispatcher sets it (Gen11 encoding).

use gtsim_eu::exec::{Program, SharedFunctions, Thread};
use gtsim_eu::harness::Recorder;
use gtsim_isa::Encoding;

const KERNEL: &str = "\
mov(4)          g10<1>UD        tm0<4,4,1>UD                    { align1 WE_all 1N };
add(8)          g20<1>UD        g20<8,8,1>UD    0x00000007UD    { align1 1Q };
mov(4)          g11<1>UD        tm0<4,4,1>UD                    { align1 WE_all 1N };
mov(8)          g126<1>UD       g0<8,8,1>UD                     { align1 WE_all 1Q };
send(16)        null<1>UW       g126<8,8,1>UW   0x82000000
                            thread_spawner MsgDesc: mlen 1 rlen 0           { align1 WE_all 1H EOT };
";

fn dwords(t: &Thread, reg: usize) -> [u32; 4] {
    let b = &t.grf_bytes()[reg * 32..reg * 32 + 16];
    std::array::from_fn(|i| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().unwrap()))
}

#[test]
fn successive_timestamp_reads_increase_on_every_tier() {
    let code =
        gtsim_isa::asm::assemble_for(Encoding::IceLake, KERNEL, gtsim_isa::asm::Compaction::Never)
            .unwrap();
    for jit in [false, true] {
        let mut prog = Program::new(Encoding::IceLake, &code);
        prog.set_jit_cache(None);
        prog.set_jit(jit);
        let mut t = Thread::new(8);
        // A dispatch at device clock 5 (tm0.1 = 5, tm0.0 = 0xffff_ffff: the low dword
        // carries into the high one), then one at 0 in the reset thread.
        for (run, start, second) in [
            (0, (5u64 << 32) | 0xffff_ffff, [0, 6, 0, 0]),
            (1, 0, [1, 0, 0, 0]),
        ] {
            if run > 0 {
                t.reset_for(8, &prog);
                assert_eq!(t.timestamp, 0, "a reset thread's clock");
            }
            t.timestamp = start;
            let mut rec = Recorder::default();
            let ended = t.run_program(&prog, &mut rec as &mut dyn SharedFunctions, 10_000);
            assert!(ended.is_ok(), "jit {jit}: {ended:?}");
            let first = [start as u32, (start >> 32) as u32, 0, 0];
            assert_eq!(dwords(&t, 10), first, "jit {jit} run {run}: first read");
            assert_eq!(dwords(&t, 11), second, "jit {jit} run {run}: second read");
        }
    }
}
