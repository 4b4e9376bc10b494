//! The render target write payload layouts (seed 000 §3.9.11.4): which registers carry
//! which slot's channels, worked by hand.

use gtsim_dataport::rt_message::{RtHeader, RtSubtype, RtWrite, decode_payload};
use gtsim_message::MessageError;

/// A register whose dword i is `f(i)`.
fn reg(f: impl Fn(u32) -> u32) -> [u8; 32] {
    let mut r = [0u8; 32];
    for i in 0..8 {
        r[i * 4..i * 4 + 4].copy_from_slice(&f(i as u32).to_le_bytes());
    }
    r
}

/// `r` is the message refused as invalid, the reason saying `why`.
fn assert_invalid<T: std::fmt::Debug>(r: Result<T, MessageError>, why: &str) {
    match r {
        Err(MessageError::Invalid(m)) => assert!(m.contains(why), "{m:?} does not say {why:?}"),
        other => panic!("{other:?}: expected an invalid message ({why})"),
    }
}

fn write(subtype: RtSubtype, hi: bool, header: Option<RtHeader>) -> RtWrite {
    RtWrite {
        subtype,
        slot_group_hi: hi,
        last: true,
        binding_table_index: 3,
        header,
        extended: Default::default(),
    }
}

#[test]
fn simd8_carries_one_register_per_channel() {
    // Channel c of slot s is 100c + s.
    let payload: Vec<[u8; 32]> = (0..4).map(|c| reg(|s| 100 * c + s)).collect();
    let p = decode_payload(&write(RtSubtype::Simd8Lo, false, None), &payload, false).unwrap();
    assert_eq!(p.slots, 0xff);
    assert_eq!(p.colors[5], [5, 105, 205, 305]);
    assert_eq!(p.binding_table_index, 3);
    assert!(p.last);
    assert_eq!(p.header_pixel_mask, None);
}

#[test]
fn simd16_high_slot_group_fills_slots_16_to_31_after_the_header() {
    // Header (two registers), then per channel two registers: slots 0-7, 8-15.
    let mut payload = vec![[0u8; 32]; 2];
    for c in 0..4 {
        payload.push(reg(|s| 1000 * c + s));
        payload.push(reg(|s| 1000 * c + 8 + s));
    }
    let header = RtHeader {
        array_index: 7,
        render_target_index: 2,
        pixel_enables: 0x00f0,
        ..Default::default()
    };
    let p = decode_payload(
        &write(RtSubtype::Simd16, true, Some(header)),
        &payload,
        false,
    )
    .unwrap();
    assert_eq!(p.slots, 0xffff_0000);
    assert_eq!(p.colors[16 + 9], [9, 1009, 2009, 3009]);
    assert_eq!(p.colors[9], [0; 4]);
    assert_eq!(p.array_index, 7);
    assert_eq!(p.render_target_index, 2);
    // The header's 16 enables cover the high slots of the 32-pixel dispatch.
    assert_eq!(p.header_pixel_mask, Some(0x00f0_0000));
}

#[test]
fn short_payloads_and_unmodelled_forms_are_errors() {
    let one = vec![reg(|_| 0)];
    // Four colour registers, no header.
    assert_invalid(
        decode_payload(&write(RtSubtype::Simd8Lo, false, None), &one, false),
        "(\"SIMD8_LO\") needs 4 payload registers, the message has 1",
    );
    let omask = RtHeader {
        omask: true,
        ..Default::default()
    };
    let many = vec![reg(|_| 0); 10];
    // Header (2), oMask (1) and eight colour registers: 11, one more than given.
    assert_invalid(
        decode_payload(&write(RtSubtype::Simd16, false, Some(omask)), &many, false),
        "(\"SIMD16\") needs 11 payload registers, the message has 10",
    );
    let e = decode_payload(
        &write(RtSubtype::Other("SIMD8_IMAGE_WRITE"), false, None),
        &many,
        false,
    )
    .unwrap_err();
    assert!(
        matches!(&e, MessageError::Unsupported(u)
            if u.what.contains("SIMD8_IMAGE_WRITE") && u.reference == "seed 000 §3.9.11"),
        "{e}"
    );
}

