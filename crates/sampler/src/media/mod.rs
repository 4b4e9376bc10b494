//! The media sampler's SIMD32/64 messages (seed 000 §2.13.1.10, §2.13.2.5): 64 pixels
//! in a 16-wide by 4-high block, addressed by the upper-left pixel's U and V and their
//! steps, returned as 16-bit values.
//!
//! ## Modelled
//!
//! * `sample_8x8` in both payload layouts (§2.13.1.10.1 pixel shader, §2.13.1.10.2
//!   media), through the adaptive video scaler ([`avs`]) with the image enhancement
//!   filter bypassed, on the media surfaces of [`surface`] (every format the seed allows
//!   sample_8x8 except those it reserves for deinterlace); the "16 bit Full" writeback
//!   with the header's write channel masks. The front's [`avs::AvsConfig`] says where
//!   the generation differs: Gen8+'s M1 (the V 2nd derivative, block mode, IEF Bypass
//!   and function of M1.7: [`avs::PayloadLayout::Gen9`]), Gen11's shuffled writeback
//!   (two 8x4 halves) and its footprint-centred sampling position.
//! * `deinterlace` ([`dndi`]): denoise alone, on the first frame and later ones;
//!   deinterlace alone, on the first frame and motion-adaptively on later ones.
//! * `sample_unorm` and `sample_unorm+killpix` in both payload layouts: an 8x4 block
//!   sampled with the 3D surface and sampler state at level 0, returned as 16-bit
//!   values, with the active pixel mask for killpix.
//! * `cache_flush`: the model keeps no sampler cache, so it only answers.
//!
//! ## Not modelled (each an `Err` naming the seed section)
//!
//! Motion-compensated deinterlacing and the other parts [`dndi`] lists; the IEF and the
//! VSA (§2.10); AVS adaptive blending (§2.9.1.3); chroma keying in sample_8x8; writing
//! the result to memory when the response length is 0 (§2.13.1.2).

pub mod avs;
pub mod dndi;
pub mod surface;

use crate::message::SamplerResources;
use crate::state::{SamplerMessage, SamplerOp};
use gtsim_message::{MessageError, Response, invalid};
use gtsim_spec::Unsupported;
use surface::MediaFormat;

/// Pixels per row and rows of a SIMD32/64 message's block (§2.13.1.4 sample_8x8: "64
/// contiguous pixels in an 16-wide by 4-high arrangement").
const BLOCK: (usize, usize) = (16, 4);

/// Executes a SIMD32/64 sampler message.
pub(crate) fn run(
    d: &SamplerMessage,
    payload: &[[u8; 32]],
    res: &dyn SamplerResources,
) -> Result<Response, MessageError> {
    match d.op {
        SamplerOp::CacheFlush => {
            // §2.13.1.3.1 SIMD32/SIMD64 table: "cache_flush, no payload, 1, 1".
            if d.response_length != 1 {
                return Err(invalid(format!(
                    "cache_flush with response length {}: it is 1 (seed 000 §2.13.1.3.1)",
                    d.response_length
                )));
            }
            Ok(Response::from(vec![[0u8; 32]]))
        }
        SamplerOp::Sample8x8 { media } => sample_8x8(d, media, payload, res),
        SamplerOp::SampleUnorm { media } => sample_unorm(d, media, false, payload, res),
        SamplerOp::SampleUnormKillpix { media } => sample_unorm(d, media, true, payload, res),
        SamplerOp::Deinterlace => dndi::run(d, payload, res),
        other => Err(invalid(format!(
            "message type {other:?} has no SIMD32/64 form (seed 000 §2.13.1.3.1)"
        ))),
    }
}

/// The header-present count of a SIMD32/64 message whose length is "H + 1" (seed 000
/// §2.13.1.3.1), checked against the payload sent.
pub(crate) fn header_and_one(
    d: &SamplerMessage,
    payload: &[[u8; 32]],
    what: &str,
) -> Result<usize, MessageError> {
    let h = usize::from(d.header.is_some());
    if d.message_length != h + 1 || payload.len() < d.message_length {
        return Err(invalid(format!(
            "{what} message length {} with {} payload registers: it is H + 1 = {} (seed 000 \
             §2.13.1.3.1)",
            d.message_length,
            payload.len(),
            h + 1
        )));
    }
    Ok(h)
}

