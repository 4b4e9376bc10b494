//! Operands of the assembly syntax: registers (direct, indirect, ARF names), regions,
//! swizzles, write masks, subregisters and immediates, each checked against what its
//! encoding can hold (DISASM_SYNTAX.md §3 gives the syntax). A `None` is an operand the
//! caller reports with its text and line.

use crate::ir::*;

fn ty_of(s: &str) -> Option<Type> {
    Some(match s {
        "UD" => Type::UD,
        "D" => Type::D,
        "UW" => Type::UW,
        "W" => Type::W,
        "UB" => Type::UB,
        "B" => Type::B,
        "DF" => Type::DF,
        "HF" => Type::HF,
        "F" => Type::F,
        "UV" => Type::UV,
        "V" => Type::V,
        "VF" => Type::VF,
        _ => return None,
    })
}

/// Splits `s` into its type suffix (the trailing uppercase letters) and the rest.
fn split_type(s: &str) -> Option<(&str, Type)> {
    let cut = s.len()
        - s.chars()
            .rev()
            .take_while(|c| c.is_ascii_uppercase())
            .count();
    ty_of(&s[cut..]).map(|t| (&s[..cut], t))
}

fn arf(name: &str) -> Option<u8> {
    // Each ARF class holds 16 numbers (the low nibble of the register number, IVB PRM
    // Vol4 Part3 "Architecture Register File"); `ARFn` gives the whole byte.
    let num = |p: &str| {
        name.strip_prefix(p)
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|n| p == "ARF" || *n < 16)
    };
    // Mesa's spellings (the disassembler's, `ArfRegister`'s mnemonics): ip and tdr0
    // have no index of their own.
    match name {
        "null" => return Some(ArfRegister::Null.nr(0)),
        "ip" => return Some(ArfRegister::Ip.nr(0)),
        "tdr0" => return Some(ArfRegister::ThreadDependency.nr(0)),
        _ => {}
    }
    if let Some(n) = num("ARF") {
        return Some(n);
    }
    ArfRegister::ALL
        .iter()
        .filter(|k| {
            !matches!(
                k,
                ArfRegister::Null | ArfRegister::Ip | ArfRegister::ThreadDependency
            )
        })
        .find_map(|k| num(k.mnemonic()).map(|n| k.nr(n)))
}

/// A register reference: file, number, direct/indirect, and what follows the name.
pub(super) fn reg_head(s: &str) -> Option<(RegFile, u8, Address, &str)> {
    if let Some(rest) = s.strip_prefix("g[a0") {
        let close = rest.find(']')?;
        // `g[a0]`, `g[a0.3]`, `g[a0 32]`, `g[a0.7 -4]`.
        let inner = rest[..close].trim();
        let (sub, off) = match inner.strip_prefix('.') {
            Some(r) => match r.split_once(' ') {
                Some((a, b)) => (a, b.trim()),
                None => (r, ""),
            },
            None => ("", inner),
        };
        let subnr = if sub.is_empty() { 0 } else { sub.parse().ok()? };
        let offset = if off.is_empty() { 0 } else { off.parse().ok()? };
        // The address subregister field is 3 bits (a0.0 .. a0.7), the offset field 10
        // bits signed (EU_INSTRUCTION_ALIGN1_2SRC indirect overlays).
        if subnr >= 8 || !(-512..512).contains(&offset) {
            return None;
        }
        return Some((
            RegFile::Grf,
            0,
            Address::Indirect { subnr, offset },
            &rest[close + 1..],
        ));
    }
    let end = s.find(['.', '<']).unwrap_or(s.len());
    let name = &s[..end];
    let rest = &s[end..];
    let num = |p: char, limit: u8| {
        name.strip_prefix(p)
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<u8>().ok())
            .filter(|n| *n < limit)
    };
    // 128 GRF registers; 16 MRF registers (pre-Gen7 files, IVB PRM Vol4 Part3 "Register
    // Files").
    if let Some(n) = num('g', 128) {
        return Some((RegFile::Grf, n, Address::Direct, rest));
    }
    if let Some(n) = num('m', 16) {
        return Some((RegFile::Mrf, n, Address::Direct, rest));
    }
    arf(name).map(|n| (RegFile::Arf, n, Address::Direct, rest))
}

