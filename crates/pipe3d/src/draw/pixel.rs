//! WM and PS: covered pixels grouped into 2x2 subspans, dispatched to PS threads with
//! the payload of seed 004 §11.10.3, whose render target writes reach memory through
//! the data port (seed 000 §3.9.11, seed 004 ch.12).

use super::deferred::{self, Claims, Deferred};
use super::parallel;
use super::replay::{Recorder, Recording, Replays};
use super::router::Router;
use super::{DepthBuffer, DepthOp, DrawError, KernelCache, Statistics, Vue, Watchdog, unsupported};
use crate::bary::barycentrics;
use crate::sf::attribute_setup;
use crate::state::{
    ConstantSource, DrawState, Front, MessageKind, PositionOffset, ShaderStage, SwizzleSelect,
};
use gtsim_dataport::rt_message::RenderTarget;
use gtsim_dataport::rt_path::{
    AlikeThread, LateDepth, PixelWrites, RenderTargets, RtMode, write_alike,
};
use gtsim_eu::exec::{DEFAULT_BUDGET, ExecError, FpMode, Program, SharedFunctions};
use gtsim_mem::Memory;
use gtsim_mem::overlay::{Overlay, WriteLog};
use std::borrow::Cow;
use std::sync::Arc;

mod coarse;
mod interpolator;
mod multisample;
use coarse::CoarseMap;
use gtsim_dataport::rt_path::CoarseWrites;
pub(super) use interpolator::Interpolation;
use multisample::{Location, MsThread};

/// One vertex of a primitive as the WM sees it.
pub(super) struct Corner<'a> {
    /// Screen position.
    pub xy: [f32; 2],
    /// Screen depth (after the viewport transform).
    pub z: f32,
    /// 1/w.
    pub rhw: f32,
    /// The vertex's VUE.
    pub vue: &'a Vue,
}

/// A rasterized object.
pub(super) struct Primitive<'a> {
    /// Its vertices (1 for points, 3 for triangles and rectangles).
    pub corners: Vec<Corner<'a>>,
    /// The provoking vertex's VUE, for constant-interpolated attributes (for a clipped
    /// triangle, the source triangle's provoking vertex).
    pub provoking_vue: &'a Vue,
    /// Back-facing (R0.0 bit 15; selects the back-face stencil state).
    pub back_facing: bool,
    /// The object's PrimitiveID (seed 004 §2.5.13: its provoking vertex's; a GS output
    /// primitive takes its input object's).
    pub primitive_id: u32,
    /// Covered pixels, row by row.
    pub pixels: Cow<'a, [(u32, u32)]>,
    /// For an object rasterized per sample (seed 004 §11.4), each pixel's sample coverage
    /// mask; empty when every sample of a covered pixel is covered.
    pub coverage: Cow<'a, [crate::coverage::SampleMask]>,
    /// An anti-aliased line: the rectangle whose coverage multiplies source 0 alpha at
    /// the render target write (seed 004 §10.3.12.5, §12.1.1 note).
    pub aa_line: Option<crate::raster::AaLine>,
    /// For points: the square's upper-left corner and size (point sprite coordinates).
    pub point: Option<([f32; 2], f32)>,
    /// For a piece of a clipped triangle: the source triangle, whose attributes the
    /// piece's pixels interpolate.
    pub source: Option<SourceTriangle<'a>>,
}

/// The source triangle of a clipped piece (seed 004 §9, 3DSTATE_CLIP Non-Perspective
/// Barycentric Enable): its vertices' VUEs, and for each corner of the piece its
/// barycentric coordinates in the source triangle, perspective (in clip space) and
/// screen-linear.
pub(super) struct SourceTriangle<'a> {
    pub vues: [&'a Vue; 3],
    pub perspective: [[f32; 3]; 3],
    pub linear: [[f32; 3]; 3],
}

struct PsKernel {
    addr: u64,
    prog: Arc<Program>,
    simd: usize,
    grf_start: usize,
    /// Whether its threads send atomics (`router::sends_atomics`), found once.
    atomics: std::sync::OnceLock<bool>,
}

impl PsKernel {
    /// Whether its threads must run one after the other on memory itself.
    fn serial(&self, front: &dyn crate::state::Front) -> bool {
        *self
            .atomics
            .get_or_init(|| super::router::sends_atomics(front, &self.prog))
    }
}

/// The WM/PS with the draw's kernel and render targets.
pub(super) struct PixelStage {
    /// Host time spent shading pixels (`StageTimes::pixel`).
    pub busy: std::time::Duration,
    kernel: Option<PsKernel>,
    targets: RenderTargets,
    depth: Option<DepthBuffer>,
    /// Depth and stencil are tested at the render target write, after the PS.
    late: bool,
    /// Primitives held back (see `deferred`), the pixels they claim, how many.
    held: Vec<Deferred>,
    claims: Claims,
    held_pixels: usize,
}

impl PixelStage {
    pub fn new(
        st: &DrawState,
        mem: &dyn Memory,
        kernels: &mut KernelCache,
    ) -> Result<PixelStage, DrawError> {
        let ps = &st.ps;
        let depth = st.depth.clone();
        // §11.5.2.1: a PS that may kill pixels or computes depth keeps the WM from
        // testing (and writing) depth before it runs, unless EDSC_PREPS forces it.
        // EDSC_PSEXEC: the PS runs for every pixel and the test follows it.
        let late =
            (ps.kills_pixels || ps.computes_depth || ps.computes_stencil || ps.ps_exec_forced)
                && !ps.early_depth_forced
                && ps.dispatch;
        // With 3DSTATE_STREAMOUT Rendering Disable no primitive leaves the SOL stage
        // (seed 004 §8.7), so the pixel shader never runs and its state need not be
        // coherent: anv's and hasvk's streamout memory copies (genX_gpu_memcpy.c) draw
        // under whatever 3DSTATE_PS the command buffer last had.
        let rendered = !st.sol.rendering_disable;
        if let Some((what, seed)) = ps.unsupported.first().filter(|_| rendered) {
            return Err(unsupported(*what, seed));
        }
        let kernel = if ps.dispatch && rendered {
            // Which width runs is the hardware's choice and every kernel computes the
            // same pixels: the model prefers SIMD16, then SIMD8, then SIMD32, unless
            // GTSIM_PS_DISPATCH names a width to prefer.
            let mut order = vec![16, 8, 32];
            if let Some(w) = dispatch_preference() {
                order.retain(|&o| o != w);
                order.insert(0, w);
            }
            let Some(k) = order
                .into_iter()
                .find_map(|w| ps.kernels.iter().find(|k| k.simd == w))
            else {
                return Err(DrawError::State {
                    command: "3DSTATE_PS",
                    why: "thread dispatch is enabled but no dispatch width is".into(),
                });
            };
            let addr = k.kernel.checked("the PS kernel")?;
            Some(PsKernel {
                addr,
                prog: kernels.get(st.encoding, mem, addr)?,
                simd: k.simd,
                grf_start: k.grf_start,
                atomics: std::sync::OnceLock::new(),
            })
        } else {
            None
        };
        Ok(PixelStage {
            kernel,
            targets: RenderTargets::default(),
            late: late && depth.as_ref().is_some_and(|d| d.op == DepthOp::Test),
            depth,
            held: Vec::new(),
            claims: Claims::default(),
            held_pixels: 0,
            busy: std::time::Duration::ZERO,
        })
    }

    /// Shades one primitive's pixels: at once, or held back to be shaded with the next
    /// primitives that light other pixels (see `deferred`).
    pub fn shade(
        &mut self,
        st: &DrawState,
        front: &dyn Front,
        mem: &mut dyn Memory,
        prim: &Primitive,
        stats: &mut Statistics,
        watchdog: &mut Watchdog,
    ) -> Result<(), DrawError> {
        let t = std::time::Instant::now();
        let r = self.shade_timed(st, front, mem, prim, stats, watchdog);
        self.busy += t.elapsed();
        r
    }

    fn shade_timed(
        &mut self,
        st: &DrawState,
        front: &dyn Front,
        mem: &mut dyn Memory,
        prim: &Primitive,
        stats: &mut Statistics,
        watchdog: &mut Watchdog,
    ) -> Result<(), DrawError> {
        watchdog.pixels(prim.pixels.len() as u64)?;
        watchdog.primitives = watchdog.primitives.saturating_add(1);
        // `gtsim inspect --pixel`: the primitive covers the watched position.
        if let Some(w) = gtsim_dataport::probe::watched()
            && prim.pixels.contains(&(w.x, w.y))
        {
            gtsim_dataport::probe::record(gtsim_dataport::probe::Event::Covered);
        }
        if st.ps.coarse.is_some() && self.kernel.is_some() {
            self.flush(st, front, mem, stats, watchdog)?;
            return coarse::shade(self, st, front, mem, prim, stats, watchdog);
        }
        if st.multisample.samples > 1 {
            self.flush(st, front, mem, stats, watchdog)?;
            return multisample::shade(self, st, front, mem, prim, stats, watchdog);
        }
        if self.holds(st, prim) {
            if self.held_pixels + prim.pixels.len() > deferred::MAX_HELD_PIXELS
                || self.held.len() >= deferred::MAX_HELD_PRIMITIVES
                || !self.claims.claim(&prim.pixels)
            {
                self.flush(st, front, mem, stats, watchdog)?;
                self.claims.claim(&prim.pixels);
            }
            self.held_pixels += prim.pixels.len();
            self.held.push(Deferred::new(prim));
            return Ok(());
        }
        self.flush(st, front, mem, stats, watchdog)?;
        self.shade_now(st, front, mem, prim, stats, watchdog)
    }

