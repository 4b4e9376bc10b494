//! The float control bits of cr0.0 a kernel may change (Gen11 PRM Vol 2d "Control
//! Register"; Mesa brw_eu_defines.h `BRW_CR0_RND_MODE_*`, `BRW_CR0_FP*_DENORM_PRESERVE`):
//! the rounding mode in bits 5:4 and the denormal modes in bits 6 (double), 7 (single)
//! and 10 (half); and rounding under a directed mode.
//!
//! Seed 003 gives the same fields per dispatch (3DSTATE_PS Rounding Mode 15:14 "RTNE,
//! RU, RD, RTZ", Single Precision Denormal Mode "Flushed to Zero / Retained";
//! INTERFACE_DESCRIPTOR_DATA Rounding Mode and Denorm Mode, whose Ftz value flushes
//! single precision denormals as inputs and outputs, "Double precision float and half
//! precision float numbers are not flushed to zero"). A thread starts with every bit
//! clear (round to nearest even, single precision denormals flushed); the fronts refuse
//! other dispatch values by name.
//!
//! A directed mode applies to the results of the operations IEEE-754 rounds once: float
//! add, mul and the fused mad, and conversions to a narrower float type (an integer to
//! float or half, float to half). The value is worked out exactly as a pair of doubles
//! (`hi` the nearest double, `lo` the rest: sums by Knuth's TwoSum, products of single or
//! half values being exact in a double) and rounded from there to the destination type,
//! so no result is rounded twice.

/// cr0.0 bit 0: Single Precision Floating Point Mode (ALT).
pub(crate) const CR0_ALT: u32 = 1;
/// cr0.0 5:4: Rounding Mode.
pub(crate) const CR0_ROUNDING: u32 = 0x30;
/// cr0.0 bit 6: Double Precision Denorm Mode (1: retained).
pub(crate) const CR0_DF_DENORM: u32 = 1 << 6;
/// cr0.0 bit 7: Single Precision Denorm Mode (1: retained).
pub(crate) const CR0_F_DENORM: u32 = 1 << 7;
/// cr0.0 bit 10: Half Precision Denorm Mode (1: retained).
pub(crate) const CR0_HF_DENORM: u32 = 1 << 10;
/// The cr0.0 bits a kernel may change in this model (bit 0, the ALT mode, is the
/// dispatch's and stays as dispatched).
pub(crate) const CR0_MODELLED: u32 = CR0_ROUNDING | CR0_DF_DENORM | CR0_F_DENORM | CR0_HF_DENORM;

/// cr0.0 5:4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rounding {
    /// 0: round to nearest, ties to even.
    NearestEven,
    /// 1: toward +infinity.
    Up,
    /// 2: toward -infinity.
    Down,
    /// 3: toward zero.
    Zero,
}

impl Rounding {
    /// The mode in cr0.0 value `cr0`.
    pub(crate) fn of(cr0: u32) -> Rounding {
        match (cr0 & CR0_ROUNDING) >> 4 {
            0 => Rounding::NearestEven,
            1 => Rounding::Up,
            2 => Rounding::Down,
            _ => Rounding::Zero,
        }
    }

    /// The mode's name in the seed's table.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Rounding::NearestEven => "RTNE",
            Rounding::Up => "RU",
            Rounding::Down => "RD",
            Rounding::Zero => "RTZ",
        }
    }
}

/// An exact value as `hi + lo`: `hi` the double nearest it, `lo` the rest (zero when the
/// value is a double).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Exact {
    pub hi: f64,
    pub lo: f64,
}

impl Exact {
    /// A double, exactly.
    pub(crate) fn of(v: f64) -> Exact {
        Exact { hi: v, lo: 0.0 }
    }

    /// `a + b` exactly (Knuth's TwoSum; exact for finite doubles whose sum does not
    /// overflow, as sums and products of single or half values never do). An exact zero
    /// takes IEEE-754's sign: that of two zeros of one sign, else +0, or -0 when rounding
    /// down (IEEE 754-2008 §6.3).
    pub(crate) fn sum(a: f64, b: f64, mode: Rounding) -> Exact {
        let s = a + b;
        if !s.is_finite() {
            return Exact::of(s);
        }
        let bb = s - a;
        let lo = (a - (s - bb)) + (b - bb);
        if s == 0.0 && lo == 0.0 {
            let same_zero = a == 0.0 && b == 0.0 && a.is_sign_negative() == b.is_sign_negative();
            let hi = if same_zero {
                a
            } else if mode == Rounding::Down {
                -0.0
            } else {
                0.0
            };
            return Exact { hi, lo: 0.0 };
        }
        Exact { hi: s, lo }
    }
}