/// The channels (0 red .. 3 alpha) the header's write channel masks leave enabled; "a
/// message with all four channels masked is not allowed" (seed 000 §2.13.1.2 M0.2).
fn enabled_channels(d: &SamplerMessage) -> Result<Vec<usize>, MessageError> {
    let header = d.header.unwrap_or_default();
    let enabled: Vec<usize> = (0..4).filter(|&c| !header.write_masks[c]).collect();
    if enabled.is_empty() {
        return Err(invalid(
            "the header masks all four write channels, which is not allowed (seed 000 \
             §2.13.1.2 M0.2 15:12)",
        ));
    }
    Ok(enabled)
}

fn dword(reg: &[u8; 32], i: usize) -> u32 {
    u32::from_le_bytes([reg[4 * i], reg[4 * i + 1], reg[4 * i + 2], reg[4 * i + 3]])
}

/// The addresses of a sample_8x8 message's block.
#[derive(Debug, Clone, Copy)]
struct Block {
    u0: f32,
    v0: f32,
    du: f32,
    dv: f32,
    ddu: f32,
    /// Rows above the block's first: 4 per Vertical Block Number.
    row0: u32,
}

impl Block {
    /// §2.13.1.10.1 (pixel shader) or §2.13.1.10.2 (media) M1.
    fn read(m1: &[u8; 32], media: bool, what: &str) -> Result<Block, MessageError> {
        let f = |i| f32::from_bits(dword(m1, i));
        let mut b = if media {
            // The seed says the Vertical Block Number is "the vertical pixel offset ...
            // divided by 8", but the block is 4 rows high and Intel's VA driver's
            // kernels number the 16x4 blocks of a 16x16 one 0, 1, 2, 3 from the same
            // V address: each number is 4 rows.
            Block {
                u0: f(2),
                v0: f(3),
                du: f(4),
                dv: f(5),
                ddu: f(6),
                row0: (dword(m1, 1) & 0x1ff) * BLOCK.1 as u32,
            }
        } else {
            Block {
                du: f(0),
                ddu: f(1),
                u0: f(2),
                dv: f(5),
                v0: f(6),
                row0: 0,
            }
        };
        for (name, x) in [
            ("U", b.u0),
            ("V", b.v0),
            ("Delta U", b.du),
            ("Delta V", b.dv),
        ] {
            if !x.is_finite() {
                return Err(invalid(format!(
                    "{what} {name} {x} is not a finite number (seed 000 §2.13.1.10: \
                     IEEE_Float in normalized space)"
                )));
            }
        }
        if !b.ddu.is_finite() {
            return Err(invalid(
                "sample_8x8 U 2nd Derivative is not a finite number",
            ));
        }
        // "Negative Delta U/V are not supported and should be clamped to 0."
        b.du = b.du.max(0.0);
        b.dv = b.dv.max(0.0);
        Ok(b)
    }
}

/// What a Gen8+ sample_8x8 M1 adds to the media layout ([`avs::PayloadLayout::Gen9`]):
/// the IEF Bypass of M1.7 27, after the fields the model does not cover are refused by
/// name (a V 2nd Derivative other than 0, block modes other than 16x4, functions other
/// than AVS scaling).
fn gen9_m1(m1: &[u8; 32]) -> Result<bool, MessageError> {
    let source = "Gen8+ sample_8x8 M1 (IGC visa/VisaToG4/TranslateSendMedia.cpp; not in seed 003)";
    let v2d = f32::from_bits(dword(m1, 0));
    if v2d != 0.0 {
        return Err(Unsupported::new(
            format!("sample_8x8 V 2nd Derivative {v2d} (M1.0): its formula is in no public source"),
            source,
        )
        .into());
    }
    let m7 = dword(m1, 7);
    let function = m7 >> 28;
    if function != 0 {
        return Err(Unsupported::new(
            format!("sample_8x8 function {function} (M1.7 31:28; 0, AVS scaling, is modelled)"),
            source,
        )
        .into());
    }
    let mode = (m7 >> 25) & 3;
    if mode != 0 {
        return Err(Unsupported::new(
            format!(
                "sample_8x8 block mode {} (M1.7 26:25; the 16x4 block, 0, is modelled)",
                ["16x4", "8x4", "16x8", "4x4"][mode as usize]
            ),
            source,
        )
        .into());
    }
    Ok((m7 >> 27) & 1 != 0)
}

