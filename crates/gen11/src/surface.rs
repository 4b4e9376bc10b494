//! The surfaces Gen11 data port messages address: a binding table entry's
//! RENDER_SURFACE_STATE (seed 003 RENDER_SURFACE_STATE, 16 dwords) as the neutral
//! [`DataSurface`]. Buffers (SURFTYPE_BUFFER, raw or of a format, without the typed view
//! typed messages need yet) and SURFTYPE_NULL are modelled; images (1D, 2D, 3D, cube) need the Gen9+ surface layouts and are refused by
//! name until they are.

use crate::bases::{Bases, binding_table_entry};
use gtsim_dataport::dc::DataSurface;
use gtsim_message::MessageError;
use gtsim_pipe3d::state::read_indirect as indirect;
use gtsim_spec::gen11::RenderSurfaceState;
use gtsim_spec::gen11::render_surface_state::SurfaceType as St;
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
            typed: None,
        },
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
