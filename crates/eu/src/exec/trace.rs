//! Channels (lanes) of a thread traced instruction by instruction (`gtsim inspect
//! --pixel X,Y --trace`, `--vertex N --draw M`): each instruction as Mesa prints it,
//! whether the lane runs it,
//! its predicate, the lane's source values and the destination value it left, in their
//! types. The traced thread runs on the per-channel interpreter (every instruction through
//! `Thread::step`, no micro-ops or compiled code), which gives the same bits as every
//! other path; loops show each iteration, sends the lane's column of what they returned.

use super::{ExecError, Flow, Program, SharedFunctions, Thread};
use crate::region::Val;
use gtsim_isa::ir::{Address, Dst, DstLayout, Layout, RegFile, Region, Src, Type};
use gtsim_isa::opcode::Opcode;

/// One instruction the traced thread executed.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceStep {
    /// Its byte offset in the kernel.
    pub ip: usize,
    /// The instruction, as Mesa's disassembler prints it.
    pub text: String,
    /// Whether the lane executes it (dispatched, not waiting in control flow, inside the
    /// instruction's channels, and its predicate true).
    pub runs: bool,
    /// The lane's predicate bit, when the instruction is predicated.
    pub predicate: Option<bool>,
    /// The lane's source values, in their types (with source modifiers applied).
    pub sources: Vec<String>,
    /// The lane's destination value after the instruction, in its type (a directly
    /// addressed GRF); for a send, the lane's column of the registers it returned.
    pub destination: Option<String>,
}

/// A value in its type, as a tool shows it.
fn show(v: Val, ty: Type) -> String {
    match (v, ty) {
        (Val::F(f), _) => format!("{f}:{ty:?}"),
        (Val::I(i), Type::UD | Type::UW | Type::UB | Type::UQ) => {
            format!("{i}:{ty:?} ({:#x})", i as u64)
        }
        (Val::I(i), _) => format!("{i}:{ty:?}"),
    }
}

impl Thread {
    /// The lane's channel in `ins` (its index among the instruction's channels), if the
    /// instruction covers the lane.
    fn channel_of(ins: &gtsim_isa::ir::Instruction, lane: usize) -> Option<usize> {
        let g = Self::group(ins);
        (lane >= g && lane < g + usize::from(ins.exec_size)).then(|| lane - g)
    }

    /// The value channel `c` of destination `d` holds, for a directly addressed GRF
    /// destination; other destinations (the null register, the accumulator, flags,
    /// indirect addressing) show none.
    fn dst_value(&self, d: &Dst, c: usize) -> Option<Val> {
        if d.file != RegFile::Grf || d.address != Address::Direct {
            return None;
        }
        let h = match d.layout {
            DstLayout::HStride(h) => usize::from(h.max(1)),
            DstLayout::WriteMask(_) => 1,
        };
        // Channel c of the destination: c * stride elements past its start, read as a
        // scalar source there.
        let byte = usize::from(d.nr) * 32 + usize::from(d.subnr) + c * h * d.ty.size() as usize;
        let at = Src::Reg {
            file: RegFile::Grf,
            nr: u8::try_from(byte / 32).ok()?,
            subnr: (byte % 32) as u8,
            ty: d.ty,
            layout: Layout::Region(Region {
                vstride: Some(0),
                width: 1,
                hstride: 0,
            }),
            address: Address::Direct,
            negate: false,
            abs: false,
        };
        self.read_src(&at, 0).ok()
    }

    /// Runs `prog` like [`Thread::run_program`], every instruction on the per-channel
    /// interpreter, recording for channels `lanes` (one pixel's, or a SIMD4x2 vertex's
    /// four) each instruction executed (at most `limit`; the rest of the thread runs
    /// unrecorded). With several lanes each value is the list of theirs.
    pub fn run_traced(
        &mut self,
        prog: &Program,
        sf: &mut dyn SharedFunctions,
        budget: u64,
        lanes: std::ops::Range<usize>,
        limit: usize,
        steps: &mut Vec<TraceStep>,
    ) -> Result<u64, ExecError> {
        self.ip = 0;
        self.traced(prog, sf, budget, lanes, limit, steps)
    }

    /// [`Thread::run_traced`] for a thread that stopped at a `wait`
    /// ([`ExecError::Waiting`], which a traced run returns too): it goes on from there,
    /// as [`Thread::resume_program`] does, appending to `steps`.
    pub fn resume_traced(
        &mut self,
        prog: &Program,
        sf: &mut dyn SharedFunctions,
        budget: u64,
        lanes: std::ops::Range<usize>,
        limit: usize,
        steps: &mut Vec<TraceStep>,
    ) -> Result<u64, ExecError> {
        self.traced(prog, sf, budget, lanes, limit, steps)
    }

