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
/// 7 and 10): cr0.0 reads as the dispatch's floating-point mode (bit 0: ALT) and the
/// mode bits the kernel set; changing the ALT bit or an exception enable is refused by
/// name.
#[test]
fn cr0_reads_the_dispatch_mode_and_the_kernels_float_controls() {
    let read = format!(
        "mov(1)          g2<1>UD         cr0<0,1,0>UD                    {{ align1 WE_all 1N }};
{EOT8}"
    );
    let (t, r) = run_float(&read, &[], true);
    r.unwrap();
    assert_eq!(dword(&t, 2, 0), 1, "ALT mode in cr0.0 bit 0");
    let (t, r) = run_float(&read, &[], false);
    r.unwrap();
    assert_eq!(dword(&t, 2, 0), 0, "IEEE mode");
    let set = format!(
        "and(1)          cr0<1>UD        cr0<0,1,0>UD    0xfffffb0fUD    {{ align1 WE_all 1N }};
or(1)           cr0<1>UD        cr0<0,1,0>UD    0x000004b0UD    {{ align1 WE_all 1N }};
mov(1)          g2<1>UD         cr0<0,1,0>UD                    {{ align1 WE_all 1N }};
{EOT8}"
    );
    let (t, r) = run_float(&set, &[], true);
    r.unwrap();
    assert_eq!(
        dword(&t, 2, 0),
        0x4b1,
        "RTZ, fp32 and fp16 denormals kept, ALT"
    );
    for bad in ["0x00000001UD", "0x00000200UD"] {
        let text = format!(
            "xor(1)          cr0<1>UD        cr0<0,1,0>UD    {bad}    {{ align1 WE_all 1N }};
{EOT8}"
        );
        let e = run_float(&text, &[], false).1.unwrap_err();
        assert!(e.to_string().contains("cr0"), "{e}");
    }
}

/// Runs `text` (Gen11) on an 8-channel thread whose registers `regs` hold the dwords
/// given, in ALT mode or IEEE.
fn run_float(
    text: &str,
    regs: &[(usize, [u32; 8])],
    alt: bool,
) -> (Thread, Result<u64, gtsim_eu::exec::ExecError>) {
    run_tier(text, regs, alt, false)
}

/// [`run_float`], with the program compiled to host code first when `jit` (a program that
/// writes cr0 must still run as the interpreter runs it).
fn run_tier(
    text: &str,
    regs: &[(usize, [u32; 8])],
    alt: bool,
    jit: bool,
) -> (Thread, Result<u64, gtsim_eu::exec::ExecError>) {
    let code = assemble_for(Encoding::IceLake, text, Compaction::Never).unwrap();
    let mut prog = Program::new(Encoding::IceLake, &code);
    if jit {
        prog.set_jit(true);
    }
    let mut t = Thread::new(8);
    t.fp_mode = if alt {
        gtsim_eu::exec::FpMode::Alt
    } else {
        gtsim_eu::exec::FpMode::Ieee
    };
    for (reg, v) in regs {
        let b = t.grf_bytes_mut();
        for (i, d) in v.iter().enumerate() {
            b[reg * 32 + i * 4..reg * 32 + i * 4 + 4].copy_from_slice(&d.to_le_bytes());
        }
    }
    let r = t.run_program(&prog, &mut Null, 100);
    (t, r)
}

const EOT8: &str = "send(8)         null<1>UW       g126<8,8,1>UW   0x82000000
                            thread_spawner MsgDesc: mlen 1 rlen 0 { align1 WE_all 1Q EOT };";

