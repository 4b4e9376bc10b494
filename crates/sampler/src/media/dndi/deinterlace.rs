//! The deinterlacer's first-frame output (seed 000 §2.8.4, §2.8.6): "Only the 1st field
//! of the current frame is deinterlaced", "The spatial deinterlacer is used to produce
//! the output", and the STMM is "written as the maximum 255".
//!
//! The spatial deinterlacer picks one of nine edge directions by a decision tree whose
//! figure the seed lost (§2.8.4.2, "Spatial Edge Angle Selection Output"); where the
//! tree's arcs are missing the seed says to "use the default edge of 90 degrees". The
//! model interpolates every missing pixel along that 90-degree default, "directly from
//! the pixels above and below" (§2.8.4.2), rounding half up. Chroma is made 4:2:2 from
//! the kept field's own 4:2:0 rows (interlaced 4:2:0 alternates chroma rows between the
//! fields), and its missing lines are averaged the same way; the seed's chroma siting
//! figure is lost too. Both are this model's reading, documented as such.

use super::denoise::Luma;

/// Which frame lines the first field holds: 0 for the top field (even lines), 1 for
/// the bottom (odd).
pub fn first_field_parity(top_first: bool) -> i64 {
    if top_first { 0 } else { 1 }
}

/// The nearest line of parity `parity` to `y` within `0..height`, from `y` towards
/// `toward` (−1 up, +1 down), staying in the frame.
fn field_line(y: i64, toward: i64, parity: i64, height: i64) -> i64 {
    let mut l = y + toward;
    if l < 0 || l >= height {
        l = y - toward;
    }
    if l.rem_euclid(2) != parity {
        // Only when height is 1 or the frame is one field line: stay put.
        l = y;
    }
    l
}

/// The deinterlaced luma of frame line `y` at `x`: the field's own lines copied, the
/// others the rounded mean of the field lines above and below (90 degrees).
pub fn luma(c: &dyn Luma, x: i64, y: i64, parity: i64, height: i64) -> u8 {
    if y.rem_euclid(2) == parity {
        return c.at(x, y);
    }
    let up = field_line(y, -1, parity, height);
    let down = field_line(y, 1, parity, height);
    ((u32::from(c.at(x, up)) + u32::from(c.at(x, down)) + 1) >> 1) as u8
}

/// The 4:2:0 chroma row of the field of `parity` that frame line `y` (a line of that
/// field) uses: the field's lines k = (y − parity) / 2 pair up on its chroma rows
/// k / 2, which interlaced 4:2:0 stores at frame chroma rows 2·(k / 2) + parity.
fn chroma_row(y: i64, parity: i64) -> i64 {
    let k = (y - parity).div_euclid(2);
    2 * k.div_euclid(2) + parity
}

/// The 4:2:0 chroma row frame line `y`'s own field stores (interlaced 4:2:0: the
/// field of `y`'s parity).
pub fn field_chroma_row(y: i64) -> i64 {
    chroma_row(y, y.rem_euclid(2))
}

/// One 4:2:2 chroma sample (of the chroma plane `c`, 4:2:0 rows) for frame line `y` and
/// chroma column `x`, of the field of `parity`; `height` is the frame's height in lines.
pub fn chroma(c: &dyn Luma, x: i64, y: i64, parity: i64, height: i64) -> u8 {
    if y.rem_euclid(2) == parity {
        return c.at(x, chroma_row(y, parity));
    }
    let up = field_line(y, -1, parity, height);
    let down = field_line(y, 1, parity, height);
    let a = u32::from(c.at(x, chroma_row(up, parity)));
    let b = u32::from(c.at(x, chroma_row(down, parity)));
    ((a + b + 1) >> 1) as u8
}

/// The field motion detector's one variance the first frame can compute (seed 000
/// §2.8.5): Diff_cTcB, the squared differences of each even line and the odd line below
/// it in the 16x4 block at (`x0`, `y0`), "divided by 16", saturated to 16 bits.
pub fn diff_ct_cb(c: &dyn Luma, (x0, y0): (i64, i64)) -> u16 {
    let mut sum = 0u32;
    for y in [y0, y0 + 2] {
        for x in x0..x0 + 16 {
            let d = i32::from(c.at(x, y)) - i32::from(c.at(x, y + 1));
            sum += (d * d) as u32;
        }
    }
    (sum / 16).min(0xffff) as u16
}

/// The motion-adaptive deinterlacer's state (seed 000 §2.8.4.1, §2.8.4.7;
/// DEINTERLACE_SAMPLER_STATE DW1, DW3, DW4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Motion {
    /// tdm_shift1: STMM Shift Down, 4 to 6 (7 for the reserved value 3, see
    /// [`crate::media::dndi`]).
    pub shift_down: u32,
    /// tdm_shift2: STMM Shift Up, 6 to 8.
    pub shift_up: u32,
    /// stmm_c2: STMM C2 + 1, 1 to 8.
    pub c2: u32,
    /// vecm_mul: Multiplier for VECM.
    pub vecm_mul: u32,
    /// stmm_trc1: Blending constant across time for large values of STMM.
    pub trc_large: u32,
    /// stmm_trc2: Blending constant across time for small values of STMM.
    pub trc_small: u32,
    /// stmm_md_th: the Minimum or Maximum STMM, as STMM Blending Constant Select says.
    pub md_th: u32,
    /// stmm_min: Minimum STMM.
    pub min: u32,
    /// stmm_max: Maximum STMM.
    pub max: u32,
    /// stmm_shift: STMM Output Shift.
    pub output_shift: u32,
}

