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
    pub const EBUSY: Errno = Errno(libc::EBUSY);
    pub const EACCES: Errno = Errno(libc::EACCES);
    pub const ENXIO: Errno = Errno(libc::ENXIO);
    pub const EBADF: Errno = Errno(libc::EBADF);
    pub const ENOMEM: Errno = Errno(libc::ENOMEM);
    pub const EFAULT: Errno = Errno(libc::EFAULT);
    pub const EINVAL: Errno = Errno(libc::EINVAL);
    pub const EEXIST: Errno = Errno(libc::EEXIST);
    pub const ENOSPC: Errno = Errno(libc::ENOSPC);
    pub const ENOTTY: Errno = Errno(libc::ENOTTY);
    pub const ENODEV: Errno = Errno(libc::ENODEV);
    pub const ETIME: Errno = Errno(libc::ETIME);
    pub const EOPNOTSUPP: Errno = Errno(libc::EOPNOTSUPP);
    pub const ERANGE: Errno = Errno(libc::ERANGE);
}

impl std::fmt::Display for Errno {
    /// The C library's name where it is one the emulation answers, else the number.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self.0 {
            libc::EPERM => "EPERM",
            libc::ENOENT => "ENOENT",
            libc::E2BIG => "E2BIG",
            libc::EIO => "EIO",
            libc::ENXIO => "ENXIO",
            libc::EBADF => "EBADF",
            libc::ENOMEM => "ENOMEM",
            libc::EFAULT => "EFAULT",
            libc::EINVAL => "EINVAL",
            libc::ENOSPC => "ENOSPC",
            libc::ENOTTY => "ENOTTY",
            libc::ENODEV => "ENODEV",
            libc::ETIME => "ETIME",
            libc::EOPNOTSUPP => "EOPNOTSUPP",
            libc::EAGAIN => "EAGAIN",
            libc::EBUSY => "EBUSY",
            libc::EEXIST => "EEXIST",
            libc::EDEADLK => "EDEADLK",
            libc::EINTR => "EINTR",
            libc::ENOSYS => "ENOSYS",
            libc::EACCES => "EACCES",
            libc::ERANGE => "ERANGE",
            n => return write!(f, "errno {n}"),
        };
        f.write_str(name)
    }
}
