//! One draw through the pipeline (seed 004 §1.4: state latched by earlier commands,
//! consumed by the primitive command).
//!
//! The generation's [`Front`] decodes the latched state into a neutral [`DrawState`],
//! counts included (for Gen7: from 3DPRIMITIVE, the 3DPRIM_* registers with Indirect
//! Parameter Enable, or VB0's end offset with End Offset Enable). The draw streams (`stream`): for each
//! instance the vertex indices arrive a chunk at a time, each chunk is shaded, and a
//! run's objects are assembled from a window that keeps only the VUEs later objects
//! read, so memory stays bounded whatever the counts. The work is bounded by the
//! submission's [`Watchdog`] (EU instructions, vertices, pixels), the model's hangcheck.
//!
//! The stages run in order for each chunk of a cut-free run of vertices:
//!
//! 1. `vertex`: the VF assembles each vertex's elements into a VUE (§2.5), and the VS
//!    shades pairs of vertices on SIMD4x2 EU threads that write their output VUEs with
//!    URB messages (ch.3); with the VS disabled the VF's VUE passes through.
//!
//! Every thread's messages go through one `router`: the front decodes each, and the
//! router delivers it to the sampler, the URB or the data port's render target path.
//! 2. `setup`: the primitives of the topology (§10.2), the clip test and clipping
//!    (`clipper`, ch.9), the perspective divide and viewport transform, culling and
//!    rasterization (ch.10).
//! 3. `pixel`: the WM groups covered pixels into subspans and dispatches PS threads
//!    with the seed's payload (§11.10.3), testing depth and stencil before or after them
//!    (the data port's depth buffer); their sampler messages reach gtsim-sampler through the front and
//!    their render target writes go through the data port's colour calculator into memory
//!    (seed 000 §3.9.11, seed 004 ch.12).
//!    Small primitives lighting distinct pixels are held back and shaded together
//!    (`deferred`: only writes to one pixel are ordered, seed 000 ch.1), their threads on
//!    the host's cores (`parallel`).
//!
//! With a GS (`geometry`, ch.7) the VS's VUEs are staged into the GS unit's objects,
//! GS threads shade each object instance, and the runs of their output topology go on to
//! `setup` in object order. The SOL stage's Rendering Disable and Render Stream Select
//! decide what goes past it (§8.7).
//!
//! HS, DS and stream output must be disabled: anything else fails as
//! [`DrawError::Unsupported`] naming its chapter, as do the features of the enabled
//! stages not modelled yet.

mod clipper;
pub mod clock;
pub mod compute;
mod deferred;
mod geometry;
mod group;
pub mod media;
pub mod media_walker;
pub mod parallel;
mod pixel;
mod replay;
mod router;
mod runs;
mod setup;
mod spare;
mod staging;
mod stream;
mod stream_out;
mod tessellation;
mod vertex;
mod watchdog;

pub use crate::state::{DrawState, Front};
pub use gtsim_dataport::depth_buffer::{DepthBuffer, DepthOp};
pub use gtsim_dataport::urb::Vue;
pub use watchdog::{Watchdog, WorkLimits};

use gtsim_eu::exec::{ExecError, MessageError, Program};
use gtsim_mem::{Fault, Memory};
use gtsim_spec::Unsupported;
use std::collections::BTreeMap;
use std::sync::Arc;
use thiserror::Error;

/// Why a draw could not complete: what a GPU hang report would say.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DrawError {
    /// Latched state that is missing or does not decode.
    #[error("{command}: {why}")]
    State {
        /// The state command or structure.
        command: &'static str,
        /// What is wrong.
        why: String,
    },
    /// A feature the model does not implement yet.
    #[error(transparent)]
    Unsupported(#[from] Unsupported),
    /// A memory access by a fixed-function unit faulted.
    #[error("{unit}: {fault}")]
    Fault {
        /// The unit.
        unit: &'static str,
        /// The fault.
        #[source]
        fault: Fault,
    },
    /// The submission did more work than its [`Watchdog`] allows: the model's
    /// hangcheck, ending a runaway guest the way the kernel's hangcheck does.
    #[error("watchdog: the submission exceeded its limit of {limit} {what} (raise it with {knob})")]
    Watchdog {
        /// What was counted.
        what: &'static str,
        /// The limit.
        limit: u64,
        /// The environment variable that sets it.
        knob: &'static str,
    },
    /// A shader thread failed.
    #[error("{stage} thread (kernel at {kernel:#x}): {error}")]
    Thread {
        /// VS or PS.
        stage: &'static str,
        /// Graphics address of the kernel.
        kernel: u64,
        /// What happened.
        #[source]
        error: ExecError,
    },
}

