//! The sampling engine's message interface (seed 000 §2.13): what a thread's `send` to the
//! sampler (SFID 2) does, from the 32-bit message descriptor and the message registers to
//! the writeback registers.
//!
//! [`handle`] decodes the descriptor (§2.13.1.1) and the optional header (§2.13.1.2),
//! reads the per-channel parameters from the SIMD8 or SIMD16 payload (§2.13.1.6,
//! §2.13.1.7) in the order the §2.13.1.3.1 table gives for the message type, runs the
//! message on each enabled channel, and lays the results out as the §2.13.2.1 / §2.13.2.2
//! writeback.
//!
//! ## Modelled
//!
//! * SIMD8 and SIMD16 forms of `sample` (LOD from the 2x2 subspan differences of the
//!   coordinates), `sample_b`, `sample_l`, `ld` and `resinfo`, and the SIMD8-only
//!   `sample+killpix` (its pixel mask clears the pixels a chroma key killed).
//! * The shadow compare forms `sample_c`, `sample_b_c`, `sample_l_c` (§2.4: each texel's
//!   red compared with the reference by SAMPLER_STATE Shadow Function before filtering);
//!   `sample_d` and `sample_d_c` (the LOD from the message's gradients, per channel; no
//!   SIMD16 form; on a cube, face coordinates with the face id in r); `LOD` (the subspan's clamped and unclamped LOD); `gather4`,
//!   `gather4_c`, `gather4_po`, `gather4_po_c` on 2D and cube surfaces (the bilinear
//!   footprint unfiltered, the header's source channel, per-channel 6-bit offsets).
//! * The multisampled-surface messages `ld2dms`, `ld2dss`, `ld_mcs` and `sampleinfo`
//!   (§2.7, `message/multisample.rs`): sample slices through the MCS value, the MCS clear value,
//!   interleaved (MSFMT_DEPTH_STENCIL) samples.
//! * MAPFILTER_ANISOTROPIC on 2D surfaces (§2.2.2.3): the LOD from the footprint's minor
//!   axis, bilinear subpixels one texel apart along its major axis, the endpoints
//!   weighted by how far the ratio is from the number of ways (a weight the seed leaves
//!   open; see `Texture::sample_anisotropic`); Maximum Anisotropy caps the ratio.
//! * SIMD4x2 (the vertex-shader-style threads of the VS, GS, HS and DS, §2.13.1.9):
//!   `sample_l`, `sample_l_c`, `sample_c` with Force LOD to Zero, `sample_d`,
//!   `sample_d_c`, `gather4*`, `ld`, `ld_mcs`, `ld2dms`, `resinfo` and `sampleinfo`, with
//!   the SIMD4x2 parameter order of the §2.13.1.3.1 table (coordinates first) and the
//!   one-register writeback of §2.13.2.3, which writes only the active samples'
//!   unmasked channels (`Response::written`).
//! * SURFTYPE_1D, SURFTYPE_2D (both with arrays), SURFTYPE_3D and SURFTYPE_CUBE (cube
//!   arrays included; face selection, TEXCOORDMODE_CUBE edge and corner crossing, the
//!   Cube Surface Control Mode override) for the sample messages; additionally
//!   SURFTYPE_BUFFER for `ld`; every surface type for `resinfo`; SURFTYPE_NULL returns
//!   zeros.
//! * SAMPLER_STATE min/mag MAPFILTER_NEAREST/LINEAR/ANISOTROPIC (3D: trilinear within a
//!   level), mip filter NONE/NEAREST/LINEAR with the trilinear quality thresholds, every
//!   TEXCOORDMODE, the border colour with the format's missing channels and Texture
//!   Border Color Mode, LOD bias/pre-clamp/min/max, Base Mip Level, non-normalized
//!   coordinates, Sampler Disable and chroma keying (§2.3.1, [`crate::chroma`]);
//!   SURFACE_STATE MIP Count, Surface Min LOD, Resource Min LOD and Minimum Array
//!   Element; the header's write channel masks, texel offsets and Force LOD to Zero.
//! * The SIMD32/64 (media sampler) messages are [`crate::media`]'s.
//! * Formats: everything `gtsim_mem` decodes; sRGB formats are linearized by the texel
//!   decoder before filtering (§2.6). Float results are returned as IEEE bits, UINT/SINT
//!   surfaces as integer bits (§2.13.2.1 "Format depends on the Data Return Format").
//!
//! ## Not modelled (each an `Err` naming the seed section)
//!
//! What [`crate::media`] lists for the SIMD32/64 (media sampler) messages;
//! MAPFILTER_MONO; chroma keying of SNORM, YCrCb, sRGB and wider-than-8-bit formats. Guest mistakes the
//! seed forbids are typed errors: LINEAR filtering or a border colour on UINT/SINT
//! surfaces, `ld` of a cube, sample messages on multisampled surfaces.
//! `sample_lz`, `sample_c_lz` and `ld_lz` are later-generation message types
//! (the Ivy Bridge spec file messages.spec), so Gen7 has none to model.
//!
//! ## Execution mask
//!
//! Seed §2.13.1 "Execution Mask": results for disabled channels "are not overwritten in the
//! GRF". The returned registers hold 0 for those channels; the caller writes back only the
//! enabled channels. Disabled channels are never sampled, so garbage in their coordinates
//! cannot fault; their coordinates still feed the subspan's LOD (the upper-left,
//! upper-right and lower-left pixels are "assumed valid regardless of the execution
//! mask").

use crate::address::{self, COORD_LIMIT, Resolved, TexCoordMode};
use crate::filter::{MapFilter, lerp4};
use crate::lod::{LodInput, LodResult, LodState, MipLevels, compute_lod, ideal_lod};
use crate::media::avs::AvsConfig;
use crate::media::surface::MediaSurfaceView;
use crate::state::{
    SamplerConfig, SamplerHeader, SamplerMessage, SamplerOp, SamplerSimd, SurfaceKind, SurfaceView,
};
use gtsim_mem::Memory;
use gtsim_mem::format::bc::{BlockFormat, decode_block};
use gtsim_mem::format::texel::{self, Texel};
use gtsim_mem::surface::{Surface, SurfaceError};
use gtsim_message::{MessageError, Response, invalid};
use gtsim_spec::Unsupported;
use multisample::Access;

mod multisample;
use gtsim_spec::shared::SurfaceFormat;

/// What a sampler message needs from the outside world, decoded by the generation's
/// front.
pub trait SamplerResources {
    /// The surface at binding table index `bti`, shared: a front keeps the views it
    /// decoded for the draw's later messages, and a message only reads it.
    fn surface(&self, bti: u8) -> Result<std::sync::Arc<SurfaceView>, MessageError>;
    /// The sampler state at sampler index `index`, with its border colour.
    fn sampler(&self, index: u8) -> Result<SamplerConfig, MessageError>;
    /// Graphics memory, for texels.
    fn memory(&self) -> &dyn gtsim_mem::Memory;
    /// The media surface (MEDIA_SURFACE_STATE, seed 000 §2.12.2.2) at binding table
    /// index `bti`, for the media sampler's messages.
    fn media_surface(&self, bti: u8) -> Result<MediaSurfaceView, MessageError> {
        let _ = bti;
        Err(Unsupported::new("media surfaces on this front", "seed 000 §2.12.2.2").into())
    }
    /// The deinterlace message's DEINTERLACE_SAMPLER_STATE for Sampler Index `index`
    /// (seed 000 §2.12.3.3).
    fn dndi(&self, index: u8) -> Result<crate::media::dndi::DndiConfig, MessageError> {
        let _ = index;
        Err(Unsupported::new(
            "deinterlace sampler state on this front",
            "seed 000 §2.12.3.3",
        )
        .into())
    }
    /// The deinterlace message's statistics surface (the STMM and the denoise history,
    /// seed 000 §2.8.6.2) at binding table index `bti`, as bytes. By default the
    /// MEDIA_SURFACE_STATE of format STMM_DN_STATISTICS the seed names.
    fn statistics(&self, bti: u8) -> Result<crate::media::surface::Channel, MessageError> {
        self.media_surface(bti)?.statistics()
    }
    /// The sample_8x8 sampler state at `index` with its SAMPLER_8x8_STATE (seed 000
    /// §2.12.3.2, §2.12.4).
    fn avs(&self, index: u8) -> Result<AvsConfig, MessageError> {
        let _ = index;
        Err(Unsupported::new("sample_8x8 sampler state on this front", "seed 000 §2.12.4").into())
    }
}

/// The largest message length the sampler accepts (seed 000 §2.13.1.3.1: "The maximum
/// message length allowed to the sampler is 11").
pub const MAX_MESSAGE_LENGTH: usize = 11;

/// Executes one sampler message, decoded by the generation's front: `payload` holds
/// the message registers (32 bytes each, header first if the message has one),
/// `channel_mask` the enabled execution channels (bit per channel). Returns
/// `response_length` registers.
///
/// End of Thread, which the sampler does not allow (seed 000 §2.13 Restrictions), is the
/// caller's to check. Every malformed message, payload or state is an `Err` naming the
/// message; nothing panics.
pub fn handle(
    msg: &SamplerMessage,
    payload: &[[u8; 32]],
    channel_mask: u32,
    res: &dyn SamplerResources,
) -> Result<Response, MessageError> {
    run(msg, payload, channel_mask, res).map_err(|e| {
        if msg.name.is_empty() {
            e
        } else {
            e.context(msg.name.clone())
        }
    })
}

/// Seed 000 §2.13.1.3.1 (SIMD8 and SIMD16 table) and §2.13.1.4.
/// The message types this model executes; the others are errors.
fn kind(op: SamplerOp) -> Result<SamplerOp, MessageError> {
    match op {
        SamplerOp::Sample
        | SamplerOp::SampleB
        | SamplerOp::SampleL
        | SamplerOp::SampleKillpix
        | SamplerOp::SampleC
        | SamplerOp::SampleBC
        | SamplerOp::SampleLC
        | SamplerOp::SampleD
        | SamplerOp::SampleDC
        | SamplerOp::Lod
        | SamplerOp::Gather4
        | SamplerOp::Gather4C
        | SamplerOp::Gather4Po
        | SamplerOp::Gather4PoC
        | SamplerOp::Ld
        | SamplerOp::Resinfo
        | SamplerOp::Sampleinfo
        | SamplerOp::LdMcs
        | SamplerOp::Ld2dms
        | SamplerOp::Ld2dmsW
        | SamplerOp::Ld2dss => Ok(op),
        SamplerOp::Invalid(v) => Err(invalid(format!(
            "message type {v:#07b} is not a Gen7 SIMD8/SIMD16 sampler message (seed 000 \
             §2.13.1.3.1; sample_lz, sample_c_lz, ld_lz, ld2dms_w, sample_min and sample_max \
             belong to later generations)"
        ))),
        SamplerOp::Sample8x8 { .. }
        | SamplerOp::SampleUnorm { .. }
        | SamplerOp::SampleUnormKillpix { .. }
        | SamplerOp::Deinterlace
        | SamplerOp::CacheFlush => Err(invalid(format!(
            "{op:?} is a SIMD32/64 message only (seed 000 §2.13.1.3.1)"
        ))),
    }
}

/// How parameters lie in the message registers.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// §2.13.1.7: one register per parameter, a dword per channel.
    Simd8,
    /// §2.13.1.6: two registers per parameter of 8 channels each.
    Simd16,
    /// §2.13.1.9: four parameters per register, sample 0's in dwords 0-3 and sample 1's
    /// in dwords 4-7. `order[p]` is where the SIMD8 table's parameter `p` is in the
    /// SIMD4x2 table (§2.13.1.3.1 puts the coordinates first there).
    Simd4x2 { order: &'static [usize] },
}

/// The message registers after the header, as parameters per channel, addressed by the
/// parameter's position in the SIMD8/SIMD16 table whatever the layout.
struct Params<'a> {
    regs: &'a [[u8; 32]],
    layout: Layout,
    /// Parameters sent.
    count: usize,
}

impl Params<'_> {
    /// The raw dword of parameter `p` for channel `lane`; parameters not sent read 0
    /// (seed 000 §2.13.1.3.1: "Higher-numbered parameters are optional, and default to a
    /// value of 0 if not sent").
    fn raw(&self, p: usize, lane: usize) -> u32 {
        let (reg, dword, sent) = match self.layout {
            Layout::Simd8 => (p, lane % 8, p),
            Layout::Simd16 => (2 * p + lane / 8, lane % 8, p),
            Layout::Simd4x2 { order } => {
                let Some(&at) = order.get(p) else {
                    return 0;
                };
                (at / 4, 4 * (lane % 2) + at % 4, at)
            }
        };
        if sent >= self.count {
            return 0;
        }
        let reg = &self.regs[reg];
        let i = 4 * dword;
        u32::from_le_bytes([reg[i], reg[i + 1], reg[i + 2], reg[i + 3]])
    }

    /// Parameter `p` of every channel as S31 (SIMD8 and SIMD16 layouts only; `None` for
    /// SIMD4x2), 0 where not sent: one pass over its registers.
    fn column(&self, p: usize) -> Option<[i32; 16]> {
        let regs = match self.layout {
            Layout::Simd8 => 1,
            Layout::Simd16 => 2,
            Layout::Simd4x2 { .. } => return None,
        };
        let mut c = [0i32; 16];
        if p < self.count {
            for (r, reg) in self.regs.iter().skip(regs * p).take(regs).enumerate() {
                for (d, dw) in reg.chunks_exact(4).enumerate() {
                    c[8 * r + d] = i32::from_le_bytes([dw[0], dw[1], dw[2], dw[3]]);
                }
            }
        }
        Some(c)
    }

    /// IEEE float parameter (sample* messages).
    fn f(&self, p: usize, lane: usize) -> f32 {
        f32::from_bits(self.raw(p, lane))
    }

    /// S31 parameter (ld; seed 000 §2.13.1.5 "Ld* messages": 32-bit signed integers).
    fn i(&self, p: usize, lane: usize) -> i32 {
        self.raw(p, lane) as i32
    }
}

