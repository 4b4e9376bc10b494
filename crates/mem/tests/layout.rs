//! Surface layout offsets worked by hand from the Gen7 layout rules (see the module docs
//! of `gtsim_mem::layout`): every expected number below is derived in its comment.

use gtsim_mem::layout::{
    ArraySpacing, LayoutError, MsaaLayout, SurfaceDesc, SurfaceType, ims_position,
};
use gtsim_mem::tiling::Tiling;

fn desc(ty: SurfaceType, w: u32, h: u32, d: u32, levels: u32) -> SurfaceDesc {
    SurfaceDesc {
        ty,
        depth: d,
        levels,
        ..SurfaceDesc::plain_2d(w, h, 4, Tiling::Linear, 1024)
    }
}

/// The error for coordinate `what` = `value` outside a surface whose first value
/// outside is `limit`.
fn outside(what: &'static str, value: u32, limit: u32) -> LayoutError {
    LayoutError::Outside { what, value, limit }
}

#[test]
fn mip_chain_2d() {
    // 16x16, 5 LODs, i = 4, j = 2. LOD1 (8x8) below LOD0 at (0,16); LOD2 (4x4) right of
    // LOD1 at (8,16); LOD3 (2x2 -> aligned 4x2) below LOD2 at (8,20); LOD4 (1x1 -> 4x2)
    // at (8,22).
    let d = desc(SurfaceType::D2, 16, 16, 1, 5);
    let want = [(0, 0), (0, 16), (8, 16), (8, 20), (8, 22)];
    for (lod, w) in want.iter().enumerate() {
        assert_eq!(d.image_origin(0, lod as u32).unwrap(), *w, "LOD {lod}");
    }
    // Texel (1, 1) of LOD2, linear pitch 1024, 4 bytes: row 17, byte 9*4 = 36.
    assert_eq!(d.texel_offset(1, 1, 0, 2, 0).unwrap(), 17 * 1024 + 36);
}

#[test]
fn odd_sizes_align_up() {
    // 13x7 with i = 8, j = 4: LOD0 aligned 16x8; LOD1 6x3 -> 8x4 at (0,8); LOD2 3x1 ->
    // 8x4 at (8,8); LOD3 1x1 -> 8x4 at (8,12).
    let mut d = desc(SurfaceType::D2, 13, 7, 1, 4);
    d.halign = 8;
    d.valign = 4;
    assert_eq!(d.level_extent(1), (8, 4));
    assert_eq!(d.image_origin(0, 2).unwrap(), (8, 8));
    assert_eq!(d.image_origin(0, 3).unwrap(), (8, 12));
}

#[test]
fn array_spacing_full_and_lod0() {
    // 16x16 array of 3, j = 2: QPitch = h0 + h1 + 12j (IVB) = 16 + 8 + 24 = 48 rows
    // (full); LOD0-only spacing: 16 rows.
    let mut d = desc(SurfaceType::D2, 16, 16, 3, 5);
    assert_eq!(d.qpitch(), 48);
    assert_eq!(d.image_origin(2, 1).unwrap(), (0, 2 * 48 + 16));
    d.array_spacing = ArraySpacing::Lod0;
    d.levels = 1;
    assert_eq!(d.qpitch(), 16);
    assert_eq!(d.image_origin(2, 0).unwrap(), (0, 32));
    assert_eq!(d.image_origin(3, 0), Err(outside("slice", 3, 3)));
}

#[test]
fn cube_arrays_are_six_slices_per_cube() {
    // 2 cubes of 8x8, 4 LODs, j = 2: QPitch = 8 + 4 + 24 = 36. Face 4 of cube 1 is slice
    // 6 + 4 = 10 -> row 360; 12 slices in all.
    let d = desc(SurfaceType::Cube, 8, 8, 2, 4);
    assert_eq!(d.image_origin(10, 0).unwrap(), (0, 360));
    assert_eq!(d.image_origin(12, 0), Err(outside("slice", 12, 12)));
    // Rows: 11 slices of 36, then the last slice's mip chain: LOD0..3 end at rows
    // 8, 8+4 = 12, 8+4 (LOD2 at y 8, 2x2 -> aligned 4x2, ends 10), LOD3 (8+2, ends 12).
    assert_eq!(d.total_rows().unwrap(), 11 * 36 + 12);
}