impl DrawError {
    /// The page fault behind this error, with its address, however deep: a fixed-function
    /// unit's, or a shared function's inside a thread's message.
    pub fn fault(&self) -> Option<Fault> {
        match self {
            DrawError::Fault { fault, .. } => Some(*fault),
            DrawError::Thread {
                error: ExecError::SharedFunction { error, .. },
                ..
            } => error.fault(),
            _ => None,
        }
    }

    /// An error of the data port's depth buffer during the early depth test (before the
    /// pixel shader), as the draw reports it.
    pub(crate) fn from_depth_buffer(e: MessageError) -> DrawError {
        match e {
            MessageError::Unsupported(u) => DrawError::Unsupported(u),
            MessageError::Fault { fault, .. } => DrawError::Fault {
                unit: "depth buffer",
                fault,
            },
            MessageError::State { structure, why } => DrawError::State {
                command: structure,
                why,
            },
            other => DrawError::State {
                command: "3DSTATE_DEPTH_BUFFER",
                why: other.to_string(),
            },
        }
    }

    /// The error as a shared function reports it, for errors that happen while the
    /// pipeline carries out a thread's message (render target state, the late depth
    /// test).
    pub fn into_message_error(self) -> MessageError {
        match self {
            DrawError::Unsupported(u) => MessageError::Unsupported(u),
            DrawError::Fault { unit, fault } => MessageError::Fault {
                what: unit.to_string(),
                fault,
            },
            DrawError::State { command, why } => MessageError::State {
                structure: command,
                why,
            },
            other => MessageError::Invalid(other.to_string()),
        }
    }
}

/// Writes the R0 fields every geometry-stage payload shares (seed 004 §3.3, §4.6.1,
/// §6.2, §7.4.3): per-thread scratch space and the sampler state and binding table
/// pointers, where the generation's layout puts them.
pub(crate) fn put_pointers(
    l: &crate::state::PointerFields,
    grf: &mut [u8],
    (scratch, fftid): (&crate::state::Scratch, u32),
    resources: &crate::state::StageResources,
) {
    l.scratch_space.put(grf, scratch.per_thread);
    put_scratch(l, grf, scratch, fftid);
    l.sampler_state
        .put(grf, (resources.sampler_state >> 5) as u32);
    l.binding_table
        .put(grf, (resources.binding_table >> 5) as u32);
}

/// Writes a thread's Scratch Space Pointer and FFTID (seed 004 §3.3 R0.5: "the
/// starting location of the thread's allocated scratch space ... FF units will assign a
/// thread an arbitrarily-positioned region" within Scratch Space Base Pointer +
/// Maximum Number of Threads × Per-Thread Scratch Space): region `fftid`. Threads that
/// run at the same time on the model's memory get distinct FFTIDs (the instances of a
/// patch, the threads of a thread group, which interleave at their barriers); the
/// others run one after another, or in parallel each over its own overlay of memory
/// (`parallel.rs`), and take region 0.
pub(crate) fn put_scratch(
    l: &crate::state::PointerFields,
    grf: &mut [u8],
    scratch: &crate::state::Scratch,
    fftid: u32,
) {
    let at = scratch
        .base
        .wrapping_add(u64::from(fftid) * scratch.bytes_per_thread);
    l.scratch_pointer.put(grf, (at >> 10) as u32);
    l.fftid.put(grf, fftid);
}

