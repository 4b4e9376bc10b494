//! A fuzz harness for the ioctl surface, run in-process against [`Kernel`] the way
//! `tests.rs` drives it.
//!
//! Each case issues one ioctl with a random or mutated request (a known DRM/i915 command
//! or any number in DRM's range, now and then another ioctl family; every direction;
//! the kernel's size, a smaller, a larger or a random one) and an argument whose words
//! are drawn from values that matter: small handles (most of them valid, since the harness
//! keeps objects, contexts and syncobjs alive), sizes and offsets around page and object
//! boundaries, flags with single bits set, and pointers into a mapped arena, at its edge,
//! into a guard page (PROT_NONE), into a read-only page, at 0, beyond the user address
//! space. Pointed-to memory is re-randomised the same way, so nested arrays (exec objects,
//! relocations, fences, handles) are fuzzed too.
//!
//! It checks that the process survives (a panic fails the case, with the seed to replay
//! it), that every error is one the kernel could return for that command, and that the
//! kernel's bookkeeping stays consistent.
//!
//! `GTSIM_FUZZ_CASES=N` sets the campaign size (default [`DEFAULT_CASES`], a few seconds
//! in a debug build), `GTSIM_FUZZ_SEED=S` the first seed, `GTSIM_FUZZ_STATS=1` prints
//! successes and errors per command. The emulation's log lines (GPU hangs of random
//! batches) are muted on the harness's thread. Resources the ioctls hand out
//! (fds, mappings) are released after each case, and the kernel is rebuilt every
//! [`RESET_EVERY`] cases so that objects do not pile up. The device's command budget is
//! lowered to [`MAX_COMMANDS`] so that a looping batch ends in a hang report quickly.

use crate::errno::Errno;
use crate::kernel::{Kernel, Node};
use crate::uapi::*;
use gtsim_fuzzkit::SplitMix64 as Rng;

/// Cases in a default `cargo test` run.
pub const DEFAULT_CASES: u64 = 10_000;
/// Cases between fresh kernels.
pub const RESET_EVERY: u64 = 250;
/// The device's per-submission command budget in the harness.
pub const MAX_COMMANDS: usize = 20_000;

const FD: i32 = 2000;
const ARENA: usize = 64 << 10;
/// Where template arguments go, and their arrays (byte offsets in the arena).
const TEMPLATE_ARGS: usize = 16 << 10;
const OBJECTS: usize = 32 << 10;
const RELOCS: usize = 40 << 10;
const FENCES: usize = 48 << 10;
const HANDLES: usize = 56 << 10;
/// Where OUT_FENCE_PTR points in templates (past the arrays at HANDLES).
const OUT_FENCE_SLOT: usize = HANDLES + 1024;

/// Client memory for arguments: `ARENA` bytes read-write, then a read-only page, then a
/// PROT_NONE guard page.
struct Arena {
    base: *mut u8,
}

impl Arena {
    fn new() -> Arena {
        let len = ARENA + 2 * 4096;
        // SAFETY: a fresh anonymous mapping, checked.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED, "cannot map the fuzz arena");
        let base = p.cast::<u8>();
        // SAFETY: changing the protection of pages inside our own mapping.
        unsafe {
            assert_eq!(
                libc::mprotect(base.add(ARENA).cast(), 4096, libc::PROT_READ),
                0
            );
            assert_eq!(
                libc::mprotect(base.add(ARENA + 4096).cast(), 4096, libc::PROT_NONE),
                0
            );
        }
        Arena { base }
    }

    fn addr(&self) -> u64 {
        self.base as u64
    }

    fn readonly(&self) -> u64 {
        self.addr() + ARENA as u64
    }

    fn guard(&self) -> u64 {
        self.addr() + ARENA as u64 + 4096
    }

    /// Stores a word at byte `at` of the writable part (ignored past its end).
    fn put(&self, at: usize, v: u64) {
        if at.checked_add(8).is_some_and(|e| e <= ARENA) {
            // SAFETY: within the writable part of our own mapping; unaligned store.
            unsafe { self.base.add(at).cast::<u64>().write_unaligned(v) };
        }
    }

    fn get(&self, at: usize) -> u64 {
        if at.checked_add(8).is_some_and(|e| e <= ARENA) {
            // SAFETY: within the writable part of our own mapping; unaligned load.
            unsafe { self.base.add(at).cast::<u64>().read_unaligned() }
        } else {
            0
        }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: unmapping our own mapping.
        unsafe { libc::munmap(self.base.cast(), ARENA + 2 * 4096) };
    }
}

/// Commands the harness aims at most of the time.
const KNOWN: &[u32] = &[
    crate::kms::WAIT_VBLANK,
    crate::kms::MODE_GETRESOURCES,
    crate::kms::MODE_GETCRTC,
    crate::kms::MODE_SETCRTC,
    crate::kms::MODE_GETENCODER,
    crate::kms::MODE_GETCONNECTOR,
    crate::kms::MODE_GETFB,
    crate::kms::MODE_ADDFB,
    crate::kms::MODE_ADDFB2,
    crate::kms::MODE_ADDFB2,
    crate::kms::MODE_RMFB,
    crate::kms::MODE_PAGE_FLIP,
    crate::kms::MODE_PAGE_FLIP,
    crate::kms::MODE_CREATE_DUMB,
    crate::kms::MODE_MAP_DUMB,
    crate::kms::MODE_DESTROY_DUMB,
    crate::kms::MODE_GETPLANERESOURCES,
    crate::kms::MODE_GETPLANE,
    crate::kms::MODE_SETPLANE,
    crate::kms::MODE_CURSOR,
    crate::kms::MODE_CURSOR2,
    crate::kms::MODE_GETPROPERTY,
    crate::kms::MODE_SETPROPERTY,
    crate::kms::MODE_GETPROPBLOB,
    crate::kms::MODE_OBJ_GETPROPERTIES,
    crate::kms::MODE_OBJ_SETPROPERTY,
    crate::kms::MODE_ATOMIC,
    crate::kms::MODE_ATOMIC,
    crate::kms::MODE_ATOMIC,
    crate::kms::MODE_CREATEPROPBLOB,
    crate::kms::MODE_DESTROYPROPBLOB,
    crate::kms::MODE_GETGAMMA,
    crate::kms::MODE_SETGAMMA,
    DRM_SET_CLIENT_CAP,
    DRM_DROP_MASTER,
    DRM_VERSION,
    DRM_GEM_CLOSE,
    DRM_GET_CAP,
    DRM_SET_CLIENT_CAP,
    DRM_SET_MASTER,
    DRM_PRIME_HANDLE_TO_FD,
    DRM_PRIME_FD_TO_HANDLE,
    DRM_SYNCOBJ_CREATE,
    DRM_SYNCOBJ_DESTROY,
    DRM_SYNCOBJ_WAIT,
    DRM_SYNCOBJ_RESET,
    DRM_SYNCOBJ_SIGNAL,
    DRM_SYNCOBJ_TIMELINE_WAIT,
    DRM_SYNCOBJ_QUERY,
    DRM_SYNCOBJ_TRANSFER,
    DRM_SYNCOBJ_TIMELINE_SIGNAL,
    DRM_SYNCOBJ_HANDLE_TO_FD,
    DRM_SYNCOBJ_FD_TO_HANDLE,
    DRM_COMMAND_BASE + I915_GETPARAM,
    DRM_COMMAND_BASE + I915_GEM_BUSY,
    DRM_COMMAND_BASE + I915_GEM_THROTTLE,
    DRM_COMMAND_BASE + I915_GEM_CREATE,
    DRM_COMMAND_BASE + I915_GEM_PREAD,
    DRM_COMMAND_BASE + I915_GEM_PWRITE,
    DRM_COMMAND_BASE + I915_GEM_MMAP,
    DRM_COMMAND_BASE + I915_GEM_MMAP_GTT,
    DRM_COMMAND_BASE + I915_GEM_SET_DOMAIN,
    DRM_COMMAND_BASE + I915_GEM_SW_FINISH,
    DRM_COMMAND_BASE + I915_GEM_SET_TILING,
    DRM_COMMAND_BASE + I915_GEM_GET_TILING,
    DRM_COMMAND_BASE + I915_GEM_GET_APERTURE,
    DRM_COMMAND_BASE + I915_GEM_MADVISE,
    DRM_COMMAND_BASE + I915_GEM_EXECBUFFER2,
    DRM_COMMAND_BASE + I915_GEM_EXECBUFFER2,
    DRM_COMMAND_BASE + I915_GEM_EXECBUFFER2,
    DRM_COMMAND_BASE + I915_GEM_WAIT,
    DRM_COMMAND_BASE + I915_GEM_CONTEXT_CREATE,
    DRM_COMMAND_BASE + I915_GEM_CONTEXT_DESTROY,
    DRM_COMMAND_BASE + I915_GEM_SET_CACHING,
    DRM_COMMAND_BASE + I915_GEM_GET_CACHING,
    DRM_COMMAND_BASE + I915_REG_READ,
    DRM_COMMAND_BASE + I915_GET_RESET_STATS,
    DRM_COMMAND_BASE + I915_GEM_USERPTR,
    DRM_COMMAND_BASE + I915_GEM_CONTEXT_GETPARAM,
    DRM_COMMAND_BASE + I915_GEM_CONTEXT_SETPARAM,
    DRM_COMMAND_BASE + I915_QUERY,
    DRM_COMMAND_BASE + I915_GEM_CREATE_EXT,
];

