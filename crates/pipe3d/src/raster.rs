//! Triangle coverage: which pixels a screen-space triangle lights.
//!
//! * Positions are quantized to 4 or 8 fractional bits by rounding to nearest even
//!   (seed 004 §10.3, L6861: "Vertex SubPixel Precision Select").
//! * Pixels are sampled at the pixel origin plus the destination origin bias: 0.5 for
//!   OpenGL's half-integer grid, 0 for the integer grid (§10.3.3, L6716-6722).
//! * A sample strictly inside every edge is covered; a sample exactly on an edge is
//!   covered only if that edge is a top edge (horizontal, interior below) or a left edge
//!   (interior to its right) — the upper-left rule the seed names for polygons and
//!   points (§10.3.4, L6733-6735, RASTRULE_UPPER_LEFT), so triangles sharing an edge
//!   light each pixel once.
//!
//! Edge functions are evaluated exactly in 64-bit integers on the snapped positions.

/// Fractional bits of the snapped positions: 4 or 8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubpixelBits {
    /// 4 fractional bits (1/16 pixel).
    Four,
    /// 8 fractional bits (1/256 pixel).
    Eight,
}

impl SubpixelBits {
    pub(crate) fn bits(self) -> u32 {
        match self {
            SubpixelBits::Four => 4,
            SubpixelBits::Eight => 8,
        }
    }
}

/// Snaps a screen coordinate to the subpixel grid, round to nearest even; `None` for NaN
/// or a magnitude of 2^20 pixels or more — far outside any Gen7 guard band (render
/// targets are at most 16K), so the clip stage never delivers such positions and edge
/// products stay exact in 64 bits.
pub fn snap(v: f32, bits: SubpixelBits) -> Option<i64> {
    let scaled = (v as f64) * (1u64 << bits.bits()) as f64;
    if !scaled.is_finite() || (v as f64).abs() >= (1u64 << 20) as f64 {
        return None;
    }
    Some(gtsim_mem::format::texel::round_even(scaled) as i64)
}

/// The rasterizer's view of the state: subpixel precision, sampling grid and the
/// inclusive drawing rectangle (§11.3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RasterState {
    /// Subpixel precision.
    pub subpixel: SubpixelBits,
    /// Sample at pixel centres (bias 0.5, OpenGL) rather than integer points.
    pub half_pixel_centers: bool,
    /// Inclusive drawing rectangle: x min, y min, x max, y max.
    pub rect: [u32; 4],
}

/// The triangle's winding in screen space (y down): `Ccw` when the vertices go
/// counter-clockwise on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Winding {
    /// Clockwise on screen.
    Cw,
    /// Counter-clockwise on screen.
    Ccw,
}

/// Subpixel units per pixel and the sample offset inside a pixel (§10.3.3).
fn grid(s: &RasterState) -> (i64, i64) {
    let one = 1i64 << s.subpixel.bits();
    (one, if s.half_pixel_centers { one / 2 } else { 0 })
}

/// The pixels whose samples can fall in the snapped box `lo..=hi`, clipped to the
/// inclusive drawing rectangle (§11.3.1).
fn pixel_box(
    lo: [i64; 2],
    hi: [i64; 2],
    s: &RasterState,
) -> (std::ops::RangeInclusive<i64>, std::ops::RangeInclusive<i64>) {
    let (one, bias) = grid(s);
    let [rx0, ry0, rx1, ry1] = s.rect.map(|v| v as i64);
    let span = |l: i64, h: i64, rmin: i64, rmax: i64| {
        ((l - bias).div_euclid(one)).max(rmin)..=((h - bias).div_euclid(one) + 1).min(rmax)
    };
    (span(lo[0], hi[0], rx0, rx1), span(lo[1], hi[1], ry0, ry1))
}