/// A subregister `.n` of elements of `ty` as a byte offset inside the 32-byte register.
fn sub_bytes(n: u32, ty: Type) -> Option<u8> {
    n.checked_mul(ty.size())
        .filter(|b| *b < 32)
        .map(|b| b as u8)
}

/// The text between `<` and `>` at the start of `rest`, and what follows the `>`.
fn angle(rest: &str) -> Option<(&str, &str)> {
    let r = rest.strip_prefix('<')?;
    let close = r.find('>')?;
    Some((&r[..close], &r[close + 1..]))
}

fn letters(s: &str) -> Option<Vec<u8>> {
    s.chars().map(|c| "xyzw".find(c).map(|i| i as u8)).collect()
}

/// `g[a0.1w ...]`: an indirect destination's address subregister in words (what the
/// field holds), which gtsim prints where Mesa's form, in elements of the destination
/// type, cannot express it (DISASM_SYNTAX.md §3.4). The text without the `w`, if so.
fn word_subregister(s: &str) -> Option<String> {
    let rest = s.strip_prefix("g[a0.")?;
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    (digits > 0 && rest[digits..].starts_with('w'))
        .then(|| format!("g[a0.{}{}", &rest[..digits], &rest[digits + 1..]))
}

pub(super) fn parse_dst(s: &str, align16: bool, three: bool) -> Option<Dst> {
    let words = word_subregister(s);
    let s = words.as_deref().unwrap_or(s);
    let (file, nr, address, rest) = reg_head(s)?;
    if rest.is_empty() {
        // A bare register (ip, tdr0): encoded with stride 1 (align16: all channels), UD.
        return Some(Dst {
            file,
            nr,
            subnr: 0,
            ty: Type::UD,
            layout: if align16 || three {
                DstLayout::WriteMask(0xf)
            } else {
                DstLayout::HStride(1)
            },
            address,
        });
    }
    let (rest, ty) = split_type(rest)?;
    let (sub, rest) = match rest.strip_prefix('.') {
        Some(r) => {
            let n = r.find('<')?;
            (Some(r[..n].parse::<u32>().ok()?), &r[n..])
        }
        None => (None, rest),
    };
    let (inner, after) = angle(rest)?;
    let stride: u8 = inner.parse().ok()?;
    if align16 || three {
        let wm = match after.strip_prefix('.') {
            None => 0xf,
            Some("") => 0,
            Some(l) => letters(l)?.iter().fold(0u8, |m, c| m | 1 << c),
        };
        // Align16 subregisters print as the element index of byte 16 (the only one).
        let subnr = match (sub, three) {
            (Some(n), true) => sub_bytes(n, ty).filter(|b| b % 4 == 0)?,
            (Some(n), false) => sub_bytes(n, ty).filter(|b| *b == 16)?,
            (None, _) => 0,
        };
        Some(Dst {
            file,
            nr,
            subnr,
            ty,
            layout: DstLayout::WriteMask(wm),
            address,
        })
    } else {
        if !after.is_empty() {
            return None;
        }
        // An indirect destination's address subregister prints divided by the type size
        // (DISASM_SYNTAX.md §3.4, as Mesa prints it).
        let address = match address {
            Address::Indirect { subnr, offset } if words.is_some() => {
                Address::Indirect { subnr, offset }
            }
            Address::Indirect { subnr, offset } => Address::Indirect {
                subnr: u8::try_from(subnr as u32 * ty.size())
                    .ok()
                    .filter(|s| *s < 8)?,
                offset,
            },
            a => a,
        };
        Some(Dst {
            file,
            nr,
            subnr: sub_bytes(sub.unwrap_or(0), ty)?,
            ty,
            layout: DstLayout::HStride(stride),
            address,
        })
    }
}

