//! The emulated kernel driven directly (no preload): every ioctl with good and bad
//! arguments, checked against what the i915 uapi documents.

use crate::errno::Errno;
use crate::kernel::{Kernel, Node};
use crate::uapi::*;
use gtsim_spec::gen7::*;

const FD: i32 = 1000;

fn req(nr: u32, size: usize) -> u64 {
    (3u64 << 30) | ((size as u64) << 16) | ((DRM_IOCTL_BASE as u64) << 8) | nr as u64
}

fn i915<T>(k: &mut Kernel, nr: u32, arg: &mut T) -> Result<(), Errno> {
    k.ioctl(
        FD,
        req(DRM_COMMAND_BASE + nr, size_of::<T>()),
        arg as *mut T as u64,
    )
}

fn kernel() -> Kernel {
    let mut k = Kernel::default();
    k.open_file(FD, Node::Render);
    k
}

fn create(k: &mut Kernel, size: u64) -> u32 {
    let mut c = I915GemCreate {
        size,
        handle: 0,
        pad: 0,
    };
    i915(k, I915_GEM_CREATE, &mut c).unwrap();
    c.handle
}

fn pwrite(k: &mut Kernel, handle: u32, offset: u64, data: &[u8]) -> Result<(), Errno> {
    let mut p = I915GemPread {
        handle,
        pad: 0,
        offset,
        size: data.len() as u64,
        data_ptr: data.as_ptr() as u64,
    };
    i915(k, I915_GEM_PWRITE, &mut p)
}

fn pread(k: &mut Kernel, handle: u32, offset: u64, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n];
    let mut p = I915GemPread {
        handle,
        pad: 0,
        offset,
        size: n as u64,
        data_ptr: out.as_mut_ptr() as u64,
    };
    i915(k, I915_GEM_PREAD, &mut p).unwrap();
    out
}

