//! The VEBOX's chroma upsampler (before the IECP pipe, which takes 4:4:4) and
//! downsampler (after it, back to the output's subsampling): VEBOX_STATE DW18.
//!
//! VEBOX_STATE is not in seed 003; DW18 is Intel media-driver's
//! (`mhw_vebox_hwcmd_g11_X.h` VEBOX_STATE_CMD DW18): Chroma Upsampling and Downsampling
//! Co-Sited Horizontal (2 bits) and Vertical (3 bits) Offsets, and the two Bypass bits.
//! What the fields mean, as this model reads them:
//! - **Bypass** upsampling "will replicate chroma samples at odd position and not use
//!   the co-sited offsets"; bypass downsampling "will drop chroma samples at odd
//!   position" (media-driver's field descriptions).
//! - **Offsets** place chroma sample `k` at luma position `2k + offset / 2`: the driver
//!   programs left or top siting as 0, centre as 1 and (vertically) bottom as 2 for a
//!   progressive 4:2:0 frame (`VPHAL_VEBOX_CHROMA_UPSAMPLING_420_WITHOUT_DI_TYPE0..5`,
//!   `..._DOWNSAMPLING_420_TYPE0..5`): half-pixel units.
//! - **The filters** are bilinear between the two nearest samples at those positions.
//!   Seed 003 names the SFC's downsampler a "bilinear filter" placed by its co-siting
//!   fields (SFC_STATE DW3, L19750-19782); it gives no taps for the VEBOX's, which this
//!   model takes to be the same kind. Each output rounds once, to nearest with ties up.
//!   Where the filter's shape does not matter (co-sited chroma, or a flat picture) the
//!   results are exact; elsewhere they are this reading's.

/// VEBOX_STATE DW18 as the model uses it: per direction, `None` when bypassed, else the
/// co-sited (horizontal, vertical) offsets in half luma pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChromaSampling {
    /// The upsampler's offsets, or `None` (bypassed: replicate).
    pub up: Option<(u32, u32)>,
    /// The downsampler's offsets, or `None` (bypassed: drop).
    pub down: Option<(u32, u32)>,
}

/// A plane of chroma pairs, row by row.
type Plane = Vec<[i32; 2]>;

/// Upsamples a `cw` x `ch` chroma plane to `w` x `h` (4:2:0 when `ch` < `h`, 4:2:2
/// when only `cw` < `w`).
pub fn upsample(
    uv: &[[i32; 2]],
    (cw, ch): (usize, usize),
    (w, h): (usize, usize),
    offsets: Option<(u32, u32)>,
) -> Plane {
    let vertical = ch < h;
    let mut out = vec![[0; 2]; w * h];
    let at = |x: usize, y: usize| uv[y.min(ch - 1) * cw + x.min(cw - 1)];
    for y in 0..h {
        for x in 0..w {
            out[y * w + x] = match offsets {
                None => at(x / 2, if vertical { y / 2 } else { y }),
                Some((ho, vo)) => {
                    // Luma x sits at chroma coordinate (x − ho/2)/2 = (2x − ho)/4: in
                    // quarters of a chroma sample, 2x − ho.
                    let split = |pos: usize, off: u32, n: usize| -> (usize, usize, i64) {
                        let q = 2 * pos as i64 - i64::from(off);
                        let k = q.div_euclid(4);
                        let f = q.rem_euclid(4);
                        let clamp = |k: i64| k.clamp(0, n as i64 - 1) as usize;
                        (clamp(k), clamp(k + 1), f)
                    };
                    let (x0, x1, fx) = split(x, ho, cw);
                    let (y0, y1, fy) = if vertical {
                        split(y, vo, ch)
                    } else {
                        (y, y, 0)
                    };
                    std::array::from_fn(|c| {
                        let v = |x: usize, y: usize| i64::from(uv[y * cw + x][c]);
                        // Two bilinear steps at twice the precision, one rounding.
                        let top = (v(x0, y0) * (4 - fx) + v(x1, y0) * fx) as i128;
                        let bottom = (v(x0, y1) * (4 - fx) + v(x1, y1) * fx) as i128;
                        let sum = top * i128::from(4 - fy) + bottom * i128::from(fy);
                        ((sum + 8) >> 4) as i32
                    })
                }
            };
        }
    }
    out
}

