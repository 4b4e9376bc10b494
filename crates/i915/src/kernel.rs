//! The emulated i915 kernel driver: files, buffer objects, contexts, syncobjs and the
//! ioctls that manage them. `execbuffer.rs` holds EXECBUFFER2.
//!
//! Everything here is ordinary safe code over the state; client memory is only touched
//! through `user.rs` (checked copies) and buffer objects through `bo.rs`.

use crate::bo::{Bo, Gtt};
use crate::errno::Errno;
use crate::uapi::*;
use crate::user;
use gtsim_gpu::aub::AubWriter;
use gtsim_gpu::device::Device;
use std::collections::{BTreeMap, HashMap};

/// Which DRM node a file was opened on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node {
    /// /dev/dri/renderD128.
    Render,
    /// /dev/dri/card0.
    Primary,
}

/// One slot of a context's engine map: its device context and the ring it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineSlot {
    /// The slot's own device context.
    pub ctx: u32,
    /// Its engine's command streamer.
    pub ring: gtsim_gpu::device::Ring,
}

/// Per-context bookkeeping (the model's state lives in the device).
#[derive(Debug, Clone, Default)]
pub struct Ctx {
    /// Context id in the device (unique across files).
    pub device_id: u32,
    /// Its hangs, ban and ban parameters (`ban.rs`).
    pub hangs: crate::ban::ContextHangs,
    /// The address space (a key of [`DrmFile::vms`]) on a full-PPGTT platform.
    pub vm: u32,
    /// The engine map set with I915_CONTEXT_PARAM_ENGINES: one device context per slot
    /// (each slot is its own hardware context, with its own state) on its engine's ring,
    /// `None` for an invalid-engine placeholder. Without a map, execbuffer names a
    /// legacy ring.
    pub engines: Option<Vec<Option<EngineSlot>>>,
    /// Whether a batch ran in it (VM and engines can then no longer change: Linux 6.1
    /// finalises the proto-context on first use).
    pub used: bool,
}

/// One open file description of a DRM node (shared by dup'ed fds).
#[derive(Debug)]
pub struct DrmFile {
    /// Node opened.
    pub node: Node,
    /// GEM handle -> object id.
    pub handles: BTreeMap<u32, u64>,
    next_handle: u32,
    /// Context id -> context (0 is the default context).
    pub contexts: BTreeMap<u32, Ctx>,
    next_ctx: u32,
    /// Syncobj handle -> the sync object (shared with other handles to it).
    pub syncobjs: BTreeMap<u32, crate::syncobj::SyncobjRef>,
    next_syncobj: u32,
    /// Open fds referring to this file.
    pub fd_count: u32,
    /// The file's address spaces on a full-PPGTT platform (Ice Lake), by VM id: each
    /// maps graphics addresses to object ids. Every context gets its own at creation
    /// (full PPGTT) unless I915_CONTEXT_PARAM_VM shares one. Ivy Bridge binds in the
    /// kernel's one GTT ([`Kernel::bound`]).
    pub vms: BTreeMap<u32, BTreeMap<u64, u64>>,
    next_vm: u32,
    /// User VM handles (GEM_VM_CREATE, CONTEXT_GETPARAM VM) -> VM id.
    pub vm_handles: BTreeMap<u32, u32>,
    next_vm_handle: u32,
    /// The client's ban score (`ban.rs`): at 9 it can create no more contexts.
    pub client: crate::ban::ClientScore,
}

impl DrmFile {
    /// A new syncobj handle for `s`.
    pub fn add_syncobj(&mut self, s: crate::syncobj::SyncobjRef) -> u32 {
        let h = self.next_syncobj;
        self.next_syncobj += 1;
        self.syncobjs.insert(h, s);
        h
    }

    /// A new, empty address space.
    fn new_vm(&mut self) -> u32 {
        self.next_vm += 1;
        self.vms.insert(self.next_vm, BTreeMap::new());
        self.next_vm
    }

    /// A new user handle for VM `vm` (handles start at 1, as i915's xarray ids).
    fn vm_handle(&mut self, vm: u32) -> u32 {
        self.next_vm_handle += 1;
        self.vm_handles.insert(self.next_vm_handle, vm);
        self.next_vm_handle
    }
}

/// The whole emulated driver.
#[derive(Debug, Default)]
pub struct Kernel {
    /// File descriptions by id.
    pub files: HashMap<u64, DrmFile>,
    /// fd -> file id.
    pub fds: HashMap<i32, u64>,
    /// fd -> the identity (st_dev, st_ino) it had when registered, `None` if it had none
    /// (see [`fd_identity`]).
    fd_ids: HashMap<i32, Option<(u64, u64)>>,
    next_file: u64,
    /// Buffer objects by id.
    pub bos: BTreeMap<u64, Bo>,
    next_bo: u64,
    /// Fake mmap offset -> object id.
    pub mmap_offsets: BTreeMap<u64, u64>,
    /// The linear views of GTT-mapped tiled objects, by object id (`detile.rs`).
    pub gtt_views: BTreeMap<u64, crate::detile::DetiledView>,
    /// Fake mmap offset of a linear view -> object id.
    gtt_view_offsets: BTreeMap<u64, u64>,
    /// Graphics address allocator.
    pub gtt: Gtt,
    /// Bound objects: graphics address -> object id.
    pub bound: BTreeMap<u64, u64>,
    /// The GPU.
    pub device: Device,
    next_device_ctx: u32,
    /// Where submissions are captured, if anywhere.
    pub capture: Option<Capture>,
    /// Submissions so far.
    pub submissions: u64,
    /// Which GPU this kernel drives.
    pub platform: crate::platform::Platform,
    /// Where a hang's error state file goes (`None`: nowhere).
    pub error_dir: Option<std::path::PathBuf>,
    /// The sync objects exported as opaque fds, by their file's identity (held weakly:
    /// a syncobj all of whose handles are gone is gone).
    pub syncobj_files:
        BTreeMap<(u64, u64), std::sync::Weak<std::sync::Mutex<crate::syncobj::Shared>>>,
    /// The display on card0 (`crate::kms`).
    pub kms: crate::kms::Kms,
}

/// An AUB capture being written.
#[derive(Debug)]
pub struct Capture {
    /// Output file.
    pub file: std::fs::File,
    /// The packets not yet written.
    pub writer: CaptureWriter,
}

/// The trace form of the platform: Gen7's ring and GGTT trace blocks, or Gen8+'s
/// memtrace packets with a PPGTT and execlist submissions.
#[derive(Debug)]
pub enum CaptureWriter {
    /// Ivy Bridge.
    Legacy(AubWriter),
    /// Ice Lake.
    Execlist(gtsim_gpu::aub::MemtraceWriter),
}

/// What identifies the open file behind `fd`: (st_dev, st_ino), or `None` if `fd` is not
/// open. Made with the raw system call so that no interposed `fstat` runs under the
/// kernel's lock.
pub fn fd_identity(fd: i32) -> Option<(u64, u64)> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::zeroed();
    // SAFETY: fstat(2) writes at most one struct stat into our own buffer; the result is
    // checked.
    let r = unsafe { libc::syscall(libc::SYS_fstat, fd, st.as_mut_ptr()) };
    if r != 0 {
        return None;
    }
    // SAFETY: initialised by zeroing and by the successful fstat.
    let st = unsafe { st.assume_init() };
    Some((st.st_dev, st.st_ino))
}

/// The machine's RAM, which an integrated GPU's system-memory region reports.
fn physical_ram() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages.max(0) as u64).saturating_mul(size.max(0) as u64)
}

/// Size of the fake mmap offset space per object: offsets are handed out in 4 GiB steps
/// so that an offset identifies its object and the position within it.
const MMAP_STRIDE: u64 = 1 << 32;
/// Where the fake mmap offsets of linear views of tiled objects start (far above the
/// objects' own).
const GTT_VIEW_OFFSETS: u64 = 1 << 62;

