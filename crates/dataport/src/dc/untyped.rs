//! Untyped Surface Read/Write and Untyped Atomic Operation (seed 000 §3.9.9): raw
//! buffers (U is a byte offset), structured buffers (U an index, V a byte offset into
//! the structure) and shared local memory, in SIMD16, SIMD8 and SIMD4x2 forms, with no
//! format conversion. Up to four consecutive dwords (R, G, B, A) per slot; atomics use
//! the first.

use super::atomic::{self, AtomicOp};
use super::space::{Kind, Space};
use super::{Access, DataMessage, DataOp, Regs, Simd, Writeback, header_pixel_mask, short};
use gtsim_message::{MessageError, Response};

/// The slots a SIMD8 or SIMD16 message acts on: the execution mask ANDed with the
/// header's Pixel/Sample Mask (§3.9.9 "Execution Mask"; SIMD8 untyped messages always
/// take the low 8 bits); SIMD4x2: a slot per group of four mask bits, ORed.
pub(super) fn slot_mask(simd: Simd, regs: &Regs, exec_mask: u32) -> u32 {
    match simd {
        Simd::Simd16 => exec_mask & header_pixel_mask(regs) & 0xffff,
        Simd::Simd8 => exec_mask & header_pixel_mask(regs) & 0xff,
        Simd::Simd4x2 => u32::from(exec_mask & 0xf != 0) | u32::from(exec_mask & 0xf0 != 0) << 1,
    }
}

/// Parameter `p` (U = 0, V = 1, R = 2, LOD = 3; or a data channel or source counted
/// from register `at`) of slot `s`.
pub(super) fn param(regs: &Regs, simd: Simd, at: usize, s: usize) -> u32 {
    match simd {
        // §3.9.9.10.9: slot 0's parameters in M1.0-3, slot 1's in M1.4-7.
        Simd::Simd4x2 => regs.dword(at / 4, 4 * s + at % 4),
        _ => regs.dword(at * simd.regs_per_param() + s / 8, s % 8),
    }
}

/// Where the data of `msg` starts and how many address parameters precede it: "the
/// message length is used to determine how many address parameters are included"
/// (§3.9.9.10).
fn address_params(regs: &Regs, simd: Simd, data_params: usize) -> usize {
    let rpp = simd.regs_per_param();
    match simd {
        // One register of addresses, one of data.
        Simd::Simd4x2 => 1,
        _ => (regs.len() / rpp).saturating_sub(data_params),
    }
}

