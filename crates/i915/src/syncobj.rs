//! DRM sync objects, binary and timeline (drivers/gpu/drm/drm_syncobj.c, Linux 6.1).
//!
//! A syncobj holds at most one fence. Signalled as a binary object it holds a plain
//! fence; signalled at a timeline point it holds a dma_fence_chain whose seqno is the
//! highest point added. Execution here is synchronous: every fence a submission or an
//! ioctl attaches is signalled when the call returns, so a syncobj is fully described
//! by whether it holds a fence and, when that fence is a chain, its point ([`Syncobj`]).
//! A wait that cannot be satisfied now answers ETIME from [`Kernel::ioctl`]; with
//! DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT the preloaded entry point then blocks as the
//! kernel does until another thread of the client submits or signals what it waits for,
//! or its absolute CLOCK_MONOTONIC timeout passes ([`wait_deadline`], `hooks::ioctl`):
//! it sleeps on [`CHANGED`] with the kernel lock released, and tries again after every
//! ioctl that succeeded.

use crate::errno::Errno;
use crate::kernel::Kernel;
use crate::uapi::*;
use crate::user;

/// Notified after every ioctl that succeeded: what a blocked syncobj wait sleeps on,
/// with the kernel's lock (`crate::kernel`) released.
pub static CHANGED: std::sync::Condvar = std::sync::Condvar::new();

/// The absolute CLOCK_MONOTONIC deadline (ns) of a syncobj wait that may block: a
/// DRM_SYNCOBJ_WAIT or DRM_SYNCOBJ_TIMELINE_WAIT with WAIT_FOR_SUBMIT whose timeout
/// (`timeout_nsec`, absolute, drm_timeout_abs_to_jiffies) is in the future. `None` for
/// every other request, and when the argument cannot be read.
pub fn wait_deadline(req: u64, arg: u64) -> Option<i64> {
    let at = match nr(req) {
        DRM_SYNCOBJ_WAIT => arg,
        DRM_SYNCOBJ_TIMELINE_WAIT => arg + 8,
        _ => return None,
    };
    if ty(req) != DRM_IOCTL_BASE {
        return None;
    }
    // struct drm_syncobj_wait: handles, timeout_nsec, count_handles, flags; the
    // timeline form has points after handles.
    let timeout: i64 = user::read(at + 8).ok()?;
    let flags: u32 = user::read(at + 20).ok()?;
    let now = monotonic_ns();
    (flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT != 0 && timeout > now)
        .then(|| wait_limit().map_or(timeout, |l| timeout.min(now.saturating_add(l))))
}

/// `GTSIM_I915_WAIT_LIMIT_MS`: the longest a blocked syncobj wait sleeps before it times
/// out, for harnesses that issue random waits no thread will satisfy (the preloaded
/// fuzz campaign); unset, a wait lasts until its own deadline, as in the kernel.
fn wait_limit() -> Option<i64> {
    static LIMIT: std::sync::OnceLock<Option<i64>> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var("GTSIM_I915_WAIT_LIMIT_MS")
            .ok()
            .and_then(|v| v.parse::<i64>().ok())
            .map(|ms| ms.saturating_mul(1_000_000))
    })
}

/// CLOCK_MONOTONIC now, in nanoseconds.
pub fn monotonic_ns() -> i64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec)
}

/// One sync object's state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Syncobj {
    /// It holds a fence (always signalled here).
    pub fence: bool,
    /// The seqno of the fence when it is a timeline chain, else 0.
    pub point: u64,
}

impl Syncobj {
    /// A syncobj created with or without DRM_SYNCOBJ_CREATE_SIGNALED.
    pub fn new(signalled: bool) -> Syncobj {
        Syncobj {
            fence: signalled,
            point: 0,
        }
    }

    /// drm_syncobj_replace_fence with a signalled plain fence (binary signal, the stub
    /// fence of DRM_SYNCOBJ_SIGNAL): the chain, if any, is gone.
    pub fn signal(&mut self) {
        *self = Syncobj {
            fence: true,
            point: 0,
        };
    }

    /// drm_syncobj_add_point: a chain link at `point`. dma_fence_chain_init keeps the
    /// seqno monotonic (a point at or below the chain's becomes the chain's).
    pub fn add_point(&mut self, point: u64) {
        self.fence = true;
        self.point = self.point.max(point);
    }

    /// Whether a fence for `point` exists (and so has signalled):
    /// dma_fence_chain_find_seqno succeeds for point 0 on any fence, and for a later
    /// point only on a chain that reached it.
    pub fn has(&self, point: u64) -> bool {
        self.fence && (point == 0 || self.point >= point)
    }
}

