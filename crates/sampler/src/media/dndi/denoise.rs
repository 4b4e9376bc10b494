//! The denoise filter's parts the first frame uses (seed 000 §2.8.2-§2.8.3): the
//! context-adaptive spatial filter, the block noise estimate and the block complexity
//! sums. "For the first frame ... the blend ... forced to 100% spatial" and "The Denoise
//! Motion History output values are written to 0" (§2.8.6), so the temporal filter,
//! the motion history and the blend with the previous frame are not needed there.

/// A luma plane the filters read, clamped at its edges (the media sampler clamps,
/// §2.11: "Presently we support only Clamp mode").
pub trait Luma {
    /// The pixel at (`x`, `y`), the position clamped into the frame.
    fn at(&self, x: i64, y: i64) -> u8;
}

/// Seed 000 §2.8.2 "gn_q_table": 2048 / n for n good neighbours (1 to 9).
const GN_Q_TABLE: [u32; 9] = [2048, 1024, 682, 512, 409, 341, 292, 256, 227];

/// The context-adaptive spatial filter at (`x`, `y`) (seed 000 §2.8.2): the mean of the
/// 3x3 neighbours (the pixel included) within `good_neighbor_th` of the pixel, as the
/// seed computes it, `((sum + (num >> 1)) * gn_q_table[num - 1]) >> 11`. `step` is the
/// distance to the lines above and below: 1 when Progressive DN "filters neighboring
/// lines together", 2 when it "filters alternate lines" (one field).
pub fn spatial(c: &dyn Luma, x: i64, y: i64, step: i64, good_neighbor_th: u8) -> u8 {
    let centre = i32::from(c.at(x, y));
    let (mut sum, mut num) = (0u32, 0u32);
    for dy in [-step, 0, step] {
        for dx in -1..=1 {
            let n = c.at(x + dx, y + dy);
            if (i32::from(n) - centre).unsigned_abs() <= u32::from(good_neighbor_th) {
                sum += u32::from(n);
                num += 1;
            }
        }
    }
    // The centre is always good: 1 <= num <= 9.
    (((sum + (num >> 1)) * GN_Q_TABLE[num as usize - 1]) >> 11) as u8
}

/// The block noise estimate of the `w` x `h` block at (`x0`, `y0`) (seed 000 §2.8.3):
/// over the pixels that are neither on an edge (`ED < bne_edge_th`, ED the Sobel-like
/// sum of the horizontal and vertical differences >> 3) nor too uneven
/// (`noise_max − noise_min < bne_nn_th`), the least noise metric, the sum of the 3x3's
/// absolute differences from its median; 255 when no pixel qualifies, and at most 255.
pub fn block_noise_estimate(
    c: &dyn Luma,
    (x0, y0): (i64, i64),
    (w, h): (i64, i64),
    bne_edge_th: u8,
    bne_nn_th: u8,
) -> u8 {
    let mut best = 255u32;
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            let p = |dx: i64, dy: i64| i32::from(c.at(x + dx, y + dy));
            let hrz =
                (p(-1, -1) + 2 * p(0, -1) + p(1, -1) - p(-1, 1) - 2 * p(0, 1) - p(1, 1)).abs();
            let vrt =
                (p(-1, -1) + 2 * p(-1, 0) + p(-1, 1) - p(1, -1) - 2 * p(1, 0) - p(1, 1)).abs();
            let ed = (hrz + vrt) >> 3;
            if ed >= i32::from(bne_edge_th) {
                continue;
            }
            let mut n: Vec<i32> = (-1..=1)
                .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
                .map(|(dx, dy)| p(dx, dy))
                .collect();
            n.sort_unstable();
            let median = n[4];
            let d: Vec<u32> = n.iter().map(|v| (v - median).unsigned_abs()).collect();
            let (min, max) = (d.iter().min().copied(), d.iter().max().copied());
            let (Some(min), Some(max)) = (min, max) else {
                continue;
            };
            if max - min >= u32::from(bne_nn_th) {
                continue;
            }
            best = best.min(d.iter().sum());
        }
    }
    best.min(255) as u8
}

/// The spatial complexity sums of the 16-wide, 4-high block at (`x0`, `y0`) (seed 000
/// §2.8.2 BK_SHCM and BK_SVCM, each over the block's four 4x4s: 12 horizontal and 12
/// vertical neighbour pairs within each), saturated to 16 bits as the writeback holds
/// them.
pub fn complexity(c: &dyn Luma, (x0, y0): (i64, i64)) -> (u16, u16) {
    let (mut shcm, mut svcm) = (0u32, 0u32);
    for bx in 0..4 {
        for y in 0..4 {
            for x in 0..4 {
                let (px, py) = (x0 + 4 * bx + x, y0 + y);
                let v = i32::from(c.at(px, py));
                if x < 3 {
                    shcm += (v - i32::from(c.at(px + 1, py))).unsigned_abs();
                }
                if y < 3 {
                    svcm += (v - i32::from(c.at(px, py + 1))).unsigned_abs();
                }
            }
        }
    }
    (shcm.min(0xffff) as u16, svcm.min(0xffff) as u16)
}