    /// Shades the primitives held back and returns the render targets written.
    pub fn finish(
        &mut self,
        st: &DrawState,
        front: &dyn Front,
        mem: &mut dyn Memory,
        stats: &mut Statistics,
        watchdog: &mut Watchdog,
    ) -> Result<Vec<RenderTarget>, DrawError> {
        let t = std::time::Instant::now();
        let r = self.flush(st, front, mem, stats, watchdog);
        self.busy += t.elapsed();
        r?;
        Ok(self.targets.written())
    }

    /// Whether `prim` may be held back: a small primitive whose pixel shader threads
    /// make ordinary render target writes, with the depth buffer (if any) tested.
    fn holds(&self, st: &DrawState, prim: &Primitive) -> bool {
        self.kernel.is_some()
            && rt_mode(st) == RtMode::Write
            && prim.pixels.len() <= deferred::MAX_PIXELS
            && prim.aa_line.is_none()
            && self.depth.as_ref().is_none_or(|d| d.op == DepthOp::Test)
    }

    /// Shades the primitives held back (they light distinct pixels): their early depth
    /// tests in parallel, then all their threads as one list of dispatches in parallel
    /// batches ([`run_batches`]); writes, charges and counts land in primitive and
    /// dispatch order, as [`Self::shade_now`] one primitive after the other would leave
    /// them.
    fn flush(
        &mut self,
        st: &DrawState,
        front: &dyn Front,
        mem: &mut dyn Memory,
        stats: &mut Statistics,
        watchdog: &mut Watchdog,
    ) -> Result<(), DrawError> {
        let held = std::mem::take(&mut self.held);
        self.claims.clear();
        self.held_pixels = 0;
        let Some(k) = &self.kernel else {
            return Ok(());
        };
        if held.is_empty() {
            return Ok(());
        }
        let depth = self.depth.as_ref();
        let late = self.late;
        let views: Vec<Primitive> = held.iter().map(Deferred::view).collect();
        // First each primitive's early depth test, subspans and setup data, in parallel
        // (their pixels are distinct), their depth writes applied in primitive order; a
        // primitive that fails stops the flush after the primitives before it.
        let base: &dyn Memory = &*mem;
        let prepared = parallel::run(views.len(), |i| {
            prepare_held(st, base, &views[i], (depth, late))
        });
        let mut ready = vec![];
        let mut failed = None;
        for (i, p) in prepared.into_iter().enumerate() {
            p.depth.apply(mem).map_err(|fault| DrawError::Fault {
                unit: "depth buffer",
                fault,
            })?;
            match p.setup {
                Ok(setup) => ready.push((i, p.subspans, setup, p.invocations)),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        // Then the threads of all of them, in dispatch order, in parallel batches like
        // a large primitive's (each thread over an overlay, writes applied in order).
        let contexts: Vec<ThreadContext> = ready
            .iter()
            .map(|(i, _, setup, _)| ThreadContext {
                st,
                front,
                prim: &views[*i],
                kernel: k,
                setup,
                late: depth.filter(|_| late),
                mode: RtMode::Write,
                replays: Replays::new(&k.prog, k.grf_start),
                coarse: None,
            })
            .collect();
        // Each thread: its primitive's context and its subspans, in dispatch order.
        let jobs: Vec<Job> = contexts
            .iter()
            .zip(&ready)
            .flat_map(|(ctx, (_, subspans, ..))| {
                subspans.chunks(k.simd / 4).map(move |g| (ctx, g, None))
            })
            .collect();
        if st.ps.statistics {
            stats.ps_invocations += ready.iter().map(|r| r.3).sum::<u64>();
        }
        run_batches(&jobs, k, mem, &mut self.targets, stats, watchdog)?;
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The pixels of `prim` its shader runs for: every one when there is no depth
    /// buffer or the test comes after the shader, else those that pass the early depth
    /// and stencil test (seed 004 §11.5.2), which this runs; `None` when the depth
    /// buffer's operation is a clear, which leaves nothing to shade.
    fn early_passed<'p>(
        &self,
        st: &DrawState,
        mem: &mut dyn Memory,
        prim: &'p Primitive,
    ) -> Result<Option<Pixels<'p>>, DrawError> {
        Ok(Some(match &self.depth {
            None => Cow::Borrowed(&prim.pixels),
            Some(_) if self.late => Cow::Borrowed(&prim.pixels),
            Some(d) => {
                let passed = early_depth(st, prim, d, mem)?;
                if d.op != DepthOp::Test {
                    return Ok(None);
                }
                Cow::Owned(passed)
            }
        }))
    }

    /// Shades one primitive's pixels now.
    fn shade_now(
        &mut self,
        st: &DrawState,
        front: &dyn Front,
        mem: &mut dyn Memory,
        prim: &Primitive,
        stats: &mut Statistics,
        watchdog: &mut Watchdog,
    ) -> Result<(), DrawError> {
        let Some(passed) = self.early_passed(st, mem, prim)? else {
            return Ok(());
        };
        // Seed 004 §1.9 statistics table: PS_DEPTH_COUNT counts pixels that passed the
        // depth and stencil tests and were not discarded by the PS (counted at their
        // last render target write when a PS runs); PS_INVOCATION_COUNT counts the PS
        // executions including helper pixels, not at all without a PS.
        let Some(k) = &self.kernel else {
            stats.ps_depth_count += passed.len() as u64;
            return Ok(());
        };
        let subspans = subspans(&passed);
        if st.ps.statistics {
            // Every pixel passed (the pixels that pass are some of the primitive's):
            // its subspans are the ones just found.
            stats.ps_invocations += if passed.len() == prim.pixels.len() {
                4 * subspans.len() as u64
            } else {
                invocations(prim)
            };
        }
        let setup = attribute_deltas(st, prim)?;
        let mode = rt_mode(st);
        let ctx = ThreadContext {
            st,
            front,
            prim,
            kernel: k,
            setup: &setup,
            late: match (&self.depth, self.late) {
                (Some(depth), true) => Some(depth),
                _ => None,
            },
            mode,
            replays: Replays::new(&k.prog, k.grf_start),
            coarse: None,
        };
        let groups: Vec<&[Subspan]> = subspans.chunks(k.simd / 4).collect();
        dispatch(&ctx, &groups, k, mem, &mut self.targets, stats, watchdog)
    }
}

/// Runs the threads of one primitive, one per group of subspans.
///
/// Ordinary writes: the threads of a batch run in parallel, each over an overlay of
/// memory, and their writes land in dispatch order (see `parallel`). Otherwise the
/// threads run one after the other on the memory itself: a fast clear or a resolve,
/// which acts on whole surfaces once per draw, and a primitive of few threads, not
/// worth the hand-over to host threads. Which way a primitive goes depends on its state
/// and size only, never on the host's thread count.
fn dispatch(
    ctx: &ThreadContext,
    groups: &[&[Subspan]],
    k: &PsKernel,
    mem: &mut dyn Memory,
    targets: &mut RenderTargets,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
) -> Result<(), DrawError> {
    if ctx.mode != RtMode::Write || groups.len() < parallel::MIN_BATCH {
        for group in groups {
            let budget = watchdog.thread_budget(DEFAULT_BUDGET);
            let (result, visible) = ctx.run(mem, targets, group, budget, None)?;
            watchdog
                .thread_ran(result, budget, DEFAULT_BUDGET)?
                .map_err(ps_failed(k))?;
            stats.ps_depth_count += u64::from(visible);
        }
        return Ok(());
    }
    let jobs: Vec<Job> = groups.iter().map(|&g| (ctx, g, None)).collect();
    run_batches(&jobs, k, mem, targets, stats, watchdog)
}

/// Runs PS threads (each its context and subspans) in parallel batches of
/// [`parallel::PIXEL_BATCH`] dispatches, each over an overlay of `mem`, and lands their writes,
/// watchdog charges, render targets and counts in dispatch order (see `parallel`).
///
/// Threads that replay a recording (`replay`) do not run in parallel: they are cheap,
/// and are carried out in dispatch order on `mem` itself, where their writes land, each
/// run of consecutive ones replaying the same recording at once when that changes no
/// byte ([`ThreadContext::replay_alike`]), otherwise one after the other.
/// One PS thread of a batch: its primitive's context, its subspans and, for a
/// multisampled draw, the samples its slots stand for.
type Job<'a> = (&'a ThreadContext<'a>, &'a [Subspan], Option<&'a MsThread>);

fn run_batches(
    jobs: &[Job],
    k: &PsKernel,
    mem: &mut dyn Memory,
    known: &mut RenderTargets,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
) -> Result<(), DrawError> {
    // Before the draw has resolved a render target, its first thread runs as a batch of
    // its own: it resolves the targets its writes use (and records its messages when
    // its kind replays), so that the threads of the next batch find them rather than
    // each resolve them (or record) again. How the threads are cut into batches depends
    // on the draw alone, never on the host's thread count.
    // A kernel that sends atomics runs its threads one after the other on memory itself
    // (`router::sends_atomics`): an atomic must see every earlier one.
    if let Some((ctx, ..)) = jobs.first()
        && k.serial(ctx.front)
    {
        for &(ctx, group, ms) in jobs {
            let budget = watchdog.thread_budget(DEFAULT_BUDGET);
            let (result, visible) = ctx.run(mem, known, group, budget, ms)?;
            watchdog
                .thread_ran(result, budget, DEFAULT_BUDGET)?
                .map_err(ps_failed(k))?;
            stats.ps_depth_count += u64::from(visible);
        }
        return Ok(());
    }
    let head = usize::from(known.is_empty() && !jobs.is_empty());
    let (first, rest) = jobs.split_at(head);
    for batch in std::iter::once(first)
        .filter(|b| !b.is_empty())
        .chain(rest.chunks(parallel::PIXEL_BATCH))
    {
        let budget = watchdog.thread_budget(DEFAULT_BUDGET);
        // The recordings known before the batch runs; the other threads run.
        let recorded: Vec<Option<Arc<Recording>>> = batch
            .iter()
            .map(|(ctx, group, ms)| ctx.recording(group, budget).filter(|_| ms.is_none()))
            .collect();
        let running: Vec<usize> = (0..batch.len())
            .filter(|&i| recorded[i].is_none())
            .collect();
        let base: &dyn Memory = &*mem;
        let start = &*known;
        let mut outcomes = parallel::run(running.len(), |i| {
            let (ctx, group, ms) = batch[running[i]];
            let mut overlay = Overlay::new(base);
            let mut targets = start.clone();
            let r = ctx.run(&mut overlay, &mut targets, group, budget, ms);
            (r, overlay.into_log(), targets)
        })
        .into_iter();
        let mut i = 0;
        while i < batch.len() {
            let Some(rec) = &recorded[i] else {
                let Some((r, log, targets)) = outcomes.next() else {
                    unreachable!("one outcome per thread that ran");
                };
                let (result, visible) = r?;
                watchdog
                    .thread_ran_in_order(result, DEFAULT_BUDGET)?
                    .map_err(ps_failed(k))?;
                log.apply(mem).map_err(|fault| DrawError::Fault {
                    unit: "render target write",
                    fault,
                })?;
                known.absorb(targets);
                stats.ps_depth_count += u64::from(visible);
                i += 1;
                continue;
            };
            // The run of consecutive threads of one primitive replaying `rec`.
            let ctx = batch[i].0;
            let end = (i + 1..batch.len())
                .find(|&j| {
                    !std::ptr::eq(batch[j].0, ctx)
                        || !recorded[j].as_ref().is_some_and(|r| Arc::ptr_eq(r, rec))
                })
                .unwrap_or(batch.len());
            let groups: Vec<&[Subspan]> = batch[i..end].iter().map(|(_, g, _)| *g).collect();
            // At once only when the watchdog lets every one of them finish.
            let affordable = watchdog.thread_budget(u64::MAX)
                >= rec.executed.saturating_mul(groups.len() as u64);
            if let Some(visible) = affordable
                .then(|| ctx.replay_alike(rec, mem, known, &groups))
                .flatten()
            {
                for v in visible {
                    super::replay::count(true);
                    watchdog
                        .thread_ran_in_order(Ok(rec.executed), DEFAULT_BUDGET)?
                        .map_err(ps_failed(k))?;
                    stats.ps_depth_count += u64::from(v.count_ones());
                }
            } else {
                for group in groups {
                    let (result, visible) = ctx.replay(rec, mem, known, group);
                    watchdog
                        .thread_ran_in_order(result, DEFAULT_BUDGET)?
                        .map_err(ps_failed(k))?;
                    stats.ps_depth_count += u64::from(visible);
                }
            }
            i = end;
        }
    }
    super::replay::log();
    Ok(())
}

/// A held-back primitive prepared for its threads ([`prepare_held`]): the writes of its
/// early depth test, the subspans that passed it, and its setup data, or the error that
/// stopped it.
struct Prepared {
    depth: WriteLog,
    subspans: Vec<((u32, u32), u32)>,
    /// PS_INVOCATION_COUNT's share ([`invocations`]).
    invocations: u64,
    setup: Result<Vec<[[f32; 3]; 4]>, DrawError>,
}

/// A held-back primitive's early depth test (over an overlay of `base`), subspans and
/// setup data.
fn prepare_held(
    st: &DrawState,
    base: &dyn Memory,
    prim: &Primitive,
    (depth, late): (Option<&DepthBuffer>, bool),
) -> Prepared {
    let mut tested = Overlay::new(base);
    let passed: Cow<[(u32, u32)]> = match depth {
        Some(d) if !late => match depth_test(st, prim, d, &mut tested, &prim.pixels) {
            (passed, None) => Cow::Owned(passed),
            (_, Some(e)) => {
                return Prepared {
                    depth: tested.into_log(),
                    subspans: vec![],
                    invocations: 0,
                    setup: Err(e),
                };
            }
        },
        _ => Cow::Borrowed(&*prim.pixels),
    };
    let subspans = subspans(&passed);
    Prepared {
        invocations: if passed.len() == prim.pixels.len() {
            4 * subspans.len() as u64
        } else {
            invocations(prim)
        },
        subspans,
        setup: attribute_deltas(st, prim),
        depth: tested.into_log(),
    }
}

/// PS_INVOCATION_COUNT of a primitive: every pixel of every subspan it lights, helper
/// pixels included, and also those the early depth test then discards (seed 004 §1.9
/// statistics table; §11.5.2: "will still be incremented").
fn invocations(prim: &Primitive) -> u64 {
    4 * subspans(&prim.pixels).len() as u64
}

/// What the draw's render target writes do (3DSTATE_PS Render Target Fast Clear Enable
/// and Render Target Resolve Enable).
fn rt_mode(st: &DrawState) -> RtMode {
    if st.ps.fast_clear {
        RtMode::FastClear
    } else if st.ps.resolve {
        RtMode::Resolve
    } else {
        RtMode::Write
    }
}

/// The early depth and stencil test of a primitive's pixels (seed 004 §11.5.2): the
/// pixels that pass, in order. A large primitive's pixels are tested in chunks of
/// [`parallel::BATCH`] * 2 on the host's cores, each chunk over an overlay of memory
/// whose writes land in pixel order (the pixels are distinct, so the chunks touch
/// distinct depth and stencil values); the chunks depend on the pixel count only.
fn early_depth(
    st: &DrawState,
    prim: &Primitive,
    d: &DepthBuffer,
    mem: &mut dyn Memory,
) -> Result<Vec<(u32, u32)>, DrawError> {
    let test = |mem: &mut dyn Memory, pixels: &[(u32, u32)]| depth_test(st, prim, d, mem, pixels);
    const CHUNK: usize = parallel::BATCH * 2;
    // A clear only writes, each pixel once and the same bytes, straight to memory.
    if d.op == DepthOp::Clear {
        let d = clear_of(st, prim, d);
        d.access_at(rt_array_index(st, prim))
            .clear(mem, &prim.pixels)
            .map_err(DrawError::from_depth_buffer)?;
        return Ok(vec![]);
    }
    if prim.pixels.len() < 2 * CHUNK {
        return early_depth_serial(st, prim, d, mem);
    }
    let chunks: Vec<&[(u32, u32)]> = prim.pixels.chunks(CHUNK).collect();
    let base: &dyn Memory = &*mem;
    let outcomes = parallel::run(chunks.len(), |i| {
        let mut overlay = Overlay::new(base);
        let (passed, error) = test(&mut overlay, chunks[i]);
        (passed, error, overlay.into_log())
    });
    let mut all = Vec::with_capacity(prim.pixels.len());
    for (passed, error, log) in outcomes {
        log.apply(mem).map_err(|fault| DrawError::Fault {
            unit: "depth buffer",
            fault,
        })?;
        if let Some(e) = error {
            return Err(e);
        }
        all.extend(passed);
    }
    Ok(all)
}

/// [`early_depth`] one pixel after the other on `mem`.
fn early_depth_serial(
    st: &DrawState,
    prim: &Primitive,
    d: &DepthBuffer,
    mem: &mut dyn Memory,
) -> Result<Vec<(u32, u32)>, DrawError> {
    match depth_test(st, prim, d, mem, &prim.pixels) {
        (_, Some(e)) => Err(e),
        (passed, None) => Ok(passed),
    }
}

/// The early depth test of `pixels` of `prim`: those that pass, and the error that
/// stopped it, if any.
fn depth_test(
    st: &DrawState,
    prim: &Primitive,
    d: &DepthBuffer,
    mem: &mut dyn Memory,
    pixels: &[(u32, u32)],
) -> (Vec<(u32, u32)>, Option<DrawError>) {
    let mut passed = Vec::with_capacity(pixels.len());
    let d = clear_of(st, prim, d);
    let access = d.access_at(rt_array_index(st, prim));
    // A clear does not look at the source depth.
    let clear = d.op == DepthOp::Clear;
    // Row by row: each run of neighbouring pixels of a row (up to 32) is tested at once
    // (`DepthAccess::row`), in order.
    let mut i = 0;
    while i < pixels.len() {
        let (x, y) = pixels[i];
        let mut n = 1;
        while n < 32 && i + n < pixels.len() && pixels[i + n] == (x + n as u32, y) {
            n += 1;
        }
        let mut zs = [0f32; 32];
        if !clear {
            for (j, z) in zs.iter_mut().enumerate().take(n) {
                *z = source_depth(st, prim, x + j as u32, y);
            }
        }
        // `gtsim inspect --pixel`: the watched position's test, with what it compares.
        let watched = gtsim_dataport::probe::watched()
            .filter(|w| !clear && w.y == y && w.x >= x && w.x - x < n as u32);
        let stored = watched.map(|w| access.stored(&*mem, w.x, w.y));
        let (pass, error) = access.row(mem, (x, y), &zs[..n], prim.back_facing);
        if let (Some(w), Some((depth, stencil))) = (watched, stored) {
            let j = (w.x - x) as usize;
            gtsim_dataport::probe::record(gtsim_dataport::probe::Event::EarlyDepth {
                source: zs[j],
                stored: depth,
                stencil,
                passed: pass & (1 << j) != 0,
            });
        }
        for (j, &p) in pixels[i..i + n].iter().enumerate() {
            if pass & (1 << j) != 0 {
                passed.push(p);
            }
        }
        if let Some(e) = error {
            return (passed, Some(DrawError::from_depth_buffer(e)));
        }
        i += n;
    }
    (passed, None)
}

/// Pixel positions, borrowed from a primitive or found by a test.
type Pixels<'p> = Cow<'p, [(u32, u32)]>;

/// A subspan: (y / 2, x / 2) of its upper-left pixel, and its lit-pixel mask.
type Subspan = ((u32, u32), u32);

/// The 2x2-aligned subspans `pixels` light, in raster order ((y/2, x/2) ascending), each
/// with its lit-pixel mask (bit `(x & 1) + 2 * (y & 1)`). Pixels in raster order (how
/// the rasterizer gives them) are grouped in one pass, merging each pair of rows; any
/// other order is sorted first.
fn subspans(pixels: &[(u32, u32)]) -> Vec<((u32, u32), u32)> {
    let bit = |(x, y): (u32, u32)| 1u32 << ((x & 1) + 2 * (y & 1));
    let mut out: Vec<((u32, u32), u32)> = Vec::with_capacity(pixels.len() / 2 + 1);
    if !pixels.is_sorted_by_key(|&(x, y)| (y, x)) {
        let mut keyed: Vec<((u32, u32), u32)> = pixels
            .iter()
            .map(|&p| ((p.1 / 2, p.0 / 2), bit(p)))
            .collect();
        keyed.sort_unstable_by_key(|e| e.0);
        for (key, b) in keyed {
            match out.last_mut() {
                Some(last) if last.0 == key => last.1 |= b,
                _ => out.push((key, b)),
            }
        }
        return out;
    }
    let mut rest = pixels;
    // Per row pair, the lit-pixel masks of its subspans by x / 2 from the leftmost.
    let mut masks: Vec<u32> = vec![];
    while let Some(&(_, y0)) = rest.first() {
        // The pixels of one row pair: the even row (if any), then the odd one, each in
        // x order.
        let sy = y0 / 2;
        let pair = rest.partition_point(|&(_, y)| y / 2 == sy);
        let (rows, tail) = rest.split_at(pair);
        rest = tail;
        let split = rows.partition_point(|&(_, y)| y == rows[0].1);
        let (a, c) = (&rows[..split], &rows[split..]);
        let ends = |r: &[(u32, u32)]| r.first().zip(r.last()).map(|(f, l)| (f.0 / 2, l.0 / 2));
        let (lo, hi) = match (ends(a), ends(c)) {
            (Some((a0, a1)), Some((c0, c1))) => (a0.min(c0), a1.max(c1)),
            (Some(e), None) | (None, Some(e)) => e,
            (None, None) => continue,
        };
        let width = (hi - lo) as usize + 1;
        if width <= 2 * rows.len() + 64 {
            // Dense (every rasterized row is a run or two): the masks in an array.
            masks.clear();
            masks.resize(width, 0);
            for &p in rows {
                masks[(p.0 / 2 - lo) as usize] |= bit(p);
            }
            out.extend(
                masks
                    .iter()
                    .enumerate()
                    .filter(|&(_, &m)| m != 0)
                    .map(|(i, &m)| ((sy, lo + i as u32), m)),
            );
            continue;
        }
        // Sparse: merge the two rows by x / 2.
        let (mut a, mut c) = (a, c);
        loop {
            let next = match (a.first(), c.first()) {
                (Some(&p), Some(&q)) if p.0 / 2 <= q.0 / 2 => {
                    a = &a[1..];
                    p
                }
                (_, Some(&q)) => {
                    c = &c[1..];
                    q
                }
                (Some(&p), None) => {
                    a = &a[1..];
                    p
                }
                (None, None) => break,
            };
            let key = (sy, next.0 / 2);
            match out.last_mut() {
                Some(last) if last.0 == key => last.1 |= bit(next),
                _ => out.push((key, bit(next))),
            }
        }
    }
    out
}

/// A failed PS thread of kernel `k` as the draw reports it.
fn ps_failed(k: &PsKernel) -> impl Fn(ExecError) -> DrawError + '_ {
    move |error| DrawError::Thread {
        stage: "PS",
        kernel: k.addr,
        error,
    }
}

