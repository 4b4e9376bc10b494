//! The parts of the Linux DRM and i915 user API that Mesa's Gen7 drivers use: ioctl
//! numbers, parameter ids and argument structures. Facts from the Linux uapi headers
//! `drm/drm.h` and `drm/i915_drm.h` (MIT licensed, also shipped by libdrm); the layouts
//! are checked by size at compile time.

#![allow(
    missing_docs,
    reason = "field names are the uapi header's own; see drm.h / i915_drm.h"
)]

/// `_IOC_NR`: the command number of an ioctl request.
pub fn nr(req: u64) -> u32 {
    (req & 0xff) as u32
}

/// `_IOC_TYPE`: the ioctl family ('d' for DRM).
pub fn ty(req: u64) -> u32 {
    ((req >> 8) & 0xff) as u32
}

/// `_IOC_SIZE`: the argument size the caller declared.
pub fn size(req: u64) -> usize {
    ((req >> 16) & 0x3fff) as usize
}

/// `_IOC_DIR`: the direction bits of an ioctl request (`_IOC_WRITE` = 1: the kernel reads
/// the argument; `_IOC_READ` = 2: the kernel writes it back).
pub fn dir(req: u64) -> u32 {
    ((req >> 30) & 3) as u32
}

/// `_IOC_WRITE`: the caller passes data in (the kernel's `IOC_IN`).
pub const IOC_WRITE: u32 = 1;
/// `_IOC_READ`: the caller receives data back (the kernel's `IOC_OUT`).
pub const IOC_READ: u32 = 2;

/// How the kernel itself declares an ioctl: the direction bits and argument size of
/// the `DRM_IOCTL_*` request number in its table (`drm_ioctls[]` in drm_ioctl.c,
/// `i915_ioctls[]` in i915_driver.c). `drm_ioctl()` uses these, not the caller's
/// encoding, to decide how much it copies (see [`crate::user::Args`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decl {
    /// `IOC_WRITE | IOC_READ` bits.
    pub dir: u32,
    /// `_IOC_SIZE` of the kernel's definition.
    pub size: usize,
}

const fn io() -> Decl {
    Decl { dir: 0, size: 0 }
}
const fn iow(size: usize) -> Decl {
    Decl {
        dir: IOC_WRITE,
        size,
    }
}
const fn ior(size: usize) -> Decl {
    Decl {
        dir: IOC_READ,
        size,
    }
}
const fn iowr(size: usize) -> Decl {
    Decl {
        dir: IOC_WRITE | IOC_READ,
        size,
    }
}