/// sample_8x8 (seed 000 §2.13.1.4): each enabled channel of the 16x4 block through the
/// AVS, written back as §2.13.2.5 "16 bit Full": four registers per channel (one per
/// row, pixel 2n in the low word of dword n), masked channels dropped and the rest
/// moved down. Pixel (x, y) is at U(x) = U0 + Delta U·x + U 2nd Derivative·x(x−1)/2,
/// V(y) = V0 + Delta V·y.
fn sample_8x8(
    d: &SamplerMessage,
    media: bool,
    payload: &[[u8; 32]],
    res: &dyn SamplerResources,
) -> Result<Response, MessageError> {
    // §2.13.1.3.1: "sample_8x8 ... H + 1".
    let h = header_and_one(d, payload, "sample_8x8")?;
    let enabled = enabled_channels(d)?;
    if d.response_length == 0 {
        return Err(Unsupported::new(
            "sample_8x8 with response length 0 (the result written to memory by a media \
             write)",
            "seed 000 §2.13.1.2",
        )
        .into());
    }
    // "phases in the response length are reduced by 4 for each channel that is masked".
    if d.response_length != 4 * enabled.len() {
        return Err(invalid(format!(
            "sample_8x8 response length {} for {} enabled channels: it is 4 per channel \
             (seed 000 §2.13.1.3.1)",
            d.response_length,
            enabled.len()
        )));
    }
    // The front's state for the Sampler Index (its own rules for the index: Gen7's
    // "must be a multiple of 4", seed 000 §2.13.1.1; Gen11's 2048-byte steps, which
    // Intel's kernels take at indices 1 and 3).
    let mut avs = res.avs(d.sampler_index)?;
    if avs.layout == avs::PayloadLayout::Gen9 {
        if !media {
            return Err(Unsupported::new(
                "the pixel shader layout of a Gen8+ sample_8x8 message (no public source gives it)",
                "seed 003 Message Descriptor - Sampling Engine",
            )
            .into());
        }
        avs.ief_bypass = gen9_m1(&payload[h])?;
    }
    let block = Block::read(&payload[h], media, "sample_8x8")?;
    let surface = res.media_surface(d.binding_table_index)?;
    avs.check()?;
    if avs.four_tap_all
        && matches!(
            surface.format,
            MediaFormat::R10G10B10A2 | MediaFormat::R8G8B8A8
        )
    {
        return Err(Unsupported::new(
            "Enable 8-tap filter 00b (4-tap on all channels) on an RGB surface: the G \
             channel's 4-tap coefficients are not given",
            "seed 003 SAMPLER_STATE_8x8_AVS DW3 29:28",
        )
        .into());
    }
    let mem = res.memory();
    let mut out = vec![[0u8; 32]; d.response_length];
    for (i, &c) in enabled.iter().enumerate() {
        let ch = surface.channel(c)?;
        let (w, hgt) = (f64::from(ch.width), f64::from(ch.height));
        // "Delta U multiplied by Width ... must be less than 16 for the sample_8x8
        // message type" (and Delta V by Height).
        if f64::from(block.du) * w >= 16.0 || f64::from(block.dv) * hgt >= 16.0 {
            return Err(invalid(format!(
                "sample_8x8 Delta U {} x width {w} or Delta V {} x height {hgt} is not \
                 below 16 (seed 000 §2.13.1.10)",
                block.du, block.dv
            )));
        }
        // Where the pixel's value is taken, in texels from the plane's texel 0: its U
        // and V times the plane's size, or, for a centred state, the centre of the
        // output pixel's footprint in the surface's (luma) pixels, (U + Delta U / 2)·
        // Width − 1/2 (and V likewise), scaled to this channel's plane: a subsampled
        // chroma plane's texel k stands at luma pixel 2k, so 1:1 stays exact there too.
        let (cu, cv) = if avs.centred {
            let (sw, sh) = (f64::from(surface.width), f64::from(surface.height));
            (
                (f64::from(block.du) * sw - 1.0) / 2.0 * (w / sw),
                (f64::from(block.dv) * sh - 1.0) / 2.0 * (hgt / sh),
            )
        } else {
            (0.0, 0.0)
        };
        for y in 0..BLOCK.1 {
            let row = block.row0 as usize + y;
            let v = f64::from(block.v0) + f64::from(block.dv) * row as f64;
            for x in 0..BLOCK.0 {
                let xf = x as f64;
                let u = f64::from(block.u0)
                    + f64::from(block.du) * xf
                    + f64::from(block.ddu) * xf * (xf - 1.0) / 2.0;
                let value = avs
                    .filter(mem, &ch, c, u * w + cu, v * hgt - ch.v_shift + cv)
                    .map_err(|e| e.context(format!("channel {c}, pixel ({x}, {y})")))?;
                // Shuffled: the left 8x4 half of every enabled channel, two registers
                // each as sample_unorm returns them (pixel 8y + x, 16 to a register),
                // then the right half likewise (Intel's Gen12 VP kernels' layout
                // diagram, media-driver `PL2_AVS_Buf.h`); else a row per register.
                let (r, at) = if avs.shuffle {
                    let half = x / 8;
                    let p = 8 * y + x % 8;
                    (half * 2 * enabled.len() + 2 * i + p / 16, p % 16)
                } else {
                    (4 * i + y, x)
                };
                let reg = &mut out[r];
                reg[2 * at..2 * at + 2].copy_from_slice(&value.to_le_bytes());
            }
        }
    }
    Ok(Response::from(out))
}

