//! DRM_IOCTL_I915_GEM_EXECBUFFER2 on Gen7: validate everything, bind objects at stable
//! graphics addresses, patch relocations (32-bit on Gen7) and write the offsets back, run
//! the batch on the device, signal fences, and capture the submission if asked.
//!
//! Validation comes first and changes nothing: flags, the object list, fences, the
//! context, the objects, every relocation, in the order i915_gem_execbuffer.c (Linux 6.1)
//! checks them, each fault answered with the errno the real driver gives (EINVAL,
//! ENOENT, EFAULT, EPERM) and every object left untouched. Client arrays are read in
//! bounded chunks and never trusted for a size. What is written back after the work
//! (relocation presumed offsets, object offsets) follows i915 too: a failure there is
//! ignored, the submission has happened.

use crate::bo::GttView;
use crate::errno::Errno;
use crate::kernel::Kernel;
use crate::uapi::*;
use crate::user;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;

/// Most objects one execbuffer may list (a sanity bound; real limits are memory).
const MAX_OBJECTS: u32 = 1 << 16;

/// Relocation entries read per copy (16 KiB), the bound on what one object's
/// relocation list costs the host at a time.
const RELOC_CHUNK: usize = 512;

/// Fence entries read per copy (32 KiB).
const FENCE_CHUNK: usize = 4096;

/// Calls `f` with each relocation entry of `o` and its client address, reading them in
/// chunks of [`RELOC_CHUNK`]. The whole array must lie in the user address space
/// (EFAULT otherwise, as eb_relocate_vma's access_ok check).
fn for_each_reloc(
    o: &I915GemExecObject2,
    mut f: impl FnMut(u64, &I915GemRelocationEntry) -> Result<(), Errno>,
) -> Result<(), Errno> {
    const SIZE: u64 = size_of::<I915GemRelocationEntry>() as u64;
    let n = o.relocation_count as u64;
    if n == 0 {
        return Ok(());
    }
    if !user::access_ok(o.relocs_ptr, n * SIZE) {
        return Err(Errno::EFAULT);
    }
    let mut at = 0u64;
    while at < n {
        let m = (n - at).min(RELOC_CHUNK as u64);
        let base = o.relocs_ptr + at * SIZE;
        let chunk: Vec<I915GemRelocationEntry> = user::read_array(base, m as usize)?;
        for (j, r) in chunk.iter().enumerate() {
            f(base + j as u64 * SIZE, r)?;
        }
        at += m;
    }
    Ok(())
}

/// The index in the object list of a relocation's target: ENOENT for a handle that is
/// not in the list (eb_relocate_entry).
fn reloc_target(
    k: &mut Kernel,
    fd: i32,
    lut: bool,
    index: &HashMap<u64, usize>,
    r: &I915GemRelocationEntry,
) -> Result<usize, Errno> {
    if lut {
        let t = r.target_handle as usize;
        if t >= index.len() {
            return Err(Errno::ENOENT);
        }
        Ok(t)
    } else {
        let tid = k.bo_id(fd, r.target_handle)?;
        index.get(&tid).copied().ok_or(Errno::ENOENT)
    }
}