/// The kernel's declaration of DRM command `nr` for the ioctls this emulation answers
/// (drm.h and i915_drm.h, Linux 6.1), or `None`. Where two request numbers share a
/// command the kernel's table holds the wider one: GEM_MMAP_GTT/GEM_MMAP_OFFSET (the
/// table has MMAP_OFFSET, 32 bytes), GEM_CONTEXT_CREATE/_EXT (CREATE_EXT, 16 bytes),
/// GEM_EXECBUFFER2/_WR (EXECBUFFER2_WR, read-write).
pub fn decl(nr: u32) -> Option<Decl> {
    if (DRM_COMMAND_BASE..DRM_COMMAND_END).contains(&nr) {
        return Some(match nr - DRM_COMMAND_BASE {
            I915_GETPARAM => iowr(size_of::<I915Getparam>()),
            I915_GEM_BUSY => iowr(size_of::<I915GemBusy>()),
            I915_GEM_THROTTLE => io(),
            I915_GEM_CREATE => iowr(size_of::<I915GemCreate>()),
            I915_GEM_PREAD | I915_GEM_PWRITE => iow(size_of::<I915GemPread>()),
            I915_GEM_MMAP => iowr(size_of::<I915GemMmap>()),
            I915_GEM_MMAP_GTT => iowr(size_of::<I915GemMmapOffset>()),
            I915_GEM_SET_DOMAIN => iow(size_of::<I915GemSetDomain>()),
            I915_GEM_SW_FINISH => iow(size_of::<u32>()),
            I915_GEM_SET_TILING => iowr(size_of::<I915GemSetTiling>()),
            I915_GEM_GET_TILING => iowr(size_of::<I915GemGetTiling>()),
            I915_GEM_GET_APERTURE => ior(size_of::<I915GemGetAperture>()),
            I915_GEM_MADVISE => iowr(size_of::<I915GemMadvise>()),
            I915_GEM_EXECBUFFER2 => iowr(size_of::<I915GemExecbuffer2>()),
            I915_GEM_WAIT => iowr(size_of::<I915GemWait>()),
            I915_GEM_CONTEXT_CREATE => iowr(size_of::<I915GemContextCreateExt>()),
            I915_GEM_CONTEXT_DESTROY => iow(size_of::<I915GemContextDestroy>()),
            I915_GEM_SET_CACHING => iow(size_of::<I915GemCaching>()),
            I915_GEM_GET_CACHING => iowr(size_of::<I915GemCaching>()),
            I915_REG_READ => iowr(size_of::<I915RegRead>()),
            I915_GET_RESET_STATS => iowr(size_of::<I915ResetStats>()),
            I915_GEM_USERPTR => iowr(24),
            I915_GEM_CONTEXT_GETPARAM | I915_GEM_CONTEXT_SETPARAM => {
                iowr(size_of::<I915GemContextParam>())
            }
            I915_QUERY => iowr(size_of::<I915Query>()),
            I915_GEM_VM_CREATE => iowr(size_of::<I915GemVmControl>()),
            I915_GEM_VM_DESTROY => iow(size_of::<I915GemVmControl>()),
            I915_GEM_CREATE_EXT => iowr(size_of::<I915GemCreateExt>()),
            _ => return None,
        });
    }
    Some(match nr {
        DRM_VERSION => iowr(size_of::<DrmVersion>()),
        DRM_GEM_CLOSE => iow(size_of::<DrmGemClose>()),
        DRM_GET_CAP => iowr(size_of::<DrmGetCap>()),
        DRM_SET_CLIENT_CAP => iow(16),
        DRM_SET_MASTER | DRM_DROP_MASTER => io(),
        DRM_PRIME_HANDLE_TO_FD | DRM_PRIME_FD_TO_HANDLE => iowr(size_of::<DrmPrimeHandle>()),
        DRM_SYNCOBJ_CREATE => iowr(size_of::<DrmSyncobjCreate>()),
        DRM_SYNCOBJ_DESTROY => iowr(size_of::<DrmSyncobjDestroy>()),
        DRM_SYNCOBJ_WAIT => iowr(size_of::<DrmSyncobjWait>()),
        DRM_SYNCOBJ_RESET | DRM_SYNCOBJ_SIGNAL => iowr(size_of::<DrmSyncobjArray>()),
        DRM_SYNCOBJ_TIMELINE_WAIT => iowr(size_of::<DrmSyncobjTimelineWait>()),
        DRM_SYNCOBJ_QUERY | DRM_SYNCOBJ_TIMELINE_SIGNAL => {
            iowr(size_of::<DrmSyncobjTimelineArray>())
        }
        DRM_SYNCOBJ_TRANSFER => iowr(size_of::<DrmSyncobjTransfer>()),
        DRM_SYNCOBJ_HANDLE_TO_FD | DRM_SYNCOBJ_FD_TO_HANDLE => iowr(size_of::<DrmSyncobjHandle>()),
        crate::kms::WAIT_VBLANK => iowr(size_of::<crate::kms::WaitVblank>()),
        crate::kms::MODE_GETRESOURCES => iowr(size_of::<crate::kms::CardRes>()),
        crate::kms::MODE_GETCRTC | crate::kms::MODE_SETCRTC => {
            iowr(size_of::<crate::kms::ModeCrtc>())
        }
        crate::kms::MODE_GETENCODER => iowr(size_of::<crate::kms::GetEncoder>()),
        crate::kms::MODE_GETCONNECTOR => iowr(size_of::<crate::kms::GetConnector>()),
        crate::kms::MODE_GETFB | crate::kms::MODE_ADDFB => iowr(size_of::<crate::kms::FbCmd>()),
        crate::kms::MODE_RMFB => iowr(size_of::<u32>()),
        crate::kms::MODE_PAGE_FLIP => iowr(size_of::<crate::kms::PageFlip>()),
        crate::kms::MODE_CREATE_DUMB => iowr(size_of::<crate::kms::CreateDumb>()),
        crate::kms::MODE_MAP_DUMB => iowr(size_of::<crate::kms::MapDumb>()),
        crate::kms::MODE_DESTROY_DUMB => iowr(size_of::<u32>()),
        crate::kms::MODE_GETPLANERESOURCES => iowr(size_of::<crate::kms::GetPlaneRes>()),
        crate::kms::MODE_GETPLANE => iowr(size_of::<crate::kms::GetPlane>()),
        crate::kms::MODE_ADDFB2 => iowr(size_of::<crate::kms::FbCmd2>()),
        crate::kms::MODE_CURSOR => iowr(28),
        crate::kms::MODE_GETGAMMA | crate::kms::MODE_SETGAMMA => {
            iowr(size_of::<crate::kms::CrtcLut>())
        }
        crate::kms::MODE_CURSOR2 => iowr(size_of::<crate::kms::Cursor>()),
        crate::kms::MODE_GETPROPERTY => iowr(size_of::<crate::kms::GetProperty>()),
        crate::kms::MODE_SETPROPERTY => iowr(size_of::<crate::kms::ConnectorSetProperty>()),
        crate::kms::MODE_GETPROPBLOB => iowr(size_of::<crate::kms::GetBlob>()),
        crate::kms::MODE_SETPLANE => iowr(size_of::<crate::kms::SetPlane>()),
        crate::kms::MODE_OBJ_GETPROPERTIES => iowr(size_of::<crate::kms::ObjGetProperties>()),
        crate::kms::MODE_OBJ_SETPROPERTY => iowr(size_of::<crate::kms::ObjSetProperty>()),
        crate::kms::MODE_ATOMIC => iowr(size_of::<crate::kms::Atomic>()),
        crate::kms::MODE_CREATEPROPBLOB => iowr(size_of::<crate::kms::CreateBlob>()),
        crate::kms::MODE_DESTROYPROPBLOB => iowr(size_of::<u32>()),
        _ => return None,
    })
}

