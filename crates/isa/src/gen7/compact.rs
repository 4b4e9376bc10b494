//! Gen7 instruction compaction: the 64-bit form whose Control, Datatype, Subregister and
//! Source indices select 19/18/15/12-bit entries of four tables (spec enums
//! `EU_COMPACT_*_GEN7`, from Mesa's brw_eu_compact.c). The mechanism is shared
//! (`crate::compact`); this file says where Gen7's entries go, as the eu.spec notes give
//! them.

use super::DecodeError;
use crate::compact::Tables;
use gtsim_spec::gen7::*;

fn tables() -> Tables {
    Tables {
        control: &ENUM_EU_COMPACT_CONTROL_INDEX_GEN7,
        datatype: &ENUM_EU_COMPACT_DATATYPE_INDEX_GEN7,
        subreg: &ENUM_EU_COMPACT_SUBREG_INDEX_GEN7,
        src: &ENUM_EU_COMPACT_SRC_INDEX_GEN7,
        // entry[15:0] -> 23:8, [16] -> 31, [18:17] -> 90:89.
        control_map: &[(0, 8, 16), (16, 31, 1), (17, 89, 2)],
        // entry[14:0] -> 46:32, [17:15] -> 63:61.
        datatype_map: &[(0, 32, 15), (15, 61, 3)],
        native: GENERATION
            .def("EU_INSTRUCTION_ALIGN1_2SRC")
            .expect("eu.spec defines EU_INSTRUCTION_ALIGN1_2SRC"),
        compact: GENERATION
            .def("EU_COMPACT_INSTRUCTION")
            .expect("eu.spec defines EU_COMPACT_INSTRUCTION"),
    }
}

/// Expands a compacted instruction to its native form.
pub fn uncompact(c: [u32; 2]) -> Result<[u32; 4], DecodeError> {
    EuCompactInstruction::unpack(&c).map_err(|e| DecodeError::Invalid(e.to_string()))?;
    tables().uncompact(c)
}

/// The compact form of a native instruction, if it has one that expands back to exactly
/// the same bits.
pub fn compact(native: &[u32; 4]) -> Option<[u32; 2]> {
    tables().compact(native)
}