    fn traced(
        &mut self,
        prog: &Program,
        sf: &mut dyn SharedFunctions,
        budget: u64,
        lanes: std::ops::Range<usize>,
        limit: usize,
        steps: &mut Vec<TraceStep>,
    ) -> Result<u64, ExecError> {
        let lanes: Vec<usize> = lanes.filter(|&l| l < 32).collect();
        let list = |v: Vec<String>| {
            if v.len() == 1 {
                v.into_iter().next().unwrap_or_default()
            } else {
                format!("[{}]", v.join(", "))
            }
        };
        let code = prog.code.as_slice();
        let labels = gtsim_isa::disasm::labels_for(prog.encoding(), &[]);
        // Instructions run here outside the program's predecoded set, so any register
        // may be written: a later reset of the thread must clear them all.
        self.nonzero = crate::written::RegisterSet::ALL;
        self.touched = crate::written::RegisterSet::ALL;
        self.acc_dirty = true;
        self.wait_dirty = true;
        let mut executed = 0u64;
        while self.ip < code.len() {
            if executed >= budget {
                return Err(ExecError::Budget {
                    budget,
                    ip: self.ip,
                });
            }
            // Wake the channels waiting for this instruction, as the run loop does.
            self.wake_waiting();
            let decoded;
            let (ins, len) = match prog.at(self.ip) {
                Some(d) => (&d.ins, d.len),
                None => {
                    decoded = prog
                        .encoding()
                        .decode(&code[self.ip..])
                        .map_err(|error| ExecError::Decode { ip: self.ip, error })?;
                    (&decoded.0, decoded.1)
                }
            };
            executed += 1;
            let record = steps.len() < limit;
            let bits = lanes.iter().fold(0u32, |m, &l| m | 1 << l);
            let channels: Vec<usize> = lanes
                .iter()
                .filter_map(|&l| Self::channel_of(ins, l))
                .collect();
            // The lanes' predicate bits, where they are otherwise live; `sel` chooses by
            // its predicate and writes either way.
            let live = self.exec_mask_with(ins, false) & bits != 0;
            let passed = self.exec_mask_with(ins, true) & bits != 0;
            let predicate = ins.predicate.filter(|_| live).map(|_| passed);
            let runs = if ins.opcode == Opcode::Sel {
                live
            } else {
                passed
            };
            let sends = matches!(
                ins.opcode,
                Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc
            );
            // A send's payload: the lanes' columns of each message register.
            let column = |t: &Thread, reg: usize| {
                let v = lanes
                    .iter()
                    .map(|&lane| {
                        let at = reg * 32 + (lane % 8) * 4;
                        t.grf_bytes().get(at..at + 4).map_or("-".into(), |b| {
                            let d = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                            format!("{d:#010x} ({})", f32::from_bits(d))
                        })
                    })
                    .collect();
                format!("g{reg}.{}: {}", lanes.first().map_or(0, |l| l % 8), list(v))
            };
            let payload = |t: &Thread| -> Vec<String> {
                let reg_of = |s: Option<&Src>| match s {
                    Some(Src::Reg { nr, .. }) => Some(usize::from(*nr)),
                    _ => None,
                };
                let mlen = ins.desc.map_or(0, |d| ((d >> 25) & 0xf) as usize);
                let mut out: Vec<String> = reg_of(ins.srcs.first())
                    .map(|r| (r..r + mlen).map(|g| column(t, g)).collect())
                    .unwrap_or_default();
                if matches!(ins.opcode, Opcode::Sends | Opcode::Sendsc) {
                    let ex_mlen = ((ins.ex_desc >> 6) & 0x1f) as usize;
                    if let Some(r) = reg_of(ins.srcs.get(1)) {
                        out.extend((r..r + ex_mlen).map(|g| column(t, g)));
                    }
                }
                out
            };
            let sources = if !record || channels.is_empty() {
                vec![]
            } else if sends {
                payload(self)
            } else {
                ins.srcs
                    .iter()
                    .map(|s| {
                        let ty = match s {
                            Src::Reg { ty, .. } | Src::Imm { ty, .. } => *ty,
                        };
                        list(
                            channels
                                .iter()
                                .map(|&c| self.read_src(s, c).map_or("-".into(), |v| show(v, ty)))
                                .collect(),
                        )
                    })
                    .collect()
            };
            let ip = self.ip;
            let next = ip + len;
            let flow = match self.step(ins, next, prog.encoding(), sf) {
                // Stopped at a `wait`: charged what ran before it (the run loop's
                // `with_executed`), and resumed at it.
                Err(ExecError::Waiting { ip, .. }) => {
                    return Err(ExecError::Waiting {
                        ip,
                        executed: executed - 1,
                    });
                }
                r => r?,
            };
            if record {
                let destination = if sends {
                    // The lane's column of each register the send returned.
                    let n = ins.desc.map_or(0, |d| ((d >> 20) & 0x1f) as usize);
                    (n > 0).then(|| {
                        (0..n)
                            .map(|r| {
                                let reg = usize::from(ins.dst.nr) + r;
                                column(self, reg)
                            })
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                } else if runs && !channels.is_empty() {
                    let v: Vec<Option<String>> = channels
                        .iter()
                        .map(|&c| self.dst_value(&ins.dst, c).map(|v| show(v, ins.dst.ty)))
                        .collect();
                    v.iter()
                        .any(Option::is_some)
                        .then(|| list(v.into_iter().map(|x| x.unwrap_or("-".into())).collect()))
                } else {
                    None
                };
                steps.push(TraceStep {
                    ip,
                    text: gtsim_isa::disasm::format_for(prog.encoding(), ins, ip, &labels),
                    runs,
                    predicate,
                    sources,
                    destination,
                });
            }
            match flow {
                Flow::Next => self.ip = next,
                Flow::Jump(to) if to <= code.len() => self.ip = to,
                Flow::Jump(to) => {
                    return Err(ExecError::Invalid {
                        ip,
                        msg: format!(
                            "branch target {to:#x} is outside the kernel ({:#x} bytes)",
                            code.len()
                        ),
                    });
                }
                Flow::End => return Ok(executed),
            }
        }
        Ok(executed)
    }
}