impl Kernel {
    /// A kernel driving `platform`'s GPU.
    pub fn for_platform(platform: crate::platform::Platform) -> Kernel {
        Kernel {
            platform,
            device: Device::with_platform(platform.device()),
            ..Kernel::default()
        }
    }

    /// Registers a newly opened DRM node fd.
    pub fn open_file(&mut self, fd: i32, node: Node) {
        // A registration left on this number by a close we did not see goes first.
        self.close_fd(fd);
        self.next_file += 1;
        let id = self.next_file;
        self.next_device_ctx += 1;
        let default_ctx = Ctx {
            device_id: self.next_device_ctx,
            vm: 1,
            ..Ctx::default()
        };
        let file = DrmFile {
            node,
            handles: BTreeMap::new(),
            next_handle: 1,
            contexts: BTreeMap::from([(0, default_ctx)]),
            next_ctx: 1,
            syncobjs: BTreeMap::new(),
            next_syncobj: 1,
            fd_count: 1,
            vms: BTreeMap::from([(1, BTreeMap::new())]),
            next_vm: 1,
            vm_handles: BTreeMap::new(),
            next_vm_handle: 0,
            client: crate::ban::ClientScore::new(std::time::Instant::now()),
        };
        self.files.insert(id, file);
        self.fds.insert(fd, id);
        self.fd_ids.insert(fd, fd_identity(fd));
        // drm_master_open: the first file of the primary node while no file is master.
        if node == Node::Primary && self.kms.master.is_none() {
            self.kms.master = Some(id);
        }
    }

    /// fd `new` now refers to whatever `old` refers to (dup, dup2, dup3, fcntl F_DUPFD):
    /// a registration `new` had is gone (dup2 closed it, or it was stale), and `new`
    /// becomes a DRM fd if `old` is one.
    pub fn dup_fd(&mut self, old: i32, new: i32) {
        if old == new {
            return;
        }
        self.close_fd(new);
        if let Some(id) = self.live(old) {
            self.fds.insert(new, id);
            self.fd_ids.insert(new, fd_identity(new));
            if let Some(f) = self.files.get_mut(&id) {
                f.fd_count += 1;
            }
        }
    }

    /// Whether `fd` is one of ours (see [`Kernel::live`]).
    pub fn is_drm_fd(&mut self, fd: i32) -> bool {
        self.live(fd).is_some()
    }

    /// The file behind `fd`, if `fd` is registered and still the fd that was registered.
    ///
    /// An fd can stop being ours without our close hook seeing it: glibc's fclose and
    /// closefrom close without going through `close`, and close_range or dup2 onto it
    /// from a library that calls the system call directly. So every use compares the
    /// fd's identity (st_dev, st_ino) with the one recorded at registration; a mismatch
    /// (or a closed fd) drops the stale registration, releasing the file if it was the
    /// last, and the fd is treated as not ours.
    pub fn live(&mut self, fd: i32) -> Option<u64> {
        let id = *self.fds.get(&fd)?;
        let was = self.fd_ids.get(&fd).copied().flatten();
        if fd_identity(fd) == was {
            return Some(id);
        }
        self.close_fd(fd);
        None
    }

    /// Forgets every registered fd in `first..=last` (close_range).
    pub fn close_range(&mut self, first: u32, last: u32) {
        let gone: Vec<i32> = self
            .fds
            .keys()
            .copied()
            .filter(|fd| (first..=last).contains(&(*fd as u32)))
            .collect();
        for fd in gone {
            self.close_fd(fd);
        }
    }

    /// An fd was closed; the last close releases the file's objects and contexts.
    pub fn close_fd(&mut self, fd: i32) {
        self.fd_ids.remove(&fd);
        let Some(id) = self.fds.remove(&fd) else {
            return;
        };
        let last = match self.files.get_mut(&id) {
            Some(f) => {
                f.fd_count -= 1;
                f.fd_count == 0
            }
            None => false,
        };
        if last && let Some(f) = self.files.remove(&id) {
            self.kms_file_closed(id);
            for bo in f.handles.values() {
                self.unref_bo(*bo);
            }
            for c in f.contexts.values() {
                self.discard_context(c);
            }
        }
    }

    pub(crate) fn unref_bo(&mut self, id: u64) {
        let gone = match self.bos.get_mut(&id) {
            Some(bo) => {
                bo.refs -= 1;
                bo.refs == 0
            }
            None => false,
        };
        if gone {
            if let Some(bo) = self.bos.remove(&id)
                && let Some(a) = bo.gpu
            {
                self.bound.remove(&a);
                self.gtt.free(a, bo.size);
            }
            for f in self.files.values_mut() {
                for vm in f.vms.values_mut() {
                    vm.retain(|_, b| *b != id);
                }
            }
            self.mmap_offsets.retain(|_, b| *b != id);
            self.drop_gtt_view(id);
        }
    }

    /// Forgets object `id`'s linear view: the object is gone or its tiling changed
    /// (a mapping the client still holds keeps its pages, no longer kept coherent).
    fn drop_gtt_view(&mut self, id: u64) {
        if let (Some(mut view), Some(bo)) = (self.gtt_views.remove(&id), self.bos.get(&id)) {
            // What the CPU wrote through the map went through the fence on hardware:
            // it reaches the object before the tiling changes.
            if view.retile(bo).is_err() {
                crate::log(
                    "GEM_SET_TILING: the GTT map's last writes could not be kept (no memory)",
                );
            }
        }
        self.gtt_view_offsets.retain(|_, b| *b != id);
    }

    /// The file behind a registered fd. The fd's identity is checked once per ioctl, at
    /// the entry ([`Kernel::ioctl`]), not on every lookup.
    pub(crate) fn file(&mut self, fd: i32) -> Result<&mut DrmFile, Errno> {
        let id = *self.fds.get(&fd).ok_or(Errno::EBADF)?;
        self.files.get_mut(&id).ok_or(Errno::EBADF)
    }

    /// The object id behind a handle of `fd`'s file.
    pub fn bo_id(&mut self, fd: i32, handle: u32) -> Result<u64, Errno> {
        self.file(fd)?
            .handles
            .get(&handle)
            .copied()
            .ok_or(Errno::ENOENT)
    }

    fn bo(&mut self, fd: i32, handle: u32) -> Result<&mut Bo, Errno> {
        let id = self.bo_id(fd, handle)?;
        self.bos.get_mut(&id).ok_or(Errno::ENOENT)
    }

    pub(crate) fn add_handle(&mut self, fd: i32, bo: u64) -> Result<u32, Errno> {
        let f = self.file(fd)?;
        let h = f.next_handle;
        f.next_handle += 1;
        f.handles.insert(h, bo);
        Ok(h)
    }

    /// The size of the object whose dma-buf `fd` is, if it is one of ours.
    pub fn dma_buf_size(&self, fd: i32) -> Option<u64> {
        let ident = fd_identity(fd)?;
        self.bos
            .values()
            .find(|bo| bo.identity() == Some(ident))
            .map(|bo| bo.size)
    }

    /// The object and position a fake mmap offset refers to.
    pub fn mmap_target(&self, offset: u64) -> Option<(&Bo, u64)> {
        if offset >= GTT_VIEW_OFFSETS {
            let (&base, &id) = self.gtt_view_offsets.range(..=offset).next_back()?;
            let view = &self.gtt_views.get(&id)?.shadow;
            let within = offset - base;
            return (within < view.size).then_some((view, within));
        }
        let (&base, &id) = self.mmap_offsets.range(..=offset).next_back()?;
        let bo = self.bos.get(&id)?;
        let within = offset - base;
        (within < bo.size).then_some((bo, within))
    }