/// A linear 4x4 R8G8B8A8_UNORM render target at `base` (16-byte rows) without blending,
/// logic op or write masks.
fn linear_rgba8_4x4(base: u64) -> gtsim_dataport::rt_message::RenderTarget {
    let cc = gtsim_dataport::rt_write::RtState {
        blend: None,
        constant: [0.0; 4],
        pre_clamp: None,
        post_clamp: None,
        logic_op: None,
        logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
        write_disable: [false; 4],
    };
    render_target(
        base,
        gtsim_spec::shared::SurfaceFormat::R8G8B8A8_UNORM,
        4,
        gtsim_mem::tiling::Tiling::Linear,
        (4, 4, 16),
        cc,
    )
}

/// A single-sampled 2D render target at `base` of `(width, height, pitch)` with colour
/// calculator state `cc`, no alpha test.
fn render_target(
    base: u64,
    format: gtsim_spec::shared::SurfaceFormat,
    block_bytes: u32,
    tiling: gtsim_mem::tiling::Tiling,
    (width, height, pitch): (u32, u32, u64),
    cc: gtsim_dataport::rt_write::RtState,
) -> gtsim_dataport::rt_message::RenderTarget {
    use gtsim_mem::layout::SurfaceDesc;
    gtsim_dataport::rt_message::RenderTarget {
        surface: gtsim_mem::surface::Surface {
            base,
            desc: SurfaceDesc::plain_2d(width, height, block_bytes, tiling, pitch),
            format,
        },
        lod: 0,
        min_array_element: 0,
        array_extent: 0,
        clear_color: [false; 4],
        clear_value: None,
        cc,
        alpha_test: None,
        alpha_coverage: Default::default(),
        mcs: None,
    }
}

/// A pixel written through `write_pixel` on a four-byte UNORM8 render target without
/// blending, logic op or write mask (its fast path) holds the bytes the general colour
/// calculator (`color_calc`, checked by hand in tests/color_calc.rs) computes, for
/// every pre-blend clamp and colours out of range, NaN and infinities included, in
/// R8G8B8A8, B8G8R8A8 and B8G8R8X8.
#[test]
fn unorm8_render_target_writes_store_what_the_colour_calculator_computes() {
    use gtsim_dataport::blend::ClampRange;
    use gtsim_dataport::rt_message::write_pixel;
    use gtsim_dataport::rt_write::{RtState, color_calc};
    use gtsim_mem::AddressSpace;
    use gtsim_mem::format::texel::Texel;
    use gtsim_mem::tiling::Tiling;
    use gtsim_spec::shared::SurfaceFormat as F;
    let values = [
        0.0f32,
        -0.0,
        1.0,
        0.5,
        0.25,
        -3.0,
        7.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.001,
        0.998,
        0.5 / 255.0,
        1.5 / 255.0,
        -0.75,
    ];
    let clamps = [
        None,
        Some(ClampRange::Unorm),
        Some(ClampRange::Snorm),
        Some(ClampRange::RtFormat { min: 0.0, max: 1.0 }),
    ];
    for format in [F::R8G8B8A8_UNORM, F::B8G8R8A8_UNORM, F::B8G8R8X8_UNORM] {
        for pre_clamp in clamps {
            let mut mem = AddressSpace::new();
            mem.map(0x10000, 4096);
            let cc = RtState {
                blend: None,
                constant: [0.0; 4],
                pre_clamp,
                post_clamp: None,
                logic_op: None,
                logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
                write_disable: [false; 4],
            };
            let rt = render_target(0x10000, format, 4, Tiling::Linear, (16, 16, 64), cc);
            for (i, &r) in values.iter().enumerate() {
                let c = [
                    r,
                    values[(i + 4) % 15],
                    values[(i + 8) % 15],
                    values[(i + 13) % 15],
                ];
                let (x, y) = (i as u32 % 16, i as u32 / 16);
                assert!(write_pixel(&mut mem, &rt, x, y, 0, c.map(f32::to_bits)).unwrap());
                let want = color_calc(&cc, format, Texel::Float(c), [0.0; 4], &[0; 4]).unwrap();
                let mut got = [0u8; 4];
                mem.read(0x10000 + u64::from(y) * 64 + u64::from(x) * 4, &mut got)
                    .unwrap();
                assert_eq!(got[..], want[..], "{:?} {pre_clamp:?} {c:?}", format.name());
            }
        }
    }
}

