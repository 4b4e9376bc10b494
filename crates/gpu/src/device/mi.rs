//! The command streamer loop and the commands it executes.

use super::{Context, DeviceLimits, Hang, Ring, SubmitReport, fetch};
use gtsim_gen7::{DrawFront, Registers};
use gtsim_mem::Memory;
use gtsim_pipe3d::draw::{RenderTarget, Statistics, Watchdog};
use gtsim_spec::UnpackError;
use gtsim_spec::gen7::pipeline_select::PipelineSelection;
use gtsim_spec::gen7::*;
use gtsim_spec::table::{Def, DefKind};

pub(super) struct CommandStreamer<'a> {
    pub device_clock: &'a mut u64,
    pub ctx: &'a mut Context,
    pub mem: &'a mut dyn Memory,
    pub limits: DeviceLimits,
    /// The work done by this submission's draws (the hangcheck).
    pub watchdog: Watchdog,
    /// The ring the batch runs on.
    pub ring: super::Ring,
    /// Who watches the run (`gtsim inspect`).
    pub observer: Option<&'a mut dyn super::observe::Observer>,
}

fn decode<T>(def: &'static Def, addr: u64, r: Result<T, UnpackError>) -> Result<T, Hang> {
    r.map_err(|error| Hang::Decode {
        command: def.name,
        addr,
        error,
    })
}