#[test]
fn three_d_slices_per_row_double_each_lod() {
    // 8x8x4, 4 LODs, i = 4, j = 2. LOD0: 4 slices one per row, 8 rows each: z at
    // (0, 8z), 32 rows. LOD1 4x4x2: two slices in one row at y 32: (0,32), (4,32); 4 rows.
    // LOD2 2x2x1 -> 4x2 at (0,36); LOD3 1x1x1 -> 4x2 at (0,38); 40 rows in all.
    let d = desc(SurfaceType::D3, 8, 8, 4, 4);
    assert_eq!(d.image_origin(3, 0).unwrap(), (0, 24));
    assert_eq!(d.image_origin(1, 1).unwrap(), (4, 32));
    assert_eq!(d.image_origin(0, 2).unwrap(), (0, 36));
    assert_eq!(d.image_origin(0, 3).unwrap(), (0, 38));
    assert_eq!(
        d.image_origin(2, 1),
        Err(outside("z", 2, 2)),
        "LOD1 has 2 slices"
    );
    assert_eq!(d.total_rows().unwrap(), 40);
}

#[test]
fn compressed_offsets_count_blocks() {
    // BC1 (4x4 blocks of 8 bytes) 32x32, 3 LODs: alignment is one block. LOD1 at texel
    // (0,32) = block row 8; LOD2 at (16,32) = block (4, 8). Texel (5,6) of LOD2 is in
    // block (4+1, 8+1) -> linear pitch 64: 9*64 + 5*8 = 616.
    let mut d = desc(SurfaceType::D2, 32, 32, 1, 3);
    d.block = (4, 4);
    d.block_bytes = 8;
    d.pitch = 64;
    assert_eq!(d.image_origin(0, 2).unwrap(), (16, 32));
    assert_eq!(d.texel_offset(5, 6, 0, 2, 0).unwrap(), 616);
}

#[test]
fn array_msaa_samples_are_slices() {
    // 4x array-style, 2 layers, 8x8, one LOD, LOD0 spacing: QPitch 8; sample 3 of layer 1
    // is physical slice 1*4 + 3 = 7 -> row 56. Texel (2,1): row 57, byte 8 at pitch 64.
    let mut d = desc(SurfaceType::D2, 8, 8, 2, 1);
    d.samples = 4;
    d.array_spacing = ArraySpacing::Lod0;
    d.pitch = 64;
    assert_eq!(d.texel_offset(2, 1, 1, 0, 3).unwrap(), 57 * 64 + 8);
}

#[test]
fn interleaved_msaa_positions() {
    // 4x IMS, pixel (3, 5), sample 2: X' = (3&!1)*2 + 0 + 1 = 5, Y' = (5&!1)*2 + 2 + 1 = 11.
    assert_eq!(ims_position(3, 5, 2, 4), (5, 11));
    // 8x, pixel (1, 0), sample 5: X' = 0 + 4 + 2 + 1 = 7, Y' = 0.
    assert_eq!(ims_position(1, 0, 5, 8), (7, 0));
    // 2x, pixel (2, 3), sample 1: X' = 4 + 2 + 0 = 6, Y' = 3.
    assert_eq!(ims_position(2, 3, 1, 2), (6, 3));
    // Every sample of a 4x4-pixel region lands on a distinct physical texel (8x 16x8).
    let mut seen = std::collections::HashSet::new();
    for y in 0..4 {
        for x in 0..4 {
            for s in 0..8 {
                assert!(seen.insert(ims_position(x, y, s, 8)));
            }
        }
    }
    assert!(seen.iter().all(|&(x, y)| x < 16 && y < 8));
    // 16x, pixel (3, 2), sample 13 (0b1101): X' = 2*4 + 4 + 2 + 1 = 15,
    // Y' = 2*4 + 8/2 + 0 + 0 = 12.
    assert_eq!(ims_position(3, 2, 13, 16), (15, 12));
    // Every sample of a 4x4-pixel region lands on a distinct texel of its 16x16.
    let mut seen = std::collections::HashSet::new();
    for y in 0..4 {
        for x in 0..4 {
            for s in 0..16 {
                assert!(seen.insert(ims_position(x, y, s, 16)));
            }
        }
    }
    assert!(seen.iter().all(|&(x, y)| x < 16 && y < 16));
    // A 4x IMS 8x8 depth surface is 16x16 physical.
    let mut d = desc(SurfaceType::D2, 8, 8, 1, 1);
    d.samples = 4;
    d.msaa_layout = MsaaLayout::Interleaved;
    assert_eq!(d.level_extent(0), (16, 16));
}

#[test]
fn tiled_surface_offsets_go_through_the_tiling() {
    // Y-tiled 64x64 RGBA8 (pitch 256 = 2 tiles), texel (40, 33): byte 160 of row 33 ->
    // tile row 1 (8192), tile column 1 (+4096); in the tile: byte 32 -> OWord column 2
    // (1024), row 1 (16), byte 0 -> 8192 + 4096 + 1040 = 13328.
    let mut d = desc(SurfaceType::D2, 64, 64, 1, 1);
    d.tiling = Tiling::Y;
    d.pitch = 256;
    assert_eq!(d.texel_offset(40, 33, 0, 0, 0).unwrap(), 13328);
}

