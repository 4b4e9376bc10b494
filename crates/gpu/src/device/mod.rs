//! The device: a command streamer that executes batch buffers against graphics memory,
//! with per-context state kept across submissions.
//!
//! # Model
//!
//! A submission names a context and a batch address. The command streamer reads commands
//! from memory one at a time (seed 004 §1.4: state commands are latched into the
//! context, 3DPRIMITIVE consumes them), identifies each through the spec's opcode tables
//! and decodes it with the generated typed structs. What it executes today:
//!
//! * the MI commands: batch chaining and end, register loads and stores (MMIO through a
//!   register file, masked registers honoured), data stores and hardware-status-page
//!   stores, predication, conditional batch end, and the no-op flushes and arbitration
//!   commands; the MI commands the model cannot honour are refused as hangs;
//! * PIPE_CONTROL's post-sync operations (write immediate, PS_DEPTH_COUNT, TIMESTAMP),
//!   which is how a driver learns a batch is done (seed 004 §1.10.4);
//! * state commands (3DSTATE_*, STATE_BASE_ADDRESS, PIPELINE_SELECT, media state), which
//!   are latched into the context's state image (STATE_BASE_ADDRESS by its modify
//!   enables, vertex buffers by index);
//! * 3DPRIMITIVE, through the 3D pipeline of `gtsim-pipe3d`, adding the draw's pipeline
//!   statistics to their registers.
//!
//! GPGPU_WALKER runs its thread groups and MEDIA_OBJECT its thread (`gtsim-pipe3d`'s
//! `compute` and `media`); MEDIA_OBJECT_PRT, MEDIA_OBJECT_WALKER and GPGPU_OBJECT are not
//! executed yet: each is recorded in the [`SubmitReport`] so nothing is silently
//! skipped. Everything else a batch can do wrong (an unknown command, a page fault, a
//! runaway batch, a feature not modelled) stops the submission with a [`Hang`], the way a
//! GPU hang is reported: with the command, its address and what went wrong.
//!
//! One command streamer serves every generation (`cs.rs`): it executes the MI commands
//! and PIPE_CONTROL itself, reading their fields by name through the generation's
//! tables, and hands every other command to the generation's [`Front`] (Ivy Bridge's in
//! `gen7.rs`, Ice Lake's in `gen11.rs`, which runs GPGPU_WALKER and refuses draws for
//! now). A [`Context`] holds that front's latched state.
//!
//! Time: the device clock (TIMESTAMP) advances one tick per executed command, so the
//! same submission always produces the same bits.

mod alu;
mod atomic;
mod blt;
pub mod cs;
mod fields;
pub mod front;
mod gen11;
mod gen7;
pub mod observe;
mod pipe_control;
mod predicate;
mod registers;
mod statistics;
mod vebox;

pub use front::{Front, Latched};
pub use registers::RegisterFile;

use gtsim_mem::{Fault, Memory};
use gtsim_pipe3d::draw::{Watchdog, WorkLimits};
use gtsim_spec::UnpackError;
use gtsim_spec::table::{Def, Generation};
use std::collections::BTreeMap;
use thiserror::Error;

