//! Gen11 ALU semantics that differ from Gen7's, worked by hand, on every tier (the
//! per-channel interpreter, micro-ops, the quick and optimized JIT):
//! * a negated source of a logic instruction is its bitwise NOT (Mesa brw_disasm.c
//!   prints it `~`; on Gen7 the same bit negates arithmetically);
//! * ROR and ROL rotate within the source type's width (Mesa brw_ROR/brw_ROL, Gen11+).

use gtsim_eu::exec::{Message, MessageError, Program, SharedFunctions, Thread};
use gtsim_isa::Encoding;
use gtsim_isa::asm::{Compaction, assemble_for};

struct Null;

impl SharedFunctions for Null {
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError> {
        Ok(vec![[0; 32]; m.response_length as usize])
    }
}

const EOT: &str = "send(8)         null<1>UW       g126<8,8,1>UW   0x82000000
                            thread_spawner MsgDesc: mlen 1 rlen 0 { align1 WE_all 1Q EOT };";

/// Runs `body` (then an EOT) with g1 and g2 holding `a` and `b` in every dword, on each
/// tier; returns g3's first dword and g4's, checking the tiers agree.
fn run(encoding: Encoding, body: &str, a: u32, b: u32) -> [u32; 2] {
    let text = format!("{body}\n{EOT}");
    let code = assemble_for(encoding, &text, Compaction::Never).unwrap();
    let mut results = vec![];
    for tier in 0..4 {
        let mut prog = Program::new(encoding, &code);
        prog.set_micro_ops(tier > 0);
        prog.set_jit(tier > 1);
        prog.set_jit_cache(None);
        if tier == 3 {
            prog.optimize();
        }
        let mut t = Thread::new(8);
        for (i, d) in t.grf_bytes_mut().chunks_exact_mut(4).enumerate() {
            let v = match i / 8 {
                1 => a,
                2 => b,
                _ => 0,
            };
            d.copy_from_slice(&v.to_le_bytes());
        }
        t.run_program(&prog, &mut Null, 1000).unwrap();
        let dw = |r: usize| {
            let g = &t.grf_bytes()[r * 32..r * 32 + 4];
            u32::from_le_bytes([g[0], g[1], g[2], g[3]])
        };
        results.push([dw(3), dw(4)]);
    }
    assert!(
        results.windows(2).all(|w| w[0] == w[1]),
        "tiers differ: {results:x?}"
    );
    results[0]
}

#[test]
fn a_negated_logic_source_is_its_bitwise_not_on_gen11() {
    let body = "and(8)          g3<1>UD         ~g1<8,8,1>UD    g2<8,8,1>UD     { align1 1Q };
xor(8)          g4<1>UD         ~g1<8,8,1>UD    0x0000000fUD    { align1 1Q };";
    // ~0x000000ff & 0xffff0f0f = 0xffff0f00; ~0x000000ff ^ 0xf = 0xffffff0f.
    assert_eq!(
        run(Encoding::IceLake, body, 0xff, 0xffff_0f0f),
        [0xffff_0f00, 0xffff_ff0f]
    );
    // Gen7: arithmetic negation, -0xff = 0xffffff01: & 0xffff0f0f = 0xffff0f01,
    // ^ 0xf = 0xffffff0e.
    let gen7 = "and(8)          g3<1>UD         -g1<8,8,1>UD    g2<8,8,1>UD     { align1 1Q };
xor(8)          g4<1>UD         -g1<8,8,1>UD    0x0000000fUD    { align1 1Q };";
    assert_eq!(
        run(Encoding::IvyBridge, gen7, 0xff, 0xffff_0f0f),
        [0xffff_0f01, 0xffff_ff0e]
    );
}

