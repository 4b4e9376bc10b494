//! Buffer objects and the graphics address space they are bound into.
//!
//! A buffer object is a memfd: the client maps it (GEM_MMAP_OFFSET + mmap on the DRM fd
//! is redirected to the memfd) and the model sees the same pages through the kernel's own
//! shared mapping, so CPU writes and GPU writes meet in one place as on a machine with an
//! LLC (Ivy Bridge has one: I915_PARAM_HAS_LLC).

use crate::errno::Errno;
use gtsim_mem::{Fault, Memory};
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;

/// Page size.
pub const PAGE: u64 = 4096;

/// One buffer object.
#[derive(Debug)]
pub struct Bo {
    /// Size in bytes (page multiple).
    pub size: u64,
    /// The memory's file: `None` once given up (see [`Bo::memfd`]).
    memfd: Option<OwnedFd>,
    /// The memfd's identity (st_dev, st_ino).
    ident: Option<(u64, u64)>,
    host: NonNull<u8>,
    /// Graphics address once bound.
    pub gpu: Option<u64>,
    /// Tiling recorded by SET_TILING (I915_TILING_*).
    pub tiling: u32,
    /// Stride recorded by SET_TILING.
    pub stride: u32,
    /// Handles (across files) that refer to this object.
    pub refs: u32,
    /// A userptr object's client memory: its address there and whether the GPU may
    /// only read it (I915_GEM_USERPTR). Such an object has no memfd of its own: the
    /// GPU's reads and writes go to the client's pages through the checked copies of
    /// [`crate::user`], so a page the client has since unmapped is a fault, not a crash.
    user: Option<(u64, bool)>,
}

// SAFETY: `host` is a MAP_SHARED mapping owned by this object for its whole life (a
// userptr object's is dangling and never used: its accesses are checked copies of client
// memory); every access happens under the kernel's global lock.
unsafe impl Send for Bo {}
// SAFETY: the bytes behind `host` are shared with the guest process, which may change
// them at any moment, so the model only ever copies them in and out (`read`, `write`)
// and never hands out references into them. Several threads copying out of one object
// at once is what a draw's parallel shader threads do (gtsim_mem::overlay: during a
// parallel phase the memory is only read); writes are made by the one thread that
// holds the kernel's global lock and applies the buffered writes in order.
unsafe impl Sync for Bo {}

impl Bo {
    /// Creates a zeroed object of at least `size` bytes.
    ///
    /// As __i915_gem_object_create_user_ext (drivers/gpu/drm/i915/gem/i915_gem_create.c,
    /// Linux 6.1): the size is rounded up to a page, and a size that rounds to 0
    /// (including one that wraps) is EINVAL; one of more than INT_MAX pages is E2BIG
    /// (i915_gem_object_size_2big). The kernel accepts anything smaller (shmem backs it
    /// lazily); this emulation stops at the 2 GiB its address space can bind and answers
    /// E2BIG, the kernel's errno for an object too big, above that.
    pub fn new(size: u64) -> Result<Bo, Errno> {
        let size = size.checked_next_multiple_of(PAGE).unwrap_or(0);
        if size == 0 {
            return Err(Errno::EINVAL);
        }
        if size > (1 << 31) {
            return Err(Errno::E2BIG);
        }
        // SAFETY: memfd_create with a static NUL-terminated name.
        let fd = unsafe {
            libc::memfd_create(
                c"gtsim-bo".as_ptr(),
                libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING,
            )
        };
        if fd < 0 {
            return Err(Errno::ENOMEM);
        }
        // SAFETY: fd was just returned by memfd_create and is owned by nobody else.
        let memfd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: plain syscall on our own fd.
        if unsafe { libc::ftruncate(memfd.as_raw_fd(), size as libc::off_t) } != 0 {
            return Err(Errno::ENOMEM);
        }
        // The memfd doubles as the object's dma-buf (PRIME_HANDLE_TO_FD hands out a
        // duplicate), and a dma-buf has a fixed size: a client that could shrink the file
        // would make the next access to our mapping of it raise SIGBUS in the host. The
        // seals make ftruncate/fallocate/write past the end fail with EPERM instead
        // (memfd_create(2), fcntl(2) "File Sealing"); F_SEAL_SEAL keeps a client from
        // adding F_SEAL_FUTURE_WRITE and breaking later mappings.
        // SAFETY: plain fcntl on our own fd; the result is checked.
        if unsafe {
            libc::fcntl(
                memfd.as_raw_fd(),
                libc::F_ADD_SEALS,
                libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL,
            )
        } != 0
        {
            return Err(Errno::ENOMEM);
        }
        Bo::map(memfd, size)
    }

