//! Field-by-field comparison of `gtsim decode` with Mesa's own batch decoder
//! (`INTEL_DEBUG=bat`, an independent decoder generated from Mesa's genxml).
//!
//! Mesa prints every command and every piece of indirect state it follows as
//! `0xADDR:  0xDWORD : Dword N` lines, each followed by the fields that end in that dword
//! (`    Name: value`). Both decoders therefore agree on one key: the graphics address of
//! the dword where a field ends. For each submission, every Mesa field is paired with the
//! gtsim field ending at the same address whose name matches (after normalising spelling:
//! case, punctuation, "MOCS" for "Memory Object Control State", and a short alias table for
//! names the seeds spell differently from Mesa), and their values are compared as numbers.
//!
//! The result lists value mismatches (a wrong bit range or type in one of the specs) and
//! the fields that could not be paired (usually naming; reported, not failed).

use crate::decode::Item;
use gtsim_spec::bits;
use gtsim_spec::table::Generation;

/// The generation whose tables hold `def` (nested structures are looked up there).
fn generation_of(def: &'static Def) -> &'static Generation {
    let gen11 = &gtsim_spec::gen11::GENERATION;
    if gen11.defs.iter().any(|d| std::ptr::eq(*d, def)) {
        gen11
    } else {
        &gtsim_spec::gen7::GENERATION
    }
}
use gtsim_spec::table::{Def, Ty};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One field as Mesa printed it.
#[derive(Debug, Clone, PartialEq)]
pub struct BatField {
    /// Address of the dword line the field follows.
    pub addr: u64,
    /// Mesa's field name.
    pub name: String,
    /// Mesa's value text.
    pub value: String,
}

/// What the i915 emulation logs when it refuses an execbuffer (EIO: the context was
/// banned after a GPU hang). The batch Mesa printed before it never ran, so it is no
/// submission of the capture.
pub const REFUSED: &str = "execbuffer refused with EIO";

/// Splits Mesa's INTEL_DEBUG=bat output into one list of fields per submitted batch (a
/// batch the i915 emulation then refused, [`REFUSED`], is left out).
pub fn parse_bat(text: &str) -> Vec<Vec<BatField>> {
    let mut batches: Vec<Vec<BatField>> = vec![];
    let mut cur: Option<Vec<BatField>> = None;
    let mut addr: Option<u64> = None;
    for line in text.lines() {
        if line.contains(" batch [") && line.contains("flush with") {
            if let Some(b) = cur.take() {
                batches.push(b);
            }
            cur = Some(vec![]);
            addr = None;
            continue;
        }
        if line.contains(REFUSED) {
            cur = None; // Printed, never run.
            continue;
        }
        let Some(fields) = cur.as_mut() else { continue };
        if let Some(rest) = line.strip_prefix("0x") {
            // `0x%08x:  0x%08x : Dword N` or a command header `0x%08x:  0x%08x:  NAME`.
            // Gen8+ decodes print 64-bit canonical addresses (`0xfffffffefffee004`); the
            // model's addresses are their 48 bits.
            addr = if rest.contains(" : Dword ") {
                let hex = rest.split(':').next().unwrap_or("");
                u64::from_str_radix(hex, 16)
                    .ok()
                    .map(|a| a & ((1 << 48) - 1))
            } else {
                None
            };
            continue;
        }
        if let (Some(a), Some(f)) = (addr, line.strip_prefix("    ")) {
            if let Some((name, value)) = f.split_once(": ")
                && !name.starts_with(' ')
                && !value.starts_with("<struct")
            {
                fields.push(BatField {
                    addr: a,
                    name: name.to_string(),
                    value: value.trim().to_string(),
                });
            }
        } else if !line.starts_with("    ") {
            addr = None;
        }
    }
    if let Some(b) = cur {
        batches.push(b);
    }
    batches
}

/// A number for comparing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// Integer.
    Int(i128),
    /// A two's complement field of the given width (agrees with an integer equal to it
    /// modulo 2^width: Mesa prints some genxml `int` fields unsigned).
    Signed(i128, u32),
    /// Float.
    Float(f64),
}

impl Num {
    fn agrees(self, other: Num) -> bool {
        let f = |n: Num| match n {
            Num::Int(i) | Num::Signed(i, _) => i as f64,
            Num::Float(x) => x,
        };
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => a == b || (a as u64) == (b as u64),
            (Num::Signed(a, w), Num::Int(b)) | (Num::Int(b), Num::Signed(a, w)) => {
                let m = 1i128 << w.min(64);
                a.rem_euclid(m) == b.rem_euclid(m)
            }
            (a, b) => {
                let (a, b) = (f(a), f(b));
                a == b || (a - b).abs() <= 1e-6 * a.abs().max(1.0) || (a.is_nan() && b.is_nan())
            }
        }
    }
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::Int(i) | Num::Signed(i, _) => write!(f, "{i:#x}"),
            Num::Float(x) => write!(f, "{x}"),
        }
    }
}