/// Which side of candidate `n` (a neighbour of the exact value, or the value itself) the
/// exact value `x` lies on.
fn side(x: Exact, n: f64) -> std::cmp::Ordering {
    use std::cmp::Ordering::*;
    if n.is_infinite() {
        return if n > 0.0 { Less } else { Greater };
    }
    // `x.hi` and `n` are within a factor of two of each other (or `n` is zero), so the
    // difference is exact (Sterbenz).
    let d = x.hi - n;
    if d > 0.0 || (d == 0.0 && x.lo > 0.0) {
        Greater
    } else if d < 0.0 || (d == 0.0 && x.lo < 0.0) {
        Less
    } else {
        Equal
    }
}

/// `n`, the nearest-even rounding of `x`, moved to `x`'s rounding under `mode`, with
/// `up` and `down` the next representable values above and below a value.
fn direct<T: Copy + PartialOrd>(
    x: Exact,
    n: T,
    as_f64: impl Fn(T) -> f64,
    up: impl Fn(T) -> T,
    down: impl Fn(T) -> T,
    mode: Rounding,
) -> T {
    use std::cmp::Ordering::*;
    let nf = as_f64(n);
    let side = side(x, nf);
    match (mode, side) {
        (Rounding::NearestEven, _) | (_, Equal) => n,
        (Rounding::Up, Greater) => up(n),
        (Rounding::Down, Less) => down(n),
        (Rounding::Zero, Greater) if nf < 0.0 => up(n),
        (Rounding::Zero, Less) if nf > 0.0 => down(n),
        _ => n,
    }
}

/// `x` rounded to single precision under `mode` (a NaN or infinity passes as it is).
pub(crate) fn to_f32(x: Exact, mode: Rounding) -> f32 {
    if !x.hi.is_finite() {
        return x.hi as f32;
    }
    direct(
        x,
        x.hi as f32,
        f64::from,
        f32::next_up,
        f32::next_down,
        mode,
    )
}

/// The next half-precision value above `h` (+inf stays; NaN passes).
fn f16_up(h: half::f16) -> half::f16 {
    let b = h.to_bits();
    if h.is_nan() || b == 0x7c00 {
        return h;
    }
    half::f16::from_bits(match b {
        // -0 and +0: the smallest positive denormal.
        0x8000 | 0x0000 => 0x0001,
        b if b & 0x8000 != 0 => b - 1,
        b => b + 1,
    })
}

/// The next half-precision value below `h`.
fn f16_down(h: half::f16) -> half::f16 {
    -f16_up(-h)
}

