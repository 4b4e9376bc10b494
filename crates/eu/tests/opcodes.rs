//! Per-opcode tests of the Gen7 (Ivy Bridge) EU interpreter.
//!
//! Every expectation here was worked out by hand (a few checked with a small, separate
//! Python calculation of the same formula) from the documented hardware semantics. None was
//! copied from the interpreter's output. Sources are cited in the comments:
//!
//! * "PRM" is the Ivy Bridge PRM, Vol 4 Part 3 ("EU ISA"): the instruction descriptions,
//!   the "Type Conversion" and "Saturation" rules and "Structured Control Flow". Where the
//!   PRM text was not at hand, the same rules as restated in Intel's public vISA
//!   specification (intel-graphics-compiler, documentation/visa/2_datatypes.md and
//!   instructions/*.md, which restates the hardware conversion and NaN rules) or in Mesa's
//!   compiler (which must match the hardware to pass conformance) are cited.
//! * IEEE-754 for plain float arithmetic in the default round-to-nearest-even mode.
//!
//! Behaviour that is genuinely uncertain is in the last section: characterisation tests
//! that pin the model's current choice, each with its open hardware question, so that a
//! change there is deliberate.

use gtsim_eu::exec::ExecError;
use gtsim_eu::harness::{HarnessError, Run, dump, run_asm, run_asm_every_path, run_bin};
use gtsim_isa::DecodeError;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// Runs a kernel that must succeed.
fn run(asm: &str, simd: u8, sets: &[&str]) -> Run {
    match run_asm(asm, simd, sets) {
        Ok(r) => r,
        Err(e) => panic!("kernel failed: {e}\n--- kernel ---\n{asm}"),
    }
}

/// The harness's text dump of a register.
fn show(r: &Run, spec: &str, n: usize) -> String {
    dump(&r.thread, spec, n).unwrap()
}

fn bytes(r: &Run, reg: usize, off: usize, len: usize) -> &[u8] {
    &r.thread.grf_bytes()[reg * 32 + off..reg * 32 + off + len]
}

/// `n` dwords starting at `reg` (continuing into the following registers).
fn ud(r: &Run, reg: usize, n: usize) -> Vec<u32> {
    (0..n)
        .map(|i| u32::from_le_bytes(bytes(r, reg, i * 4, 4).try_into().unwrap()))
        .collect()
}

fn d(r: &Run, reg: usize, n: usize) -> Vec<i32> {
    ud(r, reg, n).into_iter().map(|v| v as i32).collect()
}

fn f(r: &Run, reg: usize, n: usize) -> Vec<f32> {
    ud(r, reg, n).into_iter().map(f32::from_bits).collect()
}

fn uw(r: &Run, reg: usize, n: usize) -> Vec<u16> {
    (0..n)
        .map(|i| u16::from_le_bytes(bytes(r, reg, i * 2, 2).try_into().unwrap()))
        .collect()
}

fn ub(r: &Run, reg: usize, n: usize) -> Vec<u8> {
    bytes(r, reg, 0, n).to_vec()
}

/// Every `step`-th element, starting with the first.
fn every<T: Copy>(v: &[T], step: usize) -> Vec<T> {
    v.iter().step_by(step).copied().collect()
}

/// Float results equal bit for bit (so -0 differs from +0), except that any NaN matches
/// an expected NaN.
fn assert_f32_exact(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else {
            g.to_bits() == w.to_bits()
        };
        assert!(
            ok,
            "{what}: channel {i}: got {g:?} ({:#010x}), want {w:?} ({:#010x})\n got  {got:?}\n want {want:?}",
            g.to_bits(),
            w.to_bits()
        );
    }
}

/// Float results equal as values (+0 == -0), any NaN matching an expected NaN.
fn assert_f32_value(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() { g.is_nan() } else { g == w };
        assert!(
            ok,
            "{what}: channel {i}: got {g:?}, want {w:?}\n got  {got:?}\n want {want:?}"
        );
    }
}

/// Float results within `rel` relative or `abs` absolute error of the reference; infinities,
/// zeros of the reference that are special values and NaNs must match exactly.
fn assert_f32_close(got: &[f32], want: &[f64], rel: f64, abs: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let g64 = *g as f64;
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g64 == *w
        } else {
            let err = (g64 - w).abs();
            err <= abs || err <= rel * w.abs()
        };
        assert!(
            ok,
            "{what}: channel {i}: got {g:?}, want {w:?} (rel {rel:e}, abs {abs:e})\n got  {got:?}"
        );
    }
}

// Float immediates are written as their bit patterns: 1.0 = 0x3f800000, 2.0 = 0x40000000,
// 0.5 = 0x3f000000, 0 = 0x0.

// ---------------------------------------------------------------------------------------
// mov and type conversion
// ---------------------------------------------------------------------------------------

#[test]
fn mov_f_to_d_rounds_toward_zero() {
    // PRM "Type Conversion" / vISA 2_datatypes.md "Float to Integer": the fractional part
    // is discarded (round toward zero). -0.5 and -0 both give 0.
    let r = run(
        "mov(8) g10<1>D g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=1.5,-1.5,2.99,-2.99,0.5,-0.5,100,-0"],
    );
    assert_eq!(show(&r, "g10:d", 8), "g10:d = 1 -1 2 -2 0 0 100 0");
}

#[test]
fn mov_f_to_d_saturates_and_nan_gives_zero() {
    // Same table: f > Imax and +inf give Imax, f < Imin and -inf give Imin, NaN gives 0.
    // 2147483520 is the largest float below 2^31 and converts exactly; 2^31 itself is out
    // of range and saturates; -2^31 is exactly Imin.
    let r = run(
        "mov(8) g10<1>D g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=3e9,-3e9,inf,-inf,nan,2147483520,2147483648,-2147483648"],
    );
    assert_eq!(
        d(&r, 10, 8),
        vec![
            i32::MAX,
            i32::MIN,
            i32::MAX,
            i32::MIN,
            0,
            2147483520,
            i32::MAX,
            i32::MIN
        ]
    );
}

#[test]
fn mov_f_to_ud_saturates() {
    // Unsigned table: f > Imax and +inf give 0xffffffff; NaN and -0 give 0; in-range values
    // truncate. 4294967040 is the largest float below 2^32.
    let r = run(
        "mov(8) g10<1>UD g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=3.7,4294967040,5e9,inf,nan,0.999,65536.5,-0"],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![3, 4294967040, u32::MAX, u32::MAX, 0, 0, 65536, 0]
    );
}

#[test]
fn mov_f_to_w_saturates_to_word_range() {
    // Float to a 16-bit integer saturates to that type's range (Imax/Imin of W are
    // 32767/-32768). The destination is `<2>W`: the PRM region rules require a destination
    // stride equal to (execution type size / destination type size) = 4/2.
    let r = run(
        "mov(8) g10<2>W g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=40000,-40000,1234.9,-1234.9,32767,-32768,nan,0.5"],
    );
    let w: Vec<i16> = every(&uw(&r, 10, 16), 2)
        .into_iter()
        .map(|v| v as i16)
        .collect();
    assert_eq!(w, vec![32767, -32768, 1234, -1234, 32767, -32768, 0, 0]);
}

#[test]
fn mov_f_to_ub_saturates_to_byte_range() {
    // Float to UB: truncate, saturate above 255, NaN gives 0. Destination stride 4 (F is
    // four times as wide as UB).
    let r = run(
        "mov(8) g10<4>UB g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=300,255.9,128.5,0.2,inf,nan,1,254.999"],
    );
    assert_eq!(
        every(&ub(&r, 10, 32), 4),
        vec![255, 255, 128, 0, 255, 0, 1, 254]
    );
}

#[test]
fn mov_d_to_ub_and_w_truncates() {
    // vISA 2_datatypes.md "Integer to Integer with Lower Precision": only the low bits are
    // kept, whatever the signedness. 0x12345678 -> UB 0x78 = 120, W 0x5678 = 22136;
    // -129 = 0xffffff7f -> UB 0x7f; -32769 = 0xffff7fff -> UB 0xff, W 0x7fff.
    let asm = "mov(8) g10<4>UB g2<8,8,1>D { align1 1Q };
mov(8) g11<2>W g2<8,8,1>D { align1 1Q };";
    let r = run(
        asm,
        8,
        &["g2:d=305419896,-1,256,65535,32768,-129,-32769,200"],
    );
    assert_eq!(
        every(&ub(&r, 10, 32), 4),
        vec![120, 255, 0, 255, 0, 127, 255, 200]
    );
    let w: Vec<i16> = every(&uw(&r, 11, 16), 2)
        .into_iter()
        .map(|v| v as i16)
        .collect();
    assert_eq!(w, vec![22136, -1, 256, -1, -32768, -129, 32767, 200]);
}

#[test]
fn mov_sat_clamps_integers_to_destination_range() {
    // vISA 2_datatypes.md "Saturation": for integer destinations the target range is the
    // type's range (UB [0,255], W [-32768,32767], UD [0,2^32-1]).
    let asm = "mov.sat(8) g10<4>UB g2<8,8,1>D { align1 1Q };
mov.sat(8) g11<2>W g2<8,8,1>D { align1 1Q };
mov.sat(8) g12<1>UD g2<8,8,1>D { align1 1Q };";
    let r = run(asm, 8, &["g2:d=-5,300,100,40000,-40000,255,0,-1"]);
    assert_eq!(
        every(&ub(&r, 10, 32), 4),
        vec![0, 255, 100, 255, 0, 255, 0, 0]
    );
    let w: Vec<i16> = every(&uw(&r, 11, 16), 2)
        .into_iter()
        .map(|v| v as i16)
        .collect();
    assert_eq!(w, vec![-5, 300, 100, 32767, -32768, 255, 0, -1]);
    assert_eq!(ud(&r, 12, 8), vec![0, 300, 100, 40000, 0, 255, 0, 0]);
}

#[test]
fn mov_sign_and_zero_extension() {
    // "Integer to Integer with Same or Higher Precision": signed sources sign-extend,
    // unsigned ones zero-extend. The same bytes read as B and as UB; the same words as W
    // and UW. W -2 read into UD is sign-extended first: 0xfffffffe = 4294967294.
    let asm = "mov(8) g10<1>D g2<8,8,1>B { align1 1Q };
mov(8) g11<1>D g2<8,8,1>UB { align1 1Q };
mov(8) g12<1>D g3<8,8,1>W { align1 1Q };
mov(8) g13<1>D g3<8,8,1>UW { align1 1Q };
mov(8) g14<1>UD g3<8,8,1>W { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:b=-1,-128,127,5,0,1,-2,100",
            "g3:w=-2,32767,-32768,1,0,-1,1000,-1000",
        ],
    );
    assert_eq!(show(&r, "g10:d", 8), "g10:d = -1 -128 127 5 0 1 -2 100");
    assert_eq!(show(&r, "g11:d", 8), "g11:d = 255 128 127 5 0 1 254 100");
    assert_eq!(
        show(&r, "g12:d", 8),
        "g12:d = -2 32767 -32768 1 0 -1 1000 -1000"
    );
    assert_eq!(
        show(&r, "g13:d", 8),
        "g13:d = 65534 32767 32768 1 0 65535 1000 64536"
    );
    assert_eq!(
        show(&r, "g14:ud", 8),
        "g14:ud = 4294967294 32767 4294934528 1 0 4294967295 1000 4294966296"
    );
}

#[test]
fn mov_int_to_float_rounds_to_nearest_even() {
    // "Integer to Float": round to the nearest representable value, ties to even (the
    // default RTNE mode). 16777217 = 2^24+1 lies halfway between 2^24 and 2^24+2: even
    // mantissa wins, 16777216. 16777219 is halfway between ...218 and ...220: 16777220.
    // 33554435 (ulp 4) is nearer 33554436. 2147483647 rounds up to 2^31.
    // UD: 4294967295 -> 2^32; 3000000001 (ulp 256) -> 3000000000.
    let asm = "mov(8) g10<1>F g2<8,8,1>D { align1 1Q };
mov(8) g11<1>F g3<8,8,1>UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=16777217,16777219,-7,0,2147483647,-2147483648,33554435,1",
            "g3:ud=4294967295,16777217,0,3000000001,1,2,3,4",
        ],
    );
    assert_f32_exact(
        &f(&r, 10, 8),
        &[
            16777216.0,
            16777220.0,
            -7.0,
            0.0,
            2147483648.0,
            -2147483648.0,
            33554436.0,
            1.0,
        ],
        "D->F",
    );
    assert_f32_exact(
        &f(&r, 11, 8),
        &[
            4294967296.0,
            16777216.0,
            0.0,
            3000000000.0,
            1.0,
            2.0,
            3.0,
            4.0,
        ],
        "UD->F",
    );
}

#[test]
fn mov_float_specials_and_source_modifiers() {
    // A same-type mov copies -0, infinities and NaN. Source modifiers on floats (PRM
    // "Source Modifiers"): `-` flips the sign (so -(+0) = -0), `(abs)` clears it, `-(abs)`
    // sets it.
    let asm = "mov(8) g10<1>F g2<8,8,1>F { align1 1Q };
mov(8) g11<1>F -g2<8,8,1>F { align1 1Q };
mov(8) g12<1>F (abs)g2<8,8,1>F { align1 1Q };
mov(8) g13<1>F -(abs)g2<8,8,1>F { align1 1Q };";
    let r = run(asm, 8, &["g2:f=-0,0,inf,-inf,nan,1,-1,0.1"]);
    assert_eq!(show(&r, "g10:f", 8), "g10:f = -0 0 inf -inf NaN 1 -1 0.1");
    assert_eq!(show(&r, "g11:f", 8), "g11:f = 0 -0 -inf inf NaN -1 1 -0.1");
    assert_eq!(show(&r, "g12:f", 8), "g12:f = 0 0 inf inf NaN 1 1 0.1");
    assert_eq!(
        show(&r, "g13:f", 8),
        "g13:f = -0 -0 -inf -inf NaN -1 -1 -0.1"
    );
}

#[test]
fn mov_immediate_and_scalar_region() {
    // An immediate is replicated to every channel; a <0,1,0> region broadcasts one element
    // (g3.2 = 7.5).
    let asm = "mov(8) g10<1>F 0x3f800000F { align1 1Q };
mov(8) g11<1>F g3.2<0,1,0>F { align1 1Q };
mov(8) g12<1>D -1D { align1 1Q };";
    let r = run(asm, 8, &["g3:f=0,0,7.5,0"]);
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 1 1 1 1 1 1 1 1");
    assert_eq!(
        show(&r, "g11:f", 8),
        "g11:f = 7.5 7.5 7.5 7.5 7.5 7.5 7.5 7.5"
    );
    assert_eq!(show(&r, "g12:d", 8), "g12:d = -1 -1 -1 -1 -1 -1 -1 -1");
}

#[test]
fn mov_strided_word_region() {
    // Align1 region <16,8,2>UW: channel n reads word 2n (PRM "Region Parameters"); the
    // words are the low halves of dwords 0x00010000+n... written as UD.
    let r = run(
        "mov(8) g10<1>UD g2<16,8,2>UW { align1 1Q };",
        8,
        &[
            "g2:ud=0x00010000,0x00010001,0x00010002,0x00010003,0x00010004,0x00010005,0x00010006,0x00010007",
        ],
    );
    assert_eq!(ud(&r, 10, 8), vec![0, 1, 2, 3, 4, 5, 6, 7]);
}

// ---------------------------------------------------------------------------------------
// Float and integer arithmetic
// ---------------------------------------------------------------------------------------

#[test]
fn add_float_rounding_and_specials() {
    // IEEE-754 addition, round to nearest even:
    //   1.5+2.25 = 3.75; 1 + 2^-24 is exactly half an ulp above 1: ties to even -> 1;
    //   1 + 3*2^-24 = 1 + 1.5 ulp: halfway between 1+2^-23 (odd) and 1+2^-22 (even) ->
    //   1+2^-22 = 0x3f800002; inf + -inf = NaN; inf + 1 = inf; -0 + -0 = -0;
    //   +0 + -0 = +0; 3e38 + 3e38 overflows to inf.
    // 2^-24 = 0x33800000, 3*2^-24 = 0x34400000.
    let r = run(
        "add(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };",
        8,
        &[
            "g2:f=1.5,1,1,inf,inf,-0,0,3e38",
            "g3:f=2.25,0x33800000,0x34400000,-inf,1,-0,-0,3e38",
        ],
    );
    assert_f32_exact(
        &f(&r, 10, 8),
        &[
            3.75,
            1.0,
            f32::from_bits(0x3f80_0002),
            f32::NAN,
            f32::INFINITY,
            -0.0,
            0.0,
            f32::INFINITY,
        ],
        "add F",
    );
}