/// A submission that could not complete: what a GPU hang report would say.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Hang {
    /// A dword that is no command this generation knows.
    #[error("unknown command {dw0:#010x} at {addr:#x}")]
    UnknownCommand {
        /// Address of the dword.
        addr: u64,
        /// The dword.
        dw0: u32,
    },
    /// A command whose dwords do not decode (wrong length, bad array).
    #[error("{command} at {addr:#x}: {error}")]
    Decode {
        /// Command name.
        command: &'static str,
        /// Its address.
        addr: u64,
        /// Why.
        #[source]
        error: UnpackError,
    },
    /// A memory access faulted.
    #[error("{command} at {addr:#x}: {fault}")]
    Fault {
        /// Command (or "command fetch").
        command: &'static str,
        /// Address of the command.
        addr: u64,
        /// The fault.
        #[source]
        fault: Fault,
    },
    /// A feature of a command that the model does not implement yet.
    #[error("{command} at {addr:#x}: {unsupported}")]
    Unsupported {
        /// Command.
        command: &'static str,
        /// Its address.
        addr: u64,
        /// What is missing, and where the behaviour is specified.
        #[source]
        unsupported: gtsim_spec::Unsupported,
    },
    /// A 3DPRIMITIVE that could not complete.
    #[error("3DPRIMITIVE at {addr:#x}: {error}")]
    Draw {
        /// Address of the command.
        addr: u64,
        /// What went wrong.
        #[source]
        error: gtsim_pipe3d::draw::DrawError,
    },
    /// A command the front carries out itself (Gen11's 3DSTATE_WM_HZ_OP clears) failed.
    #[error("{command} at {addr:#x}: {error}")]
    Command {
        /// The command.
        command: &'static str,
        /// Its address.
        addr: u64,
        /// What went wrong (boxed: the rarer hang keeps `Hang` small).
        #[source]
        error: Box<gtsim_pipe3d::draw::DrawError>,
    },
    /// A GPGPU_WALKER whose thread groups could not complete (or that its state
    /// refused).
    #[error("GPGPU_WALKER at {addr:#x}: {error}")]
    Walker {
        /// Address of the command.
        addr: u64,
        /// What went wrong.
        #[source]
        error: gtsim_pipe3d::draw::DrawError,
    },
    /// A MEDIA_OBJECT or MEDIA_OBJECT_WALKER whose thread could not complete.
    #[error("{} at {addr:#x}: {error}", media_command(*.walker))]
    Media {
        /// Whether the command is a MEDIA_OBJECT_WALKER (else a MEDIA_OBJECT).
        walker: bool,
        /// Address of the command.
        addr: u64,
        /// What went wrong.
        #[source]
        error: gtsim_pipe3d::draw::DrawError,
    },
    /// A blit whose work crossed the submission's limits.
    #[error("{command} at {addr:#x}: {error}")]
    Blit {
        /// Command.
        command: &'static str,
        /// Its address.
        addr: u64,
        /// What went wrong (boxed: the error is large and rare).
        #[source]
        error: Box<gtsim_pipe3d::draw::DrawError>,
    },
    /// An MI_SEMAPHORE_WAIT whose condition does not hold: nothing else runs while the
    /// batch waits, so it would wait forever.
    #[error(
        "MI_SEMAPHORE_WAIT at {addr:#x}: the dword at {semaphore:#x} is {value:#x}, and nothing can change it to meet the wait on {data:#x}"
    )]
    Semaphore {
        /// Address of the command.
        addr: u64,
        /// The semaphore's address.
        semaphore: u64,
        /// Its value.
        value: u32,
        /// The Semaphore Data the wait compares it with.
        data: u32,
    },
    /// The batch never ended.
    #[error("batch at {start:#x} executed {limit} commands without MI_BATCH_BUFFER_END")]
    Runaway {
        /// Where the batch started.
        start: u64,
        /// The limit reached.
        limit: usize,
    },
}

/// The name of a media command (`Hang::Media`).
fn media_command(walker: bool) -> &'static str {
    if walker {
        "MEDIA_OBJECT_WALKER"
    } else {
        "MEDIA_OBJECT"
    }
}

impl Hang {
    /// The address of the command that hung (for a runaway batch, where it started).
    pub fn addr(&self) -> u64 {
        match self {
            Hang::UnknownCommand { addr, .. }
            | Hang::Decode { addr, .. }
            | Hang::Fault { addr, .. }
            | Hang::Unsupported { addr, .. }
            | Hang::Draw { addr, .. }
            | Hang::Command { addr, .. }
            | Hang::Walker { addr, .. }
            | Hang::Media { addr, .. }
            | Hang::Blit { addr, .. }
            | Hang::Semaphore { addr, .. } => *addr,
            Hang::Runaway { start, .. } => *start,
        }
    }

    /// The page fault behind this hang, with its address, however deep it happened: a
    /// command's own access, a fixed-function unit's, or a shared function's inside a
    /// shader thread's message.
    pub fn fault(&self) -> Option<Fault> {
        match self {
            Hang::Fault { fault, .. } => Some(*fault),
            Hang::Draw { error, .. } | Hang::Walker { error, .. } | Hang::Media { error, .. } => {
                error.fault()
            }
            Hang::Command { error, .. } => error.fault(),
            _ => None,
        }
    }
}

/// A command streamer of the GPU (Linux i915's I915_EXEC_RENDER, I915_EXEC_BLT and
/// I915_EXEC_VEBOX).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ring {
    /// The render ring (RCS): MI, 3D, media and GPGPU commands.
    Render,
    /// The blitter ring (BCS): MI commands and the 2D blitter's.
    Blitter,
    /// Gen11's video enhancement ring (VECS): MI commands and the VEBOX's and SFC's
    /// (`vebox`).
    VideoEnhance,
}

