//! One pixel watched through the pixel pipeline, for `gtsim inspect --pixel`: where the
//! model rasterizes, depth-tests and writes a render target pixel, it tells the probe
//! what it did there (the primitive covered it; the early depth test compared these
//! values and passed or not; a render target write brought this colour, kept or
//! dropped the pixel, and left these values).
//!
//! The probe is per host thread and off unless a tool turns it on
//! ([`watch`]); a tool that watches runs the replay on its own thread only
//! (`gtsim_pipe3d::draw::parallel::with_threads(1, ..)`), so every event is this
//! thread's and comes in the order the model carried the work out. While a pixel is
//! watched the pipeline takes its general paths (the shortcuts that write many alike
//! threads at once, which give the same bits, do not tell the probe).

use gtsim_mem::format::texel::Texel;
use std::cell::{Cell, RefCell};

/// The pixel watched: a render target image (its surface's base address, LOD and array
/// slice) and the pixel's position in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watch {
    /// The render target surface's base address.
    pub base: u64,
    /// Its LOD.
    pub lod: u32,
    /// Its array slice (or 3D depth).
    pub slice: u32,
    /// The pixel's column.
    pub x: u32,
    /// The pixel's row (row 0 first in memory).
    pub y: u32,
    /// Whether to trace, instruction by instruction, the pixel shader lane of every
    /// thread that covers the position ([`Event::LaneTrace`]).
    pub trace: bool,
}

/// What the pipeline did at the watched position.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A primitive covers the position (it is among the primitive's pixels).
    Covered,
    /// The early depth and stencil test (seed 004 §11.5.2) of the position: the
    /// source depth, the depth stored before the test (as the buffer holds it, decoded
    /// to a float), the stencil value stored before it, and whether the pixel passed.
    EarlyDepth {
        /// The primitive's depth at the pixel.
        source: f32,
        /// The stored depth before the test.
        stored: Option<f32>,
        /// The stored stencil value before the test.
        stencil: Option<u8>,
        /// Whether the pixel goes on to the pixel shader.
        passed: bool,
    },
    /// The early depth and stencil test of one sample of the position in a multisampled
    /// draw (seed 004 §11.4: each sample at its own source depth against its own stored
    /// values), as [`Event::EarlyDepth`] gives a pixel's.
    EarlyDepthSample {
        /// The sample.
        sample: u32,
        /// The primitive's depth at the sample's position.
        source: f32,
        /// The stored depth before the test.
        stored: Option<f32>,
        /// The stored stencil value before the test.
        stencil: Option<u8>,
        /// Whether the sample goes on to the pixel shader.
        passed: bool,
    },
    /// A render target write message of the pixel shader that reaches the watched image
    /// at the position.
    RtWrite(RtWrite),
    /// A render target write of a multisampled target at the watched pixel: the samples
    /// the primitive covers there and those the write stored (after oMask, alpha to
    /// coverage and the late depth test), and each sample before and after.
    RtWriteSamples {
        /// Binding table index of the render target.
        binding_table_index: u8,
        /// The colour the shader sent for the pixel (source 0), as its channels' bits.
        colour: [u32; 4],
        /// Whether the channels are floats.
        float: bool,
        /// Samples covered, bit per sample.
        covered: u16,
        /// Samples written, bit per sample.
        written: u16,
        /// Each sample before the write.
        before: Vec<Option<Texel>>,
        /// Each sample after it.
        after: Vec<Option<Texel>>,
    },
    /// A pixel shader thread covering the position, its lane for the position traced:
    /// one line per instruction executed (bounded), as `gtsim_eu`'s trace gives them.
    LaneTrace {
        /// "pixel shader", "vertex shader" or "compute shader".
        stage: &'static str,
        /// The lane (channel) of the position in the thread.
        lane: usize,
        /// How many channels from `lane` on are traced (4 for a SIMD4x2 vertex: its
        /// x, y, z and w channels).
        width: usize,
        /// The thread's SIMD width.
        simd: usize,
        /// The instructions, in the order executed.
        lines: Vec<String>,
    },
    /// Where the watched walker put the watched compute invocation: thread group
    /// `group`, its thread `thread` (from 0 in dispatch order), channel `lane`, with
    /// the workgroup size the mapping used; `outside` when the walker's groups do not
    /// reach it (then `group`, `thread` and `lane` are where it would have been).
    Invocation {
        /// The thread group ID.
        group: [u32; 3],
        /// The thread within the group.
        thread: u32,
        /// The channel.
        lane: usize,
        /// The workgroup size used.
        local_size: [u32; 3],
        /// The threads' SIMD width.
        simd: usize,
        /// Threads per group the walker dispatches.
        threads: u32,
        /// Why the invocation is not run, when it is not.
        outside: Option<String>,
    },
}