/// An immediate: hex bits (at most the type's width: 16 bits for W/UW, 32 otherwise) or
/// a decimal integer in the type's range. Nothing is truncated; a value that does not fit
/// is refused.
fn parse_imm(s: &str) -> Option<Src> {
    let (num, ty) = split_type(s)?;
    let wide16 = matches!(ty, Type::W | Type::UW);
    let bits: u64 = if let Some(h) = num.strip_prefix("0x") {
        let v = u64::from_str_radix(h, 16).ok()?;
        let max = if wide16 { 0xffff } else { 0xffff_ffff };
        if v > max {
            return None;
        }
        v
    } else {
        let v: i64 = num.parse().ok()?;
        let range = match ty {
            Type::W => i16::MIN as i64..=i16::MAX as i64,
            Type::UW => 0..=u16::MAX as i64,
            Type::D => i32::MIN as i64..=i32::MAX as i64,
            Type::UD | Type::V | Type::UV | Type::VF => 0..=u32::MAX as i64,
            _ => return None,
        };
        if !range.contains(&v) {
            return None;
        }
        if wide16 {
            v as u16 as u64
        } else {
            v as u32 as u64
        }
    };
    // 16-bit immediates are replicated in both halves of the dword (as encoders do).
    let bits = if wide16 { bits | (bits << 16) } else { bits };
    Some(Src::Imm { ty, bits })
}

pub(super) fn parse_src(s: &str, align16: bool, three: bool) -> Option<Src> {
    // Immediates first: `-1D` is a negative immediate, not a negated register.
    if s.trim_start_matches('-')
        .starts_with(|c: char| c.is_ascii_digit())
    {
        return parse_imm(s);
    }
    // `~` is Mesa's Gen8+ spelling of a logic instruction's negate (bitwise not).
    let (negate, s) = match s.strip_prefix('-').or_else(|| s.strip_prefix('~')) {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (abs, s) = match s.strip_prefix("(abs)") {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (file, nr, address, rest) = reg_head(s)?;
    if rest.is_empty() {
        let layout = if align16 && !three {
            Layout::Swizzle {
                vstride: 4,
                swizzle: [0, 1, 2, 3],
            }
        } else {
            Layout::Region(Region {
                vstride: Some(4),
                width: 1,
                hstride: 0,
            })
        };
        return Some(Src::Reg {
            file,
            nr,
            subnr: 0,
            ty: Type::UD,
            layout,
            address,
            negate,
            abs,
        });
    }
    let (rest, ty) = split_type(rest)?;
    let (sub, rest) = match rest.strip_prefix('.') {
        Some(r) => {
            let n = r.find('<')?;
            (Some(r[..n].parse::<u32>().ok()?), &r[n..])
        }
        None => (None, rest),
    };
    let (inner, after) = angle(rest)?;
    let parts: Vec<&str> = inner.split(',').collect();
    let swz = match after.strip_prefix('.') {
        None => [0, 1, 2, 3],
        Some(l) => {
            let v = letters(l)?;
            match v.len() {
                1 => [v[0]; 4],
                4 => [v[0], v[1], v[2], v[3]],
                _ => return None,
            }
        }
    };
    let num = |p: &str| -> Option<u8> {
        if p == "VxH" {
            Some(0xff)
        } else {
            p.parse().ok()
        }
    };
    let (subnr, layout) = match (parts.len(), three, align16) {
        (3, true, _) => {
            let r = (num(parts[0])?, num(parts[1])?, num(parts[2])?);
            let layout = if r == (0, 1, 0) && after.is_empty() {
                Layout::Region(Region {
                    vstride: Some(0),
                    width: 1,
                    hstride: 0,
                })
            } else {
                Layout::Swizzle {
                    vstride: 4,
                    swizzle: swz,
                }
            };
            (
                sub_bytes(sub.unwrap_or(0), ty).filter(|b| b % 4 == 0)?,
                layout,
            )
        }
        (3, false, _) => {
            let vs = num(parts[0])?;
            let region = Region {
                vstride: (vs != 0xff).then_some(vs),
                width: num(parts[1])?,
                hstride: num(parts[2])?,
            };
            (sub_bytes(sub.unwrap_or(0), ty)?, Layout::Region(region))
        }
        (1, false, true) => (
            match sub {
                Some(n) => sub_bytes(n, ty).filter(|b| *b == 16)?,
                None => 0,
            },
            Layout::Swizzle {
                vstride: num(parts[0])?,
                swizzle: swz,
            },
        ),
        _ => return None,
    };
    Some(Src::Reg {
        file,
        nr,
        subnr,
        ty,
        layout,
        address,
        negate,
        abs,
    })
}

/// Splits operand text at spaces, keeping `g[a0.1 -4]` together.
pub(super) fn operands(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut depth = 0;
    for c in s.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ => {}
        }
        if c.is_whitespace() && depth == 0 {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}
