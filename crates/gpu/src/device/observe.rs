//! Watching a submission run, for tools that show what the model did (`gtsim inspect`):
//! the command streamer tells an [`Observer`] each command it is about to execute, and
//! each draw before and after it runs, with the state and memory of that moment. An
//! observer only looks: it cannot change what the model computes.

use super::Ring;
use gtsim_mem::Memory;
use gtsim_pipe3d::draw::{DrawError, KernelCache, RenderTarget, StageTimes, Statistics, Watchdog};
use gtsim_pipe3d::state::Front;
use gtsim_spec::table::Def;

/// A draw as an observer sees it.
pub struct DrawView<'a> {
    /// The 3DPRIMITIVE's address.
    pub addr: u64,
    /// The context's latched state, for a Gen7 context (whose state pages the inspector
    /// shows by stage); `None` for other generations, whose draws are shown through the
    /// neutral front alone.
    pub state: Option<&'a gtsim_gen7::LatchedState>,
    /// The context's latched state of any generation, by command (the inspector's
    /// state-by-stage listing).
    pub latched: &'a dyn super::front::Latched,
    /// The front that decodes the draw (its state, surfaces, render targets).
    pub front: &'a dyn Front,
}

/// What a draw ran, counted by the model whatever the statistics registers were told to
/// count (a driver turns statistics off for its own blits and clears).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ran {
    /// Vertices fetched.
    pub vertices: u64,
    /// Primitives that reached the pixel stage.
    pub primitives: u64,
    /// Pixels dispatched to it.
    pub pixels: u64,
    /// EU threads that ran, in every stage.
    pub threads: u64,
    /// EU instructions they executed.
    pub eu_instructions: u64,
}

impl Ran {
    /// What `after` counted beyond `before` (the same submission's watchdog).
    fn between(before: &Watchdog, after: &Watchdog) -> Ran {
        Ran {
            vertices: after.vertices.saturating_sub(before.vertices),
            primitives: after.primitives.saturating_sub(before.primitives),
            pixels: after.pixels.saturating_sub(before.pixels),
            threads: after.threads.saturating_sub(before.threads),
            eu_instructions: after.eu_instructions.saturating_sub(before.eu_instructions),
        }
    }
}

/// How a draw ended.
pub struct DrawOutcome<'a> {
    /// The pipeline statistics it added.
    pub stats: &'a Statistics,
    /// What it ran.
    pub ran: Ran,
    /// Host time in its stages.
    pub times: &'a StageTimes,
    /// The render targets it wrote.
    pub targets: &'a [RenderTarget],
    /// Why it stopped, when it did not complete.
    pub error: Option<&'a DrawError>,
}

/// Hooks called by the command streamer; each does nothing unless implemented.
pub trait Observer {
    /// A submission starts: its ring, context and batch address.
    fn submission(&mut self, ring: Ring, ctx: u32, batch: u64) {
        let _ = (ring, ctx, batch);
    }

    /// The command `def` (dwords `dw`) at `addr` is about to execute.
    fn command(&mut self, addr: u64, def: &'static Def, dw: &[u32]) {
        let _ = (addr, def, dw);
    }

    /// A draw is about to run over `mem`.
    fn draw_begin(&mut self, draw: &DrawView, mem: &dyn Memory) {
        let _ = (draw, mem);
    }

    /// The draw ran (or stopped): `mem` as it left it.
    fn draw_end(&mut self, draw: &DrawView, mem: &dyn Memory, outcome: &DrawOutcome) {
        let _ = (draw, mem, outcome);
    }

    /// The submission hung: the report, the context's latched state (of its
    /// generation) and memory at that moment.
    fn hang(&mut self, hang: &super::Hang, state: &dyn super::Latched, mem: &dyn Memory) {
        let _ = (hang, state, mem);
    }
}

/// Runs the draw `view.front` decodes over `mem`, telling `observer` (when there is one)
/// before it runs and after it ran or stopped: the one place each generation's command
/// streamer runs a 3DPRIMITIVE.
pub(super) fn observed_draw<'o>(
    observer: Option<&mut (dyn Observer + 'o)>,
    view: &DrawView,
    mem: &mut dyn Memory,
    kernels: &mut KernelCache,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
) -> Result<Vec<RenderTarget>, DrawError> {
    let mut observer = observer;
    if let Some(o) = observer.as_deref_mut() {
        o.draw_begin(view, &*mem);
    }
    let mut times = StageTimes::default();
    let before = watchdog.clone();
    let result =
        gtsim_pipe3d::draw::draw_timed(view.front, mem, kernels, stats, watchdog, &mut times);
    // `GTSIM_LOG=gtsim_gpu::timing=debug`: where a run's draw time goes, without a report.
    tracing::debug!(
        target: "gtsim_gpu::timing",
        total_us = times.total.as_micros() as u64,
        vertex_us = times.vertex.as_micros() as u64,
        primitives_us = times.primitives.as_micros() as u64,
        pixel_us = times.pixel.as_micros() as u64,
        "draw"
    );
    if let Some(o) = observer {
        let outcome = DrawOutcome {
            stats,
            ran: Ran::between(&before, watchdog),
            times: &times,
            targets: result.as_deref().unwrap_or(&[]),
            error: result.as_ref().err(),
        };
        o.draw_end(view, &*mem, &outcome);
    }
    result
}