/// The uapi name of DRM command `nr` (drm.h, i915_drm.h), for traces and refusals.
pub fn name(nr: u32) -> &'static str {
    if (DRM_COMMAND_BASE..DRM_COMMAND_END).contains(&nr) {
        return match nr - DRM_COMMAND_BASE {
            I915_GETPARAM => "I915_GETPARAM",
            I915_GEM_BUSY => "I915_GEM_BUSY",
            I915_GEM_THROTTLE => "I915_GEM_THROTTLE",
            I915_GEM_CREATE => "I915_GEM_CREATE",
            I915_GEM_PREAD => "I915_GEM_PREAD",
            I915_GEM_PWRITE => "I915_GEM_PWRITE",
            I915_GEM_MMAP => "I915_GEM_MMAP",
            I915_GEM_MMAP_GTT => "I915_GEM_MMAP_GTT/OFFSET",
            I915_GEM_SET_DOMAIN => "I915_GEM_SET_DOMAIN",
            I915_GEM_SW_FINISH => "I915_GEM_SW_FINISH",
            I915_GEM_SET_TILING => "I915_GEM_SET_TILING",
            I915_GEM_GET_TILING => "I915_GEM_GET_TILING",
            I915_GEM_GET_APERTURE => "I915_GEM_GET_APERTURE",
            I915_GEM_MADVISE => "I915_GEM_MADVISE",
            I915_GEM_EXECBUFFER2 => "I915_GEM_EXECBUFFER2",
            I915_GEM_WAIT => "I915_GEM_WAIT",
            I915_GEM_CONTEXT_CREATE => "I915_GEM_CONTEXT_CREATE",
            I915_GEM_CONTEXT_DESTROY => "I915_GEM_CONTEXT_DESTROY",
            I915_GEM_SET_CACHING => "I915_GEM_SET_CACHING",
            I915_GEM_GET_CACHING => "I915_GEM_GET_CACHING",
            I915_REG_READ => "I915_REG_READ",
            I915_GET_RESET_STATS => "I915_GET_RESET_STATS",
            I915_GEM_USERPTR => "I915_GEM_USERPTR",
            I915_GEM_CONTEXT_GETPARAM => "I915_GEM_CONTEXT_GETPARAM",
            I915_GEM_CONTEXT_SETPARAM => "I915_GEM_CONTEXT_SETPARAM",
            I915_QUERY => "I915_QUERY",
            I915_GEM_VM_CREATE => "I915_GEM_VM_CREATE",
            I915_GEM_VM_DESTROY => "I915_GEM_VM_DESTROY",
            I915_GEM_CREATE_EXT => "I915_GEM_CREATE_EXT",
            _ => "(i915 private)",
        };
    }
    match nr {
        DRM_VERSION => "DRM_VERSION",
        DRM_GET_UNIQUE => "DRM_GET_UNIQUE",
        0x02 => "DRM_GET_MAGIC",
        0x11 => "DRM_AUTH_MAGIC",
        DRM_GEM_CLOSE => "DRM_GEM_CLOSE",
        DRM_GEM_FLINK => "DRM_GEM_FLINK",
        DRM_GEM_OPEN => "DRM_GEM_OPEN",
        DRM_GET_CAP => "DRM_GET_CAP",
        DRM_SET_CLIENT_CAP => "DRM_SET_CLIENT_CAP",
        DRM_SET_MASTER => "DRM_SET_MASTER",
        DRM_DROP_MASTER => "DRM_DROP_MASTER",
        DRM_PRIME_HANDLE_TO_FD => "DRM_PRIME_HANDLE_TO_FD",
        DRM_PRIME_FD_TO_HANDLE => "DRM_PRIME_FD_TO_HANDLE",
        crate::kms::WAIT_VBLANK => "DRM_WAIT_VBLANK",
        crate::kms::MODE_GETRESOURCES => "DRM_MODE_GETRESOURCES",
        crate::kms::MODE_GETCRTC => "DRM_MODE_GETCRTC",
        crate::kms::MODE_SETCRTC => "DRM_MODE_SETCRTC",
        crate::kms::MODE_GETENCODER => "DRM_MODE_GETENCODER",
        crate::kms::MODE_GETCONNECTOR => "DRM_MODE_GETCONNECTOR",
        crate::kms::MODE_GETFB => "DRM_MODE_GETFB",
        crate::kms::MODE_ADDFB => "DRM_MODE_ADDFB",
        crate::kms::MODE_RMFB => "DRM_MODE_RMFB",
        crate::kms::MODE_PAGE_FLIP => "DRM_MODE_PAGE_FLIP",
        crate::kms::MODE_CREATE_DUMB => "DRM_MODE_CREATE_DUMB",
        crate::kms::MODE_MAP_DUMB => "DRM_MODE_MAP_DUMB",
        crate::kms::MODE_DESTROY_DUMB => "DRM_MODE_DESTROY_DUMB",
        crate::kms::MODE_GETPLANERESOURCES => "DRM_MODE_GETPLANERESOURCES",
        crate::kms::MODE_GETPLANE => "DRM_MODE_GETPLANE",
        crate::kms::MODE_ADDFB2 => "DRM_MODE_ADDFB2",
        crate::kms::MODE_CURSOR => "DRM_MODE_CURSOR",
        crate::kms::MODE_GETGAMMA => "DRM_MODE_GETGAMMA",
        crate::kms::MODE_SETGAMMA => "DRM_MODE_SETGAMMA",
        crate::kms::MODE_CURSOR2 => "DRM_MODE_CURSOR2",
        crate::kms::MODE_GETPROPERTY => "DRM_MODE_GETPROPERTY",
        crate::kms::MODE_SETPROPERTY => "DRM_MODE_SETPROPERTY",
        crate::kms::MODE_GETPROPBLOB => "DRM_MODE_GETPROPBLOB",
        crate::kms::MODE_SETPLANE => "DRM_MODE_SETPLANE",
        crate::kms::MODE_OBJ_GETPROPERTIES => "DRM_MODE_OBJ_GETPROPERTIES",
        crate::kms::MODE_OBJ_SETPROPERTY => "DRM_MODE_OBJ_SETPROPERTY",
        crate::kms::MODE_ATOMIC => "DRM_MODE_ATOMIC",
        crate::kms::MODE_CREATEPROPBLOB => "DRM_MODE_CREATEPROPBLOB",
        crate::kms::MODE_DESTROYPROPBLOB => "DRM_MODE_DESTROYPROPBLOB",
        DRM_SYNCOBJ_CREATE => "DRM_SYNCOBJ_CREATE",
        DRM_SYNCOBJ_DESTROY => "DRM_SYNCOBJ_DESTROY",
        DRM_SYNCOBJ_HANDLE_TO_FD => "DRM_SYNCOBJ_HANDLE_TO_FD",
        DRM_SYNCOBJ_FD_TO_HANDLE => "DRM_SYNCOBJ_FD_TO_HANDLE",
        DRM_SYNCOBJ_WAIT => "DRM_SYNCOBJ_WAIT",
        DRM_SYNCOBJ_RESET => "DRM_SYNCOBJ_RESET",
        DRM_SYNCOBJ_SIGNAL => "DRM_SYNCOBJ_SIGNAL",
        DRM_SYNCOBJ_TIMELINE_WAIT => "DRM_SYNCOBJ_TIMELINE_WAIT",
        DRM_SYNCOBJ_QUERY => "DRM_SYNCOBJ_QUERY",
        DRM_SYNCOBJ_TRANSFER => "DRM_SYNCOBJ_TRANSFER",
        DRM_SYNCOBJ_TIMELINE_SIGNAL => "DRM_SYNCOBJ_TIMELINE_SIGNAL",
        _ => "(unnamed)",
    }
}