    /// Handles one ioctl on a DRM fd. `arg` is the client's argument pointer.
    ///
    /// As the kernel's `drm_ioctl()` (drivers/gpu/drm/drm_ioctl.c): a request of another
    /// ioctl family is ENOTTY; the argument is copied in and out by the kernel's own
    /// declaration of the command and the caller's encoding ([`user::Args`]); a failed
    /// copy-out is EFAULT whatever the handler answered. Commands this emulation does not
    /// answer are ENOTTY (and logged by the hook).
    pub fn ioctl(&mut self, fd: i32, req: u64, arg: u64) -> Result<(), Errno> {
        // ioctl(2) takes a 32-bit command (fs/ioctl.c: `unsigned int cmd`).
        let req = req & 0xffff_ffff;
        self.live(fd).ok_or(Errno::EBADF)?;
        if ty(req) != DRM_IOCTL_BASE {
            return Err(Errno::ENOTTY);
        }
        let n = nr(req);
        let d = decl(n).ok_or(Errno::ENOTTY)?;
        let mut a = user::Args::copy_in(req, arg, d)?;
        let r = if (DRM_COMMAND_BASE..DRM_COMMAND_END).contains(&n) {
            self.i915_ioctl(fd, n - DRM_COMMAND_BASE, &mut a)
        } else {
            self.core_ioctl(fd, n, &mut a)
        };
        a.copy_out().and(r)
    }

    /// I915_GEM_USERPTR: an object over the client's own memory, checked in the order of
    /// i915_gem_userptr_ioctl (drivers/gpu/drm/i915/gem/i915_gem_userptr.c, Linux 6.1):
    /// unknown flags EINVAL; a size past what an object may have E2BIG (here the 2 GiB the
    /// address space binds, as GEM_CREATE); a zero size or an address or size off a page
    /// EINVAL; a range past the user address space EFAULT; UNSYNCHRONIZED ENODEV (no
    /// longer supported); READ_ONLY ENODEV where the address space has no read-only pages
    /// (Gen7's aliasing PPGTT; Gen8+ full PPGTT has them); with PROBE, a range not wholly
    /// mapped EFAULT. The object's pages are the client's (`Bo::userptr`).
    fn userptr(&mut self, fd: i32, a: &mut user::Args) -> Result<(), Errno> {
        let mut u: I915GemUserptr = a.get();
        let known = I915_USERPTR_READ_ONLY | I915_USERPTR_PROBE | I915_USERPTR_UNSYNCHRONIZED;
        if u.flags & !known != 0 {
            return Err(Errno::EINVAL);
        }
        if u.user_size > 1 << 31 {
            return Err(Errno::E2BIG);
        }
        if u.user_size == 0 || !(u.user_ptr | u.user_size).is_multiple_of(crate::bo::PAGE) {
            return Err(Errno::EINVAL);
        }
        if !user::access_ok(u.user_ptr, u.user_size) {
            return Err(Errno::EFAULT);
        }
        if u.flags & I915_USERPTR_UNSYNCHRONIZED != 0 {
            return Err(Errno::ENODEV);
        }
        let read_only = u.flags & I915_USERPTR_READ_ONLY != 0;
        if read_only && !self.platform.softpin() {
            return Err(Errno::ENODEV);
        }
        if u.flags & I915_USERPTR_PROBE != 0 {
            // Every page readable (probe_range: each page under a VMA that is not PFNMAP).
            let mut byte = [0u8; 1];
            let mut at = u.user_ptr;
            while at < u.user_ptr + u.user_size {
                user::read_bytes(at, &mut byte).map_err(|_| Errno::EFAULT)?;
                at += crate::bo::PAGE;
            }
        }
        let bo = Bo::userptr(u.user_ptr, u.user_size, read_only);
        self.next_bo += 1;
        let id = self.next_bo;
        self.bos.insert(id, bo);
        u.handle = self.add_handle(fd, id)?;
        a.put(&u)
    }

    fn core_ioctl(&mut self, fd: i32, n: u32, a: &mut user::Args) -> Result<(), Errno> {
        match n {
            DRM_VERSION => self.version(a),
            DRM_GET_CAP => {
                let mut c: DrmGetCap = a.get();
                // drm_getcap (drm_ioctl.c, Linux 6.1) with i915's display values.
                c.value = match c.capability {
                    DRM_CAP_PRIME => 3,
                    DRM_CAP_SYNCOBJ => 1,
                    // Timeline syncobjs are served (`crate::syncobj`).
                    DRM_CAP_SYNCOBJ_TIMELINE => 1,
                    DRM_CAP_DUMB_BUFFER => 1,
                    DRM_CAP_VBLANK_HIGH_CRTC => 1,
                    DRM_CAP_DUMB_PREFERRED_DEPTH => 24,
                    DRM_CAP_DUMB_PREFER_SHADOW => 1,
                    DRM_CAP_TIMESTAMP_MONOTONIC => 1,
                    // i915's async flips (display version 5 on; `crate::kms`'s
                    // legacy.rs: X-tiled framebuffers).
                    DRM_CAP_ASYNC_PAGE_FLIP => 1,
                    DRM_CAP_CURSOR_WIDTH | DRM_CAP_CURSOR_HEIGHT => 256,
                    DRM_CAP_ADDFB2_MODIFIERS => 1,
                    DRM_CAP_PAGE_FLIP_TARGET => 0,
                    DRM_CAP_CRTC_IN_VBLANK_EVENT => 1,
                    _ => return Err(Errno::EINVAL),
                };
                a.put(&c)
            }
            DRM_SET_CLIENT_CAP => {
                // drm_setclientcap (`crate::kms`).
                let c: DrmGetCap = a.get();
                self.set_client_cap(fd, c.capability, c.value)
            }
            DRM_SET_MASTER | DRM_DROP_MASTER => {
                // drm_setmaster_ioctl / drm_dropmaster_ioctl: the master is one file of
                // card0 (the render node has none: not DRM_RENDER_ALLOW, EACCES).
                let id = *self.fds.get(&fd).ok_or(Errno::EBADF)?;
                if self.file(fd)?.node == Node::Render {
                    return Err(Errno::EACCES);
                }
                match (n, self.kms.master) {
                    (DRM_SET_MASTER, Some(m)) if m == id => Ok(()),
                    (DRM_SET_MASTER, Some(_)) => Err(Errno::EBUSY),
                    (DRM_SET_MASTER, None) => {
                        self.kms.master = Some(id);
                        Ok(())
                    }
                    (_, Some(m)) if m == id => {
                        self.kms.master = None;
                        Ok(())
                    }
                    _ => Err(Errno::EINVAL),
                }
            }
            n if Kernel::is_kms(n) => self.kms_ioctl(fd, n, a),
            DRM_GEM_CLOSE => {
                let c: DrmGemClose = a.get();
                let id = self
                    .file(fd)?
                    .handles
                    .remove(&c.handle)
                    .ok_or(Errno::EINVAL)?;
                self.unref_bo(id);
                Ok(())
            }
            DRM_PRIME_HANDLE_TO_FD => {
                let mut p: DrmPrimeHandle = a.get();
                // drm_prime_handle_to_fd_ioctl (drivers/gpu/drm/drm_prime.c): flags other
                // than DRM_CLOEXEC | DRM_RDWR are EINVAL.
                if p.flags & !((libc::O_CLOEXEC | libc::O_RDWR) as u32) != 0 {
                    return Err(Errno::EINVAL);
                }
                let bo = self.bo(fd, p.handle)?;
                // The dma-buf is a duplicate of the object's memfd, sealed against resizing
                // (see `Bo::new`), so the client cannot pull the pages from under us.
                let cmd = if p.flags & libc::O_CLOEXEC as u32 != 0 {
                    libc::F_DUPFD_CLOEXEC
                } else {
                    libc::F_DUPFD
                };
                // A userptr object cannot be exported (i915_gem_prime_export: its
                // dma-buf ops refuse userptr objects).
                if bo.is_userptr() {
                    return Err(Errno::EINVAL);
                }
                let memfd = bo.memfd().ok_or(Errno::ENOMEM)?;
                // SAFETY: duplicating an fd we own (checked by `Bo::memfd`); the result is
                // checked.
                let nfd = unsafe { libc::fcntl(memfd, cmd, 0) };
                if nfd < 0 {
                    return Err(Errno::ENOMEM);
                }
                p.fd = nfd;
                a.put(&p)
            }
            DRM_PRIME_FD_TO_HANDLE => {
                let mut p: DrmPrimeHandle = a.get();
                // A dma-buf whose object lost its last handle is still that object's
                // memory (Linux keeps the object while the dma-buf lives): an object
                // over it again.
                let id = match self.bo_by_fd(p.fd) {
                    Ok(id) => id,
                    Err(Errno::EINVAL) => {
                        let bo = crate::bo::Bo::from_dmabuf(p.fd)?;
                        self.next_bo += 1;
                        let id = self.next_bo;
                        self.bos.insert(id, bo);
                        p.handle = match self.add_handle(fd, id) {
                            Ok(h) => h,
                            Err(e) => {
                                self.bos.remove(&id);
                                return Err(e);
                            }
                        };
                        return a.put(&p);
                    }
                    Err(e) => return Err(e),
                };
                if let Some((&h, _)) = self.file(fd)?.handles.iter().find(|(_, b)| **b == id) {
                    p.handle = h;
                } else {
                    self.bos.get_mut(&id).ok_or(Errno::ENOENT)?.refs += 1;
                    p.handle = self.add_handle(fd, id)?;
                }
                a.put(&p)
            }
            DRM_SYNCOBJ_CREATE..=DRM_SYNCOBJ_SIGNAL
            | DRM_SYNCOBJ_TIMELINE_WAIT
            | DRM_SYNCOBJ_QUERY
            | DRM_SYNCOBJ_TRANSFER
            | DRM_SYNCOBJ_TIMELINE_SIGNAL => self.syncobj_ioctl(fd, n, a),
            _ => Err(Errno::ENOTTY),
        }
    }

