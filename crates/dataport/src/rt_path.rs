//! The render target write path of one pixel shader thread (seed 000 §3.9.11, seed 004
//! ch.12): which pixels a write covers, the alpha test, the depth and stencil test when
//! it comes after the shader, the PS_DEPTH_COUNT of visible pixels, fast clears and
//! resolves, and the store through the colour calculator.

use crate::depth_buffer::DepthAccess;
use crate::rt_message::{
    Headerless, PixelSink, RenderTarget, RtWrite, alpha_passes, decode_payload, decode_payload_with,
};
use crate::rt_samples::{SampleWrites, write_samples};
use gtsim_mem::Memory;
use gtsim_message::{MessageError, invalid};
use std::collections::{BTreeMap, BTreeSet};

/// A resolved render target's key: its binding table index (`None` for the Null Render
/// Target) and blend state index.
type TargetKey = (Option<u8>, u8);

/// The render targets a draw's writes resolved (by binding table index and blend state
/// index; `None` for a null surface), and those it fast-cleared.
///
/// Copies share the maps until one of them resolves or clears something new (a copy per
/// thread running in parallel costs a reference count, not a map).
#[derive(Debug, Default, Clone)]
pub struct RenderTargets {
    resolved: std::sync::Arc<BTreeMap<TargetKey, Option<RenderTarget>>>,
    cleared: std::sync::Arc<BTreeSet<(u8, u32)>>,
}

impl RenderTargets {
    /// Whether nothing was resolved or cleared yet.
    pub fn is_empty(&self) -> bool {
        self.resolved.is_empty() && self.cleared.is_empty()
    }

    /// The render targets written so far.
    pub fn written(&self) -> Vec<RenderTarget> {
        self.resolved
            .values()
            .flatten()
            .filter(|t| !t.is_null())
            .copied()
            .collect()
    }

    /// The render target at binding table index `key.0` (`None`: the Null Render Target)
    /// with blend state `key.1`, resolved once per draw.
    fn target(
        &mut self,
        mem: &dyn Memory,
        key: TargetKey,
        resolve: &ResolveTarget<'_>,
    ) -> Result<Option<RenderTarget>, MessageError> {
        if let Some(t) = self.resolved.get(&key) {
            return Ok(*t);
        }
        let t = resolve(mem, key.0, key.1)?;
        std::sync::Arc::make_mut(&mut self.resolved).insert(key, t);
        Ok(t)
    }

    /// Adds what `other` (a copy of these that a thread running in parallel used)
    /// resolved and cleared.
    pub fn absorb(&mut self, other: RenderTargets) {
        if !std::sync::Arc::ptr_eq(&self.resolved, &other.resolved) {
            let mine = std::sync::Arc::make_mut(&mut self.resolved);
            for (k, v) in other.resolved.iter() {
                mine.insert(*k, *v);
            }
        }
        if !std::sync::Arc::ptr_eq(&self.cleared, &other.cleared) {
            std::sync::Arc::make_mut(&mut self.cleared).extend(other.cleared.iter().copied());
        }
    }
}

/// What the draw's render target writes do (3DSTATE_PS Render Target Fast Clear Enable
/// and Render Target Resolve Enable, seed 004 §11.7-11.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtMode {
    /// Ordinary writes through the colour calculator.
    Write,
    /// Each render target takes its clear colour, whole.
    FastClear,
    /// A resolve: nothing left to do in this model (see [`fast_clear`]).
    Resolve,
}

/// The depth and stencil test done at the render target write, when the shader may kill
/// pixels or computes depth (seed 004 §11.5.2.1).
#[derive(Debug)]
pub struct LateDepth<'a> {
    /// The depth buffer.
    pub depth: DepthAccess<'a>,
    /// The windower's source depth per slot.
    pub z: [f32; 32],
    /// The object faces back.
    pub back_facing: bool,
    /// The shader computes depth: the message carries it (seed 000 §3.9.11.9, sZ).
    pub computed: bool,
    /// Slots tested so far, and those that passed.
    pub tested: u32,
    /// Slots that passed.
    pub passed: u32,
    /// For a thread dispatched per coarse pixel, the source depth of each slot's pixels
    /// (indexed like [`CoarseWrites::pixels`]' bits): the test stays per pixel.
    pub coarse_z: Option<Box<[[f32; 16]; 32]>>,
}

/// How the render target at a binding table index, blended by a blend state index, is
/// found (the generation's front reads the binding table and the blend state). No
/// binding table index: a write to the Null Render Target (seed 003 Extended Message
/// Descriptor Render Target), which reads no surface state, only the blend state.
pub type ResolveTarget<'a> =
    dyn Fn(&dyn Memory, Option<u8>, u8) -> Result<Option<RenderTarget>, MessageError> + 'a;

