//! Native Gen7 instructions to IR.

use super::fields::{self, Fields};
use super::operands;
use super::*;
use crate::ir::*;
use crate::opcode::{Kind, Opcode};
use gtsim_spec::gen7::{EuField, EuForm, EuImmtype, EuRegtype};

use crate::layout::words;

/// Source operands whose fields an instruction's encoding carries. `wait` names one
/// source, but Mesa fills src1 too (null:F <4>.xyzw in align16, Mesa's assembler test
/// src/intel/tools/tests/gen7/wait.expected), so its fields are kept for the round trip.
fn encoded_sources(op: Opcode) -> u8 {
    if op == Opcode::Wait { 2 } else { op.sources() }
}

/// Decodes one instruction (native or compacted) at the start of `bytes`; returns it and
/// its size in bytes.
pub fn decode(bytes: &[u8]) -> Result<(Instruction, usize), DecodeError> {
    let first = words(bytes, 2)?;
    // Compaction Control is bit 29 of the first dword in both forms.
    if first[0] & (1 << 29) != 0 {
        let native = super::compact::uncompact([first[0], first[1]])?;
        let mut ins = decode_native(&native)?;
        if matches!(ins.opcode, Opcode::Nop | Opcode::Illegal) {
            return Err(DecodeError::Invalid(format!(
                "a compacted {}",
                ins.opcode.mnemonic()
            )));
        }
        ins.compacted = true;
        return Ok((ins, 8));
    }
    let dw = words(bytes, 4)?;
    // nop and illegal print no fields (Mesa encodes them all-zero but the opcode), so
    // anything else set cannot be shown.
    let op = dw[0] & 0x7f;
    if matches!(op, 0 | 0x7e) && (dw[0] & !0x7f) | dw[1] | dw[2] | dw[3] != 0 {
        return Err(DecodeError::Invalid(format!(
            "opcode {op:#x} (nop/illegal) with other fields set"
        )));
    }
    Ok((decode_native(&dw)?, 16))
}

/// Decodes a native (128-bit) instruction. The opcode and Access Mode select the layout
/// (`fields::form`); every field is then read by name in that layout.
pub fn decode_native(dw: &[u32]) -> Result<Instruction, DecodeError> {
    let opcode = fields::opcode(dw)?;
    let align16 = fields::access_mode_align16(dw);
    let kind = opcode.kind();
    let n = encoded_sources(opcode);
    let src0_imm = operands::source_is_immediate(dw, 0);
    let src1_imm = operands::source_is_immediate(dw, 1);
    let immediate = src0_imm || (src1_imm && n >= 2);
    let r = Fields::new(fields::form(kind, align16, immediate), dw)?;
    let mut ins = fields::read_header(&r, opcode, align16)?;
    match kind {
        Kind::Send => decode_send(dw, &r, &mut ins)?,
        Kind::Branch => decode_branch(dw, &r, &mut ins)?,
        Kind::Alu3 => operands::read_three_source(&r, &mut ins),
        _ => {
            if align16 {
                align16_rules(dw, n >= 2 && !src0_imm && !src1_imm, src0_imm)?;
            }
            ins.dst = operands::read_dst(&r, align16);
            operands::read_sources(&mut ins, &r, n, src0_imm)?;
        }
    }
    super::validate::controls(&ins)?;
    super::validate::operands(&ins)?;
    Ok(ins)
}

/// EU_INSTRUCTION_ALIGN16_2SRC: Dst Horizontal Stride must be 1, and bit 20 of a register
/// source's dword (an align1 width bit) is reserved, must be zero (dword 2 for src0;
/// dword 3 for src1 when it is a register).
fn align16_rules(dw: &[u32], src1_register: bool, src0_imm: bool) -> Result<(), DecodeError> {
    let r = Fields::new(EuForm::Align162src, dw)?;
    let hstride = r.get(EuField::DstHorizontalStride);
    if hstride != 1 {
        return Err(DecodeError::Invalid(format!(
            "align16 destination horizontal stride code {hstride} (must be 1)"
        )));
    }
    if !src0_imm && dw[2] & (1 << 20) != 0 || src1_register && dw[3] & (1 << 20) != 0 {
        return Err(DecodeError::Invalid(
            "align16 source sets reserved bit 20".into(),
        ));
    }
    Ok(())
}