/// Reads Mesa's value text as a number (`true`, `0x1f000`, `3 (NAME)`, `-2`, `1.000000`).
pub fn parse_value(v: &str) -> Option<Num> {
    let t = v.split(" (").next()?.trim();
    match t {
        "true" => return Some(Num::Int(1)),
        "false" => return Some(Num::Int(0)),
        _ => {}
    }
    if let Some(h) = t.strip_prefix("0x") {
        return i128::from_str_radix(h, 16).ok().map(Num::Int);
    }
    if let Ok(i) = t.parse::<i128>() {
        return Some(Num::Int(i));
    }
    t.parse::<f64>().ok().map(Num::Float)
}

/// Normalises a field name for pairing.
pub fn normalise(name: &str) -> String {
    let lower = name
        .to_ascii_lowercase()
        .replace("memory object control state", "mocs")
        .replace("object control state", "mocs");
    let mut s: String = lower
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    for (from, to) in ALIASES {
        if s == *from {
            s = to.to_string();
        }
    }
    s
}

/// Names the seeds spell differently from Mesa's genxml, normalised (seed -> Mesa).
const ALIASES: &[(&str, &str)] = &[
    ("csstall", "commandstreamerstallenable"),
    ("instructiontype", "commandtype"),
    ("dwordcount", "dwordlength"),
];

/// One gtsim field.
#[derive(Debug, Clone)]
struct Leaf {
    name: String,
    value: Num,
    def: &'static str,
    /// Its first bit within the definition, plus the definition's byte base × 8 (the
    /// order Mesa prints a dword's fields in).
    start: u64,
}

/// The leaves of `def` (its dwords `dw` at byte address `base`, its bit 0 being bit `bit`
/// of that dword when it is nested inside a dword) by the address of the dword each ends
/// in.
fn leaves(def: &'static Def, dw: &[u32], base: u64, out: &mut BTreeMap<u64, Vec<Leaf>>) {
    leaves_at(def, dw, base, 0, out)
}

fn leaves_at(
    def: &'static Def,
    dw: &[u32],
    base: u64,
    bit: u32,
    out: &mut BTreeMap<u64, Vec<Leaf>>,
) {
    for f in def.fields {
        let at = base + (f.end / 32) as u64 * 4;
        match f.ty {
            Ty::Struct(s) => {
                if let Some(nested) = generation_of(def).def(s) {
                    let sub = bits::extract(dw, f.start, f.end, nested.dwords as usize);
                    leaves_at(
                        nested,
                        &sub,
                        base + (f.start / 32) as u64 * 4,
                        bit + f.start % 32,
                        out,
                    );
                    if f.width() <= 64 {
                        out.entry(at).or_default().push(Leaf {
                            name: f.name.to_string(),
                            value: Num::Int(f.raw(dw) as i128),
                            def: def.name,
                            start: base * 8 + (bit + f.start) as u64,
                        });
                    }
                }
            }
            Ty::Array { elem, count } => {
                let Some(nested) = generation_of(def).def(elem) else {
                    continue;
                };
                let first = (f.start / 32) as usize;
                let n = count.map_or(
                    dw.len().saturating_sub(first) / nested.dwords as usize,
                    |c| c as usize,
                );
                for i in 0..n {
                    let s = first + i * nested.dwords as usize;
                    if let Some(sub) = dw.get(s..s + nested.dwords as usize) {
                        leaves(nested, sub, base + s as u64 * 4, out);
                    }
                }
            }
            Ty::Mbz => {}
            _ => {
                let raw = f.raw(dw);
                let w = f.width();
                let value = match f.ty {
                    // A signed field whose value Mesa may print either way: kept as its
                    // bits, compared modulo 2^width.
                    Ty::S => Num::Signed(bits::sext(raw, w) as i128, w),
                    Ty::Address | Ty::Offset(_) => Num::Int(f.address(dw) as i128),
                    Ty::Float => Num::Float(f32::from_bits(raw as u32) as f64),
                    Ty::UFixed(_, fr) => Num::Float(raw as f64 / (1u64 << fr) as f64),
                    Ty::SFixed(_, fr) => {
                        Num::Float(bits::sext(raw, w) as f64 / (1u64 << fr) as f64)
                    }
                    _ => Num::Int(raw as i128),
                };
                out.entry(at).or_default().push(Leaf {
                    name: f.name.to_string(),
                    value,
                    def: def.name,
                    start: base * 8 + (bit + f.start) as u64,
                });
            }
        }
    }
}

