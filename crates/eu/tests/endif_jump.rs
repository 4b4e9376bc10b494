//! `endif` with no channel enabled after it jumps to its JIP (IVB PRM Vol4 Part3, the
//! structured flow control instructions): when a loop's every channel has broken out,
//! the instructions between the `endif` and the `while` do not run, not even their
//! WE_all forms. Mesa's find-live-channel (`fbl` of ce0, `mask0`) sits in such places;
//! run with an empty ce0 it returned no channel and a shader then addressed a register
//! past g127 (piglit arb_shader_ballot fs-readInvocation-uint-uniform on Ice Lake). Both
//! on the interpreter and with the JIT; a channel waiting in between keeps the thread
//! going instead.

use gtsim_eu::exec::{Program, SharedFunctions, Thread};
use gtsim_eu::harness::Recorder;
use gtsim_isa::Encoding;

/// The loop: every channel breaks (flag all set) in the first iteration; after the
/// `endif`, a WE_all `fbl` of ce0 into g33 (7 before) and g10 += 1.
const KERNEL: &str = "\
mov(8)          g10<1>UD        0x00000000UD                    { align1 1Q };
mov(1)          g33<1>UD        0x00000007UD                    { align1 WE_all 1N };
LABEL5:
mov(1)          f0<1>UD         0xffffffffUD                    { align1 WE_all 1N };
(+f0.0) if(8)   JIP:  LABEL0          UIP:  LABEL0              { align1 1Q };
break(8)        JIP:  LABEL0          UIP:  LABEL1              { align1 1Q };
LABEL0:
endif(8)        JIP:  LABEL1                                    { align1 1Q };
fbl(1)          g33<1>UD        mask0<0,1,0>UD                  { align1 WE_all 1N };
add(8)          g10<1>UD        g10<8,8,1>UD    0x00000001UD    { align1 1Q };
LABEL1:
while(8)        JIP:  LABEL5                                    { align1 1Q };
mov(8)          g126<1>UD       g0<8,8,1>UD                     { align1 WE_all 1Q };
send(16)        null<1>UW       g126<8,8,1>UW   0x82000000
                            thread_spawner MsgDesc: mlen 1 rlen 0           { align1 WE_all 1H EOT };
";

fn run(text: &str, jit: bool) -> (u32, u32) {
    let code =
        gtsim_isa::asm::assemble_for(Encoding::IceLake, text, gtsim_isa::asm::Compaction::Never)
            .unwrap();
    let mut prog = Program::new(Encoding::IceLake, &code);
    prog.set_jit_cache(None);
    prog.set_jit(jit);
    if jit {
        prog.optimize();
    }
    let mut t = Thread::new(8);
    let mut rec = Recorder::default();
    t.run_program(&prog, &mut rec as &mut dyn SharedFunctions, 100_000)
        .unwrap();
    let at = |r: usize| u32::from_le_bytes(t.grf_bytes()[r * 32..r * 32 + 4].try_into().unwrap());
    (at(33), at(10))
}

#[test]
fn an_endif_with_no_channel_left_jumps_to_its_jip() {
    for jit in [false, true] {
        assert_eq!(
            run(KERNEL, jit),
            (7, 0),
            "jit {jit}: the fbl and add did not run"
        );
    }
}

/// With channels 0-3 breaking first, channels 4-7 run the `fbl` (ce0 = 0xf0: 4) and
/// the add, and break in the second iteration (their g10 is then 1).
#[test]
fn an_endif_with_channels_left_goes_on() {
    let half = KERNEL.replace(
        "mov(1)          f0<1>UD         0xffffffffUD                    { align1 WE_all 1N };",
        "cmp.nz.f0.0(8)  null<1>UD       g10<8,8,1>UD    0x00000000UD    { align1 1Q };\n\
         or(1)           f0<1>UD         f0<0,1,0>UD     0x0000000fUD    { align1 WE_all 1N };",
    );
    assert_ne!(half, KERNEL);
    for jit in [false, true] {
        let (g33, g10) = run(&half, jit);
        assert_eq!(g33, 4, "jit {jit}: the first channel left");
        assert_eq!(g10, 0, "jit {jit}: channel 0 broke out before the add");
    }
}
