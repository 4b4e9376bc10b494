//! Drafts spec definitions from a structure-reference seed (seed 003, the Gen11 Vol 2d):
//! `specgen import SEED_FILE` prints one `struct` per table of contents entry whose body
//! survives with a `Size (in bits)` header, its rows read by the same extractor the
//! seed-table check uses ([`crate::seedrows::extract`]).
//!
//! The output is a draft for review, not a build step: `crates/spec/defs/gen11/seed003/`
//! holds what it printed, and edits after review (types, enumerations, names) stay there;
//! the seed-table check then holds the reviewed files to the seed's rows.
//!
//! The reference is alphabetical (seed INDEX.md §1.3): each entry is a title line, a
//! header block (`Source:`, `Size (in bits):`, `Default Value:`, optional `Exists If:`)
//! and `DWord⇥Bit⇥Description` rows, up to the next entry's title.

use crate::seedrows::{SeedRow, extract};
use std::fmt::Write;

/// One table-of-contents entry found in the body of the reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The title as the reference spells it.
    pub title: String,
    /// 1-based line of the title that starts the entry's header block.
    pub first: usize,
    /// 1-based last line of the entry (the line before the next entry).
    pub last: usize,
    /// `Size (in bits)`, when the header block has one.
    pub bits: Option<u32>,
    /// The short name of the header line `SHORT - Title` (`MDCR_DW - Dword Data Payload
    /// Register`), by which other tables' `Format:` cells refer to this one.
    pub short: Option<String>,
}

/// The titles of the table of contents: `NAME⇥PAGE` or `NAME.....⇥PAGE` lines between
/// "Table of Contents" and the first title repeated in the body.
pub fn toc(text: &str) -> Vec<String> {
    let mut out = vec![];
    let mut inside = false;
    for line in text.lines() {
        if line.trim() == "Table of Contents" {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        let t = line.trim_end();
        if t.is_empty() {
            continue;
        }
        let Some((name, page)) = t.rsplit_once('\t') else {
            break;
        };
        if !page.trim().chars().all(|c| c.is_ascii_digit()) {
            break;
        }
        let name = name.trim().trim_end_matches('.').trim();
        if name.is_empty() {
            break;
        }
        out.push(name.to_string());
    }
    out
}

/// Each title's entry in the body: the first line after the table of contents that is
/// the title alone and is followed, within four lines, by its `Source:` header.
pub fn entries(text: &str) -> Vec<Entry> {
    let lines: Vec<&str> = text.lines().collect();
    let titles = toc(text);
    let toc_end = lines
        .iter()
        .position(|l| l.trim() == "Table of Contents")
        .map_or(0, |p| p + titles.len() + 1);
    let mut found: Vec<(usize, String)> = vec![];
    for title in &titles {
        let start = (toc_end..lines.len()).find(|&i| {
            lines[i].trim() == title
                && (i + 1..(i + 5).min(lines.len()))
                    .any(|j| lines[j].trim_start().starts_with("Source:"))
        });
        if let Some(i) = start
            && !found.iter().any(|(j, _)| *j == i)
        {
            found.push((i, title.clone()));
        }
    }
    found.sort();
    // Page headers `SHORT - Title` repeat a table's title on each of its pages. One naming
    // another table ends this entry: what follows is that table's body, whose own first
    // page (and title line) was lost (seed INDEX.md §2.6, `MDP_RTW_M16 - OM SIMD16 Render
    // Target Data Payload` inside the OM SIMD8 entry).
    let headers: Vec<(usize, &str)> = lines
        .iter()
        .enumerate()
        .skip(toc_end)
        .filter_map(|(i, l)| {
            // A bare title line that no `Source:` header follows (the title of a table
            // whose header block was lost, `SAMPLER_STATE_8x8_CONVOLVE` at L18518).
            if let Some(t) = titles.iter().find(|t| l.trim() == t.as_str()) {
                return Some((i, t.as_str()));
            }
            let (short, rest) = l.trim().split_once(" - ")?;
            let rest = latin(rest.trim());
            let title = titles.iter().find(|t| **t == rest)?;
            (!short.contains(char::is_whitespace)).then_some((i, title.as_str()))
        })
        .collect();
    let mut out = vec![];
    for (k, (i, title)) in found.iter().enumerate() {
        let next = found.get(k + 1).map_or(lines.len(), |(j, _)| *j);
        let last = headers
            .iter()
            .find(|(j, t)| *j > *i && *j < next && *t != title.as_str())
            .map_or(next, |(j, _)| *j);
        let bits = lines[*i..(*i + 8).min(last)].iter().find_map(|l| {
            let rest = l.trim_start().strip_prefix("Size (in bits):")?;
            rest.split_whitespace().next()?.parse().ok()
        });
        let short = lines[*i + 1..(*i + 4).min(last)].iter().find_map(|l| {
            let (short, rest) = l.trim().split_once(" - ")?;
            let short = short.trim();
            (rest.trim() == title.as_str()
                && !short.is_empty()
                && !short.contains(char::is_whitespace))
            .then(|| short.to_string())
        });
        out.push(Entry {
            title: title.clone(),
            first: i + 1,
            last,
            bits,
            short,
        });
    }
    out
}

/// The text with the Cyrillic letters the seed's OCR put for Latin ones (`MSAА`, seed 003
/// L20496) made Latin again.
fn latin(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'А' => 'A',
            'В' => 'B',
            'Е' => 'E',
            'К' => 'K',
            'М' => 'M',
            'Н' => 'H',
            'О' => 'O',
            'Р' => 'P',
            'С' => 'C',
            'Т' => 'T',
            'Х' => 'X',
            'а' => 'a',
            'е' => 'e',
            'о' => 'o',
            'р' => 'p',
            'с' => 'c',
            'х' => 'x',
            c => c,
        })
        .collect()
}

