//! `illegal` (opcode 0, an all-zero instruction) and cr0.1's Illegal Opcode Exception
//! Enable (`Thread::illegal_opcode_exception`): clear, the instruction does nothing and
//! the program goes on, as Intel's iHD kernels need (eight zero instructions pad each
//! of their components); set, the model refuses it by name (the exception's System
//! Routine is not modelled). Both on the interpreter and with the JIT. The kernel:
//! g10 = 5, eight zero instructions, g10 += 7, end of thread (Gen11 encoding).

use gtsim_eu::exec::{Program, SharedFunctions, Thread};
use gtsim_eu::harness::Recorder;
use gtsim_isa::Encoding;

const BEFORE: &str =
    "mov(8)          g10<1>UD        0x00000005UD                    { align1 1Q };\n";
const AFTER: &str = "\
add(8)          g10<1>UD        g10<8,8,1>UD    0x00000007UD    { align1 1Q };
mov(8)          g126<1>UD       g0<8,8,1>UD                     { align1 WE_all 1Q };
send(16)        null<1>UW       g126<8,8,1>UW   0x82000000
                            thread_spawner MsgDesc: mlen 1 rlen 0           { align1 WE_all 1H EOT };
";

fn kernel() -> Vec<u8> {
    let asm = |t: &str| {
        gtsim_isa::asm::assemble_for(Encoding::IceLake, t, gtsim_isa::asm::Compaction::Never)
            .unwrap()
    };
    let mut code = asm(BEFORE);
    code.extend([0u8; 128]);
    code.extend(asm(AFTER));
    code
}

fn run(jit: bool, exception: bool) -> (String, u32) {
    let mut prog = Program::new(Encoding::IceLake, &kernel());
    prog.set_jit_cache(None);
    prog.set_jit(jit);
    let mut t = Thread::new(8);
    t.illegal_opcode_exception = exception;
    let mut rec = Recorder::default();
    let ended = format!(
        "{:?}",
        t.run_program(&prog, &mut rec as &mut dyn SharedFunctions, 10_000)
    );
    let g10 = u32::from_le_bytes(t.grf_bytes()[320..324].try_into().unwrap());
    (ended, g10)
}

#[test]
fn zero_instructions_do_nothing_when_the_exception_is_disabled() {
    for jit in [false, true] {
        let (ended, g10) = run(jit, false);
        assert!(ended.starts_with("Ok"), "jit {jit}: {ended}");
        assert_eq!(g10, 12, "jit {jit}: 5 + 7 past the eight zero instructions");
    }
}

#[test]
fn an_enabled_illegal_opcode_exception_is_refused_by_name() {
    for jit in [false, true] {
        let (ended, g10) = run(jit, true);
        assert!(
            ended.contains("illegal") && ended.contains("System Routine"),
            "jit {jit}: {ended}"
        );
        assert_eq!(g10, 5, "jit {jit}: stopped at the first zero instruction");
    }
}

/// A new thread starts with the exception enabled (the conservative refusal), and a
/// reset restores that.
#[test]
fn new_and_reset_threads_start_with_the_exception_enabled() {
    let mut t = Thread::new(16);
    assert!(t.illegal_opcode_exception);
    t.illegal_opcode_exception = false;
    t.reset(16);
    assert!(t.illegal_opcode_exception);
}