    /// An object again over the memory of a dma-buf fd this emulation handed out (a
    /// duplicate of an object's memfd), whose object is gone: its last handle was closed
    /// while the dma-buf lived on, which keeps a Linux object alive (the dma-buf holds a
    /// reference). The fd must be such a memfd (named `gtsim-bo`, sealed against
    /// resizing, a page multiple of at most 2 GiB): anything else is EINVAL, as
    /// dma_buf_get answers a file that is not a dma-buf. The object starts linear (the
    /// gone object's tiling is not kept).
    pub fn from_dmabuf(fd: RawFd) -> Result<Bo, Errno> {
        let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).map_err(|_| Errno::EBADF)?;
        if !link.to_string_lossy().starts_with("/memfd:gtsim-bo") {
            return Err(Errno::EINVAL);
        }
        let want = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;
        // SAFETY: plain fcntl on the client's fd; the result is checked.
        if unsafe { libc::fcntl(fd, libc::F_GET_SEALS) } & want != want {
            return Err(Errno::EINVAL);
        }
        let mut st = std::mem::MaybeUninit::<libc::stat>::zeroed();
        // SAFETY: fstat(2) writes one struct stat into our buffer; the result is checked.
        if unsafe { libc::fstat(fd, st.as_mut_ptr()) } != 0 {
            return Err(Errno::EBADF);
        }
        // SAFETY: initialised by zeroing and the successful fstat.
        let size = unsafe { st.assume_init() }.st_size as u64;
        if size == 0 || size > 1 << 31 || !size.is_multiple_of(PAGE) {
            return Err(Errno::EINVAL);
        }
        // SAFETY: duplicating the client's fd for our own use; the result is checked.
        let dup = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
        if dup < 0 {
            return Err(Errno::ENOMEM);
        }
        // SAFETY: `dup` was just made and is owned by nobody else.
        Bo::map(unsafe { OwnedFd::from_raw_fd(dup) }, size)
    }

    /// An object over `memfd`'s `size` bytes, mapped.
    fn map(memfd: OwnedFd, size: u64) -> Result<Bo, Errno> {
        // SAFETY: mapping our own memfd, shared, readable and writable, at a kernel-chosen
        // address; the result is checked.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                memfd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(Errno::ENOMEM);
        }
        let host = NonNull::new(p.cast::<u8>()).ok_or(Errno::ENOMEM)?;
        let ident = crate::kernel::fd_identity(memfd.as_raw_fd());
        Ok(Bo {
            size,
            memfd: Some(memfd),
            ident,
            host,
            gpu: None,
            tiling: 0,
            stride: 0,
            refs: 1,
            user: None,
        })
    }

    /// An object over `size` bytes of the client's own memory at `addr`
    /// (I915_GEM_USERPTR; the caller has checked the range as the kernel does), read-only
    /// to the GPU when `read_only`.
    pub fn userptr(addr: u64, size: u64, read_only: bool) -> Bo {
        Bo {
            size,
            memfd: None,
            ident: None,
            host: NonNull::dangling(),
            gpu: None,
            tiling: 0,
            stride: 0,
            refs: 1,
            user: Some((addr, read_only)),
        }
    }

    /// Whether the object is the client's memory (I915_GEM_USERPTR).
    pub fn is_userptr(&self) -> bool {
        self.user.is_some()
    }

    /// Copies bytes out of the object.
    pub fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), Errno> {
        let end = offset.checked_add(out.len() as u64).ok_or(Errno::EINVAL)?;
        if end > self.size {
            return Err(Errno::EINVAL);
        }
        if let Some((addr, _)) = self.user {
            return crate::user::read_bytes(addr + offset, out);
        }
        // SAFETY: bounds checked above against the mapping's size; the mapping is live.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.host.as_ptr().add(offset as usize),
                out.as_mut_ptr(),
                out.len(),
            )
        };
        Ok(())
    }

    /// Copies bytes into the object (a read-only userptr object refuses with EFAULT,
    /// the GPU's write to a page it may only read).
    pub fn write(&self, offset: u64, data: &[u8]) -> Result<(), Errno> {
        let end = offset.checked_add(data.len() as u64).ok_or(Errno::EINVAL)?;
        if end > self.size {
            return Err(Errno::EINVAL);
        }
        if let Some((addr, read_only)) = self.user {
            if read_only {
                return Err(Errno::EFAULT);
            }
            return crate::user::write_bytes(addr + offset, data);
        }
        // SAFETY: bounds checked above; the mapping is writable and live.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                self.host.as_ptr().add(offset as usize),
                data.len(),
            )
        };
        Ok(())
    }

    /// The object's memfd, if that fd number still is the memfd made for it.
    ///
    /// The fd lives in the client's fd table, where the client can close it under us
    /// (closefrom(3), close_range, a stray close): the mapping the model uses survives
    /// that, but the number may then name one of the client's own files. So each use
    /// checks its identity, and an object whose memfd is gone can no longer be exported
    /// or mapped (its pages, and the model's view of them, are unaffected).
    pub fn memfd(&self) -> Option<RawFd> {
        let fd = self.memfd.as_ref()?.as_raw_fd();
        if crate::kernel::fd_identity(fd) == self.ident {
            Some(fd)
        } else {
            crate::log(&format!(
                "buffer object memfd {fd} was closed by the application; the object can no longer be exported or mapped"
            ));
            None
        }
    }

    /// The memfd's identity (st_dev, st_ino), which its dma-buf fds share.
    pub fn identity(&self) -> Option<(u64, u64)> {
        self.ident
    }

    fn check_range(&self, offset: u64, len: u64) -> Result<(), Errno> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(Errno::EINVAL),
        }
    }

    /// Copies `len` bytes from client address `addr` straight into the object at
    /// `offset` (PWRITE), in bounded steps, with no staging buffer: a bad range is
    /// EINVAL before anything is read; a fault part-way is EFAULT with the bytes before
    /// it written, as the kernel's shmem pwrite leaves them.
    pub fn write_from_user(&self, offset: u64, addr: u64, len: u64) -> Result<(), Errno> {
        self.check_range(offset, len)?;
        // A userptr object is the client's memory already: PWRITE does not serve it
        // (i915_gem_pwrite_ioctl answers EINVAL for objects without shmem backing).
        if self.user.is_some() {
            return Err(Errno::EINVAL);
        }
        // SAFETY: the range lies within the live, writable mapping (checked above).
        unsafe {
            crate::user::read_raw(addr, self.host.as_ptr().add(offset as usize), len as usize)
        }
    }

    /// Copies `len` bytes of the object at `offset` to client address `addr` (PREAD),
    /// as [`Bo::write_from_user`] the other way.
    pub fn read_to_user(&self, offset: u64, addr: u64, len: u64) -> Result<(), Errno> {
        self.check_range(offset, len)?;
        if self.user.is_some() {
            return Err(Errno::EINVAL);
        }
        // SAFETY: the range lies within the live mapping (checked above).
        unsafe {
            crate::user::write_raw(addr, self.host.as_ptr().add(offset as usize), len as usize)
        }
    }

    /// The whole contents (for captures).
    pub fn contents(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.size as usize];
        let _ = self.read(0, &mut v);
        v
    }
}

