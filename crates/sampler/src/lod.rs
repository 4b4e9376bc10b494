//! Level of detail computation (seed 000 §2.2.1 L402-535).
//!
//! [`ideal_lod`] is the §2.2.1.1 formula (L426-430); [`compute_lod`] is the §2.2.1.5
//! pseudocode (L464-520) followed by the inter-level setup of §2.2.1.5.1 (L522-535). State
//! values are taken already decoded from their fixed-point fields (`Texture LOD Bias`
//! S4.8, `Min LOD`/`Max LOD` U4.8, `Base Mip Level` U4.1 in SAMPLER_STATE; `MIP Count /
//! LOD` U4, `Surface Min LOD` U4 and `Resource Min LOD` U4.8 in SURFACE_STATE).

use crate::SamplerError;

/// MIPFILTER_*: SAMPLER_STATE `Mip Mode Filter` (seed 000 §2.12.3.1; operation §2.2.1.5.1
/// L522-535).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MipFilter {
    /// 0h: mipmapping disabled, one level (L526).
    None = 0,
    /// 1h: round the LOD to the nearest level (L527, L531).
    Nearest = 1,
    /// 3h: blend the two closest levels by the LOD fraction (L528, L533).
    Linear = 3,
}

impl MipFilter {
    /// Decodes the 2-bit field; 2h is reserved.
    pub fn from_raw(value: u32) -> Result<Self, SamplerError> {
        match value {
            0 => Ok(Self::None),
            1 => Ok(Self::Nearest),
            3 => Ok(Self::Linear),
            _ => Err(SamplerError::Reserved {
                field: "Mip Mode Filter",
                value,
                seed: "seed 000 §2.12.3.1 SAMPLER_STATE DW0 21:20",
            }),
        }
    }
}

/// Where the pre-bias LOD comes from: the message type tests of the pseudocode
/// (L480-485) and the `if (!lod)` test (L512).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LodInput {
    /// sample, sample_c, sample_d, ...: the LOD computed from the derivatives
    /// (`LOD += Bias`, L485).
    Computed(f32),
    /// sample_b: the computed LOD plus the message's bias parameter
    /// (`LOD += Bias + bias_parameter`, L481).
    Biased {
        /// The computed LOD.
        lod: f32,
        /// The message's `bias_parameter` (pixLODBias, L436).
        bias: f32,
    },
    /// sample_l and ld: the message's LOD parameter (`LOD = Bias + lod_parameter`, L483).
    Explicit(f32),
    /// The "LOD" message (L512): biased like [`LodInput::Computed`], but `SurfMinLod` is
    /// not added to the result.
    Query(f32),
}

/// The sampler and surface state the pseudocode reads (L468-474).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LodState {
    /// `Bias` (SAMPLER_STATE Texture LOD Bias, S4.8).
    pub bias: f32,
    /// `MinLod` (SAMPLER_STATE Min LOD, U4.8).
    pub min_lod: f32,
    /// `MaxLod` (SAMPLER_STATE Max LOD, U4.8).
    pub max_lod: f32,
    /// `Base` (SAMPLER_STATE Base Mip Level, U4.1).
    pub base_mip_level: f32,
    /// `MIPCnt` (SURFACE_STATE MIP Count / LOD, U4): the largest level index the LOD may
    /// reach (`AdjMaxLod = min(MaxLod, MIPCnt)`, L475).
    pub mip_count: u32,
    /// `SurfMinLod` (SURFACE_STATE Surface Min LOD). The pseudocode annotates it U4.8
    /// (L473); the Gen7 SURFACE_STATE field is an integer, which is what is taken here.
    pub surf_min_lod: u32,
    /// `ResMinLod` (SURFACE_STATE Resource Min LOD, U4.8).
    pub res_min_lod: f32,
    /// `LODPreClampEnable` (L442-444).
    pub pre_clamp: bool,
    /// `MipFlt`.
    pub mip_filter: MipFilter,
}

/// The mip level(s) to filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MipLevels {
    /// One level (MIPFILTER_NONE, MIPFILTER_NEAREST, or any magnification).
    One(u32),
    /// Two levels blended as `(1 − beta)·lod0 + beta·lod1` (MIPFILTER_LINEAR, L510, L533).
    Two {
        /// `LOD0 = floor(LOD)`, after the final clamp.
        lod0: u32,
        /// `LOD1 = LOD0 + 1`, after the final clamp.
        lod1: u32,
        /// `TriBeta = frac(LOD)`, the weight of `lod1`.
        beta: f32,
    },
}

/// The result of [`compute_lod`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LodResult {
    /// `MagMode` (L490): the MagFilter applies, otherwise the MinFilter (L460-462).
    pub magnify: bool,
    /// The LOD after all pseudocode clamps, before the `SurfMinLod` offset: the value the
    /// LOD message reports.
    pub lod: f32,
    /// The level(s) to sample, with `SurfMinLod` added unless the input was
    /// [`LodInput::Query`] (L512-514).
    pub levels: MipLevels,
    /// `Out of Bounds = AdjPR_minLOD > MIPCnt` (L479).
    pub out_of_bounds: bool,
    /// Whether the texels are replaced by zero (alpha one for formats without alpha) per
    /// L516, which the errata of L520 cancels for MIPFILTER_LINEAR. The replacement needs
    /// the surface format and is left to the caller.
    pub force_zero: bool,
}

/// The largest LOD magnitude a state field can hold: the U4.8/S4.8 fields are below 16.
const STATE_LIMIT: f32 = 16.0;