#[test]
fn out_of_range_coordinates_are_errors() {
    let d = desc(SurfaceType::D2, 16, 16, 1, 5);
    assert_eq!(d.texel_offset(16, 0, 0, 0, 0), Err(outside("x", 16, 16)));
    assert_eq!(
        d.texel_offset(8, 0, 0, 1, 0),
        Err(outside("x", 8, 8)),
        "LOD1 is 8 wide"
    );
    assert_eq!(d.texel_offset(0, 16, 0, 0, 0), Err(outside("y", 16, 16)));
    assert_eq!(d.texel_offset(0, 0, 0, 5, 0), Err(outside("LOD", 5, 5)));
    assert_eq!(d.texel_offset(0, 0, 0, 0, 1), Err(outside("sample", 1, 1)));
    let mut bad = d;
    bad.samples = 3;
    assert!(
        matches!(
            bad.texel_offset(0, 0, 0, 0, 0),
            Err(LayoutError::Invalid(ref why)) if why.contains("3 samples")
        ),
        "{:?}",
        bad.texel_offset(0, 0, 0, 0, 0)
    );
    // Buffers: element index times the structure size, which is the Surface Pitch
    // (seed 000 §2.12.2), whatever the format's size: 4-byte elements 16 bytes apart put
    // element 99 at 1584; a 1-byte pitch makes the index a byte offset.
    let mut b = desc(SurfaceType::Buffer, 100, 1, 1, 1);
    b.pitch = 16;
    assert_eq!(b.texel_offset(99, 0, 0, 0, 0).unwrap(), 1584);
    assert_eq!(
        b.texel_offset(100, 0, 0, 0, 0),
        Err(outside("element", 100, 100))
    );
    b.pitch = 1;
    assert_eq!(b.texel_offset(48, 0, 0, 0, 0).unwrap(), 48);
}

#[test]
fn depth_stencil_hiz_mcs_geometry() {
    // Z16 depth 20x10, 2 LODs: alignment 8x4 -> LOD0 24x12, LOD1 (10x5 -> 16x8) at (0,12).
    let z = SurfaceDesc::depth(20, 10, 1, 2, 1, 2, 128);
    assert_eq!(z.level_extent(0), (24, 12));
    assert_eq!(z.image_origin(0, 1).unwrap(), (0, 12));
    // Separate stencil 20x10: alignment 8x8 -> LOD0 24x16; W-tiled texel (9, 17) of a
    // 1-LOD surface, pitch 64: tile row 0, inside: block column 1 (512), block row 2
    // (128), x=1,y=1 interleave 1+2 = 3 -> 643.
    let s = SurfaceDesc::separate_stencil(20, 18, 1, 1, 1, 64);
    assert_eq!(s.level_extent(0), (24, 24));
    assert_eq!(s.texel_offset(9, 17, 0, 0, 0).unwrap(), 643);
    // HiZ of a 64x32 4x-interleaved depth buffer covers 128x64 physical pixels: 16x16
    // blocks of 8x4 pixels, 16 bytes each -> rows of 256 bytes; 16 block rows.
    let z4 = SurfaceDesc::depth(64, 32, 1, 1, 4, 4, 256);
    let h = SurfaceDesc::hiz(&z4, 256);
    assert_eq!((h.width, h.height), (128, 64));
    assert_eq!(h.total_rows().unwrap(), 16);
    // Pixel (15, 7) of the HiZ surface is in block (1, 1): Y-tiled byte 16 of row 1 ->
    // OWord column 1 (512) + row 1 (16) = 528.
    assert_eq!(h.texel_offset(15, 7, 0, 0, 0).unwrap(), 528);
    // MCS: 8x colour -> 4 bytes per pixel; 4x -> 1 byte.
    let mut c = SurfaceDesc::depth(16, 16, 1, 1, 8, 4, 256);
    c.msaa_layout = MsaaLayout::Array;
    assert_eq!(SurfaceDesc::mcs(&c, 128).block_bytes, 4);
    c.samples = 4;
    assert_eq!(SurfaceDesc::mcs(&c, 128).block_bytes, 1);
}

/// The width in texels of LOD `lod`.
fn img_width(d: &SurfaceDesc, lod: u32) -> u32 {
    (d.width >> lod).max(1)
}

