//! Gen7 instruction fields by name, in both directions: the decoder and the encoder read
//! and write every header field here, and every operand field in `operands`, through the
//! spec's generated accessors (`eu_field`, in the spirit of Mesa's brw_inst.h), so no bit
//! position is written by hand.
//!
//! An instruction is in one layout (`EuForm`) of `defs/gen7/eu.spec`; every layout names
//! its fields alike, so a field a layout lacks reads as zero and refuses a non-zero
//! write, and every written value is checked against its field's width. Which layout
//! applies is decided in [`form`].

use super::codes;
use super::{DecodeError, EncodeError};
use crate::ir::*;
use crate::opcode::{Kind, Opcode};
use gtsim_spec::gen7::{EuField as F, EuForm, eu_field};

/// The Register File codes (EU_REGFILE).
pub(super) const IMM_FILE: u64 = 3;

pub(super) fn file(code: u64) -> RegFile {
    match code {
        0 => RegFile::Arf,
        1 => RegFile::Grf,
        2 => RegFile::Mrf,
        _ => RegFile::Imm,
    }
}

pub(super) fn file_code(f: RegFile) -> u64 {
    match f {
        RegFile::Arf => 0,
        RegFile::Grf => 1,
        RegFile::Mrf => 2,
        RegFile::Imm => IMM_FILE,
    }
}

pub(super) use crate::layout::unencodable;

/// The layout of an instruction: send, branch and three-source opcodes have their own;
/// the others are align1 or align16 (Access Mode) in a register or an immediate layout
/// (`defs/gen7/eu.spec`, "Which layout applies").
pub(super) fn form(kind: Kind, align16: bool, immediate: bool) -> EuForm {
    match (kind, align16, immediate) {
        (Kind::Send, ..) => EuForm::Send,
        (Kind::Branch, ..) => EuForm::Branch,
        (Kind::Alu3, ..) => EuForm::N3src,
        (_, false, false) => EuForm::Align12src,
        (_, false, true) => EuForm::Align1Imm,
        (_, true, false) => EuForm::Align162src,
        (_, true, true) => EuForm::Align16Imm,
    }
}

/// The register layout of an access mode (where send and branch keep dst and src0).
pub(super) fn register_form(align16: bool) -> EuForm {
    form(Kind::Alu, align16, false)
}

impl crate::layout::Layout for EuForm {
    type Field = F;
    fn bits(self, f: F) -> Option<(u32, u32)> {
        eu_field(self, f)
    }
    fn def(self) -> &'static gtsim_spec::table::Def {
        EuForm::def(self)
    }
}

/// An instruction's dwords read in one of the Gen7 layouts.
pub(super) type Fields<'a> = crate::layout::Fields<'a, EuForm>;

/// Dwords being written in one of the Gen7 layouts.
pub(super) type FieldsMut = crate::layout::FieldsMut<EuForm>;

/// The header fields' names in every Gen7 layout.
const HEADER: crate::layout::Header<F> = crate::layout::Header {
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

// ---------------------------------------------------------------------------------------
// The header
// ---------------------------------------------------------------------------------------

/// The opcode of native dwords `dw` (Opcode has the same bits in every layout; read
/// through the align1 register layout).
pub(super) fn opcode(dw: &[u32]) -> Result<Opcode, DecodeError> {
    codes::CODES.opcode(gtsim_spec::gen7::eu_get(EuForm::Align12src, F::Opcode, dw) as u32)
}

/// Whether native dwords `dw` are in Align16 (Access Mode has the same bit in every
/// layout; read through the send layout, where it is not fixed).
pub(super) fn access_mode_align16(dw: &[u32]) -> bool {
    gtsim_spec::gen7::eu_get(EuForm::Send, F::AccessMode, dw) != 0
}

/// An instruction with the header fields of `r` and no operands yet. Math Function and
/// Shared Function ID take Conditional Modifier's bits in their opcodes' layouts; the
/// three-source layout keeps the flag register in dword 1 (each layout says where).
pub(super) fn read_header(
    r: &Fields,
    opcode: Opcode,
    align16: bool,
) -> Result<Instruction, DecodeError> {
    crate::layout::read_header(r, &HEADER, &codes::CODES, opcode, align16)
}

/// Writes the header fields of `ins` in `w`'s layout.
pub(super) fn write_header(w: &mut FieldsMut, ins: &Instruction) -> Result<(), EncodeError> {
    crate::layout::write_header(w, &HEADER, &codes::CODES, ins)
}
