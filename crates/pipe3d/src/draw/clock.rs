//! The device clock as shader threads see it: the value the EU's timestamp register tm0
//! starts at in a thread (`gtsim_eu::exec::Thread::timestamp`).
//!
//! The command streamer keeps the device clock, one TIMESTAMP tick per command it
//! executes (`gtsim_gpu::device::cs`), and tells it to the host thread that runs the
//! command ([`set`]); [`crate::draw::parallel::run`] carries it into the jobs it gives
//! other host threads. A thread dispatched by the command at clock `c` starts with tm0 =
//! `c` * 2^32: tm0.1 (the high dword) is the device clock, tm0.0 counts the thread's
//! own tm0 reads. So every read of a later command's thread exceeds every read of an
//! earlier command's (ARB_shader_clock's piglit tests compare two dispatches), a
//! thread's reads increase, and the values depend on the submissions alone, never on
//! the host's threads or timing. The hardware's tm0 counts real time; the model has
//! none.

use std::cell::Cell;

thread_local! {
    static NOW: Cell<u64> = const { Cell::new(0) };
}

/// Sets the device clock for the work this host thread does next.
pub fn set(clock: u64) {
    NOW.with(|n| n.set(clock));
}

/// The device clock this host thread's work runs at (0 when nothing set it).
pub fn now() -> u64 {
    NOW.with(Cell::get)
}

/// The value tm0 starts at in a thread dispatched now.
pub(super) fn tm0_start() -> u64 {
    now() << 32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_on_other_host_threads_see_the_submitting_threads_clock() {
        set(7);
        let seen = crate::draw::parallel::with_threads(4, || {
            crate::draw::parallel::run(64, |_| tm0_start())
        });
        assert!(seen.iter().all(|&t| t == 7 << 32), "{seen:?}");
        set(0);
    }
}