/// The errors the kernel's handler for command `nr` (Linux 6.1) can return, besides
/// EFAULT from the argument copies. Commands the emulation does not answer are ENOTTY.
pub fn allowed(nr: u32) -> &'static [Errno] {
    use Errno as E;
    if decl(nr).is_none() {
        return &[E::ENOTTY];
    }
    if (DRM_COMMAND_BASE..DRM_COMMAND_END).contains(&nr) {
        return match nr - DRM_COMMAND_BASE {
            I915_GETPARAM => &[E::EINVAL, E::ENODEV],
            I915_GEM_CREATE => &[E::EINVAL, E::E2BIG, E::ENOMEM],
            // ENODEV: protected content without PXP.
            I915_GEM_CREATE_EXT => &[E::EINVAL, E::E2BIG, E::ENOMEM, E::ENODEV],
            I915_GEM_PREAD | I915_GEM_PWRITE => &[E::EINVAL, E::ENOENT],
            // ENXIO: a userptr object has no shmem file to map.
            I915_GEM_MMAP => &[E::EINVAL, E::ENOENT, E::ENOMEM, E::ENXIO],
            // ENXIO: a userptr object's tiling; EBUSY: a framebuffer's.
            I915_GEM_SET_TILING => &[E::EINVAL, E::ENOENT, E::ENXIO, E::EBUSY],
            I915_GEM_MMAP_GTT => &[
                E::EINVAL,
                E::ENOENT,
                E::ENODEV,
                E::ENOMEM,
                E::E2BIG,
                E::ENOSPC,
            ],
            // E2BIG: too long an extension chain (timeline fences). EIO: the context is
            // banned after a hang (eb_pin_engine's intel_context_is_banned, `ban.rs`).
            I915_GEM_EXECBUFFER2 => &[
                E::EIO,
                E::EINVAL,
                E::ENOENT,
                E::EPERM,
                E::ENOMEM,
                E::ENOSPC,
                E::E2BIG,
            ],
            // EPERM: raising a priority without CAP_SYS_NICE (Gen8+ scheduler).
            I915_GEM_CONTEXT_SETPARAM | I915_GEM_CONTEXT_GETPARAM => {
                &[E::EINVAL, E::ENOENT, E::ENODEV, E::EPERM]
            }
            // CONTEXT_CREATE_EXT's extensions carry SETPARAMs (E2BIG: too long a chain).
            // EIO: a client banned after repeated hangs (client_is_banned, `ban.rs`).
            I915_GEM_CONTEXT_CREATE => {
                &[E::EIO, E::EINVAL, E::ENOENT, E::ENODEV, E::EPERM, E::E2BIG]
            }
            // ENODEV without full PPGTT (Ivy Bridge).
            I915_GEM_VM_CREATE | I915_GEM_VM_DESTROY => &[E::EINVAL, E::ENOENT, E::ENODEV],
            // i915_gem_userptr_ioctl's checks (`Kernel::userptr`); ENOSPC: handles.
            I915_GEM_USERPTR => &[E::EINVAL, E::E2BIG, E::EFAULT, E::ENODEV, E::ENOSPC],
            I915_REG_READ | I915_QUERY => &[E::EINVAL],
            _ => &[E::EINVAL, E::ENOENT],
        };
    }
    match nr {
        DRM_PRIME_HANDLE_TO_FD => &[E::EINVAL, E::ENOENT, E::ENOMEM],
        // ENOMEM, ENOSPC: an object made again over an orphaned dma-buf (`Bo::from_dmabuf`).
        DRM_PRIME_FD_TO_HANDLE => &[E::EBADF, E::EINVAL, E::ENOENT, E::ENOMEM, E::ENOSPC],
        DRM_SYNCOBJ_WAIT | DRM_SYNCOBJ_TIMELINE_WAIT => {
            &[E::EINVAL, E::ENOENT, E::ENOMEM, E::ETIME]
        }
        DRM_SYNCOBJ_RESET
        | DRM_SYNCOBJ_SIGNAL
        | DRM_SYNCOBJ_TIMELINE_SIGNAL
        | DRM_SYNCOBJ_QUERY => &[E::EINVAL, E::ENOENT, E::ENOMEM],
        DRM_SYNCOBJ_TRANSFER => &[E::EINVAL, E::ENOENT, E::ETIME],
        DRM_SYNCOBJ_HANDLE_TO_FD | DRM_SYNCOBJ_FD_TO_HANDLE => &[E::EINVAL, E::ENOENT, E::ENOMEM],
        DRM_VERSION => &[],
        // drm_setclientcap: card0 only, known caps and values.
        DRM_SET_CLIENT_CAP => &[E::EACCES, E::EINVAL],
        DRM_SET_MASTER => &[E::EBUSY, E::EACCES],
        DRM_DROP_MASTER => &[E::EINVAL, E::EACCES],
        // The KMS ioctls (`crate::kms`): EACCES on the render node and for a file that
        // is not master; the DRM core's checks otherwise.
        crate::kms::MODE_GETRESOURCES | crate::kms::MODE_GETPLANERESOURCES => &[E::EACCES],
        crate::kms::WAIT_VBLANK => &[E::EACCES, E::EINVAL, E::ENOMEM],
        crate::kms::MODE_GETCRTC
        | crate::kms::MODE_GETENCODER
        | crate::kms::MODE_GETCONNECTOR
        | crate::kms::MODE_GETPLANE
        | crate::kms::MODE_RMFB => &[E::EACCES, E::ENOENT],
        // EINVAL: a two-plane (CCS) framebuffer needs GETFB2.
        crate::kms::MODE_GETFB => &[E::EACCES, E::ENOENT, E::ENOSPC, E::EINVAL],
        crate::kms::MODE_SETCRTC => &[E::EACCES, E::ENOENT, E::EINVAL, E::ENOSPC, E::ERANGE],
        crate::kms::MODE_PAGE_FLIP => &[
            E::EACCES,
            E::ENOENT,
            E::EINVAL,
            E::ENOSPC,
            E::ENOMEM,
            E::EBUSY,
        ],
        crate::kms::MODE_ADDFB | crate::kms::MODE_ADDFB2 => {
            &[E::EACCES, E::ENOENT, E::EINVAL, E::ENOSPC, E::ERANGE]
        }
        crate::kms::MODE_CREATE_DUMB => &[E::EACCES, E::EINVAL, E::E2BIG, E::ENOMEM, E::ENOSPC],
        crate::kms::MODE_MAP_DUMB => &[E::EACCES, E::ENOENT],
        crate::kms::MODE_DESTROY_DUMB => &[E::EACCES, E::EINVAL],
        crate::kms::MODE_GETPROPERTY | crate::kms::MODE_GETPROPBLOB => &[E::EACCES, E::ENOENT],
        crate::kms::MODE_GETGAMMA | crate::kms::MODE_SETGAMMA => &[E::EACCES, E::ENOENT, E::EINVAL],
        crate::kms::MODE_OBJ_GETPROPERTIES => &[E::EACCES, E::ENOENT, E::EINVAL],
        crate::kms::MODE_CREATEPROPBLOB => &[E::EACCES, E::EINVAL, E::ENOMEM, E::ENOSPC],
        crate::kms::MODE_DESTROYPROPBLOB => &[E::EACCES, E::ENOENT, E::EPERM],
        // The atomic checks (`crate::kms`'s atomic.rs); ENOMEM also the model's bound
        // on a request's properties.
        crate::kms::MODE_ATOMIC => &[
            E::EACCES,
            E::EINVAL,
            E::ENOENT,
            E::ENOSPC,
            E::ERANGE,
            E::ENOMEM,
        ],
        crate::kms::MODE_OBJ_SETPROPERTY
        | crate::kms::MODE_SETPROPERTY
        | crate::kms::MODE_SETPLANE
        | crate::kms::MODE_CURSOR
        | crate::kms::MODE_CURSOR2 => &[E::EACCES, E::EINVAL, E::ENOENT, E::ENOSPC, E::ERANGE],
        _ => &[E::EINVAL, E::ENOENT],
    }
}

