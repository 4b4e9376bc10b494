//! The windower's and pixel shader's state (seed 004 ch.11), with the attribute setup
//! that feeds the pixel shader (seed 004 §10.3.14).

use super::{KernelPointer, StageResources};

/// One pixel shader kernel the state offers: its dispatch width, address and the first
/// payload register of its constant and setup data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PsKernel {
    /// Pixels per thread: 8, 16 or 32.
    pub simd: usize,
    /// The kernel.
    pub kernel: KernelPointer,
    /// Dispatch GRF Start Register for Constant/Setup Data.
    pub grf_start: usize,
}

/// The windower and pixel shader (seed 004 ch.11).
#[derive(Debug, Clone, Default)]
pub struct PixelShader {
    /// The kernels of the enabled dispatch widths; empty when thread dispatch is off.
    pub kernels: Vec<PsKernel>,
    /// The PS's scratch space (R0.5 of its payload).
    pub scratch: super::Scratch,
    /// Thread dispatch is enabled (with no kernel listed, a state error).
    pub dispatch: bool,
    /// 3DSTATE_WM Statistics Enable: PS_INVOCATION_COUNT and PS_DEPTH_COUNT count this
    /// draw's pixels.
    pub statistics: bool,
    /// The ALT floating-point mode (otherwise IEEE-754).
    pub alt_float_mode: bool,
    /// The PS may kill pixels.
    pub kills_pixels: bool,
    /// The PS computes depth.
    pub computes_depth: bool,
    /// The PS computes its stencil reference values (3DSTATE_PS_EXTRA Pixel Shader
    /// Computes Stencil, Gen9+): the stencil test follows it.
    pub computes_stencil: bool,
    /// Early Depth/Stencil Control forces the test before the PS (EDSC_PREPS).
    pub early_depth_forced: bool,
    /// Early Depth/Stencil Control forces the PS to run for every pixel, the test
    /// after it (EDSC_PSEXEC: a PS with side effects, image stores or atomics, runs
    /// for pixels the depth test then kills).
    pub ps_exec_forced: bool,
    /// Which barycentric parameters the payload carries: bit 0-2 perspective pixel,
    /// centroid, sample; bit 3-5 the same non-perspective.
    pub barycentric_modes: u8,
    /// The payload carries source depth.
    pub source_depth: bool,
    /// The payload carries source W.
    pub source_w: bool,
    /// The payload carries the push constants.
    pub push_constants: bool,
    /// The payload carries the attribute setup data.
    pub attributes: bool,
    /// The payload carries each slot's input coverage mask (3DSTATE_WM Pixel Shader
    /// Uses Input Coverage Mask, seed 004 §11.10.3.1 R32-R33).
    pub input_coverage: bool,
    /// The input coverage mask holds only the samples that passed the early depth and
    /// stencil tests (Gen8+ 3DSTATE_PS_EXTRA Input Coverage Mask State ICMS_DEPTH_COVERAGE,
    /// seed 003; ARB_post_depth_coverage); otherwise every covered sample.
    pub input_coverage_post_depth: bool,
    /// The payload carries each slot's position offset (3DSTATE_PS Position XY Offset
    /// Select, seed 004 §11.10.3.1 R31).
    pub position_offset: PositionOffset,
    /// Render target writes carry oMask (3DSTATE_PS oMask Present to RenderTarget; R0.0
    /// bit 12 of the payload).
    pub omask: bool,
    /// Render target writes fast-clear their render target.
    pub fast_clear: bool,
    /// Render target writes resolve a fast clear.
    pub resolve: bool,
    /// The PS is dispatched per coarse pixel (Gen11: 3DSTATE_CPS with 3DSTATE_PS_EXTRA
    /// Pixel Shader Is Per Coarse Pixel); `None`: per pixel or per sample.
    pub coarse: Option<CoarseShading>,
    /// Features not modelled yet that the state enables, each with its reference (the
    /// first one ends the draw as unsupported).
    pub unsupported: Vec<(&'static str, &'static str)>,
    /// Binding table, samplers and push constants.
    pub resources: StageResources,
}

/// Coarse pixel shading (seed 003 3DSTATE_CPS_BODY, 3DSTATE_PS_EXTRA_BODY): the pixel
/// shader runs once per coarse pixel, a `size` block of pixels aligned to multiples of
/// its size, and its render target writes reach every covered pixel of the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoarseShading {
    /// Coarse pixel width and height in pixels (the constant mode's MinCPSize, one of
    /// 1, 2 and 4 each).
    pub size: (u32, u32),
    /// The payload carries the source depth and W plane coefficients (3DSTATE_PS_EXTRA
    /// Pixel Shader Requires Source Depth and/or W Plane Coefficients).
    pub depth_w_coefficients: bool,
}

/// 3DSTATE_PS Position XY Offset Select: which position offset the payload carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PositionOffset {
    /// POSOFFSET_NONE: no position offset phase.
    #[default]
    None,
    /// POSOFFSET_CENTROID: the centroid's offset from the pixel's upper-left corner.
    Centroid,
    /// POSOFFSET_SAMPLE: the sample's offset from the pixel's upper-left corner.
    Sample,
}

/// Where an attribute's value comes from (3DSTATE_SBE Swizzle Select).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwizzleSelect {
    /// The source attribute.
    Input,
    /// The source attribute, or the next one for back-facing objects.
    InputFacing,
    /// A selection not modelled yet (its manual name).
    Other(&'static str),
}

/// The value of overridden components (3DSTATE_SBE Constant Source).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstantSource {
    /// (0, 0, 0, 0).
    Zero,
    /// (0, 0, 0, 1).
    ZeroOne,
    /// (1, 1, 1, 1).
    One,
    /// The primitive ID (not modelled yet).
    PrimitiveId,
}

/// One output attribute's swizzle (seed 004 §10.3.14 SF_OUTPUT_ATTRIBUTE_DETAIL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttributeSwizzle {
    /// Source Attribute, from the first slot read.
    pub source: usize,
    /// Swizzle Select.
    pub select: SwizzleSelect,
    /// Component Override X, Y, Z, W.
    pub overrides: [bool; 4],
    /// Constant Source.
    pub constant: ConstantSource,
}

/// Attribute setup (seed 004 §10.3.14, 3DSTATE_SBE).
#[derive(Debug, Clone, Default)]
pub struct AttributeSetup {
    /// Number of output attributes.
    pub count: usize,
    /// The first VUE slot read.
    pub first_slot: usize,
    /// The swizzles of attributes 0-15, when swizzling is enabled.
    pub swizzles: Option<Vec<AttributeSwizzle>>,
    /// The swizzles apply to attributes 16-31 (not modelled yet).
    pub swizzles_upper: bool,
    /// Point sprite texture coordinate enables, one bit per attribute.
    pub point_sprite: u32,
    /// Point sprite coordinates start at the lower left.
    pub point_sprite_lower_left: bool,
    /// Constant interpolation enables, one bit per attribute.
    pub flat: u32,
    /// Gen8+ 3DSTATE_SBE Primitive ID Override Attribute Select and Component X/Y/Z/W
    /// (seed 003 3DSTATE_SBE_BODY: "If set, the X component of output attribute
    /// selected by Primitive ID Override Attribute Select is overridden with the
    /// Primitive ID"): the attribute and its overridden components; `None` when no
    /// component is ("Set all ... to 0 to indicate there is no Primitive ID override").
    pub primitive_id_override: Option<(usize, [bool; 4])>,
}
