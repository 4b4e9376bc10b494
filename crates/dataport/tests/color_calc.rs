//! Colour-calculator functions against values worked by hand from seed 004 chapter 12.
//! Colours use multiples of 1/4 so every product and sum is exact in f32.

use gtsim_dataport::ReservedValue;
use gtsim_dataport::blend::{BlendInputs, BlendState, ClampRange, blend, clamp, factor, function};
use gtsim_dataport::compare::{compare, stencil_op, stencil_test, stencil_write};
use gtsim_dataport::logic_op::logic_op;
use gtsim_spec::shared::{
    ThreeDColorBufferBlendFactor as F, ThreeDColorBufferBlendFunction as Func,
    ThreeDCompareFunction as Cf, ThreeDLogicOpFunction as L, ThreeDStencilOperation as Op,
};

const I: BlendInputs = BlendInputs {
    src: [0.5, 0.25, 1.0, 0.75],
    src1: [0.25, 0.5, 0.0, 0.5],
    dst: [0.25, 1.0, 0.5, 0.25],
    constant: [1.0, 0.0, 0.25, 0.5],
};

#[test]
fn every_blend_factor() {
    // (factor, expected RGBA) from the seed's table L10083-10105 with I above.
    let table: [(F, [f32; 4]); 19] = [
        (F::BLENDFACTOR_ZERO, [0.0; 4]),
        (F::BLENDFACTOR_ONE, [1.0; 4]),
        (F::BLENDFACTOR_SRC_COLOR, [0.5, 0.25, 1.0, 0.75]),
        (F::BLENDFACTOR_INV_SRC_COLOR, [0.5, 0.75, 0.0, 0.25]),
        (F::BLENDFACTOR_SRC_ALPHA, [0.75; 4]),
        (F::BLENDFACTOR_INV_SRC_ALPHA, [0.25; 4]),
        (F::BLENDFACTOR_SRC1_COLOR, [0.25, 0.5, 0.0, 0.5]),
        (F::BLENDFACTOR_INV_SRC1_COLOR, [0.75, 0.5, 1.0, 0.5]),
        (F::BLENDFACTOR_SRC1_ALPHA, [0.5; 4]),
        (F::BLENDFACTOR_INV_SRC1_ALPHA, [0.5; 4]),
        (F::BLENDFACTOR_DST_COLOR, [0.25, 1.0, 0.5, 0.25]),
        (F::BLENDFACTOR_INV_DST_COLOR, [0.75, 0.0, 0.5, 0.75]),
        (F::BLENDFACTOR_DST_ALPHA, [0.25; 4]),
        (F::BLENDFACTOR_INV_DST_ALPHA, [0.75; 4]),
        (F::BLENDFACTOR_CONST_COLOR, [1.0, 0.0, 0.25, 0.5]),
        (F::BLENDFACTOR_INV_CONST_COLOR, [0.0, 1.0, 0.75, 0.5]),
        (F::BLENDFACTOR_CONST_ALPHA, [0.5; 4]),
        (F::BLENDFACTOR_INV_CONST_ALPHA, [0.5; 4]),
        // f = min(1 - rt.a, o.a) = min(0.75, 0.75) = 0.75; alpha factor 1.
        (F::BLENDFACTOR_SRC_ALPHA_SATURATE, [0.75, 0.75, 0.75, 1.0]),
    ];
    for (f, want) in table {
        assert_eq!(factor(f, &I).unwrap(), want, "{f:?}");
    }
    // Reserved codes 0x00, 0x0b..0x10, 0x16 are errors naming the field.
    for r in [0x00, 0x0b, 0x10, 0x16, 0x1b] {
        let e = factor(F(r), &I).unwrap_err();
        assert!(
            matches!(e, ReservedValue { field: "Blend Factor", value, .. } if value == r),
            "{e}"
        );
    }
}

