//! How one tessellation factor divides an edge of the domain: the fixed-point point
//! placement of the D3D11 reference tessellator (seed 004 §5.7 describes it in words;
//! the exact arithmetic is the reference's, which D3D11 hardware reproduces bit for
//! bit and llvmpipe uses, so images match).
//!
//! Positions are unsigned 16.16 fixed point. An edge is placed as two mirrored halves:
//! the points of one half are lerped between the positions they would have for the
//! factor's half rounded down and rounded up, weighted by the half factor's fraction,
//! and the point where the floor division lacks a point (the split point) follows the
//! "ruler function" order, so points appear one at a time as the factor grows.

/// An unsigned 16.16 fixed-point number.
pub(super) type Fxp = u32;

/// 1.0 in 16.16.
pub(super) const ONE: Fxp = 1 << 16;
/// 0.5 in 16.16.
pub(super) const HALF: Fxp = ONE >> 1;
/// 1/3 in 16.16, truncated (the reference's centre of the triangle).
pub(super) const ONE_THIRD: Fxp = 0x5555;
/// 2/3 in 16.16, truncated.
pub(super) const TWO_THIRDS: Fxp = 0xaaaa;
const FRACTION: Fxp = ONE - 1;
const INTEGER: Fxp = 0x7fff_0000;

/// The 16.16 value nearest `f`, ties to even; `f` is a clamped factor in [1, 64].
pub(super) fn to_fixed(f: f32) -> Fxp {
    // An f32 times 2^16 is exact in f64; the reference rounds the dropped mantissa
    // bits to nearest even.
    (f64::from(f) * f64::from(ONE)).round_ties_even() as Fxp
}

/// The f32 of a 16.16 value (exact for the domain's [0, 1]).
pub(super) fn to_float(x: Fxp) -> f32 {
    (x >> 16) as f32 + (x & FRACTION) as f32 / ONE as f32
}

fn ceil(x: Fxp) -> Fxp {
    if x & FRACTION != 0 {
        (x & INTEGER) + ONE
    } else {
        x
    }
}

fn floor(x: Fxp) -> Fxp {
    x & INTEGER
}

/// 1/n in 16.16 rounded to nearest, n in 1..=64 (the reference's reciprocal table).
fn reciprocal(n: u32) -> Fxp {
    (ONE + n / 2) / n.max(1)
}

/// `v` without its most significant set bit.
fn without_msb(v: u32) -> u32 {
    if v == 0 {
        0
    } else {
        v & !(1 << (31 - v.leading_zeros()))
    }
}

/// Whether an edge has a midpoint (EVEN) or a segment straddling it (ODD).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Parity {
    Even,
    Odd,
}

/// The parity INTEGER partitioning gives a rounded factor: even factors are EVEN,
/// odd ones ODD; an inside factor of 1 is treated as EVEN (`one_is_even`).
pub(super) fn integer_parity(factor: f32, one_is_even: bool) -> Parity {
    if (factor as i32) & 1 == 0 || (one_is_even && factor == 1.0) {
        Parity::Even
    } else {
        Parity::Odd
    }
}

/// One factor's division of an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Division {
    /// The parity the factor is divided with.
    pub parity: Parity,
    /// The points on the whole edge, both ends included.
    pub points: usize,
    /// The points of one half (for EVEN without the midpoint).
    pub half_points: u32,
    /// The half factor's fractional part: the weight of the rounded-up placement.
    fraction: Fxp,
    /// The point index past which the rounded-down placement has one point less.
    split: u32,
    /// 1 / segments of the rounded-down and rounded-up factors.
    inv_floor: Fxp,
    inv_ceil: Fxp,
}

impl Division {
    /// The division of an edge by the 16.16 factor `factor` (at least 1).
    pub fn new(factor: Fxp, parity: Parity) -> Division {
        let odd = parity == Parity::Odd;
        let points = if odd {
            (ceil(HALF + factor.div_ceil(2)) * 2) >> 16
        } else {
            ((ceil(factor.div_ceil(2)) * 2) >> 16) + 1
        } as usize;
        let mut half = factor.div_ceil(2);
        // A factor of 1 with EVEN parity is placed as if it were 2.
        if odd || half == HALF {
            half += HALF;
        }
        let (lo, hi) = (floor(half), ceil(half));
        let half_points = hi >> 16;
        let split = if lo == hi {
            half_points + 1
        } else if odd {
            if lo == ONE {
                0
            } else {
                (without_msb((lo >> 16) - 1) << 1) + 1
            }
        } else {
            (without_msb(lo >> 16) << 1) + 1
        };
        let segments = |x: Fxp| ((x * 2) >> 16) - u32::from(odd);
        Division {
            parity,
            points,
            half_points,
            fraction: half - lo,
            split,
            inv_floor: reciprocal(segments(lo)),
            inv_ceil: reciprocal(segments(hi)),
        }
    }

