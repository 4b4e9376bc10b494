//! The depth and stencil buffers and their tests on Gen9+: 3DSTATE_DEPTH_BUFFER and
//! 3DSTATE_STENCIL_BUFFER with 48-bit addresses and Surface QPitch, the tests and
//! stencil reference values of 3DSTATE_WM_DEPTH_STENCIL (no DEPTH_STENCIL_STATE in
//! dynamic state), CC_VIEWPORT's depth range (seed 003 3DSTATE_DEPTH_BUFFER_BODY,
//! 3DSTATE_WM_DEPTH_STENCIL_BODY, CC_VIEWPORT).

use super::{DrawFront, get};
use crate::bases::Bases;
use crate::bases::address;
use crate::latched::LatchedState;
use gtsim_dataport::depth_stencil::{DepthFormat, DepthStencilState as PixelState, StencilFace};
use gtsim_mem::Memory;
use gtsim_mem::layout::{ArraySpacing, SurfaceDesc, SurfaceType};
use gtsim_pipe3d::draw::{DepthBuffer, DepthOp, DrawError, unsupported};
use gtsim_spec::gen11::CcViewport;
use gtsim_spec::gen11::ThreeDStateWmHzOp;
use gtsim_spec::gen11::three_d_state_depth_buffer::SurfaceType as St;

fn bad(why: String) -> DrawError {
    DrawError::State {
        command: "3DSTATE_DEPTH_BUFFER",
        why,
    }
}

/// The draw's depth buffer; `None` for SURFTYPE_NULL (every test passes, nothing is
/// written). A depth buffer is Y-tiled with 8x4 alignment on Gen9+ (Mesa isl
/// isl_gfx9_choose_image_alignment_el), its slices Surface QPitch rows apart; the
/// separate stencil buffer is W-tiled with 8x8 alignment, its Surface Pitch twice the
/// W-major row's bytes - 1, as on Gen7 ([`crate::surface::w_major_pitch`]). It has the
/// draw's `samples` per pixel, interleaved.
pub(super) fn depth_buffer(
    f: &DrawFront,
    mem: &dyn Memory,
    samples: u32,
) -> Result<Option<DepthBuffer>, DrawError> {
    depth_buffer_of(f.state, &f.bases, mem, None, samples)
}

