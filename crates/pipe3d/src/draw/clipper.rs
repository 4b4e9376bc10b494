//! The fixed-function clipper (seed 004 §9.1.3, §9.2.5): a triangle that ClipDetermination
//! says must be clipped is cut, in 4D clip space, against the w > 0 half-space, the guard
//! band (or viewport) planes in x and y, the near and far planes when the Z test is on,
//! and the enabled user clip distances (inside where >= 0); what is left is a convex polygon the SF receives as a triangle fan.
//!
//! The seed says the hardware clips but not how; this follows the clip-volume
//! definition of §9.2.1 (inside: `xmin·w <= x <= xmax·w`, likewise y, `near·w <= z <= w`
//! for OpenGL's near plane at -1 or Direct3D's at 0, and w > 0) with the classic
//! one-plane-at-a-time polygon clip. A new vertex on an edge takes every VUE slot
//! interpolated linearly in clip space at the edge's crossing point (linear in clip space
//! is perspective-correct after the divide); a dword the two ends hold the same is copied
//! exactly, so integer and flat data survive untouched.
//!
//! Every polygon vertex also carries its barycentric coordinates in the source triangle,
//! in clip space: the hardware clipper sends the SF barycentric parameters for the new
//! vertices ("computation of non-perspective barycentric parameters in the clipper, which
//! are sent to SF unit in the must clip case", seed 004 §9 3DSTATE_CLIP Non-Perspective
//! Barycentric Enable, L5955-5958), so that the pixels of a clipped piece interpolate the
//! source triangle's attributes, perspective-correct or screen-linear alike.

use super::Vue;

/// The clip planes in force.
#[derive(Debug, Clone, Copy)]
pub(super) struct Planes {
    /// x min, x max, y min, y max in NDC (guard band or viewport); `None`: no x/y planes.
    pub xy: Option<[f32; 4]>,
    /// The near plane's NDC z (-1 OpenGL, 0 Direct3D) when near/far clipping is on.
    pub z: Option<f32>,
    /// User clip distances clipped against (3DSTATE_CLIP User Clip Distance Clip Test
    /// Enable Bitmask): inside where the distance is >= 0.
    pub user: u8,
}

/// The user clip distances of a VUE: header dwords D8-D15, i.e. slots 2 and 3 (seed 004
/// §1.8 "VUE Vertex Header").
pub(super) fn clip_distances(v: &Vue) -> [f32; 8] {
    let (a, b) = (
        v.get(2).copied().unwrap_or([0; 4]),
        v.get(3).copied().unwrap_or([0; 4]),
    );
    std::array::from_fn(|i| f32::from_bits(if i < 4 { a[i] } else { b[i - 4] }))
}

/// VUE slot of the position.
const POSITION: usize = 1;

/// Smallest w kept: the w > 0 half-space, with a margin so that the divide stays finite.
const W_MIN: f32 = 1e-6;

fn pos(v: &Vue) -> [f32; 4] {
    v.get(POSITION)
        .copied()
        .unwrap_or([0; 4])
        .map(f32::from_bits)
}

/// The signed distances of a vertex to each plane in force (inside: >= 0).
fn distances(v: &Vue, planes: &Planes) -> Vec<f32> {
    let [x, y, z, w] = pos(v);
    let mut d = vec![w - W_MIN];
    if let Some([x0, x1, y0, y1]) = planes.xy {
        d.extend([x - x0 * w, x1 * w - x, y - y0 * w, y1 * w - y]);
    }
    if let Some(near) = planes.z {
        d.extend([z - near * w, w - z]);
    }
    let ucd = clip_distances(v);
    for (i, u) in ucd.iter().enumerate() {
        if planes.user & (1 << i) != 0 {
            d.push(*u);
        }
    }
    d
}