/// Copies a stage's push constants into the payload from register `start` on (seed 004
/// §1.9.4.2.3: "Constant Data ... following the R0 Header", non-interleaved).
pub(crate) fn put_constants(
    grf: &mut [u8],
    start: usize,
    resources: &crate::state::StageResources,
) {
    for (i, c) in resources.constants.iter().enumerate() {
        let r = start + i;
        grf[r * 32..r * 32 + 32].copy_from_slice(c);
    }
}

/// Writes dword `dw` of register `reg` of a thread's GRF (payload building).
pub(crate) fn put_dword(grf: &mut [u8], reg: usize, dw: usize, v: u32) {
    let at = reg * 32 + dw * 4;
    grf[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// A [`DrawError::Unsupported`]: `what` is not modelled yet, specified at `seed`.
pub fn unsupported(
    what: impl Into<std::borrow::Cow<'static, str>>,
    seed: &'static str,
) -> DrawError {
    DrawError::Unsupported(Unsupported::new(what, seed))
}

/// Pipeline statistics a draw adds to (seed 004 §1.9 statistics table and the "Statistics Gathering" of each
/// stage; the counters are the MMIO registers of the same names).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Statistics {
    /// IA_VERTICES_COUNT.
    pub ia_vertices: u64,
    /// IA_PRIMITIVES_COUNT.
    pub ia_primitives: u64,
    /// VS_INVOCATION_COUNT.
    pub vs_invocations: u64,
    /// HS_INVOCATION_COUNT.
    pub hs_invocations: u64,
    /// DS_INVOCATION_COUNT.
    pub ds_invocations: u64,
    /// GS_INVOCATION_COUNT.
    pub gs_invocations: u64,
    /// GS_PRIMITIVES_COUNT.
    pub gs_primitives: u64,
    /// SO_NUM_PRIMS_WRITTEN0-3, per stream.
    pub so_prims_written: [u64; 4],
    /// SO_PRIM_STORAGE_NEEDED0-3, per stream.
    pub so_prim_storage_needed: [u64; 4],
    /// Not a counter: the SO buffers' Write Offsets the draw leaves in the
    /// SO_WRITE_OFFSET0-3 registers, when its SO function ran (seed 004 §8.2: "The SOL
    /// stage will increment the Write Offsets as a part of the SO function").
    pub so_write_offsets: Option<[u32; 4]>,
    /// CL_INVOCATION_COUNT.
    pub cl_invocations: u64,
    /// CL_PRIMITIVES_COUNT.
    pub cl_primitives: u64,
    /// PS_INVOCATION_COUNT.
    pub ps_invocations: u64,
    /// PS_DEPTH_COUNT: pixels that passed the depth test.
    pub ps_depth_count: u64,
}

/// Decoded kernels by graphics address, kept across draws until the instruction cache
/// is invalidated (PIPE_CONTROL "Instruction Cache Invalidate Enable").
///
/// After an invalidation a kernel is fetched from memory again; when its bytes are the
/// ones decoded before (a driver invalidates at every batch, mostly without changing its
/// shaders), the decoded program, and with it its compiled code and the counts that
/// decide when to compile, is taken up again: the same bytes are the same kernel. Only
/// the kernels of the last invalidated generation are kept for that.
#[derive(Debug, Default, Clone)]
pub struct KernelCache {
    kernels: BTreeMap<u64, Arc<Program>>,
    /// The kernels cached before the last invalidation.
    stale: BTreeMap<u64, Arc<Program>>,
}

impl KernelCache {
    /// Forgets every kernel (keeping the decoded programs to compare with what is
    /// fetched next).
    pub fn invalidate(&mut self) {
        // Kernels of the generation before that, not fetched again, are dropped.
        self.stale = std::mem::take(&mut self.kernels);
    }

    /// The kernel at `addr`: the bytes from there to the end of the mapped run (at most
    /// 1 MiB), decoded once in `encoding`.
    /// The decoded program of the kernel at `addr` (cached as a draw caches it).
    pub fn program(
        &mut self,
        encoding: gtsim_isa::Encoding,
        mem: &dyn Memory,
        addr: u64,
    ) -> Result<Arc<Program>, DrawError> {
        self.get(encoding, mem, addr)
    }

    pub(crate) fn get(
        &mut self,
        encoding: gtsim_isa::Encoding,
        mem: &dyn Memory,
        addr: u64,
    ) -> Result<Arc<Program>, DrawError> {
        if let Some(p) = self.kernels.get(&addr) {
            return Ok(p.clone());
        }
        // A program of the generation before whose code is still in memory runs again
        // (and keeps what the JIT made of it): its whole fetch window, or only its
        // closed code when nothing past that can run (`Program::closed_code`).
        if let Some(p) = self.stale.get(&addr)
            && p.encoding() == encoding
            && let Some(closed) = p.closed_code()
        {
            let mut now = vec![0u8; closed.len()];
            if mem.read(addr, &mut now).is_ok() && now == closed {
                let p = p.clone();
                self.stale.remove(&addr);
                self.kernels.insert(addr, p.clone());
                return Ok(p);
            }
        }
        // Kernels of a fully unrolled shader pass 64 KiB (a spilling pixel shader of
        // the clients is 70 KiB); the decode stops at the kernel's end, so only the
        // copy grows with the window.
        const MAX: u64 = 1024 * 1024;
        const PAGE: u64 = 4096;
        let mut code = Vec::with_capacity(MAX as usize);
        let mut at = addr;
        while (at - addr) < MAX {
            let len = (PAGE - at % PAGE).min(MAX - (at - addr));
            let start = code.len();
            code.resize(start + len as usize, 0);
            if mem.read(at, &mut code[start..]).is_err() {
                code.truncate(start);
                break;
            }
            at += len;
        }
        if code.is_empty() {
            let mut probe = [0u8; 1];
            if let Err(fault) = mem.read(addr, &mut probe) {
                return Err(DrawError::Fault {
                    unit: "kernel fetch",
                    fault,
                });
            }
        }
        let p = match self.stale.remove(&addr) {
            Some(p) if p.code() == code.as_slice() && p.encoding() == encoding => p,
            _ => Arc::new(Program::new(encoding, &code)),
        };
        self.kernels.insert(addr, p.clone());
        Ok(p)
    }
}

pub use gtsim_dataport::rt_message::RenderTarget;

/// Runs staged patches through the HS, TE and DS and sends the DS's primitives on to the
/// SOL stage and the clipper, patch by patch; counts the VF's IA statistics for the
/// patches (and, at the end of the run, its vertices).
#[expect(
    clippy::too_many_arguments,
    reason = "the draw's stages and counters, passed down unchanged"
)]
fn tessellated(
    st: &DrawState,
    front: &dyn Front,
    tess: &tessellation::TessellationStage,
    patches: &[staging::Staged],
    run: &staging::Stager,
    ended: bool,
    mut gs: Option<&mut geometry::GeometryStage>,
    mut sol: Option<&mut stream_out::SolStage>,
    mem: &mut dyn Memory,
    ps: &mut pixel::PixelStage,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
) -> Result<(), DrawError> {
    if st.vf.statistics {
        stats.ia_primitives += patches.len() as u64;
        if ended {
            stats.ia_vertices += run.max_used().map_or(0, |m| m as u64 + 1);
        }
    }
    for d in tess.patches(st, front, mem, patches, stats, watchdog)? {
        // With a GS, each patch's output is a run of the TE's topology for it (ch.7).
        if let Some(g) = gs.as_deref_mut() {
            g.begin_run_of(d.topology);
            let pids = vec![d.primitive_id; d.vues.len()];
            let inputs = g.push(d.vues, pids, true, stats, false)?;
            geometry_output(
                st,
                front,
                g,
                &inputs,
                sol.as_deref_mut(),
                mem,
                ps,
                stats,
                watchdog,
            )?;
            continue;
        }
        // The DS's vertices are stream 0 (§8.1).
        let render = st.sol.renders(0);
        if let Some(sol) = sol.as_deref_mut() {
            if !render {
                sol.run(mem, 0, d.topology, d.vues, stats)?;
                continue;
            }
            sol.run(mem, 0, d.topology, d.vues.clone(), stats)?;
        } else if !render {
            continue;
        }
        let mut run = stream::RunAssembler::new(d.topology, st.setup.provoking)?;
        let pids = vec![d.primitive_id; d.vues.len()];
        let mut objects = run.push(d.vues, (&pids, &[]), stats, false);
        objects.extend(run.finish(stats, false));
        setup::primitives(st, front, &run, &objects, mem, ps, stats, watchdog)?;
    }
    Ok(())
}

