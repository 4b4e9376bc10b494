//! Gen7 instruction compaction: the 64-bit form whose Control, Datatype, Subregister and
//! Source indices select 19/18/15/12-bit entries of four tables (spec enums
//! `EU_COMPACT_*_GEN7`, from Mesa's brw_eu_compact.c). Each entry expands into fixed
//! native bit ranges, listed below as the eu.spec notes give them.
//!
//! Compaction is done by construction and proof: build the compact form from the native
//! bits by looking each part up in its table, then expand it again; only if the
//! expansion reproduces every native bit is the compact form used.

use super::DecodeError;
use gtsim_spec::bits;
use gtsim_spec::gen7::*;
use gtsim_spec::table::EnumInfo;

/// `(entry bit, native bit, width)` pieces of a table entry (eu.spec notes on each table).
type Map = &'static [(u32, u32, u32)];
const CONTROL: Map = &[(0, 8, 16), (16, 31, 1), (17, 89, 2)];
const DATATYPE: Map = &[(0, 32, 15), (15, 61, 3)];
const SUBREG: Map = &[(0, 48, 5), (5, 64, 5), (10, 96, 5)];
const SRC0: Map = &[(0, 77, 12)];
const SRC1: Map = &[(0, 109, 12)];

fn entries(e: &EnumInfo) -> Vec<u64> {
    let mut v: Vec<(u64, u64)> = e
        .values
        .iter()
        .map(|(i, name)| {
            (
                *i,
                u64::from_str_radix(name.trim_start_matches("0x"), 16).unwrap_or(u64::MAX),
            )
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, e)| e).collect()
}

fn expand(native: &mut [u32; 4], entry: u64, map: Map) {
    for &(eb, nb, w) in map {
        bits::set(native, nb, nb + w - 1, (entry >> eb) & ((1 << w) - 1));
    }
}

fn gather(native: &[u32; 4], map: Map) -> u64 {
    map.iter()
        .map(|&(eb, nb, w)| bits::get(native, nb, nb + w - 1) << eb)
        .sum()
}

/// A native field's bit range, from the native layout's field table.
fn range(field: &str) -> (u32, u32) {
    let def = GENERATION
        .def("EU_INSTRUCTION_ALIGN1_2SRC")
        .expect("eu.spec defines EU_INSTRUCTION_ALIGN1_2SRC");
    let f = def
        .field(field)
        .unwrap_or_else(|| panic!("EU_INSTRUCTION_ALIGN1_2SRC has no field {field}"));
    (f.start, f.end)
}

/// Native fields a compact instruction carries directly.
const DIRECT: &[(&str, &str)] = &[
    ("Opcode", "Opcode"),
    ("Debug Control", "Debug Control"),
    ("Accumulator Write Control", "Accumulator Write Control"),
    ("Conditional Modifier", "Conditional Modifier"),
    ("Dst Register Number", "Dst Register Number"),
    ("Src0 Register Number", "Src0 Register Number"),
];

fn compact_range(field: &str) -> (u32, u32) {
    let def = GENERATION
        .def("EU_COMPACT_INSTRUCTION")
        .expect("eu.spec defines EU_COMPACT_INSTRUCTION");
    let f = def
        .field(field)
        .unwrap_or_else(|| panic!("EU_COMPACT_INSTRUCTION has no field {field}"));
    (f.start, f.end)
}

fn has_immediate(native: &[u32; 4]) -> bool {
    let (s0, e0) = range("Src0 Register File");
    let (s1, e1) = range("Src1 Register File");
    bits::get(native, s0, e0) == 3 || bits::get(native, s1, e1) == 3
}

