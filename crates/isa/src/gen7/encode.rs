//! IR to native Gen7 instructions (the inverse of `decode`). The layout follows from the
//! opcode, Access Mode and whether a source is an immediate (`fields::form`); every field
//! is written by name in that layout, each value checked against its field's width.

use super::fields::{self, FieldsMut, IMM_FILE};
use super::operands;
use super::*;
use crate::ir::*;
use crate::opcode::Kind;
use gtsim_spec::gen7::{EuField, EuForm};

fn unencodable(why: impl Into<String>) -> EncodeError {
    EncodeError::Unencodable(why.into())
}

/// Encodes one instruction in native form.
pub fn encode_native(ins: &Instruction) -> Result<[u32; 4], EncodeError> {
    let kind = ins.opcode.kind();
    let immediate = ins
        .srcs
        .iter()
        .take(2)
        .any(|s| operands::immediate(s).is_some());
    let mut w = FieldsMut::new(fields::form(kind, ins.align16, immediate));
    fields::write_header(&mut w, ins)?;
    match kind {
        Kind::Send => send(ins, &mut w)?,
        Kind::Branch => branch(ins, &mut w)?,
        Kind::Alu3 => operands::write_three_source(&mut w, ins)?,
        _ => {
            operands::write_dst(&mut w, &ins.dst, ins.align16)?;
            operands::write_sources(&mut w, ins, &ins.srcs)?;
        }
    }
    w.finish()
}

/// Destination and src0 of a send or branch, in the access mode's register layout (see
/// `decode::dst_and_src0`); `w` is back in `form` afterwards.
fn dst_and_src0(ins: &Instruction, w: &mut FieldsMut, form: EuForm) -> Result<(), EncodeError> {
    w.set_form(fields::register_form(ins.align16));
    operands::write_dst(w, &ins.dst, ins.align16)?;
    let src0 = ins
        .srcs
        .first()
        .ok_or_else(|| unencodable(format!("{} needs src0", ins.opcode.mnemonic())))?;
    operands::write_src(w, 0, src0, ins.align16)?;
    w.set_form(form);
    Ok(())
}

fn send(ins: &Instruction, w: &mut FieldsMut) -> Result<(), EncodeError> {
    // dst and src0 in the instruction's access mode, then src1's file and type and the
    // descriptor from the send layout.
    dst_and_src0(ins, w, EuForm::Send)?;
    match (ins.desc, ins.srcs.get(1)) {
        (Some(desc), _) => {
            if desc & 0xe000_0000 != 0 {
                // 30:29 are reserved and 31 is End Of Thread (EU_INSTRUCTION_SEND).
                return Err(unencodable(format!(
                    "descriptor {desc:#010x} sets reserved bits 31:29"
                )));
            }
            let desc = u64::from(desc);
            w.put(EuField::MessageLength, (desc >> 25) & 0xf)?;
            w.put(EuField::ResponseLength, (desc >> 20) & 0x1f)?;
            w.put(EuField::HeaderPresent, (desc >> 19) & 1)?;
            w.put(EuField::FunctionControl, desc & 0x7ffff)?;
            w.put(EuField::EndOfThread, ins.eot as u64)?;
            w.put(EuField::Src1RegisterFile, IMM_FILE)?;
            if let Some(t) = ins.src1_type_field {
                w.put(EuField::Src1RegisterType, imm_type_code(t)?.0 as u64)?;
            }
        }
        (None, Some(s)) => {
            // The descriptor register is direct, and End Of Thread lives in the
            // immediate descriptor only.
            if matches!(
                s,
                Src::Reg {
                    address: Address::Indirect { .. },
                    ..
                }
            ) {
                return Err(unencodable("send with an indirect descriptor register"));
            }
            if ins.eot {
                return Err(unencodable("End Of Thread with a descriptor in a register"));
            }
            operands::write_src(w, 1, s, false)?;
        }
        (None, None) => return Err(unencodable("send needs a descriptor")),
    }
    Ok(())
}

fn branch(ins: &Instruction, w: &mut FieldsMut) -> Result<(), EncodeError> {
    // Dwords 0-2 as an align1 or align16 instruction (dst, src0, src1's file and type),
    // dword 3 from the branch layout's JIP/UIP (see decode_branch).
    dst_and_src0(ins, w, EuForm::Branch)?;
    match ins.srcs.get(1) {
        Some(&Src::Imm { ty, bits }) => {
            if bits != 0 {
                return Err(unencodable(
                    "a branch's src1 immediate has no bits (dword 3 holds JIP and UIP)",
                ));
            }
            w.put(EuField::Src1RegisterFile, IMM_FILE)?;
            w.put(EuField::Src1RegisterType, imm_type_code(ty)?.0 as u64)?;
        }
        Some(s @ &Src::Reg { file, ty, .. }) => {
            // Only the file and type are encoded: anything else could not be read back.
            let code = fields::file_code(file);
            if *s != super::decode::branch_src1_register(code, ty, ins.align16) {
                return Err(unencodable(
                    "a branch's register src1 encodes only its file and type",
                ));
            }
            w.put(EuField::Src1RegisterFile, code)?;
            w.put(EuField::Src1RegisterType, reg_type_code(ty)?.0 as u64)?;
        }
        None => {}
    }
    // Targets are whole 64-bit units; anything else would be silently rounded.
    for (field, name, t) in [
        (EuField::Jip, "JIP", ins.jip),
        (EuField::Uip, "UIP", ins.uip),
    ] {
        let t = t.unwrap_or(0);
        if t % JUMP_UNIT != 0 {
            return Err(unencodable(format!(
                "{name} {t} is not a multiple of {JUMP_UNIT} bytes"
            )));
        }
        w.put_signed(field, i64::from(t / JUMP_UNIT))
            .map_err(|_| unencodable(format!("{name} {t} out of range")))?;
    }
    Ok(())
}

/// Encodes an instruction: compacted when `ins.compacted` asks for it and the tables allow
/// it, native otherwise. Returns the bytes.
pub fn encode(ins: &Instruction) -> Result<Vec<u8>, EncodeError> {
    let native = encode_native(ins)?;
    if ins.compacted
        && let Some(c) = super::compact::compact(&native)
    {
        return Ok(c.iter().flat_map(|d| d.to_le_bytes()).collect());
    }
    Ok(native.iter().flat_map(|d| d.to_le_bytes()).collect())
}