#[test]
fn add_integers_wrap_and_immediates() {
    // Integer add keeps the low 32 bits (no saturation without .sat): 2^31-1 + 1 wraps to
    // -2^31, -2^31 + -1 wraps to 2^31-1, UD 0xffffffff + 1 = 0.
    let asm = "add(8) g10<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
add(8) g11<1>D g2<8,8,1>D -1D { align1 1Q };
add(8) g12<1>UD g4<8,8,1>UD 0x00000001UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=2147483647,-5,0,-2147483648,100,-100,7,1",
            "g3:d=1,3,0,-1,-100,-100,-7,2147483647",
            "g4:ud=4294967295,0,5,2147483647,10,20,30,40",
        ],
    );
    assert_eq!(
        d(&r, 10, 8),
        vec![i32::MIN, -2, 0, i32::MAX, 0, -200, 0, i32::MIN]
    );
    assert_eq!(
        d(&r, 11, 8),
        vec![2147483646, -6, -1, i32::MAX, 99, -101, 6, 0]
    );
    assert_eq!(ud(&r, 12, 8), vec![0, 1, 6, 2147483648, 11, 21, 31, 41]);
}

#[test]
fn add_with_negated_source_subtracts() {
    // Mesa's subtraction idiom `add dst, a, -b` (corpus: add(8) g69<1>D g65 -g68).
    let asm = "add(8) g10<1>D g2<8,8,1>D -g3<8,8,1>D { align1 1Q };
add(8) g11<1>F -g4<8,8,1>F g5<8,8,1>F { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=10,0,-5,7,100,1,2,3",
            "g3:d=3,5,-5,7,-100,2,2,-3",
            "g4:f=1,2,3,4,0.5,-1,0,10",
            "g5:f=1,1,1,1,1,1,1,1",
        ],
    );
    assert_eq!(d(&r, 10, 8), vec![7, -5, 0, 0, 200, -1, 0, 6]);
    assert_f32_value(
        &f(&r, 11, 8),
        &[0.0, -1.0, -2.0, -3.0, 0.5, 2.0, 1.0, -9.0],
        "-a+b",
    );
}

#[test]
fn mul_float() {
    // IEEE products: 1.5*-2 = -3; -0*5 = -0; 0*inf = NaN; 1e20*1e20 overflows to inf;
    // -2*-0.25 = 0.5; inf*-1 = -inf.
    let r = run(
        "mul(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };",
        8,
        &[
            "g2:f=1.5,-0,0,1e20,3,-2,inf,0.5",
            "g3:f=-2,5,inf,1e20,0.5,-0.25,-1,0.5",
        ],
    );
    assert_f32_exact(
        &f(&r, 10, 8),
        &[
            -3.0,
            -0.0,
            f32::NAN,
            f32::INFINITY,
            1.5,
            0.5,
            f32::NEG_INFINITY,
            0.25,
        ],
        "mul F",
    );
}

#[test]
fn mul_dword_by_word_immediate() {
    // Mesa's idiom `mul(8) g68<1>D g67<8,8,1>D 3W` (corpus): D x W keeps the low 32 bits of
    // the product. 715827882*3 = 2147483646; -715827883*3 = -2147483649 wraps to
    // 2147483647.
    let r = run(
        "mul(8) g10<1>D g2<8,8,1>D 3W { align1 1Q };",
        8,
        &["g2:d=0,1,-1,100,-100,715827882,-715827883,12345"],
    );
    assert_eq!(
        d(&r, 10, 8),
        vec![0, 3, -3, 300, -300, 2147483646, 2147483647, 37035]
    );
}

#[test]
fn mul_mach_give_full_64_bit_signed_product() {
    // Gen7 integer multiply through the accumulator (Mesa's Gen7 imul / imul_high
    // sequence, brw_fs_visitor.cpp: `mul acc0, a, b; mach dst, a, b` with AccWrEnable,
    // then `mov result, acc0`): the accumulator then holds the low 32 bits of the full
    // product and mach's dst the high 32 bits (PRM "mach": the high DWord of the 64-bit
    // result).
    // Products (worked in Python with exact integers):
    //   65536*65536 = 2^32                 -> hi 1,          lo 0
    //   -1*1                               -> hi -1,         lo -1
    //   (2^31-1)^2 = 0x3fffffff00000001    -> hi 1073741823, lo 1
    //   (-2^31)^2 = 2^62                   -> hi 1073741824, lo 0
    //   123456789*987654321 = 121932631112635269  -> hi 28389652,  lo -67153019
    //   -123456789*987654321                      -> hi -28389653, lo 67153019
    //   65537*65537 = 0x100020001          -> hi 1,          lo 131073
    //   -3*5 = -15                         -> hi -1,         lo -15
    let asm = "mul(8) acc0<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
mach(8) g10<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q AccWrEnable };
mov(8) g11<1>D acc0<8,8,1>D { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=65536,-1,2147483647,-2147483648,123456789,-123456789,65537,-3",
            "g3:d=65536,1,2147483647,-2147483648,987654321,987654321,65537,5",
        ],
    );
    assert_eq!(
        d(&r, 10, 8),
        vec![1, -1, 1073741823, 1073741824, 28389652, -28389653, 1, -1],
        "mach (high)"
    );
    assert_eq!(
        d(&r, 11, 8),
        vec![0, -1, 1, 0, -67153019, 67153019, 131073, -15],
        "acc (low)"
    );
}

#[test]
fn mul_mach_unsigned_magic_division_by_three() {
    // Mesa's unsigned x/3 (corpus): mul acc0 x 0xaaaaaaab; mach hi = (x*0xaaaaaaab)>>32;
    // x/3 = hi >> 1. E.g. 4294967295*0xaaaaaaab >> 32 = 2863311530, >>1 = 1431655765.
    let asm = "mul(8) acc0<1>UD g2<8,8,1>UD 0xaaaaaaabUD { align1 1Q };
mach(8) g10<1>UD g2<8,8,1>UD 0xaaaaaaabUD { align1 1Q AccWrEnable };
shr(8) g11<1>UD g10<8,8,1>UD 0x00000001UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &["g2:ud=0,1,2,3,100,4294967295,1000000007,3000000000"],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![0, 0, 1, 2, 66, 2863311530, 666666671, 2000000000]
    );
    assert_eq!(
        ud(&r, 11, 8),
        vec![0, 0, 0, 1, 33, 1431655765, 333333335, 1000000000]
    );
}

#[test]
fn mac_adds_the_accumulator() {
    // PRM "mac": dst = acc0 + src0*src1. acc0 is loaded with a mov first.
    // 1*2+0.5 = 2.5, 2*2+1 = 5, 3*2-3 = 3, 4*2+0 = 8, 5*-1+10 = 5, 6*-1+0 = -6,
    // 7*0.5+0.25 = 3.75, 8*0.5-4 = 0.
    let asm = "mov(8) acc0<1>F g4<8,8,1>F { align1 1Q };
mac(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:f=1,2,3,4,5,6,7,8",
            "g3:f=2,2,2,2,-1,-1,0.5,0.5",
            "g4:f=0.5,1,-3,0,10,0,0.25,-4",
        ],
    );
    assert_f32_value(
        &f(&r, 10, 8),
        &[2.5, 5.0, 3.0, 8.0, 5.0, -6.0, 3.75, 0.0],
        "mac",
    );
}

#[test]
fn avg_rounds_up_with_extra_precision() {
    // PRM "avg": dst = (src0 + src1 + 1) >> 1, computed without intermediate overflow,
    // arithmetic shift for signed types.
    //   (1+2+1)>>1 = 2; (-3+0+1)>>1 = -1; (2^31-1)*2+1 >> 1 = 2^31-1;
    //   (-2^31-2^31+1)>>1 = floor(-4294967295/2) = -2^31; (-4+1+1)>>1 = -1;
    //   (5+6+1)>>1 = 6; (-5-6+1)>>1 = -5; (7+0+1)>>1 = 4.
    //   UD: (2^32-1)*2+1 >> 1 = 2^32-1; (2^32-1+0+1)>>1 = 2^31; ...
    let asm = "avg(8) g10<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
avg(8) g11<1>UD g4<8,8,1>UD g5<8,8,1>UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=1,-3,2147483647,-2147483648,-4,5,-5,7",
            "g3:d=2,0,2147483647,-2147483648,1,6,-6,0",
            "g4:ud=4294967295,4294967295,1,0,10,11,3000000000,1",
            "g5:ud=4294967295,0,2,0,11,11,3000000001,0",
        ],
    );
    assert_eq!(d(&r, 10, 8), vec![2, -1, i32::MAX, i32::MIN, -1, 6, -5, 4]);
    assert_eq!(
        ud(&r, 11, 8),
        vec![u32::MAX, 2147483648, 2, 0, 11, 11, 3000000001, 1]
    );
}

#[test]
fn frc_is_x_minus_floor() {
    // PRM "frc": dst = src0 - floor(src0), in [0,1). frc(-1.25) = -1.25 - (-2) = 0.75;
    // frc(-3) = -3 - (-3) = +0.
    let r = run(
        "frc(8) g10<1>F g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=1.75,-1.25,0.5,-0.5,3,-3,100.125,-0.75"],
    );
    assert_f32_value(
        &f(&r, 10, 8),
        &[0.75, 0.75, 0.5, 0.5, 0.0, 0.0, 0.125, 0.25],
        "frc",
    );
}

#[test]
fn rndd_rounds_down() {
    // PRM "rndd": round toward -inf.
    let r = run(
        "rndd(8) g10<1>F g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=1.5,-1.5,2.7,-2.7,3,-0.2,0.99,-0.001"],
    );
    assert_f32_value(
        &f(&r, 10, 8),
        &[1.0, -2.0, 2.0, -3.0, 3.0, -1.0, 0.0, -1.0],
        "rndd",
    );
}

#[test]
fn rndu_rounds_up() {
    // PRM "rndu": round toward +inf (no inputs here whose result is a signed zero).
    let r = run(
        "rndu(8) g10<1>F g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=1.5,-1.5,2.1,-2.7,3,0.2,-3,7.0001"],
    );
    assert_f32_value(
        &f(&r, 10, 8),
        &[2.0, -1.0, 3.0, -2.0, 3.0, 1.0, -3.0, 8.0],
        "rndu",
    );
}

#[test]
fn rnde_rounds_half_to_even() {
    // PRM "rnde": round to nearest, ties to even: 0.5->0, 1.5->2, 2.5->2, 3.5->4,
    // -1.5->-2, -2.5->-2; non-ties to nearest: 2.4->2, 2.6->3.
    let r = run(
        "rnde(8) g10<1>F g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=0.5,1.5,2.5,3.5,-1.5,-2.5,2.4,2.6"],
    );
    assert_f32_value(
        &f(&r, 10, 8),
        &[0.0, 2.0, 2.0, 4.0, -2.0, -2.0, 2.0, 3.0],
        "rnde",
    );
}

#[test]
fn rnde_large_odd_half() {
    // 8388607.5 = 2^23 - 0.5 is a tie between 8388607 (odd) and 8388608 (even).
    let r = run(
        "rnde(8) g10<1>F g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=8388607.5,8388606.5,-8388607.5,16777216,0,1,2,3"],
    );
    assert_f32_value(
        &f(&r, 10, 8),
        &[
            8388608.0, 8388606.0, -8388608.0, 16777216.0, 0.0, 1.0, 2.0, 3.0,
        ],
        "rnde big",
    );
}

#[test]
fn rndz_truncates() {
    // PRM "rndz": round toward zero. 1e10 is an integer already.
    let r = run(
        "rndz(8) g10<1>F g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=1.7,-1.7,2.5,-2.5,3,-3,0.9,1e10"],
    );
    assert_f32_value(
        &f(&r, 10, 8),
        &[1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.0, 1e10],
        "rndz",
    );
}

// ---------------------------------------------------------------------------------------
// sel, min/max
// ---------------------------------------------------------------------------------------

#[test]
fn sel_l_and_ge_are_min_and_max() {
    // PRM "sel" with a conditional modifier: .l selects the smaller source (min), .ge
    // the larger (max).
    let asm = "sel.l(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };
sel.ge(8) g11<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };";
    let r = run(
        asm,
        8,
        &["g2:f=1,5,-3,-inf,2,7,0.5,-1", "g3:f=2,4,-4,0,2,inf,0.25,-1"],
    );
    assert_f32_value(
        &f(&r, 10, 8),
        &[1.0, 4.0, -4.0, f32::NEG_INFINITY, 2.0, 7.0, 0.25, -1.0],
        "min",
    );
    assert_f32_value(
        &f(&r, 11, 8),
        &[2.0, 5.0, -3.0, 0.0, 2.0, f32::INFINITY, 0.5, -1.0],
        "max",
    );
}

#[test]
fn sel_min_max_with_one_nan_returns_the_other() {
    // IEEE-754-2008 minNum/maxNum as the Gen min/max do it (vISA MIN_MAX.md: "if one of
    // the numbers is NaN and the other is not, MIN or MAX returns the one that is not
    // NaN"), whichever source holds the NaN. Both NaN: NaN.
    let asm = "sel.l(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };
sel.ge(8) g11<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:f=nan,1,nan,-5,nan,inf,nan,nan",
            "g3:f=1,nan,-2,nan,inf,nan,-inf,nan",
        ],
    );
    let want = [
        1.0,
        1.0,
        -2.0,
        -5.0,
        f32::INFINITY,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    assert_f32_value(&f(&r, 10, 8), &want, "min with NaN");
    assert_f32_value(&f(&r, 11, 8), &want, "max with NaN");
}

#[test]
fn sel_integer_compares_by_type() {
    // D compares signed, UD unsigned (same bits): min(-1, 1) is -1 as D but 1 as UD
    // (0xffffffff > 1).
    let asm = "sel.l(8) g10<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
sel.ge(8) g11<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
sel.l(8) g12<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=-1,5,-2147483648,0,3,-7,100,-100",
            "g3:d=1,-5,2147483647,0,4,-8,-100,100",
        ],
    );
    assert_eq!(d(&r, 10, 8), vec![-1, -5, i32::MIN, 0, 3, -8, -100, -100]);
    assert_eq!(d(&r, 11, 8), vec![1, 5, i32::MAX, 0, 4, -7, 100, 100]);
    assert_eq!(
        ud(&r, 12, 8),
        vec![1, 5, 2147483647, 0, 3, 4294967288, 100, 100]
    );
}

#[test]
fn predicated_sel_writes_every_channel() {
    // PRM "sel" with a predicate: the predicate chooses src0 (flag set) or src1 (clear)
    // and every enabled channel is written; it does not mask the write.
    // cmp.g: g2 > g3 on channels 1,4,5,7 -> f0.0 = 0b1011_0010 = 0xb2.
    let asm = "cmp.g.f0.0(8) null<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };
(+f0.0) sel(8) g10<1>F g4<8,8,1>F g5<8,8,1>F { align1 1Q };
(-f0.0) sel(8) g11<1>F g4<8,8,1>F g5<8,8,1>F { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:f=0,1,0,0,1,1,0,1",
            "g3:f=0,0,0,1,0,0,0,0",
            "g4:f=10,11,12,13,14,15,16,17",
            "g5:f=20,21,22,23,24,25,26,27",
            "g10:f=99,99,99,99,99,99,99,99",
            "g11:f=99,99,99,99,99,99,99,99",
        ],
    );
    assert_eq!(r.thread.flag(0, 0), 0xb2);
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 20 11 22 23 14 15 26 17");
    assert_eq!(show(&r, "g11:f", 8), "g11:f = 10 21 12 13 24 25 16 27");
}

// ---------------------------------------------------------------------------------------
// Logic and shifts
// ---------------------------------------------------------------------------------------