/// Expands a compacted instruction to its native form.
pub fn uncompact(c: [u32; 2]) -> Result<[u32; 4], DecodeError> {
    let ci = EuCompactInstruction::unpack(&c).map_err(|e| DecodeError::Invalid(e.to_string()))?;
    let table = |e: &EnumInfo, idx: u32| -> Result<u64, DecodeError> {
        entries(e)
            .get(idx as usize)
            .copied()
            .ok_or_else(|| DecodeError::Invalid(format!("{} has no entry {idx}", e.name)))
    };
    let mut n = [0u32; 4];
    for (cf, nf) in DIRECT {
        let (cs, ce) = compact_range(cf);
        let (ns, ne) = range(nf);
        bits::set(&mut n, ns, ne, bits::get(&c, cs, ce));
    }
    expand(
        &mut n,
        table(&ENUM_EU_COMPACT_CONTROL_INDEX_GEN7, ci.control_index.0)?,
        CONTROL,
    );
    expand(
        &mut n,
        table(&ENUM_EU_COMPACT_DATATYPE_INDEX_GEN7, ci.datatype_index.0)?,
        DATATYPE,
    );
    expand(
        &mut n,
        table(&ENUM_EU_COMPACT_SUBREG_INDEX_GEN7, ci.subregister_index.0)?,
        SUBREG,
    );
    expand(
        &mut n,
        table(&ENUM_EU_COMPACT_SRC_INDEX_GEN7, ci.src0_index.0)?,
        SRC0,
    );
    if has_immediate(&n) {
        // The immediate: Src1 Register Number = bits 7:0, Src1 Index = bits 12:8, sign
        // extended from bit 12 (eu.spec EU_COMPACT_INSTRUCTION notes).
        let raw = (ci.src1_index.0 << 8) | ci.src1_register_number as u32;
        let imm = ((raw as i32) << 19 >> 19) as u32;
        n[3] = imm;
    } else {
        expand(
            &mut n,
            table(&ENUM_EU_COMPACT_SRC_INDEX_GEN7, ci.src1_index.0)?,
            SRC1,
        );
        let (ns, ne) = range("Src1 Register Number");
        bits::set(&mut n, ns, ne, ci.src1_register_number as u64);
    }
    Ok(n)
}

/// The compact form of a native instruction, if it has one that expands back to exactly
/// the same bits.
pub fn compact(native: &[u32; 4]) -> Option<[u32; 2]> {
    let find = |e: &EnumInfo, v: u64| entries(e).iter().position(|x| *x == v).map(|i| i as u32);
    let mut c = [0u32; 2];
    for (cf, nf) in DIRECT {
        let (cs, ce) = compact_range(cf);
        let (ns, ne) = range(nf);
        bits::set(&mut c, cs, ce, bits::get(native, ns, ne));
    }
    let set = |c: &mut [u32; 2], field: &str, v: u32| {
        let (s, e) = compact_range(field);
        bits::set(c, s, e, v as u64);
    };
    set(&mut c, "Compaction Control", 1);
    set(
        &mut c,
        "Control Index",
        find(&ENUM_EU_COMPACT_CONTROL_INDEX_GEN7, gather(native, CONTROL))?,
    );
    set(
        &mut c,
        "Datatype Index",
        find(
            &ENUM_EU_COMPACT_DATATYPE_INDEX_GEN7,
            gather(native, DATATYPE),
        )?,
    );
    set(
        &mut c,
        "Src0 Index",
        find(&ENUM_EU_COMPACT_SRC_INDEX_GEN7, gather(native, SRC0))?,
    );
    if has_immediate(native) {
        let imm = native[3] as i32;
        if !(-4096..4096).contains(&imm) {
            return None;
        }
        let raw = (imm as u32) & 0x1fff;
        set(&mut c, "Src1 Register Number", raw & 0xff);
        set(&mut c, "Src1 Index", raw >> 8);
        // With an immediate the subregister entry's third part (native 100:96) is
        // overwritten by the immediate: look the entry up by its first two parts.
        let want = gather(native, &SUBREG[..2]);
        let idx = entries(&ENUM_EU_COMPACT_SUBREG_INDEX_GEN7)
            .iter()
            .position(|e| e & 0x3ff == want)? as u32;
        set(&mut c, "Subregister Index", idx);
    } else {
        set(
            &mut c,
            "Subregister Index",
            find(&ENUM_EU_COMPACT_SUBREG_INDEX_GEN7, gather(native, SUBREG))?,
        );
        set(
            &mut c,
            "Src1 Index",
            find(&ENUM_EU_COMPACT_SRC_INDEX_GEN7, gather(native, SRC1))?,
        );
        let (ns, ne) = range("Src1 Register Number");
        set(
            &mut c,
            "Src1 Register Number",
            bits::get(native, ns, ne) as u32,
        );
    }
    (uncompact(c).ok()? == *native).then_some(c)
}