/// What a completed submission did.
#[derive(Debug, Clone, Default)]
pub struct SubmitReport {
    /// Commands executed.
    pub commands: usize,
    /// 3DPRIMITIVEs executed.
    pub draws: usize,
    /// MEDIA_OBJECTs executed.
    pub media_objects: usize,
    /// 2D blits (XY_COLOR_BLT, XY_SRC_COPY_BLT) executed.
    pub blits: usize,
    /// GPGPU_WALKERs executed.
    pub walkers: usize,
    /// Render targets the draws wrote, one per surface address (the last description).
    pub render_targets: Vec<gtsim_pipe3d::draw::RenderTarget>,
    /// Work the model does not execute yet, one line each (media and GPGPU walkers).
    pub not_executed: Vec<String>,
    /// The work the hangcheck counted ([`gtsim_pipe3d::draw::Watchdog`]): EU
    /// instructions, vertices and pixels.
    pub work: [u64; 3],
}

/// Which GPU the device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Platform {
    /// Ivy Bridge GT2 (Gen7): seeds 000 and 004; the whole 3D and GPGPU pipelines.
    #[default]
    IvyBridge,
    /// Ice Lake GT2 (Gen11): seed 003. The command streamer runs the MI commands,
    /// latches state and runs GPGPU_WALKERs (`gtsim_gen11`); draws are not modelled yet.
    IceLake,
}

impl Platform {
    /// The platform of a PCI device id, as an AUB header names it: Ivy Bridge's
    /// 0x0152-0x016A (Mesa i965_pci_ids.h / crocus) and Ice Lake's 0x8A50-0x8A5D (Mesa
    /// iris_pci_ids.h); `None` for any other.
    pub fn from_pci_id(id: u32) -> Option<Platform> {
        match id {
            0x0152..=0x016a => Some(Platform::IvyBridge),
            0x8a50..=0x8a5d => Some(Platform::IceLake),
            _ => None,
        }
    }

    /// The part's device-info record.
    pub fn info(self) -> &'static gtsim_spec::DeviceInfo {
        match self {
            Platform::IvyBridge => <gtsim_gen7::LatchedState as Front>::INFO,
            Platform::IceLake => <gtsim_gen11::LatchedState as Front>::INFO,
        }
    }

    /// The generation's spec tables (commands, structures, registers).
    pub fn generation(self) -> &'static Generation {
        self.info().tables
    }
}

/// One hardware context: the state a context image saves and restores, with its
/// generation's latched state `F` (the Gen7 front's unless said).
#[derive(Debug, Clone, Default)]
pub struct Context<F = gtsim_gen7::LatchedState> {
    /// MMIO registers as this context sees them.
    pub registers: RegisterFile,
    /// The latched state, each command decoded once when latched.
    pub state: F,
    /// Kernels decoded for this context, until an instruction cache invalidation.
    pub kernels: gtsim_pipe3d::draw::KernelCache,
    /// The VEBOX and SFC state a video enhancement context latched.
    pub vebox: vebox::Latched,
    /// Gen9+ fast clears whose clear value a later surface state may still set
    /// (`gtsim_gen11::draw::PendingClears`).
    pub pending_clears: gtsim_gen11::draw::PendingClears,
}

/// Limits that turn runaway guests into hangs (the model's hangcheck): a submission
/// that crosses one ends as a [`Hang`], its context is marked guilty by the kernel
/// emulation, and the client goes on.
#[derive(Debug, Clone, Copy)]
pub struct DeviceLimits {
    /// Commands one submission may execute (`GTSIM_WATCHDOG_COMMANDS`).
    pub max_commands: usize,
    /// EU instructions, vertices and pixels one submission's draws may use.
    pub work: WorkLimits,
}

impl Default for DeviceLimits {
    /// [`DeviceLimits::from_env`]: the built-in limits unless the environment says
    /// otherwise.
    fn default() -> Self {
        Self::from_env()
    }
}

impl DeviceLimits {
    /// The built-in limits: 10 million commands, and [`WorkLimits::default`].
    pub const BUILT_IN: DeviceLimits = DeviceLimits {
        max_commands: 10_000_000,
        work: WorkLimits::BUILT_IN,
    };

