//! Semantic checks over a parsed spec: every rule of `defs/FORMAT.md` that the parser
//! cannot see line by line (sizes, overlaps, references, opcodes).

use crate::model::*;
use crate::parse::SpecError;
use std::collections::{BTreeMap, BTreeSet};

fn err(errors: &mut Vec<SpecError>, loc: &Loc, msg: impl Into<String>) {
    errors.push(SpecError {
        loc: loc.clone(),
        msg: msg.into(),
    });
}

/// The number of bits `def`'s non-reserved fields reach (highest used bit + 1).
pub fn used_bits(def: &Def) -> u32 {
    def.fields
        .iter()
        .filter(|f| f.ty != FieldType::Mbz)
        .map(|f| f.end + 1)
        .max()
        .unwrap_or(0)
}

/// Size in bits of one element of struct `name`.
pub fn struct_bits(spec: &Spec, name: &str) -> Option<u32> {
    spec.defs.get(name).map(|d| d.dwords * 32)
}

/// Finishes the model (array extents) and checks it. Returns every problem found.
pub fn check(spec: &mut Spec) -> Vec<SpecError> {
    let mut errors = vec![];
    // Resolve array extents first.
    let sizes: BTreeMap<String, u32> = spec
        .defs
        .iter()
        .map(|(n, d)| (n.clone(), d.dwords))
        .collect();
    for def in spec.defs.values_mut() {
        for f in &mut def.fields {
            if let FieldType::Array { elem, count } = &f.ty {
                match sizes.get(elem) {
                    Some(&dw) => {
                        let n = count.unwrap_or(1);
                        f.end = f.start + dw * 32 * n - 1;
                    }
                    None => err(
                        &mut errors,
                        &f.loc,
                        format!("array element `{elem}` is not a defined struct"),
                    ),
                }
            }
        }
    }
    let spec_ro: &Spec = spec;
    for e in spec_ro.enums.values() {
        let mut seen = BTreeSet::new();
        for (v, n) in &e.values {
            if !seen.insert(*v) {
                err(
                    &mut errors,
                    &e.loc,
                    format!("enum {}: value {v} ({n}) listed twice", e.name),
                );
            }
        }
        if e.values.is_empty() {
            err(
                &mut errors,
                &e.loc,
                format!("enum {} has no values", e.name),
            );
        }
    }
    for def in spec_ro.defs.values() {
        check_def(spec_ro, def, &mut errors);
    }
    check_opcodes(spec_ro, &mut errors);
    errors
        .sort_by(|a, b| (&a.loc.file, a.loc.line, &a.msg).cmp(&(&b.loc.file, b.loc.line, &b.msg)));
    errors.dedup();
    errors
}

