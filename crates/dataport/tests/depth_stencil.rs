//! Depth and stencil for one pixel, worked by hand from seed 004 §12.1.4–12.1.11.

use gtsim_dataport::depth_stencil::{DepthFormat, DepthStencilState, StencilFace, depth_stencil};
use gtsim_spec::shared::{ThreeDCompareFunction as Cf, ThreeDStencilOperation as Op};

const LESS: DepthStencilState = DepthStencilState {
    depth_test: Some(Cf::COMPAREFUNCTION_LESS),
    depth_write: true,
    depth_range: [0.0, 1.0],
    stencil: None,
    stencil_write: false,
};

#[test]
fn unorm_depth_quantization() {
    // D16: 0.5 * 65535 = 32767.5 -> 32768 (nearest even); D24: 0.25 * 16777215 =
    // 4194303.75 -> 4194304.
    assert_eq!(DepthFormat::D16Unorm.encode(0.5), 32768);
    assert_eq!(DepthFormat::D24Unorm.encode(0.25), 4_194_304);
    assert_eq!(DepthFormat::D24Unorm.encode(1.0), 0xff_ffff);
    assert_eq!(DepthFormat::D32Float.encode(0.5), 0x3f00_0000);
    // 2 is D24_UNORM_S8_UINT, a combined format: not modelled (separate stencil only).
    assert!(matches!(
        DepthFormat::from_field(2),
        Err(gtsim_dataport::ReservedValue {
            field: "3DSTATE_DEPTH_BUFFER Surface Format",
            value: 2,
            ..
        })
    ));
}

#[test]
fn depth_test_compares_in_the_buffer_format_and_writes_on_pass() {
    // Source 0.5 against stored D16 32768 (= 0.5 quantized): LESS fails (equal), LEQUAL
    // passes and writes 32768.
    let r = depth_stencil(&LESS, DepthFormat::D16Unorm, 0.5, 32768, 0).unwrap();
    assert!(!r.pass && r.depth.is_none());
    let lequal = DepthStencilState {
        depth_test: Some(Cf::COMPAREFUNCTION_LEQUAL),
        ..LESS
    };
    let r = depth_stencil(&lequal, DepthFormat::D16Unorm, 0.5, 32768, 0).unwrap();
    assert_eq!((r.pass, r.depth), (true, Some(32768)));
    // Clamped to the CC_VIEWPORT range [0.25, 0.75]: source 0.9 becomes 0.75 < stored 0.8.
    let ranged = DepthStencilState {
        depth_range: [0.25, 0.75],
        ..LESS
    };
    let r = depth_stencil(&ranged, DepthFormat::D32Float, 0.9, 0.8f32.to_bits(), 0).unwrap();
    assert_eq!((r.pass, r.depth), (true, Some(0.75f32.to_bits())));
    // Writes disabled: pass without a depth write.
    let ro = DepthStencilState {
        depth_write: false,
        ..LESS
    };
    assert_eq!(
        depth_stencil(&ro, DepthFormat::D32Float, 0.1, 0.5f32.to_bits(), 0)
            .unwrap()
            .depth,
        None
    );
}

#[test]
fn stencil_ops_follow_the_test_results() {
    let face = StencilFace {
        func: Cf::COMPAREFUNCTION_EQUAL,
        fail: Op::STENCILOP_ZERO,
        depth_fail: Op::STENCILOP_INCR,
        pass: Op::STENCILOP_REPLACE,
        reference: 5,
        test_mask: 0xff,
        write_mask: 0x0f,
    };
    let s = DepthStencilState {
        stencil: Some(face),
        stencil_write: true,
        ..LESS
    };
    // Stencil 0x35 != 5: fail -> ZERO, masked by 0x0f -> 0x30; the pixel is discarded.
    let r = depth_stencil(&s, DepthFormat::D32Float, 0.1, 0.5f32.to_bits(), 0x35).unwrap();
    assert_eq!((r.pass, r.stencil, r.depth), (false, Some(0x30), None));
    // Stencil 5 passes, depth 0.9 < 0.5 fails -> INCR -> 6; discarded, no depth write.
    let r = depth_stencil(&s, DepthFormat::D32Float, 0.9, 0.5f32.to_bits(), 5).unwrap();
    assert_eq!((r.pass, r.stencil, r.depth), (false, Some(6), None));
    // Both pass -> REPLACE with 5 (already 5); depth written.
    let r = depth_stencil(&s, DepthFormat::D32Float, 0.1, 0.5f32.to_bits(), 5).unwrap();
    assert_eq!(
        (r.pass, r.stencil, r.depth),
        (true, Some(5), Some(0.1f32.to_bits()))
    );
    // Stencil writes disabled: no stencil value, even though the op would change it.
    let ro = DepthStencilState {
        stencil_write: false,
        ..s
    };
    assert_eq!(
        depth_stencil(&ro, DepthFormat::D32Float, 0.9, 0.5f32.to_bits(), 5)
            .unwrap()
            .stencil,
        None
    );
}
