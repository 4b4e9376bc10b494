//! Copying to and from the client's memory without trusting its pointers.
//!
//! Ioctl arguments point into the client's address space, and a real kernel answers a
//! bad pointer with EFAULT. We are in the same process, so a bad pointer dereferenced
//! directly would crash the host. Every copy therefore goes through
//! `process_vm_readv`/`process_vm_writev` on our own pid, which the kernel checks page by
//! page and fails with EFAULT instead of faulting.

use crate::errno::Errno;

fn pid() -> libc::pid_t {
    // SAFETY: getpid has no preconditions.
    unsafe { libc::getpid() }
}

/// The end of the x86-64 user address space the kernel's `access_ok()` checks against:
/// `TASK_SIZE_MAX`, (1 << 47) - PAGE_SIZE with 4-level paging
/// (arch/x86/include/asm/page_64_types.h).
pub const TASK_SIZE_MAX: u64 = (1 << 47) - 4096;

/// The kernel's `access_ok(addr, len)` (include/asm-generic/access_ok.h, Linux 6.1): the
/// range lies in the user address space. It says nothing about whether it is mapped;
/// handlers use it to answer EFAULT before doing any work, as i915 does.
pub fn access_ok(addr: u64, len: u64) -> bool {
    len <= TASK_SIZE_MAX && addr <= TASK_SIZE_MAX - len
}

/// Most bytes one `process_vm_readv`/`process_vm_writev` call is asked to move. The
/// kernel moves at most `MAX_RW_COUNT` (a little under 2 GiB) per call and may move less
/// (a partial transfer up to a fault), so copies loop; a modest step keeps each call
/// short.
pub const COPY_STEP: usize = 64 << 20;

/// Moves `len` bytes between our memory at `local` and client address `addr`, in steps
/// of at most [`COPY_STEP`], continuing after partial transfers; EFAULT when a step moves
/// nothing (the client range is not mapped, or not with the needed access). Bytes before
/// the fault have been moved, as with the kernel's copy routines.
///
/// # Safety
/// `local` must be valid for `len` bytes: writable if `to_local`, readable otherwise.
unsafe fn transfer(addr: u64, local: *mut u8, len: usize, to_local: bool) -> Result<(), Errno> {
    if len == 0 {
        return Ok(());
    }
    if addr == 0 || !access_ok(addr, len as u64) {
        return Err(Errno::EFAULT);
    }
    let mut done = 0usize;
    while done < len {
        let step = (len - done).min(COPY_STEP);
        let l = libc::iovec {
            // SAFETY: within the caller's `len` bytes.
            iov_base: unsafe { local.add(done) }.cast(),
            iov_len: step,
        };
        let r = libc::iovec {
            iov_base: (addr + done as u64) as *mut libc::c_void,
            iov_len: step,
        };
        // SAFETY: `l` lies in memory the caller vouches for; the remote range is checked
        // by the kernel, which returns an error or a short count instead of faulting.
        let n = unsafe {
            if to_local {
                libc::process_vm_readv(pid(), &l, 1, &r, 1, 0)
            } else {
                libc::process_vm_writev(pid(), &l, 1, &r, 1, 0)
            }
        };
        if n <= 0 {
            return Err(Errno::EFAULT);
        }
        done += n as usize;
    }
    Ok(())
}

/// Copies `len` bytes from client address `addr` to our memory at `local`.
///
/// # Safety
/// `local` must be valid for writes of `len` bytes.
pub unsafe fn read_raw(addr: u64, local: *mut u8, len: usize) -> Result<(), Errno> {
    // SAFETY: passed on from the caller.
    unsafe { transfer(addr, local, len, true) }
}

/// Copies `len` bytes from our memory at `local` to client address `addr`.
///
/// # Safety
/// `local` must be valid for reads of `len` bytes.
pub unsafe fn write_raw(addr: u64, local: *const u8, len: usize) -> Result<(), Errno> {
    // SAFETY: passed on from the caller; the memory is only read.
    unsafe { transfer(addr, local.cast_mut(), len, false) }
}

/// Copies `out.len()` bytes from client address `addr`.
pub fn read_bytes(addr: u64, out: &mut [u8]) -> Result<(), Errno> {
    // SAFETY: `out` is our own writable buffer of exactly that length.
    unsafe { read_raw(addr, out.as_mut_ptr(), out.len()) }
}

