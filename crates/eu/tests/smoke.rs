//! Basic checks of the harness and interpreter, with expectations worked by hand.

use gtsim_eu::exec::ExecError;
use gtsim_eu::harness::{HarnessError, dump, run_asm};

#[test]
fn add_floats_simd8() {
    // 1+0.5, 2+0.5, ... exactly representable sums.
    let r = run_asm(
        "add(8) g10<1>F g2<8,8,1>F 0x3f000000F { align1 1Q };",
        8,
        &["g2:f=1,2,3,4,5,6,7,8"],
    )
    .unwrap();
    assert_eq!(
        dump(&r.thread, "g10:f", 8).unwrap(),
        "g10:f = 1.5 2.5 3.5 4.5 5.5 6.5 7.5 8.5"
    );
}

#[test]
fn predicated_mov_keeps_masked_channels() {
    // cmp.l sets f0.0 bits where g2 < g3: channels 0,2,4,6 (1<2, 3<4, ...).
    let asm = "cmp.l.f0.0(8) null<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };\n(+f0.0) mov(8) g10<1>F g2<8,8,1>F { align1 1Q };";
    let r = run_asm(
        asm,
        8,
        &[
            "g2:f=1,5,3,5,5,9,7,9",
            "g3:f=2,4,4,4,6,8,8,8",
            "g10:f=-1,-1,-1,-1,-1,-1,-1,-1",
        ],
    )
    .unwrap();
    assert_eq!(r.thread.flag(0, 0), 0b0101_0101);
    assert_eq!(
        dump(&r.thread, "g10:f", 8).unwrap(),
        "g10:f = 1 -1 3 -1 5 -1 7 -1"
    );
}

#[test]
fn divergent_if_else() {
    // Channels with g2 < 0 take the then-block (write 1), others the else-block (write 2).
    let asm = "cmp.l.f0.0(8) null<1>F g2<8,8,1>F 0x0F { align1 1Q };
(+f0.0) if(8) JIP: LABEL1 UIP: LABEL0 { align1 1Q };
mov(8) g10<1>F 0x3f800000F { align1 1Q };
else(8) JIP: LABEL0 { align1 1Q };
LABEL1:
mov(8) g10<1>F 0x40000000F { align1 1Q };
LABEL0:
endif(8) JIP: LABEL2 { align1 1Q };
LABEL2:
add(8) g11<1>F g10<8,8,1>F 0x3f800000F { align1 1Q };";
    let r = run_asm(asm, 8, &["g2:f=-1,1,-1,1,-1,1,-1,1"]).unwrap();
    assert_eq!(
        dump(&r.thread, "g10:f", 8).unwrap(),
        "g10:f = 1 2 1 2 1 2 1 2"
    );
    assert_eq!(
        dump(&r.thread, "g11:f", 8).unwrap(),
        "g11:f = 2 3 2 3 2 3 2 3"
    );
}

#[test]
fn loop_runs_a_per_channel_count() {
    // g10 counts up to g2 per channel: while (g10 < g2) g10 += 1.
    let asm = "LABEL0:
add(8) g10<1>D g10<8,8,1>D 1D { align1 1Q };
cmp.l.f0.0(8) null<1>D g10<8,8,1>D g2<8,8,1>D { align1 1Q };
(+f0.0) while(8) JIP: LABEL0 { align1 1Q };";
    let r = run_asm(asm, 8, &["g2:d=1,2,3,4,5,6,7,8"]).unwrap();
    assert_eq!(
        dump(&r.thread, "g10:d", 8).unwrap(),
        "g10:d = 1 2 3 4 5 6 7 8"
    );
}

#[test]
fn runaway_and_bad_regions_are_errors() {
    let code = gtsim_isa::asm::assemble(
        "LABEL0:\nwhile(8) JIP: LABEL0 { align1 1Q };",
        gtsim_isa::asm::Compaction::Never,
    )
    .unwrap();
    let e = gtsim_eu::harness::run_bin_with_budget(&code, 8, &[], 10_000).unwrap_err();
    assert!(
        matches!(
            e,
            HarnessError::Exec(ExecError::Budget {
                budget: 10_000,
                ip: 0
            })
        ),
        "{e}"
    );
    // 16 floats from g127 run into g128, whose first byte is 128 * 32.
    let e = run_asm("mov(16) g10<1>F g127<8,8,1>F { align1 1H };", 16, &[]).unwrap_err();
    assert_eq!(
        e,
        HarnessError::Exec(ExecError::Region {
            ip: 0,
            byte: 128 * 32
        })
    );
    // All-ones bytes: Compaction Control (bit 29) set, and opcode 0x7f is no Gen7
    // instruction.
    let e = gtsim_eu::harness::run_bin(&[0xff; 16], 8, &[]).unwrap_err();
    assert!(
        matches!(
            e,
            HarnessError::Exec(ExecError::Decode {
                ip: 0,
                error: gtsim_isa::DecodeError::UnknownOpcode(0x7f)
            })
        ),
        "{e}"
    );
}

