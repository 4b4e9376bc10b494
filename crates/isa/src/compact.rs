//! Instruction compaction, shared by the generations whose 64-bit compact form has the
//! same field layout (Gen7 and Gen8-11: Mesa brw_inst.h brw_compact_inst, the `4+` column):
//! Control, Datatype, Subregister and Source indices select entries of four tables, and
//! each entry expands into fixed native bit ranges ([`Tables`] says which, per
//! generation).
//!
//! Compaction is done by construction and proof: build the compact form from the native
//! bits by looking each part up in its table, then expand it again; only if the
//! expansion reproduces every native bit is the compact form used.

use crate::error::DecodeError;
use gtsim_spec::bits;
use gtsim_spec::table::{Def, EnumInfo};

/// `(entry bit, native bit, width)` pieces of a table entry.
pub(crate) type Map = &'static [(u32, u32, u32)];

/// One generation's compaction: its tables, where their entries go, and the layouts that
/// name the native and compact fields.
pub(crate) struct Tables {
    pub control: &'static EnumInfo,
    pub datatype: &'static EnumInfo,
    pub subreg: &'static EnumInfo,
    pub src: &'static EnumInfo,
    pub control_map: Map,
    pub datatype_map: Map,
    /// The native layout the direct fields are named in (align1, register sources).
    pub native: &'static Def,
    /// The compact layout.
    pub compact: &'static Def,
}

const SUBREG: Map = &[(0, 48, 5), (5, 64, 5), (10, 96, 5)];
const SRC0: Map = &[(0, 77, 12)];
const SRC1: Map = &[(0, 109, 12)];

/// Native fields a compact instruction carries directly (the same names in both layouts).
const DIRECT: &[&str] = &[
    "Opcode",
    "Debug Control",
    "Accumulator Write Control",
    "Conditional Modifier",
    "Dst Register Number",
    "Src0 Register Number",
];

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

fn range(def: &Def, field: &str) -> (u32, u32) {
    let f = def
        .field(field)
        .unwrap_or_else(|| panic!("{} has no field {field}", def.name));
    (f.start, f.end)
}

impl Tables {
    fn has_immediate(&self, native: &[u32; 4]) -> bool {
        let (s0, e0) = range(self.native, "Src0 Register File");
        let (s1, e1) = range(self.native, "Src1 Register File");
        bits::get(native, s0, e0) == 3 || bits::get(native, s1, e1) == 3
    }

    /// Expands a compacted instruction to its native form.
    pub(crate) fn uncompact(&self, c: [u32; 2]) -> Result<[u32; 4], DecodeError> {
        self.compact
            .check_fixed(&c)
            .map_err(|e| DecodeError::Invalid(e.to_string()))?;
        let field = |name: &str| {
            let (s, e) = range(self.compact, name);
            bits::get(&c, s, e) as u32
        };
        let table = |e: &EnumInfo, idx: u32| -> Result<u64, DecodeError> {
            entries(e)
                .get(idx as usize)
                .copied()
                .ok_or_else(|| DecodeError::Invalid(format!("{} has no entry {idx}", e.name)))
        };
        let mut n = [0u32; 4];
        for f in DIRECT {
            let (cs, ce) = range(self.compact, f);
            let (ns, ne) = range(self.native, f);
            bits::set(&mut n, ns, ne, bits::get(&c, cs, ce));
        }
        expand(
            &mut n,
            table(self.control, field("Control Index"))?,
            self.control_map,
        );
        expand(
            &mut n,
            table(self.datatype, field("Datatype Index"))?,
            self.datatype_map,
        );
        expand(
            &mut n,
            table(self.subreg, field("Subregister Index"))?,
            SUBREG,
        );
        expand(&mut n, table(self.src, field("Src0 Index"))?, SRC0);
        let (src1_index, src1_nr) = (field("Src1 Index"), field("Src1 Register Number"));
        if self.has_immediate(&n) {
            // The immediate: Src1 Register Number = bits 7:0, Src1 Index = bits 12:8, sign
            // extended from bit 12 (Mesa brw_eu_compact.c uncompact_instruction).
            let raw = (src1_index << 8) | src1_nr;
            n[3] = ((raw as i32) << 19 >> 19) as u32;
        } else {
            expand(&mut n, table(self.src, src1_index)?, SRC1);
            let (ns, ne) = range(self.native, "Src1 Register Number");
            bits::set(&mut n, ns, ne, src1_nr as u64);
        }
        Ok(n)
    }

    /// The compact form of a native instruction, if it has one that expands back to
    /// exactly the same bits.
    pub(crate) fn compact(&self, native: &[u32; 4]) -> Option<[u32; 2]> {
        let find = |e: &EnumInfo, v: u64| entries(e).iter().position(|x| *x == v).map(|i| i as u32);
        let mut c = [0u32; 2];
        for f in DIRECT {
            let (cs, ce) = range(self.compact, f);
            let (ns, ne) = range(self.native, f);
            bits::set(&mut c, cs, ce, bits::get(native, ns, ne));
        }
        let set = |c: &mut [u32; 2], field: &str, v: u32| {
            let (s, e) = range(self.compact, field);
            bits::set(c, s, e, v as u64);
        };
        set(&mut c, "Compaction Control", 1);
        set(
            &mut c,
            "Control Index",
            find(self.control, gather(native, self.control_map))?,
        );
        set(
            &mut c,
            "Datatype Index",
            find(self.datatype, gather(native, self.datatype_map))?,
        );
        set(&mut c, "Src0 Index", find(self.src, gather(native, SRC0))?);
        if self.has_immediate(native) {
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
            let idx = entries(self.subreg)
                .iter()
                .position(|e| e & 0x3ff == want)? as u32;
            set(&mut c, "Subregister Index", idx);
        } else {
            set(
                &mut c,
                "Subregister Index",
                find(self.subreg, gather(native, SUBREG))?,
            );
            set(&mut c, "Src1 Index", find(self.src, gather(native, SRC1))?);
            let (ns, ne) = range(self.native, "Src1 Register Number");
            set(
                &mut c,
                "Src1 Register Number",
                bits::get(native, ns, ne) as u32,
            );
        }
        (self.uncompact(c).ok()? == *native).then_some(c)
    }
}
