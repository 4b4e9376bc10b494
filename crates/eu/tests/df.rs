//! Double precision (DF) on Ivy Bridge, instruction by instruction.
//!
//! Every expected value was worked out by hand from IEEE-754 binary64/binary32 and the
//! Gen7 rules in `gtsim_eu`'s `df` module docs; none was copied from the interpreter. The
//! kernels use the forms Mesa's crocus compiler emits for Ivy Bridge fp64 (seen in
//! `INTEL_DEBUG=vs,fs` dumps of the piglit arb_gpu_shader_fp64 / arb_vertex_attrib_64bit
//! tests): DF instructions are `(8)` (four doubles, the execution size counting 32-bit
//! channels), align1 regions `<8,8,1>DF` (four packed doubles) and `<0,2,1>DF` (a scalar),
//! quarter/nibble controls 1Q 2N 2Q 4N, align16 `.xyxy`/`.zwzw` swizzles with a `.2`
//! subregister for components z/w, F->DF through `<1,2,0>F`, DF->F/D/UD into `<1>` 32-bit
//! destinations, and align16 three-source `mad`.
//!
//! Bit patterns used below: 1.5 = 0x3ff8_0000_0000_0000, 3.75 = 0x400e_0000_0000_0000,
//! 0.1 = 0x3fb9_9999_9999_999a, -2.25 = 0xc002_0000_0000_0000, the f32 0.1 =
//! 0x3dcc_cccd = 0.100000001490116119384765625 exactly.

use gtsim_eu::exec::ExecError;
use gtsim_eu::harness::{HarnessError, Run, run_asm, run_asm_every_path};

fn run(asm: &str, simd: u8, sets: &[&str]) -> Run {
    match run_asm(asm, simd, sets) {
        Ok(r) => r,
        Err(e) => panic!("kernel failed: {e}\n--- kernel ---\n{asm}"),
    }
}

fn dwords(r: &Run, reg: usize, n: usize) -> Vec<u32> {
    let g = r.thread.grf_bytes();
    (0..n)
        .map(|i| {
            let at = reg * 32 + i * 4;
            u32::from_le_bytes(g[at..at + 4].try_into().unwrap())
        })
        .collect()
}

/// The 64-bit patterns of `n` doubles from `reg`.
fn bits(r: &Run, reg: usize, n: usize) -> Vec<u64> {
    dwords(r, reg, 2 * n)
        .chunks(2)
        .map(|p| (p[1] as u64) << 32 | p[0] as u64)
        .collect()
}

fn df(r: &Run, reg: usize, n: usize) -> Vec<f64> {
    bits(r, reg, n).into_iter().map(f64::from_bits).collect()
}

/// Doubles compared bit for bit (so -0 differs from +0).
fn assert_df(got: &[f64], want: &[f64], what: &str) {
    let g: Vec<u64> = got.iter().map(|v| v.to_bits()).collect();
    let w: Vec<u64> = want.iter().map(|v| v.to_bits()).collect();
    assert_eq!(g, w, "{what}: got {got:?}, want {want:?}");
}

// ---------------------------------------------------------------------------------------
// Execution size, regions and channel masks
// ---------------------------------------------------------------------------------------

#[test]
fn add_of_exec_size_8_adds_four_doubles_and_writes_one_register() {
    // IVB: ExecSize counts 32-bit channels, so add(8) is four doubles (32 bytes): g11 (the
    // register after the destination) and g3/g5 (after the sources) are not touched.
    // 1.5 + 2.25 = 3.75; 0.1 + 0.2 = 0.30000000000000004 (0x3fd3_3333_3333_3334);
    // -0.5 + 0.25 = -0.25; 1e308 + 1e308 overflows to +inf.
    let r = run(
        "add(8) g10<1>DF g2<8,8,1>DF g4<8,8,1>DF { align1 1Q };",
        8,
        &[
            "g2:df=1.5,0.1,-0.5,1e308",
            "g3:df=100,100,100,100",
            "g4:df=2.25,0.2,0.25,1e308",
            "g5:df=100,100,100,100",
            "g11:ud=7,7,7,7,7,7,7,7",
        ],
    );
    assert_eq!(
        bits(&r, 10, 4),
        [
            0x400e_0000_0000_0000,
            0x3fd3_3333_3333_3334,
            0xbfd0_0000_0000_0000,
            0x7ff0_0000_0000_0000
        ]
    );
    assert_eq!(dwords(&r, 11, 8), [7; 8]);
}