#[test]
fn not_and_or_xor() {
    // Bitwise on UD. Values worked bit by bit (checked in Python), e.g.
    // not 0x0f0f0f0f = 0xf0f0f0f0 = 4042322160; 0x12345678 & 0xf0f0f0f0 = 0x10305070.
    let asm = "not(8) g10<1>UD g2<8,8,1>UD { align1 1Q };
and(8) g11<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };
or(8) g12<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };
xor(8) g13<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:ud=0x0f0f0f0f,0xffffffff,0,0x12345678,0x80000001,0xaaaaaaaa,1,0xdeadbeef",
            "g3:ud=0x00ff00ff,0x0000ffff,0xffffffff,0xf0f0f0f0,1,0x55555555,3,0xffff0000",
        ],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![
            0xf0f0f0f0, 0, 0xffffffff, 0xedcba987, 0x7ffffffe, 0x55555555, 0xfffffffe, 0x21524110
        ]
    );
    assert_eq!(
        ud(&r, 11, 8),
        vec![0x000f000f, 0x0000ffff, 0, 0x10305070, 1, 0, 1, 0xdead0000]
    );
    assert_eq!(
        ud(&r, 12, 8),
        vec![
            0x0fff0fff, 0xffffffff, 0xffffffff, 0xf2f4f6f8, 0x80000001, 0xffffffff, 3, 0xffffbeef
        ]
    );
    assert_eq!(
        ud(&r, 13, 8),
        vec![
            0x0ff00ff0, 0xffff0000, 0xffffffff, 0xe2c4a688, 0x80000000, 0xffffffff, 2, 0x2152beef
        ]
    );
}

#[test]
fn shifts_use_the_low_five_bits_of_the_count() {
    // PRM shl/shr/asr (quoted in Mesa brw_fs_nir.cpp): "Gen4 - Gen7: After application of
    // source modifiers, the low 5-bits of src1 are used as an unsigned value for the shift
    // count." So 32 -> 0, 33 -> 1, 64 -> 0, 0xffffffff -> 31, 0xffffffe1 -> 1.
    // shl: 3<<31 = 0x80000000 (bits above 31 lost); 0x80000001<<1 = 2.
    // shr is logical; asr is arithmetic: -7 asr 1 = -4 (floor).
    let asm = "shl(8) g10<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };
shr(8) g11<1>UD g4<8,8,1>UD g5<8,8,1>UD { align1 1Q };
asr(8) g12<1>D g6<8,8,1>D g7<8,8,1>UD { align1 1Q };
shl(8) g13<1>D g8<8,8,1>D 0x00000021UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:ud=1,1,1,0xffffffff,1,3,0x80000001,5",
            "g3:ud=31,32,33,4,0,0xffffffff,1,64",
            "g4:ud=0x80000000,0x80000000,0xf0000000,0xffffffff,7,0x80000000,0x12345678,1",
            "g5:ud=31,32,4,33,0,0xffffffe1,16,1",
            "g6:d=-8,-1,-2147483648,-2147483648,0x40000000,-7,7,-1",
            "g7:ud=1,31,31,32,30,1,1,0",
            "g8:d=1,-1,3,-3,0x40000000,0,100,-100",
        ],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![0x80000000, 1, 2, 0xfffffff0, 1, 0x80000000, 2, 5]
    );
    assert_eq!(
        ud(&r, 11, 8),
        vec![
            1, 0x80000000, 0x0f000000, 0x7fffffff, 7, 0x40000000, 0x1234, 0
        ]
    );
    assert_eq!(d(&r, 12, 8), vec![-4, -1, -1, i32::MIN, 1, -4, 3, -1]);
    assert_eq!(d(&r, 13, 8), vec![2, -2, 6, -6, i32::MIN, 0, 200, -200]);
}

// ---------------------------------------------------------------------------------------
// cmp, cmpn, flags and conditional modifiers
// ---------------------------------------------------------------------------------------

#[test]
fn cmp_float_every_condition_with_nan_and_signed_zero() {
    // Unordered compares (vISA CMP.md, IEEE-754): with a NaN operand every relation is
    // false except "not equal", which is true; -0 == +0; inf == inf.
    //   src0 = 1   2   3   NaN -0  inf 1   NaN
    //   src1 = 2   2   1   1   0   inf NaN NaN
    //   z:   ch1,4,5        = 0x32     nz: ch0,2,3,6,7 = 0xcd
    //   g:   ch2            = 0x04     ge: ch1,2,4,5   = 0x36
    //   l:   ch0            = 0x01     le: ch0,1,4,5   = 0x33
    let sets = ["g2:f=1,2,3,nan,-0,inf,1,nan", "g3:f=2,2,1,1,0,inf,nan,nan"];
    for (cm, want) in [
        ("z", 0x32u16),
        ("nz", 0xcd),
        ("g", 0x04),
        ("ge", 0x36),
        ("l", 0x01),
        ("le", 0x33),
    ] {
        let asm = format!("cmp.{cm}.f0.0(8) null<1>F g2<8,8,1>F g3<8,8,1>F {{ align1 1Q }};");
        let r = run(&asm, 8, &sets);
        assert_eq!(
            r.thread.flag(0, 0),
            want,
            "cmp.{cm}: got {:#06x}, want {want:#06x}",
            r.thread.flag(0, 0)
        );
    }
}

#[test]
fn cmp_writes_all_ones_or_zero_to_an_integer_destination() {
    // vISA CMP.md (and Mesa's use of cmp results as ~0/0 booleans on Gen6+): a true
    // channel gets all ones (-1 as D), a false one 0; the flag is written too.
    // g4 >= g5 on channels 0,1,3,6,7 -> 0xcb.
    let r = run(
        "cmp.ge.f0.1(8) g11<1>D g4<8,8,1>D g5<8,8,1>D { align1 1Q };",
        8,
        &[
            "g4:d=5,5,-1,0,-10,1,2147483647,-2147483648",
            "g5:d=4,5,0,0,10,2,-1,-2147483648",
        ],
    );
    assert_eq!(d(&r, 11, 8), vec![-1, -1, 0, -1, 0, 0, -1, -1]);
    assert_eq!(r.thread.flag(0, 1), 0xcb);
}

#[test]
fn cmp_writes_all_ones_bits_to_a_float_destination() {
    // The same all-ones bit pattern (0xffffffff, not the float -1.0) goes to a float
    // destination: vISA CMP.md "Either all ones (0xFF, 0xFFFF, 0xFFFFFFFF ... based on type
    // size) or all zeros", with a float destination required for float sources; Mesa's
    // fs_builder::CMP retypes every cmp destination to the source type ("The destination
    // type doesn't matter on newer generations") and then uses the result as a ~0/0
    // boolean (e.g. b2i as -x, which would break on 0xbf800000).
    // g2 < g3 on channels 0,2,5 -> 0x25.
    let r = run(
        "cmp.l.f0.0(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=1,2,3,4,5,-6,7,nan", "g3:f=2,2,4,4,4,6,6,1"],
    );
    assert_eq!(r.thread.flag(0, 0), 0x25);
    assert_eq!(
        ud(&r, 10, 8),
        vec![0xffffffff, 0, 0xffffffff, 0, 0, 0xffffffff, 0, 0]
    );
}

#[test]
fn cmp_integer_signedness_follows_the_type() {
    // Same bits, D vs UD: -1 < 1 signed, but 0xffffffff > 1 unsigned.
    // D:  (-1<1) (5<-5) (MIN<MAX) (0<0) (3<4) (-7<-8) (100<-100) (-100<100) -> ch0,2,4,7 = 0x95
    // UD: (ffffffff<1) (5<fffffffb) (80000000<7fffffff) (0<0) (3<4) (fffffff9<fffffff8)
    //     (100<ffffff9c) (ffffff9c<100) -> ch1,4,6 = 0x52
    let asm = "cmp.l.f0.0(8) null<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
cmp.l.f0.1(8) null<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=-1,5,-2147483648,0,3,-7,100,-100",
            "g3:d=1,-5,2147483647,0,4,-8,-100,100",
        ],
    );
    assert_eq!(r.thread.flag(0, 0), 0x95);
    assert_eq!(r.thread.flag(0, 1), 0x52);
}

#[test]
fn cmp_chooses_its_flag_subregister() {
    // cmp.X.f0.1 / .f1.0 write only that flag subregister (PRM "Flag Register").
    // g2 < g3 on channels 0,1,2,3 -> f0.1 = 0x0f; g2 > g3 on 5,6,7 -> f1.0 = 0xe0.
    // (+f0.1) mov writes channels 0-3; (-f1.0) mov writes channels 0-4.
    let asm = "cmp.l.f0.1(8) null<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };
cmp.g.f1.0(8) null<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };
(+f0.1) mov(8) g10<1>F g4<8,8,1>F { align1 1Q };
(-f1.0) mov(8) g11<1>F g4<8,8,1>F { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:f=0,0,0,0,1,2,2,2",
            "g3:f=1,1,1,1,1,1,1,1",
            "g4:f=1,2,3,4,5,6,7,8",
            "g10:f=-1,-1,-1,-1,-1,-1,-1,-1",
            "g11:f=-1,-1,-1,-1,-1,-1,-1,-1",
        ],
    );
    assert_eq!(r.thread.flag(0, 0), 0, "f0.0 untouched");
    assert_eq!(r.thread.flag(0, 1), 0x0f);
    assert_eq!(r.thread.flag(1, 0), 0xe0);
    assert_eq!(r.thread.flag(1, 1), 0, "f1.1 untouched");
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 1 2 3 4 -1 -1 -1 -1");
    assert_eq!(show(&r, "g11:f", 8), "g11:f = 1 2 3 4 5 -1 -1 -1");
}

#[test]
fn cmp_writes_only_the_flag_bits_of_its_channels() {
    // The flag is written per channel: a SIMD8 cmp in quarter 1 writes bits 0-7 and leaves
    // 8-15; one in quarter 2 (2Q, channels 8-15) writes bits 8-15.
    // cmp.z(16) of a register with itself: all 16 bits set (0xffff).
    // 1Q cmp.l g4 < g5: channels 1,3 -> low byte 0x0a -> f0.0 = 0xff0a.
    // 2Q cmp.g g6 > g7: channels 8+0, 8+7 -> high byte 0x81 -> f0.0 = 0x810a.
    let sets = [
        "g4:d=1,0,1,0,1,1,1,1",
        "g5:d=0,1,0,1,0,0,0,0",
        "g6:d=1,0,0,0,0,0,0,1",
        "g7:d=0,0,0,0,0,0,0,0",
    ];
    let all = "cmp.z.f0.0(16) null<1>D g2<8,8,1>D g2<8,8,1>D { align1 1H };";
    let q1 = "cmp.l.f0.0(8) null<1>D g4<8,8,1>D g5<8,8,1>D { align1 1Q };";
    let q2 = "cmp.g.f0.0(8) null<1>D g6<8,8,1>D g7<8,8,1>D { align1 2Q };";
    assert_eq!(
        run(all, 16, &sets).thread.flag(0, 0),
        0xffff,
        "after cmp(16)"
    );
    assert_eq!(
        run(&format!("{all}\n{q1}"), 16, &sets).thread.flag(0, 0),
        0xff0a,
        "after 1Q cmp"
    );
    assert_eq!(
        run(&format!("{all}\n{q1}\n{q2}"), 16, &sets)
            .thread
            .flag(0, 0),
        0x810a,
        "after 2Q cmp"
    );
}

#[test]
fn conditional_modifiers_on_alu_results() {
    // A conditional modifier on a non-cmp instruction tests the result against zero
    // (PRM "Conditional Modifier"). Corpus idioms: and.nz.f0.0, and.z.f0.0.
    //   add.l:  g2+g3 = 1,-1,0,-5,5,-100,0,-1 -> negative on ch1,3,5,7 = 0xaa
    //   mov.nz: g4 != 0 on ch0,2,3,7 -> 0x8d
    //   and.z:  (g5 & 1) == 0 on even values ch0,1,4,6 -> 0x53
    let asm = "add.l.f0.0(8) null<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
mov.nz.f0.1(8) null<1>D g4<8,8,1>D { align1 1Q };
and.z.f1.0(8) null<1>UD g5<8,8,1>UD 0x00000001UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=1,-1,5,-10,10,-50,3,3",
            "g3:d=0,0,-5,5,-5,-50,-3,-4",
            "g4:d=1,0,-1,5,0,0,0,7",
            "g5:ud=2,4,1,3,0,7,100,9",
        ],
    );
    assert_eq!(r.thread.flag(0, 0), 0xaa);
    assert_eq!(r.thread.flag(0, 1), 0x8d);
    assert_eq!(r.thread.flag(1, 0), 0x53);
}

#[test]
fn cmpn_without_nan_is_cmp() {
    // PRM "cmpn" only differs from cmp when a source is NaN (see the uncertain section);
    // on ordered values it is the same comparison. g2 < g3 on ch0,3,5 -> 0x29;
    // g2 >= g3 on the others -> 0xd6.
    let asm = "cmpn.l.f0.0(8) null<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };
cmpn.ge.f0.1(8) null<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };";
    let r = run(
        asm,
        8,
        &["g2:f=1,2,3,-4,5,-inf,7,8", "g3:f=2,2,1,4,5,0,-7,-inf"],
    );
    assert_eq!(r.thread.flag(0, 0), 0x29);
    assert_eq!(r.thread.flag(0, 1), 0xd6);
}

#[test]
fn write_flag_register_directly() {
    // Mesa writes flags with `mov(1) f0.1<1>UW g1.14<0,1,0>UW { align1 WE_all 1N }` (the
    // discard mask of fragment shaders); f0.1 is bytes 2-3 of f0 (PRM "Flag Register"). Then
    // (+f0.1) mov enables the channels whose bits are set: 0x00a5 -> ch0,2,5,7.
    let asm = "mov(1) f0.1<1>UW 0x00a5UW { align1 WE_all 1N };
(+f0.1) mov(8) g10<1>F g2<8,8,1>F { align1 1Q };";
    let r = run(asm, 8, &["g2:f=1,2,3,4,5,6,7,8"]);
    assert_eq!(r.thread.flag(0, 1), 0x00a5);
    assert_eq!(r.thread.flag(0, 0), 0);
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 1 0 3 0 0 6 0 8");
}

// ---------------------------------------------------------------------------------------
// Saturation and source modifiers
// ---------------------------------------------------------------------------------------

#[test]
fn read_flag_subregister_as_a_source() {
    // A flag subregister read as a scalar source (Mesa copies the discard flag this way):
    // f0.1 is the second word of f0, and a <0,1,0> region gives every channel that one
    // word. cmp.l sets f0.1 = 0x0f (channels 0-3), f0.0 stays 0.
    let asm = "cmp.l.f0.1(8) null<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };
mov(8) g10<1>UD f0.1<0,1,0>UW { align1 1Q };
mov(8) g11<1>UD f0<0,1,0>UW { align1 1Q };";
    let r = run(asm, 8, &["g2:f=0,0,0,0,1,1,1,1", "g3:f=1,1,1,1,1,1,1,1"]);
    assert_eq!(ud(&r, 10, 8), vec![0x0f; 8]);
    assert_eq!(ud(&r, 11, 8), vec![0; 8]);
}

#[test]
fn saturate_clamps_floats_to_unit_range_and_nan_to_zero() {
    // vISA 2_datatypes.md "Saturation" (the PRM rule): float results clamp to [0.0, 1.0];
    // +inf -> 1, -inf and negatives -> 0, NaN -> 0.
    //   add.sat: 0.75, 1.25->1, -0.25->0, inf->1, -inf->0, NaN->0, 1, 1
    //   mov.sat: 2->1, -1->0, 0.5, NaN->0, 1e30->1, -1e-30->0, 0.999, 0
    //   mul.sat: 0.5*4 = 2 -> 1, ...
    let asm = "add.sat(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };
mov.sat(8) g11<1>F g4<8,8,1>F { align1 1Q };
mul.sat(8) g12<1>F g5<8,8,1>F g6<8,8,1>F { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:f=0.5,0.75,-0.5,inf,-inf,nan,1,0.25",
            "g3:f=0.25,0.5,0.25,0,0,0,0,0.75",
            "g4:f=2,-1,0.5,nan,1e30,-1e-30,0.999,0",
            "g5:f=0.5,0.5,-1,0.25,inf,0,2,0.125",
            "g6:f=4,1,1,2,0,1,-3,4",
        ],
    );
    assert_f32_value(
        &f(&r, 10, 8),
        &[0.75, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0],
        "add.sat",
    );
    assert_f32_value(
        &f(&r, 11, 8),
        &[1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.999, 0.0],
        "mov.sat",
    );
    // inf*0 = NaN -> 0 after saturation.
    assert_f32_value(
        &f(&r, 12, 8),
        &[1.0, 0.5, 0.0, 0.5, 0.0, 0.0, 0.0, 0.5],
        "mul.sat",
    );
}

