//! A client that hammers the i915 emulation from several threads through the real C entry
//! points (open, ioctl, mmap, close), with good and bad arguments. Run it with
//! `LD_PRELOAD=libgtsim_i915.so`; it exits 0 when every answer was the one the i915 uapi
//! documents. It deliberately does not link the gtsim-i915 crate (its hooks would bind
//! inside this executable), so the few uapi structures it needs are restated here.

use gtsim_fuzzkit::SplitMix64 as Rng;
use std::ffi::CString;

#[repr(C)]
struct GemCreate {
    size: u64,
    handle: u32,
    pad: u32,
}
#[repr(C)]
struct MmapOffset {
    handle: u32,
    pad: u32,
    offset: u64,
    flags: u64,
    extensions: u64,
}
#[repr(C)]
struct ExecObject {
    handle: u32,
    relocation_count: u32,
    relocs_ptr: u64,
    alignment: u64,
    offset: u64,
    flags: u64,
    rsvd1: u64,
    rsvd2: u64,
}
#[repr(C)]
struct Execbuffer {
    buffers_ptr: u64,
    buffer_count: u32,
    batch_start_offset: u32,
    batch_len: u32,
    dr1: u32,
    dr4: u32,
    num_cliprects: u32,
    cliprects_ptr: u64,
    flags: u64,
    rsvd1: u64,
    rsvd2: u64,
}
#[repr(C)]
struct GemClose {
    handle: u32,
    pad: u32,
}

/// `DRM_IOWR(nr, size)` (asm-generic ioctl.h encoding).
fn iowr(nr: u32, size: usize) -> u64 {
    (3u64 << 30) | ((size as u64) << 16) | (0x64 << 8) | nr as u64
}

fn ioctl<T>(fd: i32, req: u64, arg: *mut T) -> i32 {
    // SAFETY: the argument is a live, correctly sized struct (or a deliberately bad
    // pointer the emulation must reject with EFAULT).
    unsafe { libc::ioctl(fd, req as libc::c_ulong, arg) }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn worker(id: u32) -> Result<(), String> {
    let path = CString::new("/dev/dri/renderD128").unwrap();
    // SAFETY: plain open of a NUL-terminated path.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(format!("open failed: errno {}", errno()));
    }
    for round in 0..50u32 {
        let mut c = GemCreate {
            size: 4096,
            handle: 0,
            pad: 0,
        };
        if ioctl(fd, iowr(0x40 + 0x1b, 16), &mut c) != 0 {
            return Err(format!("GEM_CREATE errno {}", errno()));
        }
        let mut m = MmapOffset {
            handle: c.handle,
            pad: 0,
            offset: 0,
            flags: 2,
            extensions: 0,
        };
        if ioctl(fd, iowr(0x40 + 0x24, 32), &mut m) != 0 {
            return Err(format!("MMAP_OFFSET errno {}", errno()));
        }
        // SAFETY: mapping the object through the DRM fd, as Mesa does.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                m.offset as libc::off_t,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(format!("mmap errno {}", errno()));
        }
        let words = p.cast::<u32>();
        // A batch of two MI_NOOPs and MI_BATCH_BUFFER_END (0x05000000); the check is the
        // graphics offset the kernel writes back.
        let batch = [0u32, 0, 0x0500_0000, 0];
        for (i, w) in batch.iter().enumerate() {
            // SAFETY: within the 4 KiB mapping.
            unsafe { words.add(i).write_volatile(*w) };
        }
        let mut obj = ExecObject {
            handle: c.handle,
            relocation_count: 0,
            relocs_ptr: 0,
            alignment: 0,
            offset: 0,
            flags: 0,
            rsvd1: 0,
            rsvd2: 0,
        };
        let mut eb = Execbuffer {
            buffers_ptr: &mut obj as *mut _ as u64,
            buffer_count: 1,
            batch_start_offset: 0,
            batch_len: 16,
            dr1: 0,
            dr4: 0,
            num_cliprects: 0,
            cliprects_ptr: 0,
            flags: 1,
            rsvd1: 0,
            rsvd2: 0,
        };
        if ioctl(fd, iowr(0x40 + 0x29, 64), &mut eb) != 0 {
            return Err(format!("EXECBUFFER2 errno {}", errno()));
        }
        if obj.offset < 0x10000 || obj.offset >= 1 << 31 {
            return Err(format!("bad offset {:#x}", obj.offset));
        }
        // Bad arguments: a wild pointer, an unknown handle, a batch past the end.
        if ioctl(fd, iowr(0x40 + 0x1b, 16), 0x10 as *mut GemCreate) != -1 || errno() != libc::EFAULT
        {
            return Err(format!("wild pointer: errno {}", errno()));
        }
        let mut gone = GemClose {
            handle: 0xdead_0000 + id,
            pad: 0,
        };
        if ioctl(fd, iowr(0x09, 8), &mut gone) != -1 || errno() != libc::EINVAL {
            return Err(format!("GEM_CLOSE of an unknown handle: errno {}", errno()));
        }
        eb.batch_start_offset = 8192;
        if ioctl(fd, iowr(0x40 + 0x29, 64), &mut eb) != -1 || errno() != libc::EINVAL {
            return Err(format!("batch past the end: errno {}", errno()));
        }
        // SAFETY: unmapping what we mapped.
        unsafe { libc::munmap(p, 4096) };
        let mut cl = GemClose {
            handle: c.handle,
            pad: 0,
        };
        if ioctl(fd, iowr(0x09, 8), &mut cl) != 0 {
            return Err(format!("GEM_CLOSE errno {} in round {round}", errno()));
        }
    }
    // SAFETY: closing our own fd.
    unsafe { libc::close(fd) };
    Ok(())
}