/// The comparison's outcome.
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    /// Submissions compared.
    pub batches: usize,
    /// Fields paired and equal.
    pub agree: usize,
    /// Fields paired with different values: (submission, address, definition, field, Mesa value, gtsim value).
    pub differ: Vec<(usize, u64, String, String, String, String)>,
    /// Mesa fields with no gtsim field of that name at that address: (Mesa name, gtsim names there) -> count.
    pub unpaired: BTreeMap<(String, String), usize>,
    /// Mesa fields whose value is not a number (skipped).
    pub not_numeric: usize,
}

impl Comparison {
    /// A readable report.
    pub fn report(&self) -> String {
        let mut s = String::new();
        for (b, addr, def, name, mesa, ours) in &self.differ {
            let _ = writeln!(
                s,
                "DIFFER submission {b} {addr:#010x} {def}.{name}: Mesa {mesa}, gtsim {ours}"
            );
        }
        for ((name, near), n) in &self.unpaired {
            let _ = writeln!(
                s,
                "UNPAIRED {n}x Mesa `{name}` (gtsim fields there: {near})"
            );
        }
        let _ = writeln!(
            s,
            "{} submissions: {} fields agree, {} differ, {} Mesa fields unpaired ({} distinct names), {} not numeric",
            self.batches,
            self.agree,
            self.differ.len(),
            self.unpaired.values().sum::<usize>(),
            self.unpaired.len(),
            self.not_numeric
        );
        s
    }
}

