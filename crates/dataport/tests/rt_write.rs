//! One pixel through the colour path into RGBA8 and RGBA8 UINT, worked by hand.

use gtsim_dataport::blend::{BlendState, ClampRange};
use gtsim_dataport::rt_write::{RtState, RtWriteError, color_calc};
use gtsim_mem::format::texel::Texel;
use gtsim_spec::shared::{
    SurfaceFormat as Sf, ThreeDColorBufferBlendFactor as F, ThreeDColorBufferBlendFunction as Func,
    ThreeDLogicOpFunction as L,
};

const ALPHA_BLEND: BlendState = BlendState {
    src: F::BLENDFACTOR_SRC_ALPHA,
    dst: F::BLENDFACTOR_INV_SRC_ALPHA,
    func: Func::BLENDFUNCTION_ADD,
    src_alpha: F::BLENDFACTOR_ONE,
    dst_alpha: F::BLENDFACTOR_ZERO,
    func_alpha: Func::BLENDFUNCTION_ADD,
    independent_alpha: false,
};

const PLAIN: RtState = RtState {
    blend: None,
    constant: [0.0; 4],
    pre_clamp: Some(ClampRange::Unorm),
    post_clamp: None,
    logic_op: None,
    logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
    write_disable: [false; 4],
};

#[test]
fn alpha_blend_into_rgba8() {
    // src (1, 0.5, 0, 0.5) over dst (0, 255, 0, 255) = (0, 1, 0, 1):
    // R = 0.5*1 + 0.5*0 = 0.5 -> 127.5 -> 128 (nearest even); G = 0.25 + 0.5 = 0.75 ->
    // 191.25 -> 191; B = 0; A = 0.25 + 0.5 = 0.75 -> 191.
    let s = RtState {
        blend: Some(ALPHA_BLEND),
        post_clamp: Some(ClampRange::Unorm),
        ..PLAIN
    };
    let out = color_calc(
        &s,
        Sf::R8G8B8A8_UNORM,
        Texel::Float([1.0, 0.5, 0.0, 0.5]),
        [0.0; 4],
        &[0, 255, 0, 255],
    )
    .unwrap();
    assert_eq!(out, vec![128, 191, 0, 191]);
}

#[test]
fn pre_blend_clamp_and_write_masks() {
    // No blending: (1.5, -1, 0.25, 1) clamps to (1, 0, 0.25, 1) -> (255, 0, 63.75 -> 64,
    // 255); green and alpha write-disabled keep the destination's 0x11 and 0x44.
    let s = RtState {
        write_disable: [false, true, false, true],
        ..PLAIN
    };
    let out = color_calc(
        &s,
        Sf::R8G8B8A8_UNORM,
        Texel::Float([1.5, -1.0, 0.25, 1.0]),
        [0.0; 4],
        &[0x00, 0x11, 0x22, 0x44],
    )
    .unwrap();
    assert_eq!(out, vec![255, 0x11, 64, 0x44]);
}

#[test]
fn logic_op_xor_on_stored_bits() {
    // src (1, 0, 0, 1) -> (ff, 00, 00, ff); XOR dst (0f, f0, aa, 55) -> (f0, f0, aa, aa).
    let s = RtState {
        logic_op: Some(L::LOGICOP_XOR),
        logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
        ..PLAIN
    };
    let out = color_calc(
        &s,
        Sf::R8G8B8A8_UNORM,
        Texel::Float([1.0, 0.0, 0.0, 1.0]),
        [0.0; 4],
        &[0x0f, 0xf0, 0xaa, 0x55],
    )
    .unwrap();
    assert_eq!(out, vec![0xf0, 0xf0, 0xaa, 0xaa]);
}

#[test]
fn integer_targets_saturate_and_refuse_blending() {
    // R8G8B8A8_UINT: 300 saturates to 255 (implied clamp to the format).
    let out = color_calc(
        &PLAIN,
        Sf::R8G8B8A8_UINT,
        Texel::Uint([300, 7, 0, 1]),
        [0.0; 4],
        &[0; 4],
    )
    .unwrap();
    assert_eq!(out, vec![255, 7, 0, 1]);
    let s = RtState {
        blend: Some(ALPHA_BLEND),
        ..PLAIN
    };
    let e = color_calc(
        &s,
        Sf::R8G8B8A8_UINT,
        Texel::Uint([1, 2, 3, 4]),
        [0.0; 4],
        &[0; 4],
    )
    .unwrap_err();
    assert!(
        matches!(e, RtWriteError::Invalid(why)
            if why.starts_with("blending must be disabled on SINT/UINT render targets")),
        "{e:?}"
    );
    let s = RtState {
        blend: Some(ALPHA_BLEND),
        logic_op: Some(L::LOGICOP_COPY),
        logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
        ..PLAIN
    };
    let e = color_calc(
        &s,
        Sf::R8G8B8A8_UNORM,
        Texel::Float([0.0; 4]),
        [0.0; 4],
        &[0; 4],
    )
    .unwrap_err();
    assert!(
        matches!(e, RtWriteError::Invalid(why)
            if why.starts_with("Color Buffer Blending and Logic Ops must not be enabled together")),
        "{e:?}"
    );
}
