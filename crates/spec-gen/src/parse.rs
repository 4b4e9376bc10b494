//! Parser for the line-based spec format (`defs/FORMAT.md`).

use crate::model::*;
use std::path::Path;

/// A problem in a spec file, with its location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    /// Where.
    pub loc: Loc,
    /// What.
    pub msg: String,
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.loc, self.msg)
    }
}

fn num(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(&h.replace('_', ""), 16).ok()
    } else {
        s.replace('_', "").parse().ok()
    }
}

enum Open {
    None,
    Enum(EnumDef),
    Def(Def),
}

struct Parser<'a> {
    file: &'a str,
    spec: &'a mut Spec,
    errors: Vec<SpecError>,
    open: Open,
}

impl Parser<'_> {
    fn err(&mut self, line: usize, msg: impl Into<String>) {
        self.errors.push(SpecError {
            loc: Loc {
                file: self.file.to_string(),
                line,
            },
            msg: msg.into(),
        });
    }

    fn close(&mut self) {
        match std::mem::replace(&mut self.open, Open::None) {
            Open::None => {}
            Open::Enum(e) => {
                if e.source.is_empty() {
                    self.err(e.loc.line, format!("enum {} has no `source` line", e.name));
                }
                if let Some(prev) = self.spec.enums.get(&e.name) {
                    let msg = format!("enum {} already defined at {}", e.name, prev.loc);
                    self.err(e.loc.line, msg);
                } else {
                    self.spec.enums.insert(e.name.clone(), e);
                }
            }
            Open::Def(mut d) => {
                // In a variable-length command, `length = N` is the default length, not a
                // value the command must have.
                if matches!(d.kind, DefKind::Command { variable: true, .. }) {
                    for f in &mut d.fields {
                        if f.ty == FieldType::Length && f.fixed.is_some() {
                            d.default_length = f.fixed.take();
                        }
                    }
                }
                if d.source.is_empty() {
                    self.err(d.loc.line, format!("{} has no `source` line", d.name));
                }
                if let Some(prev) = self.spec.defs.get(&d.name) {
                    let msg = format!("{} already defined at {}", d.name, prev.loc);
                    self.err(d.loc.line, msg);
                } else {
                    self.spec.defs.insert(d.name.clone(), d);
                }
            }
        }
    }

    fn header(&mut self, line: usize, text: &str) {
        self.close();
        let loc = Loc {
            file: self.file.to_string(),
            line,
        };
        let mut words = text.split_whitespace();
        let kw = words.next().unwrap_or("");
        let Some(name) = words.next() else {
            return self.err(line, format!("`{kw}` needs a name"));
        };
        let name = name.to_string();
        let rest: Vec<&str> = words.collect();
        let attr = |key: &str| {
            rest.iter()
                .position(|w| *w == key)
                .and_then(|i| rest.get(i + 1))
                .copied()
        };
        match kw {
            "enum" => {
                if !rest.is_empty() {
                    self.err(line, "enum takes no attributes");
                }
                self.open = Open::Enum(EnumDef {
                    name,
                    values: vec![],
                    source: String::new(),
                    notes: vec![],
                    loc,
                    external: None,
                });
            }
            "struct" | "command" | "register" => {
                let dwords_s = attr("dwords");
                let (dwords, variable) = match dwords_s {
                    Some(s) => {
                        let (n, plus) = match s.strip_suffix('+') {
                            Some(n) => (n, true),
                            None => (s, false),
                        };
                        match num(n) {
                            Some(v) if v > 0 && v < 4096 => (v as u32, plus),
                            _ => {
                                self.err(line, format!("bad dwords `{s}`"));
                                (1, false)
                            }
                        }
                    }
                    None if kw == "register" => (1, false),
                    None => {
                        self.err(line, format!("{kw} {name} needs `dwords N`"));
                        (1, false)
                    }
                };
                if variable && kw != "command" && kw != "struct" {
                    self.err(line, "only commands and structs may be variable (`N+`)");
                }
                let kind = match kw {
                    "struct" => DefKind::Struct,
                    "command" => {
                        let bias = match attr("bias") {
                            Some(b) => num(b).unwrap_or_else(|| {
                                self.err(line, format!("bad bias `{b}`"));
                                2
                            }) as u32,
                            None => 2,
                        };
                        DefKind::Command { variable, bias }
                    }
                    _ => {
                        let offset = match attr("offset").and_then(num) {
                            Some(o) if o <= u32::MAX as u64 => o as u32,
                            _ => {
                                self.err(line, format!("register {name} needs `offset 0x...`"));
                                0
                            }
                        };
                        DefKind::Register { offset }
                    }
                };
                let known: &[&str] = &["dwords", "bias", "offset"];
                let mut i = 0;
                while i < rest.len() {
                    if !known.contains(&rest[i]) {
                        self.err(line, format!("unknown attribute `{}`", rest[i]));
                    }
                    i += 2;
                }
                // A variable struct is allowed (a struct ending in an open array) and is
                // tracked through its array field; only commands record `variable`.
                self.open = Open::Def(Def {
                    name,
                    kind,
                    dwords,
                    source: String::new(),
                    notes: vec![],
                    fields: vec![],
                    loc,
                    default_length: None,
                });
            }
            _ => self.err(
                line,
                format!("unknown definition keyword `{kw}` (enum, struct, command, register)"),
            ),
        }
    }

    fn body(&mut self, line: usize, text: &str) {
        let t = text.trim();
        if let Some(src) = t
            .strip_prefix("source ")
            .or_else(|| (t == "source").then_some(""))
        {
            let src = src.trim().to_string();
            match &mut self.open {
                Open::Enum(e) if e.source.is_empty() => e.source = src,
                Open::Def(d) if d.source.is_empty() => d.source = src,
                Open::None => self.err(line, "`source` outside a definition"),
                _ => self.err(line, "second `source` line"),
            }
            return;
        }
        if let Some(n) = t.strip_prefix("note ") {
            match &mut self.open {
                Open::Enum(e) => e.notes.push(n.trim().to_string()),
                Open::Def(d) => d.notes.push(n.trim().to_string()),
                Open::None => self.err(line, "`note` outside a definition"),
            }
            return;
        }
        if let Some(v) = t.strip_prefix('=') {
            return self.inline_value(line, v.trim());
        }
        match &self.open {
            Open::None => self.err(line, "indented line outside a definition"),
            Open::Enum(_) => self.enum_value(line, t),
            Open::Def(_) => self.field(line, t),
        }
    }

    fn enum_value(&mut self, line: usize, t: &str) {
        let (v, name) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
        let Some(v) = num(v) else {
            return self.err(
                line,
                format!("enum value line must be `<value> <Name>`, got `{t}`"),
            );
        };
        if name.trim().is_empty() {
            return self.err(line, "enum value without a name");
        }
        if let Open::Enum(e) = &mut self.open {
            e.values.push((v, name.trim().to_string()));
        }
    }

    fn inline_value(&mut self, line: usize, t: &str) {
        let (v, name) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
        let v = num(v);
        let name = name.trim().to_string();
        let mut bad = None;
        match (&mut self.open, v) {
            (Open::Def(d), Some(v)) if !name.is_empty() => match d.fields.last_mut() {
                Some(Field {
                    ty: FieldType::InlineEnum(vals),
                    ..
                }) => vals.push((v, name)),
                _ => bad = Some("`= value Name` must follow a field of type `enum` (inline)"),
            },
            _ => {
                bad = Some(
                    "inline enum value must be `= <value> <Name>` under an inline `enum` field",
                )
            }
        }
        if let Some(b) = bad {
            self.err(line, b);
        }
    }

    fn field(&mut self, line: usize, t: &str) {
        let usage = format!("field line must be `<dw> <hi>[:<lo>] <Name> : <type>`, got `{t}`");
        fn word(s: &str) -> Option<(&str, &str)> {
            let s = s.trim_start();
            let end = s.find(char::is_whitespace)?;
            Some((&s[..end], &s[end..]))
        }
        let Some((dw, rest)) = word(t) else {
            return self.err(line, usage);
        };
        let Some((bits, rest)) = word(rest) else {
            return self.err(line, usage);
        };
        let Some((name, rhs)) = rest.split_once(':') else {
            return self.err(line, usage);
        };
        let name = name.trim().to_string();
        let Some(dw) = num(dw) else {
            return self.err(line, format!("bad dword index `{dw}`"));
        };
        let dw = dw as u32;
        let loc = Loc {
            file: self.file.to_string(),
            line,
        };
        let toks: Vec<&str> = rhs.split_whitespace().collect();
        if toks.is_empty() {
            return self.err(line, "missing type after `:`");
        }
        let mut i = 0;
        let ty = match toks[0] {
            "u" => FieldType::U,
            "s" => FieldType::S,
            "bool" => FieldType::Bool,
            "mbz" => FieldType::Mbz,
            "length" => FieldType::Length,
            "address" => FieldType::Address,
            "float" => FieldType::Float,
            "enum" => {
                if toks
                    .get(1)
                    .is_some_and(|n| !["=", "->", "overlay"].contains(n))
                {
                    i += 1;
                    FieldType::Enum(toks[1].to_string())
                } else {
                    FieldType::InlineEnum(vec![])
                }
            }
            "offset" => {
                i += 1;
                match toks.get(1).and_then(|b| Base::parse(b)) {
                    Some(b) => FieldType::Offset(b),
                    None => return self.err(line, "`offset` needs a base: general surface dynamic indirect instruction bindingtable none"),
                }
            }
            "ufixed" | "sfixed" => {
                i += 1;
                let parsed = toks
                    .get(1)
                    .and_then(|f| f.split_once('.'))
                    .and_then(|(a, b)| Some((num(a)? as u32, num(b)? as u32)));
                match parsed {
                    Some((a, b)) if toks[0] == "ufixed" => FieldType::UFixed(a, b),
                    Some((a, b)) => FieldType::SFixed(a, b),
                    None => return self.err(line, format!("`{}` needs `<int>.<frac>`", toks[0])),
                }
            }
            other => {
                if let Some((elem, cnt)) = other.split_once('[') {
                    let Some(cnt) = cnt.strip_suffix(']') else {
                        return self.err(line, format!("bad array type `{other}`"));
                    };
                    let count = if cnt.is_empty() {
                        None
                    } else {
                        match num(cnt) {
                            Some(n) if n > 0 => Some(n as u32),
                            _ => return self.err(line, format!("bad array count `{cnt}`")),
                        }
                    };
                    FieldType::Array {
                        elem: elem.to_string(),
                        count,
                    }
                } else if other
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                    // A camelCase manual name (seed 003's `oMask_Message_Data_Payload_Register`).
                    || other.chars().any(|c| c.is_ascii_uppercase())
                {
                    FieldType::Struct(other.to_string())
                } else {
                    return self.err(line, format!("unknown type `{other}`"));
                }
            }
        };
        i += 1;
        let mut fixed = None;
        let mut target = None;
        let mut overlay = false;
        while i < toks.len() {
            match toks[i] {
                "=" => {
                    match toks.get(i + 1).and_then(|v| num(v)) {
                        Some(v) => fixed = Some(v),
                        None => self.err(line, "`=` needs a number"),
                    }
                    i += 2;
                }
                "->" => {
                    // The target may contain spaces inside [...] (a field name).
                    let rest = toks[i + 1..].join(" ");
                    let (tgt, after) = match rest.find('[') {
                        Some(b) if !rest[..b].contains(' ') => match rest[b..].find(']') {
                            Some(e) => {
                                (rest[..b + e + 1].to_string(), rest[b + e + 1..].to_string())
                            }
                            None => (rest.clone(), String::new()),
                        },
                        _ => {
                            let (a, b) = rest.split_once(' ').unwrap_or((&rest, ""));
                            (a.to_string(), b.to_string())
                        }
                    };
                    target = self.target(line, &tgt);
                    let after: Vec<&str> = after.split_whitespace().collect();
                    for a in after {
                        if a == "overlay" {
                            overlay = true;
                        } else {
                            self.err(line, format!("unexpected `{a}` after target"));
                        }
                    }
                    break;
                }
                "overlay" => {
                    overlay = true;
                    i += 1;
                }
                other => {
                    self.err(line, format!("unexpected `{other}` in field type"));
                    i += 1;
                }
            }
        }
        let (start, end) = if bits == "*" {
            match &ty {
                FieldType::Array { .. } => (dw * 32, dw * 32), // end fixed up in check
                _ => return self.err(line, "`*` position is only for arrays of structs"),
            }
        } else {
            let (hi, lo) = match bits.split_once(':') {
                Some((h, l)) => (num(h), num(l)),
                None => (num(bits), num(bits)),
            };
            match (hi, lo) {
                (Some(h), Some(l)) if h >= l && h < 4096 => {
                    (dw * 32 + l as u32, dw * 32 + h as u32)
                }
                _ => {
                    return self.err(
                        line,
                        format!("bad bit range `{bits}` (want hi:lo with hi >= lo)"),
                    );
                }
            }
        };
        let f = Field {
            name,
            start,
            end,
            ty,
            fixed,
            target,
            overlay,
            loc,
        };
        if let Open::Def(d) = &mut self.open {
            d.fields.push(f);
        }
    }

    fn target(&mut self, line: usize, t: &str) -> Option<Target> {
        if t == "kernel" {
            return Some(Target::Kernel);
        }
        let (name, count) = match t.split_once('[') {
            Some((n, c)) => {
                let Some(c) = c.strip_suffix(']') else {
                    self.err(line, format!("bad target `{t}`"));
                    return None;
                };
                let count = if c == "?" {
                    Count::Unknown
                } else if let Some(n) = num(c) {
                    Count::Fixed(n as u32)
                } else {
                    Count::Field(c.to_string())
                };
                (n, count)
            }
            None => (t, Count::One),
        };
        if name.is_empty() {
            self.err(line, "`->` needs a target");
            return None;
        }
        Some(Target::Struct {
            name: name.to_string(),
            count,
        })
    }
}

/// Parses one file's text into `spec`, returning the problems found.
pub fn parse_into(spec: &mut Spec, file: &str, text: &str) -> Vec<SpecError> {
    let mut p = Parser {
        file,
        spec,
        errors: vec![],
        open: Open::None,
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let code = match raw.find('#') {
            Some(h) => &raw[..h],
            None => raw,
        };
        if code.trim().is_empty() {
            continue;
        }
        if code.starts_with(char::is_whitespace) {
            p.body(line, code);
        } else {
            p.header(line, code.trim_end());
        }
    }
    p.close();
    p.errors
}

/// Parses every `*.spec` file of a directory, in name order.
pub fn parse_dir(dir: &Path) -> Result<(Spec, Vec<SpecError>), std::io::Error> {
    let mut files: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "spec"))
        .collect();
    files.sort();
    let mut spec = Spec::default();
    let mut errors = vec![];
    for f in files {
        let text = std::fs::read_to_string(&f)?;
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        errors.extend(parse_into(&mut spec, &name, &text));
    }
    Ok((spec, errors))
}
