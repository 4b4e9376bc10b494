//! Gen7's encodings of the IR's control enumerations, each in one table: conditional
//! modifier (`EU_CONDMOD`), predicate control (`EU_PREDCTRL`, `EU_PREDCTRL_ALIGN16`), math
//! function (`EU_MATH_FUNCTION`) and shared function id (`EU_SFID`), as
//! `defs/gen7/eu.spec` defines them (Mesa brw_eu_defines.h, IVB PRM Vol4 Part3). A code
//! Gen7 reserves is a decode error naming the field; a later generation has its own
//! tables beside its own encoder.

use super::DecodeError;
#[cfg(test)]
use crate::ir::PredControl;
use crate::ir::{Align1Predicate, Align16Predicate, CondModifier, MathFunction, Sfid};

/// Conditional modifier codes, 0 being none. 7 (r) is Gen4-5's and kept for round
/// trips; 10-15 are reserved.
const COND: &[(u32, CondModifier)] = &[
    (1, CondModifier::Z),
    (2, CondModifier::Nz),
    (3, CondModifier::G),
    (4, CondModifier::Ge),
    (5, CondModifier::L),
    (6, CondModifier::Le),
    (7, CondModifier::R),
    (8, CondModifier::O),
    (9, CondModifier::U),
];

/// Align1 predicate control codes, 0 being no predication; 13-15 are reserved.
pub(crate) const PRED1: &[(u32, Align1Predicate)] = &[
    (1, Align1Predicate::Normal),
    (2, Align1Predicate::AnyV),
    (3, Align1Predicate::AllV),
    (4, Align1Predicate::Any2h),
    (5, Align1Predicate::All2h),
    (6, Align1Predicate::Any4h),
    (7, Align1Predicate::All4h),
    (8, Align1Predicate::Any8h),
    (9, Align1Predicate::All8h),
    (10, Align1Predicate::Any16h),
    (11, Align1Predicate::All16h),
    (12, Align1Predicate::Any32h),
];

/// Align16 predicate control codes; 8-15 are reserved.
const PRED16: &[(u32, Align16Predicate)] = &[
    (1, Align16Predicate::Normal),
    (2, Align16Predicate::X),
    (3, Align16Predicate::Y),
    (4, Align16Predicate::Z),
    (5, Align16Predicate::W),
    (6, Align16Predicate::Any4h),
    (7, Align16Predicate::All4h),
];

/// Math function codes; 0, 14 and 15 are reserved (8, sincos, is Gen4-5's, but
/// intel-gen4asm encodes it for Gen7, so it is kept).
const MATH: &[(u32, MathFunction)] = &[
    (1, MathFunction::Inv),
    (2, MathFunction::Log),
    (3, MathFunction::Exp),
    (4, MathFunction::Sqrt),
    (5, MathFunction::Rsq),
    (6, MathFunction::Sin),
    (7, MathFunction::Cos),
    (8, MathFunction::SinCos),
    (9, MathFunction::Fdiv),
    (10, MathFunction::Pow),
    (11, MathFunction::IntDivMod),
    (12, MathFunction::IntDiv),
    (13, MathFunction::IntMod),
];

/// Shared function ids. 8 (VME) and 12-15 have no name in the disassembler's syntax and
/// are rejected, as before; 1 (Gen4-5 math) is kept for round trips.
const SFID: &[(u32, Sfid)] = &[
    (0, Sfid::Null),
    (1, Sfid::Math),
    (2, Sfid::Sampler),
    (3, Sfid::Gateway),
    (4, Sfid::DataPortSamplerCache),
    (5, Sfid::DataPortRenderCache),
    (6, Sfid::Urb),
    (7, Sfid::ThreadSpawner),
    (9, Sfid::DataPortConstantCache),
    (10, Sfid::DataPortDataCache),
    (11, Sfid::PixelInterpolator),
];

use crate::layout::{code, lookup};

/// Gen7's code tables, for the generation-neutral header reader and writer.
pub(crate) const CODES: crate::layout::Codes = crate::layout::Codes {
    cond: COND,
    pred1: PRED1,
    pred16: PRED16,
    math: MATH,
    sfid: SFID,
    opcode_name: |c| gtsim_spec::gen7::EuOpcode(c).name(),
    name: "Gen7",
};

#[cfg(test)]
/// The conditional modifier of `code` (0: none).
pub(crate) fn cond_modifier(code_: u32) -> Result<Option<CondModifier>, DecodeError> {
    if code_ == 0 {
        return Ok(None);
    }
    lookup(COND, code_, "conditional modifier").map(Some)
}

#[cfg(test)]
/// The code of a conditional modifier (0: none).
pub(crate) fn cond_modifier_code(c: Option<CondModifier>) -> u32 {
    c.map_or(0, |c| code(COND, c))
}

#[cfg(test)]
/// The predicate control of `code` in the instruction's access mode (0: none).
pub(crate) fn pred_control(code_: u32, align16: bool) -> Result<Option<PredControl>, DecodeError> {
    if code_ == 0 {
        return Ok(None);
    }
    Ok(Some(if align16 {
        PredControl::Align16(lookup(PRED16, code_, "predicate control")?)
    } else {
        PredControl::Align1(lookup(PRED1, code_, "predicate control")?)
    }))
}