/// A definition name (one word) for a title: runs of anything but letters, digits and
/// underscores become one underscore (`BR00 - BLT Opcode and Control` ->
/// `BR00_BLT_Opcode_and_Control`, `3DSTATE_CONSTANT(Body)` -> `3DSTATE_CONSTANT_Body`).
pub fn def_name(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

/// The spec file a definition goes to: `pipe` (3D command bodies), `eu` (instruction
/// layouts), `surface` (surface, sampler and colour-calculator state), `media` (VEBOX,
/// SFC, codecs, colour processing), `message` (descriptors, headers, payloads), `misc`.
pub fn family(title: &str) -> &'static str {
    let t = title.to_ascii_uppercase();
    let any = |ps: &[&str]| ps.iter().any(|p| t.contains(p));
    let surface = [
        "SURFACE_STATE",
        "SAMPLER",
        "BLEND",
        "CC_",
        "COLOR_CALC",
        "BINDING",
        "RENDER_",
        "CLEAR",
        "BORDER",
    ];
    if t.starts_with("3DSTATE") || t.starts_with("VERTEX_") || t.starts_with("3DPRIM") {
        "pipe"
    } else if t.starts_with("EU_") {
        "eu"
    } else if any(&surface) && !any(&["VEBOX", "SFC", "AVS"]) {
        // Before the media names: "ACE" (adaptive contrast) is inside "SURFACE".
        "surface"
    } else if any(&[
        "VEBOX",
        "SFC",
        "HCP",
        "VDENC",
        "MFX",
        "AVC",
        "HEVC",
        "VP8",
        "VP9",
        "JPEG",
        "COLOR_PROCESSING",
        "DNDI",
        "IECP",
        "GAMMA",
        "MEDIA",
        "CSC",
        "ACE",
        "STD",
        "TCC",
        "PROCAMP",
        "VDBOX",
        "VECS",
        "HUC",
        "AVS",
        "FILTER",
        "PALETTE",
    ]) {
        "media"
    } else if any(&[
        "MESSAGE",
        "PAYLOAD",
        "DESCRIPTOR",
        "HEADER",
        "MSGDESC",
        "RESPONSE",
    ]) {
        "message"
    } else {
        "misc"
    }
}

/// A field name the spec format can carry: no `:` or `#`, no `=`/`->` tokens.
fn field_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| match c {
            ':' | '#' | '=' | '>' | '<' | '"' | '`' => ' ',
            c => c,
        })
        .collect();
    let n = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    if n.is_empty() { "Unnamed".into() } else { n }
}