/// DRM ioctl type byte.
pub const DRM_IOCTL_BASE: u32 = b'd' as u32;
/// First driver-private command number.
pub const DRM_COMMAND_BASE: u32 = 0x40;
/// End of the driver-private command numbers.
pub const DRM_COMMAND_END: u32 = 0xa0;

// Core DRM command numbers (drm.h).
pub const DRM_VERSION: u32 = 0x00;
pub const DRM_GET_UNIQUE: u32 = 0x01;
pub const DRM_GEM_CLOSE: u32 = 0x09;
pub const DRM_GEM_FLINK: u32 = 0x0a;
pub const DRM_GEM_OPEN: u32 = 0x0b;
pub const DRM_GET_CAP: u32 = 0x0c;
pub const DRM_SET_CLIENT_CAP: u32 = 0x0d;
pub const DRM_SET_MASTER: u32 = 0x1e;
pub const DRM_DROP_MASTER: u32 = 0x1f;
pub const DRM_PRIME_HANDLE_TO_FD: u32 = 0x2d;
pub const DRM_PRIME_FD_TO_HANDLE: u32 = 0x2e;
pub const DRM_SYNCOBJ_CREATE: u32 = 0xbf;
pub const DRM_SYNCOBJ_DESTROY: u32 = 0xc0;
pub const DRM_SYNCOBJ_HANDLE_TO_FD: u32 = 0xc1;
pub const DRM_SYNCOBJ_FD_TO_HANDLE: u32 = 0xc2;
pub const DRM_SYNCOBJ_WAIT: u32 = 0xc3;
pub const DRM_SYNCOBJ_RESET: u32 = 0xc4;
pub const DRM_SYNCOBJ_SIGNAL: u32 = 0xc5;

pub const DRM_CAP_DUMB_BUFFER: u64 = 0x1;
pub const DRM_CAP_VBLANK_HIGH_CRTC: u64 = 0x2;
pub const DRM_CAP_DUMB_PREFERRED_DEPTH: u64 = 0x3;
pub const DRM_CAP_DUMB_PREFER_SHADOW: u64 = 0x4;
pub const DRM_CAP_TIMESTAMP_MONOTONIC: u64 = 0x6;
pub const DRM_CAP_ASYNC_PAGE_FLIP: u64 = 0x7;
pub const DRM_CAP_CURSOR_WIDTH: u64 = 0x8;
pub const DRM_CAP_CURSOR_HEIGHT: u64 = 0x9;
pub const DRM_CAP_ADDFB2_MODIFIERS: u64 = 0x10;
pub const DRM_CAP_PAGE_FLIP_TARGET: u64 = 0x11;
pub const DRM_CAP_CRTC_IN_VBLANK_EVENT: u64 = 0x12;
pub const DRM_CLIENT_CAP_ATOMIC: u64 = 0x3;
pub const DRM_CAP_PRIME: u64 = 0x5;
pub const DRM_CAP_SYNCOBJ: u64 = 0x13;
pub const DRM_CAP_SYNCOBJ_TIMELINE: u64 = 0x14;
pub const DRM_SYNCOBJ_CREATE_SIGNALED: u32 = 1;
pub const DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL: u32 = 1;
pub const DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT: u32 = 2;

// i915 command numbers (i915_drm.h), relative to DRM_COMMAND_BASE.
pub const I915_GETPARAM: u32 = 0x06;
pub const I915_GEM_BUSY: u32 = 0x17;
pub const I915_GEM_THROTTLE: u32 = 0x18;
pub const I915_GEM_CREATE: u32 = 0x1b;
pub const I915_GEM_PREAD: u32 = 0x1c;
pub const I915_GEM_PWRITE: u32 = 0x1d;
pub const I915_GEM_MMAP: u32 = 0x1e;
pub const I915_GEM_SET_DOMAIN: u32 = 0x1f;
pub const I915_GEM_SW_FINISH: u32 = 0x20;
pub const I915_GEM_SET_TILING: u32 = 0x21;
pub const I915_GEM_GET_TILING: u32 = 0x22;
pub const I915_GEM_GET_APERTURE: u32 = 0x23;
/// MMAP_GTT (16-byte argument) and MMAP_OFFSET (32-byte argument) share this number.
pub const I915_GEM_MMAP_GTT: u32 = 0x24;
pub const I915_GEM_MADVISE: u32 = 0x26;
pub const I915_GEM_EXECBUFFER2: u32 = 0x29;
pub const I915_GEM_WAIT: u32 = 0x2c;
pub const I915_GEM_CONTEXT_CREATE: u32 = 0x2d;
pub const I915_GEM_CONTEXT_DESTROY: u32 = 0x2e;
pub const I915_GEM_SET_CACHING: u32 = 0x2f;
pub const I915_GEM_GET_CACHING: u32 = 0x30;
pub const I915_REG_READ: u32 = 0x31;
pub const I915_GET_RESET_STATS: u32 = 0x32;
pub const I915_GEM_USERPTR: u32 = 0x33;
pub const I915_GEM_CONTEXT_GETPARAM: u32 = 0x34;
pub const I915_GEM_CONTEXT_SETPARAM: u32 = 0x35;
pub const I915_QUERY: u32 = 0x39;
/// DRM_I915_QUERY_TOPOLOGY_INFO (i915_drm.h).
pub const DRM_I915_QUERY_TOPOLOGY_INFO: u64 = 1;
/// DRM_I915_QUERY_ENGINE_INFO.
pub const DRM_I915_QUERY_ENGINE_INFO: u64 = 2;
/// DRM_I915_QUERY_MEMORY_REGIONS.
pub const DRM_I915_QUERY_MEMORY_REGIONS: u64 = 4;

