//! Error numbers returned to the client, as a real kernel would.

/// A positive errno value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Errno(pub i32);

#[allow(missing_docs, reason = "the names are the C library's")]
impl Errno {
    pub const EPERM: Errno = Errno(libc::EPERM);
    pub const ENOENT: Errno = Errno(libc::ENOENT);
    pub const E2BIG: Errno = Errno(libc::E2BIG);
    pub const EIO: Errno = Errno(libc::EIO);
    pub const EBADF: Errno = Errno(libc::EBADF);
    pub const ENOMEM: Errno = Errno(libc::ENOMEM);
    pub const EFAULT: Errno = Errno(libc::EFAULT);
    pub const EINVAL: Errno = Errno(libc::EINVAL);
    pub const ENOSPC: Errno = Errno(libc::ENOSPC);
    pub const ENOTTY: Errno = Errno(libc::ENOTTY);
    pub const ENODEV: Errno = Errno(libc::ENODEV);
    pub const ETIME: Errno = Errno(libc::ETIME);
    pub const EOPNOTSUPP: Errno = Errno(libc::EOPNOTSUPP);
}
