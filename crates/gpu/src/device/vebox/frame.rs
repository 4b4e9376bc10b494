//! VEB_DI_IECP: one frame through the VEBOX.
//!
//! The frame at Current Frame Input Address (laid out as the input VEBOX_SURFACE_STATE
//! says) goes through the chroma upsampler, the IECP pipe when VEBOX_STATE's Global IECP
//! Enable is set, and the chroma downsampler, and lands at Current Frame Output Address
//! (laid out as the output VEBOX_SURFACE_STATE says), in the columns Starting X to Ending
//! X. VEB_DI_IECP's address fields hold bits 47:12 of the address in a Low (31:12) and a
//! High (15:0) field (media-driver `MHW_VEBOX_DI_IECP_SHIFT` = 12).
//!
//! Denoise, deinterlace, gamut, LACE, the capture pipe's units and the SFC are refused
//! by name (`super::refusal`). The statistics surface is not written: its contents on
//! Gen7 (seed 000 §2.8.6) are the denoise and deinterlace blocks' statistics, and with
//! both off, and ACE off (its histogram), nothing the model runs produces any.

use super::super::Hang;
use super::super::cs::CommandStreamer;
use super::super::fields::Fields;
use super::super::front::Front;
use super::chroma::{self, ChromaSampling};
use super::iecp::Pipe;
use super::surface::{Layout, invalid};

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
    let (Some(state), Some(input), Some(output)) = (
        latched.vebox_state.as_deref(),
        latched.surfaces[0].as_deref(),
        latched.surfaces[1].as_deref(),
    ) else {
        return Err(super::refusal(cs, c, at));
    };
    if latched.sfc_started {
        return Err(super::refusal(cs, c, at));
    }
    let (Some(s), Some(input), Some(output)) = (
        fields(generation, "VEBOX_STATE", state),
        fields(generation, "VEBOX_SURFACE_STATE", input),
        fields(generation, "VEBOX_SURFACE_STATE", output),
    ) else {
        return Err(super::refusal(cs, c, at));
    };
    for field in [
        "Dn Enable",
        "Di Enable",
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
    let (input, output) = (Layout::decode(&input, at)?, Layout::decode(&output, at)?);
    if (input.width, input.height) != (output.width, output.height) {
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
    cs.watchdog
        .pixels(columns.len() as u64 * u64::from(input.height))
        .map_err(|error| Hang::Command {
            command: CMD,
            addr: at,
            error: Box::new(error),
        })?;
    let mask = cs.info().address_mask();
    let pipe = if global_iecp {
        Pipe::read(generation, &*cs.mem, iecp_at & mask, at)?
    } else {
        Pipe::default()
    };
    let frame = input.read(&*cs.mem, from & mask, CMD, at)?;
    let result = run(&frame, &pipe, sampling, &output);
    output.write(&mut *cs.mem, to & mask, &result, columns, CMD, at)
}

/// The frame `frame` through the chroma upsampler, `pipe` and the downsampler, at the
/// output layout's chroma resolution.
pub fn run(
    frame: &super::surface::Frame,
    pipe: &Pipe,
    sampling: ChromaSampling,
    output: &Layout,
) -> super::surface::Frame {
    let (w, h) = (frame.width, frame.height);
    let full = chroma::upsample(&frame.uv, frame.chroma_size, (w, h), sampling.up);
    let mut y = frame.y.clone();
    let mut uv = full;
    if !pipe.is_identity() {
        for (luma, c) in y.iter_mut().zip(uv.iter_mut()) {
            let [ly, u, v] = pipe.apply([*luma, c[0], c[1]]);
            *luma = ly;
            *c = [u, v];
        }
    }
    let chroma_size = match output.format {
        super::surface::Format::Nv12 => (w.div_ceil(2), h.div_ceil(2)),
        super::surface::Format::Yuy2 => (w.div_ceil(2), h),
    };
    super::surface::Frame {
        width: w,
        height: h,
        y,
        uv: chroma::downsample(&uv, (w, h), chroma_size, sampling.down),
        chroma_size,
    }
}