/// Pixels a triangle covers (row by row, left to right) and its winding; an empty list
/// for a degenerate or NaN triangle.
pub fn triangle(v: [[f32; 2]; 3], s: &RasterState) -> (Vec<(u32, u32)>, Option<Winding>) {
    let Some((t, winding)) = Setup::new(v, s) else {
        return (vec![], None);
    };
    let mut out = Vec::with_capacity(t.box_pixels() / 2 + t.rows());
    for py in t.ys.clone() {
        if let Some((first, last)) = t.span(py) {
            out.extend((first..=last).map(|px| (px as u32, py as u32)));
        }
    }
    (out, Some(winding))
}

/// A triangle set up for rasterization: its edge functions, clockwise, and its pixel
/// bounding box inside the drawing rectangle.
pub(crate) struct Setup {
    edges: [(i64, i64, i64); 3],
    one: i64,
    bias: i64,
    pub(crate) xs: std::ops::RangeInclusive<i64>,
    pub(crate) ys: std::ops::RangeInclusive<i64>,
}

impl Setup {
    /// `None` for a degenerate or NaN triangle.
    pub(crate) fn new(v: [[f32; 2]; 3], s: &RasterState) -> Option<(Setup, Winding)> {
        let mut p = [[0i64; 2]; 3];
        for (i, vert) in v.iter().enumerate() {
            p[i] = [snap(vert[0], s.subpixel)?, snap(vert[1], s.subpixel)?];
        }
        // Twice the signed area; y points down, so a positive value is clockwise on
        // screen.
        let area =
            (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
        if area == 0 {
            return None;
        }
        let winding = if area > 0 { Winding::Cw } else { Winding::Ccw };
        if area < 0 {
            p.swap(1, 2);
        }
        // Edge i from p[i] to p[i+1]: E(q) = A*qx + B*qy + C, positive inside.
        let edges: [(i64, i64, i64); 3] = std::array::from_fn(|i| {
            let (a, b) = (p[i], p[(i + 1) % 3]);
            let ea = -(b[1] - a[1]);
            let eb = b[0] - a[0];
            (ea, eb, -(ea * a[0] + eb * a[1]))
        });
        let (one, bias) = grid(s);
        // Bounding box of the triangle, in pixels, clipped to the drawing rectangle.
        let lo = |c: usize| p.iter().map(|q| q[c]).min().unwrap_or(0);
        let hi = |c: usize| p.iter().map(|q| q[c]).max().unwrap_or(0);
        let (xs, ys) = pixel_box([lo(0), lo(1)], [hi(0), hi(1)], s);
        Some((
            Setup {
                edges,
                one,
                bias,
                xs,
                ys,
            },
            winding,
        ))
    }

    fn rows(&self) -> usize {
        (self.ys.end() - self.ys.start() + 1).max(0) as usize
    }

    /// Pixels of the bounding box (a bound for the pixels covered).
    fn box_pixels(&self) -> usize {
        self.rows() * (self.xs.end() - self.xs.start() + 1).max(0) as usize
    }

    /// The covered pixels of row `py`, first and last: they are one run, since each
    /// edge function is linear in the pixel's x and bounds the run on one side, exactly
    /// ([`row_span`]).
    fn span(&self, py: i64) -> Option<(i64, i64)> {
        self.span_at(py, [self.bias; 2])
    }

    /// [`Self::span`] with the sample at `offset` (subpixel units) from each pixel's
    /// upper-left corner rather than at the grid's bias: one sample position of a
    /// multisample pattern (seed 004 §11.4.2).
    pub(crate) fn span_at(&self, py: i64, offset: [i64; 2]) -> Option<(i64, i64)> {
        if !self.ys.contains(&py) {
            return None;
        }
        let qy = py * self.one + offset[1];
        let (mut first, mut last) = (*self.xs.start(), *self.xs.end());
        for &(a, b, c) in &self.edges {
            match row_span(a, b, b * qy + c + a * offset[0], a * self.one) {
                Bound::All => {}
                Bound::None => return None,
                Bound::From(x) => first = first.max(x),
                Bound::UpTo(x) => last = last.min(x),
            }
        }
        (first <= last).then_some((first, last))
    }
}

/// Where one edge lets a row's pixels through.
enum Bound {
    All,
    None,
    /// Pixels from this x on.
    From(i64),
    /// Pixels up to this x.
    UpTo(i64),
}

/// The pixels `px` of a row whose sample lies inside edge `(a, b, _)`, given the edge
/// function on the row as `E(px) = slope * px + k` (slope = A * subpixel units per
/// pixel): `E > 0`, or `E = 0` on a top edge (A = 0, B > 0) or a left edge (A > 0) (the
/// module's rule, solved for px in exact integers).
fn row_span(a: i64, b: i64, k: i64, slope: i64) -> Bound {
    if a == 0 {
        // Horizontal: the whole row is in or out.
        return if k > 0 || (k == 0 && b > 0) {
            Bound::All
        } else {
            Bound::None
        };
    }
    if slope > 0 {
        // Left edge: slope*px + k >= 0, px >= ceil(-k / slope) = -floor(k / slope).
        Bound::From(-k.div_euclid(slope))
    } else {
        // slope*px + k > 0, px < k / -slope, px <= floor((k - 1) / -slope).
        Bound::UpTo((k - 1).div_euclid(-slope))
    }
}

/// Pixels a RECTLIST rectangle covers: V0 = lower right, V1 = lower left, V2 = upper left,
/// implied V3 = V0 − V1 + V2 (seed 004 §1 primitive topologies, L398; "RectangleCompletion"
/// L6354). It is rasterized as the two triangles (V0, V1, V2) and (V0, V2, V3), whose
/// shared diagonal the upper-left rule gives to exactly one of them.
pub fn rectangle(v: [[f32; 2]; 3], s: &RasterState) -> Vec<(u32, u32)> {
    let v3 = [v[0][0] - v[1][0] + v[2][0], v[0][1] - v[1][1] + v[2][1]];
    let halves = [
        Setup::new([v[0], v[1], v[2]], s),
        Setup::new([v[0], v[2], v3], s),
    ];
    let halves: Vec<Setup> = halves.into_iter().flatten().map(|(t, _)| t).collect();
    let Some(top) = halves.iter().map(|t| *t.ys.start()).min() else {
        return vec![];
    };
    let bottom = halves.iter().map(|t| *t.ys.end()).max().unwrap_or(top);
    let mut out = Vec::with_capacity(halves.iter().map(Setup::box_pixels).sum());
    // Row by row, each half's run (distinct pixels) in x order: raster order.
    for py in top..=bottom {
        let mut runs = [None, None];
        for (r, t) in runs.iter_mut().zip(&halves) {
            *r = t.span(py);
        }
        if runs[0] > runs[1] {
            runs.swap(0, 1);
        }
        for (first, last) in runs.into_iter().flatten() {
            out.extend((first..=last).map(|px| (px as u32, py as u32)));
        }
    }
    out
}

/// 3DSTATE_SF "Point Rasterization Rule" (seed 004 §10.3.4, L6726-6735).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointRule {
    /// RASTRULE_UPPER_LEFT: samples on the top and left edges are lit.
    UpperLeft,
    /// RASTRULE_UPPER_RIGHT: samples on the top and right edges are lit.
    UpperRight,
}

