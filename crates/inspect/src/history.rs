//! Pixel history (`gtsim inspect CAPTURE --pixel X,Y [--target N]`): every draw that
//! covered or wrote one render target pixel, with what the model did there, from the
//! model itself: the replay runs on this thread with the pixel watched
//! ([`gtsim_dataport::probe`]), so the rasterizer, the early depth test and the render
//! target writes report the position as they carry it out (coverage, the depth values
//! compared and the outcome, the colour the shader sent, why a write was dropped, the
//! pixel before and after each write), and the observer adds the pixel's value before
//! and after each draw.
//!
//! The render targets are numbered in the order the replay first writes them; the
//! pixel is in surface coordinates, row 0 first in memory.

use gtsim_dataport::probe::{self, Event, Watch};
/// The probe's events and invocation watch, for callers of this module.
pub use gtsim_dataport::probe::{Event as ProbeEvent, InvocationWatch};
use gtsim_gpu::device::observe::{DrawOutcome, DrawView, Observer};
use gtsim_gpu::device::{Hang, Ring};
use gtsim_mem::Memory;
use gtsim_mem::format::texel::Texel;
use gtsim_mem::surface::{Surface, TexelCoord};
use std::fmt::Write;

/// A render target image the replay writes: its surface, LOD and slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// The surface.
    pub surface: Surface,
    /// LOD.
    pub lod: u32,
    /// Array slice.
    pub slice: u32,
}

impl Target {
    /// The texel at (`x`, `y`), or why it cannot be read.
    fn read(&self, mem: &dyn Memory, x: u32, y: u32) -> Result<Texel, String> {
        let at = TexelCoord {
            x,
            y,
            slice: self.slice,
            lod: self.lod,
            sample: 0,
        };
        self.surface.read_texel(mem, at).map_err(|e| e.to_string())
    }

    /// The image in a few words: base, LOD, slice, format and size.
    pub fn describe(&self) -> String {
        let (w, h) = self.surface.desc.level_extent(self.lod);
        format!(
            "{:#x} LOD {} slice {} {} {w}x{h}{}",
            self.surface.base,
            self.lod,
            self.slice,
            self.surface.format.name().unwrap_or("?"),
            if self.surface.desc.samples > 1 {
                format!(" {}x MSAA", self.surface.desc.samples)
            } else {
                String::new()
            }
        )
    }
}

/// The render target images `trace`'s replay writes, in the order it first writes them.
pub fn targets(trace: &gtsim_gpu::aub::Trace) -> Vec<Target> {
    #[derive(Default)]
    struct Lister(Vec<Target>);
    impl Observer for Lister {
        fn draw_end(&mut self, _v: &DrawView, _m: &dyn Memory, outcome: &DrawOutcome) {
            for rt in outcome.targets {
                for s in 0..=rt.array_extent.min(2047) {
                    let t = Target {
                        surface: rt.surface,
                        lod: rt.lod,
                        slice: rt.min_array_element.saturating_add(s),
                    };
                    if !self.0.iter().any(|o| same(o, &t)) {
                        self.0.push(t);
                    }
                }
            }
        }
    }
    let mut l = Lister::default();
    gtsim_gpu::replay::replay_observed(
        trace,
        gtsim_gpu::device::DeviceLimits::default(),
        |_, _| {},
        Some(&mut l),
    );
    l.0
}

/// The same image: surface base, LOD and slice.
fn same(a: &Target, b: &Target) -> bool {
    (a.surface.base, a.lod, a.slice) == (b.surface.base, b.lod, b.slice)
}

/// One draw's part in the pixel's history.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawHistory {
    /// The draw's index in the replay.
    pub draw: usize,
    /// Its submission.
    pub submission: usize,
    /// The 3DPRIMITIVE's address.
    pub addr: u64,
    /// What the pipeline reported at the pixel, in order.
    pub events: Vec<Event>,
    /// The pixel before and after the draw.
    pub before: Result<Texel, String>,
    /// After.
    pub after: Result<Texel, String>,
    /// Whether the draw wrote the watched image (else it covered the position while
    /// writing other targets, or wrote nothing).
    pub writes_target: bool,
}

/// A pixel's history.
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    /// The image.
    pub target: Target,
    /// The pixel.
    pub at: (u32, u32),
    /// The draws that covered or wrote it.
    pub draws: Vec<DrawHistory>,
    /// Hangs met on the way: submission and report.
    pub hangs: Vec<(usize, String)>,
    /// The pixel at the end of the replay.
    pub last: Result<Texel, String>,
}