/// One pixel shader thread's render target writes.
#[derive(Debug)]
pub struct PixelWrites<'a> {
    /// The draw's render targets.
    pub targets: &'a mut RenderTargets,
    /// Pixel position of each slot.
    pub slots: [(u32, u32); 32],
    /// Slots lit by the object (the dispatch's pixel mask).
    pub lit: u32,
    /// Pixels the last render target write covered (PS_DEPTH_COUNT).
    pub visible: u32,
    /// The test after the shader, when it comes after.
    pub late: Option<LateDepth<'a>>,
    /// Write, fast clear or resolve.
    pub mode: RtMode,
    /// Without a header, whether source depth follows the colours (the dispatch's R0.0
    /// bit 13, "Source Depth to Render Target").
    pub computes_depth: bool,
    /// Without a header, the Render Target Array Index: the dispatch's R0.0 26:16 (a
    /// headerless message takes the header's fields from the thread's payload).
    pub rt_array_index: u32,
    /// Without a header, whether oMask precedes the colours (the dispatch's R0.0 bit 12,
    /// "oMask to Render Target").
    pub omask: bool,
    /// Without a header, whether the shader's stencil reference values follow the
    /// colours (3DSTATE_PS_EXTRA Pixel Shader Computes Stencil, the header's bit 14).
    pub computes_stencil: bool,
    /// On a multisampled render target, the samples each slot writes
    /// ([`crate::rt_samples`]); `None` with one sample per pixel.
    pub samples: Option<SampleWrites>,
    /// For an anti-aliased line, each slot's coverage ("Antialias Alpha"), which
    /// multiplies source 0 alpha before everything else at the write (seed 004 §12.1.1
    /// note, §10.3.12.5).
    pub aa_alpha: Option<[f32; 32]>,
    /// For a thread dispatched per coarse pixel, the pixels each slot's coarse pixel
    /// covers; `None` for a thread dispatched per pixel or per sample.
    pub coarse: Option<CoarseWrites>,
}

/// The coarse pixels of a thread dispatched per coarse pixel (seed 003 3DSTATE_CPS,
/// 3DSTATE_PS_EXTRA Pixel Shader Is Per Coarse Pixel): each slot stands for one coarse
/// pixel of `size` pixels whose upper-left pixel is the slot's position
/// ([`PixelWrites::slots`]). A coarse render target write stores the slot's colour into
/// each pixel of its coarse pixel that the object covers and that passed the depth and
/// stencil test before the shader: the colour is shaded once and broadcast to the
/// pixels it stands for, as Microsoft's Variable Rate Shading specification (the D3D12
/// contract Gen11's coarse pixel shading implements) describes: "the result is then
/// broadcast to all samples within the coarse pixel" that are covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoarseWrites {
    /// Coarse pixel width and height in pixels (1, 2 or 4 each).
    pub size: (u32, u32),
    /// Per slot, the pixels its writes reach: bit `dy * width + dx` for the pixel `dx`
    /// right of and `dy` below the slot's position.
    pub pixels: [u16; 32],
}

impl CoarseWrites {
    /// The pixels the `enabled` slots reach, each with its slot, in raster order (row,
    /// then column; the coarse pixels of one thread are distinct, so are their pixels).
    pub fn pixels_of(&self, slots: &[(u32, u32); 32], enabled: u32) -> Vec<(u32, u32, usize)> {
        let (w, _) = self.size;
        let mut out = Vec::with_capacity(enabled.count_ones() as usize * 4);
        for (s, &(x, y)) in slots.iter().enumerate() {
            if enabled & (1 << s) == 0 {
                continue;
            }
            let mut m = self.pixels[s];
            while m != 0 {
                let b = m.trailing_zeros();
                m &= m - 1;
                out.push((x + b % w, y + b / w, s));
            }
        }
        out.sort_unstable_by_key(|&(x, y, _)| (y, x));
        out
    }

    /// How many pixels the `enabled` slots reach (PS_DEPTH_COUNT counts pixels).
    pub fn count(&self, enabled: u32) -> u32 {
        (0..32)
            .filter(|s| enabled & (1 << s) != 0)
            .map(|s| self.pixels[s].count_ones())
            .sum()
    }
}

