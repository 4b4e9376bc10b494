//! Gen8+ reads of ce0 and sr0 as Mesa's find_live_channel makes them (brw_eu_emit.c
//! brw_find_live_channel: "ce0 does not take into account the thread dispatch mask",
//! which sr0.2 holds; Gen11 PRM Vol 2a "State Register" DW2 Dispatch Mask, DW3 Vector
//! Mask): a SIMD16 thread dispatched with 12 channels reads ce0 as its 16 enabled
//! channels and sr0.2 and sr0.3 as the 12.

use gtsim_eu::exec::{Message, MessageError, Program, SharedFunctions, Thread};
use gtsim_isa::Encoding;
use gtsim_isa::asm::{Compaction, assemble_for};

struct Null;

impl SharedFunctions for Null {
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError> {
        Ok(vec![[0; 32]; m.response_length as usize])
    }
}

fn dword(t: &Thread, reg: usize, d: usize) -> u32 {
    let b = &t.grf_bytes()[reg * 32 + d * 4..reg * 32 + d * 4 + 4];
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

#[test]
fn ce0_is_the_enabled_channels_and_sr0_the_dispatch_mask() {
    let text =
        "mov(1)          g2<1>UD         mask0<0,1,0>UD                  { align1 WE_all 1N };
mov(1)          g2.1<1>UD       sr0.2<0,1,0>UD                  { align1 WE_all 1N };
mov(1)          g2.2<1>UD       sr0.3<0,1,0>UD                  { align1 WE_all 1N };
send(16)        null<1>UW       g126<8,8,1>UW   0x82000000
                            thread_spawner MsgDesc: mlen 1 rlen 0 { align1 WE_all 1H EOT };";
    let code = assemble_for(Encoding::IceLake, text, Compaction::Never).unwrap();
    let prog = Program::new(Encoding::IceLake, &code);
    let mut t = Thread::new(16);
    t.dispatch_mask = 0x0fff;
    t.run_program(&prog, &mut Null, 100).unwrap();
    assert_eq!(
        dword(&t, 2, 0),
        0xffff,
        "ce0: the 16 channels control flow enables"
    );
    assert_eq!(dword(&t, 2, 1), 0x0fff, "sr0.2: the dispatch mask");
    assert_eq!(dword(&t, 2, 2), 0x0fff, "sr0.3: the vector mask");
}

#[test]
fn sr0_thread_state_is_refused() {
    let text =
        "mov(1)          g2<1>UD         sr0<0,1,0>UD                    { align1 WE_all 1N };
send(16)        null<1>UW       g126<8,8,1>UW   0x82000000
                            thread_spawner MsgDesc: mlen 1 rlen 0 { align1 WE_all 1H EOT };";
    let code = assemble_for(Encoding::IceLake, text, Compaction::Never).unwrap();
    let prog = Program::new(Encoding::IceLake, &code);
    let mut t = Thread::new(16);
    let e = t.run_program(&prog, &mut Null, 100).unwrap_err();
    assert!(e.to_string().contains("sr0.0"), "{e}");
}

/// cr0 as Mesa's Gen11 compiler touches it (brw_fs.cpp emit_shader_float_controls /
/// SHADER_OPCODE_RND_MODE: `and(1) cr0 cr0 ~mask`, `or(1) cr0 cr0 mode`; the mode bits
/// are brw_eu_defines.h BRW_CR0_RND_MODE_* in 5:4 and BRW_CR0_FP*_DENORM_PRESERVE in 6,
/// 7 and 10): cr0.0 reads as the dispatch's floating-point mode (bit 0: ALT); clearing
/// the rounding and denormal bits of a thread that has them clear leaves cr0 as it is
/// and runs; selecting round-toward-zero (3 << 4) is refused by name.
#[test]
fn cr0_reads_the_dispatch_mode_and_refuses_other_rounding() {
    let run = |text: &str, alt: bool| {
        let code = assemble_for(Encoding::IceLake, text, Compaction::Never).unwrap();
        let prog = Program::new(Encoding::IceLake, &code);
        let mut t = Thread::new(8);
        t.fp_mode = if alt {
            gtsim_eu::exec::FpMode::Alt
        } else {
            gtsim_eu::exec::FpMode::Ieee
        };
        let r = t.run_program(&prog, &mut Null, 100);
        (t, r)
    };
    let eot = "send(8)         null<1>UW       g126<8,8,1>UW   0x82000000
                            thread_spawner MsgDesc: mlen 1 rlen 0 { align1 WE_all 1Q EOT };";
    let read = format!(
        "mov(1)          g2<1>UD         cr0<0,1,0>UD                    {{ align1 WE_all 1N }};
{eot}"
    );
    let (t, r) = run(&read, true);
    r.unwrap();
    assert_eq!(dword(&t, 2, 0), 1, "ALT mode in cr0.0 bit 0");
    let (t, r) = run(&read, false);
    r.unwrap();
    assert_eq!(dword(&t, 2, 0), 0, "IEEE mode");
    let clear = format!(
        "and(1)          cr0<1>UD        cr0<0,1,0>UD    0xfffffb0fUD    {{ align1 WE_all 1N }};
{eot}"
    );
    run(&clear, false).1.unwrap();
    let rtz = format!(
        "or(1)           cr0<1>UD        cr0<0,1,0>UD    0x00000030UD    {{ align1 WE_all 1N }};
{eot}"
    );
    let e = run(&rtz, false).1.unwrap_err();
    assert!(e.to_string().contains("cr0"), "{e}");
}