#[test]
fn saturate_clamps_integers_instead_of_wrapping() {
    // Integer saturation clamps to the destination range (computed with extra precision):
    // 2^31-1 + 1 -> 2^31-1; -2^31 + -1 -> -2^31; UD 0xffffffff + 1 -> 0xffffffff.
    let asm = "add.sat(8) g10<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
add.sat(8) g11<1>UD g4<8,8,1>UD g5<8,8,1>UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=2147483647,-2147483648,5,-5,2147483647,-2147483648,1000,0",
            "g3:d=1,-1,-3,-3,2147483647,-2147483648,-1000,0",
            "g4:ud=4294967295,0,4294967295,2147483648,1,2,3,4",
            "g5:ud=1,5,4294967295,2147483648,1,2,3,4",
        ],
    );
    assert_eq!(
        d(&r, 10, 8),
        vec![i32::MAX, i32::MIN, 2, -8, i32::MAX, i32::MIN, 0, 0]
    );
    assert_eq!(
        ud(&r, 11, 8),
        vec![u32::MAX, 5, u32::MAX, u32::MAX, 2, 4, 6, 8]
    );
}

#[test]
fn negate_and_abs_on_integers() {
    // Integer source modifiers: `-` is two's complement negation (so -(-2^31) wraps to
    // -2^31), `(abs)` the absolute value.
    let asm = "mov(8) g10<1>D -g2<8,8,1>D { align1 1Q };
mov(8) g11<1>D (abs)g3<8,8,1>D { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=5,-5,0,-2147483648,2147483647,-1,100,-100",
            "g3:d=5,-5,0,-1,2147483647,-2147483647,100,-100",
        ],
    );
    assert_eq!(
        d(&r, 10, 8),
        vec![-5, 5, 0, i32::MIN, -2147483647, 1, -100, 100]
    );
    assert_eq!(d(&r, 11, 8), vec![5, 5, 0, 1, i32::MAX, i32::MAX, 100, 100]);
}

// ---------------------------------------------------------------------------------------
// addc / subb (carry and borrow into the accumulator)
// ---------------------------------------------------------------------------------------

#[test]
fn addc_writes_carry_to_the_accumulator() {
    // PRM "addc": dst = low 32 bits of src0+src1 (UD), acc0 = the carry out (0 or 1).
    // Mesa's uadd_carry: addc ... AccWrEnable; mov dst acc0.
    let asm = "addc(8) g10<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q AccWrEnable };
mov(8) g11<1>UD acc0<8,8,1>UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:ud=0xffffffff,5,0x80000000,0xffffffff,0,0x7fffffff,1,123",
            "g3:ud=1,6,0x80000000,0xffffffff,0,1,0xffffffff,456",
        ],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![0, 11, 0, 0xfffffffe, 0, 0x80000000, 0, 579]
    );
    assert_eq!(ud(&r, 11, 8), vec![1, 0, 1, 1, 0, 0, 1, 0]);
}

#[test]
fn subb_writes_borrow_to_the_accumulator() {
    // PRM "subb": dst = low 32 bits of src0-src1, acc0 = 1 if src0 < src1 (unsigned).
    let asm = "subb(8) g10<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q AccWrEnable };
mov(8) g11<1>UD acc0<8,8,1>UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:ud=5,6,0,0,0x80000000,1,7,0xffffffff",
            "g3:ud=6,5,0,1,1,0x80000000,7,0",
        ],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![
            0xffffffff, 1, 0, 0xffffffff, 0x7fffffff, 0x80000001, 0, 0xffffffff
        ]
    );
    assert_eq!(ud(&r, 11, 8), vec![1, 0, 0, 1, 0, 1, 0, 0]);
}

// ---------------------------------------------------------------------------------------
// Bit operations
// ---------------------------------------------------------------------------------------

#[test]
fn lzd_counts_leading_zeros() {
    // PRM "lzd": leading zero count, 32 for 0.
    let r = run(
        "lzd(8) g10<1>UD g2<8,8,1>UD { align1 1Q };",
        8,
        &["g2:ud=0,1,0x80000000,0x10000,0xffffffff,0xffff,2,0x40000000"],
    );
    assert_eq!(ud(&r, 10, 8), vec![32, 31, 0, 15, 0, 16, 30, 1]);
}

#[test]
fn fbh_unsigned_finds_the_highest_set_bit_from_the_msb() {
    // PRM "fbh" (vISA FBH.md): for unsigned sources the count of leading zeros, 0xffffffff
    // when no bit is set.
    let r = run(
        "fbh(8) g10<1>UD g2<8,8,1>UD { align1 1Q };",
        8,
        &["g2:ud=0,1,0x80000000,0x10000,0xffffffff,0xffff,2,0x40000000"],
    );
    assert_eq!(ud(&r, 10, 8), vec![u32::MAX, 31, 0, 15, 0, 16, 30, 1]);
}

#[test]
fn fbh_signed_finds_the_first_bit_differing_from_the_sign() {
    // Signed sources: leading zeros for positives, leading ones for negatives; 0 and -1
    // give 0xffffffff. -2 = 0xfffffffe has 31 leading ones; 0x80000000 has 1;
    // 0xffff0000 has 16.
    let r = run(
        "fbh(8) g10<1>UD g2<8,8,1>D { align1 1Q };",
        8,
        &["g2:d=-1,0,-2,1,0x40000000,-2147483648,2147483647,-65536"],
    );
    assert_eq!(ud(&r, 10, 8), vec![u32::MAX, u32::MAX, 31, 31, 1, 1, 1, 16]);
}

#[test]
fn fbl_finds_the_lowest_set_bit() {
    // PRM "fbl": index of the lowest set bit, 0xffffffff for 0.
    let r = run(
        "fbl(8) g10<1>UD g2<8,8,1>UD { align1 1Q };",
        8,
        &["g2:ud=0,1,8,0x80000000,0xffffffff,0x00f00000,6,0x10000"],
    );
    assert_eq!(ud(&r, 10, 8), vec![u32::MAX, 0, 3, 31, 0, 20, 1, 16]);
}

#[test]
fn cbit_counts_set_bits() {
    // PRM "cbit": population count. 0x12345678 = 1+1+2+1+2+2+3+1 = 13 bits.
    let r = run(
        "cbit(8) g10<1>UD g2<8,8,1>UD { align1 1Q };",
        8,
        &["g2:ud=0,1,0xffffffff,0xf0f0,0x80000001,0x12345678,7,0xaaaaaaaa"],
    );
    assert_eq!(ud(&r, 10, 8), vec![0, 1, 32, 8, 2, 13, 3, 16]);
}

#[test]
fn bfrev_reverses_bits() {
    // PRM "bfrev": bit i goes to bit 31-i. 0x12345678 -> 0x1e6a2c48.
    let r = run(
        "bfrev(8) g10<1>UD g2<8,8,1>UD { align1 1Q };",
        8,
        &["g2:ud=1,0x12345678,0,0xffffffff,0x80000000,0xf0,3,0xffff"],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![
            0x80000000, 0x1e6a2c48, 0, 0xffffffff, 1, 0x0f000000, 0xc0000000, 0xffff0000
        ]
    );
}

#[test]
fn bfe_unsigned_extracts_a_field() {
    // PRM "bfe" (three-source, align16: width = src0, offset = src1, value = src2; Mesa
    // emits BFE(dst, bits, offset, value)). Semantics as NIR's ubfe, which documents the
    // hardware: width/offset use 5 bits; width 0 -> 0; if width+offset < 32 the field
    // (value >> offset) & mask(width), else value >> offset.
    //   (8,4,0x12345678) -> 0x67 = 103; (0,..) -> 0; (16,24) -> 0x12 (sum >= 32);
    //   width 32 -> 0; (4,0,0xabcdef01) -> 1; (1,31,0x80000000) -> 1;
    //   (31,1,0xffffffff) -> 0x7fffffff; (12,8,0xabcdef01) -> 0xdef = 3567.
    let r = run(
        "bfe(8) g10<1>UD g2<4,4,1>UD g3<4,4,1>UD g4<4,4,1>UD { align16 1Q };",
        8,
        &[
            "g2:ud=8,0,16,32,4,1,31,12",
            "g3:ud=4,5,24,0,0,31,1,8",
            "g4:ud=0x12345678,0xffffffff,0x12345678,0xffffffff,0xabcdef01,0x80000000,0xffffffff,0xabcdef01",
        ],
    );
    assert_eq!(ud(&r, 10, 8), vec![103, 0, 18, 0, 1, 1, 0x7fffffff, 3567]);
}

#[test]
fn bfe_signed_sign_extends_the_field() {
    // Signed bfe (NIR ibfe): the field is sign-extended; when width+offset >= 32 the result
    // is the arithmetic shift value >> offset.
    //   (4,28,0x80000000) -> 0x80000000 >> 28 = -8; (8,4,0xff0) -> 0xff -> -1;
    //   (8,0,0x7f) -> 127; (8,0,0x80) -> -128; width 0 -> 0;
    //   (16,16,0x7fff0000) -> 32767; (3,1,0b1010) -> 0b101 -> -3; (5,10,0x7c00) -> -1.
    let r = run(
        "bfe(8) g10<1>D g2<4,4,1>D g3<4,4,1>D g4<4,4,1>D { align16 1Q };",
        8,
        &[
            "g2:d=4,8,8,8,0,16,3,5",
            "g3:d=28,4,0,0,0,16,1,10",
            "g4:d=-2147483648,0xff0,0x7f,0x80,-1,0x7fff0000,10,0x7c00",
        ],
    );
    assert_eq!(d(&r, 10, 8), vec![-8, -1, 127, -128, 0, 32767, -3, -1]);
}

#[test]
fn bfi1_builds_a_mask() {
    // PRM "bfi1" (NIR bfm, Mesa BFI1(dst, bits, offset)): ((1 << width) - 1) << offset,
    // width and offset taken mod 32. (31,1) -> 0xfffffffe; (32,0) -> width 0 -> 0;
    // (4,36) -> offset 4 -> 0xf0.
    let r = run(
        "bfi1(8) g10<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };",
        8,
        &["g2:ud=8,0,31,1,32,16,5,4", "g3:ud=4,5,1,31,0,16,0,36"],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![0xff0, 0, 0xfffffffe, 0x80000000, 0, 0xffff0000, 0x1f, 0xf0]
    );
}

#[test]
fn bfi2_with_mask_starting_at_bit_zero() {
    // PRM "bfi2" (three-source, align16: mask = src0, insert = src1, base = src2):
    // (insert & mask) | (base & ~mask) when the mask starts at bit 0.
    //   (0xf,5,0xffffffff) -> 0xfffffff5; (0xff,0xab,0x12345678) -> 0x123456ab;
    //   mask 0 -> base; mask ~0 -> insert; (0x00ff00ff,0x12345678,~0) -> 0xff34ff78.
    let r = run(
        "bfi2(8) g10<1>UD g2<4,4,1>UD g3<4,4,1>UD g4<4,4,1>UD { align16 1Q };",
        8,
        &[
            "g2:ud=0xf,0xff,0,0xffffffff,1,7,0x00ff00ff,3",
            "g3:ud=5,0xab,0x12345678,0x12345678,0,0xff,0x12345678,2",
            "g4:ud=0xffffffff,0x12345678,0xcafebabe,0,0xffffffff,0,0xffffffff,8",
        ],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![
            0xfffffff5, 0x123456ab, 0xcafebabe, 0x12345678, 0xfffffffe, 7, 0xff34ff78, 0xa
        ]
    );
}

#[test]
fn bfi2_shifts_insert_to_the_mask_position() {
    // bfi2 shifts the insert value up to the mask's lowest set bit before merging
    // (D3D/NIR "bfi": `while (!(mask & 1)) { mask >>= 1; insert <<= 1; }`). Evidence that
    // the Gen7 hardware does this: Mesa's Gen7 lowering of bitfieldInsert(base, insert,
    // offset, bits) is bfi2(bfi1(bits, offset), insert, base) with `insert` unshifted
    // ("ir->operands[1] is still the value to insert"), and NIR's bfi maps straight to BFI2.
    //   (0xff00,0xab,0x12345678) -> 0x1234ab78; (0xf0000000,5,0) -> 0x50000000;
    //   (0xff0,0x12,~0) -> 0xfffff12f; (0x80000000,1,0) -> 0x80000000;
    //   (0x80000000,2,0x7fffffff) -> 2<<31 loses its bit -> 0x7fffffff;
    //   (0xfff0,0xabc,0x11111111) -> 0x1111abc1; (6,3,0) -> 6; (0xffff0000,0x1234,0x5678)
    //   -> 0x12345678 (the 16-bit pack idiom).
    let r = run(
        "bfi2(8) g10<1>UD g2<4,4,1>UD g3<4,4,1>UD g4<4,4,1>UD { align16 1Q };",
        8,
        &[
            "g2:ud=0xff00,0xf0000000,0xff0,0x80000000,0x80000000,0xfff0,6,0xffff0000",
            "g3:ud=0xab,5,0x12,1,2,0xabc,3,0x1234",
            "g4:ud=0x12345678,0,0xffffffff,0,0x7fffffff,0x11111111,0,0x5678",
        ],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![
            0x1234ab78, 0x50000000, 0xfffff12f, 0x80000000, 0x7fffffff, 0x1111abc1, 6, 0x12345678
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Half-float conversion
// ---------------------------------------------------------------------------------------

#[test]
fn f32to16_rounds_to_nearest_even() {
    // PRM "f32to16" (quoted in Mesa brw_F32TO16): the destination is W with horizontal
    // stride 2 and "the 16-bit result is stored in the lower word of each destination
    // channel"; the upper words are not written (Mesa zero-fills them with a separate mov
    // in align1), so they keep 0xdead here.
    // IEEE binary16, round to nearest even: 1 -> 0x3c00, -2 -> 0xc000, 65504 (max) ->
    // 0x7bff, 65520 (halfway to 2^16) -> inf 0x7c00, 1e6 -> inf, -inf -> 0xfc00,
    // 0.1 -> 0x2e66, -0 -> 0x8000; 1+2^-11 (tie) -> 1.0 0x3c00; 1+3*2^-11 (tie) -> even
    // 0x3c02; 1/3 -> 0x3555; 65519 -> 0x7bff; 0.5 -> 0x3800; -65504 -> 0xfbff.
    let asm = "f32to16(8) g10<2>W g2<8,8,1>F { align1 1Q };
f32to16(8) g11<2>W g3<8,8,1>F { align1 1Q };";
    let dead =
        "0xdead0000,0xdead0000,0xdead0000,0xdead0000,0xdead0000,0xdead0000,0xdead0000,0xdead0000";
    let r = run(
        asm,
        8,
        &[
            "g2:f=1,-2,65504,65520,1e6,-inf,0.1,-0",
            "g3:f=1.00048828125,1.00146484375,0.33333334,65519,inf,0.5,-65504,-1",
            &format!("g10:ud={dead}"),
            &format!("g11:ud={dead}"),
        ],
    );
    let a = uw(&r, 10, 16);
    assert_eq!(
        every(&a, 2),
        vec![
            0x3c00, 0xc000, 0x7bff, 0x7c00, 0x7c00, 0xfc00, 0x2e66, 0x8000
        ]
    );
    assert_eq!(every(&a[1..], 2), vec![0xdead; 8], "upper words untouched");
    let b = every(&uw(&r, 11, 16), 2);
    assert_eq!(
        b,
        vec![
            0x3c00, 0x3c02, 0x3555, 0x7bff, 0x7c00, 0x3800, 0xfbff, 0xbc00
        ]
    );
}

#[test]
fn f32to16_nan_stays_nan() {
    // NaN converts to a half NaN: exponent all ones, mantissa non-zero.
    let r = run(
        "f32to16(8) g10<2>W g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=nan,-nan,nan,nan,nan,nan,nan,nan"],
    );
    for h in every(&uw(&r, 10, 16), 2) {
        assert!(
            h & 0x7c00 == 0x7c00 && h & 0x03ff != 0,
            "{h:#06x} is not a half NaN"
        );
    }
}

#[test]
fn f16to32_converts_exactly() {
    // PRM "f16to32" (quoted in Mesa brw_F16TO32): the source is W, here the low word of
    // each dword (<16,8,2>); widening is exact (vISA "Float to Float with Higher
    // Precision"). 0x3555 = 0.333251953125 = 0x3eaaa000 as a float. The upper words hold
    // garbage that must be ignored.
    let r = run(
        "f16to32(8) g10<1>F g2<16,8,2>W { align1 1Q };",
        8,
        &[
            "g2:ud=0xffff3c00,0x1234c000,0x00007bff,0xabcd7c00,0x0000fc00,0x00007e00,0xffff8000,0x00003555",
        ],
    );
    assert_f32_exact(
        &f(&r, 10, 8),
        &[
            1.0,
            -2.0,
            65504.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -0.0,
            f32::from_bits(0x3eaa_a000),
        ],
        "f16to32",
    );
}

// ---------------------------------------------------------------------------------------
// Dot products, line, pln, lrp, mad
// ---------------------------------------------------------------------------------------

#[test]
fn dp4_dph_dp3_dp2_align16() {
    // PRM dp4/dph/dp3/dp2 (align16): each group of 4 channels computes one dot product and
    // writes it to all 4 channels. Group 0: a=(1,2,3,4), b=(1,1,1,1); group 1:
    // a=(5,6,7,8), b=(2,0.5,1,-1).
    //   dp4: 10, 10+3+7-8 = 12     dph: a.xyz.b.xyz + b.w: 6+1 = 7, 20-1 = 19
    //   dp3: 6, 20                 dp2: 3, 13
    let asm = "dp4(8) g10<1>F g2<4>F g3<4>F { align16 1Q };
dph(8) g11<1>F g2<4>F g3<4>F { align16 1Q };
dp3(8) g12<1>F g2<4>F g3<4>F { align16 1Q };
dp2(8) g13<1>F g2<4>F g3<4>F { align16 1Q };";
    let r = run(asm, 8, &["g2:f=1,2,3,4,5,6,7,8", "g3:f=1,1,1,1,2,0.5,1,-1"]);
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 10 10 10 10 12 12 12 12");
    assert_eq!(show(&r, "g11:f", 8), "g11:f = 7 7 7 7 19 19 19 19");
    assert_eq!(show(&r, "g12:f", 8), "g12:f = 6 6 6 6 20 20 20 20");
    assert_eq!(show(&r, "g13:f", 8), "g13:f = 3 3 3 3 13 13 13 13");
}

#[test]
fn align16_write_mask_limits_the_channels_written() {
    // Align16 destination write mask .xy: only components x and y of each vec4 are written
    // (PRM "Destination Operand ... align16 write enables").
    let r = run(
        "mov(8) g10<1>.xyF g2<4>F { align16 1Q };",
        8,
        &["g2:f=1,2,3,4,5,6,7,8", "g10:f=-1,-1,-1,-1,-1,-1,-1,-1"],
    );
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 1 2 -1 -1 5 6 -1 -1");
}

#[test]
fn line_is_a_times_x_plus_c() {
    // PRM "line": dst = src0.0 * src1 + src0.3 (src0 a scalar region). a = 2, c = 10.
    let r = run(
        "line(8) g10<1>F g2<0,1,0>F g3<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=2,99,99,10", "g3:f=1,2,3,4,5,6,7,8"],
    );
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 12 14 16 18 20 22 24 26");
}

#[test]
fn pln_simd8_evaluates_the_plane() {
    // PRM "pln": dst = src0.0 * src1 + src0.1 * (src1's next register) + src0.3, the plane
    // (a, b, -, c) at src0 (Mesa's interpolation: pln(8) g124<1>F g4<0,1,0>F g2<8,8,1>F
    // with x deltas in g2 and y deltas in g3). g4 = (2,3,-,0.5 | 1,-1,-,4).
    //   plane 0: 2x + 3y + 0.5, x = 1..8, y = 10..80 -> 32.5, 64.5, ...
    //   plane 1 (g4.4): x - y + 4 -> -5, -14, ...
    let asm = "pln(8) g10<1>F g4<0,1,0>F g2<8,8,1>F { align1 1Q };
pln(8) g11<1>F g4.4<0,1,0>F g2<8,8,1>F { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:f=1,2,3,4,5,6,7,8",
            "g3:f=10,20,30,40,50,60,70,80",
            "g4:f=2,3,0,0.5,1,-1,0,4",
        ],
    );
    assert_eq!(
        show(&r, "g10:f", 8),
        "g10:f = 32.5 64.5 96.5 128.5 160.5 192.5 224.5 256.5"
    );
    assert_eq!(
        show(&r, "g11:f", 8),
        "g11:f = -5 -14 -23 -32 -41 -50 -59 -68"
    );
}