/// A sync object as handles name it: shared between every handle (in any file) that
/// refers to it, as DRM_SYNCOBJ_FD_TO_HANDLE makes them, and with the file an export
/// made for it (`file`), which it closes when the last handle goes.
#[derive(Debug, Clone, Default)]
pub struct SyncobjRef(std::sync::Arc<std::sync::Mutex<Shared>>);

/// What a [`SyncobjRef`] shares.
#[derive(Debug, Default)]
pub struct Shared {
    state: Syncobj,
    /// The opaque fd DRM_SYNCOBJ_HANDLE_TO_FD made for it: our own descriptor of a
    /// memfd (the clients get duplicates) and its identity.
    file: Option<(i32, (u64, u64))>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some((fd, ident)) = self.file {
            // Close the memfd only if the number still is ours (the client may have
            // closed it behind our back and the number been reused).
            if crate::kernel::fd_identity(fd) == Some(ident) {
                // SAFETY: closing a descriptor this object opened and still owns.
                unsafe { libc::close(fd) };
            }
        }
    }
}

impl SyncobjRef {
    /// A new sync object in `state`.
    pub fn new(state: Syncobj) -> SyncobjRef {
        SyncobjRef(std::sync::Arc::new(std::sync::Mutex::new(Shared {
            state,
            file: None,
        })))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Its state now.
    pub fn get(&self) -> Syncobj {
        self.lock().state
    }

    /// Changes its state.
    pub fn update(&self, f: impl FnOnce(&mut Syncobj)) {
        f(&mut self.lock().state);
    }

    /// The identity of its exported file, made on first export: a memfd, of which the
    /// caller gets a duplicate (ENOMEM when none can be made).
    fn export(&self) -> Result<(i32, (u64, u64)), Errno> {
        let mut shared = self.lock();
        if let Some(f) = shared.file
            && crate::kernel::fd_identity(f.0) == Some(f.1)
        {
            return Ok(f);
        }
        // SAFETY: creating an anonymous file; the result is checked.
        let fd = unsafe { libc::memfd_create(c"gtsim-syncobj".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(Errno::ENOMEM);
        }
        let ident = crate::kernel::fd_identity(fd).ok_or(Errno::ENOMEM)?;
        shared.file = Some((fd, ident));
        Ok((fd, ident))
    }

    fn weak(&self) -> std::sync::Weak<std::sync::Mutex<Shared>> {
        std::sync::Arc::downgrade(&self.0)
    }
}

/// The most syncobj handles one call may name. drm_syncobj_array_find copies them into
/// a kmalloc_array of u32 and then one of pointers; kmalloc refuses more than
/// KMALLOC_MAX_SIZE (4 MiB with 4 KiB pages and MAX_ORDER 11, include/linux/slab.h),
/// so beyond 512 Ki handles the kernel answers ENOMEM. The bound also caps what one
/// call costs the host.
const MAX_SYNCOBJ_HANDLES: u32 = (4 << 20) / 8;

/// The handle array of a syncobj ioctl: ENOMEM past the kernel's allocation limit, EFAULT
/// if it cannot be read.
fn handles(addr: u64, count: u32) -> Result<Vec<u32>, Errno> {
    if count > MAX_SYNCOBJ_HANDLES {
        return Err(Errno::ENOMEM);
    }
    user::read_array(addr, count as usize)
}

/// The point array of a timeline ioctl: a null pointer means every point is 0, as
/// drm_syncobj_array_wait and the signal ioctl read it.
fn points(addr: u64, count: usize) -> Result<Vec<u64>, Errno> {
    if addr == 0 {
        return Ok(vec![0; count]);
    }
    user::read_array(addr, count)
}

impl Kernel {
    /// The sync object ioctls (drm_syncobj_*_ioctl).
    pub(crate) fn syncobj_ioctl(
        &mut self,
        fd: i32,
        n: u32,
        a: &mut user::Args,
    ) -> Result<(), Errno> {
        match n {
            DRM_SYNCOBJ_CREATE => {
                let mut c: DrmSyncobjCreate = a.get();
                if c.flags & !DRM_SYNCOBJ_CREATE_SIGNALED != 0 {
                    return Err(Errno::EINVAL);
                }
                let signalled = c.flags & DRM_SYNCOBJ_CREATE_SIGNALED != 0;
                c.handle = self
                    .file(fd)?
                    .add_syncobj(SyncobjRef::new(Syncobj::new(signalled)));
                a.put(&c)
            }
            DRM_SYNCOBJ_DESTROY => {
                let c: DrmSyncobjDestroy = a.get();
                if c.pad != 0 {
                    return Err(Errno::EINVAL);
                }
                self.file(fd)?
                    .syncobjs
                    .remove(&c.handle)
                    .map(|_| ())
                    .ok_or(Errno::EINVAL)
            }
            DRM_SYNCOBJ_WAIT => {
                let mut w: DrmSyncobjWait = a.get();
                if w.flags
                    & !(DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT)
                    != 0
                    || w.count_handles == 0
                {
                    return Err(Errno::EINVAL);
                }
                let hs = handles(w.handles, w.count_handles)?;
                let ps = vec![0; hs.len()];
                w.first_signaled = self.wait(fd, &hs, &ps, w.flags)?;
                a.put(&w)
            }
            DRM_SYNCOBJ_TIMELINE_WAIT => {
                let mut w: DrmSyncobjTimelineWait = a.get();
                let known = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
                    | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT
                    | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
                if w.flags & !known != 0 || w.count_handles == 0 {
                    return Err(Errno::EINVAL);
                }
                let hs = handles(w.handles, w.count_handles)?;
                let ps = points(w.points, hs.len())?;
                w.first_signaled = self.wait(fd, &hs, &ps, w.flags)?;
                a.put(&w)
            }
            DRM_SYNCOBJ_RESET | DRM_SYNCOBJ_SIGNAL => {
                let arr: DrmSyncobjArray = a.get();
                if arr.pad != 0 || arr.count_handles == 0 {
                    return Err(Errno::EINVAL);
                }
                let hs = handles(arr.handles, arr.count_handles)?;
                let f = self.file(fd)?;
                if hs.iter().any(|h| !f.syncobjs.contains_key(h)) {
                    return Err(Errno::ENOENT);
                }
                for h in hs {
                    f.syncobjs[&h].update(|s| {
                        if n == DRM_SYNCOBJ_SIGNAL {
                            s.signal();
                        } else {
                            *s = Syncobj::default();
                        }
                    });
                }
                Ok(())
            }
            DRM_SYNCOBJ_TIMELINE_SIGNAL => {
                // drm_syncobj_timeline_signal_ioctl: no flags, at least one handle, the
                // handles (ENOENT), the points (EFAULT); point 0 signals as binary.
                let arr: DrmSyncobjTimelineArray = a.get();
                if arr.flags != 0 || arr.count_handles == 0 {
                    return Err(Errno::EINVAL);
                }
                let hs = handles(arr.handles, arr.count_handles)?;
                let f = self.file(fd)?;
                if hs.iter().any(|h| !f.syncobjs.contains_key(h)) {
                    return Err(Errno::ENOENT);
                }
                let ps = points(arr.points, hs.len())?;
                let f = self.file(fd)?;
                for (h, p) in hs.into_iter().zip(ps) {
                    f.syncobjs[&h].update(|s| {
                        if p == 0 {
                            s.signal();
                        } else {
                            s.add_point(p);
                        }
                    });
                }
                Ok(())
            }
            DRM_SYNCOBJ_QUERY => {
                // drm_syncobj_query_ioctl: the last signalled point of each (of a plain
                // fence or none: 0); LAST_SUBMITTED is the same here, everything
                // submitted having signalled.
                let arr: DrmSyncobjTimelineArray = a.get();
                if arr.flags & !DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED != 0
                    || arr.count_handles == 0
                {
                    return Err(Errno::EINVAL);
                }
                let hs = handles(arr.handles, arr.count_handles)?;
                let f = self.file(fd)?;
                let values = hs
                    .iter()
                    .map(|h| {
                        f.syncobjs
                            .get(h)
                            .map(|s| s.get().point)
                            .ok_or(Errno::ENOENT)
                    })
                    .collect::<Result<Vec<u64>, Errno>>()?;
                for (i, v) in values.iter().enumerate() {
                    user::write(arr.points + 8 * i as u64, v)?;
                }
                Ok(())
            }
            DRM_SYNCOBJ_TRANSFER => {
                // drm_syncobj_transfer_ioctl: pad EINVAL; the source's fence at its point
                // (drm_syncobj_find_fence: ENOENT for an unknown handle, EINVAL without
                // the fence, ETIME when WAIT_FOR_SUBMIT waited in vain) becomes the
                // destination's point, or its fence when the destination point is 0.
                let t: DrmSyncobjTransfer = a.get();
                if t.pad != 0 {
                    return Err(Errno::EINVAL);
                }
                let f = self.file(fd)?;
                if t.dst_point != 0 && !f.syncobjs.contains_key(&t.dst_handle) {
                    return Err(Errno::ENOENT);
                }
                let src = f.syncobjs.get(&t.src_handle).ok_or(Errno::ENOENT)?.get();
                if !src.has(t.src_point) {
                    return Err(if t.flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT != 0 {
                        Errno::ETIME
                    } else {
                        Errno::EINVAL
                    });
                }
                let dst = f.syncobjs.get(&t.dst_handle).ok_or(Errno::ENOENT)?;
                dst.update(|dst| {
                    if t.dst_point == 0 {
                        // The fence found at a point of a chain is a chain link; at point
                        // 0 it is the source's fence itself.
                        *dst = if t.src_point == 0 {
                            src
                        } else {
                            Syncobj {
                                fence: true,
                                point: t.src_point,
                            }
                        };
                    } else {
                        dst.add_point(t.dst_point);
                    }
                });
                Ok(())
            }
            DRM_SYNCOBJ_HANDLE_TO_FD => {
                // drm_syncobj_handle_to_fd_ioctl: pad and unknown flags EINVAL. An opaque
                // export is a file naming the syncobj (an unknown handle EINVAL); with
                // EXPORT_SYNC_FILE a sync_file of its fence (drm_syncobj_find_fence:
                // ENOENT for the handle, EINVAL without a fence), here an eventfd
                // holding a count, the emulation's signalled sync_file.
                let mut h: DrmSyncobjHandle = a.get();
                if h.pad != 0 || h.flags & !DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE != 0 {
                    return Err(Errno::EINVAL);
                }
                let f = self.file(fd)?;
                let out = if h.flags != 0 {
                    let s = f.syncobjs.get(&h.handle).ok_or(Errno::ENOENT)?;
                    if !s.get().fence {
                        return Err(Errno::EINVAL);
                    }
                    // SAFETY: plain syscall; the result is checked.
                    unsafe { libc::eventfd(1, libc::EFD_CLOEXEC) }
                } else {
                    let s = f.syncobjs.get(&h.handle).ok_or(Errno::EINVAL)?.clone();
                    let (ours, ident) = s.export()?;
                    self.syncobj_files.insert(ident, s.weak());
                    // SAFETY: duplicating a descriptor we own; the result is checked.
                    unsafe { libc::fcntl(ours, libc::F_DUPFD_CLOEXEC, 0) }
                };
                if out < 0 {
                    return Err(Errno::ENOMEM);
                }
                h.fd = out;
                a.put(&h)
            }
            DRM_SYNCOBJ_FD_TO_HANDLE => {
                // drm_syncobj_fd_to_handle_ioctl: pad and unknown flags EINVAL. An opaque
                // fd must be one of our syncobj files (EINVAL otherwise) and gets a new
                // handle to the same syncobj; with IMPORT_SYNC_FILE the sync_file's
                // fence (EINVAL for anything else) replaces the fence of the syncobj
                // `handle` names (ENOENT).
                let mut h: DrmSyncobjHandle = a.get();
                if h.pad != 0 || h.flags & !DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE != 0 {
                    return Err(Errno::EINVAL);
                }
                if h.flags != 0 {
                    if !crate::execbuffer::is_sync_file(h.fd) {
                        return Err(Errno::EINVAL);
                    }
                    let s = self
                        .file(fd)?
                        .syncobjs
                        .get(&h.handle)
                        .ok_or(Errno::ENOENT)?;
                    s.update(Syncobj::signal);
                    return Ok(());
                }
                let ident = crate::kernel::fd_identity(h.fd).ok_or(Errno::EINVAL)?;
                self.syncobj_files.retain(|_, w| w.strong_count() > 0);
                let shared = self
                    .syncobj_files
                    .get(&ident)
                    .and_then(std::sync::Weak::upgrade)
                    .ok_or(Errno::EINVAL)?;
                h.handle = self.file(fd)?.add_syncobj(SyncobjRef(shared));
                a.put(&h)
            }
            _ => Err(Errno::ENOTTY),
        }
    }

    /// drm_syncobj_array_wait_timeout over `(handle, point)` pairs: ENOENT for an
    /// unknown handle; a point without a fence is EINVAL unless the caller waits for
    /// the submission, and then the wait times out (ETIME), nothing else being able to
    /// submit it while this thread waits. Returns the first signalled index.
    fn wait(&mut self, fd: i32, hs: &[u32], ps: &[u64], flags: u32) -> Result<u32, Errno> {
        let f = self.file(fd)?;
        let states = hs
            .iter()
            .zip(ps)
            .map(|(h, &p)| {
                f.syncobjs
                    .get(h)
                    .map(|s| s.get().has(p))
                    .ok_or(Errno::ENOENT)
            })
            .collect::<Result<Vec<bool>, Errno>>()?;
        if flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT == 0 && states.iter().any(|s| !s) {
            return Err(Errno::EINVAL);
        }
        let done = if flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL != 0 {
            states.iter().all(|s| *s)
        } else {
            states.iter().any(|s| *s)
        };
        if !done {
            return Err(Errno::ETIME);
        }
        Ok(states.iter().position(|s| *s).unwrap_or(0) as u32)
    }
}