/// The row's name with a bit range in brackets restored (`ExDesc[31:28]`: the
/// extractor's name stops at the colon), read from the row's own seed line.
fn bracketed(lines: &[&str], row: &SeedRow) -> String {
    let n = &row.name;
    if !n.contains('[') || n.contains(']') {
        return n.clone();
    }
    let raw = lines.get(row.line.wrapping_sub(1)).copied().unwrap_or("");
    match raw.find(n.as_str()) {
        Some(p) => {
            let rest = &raw[p + n.len()..];
            match rest.find(']') {
                Some(q) if q <= 8 => format!("{n}{}", rest[..=q].replace(':', "..")),
                _ => n.clone(),
            }
        }
        None => n.clone(),
    }
}

/// The spec type of an address `Format:`: `GraphicsAddress[63:6]` is a graphics address
/// in place, `InstructionBaseOffset[63:6]` (and the other state bases' offsets) an offset
/// from that base, in place.
fn address_kind(format: &str) -> Option<&'static str> {
    let f = format.replace(['_', ' '], "");
    [
        ("graphicsaddress", "address"),
        ("instructionbaseoffset", "offset instruction"),
        ("dynamicstateoffset", "offset dynamic"),
        ("dynamicbaseoffset", "offset dynamic"),
        ("surfacestateoffset", "offset surface"),
        ("generalstateoffset", "offset general"),
        ("bindingtableoffset", "offset bindingtable"),
        ("indirectobjectoffset", "offset indirect"),
    ]
    .iter()
    .find(|(k, _)| f.starts_with(k))
    .map(|(_, t)| *t)
}

/// The spec type of a fixed-point `Format:` (`U4.8`, `S4.8 2's comp`, `U8.3 pixels`)
/// when it fills the row's `width` bits: the seed's `S` counts the sign apart from the
/// integer bits (S4.8 is 13 bits), the spec's `sfixed` counts it in.
fn fixed_point(format: &str, width: u32) -> Option<String> {
    let f = format.split_whitespace().next()?;
    let (kind, rest) = f.split_at(1);
    let (i, fr) = rest.split_once('.')?;
    let (i, fr): (u32, u32) = (i.parse().ok()?, fr.parse().ok()?);
    match kind {
        "u" if i + fr == width => Some(format!("ufixed {i}.{fr}")),
        "s" if i + fr + 1 == width => Some(format!("sfixed {}.{fr}", i + 1)),
        "s" if i + fr == width => Some(format!("sfixed {i}.{fr}")),
        _ => None,
    }
}

/// The `Format:` a row's following lines give (up to the next row), lowercased.
fn row_format(lines: &[&str], row: &SeedRow, next_line: usize) -> String {
    let end = next_line.min(lines.len() + 1);
    let from = row.line.saturating_sub(1);
    let mut text = String::new();
    for l in &lines[from..end.saturating_sub(1).max(from + 1).min(lines.len())] {
        if let Some(p) = l.find("Format:") {
            let rest = &l[p + 7..];
            let rest = rest.split("</td>").next().unwrap_or(rest);
            let rest = rest.replace("<td>", " ");
            text = rest.trim().to_ascii_lowercase();
            if !text.is_empty() {
                break;
            }
        }
    }
    text
}

/// A `Format:` of equal elements filling `width` bits: `U32[16]` (16 × 32 bits), `U128`
/// (4 × 32 bits: the spec's scalars stop at 64), `MACD_URB_CMASK[8]` (8 × that table,
/// whose definition is returned for a nested array). (count, bits each, element).
fn elements(format: &str, width: u32, formats: &Formats) -> Option<(u32, u32, Option<String>)> {
    let f = format.split_whitespace().next()?;
    let (base, count) = match f.split_once('[') {
        Some((b, c)) => (b, c.strip_suffix(']')?.parse::<u32>().ok()?),
        None => (f, 1),
    };
    let (each, elem) =
        if let Some(bits) = base.strip_prefix('u').and_then(|b| b.parse::<u32>().ok()) {
            (bits, None)
        } else {
            let (_, (name, size)) = formats
                .iter()
                .find(|(short, _)| short.eq_ignore_ascii_case(base))?;
            (*size, Some(name.clone()))
        };
    if each == 0 || count == 0 || each * count != width {
        return None;
    }
    match (count, elem) {
        (1, None) if each > 64 && each % 32 == 0 => Some((each / 32, 32, None)),
        (1, _) => None,
        (n, e) if each <= 64 || e.is_some() => Some((n, each, e)),
        _ => None,
    }
}

