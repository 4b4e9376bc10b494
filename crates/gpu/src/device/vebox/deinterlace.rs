//! The VEBOX's deinterlacer on a stream's first frame.
//!
//! VEBOX_STATE DI Enable with DN/DI First Frame set (media-driver
//! `mhw_vebox_hwcmd_g11_X.h` VEBOX_STATE_CMD DW1; iHD sets it for bob deinterlacing and
//! for the first frame of motion-adaptive deinterlacing) and DI Output Frames "output
//! current frame only": the current frame's first field, the one VEBOX_DNDI_STATE's
//! DN/DI Top First names (seed 003 L22634-23140, DW38 bit 3), deinterlaced. Seed 000's
//! deinterlacer defines the first frame (§2.8.4, §2.8.6: "Only the 1st field of the
//! current frame is deinterlaced", by the spatial deinterlacer), and the Gen7 media
//! sampler runs the same algorithm (`gtsim_sampler::media::dndi::deinterlace`, with its
//! readings: the 90-degree default direction, chroma made 4:2:2 from the kept field's
//! own 4:2:0 rows). The output is 4:2:2, which is what iHD then tells the SFC it sends
//! (SFC_STATE's SFC Input Chroma Sub-Sampling 4:2:2 for a deinterlaced frame).
//!
//! A later frame (motion-adaptive: the previous frame, the STMM surfaces) and the other
//! output choices are refused by name: the STMM and statistics surfaces' layouts on the
//! VEBOX are in neither seed.

use super::super::Hang;
use super::super::cs::{CommandStreamer, unsupported};
use super::super::fields::Fields;
use super::super::front::Front;
use super::surface::Frame;
use gtsim_sampler::media::dndi::deinterlace;
use gtsim_sampler::media::dndi::denoise::Luma;

/// Where the first frame's deinterlacing is defined.
const REFERENCE: &str = "seed 000 §2.8.4, §2.8.6; seed 003 VEBOX_DNDI_STATE DW38";

/// The deinterlacer as VEBOX_STATE and VEBOX_DNDI_STATE set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Di {
    /// DN/DI Top First: the first field is the top one (even lines).
    pub top_first: bool,
}

/// One 8-bit plane of a 12-bit frame, as the deinterlacer reads it.
struct Plane<'a> {
    values: &'a [i32],
    size: (usize, usize),
    /// For a chroma plane of pairs, which of the pair (`values` holds pairs flattened).
    pick: Option<usize>,
}

impl Luma for Plane<'_> {
    fn at(&self, x: i64, y: i64) -> u8 {
        let (w, h) = self.size;
        let x = x.clamp(0, w as i64 - 1) as usize;
        let y = y.clamp(0, h as i64 - 1) as usize;
        let v = match self.pick {
            None => self.values[y * w + x],
            Some(c) => self.values[2 * (y * w + x) + c],
        };
        // The 8 MSBs of the pipe's 12 bits.
        (v.clamp(0, 4095) >> 4) as u8
    }
}

impl Di {
    /// The deinterlacer of VEBOX_STATE `s`, refusing what is not modelled.
    pub(super) fn read<F: Front>(
        cs: &CommandStreamer<'_, F>,
        s: &Fields,
        at: u64,
    ) -> Result<Di, Hang> {
        const CMD: &str = "VEB_DI_IECP";
        if !s.flag("Dn Di First Frame") {
            return Err(unsupported(
                CMD,
                at,
                "motion-adaptive deinterlacing of a frame after the first (DN/DI First Frame \
                 clear): the VEBOX's STMM and previous-frame inputs, whose layouts neither \
                 seed gives",
                REFERENCE,
            ));
        }
        if s.u("Di Output Frames") != 2 {
            return Err(unsupported(
                CMD,
                at,
                format!(
                    "DI Output Frames {} (the previous frame's output: the first frame has \
                     no previous frame; the model outputs the current frame only)",
                    s.u("Di Output Frames")
                ),
                REFERENCE,
            ));
        }
        let generation = cs.generation();
        let Some(def) = generation.def("VEBOX_DNDI_STATE") else {
            return Err(unsupported(
                CMD,
                at,
                "VEBOX_DNDI_STATE has no definition",
                REFERENCE,
            ));
        };
        let addr = (s.u("Dn Di State Pointer High") << 32 | s.u("Dn Di State Pointer Low") << 12)
            & cs.info().address_mask();
        let dw = super::read_state(&*cs.mem, addr, def.dwords as usize, at)?;
        let d = Fields {
            generation,
            def,
            dw: &dw,
        };
        Ok(Di {
            top_first: d.flag("DN/DI Top First"),
        })
    }

    /// The first field of `frame` (4:2:0) deinterlaced: luma and 4:2:2 chroma.
    pub(super) fn first_frame(&self, frame: &Frame, at: u64) -> Result<Frame, Hang> {
        let (w, h) = (frame.width, frame.height);
        let (cw, ch) = frame.chroma_size;
        if ch >= h && h > 1 {
            return Err(unsupported(
                "VEB_DI_IECP",
                at,
                "deinterlacing a 4:2:2 frame (the model deinterlaces 4:2:0, NV12)",
                REFERENCE,
            ));
        }
        let parity = deinterlace::first_field_parity(self.top_first);
        let luma = Plane {
            values: &frame.y,
            size: (w, h),
            pick: None,
        };
        let flat: Vec<i32> = frame.uv.iter().flatten().copied().collect();
        let u = Plane {
            values: &flat,
            size: (cw, ch),
            pick: Some(0),
        };
        let v = Plane {
            values: &flat,
            size: (cw, ch),
            pick: Some(1),
        };
        let (hi, wi) = (h as i64, w as i64);
        let y: Vec<i32> = (0..hi)
            .flat_map(|y| (0..wi).map(move |x| (x, y)))
            .map(|(x, y)| i32::from(deinterlace::luma(&luma, x, y, parity, hi)) << 4)
            .collect();
        let uv: Vec<[i32; 2]> = (0..hi)
            .flat_map(|y| (0..cw as i64).map(move |x| (x, y)))
            .map(|(x, y)| {
                [&u, &v].map(|p| i32::from(deinterlace::chroma(p, x, y, parity, hi)) << 4)
            })
            .collect();
        Ok(Frame {
            width: w,
            height: h,
            y,
            uv,
            chroma_size: (cw, h),
        })
    }
}