fn open_path(path: &str) -> i32 {
    let c = CString::new(path).unwrap();
    // SAFETY: plain open of a NUL-terminated path.
    unsafe { libc::open(c.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) }
}

/// Whether `fd` answers as the emulated render node: fstat shows char device 226:128 and
/// GEM_CREATE works.
fn is_render_node(fd: i32) -> bool {
    let mut st = std::mem::MaybeUninit::<libc::stat>::zeroed();
    // SAFETY: fstat into our own buffer.
    if unsafe { libc::fstat(fd, st.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: initialised by fstat.
    let st = unsafe { st.assume_init() };
    let mut c = GemCreate {
        size: 4096,
        handle: 0,
        pad: 0,
    };
    st.st_rdev == libc::makedev(226, 128) && ioctl(fd, iowr(0x40 + 0x1b, 16), &mut c) == 0
}

/// fds that stop being the DRM node without our `close` hook seeing it (dup2/dup3 onto
/// them, fclose(fdopen()), close_range) must be what they now are.
fn fd_checks() -> Result<(), String> {
    let null = open_path("/dev/null");
    let fd = open_path("/dev/dri/renderD128");
    if !is_render_node(fd) {
        return Err("the render node does not answer".into());
    }
    // SAFETY: dup2 between our own fds.
    if unsafe { libc::dup2(null, fd) } != fd || is_render_node(fd) {
        return Err("dup2 onto the DRM fd left it a DRM fd".into());
    }
    // SAFETY: closing our own fd.
    unsafe { libc::close(fd) };
    let fd = open_path("/dev/dri/renderD128");
    // SAFETY: dup3 between our own fds.
    if unsafe { libc::dup3(null, fd, libc::O_CLOEXEC) } != fd || is_render_node(fd) {
        return Err("dup3 onto the DRM fd left it a DRM fd".into());
    }
    // SAFETY: closing our own fd.
    unsafe { libc::close(fd) };
    let fd = open_path("/dev/dri/renderD128");
    // SAFETY: a stream over our own fd; fclose closes the fd without calling close().
    unsafe {
        let f = libc::fdopen(fd, c"r+".as_ptr());
        if f.is_null() {
            return Err("fdopen failed".into());
        }
        libc::fclose(f);
    }
    let again = open_path("/dev/null");
    if again != fd || is_render_node(again) {
        return Err(format!(
            "after fclose(fdopen()), fd {again} (was {fd}) is still a DRM fd"
        ));
    }
    // SAFETY: closing our own fd.
    unsafe { libc::close(again) };
    let fd = open_path("/dev/dri/renderD128");
    // SAFETY: closing exactly our own fd through close_range.
    if unsafe { libc::close_range(fd as u32, fd as u32, 0) } != 0 {
        return Err("close_range failed".into());
    }
    let again = open_path("/dev/null");
    if again != fd || is_render_node(again) {
        return Err(format!("after close_range, fd {again} is still a DRM fd"));
    }
    let fresh = open_path("/dev/dri/renderD128");
    if !is_render_node(fresh) {
        return Err("a fresh open no longer works".into());
    }
    Ok(())
}

/// Random ioctls and mmaps through the real entry points: the process must survive,
/// every error must be one the i915 uapi knows, none may be EIO (what the hooks answer
/// when the emulation panicked), and both some calls that succeed and some that fail
/// must be reached.
fn fuzz(cases: u64, seed: u64) -> Result<String, String> {
    const ARENA: usize = 64 << 10;
    // SAFETY: a fresh anonymous mapping: the arena, a read-only page, a guard page.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            ARENA + 8192,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err("cannot map the arena".into());
    }
    let base = base.cast::<u8>();
    // SAFETY: protecting pages of our own mapping.
    unsafe {
        libc::mprotect(base.add(ARENA).cast(), 4096, libc::PROT_READ);
        libc::mprotect(base.add(ARENA + 4096).cast(), 4096, libc::PROT_NONE);
    }
    let a = base as u64;
    let put = |at: u64, v: u64| {
        if at + 8 <= ARENA as u64 {
            // SAFETY: within the writable arena.
            unsafe { base.add(at as usize).cast::<u64>().write_unaligned(v) };
        }
    };
    let mut fd = open_path("/dev/dri/renderD128");
    let mut rng = Rng(seed);
    for size in [4096u64, 8192, 65536] {
        put(0, size);
        put(8, 0);
        ioctl(fd, iowr(0x40 + 0x1b, 16), base);
    }
    let known: &[u32] = &[
        0x00, 0x09, 0x0c, 0x0d, 0x2d, 0x2e, 0xbf, 0xc0, 0xc3, 0xc4, 0xc5, 0x46, 0x57, 0x58, 0x5b,
        0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x61, 0x62, 0x63, 0x64, 0x66, 0x69, 0x69, 0x6c, 0x6d, 0x6e,
        0x6f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x79,
    ];
    let expected = [
        libc::EFAULT,
        libc::EINVAL,
        libc::ENOENT,
        libc::ENOTTY,
        libc::ENOMEM,
        libc::E2BIG,
        libc::ENOSPC,
        libc::EPERM,
        libc::ETIME,
        libc::ENODEV,
        libc::EBADF,
        // The KMS and master ioctls on the render node (not DRM_RENDER_ALLOW), and the
        // atomic client cap, which the display refuses (`crate::kms`).
        libc::EACCES,
        libc::EOPNOTSUPP,
        libc::EBUSY,
    ];
    let (mut ok, mut errs, mut maps) = (0u64, 0u64, 0u64);
    for case in 0..cases {
        let word = |rng: &mut Rng| match rng.below(12) {
            0..=2 => rng.below(8) | rng.below(8) << 32,
            3 => 0,
            4 => u64::MAX,
            5 => 1 << rng.below(64),
            6 => (rng.below(64) + 1) * 4096,
            7..=9 => match rng.below(4) {
                0 => a + ARENA as u64 + rng.below(8192),
                1 => rng.below(1 << 16),
                _ => a + rng.below(ARENA as u64) / 8 * 8,
            },
            _ => rng.next_u64(),
        };
        for _ in 0..64 {
            let at = rng.below(ARENA as u64) / 8 * 8;
            let v = word(&mut rng);
            put(at, v);
        }
        match rng.below(20) {
            0 => {
                // An mmap of the DRM fd at a random offset and length, most often near an
                // offset MMAP_OFFSET just gave.
                let mut m = MmapOffset {
                    handle: 1 + rng.below(3) as u32,
                    pad: 0,
                    offset: 0,
                    flags: 2,
                    extensions: 0,
                };
                ioctl(fd, iowr(0x40 + 0x24, 32), &mut m);
                let off = [m.offset, m.offset + 4096, 1 << 32, rng.next_u64() & !4095]
                    [rng.below(4) as usize];
                let len = [4096, 8192, 65536, 1 << 20, rng.below(1 << 31)][rng.below(5) as usize];
                // SAFETY: a new mapping at a kernel-chosen address; unmapped below.
                let p = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        len as usize,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_SHARED,
                        fd,
                        off as libc::off_t,
                    )
                };
                if p != libc::MAP_FAILED {
                    maps += 1;
                    // SAFETY: touching the first byte of the mapping just made, then
                    // unmapping it.
                    unsafe {
                        p.cast::<u8>().write_volatile(1);
                        libc::munmap(p, len as usize);
                    }
                }
            }
            1 => {
                // The fd goes away and comes back, sometimes behind the close hook.
                // SAFETY: closing our own fd, by close or by close_range.
                unsafe {
                    if rng.below(2) == 0 {
                        libc::close(fd);
                    } else {
                        libc::close_range(fd as u32, fd as u32, 0);
                    }
                }
                fd = open_path("/dev/dri/renderD128");
                for size in [4096u64, 8192] {
                    put(0, size);
                    put(8, 0);
                    ioctl(fd, iowr(0x40 + 0x1b, 16), base);
                }
            }
            _ => {
                let nr = if rng.below(8) == 0 {
                    rng.below(256) as u32
                } else {
                    known[rng.below(known.len() as u64) as usize]
                };
                let size = match rng.below(4) {
                    0 => rng.below(1 << 14),
                    1 => rng.below(128),
                    _ => [8, 12, 16, 24, 32, 40, 64][rng.below(7) as usize],
                };
                let dir = if rng.below(4) == 0 { rng.below(4) } else { 3 };
                let req = dir << 30 | size << 16 | 0x64 << 8 | nr as u64;
                let arg = if rng.below(10) == 0 {
                    word(&mut rng)
                } else {
                    a + rng.below(ARENA as u64 - 1024) / 8 * 8
                };
                if ioctl(fd, req, arg as *mut u8) == 0 {
                    ok += 1;
                } else {
                    errs += 1;
                    let e = errno();
                    if !expected.contains(&e) {
                        return Err(format!(
                            "case {case} (seed {seed}): request {req:#x} arg {arg:#x}: errno {e}"
                        ));
                    }
                }
            }
        }
    }
    // Both outcomes, or the run tried too little: about one ioctl in seven succeeds
    // (crates/i915/README.md: ~33,900 calls in 250,000 cases), the rest fail with an
    // expected errno, so the default 3,000 cases reach each hundreds of times.
    if ok == 0 || errs == 0 {
        return Err(format!(
            "fuzz {cases} cases from seed {seed}: {ok} ioctls succeeded, {errs} failed: \
             both outcomes must be reached"
        ));
    }
    Ok(format!(
        "ok: fuzz {cases} cases from seed {seed}: {ok} ioctls succeeded, {errs} failed with expected errnos, {maps} mmaps"
    ))
}

