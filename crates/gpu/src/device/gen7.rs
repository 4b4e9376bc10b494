//! The Ivy Bridge front as the command streamer runs it: state latched into
//! [`gtsim_gen7::LatchedState`], 3DPRIMITIVE through the 3D pipeline with
//! [`gtsim_gen7::DrawFront`], GPGPU_WALKER and MEDIA_OBJECT with
//! [`gtsim_gen7::compute::ComputeFront`], and the blitter ring's 2D blits.

use super::cs::{CommandStreamer, unsupported};
use super::front::Front;
use super::{Hang, Ring, SubmitReport};
use gtsim_gen7::{DrawFront, LatchedState, Registers};
use gtsim_pipe3d::draw::{RenderTarget, Statistics};
use gtsim_spec::UnpackError;
use gtsim_spec::gen7::pipeline_select::PipelineSelection;
use gtsim_spec::gen7::*;
use gtsim_spec::table::{Def, DefKind};

fn decode<T>(def: &'static Def, addr: u64, r: Result<T, UnpackError>) -> Result<T, Hang> {
    r.map_err(|error| Hang::Decode {
        command: def.name,
        addr,
        error,
    })
}

impl Front for LatchedState {
    const INFO: &'static gtsim_spec::DeviceInfo = &gtsim_spec::device::IVY_BRIDGE_GT2;

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
        let on_blitter = cs.ring == Ring::Blitter;
        let blitter_command = matches!(def.id, XyColorBlt::ID | XySrcCopyBlt::ID);
        if !on_blitter && blitter_command {
            return Err(unsupported(
                name,
                at,
                "2D blitter commands on the render ring",
                "IVB PRM Vol1 Part4 (Blitter Engine)",
            ));
        }
        match def.id {
            XyColorBlt::ID => {
                let c = decode(def, at, XyColorBlt::unpack(dw))?;
                cs.blitter(name, at).color(&c)?;
                report.blits += 1;
            }
            XySrcCopyBlt::ID => {
                let c = decode(def, at, XySrcCopyBlt::unpack(dw))?;
                cs.blitter(name, at).src_copy(&c)?;
                report.blits += 1;
            }
            ThreeDPrimitive::ID => {
                let c = decode(def, at, ThreeDPrimitive::unpack(dw))?;
                cs.selected(at, "3DPRIMITIVE", PipelineSelection::_3D)?;
                if !(c.predicate_enable && cs.predicated_off()) {
                    let targets = cs.draw(at, &c)?;
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
                cs.selected(at, "GPGPU_WALKER", PipelineSelection::GPGPU)?;
                // Predicate Enable: MI_PREDICATE_RESULT decides, as for 3DPRIMITIVE.
                if !(c.predicate_enable && cs.predicated_off()) {
                    cs.walk(at, &c)?;
                    report.walkers += 1;
                }
            }
            MediaObject::ID => {
                let c = decode(def, at, MediaObject::unpack(dw))?;
                cs.selected(at, "MEDIA_OBJECT", PipelineSelection::MEDIA)?;
                cs.media_object(at, &c)?;
                report.media_objects += 1;
            }
            GpgpuObject::ID | MediaObjectPrt::ID | MediaObjectWalker::ID => {
                report.not_executed.push(format!("{name} at {at:#x}: the media/GPGPU pipeline is not modelled yet (seed 000 §2.8-2.11)"));
            }
            _ => match def.kind {
                // State commands: latched into the context (seed 004 §1.4.1).
                DefKind::Command { .. } if dw[0] >> 29 == 3 => cs.latch(def, at, dw)?,
                _ => {
                    return Err(unsupported(
                        name,
                        at,
                        "this command",
                        "IVB PRM Vol1 Part3 (MI commands)",
                    ));
                }
            },
        }
        Ok(())
    }
}

impl CommandStreamer<'_, LatchedState> {
    fn blitter(&mut self, command: &'static str, addr: u64) -> super::blt::Blitter<'_> {
        super::blt::Blitter {
            mem: self.mem,
            watchdog: &mut self.watchdog,
            command,
            addr,
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
            state: Some(&self.ctx.state),
            latched: &self.ctx.state,
            front: &front,
        };
        let result = super::observe::observed_draw(
            self.observer.as_deref_mut(),
            &view,
            self.mem,
            &mut kernels,
            &mut stats,
            &mut self.watchdog,
        );
        self.ctx.kernels = kernels;
        // Counters count what ran, also when the draw then hung.
        self.add_statistics(&stats);
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
        let error = gtsim_pipe3d::draw::DrawError::State {
            command,
            why: format!(
                "sent while PIPELINE_SELECT selects the {} pipeline",
                have.name().unwrap_or("reserved")
            ),
        };
        Err(if command == "GPGPU_WALKER" {
            Hang::Walker { addr: at, error }
        } else {
            Hang::Draw { addr: at, error }
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
        let stats = result.map_err(|error| Hang::Walker { addr: at, error })?;
        self.add_compute_invocations(stats.invocations);
        Ok(())
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
        result.map(|_| ()).map_err(|error| Hang::Media {
            walker: false,
            addr: at,
            error,
        })
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
}

/// The context's registers as a front reads them.
pub(super) struct ContextRegisters<'a>(pub &'a super::RegisterFile);

impl Registers for ContextRegisters<'_> {
    fn register(&self, offset: u32) -> u32 {
        self.0.read(offset, 0)
    }
}