    /// The built-in limits, each overridden by its environment variable when set to a
    /// number: `GTSIM_WATCHDOG_COMMANDS` and those of [`WorkLimits::from_env`].
    pub fn from_env() -> Self {
        let mut l = Self {
            work: WorkLimits::from_env(),
            ..Self::BUILT_IN
        };
        if let Ok(v) = std::env::var("GTSIM_WATCHDOG_COMMANDS") {
            match v.trim().parse() {
                Ok(n) => l.max_commands = n,
                Err(_) => tracing::warn!("ignoring GTSIM_WATCHDOG_COMMANDS={v:?}: not a number"),
            }
        }
        l
    }
}

/// The GPU.
#[derive(Debug, Default)]
pub struct Device {
    /// Which GPU this is.
    pub platform: Platform,
    contexts: BTreeMap<u32, Context>,
    gen11_contexts: BTreeMap<u32, Context<gtsim_gen11::LatchedState>>,
    /// Device clock in TIMESTAMP ticks.
    pub clock: u64,
    /// Limits.
    pub limits: DeviceLimits,
}

impl Device {
    /// A device with no contexts and the limits the environment sets
    /// ([`DeviceLimits::from_env`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// A device of `platform` with no contexts.
    pub fn with_platform(platform: Platform) -> Self {
        Self {
            platform,
            ..Self::default()
        }
    }

    /// The state of Ivy Bridge context `id` (created empty on first use).
    pub fn context(&mut self, id: u32) -> &mut Context {
        debug_assert_eq!(
            self.platform,
            Platform::IvyBridge,
            "an Ice Lake device's contexts are gen11_context's"
        );
        new_context(&mut self.contexts, id)
    }

    /// The state of Ice Lake context `id` (created empty on first use).
    pub fn gen11_context(&mut self, id: u32) -> &mut Context<gtsim_gen11::LatchedState> {
        debug_assert_eq!(
            self.platform,
            Platform::IceLake,
            "an Ivy Bridge device's contexts are context's"
        );
        new_context(&mut self.gen11_contexts, id)
    }

    /// Forgets a context.
    pub fn destroy_context(&mut self, id: u32) {
        // With its blitter-ring and video-enhancement-ring contexts (see `submit_on`).
        for id in [id, id | 1 << 31, id | 1 << 30] {
            self.contexts.remove(&id);
            self.gen11_contexts.remove(&id);
        }
    }

    /// Reads a register of a context, as MMIO reads (REG_READ) see it.
    pub fn read_register(&mut self, ctx: u32, offset: u32) -> u32 {
        let clock = self.clock;
        match self.platform {
            Platform::IvyBridge => self.context(ctx).registers.read(offset, clock),
            Platform::IceLake => self.gen11_context(ctx).registers.read(offset, clock),
        }
    }

    /// Executes the batch at `batch` in context `ctx`.
    pub fn submit(
        &mut self,
        ctx: u32,
        batch: u64,
        mem: &mut dyn Memory,
    ) -> Result<SubmitReport, Hang> {
        self.submit_on(Ring::Render, ctx, batch, mem)
    }

    /// [`Device::submit`] on `ring`: the render ring runs everything but the 2D
    /// blitter commands, the blitter ring (Gen7 only) the MI commands and those.
    pub fn submit_on(
        &mut self,
        ring: Ring,
        ctx: u32,
        batch: u64,
        mem: &mut dyn Memory,
    ) -> Result<SubmitReport, Hang> {
        // Each ring keeps its own registers and state, as each engine does: the
        // blitter's context is a second one per i915 context (`submit_observed`).
        self.submit_observed(ring, ctx, batch, mem, None)
    }