/// Pixels a point of width `size` centred at `c` lights: the square
/// `[c − size/2, c + size/2]²` (points rasterize as squares, §10.3.4), with samples on
/// its edges lit per `rule`; the bottom edge is never lit.
pub fn point(c: [f32; 2], size: f32, rule: PointRule, s: &RasterState) -> Vec<(u32, u32)> {
    let Some([x0, x1, y0, y1]) = point_square(c, size, s) else {
        return vec![];
    };
    let (one, bias) = grid(s);
    let in_x = |q: i64| match rule {
        PointRule::UpperLeft => q >= x0 && q < x1,
        PointRule::UpperRight => q > x0 && q <= x1,
    };
    let in_y = |q: i64| q >= y0 && q < y1;
    let (xs, ys) = pixel_box([x0, y0], [x1, y1], s);
    let mut out = vec![];
    for py in ys {
        for px in xs.clone() {
            if in_x(px * one + bias) && in_y(py * one + bias) {
                out.push((px as u32, py as u32));
            }
        }
    }
    out
}

/// The snapped square `[c − size/2, c + size/2]²` of a point: x0, x1, y0, y1 in subpixel
/// units; `None` when a corner cannot be snapped.
pub(crate) fn point_square(c: [f32; 2], size: f32, s: &RasterState) -> Option<[i64; 4]> {
    let half = size / 2.0;
    Some([
        snap(c[0] - half, s.subpixel)?,
        snap(c[0] + half, s.subpixel)?,
        snap(c[1] - half, s.subpixel)?,
        snap(c[1] + half, s.subpixel)?,
    ])
}

