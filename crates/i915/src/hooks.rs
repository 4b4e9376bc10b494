//! The C library functions this library interposes when preloaded (LD_PRELOAD), with the
//! symbol names glibc 2.36 exports (shared/REAL_CLIENTS.md). Each hook:
//!
//! 1. passes straight to the real function (found with `dlsym(RTLD_NEXT)`) when the call
//!    comes from inside gtsim itself (a thread-local flag), so our own file and memory
//!    operations never loop back;
//! 2. otherwise handles emulated paths and DRM fds, and passes everything else on;
//! 3. catches panics at the FFI edge and turns them into -1/EIO: nothing a client does
//!    crashes the process through us.
//!
//! Stable Rust cannot define C-variadic functions, so `open`, `openat`, `ioctl` and
//! `fcntl` take their optional argument as a fixed last parameter: on x86-64 SysV the
//! variadic argument travels in the same register, so this is sound there.

#![allow(
    clippy::missing_safety_doc,
    missing_docs,
    reason = "C ABI entry points named and specified by the C library"
)]

use crate::kernel::Node;
use crate::log;
use crate::vfs::{self, Virtual};
use libc::{c_char, c_int, c_long, c_ulong, c_void, mode_t, off_t, size_t, ssize_t};
use std::cell::Cell;
use std::ffi::{CStr, CString};

thread_local! {
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    /// Touched at the start of every hooked call, so registered before any thread-local
    /// the call's work creates (the log's buffers, the model's per-thread caches):
    /// destructors run in reverse order of registration, so once it is gone theirs are.
    static ALIVE: Alive = const { Alive };
}

/// See `ALIVE`; its destructor only marks the slot destroyed.
struct Alive;

impl Drop for Alive {
    fn drop(&mut self) {}
}

/// A call handed to another thread while the caller blocks on it.
struct OnAnotherThread<F>(F);

// SAFETY: the closure runs on a scoped thread while the calling thread waits for it to
// finish, so everything it borrows outlives it and nothing else touches it meanwhile;
// the raw pointers it may hold (client buffers, ioctl arguments) are addresses in this
// process, valid from any of its threads.
unsafe impl<F> Send for OnAnotherThread<F> {}

impl<F> OnAnotherThread<F> {
    /// The wrapped value (a method, so that a closure captures the whole wrapper).
    fn into_inner(self) -> F {
        self.0
    }
}

/// Runs `f` with the re-entrancy flag set, catching panics. On a thread whose
/// thread-locals are already destroyed (glibc runs the main thread's thread-local
/// destructors in `exit` before the `atexit` handlers, where Mesa's teardown still
/// flushes a batch and closes its buffers), `f` runs on a scoped thread with its own:
/// the log's subscriber and the model's per-thread state panic on destroyed ones
/// ("cannot access a Thread Local Storage value during or after destruction"), which
/// failed the last submission of a client that exits with work pending.
pub(crate) fn guarded<T>(fail: T, f: impl FnOnce() -> T) -> T {
    if ALIVE.try_with(|_| ()).is_err() {
        let call = OnAnotherThread(f);
        let ran = std::thread::scope(|s| {
            std::thread::Builder::new()
                .name("gtsim-i915-exit".into())
                .spawn_scoped(s, move || {
                    let r = catching(call.into_inner());
                    // The hook's errno is the caller's, not this thread's.
                    // SAFETY: __errno_location returns this thread's errno slot.
                    OnAnotherThread((r, unsafe { *libc::__errno_location() }))
                })
                .ok()
                .and_then(|h| h.join().ok())
        });
        return match ran {
            Some(OnAnotherThread((Some(v), errno))) => {
                set_errno(errno);
                v
            }
            _ => {
                set_errno(libc::EIO);
                fail
            }
        };
    }
    match catching(f) {
        Some(v) => v,
        None => {
            set_errno(libc::EIO);
            fail
        }
    }
}