    /// The object a dma-buf fd belongs to: EBADF for an fd that is not open, EINVAL for
    /// one that is not one of our dma-bufs (dma_buf_get, drivers/dma-buf/dma-buf.c).
    fn bo_by_fd(&self, fd: i32) -> Result<u64, Errno> {
        let ident = fd_identity(fd).ok_or(Errno::EBADF)?;
        self.bos
            .iter()
            .find(|(_, bo)| bo.identity() == Some(ident))
            .map(|(id, _)| *id)
            .ok_or(Errno::EINVAL)
    }

    fn version(&mut self, a: &mut user::Args) -> Result<(), Errno> {
        let mut v: DrmVersion = a.get();
        v.version_major = 1;
        v.version_minor = 6;
        v.version_patchlevel = 0;
        let put = |buf: *mut u8, len: usize, s: &str| -> Result<usize, Errno> {
            if !buf.is_null() && len > 0 {
                user::write_bytes(buf as u64, &s.as_bytes()[..s.len().min(len)])?;
            }
            Ok(s.len())
        };
        v.name_len = put(v.name, v.name_len, "i915")?;
        v.date_len = put(v.date, v.date_len, "20201103")?;
        v.desc_len = put(v.desc, v.desc_len, "Intel Graphics")?;
        a.put(&v)
    }

    /// GETPARAM answers as an Ivy Bridge GT2 under a 6.1 kernel (Debian 12) would.
    pub fn getparam(param: i32) -> Result<i32, Errno> {
        Ok(match param {
            I915_PARAM_CHIPSET_ID => 0x0162,
            I915_PARAM_REVISION => 9,
            I915_PARAM_HAS_GEM
            | I915_PARAM_HAS_EXECBUF2
            | I915_PARAM_HAS_BSD
            | I915_PARAM_HAS_BLT
            | I915_PARAM_HAS_RELAXED_FENCING
            | I915_PARAM_HAS_COHERENT_RINGS => 1,
            I915_PARAM_HAS_EXEC_CONSTANTS
            | I915_PARAM_HAS_RELAXED_DELTA
            | I915_PARAM_HAS_GEN7_SOL_RESET
            | I915_PARAM_HAS_LLC
            | I915_PARAM_HAS_WAIT_TIMEOUT => 1,
            // HAS_SECURE_BATCHES is GRAPHICS_VER < 6 (i915_drv.h): 0 on Gen7.
            I915_PARAM_HAS_SECURE_BATCHES => 0,
            I915_PARAM_HAS_PRIME_VMAP_FLUSH
            | I915_PARAM_HAS_PINNED_BATCHES
            | I915_PARAM_HAS_EXEC_NO_RELOC
            | I915_PARAM_HAS_EXEC_HANDLE_LUT => 1,
            I915_PARAM_HAS_WT
            | I915_PARAM_HAS_COHERENT_PHYS_GTT
            | I915_PARAM_HAS_GPU_RESET
            | I915_PARAM_HAS_EXEC_ASYNC
            | I915_PARAM_HAS_EXEC_FENCE => 1,
            I915_PARAM_HAS_EXEC_CAPTURE
            | I915_PARAM_HAS_EXEC_BATCH_FIRST
            | I915_PARAM_HAS_EXEC_FENCE_ARRAY
            | I915_PARAM_HAS_EXEC_SUBMIT_FENCE => 1,
            I915_PARAM_HAS_OVERLAY
            | I915_PARAM_HAS_PAGEFLIPPING
            | I915_PARAM_HAS_SEMAPHORES
            | I915_PARAM_HAS_VEBOX
            | I915_PARAM_HAS_BSD2 => 0,
            I915_PARAM_HAS_RESOURCE_STREAMER
            | I915_PARAM_HAS_EXEC_SOFTPIN
            | I915_PARAM_HAS_POOLED_EU
            | I915_PARAM_MIN_EU_IN_POOL
            | I915_PARAM_HUC_STATUS => 0,
            I915_PARAM_HAS_CONTEXT_ISOLATION | I915_PARAM_MMAP_GTT_COHERENT => 0,
            // The execbuffer timeline-fences extension is served (`execbuffer`).
            I915_PARAM_HAS_EXEC_TIMELINE_FENCES => 1,
            // I915_GEM_USERPTR's I915_USERPTR_PROBE is served (`userptr`).
            I915_PARAM_HAS_USERPTR_PROBE => 1,
            I915_PARAM_HAS_SCHEDULER => 0,
            I915_PARAM_NUM_FENCES_AVAIL => 32,
            // Aliasing PPGTT, as i915 reports for Gen7.
            I915_PARAM_HAS_ALIASING_PPGTT => 1,
            // The command parser that lets user space write SO and other registers.
            I915_PARAM_CMD_PARSER_VERSION => 10,
            I915_PARAM_MMAP_VERSION => 4,
            // MMAP_OFFSET is available.
            I915_PARAM_MMAP_GTT_VERSION => 4,
            // 12.5 MHz command-streamer timestamp on Ivy Bridge.
            I915_PARAM_CS_TIMESTAMP_FREQUENCY => 12_500_000,
            // Topology queries are Gen8+.
            I915_PARAM_SUBSLICE_TOTAL
            | I915_PARAM_EU_TOTAL
            | I915_PARAM_SLICE_MASK
            | I915_PARAM_SUBSLICE_MASK => return Err(Errno::ENODEV),
            I915_PARAM_PERF_REVISION => return Err(Errno::EINVAL),
            _ => return Err(Errno::EINVAL),
        })
    }

    /// A new shmem-backed object of at least `size` bytes and its handle on `fd`, as
    /// GEM_CREATE and GEM_CREATE_EXT make it: (its size, rounded up to a page; the
    /// handle).
    pub(crate) fn create_object(&mut self, fd: i32, size: u64) -> Result<(u64, u32), Errno> {
        let bo = Bo::new(size)?;
        let size = bo.size;
        self.next_bo += 1;
        let id = self.next_bo;
        self.bos.insert(id, bo);
        Ok((size, self.add_handle(fd, id)?))
    }

