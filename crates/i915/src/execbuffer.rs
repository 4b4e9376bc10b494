//! DRM_IOCTL_I915_GEM_EXECBUFFER2 on Gen7: validate everything, bind objects at stable
//! graphics addresses, patch relocations (32-bit on Gen7) and write the offsets back, run
//! the batch on the device, signal fences, and capture the submission if asked.
//!
//! Validation comes first and changes nothing: an unknown handle, a relocation outside
//! its object, a batch outside its buffer or a closed context gets the errno the real
//! driver gives (ENOENT, EINVAL) and leaves every object untouched.

use crate::bo::GttView;
use crate::errno::Errno;
use crate::kernel::Kernel;
use crate::uapi::*;
use crate::user;
use std::collections::BTreeMap;
use std::io::Write;

/// Most objects one execbuffer may list (a sanity bound; real limits are memory).
const MAX_OBJECTS: u32 = 1 << 16;

struct Reloc {
    object: usize,
    offset: u64,
    target: usize,
    delta: u32,
    user_addr: u64,
}

/// DRM_IOCTL_I915_GEM_EXECBUFFER2 (see the module docs).
pub fn execbuffer2(k: &mut Kernel, fd: i32, a: &mut user::Args) -> Result<(), Errno> {
    let mut eb: I915GemExecbuffer2 = a.get();
    let ring = eb.flags & I915_EXEC_RING_MASK;
    if ring != I915_EXEC_DEFAULT && ring != I915_EXEC_RENDER {
        crate::log(&format!(
            "execbuffer on ring {ring}: only the render ring is modelled; refused with EINVAL"
        ));
        return Err(Errno::EINVAL);
    }
    if eb.buffer_count == 0 || eb.buffer_count > MAX_OBJECTS {
        return Err(Errno::EINVAL);
    }
    let ctx_id = (eb.rsvd1 & 0xffff_ffff) as u32;
    let device_ctx = {
        let file_id = *k.fds.get(&fd).ok_or(Errno::EBADF)?;
        k.files
            .get(&file_id)
            .and_then(|f| f.contexts.get(&ctx_id))
            .ok_or(Errno::ENOENT)?
            .device_id
    };

    // Objects.
    let objects: Vec<I915GemExecObject2> =
        user::read_array(eb.buffers_ptr, eb.buffer_count as usize)?;
    let mut ids = Vec::with_capacity(objects.len());
    for o in &objects {
        let id = k.bo_id(fd, o.handle)?;
        if ids.contains(&id) {
            return Err(Errno::EINVAL);
        }
        if o.flags & EXEC_OBJECT_PINNED != 0 {
            // Softpin needs full PPGTT (Gen8+): I915_PARAM_HAS_EXEC_SOFTPIN is 0 here.
            return Err(Errno::EINVAL);
        }
        if o.alignment != 0 && !o.alignment.is_power_of_two() {
            return Err(Errno::EINVAL);
        }
        ids.push(id);
    }
    let lut = eb.flags & I915_EXEC_HANDLE_LUT != 0;

    // Relocations: read and check them all before touching anything.
    let mut relocs = vec![];
    for (i, o) in objects.iter().enumerate() {
        let entries: Vec<I915GemRelocationEntry> =
            user::read_array(o.relocs_ptr, o.relocation_count as usize)?;
        let size = k.bos[&ids[i]].size;
        for (j, r) in entries.iter().enumerate() {
            let target = if lut {
                let t = r.target_handle as usize;
                if t >= objects.len() {
                    return Err(Errno::ENOENT);
                }
                t
            } else {
                let tid = k.bo_id(fd, r.target_handle)?;
                ids.iter().position(|x| *x == tid).ok_or(Errno::ENOENT)?
            };
            if r.offset % 4 != 0 || r.offset.checked_add(4).is_none_or(|e| e > size) {
                return Err(Errno::EINVAL);
            }
            relocs.push(Reloc {
                object: i,
                offset: r.offset,
                target,
                delta: r.delta,
                user_addr: o.relocs_ptr + (j * size_of::<I915GemRelocationEntry>()) as u64,
            });
        }
    }

    // Fences (FENCE_ARRAY travels in cliprects_ptr / num_cliprects).
    let fences: Vec<I915GemExecFence> = if eb.flags & I915_EXEC_FENCE_ARRAY != 0 {
        user::read_array(eb.cliprects_ptr, eb.num_cliprects as usize)?
    } else if eb.num_cliprects != 0 {
        return Err(Errno::EINVAL);
    } else {
        vec![]
    };
    {
        let file_id = k.fds[&fd];
        let f = &k.files[&file_id];
        if fences.iter().any(|x| !f.syncobjs.contains_key(&x.handle)) {
            return Err(Errno::ENOENT);
        }
    }

    // The batch.
    let batch_index = if eb.flags & I915_EXEC_BATCH_FIRST != 0 {
        0
    } else {
        objects.len() - 1
    };
    let batch_size = k.bos[&ids[batch_index]].size;
    if !eb.batch_start_offset.is_multiple_of(8)
        || eb.batch_start_offset as u64 >= batch_size
        || (eb.batch_start_offset as u64 + eb.batch_len as u64) > batch_size
    {
        return Err(Errno::EINVAL);
    }

    // Bind objects not bound yet: stable addresses for their whole life.
    for (i, o) in objects.iter().enumerate() {
        let bo = k.bos.get(&ids[i]).ok_or(Errno::ENOENT)?;
        if bo.gpu.is_none() {
            let at = k
                .gtt
                .alloc(bo.size, o.alignment.max(4096))
                .ok_or(Errno::ENOSPC)?;
            k.bound.insert(at, ids[i]);
            k.bos.get_mut(&ids[i]).ok_or(Errno::ENOENT)?.gpu = Some(at);
        }
    }
    let addr = |k: &Kernel, i: usize| k.bos[&ids[i]].gpu.unwrap_or(0);

    // Patch relocations and write back presumed offsets.
    for r in &relocs {
        let value = addr(k, r.target).wrapping_add(r.delta as u64) as u32;
        k.bos[&ids[r.object]].write(r.offset, &value.to_le_bytes())?;
        let presumed = addr(k, r.target);
        user::write(r.user_addr + 16, &presumed)?;
    }
    for (i, _) in objects.iter().enumerate() {
        let off = addr(k, i);
        user::write(
            eb.buffers_ptr + (i * size_of::<I915GemExecObject2>()) as u64 + 24,
            &off,
        )?;
    }

    let batch_addr = addr(k, batch_index) + eb.batch_start_offset as u64;
    k.submissions += 1;
    capture(k, &ids, batch_addr);

    // Execute.
    let result = {
        let map: BTreeMap<u64, &crate::bo::Bo> = k
            .bound
            .iter()
            .filter_map(|(a, id)| k.bos.get(id).map(|b| (*a, b)))
            .collect();
        let mut view = GttView { map: &map };
        k.device.submit(device_ctx, batch_addr, &mut view)
    };
    match result {
        Ok(report) => {
            for line in &report.not_executed {
                crate::log(line);
            }
        }
        Err(hang) => {
            // A hang: reported like the kernel's "GPU HANG" message; the context is marked
            // guilty (GET_RESET_STATS) and the fences still signal, as after a reset.
            crate::log(&format!(
                "GPU HANG: context {ctx_id}, submission {}: {hang}",
                k.submissions
            ));
            let file_id = k.fds[&fd];
            if let Some(c) = k
                .files
                .get_mut(&file_id)
                .and_then(|f| f.contexts.get_mut(&ctx_id))
            {
                c.guilty += 1;
            }
        }
    }

    // Signal fences.
    let file_id = k.fds[&fd];
    if let Some(f) = k.files.get_mut(&file_id) {
        for x in fences
            .iter()
            .filter(|x| x.flags & I915_EXEC_FENCE_SIGNAL != 0)
        {
            f.syncobjs.insert(x.handle, true);
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

fn capture(k: &mut Kernel, ids: &[u64], batch_addr: u64) {
    let Some(cap) = k.capture.as_mut() else {
        return;
    };
    for id in ids {
        if let Some(bo) = k.bos.get(id)
            && let Some(a) = bo.gpu
        {
            cap.writer.write_memory(a, &bo.contents(), 0);
        }
    }
    cap.writer.exec(batch_addr, 0);
    let bytes = cap.writer.drain();
    if let Err(e) = cap.file.write_all(&bytes).and_then(|_| cap.file.flush()) {
        crate::log(&format!(
            "capture: cannot write the AUB file: {e}; capture stopped"
        ));
        k.capture = None;
    }
}