/// "16-bit UNORM with an 8-bit range (the value FF00h maps to a real value of 1.0)"
/// (seed 000 §2.13.2.4, §2.13.2.5): a filtered value in [0, 1] rounded to 1/256 of an
/// 8-bit level.
fn unorm16(f: f32) -> u16 {
    (f64::from(f.clamp(0.0, 1.0)) * 65280.0).round() as u16
}

/// sample_unorm and sample_unorm+killpix (seed 000 §2.13.1.4): "32 contiguous pixels in
/// a 8-wide by 4-high arrangement", pixel (x, y) at U(0,0) + Delta U·x, V(0,0) + Delta
/// V·y, each sampled with the surface's and sampler's 3D state
/// ([`crate::message::sample_unorm_texels`]); written back as §2.13.2.4 "16 bit Full"
/// (the seed: "The '16 bit Full' mode is always selected"), two registers per channel
/// the header leaves unmasked (pixels 0-15, then 16-31, pixel 2n in the low word of
/// dword n), and for killpix a last register whose dword 0 is the Active Pixel Mask,
/// pixel 0 in its most significant bit.
fn sample_unorm(
    d: &SamplerMessage,
    media: bool,
    killpix: bool,
    payload: &[[u8; 32]],
    res: &dyn SamplerResources,
) -> Result<Response, MessageError> {
    let h = header_and_one(d, payload, "sample_unorm")?;
    let enabled = enabled_channels(d)?;
    // "phases in the response length are reduced by 2 for each channel that is masked",
    // and killpix adds its mask register.
    let rlen = 2 * enabled.len() + usize::from(killpix);
    if d.response_length != rlen {
        return Err(invalid(format!(
            "sample_unorm response length {} for {} enabled channels{}: it is {rlen} (seed \
             000 §2.13.1.3.1)",
            d.response_length,
            enabled.len(),
            if killpix { " and the pixel mask" } else { "" }
        )));
    }
    let block = Block::read(&payload[h], media, "sample_unorm")?;
    let view = res
        .surface(d.binding_table_index)
        .map_err(|e| e.context("surface state"))?;
    // "DeltaU * Width of the associated surface must be less than or equal to 3.0", and
    // Delta V times Height.
    let (w, hgt) = (f64::from(view.size[0]), f64::from(view.size[1]));
    if f64::from(block.du) * w > 3.0 || f64::from(block.dv) * hgt > 3.0 {
        return Err(invalid(format!(
            "sample_unorm Delta U {} x width {w} or Delta V {} x height {hgt} is above 3 \
             (seed 000 §2.13.1.4)",
            block.du, block.dv
        )));
    }
    let coords: Vec<[f32; 2]> = (0..4)
        .flat_map(|y| (0..8).map(move |x| (x, y)))
        .map(|(x, y)| {
            [
                block.u0 + block.du * x as f32,
                block.v0 + block.dv * y as f32,
            ]
        })
        .collect();
    let (texels, killed) = crate::message::sample_unorm_texels(d, &coords, res)?;
    let mut out = vec![[0u8; 32]; rlen];
    for (i, &c) in enabled.iter().enumerate() {
        for (p, t) in texels.iter().enumerate() {
            let reg = &mut out[2 * i + p / 16];
            let at = 2 * (p % 16);
            reg[at..at + 2].copy_from_slice(&unorm16(t[c]).to_le_bytes());
        }
    }
    let mut written = vec![0xffu8; rlen];
    if killpix {
        // "the bit for all pixels set to 1 except those pixels that have been killed",
        // listed "from upper left (MSB) to lower right (LSB)"; W.7:1 "not written".
        let mask = (0..32).fold(0u32, |m, p| m | u32::from(killed >> p & 1 == 0) << (31 - p));
        out[rlen - 1][..4].copy_from_slice(&mask.to_le_bytes());
        written[rlen - 1] = 1;
    }
    Ok(Response {
        registers: out,
        written: Some(written),
    })
}