struct Historian {
    lanes: LaneTrace,
    target: Target,
    at: (u32, u32),
    draws: Vec<DrawHistory>,
    index: usize,
    submission: Option<usize>,
    before: Option<Result<Texel, String>>,
    hangs: Vec<(usize, String)>,
}

impl Observer for Historian {
    fn submission(&mut self, _ring: Ring, _ctx: u32, _batch: u64) {
        self.submission = Some(self.submission.map_or(0, |s| s + 1));
    }

    fn draw_begin(&mut self, _draw: &DrawView, mem: &dyn Memory) {
        // Anything reported outside a draw (nothing should be) is not this draw's.
        let _ = probe::take();
        self.before = Some(self.target.read(mem, self.at.0, self.at.1));
    }

    fn draw_end(&mut self, view: &DrawView, mem: &dyn Memory, outcome: &DrawOutcome) {
        let index = self.index;
        self.index += 1;
        let events = probe::take();
        let writes_target = outcome.targets.iter().any(|rt| {
            rt.surface.base == self.target.surface.base
                && rt.lod == self.target.lod
                && (rt.min_array_element..=rt.min_array_element.saturating_add(rt.array_extent))
                    .contains(&self.target.slice)
        });
        let wrote_here = events
            .iter()
            .any(|e| matches!(e, Event::RtWrite(_) | Event::RtWriteSamples { .. }));
        let before = self.before.take().unwrap_or_else(|| Err("not read".into()));
        let after = self.target.read(mem, self.at.0, self.at.1);
        // A draw is part of the history when it wrote the pixel, covered the position
        // while its render targets include the image (or it wrote none), or changed
        // the pixel some other way (a fast clear or a resolve, which act on the whole
        // surface).
        let covered = !events.is_empty();
        let changed = before != after;
        if !(wrote_here || covered && (writes_target || outcome.targets.is_empty()) || changed) {
            return;
        }
        self.draws.push(DrawHistory {
            draw: index,
            submission: self.submission.unwrap_or(0),
            addr: view.addr,
            events,
            before,
            after,
            writes_target,
        });
        // Only the lane traces asked for are kept: draw N's, or the last writing draw's.
        let keep = match self.lanes {
            LaneTrace::Off => None,
            LaneTrace::Draw(n) => Some(n),
            LaneTrace::LastWrite => self
                .draws
                .iter()
                .rev()
                .find(|d| d.events.iter().any(written))
                .map(|d| d.draw),
        };
        for d in &mut self.draws {
            if Some(d.draw) != keep {
                d.events.retain(|e| !matches!(e, Event::LaneTrace { .. }));
            }
        }
    }

    fn hang(&mut self, hang: &Hang, _s: &dyn gtsim_gpu::device::Latched, _m: &dyn Memory) {
        self.hangs
            .push((self.submission.unwrap_or(0), hang.to_string()));
    }
}

/// Which draw's pixel shader lane to trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneTrace {
    /// None.
    Off,
    /// The last draw that wrote the pixel.
    LastWrite,
    /// Draw N.
    Draw(usize),
}

/// The history of pixel `at` of `target` through `trace`'s replay, with the lane traces
/// `lanes` asks for (the others are not kept).
pub fn history(
    trace: &gtsim_gpu::aub::Trace,
    target: Target,
    at: (u32, u32),
    lanes: LaneTrace,
) -> History {
    history_limited(
        trace,
        target,
        at,
        lanes,
        gtsim_gpu::device::DeviceLimits::default(),
    )
}

/// [`history`] under the given hangcheck limits.
pub fn history_limited(
    trace: &gtsim_gpu::aub::Trace,
    target: Target,
    at: (u32, u32),
    lanes: LaneTrace,
    limits: gtsim_gpu::device::DeviceLimits,
) -> History {
    let mut h = Historian {
        lanes,
        target,
        at,
        draws: vec![],
        index: 0,
        submission: None,
        before: None,
        hangs: vec![],
    };
    probe::watch(Some(Watch {
        base: target.surface.base,
        lod: target.lod,
        slice: target.slice,
        x: at.0,
        y: at.1,
        trace: lanes != LaneTrace::Off,
    }));
    let replay = gtsim_pipe3d::draw::parallel::with_threads(1, || {
        gtsim_gpu::replay::replay_observed(trace, limits, |_, _| {}, Some(&mut h))
    });
    probe::watch(None);
    for (i, why) in &replay.hangs {
        if !h.hangs.iter().any(|(s, _)| s == i) {
            h.hangs.push((*i, why.to_string()));
        }
    }
    History {
        target,
        at,
        draws: h.draws,
        hangs: h.hangs,
        last: target.read(&replay.mem, at.0, at.1),
    }
}

