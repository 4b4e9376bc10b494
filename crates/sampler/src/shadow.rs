//! The shadow prefilter compare (seed 000 §2.4): for the sample_c messages each texel's
//! value is compared with the message's reference before filtering, and the comparison's
//! result (0.0 or 1.0) is filtered in place of the texel.

use crate::SamplerError;

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