fn run(
    d: &SamplerMessage,
    payload: &[[u8; 32]],
    channel_mask: u32,
    res: &dyn SamplerResources,
) -> Result<Response, MessageError> {
    let lanes = match d.simd {
        SamplerSimd::Simd8 => 8,
        SamplerSimd::Simd16 => 16,
        SamplerSimd::Simd4x2 => 2,
        SamplerSimd::Simd32_64 => return crate::media::run(d, payload, res),
    };
    let kind = kind(d.op)?;
    let force_lod_zero = d.header.is_some_and(|h| h.force_lod_zero);
    if lanes == 2
        && (matches!(
            kind,
            SamplerOp::Sample
                | SamplerOp::SampleB
                | SamplerOp::SampleKillpix
                | SamplerOp::SampleBC
                | SamplerOp::Lod
                | SamplerOp::Ld2dss
        ) || (kind == SamplerOp::SampleC && !force_lod_zero))
    {
        // §2.13.1.4: "sample is not supported in SIMD4x2 mode", nor sample_b ("LOD is not
        // supported in SIMD4x2 mode" either): there are no neighbouring pixels to compute
        // an LOD from. SIMD4x2 sample_c "without Force LOD
        // to Zero ... is not allowed", and the SIMD4x2 table gives it no layout: sample_l_c
        // with LOD 0 is the form Mesa uses (with it, sample_c is allowed). ld2dss has no
        // SIMD4x2 row.
        return Err(invalid(format!(
            "{kind:?} is not supported in SIMD4x2 mode (seed 000 §2.13.1.4; the SIMD4x2 table \
             of §2.13.1.3.1 has sample_l, sample_d, sample_l_c, ld, gather4, resinfo, \
             sampleinfo, ld_mcs, ld2dms, ...; sample_c needs Force LOD to Zero)"
        )));
    }
    if lanes == 16 && matches!(kind, SamplerOp::SampleD | SamplerOp::SampleDC) {
        return Err(invalid(
            "SIMD16 forms of sample_d and sample_d_c are not allowed (seed 000 §2.13.1.3.1)",
        ));
    }
    if kind == SamplerOp::SampleKillpix && lanes != 8 {
        return Err(invalid(
            "sample+killpix is supported only in SIMD8 mode (seed 000 §2.13.1.4)",
        ));
    }

    // Message length: H + N (SIMD8) or H + 2N (SIMD16), at most 11 (§2.13.1.3.1).
    let mlen = d.message_length;
    let h = usize::from(d.header.is_some());
    if mlen > MAX_MESSAGE_LENGTH {
        return Err(invalid(format!(
            "message length {mlen} exceeds the sampler's maximum of {MAX_MESSAGE_LENGTH} \
             (seed 000 §2.13.1.3.1)"
        )));
    }
    if mlen < h.max(1) {
        return Err(invalid(format!(
            "message length {mlen} leaves no room for the header and parameters (seed 000 \
             §2.13.1.3.1)"
        )));
    }
    if payload.len() < mlen {
        return Err(invalid(format!(
            "message length {mlen} but only {} payload registers were sent",
            payload.len()
        )));
    }
    let body = mlen - h;
    if lanes == 16 && !body.is_multiple_of(2) {
        return Err(invalid(format!(
            "SIMD16 message length {mlen} with {h} header register(s) is not H + 2N: every \
             SIMD16 parameter takes two registers (seed 000 §2.13.1.3.1, §2.13.1.6)"
        )));
    }
    // "If the header is not present ... behavior is as if the message was sent with all
    // fields in the header set to zero" (§2.13.1.2).
    let header = d.header.unwrap_or_default();
    let (layout, count) = match lanes {
        16 => (Layout::Simd16, body / 2),
        8 => (Layout::Simd8, body),
        // §2.13.1.3.1: H + N/4, N rounded up to a multiple of 4.
        _ => (
            Layout::Simd4x2 {
                order: simd4x2_order(kind),
            },
            body * 4,
        ),
    };
    let params = Params {
        regs: &payload[h..mlen],
        layout,
        count,
    };
    let masked = header.write_masks;
    if masked.iter().all(|&m| m) {
        return Err(invalid(
            "the header masks all four write channels, which is not allowed (seed 000 \
                    §2.13.1.2 M0.2 15:12)",
        ));
    }
    let enabled = if lanes == 2 {
        // §2.13.1 Execution Mask, SIMD4x2: "The lower 8 bits of the execution mask is
        // interpreted in groups of four": a sample is valid if any bit of its group is.
        u32::from(channel_mask & 0xf != 0) | u32::from(channel_mask & 0xf0 != 0) << 1
    } else {
        channel_mask & ((1u32 << lanes) - 1)
    };

    // Pixels a chroma key killed (§2.3.1.2).
    let mut killed = 0;
    let results = match kind {
        SamplerOp::Sample
        | SamplerOp::SampleB
        | SamplerOp::SampleL
        | SamplerOp::SampleKillpix
        | SamplerOp::SampleC
        | SamplerOp::SampleBC
        | SamplerOp::SampleLC
        | SamplerOp::SampleD
        | SamplerOp::SampleDC
        | SamplerOp::Lod => {
            let (out, k) = sample_message(kind, d, &header, &params, enabled, lanes, res)?;
            killed = k;
            out
        }
        SamplerOp::Gather4 | SamplerOp::Gather4C | SamplerOp::Gather4Po | SamplerOp::Gather4PoC => {
            gather_message(kind, d, &header, &params, enabled, lanes, res)?
        }
        SamplerOp::Ld => ld_message(d, &header, &params, enabled, lanes, res)?,
        SamplerOp::Resinfo => resinfo_message(d, &params, enabled, lanes, res)?,
        SamplerOp::Sampleinfo => multisample::sampleinfo_message(d, enabled, lanes, res)?,
        SamplerOp::LdMcs => multisample::ld_mcs_message(d, &header, &params, enabled, lanes, res)?,
        SamplerOp::Ld2dms | SamplerOp::Ld2dmsW | SamplerOp::Ld2dss => {
            multisample::ld2dms_message(kind, d, &header, &params, enabled, lanes, res)?
        }
        // `kind` refused these above.
        SamplerOp::Invalid(_)
        | SamplerOp::Sample8x8 { .. }
        | SamplerOp::SampleUnorm { .. }
        | SamplerOp::SampleUnormKillpix { .. }
        | SamplerOp::Deinterlace
        | SamplerOp::CacheFlush => {
            return Err(invalid(format!("sampler message type {kind:?}")));
        }
    };
    if lanes == 2 {
        return writeback_simd4x2(&results, masked, enabled, d.response_length);
    }
    let registers = writeback(
        &results,
        masked,
        d.response_length,
        (kind == SamplerOp::SampleKillpix).then_some(killed),
    )?;
    Ok(Response {
        written: Some(written_lanes(registers.len(), lanes, enabled)),
        registers,
    })
}

/// The dwords a SIMD8 or SIMD16 writeback writes in each of its `n` registers: "The
/// pixels written within each destination register is determined by the execution mask
/// on the send instruction" (seed 000 §2.13.2.1, §2.13.2.2), so a disabled channel keeps
/// its destination (Mesa's loop over the distinct values of a non-uniform descriptor
/// index collects each pass's texels in one register). A SIMD16 channel's registers
/// alternate between channels 0-7 and 8-15; `sample+killpix`'s fifth SIMD8 register
/// holds its mask in dword 0 alone (W4.7:1 "not written").
fn written_lanes(n: usize, lanes: usize, enabled: u32) -> Vec<u8> {
    (0..n)
        .map(|r| match (lanes, r) {
            (16, r) => (enabled >> (8 * (r % 2))) as u8,
            (_, 4) => 1,
            _ => enabled as u8,
        })
        .collect()
}

/// Where each parameter of the SIMD8 table lies in the SIMD4x2 table (seed 000
/// §2.13.1.3.1): sample_l is "lod u v r ai" in SIMD8 and "u v r ai lod" in SIMD4x2, ld
/// "u lod v r" and "u v r lod", sample_l_c "ref lod u v r ai" and "u v r ai ref lod";
/// resinfo is "lod" in both.
fn simd4x2_order(kind: SamplerOp) -> &'static [usize] {
    match kind {
        SamplerOp::SampleL => &[4, 0, 1, 2, 3],
        SamplerOp::Gather4 => &[0, 1, 2, 3],
        // "ref lod u v r ai" and "u v r ai ref lod".
        SamplerOp::SampleLC => &[4, 5, 0, 1, 2, 3],
        // "u dudx dudy v dvdx dvdy r drdx drdy ai mlod" and "u v r ai dudx dudy dvdx dvdy
        // drdx drdy mlod".
        SamplerOp::SampleD => &[0, 4, 5, 1, 6, 7, 2, 8, 9, 3, 10],
        // "ref u dudx dudy v dvdx dvdy r drdx drdy ai" and "u v r ai dudx dudy dvdx dvdy
        // drdx drdy ref".
        SamplerOp::SampleDC => &[10, 0, 4, 5, 1, 6, 7, 2, 8, 9, 3],
        // gather4_c "ref u v r ai" and "u v r ai ref"; gather4_po "u v offu offv r" and
        // "u v r ai offu offv"; gather4_po_c "ref u v offu offv r" and "u v r ref offu
        // offv".
        SamplerOp::Gather4C => &[4, 0, 1, 2, 3],
        // sample_c "ref u v r ai": the SIMD4x2 table has no row for it (§2.13.1.4 allows
        // it with Force LOD to Zero); read as gather4_c's and sample_l_c's SIMD4x2 rows
        // order it, coordinates first, "u v r ai ref".
        SamplerOp::SampleC => &[4, 0, 1, 2, 3],
        SamplerOp::Gather4Po => &[0, 1, 4, 5, 2],
        SamplerOp::Gather4PoC => &[3, 0, 1, 4, 5, 2],
        SamplerOp::Ld => &[0, 3, 1, 2],
        other => multisample::simd4x2_order(other).unwrap_or(&[0]),
    }
}

/// The SIMD4x2 writeback (seed 000 §2.13.2.3): one register, sample 0's R, G, B, A in
/// dwords 0-3 and sample 1's in dwords 4-7. "If the sample is inactive (all four
/// execution mask bits deasserted), none of the channels for that sample will be
/// written", and of an active sample only the channels the header does not mask are.
fn writeback_simd4x2(
    results: &[[u32; 4]],
    masked: [bool; 4],
    enabled: u32,
    rlen: usize,
) -> Result<Response, MessageError> {
    if rlen != 1 {
        return Err(invalid(format!(
            "response length {rlen}: a SIMD4x2 writeback is one register (seed 000 \
             §2.13.1.3.1, §2.13.2.3)"
        )));
    }
    let mut reg = [0u8; 32];
    let mut written = 0u8;
    for (s, texel) in results.iter().enumerate().take(2) {
        for c in 0..4 {
            let at = 4 * (4 * s + c);
            reg[at..at + 4].copy_from_slice(&texel[c].to_le_bytes());
            if (enabled >> s) & 1 != 0 && !masked[c] {
                written |= 1 << (4 * s + c);
            }
        }
    }
    Ok(Response {
        registers: vec![reg],
        written: Some(vec![written]),
    })
}

// ---------------------------------------------------------------------------------------
// Writeback (seed 000 §2.13.2)
// ---------------------------------------------------------------------------------------