/// [`depth_buffer`] from the latched state alone, with `samples` per pixel (their
/// samples interleaved in the plane, as Mesa's isl lays out every multisampled depth
/// and stencil surface on Gen8+: isl_gfx8_choose_msaa_layout requires
/// ISL_MSAA_LAYOUT_INTERLEAVED for them). `stencil` says whether the stencil buffer is
/// bound: `None` for a draw, which binds it when 3DSTATE_WM_DEPTH_STENCIL tests or
/// writes stencil; `Some(clear)` for 3DSTATE_WM_HZ_OP, which ignores that state and
/// binds it exactly when it clears stencil (iris's HiZ depth clears leave the stencil
/// test of the last draw latched and the stencil buffer disabled).
fn depth_buffer_of(
    s: &LatchedState,
    bases: &Bases,
    mem: &dyn Memory,
    stencil: Option<bool>,
    samples: u32,
) -> Result<Option<DepthBuffer>, DrawError> {
    let d = get(&s.depth_buffer);
    if d.surface_type == St::SURFTYPE_NULL {
        return Ok(None);
    }
    // With Hierarchical Depth Buffer Enable, HiZ holds no data the model needs: the
    // depth buffer always has the true values, as the Gen7 model keeps them (seed 003
    // L17382, HiZ auxiliary surface).
    let ty = match d.surface_type {
        // 0 is SURFTYPE_1D (Mesa genxml gen11.xml; the seed's table omits it), laid out
        // as a 2D surface of height 1, as Gen7's is (seed 004 §11.5.5.1).
        St(0) | St::SURFTYPE_2D | St::SURFTYPE_CUBE => SurfaceType::D2,
        other => {
            return Err(unsupported(
                format!(
                    "a {} depth buffer on Gen11",
                    other.name().unwrap_or("reserved")
                ),
                "seed 003 3DSTATE_DEPTH_BUFFER_BODY",
            ));
        }
    };
    let format = DepthFormat::from_field(d.surface_format.0).map_err(|e| bad(e.to_string()))?;
    let bytes = if format == DepthFormat::D16Unorm {
        2
    } else {
        4
    };
    let min = u32::from(d.minimum_array_element);
    let faces = if d.surface_type == St::SURFTYPE_CUBE {
        6
    } else {
        1
    };
    let layers = (u32::from(d.depth) + 1) * faces + min;
    let (w, h, levels) = (
        u32::from(d.width) + 1,
        u32::from(d.height) + 1,
        u32::from(d.lod) + 1,
    );
    let qpitch = u32::from(d.surface_qpitch) << 2;
    let desc = SurfaceDesc {
        ty,
        halign: 8,
        valign: 4,
        array_spacing: ArraySpacing::QPitch(qpitch),
        ..SurfaceDesc::depth(
            w,
            h,
            layers,
            levels,
            samples,
            bytes,
            u64::from(d.surface_pitch) + 1,
        )
    }
    // The depth operations address the samples in the plane (`DepthBuffer::samples`).
    .interleaved_plane();
    let ds = get(&s.wm_depth_stencil);
    let stencil_needed =
        stencil.unwrap_or(ds.stencil_test_enable || ds.stencil_buffer_write_enable);
    let stencil = if stencil_needed {
        let sb = get(&s.stencil_buffer);
        if !sb.stencil_buffer_enable {
            return Err(DrawError::State {
                command: "3DSTATE_STENCIL_BUFFER",
                why: "the stencil test or write is enabled with no stencil buffer".into(),
            });
        }
        Some((
            address(sb.surface_base_address),
            SurfaceDesc {
                ty,
                array_spacing: ArraySpacing::QPitch(u32::from(sb.surface_qpitch) << 2),
                ..SurfaceDesc::separate_stencil(
                    w,
                    h,
                    layers,
                    levels,
                    samples,
                    crate::surface::w_major_pitch(sb.surface_pitch.into()),
                )
            }
            .interleaved_plane(),
        ))
    } else {
        None
    };
    let cc = if ds.depth_test_enable || ds.depth_buffer_write_enable {
        let addr = address(
            bases
                .dynamic
                .wrapping_add(get(&s.viewport_state_pointers_cc).cc_viewport_pointer),
        );
        gtsim_pipe3d::state::read_indirect(
            mem,
            "CC_VIEWPORT",
            addr,
            CcViewport::DWORDS,
            CcViewport::unpack,
        )?
    } else {
        CcViewport {
            minimum_depth: 0.0,
            maximum_depth: 1.0,
        }
    };
    let (front_ref, back_ref) = (
        ds.stencil_reference_value,
        ds.backface_stencil_reference_value,
    );
    let face = |back: bool| {
        let two = ds.double_sided_stencil_enable && back;
        PixelState {
            depth_test: ds.depth_test_enable.then_some(ds.depth_test_function),
            depth_write: ds.depth_buffer_write_enable && d.depth_write_enable,
            depth_range: [cc.minimum_depth, cc.maximum_depth],
            stencil: ds.stencil_test_enable.then_some(if two {
                StencilFace {
                    func: ds.backface_stencil_test_function,
                    fail: ds.backface_stencil_fail_op,
                    depth_fail: ds.backface_stencil_pass_depth_fail_op,
                    pass: ds.backface_stencil_pass_depth_pass_op,
                    reference: back_ref,
                    test_mask: ds.backface_stencil_test_mask,
                    write_mask: ds.backface_stencil_write_mask,
                }
            } else {
                StencilFace {
                    func: ds.stencil_test_function,
                    fail: ds.stencil_fail_op,
                    depth_fail: ds.stencil_pass_depth_fail_op,
                    pass: ds.stencil_pass_depth_pass_op,
                    reference: front_ref,
                    test_mask: ds.stencil_test_mask,
                    write_mask: ds.stencil_write_mask,
                }
            }),
            stencil_write: ds.stencil_buffer_write_enable && d.stencil_write_enable,
        }
    };
    let clear = get(&s.clear_params);
    Ok(Some(DepthBuffer {
        base: address(d.surface_base_address),
        desc,
        samples,
        format,
        lod: u32::from(d.lod),
        slice: min,
        array_extent: (u32::from(d.depth) + 1) * faces - 1,
        stencil,
        front: face(false),
        back: face(true),
        clear_value: clear
            .depth_clear_value_valid
            .then(|| format.encode(clear.depth_clear_value)),
        stencil_clear: None,
        op: DepthOp::Test,
    }))
}

