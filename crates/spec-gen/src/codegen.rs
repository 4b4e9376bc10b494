//! Rust code generation: one module per generation with typed structs (`pack`/`unpack`),
//! enum newtypes, and the static tables (`Def`, `Field`, `EnumInfo`) of `gtsim-spec`'s
//! `table` module. Output is deterministic: definitions in name order.

use crate::check::opcode;
use crate::model::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// `3DSTATE_VS` -> `ThreeDStateVs`; `Kernel Start Pointer` -> `KernelStartPointer`.
pub fn camel(name: &str) -> String {
    let name = expand_3d(name);
    let mut out = String::new();
    for word in name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut cs = word.chars();
        if let Some(c) = cs.next() {
            out.push(c.to_ascii_uppercase());
            if word.chars().any(|c| c.is_ascii_lowercase()) {
                out.extend(cs);
            } else {
                out.extend(cs.map(|c| c.to_ascii_lowercase()));
            }
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'N');
    }
    out
}

fn expand_3d(name: &str) -> String {
    match name.strip_prefix("3D") {
        Some(rest) => format!("ThreeD {rest}"),
        None => name.to_string(),
    }
}

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// `Kernel Start Pointer` -> `kernel_start_pointer`.
pub fn snake(name: &str) -> String {
    let name = expand_3d(name);
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower && !out.ends_with('_') {
                out.push('_');
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            out.push(c.to_ascii_lowercase());
        } else {
            prev_lower = false;
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
        }
    }
    let mut out = out.trim_end_matches('_').to_string();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'n');
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// `1-4 Samplers` -> `_1_4_SAMPLERS`.
pub fn screaming(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let mut out = out.trim_matches('_').to_string();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn uniq(used: &mut BTreeSet<String>, base: String) -> String {
    if used.insert(base.clone()) {
        return base;
    }
    for i in 2.. {
        let c = format!("{base}_{i}");
        if used.insert(c.clone()) {
            return c;
        }
    }
    unreachable!()
}

fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn uint_ty(w: u32) -> &'static str {
    match w {
        0..=8 => "u8",
        9..=16 => "u16",
        17..=32 => "u32",
        _ => "u64",
    }
}

fn sint_ty(w: u32) -> &'static str {
    match w {
        0..=8 => "i8",
        9..=16 => "i16",
        17..=32 => "i32",
        _ => "i64",
    }
}

/// Names chosen for everything generated, decided up front so references agree.
struct Names {
    def_ty: BTreeMap<String, String>,
    def_mod: BTreeMap<String, String>,
    def_static: BTreeMap<String, String>,
    enum_ty: BTreeMap<String, String>,
    enum_static: BTreeMap<String, String>,
}

fn names(spec: &Spec) -> Names {
    let mut used_ty = BTreeSet::new();
    let mut used_mod = BTreeSet::new();
    let mut used_static = BTreeSet::new();
    let mut n = Names {
        def_ty: BTreeMap::new(),
        def_mod: BTreeMap::new(),
        def_static: BTreeMap::new(),
        enum_ty: BTreeMap::new(),
        enum_static: BTreeMap::new(),
    };
    for (e, def) in &spec.enums {
        let ty = uniq(&mut used_ty, camel(e));
        let st = uniq(&mut used_static, format!("ENUM_{}", screaming(e)));
        // An enumeration of `defs/shared` lives in `crate::shared`; paths into it are
        // absolute, so they read the same from the module root and from inside a
        // definition's module.
        let (ty, st) = match &def.external {
            Some(ns) => (format!("crate::{ns}::{ty}"), format!("crate::{ns}::{st}")),
            None => (ty, st),
        };
        n.enum_ty.insert(e.clone(), ty);
        n.enum_static.insert(e.clone(), st);
    }
    for d in spec.defs.keys() {
        n.def_ty.insert(d.clone(), uniq(&mut used_ty, camel(d)));
        n.def_mod.insert(d.clone(), uniq(&mut used_mod, snake(d)));
        n.def_static.insert(
            d.clone(),
            uniq(&mut used_static, format!("DEF_{}", screaming(d))),
        );
    }
    n
}