#[test]
fn pln_simd16_reads_deltas_in_register_pairs() {
    // In SIMD16, src1 covers four registers: x(0-7), y(0-7), x(8-15), y(8-15) (Mesa's
    // Gen6+ barycentric layout used by `pln(16) g120<1>F g6<0,1,0>F g2<8,8,1>F`).
    // With x = n and y = 100 - n for channel n: 2n + 3(100-n) + 0.5 = 300.5 - n.
    let r = run(
        "pln(16) g10<1>F g4<0,1,0>F g6<8,8,1>F { align1 1H };",
        16,
        &[
            "g4:f=2,3,0,0.5",
            "g6:f=0,1,2,3,4,5,6,7,100,99,98,97,96,95,94,93,8,9,10,11,12,13,14,15,92,91,90,89,88,87,86,85",
        ],
    );
    let want: Vec<f32> = (0..16).map(|n| 300.5 - n as f32).collect();
    assert_f32_exact(&f(&r, 10, 16), &want, "pln(16)");
}

#[test]
fn lrp_interpolates() {
    // PRM "lrp": dst = src0*src1 + (1-src0)*src2 (Mesa: LRP(dst, a, y, x) = mix(x, y, a)).
    //   a=0 -> x=4; a=1 -> y=8; 0.5 -> 6; 0.25 -> 2+3 = 5; 0.75 -> 6+1 = 7;
    //   a=0, y=100, x=-100 -> -100; a=1, y=3 -> 3; a=0.5, y=-2, x=2 -> 0.
    let r = run(
        "lrp(8) g10<1>F g2<4,4,1>F g3<4,4,1>F g4<4,4,1>F { align16 1Q };",
        8,
        &[
            "g2:f=0,1,0.5,0.25,0.75,0,1,0.5",
            "g3:f=8,8,8,8,8,100,3,-2",
            "g4:f=4,4,4,4,4,-100,7,2",
        ],
    );
    assert_f32_value(
        &f(&r, 10, 8),
        &[4.0, 8.0, 6.0, 5.0, 7.0, -100.0, 3.0, 0.0],
        "lrp",
    );
}

#[test]
fn mad_is_src0_plus_src1_times_src2() {
    // PRM "mad": dst = src0 + src1*src2 (Mesa MAD(dst, c, b, a) = a*b + c). Exact values,
    // so fused or not makes no difference. Second: a scalar src0 (g5.1<0,1,0> = 100);
    // third: a negated src0.
    let asm = "mad(8) g10<1>F g2<4,4,1>F g3<4,4,1>F g4<4,4,1>F { align16 1Q };
mad(8) g11<1>F g5.1<0,1,0>F g3<4,4,1>F g4<4,4,1>F { align16 1Q };
mad(8) g12<1>F -g2<4,4,1>F g3<4,4,1>F g4<4,4,1>F { align16 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:f=1,2,3,4,5,6,7,8",
            "g3:f=2,2,2,2,2,2,2,2",
            "g4:f=0.5,-1,3,0,10,0.25,-2,1",
            "g5:f=0,100",
        ],
    );
    assert_f32_value(
        &f(&r, 10, 8),
        &[2.0, 0.0, 9.0, 4.0, 25.0, 6.5, 3.0, 10.0],
        "mad",
    );
    assert_f32_value(
        &f(&r, 11, 8),
        &[101.0, 98.0, 106.0, 100.0, 120.0, 100.5, 96.0, 102.0],
        "mad scalar",
    );
    assert_f32_value(
        &f(&r, 12, 8),
        &[0.0, -4.0, 3.0, -4.0, 15.0, -5.5, -11.0, -6.0],
        "mad -src0",
    );
}

// ---------------------------------------------------------------------------------------
// math (extended math unit)
// ---------------------------------------------------------------------------------------

#[test]
fn math_inv_exact_cases_and_specials() {
    // 1/x is exact for powers of two; IEEE specials: 1/+0 = +inf, 1/-0 = -inf,
    // 1/+inf = +0, 1/-inf = -0.
    let r = run(
        "math inv(8) g10<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=2,4,0.5,-8,0,-0,inf,-inf"],
    );
    assert_f32_exact(
        &f(&r, 10, 8),
        &[
            0.5,
            0.25,
            2.0,
            -0.125,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
        ],
        "inv",
    );
}

#[test]
fn math_inv_general_values_within_tolerance() {
    // Tolerance 2^-20 relative: generous against the PRM's few-ulp precision.
    let r = run(
        "math inv(8) g10<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=3,-7,10,0.001,1e30,123.456,-0.3,1e-30"],
    );
    let x = [3.0f32, -7.0, 10.0, 0.001, 1e30, 123.456, -0.3, 1e-30];
    let want: Vec<f64> = x.iter().map(|v| 1.0 / *v as f64).collect();
    assert_f32_close(&f(&r, 10, 8), &want, 1.0 / 1048576.0, 0.0, "inv");
}

#[test]
fn math_sqrt_and_rsq() {
    // sqrt exact on perfect squares; sqrt(-1) = NaN, sqrt(inf) = inf, sqrt(NaN) = NaN.
    // rsq: rsq(0) = +inf, rsq(-1) = NaN, rsq(inf) = 0; others within 2^-20 relative.
    let asm = "math sqrt(8) g10<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };
math sqrt(8) g11<1>F g3<8,8,1>F null<8,8,1>F { align1 1Q };
math rsq(8) g12<1>F g4<8,8,1>F null<8,8,1>F { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:f=4,0,1,16,0.25,-1,inf,nan",
            "g3:f=2,3,10,1e-6,12345.678,0.5,1e30,7",
            "g4:f=4,0.25,0,-1,inf,2,100,1e-4",
        ],
    );
    assert_f32_exact(
        &f(&r, 10, 8),
        &[2.0, 0.0, 1.0, 4.0, 0.5, f32::NAN, f32::INFINITY, f32::NAN],
        "sqrt exact",
    );
    let x3 = [2.0f32, 3.0, 10.0, 1e-6, 12345.678, 0.5, 1e30, 7.0];
    let want3: Vec<f64> = x3.iter().map(|v| (*v as f64).sqrt()).collect();
    assert_f32_close(&f(&r, 11, 8), &want3, 1.0 / 1048576.0, 0.0, "sqrt");
    let x4 = [4.0f32, 0.25, 0.0, -1.0, f32::INFINITY, 2.0, 100.0, 1e-4];
    let want4: Vec<f64> = x4.iter().map(|v| 1.0 / (*v as f64).sqrt()).collect();
    assert_f32_close(&f(&r, 12, 8), &want4, 1.0 / 1048576.0, 0.0, "rsq");
    let g12 = f(&r, 12, 8);
    assert!(
        g12[2] == f32::INFINITY && g12[3].is_nan() && g12[4] == 0.0,
        "rsq specials {g12:?}"
    );
}

#[test]
fn math_log_is_base_two() {
    // PRM "log": log2. log2(1) = 0, 8 -> 3, 0.5 -> -1, +-0 -> -inf, negative -> NaN,
    // inf -> inf. Finite values within 2^-20 absolute.
    let asm = "math log(8) g10<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };";
    let r = run(asm, 8, &["g2:f=1,8,0.5,0,-1,inf,10,-0"]);
    let want = [
        0.0,
        3.0,
        -1.0,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::INFINITY,
        10f64.log2(),
        f64::NEG_INFINITY,
    ];
    assert_f32_close(&f(&r, 10, 8), &want, 0.0, 1.0 / 1048576.0, "log2");
    let r = run(asm, 8, &["g2:f=1024,0.001,3,1e30,1e-30,2,100,0.75"]);
    let x = [1024.0f32, 0.001, 3.0, 1e30, 1e-30, 2.0, 100.0, 0.75];
    let want: Vec<f64> = x.iter().map(|v| (*v as f64).log2()).collect();
    assert_f32_close(&f(&r, 10, 8), &want, 1e-6, 1.0 / 1048576.0, "log2 b");
}

#[test]
fn math_exp_is_base_two() {
    // PRM "exp": 2^x. exp(0) = 1, 3 -> 8, -1 -> 0.5, -inf -> 0, inf -> inf, 10 -> 1024,
    // -126 -> 2^-126 (smallest normal). Relative tolerance 1e-5.
    let r = run(
        "math exp(8) g10<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=0,3,-1,-inf,inf,0.5,10,-126"],
    );
    let want = [
        1.0,
        8.0,
        0.5,
        0.0,
        f64::INFINITY,
        2f64.sqrt(),
        1024.0,
        2f64.powi(-126),
    ];
    assert_f32_close(&f(&r, 10, 8), &want, 1e-5, 0.0, "exp2");
    assert_eq!(f(&r, 10, 8)[3], 0.0, "2^-inf = 0");
}

#[test]
fn math_sin_cos() {
    // sin/cos of radians, absolute tolerance 1e-3 (the extended math unit is approximate,
    // see the uncertain section for tighter bounds). sin/cos of inf or NaN is NaN.
    let asm = "math sin(8) g10<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };
math cos(8) g11<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };
math sin(8) g12<1>F g3<8,8,1>F null<8,8,1>F { align1 1Q };";
    let x = [
        0.0f32,
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::PI,
        -std::f32::consts::FRAC_PI_2,
        1.0,
        10.0,
        -3.0,
        0.5,
    ];
    let set = format!(
        "g2:f={}",
        x.iter()
            .map(|v| format!("{v:?}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let r = run(asm, 8, &[&set, "g3:f=inf,-inf,nan,0,0,0,0,0"]);
    let s: Vec<f64> = x.iter().map(|v| (*v as f64).sin()).collect();
    let c: Vec<f64> = x.iter().map(|v| (*v as f64).cos()).collect();
    assert_f32_close(&f(&r, 10, 8), &s, 0.0, 1e-3, "sin");
    assert_f32_close(&f(&r, 11, 8), &c, 0.0, 1e-3, "cos");
    let g12 = f(&r, 12, 3);
    assert!(
        g12.iter().all(|v| v.is_nan()),
        "sin(inf/-inf/NaN) = NaN, got {g12:?}"
    );
}

#[test]
fn math_pow_and_fdiv() {
    // pow(x, y) = x^y: 2^10 = 1024, 4^0.5 = 2, 10^2 = 100, 3^0 = 1, 2^-1 = 0.5,
    // 0.5^2 = 0.25, 8^(1/3) = 2, 1^100 = 1 (relative 1e-4).
    // fdiv (Gen6+ math function 9): 6/3 = 2, 1/3, -7/2, 1/0 = inf, 0/5 = 0, 10/4, -1/8,
    // 100/7 (relative 2^-20).
    let asm = "math pow(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };
math fdiv(8) g11<1>F g4<8,8,1>F g5<8,8,1>F { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:f=2,4,10,3,2,0.5,8,1",
            "g3:f=10,0.5,2,0,-1,2,0.33333334,100",
            "g4:f=6,1,-7,1,0,10,-1,100",
            "g5:f=3,3,2,0,5,4,8,7",
        ],
    );
    let pw = [
        1024.0,
        2.0,
        100.0,
        1.0,
        0.5,
        0.25,
        8f64.powf(0.33333334f32 as f64),
        1.0,
    ];
    assert_f32_close(&f(&r, 10, 8), &pw, 1e-4, 0.0, "pow");
    let dv = [
        2.0,
        1.0 / 3.0,
        -3.5,
        f64::INFINITY,
        0.0,
        2.5,
        -0.125,
        100.0 / 7.0,
    ];
    assert_f32_close(&f(&r, 11, 8), &dv, 1.0 / 1048576.0, 0.0, "fdiv");
}

#[test]
fn math_simd16_covers_both_halves() {
    // Gen7 float math runs SIMD16 (integer division does not); both register halves are
    // used: sqrt of the squares 0..15 is exact.
    let r = run(
        "math sqrt(16) g10<1>F g2<8,8,1>F null<8,8,1>F { align1 1H };",
        16,
        &["g2:f=0,1,4,9,16,25,36,49,64,81,100,121,144,169,196,225"],
    );
    assert_eq!(
        show(&r, "g10:f", 16),
        "g10:f = 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"
    );
}

#[test]
fn math_intdiv_intmod_signed_truncate_toward_zero() {
    // INT DIV (vISA DIV.md sign table = C semantics): the quotient truncates toward zero;
    // the remainder has the sign of the numerator. Integer math is SIMD8 on Gen7.
    //   7/2 = 3 r1; -7/2 = -3 r-1; 7/-2 = -3 r1; -7/-2 = 3 r-1; 0/5 = 0 r0;
    //   100/7 = 14 r2; (2^31-1)/1; -2^31/2 = -2^30 r0.
    let asm = "math intdiv(8) g10<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
math intmod(8) g11<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=7,-7,7,-7,0,100,2147483647,-2147483648",
            "g3:d=2,2,-2,-2,5,7,1,2",
        ],
    );
    assert_eq!(
        d(&r, 10, 8),
        vec![3, -3, -3, 3, 0, 14, 2147483647, -1073741824]
    );
    assert_eq!(d(&r, 11, 8), vec![1, -1, 1, -1, 0, 2, 0, 0]);
}

