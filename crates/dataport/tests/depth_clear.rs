//! The depth buffer clear (seed 004 §11.5.3.1) made as runs of bytes, page by page,
//! against the same clear made pixel by pixel: the same memory for every tiling, depth
//! format, stencil and pixel set, and the same error for a pixel outside the buffer. And
//! the depth test of a row of pixels (`DepthAccess::row`, neighbours in memory read and
//! written together) against the same test pixel by pixel.

use gtsim_dataport::depth_buffer::{DepthBuffer, DepthOp};
use gtsim_dataport::depth_stencil::{DepthFormat, DepthStencilState};
use gtsim_mem::AddressSpace;
use gtsim_mem::layout::SurfaceDesc;
use gtsim_mem::tiling::Tiling;

const DEPTH: u64 = 0x10_0000;
const STENCIL: u64 = 0x20_0000;

fn desc(w: u32, h: u32, bytes: u32, tiling: Tiling, pitch: u64) -> SurfaceDesc {
    SurfaceDesc {
        valign: 4,
        ..SurfaceDesc::plain_2d(w, h, bytes, tiling, pitch)
    }
}

fn buffer(tiling: Tiling, format: DepthFormat, stencil: bool, write: bool) -> DepthBuffer {
    let bytes = if format == DepthFormat::D16Unorm {
        2
    } else {
        4
    };
    let state = DepthStencilState {
        depth_test: None,
        depth_write: write,
        depth_range: [0.0, 1.0],
        stencil: None,
        stencil_write: false,
    };
    DepthBuffer {
        samples: 1,
        base: DEPTH,
        desc: desc(50, 40, bytes, tiling, 512),
        format,
        lod: 0,
        slice: 0,
        array_extent: 0,
        stencil: stencil.then(|| (STENCIL, desc(50, 40, 1, Tiling::W, 128))),
        front: state,
        back: state,
        clear_value: Some(0x3f12_3456),
        stencil_clear: stencil.then_some(0x5a),
        op: DepthOp::Clear,
    }
}

fn memory() -> AddressSpace {
    let mut m = AddressSpace::new();
    // Every byte distinct, so that a byte written that should not be shows.
    let fill: Vec<u8> = (0..0x10000u32).map(|i| (i * 7 + i / 251) as u8).collect();
    m.load(DEPTH, &fill);
    m.load(STENCIL, &fill);
    m
}

fn snapshot(m: &AddressSpace) -> Vec<u8> {
    let mut out = vec![0u8; 0x20000];
    m.read(DEPTH, &mut out[..0x10000]).unwrap();
    m.read(STENCIL, &mut out[0x10000..]).unwrap();
    out
}

/// The project's seeded generator (`gtsim_fuzzkit::Rng`) from `seed`: each call gives a
/// number below its argument.
fn below(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut rng = gtsim_fuzzkit::Rng::new(gtsim_fuzzkit::seed(seed));
    move |n| rng.below(n as usize) as u64
}