/// What every PS thread of one primitive shares.
struct ThreadContext<'a> {
    st: &'a DrawState,
    front: &'a dyn Front,
    prim: &'a Primitive<'a>,
    kernel: &'a PsKernel,
    setup: &'a [[[f32; 3]; 4]],
    /// The depth buffer when depth is tested after the shader.
    late: Option<&'a DepthBuffer>,
    mode: RtMode,
    /// The recorded messages of threads that are all alike (`replay`).
    replays: Replays,
    /// For dispatch per coarse pixel, the primitive's coarse pixels (the groups' subspans
    /// are then quads of coarse pixels, in coarse pixel coordinates).
    coarse: Option<&'a CoarseMap>,
}

/// The object's Render Target Array Index (seed 004 §1.8.1 VUE header DWord 1, "routed into the
/// PS thread payload" from its provoking vertex; R0.0 26:16), or 0 when 3DSTATE_CLIP's
/// Force Zero RTA Index Enable is set. 11 bits; the data port clamps it to the surface.
/// The depth and stencil buffers take the same index (`DepthBuffer::access_at`).
pub(super) fn rt_array_index(st: &DrawState, prim: &Primitive<'_>) -> u32 {
    if st.clip.force_zero_rta_index {
        0
    } else {
        prim.provoking_vue.first().map_or(0, |h| h[1] & 0x7ff)
    }
}

