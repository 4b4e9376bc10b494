//! Which threads of a program behave alike: the lowest general register the program
//! can read, for dispatchers that run one thread and replay its messages for the others.
//!
//! A thread's execution is a function of its registers, its architecture registers
//! (accumulators, flags and a0 start at zero), its dispatch mask, its floating-point mode
//! and the responses to its messages. When a program
//! * reads general registers only directly (no `a0`-relative source) and none below
//!   register `r`,
//! * reads no architecture register but null, the accumulators, the flags and a0,
//! * goes only where its decoded instructions are (no `jmpi`, `call` or `ret`, and
//!   every JIP/UIP lands on an instruction or at the end), and
//! * sends only messages with an immediate descriptor and no response (Response Length
//!   0, seed 000 §1.5),
//!
//! then two of its threads with the same registers from `r` on, the same dispatch mask
//! and floating-point mode execute the same instructions on the same values and send the
//! same messages in the same order, whatever their registers below `r` hold. A pixel
//! shader whose payload header (per-thread positions, masks, barycentrics) lies below
//! its constants is then the same for every thread of a primitive: BLORP's clear, for
//! one (`gtsim_pipe3d`'s message replay).

use gtsim_isa::ir::{Address, ArfRegister, Instruction, RegFile, Src};
use gtsim_isa::opcode::{Kind, Opcode};

/// The lowest general register `program` can read (128 when it reads none), or `None`
/// when it reads one indirectly or depends on something else that may differ between
/// threads (see the module documentation). `program` holds the decoded instructions
/// with their byte offsets, in order, and `end` is the byte after the last.
pub(crate) fn lowest_read<'a>(
    program: impl Iterator<Item = (usize, &'a Instruction)> + Clone,
    end: usize,
) -> Option<usize> {
    let starts: std::collections::BTreeSet<usize> = program.clone().map(|(at, _)| at).collect();
    let mut lowest = 128;
    for (at, ins) in program {
        if matches!(ins.opcode, Opcode::Jmpi | Opcode::Call | Opcode::Ret) {
            return None;
        }
        if ins.opcode.kind() == Kind::Branch {
            for rel in [ins.jip, ins.uip].into_iter().flatten() {
                let to = usize::try_from(at as i64 + i64::from(rel)).ok()?;
                if to != end && !starts.contains(&to) {
                    return None;
                }
            }
        }
        if ins.opcode.kind() == Kind::Send {
            let rlen = (ins.desc? >> 20) & 0x1f;
            if rlen != 0 {
                return None;
            }
        }
        for s in &ins.srcs {
            let Src::Reg {
                file, nr, address, ..
            } = *s
            else {
                continue;
            };
            match file {
                RegFile::Grf if address == Address::Direct => lowest = lowest.min(nr as usize),
                RegFile::Arf
                    if address == Address::Direct
                        && matches!(
                            ArfRegister::of(nr),
                            Some((
                                ArfRegister::Null
                                    | ArfRegister::Accumulator
                                    | ArfRegister::Flag
                                    | ArfRegister::Address,
                                _
                            ))
                        ) => {}
                _ => return None,
            }
        }
    }
    Some(lowest)
}