fn emit_enum_newtype(out: &mut String, ty: &str, doc: &str, width: u32, values: &[(u64, String)]) {
    let repr = if width > 32 { "u64" } else { "u32" };
    let _ = writeln!(out, "/// {}", doc.replace('\n', " "));
    let _ = writeln!(
        out,
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]"
    );
    let _ = writeln!(out, "pub struct {ty}(pub {repr});");
    let _ = writeln!(out, "impl {ty} {{");
    let mut used = BTreeSet::new();
    for (v, name) in values {
        let c = uniq(&mut used, screaming(name));
        let _ = writeln!(out, "    /// {name}");
        let _ = writeln!(out, "    pub const {c}: Self = Self({v:#x});");
    }
    let _ = writeln!(
        out,
        "    /// The manual's name for this value, if it has one."
    );
    let _ = writeln!(out, "    pub fn name(self) -> Option<&'static str> {{");
    let _ = writeln!(out, "        match self.0 {{");
    let mut seen = BTreeSet::new();
    for (v, name) in values {
        if seen.insert(*v) {
            let _ = writeln!(out, "            {v:#x} => Some({}),", lit(name));
        }
    }
    let _ = writeln!(out, "            _ => None,\n        }}\n    }}\n}}");
}

/// Definitions that are layouts of one 128-bit EU instruction: their fields get
/// form-independent accessors.
const EU_FORM_PREFIX: &str = "EU_INSTRUCTION_";

/// Per-generation field accessors over raw instruction dwords, in the spirit of Mesa's
/// brw_inst.h: `EuForm` names each instruction layout of the spec, `EuField` each field
/// name any layout has, and `eu_field(form, field)` gives the field's bits in that form
/// (`None` where the form has no such field). A decoder or encoder reads and writes
/// fields by name, whatever form an instruction is in, and a new generation's positions
/// come from its spec file.
fn emit_field_accessors(out: &mut String, spec: &Spec, n: &Names) {
    let forms: Vec<(&String, &Def)> = spec
        .defs
        .iter()
        .filter(|(n, _)| n.starts_with(EU_FORM_PREFIX))
        .collect();
    if forms.is_empty() {
        return;
    }
    let mut names: BTreeSet<String> = BTreeSet::new();
    for (_, d) in &forms {
        for f in &d.fields {
            if f.name != "Reserved" && f.ty != FieldType::Mbz {
                names.insert(f.name.clone());
            }
        }
    }
    let _ = writeln!(out, "/// The EU instruction layouts of this generation.");
    let _ = writeln!(out, "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]");
    let _ = writeln!(out, "pub enum EuForm {{");
    for (n, _) in &forms {
        let _ = writeln!(out, "    /// `{n}`.");
        let _ = writeln!(out, "    {},", camel(&n[EU_FORM_PREFIX.len()..]));
    }
    let _ = writeln!(out, "}}\n");
    let _ = writeln!(
        out,
        "impl EuForm {{\n    /// The layout's definition (its fields, fixed values and provenance).\n    pub fn def(self) -> &'static Def {{\n        match self {{"
    );
    for (name, _) in &forms {
        let _ = writeln!(
            out,
            "            EuForm::{} => &{},",
            camel(&name[EU_FORM_PREFIX.len()..]),
            n.def_static[*name]
        );
    }
    let _ = writeln!(out, "        }}\n    }}\n}}\n");
    let _ = writeln!(
        out,
        "/// The fields of the EU instruction layouts, by the manual's names."
    );
    let _ = writeln!(out, "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]");
    let _ = writeln!(out, "pub enum EuField {{");
    for n in &names {
        let _ = writeln!(out, "    /// `{n}`.");
        let _ = writeln!(out, "    {},", camel(n));
    }
    let _ = writeln!(out, "}}\n");
    let _ = writeln!(
        out,
        "/// The bits (first, last; over the 128-bit instruction) of `field` in `form`, or\n/// `None` where the form has no such field (an overlay field is its own name)."
    );
    let _ = writeln!(
        out,
        "pub fn eu_field(form: EuForm, field: EuField) -> Option<(u32, u32)> {{\n    match (form, field) {{"
    );
    for (n, d) in &forms {
        let form = camel(&n[EU_FORM_PREFIX.len()..]);
        let mut seen = BTreeSet::new();
        for f in &d.fields {
            if f.name == "Reserved" || f.ty == FieldType::Mbz || !seen.insert(f.name.clone()) {
                continue;
            }
            let _ = writeln!(
                out,
                "        (EuForm::{form}, EuField::{}) => Some(({}, {})),",
                camel(&f.name),
                f.start,
                f.end
            );
        }
    }
    let _ = writeln!(out, "        _ => None,\n    }}\n}}\n");
    let _ = writeln!(
        out,
        "/// Field `field` of an instruction of layout `form` (0 where the form lacks it).\npub fn eu_get(form: EuForm, field: EuField, dw: &[u32]) -> u64 {{\n    eu_field(form, field).map_or(0, |(s, e)| bits::get(dw, s, e))\n}}\n"
    );
    let _ = writeln!(
        out,
        "/// Sets field `field` of an instruction of layout `form` (nothing where the form lacks it).\npub fn eu_set(form: EuForm, field: EuField, dw: &mut [u32], value: u64) {{\n    if let Some((s, e)) = eu_field(form, field) {{\n        bits::set(dw, s, e, value);\n    }}\n}}\n"
    );
}

