//! The atomic operations of seed 000 §3.9.9 ("The following atomic operations are
//! available"): the new destination and the returned value from the old destination and
//! up to two sources. imax/imin compare signed, umax/umin unsigned; everything else is
//! 32-bit unsigned arithmetic that wraps.

/// An atomic operation (seed 000 §3.9.9.5 Atomic Operation Type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    /// `(src0 == old) ? src1 : old` on 8 bytes (untyped messages only, not SLM).
    CmpWr8B,
    /// `old & src0`.
    And,
    /// `old | src0`.
    Or,
    /// `old ^ src0`.
    Xor,
    /// `src0`.
    Mov,
    /// `old + 1`.
    Inc,
    /// `old - 1`.
    Dec,
    /// `old + src0`.
    Add,
    /// `old - src0`.
    Sub,
    /// `src0 - old`.
    RevSub,
    /// Signed maximum.
    IMax,
    /// Signed minimum.
    IMin,
    /// Unsigned maximum.
    UMax,
    /// Unsigned minimum.
    UMin,
    /// `(src0 == old) ? src1 : old`.
    CmpWr,
    /// `old - 1`, returning the new value.
    PreDec,
    /// Gen9+ float `fmax(old, src0)` (seed 003 MDC_FOP2 AOP_FMAX).
    FMax,
    /// Gen9+ float `fmin(old, src0)` (seed 003 MDC_FOP2 AOP_FMIN).
    FMin,
    /// Gen9+ float `(src0 == old) ? src1 : old`, compared as floats (seed 003 MDC_FOP3
    /// AOP_FCMPWR).
    FCmpWr,
}

impl AtomicOp {
    /// The operation with Atomic Operation Type `code` (0-15, seed 000 §3.9.9.5).
    pub fn from_code(code: u32) -> Option<AtomicOp> {
        use AtomicOp::*;
        Some(match code {
            0 => CmpWr8B,
            1 => And,
            2 => Or,
            3 => Xor,
            4 => Mov,
            5 => Inc,
            6 => Dec,
            7 => Add,
            8 => Sub,
            9 => RevSub,
            10 => IMax,
            11 => IMin,
            12 => UMax,
            13 => UMin,
            14 => CmpWr,
            15 => PreDec,
            _ => return None,
        })
    }

    /// The number of source operands the message carries per slot: "AOP_INC, AOP_DEC,
    /// AOP_PREDEC" none, "AOP_CMPWR" two, the others one (§3.9.9.10.2).
    pub fn sources(self) -> usize {
        match self {
            AtomicOp::Inc | AtomicOp::Dec | AtomicOp::PreDec => 0,
            AtomicOp::CmpWr | AtomicOp::CmpWr8B | AtomicOp::FCmpWr => 2,
            _ => 1,
        }
    }
}

/// `(new_dst, ret)` of `op` on the 32-bit destination `old` (AOP_CMPWR8B is 64-bit:
/// [`apply64`]).
pub fn apply(op: AtomicOp, old: u32, src0: u32, src1: u32) -> (u32, u32) {
    use AtomicOp::*;
    let new = match op {
        And => old & src0,
        Or => old | src0,
        Xor => old ^ src0,
        Mov => src0,
        Inc => old.wrapping_add(1),
        Dec | PreDec => old.wrapping_sub(1),
        Add => old.wrapping_add(src0),
        Sub => old.wrapping_sub(src0),
        RevSub => src0.wrapping_sub(old),
        IMax => (old as i32).max(src0 as i32) as u32,
        IMin => (old as i32).min(src0 as i32) as u32,
        UMax => old.max(src0),
        UMin => old.min(src0),
        CmpWr | CmpWr8B => {
            if src0 == old {
                src1
            } else {
                old
            }
        }
        FMax => float_max_min(old, src0, true),
        FMin => float_max_min(old, src0, false),
        // Seed 003 AOP_FCMPWR: an IEEE comparison (a NaN equals nothing, -0 equals +0),
        // the store a raw move of src1.
        FCmpWr => {
            if f32::from_bits(src0) == f32::from_bits(old) {
                src1
            } else {
                old
            }
        }
    };
    (new, if op == PreDec { new } else { old })
}

/// Seed 003 AOP_FMAX / AOP_FMIN as the seed specifies them (IEEE): a quiet NaN loses to
/// a number, a signalling NaN wins quietened, two NaNs give a NaN, and fmax(-0, +0) is +0
/// (fmin -0). The seed's bracketed notes describe parts that return the signalling NaN
/// or the other zero; the model follows the specification.
fn float_max_min(old: u32, src0: u32, max: bool) -> u32 {
    const QUIET: u32 = 0x0040_0000;
    let nan = |b: u32| f32::from_bits(b).is_nan();
    let signalling = |b: u32| nan(b) && b & QUIET == 0;
    match (nan(old), nan(src0)) {
        (true, true) => {
            let s = if signalling(old) || !signalling(src0) {
                old
            } else {
                src0
            };
            s | QUIET
        }
        (true, false) if signalling(old) => old | QUIET,
        (false, true) if signalling(src0) => src0 | QUIET,
        (true, false) => src0,
        (false, true) => old,
        (false, false) => {
            let (a, b) = (f32::from_bits(old), f32::from_bits(src0));
            if a == b {
                // Equal, zeros of either sign included: max takes +0, min -0.
                let a_neg = old >> 31 != 0;
                match (max, a_neg) {
                    (true, true) | (false, false) => src0,
                    _ => old,
                }
            } else if (a > b) == max {
                old
            } else {
                src0
            }
        }
    }
}

