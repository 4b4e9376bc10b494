//! Gen11's video enhancement ring (VECS): the VEBOX and SFC commands (its MI_FLUSH_DWs
//! are the blitter's, `blt::flush_dw`).
//!
//! What Intel's iHD driver sends for one frame of video post-processing (media-driver
//! `VPHAL_VEBOX_STATE::VeboxRenderVeboxCmd`): VEBOX_STATE (the DN/DI, IECP, gamut, vertex
//! table and capture pipe states in the VEBOX heap), VEBOX_SURFACE_STATE for the input
//! and for the output, and when the frame is scaled or converted the SFC's SFC_LOCK,
//! SFC_STATE, SFC_AVS_STATE, coefficient tables, SFC_IEF_STATE and SFC_FRAME_START; then
//! VEB_DI_IECP, which processes the frame; then MI_FLUSH_DWs that write the driver's
//! status tags. The commands' layouts are in `defs/gen11/media_driver_vebox.spec`, the
//! heap states' in seed 003 (`seed003_hand_vebox.spec`, `seed003_media.spec`).
//!
//! The state commands are latched here, per context, and checked; VEB_DI_IECP runs the
//! frame (`frame`): its surfaces (`surface`), a first frame's deinterlacing
//! (`deinterlace`), the chroma up- and downsampler (`chroma`), the IECP pipe's ProcAmp
//! (`iecp`) and the SFC (`sfc`: scaling, colour conversion, rotation, colour fill and
//! the output formats). What it does not model (denoise, motion-adaptive deinterlacing
//! of later frames, the IECP's other units, gamut, the SFC's image enhancement filter)
//! is refused by name, with what the frame was asked to do.

mod chroma;
mod deinterlace;
mod frame;
mod iecp;
mod sfc;
mod surface;

use super::Hang;
use super::cs::{CommandStreamer, unsupported};
use super::fields::Fields;
use super::front::Front;
use gtsim_spec::table::{Def, Ty};

