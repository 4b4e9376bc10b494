//! A patch's factors made ready for division: clamped to the partitioning's range
//! (seed 004 §5.6), rounded up for INTEGER partitioning (§5.7), given their parities
//! and turned into 16.16 fixed point.

use super::division::{Division, Fxp, ONE, Parity, integer_parity, to_fixed};
use crate::state::{Partitioning, Tessellator};

/// The smallest factor above 1 in 16.16 (2^-16 over 1).
const EPSILON: f32 = 1.0 / 65536.0;

/// The factor range of a partitioning.
#[derive(Debug, Clone, Copy)]
pub(super) struct Range {
    pub low: f32,
    pub high: f32,
}

impl Range {
    /// §5.6-5.7: INTEGER within [1, Max TessFactor Not Odd], ODD_FRACTIONAL within [1,
    /// Max TessFactor Odd], EVEN_FRACTIONAL within [2, Max TessFactor Not Odd]; the
    /// maxima are at most 63 and 64, the largest the division supports (software is
    /// told to program exactly those, 3DSTATE_TE DW2-3).
    pub fn of(te: &Tessellator, partitioning: Partitioning) -> Range {
        let (low, state, limit) = match partitioning {
            Partitioning::Integer => (1.0, te.max_not_odd, 64.0),
            Partitioning::OddFractional => (1.0, te.max_odd, 63.0),
            Partitioning::EvenFractional => (2.0, te.max_not_odd, 64.0),
        };
        Range {
            low,
            high: if state.is_nan() {
                low
            } else {
                state.clamp(low, limit)
            },
        }
    }

    /// `f` clamped; NaN and denormals take the low end.
    pub fn clamp(&self, f: f32) -> f32 {
        if f.is_nan() || f < self.low {
            self.low
        } else if f > self.high {
            self.high
        } else {
            f
        }
    }
}

/// The divisions of a domain's outside edges and inside axes.
#[derive(Debug, Clone)]
pub(super) struct Divisions {
    pub outside: Vec<Division>,
    pub inside: Vec<Division>,
    /// Every factor is 1 (INTEGER or ODD_FRACTIONAL): the domain is not divided.
    pub minimal: bool,
}

/// Clamps, rounds and divides the outside and inside factors of a QUAD or TRI patch
/// that is not culled.
pub(super) fn divisions(
    te: &Tessellator,
    partitioning: Partitioning,
    outside: &[f32],
    inside: &[f32],
) -> Divisions {
    let range = Range::of(te, partitioning);
    let integer = partitioning == Partitioning::Integer;
    let round = |f: f32| if integer { f.ceil() } else { f };
    let outside: Vec<f32> = outside.iter().map(|&f| round(range.clamp(f))).collect();
    // ODD_FRACTIONAL: once any factor would be above 1 in fixed point, the inside
    // factors are kept above 1 too, so the inner ring (the "picture frame") exists.
    let mut inside_range = range;
    if partitioning == Partitioning::OddFractional {
        let above_one = |f: &f32| *f > 1.0 + EPSILON / 2.0;
        // The TRI domain's single inside factor does not take part.
        let inside_counts = inside.len() > 1 && inside.iter().any(above_one);
        if outside.iter().any(above_one) || inside_counts {
            inside_range.low = 1.0 + EPSILON;
            // A Max TessFactor Odd programmed at 1 or below does not undo the frame.
            inside_range.high = inside_range.high.max(inside_range.low);
        }
    }
    let inside: Vec<f32> = inside
        .iter()
        .map(|&f| round(inside_range.clamp(f)))
        .collect();
    let parity = |f: f32, one_is_even: bool| match partitioning {
        Partitioning::Integer => integer_parity(f, one_is_even),
        Partitioning::OddFractional => Parity::Odd,
        Partitioning::EvenFractional => Parity::Even,
    };
    let fixed = |fs: &[f32], inside: bool| -> Vec<(Fxp, Parity)> {
        fs.iter()
            .map(|&f| (to_fixed(f), parity(f, inside)))
            .collect()
    };
    let (outside, inside) = (fixed(&outside, false), fixed(&inside, true));
    let minimal = partitioning != Partitioning::EvenFractional
        && outside.iter().chain(&inside).all(|&(f, _)| f == ONE);
    let divide = |fs: &[(Fxp, Parity)]| -> Vec<Division> {
        fs.iter().map(|&(f, p)| Division::new(f, p)).collect()
    };
    Divisions {
        outside: divide(&outside),
        inside: divide(&inside),
        minimal,
    }
}
