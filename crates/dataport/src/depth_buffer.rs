//! The depth and stencil buffers: the depth/stencil test of each pixel, before the pixel
//! shader (seed 004 §11.5.2) or at its render target write, with the tests themselves of
//! §12.1.4-12.1.5, and the depth buffer clear and resolve operations of §11.5.3.
//!
//! The hierarchical depth buffer is an acceleration structure whose contents the seed
//! does not define: the model keeps the depth buffer itself always up to date (a clear
//! writes the clear value into it at once), so a depth buffer resolve has nothing left to
//! do and the HiZ buffer is never read or written. Every access the seed permits (depth
//! tests, and sampling or CPU reads after a resolve) sees the values the hardware would
//! give.

use crate::depth_stencil::{DepthFormat, DepthStencilState as PixelState, depth_stencil};
use gtsim_mem::Memory;
use gtsim_mem::fill::Fill;
use gtsim_mem::layout::{ImageOffsets, SurfaceDesc};
use gtsim_message::MessageError;

/// What a draw does to the depth buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DepthOp {
    /// Normal rendering: test (and maybe write) each pixel.
    #[default]
    Test,
    /// 3DSTATE_WM Depth Buffer Clear: covered pixels take the clear value (§11.5.3.1).
    Clear,
    /// A depth or HiZ resolve: no visible effect in this model (see the module docs).
    Resolve,
}

/// A bound depth buffer (and separate stencil buffer), with the tests of both faces.
#[derive(Debug, Clone, PartialEq)]
pub struct DepthBuffer {
    /// Graphics address of the depth buffer.
    pub base: u64,
    /// Its layout: for a multisampled buffer, the plane its interleaved samples are
    /// stored in ([`SurfaceDesc::interleaved_plane`]), whose elements the operations
    /// below address directly (see [`DepthAccess::sample`]).
    pub desc: SurfaceDesc,
    /// Samples per pixel (3DSTATE_MULTISAMPLE Number of Multisamples, seed 004 §11.4.1).
    pub samples: u32,
    /// Its format.
    pub format: DepthFormat,
    /// The level rendered to.
    pub lod: u32,
    /// Minimum Array Element: the slice a primitive with Render Target Array Index 0
    /// renders to ([`DepthBuffer::access_at`] adds the index).
    pub slice: u32,
    /// The largest Render Target Array Index that reaches a slice of its own (the
    /// Depth field, counting a cube's faces); a larger one addresses [`Self::slice`].
    pub array_extent: u32,
    /// The separate stencil buffer's address and layout (for a multisampled buffer, its
    /// plane too), when the tests use it.
    pub stencil: Option<(u64, SurfaceDesc)>,
    /// Front-facing pixels' tests.
    pub front: PixelState,
    /// Back-facing pixels' tests.
    pub back: PixelState,
    /// The depth clear value (the buffer's raw bits); `None` when 3DSTATE_CLEAR_PARAMS
    /// Depth Clear Value Valid is clear: the value is then "obtained from interpolated
    /// depth of an arbitrary pixel of the primitive rendered with Depth Buffer Clear set"
    /// (seed 004 3DSTATE_CLEAR_PARAMS), which the pipeline resolves per primitive before
    /// clearing.
    pub clear_value: Option<u32>,
    /// The stencil clear value, when a clear writes stencil.
    pub stencil_clear: Option<u8>,
    /// What the draw does.
    pub op: DepthOp,
}

/// A clear whose value comes from its primitive reached the buffer without it.
fn unresolved_clear() -> MessageError {
    MessageError::State {
        structure: "3DSTATE_CLEAR_PARAMS",
        why: "Depth Clear Value Valid is clear and no primitive gave the clear its depth".into(),
    }
}

fn dword_le(b: &[u8]) -> u32 {
    let mut v = [0u8; 4];
    v[..b.len()].copy_from_slice(b);
    u32::from_le_bytes(v)
}

