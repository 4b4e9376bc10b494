//! The SFC's adaptive video scaler (AVS) on a 4:4:4 frame at the pipe's 12 bits.
//!
//! Seed 003 SFC_STATE_BODY DW3 (L19800-19890): AVS Scaling Enable ("Disable: the scaling
//! factor is ignored and a scaling ratio of 1:1 is assumed"), AVS Filter Mode (0: the
//! 5x5 poly-phase filter and bilinear, 1: 8x8 poly-phase and bilinear, 2: "Bilinear
//! filter only"), Bypass X/Y Adaptive Filtering ("will use Default Sharpness Level to
//! blend between the smooth and sharp filters"); SFC_AVS_STATE_BODY DW0 Sharpness Level
//! (0 "contribute 1 from the smooth scalar", 255 "from the sharp scalar");
//! SFC_AVS_LUMA_COEFF_TABLE_BODY and SFC_AVS_CHROMA_COEFF_TABLE_BODY (L19060-19178): 32
//! phases of S1.6 coefficients, 8 taps per direction for luma, taps 2 to 5 for chroma.
//! The filters themselves are seed 000 §2.9.1's (the sample_8x8 AVS the Gen7 media
//! sampler runs, `gtsim_sampler::media::avs`): the sharp filter a separable 8x8 sum over
//! the footprint whose fourth texel is the one at `floor(x)`, the smooth one bilinear on
//! the four texels nearest, each with the 5-bit phase of the position's fraction.
//!
//! Where the seeds are silent, this model's readings:
//! * output pixel `i` of the scaled region samples the source at `offset + (i + 1/2)·f −
//!   1/2` (pixel centres aligned; `f` the U4.17 Scaling Factor of the ICL command iHD
//!   sends), so that at 1:1 every output pixel lands on a source pixel, phase 0;
//! * footprint pixels outside the input frame clamp to its edge;
//! * the sharp and smooth results round once each, and their blend once.
//!
//! The adaptive weight (Bypass X/Y Adaptive Filtering clear) is given in neither seed
//! (seed 000 §2.9.1.3 has only a missing figure) and is refused by the caller.

/// A 4:4:4 frame of three channels at 12 bits (Y, U, V).
pub struct Plane444<'a> {
    /// Width and height.
    pub size: (usize, usize),
    /// Each pixel's three channels, row by row.
    pub px: &'a [[i32; 3]],
}

/// One direction's coefficients: 32 phases of 8 taps (S1.6).
pub type Table = [[i8; 8]; 32];

/// The AVS as SFC_STATE, SFC_AVS_STATE and the coefficient tables set it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Avs {
    /// AVS Filter Mode 2: the bilinear filter alone.
    pub bilinear_only: bool,
    /// Sharpness Level (with adaptive filtering bypassed, the blend's weight).
    pub sharpness: u8,
    /// Luma tables (X, Y).
    pub luma: Box<(Table, Table)>,
    /// Chroma tables (X, Y), taps 2 to 5 (the others zero), or the luma tables when
    /// "Enable 8 tap for Chroma channels filtering" is set.
    pub chroma: Box<(Table, Table)>,
}

/// The coefficients of one direction from a coefficient table command's body: for each
/// phase `per_phase` dwords holding bytes X, Y alternately from tap `first` on.
pub fn tables(body: &[u32], per_phase: usize, first: usize) -> (Table, Table) {
    let mut x = [[0i8; 8]; 32];
    let mut y = [[0i8; 8]; 32];
    for phase in 0..32 {
        let bytes: Vec<u8> = body
            .iter()
            .skip(phase * per_phase)
            .take(per_phase)
            .flat_map(|d| d.to_le_bytes())
            .collect();
        for (i, pair) in bytes.chunks_exact(2).enumerate() {
            if first + i < 8 {
                x[phase][first + i] = pair[0] as i8;
                y[phase][first + i] = pair[1] as i8;
            }
        }
    }
    (x, y)
}

/// Where output pixel `i` samples the source along one axis: the source pixel at or
/// before it and the 5-bit phase, from the region's offset and the U4.17 factor.
pub fn position(i: usize, offset: usize, factor: u32) -> (i64, usize) {
    // In 1/2^17 pixels: offset + (2i + 1)·f/2 − 1/2.
    let p = ((offset as i64) << 17) + ((2 * i as i64 + 1) * i64::from(factor)) / 2 - (1 << 16);
    (p >> 17, ((p & 0x1ffff) >> 12) as usize)
}