fn dwords(d: &[u32]) -> Vec<u8> {
    d.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn getparam_answers_like_an_ivy_bridge_kernel() {
    let mut k = kernel();
    let mut v = 0i32;
    let mut g = I915Getparam {
        param: I915_PARAM_CHIPSET_ID,
        value: &mut v,
    };
    i915(&mut k, I915_GETPARAM, &mut g).unwrap();
    assert_eq!(v, 0x0162);
    let mut g = I915Getparam {
        param: I915_PARAM_CS_TIMESTAMP_FREQUENCY,
        value: &mut v,
    };
    i915(&mut k, I915_GETPARAM, &mut g).unwrap();
    assert_eq!(v, 12_500_000);
    let mut g = I915Getparam {
        param: I915_PARAM_EU_TOTAL,
        value: &mut v,
    };
    assert_eq!(i915(&mut k, I915_GETPARAM, &mut g), Err(Errno::ENODEV));
    let mut g = I915Getparam {
        param: 9999,
        value: &mut v,
    };
    assert_eq!(i915(&mut k, I915_GETPARAM, &mut g), Err(Errno::EINVAL));
}

#[test]
fn buffer_objects_read_back_what_was_written() {
    let mut k = kernel();
    let h = create(&mut k, 100);
    pwrite(&mut k, h, 4090, &[1, 2, 3, 4, 5, 6]).unwrap();
    assert_eq!(pread(&mut k, h, 4090, 6), [1, 2, 3, 4, 5, 6]);
    // Past the end (the object was rounded up to one page).
    assert_eq!(pwrite(&mut k, h, 4094, &[0; 4]), Err(Errno::EINVAL));
    // Unknown handle.
    assert_eq!(pwrite(&mut k, 77, 0, &[0; 4]), Err(Errno::ENOENT));
}

#[test]
fn bad_pointers_are_efault_not_crashes() {
    let mut k = kernel();
    for nr in [
        I915_GEM_CREATE,
        I915_GETPARAM,
        I915_GEM_EXECBUFFER2,
        I915_QUERY,
    ] {
        assert_eq!(
            k.ioctl(FD, req(DRM_COMMAND_BASE + nr, 64), 0x10),
            Err(Errno::EFAULT),
            "nr {nr:#x}"
        );
    }
    let h = create(&mut k, 4096);
    let mut p = I915GemPread {
        handle: h,
        pad: 0,
        offset: 0,
        size: 16,
        data_ptr: 0x1000,
    };
    assert_eq!(i915(&mut k, I915_GEM_PREAD, &mut p), Err(Errno::EFAULT));
}

#[test]
fn tiling_is_recorded_and_never_swizzled() {
    let mut k = kernel();
    let h = create(&mut k, 4096);
    let mut t = I915GemSetTiling {
        handle: h,
        tiling_mode: I915_TILING_X,
        stride: 512,
        swizzle_mode: 99,
    };
    i915(&mut k, I915_GEM_SET_TILING, &mut t).unwrap();
    assert_eq!(t.swizzle_mode, I915_BIT_6_SWIZZLE_NONE);
    let mut g = I915GemGetTiling {
        handle: h,
        tiling_mode: 0,
        swizzle_mode: 9,
        phys_swizzle_mode: 9,
    };
    i915(&mut k, I915_GEM_GET_TILING, &mut g).unwrap();
    assert_eq!((g.tiling_mode, g.swizzle_mode), (I915_TILING_X, 0));
    // A write-back MMAP_OFFSET works and names the object.
    let mut m = I915GemMmapOffset {
        handle: h,
        pad: 0,
        offset: 0,
        flags: I915_MMAP_OFFSET_WB,
        extensions: 0,
    };
    i915(&mut k, I915_GEM_MMAP_GTT, &mut m).unwrap();
    assert!(k.mmap_target(m.offset).is_some());
}

/// Reads `n` bytes at `at` of what a GTT mapping at mmap offset `off` shows.
fn gtt_read(k: &Kernel, off: u64, at: u64, n: usize) -> Vec<u8> {
    let (view, base) = k.mmap_target(off).unwrap();
    let mut out = vec![0; n];
    view.read(base + at, &mut out).unwrap();
    out
}

#[test]
fn gtt_maps_of_tiled_objects_are_linear_views_kept_coherent() {
    let mut k = kernel();
    let (target, batch, mut relocs) = store_batch(&mut k);
    // Y tiles are 128 bytes by 32 rows in 16-byte columns, so with a 128-byte stride
    // linear (row r, byte x) is tiled offset (x / 16)·512 + r·16 + x % 16: (1, 16) is
    // 528, (2, 0) is 32, and the batch's store at 0x40 is (4, 0), linear 512.
    let bytes: Vec<u8> = (1..=16).collect();
    pwrite(&mut k, target, 528, &bytes).unwrap();
    let mut t = I915GemSetTiling {
        handle: target,
        tiling_mode: I915_TILING_Y,
        stride: 128,
        swizzle_mode: 0,
    };
    i915(&mut k, I915_GEM_SET_TILING, &mut t).unwrap();
    let mut m = I915GemMmapGtt {
        handle: target,
        pad: 0,
        offset: 0,
    };
    i915(&mut k, I915_GEM_MMAP_GTT, &mut m).unwrap();
    assert_eq!(
        gtt_read(&k, m.offset, 128 + 16, 16),
        bytes,
        "detiled on map"
    );
    // The CPU writes through the map; the GPU sees it, and what the GPU writes shows in
    // the map after the execbuffer.
    let (view, base) = k.mmap_target(m.offset).unwrap();
    view.write(base + 256, &[0xaa; 16]).unwrap();
    let mut objs = [obj(target, &mut []), obj(batch, &mut relocs)];
    exec(
        &mut k,
        &mut objs,
        I915_EXEC_RENDER | I915_EXEC_HANDLE_LUT,
        0,
    )
    .unwrap();
    assert_eq!(
        pread(&mut k, target, 32, 16),
        [0xaa; 16],
        "retiled before the GPU ran"
    );
    assert_eq!(gtt_read(&k, m.offset, 512, 4), 0xfeedu32.to_le_bytes());
    assert_eq!(gtt_read(&k, m.offset, 256, 16), [0xaa; 16]);
    // The same map again; a new tiling gives a new view, after the old one's last
    // writes reached the object (linear (2, 16) is Y-tiled offset 512 + 32 = 544).
    let off = m.offset;
    i915(&mut k, I915_GEM_MMAP_GTT, &mut m).unwrap();
    assert_eq!(m.offset, off);
    let (view, base) = k.mmap_target(off).unwrap();
    view.write(base + 256 + 16, &[0x55; 16]).unwrap();
    t.tiling_mode = I915_TILING_X;
    t.stride = 512;
    i915(&mut k, I915_GEM_SET_TILING, &mut t).unwrap();
    assert!(k.mmap_target(off).is_none(), "the old view is gone");
    assert_eq!(
        pread(&mut k, target, 544, 16),
        [0x55; 16],
        "its writes kept"
    );
    // Views together stay within the 256 MiB mappable aperture: ENOSPC past it.
    let big = create(&mut k, 300 << 20);
    let mut t = I915GemSetTiling {
        handle: big,
        tiling_mode: I915_TILING_X,
        stride: 512,
        swizzle_mode: 0,
    };
    i915(&mut k, I915_GEM_SET_TILING, &mut t).unwrap();
    let mut m = I915GemMmapGtt {
        handle: big,
        pad: 0,
        offset: 0,
    };
    assert_eq!(i915(&mut k, I915_GEM_MMAP_GTT, &mut m), Err(Errno::ENOSPC));
}

/// A batch that stores 0xfeed into a second object through a relocation.
fn store_batch(k: &mut Kernel) -> (u32, u32, Vec<I915GemRelocationEntry>) {
    let target = create(k, 4096);
    let batch = create(k, 4096);
    let sdi = MiStoreDataImm {
        address: 0,
        data_dword_0: 0xfeed,
        ..Default::default()
    }
    .pack()
    .unwrap();
    let mut b = sdi.clone();
    b.push(0x0500_0000);
    b.push(0);
    pwrite(k, batch, 0, &dwords(&b)).unwrap();
    // MI_STORE_DATA_IMM's Address is dword 2 (byte 8): relocate it to target + 0x40.
    let relocs = vec![I915GemRelocationEntry {
        target_handle: 0,
        delta: 0x40,
        offset: 8,
        presumed_offset: 0,
        read_domains: 0,
        write_domain: 0,
    }];
    (target, batch, relocs)
}

fn exec(
    k: &mut Kernel,
    objs: &mut [I915GemExecObject2],
    flags: u64,
    ctx: u32,
) -> Result<(), Errno> {
    let mut eb = I915GemExecbuffer2 {
        buffers_ptr: objs.as_mut_ptr() as u64,
        buffer_count: objs.len() as u32,
        batch_start_offset: 0,
        batch_len: 0,
        dr1: 0,
        dr4: 0,
        num_cliprects: 0,
        cliprects_ptr: 0,
        flags,
        rsvd1: ctx as u64,
        rsvd2: 0,
    };
    i915(k, I915_GEM_EXECBUFFER2, &mut eb)
}

fn obj(handle: u32, relocs: &mut [I915GemRelocationEntry]) -> I915GemExecObject2 {
    I915GemExecObject2 {
        handle,
        relocation_count: relocs.len() as u32,
        relocs_ptr: relocs.as_mut_ptr() as u64,
        alignment: 0,
        offset: 0,
        flags: 0,
        rsvd1: 0,
        rsvd2: 0,
    }
}

#[test]
fn execbuffer_relocates_runs_and_writes_offsets_back() {
    let mut k = kernel();
    let (target, batch, mut relocs) = store_batch(&mut k);
    let mut objs = [obj(target, &mut []), obj(batch, &mut relocs)];
    exec(
        &mut k,
        &mut objs,
        I915_EXEC_RENDER | I915_EXEC_HANDLE_LUT | I915_EXEC_NO_RELOC,
        0,
    )
    .unwrap();
    assert_eq!(pread(&mut k, target, 0x40, 4), 0xfeedu32.to_le_bytes());
    let t = objs[0].offset;
    assert!(
        (0x10000..1 << 31).contains(&t) && t.is_multiple_of(4096),
        "{t:#x}"
    );
    assert_eq!(relocs[0].presumed_offset, t, "presumed offset written back");
    assert_eq!(
        pread(&mut k, batch, 8, 4),
        ((t + 0x40) as u32).to_le_bytes(),
        "relocation patched"
    );
    // Addresses are stable across submissions.
    exec(
        &mut k,
        &mut objs,
        I915_EXEC_RENDER | I915_EXEC_HANDLE_LUT,
        0,
    )
    .unwrap();
    assert_eq!(objs[0].offset, t);
}

#[test]
fn bad_execbuffers_get_the_kernels_errno_and_change_nothing() {
    let mut k = kernel();
    let (target, batch, mut relocs) = store_batch(&mut k);
    let before = pread(&mut k, batch, 0, 64);
    // A relocation outside its object.
    let mut bad = relocs.clone();
    bad[0].offset = 4096;
    let mut objs = [obj(target, &mut []), obj(batch, &mut bad)];
    assert_eq!(
        exec(&mut k, &mut objs, I915_EXEC_HANDLE_LUT, 0),
        Err(Errno::EINVAL)
    );
    // A relocation to an object not in the list (LUT index out of range).
    let mut bad = relocs.clone();
    bad[0].target_handle = 5;
    let mut objs = [obj(target, &mut []), obj(batch, &mut bad)];
    assert_eq!(
        exec(&mut k, &mut objs, I915_EXEC_HANDLE_LUT, 0),
        Err(Errno::ENOENT)
    );
    // An unknown handle.
    let mut objs = [obj(999, &mut []), obj(batch, &mut relocs)];
    assert_eq!(
        exec(&mut k, &mut objs, I915_EXEC_HANDLE_LUT, 0),
        Err(Errno::ENOENT)
    );
    // A context that does not exist (or was destroyed).
    let mut objs = [obj(target, &mut []), obj(batch, &mut relocs)];
    assert_eq!(
        exec(&mut k, &mut objs, I915_EXEC_HANDLE_LUT, 7),
        Err(Errno::ENOENT)
    );
    // The video rings (I915_EXEC_BSD 2, I915_EXEC_VEBOX 4) are not modelled.
    for ring in [2, 4] {
        assert_eq!(
            exec(&mut k, &mut objs, I915_EXEC_HANDLE_LUT | ring, 0),
            Err(Errno::EINVAL)
        );
    }
    // Nothing was bound, patched or run.
    assert_eq!(pread(&mut k, batch, 0, 64), before);
    assert_eq!(pread(&mut k, target, 0x40, 4), [0; 4]);
    assert!(k.bound.is_empty());
    assert_eq!(relocs[0].presumed_offset, 0);
}

#[test]
fn contexts_keep_state_and_closed_contexts_are_gone() {
    let mut k = kernel();
    let mut c = I915GemContextCreate { ctx_id: 0, pad: 0 };
    i915(&mut k, I915_GEM_CONTEXT_CREATE, &mut c).unwrap();
    assert_eq!(c.ctx_id, 1);
    let mut p = I915GemContextParam {
        ctx_id: 1,
        size: 0,
        param: I915_CONTEXT_PARAM_GTT_SIZE,
        value: 0,
    };
    i915(&mut k, I915_GEM_CONTEXT_GETPARAM, &mut p).unwrap();
    assert_eq!(p.value, 1 << 31);
    let mut d = I915GemContextDestroy { ctx_id: 1, pad: 0 };
    i915(&mut k, I915_GEM_CONTEXT_DESTROY, &mut d).unwrap();
    assert_eq!(
        i915(&mut k, I915_GEM_CONTEXT_DESTROY, &mut d),
        Err(Errno::ENOENT)
    );
    let (target, batch, mut relocs) = store_batch(&mut k);
    let mut objs = [obj(target, &mut []), obj(batch, &mut relocs)];
    assert_eq!(
        exec(&mut k, &mut objs, I915_EXEC_HANDLE_LUT, 1),
        Err(Errno::ENOENT)
    );
}

#[test]
fn fence_arrays_signal_syncobjs() {
    let mut k = kernel();
    let mut c = DrmSyncobjCreate {
        handle: 0,
        flags: 0,
    };
    k.ioctl(FD, req(DRM_SYNCOBJ_CREATE, 8), &mut c as *mut _ as u64)
        .unwrap();
    let handles = [c.handle];
    let mut w = DrmSyncobjWait {
        handles: handles.as_ptr() as u64,
        timeout_nsec: 0,
        count_handles: 1,
        flags: DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
        first_signaled: 0,
        pad: 0,
    };
    // No fence yet: EINVAL, unless waiting for a submission, which times out
    // (drm_syncobj_array_wait_timeout).
    assert_eq!(
        k.ioctl(FD, req(DRM_SYNCOBJ_WAIT, 32), &mut w as *mut _ as u64),
        Err(Errno::EINVAL)
    );
    w.flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
    assert_eq!(
        k.ioctl(FD, req(DRM_SYNCOBJ_WAIT, 32), &mut w as *mut _ as u64),
        Err(Errno::ETIME)
    );
    let (target, batch, mut relocs) = store_batch(&mut k);
    let mut objs = [obj(target, &mut []), obj(batch, &mut relocs)];
    let fences = [I915GemExecFence {
        handle: c.handle,
        flags: I915_EXEC_FENCE_SIGNAL,
    }];
    let mut eb = I915GemExecbuffer2 {
        buffers_ptr: objs.as_mut_ptr() as u64,
        buffer_count: 2,
        batch_start_offset: 0,
        batch_len: 0,
        dr1: 0,
        dr4: 0,
        num_cliprects: 1,
        cliprects_ptr: fences.as_ptr() as u64,
        flags: I915_EXEC_HANDLE_LUT | I915_EXEC_FENCE_ARRAY,
        rsvd1: 0,
        rsvd2: 0,
    };
    i915(&mut k, I915_GEM_EXECBUFFER2, &mut eb).unwrap();
    k.ioctl(FD, req(DRM_SYNCOBJ_WAIT, 32), &mut w as *mut _ as u64)
        .unwrap();
}

#[test]
fn a_hanging_batch_marks_the_context_guilty_and_the_process_survives() {
    let mut k = kernel();
    let batch = create(&mut k, 4096);
    pwrite(&mut k, batch, 0, &dwords(&[0xe000_0000])).unwrap();
    let mut objs = [obj(batch, &mut [])];
    exec(&mut k, &mut objs, 0, 0).unwrap();
    assert_eq!(reset_stats(&mut k, 0).batch_active, 1);
}

fn reset_stats(k: &mut Kernel, ctx_id: u32) -> I915ResetStats {
    let mut s = I915ResetStats {
        ctx_id,
        flags: 0,
        reset_count: 0,
        batch_active: 0,
        batch_pending: 0,
        pad: 0,
    };
    i915(k, I915_GET_RESET_STATS, &mut s).unwrap();
    s
}

fn context_param(
    k: &mut Kernel,
    nr: u32,
    ctx_id: u32,
    param: u64,
    value: u64,
) -> Result<u64, Errno> {
    let mut p = I915GemContextParam {
        ctx_id,
        size: 0,
        param,
        value,
    };
    i915(k, nr, &mut p).map(|()| p.value)
}

/// A batch that hangs (an unknown MI opcode) in context `ctx`.
fn hang_in(k: &mut Kernel, ctx: u32) -> Result<(), Errno> {
    let batch = create(k, 4096);
    pwrite(k, batch, 0, &dwords(&[0xe000_0000])).unwrap();
    let mut objs = [obj(batch, &mut [])];
    exec(k, &mut objs, 0, ctx)
}

/// Linux's mark_guilty (ban.rs): a context made unrecoverable, as Mesa's iris and crocus
/// make theirs, is banned by its first hang, and its next execbuffer fails with EIO; a
/// recoverable one by its third hang within 120 seconds; a client whose contexts were
/// banned three times (score 3 + 1 per ban, fast hangs) creates no more contexts.
#[test]
fn hangs_ban_unrecoverable_contexts_and_then_the_client() {
    let mut k = kernel();
    let (get, set) = (I915_GEM_CONTEXT_GETPARAM, I915_GEM_CONTEXT_SETPARAM);
    let create_ctx = |k: &mut Kernel| {
        let mut c = I915GemContextCreate { ctx_id: 0, pad: 0 };
        i915(k, I915_GEM_CONTEXT_CREATE, &mut c).map(|()| c.ctx_id)
    };
    // The parameters read back as set; clearing BANNABLE needs CAP_SYS_ADMIN.
    let a = create_ctx(&mut k).unwrap();
    assert_eq!(
        context_param(&mut k, get, a, I915_CONTEXT_PARAM_RECOVERABLE, 0),
        Ok(1)
    );
    context_param(&mut k, set, a, I915_CONTEXT_PARAM_RECOVERABLE, 0).unwrap();
    assert_eq!(
        context_param(&mut k, get, a, I915_CONTEXT_PARAM_RECOVERABLE, 0),
        Ok(0)
    );
    assert_eq!(
        context_param(&mut k, get, a, I915_CONTEXT_PARAM_BANNABLE, 0),
        Ok(1)
    );
    assert_eq!(
        context_param(&mut k, set, a, I915_CONTEXT_PARAM_BANNABLE, 0),
        Err(Errno::EPERM)
    );
    let mut sized = I915GemContextParam {
        ctx_id: a,
        size: 4,
        param: I915_CONTEXT_PARAM_RECOVERABLE,
        value: 1,
    };
    assert_eq!(i915(&mut k, set, &mut sized), Err(Errno::EINVAL));

    // Unrecoverable: banned by the first hang.
    hang_in(&mut k, a).unwrap();
    assert_eq!(hang_in(&mut k, a), Err(Errno::EIO));
    // Recoverable (the default context): two hangs are survived, the third bans.
    hang_in(&mut k, 0).unwrap();
    hang_in(&mut k, 0).unwrap();
    hang_in(&mut k, 0).unwrap();
    assert_eq!(hang_in(&mut k, 0), Err(Errno::EIO));
    assert_eq!(
        reset_stats(&mut k, 0).batch_active,
        3,
        "the refused batch did not run"
    );
    // Two bans so far (3 + 1 each, and the fast unbanned hangs +1 each: 10 >= 9): the
    // client is banned from creating contexts.
    assert_eq!(create_ctx(&mut k), Err(Errno::EIO));
}

#[test]
fn closing_the_last_fd_releases_objects() {
    let mut k = kernel();
    let h = create(&mut k, 4096);
    k.dup_fd(FD, FD + 1);
    k.close_fd(FD);
    let mut t = I915GemGetTiling {
        handle: h,
        tiling_mode: 0,
        swizzle_mode: 0,
        phys_swizzle_mode: 0,
    };
    let r = req(
        DRM_COMMAND_BASE + I915_GEM_GET_TILING,
        size_of::<I915GemGetTiling>(),
    );
    k.ioctl(FD + 1, r, &mut t as *mut _ as u64)
        .expect("the object lives on through the dup'ed fd");
    assert_eq!(k.ioctl(FD, r, &mut t as *mut _ as u64), Err(Errno::EBADF));
    k.close_fd(FD + 1);
    assert!(k.bos.is_empty());
    // Both fds are closed now.
    assert_eq!(
        k.ioctl(FD, req(DRM_COMMAND_BASE + I915_GEM_CREATE, 16), 0),
        Err(Errno::EBADF)
    );
}

fn prime_fd(k: &mut Kernel, handle: u32) -> i32 {
    let mut p = DrmPrimeHandle {
        handle,
        flags: (libc::O_CLOEXEC | libc::O_RDWR) as u32,
        fd: -1,
    };
    k.ioctl(FD, req(DRM_PRIME_HANDLE_TO_FD, 12), &mut p as *mut _ as u64)
        .unwrap();
    assert!(p.fd >= 0);
    p.fd
}

#[test]
fn a_dma_buf_cannot_be_resized_and_the_object_stays_usable() {
    let mut k = kernel();
    let h = create(&mut k, 8192);
    pwrite(&mut k, h, 8188, &[7, 7, 7, 7]).unwrap();
    let fd = prime_fd(&mut k, h);
    // A real dma-buf has no ftruncate; the sealed memfd refuses with EPERM.
    for size in [0, 4096, 1 << 20] {
        // SAFETY: ftruncate on an fd we own.
        let r = unsafe { libc::ftruncate(fd, size) };
        assert_eq!(r, -1, "ftruncate to {size} must fail");
        assert_eq!(
            std::io::Error::last_os_error().raw_os_error(),
            Some(libc::EPERM)
        );
    }
    // SAFETY: fallocate past the end on an fd we own.
    assert_eq!(unsafe { libc::fallocate(fd, 0, 0, 1 << 20) }, -1);
    // The object kept its size and contents, through the ioctls and through the model.
    assert_eq!(pread(&mut k, h, 8188, 4), [7, 7, 7, 7]);
    let id = k.bo_id(FD, h).unwrap();
    assert_eq!(k.bos[&id].size, 8192);
    let mut b = [0u8; 4];
    k.bos[&id].read(8188, &mut b).unwrap();
    assert_eq!(b, [7, 7, 7, 7]);
    // Importing it back names the same object.
    let mut p = DrmPrimeHandle {
        handle: 0,
        flags: 0,
        fd,
    };
    k.ioctl(FD, req(DRM_PRIME_FD_TO_HANDLE, 12), &mut p as *mut _ as u64)
        .unwrap();
    assert_eq!(p.handle, h);
    // Unknown flags are EINVAL (drm_prime_handle_to_fd_ioctl).
    let mut p = DrmPrimeHandle {
        handle: h,
        flags: 0x10,
        fd: -1,
    };
    assert_eq!(
        k.ioctl(FD, req(DRM_PRIME_HANDLE_TO_FD, 12), &mut p as *mut _ as u64),
        Err(Errno::EINVAL)
    );
    // SAFETY: closing the fd we were given.
    unsafe { libc::close(fd) };
}

/// A dma-buf outlives its object's handles, as in Linux (the dma-buf holds the object):
/// kmscube's textured mode exports a buffer, destroys it and imports the fd. The import
/// gives a handle to the same memory; a memfd that is not one of ours, and a pipe, are
/// EINVAL (not a dma-buf).
#[test]
fn a_dma_buf_outlives_the_objects_last_handle() {
    let mut k = kernel();
    let h = create(&mut k, 8192);
    pwrite(&mut k, h, 100, &[1, 2, 3, 4]).unwrap();
    let fd = prime_fd(&mut k, h);
    let mut c = DrmGemClose { handle: h, pad: 0 };
    k.ioctl(FD, req_dir(1, DRM_GEM_CLOSE, 8), &mut c as *mut _ as u64)
        .unwrap();
    let mut p = DrmPrimeHandle {
        handle: 0,
        flags: 0,
        fd,
    };
    k.ioctl(FD, req(DRM_PRIME_FD_TO_HANDLE, 12), &mut p as *mut _ as u64)
        .unwrap();
    assert_eq!(pread(&mut k, p.handle, 100, 4), [1, 2, 3, 4]);
    let id = k.bo_id(FD, p.handle).unwrap();
    assert_eq!((k.bos[&id].size, k.bos[&id].refs), (8192, 1));
    // SAFETY: memfd_create with a static name; closing what we made.
    unsafe {
        let other = libc::memfd_create(c"other".as_ptr(), libc::MFD_CLOEXEC);
        libc::ftruncate(other, 8192);
        let mut q = DrmPrimeHandle {
            handle: 0,
            flags: 0,
            fd: other,
        };
        assert_eq!(
            k.ioctl(FD, req(DRM_PRIME_FD_TO_HANDLE, 12), &mut q as *mut _ as u64),
            Err(Errno::EINVAL)
        );
        libc::close(other);
        libc::close(fd);
    }
}

fn req_dir(dir: u64, nr: u32, size: usize) -> u64 {
    (dir << 30) | ((size as u64) << 16) | ((DRM_IOCTL_BASE as u64) << 8) | nr as u64
}

/// Two pages: the first readable and writable, the second inaccessible (or read-only).
struct Guard {
    base: *mut u8,
}

impl Guard {
    fn new(second: i32) -> Guard {
        // SAFETY: a fresh anonymous mapping, checked.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                8192,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        // SAFETY: changing the protection of our own second page.
        assert_eq!(
            unsafe { libc::mprotect(p.cast::<u8>().add(4096).cast(), 4096, second) },
            0
        );
        Guard { base: p.cast() }
    }

    /// The address `n` bytes before the second page.
    fn before_second(&self, n: usize) -> *mut u8 {
        // SAFETY: within the first page.
        unsafe { self.base.add(4096 - n) }
    }

    /// Changes the second page's protection.
    fn protect_second(&self, prot: i32) {
        // SAFETY: changing the protection of our own second page.
        assert_eq!(
            unsafe { libc::mprotect(self.second().cast(), 4096, prot) },
            0
        );
    }

    /// The second page.
    fn second(&self) -> *mut u8 {
        // SAFETY: the start of the second page of the mapping.
        unsafe { self.base.add(4096) }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        // SAFETY: unmapping our own mapping.
        unsafe { libc::munmap(self.base.cast(), 8192) };
    }
}

#[test]
fn arguments_are_copied_by_the_callers_encoded_size_as_drm_ioctl_does() {
    let mut k = kernel();
    let nr = DRM_COMMAND_BASE + I915_GEM_CREATE;
    // Under-sized: an 8-byte GEM_CREATE reads the size and writes back only 8 bytes
    // (the rounded size), never the handle over the caller's next 8 bytes.
    let mut buf = [0u64, 0x5a5a_5a5a_5a5a_5a5a];
    buf[0] = 100;
    k.ioctl(FD, req(nr, 8), buf.as_mut_ptr() as u64).unwrap();
    assert_eq!(buf, [4096, 0x5a5a_5a5a_5a5a_5a5a]);
    assert_eq!(k.bos.len(), 1, "the object exists, its handle unseen");
    // Over-sized: 64 bytes are copied in and out; the tail comes back as it was.
    let mut buf = [0x77u64; 8];
    buf[0] = 4096;
    buf[1] = 0;
    k.ioctl(FD, req(nr, 64), buf.as_mut_ptr() as u64).unwrap();
    assert_eq!(buf[0], 4096);
    assert_eq!(buf[1] & 0xffff_ffff, 2, "handle 2");
    assert_eq!(buf[2..], [0x77; 6]);
    // Over-sized into an inaccessible page: the copy-in faults, nothing is created.
    let g = Guard::new(libc::PROT_NONE);
    let at = g.before_second(16).cast::<I915GemCreate>();
    // SAFETY: 16 writable bytes before the guard page.
    unsafe {
        at.write(I915GemCreate {
            size: 4096,
            handle: 0,
            pad: 0,
        })
    };
    assert_eq!(k.ioctl(FD, req(nr, 32), at as u64), Err(Errno::EFAULT));
    assert_eq!(k.bos.len(), 2);
    // The exact size still works there.
    k.ioctl(FD, req(nr, 16), at as u64).unwrap();
    // SAFETY: reading back our own struct.
    assert_eq!(unsafe { at.read() }.handle, 3);
    // A read-only argument: the object is made, then the copy-out faults: EFAULT, as the
    // kernel answers (drm_ioctl overrides the result when copy_to_user fails).
    let ro = Guard::new(libc::PROT_READ | libc::PROT_WRITE);
    // SAFETY: writing the argument into our own page before making it read-only.
    unsafe {
        ro.second().cast::<I915GemCreate>().write(I915GemCreate {
            size: 4096,
            handle: 0,
            pad: 0,
        })
    };
    ro.protect_second(libc::PROT_READ);
    assert_eq!(
        k.ioctl(FD, req(nr, 16), ro.second() as u64),
        Err(Errno::EFAULT)
    );
    assert_eq!(k.bos.len(), 4);
    // The upper 32 bits of the request are not part of the command.
    let mut c = I915GemCreate {
        size: 4096,
        handle: 0,
        pad: 0,
    };
    k.ioctl(FD, req(nr, 16) | (0xdead << 32), &mut c as *mut _ as u64)
        .unwrap();
    assert_eq!(c.handle, 5);
}

#[test]
fn directions_follow_both_the_callers_encoding_and_the_kernels_declaration() {
    let mut k = kernel();
    let h = create(&mut k, 4096);
    // GEM_CLOSE encoded as _IO: nothing is read, so it closes handle 0: EINVAL
    // (drm_gem_handle_delete), and the wild pointer is never touched.
    assert_eq!(
        k.ioctl(FD, req_dir(0, DRM_GEM_CLOSE, 0), 0x10),
        Err(Errno::EINVAL)
    );
    // _IOR (read-only for the caller) is not IOC_IN either.
    let mut c = DrmGemClose { handle: h, pad: 0 };
    assert_eq!(
        k.ioctl(FD, req_dir(2, DRM_GEM_CLOSE, 8), &mut c as *mut _ as u64),
        Err(Errno::EINVAL)
    );
    assert!(k.bo_id(FD, h).is_ok(), "handle {h} is still open");
    // GET_APERTURE is _IOR in the kernel: an _IOWR caller's input is not read (a
    // write-only page would do), the answer is written.
    let mut ap = [0u64; 2];
    k.ioctl(
        FD,
        req_dir(3, DRM_COMMAND_BASE + I915_GEM_GET_APERTURE, 16),
        ap.as_mut_ptr() as u64,
    )
    .unwrap();
    assert_eq!(ap, [1 << 31, 1 << 31]);
    // A 16-byte MMAP_GTT never reads the 16 bytes after it (flags there would be
    // EINVAL as an MMAP_OFFSET).
    let mut m = [h as u64, 0, 0xffff, 0xffff];
    k.ioctl(
        FD,
        req(DRM_COMMAND_BASE + I915_GEM_MMAP_GTT, 16),
        m.as_mut_ptr() as u64,
    )
    .unwrap();
    assert!(k.mmap_target(m[1]).is_some());
    assert_eq!(m[2..], [0xffff, 0xffff]);
    // The same bytes as a 32-byte MMAP_OFFSET: unknown flags, EINVAL.
    assert_eq!(
        k.ioctl(
            FD,
            req(DRM_COMMAND_BASE + I915_GEM_MMAP_GTT, 32),
            m.as_mut_ptr() as u64,
        ),
        Err(Errno::EINVAL)
    );
}

#[test]
fn an_out_fence_comes_back_only_through_execbuffer2_wr() {
    let mut k = kernel();
    let (target, batch, mut relocs) = store_batch(&mut k);
    let mut objs = [obj(target, &mut []), obj(batch, &mut relocs)];
    let mut eb = I915GemExecbuffer2 {
        buffers_ptr: objs.as_mut_ptr() as u64,
        buffer_count: 2,
        batch_start_offset: 0,
        batch_len: 0,
        dr1: 0,
        dr4: 0,
        num_cliprects: 0,
        cliprects_ptr: 0,
        flags: I915_EXEC_HANDLE_LUT | I915_EXEC_FENCE_OUT,
        rsvd1: 0,
        rsvd2: 0,
    };
    let nr = DRM_COMMAND_BASE + I915_GEM_EXECBUFFER2;
    // DRM_IOCTL_I915_GEM_EXECBUFFER2 is _IOW: the argument is not copied back.
    k.ioctl(FD, req_dir(1, nr, 64), &mut eb as *mut _ as u64)
        .unwrap();
    assert_eq!(eb.rsvd2, 0);
    // DRM_IOCTL_I915_GEM_EXECBUFFER2_WR is _IOWR: the fence fd is in rsvd2's upper half.
    k.ioctl(FD, req_dir(3, nr, 64), &mut eb as *mut _ as u64)
        .unwrap();
    let fence = (eb.rsvd2 >> 32) as i32;
    assert!(fence > 2, "{:#x}", eb.rsvd2);
    // SAFETY: closing the fence fd we were given.
    unsafe { libc::close(fence) };
}

/// An anonymous mapping of `len` bytes (no memory is used until touched).
struct Anon {
    base: *mut u8,
    len: usize,
}

impl Anon {
    /// A mapping the kernel is asked (a hint, not MAP_FIXED) to place low in the address
    /// space, so that ranges far past it still lie in user space.
    fn new_low(len: usize) -> Anon {
        // SAFETY: a fresh anonymous mapping at a hinted address, checked; without
        // MAP_FIXED the kernel never replaces an existing mapping.
        let p = unsafe {
            libc::mmap(
                0x1000_0000_0000usize as *mut libc::c_void,
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        Anon {
            base: p.cast(),
            len,
        }
    }

    fn new(len: usize) -> Anon {
        // SAFETY: a fresh anonymous mapping, checked.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        Anon {
            base: p.cast(),
            len,
        }
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: the whole mapping, readable and writable, owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.base, self.len) }
    }
}