/// Compares Mesa's batches with gtsim's decode of the capture of the same run.
pub fn compare(mesa: &[Vec<BatField>], ours: &[Item]) -> Comparison {
    // Split our items per submission.
    let mut per: Vec<BTreeMap<u64, Vec<Leaf>>> = vec![];
    for it in ours {
        match it {
            Item::Note { msg, .. } if msg.starts_with("submission ") => per.push(BTreeMap::new()),
            Item::Command {
                addr, def, dwords, ..
            }
            | Item::State {
                addr, def, dwords, ..
            } => {
                // Mesa prints a register written by MI_LOAD_REGISTER_IMM at its MMIO offset.
                let base = match def.kind {
                    gtsim_spec::table::DefKind::Register { offset } => offset as u64,
                    _ => *addr,
                };
                if let Some(m) = per.last_mut() {
                    leaves(def, dwords, base, m);
                    // Mesa prints a dword's fields from its lowest bit up (genxml order):
                    // repeated names pair in that order.
                    for l in m.values_mut() {
                        l.sort_by_key(|l| l.start);
                    }
                }
            }
            _ => {}
        }
    }
    let mut c = Comparison {
        batches: mesa.len().min(per.len()),
        ..Default::default()
    };
    for (b, (fields, map)) in mesa.iter().zip(&per).enumerate() {
        // Mesa's own names at each address: a gtsim field that bears one of them exactly
        // belongs to that Mesa field and is never paired with another by affix
        // ("Point Width" is not "Point Width Source").
        let mut mesa_names: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        for f in fields {
            mesa_names
                .entry(f.addr)
                .or_default()
                .push(normalise(&f.name));
        }
        // How many Mesa fields of each name were seen at each address so far: a dword
        // holding several sub-dword structures (3DSTATE_SBE's two
        // SF_OUTPUT_ATTRIBUTE_DETAIL per dword) repeats names, and the k-th Mesa field of
        // a name pairs with the k-th gtsim field of that name there (both decoders print
        // the elements in order).
        let mut seen: BTreeMap<(u64, String), usize> = BTreeMap::new();
        for f in fields {
            let Some(mv) = parse_value(&f.value) else {
                c.not_numeric += 1;
                continue;
            };
            let here = map.get(&f.addr).map(Vec::as_slice).unwrap_or(&[]);
            let n = normalise(&f.name);
            // Exact name, else the one gtsim name at this address that the Mesa name is a
            // prefix or suffix of (or the other way round): "MOCS" / "Vertex Buffer MOCS",
            // "Single Program Flow" / "Single Program Flow (SPF)".
            let k = seen.entry((f.addr, n.clone())).or_default();
            let same: Vec<&Leaf> = here.iter().filter(|l| normalise(&l.name) == n).collect();
            let exact = same.get(*k).or(same.first()).copied();
            *k += 1;
            let affix = || {
                let m: Vec<&Leaf> = here
                    .iter()
                    .filter(|l| {
                        let o = normalise(&l.name);
                        let taken = mesa_names
                            .get(&f.addr)
                            .is_some_and(|ns| ns.iter().any(|m| *m == o && *m != n));
                        // A seed's split address ("Kernel Start Pointer" and "... High")
                        // is not genxml's one 48-bit field: not the same field.
                        let split_high = o.ends_with("high") && !n.ends_with("high");
                        !taken
                            && !split_high
                            && !n.is_empty()
                            && (o.ends_with(&n)
                                || o.starts_with(&n)
                                || n.ends_with(&o)
                                || n.starts_with(&o))
                            && !o.is_empty()
                    })
                    .collect();
                if m.len() == 1 { Some(m[0]) } else { None }
            };
            match exact.or_else(affix) {
                Some(l) if l.value.agrees(mv) => c.agree += 1,
                Some(l) => c.differ.push((
                    b,
                    f.addr,
                    l.def.to_string(),
                    l.name.clone(),
                    f.value.clone(),
                    l.value.to_string(),
                )),
                None => {
                    let near: Vec<&str> = here.iter().map(|l| l.name.as_str()).collect();
                    *c.unpaired
                        .entry((f.name.clone(), near.join(", ")))
                        .or_default() += 1;
                }
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mesa_lines() {
        let text = "x render batch [1] flush with 3068b\n0x00010000:  0x7a000003:  PIPE_CONTROL   \n0x00010000:  0x7a000003 : Dword 0\n    DWord Length: 3\n0x00010004:  0x00101021 : Dword 1\n    Post Sync Operation: 0 (No Write)\n    Vertex Buffer State[0]: <struct VERTEX_BUFFER_STATE>\npointer 0: 0x1a0\n";
        let b = parse_bat(text);
        assert_eq!(b.len(), 1);
        assert_eq!(
            b[0],
            vec![
                BatField {
                    addr: 0x10000,
                    name: "DWord Length".into(),
                    value: "3".into()
                },
                BatField {
                    addr: 0x10004,
                    name: "Post Sync Operation".into(),
                    value: "0 (No Write)".into()
                }
            ]
        );
    }

    /// A batch the i915 emulation refused (a banned context) was printed by Mesa but
    /// never ran: it is left out, so the batches after it pair with their submissions.
    #[test]
    fn refused_batches_are_left_out() {
        let text = format!(
            "render batch [1] flush with 8b\n0x00010000:  0x7a000003 : Dword 0\n    DWord Length: 3\n\
             render batch [2] flush with 8b\n0x00020000:  0x7a000003 : Dword 0\n    DWord Length: 4\n\
             gtsim-i915: {REFUSED}: context 1 is banned after a GPU hang\n\
             render batch [1] flush with 8b\n0x00030000:  0x7a000003 : Dword 0\n    DWord Length: 5\n"
        );
        let b = parse_bat(&text);
        let firsts: Vec<u64> = b.iter().map(|f| f[0].addr).collect();
        assert_eq!(firsts, vec![0x10000, 0x30000]);
    }

    /// Two SF_OUTPUT_ATTRIBUTE_DETAIL in one 3DSTATE_SBE dword: Mesa prints "Source
    /// Attribute" twice at that dword's address, and each pairs with its own element
    /// (Attribute 0 holds 0, Attribute 1 holds 1 in DW2 = 0x00010000).
    #[test]
    fn repeated_names_in_one_dword_pair_in_order() {
        let def = gtsim_spec::gen7::GENERATION.def("3DSTATE_SBE").unwrap();
        let mut dwords = vec![0u32; 14];
        dwords[2] = 0x0001_0000;
        let ours = vec![
            Item::Note {
                addr: 0,
                msg: "submission 0".into(),
            },
            Item::Command {
                addr: 0x1000,
                def,
                dwords,
                lines: vec![],
            },
        ];
        let field = |value: &str| BatField {
            addr: 0x1008,
            name: "Source Attribute".into(),
            value: value.into(),
        };
        let c = compare(&[vec![field("0"), field("1")]], &ours);
        assert_eq!((c.agree, c.differ.len()), (2, 0), "{}", c.report());
        let c = compare(&[vec![field("1"), field("0")]], &ours);
        assert_eq!((c.agree, c.differ.len()), (0, 2), "{}", c.report());
    }

    #[test]
    fn values_and_names_normalise() {
        assert_eq!(
            parse_value("199 (ISL_FORMAT_R8G8B8A8_UNORM)"),
            Some(Num::Int(199))
        );
        assert_eq!(parse_value("true"), Some(Num::Int(1)));
        assert_eq!(parse_value("0x0001f000"), Some(Num::Int(0x1f000)));
        assert_eq!(parse_value("1.000000"), Some(Num::Float(1.0)));
        assert_eq!(
            normalise("Post-Sync Operation"),
            normalise("Post Sync Operation")
        );
        assert_eq!(
            normalise("General State Memory Object Control State"),
            normalise("General State MOCS")
        );
        assert!(Num::Float(0.1).agrees(Num::Float(0.100000)));
        assert!(!Num::Int(1).agrees(Num::Int(2)));
    }
}