#[test]
fn every_blend_function() {
    // src term 0.75, dst term 0.25.
    assert_eq!(function(Func::BLENDFUNCTION_ADD, 0.75, 0.25).unwrap(), 1.0);
    assert_eq!(
        function(Func::BLENDFUNCTION_SUBTRACT, 0.75, 0.25).unwrap(),
        0.5
    );
    assert_eq!(
        function(Func::BLENDFUNCTION_REVERSE_SUBTRACT, 0.75, 0.25).unwrap(),
        -0.5
    );
    assert_eq!(function(Func::BLENDFUNCTION_MIN, 0.75, 0.25).unwrap(), 0.25);
    assert_eq!(function(Func::BLENDFUNCTION_MAX, 0.75, 0.25).unwrap(), 0.75);
    assert!(matches!(
        function(Func(5), 0.0, 0.0),
        Err(ReservedValue {
            field: "Blend Function",
            value: 5,
            ..
        })
    ));
}

#[test]
fn classic_alpha_blend_and_independent_alpha() {
    // GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA: out = 0.75*src + 0.25*dst.
    // R: 0.375 + 0.0625 = 0.4375; G: 0.1875 + 0.25 = 0.4375; B: 0.75 + 0.125 = 0.875;
    // A (same factors): 0.5625 + 0.0625 = 0.625.
    let mut s = BlendState {
        src: F::BLENDFACTOR_SRC_ALPHA,
        dst: F::BLENDFACTOR_INV_SRC_ALPHA,
        func: Func::BLENDFUNCTION_ADD,
        src_alpha: F::BLENDFACTOR_ONE,
        dst_alpha: F::BLENDFACTOR_ZERO,
        func_alpha: Func::BLENDFUNCTION_ADD,
        independent_alpha: false,
    };
    assert_eq!(blend(&s, &I).unwrap(), [0.4375, 0.4375, 0.875, 0.625]);
    // Independent alpha ONE/ZERO keeps the source alpha 0.75.
    s.independent_alpha = true;
    assert_eq!(blend(&s, &I).unwrap(), [0.4375, 0.4375, 0.875, 0.75]);
}

#[test]
fn min_max_apply_the_factors() {
    // Seed L10115: min(src*sf, dst*df). With SRC_ALPHA/ONE: R: min(0.375, 0.25) = 0.25.
    let s = BlendState {
        src: F::BLENDFACTOR_SRC_ALPHA,
        dst: F::BLENDFACTOR_ONE,
        func: Func::BLENDFUNCTION_MIN,
        src_alpha: F::BLENDFACTOR_ONE,
        dst_alpha: F::BLENDFACTOR_ONE,
        func_alpha: Func::BLENDFUNCTION_MIN,
        independent_alpha: false,
    };
    assert_eq!(blend(&s, &I).unwrap()[0], 0.25);
}

#[test]
fn clamping() {
    let c = [-0.5, 0.5, 1.5, f32::NAN];
    let u = clamp(c, ClampRange::Unorm);
    assert_eq!(&u[..3], &[0.0, 0.5, 1.0]);
    assert!(u[3].is_nan());
    assert_eq!(&clamp(c, ClampRange::Snorm)[..3], &[-0.5, 0.5, 1.0]);
    assert_eq!(
        &clamp(
            c,
            ClampRange::RtFormat {
                min: 0.0,
                max: 65504.0
            }
        )[..3],
        &[0.0, 0.5, 1.5]
    );
}

#[test]
fn every_logic_op() {
    // S = 0b1100, D = 0b1010 gives each op's truth table in the low 4 bits, read in the
    // order (S,D) = (1,1) (1,0) (0,1) (0,0) from bit 3 to bit 0.
    let (s, d) = (0b1100, 0b1010);
    let want = [
        0b0000, // CLEAR
        0b0001, // NOR
        0b0010, // AND_INVERTED (!S & D)
        0b0011, // COPY_INVERTED
        0b0100, // AND_REVERSE (S & !D)
        0b0101, // INVERT
        0b0110, // XOR
        0b0111, // NAND
        0b1000, // AND
        0b1001, // EQUIV
        0b1010, // NOOP
        0b1011, // OR_INVERTED
        0b1100, // COPY
        0b1101, // OR_REVERSE
        0b1110, // OR
        0b1111, // SET
    ];
    for (op, w) in want.iter().enumerate() {
        assert_eq!(logic_op(L(op as u32), s, d) & 0xf, *w, "LOGICOP {op:#x}");
    }
}