    fn i915_ioctl(&mut self, fd: i32, n: u32, a: &mut user::Args) -> Result<(), Errno> {
        match n {
            I915_GETPARAM => {
                let g: I915Getparam = a.get();
                let v = self.platform.getparam(g.param)?;
                user::write(g.value as u64, &v)
            }
            I915_GEM_CREATE => {
                let mut c: I915GemCreate = a.get();
                (c.size, c.handle) = self.create_object(fd, c.size)?;
                a.put(&c)
            }
            I915_GEM_CREATE_EXT => {
                // i915_gem_create_ext_ioctl (gem/i915_gem_create.c, Linux 6.1): flags
                // other than NEEDS_CPU_ACCESS are EINVAL; then the extension chain; with
                // no placement named, system memory; NEEDS_CPU_ACCESS wants a list of
                // more than one region including system memory, which an integrated
                // part (one region) cannot give: EINVAL. Then the object as GEM_CREATE
                // makes it, its size rounded up to a page.
                let mut c: I915GemCreateExt = a.get();
                if c.flags & !I915_GEM_CREATE_EXT_FLAG_NEEDS_CPU_ACCESS != 0 {
                    return Err(Errno::EINVAL);
                }
                let placements = create_ext_extensions(c.extensions)?;
                if c.flags & I915_GEM_CREATE_EXT_FLAG_NEEDS_CPU_ACCESS != 0 && placements <= 1 {
                    return Err(Errno::EINVAL);
                }
                (c.size, c.handle) = self.create_object(fd, c.size)?;
                a.put(&c)
            }
            I915_GEM_PREAD | I915_GEM_PWRITE => {
                // i915_gem_pread_ioctl / i915_gem_pwrite_ioctl (drivers/gpu/drm/i915/
                // i915_gem.c, Linux 6.1), in their order: an empty copy succeeds at once;
                // a range outside the user address space is EFAULT; then the handle
                // (ENOENT), then the object's bounds (EINVAL); only then is anything
                // copied, straight between the client and the object.
                let p: I915GemPread = a.get();
                if p.size == 0 {
                    return Ok(());
                }
                if !user::access_ok(p.data_ptr, p.size) {
                    return Err(Errno::EFAULT);
                }
                let bo = self.bo(fd, p.handle)?;
                if n == I915_GEM_PREAD {
                    bo.read_to_user(p.offset, p.data_ptr, p.size)
                } else {
                    bo.write_from_user(p.offset, p.data_ptr, p.size)
                }
            }
            I915_GEM_MMAP => {
                // i915_gem_mmap_ioctl (drivers/gpu/drm/i915/gem/i915_gem_mman.c, 6.1):
                // flags other than I915_MMAP_WC are EINVAL, then the handle (ENOENT), then
                // the range (EINVAL); vm_mmap refuses an empty or unaligned one (EINVAL,
                // mm/mmap.c do_mmap).
                let mut m: I915GemMmap = a.get();
                if m.flags & !I915_MMAP_WC != 0 {
                    return Err(Errno::EINVAL);
                }
                let bo = self.bo(fd, m.handle)?;
                if m.offset >= bo.size
                    || m.size > bo.size - m.offset
                    || m.size == 0
                    || !m.offset.is_multiple_of(crate::bo::PAGE)
                {
                    return Err(Errno::EINVAL);
                }
                // A userptr object has no shmem file to map: ENXIO (i915_gem_mmap_ioctl's
                // `!obj->base.filp` check).
                if bo.is_userptr() {
                    return Err(Errno::ENXIO);
                }
                let memfd = bo.memfd().ok_or(Errno::ENOMEM)?;
                // SAFETY: mapping our own memfd at a kernel-chosen address; checked below.
                let p = unsafe {
                    crate::hooks::real_mmap(
                        std::ptr::null_mut(),
                        m.size as usize,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_SHARED,
                        memfd,
                        m.offset as libc::off_t,
                    )
                };
                if p == libc::MAP_FAILED {
                    return Err(Errno::ENOMEM);
                }
                m.addr_ptr = p as u64;
                a.put(&m)
            }
            I915_GEM_MMAP_GTT => {
                // MMAP_GTT (16 bytes) and MMAP_OFFSET (32 bytes) share the number; the
                // kernel's table holds MMAP_OFFSET, so a 16-byte MMAP_GTT reads as an
                // MMAP_OFFSET with flags zero-extended: I915_MMAP_OFFSET_GTT.
                let mut m: I915GemMmapOffset = a.get();
                if m.flags > I915_MMAP_OFFSET_UC {
                    return Err(Errno::EINVAL);
                }
                let id = self.bo_id(fd, m.handle)?;
                // A userptr object is I915_GEM_OBJECT_NO_MMAP: __assign_mmap_offset
                // answers ENODEV (gem/i915_gem_mman.c, 6.1).
                if self.bos[&id].is_userptr() {
                    return Err(Errno::ENODEV);
                }
                m.offset = if m.flags == I915_MMAP_OFFSET_GTT {
                    self.gtt_map_offset(id)?
                } else {
                    self.mmap_offset(id)
                };
                a.put(&m)
            }
            I915_GEM_SET_DOMAIN => {
                // i915_gem_set_domain_ioctl (gem/i915_gem_domain.c, 6.1): GPU domains or a
                // write domain other than the read domains are EINVAL; no read domain is
                // a no-op before the handle is looked up.
                let d: I915GemSetDomain = a.get();
                if (d.read_domains | d.write_domain) & I915_GEM_GPU_DOMAINS != 0
                    || (d.write_domain != 0 && d.read_domains != d.write_domain)
                {
                    return Err(Errno::EINVAL);
                }
                if d.read_domains == 0 {
                    return Ok(());
                }
                self.bo_id(fd, d.handle).map(|_| ())
            }
            I915_GEM_SW_FINISH => {
                let handle: u32 = a.get();
                self.bo_id(fd, handle).map(|_| ())
            }
            I915_GEM_THROTTLE => Ok(()),
            I915_GEM_SET_TILING => {
                let mut t: I915GemSetTiling = a.get();
                if t.tiling_mode > I915_TILING_Y {
                    return Err(Errno::EINVAL);
                }
                let stride = if t.tiling_mode == I915_TILING_NONE {
                    0
                } else {
                    t.stride
                };
                let id = self.bo_id(fd, t.handle)?;
                // A framebuffer's object keeps its tiling: EBUSY (i915_gem_object_set_
                // tiling's i915_gem_object_is_framebuffer check).
                if self.kms.fbs.values().any(|f| f.bo == id) {
                    return Err(Errno::EBUSY);
                }
                let bo = self.bo(fd, t.handle)?;
                // A proxy (userptr) object's tiling is not the client's to change:
                // ENXIO (i915_gem_set_tiling_ioctl, gem/i915_gem_tiling.c, 6.1).
                if bo.is_userptr() {
                    return Err(Errno::ENXIO);
                }
                let changed = (bo.tiling, bo.stride) != (t.tiling_mode, stride);
                bo.tiling = t.tiling_mode;
                bo.stride = stride;
                if changed {
                    let id = self.bo_id(fd, t.handle)?;
                    self.drop_gtt_view(id);
                }
                t.swizzle_mode = I915_BIT_6_SWIZZLE_NONE;
                a.put(&t)
            }
            I915_GEM_GET_TILING => {
                let mut t: I915GemGetTiling = a.get();
                let bo = self.bo(fd, t.handle)?;
                t.tiling_mode = bo.tiling;
                t.swizzle_mode = I915_BIT_6_SWIZZLE_NONE;
                t.phys_swizzle_mode = I915_BIT_6_SWIZZLE_NONE;
                a.put(&t)
            }
            I915_GEM_GET_APERTURE => a.put(&I915GemGetAperture {
                aper_size: crate::bo::GTT_END,
                aper_available_size: crate::bo::GTT_END,
            }),
            I915_GEM_MADVISE => {
                // i915_gem_madvise_ioctl: only WILLNEED (0) and DONTNEED (1), before the
                // handle.
                let mut m: I915GemMadvise = a.get();
                if m.madv > 1 {
                    return Err(Errno::EINVAL);
                }
                self.bo_id(fd, m.handle)?;
                m.retained = 1;
                a.put(&m)
            }
            I915_GEM_BUSY => {
                let mut b: I915GemBusy = a.get();
                self.bo_id(fd, b.handle)?;
                b.busy = 0;
                a.put(&b)
            }
            I915_GEM_WAIT => {
                // i915_gem_wait_ioctl (gem/i915_gem_wait.c): flags must be 0, before
                // the handle.
                let w: I915GemWait = a.get();
                if w.flags != 0 {
                    return Err(Errno::EINVAL);
                }
                self.bo_id(fd, w.bo_handle)?;
                Ok(())
            }
            I915_GEM_SET_CACHING => {
                // i915_gem_set_caching_ioctl: NONE, CACHED or DISPLAY, before the handle.
                let c: I915GemCaching = a.get();
                if c.caching > 2 {
                    return Err(Errno::EINVAL);
                }
                self.bo_id(fd, c.handle).map(|_| ())
            }
            I915_GEM_GET_CACHING => {
                let mut c: I915GemCaching = a.get();
                self.bo_id(fd, c.handle)?;
                c.caching = 1; // I915_CACHING_CACHED: LLC-coherent
                a.put(&c)
            }
            I915_GEM_CONTEXT_CREATE => {
                // The kernel's table holds CONTEXT_CREATE_EXT (16 bytes); the 8-byte
                // CONTEXT_CREATE reads with flags and extensions zero-extended.
                let mut c: I915GemContextCreateExt = a.get();
                let softpin = self.platform.softpin();
                if !softpin && (c.flags != 0 || c.extensions != 0) {
                    // Context-creation extensions (engines, VMs) are Gen8+ uapi.
                    return Err(Errno::EINVAL);
                }
                // i915_gem_context_create_ioctl: USE_EXTENSIONS and SINGLE_TIMELINE only;
                // the extensions are walked only with USE_EXTENSIONS.
                if c.flags
                    & !(I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS
                        | I915_CONTEXT_CREATE_FLAGS_SINGLE_TIMELINE)
                    != 0
                {
                    return Err(Errno::EINVAL);
                }
                // client_is_banned: a client whose contexts were banned too often.
                if self.file(fd)?.client.banned() {
                    crate::log(
                        "context creation refused: the client is banned after repeated GPU hangs",
                    );
                    return Err(Errno::EIO);
                }
                self.next_device_ctx += 1;
                let mut ctx = Ctx {
                    device_id: self.next_device_ctx,
                    ..Ctx::default()
                };
                if softpin {
                    ctx.vm = self.file(fd)?.new_vm();
                    if c.flags & I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS != 0 {
                        // A failed extension leaves no context behind.
                        if let Err(e) = self.create_extensions(fd, &mut ctx, c.extensions) {
                            self.discard_context(&ctx);
                            return Err(e);
                        }
                    }
                }
                let f = self.file(fd)?;
                let id = f.next_ctx;
                f.next_ctx += 1;
                f.contexts.insert(id, ctx);
                c.ctx_id = id;
                a.put(&c)
            }
            I915_GEM_CONTEXT_DESTROY => {
                let c: I915GemContextDestroy = a.get();
                if c.ctx_id == 0 {
                    return Err(Errno::ENOENT);
                }
                let ctx = self
                    .file(fd)?
                    .contexts
                    .remove(&c.ctx_id)
                    .ok_or(Errno::ENOENT)?;
                self.discard_context(&ctx);
                Ok(())
            }
            I915_GEM_CONTEXT_GETPARAM | I915_GEM_CONTEXT_SETPARAM => {
                let mut p: I915GemContextParam = a.get();
                self.file(fd)?
                    .contexts
                    .get(&p.ctx_id)
                    .ok_or(Errno::ENOENT)?;
                if n == I915_GEM_CONTEXT_GETPARAM {
                    p.value = match p.param {
                        I915_CONTEXT_PARAM_GTT_SIZE => self.platform.gtt_size(),
                        I915_CONTEXT_PARAM_BANNABLE => {
                            u64::from(!self.file(fd)?.contexts[&p.ctx_id].hangs.unbannable)
                        }
                        I915_CONTEXT_PARAM_RECOVERABLE => {
                            u64::from(!self.file(fd)?.contexts[&p.ctx_id].hangs.unrecoverable)
                        }
                        I915_CONTEXT_PARAM_NO_ZEROMAP
                        | I915_CONTEXT_PARAM_NO_ERROR_CAPTURE
                        | I915_CONTEXT_PARAM_PRIORITY => 0,
                        // get_ppgtt (i915_gem_context.c): a new handle to the context's
                        // VM; ENODEV without full PPGTT.
                        I915_CONTEXT_PARAM_VM if self.platform.softpin() => {
                            let f = self.file(fd)?;
                            let vm = f.contexts[&p.ctx_id].vm;
                            p.size = 0;
                            f.vm_handle(vm) as u64
                        }
                        I915_CONTEXT_PARAM_VM => return Err(Errno::ENODEV),
                        _ => return Err(Errno::EINVAL),
                    };
                    a.put(&p)
                } else {
                    let ctx_id = p.ctx_id;
                    self.set_context_param(fd, ctx_id, &p)
                }
            }
            I915_REG_READ => {
                let mut r: I915RegRead = a.get();
                // Bit 0 asks for an 8-byte read (I915_REG_READ_8B_WA); only TIMESTAMP is
                // whitelisted by i915 on Gen7.
                let reg = (r.offset & !1) as u32;
                let ts = gtsim_spec::gen7::Timestamp::OFFSET;
                if reg != ts {
                    return Err(Errno::EINVAL);
                }
                r.val = self.device.clock;
                a.put(&r)
            }
            I915_GET_RESET_STATS => {
                let mut s: I915ResetStats = a.get();
                if s.flags != 0 {
                    return Err(Errno::EINVAL);
                }
                let ctx = self
                    .file(fd)?
                    .contexts
                    .get(&s.ctx_id)
                    .ok_or(Errno::ENOENT)?;
                s.batch_active = ctx.hangs.guilty;
                s.batch_pending = 0;
                s.reset_count = 0;
                a.put(&s)
            }
            I915_QUERY => {
                let q: I915Query = a.get();
                if q.flags != 0 {
                    return Err(Errno::EINVAL);
                }
                for i in 0..q.num_items as u64 {
                    let at = q.items_ptr + i * size_of::<I915QueryItem>() as u64;
                    let mut item: I915QueryItem = user::read(at)?;
                    item.length = self.query_item(&item)?;
                    user::write(at, &item)?;
                }
                Ok(())
            }
            I915_GEM_VM_CREATE if self.platform.softpin() => {
                // i915_gem_vm_create_ioctl: flags 0, no extensions modelled.
                let mut v: I915GemVmControl = a.get();
                if v.flags != 0 || v.extensions != 0 {
                    return Err(Errno::EINVAL);
                }
                let f = self.file(fd)?;
                let vm = f.new_vm();
                v.vm_id = f.vm_handle(vm);
                a.put(&v)
            }
            I915_GEM_VM_DESTROY if self.platform.softpin() => {
                // i915_gem_vm_destroy_ioctl: the handle goes; contexts using the VM keep it.
                let v: I915GemVmControl = a.get();
                if v.flags != 0 || v.extensions != 0 {
                    return Err(Errno::EINVAL);
                }
                self.file(fd)?
                    .vm_handles
                    .remove(&v.vm_id)
                    .map(|_| ())
                    .ok_or(Errno::ENOENT)
            }
            I915_GEM_VM_CREATE | I915_GEM_VM_DESTROY => Err(Errno::ENODEV),
            I915_GEM_EXECBUFFER2 => crate::execbuffer::execbuffer2(self, fd, a),
            I915_GEM_USERPTR => self.userptr(fd, a),
            _ => Err(Errno::ENOTTY),
        }
    }

