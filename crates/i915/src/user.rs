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

/// Copies `out.len()` bytes from client address `addr`.
pub fn read_bytes(addr: u64, out: &mut [u8]) -> Result<(), Errno> {
    if out.is_empty() {
        return Ok(());
    }
    if addr == 0 {
        return Err(Errno::EFAULT);
    }
    let local = libc::iovec {
        iov_base: out.as_mut_ptr().cast(),
        iov_len: out.len(),
    };
    let remote = libc::iovec {
        iov_base: addr as *mut libc::c_void,
        iov_len: out.len(),
    };
    // SAFETY: `local` describes our own writable buffer of exactly that length; the remote
    // range is checked by the kernel, which returns an error instead of faulting.
    let n = unsafe { libc::process_vm_readv(pid(), &local, 1, &remote, 1, 0) };
    if n == out.len() as isize {
        Ok(())
    } else {
        Err(Errno::EFAULT)
    }
}

/// Copies `data` to client address `addr`.
pub fn write_bytes(addr: u64, data: &[u8]) -> Result<(), Errno> {
    if data.is_empty() {
        return Ok(());
    }
    if addr == 0 {
        return Err(Errno::EFAULT);
    }
    let local = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    let remote = libc::iovec {
        iov_base: addr as *mut libc::c_void,
        iov_len: data.len(),
    };
    // SAFETY: `local` describes our own readable buffer; the kernel checks the remote range.
    let n = unsafe { libc::process_vm_writev(pid(), &local, 1, &remote, 1, 0) };
    if n == data.len() as isize {
        Ok(())
    } else {
        Err(Errno::EFAULT)
    }
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

/// Reads an array of `n` values.
pub fn read_array<T: Copy>(addr: u64, n: usize) -> Result<Vec<T>, Errno> {
    (0..n)
        .map(|i| read::<T>(addr + (i * size_of::<T>()) as u64))
        .collect()
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