/// Runs `f` with the re-entrancy flag set; `None` (and a log line) if it panicked.
fn catching<T>(f: impl FnOnce() -> T) -> Option<T> {
    INSIDE.with(|i| i.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    INSIDE.with(|i| i.set(false));
    match r {
        Ok(v) => Some(v),
        Err(_) => {
            log("internal error (panic) inside the i915 emulation; the call fails with EIO");
            None
        }
    }
}

/// Whether a call on this thread comes from the emulation itself: from inside a hook,
/// or from a host thread the device draws on (their calls, a JIT writing its perf map
/// for example, happen while the submitting thread holds the kernel lock, so routing
/// them through the emulation would deadlock).
fn inside() -> bool {
    INSIDE.with(|i| i.get()) || gtsim_gpu::on_device_worker_thread()
}

pub(crate) fn set_errno(e: c_int) {
    // SAFETY: __errno_location returns this thread's errno slot.
    unsafe { *libc::__errno_location() = e };
}

macro_rules! real {
    ($name:ident : fn($($t:ty),*) -> $r:ty) => {{
        static PTR: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        let p = *PTR.get_or_init(|| {
            let sym = concat!(stringify!($name), "\0");
            // SAFETY: dlsym with RTLD_NEXT and a NUL-terminated symbol name.
            unsafe { libc::dlsym(libc::RTLD_NEXT, sym.as_ptr().cast()) as usize }
        });
        if p == 0 {
            None
        } else {
            // SAFETY: the symbol is the C library's function with exactly this signature.
            Some(unsafe { std::mem::transmute::<usize, unsafe extern "C" fn($($t),*) -> $r>(p) })
        }
    }};
}

/// The real mmap (for the kernel's own mappings).
pub unsafe fn real_mmap(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: off_t,
) -> *mut c_void {
    match real!(mmap: fn(*mut c_void, size_t, c_int, c_int, c_int, off_t) -> *mut c_void) {
        // SAFETY: forwarding the caller's arguments to the real function.
        Some(f) => unsafe { f(addr, len, prot, flags, fd, off) },
        None => libc::MAP_FAILED,
    }
}

unsafe fn path_of(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the C caller passes a NUL-terminated path.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .ok()
        .map(str::to_owned)
}

/// What a path argument becomes.
enum Route {
    Pass,
    Node(Node),
    Redirect(CString),
}

unsafe fn route(p: *const c_char) -> Route {
    // SAFETY: as in `path_of`.
    let Some(path) = (unsafe { path_of(p) }) else {
        return Route::Pass;
    };
    if !(path.starts_with("/dev/dri") || path.starts_with("/sys/dev/char/226:")) {
        return Route::Pass;
    }
    match vfs::classify(&path) {
        Some(Virtual::Node(n)) => Route::Node(n),
        Some(Virtual::Redirect(r)) => {
            crate::ensure_tree();
            match CString::new(r.into_os_string().into_encoded_bytes()) {
                Ok(c) => Route::Redirect(c),
                Err(_) => Route::Pass,
            }
        }
        None => Route::Pass,
    }
}

fn open_node(node: Node) -> c_int {
    guarded(-1, || {
        // SAFETY: memfd_create with a static name; checked.
        let fd = unsafe { libc::memfd_create(c"gtsim-drm".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return -1;
        }
        crate::kernel().open_file(fd, node);
        fd
    })
}

macro_rules! open_like {
    ($name:ident, ($($a:ident : $t:ty),*), $path:ident, $flags:ident, $call:expr) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($($a: $t),*) -> c_int {
            let real = real!($name: fn($($t),*) -> c_int);
            let Some(real) = real else { set_errno(libc::ENOSYS); return -1 };
            if inside() {
                // SAFETY: forwarding unchanged.
                return unsafe { real($($a),*) };
            }
            // SAFETY: C string from the caller.
            match unsafe { route($path) } {
                Route::Pass => unsafe { real($($a),*) },
                Route::Node(n) => { let _ = $flags; open_node(n) }
                Route::Redirect(c) => {
                    let $path = c.as_ptr();
                    // SAFETY: forwarding with the redirected path.
                    unsafe { $call(real, $path) }
                }
            }
        }
    };
}

open_like!(open, (path: *const c_char, flags: c_int, mode: mode_t), path, flags, |r: unsafe extern "C" fn(*const c_char, c_int, mode_t) -> c_int, p| r(p, flags, mode));
open_like!(open64, (path: *const c_char, flags: c_int, mode: mode_t), path, flags, |r: unsafe extern "C" fn(*const c_char, c_int, mode_t) -> c_int, p| r(p, flags, mode));
open_like!(__open_2, (path: *const c_char, flags: c_int), path, flags, |r: unsafe extern "C" fn(*const c_char, c_int) -> c_int, p| r(p, flags));
open_like!(__open64_2, (path: *const c_char, flags: c_int), path, flags, |r: unsafe extern "C" fn(*const c_char, c_int) -> c_int, p| r(p, flags));
open_like!(openat, (dirfd: c_int, path: *const c_char, flags: c_int, mode: mode_t), path, flags, |r: unsafe extern "C" fn(c_int, *const c_char, c_int, mode_t) -> c_int, p| r(dirfd, p, flags, mode));
open_like!(openat64, (dirfd: c_int, path: *const c_char, flags: c_int, mode: mode_t), path, flags, |r: unsafe extern "C" fn(c_int, *const c_char, c_int, mode_t) -> c_int, p| r(dirfd, p, flags, mode));
open_like!(__openat_2, (dirfd: c_int, path: *const c_char, flags: c_int), path, flags, |r: unsafe extern "C" fn(c_int, *const c_char, c_int) -> c_int, p| r(dirfd, p, flags));
open_like!(__openat64_2, (dirfd: c_int, path: *const c_char, flags: c_int), path, flags, |r: unsafe extern "C" fn(c_int, *const c_char, c_int) -> c_int, p| r(dirfd, p, flags));
open_like!(access, (path: *const c_char, mode: c_int), path, mode, |r: unsafe extern "C" fn(*const c_char, c_int) -> c_int, p| r(p, mode));

macro_rules! path_ptr_like {
    ($name:ident, ($($a:ident : $t:ty),*) -> $r:ty, $path:ident, $node:expr, $fail:expr) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($($a: $t),*) -> $r {
            let Some(real) = real!($name: fn($($t),*) -> $r) else { set_errno(libc::ENOSYS); return $fail };
            if inside() {
                // SAFETY: forwarding unchanged.
                return unsafe { real($($a),*) };
            }
            // SAFETY: C string from the caller.
            match unsafe { route($path) } {
                Route::Pass => unsafe { real($($a),*) },
                Route::Node(n) => {
                    #[allow(clippy::redundant_closure_call, reason = "one macro body for several signatures")]
                    ($node)(n, $($a),*)
                }
                Route::Redirect(c) => {
                    let $path = c.as_ptr();
                    // SAFETY: forwarding with the redirected path.
                    unsafe { real($($a),*) }
                }
            }
        }
    };
}

