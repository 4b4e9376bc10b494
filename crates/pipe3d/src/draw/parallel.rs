//! Shader threads on the host's cores.
//!
//! The threads of one dispatch batch (at most [`BATCH`] of them) are independent jobs: each
//! runs over an [`Overlay`](gtsim_mem::overlay::Overlay) of graphics memory, and their
//! buffered writes are applied in dispatch order when the batch is done. How many host
//! threads run the jobs changes only the speed: the batches are cut by dispatch count,
//! never by thread count, so the same submission gives the same bits however many
//! threads run it (`GTSIM_THREADS=1` runs everything on the submitting thread).
//!
//! The ordering the hardware guarantees is that of writes to one pixel: they happen in
//! primitive order (seed 000 ch.1, and the pixel pipeline of seed 004 ch.11-12). A
//! batch holds the threads of one primitive, which light distinct pixels, and batches
//! and primitives are applied in order, so that ordering holds.

use rayon::prelude::*;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Threads dispatched per batch. A fixed number: changing it can change the result only
/// for a shader that reads memory another thread of its batch writes (a race on the
/// hardware too).
pub const BATCH: usize = 256;

/// Pixel shader threads dispatched per batch ([`BATCH`] for the other stages). Larger:
/// a pixel shader thread is short (a blit's is two sends), so at 256 a batch took about
/// a quarter of a millisecond on two cores, and the pool threads' wake-up at its start
/// (about 40 us on the reference VM) and the landing of its writes at its end left the
/// second core idle for a sixth of a full-screen blit; 1,024 per batch made BLORP's
/// 640x480 readback copy 11% faster (BENCHMARKS.md, issue 42).
pub const PIXEL_BATCH: usize = 1024;

/// Fewest threads a primitive must dispatch for them to run in parallel; fewer run one
/// after the other directly on memory (the hand-over to host threads would cost more
/// than it saves). Like [`BATCH`], independent of the host's thread count.
pub const MIN_BATCH: usize = 8;

/// The environment variable that sets the number of host threads (default: one per
/// core; 1 turns parallel execution off).
pub const ENV_THREADS: &str = "GTSIM_THREADS";

thread_local! {
    static OVERRIDE: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The number of host threads draws use: [`with_threads`]'s, else `GTSIM_THREADS`, else
/// one per core.
pub fn threads() -> usize {
    if let Some(n) = OVERRIDE.with(Cell::get) {
        return n;
    }
    static FROM_ENV: OnceLock<usize> = OnceLock::new();
    *FROM_ENV.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        match std::env::var(ENV_THREADS) {
            Ok(v) => match v.trim().parse::<usize>() {
                Ok(n) if n >= 1 => n.min(256),
                _ => {
                    tracing::warn!("ignoring {ENV_THREADS}={v:?}: not a number from 1 to 256");
                    cores
                }
            },
            Err(_) => cores,
        }
    })
}

/// Runs `f` with draws on this thread using `n` host threads (tests compare thread
/// counts with it).
pub fn with_threads<R>(n: usize, f: impl FnOnce() -> R) -> R {
    let old = OVERRIDE.with(|o| o.replace(Some(n.max(1))));
    let r = f();
    OVERRIDE.with(|o| o.set(old));
    r
}

thread_local! {
    /// Set on the threads of the draw pools.
    static WORKER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the calling thread is one of the host threads draws run on. Everything such
/// a thread does is the device's own work: an embedding that intercepts the C library
/// (the i915 preload library) must pass its calls through untouched, as it does for
/// the submitting thread's, since that thread holds the device while it waits for them.
pub fn on_worker_thread() -> bool {
    WORKER.with(|w| w.get())
}

/// A pool of `n` threads, made once per size.
fn pool(n: usize) -> Option<Arc<rayon::ThreadPool>> {
    static POOLS: Mutex<BTreeMap<usize, Arc<rayon::ThreadPool>>> = Mutex::new(BTreeMap::new());
    let mut pools = POOLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(p) = pools.get(&n) {
        return Some(p.clone());
    }
    let p = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            // Compiled EU programs run on these threads with frames that grow with the
            // program (bounded by `gtsim_eu`'s JIT limit): room beyond the 2 MiB default.
            .stack_size(16 << 20)
            .start_handler(|_| WORKER.with(|w| w.set(true)))
            .build()
            .ok()?,
    );
    pools.insert(n, p.clone());
    Some(p)
}

/// `job(0..n)`, results in index order, on [`threads`] host threads; fewer than
/// [`MIN_BATCH`] jobs run one after the other on the calling thread. Handing jobs to
/// the pool costs a wake-up and a wait (tens of microseconds); a draw of many small
/// primitives that overlap, each flushed on its own (piglit's `longprim`: over a
/// million calls of one to five jobs), spent five sixths of its time there, six times
/// its time on one host thread (BENCHMARKS.md, "sixteenth session").
pub fn run<T: Send>(n: usize, job: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    let t = threads();
    if t <= 1 || n < MIN_BATCH {
        return (0..n).map(job).collect();
    }
    // The jobs run at the submitting thread's device clock (`clock`).
    let clock = super::clock::now();
    let job = |i| {
        super::clock::set(clock);
        job(i)
    };
    match pool(t) {
        Some(p) => p.install(|| (0..n).into_par_iter().map(&job).collect()),
        // No threads to be had from the host: the same jobs, one after the other.
        None => (0..n).map(job).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_index_order_whatever_the_thread_count() {
        for t in [1, 2, 3, 8] {
            let r = with_threads(t, || run(1000, |i| i * i));
            assert_eq!(
                r,
                (0..1000).map(|i| i * i).collect::<Vec<_>>(),
                "{t} threads"
            );
        }
        assert_eq!(with_threads(5, threads), 5);
    }
}
