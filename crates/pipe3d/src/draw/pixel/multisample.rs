//! The WM and PS of a multisampled draw (seed 004 §11.4, §11.10.2): the early depth and
//! stencil test of each covered sample, and the pixel shader threads of per-pixel and
//! per-sample dispatch with the samples each slot stands for.
//!
//! * **Early tests**: each sample the object covers (its coverage ANDed with
//!   3DSTATE_SAMPLE_MASK, §11.2.5) is tested at its own source depth, interpolated at
//!   the sample's position, against its own element of the depth and stencil buffers
//!   (whose samples are interleaved in the plane, `DepthAccess::sample`). A pixel with
//!   no sample left is not shaded.
//! * **MSDISPMODE_PERPIXEL** (§11.10.2.1): the threads are those of a single-sampled draw;
//!   each slot's render target writes go to the samples of its pixel that are left
//!   ("each pixel's mask bit is replicated according to Number of Multisamples and
//!   combined with other masks", seed 000 §3.9.11.3 M1.7).
//! * **MSDISPMODE_PERSAMPLE** (§11.10.2.2): slot group g (four slots, one per pixel of
//!   the subspan) of a thread stands for sample `2 * SSPI + g` of one subspan when the
//!   thread has fewer slot groups than the pixel has samples (SIMD8 4x and 8x, SIMD16
//!   8x: several dispatches per subspan, Starting Sample Pair Index 0, 1, ... or 0, 2);
//!   otherwise a thread takes whole subspans, their samples 0 to n-1 in slot-group
//!   order (SIMD16 4x, SIMD32). The seed's table row for SIMD16 4X repeats the 2X row;
//!   the model follows the text above it ("a SIMD16 dispatch in PERSAMPLE/NUMSAMPLES_4
//!   mode would operate on a single subspan").
//! * **Locations** (§11.6, §11.10.3.1): the pixel location is the pixel's centre or
//!   corner (3DSTATE_MULTISAMPLE Pixel Location); a sample's location is its pattern
//!   offset when the object was rasterized per sample, the pixel location otherwise
//!   ("Setting ignored when not in MSRASTMODE_xxx_PATTERN mode"); the centroid is the
//!   pixel location when every sample is covered, otherwise the lowest-numbered covered
//!   sample, which the required ordering of the offsets ("monotonically increasing
//!   distance from the pixel center ... required to get the correct centroid
//!   computation") makes the covered sample nearest the centre.

use super::{
    DepthOp, DrawError, DrawState, Front, Memory, PixelStage, Primitive, Statistics, Subspan,
    ThreadContext, attribute_deltas, pixel_bias, ps_failed, rt_mode, source_depth_at, subspans,
};
use crate::coverage::{MAX_SAMPLES, SampleMask};
use crate::draw::replay::Replays;
use gtsim_dataport::rt_samples::SampleWrites;
use gtsim_eu::exec::DEFAULT_BUDGET;
use std::collections::HashMap;

/// Where a slot's values are evaluated (the order of the Barycentric Interpolation Mode
/// bits: pixel, centroid, sample).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Location {
    Pixel = 0,
    Centroid = 1,
    Sample = 2,
}

/// The samples one PS thread of a multisampled draw stands for.
#[derive(Debug, Clone)]
pub(super) struct MsThread {
    /// Starting Sample Pair Index (R0.0 7:6).
    pub starting_sample_pair: u32,
    /// Per slot, its sample (per-sample dispatch).
    pub sample: [u8; 32],
    /// Per slot, the samples the object covers at its pixel (the input coverage mask).
    pub coverage: [SampleMask; 32],
    /// Per slot, the samples its render target writes cover.
    pub masks: [SampleMask; 32],
}

/// Whether `prim` was rasterized at the pattern's samples (seed 004 §11.4.1).
fn per_sample_raster(st: &DrawState, prim: &Primitive) -> bool {
    let ms = &st.multisample;
    let line = prim.corners.len() == 2 && prim.point.is_none();
    if line {
        ms.pattern_lines
    } else {
        ms.pattern_polygons
    }
}

