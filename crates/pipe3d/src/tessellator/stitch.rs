//! Triangles between two rows of points, an outer and an inner (a ring's side): the
//! regular stitch of rows one point apart and the transition stitch of the outermost
//! ring, where the outside edge has its own factor (seed 004 §5.3: "a transition
//! region exists between each edge of the interior region and the corresponding
//! outside edge"). The orders are the D3D11 reference tessellator's.

use super::division::Parity;

/// A row of points: its `i`th point's index in the patch's point list.
#[derive(Debug, Clone, Copy)]
pub(super) struct Row {
    start: usize,
    backward: bool,
    /// The first point's index when it is not in the run (a strip's corner).
    first: Option<usize>,
    /// The last point's index when it is not in the run (a ring closing on its first
    /// point), with the row's length.
    last: Option<(usize, usize)>,
}

impl Row {
    /// Points `start`, `start + 1`, ...
    pub fn forward(start: usize) -> Row {
        Row {
            start,
            backward: false,
            first: None,
            last: None,
        }
    }

    /// Points `start`, `start - 1`, ...
    pub fn backward(start: usize) -> Row {
        Row {
            backward: true,
            ..Row::forward(start)
        }
    }

    /// The same row with its first point `index`.
    pub fn first_is(self, index: usize) -> Row {
        Row {
            first: Some(index),
            ..self
        }
    }

    /// The same row of `len` points with its last point `index`.
    pub fn closing_on(self, len: usize, index: usize) -> Row {
        Row {
            last: Some((len, index)),
            ..self
        }
    }

    fn at(&self, i: usize) -> usize {
        match (self.first, self.last) {
            (Some(f), _) if i == 0 => f,
            (_, Some((len, l))) if i + 1 == len => l,
            _ if self.backward => self.start.wrapping_sub(i),
            _ => self.start + i,
        }
    }
}

/// The triangles being made, each given clockwise and stored in the output winding.
pub(super) struct Triangles {
    pub indices: Vec<usize>,
    pub clockwise: bool,
}

impl Triangles {
    /// Adds the clockwise triangle `a b c` (`a c b` for counter-clockwise output).
    pub fn cw(&mut self, a: usize, b: usize, c: usize) {
        if self.clockwise {
            self.indices.extend([a, b, c]);
        } else {
            self.indices.extend([a, c, b]);
        }
    }
}

/// How the diagonals of a regular stitch's quads run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Diagonals {
    /// Every quad split from its inner first point to its outer second.
    InsideToOutside,
    /// As `InsideToOutside`, the middle quad split the other way (odd rows).
    InsideToOutsideExceptMiddle,
    /// Split one way on the first half of the row, mirrored on the second.
    Mirrored,
}

/// Two walkers along an inner and an outer row emitting triangles.
struct Walk<'a> {
    out: &'a mut Triangles,
    inside: Row,
    outside: Row,
    i: usize,
    o: usize,
}

impl Walk<'_> {
    /// A triangle on the outer row's next segment, pointing in.
    fn advance_outside(&mut self) {
        let (o0, o1, i0) = (
            self.outside.at(self.o),
            self.outside.at(self.o + 1),
            self.inside.at(self.i),
        );
        self.out.cw(o0, o1, i0);
        self.o += 1;
    }

    /// A triangle on the inner row's next segment, pointing out.
    fn advance_inside(&mut self) {
        let (i0, o0, i1) = (
            self.inside.at(self.i),
            self.outside.at(self.o),
            self.inside.at(self.i + 1),
        );
        self.out.cw(i0, o0, i1);
        self.i += 1;
    }

    /// The quad on both rows' next segments as two triangles: `diagonal_out` splits it
    /// from the outer first point to the inner second, otherwise from the inner first
    /// to the outer second.
    fn quad(&mut self, diagonal_out: bool) {
        let (i0, i1) = (self.inside.at(self.i), self.inside.at(self.i + 1));
        let (o0, o1) = (self.outside.at(self.o), self.outside.at(self.o + 1));
        if diagonal_out {
            self.out.cw(o0, i1, i0);
            self.out.cw(o0, o1, i1);
        } else {
            self.out.cw(i0, o0, o1);
            self.out.cw(i0, o1, i1);
        }
        self.i += 1;
        self.o += 1;
    }
}

