//! GTT maps of tiled objects: the linear view a fence register gives the CPU.
//!
//! On the hardware a GEM_MMAP_GTT mapping goes through the aperture, where a fence
//! register programmed with the object's tiling and stride turns linear CPU addresses
//! into tiled memory addresses (Linux i915_gem_fence_reg.c; the tile layouts are the
//! ones `gtsim_mem::tiling` models, without swizzling, as this emulation reports
//! I915_BIT_6_SWIZZLE_NONE). A detiling that works byte by byte within pages cannot be
//! built from page mappings, so the view is a second memfd holding the linear image,
//! kept coherent with the object at the points where the GPU can see it: before each
//! execbuffer that lists the object the bytes the CPU changed in the view are tiled into
//! it, after it the object is detiled into the view; a change of tiling keeps the
//! view's last writes too. What the CPU writes through another mapping of the object in
//! between is kept unless the view changed the same bytes. All views together hold at
//! most the mappable aperture ([`APERTURE`]); a map past it is ENOSPC, and a host out of
//! memory ENOMEM.

use crate::bo::Bo;
use crate::errno::Errno;
use gtsim_mem::tiling::Tiling;

/// Bytes copied at a time: the narrowest run the tile layouts keep contiguous (a Y
/// tile's 16-byte column row; an X tile row is 512).
const SPAN: u64 = 16;

/// The most bytes all linear views together may hold: Ivy Bridge's mappable aperture,
/// through which GTT maps go (256 MiB on the desktop parts; Linux refuses to fault in
/// an object the aperture cannot hold). Past it, a GTT map of a tiled object is ENOSPC.
pub const APERTURE: u64 = 256 << 20;

/// A zeroed buffer of `n` bytes, or ENOMEM when the host cannot give it.
fn buffer(n: u64) -> Result<Vec<u8>, Errno> {
    let mut v = Vec::new();
    v.try_reserve_exact(n as usize).map_err(|_| Errno::ENOMEM)?;
    v.resize(n as usize, 0);
    Ok(v)
}

/// The linear view of one tiled object.
#[derive(Debug)]
pub struct DetiledView {
    /// The linear image, a memfd-backed object the client maps.
    pub shadow: Bo,
    /// The image as it was last synchronized, to find the bytes the CPU changed.
    synced: Vec<u8>,
    tiling: Tiling,
    stride: u64,
}

impl DetiledView {
    /// A view of `bo` with tiling `tiling` (I915_TILING_X or _Y) and `stride` bytes per
    /// row, filled from the object. EINVAL for a stride the tiling cannot have (the
    /// kernel refuses such a SET_TILING too).
    pub fn new(bo: &Bo, tiling: u32, stride: u32) -> Result<DetiledView, Errno> {
        let tiling = match tiling {
            crate::uapi::I915_TILING_X => Tiling::X,
            crate::uapi::I915_TILING_Y => Tiling::Y,
            _ => return Err(Errno::EINVAL),
        };
        let stride = u64::from(stride);
        if tiling.offset(stride, 0, 0).is_err() {
            return Err(Errno::EINVAL);
        }
        let mut v = DetiledView {
            shadow: Bo::new(bo.size)?,
            synced: buffer(bo.size)?,
            tiling,
            stride,
        };
        v.detile(bo)?;
        Ok(v)
    }

    /// Where linear byte `at` of the view lies in the object, if inside it.
    fn tiled(&self, at: u64, size: u64) -> Option<u64> {
        let (row, x) = (at / self.stride, at % self.stride);
        let off = self.tiling.offset(self.stride, x, row).ok()?;
        (off + SPAN <= size).then_some(off)
    }

    /// Object → view: after the GPU ran.
    pub fn detile(&mut self, bo: &Bo) -> Result<(), Errno> {
        let mut at = 0;
        while at + SPAN <= bo.size {
            if let Some(off) = self.tiled(at, bo.size) {
                let span = &mut self.synced[at as usize..(at + SPAN) as usize];
                bo.read(off, span)?;
            }
            at += SPAN;
        }
        self.shadow.write(0, &self.synced)
    }

    /// Bytes the view holds.
    pub fn size(&self) -> u64 {
        self.synced.len() as u64
    }

    /// View → object, the spans the CPU changed since the last synchronization: before
    /// the GPU runs (and before the object's tiling changes).
    pub fn retile(&mut self, bo: &Bo) -> Result<(), Errno> {
        let mut now = buffer(self.synced.len() as u64)?;
        self.shadow.read(0, &mut now)?;
        let mut at = 0;
        while at + SPAN <= bo.size {
            let r = at as usize..(at + SPAN) as usize;
            if now[r.clone()] != self.synced[r.clone()]
                && let Some(off) = self.tiled(at, bo.size)
            {
                bo.write(off, &now[r])?;
            }
            at += SPAN;
        }
        self.synced = now;
        Ok(())
    }
}