#[cfg(test)]
/// The code of a predicate control.
pub(crate) fn pred_control_code(p: PredControl) -> u32 {
    match p {
        PredControl::Align1(p) => code(PRED1, p),
        PredControl::Align16(p) => code(PRED16, p),
    }
}

#[cfg(test)]
/// The math function of `code`.
pub(crate) fn math_function(code_: u32) -> Result<MathFunction, DecodeError> {
    lookup(MATH, code_, "math function")
}

#[cfg(test)]
/// The code of a math function.
pub(crate) fn math_function_code(f: MathFunction) -> u32 {
    code(MATH, f)
}

/// The shared function of `code`.
pub(crate) fn sfid(code_: u32) -> Result<Sfid, DecodeError> {
    lookup(SFID, code_, "shared function")
}

/// The code of a shared function (Vme has none the disassembler accepts; it encodes as
/// 8, the `EU_SFID` value).
pub fn sfid_code(s: Sfid) -> u32 {
    if s == Sfid::Vme { 8 } else { code(SFID, s) }
}

/// The SFID values, for the interpreter and the fronts: `Sfid` from a raw 4-bit id.
pub fn sfid_from_code(code_: u8) -> Option<Sfid> {
    sfid(u32::from(code_)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The encodings Mesa's brw_eu_defines.h gives (BRW_CONDITIONAL_*,
    /// BRW_PREDICATE_ALIGN1_* / _ALIGN16_*, BRW_MATH_FUNCTION_*, BRW_SFID_* / GEN6_SFID_* /
    /// GEN7_SFID_*), checked value by value, and round trips of every IR value.
    #[test]
    fn codes_are_the_published_encodings() {
        assert_eq!(cond_modifier_code(Some(CondModifier::Z)), 1);
        assert_eq!(cond_modifier_code(Some(CondModifier::Ge)), 4);
        assert_eq!(cond_modifier_code(Some(CondModifier::O)), 8);
        assert_eq!(cond_modifier_code(Some(CondModifier::U)), 9);
        assert_eq!(cond_modifier_code(None), 0);
        assert_eq!(
            pred_control_code(PredControl::Align1(Align1Predicate::Any4h)),
            6
        );
        assert_eq!(
            pred_control_code(PredControl::Align1(Align1Predicate::All16h)),
            11
        );
        assert_eq!(
            pred_control_code(PredControl::Align16(Align16Predicate::W)),
            5
        );
        assert_eq!(math_function_code(MathFunction::Rsq), 5);
        assert_eq!(math_function_code(MathFunction::IntDiv), 12);
        assert_eq!(sfid_code(Sfid::Sampler), 2);
        assert_eq!(sfid_code(Sfid::DataPortRenderCache), 5);
        assert_eq!(sfid_code(Sfid::Urb), 6);
        assert_eq!(sfid_code(Sfid::DataPortDataCache), 10);
        for &c in CondModifier::ALL {
            assert_eq!(cond_modifier(cond_modifier_code(Some(c))), Ok(Some(c)));
        }
        // invm and rsqrtm are Gen8+ functions.
        for &f in MathFunction::ALL
            .iter()
            .filter(|f| !matches!(f, MathFunction::Invm | MathFunction::Rsqrtm))
        {
            assert_eq!(math_function(math_function_code(f)), Ok(f));
        }
        for &p in Align16Predicate::ALL {
            let pc = PredControl::Align16(p);
            assert_eq!(pred_control(pred_control_code(pc), true), Ok(Some(pc)));
        }
    }

    /// Architecture register numbers (`EU_ARF`, Mesa BRW_ARF_*): the kind in the high
    /// nibble, the index in the low one.
    #[test]
    fn arf_numbers_are_the_published_ones() {
        use crate::ir::ArfRegister as A;
        assert_eq!(A::of(0x00), Some((A::Null, 0)));
        assert_eq!(A::of(0x10), Some((A::Address, 0)));
        assert_eq!(A::of(0x21), Some((A::Accumulator, 1)));
        assert_eq!(A::of(0x31), Some((A::Flag, 1)));
        assert_eq!(A::of(0x70), Some((A::State, 0)));
        assert_eq!(A::of(0xa0), Some((A::Ip, 0)));
        assert_eq!(A::of(0xc0), Some((A::Timestamp, 0)));
        assert_eq!(A::of(0xd0), None);
        assert_eq!(A::Flag.nr(1), 0x31);
        assert_eq!(A::Control.nr(0), 0x80);
        assert_eq!(A::ThreadDependency.nr(0), 0xb0);
    }

    #[test]
    fn reserved_codes_are_decode_errors() {
        fn reserved<T>(what: &str) -> Result<T, DecodeError> {
            Err(DecodeError::Invalid(format!("reserved {what}")))
        }
        assert_eq!(cond_modifier(10), reserved("conditional modifier 10"));
        assert_eq!(math_function(0), reserved("math function 0"));
        assert_eq!(math_function(14), reserved("math function 14"));
        assert_eq!(sfid(8), reserved("shared function 8"));
        assert_eq!(sfid(12), reserved("shared function 12"));
        assert_eq!(pred_control(13, false), reserved("predicate control 13"));
        assert_eq!(pred_control(8, true), reserved("predicate control 8"));
        assert_eq!(pred_control(0, false), Ok(None));
    }
}