impl CommandStreamer<'_> {
    fn clock(&self) -> u64 {
        *self.device_clock
    }

    fn write_u32(&mut self, cmd: &'static str, at: u64, addr: u64, v: u32) -> Result<(), Hang> {
        self.mem.write_u32(addr, v).map_err(|fault| Hang::Fault {
            command: cmd,
            addr: at,
            fault,
        })
    }

    fn write_u64(&mut self, cmd: &'static str, at: u64, addr: u64, v: u64) -> Result<(), Hang> {
        self.mem.write_u64(addr, v).map_err(|fault| Hang::Fault {
            command: cmd,
            addr: at,
            fault,
        })
    }

    /// Runs from `start` until MI_BATCH_BUFFER_END (or a conditional end).
    pub fn run(mut self, start: u64) -> Result<SubmitReport, Hang> {
        let mut report = SubmitReport::default();
        let mut p = start;
        loop {
            if report.commands >= self.limits.max_commands {
                return Err(Hang::Runaway {
                    start,
                    limit: self.limits.max_commands,
                });
            }
            let (def, dw) = fetch(&GENERATION, self.mem, p)?;
            report.commands += 1;
            *self.device_clock += 1;
            let next = p + dw.len() as u64 * 4;
            if let Some(o) = self.observer.as_deref_mut() {
                o.command(p, def, &dw);
            }
            match self.execute(def, p, &dw, &mut report)? {
                Flow::Next => p = next,
                Flow::Jump(to) => p = to,
                Flow::End => return Ok(report),
            }
        }
    }

    fn execute(
        &mut self,
        def: &'static Def,
        at: u64,
        dw: &[u32],
        report: &mut SubmitReport,
    ) -> Result<Flow, Hang> {
        let name = def.name;
        let on_blitter = self.ring == Ring::Blitter;
        let blitter_command = matches!(def.id, XyColorBlt::ID | XySrcCopyBlt::ID);
        if on_blitter && dw[0] >> 29 == 3 || !on_blitter && blitter_command {
            return Err(Hang::Unsupported {
                command: name,
                addr: at,
                unsupported: gtsim_spec::Unsupported::new(
                    if on_blitter {
                        "3D, media and GPGPU commands on the blitter ring"
                    } else {
                        "2D blitter commands on the render ring"
                    },
                    "IVB PRM Vol1 Part4 (Blitter Engine)",
                ),
            });
        }
        match def.id {
            MiNoop::ID => {}
            XyColorBlt::ID => {
                let c = decode(def, at, XyColorBlt::unpack(dw))?;
                self.blitter(name, at).color(&c)?;
                report.blits += 1;
            }
            XySrcCopyBlt::ID => {
                let c = decode(def, at, XySrcCopyBlt::unpack(dw))?;
                self.blitter(name, at).src_copy(&c)?;
                report.blits += 1;
            }
            MiFlushDw::ID if on_blitter => self.flush_dw(def, at, dw)?,
            MiBatchBufferEnd::ID => return Ok(Flow::End),
            MiBatchBufferStart::ID => {
                // IVB PRM Vol1 Part3 MI_BATCH_BUFFER_START: Gen7 has no second-level
                // batches; the command chains to the new address.
                let c = decode(def, at, MiBatchBufferStart::unpack(dw))?;
                return Ok(Flow::Jump(c.batch_buffer_start_address));
            }
            MiConditionalBatchBufferEnd::ID => {
                // Ends the batch when the dword at Compare Address is <= Compare Data
                // (IVB PRM Vol1 Part3 MI_CONDITIONAL_BATCH_BUFFER_END).
                let c = decode(def, at, MiConditionalBatchBufferEnd::unpack(dw))?;
                if !c.compare_semaphore {
                    return Ok(Flow::End);
                }
                let v = self
                    .mem
                    .read_u32(c.compare_address)
                    .map_err(|fault| Hang::Fault {
                        command: name,
                        addr: at,
                        fault,
                    })?;
                if v <= c.compare_data_dword {
                    return Ok(Flow::End);
                }
            }
            MiLoadRegisterImm::ID => {
                for r in decode(def, at, MiLoadRegisterImm::unpack(dw))?.registers {
                    self.ctx
                        .registers
                        .write(r.register_offset as u32, r.data_dword);
                }
            }
            MiLoadRegisterMem::ID => {
                let c = decode(def, at, MiLoadRegisterMem::unpack(dw))?;
                let v = self
                    .mem
                    .read_u32(c.memory_address)
                    .map_err(|fault| Hang::Fault {
                        command: name,
                        addr: at,
                        fault,
                    })?;
                self.ctx.registers.write(c.register_address as u32, v);
            }
            MiStoreRegisterMem::ID => {
                let c = decode(def, at, MiStoreRegisterMem::unpack(dw))?;
                let v = self
                    .ctx
                    .registers
                    .read(c.register_address as u32, self.clock());
                self.write_u32(name, at, c.memory_address, v)?;
            }
            MiStoreDataImm::ID => {
                // DWord Length 2 stores one dword, 3 a qword (IVB PRM Vol1 Part3).
                let c = decode(def, at, MiStoreDataImm::unpack(dw))?;
                self.write_u32(name, at, c.address, c.data_dword_0)?;
                if let Some(hi) = c.data_dword_1.first() {
                    self.write_u32(name, at, c.address + 4, hi.data_dword)?;
                }
            }
            MiStoreDataIndex::ID => {
                // IVB PRM Vol1 Part3 MI_STORE_DATA_INDEX: the data goes to the hardware
                // status page (HWS_PGA) at Offset.
                let c = decode(def, at, MiStoreDataIndex::unpack(dw))?;
                let hws = self.status_page(name, at)?;
                self.write_u32(name, at, hws + c.offset, c.data_dword_0)?;
                if let Some(hi) = c.data_dword_1.first() {
                    self.write_u32(name, at, hws + c.offset + 4, hi.data_dword)?;
                }
            }
            // No display engine: scan-line windows never hold the ring back.
            MiLoadScanLinesIncl::ID | MiLoadScanLinesExcl::ID | MiClflush::ID => {}
            MiDisplayFlip::ID
            | MiReportHead::ID
            | MiSemaphoreMbox::ID
            | MiSetContext::ID
            | MiUpdateGtt::ID
            | MiFlushDw::ID => {
                let what = match def.id {
                    MiDisplayFlip::ID => "display flips (there is no display engine)",
                    MiReportHead::ID => "ring head reports (the ring is not modelled)",
                    MiSemaphoreMbox::ID => {
                        "inter-ring semaphores (only the render ring is modelled)"
                    }
                    MiSetContext::ID => {
                        "hardware context switches by the kernel driver (contexts are switched per submission)"
                    }
                    MiUpdateGtt::ID => "GTT updates from a batch (the GTT is the i915 emulation's)",
                    _ => "MI_FLUSH_DW, a blitter and video ring command, on the render ring",
                };
                return Err(Hang::Unsupported {
                    command: name,
                    addr: at,
                    unsupported: gtsim_spec::Unsupported::new(
                        what,
                        "IVB PRM Vol1 Part3 (MI commands)",
                    ),
                });
            }
            MiPredicate::ID => self.predicate(def, at, dw)?,
            MiReportPerfCount::ID => {
                return Err(Hang::Unsupported {
                    command: name,
                    addr: at,
                    unsupported: gtsim_spec::Unsupported::new(
                        "performance counter reports",
                        "IVB PRM Vol1 Part3 MI_REPORT_PERF_COUNT",
                    ),
                });
            }
            // Flushes, arbitration, interrupts and topology filtering have no effect on
            // memory in a model that executes in order and synchronously.
            MiFlush::ID
            | MiArbOnOff::ID
            | MiArbCheck::ID
            | MiUserInterrupt::ID
            | MiSuspendFlush::ID
            | MiTopologyFilter::ID
            | MiUrbClear::ID
            | MiWaitForEvent::ID => {}
            PipeControl::ID => self.pipe_control(def, at, dw)?,
            ThreeDPrimitive::ID => {
                let c = decode(def, at, ThreeDPrimitive::unpack(dw))?;
                self.selected(at, "3DPRIMITIVE", PipelineSelection::_3D)?;
                let predicated_off = c.predicate_enable
                    && self.ctx.registers.read(MiPredicateResult::OFFSET, 0) & 1 == 0;
                if !predicated_off {
                    let targets = self.draw(at, &c)?;
                    report.draws += 1;
                    for t in targets {
                        report
                            .render_targets
                            .retain(|o| o.surface.base != t.surface.base);
                        report.render_targets.push(t);
                    }
                }
            }
            GpgpuWalker::ID => {
                let c = decode(def, at, GpgpuWalker::unpack(dw))?;
                self.selected(at, "GPGPU_WALKER", PipelineSelection::GPGPU)?;
                // Predicate Enable: MI_PREDICATE_RESULT decides, as for 3DPRIMITIVE.
                let predicated_off = c.predicate_enable
                    && self.ctx.registers.read(MiPredicateResult::OFFSET, 0) & 1 == 0;
                if !predicated_off {
                    self.walk(at, &c)?;
                    report.walkers += 1;
                }
            }
            MediaObject::ID => {
                let c = decode(def, at, MediaObject::unpack(dw))?;
                self.selected(at, "MEDIA_OBJECT", PipelineSelection::MEDIA)?;
                self.media_object(at, &c)?;
                report.media_objects += 1;
            }
            GpgpuObject::ID | MediaObjectPrt::ID | MediaObjectWalker::ID => {
                report.not_executed.push(format!("{name} at {at:#x}: the media/GPGPU pipeline is not modelled yet (seed 000 §2.8-2.11)"));
            }
            _ => match def.kind {
                // State commands: latched into the context (seed 004 §1.4.1).
                DefKind::Command { .. } if dw[0] >> 29 == 3 => self.latch(def, at, dw)?,
                _ => {
                    return Err(Hang::Unsupported {
                        command: name,
                        addr: at,
                        unsupported: gtsim_spec::Unsupported::new(
                            "this command",
                            "IVB PRM Vol1 Part3 (MI commands)",
                        ),
                    });
                }
            },
        }
        Ok(Flow::Next)
    }

    fn blitter(&mut self, command: &'static str, addr: u64) -> super::blt::Blitter<'_> {
        super::blt::Blitter {
            mem: self.mem,
            watchdog: &mut self.watchdog,
            command,
            addr,
        }
    }

    /// MI_FLUSH_DW on the blitter ring (IVB PRM Vol1 Part4): the flush itself has no
    /// effect in a model that executes in order; its post-sync operation writes the
    /// immediate data or the timestamp. A Store Data Index write, into the hardware
    /// status page, is not modelled.
    fn flush_dw(&mut self, def: &'static Def, at: u64, dw: &[u32]) -> Result<(), Hang> {
        use gtsim_spec::gen7::mi_flush_dw::PostSyncOperation as Op;
        let c = decode(def, at, MiFlushDw::unpack(dw))?;
        if c.post_sync_operation == Op::NO_WRITE {
            return Ok(());
        }
        if c.post_sync_operation != Op::WRITE_IMMEDIATE_DATA
            && c.post_sync_operation != Op::WRITE_TIMESTAMP
        {
            return Err(Hang::Unsupported {
                command: def.name,
                addr: at,
                unsupported: gtsim_spec::Unsupported::new(
                    format!(
                        "MI_FLUSH_DW Post Sync Operation {}, a reserved value",
                        c.post_sync_operation.0
                    ),
                    "IVB PRM Vol1 Part3 MI_FLUSH_DW",
                ),
            });
        }
        if c.store_data_index {
            return Err(Hang::Unsupported {
                command: def.name,
                addr: at,
                unsupported: gtsim_spec::Unsupported::new(
                    "MI_FLUSH_DW writes into the hardware status page (Store Data Index)",
                    "IVB PRM Vol1 Part3 MI_FLUSH_DW",
                ),
            });
        }
        let value = if c.post_sync_operation == Op::WRITE_TIMESTAMP {
            self.clock()
        } else {
            u64::from(c.immediate_data_low)
                | c.immediate_data_high
                    .first()
                    .map_or(0, |h| u64::from(h.data_dword) << 32)
        };
        if c.post_sync_operation == Op::WRITE_TIMESTAMP || !c.immediate_data_high.is_empty() {
            self.write_u64(def.name, at, c.address, value)
        } else {
            self.write_u32(def.name, at, c.address, value as u32)
        }
    }

    /// Runs a 3DPRIMITIVE through the 3D pipeline and adds its statistics to the
    /// counters.
    fn draw(&mut self, at: u64, primitive: &ThreeDPrimitive) -> Result<Vec<RenderTarget>, Hang> {
        let mut stats = Statistics::default();
        let mut kernels = std::mem::take(&mut self.ctx.kernels);
        let registers = ContextRegisters(&self.ctx.registers);
        let front = DrawFront::new(&self.ctx.state, &registers, primitive);
        let view = super::observe::DrawView {
            addr: at,
            state: &self.ctx.state,
            front: &front,
        };
        if let Some(o) = self.observer.as_deref_mut() {
            o.draw_begin(&view, &*self.mem);
        }
        let mut times = gtsim_pipe3d::draw::StageTimes::default();
        let result = gtsim_pipe3d::draw::draw_timed(
            &front,
            self.mem,
            &mut kernels,
            &mut stats,
            &mut self.watchdog,
            &mut times,
        );
        if let Some(o) = self.observer.as_deref_mut() {
            let outcome = super::observe::DrawOutcome {
                stats: &stats,
                times: &times,
                targets: result.as_deref().unwrap_or(&[]),
                error: result.as_ref().err(),
            };
            o.draw_end(&view, &*self.mem, &outcome);
        }
        self.ctx.kernels = kernels;
        // Counters count what ran, also when the draw then hung.
        for (off, n) in [
            (IaVerticesCount::OFFSET, stats.ia_vertices),
            (IaPrimitivesCount::OFFSET, stats.ia_primitives),
            (VsInvocationCount::OFFSET, stats.vs_invocations),
            (HsInvocationCount::OFFSET, stats.hs_invocations),
            (DsInvocationCount::OFFSET, stats.ds_invocations),
            (GsInvocationCount::OFFSET, stats.gs_invocations),
            (GsPrimitivesCount::OFFSET, stats.gs_primitives),
            (ClInvocationCount::OFFSET, stats.cl_invocations),
            (ClPrimitivesCount::OFFSET, stats.cl_primitives),
            (PsInvocationCount::OFFSET, stats.ps_invocations),
            (PsDepthCount::OFFSET, stats.ps_depth_count),
        ] {
            let v = self.ctx.registers.read64(off, 0);
            self.ctx.registers.write64(off, v.wrapping_add(n));
        }
        // Seed 004 §8.8: per stream.
        for (s, (written, needed)) in stats
            .so_prims_written
            .iter()
            .zip(stats.so_prim_storage_needed)
            .enumerate()
        {
            for (off, n) in [
                (SoNumPrimsWritten0::OFFSET + 8 * s as u32, *written),
                (SoPrimStorageNeeded0::OFFSET + 8 * s as u32, needed),
            ] {
                let v = self.ctx.registers.read64(off, 0);
                self.ctx.registers.write64(off, v.wrapping_add(n));
            }
        }
        // Seed 004 §8.2: the SOL stage moved the buffers' Write Offsets.
        if let Some(offsets) = stats.so_write_offsets {
            for (b, o) in offsets.into_iter().enumerate() {
                self.ctx
                    .registers
                    .write(SoWriteOffset0::OFFSET + 4 * b as u32, o);
            }
        }
        result.map_err(|error| Hang::Draw { addr: at, error })
    }

    /// Checks that PIPELINE_SELECT (3D until one is sent) selected `want` for `command`
    /// (IVB PRM Vol1 Part2 PIPELINE_SELECT: the pipeline's commands run only in it).
    fn selected(
        &self,
        at: u64,
        command: &'static str,
        want: PipelineSelection,
    ) -> Result<(), Hang> {
        let have = self
            .ctx
            .state
            .pipeline_select
            .as_ref()
            .map_or(PipelineSelection::_3D, |p| p.pipeline_selection);
        if have == want {
            return Ok(());
        }
        Err(Hang::Draw {
            addr: at,
            error: gtsim_pipe3d::draw::DrawError::State {
                command,
                why: format!(
                    "sent while PIPELINE_SELECT selects the {} pipeline",
                    have.name().unwrap_or("reserved")
                ),
            },
        })
    }

    /// Runs a GPGPU_WALKER's thread groups (`gtsim_pipe3d::draw::compute`).
    fn walk(&mut self, at: u64, walker: &GpgpuWalker) -> Result<(), Hang> {
        let mut kernels = std::mem::take(&mut self.ctx.kernels);
        let registers = ContextRegisters(&self.ctx.registers);
        let front = gtsim_gen7::compute::ComputeFront::new(&self.ctx.state, &registers, walker);
        let result =
            gtsim_pipe3d::draw::compute::walk(&front, self.mem, &mut kernels, &mut self.watchdog);
        self.ctx.kernels = kernels;
        result
            .map(|_| ())
            .map_err(|error| Hang::Draw { addr: at, error })
    }

    /// Runs a MEDIA_OBJECT's thread (`gtsim_pipe3d::draw::media`).
    fn media_object(&mut self, at: u64, object: &MediaObject) -> Result<(), Hang> {
        let mut kernels = std::mem::take(&mut self.ctx.kernels);
        let registers = ContextRegisters(&self.ctx.registers);
        let front = gtsim_gen7::compute::ComputeFront::of(
            &self.ctx.state,
            &registers,
            gtsim_gen7::compute::Job::Object(object),
        );
        let result =
            gtsim_pipe3d::draw::media::object(&front, self.mem, &mut kernels, &mut self.watchdog);
        self.ctx.kernels = kernels;
        result
            .map(|_| ())
            .map_err(|error| Hang::Media { addr: at, error })
    }

    /// Latches a state command into the context (seed 004 §1.4.1), decoded once into the
    /// front's typed state (STATE_BASE_ADDRESS and 3DSTATE_VERTEX_BUFFERS merge there).
    fn latch(&mut self, def: &'static Def, at: u64, dw: &[u32]) -> Result<(), Hang> {
        self.ctx
            .state
            .latch(def.name, dw)
            .map_err(|e| Hang::Decode {
                command: def.name,
                addr: at,
                error: e.error,
            })?;
        Ok(())
    }

    /// PIPE_CONTROL post-sync operations (seed 004 §1.10.4.1): after the flushes, write
    /// the immediate data (a qword), PS_DEPTH_COUNT or TIMESTAMP to Address.
    fn pipe_control(&mut self, def: &'static Def, at: u64, dw: &[u32]) -> Result<(), Hang> {
        let c = decode(def, at, PipeControl::unpack(dw))?;
        // 4 or 5 dwords (pipe_common.spec's note: the seed's `=n`, the VA driver's short
        // flush); nothing says what a longer one holds.
        if c.length_dwords > PipeControl::DWORDS + 1 {
            return Err(Hang::Unsupported {
                command: def.name,
                addr: at,
                unsupported: gtsim_spec::Unsupported::new(
                    "a PIPE_CONTROL longer than 5 dwords (the seed's is 5, Intel's VA driver's 4)",
                    "seed 004 §1.10.4.1",
                ),
            });
        }
        if c.instruction_cache_invalidate_enable {
            self.ctx.kernels.invalidate();
        }
        // Seed 004 §1.10.4.1 Store Data Index: Address is an offset into the hardware
        // status page.
        let base = if c.store_data_index {
            self.status_page(def.name, at)?
        } else {
            0
        };
        let value = match c.post_sync_operation {
            pipe_control::PostSyncOperation::NO_WRITE => return Ok(()),
            pipe_control::PostSyncOperation::WRITE_IMMEDIATE_DATA
                if c.length_dwords <= PipeControl::DWORDS =>
            {
                return Err(Hang::Unsupported {
                    command: def.name,
                    addr: at,
                    unsupported: gtsim_spec::Unsupported::new(
                        "a 4-dword PIPE_CONTROL (DWord Length 2) with Post-Sync Operation Write Immediate Data: the seed gives the qword write only with both Immediate Data dwords",
                        "seed 004 §1.10.4.1",
                    ),
                });
            }
            pipe_control::PostSyncOperation::WRITE_IMMEDIATE_DATA => c.immediate_data,
            pipe_control::PostSyncOperation::WRITE_PS_DEPTH_COUNT => self
                .ctx
                .registers
                .read64(PsDepthCount::OFFSET, self.clock()),
            _ => self.clock(),
        };
        self.write_u64(def.name, at, base + c.address, value)
    }

    /// The hardware status page (HWS_PGA, Linux i915_reg.h; bits 31:12).
    fn status_page(&self, cmd: &'static str, at: u64) -> Result<u64, Hang> {
        let pga = (self.ctx.registers.read(HwsPga::OFFSET, 0) & 0xffff_f000) as u64;
        if pga == 0 {
            return Err(Hang::Unsupported {
                command: cmd,
                addr: at,
                unsupported: gtsim_spec::Unsupported::new(
                    "a store into the hardware status page before HWS_PGA is set",
                    "IVB PRM Vol1 Part3 (HWS_PGA)",
                ),
            });
        }
        Ok(pga)
    }

    /// MI_PREDICATE (IVB PRM Vol1 Part3; `predicate.rs`).
    fn predicate(&mut self, def: &'static Def, at: u64, dw: &[u32]) -> Result<(), Hang> {
        let c = decode(def, at, MiPredicate::unpack(dw))?;
        super::predicate::apply(
            &mut self.ctx.registers,
            c.compare_operation.0,
            c.load_operation.0,
            c.combine_operation.0,
        )
        .map_err(|why| Hang::Unsupported {
            command: def.name,
            addr: at,
            unsupported: gtsim_spec::Unsupported::new(
                why.to_string(),
                "IVB PRM Vol1 Part3 MI_PREDICATE",
            ),
        })
    }
}

enum Flow {
    Next,
    Jump(u64),
    End,
}

/// The context's registers as the front reads them.
struct ContextRegisters<'a>(&'a super::RegisterFile);

impl Registers for ContextRegisters<'_> {
    fn register(&self, offset: u32) -> u32 {
        self.0.read(offset, 0)
    }
}