/// Lays out per-channel RGBA results as the writeback message.
///
/// SIMD16 (§2.13.2.1): two registers per colour channel, R, G, B, A; "each asserted write
/// channel mask results in both destination registers of the corresponding channel being
/// skipped ... and all channels with higher numbered registers being dropped down".
///
/// SIMD8 (§2.13.2.2): one register per colour channel; masked channels "are not skipped,
/// all four channels are always returned", but "are not overwritten in the destination
/// register". A returned register cannot say "leave this one alone", so a masked channel
/// must lie past the response length (trailing masks with a shortened response, which
/// packs the same either way); one inside it is an `Err`. `sample+killpix` adds W4: the
/// dispatch pixel mask 0xffff in 31:16 and the active pixel mask in 15:0: all ones but
/// the pixels a chroma key killed (`killpix`, §2.3.1.2); W4.7:1 are "not written" and
/// returned as 0.
fn writeback(
    results: &[[u32; 4]],
    masked: [bool; 4],
    rlen: usize,
    killpix: Option<u32>,
) -> Result<Vec<[u8; 32]>, MessageError> {
    let reg = |c: usize, first: usize| -> [u8; 32] {
        let mut r = [0u8; 32];
        for i in 0..8 {
            let v = results.get(first + i).map_or(0, |t| t[c]);
            r[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        r
    };
    if results.len() == 16 {
        // Built in place: this runs once per message.
        let mut regs: Vec<[u8; 32]> = Vec::with_capacity(8);
        for c in (0..4).filter(|&c| !masked[c]) {
            regs.push(reg(c, 0));
            regs.push(reg(c, 8));
        }
        if rlen != regs.len() {
            return Err(invalid(format!(
                "response length {rlen}, but the SIMD16 writeback of the unmasked channels \
                 is {} registers (seed 000 §2.13.2.1)",
                regs.len()
            )));
        }
        return Ok(regs);
    }
    let mut regs: Vec<[u8; 32]> = Vec::with_capacity(5);
    regs.extend((0..4).map(|c| reg(c, 0)));
    if let Some(killed) = killpix {
        let mut w4 = [0u8; 32];
        w4[..4].copy_from_slice(&(!(killed & 0xffff)).to_le_bytes());
        regs.push(w4);
    }
    if rlen > regs.len() {
        return Err(invalid(format!(
            "response length {rlen}, but the SIMD8 writeback is {} registers (seed 000 \
             §2.13.2.2)",
            regs.len()
        )));
    }
    for (c, name) in ["red", "green", "blue", "alpha"].iter().enumerate() {
        if masked[c] && c < rlen {
            return Err(invalid(format!(
                "the header masks {name} inside the SIMD8 response ({rlen} registers): the \
                 seed leaves that register unwritten (seed 000 §2.13.2.2), which this model \
                 cannot express; only trailing channels past the response length may be \
                 masked"
            )));
        }
        if !masked[c] && c >= rlen {
            return Err(invalid(format!(
                "response length {rlen} has no register for the unmasked {name} channel \
                 (seed 000 §2.13.2.2)"
            )));
        }
    }
    if killpix.is_some() && rlen != regs.len() {
        return Err(invalid(format!(
            "sample+killpix returns 5 registers, the response length is {rlen} (seed 000 \
             §2.13.1.3.1)"
        )));
    }
    regs.truncate(rlen);
    Ok(regs)
}

fn texel_bits(t: Texel) -> [u32; 4] {
    match t {
        Texel::Float(v) => v.map(f32::to_bits),
        Texel::Uint(v) => v,
        Texel::Sint(v) => v.map(|x| x as u32),
    }
}

// ---------------------------------------------------------------------------------------
// Surfaces
// ---------------------------------------------------------------------------------------

/// Surface types a texel can be fetched from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dim {
    D1,
    D2,
    D3,
    Buffer,
    /// A cube: six 2D faces per cube array element (seed 000 §2.1.2).
    Cube,
}

impl Dim {
    /// Normalized coordinate axes (u; u, v; u, v, r).
    fn axes(self) -> usize {
        match self {
            Dim::D1 | Dim::Buffer => 1,
            // A face is addressed as 2D.
            Dim::D2 | Dim::Cube => 2,
            Dim::D3 => 3,
        }
    }
}

/// Formats that read alpha 0 instead of 1 for an out-of-bounds `ld` (seed 000 §2.13.1.4,
/// ld errata).
const LD_ALPHA_ZERO_ERRATA: &[&str] = &[
    "R32G32B32X32_FLOAT",
    "X32_TYPELESS_G8X24_UINT",
    "R16G16B16X16_UNORM",
    "R16G16B16X16_FLOAT",
    "X24_TYPELESS_G8_UINT",
    "L24X8_UNORM",
    "L32_FLOAT",
    "B8G8R8X8_UNORM",
    "B8G8R8X8_UNORM_SRGB",
    "R8G8B8X8_UNORM",
    "R8G8B8X8_UNORM_SRGB",
    "B10G10R10X2_UNORM",
    "B5G6R5_UNORM",
    "B5G6R5_UNORM_SRGB",
    "L16_UNORM",
    "R5G5_SNORM_B6_UNORM",
    "L8_UNORM",
    "L8_UNORM_SRGB",
    "R1_UNORM",
    "BC4_UNORM",
];

/// UINT and SINT formats return integers (seed 000 §2.13.2.1) and cannot be filtered.
fn is_integer_format(f: SurfaceFormat) -> bool {
    texel::numeric_class(f).is_ok_and(|c| c.is_integer())
}

/// One element of all-zero bits, decoded: its alpha says whether the format has an alpha
/// channel (a missing alpha reads 1, seed 000 §2.12.2.1.2).
fn zero_element(f: SurfaceFormat) -> Option<Texel> {
    let layout = texel::layout(f).ok()?;
    let bytes = vec![0u8; layout.bits_per_element.div_ceil(8) as usize];
    match BlockFormat::from_surface_format(f) {
        Some(bf) => decode_block(bf, &bytes)
            .ok()?
            .first()
            .map(|t| Texel::Float(*t)),
        None => texel::decode(f, &bytes).ok(),
    }
}

/// The texel that replaces an out-of-range one: "zero in all channels, except for surface
/// formats that don't contain alpha, for which the alpha channel is replaced with one"
/// (seed 000 §2.2.1.5 L516 for Out_of_Bounds LODs, and the `ld` out-of-range texels of
/// §2.13.1.4). `ld_errata` applies the §2.13.1.4 erratum list of formats whose alpha reads
/// 0 instead.
fn zero_texel(f: SurfaceFormat, ld_errata: bool) -> Texel {
    let errata = ld_errata && f.name().is_some_and(|n| LD_ALPHA_ZERO_ERRATA.contains(&n));
    match zero_element(f) {
        Some(Texel::Float(v)) => Texel::Float([0.0, 0.0, 0.0, if errata { 0.0 } else { v[3] }]),
        Some(Texel::Uint(v)) => Texel::Uint([0, 0, 0, if errata { 0 } else { v[3] }]),
        Some(Texel::Sint(v)) => Texel::Sint([0, 0, 0, if errata { 0 } else { v[3] }]),
        None if is_integer_format(f) => Texel::Uint([0; 4]),
        None => Texel::Float([0.0; 4]),
    }
}

/// A sampled surface: its layout and the size fields of its state.
struct Texture<'a> {
    surface: Surface,
    mem: &'a dyn Memory,
    dim: Dim,
    /// Level-0 size (height 1 for 1D and buffers, depth 1 unless 3D).
    size0: [u32; 3],
    /// Array elements that may be accessed (Depth + 1 for 1D/2D, else 1).
    array_len: u32,
    /// Minimum Array Element, added to the array index (seed 000 §2.12.2 DW4 28:18).
    min_array: u32,
    /// MIP Count / LOD field: levels − 1, counted from Surface Min LOD.
    mip_count: u32,
    /// Surface Min LOD: added to the delivered LOD (seed 000 §2.12.2 DW5 7:4).
    surf_min_lod: u32,
    integer: bool,
    /// The offsets of the image last read (level, slice).
    image: std::cell::Cell<Option<(u32, u32, Option<gtsim_mem::layout::ImageOffsets>)>>,
    /// Texels read by this message, direct-mapped by (x, y) modulo 4: filtering reads
    /// each texel of a neighbourhood for several channels, and memory does not change
    /// during one message, so a texel read again is the same value.
    texels: std::cell::RefCell<[Option<CachedTexel>; 16]>,
}

/// A texel read: (level, x, y, slice) and its value.
type CachedTexel = ((u32, u32, u32, u32), Texel);

impl<'a> Texture<'a> {
    /// The surface of `view`, which must not be a null surface, read as `access`
    /// allows: buffers by ld only, multisampled surfaces by ld2dms and ld2dss only.
    fn open(view: &SurfaceView, mem: &'a dyn Memory, access: Access) -> Result<Self, MessageError> {
        let buffers = access == Access::Ld;
        let dim = match view.kind {
            SurfaceKind::D1 => Dim::D1,
            SurfaceKind::D2 => Dim::D2,
            SurfaceKind::D3 => Dim::D3,
            SurfaceKind::Buffer if buffers => Dim::Buffer,
            SurfaceKind::Cube if !buffers => Dim::Cube,
            SurfaceKind::Cube => {
                // An ld must address a face as a 2D array: drivers give it a 2D view.
                return Err(invalid(
                    "ld of a SURFTYPE_CUBE surface: \"The Surface Type of the associated \
                     surface must be SURFTYPE1D, SURFTYPE_2D, SURFTYPE_3D, or SURFTYPE_BUFFER \
                     for the ld message\" (seed 000 §2.13.1.4 programming notes)",
                ));
            }
            other => {
                return Err(invalid(format!(
                    "Surface Type {} cannot be sampled by this message (seed 000 §2.13.1.4 \
                     programming notes)",
                    surface_type_name(other)
                )));
            }
        };
        if view.samples > 1 && access != Access::Multisampled {
            // §2.13.1.4 ld: "Number of Multisamples on the associated surface must be
            // MULTISAMPLECOUNT_1 for the ld message type"; §2.7.1: "sample is no longer
            // supported on multisampled surfaces" (the same for LOD and gather4).
            return Err(invalid(format!(
                "a multisampled surface ({} samples) read by a message other than ld2dms, \
                 ld2dss or ld_mcs (seed 000 §2.13.1.4 programming notes, §2.7.1)",
                view.samples
            )));
        }
        let mut surface = view
            .layout
            .clone()
            .map_err(|e| e.context("binding table surface"))?;
        let mip_count = view.mip_count;
        let surf_min_lod = view.surface_min_lod;
        let min_array = view.min_array_element;
        // For cubes, cube array elements (Depth + 1), each six slices.
        let array_len = match dim {
            Dim::D1 | Dim::D2 | Dim::Cube => view.size[2],
            _ => 1,
        };
        // The layout only bounds-checks the level and slice; the state lets the levels
        // from Surface Min LOD and the slices from Minimum Array Element be addressed.
        surface.desc.levels = surface.desc.levels.max(surf_min_lod + mip_count + 1);
        if matches!(dim, Dim::D1 | Dim::D2) {
            surface.desc.depth = surface.desc.depth.max(min_array + array_len);
        }
        let size0 = match dim {
            Dim::D1 | Dim::Buffer => [surface.desc.width, 1, 1],
            Dim::D2 | Dim::Cube => [surface.desc.width, surface.desc.height, 1],
            Dim::D3 => [surface.desc.width, surface.desc.height, surface.desc.depth],
        };
        Ok(Texture {
            integer: is_integer_format(surface.format),
            surface,
            mem,
            dim,
            size0,
            array_len,
            min_array,
            mip_count,
            surf_min_lod,
            image: std::cell::Cell::new(None),
            texels: std::cell::RefCell::new([None; 16]),
        })
    }

    /// Size of (absolute) level `level`: halved per level, at least 1 (seed 000 §2.2.1
    /// L412).
    fn level_dims(&self, level: u32) -> [u32; 3] {
        self.size0.map(|s| crate::filter::level_size(s, level))
    }

    /// The view's base level (Surface Min LOD), whose texels the derivatives and
    /// non-normalized coordinates count.
    fn base_dims(&self) -> [u32; 3] {
        self.level_dims(self.surf_min_lod)
    }

    fn read(&self, level: u32, x: u32, y: u32, slice: u32) -> Result<Texel, MessageError> {
        let key = (level, x, y, slice);
        let slot = ((x & 3) | (y & 3) << 2) as usize;
        if let Some((k, t)) = self.texels.borrow()[slot]
            && k == key
        {
            return Ok(t);
        }
        let t = self.read_memory(level, x, y, slice)?;
        self.texels.borrow_mut()[slot] = Some((key, t));
        Ok(t)
    }

    /// The offsets of image (`level`, `slice`), worked out once for the texels of one
    /// level and slice (a message reads most of its texels from one image).
    fn image(&self, level: u32, slice: u32) -> Option<gtsim_mem::layout::ImageOffsets> {
        match self.image.get() {
            Some((l, s, img)) if l == level && s == slice => img,
            _ => {
                let img = self.surface.desc.image_offsets(slice, level);
                self.image.set(Some((level, slice, img)));
                img
            }
        }
    }

    /// Texels (`x0` + i, `y`) of `level` and `slice`, for i below `n` (at most 32), as
    /// many as follow each other in memory from the first (`ImageOffsets::run`), read
    /// with one memory access into `out`: how many, at least 1. `None` where this does
    /// not apply or anything fails (a compressed format, a texel outside the image, a
    /// fault, a texel that does not decode): [`Texture::read`] then gives the texel and
    /// its error.
    fn read_run(
        &self,
        level: u32,
        (x0, y): (u32, u32),
        slice: u32,
        n: usize,
        out: &mut [Texel; 32],
    ) -> Option<usize> {
        let f = self.surface.format;
        if BlockFormat::from_surface_format(f).is_some() {
            return None;
        }
        let bytes = self.surface.desc.block_bytes as usize;
        if !(1..=16).contains(&bytes) {
            return None;
        }
        let (off, k) = self.image(level, slice)?.run(x0, y).ok()?;
        let k = (k as usize).min(n).min(32);
        // Most runs are a few texels of up to 16 bytes: a small buffer then.
        let mut small = [0u8; 64];
        let mut large = Vec::new();
        let buf: &mut [u8] = if k * bytes <= small.len() {
            &mut small[..k * bytes]
        } else {
            large.resize(k * bytes, 0);
            &mut large
        };
        self.mem
            .read(self.surface.base.wrapping_add(off), buf)
            .ok()?;
        texel::decode_run(f, buf, bytes, &mut out[..k]).ok()?;
        Some(k)
    }