/// A type path of the module root as seen from inside a definition's module.
fn in_module(path: &str) -> String {
    if path.starts_with("crate::") {
        path.to_string()
    } else {
        format!("super::{path}")
    }
}

fn enum_width(spec: &Spec, e: &str) -> u32 {
    // The widest field using this enum decides the newtype's repr.
    let mut w = 32;
    for d in spec.defs.values() {
        for f in &d.fields {
            if matches!(&f.ty, FieldType::Enum(n) if n == e) {
                w = w.max(f.width());
            }
        }
    }
    w
}

fn values_lit(values: &[(u64, String)]) -> String {
    let mut s = String::from("&[");
    for (v, n) in values {
        let _ = write!(s, "({v:#x}, {}), ", lit(n));
    }
    s.push(']');
    s
}

/// Generates the module for one generation. `spec` must have passed `check`.
pub fn generate(spec: &Spec, generation: &str) -> String {
    let n = names(spec);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// @generated by gtsim-spec-gen from defs/{generation}. Do not edit; edit the spec files."
    );
    let _ = writeln!(
        out,
        "use crate::table::*;\nuse crate::bits;\nuse crate::error::{{PackError, UnpackError, CodecError}};\n"
    );

    // Named enums (those of `defs/shared` are generated there, once).
    for (name, e) in spec.enums.iter().filter(|(_, e)| e.external.is_none()) {
        let doc = format!("Enumeration `{name}`. Source: {}", e.source);
        emit_enum_newtype(
            &mut out,
            &n.enum_ty[name],
            &doc,
            enum_width(spec, name),
            &e.values,
        );
        let _ = writeln!(
            out,
            "/// Table of `{name}`.\npub static {}: EnumInfo = EnumInfo {{ name: {}, values: {} }};\n",
            n.enum_static[name],
            lit(name),
            values_lit(&e.values)
        );
    }

    // Definitions.
    for (name, d) in &spec.defs {
        emit_def(&mut out, spec, &n, name, d);
    }

    emit_field_accessors(&mut out, spec, &n);

    // Registries.
    let _ = writeln!(
        out,
        "/// Every definition of this generation, sorted by name."
    );
    let _ = writeln!(out, "pub static DEFS: &[&Def] = &[");
    for name in spec.defs.keys() {
        let _ = writeln!(out, "    &{},", n.def_static[name]);
    }
    let _ = writeln!(
        out,
        "];\n/// Every named enum of this generation, sorted by name.\npub static ENUMS: &[&EnumInfo] = &["
    );
    for name in spec.enums.keys() {
        let _ = writeln!(out, "    &{},", n.enum_static[name]);
    }
    let _ = writeln!(out, "];\n");
    let _ = writeln!(out, "/// `unpack` then `pack` of one definition.");
    let _ = writeln!(
        out,
        "pub type RoundTrip = fn(&[u32]) -> Result<Vec<u32>, CodecError>;"
    );
    let _ = writeln!(
        out,
        "/// `unpack` then `pack` for every definition, by name: the round-trip oracle's entry points."
    );
    let _ = writeln!(out, "pub static ROUNDTRIP: &[(&str, RoundTrip)] = &[");
    for name in spec.defs.keys() {
        let ty = &n.def_ty[name];
        let m = &n.def_mod[name];
        let _ = writeln!(
            out,
            "    ({}, |dw| Ok({m}::{ty}::unpack(dw)?.pack()?)),",
            lit(name)
        );
    }
    let _ = writeln!(out, "];");
    out
}