/// An image's precomputed offsets give `texel_offset`'s value or error for every texel
/// (in range or not), over tilings, mip levels, array slices and compressed blocks, and
/// are refused for buffers, multisampled surfaces and images that do not exist.
#[test]
fn image_offsets_agree_with_texel_offset() {
    let mut checked = 0;
    for tiling in [Tiling::Linear, Tiling::X, Tiling::Y] {
        for (block, block_bytes) in [((1, 1), 4), ((1, 1), 16), ((4, 4), 8)] {
            let mut d = desc(SurfaceType::D2, 40, 24, 3, 4);
            d.tiling = tiling;
            d.pitch = 512;
            d.block = block;
            d.block_bytes = block_bytes;
            for lod in 0..4 {
                for slice in 0..3 {
                    let img = d.image_offsets(slice, lod).unwrap();
                    for y in 0..26 {
                        for x in 0..42 {
                            assert_eq!(
                                img.offset(x, y),
                                d.texel_offset(x, y, slice, lod, 0),
                                "{tiling:?} {block:?} lod {lod} slice {slice} ({x}, {y})"
                            );
                            // A run's texels are where texel_offset puts them, one
                            // after the other, and stay in the image.
                            if let Ok((at, n)) = img.run(x, y) {
                                assert!(n >= 1 && x + n <= img_width(&d, lod));
                                for i in 0..n {
                                    let want = d.texel_offset(x + i, y, slice, lod, 0).unwrap();
                                    let step = if block == (1, 1) { block_bytes } else { 0 };
                                    assert_eq!(
                                        at + u64::from(i * step),
                                        want,
                                        "run ({x}, {y}) +{i}"
                                    );
                                }
                            }
                            checked += 1;
                        }
                    }
                }
            }
            assert!(d.image_offsets(0, 4).is_none(), "no LOD 4");
        }
    }
    assert!(checked > 100_000);
    let mut ms = desc(SurfaceType::D2, 8, 8, 1, 1);
    ms.samples = 4;
    assert!(ms.image_offsets(0, 0).is_none());
    assert!(
        desc(SurfaceType::Buffer, 8, 1, 1, 1)
            .image_offsets(0, 0)
            .is_none()
    );
}

/// Every byte of every texel of an image (that has an offset) lies in its byte range; a linear image's range
/// starts at its first texel and ends after its last; a tiled one covers whole tile rows
/// (pitch 512 x 8 rows = 4,096 bytes per X tile row, 512 x 32 = 16,384 per Y tile row).
#[test]
fn an_images_byte_range_holds_every_texel() {
    for tiling in [Tiling::Linear, Tiling::X, Tiling::Y, Tiling::W] {
        for (block, block_bytes) in [((1, 1), 4), ((1, 1), 16), ((4, 4), 8)] {
            let mut d = desc(SurfaceType::D2, 40, 24, 3, 4);
            d.tiling = tiling;
            d.pitch = 512;
            d.block = block;
            d.block_bytes = block_bytes;
            for lod in 0..4 {
                for slice in 0..3 {
                    let img = d.image_offsets(slice, lod).unwrap();
                    let range = img.byte_range().unwrap();
                    let (mut lo, mut hi, mut refused) = (u64::MAX, 0, false);
                    let (w, h) = (img_width(&d, lod), (d.height >> lod).max(1));
                    for y in 0..h {
                        for x in 0..w {
                            // Texels past the pitch have no offset (16-byte texels of
                            // LOD 0: 40 x 16 > 512).
                            let Ok(at) = img.offset(x, y) else {
                                refused = true;
                                continue;
                            };
                            lo = lo.min(at);
                            hi = hi.max(at + u64::from(block_bytes));
                            assert!(
                                range.start <= at && at + u64::from(block_bytes) <= range.end,
                                "{tiling:?} {block:?} lod {lod} slice {slice} ({x}, {y}) at {at} outside {range:?}"
                            );
                        }
                    }
                    match tiling {
                        Tiling::Linear if !refused => assert_eq!(range, lo..hi),
                        Tiling::Linear => assert!(range.start == lo && range.end >= hi),
                        _ => {
                            let tile_row = 512 * tiling.tile_size().1;
                            assert_eq!(range.start % tile_row, 0);
                            assert_eq!(range.end % tile_row, 0);
                            assert!(range.end - hi < tile_row && lo - range.start < tile_row);
                        }
                    }
                }
            }
        }
    }
    // LOD 0 of a 40x24 linear 4-byte surface of pitch 1024 (`desc`): rows 0..24, bytes
    // 0 to 23 * 1024 + 40 * 4 = 23,712.
    let d = desc(SurfaceType::D2, 40, 24, 1, 1);
    assert_eq!(d.image_offsets(0, 0).unwrap().byte_range(), Some(0..23_712));
    let mut bad = d;
    bad.tiling = Tiling::Y;
    bad.pitch = 100;
    assert_eq!(bad.image_offsets(0, 0).and_then(|i| i.byte_range()), None);
}

