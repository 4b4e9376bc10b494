//! Compare functions and stencil operations (seed 004 §12.1.2 alpha test, §12.1.4 stencil
//! test, §12.1.5 depth test, §12.1.11.1 stencil buffer updates).

use crate::ReservedValue;
use gtsim_spec::shared::{ThreeDCompareFunction as Cf, ThreeDStencilOperation as Op};

/// Whether `src` passes against `reference` under COMPAREFUNCTION `f` (seed 004 §12.2.3
/// 3D_CompareFunction L10671-10682): the incoming value is on the left, as in
/// "pass if src < ref" for LESS. Values are compared as given (floats for depth and
/// float alpha, integers for stencil); a NaN passes only ALWAYS and NOTEQUAL.
pub fn compare<T: PartialOrd>(f: Cf, src: T, reference: T) -> Result<bool, ReservedValue> {
    Ok(match f {
        Cf::COMPAREFUNCTION_ALWAYS => true,
        Cf::COMPAREFUNCTION_NEVER => false,
        Cf::COMPAREFUNCTION_LESS => src < reference,
        Cf::COMPAREFUNCTION_EQUAL => src == reference,
        Cf::COMPAREFUNCTION_LEQUAL => src <= reference,
        Cf::COMPAREFUNCTION_GREATER => src > reference,
        Cf::COMPAREFUNCTION_NOTEQUAL => src != reference,
        Cf::COMPAREFUNCTION_GEQUAL => src >= reference,
        other => {
            return Err(ReservedValue {
                field: "Compare Function",
                value: other.0,
                seed: "seed 004 §12.2.3 L10671-10682",
            });
        }
    })
}

/// The new stencil value after STENCILOP `op` on an 8-bit stencil `old` with reference
/// `reference` (seed 004 §12.1.11.1 L10190-10201): INCRSAT/DECRSAT clamp to 0..255,
/// INCR/DECR wrap, INVERT flips every bit. The write mask is applied by the caller.
pub fn stencil_op(op: Op, old: u8, reference: u8) -> Result<u8, ReservedValue> {
    Ok(match op {
        Op::STENCILOP_KEEP => old,
        Op::STENCILOP_ZERO => 0,
        Op::STENCILOP_REPLACE => reference,
        Op::STENCILOP_INCRSAT => old.saturating_add(1),
        Op::STENCILOP_DECRSAT => old.saturating_sub(1),
        Op::STENCILOP_INCR => old.wrapping_add(1),
        Op::STENCILOP_DECR => old.wrapping_sub(1),
        Op::STENCILOP_INVERT => !old,
        other => {
            return Err(ReservedValue {
                field: "Stencil Operation",
                value: other.0,
                seed: "seed 004 §12.2.2 L10306-10314",
            });
        }
    })
}

/// Stencil test with masks (seed 004 §12.1.4): `(ref & mask) FUNC (stencil & mask)`.
/// Note the order: the reference is the left operand of the stencil test.
pub fn stencil_test(f: Cf, reference: u8, stencil: u8, mask: u8) -> Result<bool, ReservedValue> {
    compare(f, reference & mask, stencil & mask)
}

/// Merges a new stencil value under the write mask: bits outside the mask keep `old`.
pub fn stencil_write(old: u8, new: u8, write_mask: u8) -> u8 {
    (old & !write_mask) | (new & write_mask)
}

/// "Alpha Test Format" with its reference value (COLOR_CALC_STATE).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AlphaReference {
    /// ALPHATEST_UNORM8: the pixel's alpha is converted to UNORM8 before comparing.
    Unorm8(u8),
    /// ALPHATEST_FLOAT32.
    Float32(f32),
}

/// The alpha test (seed 004 §12.1.2, L9937-9951): the pixel passes if
/// `alpha FUNC reference`. For UNORM8 the alpha is clamped to [0, 1] and rounded to
/// nearest (NaN to 0), as the render-target conversion does.
pub fn alpha_test(f: Cf, alpha: f32, reference: AlphaReference) -> Result<bool, ReservedValue> {
    match reference {
        AlphaReference::Float32(r) => compare(f, alpha, r),
        AlphaReference::Unorm8(r) => {
            let a = if alpha.is_nan() {
                0.0
            } else {
                alpha.clamp(0.0, 1.0)
            };
            let a = (a * 255.0).round_ties_even() as u8;
            compare(f, a, r)
        }
    }
}
