//! The adaptive video scaler of the sample_8x8 message (seed 000 §2.9): an 8x8
//! polyphase "sharp" filter and a bilinear "smooth" filter, blended.
//!
//! The model, from §2.9 and §2.12.4:
//!
//! * A pixel's texel-space address is its normalized U, V times the channel plane's
//!   width and height ("red pixel: u=3.3, v=3.3 (betau=0.3, betav=0.3)"); the footprint's
//!   upper-left texel is `floor(u) - 3`, `floor(v) - 3` (§2.9), so texel 3 of the 8 is
//!   the one at `floor(u)`, and texels outside the plane clamp to its edge (§2.13.1.4:
//!   "The address control mode behaves as clamp mode").
//! * "The betas are first truncated to 5 bits": 32 phases, each with its own
//!   coefficients here. Gen7's SAMPLER_8x8_STATE holds "an array of 17 elements" per
//!   table (§2.12.4): phases 0 to 16, beta 0 to 1/2; its front gives a phase past 16
//!   the mirror of phase 32 − beta ([`AvsConfig::mirrored`]), its eight coefficients in
//!   reverse order on the same footprint (a filter for beta reversed is the filter for
//!   1 − beta about the footprint's centre, 3.5). Intel's VA driver fills the tables so:
//!   its phase 0 is symmetric about tap 3 and its phase 16 about tap 3.5, up to the 1/64
//!   units its normalization adds to the middle taps (i965_vpp_avs.c; 2:1 down gives
//!   phase 16 `-2 -4 9 30 28 9 -4 -2`). Gen11's SAMPLER_STATE_8x8_AVS stores all 32
//!   (seed 003: Filter Coefficient[0..16] and [17..31]).
//! * Sharp: the §2.9.1.1 formula, each of the 8 rows filtered with the horizontal
//!   table's coefficients (Kh) and the 8 results with the vertical table's (Kv), in
//!   exact integer arithmetic on 8-bit texels ("Only the 8 MSBs are used") and S1.6
//!   coefficients, "Clamp F' to [0.0, 1.0)".
//! * Smooth: the §2.9.1.2 bilinear formula on texels T33, T34, T43 and T44 with the
//!   5-bit betas.
//! * Blend (§2.12.4 DW136-137): with Bypass X and Y Adaptive Filtering set, "Default
//!   Sharpness Level" blends the two: 0 "contribute 1 from the smooth scalar", 255
//!   "contribute 1 from the sharp scalar", linearly between. The adaptive weight itself
//!   (§2.9.1.3) is given only as a figure the seed lacks: enabling it is refused as
//!   unsupported.
//! * Tables 0X/0Y filter the Y (green) and alpha channels, tables 1X/1Y (taps 2 to 5;
//!   the others are absent, §2.12.4) the chroma (red and blue) channels: "one table for
//!   the Y and the other table for the U/V" (§2.9).
//!
//! The result is "16-bit UNORM with an 8-bit range (the value FF00h maps to a real
//! value of 1.0)" (§2.13.2.5): the filter's value in 1/256 steps of an 8-bit level.

use super::surface::Channel;
use gtsim_mem::Memory;
use gtsim_message::MessageError;
use gtsim_spec::Unsupported;

/// Phases Gen7 stores per table (seed 000 §2.12.4: "an array of 17 elements").
pub const PHASES: usize = 17;

/// Phases of the 5-bit betas (seed 000 §2.9: "The betas are first truncated to 5 bits").
pub const ALL_PHASES: usize = 32;

