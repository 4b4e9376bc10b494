//! Render targets as the render target write sees them: the binding table's surface
//! (seed 000 §2.12.2), its BLEND_STATE entry and COLOR_CALC_STATE (seed 004 §12.2).

use crate::front::Pointers;
use crate::indirect::{binding_table_surface, dynamic_state};
use crate::surface_state::{SurfaceStateError, Use, surface_from_state};
use gtsim_dataport::blend::{BlendState, ClampRange};
use gtsim_dataport::compare::AlphaReference;
use gtsim_dataport::rt_message::{AlphaCoverage, RenderTarget};
use gtsim_dataport::rt_write::RtState;
use gtsim_mem::Memory;
use gtsim_mem::layout::SurfaceType as LayoutType;
use gtsim_pipe3d::draw::DrawError;
use gtsim_spec::gen7::color_calc_state::AlphaTestFormat;
use gtsim_spec::gen7::{BlendStateEntry, ColorCalcState, blend_state_entry::ColorClampRange};

/// The render target behind binding table entry `bti`, with BLEND_STATE entry `rti`; a
/// null surface (seed 000 §2.12.2 SURFTYPE_NULL) gives a null render target
/// (`RenderTarget::is_null`: its tests run, nothing is written).
pub(crate) fn render_target(
    p: &Pointers,
    mem: &dyn Memory,
    bti: u8,
    rti: u8,
) -> Result<Option<RenderTarget>, DrawError> {
    let (_, rss) = binding_table_surface(mem, &p.bases, p.ps.binding_table, bti)?;
    let (mut surface, lod) = match surface_from_state(&rss, Use::RenderTarget) {
        Ok(s) => s,
        // A null surface keeps its colour calculator's tests and writes nothing
        // (`RenderTarget::is_null`): a depth-only framebuffer's alpha test kills pixels.
        Err(SurfaceStateError::Null) => (RenderTarget::null_surface(), 0),
        Err(e) => {
            return Err(DrawError::State {
                command: "RENDER_SURFACE_STATE",
                why: format!("render target {bti}: {e}"),
            });
        }
    };
    // Seed 000 §2.12.2 Minimum Array Element: for render targets "the minimum 'R'
    // coordinate on the LOD currently being rendered to", and Depth (for 1D/2D: array
    // elements - 1, its range "reduced by one for each increase from zero of Minimum
    // Array Element") counts the elements of the view from there. The slices the view
    // reaches, up to Minimum Array Element + Depth, are part of the surface's layout
    // (crocus renders into layer 12 of a 15-layer array with Depth 2 and Minimum Array
    // Element 12).
    let min = u32::from(rss.minimum_array_element);
    match surface.desc.ty {
        LayoutType::D1 | LayoutType::D2 => {
            surface.desc.depth = surface.desc.depth.max(min + surface.desc.depth);
        }
        LayoutType::Cube => surface.desc.depth = surface.desc.depth.max(min / 6 + 1),
        _ => {}
    }
    let b = dynamic_state(
        mem,
        p.bases.dynamic_bound,
        "BLEND_STATE",
        p.blend.wrapping_add(rti as u64 * 8),
        BlendStateEntry::DWORDS,
        BlendStateEntry::unpack,
    )?;
    let range = |r: ColorClampRange| match r {
        ColorClampRange::COLORCLAMP_UNORM => ClampRange::Unorm,
        ColorClampRange::COLORCLAMP_SNORM => ClampRange::Snorm,
        _ => ClampRange::of_format(surface.format),
    };
    let cc = &color_calc_state(p, mem)?;
    Ok(Some(RenderTarget {
        surface,
        lod,
        min_array_element: rss.minimum_array_element as u32,
        // Seed 000 §3.9.11: an index past Depth (for a cube, past face 5; for a 3D
        // surface, past Render Target View Extent) is out of range.
        array_extent: match surface.desc.ty {
            LayoutType::Cube => 5u32.saturating_sub(min),
            LayoutType::D3 => u32::from(rss.render_target_view_extent),
            _ => u32::from(rss.depth),
        },
        clear_color: [
            rss.red_clear_color.0 == 1,
            rss.green_clear_color.0 == 1,
            rss.blue_clear_color.0 == 1,
            rss.alpha_clear_color.0 == 1,
        ],
        clear_value: None,
        cc: RtState {
            blend: b.color_buffer_blend_enable.then_some(BlendState {
                src: b.source_blend_factor,
                dst: b.destination_blend_factor,
                func: b.color_blend_function,
                src_alpha: b.source_alpha_blend_factor,
                dst_alpha: b.destination_alpha_blend_factor,
                func_alpha: b.alpha_blend_function,
                independent_alpha: b.independent_alpha_blend_enable,
            }),
            constant: [
                cc.blend_constant_color_red,
                cc.blend_constant_color_green,
                cc.blend_constant_color_blue,
                cc.blend_constant_color_alpha,
            ],
            pre_clamp: b
                .pre_blend_color_clamp_enable
                .then(|| range(b.color_clamp_range)),
            post_clamp: b
                .post_blend_color_clamp_enable
                .then(|| range(b.color_clamp_range)),
            logic_op: b.logic_op_enable.then_some(b.logic_op_function),
            logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
            write_disable: [
                b.write_disable_red,
                b.write_disable_green,
                b.write_disable_blue,
                b.write_disable_alpha,
            ],
        },
        alpha_coverage: AlphaCoverage {
            to_coverage: b.alpha_to_coverage_enable,
            to_one: b.alpha_to_one_enable,
        },
        mcs: match crate::sampling::mcs_surface(&rss).filter(|_| surface.desc.width != 0) {
            None => None,
            // The MCS has the render target's slices, up to those the view reaches.
            Some(Ok(mut m)) => {
                m.desc.depth = surface.desc.depth;
                Some(m)
            }
            Some(Err(e)) => {
                return Err(DrawError::State {
                    command: "RENDER_SURFACE_STATE",
                    why: format!("render target {bti}: {e}"),
                });
            }
        },
        alpha_test: b.alpha_test_enable.then(|| {
            (
                b.alpha_test_function,
                if cc.alpha_test_format == AlphaTestFormat::ALPHATEST_FLOAT32 {
                    AlphaReference::Float32(cc.alpha_reference_value_as_float32)
                } else {
                    AlphaReference::Unorm8(cc.alpha_reference_value_as_unorm8 as u8)
                },
            )
        }),
    }))
}

/// COLOR_CALC_STATE.
pub(crate) fn color_calc_state(
    p: &Pointers,
    mem: &dyn Memory,
) -> Result<ColorCalcState, DrawError> {
    dynamic_state(
        mem,
        p.bases.dynamic_bound,
        "COLOR_CALC_STATE",
        p.color_calc,
        ColorCalcState::DWORDS,
        ColorCalcState::unpack,
    )
}