/// The pixel of each slot of a thread for `group` (up to SIMD/4 subspans with their lit
/// pixels), the slots lit, and its dispatch mask (4 slots per subspan).
fn slots_of(group: &[Subspan]) -> ([(u32, u32); 32], u32, u32) {
    let mut slots = [(0u32, 0u32); 32];
    let mut lit = 0u32;
    for (i, &((sy, sx), mask)) in group.iter().enumerate() {
        for p in 0..4 {
            slots[i * 4 + p] = (sx * 2 + (p as u32 & 1), sy * 2 + (p as u32 >> 1));
        }
        lit |= mask << (i * 4);
    }
    (slots, lit, dispatch_of(group))
}

/// The dispatch mask of a thread for `group`: four slots per subspan.
fn dispatch_of(group: &[Subspan]) -> u32 {
    match group.len() {
        n @ 0..8 => (1u32 << (4 * n)) - 1,
        _ => u32::MAX,
    }
}

impl ThreadContext<'_> {
    /// The slots of a thread for `group`: each slot's pixel (for dispatch per coarse
    /// pixel, its coarse pixel's upper-left pixel), the slots lit, the dispatch mask, and
    /// for dispatch per coarse pixel the pixels each slot's writes reach.
    fn slots(&self, group: &[Subspan]) -> ([(u32, u32); 32], u32, u32, Option<CoarseWrites>) {
        let (slots, lit, dispatch) = slots_of(group);
        match self.coarse {
            None => (slots, lit, dispatch, None),
            Some(map) => {
                let (pixels, writes) = map.writes(&slots, lit);
                (pixels, lit, dispatch, Some(writes))
            }
        }
    }

    /// The shared functions of a thread whose slots are at `slots`, `lit` of them lit.
    fn router<'b>(
        &'b self,
        mem: &'b mut dyn Memory,
        targets: &'b mut RenderTargets,
        (slots, lit, coarse): ([(u32, u32); 32], u32, Option<CoarseWrites>),
        ms: Option<&'b MsThread>,
    ) -> Router<'b> {
        let (st, prim) = (self.st, self.prim);
        Router {
            slm: None,
            interpolator: Some(Interpolation {
                st,
                prim,
                slots,
                ms,
            }),
            front: self.front,
            stage: ShaderStage::Pixel,
            mem,
            urb: None,
            vertex_counts: None,
            barrier: None,
            pixels: Some(PixelWrites {
                targets,
                slots,
                lit,
                visible: 0,
                late: self.late.map(|depth| LateDepth {
                    depth: depth.access_at(rt_array_index(st, prim)),
                    z: slots.map(|(x, y)| source_depth(st, prim, x, y)),
                    back_facing: prim.back_facing,
                    computed: st.ps.computes_depth,
                    tested: 0,
                    passed: 0,
                    coarse_z: coarse.map(|c| {
                        let w = c.size.0;
                        let mut zs = Box::new([[0f32; 16]; 32]);
                        for (s, z) in zs.iter_mut().enumerate() {
                            let (x, y) = slots[s];
                            for (b, z) in z.iter_mut().enumerate() {
                                if c.pixels[s] & (1 << b) != 0 {
                                    let b = b as u32;
                                    *z = source_depth(st, prim, x + b % w, y + b / w);
                                }
                            }
                        }
                        zs
                    }),
                }),
                mode: self.mode,
                computes_depth: st.ps.computes_depth,
                computes_stencil: st.ps.computes_stencil,
                rt_array_index: rt_array_index(st, prim),
                omask: st.ps.omask,
                samples: ms.map(|m| m.writes(st, prim, &slots)),
                aa_alpha: prim.aa_line.map(|l| {
                    let bias = pixel_bias(st);
                    slots.map(|(x, y)| l.coverage([x as f32 + bias, y as f32 + bias]))
                }),
                coarse,
            }),
        }
    }

    /// The recording a thread for `group` replays with `budget` instructions, if there
    /// is one (see `replay`).
    fn recording(&self, group: &[Subspan], budget: u64) -> Option<Arc<Recording>> {
        // (While a pixel is watched every thread runs, so that the probe sees it.)
        self.replays
            .get(dispatch_of(group))
            .filter(|r| r.executed <= budget)
            .filter(|_| gtsim_dataport::probe::watched().is_none())
    }

    /// A thread for `group` that replays `rec`: its messages sent through the thread's
    /// own router; how it ended and the pixels its last render target write made
    /// visible.
    fn replay(
        &self,
        rec: &Recording,
        mem: &mut dyn Memory,
        targets: &mut RenderTargets,
        group: &[Subspan],
    ) -> (Result<u64, ExecError>, u32) {
        let (slots, lit, _, coarse) = self.slots(group);
        let mut sf = self.router(mem, targets, (slots, lit, coarse), None);
        let mut result = Ok(rec.executed);
        for m in &rec.messages {
            if let Err(error) = sf.send(m) {
                result = Err(ExecError::SharedFunction { ip: m.ip, error });
                break;
            }
        }
        super::replay::count(true);
        let early = self.st.ps.early_depth_forced;
        let visible = sf.pixels.map_or(0, |p| {
            let v = if early { lit } else { p.visible };
            p.coarse.map_or(v.count_ones(), |c| c.count(v))
        });
        (result, visible)
    }

    /// Threads for `groups`, in order, that all replay `rec`, at once: when `rec` is a
    /// single render target write, without a depth test after the shader, that
    /// [`write_alike`] can carry out for all of them. The pixels each made visible, or
    /// `None` (nothing done) when they replay one by one.
    fn replay_alike(
        &self,
        rec: &Recording,
        mem: &mut dyn Memory,
        targets: &mut RenderTargets,
        groups: &[&[Subspan]],
    ) -> Option<Vec<u32>> {
        let [m] = rec.messages.as_slice() else {
            return None;
        };
        // (While a pixel is watched, each thread's writes go through the general path,
        // which tells the probe.)
        if self.late.is_some()
            || self.mode != RtMode::Write
            || self.prim.aa_line.is_some()
            || self.coarse.is_some()
            || gtsim_dataport::probe::watched().is_some()
        {
            return None;
        }
        let front = self.front;
        let MessageKind::RenderTargetWrite(rt) = front.message(m) else {
            return None;
        };
        let threads: Vec<AlikeThread> = groups
            .iter()
            .map(|g| {
                let (slots, lit, _) = slots_of(g);
                AlikeThread { slots, lit }
            })
            .collect();
        write_alike(
            targets,
            (
                self.st.ps.computes_depth,
                rt_array_index(self.st, self.prim),
            ),
            mem,
            &rt,
            &m.payload,
            &|mem, bti, rti| super::resolve_target(front, mem, bti, rti),
            &threads,
        )
    }

    /// Dispatches one PS thread for `group` (up to SIMD/4 subspans with their lit
    /// pixels; for a multisampled draw, `ms` says which samples its slots stand for) and
    /// runs it with `budget` instructions against `mem`; returns how it ended and how
    /// many pixels (samples, when multisampled) its last render target write made
    /// visible.
    fn run(
        &self,
        mem: &mut dyn Memory,
        targets: &mut RenderTargets,
        group: &[((u32, u32), u32)],
        budget: u64,
        ms: Option<&MsThread>,
    ) -> Result<(Result<u64, ExecError>, u32), DrawError> {
        // A thread like one that ran: its messages, replayed (see `replay`).
        if let Some(r) = self.recording(group, budget).filter(|_| ms.is_none()) {
            return Ok(self.replay(&r, mem, targets, group));
        }
        super::replay::count(false);
        let (st, prim, k) = (self.st, self.prim, self.kernel);
        let (slots, lit, dispatch, coarse) = self.slots(group);
        // `gtsim inspect --pixel X,Y --trace`: the lane standing for the watched
        // position (its own slot, or the slot of the coarse pixel holding it).
        let traced = gtsim_dataport::probe::watched()
            .filter(|w| w.trace && ms.is_none())
            .and_then(|w| {
                (0..32).find(|&s| {
                    lit & (1 << s) != 0
                        && gtsim_dataport::rt_path::coarse_bit(&coarse, slots[s], s, (w.x, w.y))
                            .is_some()
                })
            });
        let mut sf = self.router(mem, targets, (slots, lit, coarse), ms);
        let mut t = super::spare::thread(k.simd as u8, &k.prog);
        t.dispatch_mask = dispatch;
        t.fp_mode = if st.ps.alt_float_mode {
            FpMode::Alt
        } else {
            FpMode::Ieee
        };
        t.write_payload(|grf| {
            match build_payload(st, prim, k, (&slots, group, lit), ms, self.setup, grf) {
                Ok(regs) => (Ok(()), regs),
                Err(e) => (Err(e), 128),
            }
        })?;
        let result = if let Some(lane) = traced {
            let mut steps = vec![];
            let r = t.run_traced(
                &k.prog,
                &mut sf,
                budget,
                lane..lane + 1,
                TRACE_LIMIT,
                &mut steps,
            );
            gtsim_dataport::probe::record(gtsim_dataport::probe::Event::LaneTrace {
                stage: "pixel shader",
                lane,
                width: 1,
                simd: k.simd,
                lines: steps.iter().map(trace_line).collect(),
            });
            r
        } else if ms.is_none() && self.replays.wanted(dispatch) {
            let mut rec = Recorder::new(&mut sf);
            let result = t.run_program(&k.prog, &mut rec, budget);
            if let (Ok(executed), Some(messages)) = (&result, rec.messages()) {
                let executed = *executed;
                self.replays
                    .keep(dispatch, Recording { messages, executed });
            }
            result
        } else {
            t.run_program(&k.prog, &mut sf, budget)
        };
        // Under EDSC_PREPS the depth test is the early one: every pixel that passed it
        // counts, whatever the PS then discards (seed 004 §1.9 PS_DEPTH_COUNT counts
        // the pixels passing the depth test; OpenGL's early_fragment_tests agrees).
        let counted = |p: &PixelWrites| {
            if st.ps.early_depth_forced {
                lit
            } else {
                p.visible
            }
        };
        let visible = sf.pixels.map_or(0, |p| match (&p.samples, &p.coarse) {
            (Some(m), _) => m.visible_samples(counted(&p)),
            (None, Some(c)) => c.count(counted(&p)),
            (None, None) => counted(&p).count_ones(),
        });
        super::spare::keep(t);
        Ok((result, visible))
    }
}