/// The position of sample `k` of pixel (x, y) (see the module docs).
pub(super) fn sample_position(
    st: &DrawState,
    prim: &Primitive,
    (x, y): (u32, u32),
    k: u32,
) -> [f32; 2] {
    if per_sample_raster(st, prim) {
        let o = st.multisample.pattern.offsets[k as usize % MAX_SAMPLES];
        [
            x as f32 + f32::from(o[0]) / 16.0,
            y as f32 + f32::from(o[1]) / 16.0,
        ]
    } else {
        let bias = pixel_bias(st);
        [x as f32 + bias, y as f32 + bias]
    }
}

impl MsThread {
    /// Slot `s` (at pixel `xy`) evaluated at `kind`.
    pub fn position(
        &self,
        st: &DrawState,
        prim: &Primitive,
        xy: (u32, u32),
        s: usize,
        kind: Location,
    ) -> [f32; 2] {
        let bias = pixel_bias(st);
        let pixel = [xy.0 as f32 + bias, xy.1 as f32 + bias];
        match kind {
            Location::Pixel => pixel,
            Location::Sample if st.multisample.per_sample => {
                sample_position(st, prim, xy, u32::from(self.sample[s]))
            }
            Location::Sample => pixel,
            Location::Centroid => {
                let c = self.coverage[s];
                if c == 0 || c == st.multisample.pattern.all() {
                    pixel
                } else {
                    sample_position(st, prim, xy, c.trailing_zeros())
                }
            }
        }
    }

    /// The render target writes' view of the thread's slots at `slots`.
    pub fn writes(
        &self,
        st: &DrawState,
        prim: &Primitive,
        slots: &[(u32, u32); 32],
    ) -> SampleWrites {
        let count = st.multisample.samples;
        let mut z = [[0f32; MAX_SAMPLES]; 32];
        for (s, zs) in z.iter_mut().enumerate() {
            for (k, v) in zs.iter_mut().enumerate().take(count as usize) {
                if self.masks[s] & (1 << k) != 0 {
                    *v = source_depth_at(prim, sample_position(st, prim, slots[s], k as u32));
                }
            }
        }
        SampleWrites::new(count, self.masks, z)
    }
}

