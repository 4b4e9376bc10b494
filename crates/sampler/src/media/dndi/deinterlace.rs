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
