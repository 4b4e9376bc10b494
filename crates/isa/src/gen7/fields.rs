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
use super::{DecodeError, EncodeError, exec_size_code, exec_size_from_code};
use crate::ir::*;
use crate::opcode::{Kind, Opcode};
use gtsim_spec::bits;
use gtsim_spec::gen7::{EuField as F, EuForm, EuOpcode, eu_field};

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

pub(super) fn unencodable(why: impl Into<String>) -> EncodeError {
    EncodeError::Unencodable(why.into())
}

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

/// An instruction's dwords read in one of its layouts.
pub(super) struct Fields<'a> {
    form: EuForm,
    dw: &'a [u32],
}

impl<'a> Fields<'a> {
    /// The layout `form` of `dw`, after checking its fixed fields (Compaction Control,
    /// and Access Mode where the layout fixes it).
    pub(super) fn new(form: EuForm, dw: &'a [u32]) -> Result<Fields<'a>, DecodeError> {
        form.def()
            .check_fixed(dw)
            .map_err(|e| DecodeError::Invalid(e.to_string()))?;
        Ok(Fields { form, dw })
    }

    pub(super) fn form(&self) -> EuForm {
        self.form
    }

    /// The field's bits (0 where the layout has no such field).
    pub(super) fn get(&self, f: F) -> u64 {
        eu_field(self.form, f).map_or(0, |(s, e)| bits::get(self.dw, s, e))
    }

    pub(super) fn u8(&self, f: F) -> u8 {
        self.get(f) as u8
    }

    pub(super) fn flag(&self, f: F) -> bool {
        self.get(f) != 0
    }

    /// The field read as two's complement.
    pub(super) fn signed(&self, f: F) -> i64 {
        eu_field(self.form, f).map_or(0, |(s, e)| bits::sext(bits::get(self.dw, s, e), e - s + 1))
    }
}

/// Dwords being written in one layout. Every value is checked against its field's width:
/// a value that does not fit is an error, never a truncation.
pub(super) struct FieldsMut {
    form: EuForm,
    dw: [u32; 4],
}

impl FieldsMut {
    pub(super) fn new(form: EuForm) -> FieldsMut {
        FieldsMut { form, dw: [0; 4] }
    }

    /// Writes the following fields in layout `form` (send and branch keep their operands
    /// in an access mode's register layout).
    pub(super) fn set_form(&mut self, form: EuForm) {
        self.form = form;
    }

    fn bits(&self, f: F, nonzero: bool) -> Result<Option<(u32, u32)>, EncodeError> {
        match eu_field(self.form, f) {
            Some(b) => Ok(Some(b)),
            None if !nonzero => Ok(None),
            None => Err(unencodable(format!(
                "the {:?} layout has no {f:?} field",
                self.form
            ))),
        }
    }

    /// Writes an unsigned field.
    pub(super) fn put(&mut self, f: F, value: u64) -> Result<(), EncodeError> {
        let Some((s, e)) = self.bits(f, value != 0)? else {
            return Ok(());
        };
        let w = e - s + 1;
        if w < 64 && value >> w != 0 {
            return Err(unencodable(format!(
                "{f:?} {value} does not fit its {w} bits"
            )));
        }
        bits::set(&mut self.dw, s, e, value);
        Ok(())
    }

    /// Writes a two's complement field.
    pub(super) fn put_signed(&mut self, f: F, value: i64) -> Result<(), EncodeError> {
        let Some((s, e)) = self.bits(f, value != 0)? else {
            return Ok(());
        };
        let w = e - s + 1;
        let (lo, hi) = (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1);
        if value < lo || value > hi {
            return Err(unencodable(format!(
                "{f:?} {value} does not fit its {w} signed bits"
            )));
        }
        bits::set(&mut self.dw, s, e, value as u64 & ((1u64 << w) - 1));
        Ok(())
    }

    pub(super) fn put_flag(&mut self, f: F, value: bool) -> Result<(), EncodeError> {
        self.put(f, value as u64)
    }