/// 3DSTATE_WM_HZ_OP (seed 003 3DSTATE_WM_HZ_OP_BODY), carried out when the command
/// arrives, with no 3DPRIMITIVE: Depth Buffer Clear Enable stores 3DSTATE_CLEAR_PARAMS's
/// Depth Clear Value and Stencil Buffer Clear Enable the Stencil Clear Value into the
/// Clear Rectangle (maximum exclusive, as Mesa's blorp programs it) or, with Full
/// Surface Depth and Stencil Clear, the whole level and slice. The depth and HiZ
/// resolves have nothing to do: the depth buffer always holds the true values.
pub fn wm_hz_op(
    s: &LatchedState,
    registers: &dyn gtsim_pipe3d::state::Registers,
    op: &ThreeDStateWmHzOp,
    mem: &mut dyn Memory,
) -> Result<(), DrawError> {
    if !op.depth_buffer_clear_enable && !op.stencil_buffer_clear_enable {
        return Ok(());
    }
    // Number of Multisamples: log2 of the depth buffer's samples per pixel.
    let samples = match op.number_of_multisamples {
        n @ 0..=4 => 1u32 << n,
        other => {
            return Err(DrawError::State {
                command: "3DSTATE_WM_HZ_OP",
                why: format!("Number of Multisamples {other} is reserved"),
            });
        }
    };
    let bases = Bases::latched(s, registers);
    let Some(mut db) = depth_buffer_of(
        s,
        &bases,
        &*mem,
        Some(op.stencil_buffer_clear_enable),
        samples,
    )?
    else {
        return Err(unsupported(
            "3DSTATE_WM_HZ_OP with a null depth buffer (a stencil-only clear)",
            "seed 003 3DSTATE_WM_HZ_OP_BODY",
        ));
    };
    // Seed 003 3DSTATE_CLEAR_PARAMS Depth Clear Value Valid: clear, the value would
    // come from the clear primitive's depth, and a 3DSTATE_WM_HZ_OP clear has none.
    if op.depth_buffer_clear_enable && db.clear_value.is_none() {
        return Err(DrawError::State {
            command: "3DSTATE_WM_HZ_OP",
            why: "a depth clear while 3DSTATE_CLEAR_PARAMS Depth Clear Value Valid is clear: \
                  the value would come from a primitive, and the operation draws none"
                .into(),
        });
    }
    db.front.depth_write = op.depth_buffer_clear_enable;
    db.back.depth_write = op.depth_buffer_clear_enable;
    db.stencil_clear = op
        .stencil_buffer_clear_enable
        .then_some(op.stencil_clear_value);
    if !op.stencil_buffer_clear_enable {
        db.stencil = None;
    }
    db.op = DepthOp::Clear;
    // The rectangle is in pixels of the level (its samples are cleared with it).
    let d = get(&s.depth_buffer);
    let (w, h) = (
        ((u32::from(d.width) + 1) >> db.lod).max(1),
        ((u32::from(d.height) + 1) >> db.lod).max(1),
    );
    let (x0, y0, x1, y1) = if op.full_surface_depth_and_stencil_clear {
        (0, 0, w, h)
    } else {
        (
            u32::from(op.clear_rectangle_x_min).min(w),
            u32::from(op.clear_rectangle_y_min).min(h),
            u32::from(op.clear_rectangle_x_max).min(w),
            u32::from(op.clear_rectangle_y_max).min(h),
        )
    };
    let pixels: Vec<(u32, u32)> = (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .collect();
    // Every sample of each pixel in the rectangle.
    db.access()
        .clear_samples(mem, &pixels)
        .map_err(|e| DrawError::State {
            command: "3DSTATE_WM_HZ_OP",
            why: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gtsim_mem::AddressSpace;
    use gtsim_spec::gen11::*;

    struct NoRegisters;
    impl gtsim_pipe3d::state::Registers for NoRegisters {
        fn register(&self, _: u32) -> u32 {
            0
        }
    }

    /// An 8x4 D32_FLOAT depth buffer at 0x10000 (one Y tile: 128-byte rows), Depth Clear
    /// Value 0.5 valid, and the stencil test of an earlier draw still latched in
    /// 3DSTATE_WM_DEPTH_STENCIL with no stencil buffer: what iris leaves before a HiZ
    /// depth clear (piglit `arb_framebuffer_object-depth-stencil-blit`).
    fn depth_only_with_stale_stencil_test() -> LatchedState {
        LatchedState {
            depth_buffer: Some(ThreeDStateDepthBuffer {
                surface_type: St::SURFTYPE_2D,
                surface_format: three_d_state_depth_buffer::SurfaceFormat(1),
                surface_pitch: 127,
                surface_base_address: 0x10000,
                width: 7,
                height: 3,
                ..Default::default()
            }),
            clear_params: Some(ThreeDStateClearParams {
                depth_clear_value: 0.5,
                depth_clear_value_valid: true,
            }),
            wm_depth_stencil: Some(ThreeDStateWmDepthStencil {
                stencil_test_enable: true,
                stencil_buffer_write_enable: true,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// Seed 003 3DSTATE_WM_HZ_OP_BODY: the operation takes its depth and stencil work
    /// from its own enables, not from 3DSTATE_WM_DEPTH_STENCIL (which configures
    /// draws). A depth clear with a stale stencil test latched and the stencil buffer
    /// disabled clears the depth buffer: the first pixel at offset 0 and the last,
    /// (7, 3), in the Y tile's second 16-byte column (bytes 28-31 of row 3: 512 + 3 x 16
    /// + 12). A stencil clear with no stencil buffer is still refused by name.
    #[test]
    fn a_depth_clear_ignores_the_stencil_test_latched_for_draws() {
        let s = depth_only_with_stale_stencil_test();
        let mut mem = AddressSpace::new();
        mem.map(0x10000, 0x1000);
        let op = ThreeDStateWmHzOp {
            depth_buffer_clear_enable: true,
            full_surface_depth_and_stencil_clear: true,
            ..Default::default()
        };
        wm_hz_op(&s, &NoRegisters, &op, &mut mem).unwrap();
        for offset in [0u64, 572] {
            let mut v = [0u8; 4];
            mem.read(0x10000 + offset, &mut v).unwrap();
            assert_eq!(f32::from_le_bytes(v), 0.5, "offset {offset}");
        }
        let op = ThreeDStateWmHzOp {
            stencil_buffer_clear_enable: true,
            full_surface_depth_and_stencil_clear: true,
            ..Default::default()
        };
        let e = wm_hz_op(&s, &NoRegisters, &op, &mut mem).unwrap_err();
        assert!(
            matches!(
                &e,
                DrawError::State {
                    command: "3DSTATE_STENCIL_BUFFER",
                    ..
                }
            ),
            "{e}"
        );
    }
}
