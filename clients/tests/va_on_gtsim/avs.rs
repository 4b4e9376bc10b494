//! What the adaptive video scaler must return for the scalings the VA tests ask Intel's
//! i965 VA driver for, worked here from the seed's formula and the coefficients the
//! driver programs, independently of the model (`gtsim_sampler::media::avs`).
//!
//! The seed's part (seed 000 §2.9, §2.12.4, §2.13.2.5):
//! * a sample's footprint is the 8x8 texels from `floor(u) - 3`, `floor(v) - 3`, texels
//!   outside the plane clamped to its edge;
//! * the betas are the fractions of `u` and `v` truncated to 5 bits: 32 phases, of which
//!   SAMPLER_8x8_STATE holds 17 (0 to 16); phase `b` past 16 is phase `32 - b` mirrored;
//! * the sharp filter (§2.9.1.1) is the 8 rows filtered with the horizontal table and
//!   the 8 results with the vertical one, S1.6 coefficients on 8-bit texels;
//! * with adaptive filtering bypassed and Default Sharpness Level 255 the result is the
//!   sharp filter alone (§2.12.4 DW136-137);
//! * the result is 16-bit UNORM with an 8-bit range (FF00h is 1.0, §2.13.2.5).
//!
//! The driver's part (intel-vaapi-driver 2.4.1, the Debian package's version; facts, not
//! code):
//! * ffmpeg's `scale_vaapi` asks for VA_FILTER_SCALING_HQ, for which the driver fills
//!   the tables with Lanczos windows (`i965_vpp_avs.c`, `gen6_avs_config`: 16 phases
//!   plus one, steps of 1/64, 8 luma taps with a = 3 in tables 0X/0Y, 4 chroma taps with
//!   a = 2 in taps 2 to 5 of tables 1X/1Y, the window widened by the downscale factor,
//!   each phase normalized to 64/64). The tables below are the phases the two test
//!   scalings reach, as that generation gives them.
//! * Its Gen7 kernels (`gen7_pp_plx_avs_initialize`; `VP_Setup.g4a`) sample output
//!   pixel `x` at `u = x * W / dw` of the plane, with no half-pixel offset: the grid is
//!   aligned at the frame's corner. Chroma pixel (xc, yc) is the sample taken at luma
//!   pixel (2xc, 2yc), i.e. `u = xc * (W/2) / (dw/2)` of the chroma plane.
//! * `Save_AVS_NV12.g4a` adds 80h to the 16-bit result and keeps its high byte.
//!
//! How the sampler rounds the filter sum (in 1/4096 of a level) to its 16-bit result the
//! seed does not say, so the expectation is the range that any rounding within one
//! 16-bit step gives: usually one value, sometimes two.

/// A coefficient table: for each phase it holds, the eight taps in 1/64.
pub struct Table(pub &'static [(u32, [i32; 8])]);

impl Table {
    /// The taps of 5-bit phase `beta` (0 to 31), phases past 16 mirrored.
    fn taps(&self, beta: u32) -> [i32; 8] {
        let (phase, mirrored) = if beta <= 16 {
            (beta, false)
        } else {
            (32 - beta, true)
        };
        let Some((_, t)) = self.0.iter().find(|(p, _)| *p == phase) else {
            panic!("the test's table lacks phase {phase}: add it from the driver's generation");
        };
        let mut t = *t;
        if mirrored {
            t.reverse();
        }
        t
    }
}

/// i965's HQ luma taps for 2:1 down (window widened by 2).
pub const LUMA_DOWN_2: Table = Table(&[(0, [-4, 0, 20, 32, 20, 0, -4, 0])]);
/// i965's HQ chroma taps for 2:1 down.
pub const CHROMA_DOWN_2: Table = Table(&[(0, [0, 0, 17, 30, 17, 0, 0, 0])]);
/// i965's HQ luma taps for 2:3 up (phase 0 is the identity).
pub const LUMA_UP: Table = Table(&[
    (0, [0, 0, 0, 64, 0, 0, 0, 0]),
    (10, [0, 2, -9, 53, 23, -6, 1, 0]),
    (11, [0, 2, -9, 51, 25, -6, 1, 0]),
]);
/// i965's HQ chroma taps for 2:3 up.
pub const CHROMA_UP: Table = Table(&[
    (0, [0, 0, 0, 64, 0, 0, 0, 0]),
    (10, [0, 0, -5, 51, 20, -2, 0, 0]),
    (11, [0, 0, -5, 49, 22, -2, 0, 0]),
]);

/// A plane of 8-bit samples: `width` x `height`, sample (x, y) at
/// `data[offset + y * stride + x * step]`.
pub struct Plane<'a> {
    pub data: &'a [u8],
    pub width: u32,
    pub height: u32,
    pub offset: usize,
    pub stride: usize,
    pub step: usize,
}

