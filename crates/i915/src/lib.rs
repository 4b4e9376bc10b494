//! # gtsim-i915: the Linux i915 kernel driver, played for Mesa
//!
//! Preloaded into a program (`LD_PRELOAD`, or `gtsim run -- APP`), this library makes
//! the process see an Ivy Bridge GT2 (PCI 8086:0162) behind `/dev/dri/renderD128`: the
//! device nodes and their sysfs directory ([`vfs`]), and every i915 ioctl Mesa's crocus
//! driver uses ([`kernel`]): buffer objects in memfds that both the CPU mapping and the
//! model see, stable graphics addresses below 2 GiB, relocations, contexts, syncobjs,
//! tiling records (never swizzled), timestamps. Every EXECBUFFER2 ([`execbuffer`]) runs
//! on the `gtsim-gpu` device, synchronously; `GTSIM_CAPTURE=FILE.aub` records each
//! submission as an AUB trace. `/dev/dri/card0` also has a display ([`kms`]): the legacy
//! KMS ioctls, page-flip events read from the fd, and scanout of each shown frame to
//! `GTSIM_DISPLAY` (a folder of PNGs or a `.y4m` video; `GTSIM_DISPLAY_MODE=WxH` sets
//! the connector's preferred mode).
//!
//! The C entry points live in [`hooks`]; everything else is ordinary Rust over a single
//! lock-protected [`kernel::Kernel`]. Client memory is only touched through checked,
//! bounded copies ([`user`]), arguments are copied as the kernel's `drm_ioctl` copies
//! them ([`user::Args`]), and errnos follow Linux 6.1. The crate's README.md lists these
//! hardening rules and the fuzz campaigns (`src/fuzz.rs`, `i915-stress fuzz`).
//!
//! Environment: `GTSIM_CAPTURE=FILE` (capture), `GTSIM_LOG` (the log's filter,
//! [`init_logging`]), `GTSIM_I915_QUIET=1` (only warnings on stderr), `GTSIM_I915_TRACE=1` (one line per emulated ioctl: its uapi name and the
//! errno it got, as `strace` would show for a real kernel).

pub mod ban;
pub mod bo;
pub mod detile;
pub mod errno;
pub mod error_state;
pub mod execbuffer;
#[cfg(test)]
pub mod fuzz;
pub mod hooks;
pub mod kernel;
pub mod kms;
pub mod platform;
pub mod syncobj;
pub mod uapi;
pub mod user;
pub mod vfs;

#[cfg(test)]
mod tests;

use std::sync::{Mutex, MutexGuard, OnceLock};

static KERNEL: OnceLock<Mutex<kernel::Kernel>> = OnceLock::new();

fn new_kernel() -> Mutex<kernel::Kernel> {
    // The model's own events (the JIT's, the watchdog's) go through the same log.
    init_logging();
    let mut k = kernel::Kernel::for_platform(platform::Platform::from_env());
    // Hangs leave an error state file (`error_state.rs`) in GTSIM_ERROR_DIR, else the
    // temporary directory.
    k.error_dir = Some(
        std::env::var_os("GTSIM_ERROR_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(std::env::temp_dir),
    );
    if let Some(path) = std::env::var_os("GTSIM_CAPTURE") {
        match std::fs::File::create(&path) {
            Ok(file) => {
                let app = std::env::args().next().unwrap_or_default();
                let app = app.rsplit('/').next().unwrap_or("").to_string();
                let pci = k.platform.pci_device();
                let writer = if k.platform.softpin() {
                    kernel::CaptureWriter::Execlist(gtsim_gpu::aub::MemtraceWriter::new(&app, pci))
                } else {
                    kernel::CaptureWriter::Legacy(gtsim_gpu::aub::AubWriter::new(&app, pci))
                };
                k.capture = Some(kernel::Capture { file, writer });
            }
            Err(e) => log(&format!(
                "cannot create capture file {}: {e}",
                path.to_string_lossy()
            )),
        }
    }
    Mutex::new(k)
}

/// The kernel, created on first use.
pub(crate) fn kernel() -> MutexGuard<'static, kernel::Kernel> {
    KERNEL
        .get_or_init(new_kernel)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// Whether any DRM node was opened (without taking the lock).
pub(crate) fn started() -> bool {
    KERNEL.get().is_some()
}

/// The kernel if any DRM node was opened (hooks on unrelated fds stay cheap).
pub(crate) fn kernel_if_started() -> Option<MutexGuard<'static, kernel::Kernel>> {
    KERNEL
        .get()
        .map(|m| m.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Writes the made-up sysfs tree once per process.
pub(crate) fn ensure_tree() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        hooks::guarded((), || {
            if let Err(e) = vfs::build_tree() {
                log(&format!(
                    "cannot write the emulated sysfs tree under {}: {e}",
                    vfs::root().display()
                ));
            }
        })
    });
}