    /// The instruction, after checking it against its layout's fixed fields.
    pub(super) fn finish(self) -> Result<[u32; 4], EncodeError> {
        self.form
            .def()
            .check_fixed(&self.dw)
            .map_err(|e| unencodable(e.to_string()))?;
        Ok(self.dw)
    }
}

// ---------------------------------------------------------------------------------------
// The header
// ---------------------------------------------------------------------------------------

/// The opcode of native dwords `dw` (Opcode has the same bits in every layout; read
/// through the align1 register layout).
pub(super) fn opcode(dw: &[u32]) -> Result<Opcode, DecodeError> {
    let code = gtsim_spec::gen7::eu_get(EuForm::Align12src, F::Opcode, dw) as u32;
    EuOpcode(code)
        .name()
        .and_then(Opcode::from_mnemonic)
        .ok_or(DecodeError::UnknownOpcode(code))
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
    let mut ins = Instruction::new(opcode);
    ins.align16 = align16;
    ins.mask_disable = r.flag(F::MaskControl);
    ins.dep_control = r.u8(F::DependencyControl);
    ins.qtr_control = r.u8(F::QuarterControl);
    ins.nib_control = r.flag(F::NibbleControl);
    ins.thread_control = r.u8(F::ThreadControl);
    ins.predicate =
        codes::pred_control(r.get(F::PredicateControl) as u32, align16)?.map(|control| Predicate {
            control,
            inverse: r.flag(F::PredicateInverse),
        });
    ins.exec_size = exec_size_from_code(r.get(F::ExecutionSize) as u32);
    ins.flag = (r.u8(F::FlagRegisterNumber), r.u8(F::FlagSubregisterNumber));
    ins.acc_write = r.flag(F::AccumulatorWriteControl);
    ins.saturate = r.flag(F::Saturate);
    ins.debug = r.flag(F::DebugControl);
    match opcode.kind() {
        Kind::Math => ins.math = Some(codes::math_function(r.get(F::MathFunction) as u32)?),
        Kind::Send => ins.sfid = Some(codes::sfid(r.get(F::SharedFunctionId) as u32)?),
        _ => ins.cond_modifier = codes::cond_modifier(r.get(F::ConditionalModifier) as u32)?,
    }
    Ok(ins)
}

/// Writes the header fields of `ins` in `w`'s layout.
pub(super) fn write_header(w: &mut FieldsMut, ins: &Instruction) -> Result<(), EncodeError> {
    let opcode = (0..128)
        .map(EuOpcode)
        .find(|o| o.name() == Some(ins.opcode.mnemonic()))
        .ok_or_else(|| unencodable(format!("{} is not a Gen7 opcode", ins.opcode.mnemonic())))?;
    w.put(F::Opcode, opcode.0 as u64)?;
    w.put_flag(F::AccessMode, ins.align16)?;
    w.put_flag(F::Saturate, ins.saturate)?;
    w.put_flag(F::DebugControl, ins.debug)?;
    w.put_flag(F::AccumulatorWriteControl, ins.acc_write)?;
    w.put(F::ExecutionSize, exec_size_code(ins.exec_size)? as u64)?;
    if let Some(p) = ins.predicate {
        w.put(
            F::PredicateControl,
            codes::pred_control_code(p.control) as u64,
        )?;
        w.put_flag(F::PredicateInverse, p.inverse)?;
    }
    w.put(F::ThreadControl, ins.thread_control as u64)?;
    w.put(F::QuarterControl, ins.qtr_control as u64)?;
    w.put(F::DependencyControl, ins.dep_control as u64)?;
    w.put_flag(F::MaskControl, ins.mask_disable)?;
    w.put_flag(F::NibbleControl, ins.nib_control)?;
    w.put(F::FlagRegisterNumber, ins.flag.0 as u64)?;
    w.put(F::FlagSubregisterNumber, ins.flag.1 as u64)?;
    match ins.opcode.kind() {
        Kind::Math => {
            let f = ins
                .math
                .ok_or_else(|| unencodable("a math instruction without its function"))?;
            w.put(F::MathFunction, codes::math_function_code(f) as u64)
        }
        Kind::Send => {
            let sfid = ins
                .sfid
                .ok_or_else(|| unencodable("a send without its shared function"))?;
            w.put(F::SharedFunctionId, codes::sfid_code(sfid) as u64)
        }
        _ => w.put(
            F::ConditionalModifier,
            codes::cond_modifier_code(ins.cond_modifier) as u64,
        ),
    }
}
