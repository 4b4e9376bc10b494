//! Barycentric parameters for attribute interpolation (seed 004 §11.6, L9255-9263): the
//! WM delivers b1 and b2 per pixel or sample, and the pixel shader computes
//! `A = a0 + a1·b1 + a2·b2` from the vertex deltas the SF set up (a0 = A(v0),
//! a1 = A(v1) - A(v0), a2 = A(v2) - A(v0)).
//!
//! Non-perspective b1, b2 are the screen-space areal coordinates of vertices 1 and 2;
//! perspective ones weight them by 1/w and renormalise. Computed in f64 and rounded once
//! to f32 (the hardware's internal precision is not documented in the seeds).

/// Barycentric parameters (b1, b2) at one position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Barycentrics {
    /// Perspective-correct (b1, b2).
    pub perspective: [f32; 2],
    /// Screen-linear (b1, b2).
    pub linear: [f32; 2],
}

/// The barycentrics of position `p` in the screen-space triangle `v` whose vertices have
/// clip-space w `w`; `None` for a degenerate triangle or a zero/NaN weight sum.
pub fn barycentrics(v: [[f32; 2]; 3], w: [f32; 3], p: [f32; 2]) -> Option<Barycentrics> {
    let [l1, l2] = areal(v, p)?;
    let l0 = 1.0 - l1 - l2;
    // Dividing by 1 gives the dividend exactly (IEEE 754), so the divisions are skipped
    // where a divisor is 1: all three w for 2D work (BLORP's rectangles), the sum often.
    let (q0, q1, q2) = if w == [1.0; 3] {
        (l0, l1, l2)
    } else {
        (l0 / w[0] as f64, l1 / w[1] as f64, l2 / w[2] as f64)
    };
    let sum = q0 + q1 + q2;
    if sum == 0.0 || !sum.is_finite() {
        return None;
    }
    let (p1, p2) = if sum == 1.0 {
        (q1, q2)
    } else {
        (q1 / sum, q2 / sum)
    };
    Some(Barycentrics {
        perspective: [p1 as f32, p2 as f32],
        linear: [l1 as f32, l2 as f32],
    })
}

/// The screen-linear (b1, b2) of position `p` in the screen-space triangle `v`, exactly
/// as [`barycentrics`] computes them, without the perspective ones (the source depth is
/// screen-linear, seed 004 §11.6, and needs no w); `None` for a degenerate triangle.
pub fn linear(v: [[f32; 2]; 3], p: [f32; 2]) -> Option<[f32; 2]> {
    areal(v, p).map(|l| l.map(|x| x as f32))
}

/// The areal coordinates (l1, l2) of `p` in `v`, in f64: the sub-triangle opposite each
/// vertex over the whole; `None` for a degenerate triangle.
fn areal(v: [[f32; 2]; 3], p: [f32; 2]) -> Option<[f64; 2]> {
    let f = |a: [f32; 2]| [a[0] as f64, a[1] as f64];
    let (v0, v1, v2, p) = (f(v[0]), f(v[1]), f(v[2]), f(p));
    let area = (v1[0] - v0[0]) * (v2[1] - v0[1]) - (v1[1] - v0[1]) * (v2[0] - v0[0]);
    if area == 0.0 || !area.is_finite() {
        return None;
    }
    let l1 = ((p[0] - v0[0]) * (v2[1] - v0[1]) - (p[1] - v0[1]) * (v2[0] - v0[0])) / area;
    let l2 = ((v1[0] - v0[0]) * (p[1] - v0[1]) - (v1[1] - v0[1]) * (p[0] - v0[0])) / area;
    Some([l1, l2])
}

/// `a0 + a1·b1 + a2·b2` for one attribute channel (seed 004 §11.6).
pub fn interpolate(a: [f32; 3], b: [f32; 2]) -> f32 {
    a[0] + a[1] * b[0] + a[2] * b[1]
}
