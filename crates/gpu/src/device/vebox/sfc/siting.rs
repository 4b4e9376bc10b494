//! The SFC's chroma resampling between the pipe's subsampled chroma and 4:4:4, placed by
//! co-siting positions in eighths of a pixel.
//!
//! Seed 003 SFC_STATE_BODY DW2 15:12 and 11:8 ("Output Chroma Downsampling co-siting
//! position", L19750-19782): "the fractional position of the bilinear filter for chroma
//! downsampling", 0/8 ("Left full pixel") to 8/8. SFC_AVS_STATE_BODY DW2 11:8 and 3:0
//! (L19220-19250): the input's horizontal and vertical siting, in the same eighths. This
//! model reads both the same way: chroma sample `k` sits at luma position `2k + s/8`
//! (between luma pixels `2k` and `2k + 1`), and the filter is bilinear between the two
//! nearest samples, rounding once to nearest with ties up. Where the siting is 0 and the
//! chroma goes up and back down, the round trip is exact.

/// A plane of chroma pairs, row by row.
pub type Plane = Vec<[i32; 2]>;

/// `a` and `b` blended at `f` sixteenths of the way to `b`, rounded.
fn lerp16(a: i32, b: i32, f: i64) -> i32 {
    ((i64::from(a) * (16 - f) + i64::from(b) * f + 8) >> 4) as i32
}

/// The chroma plane `uv` (`cw` x `ch`) brought to `w` x `h` (4:4:4): along each axis
/// where the plane is half the size, luma position `p` reads chroma coordinate
/// `(p − s/8) / 2`, bilinear between the samples either side (clamped to the plane).
pub fn upsample(
    uv: &[[i32; 2]],
    (cw, ch): (usize, usize),
    (w, h): (usize, usize),
    (sx, sy): (u32, u32),
) -> Plane {
    // In sixteenths of a chroma sample: luma p at (8p − s) / 16.
    let split = |p: usize, s: u32, n: usize, half: bool| -> (usize, usize, i64) {
        if !half {
            let k = p.min(n - 1);
            return (k, k, 0);
        }
        let q = 8 * p as i64 - i64::from(s);
        let k = q.div_euclid(16);
        let f = q.rem_euclid(16);
        let clamp = |k: i64| k.clamp(0, n as i64 - 1) as usize;
        (clamp(k), clamp(k + 1), f)
    };
    let (hx, hy) = (cw < w, ch < h);
    let mut out = vec![[0; 2]; w * h];
    for y in 0..h {
        let (y0, y1, fy) = split(y, sy, ch, hy);
        for x in 0..w {
            let (x0, x1, fx) = split(x, sx, cw, hx);
            let at = |x: usize, y: usize| uv[y * cw + x];
            out[y * w + x] = std::array::from_fn(|c| {
                let top = lerp16(at(x0, y0)[c], at(x1, y0)[c], fx);
                let bottom = lerp16(at(x0, y1)[c], at(x1, y1)[c], fx);
                lerp16(top, bottom, fy)
            });
        }
    }
    out
}

/// The 4:4:4 chroma `full` (`w` x `h`) brought down to `cw` x `ch`: along each halved
/// axis, chroma sample `k` is the bilinear value at `2k + s/8` (eighths between luma
/// pixels `2k` and `2k + 1`, the last clamped to the frame).
pub fn downsample(
    full: &[[i32; 2]],
    (w, h): (usize, usize),
    (cw, ch): (usize, usize),
    (sx, sy): (u32, u32),
) -> Plane {
    let pick = |k: usize, s: u32, n: usize, half: bool| -> (usize, usize, i64) {
        if !half {
            return (k.min(n - 1), k.min(n - 1), 0);
        }
        let a = (2 * k).min(n - 1);
        (a, (a + 1).min(n - 1), 2 * i64::from(s.min(8)))
    };
    let (hx, hy) = (cw < w, ch < h);
    let mut out = vec![[0; 2]; cw * ch];
    for k in 0..ch {
        let (y0, y1, fy) = pick(k, sy, h, hy);
        for j in 0..cw {
            let (x0, x1, fx) = pick(j, sx, w, hx);
            let at = |x: usize, y: usize| full[y * w + x];
            out[k * cw + j] = std::array::from_fn(|c| {
                let top = lerp16(at(x0, y0)[c], at(x1, y0)[c], fx);
                let bottom = lerp16(at(x0, y1)[c], at(x1, y1)[c], fx);
                lerp16(top, bottom, fy)
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand: a 4:2:2 row pair [100, 300] at siting 0 upsamples to 100, 200
    /// (half way), 300, 300 (clamped); down again at siting 0 it is [100, 300].
    #[test]
    fn co_sited_round_trip_is_exact() {
        let uv = vec![[100, 1000], [300, 3000]];
        let full = upsample(&uv, (2, 1), (4, 1), (0, 0));
        assert_eq!(
            full,
            vec![[100, 1000], [200, 2000], [300, 3000], [300, 3000]]
        );
        assert_eq!(downsample(&full, (4, 1), (2, 1), (0, 0)), uv);
    }

    /// Seed 003's 4/8 vertical position between rows 2k and 2k + 1: their mean, ties
    /// rounded up ((16·3 + 16·4 + 16) / 32 = 4, from 12-bit 3 and 4: 3.5 rounds to 4).
    #[test]
    fn centre_siting_averages_row_pairs() {
        let full = vec![[3, 0], [4, 8], [10, 0], [20, 0]];
        assert_eq!(
            downsample(&full, (1, 4), (1, 2), (0, 4)),
            vec![[4, 4], [15, 0]]
        );
        // 8/8 takes the odd row, 2/8 a quarter of the way: 10 + (20 − 10)/4 = 12.5 → 13.
        assert_eq!(downsample(&full, (1, 4), (1, 2), (0, 8))[1], [20, 0]);
        assert_eq!(downsample(&full, (1, 4), (1, 2), (0, 2))[1], [13, 0]);
    }

    /// Centre-sited 4:2:0 (4/8) upsampled: luma row 0 lies a quarter chroma sample
    /// before sample 0 (clamped: 100), row 1 a quarter after it: 100 + 100/4 = 125.
    #[test]
    fn centre_sited_upsampling_interpolates_quarters() {
        let uv = vec![[100, 0], [200, 0]];
        let full = upsample(&uv, (1, 2), (1, 4), (0, 4));
        let col: Vec<i32> = full.iter().map(|p| p[0]).collect();
        assert_eq!(col, vec![100, 125, 175, 200]);
    }
}