    /// One DRM_I915_QUERY item (i915_query.c, Linux 6.1): its answer's length, or a
    /// negative errno in the length. A length of 0 asks for the size; a shorter buffer is
    /// -EINVAL; the item's flags must be 0. Ice Lake answers the topology and memory
    /// regions and the engines (the render engine, the one modelled); Ivy Bridge answers
    /// -ENODEV, the queries being Gen8+ uapi.
    fn query_item(&self, item: &I915QueryItem) -> Result<i32, Errno> {
        let answer = match item.query_id {
            DRM_I915_QUERY_TOPOLOGY_INFO => self.platform.topology(),
            DRM_I915_QUERY_MEMORY_REGIONS => self.platform.memory_regions(physical_ram()),
            DRM_I915_QUERY_ENGINE_INFO => self.platform.engines(),
            _ => None,
        };
        let Some(answer) = answer else {
            return Ok(if item.query_id == 0 || item.query_id > 6 {
                -libc::EINVAL
            } else {
                -libc::ENODEV
            });
        };
        if item.flags != 0 {
            return Ok(-libc::EINVAL);
        }
        let len = answer.len() as i32;
        if item.length == 0 {
            return Ok(len);
        }
        if item.length < len {
            return Ok(-libc::EINVAL);
        }
        if item.query_id == DRM_I915_QUERY_MEMORY_REGIONS {
            // The caller's header must be zero (query_memregion_info checks rsvd).
            let mut head = [0u8; 16];
            user::read_bytes(item.data_ptr, &mut head)?;
            if head.iter().any(|b| *b != 0) {
                return Ok(-libc::EINVAL);
            }
        }
        user::write_bytes(item.data_ptr, &answer)?;
        Ok(len)
    }

