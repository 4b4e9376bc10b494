//! The colour half of a render-target write for one pixel (seed 004 §12.1.6–12.1.10):
//! pre-blend clamp, blend, post-blend clamp, logic op, channel write masks, and the
//! conversion to the render target's format (the surface-format range clamp is implied
//! by the encode, §12.1.8 L10124).

use crate::ReservedValue;
use crate::blend::{BlendInputs, BlendState, ClampRange, Rgba, blend, clamp};
use crate::logic_op::logic_op;
use gtsim_mem::format::texel::{self, FormatError, Texel};
use gtsim_spec::shared::{SurfaceFormat, ThreeDLogicOpFunction};
use thiserror::Error;

/// Why a pixel could not be written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RtWriteError {
    /// A reserved state value.
    #[error(transparent)]
    Reserved(#[from] ReservedValue),
    /// The render target format.
    #[error("render target format: {0}")]
    Format(#[from] FormatError),
    /// A combination the seed forbids.
    #[error("{0}")]
    Invalid(&'static str),
}

/// The render target formats Logic Op Enable may be set for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicOpFormats {
    /// Ivy Bridge: "Logic Ops are only supported on *_UNORM surfaces, otherwise Logic
    /// Ops must be DISABLED" (seed 004 §12.1.10); others are refused.
    Unorm,
    /// Ice Lake: seed 003 BLEND_STATE_ENTRY Logic Op Enable states no format
    /// restriction, so the logic op acts on the stored bits of any format.
    Any,
}

/// The colour-calculator state for one render target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RtState {
    /// Color Buffer Blend Enable and the blend state.
    pub blend: Option<BlendState>,
    /// Constant colour (COLOR_CALC_STATE).
    pub constant: Rgba,
    /// Pre-Blend Color Clamp Enable with its Color Clamp Range.
    pub pre_clamp: Option<ClampRange>,
    /// Post-Blend Color Clamp Enable with its range.
    pub post_clamp: Option<ClampRange>,
    /// LogicOp Enable and function.
    pub logic_op: Option<ThreeDLogicOpFunction>,
    /// The render target formats the logic op may act on.
    pub logic_op_formats: LogicOpFormats,
    /// Write Disable Red, Green, Blue, Alpha.
    pub write_disable: [bool; 4],
}

/// The bytes to store for one pixel: `src` (and `src1` for dual-source blending) from the
/// pixel shader, `dst` the pixel's current bytes in `format`.
pub fn color_calc(
    s: &RtState,
    format: SurfaceFormat,
    src: Texel,
    src1: Rgba,
    dst: &[u8],
) -> Result<Vec<u8>, RtWriteError> {
    let mut out = [0u8; 16];
    let n = color_calc_into(s, format, src, src1, dst, &mut out)?;
    Ok(out[..n].to_vec())
}

/// [`color_calc`] into the first bytes of `out`; returns how many it wrote.
pub fn color_calc_into(
    s: &RtState,
    format: SurfaceFormat,
    src: Texel,
    src1: Rgba,
    dst: &[u8],
    out: &mut [u8; 16],
) -> Result<usize, RtWriteError> {
    if s.blend.is_some() && s.logic_op.is_some() {
        return Err(RtWriteError::Invalid(
            "Color Buffer Blending and Logic Ops must not be enabled together (seed 004 §12.1.10)",
        ));
    }
    // The destination is decoded only when blending reads it.
    let dst_float = match s.blend {
        Some(_) => match texel::decode(format, dst)? {
            Texel::Float(d) => Some(d),
            _ => None,
        },
        None => None,
    };
    let result = match src {
        Texel::Float(c) if s.blend.is_none() || dst_float.is_some() => {
            let pre = |v: Rgba| s.pre_clamp.map_or(v, |r| clamp(v, r));
            let c = pre(c);
            let c = match &s.blend {
                Some(b) => {
                    let d = dst_float.unwrap_or_default();
                    // With blending, pre-blend clamping also applies to the destination
                    // and constant colours (§12.1.6.2).
                    let i = BlendInputs {
                        src: c,
                        src1: pre(src1),
                        dst: pre(d),
                        constant: pre(s.constant),
                    };
                    let out = blend(b, &i)?;
                    s.post_clamp.map_or(out, |r| clamp(out, r))
                }
                None => c,
            };
            Texel::Float(c)
        }
        // Integer formats: no blending; the encode saturates to the format (§12.1.6.1).
        Texel::Uint(_) | Texel::Sint(_) if s.blend.is_some() => {
            return Err(RtWriteError::Invalid(
                "blending must be disabled on SINT/UINT render targets (seed 004 §12.1.6.1)",
            ));
        }
        t => t,
    };
    let n = texel::encode_into(format, result, out)?;
    let bytes = &mut out[..n];
    if let Some(op) = s.logic_op {
        // §12.1.10: "Logic Ops are only supported on *_UNORM surfaces, otherwise Logic
        // Ops must be DISABLED."
        if s.logic_op_formats == LogicOpFormats::Unorm
            && texel::numeric_class(format).ok() != Some(texel::NumericClass::Unorm)
        {
            return Err(RtWriteError::Invalid(
                "Logic Ops are only supported on UNORM render targets (seed 004 §12.1.10)",
            ));
        }
        // Logic ops work on the stored bits.
        for (b, d) in bytes.iter_mut().zip(dst) {
            *b = logic_op(op, *b as u32, *d as u32) as u8;
        }
    }
    if s.write_disable.iter().any(|&d| d) {
        let masked = mask_channels(format, bytes, dst, s.write_disable)?;
        let m = masked.len().min(n);
        bytes[..m].copy_from_slice(&masked[..m]);
    }
    Ok(n)
}

/// Keeps the destination's value in every write-disabled channel.
fn mask_channels(
    format: SurfaceFormat,
    new: &[u8],
    dst: &[u8],
    disable: [bool; 4],
) -> Result<Vec<u8>, RtWriteError> {
    let merged = match (texel::decode(format, new)?, texel::decode(format, dst)?) {
        (Texel::Float(n), Texel::Float(d)) => Texel::Float(pick(n, d, disable)),
        (Texel::Uint(n), Texel::Uint(d)) => Texel::Uint(pick(n, d, disable)),
        (Texel::Sint(n), Texel::Sint(d)) => Texel::Sint(pick(n, d, disable)),
        _ => return Err(RtWriteError::Invalid("texel classes differ")),
    };
    Ok(texel::encode(format, merged)?)
}

fn pick<T: Copy>(n: [T; 4], d: [T; 4], disable: [bool; 4]) -> [T; 4] {
    [0, 1, 2, 3].map(|i| if disable[i] { d[i] } else { n[i] })
}