impl Plane<'_> {
    fn at(&self, x: i64, y: i64) -> i64 {
        let x = x.clamp(0, i64::from(self.width) - 1) as usize;
        let y = y.clamp(0, i64::from(self.height) - 1) as usize;
        i64::from(self.data[self.offset + y * self.stride + x * self.step])
    }
}

/// The integer part and 5-bit beta of `i * from / to` (exact).
fn position(i: u32, from: u32, to: u32) -> (i64, u32) {
    let n = u64::from(i) * u64::from(from);
    let whole = (n / u64::from(to)) as i64;
    let beta = ((n % u64::from(to)) * 32 / u64::from(to)) as u32;
    (whole, beta)
}

/// The 8-bit values output pixel (`x`, `y`) of a `to` = (dw, dh) scaling of `plane` may
/// take: (lowest, highest).
pub fn expected(plane: &Plane, to: (u32, u32), table: &Table, x: u32, y: u32) -> (u8, u8) {
    let (fu, bu) = position(x, plane.width, to.0);
    let (fv, bv) = position(y, plane.height, to.1);
    let (kh, kv) = (table.taps(bu), table.taps(bv));
    // In 1/4096 of an 8-bit level.
    let f: i64 = (0..8)
        .map(|r| {
            let row: i64 = (0..8)
                .map(|c| i64::from(kh[c]) * plane.at(fu - 3 + c as i64, fv - 3 + r as i64))
                .sum();
            i64::from(kv[r as usize]) * row
        })
        .sum();
    let out8 = |v16: i64| ((v16.clamp(0, 0xff00) + 0x80) >> 8) as u8;
    (out8(f.div_euclid(16)), out8(-(-f).div_euclid(16)))
}

/// A sample outside its range: (x, y, got, lowest, highest).
pub type Miss = (u32, u32, u8, u8, u8);

/// Every sample of `got` (row `y` of the scaled plane at `got[offset + y * stride + x *
/// step]`) against [`expected`]: the samples outside their range, and how many samples
/// had a range of two values.
pub fn check(plane: &Plane, to: (u32, u32), table: &Table, got: &Plane) -> (Vec<Miss>, usize) {
    let mut wrong = vec![];
    let mut loose = 0;
    for y in 0..to.1 {
        for x in 0..to.0 {
            let (lo, hi) = expected(plane, to, table, x, y);
            loose += usize::from(lo != hi);
            let g = got.at(i64::from(x), i64::from(y)) as u8;
            if !(lo..=hi).contains(&g) {
                wrong.push((x, y, g, lo, hi));
            }
        }
    }
    (wrong, loose)
}

#[test]
fn the_expectation_is_the_formula_worked_by_hand() {
    // A 16x1 ramp 0, 16, 32, ... scaled 2:1: output pixel 4 samples texel 8 (phase 0),
    // footprint texels 5..12 = 80..192; the taps -4 0 20 32 20 0 -4 0 give
    // (-4*80 + 20*112 + 32*128 + 20*144 - 4*176) * 64 (the vertical phase 0 taps sum to
    // 64 over a constant column) = 8192 * 64 / 4096 = 128 levels.
    let ramp: Vec<u8> = (0..16).map(|i| (i * 16) as u8).collect();
    let plane = Plane {
        data: &ramp,
        width: 16,
        height: 1,
        offset: 0,
        stride: 16,
        step: 1,
    };
    assert_eq!(expected(&plane, (8, 1), &LUMA_DOWN_2, 4, 0), (128, 128));
    // Phase 21 of the upscale is phase 11 reversed.
    assert_eq!(LUMA_UP.taps(21), [0, 1, -6, 25, 51, -9, 2, 0]);
    assert_eq!(position(1, 64, 96), (0, 21));
}
