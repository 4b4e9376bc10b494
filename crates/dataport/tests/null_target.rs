//! A null render target (seed 000 §2.12.2 SURFTYPE_NULL, or a write to the Null Render
//! Target): nothing is written, but its colour calculator still runs the alpha test
//! (seed 004 §12.1.3: "a pixel that fails it is discarded before the depth and stencil
//! tests and counts"). A depth-only framebuffer relies on it: piglit's
//! `fbo-alphatest-nocolor` kills pixels by alpha test with no colour buffer.

use gtsim_dataport::compare::AlphaReference;
use gtsim_dataport::rt_message::{RenderTarget, RtSubtype, RtWrite};
use gtsim_dataport::rt_path::{PixelWrites, RenderTargets, RtMode};
use gtsim_dataport::rt_write::RtState;
use gtsim_mem::{AddressSpace, Memory};
use gtsim_message::MessageError;
use gtsim_spec::shared::ThreeDCompareFunction as F;

/// A null render target whose BLEND_STATE alpha test keeps alpha > 0.5.
fn null_target() -> RenderTarget {
    RenderTarget {
        surface: RenderTarget::null_surface(),
        lod: 0,
        min_array_element: 0,
        array_extent: 0,
        clear_color: [false; 4],
        clear_value: None,
        cc: RtState {
            blend: None,
            constant: [0.0; 4],
            pre_clamp: None,
            post_clamp: None,
            logic_op: None,
            logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
            write_disable: [false; 4],
        },
        alpha_test: Some((F::COMPAREFUNCTION_GREATER, AlphaReference::Float32(0.5))),
        alpha_coverage: Default::default(),
        mcs: None,
    }
}

/// A SIMD8 write to the null target: slots 0-7 lit, alpha 0.25 in the even slots and
/// 0.75 in the odd ones. The visible pixels are the odd slots (0b1010_1010), and no
/// memory is touched (the address space has no pages: any access would fault).
#[test]
fn a_null_target_alpha_tests_and_writes_nothing() {
    let mut mem = AddressSpace::new();
    let reg = |f: &dyn Fn(usize) -> f32| {
        let mut r = [0u8; 32];
        for i in 0..8 {
            r[i * 4..i * 4 + 4].copy_from_slice(&f(i).to_bits().to_le_bytes());
        }
        r
    };
    let payload = vec![
        reg(&|_| 1.0),
        reg(&|_| 0.0),
        reg(&|_| 0.0),
        reg(&|i| if i % 2 == 0 { 0.25 } else { 0.75 }),
    ];
    let w = RtWrite {
        subtype: RtSubtype::Simd8Lo,
        slot_group_hi: false,
        last: true,
        binding_table_index: 0,
        header: None,
        extended: Default::default(),
    };
    let mut known = RenderTargets::default();
    let mut slots = [(0, 0); 32];
    for (i, s) in slots.iter_mut().enumerate().take(8) {
        *s = (i as u32, 0);
    }
    let mut p = PixelWrites {
        targets: &mut known,
        slots,
        lit: 0xff,
        visible: 0,
        late: None,
        mode: RtMode::Write,
        computes_depth: false,
        rt_array_index: 0,
        omask: false,
        computes_stencil: false,
        samples: None,
        aa_alpha: None,
        coarse: None,
    };
    let resolve = |_: &dyn Memory,
                   _: Option<u8>,
                   _: u8|
     -> Result<Option<RenderTarget>, MessageError> { Ok(Some(null_target())) };
    p.write(&mut mem, &w, &payload, &resolve).unwrap();
    assert_eq!(p.visible, 0b1010_1010);
    // The draw's render targets do not list it (nothing to show or read back).
    assert!(known.written().is_empty());
}
