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
//! * DI alone (response length 10):
//!   * on the first frame (every call Intel's VA driver makes for bob deinterlacing,
//!     and the first of motion-adaptive ones): the current frame's first field
//!     deinterlaced ([`deinterlace`]), luma and 4:2:2 chroma; the STMM "written as the
//!     maximum 255"; the statistics the current frame gives (Diff_cTcB, the block noise
//!     estimate), the ones that need the previous frame at their maximum ("should
//!     indicate a maximum difference"). The previous frame's second field (W0-W3),
//!     which "does not exist" on the first frame, is returned as zeros;
//!   * on later frames (motion-adaptive, §2.8.4): the previous frame's second field and
//!     the current frame's first, each missing pixel the blend by STMM3 of the spatial
//!     (90-degree) and temporal interpolations, the STMM from SVCM, SHCM, VECM and the
//!     cross-filtered TDM ([`deinterlace::Motion`]; the seed's reciprocal table is not
//!     given, the model divides exactly), smoothed with the stored STMM from the
//!     statistics surface (binding table index + 2), STMM3 the largest of a pair and its
//!     neighbours; chroma upsampled by the same blend; the field motion detector's
//!     variances.
//!
//! The statistics' last dword echoes the block's X and Y, which the kernels use to
//! address their writes.
//!
//! ## Not modelled (each an `Err` naming the seed section)
//!
//! Motion-compensated deinterlacing (MCDI: the seed's consistency check is garbled,
//! §2.8.4.9-§2.8.4.12) and progressive cadence reconstruction (§2.8.4.8); the field
//! motion detector's counters (their tear rules) and its frame sums; DN and DI in one
//! message; DI Partial (its writeback is not in the seed); the VDI walker; surfaces
//! other than PLANAR_420_8 (and 8-bit statistics surfaces).
//!
//! ## Readings where the seed is silent
//!
//! * The spatial deinterlacer's angle tree is a lost figure: every angle is the seed's
//!   90-degree default.
//! * The STMM window is centred on the missing pair, (0, 0) its left pixel, as the
//!   seed's sums are written; the temporal interpolation is the line as the previous
//!   and the current frame hold it ("between the 2nd field of previous and the 2nd
//!   field of current"); averages round half up.
//! * STMM Shift Down 3 is reserved, but Intel's VA driver programs it: it shifts by 7,
//!   continuing 4, 5, 6.
//! * The statistics surface is the MEDIA_SURFACE_STATE of format STMM_DN_STATISTICS
//!   the seed names, or the 8-bit RENDER_SURFACE_STATE Intel's VA driver binds there
//!   (the front tells them apart).

pub mod deinterlace;
pub mod denoise;

use super::surface::{Channel, MediaFormat, MediaSurfaceView};
use crate::message::SamplerResources;
use crate::state::SamplerMessage;
use denoise::Luma;
use gtsim_message::{MessageError, Response, invalid};
use gtsim_spec::Unsupported;

/// DEINTERLACE_SAMPLER_STATE as the deinterlace message uses it (seed 000 §2.12.3.3),
/// decoded by the front.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// The motion-adaptive deinterlacer's state, or why a field of it is reserved.
    pub motion: Result<deinterlace::Motion, gtsim_message::StateRule>,
    /// MCDI Enable.
    pub mcdi: bool,
    /// Progressive cadence reconstruction asked for (FMD for 1st Field of Current Frame
    /// or for 2nd Field of Previous Frame not "Deinterlace").
    pub cadence: bool,
}

/// A window of one plane channel, read once so the filters can look at it freely:
/// positions outside the plane read its nearest edge texel (the plane's clamp), and the
/// window's margins hold what the filters reach around the block.
struct Window {
    x0: i64,
    y0: i64,
    w: i64,
    h: i64,
    data: Vec<u8>,
    /// The plane's size.
    width: i64,
    height: i64,
}

impl Window {
    /// The `w` x `h` texels of channel `ch` from (`x0`, `y0`).
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
        Ok(Window {
            x0,
            y0,
            w,
            h,
            data,
            width: i64::from(ch.width),
            height: i64::from(ch.height),
        })
    }
}

