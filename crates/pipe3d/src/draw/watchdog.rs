//! The model's hangcheck: limits on the work one submission may do.
//!
//! A real GPU executes whatever it is given; the kernel's hangcheck resets an engine that
//! makes no progress for seconds and marks the context guilty. A model that runs on the
//! host's CPU needs the same protection against a guest that asks for months of work (an
//! instance count of 0xffffffff, a batch that jumps back to its start with draws in it, a
//! shader that never ends): every draw of a submission charges the EU instructions its
//! threads execute, the vertices the VF fetches and the pixels the WM dispatches to one
//! [`Watchdog`], and the first limit crossed ends the submission with
//! [`DrawError::Watchdog`], which the device reports as a GPU hang naming the command.
//!
//! Linux's hangcheck is a clock: i915 sends a heartbeat request to each engine every
//! 2.5 s (`heartbeat_interval_ms`) and resets the engine when one cannot get through in
//! time (`preempt_timeout_ms`, 640 ms, on engines that preempt; Linux
//! `drivers/gpu/drm/i915/gt/intel_engine_heartbeat.c`). A GPU that preempts between
//! commands (Gen9+ 3D object-level preemption) lets the heartbeat through between
//! draws, so what the kernel resets within seconds is a command that does not finish:
//! a runaway draw, dispatch or blit. The model's clock is the same:
//! [`WorkLimits::host_seconds`] of host time per command ([`Watchdog::begin_command`]),
//! checked as the work is charged (each thread, each chunk of vertices, each primitive's
//! pixels). Only a command that reaches it depends on the host's speed; every other
//! submission runs to the same bits whatever the thread count or load.
//!
//! The counts bound a whole submission, deterministically, whatever its commands: a
//! batch that loops over draws, which preemption would let run on a real GPU, ends at
//! them. They cannot be calibrated to ten seconds without failing legitimate work:
//! piglit's `longprim` fetches 5.7 million vertices in one submission and
//! `ext_framebuffer_multisample-accuracy` shades 76 million pixels in one, as much
//! work as a runaway draw does in ten seconds (BENCHMARKS.md, "sixteenth session").
//!
//! The limits are configurable ([`WorkLimits::from_env`]).

use std::time::{Duration, Instant};

use super::DrawError;

/// Work one submission may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkLimits {
    /// EU instructions executed by all threads (each instruction once, whatever its
    /// width).
    pub eu_instructions: u64,
    /// Vertices fetched by the VF (every instance counts).
    pub vertices: u64,
    /// Pixels rasterized and handed to the WM.
    pub pixels: u64,
    /// Host (wall-clock) seconds one command (a draw, a dispatch, a blit) may take,
    /// the kernel's hangcheck; 0 turns it off.
    pub host_seconds: u64,
}

/// Environment variables that set [`WorkLimits`].
pub const ENV_EU_INSTRUCTIONS: &str = "GTSIM_WATCHDOG_EU_INSTRUCTIONS";
/// See [`ENV_EU_INSTRUCTIONS`].
pub const ENV_VERTICES: &str = "GTSIM_WATCHDOG_VERTICES";
/// See [`ENV_EU_INSTRUCTIONS`].
pub const ENV_PIXELS: &str = "GTSIM_WATCHDOG_PIXELS";
/// See [`ENV_EU_INSTRUCTIONS`].
pub const ENV_SECONDS: &str = "GTSIM_WATCHDOG_SECONDS";

impl Default for WorkLimits {
    /// [`WorkLimits::BUILT_IN`].
    fn default() -> Self {
        WorkLimits::BUILT_IN
    }
}

impl WorkLimits {
    /// The built-in limits: 2^30 EU instructions, 2^25 vertices and 2^30 pixels per
    /// submission (minutes of work; a piglit test's submissions use at most a few
    /// tens of millions), and 8 s of host time per command (a runaway draw is
    /// reported within ten seconds of its start, client start-up included, as Linux resets
    /// a stuck engine within a few 2.5 s heartbeats). A debug build (the test suite's)
    /// runs the model's unoptimized code many times slower, and its clock is twenty
    /// times longer, 160 s, so that the legitimate draws of the tests never meet it.
    pub const BUILT_IN: WorkLimits = WorkLimits {
        eu_instructions: 1 << 30,
        vertices: 1 << 25,
        pixels: 1 << 30,
        host_seconds: if cfg!(debug_assertions) { 160 } else { 8 },
    };