#[test]
fn math_intdiv_intmod_unsigned() {
    // UD operands divide unsigned: 0xffffffff/2 = 0x7fffffff r1; 0xffffffff/0xffffffff = 1;
    // 10/3 = 3 r1; 3000000000/7 = 428571428 r4; 0x80000000/0x10 = 0x08000000.
    let asm = "math intdiv(8) g10<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };
math intmod(8) g11<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:ud=4294967295,4294967295,10,3000000000,0x80000000,5,0,1",
            "g3:ud=2,4294967295,3,7,16,10,9,1",
        ],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![0x7fffffff, 1, 3, 428571428, 0x08000000, 0, 0, 1]
    );
    assert_eq!(ud(&r, 11, 8), vec![1, 0, 1, 4, 0, 5, 0, 0]);
}

#[test]
fn math_intdivmod_writes_quotient_and_remainder_registers() {
    // "INT DIV quotient and remainder": the quotient goes to dst, the remainder to the next
    // register (dst+1).
    let r = run(
        "math intdivmod(8) g10<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };",
        8,
        &["g2:d=17,-17,17,-17,1000,3,0,-1", "g3:d=5,5,-5,-5,10,4,3,1"],
    );
    assert_eq!(d(&r, 10, 8), vec![3, -3, -3, 3, 100, 0, 0, -1], "quotient");
    assert_eq!(d(&r, 11, 8), vec![2, -2, 2, -2, 0, 3, 0, 0], "remainder");
}

#[test]
fn math_intdiv_by_zero_and_overflow_do_not_crash() {
    // Whatever values the hardware produces for x/0 and -2^31/-1 (see the uncertain
    // section), the model must produce some result and carry on, never panic.
    let asm = "math intdiv(8) g10<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
math intmod(8) g11<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
math intdiv(8) g12<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };
mov(8) g13<1>D 7D { align1 1Q };";
    let r = run(
        asm,
        8,
        &["g2:d=1,-1,0,-2147483648,5,5,5,5", "g3:d=0,0,0,-1,1,1,1,1"],
    );
    assert_eq!(
        show(&r, "g13:d", 8),
        "g13:d = 7 7 7 7 7 7 7 7",
        "execution continues"
    );
    assert_eq!(&d(&r, 10, 8)[4..], &[5, 5, 5, 5]);
    // The divide is on 32 bits: a float divisor of 2^32 (or of -2^32) converts to an
    // integer whose low 32 bits are zero, a division by zero like the others (a fuzzer
    // found the host dividing by it). 3 is an ordinary divisor beside them.
    let asm = "math intdiv(8) g10<1>D g2<8,8,1>D g3<8,8,1>F { align1 1Q };
math intmod(8) g11<1>UD g2<8,8,1>UD g3<8,8,1>F { align1 1Q };
mov(8) g13<1>D 7D { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=9,9,9,9,9,9,9,9",
            "g3:f=4294967296,-4294967296,3,3,3,3,3,3",
        ],
    );
    assert_eq!(
        show(&r, "g13:d", 8),
        "g13:d = 7 7 7 7 7 7 7 7",
        "execution continues"
    );
    assert_eq!(
        &d(&r, 10, 8)[..3],
        &[-1, -1, 3],
        "x / 0 is -1, as for 0 itself"
    );
}

// ---------------------------------------------------------------------------------------
// Predication, channel groups, dispatch mask, WE_all
// ---------------------------------------------------------------------------------------

#[test]
fn inverted_predicate_and_masked_channels_keep_old_values() {
    // (-f0.0) enables the channels whose flag bit is clear; disabled channels keep their
    // previous destination values (PRM "Predication").
    // g2 < g3 on ch 0,1,6 -> f0.0 = 0x43.
    let asm = "cmp.l.f0.0(8) null<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };
(-f0.0) mov(8) g10<1>D g4<8,8,1>D { align1 1Q };
(+f0.0) add(8) g11<1>D g4<8,8,1>D 100D { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:d=0,0,5,5,5,5,0,5",
            "g3:d=1,1,1,1,1,1,1,1",
            "g4:d=1,2,3,4,5,6,7,8",
            "g10:d=-9,-9,-9,-9,-9,-9,-9,-9",
            "g11:d=-9,-9,-9,-9,-9,-9,-9,-9",
        ],
    );
    assert_eq!(r.thread.flag(0, 0), 0x43);
    assert_eq!(show(&r, "g10:d", 8), "g10:d = -9 -9 3 4 5 6 -9 8");
    assert_eq!(show(&r, "g11:d", 8), "g11:d = 101 102 -9 -9 -9 -9 107 -9");
}

#[test]
fn align16_write_mask_gates_the_flag_bits() {
    // In align16 a condition updates the flag bit of a channel only when the write mask
    // enables that channel's component (c % 4), the null register's mask included (Mesa's
    // vec4 backend tracks f0 per component and narrows write masks by it,
    // brw_vec4_dead_code_eliminate.cpp). g2 is all 1.0, so the first mov sets bits 0-7;
    // g3 is all 0: `.y` clears bits 1 and 5 only (0xdd). The predicated add then runs on
    // channels 0, 2, 3, 4, 6, 7.
    let r = run(
        "mov.nz.f0.0(8) null<1>F g2<4>F { align16 1Q };
mov.nz.f0.0(8) null<1>.yF g3<4>F { align16 1Q };
cmp.nz.f0.0(8) g12<1>.wF g3<4>F g2<4>F { align16 1Q };
(+f0.0) add(8) g10<1>D g4<4>D 100D { align16 1Q };",
        8,
        &[
            "g2:f=1,1,1,1,1,1,1,1",
            "g3:f=0,0,0,0,0,0,0,0",
            "g4:d=1,2,3,4,5,6,7,8",
            "g10:d=-9,-9,-9,-9,-9,-9,-9,-9",
            "g12:d=-9,-9,-9,-9,-9,-9,-9,-9",
        ],
    );
    // cmp.nz 0 != 1 is true on every channel, but only components w (3, 7) take it:
    // bits 3 and 7 are set again (0xdd), and only g12's w dwords get all ones.
    assert_eq!(r.thread.flag(0, 0), 0xdd);
    assert_eq!(show(&r, "g12:d", 8), "g12:d = -9 -9 -9 -1 -9 -9 -9 -1");
    assert_eq!(
        show(&r, "g10:d", 8),
        "g10:d = 101 -9 103 104 105 -9 107 108"
    );
}

#[test]
fn simd16_add_spans_two_registers() {
    // SIMD16 with 32-bit types: each operand spans two registers (channels 8-15 in the
    // second).
    let r = run(
        "add(16) g10<1>F g2<8,8,1>F g4<8,8,1>F { align1 1H };",
        16,
        &[
            "g2:f=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
            "g4:f=0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,100,100,100,100,100,100,100,100",
        ],
    );
    assert_eq!(
        show(&r, "g10:f", 16),
        "g10:f = 1.5 2.5 3.5 4.5 5.5 6.5 7.5 8.5 109 110 111 112 113 114 115 116"
    );
}

#[test]
fn second_quarter_uses_upper_flag_bits() {
    // PRM "Quarter Control": an exec-size-8 instruction with 2Q works on channels 8-15, so
    // its predicate reads flag bits 8-15 (its register operands are still the ones
    // written). (Mesa prints exec size 8 on channels 8-15 as `2Q`; `2H` is for exec 16.)
    // cmp(16) g2..3 < g4..5 on channels 0,3,8,9,15 -> f0.0 = 0x8309.
    let asm = "cmp.l.f0.0(16) null<1>F g2<8,8,1>F g4<8,8,1>F { align1 1H };
(+f0.0) mov(8) g20<1>F g6<8,8,1>F { align1 2Q };
(+f0.0) mov(8) g21<1>F g6<8,8,1>F { align1 1Q };
(-f0.0) mov(16) g22<1>F g6<8,8,1>F { align1 1H };";
    let r = run(
        asm,
        16,
        &[
            "g2:f=0,1,1,0,1,1,1,1,0,0,1,1,1,1,1,0",
            "g4:f=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1",
            "g6:f=10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25",
            "g20:f=-1,-1,-1,-1,-1,-1,-1,-1",
            "g21:f=-1,-1,-1,-1,-1,-1,-1,-1",
            "g22:f=-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1",
        ],
    );
    assert_eq!(r.thread.flag(0, 0), 0x8309);
    assert_eq!(show(&r, "g20:f", 8), "g20:f = 10 11 -1 -1 -1 -1 -1 17");
    assert_eq!(show(&r, "g21:f", 8), "g21:f = 10 -1 -1 13 -1 -1 -1 -1");
    assert_eq!(
        show(&r, "g22:f", 16),
        "g22:f = -1 11 12 -1 14 15 16 17 -1 -1 20 21 22 23 24 -1"
    );
}

#[test]
fn simd8_dispatch_leaves_channels_8_to_15_disabled() {
    // With SIMD8 dispatch only channels 0-7 exist: a mov(16) writes the first register
    // only, and a 2Q instruction (channels 8-15) writes nothing.
    let asm = "mov(16) g10<1>F 0x3f800000F { align1 1H };
mov(8) g12<1>F 0x40000000F { align1 2Q };";
    let r = run(asm, 8, &[]);
    assert_eq!(
        show(&r, "g10:f", 16),
        "g10:f = 1 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0"
    );
    assert_eq!(show(&r, "g12:f", 8), "g12:f = 0 0 0 0 0 0 0 0");
}

#[test]
fn we_all_ignores_the_execution_mask() {
    // WE_all (NoMask) enables every channel of the instruction regardless of the dispatch
    // and control-flow masks (PRM "Mask Control").
    let r = run("mov(8) g12<1>F 0x40000000F { align1 WE_all 2Q };", 8, &[]);
    assert_eq!(show(&r, "g12:f", 8), "g12:f = 2 2 2 2 2 2 2 2");
}

// ---------------------------------------------------------------------------------------
// Structured control flow (Gen7 JIP/UIP; Mesa's labelling conventions)
// ---------------------------------------------------------------------------------------

#[test]
fn nested_if_else_simd16() {
    // PRM "if/else/endif": if's JIP = first instruction of the else block, UIP = endif;
    // else's JIP = endif; an inner endif's JIP = the next enclosing block end (here the
    // outer else), an outer endif's JIP = the next instruction (Mesa brw_set_uip_jip).
    // Outer condition: channel n < 8 (first half). Inner: g4 == 0 (even channels).
    //   first half, even -> 1; first half, odd -> 2; second half -> 3.
    // g12 gets the then-branch tail (10) only in the first half; g14 = g10 + 100 for all.
    // (SIMD16 D values span two registers: g10-11, g12-13, g14-15.)
    let asm = "cmp.l.f0.0(16) null<1>D g2<8,8,1>D 8D { align1 1H };
(+f0.0) if(16) JIP: LABEL0 UIP: LABEL1 { align1 1H };
cmp.z.f0.0(16) null<1>D g4<8,8,1>D 0D { align1 1H };
(+f0.0) if(16) JIP: LABEL2 UIP: LABEL3 { align1 1H };
mov(16) g10<1>D 1D { align1 1H };
else(16) JIP: LABEL3 { align1 1H };
LABEL2:
mov(16) g10<1>D 2D { align1 1H };
LABEL3:
endif(16) JIP: LABEL4 { align1 1H };
mov(16) g12<1>D 10D { align1 1H };
LABEL4:
else(16) JIP: LABEL1 { align1 1H };
LABEL0:
mov(16) g10<1>D 3D { align1 1H };
LABEL1:
endif(16) JIP: LABEL5 { align1 1H };
LABEL5:
add(16) g14<1>D g10<8,8,1>D 100D { align1 1H };";
    let r = run(
        asm,
        16,
        &[
            "g2:d=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
            "g4:d=0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1",
        ],
    );
    assert_eq!(
        show(&r, "g10:d", 16),
        "g10:d = 1 2 1 2 1 2 1 2 3 3 3 3 3 3 3 3"
    );
    assert_eq!(
        show(&r, "g12:d", 16),
        "g12:d = 10 10 10 10 10 10 10 10 0 0 0 0 0 0 0 0"
    );
    assert_eq!(
        show(&r, "g14:d", 16),
        "g14:d = 101 102 101 102 101 102 101 102 103 103 103 103 103 103 103 103"
    );
}

#[test]
fn if_without_else() {
    // if's JIP and UIP both point at the endif when there is no else.
    let asm = "cmp.g.f0.0(8) null<1>F g2<8,8,1>F 0x0F { align1 1Q };
(+f0.0) if(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };
mul(8) g10<1>F g2<8,8,1>F 0x40000000F { align1 1Q };
LABEL0:
endif(8) JIP: LABEL1 { align1 1Q };
LABEL1:
add(8) g11<1>F g10<8,8,1>F 0x3f800000F { align1 1Q };";
    let r = run(
        asm,
        8,
        &[
            "g2:f=1,-1,2,-2,3,-3,4,-4",
            "g10:f=0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5",
        ],
    );
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 2 0.5 4 0.5 6 0.5 8 0.5");
    assert_eq!(show(&r, "g11:f", 8), "g11:f = 3 1.5 5 1.5 7 1.5 9 1.5");
}

#[test]
fn if_with_no_active_channel_jumps_over_the_block() {
    // When the if leaves no channel enabled it jumps to its JIP (PRM "if"), so nothing in
    // the block runs, not even a WE_all instruction.
    let asm = "cmp.l.f0.0(8) null<1>F g2<8,8,1>F 0x0F { align1 1Q };
(+f0.0) if(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };
mov(8) g10<1>F 0x3f800000F { align1 WE_all 1Q };
LABEL0:
endif(8) JIP: LABEL1 { align1 1Q };
LABEL1:
mov(8) g11<1>F 0x40000000F { align1 1Q };";
    let r = run(asm, 8, &["g2:f=1,2,3,4,5,6,7,8"]);
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 0 0 0 0 0 0 0 0");
    assert_eq!(show(&r, "g11:f", 8), "g11:f = 2 2 2 2 2 2 2 2");
}

#[test]
fn we_all_inside_a_divergent_if_writes_every_channel() {
    // With some channels inside the if, a WE_all instruction still writes all channels,
    // while a normal one writes only the enabled ones (channels 0 and 2).
    let asm = "cmp.l.f0.0(8) null<1>F g2<8,8,1>F 0x0F { align1 1Q };
(+f0.0) if(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };
mov(8) g10<1>F 0x3f800000F { align1 WE_all 1Q };
mov(8) g11<1>F 0x3f800000F { align1 1Q };
LABEL0:
endif(8) JIP: LABEL1 { align1 1Q };
LABEL1:
nop;";
    let r = run(asm, 8, &["g2:f=-1,2,-3,4,5,6,7,8"]);
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 1 1 1 1 1 1 1 1");
    assert_eq!(show(&r, "g11:f", 8), "g11:f = 1 0 1 0 0 0 0 0");
}

#[test]
fn loop_with_predicated_break_runs_per_channel_trip_counts() {
    // Mesa's Gen7 loop shape (corpus): the loop head is a label, `(+f0.0) break` with JIP =
    // UIP = the while, and `while` jumping back to the head while any channel is active.
    // Channel n runs n iterations: g10 = n, g11 = 1+2+...+n.
    // After the loop every channel is enabled again: g12 = g10 + 1000 everywhere.
    let asm = "LABEL1:
cmp.ge.f0.0(8) null<1>D g10<8,8,1>D g2<8,8,1>D { align1 1Q };
(+f0.0) break(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };
add(8) g10<1>D g10<8,8,1>D 1D { align1 1Q };
add(8) g11<1>D g11<8,8,1>D g10<8,8,1>D { align1 1Q };
LABEL0:
while(8) JIP: LABEL1 { align1 1Q };
add(8) g12<1>D g10<8,8,1>D 1000D { align1 1Q };";
    let r = run(asm, 8, &["g2:d=0,1,2,3,4,5,6,7"]);
    assert_eq!(show(&r, "g10:d", 8), "g10:d = 0 1 2 3 4 5 6 7");
    assert_eq!(show(&r, "g11:d", 8), "g11:d = 0 1 3 6 10 15 21 28");
    assert_eq!(
        show(&r, "g12:d", 8),
        "g12:d = 1000 1001 1002 1003 1004 1005 1006 1007"
    );
}

