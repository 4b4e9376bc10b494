//! The scaler and format converter (SFC) in VE-to-SFC mode: the VEBOX's processed frame
//! scaled, colour-converted, rotated and written in the output format.
//!
//! iHD sends SFC_LOCK (VE-SFC Pipe Select; Pre-Scaled Output Surface Output Enable, which
//! also writes the VEBOX's own output), SFC_STATE, SFC_AVS_STATE, the luma and chroma
//! coefficient tables when it scales, SFC_IEF_STATE when it sharpens or converts colour,
//! and SFC_FRAME_START; the next VEB_DI_IECP sends its frame through here
//! (`super::frame`). The state is seed 003's SFC_STATE_BODY (L19598-20439),
//! SFC_AVS_STATE_BODY (L19179), SFC_IEF_STATE_BODY (L19287) and the coefficient tables
//! (L19001-19178), in the ICL command layout iHD sends (`defs/gen11/media_driver_vebox.spec`).
//!
//! The frame, in order:
//! 1. arrives at SFC Input Chroma Sub-Sampling (4:2:0, 4:2:2 or 4:4:4) and is brought to
//!    4:4:4 at SFC_AVS_STATE's input siting (`siting`);
//! 2. the Source Region (its offset and size) is scaled to the Scaled Region Size by the
//!    AVS (`scale`), or copied 1:1 when AVS Scaling Enable is clear ("the scaling factor
//!    is ignored and a scaling ratio of 1:1 is assumed");
//! 3. the colour space converter (CSC Enable, with SFC_IEF_STATE's Transform Enable
//!    matrix: C0-C8 S2.10, Offset In/Out S2.8): `out = C·(in + offset_in) + offset_out`,
//!    per channel Y/R, U/G, V/B, offsets in 1/256 of full scale;
//! 4. rotated by Rotation Mode (90, 180, 270 degrees clockwise) and placed at the Scaled
//!    Region Offset in the Output Frame; with Color Fill Enable every other pixel of the
//!    output frame takes the Gray Bar Pixel colour (10-bit), else is left as it was;
//! 5. chroma brought down to the output format's subsampling at the Output Chroma
//!    Downsampling co-siting positions, and written (`output`), alpha from Alpha Default
//!    Value.
//!
//! Refused by name: the image enhancement filter (IEF Enable: seed 000 §2.10 gives the
//! VSA's edge measure but not the detail filter it weights, and seed 003's smoothing
//! coefficients point to an "IEF map" neither seed has), the adaptive AVS weight (Bypass
//! X/Y Adaptive Filtering clear: seed 000 §2.9.1.3's figure is missing), the
//! high-quality chroma upsampler (Chroma Upsampling Enable: no filter given), pipe modes
//! other than VE-to-SFC, integral-image and Y210/Y410 outputs, YUV Channel Swap, and
//! tiled-resource or compressed output surfaces.

mod output;
mod scale;
pub mod siting;

use super::super::Hang;
use super::super::cs::unsupported;
use super::super::fields::Fields;
use super::surface::{Frame, invalid};

/// A hang for SFC state that cannot describe the frame (reported at the VEB_DI_IECP that
/// runs it).
pub(super) fn invalid_sfc(at: u64, why: String) -> Hang {
    invalid("VEB_DI_IECP", at, format!("the SFC's state: {why}"))
}
use gtsim_mem::memory::Memory;
use gtsim_mem::tiling::Tiling;
use gtsim_spec::table::Generation;
pub use output::{Format, Output, Picture};
pub use scale::{Avs, Plane444};

/// Where the SFC is defined.
const REFERENCE: &str = "seed 003 SFC_STATE_BODY L19598-20439, SFC_IEF_STATE_BODY L19287";

/// The largest output frame the model builds in host memory.
const MAX_PIXELS: usize = 4096 * 4096;

/// A rectangle: offset and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    /// Left column and top row.
    pub at: (usize, usize),
    /// Width and height.
    pub size: (usize, usize),
}

/// The colour space converter of SFC_IEF_STATE (Transform Enable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Csc {
    /// C0-C8 in 1/1024 (S2.10), row by row.
    pub matrix: [[i64; 3]; 3],
    /// Offset In 1-3, then Out 1-3, in 1/256 of full scale (S2.8).
    pub offsets: ([i64; 3], [i64; 3]),
}