/// A relocation's domains and position: one write domain at most, GPU domains only,
/// 4-byte aligned and inside its object (EINVAL otherwise, eb_relocate_entry; Gen7
/// relocations are 4 bytes).
fn check_reloc(r: &I915GemRelocationEntry, size: u64, width: u64) -> Result<(), Errno> {
    // More than one write domain, or a domain that is not a GPU domain: EINVAL.
    if r.write_domain & r.write_domain.wrapping_sub(1) != 0
        || (r.write_domain | r.read_domains) & !I915_GEM_GPU_DOMAINS != 0
    {
        return Err(Errno::EINVAL);
    }
    if !r.offset.is_multiple_of(4) || r.offset.checked_add(width).is_none_or(|e| e > size) {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// i915_gem_check_execbuffer (i915_gem_execbuffer.c, Linux 6.1): illegal flags, DRI1
/// cliprects without a fence array, DR1/DR4 (a DR4 of 0xffffffff is UXA's garbage and is
/// cleared), a batch offset or length that is not a multiple of 8: all EINVAL.
fn check_execbuffer(eb: &mut I915GemExecbuffer2) -> Result<(), Errno> {
    if eb.flags & I915_EXEC_ILLEGAL_FLAGS != 0 {
        return Err(Errno::EINVAL);
    }
    if eb.flags & (I915_EXEC_FENCE_ARRAY | I915_EXEC_USE_EXTENSIONS) == 0
        && (eb.num_cliprects != 0 || eb.cliprects_ptr != 0)
    {
        return Err(Errno::EINVAL);
    }
    if eb.dr4 == 0xffff_ffff {
        eb.dr4 = 0;
    }
    if eb.dr1 != 0 || eb.dr4 != 0 {
        return Err(Errno::EINVAL);
    }
    if (eb.batch_start_offset | eb.batch_len) & 7 != 0 {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// What a submission signals, per syncobj handle: a binary signal, and the highest
/// timeline point (0 for none). Kept per handle so that a fence list of any length costs
/// at most one entry per syncobj of the file.
#[derive(Default)]
struct Signals(BTreeMap<u32, (bool, u64)>);

impl Signals {
    fn add(&mut self, handle: u32, flags: u32, point: u64) {
        if flags & I915_EXEC_FENCE_SIGNAL == 0 {
            return;
        }
        let e = self.0.entry(handle).or_default();
        if point == 0 {
            e.0 = true;
        } else {
            e.1 = e.1.max(point);
        }
    }
}

/// The execbuffer extension chain at `at` ([`user::extension_chain`]): only
/// DRM_I915_GEM_EXECBUFFER_EXT_TIMELINE_FENCES is known (others EINVAL).
fn extensions(k: &mut Kernel, fd: i32, at: u64, signals: &mut Signals) -> Result<(), Errno> {
    user::extension_chain(at, |at, name| {
        if name != DRM_I915_GEM_EXECBUFFER_EXT_TIMELINE_FENCES {
            return Err(Errno::EINVAL);
        }
        let ext: I915ExecbufferExtTimelineFences = user::read(at)?;
        timeline_fences(k, fd, &ext, signals)
    })
}

/// add_timeline_fence_array (i915_gem_execbuffer.c, Linux 6.1): a count the kernel
/// cannot size is EINVAL, arrays outside user space EFAULT; then per fence, in order:
/// its copy (EFAULT), unknown flags (EINVAL), its point (EFAULT), the syncobj (ENOENT),
/// a wait on a syncobj without a fence or without the point (EINVAL), a wait and a
/// signal of the same non-zero point (EINVAL).
fn timeline_fences(
    k: &mut Kernel,
    fd: i32,
    ext: &I915ExecbufferExtTimelineFences,
    signals: &mut Signals,
) -> Result<(), Errno> {
    let n = ext.fence_count;
    if n > u64::MAX / 24 {
        return Err(Errno::EINVAL);
    }
    let fence_size = size_of::<I915GemExecFence>() as u64;
    if !user::access_ok(ext.handles_ptr, n * fence_size) || !user::access_ok(ext.values_ptr, n * 8)
    {
        return Err(Errno::EFAULT);
    }
    let file_id = *k.fds.get(&fd).ok_or(Errno::EBADF)?;
    let f = &k.files[&file_id];
    let mut at = 0u64;
    while at < n {
        let m = (n - at).min(FENCE_CHUNK as u64);
        let chunk: Vec<I915GemExecFence> =
            user::read_array(ext.handles_ptr + at * fence_size, m as usize)?;
        let points: Vec<u64> = user::read_array(ext.values_ptr + at * 8, m as usize)?;
        for (x, &point) in chunk.iter().zip(&points) {
            if x.flags & I915_EXEC_FENCE_UNKNOWN_FLAGS != 0 {
                return Err(Errno::EINVAL);
            }
            let s = f.syncobjs.get(&x.handle).ok_or(Errno::ENOENT)?.get();
            let signal = x.flags & I915_EXEC_FENCE_SIGNAL != 0;
            if !signal && x.flags != 0 && !s.has(point) {
                return Err(Errno::EINVAL);
            }
            if signal && point != 0 && x.flags & I915_EXEC_FENCE_WAIT != 0 {
                return Err(Errno::EINVAL);
            }
            signals.add(x.handle, x.flags, point);
        }
        at += m;
    }
    Ok(())
}

/// Whether `fd` is a sync_file as far as this emulation knows one: the out-fences it
/// hands out are eventfds (see FENCE_OUT below); a real sync_file is accepted too.
pub(crate) fn is_sync_file(fd: i32) -> bool {
    if fd < 0 {
        return false;
    }
    match std::fs::read_link(format!("/proc/self/fd/{fd}")) {
        Ok(p) => {
            let p = p.to_string_lossy();
            p == "anon_inode:[eventfd]" || p == "anon_inode:sync_file"
        }
        Err(_) => false,
    }
}

/// DRM_IOCTL_I915_GEM_EXECBUFFER2 (see the module docs). The checks come in the order
/// of i915_gem_execbuffer2_ioctl and i915_gem_do_execbuffer (Linux 6.1), so that a
/// request with several faults gets the errno the kernel gives first.
pub fn execbuffer2(k: &mut Kernel, fd: i32, a: &mut user::Args) -> Result<(), Errno> {
    let mut eb: I915GemExecbuffer2 = a.get();
    // check_buffer_count: at least one, at most INT_MAX.
    if eb.buffer_count == 0 || eb.buffer_count > i32::MAX as u32 {
        return Err(Errno::EINVAL);
    }
    let checked = check_execbuffer(&mut eb);
    a.set(&eb); // the DR4 fix-up goes back to an EXECBUFFER2_WR caller
    checked?;
    if eb.buffer_count > MAX_OBJECTS {
        // The kernel's kvmalloc of the list would be the limit; here it is ours.
        crate::log(&format!(
            "execbuffer with {} objects: more than the {MAX_OBJECTS} modelled; refused with ENOMEM",
            eb.buffer_count
        ));
        return Err(Errno::ENOMEM);
    }
    // The object list, in one bounded copy (EFAULT).
    let objects: Vec<I915GemExecObject2> =
        user::read_array(eb.buffers_ptr, eb.buffer_count as usize)?;

    // i915_gem_do_execbuffer. Secure batches are for Gen < 6 (HAS_SECURE_BATCHES):
    // EPERM, "to trigger fallback code on old binaries".
    if eb.flags & I915_EXEC_SECURE != 0 {
        return Err(Errno::EPERM);
    }
    // Fences: FENCE_ARRAY's binary ones travel in cliprects_ptr / num_cliprects, the
    // timeline ones in the execbuffer extension cliprects_ptr then points to. Each is
    // checked as it is read (in bounded chunks) and what a signal needs is kept per
    // syncobj, so what is kept is bounded by the file's syncobjs.
    let mut signals = Signals::default();
    // parse_execbuf2_extensions: they reuse cliprects_ptr, so not with a fence array nor
    // a cliprect count.
    if eb.flags & I915_EXEC_USE_EXTENSIONS != 0 {
        if eb.flags & I915_EXEC_FENCE_ARRAY != 0 || eb.num_cliprects != 0 {
            return Err(Errno::EINVAL);
        }
        extensions(k, fd, eb.cliprects_ptr, &mut signals)?;
    }
    if eb.flags & I915_EXEC_FENCE_ARRAY != 0 {
        let n = eb.num_cliprects as u64;
        if !user::access_ok(eb.cliprects_ptr, n * size_of::<I915GemExecFence>() as u64) {
            return Err(Errno::EFAULT);
        }
        let file_id = *k.fds.get(&fd).ok_or(Errno::EBADF)?;
        let f = &k.files[&file_id];
        let mut at = 0u64;
        while at < n {
            let m = (n - at).min(FENCE_CHUNK as u64);
            let chunk: Vec<I915GemExecFence> = user::read_array(
                eb.cliprects_ptr + at * size_of::<I915GemExecFence>() as u64,
                m as usize,
            )?;
            // add_fence_array: unknown flags EINVAL, an unknown syncobj ENOENT, a wait
            // on a syncobj without a fence EINVAL.
            for x in &chunk {
                if x.flags & I915_EXEC_FENCE_UNKNOWN_FLAGS != 0 {
                    return Err(Errno::EINVAL);
                }
                let s = f.syncobjs.get(&x.handle).ok_or(Errno::ENOENT)?.get();
                if x.flags & I915_EXEC_FENCE_WAIT != 0 && !s.fence {
                    return Err(Errno::EINVAL);
                }
                signals.add(x.handle, x.flags, 0);
            }
            at += m;
        }
    }

    // In-fences: FENCE_IN and FENCE_SUBMIT together are EINVAL; either needs a sync_file
    // fd in rsvd2's lower half (sync_file_get_fence failing is EINVAL, so is fd -1).
    let in_fences = eb.flags & (I915_EXEC_FENCE_IN | I915_EXEC_FENCE_SUBMIT);
    if in_fences != 0 {
        if in_fences == I915_EXEC_FENCE_IN | I915_EXEC_FENCE_SUBMIT {
            return Err(Errno::EINVAL);
        }
        // Execution is synchronous, so an in-fence is always already signalled.
        if !is_sync_file(eb.rsvd2 as u32 as i32) {
            return Err(Errno::EINVAL);
        }
    }

    // The context (eb_select_context: ENOENT) and the engine: with an engine map
    // (I915_CONTEXT_PARAM_ENGINES) the ring bits index it (eb_select_engine: past the map,
    // BSD bits set or an invalid slot are EINVAL), each slot being its own hardware
    // context; without one, a legacy ring (eb_select_legacy_ring: BSD dispatch bits on
    // another ring and unknown rings are EINVAL; the render ring and, on Ivy Bridge, the
    // blitter ring are modelled, the video rings are not).
    let ctx_id = (eb.rsvd1 & 0xffff_ffff) as u32;
    let (device_ctx, engines, vm) = {
        let file_id = *k.fds.get(&fd).ok_or(Errno::EBADF)?;
        let c = k
            .files
            .get(&file_id)
            .and_then(|f| f.contexts.get(&ctx_id))
            .ok_or(Errno::ENOENT)?;
        // eb_pin_engine: a banned context runs nothing more (EIO), which tells Mesa to
        // replace it.
        if c.hangs.banned {
            crate::log(&format!(
                "{}: context {ctx_id} is banned after a GPU hang",
                gtsim_gpu::mesa_bat::REFUSED
            ));
            return Err(Errno::EIO);
        }
        (c.device_id, c.engines.clone(), c.vm)
    };
    let ring = eb.flags & I915_EXEC_RING_MASK;
    let blitter = engines.is_none() && ring == I915_EXEC_BLT && !k.platform.softpin();
    // The video enhancement ring: Ice Lake's VECS, by its legacy selector or an engine
    // map slot (`Kernel::set_engines`).
    let vebox = engines.is_none() && ring == I915_EXEC_VEBOX && k.platform.softpin();
    let (device_ctx, engine) = match engines {
        Some(slots) => {
            if eb.flags & I915_EXEC_BSD_MASK != 0 {
                return Err(Errno::EINVAL);
            }
            let slot = slots
                .get(ring as usize)
                .copied()
                .flatten()
                .ok_or(Errno::EINVAL)?;
            (slot.ctx, slot.ring)
        }
        None => {
            if eb.flags & I915_EXEC_BSD_MASK != 0 && ring != 2 {
                return Err(Errno::EINVAL);
            }
            if ring != I915_EXEC_DEFAULT && ring != I915_EXEC_RENDER && !blitter && !vebox {
                crate::log(&format!(
                    "execbuffer on ring {ring}: only the render, blitter (Ivy Bridge) and video enhancement (Ice Lake) rings are modelled; refused with EINVAL"
                ));
                return Err(Errno::EINVAL);
            }
            let engine = if blitter {
                gtsim_gpu::device::Ring::Blitter
            } else if vebox {
                gtsim_gpu::device::Ring::VideoEnhance
            } else {
                gtsim_gpu::device::Ring::Render
            };
            (device_ctx, engine)
        }
    };

    // Objects (eb_lookup_vmas, eb_validate_vma, eb_add_vma): an unknown handle ENOENT;
    // unknown flags, an alignment that is not a power of two, a pad_to_size that is not
    // page-aligned, a batch marked for writing or a batch range outside its object EINVAL.
    let batch_index = if eb.flags & I915_EXEC_BATCH_FIRST != 0 {
        0
    } else {
        objects.len() - 1
    };
    let mut ids = Vec::with_capacity(objects.len());
    let mut index: HashMap<u64, usize> = HashMap::with_capacity(objects.len());
    for (i, o) in objects.iter().enumerate() {
        let id = k.bo_id(fd, o.handle)?;
        if index.insert(id, i).is_some() {
            // The same object twice.
            return Err(Errno::EINVAL);
        }
        if o.flags & EXEC_OBJECT_UNKNOWN_FLAGS != 0 {
            return Err(Errno::EINVAL);
        }
        if o.alignment != 0 && !o.alignment.is_power_of_two() {
            return Err(Errno::EINVAL);
        }
        // pad_to_size shares rsvd1.
        if o.flags & EXEC_OBJECT_PAD_TO_SIZE != 0 && !o.rsvd1.is_multiple_of(crate::bo::PAGE) {
            return Err(Errno::EINVAL);
        }
        if o.flags & EXEC_OBJECT_PINNED != 0 {
            // Softpin: Gen8+ full PPGTT only (I915_PARAM_HAS_EXEC_SOFTPIN is 0 on Ivy
            // Bridge). eb_validate_vma: the offset must be page-aligned and canonical
            // (bits 63:48 copy bit 47); without SUPPORTS_48B_ADDRESS the object must end
            // below 4 GiB - 4 KiB; and it must fit the address space.
            if !k.platform.softpin() {
                return Err(Errno::EINVAL);
            }
            let size = k.bos[&id].size;
            let addr = o.offset & ADDRESS_MASK;
            let canonical = ((o.offset << 16) as i64 >> 16) as u64;
            if !o.offset.is_multiple_of(crate::bo::PAGE)
                || canonical != o.offset
                || addr
                    .checked_add(size)
                    .is_none_or(|e| e > k.platform.gtt_size())
                || (o.flags & EXEC_OBJECT_SUPPORTS_48B_ADDRESS == 0
                    && addr + size > (1 << 32) - crate::bo::PAGE)
            {
                return Err(Errno::EINVAL);
            }
        }
        if i == batch_index {
            if o.flags & EXEC_OBJECT_WRITE != 0 {
                return Err(Errno::EINVAL);
            }
            let size = k.bos[&id].size;
            let (start, len) = (eb.batch_start_offset as u64, eb.batch_len as u64);
            if start >= size || len > size - start {
                return Err(Errno::EINVAL);
            }
        }
        ids.push(id);
    }
    let lut = eb.flags & I915_EXEC_HANDLE_LUT != 0;

    // Relocations: every entry is checked before anything is bound or patched. They are
    // read in bounded chunks and not kept (a count is only bounded by u32), so the
    // patching pass below reads them again. Gen8+ relocations write 8 bytes.
    let reloc_width: u64 = if k.platform.softpin() { 8 } else { 4 };
    for (i, o) in objects.iter().enumerate() {
        let size = k.bos[&ids[i]].size;
        for_each_reloc(o, |_, r| {
            reloc_target(k, fd, lut, &index, r)?;
            check_reloc(r, size, reloc_width)
        })?;
    }

    // Bind: on Ivy Bridge, objects not bound yet get stable addresses in the one GTT for
    // their whole life; on Ice Lake, each file has its own address space, pinned objects
    // go where the client says and unpinned ones keep the address they last had.
    let file_id = *k.fds.get(&fd).ok_or(Errno::EBADF)?;
    if k.platform.softpin() && !k.files[&file_id].vms.contains_key(&vm) {
        return Err(Errno::EINVAL);
    }
    let mut addrs = Vec::with_capacity(objects.len());
    for (i, o) in objects.iter().enumerate() {
        let size = k.bos.get(&ids[i]).ok_or(Errno::ENOENT)?.size;
        if k.platform.softpin() {
            let map = &k.files[&file_id].vms[&vm];
            let at = if o.flags & EXEC_OBJECT_PINNED != 0 {
                o.offset & ADDRESS_MASK
            } else if let Some((a, _)) = map.iter().find(|(_, b)| **b == ids[i]) {
                *a
            } else {
                // An unpinned object on a softpin platform: an address from the kernel's
                // allocator, freed with the object.
                let at = k
                    .gtt
                    .alloc(size, o.alignment.max(4096))
                    .ok_or(Errno::ENOSPC)?;
                k.bos.get_mut(&ids[i]).ok_or(Errno::ENOENT)?.gpu = Some(at);
                k.bound.insert(at, ids[i]);
                at
            };
            bind(k, file_id, vm, at, ids[i], size);
            addrs.push(at);
        } else {
            let bo = &k.bos[&ids[i]];
            let at = match bo.gpu {
                Some(a) => a,
                None => {
                    let at = k
                        .gtt
                        .alloc(size, o.alignment.max(4096))
                        .ok_or(Errno::ENOSPC)?;
                    k.bound.insert(at, ids[i]);
                    k.bos.get_mut(&ids[i]).ok_or(Errno::ENOENT)?.gpu = Some(at);
                    at
                }
            };
            addrs.push(at);
        }
    }

    // Patch relocations and write the presumed offsets back. The entries are read again
    // and checked again (the client may have changed them since); a failed write-back is
    // ignored, as i915 ignores it (eb_relocate_vma: "if the array is not writable the
    // user loses the updated relocation values").
    for (i, o) in objects.iter().enumerate() {
        let size = k.bos[&ids[i]].size;
        let mut stores = Vec::new();
        for_each_reloc(o, |user_addr, r| {
            let t = reloc_target(k, fd, lut, &index, r)?;
            check_reloc(r, size, reloc_width)?;
            let target = addrs[t];
            let value = target.wrapping_add(r.delta as u64);
            let bytes = value.to_le_bytes();
            k.bos[&ids[i]].write(r.offset, &bytes[..reloc_width as usize])?;
            if r.presumed_offset != target {
                stores.push((user_addr + 16, target));
            }
            if stores.len() >= RELOC_CHUNK {
                user::write_u64s(&stores);
                stores.clear();
            }
            Ok(())
        })?;
        user::write_u64s(&stores);
    }
    // The objects' offsets, where they changed; failures ignored as in
    // i915_gem_execbuffer2_ioctl ("we try to write out the current object locations
    // irrespective of any error").
    let stores: Vec<(u64, u64)> = objects
        .iter()
        .enumerate()
        .filter(|(i, o)| o.offset & ADDRESS_MASK != addrs[*i])
        .map(|(i, _)| {
            (
                eb.buffers_ptr + (i * size_of::<I915GemExecObject2>()) as u64 + 24,
                addrs[i],
            )
        })
        .collect();
    user::write_u64s(&stores);

    let batch_addr = addrs[batch_index] + eb.batch_start_offset as u64;
    if let Some(c) = k
        .files
        .get_mut(&file_id)
        .and_then(|f| f.contexts.get_mut(&ctx_id))
    {
        c.used = true;
    }
    k.submissions += 1;
    capture(k, &ids, &addrs, batch_addr, device_ctx, engine);

    // What the CPU wrote through GTT maps of tiled objects reaches the objects before
    // the GPU runs, and what the GPU wrote reaches the maps after (`detile.rs`).
    // Only the objects the submission lists: a batch touches no other.
    let started = std::time::Instant::now();
    for id in &ids {
        if let (Some(view), Some(bo)) = (k.gtt_views.get_mut(id), k.bos.get(id)) {
            view.retile(bo)?;
        }
    }
    // Execute.
    let result = {
        let bindings = if k.platform.softpin() {
            &k.files[&file_id].vms[&vm]
        } else {
            &k.bound
        };
        let map: BTreeMap<u64, &crate::bo::Bo> = bindings
            .iter()
            .filter_map(|(a, id)| k.bos.get(id).map(|b| (*a, b)))
            .collect();
        let mut view = GttView::new(&map);
        k.device
            .submit_on(engine, device_ctx, batch_addr, &mut view)
    };
    let ran = started.elapsed();
    for id in &ids {
        if let (Some(view), Some(bo)) = (k.gtt_views.get_mut(id), k.bos.get(id)) {
            view.detile(bo)?;
        }
    }
    // `GTSIM_LOG=gtsim_i915::timing=debug`: a submission's time, tiled maps included,
    // and the work the hangcheck counted (the figures its limits are calibrated with).
    let work = result.as_ref().map(|r| r.work).unwrap_or_default();
    tracing::debug!(
        target: "gtsim_i915::timing",
        objects = ids.len(),
        eu_instructions = work[0],
        vertices = work[1],
        pixels = work[2],
        through_submit_us = ran.as_micros() as u64,
        total_us = started.elapsed().as_micros() as u64,
        "execbuffer"
    );
    match result {
        Ok(report) => {
            for line in &report.not_executed {
                crate::log(line);
            }
        }
        Err(hang) => {
            // A hang: reported like the kernel's "GPU HANG" message; the context is marked
            // guilty (GET_RESET_STATS) and perhaps banned (`ban.rs`), and the fences
            // still signal, as after a reset.
            let file_id = k.fds[&fd];
            let banned = k.files.get_mut(&file_id).is_some_and(|f| {
                f.contexts.get_mut(&ctx_id).is_some_and(|c| {
                    crate::ban::mark_guilty(&mut c.hangs, &mut f.client, std::time::Instant::now())
                })
            });
            let saved = match error_state(k, &ids, &addrs, batch_index, batch_addr, blitter, &hang)
            {
                Some(Ok(path)) => format!("; error state in {}", path.display()),
                Some(Err(e)) => format!("; the error state could not be written: {e}"),
                None => String::new(),
            };
            crate::log(&format!(
                "GPU HANG: context {ctx_id}, submission {}: {hang}{}{saved}",
                k.submissions,
                if banned {
                    " (the context is banned: its next execbuffer fails with EIO)"
                } else {
                    ""
                }
            ));
        }
    }

    // Signal fences: a binary signal replaces the syncobj's fence, a timeline signal adds
    // its point (drm_syncobj_replace_fence / drm_syncobj_add_point in signal_fence_array).
    let file_id = k.fds[&fd];
    if let Some(f) = k.files.get_mut(&file_id) {
        for (h, (binary, point)) in &signals.0 {
            if let Some(s) = f.syncobjs.get(h) {
                s.update(|s| {
                    if *binary {
                        s.signal();
                    }
                    if *point != 0 {
                        s.add_point(*point);
                    }
                });
            }
        }
    }
    if eb.flags & I915_EXEC_FENCE_OUT != 0 {
        // A sync_file that is already signalled: an eventfd holding a count polls readable.
        // SAFETY: plain syscall; the result is checked.
        let efd = unsafe { libc::eventfd(1, libc::EFD_CLOEXEC) };
        if efd < 0 {
            return Err(Errno::ENOMEM);
        }
        // The fd travels back in the upper half of rsvd2, through the ioctl's copy-out:
        // only an EXECBUFFER2_WR (read-write) request sees it, as with the kernel.
        eb.rsvd2 = (eb.rsvd2 & 0xffff_ffff) | ((efd as u64) << 32);
        a.set(&eb);
    }
    Ok(())
}

/// The 48-bit address space of Gen8+ full PPGTT (the Ice Lake record's address width):
/// canonical addresses are used as their low 48 bits (eb_pin_vma: `entry->offset &
/// PIN_OFFSET_MASK` after gen8_noncanonical_addr).
const ADDRESS_MASK: u64 = gtsim_spec::device::ICE_LAKE_GT2.address_mask();

/// Binds object `id` at `at` in address space `vm` of file `file_id`: any other binding that
/// overlaps the range is evicted, as i915 evicts a stale binding in the way of a pinned
/// object (eb_reserve_vma, i915_gem_evict_for_node), and the object's own previous
/// binding moves.
fn bind(k: &mut Kernel, file_id: u64, vm: u32, at: u64, id: u64, size: u64) {
    let sizes: BTreeMap<u64, u64> = k.bos.iter().map(|(i, b)| (*i, b.size)).collect();
    let Some(map) = k.files.get_mut(&file_id).and_then(|f| f.vms.get_mut(&vm)) else {
        return;
    };
    if map.get(&at) == Some(&id) {
        return;
    }
    map.retain(|a, b| {
        let len = sizes.get(b).copied().unwrap_or(0);
        *b != id && (a + len <= at || at + size <= *a)
    });
    map.insert(at, id);
}

fn capture(
    k: &mut Kernel,
    ids: &[u64],
    addrs: &[u64],
    batch_addr: u64,
    context: u32,
    engine: gtsim_gpu::device::Ring,
) {
    let blitter = engine == gtsim_gpu::device::Ring::Blitter;
    let Some(cap) = k.capture.as_mut() else {
        return;
    };
    match &mut cap.writer {
        crate::kernel::CaptureWriter::Legacy(w) => {
            for id in ids {
                if let Some(bo) = k.bos.get(id)
                    && let Some(a) = bo.gpu
                {
                    w.write_memory(a, &bo.contents(), 0);
                }
            }
            // The hardware context goes into the ring as the driver's MI_SET_CONTEXT:
            // crocus keeps render and compute batches in separate contexts, whose state
            // (PIPELINE_SELECT included) a replay must keep apart.
            // The blitter ring's submissions as Mesa's AUB writer records them (ring
            // type PRB2).
            let ring = if blitter {
                gtsim_gpu::aub::TYPE_RING_PRB2
            } else {
                gtsim_gpu::aub::TYPE_RING_PRB0
            };
            w.exec_on_ring(ring, batch_addr, context, 0);
        }
        crate::kernel::CaptureWriter::Execlist(w) => {
            // Every object at the address this submission bound it (softpin), through
            // the trace's PPGTT; then an execlist submission of the context.
            for (id, a) in ids.iter().zip(addrs) {
                if let Some(bo) = k.bos.get(id) {
                    w.write_memory(*a, &bo.contents());
                }
            }
            if engine == gtsim_gpu::device::Ring::VideoEnhance {
                w.exec_in_context_on_vecs(batch_addr, context);
            } else {
                w.exec_in_context(batch_addr, context);
            }
        }
    }
    let bytes = match &mut cap.writer {
        crate::kernel::CaptureWriter::Legacy(w) => w.drain(),
        crate::kernel::CaptureWriter::Execlist(w) => w.drain(),
    };
    if let Err(e) = cap.file.write_all(&bytes).and_then(|_| cap.file.flush()) {
        crate::log(&format!(
            "capture: cannot write the AUB file: {e}; capture stopped"
        ));
        k.capture = None;
    }
}

/// Writes the error state of a hang (`error_state.rs`): Ivy Bridge only, the format's
/// generation; `None` elsewhere.
#[allow(
    clippy::too_many_arguments,
    reason = "the submission's pieces, as execbuffer2 has them"
)]
fn error_state(
    k: &Kernel,
    ids: &[u64],
    addrs: &[u64],
    batch_index: usize,
    batch_addr: u64,
    blitter: bool,
    hang: &gtsim_gpu::device::Hang,
) -> Option<std::io::Result<std::path::PathBuf>> {
    let dir = k.error_dir.as_ref()?;
    if k.platform.softpin() {
        return None;
    }
    // The objects' contents, within the error state's budget (checked before copying:
    // a client's objects may be large); the batch object first, capped likewise.
    let mut budget = crate::error_state::MAX_BYTES as u64;
    // The batch object's first MAX_BYTES at most (its commands are what the readers
    // decode first).
    let batch = {
        let bo = k.bos.get(ids.get(batch_index)?)?;
        let len = bo.size.min(budget) as usize;
        let mut bytes = vec![0u8; len];
        if bo.read(0, &mut bytes).is_err() {
            return None;
        }
        budget -= len as u64;
        (*addrs.get(batch_index)?, bytes)
    };
    let mut take = |id: &u64, addr: u64| -> Option<(u64, Vec<u8>)> {
        let bo = k.bos.get(id)?;
        if bo.size > budget {
            return None;
        }
        budget -= bo.size;
        Some((addr, bo.contents()))
    };
    let objects: Vec<(u64, Vec<u8>)> = ids
        .iter()
        .zip(addrs)
        .enumerate()
        .filter(|(i, _)| *i != batch_index)
        .filter_map(|(_, (id, a))| take(id, *a))
        .collect();
    let comm = std::fs::read_to_string("/proc/self/comm").unwrap_or_default();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let state = crate::error_state::ErrorState {
        engine: if blitter { "bcs0" } else { "rcs0" },
        pci_id: k.platform.pci_device(),
        revision: k.platform.pci_revision(),
        process: (comm.trim().to_string(), std::process::id()),
        reason: hang.to_string(),
        acthd: hang.addr(),
        batch_addr,
        batch: (batch.0, &batch.1),
        objects: objects.iter().map(|(a, b)| (*a, b.as_slice())).collect(),
        time: (now.as_secs(), now.subsec_micros()),
    };
    crate::error_state::write(dir, &state.text())
}