    /// Forgets a context and the device contexts of its engine slots.
    fn discard_context(&mut self, ctx: &Ctx) {
        self.device.destroy_context(ctx.device_id);
        for d in ctx.engines.iter().flatten().flatten() {
            self.device.destroy_context(d.ctx);
        }
    }

    /// CONTEXT_SETPARAM (i915_gem_context.c ctx_setparam, Linux 6.1) on context
    /// `ctx_id` of `fd`'s file.
    fn set_context_param(
        &mut self,
        fd: i32,
        ctx_id: u32,
        p: &I915GemContextParam,
    ) -> Result<(), Errno> {
        let mut ctx = self
            .file(fd)?
            .contexts
            .get(&ctx_id)
            .cloned()
            .ok_or(Errno::ENOENT)?;
        let r = self.apply_param(fd, &mut ctx, p);
        if let Some(c) = self.file(fd)?.contexts.get_mut(&ctx_id) {
            *c = ctx;
        }
        r
    }

    /// One context parameter, for SETPARAM and for a CONTEXT_CREATE_EXT extension.
    fn apply_param(
        &mut self,
        fd: i32,
        ctx: &mut Ctx,
        p: &I915GemContextParam,
    ) -> Result<(), Errno> {
        let softpin = self.platform.softpin();
        match p.param {
            // set_proto_ctx_param: size must be 0; clearing BANNABLE needs CAP_SYS_ADMIN,
            // which the emulation's clients are taken not to have (as CAP_SYS_NICE for
            // raised priorities).
            I915_CONTEXT_PARAM_BANNABLE | I915_CONTEXT_PARAM_RECOVERABLE if p.size != 0 => {
                Err(Errno::EINVAL)
            }
            I915_CONTEXT_PARAM_BANNABLE if p.value == 0 => Err(Errno::EPERM),
            I915_CONTEXT_PARAM_BANNABLE => {
                ctx.hangs.unbannable = false;
                Ok(())
            }
            I915_CONTEXT_PARAM_RECOVERABLE => {
                ctx.hangs.unrecoverable = p.value == 0;
                Ok(())
            }
            I915_CONTEXT_PARAM_NO_ZEROMAP | I915_CONTEXT_PARAM_NO_ERROR_CAPTURE => Ok(()),
            // Priorities need the scheduler, which Gen7 does not have; with it, raising
            // one's priority needs CAP_SYS_NICE (EPERM) and the range is -1023..=1023.
            I915_CONTEXT_PARAM_PRIORITY if !softpin => Err(Errno::ENODEV),
            I915_CONTEXT_PARAM_PRIORITY => match p.value as i64 {
                -1023..=0 => Ok(()),
                1..=1023 => Err(Errno::EPERM),
                _ => Err(Errno::EINVAL),
            },
            // set_ppgtt / set_proto_ctx_vm: size 0, a VM handle of this file (ENOENT
            // otherwise), only before the context's first use (EINVAL after).
            I915_CONTEXT_PARAM_VM if softpin => {
                if p.size != 0 {
                    return Err(Errno::EINVAL);
                }
                if ctx.used {
                    return Err(Errno::EINVAL);
                }
                let vm = *self
                    .file(fd)?
                    .vm_handles
                    .get(&(p.value as u32))
                    .filter(|_| p.value <= u32::MAX as u64)
                    .ok_or(Errno::ENOENT)?;
                ctx.vm = vm;
                Ok(())
            }
            I915_CONTEXT_PARAM_ENGINES if softpin => self.set_engines(ctx, p),
            I915_CONTEXT_PARAM_VM | I915_CONTEXT_PARAM_ENGINES => Err(Errno::ENODEV),
            // No protected content (PXP) on Ice Lake.
            I915_CONTEXT_PARAM_PROTECTED_CONTENT => Err(Errno::ENODEV),
            _ => Err(Errno::EINVAL),
        }
    }

    /// I915_CONTEXT_PARAM_ENGINES (set_proto_ctx_engines, Linux 6.1): `{u64 extensions;
    /// {u16 class, u16 instance} engines[]}`, size 8 + 4n, n <= 64 (EINVAL otherwise);
    /// each engine is one the engine query lists ([`Self::engine`]) or the invalid
    /// placeholder (0xffff, 0xffff); another is EINVAL. The extension chain may fill a
    /// placeholder with I915_CONTEXT_ENGINES_EXT_LOAD_BALANCE
    /// ([`Self::engines_load_balance`]); bonds and parallel submission are refused with
    /// EINVAL. Size 0 returns to the legacy rings. Only before the context's first use.
    fn set_engines(&mut self, ctx: &mut Ctx, p: &I915GemContextParam) -> Result<(), Errno> {
        if ctx.used {
            return Err(Errno::EINVAL);
        }
        if p.size == 0 {
            ctx.engines = None;
            return Ok(());
        }
        let size = p.size as usize;
        if size < 8 || !(size - 8).is_multiple_of(4) || (size - 8) / 4 > 64 {
            return Err(Errno::EINVAL);
        }
        let mut buf = vec![0u8; size];
        user::read_bytes(p.value, &mut buf)?;
        let mut rings: Vec<Option<gtsim_gpu::device::Ring>> = vec![];
        for e in buf[8..].chunks_exact(4) {
            let class = u16::from_le_bytes([e[0], e[1]]);
            let instance = u16::from_le_bytes([e[2], e[3]]);
            rings.push(match (class, instance) {
                (I915_ENGINE_CLASS_INVALID, I915_ENGINE_CLASS_INVALID_NONE) => None,
                _ => Some(self.engine(class, instance).ok_or(Errno::EINVAL)?),
            });
        }
        let first = u64::from_le_bytes(buf[..8].try_into().unwrap_or_default());
        user::extension_chain(first, |at, name| match name {
            I915_CONTEXT_ENGINES_EXT_LOAD_BALANCE => self.engines_load_balance(at, &mut rings),
            _ => {
                crate::log(
                    "context engine-map bonds and parallel submission are not modelled: refused with EINVAL",
                );
                Err(Errno::EINVAL)
            }
        })?;
        let slots: Vec<Option<EngineSlot>> = rings
            .into_iter()
            .map(|r| {
                r.map(|ring| {
                    self.next_device_ctx += 1;
                    EngineSlot {
                        ctx: self.next_device_ctx,
                        ring,
                    }
                })
            })
            .collect();
        for d in ctx.engines.iter().flatten().flatten() {
            self.device.destroy_context(d.ctx);
        }
        ctx.engines = Some(slots);
        Ok(())
    }