    /// [`Device::submit_on`], telling `observer` what runs: every command; on Gen7 also
    /// each draw and the state at a hang (Gen11 draws are not modelled).
    pub fn submit_observed(
        &mut self,
        ring: Ring,
        ctx: u32,
        batch: u64,
        mem: &mut dyn Memory,
        mut observer: Option<&mut dyn observe::Observer>,
    ) -> Result<SubmitReport, Hang> {
        if let Some(o) = observer.as_deref_mut() {
            o.submission(ring, ctx, batch);
        }
        let ctx = match ring {
            Ring::Render => ctx,
            Ring::Blitter => ctx | 1 << 31,
            Ring::VideoEnhance => ctx | 1 << 30,
        };
        match self.platform {
            Platform::IvyBridge if ring == Ring::VideoEnhance => Err(Hang::Unsupported {
                command: "the video enhancement ring",
                addr: batch,
                unsupported: gtsim_spec::Unsupported::new(
                    "a video enhancement ring on Ivy Bridge (the VEBOX came with Haswell)",
                    "seed 004 (Ivy Bridge has the render, video and blitter rings)",
                ),
            }),
            Platform::IceLake if ring == Ring::Blitter => Err(Hang::Unsupported {
                command: "the blitter ring",
                addr: batch,
                unsupported: gtsim_spec::Unsupported::new(
                    "Gen11's blitter ring",
                    "seed 003 (BR00, BR13: the blitter's registers only)",
                ),
            }),
            Platform::IvyBridge => run(
                &mut self.contexts,
                &mut self.clock,
                self.limits,
                ring,
                ctx,
                batch,
                mem,
                observer,
            ),
            Platform::IceLake => run(
                &mut self.gen11_contexts,
                &mut self.clock,
                self.limits,
                ring,
                ctx,
                batch,
                mem,
                observer,
            ),
        }
    }
}

/// Context `id` of `contexts`, created with its generation's registers on first use.
fn new_context<F: Front>(contexts: &mut BTreeMap<u32, Context<F>>, id: u32) -> &mut Context<F> {
    contexts.entry(id).or_insert_with(|| Context {
        registers: RegisterFile::for_generation(F::INFO.tables),
        state: F::default(),
        kernels: Default::default(),
        vebox: Default::default(),
        pending_clears: Default::default(),
    })
}

/// Runs `batch` in context `ctx` of `contexts` with the one command streamer, telling
/// `observer` of a hang with the context's state at that moment.
#[allow(
    clippy::too_many_arguments,
    reason = "the device's fields, split so the generation's context map is borrowed alone"
)]
fn run<F: Front>(
    contexts: &mut BTreeMap<u32, Context<F>>,
    clock: &mut u64,
    limits: DeviceLimits,
    ring: Ring,
    ctx: u32,
    batch: u64,
    mem: &mut dyn Memory,
    mut observer: Option<&mut dyn observe::Observer>,
) -> Result<SubmitReport, Hang> {
    let mut context = std::mem::take(new_context(contexts, ctx));
    // Linux i915 starts every batch with a PIPE_CONTROL that invalidates the caches,
    // the instruction cache among them (gen8_emit_flush_rcs and gen7_render_ring_flush
    // with EMIT_INVALIDATE: PIPE_CONTROL_INSTRUCTION_CACHE_INVALIDATE): a kernel a
    // driver rewrote in place between batches is fetched again (iris reuses freed
    // shader memory). Unchanged kernels are taken up again (`KernelCache::get`).
    context.kernels.invalidate();
    let result = cs::CommandStreamer {
        device_clock: clock,
        ctx: &mut context,
        mem,
        limits,
        watchdog: Watchdog::new(limits.work),
        ring,
        observer: match observer.as_mut() {
            Some(o) => Some(&mut **o),
            None => None,
        },
    }
    .run(batch);
    if let (Err(h), Some(o)) = (&result, observer) {
        o.hang(h, &context.state, &*mem);
    }
    *new_context(contexts, ctx) = context;
    result
}

/// Identifies the command at `addr` in `generation`'s tables and reads all its dwords.
pub(crate) fn fetch(
    generation: &'static Generation,
    mem: &dyn Memory,
    addr: u64,
) -> Result<(&'static Def, Vec<u32>), Hang> {
    let dw0 = mem.read_u32(addr).map_err(|fault| Hang::Fault {
        command: "command fetch",
        addr,
        fault,
    })?;
    let def = generation
        .identify(dw0)
        .ok_or(Hang::UnknownCommand { addr, dw0 })?;
    let len = def.length(dw0).unwrap_or(1).max(1);
    let dwords = mem.read_dwords(addr, len).map_err(|fault| Hang::Fault {
        command: def.name,
        addr,
        fault,
    })?;
    Ok((def, dwords))
}

#[cfg(test)]
mod blt_tests;
#[cfg(test)]
mod cs_tests;
#[cfg(test)]
mod gen11_tests;
#[cfg(test)]
mod tests;