fn check_def(spec: &Spec, def: &Def, errors: &mut Vec<SpecError>) {
    let size_bits = def.dwords * 32;
    let is_cmd = matches!(def.kind, DefKind::Command { .. });
    let variable_cmd = matches!(def.kind, DefKind::Command { variable: true, .. });
    if def.source.starts_with("seed ") && crate::seedref::parse(&def.source).is_none() {
        err(
            errors,
            &def.loc,
            format!(
                "{}: a seed `source` needs `seed NNN §x Lfirst-last`",
                def.name
            ),
        );
    }
    let mut names = BTreeSet::new();
    let mut open_arrays = 0;
    let mut length_fields = 0;
    for (i, f) in def.fields.iter().enumerate() {
        let w = f.width();
        if f.ty != FieldType::Mbz && f.name != "Reserved" && !names.insert(f.name.clone()) {
            err(
                errors,
                &f.loc,
                format!("{}: field name `{}` used twice", def.name, f.name),
            );
        }
        let open = matches!(f.ty, FieldType::Array { count: None, .. });
        if open {
            open_arrays += 1;
            if !variable_cmd && !matches!(def.kind, DefKind::Struct) {
                err(
                    errors,
                    &f.loc,
                    "an open array `[]` needs a variable command (`dwords N+`)",
                );
            }
            if f.start % 32 != 0 || f.start > def.dwords * 32 {
                err(
                    errors,
                    &f.loc,
                    format!(
                        "open array must start on a dword boundary within the first {} dwords",
                        def.dwords
                    ),
                );
            }
            if let Some(g) = def
                .fields
                .iter()
                .find(|g| !std::ptr::eq(*g, f) && g.end >= f.start)
            {
                err(
                    errors,
                    &g.loc,
                    format!("`{}` lies inside the open array `{}`", g.name, f.name),
                );
            }
            if i + 1 != def.fields.len() {
                err(errors, &f.loc, "open array must be the last field");
            }
        } else if f.end >= size_bits && !(variable_cmd && f.end < 64 * 32) {
            // Variable commands without an open array may carry optional trailing fields
            // (MI_STORE_DATA_IMM's second data dword): present when the length covers them.
            err(
                errors,
                &f.loc,
                format!(
                    "{}: field `{}` (bits {}..{}) lies outside the {} dwords",
                    def.name, f.name, f.start, f.end, def.dwords
                ),
            );
        }
        match &f.ty {
            FieldType::Bool if w != 1 => err(
                errors,
                &f.loc,
                format!("bool field `{}` must be 1 bit", f.name),
            ),
            FieldType::Float if w != 32 => err(
                errors,
                &f.loc,
                format!("float field `{}` must be 32 bits", f.name),
            ),
            FieldType::U
            | FieldType::S
            | FieldType::Enum(_)
            | FieldType::InlineEnum(_)
            | FieldType::Address
            | FieldType::Offset(_)
            | FieldType::Length
                if w > 64 =>
            {
                err(
                    errors,
                    &f.loc,
                    format!("field `{}` wider than 64 bits", f.name),
                )
            }
            FieldType::UFixed(a, b) | FieldType::SFixed(a, b) if a + b != w => err(
                errors,
                &f.loc,
                format!(
                    "fixed-point `{}`: {a}.{b} is {} bits but the field has {w}",
                    f.name,
                    a + b
                ),
            ),
            FieldType::Enum(e) if !spec.enums.contains_key(e) => {
                err(errors, &f.loc, format!("unknown enum `{e}`"));
            }
            FieldType::InlineEnum(v) => {
                if v.is_empty() {
                    err(
                        errors,
                        &f.loc,
                        format!("inline enum `{}` has no `= value Name` lines", f.name),
                    );
                }
                let mut seen = BTreeSet::new();
                for (val, n) in v {
                    if *val >= 1u64 << w.min(63) && w < 64 {
                        err(
                            errors,
                            &f.loc,
                            format!("enum value {val} ({n}) does not fit in {w} bits"),
                        );
                    }
                    if !seen.insert(*val) {
                        err(
                            errors,
                            &f.loc,
                            format!("enum value {val} ({n}) listed twice"),
                        );
                    }
                }
            }
            FieldType::Struct(s) => match spec.defs.get(s) {
                None => err(errors, &f.loc, format!("unknown struct `{s}`")),
                Some(sd) => {
                    let need = used_bits(sd);
                    if need > w {
                        err(
                            errors,
                            &f.loc,
                            format!(
                                "nested `{s}` uses {need} bits but field `{}` has {w}",
                                f.name
                            ),
                        );
                    }
                    if sd
                        .fields
                        .iter()
                        .any(|x| matches!(x.ty, FieldType::Array { count: None, .. }))
                    {
                        err(errors, &f.loc, format!("nested `{s}` is variable-length"));
                    }
                }
            },
            FieldType::Length => {
                length_fields += 1;
                if !is_cmd {
                    err(errors, &f.loc, "`length` only belongs in commands");
                }
                if let (
                    Some(v),
                    DefKind::Command {
                        variable: false,
                        bias,
                    },
                ) = (f.fixed, &def.kind)
                    && v + *bias as u64 != def.dwords as u64
                {
                    err(
                        errors,
                        &f.loc,
                        format!(
                            "{}: fixed DWord Length {v} + bias {bias} != dwords {}",
                            def.name, def.dwords
                        ),
                    );
                }
                if variable_cmd && f.fixed.is_some() {
                    err(
                        errors,
                        &f.loc,
                        "a variable command's length cannot be fixed",
                    );
                }
            }
            _ => {}
        }
        if let Some(v) = f.fixed {
            if w < 64 && v >= 1u64 << w {
                err(
                    errors,
                    &f.loc,
                    format!(
                        "fixed value {v:#x} does not fit in {w} bits of `{}`",
                        f.name
                    ),
                );
            }
            if !matches!(
                f.ty,
                FieldType::U
                    | FieldType::Length
                    | FieldType::Enum(_)
                    | FieldType::InlineEnum(_)
                    | FieldType::Bool
            ) {
                err(errors, &f.loc, "only integer fields can have a fixed value");
            }
        }
        if let Some(Target::Struct { name, count }) = &f.target {
            if !spec.defs.contains_key(name) {
                err(errors, &f.loc, format!("unknown target struct `{name}`"));
            }
            if let Count::Field(c) = count
                && !def.fields.iter().any(|g| &g.name == c)
            {
                err(
                    errors,
                    &f.loc,
                    format!("count field `{c}` is not a field of {}", def.name),
                );
            }
        }
        if f.target.is_some()
            && !matches!(
                f.ty,
                FieldType::Offset(_) | FieldType::Address | FieldType::U
            )
        {
            err(
                errors,
                &f.loc,
                "only offsets and addresses can point somewhere (`->`)",
            );
        }
    }
    if let DefKind::Command { bias, .. } = def.kind
        && def.dwords < bias
    {
        err(
            errors,
            &def.loc,
            format!(
                "{}: {} dwords is shorter than the length bias {bias}: the minimum length must be a legal command",
                def.name, def.dwords
            ),
        );
    }
    if open_arrays > 1 {
        err(errors, &def.loc, "at most one open array");
    }
    if variable_cmd && open_arrays == 0 && length_fields == 0 {
        err(
            errors,
            &def.loc,
            format!(
                "{} is variable but has neither a `length` field nor an open array",
                def.name
            ),
        );
    }
    if is_cmd
        && def.dwords > 1
        && length_fields == 0
        && !def
            .fields
            .iter()
            .any(|f| f.fixed.is_some() && f.start == 0 && f.name.contains("Length"))
    {
        // Multi-dword commands carry their length; single-dword ones need not.
        err(
            errors,
            &def.loc,
            format!("{}: a multi-dword command needs a `length` field", def.name),
        );
    }
    if is_cmd && !def.fields.iter().any(|f| f.fixed.is_some() && f.end < 32) {
        err(
            errors,
            &def.loc,
            format!(
                "{}: a command needs fixed opcode fields in dword 0",
                def.name
            ),
        );
    }
    // Overlaps.
    let mut spans: Vec<&Field> = def.fields.iter().filter(|f| !f.overlay).collect();
    spans.sort_by_key(|f| f.start);
    for w in spans.windows(2) {
        if w[1].start <= w[0].end {
            err(
                errors,
                &w[1].loc,
                format!(
                    "{}: `{}` overlaps `{}` (mark an alternative `overlay`)",
                    def.name, w[1].name, w[0].name
                ),
            );
        }
    }
}

