//! DWord Scattered Read/Write (seed 000 §3.9.7) and Byte Scattered Read/Write
//! (§3.9.8): one element per slot at Global Offset + the slot's offset; the execution
//! mask enables slots.

use super::space::Space;
use super::{DataMessage, DataOp, Regs, Writeback, short};
use gtsim_message::{MessageError, Response};

pub(super) fn execute(
    msg: &DataMessage,
    regs: &Regs,
    exec_mask: u32,
    space: &mut Space,
) -> Result<Response, MessageError> {
    // Offsets in DWords (§3.9.7.2) or bytes (§3.9.8.2); the Global Offset in the same
    // unit, zero without a header (§3.9.2).
    let (write, slots, bytes, unit, what) = match msg.op {
        DataOp::DwordScattered { write, slots } => (write, slots, 4, 4, "DWord Scattered"),
        DataOp::ByteScattered {
            write,
            slots,
            bytes,
        } => (write, slots, bytes, 1, "Byte Scattered"),
        _ => unreachable!("scattered::execute takes the scattered messages"),
    };
    let slots = usize::from(slots);
    let addr_regs = slots / 8;
    let need = if write { 2 * addr_regs } else { addr_regs };
    if regs.len() < need {
        return Err(short(what, need, regs.len()));
    }
    let global = u64::from(regs.header(2).unwrap_or(0));
    let offset = |s: usize| (global + u64::from(regs.dword(s / 8, s % 8))) * unit;
    let active = |s: usize| exec_mask >> s & 1 != 0;
    let n = usize::from(bytes);
    if write {
        for s in (0..slots).filter(|&s| active(s)) {
            // "right-justified within the 32-bit field. The upper bits are ignored".
            let v = regs.dword(addr_regs + s / 8, s % 8).to_le_bytes();
            space.write(offset(s), &v[..n])?;
        }
        return Ok(Response::default());
    }
    let mut wb = Writeback::new(addr_regs);
    for s in (0..slots).filter(|&s| active(s)) {
        let mut b = [0u8; 4];
        space.read(offset(s), &mut b[..n])?;
        // The element right-justified; the model returns the dword zero-extended
        // (the seed writes "only the requested bytes" of a narrower element, which a
        // dword-granular writeback cannot express; Mesa reads only those bytes).
        wb.put(s / 8, s % 8, u32::from_le_bytes(b));
    }
    Ok(wb.into_response())
}
