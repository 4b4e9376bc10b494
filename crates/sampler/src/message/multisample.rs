//! The multisampled-surface messages (seed 000 §2.7, §2.13.1.4): `ld_mcs`, `ld2dms`,
//! `ld2dss` and `sampleinfo`.
//!
//! A multisampled colour surface in the MSFMT_MSS storage format keeps its samples as
//! *sample slices*: each logical array slice is followed by one physical slice per
//! sample (the layout in `gtsim_mem::layout`). Without a multisample control surface
//! (MCS Enable clear) sample `si` is sample slice `si`. With one, the MCS holds, per
//! pixel, which sample slice each sample's colour is in: a kernel first reads the pixel's
//! MCS value with `ld_mcs`, then passes it to `ld2dms` with the sample index (§2.7.1).
//! MSFMT_DEPTH_STENCIL surfaces interleave the samples in the plane instead; only
//! `ld2dms`, `resinfo` and `sampleinfo` may read them (seed 000 §2.12.2 Multisampled
//! Surface Storage Format programming note).
//!
//! The seeds do not give the MCS encoding. From public facts:
//! * the MCS element is R8_UINT for 4x and R32_UINT for 8x (seed 000 §2.13.1.4 ld_mcs);
//! * each sample's sample slice index takes log2(samples) bits, sample 0 in the low
//!   bits (2 bits per sample for 4x, 3 for 8x; IVB PRM Vol 1 Part 1 "Compressed
//!   Multisampled Surfaces"), so an MCS value of 0 means every sample is in sample
//!   slice 0 (seed 000 §2.7.1: "compare the MCS value to zero (indicating all samples
//!   are on sample slice 0)");
//! * the all-ones MCS value (0xff for 4x, 0xffffffff for 8x) marks a fast-cleared pixel,
//!   whose samples read the surface state's clear colour: Red/Green/Blue/Alpha Clear
//!   Color, each 0 or 1 (1.0 for non-integer formats), as Mesa's BLORP relies on ("the
//!   txf we did on sample 0 will return the clear color", blorp_blit.c, and its
//!   `blorp_nir_mcs_is_clear_color`).

use super::{
    MessageError, Params, SamplerMessage, SamplerOp, SurfaceKind, SurfaceView, Texture,
    bound_surface, invalid, surface_type_name, texel_bits, zero_texel,
};
use crate::message::SamplerResources;
use crate::state::SamplerHeader;
use gtsim_mem::format::texel::{self, Texel};
use gtsim_mem::layout::MsaaLayout;

/// Seed 000 §2.13.1.4 programming notes: "The Surface Type of the associated surface
/// must be SURFTYPE_2D for the ld_mcs, ld2dms, and ld2dss messages", and ld_mcs "cannot
/// be used on a non-multisampled surface"; on MSFMT_DEPTH_STENCIL surfaces only ld2dms
/// (with resinfo and sampleinfo) is allowed (§2.12.2) -- except ld_mcs, which reads
/// such a surface as having no MCS (0): Mesa's compiler sends ld_mcs before every
/// ld2dms of a texture its shader key calls compressed, and crocus's
/// arb_texture_multisample-sample-depth runs such a shader on a depth texture, which
/// Ivy Bridge hardware renders correctly.
fn check_surface(kind: SamplerOp, view: &SurfaceView) -> Result<(), MessageError> {
    if view.kind != SurfaceKind::D2 {
        return Err(invalid(format!(
            "{kind:?} of a {} surface: the Surface Type must be SURFTYPE_2D (seed 000 \
             §2.13.1.4 programming notes)",
            surface_type_name(view.kind)
        )));
    }
    // ld2dms and ld_mcs of a single-sampled surface read it as one sample without an
    // MCS: Mesa's BLORP sends them to the single-sampled view of an interleaved stencil
    // buffer it resolves (ext_framebuffer_multisample-accuracy stencil_resolve), which
    // Ivy Bridge hardware serves.
    if view.samples < 2
        && !matches!(
            kind,
            SamplerOp::Ld2dms | SamplerOp::Ld2dmsW | SamplerOp::LdMcs
        )
    {
        return Err(invalid(format!(
            "{kind:?} of a surface whose Number of Multisamples is MULTISAMPLECOUNT_1 \
             (seed 000 §2.13.1.4: these messages read multisampled surfaces)"
        )));
    }
    let interleaved = view
        .layout
        .as_ref()
        .is_ok_and(|s| s.desc.msaa_layout == MsaaLayout::Interleaved);
    if interleaved
        && !matches!(
            kind,
            SamplerOp::Ld2dms | SamplerOp::Ld2dmsW | SamplerOp::LdMcs
        )
    {
        return Err(invalid(format!(
            "{kind:?} of an MSFMT_DEPTH_STENCIL surface: only ld2dms, resinfo and \
             sampleinfo may read it (seed 000 §2.12.2 Multisampled Surface Storage Format)"
        )));
    }
    Ok(())
}

