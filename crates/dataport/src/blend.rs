//! Colour buffer blending and colour clamping (seed 004 §12.1.6–12.1.8).
//!
//! Colours are RGBA in f32 as the render-target write delivers them (after the format's
//! conversion to float for the destination). `o` is the pixel shader's output for this
//! render target, `o1` the second source (dual-source blending), `rt` the destination
//! colour read from the render target, `cc` the constant colour.

use crate::ReservedValue;
use gtsim_spec::shared::{
    ThreeDColorBufferBlendFactor as F, ThreeDColorBufferBlendFunction as Func,
};

/// RGBA.
pub type Rgba = [f32; 4];

/// The colours a blend factor may select.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlendInputs {
    /// Source colour (oN).
    pub src: Rgba,
    /// Second source colour (o1, dual-source only).
    pub src1: Rgba,
    /// Destination colour (rtN).
    pub dst: Rgba,
    /// Constant colour (CC).
    pub constant: Rgba,
}

/// Blend factor `f` for all four channels (seed 004 §12.1.7 "Color Buffer Blend Color
/// Factors", L10083-10105).
pub fn factor(f: F, i: &BlendInputs) -> Result<Rgba, ReservedValue> {
    let all = |v: f32| [v; 4];
    let inv = |c: Rgba| c.map(|v| 1.0 - v);
    Ok(match f {
        F::BLENDFACTOR_ZERO => all(0.0),
        F::BLENDFACTOR_ONE => all(1.0),
        F::BLENDFACTOR_SRC_COLOR => i.src,
        F::BLENDFACTOR_INV_SRC_COLOR => inv(i.src),
        F::BLENDFACTOR_SRC_ALPHA => all(i.src[3]),
        F::BLENDFACTOR_INV_SRC_ALPHA => all(1.0 - i.src[3]),
        F::BLENDFACTOR_SRC1_COLOR => i.src1,
        F::BLENDFACTOR_INV_SRC1_COLOR => inv(i.src1),
        F::BLENDFACTOR_SRC1_ALPHA => all(i.src1[3]),
        F::BLENDFACTOR_INV_SRC1_ALPHA => all(1.0 - i.src1[3]),
        F::BLENDFACTOR_DST_COLOR => i.dst,
        F::BLENDFACTOR_INV_DST_COLOR => inv(i.dst),
        F::BLENDFACTOR_DST_ALPHA => all(i.dst[3]),
        F::BLENDFACTOR_INV_DST_ALPHA => all(1.0 - i.dst[3]),
        F::BLENDFACTOR_CONST_COLOR => i.constant,
        F::BLENDFACTOR_INV_CONST_COLOR => inv(i.constant),
        F::BLENDFACTOR_CONST_ALPHA => all(i.constant[3]),
        F::BLENDFACTOR_INV_CONST_ALPHA => all(1.0 - i.constant[3]),
        F::BLENDFACTOR_SRC_ALPHA_SATURATE => {
            let f = (1.0 - i.dst[3]).min(i.src[3]);
            [f, f, f, 1.0]
        }
        other => {
            return Err(ReservedValue {
                field: "Blend Factor",
                value: other.0,
                seed: "seed 004 §12.2.3 L10489-10511",
            });
        }
    })
}

/// One blend function on already-weighted terms (seed 004 §12.1.7 "Color Buffer Blend
/// Functions", L10112-10116). MIN and MAX apply the factors too ("a superset of the
/// OpenGL min/max"); GL drivers program ONE/ONE with them.
pub fn function(f: Func, src_term: f32, dst_term: f32) -> Result<f32, ReservedValue> {
    Ok(match f {
        Func::BLENDFUNCTION_ADD => src_term + dst_term,
        Func::BLENDFUNCTION_SUBTRACT => src_term - dst_term,
        Func::BLENDFUNCTION_REVERSE_SUBTRACT => dst_term - src_term,
        Func::BLENDFUNCTION_MIN => src_term.min(dst_term),
        Func::BLENDFUNCTION_MAX => src_term.max(dst_term),
        other => {
            return Err(ReservedValue {
                field: "Blend Function",
                value: other.0,
                seed: "seed 004 §12.2.3 L10469-10475",
            });
        }
    })
}

/// A render target's blend state (BLEND_STATE, seed 004 §12.2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlendState {
    /// Colour (RGB, and A unless independent) source factor.
    pub src: F,
    /// Colour destination factor.
    pub dst: F,
    /// Colour blend function.
    pub func: Func,
    /// Alpha source factor (used when `independent_alpha`).
    pub src_alpha: F,
    /// Alpha destination factor.
    pub dst_alpha: F,
    /// Alpha blend function.
    pub func_alpha: Func,
    /// "Independent Alpha Blend Enable": otherwise the colour set blends alpha too.
    pub independent_alpha: bool,
}

/// Blends one pixel: `src_factor * src FUNC dst_factor * dst` per channel, alpha with the
/// alpha set when independent (seed 004 §12.1.7 L10062-10080).
pub fn blend(s: &BlendState, i: &BlendInputs) -> Result<Rgba, ReservedValue> {
    let (sf, df) = (factor(s.src, i)?, factor(s.dst, i)?);
    let mut out = [0.0; 4];
    for c in 0..3 {
        out[c] = function(s.func, i.src[c] * sf[c], i.dst[c] * df[c])?;
    }
    out[3] = if s.independent_alpha {
        let (sa, da) = (factor(s.src_alpha, i)?[3], factor(s.dst_alpha, i)?[3]);
        function(s.func_alpha, i.src[3] * sa, i.dst[3] * da)?
    } else {
        function(s.func, i.src[3] * sf[3], i.dst[3] * df[3])?
    };
    Ok(out)
}

/// "Color Clamp Range" (COLOR_CALC/BLEND_STATE): COLORCLAMP_UNORM \[0,1\],
/// COLORCLAMP_SNORM [-1,1], COLORCLAMP_RTFORMAT (the render target format's range,
/// given by the caller).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClampRange {
    /// [0, 1].
    Unorm,
    /// [-1, 1].
    Snorm,
    /// The render target format's range.
    RtFormat {
        /// Smallest representable value.
        min: f32,
        /// Largest representable value.
        max: f32,
    },
}

impl ClampRange {
    /// COLORCLAMP_RTFORMAT for render target format `f` (seed 004 §12.1.6): [0, 1] for
    /// UNORM, [-1, 1] for SNORM, unbounded otherwise (float formats keep their values;
    /// integer formats are not blended).
    pub fn of_format(f: gtsim_spec::shared::SurfaceFormat) -> ClampRange {
        use gtsim_mem::format::texel::{NumericClass, numeric_class};
        match numeric_class(f) {
            Ok(NumericClass::Unorm) => ClampRange::Unorm,
            Ok(NumericClass::Snorm) => ClampRange::Snorm,
            _ => ClampRange::RtFormat {
                min: f32::NEG_INFINITY,
                max: f32::INFINITY,
            },
        }
    }
}

/// Clamps a colour to `range` (seed 004 §12.1.6 and §12.1.8). NaN passes through
/// unchanged (the seed does not say; the format conversion turns it into 0 for UNORM).
pub fn clamp(c: Rgba, range: ClampRange) -> Rgba {
    let (lo, hi) = match range {
        ClampRange::Unorm => (0.0, 1.0),
        ClampRange::Snorm => (-1.0, 1.0),
        ClampRange::RtFormat { min, max } => (min, max),
    };
    c.map(|v| if v.is_nan() { v } else { v.clamp(lo, hi) })
}