impl Luma for Window {
    fn at(&self, x: i64, y: i64) -> u8 {
        let x = (x.clamp(0, self.width - 1) - self.x0).clamp(0, self.w - 1);
        let y = (y.clamp(0, self.height - 1) - self.y0).clamp(0, self.h - 1);
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
    let lh = i64::from(luma.height);
    let mut out = vec![[0u8; 32]; rlen];
    if cfg.di_enable && !cfg.first_frame {
        later_frame(d, res, &cfg, (u, v), &mut out)?;
    } else if cfg.di_enable {
        let c = Window::read(&luma, mem, (u - 2, v - 2), (20, 8))?;
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
        let cx = u / 2;
        let rows = (v / 2 - 2, 6);
        let (cr, cb) = (
            Window::read(&cr, mem, (cx, rows.0), (8, rows.1))?,
            Window::read(&cb, mem, (cx, rows.0), (8, rows.1))?,
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
        let c = Window::read(&luma, mem, (u - 2, v - 3), (20, 14))?;
        let step = if cfg.progressive_dn { 1 } else { 2 };
        // Frames after the first: the previous frame (the next binding table entry) and
        // the 4x4s' histories from the statistics surface (the one after), §2.8.6.
        let temporal = if cfg.first_frame {
            None
        } else {
            Some(temporal_inputs(d, res, &cfg, &c, (u, v))?)
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

/// The frames after the first read, besides the current frame: the previous frame
/// (binding table index + 1, PLANAR_420_8 like the current) and the statistics surface
/// holding the stored STMM and denoise history (+ 2, §2.8.6.2).
fn references(
    d: &SamplerMessage,
    res: &dyn SamplerResources,
) -> Result<(MediaSurfaceView, Channel), MessageError> {
    let bti = |k: u8| {
        d.binding_table_index.checked_add(k).ok_or_else(|| {
            invalid(
                "the deinterlace message's binding table index leaves no room for the \
                 previous frame and the statistics (BTI + 1, + 2)",
            )
        })
    };
    let previous = res.media_surface(bti(1)?)?;
    if previous.format != MediaFormat::Planar420 {
        return Err(Unsupported::new(
            format!(
                "the deinterlace message with a {:?} previous frame (only PLANAR_420_8)",
                previous.format
            ),
            "seed 000 §2.13.2.6",
        )
        .into());
    }
    Ok((previous, res.statistics(bti(2)?)?))
}

/// The previous frame's luma around the block at (`u`, `v`) (the window `cur` holds of
/// the current frame) and the new histories of the block's eight 4x4s (by row of 4x4s,
/// then column), for DN after the first frame.
fn temporal_inputs(
    d: &SamplerMessage,
    res: &dyn SamplerResources,
    cfg: &DndiConfig,
    cur: &Window,
    (u, v): (i64, i64),
) -> Result<(Window, [[denoise::BlockHistory; 4]; 2]), MessageError> {
    cfg.temporal.check()?;
    let mem = res.memory();
    let (previous, bytes) = references(d, res)?;
    let prev = Window::read(&previous.channel(1)?, mem, (cur.x0, cur.y0), (cur.w, cur.h))?;
    // §2.8.6.2: "DH_X = Pitch/2 + pixelX/4, DH_Y = pixelY/4" (the plane is as wide as
    // the pitch).
    let half = i64::from(bytes.width / 2);
    let mut blocks = [[denoise::BlockHistory {
        stad: 0,
        motion: false,
        history: 0,
    }; 4]; 2];
    for (by, row) in blocks.iter_mut().enumerate() {
        for (bx, b) in row.iter_mut().enumerate() {
            let (x0, y0) = (u + 4 * bx as i64, v + 4 * by as i64);
            let h = bytes.texel(mem, half + x0 / 4, y0 / 4)?;
            *b = cfg.temporal.block(cur, &prev, (x0, y0), h);
        }
    }
    Ok((prev, blocks))
}

/// Deinterlacing after the first frame (seed 000 §2.8.4, §2.8.6.1): the previous frame's
/// second field (W0-W3, reference the current frame) and the current frame's first
/// field (W4-W7, reference the previous frame), each missing line the blend, by STMM3,
/// of the spatial interpolation (the 90-degree default) and the temporal one (the line
/// in the previous and the current frame); chroma upsampled the same way; the STMM2 of
/// each row's missing pixels (W8: the rows of the first field's parity are the previous
/// frame's missing lines, the others the current frame's); the field motion detector's
/// variances (W9). The stored STMM is read from the statistics surface (binding table
/// index + 2) at "STMM_X = pixelX / 2, STMM_Y = pixelY" (§2.8.6.2).
fn later_frame(
    d: &SamplerMessage,
    res: &dyn SamplerResources,
    cfg: &DndiConfig,
    (u, v): (i64, i64),
    out: &mut [[u8; 32]],
) -> Result<(), MessageError> {
    let motion = cfg.motion.clone()?;
    let mem = res.memory();
    let current = res.media_surface(d.binding_table_index)?;
    let (previous, stats) = references(d, res)?;
    // Luma windows wide enough for the pairs either side of the block (STMM3) and the
    // cross filter's reach: 4 pixels and 4 lines around it.
    let plane = |s: &MediaSurfaceView, c: usize, at: (i64, i64), size: (i64, i64)| {
        Window::read(&s.channel(c)?, mem, at, size)
    };
    let (cy, py) = (
        plane(&current, 1, (u - 4, v - 4), (24, 12))?,
        plane(&previous, 1, (u - 4, v - 4), (24, 12))?,
    );
    let cx = u / 2;
    let rows = (v / 2 - 3, 8);
    let chroma = |s: &MediaSurfaceView, c: usize| plane(s, c, (cx - 1, rows.0), (10, rows.1));
    // [frame][channel]: Cr then Cb, of the current and previous frames.
    let (c_cr, c_cb, p_cr, p_cb) = (
        chroma(&current, 0)?,
        chroma(&current, 2)?,
        chroma(&previous, 0)?,
        chroma(&previous, 2)?,
    );
    let height = cy.height;
    let first = deinterlace::first_field_parity(cfg.top_first);
    // (the frame deinterlaced, the reference, its chroma, the kept field's parity, the
    // first output register)
    let outputs: [(&Window, &Window, [&Window; 2], i64, usize); 2] = [
        (&py, &cy, [&p_cr, &p_cb], 1 - first, 0),
        (&cy, &py, [&c_cr, &c_cb], first, 4),
    ];
    let mut stmm_rows = [[0u8; 8]; 4];
    for (c, r, chroma, kept, reg) in outputs {
        for row in 0..4usize {
            let y = v + row as i64;
            if y.rem_euclid(2) == kept {
                for x in 0..16 {
                    out[reg + row / 2][16 * (row % 2) + x as usize] = c.at(u + x, y);
                }
                for k in 0..8 {
                    let at = 16 * (row % 2) + 2 * k as usize;
                    for (i, ch) in chroma.iter().enumerate() {
                        out[reg + 2 + row / 2][at + i] =
                            deinterlace::chroma(*ch, cx + k, y, kept, height);
                    }
                }
                continue;
            }
            // STMM2 of the pairs from one left of the block to one right of it.
            let stmm2: Vec<u32> = (-1..=8)
                .map(|p| {
                    let x = u + 2 * p;
                    let stored = stats.texel(mem, x.div_euclid(2), y)?;
                    Ok(u32::from(motion.smooth(motion.stmm(c, r, x, y), stored)))
                })
                .collect::<Result<_, MessageError>>()?;
            for p in 0..8usize {
                // STMM3: the largest of the pair and its two neighbours.
                let stmm3 = stmm2[p].max(stmm2[p + 1]).max(stmm2[p + 2]);
                stmm_rows[row][p] = stmm2[p + 1] as u8;
                for x in [u + 2 * p as i64, u + 2 * p as i64 + 1] {
                    let sdi = u32::from(deinterlace::luma(c, x, y, kept, height));
                    let tdi = deinterlace::temporal(py.at(x, y), cy.at(x, y));
                    out[reg + row / 2][16 * (row % 2) + (x - u) as usize] =
                        motion.blend(stmm3, sdi, tdi);
                }
                // Chroma: "temporal_cr = (cr(n-1) + cr(n+1)) / 2", "spatial_cr =
                // (cr(n,y-1) + cr(n,y+1)) / 2", blended by the pair's STMM3; the missing
                // line's own field row of 4:2:0 chroma in both frames.
                let k = cx + p as i64;
                let field_row = deinterlace::field_chroma_row(y);
                let at = 16 * (row % 2) + 2 * p;
                for (i, (pc, cc)) in [(&p_cr, &c_cr), (&p_cb, &c_cb)].iter().enumerate() {
                    let spatial = u32::from(deinterlace::chroma(chroma[i], k, y, kept, height));
                    let temporal = deinterlace::temporal(pc.at(k, field_row), cc.at(k, field_row));
                    out[reg + 2 + row / 2][at + i] = motion.blend(stmm3, spatial, temporal);
                }
            }
        }
    }
    // W8: each row's STMM2, 8 pairs a row.
    for (row, pairs) in stmm_rows.iter().enumerate() {
        out[8][8 * row..8 * row + 8].copy_from_slice(pairs);
    }
    // W9: the statistics (§2.13.2.6, DI enabled): the block noise estimate of the current
    // frame, the field motion detector's variances; history and counts 0 (DN off, the
    // counters' tear rules are not modelled).
    let [ctpt, cbpb, ctcb, ctpb, cbpt] = deinterlace::field_variances(&cy, &py, (u, v));
    let stats = &mut out[9];
    let bne =
        denoise::block_noise_estimate(&cy, (u, v), (16, 4), cfg.bne_edge_th, cfg.bne_noise_th);
    put(stats, 1, u32::from(bne));
    put(stats, 3, u32::from(ctpb) << 16 | u32::from(cbpt));
    put(stats, 4, u32::from(cbpb) << 16 | u32::from(ctcb));
    put(stats, 5, u32::from(ctpt));
    put(stats, 7, (v as u32) << 16 | u as u32);
    Ok(())
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
        if cfg.mcdi {
            return Err(unsupported(
                "motion-compensated deinterlacing (MCDI Enable; the seed's consistency \
                 check is garbled)",
                "seed 000 §2.8.4.9-§2.8.4.12",
            ));
        }
        if cfg.cadence {
            return Err(unsupported(
                "progressive cadence reconstruction",
                "seed 000 §2.8.4.8",
            ));
        }
        if let Err(why) = &cfg.motion {
            return Err(why.clone().into());
        }
    }
    Ok(())
}