/// Shades one primitive of a multisampled draw (see the module docs).
pub(super) fn shade(
    stage: &mut PixelStage,
    st: &DrawState,
    front: &dyn Front,
    mem: &mut dyn Memory,
    prim: &Primitive,
    stats: &mut Statistics,
    watchdog: &mut super::Watchdog,
) -> Result<(), DrawError> {
    let ms = &st.multisample;
    let n = prim.pixels.len();
    let coverage: Vec<SampleMask> = (0..n)
        .map(|i| prim.coverage.get(i).copied().unwrap_or(SampleMask::MAX) & ms.sample_mask)
        .collect();
    let mut passed = coverage.clone();
    if let Some(d) = stage.depth.as_ref().filter(|_| !stage.late) {
        let access = d.access_at(super::rt_array_index(st, prim));
        match d.op {
            DepthOp::Clear => {
                return access
                    .clear_samples(mem, &prim.pixels)
                    .map_err(DrawError::from_depth_buffer);
            }
            DepthOp::Resolve => return Ok(()),
            DepthOp::Test => {
                // `gtsim inspect --pixel`: each covered sample's test at the position.
                let watched = gtsim_dataport::probe::watched().map(|w| (w.x, w.y));
                for (i, &(x, y)) in prim.pixels.iter().enumerate() {
                    for k in 0..ms.samples {
                        if coverage[i] & (1 << k) == 0 {
                            continue;
                        }
                        let z = source_depth_at(prim, sample_position(st, prim, (x, y), k));
                        let stored = (watched == Some((x, y)))
                            .then(|| access.stored_sample(&*mem, (x, y, k)));
                        let pass = access
                            .sample(mem, (x, y, k), z, prim.back_facing)
                            .map_err(DrawError::from_depth_buffer)?;
                        if let Some((depth, stencil)) = stored {
                            gtsim_dataport::probe::record(
                                gtsim_dataport::probe::Event::EarlyDepthSample {
                                    sample: k,
                                    source: z,
                                    stored: depth,
                                    stencil,
                                    passed: pass,
                                },
                            );
                        }
                        if !pass {
                            passed[i] &= !(1 << k);
                        }
                    }
                }
            }
        }
    }
    let Some(k) = &stage.kernel else {
        stats.ps_depth_count += passed
            .iter()
            .map(|m| u64::from(m.count_ones()))
            .sum::<u64>();
        return Ok(());
    };
    let mut lit_pixels = Vec::with_capacity(n);
    let mut masks: HashMap<(u32, u32), (SampleMask, SampleMask)> = HashMap::with_capacity(n);
    for (i, &p) in prim.pixels.iter().enumerate() {
        if passed[i] != 0 {
            lit_pixels.push(p);
            masks.insert(p, (coverage[i], passed[i]));
        }
    }
    let spans = subspans(&lit_pixels);
    let groups_per_thread = k.simd / 4;
    let samples = ms.samples as usize;
    let threads = if ms.per_sample {
        per_sample_threads(&spans, &masks, groups_per_thread, samples)
    } else {
        spans
            .chunks(groups_per_thread)
            .map(|g| per_pixel_thread(g, &masks))
            .collect()
    };
    if st.ps.statistics {
        // §11.11.1: every pixel (or sample) of each 2x2 dispatched.
        let per = if ms.per_sample { 4 * samples } else { 4 };
        stats.ps_invocations += (per * spans.len()) as u64;
    }
    let setup = attribute_deltas(st, prim)?;
    let ctx = ThreadContext {
        st,
        front,
        prim,
        kernel: k,
        setup: &setup,
        late: stage.depth.as_ref().filter(|_| stage.late),
        mode: rt_mode(st),
        replays: Replays::new(&k.prog, k.grf_start),
        coarse: None,
    };
    // Per-pixel threads light distinct pixels, so their writes (MCS expansions and late
    // tests included) touch distinct bytes and they run in parallel batches like a
    // single-sampled primitive's (`run_batches`). Per-sample threads share pixels (each
    // writes some samples of the same pixels, and expanding a pixel touches all of its
    // slices), so they run one after the other, as do fast clears and resolves.
    if !ms.per_sample
        && ctx.mode == super::RtMode::Write
        && threads.len() >= super::parallel::MIN_BATCH
    {
        let jobs: Vec<super::Job> = threads
            .iter()
            .map(|(group, thread)| (&ctx, group.as_slice(), Some(thread)))
            .collect();
        return super::run_batches(&jobs, k, mem, &mut stage.targets, stats, watchdog);
    }
    for (group, thread) in &threads {
        let budget = watchdog.thread_budget(DEFAULT_BUDGET);
        let (result, visible) = ctx.run(mem, &mut stage.targets, group, budget, Some(thread))?;
        watchdog
            .thread_ran(result, budget, DEFAULT_BUDGET)?
            .map_err(ps_failed(k))?;
        stats.ps_depth_count += u64::from(visible);
    }
    Ok(())
}

/// The pixel's (coverage, passed) masks of each slot of `group`'s subspans.
fn slot_masks(
    key: (u32, u32),
    masks: &HashMap<(u32, u32), (SampleMask, SampleMask)>,
) -> [(SampleMask, SampleMask); 4] {
    let (sy, sx) = key;
    std::array::from_fn(|p| {
        let xy = (sx * 2 + (p as u32 & 1), sy * 2 + (p as u32 >> 1));
        masks.get(&xy).copied().unwrap_or((0, 0))
    })
}

/// A per-pixel thread for subspans `group` (§11.10.2.1).
fn per_pixel_thread(
    group: &[Subspan],
    masks: &HashMap<(u32, u32), (SampleMask, SampleMask)>,
) -> (Vec<Subspan>, MsThread) {
    let mut t = MsThread {
        starting_sample_pair: 0,
        sample: [0; 32],
        coverage: [0; 32],
        masks: [0; 32],
    };
    for (i, &(key, _)) in group.iter().enumerate() {
        for (p, (c, m)) in slot_masks(key, masks).into_iter().enumerate() {
            t.coverage[i * 4 + p] = c;
            t.masks[i * 4 + p] = m;
        }
    }
    (group.to_vec(), t)
}

