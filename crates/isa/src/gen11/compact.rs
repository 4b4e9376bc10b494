//! Gen11 instruction compaction (Mesa brw_eu_compact.c, ver 11): Gen8's control,
//! subregister and source tables and Gen11's datatype table (spec enums
//! `EU_COMPACT_*_GEN11`), through the shared mechanism of `crate::compact`.

use super::DecodeError;
use crate::compact::Tables;
use gtsim_spec::gen11::*;

fn tables() -> Tables {
    Tables {
        control: &ENUM_EU_COMPACT_CONTROL_INDEX_GEN11,
        datatype: &ENUM_EU_COMPACT_DATATYPE_INDEX_GEN11,
        subreg: &ENUM_EU_COMPACT_SUBREG_INDEX_GEN11,
        src: &ENUM_EU_COMPACT_SRC_INDEX_GEN11,
        // Mesa set_uncompacted_control (ver >= 8): entry[0] -> 8 Access Mode, [1] -> 34
        // Mask Control, [3:2] -> 10:9 Dependency Control, [15:4] -> 23:12, [18:16] ->
        // 33:31 (Flag Register, Flag Subregister, Saturate).
        control_map: &[(0, 8, 1), (1, 34, 1), (2, 9, 2), (4, 12, 12), (16, 31, 3)],
        // set_uncompacted_datatype (ver >= 8): [11:0] -> 46:35, [17:12] -> 94:89,
        // [20:18] -> 63:61.
        datatype_map: &[(0, 35, 12), (12, 89, 6), (18, 61, 3)],
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
