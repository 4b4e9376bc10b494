//! The JIT compiles programs up to its instruction limit and leaves longer ones to the
//! interpreter (`gtsim_eu::jit` MAX_INSTRUCTIONS, 16,384: a compiled program's host
//! stack frame grows with its length). Both run to the same result.

use gtsim_eu::exec::{Program, SharedFunctions, Thread};
use gtsim_eu::harness::Recorder;
use gtsim_isa::Encoding;

/// `n` times g10 += 1, then the end of thread (Gen11 encoding).
fn kernel(n: usize) -> Vec<u8> {
    let asm = |t: &str| {
        gtsim_isa::asm::assemble_for(Encoding::IceLake, t, gtsim_isa::asm::Compaction::Never)
            .unwrap()
    };
    let add =
        asm("add(8)          g10<1>UD        g10<8,8,1>UD    0x00000001UD    { align1 1Q };\n");
    let mut code = add.repeat(n);
    code.extend(asm(
        "mov(8)          g126<1>UD       g0<8,8,1>UD                     { align1 WE_all 1Q };\n\
         send(16)        null<1>UW       g126<8,8,1>UW   0x82000000\n\
                                     thread_spawner MsgDesc: mlen 1 rlen 0           { align1 WE_all 1H EOT };\n",
    ));
    code
}

/// Compiles (optimized tier) and runs `n` additions: the instructions compiled and g10.
fn run(n: usize) -> (usize, u32) {
    let mut prog = Program::new(Encoding::IceLake, &kernel(n));
    prog.set_jit_cache(None);
    prog.set_jit(true);
    prog.optimize();
    let mut t = Thread::new(8);
    let mut rec = Recorder::default();
    t.run_program(&prog, &mut rec as &mut dyn SharedFunctions, 1 << 20)
        .unwrap();
    let g10 = u32::from_le_bytes(t.grf_bytes()[320..324].try_into().unwrap());
    (prog.jit_coverage(), g10)
}

#[test]
fn programs_past_the_limit_run_interpreted_with_the_same_result() {
    let (covered, g10) = run(100);
    assert!(covered > 0, "a short program is compiled");
    assert_eq!(g10, 100);
    let (covered, g10) = run(16_384);
    assert_eq!(
        covered, 0,
        "16,386 instructions: past the limit, interpreted"
    );
    assert_eq!(g10, 16_384);
}