/// The per-sample threads of subspans `spans` with `groups` slot groups per thread
/// (§11.10.2.2, see the module docs); threads with no lit slot are not dispatched.
fn per_sample_threads(
    spans: &[Subspan],
    masks: &HashMap<(u32, u32), (SampleMask, SampleMask)>,
    groups: usize,
    samples: usize,
) -> Vec<(Vec<Subspan>, MsThread)> {
    // (subspans per thread, dispatches per subspan)
    let (per_thread, dispatches) = if groups >= samples {
        (groups / samples, 1)
    } else {
        (1, samples / groups)
    };
    let mut out = vec![];
    for chunk in spans.chunks(per_thread) {
        for d in 0..dispatches {
            let sspi = (d * groups / 2) as u32;
            let mut t = MsThread {
                starting_sample_pair: sspi,
                sample: [0; 32],
                coverage: [0; 32],
                masks: [0; 32],
            };
            let mut group = Vec::with_capacity(groups);
            for g in 0..groups.min(chunk.len() * samples) {
                let (key, _) = chunk[g / samples.min(groups)];
                let k = if groups >= samples {
                    g % samples
                } else {
                    sspi as usize * 2 + g
                };
                let mut lit = 0u32;
                for (p, (c, m)) in slot_masks(key, masks).into_iter().enumerate() {
                    let slot = g * 4 + p;
                    t.sample[slot] = k as u8;
                    t.coverage[slot] = c;
                    if m & (1 << k) != 0 {
                        t.masks[slot] = 1 << k;
                        lit |= 1 << p;
                    }
                }
                group.push((key, lit));
            }
            if group.iter().any(|&(_, lit)| lit != 0) {
                out.push((group, t));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{HashMap, Subspan, per_sample_threads};

    /// Each pixel's (coverage, passed) masks.
    type Masks = HashMap<(u32, u32), (crate::coverage::SampleMask, crate::coverage::SampleMask)>;

    /// One subspan at (0, 0) whose four pixels are all lit with every sample but pixel
    /// 3, which has sample 1 only.
    fn one_subspan() -> (Vec<Subspan>, Masks) {
        let mut m = HashMap::new();
        for (x, y) in [(0, 0), (1, 0), (0, 1)] {
            m.insert((x, y), (0xff, 0xff));
        }
        m.insert((1, 1), (0b10, 0b10));
        (vec![((0, 0), 0xf)], m)
    }

    /// Seed 004 §11.10.2.2: SIMD8 4x takes two dispatches per subspan, SSPI 0 and 1,
    /// slot groups standing for samples 2·SSPI and 2·SSPI + 1; SIMD16 4x one dispatch
    /// of samples 0-3; SIMD16 8x two, SSPI 0 and 2 (samples 0-3 and 4-7). Pixel 3 lights
    /// only the slot group of its one sample.
    #[test]
    fn per_sample_dispatch_follows_the_slot_mapping() {
        let (spans, masks) = one_subspan();
        let simd8 = per_sample_threads(&spans, &masks, 2, 4);
        assert_eq!(simd8.len(), 2);
        let sspi: Vec<u32> = simd8.iter().map(|t| t.1.starting_sample_pair).collect();
        assert_eq!(sspi, [0, 1]);
        // Thread 0: groups for samples 0 and 1; pixel 3 lit in the sample-1 group only.
        assert_eq!(simd8[0].0, vec![((0, 0), 0b0111), ((0, 0), 0b1111)]);
        assert_eq!(&simd8[0].1.sample[..8], &[0, 0, 0, 0, 1, 1, 1, 1]);
        assert_eq!(simd8[0].1.masks[4..8], [0b10; 4]);
        assert_eq!(simd8[1].0, vec![((0, 0), 0b0111), ((0, 0), 0b0111)]);
        assert_eq!(&simd8[1].1.sample[..8], &[2, 2, 2, 2, 3, 3, 3, 3]);

        let simd16 = per_sample_threads(&spans, &masks, 4, 4);
        assert_eq!(simd16.len(), 1);
        let samples: Vec<u8> = (0..4).map(|g| simd16[0].1.sample[g * 4]).collect();
        assert_eq!(samples, [0, 1, 2, 3]);

        let eight = per_sample_threads(&spans, &masks, 4, 8);
        let sspi: Vec<u32> = eight.iter().map(|t| t.1.starting_sample_pair).collect();
        assert_eq!(sspi, [0, 2]);
        assert_eq!(eight[1].1.sample[0], 4);
        assert_eq!(eight[1].1.sample[12], 7);
    }
}