/// Whether `e` is a render target write that wrote the pixel.
fn written(e: &Event) -> bool {
    match e {
        Event::RtWrite(w) => w.dropped.is_none(),
        Event::RtWriteSamples { written, .. } => *written != 0,
        _ => false,
    }
}

/// A texel's channels as the 8-bit integers `gtsim replay` reads back
/// (`gtsim_gpu::replay::texel_rgba8`: floats clamped to [0, 1], scaled to 255 and
/// rounded, integers clamped to 0..=255): a UNORM8 or UINT8 target's stored values.
pub fn final_channels(t: &Texel) -> String {
    let c = gtsim_gpu::replay::texel_rgba8(*t);
    format!("{} {} {} {}", c[0], c[1], c[2], c[3])
}

fn texel(t: &Result<Texel, String>) -> String {
    match t {
        Ok(Texel::Float(c)) => format!("{c:?} (float)"),
        Ok(Texel::Uint(c)) => format!("{c:?} (uint)"),
        Ok(Texel::Sint(c)) => format!("{c:?} (sint)"),
        Err(e) => format!("unreadable ({e})"),
    }
}

/// The history as text: a block per draw, then `final R G B A`.
pub fn report(h: &History) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "pixel ({}, {}) of render target {} (row 0 first in memory)",
        h.at.0,
        h.at.1,
        h.target.describe()
    );
    if h.target.surface.desc.samples > 1 {
        let _ = writeln!(
            o,
            "a multisampled target: before, after and final are sample 0's; each write lists every sample"
        );
    }
    if h.draws.is_empty() {
        let _ = writeln!(o, "no draw covered or wrote it");
    }
    for d in &h.draws {
        let covers = d.events.iter().filter(|e| **e == Event::Covered).count();
        let _ = writeln!(
            o,
            "draw {} (submission {}, 3DPRIMITIVE at {:#x}): {covers} primitive(s) covered it{}",
            d.draw,
            d.submission,
            d.addr,
            if d.writes_target {
                ""
            } else {
                "; it writes other targets"
            }
        );
        let _ = writeln!(o, "  before: {}", texel(&d.before));
        for e in &d.events {
            match e {
                // Compute only (`invocation_trace`).
                Event::Covered | Event::Invocation { .. } => {}
                Event::EarlyDepth {
                    source,
                    stored,
                    stencil,
                    passed,
                } => depth_test(&mut o, "", *source, *stored, *stencil, *passed),
                Event::EarlyDepthSample {
                    sample,
                    source,
                    stored,
                    stencil,
                    passed,
                } => depth_test(
                    &mut o,
                    &format!(" of sample {sample}"),
                    *source,
                    *stored,
                    *stencil,
                    *passed,
                ),
                Event::RtWrite(w) => {
                    let colour = if w.float {
                        format!("{:?}", w.colour.map(f32::from_bits))
                    } else {
                        format!("{:?}", w.colour)
                    };
                    let _ = write!(
                        o,
                        "  render target write (binding table entry {}): the shader's colour {colour}",
                        w.binding_table_index
                    );
                    if let Some((z, p)) = w.late_depth {
                        let _ = write!(
                            o,
                            "; late depth test at {z}: {}",
                            if p { "passed" } else { "failed" }
                        );
                    }
                    match w.dropped {
                        Some(why) => {
                            let _ = writeln!(o, "; not written: {why}");
                        }
                        None if w.blends => {
                            let _ = writeln!(
                                o,
                                "; blended with {} gives {}",
                                texel(&w.before.ok_or_else(|| "-".into())),
                                texel(&w.after.ok_or_else(|| "-".into()))
                            );
                        }
                        None => {
                            let _ = writeln!(
                                o,
                                "; stored (no blending) as {}",
                                texel(&w.after.ok_or_else(|| "-".into()))
                            );
                        }
                    }
                }
                Event::LaneTrace {
                    stage,
                    lane,
                    width,
                    simd,
                    lines,
                } => {
                    let lanes = lanes_label(*lane, *width);
                    let _ = writeln!(
                        o,
                        "  {stage} {lanes} of a SIMD{simd} thread, instruction by instruction:"
                    );
                    for l in lines {
                        let _ = writeln!(o, "    {}", l.replace('\n', "\n    "));
                    }
                }
                Event::RtWriteSamples {
                    binding_table_index,
                    colour,
                    float,
                    covered,
                    written,
                    before,
                    after,
                } => {
                    let colour = if *float {
                        format!("{:?}", colour.map(f32::from_bits))
                    } else {
                        format!("{colour:?}")
                    };
                    let _ = writeln!(
                        o,
                        "  render target write (binding table entry {binding_table_index}): the shader's colour {colour}; samples covered {covered:#b}, written {written:#b}"
                    );
                    for (k, (b, a)) in before.iter().zip(after).enumerate() {
                        let show = |t: &Option<Texel>| texel(&t.ok_or_else(|| "-".into()));
                        let _ = writeln!(o, "    sample {k}: {} -> {}", show(b), show(a));
                    }
                }
            }
        }
        let writes = d
            .events
            .iter()
            .any(|e| matches!(e, Event::RtWrite(_) | Event::RtWriteSamples { .. }));
        if d.before != d.after && !writes {
            let _ = writeln!(
                o,
                "  the pixel changed without a render target write at it (a fast clear or a resolve, which act on the whole surface)"
            );
        }
        let _ = writeln!(o, "  after: {}", texel(&d.after));
    }
    for (s, why) in &h.hangs {
        let _ = writeln!(o, "submission {s} hung: {why}");
    }
    match &h.last {
        Ok(t) => {
            let _ = writeln!(o, "final {}", final_channels(t));
        }
        Err(e) => {
            let _ = writeln!(o, "final: unreadable ({e})");
        }
    }
    o
}