/// Runs the GS threads of `inputs` and sends their output primitives on to the clipper,
/// output by output in dispatch order (seed 004 §7.6).
#[expect(
    clippy::too_many_arguments,
    reason = "the draw's stages and counters, passed down unchanged"
)]
fn geometry_output(
    st: &DrawState,
    front: &dyn Front,
    gs: &geometry::GeometryStage,
    inputs: &[staging::Staged],
    mut sol: Option<&mut stream_out::SolStage>,
    mem: &mut dyn Memory,
    ps: &mut pixel::PixelStage,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
) -> Result<(), DrawError> {
    if inputs.is_empty() {
        return Ok(());
    }
    let state = gs.state();
    let t = state.output_topology;
    for out in gs.shade(st, front, mem, inputs, stats, watchdog)? {
        let pid = out.primitive_id;
        for (stream, vues) in geometry::output_runs(state, out, stats) {
            // Seed 004 §8.7: the selected stream goes on to be rendered, PATCHLIST
            // topologies never.
            let render = st.sol.renders(stream) && !(0x20..=0x3f).contains(&t.0);
            if let Some(sol) = sol.as_deref_mut() {
                if !render {
                    sol.run(mem, stream, t, vues, stats)?;
                    continue;
                }
                sol.run(mem, stream, t, vues.clone(), stats)?;
            } else if !render {
                continue;
            }
            let mut run = stream::RunAssembler::new(t, st.setup.provoking)?;
            let pids = vec![pid; vues.len()];
            let mut objects = run.push(vues, (&pids, &[]), stats, false);
            objects.extend(run.finish(stats, false));
            setup::primitives(st, front, &run, &objects, mem, ps, stats, watchdog)?;
        }
    }
    Ok(())
}

