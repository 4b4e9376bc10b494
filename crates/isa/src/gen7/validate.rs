//! Operand rules a decoded Gen7 instruction must satisfy: encodings that break them are
//! refused instead of decoded, so every decoded instruction has a text the assembler reads
//! back (and the interpreter never meets them).
//!
//! Rules (IVB PRM Vol4 Part3 "Register Files", "Register Region Restrictions",
//! "Instruction Operand Restrictions"): the GRF has 128 registers and the MRF 16; the
//! destination is a register; only src1 of a two-source instruction may be an immediate;
//! a direct align1 subregister is aligned to its type; align16 operands are direct
//! (Mesa's disassembler prints "Indirect align16 address mode not supported"); null, ip
//! and tdr0 are single registers, and ip and tdr0 print without a subregister.

use super::DecodeError;
use crate::ir::*;
use crate::opcode::Kind;

fn reg(file: RegFile, nr: u8, address: Address, what: &str) -> Result<(), DecodeError> {
    // null, ip and tdr0 are one register each: the other numbers of their 16-number
    // classes name nothing (and print as the same name).
    if file == RegFile::Arf
        && address == Address::Direct
        && matches!(nr & 0xf0, 0x00 | 0xa0 | 0xb0)
        && nr & 0xf != 0
    {
        return Err(DecodeError::Invalid(format!(
            "{what}: architecture register {nr:#04x} does not exist"
        )));
    }
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

/// `ip` and `tdr0` print as their bare name, without a subregister.
fn bare_sub(file: RegFile, nr: u8, subnr: u8, what: &str) -> Result<(), DecodeError> {
    if file == RegFile::Arf && matches!(nr, 0xa0 | 0xb0) && subnr != 0 {
        return Err(DecodeError::Invalid(format!(
            "{what}: subregister byte {subnr} of {}",
            if nr == 0xa0 { "ip" } else { "tdr0" }
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

/// Checks the control fields of a decoded instruction: Thread Control 3 is reserved
/// (IVB PRM Vol4 Part3; the spec's EU_THREADCTRL). The reserved values of Conditional
/// Modifier, Predicate Control, Math Function and Shared Function ID never reach here:
/// they have no IR value (`codes`).
pub(crate) fn controls(ins: &Instruction) -> Result<(), DecodeError> {
    // Conditional modifier, predicate control, math function and SFID codes are checked
    // as they decode (`codes`): a reserved one has no IR value.
    if ins.thread_control > 2 {
        return Err(DecodeError::Invalid(format!(
            "reserved thread control {}",
            ins.thread_control
        )));
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
    bare_sub(d.file, d.nr, d.subnr, "destination")?;
    let align16 = matches!(d.layout, DstLayout::WriteMask(_));
    if align16 && d.address != Address::Direct {
        return Err(DecodeError::Invalid("indirect align16 destination".into()));
    }
    let three = ins.opcode.kind() == Kind::Alu3;
    if !align16 || three {
        aligned(d.subnr, d.ty, d.address, "destination")?;
    }
    // An indirect destination's address subregister is a word of a0 (a0.0-a0.7), any
    // of them: Mesa prints it divided by the type size, gtsim in words where that loses
    // it (DISASM_SYNTAX.md §3.4).
    let n = ins.opcode.sources() as usize;
    for (i, s) in ins.srcs.iter().enumerate() {
        let what = format!("src{i}");
        match *s {
            Src::Imm { .. } => {
                if i == 0 && (n >= 2 || ins.srcs.len() >= 2) {
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
                bare_sub(file, nr, subnr, &what)?;
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
