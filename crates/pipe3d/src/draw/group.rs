//! Threads that meet at the message gateway's barrier: the HS instances of a patch
//! (seed 004 §4.7) and the threads of a GPGPU thread group. The gateway counts the
//! barrier messages; a thread then stops at `wait` (n0.0) until the barrier completes
//! and the gateway notifies every waiting thread (IVB PRM Vol4 Part2 "Message Gateway").
//!
//! The model runs such a group round-robin on one host thread: each thread until it
//! ends or waits; when every unfinished thread waits and the barrier has its count,
//! each is notified and runs on. A barrier that can never complete, or a kernel that
//! passes [`MAX_BARRIERS`], is a typed error rather than a frozen submission.

use super::router::Barrier;
use super::{DrawError, Watchdog};
use gtsim_eu::exec::{DEFAULT_BUDGET, ExecError, Thread};

/// Barriers one group may pass: a kernel looping on barriers is a runaway.
pub(super) const MAX_BARRIERS: u32 = 1 << 16;

/// Runs one thread of a group from its start (or, resuming, from its `wait`) with its
/// stage's router over the group's barrier and the given budget; how it stopped.
pub(super) type RunThread<'r> =
    dyn FnMut(&mut Thread, &mut Barrier, bool, u64) -> Result<u64, ExecError> + 'r;

/// How one group's threads are run and named.
pub(super) struct Group<'a> {
    /// The barrier's thread count when the messages do not give one.
    pub count: u32,
    /// Whether a `wait` can be notified (a barrier is enabled); otherwise a thread that
    /// waits is a thread error.
    pub barrier: bool,
    /// The threads, for messages: "HS instances of a patch", ...
    pub who: String,
    /// The unit named in errors.
    pub command: &'static str,
    /// A thread's failure as the stage reports it.
    pub failed: &'a dyn Fn(ExecError) -> DrawError,
}

impl Group<'_> {
    /// Runs `threads` to their ends. `run(thread, barrier, resume, budget)` runs one
    /// thread from its start (or, with `resume`, from its `wait`) with its stage's
    /// router over `barrier`, and returns how it stopped.
    pub fn run(
        &self,
        threads: &mut [Box<Thread>],
        watchdog: &mut Watchdog,
        run: &mut RunThread,
    ) -> Result<(), DrawError> {
        let mut barrier = Barrier::default();
        let mut done = vec![false; threads.len()];
        let mut started = vec![false; threads.len()];
        let mut rounds = 0;
        loop {
            let mut progressed = false;
            for (i, t) in threads.iter_mut().enumerate() {
                if done[i] || (started[i] && t.notifications == 0) {
                    continue;
                }
                let budget = watchdog.thread_budget(DEFAULT_BUDGET);
                let result = run(t, &mut barrier, started[i], budget);
                started[i] = true;
                progressed = true;
                match result {
                    // Charged what it ran before the wait; every resumption needs a
                    // completed barrier, and those are bounded below.
                    Err(ExecError::Waiting { executed, .. }) if self.barrier => {
                        watchdog
                            .thread_ran(Ok(executed), budget, DEFAULT_BUDGET)?
                            .map_err(self.failed)?;
                    }
                    r => {
                        watchdog
                            .thread_ran(r, budget, DEFAULT_BUDGET)?
                            .map_err(self.failed)?;
                        done[i] = true;
                    }
                }
            }
            if done.iter().all(|&d| d) {
                return Ok(());
            }
            if progressed {
                continue;
            }
            // Every unfinished thread waits: a complete barrier notifies them.
            let count = barrier.count.unwrap_or(self.count);
            if barrier.arrived >= count && count > 0 && rounds < MAX_BARRIERS {
                rounds += 1;
                barrier.arrived -= count;
                for (i, t) in threads.iter_mut().enumerate() {
                    if !done[i] {
                        t.notifications += 1;
                    }
                }
            } else if rounds >= MAX_BARRIERS {
                return Err(DrawError::State {
                    command: self.command,
                    why: format!(
                        "the {} passed {MAX_BARRIERS} barriers: a runaway kernel",
                        self.who
                    ),
                });
            } else {
                let waiting = done.iter().filter(|&&d| !d).count();
                return Err(DrawError::State {
                    command: self.command,
                    why: format!(
                        "{waiting} {} wait at a barrier that {} of {count} threads reached: they would wait for ever",
                        self.who, barrier.arrived
                    ),
                });
            }
        }
    }
}