impl Drop for Anon {
    fn drop(&mut self) {
        // SAFETY: unmapping our own mapping.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

fn pwrite_raw(k: &mut Kernel, handle: u32, offset: u64, size: u64, ptr: u64) -> Result<(), Errno> {
    let mut p = I915GemPread {
        handle,
        pad: 0,
        offset,
        size,
        data_ptr: ptr,
    };
    i915(k, I915_GEM_PWRITE, &mut p)
}

#[test]
fn pwrite_checks_handle_and_range_before_copying_anything() {
    let mut k = kernel();
    let h = create(&mut k, 4096);
    let small = [1u8; 16];
    // 2 GiB "from" a 16-byte buffer into an unknown handle: ENOENT at once (nothing is
    // read first), as i915_gem_pwrite_ioctl looks the handle up before copying.
    let t = std::time::Instant::now();
    assert_eq!(
        pwrite_raw(&mut k, 99, 0, 1 << 31, small.as_ptr() as u64),
        Err(Errno::ENOENT)
    );
    // The same into a real object: the range is checked (EINVAL) before any copy.
    assert_eq!(
        pwrite_raw(&mut k, h, 0, 1 << 31, small.as_ptr() as u64),
        Err(Errno::EINVAL)
    );
    assert!(t.elapsed().as_millis() < 500, "{:?}", t.elapsed());
    // Outside the user address space: EFAULT (access_ok), before the handle.
    assert_eq!(pwrite_raw(&mut k, 99, 0, 16, 1 << 48), Err(Errno::EFAULT));
    assert_eq!(
        pwrite_raw(&mut k, h, 0, 16, u64::MAX - 8),
        Err(Errno::EFAULT)
    );
    // An empty copy succeeds whatever the handle (the kernel returns before looking).
    assert_eq!(pwrite_raw(&mut k, 99, 0, 0, 0), Ok(()));
    // A fault part-way: the bytes before it land, the call is EFAULT.
    let h2 = create(&mut k, 8192);
    let g = Guard::new(libc::PROT_NONE);
    // SAFETY: filling our own first page.
    unsafe { std::ptr::write_bytes(g.base, 0xab, 4096) };
    assert_eq!(
        pwrite_raw(&mut k, h2, 0, 8192, g.base as u64),
        Err(Errno::EFAULT)
    );
    assert_eq!(pread(&mut k, h2, 0, 4), [0xab; 4]);
    assert_eq!(
        pread(&mut k, h2, 4092, 8),
        [0xab, 0xab, 0xab, 0xab, 0, 0, 0, 0]
    );
}

#[test]
fn large_pwrite_and_pread_move_every_byte_in_bounded_steps() {
    let mut k = kernel();
    let len = 2 * crate::user::COPY_STEP + 3 * 4096;
    let h = create(&mut k, len as u64);
    let mut src = Anon::new(len);
    for (i, chunk) in src.bytes().chunks_mut(4096).enumerate() {
        chunk.fill(i as u8);
    }
    pwrite_raw(&mut k, h, 0, len as u64, src.base as u64).unwrap();
    let mut dst = Anon::new(len);
    let mut p = I915GemPread {
        handle: h,
        pad: 0,
        offset: 0,
        size: len as u64,
        data_ptr: dst.base as u64,
    };
    i915(&mut k, I915_GEM_PREAD, &mut p).unwrap();
    assert!(dst.bytes() == src.bytes());
}

/// A whole 2 GiB object written and read back: more than one process_vm_readv call
/// moves. Needs about 6 GiB of memory, hence not in the default run:
/// `cargo test -p gtsim-i915 -- --ignored whole_2gib`.
#[test]
#[ignore = "needs ~6 GiB of memory and some seconds"]
fn whole_2gib_object_pwrite_and_pread() {
    let mut k = kernel();
    let len = 1usize << 31;
    let h = create(&mut k, len as u64);
    let mut src = Anon::new(len);
    for (i, chunk) in src.bytes().chunks_mut(1 << 20).enumerate() {
        chunk[0] = i as u8;
        chunk[(1 << 20) - 1] = !(i as u8);
    }
    pwrite_raw(&mut k, h, 0, len as u64, src.base as u64).unwrap();
    drop(src);
    let mut dst = Anon::new(len);
    let mut p = I915GemPread {
        handle: h,
        pad: 0,
        offset: 0,
        size: len as u64,
        data_ptr: dst.base as u64,
    };
    i915(&mut k, I915_GEM_PREAD, &mut p).unwrap();
    for (i, chunk) in dst.bytes().chunks(1 << 20).enumerate() {
        assert_eq!((chunk[0], chunk[(1 << 20) - 1]), (i as u8, !(i as u8)));
    }
}

#[test]
fn relocations_are_checked_chunk_by_chunk_before_more_are_read() {
    let mut k = kernel();
    let (target, batch, relocs) = store_batch(&mut k);
    // A list that claims u32::MAX entries: the first chunk holds a bad one (outside its
    // object), and nothing after the first chunk is even mapped.
    let a = Anon::new_low(64 << 10);
    // SAFETY: making the tail of our own mapping inaccessible. (Not unmapped: another
    // test thread could map something there, and the kernel would then read it.)
    unsafe { libc::mprotect(a.base.add(16 << 10).cast(), 48 << 10, libc::PROT_NONE) };
    let mut bad = relocs[0];
    bad.offset = 1 << 20;
    // SAFETY: the first entry of our own mapping.
    unsafe { a.base.cast::<I915GemRelocationEntry>().write(bad) };
    let mut objs = [obj(target, &mut []), obj(batch, &mut [])];
    objs[1].relocs_ptr = a.base as u64;
    objs[1].relocation_count = u32::MAX;
    // The claimed array (128 GiB) must lie in the user address space (access_ok) before
    // any entry is read: where address randomization put the mapping within 128 GiB of
    // the top, that check alone refuses it with EFAULT.
    let fits = crate::user::access_ok(a.base as u64, u64::from(u32::MAX) * 32);
    assert_eq!(
        exec(&mut k, &mut objs, I915_EXEC_HANDLE_LUT, 0),
        Err(if fits { Errno::EINVAL } else { Errno::EFAULT })
    );
    // A good first chunk, then the unmapped rest: EFAULT, nothing bound or patched.
    for i in 0..512 {
        // SAFETY: within the mapped 16 KiB.
        unsafe {
            a.base
                .cast::<I915GemRelocationEntry>()
                .add(i)
                .write(relocs[0])
        };
    }
    assert_eq!(
        exec(&mut k, &mut objs, I915_EXEC_HANDLE_LUT, 0),
        Err(Errno::EFAULT)
    );
    assert!(k.bound.is_empty());
    // A list reaching past the user address space: EFAULT before reading (access_ok).
    objs[1].relocs_ptr = crate::user::TASK_SIZE_MAX - 64;
    objs[1].relocation_count = 4;
    assert_eq!(
        exec(&mut k, &mut objs, I915_EXEC_HANDLE_LUT, 0),
        Err(Errno::EFAULT)
    );
    // The count of a real list is used as given: 512 good entries run.
    objs[1].relocs_ptr = a.base as u64;
    objs[1].relocation_count = 512;
    exec(&mut k, &mut objs, I915_EXEC_HANDLE_LUT, 0).unwrap();
    assert_eq!(pread(&mut k, target, 0x40, 4), 0xfeedu32.to_le_bytes());
}

#[test]
fn write_backs_to_read_only_memory_are_ignored_as_i915_does() {
    let mut k = kernel();
    let (target, batch, relocs) = store_batch(&mut k);
    // The relocation list and the object list on read-only pages: the submission runs,
    // the offsets just do not come back (eb_relocate_vma, i915_gem_execbuffer2_ioctl).
    let g = Guard::new(libc::PROT_READ | libc::PROT_WRITE);
    let r = g.second().cast::<I915GemRelocationEntry>();
    let o = g.base.cast::<I915GemExecObject2>();
    // SAFETY: writing into our own pages before protecting them.
    unsafe {
        r.write(relocs[0]);
        o.write(obj(target, &mut []));
        let mut b = obj(batch, &mut []);
        b.relocs_ptr = r as u64;
        b.relocation_count = 1;
        o.add(1).write(b);
    }
    g.protect_second(libc::PROT_READ);
    // SAFETY: making our own first page read-only.
    assert_eq!(
        unsafe { libc::mprotect(g.base.cast(), 4096, libc::PROT_READ) },
        0
    );
    // SAFETY: the objects live in the (read-only) first page.
    let objs = unsafe { std::slice::from_raw_parts_mut(o, 2) };
    exec(&mut k, objs, I915_EXEC_HANDLE_LUT, 0).unwrap();
    assert_eq!(pread(&mut k, target, 0x40, 4), 0xfeedu32.to_le_bytes());
    assert_eq!(objs[0].offset, 0, "not written back");
    // SAFETY: reading our own page.
    assert_eq!(unsafe { r.read() }.presumed_offset, 0);
}

fn memfd() -> i32 {
    // SAFETY: memfd_create with a static name; checked.
    let fd = unsafe { libc::memfd_create(c"gtsim-test".as_ptr(), libc::MFD_CLOEXEC) };
    assert!(fd >= 0);
    fd
}

fn create_on(k: &mut Kernel, fd: i32) -> Result<u32, Errno> {
    let mut c = I915GemCreate {
        size: 4096,
        handle: 0,
        pad: 0,
    };
    k.ioctl(
        fd,
        req(DRM_COMMAND_BASE + I915_GEM_CREATE, 16),
        &mut c as *mut _ as u64,
    )?;
    Ok(c.handle)
}

#[test]
fn fds_closed_or_replaced_behind_the_hooks_stop_being_drm_fds() {
    // The calls below reach the C library directly (this test's Kernel is not the one the
    // hooks serve), as a close through fclose or a raw system call would.
    let mut k = Kernel::default();
    // dup2 of another file onto a registered fd.
    let fd = memfd();
    k.open_file(fd, Node::Render);
    create_on(&mut k, fd).unwrap();
    let other = memfd();
    // SAFETY: dup2 between fds this test owns.
    assert_eq!(unsafe { libc::dup2(other, fd) }, fd);
    assert!(!k.is_drm_fd(fd));
    assert_eq!(create_on(&mut k, fd), Err(Errno::EBADF));
    assert!(k.bos.is_empty(), "the file's objects were released");
    // fclose(fdopen(fd)): glibc closes without calling close().
    let fd2 = memfd();
    k.open_file(fd2, Node::Render);
    create_on(&mut k, fd2).unwrap();
    // SAFETY: fdopen/fclose of an fd this test owns; the stream owns it afterwards.
    unsafe {
        let f = libc::fdopen(fd2, c"r+".as_ptr());
        assert!(!f.is_null());
        libc::fclose(f);
    }
    let reused = memfd(); // often takes fd2's number again
    assert!(!k.is_drm_fd(fd2));
    assert!(k.bos.is_empty());
    // A dup keeps the file alive when the original goes behind our back.
    let fd3 = memfd();
    k.open_file(fd3, Node::Render);
    let h = create_on(&mut k, fd3).unwrap();
    // SAFETY: dup of an fd this test owns.
    let fd4 = unsafe { libc::dup(fd3) };
    k.dup_fd(fd3, fd4);
    // SAFETY: closing with the raw system call, which no hook sees.
    assert_eq!(unsafe { libc::syscall(libc::SYS_close, fd3) }, 0);
    assert_eq!(create_on(&mut k, fd3), Err(Errno::EBADF));
    assert!(k.bo_id(fd4, h).is_ok(), "still open through the dup");
    // dup_fd onto a registered fd drops what it was.
    let fd5 = memfd();
    k.open_file(fd5, Node::Render);
    // SAFETY: dup2 between fds this test owns.
    assert_eq!(unsafe { libc::dup2(fd4, fd5) }, fd5);
    k.dup_fd(fd4, fd5);
    assert!(k.bo_id(fd5, h).is_ok(), "fd5 now names fd4's file");
    // close_range.
    k.close_range(fd4.min(fd5) as u32, fd4.max(fd5) as u32);
    assert!(!k.is_drm_fd(fd4) && !k.is_drm_fd(fd5));
    assert!(k.bos.is_empty());
    for f in [other, reused, fd, fd4, fd5] {
        // SAFETY: closing fds this test owns.
        unsafe { libc::close(f) };
    }
}

/// Runs EXECBUFFER2_WR of the store batch after `edit` changed the request.
fn exec_edited(
    k: &mut Kernel,
    edit: impl FnOnce(&mut I915GemExecbuffer2, &mut [I915GemExecObject2], &mut [I915GemRelocationEntry]),
) -> Result<(), Errno> {
    let (target, batch, mut relocs) = store_batch(k);
    let mut objs = [obj(target, &mut []), obj(batch, &mut relocs)];
    let mut eb = I915GemExecbuffer2 {
        buffers_ptr: objs.as_mut_ptr() as u64,
        buffer_count: 2,
        batch_start_offset: 0,
        batch_len: 0,
        dr1: 0,
        dr4: 0,
        num_cliprects: 0,
        cliprects_ptr: 0,
        flags: I915_EXEC_HANDLE_LUT,
        rsvd1: 0,
        rsvd2: 0,
    };
    edit(&mut eb, &mut objs, &mut relocs);
    i915(k, I915_GEM_EXECBUFFER2, &mut eb)
}

#[test]
fn execbuffer_errnos_match_i915() {
    // Each case cites the check in drivers/gpu/drm/i915/gem/i915_gem_execbuffer.c
    // (Linux 6.1) that answers it.
    type Edit =
        fn(&mut I915GemExecbuffer2, &mut [I915GemExecObject2], &mut [I915GemRelocationEntry]);
    let cases: &[(&str, Edit, Errno)] = &[
        // check_buffer_count
        ("no objects", |eb, _, _| eb.buffer_count = 0, Errno::EINVAL),
        (
            "more than INT_MAX objects",
            |eb, _, _| eb.buffer_count = 1 << 31,
            Errno::EINVAL,
        ),
        // i915_gem_check_execbuffer: __I915_EXEC_ILLEGAL_FLAGS
        (
            "unknown flag bit 22",
            |eb, _, _| eb.flags |= 1 << 22,
            Errno::EINVAL,
        ),
        (
            "unknown flag bit 40",
            |eb, _, _| eb.flags |= 1 << 40,
            Errno::EINVAL,
        ),
        (
            "I915_EXEC_CONSTANTS_ABSOLUTE",
            |eb, _, _| eb.flags |= 1 << 6,
            Errno::EINVAL,
        ),
        (
            "resource streamer",
            |eb, _, _| eb.flags |= I915_EXEC_RESOURCE_STREAMER,
            Errno::EINVAL,
        ),
        // ... cliprects without FENCE_ARRAY (or extensions)
        (
            "cliprects_ptr",
            |eb, _, _| eb.cliprects_ptr = 0x1000,
            Errno::EINVAL,
        ),
        (
            "num_cliprects",
            |eb, _, _| eb.num_cliprects = 1,
            Errno::EINVAL,
        ),
        // ... DR1 / DR4
        ("DR1", |eb, _, _| eb.dr1 = 1, Errno::EINVAL),
        ("DR4", |eb, _, _| eb.dr4 = 1, Errno::EINVAL),
        // ... batch offset and length multiples of 8
        ("batch_len 12", |eb, _, _| eb.batch_len = 12, Errno::EINVAL),
        (
            "batch_start_offset 4",
            |eb, _, _| eb.batch_start_offset = 4,
            Errno::EINVAL,
        ),
        // the exec list copy
        (
            "unreadable object list",
            |eb, _, _| eb.buffers_ptr = 0x1000,
            Errno::EFAULT,
        ),
        // i915_gem_do_execbuffer: I915_EXEC_SECURE without HAS_SECURE_BATCHES
        (
            "secure batch",
            |eb, _, _| eb.flags |= I915_EXEC_SECURE,
            Errno::EPERM,
        ),
        // parse_execbuf2_extensions
        (
            "extensions with a fence array",
            |eb, _, _| eb.flags |= I915_EXEC_USE_EXTENSIONS | I915_EXEC_FENCE_ARRAY,
            Errno::EINVAL,
        ),
        // IN_FENCES: both, or sync_file_get_fence failing
        (
            "FENCE_IN and FENCE_SUBMIT",
            |eb, _, _| eb.flags |= I915_EXEC_FENCE_IN | I915_EXEC_FENCE_SUBMIT,
            Errno::EINVAL,
        ),
        (
            "FENCE_IN with fd -1",
            |eb, _, _| {
                eb.flags |= I915_EXEC_FENCE_IN;
                eb.rsvd2 = 0xffff_ffff;
            },
            Errno::EINVAL,
        ),
        (
            "FENCE_IN with stdin",
            |eb, _, _| {
                eb.flags |= I915_EXEC_FENCE_IN;
                eb.rsvd2 = 0;
            },
            Errno::EINVAL,
        ),
        // eb_select_context
        ("unknown context", |eb, _, _| eb.rsvd1 = 9, Errno::ENOENT),
        // eb_select_legacy_ring
        (
            "BSD dispatch bits on the render ring",
            |eb, _, _| eb.flags |= 1 | 1 << 13,
            Errno::EINVAL,
        ),
        ("ring 9", |eb, _, _| eb.flags |= 9, Errno::EINVAL),
        // eb_lookup_vma / eb_validate_vma / eb_add_vma
        ("unknown handle", |_, o, _| o[0].handle = 77, Errno::ENOENT),
        (
            "unknown object flag",
            |_, o, _| o[0].flags = 1 << 8,
            Errno::EINVAL,
        ),
        ("alignment 3", |_, o, _| o[0].alignment = 3, Errno::EINVAL),
        (
            "unaligned pad_to_size",
            |_, o, _| {
                o[0].flags = EXEC_OBJECT_PAD_TO_SIZE;
                o[0].rsvd1 = 100;
            },
            Errno::EINVAL,
        ),
        (
            "writable batch",
            |_, o, _| o[1].flags = EXEC_OBJECT_WRITE,
            Errno::EINVAL,
        ),
        (
            "batch past its object",
            |eb, _, _| eb.batch_len = 8192,
            Errno::EINVAL,
        ),
        // eb_relocate_entry
        (
            "two write domains",
            |_, _, r| r[0].write_domain = 6,
            Errno::EINVAL,
        ),
        (
            "CPU read domain",
            |_, _, r| r[0].read_domains = 1,
            Errno::EINVAL,
        ),
        (
            "unaligned relocation",
            |_, _, r| r[0].offset = 6,
            Errno::EINVAL,
        ),
        (
            "relocation target not listed",
            |_, _, r| r[0].target_handle = 2,
            Errno::ENOENT,
        ),
    ];
    for (what, edit, errno) in cases {
        let mut k = kernel();
        assert_eq!(exec_edited(&mut k, *edit), Err(*errno), "{what}");
        assert!(k.bound.is_empty(), "{what}: nothing was bound");
    }
    // UXA's garbage DR4 is cleared, not refused.
    let mut k = kernel();
    exec_edited(&mut k, |eb, _, _| eb.dr4 = 0xffff_ffff).unwrap();
}

#[test]
fn fence_errnos_match_i915() {
    let mut k = kernel();
    let mut c = DrmSyncobjCreate {
        handle: 0,
        flags: 0,
    };
    k.ioctl(FD, req(DRM_SYNCOBJ_CREATE, 8), &mut c as *mut _ as u64)
        .unwrap();
    let with_fences = |k: &mut Kernel, fences: &[I915GemExecFence]| {
        exec_edited(k, |eb, _, _| {
            eb.flags |= I915_EXEC_FENCE_ARRAY;
            eb.cliprects_ptr = fences.as_ptr() as u64;
            eb.num_cliprects = fences.len() as u32;
        })
    };
    let f = |handle, flags| I915GemExecFence { handle, flags };
    // add_fence_array: unknown flags, unknown syncobj, waiting on a syncobj with no fence.
    assert_eq!(with_fences(&mut k, &[f(c.handle, 4)]), Err(Errno::EINVAL));
    assert_eq!(with_fences(&mut k, &[f(99, 0)]), Err(Errno::ENOENT));
    assert_eq!(
        with_fences(&mut k, &[f(c.handle, I915_EXEC_FENCE_WAIT)]),
        Err(Errno::EINVAL)
    );
    // A list outside the user address space: EFAULT (access_ok).
    assert_eq!(
        exec_edited(&mut k, |eb, _, _| {
            eb.flags |= I915_EXEC_FENCE_ARRAY;
            eb.cliprects_ptr = crate::user::TASK_SIZE_MAX - 8;
            eb.num_cliprects = 2;
        }),
        Err(Errno::EFAULT)
    );
    // Signal, then wait on it: both work.
    with_fences(&mut k, &[f(c.handle, I915_EXEC_FENCE_SIGNAL)]).unwrap();
    with_fences(&mut k, &[f(c.handle, I915_EXEC_FENCE_WAIT)]).unwrap();
}

#[test]
fn an_out_fence_is_a_valid_in_fence() {
    let mut k = kernel();
    let (target, batch, mut relocs) = store_batch(&mut k);
    let mut objs = [obj(target, &mut []), obj(batch, &mut relocs)];
    let mut eb = I915GemExecbuffer2 {
        buffers_ptr: objs.as_mut_ptr() as u64,
        buffer_count: 2,
        batch_start_offset: 0,
        batch_len: 0,
        dr1: 0,
        dr4: 0,
        num_cliprects: 0,
        cliprects_ptr: 0,
        flags: I915_EXEC_HANDLE_LUT | I915_EXEC_FENCE_OUT,
        rsvd1: 0,
        rsvd2: 0,
    };
    i915(&mut k, I915_GEM_EXECBUFFER2, &mut eb).unwrap();
    let out = (eb.rsvd2 >> 32) as i32;
    eb.flags = I915_EXEC_HANDLE_LUT | I915_EXEC_FENCE_IN;
    eb.rsvd2 = out as u32 as u64;
    i915(&mut k, I915_GEM_EXECBUFFER2, &mut eb).unwrap();
    // SAFETY: closing the fence fd we were given.
    unsafe { libc::close(out) };
}

#[test]
fn gem_and_syncobj_errnos_match_the_kernel() {
    let mut k = kernel();
    let h = create(&mut k, 8192);
    let gem = |k: &mut Kernel, c: &mut I915GemCreate| i915(k, I915_GEM_CREATE, c);
    let c = |size| I915GemCreate {
        size,
        handle: 0,
        pad: 0,
    };
    // __i915_gem_object_create_user_ext: 0 (also after wrapping) EINVAL; more than
    // INT_MAX pages E2BIG. 1 TiB: the kernel makes it, the emulation refuses (E2BIG).
    assert_eq!(gem(&mut k, &mut c(0)), Err(Errno::EINVAL));
    assert_eq!(gem(&mut k, &mut c(u64::MAX)), Err(Errno::EINVAL));
    assert_eq!(gem(&mut k, &mut c(1 << 44)), Err(Errno::E2BIG));
    assert_eq!(gem(&mut k, &mut c(1 << 40)), Err(Errno::E2BIG));
    assert_eq!(gem(&mut k, &mut c((1 << 31) + 1)), Err(Errno::E2BIG));
    let mut big = c(1 << 31);
    gem(&mut k, &mut big).unwrap();
    let mut close = DrmGemClose {
        handle: big.handle,
        pad: 0,
    };
    k.ioctl(FD, req(DRM_GEM_CLOSE, 8), &mut close as *mut _ as u64)
        .unwrap();
    // i915_gem_mmap_ioctl: unknown flags, then the handle, then the range; vm_mmap
    // refuses an empty mapping.
    let mut m = I915GemMmap {
        handle: 77,
        pad: 0,
        offset: 0,
        size: 4096,
        addr_ptr: 0,
        flags: 2,
    };
    assert_eq!(i915(&mut k, I915_GEM_MMAP, &mut m), Err(Errno::EINVAL));
    m.flags = I915_MMAP_WC;
    assert_eq!(i915(&mut k, I915_GEM_MMAP, &mut m), Err(Errno::ENOENT));
    m.handle = h;
    m.size = 0;
    assert_eq!(i915(&mut k, I915_GEM_MMAP, &mut m), Err(Errno::EINVAL));
    m.size = 3 * 4096;
    assert_eq!(i915(&mut k, I915_GEM_MMAP, &mut m), Err(Errno::EINVAL));
    m.size = 8192;
    i915(&mut k, I915_GEM_MMAP, &mut m).unwrap();
    // SAFETY: unmapping what the ioctl mapped.
    unsafe { libc::munmap(m.addr_ptr as *mut libc::c_void, 8192) };
    // Domain, wait, madvise and caching arguments are checked before the handle.
    let mut d = I915GemSetDomain {
        handle: 77,
        read_domains: 2,
        write_domain: 0,
    };
    assert_eq!(
        i915(&mut k, I915_GEM_SET_DOMAIN, &mut d),
        Err(Errno::EINVAL)
    );
    d.read_domains = 0;
    assert_eq!(i915(&mut k, I915_GEM_SET_DOMAIN, &mut d), Ok(()));
    d.read_domains = 1;
    assert_eq!(
        i915(&mut k, I915_GEM_SET_DOMAIN, &mut d),
        Err(Errno::ENOENT)
    );
    let mut w = I915GemWait {
        bo_handle: 77,
        flags: 1,
        timeout_ns: 0,
    };
    assert_eq!(i915(&mut k, I915_GEM_WAIT, &mut w), Err(Errno::EINVAL));
    let mut mv = I915GemMadvise {
        handle: 77,
        madv: 2,
        retained: 0,
    };
    assert_eq!(i915(&mut k, I915_GEM_MADVISE, &mut mv), Err(Errno::EINVAL));
    let mut ca = I915GemCaching {
        handle: 77,
        caching: 3,
    };
    assert_eq!(
        i915(&mut k, I915_GEM_SET_CACHING, &mut ca),
        Err(Errno::EINVAL)
    );
    // drm_syncobj.c (Linux 6.1).
    let sync = |k: &mut Kernel, nr: u32, arg: &mut [u8]| {
        k.ioctl(FD, req(nr, arg.len()), arg.as_mut_ptr() as u64)
    };
    let mut cr = [0u8; 8];
    cr[4] = 2; // flags: only CREATE_SIGNALED is known
    assert_eq!(
        sync(&mut k, DRM_SYNCOBJ_CREATE, &mut cr),
        Err(Errno::EINVAL)
    );
    cr[4] = 1;
    sync(&mut k, DRM_SYNCOBJ_CREATE, &mut cr).unwrap();
    let handle = u32::from_le_bytes(cr[..4].try_into().unwrap());
    let handles = [handle, 99];
    let wait = |handles: &[u32], count: u32, flags: u32| {
        let mut w = [0u8; 32];
        w[..8].copy_from_slice(&(handles.as_ptr() as u64).to_le_bytes());
        w[16..20].copy_from_slice(&count.to_le_bytes());
        w[20..24].copy_from_slice(&flags.to_le_bytes());
        w
    };
    assert_eq!(
        sync(&mut k, DRM_SYNCOBJ_WAIT, &mut wait(&handles, 0, 0)),
        Err(Errno::EINVAL),
        "no handles"
    );
    assert_eq!(
        sync(&mut k, DRM_SYNCOBJ_WAIT, &mut wait(&handles, 1, 4)),
        Err(Errno::EINVAL),
        "unknown flags"
    );
    assert_eq!(
        sync(&mut k, DRM_SYNCOBJ_WAIT, &mut wait(&handles, 2, 0)),
        Err(Errno::ENOENT),
        "unknown syncobj"
    );
    assert_eq!(
        sync(&mut k, DRM_SYNCOBJ_WAIT, &mut wait(&handles, 1 << 20, 0)),
        Err(Errno::ENOMEM),
        "more handles than kmalloc allows"
    );
    sync(&mut k, DRM_SYNCOBJ_WAIT, &mut wait(&handles, 1, 0)).unwrap();
    let array = |handles: &[u32], count: u32, pad: u32| {
        let mut a = [0u8; 16];
        a[..8].copy_from_slice(&(handles.as_ptr() as u64).to_le_bytes());
        a[8..12].copy_from_slice(&count.to_le_bytes());
        a[12..].copy_from_slice(&pad.to_le_bytes());
        a
    };
    for nr in [DRM_SYNCOBJ_RESET, DRM_SYNCOBJ_SIGNAL] {
        assert_eq!(
            sync(&mut k, nr, &mut array(&handles, 0, 0)),
            Err(Errno::EINVAL)
        );
        assert_eq!(
            sync(&mut k, nr, &mut array(&handles, 1, 1)),
            Err(Errno::EINVAL)
        );
        assert_eq!(
            sync(&mut k, nr, &mut array(&handles, 2, 0)),
            Err(Errno::ENOENT)
        );
        sync(&mut k, nr, &mut array(&handles, 1, 0)).unwrap();
    }
    let mut de = [0u8; 8];
    de[..4].copy_from_slice(&handle.to_le_bytes());
    de[4] = 1;
    assert_eq!(
        sync(&mut k, DRM_SYNCOBJ_DESTROY, &mut de),
        Err(Errno::EINVAL)
    );
    de[4] = 0;
    sync(&mut k, DRM_SYNCOBJ_DESTROY, &mut de).unwrap();
    assert_eq!(
        sync(&mut k, DRM_SYNCOBJ_DESTROY, &mut de),
        Err(Errno::EINVAL)
    );
}

#[test]
fn an_object_whose_memfd_the_client_closed_never_touches_the_fds_new_owner() {
    let mut k = kernel();
    let h = create(&mut k, 4096);
    pwrite(&mut k, h, 0, &[5, 6, 7, 8]).unwrap();
    let id = k.bo_id(FD, h).unwrap();
    let fd = k.bos[&id].memfd().unwrap();
    // The client closes it (closefrom, close_range...) and the number is reused by a
    // file of its own: dup2 does both at once (no other test thread can take the number
    // in between).
    let mine = memfd();
    // SAFETY: replacing the number with a file this test owns.
    assert_eq!(unsafe { libc::dup2(mine, fd) }, fd);
    // Exporting or mapping the object fails cleanly instead of handing out the client's
    // file...
    let mut p = DrmPrimeHandle {
        handle: h,
        flags: 0,
        fd: -1,
    };
    assert_eq!(
        k.ioctl(FD, req(DRM_PRIME_HANDLE_TO_FD, 12), &mut p as *mut _ as u64),
        Err(Errno::ENOMEM)
    );
    let mut m = I915GemMmap {
        handle: h,
        pad: 0,
        offset: 0,
        size: 4096,
        addr_ptr: 0,
        flags: 0,
    };
    assert_eq!(i915(&mut k, I915_GEM_MMAP, &mut m), Err(Errno::ENOMEM));
    // ...its contents live on for the model and the ioctls...
    assert_eq!(pread(&mut k, h, 0, 4), [5, 6, 7, 8]);
    // ...and freeing it leaves the client's file open.
    k.close_fd(FD);
    assert!(k.bos.is_empty());
    // SAFETY: F_GETFD on a number this test owns.
    assert!(
        unsafe { libc::fcntl(fd, libc::F_GETFD) } >= 0,
        "the client's fd survived"
    );
    for f in [mine, fd] {
        // SAFETY: closing fds this test owns.
        unsafe { libc::close(f) };
    }
}

// ---------------------------------------------------------------------------------------
// Ice Lake (GTSIM_GEN=11): what iris needs from the kernel.
// ---------------------------------------------------------------------------------------

fn icl_kernel() -> Kernel {
    let mut k = Kernel::for_platform(crate::platform::Platform::IceLake);
    k.open_file(FD, Node::Render);
    k
}

fn query(k: &mut Kernel, id: u64, length: i32, data: &mut [u8]) -> I915QueryItem {
    let mut item = I915QueryItem {
        query_id: id,
        length,
        flags: 0,
        data_ptr: data.as_mut_ptr() as u64,
    };
    let mut q = I915Query {
        num_items: 1,
        flags: 0,
        items_ptr: &mut item as *mut I915QueryItem as u64,
    };
    i915(k, I915_QUERY, &mut q).unwrap();
    item
}

#[test]
fn ice_lake_topology_query_follows_the_length_protocol() {
    let mut k = icl_kernel();
    // i915_query.c: length 0 asks for the size, a short buffer is -EINVAL, then the
    // 26-byte answer for one slice of 8 subslices of 8 EUs.
    let size = query(&mut k, DRM_I915_QUERY_TOPOLOGY_INFO, 0, &mut []).length;
    assert_eq!(size, 26);
    let mut short = [0u8; 8];
    assert_eq!(
        query(&mut k, DRM_I915_QUERY_TOPOLOGY_INFO, 8, &mut short).length,
        -libc::EINVAL
    );
    let mut buf = [0u8; 26];
    assert_eq!(
        query(&mut k, DRM_I915_QUERY_TOPOLOGY_INFO, 26, &mut buf).length,
        26
    );
    assert_eq!(u16::from_le_bytes([buf[2], buf[3]]), 1, "max_slices");
    assert_eq!(u16::from_le_bytes([buf[4], buf[5]]), 8, "max_subslices");
    assert_eq!(&buf[16..18], &[0x01, 0xff]);
    // Two engines, rcs0 and vecs0: 16-byte header and two 56-byte drm_i915_engine_info.
    assert_eq!(
        query(&mut k, DRM_I915_QUERY_ENGINE_INFO, 0, &mut []).length,
        128
    );
    // Ivy Bridge has no topology query (Gen8+ uapi).
    let mut ivb = kernel();
    assert_eq!(
        query(&mut ivb, DRM_I915_QUERY_TOPOLOGY_INFO, 0, &mut []).length,
        -libc::ENODEV
    );
}

#[test]
fn ice_lake_contexts_have_a_48_bit_address_space() {
    let mut k = icl_kernel();
    let mut p = I915GemContextParam {
        ctx_id: 0,
        size: 0,
        param: I915_CONTEXT_PARAM_GTT_SIZE,
        value: 0,
    };
    i915(&mut k, I915_GEM_CONTEXT_GETPARAM, &mut p).unwrap();
    assert_eq!(p.value, 1 << 48);
    // Lowering one's priority is allowed, raising it needs CAP_SYS_NICE.
    p.param = I915_CONTEXT_PARAM_PRIORITY;
    p.value = (-5i64) as u64;
    i915(&mut k, I915_GEM_CONTEXT_SETPARAM, &mut p).unwrap();
    p.value = 5;
    assert_eq!(
        i915(&mut k, I915_GEM_CONTEXT_SETPARAM, &mut p),
        Err(Errno::EPERM)
    );
}

fn pinned(handle: u32, offset: u64) -> I915GemExecObject2 {
    I915GemExecObject2 {
        flags: EXEC_OBJECT_PINNED | EXEC_OBJECT_SUPPORTS_48B_ADDRESS,
        offset,
        ..obj(handle, &mut [])
    }
}

#[test]
fn softpinned_objects_run_where_the_client_put_them() {
    let mut k = icl_kernel();
    // A target at a canonical high address (bit 47 set), as iris's OTHER zone hands out,
    // and a batch whose MI_STORE_DATA_IMM (Gen8+: 64-bit address in DW1-2) writes there.
    let target_addr = 0xffff_fffe_ffff_0000u64;
    let batch_addr = 0x1_0000_0000u64;
    let target = create(&mut k, 4096);
    let batch = create(&mut k, 4096);
    let sdi = [
        (0x20 << 23) | 2,
        (target_addr + 0x40) as u32,
        (target_addr >> 32) as u32,
        0xfeed_f00d,
        0x0500_0000,
        0,
    ];
    pwrite(&mut k, batch, 0, &dwords(&sdi)).unwrap();
    let mut objs = [pinned(target, target_addr), pinned(batch, batch_addr)];
    exec(&mut k, &mut objs, 0, 0).unwrap();
    assert_eq!(pread(&mut k, target, 0x40, 4), 0xfeed_f00du32.to_le_bytes());
    // The client's offsets stay as they were (pinned objects are not moved).
    assert_eq!(objs[0].offset, target_addr);

    // A non-canonical offset (bit 47 set, bits 63:48 clear) and an unaligned one are
    // EINVAL (eb_validate_vma); so is a pin on Ivy Bridge.
    let mut bad = [
        pinned(target, target_addr & ((1 << 48) - 1)),
        pinned(batch, batch_addr),
    ];
    assert_eq!(exec(&mut k, &mut bad, 0, 0), Err(Errno::EINVAL));
    let mut bad = [pinned(target, 0x2_0000_0800), pinned(batch, batch_addr)];
    assert_eq!(exec(&mut k, &mut bad, 0, 0), Err(Errno::EINVAL));
    let mut ivb = kernel();
    let h = create(&mut ivb, 4096);
    pwrite(&mut ivb, h, 0, &dwords(&[0x0500_0000, 0])).unwrap();
    assert_eq!(
        exec(&mut ivb, &mut [pinned(h, 0x10000)], 0, 0),
        Err(Errno::EINVAL)
    );
}

#[test]
fn a_pinned_object_evicts_a_stale_binding_in_its_way() {
    let mut k = icl_kernel();
    let a = create(&mut k, 8192);
    let b = create(&mut k, 4096);
    let batch = create(&mut k, 4096);
    pwrite(&mut k, batch, 0, &dwords(&[0x0500_0000, 0])).unwrap();
    exec(
        &mut k,
        &mut [pinned(a, 0x40_0000), pinned(batch, 0x80_0000)],
        0,
        0,
    )
    .unwrap();
    // b now takes the second page of a's old range, as iris does after freeing a's VMA.
    let sdi = [(0x20 << 23) | 2, 0x40_1010, 0, 77, 0x0500_0000, 0];
    pwrite(&mut k, batch, 0, &dwords(&sdi)).unwrap();
    exec(
        &mut k,
        &mut [pinned(b, 0x40_1000), pinned(batch, 0x80_0000)],
        0,
        0,
    )
    .unwrap();
    assert_eq!(pread(&mut k, b, 0x10, 4), 77u32.to_le_bytes());
    assert_eq!(
        pread(&mut k, a, 0x1010, 4),
        [0; 4],
        "a was evicted, not written"
    );
}

fn create_ext(k: &mut Kernel, params: &[(u64, u64, u32)]) -> Result<u32, Errno> {
    // A chain of SETPARAM extensions: i915_user_extension (32 bytes) then the
    // drm_i915_gem_context_param (24 bytes), each pointing at the next.
    let mut exts: Vec<[u64; 7]> = params
        .iter()
        .map(|&(param, value, size)| [0, 0, 0, 0, (size as u64) << 32, param, value])
        .collect();
    for i in (0..exts.len().saturating_sub(1)).rev() {
        let next = &exts[i + 1] as *const [u64; 7] as u64;
        exts[i][0] = next;
    }
    let mut c = I915GemContextCreateExt {
        ctx_id: 0,
        flags: I915_CONTEXT_CREATE_FLAGS_USE_EXTENSIONS,
        extensions: exts.first().map_or(0, |e| e as *const [u64; 7] as u64),
    };
    i915(k, I915_GEM_CONTEXT_CREATE, &mut c)?;
    Ok(c.ctx_id)
}

#[test]
fn engine_maps_give_each_slot_its_own_hardware_context() {
    let mut k = icl_kernel();
    let mut info = [0u8; 128];
    assert_eq!(
        query(&mut k, DRM_I915_QUERY_ENGINE_INFO, 128, &mut info).length,
        128
    );
    let u16_at = |o: usize| u16::from_le_bytes([info[o], info[o + 1]]);
    let u64_at = |o: usize| u64::from_le_bytes(info[o..o + 8].try_into().unwrap());
    assert_eq!(u32::from_le_bytes(info[..4].try_into().unwrap()), 2);
    // rcs0: class 0 instance 0, logical instance valid, no capabilities.
    assert_eq!(
        (u16_at(16), u16_at(18), u64_at(24), u64_at(32)),
        (0, 0, 1, 0)
    );
    // vecs0: class 3 (VIDEO_ENHANCE) instance 0, with its SFC (capability bit 1).
    assert_eq!(
        (u16_at(72), u16_at(74), u64_at(80), u64_at(88)),
        (3, 0, 1, 1 << 1)
    );
    // Two render slots, as iris maps its render and compute batches (iris_context.c).
    let engines: [u32; 4] = [0, 0, 0, 0]; // extensions (u64), then (0,0) (0,0)
    let ctx = create_ext(
        &mut k,
        &[(I915_CONTEXT_PARAM_ENGINES, engines.as_ptr() as u64, 16)],
    )
    .unwrap();
    let target = create(&mut k, 4096);
    let batch = create(&mut k, 4096);
    // Slot 0 loads CS_GPR0 = 77 and stores it; slot 1 only stores it: its own register
    // file reads 0.
    let store = |k: &mut Kernel, with_load: bool, at: u32| {
        let mut d = vec![];
        if with_load {
            d.extend([0x1100_0001, 0x2600, 77]);
        }
        d.extend([(0x24 << 23) | 2, 0x2600, 0x10_0000 + at, 0, 0x0500_0000]);
        if d.len() % 2 == 1 {
            d.push(0);
        }
        pwrite(k, batch, 0, &dwords(&d)).unwrap();
    };
    store(&mut k, true, 0);
    exec(
        &mut k,
        &mut [pinned(target, 0x10_0000), pinned(batch, 0x20_0000)],
        0,
        ctx,
    )
    .unwrap();
    store(&mut k, false, 4);
    exec(
        &mut k,
        &mut [pinned(target, 0x10_0000), pinned(batch, 0x20_0000)],
        1,
        ctx,
    )
    .unwrap();
    assert_eq!(pread(&mut k, target, 0, 8), [77, 0, 0, 0, 0, 0, 0, 0]);
    // Past the map, or BSD bits with a map: EINVAL; the map cannot change after use.
    assert_eq!(
        exec(&mut k, &mut [pinned(batch, 0x20_0000)], 2, ctx),
        Err(Errno::EINVAL)
    );
    let mut p = I915GemContextParam {
        ctx_id: ctx,
        size: 16,
        param: I915_CONTEXT_PARAM_ENGINES,
        value: engines.as_ptr() as u64,
    };
    assert_eq!(
        i915(&mut k, I915_GEM_CONTEXT_SETPARAM, &mut p),
        Err(Errno::EINVAL)
    );
    // An engine that is not modelled (class 1, the blitter) and a bad size: EINVAL.
    let blit: [u32; 3] = [0, 0, 1];
    assert_eq!(
        create_ext(
            &mut k,
            &[(I915_CONTEXT_PARAM_ENGINES, blit.as_ptr() as u64, 12)]
        ),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        create_ext(
            &mut k,
            &[(I915_CONTEXT_PARAM_ENGINES, blit.as_ptr() as u64, 10)]
        ),
        Err(Errno::EINVAL)
    );
}

#[test]
fn contexts_have_their_own_address_space_unless_they_share_a_vm() {
    let mut k = icl_kernel();
    let target = create(&mut k, 4096);
    let batch = create(&mut k, 4096);
    // Context 0 binds the target at 0x10_0000.
    pwrite(&mut k, batch, 0, &dwords(&[0x0500_0000, 0])).unwrap();
    exec(
        &mut k,
        &mut [pinned(target, 0x10_0000), pinned(batch, 0x20_0000)],
        0,
        0,
    )
    .unwrap();
    // A batch that stores to 0x10_0000 without listing the target: in a context sharing
    // context 0's VM the binding is there; in a fresh context (its own PPGTT) it is not,
    // and the store faults (a GPU hang, the context marked guilty).
    let sdi = [(0x20 << 23) | 2, 0x10_0000, 0, 5, 0x0500_0000, 0];
    pwrite(&mut k, batch, 0, &dwords(&sdi)).unwrap();
    let mut p = I915GemContextParam {
        ctx_id: 0,
        size: 0,
        param: I915_CONTEXT_PARAM_VM,
        value: 0,
    };
    i915(&mut k, I915_GEM_CONTEXT_GETPARAM, &mut p).unwrap();
    let shared = create_ext(&mut k, &[(I915_CONTEXT_PARAM_VM, p.value, 0)]).unwrap();
    let own = create_ext(&mut k, &[]).unwrap();
    crate::muted(|| {
        exec(&mut k, &mut [pinned(batch, 0x20_0000)], 0, shared).unwrap();
        exec(&mut k, &mut [pinned(batch, 0x20_0000)], 0, own).unwrap();
    });
    assert_eq!(pread(&mut k, target, 0, 4), [5, 0, 0, 0]);
    let mut s = I915ResetStats {
        ctx_id: own,
        flags: 0,
        reset_count: 0,
        batch_active: 0,
        batch_pending: 0,
        pad: 0,
    };
    i915(&mut k, I915_GET_RESET_STATS, &mut s).unwrap();
    assert_eq!(
        s.batch_active, 1,
        "the fault in the private address space hung"
    );
    // A VM handle that does not exist: ENOENT; setting the VM after use: EINVAL.
    assert_eq!(
        create_ext(&mut k, &[(I915_CONTEXT_PARAM_VM, 999, 0)]),
        Err(Errno::ENOENT)
    );
    let mut set = I915GemContextParam {
        ctx_id: shared,
        size: 0,
        param: I915_CONTEXT_PARAM_VM,
        value: p.value,
    };
    assert_eq!(
        i915(&mut k, I915_GEM_CONTEXT_SETPARAM, &mut set),
        Err(Errno::EINVAL)
    );
    // GEM_VM_CREATE hands out another handle; GEM_VM_DESTROY takes it back.
    let mut v = I915GemVmControl {
        extensions: 0,
        flags: 0,
        vm_id: 0,
    };
    i915(&mut k, I915_GEM_VM_CREATE, &mut v).unwrap();
    assert_ne!(v.vm_id, 0);
    i915(&mut k, I915_GEM_VM_DESTROY, &mut v).unwrap();
    assert_eq!(
        i915(&mut k, I915_GEM_VM_DESTROY, &mut v),
        Err(Errno::ENOENT)
    );
}

/// A hang leaves an error state in the format of Linux's i915 error file: the device,
/// the engine with ACTHD at the command that hung, the batch and the other objects. When
/// the readers are installed (IGT's `intel_error_decode`, in Debian's
/// `intel-gpu-tools`; Mesa's `aubinator_error_decode`, on PATH when built), they decode
/// the batch from it.
#[test]
fn a_hang_leaves_an_error_state_the_decoders_read() {
    let dir = std::env::temp_dir().join(format!("gtsim-error-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut k = kernel();
    k.error_dir = Some(dir.clone());
    let batch = create(&mut k, 4096);
    // MI_NOOP, MI_NOOP, a dword no command has (the client's mistake), MI_BATCH_BUFFER_END.
    pwrite(&mut k, batch, 0, &dwords(&[0, 0, 0xe000_0000, 0x0500_0000])).unwrap();
    let state = create(&mut k, 8192);
    pwrite(&mut k, state, 0, &dwords(&[0x1234_5678])).unwrap();
    let mut objs = [obj(state, &mut []), obj(batch, &mut [])];
    exec(&mut k, &mut objs, 0, 0).unwrap();
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "one error state");
    let path = files[0].path();
    let text = std::fs::read_to_string(&path).unwrap();
    let batch_addr = objs[1].offset;
    let line = |prefix: &str| {
        text.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} line in\n{text}"))
            .to_string()
    };
    assert_eq!(line("PCI ID:"), "PCI ID: 0x0162");
    assert_eq!(line("rcs0 command stream"), "rcs0 command stream:");
    assert_eq!(
        line("  ACTHD:"),
        format!("  ACTHD: 0x00000000 {:08x}", batch_addr + 8)
    );
    assert_eq!(
        line("rcs0 --- batch"),
        format!("rcs0 --- batch = 0x00000000 {batch_addr:08x}")
    );
    // The batch's dwords: zz, then 0xe0000000 and 0x05000000 in ASCII85, then zeros.
    let data = text
        .lines()
        .skip_while(|l| !l.starts_with("rcs0 --- batch"))
        .nth(1)
        .unwrap();
    assert!(data.starts_with("~zz"), "{}", &data[..20]);
    assert!(text.contains(&format!(
        "rcs0 --- user = 0x00000000 {:08x}",
        objs[0].offset
    )));
    for (tool, want) in [
        ("intel_error_decode", "MI_NOOP".to_string()),
        (
            "aubinator_error_decode",
            format!("{:#010x}: unknown instruction e0000000", batch_addr + 8),
        ),
    ] {
        let Ok(out) = std::process::Command::new(tool).arg(&path).output() else {
            // CI installs IGT's tool (Debian intel-gpu-tools) and sets this; Mesa's is
            // in no Debian package (build it with -Dtools=intel to run it here).
            assert!(
                tool != "intel_error_decode"
                    || std::env::var_os("GTSIM_REQUIRE_ERROR_DECODE").is_none(),
                "GTSIM_REQUIRE_ERROR_DECODE is set but {tool} is not installed"
            );
            eprintln!("skipped: {tool} is not installed");
            continue;
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(&want),
            "{tool} did not decode the batch ({want:?}):\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two anonymous pages of this process, page-aligned as I915_GEM_USERPTR requires.
fn anon_pages(n: usize) -> *mut u8 {
    // SAFETY: a fresh private anonymous mapping; checked for failure.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            n * 4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED);
    p.cast()
}

fn userptr(k: &mut Kernel, ptr: u64, size: u64, flags: u32) -> Result<u32, Errno> {
    let mut u = I915GemUserptr {
        user_ptr: ptr,
        user_size: size,
        flags,
        handle: 0,
    };
    i915(k, I915_GEM_USERPTR, &mut u).map(|()| u.handle)
}

#[test]
fn userptr_objects_are_the_clients_memory_and_refuse_what_i915_refuses() {
    let mut k = kernel();
    let pages = anon_pages(2);
    let base = pages as u64;
    // The argument checks of i915_gem_userptr_ioctl, in its order.
    assert_eq!(
        userptr(&mut k, base, 8192, 0x4),
        Err(Errno::EINVAL),
        "unknown flag"
    );
    assert_eq!(
        userptr(&mut k, base + 8, 4096, 0),
        Err(Errno::EINVAL),
        "unaligned address"
    );
    assert_eq!(
        userptr(&mut k, base, 100, 0),
        Err(Errno::EINVAL),
        "unaligned size"
    );
    assert_eq!(userptr(&mut k, base, 0, 0), Err(Errno::EINVAL), "empty");
    assert_eq!(
        userptr(&mut k, 1 << 47, 4096, 0),
        Err(Errno::EFAULT),
        "past user space"
    );
    let unsync = I915_USERPTR_UNSYNCHRONIZED;
    assert_eq!(userptr(&mut k, base, 4096, unsync), Err(Errno::ENODEV));
    // Gen7's aliasing PPGTT has no read-only pages.
    let ro = I915_USERPTR_READ_ONLY;
    assert_eq!(
        userptr(&mut k, base, 4096, ro),
        Err(Errno::ENODEV),
        "read-only on Gen7"
    );

    // A batch stores into the object: the client sees the GPU's write in its own page.
    let h = userptr(&mut k, base, 8192, I915_USERPTR_PROBE).unwrap();
    let (_, batch, mut relocs) = store_batch(&mut k);
    let mut objs = [obj(h, &mut []), obj(batch, &mut relocs)];
    exec(
        &mut k,
        &mut objs,
        I915_EXEC_RENDER | I915_EXEC_HANDLE_LUT,
        0,
    )
    .unwrap();
    // SAFETY: reading our own mapping, 0x40 bytes in.
    let seen = unsafe { pages.add(0x40).cast::<u32>().read() };
    assert_eq!(seen, 0xfeed, "the GPU wrote the client's page");

    // A userptr object has no pages of its own to pread, map or tile.
    let mut out = [0u8; 4];
    let mut p = I915GemPread {
        handle: h,
        pad: 0,
        offset: 0,
        size: 4,
        data_ptr: out.as_mut_ptr() as u64,
    };
    assert_eq!(i915(&mut k, I915_GEM_PREAD, &mut p), Err(Errno::EINVAL));
    let mut m = I915GemMmapOffset {
        handle: h,
        pad: 0,
        offset: 0,
        flags: I915_MMAP_OFFSET_WB,
        extensions: 0,
    };
    assert_eq!(i915(&mut k, I915_GEM_MMAP_GTT, &mut m), Err(Errno::ENODEV));

    // With PROBE, a range not wholly mapped is EFAULT; without, the object is made and
    // the GPU's access faults later.
    // SAFETY: unmapping the second of our own two pages.
    unsafe { libc::munmap(pages.add(4096).cast(), 4096) };
    assert_eq!(
        userptr(&mut k, base, 8192, I915_USERPTR_PROBE),
        Err(Errno::EFAULT)
    );
    assert!(userptr(&mut k, base, 8192, 0).is_ok());
    // SAFETY: unmapping the first page, which we still own.
    unsafe { libc::munmap(pages.cast(), 4096) };
}

#[test]
fn ice_lake_userptr_objects_may_be_read_only_to_the_gpu() {
    let mut k = icl_kernel();
    let pages = anon_pages(1);
    // SAFETY: writing the first dword of our own page.
    unsafe { pages.cast::<u32>().write(0x1234_5678) };
    let h = userptr(&mut k, pages as u64, 4096, I915_USERPTR_READ_ONLY).unwrap();
    let id = k.bo_id(FD, h).unwrap();
    let bo = &k.bos[&id];
    let mut got = [0u8; 4];
    bo.read(0, &mut got).unwrap();
    assert_eq!(
        u32::from_le_bytes(got),
        0x1234_5678,
        "the GPU reads the client's page"
    );
    assert_eq!(
        bo.write(0, &[0; 4]),
        Err(Errno::EFAULT),
        "but may not write it"
    );
    // SAFETY: unmapping our own page.
    unsafe { libc::munmap(pages.cast(), 4096) };
}

fn syncobj(k: &mut Kernel) -> u32 {
    let mut c = DrmSyncobjCreate {
        handle: 0,
        flags: 0,
    };
    k.ioctl(FD, req(DRM_SYNCOBJ_CREATE, 8), &mut c as *mut _ as u64)
        .unwrap();
    c.handle
}

fn timeline(
    k: &mut Kernel,
    nr: u32,
    handles: &[u32],
    points: &mut [u64],
    flags: u32,
) -> Result<(), Errno> {
    let mut t = DrmSyncobjTimelineArray {
        handles: handles.as_ptr() as u64,
        points: points.as_mut_ptr() as u64,
        count_handles: handles.len() as u32,
        flags,
    };
    k.ioctl(FD, req(nr, 24), &mut t as *mut _ as u64)
}

fn timeline_wait(
    k: &mut Kernel,
    handles: &[u32],
    points: &[u64],
    flags: u32,
) -> Result<u32, Errno> {
    let mut w = DrmSyncobjTimelineWait {
        handles: handles.as_ptr() as u64,
        points: points.as_ptr() as u64,
        timeout_nsec: 0,
        count_handles: handles.len() as u32,
        flags,
        first_signaled: 0,
        pad: 0,
    };
    k.ioctl(
        FD,
        req(DRM_SYNCOBJ_TIMELINE_WAIT, 40),
        &mut w as *mut _ as u64,
    )
    .map(|()| w.first_signaled)
}

fn point_of(k: &mut Kernel, h: u32) -> u64 {
    let mut p = [0u64];
    timeline(k, DRM_SYNCOBJ_QUERY, &[h], &mut p, 0).unwrap();
    p[0]
}

/// Timeline syncobjs as drm_syncobj.c keeps them: points only grow, a wait for a point
/// not yet signalled is EINVAL (or ETIME when waiting for the submission), a binary
/// signal or a reset replaces the chain (the query reads 0 again), and TRANSFER moves a
/// point's fence to another syncobj's point or to its binary fence.
#[test]
fn timeline_syncobjs_follow_drm_syncobj() {
    let mut k = icl_kernel();
    let cap = |k: &mut Kernel| {
        let mut c = DrmGetCap {
            capability: DRM_CAP_SYNCOBJ_TIMELINE,
            value: 0,
        };
        k.ioctl(FD, req(DRM_GET_CAP, 16), &mut c as *mut _ as u64)
            .unwrap();
        c.value
    };
    assert_eq!(cap(&mut k), 1);
    let a = syncobj(&mut k);
    let b = syncobj(&mut k);
    assert_eq!(point_of(&mut k, a), 0);
    timeline(&mut k, DRM_SYNCOBJ_TIMELINE_SIGNAL, &[a], &mut [5], 0).unwrap();
    assert_eq!(point_of(&mut k, a), 5);
    // dma_fence_chain_init keeps the seqno monotonic.
    timeline(&mut k, DRM_SYNCOBJ_TIMELINE_SIGNAL, &[a], &mut [3], 0).unwrap();
    assert_eq!(point_of(&mut k, a), 5);
    assert_eq!(timeline_wait(&mut k, &[a], &[4], 0), Ok(0));
    assert_eq!(timeline_wait(&mut k, &[a], &[6], 0), Err(Errno::EINVAL));
    let all = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
    let submit = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
    assert_eq!(timeline_wait(&mut k, &[a], &[6], submit), Err(Errno::ETIME));
    // Any of them: b (no fence) is pending, a's point 5 is signalled.
    assert_eq!(timeline_wait(&mut k, &[b, a], &[1, 5], submit), Ok(1));
    assert_eq!(
        timeline_wait(&mut k, &[b, a], &[1, 5], submit | all),
        Err(Errno::ETIME)
    );
    assert_eq!(
        timeline_wait(&mut k, &[a], &[1], 0x8),
        Err(Errno::EINVAL),
        "unknown flag"
    );
    assert_eq!(
        timeline(&mut k, DRM_SYNCOBJ_TIMELINE_SIGNAL, &[a], &mut [1], 1),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        timeline(&mut k, DRM_SYNCOBJ_QUERY, &[99], &mut [0], 0),
        Err(Errno::ENOENT)
    );

    // TRANSFER a's point 5 to b's point 2, then to b's binary fence.
    let mut t = DrmSyncobjTransfer {
        src_handle: a,
        dst_handle: b,
        src_point: 5,
        dst_point: 2,
        flags: 0,
        pad: 0,
    };
    k.ioctl(FD, req(DRM_SYNCOBJ_TRANSFER, 32), &mut t as *mut _ as u64)
        .unwrap();
    assert_eq!(point_of(&mut k, b), 2);
    t.src_point = 9;
    assert_eq!(
        k.ioctl(FD, req(DRM_SYNCOBJ_TRANSFER, 32), &mut t as *mut _ as u64),
        Err(Errno::EINVAL),
        "the source has no point 9"
    );

    // A binary signal replaces the chain: the query reads 0, point waits fail, the
    // binary wait succeeds.
    let handles = [a];
    let mut arr = DrmSyncobjArray {
        handles: handles.as_ptr() as u64,
        count_handles: 1,
        pad: 0,
    };
    k.ioctl(FD, req(DRM_SYNCOBJ_SIGNAL, 16), &mut arr as *mut _ as u64)
        .unwrap();
    assert_eq!(point_of(&mut k, a), 0);
    assert_eq!(timeline_wait(&mut k, &[a], &[1], 0), Err(Errno::EINVAL));
    assert_eq!(timeline_wait(&mut k, &[a], &[0], 0), Ok(0));
    k.ioctl(FD, req(DRM_SYNCOBJ_RESET, 16), &mut arr as *mut _ as u64)
        .unwrap();
    assert_eq!(timeline_wait(&mut k, &[a], &[0], 0), Err(Errno::EINVAL));
}

/// The execbuffer timeline-fences extension (I915_EXEC_USE_EXTENSIONS with
/// DRM_I915_GEM_EXECBUFFER_EXT_TIMELINE_FENCES): waits need their points, a signal
/// adds its point once the batch has run, and the checks of add_timeline_fence_array
/// and i915_user_extensions refuse the rest.
#[test]
fn execbuffer_timeline_fences_wait_and_signal_points() {
    let mut k = kernel();
    let mut p = 0;
    let mut gp = I915Getparam {
        param: I915_PARAM_HAS_EXEC_TIMELINE_FENCES,
        value: &mut p,
    };
    i915(&mut k, I915_GETPARAM, &mut gp).unwrap();
    assert_eq!(p, 1);
    let waited = syncobj(&mut k);
    let signalled = syncobj(&mut k);
    timeline(&mut k, DRM_SYNCOBJ_TIMELINE_SIGNAL, &[waited], &mut [4], 0).unwrap();
    let (target, batch, mut relocs) = store_batch(&mut k);
    let mut run =
        |k: &mut Kernel, fences: &[I915GemExecFence], values: &[u64], name: u32, flags: u32| {
            let ext = I915ExecbufferExtTimelineFences {
                next_extension: 0,
                name,
                flags,
                rsvd: [0; 4],
                fence_count: fences.len() as u64,
                handles_ptr: fences.as_ptr() as u64,
                values_ptr: values.as_ptr() as u64,
            };
            let mut objs = [obj(target, &mut []), obj(batch, &mut relocs)];
            let mut eb = I915GemExecbuffer2 {
                buffers_ptr: objs.as_mut_ptr() as u64,
                buffer_count: 2,
                batch_start_offset: 0,
                batch_len: 0,
                dr1: 0,
                dr4: 0,
                num_cliprects: 0,
                cliprects_ptr: &ext as *const _ as u64,
                flags: I915_EXEC_HANDLE_LUT | I915_EXEC_USE_EXTENSIONS,
                rsvd1: 0,
                rsvd2: 0,
            };
            i915(k, I915_GEM_EXECBUFFER2, &mut eb)
        };
    let wait = |h| I915GemExecFence {
        handle: h,
        flags: I915_EXEC_FENCE_WAIT,
    };
    let signal = |h| I915GemExecFence {
        handle: h,
        flags: I915_EXEC_FENCE_SIGNAL,
    };
    let ext = DRM_I915_GEM_EXECBUFFER_EXT_TIMELINE_FENCES;
    run(&mut k, &[wait(waited), signal(signalled)], &[4, 9], ext, 0).unwrap();
    assert_eq!(
        point_of(&mut k, signalled),
        9,
        "the point signalled after the batch"
    );
    assert_eq!(
        pread(&mut k, target, 0x40, 4),
        0xfeedu32.to_le_bytes(),
        "the batch ran"
    );
    assert_eq!(
        run(&mut k, &[wait(waited)], &[5], ext, 0),
        Err(Errno::EINVAL),
        "point 5 was never signalled"
    );
    let both = I915GemExecFence {
        handle: signalled,
        flags: I915_EXEC_FENCE_WAIT | I915_EXEC_FENCE_SIGNAL,
    };
    assert_eq!(
        run(&mut k, &[both], &[9], ext, 0),
        Err(Errno::EINVAL),
        "wait and signal one point"
    );
    assert_eq!(run(&mut k, &[signal(77)], &[1], ext, 0), Err(Errno::ENOENT));
    assert_eq!(
        run(&mut k, &[signal(signalled)], &[10], 1, 0),
        Err(Errno::EINVAL),
        "unknown extension"
    );
    assert_eq!(
        run(&mut k, &[signal(signalled)], &[10], ext, 1),
        Err(Errno::EINVAL),
        "flags must be zero"
    );
    assert_eq!(
        point_of(&mut k, signalled),
        9,
        "refused submissions signal nothing"
    );
}

fn syncobj_handle_ioctl(
    k: &mut Kernel,
    fd: i32,
    nr: u32,
    h: &mut DrmSyncobjHandle,
) -> Result<(), Errno> {
    k.ioctl(fd, req(nr, 16), h as *mut _ as u64)
}

/// DRM_SYNCOBJ_HANDLE_TO_FD / FD_TO_HANDLE (drm_syncobj.c, Linux 6.1): an opaque fd
/// names the sync object itself, so a handle imported in another file shares its state;
/// a sync_file carries a fence out of or into a syncobj; what is not one of ours is
/// EINVAL, and an export outlives nothing once every handle is gone.
#[test]
fn syncobjs_travel_between_files_as_opaque_fds_and_sync_files() {
    let mut k = icl_kernel();
    const OTHER: i32 = 1001;
    k.open_file(OTHER, Node::Render);
    let a = syncobj(&mut k);
    let mut h = DrmSyncobjHandle {
        handle: a,
        flags: 0,
        fd: -1,
        pad: 0,
    };
    syncobj_handle_ioctl(&mut k, FD, DRM_SYNCOBJ_HANDLE_TO_FD, &mut h).unwrap();
    let exported = h.fd;
    assert!(exported >= 0);
    // Imported in the other file: a new handle to the same syncobj.
    let mut imp = DrmSyncobjHandle {
        handle: 0,
        flags: 0,
        fd: exported,
        pad: 0,
    };
    syncobj_handle_ioctl(&mut k, OTHER, DRM_SYNCOBJ_FD_TO_HANDLE, &mut imp).unwrap();
    let b = imp.handle;
    // Signalling point 7 through the other file's handle shows through the first's.
    let handles = [b];
    let mut points = [7u64];
    let mut t = DrmSyncobjTimelineArray {
        handles: handles.as_ptr() as u64,
        points: points.as_mut_ptr() as u64,
        count_handles: 1,
        flags: 0,
    };
    k.ioctl(
        OTHER,
        req(DRM_SYNCOBJ_TIMELINE_SIGNAL, 24),
        &mut t as *mut _ as u64,
    )
    .unwrap();
    assert_eq!(point_of(&mut k, a), 7, "one syncobj behind both handles");

    // A sync_file of its fence, imported into a fresh syncobj, gives it a fence.
    h.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE;
    syncobj_handle_ioctl(&mut k, FD, DRM_SYNCOBJ_HANDLE_TO_FD, &mut h).unwrap();
    let sync_file = h.fd;
    let c = syncobj(&mut k);
    assert_eq!(
        timeline_wait(&mut k, &[c], &[0], 0),
        Err(Errno::EINVAL),
        "no fence yet"
    );
    let mut imp_sf = DrmSyncobjHandle {
        handle: c,
        flags: DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
        fd: sync_file,
        pad: 0,
    };
    syncobj_handle_ioctl(&mut k, FD, DRM_SYNCOBJ_FD_TO_HANDLE, &mut imp_sf).unwrap();
    assert_eq!(timeline_wait(&mut k, &[c], &[0], 0), Ok(0));

    // Refusals: a syncobj without a fence exports no sync_file; pad, unknown flags and
    // an fd that is not a syncobj file are EINVAL.
    let empty = syncobj(&mut k);
    let mut e = DrmSyncobjHandle {
        handle: empty,
        flags: DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
        fd: -1,
        pad: 0,
    };
    assert_eq!(
        syncobj_handle_ioctl(&mut k, FD, DRM_SYNCOBJ_HANDLE_TO_FD, &mut e),
        Err(Errno::EINVAL)
    );
    e.flags = 2;
    assert_eq!(
        syncobj_handle_ioctl(&mut k, FD, DRM_SYNCOBJ_HANDLE_TO_FD, &mut e),
        Err(Errno::EINVAL)
    );
    let mut bogus = DrmSyncobjHandle {
        handle: 0,
        flags: 0,
        fd: sync_file,
        pad: 0,
    };
    assert_eq!(
        syncobj_handle_ioctl(&mut k, FD, DRM_SYNCOBJ_FD_TO_HANDLE, &mut bogus),
        Err(Errno::EINVAL)
    );

    // Once every handle is destroyed the syncobj is gone: its old fd imports nothing.
    for (fd, handle) in [(FD, a), (OTHER, b)] {
        let mut d = DrmSyncobjDestroy { handle, pad: 0 };
        k.ioctl(fd, req(DRM_SYNCOBJ_DESTROY, 8), &mut d as *mut _ as u64)
            .unwrap();
    }
    let mut again = DrmSyncobjHandle {
        handle: 0,
        flags: 0,
        fd: exported,
        pad: 0,
    };
    assert_eq!(
        syncobj_handle_ioctl(&mut k, FD, DRM_SYNCOBJ_FD_TO_HANDLE, &mut again),
        Err(Errno::EINVAL)
    );
    // SAFETY: closing the descriptors the exports handed to us.
    unsafe {
        libc::close(exported);
        libc::close(sync_file);
    }
}

/// The video enhancement engine: by its legacy selector (I915_EXEC_VEBOX) and through an
/// engine map, plain or filled by a load-balancing extension (iHD's way); its batches run
/// MI commands (an MI_FLUSH_DW post-sync write here) on their own ring, and the
/// extension's rules are Linux 6.1's (set_proto_ctx_engines_balance).
#[test]
fn the_video_enhancement_engine_runs_its_batches() {
    let mut k = icl_kernel();
    let target = create(&mut k, 4096);
    let batch = create(&mut k, 4096);
    // MI_FLUSH_DW with a post-sync immediate write (4 dwords, DWord Length 2, as iHD
    // sends it), then MI_BATCH_BUFFER_END.
    // Runs that batch with `flags` in `ctx`, writing `value`; what lands in the target.
    let flush = |k: &mut Kernel, value: u32, flags: u64, ctx: u32| {
        let d = [0x1300_4002, 0x10_0000, 0, value, 0x0500_0000, 0];
        pwrite(k, batch, 0, &dwords(&d)).unwrap();
        exec(
            k,
            &mut [pinned(target, 0x10_0000), pinned(batch, 0x20_0000)],
            flags,
            ctx,
        )
        .unwrap();
        pread(k, target, 0, 4)
    };
    assert_eq!(
        flush(&mut k, 0xabcd, I915_EXEC_VEBOX, 0),
        0xabcdu32.to_le_bytes()
    );
    // An engine map with vecs0 in slot 0.
    let vecs: [u32; 3] = [0, 0, 3];
    let ctx = create_ext(
        &mut k,
        &[(I915_CONTEXT_PARAM_ENGINES, vecs.as_ptr() as u64, 12)],
    )
    .unwrap();
    assert_eq!(flush(&mut k, 0x1234, 0, ctx), 0x1234u32.to_le_bytes());
    // A placeholder slot filled by I915_CONTEXT_ENGINES_EXT_LOAD_BALANCE with one
    // sibling, vecs0: {next, name 0, flags, rsvd[4]}, engine_index 0, num_siblings 1,
    // flags, mbz64, then the sibling (class 3, instance 0).
    let balance = |index: u16, class: u16, flags: u32| -> Vec<u8> {
        let mut b = vec![0u8; 48];
        b[32..34].copy_from_slice(&index.to_le_bytes());
        b[34..36].copy_from_slice(&1u16.to_le_bytes());
        b[36..40].copy_from_slice(&flags.to_le_bytes());
        b.extend_from_slice(&class.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b
    };
    let map = |ext: &Vec<u8>, slot: u32| -> [u32; 3] {
        let p = ext.as_ptr() as u64;
        [p as u32, (p >> 32) as u32, slot]
    };
    let ext = balance(0, 3, 0);
    let placeholder = map(&ext, 0xffff_ffff);
    let ctx = create_ext(
        &mut k,
        &[(I915_CONTEXT_PARAM_ENGINES, placeholder.as_ptr() as u64, 12)],
    )
    .unwrap();
    assert_eq!(flush(&mut k, 0x5678, 0, ctx), 0x5678u32.to_le_bytes());
    // An occupied slot: EEXIST; a slot past the map, a sibling that is no engine
    // (class 1) or non-zero flags: EINVAL.
    let occupied = map(&ext, 0);
    let past = balance(1, 3, 0);
    let no_engine = balance(0, 1, 0);
    let flagged = balance(0, 3, 1);
    for (e, slot, want) in [
        (&ext, occupied[2], Errno::EEXIST),
        (&past, 0xffff_ffff, Errno::EINVAL),
        (&no_engine, 0xffff_ffff, Errno::EINVAL),
        (&flagged, 0xffff_ffff, Errno::EINVAL),
    ] {
        let m = map(e, slot);
        assert_eq!(
            create_ext(
                &mut k,
                &[(I915_CONTEXT_PARAM_ENGINES, m.as_ptr() as u64, 12)]
            ),
            Err(want)
        );
    }
    // A VEBOX command on the render ring is refused (a GPU hang, the context guilty).
    let d = [0x7402_0011u32];
    pwrite(&mut k, batch, 0, &dwords(&d)).unwrap();
    let _ = exec(
        &mut k,
        &mut [pinned(target, 0x10_0000), pinned(batch, 0x20_0000)],
        I915_EXEC_RENDER,
        0,
    );
    assert_eq!(reset_stats(&mut k, 0).batch_active, 1);
}

/// A client that submits from a thread-local destructor (crocus flushes its batch from
/// an exit handler) logs after the stderr subscriber's thread-locals are destroyed: the
/// log goes to stderr directly (or is dropped) instead of panicking inside `tracing`,
/// which took piglit's processes down at exit (`Crash` in piglit-runner with the test
/// passed). The thread's destructors run in reverse order of registration: `LateLog`'s,
/// registered before the first log event, runs last.
#[test]
fn logging_from_a_thread_local_destructor_does_not_panic() {
    struct LateLog;
    impl Drop for LateLog {
        fn drop(&mut self) {
            crate::log("GPU HANG: logged from a thread-local destructor at thread exit");
        }
    }
    thread_local! {
        static LATE: LateLog = const { LateLog };
    }
    let joined = std::thread::spawn(|| {
        LATE.with(|_| ());
        crate::log("a first log line on this thread");
    })
    .join();
    assert!(joined.is_ok(), "the thread panicked at exit");
}

/// GEM_CREATE_EXT with `flags` and a chain of extensions, each given as its bytes (the
/// 32-byte i915_user_extension header first, its `next_extension` filled in here).
fn gem_create_ext(
    k: &mut Kernel,
    size: u64,
    flags: u32,
    exts: &mut [Vec<u64>],
) -> Result<I915GemCreateExt, Errno> {
    for i in (0..exts.len().saturating_sub(1)).rev() {
        let next = exts[i + 1].as_ptr() as u64;
        exts[i][0] = next;
    }
    let mut c = I915GemCreateExt {
        size,
        handle: 0,
        flags,
        extensions: exts.first().map_or(0, |e| e.as_ptr() as u64),
    };
    i915(k, I915_GEM_CREATE_EXT, &mut c)?;
    Ok(c)
}

/// A MEMORY_REGIONS extension naming `regions` ((class, instance) pairs).
fn regions_ext(regions: &[(u16, u16)], pad: u32) -> (Vec<u64>, Vec<u32>) {
    let list: Vec<u32> = regions
        .iter()
        .map(|&(c, i)| u32::from(c) | u32::from(i) << 16)
        .collect();
    let ext = vec![
        0,
        u64::from(I915_GEM_CREATE_EXT_MEMORY_REGIONS),
        0,
        0,
        u64::from(pad) | (regions.len() as u64) << 32,
        list.as_ptr() as u64,
    ];
    (ext, list)
}

/// GEM_CREATE_EXT as Linux 6.1 answers it on an integrated part, whose one memory region
/// is system memory (what the regions query reports): Mesa 23 and later create every
/// object with it.
#[test]
fn gem_create_ext_makes_objects_in_system_memory_and_refuses_the_rest() {
    let mut k = icl_kernel();
    // No extension: a system-memory object, its size rounded up to a page, usable as
    // any other.
    let c = gem_create_ext(&mut k, 5000, 0, &mut []).unwrap();
    assert_eq!(c.size, 8192);
    pwrite(&mut k, c.handle, 4096, &[1, 2, 3, 4]).unwrap();
    assert_eq!(pread(&mut k, c.handle, 4096, 4), [1, 2, 3, 4]);
    // System memory named: the same.
    let (ext, _list) = regions_ext(&[(I915_MEMORY_CLASS_SYSTEM, 0)], 0);
    let c = gem_create_ext(&mut k, 4096, 0, &mut [ext]).unwrap();
    assert_eq!(c.size, 4096);
    assert_ne!(c.handle, 0);
    // Zero size: EINVAL, as GEM_CREATE.
    assert_eq!(
        gem_create_ext(&mut k, 0, 0, &mut []).unwrap_err(),
        Errno::EINVAL
    );
    // Unknown flags: EINVAL.
    assert_eq!(
        gem_create_ext(&mut k, 4096, 2, &mut []).unwrap_err(),
        Errno::EINVAL
    );
    // NEEDS_CPU_ACCESS asks for device memory with a system fallback: one region cannot.
    let (ext, _l1) = regions_ext(&[(I915_MEMORY_CLASS_SYSTEM, 0)], 0);
    assert_eq!(
        gem_create_ext(
            &mut k,
            4096,
            I915_GEM_CREATE_EXT_FLAG_NEEDS_CPU_ACCESS,
            &mut [ext]
        )
        .unwrap_err(),
        Errno::EINVAL
    );
    // Device memory (class 1), a second instance, a region named twice, a nonzero pad,
    // no regions, too many regions: EINVAL.
    for (regions, pad) in [
        (vec![(1, 0)], 0),
        (vec![(I915_MEMORY_CLASS_SYSTEM, 1)], 0),
        (
            vec![(I915_MEMORY_CLASS_SYSTEM, 0), (I915_MEMORY_CLASS_SYSTEM, 0)],
            0,
        ),
        (vec![(I915_MEMORY_CLASS_SYSTEM, 0)], 1),
        (vec![], 0),
        (vec![(I915_MEMORY_CLASS_SYSTEM, 0); 8], 0),
    ] {
        let (ext, _list) = regions_ext(&regions, pad);
        assert_eq!(
            gem_create_ext(&mut k, 4096, 0, &mut [ext]).unwrap_err(),
            Errno::EINVAL,
            "{regions:?} pad {pad}"
        );
    }
    // MEMORY_REGIONS twice in one chain: EINVAL.
    let (a, _la) = regions_ext(&[(I915_MEMORY_CLASS_SYSTEM, 0)], 0);
    let (b, _lb) = regions_ext(&[(I915_MEMORY_CLASS_SYSTEM, 0)], 0);
    assert_eq!(
        gem_create_ext(&mut k, 4096, 0, &mut [a, b]).unwrap_err(),
        Errno::EINVAL
    );
    // PROTECTED_CONTENT: no PXP before Gen12, ENODEV; with flags set, EINVAL.
    let protected = |flags: u64| {
        vec![
            0,
            u64::from(I915_GEM_CREATE_EXT_PROTECTED_CONTENT),
            0,
            0,
            flags,
        ]
    };
    assert_eq!(
        gem_create_ext(&mut k, 4096, 0, &mut [protected(0)]).unwrap_err(),
        Errno::ENODEV
    );
    assert_eq!(
        gem_create_ext(&mut k, 4096, 0, &mut [protected(1)]).unwrap_err(),
        Errno::EINVAL
    );
    // An unknown extension name, a header with flags: EINVAL; an unreadable chain: EFAULT.
    assert_eq!(
        gem_create_ext(&mut k, 4096, 0, &mut [vec![0, 7, 0, 0]]).unwrap_err(),
        Errno::EINVAL
    );
    assert_eq!(
        gem_create_ext(&mut k, 4096, 0, &mut [vec![0, 1 << 32, 0, 0]]).unwrap_err(),
        Errno::EINVAL
    );
    let mut c = I915GemCreateExt {
        size: 4096,
        handle: 0,
        flags: 0,
        extensions: 8,
    };
    assert_eq!(
        i915(&mut k, I915_GEM_CREATE_EXT, &mut c).unwrap_err(),
        Errno::EFAULT
    );
}
