//! The render target fast clear (seed 004 §11.7-11.8): every pixel of the render target
//! takes the SURFACE_STATE clear colour (CC_ONE channels 1.0 or 1, the others 0), and no
//! byte outside it changes. Checked pixel by pixel through the layout, for linear and
//! tiled surfaces of several element sizes (the clear writes runs of bytes).

use gtsim_dataport::blend::ClampRange;
use gtsim_dataport::rt_message::RenderTarget;
use gtsim_dataport::rt_path::fast_clear;
use gtsim_dataport::rt_write::RtState;
use gtsim_mem::AddressSpace;
use gtsim_mem::layout::SurfaceDesc;
use gtsim_mem::surface::Surface;
use gtsim_mem::tiling::Tiling;
use gtsim_spec::shared::SurfaceFormat as Sf;

const BASE: u64 = 0x10_0000;

fn target(format: Sf, bytes: u32, tiling: Tiling, pitch: u64, clear: [bool; 4]) -> RenderTarget {
    RenderTarget {
        surface: Surface {
            base: BASE,
            desc: SurfaceDesc::plain_2d(37, 21, bytes, tiling, pitch),
            format,
        },
        lod: 0,
        min_array_element: 0,
        array_extent: 0,
        clear_color: clear,
        clear_value: None,
        cc: RtState {
            blend: None,
            constant: [0.0; 4],
            pre_clamp: Some(ClampRange::Unorm),
            post_clamp: None,
            logic_op: None,
            logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
            write_disable: [false; 4],
        },
        alpha_test: None,
        alpha_coverage: Default::default(),
        mcs: None,
    }
}

#[test]
fn every_pixel_takes_the_clear_colour_and_nothing_else_changes() {
    let one = 1.0f32.to_le_bytes();
    let cases: [(Sf, u32, [bool; 4], Vec<u8>); 4] = [
        // R8G8B8A8_UNORM, red and alpha one: 255, 0, 0, 255.
        (
            Sf::R8G8B8A8_UNORM,
            4,
            [true, false, false, true],
            vec![255, 0, 0, 255],
        ),
        // B8G8R8A8_UNORM stores B first: green one is byte 1.
        (
            Sf::B8G8R8A8_UNORM,
            4,
            [false, true, false, false],
            vec![0, 255, 0, 0],
        ),
        // R16G16_UINT, green one: 0x0000, 0x0001.
        (
            Sf::R16G16_UINT,
            4,
            [false, true, false, false],
            vec![0, 0, 1, 0],
        ),
        // R32G32B32A32_FLOAT, blue one.
        (
            Sf::R32G32B32A32_FLOAT,
            16,
            [false, false, true, false],
            [[0; 4], [0; 4], one, [0; 4]].concat(),
        ),
    ];
    for (format, bytes, clear, want) in cases {
        for (tiling, pitch) in [(Tiling::Linear, 704), (Tiling::X, 1024), (Tiling::Y, 640)] {
            let rt = target(format, bytes, tiling, pitch, clear);
            let mut mem = AddressSpace::new();
            let before: Vec<u8> = (0..0x10000u32).map(|i| (i * 11 + i / 97) as u8).collect();
            mem.load(BASE, &before);
            fast_clear(&mut mem, &rt).unwrap();
            let mut after = vec![0u8; before.len()];
            mem.read(BASE, &mut after).unwrap();
            let mut expected = before.clone();
            let d = &rt.surface.desc;
            for y in 0..d.height {
                for x in 0..d.width {
                    let o = d.texel_offset(x, y, 0, 0, 0).unwrap() as usize;
                    expected[o..o + want.len()].copy_from_slice(&want);
                }
            }
            assert!(after == expected, "{format:?} {tiling:?}");
        }
    }
}

/// A layered fast clear reaches each slice its writes name: clearing slice 2 of a
/// three-slice array fills that slice, pixel by pixel through the layout, and leaves
/// slices 0 and 1 as they were.
#[test]
fn a_slice_clear_fills_that_slice_only() {
    let mut rt = target(
        Sf::R8G8B8A8_UNORM,
        4,
        Tiling::Y,
        256,
        [true, false, false, true],
    );
    rt.surface.desc.depth = 3;
    rt.surface.desc.array_spacing = gtsim_mem::layout::ArraySpacing::QPitch(32);
    let mut mem = AddressSpace::new();
    let before: Vec<u8> = (0..0x10000u32).map(|i| (i * 7 + i / 89) as u8).collect();
    mem.load(BASE, &before);
    gtsim_dataport::rt_path::fast_clear_slice(&mut mem, &rt, 2).unwrap();
    let mut after = vec![0u8; before.len()];
    mem.read(BASE, &mut after).unwrap();
    let mut expected = before.clone();
    let d = &rt.surface.desc;
    for y in 0..d.height {
        for x in 0..d.width {
            let o = d.texel_offset(x, y, 2, 0, 0).unwrap() as usize;
            expected[o..o + 4].copy_from_slice(&[255, 0, 0, 255]);
        }
    }
    assert!(after == expected);
    // Slice 2 starts 32 rows down: a Y-tiled 256-byte pitch puts it at 32 * 256.
    assert_eq!(d.texel_offset(0, 0, 2, 0, 0), Ok(2 * 32 * 256));
}