/// Host time a draw spent in its stages (for `gtsim inspect`; never part of what the
/// model computes).
#[derive(Debug, Clone, Copy, Default)]
pub struct StageTimes {
    /// Vertex fetch and vertex shader threads.
    pub vertex: std::time::Duration,
    /// Everything between: tessellation, geometry shader threads, stream output,
    /// clipping, setup and rasterization.
    pub primitives: std::time::Duration,
    /// Early depth, pixel shader threads and their render target and depth writes.
    pub pixel: std::time::Duration,
    /// The whole draw.
    pub total: std::time::Duration,
}

/// Executes the draw whose state `front` decodes; returns the render targets its pixel
/// shaders wrote to. The draw streams: its vertices are fetched, shaded and assembled a
/// chunk at a time, so memory stays bounded whatever its counts, and `watchdog` bounds
/// the work.
pub fn draw(
    front: &dyn Front,
    mem: &mut dyn Memory,
    kernels: &mut KernelCache,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
) -> Result<Vec<RenderTarget>, DrawError> {
    draw_timed(
        front,
        mem,
        kernels,
        stats,
        watchdog,
        &mut StageTimes::default(),
    )
}

/// [`draw`], adding the host time of its stages to `times`.
pub fn draw_timed(
    front: &dyn Front,
    mem: &mut dyn Memory,
    kernels: &mut KernelCache,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
    times: &mut StageTimes,
) -> Result<Vec<RenderTarget>, DrawError> {
    let start = std::time::Instant::now();
    let mut vertex = std::time::Duration::ZERO;
    let mut ps_time = std::time::Duration::ZERO;
    let result = draw_stages(
        front,
        mem,
        kernels,
        stats,
        watchdog,
        &mut vertex,
        &mut ps_time,
    );
    let total = start.elapsed();
    times.vertex += vertex;
    times.pixel += ps_time;
    times.primitives += total.saturating_sub(vertex + ps_time);
    times.total += total;
    result
}