#[test]
fn compare_functions_and_nan() {
    let cases = [
        (Cf::COMPAREFUNCTION_ALWAYS, [true, true, true]),
        (Cf::COMPAREFUNCTION_NEVER, [false, false, false]),
        (Cf::COMPAREFUNCTION_LESS, [true, false, false]),
        (Cf::COMPAREFUNCTION_EQUAL, [false, true, false]),
        (Cf::COMPAREFUNCTION_LEQUAL, [true, true, false]),
        (Cf::COMPAREFUNCTION_GREATER, [false, false, true]),
        (Cf::COMPAREFUNCTION_NOTEQUAL, [true, false, true]),
        (Cf::COMPAREFUNCTION_GEQUAL, [false, true, true]),
    ];
    for (f, want) in cases {
        // src 0.25, 0.5, 0.75 against reference 0.5.
        let got = [0.25f32, 0.5, 0.75].map(|v| compare(f, v, 0.5).unwrap());
        assert_eq!(got, want, "{f:?}");
    }
    assert!(!compare(Cf::COMPAREFUNCTION_LEQUAL, f32::NAN, 0.5).unwrap());
    assert!(compare(Cf::COMPAREFUNCTION_NOTEQUAL, f32::NAN, 0.5).unwrap());
    assert!(matches!(
        compare(Cf(8), 0, 0),
        Err(ReservedValue {
            field: "Compare Function",
            value: 8,
            ..
        })
    ));
}

#[test]
fn stencil_ops_tests_and_write_masks() {
    let cases = [
        (Op::STENCILOP_KEEP, 0xff, 0x00, 0x01),
        (Op::STENCILOP_ZERO, 0x00, 0x00, 0x00),
        (Op::STENCILOP_REPLACE, 0x42, 0x42, 0x42),
        (Op::STENCILOP_INCRSAT, 0xff, 0x01, 0x02),
        (Op::STENCILOP_DECRSAT, 0xfe, 0x00, 0x00),
        (Op::STENCILOP_INCR, 0x00, 0x01, 0x02),
        (Op::STENCILOP_DECR, 0xfe, 0xff, 0x00),
        (Op::STENCILOP_INVERT, 0x00, 0xff, 0xfe),
    ];
    // Old values 0xff, 0x00, 0x01 with reference 0x42.
    for (op, a, b, c) in cases {
        let got = [0xffu8, 0x00, 0x01].map(|v| stencil_op(op, v, 0x42).unwrap());
        assert_eq!(got, [a, b, c], "{op:?}");
    }
    // (ref & mask) LESS (stencil & mask): ref 0x13, stencil 0x25, mask 0x0f -> 3 < 5.
    assert!(stencil_test(Cf::COMPAREFUNCTION_LESS, 0x13, 0x25, 0x0f).unwrap());
    // mask 0xf0 -> 0x10 < 0x20 still; GREATER fails.
    assert!(!stencil_test(Cf::COMPAREFUNCTION_GREATER, 0x13, 0x25, 0xf0).unwrap());
    // Write mask 0x0f keeps the old high nibble.
    assert_eq!(stencil_write(0xa5, 0x3c, 0x0f), 0xac);
}

