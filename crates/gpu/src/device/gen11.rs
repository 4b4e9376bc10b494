//! The Ice Lake front as the command streamer runs it, as far as the model goes today:
//! state commands latched, typed, into [`gtsim_gen11::LatchedState`]; GPGPU_WALKER's
//! thread groups through `gtsim_pipe3d::draw::compute` with
//! [`gtsim_gen11::ComputeFront`]; MEDIA_STATE_FLUSH (no effect in a model that executes
//! in order); 3DPRIMITIVE through the 3D pipeline with [`gtsim_gen11::DrawFront`]. The
//! media objects stop the batch as a [`Hang::Unsupported`] naming the state they would
//! consume: work skipped in silence would leave wrong memory. The MI commands and PIPE_CONTROL are the one
//! executor's (`cs.rs`), with Gen11's 48-bit addresses (iris writes them in canonical
//! form, bits 63:48 copying bit 47; the command streamer uses bits 47:0, Gen11 PRM Vol
//! 2a MI_BATCH_BUFFER_START "Batch Buffer Start Address [47:2]") and second-level
//! batches.

use super::cs::{CommandStreamer, unsupported};
use super::front::Front;
use super::{Hang, SubmitReport};
use gtsim_gen11::LatchedState;
use gtsim_pipe3d::draw::{RenderTarget, Statistics};
use gtsim_spec::gen11::pipeline_select::PipelineSelection;
use gtsim_spec::gen11::{GpgpuWalker, MediaObjectWalker, ThreeDPrimitive};
use gtsim_spec::table::{Def, DefKind};

impl CommandStreamer<'_, LatchedState> {
    /// Runs a GPGPU_WALKER's thread groups (`gtsim_pipe3d::draw::compute`).
    fn walk(&mut self, at: u64, walker: &GpgpuWalker) -> Result<(), Hang> {
        let mut kernels = std::mem::take(&mut self.ctx.kernels);
        let registers = super::gen7::ContextRegisters(&self.ctx.registers);
        let front = gtsim_gen11::ComputeFront::new(&self.ctx.state, &registers, walker);
        let result =
            gtsim_pipe3d::draw::compute::walk(&front, self.mem, &mut kernels, &mut self.watchdog);
        self.ctx.kernels = kernels;
        let stats = result.map_err(|error| Hang::Walker { addr: at, error })?;
        self.add_compute_invocations(stats.invocations);
        Ok(())
    }

    /// Runs a MEDIA_OBJECT_WALKER's threads (`gtsim_pipe3d::draw::media::walk`).
    fn media_walk(&mut self, at: u64, walker: &MediaObjectWalker) -> Result<(), Hang> {
        let mut kernels = std::mem::take(&mut self.ctx.kernels);
        let registers = super::gen7::ContextRegisters(&self.ctx.registers);
        let front = gtsim_gen11::ComputeFront::media_walker(&self.ctx.state, &registers, walker);
        let loops = gtsim_gen11::compute::walker_loops(walker);
        let result = gtsim_pipe3d::draw::media::walk(
            &front,
            self.mem,
            &mut kernels,
            &mut self.watchdog,
            &loops,
        );
        self.ctx.kernels = kernels;
        result.map_err(|error| Hang::Media {
            walker: true,
            addr: at,
            error,
        })?;
        Ok(())
    }
}