#[test]
fn loop_with_break_inside_if() {
    // An unpredicated break inside if/endif: break's JIP = the endif (the innermost block
    // end), UIP = the while; endif's JIP = the while (next block end). Same trip counts.
    let asm = "LABEL3:
cmp.ge.f0.0(8) null<1>D g10<8,8,1>D g2<8,8,1>D { align1 1Q };
(+f0.0) if(8) JIP: LABEL1 UIP: LABEL1 { align1 1Q };
break(8) JIP: LABEL1 UIP: LABEL0 { align1 1Q };
LABEL1:
endif(8) JIP: LABEL0 { align1 1Q };
add(8) g10<1>D g10<8,8,1>D 1D { align1 1Q };
add(8) g11<1>D g11<8,8,1>D 1D { align1 1Q };
LABEL0:
while(8) JIP: LABEL3 { align1 1Q };
add(8) g12<1>D g10<8,8,1>D 1000D { align1 1Q };";
    let r = run(asm, 8, &["g2:d=3,0,7,1,2,6,4,5"]);
    assert_eq!(show(&r, "g10:d", 8), "g10:d = 3 0 7 1 2 6 4 5");
    assert_eq!(show(&r, "g11:d", 8), "g11:d = 3 0 7 1 2 6 4 5");
    assert_eq!(
        show(&r, "g12:d", 8),
        "g12:d = 1003 1000 1007 1001 1002 1006 1004 1005"
    );
}

#[test]
fn loop_with_continue_skips_the_rest_of_the_body() {
    // `cont` disables the channel until the while (JIP = UIP = while here, Mesa's
    // convention when it is not inside an if), which then re-enables it for the next
    // iteration. Channel c counts i = 1..n; when (i & g3) != 0 it continues, else adds i.
    //   g3 = 1 (ch0-3): only even i are summed: n=0:0, 1:0, 2:2, 3:2
    //   g3 = 0 (ch4-7): all i are summed: n=4:10, 5:15, 6:21, 7:28
    let asm = "LABEL1:
cmp.ge.f0.0(8) null<1>D g10<8,8,1>D g2<8,8,1>D { align1 1Q };
(+f0.0) break(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };
add(8) g10<1>D g10<8,8,1>D 1D { align1 1Q };
and.nz.f0.0(8) null<1>UD g10<8,8,1>UD g3<8,8,1>UD { align1 1Q };
(+f0.0) cont(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };
add(8) g11<1>D g11<8,8,1>D g10<8,8,1>D { align1 1Q };
LABEL0:
while(8) JIP: LABEL1 { align1 1Q };";
    let r = run(asm, 8, &["g2:d=0,1,2,3,4,5,6,7", "g3:ud=1,1,1,1,0,0,0,0"]);
    assert_eq!(show(&r, "g10:d", 8), "g10:d = 0 1 2 3 4 5 6 7");
    assert_eq!(show(&r, "g11:d", 8), "g11:d = 0 0 2 2 10 15 21 28");
}

#[test]
fn nested_loops_break_only_the_inner_loop() {
    // for (i = 0; i < n; i++) for (j = 0; j < i; j++) count++;  -> count = n(n-1)/2.
    // The inner break's JIP/UIP point at the inner while, the outer one's at the outer
    // while.
    let asm = "LABEL3:
cmp.ge.f0.0(8) null<1>D g10<8,8,1>D g2<8,8,1>D { align1 1Q };
(+f0.0) break(8) JIP: LABEL2 UIP: LABEL2 { align1 1Q };
mov(8) g11<1>D 0D { align1 1Q };
LABEL1:
cmp.ge.f0.0(8) null<1>D g11<8,8,1>D g10<8,8,1>D { align1 1Q };
(+f0.0) break(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };
add(8) g11<1>D g11<8,8,1>D 1D { align1 1Q };
add(8) g12<1>D g12<8,8,1>D 1D { align1 1Q };
LABEL0:
while(8) JIP: LABEL1 { align1 1Q };
add(8) g10<1>D g10<8,8,1>D 1D { align1 1Q };
LABEL2:
while(8) JIP: LABEL3 { align1 1Q };";
    let r = run(asm, 8, &["g2:d=0,1,2,3,4,5,6,7"]);
    assert_eq!(show(&r, "g10:d", 8), "g10:d = 0 1 2 3 4 5 6 7");
    assert_eq!(show(&r, "g12:d", 8), "g12:d = 0 0 1 3 6 10 15 21");
}

#[test]
fn do_while_collatz_simd16() {
    // A predicated while (do-while) runs a data-dependent number of iterations per
    // channel: Collatz steps from n = 2..17 down to 1 (computed in Python):
    // 1 7 2 5 8 16 3 19 6 14 9 9 17 17 4 12.
    // 3n+1 is computed as (n<<1) + n + 1; n/2 as n>>1; the odd test with and.nz.
    let asm = "LABEL0:
and.nz.f0.0(16) null<1>UD g10<8,8,1>UD 0x00000001UD { align1 1H };
shl(16) g14<1>UD g10<8,8,1>UD 0x00000001UD { align1 1H };
add(16) g14<1>UD g14<8,8,1>UD g10<8,8,1>UD { align1 1H };
add(16) g14<1>UD g14<8,8,1>UD 0x00000001UD { align1 1H };
shr(16) g16<1>UD g10<8,8,1>UD 0x00000001UD { align1 1H };
(+f0.0) sel(16) g10<1>UD g14<8,8,1>UD g16<8,8,1>UD { align1 1H };
add(16) g12<1>D g12<8,8,1>D 1D { align1 1H };
cmp.nz.f0.0(16) null<1>D g10<8,8,1>D 1D { align1 1H };
(+f0.0) while(16) JIP: LABEL0 { align1 1H };";
    let r = run(asm, 16, &["g10:ud=2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"]);
    assert_eq!(
        show(&r, "g12:d", 16),
        "g12:d = 1 7 2 5 8 16 3 19 6 14 9 9 17 17 4 12"
    );
    assert_eq!(
        show(&r, "g10:ud", 16),
        "g10:ud = 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"
    );
}

#[test]
fn halt_disables_channels_until_its_uip() {
    // Mesa's discard: `(+f0.1) halt` with JIP = the next block end (here the final halt)
    // and UIP = the instruction after the final `halt`, whose JIP = UIP = the next
    // instruction (Mesa patch_halt_jumps, brw_set_uip_jip). Halted channels skip the code
    // up to the UIP and run again from there (PRM "halt").
    let asm = "cmp.l.f0.1(8) null<1>F g2<8,8,1>F 0x0F { align1 1Q };
(+f0.1) halt(8) JIP: LABEL0 UIP: LABEL1 { align1 1Q };
mov(8) g10<1>F 0x3f800000F { align1 1Q };
LABEL0:
halt(8) JIP: LABEL1 UIP: LABEL1 { align1 1Q };
LABEL1:
mov(8) g11<1>F 0x40000000F { align1 1Q };";
    let r = run(asm, 8, &["g2:f=-1,1,-1,1,1,1,-1,1"]);
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 0 1 0 1 1 1 0 1");
    assert_eq!(show(&r, "g11:f", 8), "g11:f = 2 2 2 2 2 2 2 2");
}

#[test]
fn halt_of_every_channel_jumps() {
    // When no channel is left running after the halt it jumps to its JIP, so the WE_all
    // mov in between does not execute.
    let asm = "cmp.l.f0.1(8) null<1>F g2<8,8,1>F 0x0F { align1 1Q };
(+f0.1) halt(8) JIP: LABEL0 UIP: LABEL1 { align1 1Q };
mov(8) g10<1>F 0x3f800000F { align1 WE_all 1Q };
LABEL0:
halt(8) JIP: LABEL1 UIP: LABEL1 { align1 1Q };
LABEL1:
mov(8) g11<1>F 0x40000000F { align1 1Q };";
    let r = run(asm, 8, &["g2:f=-1,-1,-1,-1,-1,-1,-1,-1"]);
    assert_eq!(show(&r, "g10:f", 8), "g10:f = 0 0 0 0 0 0 0 0");
    assert_eq!(show(&r, "g11:f", 8), "g11:f = 2 2 2 2 2 2 2 2");
}

// ---------------------------------------------------------------------------------------
// send
// ---------------------------------------------------------------------------------------

#[test]
fn render_target_write_with_eot_ends_the_thread() {
    // A real Mesa RT write (corpus): sendc(8) null g124 0x88031400, render (SFID 5),
    // mlen 4 (descriptor bits 28:25), rlen 0, EOT (bit 31). It is recorded with g124..g127
    // as its payload, and nothing after it runs.
    let asm = "mov(8) g124<1>F g2<8,8,1>F { align1 1Q };
mov(8) g125<1>F 0x3f800000F { align1 1Q };
mov(8) g126<1>F 0x40000000F { align1 1Q };
mov(8) g127<1>F 0x3f000000F { align1 1Q };
sendc(8) null<1>UW g124<8,8,1>UD 0x88031400
                            render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };
mov(8) g10<1>F 0x3f800000F { align1 1Q };";
    let r = run(asm, 8, &["g2:f=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8"]);
    assert_eq!(r.messages.len(), 1);
    let m = &r.messages[0];
    assert_eq!(m.sfid, gtsim_isa::ir::Sfid::DataPortRenderCache);
    assert_eq!(m.desc & 0x7fff_ffff, 0x0803_1400);
    assert!(m.eot);
    assert_eq!(m.response_length, 0);
    assert_eq!(m.payload.len(), 4, "mlen 4");
    for (k, reg) in (124..128).enumerate() {
        assert_eq!(
            &m.payload[k][..],
            bytes(&r, reg, 0, 32),
            "payload register {k} = g{reg}"
        );
    }
    let p0: Vec<f32> = m.payload[0]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_f32_exact(
        &p0,
        &[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        "payload g124",
    );
    assert_eq!(
        show(&r, "g10:f", 8),
        "g10:f = 0 0 0 0 0 0 0 0",
        "nothing runs after EOT"
    );
}

#[test]
fn sampler_send_writes_its_response_and_continues() {
    // A non-EOT send (corpus: sampler sample SIMD8, 0x04420001: mlen 2, rlen 4) writes
    // rlen registers at its destination (the recording shared function answers zeros) and
    // execution continues.
    let asm = "send(8) g124<1>UW g13<8,8,1>UD 0x04420001
                            sampler MsgDesc: sample SIMD8 Surface = 1 Sampler = 0 mlen 2 rlen 4 { align1 1Q };
mov(8) g10<1>F 0x3f800000F { align1 1Q };";
    let ones = "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1";
    let r = run(
        asm,
        8,
        &[&format!("g124:f={ones}"), "g13:f=0.25,0.5", "g14:f=0.75"],
    );
    assert_eq!(r.messages.len(), 1);
    let m = &r.messages[0];
    assert_eq!(m.sfid, gtsim_isa::ir::Sfid::Sampler);
    assert_eq!(m.desc, 0x0442_0001);
    assert!(!m.eot);
    assert_eq!(m.response_length, 4);
    assert_eq!(m.dst, 124);
    assert_eq!(m.payload.len(), 2);
    assert_eq!(
        &m.payload[0][..8],
        &[0, 0, 0x80, 0x3e, 0, 0, 0, 0x3f],
        "g13 = 0.25, 0.5"
    );
    assert_eq!(&m.payload[1][..4], &[0, 0, 0x40, 0x3f], "g14 = 0.75");
    assert_eq!(show(&r, "g124:f", 8), "g124:f = 0 0 0 0 0 0 0 0");
    assert_eq!(show(&r, "g127:f", 8), "g127:f = 0 0 0 0 0 0 0 0");
    assert_eq!(
        show(&r, "g10:f", 8),
        "g10:f = 1 1 1 1 1 1 1 1",
        "execution continued"
    );
}

#[test]
fn program_without_eot_ends_at_its_last_instruction() {
    let r = run("mov(8) g10<1>D 5D { align1 1Q };", 8, &[]);
    assert!(r.messages.is_empty());
    assert_eq!(r.executed, 1);
    assert_eq!(show(&r, "g10:d", 8), "g10:d = 5 5 5 5 5 5 5 5");
}

// ---------------------------------------------------------------------------------------
// Guest safety: bad kernels are errors, never panics
// ---------------------------------------------------------------------------------------

#[test]
fn runaway_loop_reports_the_instruction_budget() {
    // A jmpi back to itself: -16 bytes from the next instruction, -2 in Gen7's 64-bit
    // jump units.
    let code = gtsim_isa::asm::assemble(
        "jmpi(1) 0xfffffffeD { align1 WE_all };",
        gtsim_isa::asm::Compaction::Never,
    )
    .unwrap();
    let e = gtsim_eu::harness::run_bin_with_budget(&code, 8, &[], 5_000)
        .unwrap_err()
        .to_string();
    assert!(e.contains("budget"), "{e}");
}

/// Gen7's `jmpi` counts 64-bit chunks from the next instruction (Mesa brw_land_fwd_jump:
/// 2 per native instruction from Ironlake on): `jmpi 2D` skips exactly one native
/// instruction. Intel's VA driver's AVS kernels jump so (`jmpi 52D` at 0x120 lands at
/// 0x130 + 52 x 8 = 0x2D0, its END_SRC_BLOCK label).
#[test]
fn jmpi_counts_64_bit_chunks_on_gen7() {
    let r = run(
        "jmpi(1) 2D { align1 WE_all 1N };\n\
         mov(8) g10<1>UD 0x11111111UD { align1 1Q };\n\
         mov(8) g11<1>UD 0x22222222UD { align1 1Q };",
        8,
        &[],
    );
    assert_eq!(
        ud(&r, 10, 8),
        vec![0; 8],
        "the skipped instruction did not run"
    );
    assert_eq!(ud(&r, 11, 8), vec![0x2222_2222; 8]);
}

/// The first byte past g127.
const G128: usize = 128 * 32;

/// `r` stopped the thread at its first instruction with a register region leaving the
/// register file at byte `byte`.
#[track_caller]
fn assert_region_error(r: Result<Run, HarnessError>, byte: usize) {
    match r {
        Err(HarnessError::Exec(ExecError::Region { ip: 0, byte: b })) => assert_eq!(b, byte),
        Err(e) => panic!("{e:?}: expected a region error at byte {byte:#x}"),
        Ok(_) => panic!("ran: expected a region error at byte {byte:#x}"),
    }
}

#[test]
fn source_region_past_g127_is_an_error() {
    // 16 floats from g127 need g127 and g128.
    assert_region_error(
        run_asm("mov(16) g10<1>F g127<8,8,1>F { align1 1H };", 16, &[]),
        G128,
    );
    // A strided region starting at g126 with vstride 16: rows at g126 and g128.
    assert_region_error(
        run_asm("mov(16) g10<1>UD g126<16,8,1>UD { align1 1H };", 16, &[]),
        G128,
    );
}

#[test]
fn narrow_moves_at_the_end_of_the_register_file_write_only_their_channels() {
    // Execution size 4 (and 1, 2) writes its channels and nothing else (PRM "Execution
    // Size"), also where eight dwords from the destination would run past g127 (g127.4:
    // bytes 16..31 are the last of the file) and from a packed source there.
    let r = run(
        "mov(4) g127.4<1>UD g127<4,4,1>UD { align1 WE_all 1N };
mov(2) g126.6<1>D -g127.4<2,2,1>D { align1 WE_all 1N };
mov(1) g126<1>F g127.7<0,1,0>F { align1 WE_all 1N };
add(4) g125.4<1>UD g127.4<4,4,1>UD 0x10UD { align1 WE_all 1N };",
        8,
        &[
            "g127:ud=1,2,3,4,5,6,7,8",
            "g126:ud=9,9,9,9,9,9,9,9",
            "g125:ud=7,7,7,7,7,7,7,7",
        ],
    );
    // g127.4..7 = g127.0..3.
    assert_eq!(ud(&r, 127, 8), vec![1, 2, 3, 4, 1, 2, 3, 4]);
    // g126.6, g126.7 = -1, -2; g126.0 = the float bits of g127.7 (4), unchanged as a mov.
    assert_eq!(d(&r, 126, 8), vec![4, 9, 9, 9, 9, 9, -1, -2]);
    assert_eq!(ud(&r, 125, 8), vec![7, 7, 7, 7, 17, 18, 19, 20]);
}

