//! What an inspection records: the submissions with their commands, and for each draw
//! and each hang what the pages show. Built by [`crate::record::Recorder`] while the
//! capture replays, written out by [`crate::html`].

use gtsim_pipe3d::draw::{StageTimes, Statistics};

/// The whole report.
#[derive(Debug, Default)]
pub struct Report {
    /// The capture's name, as the user gave it.
    pub source: String,
    /// Submissions in replay order.
    pub submissions: Vec<Submission>,
    /// Every draw, in order.
    pub draws: Vec<Draw>,
    /// Every hang, in order.
    pub hangs: Vec<HangPage>,
    /// What the replay could not show, one line each.
    pub notes: Vec<String>,
    /// The capture's generation, whose tables name its commands' fields (Gen7 when
    /// `None`).
    pub generation: Option<&'static gtsim_spec::table::Generation>,
    /// The frames the display showed (the capture's bitmap dumps), in order: each its
    /// picture under `img/`, or why it could not be read.
    pub display: Vec<Result<String, String>>,
}

impl Report {
    /// The tables that name the capture's commands' fields.
    pub fn generation(&self) -> &'static gtsim_spec::table::Generation {
        self.generation.unwrap_or(&gtsim_spec::gen7::GENERATION)
    }
}

/// One submission (one execbuffer).
#[derive(Debug, Default)]
pub struct Submission {
    /// "render" or "blitter".
    pub ring: &'static str,
    /// The hardware context.
    pub context: u32,
    /// The batch's address.
    pub batch: u64,
    /// The commands executed, in order (at most [`crate::record::MAX_COMMANDS`]), until
    /// the submission's page is written.
    pub commands: Vec<Command>,
    /// Commands executed beyond those listed.
    pub unlisted: usize,
    /// Commands executed.
    pub count: usize,
    /// Draws.
    pub draws: usize,
    /// The hang that ended it (an index into [`Report::hangs`]).
    pub hang: Option<usize>,
}

/// One executed command.
#[derive(Debug, Clone)]
pub struct Command {
    /// Its address.
    pub addr: u64,
    /// Its spec name.
    pub name: &'static str,
    /// Its dwords.
    pub dwords: Vec<u32>,
    /// The draw it is (an index into [`Report::draws`]).
    pub draw: Option<usize>,
}

/// A field as the manual names it, with its value.
#[derive(Debug, Clone)]
pub struct Field {
    /// Nesting depth (array elements and nested structures are indented).
    pub depth: usize,
    /// The manual's name.
    pub name: String,
    /// The value, as `gtsim decode` prints it.
    pub value: String,
    /// A reserved field that is not zero.
    pub warning: bool,
}

/// A structure with its fields (a state command, a surface state).
#[derive(Debug, Clone)]
pub struct Structure {
    /// Its spec name.
    pub name: String,
    /// Its fields.
    pub fields: Vec<Field>,
}

/// The state of one pipeline stage.
#[derive(Debug, Clone)]
pub struct StateGroup {
    /// The stage, as the manual's chapters name it.
    pub stage: &'static str,
    /// Its latched commands.
    pub structures: Vec<Structure>,
}

/// An image written to the report, or why there is none.
#[derive(Debug, Clone, Default)]
pub struct Picture {
    /// What it shows ("level 0", "slice 2, level 1", "before", ...).
    pub label: String,
    /// Its file, relative to the report's folder (colour shown opaque).
    pub file: Option<String>,
    /// Width and height.
    pub size: (u32, u32),
    /// Why there is no file, or what to know about it.
    pub note: Option<String>,
    /// The alpha channel as a grey-scale file, when it varies.
    pub alpha: Option<String>,
    /// The alpha channel's one value, when it is the same everywhere and not 255.
    pub alpha_value: Option<u8>,
    /// The render target it shows, for a render target's picture (a click on it asks
    /// for a pixel's history, `crate::trace_page`).
    pub target: Option<crate::trace_page::PictureTarget>,
}

