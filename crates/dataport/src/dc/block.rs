//! The block messages: OWord Block Read/Write (seed 000 §3.9.3), Unaligned OWord Block
//! Read (§3.9.4), OWord Dual Block Read/Write (§3.9.5) and Scratch Block Read/Write
//! (§3.9.10).

use super::space::Space;
use super::{DataMessage, DataOp, Regs, Writeback, short};
use gtsim_message::{MessageError, Response};

pub(super) fn execute(
    msg: &DataMessage,
    regs: &Regs,
    exec_mask: u32,
    space: &mut Space,
) -> Result<Response, MessageError> {
    match msg.op {
        DataOp::OwordBlock {
            write,
            unaligned,
            owords,
            high,
        } => {
            let a64 = msg.model == super::AddressModel::A64;
            oword_block(
                regs,
                exec_mask,
                space,
                (write, unaligned, a64),
                owords,
                high,
            )
        }
        DataOp::OwordDualBlock { write, owords } => {
            dual_block(regs, exec_mask, space, write, owords)
        }
        DataOp::ScratchBlock {
            write,
            dword_mode,
            regs: n,
            offset,
        } => scratch(regs, exec_mask, space, write, dword_mode, n, offset),
        _ => unreachable!("block::execute takes the block messages"),
    }
}

/// The execution mask bits of register `reg`'s eight dwords: "The low 8 bits of the
/// execution mask are used to enable the 8 channels in the first and third GRF
/// registers ... The high 8 bits are used similarly for the second and fourth"
/// (§3.9.3, §3.9.10).
fn reg_mask(exec_mask: u32, reg: usize) -> u32 {
    (exec_mask >> (8 * (reg % 2))) & 0xff
}

/// Reads OWord `i` of a block into dwords `4h..4h+4` of `reg` when `enabled`.
fn read_oword(
    space: &mut Space,
    wb: &mut Writeback,
    byte: u64,
    reg: usize,
    half: usize,
    enabled: bool,
) -> Result<(), MessageError> {
    if !enabled {
        return Ok(());
    }
    let mut b = [0u8; 16];
    space.read(byte, &mut b)?;
    for d in 0..4 {
        let v = u32::from_le_bytes([b[4 * d], b[4 * d + 1], b[4 * d + 2], b[4 * d + 3]]);
        wb.put(reg, 4 * half + d, v);
    }
    Ok(())
}

/// Writes the dwords of OWord half `half` of payload register `reg` whose bit in
/// `mask` (bit d: dword d of the register) is set.
fn write_oword(
    space: &mut Space,
    regs: &Regs,
    byte: u64,
    reg: usize,
    half: usize,
    mask: u32,
) -> Result<(), MessageError> {
    for d in 0..4 {
        if mask >> (4 * half + d) & 1 != 0 {
            let v = regs.dword(reg, 4 * half + d);
            space.write(byte + 4 * d as u64, &v.to_le_bytes())?;
        }
    }
    Ok(())
}

/// §3.9.3/§3.9.4: OWord[Offset + i] in register i/2, half i%2 (a 1-OWord block in the
/// half its Block Size names). For reads any enabled channel of an OWord's group of
/// four returns the whole OWord; the unaligned read ignores the mask.
#[allow(
    clippy::too_many_arguments,
    reason = "the descriptor's fields, unpacked"
)]
/// An OWord block at the header's Global Offset (M0.2: OWords; bytes, DWord aligned,
/// for the unaligned read, §3.9.2.2), or with `a64` (Gen9+ A64 block messages, seed
/// 003 MT1R_A64_B/MT1W_A64_B) at the graphics address in the header's first qword
/// (M0.0-1; Mesa emit_a64_oword_block_header), OWord aligned, or DWord aligned when
/// unaligned.
fn oword_block(
    regs: &Regs,
    exec_mask: u32,
    space: &mut Space,
    (write, unaligned, a64): (bool, bool, bool),
    owords: u8,
    high: bool,
) -> Result<Response, MessageError> {
    let (Some(global), Some(low), Some(high_dw)) = (regs.header(2), regs.header(0), regs.header(1))
    else {
        return Err(gtsim_message::invalid(
            "an OWord Block message without its header (the Global Offset) (seed 000 §3.9.2: header required)",
        ));
    };
    let start = match (a64, unaligned) {
        (true, _) => {
            let addr = u64::from(low) | u64::from(high_dw) << 32;
            addr & if unaligned { !3 } else { !15 }
        }
        (false, true) => u64::from(global & !3),
        (false, false) => u64::from(global) * 16,
    };
    let n = usize::from(owords);
    let place = |i: usize| -> (usize, usize) {
        if n == 1 {
            (0, usize::from(high))
        } else {
            (i / 2, i % 2)
        }
    };
    if write {
        let need = n.div_ceil(2);
        if regs.len() < need {
            return Err(short("OWord Block Write", need, regs.len()));
        }
        for i in 0..n {
            let (reg, half) = place(i);
            // For 1-OWord messages only the low 8 bits, the OWord's nibble.
            let mask = reg_mask(exec_mask, reg);
            write_oword(space, regs, start + 16 * i as u64, reg, half, mask)?;
        }
        return Ok(Response::default());
    }
    let mut wb = Writeback::new(n.div_ceil(2));
    for i in 0..n {
        let (reg, half) = place(i);
        let enabled = unaligned || reg_mask(exec_mask, reg) >> (4 * half) & 0xf != 0;
        read_oword(space, &mut wb, start + 16 * i as u64, reg, half, enabled)?;
    }
    Ok(wb.into_response())
}

