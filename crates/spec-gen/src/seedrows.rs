//! Extracts the bit-field rows of a seed's register/structure table, and compares them
//! with a spec definition.
//!
//! The seeds are PDF-to-text conversions with noise (seeds/INDEX.md §3): rows appear as
//! `DW⇥BITS⇥Name`, `⇥BITS⇥Name`, `BITS Name` in one cell, or inside HTML cells; enum
//! value tables sit between the rows; DWord labels are often lost. The extractor is the
//! contiguity state machine INDEX.md §3.2 describes: a row is accepted only if its bits
//! continue the table (descending within a dword, a new dword starting again at bit 31 or
//! carrying its own DWord label). What it cannot read with confidence it skips; the
//! comparison reports how much it read.

use crate::model::{Def, FieldType, Spec};

/// One row read from a seed table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedRow {
    /// 1-based line in the seed file.
    pub line: usize,
    /// Absolute first bit.
    pub lo: u32,
    /// Absolute last bit.
    pub hi: u32,
    /// The name as the seed spells it (cleaned of tags).
    pub name: String,
}

impl SeedRow {
    /// Whether the seed calls this row reserved.
    pub fn reserved(&self) -> bool {
        let n = self.name.to_ascii_lowercase();
        n.starts_with("reserved") || n.starts_with("ignored") || n == "mbz"
    }
}

fn strip_tags(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_tag = false;
    let mut tag = String::new();
    for c in line.chars() {
        match (in_tag, c) {
            (false, '<') => {
                in_tag = true;
                tag.clear();
            }
            (true, '>') => {
                in_tag = false;
                let t = tag.to_ascii_lowercase();
                if t.starts_with("/td")
                    || t.starts_with("/th")
                    || t.starts_with("/div")
                    || t.starts_with("/p")
                    || t.starts_with("br")
                {
                    out.push('\t');
                }
            }
            (true, c) => tag.push(c),
            (false, c) => out.push(c),
        }
    }
    out.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("\\_", "_")
}

fn parse_bits(s: &str) -> Option<(u32, u32)> {
    let s = s.trim();
    let (h, l) = match s.split_once(':') {
        Some((h, l)) => (h, l),
        None => (s, s),
    };
    if h.is_empty()
        || l.is_empty()
        || !h.chars().all(|c| c.is_ascii_digit())
        || !l.chars().all(|c| c.is_ascii_digit())
        || h.len() > 3
        || l.len() > 3
    {
        return None;
    }
    let (h, l) = (h.parse().ok()?, l.parse().ok()?);
    (h >= l && h < 1024).then_some((h, l))
}

fn parse_dw(s: &str) -> Option<u32> {
    let s = s.trim();
    let first = s.split("..").next()?;
    if first.is_empty() || first.len() > 3 || !first.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    first.parse().ok()
}

/// Seed 003's message payloads label rows by GRF register and dword, `R.D` or a register's
/// span `R.D-R.D`, optionally followed by prose (`0.0 This is the URB handle ...`), with
/// bits counted from that dword (`1.0-1.7⇥255:0⇥Red`). The row's dword in the payload is
/// `R * 8 + D` (a register is 256 bits). The label must span the row's `bits`: one dword
/// for `R.D`, the range's dwords for `R.D-R.D` (a garbled `3..4` range label, `3.4⇥63:32`
/// in 3DSTATE_GS_BODY, is not one).
fn parse_register_dw(s: &str, bits: Option<(u32, u32)>) -> Option<u32> {
    let dw = |x: &str| -> Option<u32> {
        let (r, d) = x.split_once('.')?;
        let digits =
            |x: &str| !x.is_empty() && x.len() <= 2 && x.chars().all(|c| c.is_ascii_digit());
        if !digits(r) || d.len() != 1 || !digits(d) {
            return None;
        }
        let (r, d): (u32, u32) = (r.parse().ok()?, d.parse().ok()?);
        (d < 8).then_some(r * 8 + d)
    };
    let head = s.split(' ').next()?;
    let (first, last) = match head.split_once('-') {
        Some((a, b)) => (dw(a)?, dw(b)?),
        None => (dw(head)?, dw(head)?),
    };
    let (hi, _) = bits?;
    (last >= first && hi / 32 == last - first).then_some(first)
}