#[test]
fn scalar_region_0_2_1_and_source_modifiers() {
    // `<0,2,1>DF` is one double for every channel ("a <0,2,1> region" for scalar DF on
    // IVB); `.1` is the second double of the register. Mesa's `add(8) gN<1>DF gN<8,8,1>DF
    // -gN.1<0,2,1>DF` and `(abs)` forms: g2 - 0.5 and |g2| + 10.
    let r = run(
        "add(8) g10<1>DF g2<8,8,1>DF -g4.1<0,2,1>DF { align1 1Q };
add(8) g11<1>DF (abs)g2<8,8,1>DF g4<0,2,1>DF { align1 1Q };
mov(8) g12<1>DF -g4.2<0,2,1>DF { align1 1Q };",
        8,
        &["g2:df=1,-2,3.5,-0", "g4:df=10,0.5,-0,99"],
    );
    assert_df(&df(&r, 10, 4), &[0.5, -2.5, 3.0, -0.5], "g2 - 0.5");
    assert_df(&df(&r, 11, 4), &[11.0, 12.0, 13.5, 10.0], "|g2| + 10");
    // -(-0) = +0: negate flips the sign bit.
    assert_df(&df(&r, 12, 4), &[0.0; 4], "-(-0)");
}

#[test]
fn quarter_and_nibble_controls_give_one_mask_bit_per_double() {
    // One execution-mask (and predicate) bit per double: a DF instruction of group g
    // (1Q = 0, 2N = 4, 2Q = 8, 4N = 12) governs double k by flag bit g + k. f0.0 =
    // 0x0a50 has bits 4, 6, 9 and 11.
    let r = run(
        "mov(1) f0<1>UW 0x0a50UW { align1 WE_all 1N };
(+f0.0) mov(8) g10<1>DF g2<8,8,1>DF { align1 1Q };
(+f0.0) mov(8) g11<1>DF g2<8,8,1>DF { align1 2N };
(+f0.0) mov(8) g12<1>DF g2<8,8,1>DF { align1 2Q };
(+f0.0) mov(8) g13<1>DF g2<8,8,1>DF { align1 4N };",
        16,
        &[
            "g2:df=1,2,3,4",
            "g10:df=-1,-1,-1,-1",
            "g11:df=-1,-1,-1,-1",
            "g12:df=-1,-1,-1,-1",
            "g13:df=-1,-1,-1,-1",
        ],
    );
    assert_df(&df(&r, 10, 4), &[-1.0; 4], "1Q: bits 0-3");
    assert_df(&df(&r, 11, 4), &[1.0, -1.0, 3.0, -1.0], "2N: bits 4-7");
    assert_df(&df(&r, 12, 4), &[-1.0, 2.0, -1.0, 4.0], "2Q: bits 8-11");
    assert_df(&df(&r, 13, 4), &[-1.0; 4], "4N: bits 12-15");
}

#[test]
fn second_nibble_follows_the_dispatch_mask_of_channels_4_to_7() {
    // A thread with only channels 0-3 dispatched (one vertex of a SIMD4x2 pair): the 1Q
    // half runs, the 2N half (channels 4-7) does not.
    let r = run(
        "mov(8) g10<1>DF g2<8,8,1>DF { align1 1Q };
mov(8) g11<1>DF g2<8,8,1>DF { align1 2N };",
        4,
        &["g2:df=1,2,3,4", "g11:df=9,9,9,9"],
    );
    assert_df(&df(&r, 10, 4), &[1.0, 2.0, 3.0, 4.0], "1Q");
    assert_df(&df(&r, 11, 4), &[9.0; 4], "2N");
}

// ---------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------

/// The f32 0.1 widened: 0.100000001490116119384765625.
const F01: f64 = f64::from_bits(0x3fb9_9999_a000_0000);