/// Collatz step counts with two `break`s whose UIP is the `while` itself, as Mesa emits
/// for Gen7 (the shader_loops client's loop). Worked by hand: 1→0 steps, 2→1, 3→7 (3 10 5
/// 16 8 4 2 1), 4→2, 5→5, 6→8, 7→16, 8→3; the `k < 200` bound never triggers.
#[test]
fn loop_with_breaks_to_the_while() {
    let asm = "mov(8) g8<1>D 0D { align1 1Q };
mov(8) g9<1>D 0D { align1 1Q };
LABEL1:
cmp.ge.f0.0(8) null<1>D g8<8,8,1>D 200D { align1 1Q };
(+f0.0) break(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };
cmp.z.f0.0(8) null<1>D g6<8,8,1>D 1D { align1 1Q };
(+f0.0) break(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };
and.z.f0.0(8) null<1>D g6<8,8,1>D 1D { align1 1Q };
(+f0.0) if(8) JIP: LABEL2 UIP: LABEL3 { align1 1Q };
asr(8) g6<1>D g6<8,8,1>D 1D { align1 1Q };
else(8) JIP: LABEL3 UIP: LABEL3 { align1 1Q };
LABEL2:
mul(8) g6<1>D g6<8,8,1>D 3D { align1 1Q };
add(8) g6<1>D g6<8,8,1>D 1D { align1 1Q };
LABEL3:
endif(8) JIP: LABEL4 { align1 1Q };
LABEL4:
add(8) g9<1>D g9<8,8,1>D 1D { align1 1Q };
add(8) g8<1>D g8<8,8,1>D 1D { align1 1Q };
LABEL0:
while(8) JIP: LABEL1 { align1 1Q };
add(8) g10<1>D g9<8,8,1>D 100D { align1 1Q };";
    let r = run_asm(asm, 8, &["g6:d=1,2,3,4,5,6,7,8"]).unwrap();
    assert_eq!(
        dump(&r.thread, "g9:d", 8).unwrap(),
        "g9:d = 0 1 7 2 5 8 16 3"
    );
    // Every channel resumes after the loop.
    assert_eq!(
        dump(&r.thread, "g10:d", 8).unwrap(),
        "g10:d = 100 101 107 102 105 108 116 103"
    );
}

/// Double precision is computed in f64: 0.1 + 0.2 is the double 0.30000000000000004 (in
/// f32 it would print 0.3), 2^500 * 2^400 = 2^900 (infinite in f32), and the smallest
/// double denormal 5e-324 survives an add (only fp32 denormals are flushed). Expected
/// values from Python's float repr. Ivy Bridge counts DF execution in 32-bit channels, so
/// the four doubles of a register take `(8)` and the region `<8,8,1>` (IVB PRM via Mesa's
/// brw_fs_generator.cpp; see `gtsim_eu`'s crate docs).
#[test]
fn double_precision_arithmetic() {
    let asm = "add(8) g10<1>DF g2<8,8,1>DF g4<8,8,1>DF { align1 1Q };
mul(8) g12<1>DF g6<8,8,1>DF g8<8,8,1>DF { align1 1Q };";
    let r = run_asm(
        asm,
        8,
        &[
            "g2:df=0.1,5e-324,1,-0",
            "g4:df=0.2,0,-1,-0",
            "g6:df=3.273390607896142e150,1,1,1",
            "g8:df=2.5822498780869086e120,1,1,1",
        ],
    )
    .unwrap();
    assert_eq!(
        dump(&r.thread, "g10:df", 4).unwrap(),
        "g10:df = 0.30000000000000004 5e-324 0 -0"
    );
    assert_eq!(
        dump(&r.thread, "g12:df", 1).unwrap(),
        "g12:df = 8.452712498170644e270"
    );
    // DF math is not modelled: a loud error, not an f32 answer.
    let e = run_asm(
        "math sqrt(8) g10<1>DF g2<8,8,1>DF null<8,8,1>F { align1 1Q };",
        8,
        &[],
    )
    .unwrap_err();
    assert!(
        matches!(&e, HarnessError::Exec(ExecError::Unsupported { ip: 0, unsupported })
            if unsupported.what.contains("double-precision `math`")),
        "{e}"
    );
}