fn clean_name(s: &str) -> Option<String> {
    let mut n = s.trim();
    for cut in [
        " Project:",
        " Format:",
        " Default Value:",
        " Exists If:",
        "Project:",
        "Format:",
    ] {
        if let Some(i) = n.find(cut)
            && i > 0
        {
            n = n[..i].trim();
        }
    }
    // `Name Specifies the ...`: seed 003 runs a row's description on after its name in
    // one cell (L13401 "Message Header Present Indicates the message forbids ...").
    for verb in [" Specifies ", " Indicates ", " This field ", " This bit "] {
        if let Some(i) = n.find(verb)
            && n[..i].split_whitespace().count() <= 6
        {
            n = n[..i].trim();
        }
    }
    // `Name: description` (message descriptor tables) keeps the name.
    if let Some((head, _)) = n.split_once(':')
        && !head.is_empty()
        && head.split_whitespace().count() <= 6
    {
        n = head.trim();
    }
    let first = n.chars().next()?;
    // Field names are Title Case (or start with "3D"); prose and enum values are not.
    // One camelCase word is a name too (seed 003's `oMask` payload row).
    let camel = first.is_ascii_lowercase()
        && !n.contains(' ')
        && n.chars().skip(1).any(|c| c.is_ascii_uppercase());
    if !(first.is_ascii_uppercase() || n.starts_with("3D") || camel) || n.ends_with(':') {
        return None;
    }
    // Sentences and bare enum words are not rows.
    const NOT_NAMES: &[&str] = &[
        "Enable",
        "Disable",
        "Enabled",
        "Disabled",
        "Default Value",
        "Project",
        "Format",
        "Exists If",
        "Range",
        "Description",
        "Programming Notes",
        "Value",
        "Name",
        "Errata",
    ];
    if n.split_whitespace().count() > 8 || n.ends_with('.') || NOT_NAMES.contains(&n) {
        return None;
    }
    // Enum value rows: ALL_CAPS_WITH_UNDERSCORES names.
    if n.contains('_')
        && !n.chars().any(|c| c.is_ascii_lowercase())
        && !n.to_ascii_lowercase().starts_with("reserved")
    {
        return None;
    }
    let words: Vec<&str> = n.split_whitespace().take(12).collect();
    Some(words.join(" "))
}

/// The name of a payload row (`R.D` label): enumeration values never carry such a label,
/// so any first word is a name (`U3_U0`, `oMask`), up to its `Format:` or description.
fn payload_name(s: &str) -> Option<String> {
    clean_name(s).or_else(|| {
        let n = s.split(" Format:").next()?.trim();
        let word = n.split_whitespace().next()?;
        word.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_[]:".contains(c))
            .then(|| word.to_string())
    })
}

/// An enumeration value cell: `3`, `3h`, `03h`.
fn parse_value(s: &str) -> Option<u32> {
    let s = s.trim();
    match s.strip_suffix('h') {
        Some(h) if !h.is_empty() && h.len() <= 4 => u32::from_str_radix(h, 16).ok(),
        _ if !s.is_empty() && s.len() <= 4 && s.chars().all(|c| c.is_ascii_digit()) => {
            s.parse().ok()
        }
        _ => None,
    }
}