pub(super) fn execute(
    msg: &DataMessage,
    regs: &Regs,
    exec_mask: u32,
    space: &mut Space,
) -> Result<Response, MessageError> {
    let DataOp::Untyped {
        access,
        simd,
        channels,
    } = msg.op
    else {
        unreachable!("untyped::execute takes the untyped messages");
    };
    let enabled: Vec<usize> = (0..4).filter(|&c| channels[c]).collect();
    let data_params = match access {
        Access::Read => 0,
        Access::Write => enabled.len(),
        Access::Atomic { op, .. } => {
            if op == AtomicOp::CmpWr8B {
                4
            } else {
                op.sources()
            }
        }
    };
    if let Access::Write = access
        && enabled != (0..enabled.len()).collect::<Vec<_>>()
    {
        return Err(gtsim_message::invalid(
            "an untyped surface write whose channel mask is not one of 0000b, 1000b, 1100b, 1110b (seed 000 §3.9.9.2)",
        ));
    }
    if matches!(access, Access::Write | Access::Read) && enabled.is_empty() {
        return Err(gtsim_message::invalid(
            "an untyped surface message with all four channels masked (seed 000 §3.9.9.2)",
        ));
    }
    let a64 = msg.model == super::AddressModel::A64;
    if a64 && simd == Simd::Simd4x2 {
        return Err(gtsim_message::invalid(
            "an A64 untyped message in SIMD4x2 form (seed 003: SIMD8 and SIMD16)",
        ));
    }
    let n_addr = address_params(regs, simd, data_params);
    let structured = matches!(space.kind, Kind::Structured { .. });
    // An A64 address is a qword: two parameters' registers.
    let need_addr = if structured || a64 { 2 } else { 1 };
    let need_regs = match simd {
        Simd::Simd4x2 => 1 + usize::from(data_params > 0),
        _ => (need_addr + data_params) * simd.regs_per_param(),
    };
    if n_addr < need_addr || regs.len() < need_regs {
        return Err(short("untyped surface message", need_regs, regs.len()));
    }
    if simd == Simd::Simd4x2 && access == Access::Write {
        return Err(gtsim_message::invalid(
            "an untyped surface write in SIMD4x2 form (seed 000 §3.9.9.2: reads only)",
        ));
    }
    let slots = slot_mask(simd, regs, exec_mask);
    let pitch = match space.kind {
        Kind::Structured { pitch, .. } => pitch,
        _ => 0,
    };
    // The byte address of slot `s`: a raw buffer's (and SLM's) U, a structured
    // buffer's U × pitch + V.
    let address = |s: usize| -> Result<u64, MessageError> {
        if a64 {
            // Slot s's address is the s-th qword of the address registers (four to a
            // register).
            let a = u64::from(regs.dword(s / 4, 2 * (s % 4)))
                | u64::from(regs.dword(s / 4, 2 * (s % 4) + 1)) << 32;
            if a & 3 != 0 {
                return Err(gtsim_message::invalid(format!(
                    "A64 untyped message slot {s}: address {a:#x} is not DWord aligned"
                )));
            }
            return Ok(a);
        }
        let u = u64::from(param(regs, simd, 0, s));
        let (a, check) = if structured {
            let v = u64::from(param(regs, simd, 1, s));
            (u.wrapping_mul(pitch).wrapping_add(v), v)
        } else {
            (u, u)
        };
        if check & 3 != 0 {
            return Err(gtsim_message::invalid(format!(
                "untyped surface message slot {s}: byte offset {check:#x} is not DWord aligned (seed 000 §3.9.9 restrictions)"
            )));
        }
        Ok(a)
    };
    let data_at = if simd == Simd::Simd4x2 { 4 } else { n_addr };
    let n_slots = simd.slots();
    match access {
        Access::Read => {
            let mut wb = Writeback::new(match simd {
                Simd::Simd4x2 => 1,
                _ => enabled.len() * simd.regs_per_param(),
            });
            for s in (0..n_slots).filter(|&s| slots >> s & 1 != 0) {
                let a = address(s)?;
                for (k, &c) in enabled.iter().enumerate() {
                    let v = space.read_u32(a + 4 * c as u64)?;
                    match simd {
                        Simd::Simd4x2 => wb.put(0, 4 * s + c, v),
                        _ => wb.put(k * simd.regs_per_param() + s / 8, s % 8, v),
                    }
                }
            }
            Ok(wb.into_response())
        }
        Access::Write => {
            for s in (0..n_slots).filter(|&s| slots >> s & 1 != 0) {
                let a = address(s)?;
                for (k, &c) in enabled.iter().enumerate() {
                    let v = param(regs, simd, data_at + k, s);
                    space.write(a + 4 * c as u64, &v.to_le_bytes())?;
                }
            }
            Ok(Response::default())
        }
        Access::Atomic { op, ret } => {
            if op == AtomicOp::CmpWr8B && matches!(space.kind, Kind::Slm) {
                return Err(gtsim_message::invalid(
                    "AOP_CMPWR8B on shared local memory (seed 000 §3.9.9: not supported for SLM)",
                ));
            }
            let wide = op == AtomicOp::CmpWr8B;
            let mut wb = Writeback::new(match simd {
                Simd::Simd4x2 => 1,
                _ => simd.regs_per_param() * if wide { 2 } else { 1 },
            });
            for s in (0..n_slots).filter(|&s| slots >> s & 1 != 0) {
                let a = address(s)?;
                let src = |i: usize| param(regs, simd, data_at + i, s);
                let rets: [u32; 2] = if wide {
                    if a & 7 != 0 {
                        return Err(gtsim_message::invalid(format!(
                            "AOP_CMPWR8B slot {s}: address {a:#x} is not QWord aligned (seed 000 §3.9.9)"
                        )));
                    }
                    let mut b = [0u8; 8];
                    space.read(a, &mut b)?;
                    let old = u64::from_le_bytes(b);
                    let join = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
                    let (src0, src1) = match simd {
                        // §3.9.9.10.11: slot s's Source0 in dwords 0-1, Source1 2-3.
                        Simd::Simd4x2 => (join(src(0), src(1)), join(src(2), src(3))),
                        _ => (join(src(0), src(1)), join(src(2), src(3))),
                    };
                    let (new, r) = atomic::apply64(old, src0, src1);
                    space.write(a, &new.to_le_bytes())?;
                    [r as u32, (r >> 32) as u32]
                } else {
                    let old = space.read_u32(a)?;
                    let (new, r) = atomic::apply(op, old, src(0), src(1));
                    space.write(a, &new.to_le_bytes())?;
                    [r, 0]
                };
                if ret {
                    match simd {
                        // §3.9.9.11.9/10: slot 0 in W0.0(-1), slot 1 in W0.4(-5).
                        Simd::Simd4x2 => {
                            wb.put(0, 4 * s, rets[0]);
                            if wide {
                                wb.put(0, 4 * s + 1, rets[1]);
                            }
                        }
                        _ => {
                            let rpp = simd.regs_per_param();
                            wb.put(s / 8, s % 8, rets[0]);
                            if wide {
                                wb.put(rpp + s / 8, s % 8, rets[1]);
                            }
                        }
                    }
                }
            }
            Ok(if ret {
                wb.into_response()
            } else {
                Response::default()
            })
        }
    }
}