    /// The 16.16 position in [0, 1] of point `point` (0 at one end, `points - 1` at
    /// the other).
    pub fn place(&self, point: u32) -> Fxp {
        let (point, flip) = if point >= self.half_points {
            let mirrored = (self.half_points << 1) - point;
            let mirrored = if self.parity == Parity::Odd {
                mirrored.wrapping_sub(1)
            } else {
                mirrored
            };
            (mirrored, true)
        } else {
            (point, false)
        };
        if point == self.half_points {
            return HALF;
        }
        let on_ceil = point;
        let on_floor = if point > self.split { point - 1 } else { point };
        let at_floor = u64::from(on_floor.wrapping_mul(self.inv_floor));
        let at_ceil = u64::from(on_ceil.wrapping_mul(self.inv_ceil));
        let f = u64::from(self.fraction);
        let lerp = at_floor * (u64::from(ONE) - f) + at_ceil * f;
        let at = ((lerp + u64::from(HALF)) >> 16) as Fxp;
        if flip { ONE.wrapping_sub(at) } else { at }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_round_trips_and_rounds_to_even() {
        assert_eq!(to_fixed(1.0), ONE);
        assert_eq!(to_fixed(2.5), 0x28000);
        // 1 + 2^-17 is a tie: to even (1.0); 1 + 3 * 2^-17 rounds up to 1 + 2^-15.
        assert_eq!(to_fixed(1.0 + 2f32.powi(-17)), ONE);
        assert_eq!(to_fixed(1.0 + 3.0 * 2f32.powi(-17)), ONE + 2);
        assert_eq!(to_float(HALF), 0.5);
        assert_eq!(to_float(ONE), 1.0);
    }

    /// The reciprocals worked by hand: 65536 / n rounded to nearest.
    #[test]
    fn reciprocals_round_to_nearest() {
        assert_eq!(reciprocal(1), 0x10000);
        assert_eq!(reciprocal(3), 0x5555); // 21845.33
        assert_eq!(reciprocal(6), 0x2aab); // 10922.67
        assert_eq!(reciprocal(7), 0x2492); // 9362.29
        assert_eq!(reciprocal(64), 0x400);
    }

    fn all(d: &Division) -> Vec<f32> {
        (0..d.points as u32).map(|p| to_float(d.place(p))).collect()
    }

    /// INTEGER factors divide an edge into equal segments (§5.7), to 16-bit precision.
    #[test]
    fn integer_factors_divide_evenly() {
        for n in 1..=64u32 {
            let parity = integer_parity(n as f32, false);
            let d = Division::new(n << 16, parity);
            assert_eq!(d.points, n as usize + 1, "factor {n}");
            for (i, x) in all(&d).iter().enumerate() {
                let exact = i as f32 / n as f32;
                // The reciprocal's rounding, 1/2^17 per segment, plus the final rounding.
                let tolerance = (i as f32 / 2.0 + 1.0) / 65536.0;
                assert!((x - exact).abs() <= tolerance, "factor {n} point {i}: {x}");
            }
        }
    }

    /// EVEN_FRACTIONAL 3.0 (§5.7), worked by hand: 4 segments with the midpoint kept;
    /// the point between an end and the midpoint lies halfway (3 is halfway from 2 to
    /// 4) between its position for factor 2 (1/2) and for factor 4 (1/4): 3/8, so each
    /// half is one full segment and "one smaller segment" of 1/8.
    #[test]
    fn even_fractional_keeps_the_midpoint_and_mirrors() {
        let d = Division::new(3 << 16, Parity::Even);
        assert_eq!(d.points, 5);
        assert_eq!(all(&d), [0.0, 0.375, 0.5, 0.625, 1.0]);
    }

    /// ODD_FRACTIONAL 2.0 (§5.7), worked by hand: 3 segments, no midpoint, mirrored;
    /// the half factor 1.5 lies halfway between 1 (one segment: the new point at the
    /// end, 0) and 2 (three segments: 1/3), so the point is at 1/6, and the middle
    /// segment straddles 1/2. Just above 1 the new points emerge from the ends.
    #[test]
    fn odd_fractional_straddles_the_midpoint() {
        let d = Division::new(2 << 16, Parity::Odd);
        assert_eq!(d.points, 4);
        let x = all(&d);
        assert_eq!((x[0], x[3]), (0.0, 1.0));
        // 65536 / 3 rounded (0x5555) times 1/2, rounded: 10923 / 65536.
        assert_eq!(d.place(1), 0x5555 / 2 + 1);
        assert_eq!(d.place(2), ONE - d.place(1));
        let near_one = Division::new(ONE + 0x100, Parity::Odd);
        let y = all(&near_one);
        assert!(y[1] < 0.001 && y[2] > 0.999, "{y:?}");
    }
}