/// The cross filter of the temporal difference measure (§2.8.4.1): "(2c(x,y) + c(x−1,y)
/// + c(x+1,y) + 2c(x,y−2) + 2c(x,y+2)) >> 3", over same-field neighbours.
fn cross(f: &dyn Luma, x: i64, y: i64) -> i32 {
    let p = |dx: i64, dy: i64| i32::from(f.at(x + dx, y + dy));
    (2 * p(0, 0) + p(-1, 0) + p(1, 0) + 2 * p(0, -2) + 2 * p(0, 2)) >> 3
}

impl Motion {
    /// The spatial-temporal motion measure of the pixel pair whose left pixel is
    /// (`x`, `y`) on a missing line of frame `c`, against the reference frame `r` (seed
    /// 000 §2.8.4.1): SVCM, SHCM and VECM from `c`'s 4x5 window, TDM of the
    /// cross-filtered frames (13 bits), SCM = max(0, SVCM + SHCM − VECM), and "STMM =
    /// ((TDM >> tdm_shift1) << tdm_shift2) / ((SCM >> 4) + stmm_c2)" at most 255. The
    /// seed's divide is "an 8-bit reciprocal table" it does not give: the model divides
    /// exactly.
    pub fn stmm(&self, c: &dyn Luma, r: &dyn Luma, x: i64, y: i64) -> u32 {
        let p = |f: &dyn Luma, dx: i64, dy: i64| i32::from(f.at(x + dx, y + dy));
        let mut svcm = 0u32;
        for dx in 0..=1 {
            for dy in 0..=2 {
                svcm += (p(c, dx, dy) - p(c, dx, dy - 2)).unsigned_abs();
            }
        }
        let mut shcm = 0u32;
        for dx in -1..=1 {
            for dy in -1..=1 {
                shcm += (p(c, dx, dy) - p(c, dx + 1, dy)).unsigned_abs();
            }
        }
        let edge: u32 = (-2..=2)
            .map(|dy| (p(c, 0, dy) - p(c, 1, dy)).unsigned_abs())
            .sum();
        let vecm = (edge * self.vecm_mul) >> 5;
        let mut tdm = 0u32;
        for dx in -1..=2 {
            for dy in -2..=2 {
                tdm += (cross(c, x + dx, y + dy) - cross(r, x + dx, y + dy)).unsigned_abs();
            }
        }
        // "TDM has 13 bits".
        let tdm = tdm.min(0x1fff);
        let scm = (svcm + shcm).saturating_sub(vecm);
        (((tdm >> self.shift_down) << self.shift_up) / ((scm >> 4) + self.c2)).min(255)
    }

    /// STMM2: the measure smoothed with the one stored for the previous field, `stored`
    /// (§2.8.4.1), "(stmm_trc * STMM_s + (256 − stmm_trc) * STMM) / 256".
    pub fn smooth(&self, stmm: u32, stored: u8) -> u8 {
        let trc = if stmm > self.md_th {
            self.trc_large
        } else {
            self.trc_small
        };
        ((trc * u32::from(stored) + (256 - trc.min(256)) * stmm) / 256).min(255) as u8
    }

    /// The final blend of the spatial and temporal interpolations by STMM3 (§2.8.4.7):
    /// below stmm_min the temporal, above stmm_max the spatial, between them
    /// "(sdi * (STMM3 − stmm_min) + tdi * (stmm_max − STMM3)) >> stmm_shift".
    pub fn blend(&self, stmm3: u32, sdi: u32, tdi: u32) -> u8 {
        if stmm3 < self.min {
            tdi as u8
        } else if stmm3 > self.max {
            sdi as u8
        } else {
            ((sdi * (stmm3 - self.min) + tdi * (self.max - stmm3)) >> self.output_shift).min(255)
                as u8
        }
    }
}

/// The temporal interpolation of a missing line (§2.8.4.7: "a simple average between
/// the previous and next field"): the line as the previous and the current frame hold
/// it, their rounded mean.
pub fn temporal(previous: u8, current: u8) -> u32 {
    (u32::from(previous) + u32::from(current) + 1) >> 1
}

/// The field motion detector's variances of the 16x4 block at (`x0`, `y0`) (seed 000
/// §2.8.5) between the current frame `c` and the previous `p`, over its two line pairs
/// (top T at even rows, bottom B below), "divided by 16", saturated to 16 bits:
/// Diff_cTpT, Diff_cBpB, Diff_cTcB, Diff_cTpB, Diff_cBpT.
pub fn field_variances(c: &dyn Luma, p: &dyn Luma, (x0, y0): (i64, i64)) -> [u16; 5] {
    let mut v = [0u32; 5];
    for y in [y0, y0 + 2] {
        for x in x0..x0 + 16 {
            let (ct, cb) = (i32::from(c.at(x, y)), i32::from(c.at(x, y + 1)));
            let (pt, pb) = (i32::from(p.at(x, y)), i32::from(p.at(x, y + 1)));
            for (i, d) in [ct - pt, cb - pb, ct - cb, ct - pb, cb - pt]
                .iter()
                .enumerate()
            {
                v[i] += (d * d) as u32;
            }
        }
    }
    v.map(|s| (s / 16).min(0xffff) as u16)
}