impl Drop for Bo {
    fn drop(&mut self) {
        // A userptr object maps nothing of its own: the client's memory stays the client's.
        if self.user.is_some() {
            return;
        }
        // SAFETY: unmapping exactly the mapping created in `new`.
        unsafe { libc::munmap(self.host.as_ptr().cast(), self.size as usize) };
        // Close the memfd only if the number still is ours: closing it otherwise would
        // close whatever file of the client's now has that number.
        if let Some(fd) = self.memfd.take()
            && crate::kernel::fd_identity(fd.as_raw_fd()) != self.ident
        {
            let _ = fd.into_raw_fd();
        }
    }
}

/// The graphics address allocator: stable addresses below 2 GiB (Gen7 relocations are
/// 32-bit; GEM_CONTEXT_GETPARAM reports a 2 GiB GTT). Address 0 and the first 64 KiB stay
/// unused so that a zero pointer always faults.
#[derive(Debug, Clone)]
pub struct Gtt {
    free: BTreeMap<u64, u64>,
}

/// Bottom of the allocatable range.
pub const GTT_START: u64 = 0x1_0000;
/// End of the range (2 GiB).
pub const GTT_END: u64 = 1 << 31;

impl Default for Gtt {
    fn default() -> Self {
        Self {
            free: BTreeMap::from([(GTT_START, GTT_END - GTT_START)]),
        }
    }
}