#[allow(
    clippy::too_many_arguments,
    reason = "the draw's pieces and its two timers"
)]
fn draw_stages(
    front: &dyn Front,
    mem: &mut dyn Memory,
    kernels: &mut KernelCache,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
    vertex_time: &mut std::time::Duration,
    pixel_time: &mut std::time::Duration,
) -> Result<Vec<RenderTarget>, DrawError> {
    let Some(st) = front.draw_state(mem)? else {
        // Nothing to fetch: the state is not even read (crocus emits such draws).
        return Ok(vec![]);
    };
    let mut ps = pixel::PixelStage::new(&st, mem, kernels)?;
    let depth_count = stats.ps_depth_count;
    // The pixel stage's time counts also when a later stage stops the draw.
    let mut stages = || -> Result<Vec<RenderTarget>, DrawError> {
        let mut vs = vertex::VertexStage::new(&st, mem, kernels)?;
        let mut runs = runs::Runs::new(&st, mem, kernels)?;
        for instance in 0..st.vf.counts.instance_count {
            vs.begin_instance(&st);
            runs.begin_run(&st)?;
            let mut source = stream::VertexSource::new(&st);
            loop {
                let chunk = source.next_chunk(&st, mem)?;
                if chunk.is_empty() {
                    break;
                }
                for piece in chunk.split_inclusive(|i| *i == stream::Item::Cut) {
                    let vertices: Vec<stream::VertexRef> = piece
                        .iter()
                        .filter_map(|i| match i {
                            stream::Item::Vertex(v) => Some(*v),
                            stream::Item::Cut => None,
                        })
                        .collect();
                    let cut = piece.last() == Some(&stream::Item::Cut);
                    let (vues, pids, edges) = if vertices.is_empty() {
                        (vec![], vec![], vec![])
                    } else {
                        watchdog.vertices(vertices.len() as u64)?;
                        let t = std::time::Instant::now();
                        let shaded =
                            vs.shade(&st, front, mem, &vertices, instance, stats, watchdog);
                        *vertex_time += t.elapsed();
                        shaded?
                    };
                    if vues.is_empty() && !cut {
                        continue;
                    }
                    runs.feed(
                        &st,
                        front,
                        (vues, pids, edges),
                        cut,
                        mem,
                        &mut ps,
                        stats,
                        watchdog,
                    )?;
                    if cut {
                        vs.begin_run();
                    }
                }
            }
            runs.feed(
                &st,
                front,
                (vec![], vec![], vec![]),
                true,
                mem,
                &mut ps,
                stats,
                watchdog,
            )?;
        }
        runs.finish(stats);
        ps.finish(&st, front, mem, stats, watchdog)
    };
    let result = stages();
    if !st.ps.statistics {
        // Seed 004 §11.2.1 (L10737): "If Statistics Enable is set in 3DSTATE_WM, the
        // PS_DEPTH_COUNT register ... will be incremented once for each pixel (or
        // sample) that passes the depth, stencil and alpha tests": with it clear the
        // draw adds nothing (crocus clears it for its blorp draws, which must not count
        // in an occlusion query).
        stats.ps_depth_count = depth_count;
    }
    *pixel_time += ps.busy;
    result
}

/// The render target a pixel shader's write resolves (`gtsim_dataport::rt_path::ResolveTarget`):
/// binding table entry `bti` of the front's, or the Null Render Target when `None`.
pub(crate) fn resolve_target(
    front: &dyn crate::state::Front,
    mem: &dyn gtsim_mem::Memory,
    bti: Option<u8>,
    rti: u8,
) -> Result<Option<gtsim_dataport::rt_message::RenderTarget>, gtsim_message::MessageError> {
    match bti {
        Some(bti) => front.render_target(mem, bti, rti),
        None => front.null_render_target(mem, rti),
    }
    .map_err(DrawError::into_message_error)
}

#[cfg(test)]
mod kernel_cache_tests {
    use super::*;
    use gtsim_isa::asm::{Compaction, assemble};
    use gtsim_mem::AddressSpace;