/// Copies `data` to client address `addr`.
pub fn write_bytes(addr: u64, data: &[u8]) -> Result<(), Errno> {
    // SAFETY: `data` is our own readable buffer of exactly that length.
    unsafe { write_raw(addr, data.as_ptr(), data.len()) }
}

/// Stores each `(address, value)` pair's value at its client address, with as few
/// system calls as possible (vectored writes of up to `IOV_MAX` pieces). Returns whether
/// every store landed; the kernel ignores such failures where it writes results back
/// after the work is done (relocation presumed offsets, exec-object offsets), and so do
/// the callers.
pub fn write_u64s(stores: &[(u64, u64)]) -> bool {
    const IOV_MAX: usize = 1024;
    let mut ok = true;
    for part in stores.chunks(IOV_MAX) {
        if part.iter().any(|(a, _)| *a == 0 || !access_ok(*a, 8)) {
            // One bad address: fall back to single stores so the good ones still land.
            for (a, v) in part {
                ok &= write_bytes(*a, &v.to_le_bytes()).is_ok();
            }
            continue;
        }
        let values: Vec<u64> = part.iter().map(|(_, v)| *v).collect();
        let local = libc::iovec {
            iov_base: values.as_ptr() as *mut libc::c_void,
            iov_len: values.len() * 8,
        };
        let remote: Vec<libc::iovec> = part
            .iter()
            .map(|(a, _)| libc::iovec {
                iov_base: *a as *mut libc::c_void,
                iov_len: 8,
            })
            .collect();
        // SAFETY: `local` is our own buffer of exactly the total remote length; the
        // remote pieces are checked by the kernel, which stops at the first that faults.
        let n = unsafe {
            libc::process_vm_writev(pid(), &local, 1, remote.as_ptr(), remote.len() as _, 0)
        };
        if n != (values.len() * 8) as isize {
            // Stopped at a fault: store the rest one by one past it.
            let landed = (n.max(0) as usize) / 8;
            for (a, v) in &part[landed..] {
                ok &= write_bytes(*a, &v.to_le_bytes()).is_ok();
            }
        }
    }
    ok
}

/// Reads a `#[repr(C)]` plain-old-data value from the client.
pub fn read<T: Copy>(addr: u64) -> Result<T, Errno> {
    let mut v = std::mem::MaybeUninit::<T>::zeroed();
    // SAFETY: the slice covers exactly the value's bytes; T is Copy plain data (the uapi
    // structs), valid for any bit pattern the client supplies (integers and raw pointers).
    let bytes =
        unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), size_of::<T>()) };
    read_bytes(addr, bytes)?;
    // SAFETY: fully initialised by zeroing and then by the copy.
    Ok(unsafe { v.assume_init() })
}

/// Writes a `#[repr(C)]` plain-old-data value to the client.
pub fn write<T: Copy>(addr: u64, v: &T) -> Result<(), Errno> {
    // SAFETY: reading the bytes of a Copy repr(C) value; padding bytes are never present in
    // the uapi structs (checked by their size asserts).
    let bytes = unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), size_of::<T>()) };
    write_bytes(addr, bytes)
}

/// Reads an array of `n` values with one bounded copy. Callers bound `n` (the copy
/// allocates `n * size_of::<T>()` bytes).
pub fn read_array<T: Copy>(addr: u64, n: usize) -> Result<Vec<T>, Errno> {
    let bytes = n.checked_mul(size_of::<T>()).ok_or(Errno::EFAULT)?;
    let mut v = Vec::<T>::with_capacity(n);
    // SAFETY: the vector has room for n values, `bytes` bytes; T is Copy plain data
    // valid for any bit pattern, and the length is set only after the copy filled them.
    unsafe {
        read_raw(addr, v.as_mut_ptr().cast::<u8>(), bytes)?;
        v.set_len(n);
    }
    Ok(v)
}

