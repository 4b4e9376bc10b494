//! MI_ATOMIC (Gen8+ PRM Vol 2a MI_ATOMIC; field codes from Mesa genxml gen11.xml): a
//! read-modify-write of the dword or qword at Memory Address. The operands are inline
//! (Operand1/Operand2 Data Dword n, interleaved) or, without Inline Data, CS_GPR0 and
//! CS_GPR1; Return Data Control puts the value before the operation into CS_GPR0.

use super::Hang;
use super::cs::{CommandStreamer, unsupported};
use super::fields::Fields;
use super::front::Front;

const REFERENCE: &str = "Gen11 PRM Vol 2a MI_ATOMIC";

/// Executes one MI_ATOMIC.
pub(super) fn execute<F: Front>(
    cs: &mut CommandStreamer<'_, F>,
    c: &Fields,
    at: u64,
) -> Result<(), Hang> {
    let name = c.def.name;
    let qword = match c.u("Data Size") {
        0 => false,
        1 => true,
        _ => {
            return Err(unsupported(
                name,
                at,
                "octword (CMP_WR16B) atomics",
                REFERENCE,
            ));
        }
    };
    let gpr = super::alu::GPR_BASE;
    let (op1, op2) = if c.flag("Inline Data") {
        let d: Vec<u64> = c
            .array("Operand Data")
            .iter()
            .map(|x| x.u("Data DWord"))
            .collect();
        let get = |i: usize| d.get(i).copied().unwrap_or(0);
        if qword {
            (get(0) | get(2) << 32, get(1) | get(3) << 32)
        } else {
            (get(0), get(1))
        }
    } else {
        let r = &cs.ctx.registers;
        (r.read64(gpr, 0), r.read64(gpr + 8, 0))
    };
    let addr = c.address("Memory Address") & F::INFO.address_mask();
    let old = if qword {
        cs.mem.read_u64(addr)
    } else {
        cs.mem.read_u32(addr).map(u64::from)
    }
    .map_err(|fault| Hang::Fault {
        command: name,
        addr: at,
        fault,
    })?;
    let bits = if qword { 64 } else { 32 };
    let mask = if qword { u64::MAX } else { u32::MAX as u64 };
    let signed = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
    // The opcode's low bits name the operation; 0x20 marks the 8-byte forms, which
    // Data Size must agree with.
    let opcode = c.u("ATOMIC OPCODE");
    if (opcode & 0x20 != 0) != qword {
        return Err(unsupported(
            name,
            at,
            format!(
                "ATOMIC OPCODE {opcode:#x} with Data Size {}",
                c.u("Data Size")
            ),
            REFERENCE,
        ));
    }
    let new = match opcode & !0x20 {
        0x01 => old & op1,
        0x02 => old | op1,
        0x03 => old ^ op1,
        0x04 => op1,
        0x05 => old.wrapping_add(1),
        0x06 => old.wrapping_sub(1),
        0x07 => old.wrapping_add(op1),
        0x08 => old.wrapping_sub(op1),
        0x09 => op1.wrapping_sub(old),
        0x0a => {
            if signed(op1) > signed(old) {
                op1
            } else {
                old
            }
        }
        0x0b => {
            if signed(op1) < signed(old) {
                op1
            } else {
                old
            }
        }
        0x0c => old.max(op1 & mask),
        0x0d => old.min(op1 & mask),
        // Compare and write: the second operand replaces a value equal to the first.
        0x0e => {
            if old == op1 & mask {
                op2
            } else {
                old
            }
        }
        other => {
            return Err(unsupported(
                name,
                at,
                format!("ATOMIC OPCODE {other:#x}"),
                REFERENCE,
            ));
        }
    } & mask;
    if qword {
        cs.write_u64(name, at, addr, new)?;
    } else {
        cs.write_u32(name, at, addr, new as u32)?;
    }
    if c.flag("Return Data Control") {
        cs.ctx.registers.write64(gpr, old);
    }
    Ok(())
}
