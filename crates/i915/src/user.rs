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