    /// The defaults, each replaced by its environment variable when that holds a number
    /// (`GTSIM_WATCHDOG_EU_INSTRUCTIONS`, `GTSIM_WATCHDOG_VERTICES`,
    /// `GTSIM_WATCHDOG_PIXELS`, `GTSIM_WATCHDOG_SECONDS`). A value that is not a number
    /// is ignored with a warning on standard error.
    pub fn from_env() -> WorkLimits {
        let mut l = WorkLimits::default();
        for (name, field) in [
            (ENV_EU_INSTRUCTIONS, &mut l.eu_instructions),
            (ENV_VERTICES, &mut l.vertices),
            (ENV_PIXELS, &mut l.pixels),
            (ENV_SECONDS, &mut l.host_seconds),
        ] {
            if let Ok(v) = std::env::var(name) {
                match v.trim().parse::<u64>() {
                    Ok(n) => *field = n,
                    Err(_) => tracing::warn!("ignoring {name}={v:?}: not a number"),
                }
            }
        }
        l
    }
}

/// The work done so far by one submission, against its limits.
#[derive(Debug, Clone, Default)]
pub struct Watchdog {
    /// The limits.
    pub limits: WorkLimits,
    /// EU instructions executed.
    pub eu_instructions: u64,
    /// Vertices fetched.
    pub vertices: u64,
    /// Pixels dispatched.
    pub pixels: u64,
    /// EU threads that ran (any stage), counted for tools, not limited: what ran,
    /// whatever the statistics registers were told to count (`gtsim inspect`).
    pub threads: u64,
    /// Primitives that reached the pixel stage, counted for tools, not limited.
    pub primitives: u64,
    /// When the current command's host time ([`WorkLimits::host_seconds`]) runs out;
    /// shares ([`Watchdog::share`]) keep their parent's.
    deadline: Option<Instant>,
}

impl Watchdog {
    /// A watchdog with nothing counted yet.
    pub fn new(limits: WorkLimits) -> Watchdog {
        let mut w = Watchdog {
            limits,
            ..Watchdog::default()
        };
        w.begin_command();
        w
    }

    /// Starts the clock of the next command: [`WorkLimits::host_seconds`] from now.
    pub fn begin_command(&mut self) {
        self.deadline = (self.limits.host_seconds > 0)
            .then(|| Instant::now().checked_add(Duration::from_secs(self.limits.host_seconds)))
            .flatten();
    }