    fn read_memory(&self, level: u32, x: u32, y: u32, slice: u32) -> Result<Texel, MessageError> {
        let image = self.image(level, slice);
        let off = match image {
            Some(img) => img.offset(x, y),
            None => self.surface.desc.texel_offset(x, y, slice, level, 0),
        };
        off.map_err(SurfaceError::from)
            .and_then(|off| self.surface.read_texel_at(self.mem, off, x, y))
            .map_err(|error| MessageError::Texel {
                what: format!("texel ({x}, {y}) slice {slice} LOD {level}"),
                error,
            })
    }

    /// Sample `sample` of texel (`x`, `y`) of `level` and `slice` of a multisampled
    /// surface: the layout places it (a sample slice, or interleaved in the plane).
    fn read_sample(
        &self,
        level: u32,
        x: u32,
        y: u32,
        slice: u32,
        sample: u32,
    ) -> Result<Texel, MessageError> {
        self.surface
            .desc
            .texel_offset(x, y, slice, level, sample)
            .map_err(SurfaceError::from)
            .and_then(|off| self.surface.read_texel_at(self.mem, off, x, y))
            .map_err(|error| MessageError::Texel {
                what: format!("sample {sample} of texel ({x}, {y}) slice {slice} LOD {level}"),
                error,
            })
    }

    fn zero(&self, ld_errata: bool) -> Texel {
        zero_texel(self.surface.format, ld_errata)
    }
}

// ---------------------------------------------------------------------------------------
// sample, sample_b, sample_l, sample+killpix
// ---------------------------------------------------------------------------------------

/// SAMPLER_STATE (seed 000 §2.12.3.1) decoded for the axes the surface uses.
struct Setup {
    lod: LodState,
    min: MapFilter,
    mag: MapFilter,
    modes: [TexCoordMode; 3],
    border: [f32; 4],
    nonnormalized: bool,
    /// Trilinear Filter Quality: a level contributing less than this is dropped.
    tri_threshold: f32,
    /// Maximum Anisotropy.
    max_aniso: f32,
    /// Texture Border Color Mode DX9.
    border_dx9: bool,
    /// Integer surfaces take the border colour (`SamplerConfig::integer_border`).
    integer_border: bool,
    /// The chroma key (seed 000 §2.3.1), when ChromaKey Enable is set.
    chroma: Option<crate::chroma::Keyer>,
    /// Whether a texel read since the flag was last cleared matched the chroma key.
    keyed: std::cell::Cell<bool>,
}

impl Setup {
    /// Texel `t` after chroma keying (seed 000 §2.3.1.2): a match is noted (it kills the
    /// pixel in KEYFILTER_KILL_ON_ANY_MATCH mode) and, in KEYFILTER_REPLACE_BLACK mode,
    /// "the sample is replaced with (0,0,0,0)".
    fn key(&self, t: Texel) -> Texel {
        match &self.chroma {
            Some(k) if k.matches(&t) => {
                self.keyed.set(true);
                if k.kill { t } else { Texel::Float([0.0; 4]) }
            }
            _ => t,
        }
    }
}

impl Setup {
    fn new(state: &SamplerConfig, view: &SurfaceView, dim: Dim) -> Result<Setup, MessageError> {
        let e = state_error;
        let min = state.min_filter.clone().map_err(e("Min Mode Filter"))?;
        let mag = state.mag_filter.clone().map_err(e("Mag Mode Filter"))?;
        let mip_filter = state.mip_filter.clone().map_err(e("Mip Mode Filter"))?;
        let axes = dim.axes();
        let mut modes = [TexCoordMode::Clamp; 3];
        for (a, name) in ["TCX", "TCY", "TCZ"].iter().enumerate().take(axes) {
            modes[a] = state.address[a]
                .clone()
                .map_err(|err| self::state(format!("{name} Address Control Mode: {err}")))?;
            // §2.12.3 TCX Address Control Mode: "subject to being overridden by the Cube
            // Surface Control Mode field when sampling from a SURFTYPE_CUBE surface".
            if dim == Dim::Cube && state.cube_override {
                modes[a] = TexCoordMode::Cube;
            }
        }
        // §2.3.1: the key tests every texel sample the filter reads.
        let chroma = match (state.chroma_key, &view.layout) {
            (Some(key), Ok(surface)) => Some(crate::chroma::Keyer::new(key, surface.format)?),
            _ => None,
        };
        // §2.12.3.1 Trilinear Filter Quality: "If the contribution of one mip map is less
        // than 25% [37.5% for LOW], only the other mip map contributes."
        let tri_threshold = state.trilinear_threshold.map_err(|raw| {
            self::state(format!(
                "Trilinear Filter Quality {raw} is reserved (seed 000 §2.12.3.1)"
            ))
        })?;
        let lod = LodState {
            bias: state.lod_bias,
            min_lod: state.min_lod,
            max_lod: state.max_lod,
            base_mip_level: state.base_mip_level,
            mip_count: view.mip_count,
            surf_min_lod: view.surface_min_lod,
            res_min_lod: view.resource_min_lod,
            pre_clamp: state.lod_pre_clamp,
            mip_filter,
        };
        Ok(Setup {
            lod,
            min,
            mag,
            modes,
            border: state.border,
            nonnormalized: state.non_normalized,
            tri_threshold,
            max_aniso: state.max_anisotropy,
            border_dx9: state.border_dx9,
            integer_border: state.integer_border,
            chroma,
            keyed: std::cell::Cell::new(false),
        })
    }
}

fn state_error(field: &'static str) -> impl Fn(crate::SamplerError) -> MessageError {
    move |err| match err {
        crate::SamplerError::Unmodelled(u) => MessageError::Unsupported(u),
        other => state(format!("{field}: {other}")),
    }
}

/// SAMPLER_STATE (or the surface state the sampler reads) holding a value the hardware
/// does not define.
fn state(why: String) -> MessageError {
    MessageError::State {
        structure: "SAMPLER_STATE",
        why,
    }
}

/// Filters along one axis: the `i0` value, lerped towards `i1` by `w` when LINEAR (a
/// zero-weight `i1` is not read).
fn along(
    tap: AxisTap,
    f: &dyn Fn(i32) -> Result<[f32; 4], MessageError>,
) -> Result<[f32; 4], MessageError> {
    let a = f(tap.i0)?;
    if tap.linear && tap.w != 0.0 {
        Ok(lerp4(a, f(tap.i1)?, tap.w))
    } else {
        Ok(a)
    }
}

/// The taps of one axis: NEAREST (one) or LINEAR (two, `w` the weight of `i1`).
#[derive(Debug, Clone, Copy)]
struct AxisTap {
    i0: i32,
    i1: i32,
    w: f32,
    linear: bool,
}

impl AxisTap {
    fn fixed(i: i32) -> AxisTap {
        AxisTap {
            i0: i,
            i1: i,
            w: 0.0,
            linear: false,
        }
    }

    /// MAPFILTER_NEAREST (§2.2.2.1): the texel containing texel-space `t` (centres at
    /// i + 0.5, as [`crate::address::nearest_tap`]).
    fn nearest(t: f32) -> AxisTap {
        AxisTap::fixed(t.floor() as i32)
    }

    /// MAPFILTER_LINEAR (§2.2.2.2): the two texels whose centres bracket `t`, as
    /// [`crate::address::linear_taps`].
    fn linear(t: f32) -> AxisTap {
        let s = t - 0.5;
        let f = s.floor();
        let i0 = f as i32;
        AxisTap {
            i0,
            i1: i0.saturating_add(1),
            w: s - f,
            linear: true,
        }
    }
}

/// A shadow compare: the function and the message's reference value (§2.4).
type Compare = (crate::shadow::ShadowFunction, f32);

/// What one channel samples: its coordinates, array slice, texel offsets and compare.
#[derive(Debug, Clone, Copy)]
struct At {
    coords: [f32; 3],
    slice: u32,
    offsets: [i32; 3],
    compare: Option<Compare>,
    /// The cube face `coords` lie on (their `slice` the face's), for taps past its edges.
    face: Option<u32>,
    /// The subspan's anisotropic footprint, for MAPFILTER_ANISOTROPIC minification.
    aniso: Option<Aniso>,
}

/// An anisotropic footprint (§2.2.2.3): the unit direction of its major axis in texel
/// space and the ratio of the major to the minor axis, at most Maximum Anisotropy.
#[derive(Debug, Clone, Copy)]
struct Aniso {
    dir: [f32; 2],
    ratio: f32,
}

/// A tap after address control.
enum Tap {
    Texel(Texel),
    Border,
}