/// Downsamples a `w` x `h` plane of per-pixel chroma to `cw` x `ch`.
pub fn downsample(
    full: &[[i32; 2]],
    (w, h): (usize, usize),
    (cw, ch): (usize, usize),
    offsets: Option<(u32, u32)>,
) -> Plane {
    let vertical = ch < h;
    let mut out = vec![[0; 2]; cw * ch];
    for k in 0..ch {
        for j in 0..cw {
            out[k * cw + j] = match offsets {
                None => {
                    full[(if vertical { 2 * k } else { k }).min(h - 1) * w + (2 * j).min(w - 1)]
                }
                Some((ho, vo)) => {
                    // Chroma j sits at luma position 2j + ho/2: between luma samples
                    // (4j + ho) / 2 and the next, half way when ho is odd.
                    let split = |pos: usize, off: u32, n: usize| -> (usize, usize, i64) {
                        let p = 4 * pos as i64 + i64::from(off);
                        let clamp = |i: i64| i.clamp(0, n as i64 - 1) as usize;
                        (clamp(p / 2), clamp(p / 2 + 1), p % 2)
                    };
                    let (x0, x1, fx) = split(j, ho, w);
                    let (y0, y1, fy) = if vertical { split(k, vo, h) } else { (k, k, 0) };
                    std::array::from_fn(|c| {
                        let v = |x: usize, y: usize| i64::from(full[y * w + x][c]);
                        let top = v(x0, y0) * (2 - fx) + v(x1, y0) * fx;
                        let bottom = v(x0, y1) * (2 - fx) + v(x1, y1) * fx;
                        ((top * (2 - fy) + bottom * fy + 2) >> 2) as i32
                    })
                }
            };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bypassed: each chroma sample covers its 2x2 luma pixels, and the downsampler
    /// keeps the even ones, so the round trip is the identity.
    #[test]
    fn bypass_replicates_and_drops() {
        let uv = vec![[100, 200], [300, 400], [500, 600], [700, 800]];
        let full = upsample(&uv, (2, 2), (4, 4), None);
        assert_eq!(full[0], [100, 200]);
        assert_eq!(full[1], [100, 200]);
        assert_eq!(full[4 + 3], [300, 400]);
        assert_eq!(full[3 * 4 + 2], [700, 800]);
        assert_eq!(downsample(&full, (4, 4), (2, 2), None), uv);
    }

    /// Left and vertically centred siting (offsets 0, 1: the driver's default for NV12),
    /// worked by hand on one column of chroma 0, 800, 1600 (rows 0-2) over six luma rows:
    /// luma row y sits at chroma row (2y − 1)/4, so rows 0..5 read 0 (clamped), 200,
    /// 600, 1000, 1400, 1600 (clamped); the downsampler puts chroma k at luma row
    /// 2k + 1/2, the mean of rows 2k and 2k+1: 100, 800, 1500.
    #[test]
    fn centred_siting_is_bilinear_by_hand() {
        let uv: Vec<[i32; 2]> = [0, 800, 1600].iter().map(|&v| [v, 2048]).collect();
        let full = upsample(&uv, (1, 3), (2, 6), Some((0, 1)));
        let column: Vec<i32> = (0..6).map(|y| full[y * 2][0]).collect();
        assert_eq!(column, [0, 200, 600, 1000, 1400, 1600]);
        assert!(full.iter().all(|p| p[1] == 2048));
        let back = downsample(&full, (2, 6), (1, 3), Some((0, 1)));
        let column: Vec<i32> = back.iter().map(|p| p[0]).collect();
        assert_eq!(column, [100, 800, 1500]);
    }

    /// Co-sited chroma (offsets 0, 0) comes back unchanged from the round trip: the
    /// downsampler reads exactly the positions the upsampler copied.
    #[test]
    fn co_sited_round_trip_is_exact() {
        let uv: Vec<[i32; 2]> = (0..12).map(|i| [i * 301 % 4096, 4095 - i * 97]).collect();
        let full = upsample(&uv, (4, 3), (8, 6), Some((0, 0)));
        assert_eq!(downsample(&full, (8, 6), (4, 3), Some((0, 0))), uv);
    }

    /// Horizontally centred 4:2:2 (offset 1): luma x sits at chroma (2x − 1)/4; chroma
    /// 0 and 400 give pixels 0 (clamped), 100, 300, 400 (clamped).
    #[test]
    fn horizontal_centre_siting_by_hand() {
        let uv = vec![[0, 0], [400, 400]];
        let full = upsample(&uv, (2, 1), (4, 1), Some((1, 0)));
        assert_eq!(
            full.iter().map(|p| p[0]).collect::<Vec<_>>(),
            [0, 100, 300, 400]
        );
    }
}
