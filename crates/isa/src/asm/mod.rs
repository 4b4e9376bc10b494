//! The assembler: the syntax the disassembler prints (Mesa's `INTEL_DEBUG` dump syntax,
//! DISASM_SYNTAX.md) back to instructions. Labels (`LABEL0:` or any `name:` line) name
//! branch targets; Mesa's dump decorations (`START B0 ...`, `END B1 ->B2`) are skipped.
//! Fields the text does not show take the values Mesa's compiler gives them.

use crate::Encoding;
use crate::ir::*;
use crate::opcode::{Kind, Opcode};
use operand::{operands, parse_dst, parse_src};
use std::collections::BTreeMap;

mod gen11;
mod operand;

/// When to use the 64-bit compacted form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compaction {
    /// Exactly where the text says `compacted` (fails if the tables cannot express it).
    AsWritten,
    /// Wherever the tables allow it (except branches, whose targets move with sizes).
    Auto,
    /// Never.
    Never,
}

/// A problem in the assembly text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {msg}")]
pub struct AsmError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub msg: String,
}

fn err<T>(line: usize, msg: impl Into<String>) -> Result<T, AsmError> {
    Err(AsmError {
        line,
        msg: msg.into(),
    })
}

fn strip_comments(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        match rest[i..].find("*/") {
            Some(j) => rest = &rest[i + j + 2..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// One parsed instruction line and where its label references point.
struct Parsed {
    line: usize,
    ins: Instruction,
    jip: Option<String>,
    uip: Option<String>,
    /// Dword 3 as the text gives it (a send's register descriptor), to check.
    dword3: Option<u32>,
}

/// The operands Mesa's compiler gives a Gen7 branch, which the text does not show: dst
/// null:D (align16: write mask .xyzw), src0 null:D and an immediate src1 whose type is W
/// for if/else/endif/while and D for break/cont/halt (the JIP/UIP dword replaces its
/// value). src0's region is <0,1,0> for `if` and <8,8,1> for the others; in align16 the
/// same vertical strides 0 and 4 with the identity swizzle. Source: the bytes of Mesa's
/// assembler tests (src/intel/tools/tests/gen7/{if,else,endif,while,break,halt}.expected)
/// and of the Mesa 22.3 corpus (tests/corpus), decoded field by field.
fn branch_operands(opcode: Opcode, align16: bool) -> (Dst, Vec<Src>) {
    let is_if = opcode == Opcode::If;
    let dst = Dst {
        file: RegFile::Arf,
        nr: 0,
        subnr: 0,
        ty: Type::D,
        layout: if align16 {
            DstLayout::WriteMask(0xf)
        } else {
            DstLayout::HStride(1)
        },
        address: Address::Direct,
    };
    let layout = match (align16, is_if) {
        (true, _) => Layout::Swizzle {
            vstride: if is_if { 0 } else { 4 },
            swizzle: [0, 1, 2, 3],
        },
        (false, true) => Layout::Region(Region {
            vstride: Some(0),
            width: 1,
            hstride: 0,
        }),
        (false, false) => Layout::Region(Region {
            vstride: Some(8),
            width: 8,
            hstride: 1,
        }),
    };
    let src0 = Src::Reg {
        file: RegFile::Arf,
        nr: 0,
        subnr: 0,
        ty: Type::D,
        layout,
        address: Address::Direct,
        negate: false,
        abs: false,
    };
    let ty = match opcode {
        Opcode::If | Opcode::Else | Opcode::Endif | Opcode::While => Type::W,
        _ => Type::D,
    };
    (dst, vec![src0, Src::Imm { ty, bits: 0 }])
}

/// The shared function named at the start of `words` (the message line after a send):
/// the disassembler's names, one to three words. VME has no name in Gen7's syntax; Mesa
/// 22.3 prints it `rt accel` on Gen11.
pub(crate) fn parse_sfid(enc: Encoding, words: &[String]) -> Option<Sfid> {
    (1..=3).rev().find_map(|n| {
        let name = words.get(..n)?.join(" ");
        match (enc, name.as_str()) {
            (Encoding::IceLake, "rt accel") => Some(Sfid::Vme),
            (Encoding::IvyBridge, _) => Sfid::from_mnemonic(&name)
                .filter(|s| !matches!(s, Sfid::Vme | Sfid::DataPortDataCache1 | Sfid::Cre)),
            (Encoding::IceLake, _) => Sfid::from_mnemonic(&name).filter(|s| *s != Sfid::Vme),
        }
    })
}

/// A flag register or subregister number: 0 or 1 (f0.0 .. f1.1).
fn flag_part(s: &str) -> Option<u8> {
    match s {
        "0" => Some(0),
        "1" => Some(1),
        _ => None,
    }
}

fn parse_line(enc: Encoding, line: usize, text: &str) -> Result<Parsed, AsmError> {
    let text = strip_comments(text);
    if text.trim().trim_end_matches(';').trim() == "nop" {
        // `nop` prints no exec size or options: it is the all-zero instruction but its
        // opcode.
        let mut ins = Instruction::new(Opcode::Nop);
        ins.dst.layout = DstLayout::HStride(0);
        ins.exec_size = 1;
        return Ok(Parsed {
            line,
            ins,
            jip: None,
            uip: None,
            dword3: None,
        });
    }
    let Some(open) = text.rfind('{') else {
        return err(line, "missing `{ options };`");
    };
    let body = &text[..open];
    let opts: Vec<&str> = text[open + 1..]
        .trim_end()
        .trim_end_matches(';')
        .trim_end()
        .trim_end_matches('}')
        .split_whitespace()
        .collect();
    let align16 = opts.contains(&"align16");
    let mut rest = body.trim();
    // Predicate.
    let mut pred: Option<(bool, u8, u8, String)> = None;
    if let Some(r) = rest.strip_prefix('(') {
        let Some(close) = r.find(')') else {
            return err(line, "unclosed predicate");
        };
        let p = &r[..close];
        let bad_pred = || AsmError {
            line,
            msg: format!("bad predicate `({p})`: want (+f0.0) .. (-f1.1)[.mode]"),
        };
        let (inverse, body) = match (p.strip_prefix('+'), p.strip_prefix('-')) {
            (Some(b), _) => (false, b),
            (_, Some(b)) => (true, b),
            _ => return Err(bad_pred()),
        };
        let parts: Vec<&str> = body.split('.').collect();
        let (Some(f), Some(s)) = (
            parts.first().and_then(|f| flag_part(f.strip_prefix('f')?)),
            parts.get(1).and_then(|n| flag_part(n)),
        ) else {
            return Err(bad_pred());
        };
        if parts.len() > 3 {
            return Err(bad_pred());
        }
        pred = Some((inverse, f, s, parts.get(2).unwrap_or(&"").to_string()));
        rest = r[close + 1..].trim_start();
    }
    // Mnemonic with modifiers, then (exec size).
    let Some(paren) = rest.find('(') else {
        return err(line, "missing execution size `(n)`");
    };
    let head = &rest[..paren];
    let Some(close) = rest[paren..].find(')') else {
        return err(line, "unclosed execution size");
    };
    let exec: u8 = match rest[paren + 1..paren + close].parse() {
        Ok(v) => v,
        Err(_) => return err(line, "bad execution size"),
    };
    let ops_text = &rest[paren + close + 1..];
    let (mnemonic, math_fn) = match head.split_once(' ') {
        Some((m, f)) => (m, Some(f.trim())),
        None => (head, None),
    };
    let mut parts = mnemonic.split('.');
    let base = parts.next().unwrap_or("");
    let Some(opcode) = Opcode::from_mnemonic(base) else {
        return err(line, format!("unknown opcode `{base}`"));
    };
    let mut ins = Instruction::new(opcode);
    ins.align16 = align16;
    ins.exec_size = exec;
    let mods: Vec<&str> = parts.collect();
    let mut i = 0;
    while i < mods.len() {
        match mods[i] {
            "sat" => ins.saturate = true,
            "breakpoint" => ins.debug = true,
            m if m.starts_with('f') && m[1..].bytes().all(|b| b.is_ascii_digit()) => {
                let (Some(f), Some(s)) = (
                    flag_part(&m[1..]),
                    mods.get(i + 1).and_then(|s| flag_part(s)),
                ) else {
                    return err(
                        line,
                        format!("bad flag register `.{m}`: want .f0.0, .f0.1, .f1.0 or .f1.1"),
                    );
                };
                ins.flag = (f, s);
                i += 1;
            }
            m => match CondModifier::from_mnemonic(m) {
                Some(c) => ins.cond_modifier = Some(c),
                None => return err(line, format!("unknown modifier `.{m}`")),
            },
        }
        i += 1;
    }
    if let Some(f) = math_fn {
        match MathFunction::from_mnemonic(f) {
            Some(m) => ins.math = Some(m),
            None => return err(line, format!("unknown math function `{f}`")),
        }
    }
    if let Some((inverse, f, s, suffix)) = pred {
        let control = match (align16, suffix.is_empty()) {
            (false, true) => Some(PredControl::Align1(Align1Predicate::Normal)),
            (true, true) => Some(PredControl::Align16(Align16Predicate::Normal)),
            (false, false) => Align1Predicate::from_mnemonic(&suffix).map(PredControl::Align1),
            (true, false) => Align16Predicate::from_mnemonic(&suffix).map(PredControl::Align16),
        }
        .ok_or(AsmError {
            line,
            msg: format!("unknown predicate `.{suffix}`"),
        })?;
        ins.predicate = Some(Predicate { control, inverse });
        if ins.cond_modifier.is_none() || matches!(opcode, Opcode::Sel | Opcode::If | Opcode::While)
        {
            ins.flag = (f, s);
        } else if ins.flag != (f, s) {
            // One flag field serves both (IVB PRM Vol4 Part3 "Flag Register").
            return err(
                line,
                format!(
                    "the predicate reads f{f}.{s} but the conditional modifier writes f{}.{}: \
                     one instruction has one flag register",
                    ins.flag.0, ins.flag.1
                ),
            );
        }
    }
    // Options.
    for o in &opts {
        match *o {
            "align1" | "align16" => {}
            "WE_all" => ins.mask_disable = true,
            "NoDDClr" => ins.dep_control |= 1,
            "NoDDChk" => ins.dep_control |= 2,
            "NoDDClr,NoDDChk" => ins.dep_control = 3,
            "compacted" => ins.compacted = true,
            "atomic" => ins.thread_control = 1,
            "switch" => ins.thread_control = 2,
            "AccWrEnable" => ins.acc_write = true,
            // Gen8+ if/else/goto: bit 28 is Branch Control.
            "BranchCtrl" if enc == Encoding::IceLake => ins.acc_write = true,
            "EOT" => ins.eot = true,
            "1Q" | "2Q" | "3Q" | "4Q" => ins.qtr_control = o.as_bytes()[0] - b'1',
            "1H" => ins.qtr_control = 0,
            "2H" => ins.qtr_control = 2,
            "1N" | "2N" | "3N" | "4N" | "5N" | "6N" | "7N" | "8N" => {
                let v = o.as_bytes()[0] - b'1';
                ins.qtr_control = v / 2;
                ins.nib_control = v % 2 == 1;
            }
            o => return err(line, format!("unknown option `{o}`")),
        }
    }
    // Operands.
    let ops = operands(ops_text);
    // Gen7's three-source form is align16-like; Gen11's is align1 (regions).
    let three = opcode.kind() == Kind::Alu3 && enc == Encoding::IvyBridge;
    let bad = |what: &str, t: &str| AsmError {
        line,
        msg: format!("bad {what} `{t}`"),
    };
    let mut jip = None;
    let mut uip = None;
    let mut dword3 = None;
    match opcode.kind() {
        Kind::Branch => {
            (ins.dst, ins.srcs) = match enc {
                Encoding::IvyBridge => branch_operands(opcode, align16),
                Encoding::IceLake => {
                    let (dst, srcs, src1_type) = gen11::branch_operands(opcode);
                    ins.src1_type_field = src1_type;
                    (dst, srcs)
                }
            };
            let mut it = ops.iter();
            while let Some(t) = it.next() {
                match t.as_str() {
                    "JIP:" => jip = it.next().cloned(),
                    "UIP:" => uip = it.next().cloned(),
                    other => return Err(bad("branch operand", other)),
                }
            }
        }
        Kind::Send if matches!(opcode, Opcode::Sends | Opcode::Sendsc) => {
            gen11::split_send(&mut ins, &ops).map_err(|m| AsmError { line, msg: m })?;
        }
        Kind::Send => {
            let (Some(d), Some(s0)) = (ops.first(), ops.get(1)) else {
                return err(line, "send needs dst, src0 and a descriptor");
            };
            ins.dst = parse_dst(d, align16, false).ok_or_else(|| bad("destination", d))?;
            ins.srcs
                .push(parse_src(s0, align16, false).ok_or_else(|| bad("source", s0))?);
            // The descriptor: an immediate, or (Mesa's text for a descriptor in a register)
            // the src1 register followed by dword 3 as a number, which must agree with it.
            let mut k = 2;
            let word = |t: Option<&String>| {
                t.and_then(|x| x.strip_prefix("0x"))
                    .and_then(|x| u32::from_str_radix(x, 16).ok())
            };
            let first = ops.get(2).map_or("", |s| s.as_str());
            if first.starts_with("0x") {
                let desc = word(ops.get(2)).ok_or_else(|| bad("descriptor", first))?;
                ins.desc = Some(desc & 0x7fff_ffff);
                ins.eot = ins.eot || desc & (1 << 31) != 0;
                k += 1;
            } else {
                let s1 = parse_src(first, false, false).ok_or_else(|| bad("descriptor", first))?;
                if matches!(s1, Src::Imm { .. }) {
                    return Err(bad("descriptor", first));
                }
                ins.srcs.push(s1);
                k += 1;
                if let Some(t) = ops.get(k).filter(|t| t.starts_with("0x")) {
                    dword3 = Some(word(Some(t)).ok_or_else(|| bad("descriptor", t))?);
                    k += 1;
                }
            }
            let sfid_text = ops.get(k).map_or("", |s| s.as_str());
            ins.sfid = Some(
                parse_sfid(enc, ops.get(k..).unwrap_or(&[]))
                    .ok_or_else(|| bad("shared function", sfid_text))?,
            );
        }
        _ if opcode == Opcode::Jmpi => {
            // jmpi prints only its target (src1); dst and src0 are ip (IVB PRM Vol4 Part3
            // jmpi), written as the bare register in the instruction's access mode.
            let t = ops.first().ok_or_else(|| bad("jmpi target", ""))?;
            ins.dst = parse_dst("ip", align16, false).ok_or_else(|| bad("jmpi target", t))?;
            ins.srcs = vec![
                parse_src("ip", align16, false).ok_or_else(|| bad("jmpi target", t))?,
                parse_src(t, align16, false).ok_or_else(|| bad("jmpi target", t))?,
            ];
        }
        _ if opcode == Opcode::Wait => {
            // wait prints only its notification register; src0 is the same register read
            // as a scalar (align16: the written channel replicated), src1 null (align16:
            // null:F <4>.xyzw) as Mesa encodes them (the gen4asm corpus and
            // src/intel/tools/tests/gen7/wait.expected).
            let d = ops.first().ok_or_else(|| bad("wait register", ""))?;
            ins.dst = parse_dst(d, align16, false).ok_or_else(|| bad("wait register", d))?;
            let (layout, src1) = match ins.dst.layout {
                DstLayout::WriteMask(m) => (
                    Layout::Swizzle {
                        vstride: 0,
                        swizzle: [(m.trailing_zeros() as u8) & 3; 4],
                    },
                    (
                        Type::F,
                        Layout::Swizzle {
                            vstride: 4,
                            swizzle: [0, 1, 2, 3],
                        },
                    ),
                ),
                // Align1: src1 is Mesa's brw_null_reg(), null:F <8,8,1> (the bytes of
                // crocus's compute-shader barriers, Mesa 22.3 brw_WAIT).
                DstLayout::HStride(_) => {
                    let scalar = Layout::Region(Region {
                        vstride: Some(0),
                        width: 1,
                        hstride: 0,
                    });
                    let null = Layout::Region(Region {
                        vstride: Some(8),
                        width: 8,
                        hstride: 1,
                    });
                    (scalar, (Type::F, null))
                }
            };
            let reg = |file, nr, subnr, ty, layout| Src::Reg {
                file,
                nr,
                subnr,
                ty,
                layout,
                address: Address::Direct,
                negate: false,
                abs: false,
            };
            ins.srcs = vec![
                reg(ins.dst.file, ins.dst.nr, ins.dst.subnr, ins.dst.ty, layout),
                reg(RegFile::Arf, 0, 0, src1.0, src1.1),
            ];
        }
        _ => {
            if let Some(d) = ops.first() {
                ins.dst = parse_dst(d, align16, three).ok_or_else(|| bad("destination", d))?;
            }
            for s in ops.iter().skip(1) {
                ins.srcs
                    .push(parse_src(s, align16, three).ok_or_else(|| bad("source", s))?);
            }
            if ins.srcs.len() != opcode.sources() as usize && opcode != Opcode::Math {
                return err(
                    line,
                    format!(
                        "{} takes {} sources, {} given",
                        opcode.mnemonic(),
                        opcode.sources(),
                        ins.srcs.len()
                    ),
                );
            }
            // Mesa writes src0's type into the unused src1 type field of a full-size
            // instruction whose src0 is an immediate (compacted forms cannot hold it).
            if let (Some(Src::Imm { ty, .. }), false) = (ins.srcs.first(), ins.compacted)
                && ins.srcs.len() == 1
            {
                ins.src1_type_field = Some(*ty).filter(|t| *t != Type::UD);
            }
        }
    }
    Ok(Parsed {
        line,
        ins,
        jip,
        uip,
        dword3,
    })
}

/// Assembles a kernel.
pub fn assemble(text: &str, mode: Compaction) -> Result<Vec<u8>, AsmError> {
    assemble_for(Encoding::IvyBridge, text, mode)
}

/// Assembles a kernel for encoding `enc`.
pub fn assemble_for(enc: Encoding, text: &str, mode: Compaction) -> Result<Vec<u8>, AsmError> {
    // Join send's two lines; collect labels and instructions.
    let mut items: Vec<Parsed> = vec![];
    let mut label_at: BTreeMap<String, usize> = BTreeMap::new(); // label -> instruction index
    let mut pending = String::new();
    let mut pending_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if pending.is_empty() {
            if t.is_empty()
                || t.starts_with('#')
                || t.starts_with("//")
                || t.starts_with("START B")
                || t.starts_with("END B")
            {
                continue;
            }
            if let Some(name) = t.strip_suffix(':').filter(|n| !n.contains(' ')) {
                label_at.insert(name.to_string(), items.len());
                continue;
            }
            pending_line = line;
        }
        pending.push_str(t);
        pending.push(' ');
        if t.ends_with(';') {
            items.push(parse_line(enc, pending_line, &pending)?);
            pending.clear();
        }
    }
    if !pending.is_empty() {
        return err(pending_line, "instruction without its closing `;`");
    }
    // Sizes, then offsets.
    let mut compact_it = vec![false; items.len()];
    for (k, p) in items.iter().enumerate() {
        compact_it[k] = match mode {
            Compaction::AsWritten => p.ins.compacted,
            Compaction::Never => false,
            Compaction::Auto => {
                p.ins.opcode.kind() != Kind::Branch
                    && enc
                        .encode_native(&p.ins)
                        .ok()
                        .and_then(|n| enc.compact(&n))
                        .is_some()
            }
        };
    }
    let mut offsets = vec![0usize; items.len() + 1];
    for k in 0..items.len() {
        offsets[k + 1] = offsets[k] + if compact_it[k] { 8 } else { 16 };
    }
    let mut out = vec![];
    for (k, p) in items.iter_mut().enumerate() {
        let resolve = |name: &Option<String>| -> Result<Option<i32>, AsmError> {
            match name {
                None => Ok(None),
                // A byte offset relative to the branch (targets outside the kernel).
                Some(n) if n.parse::<i32>().is_ok() => Ok(n.parse::<i32>().ok()),
                Some(n) => match label_at.get(n) {
                    Some(&idx) => i32::try_from(offsets[idx] as i64 - offsets[k] as i64)
                        .map(Some)
                        .or_else(|_| err(p.line, format!("label `{n}` is out of reach"))),
                    None => err(p.line, format!("unknown label `{n}`")),
                },
            }
        };
        p.ins.jip = resolve(&p.jip)?;
        p.ins.uip = resolve(&p.uip)?.or(p.ins.uip);
        if p.ins.opcode.kind() == Kind::Branch && p.ins.uip.is_none() {
            p.ins.uip = Some(0);
        }
        p.ins.compacted = compact_it[k];
        let mut native = enc.encode_native(&p.ins).map_err(|e| AsmError {
            line: p.line,
            msg: e.to_string(),
        })?;
        // A bare `ip`/`tdr0` names its register but not its region: the number Mesa prints
        // after it gives dword 3 in full, as long as it is that direct register.
        if let (
            Some(d3),
            Some(Src::Reg {
                file: RegFile::Arf,
                nr,
                ..
            }),
        ) = (p.dword3, p.ins.srcs.get(1))
            && matches!(nr, 0xa0 | 0xb0)
            && (d3 >> 5) & 0xf0 == *nr as u32
            && d3 & (1 << 15) == 0
        {
            native[3] = d3;
        }
        if let Some(d3) = p.dword3.filter(|d| *d != native[3]) {
            return err(
                p.line,
                format!(
                    "descriptor dword {d3:#010x} does not match its register operand ({:#010x})",
                    native[3]
                ),
            );
        }
        // What the assembler writes must be an instruction the decoder accepts (the
        // operand rules of gen7/validate.rs apply to text too).
        let words: Vec<u8> = native.iter().flat_map(|d| d.to_le_bytes()).collect();
        if let Err(e) = enc.decode(&words) {
            return err(p.line, format!("not a valid instruction: {e}"));
        }
        if compact_it[k] {
            match enc.compact(&native) {
                Some(c) => out.extend(c.iter().flat_map(|d| d.to_le_bytes())),
                None => {
                    return err(
                        p.line,
                        "`compacted` asked for, but the compaction tables cannot express this instruction",
                    );
                }
            }
        } else {
            out.extend(native.iter().flat_map(|d| d.to_le_bytes()));
        }
    }
    Ok(out)
}