/// The dispatch width to prefer when a pixel shader has several (`GTSIM_PS_DISPATCH` =
/// 8, 16 or 32): a testing knob, since the choice is the hardware's.
fn dispatch_preference() -> Option<usize> {
    static PREF: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *PREF.get_or_init(|| {
        std::env::var("GTSIM_PS_DISPATCH")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|w| [8, 16, 32].contains(w))
    })
}

/// Slot `s`'s input coverage mask (R32-R33): the samples its pixel covers (`ms`: a
/// multisampled thread's; single-sampled, 3DSTATE_SAMPLE_MASK's sample 0), or with
/// `post_depth` (ICMS_DEPTH_COVERAGE) those the early depth and stencil tests left:
/// the thread's surviving samples, or sample 0 when the slot is lit (`lit`).
fn input_coverage(
    post_depth: bool,
    sample_mask: u32,
    ms: Option<&MsThread>,
    lit: u32,
    s: usize,
) -> u32 {
    match ms {
        Some(m) if post_depth => u32::from(m.masks[s]),
        Some(m) => u32::from(m.coverage[s]),
        None if post_depth => sample_mask & (lit >> s) & 1,
        None => sample_mask & 1,
    }
}

/// The depth buffer `d` with the value a clear by `prim` writes: a clear whose value is
/// not given (3DSTATE_CLEAR_PARAMS Depth Clear Value Valid clear) takes "interpolated
/// depth of an arbitrary pixel of the primitive" (seed 004 3DSTATE_CLEAR_PARAMS); the
/// model's arbitrary pixel is the primitive's first in raster order, so that every pixel
/// of the clear gets one value. Anything else is `d` as it is.
fn clear_of<'d>(st: &DrawState, prim: &Primitive, d: &'d DepthBuffer) -> Cow<'d, DepthBuffer> {
    match (d.op, d.clear_value, prim.pixels.first()) {
        (DepthOp::Clear, None, Some(&(x, y))) => Cow::Owned(DepthBuffer {
            clear_value: Some(d.format.encode(source_depth(st, prim, x, y))),
            ..d.clone()
        }),
        _ => Cow::Borrowed(d),
    }
}

/// The WM's source depth at pixel (x, y): screen-linear across the primitive (seed 004
/// §11.6).
///
/// A triangle's screen-linear barycentrics need no w ([`crate::bary::linear`]), so a
/// degenerate perspective (w sums of 0) still interpolates depth.
fn source_depth(st: &DrawState, prim: &Primitive, x: u32, y: u32) -> f32 {
    let bias = pixel_bias(st);
    source_depth_at(prim, [x as f32 + bias, y as f32 + bias])
}