#[test]
fn f_d_ud_to_df_read_the_even_channel_of_each_pair() {
    // F->DF on IVB ignores every odd source channel (Mesa brw_MOV), so Mesa reads each
    // element twice with `<1,2,0>`; `.4` (F) is byte 16, the elements of the second
    // nibble. With a plain `<8,8,1>F` region double k gets element 2k. Widening is exact:
    // f32 0.1 is 0.100000001490116119384765625 = double 0x3fb9_9999_a000_0000.
    let r = run(
        "mov(8) g10<1>DF g2<1,2,0>F { align1 1Q };
mov(8) g11<1>DF g2.4<1,2,0>F { align1 2N };
mov(8) g12<1>DF g2<8,8,1>F { align1 1Q };
mov(8) g13<1>DF g3<1,2,0>D { align1 1Q };
mov(8) g14<1>DF g4<1,2,0>UD { align1 1Q };",
        8,
        &[
            "g2:f=0.1,-2.5,0.75,-0,1,2,3,4",
            "g3:d=-7,2147483647,-2147483648,0",
            "g4:ud=4294967295,0,1,2147483648",
        ],
    );
    assert_eq!(bits(&r, 10, 1), [0x3fb9_9999_a000_0000]);
    assert_df(&df(&r, 10, 4), &[F01, -2.5, 0.75, -0.0], "<1,2,0>F");
    assert_df(&df(&r, 11, 4), &[1.0, 2.0, 3.0, 4.0], "g2.4<1,2,0>F 2N");
    assert_df(
        &df(&r, 12, 4),
        &[F01, 0.75, 1.0, 3.0],
        "<8,8,1>F: even channels",
    );
    assert_df(
        &df(&r, 13, 4),
        &[-7.0, 2147483647.0, -2147483648.0, 0.0],
        "D->DF",
    );
    assert_df(
        &df(&r, 14, 4),
        &[4294967295.0, 0.0, 1.0, 2147483648.0],
        "UD->DF",
    );
}

#[test]
fn df_to_f_rounds_to_nearest_even_into_the_even_dword() {
    // Each double writes two dwords of a `<1>F` destination, the converted value first
    // (Mesa: "each DF implicitly writes two floats, being the first one the converted
    // value"); the odd dwords are garbage on the hardware and are not checked.
    // 1/3 -> 0x3eaa_aaab (the bits after the 23rd are 1010..., rounded up); 1e40 > FLT_MAX
    // -> +inf; 1 + 2^-24 is halfway between 1 and 1 + 2^-23 -> the even 1.0; 1 + 3*2^-24 is
    // halfway between 1 + 2^-23 and 1 + 2^-22 -> the even 1 + 2^-22 = 0x3f80_0002.
    // With .sat: 1.5 -> 1, -2 -> +0, NaN -> +0, 0.25 stays.
    let r = run(
        "mov(8) g10<1>F g2<8,8,1>DF { align1 1Q };
mov.sat(8) g11<1>F g4<8,8,1>DF { align1 1Q };
mov(8) g12<1>F g2.1<0,2,1>DF { align1 1Q };",
        8,
        &[
            "g2:df=0.3333333333333333,1e40,1.0000000596046448,1.0000001788139343",
            "g4:df=1.5,-2,nan,0.25",
        ],
    );
    let even = |v: Vec<u32>| v.into_iter().step_by(2).collect::<Vec<_>>();
    assert_eq!(
        even(dwords(&r, 10, 8)),
        [0x3eaa_aaab, 0x7f80_0000, 0x3f80_0000, 0x3f80_0002]
    );
    assert_eq!(even(dwords(&r, 11, 8)), [0x3f80_0000, 0, 0, 0x3e80_0000]);
    assert_eq!(even(dwords(&r, 12, 8)), [0x7f80_0000; 4]);
}

#[test]
fn vec4_backend_align1_conversions() {
    // The vertex shader's DF->F conversion is align1 `mov(8) gN<1>F gN<4,4,1>DF`: in
    // 32-bit elements `<4,4,1>` walks dwords 0-3 then 4-7, the four packed doubles, and
    // the values land in the even dwords. Mesa also negates integer sources of D->DF
    // (`mov(8) gN<1>DF -gN<1,2,0>D`): -(-5) = 5, -(2147483647) = -2147483647, -(0) = 0
    // as an integer, so +0.0.
    let r = run(
        "mov(8) g10<1>F g2<4,4,1>DF { align1 1Q };
mov(8) g11<1>DF -g4<1,2,0>D { align1 1Q };",
        8,
        &["g2:df=0.5,-1e-3,65504.25,-0", "g4:d=-5,2147483647,0,1"],
    );
    // -1e-3 rounds to the f32 0xba83_126f (-0.0010000000474974513).
    assert_eq!(
        dwords(&r, 10, 8).into_iter().step_by(2).collect::<Vec<_>>(),
        [0x3f00_0000, 0xba83_126f, 0x477f_e040, 0x8000_0000]
    );
    assert_df(&df(&r, 11, 4), &[5.0, -2147483647.0, 0.0, -1.0], "-D -> DF");
}