/// call/ret (IVB PRM Vol4 Part3 CALL, RET): the call saves the return IP (byte offset of
/// the instruction after it) in dst.0 and the calling channels in dst.1, and runs the
/// subroutine; ret resumes at the saved IP. With f0.0 = 0x0f only channels 0..3 call: they
/// get g10 = 1*7 + 100 = 107, the others skip the subroutine: 1 + 100 = 101.
#[test]
fn call_and_ret_with_predicated_channels() {
    use gtsim_isa::ir::{Address, Dst, DstLayout, Layout, RegFile, Region, Src, Type};
    let asm = "mov(8) g10<1>D 1D { align1 1Q };
mov(1) f0<1>UW 0x000fUW { align1 WE_all 1N };
(+f0.0) call(8) JIP: LABEL0 { align1 1Q };
add(8) g10<1>D g10<8,8,1>D 100D { align1 1Q };
sendc(8) null<1>UW g124<8,8,1>UD 0x88031400
    render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };
LABEL0:
mul(8) g10<1>D g10<8,8,1>D 7D { align1 1Q };
ret(8) JIP: LABEL0 { align1 1Q };";
    let mut code = gtsim_isa::asm::assemble(asm, gtsim_isa::asm::Compaction::Never).unwrap();
    // The text form has no operands for call/ret: put g20 in call's dst and ret's src0.
    for at in [0x20usize, 0x60] {
        let (mut ins, _) = gtsim_isa::gen7::decode::decode(&code[at..]).unwrap();
        if at == 0x20 {
            ins.dst = Dst {
                file: RegFile::Grf,
                nr: 20,
                subnr: 0,
                ty: Type::UD,
                layout: DstLayout::HStride(1),
                address: Address::Direct,
            };
        } else {
            ins.srcs[0] = Src::Reg {
                file: RegFile::Grf,
                nr: 20,
                subnr: 0,
                ty: Type::UD,
                layout: Layout::Region(Region {
                    vstride: Some(2),
                    width: 2,
                    hstride: 1,
                }),
                address: Address::Direct,
                negate: false,
                abs: false,
            };
        }
        let bytes = gtsim_isa::gen7::encode::encode(&ins).unwrap();
        code[at..at + 16].copy_from_slice(&bytes);
    }
    let r = gtsim_eu::harness::run_bin(&code, 8, &[]).unwrap();
    assert_eq!(
        dump(&r.thread, "g10:d", 8).unwrap(),
        "g10:d = 107 107 107 107 101 101 101 101"
    );
    // Return IP 0x30 (the add after the call), calling channels 0x0f.
    assert_eq!(dump(&r.thread, "g20:ud", 2).unwrap(), "g20:ud = 48 15");
    assert_eq!(r.messages.len(), 1);
}

/// A thread reset for a new dispatch (`Thread::reset`, which reuses its register file)
/// is exactly a new thread: registers, flags, accumulators, control flow state,
/// dispatch mask, floating-point mode and counters, after a run that changed them all.
#[test]
fn a_reset_thread_is_a_new_thread() {
    use gtsim_eu::exec::{FpMode, Thread};
    // Flags, an accumulator (integer mul), registers and a channel left waiting at an
    // `if` whose endif never comes.
    let asm = "cmp.l.f0.0(8) null<1>F g2<8,8,1>F 0x0F { align1 1Q };
mul(8) g12<1>D g3<8,8,1>D g3<8,8,1>D { align1 1Q };
(+f0.0) if(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };
mov(8) g10<1>F 0x3f800000F { align1 1Q };
LABEL0:
add(8) g11<1>F g10<8,8,1>F 0x3f800000F { align1 1Q };";
    let r = run_asm(asm, 8, &["g2:f=-1,1,-1,1,-1,1,-1,1", "g3:d=7,8,9"]).unwrap();
    let mut t = r.thread;
    t.fp_mode = FpMode::Alt;
    t.dispatch_mask = 0x0f;
    assert_ne!(format!("{t:?}"), format!("{:?}", Thread::new(16)));
    t.reset(16);
    assert_eq!(format!("{t:?}"), format!("{:?}", Thread::new(16)));
    t.reset(8);
    assert_eq!(format!("{t:?}"), format!("{:?}", Thread::new(8)));
}
