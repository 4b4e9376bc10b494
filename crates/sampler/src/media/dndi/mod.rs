//! The deinterlace message (seed 000 §2.8, §2.13.1.10.1, §2.13.2.6): the media sampler's
//! denoise (DN) and deinterlace (DI) filters on a 16x8 (DN alone) or 16x4 (DI) block of
//! a 4:2:0 frame, returned as 8-bit luma and 4:2:2 chroma blocks, the STMM and the
//! block statistics.
//!
//! ## Modelled
//!
//! * DN alone (response length 5), on the 16x8 block:
//!   * on a stream's first frame (DEINTERLACE_SAMPLER_STATE DN/DI First Frame; every
//!     call Intel's VA driver makes for denoise), every luma pixel through the
//!     context-adaptive spatial filter ([`denoise::spatial`], "forced to 100% spatial",
//!     §2.8.6), the motion history "written to 0";
//!   * on later frames, the previous frame (binding table index + 1) and each 4x4's
//!     denoise history from the STMM_DN_STATISTICS surface (+ 2, at "DH_X = Pitch/2 +
//!     pixelX/4, DH_Y = pixelY/4", §2.8.6.2): the motion detection and history update
//!     (§2.8.2.1), the temporal filter with the new history, pulled back into the local
//!     range, blended with the spatial filter by the temporal difference (§2.8.2.2 to
//!     §2.8.2.4, [`denoise::Temporal`]); the new histories and STAD returned;
//!   * the block noise estimate (§2.8.3) and the complexity sums.
//! * DI alone (response length 10) on the first frame, which is every call the VA
//!   driver makes for bob deinterlacing and the first of motion-adaptive ones: the
//!   current frame's first field deinterlaced ([`deinterlace`]), luma and 4:2:2 chroma;
//!   the STMM "written as the maximum 255"; the statistics the current frame gives
//!   (Diff_cTcB, the block noise estimate), the ones that need the previous frame at
//!   their maximum ("should indicate a maximum difference"). The previous frame's
//!   second field (W0-W3), which "does not exist" on the first frame, is returned as
//!   zeros.
//!
//! The statistics' last dword echoes the block's X and Y, which the kernels use to
//! address their writes.
//!
//! ## Not modelled (each an `Err` naming the seed section)
//!
//! Deinterlacing after the first frame (the STMM, whose divide table the seed omits;
//! temporal and motion-compensated deinterlacing, whose consistency checks are garbled;
//! progressive cadence reconstruction, §2.8.4); DN and DI in one message; DI Partial
//! (its writeback is not in the seed); the VDI walker; surfaces other than
//! PLANAR_420_8 (and STMM_DN_STATISTICS for the history).

pub mod deinterlace;
pub mod denoise;

use super::surface::{Channel, MediaFormat};
use crate::message::SamplerResources;
use crate::state::SamplerMessage;
use denoise::Luma;
use gtsim_message::{MessageError, Response, invalid};
use gtsim_spec::Unsupported;

/// DEINTERLACE_SAMPLER_STATE as the deinterlace message uses it (seed 000 §2.12.3.3),
/// decoded by the front.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DndiConfig {
    /// DN Enable.
    pub dn_enable: bool,
    /// DI Enable.
    pub di_enable: bool,
    /// DI Partial.
    pub di_partial: bool,
    /// DN/DI First Frame.
    pub first_frame: bool,
    /// Progressive DN: the denoiser filters neighbouring lines (else alternate ones).
    pub progressive_dn: bool,
    /// DN/DI Top First: the top field is the first.
    pub top_first: bool,
    /// VDI Walker Enable or VDI Walker Frame Sharing Enable.
    pub walker: bool,
    /// Good Neighbor Threshold.
    pub good_neighbor_th: u8,
    /// BNE Edge Threshold.
    pub bne_edge_th: u8,
    /// Block Noise Estimate Noise Threshold.
    pub bne_noise_th: u8,
    /// The temporal denoise thresholds (frames after the first).
    pub temporal: denoise::Temporal,
}

/// A window of one plane channel, read once (with the plane's edge clamping) so the
/// filters can look at it freely.
struct Window {
    x0: i64,
    y0: i64,
    w: i64,
    h: i64,
    data: Vec<u8>,
}