// GETPARAM ids.
pub const I915_PARAM_CHIPSET_ID: i32 = 4;
pub const I915_PARAM_HAS_GEM: i32 = 5;
pub const I915_PARAM_NUM_FENCES_AVAIL: i32 = 6;
pub const I915_PARAM_HAS_OVERLAY: i32 = 7;
pub const I915_PARAM_HAS_PAGEFLIPPING: i32 = 8;
pub const I915_PARAM_HAS_EXECBUF2: i32 = 9;
pub const I915_PARAM_HAS_BSD: i32 = 10;
pub const I915_PARAM_HAS_BLT: i32 = 11;
pub const I915_PARAM_HAS_RELAXED_FENCING: i32 = 12;
pub const I915_PARAM_HAS_COHERENT_RINGS: i32 = 13;
pub const I915_PARAM_HAS_EXEC_CONSTANTS: i32 = 14;
pub const I915_PARAM_HAS_RELAXED_DELTA: i32 = 15;
pub const I915_PARAM_HAS_GEN7_SOL_RESET: i32 = 16;
pub const I915_PARAM_HAS_LLC: i32 = 17;
pub const I915_PARAM_HAS_ALIASING_PPGTT: i32 = 18;
pub const I915_PARAM_HAS_WAIT_TIMEOUT: i32 = 19;
pub const I915_PARAM_HAS_SEMAPHORES: i32 = 20;
pub const I915_PARAM_HAS_PRIME_VMAP_FLUSH: i32 = 21;
pub const I915_PARAM_HAS_VEBOX: i32 = 22;
pub const I915_PARAM_HAS_SECURE_BATCHES: i32 = 23;
pub const I915_PARAM_HAS_PINNED_BATCHES: i32 = 24;
pub const I915_PARAM_HAS_EXEC_NO_RELOC: i32 = 25;
pub const I915_PARAM_HAS_EXEC_HANDLE_LUT: i32 = 26;
pub const I915_PARAM_HAS_WT: i32 = 27;
pub const I915_PARAM_CMD_PARSER_VERSION: i32 = 28;
pub const I915_PARAM_HAS_COHERENT_PHYS_GTT: i32 = 29;
pub const I915_PARAM_MMAP_VERSION: i32 = 30;
pub const I915_PARAM_HAS_BSD2: i32 = 31;
pub const I915_PARAM_REVISION: i32 = 32;
pub const I915_PARAM_SUBSLICE_TOTAL: i32 = 33;
pub const I915_PARAM_EU_TOTAL: i32 = 34;
pub const I915_PARAM_HAS_GPU_RESET: i32 = 35;
pub const I915_PARAM_HAS_RESOURCE_STREAMER: i32 = 36;
pub const I915_PARAM_HAS_EXEC_SOFTPIN: i32 = 37;
pub const I915_PARAM_HAS_POOLED_EU: i32 = 38;
pub const I915_PARAM_MIN_EU_IN_POOL: i32 = 39;
pub const I915_PARAM_MMAP_GTT_VERSION: i32 = 40;
pub const I915_PARAM_HAS_SCHEDULER: i32 = 41;
pub const I915_PARAM_HUC_STATUS: i32 = 42;
pub const I915_PARAM_HAS_EXEC_ASYNC: i32 = 43;
pub const I915_PARAM_HAS_EXEC_FENCE: i32 = 44;
pub const I915_PARAM_HAS_EXEC_CAPTURE: i32 = 45;
pub const I915_PARAM_SLICE_MASK: i32 = 46;
pub const I915_PARAM_SUBSLICE_MASK: i32 = 47;
pub const I915_PARAM_HAS_EXEC_BATCH_FIRST: i32 = 48;
pub const I915_PARAM_HAS_EXEC_FENCE_ARRAY: i32 = 49;
pub const I915_PARAM_HAS_CONTEXT_ISOLATION: i32 = 50;
pub const I915_PARAM_CS_TIMESTAMP_FREQUENCY: i32 = 51;
pub const I915_PARAM_MMAP_GTT_COHERENT: i32 = 52;
pub const I915_PARAM_HAS_EXEC_SUBMIT_FENCE: i32 = 53;
pub const I915_PARAM_PERF_REVISION: i32 = 54;
pub const I915_PARAM_HAS_EXEC_TIMELINE_FENCES: i32 = 55;
pub const I915_PARAM_HAS_USERPTR_PROBE: i32 = 56;