#[test]
fn df_to_d_and_ud_truncate_and_saturate() {
    // PRM "Type Conversion": toward zero, out-of-range values saturate, NaN gives 0.
    let r = run(
        "mov(8) g10<1>D g2<8,8,1>DF { align1 1Q };
mov(8) g11<1>UD g4<8,8,1>DF { align1 1Q };",
        8,
        &[
            "g2:df=-2.9,3e9,nan,-1e10",
            "g4:df=-1.5,5e9,4294967295.5,7.99",
        ],
    );
    let even = |v: Vec<u32>| v.into_iter().step_by(2).collect::<Vec<_>>();
    assert_eq!(
        even(dwords(&r, 10, 8)),
        [(-2i32) as u32, 2147483647, 0, 0x8000_0000]
    );
    assert_eq!(even(dwords(&r, 11, 8)), [0, 4294967295, 4294967295, 7]);
}

#[test]
fn saturate_and_condition_modifier_on_double_results() {
    // mov.sat clamps to [0, 1] (NaN -> +0); add.z sets the flag bit of each double whose
    // result is zero: 1.5-1.5 = 0, -0.5-1 = -1.5, NaN-0 = NaN, 0.75-0.75 = 0 -> 0b1001.
    let r = run(
        "mov.sat(8) g10<1>DF g2<8,8,1>DF { align1 1Q };
add.z.f0.0(8) g11<1>DF g2<8,8,1>DF -g4<8,8,1>DF { align1 1Q };",
        8,
        &["g2:df=1.5,-0.5,nan,0.75", "g4:df=1.5,1,0,0.75"],
    );
    assert_df(&df(&r, 10, 4), &[1.0, 0.0, 0.0, 0.75], "mov.sat");
    assert_eq!(r.thread.flag(0, 0), 0b1001);
}

// ---------------------------------------------------------------------------------------
// cmp, sel, mul, mad
// ---------------------------------------------------------------------------------------

#[test]
fn cmp_writes_64_bit_masks_and_one_flag_bit_per_double() {
    // cmp.l on (1,2) (NaN,1) (-0,0) (2,NaN): only 1 < 2 holds (NaN is unordered, -0 == 0).
    // The 1Q instruction sets f0.0 bit 0, the 2N one (same data) bit 4; the destination
    // gets all-ones or zero in both dwords of each double (Mesa picks the low dwords with
    // `<8,4,2>UD`). cmp.ge: 1>=2 no, NaN no, -0>=0 yes, 2>=NaN no -> f0.1 = 0b0100.
    let r = run(
        "cmp.l.f0.0(8) g10<1>DF g2<8,8,1>DF g4<8,8,1>DF { align1 1Q };
cmp.l.f0.0(8) g11<1>DF g2<8,8,1>DF g4<8,8,1>DF { align1 2N };
cmp.ge.f0.1(8) null<1>DF g2<8,8,1>DF g4<8,8,1>DF { align1 1Q switch };
mov(8) g12<1>D g10<8,4,2>UD { align1 1Q };",
        8,
        &["g2:df=1,nan,-0,2", "g4:df=2,1,0,nan"],
    );
    assert_eq!(dwords(&r, 10, 8), [u32::MAX, u32::MAX, 0, 0, 0, 0, 0, 0]);
    assert_eq!(dwords(&r, 11, 2), [u32::MAX, u32::MAX]);
    assert_eq!(r.thread.flag(0, 0), 0b0001_0001);
    assert_eq!(r.thread.flag(0, 1), 0b0100);
    // The low dwords of g10 then g11 (the second row of <8,4,2>).
    assert_eq!(dwords(&r, 12, 8), [u32::MAX, 0, 0, 0, u32::MAX, 0, 0, 0]);
}