/// The thresholds of the temporal denoise (seed 000 §2.8.2; DEINTERLACE_SAMPLER_STATE
/// DW0-DW1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Temporal {
    /// Denoise STAD Threshold (dnmh_stad_th).
    pub stad_th: u32,
    /// Denoise Moving Pixel Threshold (dnmh_mp_th).
    pub moving_pixel_th: u32,
    /// Denoise ASD Threshold (dnmh_tasd_th).
    pub tasd_th: u32,
    /// Denoise Threshold for Sum of Complexity Measure (dnmh_scm_th).
    pub scm_th: u32,
    /// Denoise Maximum History (dnmh_history_max).
    pub history_max: u32,
    /// Denoise History Delta (dnmh_delta).
    pub history_delta: u32,
    /// Temporal Difference Threshold (temporal_diff_th).
    pub diff_th: u32,
    /// Low Temporal Difference Threshold (temp_diff_low).
    pub diff_low: u32,
}

/// Seed 000 §2.8.2.4 "q_table": 1024 / n for n = temporal_diff_th − temp_diff_low (1 to
/// 16).
const Q_TABLE: [u32; 16] = [
    1024, 512, 341, 256, 205, 171, 146, 128, 114, 102, 93, 85, 79, 73, 68, 64,
];

/// One 4x4 block's motion and its new denoise history (seed 000 §2.8.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockHistory {
    /// BK_STAD.
    pub stad: u32,
    /// Whether the block is a motion block.
    pub motion: bool,
    /// new_denoise_history.
    pub history: u8,
}

impl Temporal {
    /// The seed's limits on the blend thresholds: "0 < temporal_diff_th − temp_diff_low
    /// <= 16, except when both thresholds are set to 0" (seed 000 §2.12.3.3).
    pub fn check(&self) -> Result<(), gtsim_message::StateRule> {
        let ok = (self.diff_th == 0 && self.diff_low == 0)
            || (self.diff_th > self.diff_low && self.diff_th - self.diff_low <= 16);
        if ok {
            Ok(())
        } else {
            Err(gtsim_message::StateRule {
                structure: "DEINTERLACE_SAMPLER_STATE",
                field: "Temporal Difference Threshold, Low Temporal Difference Threshold",
                value: format!("{}, {}", self.diff_th, self.diff_low),
                rule: "must differ by 1 to 16, or both be 0",
                seed: "seed 000 §2.12.3.3",
            })
        }
    }

    /// The 4x4 block at (`x0`, `y0`) of the current frame `c` against the previous
    /// frame `p`, with the block's stored `history` (seed 000 §2.8.2.1, as the seed's
    /// pseudocode reads: the TASD/SCM reset applies to static blocks).
    pub fn block(
        &self,
        c: &dyn Luma,
        p: &dyn Luma,
        (x0, y0): (i64, i64),
        history: u8,
    ) -> BlockHistory {
        let (mut stad, mut moving, mut sum, mut shcm, mut svcm) = (0u32, 0u32, 0i32, 0u32, 0u32);
        for y in y0..y0 + 4 {
            for x in x0..x0 + 4 {
                let d = i32::from(c.at(x, y)) - i32::from(p.at(x, y));
                stad += d.unsigned_abs();
                moving += u32::from(d.unsigned_abs() >= self.diff_th);
                sum += d;
                if x < x0 + 3 {
                    shcm += (i32::from(c.at(x, y)) - i32::from(c.at(x + 1, y))).unsigned_abs();
                }
                if y < y0 + 3 {
                    svcm += (i32::from(c.at(x, y)) - i32::from(c.at(x, y + 1))).unsigned_abs();
                }
            }
        }
        let tasd = sum.unsigned_abs();
        let h = u32::from(history);
        let (motion, new) = if stad > self.stad_th || moving > self.moving_pixel_th {
            (true, if h >= 128 { h / 2 } else { 0 })
        } else {
            let mut new = if h < 128 {
                128
            } else if h < self.history_max {
                h + self.history_delta
            } else {
                h
            };
            if tasd > self.tasd_th && shcm + svcm < self.scm_th {
                new = 128;
            }
            (false, new)
        };
        BlockHistory {
            stad,
            motion,
            history: new.min(255) as u8,
        }
    }

    /// The denoised pixel at (`x`, `y`) (seed 000 §2.8.2.2-§2.8.2.4): the temporal filter
    /// with the block's new history, pulled half way back into the local 3x3's range,
    /// blended with the spatial filter by the temporal difference.
    #[allow(
        clippy::too_many_arguments,
        reason = "the seed's blend takes this many inputs"
    )]
    pub fn pixel(
        &self,
        c: &dyn Luma,
        p: &dyn Luma,
        x: i64,
        y: i64,
        step: i64,
        good_neighbor_th: u8,
        block: &BlockHistory,
    ) -> u8 {
        let (curr, prev) = (u32::from(c.at(x, y)), u32::from(p.at(x, y)));
        let h = u32::from(block.history);
        let mut temporal = (h * prev + (256 - h) * curr + 128) >> 8;
        let (mut max, mut min) = (0u32, 255u32);
        for dy in [-step, 0, step] {
            for dx in -1..=1 {
                let v = u32::from(c.at(x + dx, y + dy));
                max = max.max(v);
                min = min.min(v);
            }
        }
        if temporal >= max {
            temporal = (temporal + max) >> 1;
        }
        if temporal < min {
            temporal = (temporal + min) >> 1;
        }
        let spatial = u32::from(spatial(c, x, y, step, good_neighbor_th));
        let t_diff = curr.abs_diff(prev);
        let out = if t_diff < self.diff_th && !block.motion {
            if t_diff < self.diff_low {
                temporal
            } else {
                let range = self.diff_th - self.diff_low;
                ((spatial * (t_diff - self.diff_low)
                    + temporal * (self.diff_th - t_diff)
                    + range / 2)
                    * Q_TABLE[range as usize - 1])
                    >> 10
            }
        } else {
            spatial
        };
        out.min(255) as u8
    }
}