/// The pixel an ld-style message addresses: u, v with the header's U and V offsets, r
/// the array index from Minimum Array Element, `lod` within MIP Count (§2.13.1.4 ld:
/// "integer texel addresses"; the R offset "needs to be zero for ld2dms/ld2dss", so it is
/// not applied). `None` outside the surface: the message then returns zero.
fn pixel(
    tex: &Texture<'_>,
    header: &SamplerHeader,
    [u, v, r, lod]: [i32; 4],
) -> Option<(u32, u32, u32, u32)> {
    let [du, dv, _] = header.offsets.map(i64::from);
    let (u, v, r, lod) = (
        i64::from(u) + du,
        i64::from(v) + dv,
        i64::from(r),
        i64::from(lod),
    );
    if !(0..=i64::from(tex.mip_count)).contains(&lod) {
        return None;
    }
    let level = lod as u32 + tex.surf_min_lod;
    let dims = tex.level_dims(level);
    let inside = |x: i64, n: u32| (0..i64::from(n)).contains(&x);
    (inside(u, dims[0]) && inside(v, dims[1]) && inside(r, tex.array_len)).then(|| {
        (
            level,
            u as u32,
            v as u32,
            (r + i64::from(tex.min_array)) as u32,
        )
    })
}

/// The MCS value that marks a fast-cleared pixel: all ones in the element.
fn clear_mcs(samples: u32) -> u64 {
    match samples {
        16 => u64::MAX,
        8 => u64::from(u32::MAX),
        _ => 0xff,
    }
}

/// The sample slice that holds sample `si` according to MCS value `mcs`: log2(samples)
/// bits per sample, sample 0 lowest.
pub(crate) fn sample_slice(mcs: u64, si: u32, samples: u32) -> u32 {
    let bits = samples.trailing_zeros();
    (mcs.checked_shr(si.saturating_mul(bits)).unwrap_or(0) & ((1 << bits) - 1)) as u32
}

/// The clear colour as the surface's format returns it: the surface's raw clear value
/// when it has one (Gen9+), else each channel 0 or 1 (integer formats) or 0.0 or 1.0;
/// channels the format lacks read as any texel of the format.
fn clear_texel(view: &SurfaceView, tex: &Texture<'_>) -> Texel {
    let f = tex.surface.format;
    let has = texel::rgba_channels(f).unwrap_or([true; 4]);
    let missing = |c: usize| u32::from(c == 3);
    if let Some(v) = view.clear_value {
        // Raw values: integers as they are, floats as their bits.
        let value = |c: usize| if has[c] { v[c] } else { missing(c) };
        return match zero_texel(f, false) {
            Texel::Uint(_) => Texel::Uint(std::array::from_fn(value)),
            Texel::Sint(_) => Texel::Sint(std::array::from_fn(|c| value(c) as i32)),
            Texel::Float(_) => Texel::Float(std::array::from_fn(|c| {
                if has[c] {
                    f32::from_bits(v[c])
                } else {
                    missing(c) as f32
                }
            })),
        };
    }
    let one = |c: usize| u32::from(view.clear_color[c]);
    let value = |c: usize| if has[c] { one(c) } else { missing(c) };
    match zero_texel(f, false) {
        Texel::Uint(_) => Texel::Uint(std::array::from_fn(value)),
        Texel::Sint(_) => Texel::Sint(std::array::from_fn(|c| value(c) as i32)),
        Texel::Float(_) => Texel::Float(std::array::from_fn(|c| value(c) as f32)),
    }
}

/// ld2dms (seed 000 §2.13.1.4, §2.7.1): sample `si` of pixel (u, v) of array slice r,
/// through the MCS value `mcs` the kernel read with ld_mcs. SIMD8/16 parameters
/// `si mcs u v r lod`, SIMD4x2 `u v r lod si mcs` (§2.13.1.3.1). A pixel, LOD or sample
/// index outside the surface returns zero, as ld does.
///
/// ld2dss: the same read from sample slice `ssi` itself, without an MCS value;
/// parameters `ssi u v r lod` (SIMD8/16 only).
pub(super) fn ld2dms_message(
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
    check_surface(kind, &view)?;
    let tex = Texture::open(&view, res.memory(), Access::Multisampled)?;
    let samples = tex.surface.desc.samples;
    let mcs_enabled = view.mcs.is_some();
    for (lane, slot) in out.iter_mut().enumerate() {
        if (enabled >> lane) & 1 == 0 {
            continue;
        }
        let (si, mcs, first) = match kind {
            SamplerOp::Ld2dss => (params.raw(0, lane), None, 1),
            // ld2dms_w: the MCS value's low and high dwords.
            SamplerOp::Ld2dmsW => (
                params.raw(0, lane),
                Some(u64::from(params.raw(1, lane)) | u64::from(params.raw(2, lane)) << 32),
                3,
            ),
            _ => (params.raw(0, lane), Some(u64::from(params.raw(1, lane))), 2),
        };
        let coords = std::array::from_fn(|i| params.i(first + i, lane));
        let Some((level, x, y, slice)) = pixel(&tex, header, coords) else {
            *slot = texel_bits(tex.zero(true));
            continue;
        };
        if si >= samples {
            *slot = texel_bits(tex.zero(true));
            continue;
        }
        let physical = match mcs {
            Some(m) if mcs_enabled && m == clear_mcs(samples) => {
                *slot = texel_bits(clear_texel(&view, &tex));
                continue;
            }
            Some(m) if mcs_enabled => sample_slice(m, si, samples),
            // No MCS: sample si is in sample slice si; ld2dss names the slice.
            _ => si,
        };
        *slot = texel_bits(
            tex.read_sample(level, x, y, slice, physical)
                .map_err(|e| e.context(format!("channel {lane}, sample {si}")))?,
        );
    }
    Ok(out)
}