#[test]
fn sel_min_max_and_predicated_select() {
    // sel.l / sel.ge are min / max; a NaN operand gives the other one (as for F). The
    // predicated sel takes src0 where the flag bit of the double is set (bits 0 and 2).
    let r = run(
        "sel.l(8) g10<1>DF g2<8,8,1>DF g4<8,8,1>DF { align1 1Q };
sel.ge(8) g11<1>DF g2<8,8,1>DF g4<8,8,1>DF { align1 1Q };
mov(1) f0<1>UW 0x0005UW { align1 WE_all 1N };
(+f0.0) sel(8) g12<1>DF g2<8,8,1>DF g4<8,8,1>DF { align1 1Q };",
        8,
        &["g2:df=1,nan,-3,2.5", "g4:df=2,1,4,nan"],
    );
    assert_df(&df(&r, 10, 4), &[1.0, 1.0, -3.0, 2.5], "min");
    assert_df(&df(&r, 11, 4), &[2.0, 1.0, 4.0, 2.5], "max");
    assert_eq!(
        bits(&r, 12, 4),
        [
            1f64.to_bits(),
            1f64.to_bits(),
            (-3f64).to_bits(),
            f64::NAN.to_bits()
        ]
    );
}

#[test]
fn mul_rounds_in_double_precision() {
    // (1 + 2^-30) * (1 - 2^-30) = 1 - 2^-60, which rounds to 1.0 in binary64 (the
    // neighbours are 1 - 2^-53 and 1); 3 * 0.1 = 0.30000000000000004; 2^600 * 2^500 is
    // +inf; scalar times vector as in Mesa's `mul(8) gN<1>DF gN<0,2,1>DF gN<8,8,1>DF`.
    let r = run(
        "mul(8) g10<1>DF g2<8,8,1>DF g4<8,8,1>DF { align1 1Q };
mul(8) g11<1>DF g6<0,2,1>DF g2<8,8,1>DF { align1 1Q };",
        8,
        &[
            "g2:df=1.0000000009313226,3,4.149515568880993e180,-1",
            "g4:df=0.9999999990686774,0.1,3.273390607896142e150,0.5",
            "g6:df=-2",
        ],
    );
    assert_df(
        &df(&r, 10, 4),
        &[1.0, 0.30000000000000004, f64::INFINITY, -0.5],
        "mul",
    );
    assert_df(
        &df(&r, 11, 4),
        &[-(2.0 + 2f64.powi(-29)), -6.0, -8.299031137761986e180, 2.0],
        "scalar * vector",
    );
}

#[test]
fn mad_align16_three_source() {
    // Mesa's FS emits DF mad as align16 three-source `mad(8) gN<1>DF gN<4,4,1>DF ...`:
    // dst = src0 + src1 * src2 on four doubles. 1+2*3 = 7, 0.5+0.25*4 = 1.5,
    // -1+(-2*0.5) = -2, 10+0.5*(-8) = 6; with -src2: -5, -0.5, -1-(-1) = +0, 14.
    let r = run(
        "mad(8) g10<1>DF g2<4,4,1>DF g4<4,4,1>DF g6<4,4,1>DF { align16 1Q };
mad(8) g11<1>DF g2<4,4,1>DF g4<4,4,1>DF -g6<4,4,1>DF { align16 1Q };",
        8,
        &[
            "g2:df=1,0.5,-1,10",
            "g4:df=2,0.25,-2,0.5",
            "g6:df=3,4,0.5,-8",
        ],
    );
    assert_df(&df(&r, 10, 4), &[7.0, 1.5, -2.0, 6.0], "a + b*c");
    assert_df(&df(&r, 11, 4), &[-5.0, -0.5, 0.0, 14.0], "a - b*c");
}

// ---------------------------------------------------------------------------------------
// Align16 (SIMD4x2 vertex shaders)
// ---------------------------------------------------------------------------------------

