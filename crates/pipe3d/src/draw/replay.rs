//! PS threads that are all alike: one runs, the others replay its messages.
//!
//! A pixel shader thread's payload has a per-thread part, the header with the subspans'
//! positions and masks and the interpolation phases, below the Dispatch GRF Start
//! Register for Constant/Setup Data (seed 004 §11.10.3.1), and a part every thread of a
//! primitive shares from there on: the push constants, the primitive's setup data and
//! the zeroed rest of the register file. When the kernel reads nothing below that
//! register and expects no message response ([`Program::alike_from`]), two threads of
//! one primitive with the same dispatch mask execute the same instructions on the same
//! values and send the same messages; only where those messages act differs, and that
//! is the thread's own shared-function view (the pixel positions and masks its render
//! target writes use, its late depth test). BLORP's clears are such kernels: one `mov`
//! of the clear colour from the constants and a replicated-data render target write.
//!
//! So the first thread of a primitive with a given dispatch mask runs on the EU and its
//! messages are recorded; the primitive's later threads with that mask send the
//! recorded messages through their own router instead of running. The bytes written,
//! the statistics, the instruction count and the errors are those the thread would
//! have given: a message that fails is reported at its send's IP, as the EU reports it,
//! after the messages before it did their writes, as on the EU; a thread whose
//! instruction budget is smaller than the recorded count runs on the EU, which reports
//! the runaway where it does.
//!
//! `GTSIM_PS_REPLAY=0` turns replay off (every thread runs; the images are the same);
//! `GTSIM_PS_REPLAY_LOG=1` prints, after each batch of PS threads, how many ran and how
//! many were replayed.

use gtsim_eu::exec::{Message, MessageError, Program, Response, SharedFunctions};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// PS threads run on the EU and replayed since the last [`log`].
static RAN: AtomicU64 = AtomicU64::new(0);
static REPLAYED: AtomicU64 = AtomicU64::new(0);

/// Counts a thread that ran (`false`) or was replayed (`true`).
pub(super) fn count(replayed: bool) {
    if logging() {
        if replayed { &REPLAYED } else { &RAN }.fetch_add(1, Ordering::Relaxed);
    }
}

/// Under `GTSIM_PS_REPLAY_LOG`, prints how many PS threads ran and how many were
/// replayed since the last call.
pub(super) fn log() {
    if logging() {
        let (ran, replayed) = (
            RAN.swap(0, Ordering::Relaxed),
            REPLAYED.swap(0, Ordering::Relaxed),
        );
        tracing::info!("PS threads: {ran} ran, {replayed} replayed");
    }
}

fn logging() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("GTSIM_PS_REPLAY_LOG").is_some())
}

/// How many dispatch masks a primitive keeps recordings for besides the first (a
/// primitive's inner threads share one; its edges make a few more).
const MASKS: usize = 8;

/// One thread's messages and instruction count.
#[derive(Debug)]
pub(super) struct Recording {
    pub messages: Vec<Message>,
    pub executed: u64,
}

/// The recordings of one primitive's threads, by dispatch mask, when its kernel's
/// threads are alike.
#[derive(Debug, Default)]
pub(super) struct Replays {
    on: bool,
    /// The first recording kept, read without a lock (threads on every core look it up;
    /// a primitive's inner threads, most of them, share its mask).
    first: std::sync::OnceLock<(u32, Arc<Recording>)>,
    /// The others.
    recorded: Mutex<Vec<(u32, Arc<Recording>)>>,
}

impl Replays {
    /// Recordings for the threads of `prog` whose constant and setup data start at
    /// register `grf_start`: on when the kernel reads nothing below it
    /// ([`Program::alike_from`]) and `GTSIM_PS_REPLAY` is not 0.
    pub fn new(prog: &Program, grf_start: usize) -> Replays {
        Replays {
            on: enabled() && prog.alike_from().is_some_and(|r| r >= grf_start),
            first: std::sync::OnceLock::new(),
            recorded: Mutex::default(),
        }
    }

    /// The recording for threads with `dispatch` mask, if there is one.
    pub fn get(&self, dispatch: u32) -> Option<Arc<Recording>> {
        if !self.on {
            return None;
        }
        match self.first.get() {
            Some((m, r)) if *m == dispatch => return Some(r.clone()),
            None => return None,
            Some(_) => {}
        }
        let recorded = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
        recorded
            .iter()
            .find(|(m, _)| *m == dispatch)
            .map(|(_, r)| r.clone())
    }

    /// Whether a thread with `dispatch` mask should record its messages.
    pub fn wanted(&self, dispatch: u32) -> bool {
        if !self.on {
            return false;
        }
        match self.first.get() {
            None => return true,
            Some((m, _)) if *m == dispatch => return false,
            Some(_) => {}
        }
        let recorded = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
        recorded.len() < MASKS && !recorded.iter().any(|(m, _)| *m == dispatch)
    }

    /// Keeps `r`, a thread's recording for `dispatch` (the first one kept wins; threads
    /// running in parallel record the same messages).
    pub fn keep(&self, dispatch: u32, r: Recording) {
        let r = Arc::new(r);
        let first = self.first.get_or_init(|| (dispatch, r.clone()));
        if first.0 == dispatch {
            return;
        }
        let mut recorded = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
        if recorded.len() < MASKS && !recorded.iter().any(|(m, _)| *m == dispatch) {
            recorded.push((dispatch, r));
        }
    }
}

/// Whether replay is on (`GTSIM_PS_REPLAY=0` turns it off).
fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| !matches!(std::env::var("GTSIM_PS_REPLAY").as_deref(), Ok("0")))
}

/// The most messages a recording keeps: a thread that sends more (a loop of writes) is
/// not recorded, so a hostile kernel cannot make recordings grow without bound.
const MESSAGES: usize = 64;

/// A thread's shared functions that also record the messages they carried out.
pub(super) struct Recorder<'s> {
    inner: &'s mut dyn SharedFunctions,
    messages: Option<Vec<Message>>,
}

impl<'s> Recorder<'s> {
    pub fn new(inner: &'s mut dyn SharedFunctions) -> Recorder<'s> {
        Recorder {
            inner,
            messages: Some(vec![]),
        }
    }

    /// The messages, unless there were more than a recording keeps.
    pub fn messages(self) -> Option<Vec<Message>> {
        self.messages
    }
}

impl SharedFunctions for Recorder<'_> {
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError> {
        self.send_masked(m).map(|r| r.registers)
    }

    fn send_masked(&mut self, m: &Message) -> Result<Response, MessageError> {
        let reply = self.inner.send_masked(m)?;
        if let Some(v) = &mut self.messages {
            if v.len() < MESSAGES {
                v.push(m.clone());
            } else {
                self.messages = None;
            }
        }
        Ok(reply)
    }
}