/// The AVS state of a sample_8x8 message: SAMPLER_STATE for Sample_8x8 (seed 000
/// §2.12.3.2) and the SAMPLER_8x8_STATE it points to (§2.12.4), decoded by the front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AvsConfig {
    /// IEF Bypass.
    pub ief_bypass: bool,
    /// ChromaKey Enable.
    pub chroma_key: bool,
    /// Filter coefficients in 1/64 (S1.6) per table (0X, 0Y, 1X, 1Y), phase (the 5-bit
    /// beta) and tap; the 4-tap tables 1X and 1Y hold zeros in taps 0, 1, 6 and 7.
    pub coefficients: [[[i8; 8]; ALL_PHASES]; 4],
    /// Default Sharpness Level.
    pub default_sharpness: u8,
    /// Bypass X Adaptive Filtering.
    pub bypass_x_adaptive: bool,
    /// Bypass Y Adaptive Filtering.
    pub bypass_y_adaptive: bool,
    /// Gen11 SAMPLER_STATE_8x8_AVS DW4 11 Shuffle_OutputWriteback for sample_8x8: "Writeback
    /// of Sample_8x8 Is Modified to Suite Sample_Unorm" (seed 003 L18264): a 16x4 block
    /// comes back as two 8x4 halves ([`super::sample_8x8`]). Gen7 has no such field.
    pub shuffle: bool,
    /// Gen11 DW3 29:28 Enable 8-tap filter 00b, "4-tap filter is only done on all
    /// channels" (seed 003 L18229): which coefficients the G channel of an RGB surface
    /// then takes the seed does not say, so [`super::sample_8x8`] refuses it there (a YUV
    /// surface "will default to adaptive mode automatically", the 8-tap G channel).
    pub four_tap_all: bool,
    /// Where the message's M1 puts its fields.
    pub layout: PayloadLayout,
    /// The sample of an output pixel is taken at its footprint's centre: (U + Delta
    /// U / 2)·Width − 1/2 of the surface's (luma) pixels, V likewise, scaled to the
    /// channel's plane; rather than at U·Width. The seeds give only "u=3.3 ...
    /// betau=0.3" (seed 000 §2.9). Intel's drivers send the AVS the output grid's
    /// corner (media-driver's composite adds the half-pixel shift, VPHAL_HW_LINEAR_SHIFT,
    /// for its 3D sampler and not for the AVS), and with the centre the scaled frames
    /// match a software scaler's: `scale_vaapi` 320x240 to 160x120 through iHD on
    /// `--gen 11`, luma against ffmpeg's Lanczos, 45.8 dB centred against 33.2 dB at
    /// U·Width. Set by the Gen11 front. The Gen7 front keeps U·Width: through i965 the
    /// same luma comes to 52.9 dB centred against 33.9 dB, so the rule likely holds there
    /// too, but i965 samples its chroma plane as a surface of its own at two samples a
    /// texel, which the centre moves by a quarter texel, so that 1:1 would no longer
    /// return the chroma unchanged; how the chroma siting fields enter is not settled
    /// (docs/FEATURES.md).
    pub centred: bool,
}

/// The generation's sample_8x8 M1 layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadLayout {
    /// Seed 000 §2.13.1.10: M1.0 ignored (media layout), M1.7 the Group ID, the IEF Bypass
    /// in the sampler state.
    Gen7,
    /// Gen8+ (seed 003 has no payload table; Intel's vISA lowering, IGC
    /// `visa/VisaToG4/TranslateSendMedia.cpp`, builds it): M1.0 the V 2nd derivative,
    /// M1.7 22:0 Group ID, 26:25 block mode (0 16x4), 27 IEF Bypass, 31:28 function (0
    /// AVS scaling); the rest as Gen7's media layout.
    Gen9,
}

/// The table pair (X, Y) channel `c` uses (0 red, 1 green, 2 blue, 3 alpha).
fn tables(c: usize) -> (usize, usize) {
    match c {
        0 | 2 => (2, 3),
        _ => (0, 1),
    }
}

/// The 8 coefficients of `table` for 5-bit `beta` (0..=31).
fn taps(table: &[[i8; 8]; ALL_PHASES], beta: u32) -> [i32; 8] {
    table[(beta as usize).min(ALL_PHASES - 1)].map(i32::from)
}

/// Largest texel-space coordinate magnitude the filter takes; further out every tap
/// clamps to the same edge texel anyway.
const COORD_LIMIT: f64 = (1u64 << 24) as f64;