/// Reads the table rows in lines `first..=last` (1-based) of `text`.
pub fn extract(text: &str, first: usize, last: usize) -> Vec<SeedRow> {
    let mut rows: Vec<SeedRow> = vec![];
    let mut dw: u32 = 0;
    let mut prev_lo: Option<u32> = None; // within the current dword
    // After a `first..last` DWord label whose bits count across the whole range (seed
    // 003's `0..3⇥127:126` instruction rows), unlabeled rows carry bits counted from
    // dword `first` too: (first dword, the lowest absolute bit read so far).
    let mut range: Option<(u32, u32)> = None;
    let mut in_values = false;
    // In a value table: (the next value, the largest the field holds, hex spelling).
    let mut values: Option<(u32, u32, bool)> = None;
    for (i, raw) in text
        .lines()
        .enumerate()
        .skip(first.saturating_sub(1))
        .take(last + 1 - first.max(1))
    {
        let line = strip_tags(raw);
        let cells: Vec<&str> = line
            .split('\t')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        if cells.is_empty() {
            continue;
        }
        if cells[0] == "Value" || cells[0] == "Errata" || cells[0].starts_with("Value ") {
            in_values = cells.get(1).is_some_and(|c| c.starts_with("Name"));
            continue; // an enum or errata table's header row
        }
        // Candidate forms.
        let mut label = None;
        let mut bits = None;
        let mut name = None;
        let label_range = cells[0].contains("..");
        let register_dw = cells
            .get(1)
            .and_then(|c| parse_register_dw(cells[0], parse_bits(c)));
        let register_label = register_dw.is_some();
        if cells.len() >= 3
            && let (Some(d), Some(b)) = (register_dw.or(parse_dw(cells[0])), parse_bits(cells[1]))
            && let Some(n) = if register_label {
                payload_name(cells[2])
            } else {
                clean_name(cells[2])
            }
        {
            label = Some(d);
            bits = Some(b);
            name = Some(n);
        }
        if cells.len() >= 3 {
            // `7:0⇥31:15⇥Name`: the previous dword's last row merged into this one's
            // (INDEX.md §3.1, 3DSTATE_SF): the second cell is this row's bits.
            if let (Some(_), Some(b), Some(n)) = (
                parse_bits(cells[0]),
                parse_bits(cells[1]),
                clean_name(cells[2]),
            ) && bits.is_none()
            {
                bits = Some(b);
                name = Some(n);
            }
        }
        // `0⇥FULL⇥Full Quality. ...` under a `Value⇥Name` header: an enumeration value,
        // not a field (seed 003 L18825, SAMPLER_STATE's Trilinear Filter Quality values).
        // A value table starts with a row that is plainly a value (an upper-case word, or
        // marked `[Default]`) and goes on while the values count up (0, 1, 2, ...) within
        // the last field's width; the rows after it are fields again (`S3U`, `Not Detail
        // Revealed` stays a value after `Detail Revealed [Default]`).
        let value_number = parse_value(cells[0]);
        // The table keeps one spelling: after `2h`, a `3⇥Reserved` is bit 3 (seed 004
        // L3977, 3DSTATE_TE).
        let hex = cells[0].ends_with('h');
        let plain_value = cells.get(1).is_some_and(|c| {
            c.contains("[Default]")
                || (c.len() >= 3 && c.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'))
        });
        let enum_value = match (value_number, values) {
            (Some(v), Some((next, max, h))) if v == next && v <= max && h == hex => true,
            (Some(v), None) if in_values && plain_value && v <= 1 && cells.len() >= 2 => true,
            _ => false,
        };
        if value_number.is_none() {
            // Not a row (a page header, a description line): the table goes on.
        } else if enum_value {
            let max = rows.last().map_or(u32::MAX, |r| {
                let w = (r.hi - r.lo + 1).min(31);
                (1u32 << w) - 1
            });
            values = value_number.map(|v| (v + 1, values.map_or(max, |(_, m, _)| m), hex));
        } else {
            values = None;
        }
        if bits.is_none()
            && cells.len() >= 2
            && !enum_value
            && let Some(b) = parse_bits(cells[0])
            && let Some(n) = clean_name(cells[1])
        {
            bits = Some(b);
            name = Some(n);
        }
        if bits.is_none()
            && let Some((b, rest)) = cells[0].split_once(' ')
            && let (Some(bb), Some(n)) = (parse_bits(b), clean_name(rest))
        {
            bits = Some(bb);
            name = Some(n);
        }
        if bits.is_none() && cells.len() >= 2 {
            // `DW⇥BITS Name` (label, then bits and name in one cell).
            if let (Some(d), Some((b, rest))) = (parse_dw(cells[0]), cells[1].split_once(' '))
                && let (Some(bb), Some(n)) = (parse_bits(b), clean_name(rest))
            {
                label = Some(d);
                bits = Some(bb);
                name = Some(n);
            }
        }
        let (Some((hi, lo)), Some(name)) = (bits, name) else {
            continue;
        };
        in_values = false;
        if label.is_none()
            && let Some((base, below)) = range
        {
            let (alo, ahi) = (base * 32 + lo, base * 32 + hi);
            let repeat = rows.last().is_some_and(|r| {
                r.name == name && r.lo == alo && r.hi == ahi && i + 1 - r.line <= 2
            });
            if ahi < below {
                rows.push(SeedRow {
                    line: i + 1,
                    lo: alo,
                    hi: ahi,
                    name: name.clone(),
                });
                range = Some((base, alo));
            } else if !repeat && hi == 31 {
                // A row starting a new dword without its label ends the range.
                range = None;
                prev_lo = None;
                dw = dw.max(base + 1);
            }
            if range.is_some() || repeat {
                continue;
            }
        }
        if label.is_some() {
            range = None;
        }
        // Seed 003 prints many rows twice: an HTML table line, then the same cells
        // flattened on the next line or two. The repeat is the same row, not the next
        // dword's.
        if label.is_none()
            && rows.last().is_some_and(|r| {
                r.name == name
                    && r.hi % 32 == hi % 32
                    && r.lo % 32 == lo % 32
                    && i + 1 - r.line <= 2
            })
        {
            continue;
        }
        // Contiguity.
        let (hi_w, lo_w) = (hi % 32, lo % 32);
        let wide = hi >= 32; // `3..4 63:32` style rows carry absolute-in-label bits
        let accept_dw = match (label, prev_lo) {
            (Some(d), _) if (d > dw || (d == dw && prev_lo.is_none())) && (hi_w == 31 || wide) => {
                Some(d)
            }
            // A payload's `R.D` label names its dword outright; the row may start anywhere.
            (Some(d), _) if register_label && (d > dw || prev_lo.is_none()) => Some(d),
            // The first row of a table narrower than a dword (seed 003's descriptor
            // control fields: `0⇥0⇥Message Header Present` of a 1-bit structure).
            (Some(0), None) if rows.is_empty() => Some(0),
            (Some(d), Some(p)) if d == dw && hi < p => Some(d),
            // The table's first row: descriptor tables start below bit 31.
            (None, None) => Some(dw),
            (None, Some(p)) if hi < p => Some(dw),
            (None, Some(p))
                if hi == p.saturating_sub(0)
                    && rows
                        .last()
                        .is_some_and(|r| r.hi % 32 == hi_w && r.lo % 32 == lo_w) =>
            {
                Some(dw)
            }
            (None, Some(p)) if hi >= p && (hi == 31 || wide) => Some(dw + 1),
            _ => None,
        };
        let Some(d) = accept_dw else { continue };

        dw = d;
        let (alo, ahi) = if wide {
            (d * 32 + lo, d * 32 + hi)
        } else {
            (d * 32 + lo_w, d * 32 + hi_w)
        };
        prev_lo = Some(if wide { lo % 32 } else { lo_w });
        if wide {
            dw = d + hi / 32;
            prev_lo = Some(lo % 32).filter(|_| lo / 32 == hi / 32).or(Some(0));
            if label_range && hi / 32 > 0 {
                range = Some((d, alo));
            }
        }
        rows.push(SeedRow {
            line: i + 1,
            lo: alo,
            hi: ahi,
            name,
        });
    }
    rows
}

/// A leaf field of a spec definition, flattened through nested structs.
#[derive(Debug, Clone)]
pub struct Leaf {
    /// Dotted path.
    pub name: String,
    /// Absolute first bit.
    pub lo: u32,
    /// Absolute last bit.
    pub hi: u32,
    /// Reserved.
    pub mbz: bool,
}

/// Flattens `def` into leaves (and the composite fields themselves).
pub fn leaves(spec: &Spec, def: &Def, base: u32, prefix: &str, out: &mut Vec<Leaf>) {
    for f in &def.fields {
        let name = if prefix.is_empty() {
            f.name.clone()
        } else {
            format!("{prefix}.{}", f.name)
        };
        out.push(Leaf {
            name: name.clone(),
            lo: base + f.start,
            hi: base + f.end,
            mbz: f.ty == FieldType::Mbz,
        });
        match &f.ty {
            FieldType::Struct(s) => {
                if let Some(sd) = spec.defs.get(s) {
                    leaves(spec, sd, base + f.start, &name, out);
                }
            }
            FieldType::Array { elem, count } => {
                if let Some(sd) = spec.defs.get(elem) {
                    for i in 0..count.unwrap_or(1) {
                        leaves(
                            spec,
                            sd,
                            base + f.start + i * sd.dwords * 32,
                            &format!("{name}[{i}]"),
                            out,
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

/// How a seed row relates to the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A spec field has exactly this range.
    Match(String),
    /// A reserved seed row over bits the spec leaves reserved.
    ReservedAgrees,
    /// The spec disagrees: what it has there instead.
    Mismatch(String),
}

/// Compares each row with the spec's leaves.
pub fn compare(rows: &[SeedRow], leaves: &[Leaf]) -> Vec<(SeedRow, Verdict)> {
    rows.iter()
        .map(|r| {
            if let Some(l) = leaves.iter().find(|l| l.lo == r.lo && l.hi == r.hi) {
                return (r.clone(), Verdict::Match(l.name.clone()));
            }
            // A row of equal elements (`U32[16]`, `U128`) written as one field per element,
            // `Name[0]`, `Name[1]`, ...: they must tile the row's bits exactly.
            let prefix = format!("{}[", r.name);
            let mut parts: Vec<&Leaf> = leaves
                .iter()
                .filter(|l| l.name.starts_with(&prefix) && !l.name[prefix.len()..].contains('.'))
                .collect();
            parts.sort_by_key(|l| l.lo);
            if !parts.is_empty()
                && parts[0].lo == r.lo
                && parts.last().is_some_and(|l| l.hi == r.hi)
                && parts.windows(2).all(|w| w[0].hi + 1 == w[1].lo)
            {
                return (r.clone(), Verdict::Match(format!("{}..", parts[0].name)));
            }
            let overlapping: Vec<&Leaf> = leaves
                .iter()
                .filter(|l| l.lo <= r.hi && r.lo <= l.hi)
                .collect();
            // Composite fields (nested structs) overlap everything inside them; only leaves
            // that are not containers of other overlapping leaves count.
            let real: Vec<&&Leaf> = overlapping
                .iter()
                .filter(|l| {
                    !overlapping.iter().any(|m| {
                        !std::ptr::eq(**l, *m) && m.name.starts_with(&format!("{}.", l.name))
                            || m.name.starts_with(&format!("{}[", l.name))
                    })
                })
                .collect();
            if r.reserved() && real.iter().all(|l| l.mbz) {
                return (r.clone(), Verdict::ReservedAgrees);
            }
            let desc: Vec<String> = real
                .iter()
                .map(|l| {
                    format!(
                        "{} (dw{} {}:{})",
                        l.name,
                        l.lo / 32,
                        l.hi - l.lo / 32 * 32,
                        l.lo % 32
                    )
                })
                .collect();
            let desc = if desc.is_empty() {
                "nothing (reserved)".to_string()
            } else {
                desc.join(", ")
            };
            (r.clone(), Verdict::Mismatch(desc))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_row_forms_of_index_md() {
        let text = "3DSTATE_X\nDWord\tBit\tDescription\n0\t31:29\tCommand Type\n\t\tDefault Value:\t3h GFXPIPE\n\t28:27\tCommand SubType\nValue\tName\n0h\tFOO_BAR\n26:24 3D Command Opcode\n\t<p>23:16 Sub Opcode</p>\n1\t31:6\tKernel Start Pointer\n\t5:0\tReserved\n";
        let rows = extract(text, 1, 11);
        let got: Vec<(u32, u32, &str)> =
            rows.iter().map(|r| (r.hi, r.lo, r.name.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (31, 29, "Command Type"),
                (28, 27, "Command SubType"),
                (26, 24, "3D Command Opcode"),
                (23, 16, "Sub Opcode"),
                (63, 38, "Kernel Start Pointer"),
                (37, 32, "Reserved")
            ]
        );
    }

    #[test]
    fn enum_rows_and_out_of_order_bits_are_skipped() {
        let text = "0\t31\tFoo Enable\nValue\tName\n0\tBLENDFUNCTION_ADD\n1\tBLENDFUNCTION_SUB\n\t30:28\tMode\n\t29\tStray\n";
        let rows = extract(text, 1, 6);
        let got: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(got, vec!["Foo Enable", "Mode"]);
    }

    /// Seed 003's instruction tables label the whole 128 bits `0..3` and count bits
    /// across it (L6391 EU_INSTRUCTION_ALIGN1_THREE_SRC); its body tables label `0..1` for a
    /// 64-bit pointer and go on with the low bits of the same qword (L2765 3DSTATE_VS_BODY).
    #[test]
    fn range_labels_count_bits_across_the_range() {
        let text = "0..3\t127:126\tReserved\n\t125:118\tSource 2 Register number\n\t31:0\tHeader\n";
        let rows = extract(text, 1, 3);
        let got: Vec<(u32, u32)> = rows.iter().map(|r| (r.hi, r.lo)).collect();
        assert_eq!(got, vec![(127, 126), (125, 118), (31, 0)]);
        let text = "0..1\t63:6\tKernel Start Pointer\n5:0\tReserved\n2\t31\tReserved\n\t30\tVector Mask Enable\n";
        let rows = extract(text, 1, 4);
        let got: Vec<(u32, u32)> = rows.iter().map(|r| (r.hi, r.lo)).collect();
        assert_eq!(got, vec![(63, 6), (5, 0), (95, 95), (94, 94)]);
    }

    /// A value table under a field (seed 003 L18820-18832 SAMPLER_STATE: `0⇥FULL`, a
    /// page header, `3⇥LOW`) is not read as fields, and the fields after it are; a table
    /// spelled `0h`, `1h`, `2h` ends at a plain `3` (seed 004 L3977, 3DSTATE_TE).
    #[test]
    fn value_tables_are_not_fields() {
        let text = "12:11\tTrilinear Filter Quality\nValue\tName\tDescription\n0\tFULL\tFull Quality. Both.\n1\tTRIQUAL_HIGH/MAG\tHigh Quality.\n2\tMED\tMedium Quality.\nSAMPLER_STATE\n\t3\tLOW\tLow Quality.\n10\tNon-normalized Coordinate Enable\n";
        let rows = extract(text, 1, 9);
        let got: Vec<(u32, &str)> = rows.iter().map(|r| (r.hi, r.name.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (12, "Trilinear Filter Quality"),
                (10, "Non-normalized Coordinate Enable")
            ]
        );
        let text = "5:4\tDomain\nValue\tName\tDescription\n0h\tQUAD\t2D domain\n1h\tTRI\tTriangles\n2h\tISOLINE\tLines\n3\tReserved\n2:1\tTE Mode\n";
        let rows = extract(text, 1, 7);
        let got: Vec<(u32, &str)> = rows.iter().map(|r| (r.hi, r.name.as_str())).collect();
        assert_eq!(got, vec![(5, "Domain"), (3, "Reserved"), (2, "TE Mode")]);
        // After `0 Detail Revealed [Default]`, value 1 is a value too, whatever its name.
        let text = "4\tDetail\nValue\tName\n0\tDetail Revealed [Default]\tShown\n1\tNot Detail Revealed\tHidden\n3\tNext Field\n";
        let rows = extract(text, 1, 5);
        let got: Vec<(u32, &str)> = rows.iter().map(|r| (r.hi, r.name.as_str())).collect();
        assert_eq!(got, vec![(4, "Detail"), (3, "Next Field")]);
    }

    /// Seed 003's payload tables label rows `R.D` or `R.D-R.D` (GRF register, dword) with
    /// bits counted from that dword (L5747 MDCR_DW, L15400 MDP_RTW_M8, L21521 MH_URB_HANDLE).
    #[test]
    fn register_dword_labels_place_payload_rows() {
        let text = "0.0-0.7\t255:0\toMask <table> <tr> <td>Format:</td> <td>MDPR_OMASK</td> </tr> </table> Slots\n1.0-1.7\t255:0\tRed\n\t\tFormat: MDP_DW_SIMD8\n";
        let rows = extract(text, 1, 3);
        let got: Vec<(u32, u32, &str)> =
            rows.iter().map(|r| (r.hi, r.lo, r.name.as_str())).collect();
        assert_eq!(got, vec![(255, 0, "oMask"), (511, 256, "Red")]);
        let text = "0.0 This is the URB handle where slot 0 results are written.\t31:0\tHandle 0 Format: MHC_URB_HANDLE\n0.1 Slot 1.\t31:0\tHandle 1\n1.2\t15:0\tLow\n";
        let rows = extract(text, 1, 3);
        let got: Vec<(u32, u32, &str)> =
            rows.iter().map(|r| (r.hi, r.lo, r.name.as_str())).collect();
        assert_eq!(
            got,
            vec![(31, 0, "Handle 0"), (63, 32, "Handle 1"), (335, 320, "Low")]
        );
    }

    /// A structure narrower than a dword starts below bit 31 with its DWord label (seed
    /// 003 L3267, the 1-bit A32 Scaled Header Present control field).
    #[test]
    fn a_narrow_table_starts_below_bit_31() {
        let text = "0\t0\tMessage Header Present\n";
        let rows = extract(text, 1, 1);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].hi, rows[0].lo), (0, 0));
    }

    /// Seed 003 prints a row as an HTML table line and again flattened just below; the
    /// repeat is one row (L747-750, 3DSTATE_CLIP_BODY DW2).
    #[test]
    fn a_row_printed_twice_is_one_row() {
        let text = "2\t31:28\tReserved\n\t31:28\tReserved\n\t27:17\tMinimum Point Width\n";
        let rows = extract(text, 1, 3);
        let got: Vec<(u32, u32)> = rows.iter().map(|r| (r.hi, r.lo)).collect();
        assert_eq!(got, vec![(95, 92), (91, 81)]);
    }
}

/// The comparison of one definition with its seed table.
#[derive(Debug, Clone)]
pub struct DefReport {
    /// Definition name.
    pub name: String,
    /// The seed file number ("004").
    pub seed: String,
    /// Line range.
    pub lines: (usize, usize),
    /// Rows read from the seed.
    pub rows: usize,
    /// Rows whose bit range a spec field has exactly.
    pub matched: usize,
    /// Reserved rows over reserved spec bits.
    pub reserved: usize,
    /// Rows the spec disagrees with: (row, what the spec has), excluding excused ones.
    pub mismatches: Vec<(SeedRow, String)>,
    /// Rows excused by the exceptions file: (row, reason).
    pub excused: Vec<(SeedRow, String)>,
    /// Spec fields (non-reserved leaves) confirmed by a seed row.
    pub fields_confirmed: usize,
    /// Spec fields (non-reserved leaves) in all.
    pub fields: usize,
}

/// An exception: a seed row the spec deliberately differs from, with the reason.
#[derive(Debug, Clone)]
pub struct Exception {
    /// Definition.
    pub def: String,
    /// Seed line of the row.
    pub line: usize,
    /// Why.
    pub reason: String,
}

/// Parses an exceptions file: `DEF L<line> reason...` per line, `#` comments.
pub fn parse_exceptions(text: &str) -> Vec<Exception> {
    text.lines()
        .filter_map(|l| {
            let l = l.split('#').next()?.trim();
            let mut it = l.splitn(3, char::is_whitespace);
            let def = it.next()?.to_string();
            let line = it.next()?.strip_prefix('L')?.parse().ok()?;
            let reason = it.next().unwrap_or("").trim().to_string();
            Some(Exception { def, line, reason })
        })
        .collect()
}

/// Compares every definition that cites a seed line range with that range.
/// `seed_text` maps a seed number ("004") to its text.
pub fn check_spec(
    spec: &Spec,
    seed_text: &dyn Fn(&str) -> Option<String>,
    exceptions: &[Exception],
) -> Vec<DefReport> {
    let mut out = vec![];
    let mut cache: std::collections::BTreeMap<String, Option<String>> = Default::default();
    for def in spec.defs.values() {
        let Some(r) = crate::seedref::parse(&def.source) else {
            continue;
        };
        let text = cache
            .entry(r.seed.clone())
            .or_insert_with(|| seed_text(&r.seed));
        let Some(text) = text else { continue };
        let rows = extract(text, r.first, r.last);
        let mut lv = vec![];
        leaves(spec, def, 0, "", &mut lv);
        let verdicts = compare(&rows, &lv);
        let mut rep = DefReport {
            name: def.name.clone(),
            seed: r.seed.clone(),
            lines: (r.first, r.last),
            rows: rows.len(),
            matched: 0,
            reserved: 0,
            mismatches: vec![],
            excused: vec![],
            fields_confirmed: 0,
            fields: 0,
        };
        for (row, v) in verdicts {
            match v {
                Verdict::Match(_) => rep.matched += 1,
                Verdict::ReservedAgrees => rep.reserved += 1,
                Verdict::Mismatch(m) => match exceptions
                    .iter()
                    .find(|e| e.def == def.name && e.line == row.line)
                {
                    Some(e) => rep.excused.push((row, e.reason.clone())),
                    None => rep.mismatches.push((row, m)),
                },
            }
        }
        for l in lv.iter().filter(|l| !l.mbz) {
            let composite = lv.iter().any(|m| {
                m.name.starts_with(&format!("{}.", l.name))
                    || m.name.starts_with(&format!("{}[", l.name))
            });
            if composite {
                continue;
            }
            rep.fields += 1;
            if rows.iter().any(|r| r.lo == l.lo && r.hi == l.hi) {
                rep.fields_confirmed += 1;
            }
        }
        out.push(rep);
    }
    out
}

/// A plain-text report of [`check_spec`]'s results.
pub fn report(reports: &[DefReport]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let (mut rows, mut ok, mut fields, mut conf, mut bad, mut exc) = (0, 0, 0, 0, 0, 0);
    for r in reports {
        rows += r.rows;
        ok += r.matched + r.reserved;
        fields += r.fields;
        conf += r.fields_confirmed;
        bad += r.mismatches.len();
        exc += r.excused.len();
        let _ = writeln!(
            s,
            "{:<44} seed {} L{}-{}: {:>3} rows read, {:>3} agree, {:>2} excused, {:>2} differ; {:>3}/{:<3} spec fields confirmed",
            r.name,
            r.seed,
            r.lines.0,
            r.lines.1,
            r.rows,
            r.matched + r.reserved,
            r.excused.len(),
            r.mismatches.len(),
            r.fields_confirmed,
            r.fields
        );
        for (row, m) in &r.mismatches {
            let _ = writeln!(
                s,
                "    DIFFERS seed L{}: dw{} {}:{} `{}` — spec has {m}",
                row.line,
                row.lo / 32,
                row.hi - row.lo / 32 * 32,
                row.lo % 32,
                row.name
            );
        }
    }
    let pct = |a: usize, b: usize| {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    let _ = writeln!(
        s,
        "TOTAL: {} definitions cite seed tables; {rows} seed rows read, {ok} agree ({:.1}%), {exc} excused, {bad} differ; {conf}/{fields} spec fields ({:.1}%) confirmed by a seed row",
        reports.len(),
        pct(ok, rows),
        pct(conf, fields)
    );
    s
}