/// A render target, depth or stencil buffer a draw wrote, before and after.
#[derive(Debug, Clone)]
pub struct Written {
    /// What it is ("render target (binding table 0)", "depth buffer", ...).
    pub what: String,
    /// Its address.
    pub addr: u64,
    /// Its format's name.
    pub format: String,
    /// Before the draw.
    pub before: Picture,
    /// After it.
    pub after: Picture,
}

/// A surface a stage's binding table names.
#[derive(Debug, Clone)]
pub struct BoundSurface {
    /// The stage.
    pub stage: &'static str,
    /// Its binding table index.
    pub bti: u8,
    /// The surface state's address.
    pub state_addr: u64,
    /// One line: type, size, format.
    pub summary: String,
    /// RENDER_SURFACE_STATE's fields.
    pub state: Structure,
    /// Every level and slice.
    pub pictures: Vec<Picture>,
}

/// A kernel a draw ran.
#[derive(Debug, Clone)]
pub struct Shader {
    /// The stage and what dispatches it ("pixel shader, SIMD16").
    pub stage: String,
    /// Its address.
    pub addr: u64,
    /// Instructions up to its end of thread.
    pub instructions: usize,
    /// The disassembly (Mesa syntax).
    pub listing: Vec<String>,
    /// Why the listing stops early, if it does.
    pub error: Option<String>,
    /// The binding table entries its messages name.
    pub bindings: Vec<u8>,
    /// The entries its render target writes name.
    pub render_targets: Vec<u8>,
    /// The sampler states its sampler messages name.
    pub samplers: Vec<u8>,
    /// Some message takes its descriptor from a register.
    pub indirect: bool,
}

/// One 3DPRIMITIVE. Once its page is written only what the index shows is kept
/// ([`Draw::light`]).
#[derive(Debug, Default)]
pub struct Draw {
    /// The submission it is in.
    pub submission: usize,
    /// The 3DPRIMITIVE's address.
    pub addr: u64,
    /// The 3DPRIMITIVE's fields.
    pub primitive: Vec<Field>,
    /// The latched state, by stage.
    pub state: Vec<StateGroup>,
    /// What it wrote, before and after.
    pub written: Vec<Written>,
    /// The surfaces its stages' binding tables name.
    pub surfaces: Vec<BoundSurface>,
    /// Its kernels.
    pub shaders: Vec<Shader>,
    /// The pipeline statistics it added.
    pub stats: Statistics,
    /// What it ran, counted whatever the statistics registers count (a driver turns
    /// statistics off for its own blits, clears and mipmap generation).
    pub ran: gtsim_gpu::device::observe::Ran,
    /// Host time in its stages.
    pub times: StageTimes,
    /// Why it stopped, when it hung.
    pub error: Option<String>,
    /// What could not be shown, one line each.
    pub notes: Vec<String>,
    /// Only its counts are kept (past [`crate::record::MAX_DRAWS`] draws).
    pub summary_only: bool,
}

/// A hang.
#[derive(Debug, Default)]
pub struct HangPage {
    /// The submission it ended.
    pub submission: usize,
    /// The listed commands before the hang, up to the one it happened in.
    pub before: Vec<Command>,
    /// The command it happened in, when it was fetched and listed: its index in
    /// `before` (the last).
    pub command: Option<usize>,
    /// The batch ran past the command limit (the address is where it started).
    pub runaway: bool,
    /// The hang report, with its seed reference.
    pub reason: String,
    /// The draw it happened in.
    pub draw: Option<usize>,
    /// The latched state at that moment.
    pub state: Vec<StateGroup>,
    /// The commands after the one that hung, as they are in memory (not executed).
    pub after: Vec<Command>,
    /// The address of the command that hung.
    pub addr: u64,
    /// The dwords from there, as they are in memory.
    pub raw: Vec<u32>,
}

impl Draw {
    /// What the index needs of a draw whose page is written: its place, counts, time,
    /// outcome and what it wrote (pictures are files already).
    pub fn light(&mut self) {
        self.primitive = vec![];
        self.state = vec![];
        self.surfaces = vec![];
        self.shaders = vec![];
        self.notes = vec![];
    }
}
