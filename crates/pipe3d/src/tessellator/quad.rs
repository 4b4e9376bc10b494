//! The QUAD domain (seed 004 §5.3): the outside edges divided by their own factors,
//! concentric inner rings on the grid of the two inside factors, a transition stitch
//! between the outside edges and the first ring, regular stitches between rings, and
//! the centre: a strip of quads, a row of points or nothing. Points, their order and
//! the triangles are the D3D11 reference tessellator's.

use super::division::{Division, Fxp, HALF, ONE, Parity};
use super::stitch::{self, Diagonals, Row, Triangles};

const U: usize = 0;
const V: usize = 1;

/// The points of a divided quad, as (u, v) in 16.16, in the reference's order: the
/// outside edges clockwise from (0, 1) (U = 0 edge downwards, V = 0, U = 1, V = 1),
/// then each inner ring the same way, then the centre row of an EVEN axis.
pub(super) fn points(outside: &[Division], inside: &[Division]) -> Vec<[Fxp; 2]> {
    let mut points = vec![];
    for (edge, d) in outside.iter().enumerate() {
        let last = d.points as u32 - 1;
        for p in 0..last {
            // Edges 1 and 2 run with their parameter, 0 and 3 against it.
            let q = if edge == 1 || edge == 2 { p } else { last - p };
            let t = d.place(q);
            points.push(match edge {
                0 => [0, t],
                1 => [t, 0],
                2 => [ONE, t],
                _ => [t, ONE],
            });
        }
    }
    let n = inside_points(inside);
    let rings = n[U].min(n[V]) / 2;
    for ring in 1..rings {
        let end = [n[U] - 1 - ring, n[V] - 1 - ring];
        for edge in 0..4 {
            // The edge's fixed axis and the axis it runs along.
            let (across, along) = (edge & 1, (edge + 1) & 1);
            let fixed = if edge < 2 { ring } else { end[across] };
            let at = inside[across].place(fixed as u32);
            for p in ring..end[along] {
                let q = if edge == 1 || edge == 2 {
                    p
                } else {
                    end[along] - (p - ring)
                };
                let t = inside[along].place(q as u32);
                points.push(if along == V { [at, t] } else { [t, at] });
            }
        }
    }
    // An EVEN inside axis leaves a degenerate innermost ring: a row of points on the
    // other axis's midline.
    if n[U] > n[V] && inside[V].parity == Parity::Even {
        for p in rings..n[U] - rings {
            points.push([inside[U].place(p as u32), HALF]);
        }
    } else if n[V] >= n[U] && inside[U].parity == Parity::Even {
        for p in (rings..n[V] - rings).rev() {
            points.push([HALF, inside[V].place(p as u32)]);
        }
    }
    points
}

/// The inside points per axis, at least enough for a (possibly degenerate) ring.
fn inside_points(inside: &[Division]) -> [usize; 2] {
    let at_least = |d: &Division| d.points.max(if d.parity == Parity::Odd { 4 } else { 3 });
    [at_least(&inside[U]), at_least(&inside[V])]
}

/// The triangles over [`points`], clockwise (in u right, v down) as given to `out`.
pub(super) fn triangles(out: &mut Triangles, outside: &[Division], inside: &[Division]) {
    let n = inside_points(inside);
    let to_centre = [n[U].div_ceil(2), n[V].div_ceil(2)];
    let rings = to_centre[U].min(to_centre[V]);
    // The ring where an EVEN axis collapses to a row: its sides along that row walk
    // the same points back (indexed by the axis a side runs along).
    let degenerate = [
        (inside[V].parity == Parity::Even).then(|| to_centre[V] - 1),
        (inside[U].parity == Parity::Even).then(|| to_centre[U] - 1),
    ];
    let mut outside_len: Vec<usize> = outside.iter().map(|d| d.points).collect();
    let mut outside_at = 0;
    let mut inside_at = outside_len.iter().sum::<usize>() - 4;
    for ring in 1..rings {
        let inside_len = [n[U] - 2 * ring, n[V] - 2 * ring];
        let (ring_inside, ring_outside) = (inside_at, outside_at);
        for edge in 0..4 {
            let along = (edge + 1) & 1;
            let (len_in, len_out) = (inside_len[along], outside_len[edge]);
            let collapsed = degenerate[along] == Some(ring);
            let (inner, outer) = match edge {
                3 if collapsed => (
                    Row::backward(inside_at),
                    Row::forward(outside_at).closing_on(len_out, ring_outside),
                ),
                3 => (
                    Row::forward(inside_at).closing_on(len_in, ring_inside),
                    Row::forward(outside_at).closing_on(len_out, ring_outside),
                ),
                2 if collapsed => (Row::backward(inside_at), Row::forward(outside_at)),
                _ => (Row::forward(inside_at), Row::forward(outside_at)),
            };
            if ring == 1 {
                stitch::transition(
                    out,
                    inner,
                    inside[along].half_points,
                    inside[along].parity,
                    outer,
                    outside[edge].half_points,
                    outside[edge].parity,
                );
            } else {
                stitch::regular(out, true, Diagonals::Mirrored, len_in, inner, outer);
            }
            outside_at += len_out - 1;
            if edge == 2 && collapsed {
                inside_at -= len_in - 1;
            } else {
                inside_at += len_in - 1;
            }
            outside_len[edge] = len_in;
        }
    }
    // The centre when the shorter axis is ODD: a strip of quads between the two long
    // sides of the innermost ring (which starts at `outside_at`).
    let o = outside_at;
    if n[U] > n[V] && inside[V].parity == Parity::Odd {
        let quads = (n[U] / 2 - n[V] / 2) * 2
            + if inside[U].parity == Parity::Even {
                2
            } else {
                1
            };
        let inner = Row::backward(o + 2 * quads + 2).first_is(o);
        let outer = Row::forward(o + 1);
        stitch::regular(
            out,
            false,
            Diagonals::InsideToOutside,
            quads + 1,
            inner,
            outer,
        );
    } else if n[V] >= n[U] && inside[U].parity == Parity::Odd {
        let v_even = inside[V].parity == Parity::Even;
        let quads = (n[V] / 2 - n[U] / 2) * 2 + if v_even { 2 } else { 1 };
        let inner = Row::backward(o + 2 * quads + 1);
        let diagonals = if v_even {
            Diagonals::InsideToOutside
        } else {
            Diagonals::InsideToOutsideExceptMiddle
        };
        stitch::regular(out, false, diagonals, quads + 1, inner, Row::forward(o));
    }
}
