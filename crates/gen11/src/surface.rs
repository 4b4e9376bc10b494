//! The surfaces Gen11 data port messages address: a binding table entry's
//! RENDER_SURFACE_STATE (seed 003 RENDER_SURFACE_STATE, 16 dwords) as the neutral
//! [`DataSurface`]: buffers (SURFTYPE_BUFFER, raw or of a format, with the typed view of
//! a formatted one), SURFTYPE_NULL, and 1D, 2D and 3D images of one level and one slice,
//! whose layout is the same on every generation (a pitch-linear or tiled rectangle at
//! the base). Mip chains, arrays and 3D depth need the Gen9+ layouts (explicit QPitch,
//! the GFX9 1D layout, 3D as 2D arrays) and are refused by name until they are, as are
//! surfaces with an auxiliary surface (CCS, MCS), whose main surface may be stale.

use crate::bases::{Bases, binding_table_entry};
use gtsim_dataport::dc::{DataSurface, ImageView};
use gtsim_mem::layout::{ArraySpacing, MsaaLayout, SurfaceDesc, SurfaceType};
use gtsim_mem::surface::Surface;
use gtsim_mem::tiling::Tiling;
use gtsim_message::MessageError;
use gtsim_pipe3d::state::read_indirect as indirect;
use gtsim_spec::gen11::RenderSurfaceState;
use gtsim_spec::gen11::render_surface_state::{
    AuxiliarySurfaceMode, NumberOfMultisamples, SurfaceType as St, TileMode,
};
use gtsim_spec::shared::SurfaceFormat;

/// The elements of a buffer surface: Width, Height and Depth hold the count minus one as
/// one number, bits 6:0, 20:7 and 26:21 (seed 003 RENDER_SURFACE_STATE Width, Height,
/// Depth: "for buffers ... the number of entries"; Depth's 10 bits for RAW, 7 for typed
/// buffers per the seed's value ranges).
pub fn buffer_entries(s: &RenderSurfaceState) -> u64 {
    let depth_mask = if s.surface_format == SurfaceFormat::RAW {
        0x3ff
    } else {
        0x7f
    };
    let n = (u64::from(s.width) & 0x7f)
        | (u64::from(s.height) & 0x3fff) << 7
        | (u64::from(s.depth) & depth_mask) << 21;
    n + 1
}

/// The surface at entry `bti` of the binding table at graphics address `table`.
pub fn data_surface(
    mem: &dyn gtsim_mem::Memory,
    bases: &Bases,
    table: u64,
    bti: u8,
) -> Result<DataSurface, MessageError> {
    let addr = binding_table_entry(mem, bases, table, bti)
        .map_err(gtsim_pipe3d::draw::DrawError::into_message_error)?;
    let rss = indirect(
        mem,
        "RENDER_SURFACE_STATE",
        addr,
        RenderSurfaceState::DWORDS,
        RenderSurfaceState::unpack,
    )
    .map_err(gtsim_pipe3d::draw::DrawError::into_message_error)?;
    Ok(match rss.surface_type {
        St::SURFTYPE_NULL => DataSurface::Null,
        // A buffer of any format: the untyped, block and scattered messages address its
        // bytes; typed messages need the typed view, which the Gen9+ layouts will give.
        St::SURFTYPE_BUFFER => DataSurface::Buffer {
            base: crate::bases::address(rss.surface_base_address),
            entries: buffer_entries(&rss),
            format: rss.surface_format,
            typed: (rss.surface_format != SurfaceFormat::RAW)
                .then(|| layout(&rss, SurfaceType::Buffer, buffer_entries(&rss) as u32, 1))
                .and_then(Result::ok),
        },
        St::SURFTYPE_1D | St::SURFTYPE_2D | St::SURFTYPE_3D => image(&rss, bti)?,
        other => {
            return Err(gtsim_spec::Unsupported::new(
                format!(
                    "data port access to a {} surface of format {} (binding table entry {bti}): the Gen9+ surface layouts are not modelled yet",
                    other.name().unwrap_or("reserved"),
                    rss.surface_format.name().unwrap_or("reserved"),
                ),
                "seed 003 RENDER_SURFACE_STATE",
            )
            .into());
        }
    })
}