/// One case's request, for the failure report.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// The seed that replays it.
    pub seed: u64,
    /// The request number.
    pub req: u64,
    /// The argument pointer.
    pub arg: u64,
}

struct Harness {
    k: Kernel,
    arena: Arena,
}

impl Harness {
    /// A harness on `platform`'s kernel (the campaign alternates Ivy Bridge and Ice Lake
    /// between resets, so the Gen8+ uapi — softpin, VMs, engine maps, context-creation
    /// extensions, queries — is fuzzed too).
    fn new((platform, node): (crate::platform::Platform, Node)) -> Harness {
        let mut k = Kernel::for_platform(platform);
        k.device.limits.max_commands = MAX_COMMANDS;
        // A 64x64 display, so that the harness's small objects hold its framebuffers,
        // and no frames written.
        k.kms.modes = vec![crate::kms::ModeInfo::new(64, 64, true)];
        k.kms.state.crtc.mode = Some(k.kms.modes[0]);
        k.kms.realtime = None;
        k.kms.display = None;
        // card0 (its first file is master: the KMS ioctls run) or the render node.
        k.open_file(FD, node);
        let mut h = Harness {
            k,
            arena: Arena::new(),
        };
        h.populate();
        h
    }

    /// A few objects, a context and syncobjs so that small handles are often valid.
    fn populate(&mut self) {
        let at = self.arena.addr();
        for size in [4096u64, 8192, 65536] {
            self.arena.put(0, size);
            self.arena.put(8, 0);
            let r = self
                .k
                .ioctl(FD, iowr_req(DRM_COMMAND_BASE + I915_GEM_CREATE, 16), at);
            assert_eq!(r, Ok(()), "harness setup: GEM_CREATE");
        }
        // Object 1 ends at once (MI_BATCH_BUFFER_END), object 2 after 64 bytes of
        // MI_NOOP, object 3 runs off its end into a fault.
        for (handle, offset) in [(1u64, 0u64), (2, 64)] {
            self.arena.put(64, 0x0500_0000);
            self.arena.put(0, handle);
            self.arena.put(8, offset);
            self.arena.put(16, 8);
            self.arena.put(24, at + 64);
            let r = self
                .k
                .ioctl(FD, iowr_req(DRM_COMMAND_BASE + I915_GEM_PWRITE, 32), at);
            assert_eq!(r, Ok(()), "harness setup: PWRITE");
        }
        self.arena.put(0, 0);
        self.arena.put(8, 0);
        let r = self.k.ioctl(
            FD,
            iowr_req(DRM_COMMAND_BASE + I915_GEM_CONTEXT_CREATE, 8),
            at,
        );
        assert_eq!(r, Ok(()), "harness setup: CONTEXT_CREATE");
        for flags in [0u64, 1 << 32] {
            self.arena.put(0, flags);
            let r = self.k.ioctl(FD, iowr_req(DRM_SYNCOBJ_CREATE, 8), at);
            assert_eq!(r, Ok(()), "harness setup: SYNCOBJ_CREATE");
        }
    }

    /// An interesting pointer.
    fn pointer(&self, rng: &mut Rng) -> u64 {
        let a = self.arena.addr();
        match rng.below(16) {
            0 => 0,
            1 => rng.below(0x10000),
            2 => self.arena.readonly() + rng.below(4096),
            3 => self.arena.guard() + rng.below(4096),
            4 => self.arena.readonly() - 8 * rng.below(8),
            5 => crate::user::TASK_SIZE_MAX - rng.below(64),
            6 => 1 << 47 | rng.below(1 << 20),
            7 => rng.next_u64(),
            _ => a + rng.below(ARENA as u64) / 8 * 8,
        }
    }

