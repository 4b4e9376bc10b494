//! The shadow prefilter compare (seed 000 §2.4): for the sample_c messages each texel's
//! value is compared with the message's reference before filtering, and the comparison's
//! result (0.0 or 1.0) is filtered in place of the texel.

use crate::SamplerError;
use gtsim_mem::format::texel::{NumericClass, numeric_class};
use gtsim_spec::shared::SurfaceFormat;

/// The reference a sample_c family message compares with, for a surface of `format`:
/// clamped to [0, 1] when the surface is UNORM, as given otherwise.
///
/// Seed 000 §2.4 and §2.13.1.4 are silent on the reference's range. The hardware clamps
/// it for UNORM surfaces (Vulkan 1.3 §16.8 "Depth Compare Operation": "If the image being
/// sampled has an unsigned normalized fixed-point format, then D_ref is clamped to [0,1]
/// before the compare operation"; D3D's SampleCmp says the same; Mesa's crocus, iris
/// and anv pass the shader's reference unclamped and rely on it, and Mesa's CI on
/// Haswell passes piglit's depth-tex-compare, whose references reach 1.8 against a
/// texel of 1.0). Float surfaces (R32_FLOAT) compare the reference as it is. A NaN
/// reference stays NaN (and compares false).
pub fn reference(format: SurfaceFormat, r: f32) -> f32 {
    if matches!(numeric_class(format), Ok(NumericClass::Unorm)) {
        r.clamp(0.0, 1.0)
    } else {
        r
    }
}

/// SAMPLER_STATE Shadow Function (seed 000 §2.12.3, the §2.4 table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShadowFunction {
    /// PREFILTEROP_ALWAYS: 0.0.
    Always,
    /// PREFILTEROP_NEVER: 1.0.
    Never,
    /// PREFILTEROP_LESS: (texel < ref) ? 0.0 : 1.0.
    Less,
    /// PREFILTEROP_EQUAL: (texel == ref) ? 0.0 : 1.0.
    Equal,
    /// PREFILTEROP_LEQUAL: (texel <= ref) ? 0.0 : 1.0.
    LessEqual,
    /// PREFILTEROP_GREATER: (texel > ref) ? 0.0 : 1.0.
    Greater,
    /// PREFILTEROP_NOTEQUAL: (texel != ref) ? 0.0 : 1.0.
    NotEqual,
    /// PREFILTEROP_GEQUAL: (texel >= ref) ? 0.0 : 1.0.
    GreaterEqual,
}

impl ShadowFunction {
    /// The function of the 3-bit field (every value is one).
    pub fn from_raw(v: u32) -> Result<ShadowFunction, SamplerError> {
        Ok(match v {
            0 => ShadowFunction::Always,
            1 => ShadowFunction::Never,
            2 => ShadowFunction::Less,
            3 => ShadowFunction::Equal,
            4 => ShadowFunction::LessEqual,
            5 => ShadowFunction::Greater,
            6 => ShadowFunction::NotEqual,
            7 => ShadowFunction::GreaterEqual,
            _ => {
                return Err(SamplerError::Reserved {
                    field: "Shadow Function",
                    value: v,
                    seed: "seed 000 §2.4",
                });
            }
        })
    }

    /// The §2.4 table: 0.0 where the comparison of `texel` with `reference` holds, 1.0
    /// where it does not (ALWAYS 0.0, NEVER 1.0). A NaN compares false, as IEEE has it.
    pub fn result(self, texel: f32, reference: f32) -> f32 {
        let holds = match self {
            ShadowFunction::Always => true,
            ShadowFunction::Never => false,
            ShadowFunction::Less => texel < reference,
            ShadowFunction::Equal => texel == reference,
            ShadowFunction::LessEqual => texel <= reference,
            ShadowFunction::Greater => texel > reference,
            ShadowFunction::NotEqual => texel != reference,
            ShadowFunction::GreaterEqual => texel >= reference,
        };
        if holds { 0.0 } else { 1.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A UNORM depth surface's reference is clamped before the §2.4 compare, a float
    /// one's is not: worked by hand for a texel of 1.0 (the largest UNORM value).
    #[test]
    fn a_unorm_surface_compares_a_clamped_reference() {
        let unorm = SurfaceFormat::R24_UNORM_X8_TYPELESS;
        assert_eq!(reference(unorm, 1.5), 1.0);
        assert_eq!(reference(unorm, -0.5), 0.0);
        assert_eq!(reference(SurfaceFormat::R16_UNORM, 0.25), 0.25);
        assert_eq!(reference(SurfaceFormat::R32_FLOAT, 1.5), 1.5);
        assert_eq!(reference(SurfaceFormat::R32_FLOAT, -0.5), -0.5);
        assert!(reference(unorm, f32::NAN).is_nan());
        // LESS: (texel < ref) ? 0.0 : 1.0. Texel 1.0 against 1.5 clamped to 1.0 passes
        // (GL's LEQUAL, which crocus programs as LESS); against 1.5 itself it would not.
        let less = ShadowFunction::Less;
        assert_eq!(less.result(1.0, reference(unorm, 1.5)), 1.0);
        assert_eq!(
            less.result(1.0, reference(SurfaceFormat::R32_FLOAT, 1.5)),
            0.0
        );
        // GREATER: texel 0.0 against -0.5 clamped to 0.0: (0 > 0) is false, 1.0.
        assert_eq!(
            ShadowFunction::Greater.result(0.0, reference(unorm, -0.5)),
            1.0
        );
    }

    /// The §2.4 table, row by row, for a texel below, at and above the reference.
    #[test]
    fn the_table_of_the_seed() {
        let rows = [
            (0, [0.0, 0.0, 0.0]),
            (1, [1.0, 1.0, 1.0]),
            (2, [0.0, 1.0, 1.0]),
            (3, [1.0, 0.0, 1.0]),
            (4, [0.0, 0.0, 1.0]),
            (5, [1.0, 1.0, 0.0]),
            (6, [0.0, 1.0, 0.0]),
            (7, [1.0, 0.0, 0.0]),
        ];
        for (raw, want) in rows {
            let f = ShadowFunction::from_raw(raw).unwrap();
            let got = [0.25, 0.5, 0.75].map(|t| f.result(t, 0.5));
            assert_eq!(got, want, "{f:?}");
        }
        assert!(matches!(
            ShadowFunction::from_raw(8),
            Err(SamplerError::Reserved {
                field: "Shadow Function",
                value: 8,
                ..
            })
        ));
    }
}