/// Mappings of buffer objects cannot reach past the object: an mmap of a dma-buf past
/// its end is EINVAL, growing a mapping with mremap is EFAULT (either would SIGBUS when
/// touched).
fn map_checks() -> Result<(), String> {
    let fd = open_path("/dev/dri/renderD128");
    let mut c = GemCreate {
        size: 8192,
        handle: 0,
        pad: 0,
    };
    if ioctl(fd, iowr(0x40 + 0x1b, 16), &mut c) != 0 {
        return Err(format!("GEM_CREATE errno {}", errno()));
    }
    // DRM_IOCTL_PRIME_HANDLE_TO_FD with DRM_CLOEXEC | DRM_RDWR.
    let mut p = [c.handle, (libc::O_CLOEXEC | libc::O_RDWR) as u32, u32::MAX];
    if ioctl(fd, iowr(0x2d, 12), p.as_mut_ptr()) != 0 {
        return Err(format!("PRIME_HANDLE_TO_FD errno {}", errno()));
    }
    let dmabuf = p[2] as i32;
    let map = |fd: i32, len: usize, off: i64| {
        // SAFETY: a new shared mapping at a kernel-chosen address.
        unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                off,
            )
        }
    };
    if map(dmabuf, 3 * 4096, 0) != libc::MAP_FAILED || errno() != libc::EINVAL {
        return Err(format!("a dma-buf mapping past the end: errno {}", errno()));
    }
    if map(dmabuf, 4096, 8192) != libc::MAP_FAILED || errno() != libc::EINVAL {
        return Err(format!("a dma-buf mapping at the end: errno {}", errno()));
    }
    let m = map(dmabuf, 8192, 0);
    if m == libc::MAP_FAILED {
        return Err(format!("a whole dma-buf mapping: errno {}", errno()));
    }
    // SAFETY: writing within the mapping just made.
    unsafe { m.cast::<u8>().add(8191).write_volatile(1) };
    // SAFETY: mremap of our own mapping; growing it must fail.
    let grown = unsafe { libc::mremap(m, 8192, 16384, libc::MREMAP_MAYMOVE) };
    if grown != libc::MAP_FAILED || errno() != libc::EFAULT {
        return Err(format!("growing a dma-buf mapping: errno {}", errno()));
    }
    // SAFETY: shrinking our own mapping in place is fine.
    let shrunk = unsafe { libc::mremap(m, 8192, 4096, 0) };
    if shrunk != m {
        return Err(format!("shrinking a dma-buf mapping: errno {}", errno()));
    }
    // SAFETY: unmapping what is left.
    unsafe { libc::munmap(m, 4096) };
    // The same through the DRM fd (MMAP_OFFSET).
    let mut mo = MmapOffset {
        handle: c.handle,
        pad: 0,
        offset: 0,
        flags: 2,
        extensions: 0,
    };
    if ioctl(fd, iowr(0x40 + 0x24, 32), &mut mo) != 0 {
        return Err(format!("MMAP_OFFSET errno {}", errno()));
    }
    let m = map(fd, 8192, mo.offset as i64);
    if m == libc::MAP_FAILED {
        return Err(format!("mmap of the DRM fd: errno {}", errno()));
    }
    // SAFETY: mremap of our own mapping; growing it must fail.
    let grown = unsafe { libc::mremap(m, 8192, 1 << 20, libc::MREMAP_MAYMOVE) };
    if grown != libc::MAP_FAILED || errno() != libc::EFAULT {
        return Err(format!("growing a GEM mapping: errno {}", errno()));
    }
    // Other mappings still grow.
    // SAFETY: an anonymous mapping of our own, grown and unmapped.
    unsafe {
        let a = libc::mmap(
            std::ptr::null_mut(),
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        let b = libc::mremap(a, 4096, 1 << 20, libc::MREMAP_MAYMOVE);
        if b == libc::MAP_FAILED {
            return Err(format!("growing an anonymous mapping: errno {}", errno()));
        }
        libc::munmap(b, 1 << 20);
        libc::munmap(m, 8192);
        libc::close(dmabuf);
    }
    Ok(())
}