impl Texture<'_> {
    /// Texel-space coordinate of `c` along `axis` in `level`: normalized coordinates scale
    /// by the level's size (§2.13.1.5); non-normalized ones count texels of the base level
    /// (§2.12.3.1 Non-normalized Coordinate Enable) and scale by the level's share of it.
    /// NaN reads 0 and the result saturates as in [`crate::address::texel_space`].
    fn texel_coord(&self, smp: &Setup, c: f32, axis: usize, level: u32) -> f32 {
        let size = self.level_dims(level)[axis];
        if !smp.nonnormalized {
            return address::texel_space(c, size);
        }
        let c = if c.is_nan() { 0.0 } else { c };
        let base = self.base_dims()[axis];
        let t = if size == base {
            c
        } else {
            (f64::from(c) * f64::from(size) / f64::from(base)) as f32
        };
        t.clamp(-COORD_LIMIT, COORD_LIMIT)
    }

    /// The LOD of a subspan from the coordinate differences of its upper-left, upper-right
    /// and lower-left pixels (seed 000 §2.13.1 "Execution Mask"), in texels of the base
    /// level, by the ideal formula of §2.2.1.1.
    /// The ideal LOD of the gradients a sample_d message gives (d/dx and d/dy of each
    /// normalized coordinate axis), scaled to texels of the base level as
    /// [`Texture::subspan_lod`] scales differences.
    fn gradient_lod(
        &self,
        smp: &Setup,
        ddx: impl Fn(usize) -> f32,
        ddy: impl Fn(usize) -> f32,
    ) -> f32 {
        let base = self.base_dims();
        let mut dx = [0.0; 3];
        let mut dy = [0.0; 3];
        for a in 0..self.dim.axes() {
            let scale = if smp.nonnormalized {
                1.0
            } else {
                base[a] as f32
            };
            dx[a] = ddx(a) * scale;
            dy[a] = ddy(a) * scale;
        }
        ideal_lod(dx, dy)
    }

    fn subspan_lod(&self, smp: &Setup, ul: [f32; 3], ur: [f32; 3], ll: [f32; 3]) -> f32 {
        let base = self.base_dims();
        let mut dx = [0.0; 3];
        let mut dy = [0.0; 3];
        for a in 0..self.dim.axes() {
            let scale = if smp.nonnormalized {
                1.0
            } else {
                base[a] as f32
            };
            dx[a] = (ur[a] - ul[a]) * scale;
            dy[a] = (ll[a] - ul[a]) * scale;
        }
        ideal_lod(dx, dy)
    }

    /// One channel's sample at the level(s) `lod` selects (§2.2.1.5.1, §2.2.2).
    fn sample(&self, smp: &Setup, at: At, lod: &LodResult) -> Result<Texel, MessageError> {
        if lod.force_zero {
            return Ok(self.zero(false));
        }
        let filter = if lod.magnify { smp.mag } else { smp.min };
        let levels = match lod.levels {
            MipLevels::Two { lod0, beta, .. } if beta < smp.tri_threshold => MipLevels::One(lod0),
            MipLevels::Two { lod1, beta, .. } if 1.0 - beta < smp.tri_threshold => {
                MipLevels::One(lod1)
            }
            levels => levels,
        };
        match levels {
            MipLevels::One(level) => self.sample_level(smp, filter, level, at),
            MipLevels::Two { lod0, lod1, beta } => {
                let a = self.sample_level(smp, filter, lod0, at)?;
                let b = self.sample_level(smp, filter, lod1, at)?;
                match (a, b) {
                    (Texel::Float(a), Texel::Float(b)) => Ok(Texel::Float(lerp4(a, b, beta))),
                    _ => Err(self.integer_filter_error("MIPFILTER_LINEAR")),
                }
            }
        }
    }

    fn integer_filter_error(&self, what: &str) -> MessageError {
        invalid(format!(
            "{what} on the integer surface format {} is undefined (seed 000 §2.12.2.1.1: \
             UINT/SINT formats cannot be filtered)",
            self.surface.format.name().unwrap_or("?")
        ))
    }

    /// Filters one level with `filter` (§2.2.2), applying the address modes (§2.2.3) to
    /// every tap separately. For 3D surfaces the filter also applies between slices
    /// (§2.2.2: "for volume maps, this selection also applies to filtering between
    /// layers"). Taps with zero weight are not read.
    fn sample_level(
        &self,
        smp: &Setup,
        filter: MapFilter,
        level: u32,
        at: At,
    ) -> Result<Texel, MessageError> {
        let At {
            coords,
            slice,
            offsets,
            compare,
            face,
            aniso,
        } = at;
        let dims = self.level_dims(level);
        if let (MapFilter::Anisotropic, Some(a)) = (filter, aniso)
            && a.ratio > 1.0
        {
            return self.sample_anisotropic(smp, level, at, a, dims);
        }
        let axes = self.dim.axes();
        let mut taps = [AxisTap::fixed(0); 3];
        for a in 0..axes {
            let t = self.filtered_coord(
                smp,
                self.texel_coord(smp, coords[a], a, level) + offsets[a] as f32,
                a,
                level,
            );
            taps[a] = match filter {
                // TEXCOORDMODE_HALF_BORDER under NEAREST: never the border.
                MapFilter::Nearest
                    if smp.modes.get(a) == Some(&address::TexCoordMode::HalfBorder) =>
                {
                    AxisTap::fixed(address::half_border_nearest(t, dims[a]))
                }
                MapFilter::Nearest => AxisTap::nearest(t),
                MapFilter::Linear | MapFilter::Anisotropic => AxisTap::linear(t),
            };
        }
        if axes < 3 {
            // The array slice: already clamped, not subject to address control.
            taps[2] = AxisTap::fixed(i32::try_from(slice).unwrap_or(i32::MAX));
        }
        let fetch = |idx: [i32; 3]| self.tap(smp, level, dims, idx, face);
        // §2.4: with a compare each texel (the border colour included) is replaced by
        // the comparison's result before filtering, in every channel ("the texel is
        // replaced with either white or black", §2.13.1.4 sample_c).
        let compared = |v: [f32; 4]| match compare {
            Some((f, reference)) => [f.result(v[0], reference); 4],
            None => v,
        };
        if !taps.iter().any(|t| t.linear) {
            let t = match fetch([taps[0].i0, taps[1].i0, taps[2].i0])? {
                Tap::Texel(t) => t,
                Tap::Border => self.border(smp)?,
            };
            return Ok(match t {
                Texel::Float(v) if compare.is_some() => Texel::Float(compared(v)),
                t => t,
            });
        }
        if self.integer {
            return Err(self.integer_filter_error("MAPFILTER_LINEAR"));
        }
        let float = |idx: [i32; 3]| -> Result<[f32; 4], MessageError> {
            match fetch(idx)? {
                Tap::Texel(Texel::Float(v)) => Ok(compared(v)),
                Tap::Border => Ok(compared(self.border_color(smp))),
                Tap::Texel(_) => Err(self.integer_filter_error("MAPFILTER_LINEAR")),
            }
        };
        // Nested lerps along x, then y, then z: the order of `filter::sample_level`.
        let [tx, ty, tz] = taps;
        let row = |y: i32, z: i32| along(tx, &|x| float([x, y, z]));
        let plane = |z: i32| along(ty, &|y| row(y, z));
        along(tz, &plane).map(Texel::Float)
    }

    /// MAPFILTER_ANISOTROPIC (§2.2.2.3): "subpixels are chosen along this line [the
    /// major axis], spaced one texel apart", as many as "the next larger even integer
    /// above the ratio"; "each subpixel samples a bilinear 2x2 ... blended together using
    /// equal weights on all interior subpixels ... The endpoint subpixels have lesser
    /// weight, the value of which depends on how close the 'ratio' is to the number of
    /// 'ways'". The seed gives no formula for that weight; here each endpoint weighs
    /// (ratio - (ways - 2)) / 2 of an interior one, so the weights add up to the ratio
    /// (the footprint's length in texels) and change continuously with it. The subpixels
    /// are centred on the pixel, one texel of `level` apart.
    fn sample_anisotropic(
        &self,
        smp: &Setup,
        level: u32,
        at: At,
        a: Aniso,
        dims: [u32; 3],
    ) -> Result<Texel, MessageError> {
        let ways = (2.0 * (a.ratio / 2.0).ceil()).max(2.0) as usize;
        let end = (a.ratio - (ways as f32 - 2.0)) / 2.0;
        let mut sum = [0.0f32; 4];
        let mut total = 0.0;
        for k in 0..ways {
            let w = if k == 0 || k + 1 == ways { end } else { 1.0 };
            if w <= 0.0 {
                continue;
            }
            let t = k as f32 - (ways as f32 - 1.0) / 2.0;
            let mut coords = at.coords;
            for (axis, c) in coords.iter_mut().enumerate().take(2) {
                let scale = if smp.nonnormalized {
                    // Non-normalized coordinates count texels of the base level.
                    (1u32 << level.min(31)) as f32
                } else {
                    1.0 / dims[axis].max(1) as f32
                };
                *c += a.dir[axis] * t * scale;
            }
            let sub = At {
                coords,
                aniso: None,
                ..at
            };
            match self.sample_level(smp, MapFilter::Linear, level, sub)? {
                Texel::Float(v) => {
                    for (s, x) in sum.iter_mut().zip(v) {
                        *s += w * x;
                    }
                    total += w;
                }
                _ => return Err(self.integer_filter_error("MAPFILTER_ANISOTROPIC")),
            }
        }
        Ok(Texel::Float(sum.map(|s| s / total)))
    }

    /// The subspan's anisotropic footprint (§2.2.2.3): the longer of the texel-space
    /// d/dx and d/dy (of the base level) is the major axis, the shorter the minor;
    /// "LOD is chosen based on the minor axis length", lengthened so that the ratio stays
    /// within Maximum Anisotropy. Returns the LOD and the footprint.
    fn anisotropic_footprint(
        &self,
        smp: &Setup,
        ul: [f32; 3],
        ur: [f32; 3],
        ll: [f32; 3],
    ) -> (f32, Aniso) {
        let base = self.base_dims();
        let scale = |a: usize| {
            if smp.nonnormalized {
                1.0
            } else {
                base[a] as f32
            }
        };
        let dx = [(ur[0] - ul[0]) * scale(0), (ur[1] - ul[1]) * scale(1)];
        let dy = [(ll[0] - ul[0]) * scale(0), (ll[1] - ul[1]) * scale(1)];
        let len = |d: [f32; 2]| (d[0] * d[0] + d[1] * d[1]).sqrt();
        let (major, minor) = if len(dx) >= len(dy) {
            (dx, dy)
        } else {
            (dy, dx)
        };
        let (lmaj, lmin) = (len(major), len(minor));
        if lmaj.is_nan() || lmaj <= 0.0 || !lmaj.is_finite() {
            return (
                ideal_lod([dx[0], dx[1], 0.0], [dy[0], dy[1], 0.0]),
                Aniso {
                    dir: [1.0, 0.0],
                    ratio: 1.0,
                },
            );
        }
        let ratio = if lmin > 0.0 {
            lmaj / lmin
        } else {
            f32::INFINITY
        }
        .min(smp.max_aniso);
        let ratio = ratio.max(1.0);
        (
            (lmaj / ratio).log2(),
            Aniso {
                dir: [major[0] / lmaj, major[1] / lmaj],
                ratio,
            },
        )
    }

    /// The texel at integer texel coordinates `idx` of `level` (sized `dims`) after each
    /// coordinate axis's address control (§2.2.3); the third index of a 1D or 2D
    /// surface is its (already clamped) array slice.
    fn tap(
        &self,
        smp: &Setup,
        level: u32,
        dims: [u32; 3],
        idx: [i32; 3],
        face: Option<u32>,
    ) -> Result<Tap, MessageError> {
        let axes = self.dim.axes();
        let mut at = [0u32; 3];
        let mut off_face = false;
        for a in 0..3 {
            if a < axes {
                match address::resolve(smp.modes[a], idx[a], dims[a]) {
                    Resolved::Texel(i) => at[a] = i,
                    Resolved::Border => return Ok(Tap::Border),
                    Resolved::OffFace(_) => off_face = true,
                }
            } else {
                at[a] = u32::try_from(idx[a]).unwrap_or(0);
            }
        }
        if off_face {
            let Some(face) = face else {
                return Err(invalid(
                    "TEXCOORDMODE_CUBE on a surface that is not SURFTYPE_CUBE: \"Only used for \
                     cube maps\" (seed 000 §2.2.3)",
                ));
            };
            // §2.2.3.6: "the correct sample coordinates on the adjoining face will be
            // computed": the tap's texel centre, past the edge on the face's plane, is a
            // direction that selects the adjoining face (at a corner, the face of the
            // larger excess), and the texel there is read.
            let centre = |a: usize| 2.0 * (idx[a] as f32 + 0.5) / dims[a].max(1) as f32 - 1.0;
            let p = crate::cube::select(crate::cube::direction(face, centre(0), centre(1)));
            let st = p.st();
            let texel = |a: usize| {
                let n = dims[a].max(1);
                ((st[a] * n as f32).floor().max(0.0) as u32).min(n - 1)
            };
            let slice = at[2] - face + p.face;
            return self
                .read(level, texel(0), texel(1), slice)
                .map(|t| Tap::Texel(smp.key(t)));
        }
        self.read(level, at[0], at[1], at[2])
            .map(|t| Tap::Texel(smp.key(t)))
    }

    /// The texel-space coordinate of axis `a` a filter reads: TEXCOORDMODE_HALF_BORDER
    /// clamps it to the map ([`address::half_border_clamp`]).
    fn filtered_coord(&self, smp: &Setup, t: f32, a: usize, level: u32) -> f32 {
        if smp.modes.get(a) == Some(&address::TexCoordMode::HalfBorder) {
            address::half_border_clamp(t, self.level_dims(level)[a])
        } else {
            t
        }
    }

    /// gather4 (seed 000 §2.13.1.4): the four texels of the bilinear footprint at `u, v`
    /// (texel offsets added) in `level`, channel `channel` of each (or its comparison's
    /// result), returned unfiltered as "upper left sample = alpha channel, upper right
    /// sample = blue channel, lower left sample = red channel, lower right sample = green
    /// channel", upper being the smaller v.
    fn gather(
        &self,
        smp: &Setup,
        level: u32,
        at: At,
        channel: usize,
    ) -> Result<[u32; 4], MessageError> {
        let dims = self.level_dims(level);
        let t = |a: usize| {
            AxisTap::linear(self.filtered_coord(
                smp,
                self.texel_coord(smp, at.coords[a], a, level) + at.offsets[a] as f32,
                a,
                level,
            ))
        };
        let (x, y) = (t(0), t(1));
        let slice = i32::try_from(at.slice).unwrap_or(i32::MAX);
        let value = |i: i32, j: i32| -> Result<u32, MessageError> {
            let t = match self.tap(smp, level, dims, [i, j, slice], at.face)? {
                Tap::Texel(t) => t,
                Tap::Border => self.border(smp)?,
            };
            Ok(match (t, at.compare) {
                (Texel::Float(v), Some((f, reference))) => f.result(v[0], reference).to_bits(),
                (t, _) => texel_bits(t)[channel],
            })
        };
        Ok([
            value(x.i0, y.i1)?,
            value(x.i1, y.i1)?,
            value(x.i1, y.i0)?,
            value(x.i0, y.i0)?,
        ])
    }

    /// The border colour (§2.2.3.5); UINT/SINT surfaces may not use
    /// TEXCOORDMODE_CLAMP_BORDER (§2.13.1.4 programming notes) on Gen7; on Gen8+ they
    /// take the border colour's bits as integers ([`Self::integer_border`]).
    fn border(&self, smp: &Setup) -> Result<Texel, MessageError> {
        if self.integer && smp.integer_border {
            if smp.border_dx9 {
                // Seed 003 SAMPLER_BORDER_COLOR_STATE: in DX9 mode an integer surface's
                // border colour is UNORM8 or, with register E194h's "Enable Missing
                // Alpha Format Fix", R8G8B8A8_UINT/SINT; the model does not read that
                // register.
                return Err(Unsupported::new(
                    "the DX9 border colour mode on a UINT/SINT surface",
                    "seed 003 SAMPLER_BORDER_COLOR_STATE (register E194h)",
                )
                .into());
            }
            return Ok(self.integer_border(smp));
        }
        if self.integer {
            return Err(invalid(format!(
                "a tap on the border colour of the integer surface format {}: Address \
                 Control Mode cannot be CLAMP_BORDER for UINT/SINT formats (seed 000 \
                 §2.13.1.4)",
                self.surface.format.name().unwrap_or("?")
            )));
        }
        Ok(Texel::Float(self.border_color(smp)))
    }

    /// The border colour of a UINT or SINT surface (seed 003 SAMPLER_BORDER_COLOR_STATE,
    /// DX10/OpenGL mode): its four dwords as R32G32B32A32_UINT or _SINT; "the value from
    /// the border color is not used for the missing channels, resulting in these
    /// channels resulting in the overall default value (0 for colors and 1 for alpha)".
    fn integer_border(&self, smp: &Setup) -> Texel {
        let bits = smp.border.map(f32::to_bits);
        let has = texel::rgba_channels(self.surface.format).unwrap_or([true; 4]);
        let v: [u32; 4] = std::array::from_fn(|c| if has[c] { bits[c] } else { u32::from(c == 3) });
        if texel::numeric_class(self.surface.format).is_ok_and(|c| c == texel::NumericClass::Sint) {
            Texel::Sint(v.map(|b| b as i32))
        } else {
            Texel::Uint(v)
        }
    }

    /// The border colour as this surface format returns it: the Sampler Output Channel
    /// Mapping (seed 000 §2.12.2.1.2) gives the channels the format lacks 0.0 (red,
    /// green, blue) and 1.0 (alpha) in DX10/OGL Border Color Mode, 1.0 in DX9 mode (for
    /// example R32G32_FLOAT: "R G 0.0 1.0" and "DX9 R G 1.0 1.0"). Formats of other
    /// channels (luminance, intensity, ...) take the border colour as it is.
    fn border_color(&self, smp: &Setup) -> [f32; 4] {
        let Some(has) = texel::rgba_channels(self.surface.format) else {
            return smp.border;
        };
        std::array::from_fn(|c| match (has[c], smp.border_dx9) {
            (true, _) => smp.border[c],
            (false, true) => 1.0,
            (false, false) => f32::from(u8::from(c == 3)),
        })
    }
}