impl Gtt {
    /// First-fit allocation of `size` bytes aligned to `align` (a power of two, at least a page).
    pub fn alloc(&mut self, size: u64, align: u64) -> Option<u64> {
        let align = align.max(PAGE).next_power_of_two();
        let (&start, &len, at) = self.free.iter().find_map(|(s, l)| {
            let at = s.div_ceil(align) * align;
            (at + size <= s + l).then_some((s, l, at))
        })?;
        self.free.remove(&start);
        if at > start {
            self.free.insert(start, at - start);
        }
        if at + size < start + len {
            self.free.insert(at + size, start + len - at - size);
        }
        Some(at)
    }

    /// Returns a range, merging it with its free neighbours.
    pub fn free(&mut self, at: u64, size: u64) {
        let (mut s, mut l) = (at, size);
        if let Some((&ps, &pl)) = self.free.range(..at).next_back()
            && ps + pl == at
        {
            self.free.remove(&ps);
            s = ps;
            l += pl;
        }
        if let Some(&nl) = self.free.get(&(at + size)) {
            self.free.remove(&(at + size));
            l += nl;
        }
        self.free.insert(s, l);
    }
}

/// The GPU's view of bound objects: graphics address -> object.
pub struct GttView<'a> {
    /// Bound objects by graphics address, ascending (a sorted array: every access of a
    /// draw's threads looks its object up, and a binary search of it is cheaper than a
    /// walk of the map).
    objects: Vec<(u64, &'a Bo)>,
}

