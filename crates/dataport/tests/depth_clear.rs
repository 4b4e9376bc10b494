//! The depth buffer clear (seed 004 §11.5.3.1) made as runs of bytes, page by page,
//! against the same clear made pixel by pixel: the same memory for every tiling, depth
//! format, stencil and pixel set, and the same error for a pixel outside the buffer.

use gtsim_dataport::depth_buffer::{DepthBuffer, DepthOp};
use gtsim_dataport::depth_stencil::{DepthFormat, DepthStencilState};
use gtsim_mem::AddressSpace;
use gtsim_mem::layout::{ArraySpacing, MsaaLayout, SurfaceDesc, SurfaceType};
use gtsim_mem::tiling::Tiling;

const DEPTH: u64 = 0x10_0000;
const STENCIL: u64 = 0x20_0000;

fn desc(w: u32, h: u32, bytes: u32, tiling: Tiling, pitch: u64) -> SurfaceDesc {
    SurfaceDesc {
        ty: SurfaceType::D2,
        width: w,
        height: h,
        depth: 1,
        levels: 1,
        samples: 1,
        msaa_layout: MsaaLayout::Array,
        halign: 4,
        valign: 4,
        array_spacing: ArraySpacing::Full,
        block: (1, 1),
        block_bytes: bytes,
        tiling,
        pitch,
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
        base: DEPTH,
        desc: desc(50, 40, bytes, tiling, 512),
        format,
        lod: 0,
        slice: 0,
        stencil: stencil.then(|| (STENCIL, desc(50, 40, 1, Tiling::W, 128))),
        front: state,
        back: state,
        clear_value: 0x3f12_3456,
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

#[test]
fn a_clear_in_runs_writes_what_pixel_by_pixel_writes() {
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
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
    // running past the right edge).
    let row: Vec<(u32, u32)> = (40..70).map(|x| (x, 2)).collect();
    let scattered = vec![(1, 1), (2, 1), (60, 1), (3, 1)];
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