#[test]
fn destination_region_past_g127_is_an_error() {
    assert_region_error(
        run_asm("mov(16) g127<1>F g2<8,8,1>F { align1 1H };", 16, &[]),
        G128,
    );
    // Stride 4 floats: channel 2 is at byte 32 from g127.
    assert_region_error(
        run_asm("mov(8) g127<4>F g2<8,8,1>F { align1 1Q };", 8, &[]),
        G128,
    );
}

#[test]
fn send_payload_past_g127_is_an_error() {
    // mlen 4 from g126 would read g126..g129.
    let asm = "sendc(8) null<1>UW g126<8,8,1>UD 0x88031400
                            render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };";
    assert_region_error(run_asm(asm, 8, &[]), G128);
}

#[test]
fn invalid_encoding_is_an_error() {
    // Opcode 0x7f is no Gen7 instruction.
    let e = run_bin(&[0xff; 16], 8, &[]).unwrap_err();
    assert!(
        matches!(
            e,
            HarnessError::Exec(ExecError::Decode {
                ip: 0,
                error: DecodeError::UnknownOpcode(0x7f)
            })
        ),
        "{e:?}"
    );
}

#[test]
fn truncated_instruction_is_an_error() {
    // Five bytes cannot hold a native (16-byte) or compacted (8-byte) instruction; the
    // decoder reads the two dwords every instruction has before it looks at the
    // compaction bit, so it reports the 8 it needs first.
    let e = run_bin(&[0x01, 0x00, 0x60, 0x00, 0x00], 8, &[]).unwrap_err();
    assert!(
        matches!(
            e,
            HarnessError::Exec(ExecError::Decode {
                ip: 0,
                error: DecodeError::Truncated { need: 8, have: 5 }
            })
        ),
        "{e:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Uncertain hardware behaviour: characterisation tests. Each pins what the model does
// where the hardware's behaviour is not confirmed by the seeds or a public source at
// hand (the open question is in its comment), so that a change is a deliberate one,
// made here with its reason, not a side effect.
// ---------------------------------------------------------------------------------------

/// Runs a characterisation kernel that must succeed and give the same registers and
/// messages on every path the model runs kernels on ([`run_asm_every_path`]), so that the
/// pinned choice holds on each.
fn pinned(asm: &str, simd: u8, sets: &[&str]) -> Run {
    match run_asm_every_path(asm, simd, sets) {
        Ok(r) => r,
        Err(e) => panic!("kernel failed: {e}\n--- kernel ---\n{asm}"),
    }
}

#[test]
fn uncertain_float_denormals_flush_to_zero() {
    // Gen8+ has a "Single Precision Denorm Mode" bit in cr0; for Ivy Bridge I believe
    // float denormals are flushed to (sign-preserved) zero on input and output of
    // arithmetic, but I could not confirm it in the PRM text available. Expectation here:
    // flushed. 2^-149 = 0x00000001, 2^-127 = 0x00200000.
    let r = pinned(
        "add(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };",
        8,
        &[
            "g2:f=0x00000001,0x80000001,0x00200000,0x00800000,1,1,1,1",
            "g3:f=0,-0,0x00200000,0x80000001,0,0,0,0",
        ],
    );
    assert_f32_exact(
        &f(&r, 10, 4),
        &[0.0, -0.0, 0.0, f32::from_bits(0x0080_0000)],
        "denormal flush",
    );
}

#[test]
fn uncertain_half_denormals_are_kept() {
    // IEEE would give 1e-5 -> half denormal round(1e-5 / 2^-24) = 168 = 0x00a8 and
    // 0x0001 -> 2^-24 exactly. vISA says HF denormals are flushed in arithmetic but kept by
    // conversions; whether Ivy Bridge's f32to16/f16to32 keep them is not confirmed.
    let asm = "f32to16(8) g10<2>W g2<8,8,1>F { align1 1Q };
f16to32(8) g11<1>F g3<16,8,2>W { align1 1Q };";
    let r = pinned(
        asm,
        8,
        &[
            "g2:f=1e-5,-1e-5,0,0,0,0,0,0",
            "g3:ud=0x0001,0x03ff,0x8001,0,0,0,0,0",
        ],
    );
    assert_eq!(every(&uw(&r, 10, 4), 2), vec![0x00a8, 0x80a8]);
    assert_f32_exact(
        &f(&r, 11, 3),
        &[
            f32::from_bits(0x3380_0000),
            1023.0 * 2f32.powi(-24),
            -f32::from_bits(0x3380_0000),
        ],
        "f16to32 denormals",
    );
}

#[test]
fn uncertain_cmpn_nan_rule() {
    // From memory of the PRM, cmpn ("compare, NaN-aware") makes the comparison true when
    // src1 is NaN (so `cmpn.l; (+f) sel` returns the non-NaN src0 as a min), and behaves
    // like cmp otherwise (src0 NaN -> false). Not confirmed from the text.
    // src0 = 1 NaN NaN 2; src1 = NaN 1 NaN 3. The model's choice, pinned: true only
    // when src1 alone is NaN (and for 2 < 3), false when both are: 0b1001. The reading
    // above would also make the both-NaN lane true (0b1101); unconfirmed either way.
    let r = pinned(
        "cmpn.l.f0.0(4) null<1>F g2<4,4,1>F g3<4,4,1>F { align1 1N };",
        8,
        &["g2:f=1,nan,nan,2", "g3:f=nan,1,nan,3"],
    );
    assert_eq!(r.thread.flag(0, 0) & 0xf, 0b1001);
}

#[test]
fn uncertain_intdiv_by_zero_values() {
    // The PRM's INT DIV special-case table is not at hand. Expectation from memory: an
    // unsigned x/0 gives 0xffffffff and x%0 gives x; -2^31 / -1 gives -2^31 with remainder 0.
    let asm = "math intdiv(8) g10<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };
math intmod(8) g11<1>UD g2<8,8,1>UD g3<8,8,1>UD { align1 1Q };
math intdiv(8) g12<1>D g4<8,8,1>D g5<8,8,1>D { align1 1Q };
math intmod(8) g13<1>D g4<8,8,1>D g5<8,8,1>D { align1 1Q };";
    let r = pinned(
        asm,
        8,
        &[
            "g2:ud=5,0,7,7,7,7,7,7",
            "g3:ud=0,0,1,1,1,1,1,1",
            "g4:d=-2147483648",
            "g5:d=-1",
        ],
    );
    assert_eq!(&ud(&r, 10, 2), &[u32::MAX, u32::MAX]);
    assert_eq!(&ud(&r, 11, 2), &[5, 0]);
    assert_eq!(d(&r, 12, 1)[0], i32::MIN);
    assert_eq!(d(&r, 13, 1)[0], 0);
}

#[test]
fn uncertain_cmp_unordered_modifier() {
    // Conditional modifier 9 (.u) is documented as "unordered (NaN)"; for cmp I expect it
    // to be true when either source is NaN. src0 = 1 NaN 1 NaN, src1 = 1 1 NaN NaN -> 0b1110.
    let r = pinned(
        "cmp.u.f0.0(4) null<1>F g2<4,4,1>F g3<4,4,1>F { align1 1N };",
        8,
        &["g2:f=1,nan,1,nan", "g3:f=1,1,nan,nan"],
    );
    assert_eq!(r.thread.flag(0, 0) & 0xf, 0b1110);
}

#[test]
fn uncertain_mul_dword_by_dword_to_grf() {
    // Mesa (brw_fs_visitor.cpp, Gen7): "For integer multiplication, the MUL uses the low
    // 16 bits of one of the operands (src0 on gen6, src1 on gen7)", which is why Mesa never
    // emits a plain D x D mul on Gen7. If that is literal, 65537 * 65537 gives
    // 65537 * 1 = 65537, not the low 32 bits of the product (131073). What a GRF
    // destination really receives (and how the low word's sign is treated) is unconfirmed.
    // The model's choice, pinned: the low 32 bits of the whole product (131073), as the
    // instruction's documented semantics read; no driver emits this on Gen7.
    let r = pinned(
        "mul(8) g10<1>D g2<8,8,1>D g3<8,8,1>D { align1 1Q };",
        8,
        &["g2:d=65537,3", "g3:d=65537,5"],
    );
    assert_eq!(&d(&r, 10, 2), &[131_073, 15]);
}

#[test]
fn uncertain_negative_float_to_unsigned() {
    // The unsigned conversion table gives 0 for -0 and negative denormals but "qNaN
    // indefinite" for other negatives, which is not an integer. Clamping to 0 (saturation
    // to the unsigned range) is the expectation here.
    let r = pinned(
        "mov(8) g10<1>UD g2<8,8,1>F { align1 1Q };",
        8,
        &["g2:f=-1,-1e9,-inf,-0.5"],
    );
    assert_eq!(&ud(&r, 10, 4), &[0, 0, 0, 0]);
}

#[test]
fn uncertain_rounding_to_negative_zero() {
    // IEEE roundToIntegral keeps the sign: rnde(-0.5) = -0, rndz(-0.5) = -0,
    // rndu(-0.5) = -0, frc is not involved. Whether the EU keeps the sign is unconfirmed.
    let asm = "rnde(8) g10<1>F g2<8,8,1>F { align1 1Q };
rndz(8) g11<1>F g2<8,8,1>F { align1 1Q };
rndu(8) g12<1>F g2<8,8,1>F { align1 1Q };";
    let r = pinned(asm, 8, &["g2:f=-0.5,-0.25,-0"]);
    assert_f32_exact(&f(&r, 10, 3), &[-0.0, -0.0, -0.0], "rnde");
    assert_f32_exact(&f(&r, 11, 3), &[-0.0, -0.0, -0.0], "rndz");
    assert_f32_exact(&f(&r, 12, 3), &[-0.0, -0.0, -0.0], "rndu");
}

#[test]
fn uncertain_math_precision_bounds() {
    // Tighter bounds than the main tests, from memory of the PRM's extended-math precision
    // table (not confirmed): inv/sqrt/rsq within 1 ulp, sin/cos absolute error <= 8e-4
    // over [-pi, pi] (here much tighter is asked: 2^-20), log2/exp2 relative 2^-22.
    let asm = "math inv(8) g10<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };
math sqrt(8) g11<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };
math sin(8) g12<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };
math exp(8) g13<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };";
    let x = [3.0f32, 0.7, 1.3, 2.9, 0.1, 1.9, 2.2, 0.45];
    let set = format!(
        "g2:f={}",
        x.iter()
            .map(|v| format!("{v:?}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let r = pinned(asm, 8, &[&set]);
    let ulp = 1.0 / 8388608.0;
    assert_f32_close(
        &f(&r, 10, 8),
        &x.iter().map(|v| 1.0 / *v as f64).collect::<Vec<_>>(),
        ulp,
        0.0,
        "inv 1ulp",
    );
    assert_f32_close(
        &f(&r, 11, 8),
        &x.iter().map(|v| (*v as f64).sqrt()).collect::<Vec<_>>(),
        ulp,
        0.0,
        "sqrt 1ulp",
    );
    assert_f32_close(
        &f(&r, 12, 8),
        &x.iter().map(|v| (*v as f64).sin()).collect::<Vec<_>>(),
        0.0,
        1.0 / 1048576.0,
        "sin",
    );
    assert_f32_close(
        &f(&r, 13, 8),
        &x.iter().map(|v| (*v as f64).exp2()).collect::<Vec<_>>(),
        1.0 / 4194304.0,
        0.0,
        "exp2",
    );
}

#[test]
fn simd32_second_half_reads_and_writes_the_upper_flag_bits() {
    // In a 32-channel thread a 2H instruction's channels are 16-31: its cmp writes bits
    // 16-31 of f0 (the f0.1 half) and its predicate on f0.0 reads them back, channel n
    // reading bit n (IVB PRM Vol4 Part3, flag register). g22 holds channels 16-31's data:
    // 300 >= 200 at the odd channels 17..23 and at 24..27.
    let r = pinned(
        "cmp.ge.f0.0(16) null<1>D        g22<8,8,1>D     200D            { align1 2H switch };
mov(8)          g30<1>UD        f0<0,1,0>UD                     { align1 WE_all 1N };
(+f0.0) mov(16) g40<1>D         1D                              { align1 2H };",
        32,
        &["g22:d=0,300,0,300,0,300,0,300,300,300,300,300,0,0,0,0"],
    );
    assert_eq!(ud(&r, 30, 1), [0x0faa_0000]);
    assert_eq!(
        d(&r, 40, 16),
        [0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0]
    );
}

/// gtsim's rule where the seeds are silent (`ops::default_nan`): a NaN an arithmetic
/// instruction computes is the default NaN 0x7FC00000, whatever the NaN sources' signs
/// and payloads (two NaN payloads, a NaN with a number, inf - inf, 0 * inf, a math
/// function), so the result does not depend on the host; `mov` and `sel` pass a quiet
/// NaN source through.
#[test]
fn computed_nans_are_the_default_nan_and_moves_keep_their_payload() {
    let asm = "add(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };
mul(8) g11<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };
mad(8) g12<1>F g2<4,4,1>F g3<4,4,1>F g2<4,4,1>F { align16 1Q };
math sqrt(8) g13<1>F g2<8,8,1>F null<8,8,1>F { align1 1Q };
mov(8) g14<1>F g2<8,8,1>F { align1 1Q };
sel(8) g15<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };";
    // Lanes: -qNaN with payload / sNaN; qNaN with a number; -sNaN with -qNaN;
    // inf and -inf (add: NaN); 0 and inf (mul: NaN); -1 (sqrt: NaN); 1 and 2; a number.
    let r = pinned(
        asm,
        8,
        &[
            "g2:ud=0xffc12345,0x7fc00001,0xff800001,0x7f800000,0x00000000,0xbf800000,0x3f800000,0x40000000",
            "g3:ud=0x7f812345,0x3f800000,0xffc00002,0xff800000,0x7f800000,0x3f800000,0x40000000,0x3f800000",
        ],
    );
    const Q: u32 = 0x7fc0_0000;
    assert_eq!(ud(&r, 10, 8)[..4], [Q, Q, Q, Q], "add");
    assert_eq!(ud(&r, 11, 8)[..5], [Q, Q, Q, 0xff80_0000, Q], "mul");
    assert_eq!(ud(&r, 12, 8)[..3], [Q, Q, Q], "mad");
    assert_eq!(ud(&r, 13, 8)[..6], [Q, Q, Q, 0x7f80_0000, 0, Q], "sqrt");
    // mov and sel (no predicate: src0) pass a quiet NaN through, sign and payload kept.
    assert_eq!(ud(&r, 14, 2), [0xffc1_2345, 0x7fc0_0001], "mov");
    assert_eq!(ud(&r, 15, 2), [0xffc1_2345, 0x7fc0_0001], "sel");
}

/// A `mov` of a float to a float with no modifier, saturation or condition is a raw
/// move (Mesa brw_fs `is_raw_move`; seed 003's "raw move (so SNaN is not quietized)"):
/// a signalling NaN keeps its quiet bit clear, and denormals are kept; with a source
/// modifier it is arithmetic again and the NaN comes out quiet.
#[test]
fn raw_float_moves_keep_signalling_nans() {
    let asm = "mov(8) g10<1>F g2<8,8,1>F { align1 1Q };
mov(8) g11<1>F -g2<8,8,1>F { align1 1Q };
add(8) g12<1>F g2<8,8,1>F 0x0F /* 0F */ { align1 1Q };";
    let r = pinned(
        asm,
        8,
        &[
            "g2:ud=0x7f855555,0xff800001,0x00000001,0x3f800000,0x7fc00000,0x80000000,0x7f800001,0x12345678",
        ],
    );
    assert_eq!(
        ud(&r, 10, 8),
        [
            0x7f85_5555,
            0xff80_0001,
            0x0000_0001,
            0x3f80_0000,
            0x7fc0_0000,
            0x8000_0000,
            0x7f80_0001,
            0x1234_5678
        ],
        "raw mov"
    );
    // -sNaN: the sign flips and the NaN is read quiet.
    assert_eq!(ud(&r, 11, 2), [0xffc5_5555, 0x7fc0_0001], "negated mov");
    assert_eq!(ud(&r, 12, 2), [0x7fc0_0000, 0x7fc0_0000], "add");
}