impl Csc {
    /// `px` (12 bits a channel) converted, clamped to 12 bits.
    pub fn apply(&self, px: [i32; 3]) -> [i32; 3] {
        let (oin, oout) = self.offsets;
        let v: [i64; 3] = std::array::from_fn(|j| i64::from(px[j]) + 16 * oin[j]);
        std::array::from_fn(|i| {
            let s: i64 = (0..3).map(|j| self.matrix[i][j] * v[j]).sum();
            (((s + 512) >> 10) + 16 * oout[i]).clamp(0, 4095) as i32
        })
    }
}

/// The SFC as the latched commands set it.
#[derive(Debug, Clone)]
pub struct Sfc {
    /// Input Frame Resolution.
    pub input: (usize, usize),
    /// SFC Input Chroma Sub-Sampling: whether chroma is halved horizontally, vertically.
    pub input_halves: (bool, bool),
    /// The input chroma's siting in eighths (SFC_AVS_STATE).
    pub input_siting: (u32, u32),
    /// Source Region.
    pub source: Rect,
    /// Scaled Region (size before rotation; offset in the output frame).
    pub scaled: Rect,
    /// The AVS and the U4.17 scaling factors, or `None` for 1:1.
    pub avs: Option<(Avs, (u32, u32))>,
    /// The colour space converter.
    pub csc: Option<Csc>,
    /// Rotation Mode: quarter turns clockwise.
    pub rotation: u8,
    /// Color Fill Enable's colour (12 bits: Y/R, U/G, V/B).
    pub fill: Option<[i32; 3]>,
    /// Alpha Default Value (12 bits).
    pub alpha: i32,
    /// The output chroma's siting in eighths.
    pub output_siting: (u32, u32),
    /// The output frame.
    pub output: Output,
    /// Output Frame Surface Base Address.
    pub base: u64,
}

/// `bits` wide two's complement `v`, sign-extended.
fn signed(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    (v << shift) as i64 >> shift
}

/// A refusal of what the SFC does not model.
fn refuse(
    at: u64,
    what: impl Into<std::borrow::Cow<'static, str>>,
    reference: &'static str,
) -> Hang {
    let what: std::borrow::Cow<'static, str> = what.into();
    unsupported("VEB_DI_IECP", at, format!("the SFC's {what}"), reference)
}