#[test]
fn alpha_test_formats() {
    use gtsim_dataport::compare::{AlphaReference, alpha_test};
    // UNORM8: 0.5 -> 127.5 -> 128 (nearest even) equals the reference 128; 1.5 clamps to
    // 255.
    assert!(alpha_test(Cf::COMPAREFUNCTION_EQUAL, 0.5, AlphaReference::Unorm8(128)).unwrap());
    assert!(alpha_test(Cf::COMPAREFUNCTION_EQUAL, 1.5, AlphaReference::Unorm8(255)).unwrap());
    // FLOAT32: 0.5 < 128/255 = 0.50196...; compared unconverted.
    assert!(
        alpha_test(
            Cf::COMPAREFUNCTION_LESS,
            0.5,
            AlphaReference::Float32(128.0 / 255.0)
        )
        .unwrap()
    );
    assert!(
        !alpha_test(
            Cf::COMPAREFUNCTION_GREATER,
            f32::NAN,
            AlphaReference::Float32(0.0)
        )
        .unwrap()
    );
}

/// Seed 004 §12.1.10: a logic op combines the stored UNORM bits: XOR of source (1, 0,
/// 1, 1) = bytes ff 00 ff ff with destination 0f f0 ff 00 gives f0 f0 00 ff; on a
/// non-UNORM surface ("otherwise Logic Ops must be DISABLED") it is an error.
#[test]
fn logic_ops_act_on_unorm_bits_only() {
    use gtsim_dataport::rt_write::{RtState, RtWriteError, color_calc};
    use gtsim_mem::format::texel::Texel;
    use gtsim_spec::shared::SurfaceFormat as F;
    let cc = RtState {
        blend: None,
        constant: [0.0; 4],
        pre_clamp: None,
        post_clamp: None,
        logic_op: Some(L(0x6)),
        logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
        write_disable: [false; 4],
    };
    let src = Texel::Float([1.0, 0.0, 1.0, 1.0]);
    let got = color_calc(
        &cc,
        F::R8G8B8A8_UNORM,
        src,
        [0.0; 4],
        &[0x0f, 0xf0, 0xff, 0x00],
    )
    .unwrap();
    assert_eq!(got[..], [0xf0, 0xf0, 0x00, 0xff]);
    assert!(matches!(
        color_calc(&cc, F::R32_FLOAT, Texel::Float([1.0; 4]), [0.0; 4], &[0; 4]),
        Err(RtWriteError::Invalid(why)) if why.starts_with("Logic Ops are only supported on UNORM")
    ));
}

/// Seed 003's Logic Op Enable states no format restriction: on Ice Lake the op acts on
/// the stored bits of any format. XOR of source (1, 0, -1, 0.5) as R8G8B8A8_SNORM (7f
/// 00 81 40: 0.5 * 127 = 63.5 rounds to 64) with destination ff 0f 01 40 gives 80 0f
/// 80 00; R32_FLOAT 1.0 (3f800000) XOR 3f800000 is 0.
#[test]
fn logic_ops_act_on_any_format_on_ice_lake() {
    use gtsim_dataport::rt_write::{LogicOpFormats, RtState, color_calc};
    use gtsim_mem::format::texel::Texel;
    use gtsim_spec::shared::SurfaceFormat as F;
    let cc = RtState {
        blend: None,
        constant: [0.0; 4],
        pre_clamp: None,
        post_clamp: None,
        logic_op: Some(L(0x6)),
        logic_op_formats: LogicOpFormats::Any,
        write_disable: [false; 4],
    };
    let src = Texel::Float([1.0, 0.0, -1.0, 0.5]);
    let got = color_calc(
        &cc,
        F::R8G8B8A8_SNORM,
        src,
        [0.0; 4],
        &[0xff, 0x0f, 0x01, 0x40],
    )
    .unwrap();
    assert_eq!(got[..], [0x80, 0x0f, 0x80, 0x00]);
    let f = color_calc(
        &cc,
        F::R32_FLOAT,
        Texel::Float([1.0; 4]),
        [0.0; 4],
        &1.0f32.to_le_bytes(),
    )
    .unwrap();
    assert_eq!(f[..4], [0; 4]);
}