/// How zero-width ("cosmetic") lines are sampled: 3DSTATE_WM "Legacy Diamond Line
/// Rasterization" (seed 004 §10.3.12.2) or the DX10 rules (§10.3.12.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiamondRule {
    /// §10.3.12.3: bottom corner and both bottom edges inclusive, right corner unless the
    /// line is x-major.
    Dx10,
    /// §10.3.12.2: bottom corner inclusive; the left corner (slope 1) or right corner
    /// (otherwise); the bottom-left edge only for slope 1, the bottom-right only for -1.
    Legacy,
}

/// Subpixels per pixel of the diamond test: "the device divides a pixel into a 16x16
/// array of subpixels" (§10.3.12.2).
const DIAMOND_SUB: i64 = 16;

/// Whether subpixel point `d` (offset from a pixel's sample point, in 1/16 pixel) is
/// inside that pixel's diamond, by the seed's pseudocode (§10.3.12.2, §10.3.12.3).
fn in_diamond(d: [i64; 2], rule: DiamondRule, x_major: bool, slope: i8) -> bool {
    let half = DIAMOND_SUB / 2;
    let (dx, dy) = (d[0], d[1]);
    let distance = dx.abs() + dy.abs();
    let interior = distance < half;
    let bottom_corner = dx == 0 && dy == half;
    let left_corner = dx == -half && dy == 0;
    let right_corner = dx == half && dy == 0;
    let bottom_left_edge = distance == half && dx < 0 && dy > 0;
    let bottom_right_edge = distance == half && dx > 0 && dy > 0;
    match rule {
        DiamondRule::Dx10 => {
            interior
                || bottom_corner
                || (!x_major && right_corner)
                || bottom_left_edge
                || bottom_right_edge
        }
        DiamondRule::Legacy => {
            interior
                || bottom_corner
                || (if slope == 1 {
                    left_corner
                } else {
                    right_corner
                })
                || (slope == 1 && bottom_left_edge)
                || (slope == -1 && bottom_right_edge)
        }
    }
}

