//! Texel access through memory: layout, tiling and codec together.

use gtsim_mem::format::texel::Texel;
use gtsim_mem::layout::SurfaceDesc;
use gtsim_mem::surface::{Surface, SurfaceError, TexelCoord};
use gtsim_mem::tiling::Tiling;
use gtsim_mem::{AddressSpace, Fault};
use gtsim_spec::shared::SurfaceFormat;

fn desc(tiling: Tiling, pitch: u64, block: (u32, u32), block_bytes: u32) -> SurfaceDesc {
    SurfaceDesc {
        block,
        ..SurfaceDesc::plain_2d(64, 64, block_bytes, tiling, pitch)
    }
}

#[test]
fn write_then_read_a_tiled_rgba8_texel() {
    let mut mem = AddressSpace::new();
    mem.map(0x10000, 64 * 256);
    let s = Surface {
        base: 0x10000,
        desc: desc(Tiling::Y, 256, (1, 1), 4),
        format: SurfaceFormat::R8G8B8A8_UNORM,
    };
    // Texel (40, 33) of a Y-tiled 256-byte-pitch surface is at byte 13328 (tests/layout.rs).
    s.write_texel(
        &mut mem,
        TexelCoord::xy(40, 33),
        Texel::Float([1.0, 0.0, 0.5, 1.0]),
    )
    .unwrap();
    let mut b = [0u8; 4];
    mem.read(0x10000 + 13328, &mut b).unwrap();
    // 0.5 * 255 = 127.5 rounds to 128 (round to nearest even of 127.5 is 128).
    assert_eq!(b, [255, 0, 128, 255]);
    let t = s.read_texel(&mem, TexelCoord::xy(40, 33)).unwrap();
    assert_eq!(t, Texel::Float([1.0, 0.0, 128.0 / 255.0, 1.0]));
}

#[test]
fn read_a_bc1_texel_and_fault_outside_memory() {
    let mut mem = AddressSpace::new();
    mem.map(0x20000, 4096);
    // BC1 block: color0 = 0xF800 (red), color1 = 0x001F (blue), 4-colour mode since
    // color0 > color1; indices 0b01 for texel 1 (blue), 0b00 elsewhere.
    let block = [0x00, 0xF8, 0x1F, 0x00, 0b0000_0100, 0, 0, 0];
    mem.write(0x20000, &block).unwrap();
    let s = Surface {
        base: 0x20000,
        desc: desc(Tiling::Linear, 512, (4, 4), 8),
        format: SurfaceFormat::BC1_UNORM,
    };
    assert_eq!(
        s.read_texel(&mem, TexelCoord::xy(0, 0)).unwrap(),
        Texel::Float([1.0, 0.0, 0.0, 1.0])
    );
    assert_eq!(
        s.read_texel(&mem, TexelCoord::xy(1, 0)).unwrap(),
        Texel::Float([0.0, 0.0, 1.0, 1.0])
    );
    // Texel row 63 is block row 15, at 15 * 512 = 7680 bytes: past the one mapped page.
    // The fault names the 8-byte block read at 0x20000 + 7680 = 0x21e00, on page 0x21000.
    assert!(matches!(
        s.read_texel(&mem, TexelCoord::xy(0, 63)),
        Err(SurfaceError::Fault(Fault {
            addr: 0x21e00,
            len: 8,
            page: 0x21000,
            kind: "read"
        }))
    ));
}

#[test]
fn an_srgb_block_format_reads_linear_texels() {
    // The same BC1 block read as BC1_UNORM and as BC1_UNORM_SRGB (and DXT1_RGB_SRGB):
    // color0 = color1 = 0x8410 (R5 = 16, G6 = 32, B5 = 16), so every texel is the
    // expanded colour R = B = (16 << 3 | 16 >> 2) / 255 = 132/255, G = (32 << 2 | 32 >> 4)
    // / 255 = 130/255. sRGB formats give the linear value (seed 000 §2.6: the pre-filtered
    // texel converted to gamma 1.0), worked by hand with the sRGB curve
    // ((c + 0.055) / 1.055)^2.4: 132/255 -> 0.230740, 130/255 -> 0.223228; alpha stays 1.
    let mut mem = AddressSpace::new();
    mem.map(0x20000, 4096);
    mem.write(0x20000, &[0x10, 0x84, 0x10, 0x84, 0, 0, 0, 0])
        .unwrap();
    let read = |format| {
        let s = Surface {
            base: 0x20000,
            desc: desc(Tiling::Linear, 512, (4, 4), 8),
            format,
        };
        match s.read_texel(&mem, TexelCoord::xy(2, 1)).unwrap() {
            Texel::Float(t) => t,
            other => panic!("a float texel, not {other:?}"),
        }
    };
    let unorm = read(SurfaceFormat::BC1_UNORM);
    assert_eq!(unorm, [132.0 / 255.0, 130.0 / 255.0, 132.0 / 255.0, 1.0]);
    for format in [SurfaceFormat::BC1_UNORM_SRGB, SurfaceFormat::DXT1_RGB_SRGB] {
        let t = read(format);
        let want = [0.230_740, 0.223_228, 0.230_740, 1.0];
        for (c, (g, w)) in t.iter().zip(want).enumerate() {
            assert!((g - w).abs() < 2e-6, "{format:?} channel {c}: {g} != {w}");
        }
    }
}

#[test]
fn new_takes_the_block_geometry_from_the_format() {
    // BC1: 4x4 blocks of 64 bits; R16G16B16A16_FLOAT: one texel of 64 bits.
    let d = desc(Tiling::Linear, 512, (1, 1), 1);
    let s = Surface::new(0, d, SurfaceFormat::BC1_UNORM).unwrap();
    assert_eq!((s.desc.block, s.desc.block_bytes), ((4, 4), 8));
    let s = Surface::new(0, d, SurfaceFormat::R16G16B16A16_FLOAT).unwrap();
    assert_eq!((s.desc.block, s.desc.block_bytes), ((1, 1), 8));
    // An ETC format (Bay Trail only) is refused.
    assert!(matches!(
        Surface::new(0, d, SurfaceFormat::ETC1_RGB8),
        Err(SurfaceError::NotIvyBridge(ref name)) if name == "ETC1_RGB8"
    ));
}
