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

/// Keeps `t`, a finished EU thread, for this host thread's next dispatch. A host thread
/// whose thread-local storage is already destroyed (a client that submits from an exit
/// handler, as crocus does when a process exits) keeps nothing.
pub(super) fn keep(t: Box<Thread>) {
    let _ = SPARE.try_with(|s| s.set(Some(t)));
}

/// A new EU thread of `simd` channels to run `prog`: the host thread's spare one reset
/// for it, or a new one, its timestamp at the device clock (`clock`).
pub(super) fn thread(simd: u8, prog: &Program) -> Box<Thread> {
    let mut t = match SPARE.try_with(|s| s.take()).ok().flatten() {
        Some(mut t) => {
            t.reset_for(simd, prog);
            t
        }
        None => Box::new(Thread::new(simd)),
    };
    t.timestamp = super::clock::tm0_start();
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use gtsim_isa::Encoding;

    /// Dispatches from a thread-local destructor, as when crocus flushes a batch from an
    /// exit handler: by then this thread's spare may be destroyed, and a dispatch must
    /// still get a thread (a panic here became an EIO and a crashed client).
    struct DispatchOnDrop;

    impl Drop for DispatchOnDrop {
        fn drop(&mut self) {
            let prog = Program::new(Encoding::default(), &[]);
            let t = thread(8, &prog);
            keep(t);
        }
    }

    thread_local! {
        static GUARD: std::cell::RefCell<Option<DispatchOnDrop>> =
            const { std::cell::RefCell::new(None) };
    }

    #[test]
    fn dispatch_after_the_spare_is_destroyed_gets_a_new_thread() {
        let joined = std::thread::spawn(|| {
            // Registered first, so destroyed after SPARE (destructors run in reverse).
            GUARD.with(|g| *g.borrow_mut() = Some(DispatchOnDrop));
            keep(Box::new(Thread::new(8)));
        })
        .join();
        assert!(joined.is_ok(), "a dispatch from a TLS destructor panicked");
    }
}