/// The WM's source depth at screen position `p` ([`source_depth`] at any position: a
/// sample's, for multisampling).
fn source_depth_at(prim: &Primitive, p: [f32; 2]) -> f32 {
    let c = &prim.corners;
    let z = [0, 1, 2].map(|i| c[corner(c.len(), i)].z);
    let linear = if c.len() >= 3 && prim.point.is_none() {
        crate::bary::linear([c[0].xy, c[1].xy, c[2].xy], p)
    } else {
        prim_barycentrics(prim, p).map(|b| b.linear)
    };
    linear.map_or(z[0], |l| z[0] + l[0] * (z[1] - z[0]) + l[1] * (z[2] - z[0]))
}

/// The corner standing for vertex `i` (0..3) of the setup formulas: a line's two ends
/// give a0 = A(v0), a1 = A(v1) - A(v0) and a2 = 0; a point's one vertex gives a0.
fn corner(n: usize, i: usize) -> usize {
    match n {
        0 | 1 => 0,
        2 => [0, 1, 0][i.min(2)],
        _ => i.min(2),
    }
}

/// The barycentrics (b1, b2) of position `p` in a primitive: a triangle's areal
/// coordinates (seed 004 §11.6); for a line, b1 is the position of `p`'s projection
/// along it (0 at v0, 1 at v1, perspective-corrected with the ends' w) and b2 is 0.
fn prim_barycentrics(prim: &Primitive, p: [f32; 2]) -> Option<crate::bary::Barycentrics> {
    let c = &prim.corners;
    if let Some((ul, size)) = prim.point {
        // A point: b1, b2 run from 0 at its left (top) edge to 1 at its right (bottom)
        // edge; only point sprite coordinates use them.
        let b = [(p[0] - ul[0]) / size, (p[1] - ul[1]) / size];
        return Some(crate::bary::Barycentrics {
            perspective: b,
            linear: b,
        });
    }
    match c.len() {
        2 => {
            let (a, b) = (c[0].xy, c[1].xy);
            let d = [(b[0] - a[0]) as f64, (b[1] - a[1]) as f64];
            let len2 = d[0] * d[0] + d[1] * d[1];
            if len2 == 0.0 {
                return None;
            }
            let t = ((p[0] - a[0]) as f64 * d[0] + (p[1] - a[1]) as f64 * d[1]) / len2;
            let (q0, q1) = ((1.0 - t) * c[0].rhw as f64, t * c[1].rhw as f64);
            let tp = if q0 + q1 == 0.0 { t } else { q1 / (q0 + q1) };
            Some(crate::bary::Barycentrics {
                perspective: [tp as f32, 0.0],
                linear: [t as f32, 0.0],
            })
        }
        n if n >= 3 => barycentrics(
            [c[0].xy, c[1].xy, c[2].xy],
            [1.0 / c[0].rhw, 1.0 / c[1].rhw, 1.0 / c[2].rhw],
            p,
        ),
        _ => None,
    }
}

/// The barycentrics the pixel shader interpolates attributes with, given the primitive's
/// own `b`: those, or for a clipped piece those of the source triangle, composed from
/// the piece's (perspective ones through the corners' clip-space coordinates, linear
/// ones through their screen-space ones; both compositions are exact).
fn attribute_barycentrics(
    prim: &Primitive,
    b: Option<crate::bary::Barycentrics>,
) -> Option<crate::bary::Barycentrics> {
    let b = b?;
    let Some(src) = &prim.source else {
        return Some(b);
    };
    let compose = |b: [f32; 2], corners: &[[f32; 3]; 3]| -> [f32; 2] {
        let w = [1.0 - b[0] - b[1], b[0], b[1]];
        std::array::from_fn(|k| (0..3).map(|i| w[i] * corners[i][k + 1]).sum())
    };
    Some(crate::bary::Barycentrics {
        perspective: compose(b.perspective, &src.perspective),
        linear: compose(b.linear, &src.linear),
    })
}

/// Where a pixel is sampled: its centre (PIXLOC_CENTER) or its upper-left corner
/// (3DSTATE_MULTISAMPLE Pixel Location; seed 004 §10.3.3).
fn pixel_bias(st: &DrawState) -> f32 {
    if st.multisample.pixel_center {
        0.5
    } else {
        0.0
    }
}

fn f32s(v: u32) -> f32 {
    f32::from_bits(v)
}

/// The setup data: per SF output attribute, per component, (a0, a1, a2), stored in the
/// payload as [a1, a2, reserved, a0] (seed 004
/// §11.10.3 "Setup Data", §11.6; 3DSTATE_SBE selects the VUE slots).
fn attribute_deltas(st: &DrawState, prim: &Primitive) -> Result<Vec<[[f32; 3]; 4]>, DrawError> {
    attribute_setup_data(&st.attributes, prim)
}

/// [`attribute_deltas`] from the draw's 3DSTATE_SBE alone.
fn attribute_setup_data(
    sbe: &crate::state::AttributeSetup,
    prim: &Primitive,
) -> Result<Vec<[[f32; 3]; 4]>, DrawError> {
    let n = sbe.count;
    let first = sbe.first_slot;
    if sbe.swizzles.is_some() && sbe.swizzles_upper {
        return Err(unsupported(
            "3DSTATE_SBE Attribute Swizzle Control Mode SWIZ_16_31",
            "seed 004 §10.3.14",
        ));
    }
    // Seed 004 §10.3.14 3DSTATE_SBE Number of SF Output Attributes: range [0, 32] (the
    // field has 6 bits; the per-attribute masks, such as Constant Interpolation Enable,
    // have 32).
    if n > 32 {
        return Err(DrawError::State {
            command: "3DSTATE_SBE",
            why: format!("Number of SF Output Attributes is {n}; at most 32 are allowed"),
        });
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let mut slot = first + i;
        let mut overrides = [false; 4];
        let mut constant = [0.0f32; 4];
        if let Some(d) = sbe.swizzles.as_ref().and_then(|s| s.get(i)) {
            slot = first + d.source;
            match d.select {
                SwizzleSelect::Input => {}
                SwizzleSelect::InputFacing if prim.back_facing => slot += 1,
                SwizzleSelect::InputFacing => {}
                SwizzleSelect::Other(name) => {
                    return Err(unsupported(
                        format!("3DSTATE_SBE Swizzle Select {name}"),
                        "seed 004 §10.3.14",
                    ));
                }
            }
            overrides = d.overrides;
            constant = match d.constant {
                ConstantSource::Zero => [0.0, 0.0, 0.0, 0.0],
                ConstantSource::ZeroOne => [0.0, 0.0, 0.0, 1.0],
                ConstantSource::One => [1.0; 4],
                // "Constant.xyzw = PrimID (replicated)": the 32-bit ID as it is, which
                // a shader reads as an integer.
                ConstantSource::PrimitiveId => [f32::from_bits(prim.primitive_id); 4],
            };
        }
        if prim.point.is_some() && sbe.point_sprite & (1 << i) != 0 {
            // §10.4.3: the point's corners take full-scale coordinates; with the point's
            // barycentrics (b1, b2) running 0 to 1 left to right and top to bottom, s =
            // b1 and t = b2 (UPPERLEFT) or 1 - b2 (LOWERLEFT); (s, t, 0, 1).
            let lower_left = sbe.point_sprite_lower_left;
            out.push([
                [0.0, 1.0, 0.0],
                if lower_left {
                    [1.0, 0.0, -1.0]
                } else {
                    [0.0, 0.0, 1.0]
                },
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
            ]);
            continue;
        }
        // Seed 003 3DSTATE_SBE_BODY Primitive ID Override: the selected attribute's
        // components take the primitive ID (its 32 bits, read as an integer), after the
        // swizzle's own overrides.
        if let Some((a, components)) = sbe.primitive_id_override
            && a == i
        {
            for c in 0..4 {
                if components[c] {
                    overrides[c] = true;
                    constant[c] = f32::from_bits(prim.primitive_id);
                }
            }
        }
        let flat = sbe.flat & (1 << i) != 0 || prim.corners.len() < 2;
        let mut comps = [[0.0f32; 3]; 4];
        for (c, comp) in comps.iter_mut().enumerate() {
            if overrides[c] {
                *comp = [constant[c], 0.0, 0.0];
                continue;
            }
            let val = |k: usize| {
                let vue = match &prim.source {
                    Some(src) => src.vues[k],
                    None => prim.corners[corner(prim.corners.len(), k)].vue,
                };
                f32s(vue.get(slot).copied().unwrap_or([0; 4])[c])
            };
            *comp = if flat {
                let v = f32s(prim.provoking_vue.get(slot).copied().unwrap_or([0; 4])[c]);
                attribute_setup([v; 3], Some(0))
            } else {
                attribute_setup([val(0), val(1), val(2)], None)
            };
        }
        out.push(comps);
    }
    Ok(out)
}