    /// An interesting 64-bit word.
    fn word(&self, rng: &mut Rng) -> u64 {
        let small = |rng: &mut Rng| rng.below(8);
        match rng.below(20) {
            0..=3 => small(rng) | small(rng) << 32,
            4 => 0,
            5 => u64::MAX,
            6 => 1 << rng.below(64),
            7 => (rng.below(64) + 1) * 4096 + [0, 0, 1, 4095][rng.below(4) as usize],
            8 => [
                1 << 31,
                (1 << 31) + 1,
                1 << 40,
                u64::MAX - 4095,
                0x7fff_ffff,
            ][rng.below(5) as usize],
            9..=11 => self.pointer(rng),
            12 => rng.below(1 << 16) << 32 | rng.below(1 << 16),
            13 => 0x0500_0000 | (rng.below(4) << 32), // MI_BATCH_BUFFER_END
            _ => rng.next_u64(),
        }
    }

    fn scribble(&self, rng: &mut Rng, at: usize, words: usize) {
        for i in 0..words {
            let w = self.word(rng);
            self.arena.put(at + 8 * i, w);
        }
    }

    /// Runs one case; returns the request, the pointer and the result.
    fn case(&mut self, seed: u64) -> (Case, Result<(), Errno>) {
        let mut rng = Rng(seed);
        let nr = if rng.one_in(8) {
            rng.below(256) as u32
        } else {
            KNOWN[rng.below(KNOWN.len() as u64) as usize]
        };
        let ty = if rng.one_in(50) {
            rng.below(256)
        } else {
            DRM_IOCTL_BASE as u64
        };
        let kernel_size = decl(nr).map_or(16, |d| d.size) as u64;
        let size = match rng.below(8) {
            0 => rng.below(kernel_size + 1),
            1 => kernel_size + rng.below(64),
            2 => rng.below(1 << 14),
            _ => kernel_size,
        };
        let dir = if rng.one_in(4) { rng.below(4) } else { 3 };
        let req = dir << 30 | size << 16 | ty << 8 | nr as u64;
        // Most arguments sit in the arena, some straddle its end or point anywhere.
        let arg = if rng.one_in(10) {
            self.pointer(&mut rng)
        } else {
            let room = ARENA as u64 - 1024;
            self.arena.addr() + rng.below(room) / 8 * 8
        };
        // Either a well-formed argument with a few words mutated (to get past the first
        // checks), or words scribbled over the argument and places its pointers reach.
        let arg = if rng.one_in(2) && ty == DRM_IOCTL_BASE as u64 {
            let arg = self.arena.addr() + rng.below(TEMPLATE_ARGS as u64) / 8 * 8;
            let at = (arg - self.arena.addr()) as usize;
            self.template(&mut rng, nr, at);
            for _ in 0..rng.below(4) {
                let region = [at, OBJECTS, RELOCS, FENCES, HANDLES][rng.below(5) as usize];
                let w = region + 8 * rng.below(8) as usize;
                let v = if rng.one_in(2) {
                    self.arena.get(w) ^ 1 << rng.below(64)
                } else {
                    self.word(&mut rng)
                };
                self.arena.put(w, v);
            }
            arg
        } else {
            if (self.arena.addr()..self.arena.readonly()).contains(&arg) {
                self.scribble(&mut rng, (arg - self.arena.addr()) as usize, 16);
            }
            for _ in 0..4 {
                let at = rng.below(ARENA as u64) as usize / 8 * 8;
                let words = 8 + rng.below(64) as usize;
                self.scribble(&mut rng, at, words);
            }
            arg
        };
        self.keep_from_leaking(nr, req, arg);
        let r = self.k.ioctl(FD, req, arg);
        (Case { seed, req, arg }, r)
    }