/// A draft `struct` for `entry`, or why there is none.
pub fn draft(text: &str, entry: &Entry) -> Result<String, String> {
    draft_excusing(text, entry, &[], &Default::default())
}

/// The tables a `Format:` cell may name, by short name: (definition name, size in bits).
pub type Formats = std::collections::BTreeMap<String, (String, u32)>;

/// A drafted definition: (family, spec text).
pub type Drafted = (&'static str, String);

/// An entry not drafted: (title, first line, why).
pub type Skipped = (String, usize, String);

/// Drafts every entry: the drafts (family, text) and the skipped (title, first line, why).
/// A row whose `Format:` names another table of the reference (a payload's `Red` row is
/// an `MDP_DW_SIMD8`) nests that table's definition, when it was drafted too: drafting
/// repeats until the set of drafted tables stops changing.
///
/// Tables whose definition is in `by_hand` (the `seed003_hand_*.spec` files: tables the
/// extractor cannot read, written from the seed by hand) are not drafted, and other
/// tables may nest them.
pub fn draft_all(
    text: &str,
    excused: &[crate::seedrows::Exception],
    by_hand: &std::collections::BTreeSet<String>,
) -> (Vec<Drafted>, Vec<Skipped>) {
    let all = entries(text);
    // By short name (`MDCR_DW`) and, for tables without one, by title
    // (`SF_OUTPUT_ATTRIBUTE_DETAIL`).
    let mut formats: Formats = all
        .iter()
        .filter_map(|e| Some((e.short.clone()?, (def_name(&e.title), e.bits?))))
        .collect();
    for e in &all {
        if let Some(bits) = e.bits
            && !e.title.contains(' ')
        {
            formats
                .entry(e.title.clone())
                .or_insert_with(|| (def_name(&e.title), bits));
        }
    }
    loop {
        let mut drafted = vec![];
        let mut skipped = vec![];
        for e in &all {
            if by_hand.contains(&def_name(&e.title)) {
                skipped.push((e.title.clone(), e.first, "written by hand".to_string()));
                continue;
            }
            match draft_excusing(text, e, excused, &formats) {
                Ok(d) => drafted.push((family(&e.title), d, e)),
                Err(why) => skipped.push((e.title.clone(), e.first, why)),
            }
        }
        let before = formats.len();
        formats.retain(|_, (name, _)| {
            by_hand.contains(name) || drafted.iter().any(|(_, _, e)| def_name(&e.title) == *name)
        });
        if formats.len() == before {
            return (
                drafted.into_iter().map(|(f, d, _)| (f, d)).collect(),
                skipped,
            );
        }
    }
}

/// [`draft`], with the seed rows `excused` (a generation's `seed-exceptions.txt`: rows the
/// spec deliberately differs from, each with its reason) left out of the consistency
/// check, as the seed-table test leaves them out.
pub fn draft_excusing(
    text: &str,
    entry: &Entry,
    excused: &[crate::seedrows::Exception],
    formats: &Formats,
) -> Result<String, String> {
    let bits = entry
        .bits
        .ok_or_else(|| "no `Size (in bits)` in its header (first page lost)".to_string())?;
    if bits == 0 || (bits > 32 && bits % 32 != 0) {
        return Err(format!("size {bits} bits is not whole dwords"));
    }
    let dwords = bits.div_ceil(32);
    let rows = extract(text, entry.first, entry.last);
    if rows.is_empty() {
        return Err("no rows the extractor can read".into());
    }
    let lines: Vec<&str> = text.lines().collect();
    let name = def_name(&entry.title);
    let mut s = String::new();
    let _ = writeln!(s, "struct {name}  dwords {dwords}");
    let _ = writeln!(
        s,
        "  source seed 003 L{}-{} (\"{}\"; imported by `specgen import`)",
        entry.first, entry.last, entry.title
    );
    if bits < 32 {
        let _ = writeln!(
            s,
            "  note The seed sizes it {bits} bits, a part of a larger word (a descriptor's control field); the spec format counts whole dwords, so it is one dword whose bits {bits} and up belong to the enclosing word."
        );
    }
    let mut placed: Vec<(u32, u32)> = vec![];
    let mut names: Vec<String> = vec![];
    let mut notes: Vec<String> = vec![];
    for (k, row) in rows.iter().enumerate() {
        if row.hi >= bits {
            continue;
        }
        let overlaps = placed.iter().any(|&(lo, hi)| row.lo <= hi && lo <= row.hi);
        let next = rows.get(k + 1).map_or(entry.last + 1, |r| r.line);
        let format = row_format(&lines, row, next);
        let fixed = fixed_point(&format, row.hi - row.lo + 1);
        // `Format: MDP_DW_SIMD8`: another table of the reference, of this row's size.
        let nested = formats
            .iter()
            .find(|(short, (_, size))| {
                short.eq_ignore_ascii_case(format.split_whitespace().next().unwrap_or(""))
                    && *size == row.hi - row.lo + 1
                    && *size % 32 == 0
                    && !row.reserved()
            })
            .map(|(_, (name, _))| name.as_str());
        let width = row.hi - row.lo + 1;
        if nested.is_none()
            && !row.reserved()
            && format != "mbz"
            && let Some((count, each, elem)) = elements(&format, width, formats)
        {
            // `U32[16]`, `U128`, `SF_OUTPUT_ATTRIBUTE_DETAIL[16]`: a row of equal elements.
            let fname = field_name(&bracketed(&lines, row));
            if elem.as_ref().is_none_or(|_| each % 32 != 0) {
                notes.push(format!(
                    "{fname}[0..{}] are the seed's one `{fname}` row ({}:{} Format {}), a field per element{}.",
                    count - 1,
                    row.hi - row.lo / 32 * 32,
                    row.lo % 32,
                    format.to_ascii_uppercase(),
                    elem.as_ref().map_or(String::new(), |e| format!(
                        " (each a {e}, {each} bits: the spec nests only whole-dword structs in arrays)"
                    ))
                ));
            }
            if let Some(elem) = elem.filter(|_| each % 32 == 0) {
                let dw = row.lo / 32;
                let (hi, lo) = (row.hi - dw * 32, row.lo - dw * 32);
                let _ = writeln!(s, "  {dw} {hi}:{lo:<3} {fname:<40} : {elem}[{count}]");
            } else {
                for i in 0..count {
                    let elo = row.lo + i * each;
                    let dw = elo / 32;
                    let (hi, lo) = (elo + each - 1 - dw * 32, elo - dw * 32);
                    let range = if hi == lo {
                        format!("{hi}")
                    } else {
                        format!("{hi}:{lo}")
                    };
                    let _ = writeln!(s, "  {dw} {range:<6} {:<40} : u", format!("{fname}[{i}]"));
                }
            }
            names.push(fname);
            placed.push((row.lo, row.hi));
            continue;
        }
        if nested.is_none() && row.hi - row.lo >= 64 {
            continue;
        }
        let (ty, mbz) = if let Some(n) = nested {
            (n, false)
        } else if row.reserved() || format == "mbz" {
            ("mbz", true)
        } else if row.hi == row.lo
            && (format.starts_with("enable") || format.starts_with("disable"))
        {
            ("bool", false)
        } else if row.hi - row.lo == 31 && format.contains("float") {
            // IEEE_Float, IEEE_FLOAT32, FLOAT32: a binary32 value.
            ("float", false)
        } else if let Some(t) = fixed.as_deref() {
            (t, false)
        } else if let Some(t) = address_kind(&format) {
            (t, false)
        } else {
            ("u", false)
        };
        if mbz && overlaps {
            continue; // a reserved alternative of bits a field already covers
        }
        let mut fname = field_name(&bracketed(&lines, row));
        if mbz && !row.reserved() {
            // A named row the seed formats MBZ: reserved, under the manual's word for it.
            fname = "Reserved".into();
        }
        if !mbz {
            let base = fname.clone();
            let mut n = 2;
            while names.contains(&fname) {
                fname = format!("{base} {n}");
                n += 1;
            }
            names.push(fname.clone());
        }
        let dw = row.lo / 32;
        let (hi, lo) = (row.hi - dw * 32, row.lo - dw * 32);
        let range = if hi == lo {
            format!("{hi}")
        } else {
            format!("{hi}:{lo}")
        };
        let _ = writeln!(
            s,
            "  {dw} {range:<6} {fname:<40} : {ty}{}",
            if overlaps { " overlay" } else { "" }
        );
        if !overlaps {
            placed.push((row.lo, row.hi));
        }
    }
    if !notes.is_empty() {
        let at = s.find('\n').map_or(0, |i| i + 1);
        let at = at + s[at..].find('\n').map_or(0, |i| i + 1);
        let text: String = notes.iter().map(|n| format!("  note {n}\n")).collect();
        s.insert_str(at, &text);
    }
    // The draft must agree with every row the seed-table check will read: a table the
    // extractor reads inconsistently (rows past the size, alternatives that contradict
    // each other) is left to be written by hand.
    let mut spec = crate::Spec::default();
    let errors = crate::parse::parse_into(&mut spec, "draft", &s);
    if !errors.is_empty() {
        return Err(format!("the draft does not parse: {}", errors[0]));
    }
    let def = spec
        .defs
        .get(&name)
        .ok_or_else(|| "the draft lost its definition".to_string())?;
    let mut leaves = vec![];
    crate::seedrows::leaves(&spec, def, 0, "", &mut leaves);
    let verdicts = crate::seedrows::compare(&rows, &leaves);
    let bad: Vec<String> = verdicts
        .iter()
        .filter(|(_, v)| matches!(v, crate::seedrows::Verdict::Mismatch(_)))
        .filter(|(r, _)| !excused.iter().any(|e| e.def == name && e.line == r.line))
        .map(|(r, _)| {
            format!(
                "L{} dw{} {}:{} `{}`",
                r.line,
                r.lo / 32,
                r.hi - r.lo / 32 * 32,
                r.lo % 32,
                r.name
            )
        })
        .collect();
    let differ = bad.len();
    if differ > 0 {
        return Err(format!(
            "the extractor reads its table inconsistently ({differ} of {} rows contradict the others: {})",
            rows.len(),
            bad.iter().take(4).cloned().collect::<Vec<_>>().join("; ")
        ));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Table of Contents\n\nFOO_STATE\t1\nBAR.....\t2\n\nFOO_STATE\n\nFOO_STATE\t\nSource:\tRenderCS\nSize (in bits):\t64\nDWord\tBit\tDescription\n0\t31:16\tAlpha Value\n\t15:1\tReserved\nFormat:\tMBZ\n\t0\tWidget Enable\nFormat:\tEnable\n1\t31:0\tScale Format: IEEE_Float\nBAR\nSource:\tx\n";

    #[test]
    fn reads_the_table_of_contents_and_entries() {
        assert_eq!(toc(SAMPLE), ["FOO_STATE", "BAR"]);
        let e = entries(SAMPLE);
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[0].title.as_str(), e[0].first, e[0].bits),
            ("FOO_STATE", 6, Some(64))
        );
        assert_eq!(e[1].bits, None);
    }

    #[test]
    fn drafts_fields_types_and_provenance() {
        let e = entries(SAMPLE);
        let d = draft(SAMPLE, &e[0]).unwrap();
        assert!(
            d.starts_with("struct FOO_STATE  dwords 2\n  source seed 003 L6-"),
            "{d}"
        );
        assert!(d.contains("0 31:16  Alpha Value"), "{d}");
        assert!(d.contains("Reserved") && d.contains(": mbz"), "{d}");
        assert!(
            d.contains("0 0      Widget Enable                            : bool"),
            "{d}"
        );
        assert!(
            d.contains("1 31:0   Scale                                    : float"),
            "{d}"
        );
        // BAR has no `Size (in bits)` line.
        assert_eq!(
            draft(SAMPLE, &e[1]),
            Err("no `Size (in bits)` in its header (first page lost)".to_string())
        );
    }

    #[test]
    fn fixed_point_formats_become_fixed_types() {
        assert_eq!(fixed_point("u4.8", 12).as_deref(), Some("ufixed 4.8"));
        assert_eq!(
            fixed_point("s4.8 2's comp", 13).as_deref(),
            Some("sfixed 5.8")
        );
        assert_eq!(
            fixed_point("u8.3 pixels", 11).as_deref(),
            Some("ufixed 8.3")
        );
        assert_eq!(fixed_point("u4.8", 13), None);
        assert_eq!(fixed_point("u8", 8), None);
    }

    #[test]
    fn address_formats_become_addresses_and_offsets() {
        assert_eq!(
            address_kind("graphicsaddress63-5 the value"),
            Some("address")
        );
        assert_eq!(
            address_kind("instructionbaseoffset[63:6]"),
            Some("offset instruction")
        );
        assert_eq!(address_kind("u32"), None);
    }

    #[test]
    fn names_become_one_word() {
        assert_eq!(
            def_name("BR00 - BLT Opcode and Control"),
            "BR00_BLT_Opcode_and_Control"
        );
        assert_eq!(def_name("3DSTATE_CONSTANT(Body)"), "3DSTATE_CONSTANT_Body");
        assert_eq!(field_name("Foo: bar # baz"), "Foo bar baz");
    }

    /// Seed 003's payloads (L5747 MDCR_DW, L5791 MDP_DW_SIMD8, L20606
    /// MAP32B_USU_SIMD16): `R.D` rows, `Format:` naming another table (nested) or equal
    /// elements (`U32[16]`, a field each); a page header naming another table ends the
    /// entry (the rest is that table's lost first page's continuation).
    #[test]
    fn payloads_nest_their_formats_and_split_element_rows() {
        let mut text = String::from("Table of Contents\n\nREG\t1\nPAY\t2\nWIDE\t3\nLOST\t4\n\n");
        text +=
            "REG\n\nMDCR_X - REG\nSource:\tBSpec\nSize (in bits):\t256\nDWord\tBit\tDescription\n";
        for d in 0..8 {
            text += &format!("0.{d}\t31:0\tDword{d}\n\t\tFormat: U32\n");
        }
        text +=
            "PAY\n\nMDP_X - PAY\nSource:\tBSpec\nSize (in bits):\t512\nDWord\tBit\tDescription\n";
        text +=
            "0.0-0.7\t255:0\tRed\n\t\tFormat: MDCR_X\n1.0-1.7\t255:0\tGreen\n\t\tFormat: MDCR_X\n";
        text += "\nMDP_L - LOST\n2.0-2.7\t255:0\tBlue\n";
        text +=
            "WIDE\n\nMAP_W - WIDE\nSource:\tBSpec\nSize (in bits):\t512\nDWord\tBit\tDescription\n";
        text += "0.0-1.7\t511:0\tU Format: U32[16] Specifies the U channel\n";
        let (drafted, skipped) = draft_all(&text, &[], &Default::default());
        assert!(skipped.is_empty(), "{skipped:?}");
        let all: String = drafted.iter().map(|(_, d)| d.as_str()).collect();
        assert!(all.contains("  0 31:0   Dword0"), "{all}");
        assert!(all.contains("  7 31:0   Dword7"), "{all}");
        assert!(
            all.contains("  0 255:0  Red                                      : REG"),
            "{all}"
        );
        assert!(
            all.contains("  8 255:0  Green                                    : REG"),
            "{all}"
        );
        assert!(
            !all.contains("Blue"),
            "the lost table's rows stay out: {all}"
        );
        assert!(all.contains("  15 31:0   U[15]"), "{all}");
        assert!(
            all.contains("note U[0..15] are the seed's one `U` row"),
            "{all}"
        );
    }
}