/// ld_mcs (seed 000 §2.13.1.4): an ld of the multisample control surface: "the surface
/// is defined by the MCS fields of SURFACE_STATE rather than the normal fields. The
/// surface format is effectively R8_UINT for 4x surfaces and R32_UINT for 8x surfaces"
/// (§2.7.1). Parameters `u v r lod` in every SIMD mode. A pixel outside the surface
/// returns zero; a surface without an MCS (MCS Enable clear) returns 0, the value that
/// sends every sample to its own slice through ld2dms (which ignores it there).
pub(super) fn ld_mcs_message(
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
    check_surface(SamplerOp::LdMcs, &view)?;
    let Some(mcs) = view.mcs.clone() else {
        for (lane, slot) in out.iter_mut().enumerate() {
            if (enabled >> lane) & 1 != 0 {
                *slot = [0, 0, 0, 1];
            }
        }
        return Ok(out);
    };
    let mcs = mcs.map_err(|e| e.context("multisample control surface"))?;
    let mcs_view = SurfaceView {
        layout: Ok(mcs),
        samples: 1,
        mcs: None,
        ..(*view).clone()
    };
    let tex = Texture::open(&mcs_view, res.memory(), Access::Single)?;
    for (lane, slot) in out.iter_mut().enumerate() {
        if (enabled >> lane) & 1 == 0 {
            continue;
        }
        let coords = std::array::from_fn(|i| params.i(i, lane));
        *slot = texel_bits(match pixel(&tex, header, coords) {
            None => tex.zero(true),
            Some((level, x, y, slice)) => tex
                .read(level, x, y, slice)
                .map_err(|e| e.context(format!("channel {lane}, MCS")))?,
        });
    }
    Ok(out)
}

/// sampleinfo (seed 000 §2.13.1.4): "the number of samples (UINT32) and the sample
/// position palette index (UINT32) for the surface are returned in the red and alpha
/// channels respectively ... The sample position palette index returned in alpha is
/// incremented by one from its value in the surface state." The surface must be
/// SURFTYPE_2D or SURFTYPE_NULL; a null surface returns zeros, and green and blue
/// (not defined by the seed) read 0.
pub(super) fn sampleinfo_message(
    d: &SamplerMessage,
    enabled: u32,
    lanes: usize,
    res: &dyn SamplerResources,
) -> Result<Vec<[u32; 4]>, MessageError> {
    let view = res
        .surface(d.binding_table_index)
        .map_err(|e| e.context("surface state"))?;
    let value = match view.kind {
        SurfaceKind::Null => [0; 4],
        SurfaceKind::D2 => [view.samples, 0, 0, view.sample_palette_index + 1],
        other => {
            return Err(invalid(format!(
                "sampleinfo of a {} surface: the Surface Type must be SURFTYPE_2D or \
                 SURFTYPE_NULL (seed 000 §2.13.1.4 programming notes)",
                surface_type_name(other)
            )));
        }
    };
    Ok((0..lanes)
        .map(|lane| {
            if (enabled >> lane) & 1 == 0 {
                [0; 4]
            } else {
                value
            }
        })
        .collect())
}

/// Where each parameter of the SIMD8 table lies in the SIMD4x2 table for these messages
/// (seed 000 §2.13.1.3.1): ld_mcs is `u v r lod` in both; ld2dms `si mcs u v r lod` and
/// `u v r lod si mcs`. ld2dss and sampleinfo take no SIMD4x2 parameters (ld2dss has no
/// SIMD4x2 row).
pub(super) fn simd4x2_order(kind: SamplerOp) -> Option<&'static [usize]> {
    match kind {
        SamplerOp::LdMcs => Some(&[0, 1, 2, 3]),
        SamplerOp::Ld2dms => Some(&[4, 5, 0, 1, 2, 3]),
        _ => None,
    }
}

/// How a message may read a surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    /// sample*, gather4*, LOD: single-sampled non-buffer surfaces.
    Single,
    /// ld: single-sampled surfaces, buffers included.
    Ld,
    /// ld2dms, ld2dss: multisampled 2D surfaces.
    Multisampled,
}