fn fill_stat(n: Node, buf: *mut libc::stat) -> c_int {
    if buf.is_null() {
        set_errno(libc::EFAULT);
        return -1;
    }
    // SAFETY: the caller passes a writable struct stat.
    unsafe { buf.write(vfs::node_stat(n)) };
    0
}

path_ptr_like!(stat, (path: *const c_char, buf: *mut libc::stat) -> c_int, path, |n, _p, b| fill_stat(n, b), -1);
path_ptr_like!(stat64, (path: *const c_char, buf: *mut libc::stat) -> c_int, path, |n, _p, b| fill_stat(n, b), -1);
path_ptr_like!(lstat, (path: *const c_char, buf: *mut libc::stat) -> c_int, path, |n, _p, b| fill_stat(n, b), -1);
path_ptr_like!(lstat64, (path: *const c_char, buf: *mut libc::stat) -> c_int, path, |n, _p, b| fill_stat(n, b), -1);
path_ptr_like!(fstatat, (dirfd: c_int, path: *const c_char, buf: *mut libc::stat, flags: c_int) -> c_int, path, |n, _d, _p, b, _f| fill_stat(n, b), -1);
path_ptr_like!(fstatat64, (dirfd: c_int, path: *const c_char, buf: *mut libc::stat, flags: c_int) -> c_int, path, |n, _d, _p, b, _f| fill_stat(n, b), -1);
path_ptr_like!(opendir, (path: *const c_char) -> *mut libc::DIR, path, |_n, _p| { set_errno(libc::ENOTDIR); std::ptr::null_mut() }, std::ptr::null_mut());
path_ptr_like!(fopen, (path: *const c_char, mode: *const c_char) -> *mut libc::FILE, path, |_n, _p, _m| { set_errno(libc::EACCES); std::ptr::null_mut() }, std::ptr::null_mut());
path_ptr_like!(fopen64, (path: *const c_char, mode: *const c_char) -> *mut libc::FILE, path, |_n, _p, _m| { set_errno(libc::EACCES); std::ptr::null_mut() }, std::ptr::null_mut());
path_ptr_like!(readlink, (path: *const c_char, buf: *mut c_char, len: size_t) -> isize, path, |_n, _p, _b, _l| { set_errno(libc::EINVAL); -1 }, -1);
path_ptr_like!(scandir, (path: *const c_char, list: *mut c_void, filter: *mut c_void, cmp: *mut c_void) -> c_int, path, |_n, _p, _l, _f, _c| { set_errno(libc::ENOTDIR); -1 }, -1);
path_ptr_like!(scandir64, (path: *const c_char, list: *mut c_void, filter: *mut c_void, cmp: *mut c_void) -> c_int, path, |_n, _p, _l, _f, _c| { set_errno(libc::ENOTDIR); -1 }, -1);