/// Seed 000 §2.12.2 / seed 003 RENDER_SURFACE_STATE, worked by hand: a buffer's entry
/// count − 1 is Width (bits 6:0) | Height << 7 | Depth << 21, Depth cut to its counted
/// bits: 0x7f | 1 << 7 | 1 << 21 + 1 = 0x200100; with 7 counted bits Depth 0x3ff gives
/// 0x7f << 21.
#[test]
fn buffer_entries_join_the_three_fields() {
    use gtsim_mem::layout::buffer_entries;
    assert_eq!(buffer_entries(0x7f, 1, 1, 10), 0x20_0100);
    assert_eq!(buffer_entries(0, 0, 0x3ff, 7), (0x7f << 21) + 1);
    assert_eq!(buffer_entries(0, 0, 0x3ff, 10), (0x3ff << 21) + 1);
    assert_eq!(buffer_entries(0xff, 0, 0, 10), 0x80, "Width keeps bits 6:0");
}

/// X Offset and Y Offset (seed 000 RENDER_SURFACE_STATE DW5): a Y-tiled surface whose
/// origin is 4 texels right and 6 rows down of its base. Texel (0, 0) is byte 16 of row
/// 6 of the first tile: OWord column 1 (512 bytes per 32-row column) plus 6 rows of 16
/// bytes, 608. Texel (28, 0) is byte 128 of row 6, the second tile's column 0: 4096 + 96.
/// The origin's rows count towards the surface's span.
#[test]
fn surface_origin_offset() {
    let d = SurfaceDesc {
        origin: (4, 6),
        ..SurfaceDesc::plain_2d(64, 32, 4, Tiling::Y, 512)
    };
    assert_eq!(d.image_origin(0, 0).unwrap(), (4, 6));
    assert_eq!(d.texel_offset(0, 0, 0, 0, 0).unwrap(), 608);
    assert_eq!(d.texel_offset(28, 0, 0, 0, 0).unwrap(), 4096 + 96);
    let img = d.image_offsets(0, 0).unwrap();
    assert_eq!(img.offset(0, 0).unwrap(), 608);
    assert_eq!(d.total_rows().unwrap(), 32 + 6);
}

/// crocus's framebuffer fetch from slice 1 of a 250x250x4 Y-tiled RGBA8 3D texture
/// (piglit's single-slice-3d): a 2D view whose base is the Y-tile row holding the slice
/// and whose Y Offset reaches its first row. Slice 1 starts at row 252 (250 rows aligned
/// to VALIGN_4), which is tile row 7 (7 * 32 rows * 1024 bytes = 0x38000 from the base)
/// and row 28 within it. Every texel of the view is the 3D surface's texel of slice 1.
#[test]
fn a_2d_view_with_an_origin_reaches_a_3d_slice() {
    let volume = SurfaceDesc {
        ty: SurfaceType::D3,
        depth: 4,
        valign: 4,
        ..SurfaceDesc::plain_2d(250, 250, 4, Tiling::Y, 1024)
    };
    let view = SurfaceDesc {
        valign: 4,
        origin: (0, 28),
        ..SurfaceDesc::plain_2d(250, 250, 4, Tiling::Y, 1024)
    };
    for (x, y) in [(0, 0), (31, 3), (32, 4), (100, 100), (249, 249), (7, 230)] {
        assert_eq!(
            0x38000 + view.texel_offset(x, y, 0, 0, 0).unwrap(),
            volume.texel_offset(x, y, 1, 0, 0).unwrap(),
            "texel ({x}, {y})"
        );
    }
}

/// A block-compressed surface's origin must fall on a block (BC1: 4x4 texels): Gen7's
/// Y Offset counts 2 rows, which could put it inside one.
#[test]
fn a_compressed_surface_origin_must_fall_on_a_block() {
    use gtsim_mem::surface::Surface;
    use gtsim_spec::shared::SurfaceFormat;
    let at = |origin| {
        let d = SurfaceDesc {
            origin,
            ..SurfaceDesc::plain_2d(16, 16, 8, Tiling::Y, 128)
        };
        Surface::new(0x10000, d, SurfaceFormat::BC1_UNORM)
    };
    assert!(at((4, 4)).is_ok());
    let e = at((4, 2)).unwrap_err().to_string();
    assert!(e.contains("not on a 4x4 block"), "{e}");
}
