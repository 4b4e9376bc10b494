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
mod validate;

use crate::ir::Type;
use gtsim_spec::gen7::{Eu3srcType, EuImmtype, EuRegtype};

/// Why bytes are not a valid Gen7 instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Fewer bytes than the instruction needs.
    #[error("truncated instruction: {need} bytes needed, {have} left")]
    Truncated {
        /// Bytes needed.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// An opcode number Gen7 does not define.
    #[error("opcode {0:#x} is not a Gen7 instruction")]
    UnknownOpcode(u32),
    /// A compaction-table index or field value with no meaning.
    #[error("{0}")]
    Invalid(String),
}

/// Why an IR instruction cannot be encoded for Gen7.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// Something Gen7 cannot express.
    #[error("cannot encode for Gen7: {0}")]
    Unencodable(String),
}

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

/// Region field codes: horizontal stride 0,1,2,4 -> 0..3; width 1..16 -> 0..4; vertical
/// stride 0,1,2,4..32 -> 0..6 (IVB PRM Vol4 Part3 "Region Parameters"; the spec's
/// EU_HSTRIDE / EU_WIDTH / EU_VSTRIDE enums name the same values).
pub(crate) fn stride_from_code(c: u32) -> u8 {
    if c == 0 { 0 } else { 1 << (c - 1) }
}

/// Inverse of [`stride_from_code`].
pub(crate) fn stride_code(v: u8) -> Result<u32, EncodeError> {
    match v {
        0 => Ok(0),
        v if v.is_power_of_two() && v <= 32 => Ok(v.trailing_zeros() + 1),
        v => Err(EncodeError::Unencodable(format!("stride {v}"))),
    }
}

/// Width code 0..4 -> 1..16.
pub(crate) fn width_from_code(c: u32) -> u8 {
    1 << c.min(4)
}

/// Inverse of [`width_from_code`].
pub(crate) fn width_code(v: u8) -> Result<u32, EncodeError> {
    if v.is_power_of_two() && v <= 16 {
        Ok(v.trailing_zeros())
    } else {
        Err(EncodeError::Unencodable(format!("width {v}")))
    }
}

/// Execution size code 0..5 -> 1..32.
pub(crate) fn exec_size_from_code(c: u32) -> u8 {
    1 << c.min(5)
}

/// Inverse of [`exec_size_from_code`].
pub(crate) fn exec_size_code(v: u8) -> Result<u32, EncodeError> {
    if v.is_power_of_two() && v <= 32 {
        Ok(v.trailing_zeros())
    } else {
        Err(EncodeError::Unencodable(format!("execution size {v}")))
    }
}

/// Branch offsets count 8-byte units on Gen7 (Mesa brw_jump_scale: 2 per 128-bit
/// instruction... in units of 64 bits).
pub(crate) const JUMP_UNIT: i32 = 8;

#[cfg(test)]
mod tests;