impl DepthBuffer {
    /// The buffer ready for many pixels of a primitive with Render Target Array Index
    /// 0 ([`Self::access_at`]).
    pub fn access(&self) -> DepthAccess<'_> {
        self.access_at(0)
    }

    /// The buffer ready for many pixels of a primitive with Render Target Array Index
    /// `array_index`: the offsets of the depth and stencil images of its slice worked
    /// out once. Seed 004 3DSTATE_DEPTH_BUFFER Minimum Array Element: "The delivered
    /// array index is added to this field before being used to address the surface"
    /// (the stencil buffer shares the field, seed 004 3DSTATE_STENCIL_BUFFER); an index
    /// past the Depth field is set to zero, as for render targets (seed 000 §3.9,
    /// `rt_message::target_slice`).
    pub fn access_at(&self, array_index: u32) -> DepthAccess<'_> {
        let index = if array_index <= self.array_extent {
            array_index
        } else {
            0
        };
        let slice = self.slice.saturating_add(index);
        DepthAccess {
            buffer: self,
            slice,
            depth: self.desc.image_offsets(slice, self.lod),
            stencil: self
                .stencil
                .as_ref()
                .and_then(|(_, d)| d.image_offsets(slice, self.lod)),
        }
    }

    /// Runs the depth operation on one pixel ([`DepthAccess::pixel`]).
    pub fn pixel(
        &self,
        mem: &mut dyn Memory,
        x: u32,
        y: u32,
        z: f32,
        back_facing: bool,
    ) -> Result<bool, MessageError> {
        self.access().pixel(mem, x, y, z, back_facing)
    }
}

/// A [`DepthBuffer`] with its images' offsets worked out ([`DepthBuffer::access`]).
#[derive(Debug, Clone, Copy)]
pub struct DepthAccess<'a> {
    buffer: &'a DepthBuffer,
    /// The slice addressed (Minimum Array Element plus the array index).
    slice: u32,
    depth: Option<ImageOffsets>,
    stencil: Option<ImageOffsets>,
}

