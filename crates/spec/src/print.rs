//! The field-level pretty-printer: turns a definition's dwords into named, typed values by
//! walking its field table. Used by `gtsim decode` and by error reports.
//!
//! Value formats follow Mesa's `INTEL_DEBUG=bat` decoder so the two can be compared field
//! by field: unsigned integers in decimal, addresses and offsets in hex, flags as
//! `true`/`false`, enumerations as `value (NAME)`, floats with `{}`.

use crate::bits;
use crate::table::{Def, Generation, Ty};
use std::fmt::Write;

/// One printed field.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Nesting depth (0 for the definition's own fields).
    pub depth: usize,
    /// Index of the dword where the field starts (relative to the outermost definition).
    pub dword: usize,
    /// Field name (with `[i]` for array elements).
    pub name: String,
    /// The rendered value (empty for a nested-structure heading).
    pub value: String,
    /// Something is wrong with the value (a reserved field that is not zero).
    pub warning: bool,
}

/// Renders a field value as text.
pub fn value(ty: &Ty, raw: u64, width: u32, start: u32) -> String {
    match ty {
        Ty::U | Ty::Length => format!("{raw}"),
        Ty::S => format!("{}", bits::sext(raw, width)),
        Ty::Bool => format!("{}", raw != 0),
        Ty::Mbz => format!("{raw:#x}"),
        // A value the manual gives no name prints as the bare number (as Mesa does).
        Ty::Enum(e) => match e.name_of(raw) {
            Some(n) => format!("{raw} ({n})"),
            None => format!("{raw}"),
        },
        Ty::Address | Ty::Offset(_) => format!("{:#010x}", raw << (start % 32)),
        Ty::UFixed(_, f) => format!("{}", raw as f64 / (1u64 << f) as f64),
        Ty::SFixed(_, f) => format!("{}", bits::sext(raw, width) as f64 / (1u64 << f) as f64),
        Ty::Float => format!("{}", f32::from_bits(raw as u32)),
        Ty::Struct(s) | Ty::Array { elem: s, .. } => s.to_string(),
    }
}

/// Describes every field of `def` held in `dw`.
pub fn describe(generation: &Generation, def: &Def, dw: &[u32]) -> Vec<Line> {
    let mut out = vec![];
    walk(generation, def, dw, 0, 0, &mut out);
    out
}

fn walk(
    generation: &Generation,
    def: &Def,
    dw: &[u32],
    base_dword: usize,
    depth: usize,
    out: &mut Vec<Line>,
) {
    for f in def.fields {
        let dword = base_dword + (f.start / 32) as usize;
        match f.ty {
            Ty::Struct(s) => {
                let Some(nested) = generation.def(s) else {
                    continue;
                };
                out.push(Line {
                    depth,
                    dword,
                    name: f.name.to_string(),
                    value: String::new(),
                    warning: false,
                });
                let sub = bits::extract(dw, f.start, f.end, nested.dwords as usize);
                walk(generation, nested, &sub, dword, depth + 1, out);
            }
            Ty::Array { elem, count } => {
                let Some(nested) = generation.def(elem) else {
                    continue;
                };
                let size = nested.dwords as usize;
                let first = (f.start / 32) as usize;
                let n = match count {
                    Some(c) => c as usize,
                    None => dw.len().saturating_sub(first) / size.max(1),
                };
                for i in 0..n {
                    let at = first + i * size;
                    let Some(sub) = dw.get(at..at + size) else {
                        break;
                    };
                    out.push(Line {
                        depth,
                        dword: base_dword + at,
                        name: format!("{}[{i}]", f.name),
                        value: String::new(),
                        warning: false,
                    });
                    walk(generation, nested, sub, base_dword + at, depth + 1, out);
                }
            }
            Ty::Mbz => {
                let raw = f.raw(dw);
                if raw != 0 {
                    out.push(Line {
                        depth,
                        dword,
                        name: f.name.to_string(),
                        value: format!("{raw:#x} (must be zero)"),
                        warning: true,
                    });
                }
            }
            _ => {
                let raw = f.raw(dw);
                let mut v = value(&f.ty, raw, f.width(), f.start);
                let mut warning = false;
                if let Some(fixed) = f.fixed
                    && fixed != raw
                {
                    let _ = write!(v, " (expected {fixed:#x})");
                    warning = true;
                }
                out.push(Line {
                    depth,
                    dword,
                    name: f.name.to_string(),
                    value: v,
                    warning,
                });
            }
        }
    }
}