/// Pixels a zero-width line from `a` to `b` lights (seed 004 §10.3.12.1): the line is
/// walked at every subpixel step of its major axis, and a pixel is lit when the line
/// touches its diamond, except the pixel whose diamond holds the end point (the line
/// ends there without leaving it) unless `last_pixel` ("Last Pixel Enable"). Pixels in
/// row-major order.
pub fn zero_width_line(
    a: [f32; 2],
    b: [f32; 2],
    rule: DiamondRule,
    last_pixel: bool,
    s: &RasterState,
) -> Vec<(u32, u32)> {
    let q = |v: f32| -> Option<i64> {
        let scaled = v as f64 * DIAMOND_SUB as f64;
        (scaled.is_finite() && v.abs() < (1 << 20) as f32).then(|| scaled.round_ties_even() as i64)
    };
    let (Some(ax), Some(ay), Some(bx), Some(by)) = (q(a[0]), q(a[1]), q(b[0]), q(b[1])) else {
        return vec![];
    };
    let (dx, dy) = (bx - ax, by - ay);
    if dx == 0 && dy == 0 {
        return vec![];
    }
    let x_major = dx.abs() >= dy.abs();
    let slope: i8 = if dx != 0 && dx == dy {
        1
    } else if dx != 0 && dx == -dy {
        -1
    } else {
        0
    };
    let bias = if s.half_pixel_centers {
        DIAMOND_SUB / 2
    } else {
        0
    };
    // The pixel(s) whose diamond contains subpixel point p.
    let touched = |p: [i64; 2], out: &mut Vec<(i64, i64)>| {
        let cx = (p[0] - bias).div_euclid(DIAMOND_SUB);
        let cy = (p[1] - bias).div_euclid(DIAMOND_SUB);
        for py in cy..=cy + 1 {
            for px in cx..=cx + 1 {
                let d = [
                    p[0] - (px * DIAMOND_SUB + bias),
                    p[1] - (py * DIAMOND_SUB + bias),
                ];
                if in_diamond(d, rule, x_major, slope) {
                    out.push((px, py));
                }
            }
        }
    };
    let (major, steps) = if x_major {
        (dx, dx.abs())
    } else {
        (dy, dy.abs())
    };
    let mut end = vec![];
    touched([bx, by], &mut end);
    let [rx0, ry0, rx1, ry1] = s.rect.map(|v| v as i64);
    let mut out: Vec<(u32, u32)> = vec![];
    let mut hit = Vec::with_capacity(4);
    for i in 0..=steps {
        // Along the major axis one subpixel at a time; the minor coordinate rounded to
        // the nearest subpixel.
        let t = i * major.signum();
        let minor = |num: i64, den: i64| (num as f64 / den as f64).round() as i64;
        let p = if x_major {
            [ax + t, ay + minor(dy * t, dx)]
        } else {
            [ax + minor(dx * t, dy), ay + t]
        };
        hit.clear();
        touched(p, &mut hit);
        // Kept only inside the drawing rectangle, so a long line costs no memory.
        out.extend(
            hit.iter()
                .filter(|p| last_pixel || !end.contains(p))
                .filter(|&&(x, y)| x >= rx0 && x <= rx1 && y >= ry0 && y <= ry1)
                .map(|&(x, y)| (x as u32, y as u32)),
        );
    }
    out.sort_by_key(|&(x, y)| (y, x));
    out.dedup();
    out
}

/// Pixels a non-antialiased line of `width` > 0 lights (seed 004 §10.3.12.4): the
/// parallelogram whose corners are the end points moved by ±width/2 along the minor axis
/// (diagonal lines are x-major), sampled like a polygon with the upper-left rule.
pub fn wide_line(a: [f32; 2], b: [f32; 2], width: f32, s: &RasterState) -> Vec<(u32, u32)> {
    let h = width / 2.0;
    let x_major = (b[0] - a[0]).abs() >= (b[1] - a[1]).abs();
    let off = |p: [f32; 2], sign: f32| {
        if x_major {
            [p[0], p[1] + sign * h]
        } else {
            [p[0] + sign * h, p[1]]
        }
    };
    let (a0, a1, b0, b1) = (off(a, -1.0), off(a, 1.0), off(b, -1.0), off(b, 1.0));
    // Two triangles sharing the diagonal a0-b1: the upper-left rule gives each pixel on
    // it to exactly one of them.
    let (mut p, _) = triangle([a0, b0, b1], s);
    let (q, _) = triangle([a0, b1, a1], s);
    p.extend(q);
    p.sort_by_key(|&(x, y)| (y, x));
    p.dedup();
    p
}

