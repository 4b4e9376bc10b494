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
    /// A render target write message of the pixel shader that reaches the watched image
    /// at the position.
    RtWrite(RtWrite),
    /// A pixel shader thread covering the position, its lane for the position traced:
    /// one line per instruction executed (bounded), as `gtsim_eu`'s trace gives them.
    LaneTrace {
        /// The lane (channel) of the position in the thread.
        lane: usize,
        /// The thread's SIMD width.
        simd: usize,
        /// The instructions, in the order executed.
        lines: Vec<String>,
    },
    /// Work at the position the probe does not follow (a multisampled or coarse
    /// render target write), named.
    NotFollowed(&'static str),
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

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static PROBE: RefCell<Option<(Watch, Vec<Event>)>> = const { RefCell::new(None) };
}

/// Watches `w` on this thread from now on (`None`: stops), dropping earlier events.
pub fn watch(w: Option<Watch>) {
    ON.with(|o| o.set(w.is_some()));
    PROBE.with(|p| *p.borrow_mut() = w.map(|w| (w, vec![])));
}

/// The pixel watched on this thread, if any (cheap when none is).
pub fn watched() -> Option<Watch> {
    if !ON.with(Cell::get) {
        return None;
    }
    PROBE.with(|p| p.borrow().as_ref().map(|(w, _)| *w))
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

/// The events recorded since the last call (or since [`watch`]).
pub fn take() -> Vec<Event> {
    PROBE.with(|p| {
        p.borrow_mut()
            .as_mut()
            .map(|(_, e)| std::mem::take(e))
            .unwrap_or_default()
    })
}