thread_local! {
    static MUTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set while this thread's thread-local storage is being destroyed (by
    /// [`TeardownSentinel`]); no destructor of its own, so readable to the end.
    static TEARDOWN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Registered after this thread's first log event, so that its destructor runs before
    /// those of the logging's thread-locals (they run in reverse order of registration).
    static SENTINEL: TeardownSentinel = const { TeardownSentinel };
}

/// Marks the thread's teardown (see `SENTINEL`): a client that submits from an exit
/// handler or a thread-local destructor (crocus flushes its batch so) logs after the
/// stderr subscriber's own thread-locals are gone, where a `tracing` event would panic
/// ("cannot access a Thread Local Storage value during or after destruction") and take
/// the client down.
struct TeardownSentinel;

impl Drop for TeardownSentinel {
    fn drop(&mut self) {
        let _ = TEARDOWN.try_with(|t| t.set(true));
    }
}

/// Writes `msg` to stderr with one write(2), touching no thread-local state.
fn raw_stderr(msg: &str) {
    let line = format!("gtsim-i915: {msg}\n");
    // SAFETY: write(2) on fd 2 reads `line.len()` bytes from a live buffer; a failure
    // (stderr closed) is ignored, as a log line may be lost.
    let _ = unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
}

/// Runs `f` with [`log`] silent on this thread (the fuzz harness's random batches hang
/// by the thousand).
#[cfg(test)]
pub(crate) fn muted<T>(f: impl FnOnce() -> T) -> T {
    MUTED.with(|m| m.set(true));
    let r = f();
    MUTED.with(|m| m.set(false));
    r
}

/// Whether `GTSIM_I915_TRACE` asks for a line per emulated ioctl (read once).
pub fn trace_ioctls() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("GTSIM_I915_TRACE").is_some_and(|v| v != "0"))
}

/// The emulation's log, through `tracing` (target `gtsim_i915`), as the kernel logs to
/// dmesg: GPU hangs, bans, refused ioctls and what cannot be done are warnings; the
/// `GTSIM_I915_TRACE` lines go to target `gtsim_i915::trace`; the rest is information.
/// The preloaded library installs a stderr subscriber in the client process
/// ([`init_logging`]) unless the program has its own.
pub fn log(msg: &str) {
    if MUTED.try_with(|m| m.get()).unwrap_or(false) {
        return;
    }
    let warning = msg.contains("HANG") || msg.contains("unknown ioctl") || msg.contains("cannot");
    // During thread teardown the subscriber cannot run: a warning goes straight to
    // stderr, the rest is dropped.
    if TEARDOWN.try_with(|t| t.get()).unwrap_or(true) {
        if warning {
            raw_stderr(msg);
        }
        return;
    }
    init_logging();
    let event = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if msg.starts_with("ioctl ") {
            tracing::info!(target: "gtsim_i915::trace", "{msg}");
        } else if warning {
            tracing::warn!(target: "gtsim_i915", "{msg}");
        } else {
            tracing::info!(target: "gtsim_i915", "{msg}");
        }
    }));
    if event.is_err() && warning {
        raw_stderr(msg);
    }
    let _ = SENTINEL.try_with(|_| ());
}

/// Installs the log's subscriber once: lines on stderr filtered by `GTSIM_LOG`
/// (`tracing_subscriber::EnvFilter` syntax, e.g. `info,gtsim_eu::jit=info`), else
/// `info`, or with `GTSIM_I915_QUIET` only warnings (and the ioctl trace when asked
/// for). A program with a subscriber of its own keeps it and receives these events.
pub fn init_logging() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let default = if std::env::var_os("GTSIM_I915_QUIET").is_some() {
            "warn,gtsim_i915::trace=info"
        } else {
            "info"
        };
        let mut filter = std::env::var("GTSIM_LOG").unwrap_or_else(|_| default.to_string());
        // Asking for the ioctl trace, the JIT's or the PS replay's log shows it
        // whatever the level.
        filter.push_str(&gtsim_gpu::requested_log_directives());
        if trace_ioctls() {
            filter.push_str(",gtsim_i915::trace=info");
        }
        let filter = tracing_subscriber::EnvFilter::try_new(&filter)
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
        // Err: the program already has a global subscriber.
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .without_time()
            .with_ansi(false)
            .try_init();
    });
}