/// A render target write at the watched pixel.
#[derive(Debug, Clone, PartialEq)]
pub struct RtWrite {
    /// Binding table index of the render target.
    pub binding_table_index: u8,
    /// The colour the shader sent for the pixel (source 0), as its four channels' bits
    /// and whether they are floats.
    pub colour: [u32; 4],
    /// Whether the channels are floats (a float-valued target), else integers.
    pub float: bool,
    /// Whether the colour calculator combines the colour with the pixel's value
    /// (blending or a logic op); else the colour is stored as it is converted.
    pub blends: bool,
    /// Whether the pixel was written; else why not.
    pub dropped: Option<&'static str>,
    /// The late depth test (seed 004 §11.5.2: after the shader), when the draw has one:
    /// the source depth and whether the pixel passed.
    pub late_depth: Option<(f32, bool)>,
    /// The pixel before the write.
    pub before: Option<Texel>,
    /// The pixel after it (the blend's output, stored).
    pub after: Option<Texel>,
}

/// The vertex watched: draw `draw`'s `vertex`th shaded vertex, counted from 0 in the
/// order the vertex fetcher hands vertices to the vertex shader (instance by instance;
/// a vertex the post-transform cache reuses is not shaded again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexWatch {
    /// The draw, counted from 0 in the replay.
    pub draw: usize,
    /// The vertex.
    pub vertex: usize,
}

/// The compute invocation watched (`gtsim inspect CAPTURE --invocation X,Y,Z`): global
/// invocation `id` of walker `walker` (counted from 0 in the replay, GPGPU_WALKER
/// commands in execution order), with the workgroup's `local_size` (`None`: the group's
/// lanes in a row, `threads × SIMD` by 1 by 1).
///
/// The hardware knows thread groups, the threads of a group and their channels, not
/// invocation IDs: those are the driver's. Mesa's drivers for Gen7 to Gen11 number a
/// group's invocations X-major, invocation `thread × SIMD + channel` being local ID
/// `(i % X, i / X % Y, i / (X × Y))` (Mesa src/intel/compiler/
/// brw_nir_lower_cs_intrinsics.c, "X-major lid order", with each thread's subgroup ID
/// its index in the group); shaders with `derivative_group` quads are laid out otherwise
/// and not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvocationWatch {
    /// The walker.
    pub walker: usize,
    /// The global invocation ID.
    pub id: [u32; 3],
    /// The workgroup size.
    pub local_size: Option<[u32; 3]>,
}

thread_local! {
    /// The invocation watched and the walkers begun so far.
    static INVOCATION: Cell<Option<(InvocationWatch, usize)>> = const { Cell::new(None) };
    /// The vertex watched, the draw running and the vertices it shaded so far.
    static VERTEX: Cell<Option<(VertexWatch, usize, usize)>> = const { Cell::new(None) };
    static ON: Cell<bool> = const { Cell::new(false) };
    /// The pixel watched (if any) and the events recorded; `None` when nothing is
    /// watched.
    static PROBE: RefCell<Option<(Option<Watch>, Vec<Event>)>> = const { RefCell::new(None) };
}