/// CLOCK_MONOTONIC now in nanoseconds (what syncobj wait deadlines count in).
fn monotonic_ns() -> i64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec * 1_000_000_000 + t.tv_nsec
}

/// A syncobj wait for a submission blocks until another thread signals the point
/// (drm_syncobj_array_wait_timeout with WAIT_FOR_SUBMIT), and times out at its
/// absolute deadline when nothing does.
fn wait_checks() -> Result<(), String> {
    let fd = open_path("/dev/dri/renderD128");
    // struct drm_syncobj_create {handle, flags}.
    let mut create = [0u32; 2];
    if ioctl(fd, iowr(0xbf, 8), create.as_mut_ptr()) != 0 {
        return Err(format!("SYNCOBJ_CREATE: errno {}", errno()));
    }
    let handle = create[0];
    // struct drm_syncobj_timeline_wait {handles, points, timeout_nsec, count, flags,
    // first_signaled, pad}, waiting for point 3 to be submitted.
    let wait = |deadline_ns: i64| -> i32 {
        let handles = [handle];
        let points = [3u64];
        let mut w = [0u64; 5];
        w[0] = handles.as_ptr() as u64;
        w[1] = points.as_ptr() as u64;
        w[2] = deadline_ns as u64;
        w[3] = 1 | (2u64 << 32); // count 1, WAIT_FOR_SUBMIT
        if ioctl(fd, iowr(0xca, 40), w.as_mut_ptr()) == 0 {
            0
        } else {
            errno()
        }
    };
    // Nobody signals: ETIME once the 20 ms deadline passes.
    let e = wait(monotonic_ns() + 20_000_000);
    if e != libc::ETIME {
        return Err(format!("an unsatisfied wait gave errno {e}, not ETIME"));
    }
    // Another thread signals point 3 a little later: the wait (5 s deadline) returns 0.
    let signaller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(30));
        let handles = [handle];
        let mut points = [3u64];
        // struct drm_syncobj_timeline_array {handles, points, count_handles, flags}.
        let mut a = [handles.as_ptr() as u64, points.as_mut_ptr() as u64, 1];
        ioctl(fd, iowr(0xcd, 24), a.as_mut_ptr())
    });
    let e = wait(monotonic_ns() + 5_000_000_000);
    let signalled = signaller
        .join()
        .map_err(|_| "the signalling thread panicked")?;
    if signalled != 0 {
        return Err(format!("TIMELINE_SIGNAL failed: errno {}", errno()));
    }
    if e != 0 {
        return Err(format!(
            "the wait for the other thread's point gave errno {e}"
        ));
    }
    Ok(())
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("wait") {
        match wait_checks() {
            Ok(()) => println!("ok: wait"),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("maps") {
        match map_checks() {
            Ok(()) => println!("ok: maps"),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("fuzz") {
        let arg = |i: usize, d: u64| {
            std::env::args()
                .nth(i)
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        match fuzz(arg(2, 3000), arg(3, 1)) {
            Ok(m) => println!("{m}"),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("fds") {
        match fd_checks() {
            Ok(()) => println!("ok: fds"),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let threads: Vec<_> = (0..4)
        .map(|i| std::thread::spawn(move || worker(i)))
        .collect();
    let mut failed = false;
    for (i, t) in threads.into_iter().enumerate() {
        match t.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                eprintln!("thread {i}: {e}");
                failed = true;
            }
            Err(_) => {
                eprintln!("thread {i} panicked");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
    println!("ok: 4 threads x 50 rounds");
}