// Context parameters.
pub const I915_CONTEXT_PARAM_BAN_PERIOD: u64 = 0x1;
pub const I915_CONTEXT_PARAM_NO_ZEROMAP: u64 = 0x2;
pub const I915_CONTEXT_PARAM_GTT_SIZE: u64 = 0x3;
pub const I915_CONTEXT_PARAM_NO_ERROR_CAPTURE: u64 = 0x4;
pub const I915_CONTEXT_PARAM_BANNABLE: u64 = 0x5;
pub const I915_CONTEXT_PARAM_PRIORITY: u64 = 0x6;
pub const I915_CONTEXT_PARAM_RECOVERABLE: u64 = 0x8;
/// The context's address space (a VM handle).
pub const I915_CONTEXT_PARAM_VM: u64 = 0x9;
/// The context's engine map.
pub const I915_CONTEXT_PARAM_ENGINES: u64 = 0xa;
/// Protected (PXP) content.
pub const I915_CONTEXT_PARAM_PROTECTED_CONTENT: u64 = 0xd;
/// CONTEXT_CREATE_EXT flags.
pub const I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS: u32 = 1 << 0;
/// CONTEXT_CREATE_EXT: one timeline for all engines.
pub const I915_CONTEXT_CREATE_FLAGS_SINGLE_TIMELINE: u32 = 1 << 1;
/// The SETPARAM extension of CONTEXT_CREATE_EXT.
pub const I915_CONTEXT_CREATE_EXT_SETPARAM: u32 = 0;
/// Engine classes (i915_drm.h enum drm_i915_gem_engine_class).
pub const I915_ENGINE_CLASS_RENDER: u16 = 0;
/// The video enhancement engine class (VECS: the VEBOX and SFC).
pub const I915_ENGINE_CLASS_VIDEO_ENHANCE: u16 = 3;
/// I915_CONTEXT_PARAM_ENGINES extension: a load-balanced (virtual) engine in a slot.
pub const I915_CONTEXT_ENGINES_EXT_LOAD_BALANCE: u32 = 0;
/// `I915_VIDEO_AND_ENHANCE_CLASS_CAPABILITY_SFC`: a video or video enhancement engine
/// with a scaler and format converter.
pub const I915_VIDEO_AND_ENHANCE_CLASS_CAPABILITY_SFC: u64 = 1 << 1;
/// I915_EXEC_VEBOX: the legacy ring selector of the video enhancement ring.
pub const I915_EXEC_VEBOX: u64 = 4;
/// The placeholder class of an invalid engine slot.
pub const I915_ENGINE_CLASS_INVALID: u16 = 0xffff;
/// The placeholder instance of an invalid engine slot.
pub const I915_ENGINE_CLASS_INVALID_NONE: u16 = 0xffff;
/// GEM_VM_CREATE / GEM_VM_DESTROY.
pub const I915_GEM_VM_CREATE: u32 = 0x3a;
/// GEM_VM_DESTROY.
pub const I915_GEM_VM_DESTROY: u32 = 0x3b;
/// GEM_CREATE_EXT (Linux 5.19+; Mesa 23+ creates every object with it once the memory
/// regions query answers).
pub const I915_GEM_CREATE_EXT: u32 = 0x3c;
/// GEM_CREATE_EXT flag: the object must be CPU-mappable (device memory only).
pub const I915_GEM_CREATE_EXT_FLAG_NEEDS_CPU_ACCESS: u32 = 1;
/// GEM_CREATE_EXT extension names.
pub const I915_GEM_CREATE_EXT_MEMORY_REGIONS: u32 = 0;
pub const I915_GEM_CREATE_EXT_PROTECTED_CONTENT: u32 = 1;
/// Memory region classes (`drm_i915_gem_memory_class`).
pub const I915_MEMORY_CLASS_SYSTEM: u16 = 0;

// Execbuffer flags.
pub const I915_EXEC_RING_MASK: u64 = 0x3f;
pub const I915_EXEC_DEFAULT: u64 = 0;
pub const I915_EXEC_RENDER: u64 = 1;
/// The blitter ring (uapi i915_drm.h I915_EXEC_BLT).
pub const I915_EXEC_BLT: u64 = 3;
pub const I915_EXEC_NO_RELOC: u64 = 1 << 11;
pub const I915_EXEC_HANDLE_LUT: u64 = 1 << 12;
pub const I915_EXEC_FENCE_IN: u64 = 1 << 16;
pub const I915_EXEC_FENCE_OUT: u64 = 1 << 17;
pub const I915_EXEC_BATCH_FIRST: u64 = 1 << 18;
pub const I915_EXEC_FENCE_ARRAY: u64 = 1 << 19;
pub const I915_EXEC_CONSTANTS_MASK: u64 = 3 << 6;
pub const I915_EXEC_SECURE: u64 = 1 << 9;
pub const I915_EXEC_BSD_MASK: u64 = 3 << 13;
pub const I915_EXEC_RESOURCE_STREAMER: u64 = 1 << 15;
pub const I915_EXEC_FENCE_SUBMIT: u64 = 1 << 20;
pub const I915_EXEC_USE_EXTENSIONS: u64 = 1 << 21;
/// `__I915_EXEC_UNKNOWN_FLAGS`: every bit above USE_EXTENSIONS.
pub const I915_EXEC_UNKNOWN_FLAGS: u64 = !((I915_EXEC_USE_EXTENSIONS << 1) - 1);
/// `__I915_EXEC_ILLEGAL_FLAGS` (i915_gem_execbuffer.c).
pub const I915_EXEC_ILLEGAL_FLAGS: u64 =
    I915_EXEC_UNKNOWN_FLAGS | I915_EXEC_CONSTANTS_MASK | I915_EXEC_RESOURCE_STREAMER;
pub const I915_EXEC_FENCE_WAIT: u32 = 1;
pub const I915_EXEC_FENCE_SIGNAL: u32 = 2;
pub const EXEC_OBJECT_WRITE: u64 = 1 << 2;
/// EXEC_OBJECT_SUPPORTS_48B_ADDRESS: the object may live above 4 GiB.
pub const EXEC_OBJECT_SUPPORTS_48B_ADDRESS: u64 = 1 << 3;
pub const EXEC_OBJECT_PINNED: u64 = 1 << 4;
pub const EXEC_OBJECT_PAD_TO_SIZE: u64 = 1 << 5;
pub const EXEC_OBJECT_CAPTURE: u64 = 1 << 7;
/// `__EXEC_OBJECT_UNKNOWN_FLAGS`: every bit above CAPTURE.
pub const EXEC_OBJECT_UNKNOWN_FLAGS: u64 = !((EXEC_OBJECT_CAPTURE << 1) - 1);
/// `__I915_EXEC_FENCE_UNKNOWN_FLAGS`: every bit above FENCE_SIGNAL.
pub const I915_EXEC_FENCE_UNKNOWN_FLAGS: u32 = !((I915_EXEC_FENCE_SIGNAL << 1) - 1);
/// `I915_GEM_GPU_DOMAINS` (i915_drv.h): render, sampler, command, instruction, vertex.
pub const I915_GEM_GPU_DOMAINS: u32 = 0x3e;
pub const I915_MMAP_WC: u64 = 1;