/// The layout of `rss` as `ty`, `width` by `height`, one level and one slice.
fn layout(
    rss: &RenderSurfaceState,
    ty: SurfaceType,
    width: u32,
    height: u32,
) -> Result<Surface, MessageError> {
    let tiling = match rss.tile_mode {
        TileMode::LINEAR => Tiling::Linear,
        TileMode::XMAJOR => Tiling::X,
        TileMode::YMAJOR => Tiling::Y,
        other => {
            return Err(gtsim_spec::Unsupported::new(
                format!(
                    "data port access to a {} surface",
                    other.name().unwrap_or("reserved Tile Mode")
                ),
                "seed 003 RENDER_SURFACE_STATE Tile Mode",
            )
            .into());
        }
    };
    let desc = SurfaceDesc {
        ty,
        width,
        height,
        depth: 1,
        levels: 1,
        samples: 1,
        msaa_layout: MsaaLayout::Array,
        halign: 4,
        valign: 4,
        array_spacing: ArraySpacing::Full,
        block: (1, 1),
        block_bytes: 1,
        tiling,
        pitch: u64::from(rss.surface_pitch) + 1,
    };
    Surface::new(
        crate::bases::address(rss.surface_base_address),
        desc,
        rss.surface_format,
    )
    .map_err(|e| MessageError::State {
        structure: "RENDER_SURFACE_STATE",
        why: e.to_string(),
    })
}

/// A 1D, 2D or 3D image of one level and one slice (see the module docs).
fn image(rss: &RenderSurfaceState, bti: u8) -> Result<DataSurface, MessageError> {
    let refuse = |what: String| -> MessageError {
        gtsim_spec::Unsupported::new(
            format!(
                "{what} (binding table entry {bti}): the Gen9+ surface layouts are not modelled yet"
            ),
            "seed 003 RENDER_SURFACE_STATE (Surface QPitch, MIP Count / LOD)",
        )
        .into()
    };
    if rss.mip_count_lod != 0 || rss.surface_min_lod != 0 {
        return Err(refuse(format!(
            "an image with MIP Count {} and Surface Min LOD {}",
            rss.mip_count_lod, rss.surface_min_lod
        )));
    }
    if rss.depth != 0 || rss.minimum_array_element != 0 {
        return Err(refuse(format!(
            "an image of depth or array size {} from element {}",
            u32::from(rss.depth) + 1,
            rss.minimum_array_element
        )));
    }
    if rss.number_of_multisamples != NumberOfMultisamples::MULTISAMPLECOUNT_1 {
        return Err(refuse("a multisampled image".into()));
    }
    if rss.auxiliary_surface_mode != AuxiliarySurfaceMode::AUX_NONE {
        return Err(gtsim_spec::Unsupported::new(
            format!(
                "data port access to an image with an auxiliary surface ({}, binding table entry {bti}): the main surface may not hold the data",
                rss.auxiliary_surface_mode.name().unwrap_or("reserved")
            ),
            "seed 003 RENDER_SURFACE_STATE Auxiliary Surface Mode",
        )
        .into());
    }
    let ty = match rss.surface_type {
        St::SURFTYPE_1D => SurfaceType::D1,
        St::SURFTYPE_3D => SurfaceType::D3,
        _ => SurfaceType::D2,
    };
    let surface = layout(rss, ty, u32::from(rss.width) + 1, u32::from(rss.height) + 1)?;
    Ok(DataSurface::Image {
        surface,
        array: rss.surface_array,
        view: ImageView {
            base_level: 0,
            levels: 1,
            base_slice: 0,
            ..Default::default()
        },
    })
}
