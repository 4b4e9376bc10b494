//! Where a run's VUEs go after the VS: into patches for the HS (tessellation), into the
//! GS unit's objects, or into the SOL stage and the SF's assembly; one place for every
//! piece of a run, the end of a run (a cut) and the end of an instance.

use super::pixel::PixelStage;
use super::staging::Stager;
use super::stream::RunAssembler;
use super::{
    DrawError, KernelCache, Statistics, Watchdog, geometry, geometry_output, setup, stream_out,
    tessellated, tessellation,
};
use crate::state::{DrawState, Front};
use gtsim_mem::Memory;

/// The stages after the VS of one draw, with the state of the current run.
pub(super) struct Runs {
    gs: Option<geometry::GeometryStage>,
    tess: Option<tessellation::TessellationStage>,
    sol: Option<stream_out::SolStage>,
    /// With tessellation: the run's patches.
    patches: Option<Stager>,
    /// Without a GS or tessellation, with the SO function: the run's SO objects.
    so: Option<Stager>,
    /// Without a GS or tessellation: the SF's assembly of the run.
    sf: Option<RunAssembler>,
}

impl Runs {
    pub fn new(
        st: &DrawState,
        mem: &dyn Memory,
        kernels: &mut KernelCache,
    ) -> Result<Runs, DrawError> {
        let mut runs = Runs {
            gs: geometry::GeometryStage::new(st, mem, kernels)?,
            tess: tessellation::TessellationStage::new(st, mem, kernels)?,
            sol: stream_out::SolStage::new(st),
            patches: None,
            so: None,
            sf: None,
        };
        runs.begin_run(st)?;
        Ok(runs)
    }

    /// Starts a run (an instance, or the vertices after a cut).
    pub fn begin_run(&mut self, st: &DrawState) -> Result<(), DrawError> {
        let direct = self.gs.is_none() && self.tess.is_none();
        // With tessellation the VS's VUEs are staged into patches (PATCHLIST objects).
        self.patches = self
            .tess
            .is_some()
            .then(|| Stager::new(st.vf.topology, crate::gs_order::Staging::default()));
        if let Some(g) = &mut self.gs {
            g.begin_run();
        }
        // The SO function (ch.8) streams out the VF's objects (stream 0) when no GS or
        // DS makes the primitives.
        self.so = (direct && self.sol.as_ref().is_some_and(|s| !s.stream_is_idle(0)))
            .then(|| Stager::new(st.vf.topology, stream_out::SO_STAGING));
        // Without a GS or tessellation the SF assembles the draw's topology; otherwise
        // it assembles what the GS or the DS outputs.
        self.sf = if direct {
            Some(RunAssembler::new(st.vf.topology, st.setup.provoking)?)
        } else {
            None
        };
        Ok(())
    }

    /// Takes the next VUEs of the run (with their PrimitiveIDs and EdgeFlags); `ended`:
    /// the run ends after them (a cut or the end of the instance), and the next one is
    /// begun. The EdgeFlags reach the SF when it assembles the VF's topology itself (a
    /// GS or the tessellator makes new vertices, whose flags are TRUE).
    #[expect(
        clippy::too_many_arguments,
        reason = "the draw's state, front and counters, passed down unchanged"
    )]
    pub fn feed(
        &mut self,
        st: &DrawState,
        front: &dyn Front,
        (vues, pids, edges): super::vertex::Shaded,
        ended: bool,
        mem: &mut dyn Memory,
        ps: &mut PixelStage,
        stats: &mut Statistics,
        watchdog: &mut Watchdog,
    ) -> Result<(), DrawError> {
        if let (Some(t), Some(patches)) = (&self.tess, self.patches.as_mut()) {
            let staged = patches.push(vues, &pids, ended)?;
            tessellated(
                st,
                front,
                t,
                &staged,
                patches,
                ended,
                self.gs.as_mut(),
                self.sol.as_mut(),
                mem,
                ps,
                stats,
                watchdog,
            )?;
        } else if let Some(g) = &mut self.gs {
            let inputs = g.push(vues, pids, ended, stats, st.vf.statistics)?;
            geometry_output(
                st,
                front,
                g,
                &inputs,
                self.sol.as_mut(),
                mem,
                ps,
                stats,
                watchdog,
            )?;
        } else {
            if let (Some(so), Some(sol)) = (self.so.as_mut(), self.sol.as_mut()) {
                let objects = so.push(vues.clone(), &[], ended)?;
                sol.objects(mem, 0, st.vf.topology, &objects, stats)?;
            }
            if let Some(r) = self.sf.as_mut() {
                // Seed 004 §8.7: topologies from the VF are stream 0; only the selected
                // stream, and nothing with rendering disabled, goes past the SOL stage.
                let render = st.sol.renders(0);
                let mut objects = if vues.is_empty() {
                    vec![]
                } else {
                    r.push(vues, (&pids, &edges), stats, st.vf.statistics)
                };
                if ended {
                    objects.extend(r.finish(stats, st.vf.statistics));
                }
                if render {
                    setup::primitives(st, front, r, &objects, mem, ps, stats, watchdog)?;
                }
            }
        }
        if ended {
            self.begin_run(st)?;
        }
        Ok(())
    }

    /// Ends the draw: the SO buffers' Write Offsets for their registers.
    pub fn finish(&self, stats: &mut Statistics) {
        if let Some(sol) = &self.sol {
            sol.finish(stats);
        }
    }
}