/// Stitches an inner row of `inside_points` points to an outer row with as many
/// (`trapezoid` false) or two more (`trapezoid`: one extra triangle at each end).
pub(super) fn regular(
    out: &mut Triangles,
    trapezoid: bool,
    diagonals: Diagonals,
    inside_points: usize,
    inside: Row,
    outside: Row,
) {
    let mut w = Walk {
        out,
        inside,
        outside,
        i: 0,
        o: 0,
    };
    if trapezoid {
        w.advance_outside();
    }
    let quads = inside_points.saturating_sub(1);
    match diagonals {
        Diagonals::InsideToOutside => (0..quads).for_each(|_| w.quad(false)),
        Diagonals::Mirrored => {
            for q in 0..quads {
                w.quad(q < inside_points / 2);
            }
        }
        Diagonals::InsideToOutsideExceptMiddle => {
            // The reference's split: the quads before the middle one, the middle one
            // (split from the outer first point), then the rest; all others split
            // from the outer first point too, but on the other pair of corners.
            let before = (inside_points / 2).saturating_sub(1);
            let halves = |w: &mut Walk| {
                let (i0, i1) = (w.inside.at(w.i), w.inside.at(w.i + 1));
                let (o0, o1) = (w.outside.at(w.o), w.outside.at(w.o + 1));
                w.out.cw(o0, o1, i0);
                w.out.cw(i0, o1, i1);
                w.i += 1;
                w.o += 1;
            };
            (0..before).for_each(|_| halves(&mut w));
            w.quad(true);
            (before + 2..inside_points).for_each(|_| halves(&mut w));
        }
    }
    if trapezoid {
        w.advance_outside();
    }
}

/// Where point `i` of a half edge lands at the finest division, in the "ruler
/// function" split order: points are inserted into a half edge in this order as its
/// factor grows, so the stitch advances along a row when the position is below the
/// row's point count (D3D11 reference tessellator, StitchTransition; supports half
/// edges of up to 32 points, factors up to 64).
const RULER_ORDER: [u32; 33] = [
    0, 32, 16, 8, 17, 4, 18, 9, 19, 2, 20, 10, 21, 5, 22, 11, 23, 1, 24, 12, 25, 6, 26, 13, 27, 3,
    28, 14, 29, 7, 30, 15, 31,
];

/// Stitches the outermost ring's side: an inner row divided by the inside factor
/// (`inside_half` points per half, its parity) to an outer edge divided by its own
/// factor, walking both halves from the ends towards the middle in ruler order.
pub(super) fn transition(
    out: &mut Triangles,
    inside: Row,
    inside_half: u32,
    inside_parity: Parity,
    outside: Row,
    outside_half: u32,
    outside_parity: Parity,
) {
    // ODD divisions count the point next to the straddling segment out of the halves.
    let inside_half = inside_half - u32::from(inside_parity == Parity::Odd);
    let outside_half = outside_half - u32::from(outside_parity == Parity::Odd);
    let mut w = Walk {
        out,
        inside,
        outside,
        i: 0,
        o: 0,
    };
    if RULER_ORDER[0] < outside_half {
        w.advance_outside();
    }
    for &at in &RULER_ORDER[1..] {
        if at < inside_half {
            w.advance_inside();
        }
        if at < outside_half {
            w.advance_outside();
        }
    }
    // The middle: a quad when both straddle it, a triangle when one has a midpoint.
    match (inside_parity, outside_parity) {
        (Parity::Odd, Parity::Odd) => {
            let (i0, i1) = (w.inside.at(w.i), w.inside.at(w.i + 1));
            let (o0, o1) = (w.outside.at(w.o), w.outside.at(w.o + 1));
            w.out.cw(i0, o0, i1);
            w.out.cw(i1, o0, o1);
            w.i += 1;
            w.o += 1;
        }
        (Parity::Even, Parity::Odd) => {
            let (i0, o0, o1) = (w.inside.at(w.i), w.outside.at(w.o), w.outside.at(w.o + 1));
            w.out.cw(i0, o0, o1);
            w.o += 1;
        }
        (Parity::Odd, Parity::Even) => w.advance_inside(),
        (Parity::Even, Parity::Even) => {}
    }
    for &at in RULER_ORDER[1..].iter().rev() {
        if at < outside_half {
            w.advance_outside();
        }
        if at < inside_half {
            w.advance_inside();
        }
    }
    if RULER_ORDER[0] < outside_half {
        w.advance_outside();
    }
}