impl CommandStreamer<'_, LatchedState> {
    /// Runs a 3DPRIMITIVE through the 3D pipeline with the Gen11 draw front and adds
    /// its statistics to the counters (also when the draw then hung: they count what
    /// ran).
    fn draw(
        &mut self,
        at: u64,
        primitive: &ThreeDPrimitive,
        extended: Option<[u32; 3]>,
    ) -> Result<Vec<RenderTarget>, Hang> {
        let mut stats = Statistics::default();
        let mut kernels = std::mem::take(&mut self.ctx.kernels);
        let registers = super::gen7::ContextRegisters(&self.ctx.registers);
        let mut front = gtsim_gen11::DrawFront::new(&self.ctx.state, &registers, primitive);
        if let Some(xp) = extended {
            front = front.with_extended_parameters(xp);
        }
        // A fast clear's value as the surface states that now name its surface give it.
        let mut pending = std::mem::take(&mut self.ctx.pending_clears);
        let settled = pending.settle(&front, self.mem, &mut kernels);
        // The observer (`gtsim inspect`) sees the draw through its neutral front.
        let view = super::observe::DrawView {
            addr: at,
            state: None,
            latched: &self.ctx.state,
            front: &front,
        };
        if let Err(error) = settled {
            self.ctx.kernels = kernels;
            self.ctx.pending_clears = pending;
            return Err(Hang::Draw { addr: at, error });
        }
        let result = super::observe::observed_draw(
            self.observer.as_deref_mut(),
            &view,
            self.mem,
            &mut kernels,
            &mut stats,
            &mut self.watchdog,
        );
        self.ctx.kernels = kernels;
        if let Ok(written) = &result {
            pending.record(&front, self.mem, written);
        }
        self.ctx.pending_clears = pending;
        self.add_statistics(&stats);
        // Gen8+ SO buffers store their final write offsets back to memory.
        if let Some(offsets) = stats.so_write_offsets {
            for (b, at_offset) in gtsim_gen11::draw::offset_write_backs(&self.ctx.state)
                .into_iter()
                .enumerate()
            {
                if let Some(a) = at_offset {
                    self.write_u32("3DSTATE_SO_BUFFER", at, a, offsets[b])?;
                }
            }
        }
        result.map_err(|error| Hang::Draw { addr: at, error })
    }
}

impl Front for LatchedState {
    const INFO: &'static gtsim_spec::DeviceInfo = &gtsim_spec::device::ICE_LAKE_GT2;

    fn latched_commands(&self) -> Vec<(&'static str, Vec<u32>)> {
        LatchedState::commands(self)
    }