#[test]
fn ror_and_rol_rotate_within_the_type() {
    let body = "ror(8)          g3<1>UD         g1<8,8,1>UD     0x00000004UD    { align1 1Q };
rol(8)          g4<1>UD         g1<8,8,1>UD     0x00000008UD    { align1 1Q };";
    assert_eq!(
        run(Encoding::IceLake, body, 0x1234_5678, 0),
        [0x8123_4567, 0x3456_7812]
    );
    // 16-bit: 0x1234 rotated right by 4 is 0x4123, left by 20 (20 mod 16 = 4) 0x2341.
    let words = "ror(8)          g3<1>UW         g1<16,8,2>UW    0x0004UW        { align1 1Q };
rol(8)          g4<1>UW         g1<16,8,2>UW    0x0014UW        { align1 1Q };";
    let [r, l] = run(Encoding::IceLake, words, 0x1234, 0);
    assert_eq!((r & 0xffff, l & 0xffff), (0x4123, 0x2341));
}

/// Half floats (Gen8+ HF, and mixed-mode float: HF and F operands in one instruction),
/// worked by hand: 1.5 + 2.25 = 3.75 in HF (0x4380); 1.5 (HF) × 3.0 (F) = 4.5 to an F
/// destination; a mov of F 65520.0 to HF rounds to +inf (0x7c00, past the largest half).
#[test]
fn half_floats_and_mixed_mode() {
    let body = "add(8)          g3<1>HF         g1<16,8,2>HF    g2<16,8,2>HF    { align1 1Q };
mul(8)          g4<1>F          g1<16,8,2>HF    0x40400000F     { align1 1Q };";
    // g1 holds 1.5 (HF 0x3e00) in each word pair's low half, g2 2.25 (0x4080).
    let [add, mul] = run(Encoding::IceLake, body, 0x3e00, 0x4080);
    assert_eq!(add & 0xffff, 0x4380, "1.5 + 2.25 = 3.75");
    assert_eq!(f32::from_bits(mul), 4.5);
    let body = "mov(8)          g3<1>HF         g1<8,8,1>F      { align1 1Q };
mov(8)          g4<1>F          g2<16,8,2>HF    { align1 1Q };";
    let [inf, back] = run(Encoding::IceLake, body, 65520.0f32.to_bits(), 0x3555);
    assert_eq!(inf & 0xffff, 0x7c00, "65520 rounds to +inf in half");
    assert_eq!(
        f32::from_bits(back),
        f32::from(half::f16::from_bits(0x3555))
    );
}

/// csel (Gen8+, which Mesa 25 emits for NIR's fcsel): dst = src2 <cond> 0 ? src0 : src1,
/// the comparison in src2's type and with its modifiers; no flag is written. With
/// g1 = 2.0 and g2 = -3.0: `.g` on g1 takes src0 (2.0); on -g1 (-2.0 > 0 is false)
/// src1 (-3.0); `.le` on (abs)g2 (3.0 <= 0 is false) src1, the other source order
/// giving 2.0 again.
#[test]
fn csel_selects_by_its_third_source_against_zero() {
    let body =
        "csel.g(8)       g3<1>F          g1<8,8,1>F      g2<8,8,1>F      g1<1,1,1>F { align1 1Q };
csel.g(8)       g4<1>F          g1<8,8,1>F      g2<8,8,1>F      -g1<1,1,1>F { align1 1Q };";
    assert_eq!(
        run(Encoding::IceLake, body, 2f32.to_bits(), (-3f32).to_bits()),
        [2f32.to_bits(), (-3f32).to_bits()]
    );
    let body = "csel.le(8)      g3<1>F          g1<8,8,1>F      g2<8,8,1>F      (abs)g2<1,1,1>F { align1 1Q };
csel.le(8)      g4<1>F          g2<8,8,1>F      g1<8,8,1>F      (abs)g2<1,1,1>F { align1 1Q };";
    assert_eq!(
        run(Encoding::IceLake, body, 2f32.to_bits(), (-3f32).to_bits()),
        [(-3f32).to_bits(), 2f32.to_bits()]
    );
}