    /// The ring of the engine `(class, instance)` if the engine query lists it: rcs0, and
    /// on Ice Lake vecs0 (Linux i915_drm.h I915_ENGINE_CLASS_RENDER 0,
    /// I915_ENGINE_CLASS_VIDEO_ENHANCE 3).
    fn engine(&self, class: u16, instance: u16) -> Option<gtsim_gpu::device::Ring> {
        match (class, instance) {
            (I915_ENGINE_CLASS_RENDER, 0) => Some(gtsim_gpu::device::Ring::Render),
            (I915_ENGINE_CLASS_VIDEO_ENHANCE, 0) if self.platform.softpin() => {
                Some(gtsim_gpu::device::Ring::VideoEnhance)
            }
            _ => None,
        }
    }

    /// I915_CONTEXT_ENGINES_EXT_LOAD_BALANCE at `at` (set_proto_ctx_engines_balance,
    /// Linux 6.1): `{i915_user_extension base; u16 engine_index; u16 num_siblings; u32
    /// flags; u64 mbz64; {u16 class, u16 instance} engines[num_siblings]}`. The slot must
    /// exist (EINVAL) and be the invalid placeholder (EEXIST); flags and mbz64 must be 0
    /// (EINVAL); no siblings leaves the slot invalid; every sibling must be an engine the
    /// query lists (EINVAL). One sibling makes the slot that engine; several make a
    /// virtual engine over them, which here, with one engine of each class, would name
    /// an engine twice and is refused with EINVAL.
    fn engines_load_balance(
        &self,
        at: u64,
        rings: &mut [Option<gtsim_gpu::device::Ring>],
    ) -> Result<(), Errno> {
        let mut head = [0u8; 16];
        user::read_bytes(at + 16 + 16, &mut head)?;
        let index = u16::from_le_bytes([head[0], head[1]]) as usize;
        let siblings = u16::from_le_bytes([head[2], head[3]]) as usize;
        let flags = u32::from_le_bytes(head[4..8].try_into().unwrap_or_default());
        let mbz = u64::from_le_bytes(head[8..16].try_into().unwrap_or_default());
        let slot = rings.get_mut(index).ok_or(Errno::EINVAL)?;
        if slot.is_some() {
            return Err(Errno::EEXIST);
        }
        if flags != 0 || mbz != 0 {
            return Err(Errno::EINVAL);
        }
        if siblings == 0 {
            return Ok(());
        }
        if siblings > 64 {
            return Err(Errno::EINVAL);
        }
        let mut list = vec![0u8; 4 * siblings];
        user::read_bytes(at + 48, &mut list)?;
        let mut found = vec![];
        for e in list.chunks_exact(4) {
            let class = u16::from_le_bytes([e[0], e[1]]);
            let instance = u16::from_le_bytes([e[2], e[3]]);
            found.push(self.engine(class, instance).ok_or(Errno::EINVAL)?);
        }
        match found.as_slice() {
            [one] => *slot = Some(*one),
            _ => {
                crate::log(
                    "a load-balanced engine over several siblings: the model has one engine of each class; refused with EINVAL",
                );
                return Err(Errno::EINVAL);
            }
        }
        Ok(())
    }

    /// CONTEXT_CREATE_EXT's extension chain (i915_user_extensions): at most 512 links,
    /// each `{u64 next; u32 name; u32 flags = 0; u32 rsvd[4] = 0}`; name 0 (SETPARAM)
    /// carries a `drm_i915_gem_context_param` whose ctx_id must be 0; CLONE (1) and
    /// unknown names are EINVAL on Linux 6.1.
    fn create_extensions(&mut self, fd: i32, ctx: &mut Ctx, first: u64) -> Result<(), Errno> {
        user::extension_chain(first, |at, name| match name {
            I915_CONTEXT_CREATE_EXT_SETPARAM => {
                let p: I915GemContextParam =
                    user::read(at + size_of::<I915UserExtension>() as u64)?;
                if p.ctx_id != 0 {
                    return Err(Errno::EINVAL);
                }
                self.apply_param(fd, ctx, &p)
            }
            _ => Err(Errno::EINVAL),
        })
    }

    /// The mmap offset of a GTT map of object `id`: a linear object's own pages, or for
    /// a tiled one the linear view a fence would give (`detile.rs`), made on first use.
    fn gtt_map_offset(&mut self, id: u64) -> Result<u64, Errno> {
        let bo = self.bos.get(&id).ok_or(Errno::ENOENT)?;
        if bo.tiling == I915_TILING_NONE {
            return Ok(self.mmap_offset(id));
        }
        if let Some((&off, _)) = self.gtt_view_offsets.iter().find(|(_, b)| **b == id) {
            return Ok(off);
        }
        let held: u64 = self.gtt_views.values().map(|v| v.size()).sum();
        if held.saturating_add(bo.size) > crate::detile::APERTURE {
            crate::log(&format!(
                "GEM_MMAP_GTT: linear views of tiled objects would pass the {} MiB mappable aperture: refused with ENOSPC",
                crate::detile::APERTURE >> 20
            ));
            return Err(Errno::ENOSPC);
        }
        let view = crate::detile::DetiledView::new(bo, bo.tiling, bo.stride)?;
        self.gtt_views.insert(id, view);
        let off = self
            .gtt_view_offsets
            .keys()
            .next_back()
            .map_or(GTT_VIEW_OFFSETS, |last| last + MMAP_STRIDE);
        self.gtt_view_offsets.insert(off, id);
        Ok(off)
    }

    pub(crate) fn mmap_offset(&mut self, id: u64) -> u64 {
        if let Some((&off, _)) = self.mmap_offsets.iter().find(|(_, b)| **b == id) {
            return off;
        }
        let off = (self.mmap_offsets.len() as u64 + 1) * MMAP_STRIDE;
        let off = self
            .mmap_offsets
            .keys()
            .next_back()
            .map_or(off, |last| last + MMAP_STRIDE);
        self.mmap_offsets.insert(off, id);
        off
    }
}

/// Most regions one MEMORY_REGIONS extension may name: the size of i915's region table
/// (`enum intel_region_id` up to INTEL_REGION_UNKNOWN, Linux 6.1: system, four device
/// memories, two stolen).
const MAX_PLACEMENTS: u32 = 7;

/// GEM_CREATE_EXT's extension chain ([`user::extension_chain`]): the number of
/// placements named. MEMORY_REGIONS (0, once; `set_placements` in
/// gem/i915_gem_create.c): pad 0, 1 to [`MAX_PLACEMENTS`] regions, each an existing,
/// non-private region named once: here only system memory (class 0, instance 0), the
/// one region DRM_I915_QUERY_MEMORY_REGIONS reports. PROTECTED_CONTENT (1): flags 0,
/// then ENODEV, as on every part without PXP (Gen12+ only). Other names are EINVAL.
fn create_ext_extensions(first: u64) -> Result<u32, Errno> {
    let mut placements = 0;
    user::extension_chain(first, |at, name| match name {
        I915_GEM_CREATE_EXT_MEMORY_REGIONS => {
            let r: I915GemCreateExtMemoryRegions = user::read(at)?;
            if r.pad != 0 || r.num_regions == 0 || r.num_regions > MAX_PLACEMENTS {
                return Err(Errno::EINVAL);
            }
            let mut system = false;
            for i in 0..u64::from(r.num_regions) {
                let [class, instance]: [u16; 2] = user::read(r.regions.wrapping_add(4 * i))?;
                // Not a region of this device, or named twice.
                if (class, instance) != (I915_MEMORY_CLASS_SYSTEM, 0) || system {
                    return Err(Errno::EINVAL);
                }
                system = true;
            }
            if placements != 0 {
                return Err(Errno::EINVAL);
            }
            placements = r.num_regions;
            Ok(())
        }
        I915_GEM_CREATE_EXT_PROTECTED_CONTENT => {
            let flags: u32 = user::read(at + size_of::<I915UserExtension>() as u64)?;
            Err(if flags != 0 {
                Errno::EINVAL
            } else {
                Errno::ENODEV
            })
        }
        _ => Err(Errno::EINVAL),
    })?;
    Ok(placements)
}