    /// The kernel's hangcheck: an error once the current command has run for
    /// [`WorkLimits::host_seconds`] of host time. Called as work is charged (each
    /// thread, each chunk of vertices, each primitive's pixels).
    pub fn check_clock(&self) -> Result<(), DrawError> {
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(DrawError::Watchdog {
                what: "seconds of host time in one command",
                limit: self.limits.host_seconds,
                knob: ENV_SECONDS,
            }),
            _ => Ok(()),
        }
    }

    fn charge(
        used: &mut u64,
        n: u64,
        limit: u64,
        what: &'static str,
        knob: &'static str,
    ) -> Result<(), DrawError> {
        *used = used.saturating_add(n);
        if *used > limit {
            return Err(DrawError::Watchdog { what, limit, knob });
        }
        Ok(())
    }

    /// Charges `n` fetched vertices.
    pub(crate) fn vertices(&mut self, n: u64) -> Result<(), DrawError> {
        self.check_clock()?;
        Self::charge(
            &mut self.vertices,
            n,
            self.limits.vertices,
            "vertices",
            ENV_VERTICES,
        )
    }

    /// A watchdog for one of `n` pieces of work done apart (thread groups of a batch,
    /// each over a private overlay): its limits are an `n`th of what is left of this
    /// one's, so that the batch as a whole stays within them.
    pub(crate) fn share(&self, n: u64) -> Watchdog {
        let n = n.max(1);
        Watchdog {
            limits: WorkLimits {
                eu_instructions: self
                    .limits
                    .eu_instructions
                    .saturating_sub(self.eu_instructions)
                    / n,
                vertices: self.limits.vertices.saturating_sub(self.vertices) / n,
                pixels: self.limits.pixels.saturating_sub(self.pixels) / n,
                host_seconds: self.limits.host_seconds,
            },
            deadline: self.deadline,
            ..Watchdog::default()
        }
    }

    /// Adds the work `other` (a [`Watchdog::share`]) counted; a limit crossed is
    /// this watchdog's error, naming its own limit.
    pub(crate) fn absorb(&mut self, other: &Watchdog) -> Result<(), DrawError> {
        Self::charge(
            &mut self.eu_instructions,
            other.eu_instructions,
            self.limits.eu_instructions,
            "EU instructions",
            ENV_EU_INSTRUCTIONS,
        )?;
        self.vertices(other.vertices)?;
        self.threads = self.threads.saturating_add(other.threads);
        self.primitives = self.primitives.saturating_add(other.primitives);
        self.pixels(other.pixels)
    }

    /// Charges `n` dispatched pixels.
    pub fn pixels(&mut self, n: u64) -> Result<(), DrawError> {
        self.check_clock()?;
        Self::charge(
            &mut self.pixels,
            n,
            self.limits.pixels,
            "pixels",
            ENV_PIXELS,
        )
    }

    /// The instruction budget for the next thread: the per-thread runaway limit, or
    /// what is left of the submission's, whichever is smaller (0 once nothing is left).
    pub(crate) fn thread_budget(&self, per_thread: u64) -> u64 {
        per_thread.min(
            self.limits
                .eu_instructions
                .saturating_sub(self.eu_instructions),
        )
    }

    /// [`Self::thread_ran`] for a thread that ran in a parallel batch with the batch's
    /// `budget` (taken before any of its threads ran): charged in dispatch order, it is
    /// judged by the budget it would have had after the threads before it, so a batch
    /// ends exactly where its threads run one at a time would.
    pub(crate) fn thread_ran_in_order(
        &mut self,
        result: Result<u64, gtsim_eu::exec::ExecError>,
        per_thread: u64,
    ) -> Result<Result<u64, gtsim_eu::exec::ExecError>, DrawError> {
        let allowed = self.thread_budget(per_thread);
        let result = match result {
            Ok(n) if n > allowed => Err(gtsim_eu::exec::ExecError::Budget {
                budget: allowed,
                ip: 0,
            }),
            r => r,
        };
        self.thread_ran(result, allowed, per_thread)
    }

    /// Charges the instructions of a thread that ran with `budget` from
    /// [`Self::thread_budget`]: `executed` when it finished, or the whole budget when it
    /// ran out, in which case the submission's limit is what ended it if the budget was
    /// smaller than the per-thread one.
    pub(crate) fn thread_ran(
        &mut self,
        result: Result<u64, gtsim_eu::exec::ExecError>,
        budget: u64,
        per_thread: u64,
    ) -> Result<Result<u64, gtsim_eu::exec::ExecError>, DrawError> {
        self.threads = self.threads.saturating_add(1);
        self.check_clock()?;
        match result {
            Ok(n) => {
                self.eu_instructions = self.eu_instructions.saturating_add(n);
                Ok(Ok(n))
            }
            Err(gtsim_eu::exec::ExecError::Budget { .. }) if budget < per_thread => {
                self.eu_instructions = self.eu_instructions.saturating_add(budget);
                Err(DrawError::Watchdog {
                    what: "EU instructions",
                    limit: self.limits.eu_instructions,
                    knob: ENV_EU_INSTRUCTIONS,
                })
            }
            Err(e) => Ok(Err(e)),
        }
    }
}