/// A decoded state value, with NaN as 0 and the range limited to the fields' ±16.
fn state_value(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(-STATE_LIMIT, STATE_LIMIT)
    }
}

/// The ideal LOD of §2.2.1.1 (L426-430): `log2(ρ)` with ρ the longer of the texel-space
/// derivative vectors along screen x and y. `dx` and `dy` are `(∂u, ∂v, ∂q)` in texels of
/// the base level; `q` is 0 for 2D surfaces (L424).
///
/// The seed calls the hardware's own computation implementation-dependent (L422); this is
/// its stated ideal. Zero derivatives give −∞ (magnification); NaN derivatives give NaN,
/// which [`compute_lod`] treats as +∞.
pub fn ideal_lod(dx: [f32; 3], dy: [f32; 3]) -> f32 {
    let length = |d: [f32; 3]| (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    let (lx, ly) = (length(dx), length(dy));
    if lx.is_nan() || ly.is_nan() {
        return f32::NAN;
    }
    lx.max(ly).log2()
}

/// The LOD biasing and clamping pseudocode of §2.2.1.5 (L473-514) and the final clamp of
/// L535.
///
/// Numeric policy: a NaN LOD is treated as +∞ (the smallest accessible level, as an
/// infinite derivative would select); ±∞ pass through the clamps like any value. State
/// values that are NaN read as 0 and all are limited to ±16, the range of their fields.
///
/// Two readings are needed where the seed is loose:
/// * `MagMode = (LOD − Base ≤ 0)` (L490) is the only use of `Base` in the pseudocode,
///   matching the prose's "subtracted ... to compute Min/Mag Determination" (L458); the
///   selected levels are not offset by `Base`.
/// * The final clamp (L535) is to "the integer bits of MinLOD and MaxLOD". This uses the
///   integer bits of `AdjMinLod`/`AdjMaxLod`, the same values already limited by
///   `MIPCnt`, so `LOD1` never names a level past `MIPCnt`. For `LOD1` of a LINEAR blend
///   the upper bound is `AdjMaxLod` rounded up: §2.2.1.3 (L452) says MaxLOD's
///   "fractional parts will limit the inter-level filter weighting of the ... lowest ...
///   resolution map" (MaxLOD 4.5: level 5 "can contribute only up to 50%"), which needs
///   that level read, as the Mag/None branch's `ceil(AdjMaxLod)` (L493) also bounds by.
///   At a whole MaxLOD the blend weight there is 0, so nothing changes; the driver
///   relies on it (piglit lodclamp-between-max: MaxLOD L + 0.5 blends levels L and
///   L + 1 half and half, as Mesa's CI sees on Haswell).
pub fn compute_lod(state: &LodState, input: LodInput) -> LodResult {
    let bias = state_value(state.bias);
    let min_lod = state_value(state.min_lod);
    let max_lod = state_value(state.max_lod);
    let base = state_value(state.base_mip_level);
    let mip_cnt = state.mip_count.min(15) as f32; // U4 field
    let surf_min_lod = state.surf_min_lod.min(15);

    // L473-479.
    let adj_max_lod = max_lod.min(mip_cnt);
    let adj_pr_min_lod = state_value(state.res_min_lod) - surf_min_lod as f32;
    let adj_min_lod = min_lod.min(mip_cnt).max(adj_pr_min_lod);
    let out_of_bounds = adj_pr_min_lod > mip_cnt;

    // L480-485.
    let mut lod = match input {
        LodInput::Computed(lod) | LodInput::Query(lod) => lod + bias,
        LodInput::Biased {
            lod,
            bias: message_bias,
        } => lod + bias + message_bias,
        LodInput::Explicit(lod) => bias + lod,
    };
    if lod.is_nan() {
        lod = f32::INFINITY;
    }

    // L486-489.
    if state.pre_clamp {
        lod = lod.min(max_lod).max(min_lod);
    }

    // L490-505 (`MagClampMipNone = 1`, L491).
    let magnify = lod - base <= 0.0;
    let lod = select(state.mip_filter, magnify, lod, adj_min_lod, adj_max_lod);

    // L510 and L535.
    let (low, high) = (adj_min_lod.floor(), adj_max_lod.floor());
    let level = |l: f32| l.min(high).max(low) as u32; // saturating: negative → 0
    let next_level = |l: f32| l.min(adj_max_lod.ceil()).max(low) as u32;
    let offset = match input {
        LodInput::Query(_) => 0,
        _ => surf_min_lod,
    };
    let lod0 = lod.floor();
    let levels = if state.mip_filter == MipFilter::Linear && !magnify {
        MipLevels::Two {
            lod0: level(lod0) + offset,
            lod1: next_level(lod0 + 1.0) + offset,
            beta: lod - lod0,
        }
    } else {
        MipLevels::One(level(lod0) + offset)
    };

    LodResult {
        magnify,
        lod,
        levels,
        out_of_bounds,
        force_zero: out_of_bounds && state.mip_filter != MipFilter::Linear,
    }
}

/// The MipFlt branches of the pseudocode (L492-505).
fn select(filter: MipFilter, magnify: bool, lod: f32, adj_min: f32, adj_max: f32) -> f32 {
    match filter {
        _ if magnify || filter == MipFilter::None => {
            0.0_f32.min(adj_max.ceil()).max(adj_min.floor())
        }
        // The pseudocode repeats the min/max pair (L497-500); the repeat changes nothing.
        MipFilter::Nearest => (lod.min(adj_max).max(adj_min) + 0.5).floor(),
        MipFilter::Linear | MipFilter::None => lod.min(adj_max).max(adj_min),
    }
}
