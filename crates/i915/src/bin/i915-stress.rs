//! A client that hammers the i915 emulation from several threads through the real C entry
//! points (open, ioctl, mmap, close), with good and bad arguments. Run it with
//! `LD_PRELOAD=libgtsim_i915.so`; it exits 0 when every answer was the one the i915 uapi
//! documents. It deliberately does not link the gtsim-i915 crate (its hooks would bind
//! inside this executable), so the few uapi structures it needs are restated here.

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

fn main() {
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