/// AOP_CMPWR8B: `(src0 == old) ? src1 : old` on 8 bytes, returning the old value.
pub fn apply64(old: u64, src0: u64, src1: u64) -> (u64, u64) {
    (if src0 == old { src1 } else { old }, old)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 003 MDC_FOP2/MDC_FOP3, worked by hand: fmax(1.5, -2) = 1.5, fmin = -2;
    /// fmax(x, qNaN) = x; fmax(x, sNaN) = quietized sNaN; fmax(-0, +0) = +0 and
    /// fmin(+0, -0) = -0; fcmpwr compares as floats (-0 == +0, NaN never equal).
    #[test]
    fn the_float_atomics_of_seed_003() {
        use AtomicOp::*;
        let f = |v: f32| v.to_bits();
        assert_eq!(apply(FMax, f(1.5), f(-2.0), 0), (f(1.5), f(1.5)));
        assert_eq!(apply(FMin, f(1.5), f(-2.0), 0).0, f(-2.0));
        let (qnan, snan) = (0x7fc0_0000, 0x7f80_0001);
        assert_eq!(apply(FMax, f(3.0), qnan, 0).0, f(3.0));
        assert_eq!(apply(FMin, qnan, f(3.0), 0).0, f(3.0));
        assert_eq!(apply(FMax, f(3.0), snan, 0).0, 0x7fc0_0001);
        assert_eq!(apply(FMax, 0x8000_0000, 0, 0).0, 0);
        assert_eq!(apply(FMax, 0, 0x8000_0000, 0).0, 0);
        assert_eq!(apply(FMin, 0, 0x8000_0000, 0).0, 0x8000_0000);
        assert_eq!(apply(FCmpWr, 0x8000_0000, 0, 7).0, 7, "-0 == +0");
        assert_eq!(apply(FCmpWr, qnan, qnan, 7).0, qnan, "NaN equals nothing");
        assert_eq!(apply(FCmpWr, f(2.0), f(2.0), f(9.0)), (f(9.0), f(2.0)));
    }

    /// Each row of the seed's table, worked by hand.
    #[test]
    fn the_atomic_table_of_the_seed() {
        use AtomicOp::*;
        let cases: &[(AtomicOp, u32, u32, u32, u32, u32)] = &[
            // op, old, src0, src1, new, ret
            (And, 0b1100, 0b1010, 0, 0b1000, 0b1100),
            (Or, 0b1100, 0b1010, 0, 0b1110, 0b1100),
            (Xor, 0b1100, 0b1010, 0, 0b0110, 0b1100),
            (Mov, 7, 9, 0, 9, 7),
            (Inc, u32::MAX, 0, 0, 0, u32::MAX),
            (Dec, 0, 0, 0, u32::MAX, 0),
            (Add, 0xffff_fffe, 3, 0, 1, 0xffff_fffe),
            (Sub, 1, 3, 0, 0xffff_fffe, 1),
            (RevSub, 1, 3, 0, 2, 1),
            // -1 (signed) against 1.
            (IMax, 0xffff_ffff, 1, 0, 1, 0xffff_ffff),
            (IMin, 0xffff_ffff, 1, 0, 0xffff_ffff, 0xffff_ffff),
            (UMax, 0xffff_ffff, 1, 0, 0xffff_ffff, 0xffff_ffff),
            (UMin, 0xffff_ffff, 1, 0, 1, 0xffff_ffff),
            (CmpWr, 5, 5, 8, 8, 5),
            (CmpWr, 5, 4, 8, 5, 5),
            // PREDEC returns the new value.
            (PreDec, 5, 0, 0, 4, 4),
        ];
        for &(op, old, s0, s1, new, ret) in cases {
            assert_eq!(apply(op, old, s0, s1), (new, ret), "{op:?}");
        }
        assert_eq!(apply64(1 << 40, 1 << 40, 7), (7, 1 << 40));
        assert_eq!(apply64(1 << 40, 1, 7), (1 << 40, 1 << 40));
    }

    #[test]
    fn codes_follow_the_seed_and_sources_the_payload_rules() {
        assert_eq!(AtomicOp::from_code(7), Some(AtomicOp::Add));
        assert_eq!(AtomicOp::from_code(15), Some(AtomicOp::PreDec));
        assert_eq!(AtomicOp::from_code(16), None);
        assert_eq!(AtomicOp::Inc.sources(), 0);
        assert_eq!(AtomicOp::CmpWr.sources(), 2);
        assert_eq!(AtomicOp::UMin.sources(), 1);
    }
}