/// realpath of an emulated sysfs path is the path itself (libdrm compares it).
unsafe fn realpath_impl(
    path: *const c_char,
    resolved: *mut c_char,
    real: unsafe extern "C" fn(*const c_char, *mut c_char) -> *mut c_char,
) -> *mut c_char {
    if inside() {
        // SAFETY: forwarding unchanged.
        return unsafe { real(path, resolved) };
    }
    // SAFETY: C string from the caller.
    match unsafe { route(path) } {
        Route::Pass => unsafe { real(path, resolved) },
        _ => {
            // SAFETY: the caller's NUL-terminated path.
            let bytes = unsafe { CStr::from_ptr(path) }.to_bytes_with_nul();
            if bytes.len() > libc::PATH_MAX as usize {
                set_errno(libc::ENAMETOOLONG);
                return std::ptr::null_mut();
            }
            let out = if resolved.is_null() {
                // SAFETY: malloc'd buffer the caller frees, as realpath specifies.
                unsafe { libc::malloc(bytes.len()).cast::<c_char>() }
            } else {
                resolved
            };
            if !out.is_null() {
                // SAFETY: `out` has room for PATH_MAX bytes (caller) or exactly `bytes`.
                unsafe {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), out, bytes.len())
                };
            }
            out
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn realpath(path: *const c_char, resolved: *mut c_char) -> *mut c_char {
    let Some(real) = real!(realpath: fn(*const c_char, *mut c_char) -> *mut c_char) else {
        return std::ptr::null_mut();
    };
    // SAFETY: forwarding the caller's arguments.
    unsafe { realpath_impl(path, resolved, real) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __realpath_chk(
    path: *const c_char,
    resolved: *mut c_char,
    _len: size_t,
) -> *mut c_char {
    let Some(real) = real!(realpath: fn(*const c_char, *mut c_char) -> *mut c_char) else {
        return std::ptr::null_mut();
    };
    // SAFETY: forwarding the caller's arguments (the size check is the fortify wrapper's).
    unsafe { realpath_impl(path, resolved, real) }
}

fn drm_node_of(fd: c_int) -> Option<Node> {
    let mut k = crate::kernel_if_started()?;
    let id = k.live(fd)?;
    k.files.get(&id).map(|f| f.node)
}

macro_rules! fstat_like {
    ($name:ident) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(fd: c_int, buf: *mut libc::stat) -> c_int {
            let Some(real) = real!($name: fn(c_int, *mut libc::stat) -> c_int) else { set_errno(libc::ENOSYS); return -1 };
            if inside() {
                // SAFETY: forwarding unchanged.
                return unsafe { real(fd, buf) };
            }
            match guarded(None, || drm_node_of(fd)) {
                Some(n) => fill_stat(n, buf),
                // SAFETY: forwarding unchanged.
                None => unsafe { real(fd, buf) },
            }
        }
    };
}

fstat_like!(fstat);
fstat_like!(fstat64);

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ioctl(fd: c_int, req: c_ulong, arg: *mut c_void) -> c_int {
    let Some(real) = real!(ioctl: fn(c_int, c_ulong, *mut c_void) -> c_int) else {
        set_errno(libc::ENOSYS);
        return -1;
    };
    if inside() {
        // SAFETY: forwarding unchanged.
        return unsafe { real(fd, req, arg) };
    }
    let handled = guarded(Some(-1), || {
        let mut k = crate::kernel_if_started()?;
        if !k.is_drm_fd(fd) {
            return None;
        }
        let mut r = k.ioctl(fd, req, arg as u64);
        // A syncobj wait for a submission blocks, with the lock released, until another
        // thread's ioctl satisfies it or its deadline passes (`crate::syncobj`).
        if r == Err(crate::errno::Errno::ETIME)
            && let Some(deadline) = crate::syncobj::wait_deadline(req, arg as u64)
        {
            loop {
                let left = deadline.saturating_sub(crate::syncobj::monotonic_ns());
                if left <= 0 {
                    break;
                }
                let step = std::time::Duration::from_nanos(left as u64);
                k = crate::syncobj::CHANGED
                    .wait_timeout(k, step)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                r = k.ioctl(fd, req, arg as u64);
                if r != Err(crate::errno::Errno::ETIME) {
                    break;
                }
            }
        }
        if r.is_ok() {
            crate::syncobj::CHANGED.notify_all();
        }
        if crate::trace_ioctls() {
            let n = crate::uapi::nr(req);
            // The parameter asked about, where the call is a GETPARAM or a context
            // GET/SETPARAM (its first word after the context id).
            let param = match n.wrapping_sub(crate::uapi::DRM_COMMAND_BASE) {
                crate::uapi::I915_GETPARAM => crate::user::read::<i32>(arg as u64)
                    .map(|p| format!(" param {p}"))
                    .unwrap_or_default(),
                crate::uapi::I915_GEM_CONTEXT_GETPARAM | crate::uapi::I915_GEM_CONTEXT_SETPARAM => {
                    crate::user::read::<u64>(arg as u64 + 8)
                        .map(|p| format!(" param {p:#x}"))
                        .unwrap_or_default()
                }
                _ => String::new(),
            };
            log(&format!(
                "ioctl {}{param} (nr {n:#04x}) -> {}",
                crate::uapi::name(n),
                match r {
                    Ok(()) => "0".to_string(),
                    Err(e) => e.to_string(),
                }
            ));
        }
        Some(match r {
            Ok(()) => 0,
            Err(e) => {
                if e == crate::errno::Errno::ENOTTY {
                    log(&format!(
                        "unknown ioctl {req:#x} (type {:#x}, nr {:#x}, size {}) on the DRM fd: refused with ENOTTY",
                        crate::uapi::ty(req),
                        crate::uapi::nr(req),
                        crate::uapi::size(req)
                    ));
                }
                set_errno(e.0);
                -1
            }
        })
    });
    match handled {
        Some(r) => r,
        // SAFETY: not ours: forwarding unchanged.
        None => unsafe { real(fd, req, arg) },
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn mmap(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: off_t,
) -> *mut c_void {
    if inside() || fd < 0 {
        // SAFETY: forwarding unchanged.
        return unsafe { real_mmap(addr, len, prot, flags, fd, off) };
    }
    let target = guarded(Err(libc::EIO), || {
        let Some(mut k) = crate::kernel_if_started() else {
            return Ok(None);
        };
        if !k.is_drm_fd(fd) {
            // A dma-buf of ours is a memfd; a mapping past its end would SIGBUS when
            // touched, where dma_buf_mmap_internal (drivers/dma-buf/dma-buf.c) refuses
            // it: EINVAL.
            if let Some(size) = k.dma_buf_size(fd) {
                let pages = (len as u64).div_ceil(4096);
                let first = (off as u64) / 4096;
                if off < 0 || first.checked_add(pages).is_none_or(|end| end > size / 4096) {
                    return Err(libc::EINVAL);
                }
            }
            return Ok(None);
        }
        match k.mmap_target(off as u64) {
            Some((bo, within)) if within.checked_add(len as u64).is_some_and(|e| e <= bo.size) => {
                let Some(memfd) = bo.memfd() else {
                    return Err(libc::ENODEV);
                };
                // SAFETY: mapping the object's memfd with the caller's address hint, protection and flags.
                let p = unsafe { real_mmap(addr, len, prot, flags, memfd, within as off_t) };
                Ok(Some(p))
            }
            _ => Err(libc::EINVAL),
        }
    });
    match target {
        Ok(Some(p)) => p,
        // SAFETY: not ours: forwarding unchanged.
        Ok(None) => unsafe { real_mmap(addr, len, prot, flags, fd, off) },
        Err(e) => {
            set_errno(e);
            libc::MAP_FAILED
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn mmap64(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: off_t,
) -> *mut c_void {
    // SAFETY: same contract as mmap on 64-bit.
    unsafe { mmap(addr, len, prot, flags, fd, off) }
}

/// read(2) of a DRM fd gives the events queued on its file (drm_read: whole events that
/// fit, in order; `crate::kms`); with none queued, what the fd's memfd gives (nothing).
/// Other reads, and every read while no event is queued anywhere, go straight through
/// without the kernel's lock.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn read(fd: c_int, buf: *mut c_void, count: size_t) -> ssize_t {
    let Some(real) = real!(read: fn(c_int, *mut c_void, size_t) -> ssize_t) else {
        set_errno(libc::ENOSYS);
        return -1;
    };
    if inside() || !crate::kms::events_queued() {
        // SAFETY: forwarding unchanged.
        return unsafe { real(fd, buf, count) };
    }
    let events = guarded(None, || {
        let mut k = crate::kernel_if_started()?;
        if !k.is_drm_fd(fd) {
            return None;
        }
        k.read_events(fd, count)
    });
    match events {
        Some(e) if !e.is_empty() => {
            // SAFETY: the caller's buffer holds `count` bytes, and `e` is no longer.
            unsafe { std::ptr::copy_nonoverlapping(e.as_ptr(), buf.cast::<u8>(), e.len()) };
            e.len() as ssize_t
        }
        // SAFETY: not ours, or nothing queued: forwarding unchanged.
        _ => unsafe { real(fd, buf, count) },
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    let Some(real) = real!(close: fn(c_int) -> c_int) else {
        set_errno(libc::ENOSYS);
        return -1;
    };
    if inside() {
        // SAFETY: forwarding unchanged.
        return unsafe { real(fd) };
    }
    // SAFETY: forwarding unchanged.
    let r = unsafe { real(fd) };
    guarded((), || {
        if let Some(mut k) = crate::kernel_if_started() {
            k.close_fd(fd);
        }
    });
    r
}

/// After a successful dup-like call: `new` refers to what `old` does (and whatever `new`
/// was before is closed).
fn note_dup(old: c_int, new: c_int) {
    if new >= 0 {
        guarded((), || {
            if let Some(mut k) = crate::kernel_if_started() {
                k.dup_fd(old, new);
            }
        });
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn dup(fd: c_int) -> c_int {
    let Some(real) = real!(dup: fn(c_int) -> c_int) else {
        set_errno(libc::ENOSYS);
        return -1;
    };
    // SAFETY: forwarding unchanged.
    let r = unsafe { real(fd) };
    if !inside() {
        note_dup(fd, r);
    }
    r
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn dup2(fd: c_int, to: c_int) -> c_int {
    let Some(real) = real!(dup2: fn(c_int, c_int) -> c_int) else {
        set_errno(libc::ENOSYS);
        return -1;
    };
    // SAFETY: forwarding unchanged.
    let r = unsafe { real(fd, to) };
    if !inside() {
        note_dup(fd, r);
    }
    r
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn dup3(fd: c_int, to: c_int, flags: c_int) -> c_int {
    let Some(real) = real!(dup3: fn(c_int, c_int, c_int) -> c_int) else {
        set_errno(libc::ENOSYS);
        return -1;
    };
    // SAFETY: forwarding unchanged.
    let r = unsafe { real(fd, to, flags) };
    if !inside() {
        note_dup(fd, r);
    }
    r
}

macro_rules! fcntl_like {
    ($name:ident) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(fd: c_int, cmd: c_int, arg: c_long) -> c_int {
            let Some(real) = real!($name: fn(c_int, c_int, c_long) -> c_int) else { set_errno(libc::ENOSYS); return -1 };
            // SAFETY: forwarding unchanged.
            let r = unsafe { real(fd, cmd, arg) };
            if !inside() && (cmd == libc::F_DUPFD || cmd == libc::F_DUPFD_CLOEXEC) {
                note_dup(fd, r);
            }
            r
        }
    };
}

fcntl_like!(fcntl);
fcntl_like!(fcntl64);

/// close_range(2) (glibc 2.34+): the fds in the range are closed unless the call only
/// marks them close-on-exec.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn close_range(
    first: libc::c_uint,
    last: libc::c_uint,
    flags: c_int,
) -> c_int {
    let Some(real) = real!(close_range: fn(libc::c_uint, libc::c_uint, c_int) -> c_int) else {
        set_errno(libc::ENOSYS);
        return -1;
    };
    // SAFETY: forwarding unchanged.
    let r = unsafe { real(first, last, flags) };
    if r == 0 && !inside() && flags & libc::CLOSE_RANGE_CLOEXEC as c_int == 0 {
        guarded((), || {
            if let Some(mut k) = crate::kernel_if_started() {
                k.close_range(first, last);
            }
        });
    }
    r
}

/// Whether the mapping containing `addr` maps one of our buffer objects' memfds
/// (/proc/self/maps names them "/memfd:gtsim-bo").
fn maps_buffer_object(addr: u64) -> bool {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return false;
    };
    maps.lines().any(|line| {
        let mut parts = line.split_whitespace();
        let range = parts.next().unwrap_or("");
        let path = parts.nth(4).unwrap_or("");
        let Some((lo, hi)) = range.split_once('-') else {
            return false;
        };
        let (Ok(lo), Ok(hi)) = (u64::from_str_radix(lo, 16), u64::from_str_radix(hi, 16)) else {
            return false;
        };
        (lo..hi).contains(&addr) && path.starts_with("/memfd:gtsim-bo")
    })
}

/// mremap(2). Growing a mapping of a buffer object is EFAULT: i915's mappings are
/// VM_DONTEXPAND, which mremap refuses to grow (mm/mremap.c, vma_to_resize, Linux 6.1);
/// grown, a memfd mapping would SIGBUS past the object's end. (A grown mapping of a
/// shmem-backed dma-buf is allowed by the kernel but equally useless; it is refused too.)
/// The fifth parameter is the optional new address (variadic in C; same register on
/// x86-64, see the module docs).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mremap(
    old: *mut c_void,
    old_size: size_t,
    new_size: size_t,
    flags: c_int,
    new_addr: *mut c_void,
) -> *mut c_void {
    let Some(real) =
        real!(mremap: fn(*mut c_void, size_t, size_t, c_int, *mut c_void) -> *mut c_void)
    else {
        set_errno(libc::ENOSYS);
        return libc::MAP_FAILED;
    };
    if !inside()
        && new_size > old_size
        && guarded(false, || crate::started() && maps_buffer_object(old as u64))
    {
        set_errno(libc::EFAULT);
        return libc::MAP_FAILED;
    }
    // SAFETY: forwarding unchanged.
    unsafe { real(old, old_size, new_size, flags, new_addr) }
}

#[cfg(test)]
mod teardown_tests {
    use super::guarded;
    use std::cell::Cell;

    /// A thread-local with a destructor, as the log's buffers and the model's caches are.
    struct Buffer(Cell<u32>);

    impl Drop for Buffer {
        fn drop(&mut self) {}
    }

    thread_local! {
        static BUFFER: Buffer = const { Buffer(Cell::new(0)) };
        static LATE: Late = const { Late };
    }

    /// Registered first on its thread, so destroyed last: its destructor calls a hooked
    /// function after the call's own thread-locals are gone, as a client's exit handler
    /// does after glibc has run the main thread's thread-local destructors.
    struct Late;

    impl Drop for Late {
        fn drop(&mut self) {
            let got = guarded(None, || {
                // SAFETY: __errno_location returns this thread's errno slot.
                unsafe { *libc::__errno_location() = libc::ENOENT };
                Some(BUFFER.with(|b| {
                    b.0.set(b.0.get() + 1);
                    b.0.get()
                }))
            });
            // SAFETY: as above.
            let errno = unsafe { *libc::__errno_location() };
            RESULT.lock().unwrap().replace((got, errno));
        }
    }

    static RESULT: std::sync::Mutex<Option<(Option<u32>, i32)>> = std::sync::Mutex::new(None);

    /// The call made during teardown runs (on a scoped thread with fresh thread-locals:
    /// the buffer counts 1 there, not the 2 of the destroyed one) and leaves its errno
    /// on the calling thread. Before, the buffer's `with` panicked, the panic was caught
    /// and the call failed with EIO.
    #[test]
    fn a_call_after_the_threads_thread_locals_are_destroyed_still_runs() {
        std::thread::spawn(|| {
            LATE.with(|_| ());
            let first = guarded(None, || {
                Some(BUFFER.with(|b| {
                    b.0.set(b.0.get() + 1);
                    b.0.get()
                }))
            });
            assert_eq!(first, Some(1));
            BUFFER.with(|b| b.0.set(b.0.get() + 1));
        })
        .join()
        .unwrap();
        assert_eq!(*RESULT.lock().unwrap(), Some((Some(1), libc::ENOENT)));
    }
}