/// An anti-aliased line (seed 004 §10.3.12.5): the rectangle centred on the line from
/// `a` to `b`, `width` wide, reaching `cap` past each end point, whose pixels carry a
/// coverage value ("Antialias Alpha").
///
/// * Across the line, the coverage ramps from 0 at the rectangle's parallel edges to 1 at
///   `region / 2` inside them (3DSTATE_WM Line Antialiasing Region Width), computed
///   from the nearer edge.
/// * Along it, from 1 at an end point to 0 at the end-cap edge, `cap` beyond it
///   (3DSTATE_SF Line End Cap Antialiasing Region Width).
/// * Near the corners the two values multiply.
///
/// Distances are true perpendicular distances (3DSTATE_SF AA Line Distance Mode
/// AALINEDISTANCE_TRUE, as crocus programs it). The seed describes the ramps
/// geometrically; 3DSTATE_AA_LINE_PARAMETERS' slope and bias are the hardware's fixed-
/// point approximation of them "to closely match the reference rasterizer" (§11.3.2.2),
/// which the model does not reproduce bit for bit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AaLine {
    /// Start point (screen).
    pub a: [f32; 2],
    /// End point (screen).
    pub b: [f32; 2],
    /// Line Width.
    pub width: f32,
    /// Line Antialiasing Region Width.
    pub region: f32,
    /// Line End Cap Antialiasing Region Width.
    pub cap: f32,
}

impl AaLine {
    /// Distance along the line from `a` and across it, of point `p`; and the length.
    fn frame(&self, p: [f32; 2]) -> Option<(f32, f32, f32)> {
        let d = [self.b[0] - self.a[0], self.b[1] - self.a[1]];
        let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
        if len == 0.0 || !len.is_finite() {
            return None;
        }
        let q = [p[0] - self.a[0], p[1] - self.a[1]];
        let along = (q[0] * d[0] + q[1] * d[1]) / len;
        let across = (q[1] * d[0] - q[0] * d[1]) / len;
        Some((along, across, len))
    }

    /// The coverage at screen position `p` (0 outside the rectangle).
    pub fn coverage(&self, p: [f32; 2]) -> f32 {
        let Some((along, across, len)) = self.frame(p) else {
            return 0.0;
        };
        let inside_edge = self.width / 2.0 - across.abs();
        let ramp = (self.region / 2.0).max(f32::MIN_POSITIVE);
        let parallel = (inside_edge / ramp).clamp(0.0, 1.0);
        let beyond = (-along).max(along - len).max(0.0);
        let end = if self.cap > 0.0 {
            (1.0 - beyond / self.cap).clamp(0.0, 1.0)
        } else if beyond > 0.0 {
            0.0
        } else {
            1.0
        };
        parallel * end
    }

    /// The pixels of the rectangle (sampled like a polygon, upper-left rule) whose
    /// coverage is not 0, in raster order.
    pub fn pixels(&self, s: &RasterState) -> Vec<(u32, u32)> {
        let d = [self.b[0] - self.a[0], self.b[1] - self.a[1]];
        let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
        if len == 0.0 || !len.is_finite() {
            return vec![];
        }
        let u = [d[0] / len, d[1] / len];
        let (h, c) = (self.width / 2.0, self.cap);
        let corner = |t: f32, k: f32| {
            [
                self.a[0] + u[0] * t - u[1] * k,
                self.a[1] + u[1] * t + u[0] * k,
            ]
        };
        let (p0, p1, p2, p3) = (
            corner(-c, -h),
            corner(len + c, -h),
            corner(len + c, h),
            corner(-c, h),
        );
        let (mut px, _) = triangle([p0, p1, p2], s);
        let (q, _) = triangle([p0, p2, p3], s);
        px.extend(q);
        px.sort_by_key(|&(x, y)| (y, x));
        px.dedup();
        let bias = if s.half_pixel_centers { 0.5 } else { 0.0 };
        px.retain(|&(x, y)| self.coverage([x as f32 + bias, y as f32 + bias]) > 0.0);
        px
    }
}
