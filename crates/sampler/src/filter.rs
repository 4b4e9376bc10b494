//! Intra-level filtering of a 2D level (seed 000 §2.2.2 L537-571) with the address
//! control of §2.2.3, and the inter-level blend of MIPFILTER_LINEAR (§2.2.1.5.1 L528,
//! L533; §2.5 L718-722).

use crate::SamplerError;
use crate::address::{Resolved, TexCoordMode, linear_taps, nearest_tap, resolve};
use crate::lod::{LodResult, MipLevels};

/// MAPFILTER_*: SAMPLER_STATE `Min Mode Filter` / `Mag Mode Filter` (seed 000
/// §2.12.3.1; operation §2.2.2 L545-556).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapFilter {
    /// 0h: the nearest texel (§2.2.2.1 L556).
    Nearest = 0,
    /// 1h: bilinear over the 2x2 surrounding texels (§2.2.2.2 L558-571).
    Linear = 1,
    /// 2h: bilinear subpixels along the footprint's major axis (§2.2.2.3); the message
    /// handler applies it where it knows the footprint, otherwise it filters as LINEAR.
    Anisotropic = 2,
}

impl MapFilter {
    /// Decodes the 3-bit field. MAPFILTER_MONO (6h) is defined but not modelled; the
    /// other values are reserved.
    pub fn from_raw(value: u32) -> Result<Self, SamplerError> {
        match value {
            0 => Ok(Self::Nearest),
            1 => Ok(Self::Linear),
            2 => Ok(Self::Anisotropic),
            6 => Err(SamplerError::Unmodelled(gtsim_spec::Unsupported::new(
                "MAPFILTER_MONO",
                "seed 000 §2.2.2.4",
            ))),
            _ => Err(SamplerError::Reserved {
                field: "Min/Mag Mode Filter",
                value,
                seed: "seed 000 §2.12.3.1 SAMPLER_STATE DW0 19:14",
            }),
        }
    }
}

/// The sampler state a 2D sample reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampler2d {
    /// `MinFilter`, used when minifying (§2.2.2 L541).
    pub min_filter: MapFilter,
    /// `MagFilter`, used when magnifying (§2.2.2 L541).
    pub mag_filter: MapFilter,
    /// TCX control mode.
    pub address_u: TexCoordMode,
    /// TCY control mode.
    pub address_v: TexCoordMode,
    /// `BorderColor` (§2.2.3.5 L656), already in the sampler's output channel form.
    pub border_color: [f32; 4],
}

/// Reads texel `(x, y)` of mip level `level`; `x` and `y` are always inside the level.
pub type Fetch<'a> = &'a dyn Fn(u32, u32, u32) -> [f32; 4];

/// The size of mip level `level` along an axis whose level-0 size is `base`: "Each
/// successive level has ½ the resolution of the previous level ... (to a minimum of 1
/// texel ...)" (§2.2.1 L412). Levels past 31 saturate to 1 instead of overflowing.
pub fn level_size(base: u32, level: u32) -> u32 {
    base.checked_shr(level).unwrap_or(0).max(1)
}

/// `a + (b − a)·w` per channel: `(1 − w)·a + w·b`.
pub fn lerp4(a: [f32; 4], b: [f32; 4], w: f32) -> [f32; 4] {
    std::array::from_fn(|c| a[c] + (b[c] - a[c]) * w)
}

/// One texel tap of a level after address control, or the border colour.
fn tap(
    fetch: Fetch<'_>,
    sampler: &Sampler2d,
    level: u32,
    size: (u32, u32),
    x: i32,
    y: i32,
) -> Result<[f32; 4], SamplerError> {
    let rx = resolve(sampler.address_u, x, size.0);
    let ry = resolve(sampler.address_v, y, size.1);
    match (rx, ry) {
        (Resolved::Texel(x), Resolved::Texel(y)) => Ok(fetch(level, x, y)),
        (Resolved::OffFace(_), _) | (_, Resolved::OffFace(_)) => {
            Err(SamplerError::Unmodelled(gtsim_spec::Unsupported::new(
                "TEXCOORDMODE_CUBE adjoining-face taps",
                "seed 000 §2.2.3.6 L660",
            )))
        }
        _ => Ok(sampler.border_color),
    }
}

/// Filters one level of `width` x `height` texels at normalized `(u, v)` with `filter`.
///
/// NEAREST reads the texel containing the coordinate; LINEAR reads the 2x2 texels whose
/// centres surround it and weights them bilinearly ([`crate::address::linear_taps`]).
/// Each tap goes through the axis's address mode separately, so a LINEAR footprint
/// straddling an edge mixes the edge texels with wrapped, mirrored, clamped or border
/// texels as the modes say.
pub fn sample_level(
    fetch: Fetch<'_>,
    sampler: &Sampler2d,
    filter: MapFilter,
    level: u32,
    size: (u32, u32),
    uv: (f32, f32),
) -> Result<[f32; 4], SamplerError> {
    let (width, height) = size;
    match filter {
        MapFilter::Nearest => {
            let (x, y) = (nearest_tap(uv.0, width), nearest_tap(uv.1, height));
            tap(fetch, sampler, level, size, x, y)
        }
        MapFilter::Linear | MapFilter::Anisotropic => {
            let (tu, tv) = (linear_taps(uv.0, width), linear_taps(uv.1, height));
            let t00 = tap(fetch, sampler, level, size, tu.i0, tv.i0)?;
            let t10 = tap(fetch, sampler, level, size, tu.i1, tv.i0)?;
            let t01 = tap(fetch, sampler, level, size, tu.i0, tv.i1)?;
            let t11 = tap(fetch, sampler, level, size, tu.i1, tv.i1)?;
            let top = lerp4(t00, t10, tu.weight);
            let bottom = lerp4(t01, t11, tu.weight);
            Ok(lerp4(top, bottom, tv.weight))
        }
    }
}

/// Samples a 2D surface whose level 0 is `base_size` texels at normalized `(u, v)`, using
/// the level selection of `lod` ([`crate::lod::compute_lod`]).
///
/// The MagFilter applies when `lod.magnify`, otherwise the MinFilter (§2.2.1.4 L460-462).
/// For two levels the results blend as `(1 − beta)·lod0 + beta·lod1` (L533). The
/// Out_of_Bounds texel replacement (L516-520) depends on the surface format and is left
/// to the caller ([`LodResult::force_zero`]).
pub fn sample_2d(
    fetch: Fetch<'_>,
    sampler: &Sampler2d,
    base_size: (u32, u32),
    lod: &LodResult,
    uv: (f32, f32),
) -> Result<[f32; 4], SamplerError> {
    let filter = if lod.magnify {
        sampler.mag_filter
    } else {
        sampler.min_filter
    };
    let at = |level: u32| {
        let size = (
            level_size(base_size.0, level),
            level_size(base_size.1, level),
        );
        sample_level(fetch, sampler, filter, level, size, uv)
    };
    match lod.levels {
        MipLevels::One(level) => at(level),
        MipLevels::Two { lod0, lod1, beta } => Ok(lerp4(at(lod0)?, at(lod1)?, beta)),
    }
}