/// The slice of face `face` of cube array element `ai` (rounded as [`array_index`]
/// rounds, clamped to the cubes the surface has): six slices per cube, from Minimum
/// Array Element.
fn cube_slice(tex: &Texture<'_>, ai: f32, face: u32) -> u32 {
    tex.min_array + 6 * array_index(tex, ai) + face
}

/// The array slice for an unnormalized array index parameter: [`array_index`], then
/// offset by Minimum Array Element.
fn array_slice(tex: &Texture<'_>, ai: f32) -> u32 {
    tex.min_array + array_index(tex, ai)
}

/// An unnormalized array index parameter (a NaN as 0) rounded to the nearest integer,
/// ties to even, and "clamped to the surface" (§2.13.1.5): to the arrays (or cubes) the
/// surface has. The seed does not say how the index rounds; ties go to even as the
/// Vulkan specification's layer selection has it (`clamp(RNE(a), 0, layers - 1)`), and
/// as Mesa's blorp relies on: its blits sample a 1D array source at v = y + 0.5 = 0.5
/// with Minimum Array Element naming the layer (blorp_blit.c's 2D-dimension texture
/// instruction), which reads that layer only if 0.5 rounds to 0. (Rounding ties up made
/// iris's glGenerateMipmap of a 1D array read the next layer at every level, piglit
/// `fbo-generatemipmap-array` on Gen11.)
fn array_index(tex: &Texture<'_>, ai: f32) -> u32 {
    let ai = if ai.is_nan() { 0.0 } else { ai };
    let max = tex.array_len.saturating_sub(1) as f32;
    ai.round_ties_even().clamp(0.0, max) as u32
}

/// sample, sample_b, sample_l and sample+killpix (seed 000 §2.13.1.4). Parameters
/// (§2.13.1.3.1): sample u v r ai; sample_b bias u v r ai; sample_l lod u v r ai;
/// sample+killpix u v r. Per §2.13.1.5 u, v, r are normalized x, y, z for 3D; for 2D r is
/// the array index, for 1D v is.
/// The surface the message's binding table index names; `None` for a null surface,
/// which reads as zeros (seed 000 §2.12.2 SURFTYPE_NULL).
fn bound_surface(
    d: &SamplerMessage,
    res: &dyn SamplerResources,
) -> Result<Option<std::sync::Arc<SurfaceView>>, MessageError> {
    let view = res
        .surface(d.binding_table_index)
        .map_err(|e| e.context("surface state"))?;
    Ok((view.kind != SurfaceKind::Null).then_some(view))
}

/// A surface type's manual name, for messages.
fn surface_type_name(k: SurfaceKind) -> String {
    match k {
        SurfaceKind::D1 => "SURFTYPE_1D".into(),
        SurfaceKind::D2 => "SURFTYPE_2D".into(),
        SurfaceKind::D3 => "SURFTYPE_3D".into(),
        SurfaceKind::Cube => "SURFTYPE_CUBE".into(),
        SurfaceKind::Buffer => "SURFTYPE_BUFFER".into(),
        SurfaceKind::StructuredBuffer => "SURFTYPE_STRBUF".into(),
        SurfaceKind::Null => "SURFTYPE_NULL".into(),
        SurfaceKind::Reserved(_) => "(reserved)".into(),
    }
}

fn sample_message(
    kind: SamplerOp,
    d: &SamplerMessage,
    header: &SamplerHeader,
    params: &Params<'_>,
    enabled: u32,
    lanes: usize,
    res: &dyn SamplerResources,
) -> Result<(Vec<[u32; 4]>, u32), MessageError> {
    let mut out = vec![[0u32; 4]; lanes];
    let Some(view) = bound_surface(d, res)? else {
        return Ok((out, 0));
    };
    let state = res
        .sampler(d.sampler_index)
        .map_err(|e| e.context("sampler state"))?;
    if state.disabled {
        // §2.12.3.1 Sampler Disable: "If disabled, all output channels will return 0."
        return Ok((out, 0));
    }
    let tex = Texture::open(&view, res.memory(), Access::Single)?;
    let smp = Setup::new(&state, &view, tex.dim)?;
    let mut killed = 0u32;
    // Seed 000 §2.13.1.3.1 (SIMD8/16 order): sample "u v r", sample_b and sample_l "bias|lod
    // u v r", sample_c "ref u v r", sample_b_c and sample_l_c "ref bias|lod u v r",
    // sample_d "u dudx dudy v dvdx dvdy r drdx drdy" and sample_d_c the same after "ref".
    let compares = matches!(
        kind,
        SamplerOp::SampleC | SamplerOp::SampleBC | SamplerOp::SampleLC | SamplerOp::SampleDC
    );
    let at: [usize; 3] = match kind {
        SamplerOp::SampleB | SamplerOp::SampleL | SamplerOp::SampleC => [1, 2, 3],
        SamplerOp::SampleBC | SamplerOp::SampleLC => [2, 3, 4],
        SamplerOp::SampleD => [0, 3, 6],
        SamplerOp::SampleDC => [1, 4, 7],
        _ => [0, 1, 2],
    };
    let gradients = matches!(kind, SamplerOp::SampleD | SamplerOp::SampleDC);
    // The LOD or bias parameter, after the reference for the compare forms.
    let lod_param = usize::from(compares);
    let shadow = if compares {
        if tex.integer {
            return Err(invalid(format!(
                "sample_c on the integer surface format {}: shadow compare needs a format \
                 that supports shadow mapping (seed 000 §2.13.1.4)",
                tex.surface.format.name().unwrap_or("?")
            )));
        }
        Some(
            state
                .shadow
                .clone()
                .map_err(state_error("Shadow Function"))?,
        )
    } else {
        None
    };
    let coords = |lane: usize| at.map(|p| params.f(p, lane));
    // The header's _aoffimmi texel offsets (§2.13.1.2 M0.2 11:0), on the axes that are
    // coordinates (not on array indices).
    let [u, v, r] = header.offsets.map(i32::from);
    let offsets = match tex.dim {
        Dim::D1 | Dim::Buffer => [u, 0, 0],
        Dim::D2 => [u, v, 0],
        Dim::D3 => [u, v, r],
        // Offsets do not apply across cube faces.
        Dim::Cube => [0, 0, 0],
    };
    // A cube's direction as the coordinates of the face it selects (§2.1.2), on the face
    // `on` when given (a subspan's LOD is taken on one face, below).
    let on_face = |c: [f32; 3], on: Option<u32>| -> ([f32; 3], u32) {
        let p = match on {
            Some(face) => crate::cube::project(c, face),
            None => crate::cube::select(c),
        };
        let [s, t] = p.st();
        ([s, t, 0.0], p.face)
    };
    // Subspans of 2x2 pixels; a SIMD4x2 message's two samples stand alone (only
    // sample_l, whose LOD is given, is a SIMD4x2 message here).
    let group = lanes.min(4);
    for base in (0..lanes).step_by(group) {
        if (enabled >> base) & ((1 << group) - 1) == 0 {
            continue;
        }
        // §2.13.1.2 header M0.2 16 Force LOD to Zero: "the calculated LOD is replaced
        // with zero ... just before entering the pseudocode".
        let explicit = matches!(kind, SamplerOp::SampleL | SamplerOp::SampleLC);
        let mut aniso = None;
        let computed = if explicit || gradients || header.force_lod_zero || group < 4 {
            0.0
        } else if smp.min == MapFilter::Anisotropic && tex.dim == Dim::D2 {
            // §2.2.2.3: not on buffers or 3D; 1D and cube surfaces filter as LINEAR.
            let (lod, footprint) =
                tex.anisotropic_footprint(&smp, coords(base), coords(base + 1), coords(base + 2));
            aniso = Some(footprint);
            lod
        } else if tex.dim == Dim::Cube {
            // The subspan's LOD is measured on one face, onto which the upper-left,
            // upper-right and lower-left pixels' directions are projected: the face of
            // the upper-left pixel or that of the subspan's centre (the sum of the
            // upper-right and lower-left directions, whose midpoint it is), whichever
            // gives the smaller LOD. The seed leaves the LOD to the implementation
            // (§2.2.1.1). A face that a direction leaves at a steep angle magnifies
            // its steps: a helper pixel just past an edge of the face the primitive
            // lies on selects the neighbouring face, and the LOD measured there is
            // half a level or more too high (piglit's fbo-cubemap and cubemap npot
            // draw such quads); a subspan whose steps span half a face (piglit's
            // tex-miplevel-selection) has its centre on another face than its upper-
            // left pixel, and is measured on the latter. The projection is central, so
            // coordinates divided by their major component (§2.1.2) give the same
            // faces and positions as the directions themselves.
            let [ul, ur, ll] = [coords(base), coords(base + 1), coords(base + 2)];
            let measured = |face: u32| {
                let [a, b, c] = [ul, ur, ll].map(|d| on_face(d, Some(face)).0);
                tex.subspan_lod(&smp, a, b, c)
            };
            let own = crate::cube::select(ul).face;
            let centre = crate::cube::select([0, 1, 2].map(|a| ur[a] + ll[a])).face;
            let lod = measured(own);
            if centre == own {
                lod
            } else {
                lod.min(measured(centre))
            }
        } else {
            tex.subspan_lod(&smp, coords(base), coords(base + 1), coords(base + 2))
        };
        for (lane, slot) in out.iter_mut().enumerate().skip(base).take(group) {
            if (enabled >> lane) & 1 == 0 {
                continue;
            }
            let input = match kind {
                SamplerOp::SampleB | SamplerOp::SampleBC => LodInput::Biased {
                    lod: computed,
                    bias: params.f(lod_param, lane),
                },
                SamplerOp::SampleL | SamplerOp::SampleLC => {
                    LodInput::Explicit(params.f(lod_param, lane))
                }
                // sample_d: "LOD is computed using the gradients present in the
                // message" (§2.13.1.4), per channel; d/dx and d/dy follow each coordinate.
                SamplerOp::SampleD | SamplerOp::SampleDC if !header.force_lod_zero => {
                    // On a cube the gradients are in the face's [-1, +1] units (below):
                    // half as many in the face's [0, 1] s and t.
                    let k = if tex.dim == Dim::Cube { 0.5 } else { 1.0 };
                    LodInput::Computed(tex.gradient_lod(
                        &smp,
                        |a| params.f(at[a] + 1, lane) * k,
                        |a| params.f(at[a] + 2, lane) * k,
                    ))
                }
                _ => LodInput::Computed(computed),
            };
            if kind == SamplerOp::Lod {
                // §2.13.1.4 LOD: "the clamped and unclamped LOD values are returned in the
                // red and green channels ... in FLOAT32 format": the LOD after the
                // pseudocode's clamps (without the Surface Min LOD offset) and the
                // computed LOD with the sampler's bias. Blue and alpha are undefined: 0.
                let clamped = compute_lod(&smp.lod, LodInput::Query(computed)).lod;
                let unclamped = computed + smp.lod.bias;
                *slot = [clamped.to_bits(), unclamped.to_bits(), 0, 0];
                continue;
            }
            let lod = compute_lod(&smp.lod, input);
            let mut c = coords(lane);
            let mut face = None;
            let slice = match tex.dim {
                Dim::D1 => array_slice(&tex, c[1]),
                Dim::D2 => array_slice(&tex, c[2]),
                Dim::D3 | Dim::Buffer => 0,
                Dim::Cube if gradients => {
                    // §2.13.1.4 sample_d: "Usage of this message type on cube surfaces
                    // assumes that the u, v, and gradients have already been transformed
                    // onto the appropriate face, but still in [-1,+1] range. The r
                    // coordinate contains the faceid": u, v are the face's sc, tc, so
                    // s = (u + 1) / 2, t = (v + 1) / 2 (the gradients are halved with
                    // them, above); ai follows r's gradients.
                    let f = if c[2].is_nan() {
                        0
                    } else {
                        c[2].round().clamp(0.0, 5.0) as u32
                    };
                    c[0] = (c[0] + 1.0) * 0.5;
                    c[1] = (c[1] + 1.0) * 0.5;
                    c[2] = 0.0;
                    face = Some(f);
                    cube_slice(&tex, params.f(at[2] + 3, lane), f)
                }
                Dim::Cube => {
                    // "The ai parameter indicates the array index for a cube surface"
                    // (§2.13.1.4), the parameter after r.
                    let (st, f) = on_face(c, None);
                    c = st;
                    face = Some(f);
                    cube_slice(&tex, params.f(at[2] + 1, lane), f)
                }
            };
            let compare = shadow.map(|f| {
                (
                    f,
                    crate::shadow::reference(tex.surface.format, params.f(0, lane)),
                )
            });
            smp.keyed.set(false);
            let t = tex
                .sample(
                    &smp,
                    At {
                        coords: c,
                        slice,
                        offsets,
                        compare,
                        face,
                        aniso,
                    },
                    &lod,
                )
                .map_err(|e| e.context(format!("channel {lane}")))?;
            *slot = texel_bits(t);
            // §2.3.1.2 KEYFILTER_KILL_ON_ANY_MATCH: "Kill the pixel if any contributing
            // texel sample matches the key".
            if smp.keyed.get() && smp.chroma.is_some_and(|k| k.kill) {
                killed |= 1 << lane;
            }
        }
    }
    Ok((out, killed))
}

