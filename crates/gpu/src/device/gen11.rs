//! The Gen11 (Ice Lake) command streamer: what iris submits, executed as far as the model
//! goes today.
//!
//! Commands are identified and decoded through `gtsim_spec::gen11` (seed 003's bodies,
//! genxml's headers). Executed: batch chaining (first and second level, 48-bit
//! addresses), register loads and stores, MI_MATH, data stores and copies, predication,
//! conditional batch end, PIPE_CONTROL's post-sync writes. State commands are checked by
//! their typed decoder and latched into [`Gen11State`]. 3DPRIMITIVE, GPGPU_WALKER and the
//! media objects stop the batch as a [`Hang::Unsupported`] naming the state they would
//! consume: the Gen11 front that turns that state into a draw is the next step, and a
//! draw skipped in silence would leave wrong pixels.
//!
//! Addresses are 48 bits: iris writes them in canonical form (bits 63:48 copying bit 47),
//! and the command streamer uses bits 47:0 (Gen11 PRM Vol 2a MI_BATCH_BUFFER_START,
//! "Batch Buffer Start Address [47:2]").

use super::{Context, DeviceLimits, Hang, SubmitReport};
use gtsim_mem::Memory;
use gtsim_spec::UnpackError;
use gtsim_spec::gen11::*;
use gtsim_spec::table::{Def, DefKind};
use std::collections::BTreeMap;

/// The 48-bit graphics address space of Gen8+ PPGTT.
pub const ADDRESS_MASK: u64 = (1 << 48) - 1;

/// Gen11 state latched from the batches of one context: each state command's last dwords,
/// decoded once when latched. The Gen11 front (not written yet) is what will read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gen11State {
    /// The last dwords of each state command, by command name.
    pub commands: BTreeMap<&'static str, Vec<u32>>,
    /// The vertex buffers by index (3DSTATE_VERTEX_BUFFERS binds some at a time).
    pub vertex_buffers: BTreeMap<u32, Vec<u32>>,
}

impl Gen11State {
    /// The selected pipeline: PIPELINE_SELECT's Pipeline Selection (3D until one is sent).
    pub fn pipeline(&self) -> pipeline_select::PipelineSelection {
        self.commands
            .get(PipelineSelect::DEF.name)
            .and_then(|dw| PipelineSelect::unpack(dw).ok())
            .map_or(pipeline_select::PipelineSelection::_3D, |p| {
                p.pipeline_selection
            })
    }
}

pub(super) struct CommandStreamer<'a> {
    pub device_clock: &'a mut u64,
    pub ctx: &'a mut Context,
    pub mem: &'a mut dyn Memory,
    pub limits: DeviceLimits,
    /// Who watches the run (`gtsim inspect`): told each command.
    pub observer: Option<&'a mut dyn super::observe::Observer>,
}

fn decode<T>(def: &'static Def, addr: u64, r: Result<T, UnpackError>) -> Result<T, Hang> {
    r.map_err(|error| Hang::Decode {
        command: def.name,
        addr,
        error,
    })
}

fn unsupported(command: &'static str, addr: u64, what: String, spec: &'static str) -> Hang {
    Hang::Unsupported {
        command,
        addr,
        unsupported: gtsim_spec::Unsupported::new(what, spec),
    }
}

enum Flow {
    Next,
    Jump(u64),
    /// A second-level batch: jump, and return after its MI_BATCH_BUFFER_END.
    Call(u64),
    End,
}