// Tiling.
pub const I915_TILING_NONE: u32 = 0;
pub const I915_TILING_X: u32 = 1;
pub const I915_TILING_Y: u32 = 2;
pub const I915_BIT_6_SWIZZLE_NONE: u32 = 0;

pub const I915_MMAP_OFFSET_GTT: u64 = 0;
pub const I915_MMAP_OFFSET_WC: u64 = 1;
pub const I915_MMAP_OFFSET_WB: u64 = 2;
pub const I915_MMAP_OFFSET_UC: u64 = 3;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmVersion {
    pub version_major: i32,
    pub version_minor: i32,
    pub version_patchlevel: i32,
    pub name_len: usize,
    pub name: *mut u8,
    pub date_len: usize,
    pub date: *mut u8,
    pub desc_len: usize,
    pub desc: *mut u8,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmGetCap {
    pub capability: u64,
    pub value: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmGemClose {
    pub handle: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmPrimeHandle {
    pub handle: u32,
    pub flags: u32,
    pub fd: i32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmSyncobjCreate {
    pub handle: u32,
    pub flags: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmSyncobjDestroy {
    pub handle: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmSyncobjWait {
    pub handles: u64,
    pub timeout_nsec: i64,
    pub count_handles: u32,
    pub flags: u32,
    pub first_signaled: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmSyncobjArray {
    pub handles: u64,
    pub count_handles: u32,
    pub pad: u32,
}

/// struct drm_syncobj_timeline_wait (include/uapi/drm/drm.h).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmSyncobjTimelineWait {
    pub handles: u64,
    pub points: u64,
    pub timeout_nsec: i64,
    pub count_handles: u32,
    pub flags: u32,
    pub first_signaled: u32,
    pub pad: u32,
}

/// struct drm_syncobj_timeline_array (QUERY and TIMELINE_SIGNAL).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmSyncobjTimelineArray {
    pub handles: u64,
    pub points: u64,
    pub count_handles: u32,
    pub flags: u32,
}

/// struct drm_syncobj_handle (HANDLE_TO_FD and FD_TO_HANDLE).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmSyncobjHandle {
    pub handle: u32,
    pub flags: u32,
    pub fd: i32,
    pub pad: u32,
}

/// DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE.
pub const DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE: u32 = 1;
/// DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE.
pub const DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE: u32 = 1;

/// struct drm_syncobj_transfer.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrmSyncobjTransfer {
    pub src_handle: u32,
    pub dst_handle: u32,
    pub src_point: u64,
    pub dst_point: u64,
    pub flags: u32,
    pub pad: u32,
}

/// struct drm_i915_gem_execbuffer_ext_timeline_fences, after its i915_user_extension
/// header (next_extension, name, flags, rsvd[4]: 32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915ExecbufferExtTimelineFences {
    pub next_extension: u64,
    pub name: u32,
    pub flags: u32,
    pub rsvd: [u32; 4],
    pub fence_count: u64,
    pub handles_ptr: u64,
    pub values_ptr: u64,
}

/// DRM_I915_GEM_EXECBUFFER_EXT_TIMELINE_FENCES, the only execbuffer extension.
pub const DRM_I915_GEM_EXECBUFFER_EXT_TIMELINE_FENCES: u32 = 0;
/// DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE: wait for the point to have a fence, not for
/// it to signal.
pub const DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE: u32 = 4;
/// DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED.
pub const DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED: u32 = 1;
pub const DRM_SYNCOBJ_TIMELINE_WAIT: u32 = 0xca;
pub const DRM_SYNCOBJ_QUERY: u32 = 0xcb;
pub const DRM_SYNCOBJ_TRANSFER: u32 = 0xcc;
pub const DRM_SYNCOBJ_TIMELINE_SIGNAL: u32 = 0xcd;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915Getparam {
    pub param: i32,
    pub value: *mut i32,
}

/// struct drm_i915_gem_userptr (include/uapi/drm/i915_drm.h).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemUserptr {
    pub user_ptr: u64,
    pub user_size: u64,
    pub flags: u32,
    pub handle: u32,
}

/// I915_USERPTR_READ_ONLY, I915_USERPTR_PROBE, I915_USERPTR_UNSYNCHRONIZED.
pub const I915_USERPTR_READ_ONLY: u32 = 0x1;
pub const I915_USERPTR_PROBE: u32 = 0x2;
pub const I915_USERPTR_UNSYNCHRONIZED: u32 = 0x8000_0000;

/// `struct drm_i915_gem_create_ext` (24 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemCreateExt {
    pub size: u64,
    pub handle: u32,
    pub flags: u32,
    pub extensions: u64,
}