/// The (mask, value) over dword 0 that identifies a command.
pub fn opcode(def: &Def) -> (u32, u32) {
    let mut mask = 0u32;
    let mut value = 0u32;
    for f in &def.fields {
        if let (Some(v), true) = (f.fixed, f.end < 32) {
            if f.ty == FieldType::Length {
                continue;
            }
            let m = if f.width() == 32 {
                u32::MAX
            } else {
                ((1u32 << f.width()) - 1) << f.start
            };
            mask |= m;
            value |= ((v as u32) << f.start) & m;
        }
    }
    (mask, value)
}

fn check_opcodes(spec: &Spec, errors: &mut Vec<SpecError>) {
    let cmds: Vec<&Def> = spec
        .defs
        .values()
        .filter(|d| matches!(d.kind, DefKind::Command { .. }))
        .collect();
    for (i, a) in cmds.iter().enumerate() {
        for b in &cmds[i + 1..] {
            let (ma, va) = opcode(a);
            let (mb, vb) = opcode(b);
            if ma == mb && va == vb {
                err(
                    errors,
                    &b.loc,
                    format!(
                        "{} has the same opcode as {} ({}): a decoder could not tell them apart",
                        b.name, a.name, a.loc
                    ),
                );
            }
        }
    }
    let mut regs: BTreeMap<u32, &Def> = BTreeMap::new();
    for d in spec.defs.values() {
        if let DefKind::Register { offset } = d.kind
            && let Some(prev) = regs.insert(offset, d)
        {
            err(
                errors,
                &d.loc,
                format!(
                    "register {} at {offset:#x} also defined as {} ({})",
                    d.name, prev.name, prev.loc
                ),
            );
        }
    }
}