impl<'a> GttView<'a> {
    /// The view of the objects bound at the map's addresses.
    pub fn new(map: &BTreeMap<u64, &'a Bo>) -> GttView<'a> {
        GttView {
            objects: map.iter().map(|(&a, &b)| (a, b)).collect(),
        }
    }

    fn find(&self, addr: u64, len: usize, kind: &'static str) -> Result<(&'a Bo, u64), Fault> {
        let fault = Fault {
            addr,
            len: len as u64,
            page: addr & !(PAGE - 1),
            kind,
        };
        let i = self.objects.partition_point(|&(base, _)| base <= addr);
        let &(base, bo) = i
            .checked_sub(1)
            .and_then(|i| self.objects.get(i))
            .ok_or(fault)?;
        let off = addr - base;
        if off + len as u64 > bo.size {
            return Err(Fault {
                page: (base + bo.size).max(addr & !(PAGE - 1)),
                ..fault
            });
        }
        Ok((bo, off))
    }
}

impl Memory for GttView<'_> {
    fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let (bo, off) = self.find(addr, out.len(), "read")?;
        bo.read(off, out).map_err(|_| Fault {
            addr,
            len: out.len() as u64,
            page: addr & !(PAGE - 1),
            kind: "read",
        })
    }

    fn check_write(&self, addr: u64, len: u64) -> Result<(), Fault> {
        self.find(addr, len as usize, "write").map(|_| ())
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let (bo, off) = self.find(addr, data.len(), "write")?;
        bo.write(off, data).map_err(|_| Fault {
            addr,
            len: data.len() as u64,
            page: addr & !(PAGE - 1),
            kind: "write",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtt_allocates_aligned_stable_ranges_and_merges_frees() {
        let mut g = Gtt::default();
        let a = g.alloc(4096, 4096).unwrap();
        let b = g.alloc(8192, 65536).unwrap();
        assert_eq!(a, GTT_START);
        assert_eq!(b % 65536, 0);
        g.free(a, 4096);
        g.free(b, 8192);
        assert_eq!(g.free.len(), 1, "{:?}", g.free);
        assert!(g.alloc(GTT_END, 4096).is_none());
    }

    /// The view finds the object holding an address among several, with gaps between
    /// them and objects back to back, and faults in the gaps, below the first and past
    /// the last.
    #[test]
    fn the_view_finds_each_object_and_faults_between_them() {
        let (a, b, c) = (
            Bo::new(4096).unwrap(),
            Bo::new(4096).unwrap(),
            Bo::new(8192).unwrap(),
        );
        a.write(0, &[1]).unwrap();
        b.write(0, &[2]).unwrap();
        c.write(4096, &[3]).unwrap();
        let map = BTreeMap::from([(0x10000u64, &a), (0x30000, &b), (0x31000, &c)]);
        let view = GttView::new(&map);
        let byte = |addr: u64| {
            let mut x = [0u8; 1];
            view.read(addr, &mut x).map(|_| x[0])
        };
        assert_eq!(byte(0x10000), Ok(1));
        assert_eq!(byte(0x30000), Ok(2));
        assert_eq!(byte(0x32000), Ok(3));
        for gap in [0xffff, 0x11000, 0x2ffff, 0x33000] {
            assert_eq!(
                byte(gap),
                Err(Fault {
                    addr: gap,
                    len: 1,
                    page: gap & !(PAGE - 1),
                    kind: "read"
                }),
                "{gap:#x}"
            );
        }
        // Back to back: a read across the end of one object faults where it leaves b.
        let mut two = [0u8; 2];
        assert_eq!(
            view.read(0x30fff, &mut two),
            Err(Fault {
                addr: 0x30fff,
                len: 2,
                page: 0x31000,
                kind: "read"
            })
        );
    }

    #[test]
    fn bo_memory_is_shared_with_the_gtt_view() {
        let bo = Bo::new(100).unwrap();
        assert_eq!(bo.size, 4096);
        bo.write(8, &[1, 2, 3, 4]).unwrap();
        let map = BTreeMap::from([(0x10000u64, &bo)]);
        let mut view = GttView::new(&map);
        assert_eq!(view.read_u32(0x10008).unwrap(), 0x0403_0201);
        view.write_u32(0x10ffc, 9).unwrap();
        let fault = |addr: u64, page: u64| {
            Err(Fault {
                addr,
                len: 4,
                page,
                kind: "read",
            })
        };
        assert_eq!(
            view.read_u32(0x10ffe),
            fault(0x10ffe, 0x11000),
            "crossing the end faults"
        );
        assert_eq!(
            view.read_u32(0xfffc),
            fault(0xfffc, 0xf000),
            "below the object faults"
        );
        let mut b = [0u8; 4];
        bo.read(0xffc, &mut b).unwrap();
        assert_eq!(b, [9, 0, 0, 0]);
    }
}
