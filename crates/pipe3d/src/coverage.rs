//! Multisample rasterization (seed 004 §11.4): which samples of each pixel an object
//! covers, at the sample positions of 3DSTATE_MULTISAMPLE.
//!
//! * Each sample lies at its offset from the pixel's upper-left corner, in sixteenths of
//!   a pixel (§11.4.2 "Sample*n* X/Y Offset", U0.4), on the same snapped edge functions
//!   and with the same upper-left rule as single-sample rasterization ([`crate::raster`]):
//!   a sample on a shared edge belongs to exactly one of the triangles sharing it.
//! * A pixel is rasterized when at least one of its samples is covered; its coverage
//!   mask has bit *n* set for sample *n* (the bit order of 3DSTATE_SAMPLE_MASK, §11.2.5).
//! * In the PIXEL modes (and for lines with multisample rasterization OFF), objects are
//!   rasterized at the pixel location and every sample of a covered pixel is covered
//!   (§11.4.1); that case needs no pattern and stays in [`crate::raster`].
//! * Lines rasterized per sample (MSRASTMODE_ON_*) are rectangles of their width (at
//!   least one pixel) centred on the line, from end to end: the seed gives no other shape
//!   for them, and it is the one the DirectX 10 rules it follows elsewhere (§10.3.12.3)
//!   use for multisampled lines.

use crate::raster::{PointRule, RasterState, Setup, Winding};

/// A pixel's samples as a bit mask, and the most samples per pixel (16 on Gen9+).
pub use gtsim_dataport::rt_samples::{MAX_SAMPLES, SampleMask};

/// The sample positions of a multisampled surface (3DSTATE_MULTISAMPLE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplePattern {
    /// Samples per pixel (1, 4 or 8 on Gen7; 2 and 16 too on Gen11).
    pub count: u32,
    /// Each sample's X and Y offset from the pixel's upper-left corner, in sixteenths.
    pub offsets: [[u8; 2]; MAX_SAMPLES],
}

impl SamplePattern {
    /// The pattern of the samples at `offsets`, in pixels from the pixel's upper-left
    /// corner as the state's U0.4 fields decode (3DSTATE_MULTISAMPLE on Gen7,
    /// 3DSTATE_SAMPLE_PATTERN on Gen8+): each kept in sixteenths of a pixel, at most
    /// [`MAX_SAMPLES`].
    pub fn from_offsets(offsets: &[[f64; 2]]) -> SamplePattern {
        let mut out = [[8u8; 2]; MAX_SAMPLES];
        for (o, xy) in out.iter_mut().zip(offsets) {
            *o = xy.map(|v| (v * 16.0).round().clamp(0.0, 15.0) as u8);
        }
        SamplePattern {
            count: offsets.len().min(MAX_SAMPLES) as u32,
            offsets: out,
        }
    }

    /// Every sample's bit.
    pub fn all(&self) -> SampleMask {
        ((1u32 << self.count.min(MAX_SAMPLES as u32)) - 1) as SampleMask
    }

    /// The samples' offsets in the rasterizer's subpixel units.
    fn subpixel(&self, s: &RasterState) -> Vec<[i64; 2]> {
        let shift = s.subpixel.bits() - 4;
        self.offsets[..(self.count as usize).min(MAX_SAMPLES)]
            .iter()
            .map(|o| o.map(|v| i64::from(v & 15) << shift))
            .collect()
    }
}

/// Covered pixels in raster order and, for each, its sample coverage mask.
pub type Covered = (Vec<(u32, u32)>, Vec<SampleMask>);

/// The state with its sampling grid at the pixels' upper-left corners, which the sample
/// offsets are relative to (a pixel box found there holds every pixel any sample of
/// which can be covered, for offsets in [0, 1)).
fn corner_grid(s: &RasterState) -> RasterState {
    RasterState {
        half_pixel_centers: false,
        ..*s
    }
}