impl PixelWrites<'_> {
    /// A render target read (Gen9+ message type 0Dh): each enabled slot's pixel of the
    /// render target at the read's binding table index, at the slice its Render Target
    /// Array Index reaches, decoded in the target's format (floats as their bits,
    /// integers as they are) and returned a channel per register set: R for the
    /// message's slots, then G, B and A. What the thread's own writes stored before is
    /// read back (the coherent framebuffer fetch Mesa's Gen9+ compiler builds on it).
    /// A slot outside the render target (a helper pixel past its edge) reads zeros. On
    /// a multisampled render target each slot reads the sample its writes cover (a
    /// per-sample dispatch's own sample; Mesa dispatches per sample whenever it fetches
    /// from a multisampled framebuffer), its pixel expanded first when the MCS
    /// compresses it (`crate::mcs::expand`, which keeps every sample's colour).
    pub fn read(
        &self,
        mem: &mut dyn Memory,
        rd: &crate::rt_message::RtRead,
        channel_mask: u32,
        resolve: &ResolveTarget<'_>,
    ) -> Result<Vec<[u8; 32]>, MessageError> {
        if self.coarse.is_some() {
            return Err(gtsim_spec::Unsupported::new(
                "render target reads from a pixel shader dispatched per coarse pixel",
                "seed 003 3DSTATE_PS_EXTRA Pixel Shader Is Per Coarse Pixel",
            )
            .into());
        }
        let width = if rd.simd16 { 16 } else { 8 };
        let regs = width / 8;
        let mut out = vec![[0u8; 32]; 4 * regs];
        let Some(t) = resolve(&*mem, Some(rd.binding_table_index), 0)?.filter(|t| !t.is_null())
        else {
            // A null render target reads zeros.
            return Ok(out);
        };
        let multisampled = t.surface.desc.samples > 1;
        if multisampled && self.samples.is_none() {
            return Err(MessageError::State {
                structure: "RENDER_SURFACE_STATE",
                why:
                    "a render target read of a multisampled render target in a single-sampled draw"
                        .into(),
            });
        }
        let slice = crate::rt_message::target_slice(&t, rd.array_index);
        let first = if rd.slot_group_hi { 16 } else { 0 };
        let d = &t.surface.desc;
        let (w, h) = ((d.width >> t.lod).max(1), (d.height >> t.lod).max(1));
        for lane in 0..width {
            if (channel_mask >> lane) & 1 == 0 {
                continue;
            }
            let (x, y) = self.slots[first + lane];
            if x >= w || y >= h {
                continue;
            }
            let sample = match &self.samples {
                Some(s) if multisampled => {
                    crate::mcs::expand(mem, &t, slice, (x, y))?;
                    let m = s.masks[first + lane];
                    if m == 0 { 0 } else { m.trailing_zeros() }
                }
                _ => 0,
            };
            let at = gtsim_mem::surface::TexelCoord {
                x,
                y,
                slice,
                lod: t.lod,
                sample,
            };
            let texel = t
                .surface
                .read_texel(&*mem, at)
                .map_err(|e| MessageError::Texel {
                    what: format!("render target read of pixel ({x}, {y})"),
                    error: e,
                })?;
            let bits: [u32; 4] = match texel {
                gtsim_mem::format::texel::Texel::Float(c) => c.map(f32::to_bits),
                gtsim_mem::format::texel::Texel::Uint(c) => c,
                gtsim_mem::format::texel::Texel::Sint(c) => c.map(|v| v as u32),
            };
            for (c, v) in bits.iter().enumerate() {
                let reg = c * regs + lane / 8;
                let b = (lane % 8) * 4;
                out[reg][b..b + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        Ok(out)
    }

    /// Carries out render target write `rt` with its payload registers; `resolve` gives
    /// the render target at a binding table index with a blend state index.
    pub fn write(
        &mut self,
        mem: &mut dyn Memory,
        rt: &RtWrite,
        payload: &[[u8; 32]],
        resolve: &ResolveTarget<'_>,
    ) -> Result<(), MessageError> {
        let mut p = decode_payload_with(
            rt,
            payload,
            Headerless {
                source_depth: self.computes_depth,
                omask: self.omask,
                stencil: self.computes_stencil,
            },
        )?;
        if rt.header.is_none() {
            p.array_index = self.rt_array_index;
        }
        // The render target's surface comes from the binding table entry, its
        // BLEND_STATE entry from the header's Render Target Index (0 without a header;
        // seed 000 §3.9.11.3 M0.2).
        // Seed 003 Extended Message Descriptor Render Target, Null Render Target: "as if
        // it is directed to the NULL render target": no binding table entry is read.
        let key = (
            (!rt.extended.null_render_target).then_some(p.binding_table_index),
            p.render_target_index,
        );
        // A thread dispatched per coarse pixel sends coarse writes, any other thread
        // ordinary ones (Mesa sets the descriptor's Coarse Write exactly when the
        // kernel runs per coarse pixel, brw_fs.cpp lower_fb_write_logical_send).
        if rt.extended.coarse_write != self.coarse.is_some() {
            return Err(invalid(if rt.extended.coarse_write {
                "a coarse render target write (descriptor bit 18) from a thread not dispatched per coarse pixel"
            } else {
                "a render target write without Coarse Write (descriptor bit 18) from a thread dispatched per coarse pixel"
            }));
        }
        if self.coarse.is_some() && self.samples.is_some() {
            return Err(gtsim_spec::Unsupported::new(
                "coarse render target writes to multisampled targets",
                "seed 003 3DSTATE_CPS, 3DSTATE_PS_EXTRA Pixel Shader Is Per Coarse Pixel",
            )
            .into());
        }
        // A null render target (SURFTYPE_NULL, or a write to the Null Render Target,
        // which the front resolves with a null surface) still has its colour
        // calculator's tests (`RenderTarget::is_null`).
        let target = self.targets.target(&*mem, key, resolve)?;
        // Seed 004 §11.4.1: 3DSTATE_MULTISAMPLE's Number of Multisamples "must match the
        // corresponding field in SURFACE_STATE for each render target".
        let draw_samples = self.samples.as_ref().map_or(1, |m| m.count);
        if let Some(t) = &target
            && !t.is_null()
            && t.surface.desc.samples != draw_samples
        {
            return Err(MessageError::State {
                structure: "RENDER_SURFACE_STATE",
                why: format!(
                    "render target {} has {} samples per pixel, 3DSTATE_MULTISAMPLE {} (they must match, seed 004 §11.4.1)",
                    p.binding_table_index, t.surface.desc.samples, draw_samples
                ),
            });
        }
        match self.mode {
            RtMode::FastClear => {
                // Each slice the draw writes is cleared whole, once (a layered clear
                // reaches its slices through the Render Target Array Index).
                if let Some(t) = target.filter(|t| !t.is_null()) {
                    let slice = crate::rt_message::target_slice(&t, p.array_index);
                    // Not null: its binding table entry.
                    let k = (p.binding_table_index, slice);
                    if !self.targets.cleared.contains(&k)
                        && std::sync::Arc::make_mut(&mut self.targets.cleared).insert(k)
                    {
                        fast_clear_slice(mem, &t, slice)?;
                    }
                }
                return Ok(());
            }
            // The fast clear already stored the clear value (see fast_clear).
            RtMode::Resolve => return Ok(()),
            RtMode::Write => {}
        }
        // The alpha coverage functions act on float-valued colours (UNORM, SNORM, float
        // formats); integer render targets have none.
        let float_target = match &target {
            Some(t) => matches!(
                crate::rt_message::texel_of(&t.surface, [0; 4])?,
                gtsim_mem::format::texel::Texel::Float(_)
            ),
            None => false,
        };
        // Seed 004 §12.1.1: "Src0.alpha needs to be first multiplied with AA alpha".
        if let Some(aa) = self.aa_alpha.as_ref().filter(|_| float_target) {
            let scale = |v: &mut u32, k: f32| *v = (f32::from_bits(*v) * k).to_bits();
            for (s, &k) in aa.iter().enumerate() {
                scale(&mut p.colors[s][3], k);
                if let Some(a) = &mut p.source0_alpha {
                    scale(&mut a[s], k);
                }
            }
        }
        // Seed 000 §3.9.11 "Execution Mask": the message's execution mask is ignored;
        // the header's Pixel/Sample Enables, or without a header the dispatch's pixel
        // mask, say which pixels are written.
        let mut enabled = p.slots & self.lit & rt.extended.execution_mask.unwrap_or(u32::MAX);
        if let Some(h) = p.header_pixel_mask {
            enabled &= h;
        }
        // `gtsim inspect --pixel`: the slot of the watched pixel, when this write reaches
        // the watched image there; `dropped` says where the pixel left the write.
        let watched = crate::probe::watched().and_then(|w| {
            let t = target.as_ref().filter(|t| !t.is_null())?;
            let slice = crate::rt_message::target_slice(t, p.array_index);
            if (t.surface.base, t.lod, slice) != (w.base, w.lod, w.slice) {
                return None;
            }
            let s = (0..32).find(|&s| {
                ((p.slots & self.lit) >> s) & 1 != 0
                    && coarse_bit(&self.coarse, self.slots[s], s, (w.x, w.y)).is_some()
            })?;
            Some((w, s, *t))
        });
        // Of a coarse write: the watched pixel's bit in its slot's coarse pixel.
        let watched_coarse = watched
            .as_ref()
            .and_then(|(w, s, _)| coarse_bit(&self.coarse, self.slots[*s], *s, (w.x, w.y)))
            .filter(|_| self.coarse.is_some());
        let bit = watched.as_ref().map_or(0, |(_, s, _)| 1u32 << s);
        let mut dropped: Option<&'static str> = None;
        let mut drop_if = |enabled: u32, why: &'static str| {
            if bit != 0 && dropped.is_none() && enabled & bit == 0 {
                dropped = Some(why);
            }
        };
        drop_if(
            enabled,
            "the pixel mask (the shader discarded the pixel, or the message's pixel enables leave it out)",
        );
        // Seed 004 §12.1.3: the alpha test comes first; a pixel that fails it is
        // discarded before the depth and stencil tests and counts.
        // "If delivered in the incoming render target write message, source 0 alpha is
        // used to perform the alpha test."
        if let Some(t) = target.as_ref().filter(|t| t.alpha_test.is_some()) {
            for s in 0..32 {
                let mut c = p.colors[s];
                if let Some(a) = &p.source0_alpha {
                    c[3] = a[s];
                }
                if enabled & (1 << s) != 0 && !alpha_passes(t, c)? {
                    enabled &= !(1 << s);
                }
            }
        }
        drop_if(enabled, "the alpha test");
        // Sample k of the watched pixel.
        let sample_at = |w: &crate::probe::Watch, k: u32| gtsim_mem::surface::TexelCoord {
            x: w.x,
            y: w.y,
            slice: w.slice,
            lod: w.lod,
            sample: k,
        };
        // A multisampled target's watched pixel: every sample before the write.
        let samples_before = match (&self.samples, &watched) {
            (Some(ms), Some((w, _, t))) => Some(
                (0..ms.count)
                    .map(|k| t.surface.read_texel(&*mem, sample_at(w, k)).ok())
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        };
        if let Some(ms) = &mut self.samples {
            let covered = watched.as_ref().map_or(0, |(_, s, _)| ms.masks[*s]);
            let (lit, written) = write_samples(
                ms,
                self.late.as_mut(),
                &self.slots,
                mem,
                &p,
                target.as_ref().filter(|t| !t.is_null()),
                enabled,
                p.array_index,
            )?;
            if p.last {
                self.visible |= lit;
            }
            if let (Some((w, s, t)), Some(before)) = (&watched, samples_before) {
                let count = before.len() as u32;
                crate::probe::record(crate::probe::Event::RtWriteSamples {
                    binding_table_index: p.binding_table_index,
                    colour: p.colors[*s],
                    float: float_target,
                    covered,
                    written: written[*s],
                    before,
                    after: (0..count)
                        .map(|k| t.surface.read_texel(&*mem, sample_at(w, k)).ok())
                        .collect(),
                });
            }
            return Ok(());
        }
        // One sample per pixel: oMask bit 0 and a 1-bit alpha-to-coverage mask keep or
        // kill the pixel (seed 000 §3.9.11.5, seed 004 §12.1.1).
        if let Some(o) = &p.omask {
            enabled &= (0..32)
                .filter(|&s| o[s] & 1 != 0)
                .fold(0, |m, s| m | 1 << s);
        }
        if float_target
            && p.omask.is_none()
            && target
                .as_ref()
                .is_some_and(|t| t.alpha_coverage.to_coverage)
        {
            for s in 0..32 {
                let a = p.source0_alpha.map_or(p.colors[s][3], |a| a[s]);
                if crate::rt_samples::alpha_to_coverage(f32::from_bits(a), 1) == 0 {
                    enabled &= !(1 << s);
                }
            }
        }
        drop_if(enabled, "oMask or alpha to coverage");
        if float_target && target.as_ref().is_some_and(|t| t.alpha_coverage.to_one) {
            for c in &mut p.colors {
                c[3] = 1.0f32.to_bits();
            }
        }
        if let Some(late) = &mut self.late {
            // Each slot is tested once, at the first render target write that covers
            // it; later writes (other render targets) reuse the result.
            for s in 0..32 {
                if enabled & !late.tested & (1 << s) == 0 {
                    continue;
                }
                // A coarse pixel: each of its pixels is tested at its own source depth,
                // and the writes reach those that pass.
                if let (Some(c), Some(zs)) = (&mut self.coarse, &late.coarse_z) {
                    let (x, y) = self.slots[s];
                    let w = c.size.0;
                    let mut kept = 0u16;
                    let mut m = c.pixels[s];
                    while m != 0 {
                        let b = m.trailing_zeros();
                        m &= m - 1;
                        let at = (x + b % w, y + b / w);
                        if late
                            .depth
                            .pixel(mem, at.0, at.1, zs[s][b as usize], late.back_facing)?
                        {
                            kept |= 1 << b;
                        }
                    }
                    c.pixels[s] = kept;
                    late.tested |= 1 << s;
                    if kept != 0 {
                        late.passed |= 1 << s;
                    }
                    continue;
                }
                let (x, y) = self.slots[s];
                let z = match (late.computed, p.depth) {
                    (true, Some(d)) => f32::from_bits(d[s]),
                    (true, None) => {
                        return Err(invalid(
                            "the PS computes depth but its render target write carries none (seed 000 §3.9.11.9)",
                        ));
                    }
                    _ => late.z[s],
                };
                late.tested |= 1 << s;
                // A computed stencil value is the pixel's stencil reference (seed 003
                // 3DSTATE_PS_EXTRA Pixel Shader Computes Stencil: "the pixel shader
                // computes the stencil reference value").
                let passed = match &p.stencil {
                    Some(st) => {
                        late.depth
                            .pixel_with_reference(mem, (x, y), z, late.back_facing, st[s])?
                    }
                    None => late.depth.pixel(mem, x, y, z, late.back_facing)?,
                };
                if passed {
                    late.passed |= 1 << s;
                }
            }
            enabled &= late.passed;
        }
        let late_depth = match (&self.late, &watched) {
            (Some(late), Some((_, s, _))) if late.tested & bit != 0 => {
                // A coarse pixel's pixels are tested each at its own depth.
                match (watched_coarse, &late.coarse_z, &self.coarse) {
                    (Some(b), Some(zs), Some(c)) => {
                        Some((zs[*s][usize::from(b)], c.pixels[*s] & (1 << b) != 0))
                    }
                    _ => {
                        let z = match (late.computed, p.depth) {
                            (true, Some(d)) => f32::from_bits(d[*s]),
                            _ => late.z[*s],
                        };
                        Some((z, late.passed & bit != 0))
                    }
                }
            }
            _ => None,
        };
        drop_if(enabled, "the late depth/stencil test");
        if let (Some(b), Some(c), Some((_, s, _))) = (watched_coarse, &self.coarse, &watched)
            && c.pixels[*s] & (1 << b) == 0
        {
            drop_if(0, "the late depth/stencil test");
        }
        if p.last {
            self.visible |= enabled;
        }
        // The watched pixel before the write.
        let watch_before = watched
            .as_ref()
            .map(|(w, _, t)| t.surface.read_texel(&*mem, sample_at(w, 0)).ok());
        // A null render target is not written (seed 000 §2.12.2 SURFTYPE_NULL), but its
        // pixels went through the tests and counts above.
        let target = target.filter(|t| !t.is_null());
        if let (Some(t), Some(c)) = (&target, &self.coarse) {
            // Each enabled slot's colour to every pixel of its coarse pixel, in raster
            // order, neighbours along a row as one run.
            let sink = PixelSink::new(t, p.array_index);
            let pixels = c.pixels_of(&self.slots, enabled);
            if let Some(c1) = &p.colors1 {
                for &(x, y, s) in &pixels {
                    sink.write_dual(mem, (x, y, 0), p.colors[s], Some(c1[s]))?;
                }
            } else {
                let mut i = 0;
                while i < pixels.len() {
                    let (x0, y0, _) = pixels[i];
                    let mut run = vec![p.colors[pixels[i].2]];
                    while i + run.len() < pixels.len() {
                        let (x, y, s) = pixels[i + run.len()];
                        if y != y0 || x != x0 + run.len() as u32 {
                            break;
                        }
                        run.push(p.colors[s]);
                    }
                    sink.write_run(mem, x0, y0, &run)?;
                    i += run.len();
                }
            }
        } else if let (Some(t), Some(c1)) = (&target, &p.colors1) {
            // Dual source: pixel by pixel, each with its second colour.
            let sink = PixelSink::new(t, p.array_index);
            for s in raster_order(&self.slots).map(usize::from) {
                if enabled & (1 << s) != 0 {
                    let (x, y) = self.slots[s];
                    sink.write_dual(mem, (x, y, 0), p.colors[s], Some(c1[s]))?;
                }
            }
        } else if let Some(t) = &target {
            let sink = PixelSink::new(t, p.array_index);
            // In raster order (row, then column) rather than slot order (subspan by
            // subspan): the pixels are distinct, and only writes to one pixel are
            // ordered (seed 000 ch.1), so the order changes no byte, and
            // neighbours along a row go to the sink as one run
            // ([`PixelSink::write_run`]). The order is fixed by the slots alone, so
            // the same message always writes the same way (and stops at the same pixel
            // on a fault); slots not in raster order only make shorter runs.
            let mut colors = [[0u32; 4]; 32];
            let (mut x0, mut y0, mut len) = (0u32, 0u32, 0usize);
            for s in raster_order(&self.slots).map(usize::from) {
                if enabled & (1 << s) == 0 {
                    continue;
                }
                let (x, y) = self.slots[s];
                if len > 0 && y == y0 && x == x0.wrapping_add(len as u32) {
                    colors[len] = p.colors[s];
                    len += 1;
                    continue;
                }
                if len > 0 {
                    sink.write_run(mem, x0, y0, &colors[..len])?;
                }
                (x0, y0, len) = (x, y, 1);
                colors[0] = p.colors[s];
            }
            if len > 0 {
                sink.write_run(mem, x0, y0, &colors[..len])?;
            }
        }
        if let (Some((w, s, t)), Some(before)) = (watched, watch_before) {
            let after = dropped
                .is_none()
                .then(|| t.surface.read_texel(&*mem, sample_at(&w, 0)).ok())
                .flatten();
            crate::probe::record(crate::probe::Event::RtWrite(crate::probe::RtWrite {
                binding_table_index: p.binding_table_index,
                colour: p.colors[s],
                float: float_target,
                blends: t.cc.blend.is_some() || t.cc.logic_op.is_some(),
                dropped,
                late_depth,
                before,
                after,
            }));
        }
        Ok(())
    }
}

/// The bit of pixel `at` in the coarse pixel of slot `s` at `origin` (`coarse`: the
/// thread's coarse pixels; without them, bit 0 when `at` is the slot's own pixel), when
/// the slot's writes reach it (the object covers it): which slot of a thread stands for
/// a pixel (`gtsim inspect --pixel`).
pub fn coarse_bit(
    coarse: &Option<CoarseWrites>,
    origin: (u32, u32),
    s: usize,
    at: (u32, u32),
) -> Option<u16> {
    let Some(c) = coarse else {
        return (origin == at).then_some(0);
    };
    let (w, h) = c.size;
    let (dx, dy) = (at.0.checked_sub(origin.0)?, at.1.checked_sub(origin.1)?);
    if dx >= w || dy >= h {
        return None;
    }
    let b = (dy * w + dx) as u16;
    (c.pixels[s] & (1 << b) != 0).then_some(b)
}

/// Where one of several alike threads' render target writes land: its slots' pixel
/// positions and the pixels the object lights ([`PixelWrites::slots`] and `lit`).
#[derive(Debug, Clone, Copy)]
pub struct AlikeThread {
    /// Pixel position of each slot.
    pub slots: [(u32, u32); 32],
    /// Slots lit by the object.
    pub lit: u32,
}

/// One render target write `rt` with `payload` sent by each of `threads`, in order,
/// each as [`PixelWrites::write`] with no late depth test would carry it out for it,
/// done at once when that changes nothing: the threads light distinct pixels (the
/// threads of one primitive), the message writes one colour to every pixel it enables,
/// the colour calculator does not read the destination, and every byte the render
/// target's image may occupy is writable, so no pixel can fault and the order of the
/// writes, to distinct pixels, changes no byte (seed 000 ch.1 orders only writes to one
/// pixel). The pixels are then stored as runs of neighbouring bytes
/// ([`gtsim_mem::fill::Fill`]).
///
/// Returns the pixels each thread's write made visible ([`PixelWrites::visible`] after
/// it), or `None` when the write has to go thread by thread (anything above does not
/// hold, or something fails, whose error the thread that meets it reports); nothing was
/// written then. Only [`RtMode::Write`] goes at once.
pub fn write_alike(
    targets: &mut RenderTargets,
    (computes_depth, rt_array_index): (bool, u32),
    mem: &mut dyn Memory,
    rt: &RtWrite,
    payload: &[[u8; 32]],
    resolve: &ResolveTarget<'_>,
    threads: &[AlikeThread],
) -> Option<Vec<u32>> {
    // A write whose execution mask selects pixels, or that goes to the null render
    // target, goes thread by thread.
    if rt.extended.execution_mask.is_some()
        || rt.extended.null_render_target
        || rt.extended.coarse_write
    {
        return None;
    }
    let mut p = decode_payload(rt, payload, computes_depth).ok()?;
    if rt.header.is_none() {
        p.array_index = rt_array_index;
    }
    let key = (Some(p.binding_table_index), p.render_target_index);
    let target = targets.target(&*mem, key, resolve).ok()?;
    // oMask, source 0 alpha, alpha coverage and multisampled targets go thread by
    // thread.
    if p.omask.is_some()
        || p.source0_alpha.is_some()
        || p.colors1.is_some()
        || target
            .as_ref()
            .is_some_and(|t| t.alpha_coverage != Default::default() || t.surface.desc.samples > 1)
    {
        return None;
    }
    // As in `PixelWrites::write`: the header's pixel enables, then the alpha test.
    let lit = threads.iter().fold(0, |m, t| m | t.lit);
    let mut enabled = p.slots & lit;
    if let Some(h) = p.header_pixel_mask {
        enabled &= h;
    }
    let mut slots = (0..32).filter(|s| enabled & (1 << s) != 0);
    let color = match slots.next() {
        Some(first) => p.colors[first],
        None => [0; 4],
    };
    if slots.any(|s| p.colors[s] != color) {
        return None;
    }
    if let Some(t) = target.as_ref().filter(|t| t.alpha_test.is_some())
        && enabled != 0
        && !alpha_passes(t, color).ok()?
    {
        enabled = 0;
    }
    let visible = threads
        .iter()
        .map(|t| if p.last { enabled & t.lit } else { 0 })
        .collect();
    let Some(t) = target.as_ref().filter(|t| !t.is_null()) else {
        return Some(visible);
    };
    if enabled == 0 {
        return Some(visible);
    }
    // The pixels as runs along their rows, merged across threads: a run open per row
    // parity (a thread's subspans alternate between two rows), the others closed.
    let mut runs: Vec<(u32, u32, u32)> = Vec::with_capacity(threads.len() * 4);
    let mut open: [Option<(u32, u32, u32)>; 2] = [None, None];
    for th in threads {
        let mut on = enabled & th.lit;
        while on != 0 {
            let (x, y) = th.slots[on.trailing_zeros() as usize];
            on &= on - 1;
            let slot = &mut open[(y & 1) as usize];
            match slot {
                Some((ry, rx, n)) if *ry == y && rx.wrapping_add(*n) == x => *n += 1,
                _ => {
                    runs.extend(slot.replace((y, x, 1)));
                }
            }
        }
    }
    runs.extend(open.into_iter().flatten());
    runs.sort_unstable();
    runs.dedup_by(|next, run| {
        let joins = next.0 == run.0 && run.1.wrapping_add(run.2) == next.1;
        if joins {
            run.2 += next.2;
        }
        joins
    });
    let sink = PixelSink::new(t, p.array_index);
    sink.fill_runs(mem, color, &runs)?;
    Some(visible)
}

/// The slots of a dispatch in raster order when its subspans (slots 4i..4i+3, upper
/// left, upper right, lower left, lower right) come in raster order, as the windower
/// dispatches them: per row of subspans, the upper pixels of each, then the lower ones.
/// Any other arrangement gives every slot once, in an order fixed by the slots.
fn raster_order(slots: &[(u32, u32); 32]) -> [u8; 32] {
    // Subspans are grouped by their row (y / 2); inside a group, by column.
    let row = |i: usize| slots[i * 4].1 / 2;
    let mut out = [0u8; 32];
    let mut n = 0;
    let mut i = 0;
    while i < 8 {
        let mut j = i + 1;
        while j < 8 && row(j) == row(i) {
            j += 1;
        }
        for r in 0..2 {
            for k in i..j {
                out[n] = (k * 4 + r * 2) as u8;
                out[n + 1] = (k * 4 + r * 2 + 1) as u8;
                n += 2;
            }
        }
        i = j;
    }
    out
}

/// [`fast_clear`] of a multisampled render target: every sample of every pixel takes
/// the clear colour, so that whatever its MCS says, each sample reads the clear colour
/// (seed 004 §11.7 "MSAA Compression": a clear must precede any rendering).
fn fast_clear_samples(
    mem: &mut dyn Memory,
    rt: &RenderTarget,
    slice: u32,
    bytes: &[u8],
) -> Result<(), MessageError> {
    let d = &rt.surface.desc;
    for sample in 0..d.samples {
        for y in 0..d.height {
            for x in 0..d.width {
                let off = d.texel_offset(x, y, slice, rt.lod, sample).map_err(|e| {
                    MessageError::Texel {
                        what: format!("fast clear of ({x}, {y}) sample {sample}"),
                        error: e.into(),
                    }
                })?;
                mem.write(rt.surface.base.wrapping_add(off), bytes)
                    .map_err(|fault| MessageError::Fault {
                        what: format!("fast clear of ({x}, {y}) sample {sample}"),
                        fault,
                    })?;
            }
        }
    }
    Ok(())
}

/// A render target fast clear (seed 004 §11.7-11.8): the whole render target takes the
/// clear colour of its SURFACE_STATE (clear is supported on the full, non-mipmapped,
/// non-array render target only, §11.7).
///
/// The MCS is a coarse cache of "cleared" flags whose encoding the seed does not give;
/// the model writes the clear value into the render target at once and leaves the MCS
/// alone, so the resolve pass (§11.9) has nothing left to do. Every access the seed
/// permits after a clear (rendering, which merges with cleared blocks, and texture, CPU
/// or display use after the required resolve) sees what the hardware gives.
pub fn fast_clear(mem: &mut dyn Memory, rt: &RenderTarget) -> Result<(), MessageError> {
    fast_clear_slice(mem, rt, rt.min_array_element)
}

/// [`fast_clear`] of slice `slice` of the render target (a layered clear's slices are
/// cleared one by one, as its writes reach them).
pub fn fast_clear_slice(
    mem: &mut dyn Memory,
    rt: &RenderTarget,
    slice: u32,
) -> Result<(), MessageError> {
    // The level cleared (Gen9+ fast-clears any level; Gen7 only level 0, §11.7).
    let d = &rt.surface.desc;
    let (w, h) = ((d.width >> rt.lod).max(1), (d.height >> rt.lod).max(1));
    let (bytes, n) = crate::mcs::clear_bytes(rt)?;
    if d.samples > 1 {
        return fast_clear_samples(mem, rt, slice, &bytes[..n]);
    }
    // Stored as runs of neighbouring bytes (`gtsim_mem::fill`), or one pixel after the
    // other when the elements are not at multiples of a power-of-two size.
    let image = d.image_offsets(slice, rt.lod);
    // The whole image as one rectangle, a column of pieces at a time, when every element
    // lies at a multiple of its size; otherwise pixel by pixel below.
    // (The loop below covers the surface's own width and height; an image of another
    // size, a LOD past 0, takes that loop and its error.)
    if let (Some(img), Some(mut fill)) = (&image, gtsim_mem::fill::Fill::new(n))
        && img.size() == (w, h)
    {
        let (w, h) = img.size();
        if fill.add_rect(rt.surface.base, img, 0..w, 0..h) == Ok(true) {
            return fill
                .write(mem, &bytes[..n])
                .map_err(|fault| MessageError::Fault {
                    what: "fast clear".into(),
                    fault,
                });
        }
    }
    let mut fill = gtsim_mem::fill::Fill::new(n);
    let mut error = None;
    'rows: for y in 0..h {
        for x in 0..w {
            let off = match &image {
                Some(img) => img.offset(x, y),
                None => d.texel_offset(x, y, slice, rt.lod, 0),
            };
            let off = match off {
                Ok(o) => o,
                Err(error_at) => {
                    error = Some(MessageError::Texel {
                        what: format!("fast clear of ({x}, {y})"),
                        error: error_at.into(),
                    });
                    break 'rows;
                }
            };
            let addr = rt.surface.base.wrapping_add(off);
            if !fill.as_mut().is_some_and(|f| f.add(addr)) {
                // Not fillable: every pixel written now, in order (the fill's pixels so
                // far too, which changes no byte).
                if let Some(f) = fill.take() {
                    f.write(mem, &bytes[..n])
                        .map_err(|fault| MessageError::Fault {
                            what: "fast clear".into(),
                            fault,
                        })?;
                }
                mem.write(addr, &bytes[..n])
                    .map_err(|fault| MessageError::Fault {
                        what: format!("fast clear of ({x}, {y})"),
                        fault,
                    })?;
            }
        }
    }
    if let Some(f) = fill {
        f.write(mem, &bytes[..n])
            .map_err(|fault| MessageError::Fault {
                what: "fast clear".into(),
                fault,
            })?;
    }
    match error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