    /// After an invalidation a kernel whose bytes did not change is the same decoded
    /// program (its compiled code and counts kept); one whose bytes changed is decoded
    /// anew from them.
    #[test]
    fn an_unchanged_kernel_survives_invalidation_and_a_changed_one_does_not() {
        let a = assemble(
            "add(8) g2<1>F g3<8,8,1>F g4<8,8,1>F { align1 1Q };",
            Compaction::Never,
        )
        .unwrap();
        let b = assemble(
            "mul(8) g2<1>F g3<8,8,1>F g4<8,8,1>F { align1 1Q };",
            Compaction::Never,
        )
        .unwrap();
        let mut mem = AddressSpace::new();
        mem.load(0x10000, &[0; 4096]);
        mem.write(0x10000, &a).unwrap();
        let enc = gtsim_isa::Encoding::IvyBridge;
        let mut cache = KernelCache::default();
        let first = cache.get(enc, &mem, 0x10000).unwrap();
        cache.invalidate();
        let again = cache.get(enc, &mem, 0x10000).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "same bytes, same program");
        mem.write(0x10000, &b).unwrap();
        // Without an invalidation the cached program stays (the instruction cache).
        assert!(Arc::ptr_eq(&first, &cache.get(enc, &mem, 0x10000).unwrap()));
        cache.invalidate();
        let changed = cache.get(enc, &mem, 0x10000).unwrap();
        assert!(!Arc::ptr_eq(&first, &changed));
        assert_eq!(&changed.code()[..b.len()], &b[..]);
        // Two invalidations without a fetch in between forget the program.
        cache.invalidate();
        cache.invalidate();
        assert!(!Arc::ptr_eq(
            &changed,
            &cache.get(enc, &mem, 0x10000).unwrap()
        ));
    }

    /// A kernel that ends at an EOT (and jumps nowhere the decode cannot see) survives
    /// invalidation when the bytes after it change (the driver uploading its next
    /// kernels); a change inside it, or within one instruction past its end, decodes it
    /// anew; a kernel without an EOT needs its whole fetch window unchanged.
    #[test]
    fn a_closed_kernel_survives_what_follows_it_changing() {
        let eot = "sendc(8) null<1>UW g124<8,8,1>UD 0x88031400
                            render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };";
        let closed = assemble(
            &format!("add(8) g2<1>F g3<8,8,1>F g4<8,8,1>F {{ align1 1Q }};\n{eot}"),
            Compaction::Never,
        )
        .unwrap();
        let open = assemble(
            "add(8) g2<1>F g3<8,8,1>F g4<8,8,1>F { align1 1Q };",
            Compaction::Never,
        )
        .unwrap();
        let enc = gtsim_isa::Encoding::IvyBridge;
        for (code, survives) in [(&closed, true), (&open, false)] {
            let mut mem = AddressSpace::new();
            mem.load(0x10000, &[0; 8192]);
            mem.write(0x10000, code).unwrap();
            let mut cache = KernelCache::default();
            let first = cache.get(enc, &mem, 0x10000).unwrap();
            // The next kernel uploaded 64 bytes past this one's end.
            mem.write(0x10000 + code.len() as u64 + 64, &open).unwrap();
            cache.invalidate();
            let again = cache.get(enc, &mem, 0x10000).unwrap();
            assert_eq!(
                Arc::ptr_eq(&first, &again),
                survives,
                "{} bytes",
                code.len()
            );
        }
        // Within one instruction past the EOT: decoded anew.
        let mut mem = AddressSpace::new();
        mem.load(0x10000, &[0; 8192]);
        mem.write(0x10000, &closed).unwrap();
        let mut cache = KernelCache::default();
        let first = cache.get(enc, &mem, 0x10000).unwrap();
        mem.write(0x10000 + closed.len() as u64 + 8, &[1]).unwrap();
        cache.invalidate();
        assert!(!Arc::ptr_eq(
            &first,
            &cache.get(enc, &mem, 0x10000).unwrap()
        ));
    }
}