    /// A well-formed KMS argument (`crate::kms`'s structures) at byte `at`: the fixed
    /// object ids most of the time, framebuffer ids from 100, 64x64 framebuffers in the
    /// harness's objects (the third holds one linear or X-tiled), the display's mode.
    fn kms_template(&self, rng: &mut Rng, nr: u32, at: usize) {
        use crate::kms::*;
        let a = self.arena.addr();
        let fb = |rng: &mut Rng| 100 + rng.below(4) as u32;
        let handle = |rng: &mut Rng| 1 + rng.below(3) as u32;
        let small = |rng: &mut Rng| rng.below(4) as u32;
        let id = |rng: &mut Rng, good: u32| {
            if rng.one_in(8) {
                rng.below(128) as u32
            } else {
                good
            }
        };
        // The structure's bytes into the arena, a word at a time.
        let write = |bytes: &[u8]| {
            for (i, chunk) in bytes.chunks(8).enumerate() {
                let mut w = [0u8; 8];
                w[..chunk.len()].copy_from_slice(chunk);
                self.arena.put(at + 8 * i, u64::from_le_bytes(w));
            }
        };
        fn bytes_of<T: Copy>(v: &T) -> Vec<u8> {
            // SAFETY: the KMS argument structures are plain old data (repr(C), integers
            // and arrays of them), read for their size.
            unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), size_of::<T>()) }
                .to_vec()
        }
        match nr {
            MODE_GETRESOURCES => write(&bytes_of(&CardRes {
                fb_id_ptr: a + HANDLES as u64,
                crtc_id_ptr: a + HANDLES as u64 + 64,
                connector_id_ptr: a + HANDLES as u64 + 128,
                encoder_id_ptr: a + HANDLES as u64 + 192,
                count_fbs: small(rng),
                count_crtcs: small(rng),
                count_connectors: small(rng),
                count_encoders: small(rng),
                ..CardRes::default()
            })),
            MODE_GETCONNECTOR => write(&bytes_of(&GetConnector {
                encoders_ptr: a + HANDLES as u64,
                modes_ptr: a + FENCES as u64,
                props_ptr: a + HANDLES as u64 + 64,
                prop_values_ptr: a + HANDLES as u64 + 128,
                count_modes: small(rng),
                count_encoders: small(rng),
                connector_id: id(rng, CONNECTOR),
                ..GetConnector::default()
            })),
            MODE_GETCRTC => write(&bytes_of(&ModeCrtc {
                crtc_id: id(rng, CRTC),
                ..ModeCrtc::default()
            })),
            MODE_GETENCODER => write(&bytes_of(&GetEncoder {
                encoder_id: id(rng, ENCODER),
                ..GetEncoder::default()
            })),
            MODE_GETPLANERESOURCES => write(&bytes_of(&GetPlaneRes {
                plane_id_ptr: a + HANDLES as u64,
                count_planes: small(rng),
            })),
            MODE_GETPLANE => {
                let plane = [PRIMARY_PLANE, CURSOR_PLANE][rng.below(2) as usize];
                write(&bytes_of(&GetPlane {
                    plane_id: id(rng, plane),
                    count_format_types: rng.below(8) as u32,
                    format_type_ptr: a + HANDLES as u64,
                    ..GetPlane::default()
                }))
            }
            MODE_SETCRTC => {
                self.arena.put(HANDLES, u64::from(id(rng, CONNECTOR)));
                write(&bytes_of(&ModeCrtc {
                    set_connectors_ptr: a + HANDLES as u64,
                    count_connectors: if rng.one_in(4) {
                        rng.below(3) as u32
                    } else {
                        1
                    },
                    crtc_id: id(rng, CRTC),
                    fb_id: if rng.one_in(8) { 0 } else { fb(rng) },
                    mode_valid: u32::from(!rng.one_in(8)),
                    // The display's mode (the harness's 64x64), as GETCONNECTOR gives it.
                    mode: ModeInfo::new(64, 64, true),
                    ..ModeCrtc::default()
                }))
            }
            MODE_ADDFB2 => {
                let modifiers = rng.one_in(2);
                write(&bytes_of(&FbCmd2 {
                    width: 64,
                    height: 64,
                    pixel_format: [XRGB8888, ARGB8888, RGB565, 0x3231_564e][rng.below(4) as usize],
                    flags: u32::from(modifiers) * 2,
                    // Mostly the harness's 64 KiB object, which holds a 64x64 frame.
                    handles: [if rng.one_in(3) { handle(rng) } else { 3 }, 0, 0, 0],
                    pitches: [[256, 256, 512, 128, 4096][rng.below(5) as usize], 0, 0, 0],
                    modifier: [
                        if modifiers {
                            [MOD_LINEAR, MOD_X_TILED, MOD_Y_TILED, 7][rng.below(4) as usize]
                        } else {
                            0
                        },
                        0,
                        0,
                        0,
                    ],
                    ..FbCmd2::default()
                }))
            }
            MODE_ADDFB => write(&bytes_of(&FbCmd {
                width: 64,
                height: 64,
                pitch: [256, 512, 128][rng.below(3) as usize],
                bpp: [32, 16][rng.below(2) as usize],
                depth: [24, 32, 16][rng.below(3) as usize],
                handle: handle(rng),
                ..FbCmd::default()
            })),
            MODE_GETFB | MODE_RMFB => self.arena.put(at, u64::from(fb(rng))),
            MODE_PAGE_FLIP => write(&bytes_of(&PageFlip {
                crtc_id: id(rng, CRTC),
                fb_id: fb(rng),
                flags: rng.below(4) as u32,
                reserved: 0,
                user_data: rng.next_u64(),
            })),
            MODE_CREATE_DUMB => write(&bytes_of(&CreateDumb {
                height: 1 + rng.below(64) as u32,
                width: 1 + rng.below(64) as u32,
                bpp: [32, 16, 8, 0][rng.below(4) as usize],
                ..CreateDumb::default()
            })),
            MODE_MAP_DUMB | MODE_DESTROY_DUMB => self.arena.put(at, u64::from(handle(rng))),
            MODE_SETPLANE => write(&bytes_of(&SetPlane {
                plane_id: {
                    let plane = [PRIMARY_PLANE, CURSOR_PLANE][rng.below(2) as usize];
                    id(rng, plane)
                },
                crtc_id: id(rng, CRTC),
                fb_id: if rng.one_in(4) { 0 } else { fb(rng) },
                crtc_x: rng.below(5) as i32 - 2,
                crtc_y: rng.below(5) as i32 - 2,
                crtc_w: 64 >> rng.below(2),
                crtc_h: 64 >> rng.below(2),
                src_x: (rng.below(2) as u32) << 16,
                src_y: 0,
                src_h: (64 >> rng.below(2)) << 16,
                src_w: (64 >> rng.below(2)) << 16,
                ..SetPlane::default()
            })),
            MODE_CURSOR | MODE_CURSOR2 => write(&bytes_of(&Cursor {
                flags: rng.below(4) as u32,
                crtc_id: id(rng, CRTC),
                x: rng.below(80) as i32 - 8,
                y: rng.below(80) as i32 - 8,
                width: [64, 64, 32, 128][rng.below(4) as usize],
                height: [64, 64, 32][rng.below(3) as usize],
                handle: if rng.one_in(4) { 0 } else { handle(rng) },
                hot_x: 0,
                hot_y: 0,
            })),
            MODE_GETPROPERTY => write(&bytes_of(&GetProperty {
                values_ptr: a + HANDLES as u64,
                enum_blob_ptr: a + FENCES as u64,
                prop_id: rng.below(25) as u32,
                count_values: small(rng),
                count_enum_blobs: small(rng),
                ..GetProperty::default()
            })),
            MODE_GETPROPBLOB => write(&bytes_of(&GetBlob {
                blob_id: [33, 34, 100, 101, 102, 103][rng.below(6) as usize],
                length: [0, 68, 4, 200][rng.below(4) as usize],
                data: a + FENCES as u64,
            })),
            MODE_OBJ_GETPROPERTIES => write(&bytes_of(&ObjGetProperties {
                props_ptr: a + HANDLES as u64,
                prop_values_ptr: a + FENCES as u64,
                count_props: rng.below(16) as u32,
                obj_id: self.kms_object(rng),
                obj_type: [0, props::OBJECT_PLANE, props::OBJECT_CRTC][rng.below(3) as usize],
                pad: 0,
            })),
            MODE_OBJ_SETPROPERTY => {
                let obj = self.kms_object(rng);
                let prop = rng.below(23) as u32;
                write(&bytes_of(&ObjSetProperty {
                    value: self.kms_value(rng, prop),
                    prop_id: prop,
                    obj_id: obj,
                    obj_type: 0,
                    pad: 0,
                }))
            }
            MODE_SETPROPERTY => write(&bytes_of(&ConnectorSetProperty {
                value: rng.below(4),
                prop_id: id(rng, props::DPMS),
                connector_id: id(rng, CONNECTOR),
            })),
            MODE_CREATEPROPBLOB => {
                // A 64x64 mode (the harness's display) or a few bytes.
                let mode = bytes_of(&ModeInfo::new(64, 64, true));
                for (i, chunk) in mode.chunks(8).enumerate() {
                    let mut w = [0u8; 8];
                    w[..chunk.len()].copy_from_slice(chunk);
                    self.arena.put(FENCES + 8 * i, u64::from_le_bytes(w));
                }
                write(&bytes_of(&CreateBlob {
                    data: a + FENCES as u64,
                    length: [68, 68, 3, 0][rng.below(4) as usize],
                    blob_id: 0,
                }))
            }
            MODE_DESTROYPROPBLOB => self.arena.put(at, 100 + rng.below(6)),
            // The three tables in the FENCES region (512 bytes each).
            MODE_GETGAMMA | MODE_SETGAMMA => write(&bytes_of(&CrtcLut {
                crtc_id: id(rng, CRTC),
                gamma_size: [256, 256, 255, 1024][rng.below(4) as usize],
                red: a + FENCES as u64,
                green: a + FENCES as u64 + 512,
                blue: a + FENCES as u64 + 1024,
            })),
            MODE_ATOMIC => {
                // Up to three objects with up to four properties each, in the arrays
                // at HANDLES; OUT_FENCE_PTR points at the out-fence slot.
                let n = 1 + rng.below(3) as usize;
                let (mut objs, mut counts, mut ids, mut values) = (vec![], vec![], vec![], vec![]);
                // Half the time a whole flip, as kmscube commits it (a 64x64 plane on
                // the CRTC), with an out-fence now and then.
                let whole = rng.one_in(2);
                if whole {
                    use crate::kms::props::*;
                    let plane = [PRIMARY_PLANE, CURSOR_PLANE][usize::from(rng.one_in(4))];
                    let fb = 100 + rng.below(4);
                    let sizes = [64u64 << 16, 64 << 16, 64, 64];
                    objs.push(plane);
                    counts.push(10);
                    ids.extend([
                        FB_ID, CRTC_ID, SRC_X, SRC_Y, SRC_W, SRC_H, CRTC_X, CRTC_Y, CRTC_W, CRTC_H,
                    ]);
                    values.extend([
                        fb,
                        u64::from(CRTC),
                        0,
                        0,
                        sizes[0],
                        sizes[1],
                        0,
                        0,
                        sizes[2],
                        sizes[3],
                    ]);
                    if rng.one_in(3) {
                        objs.push(CRTC);
                        counts.push(1);
                        ids.push(OUT_FENCE_PTR);
                        values.push(a + OUT_FENCE_SLOT as u64);
                    }
                }
                for _ in 0..if whole { 0 } else { n } {
                    let obj = self.kms_object(rng);
                    let count = 1 + rng.below(4) as u32;
                    objs.push(obj);
                    counts.push(count);
                    for _ in 0..count {
                        let prop = match props::attached(obj) {
                            Some(p) if !rng.one_in(8) => p[rng.below(p.len() as u64) as usize],
                            _ => rng.below(23) as u32,
                        };
                        ids.push(prop);
                        values.push(self.kms_value(rng, prop));
                    }
                }
                let put_u32s = |off: usize, v: &[u32]| {
                    for (i, pair) in v.chunks(2).enumerate() {
                        let hi = pair.get(1).copied().unwrap_or(0);
                        self.arena
                            .put(off + 8 * i, u64::from(pair[0]) | u64::from(hi) << 32);
                    }
                };
                put_u32s(HANDLES, &objs);
                put_u32s(HANDLES + 64, &counts);
                put_u32s(HANDLES + 128, &ids);
                for (i, v) in values.iter().enumerate() {
                    self.arena.put(HANDLES + 256 + 8 * i, *v);
                }
                let flags = [0, 0x400, 0x200, 0x100, 1, 0x401, 0x201, 2][rng.below(8) as usize];
                write(&bytes_of(&Atomic {
                    flags,
                    count_objs: objs.len() as u32,
                    objs_ptr: a + HANDLES as u64,
                    count_props_ptr: a + HANDLES as u64 + 64,
                    props_ptr: a + HANDLES as u64 + 128,
                    prop_values_ptr: a + HANDLES as u64 + 256,
                    reserved: 0,
                    user_data: rng.next_u64(),
                }))
            }
            WAIT_VBLANK => write(&bytes_of(&WaitVblank {
                kind: [0, 1, 0x0400_0001, 0x1000_0000, 2][rng.below(5) as usize],
                sequence: rng.below(4) as u32,
                signal: rng.next_u64(),
                usec: 0,
            })),
            _ => {}
        }
    }

    /// A KMS object id: mostly one with properties, sometimes another or none.
    fn kms_object(&self, rng: &mut Rng) -> u32 {
        use crate::kms::*;
        [
            CONNECTOR,
            CRTC,
            PRIMARY_PLANE,
            CURSOR_PLANE,
            ENCODER,
            100,
            7,
        ][rng.below(7) as usize]
    }

    /// A value for KMS property `prop`: mostly one that fits it (the harness's 64x64
    /// display, framebuffers and blobs from 100, the out-fence slot).
    fn kms_value(&self, rng: &mut Rng, prop: u32) -> u64 {
        use crate::kms::props::*;
        if rng.one_in(10) {
            return rng.next_u64();
        }
        match prop {
            FB_ID => 100 + rng.below(6),
            CRTC_ID => [crate::kms::CRTC, 0][rng.below(2) as usize].into(),
            SRC_X | SRC_Y => (rng.below(2)) << 16,
            SRC_W | SRC_H => (64 >> rng.below(2)) << 16,
            CRTC_X | CRTC_Y => (rng.below(5) as i64 - 2) as u64,
            CRTC_W | CRTC_H => 64 >> rng.below(2),
            MODE_ID => [0, 100, 101, 102, 103, 104][rng.below(6) as usize],
            OUT_FENCE_PTR => self.arena.addr() + OUT_FENCE_SLOT as u64,
            IN_FENCE_FD => u64::MAX,
            _ => rng.below(3),
        }
    }

    /// Writes a well-formed argument for command `nr` at byte `at` of the arena, with its
    /// arrays in the fixed regions; handles 1-3 name the harness's objects, 1-2 its
    /// syncobjs, context 1 its context.
    fn template(&self, rng: &mut Rng, nr: u32, at: usize) {
        let a = self.arena.addr();
        let handle = |rng: &mut Rng| 1 + rng.below(3);
        let put32 = |w: usize, lo: u64, hi: u64| self.arena.put(w, lo | hi << 32);
        for i in 0..8 {
            self.arena.put(at + 8 * i, 0);
        }
        if Kernel::is_kms(nr) {
            for i in 8..14 {
                self.arena.put(at + 8 * i, 0);
            }
            self.kms_template(rng, nr, at);
            return;
        }
        match nr.wrapping_sub(DRM_COMMAND_BASE) {
            I915_GEM_EXECBUFFER2 => {
                let n = 1 + rng.below(3) as usize;
                let lut = rng.one_in(2);
                // Objects: distinct handles, the last one the batch with relocations.
                let first = handle(rng);
                for i in 0..n {
                    let o = OBJECTS + 56 * i;
                    for w in 0..7 {
                        self.arena.put(o + 8 * w, 0);
                    }
                    let h = (first + i as u64 - 1) % 3 + 1;
                    let nrel = if i == n - 1 { rng.below(5) } else { 0 };
                    put32(o, h, nrel);
                    self.arena.put(o + 8, a + RELOCS as u64);
                    if rng.one_in(4) {
                        self.arena.put(o + 16, 1 << rng.below(16)); // alignment
                    }
                    if rng.one_in(4) {
                        self.arena.put(o + 32, 1 << rng.below(8)); // flags
                    }
                }
                for j in 0..4 {
                    let r = RELOCS + 32 * j;
                    let target = if lut {
                        rng.below(n as u64)
                    } else {
                        handle(rng)
                    };
                    put32(r, target, rng.below(0x1000));
                    self.arena.put(r + 8, rng.below(1024) * 4);
                    self.arena.put(r + 16, 0);
                    put32(r + 24, 2 * rng.below(2), 2 * rng.below(2));
                }
                let mut flags = [0, I915_EXEC_RENDER][rng.below(2) as usize];
                if lut {
                    flags |= I915_EXEC_HANDLE_LUT;
                }
                if rng.one_in(3) {
                    flags |= I915_EXEC_NO_RELOC;
                }
                if rng.one_in(4) {
                    flags |= I915_EXEC_BATCH_FIRST;
                }
                if rng.one_in(4) {
                    flags |= I915_EXEC_FENCE_OUT;
                }
                self.arena.put(at, a + OBJECTS as u64);
                put32(at + 8, n as u64, 0); // buffer_count, batch_start_offset
                put32(at + 16, 8 * rng.below(4), 0); // batch_len, DR1
                if rng.one_in(3) {
                    flags |= I915_EXEC_FENCE_ARRAY;
                    let nf = 1 + rng.below(3);
                    for f in 0..nf as usize {
                        put32(FENCES + 8 * f, 1 + rng.below(2), 1 + rng.below(3));
                    }
                    put32(at + 24, nf, 0); // num_cliprects
                    self.arena.put(at + 32, a + FENCES as u64);
                }
                self.arena.put(at + 40, flags);
                self.arena.put(at + 48, rng.below(2)); // context
            }
            I915_GEM_PREAD | I915_GEM_PWRITE => {
                put32(at, handle(rng), 0);
                self.arena.put(at + 8, rng.below(16) * 512);
                self.arena.put(at + 16, rng.below(8192));
                self.arena.put(at + 24, a + HANDLES as u64);
            }
            I915_GEM_MMAP => {
                put32(at, handle(rng), 0);
                self.arena.put(at + 16, 4096);
                self.arena.put(at + 32, rng.below(2));
            }
            I915_GEM_CREATE => self.arena.put(at, rng.below(1 << 20)),
            I915_GEM_CREATE_EXT => {
                // Size, then no handle and flags 0 or NEEDS_CPU_ACCESS; the extension
                // chain empty or a MEMORY_REGIONS header naming system memory or
                // another region (or garbage, where the name or list is random).
                self.arena.put(at, rng.below(1 << 20));
                put32(at + 8, 0, rng.below(2));
                if rng.below(2) == 0 {
                    self.arena.put(at + 16, 0);
                } else {
                    let ext = HANDLES + 64;
                    self.arena.put(ext, 0);
                    put32(ext + 8, rng.below(3), 0);
                    self.arena.put(ext + 16, 0);
                    self.arena.put(ext + 24, 0);
                    put32(ext + 32, 0, 1 + rng.below(2));
                    self.arena.put(ext + 40, a + HANDLES as u64);
                    put32(HANDLES, rng.below(2), 0);
                    self.arena.put(at + 16, a + ext as u64);
                }
            }
            I915_GEM_SET_TILING => {
                put32(at, handle(rng), rng.below(3));
                put32(at + 8, 512 * rng.below(8), 0);
            }
            I915_GEM_CONTEXT_GETPARAM | I915_GEM_CONTEXT_SETPARAM => {
                put32(at, rng.below(2), 0);
                self.arena.put(at + 8, rng.below(10));
                self.arena.put(at + 16, rng.below(2));
            }
            _ if nr == DRM_SYNCOBJ_WAIT => {
                let n = 1 + rng.below(3);
                for i in 0..n as usize {
                    put32(HANDLES + 4 * i, 1 + rng.below(2), 0);
                }
                self.arena.put(at, a + HANDLES as u64);
                put32(at + 16, n, rng.below(4));
            }
            _ if nr == DRM_SYNCOBJ_RESET || nr == DRM_SYNCOBJ_SIGNAL => {
                let n = 1 + rng.below(2);
                put32(HANDLES, 1, 2);
                self.arena.put(at, a + HANDLES as u64);
                put32(at + 8, n, 0);
            }
            _ if nr == DRM_PRIME_HANDLE_TO_FD => put32(at, handle(rng), libc::O_CLOEXEC as u64),
            // Mostly the atomic cap (which opens ATOMIC) or universal planes.
            _ if nr == DRM_SET_CLIENT_CAP => {
                self.arena
                    .put(at, [3, 3, 2, 1, 4, 5, 9][rng.below(7) as usize]);
                self.arena
                    .put(at + 8, [1, 1, 2, 0, 3][rng.below(5) as usize]);
            }
            _ => put32(at, handle(rng), rng.below(4)),
        }
    }

    /// Whether the argument of `req` at `arg` is copied back whole into the arena (so
    /// [`Harness::release`] can see what a call handed out).
    fn out_lands(&self, req: u64, arg: u64) -> bool {
        let a = self.arena.addr();
        crate::uapi::dir(req) & IOC_READ != 0
            && arg >= a
            && arg + crate::uapi::size(req) as u64 <= a + ARENA as u64
    }

    /// Calls that hand out fds or mappings are kept from succeeding unseen: a dma-buf fd,
    /// an out-fence or a CPU mapping the harness cannot learn of would leak with every
    /// case (the kernel leaks them the same way, but a long campaign would run out).
    fn keep_from_leaking(&self, nr: u32, req: u64, arg: u64) {
        if self.out_lands(req, arg) {
            return;
        }
        let at = arg.wrapping_sub(self.arena.addr()) as usize;
        match nr.wrapping_sub(DRM_COMMAND_BASE) {
            I915_GEM_EXECBUFFER2 => {
                let flags = self.arena.get(at.wrapping_add(48));
                self.arena
                    .put(at.wrapping_add(48), flags & !I915_EXEC_FENCE_OUT);
            }
            I915_GEM_MMAP => self.arena.put(at.wrapping_add(16), 0),
            _ if nr == DRM_PRIME_HANDLE_TO_FD => {
                let handle_flags = self.arena.get(at);
                self.arena.put(at, handle_flags & !0xffff_ffff);
            }
            _ => {}
        }
    }

    /// Releases what a successful case handed out (fds, mappings).
    fn release(&mut self, c: &Case) {
        // An atomic commit's out-fence, wherever its pointer sent the fd.
        if let Some(fd) = self.k.kms.last_out_fence.take() {
            // SAFETY: closing the out-fence fd the commit created.
            unsafe { libc::close(fd) };
        }
        let nr = crate::uapi::nr(c.req);
        let out = crate::uapi::dir(c.req) & IOC_READ != 0
            && (self.arena.addr()..self.arena.readonly()).contains(&c.arg);
        if !out {
            return;
        }
        let at = (c.arg - self.arena.addr()) as usize;
        if nr == DRM_PRIME_HANDLE_TO_FD && crate::uapi::size(c.req) >= 12 {
            let fd = (self.arena.get(at + 8) & 0xffff_ffff) as i32;
            if fd > 2 {
                // SAFETY: closing the dma-buf fd the ioctl created.
                unsafe { libc::close(fd) };
            }
        }
        if nr == DRM_SYNCOBJ_HANDLE_TO_FD && crate::uapi::size(c.req) >= 12 {
            let fd = (self.arena.get(at + 8) & 0xffff_ffff) as i32;
            if fd > 2 {
                // SAFETY: closing the syncobj or sync_file fd the ioctl created.
                unsafe { libc::close(fd) };
            }
        }
        if nr == DRM_COMMAND_BASE + I915_GEM_EXECBUFFER2 && crate::uapi::size(c.req) >= 64 {
            let fd = (self.arena.get(at + 56) >> 32) as i32;
            if fd > 2 && self.arena.get(at + 48) & I915_EXEC_FENCE_OUT != 0 {
                // SAFETY: closing the out-fence fd the ioctl created.
                unsafe { libc::close(fd) };
            }
        }
        if nr == DRM_COMMAND_BASE + I915_GEM_MMAP && crate::uapi::size(c.req) >= 32 {
            let (len, addr) = (self.arena.get(at + 16), self.arena.get(at + 24));
            // SAFETY: unmapping the mapping the ioctl created (and reported).
            unsafe { libc::munmap(addr as *mut libc::c_void, len as usize) };
        }
    }

    /// The kernel's bookkeeping: every handle names a live object, every bound object is
    /// in the address map, reference counts add up.
    fn check_consistency(&self) -> Result<(), String> {
        let mut refs = std::collections::BTreeMap::<u64, u32>::new();
        for f in self.k.files.values() {
            for id in f.handles.values() {
                if !self.k.bos.contains_key(id) {
                    return Err(format!("handle to a freed object {id}"));
                }
                *refs.entry(*id).or_default() += 1;
            }
        }
        // A framebuffer holds its object too (`crate::kms`).
        for f in self.k.kms.fbs.values() {
            if !self.k.bos.contains_key(&f.bo) {
                return Err(format!("framebuffer of a freed object {}", f.bo));
            }
            *refs.entry(f.bo).or_default() += 1;
        }
        for (id, bo) in &self.k.bos {
            if refs.get(id).copied().unwrap_or(0) != bo.refs {
                return Err(format!(
                    "object {id}: {} refs, {:?} handles",
                    bo.refs,
                    refs.get(id)
                ));
            }
            if let Some(a) = bo.gpu
                && self.k.bound.get(&a) != Some(id)
            {
                return Err(format!("object {id} bound at {a:#x} but not in the map"));
            }
        }
        Ok(())
    }
}

