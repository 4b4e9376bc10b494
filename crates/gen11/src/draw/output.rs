//! Render targets as a Gen11 render target write sees them: the PS binding table's
//! RENDER_SURFACE_STATE (seed 003, 16 dwords) in the Gen9+ layout, the Gen8+
//! BLEND_STATE (a header dword, then two dwords per render target: seed 003 BLEND_STATE,
//! BLEND_STATE_ENTRY), COLOR_CALC_STATE, and a fast clear's clear value.
//!
//! Auxiliary surfaces (CCS_D, CCS_E) hold no data the model needs: the main surface
//! always has the true values (a fast clear stores the clear value into it at once, a
//! resolve has nothing left to do), as the Gen7 model keeps its MCS and HiZ.

use super::{DrawFront, get};
use crate::bases::{address, binding_table_entry};
use gtsim_dataport::blend::{BlendState as Blend, ClampRange};
use gtsim_dataport::compare::AlphaReference;
use gtsim_dataport::rt_message::{AlphaCoverage, RenderTarget};
use gtsim_dataport::rt_write::RtState;
use gtsim_mem::Memory;
use gtsim_mem::layout::{ArraySpacing, SurfaceType};
use gtsim_pipe3d::draw::{DrawError, unsupported};
use gtsim_pipe3d::state::read_indirect;
use gtsim_spec::gen11::render_surface_state::{AuxiliarySurfaceMode as Aux, SurfaceType as St};
use gtsim_spec::gen11::{BlendState, BlendStateEntry, ColorCalcState, RenderSurfaceState};

fn bad(bti: u8, why: impl std::fmt::Display) -> DrawError {
    DrawError::State {
        command: "RENDER_SURFACE_STATE",
        why: format!("render target {bti}: {why}"),
    }
}

/// The address and RENDER_SURFACE_STATE of entry `bti` of the binding table at `table`
/// (a graphics address).
pub(super) fn surface_state(
    f: &DrawFront,
    mem: &dyn Memory,
    table: u64,
    bti: u8,
) -> Result<(u64, RenderSurfaceState), DrawError> {
    let at = binding_table_entry(mem, &f.bases, table, bti)?;
    let rss = read_indirect(
        mem,
        "RENDER_SURFACE_STATE",
        at,
        RenderSurfaceState::DWORDS,
        RenderSurfaceState::unpack,
    )?;
    Ok((at, rss))
}