/// An ioctl argument, copied in and out the way the kernel's `drm_ioctl()`
/// (drivers/gpu/drm/drm_ioctl.c, Linux 6.1) does:
///
/// - the caller's request encodes a direction and a size; the kernel copies the argument
///   in only if both the caller's request and the kernel's own declaration
///   ([`crate::uapi::Decl`]) have `IOC_IN` (`_IOC_WRITE`), and back out only if both
///   have `IOC_OUT` (`_IOC_READ`);
/// - it copies in exactly the caller's encoded size, into a buffer as large as the
///   larger of that and the kernel's declared size, zero-filling the rest, so a short
///   (older) argument reads as zeros in the fields it lacks;
/// - after the handler it copies back exactly the caller's encoded size (an over-sized
///   tail goes back as it came in), even when the handler failed, and a failed copy-out
///   turns the result into EFAULT.
///
/// Handlers see the argument through [`Args::get`] and [`Args::set`], never through the
/// client's pointer, so a handler cannot write more than the caller declared.
#[derive(Debug)]
pub struct Args {
    buf: Vec<u8>,
    addr: u64,
    out: usize,
}

impl Args {
    /// Copies in the argument of request `req` at client address `addr`, for a command
    /// the kernel declares as `decl`.
    pub fn copy_in(req: u64, addr: u64, decl: crate::uapi::Decl) -> Result<Args, Errno> {
        use crate::uapi::{IOC_READ, IOC_WRITE, dir, size};
        let caller = size(req);
        let both = dir(req) & decl.dir;
        let in_size = if both & IOC_WRITE != 0 { caller } else { 0 };
        let out = if both & IOC_READ != 0 { caller } else { 0 };
        let mut buf = vec![0u8; in_size.max(out).max(decl.size)];
        read_bytes(addr, &mut buf[..in_size])?;
        Ok(Args { buf, addr, out })
    }

    /// An argument held in memory (the kernel's own size), for handlers called
    /// internally and for tests.
    pub fn from_bytes(bytes: &[u8]) -> Args {
        Args {
            buf: bytes.to_vec(),
            addr: 0,
            out: 0,
        }
    }

    /// Copies the argument back out (see the type's docs).
    pub fn copy_out(&self) -> Result<(), Errno> {
        write_bytes(self.addr, &self.buf[..self.out])
    }

    /// The argument read as `T` (a uapi struct): its first `size_of::<T>()` bytes, zero
    /// past the end of the buffer.
    pub fn get<T: Copy>(&self) -> T {
        let mut v = std::mem::MaybeUninit::<T>::zeroed();
        let n = size_of::<T>().min(self.buf.len());
        // SAFETY: copies at most size_of::<T>() bytes into the zeroed value and at most
        // the buffer's length out of it; T is a Copy plain-data uapi struct, valid for
        // any bit pattern (integers and raw pointers).
        unsafe {
            std::ptr::copy_nonoverlapping(self.buf.as_ptr(), v.as_mut_ptr().cast::<u8>(), n);
            v.assume_init()
        }
    }

    /// Stores `v` as the argument's first `size_of::<T>()` bytes (those that fit).
    pub fn set<T: Copy>(&mut self, v: &T) {
        let n = size_of::<T>().min(self.buf.len());
        // SAFETY: reads n <= size_of::<T>() bytes of a Copy repr(C) value without padding
        // (the uapi structs' size asserts) into a buffer of at least n bytes.
        unsafe {
            std::ptr::copy_nonoverlapping((v as *const T).cast::<u8>(), self.buf.as_mut_ptr(), n)
        };
    }

    /// [`Args::set`], as a handler's successful result.
    pub fn put<T: Copy>(&mut self, v: &T) -> Result<(), Errno> {
        self.set(v);
        Ok(())
    }

    /// The argument's address in the client (for fields the kernel writes directly).
    pub fn addr(&self) -> u64 {
        self.addr
    }
}

/// Walks an i915 extension chain from `first` (i915_user_extensions,
/// drivers/gpu/drm/i915/i915_user_extensions.c, Linux 6.1): at most 512 links (then
/// E2BIG), each `struct i915_user_extension` header readable (EFAULT) with its flags
/// and reserved words zero (check_user_mbz: EINVAL); `visit` takes each link's address
/// and name, in order, and its error ends the walk.
pub fn extension_chain(
    first: u64,
    mut visit: impl FnMut(u64, u32) -> Result<(), Errno>,
) -> Result<(), Errno> {
    let mut next = first;
    let mut links = 0;
    while next != 0 {
        links += 1;
        if links > 512 {
            return Err(Errno::E2BIG);
        }
        let ext: crate::uapi::I915UserExtension = read(next)?;
        if ext.flags != 0 || ext.rsvd != [0; 4] {
            return Err(Errno::EINVAL);
        }
        visit(next, ext.name)?;
        next = ext.next_extension;
    }
    Ok(())
}
