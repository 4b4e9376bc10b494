//! VEB_DI_IECP: one frame through the VEBOX.
//!
//! The frame at Current Frame Input Address (laid out as the input VEBOX_SURFACE_STATE
//! says) goes through the chroma upsampler, the IECP pipe when VEBOX_STATE's Global IECP
//! Enable is set, and the chroma downsampler, and lands at Current Frame Output Address
//! (laid out as the output VEBOX_SURFACE_STATE says), in the columns Starting X to Ending
//! X. VEB_DI_IECP's address fields hold bits 47:12 of the address in a Low (31:12) and a
//! High (15:0) field (media-driver `MHW_VEBOX_DI_IECP_SHIFT` = 12).
//!
//! Deinterlacing (DI Enable) runs on a stream's first frame (`deinterlace`). When
//! SFC_FRAME_START came after SFC_LOCK, the pipe's frame goes on to the SFC (`super::sfc`)
//! at its input subsampling, and lands at Current Frame Output Address as well only
//! when SFC_LOCK's Pre-Scaled Output Surface Output Enable is set.
//!
//! Denoise, motion-adaptive deinterlacing of later frames, gamut, LACE and the capture
//! pipe's units are refused by name (`super::refusal`). The statistics and STMM surfaces
//! are not written: on a first frame the STMM is its maximum everywhere (seed 000
//! §2.8.6) and a later frame, which would read it, is refused; the statistics are the
//! denoise and deinterlace blocks' (§2.8.6), which iHD does not read back for these
//! frames.

use super::super::Hang;
use super::super::cs::CommandStreamer;
use super::super::fields::Fields;
use super::super::front::Front;
use super::chroma::{self, ChromaSampling};
use super::iecp::Pipe;
use super::sfc::Sfc;
use super::surface::{Frame, Layout, invalid};

/// An address from VEB_DI_IECP's Low (31:12) and High (15:0) fields named `name`.
fn address(c: &Fields, name: &str) -> u64 {
    c.u(&format!("{name} High")) << 32 | c.u(name) << 12
}