/// `x` rounded to half precision under `mode` (a NaN or infinity passes as it is).
pub(crate) fn to_f16(x: Exact, mode: Rounding) -> half::f16 {
    if !x.hi.is_finite() {
        return half::f16::from_f64(x.hi);
    }
    direct(
        x,
        half::f16::from_f64(x.hi),
        half::f16::to_f64,
        f16_up,
        f16_down,
        mode,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum32(a: f32, b: f32, mode: Rounding) -> f32 {
        to_f32(Exact::sum(f64::from(a), f64::from(b), mode), mode)
    }

    /// 1 + 2^-30 is between 1 and 1 + 2^-23 (the next single): up gives the latter, the
    /// others 1; -1 - 2^-30 mirrors it (down and not zero move away from zero). The
    /// double sum is exact here; 1 + 2^-60 is not (the double rounds to 1), and `lo`
    /// still says which side it is on.
    #[test]
    fn sums_round_in_each_direction() {
        let tiny = 2f32.powi(-30);
        let next = 1.0 + 2f32.powi(-23);
        assert_eq!(sum32(1.0, tiny, Rounding::Up), next);
        assert_eq!(sum32(1.0, tiny, Rounding::Down), 1.0);
        assert_eq!(sum32(1.0, tiny, Rounding::Zero), 1.0);
        assert_eq!(sum32(1.0, tiny, Rounding::NearestEven), 1.0);
        assert_eq!(sum32(-1.0, -tiny, Rounding::Down), -next);
        assert_eq!(sum32(-1.0, -tiny, Rounding::Up), -1.0);
        assert_eq!(sum32(-1.0, -tiny, Rounding::Zero), -1.0);
        let very_tiny = 2f32.powi(-60);
        assert_eq!(sum32(1.0, very_tiny, Rounding::Up), next);
        assert_eq!(sum32(1.0, -very_tiny, Rounding::Down), 1.0 - 2f32.powi(-24));
        assert_eq!(sum32(1.0, -very_tiny, Rounding::Zero), 1.0 - 2f32.powi(-24));
        assert_eq!(sum32(1.0, -very_tiny, Rounding::Up), 1.0);
    }

    /// Past the largest single: up (for positive) and down (for negative) overflow to
    /// infinity; toward zero and the opposite direction stop at ±FLT_MAX.
    #[test]
    fn overflow_follows_the_direction() {
        let max = f32::MAX;
        let half_ulp = 2f32.powi(103);
        assert_eq!(sum32(max, half_ulp, Rounding::NearestEven), f32::INFINITY);
        assert_eq!(sum32(max, half_ulp, Rounding::Up), f32::INFINITY);
        assert_eq!(sum32(max, half_ulp, Rounding::Down), max);
        assert_eq!(sum32(max, half_ulp, Rounding::Zero), max);
        assert_eq!(sum32(-max, -half_ulp, Rounding::Up), -max);
        assert_eq!(sum32(-max, -half_ulp, Rounding::Down), f32::NEG_INFINITY);
        assert_eq!(sum32(max, 1.0, Rounding::Up), f32::INFINITY);
        assert_eq!(sum32(max, 1.0, Rounding::NearestEven), max);
    }

    /// x + (-x) is +0, or -0 rounding down; -0 + -0 stays -0 in every mode.
    #[test]
    fn exact_zero_sums_take_ieee_signs() {
        for mode in [Rounding::NearestEven, Rounding::Up, Rounding::Zero] {
            assert!(sum32(1.5, -1.5, mode).is_sign_positive());
        }
        assert!(sum32(1.5, -1.5, Rounding::Down).is_sign_negative());
        for mode in [
            Rounding::NearestEven,
            Rounding::Up,
            Rounding::Down,
            Rounding::Zero,
        ] {
            assert!(sum32(-0.0, -0.0, mode).is_sign_negative());
        }
    }

    /// 2^24 + 1 (an integer no single holds): up 2^24 + 2, down and toward zero 2^24;
    /// to half: 1/3 as a single (0x3eaaaaab) lies between halves 0x3555 and 0x3556.
    #[test]
    fn conversions_round_in_each_direction() {
        let big = Exact::of(16_777_217.0);
        assert_eq!(to_f32(big, Rounding::Up), 16_777_218.0);
        assert_eq!(to_f32(big, Rounding::Down), 16_777_216.0);
        assert_eq!(to_f32(big, Rounding::Zero), 16_777_216.0);
        let neg = Exact::of(-16_777_217.0);
        assert_eq!(to_f32(neg, Rounding::Zero), -16_777_216.0);
        assert_eq!(to_f32(neg, Rounding::Down), -16_777_218.0);
        let third = Exact::of(f64::from(f32::from_bits(0x3eaa_aaab)));
        assert_eq!(to_f16(third, Rounding::Down).to_bits(), 0x3555);
        assert_eq!(to_f16(third, Rounding::Up).to_bits(), 0x3556);
        assert_eq!(to_f16(third, Rounding::Zero).to_bits(), 0x3555);
        let minus_third = Exact::of(-f64::from(f32::from_bits(0x3eaa_aaab)));
        assert_eq!(to_f16(minus_third, Rounding::Up).to_bits(), 0xb555);
        assert_eq!(to_f16(minus_third, Rounding::Down).to_bits(), 0xb556);
        // Past the largest half (65504): toward zero stops there, up goes to infinity.
        let past = Exact::of(65_520.0);
        assert_eq!(to_f16(past, Rounding::Zero).to_bits(), 0x7bff);
        assert_eq!(to_f16(past, Rounding::Up).to_bits(), 0x7c00);
        // The smallest positive half denormal from below: up reaches it, down gives +0.
        let tiny = Exact::of(2f64.powi(-26));
        assert_eq!(to_f16(tiny, Rounding::Up).to_bits(), 0x0001);
        assert_eq!(to_f16(tiny, Rounding::Down).to_bits(), 0x0000);
    }

    #[test]
    fn modes_read_from_cr0() {
        assert_eq!(Rounding::of(0), Rounding::NearestEven);
        assert_eq!(Rounding::of(0x10), Rounding::Up);
        assert_eq!(Rounding::of(0x20), Rounding::Down);
        assert_eq!(Rounding::of(0x30 | CR0_F_DENORM), Rounding::Zero);
    }
}