/// The VUE at `t` along a→b.
fn lerp(a: &Vue, b: &Vue, t: f32) -> Vue {
    let n = a.len().max(b.len());
    (0..n)
        .map(|s| {
            let (sa, sb) = (
                a.get(s).copied().unwrap_or([0; 4]),
                b.get(s).copied().unwrap_or([0; 4]),
            );
            std::array::from_fn(|c| {
                if sa[c] == sb[c] {
                    sa[c]
                } else {
                    let (fa, fb) = (f32::from_bits(sa[c]), f32::from_bits(sb[c]));
                    (fa + (fb - fa) * t).to_bits()
                }
            })
        })
        .collect()
}

/// A clipped polygon's vertex: its VUE, its clip-space barycentric coordinates in the
/// source triangle, and whether the edge from it to the next vertex is drawn in
/// WIREFRAME fill: a piece of a source edge, or an edge cut by a user clip plane; not
/// one cut by a view volume plane (w, x/y, near/far). The seeds do not say which clip
/// edges an unfilled triangle shows; this is OpenGL's outline as llvmpipe draws it
/// (gallium's draw_pipe_clip: "we want to see an edge along the clip plane" of a user
/// plane, not along a frustum plane).
pub(super) type ClippedVertex = (Vue, [f32; 3], bool);

/// Clips a triangle whose edges `drawn` are drawn in WIREFRAME fill (edge k from vertex
/// k); returns the polygon's vertices in order (empty if nothing is left).
pub(super) fn clip_triangle(planes: &Planes, tri: &[&Vue], drawn: [bool; 3]) -> Vec<ClippedVertex> {
    let mut poly: Vec<ClippedVertex> = tri
        .iter()
        .enumerate()
        .map(|(k, v)| {
            (
                (*v).clone(),
                std::array::from_fn(|i| f32::from(u8::from(i == k))),
                drawn.get(k).copied().unwrap_or(true),
            )
        })
        .collect();
    let count = poly.first().map_or(0, |(v, ..)| distances(v, planes).len());
    // `distances` puts the user clip distances last.
    let user_from = count - planes.user.count_ones() as usize;
    for k in 0..count {
        if poly.is_empty() {
            break;
        }
        let d: Vec<f32> = poly.iter().map(|(v, ..)| distances(v, planes)[k]).collect();
        let mut out = Vec::with_capacity(poly.len() + 1);
        for i in 0..poly.len() {
            let j = (i + 1) % poly.len();
            let (di, dj) = (d[i], d[j]);
            if di >= 0.0 {
                out.push(poly[i].clone());
            }
            if (di >= 0.0) != (dj >= 0.0) {
                let t = di / (di - dj);
                let ((vi, li, drawn), (vj, lj, _)) = (&poly[i], &poly[j]);
                let l = std::array::from_fn(|c| li[c] + (lj[c] - li[c]) * t);
                // Leaving the plane's inside, the new vertex starts the edge along the
                // plane; entering it, the rest of the edge i -> j.
                let from_here = if di >= 0.0 { k >= user_from } else { *drawn };
                out.push((lerp(vi, vj, t), l, from_here));
            }
        }
        poly = out;
    }
    if poly.len() < 3 { vec![] } else { poly }
}

/// Clips a line the same way: the part of it inside every plane with the clip-space
/// parameters of its ends along the source line (0 at the first vertex, 1 at the
/// second), or `None`.
pub(super) fn clip_line(planes: &Planes, line: &[&Vue]) -> Option<([Vue; 2], [f32; 2])> {
    let (a, b) = (line[0], line[1]);
    let (da, db) = (distances(a, planes), distances(b, planes));
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (&u, &v) in da.iter().zip(&db) {
        if u < 0.0 && v < 0.0 {
            return None;
        }
        if u < 0.0 {
            t0 = t0.max(u / (u - v));
        } else if v < 0.0 {
            t1 = t1.min(u / (u - v));
        }
    }
    (t0 <= t1).then(|| ([lerp(a, b, t0), lerp(a, b, t1)], [t0, t1]))
}