/// Carries out VEB_DI_IECP `c` at `at`.
pub(super) fn process<F: Front>(
    cs: &mut CommandStreamer<'_, F>,
    c: &Fields,
    at: u64,
) -> Result<(), Hang> {
    const CMD: &str = "VEB_DI_IECP";
    let generation = cs.generation();
    let latched = &cs.ctx.vebox;
    fn fields<'d>(
        generation: &'static gtsim_spec::table::Generation,
        name: &str,
        dw: &'d [u32],
    ) -> Option<Fields<'d>> {
        Some(Fields {
            generation,
            def: generation.def(name)?,
            dw,
        })
    }
    let (Some(state), Some(input)) = (
        latched.vebox_state.as_deref(),
        latched.surfaces[0].as_deref(),
    ) else {
        return Err(super::refusal(cs, c, at));
    };
    let mask = cs.info().address_mask();
    let pre_scaled = latched
        .sfc
        .iter()
        .find(|(n, _)| *n == "SFC_LOCK")
        .and_then(|(_, dw)| fields(generation, "SFC_LOCK", dw))
        .is_some_and(|l| l.flag("Pre Scaled Output Surface Output Enable"));
    let (Some(s), Some(input)) = (
        fields(generation, "VEBOX_STATE", state),
        fields(generation, "VEBOX_SURFACE_STATE", input),
    ) else {
        return Err(super::refusal(cs, c, at));
    };
    for field in [
        "Dn Enable",
        "Color Gamut Expansion Enable",
        "Color Gamut Compression Enable",
        "Lace Correction Enable",
        "Demosaic Enable",
        "Vignette Enable",
        "Hot Pixel Filtering Enable",
        "Forward Gamma Correction Enable",
        "Alpha Plane Enable",
        "Lut3 D Enable",
    ] {
        if s.flag(field) {
            return Err(super::refusal(cs, c, at));
        }
    }
    let sfc = if latched.sfc_started {
        Some(Sfc::decode(generation, &latched.sfc, mask, at)?)
    } else {
        None
    };
    // The output surface's state, needed when the VEBOX writes its own output.
    let to_memory = sfc.is_none() || pre_scaled;
    let output = match latched.surfaces[1].as_deref() {
        Some(dw) => fields(generation, "VEBOX_SURFACE_STATE", dw),
        None if to_memory => return Err(super::refusal(cs, c, at)),
        None => None,
    };
    let sampling = ChromaSampling {
        up: (!s.flag("Bypass Chroma Upsampling")).then(|| {
            (
                s.u("Chroma Upsampling Co Sited Horizontal Offset") as u32,
                s.u("Chroma Upsampling Co Sited Vertical Offset") as u32,
            )
        }),
        down: (!s.flag("Bypass Chroma Downsampling")).then(|| {
            (
                s.u("Chroma Downsampling Co Sited Horizontal Offset") as u32,
                s.u("Chroma Downsampling Co Sited Vertical Offset") as u32,
            )
        }),
    };
    let iecp_at = s.u("Iecp State Pointer High") << 32 | s.u("Iecp State Pointer Low") << 12;
    let global_iecp = s.flag("Global Iecp Enable");
    let deinterlace = if s.flag("Di Enable") {
        Some(super::deinterlace::Di::read(cs, &s, at)?)
    } else {
        None
    };
    let input = Layout::decode(&input, at)?;
    let output = match &output {
        Some(o) if to_memory => Some(Layout::decode(o, at)?),
        _ => None,
    };
    if let Some(output) = &output
        && (input.width, input.height) != (output.width, output.height)
    {
        return Err(invalid(
            CMD,
            at,
            format!(
                "the output surface is {}x{} and the input {}x{}: only the SFC scales",
                output.width, output.height, input.width, input.height
            ),
        ));
    }
    let (from, to) = (
        address(c, "Current Frame Input Address"),
        address(c, "Current Frame Output Address"),
    );
    let (start, end) = (c.u("Starting X") as usize, c.u("Ending X") as usize);
    let width = input.width as usize;
    if start > end || start >= width {
        return Err(invalid(
            CMD,
            at,
            format!("columns {start}..={end} of a {width}-pixel-wide frame"),
        ));
    }
    let columns = start..(end + 1).min(width);
    if sfc.is_some() && columns != (0..width) {
        return Err(super::super::cs::unsupported(
            CMD,
            at,
            format!(
                "columns {start}..={end} of a {width}-pixel-wide frame sent to the SFC (the model sends whole frames)"
            ),
            super::REFERENCE,
        ));
    }
    let sfc_pixels = sfc.as_ref().map_or(0, Sfc::pixels);
    cs.watchdog
        .pixels(columns.len() as u64 * u64::from(input.height) + sfc_pixels)
        .map_err(|error| Hang::Command {
            command: CMD,
            addr: at,
            error: Box::new(error),
        })?;
    let pipe = if global_iecp {
        Pipe::read(generation, &*cs.mem, iecp_at & mask, at)?
    } else {
        Pipe::default()
    };
    let mut frame = input.read(&*cs.mem, from & mask, CMD, at)?;
    if let Some(di) = &deinterlace {
        frame = di.first_frame(&frame, at)?;
    }
    let (y, full) = through_pipe(&frame, &pipe, sampling);
    let (w, h) = (frame.width, frame.height);
    let subsampled = |chroma_size: (usize, usize)| Frame {
        width: w,
        height: h,
        y: y.clone(),
        uv: chroma::downsample(&full, (w, h), chroma_size, sampling.down),
        chroma_size,
    };
    if let Some(output) = &output {
        let result = subsampled(output.chroma_size());
        output.write(&mut *cs.mem, to & mask, &result, columns, CMD, at)?;
    }
    match sfc {
        Some(sfc) => sfc.run(&subsampled(sfc.input_chroma_size()), &mut *cs.mem, at),
        None => Ok(()),
    }
}

/// The frame through the chroma upsampler and `pipe`: its luma and 4:4:4 chroma.
fn through_pipe(frame: &Frame, pipe: &Pipe, sampling: ChromaSampling) -> (Vec<i32>, Vec<[i32; 2]>) {
    let (w, h) = (frame.width, frame.height);
    let mut uv = chroma::upsample(&frame.uv, frame.chroma_size, (w, h), sampling.up);
    let mut y = frame.y.clone();
    if !pipe.is_identity() {
        for (luma, c) in y.iter_mut().zip(uv.iter_mut()) {
            let [ly, u, v] = pipe.apply([*luma, c[0], c[1]]);
            *luma = ly;
            *c = [u, v];
        }
    }
    (y, uv)
}