/// R8G8B8A8_UINT without blending, logic op or write mask (the byte path of the sink):
/// each channel's unsigned value saturated to 255 (seed 004 §12.1.6.1, integer formats
/// are not blended and take the format's range), worked by hand, both pixel by pixel
/// and as a run.
#[test]
fn uint8_render_target_writes_saturate_each_channel() {
    use gtsim_dataport::rt_message::{PixelSink, write_pixel};
    use gtsim_dataport::rt_write::RtState;
    use gtsim_mem::AddressSpace;
    use gtsim_mem::tiling::Tiling;
    use gtsim_spec::shared::SurfaceFormat as F;
    let cc = RtState {
        blend: None,
        constant: [0.0; 4],
        pre_clamp: None,
        post_clamp: None,
        logic_op: None,
        logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
        write_disable: [false; 4],
    };
    let rt = render_target(
        0x10000,
        F::R8G8B8A8_UINT,
        4,
        Tiling::Linear,
        (16, 4, 64),
        cc,
    );
    let colors = [
        [300, 7, 255, 0],
        [0xffff_ffff, 256, 1, 254],
        [300, 7, 255, 0],
    ];
    let want: [[u8; 4]; 3] = [[255, 7, 255, 0], [255, 255, 1, 254], [255, 7, 255, 0]];
    let mut mem = AddressSpace::new();
    mem.map(0x10000, 4096);
    for (x, c) in colors.iter().enumerate() {
        assert!(write_pixel(&mut mem, &rt, x as u32, 0, 0, *c).unwrap());
    }
    PixelSink::new(&rt, 0)
        .write_run(&mut mem, 4, 1, &colors)
        .unwrap();
    for (i, w) in want.iter().enumerate() {
        for (row, x0) in [(0u64, 0u64), (1, 4)] {
            let mut got = [0u8; 4];
            mem.read(0x10000 + row * 64 + (x0 + i as u64) * 4, &mut got)
                .unwrap();
            assert_eq!(&got, w, "pixel {i} of row {row}");
        }
    }
}