/// A vertex's trace (`gtsim inspect CAPTURE --vertex N --draw M`).
#[derive(Debug, Clone, PartialEq)]
pub struct VertexTrace {
    /// The draw.
    pub draw: usize,
    /// The vertex: the draw's Nth vertex handed to the vertex shader.
    pub vertex: usize,
    /// Draws the replay ran.
    pub draws: usize,
    /// Vertices the draw's vertex shader was handed (`None` when the draw did not run
    /// one).
    pub shaded: Option<usize>,
    /// The trace of the vertex's lanes ([`Event::LaneTrace`]), when it was shaded.
    pub events: Vec<Event>,
}

/// The trace of vertex `vertex` of draw `draw` through `trace`'s replay (on this thread,
/// with the vertex watched).
pub fn vertex_trace(trace: &gtsim_gpu::aub::Trace, draw: usize, vertex: usize) -> VertexTrace {
    struct Watcher {
        draw: usize,
        index: usize,
        shaded: Option<usize>,
        events: Vec<Event>,
    }
    impl Observer for Watcher {
        fn draw_begin(&mut self, _v: &DrawView, _m: &dyn Memory) {
            probe::begin_draw(self.index);
            let _ = probe::take();
        }
        fn draw_end(&mut self, _v: &DrawView, _m: &dyn Memory, _o: &DrawOutcome) {
            if self.index == self.draw {
                self.events = probe::take();
                self.shaded = probe::vertices_shaded().filter(|&n| n > 0);
            }
            self.index += 1;
        }
    }
    let mut w = Watcher {
        draw,
        index: 0,
        shaded: None,
        events: vec![],
    };
    probe::watch_vertex(Some(probe::VertexWatch { draw, vertex }));
    gtsim_pipe3d::draw::parallel::with_threads(1, || {
        gtsim_gpu::replay::replay_observed(
            trace,
            gtsim_gpu::device::DeviceLimits::default(),
            |_, _| {},
            Some(&mut w),
        )
    });
    probe::watch(None);
    VertexTrace {
        draw,
        vertex,
        draws: w.index,
        shaded: w.shaded,
        events: w.events,
    }
}

/// A vertex trace as text.
pub fn report_vertex(v: &VertexTrace) -> String {
    let mut o = String::new();
    if v.draw >= v.draws {
        let _ = writeln!(
            o,
            "draw {} is not in the capture: it has {} draws",
            v.draw, v.draws
        );
        return o;
    }
    match v.shaded {
        None => {
            let _ = writeln!(o, "draw {} runs no vertex shader", v.draw);
        }
        Some(n) if v.vertex >= n => {
            let _ = writeln!(
                o,
                "draw {} hands its vertex shader {n} vertices: there is no vertex {}",
                v.draw, v.vertex
            );
        }
        Some(n) => {
            let _ = writeln!(
                o,
                "vertex {} of the {n} vertices draw {} hands its vertex shader:",
                v.vertex, v.draw
            );
        }
    }
    lane_traces(&mut o, &v.events);
    o
}