impl CommandStreamer<'_> {
    fn clock(&self) -> u64 {
        *self.device_clock
    }

    fn fault(command: &'static str, addr: u64) -> impl Fn(gtsim_mem::Fault) -> Hang {
        move |fault| Hang::Fault {
            command,
            addr,
            fault,
        }
    }

    fn read_u32(&self, cmd: &'static str, at: u64, addr: u64) -> Result<u32, Hang> {
        self.mem
            .read_u32(addr & ADDRESS_MASK)
            .map_err(Self::fault(cmd, at))
    }

    fn write_u32(&mut self, cmd: &'static str, at: u64, addr: u64, v: u32) -> Result<(), Hang> {
        self.mem
            .write_u32(addr & ADDRESS_MASK, v)
            .map_err(Self::fault(cmd, at))
    }

    fn write_u64(&mut self, cmd: &'static str, at: u64, addr: u64, v: u64) -> Result<(), Hang> {
        self.mem
            .write_u64(addr & ADDRESS_MASK, v)
            .map_err(Self::fault(cmd, at))
    }

    /// Runs from `start` until the first-level MI_BATCH_BUFFER_END.
    pub fn run(mut self, start: u64) -> Result<SubmitReport, Hang> {
        let mut report = SubmitReport::default();
        let mut p = start & ADDRESS_MASK;
        // Gen8+ has one level of nesting: a second-level batch returns to the command
        // after its MI_BATCH_BUFFER_START (Gen11 PRM Vol 2a MI_BATCH_BUFFER_START).
        let mut ret: Option<u64> = None;
        loop {
            if report.commands >= self.limits.max_commands {
                return Err(Hang::Runaway {
                    start,
                    limit: self.limits.max_commands,
                });
            }
            let (def, dw) = super::fetch(&GENERATION, self.mem, p)?;
            report.commands += 1;
            *self.device_clock += 1;
            let next = p + dw.len() as u64 * 4;
            if let Some(o) = self.observer.as_deref_mut() {
                o.command(p, def, &dw);
            }
            match self.execute(def, p, &dw)? {
                Flow::Next => p = next,
                Flow::Jump(to) => p = to & ADDRESS_MASK,
                Flow::Call(to) => {
                    if ret.is_some() {
                        return Err(unsupported(
                            def.name,
                            p,
                            "a second-level batch started from a second-level batch".into(),
                            "Gen11 PRM Vol 2a MI_BATCH_BUFFER_START (one level of nesting)",
                        ));
                    }
                    ret = Some(next);
                    p = to & ADDRESS_MASK;
                }
                Flow::End => match ret.take() {
                    Some(back) => p = back,
                    None => return Ok(report),
                },
            }
        }
    }

    fn execute(&mut self, def: &'static Def, at: u64, dw: &[u32]) -> Result<Flow, Hang> {
        let name = def.name;
        match def.id {
            MiNoop::ID => {}
            MiBatchBufferEnd::ID => return Ok(Flow::End),
            MiBatchBufferStart::ID => {
                let c = decode(def, at, MiBatchBufferStart::unpack(dw))?;
                if c.predication_enable
                    && self.ctx.registers.read(MiPredicateResult::OFFSET, 0) & 1 == 0
                {
                    return Ok(Flow::Next);
                }
                let to = c.batch_buffer_start_address;
                return Ok(
                    if c.second_level_batch_buffer
                        == mi_batch_buffer_start::SecondLevelBatchBuffer::SECOND_LEVEL_BATCH
                    {
                        Flow::Call(to)
                    } else {
                        Flow::Jump(to)
                    },
                );
            }
            MiConditionalBatchBufferEnd::ID => {
                // Ends the batch when the dword at Compare Address is <= Compare Data
                // (Compare Semaphore set; Gen11 PRM Vol 2a); without it, always.
                let c = decode(def, at, MiConditionalBatchBufferEnd::unpack(dw))?;
                if c.compare_semaphore == 0 {
                    return Ok(Flow::End);
                }
                let v = self.read_u32(name, at, c.compare_address)?;
                if v <= c.compare_data_dword {
                    return Ok(Flow::End);
                }
            }
            MiLoadRegisterImm::ID => {
                let c = decode(def, at, MiLoadRegisterImm::unpack(dw))?;
                self.ctx
                    .registers
                    .write(c.register_offset as u32, c.data_dword);
                for r in c.entries {
                    self.ctx
                        .registers
                        .write(r.register_offset as u32, r.data_dword);
                }
            }
            MiLoadRegisterMem::ID => {
                let c = decode(def, at, MiLoadRegisterMem::unpack(dw))?;
                let v = self.read_u32(name, at, c.memory_address)?;
                self.ctx.registers.write(c.register_address as u32, v);
            }
            MiLoadRegisterReg::ID => {
                let c = decode(def, at, MiLoadRegisterReg::unpack(dw))?;
                let v = self
                    .ctx
                    .registers
                    .read(c.source_register_address as u32, self.clock());
                self.ctx
                    .registers
                    .write(c.destination_register_address as u32, v);
            }
            MiStoreRegisterMem::ID => {
                let c = decode(def, at, MiStoreRegisterMem::unpack(dw))?;
                if c.predicate_enable
                    && self.ctx.registers.read(MiPredicateResult::OFFSET, 0) & 1 == 0
                {
                    return Ok(Flow::Next);
                }
                let v = self
                    .ctx
                    .registers
                    .read(c.register_address as u32, self.clock());
                self.write_u32(name, at, c.memory_address, v)?;
            }
            MiStoreDataImm::ID => {
                let c = decode(def, at, MiStoreDataImm::unpack(dw))?;
                self.write_u32(name, at, c.address, c.data_dword_0)?;
                if let Some(hi) = c.data_dword_1.first() {
                    self.write_u32(name, at, c.address + 4, hi.data_dword)?;
                }
            }
            MiCopyMemMem::ID => {
                let c = decode(def, at, MiCopyMemMem::unpack(dw))?;
                let v = self.read_u32(name, at, c.source_memory_address)?;
                self.write_u32(name, at, c.destination_memory_address, v)?;
            }
            MiMath::ID => {
                let c = decode(def, at, MiMath::unpack(dw))?;
                let alu: Vec<(u32, u32, u32)> = c
                    .instruction
                    .iter()
                    .map(|i| (i.alu_opcode.0, i.operand_1.0, i.operand_2.0))
                    .collect();
                super::alu::run(&mut self.ctx.registers, &alu).map_err(|why| {
                    unsupported(name, at, why.to_string(), "Gen11 PRM Vol 2a MI_MATH (ALU)")
                })?;
            }
            MiPredicate::ID => self.predicate(def, at, dw)?,
            MiAtomic::ID => self.atomic(def, at, dw)?,
            MiSemaphoreWait::ID | MiSemaphoreSignal::ID => {
                return Err(unsupported(
                    name,
                    at,
                    "semaphores between engines (only the render engine is modelled)".into(),
                    "Gen11 PRM Vol 2a MI_SEMAPHORE_WAIT",
                ));
            }
            MiReportPerfCount::ID => {
                return Err(unsupported(
                    name,
                    at,
                    "performance counter reports".into(),
                    "Gen11 PRM Vol 2a MI_REPORT_PERF_COUNT",
                ));
            }
            // Flushes, arbitration, interrupts, clock wake-up and topology filtering have
            // no effect on memory in a model that executes in order and synchronously.
            MiArbCheck::ID
            | MiArbOnOff::ID
            | MiUserInterrupt::ID
            | MiSuspendFlush::ID
            | MiTopologyFilter::ID
            | MiForceWakeup::ID
            | MiLoadScanLinesIncl::ID
            | MiLoadScanLinesExcl::ID
            | MiClflush::ID => {}
            PipeControl::ID => self.pipe_control(def, at, dw)?,
            ThreeDPrimitive::ID => {
                decode(def, at, ThreeDPrimitive::unpack(dw))?;
                return Err(unsupported(
                    name,
                    at,
                    "Gen11 draws (the 3DSTATE_* state is latched; no Gen11 front turns it into a draw yet)".into(),
                    "seed 003 3DSTATE_VS_BODY .. 3DSTATE_PS_EXTRA_BODY",
                ));
            }
            GpgpuWalker::ID
            | MediaObject::ID
            | MediaObjectWalker::ID
            | MediaObjectGrpid::ID
            | MediaObjectPrt::ID => {
                return Err(unsupported(
                    name,
                    at,
                    "the Gen11 GPGPU and media pipelines (MEDIA_VFE_STATE and INTERFACE_DESCRIPTOR_DATA are latched, not executed)".into(),
                    "seed 003 INTERFACE_DESCRIPTOR_DATA",
                ));
            }
            _ => match def.kind {
                // State commands (3D, media and GPGPU state): latched into the context.
                DefKind::Command { .. } if dw[0] >> 29 == 3 => self.latch(def, at, dw)?,
                _ => {
                    return Err(unsupported(
                        name,
                        at,
                        "this command".into(),
                        "Gen11 PRM Vol 2a (MI commands)",
                    ));
                }
            },
        }
        Ok(Flow::Next)
    }

    /// Latches a state command: decoded by its typed decoder (a malformed command is a
    /// hang, as a real command streamer would hang on it), then kept by name.
    fn latch(&mut self, def: &'static Def, at: u64, dw: &[u32]) -> Result<(), Hang> {
        let round_trip = ROUNDTRIP
            .iter()
            .find(|(n, _)| *n == def.name)
            .map(|(_, f)| *f);
        if let Some(rt) = round_trip {
            rt(dw).map_err(|e| match e {
                gtsim_spec::CodecError::Unpack(error) => Hang::Decode {
                    command: def.name,
                    addr: at,
                    error,
                },
                other => unsupported(def.name, at, other.to_string(), "the Gen11 spec files"),
            })?;
        }
        let state = &mut self.ctx.gen11;
        if def.id == ThreeDStateVertexBuffers::ID {
            let c = decode(def, at, ThreeDStateVertexBuffers::unpack(dw))?;
            for vb in c.vertex_buffer_state {
                let packed = vb.pack().map_err(|e| {
                    unsupported(def.name, at, e.to_string(), "the Gen11 spec files")
                })?;
                state
                    .vertex_buffers
                    .insert(vb.vertex_buffer_index as u32, packed);
            }
        }
        state.commands.insert(def.name, dw.to_vec());
        Ok(())
    }

    /// PIPE_CONTROL's post-sync operation (Gen11 PRM Vol 2a PIPE_CONTROL): after the
    /// flushes, write the immediate data (a qword), PS_DEPTH_COUNT or TIMESTAMP to Address.
    fn pipe_control(&mut self, def: &'static Def, at: u64, dw: &[u32]) -> Result<(), Hang> {
        let c = decode(def, at, PipeControl::unpack(dw))?;
        if c.instruction_cache_invalidate_enable {
            self.ctx.kernels.invalidate();
        }
        if c.lri_post_sync_operation != pipe_control::LriPostSyncOperation::NO_LRI_OPERATION {
            // MMIO Write Immediate Data: Address holds the register offset.
            self.ctx
                .registers
                .write(c.address as u32, c.immediate_data as u32);
            return Ok(());
        }
        let base = if c.store_data_index != 0 {
            (self.ctx.registers.read(HwsPga::OFFSET, 0) & 0xffff_f000) as u64
        } else {
            0
        };
        let value = match c.post_sync_operation {
            pipe_control::PostSyncOperation::NO_WRITE => return Ok(()),
            pipe_control::PostSyncOperation::WRITE_IMMEDIATE_DATA => c.immediate_data,
            pipe_control::PostSyncOperation::WRITE_PS_DEPTH_COUNT => self
                .ctx
                .registers
                .read64(PsDepthCount::OFFSET, self.clock()),
            _ => self.clock(),
        };
        self.write_u64(def.name, at, base + c.address, value)
    }

    /// MI_ATOMIC (Gen8+ PRM Vol 2a MI_ATOMIC): a read-modify-write of the dword or qword
    /// at Memory Address. The operands are inline (Operand1/Operand2 Data Dword n,
    /// interleaved) or, without Inline Data, CS_GPR0 and CS_GPR1; Return Data Control puts
    /// the value before the operation into CS_GPR0.
    fn atomic(&mut self, def: &'static Def, at: u64, dw: &[u32]) -> Result<(), Hang> {
        use mi_atomic::{AtomicOpcode as Op, DataSize};
        let c = decode(def, at, MiAtomic::unpack(dw))?;
        let qword = match c.data_size {
            DataSize::MI_ATOMIC_DWORD => false,
            DataSize::MI_ATOMIC_QWORD => true,
            _ => {
                return Err(unsupported(
                    def.name,
                    at,
                    "octword (CMP_WR16B) atomics".into(),
                    "Gen11 PRM Vol 2a MI_ATOMIC",
                ));
            }
        };
        let gpr = super::alu::GPR_BASE;
        let (op1, op2) = if c.inline_data {
            let d: Vec<u64> = c.operand_data.iter().map(|x| x.data_dword as u64).collect();
            let get = |i: usize| d.get(i).copied().unwrap_or(0);
            if qword {
                (get(0) | get(2) << 32, get(1) | get(3) << 32)
            } else {
                (get(0), get(1))
            }
        } else {
            let r = &self.ctx.registers;
            (r.read64(gpr, 0), r.read64(gpr + 8, 0))
        };
        let addr = c.memory_address;
        let old = if qword {
            self.mem.read_u64(addr & ADDRESS_MASK)
        } else {
            self.mem.read_u32(addr & ADDRESS_MASK).map(u64::from)
        }
        .map_err(Self::fault(def.name, at))?;
        let bits = if qword { 64 } else { 32 };
        let mask = if qword { u64::MAX } else { u32::MAX as u64 };
        let signed = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
        // The opcode's low bits name the operation; 0x20 marks the 8-byte forms, which
        // Data Size must agree with.
        if (c.atomic_opcode.0 & 0x20 != 0) != qword {
            return Err(unsupported(
                def.name,
                at,
                format!(
                    "ATOMIC OPCODE {:#x} with Data Size {}",
                    c.atomic_opcode.0, c.data_size.0
                ),
                "Gen11 PRM Vol 2a MI_ATOMIC",
            ));
        }
        let new = match Op(c.atomic_opcode.0 & !0x20) {
            Op::MI_ATOMIC_OP_AND => old & op1,
            Op::MI_ATOMIC_OP_OR => old | op1,
            Op::MI_ATOMIC_OP_XOR => old ^ op1,
            Op::MI_ATOMIC_OP_MOVE => op1,
            Op::MI_ATOMIC_OP_INC => old.wrapping_add(1),
            Op::MI_ATOMIC_OP_DEC => old.wrapping_sub(1),
            Op::MI_ATOMIC_OP_ADD => old.wrapping_add(op1),
            Op::MI_ATOMIC_OP_SUB => old.wrapping_sub(op1),
            Op::MI_ATOMIC_OP_RSUB => op1.wrapping_sub(old),
            Op::MI_ATOMIC_OP_IMAX => {
                if signed(op1) > signed(old) {
                    op1
                } else {
                    old
                }
            }
            Op::MI_ATOMIC_OP_IMIN => {
                if signed(op1) < signed(old) {
                    op1
                } else {
                    old
                }
            }
            Op::MI_ATOMIC_OP_UMAX => old.max(op1 & mask),
            Op::MI_ATOMIC_OP_UMIN => old.min(op1 & mask),
            // Compare and write: the second operand replaces a value equal to the first.
            Op::MI_ATOMIC_OP_CMP_WR => {
                if old == op1 & mask {
                    op2
                } else {
                    old
                }
            }
            other => {
                return Err(unsupported(
                    def.name,
                    at,
                    format!("ATOMIC OPCODE {:#x}", other.0),
                    "Gen11 PRM Vol 2a MI_ATOMIC",
                ));
            }
        } & mask;
        if qword {
            self.write_u64(def.name, at, addr, new)?;
        } else {
            self.write_u32(def.name, at, addr, new as u32)?;
        }
        if c.return_data_control {
            self.ctx.registers.write64(gpr, old);
        }
        Ok(())
    }

    /// MI_PREDICATE (Gen11 PRM Vol 2a; `predicate.rs`).
    fn predicate(&mut self, def: &'static Def, at: u64, dw: &[u32]) -> Result<(), Hang> {
        let c = decode(def, at, MiPredicate::unpack(dw))?;
        super::predicate::apply(
            &mut self.ctx.registers,
            c.compare_operation.0,
            c.load_operation.0,
            c.combine_operation.0,
        )
        .map_err(|why| {
            unsupported(
                def.name,
                at,
                why.to_string(),
                "Gen11 PRM Vol 2a MI_PREDICATE",
            )
        })
    }
}