/// The kernel's rounding mode, worked by hand: 1 + 2^-30 (add) lies between 1 and
/// 1 + 2^-23; (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 (mul) between 1 + 2^-11 and the next
/// single up, 1 + 2^-11 + 2^-23; the fused mad (1 + 2^-12)^2 + -1 is exactly
/// 2^-11 + 2^-24, a single, in every mode; the integer 2^24 + 1 (mov D to F) lies between
/// 2^24 and 2^24 + 2; -1 - 2^-30 between -1 - 2^-23 and -1. Round to nearest even (cr0
/// clear) picks the nearer each time; RU (1 << 4) the upper; RD (2 << 4) the lower; RTZ
/// (3 << 4) the one nearer zero.
#[test]
fn directed_rounding_modes_round_add_mul_mad_and_conversions() {
    let one_plus = (1.0f32 + 2f32.powi(-12)).to_bits();
    let tiny = 2f32.powi(-30).to_bits();
    let regs = [
        (
            3,
            [
                1.0f32.to_bits(),
                one_plus,
                (-1.0f32).to_bits(),
                0,
                0,
                0,
                0,
                0,
            ],
        ),
        (
            4,
            [tiny, one_plus, (-(2f32.powi(-30))).to_bits(), 0, 0, 0, 0, 0],
        ),
        (5, [16_777_217, 0, 0, 0, 0, 0, 0, 0]),
    ];
    let kernel = |mode: u32| {
        format!(
            "or(1)           cr0<1>UD        cr0<0,1,0>UD    {:#010x}UD    {{ align1 WE_all 1N }};
add(1)          g10<1>F         g3<0,1,0>F      g4<0,1,0>F      {{ align1 WE_all 1N }};
mul(1)          g11<1>F         g3.1<0,1,0>F    g4.1<0,1,0>F    {{ align1 WE_all 1N }};
mad(1)          g12<1>F         -g3<0,1,0>F     g3.1<0,1,0>F    g4.1<0,1,0>F {{ align1 WE_all 1N }};
mov(1)          g13<1>F         g5<0,1,0>D                      {{ align1 WE_all 1N }};
add(1)          g14<1>F         g3.2<0,1,0>F    g4.2<0,1,0>F    {{ align1 WE_all 1N }};
{EOT8}",
            mode << 4
        )
    };
    let f = |x: f32| x.to_bits();
    let above1 = f(1.0 + 2f32.powi(-23));
    let sq_low = f(1.0 + 2f32.powi(-11));
    let sq_high = f(1.0 + 2f32.powi(-11) + 2f32.powi(-23));
    let mad = f(2f32.powi(-11) + 2f32.powi(-24));
    let minus_above1 = f(-(1.0 + 2f32.powi(-23)));
    // (mode, add, mul, mad, mov, negative add)
    let want = [
        (0, f(1.0), sq_low, mad, f(16_777_216.0), f(-1.0)),
        (1, above1, sq_high, mad, f(16_777_218.0), f(-1.0)),
        (2, f(1.0), sq_low, mad, f(16_777_216.0), minus_above1),
        (3, f(1.0), sq_low, mad, f(16_777_216.0), f(-1.0)),
    ];
    for (mode, add, mul, mad, mov, neg) in want {
        for jit in [false, true] {
            let (t, r) = run_tier(&kernel(mode), &regs, false, jit);
            r.unwrap();
            let got = [10, 11, 12, 13, 14].map(|g| dword(&t, g, 0));
            assert_eq!(
                got,
                [add, mul, mad, mov, neg],
                "rounding mode {mode}, JIT {jit}"
            );
        }
    }
}

/// A single precision denormal (2^-140) added to 0 comes out as itself when the kernel
/// keeps denormals (cr0.0 bit 7) and as +0 when they are flushed (the dispatch's
/// default).
#[test]
fn the_kernel_may_keep_single_precision_denormals() {
    let denormal = 2f32.powi(-140).to_bits();
    let regs = [(3, [denormal; 8]), (4, [0; 8])];
    let kernel = |bits: &str| {
        format!(
            "or(1)           cr0<1>UD        cr0<0,1,0>UD    {bits}    {{ align1 WE_all 1N }};
add(8)          g10<1>F         g3<8,8,1>F      g4<8,8,1>F      {{ align1 1Q }};
{EOT8}"
        )
    };
    let (t, r) = run_float(&kernel("0x00000080UD"), &regs, false);
    r.unwrap();
    assert_eq!(dword(&t, 10, 0), denormal);
    let (t, r) = run_float(&kernel("0x00000000UD"), &regs, false);
    r.unwrap();
    assert_eq!(dword(&t, 10, 0), 0);
}