/// A run of pixels written with `PixelSink::write_run` leaves memory exactly as the
/// same pixels written one by one with `PixelSink::write` (the per-pixel path), for the
/// UNORM8 fast path and the general colour calculator (8- and 16-byte formats), with
/// and without reading the destination (a write-disabled channel), over linear, X- and
/// Y-tiled surfaces, for runs inside the surface, crossing its right edge, below its
/// bottom and across an unmapped page (where both report the same error), of distinct
/// and of repeated colours.
#[test]
fn a_run_of_pixels_writes_what_the_pixels_write_one_by_one() {
    use gtsim_dataport::rt_message::PixelSink;
    use gtsim_dataport::rt_write::RtState;
    use gtsim_mem::AddressSpace;
    use gtsim_mem::tiling::Tiling;
    use gtsim_spec::shared::SurfaceFormat as F;
    let base = 0x10000u64;
    let fresh = |hole: bool| {
        let mut m = AddressSpace::new();
        m.map(base, 0x10000);
        let pattern: Vec<u8> = (0..0x10000u32).map(|i| (i * 7 + i / 256) as u8).collect();
        m.load(base, &pattern);
        if hole {
            // Unmap the second page by building the space without it.
            let mut h = AddressSpace::new();
            h.load(base, &pattern[..0x1000]);
            h.load(base + 0x2000, &pattern[0x2000..]);
            return h;
        }
        m
    };
    let mut runs = 0;
    for (format, bytes) in [
        (F::R8G8B8A8_UNORM, 4u32),
        (F::R16G16B16A16_FLOAT, 8),
        (F::R32G32B32A32_FLOAT, 16),
    ] {
        for tiling in [Tiling::Linear, Tiling::X, Tiling::Y] {
            for mask in [[false; 4], [false, true, false, false]] {
                for hole in [false, true] {
                    let cc = RtState {
                        blend: None,
                        constant: [0.0; 4],
                        pre_clamp: None,
                        post_clamp: None,
                        logic_op: None,
                        logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
                        write_disable: mask,
                    };
                    let rt = render_target(base, format, bytes, tiling, (40, 20, 1024), cc);
                    let sink = PixelSink::new(&rt, 0);
                    for (x0, y, len) in [
                        (0u32, 0u32, 32usize),
                        (3, 1, 13),
                        (30, 5, 16),
                        (38, 19, 8),
                        (5, 20, 4),
                        (0, 9, 1),
                        (14, 3, 25),
                    ] {
                        // Distinct colours, or (every other run) colours repeated
                        // three times over, as a clear's or a flat surface's are.
                        let repeat = 1 + 2 * (x0 % 2);
                        let colors: Vec<[u32; 4]> = (0..len as u32)
                            .map(|i| {
                                let v = ((x0 + i) / repeat) as f32 / 40.0;
                                [v, 1.0 - v, 0.25 * v, 0.5].map(f32::to_bits)
                            })
                            .collect();
                        let (mut a, mut b) = (fresh(hole), fresh(hole));
                        let run = sink.write_run(&mut a, x0, y, &colors);
                        let mut single = Ok(());
                        for (i, &c) in colors.iter().enumerate() {
                            if let Err(e) = sink.write(&mut b, x0 + i as u32, y, c) {
                                single = Err(e);
                                break;
                            }
                        }
                        let what = format!(
                            "{:?} {tiling:?} {mask:?} hole {hole} run ({x0}, {y}) x{len}",
                            format.name()
                        );
                        assert_eq!(
                            run.map_err(|e| e.to_string()),
                            single.map_err(|e| e.to_string()),
                            "{what}"
                        );
                        for page in [base, base + 0x2000, base + 0x3000, base + 0x8000] {
                            let (mut pa, mut pb) = (vec![0u8; 0x1000], vec![0u8; 0x1000]);
                            a.read(page, &mut pa).unwrap();
                            b.read(page, &mut pb).unwrap();
                            assert!(pa == pb, "{what}: page {page:#x} differs");
                        }
                        runs += 1;
                    }
                }
            }
        }
    }
    assert_eq!(runs, 3 * 3 * 2 * 2 * 7);
}

/// A cube render target's Render Target Array Index is the face (seed 000 §3.9.11
/// header: "+x 0 ... -z 5", range checked "with a depth value of 5" for cubes): on a
/// linear 4x4 R8G8B8A8 cube with LOD0 array spacing (QPitch 4 rows of 16 bytes), face 3's
/// pixel (1, 0) is at 3 · 64 + 4; index 6 is out of range and writes face 0 (the Minimum
/// Array Element).
#[test]
fn a_cube_targets_array_index_selects_the_face() {
    use gtsim_mem::layout::{ArraySpacing, SurfaceType};
    let base = 0x4000;
    let mut rt = linear_rgba8_4x4(base);
    rt.surface.desc.ty = SurfaceType::Cube;
    rt.surface.desc.array_spacing = ArraySpacing::Lod0;
    // What the Gen7 front gives a cube with Minimum Array Element 0: faces 0 to 5.
    rt.array_extent = 5;
    let mut mem = gtsim_mem::AddressSpace::new();
    mem.map(base, 0x1000);
    let red = [1.0f32, 0.0, 0.0, 1.0].map(f32::to_bits);
    gtsim_dataport::rt_message::PixelSink::new(&rt, 3)
        .write(&mut mem, 1, 0, red)
        .unwrap();
    gtsim_dataport::rt_message::PixelSink::new(&rt, 6)
        .write(&mut mem, 2, 0, red)
        .unwrap();
    let byte = |off: u64| {
        let mut b = [0u8; 4];
        gtsim_mem::Memory::read(&mem, base + off, &mut b).unwrap();
        b
    };
    assert_eq!(byte(3 * 64 + 4), [255, 0, 0, 255]);
    assert_eq!(byte(8), [255, 0, 0, 255]);
    assert_eq!(byte(6 * 64 + 8), [0; 4]);
}