/// `struct drm_i915_gem_create_ext_memory_regions` (48 bytes): the extension header,
/// then `pad` (MBZ), `num_regions` and a pointer to that many
/// `drm_i915_gem_memory_class_instance` (u16 class, u16 instance).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemCreateExtMemoryRegions {
    pub base: I915UserExtension,
    pub pad: u32,
    pub num_regions: u32,
    pub regions: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemCreate {
    pub size: u64,
    pub handle: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemPread {
    pub handle: u32,
    pub pad: u32,
    pub offset: u64,
    pub size: u64,
    pub data_ptr: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemMmap {
    pub handle: u32,
    pub pad: u32,
    pub offset: u64,
    pub size: u64,
    pub addr_ptr: u64,
    pub flags: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemMmapGtt {
    pub handle: u32,
    pub pad: u32,
    pub offset: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemMmapOffset {
    pub handle: u32,
    pub pad: u32,
    pub offset: u64,
    pub flags: u64,
    pub extensions: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemSetDomain {
    pub handle: u32,
    pub read_domains: u32,
    pub write_domain: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemSetTiling {
    pub handle: u32,
    pub tiling_mode: u32,
    pub stride: u32,
    pub swizzle_mode: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemGetTiling {
    pub handle: u32,
    pub tiling_mode: u32,
    pub swizzle_mode: u32,
    pub phys_swizzle_mode: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemGetAperture {
    pub aper_size: u64,
    pub aper_available_size: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemMadvise {
    pub handle: u32,
    pub madv: u32,
    pub retained: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemBusy {
    pub handle: u32,
    pub busy: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemWait {
    pub bo_handle: u32,
    pub flags: u32,
    pub timeout_ns: i64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemCaching {
    pub handle: u32,
    pub caching: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemExecObject2 {
    pub handle: u32,
    pub relocation_count: u32,
    pub relocs_ptr: u64,
    pub alignment: u64,
    pub offset: u64,
    pub flags: u64,
    pub rsvd1: u64,
    pub rsvd2: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemRelocationEntry {
    pub target_handle: u32,
    pub delta: u32,
    pub offset: u64,
    pub presumed_offset: u64,
    pub read_domains: u32,
    pub write_domain: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemExecbuffer2 {
    pub buffers_ptr: u64,
    pub buffer_count: u32,
    pub batch_start_offset: u32,
    pub batch_len: u32,
    pub dr1: u32,
    pub dr4: u32,
    pub num_cliprects: u32,
    pub cliprects_ptr: u64,
    pub flags: u64,
    pub rsvd1: u64,
    pub rsvd2: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemExecFence {
    pub handle: u32,
    pub flags: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemContextCreate {
    pub ctx_id: u32,
    pub pad: u32,
}

/// `struct i915_user_extension` (32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915UserExtension {
    pub next_extension: u64,
    pub name: u32,
    pub flags: u32,
    pub rsvd: [u32; 4],
}

/// `struct drm_i915_gem_vm_control` (16 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemVmControl {
    pub extensions: u64,
    pub flags: u32,
    pub vm_id: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemContextCreateExt {
    pub ctx_id: u32,
    pub flags: u32,
    pub extensions: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemContextDestroy {
    pub ctx_id: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915GemContextParam {
    pub ctx_id: u32,
    pub size: u32,
    pub param: u64,
    pub value: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915RegRead {
    pub offset: u64,
    pub val: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915ResetStats {
    pub ctx_id: u32,
    pub flags: u32,
    pub reset_count: u32,
    pub batch_active: u32,
    pub batch_pending: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915Query {
    pub num_items: u32,
    pub flags: u32,
    pub items_ptr: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct I915QueryItem {
    pub query_id: u64,
    pub length: i32,
    pub flags: u32,
    pub data_ptr: u64,
}

const _: () = {
    assert!(size_of::<DrmVersion>() == 64);
    assert!(size_of::<I915UserExtension>() == 32);
    assert!(size_of::<I915GemVmControl>() == 16);
    assert!(size_of::<DrmGemClose>() == 8);
    assert!(size_of::<DrmSyncobjCreate>() == 8);
    assert!(size_of::<DrmSyncobjDestroy>() == 8);
    assert!(size_of::<I915GemBusy>() == 8);
    assert!(size_of::<I915GemSetDomain>() == 12);
    assert!(size_of::<I915GemSetTiling>() == 16);
    assert!(size_of::<I915GemGetTiling>() == 16);
    assert!(size_of::<I915GemGetAperture>() == 16);
    assert!(size_of::<I915GemMadvise>() == 12);
    assert!(size_of::<I915GemWait>() == 16);
    assert!(size_of::<I915GemContextCreateExt>() == 16);
    assert!(size_of::<I915GemContextDestroy>() == 8);
    assert!(size_of::<I915GemCaching>() == 8);
    assert!(size_of::<I915RegRead>() == 16);
    assert!(size_of::<I915Query>() == 16);
    assert!(size_of::<DrmGetCap>() == 16);
    assert!(size_of::<DrmPrimeHandle>() == 12);
    assert!(size_of::<DrmSyncobjWait>() == 32);
    assert!(size_of::<DrmSyncobjArray>() == 16);
    assert!(size_of::<DrmSyncobjTimelineWait>() == 40);
    assert!(size_of::<DrmSyncobjTimelineArray>() == 24);
    assert!(size_of::<DrmSyncobjTransfer>() == 32);
    assert!(size_of::<DrmSyncobjHandle>() == 16);
    assert!(size_of::<I915ExecbufferExtTimelineFences>() == 56);
    assert!(size_of::<I915Getparam>() == 16);
    assert!(size_of::<I915GemCreate>() == 16);
    assert!(size_of::<I915GemCreateExt>() == 24);
    assert!(size_of::<I915GemCreateExtMemoryRegions>() == 48);
    assert!(size_of::<I915GemPread>() == 32);
    assert!(size_of::<I915GemMmap>() == 40);
    assert!(size_of::<I915GemMmapGtt>() == 16);
    assert!(size_of::<I915GemMmapOffset>() == 32);
    assert!(size_of::<I915GemExecObject2>() == 56);
    assert!(size_of::<I915GemRelocationEntry>() == 32);
    assert!(size_of::<I915GemExecbuffer2>() == 64);
    assert!(size_of::<I915GemContextParam>() == 24);
    assert!(size_of::<I915ResetStats>() == 24);
    assert!(size_of::<I915QueryItem>() == 24);
};
