//! Operand rules a decoded Gen7 instruction must satisfy: encodings that break them are
//! refused instead of decoded, so every decoded instruction has a text the assembler reads
//! back (and the interpreter never meets them).
//!
//! Rules (IVB PRM Vol4 Part3 "Register Files", "Register Region Restrictions",
//! "Instruction Operand Restrictions"): the GRF has 128 registers and the MRF 16; the
//! destination is a register; only src1 of a two-source instruction may be an immediate;
//! a direct align1 subregister is aligned to its type; align16 operands are direct
//! (Mesa's disassembler prints "Indirect align16 address mode not supported").

use super::DecodeError;
use crate::ir::*;
use crate::opcode::Kind;

fn reg(file: RegFile, nr: u8, address: Address, what: &str) -> Result<(), DecodeError> {
    let limit = match file {
        RegFile::Grf => 128,
        RegFile::Mrf => 16,
        _ => return Ok(()),
    };
    if address == Address::Direct && nr as u32 >= limit {
        return Err(DecodeError::Invalid(format!(
            "{what}: register {nr} is past the {} registers of its file",
            limit
        )));
    }
    Ok(())
}

fn aligned(subnr: u8, ty: Type, address: Address, what: &str) -> Result<(), DecodeError> {
    if address == Address::Direct && !(subnr as u32).is_multiple_of(ty.size()) {
        return Err(DecodeError::Invalid(format!(
            "{what}: subregister byte {subnr} is not aligned to its type {}",
            ty.suffix()
        )));
    }
    Ok(())
}

/// Checks the control fields of a decoded instruction: reserved values of Conditional
/// Modifier (10-15), Predicate Control (align1 13-15, align16 8-15), Thread Control (3),
/// Math Function (0, 14, 15) and Shared Function ID (8, 12-15) have no meaning and no text
/// (IVB PRM Vol4 Part3 instruction fields; the spec's EU_CONDMOD, EU_PREDCTRL,
/// EU_PREDCTRL_ALIGN16, EU_THREADCTRL, EU_MATH_FUNCTION and EU_SFID enums).
pub(crate) fn controls(ins: &Instruction) -> Result<(), DecodeError> {
    let bad = |what: &str, v: u8| Err(DecodeError::Invalid(format!("reserved {what} {v}")));
    match ins.opcode.kind() {
        Kind::Math if !(1..=13).contains(&ins.function) => {
            return bad("math function", ins.function);
        }
        Kind::Send if matches!(ins.function, 8 | 12..) => {
            return bad("shared function", ins.function);
        }
        Kind::Math | Kind::Send => {}
        _ if ins.cond_modifier > 9 => return bad("conditional modifier", ins.cond_modifier),
        _ => {}
    }
    if let Some(p) = ins.predicate {
        let max = if ins.align16 { 7 } else { 12 };
        if p.control > max {
            return bad("predicate control", p.control);
        }
    }
    if ins.thread_control > 2 {
        return bad("thread control", ins.thread_control);
    }
    Ok(())
}

/// Checks the operands of a decoded instruction.
pub(crate) fn operands(ins: &Instruction) -> Result<(), DecodeError> {
    let d = &ins.dst;
    if d.file == RegFile::Imm {
        return Err(DecodeError::Invalid(
            "the destination is in the immediate file".into(),
        ));
    }
    reg(d.file, d.nr, d.address, "destination")?;
    let align16 = matches!(d.layout, DstLayout::WriteMask(_));
    if align16 && d.address != Address::Direct {
        return Err(DecodeError::Invalid("indirect align16 destination".into()));
    }
    let three = ins.opcode.kind() == Kind::Alu3;
    if !align16 || three {
        aligned(d.subnr, d.ty, d.address, "destination")?;
    }
    // An indirect destination's address subregister prints divided by the type size.
    if let Address::Indirect { subnr, .. } = d.address
        && !(subnr as u32).is_multiple_of(d.ty.size())
    {
        return Err(DecodeError::Invalid(format!(
            "destination address subregister a0.{subnr} is not a whole number of {} elements",
            d.ty.suffix()
        )));
    }
    let n = ins.opcode.sources() as usize;
    for (i, s) in ins.srcs.iter().enumerate() {
        let what = format!("src{i}");
        match *s {
            Src::Imm { .. } => {
                if i == 0 && n >= 2 && ins.opcode.kind() != Kind::Branch {
                    return Err(DecodeError::Invalid(
                        "src0 is an immediate in a two-source instruction (only src1 may be)"
                            .into(),
                    ));
                }
            }
            Src::Reg {
                file,
                nr,
                subnr,
                ty,
                layout,
                address,
                ..
            } => {
                reg(file, nr, address, &what)?;
                match layout {
                    Layout::Region(_) => aligned(subnr, ty, address, &what)?,
                    Layout::Swizzle { .. } if address != Address::Direct => {
                        return Err(DecodeError::Invalid(format!(
                            "{what}: indirect align16 source"
                        )));
                    }
                    Layout::Swizzle { .. } if three => aligned(subnr, ty, address, &what)?,
                    Layout::Swizzle { .. } => {}
                }
            }
        }
    }
    Ok(())
}