/// The samples of `setups` (triangles whose covered samples are distinct or may be
/// merged) row by row.
fn sample_rows(setups: &[Setup], pattern: &SamplePattern, s: &RasterState) -> Covered {
    let offsets = pattern.subpixel(s);
    let (mut pixels, mut masks) = (vec![], vec![]);
    let Some(top) = setups.iter().map(|t| *t.ys.start()).min() else {
        return (pixels, masks);
    };
    let bottom = setups.iter().map(|t| *t.ys.end()).max().unwrap_or(top);
    let mut row: Vec<SampleMask> = vec![];
    for py in top..=bottom {
        let spans: Vec<(usize, (i64, i64))> = setups
            .iter()
            .flat_map(|t| {
                offsets
                    .iter()
                    .enumerate()
                    .filter_map(move |(k, &o)| t.span_at(py, o).map(|r| (k, r)))
            })
            .collect();
        let Some(first) = spans.iter().map(|(_, r)| r.0).min() else {
            continue;
        };
        let last = spans.iter().map(|(_, r)| r.1).max().unwrap_or(first);
        row.clear();
        row.resize((last - first + 1) as usize, 0);
        for &(k, (a, b)) in &spans {
            for m in &mut row[(a - first) as usize..=(b - first) as usize] {
                *m |= 1 << k;
            }
        }
        for (i, &m) in row.iter().enumerate() {
            if m != 0 {
                pixels.push(((first + i as i64) as u32, py as u32));
                masks.push(m);
            }
        }
    }
    (pixels, masks)
}

/// The samples a triangle covers, and its winding (`None`: degenerate, nothing covered).
pub fn triangle(
    v: [[f32; 2]; 3],
    s: &RasterState,
    pattern: &SamplePattern,
) -> (Covered, Option<Winding>) {
    let g = corner_grid(s);
    let Some((t, winding)) = Setup::new(v, &g) else {
        return ((vec![], vec![]), None);
    };
    (sample_rows(&[t], pattern, &g), Some(winding))
}

/// The samples a RECTLIST rectangle covers: the two triangles of
/// [`crate::raster::rectangle`], sampled at the pattern.
pub fn rectangle(v: [[f32; 2]; 3], s: &RasterState, pattern: &SamplePattern) -> Covered {
    let g = corner_grid(s);
    let v3 = [v[0][0] - v[1][0] + v[2][0], v[0][1] - v[1][1] + v[2][1]];
    let halves: Vec<Setup> = [[v[0], v[1], v[2]], [v[0], v[2], v3]]
        .into_iter()
        .filter_map(|t| Setup::new(t, &g).map(|(t, _)| t))
        .collect();
    sample_rows(&halves, pattern, &g)
}

/// The samples a point of width `size` centred at `c` covers: the square of
/// [`crate::raster::point`] with its edge rule, sampled at the pattern.
pub fn point(
    c: [f32; 2],
    size: f32,
    rule: PointRule,
    s: &RasterState,
    pattern: &SamplePattern,
) -> Covered {
    let Some([x0, x1, y0, y1]) = crate::raster::point_square(c, size, s) else {
        return (vec![], vec![]);
    };
    let one = 1i64 << s.subpixel.bits();
    let in_x = |q: i64| match rule {
        PointRule::UpperLeft => q >= x0 && q < x1,
        PointRule::UpperRight => q > x0 && q <= x1,
    };
    let in_y = |q: i64| q >= y0 && q < y1;
    let offsets = pattern.subpixel(s);
    let [rx0, ry0, rx1, ry1] = s.rect.map(i64::from);
    let (mut pixels, mut masks) = (vec![], vec![]);
    for py in y0.div_euclid(one).max(ry0)..=y1.div_euclid(one).min(ry1) {
        for px in x0.div_euclid(one).max(rx0)..=x1.div_euclid(one).min(rx1) {
            let mut m: SampleMask = 0;
            for (k, o) in offsets.iter().enumerate() {
                if in_x(px * one + o[0]) && in_y(py * one + o[1]) {
                    m |= 1 << k;
                }
            }
            if m != 0 {
                pixels.push((px as u32, py as u32));
                masks.push(m);
            }
        }
    }
    (pixels, masks)
}

/// The samples a multisampled line from `a` to `b` covers: the rectangle of width
/// `width` (at least 1) centred on it from end to end (see the module docs).
pub fn line(
    a: [f32; 2],
    b: [f32; 2],
    width: f32,
    s: &RasterState,
    pattern: &SamplePattern,
) -> Covered {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len = (dx * dx + dy * dy).sqrt();
    if len == 0.0 || !len.is_finite() {
        return (vec![], vec![]);
    }
    let h = width.max(1.0) / 2.0;
    let n = [-dy / len * h, dx / len * h];
    let corner = |p: [f32; 2], k: f32| [p[0] + k * n[0], p[1] + k * n[1]];
    let (a0, a1, b0, b1) = (
        corner(a, 1.0),
        corner(a, -1.0),
        corner(b, -1.0),
        corner(b, 1.0),
    );
    let g = corner_grid(s);
    let halves: Vec<Setup> = [[a0, a1, b0], [a0, b0, b1]]
        .into_iter()
        .filter_map(|t| Setup::new(t, &g).map(|(t, _)| t))
        .collect();
    sample_rows(&halves, pattern, &g)
}