/// §3.9.5: two blocks at Global Offset + Block Offset 0 (M1.0) and + Block Offset 1
/// (M1.4), in OWords; register j holds block 0's OWord j low and block 1's high. The
/// low 8 bits of the execution mask govern: a nibble per block for reads, a bit per
/// dword for writes.
fn dual_block(
    regs: &Regs,
    exec_mask: u32,
    space: &mut Space,
    write: bool,
    owords: u8,
) -> Result<Response, MessageError> {
    if regs.len() < 1 {
        return Err(short("OWord Dual Block message", 1, 0));
    }
    let global = u64::from(regs.header(2).unwrap_or(0));
    let offsets = [
        (global + u64::from(regs.dword(0, 0))) * 16,
        (global + u64::from(regs.dword(0, 4))) * 16,
    ];
    let n = usize::from(owords);
    let mask = exec_mask & 0xff;
    if write {
        if regs.len() < 1 + n {
            return Err(short("OWord Dual Block Write", 1 + n, regs.len()));
        }
        for j in 0..n {
            for (half, off) in offsets.iter().enumerate() {
                write_oword(space, regs, off + 16 * j as u64, 1 + j, half, mask)?;
            }
        }
        return Ok(Response::default());
    }
    let mut wb = Writeback::new(n);
    for j in 0..n {
        for (half, off) in offsets.iter().enumerate() {
            let enabled = mask >> (4 * half) & 0xf != 0;
            read_oword(space, &mut wb, off + 16 * j as u64, j, half, enabled)?;
        }
    }
    Ok(wb.into_response())
}

/// §3.9.10: `n` registers at HWord `offset` of the stateless immediate buffer. Dword
/// mode: each execution mask bit enables its dword; OWord mode: any bit of an OWord's
/// nibble enables the whole OWord.
#[allow(
    clippy::too_many_arguments,
    reason = "the descriptor's fields, unpacked"
)]
fn scratch(
    regs: &Regs,
    exec_mask: u32,
    space: &mut Space,
    write: bool,
    dword_mode: bool,
    n: u8,
    offset: u32,
) -> Result<Response, MessageError> {
    let n = usize::from(n);
    let base = u64::from(offset) * 32;
    let enables = |reg: usize| -> u32 {
        let m = reg_mask(exec_mask, reg);
        if dword_mode {
            m
        } else {
            (if m & 0xf != 0 { 0xf } else { 0 }) | (if m & 0xf0 != 0 { 0xf0 } else { 0 })
        }
    };
    if write {
        if regs.len() < n {
            return Err(short("Scratch Block Write", n, regs.len()));
        }
        for r in 0..n {
            let mask = enables(r);
            for half in 0..2 {
                write_oword(
                    space,
                    regs,
                    base + 32 * r as u64 + 16 * half as u64,
                    r,
                    half,
                    mask,
                )?;
            }
        }
        return Ok(Response::default());
    }
    let mut wb = Writeback::new(n);
    for r in 0..n {
        let mask = enables(r);
        let mut b = [0u8; 32];
        space.read(base + 32 * r as u64, &mut b)?;
        for d in (0..8).filter(|d| mask >> d & 1 != 0) {
            let v = u32::from_le_bytes([b[4 * d], b[4 * d + 1], b[4 * d + 2], b[4 * d + 3]]);
            wb.put(r, d, v);
        }
    }
    Ok(wb.into_response())
}