/// Destination and src0 of a send or branch: in the access mode's register layout (align16
/// sends and branches exist: Mesa's vec4 backend); src0 is a register there, dword 3
/// being the descriptor or the jump targets.
fn dst_and_src0(dw: &[u32], ins: &mut Instruction) -> Result<(), DecodeError> {
    if operands::source_is_immediate(dw, 0) {
        return Err(DecodeError::Invalid(format!(
            "{} with an immediate src0 (dword 3 holds its {})",
            ins.opcode.mnemonic(),
            if ins.opcode.kind() == Kind::Send {
                "descriptor"
            } else {
                "jump targets"
            }
        )));
    }
    if ins.align16 {
        align16_rules(dw, false, false)?;
    }
    let ops = Fields::new(fields::register_form(ins.align16), dw)?;
    ins.dst = operands::read_dst(&ops, ins.align16);
    ins.srcs.push(operands::read_src(&ops, 0, ins.align16)?);
    Ok(())
}

fn decode_send(dw: &[u32], r: &Fields, ins: &mut Instruction) -> Result<(), DecodeError> {
    dst_and_src0(dw, ins)?;
    if r.get(EuField::Src1RegisterFile) == fields::IMM_FILE {
        // Dword 3 is the message descriptor: bits 30:29 are reserved.
        if dw[3] & 0x6000_0000 != 0 {
            return Err(DecodeError::Invalid(format!(
                "send descriptor {:#010x} sets reserved bits 30:29",
                dw[3]
            )));
        }
        ins.eot = r.get(EuField::EndOfThread) != 0;
        ins.desc = Some(
            (r.get(EuField::MessageLength) << 25
                | r.get(EuField::ResponseLength) << 20
                | r.get(EuField::HeaderPresent) << 19
                | r.get(EuField::FunctionControl)) as u32,
        );
        let t1 = EuImmtype(r.get(EuField::Src1RegisterType) as u32);
        ins.src1_type_field = (t1.0 != 0).then(|| imm_type(t1));
    } else {
        // Descriptor in a register (a0.0): the message is only known at run time. The
        // register is direct (EU_INSTRUCTION_SEND has no indirect src1 overlays).
        if r.get(EuField::Src1AddressMode) != 0 {
            return Err(DecodeError::Invalid(
                "send with an indirectly addressed descriptor register".into(),
            ));
        }
        ins.srcs.push(operands::read_src(r, 1, false)?);
    }
    Ok(())
}

fn decode_branch(dw: &[u32], r: &Fields, ins: &mut Instruction) -> Result<(), DecodeError> {
    // Dwords 0-2 as an align1 or align16 instruction; dword 3 holds JIP and UIP instead
    // of src1's register fields, but src1's file and type stay in dword 1 and encoders
    // differ in what they put there (Mesa: IMM W or D; gen4asm: ARF).
    dst_and_src0(dw, ins)?;
    let file = r.get(EuField::Src1RegisterFile);
    let ty = r.get(EuField::Src1RegisterType) as u32;
    ins.srcs.push(if file == fields::IMM_FILE {
        Src::Imm {
            ty: imm_type(EuImmtype(ty)),
            bits: 0,
        }
    } else {
        branch_src1_register(file, reg_type(EuRegtype(ty)), ins.align16)
    });
    ins.jip = Some(r.signed(EuField::Jip) as i32 * JUMP_UNIT);
    ins.uip = Some(r.signed(EuField::Uip) as i32 * JUMP_UNIT);
    Ok(())
}

/// A branch's register src1 as decoded: only its file and type are encoded, so register
/// 0 with a scalar region (align1) or the identity swizzle (align16).
pub(super) fn branch_src1_register(file: u64, ty: Type, align16: bool) -> Src {
    Src::Reg {
        file: fields::file(file),
        nr: 0,
        subnr: 0,
        ty,
        layout: if align16 {
            Layout::Swizzle {
                vstride: 0,
                swizzle: [0, 1, 2, 3],
            }
        } else {
            Layout::Region(Region {
                vstride: Some(0),
                width: 1,
                hstride: 0,
            })
        },
        address: Address::Direct,
        negate: false,
        abs: false,
    }
}