/// The source depth's plane over the screen: its x and y coefficients, the point it
/// starts from (vertex 0) and the depth there. A triangle's depth is screen-linear
/// (seed 004 §11.6); along a line it changes with the position's projection on it; a
/// point's is constant.
fn depth_plane(prim: &Primitive) -> (f32, f32, (f32, f32), f32) {
    let c = &prim.corners;
    let (p0, z0) = (c[0].xy, c[0].z);
    let (cx, cy) = match c.len() {
        n if n >= 3 && prim.point.is_none() => {
            let (d1, d2) = (
                [c[1].xy[0] - p0[0], c[1].xy[1] - p0[1]],
                [c[2].xy[0] - p0[0], c[2].xy[1] - p0[1]],
            );
            let (z1, z2) = (c[1].z - z0, c[2].z - z0);
            let det = d1[0] * d2[1] - d2[0] * d1[1];
            if det == 0.0 {
                (0.0, 0.0)
            } else {
                (
                    (z1 * d2[1] - z2 * d1[1]) / det,
                    (z2 * d1[0] - z1 * d2[0]) / det,
                )
            }
        }
        2 => {
            let d = [c[1].xy[0] - p0[0], c[1].xy[1] - p0[1]];
            let len2 = d[0] * d[0] + d[1] * d[1];
            if len2 == 0.0 {
                (0.0, 0.0)
            } else {
                let dz = c[1].z - z0;
                (dz * d[0] / len2, dz * d[1] / len2)
            }
        }
        _ => (0.0, 0.0),
    };
    (cx, cy, (p0[0], p0[1]), z0)
}

/// Fills the PS thread payload (seed 004 §11.10.3.1); the number of registers from g0 on
/// it wrote.
#[allow(
    clippy::too_many_arguments,
    reason = "the payload's inputs, each used once"
)]
fn build_payload(
    st: &DrawState,
    prim: &Primitive,
    k: &PsKernel,
    (slots, group, lit): (&[(u32, u32); 32], &[Subspan], u32),
    ms: Option<&MsThread>,
    setup: &[[[f32; 3]; 4]],
    grf: &mut [u8],
) -> Result<usize, DrawError> {
    let put = super::put_dword;
    // The header, where the generation's layout puts it: topology, facing, source depth,
    // sampler and binding table pointers, then per block of 16 pixels the subspans'
    // upper-left corners and the pixel and dispatch masks.
    let l = st.payload;
    l.topology.put(grf, st.rasterized_topology().0);
    l.back_facing.put(grf, u32::from(prim.back_facing));
    l.rt_array_index.put(grf, rt_array_index(st, prim));
    l.source_depth_to_rt
        .put(grf, u32::from(st.ps.computes_depth));
    l.omask_to_rt.put(grf, u32::from(st.ps.omask));
    l.starting_sample_pair
        .put(grf, ms.map_or(0, |m| m.starting_sample_pair));
    l.pointers
        .sampler_state
        .put(grf, (st.ps.resources.sampler_state >> 5) as u32);
    l.pointers
        .binding_table
        .put(grf, (st.ps.resources.binding_table >> 5) as u32);
    super::put_scratch(&l.pointers, grf, &st.ps.scratch, 0);
    let blocks = (k.simd / 16).max(1);
    // Dispatch per coarse pixel: subspans are quads of coarse pixels, placed at their
    // upper-left pixel, and the payload says the coarse pixel size (seed 003
    // 3DSTATE_PS_EXTRA: "Actual coarse pixel shading rate is always delivered").
    let (cw, ch) = st.ps.coarse.map_or((1, 1), |c| c.size);
    if st.ps.coarse.is_some() {
        l.coarse_size.put(grf, cw | ch << 8);
    }
    for (i, &((sy, sx), _)) in group.iter().enumerate() {
        l.subspan_x.offset(i / 4, i % 4).put(grf, sx * 2 * cw);
        l.subspan_y.offset(i / 4, i % 4).put(grf, sy * 2 * ch);
    }
    for blk in 0..blocks {
        let m = (lit >> (16 * blk)) & 0xffff;
        l.pixel_mask.offset(blk, 0).put(grf, m);
        l.dispatch_mask.offset(blk, 0).put(grf, m);
        // A per-sample dispatch's sample per subspan (slot group), where the layout
        // has them.
        if let Some(m) = ms.filter(|_| st.multisample.per_sample) {
            let ids = (0..4).fold(0u32, |v, g| {
                v | (u32::from(m.sample[blk * 16 + g * 4]) & 15) << (4 * g)
            });
            l.sample_ids.offset(blk, 0).put(grf, ids);
        }
    }
    let mut reg = 1 + blocks;
    let simd = k.simd;
    let c = &prim.corners;
    let modes = st.ps.barycentric_modes;
    // Where each slot is evaluated (§11.6): at the pixel location, its centroid or its
    // sample ([`Location`]); one sample per pixel makes them all the pixel location.
    let at_location = |s: usize, kind: Location| -> [f32; 2] {
        match ms {
            Some(m) => m.position(st, prim, slots[s], s, kind),
            None => {
                // A coarse pixel is evaluated at its centre: the mean of its pixels'
                // locations (see `coarse`); a pixel at its location.
                let bias = pixel_bias(st);
                let centre = |v: u32, n: u32| v as f32 + (n - 1) as f32 / 2.0 + bias;
                [centre(slots[s].0, cw), centre(slots[s].1, ch)]
            }
        }
    };
    // Source depth and W are the slot's: its sample's under per-sample dispatch.
    let own = if ms.is_some() && st.multisample.per_sample {
        Location::Sample
    } else {
        Location::Pixel
    };
    // Per location and slot, the barycentrics, when a phase of the payload needs them
    // (a location no phase needs is not even cleared: this runs once per thread).
    let mut bary = [None, None, None];
    let mut attr_bary = [None, None, None];
    for kind in [Location::Pixel, Location::Centroid, Location::Sample] {
        let i = kind as usize;
        let wanted =
            modes & (0b1001 << i) != 0 || (kind == own && (st.ps.source_depth || st.ps.source_w));
        if !wanted {
            continue;
        }
        let (b, a) = (bary[i].insert([None; 32]), attr_bary[i].insert([None; 32]));
        for s in 0..simd {
            b[s] = prim_barycentrics(prim, at_location(s, kind));
            a[s] = attribute_barycentrics(prim, b[s]);
        }
    }
    type Slots = [Option<crate::bary::Barycentrics>; 32];
    let at = |table: &[Option<Slots>; 3], kind: usize, s: usize| {
        table[kind].as_ref().and_then(|slots| slots[s])
    };
    let lerp = |s: usize, v: [f32; 3]| {
        at(&bary, own as usize, s).map_or(v[0], |bc: crate::bary::Barycentrics| {
            v[0] + bc.linear[0] * (v[1] - v[0]) + bc.linear[1] * (v[2] - v[0])
        })
    };
    let corner3 = |f: &dyn Fn(&Corner) -> f32| [0, 1, 2].map(|i| f(&c[corner(c.len(), i)]));
    let (z, rhw) = (corner3(&|k| k.z), corner3(&|k| k.rhw));
    // The optional phases for slots 0-15, then (32-pixel dispatch) the same phases for
    // slots 16-31, each phase one register per 8 slots (§11.10.3.1, renumbered); the
    // position offsets take one register per 16 slots.
    for blk in 0..blocks {
        let first = blk * 16;
        let halves = (simd - first).min(16) / 8;
        for m in 0..6 {
            if modes & (1 << m) == 0 {
                continue;
            }
            let perspective = m < 3;
            let kind = m % 3;
            for h in 0..halves {
                for b in 0..2 {
                    for s in 0..8 {
                        let v = at(&attr_bary, kind, first + h * 8 + s).map_or(0.0, |bc| {
                            if perspective {
                                bc.perspective[b]
                            } else {
                                bc.linear[b]
                            }
                        });
                        put(grf, reg, s, v.to_bits());
                    }
                    reg += 1;
                }
            }
        }
        // One register per 8 slots of the block, a dword per slot.
        let phase = |grf: &mut [u8], reg: &mut usize, vals: &dyn Fn(usize) -> u32| {
            for h in 0..halves {
                for s in 0..8 {
                    put(grf, *reg, s, vals(first + h * 8 + s));
                }
                *reg += 1;
            }
        };
        if st.ps.source_depth {
            phase(grf, &mut reg, &|s| lerp(s, z).to_bits());
        }
        if st.ps.source_w {
            phase(grf, &mut reg, &|s| (1.0 / lerp(s, rhw)).to_bits());
        }
        // R31: per slot the CENTROID or SAMPLE position offset from the pixel's
        // upper-left corner, U4.4 (X in bits 7:0, Y in 15:8), two slots per dword.
        let offset_kind = match st.ps.position_offset {
            PositionOffset::None => None,
            PositionOffset::Centroid => Some(Location::Centroid),
            PositionOffset::Sample => Some(Location::Sample),
        };
        if let Some(kind) = offset_kind {
            for d in 0..8 {
                let mut v = 0u32;
                for half in 0..2 {
                    let s = first + d * 2 + half;
                    if s >= simd {
                        continue;
                    }
                    let p = at_location(s, kind);
                    let u44 = |pos: f32, px: u32| {
                        ((pos - px as f32) * 16.0).round().clamp(0.0, 255.0) as u32
                    };
                    let xy = u44(p[0], slots[s].0) | u44(p[1], slots[s].1) << 8;
                    v |= xy << (16 * half);
                }
                put(grf, reg, d, v);
            }
            reg += 1;
        }
        // R32-R33: per slot its input coverage mask (bit n: sample n covered). With
        // ICMS_DEPTH_COVERAGE, the samples the early depth and stencil tests left: a
        // multisampled slot's surviving samples, a single-sampled slot's one sample if
        // its pixel is lit (a helper pixel's is 0).
        if st.ps.input_coverage {
            let all = u32::from(st.multisample.sample_mask);
            let post_depth = st.ps.input_coverage_post_depth;
            phase(grf, &mut reg, &|s| {
                input_coverage(post_depth, all, ms, lit, s)
            });
        }
    }
    // Dispatch per coarse pixel: the source depth's plane, one register after the
    // per-slot phases (see `coarse`).
    if st.ps.coarse.is_some_and(|c| c.depth_w_coefficients) {
        let (cx, cy, (x0, y0), z0) = depth_plane(prim);
        put(grf, reg, 0, cy.to_bits());
        put(grf, reg, 1, cx.to_bits());
        put(grf, reg, 2, x0.to_bits());
        put(grf, reg, 3, z0.to_bits());
        for d in [4, 5, 7] {
            put(grf, reg, d, 0);
        }
        put(grf, reg, 6, y0.to_bits());
        reg += 1;
    }
    let mut at = k.grf_start;
    if reg > at {
        return Err(DrawError::State {
            command: "3DSTATE_PS",
            why: format!(
                "Dispatch GRF Start Register for Constant/Setup Data is g{at}, but the payload header takes g0-g{}",
                reg - 1
            ),
        });
    }
    if st.ps.push_constants {
        if at + st.ps.resources.constants.len() > 128 {
            return Err(DrawError::State {
                command: "3DSTATE_CONSTANT_PS",
                why: format!(
                    "{} push constant registers from g{at} leave the GRF",
                    st.ps.resources.constants.len()
                ),
            });
        }
        for r in &st.ps.resources.constants {
            grf[at * 32..at * 32 + 32].copy_from_slice(r);
            at += 1;
        }
    }
    if st.ps.attributes {
        if at + setup.len() * 2 > 128 {
            return Err(DrawError::State {
                command: "3DSTATE_SBE",
                why: "the setup data does not fit in the GRF".into(),
            });
        }
        for comps in setup {
            for (ci, comp) in comps.iter().enumerate() {
                let r = at + ci / 2;
                let base = (ci % 2) * 4;
                put(grf, r, base, comp[1].to_bits());
                put(grf, r, base + 1, comp[2].to_bits());
                put(grf, r, base + 2, 0);
                put(grf, r, base + 3, comp[0].to_bits());
            }
            at += 2;
        }
    }
    // The registers written: the header's phases up to `reg`, the constants and setup
    // data from the start register up to `at`.
    Ok(reg.max(at))
}