/// The render target behind PS binding table entry `bti`, blended by BLEND_STATE entry
/// `rti` (SURFTYPE_NULL: a null render target, `RenderTarget::is_null`); no `bti`: the
/// Null Render Target of a write that asks for it, whose surface state is not read.
pub(super) fn render_target(
    f: &DrawFront,
    mem: &dyn Memory,
    bti: Option<u8>,
    rti: u8,
) -> Result<Option<RenderTarget>, DrawError> {
    let rss = match bti {
        Some(bti) => surface_state(f, mem, f.tables.ps.binding_table, bti)?.1,
        None => RenderSurfaceState {
            surface_type: St::SURFTYPE_NULL,
            ..Default::default()
        },
    };
    let bti = bti.unwrap_or(0);
    // A null surface keeps its colour calculator's tests and writes nothing
    // (`RenderTarget::is_null`): a depth-only framebuffer's alpha test kills pixels.
    let (surface, lod, min, clear_value, mcs) = if rss.surface_type == St::SURFTYPE_NULL {
        (RenderTarget::null_surface(), 0, 0, None, None)
    } else {
        // Seed 003 RENDER_SURFACE_STATE MIP Count / LOD: for render targets, the LOD
        // rendered to; Minimum Array Element the first slice, Render Target View Extent the
        // slices - 1 from there.
        let lod = u32::from(rss.mip_count_lod);
        let min = u32::from(rss.minimum_array_element);
        let (ty, slices) = match rss.surface_type {
            St::SURFTYPE_2D | St::SURFTYPE_CUBE => (
                SurfaceType::D2,
                (u32::from(rss.depth) + 1)
                    * if rss.surface_type == St::SURFTYPE_CUBE {
                        6
                    } else {
                        1
                    },
            ),
            // Gen9+ 3D surfaces are laid out as 2D arrays of their slices, QPitch apart.
            St::SURFTYPE_3D => (SurfaceType::D2, (u32::from(rss.depth) + 1) >> lod.min(31)),
            // The GFX9 1D layout: the LODs side by side in a row, each slice a row QPitch
            // texels long.
            St::SURFTYPE_1D => (SurfaceType::D1, u32::from(rss.depth) + 1),
            other => {
                return Err(unsupported(
                    format!(
                        "render target {bti}: a {} render target on Gen11",
                        other.name().unwrap_or("reserved")
                    ),
                    "seed 003 RENDER_SURFACE_STATE Surface Type",
                ));
            }
        };
        let depth = slices.max(min + u32::from(rss.render_target_view_extent) + 1);
        let height = if ty == SurfaceType::D1 {
            1
        } else {
            u32::from(rss.height) + 1
        };
        let surface = crate::surface::layout(
            &rss,
            ty,
            (u32::from(rss.width) + 1, height, depth),
            lod + 1,
            ArraySpacing::QPitch(u32::from(rss.surface_qpitch) << 2),
        )
        .map_err(|e| bad(bti, e))?;
        let clear_value = match rss.auxiliary_surface_mode {
            Aux::AUX_NONE => None,
            Aux::AUX_CCS_D | Aux::AUX_CCS_E => Some(clear_value(mem, &rss, bti)?),
            other => {
                return Err(unsupported(
                    format!(
                        "render target {bti} with auxiliary surface mode {}",
                        other.name().unwrap_or("reserved")
                    ),
                    "seed 003 RENDER_SURFACE_STATE Auxiliary Surface Mode",
                ));
            }
        };
        // A multisampled render target's MCS (the model keeps it as the Gen7 model does:
        // pixels are expanded to the identity before their samples are written,
        // `gtsim_dataport::mcs`).
        let mcs = match crate::surface::mcs_surface(&rss, &surface) {
            None => None,
            Some(Ok(m)) => Some(m),
            Some(Err(e)) => return Err(bad(bti, e)),
        };
        (surface, lod, min, clear_value, mcs)
    };
    let pointers = get(&f.state.blend_state_pointers);
    let blend_at = address(f.bases.dynamic.wrapping_add(pointers.blend_state_pointer));
    let header = read_indirect(mem, "BLEND_STATE", blend_at, 1, BlendState::unpack)?;
    let b = read_indirect(
        mem,
        "BLEND_STATE_ENTRY",
        blend_at.wrapping_add(4 + u64::from(rti) * 8),
        BlendStateEntry::DWORDS,
        BlendStateEntry::unpack,
    )?;
    let cc_at = address(
        f.bases
            .dynamic
            .wrapping_add(get(&f.state.cc_state_pointers).color_calc_state_pointer),
    );
    let cc = read_indirect(
        mem,
        "COLOR_CALC_STATE",
        cc_at,
        ColorCalcState::DWORDS,
        ColorCalcState::unpack,
    )?;
    // Color Clamp Range: 0 UNORM, 1 SNORM, 2 the render target format's range.
    let range = |r: u32| match r {
        0 => ClampRange::Unorm,
        1 => ClampRange::Snorm,
        _ => ClampRange::of_format(surface.format),
    };
    let extent = u32::from(rss.render_target_view_extent);
    Ok(Some(RenderTarget {
        surface,
        lod,
        min_array_element: min,
        // Seed 003 RENDER_SURFACE_STATE Render Target View Extent: the slices from
        // Minimum Array Element, less one.
        array_extent: extent,
        clear_color: [false; 4],
        clear_value,
        cc: RtState {
            blend: b.color_buffer_blend_enable.then_some(Blend {
                src: b.source_blend_factor,
                dst: b.destination_blend_factor,
                func: b.color_blend_function,
                src_alpha: b.source_alpha_blend_factor,
                dst_alpha: b.destination_alpha_blend_factor,
                func_alpha: b.alpha_blend_function,
                independent_alpha: header.independent_alpha_blend_enable,
            }),
            constant: [
                cc.blend_constant_color_red,
                cc.blend_constant_color_green,
                cc.blend_constant_color_blue,
                cc.blend_constant_color_alpha,
            ],
            pre_clamp: b
                .pre_blend_color_clamp_enable
                .then(|| range(b.color_clamp_range.0)),
            post_clamp: b
                .post_blend_color_clamp_enable
                .then(|| range(b.color_clamp_range.0)),
            logic_op: b.logic_op_enable.then_some(b.logic_op_function),
            logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Any,
            write_disable: [
                b.write_disable_red,
                b.write_disable_green,
                b.write_disable_blue,
                b.write_disable_alpha,
            ],
        },
        alpha_coverage: AlphaCoverage {
            to_coverage: header.alpha_to_coverage_enable,
            to_one: header.alpha_to_one_enable,
        },
        mcs,
        alpha_test: header.alpha_test_enable.then_some((
            header.alpha_test_function,
            // Alpha Test Format 0: UNORM8, 1: FLOAT32.
            if cc.alpha_test_format.0 == 1 {
                AlphaReference::Float32(cc.alpha_reference_value_as_float32)
            } else {
                AlphaReference::Unorm8(cc.alpha_reference_value_as_unorm8 as u8)
            },
        )),
    }))
}

/// A CCS or MCS surface's clear value ([`crate::surface::clear_value`]).
fn clear_value(mem: &dyn Memory, rss: &RenderSurfaceState, bti: u8) -> Result<[u32; 4], DrawError> {
    crate::surface::clear_value(mem, rss).map_err(|fault| bad(bti, format!("clear value: {fault}")))
}
