//! A [`Surface`] from a RENDER_SURFACE_STATE (seed 000 §2.12.2): the fields that decide
//! where texels live, turned into a layout. Render targets and sampled surfaces read the
//! same state; they differ only in what "MIP Count / LOD" means (the LOD to render, or
//! the number of levels to sample), so the caller says which.

use gtsim_mem::layout::{ArraySpacing, MsaaLayout, SurfaceDesc, SurfaceType};
use gtsim_mem::surface::{Surface, SurfaceError};
use gtsim_mem::tiling::Tiling;
use gtsim_spec::gen7::RenderSurfaceState;
use gtsim_spec::gen7::render_surface_state as rss;
use thiserror::Error;

/// A surface state that names no surface the model can address.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SurfaceStateError {
    /// SURFTYPE_NULL: nothing to read or write.
    #[error("RENDER_SURFACE_STATE Surface Type is SURFTYPE_NULL")]
    Null,
    /// A field value the model does not handle.
    #[error("RENDER_SURFACE_STATE {field} = {value}: {why} (seed 000 §2.12.2)")]
    Field {
        /// The field.
        field: &'static str,
        /// Its value.
        value: u32,
        /// Why.
        why: &'static str,
    },
    /// The format or layout.
    #[error(transparent)]
    Surface(#[from] SurfaceError),
}

/// How the surface is used: the meaning of "MIP Count / LOD" depends on it (seed 000
/// §2.12.2, DW5 3:0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// Sampled: the field is the number of levels minus one.
    Sampled,
    /// Written as a render target: the field is the LOD rendered to.
    RenderTarget,
}

/// The number of entries of a SURFTYPE_BUFFER or SURFTYPE_STRBUF surface. Seed 000
/// §2.12.2 splits the count − 1 over three fields: Width holds bits 6:0, Height bits
/// 20:7, and Depth bits 30:21 for Surface Format RAW, 27:21 for other formats and 26:21
/// for SURFTYPE_STRBUF; higher field bits are not part of the count. The one place the
/// model computes it (the layout, `ld` and `resinfo` all use it).
pub fn buffer_entries(s: &RenderSurfaceState) -> u32 {
    let depth_bits = if s.surface_type == rss::SurfaceType::SURFTYPE_STRBUF {
        6
    } else if s.surface_format == gtsim_spec::shared::SurfaceFormat::RAW {
        10
    } else {
        7
    };
    let n = gtsim_mem::layout::buffer_entries(
        u32::from(s.width),
        u32::from(s.height),
        u32::from(s.depth),
        depth_bits,
    );
    n as u32
}

/// The surface a RENDER_SURFACE_STATE describes, and the LOD a render target writes.
pub fn surface_from_state(
    s: &RenderSurfaceState,
    usage: Use,
) -> Result<(Surface, u32), SurfaceStateError> {
    let field = |field, value: u32, why| SurfaceStateError::Field { field, value, why };
    let ty = match s.surface_type {
        rss::SurfaceType::SURFTYPE_1D => SurfaceType::D1,
        rss::SurfaceType::SURFTYPE_2D => SurfaceType::D2,
        rss::SurfaceType::SURFTYPE_3D => SurfaceType::D3,
        rss::SurfaceType::SURFTYPE_CUBE => SurfaceType::Cube,
        rss::SurfaceType::SURFTYPE_BUFFER => SurfaceType::Buffer,
        rss::SurfaceType::SURFTYPE_NULL => return Err(SurfaceStateError::Null),
        other => {
            return Err(field(
                "Surface Type",
                other.0,
                "not a surface type the model addresses yet",
            ));
        }
    };
    let samples = match s.number_of_multisamples {
        rss::NumberOfMultisamples::MULTISAMPLECOUNT_1 => 1,
        rss::NumberOfMultisamples::MULTISAMPLECOUNT_4 => 4,
        rss::NumberOfMultisamples::MULTISAMPLECOUNT_8 => 8,
        other => return Err(field("Number of Multisamples", other.0, "reserved value")),
    };
    let lod = s.mip_count_lod as u32;
    // Sampled: the level count; render target: the levels up to the one rendered, which
    // is all the layout needs to place it.
    let levels = lod + 1;
    let (width, height, depth) = if ty == SurfaceType::Buffer {
        (buffer_entries(s), 1, 1)
    } else {
        (s.width as u32 + 1, s.height as u32 + 1, s.depth as u32 + 1)
    };
    let desc = SurfaceDesc {
        ty,
        width,
        height,
        depth,
        levels,
        samples,
        msaa_layout: if s.multisampled_surface_storage_format
            == rss::MultisampledSurfaceStorageFormat::MSFMT_DEPTH_STENCIL
        {
            MsaaLayout::Interleaved
        } else {
            MsaaLayout::Array
        },
        halign: if s.surface_horizontal_alignment == rss::SurfaceHorizontalAlignment::HALIGN_8 {
            8
        } else {
            4
        },
        valign: if s.surface_vertical_alignment == rss::SurfaceVerticalAlignment::VALIGN_4 {
            4
        } else {
            2
        },
        array_spacing: if s.surface_array_spacing == rss::SurfaceArraySpacing::ARYSPC_LOD0 {
            ArraySpacing::Lod0
        } else {
            ArraySpacing::Full
        },
        block: (1, 1),
        block_bytes: 1,
        tiling: Tiling::from_surface_state(
            s.tiled_surface,
            s.tile_walk == rss::TileWalk::TILEWALK_YMAJOR,
        ),
        pitch: s.surface_pitch as u64 + 1,
        // Seed 000 RENDER_SURFACE_STATE DW5: X Offset is PixelOffset[8:2] ("in
        // multiples of 4") and Y Offset RowOffset[4:1] ("in multiples of 2"): where a
        // tiled surface's origin sits from Surface Base Address.
        origin: (u32::from(s.x_offset) * 4, u32::from(s.y_offset) * 2),
    };
    // "For linear surfaces, this field must be zero" (both fields).
    if !s.tiled_surface {
        for (name, v) in [("X Offset", s.x_offset), ("Y Offset", s.y_offset)] {
            if v != 0 {
                return Err(field(
                    name,
                    u32::from(v),
                    "must be zero on a linear surface (seed 000 RENDER_SURFACE_STATE DW5)",
                ));
            }
        }
    }
    let surface = Surface::new(s.surface_base_address, desc, s.surface_format)?;
    Ok((
        surface,
        match usage {
            Use::Sampled => 0,
            Use::RenderTarget => lod,
        },
    ))
}