impl Avs {
    /// Channel `c` of `src` filtered at the pixel `(x, y)` with phases `(bx, by)`.
    pub fn sample(
        &self,
        src: &Plane444,
        c: usize,
        (x, y): (i64, i64),
        (bx, by): (usize, usize),
    ) -> i32 {
        let (w, h) = src.size;
        let at = |x: i64, y: i64| {
            let x = x.clamp(0, w as i64 - 1) as usize;
            let y = y.clamp(0, h as i64 - 1) as usize;
            i64::from(src.px[y * w + x][c])
        };
        // Seed 000 §2.9.1.2: bilinear on T33, T34, T43, T44 with 5-bit betas (1/1024).
        let (fx, fy) = (bx as i64, by as i64);
        let lerp = |a: i64, b: i64| a * (32 - fx) + b * fx;
        let s =
            lerp(at(x, y), at(x + 1, y)) * (32 - fy) + lerp(at(x, y + 1), at(x + 1, y + 1)) * fy;
        let smooth = ((s + 512) >> 10).clamp(0, 4095);
        if self.bilinear_only {
            return smooth as i32;
        }
        let (tx, ty) = if c == 0 { &*self.luma } else { &*self.chroma };
        let (kh, kv) = (tx[bx], ty[by]);
        // Seed 000 §2.9.1.1: rows filtered by Kh, the row results by Kv; 1/4096 units.
        let mut f = 0i64;
        for (r, &kv) in kv.iter().enumerate() {
            if kv == 0 {
                continue;
            }
            let row: i64 = kh
                .iter()
                .enumerate()
                .map(|(k, &kh)| at(x - 3 + k as i64, y - 3 + r as i64) * i64::from(kh))
                .sum();
            f += row * i64::from(kv);
        }
        let sharp = ((f + 2048) >> 12).clamp(0, 4095);
        let w = i64::from(self.sharpness);
        ((smooth * (255 - w) + sharp * w + 127) / 255) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The identity phase 0 (tap 3 = 64, 1.0 in S1.6) returns the pixel; a 2:1 bilinear
    /// reduction of [0, 4000] at phase 16 (half) is their mean, 2000.
    #[test]
    fn identity_phase_and_bilinear_half() {
        let mut id = [[0i8; 8]; 32];
        for p in &mut id {
            p[3] = 64;
        }
        let px = vec![[0, 0, 0], [4000, 0, 0], [0, 0, 0], [4000, 0, 0]];
        let src = Plane444 {
            size: (4, 1),
            px: &px,
        };
        let mut avs = Avs {
            bilinear_only: false,
            sharpness: 255,
            luma: Box::new((id, id)),
            chroma: Box::new((id, id)),
        };
        assert_eq!(avs.sample(&src, 0, (1, 0), (0, 0)), 4000);
        avs.bilinear_only = true;
        assert_eq!(avs.sample(&src, 0, (0, 0), (16, 0)), 2000);
        // Sharpness 128 blends identity-sharp 0 (pixel 0 at phase 16 takes tap 3: pixel
        // 0) with smooth 2000: (2000·127 + 0·128 + 127) / 255 = 996.
        avs.bilinear_only = false;
        avs.sharpness = 128;
        assert_eq!(avs.sample(&src, 0, (0, 0), (16, 0)), 996);
    }

    /// Positions: at 1:1 (factor 2^17) pixel i samples pixel offset + i at phase 0; at
    /// 2:1 down (2^18) pixel 0 samples 0.5 (pixel 0, phase 16) and pixel 1 samples 2.5.
    #[test]
    fn positions_align_pixel_centres() {
        assert_eq!(position(5, 3, 1 << 17), (8, 0));
        assert_eq!(position(0, 0, 1 << 18), (0, 16));
        assert_eq!(position(1, 0, 1 << 18), (2, 16));
        // 1:2 up (2^16): pixel 0 samples −0.25 (pixel −1, phase 24), pixel 1 0.25.
        assert_eq!(position(0, 0, 1 << 16), (-1, 24));
        assert_eq!(position(1, 0, 1 << 16), (0, 8));
    }

    /// Table bytes alternate X and Y per tap, from the first tap given.
    #[test]
    fn tables_interleave_x_and_y() {
        let mut body = vec![0u32; 64];
        body[2] = u32::from_le_bytes([1, 2, 3, 4]); // phase 1, taps 2 and 3
        let (x, y) = tables(&body, 2, 2);
        assert_eq!((x[1][2], y[1][2], x[1][3], y[1][3]), (1, 2, 3, 4));
        assert_eq!(x[0], [0; 8]);
    }
}