impl AvsConfig {
    /// The 32 phases of tables that store phases 0 to 16 (seed 000 §2.12.4): phase
    /// 32 − b for b past 16, its taps reversed (see the module docs).
    pub fn mirrored(stored: [[[i8; 8]; PHASES]; 4]) -> [[[i8; 8]; ALL_PHASES]; 4] {
        stored.map(|table| {
            std::array::from_fn(|b| {
                if b < PHASES {
                    table[b]
                } else {
                    let t = table[ALL_PHASES - b];
                    std::array::from_fn(|i| t[7 - i])
                }
            })
        })
    }

    /// Checks what the model does not cover (seed 000 §2.9.1.3, §2.10).
    pub fn check(&self) -> Result<(), MessageError> {
        if !self.ief_bypass {
            return Err(Unsupported::new(
                "the image enhancement filter of sample_8x8 (IEF Bypass clear)",
                "seed 000 §2.10",
            )
            .into());
        }
        if self.chroma_key {
            return Err(Unsupported::new(
                "chroma keying in sample_8x8 (KEYFILTER_REPLACE_BLACK)",
                "seed 000 §2.12.3.2",
            )
            .into());
        }
        if !(self.bypass_x_adaptive && self.bypass_y_adaptive) {
            return Err(Unsupported::new(
                "the adaptive blend of the AVS sharp and smooth filters (Bypass X/Y Adaptive \
                 Filtering clear; the seed gives its weight only as a missing figure)",
                "seed 000 §2.9.1.3, §2.12.4 DW137",
            )
            .into());
        }
        Ok(())
    }

    /// Channel `c` of `ch` filtered at texel-space (`u`, `v`): 16-bit, FF00h for 1.0.
    pub fn filter(
        &self,
        mem: &dyn Memory,
        ch: &Channel,
        c: usize,
        u: f64,
        v: f64,
    ) -> Result<u16, MessageError> {
        let u = u.clamp(-COORD_LIMIT, COORD_LIMIT);
        let v = v.clamp(-COORD_LIMIT, COORD_LIMIT);
        let (fu, fv) = (u.floor(), v.floor());
        // "The betas are first truncated to 5 bits".
        let bu = (((u - fu) * 32.0) as u32).min(31);
        let bv = (((v - fv) * 32.0) as u32).min(31);
        let (x0, y0) = (fu as i64 - 3, fv as i64 - 3);
        let mut t = [[0i32; 8]; 8];
        for (r, row) in t.iter_mut().enumerate() {
            for (k, texel) in row.iter_mut().enumerate() {
                *texel = i32::from(ch.texel(mem, x0 + k as i64, y0 + r as i64)?);
            }
        }
        let (tx, ty) = tables(c);
        let kh = taps(&self.coefficients[tx], bu);
        let kv = taps(&self.coefficients[ty], bv);
        // §2.9.1.1: R_r = sum T_rc Kh_c, F' = sum R_r Kv_r; units of 1/4096 of a level.
        let f: i64 = t
            .iter()
            .zip(kv)
            .map(|(row, kv)| {
                let r: i64 = row.iter().zip(kh).map(|(&t, k)| i64::from(t * k)).sum();
                r * i64::from(kv)
            })
            .sum();
        // To 1/256 of a level, rounded; "Clamp F' to [0.0, 1.0)".
        let sharp = ((f + 8) >> 4).clamp(0, 0xff00);
        // §2.9.1.2: bilinear on T33, T34, T43, T44; units of 1/1024 of a level.
        let (bu, bv) = (i64::from(bu), i64::from(bv));
        let lerp = |a: i32, b: i32| i64::from(a) * (32 - bu) + i64::from(b) * bu;
        let s = lerp(t[3][3], t[3][4]) * (32 - bv) + lerp(t[4][3], t[4][4]) * bv;
        let smooth = (s + 2) >> 2;
        // §2.12.4 DW136 Default Sharpness Level, with adaptive filtering bypassed.
        let w = i64::from(self.default_sharpness);
        Ok(((smooth * (255 - w) + sharp * w + 127) / 255) as u16)
    }
}