#[test]
fn align16_swizzles_pick_doubles_by_dword_pairs() {
    // Align16 DF swizzles count dwords: `.xyxy` is the double at bytes 0-7 of the 16-byte
    // row, `.zwzw` the one at bytes 8-15, and `.2` (DF) starts the row at byte 16 for
    // components z and w (Mesa brw_vec4.cpp apply_logical_swizzle). The write mask has one
    // bit per double of the 32-byte register. g2 = (1.5, 2.5, 3.5, 4.5).
    let r = run(
        "mov(8) g10<1>.xDF g2<0>.zwzwDF { align16 1Q };
mov(8) g10<1>.yDF g2.2<0>.xyxyDF { align16 1Q };
mov(8) g10<1>.zDF g2.2<0>.zwzwDF { align16 1Q };
mov(8) g10<1>.wDF g2<0>.xyxyDF { align16 1Q };
mov(8) g11<1>DF g2<4>.xyzwDF { align16 1Q };
mov(8) g12<1>.yDF g3<0>.xyxyDF { align16 2N };",
        8,
        &[
            "g2:df=1.5,2.5,3.5,4.5",
            "g3:df=5.5,6.5,7.5,8.5",
            "g11:df=-1,-1,-1,-1",
            "g12:df=-1,-1,-1,-1",
        ],
    );
    assert_df(&df(&r, 10, 4), &[2.5, 3.5, 4.5, 1.5], "y z w x");
    assert_df(&df(&r, 11, 4), &[1.5, 2.5, 3.5, 4.5], "xyzw, vstride 4");
    assert_df(
        &df(&r, 12, 4),
        &[-1.0, 5.5, -1.0, -1.0],
        ".y of the 2N half",
    );
}

#[test]
fn mesa_vs_double_attribute_shuffle_and_compare() {
    // The sequence crocus emits for a dvec2 vertex input (piglit vs-input-*-double_dvec2):
    // the low and high dwords of each vertex's double are interleaved with align1 UD moves
    // (vertex 0 in channels 0-3 (1N), vertex 1 in 4-7 (2N)), then align16 DF moves take
    // component x for vertex 0 (1Q -> g9) and vertex 1 (2N -> g10), compare with a uniform
    // 0.1 and pick the low dwords of the masks with `<8,4,2>UD`. Vertex 0 holds 0.1
    // (lo 0x9999999a, hi 0x3fb99999), vertex 1 -2.25 (lo 0, hi 0xc0020000).
    let r = run(
        "mov(4) g14<2>UD g16<4,4,1>UD { align1 1N };
mov(4) g15<2>UD g16.4<4,4,1>UD { align1 2N };
mov(4) g14.1<2>UD g17<4,4,1>UD { align1 1N };
mov(4) g15.1<2>UD g17.4<4,4,1>UD { align1 2N };
mov(8) g9<1>.xDF g14<0>.xyxyDF { align16 1Q };
mov(8) g10<1>.xDF g15<0>.xyxyDF { align16 2N };
cmp.nz.f0.0(8) g25<1>.xDF g9<0>.xyxyDF g1<0>.xyxyDF { align16 1Q };
cmp.nz.f0.0(8) g26<1>.xDF g10<0>.xyxyDF g1<0>.xyxyDF { align16 2N };
mov(4) g27<1>UD g25<8,4,2>UD { align1 1N };
mov(4) g27.4<1>UD g26<8,4,2>UD { align1 2N };",
        8,
        &[
            "g1:df=0.1",
            "g16:ud=0x9999999a,0x9999999a,0x9999999a,0x9999999a,0,0,0,0",
            "g17:ud=0x3fb99999,0x3fb99999,0x3fb99999,0x3fb99999,0xc0020000,0xc0020000,0xc0020000,0xc0020000",
            "g25:ud=5,5,5,5,5,5,5,5",
            "g26:ud=5,5,5,5,5,5,5,5",
        ],
    );
    assert_df(&df(&r, 9, 1), &[0.1], "vertex 0 .x");
    assert_df(&df(&r, 10, 1), &[-2.25], "vertex 1 .x");
    // 0.1 != 0.1 is false for vertex 0, -2.25 != 0.1 true for vertex 1; the `.x` write
    // mask lets only double 0 of each half update its flag bit (bits 0 and 4).
    assert_eq!(r.thread.flag(0, 0), 0x10);
    assert_eq!(dwords(&r, 25, 4), [0, 0, 5, 5]);
    assert_eq!(dwords(&r, 26, 4), [u32::MAX, u32::MAX, 5, 5]);
    assert_eq!(dwords(&r, 27, 8), [0, 5, 5, 5, u32::MAX, 5, 5, 5]);
}