    fn execute(
        cs: &mut CommandStreamer<'_, Self>,
        def: &'static Def,
        at: u64,
        dw: &[u32],
        report: &mut SubmitReport,
    ) -> Result<(), Hang> {
        let name = def.name;
        // (The blitter ring is refused before any command: `Device::submit_observed`.)
        match name {
            "3DPRIMITIVE" => {
                // The extended form (Mesa genxml gen11.xml 3DPRIMITIVE_EXTENDED: DWord
                // Length 8 with Extended Parameters Present, DWs 7-9 the XP0-XP2
                // parameters 3DSTATE_VF_SGVS_2 inserts; anv 23+ sends it) decodes as the
                // 7-dword command plus those three.
                let extended = dw
                    .first()
                    .is_some_and(|d| d & 0xff == 8 && d >> 11 & 1 != 0);
                let (dw, xp) = if extended && dw.len() >= 10 {
                    let mut base = [0u32; 7];
                    base.copy_from_slice(&dw[..7]);
                    base[0] = (base[0] & !0xff) | 5;
                    (base.to_vec(), Some([dw[7], dw[8], dw[9]]))
                } else {
                    (dw.to_vec(), None)
                };
                let dw = dw.as_slice();
                let p = ThreeDPrimitive::unpack(dw).map_err(|error| Hang::Decode {
                    command: name,
                    addr: at,
                    error,
                })?;
                if cs.ctx.state.pipeline() != PipelineSelection::_3D {
                    return Err(Hang::Draw {
                        addr: at,
                        error: gtsim_pipe3d::draw::DrawError::State {
                            command: "3DPRIMITIVE",
                            why: "sent while PIPELINE_SELECT does not select the 3D pipeline"
                                .into(),
                        },
                    });
                }
                // Predicate Enable: MI_PREDICATE_RESULT decides.
                if !(p.predicate_enable && cs.predicated_off()) {
                    let targets = cs.draw(at, &p, xp)?;
                    report.draws += 1;
                    for t in targets {
                        report
                            .render_targets
                            .retain(|o| o.surface.base != t.surface.base);
                        report.render_targets.push(t);
                    }
                }
                Ok(())
            }
            "GPGPU_WALKER" => {
                let w = GpgpuWalker::unpack(dw).map_err(|error| Hang::Decode {
                    command: name,
                    addr: at,
                    error,
                })?;
                if cs.ctx.state.pipeline() != PipelineSelection::GPGPU {
                    return Err(Hang::Walker {
                        addr: at,
                        error: gtsim_pipe3d::draw::DrawError::State {
                            command: "GPGPU_WALKER",
                            why: "sent while PIPELINE_SELECT does not select the GPGPU pipeline"
                                .into(),
                        },
                    });
                }
                // Predicate Enable: MI_PREDICATE_RESULT decides.
                if !(w.predicate_enable && cs.predicated_off()) {
                    cs.walk(at, &w)?;
                    report.walkers += 1;
                }
                Ok(())
            }
            "MEDIA_OBJECT_WALKER" => {
                let w = MediaObjectWalker::unpack(dw).map_err(|error| Hang::Decode {
                    command: name,
                    addr: at,
                    error,
                })?;
                if cs.ctx.state.pipeline() != PipelineSelection::MEDIA {
                    return Err(Hang::Walker {
                        addr: at,
                        error: gtsim_pipe3d::draw::DrawError::State {
                            command: "MEDIA_OBJECT_WALKER",
                            why: "sent while PIPELINE_SELECT does not select the media pipeline"
                                .into(),
                        },
                    });
                }
                cs.media_walk(at, &w)?;
                report.walkers += 1;
                Ok(())
            }
            "MEDIA_OBJECT" | "MEDIA_OBJECT_GRPID" | "MEDIA_OBJECT_PRT" => Err(unsupported(
                name,
                at,
                "the Gen11 media pipeline's single objects (MEDIA_OBJECT_WALKER runs; iHD sends walkers)",
                "seed 003 INTERFACE_DESCRIPTOR_DATA",
            )),
            "MEDIA_STATE_FLUSH" => Ok(()),
            // Stream Offset Write Enable loads the buffer's SO_WRITE_OFFSETn register when
            // the command runs (seed 003 3DSTATE_SO_BUFFER; Mesa genxml gen11.xml), with
            // Stream Offset, or with 0xFFFFFFFF the dword at Stream Output Buffer Offset
            // Address; draws write from the register and leave their final offsets in it,
            // so a draw after one that did not resend the command goes on where that one
            // stopped (iris resends it only when the buffers change).
            "3DSTATE_SO_BUFFER" => {
                cs.ctx.state.latch(name, dw).map_err(|e| Hang::Decode {
                    command: name,
                    addr: at,
                    error: e.error,
                })?;
                let b = gtsim_spec::gen11::ThreeDStateSoBuffer::unpack(dw).map_err(|error| {
                    Hang::Decode {
                        command: name,
                        addr: at,
                        error,
                    }
                })?;
                if b.stream_offset_write_enable {
                    let offset = if b.stream_offset == u32::MAX {
                        let a = gtsim_gen11::bases::address(b.stream_output_buffer_offset_address);
                        cs.read_u32(name, at, a)?
                    } else {
                        b.stream_offset
                    };
                    let reg = gtsim_spec::gen11::SoWriteOffset0::OFFSET
                        + 4 * u32::from(b.so_buffer_index & 3);
                    cs.ctx.registers.write(reg, offset & !3);
                }
                Ok(())
            }
            "3DSTATE_WM_HZ_OP" => {
                cs.ctx.state.latch(name, dw).map_err(|e| Hang::Decode {
                    command: name,
                    addr: at,
                    error: e.error,
                })?;
                let registers = super::gen7::ContextRegisters(&cs.ctx.registers);
                let op = cs.ctx.state.wm_hz_op.clone().unwrap_or_default();
                gtsim_gen11::draw::wm_hz_op(&cs.ctx.state, &registers, &op, cs.mem).map_err(
                    |error| Hang::Command {
                        command: name,
                        addr: at,
                        error: Box::new(error),
                    },
                )
            }
            _ => match def.kind {
                // State commands (3D, media and GPGPU state): latched, typed. A malformed
                // command is a hang, as a real command streamer would hang on it.
                DefKind::Command { .. } if dw[0] >> 29 == 3 => {
                    let kept = cs.ctx.state.latch(name, dw).map_err(|e| Hang::Decode {
                        command: name,
                        addr: at,
                        error: e.error,
                    })?;
                    if kept {
                        Ok(())
                    } else {
                        Err(unsupported(
                            name,
                            at,
                            "a GFXPIPE command the Gen11 front does not know",
                            "the Gen11 spec files",
                        ))
                    }
                }
                _ => Err(unsupported(
                    name,
                    at,
                    "this command",
                    "Gen11 PRM Vol 2a (MI commands)",
                )),
            },
        }
    }
}