impl DepthAccess<'_> {
    /// The buffer.
    pub fn buffer(&self) -> &DepthBuffer {
        self.buffer
    }

    fn depth_addr(&self, x: u32, y: u32) -> Result<u64, MessageError> {
        let d = self.buffer;
        // A pixel past the LOD's edge is addressed all the same, within the pitch
        // (`ImageOffsets::offset_in_pitch`): crocus aligns the drawing rectangle of a
        // HiZ depth LOD to 8x4 pixels, past a 4x4 LOD, and the hardware writes those
        // pixels into the miptree's padding.
        let off = match &self.depth {
            Some(img) => img.offset_in_pitch(x, y),
            None => d.desc.texel_offset(x, y, self.slice, d.lod, 0),
        }
        .map_err(|e| depth_layout_error(x, y, e))?;
        Ok(d.base.wrapping_add(off))
    }

    /// The depth (decoded to a float: D32_FLOAT as it is, the UNORM formats divided by
    /// their largest value) and the stencil value stored at pixel (`x`, `y`), each where
    /// it can be read: what a test there compares with (`gtsim inspect --pixel`).
    pub fn stored(&self, mem: &dyn Memory, x: u32, y: u32) -> (Option<f32>, Option<u8>) {
        let d = self.buffer;
        let bytes = (d.desc.block_bytes as usize).min(4);
        let depth = self.depth_addr(x, y).ok().and_then(|a| {
            let mut b = [0u8; 4];
            mem.read(a, &mut b[..bytes]).ok()?;
            let raw = dword_le(&b[..bytes]);
            Some(match d.format {
                DepthFormat::D32Float => f32::from_bits(raw),
                DepthFormat::D24Unorm => (raw & 0x00ff_ffff) as f32 / 16_777_215.0,
                DepthFormat::D16Unorm => (raw & 0xffff) as f32 / 65_535.0,
            })
        });
        let stencil = self.stencil_addr(x, y).ok().flatten().and_then(|a| {
            let mut s = [0u8; 1];
            mem.read(a, &mut s).ok()?;
            Some(s[0])
        });
        (depth, stencil)
    }

    /// [`Self::stored`] of sample `s` of pixel (`x`, `y`) of a multisampled buffer (its
    /// samples interleaved in one plane, `gtsim_mem::layout::ims_position`).
    pub fn stored_sample(
        &self,
        mem: &dyn Memory,
        (x, y, s): (u32, u32, u32),
    ) -> (Option<f32>, Option<u8>) {
        let (px, py) = gtsim_mem::layout::ims_position(x, y, s, self.buffer.samples);
        self.stored(mem, px, py)
    }

    fn stencil_addr(&self, x: u32, y: u32) -> Result<Option<u64>, MessageError> {
        let d = self.buffer;
        let Some((base, desc)) = &d.stencil else {
            return Ok(None);
        };
        let off = match &self.stencil {
            Some(img) => img.offset_in_pitch(x, y),
            None => desc.texel_offset(x, y, self.slice, d.lod, 0),
        }
        .map_err(|e| MessageError::State {
            structure: "3DSTATE_STENCIL_BUFFER",
            why: format!("pixel ({x}, {y}): {e}"),
        })?;
        Ok(Some(base.wrapping_add(off)))
    }

    /// 3DSTATE_WM Depth Buffer Clear over `pixels` (seed 004 §11.5.3.1): each takes the
    /// depth clear value (when depth writes are enabled) and the stencil clear value
    /// (when a clear writes stencil), the bytes [`Self::pixel`] writes for each, made as
    /// one write per run of neighbouring bytes in memory, page by page (every pixel is
    /// written once and with the same bytes, so the order changes nothing). A pixel
    /// outside the buffer stops the clear with the error [`Self::pixel`] gives, after the
    /// pixels before it.
    pub fn clear(&self, mem: &mut dyn Memory, pixels: &[(u32, u32)]) -> Result<(), MessageError> {
        let d = self.buffer;
        let fault = |fault| MessageError::Fault {
            what: "depth buffer".into(),
            fault,
        };
        let bytes = d.desc.block_bytes as usize;
        let (Some(mut depth), Some(mut stencil)) = (Fill::new(bytes), Fill::new(1)) else {
            return self.clear_one_by_one(mem, pixels);
        };
        let mut error = None;
        if d.stencil.is_none()
            && d.front.depth_write
            && let Some(rects) = self.depth_rectangles(pixels)
        {
            depth = rects;
        } else if d.stencil.is_none() && d.front.depth_write {
            match self.add_depth_runs(&mut depth, pixels) {
                Some(e) => error = e,
                None => return self.clear_one_by_one(mem, pixels),
            }
        } else {
            for &(x, y) in pixels {
                // The stencil address first, as `pixel` computes it.
                let sa = match self.stencil_addr(x, y) {
                    Ok(a) => a,
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                };
                if d.front.depth_write {
                    match self.depth_addr(x, y) {
                        Ok(a) if depth.add(a) => {}
                        Ok(_) => return self.clear_one_by_one(mem, pixels),
                        Err(e) => {
                            error = Some(e);
                            break;
                        }
                    }
                }
                if let (Some(a), Some(_)) = (sa, d.stencil_clear) {
                    stencil.add(a);
                }
            }
        }
        let value = d.clear_value.ok_or_else(unresolved_clear)?.to_le_bytes();
        depth.write(mem, &value[..bytes]).map_err(fault)?;
        if let Some(s) = d.stencil_clear {
            stencil.write(mem, &[s]).map_err(fault)?;
        }
        match error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The depth elements of `pixels` as a fill made a rectangle at a time
    /// ([`Fill::add_rect`]), when every pixel lies inside the depth buffer's image
    /// (so no pixel stops the clear and the order of the elements changes nothing);
    /// `None` otherwise.
    fn depth_rectangles(&self, pixels: &[(u32, u32)]) -> Option<Fill> {
        let img = self.depth.as_ref()?;
        let (w, h) = img.size();
        let mut runs: Vec<(u32, u32, u32)> = vec![];
        for &(x, y) in pixels {
            if x >= w || y >= h {
                return None;
            }
            match runs.last_mut() {
                Some((ry, rx, n)) if *ry == y && rx.wrapping_add(*n) == x => *n += 1,
                _ => runs.push((y, x, 1)),
            }
        }
        let mut rects = Fill::new(self.buffer.desc.block_bytes as usize)?;
        for (xs, ys) in gtsim_mem::fill::rectangles(&runs) {
            if !rects.add_rect(self.buffer.base, img, xs, ys).ok()? {
                return None;
            }
        }
        Some(rects)
    }

    /// The depth elements of `pixels` added to `fill` (a clear without a stencil
    /// buffer): a row's neighbouring pixels that are neighbours in memory too are added
    /// as one run, their offsets worked out once. `Some` of the error that stopped it
    /// after the pixels before it (or of none); `None` when an element is not at a
    /// multiple of its size, for which the clear goes pixel by pixel.
    fn add_depth_runs(
        &self,
        fill: &mut Fill,
        pixels: &[(u32, u32)],
    ) -> Option<Option<MessageError>> {
        let d = self.buffer;
        let mut i = 0;
        while i < pixels.len() {
            let (x, y) = pixels[i];
            let mut n = 1;
            while i + n < pixels.len() && pixels[i + n] == (x + n as u32, y) {
                n += 1;
            }
            let mut j = 0;
            while j < n {
                let xj = x + j as u32;
                let run = match &self.depth {
                    Some(img) if xj < img.size().0 && y < img.size().1 => {
                        img.run(xj, y).map_err(|e| depth_layout_error(xj, y, e))
                    }
                    // Past the LOD's edge: one pixel at a time, as `depth_addr` places it.
                    _ => self.depth_addr(xj, y).map(|a| (a.wrapping_sub(d.base), 1)),
                };
                let (off, k) = match run {
                    Ok(r) => r,
                    Err(e) => return Some(Some(e)),
                };
                let k = (k as usize).min(n - j);
                if !fill.add_run(d.base.wrapping_add(off), k) {
                    return None;
                }
                j += k;
            }
            i += n;
        }
        Some(None)
    }

    /// [`Self::clear`] pixel by pixel (elements not at multiples of their size).
    fn clear_one_by_one(
        &self,
        mem: &mut dyn Memory,
        pixels: &[(u32, u32)],
    ) -> Result<(), MessageError> {
        for &(x, y) in pixels {
            self.pixel(mem, x, y, 0.0, false)?;
        }
        Ok(())
    }

    /// [`Self::pixel`] on sample `s` of pixel (x, y): the element of the plane the
    /// interleaved layout puts it in ([`gtsim_mem::layout::ims_position`]; sample 0 of
    /// a single-sampled buffer is its pixel).
    pub fn sample(
        &self,
        mem: &mut dyn Memory,
        (x, y, s): (u32, u32, u32),
        z: f32,
        back_facing: bool,
    ) -> Result<bool, MessageError> {
        self.sample_with_reference(mem, (x, y, s), z, back_facing, None)
    }

    /// [`Self::sample`] with the stencil reference `reference` when given (a pixel
    /// shader that computes its stencil reference).
    pub fn sample_with_reference(
        &self,
        mem: &mut dyn Memory,
        (x, y, s): (u32, u32, u32),
        z: f32,
        back_facing: bool,
        reference: Option<u8>,
    ) -> Result<bool, MessageError> {
        let (px, py) = gtsim_mem::layout::ims_position(x, y, s, self.buffer.samples);
        self.pixel_ref(mem, (px, py), z, back_facing, reference)
    }

    /// [`Self::clear`] of every sample of `pixels` (a multisampled buffer's clear).
    pub fn clear_samples(
        &self,
        mem: &mut dyn Memory,
        pixels: &[(u32, u32)],
    ) -> Result<(), MessageError> {
        let n = self.buffer.samples;
        if n <= 1 {
            return self.clear(mem, pixels);
        }
        let mut plane: Vec<(u32, u32)> = pixels
            .iter()
            .flat_map(|&(x, y)| (0..n).map(move |s| gtsim_mem::layout::ims_position(x, y, s, n)))
            .collect();
        plane.sort_unstable_by_key(|&(x, y)| (y, x));
        self.clear(mem, &plane)
    }

    /// [`Self::pixel`] on the row of pixels (`x0` + i, `y`) of source depths `zs[i]`
    /// (at most 32), in order: the pixels that go on to the pixel shader (bit i), and
    /// the error that stopped the row, if any, after the pixels before it. The same
    /// bytes are written and the same error given as pixel by pixel; a depth test
    /// without a stencil buffer reads and writes the pixels that neighbour in memory
    /// too (`ImageOffsets::run`: along a linear row, an X-tile row, a Y-tile OWord)
    /// with one access each way (the pixels are distinct, so reading them all before
    /// writing them changes nothing).
    pub fn row(
        &self,
        mem: &mut dyn Memory,
        (x0, y): (u32, u32),
        zs: &[f32],
        back_facing: bool,
    ) -> (u32, Option<MessageError>) {
        let d = self.buffer;
        let s = if back_facing { &d.back } else { &d.front };
        let bytes = d.desc.block_bytes as usize;
        let n = zs.len().min(32);
        let one_by_one = |mem: &mut dyn Memory, from: usize, mut passed: u32| {
            for (i, &z) in zs.iter().enumerate().take(n).skip(from) {
                match self.pixel(mem, x0 + i as u32, y, z, back_facing) {
                    Ok(true) => passed |= 1 << i,
                    Ok(false) => {}
                    Err(e) => return (passed, Some(e)),
                }
            }
            (passed, None)
        };
        let img = match &self.depth {
            Some(img)
                if d.op == DepthOp::Test
                    && d.stencil.is_none()
                    && (s.depth_test.is_some() || s.depth_write)
                    && matches!(bytes, 2 | 4) =>
            {
                img
            }
            _ => return one_by_one(mem, 0, 0),
        };
        let mut passed = 0u32;
        let mut i = 0;
        while i < n {
            let Ok((off, k)) = img.run(x0 + i as u32, y) else {
                return one_by_one(mem, i, passed);
            };
            let k = (k as usize).min(n - i);
            let addr = d.base.wrapping_add(off);
            let mut buf = [0u8; 32 * 4];
            let buf = &mut buf[..k * bytes];
            if mem.read(addr, buf).is_err() {
                return one_by_one(mem, i, passed);
            }
            let mut run_passed = 0u32;
            let mut written = false;
            for (j, px) in buf.chunks_exact_mut(bytes).enumerate() {
                let mut stored = dword_le(px);
                if d.format == DepthFormat::D24Unorm {
                    stored &= 0x00ff_ffff;
                }
                // No stencil buffer: the stencil value reads as 0, as `pixel` reads it.
                let Ok(r) = depth_stencil(s, d.format, zs[i + j], stored, 0) else {
                    // Nothing of this run is written yet: pixel by pixel from its start
                    // gives the error where it occurs.
                    return one_by_one(mem, i, passed);
                };
                if let Some(v) = r.depth {
                    px.copy_from_slice(&v.to_le_bytes()[..bytes]);
                    written = true;
                }
                if r.pass {
                    run_passed |= 1 << (i + j);
                }
            }
            if written && mem.write(addr, buf).is_err() {
                return one_by_one(mem, i, passed);
            }
            passed |= run_passed;
            i += k;
        }
        (passed, None)
    }

    /// Runs the depth operation on one pixel of source depth `z`; returns whether the
    /// pixel goes on to the pixel shader.
    pub fn pixel(
        &self,
        mem: &mut dyn Memory,
        x: u32,
        y: u32,
        z: f32,
        back_facing: bool,
    ) -> Result<bool, MessageError> {
        self.pixel_ref(mem, (x, y), z, back_facing, None)
    }

    /// [`Self::pixel`] with `reference` as the stencil test's reference value (a
    /// pixel shader that computes its stencil reference).
    pub fn pixel_with_reference(
        &self,
        mem: &mut dyn Memory,
        (x, y): (u32, u32),
        z: f32,
        back_facing: bool,
        reference: u8,
    ) -> Result<bool, MessageError> {
        self.pixel_ref(mem, (x, y), z, back_facing, Some(reference))
    }

    fn pixel_ref(
        &self,
        mem: &mut dyn Memory,
        (x, y): (u32, u32),
        z: f32,
        back_facing: bool,
        reference: Option<u8>,
    ) -> Result<bool, MessageError> {
        let fault = |fault| MessageError::Fault {
            what: "depth buffer".into(),
            fault,
        };
        let d = self.buffer;
        let bytes = d.desc.block_bytes as usize;
        let sa = self.stencil_addr(x, y)?;
        match d.op {
            DepthOp::Resolve => Ok(false),
            DepthOp::Clear => {
                if d.front.depth_write {
                    let da = self.depth_addr(x, y)?;
                    let v = d.clear_value.ok_or_else(unresolved_clear)?.to_le_bytes();
                    mem.write(da, &v[..bytes]).map_err(fault)?;
                }
                if let (Some(a), Some(s)) = (sa, d.stencil_clear) {
                    mem.write(a, &[s]).map_err(fault)?;
                }
                Ok(false)
            }
            DepthOp::Test => {
                // The depth buffer is accessed only by a depth test or write: a stencil-
                // only draw may bind a placeholder depth buffer (crocus binds one with
                // address and pitch 0), which the hardware never reads.
                let mut s = if back_facing { d.back } else { d.front };
                if let (Some(r), Some(st)) = (reference, s.stencil.as_mut()) {
                    st.reference = r;
                }
                let s = &s;
                let da = if s.depth_test.is_some() || s.depth_write {
                    Some(self.depth_addr(x, y)?)
                } else {
                    None
                };
                let mut stored = [0u8; 4];
                if let Some(da) = da {
                    mem.read(da, &mut stored[..bytes]).map_err(fault)?;
                }
                let mut stored = dword_le(&stored[..bytes]);
                if d.format == DepthFormat::D24Unorm {
                    stored &= 0x00ff_ffff;
                }
                let mut sten = [0u8; 1];
                if let Some(a) = sa {
                    mem.read(a, &mut sten).map_err(fault)?;
                }
                let r = depth_stencil(s, d.format, z, stored, sten[0]).map_err(|e| {
                    MessageError::State {
                        structure: "DEPTH_STENCIL_STATE",
                        why: e.to_string(),
                    }
                })?;
                if let (Some(da), Some(v)) = (da, r.depth) {
                    mem.write(da, &v.to_le_bytes()[..bytes]).map_err(fault)?;
                }
                if let (Some(a), Some(v)) = (sa, r.stencil) {
                    mem.write(a, &[v]).map_err(fault)?;
                }
                Ok(r.pass)
            }
        }
    }
}

/// A depth buffer address that the layout cannot give, as the depth operations report
/// it.
fn depth_layout_error(x: u32, y: u32, e: gtsim_mem::layout::LayoutError) -> MessageError {
    MessageError::State {
        structure: "3DSTATE_DEPTH_BUFFER",
        why: format!("pixel ({x}, {y}): {e}"),
    }
}