fn field_rust_ty(
    _spec: &Spec,
    n: &Names,
    f: &Field,
    inline_ty: &BTreeMap<String, String>,
) -> Option<String> {
    if f.fixed.is_some() {
        return None;
    }
    let w = f.width();
    Some(match &f.ty {
        FieldType::Mbz | FieldType::Length => return None,
        FieldType::U => uint_ty(w).to_string(),
        FieldType::S => sint_ty(w).to_string(),
        FieldType::Bool => "bool".into(),
        FieldType::Enum(e) => in_module(&n.enum_ty[e]),
        FieldType::InlineEnum(_) => inline_ty[&f.name].clone(),
        FieldType::Address | FieldType::Offset(_) => "u64".into(),
        FieldType::UFixed(..) | FieldType::SFixed(..) => "f64".into(),
        FieldType::Float => "f32".into(),
        FieldType::Struct(s) => format!("super::{}", n.def_ty[s]),
        FieldType::Array {
            elem,
            count: Some(c),
        } => format!("[super::{}; {c}]", n.def_ty[elem]),
        FieldType::Array { elem, count: None } => format!("Vec<super::{}>", n.def_ty[elem]),
    })
}

fn ty_table(spec: &Spec, n: &Names, f: &Field, inline_static: &BTreeMap<String, String>) -> String {
    let _ = spec;
    match &f.ty {
        FieldType::U => "Ty::U".into(),
        FieldType::S => "Ty::S".into(),
        FieldType::Bool => "Ty::Bool".into(),
        FieldType::Mbz => "Ty::Mbz".into(),
        FieldType::Length => "Ty::Length".into(),
        FieldType::Enum(e) => format!("Ty::Enum(&{})", n.enum_static[e]),
        FieldType::InlineEnum(_) => format!("Ty::Enum(&{})", inline_static[&f.name]),
        FieldType::Address => "Ty::Address".into(),
        FieldType::Offset(b) => format!("Ty::Offset(Base::{})", b.variant()),
        FieldType::UFixed(i, fr) => format!("Ty::UFixed({i}, {fr})"),
        FieldType::SFixed(i, fr) => format!("Ty::SFixed({i}, {fr})"),
        FieldType::Float => "Ty::Float".into(),
        FieldType::Struct(s) => format!("Ty::Struct({})", lit(s)),
        FieldType::Array { elem, count } => {
            format!("Ty::Array {{ elem: {}, count: {:?} }}", lit(elem), count)
        }
    }
}

fn target_table(t: &Option<Target>) -> String {
    match t {
        None => "None".into(),
        Some(Target::Kernel) => "Some(Target::Kernel)".into(),
        Some(Target::Struct { name, count }) => {
            let c = match count {
                Count::One => "Count::One".into(),
                Count::Fixed(k) => format!("Count::Fixed({k})"),
                Count::Field(f) => format!("Count::Field({})", lit(f)),
                Count::Unknown => "Count::Unknown".into(),
            };
            format!("Some(Target::Struct {{ name: {}, count: {c} }})", lit(name))
        }
    }
}