/// Minimum Array Element "is added to the delivered array index before it is used to
/// address the surface" (seed 000 §2.12.2), and an index out of bounds "is set to zero"
/// (§3.9): a linear 4x4 R8G8B8A8 2D array with LOD0 spacing (64 bytes a slice) viewed
/// from element 1 with Depth 2 (elements 1 to 3). Index 2 writes slice 3 (at 3 · 64 + 4
/// for pixel (1, 0)), index 3 is past Depth and writes slice 1 (64 + 8 for pixel (2, 0)),
/// and slice 2 is untouched.
#[test]
fn the_array_index_counts_from_the_minimum_array_element() {
    use gtsim_mem::layout::ArraySpacing;
    let base = 0x4000;
    let mut rt = linear_rgba8_4x4(base);
    rt.surface.desc.array_spacing = ArraySpacing::Lod0;
    rt.surface.desc.depth = 4;
    rt.min_array_element = 1;
    rt.array_extent = 2;
    let mut mem = gtsim_mem::AddressSpace::new();
    mem.map(base, 0x1000);
    let red = [1.0f32, 0.0, 0.0, 1.0].map(f32::to_bits);
    gtsim_dataport::rt_message::PixelSink::new(&rt, 2)
        .write(&mut mem, 1, 0, red)
        .unwrap();
    gtsim_dataport::rt_message::PixelSink::new(&rt, 3)
        .write(&mut mem, 2, 0, red)
        .unwrap();
    let slice = |s: u64| {
        let mut b = [0u8; 64];
        gtsim_mem::Memory::read(&mem, base + s * 64, &mut b).unwrap();
        b
    };
    let mut want3 = [0u8; 64];
    want3[4..8].copy_from_slice(&[255, 0, 0, 255]);
    let mut want1 = [0u8; 64];
    want1[8..12].copy_from_slice(&[255, 0, 0, 255]);
    assert_eq!(slice(3), want3);
    assert_eq!(slice(1), want1);
    assert_eq!(slice(2), [0u8; 64]);
    assert_eq!(slice(0), [0u8; 64]);
}

/// Gen9+ computed stencil (header bit 14, Stencil Present to Render Target): in a SIMD8
/// write the stencil register follows the colours and source depth, its bytes 7:0 the
/// eight slots' stencil reference values (Mesa's "FB write OS"); a SIMD16 write cannot
/// carry one.
#[test]
fn computed_stencil_follows_the_colours_and_depth_in_simd8_writes() {
    let header = RtHeader {
        source_depth: true,
        stencil: true,
        ..Default::default()
    };
    let mut payload = vec![[0u8; 32]; 2];
    payload.extend((0..4).map(|c| reg(|s| 100 * c + s)));
    payload.push(reg(|s| 0x3f80_0000 + s));
    let mut st = [0u8; 32];
    st[..8].copy_from_slice(&[9, 8, 7, 6, 5, 4, 3, 2]);
    payload.push(st);
    let p = decode_payload(
        &write(RtSubtype::Simd8Lo, false, Some(header)),
        &payload,
        false,
    )
    .unwrap();
    let stencil = p.stencil.unwrap();
    assert_eq!(stencil[..8], [9, 8, 7, 6, 5, 4, 3, 2]);
    assert_eq!(p.depth.unwrap()[3], 0x3f80_0003);
    // One register short: the stencil is missing.
    // Header 2, colours 4, depth 1, stencil 1: 8 registers.
    assert_invalid(
        decode_payload(
            &write(RtSubtype::Simd8Lo, false, Some(header)),
            &payload[..payload.len() - 1],
            false,
        ),
        "(\"SIMD8_LO\") needs 8 payload registers, the message has 7",
    );
    let many = vec![[0u8; 32]; 12];
    assert_invalid(
        decode_payload(&write(RtSubtype::Simd16, false, Some(header)), &many, false),
        "a SIMD16 render target write with Stencil Present",
    );
}