#[test]
fn a_clear_in_runs_writes_what_pixel_by_pixel_writes() {
    let mut next = below(0x1234_5678_9abc_def1);
    let mut cases = 0;
    for tiling in [Tiling::Linear, Tiling::X, Tiling::Y] {
        for format in [
            DepthFormat::D32Float,
            DepthFormat::D24Unorm,
            DepthFormat::D16Unorm,
        ] {
            for (stencil, write) in [(false, true), (true, true), (true, false)] {
                let d = buffer(tiling, format, stencil, write);
                // A rectangle, then scattered pixels in no particular order.
                let rect: Vec<(u32, u32)> =
                    (3..37).flat_map(|y| (5..45).map(move |x| (x, y))).collect();
                let scattered: Vec<(u32, u32)> = (0..300)
                    .map(|_| (next(50) as u32, next(40) as u32))
                    .collect();
                for pixels in [rect, scattered] {
                    let mut one_by_one = memory();
                    for &(x, y) in &pixels {
                        assert!(!d.pixel(&mut one_by_one, x, y, 0.5, false).unwrap());
                    }
                    let mut runs = memory();
                    d.access().clear(&mut runs, &pixels).unwrap();
                    assert!(
                        snapshot(&runs) == snapshot(&one_by_one),
                        "{tiling:?} {format:?} stencil {stencil} write {write}"
                    );
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 54);
}

#[test]
fn a_pixel_outside_stops_the_clear_after_the_pixels_before_it() {
    // With a stencil buffer (pixel by pixel) and without (runs along rows, one of them
    // running past the pitch: 512 bytes, 128 D32 pixels; the W-tiled stencil's pitch is
    // 128 bytes). Pixels past the 50-pixel width but within the pitch are written
    // (`past_the_lods_edge_within_the_pitch_is_addressed`).
    let row: Vec<(u32, u32)> = (110..140).map(|x| (x, 2)).collect();
    let scattered = vec![(1, 1), (2, 1), (130, 1), (3, 1)];
    for stencil in [true, false] {
        for pixels in [&scattered, &row] {
            let d = buffer(Tiling::Y, DepthFormat::D32Float, stencil, true);
            let mut one_by_one = memory();
            let mut want = None;
            for &(x, y) in pixels {
                if let Err(e) = d.pixel(&mut one_by_one, x, y, 0.5, false) {
                    want = Some(e);
                    break;
                }
            }
            let mut runs = memory();
            let got = d.access().clear(&mut runs, pixels).unwrap_err();
            assert_eq!(Some(got), want, "stencil {stencil}");
            assert!(
                snapshot(&runs) == snapshot(&one_by_one),
                "stencil {stencil}"
            );
        }
    }
}

/// The hardware addresses a depth pixel by its position, not bounded by the LOD's size
/// (crocus draws HiZ depth LODs with an 8x4-aligned drawing rectangle past a 4x4 LOD):
/// pixel (60, 3) of the linear 50x40 D32 buffer with a 512-byte pitch is at 3 · 512 +
/// 60 · 4; past the pitch (x 128) is an error naming the pixel.
#[test]
fn past_the_lods_edge_within_the_pitch_is_addressed() {
    let d = buffer(Tiling::Linear, DepthFormat::D32Float, false, true);
    let mut m = memory();
    d.access().clear(&mut m, &[(60, 3)]).unwrap();
    let mut got = [0u8; 4];
    m.read(DEPTH + 3 * 512 + 60 * 4, &mut got).unwrap();
    assert_eq!(u32::from_le_bytes(got), 0x3f12_3456);
    let e = d.pixel(&mut m, 128, 3, 0.5, false).unwrap_err();
    assert!(
        matches!(&e, gtsim_message::MessageError::State { structure: "3DSTATE_DEPTH_BUFFER", why }
            if why.contains("pixel (128, 3): x 128 is outside")),
        "{e:?}"
    );
}

/// A row's depth test (`DepthAccess::row`) leaves the memory, the passing pixels and the
/// error of the same test made pixel by pixel (`DepthBuffer::pixel`, whose results the
/// depth-stencil tests check by hand): every tiling and depth format, tests with and
/// without depth writes, a stencil buffer (which takes the pixel-by-pixel path), rows
/// crossing tile edges and the buffer's right edge, and rows on unmapped pages.
#[test]
fn a_row_tests_what_pixel_by_pixel_tests() {
    use gtsim_spec::shared::ThreeDCompareFunction as F;
    let mut next = below(0x9e37_79b9_7f4a_7c15);
    let (mut cases, mut faults, mut passes) = (0, 0, 0);
    for tiling in [Tiling::Linear, Tiling::X, Tiling::Y] {
        for format in [
            DepthFormat::D32Float,
            DepthFormat::D24Unorm,
            DepthFormat::D16Unorm,
        ] {
            for (test, write, stencil) in [
                (Some(F::COMPAREFUNCTION_LESS), true, false),
                (Some(F::COMPAREFUNCTION_GEQUAL), false, false),
                (Some(F::COMPAREFUNCTION_ALWAYS), true, false),
                (None, true, false),
                (Some(F::COMPAREFUNCTION_LESS), true, true),
            ] {
                let mut d = buffer(tiling, format, stencil, write);
                d.op = DepthOp::Test;
                d.front.depth_test = test;
                d.back.depth_test = test;
                // 200 rows: those past the first 64 KiB are not mapped.
                d.desc.height = 200;
                for _ in 0..40 {
                    let (x0, y) = (next(50) as u32, next(200) as u32);
                    let n = 1 + next(32) as usize;
                    let zs: Vec<f32> = (0..n).map(|_| next(1400) as f32 / 1000.0 - 0.2).collect();
                    let back = next(2) == 0;
                    let mut one_by_one = memory();
                    let mut want = (0u32, None);
                    for (i, &z) in zs.iter().enumerate() {
                        match d.pixel(&mut one_by_one, x0 + i as u32, y, z, back) {
                            Ok(true) => want.0 |= 1 << i,
                            Ok(false) => {}
                            Err(e) => {
                                want.1 = Some(e.to_string());
                                break;
                            }
                        }
                    }
                    let mut rows = memory();
                    let (pass, error) = d.access().row(&mut rows, (x0, y), &zs, back);
                    let what = format!(
                        "{tiling:?} {format:?} {test:?} write {write} stencil {stencil} row ({x0}, {y}) x {n}"
                    );
                    assert_eq!((pass, error.map(|e| e.to_string())), want, "{what}");
                    assert!(snapshot(&rows) == snapshot(&one_by_one), "{what}");
                    cases += 1;
                    faults += usize::from(want.1.is_some());
                    passes += want.0.count_ones();
                }
            }
        }
    }
    assert_eq!(cases, 1800);
    assert!(faults > 100, "{faults} rows failed");
    assert!(passes > 5000, "{passes} pixels passed");
}

/// A computed stencil reference (Pixel Shader Computes Stencil) replaces the state's:
/// with ALWAYS and REPLACE, pixel (3, 2) takes the shader's 0x42, not the state's 0x11;
/// in a 2x buffer, sample 1 of pixel (3, 2) is at (7, 2) of the interleaved plane
/// (X' = (X & !1) * 2 + (S & 1) * 2 + (X & 1)).
#[test]
fn a_computed_stencil_reference_replaces_the_states() {
    use gtsim_dataport::depth_stencil::StencilFace;
    use gtsim_spec::shared::{ThreeDCompareFunction as Cf, ThreeDStencilOperation as Op};
    let mut b = buffer(Tiling::Y, DepthFormat::D32Float, true, false);
    b.op = DepthOp::Test;
    let face = StencilFace {
        func: Cf::COMPAREFUNCTION_ALWAYS,
        fail: Op::STENCILOP_KEEP,
        depth_fail: Op::STENCILOP_KEEP,
        pass: Op::STENCILOP_REPLACE,
        reference: 0x11,
        test_mask: 0xff,
        write_mask: 0xff,
    };
    b.front.stencil = Some(face);
    b.front.stencil_write = true;
    b.back = b.front;
    let stencil_at = |b: &DepthBuffer, mem: &AddressSpace, x: u32, y: u32| {
        let (_, d) = b.stencil.unwrap();
        let o = d.texel_offset(x, y, 0, 0, 0).unwrap();
        let mut v = [0u8];
        gtsim_mem::Memory::read(mem, STENCIL + o, &mut v).unwrap();
        v[0]
    };
    let mut mem = memory();
    let a = b.access();
    assert!(
        a.pixel_with_reference(&mut mem, (3, 2), 0.5, false, 0x42)
            .unwrap()
    );
    assert_eq!(stencil_at(&b, &mem, 3, 2), 0x42);
    assert!(a.pixel(&mut mem, 4, 2, 0.5, false).unwrap());
    assert_eq!(stencil_at(&b, &mem, 4, 2), 0x11);
    // Two samples per pixel, interleaved in the plane.
    let mut two = b;
    two.samples = 2;
    let mut mem = memory();
    let a = two.access();
    assert!(
        a.sample_with_reference(&mut mem, (3, 2, 1), 0.5, false, Some(0x37))
            .unwrap()
    );
    assert_eq!(stencil_at(&two, &mem, 7, 2), 0x37);
}

/// Seed 004 3DSTATE_DEPTH_BUFFER Minimum Array Element: "The delivered array index is
/// added to this field before being used to address the surface". A linear D32 array
/// of 4x4 slices 4 rows (64 bytes) apart, Minimum Array Element 1 and Depth 1 (two
/// slices reachable): a clear at Render Target Array Index 1 writes slice 2 (byte 128),
/// an index past the Depth field addresses slice 1 (byte 64), as a render target's
/// does, and slices 0 and 3 keep their bytes.
#[test]
fn the_render_target_array_index_selects_the_slice_from_minimum_array_element() {
    use gtsim_mem::layout::ArraySpacing;
    let mut b = buffer(Tiling::Linear, DepthFormat::D32Float, false, true);
    b.desc = SurfaceDesc {
        depth: 4,
        valign: 4,
        array_spacing: ArraySpacing::QPitch(4),
        ..SurfaceDesc::plain_2d(4, 4, 4, Tiling::Linear, 16)
    };
    b.slice = 1;
    b.array_extent = 1;
    let mut m = memory();
    let before = snapshot(&m);
    b.access_at(1).clear(&mut m, &[(0, 0)]).unwrap();
    b.access_at(7).clear(&mut m, &[(0, 0)]).unwrap();
    let after = snapshot(&m);
    let cleared = 0x3f12_3456u32.to_le_bytes();
    assert_eq!(after[128..132], cleared, "slice 2");
    assert_eq!(after[64..68], cleared, "slice 1");
    for (i, (a, b)) in before.iter().zip(&after).enumerate() {
        if !(64..68).contains(&i) && !(128..132).contains(&i) {
            assert_eq!(a, b, "byte {i}");
        }
    }
}
