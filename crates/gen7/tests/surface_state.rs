//! RENDER_SURFACE_STATE fields read as the seed defines them (seed 000 §2.12.2).

use gtsim_gen7::surface_state::buffer_entries;
use gtsim_spec::gen7::RenderSurfaceState;
use gtsim_spec::gen7::render_surface_state::SurfaceType;
use gtsim_spec::shared::SurfaceFormat;

fn buffer(format: SurfaceFormat, width: u16, height: u16, depth: u16) -> RenderSurfaceState {
    RenderSurfaceState {
        surface_type: SurfaceType::SURFTYPE_BUFFER,
        surface_format: format,
        width,
        height,
        depth,
        ..Default::default()
    }
}

#[test]
fn buffer_entry_counts_are_split_over_width_height_and_depth() {
    // crocus's pull-constant buffer: Width 95, Height 1 -> 95 + (1 << 7) = 223, plus one.
    assert_eq!(
        buffer_entries(&buffer(SurfaceFormat::R32G32B32A32_FLOAT, 95, 1, 0)),
        224
    );
    // Height holds bits 20:7 (14 bits) and Depth starts at bit 21: Height 0x3fff and
    // Depth 1 give 0x3fff << 7 | 1 << 21, plus the Width's 0x7f.
    let n = 0x7f | (0x3fff << 7) | (1 << 21);
    assert_eq!(
        buffer_entries(&buffer(SurfaceFormat::R32_UINT, 0x7f, 0x3fff, 1)),
        n + 1
    );
    // Depth holds bits 27:21 for formats other than RAW: bit 7 of Depth is not part of
    // the count; RAW takes ten Depth bits (30:21).
    assert_eq!(
        buffer_entries(&buffer(SurfaceFormat::R32_UINT, 0, 0, 0x80)),
        1
    );
    assert_eq!(
        buffer_entries(&buffer(SurfaceFormat::RAW, 0, 0, 0x3ff)),
        (0x3ff << 21) + 1
    );
    // A guest setting Width bits above 6 does not change the count.
    assert_eq!(
        buffer_entries(&buffer(SurfaceFormat::R32_UINT, 0x80 | 3, 0, 0)),
        4
    );
}