fn emit_def(out: &mut String, spec: &Spec, n: &Names, name: &str, d: &Def) {
    let ty = &n.def_ty[name];
    let m = &n.def_mod[name];
    let st = &n.def_static[name];
    let (bias, variable) = match d.kind {
        DefKind::Command { bias, variable } => (bias, variable),
        _ => (0, false),
    };
    // Inline enums get a newtype inside the definition's module.
    let mut used = BTreeSet::new();
    used.insert(ty.clone());
    let mut inline_ty = BTreeMap::new();
    let mut inline_static = BTreeMap::new();
    let mut field_ident = BTreeMap::new();
    let mut used_fields = BTreeSet::new();
    for f in &d.fields {
        if let FieldType::InlineEnum(_) = f.ty {
            inline_ty.insert(f.name.clone(), uniq(&mut used, camel(&f.name)));
            inline_static.insert(f.name.clone(), format!("{m}::ENUM_{}", screaming(&f.name)));
        }
        if field_rust_ty(spec, n, f, &inline_ty).is_some() {
            field_ident.insert(f.name.clone(), uniq(&mut used_fields, snake(&f.name)));
        }
    }
    let open_at = d
        .fields
        .iter()
        .find(|f| matches!(f.ty, FieldType::Array { count: None, .. }))
        .map(|f| f.start / 32);
    let has_open = open_at.is_some();
    // Variable commands without an open array keep their length as data.
    let keeps_length = variable && !has_open;
    let extent = d
        .fields
        .iter()
        .filter(|f| !matches!(f.ty, FieldType::Array { count: None, .. }))
        .map(|f| f.end / 32 + 1)
        .max()
        .unwrap_or(0)
        .max(d.dwords);
    let alloc = open_at.unwrap_or(extent);

    let kind = match &d.kind {
        DefKind::Struct => "DefKind::Struct".to_string(),
        DefKind::Command { variable, bias } => {
            format!("DefKind::Command {{ variable: {variable}, bias: {bias} }}")
        }
        DefKind::Register { offset } => format!("DefKind::Register {{ offset: {offset:#x} }}"),
    };
    let (om, ov) = if matches!(d.kind, DefKind::Command { .. }) {
        opcode(d)
    } else {
        (0, 0)
    };

    let _ = writeln!(out, "/// `{name}`: {}", d.source.replace('\n', " "));
    let _ = writeln!(out, "pub mod {m} {{");
    let _ = writeln!(
        out,
        "    #![allow(clippy::all, unused_imports, unused_variables, unused_mut)]"
    );
    let _ = writeln!(out, "    use super::*;");
    // Inline enums.
    for f in &d.fields {
        if let FieldType::InlineEnum(vals) = &f.ty {
            let mut s = String::new();
            emit_enum_newtype(
                &mut s,
                &inline_ty[&f.name],
                &format!("Values of `{name}.{}`.", f.name),
                f.width(),
                vals,
            );
            for l in s.lines() {
                let _ = writeln!(out, "    {l}");
            }
            let _ = writeln!(out, "    /// Table of `{name}.{}`.", f.name);
            let _ = writeln!(
                out,
                "    pub static ENUM_{}: EnumInfo = EnumInfo {{ name: {}, values: {} }};",
                screaming(&f.name),
                lit(&f.name),
                values_lit(vals)
            );
        }
    }
    // The typed struct.
    let _ = writeln!(
        out,
        "    /// `{name}` with every field typed. Source: {}",
        d.source.replace('\n', " ")
    );
    // `Default` is derived, except where a fixed array is longer than the standard
    // library's `Default` for arrays goes (32): those get it written out.
    let long_array = |f: &Field| matches!(f.ty, FieldType::Array { count: Some(c), .. } if c > 32);
    let manual_default = d.fields.iter().any(long_array);
    if manual_default {
        let _ = writeln!(out, "    #[derive(Debug, Clone, PartialEq)]");
    } else {
        let _ = writeln!(out, "    #[derive(Debug, Clone, PartialEq, Default)]");
    }
    let _ = writeln!(out, "    pub struct {ty} {{");
    for f in &d.fields {
        if let Some(rt) = field_rust_ty(spec, n, f, &inline_ty) {
            let rt = rt
                .replace("super::", "super::super::")
                .replace("super::super::", "super::");
            let _ = writeln!(out, "        /// {} (bits {}..={})", f.name, f.start, f.end);
            let _ = writeln!(out, "        pub {}: {rt},", field_ident[&f.name]);
        }
    }
    if keeps_length {
        let _ = writeln!(
            out,
            "        /// Total length in dwords (this command's length varies; trailing fields beyond it are absent)."
        );
        let _ = writeln!(out, "        pub length_dwords: usize,");
    }
    let _ = writeln!(out, "    }}");
    if manual_default {
        let _ = writeln!(out, "    impl Default for {ty} {{");
        let _ = writeln!(out, "        fn default() -> Self {{");
        let _ = writeln!(out, "            Self {{");
        for f in &d.fields {
            if field_rust_ty(spec, n, f, &inline_ty).is_some() {
                let v = if long_array(f) {
                    "std::array::from_fn(|_| Default::default())"
                } else {
                    "Default::default()"
                };
                let _ = writeln!(out, "                {}: {v},", field_ident[&f.name]);
            }
        }
        if keeps_length {
            let _ = writeln!(out, "                length_dwords: 0,");
        }
        let _ = writeln!(out, "            }}");
        let _ = writeln!(out, "        }}");
        let _ = writeln!(out, "    }}");
    }
    let _ = writeln!(out, "    impl {ty} {{");
    let _ = writeln!(out, "        /// The field table of this definition.");
    let _ = writeln!(out, "        pub const DEF: &'static Def = &super::{st};");
    let _ = writeln!(
        out,
        "        /// Fixed size (or minimum size, for variable commands) in dwords."
    );
    let _ = writeln!(out, "        pub const DWORDS: usize = {};", d.dwords);
    let id = spec
        .defs
        .keys()
        .position(|k| k == name)
        .unwrap_or(usize::MAX);
    let _ = writeln!(
        out,
        "        /// This definition's index in the generation's `DEFS` (its `Def::id`), for matching a decoded command without its name."
    );
    let _ = writeln!(out, "        pub const ID: usize = {id};");
    if let DefKind::Register { offset } = d.kind {
        let _ = writeln!(out, "        /// MMIO offset in bytes.");
        let _ = writeln!(out, "        pub const OFFSET: u32 = {offset:#x};");
    }
    // unpack
    let _ = writeln!(
        out,
        "        /// Decodes from dwords (exactly the definition's, or the command's full length)."
    );
    let _ = writeln!(
        out,
        "        pub fn unpack(dw: &[u32]) -> Result<Self, UnpackError> {{"
    );
    let _ = writeln!(
        out,
        "            if dw.len() < {} {{ return Err(UnpackError::Short {{ def: {}, need: {}, have: dw.len() }}); }}",
        d.dwords,
        lit(name),
        d.dwords
    );
    for f in &d.fields {
        if let Some(v) = f.fixed {
            let _ = writeln!(
                out,
                "            let found = bits::get(dw, {}, {});",
                f.start, f.end
            );
            let _ = writeln!(
                out,
                "            if found != {v:#x} {{ return Err(UnpackError::Mismatch {{ def: {}, field: {}, expected: {v:#x}, found }}); }}",
                lit(name),
                lit(&f.name)
            );
        } else if f.ty == FieldType::Length {
            let _ = writeln!(
                out,
                "            let len = bits::get(dw, {}, {}) as usize + {bias};",
                f.start, f.end
            );
            let _ = writeln!(
                out,
                "            if len != dw.len() {{ return Err(UnpackError::Length {{ def: {}, length: len, have: dw.len() }}); }}",
                lit(name)
            );
        }
    }
    if !variable && !has_open && matches!(d.kind, DefKind::Command { .. }) {
        let _ = writeln!(
            out,
            "            if dw.len() != {} {{ return Err(UnpackError::Length {{ def: {}, length: {}, have: dw.len() }}); }}",
            d.dwords,
            lit(name),
            d.dwords
        );
    }
    let _ = writeln!(out, "            Ok(Self {{");
    if keeps_length {
        let _ = writeln!(out, "                length_dwords: dw.len(),");
    }
    for f in &d.fields {
        let Some(id) = field_ident.get(&f.name) else {
            continue;
        };
        let (s, e, w) = (f.start, f.end, f.width());
        let lo = s % 32;
        let expr = match &f.ty {
            FieldType::U => format!("bits::get(dw, {s}, {e}) as {}", uint_ty(w)),
            FieldType::S => format!("bits::sext(bits::get(dw, {s}, {e}), {w}) as {}", sint_ty(w)),
            FieldType::Bool => format!("bits::get(dw, {s}, {e}) != 0"),
            FieldType::Enum(en) => {
                format!(
                    "{}(bits::get(dw, {s}, {e}) as _)",
                    in_module(&n.enum_ty[en])
                )
            }
            FieldType::InlineEnum(_) => {
                format!("{}(bits::get(dw, {s}, {e}) as _)", inline_ty[&f.name])
            }
            FieldType::Address | FieldType::Offset(_) => format!("bits::get(dw, {s}, {e}) << {lo}"),
            FieldType::UFixed(_, fr) => {
                format!("bits::get(dw, {s}, {e}) as f64 / (1u64 << {fr}) as f64")
            }
            FieldType::SFixed(_, fr) => {
                format!("bits::sext(bits::get(dw, {s}, {e}), {w}) as f64 / (1u64 << {fr}) as f64")
            }
            FieldType::Float => format!("f32::from_bits(bits::get(dw, {s}, {e}) as u32)"),
            FieldType::Struct(st2) => format!(
                "super::{}::unpack(&bits::extract(dw, {s}, {e}, {}))?",
                n.def_ty[st2], spec.defs[st2].dwords
            ),
            FieldType::Array {
                elem,
                count: Some(c),
            } => {
                let ed = spec.defs[elem].dwords;
                format!(
                    "bits::unpack_array::<super::{}, {c}>(dw, {}, {ed}, super::{}::unpack)?",
                    n.def_ty[elem],
                    s / 32,
                    n.def_ty[elem]
                )
            }
            FieldType::Array { elem, count: None } => {
                let ed = spec.defs[elem].dwords;
                format!(
                    "bits::unpack_tail({}, {}, dw, {}, {ed}, super::{}::unpack)?",
                    lit(name),
                    lit(&f.name),
                    s / 32,
                    n.def_ty[elem]
                )
            }
            FieldType::Mbz | FieldType::Length => unreachable!(),
        };
        let _ = writeln!(out, "                {id}: {expr},");
    }
    let _ = writeln!(out, "            }})");
    let _ = writeln!(out, "        }}");
    // pack
    let _ = writeln!(
        out,
        "        /// Encodes, checking every value fits its field."
    );
    let _ = writeln!(
        out,
        "        pub fn pack(&self) -> Result<Vec<u32>, PackError> {{"
    );
    let _ = writeln!(out, "            let mut dw = vec![0u32; {alloc}];");
    let def_l = lit(name);
    for f in &d.fields {
        let (s, e) = (f.start, f.end);
        let lo = s % 32;
        if let Some(v) = f.fixed {
            let _ = writeln!(out, "            bits::or_in(&mut dw, {s}, {e}, {v:#x});");
            continue;
        }
        let Some(id) = field_ident.get(&f.name) else {
            continue;
        };
        let fl = lit(&f.name);
        let line = match &f.ty {
            FieldType::U => {
                format!("bits::put(&mut dw, {s}, {e}, self.{id} as u64, {def_l}, {fl})?;")
            }
            FieldType::S => {
                format!("bits::put_signed(&mut dw, {s}, {e}, self.{id} as i64, {def_l}, {fl})?;")
            }
            FieldType::Bool => format!("bits::or_in(&mut dw, {s}, {e}, self.{id} as u64);"),
            FieldType::Enum(_) | FieldType::InlineEnum(_) => {
                format!("bits::put(&mut dw, {s}, {e}, self.{id}.0 as u64, {def_l}, {fl})?;")
            }
            FieldType::Address | FieldType::Offset(_) => {
                format!("bits::put_aligned(&mut dw, {s}, {e}, {lo}, self.{id}, {def_l}, {fl})?;")
            }
            FieldType::UFixed(_, fr) => format!(
                "bits::put_fixed(&mut dw, {s}, {e}, {fr}, false, self.{id}, {def_l}, {fl})?;"
            ),
            FieldType::SFixed(_, fr) => format!(
                "bits::put_fixed(&mut dw, {s}, {e}, {fr}, true, self.{id}, {def_l}, {fl})?;"
            ),
            FieldType::Float => {
                format!("bits::or_in(&mut dw, {s}, {e}, self.{id}.to_bits() as u64);")
            }
            FieldType::Struct(_) => {
                format!("bits::insert(&mut dw, {s}, {e}, &self.{id}.pack()?, {def_l}, {fl})?;")
            }
            FieldType::Array { count: Some(_), .. } => {
                format!(
                    "for (i, x) in self.{id}.iter().enumerate() {{ let p = x.pack()?; let at = {} + i * p.len(); dw[at..at + p.len()].copy_from_slice(&p); }}",
                    s / 32
                )
            }
            FieldType::Array { count: None, .. } => {
                format!("for x in &self.{id} {{ dw.extend(x.pack()?); }}")
            }
            FieldType::Mbz | FieldType::Length => unreachable!(),
        };
        let _ = writeln!(out, "            {line}");
    }
    if keeps_length {
        // An unset length (0) is the command's default length, else its minimum.
        let default_total = d
            .default_length
            .map_or(u64::from(d.dwords), |l| l + u64::from(bias));
        let _ = writeln!(
            out,
            "            let keep = if self.length_dwords == 0 {{ {default_total} }} else {{ self.length_dwords }}.max({});",
            d.dwords
        );
        let _ = writeln!(
            out,
            "            if dw.len() > keep && dw[keep..].iter().any(|&x| x != 0) {{ return Err(PackError::BeyondLength {{ def: {def_l}, length: keep }}); }}"
        );
        let _ = writeln!(out, "            dw.resize(keep, 0);");
    }
    for f in &d.fields {
        if f.ty == FieldType::Length && f.fixed.is_none() {
            let _ = writeln!(out, "            let len = dw.len() as u64 - {bias};");
            let _ = writeln!(
                out,
                "            bits::put(&mut dw, {}, {}, len, {def_l}, {})?;",
                f.start,
                f.end,
                lit(&f.name)
            );
        }
    }
    let _ = writeln!(out, "            Ok(dw)");
    let _ = writeln!(out, "        }}");
    let _ = writeln!(out, "    }}");
    let _ = writeln!(out, "}}");
    let _ = writeln!(out, "pub use {m}::{ty};");
    // Table.
    let _ = writeln!(out, "/// Field table of `{name}`.");
    let _ = writeln!(out, "pub static {st}: Def = Def {{");
    let _ = writeln!(out, "    name: {},", lit(name));
    let id = spec
        .defs
        .keys()
        .position(|k| k == name)
        .unwrap_or(usize::MAX);
    let _ = writeln!(out, "    id: {id},");
    let _ = writeln!(out, "    kind: {kind},");
    let _ = writeln!(out, "    dwords: {},", d.dwords);
    let _ = writeln!(out, "    source: {},", lit(&d.source));
    let notes: Vec<String> = d.notes.iter().map(|s| lit(s)).collect();
    let _ = writeln!(out, "    notes: &[{}],", notes.join(", "));
    let _ = writeln!(out, "    opcode_mask: {om:#x},\n    opcode_value: {ov:#x},");
    let _ = writeln!(out, "    fields: &[");
    for f in &d.fields {
        let _ = writeln!(
            out,
            "        Field {{ name: {}, start: {}, end: {}, ty: {}, fixed: {:?}, target: {}, overlay: {} }},",
            lit(&f.name),
            f.start,
            f.end,
            ty_table(spec, n, f, &inline_static),
            f.fixed,
            target_table(&f.target),
            f.overlay
        );
    }
    let _ = writeln!(out, "    ],\n}};\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_follow_the_manual() {
        assert_eq!(camel("3DSTATE_VS"), "ThreeDStateVs");
        assert_eq!(camel("VERTEX_ELEMENT_STATE"), "VertexElementState");
        assert_eq!(snake("Kernel Start Pointer"), "kernel_start_pointer");
        assert_eq!(snake("3D Command Opcode"), "three_d_command_opcode");
        assert_eq!(snake("Type"), "type_");
        assert_eq!(screaming("1-4 Samplers"), "_1_4_SAMPLERS");
        assert_eq!(screaming("R8G8B8A8_UNORM"), "R8G8B8A8_UNORM");
    }
}