impl Sfc {
    /// The SFC of the commands latched since SFC_LOCK (`sfc`, by name), checked.
    pub fn decode(
        generation: &'static Generation,
        sfc: &[(&'static str, Vec<u32>)],
        mask: u64,
        at: u64,
    ) -> Result<Sfc, Hang> {
        let get = |name: &str| -> Option<Fields<'_>> {
            let (_, dw) = sfc.iter().find(|(n, _)| *n == name)?;
            Some(Fields {
                generation,
                def: generation.def(name)?,
                dw,
            })
        };
        let Some(s) = get("SFC_STATE") else {
            return Err(invalid_sfc(at, "no SFC_STATE since SFC_LOCK".into()));
        };
        if s.u("Sfc Pipe Mode") != 1 {
            return Err(refuse(
                at,
                format!(
                    "SFC Pipe Mode {} (the model runs VE-to-SFC, mode 1; the video decoder's \
                     and HCP's modes belong to engines it does not model)",
                    s.u("Sfc Pipe Mode")
                ),
                REFERENCE,
            ));
        }
        let input_halves = match s.u("Sfc Input Chroma Sub Sampling") {
            1 => (true, true),
            2 => (true, false),
            4 => (false, false),
            v => {
                return Err(refuse(
                    at,
                    format!("SFC Input Chroma Sub-Sampling {v} (4:0:0 or reserved)"),
                    REFERENCE,
                ));
            }
        };
        if s.u("Ief Enable") != 0 {
            return Err(refuse(
                at,
                "the image enhancement filter (IEF Enable): seed 000 gives the VSA's edge \
                 measure but not the detail filter it weights, and seed 003's R3x/R5x \
                 smoothing coefficients refer to an IEF map neither seed has",
                "seed 000 §2.10.1; seed 003 SFC_IEF_STATE_BODY L19287",
            ));
        }
        if s.flag("Chroma Upsampling Enable") {
            return Err(refuse(
                at,
                "the high-quality chroma upsampler (Chroma Upsampling Enable): the seed \
                 gives no filter",
                REFERENCE,
            ));
        }
        if s.u("Output Surface Tiled Mode") != 0
            || s.flag("Output Frame Surface Base Address Memory Compression Enable")
        {
            return Err(refuse(
                at,
                "a tiled-resource (Yf/Ys) or compressed output surface",
                REFERENCE,
            ));
        }
        let Some(format) = Format::of(s.u("Output Surface Format Type"), s.u("Bitdepth")) else {
            return Err(refuse(
                at,
                format!(
                    "Output Surface Format Type {} (integral images, Y210/Y216, Y410/Y416)",
                    s.u("Output Surface Format Type")
                ),
                REFERENCE,
            ));
        };
        let size = |w: &str, h: &str| (s.u(w) as usize + 1, s.u(h) as usize + 1);
        let input = size(
            "Input Frame Resolution Width",
            "Input Frame Resolution Height",
        );
        let source = Rect {
            at: (
                s.u("Source Region Horizontal Offset") as usize,
                s.u("Source Region Vertical Offset") as usize,
            ),
            size: size("Source Region Width", "Source Region Height"),
        };
        let scaled = Rect {
            at: (
                s.u("Scaled Region Horizontal Offset") as usize,
                s.u("Scaled Region Vertical Offset") as usize,
            ),
            size: size("Scaled Region Size Width", "Scaled Region Size Height"),
        };
        let out_size = size("Output Frame Width", "Output Frame Height");
        if source.at.0 + source.size.0 > input.0 || source.at.1 + source.size.1 > input.1 {
            return Err(invalid_sfc(
                at,
                format!(
                    "the source region {}x{} at ({}, {}) exceeds the {}x{} input frame",
                    source.size.0, source.size.1, source.at.0, source.at.1, input.0, input.1
                ),
            ));
        }
        for (what, (w, h)) in [("output frame", out_size), ("scaled region", scaled.size)] {
            if w * h > MAX_PIXELS {
                return Err(refuse(
                    at,
                    format!(
                        "a {w}x{h} {what}: the model holds frames in host memory, up to 4096x4096 pixels"
                    ),
                    REFERENCE,
                ));
            }
        }
        let avs_state = get("SFC_AVS_STATE");
        let siting = |h: &str, v: &str| {
            avs_state
                .as_ref()
                .map_or((0, 0), |a| (a.u(h) as u32, a.u(v) as u32))
        };
        let input_siting = siting(
            "Input Horizontal Siting Value Specifies The Horizontal Siting Of The Input",
            "Input Vertical Siting Specifies The Vertical Siting Of The Input",
        );
        let avs = if s.u("Avs Scaling Enable") != 0 {
            let bilinear_only = s.u("Avs Filter Mode") == 2;
            if !bilinear_only
                && (s.u("Bypass X Adaptive Filtering") == 0
                    || s.u("Bypass Y Adaptive Filtering") == 0)
            {
                return Err(refuse(
                    at,
                    "the adaptive blend of the AVS sharp and smooth filters (Bypass X/Y \
                     Adaptive Filtering clear; the seed gives its weight only as a missing figure)",
                    "seed 000 §2.9.1.3; seed 003 SFC_STATE_BODY DW3",
                ));
            }
            let table = |name: &str, per_phase: usize, first: usize| {
                sfc.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, dw)| scale::tables(&dw[1..], per_phase, first))
            };
            let luma = table("SFC_AVS_LUMA_Coeff_Table", 4, 0);
            let chroma = table("SFC_AVS_CHROMA_Coeff_Table", 2, 2);
            let (luma, chroma) = match (luma, chroma, bilinear_only) {
                (Some(l), Some(c), _) => (l, c),
                (_, _, true) => Default::default(),
                _ => {
                    return Err(invalid_sfc(
                        at,
                        "AVS Scaling Enable with a poly-phase filter, but no SFC_AVS_LUMA and \
                         SFC_AVS_CHROMA coefficient tables since SFC_LOCK"
                            .into(),
                    ));
                }
            };
            // SFC_STATE DW4 bit 3 (seed 003 DW3 3, "Enable 8 tap for Chroma channels
            // filtering"; the ICL header names the bit Reserved): chroma takes the luma
            // tables.
            let eight_tap = s.dw.get(4).is_some_and(|d| d & 8 != 0);
            let chroma = if eight_tap { luma } else { chroma };
            Some((
                Avs {
                    bilinear_only,
                    sharpness: avs_state
                        .as_ref()
                        .map_or(255, |a| a.u("Sharpness Level") as u8),
                    luma: Box::new(luma),
                    chroma: Box::new(chroma),
                },
                (
                    s.u("Scaling Factor Width") as u32,
                    s.u("Scaling Factor Height") as u32,
                ),
            ))
        } else {
            None
        };
        let csc = if s.flag("Csc Enable") {
            let Some(ief) = get("SFC_IEF_STATE") else {
                return Err(invalid_sfc(at, "CSC Enable without an SFC_IEF_STATE (its Transform coefficients) since SFC_LOCK"
                        .into(),
                ));
            };
            if ief.flag("Yuv Channel Swap") {
                return Err(refuse(at, "YUV Channel Swap in SFC_IEF_STATE", REFERENCE));
            }
            if ief.flag("Transform Enable") {
                let c = |i: usize| signed(ief.u(&format!("C{i}")), 13);
                let o = |name: &str, i: usize| signed(ief.u(&format!("{name}{i}")), 11);
                Some(Csc {
                    matrix: [[c(0), c(1), c(2)], [c(3), c(4), c(5)], [c(6), c(7), c(8)]],
                    offsets: (
                        [o("Offset In", 1), o("Offset In", 2), o("Offset In", 3)],
                        [o("Offset Out", 1), o("Offset Out", 2), o("Offset Out", 3)],
                    ),
                })
            } else {
                None
            }
        } else {
            None
        };
        let tiling = match (
            s.flag("Output Surface Tiled"),
            s.u("Output Surface Tile Walk"),
        ) {
            (false, _) => Tiling::Linear,
            (true, 0) => Tiling::X,
            (true, _) => Tiling::Y,
        };
        if s.flag("Output Surface Half Pitch For Chroma")
            || (format.chroma_size((2, 2)) == (1, 1)
                && !s.flag("Output Surface Interleave Chroma Enable"))
        {
            return Err(refuse(
                at,
                "a planar output with half-pitch or separate U and V planes",
                REFERENCE,
            ));
        }
        let output = Output::new(
            format,
            s.flag("Rgba Channel Swap Enable"),
            out_size,
            (
                s.u("Output Surface Pitch") + 1,
                tiling,
                (
                    s.u("Output Surface Y Offset For U"),
                    s.u("Output Surface X Offset For U"),
                ),
            ),
            at,
        )?;
        let ten = |v: u64| (v as i32 & 0x3ff) << 2;
        Ok(Sfc {
            input,
            input_halves,
            input_siting,
            source,
            scaled,
            avs,
            csc,
            rotation: s.u("Rotation Mode") as u8,
            fill: s.flag("Color Fill Enable").then(|| {
                [
                    ten(s.u("Gray Bar Pixel YR")),
                    ten(s.u("Gray Bar Pixel UG")),
                    ten(s.u("Gray Bar Pixel VB")),
                ]
            }),
            alpha: ten(s.u("Alpha Default Value")),
            output_siting: (
                s.u("Output Chroma Downsampling Co Siting Position Horizontal Direction") as u32,
                s.u("Output Chroma Downsampling Co Siting Position Vertical Direction") as u32,
            ),
            output,
            base: (s.u("Output Frame Surface Base Address High") << 32
                | s.u("Output Frame Surface Base Address") << 12)
                & mask,
        })
    }

    /// The chroma planes' size of the frame the SFC takes.
    pub fn input_chroma_size(&self) -> (usize, usize) {
        let (w, h) = self.input;
        let (hx, hy) = self.input_halves;
        (
            if hx { w.div_ceil(2) } else { w },
            if hy { h.div_ceil(2) } else { h },
        )
    }

    /// The pixels the frame costs (for the watchdog).
    pub fn pixels(&self) -> u64 {
        let (w, h) = self.output.size;
        (w * h + self.scaled.size.0 * self.scaled.size.1) as u64
    }

    /// Processes `frame` (at the input resolution and subsampling) and writes it.
    pub fn run(&self, frame: &Frame, mem: &mut dyn Memory, at: u64) -> Result<(), Hang> {
        let (w, h) = self.input;
        if (frame.width, frame.height) != (w, h) || frame.chroma_size != self.input_chroma_size() {
            return Err(invalid_sfc(
                at,
                format!(
                    "the VEBOX sends a {}x{} frame and the SFC's Input Frame Resolution is {w}x{h}",
                    frame.width, frame.height
                ),
            ));
        }
        let picture = self.picture(frame);
        let (ow, oh) = self.output.size;
        let (cols, rows) = match self.fill {
            Some(_) => (0..ow, 0..oh),
            None => {
                let placed = self.placed();
                (
                    placed.at.0.min(ow)..(placed.at.0 + placed.size.0).min(ow),
                    placed.at.1.min(oh)..(placed.at.1 + placed.size.1).min(oh),
                )
            }
        };
        self.output
            .write(mem, self.base, &picture, (cols, rows), at)
    }

    /// The scaled region after rotation, placed in the output frame.
    fn placed(&self) -> Rect {
        let (sw, sh) = self.scaled.size;
        Rect {
            at: self.scaled.at,
            size: if self.rotation % 2 == 1 {
                (sh, sw)
            } else {
                (sw, sh)
            },
        }
    }

    /// The output frame's pixels (see the module docs' steps 1-5).
    pub fn picture(&self, frame: &Frame) -> Picture {
        let (w, h) = self.input;
        let full = siting::upsample(&frame.uv, frame.chroma_size, (w, h), self.input_siting);
        let px: Vec<[i32; 3]> = frame
            .y
            .iter()
            .zip(&full)
            .map(|(&y, &[u, v])| [y, u, v])
            .collect();
        let src = Plane444 {
            size: (w, h),
            px: &px,
        };
        let (sw, sh) = self.scaled.size;
        let (ox, oy) = self.source.at;
        let scaled: Vec<[i32; 3]> = (0..sh)
            .flat_map(|j| (0..sw).map(move |i| (i, j)))
            .map(|(i, j)| {
                let p = match &self.avs {
                    Some((avs, (fx, fy))) => {
                        let (x, bx) = scale::position(i, ox, *fx);
                        let (y, by) = scale::position(j, oy, *fy);
                        std::array::from_fn(|c| avs.sample(&src, c, (x, y), (bx, by)))
                    }
                    None => {
                        let x = (ox + i).min(ox + self.source.size.0 - 1);
                        let y = (oy + j).min(oy + self.source.size.1 - 1);
                        px[y * w + x]
                    }
                };
                self.csc.map_or(p, |c| c.apply(p))
            })
            .collect();
        let (ow, oh) = self.output.size;
        let mut out = vec![self.fill.unwrap_or([0; 3]); ow * oh];
        let placed = self.placed();
        for j in 0..sh {
            for i in 0..sw {
                // Clockwise quarter turns of the scaled image.
                let (x, y) = match self.rotation {
                    1 => (sh - 1 - j, i),
                    2 => (sw - 1 - i, sh - 1 - j),
                    3 => (j, sw - 1 - i),
                    _ => (i, j),
                };
                let (x, y) = (placed.at.0 + x, placed.at.1 + y);
                if x < ow && y < oh {
                    out[y * ow + x] = scaled[j * sw + i];
                }
            }
        }
        let chroma_size = self.output.format.chroma_size((ow, oh));
        let uv: Vec<[i32; 2]> = out.iter().map(|p| [p[1], p[2]]).collect();
        Picture {
            c0: out.iter().map(|p| p[0]).collect(),
            uv: siting::downsample(&uv, (ow, oh), chroma_size, self.output_siting),
            chroma_size,
            alpha: self.alpha,
        }
    }
}

#[cfg(test)]
mod tests;
