//! EU threads for dispatch without an allocation each: every host thread keeps the last
//! EU thread it ran and resets it for the next program (`Thread::reset_for`: the state
//! of `Thread::new` in everything the program can read), so a draw's thousands of PS and
//! VS threads reuse a few register files.
//! Threads are boxed: a dispatch moves a pointer, not the thread's kilobyte of state.

use gtsim_eu::exec::{Program, Thread};

thread_local! {
    /// The last EU thread this host thread ran, kept for its register file's allocation.
    static SPARE: std::cell::Cell<Option<Box<Thread>>> = const { std::cell::Cell::new(None) };
}

/// Keeps `t`, a finished EU thread, for this host thread's next dispatch.
pub(super) fn keep(t: Box<Thread>) {
    SPARE.with(|s| s.set(Some(t)));
}

/// A new EU thread of `simd` channels to run `prog`: the host thread's spare one reset
/// for it, or a new one.
pub(super) fn thread(simd: u8, prog: &Program) -> Box<Thread> {
    match SPARE.with(|s| s.take()) {
        Some(mut t) => {
            t.reset_for(simd, prog);
            t
        }
        None => Box::new(Thread::new(simd)),
    }
}