/// Watches pixel `w` on this thread from now on (`None`: stops, and stops watching a
/// vertex too), dropping earlier events.
pub fn watch(w: Option<Watch>) {
    ON.with(|o| o.set(w.is_some()));
    PROBE.with(|p| *p.borrow_mut() = w.map(|w| (Some(w), vec![])));
    if w.is_none() {
        VERTEX.with(|v| v.set(None));
        INVOCATION.with(|v| v.set(None));
    }
}

/// The pixel watched on this thread, if any (cheap when none is).
pub fn watched() -> Option<Watch> {
    if !ON.with(Cell::get) {
        return None;
    }
    PROBE.with(|p| p.borrow().as_ref().and_then(|(w, _)| *w))
}

/// Tells the probe of this thread what happened (nothing when no pixel is watched).
pub fn record(e: Event) {
    if ON.with(Cell::get) {
        PROBE.with(|p| {
            if let Some((_, events)) = p.borrow_mut().as_mut() {
                // Bounded: a shader looping over one pixel's writes cannot grow it
                // without end.
                if events.len() < 1 << 16 {
                    events.push(e);
                }
            }
        });
    }
}

/// Watches vertex `w` on this thread from now on (`None`: stops), with or without a
/// pixel; its trace is an [`Event::LaneTrace`] of stage "vertex shader".
pub fn watch_vertex(w: Option<VertexWatch>) {
    VERTEX.with(|v| v.set(w.map(|w| (w, usize::MAX, 0))));
    if w.is_some() {
        ON.with(|o| o.set(true));
        PROBE.with(|p| {
            p.borrow_mut().get_or_insert_with(|| (None, vec![]));
        });
    }
}

/// A draw starts: draw `index` of the replay (the tool's observer says so).
pub fn begin_draw(index: usize) {
    VERTEX.with(|v| {
        if let Some((w, _, _)) = v.get() {
            v.set(Some((w, index, 0)));
        }
    });
}

/// The vertex shader is about to run a thread for the draw's next `n` vertices: the
/// watched vertex's position among them, when it is one of them (the count moves on
/// either way). Called in dispatch order.
pub fn next_vertices(n: usize) -> Option<usize> {
    VERTEX.with(|v| {
        let (w, draw, done) = v.get()?;
        v.set(Some((w, draw, done + n)));
        (draw == w.draw && (done..done + n).contains(&w.vertex)).then(|| w.vertex - done)
    })
}

/// The vertices the vertex shader has been handed in the draw running so far, when a
/// vertex is watched.
pub fn vertices_shaded() -> Option<usize> {
    VERTEX.with(|v| v.get().map(|(_, _, n)| n))
}

/// Watches compute invocation `w` on this thread from now on (`None`: stops); its trace
/// is an [`Event::LaneTrace`] of stage "compute shader", after an [`Event::Invocation`]
/// saying where the walker put it.
pub fn watch_invocation(w: Option<InvocationWatch>) {
    INVOCATION.with(|v| v.set(w.map(|w| (w, 0))));
    if w.is_some() {
        ON.with(|o| o.set(true));
        PROBE.with(|p| {
            p.borrow_mut().get_or_insert_with(|| (None, vec![]));
        });
    }
}

/// A GPGPU walker starts: the watched invocation, when this walker is the watched one
/// (the count moves on either way; nothing when no invocation is watched).
pub fn begin_walker() -> Option<InvocationWatch> {
    INVOCATION.with(|v| {
        let (w, n) = v.get()?;
        v.set(Some((w, n + 1)));
        (n == w.walker).then_some(w)
    })
}

/// The GPGPU walkers begun so far, when an invocation is watched.
pub fn walkers_begun() -> Option<usize> {
    INVOCATION.with(|v| v.get().map(|(_, n)| n))
}

/// The events recorded since the last call (or since [`watch`]).
pub fn take() -> Vec<Event> {
    PROBE.with(|p| {
        p.borrow_mut()
            .as_mut()
            .map(|(_, e)| std::mem::take(e))
            .unwrap_or_default()
    })
}