/// An early depth test's line (`what`: which sample, if one).
fn depth_test(
    o: &mut String,
    what: &str,
    source: f32,
    stored: Option<f32>,
    stencil: Option<u8>,
    passed: bool,
) {
    let _ = writeln!(
        o,
        "  early depth/stencil test{what}: source depth {source}, stored {}{}: {}",
        stored.map_or("-".into(), |z| z.to_string()),
        stencil.map_or(String::new(), |s| format!(", stencil {s}")),
        if passed { "passed" } else { "failed" }
    );
}

/// "lane L", or "lanes L-M" for a trace of `width` lanes from `lane`.
pub(crate) fn lanes_label(lane: usize, width: usize) -> String {
    if width > 1 {
        format!("lanes {lane}-{}", lane + width - 1)
    } else {
        format!("lane {lane}")
    }
}

/// The lane traces among `events`, as text.
fn lane_traces(o: &mut String, events: &[Event]) {
    for e in events {
        if let Event::LaneTrace {
            stage,
            lane,
            width,
            simd,
            lines,
        } = e
        {
            let lanes = lanes_label(*lane, *width);
            let _ = writeln!(
                o,
                "{stage} {lanes} of a SIMD{simd} thread, instruction by instruction:"
            );
            for l in lines {
                let _ = writeln!(o, "  {}", l.replace('\n', "\n  "));
            }
        }
    }
}

/// A compute invocation's trace (`gtsim inspect CAPTURE --invocation X,Y,Z`).
#[derive(Debug, Clone, PartialEq)]
pub struct InvocationTrace {
    /// What was watched.
    pub watch: probe::InvocationWatch,
    /// GPGPU walkers the replay ran.
    pub walkers: usize,
    /// Where the walker put the invocation ([`Event::Invocation`]) and its lane's trace
    /// ([`Event::LaneTrace`]), when the walker ran it.
    pub events: Vec<Event>,
}

/// The trace of compute invocation `watch` through `trace`'s replay (on this thread,
/// with the invocation watched).
pub fn invocation_trace(
    trace: &gtsim_gpu::aub::Trace,
    watch: probe::InvocationWatch,
) -> InvocationTrace {
    probe::watch_invocation(Some(watch));
    gtsim_pipe3d::draw::parallel::with_threads(1, || {
        gtsim_gpu::replay::replay_observed(
            trace,
            gtsim_gpu::device::DeviceLimits::default(),
            |_, _| {},
            None,
        )
    });
    let walkers = probe::walkers_begun().unwrap_or(0);
    let events = probe::take();
    probe::watch(None);
    InvocationTrace {
        watch,
        walkers,
        events,
    }
}

/// An invocation trace as text.
pub fn report_invocation(v: &InvocationTrace) -> String {
    let mut o = String::new();
    let w = &v.watch;
    if w.walker >= v.walkers {
        let _ = writeln!(
            o,
            "walker {} is not in the capture: it has {} GPGPU walkers",
            w.walker, v.walkers
        );
        return o;
    }
    let mut placed = false;
    for e in &v.events {
        if let Event::Invocation {
            group,
            thread,
            lane,
            local_size,
            simd,
            threads,
            outside,
        } = e
        {
            placed = true;
            let [x, y, z] = w.id;
            match outside {
                Some(why) => {
                    let _ = writeln!(
                        o,
                        "walker {} does not run invocation ({x}, {y}, {z}): {why}",
                        w.walker
                    );
                }
                None => {
                    let _ = writeln!(
                        o,
                        "invocation ({x}, {y}, {z}) of walker {}: thread group {group:?}, thread {thread} of {threads} (SIMD{simd}), channel {lane}; workgroup size {local_size:?}{}",
                        w.walker,
                        if w.local_size.is_none() {
                            " (the group's channels in a row; --local-size gives the shader's)"
                        } else {
                            ""
                        }
                    );
                }
            }
        }
    }
    if !placed {
        let _ = writeln!(
            o,
            "walker {} dispatches no compute threads (no kernel, or an empty grid)",
            w.walker
        );
    }
    lane_traces(&mut o, &v.events);
    o
}
