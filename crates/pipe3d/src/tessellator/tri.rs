//! The TRI domain (seed 004 §5.3.1): three outside edges with their own factors and
//! concentric inner triangles from the single inside factor, stitched as the QUAD
//! domain's rings are; the centre is a triangle (ODD) or a point (EVEN). Points, their
//! order and the triangles are the D3D11 reference tessellator's.

use super::division::{Division, Fxp, HALF, ONE, ONE_THIRD, Parity, TWO_THIRDS};
use super::stitch::{self, Diagonals, Row, Triangles};

/// The points of a divided triangle as (u, v) in 16.16 (w = 1 - u - v): the outside
/// edges from (0, 1) (U = 0 edge, V = 0 edge, W = 0 edge), each inner ring the same
/// way, then the centre point of an EVEN inside factor.
pub(super) fn points(outside: &[Division], inside: &Division) -> Vec<[Fxp; 2]> {
    let mut points = vec![];
    for (edge, d) in outside.iter().enumerate() {
        let last = d.points as u32 - 1;
        for p in 0..last {
            // The V = 0 edge runs with its parameter (u), the others against it.
            let q = if edge == 1 { p } else { last - p };
            let t = d.place(q);
            points.push(match edge {
                0 => [0, t],
                1 => [t, 0],
                _ => [t, ONE - t],
            });
        }
    }
    let n = inside_points(inside);
    for ring in 1..n / 2 {
        let end = n - 1 - ring;
        // The ring's distance in from each edge: its 1D position scaled by 2/3 (the
        // height of the barycentric triangle), rounded.
        let across = (inside.place(ring as u32) * TWO_THIRDS + HALF) >> 16;
        // Along the edge, parameters shrink by half that distance at each end.
        let inset = across.div_ceil(2);
        for edge in 0..3 {
            for p in ring..end {
                let q = if edge == 1 { p } else { end - (p - ring) };
                let t = inside.place(q as u32).wrapping_sub(inset);
                points.push(match edge {
                    0 => [across, t],
                    1 => [t, across],
                    _ => [t, ONE.wrapping_sub(t).wrapping_sub(across)],
                });
            }
        }
    }
    if inside.parity == Parity::Even {
        points.push([ONE_THIRD, ONE_THIRD]);
    }
    points
}

/// The inside points, at least enough for a (possibly degenerate) ring.
fn inside_points(inside: &Division) -> usize {
    inside
        .points
        .max(if inside.parity == Parity::Odd { 4 } else { 3 })
}

/// The triangles over [`points`], clockwise (in u right, v down) as given to `out`.
pub(super) fn triangles(out: &mut Triangles, outside: &[Division], inside: &Division) {
    let n = inside_points(inside);
    let mut outside_len: Vec<usize> = outside.iter().map(|d| d.points).collect();
    let mut outside_at = 0;
    let mut inside_at = outside_len.iter().sum::<usize>() - 3;
    // An EVEN factor's centre point counts as a ring.
    for ring in 1..n.div_ceil(2) {
        let len_in = n - 2 * ring;
        let (ring_inside, ring_outside) = (inside_at, outside_at);
        for edge in 0..3 {
            let len_out = outside_len[edge];
            let (inner, outer) = if edge == 2 {
                (
                    Row::forward(inside_at).closing_on(len_in, ring_inside),
                    Row::forward(outside_at).closing_on(len_out, ring_outside),
                )
            } else {
                (Row::forward(inside_at), Row::forward(outside_at))
            };
            if ring == 1 {
                stitch::transition(
                    out,
                    inner,
                    inside.half_points,
                    inside.parity,
                    outer,
                    outside[edge].half_points,
                    outside[edge].parity,
                );
            } else {
                stitch::regular(out, true, Diagonals::Mirrored, len_in, inner, outer);
            }
            outside_at += len_out - 1;
            inside_at += len_in - 1;
            outside_len[edge] = len_in;
        }
    }
    if inside.parity == Parity::Odd {
        out.cw(outside_at, outside_at + 1, outside_at + 2);
    }
}
