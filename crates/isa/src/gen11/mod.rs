//! Gen11 (Ice Lake) encoding: native 128-bit instructions ([`decode`], [`encode`]) and the
//! 64-bit compacted form ([`compact`]). Field positions come from `defs/gen11/eu.spec`
//! (Mesa brw_inst.h, ver 11; seed 003 EU_INSTRUCTION_*) through the generated accessors;
//! the field reader/writer, the header, the code lookups and the compaction mechanism are
//! the generation-neutral ones of `crate::layout` and `crate::compact`.
//!
//! Modelled: the align1 forms (register and 32-bit immediate sources), the align1
//! three-source form, send/sendc, sends/sendsc, branches and 2-source compaction. Not
//! modelled (decode errors): Align16 (Mesa's validator refuses it on Gen11), 64-bit types
//! and immediates (ICL has none), the accumulator forms of three-source instructions
//! (NF type) and three-source compaction (Align16 only on Gen11).

pub mod codes;
pub mod compact;
pub mod decode;
pub mod encode;
pub(crate) mod message;

pub use crate::error::{DecodeError, EncodeError};
use crate::ir::Type;
use crate::layout::{Header, unencodable};
use gtsim_spec::gen11::{EuField as F, EuForm, EuImmtype, EuRegtype, eu_field};

impl crate::layout::Layout for EuForm {
    type Field = F;
    fn bits(self, f: F) -> Option<(u32, u32)> {
        eu_field(self, f)
    }
    fn def(self) -> &'static gtsim_spec::table::Def {
        EuForm::def(self)
    }
}

/// The header fields' names in every Gen11 layout (`defs/gen11/eu.spec`).
pub(crate) const HEADER: Header<F> = Header {
    saturate: F::Saturate,
    debug: F::DebugControl,
    acc_write: F::AccumulatorWriteControl,
    cond_modifier: F::ConditionalModifier,
    math_function: F::MathFunction,
    sfid: F::SharedFunctionId,
    exec_size: F::ExecutionSize,
    pred_inverse: F::PredicateInverse,
    pred_control: F::PredicateControl,
    thread_control: F::ThreadControl,
    qtr_control: F::QuarterControl,
    nib_control: F::NibbleControl,
    dep_control: F::DependencyControl,
    mask_control: F::MaskControl,
    access_mode: F::AccessMode,
    opcode: F::Opcode,
    flag_reg: F::FlagRegisterNumber,
    flag_subreg: F::FlagSubregisterNumber,
};

/// The IR types Gen11 encodes, by the spec's names (EU_REGTYPE / EU_IMMTYPE; Mesa
/// brw_reg_type.c gfx11_hw_type). UQ, Q, DF and NF have codes but no Gen11 use here.
const TYPES: &[(&str, Type)] = &[
    ("UD", Type::UD),
    ("D", Type::D),
    ("UW", Type::UW),
    ("W", Type::W),
    ("UB", Type::UB),
    ("B", Type::B),
    ("HF", Type::HF),
    ("F", Type::F),
    ("UV", Type::UV),
    ("V", Type::V),
    ("VF", Type::VF),
];

fn named(name: Option<&str>, what: &str, code: u64) -> Result<Type, DecodeError> {
    TYPES
        .iter()
        .find(|t| Some(t.0) == name)
        .map(|t| t.1)
        .ok_or_else(|| {
            DecodeError::Invalid(format!(
                "{what} code {code} ({}) is not modelled on Gen11",
                name.unwrap_or("reserved")
            ))
        })
}

/// A register type code.
pub(crate) fn reg_type(code: u64) -> Result<Type, DecodeError> {
    named(EuRegtype(code as u32).name(), "register type", code)
}

/// An immediate type code.
pub(crate) fn imm_type(code: u64) -> Result<Type, DecodeError> {
    named(EuImmtype(code as u32).name(), "immediate type", code)
}

/// The register type code of `t`.
pub(crate) fn reg_type_code(t: Type) -> Result<u64, EncodeError> {
    (0..16)
        .find(|&c| EuRegtype(c).name() == Some(t.suffix()) && reg_type(c as u64).is_ok())
        .map(u64::from)
        .ok_or_else(|| unencodable(format!("{} is not a Gen11 register type", t.suffix())))
}

/// The immediate type code of `t`.
pub(crate) fn imm_type_code(t: Type) -> Result<u64, EncodeError> {
    (0..16)
        .find(|&c| EuImmtype(c).name() == Some(t.suffix()) && imm_type(c as u64).is_ok())
        .map(u64::from)
        .ok_or_else(|| unencodable(format!("{} is not a Gen11 immediate type", t.suffix())))
}

/// Whether a branch opcode carries UIP on Gen8+ (Mesa brw_has_uip: if, else, break, cont,
/// halt; goto alike).
pub fn has_uip(op: crate::opcode::Opcode) -> bool {
    use crate::opcode::Opcode as O;
    matches!(op, O::If | O::Else | O::Break | O::Cont | O::Halt | O::Goto)
}