fn iowr_req(nr: u32, size: usize) -> u64 {
    3 << 30 | (size as u64) << 16 | (DRM_IOCTL_BASE as u64) << 8 | nr as u64
}

/// What a campaign found.
#[derive(Debug, Default)]
pub struct Report {
    /// Cases run.
    pub cases: u64,
    /// Calls that succeeded.
    pub ok: u64,
    /// Errors by errno.
    pub errors: std::collections::BTreeMap<i32, u64>,
    /// Successes and errors by DRM command number (0x100: another ioctl family).
    pub by_nr: std::collections::BTreeMap<u32, (u64, u64)>,
    /// Failures: panics, errnos the kernel would not return, broken bookkeeping.
    pub failures: Vec<String>,
}

/// Runs `cases` cases from seed `seed`.
pub fn campaign(seed: u64, cases: u64) -> Report {
    let mut report = Report::default();
    let platform = |i: u64| {
        let platform = if (i / RESET_EVERY) % 2 == 1 {
            crate::platform::Platform::IceLake
        } else {
            crate::platform::Platform::IvyBridge
        };
        let node = if (i / RESET_EVERY / 2) % 2 == 1 {
            Node::Primary
        } else {
            Node::Render
        };
        (platform, node)
    };
    let mut h = Harness::new(platform(0));
    for i in 0..cases {
        if i > 0 && i % RESET_EVERY == 0 {
            h = Harness::new(platform(i));
        }
        let case_seed = seed.wrapping_add(i);
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::muted(|| h.case(case_seed))
        }));
        report.cases += 1;
        let (c, r) = match run {
            Ok(x) => x,
            Err(_) => {
                report
                    .failures
                    .push(format!("seed {case_seed}: panic inside the emulation"));
                h = Harness::new(platform(i));
                continue;
            }
        };
        let key = if crate::uapi::ty(c.req) == DRM_IOCTL_BASE {
            crate::uapi::nr(c.req)
        } else {
            0x100
        };
        let tally = report.by_nr.entry(key).or_default();
        if r.is_ok() {
            tally.0 += 1;
        } else {
            tally.1 += 1;
        }
        match r {
            Ok(()) => {
                report.ok += 1;
                h.release(&c);
            }
            Err(e) => {
                *report.errors.entry(e.0).or_default() += 1;
                let nr = if crate::uapi::ty(c.req) == DRM_IOCTL_BASE {
                    crate::uapi::nr(c.req)
                } else {
                    0x100 // another family: ENOTTY
                };
                let fine = e == Errno::EFAULT && nr != 0x100 || {
                    let set = if nr == 0x100 {
                        &[Errno::ENOTTY][..]
                    } else {
                        allowed(nr)
                    };
                    set.contains(&e)
                };
                if !fine {
                    report.failures.push(format!(
                        "seed {case_seed}: request {:#x} arg {:#x}: errno {} is not one the kernel returns for nr {nr:#x}",
                        c.req, c.arg, e.0
                    ));
                }
            }
        }
        if let Err(e) = h.check_consistency() {
            report
                .failures
                .push(format!("seed {case_seed}: request {:#x}: {e}", c.req));
            h = Harness::new(platform(i));
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_u64(name: &str) -> Option<u64> {
        std::env::var(name).ok().and_then(|v| v.parse().ok())
    }

    /// The default-run campaign; `GTSIM_FUZZ_CASES` / `GTSIM_FUZZ_SEED` for long runs.
    #[test]
    fn fuzz_the_ioctl_surface() {
        let cases = env_u64("GTSIM_FUZZ_CASES").unwrap_or(DEFAULT_CASES);
        let seed = env_u64("GTSIM_FUZZ_SEED").unwrap_or(0x6757_1915);
        let t = std::time::Instant::now();
        let r = campaign(seed, cases);
        eprintln!(
            "fuzz: {} cases from seed {seed:#x} in {:.1?}: {} ok, errors {:?}, {} failures",
            r.cases,
            t.elapsed(),
            r.ok,
            r.errors,
            r.failures.len()
        );
        if std::env::var_os("GTSIM_FUZZ_STATS").is_some() {
            for (nr, (ok, err)) in &r.by_nr {
                eprintln!("fuzz: nr {nr:#05x}: {ok} ok, {err} errors");
            }
        }
        assert!(
            r.failures.is_empty(),
            "{:#?}",
            &r.failures[..r.failures.len().min(20)]
        );
        // The campaign reaches past the argument checks: some calls succeed and the
        // common errnos all occur.
        if cases >= DEFAULT_CASES {
            assert!(r.ok > cases / 20, "only {} calls succeeded", r.ok);
            for e in [Errno::EFAULT, Errno::EINVAL, Errno::ENOENT, Errno::ENOTTY] {
                assert!(r.errors.contains_key(&e.0), "errno {} never seen", e.0);
            }
        }
    }

    #[test]
    fn every_known_command_has_a_declaration_and_an_errno_set() {
        for nr in KNOWN {
            assert!(decl(*nr).is_some(), "{nr:#x}");
            assert!(!allowed(*nr).contains(&Errno::ENOTTY), "{nr:#x}");
        }
        assert_eq!(allowed(0x3f), &[Errno::ENOTTY]);
    }
}
