//! Gen7 (Ivy Bridge) encoding: native 128-bit instructions ([`decode`], [`encode`]) and
//! the 64-bit compacted form ([`compact`]). Field positions come from
//! `defs/gen7/eu.spec` through the generated accessors (`eu_field`); `fields` reads and
//! writes every header and operand field by name, and the decoder and encoder only decide
//! which layout applies and translate between field values and the IR.

pub mod codes;
pub mod compact;
pub mod decode;
pub mod encode;
mod fields;
mod operands;
pub(crate) mod validate;

use crate::ir::Type;
use gtsim_spec::gen7::{Eu3srcType, EuImmtype, EuRegtype};

pub use crate::error::{DecodeError, EncodeError};
pub(crate) use crate::layout::{stride_code, stride_from_code, width_code, width_from_code};

pub(crate) fn reg_type(t: EuRegtype) -> Type {
    match t.name() {
        Some("UD") => Type::UD,
        Some("D") => Type::D,
        Some("UW") => Type::UW,
        Some("W") => Type::W,
        Some("UB") => Type::UB,
        Some("B") => Type::B,
        Some("DF") => Type::DF,
        _ => Type::F,
    }
}

pub(crate) fn imm_type(t: EuImmtype) -> Type {
    match t.name() {
        Some("UD") => Type::UD,
        Some("D") => Type::D,
        Some("UW") => Type::UW,
        Some("W") => Type::W,
        Some("UV") => Type::UV,
        Some("VF") => Type::VF,
        Some("V") => Type::V,
        _ => Type::F,
    }
}

pub(crate) fn three_src_type(t: Eu3srcType) -> Type {
    match t.name() {
        Some("D") => Type::D,
        Some("UD") => Type::UD,
        Some("DF") => Type::DF,
        _ => Type::F,
    }
}

/// The encoding of `t` as a register type, if it has one.
pub(crate) fn reg_type_code(t: Type) -> Result<EuRegtype, EncodeError> {
    let name = t.suffix();
    (0..8)
        .map(EuRegtype)
        .find(|v| v.name() == Some(name))
        .ok_or_else(|| EncodeError::Unencodable(format!("{name} is not a Gen7 register type")))
}

/// The encoding of `t` as an immediate type, if it has one.
pub(crate) fn imm_type_code(t: Type) -> Result<EuImmtype, EncodeError> {
    let name = t.suffix();
    (0..8)
        .map(EuImmtype)
        .find(|v| v.name() == Some(name))
        .ok_or_else(|| EncodeError::Unencodable(format!("{name} is not a Gen7 immediate type")))
}

/// The encoding of `t` as a three-source type.
pub(crate) fn three_src_type_code(t: Type) -> Result<Eu3srcType, EncodeError> {
    let name = t.suffix();
    (0..4)
        .map(Eu3srcType)
        .find(|v| v.name() == Some(name))
        .ok_or_else(|| EncodeError::Unencodable(format!("{name} is not a Gen7 three-source type")))
}

/// Branch offsets count 8-byte units on Gen7 (Mesa brw_jump_scale: 2 per 128-bit
/// instruction... in units of 64 bits).
pub(crate) const JUMP_UNIT: i32 = 8;

#[cfg(test)]
mod tests;