#[test]
fn mesa_vs_double_sign_sets_one_flag_component_per_instruction() {
    // crocus's dvec2 sign() (piglit vs-sign-dvec2, INTEL_DEBUG=vs): one `mov.nz` per
    // component of each vertex into f0.0, each under a one-component write mask, then a
    // `(+f0.0) or` over the eight high dwords ORs in 1.0's. The write mask gates the flag
    // bit (one per double), so each instruction sets only its component's bit. Vertex 0
    // (1Q) has arg (0, 0.75), read as .xyyy; vertex 1 (2N) has (-1.5, 0):
    // vertex 0 -> x 0, y z w 1 (0b1110); vertex 1 -> x 1, y z w 0 (0b0001) -> 0x1e.
    // (Were the mask ignored, `.w` would set all four bits from .y: 0x0f.)
    let r = run(
        "mov.nz.f0.0(8) null<1>.xDF (abs)g2<0>.xyxyDF { align16 1Q };
mov.nz.f0.0(8) null<1>.yDF (abs)g2<0>.zwzwDF { align16 1Q };
mov.nz.f0.0(8) null<1>.zDF (abs)g2<0>.zwzwDF { align16 1Q };
mov.nz.f0.0(8) null<1>.wDF (abs)g2<0>.zwzwDF { align16 1Q };
mov.nz.f0.0(8) null<1>.xDF (abs)g3<0>.xyxyDF { align16 2N };
mov.nz.f0.0(8) null<1>.yDF (abs)g3<0>.zwzwDF { align16 2N };
mov.nz.f0.0(8) null<1>.zDF (abs)g3<0>.zwzwDF { align16 2N };
mov.nz.f0.0(8) null<1>.wDF (abs)g3<0>.zwzwDF { align16 2N };
(+f0.0) or(8) g10<1>UD g11<4>UD 0x3f800000UD { align16 1Q };",
        8,
        &[
            "g2:df=0,0.75",
            "g3:df=-1.5,0",
            "g10:ud=7,7,7,7,7,7,7,7",
            "g11:ud=0,0,0,0,0,0,0,0",
        ],
    );
    assert_eq!(r.thread.flag(0, 0), 0x1e);
    let one = 0x3f80_0000;
    assert_eq!(dwords(&r, 10, 8), [7, one, one, one, one, 7, 7, 7]);
}

// ---------------------------------------------------------------------------------------
// Forms the model refuses loudly
// ---------------------------------------------------------------------------------------

#[test]
fn df_math_rounding_and_exec_size_1_are_unsupported() {
    for (asm, what) in [
        (
            "math sqrt(8) g10<1>DF g2<8,8,1>DF null<8,8,1>F { align1 1Q };",
            "double-precision `math`",
        ),
        (
            "rndd(8) g10<1>DF g2<8,8,1>DF { align1 1Q };",
            "double-precision `rndd`",
        ),
        (
            "frc(8) g10<1>DF g2<8,8,1>DF { align1 1Q };",
            "double-precision `frc`",
        ),
        (
            "mov(1) g10<1>DF g2<0,1,0>DF { align1 WE_all 1N };",
            "execution size 1",
        ),
        (
            "mov(8) g10<1>UW g2<8,8,1>DF { align1 1Q };",
            "UW destination",
        ),
        (
            "mov(8) g10<2>DF g2<8,8,1>DF { align1 1Q };",
            "horizontal stride other than 1",
        ),
    ] {
        let e = run_asm(asm, 8, &["g2:df=4,9,16,25"]).unwrap_err();
        assert!(
            matches!(&e, HarnessError::Exec(ExecError::Unsupported { ip: 0, unsupported })
                if unsupported.what.contains(what)),
            "{asm}: {e}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Uncertain hardware behaviour: a characterisation test pinning the model's choice
// (whether Gen7's DF mad rounds once, fused, is not documented at hand)
// ---------------------------------------------------------------------------------------

#[test]
fn uncertain_df_mad_is_fused() {
    // (1 + 2^-30)(1 - 2^-30) - 1 = -2^-60 exactly when fused; unfused the product rounds to
    // 1.0 and the result is +0. The model rounds once, like its single-precision mad.
    // Pinned on every path the model runs kernels on (micro-ops, the JIT).
    let r = run_asm_every_path(
        "mad(8) g10<1>DF g2<4,4,1>DF g4<4,4,1>DF g6<4,4,1>DF { align16 1Q };",
        8,
        &[
            "g2:df=-1,-1,-1,-1",
            "g4:df=1.0000000009313226,1,1,1",
            "g6:df=0.9999999990686774,1,1,1",
        ],
    )
    .unwrap();
    assert_df(&df(&r, 10, 1), &[-8.673617379884035e-19], "fused");
}