// ---------------------------------------------------------------------------------------
// gather4
// ---------------------------------------------------------------------------------------

/// gather4, gather4_c, gather4_po and gather4_po_c (seed 000 §2.13.1.4): "sampled using
/// bilinear filtering, regardless of the filtering mode", "for SURFTYPE_2D LOD is forced
/// to zero", the four texels of the footprint returned unfiltered (see
/// [`Texture::gather`]). Parameters (§2.13.1.3.1, SIMD8 order): gather4 "u v r ai",
/// gather4_c "ref u v r ai", gather4_po "u v offu offv r", gather4_po_c "ref u v offu
/// offv r". The _po offsets, "32-bit 2's complement signed integer, but hardware only
/// interprets the least significant 6 bits", replace the header's U/V offsets. The
/// channel is the header's Gather4 Source Channel Select ("must be set to 0 (Red
/// channel)" for the _c forms, which return comparison results as sample_c does).
fn gather_message(
    kind: SamplerOp,
    d: &SamplerMessage,
    header: &SamplerHeader,
    params: &Params<'_>,
    enabled: u32,
    lanes: usize,
    res: &dyn SamplerResources,
) -> Result<Vec<[u32; 4]>, MessageError> {
    let mut out = vec![[0u32; 4]; lanes];
    let Some(view) = bound_surface(d, res)? else {
        return Ok(out);
    };
    let state = res
        .sampler(d.sampler_index)
        .map_err(|e| e.context("sampler state"))?;
    if state.disabled {
        return Ok(out);
    }
    let tex = Texture::open(&view, res.memory(), Access::Single)?;
    if !matches!(tex.dim, Dim::D2 | Dim::Cube) {
        return Err(invalid(format!(
            "gather4 of a {} surface: \"The Surface Type of the associated surface must be \
             SURFTYPE_2D or SURFTYPE_CUBE\" (seed 000 §2.13.1.4)",
            surface_type_name(view.kind)
        )));
    }
    let smp = Setup::new(&state, &view, tex.dim)?;
    let compares = matches!(kind, SamplerOp::Gather4C | SamplerOp::Gather4PoC);
    // The seed's programming note says gather4 surfaces "cannot be any UINT or SINT
    // format", but Ivy Bridge gathers them (Mesa's crocus works around broken integer
    // gathers only on Gen6, "Gfx6's gather4 is broken for UINT/SINT"): their integer
    // texels are returned as ld returns them. Comparisons need a float format.
    if compares && tex.integer {
        return Err(invalid(format!(
            "gather4_c on the integer surface format {}: shadow compare needs a format that \
             supports shadow mapping (seed 000 §2.13.1.4)",
            tex.surface.format.name().unwrap_or("?")
        )));
    }
    let per_channel_offsets = matches!(kind, SamplerOp::Gather4Po | SamplerOp::Gather4PoC);
    let first = usize::from(compares);
    let mut channel = usize::from(header.gather_channel & 3);
    // Ivy Bridge's quirk for two-channel 32-bit formats, which Mesa's crocus relies on
    // ("For RG32F, gather4's channel select is broken"; on Gen7 it asks for blue to get
    // green): selecting blue there returns green.
    let rg32 = [
        SurfaceFormat::R32G32_FLOAT_LD,
        SurfaceFormat::R32G32_FLOAT,
        SurfaceFormat::R32G32_SINT,
        SurfaceFormat::R32G32_UINT,
    ];
    if channel == 2 && rg32.contains(&tex.surface.format) {
        channel = 1;
    }
    if compares && channel != 0 {
        return Err(invalid(
            "gather4_c with Gather4 Source Channel Select other than red (seed 000 §2.13.1.2: \
             \"For gather4*_c messages, this field must be set to 0\")",
        ));
    }
    let shadow = if compares {
        Some(
            state
                .shadow
                .clone()
                .map_err(state_error("Shadow Function"))?,
        )
    } else {
        None
    };
    // LOD 0 before the pseudocode: its clamps still apply (Min LOD, Surface Min LOD).
    let lod = compute_lod(&smp.lod, LodInput::Explicit(0.0));
    let level = match lod.levels {
        MipLevels::One(level) | MipLevels::Two { lod0: level, .. } => level,
    };
    for (lane, slot) in out.iter_mut().enumerate().take(lanes) {
        if (enabled >> lane) & 1 == 0 {
            continue;
        }
        let (u, v) = (params.f(first, lane), params.f(first + 1, lane));
        let (offsets, r) = if per_channel_offsets {
            let six = |p: usize| (params.i(p, lane) << 26) >> 26;
            (
                [six(first + 2), six(first + 3), 0],
                params.f(first + 4, lane),
            )
        } else {
            let [du, dv, _] = header.offsets.map(i32::from);
            ([du, dv, 0], params.f(first + 2, lane))
        };
        let (coords, slice, face) = if tex.dim == Dim::Cube {
            if per_channel_offsets {
                return Err(invalid(
                    "gather4_po of a SURFTYPE_CUBE surface: \"only SURFTYPE_2D is allowed\" \
                     (seed 000 §2.13.1.4)",
                ));
            }
            // Cube gather4 ("u v r ai"): the face the direction selects.
            let dir = [u, v, r];
            let p = crate::cube::select(dir);
            let [s, t] = p.st();
            (
                [s, t, 0.0],
                cube_slice(&tex, params.f(first + 3, lane), p.face),
                Some(p.face),
            )
        } else {
            ([u, v, 0.0], array_slice(&tex, r), None)
        };
        let at = At {
            coords,
            slice,
            offsets: if face.is_some() { [0; 3] } else { offsets },
            compare: shadow.map(|f| {
                (
                    f,
                    crate::shadow::reference(tex.surface.format, params.f(0, lane)),
                )
            }),
            face,
            aniso: None,
        };
        let texels = tex
            .gather(&smp, level, at, channel)
            .map_err(|e| e.context(format!("channel {lane}")))?;
        *slot = texels;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// ld
// ---------------------------------------------------------------------------------------

/// ld (seed 000 §2.13.1.4): integer texel coordinates and LOD, no sampler state, no
/// filtering. Gen7 parameters (§2.13.1.3.1): u lod v r (the table's second "ld †" row,
/// u v lod r, is the later-generation order). u, v, r are x, y (1D: array index), and z
/// (3D) or array index (2D) per §2.13.1.5; SURFTYPE_BUFFER uses u only, as the element
/// index, and ignores the LOD. The LOD has Surface Min LOD added (§2.12.2 DW5 7:4). Any
/// coordinate or LOD outside the surface "returns zero": zero channels, alpha 1 for formats
/// without alpha except the errata list.
fn ld_message(
    d: &SamplerMessage,
    header: &SamplerHeader,
    params: &Params<'_>,
    enabled: u32,
    lanes: usize,
    res: &dyn SamplerResources,
) -> Result<Vec<[u32; 4]>, MessageError> {
    let mut out = vec![[0u32; 4]; lanes];
    let Some(view) = bound_surface(d, res)? else {
        return Ok(out);
    };
    let tex = Texture::open(&view, res.memory(), Access::Ld)?;
    if ld_2d_uniform(&tex, header, params, enabled, lanes, &mut out) {
        return Ok(out);
    }
    let [du, dv, dr] = header.offsets.map(i64::from);
    // Each enabled lane's texel: (level, x, y, slice), or None outside the surface.
    let mut texel_of: [LdTexel; 32] = [None; 32];
    for (lane, entry) in texel_of.iter_mut().enumerate().take(lanes) {
        if (enabled >> lane) & 1 == 0 {
            continue;
        }
        let u = i64::from(params.i(0, lane));
        let lod = i64::from(params.i(1, lane));
        let v = i64::from(params.i(2, lane));
        let r = i64::from(params.i(3, lane));
        let inside = |x: i64, n: u32| (0..i64::from(n)).contains(&x);
        // (level, x, y, slice), or None when outside the surface.
        let at = if tex.dim == Dim::Buffer {
            inside(u + du, tex.size0[0]).then(|| (0, u + du, 0, 0))
        } else if !(0..=i64::from(tex.mip_count)).contains(&lod) {
            None
        } else {
            let level = lod as u32 + tex.surf_min_lod;
            let dims = tex.level_dims(level);
            match tex.dim {
                Dim::D1 => (inside(u + du, dims[0]) && inside(v, tex.array_len))
                    .then(|| (level, u + du, 0, v + i64::from(tex.min_array))),
                Dim::D2 => {
                    (inside(u + du, dims[0]) && inside(v + dv, dims[1]) && inside(r, tex.array_len))
                        .then(|| (level, u + du, v + dv, r + i64::from(tex.min_array)))
                }
                _ => {
                    (inside(u + du, dims[0]) && inside(v + dv, dims[1]) && inside(r + dr, dims[2]))
                        .then(|| (level, u + du, v + dv, r + dr))
                }
            }
        };
        // All in range of u32 by the checks above.
        let c = |x: i64| u32::try_from(x).unwrap_or(u32::MAX);
        *entry = Some(at.map(|(level, x, y, slice)| (level, c(x), c(y), c(slice))));
    }
    if ld_in_runs(&tex, &texel_of, &mut out) {
        return Ok(out);
    }
    for (lane, slot) in out.iter_mut().enumerate() {
        let Some(at) = texel_of.get(lane).copied().flatten() else {
            continue;
        };
        let t = match at {
            None => tex.zero(true),
            Some((level, x, y, slice)) => tex
                .read(level, x, y, slice)
                .map_err(|e| e.context(format!("channel {lane}")))?,
        };
        *slot = texel_bits(t);
    }
    Ok(out)
}

/// The common `ld`: a 2D surface (or 2D array), no texel offsets, and every enabled
/// lane at the same LOD and array index, in range; the lanes' texels (inside the level,
/// or the out-of-range texel of §2.13.1.4 outside it) read row by row as
/// [`ld_in_runs`] reads them, with the coordinates taken straight from the parameter
/// registers. `false` (and nothing written to `out` that matters) when the case does not
/// apply or a read fails: the general path then gives every value and error.
fn ld_2d_uniform(
    tex: &Texture,
    header: &SamplerHeader,
    params: &Params<'_>,
    enabled: u32,
    lanes: usize,
    out: &mut [[u32; 4]],
) -> bool {
    if tex.dim != Dim::D2 || header.offsets != [0; 3] || enabled == 0 {
        return false;
    }
    // Parameters u lod v r (seed 000 §2.13.1.3.1 ld), every lane's at once.
    let (Some(u), Some(lod), Some(v), Some(r)) = (
        params.column(0),
        params.column(1),
        params.column(2),
        params.column(3),
    ) else {
        return false;
    };
    // The LOD and array index of the first enabled lane, which every other must share.
    let first = enabled.trailing_zeros() as usize;
    let (lod0, r0) = (lod[first], r[first]);
    let live = |l: usize| (enabled >> l) & 1 != 0;
    if (0..lanes).any(|l| live(l) && (lod[l] != lod0 || r[l] != r0)) {
        return false;
    }
    let (Ok(lod0), Ok(r0)) = (u32::try_from(lod0), u32::try_from(r0)) else {
        return false;
    };
    if lod0 > tex.mip_count || r0 >= tex.array_len {
        return false;
    }
    let level = lod0 + tex.surf_min_lod;
    let slice = r0 + tex.min_array;
    let [w, h, _] = tex.level_dims(level);
    let inside = |l: usize| {
        (0..w as i64).contains(&i64::from(u[l])) && (0..h as i64).contains(&i64::from(v[l]))
    };
    if let Some(done) = ld_in_grid(tex, (level, slice), (&u, &v), enabled, lanes, &inside, out) {
        return done;
    }
    let mut texel_of: [LdTexel; 32] = [None; 32];
    for lane in (0..lanes).filter(|&l| live(l)) {
        texel_of[lane] =
            Some(inside(lane).then_some((level, u[lane] as u32, v[lane] as u32, slice)));
    }
    ld_in_runs(tex, &texel_of, out)
}

/// [`ld_2d_uniform`]'s lanes when their texels lie in a small box (a pixel shader's
/// subspans do): each lane placed in a grid over the box, and each row's neighbours read
/// with one memory access ([`Texture::read_run`]), as [`ld_in_runs`] reads them, without
/// sorting. `None` when the lanes do not fit (a box over [`GRID`] cells, or two lanes on
/// one texel): [`ld_in_runs`] then takes them. `Some(false)` when a read cannot be done
/// that way (the general path then gives every value and error).
fn ld_in_grid(
    tex: &Texture,
    (level, slice): (u32, u32),
    (u, v): (&[i32; 16], &[i32; 16]),
    enabled: u32,
    lanes: usize,
    inside: &dyn Fn(usize) -> bool,
    out: &mut [[u32; 4]],
) -> Option<bool> {
    /// Cells of the box: a SIMD16 thread's four subspans span 8x2 or 4x4 texels.
    const GRID: usize = 32;
    let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
    let mut any = false;
    for l in 0..lanes {
        if (enabled >> l) & 1 == 0 {
            continue;
        }
        if !inside(l) {
            out[l] = texel_bits(tex.zero(true));
            continue;
        }
        any = true;
        (x0, y0) = (x0.min(u[l]), y0.min(v[l]));
        (x1, y1) = (x1.max(u[l]), y1.max(v[l]));
    }
    if !any {
        return Some(true);
    }
    let (bw, bh) = ((x1 - x0 + 1) as usize, (y1 - y0 + 1) as usize);
    if bw * bh > GRID {
        return None;
    }
    // Lane + 1 per cell, 0 for none.
    let mut grid = [0u8; GRID];
    for l in 0..lanes {
        if (enabled >> l) & 1 == 0 || !inside(l) {
            continue;
        }
        let cell = &mut grid[(v[l] - y0) as usize * bw + (u[l] - x0) as usize];
        if *cell != 0 {
            return None;
        }
        *cell = l as u8 + 1;
    }
    let mut texels = [Texel::Uint([0; 4]); 32];
    for row in 0..bh {
        let cells = &grid[row * bw..(row + 1) * bw];
        let mut i = 0;
        while i < bw {
            if cells[i] == 0 {
                i += 1;
                continue;
            }
            let len = cells[i..].iter().take_while(|&&c| c != 0).count();
            let x = (x0 as usize + i) as u32;
            let y = (y0 as usize + row) as u32;
            let Some(k) = tex.read_run(level, (x, y), slice, len, &mut texels) else {
                return Some(false);
            };
            for (j, t) in texels.iter().enumerate().take(k) {
                out[usize::from(cells[i + j] - 1)] = texel_bits(*t);
            }
            i += k;
        }
    }
    Some(true)
}

/// An `ld` lane's texel: None for a disabled lane, Some(None) outside the surface,
/// else (level, x, y, slice).
type LdTexel = Option<Option<(u32, u32, u32, u32)>>;

/// The texel of each lane of an `ld` (`texel_of`: None for a disabled lane, Some(None)
/// outside the surface) into `out`, reading neighbours in memory together: the lanes
/// in raster order, each row's consecutive texels with one memory access
/// ([`Texture::read_run`]). `false` (and `out` to be filled again) when a texel cannot
/// be read that way: the lane-by-lane path then gives every value and the first
/// lane's error, as it always does.
fn ld_in_runs(tex: &Texture, texel_of: &[LdTexel; 32], out: &mut [[u32; 4]]) -> bool {
    // (level, slice, y, x, lane) of the lanes that read memory, in raster order: packed
    // into one integer each (level 4 bits, slice 11, y and x 16 each, lane 5), whose
    // order is that of the tuples, so that sorting them is cheap; a coordinate too wide
    // for its field leaves the lanes to the lane-by-lane path.
    let mut keys = [0u64; 32];
    let mut n = 0;
    for (lane, at) in texel_of.iter().enumerate().take(out.len()) {
        match at {
            Some(Some((level, x, y, slice))) => {
                if *level >= 1 << 4 || *slice >= 1 << 11 || *y >= 1 << 16 || *x >= 1 << 16 {
                    return false;
                }
                keys[n] = u64::from(*level) << 48
                    | u64::from(*slice) << 37
                    | u64::from(*y) << 21
                    | u64::from(*x) << 5
                    | lane as u64;
                n += 1;
            }
            Some(None) => out[lane] = texel_bits(tex.zero(true)),
            None => {}
        }
    }
    let keys = &mut keys[..n];
    keys.sort_unstable();
    let mut order = [(0u32, 0u32, 0u32, 0u32, 0u8); 32];
    for (o, k) in order.iter_mut().zip(keys.iter()) {
        let field = |shift: u32, bits: u32| ((k >> shift) & ((1 << bits) - 1)) as u32;
        *o = (
            field(48, 4),
            field(37, 11),
            field(21, 16),
            field(5, 16),
            field(0, 5) as u8,
        );
    }
    let order = &order[..n];
    let mut texels = [Texel::Uint([0; 4]); 32];
    let mut i = 0;
    while i < n {
        let (level, slice, y, x0, _) = order[i];
        // The lanes that continue this row (a lane repeating a texel ends the row).
        let mut len = 1;
        while i + len < n && {
            let (l, s, yy, x, _) = order[i + len];
            (l, s, yy) == (level, slice, y) && x == x0 + len as u32
        } {
            len += 1;
        }
        let Some(k) = tex.read_run(level, (x0, y), slice, len, &mut texels) else {
            return false;
        };
        for (j, t) in texels.iter().enumerate().take(k) {
            out[order[i + j].4 as usize] = texel_bits(*t);
        }
        i += k;
    }
    true
}

// ---------------------------------------------------------------------------------------
// resinfo
// ---------------------------------------------------------------------------------------

/// resinfo (seed 000 §2.13.1.4): the surface is not sampled; per channel, UINT32 width,
/// height, depth and MIP count from the state, the sizes shifted right by the `lod`
/// parameter (an unsigned 32-bit integer).
///
/// | Surface Type | red | green | blue | alpha |
/// |---|---|---|---|---|
/// | 1D | (Width+1)>>LOD | Surface Array ? Depth+1 : 0 | 0 | MIP count |
/// | 2D | (Width+1)>>LOD | (Height+1)>>LOD | Surface Array ? Depth+1 : 0 | MIP count |
/// | 3D | (Width+1)>>LOD | (Height+1)>>LOD | (Depth+1)>>LOD | MIP count |
/// | CUBE | (Width+1)>>LOD | (Height+1)>>LOD | Surface Array ? Depth+1 : 0 | MIP count |
/// | BUFFER, STRBUF | elements (combined Width/Height/Depth) | 0 | 0 | 0 |
/// | NULL | 0 | 0 | 0 | 0 |
///
/// Readings where the seed is smeared or silent: the shifted sizes are at least 1 (a mip
/// level is never smaller, §2.2.1 L412); the LOD has Surface Min LOD added before the
/// shift (the Surface Min LOD field names resinfo among the messages it applies to); a LOD
/// past MIP Count is out of range and returns 0 sizes (the seed's "negative values are
/// out-of-range"); the MIP count returned is the number of levels, MIP Count / LOD + 1
/// (the field is "U4 in (LOD units – 1)", and §2.7 L734 says resinfo returns "the MIP
/// count of the surface"); the seed's "undefined" channels read 0.
fn resinfo_message(
    d: &SamplerMessage,
    params: &Params<'_>,
    enabled: u32,
    lanes: usize,
    res: &dyn SamplerResources,
) -> Result<Vec<[u32; 4]>, MessageError> {
    let mut out = vec![[0u32; 4]; lanes];
    let s = res
        .surface(d.binding_table_index)
        .map_err(|e| e.context("surface state"))?;
    let levels = s.mip_count + 1;
    let array = |depth: u32| if s.array { depth } else { 0 };
    let [w, h, depth] = s.size;
    for (lane, slot) in out.iter_mut().enumerate() {
        if (enabled >> lane) & 1 == 0 {
            continue;
        }
        let lod = params.raw(0, lane);
        let in_range = lod <= s.mip_count;
        let shift = lod.saturating_add(s.surface_min_lod);
        let size = |field: u32| {
            if in_range {
                crate::filter::level_size(field, shift)
            } else {
                0
            }
        };
        *slot = match s.kind {
            SurfaceKind::D1 => [size(w), array(depth), 0, levels],
            SurfaceKind::D2 | SurfaceKind::Cube => [size(w), size(h), array(depth), levels],
            SurfaceKind::D3 => [size(w), size(h), size(depth), levels],
            // The entry count (§2.12.2 Width/Height/Depth for SURFTYPE_BUFFER).
            SurfaceKind::Buffer | SurfaceKind::StructuredBuffer => [s.buffer_entries, 0, 0, 0],
            SurfaceKind::Null => [0; 4],
            SurfaceKind::Reserved(raw) => {
                return Err(invalid(format!(
                    "Surface Type {raw} is reserved (seed 000 §2.12.2 DW0 31:29)"
                )));
            }
        };
    }
    Ok(out)
}

/// The texels of the media sampler's sample_unorm (seed 000 §2.13.1.4): each of
/// `coords` (normalized U, V) sampled at level 0 with the message's 3D surface and
/// sampler state, as a SIMD16 `sample_l` with LOD 0 samples them. Returns the RGBA
/// floats of each and the mask of the ones a chroma key killed (bit per coordinate),
/// after checking the restrictions the seed gives sample_unorm: a 2D surface of UNORM
/// format with at most 8 bits per channel and no mips, NEAREST or LINEAR filters, no
/// mip filter, and no wrapping, mirroring or border address mode.
pub(crate) fn sample_unorm_texels(
    d: &SamplerMessage,
    coords: &[[f32; 2]],
    res: &dyn SamplerResources,
) -> Result<(Vec<[f32; 4]>, u64), MessageError> {
    let rule = |why: String| invalid(format!("sample_unorm: {why} (seed 000 §2.13.1.4)"));
    let view = res
        .surface(d.binding_table_index)
        .map_err(|e| e.context("surface state"))?;
    if view.kind != SurfaceKind::D2 {
        return Err(rule(format!(
            "the surface is {}, not SURFTYPE_2D",
            surface_type_name(view.kind)
        )));
    }
    let layout = view.layout.clone()?;
    let name = layout.format.name().unwrap_or("?");
    let wide = ["16", "10", "11", "24", "32", "SRGB"];
    if !name.contains("UNORM") || wide.iter().any(|w| name.contains(w)) {
        return Err(rule(format!(
            "the surface format {name} is not UNORM with at most 8 bits per channel"
        )));
    }
    if view.mip_count != 0 || view.min_array_element != 0 || view.size[2] != 1 {
        return Err(rule(
            "MIP Count, Depth and Minimum Array Element must be 0".into(),
        ));
    }
    let state = res
        .sampler(d.sampler_index)
        .map_err(|e| e.context("sampler state"))?;
    let linear_or_nearest = |f: &Result<MapFilter, crate::SamplerError>| {
        matches!(f, Ok(MapFilter::Nearest | MapFilter::Linear))
    };
    if !linear_or_nearest(&state.min_filter) || !linear_or_nearest(&state.mag_filter) {
        return Err(rule(
            "Min and Mag Mode Filter must be MAPFILTER_NEAREST or MAPFILTER_LINEAR".into(),
        ));
    }
    if state.mip_filter != Ok(crate::lod::MipFilter::None) {
        return Err(rule("Mip Mode Filter must be MIPFILTER_NONE".into()));
    }
    for mode in &state.address[..2] {
        if !matches!(mode, Ok(TexCoordMode::Clamp | TexCoordMode::Cube)) {
            return Err(rule(format!(
                "TCX/TCY Address Control Mode {mode:?} is not allowed (no wrap, mirror or border)"
            )));
        }
    }
    let msg = SamplerMessage {
        op: SamplerOp::SampleL,
        simd: SamplerSimd::Simd16,
        header: None,
        message_length: 6,
        response_length: 8,
        name: String::new(),
        ..d.clone()
    };
    let mut out = Vec::with_capacity(coords.len());
    let mut killed = 0u64;
    for (chunk, part) in coords.chunks(16).enumerate() {
        // sample_l "lod u v": two registers each, LOD 0.
        let mut regs = vec![[0u8; 32]; 6];
        for (lane, [u, v]) in part.iter().enumerate() {
            for (p, value) in [(1, u), (2, v)] {
                let reg = &mut regs[2 * p + lane / 8];
                let i = 4 * (lane % 8);
                reg[i..i + 4].copy_from_slice(&value.to_bits().to_le_bytes());
            }
        }
        let params = Params {
            regs: &regs,
            layout: Layout::Simd16,
            count: 3,
        };
        let enabled = (1u32 << part.len()) - 1;
        let (texels, k) = sample_message(
            SamplerOp::SampleL,
            &msg,
            &SamplerHeader::default(),
            &params,
            enabled,
            16,
            res,
        )?;
        killed |= u64::from(k & enabled) << (16 * chunk);
        out.extend(
            texels
                .iter()
                .take(part.len())
                .map(|t| t.map(f32::from_bits)),
        );
    }
    Ok((out, killed))
}