/// The VEBOX and SFC commands a context latched, each as its dwords.
#[derive(Debug, Clone, Default)]
pub struct Latched {
    /// VEBOX_STATE.
    pub vebox_state: Option<Vec<u32>>,
    /// VEBOX_SURFACE_STATE by Surface Identification: 0 the input (and denoised
    /// output), 1 the output.
    pub surfaces: [Option<Vec<u32>>; 2],
    /// The SFC commands since SFC_LOCK, by name.
    pub sfc: Vec<(&'static str, Vec<u32>)>,
    /// SFC_FRAME_START came after SFC_LOCK: the next VEB_DI_IECP sends its output
    /// through the SFC.
    pub sfc_started: bool,
}

/// Whether `name` is a VEBOX or SFC command (the video enhancement ring's own).
pub(super) fn is_vebox_command(name: &str) -> bool {
    name.starts_with("VEBOX_") || name.starts_with("VEB_") || name.starts_with("SFC_")
}

/// The seed sections and public sources that define what VEB_DI_IECP does.
const REFERENCE: &str = "seed 003 VEBOX_DNDI_STATE, VEBOX_IECP_STATE, SFC_STATE_BODY; media-driver mhw_vebox_hwcmd_g11_X.h VEB_DI_IECP";

/// Carries out the VEBOX or SFC command `def` at `at`.
pub(super) fn execute<F: Front>(
    cs: &mut CommandStreamer<'_, F>,
    def: &'static Def,
    at: u64,
    dw: &[u32],
) -> Result<(), Hang> {
    let c = Fields::of(cs.generation(), def, dw, at)?;
    let latched = &mut cs.ctx.vebox;
    match def.name {
        "VEBOX_STATE" => latched.vebox_state = Some(dw.to_vec()),
        "VEBOX_SURFACE_STATE" => {
            let id = c.u("Surface Identification") as usize;
            latched.surfaces[id.min(1)] = Some(dw.to_vec());
        }
        "SFC_LOCK" => {
            latched.sfc = vec![(def.name, dw.to_vec())];
            latched.sfc_started = false;
        }
        "SFC_FRAME_START" => {
            if latched.sfc.first().is_none_or(|(n, _)| *n != "SFC_LOCK")
                || !latched.sfc.iter().any(|(n, _)| *n == "SFC_STATE")
            {
                return Err(unsupported(
                    def.name,
                    at,
                    "SFC_FRAME_START without SFC_LOCK and SFC_STATE before it",
                    "media-driver vphal_render_sfc_base.cpp SendSfcCmd (the SFC command order)",
                ));
            }
            latched.sfc_started = true;
        }
        n if n.starts_with("SFC_") => {
            latched.sfc.retain(|(m, _)| *m != n);
            latched.sfc.push((def.name, dw.to_vec()));
        }
        "VEB_DI_IECP" => frame::process(cs, &c, at)?,
        _ => {
            return Err(unsupported(
                def.name,
                at,
                "this VEBOX command (iHD does not send it on Gen11)",
                "media-driver mhw_vebox_generic.h AddVeboxTilingConvert",
            ));
        }
    }
    Ok(())
}

/// The `dwords` dwords of a VEBOX heap state at `addr`, read for VEB_DI_IECP at `at`.
pub(super) fn read_state(
    mem: &dyn gtsim_mem::memory::Memory,
    addr: u64,
    dwords: usize,
    at: u64,
) -> Result<Vec<u32>, Hang> {
    mem.read_dwords(addr, dwords).map_err(|fault| Hang::Fault {
        command: "VEB_DI_IECP",
        addr: at,
        fault,
    })
}

/// The name of enumerated field `name` of `c`'s value, or its number.
fn named(c: &Fields, name: &str) -> String {
    let v = c.u(name);
    match c.def.field(name).map(|f| f.ty) {
        Some(Ty::Enum(e)) => e.name_of(v).map_or(v.to_string(), str::to_string),
        _ => v.to_string(),
    }
}

/// VEB_DI_IECP refused: what the frame's processing would be, by name (see the module
/// docs); a frame without its VEBOX_STATE or surface states is refused as such.
fn refusal<F: Front>(cs: &CommandStreamer<'_, F>, c: &Fields, at: u64) -> Hang {
    let latched = &cs.ctx.vebox;
    let generation = cs.generation();
    let Some(state) = &latched.vebox_state else {
        return unsupported(
            "VEB_DI_IECP",
            at,
            "VEB_DI_IECP without a VEBOX_STATE before it in the context",
            REFERENCE,
        );
    };
    let surface = |i: usize| -> Option<String> {
        let dw = latched.surfaces[i].as_ref()?;
        let def = generation.def("VEBOX_SURFACE_STATE")?;
        let s = Fields {
            generation,
            def,
            dw,
        };
        Some(format!(
            "{}x{} {}",
            s.u("Width") + 1,
            s.u("Height") + 1,
            named(&s, "Surface Format")
        ))
    };
    let Some(input) = surface(0) else {
        return unsupported(
            "VEB_DI_IECP",
            at,
            "VEB_DI_IECP without an input VEBOX_SURFACE_STATE",
            REFERENCE,
        );
    };
    let mut what = vec![];
    if let Some(def) = generation.def("VEBOX_STATE") {
        let s = Fields {
            generation,
            def,
            dw: state,
        };
        for (field, name) in [
            ("Dn Enable", "denoise"),
            ("Di Enable", "deinterlace"),
            ("Global Iecp Enable", "the IECP colour pipe"),
            ("Color Gamut Expansion Enable", "gamut expansion"),
            ("Color Gamut Compression Enable", "gamut compression"),
            ("Lace Correction Enable", "LACE"),
            ("Demosaic Enable", "demosaicing"),
            ("Vignette Enable", "vignette correction"),
            ("Hot Pixel Filtering Enable", "hot pixel filtering"),
            (
                "Forward Gamma Correction Enable",
                "forward gamma correction",
            ),
            ("Alpha Plane Enable", "the alpha plane"),
            ("Lut3 D Enable", "the 3D LUT"),
        ] {
            if s.flag(field) {
                what.push(name.to_string());
            }
        }
    }
    if latched.sfc_started
        && let Some((_, dw)) = latched.sfc.iter().find(|(n, _)| *n == "SFC_STATE")
        && let Some(def) = generation.def("SFC_STATE")
    {
        let s = Fields {
            generation,
            def,
            dw,
        };
        what.push(format!(
            "the SFC's scaling to {}x{} (output format {})",
            s.u("Scaled Region Size Width") + 1,
            s.u("Scaled Region Size Height") + 1,
            named(&s, "Output Surface Format Type")
        ));
    }
    let output = surface(1).map_or(String::new(), |o| format!(" into a {o} output"));
    let columns = format!("columns {}..={}", c.u("Starting X"), c.u("Ending X"));
    unsupported(
        "VEB_DI_IECP",
        at,
        format!(
            "VEBOX processing (its pipes and the SFC) of a {input} frame ({columns}){output}{}",
            if what.is_empty() {
                String::new()
            } else {
                format!(" with {}", what.join(", "))
            }
        ),
        REFERENCE,
    )
}