impl Window {
    fn read(
        ch: &Channel,
        mem: &dyn gtsim_mem::Memory,
        (x0, y0): (i64, i64),
        (w, h): (i64, i64),
    ) -> Result<Window, MessageError> {
        let mut data = Vec::with_capacity((w * h) as usize);
        for y in y0..y0 + h {
            for x in x0..x0 + w {
                data.push(ch.texel(mem, x, y)?);
            }
        }
        Ok(Window { x0, y0, w, h, data })
    }
}

impl Luma for Window {
    fn at(&self, x: i64, y: i64) -> u8 {
        let x = (x - self.x0).clamp(0, self.w - 1);
        let y = (y - self.y0).clamp(0, self.h - 1);
        self.data[(y * self.w + x) as usize]
    }
}

fn dword(reg: &[u8; 32], i: usize) -> u32 {
    u32::from_le_bytes([reg[4 * i], reg[4 * i + 1], reg[4 * i + 2], reg[4 * i + 3]])
}

fn put(reg: &mut [u8; 32], i: usize, v: u32) {
    reg[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
}

/// The deinterlace message.
pub(crate) fn run(
    d: &SamplerMessage,
    payload: &[[u8; 32]],
    res: &dyn SamplerResources,
) -> Result<Response, MessageError> {
    // §2.13.1.3.1: "deinterlace ... H + 1".
    let h = super::header_and_one(d, payload, "deinterlace")?;
    // §2.13.1.1 Sampler Index: "must be a multiple of 2 (even)" for deinterlace; the
    // state array's element is the index halved (§2.12.3.3).
    if !d.sampler_index.is_multiple_of(2) {
        return Err(invalid(format!(
            "deinterlace sampler index {} is odd (seed 000 §2.13.1.1: a multiple of 2)",
            d.sampler_index
        )));
    }
    let cfg = res.dndi(d.sampler_index)?;
    check(&cfg)?;
    let rlen = if cfg.di_enable { 10 } else { 5 };
    if d.response_length != rlen {
        return Err(invalid(format!(
            "deinterlace response length {} where DI Enable {} and DN Enable {} on a 4:2:0 \
             surface give {rlen} (seed 000 §2.13.2.6)",
            d.response_length, cfg.di_enable, cfg.dn_enable
        )));
    }
    let surface = res.media_surface(d.binding_table_index)?;
    if surface.format != MediaFormat::Planar420 {
        return Err(Unsupported::new(
            format!(
                "the deinterlace message on a {:?} surface (only PLANAR_420_8)",
                surface.format
            ),
            "seed 000 §2.13.2.6",
        )
        .into());
    }
    // §2.13.1.10.1: Pixel 0 U Address in M1.2 "U32 (Range: [0,4095])", V in M1.6
    // "(Range: [0,2046])": the bits those ranges need. (Intel's VA driver's kernels
    // write only the low word of each and leave the rest of the register as it was.)
    let m1 = &payload[h];
    let u = i64::from(dword(m1, 2) & 0xfff);
    let v = i64::from(dword(m1, 6) & 0x7ff);
    let mem = res.memory();
    let luma = surface.channel(1)?;
    let (lw, lh) = (i64::from(luma.width), i64::from(luma.height));
    let mut out = vec![[0u8; 32]; rlen];
    if cfg.di_enable {
        let c = OwnedPlane {
            win: Window::read(&luma, mem, (u - 2, v - 2), (20, 8))?,
            width: lw,
            height: lh,
        };
        let parity = deinterlace::first_field_parity(cfg.top_first);
        // W4-W5: the current frame's first field, rows 0-1 and 2-3.
        for row in 0..4 {
            for x in 0..16 {
                out[4 + row / 2][16 * (row % 2) + x as usize] =
                    deinterlace::luma(&c, u + x, v + row as i64, parity, lh);
            }
        }
        // W6-W7: its 4:2:2 chroma, (Cr, Cb) pairs for every two pixels.
        let cr = surface.channel(0)?;
        let cb = surface.channel(2)?;
        let (cw, chh) = (i64::from(cr.width), i64::from(cr.height));
        let cx = u / 2;
        let rows = (v / 2 - 2, 6);
        let (cr, cb) = (
            OwnedPlane {
                win: Window::read(&cr, mem, (cx, rows.0), (8, rows.1))?,
                width: cw,
                height: chh,
            },
            OwnedPlane {
                win: Window::read(&cb, mem, (cx, rows.0), (8, rows.1))?,
                width: cw,
                height: chh,
            },
        );
        for row in 0..4 {
            let y = v + row as i64;
            for k in 0..8 {
                let at = 16 * (row % 2) + 2 * k as usize;
                let reg = &mut out[6 + row / 2];
                reg[at] = deinterlace::chroma(&cr, cx + k, y, parity, lh);
                reg[at + 1] = deinterlace::chroma(&cb, cx + k, y, parity, lh);
            }
        }
        // W8: "STMM output values are written as the maximum 255" (§2.8.6).
        out[8] = [0xff; 32];
        // W9: the statistics (§2.13.2.6, Gen7 with DI enabled).
        let stats = &mut out[9];
        let bne =
            denoise::block_noise_estimate(&c, (u, v), (16, 4), cfg.bne_edge_th, cfg.bne_noise_th);
        put(stats, 1, u32::from(bne));
        put(stats, 3, 0xffff_ffff);
        let ctcb = deinterlace::diff_ct_cb(&c, (u, v));
        put(stats, 4, 0xffff_0000 | u32::from(ctcb));
        put(stats, 5, 0xffff);
        put(stats, 7, (v as u32) << 16 | u as u32);
    } else {
        let c = OwnedPlane {
            win: Window::read(&luma, mem, (u - 2, v - 3), (20, 14))?,
            width: lw,
            height: lh,
        };
        let step = if cfg.progressive_dn { 1 } else { 2 };
        // Frames after the first: the previous frame (the next binding table entry) and
        // the 4x4s' histories from the statistics surface (the one after), §2.8.6.
        let temporal = if cfg.first_frame {
            None
        } else {
            Some(temporal_inputs(d, res, &cfg, (u, v))?)
        };
        // W0-W3: the 16x8 block, two rows a register.
        for row in 0..8 {
            for x in 0..16 {
                let (px, py) = (u + x, v + row as i64);
                out[row / 2][16 * (row % 2) + x as usize] = match &temporal {
                    None => denoise::spatial(&c, px, py, step, cfg.good_neighbor_th),
                    Some((prev, blocks)) => {
                        let b = &blocks[row / 4][x as usize / 4];
                        cfg.temporal
                            .pixel(&c, prev, px, py, step, cfg.good_neighbor_th, b)
                    }
                };
            }
        }
        // W4: the statistics (§2.13.2.6, Gen7 with DI disabled): on the first frame the
        // history bytes (.0, .1) are 0 and STAD, which needs the previous frame, is 0.
        let stats = &mut out[4];
        let mut stad = [0u32; 2];
        if let Some((_, blocks)) = &temporal {
            for (half, row) in blocks.iter().enumerate() {
                let b: Vec<u8> = row.iter().map(|b| b.history).collect();
                put(stats, half, u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                stad[half] = row.iter().map(|b| b.stad).sum::<u32>().min(0xffff);
            }
        }
        let bne =
            denoise::block_noise_estimate(&c, (u, v), (16, 8), cfg.bne_edge_th, cfg.bne_noise_th);
        put(stats, 2, u32::from(bne));
        let (shcm_top, svcm_top) = denoise::complexity(&c, (u, v));
        let (shcm_bottom, svcm_bottom) = denoise::complexity(&c, (u, v + 4));
        put(
            stats,
            4,
            u32::from(shcm_bottom) << 16 | u32::from(svcm_bottom),
        );
        put(stats, 5, u32::from(svcm_top) << 16 | stad[1]);
        put(stats, 6, stad[0] << 16 | u32::from(shcm_top));
        put(stats, 7, (v as u32) << 16 | u as u32);
    }
    Ok(Response::from(out))
}

/// The previous frame's luma around the block at (`u`, `v`) and the new histories of
/// the block's eight 4x4s (by row of 4x4s, then column), for DN after the first frame.
fn temporal_inputs(
    d: &SamplerMessage,
    res: &dyn SamplerResources,
    cfg: &DndiConfig,
    (u, v): (i64, i64),
) -> Result<(OwnedPlane, [[denoise::BlockHistory; 4]; 2]), MessageError> {
    cfg.temporal.check().map_err(invalid)?;
    let mem = res.memory();
    let bti = |k: u8| {
        d.binding_table_index.checked_add(k).ok_or_else(|| {
            invalid(
                "the deinterlace message's binding table index leaves no room for the \
                 previous frame and the statistics (BTI + 1, + 2)",
            )
        })
    };
    let prev_surface = res.media_surface(bti(1)?)?;
    if prev_surface.format != MediaFormat::Planar420 {
        return Err(Unsupported::new(
            format!(
                "the deinterlace message with a {:?} previous frame (only PLANAR_420_8)",
                prev_surface.format
            ),
            "seed 000 §2.13.2.6",
        )
        .into());
    }
    let prev = prev_surface.channel(1)?;
    let prev = OwnedPlane {
        win: Window::read(&prev, mem, (u - 2, v - 3), (20, 14))?,
        width: i64::from(prev.width),
        height: i64::from(prev.height),
    };
    let stats = res.media_surface(bti(2)?)?;
    let bytes = stats.statistics()?;
    let luma = res.media_surface(d.binding_table_index)?.channel(1)?;
    let cur = OwnedPlane {
        win: Window::read(&luma, mem, (u - 2, v - 3), (20, 14))?,
        width: i64::from(luma.width),
        height: i64::from(luma.height),
    };
    // §2.8.6.2: "DH_X = Pitch/2 + pixelX/4, DH_Y = pixelY/4".
    let half = (stats.pitch / 2) as i64;
    let mut blocks = [[denoise::BlockHistory {
        stad: 0,
        motion: false,
        history: 0,
    }; 4]; 2];
    for (by, row) in blocks.iter_mut().enumerate() {
        for (bx, b) in row.iter_mut().enumerate() {
            let (x0, y0) = (u + 4 * bx as i64, v + 4 * by as i64);
            let h = bytes.texel(mem, half + x0 / 4, y0 / 4)?;
            *b = cfg.temporal.block(&cur, &prev, (x0, y0), h);
        }
    }
    Ok((prev, blocks))
}

/// A window of a plane with the plane's size: positions outside the plane read its
/// nearest edge texel (the window's margins hold the clamped texels).
struct OwnedPlane {
    win: Window,
    width: i64,
    height: i64,
}

impl Luma for OwnedPlane {
    fn at(&self, x: i64, y: i64) -> u8 {
        self.win
            .at(x.clamp(0, self.width - 1), y.clamp(0, self.height - 1))
    }
}

/// What the model does not cover, or the seed forbids.
fn check(cfg: &DndiConfig) -> Result<(), MessageError> {
    let unsupported = |what: &str, section: &'static str| -> MessageError {
        Unsupported::new(format!("the deinterlace message with {what}"), section).into()
    };
    if !cfg.dn_enable && !cfg.di_enable {
        return Err(invalid(
            "DEINTERLACE_SAMPLER_STATE DN Enable and DI Enable \"cannot both be disabled\" \
             (seed 000 §2.12.3.3)",
        ));
    }
    if cfg.di_partial {
        return Err(unsupported(
            "DI Partial (its writeback is not in the seed)",
            "seed 000 §2.12.3.3, §2.13.2.6",
        ));
    }
    if cfg.walker {
        return Err(unsupported("the VDI walker", "seed 000 §2.12.3.3"));
    }
    if cfg.dn_enable && cfg.di_enable {
        return Err(unsupported(
            "DN and DI both enabled (response lengths 11 and 12)",
            "seed 000 §2.13.2.6",
        ));
    }
    if !cfg.first_frame && cfg.di_enable {
        return Err(unsupported(
            "deinterlacing a frame after the first (STMM, temporal and motion-compensated \
             deinterlacing)",
            "seed 000 §2.8.4",
        ));
    }
    Ok(())
}