/// Instructions a traced lane records at most (the thread runs on past them).
pub(super) const TRACE_LIMIT: usize = 65_536;

/// One traced instruction as a line: offset, instruction, whether the lane ran it (and
/// its predicate), its sources and what it left.
pub(super) fn trace_line(s: &gtsim_eu::exec::trace::TraceStep) -> String {
    let mut l = format!("{:#06x}  {}", s.ip, s.text.trim());
    l.push_str(match (s.runs, s.predicate) {
        (_, Some(false)) => "  [predicate false]",
        (false, _) => "  [lane off]",
        _ => "",
    });
    if !s.sources.is_empty() {
        l.push_str(&format!("\n        sources: {}", s.sources.join(", ")));
    }
    if let Some(d) = &s.destination {
        l.push_str(&format!("\n        -> {d}"));
    }
    l
}

#[cfg(test)]
mod tests {
    use super::subspans;

    /// ICMS_NORMAL gives the covered samples, ICMS_DEPTH_COVERAGE those that passed: a
    /// 4x pixel covering samples 0-3 of which 1 and 3 passed; single-sampled, a lit
    /// slot (0) and an unlit helper slot (1).
    #[test]
    fn the_input_coverage_mask_before_and_after_depth() {
        let mut m = super::MsThread {
            starting_sample_pair: 0,
            sample: [0; 32],
            coverage: [0; 32],
            masks: [0; 32],
        };
        m.coverage[0] = 0b1111;
        m.masks[0] = 0b1010;
        assert_eq!(super::input_coverage(false, 0xffff, Some(&m), 1, 0), 0b1111);
        assert_eq!(super::input_coverage(true, 0xffff, Some(&m), 1, 0), 0b1010);
        assert_eq!(super::input_coverage(false, 0xffff, None, 0b01, 1), 1);
        assert_eq!(super::input_coverage(true, 0xffff, None, 0b01, 0), 1);
        assert_eq!(super::input_coverage(true, 0xffff, None, 0b01, 1), 0);
        assert_eq!(super::input_coverage(true, 0xfffe, None, 0b01, 0), 0);
    }

    /// The depth plane a coarse payload carries, worked by hand: a triangle from (0, 0)
    /// at depth 0 to (4, 0) at 1 and (0, 8) at 0.5 rises 1/4 per pixel in x and 1/16
    /// in y; a line from (2, 2) at 0.25 to (6, 5) at 0.75 (length 5) rises 0.5 * 4 / 25
    /// in x and 0.5 * 3 / 25 in y; a point is flat.
    #[test]
    fn depth_plane_coefficients_from_the_corners() {
        let vue: super::super::Vue = vec![[0; 4]];
        let corner = |xy: [f32; 2], z: f32| super::Corner {
            xy,
            z,
            rhw: 1.0,
            vue: &vue,
        };
        let prim = |corners| super::Primitive {
            corners,
            provoking_vue: &vue,
            back_facing: false,
            primitive_id: 0,
            pixels: std::borrow::Cow::Borrowed(&[]),
            coverage: std::borrow::Cow::Borrowed(&[]),
            aa_line: None,
            point: None,
            source: None,
        };
        let tri = prim(vec![
            corner([0.0, 0.0], 0.0),
            corner([4.0, 0.0], 1.0),
            corner([0.0, 8.0], 0.5),
        ]);
        assert_eq!(super::depth_plane(&tri), (0.25, 0.0625, (0.0, 0.0), 0.0));
        let line = prim(vec![corner([2.0, 2.0], 0.25), corner([6.0, 5.0], 0.75)]);
        let (cx, cy, start, z0) = super::depth_plane(&line);
        assert!((cx - 0.08).abs() < 1e-7 && (cy - 0.06).abs() < 1e-7);
        assert_eq!((start, z0), ((2.0, 2.0), 0.25));
        let point = prim(vec![corner([3.0, 1.0], 0.5)]);
        assert_eq!(super::depth_plane(&point), (0.0, 0.0, (3.0, 1.0), 0.5));
    }

    /// Seed 003 3DSTATE_SBE Primitive ID Override: attribute 1's Y and W components take
    /// the primitive ID's bits (7, flat: a0 = 7, a1 = a2 = 0) whatever the VUE holds;
    /// its X and Z, and attribute 0, keep the VUE's values (flat here: one vertex).
    #[test]
    fn the_primitive_id_override_replaces_the_selected_components() {
        let vue: super::super::Vue = vec![[1.0f32.to_bits(); 4], [2.0f32.to_bits(); 4]];
        let prim = super::Primitive {
            corners: vec![super::Corner {
                xy: [0.0, 0.0],
                z: 0.0,
                rhw: 1.0,
                vue: &vue,
            }],
            provoking_vue: &vue,
            back_facing: false,
            primitive_id: 7,
            pixels: std::borrow::Cow::Borrowed(&[]),
            coverage: std::borrow::Cow::Borrowed(&[]),
            aa_line: None,
            point: None,
            source: None,
        };
        let sbe = crate::state::AttributeSetup {
            count: 2,
            first_slot: 0,
            swizzles: None,
            swizzles_upper: false,
            point_sprite: 0,
            point_sprite_lower_left: false,
            flat: 0,
            primitive_id_override: Some((1, [false, true, false, true])),
        };
        let d = super::attribute_setup_data(&sbe, &prim).unwrap();
        let id = f32::from_bits(7);
        assert_eq!(d[0], [[1.0, 0.0, 0.0]; 4], "flat: (a0, 0, 0)");
        assert_eq!(d[1][1][0].to_bits(), id.to_bits());
        assert_eq!(d[1][3][0].to_bits(), id.to_bits());
        assert_eq!(d[1][0][0], 2.0);
        assert_eq!(d[1][2][0], 2.0);
    }

    /// The one-pass grouping of raster-ordered pixels equals sorting by subspan, and
    /// pixels in another order are grouped the same way.
    #[test]
    fn subspans_of_raster_ordered_pixels_equal_sorted_grouping() {
        let mut x = 0x9e37_79b9u32;
        let mut rnd = |n: u32| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % n
        };
        // Narrow rows (the masks in an array) and rows of a few far-apart pixels (the
        // merge).
        for i in 0..400 {
            let wide = if i % 2 == 0 { 40 } else { 100_000 };
            let mut pixels: Vec<(u32, u32)> = (0..rnd(300)).map(|_| (rnd(wide), rnd(12))).collect();
            pixels.sort_by_key(|&(x, y)| (y, x));
            pixels.dedup();
            // The reference: a map from (y/2, x/2) to the mask, in key order.
            let mut want = std::collections::BTreeMap::<(u32, u32), u32>::new();
            for &(x, y) in &pixels {
                *want.entry((y / 2, x / 2)).or_default() |= 1 << ((x & 1) + 2 * (y & 1));
            }
            let want: Vec<_> = want.into_iter().collect();
            assert_eq!(subspans(&pixels), want);
            let mut shuffled = pixels.clone();
            shuffled.reverse();
            assert_eq!(subspans(&shuffled), want);
        }
    }
}
