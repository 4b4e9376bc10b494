//! Gen11's encodings of the IR's control enumerations (`defs/gen11/eu.spec`: EU_CONDMOD,
//! EU_PREDCTRL, EU_MATH_FUNCTION, EU_SFID; Mesa brw_eu_defines.h). Conditional modifiers
//! and predicate controls keep Gen7's codes; math gains invm/rsqrtm, and the shared
//! functions gain the second data-cache port and the CRE.

use crate::ir::{CondModifier, MathFunction, Sfid};
use crate::layout::Codes;

const COND: &[(u32, CondModifier)] = &[
    (1, CondModifier::Z),
    (2, CondModifier::Nz),
    (3, CondModifier::G),
    (4, CondModifier::Ge),
    (5, CondModifier::L),
    (6, CondModifier::Le),
    (8, CondModifier::O),
    (9, CondModifier::U),
];

/// Align1 predicate controls: Gen7's codes (Mesa brw_eu_defines.h enum brw_predicate).
use crate::gen7::codes::PRED1;

const MATH: &[(u32, MathFunction)] = &[
    (1, MathFunction::Inv),
    (2, MathFunction::Log),
    (3, MathFunction::Exp),
    (4, MathFunction::Sqrt),
    (5, MathFunction::Rsq),
    (6, MathFunction::Sin),
    (7, MathFunction::Cos),
    (9, MathFunction::Fdiv),
    (10, MathFunction::Pow),
    (11, MathFunction::IntDivMod),
    (12, MathFunction::IntDiv),
    (13, MathFunction::IntMod),
    (14, MathFunction::Invm),
    (15, MathFunction::Rsqrtm),
];

const SFID: &[(u32, Sfid)] = &[
    (0, Sfid::Null),
    (2, Sfid::Sampler),
    (3, Sfid::Gateway),
    (4, Sfid::DataPortSamplerCache),
    (5, Sfid::DataPortRenderCache),
    (6, Sfid::Urb),
    (7, Sfid::ThreadSpawner),
    (8, Sfid::Vme),
    (9, Sfid::DataPortConstantCache),
    (10, Sfid::DataPortDataCache),
    (11, Sfid::PixelInterpolator),
    (12, Sfid::DataPortDataCache1),
    (13, Sfid::Cre),
];

/// Gen11's code tables (Align16 predicates are not modelled: no Align16 on Gen11).
pub(crate) const CODES: Codes = Codes {
    cond: COND,
    pred1: PRED1,
    pred16: &[],
    math: MATH,
    sfid: SFID,
    opcode_name: |c| gtsim_spec::gen11::EuOpcode(c).name(),
    name: "Gen11",
};

/// The shared function of a raw 4-bit id, as Gen11 numbers them.
pub fn sfid_from_code(code: u8) -> Option<Sfid> {
    SFID.iter().find(|e| e.0 == u32::from(code)).map(|e| e.1)
}
