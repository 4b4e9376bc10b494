//! Gen8+ explicit QPitch (seed 003 RENDER_SURFACE_STATE Surface QPitch), worked by hand:
//! slices QPitch rows apart with the same mip arrangement inside a slice, and 3D surfaces
//! as 2D arrays of their z slices (LOD L holding d >> L of them).

use gtsim_mem::layout::{ArraySpacing, LayoutError, MsaaLayout, SurfaceDesc, SurfaceType};
use gtsim_mem::tiling::Tiling;

fn desc(ty: SurfaceType, depth: u32, levels: u32, qpitch: u32) -> SurfaceDesc {
    SurfaceDesc {
        ty,
        width: 8,
        height: 8,
        depth,
        levels,
        samples: 1,
        msaa_layout: MsaaLayout::Array,
        halign: 4,
        valign: 4,
        array_spacing: ArraySpacing::QPitch(qpitch),
        block: (1, 1),
        block_bytes: 4,
        tiling: Tiling::Linear,
        pitch: 64,
        origin: (0, 0),
    }
}

#[test]
fn array_slices_sit_qpitch_rows_apart() {
    // An 8x8 2D array of 3 layers, 2 levels, QPitch 16: LOD0 of layer 1 at row 16,
    // LOD1 (4x4) of layer 2 at (0, 32 + 8): below LOD0, 64 bytes a row, 4 a texel.
    let d = desc(SurfaceType::D2, 3, 2, 16);
    assert_eq!(d.image_origin(1, 0).unwrap(), (0, 16));
    assert_eq!(d.image_origin(2, 1).unwrap(), (0, 40));
    assert_eq!(d.texel_offset(3, 2, 2, 1, 0).unwrap(), 42 * 64 + 3 * 4);
    // Two layers of 16 rows, then the last layer's 8 + 4 rows.
    assert_eq!(d.total_rows().unwrap(), 2 * 16 + 12);
}

#[test]
fn a_3d_surface_is_an_array_of_its_z_slices() {
    // 8x8x4, 2 levels, QPitch 12: z 3 of LOD0 at row 36; LOD1 has 2 slices, z 1 at
    // 12 + 8; z 2 of LOD1 does not exist.
    let d = desc(SurfaceType::D3, 4, 2, 12);
    assert_eq!(d.image_origin(3, 0).unwrap(), (0, 36));
    assert_eq!(d.image_origin(1, 1).unwrap(), (0, 20));
    assert_eq!(
        d.image_origin(2, 1),
        Err(LayoutError::Outside {
            what: "z",
            value: 2,
            limit: 2
        })
    );
    assert_eq!(d.total_rows().unwrap(), 3 * 12 + 12);
}
