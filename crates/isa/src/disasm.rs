//! The disassembler: IR to the text Mesa 22.3's `INTEL_DEBUG` shader dumps print, byte for
//! byte (the rules are collected in `crates/isa/DISASM_SYNTAX.md`; the oracle corpus in
//! `tests/corpus` holds Mesa's own output). Message descriptors of `send` are decoded
//! through the message-descriptor structures of the spec (seed 000 §2.13, §3.9).

use crate::Encoding;
use crate::ir::*;
use crate::opcode::{Kind, Opcode};
use gtsim_spec::gen7::*;
use std::collections::BTreeMap;

/// Text with Mesa's column counter: `put` counts, `raw` does not, `pad(n)` prints at least
/// one space and continues to column `n` (DISASM_SYNTAX.md §1.1).
pub(crate) struct W {
    s: String,
    col: usize,
}

impl W {
    pub(crate) fn put(&mut self, t: &str) {
        self.s.push_str(t);
        self.col += t.len();
    }
    pub(crate) fn raw(&mut self, t: &str) {
        self.s.push_str(t);
    }
    pub(crate) fn pad(&mut self, n: usize) {
        loop {
            self.put(" ");
            if self.col >= n {
                break;
            }
        }
    }
    pub(crate) fn newline(&mut self) {
        self.s.push('\n');
        self.col = 0;
    }
}

/// Labels of a kernel: byte offset -> label number.
pub type Labels = BTreeMap<usize, usize>;

fn reg_name(file: RegFile, nr: u8) -> String {
    match file {
        RegFile::Grf => format!("g{nr}"),
        RegFile::Mrf => format!("m{nr}"),
        RegFile::Imm => "imm".into(),
        // Mesa's spellings: ip and tdr0 print without an index of their own.
        RegFile::Arf => match ArfRegister::of(nr) {
            Some((ArfRegister::Null, _)) => "null".into(),
            Some((ArfRegister::Ip, _)) => "ip".into(),
            Some((ArfRegister::ThreadDependency, _)) => "tdr0".into(),
            Some((k, n)) => format!("{}{n}", k.mnemonic()),
            None => format!("ARF{nr}"),
        },
    }
}

fn bare(file: RegFile, nr: u8) -> bool {
    file == RegFile::Arf
        && matches!(
            ArfRegister::of(nr),
            Some((ArfRegister::Ip | ArfRegister::ThreadDependency, _))
        )
}

fn sub(w: &mut W, subnr: u8, ty: Type) {
    if subnr != 0 {
        w.put(&format!(".{}", subnr as u32 / ty.size()));
    }
}

fn writemask(m: u8) -> String {
    if m == 0xf {
        return String::new();
    }
    let mut s = String::from(".");
    for (i, c) in ['x', 'y', 'z', 'w'].iter().enumerate() {
        if m & (1 << i) != 0 {
            s.push(*c);
        }
    }
    s
}

fn swizzle(s: Swizzle) -> String {
    const C: [char; 4] = ['x', 'y', 'z', 'w'];
    if s == [0, 1, 2, 3] {
        String::new()
    } else if s.iter().all(|c| *c == s[0]) {
        format!(".{}", C[s[0] as usize & 3])
    } else {
        format!(
            ".{}",
            s.iter().map(|c| C[*c as usize & 3]).collect::<String>()
        )
    }
}

fn dst(w: &mut W, ins: &Instruction, enc: Encoding) {
    let d = &ins.dst;
    if enc == Encoding::IceLake {
        if ins.opcode.kind() == Kind::Alu3 {
            // Align1 three-source (Gen10+): Mesa prints the raw 8-byte-unit subregister
            // divided by the type size, and always `<1>` (brw_disasm.c dest_3src).
            w.put(&reg_name(d.file, d.nr));
            let sub = u32::from(d.subnr / 8) / d.ty.size();
            if sub != 0 {
                w.put(&format!(".{sub}"));
            }
            w.put(&format!("<1>{}", d.ty.suffix()));
            return;
        }
        if matches!(ins.opcode, Opcode::Sends | Opcode::Sendsc) {
            // Split sends: whole registers, always UD (brw_disasm.c dest).
            match d.address {
                Address::Direct => {
                    w.put(&reg_name(d.file, d.nr));
                    if d.subnr != 0 {
                        w.put(&format!(".{}", d.subnr / 16));
                    }
                    w.put("UD");
                }
                Address::Indirect { subnr, offset } => {
                    w.put("g[a0");
                    if subnr != 0 {
                        w.put(&format!(".{}", subnr / 4));
                    }
                    if offset != 0 {
                        w.put(&format!(" {offset}"));
                    }
                    w.put("]<UD");
                }
            }
            return;
        }
    }
    if ins.opcode.kind() == Kind::Alu3 {
        w.put(&format!("g{}", d.nr));
        sub(w, d.subnr, d.ty);
        let wm = if let DstLayout::WriteMask(m) = d.layout {
            m
        } else {
            0xf
        };
        w.put(&format!("<1>{}{}", writemask(wm), d.ty.suffix()));
        return;
    }
    if bare(d.file, d.nr) {
        w.put(&reg_name(d.file, d.nr));
        return;
    }
    match (d.address, d.layout) {
        (Address::Direct, DstLayout::HStride(h)) => {
            w.put(&reg_name(d.file, d.nr));
            sub(w, d.subnr, d.ty);
            w.put(&format!("<{h}>{}", d.ty.suffix()));
        }
        (Address::Indirect { subnr, offset }, DstLayout::HStride(h)) => {
            w.put("g[a0");
            // Mesa prints the subregister in elements of the type; one that is not a
            // whole number of them prints in words, with a `w` (DISASM_SYNTAX.md §3.4).
            if !(subnr as u32).is_multiple_of(d.ty.size()) {
                w.put(&format!(".{subnr}w"));
            } else if subnr != 0 {
                w.put(&format!(".{}", subnr as u32 / d.ty.size()));
            }
            if offset != 0 {
                w.put(&format!(" {offset}"));
            }
            w.put(&format!("]<{h}>{}", d.ty.suffix()));
        }
        (Address::Direct, DstLayout::WriteMask(m)) => {
            w.put(&reg_name(d.file, d.nr));
            if d.subnr != 0 {
                w.put(&format!(".{}", 16 / d.ty.size()));
            }
            w.put(&format!("<1>{}{}", writemask(m), d.ty.suffix()));
        }
        (Address::Indirect { .. }, DstLayout::WriteMask(_)) => {
            w.put("Indirect align16 address mode not supported")
        }
    }
}

/// Mesa's names of the data cache (port 0) message types, by Message Type (seed 000
/// §3.9.2.1.1 for Gen7; the same codes on Gen11, Mesa dp_dc0_msg_type_gfx7), shared by
/// both generations' message descriptions. 9 is unused.
pub(crate) const DC_MESSAGES: [&str; 14] = [
    "DC OWORD block read",
    "DC unaligned OWORD block read",
    "DC OWORD dual block read",
    "DC DWORD scattered read",
    "DC byte scattered read",
    "DC untyped surface read",
    "DC untyped atomic",
    "DC mfence",
    "DC OWORD block write",
    "",
    "DC OWORD dual block write",
    "DC DWORD scatterd write",
    "DC byte scattered write",
    "DC untyped surface write",
];

/// C's `%g` (6 significant digits, trailing zeros removed).
pub fn fmt_g(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        };
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let e = format!("{:.5e}", v);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let strip = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-4..6).contains(&exp) {
        let m = strip(mant.to_string());
        format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        strip(format!("{v:.decimals$}"))
    }
}

/// The value of a packed 8-bit restricted float (VF immediate element).
pub fn vf_to_f32(b: u8) -> f32 {
    if b & 0x7f == 0 {
        return if b & 0x80 != 0 { -0.0 } else { 0.0 };
    }
    let exp = ((b as u32 >> 4) & 7) + 127 - 3;
    f32::from_bits(((b as u32 & 0x80) << 24) | (exp << 23) | ((b as u32 & 0xf) << 19))
}

fn imm(w: &mut W, ty: Type, bits: u64) {
    let b = bits as u32;
    match ty {
        Type::UD => w.put(&format!("0x{b:08x}UD")),
        Type::D => w.put(&format!("{}D", b as i32)),
        Type::UW => w.put(&format!("0x{:04x}UW", b & 0xffff)),
        Type::W => w.put(&format!("{}W", b as u16 as i16)),
        Type::V => w.put(&format!("0x{b:08x}V")),
        Type::UV => w.put(&format!("0x{b:08x}UV")),
        Type::F => {
            w.put(&format!("0x{b:x}F"));
            w.pad(48);
            w.put(&format!(" /* {}F */", fmt_g(f32::from_bits(b) as f64)));
        }
        Type::VF => {
            w.put(&format!("0x{b:x}VF"));
            w.pad(48);
            let v: Vec<String> = (0..4)
                .map(|i| format!("{}F", fmt_g(vf_to_f32((b >> (8 * i)) as u8) as f64)))
                .collect();
            w.put(&format!("/* [{}]VF */", v.join(", ")));
        }
        other => w.raw(&format!("*** invalid immediate type {} ", other.suffix())),
    }
}

/// A three-source 16-bit immediate (brw_disasm.c src0_3src: `%dW`, `0x%04xUW`,
/// `0x%04xHF`).
fn imm16(w: &mut W, ty: Type, bits: u64) {
    let b = bits as u16;
    match ty {
        Type::W => w.put(&format!("{}W", b as i16)),
        Type::UW => w.put(&format!("0x{b:04x}UW")),
        Type::HF => w.put(&format!("0x{b:04x}HF")),
        other => w.raw(&format!("*** invalid immediate type {} ", other.suffix())),
    }
}

fn src(w: &mut W, ins: &Instruction, s: &Src, enc: Encoding) {
    let three_a1 = enc == Encoding::IceLake && ins.opcode.kind() == Kind::Alu3;
    let (file, nr, subnr, ty, layout, address, negate, abs) = match *s {
        Src::Imm { ty, bits } if three_a1 => return imm16(w, ty, bits),
        Src::Imm { ty, bits } => return imm(w, ty, bits),
        Src::Reg {
            file,
            nr,
            subnr,
            ty,
            layout,
            address,
            negate,
            abs,
        } => (file, nr, subnr, ty, layout, address, negate, abs),
    };
    if negate {
        // Gen8+ logic instructions negate bitwise (brw_disasm.c src_da1: `~`).
        let logic = matches!(
            ins.opcode,
            Opcode::And | Opcode::Not | Opcode::Or | Opcode::Xor
        );
        w.put(if enc == Encoding::IceLake && logic {
            "~"
        } else {
            "-"
        });
    }
    if abs {
        w.put("(abs)");
    }
    if enc == Encoding::IceLake && matches!(ins.opcode, Opcode::Sends | Opcode::Sendsc) {
        match address {
            Address::Direct => {
                w.put(&reg_name(file, nr));
                if subnr != 0 {
                    w.put(&format!(".{}", subnr / 16));
                }
            }
            Address::Indirect { subnr, offset } => {
                w.put("g[a0");
                if subnr != 0 {
                    w.put(&format!(".{subnr}"));
                }
                if offset != 0 {
                    w.put(&format!(" {offset}"));
                }
                w.put("]");
            }
        }
        w.put("UD");
        return;
    }
    if three_a1 {
        // Align1 three-source regions (brw_disasm.c src0_3src..src2_3src): a scalar
        // region always prints its subregister.
        w.put(&reg_name(file, nr));
        if let Layout::Region(r) = layout {
            let scalar = r.vstride == Some(0) && r.width == 1 && r.hstride == 0;
            if subnr != 0 || scalar {
                w.put(&format!(".{}", subnr as u32 / ty.size()));
            }
            w.put(&format!(
                "<{},{},{}>{}",
                r.vstride.unwrap_or(0),
                r.width,
                r.hstride,
                ty.suffix()
            ));
        }
        return;
    }
    if ins.opcode.kind() == Kind::Alu3 {
        w.put(&format!("g{nr}"));
        match layout {
            Layout::Region(_) => {
                w.put(&format!(".{}", subnr as u32 / ty.size()));
                w.put(&format!("<0,1,0>{}", ty.suffix()));
            }
            Layout::Swizzle { swizzle: sw, .. } => {
                sub(w, subnr, ty);
                w.put(&format!("<4,4,1>{}{}", swizzle(sw), ty.suffix()));
            }
        }
        return;
    }
    if bare(file, nr) {
        w.put(&reg_name(file, nr));
        return;
    }
    match (address, layout) {
        (Address::Direct, Layout::Region(r)) => {
            w.put(&reg_name(file, nr));
            sub(w, subnr, ty);
            let vs = r.vstride.map_or("VxH".to_string(), |v| v.to_string());
            w.put(&format!("<{vs},{},{}>{}", r.width, r.hstride, ty.suffix()));
        }
        (Address::Indirect { subnr: a, offset }, Layout::Region(r)) => {
            w.put("g[a0");
            if a != 0 {
                w.put(&format!(".{a}"));
            }
            if offset != 0 {
                w.put(&format!(" {offset}"));
            }
            let vs = r.vstride.map_or("VxH".to_string(), |v| v.to_string());
            w.put(&format!("]<{vs},{},{}>{}", r.width, r.hstride, ty.suffix()));
        }
        (
            Address::Direct,
            Layout::Swizzle {
                vstride,
                swizzle: sw,
            },
        ) => {
            w.put(&reg_name(file, nr));
            if subnr != 0 {
                w.put(&format!(".{}", 16 / ty.size()));
            }
            w.put(&format!("<{vstride}>{}{}", swizzle(sw), ty.suffix()));
        }
        (Address::Indirect { .. }, Layout::Swizzle { .. }) => {
            w.put("Indirect align16 address mode not supported")
        }
    }
}

fn head(w: &mut W, ins: &Instruction) {
    if let Some(p) = ins.predicate {
        w.put(&format!(
            "({}f{}.{}{}) ",
            if p.inverse { '-' } else { '+' },
            ins.flag.0,
            ins.flag.1,
            p.control.suffix()
        ));
    }
    w.put(ins.opcode.mnemonic());
    if ins.saturate && !matches!(ins.opcode, Opcode::Send | Opcode::Sendc) {
        w.put(".sat");
    }
    if ins.debug {
        w.put(".breakpoint");
    }
    match ins.opcode.kind() {
        Kind::Math => w.put(&format!(
            " {}",
            ins.math.map_or("unknown", |f| f.mnemonic())
        )),
        Kind::Send => {}
        _ if ins.cond_modifier.is_some() => {
            w.put(&format!(
                ".{}",
                ins.cond_modifier.map_or("", |c| c.mnemonic())
            ));
            if !matches!(ins.opcode, Opcode::Sel | Opcode::If | Opcode::While) {
                w.put(&format!(".f{}.{}", ins.flag.0, ins.flag.1));
            }
        }
        _ => {}
    }
    if ins.opcode != Opcode::Nop {
        w.put(&format!("({})", ins.exec_size));
    }
}

fn options(w: &mut W, ins: &Instruction, enc: Encoding) {
    w.put("{");
    w.put(if ins.align16 { " align16" } else { " align1" });
    if ins.mask_disable {
        w.put(" WE_all");
    }
    match ins.dep_control {
        1 => w.put(" NoDDClr"),
        2 => w.put(" NoDDChk"),
        3 => w.put(" NoDDClr,NoDDChk"),
        _ => {}
    }
    if ins.exec_size < 8 || ins.nib_control {
        w.put(&format!(
            " {}N",
            ins.qtr_control * 2 + ins.nib_control as u8 + 1
        ));
    } else if ins.exec_size == 8 {
        w.put(&format!(" {}Q", ins.qtr_control + 1));
    } else if ins.exec_size == 16 {
        w.put(if ins.qtr_control < 2 { " 1H" } else { " 2H" });
    }
    if ins.compacted {
        w.put(" compacted");
    }
    match ins.thread_control {
        1 => w.put(" atomic"),
        2 => w.put(" switch"),
        _ => {}
    }
    // Gen8+ if/else/goto read bit 28 as Branch Control (brw_disasm.c has_branch_ctrl).
    let branch_ctrl =
        enc == Encoding::IceLake && matches!(ins.opcode, Opcode::If | Opcode::Else | Opcode::Goto);
    if ins.acc_write {
        w.put(if branch_ctrl {
            " BranchCtrl"
        } else {
            " AccWrEnable"
        });
    }
    if ins.eot {
        w.put(" EOT");
    }
    w.put(" };");
}

/// A branch target: its label, or (gtsim extension, where Mesa would print nothing
/// because the target has no label, e.g. outside the kernel) the signed byte offset.
fn label(w: &mut W, labels: &Labels, target: Option<usize>, offset: usize) {
    match target.map(|t| (t, labels.get(&t))) {
        Some((_, Some(n))) => w.put(&format!(" LABEL{n}")),
        Some((t, None)) => w.put(&format!(" {}", t as i64 - offset as i64)),
        None => {}
    }
}

/// Formats one Gen7 instruction at byte `offset` of its kernel.
pub fn format(ins: &Instruction, offset: usize, labels: &Labels) -> String {
    format_for(Encoding::IvyBridge, ins, offset, labels)
}

/// Formats one instruction of encoding `enc` at byte `offset` of its kernel.
pub fn format_for(enc: Encoding, ins: &Instruction, offset: usize, labels: &Labels) -> String {
    let mut w = W {
        s: String::new(),
        col: 0,
    };
    head(&mut w, ins);
    let target = |d: Option<i32>| d.map(|d| (offset as i64 + d as i64) as usize);
    match ins.opcode {
        Opcode::Nop => {
            w.pad(64);
            w.put(";");
            return w.s;
        }
        // brd/brc/call/ret: Mesa prints no operands (it never emits them on Gen7); gtsim
        // prints their targets like the other branches so the text keeps them.
        Opcode::If
        | Opcode::Break
        | Opcode::Cont
        | Opcode::Halt
        | Opcode::Else
        | Opcode::Endif
        | Opcode::While
        | Opcode::Brd
        | Opcode::Brc
        | Opcode::Call
        | Opcode::Ret => {
            w.pad(16);
            w.put("JIP: ");
            label(&mut w, labels, target(ins.jip), offset);
            if has_uip(enc, ins.opcode) {
                w.pad(38);
                w.put("UIP: ");
                label(&mut w, labels, target(ins.uip), offset);
            }
        }
        Opcode::Jmpi => {
            w.pad(16);
            if let Some(s) = ins.srcs.get(1) {
                src(&mut w, ins, s, enc);
            }
        }
        Opcode::Wait => {
            w.pad(16);
            dst(&mut w, ins, enc);
        }
        Opcode::Sends | Opcode::Sendsc => {
            w.pad(16);
            dst(&mut w, ins, enc);
            for (i, s) in ins.srcs.iter().take(2).enumerate() {
                w.pad(32 + 16 * i);
                src(&mut w, ins, s, enc);
            }
            crate::gen11::message::split_send_descriptors(&mut w, ins);
        }
        Opcode::Send | Opcode::Sendc => {
            w.pad(16);
            dst(&mut w, ins, enc);
            w.pad(32);
            if let Some(s) = ins.srcs.first() {
                src(&mut w, ins, s, enc);
            }
            w.pad(48);
            match (ins.desc, ins.srcs.get(1)) {
                (Some(d), _) => {
                    w.raw(&format!("0x{:08x}", d | (ins.eot as u32) << 31));
                    w.newline();
                    w.pad(16);
                    w.raw("            ");
                    if enc == Encoding::IceLake {
                        crate::gen11::message::message(&mut w, ins, d);
                    } else {
                        message(&mut w, ins.sfid, d);
                    }
                }
                (None, Some(s)) => {
                    src(&mut w, ins, s, enc);
                    // Mesa also prints dword 3 (the register operand's encoding) as a
                    // number (src/intel/tools/tests/gen7/send.asm).
                    if let Ok(native) = enc.encode_native(ins) {
                        w.pad(64);
                        w.raw(&format!("0x{:08x}", native[3]));
                    }
                    w.newline();
                    w.pad(16);
                    w.raw("            ");
                    w.put(&format!("{} MsgDesc: indirect", sfid_name(ins.sfid)));
                }
                _ => {}
            }
        }
        _ => {
            w.pad(16);
            dst(&mut w, ins, enc);
            let n = ins.opcode.sources() as usize;
            for (i, s) in ins.srcs.iter().take(n).enumerate() {
                w.pad(32 + 16 * i.min(2));
                src(&mut w, ins, s, enc);
            }
        }
    }
    w.pad(64);
    options(&mut w, ins, enc);
    w.s
}

fn has_uip(enc: Encoding, op: Opcode) -> bool {
    match enc {
        Encoding::IvyBridge => matches!(
            op,
            Opcode::If | Opcode::Break | Opcode::Cont | Opcode::Halt | Opcode::Brc
        ),
        Encoding::IceLake => crate::gen11::has_uip(op),
    }
}

/// A pixel interpolator descriptor as Mesa's brw_disasm prints it, the same on Gen7 and
/// Gen11: " (persp|linear, the location, the message data)" (no seed describes it).
pub(crate) fn pixel_interpolator(desc: u32) -> String {
    const LOCATIONS: [&str; 4] = [
        "per_message_offset",
        "sample_position",
        "centroid",
        "per_slot_offset",
    ];
    format!(
        " ({}, {}, 0x{:02x})",
        if (desc >> 14) & 1 != 0 {
            "linear"
        } else {
            "persp"
        },
        LOCATIONS[((desc >> 12) & 3) as usize],
        desc & 0xff
    )
}

pub(crate) fn sfid_name(sfid: Option<Sfid>) -> String {
    sfid.map_or("*** invalid SFID value ".into(), |s| {
        s.mnemonic().to_string()
    })
}

const SIMD: [&str; 4] = ["SIMD4x2", "SIMD8", "SIMD16", "SIMD32/64"];
const RT_SUBTYPE: [&str; 8] = [
    "SIMD16",
    "SIMD16/RepData",
    "SIMD8/DualSrcLow",
    "SIMD8/DualSrcHigh",
    "SIMD8",
    "SIMD8/ImageWrite",
    "",
    "SIMD16/RepData-111",
];

/// The second line of a send: the shared function and its decoded descriptor.
fn message(w: &mut W, sfid: Option<Sfid>, desc: u32) {
    w.put(&sfid_name(sfid));
    w.put(" MsgDesc:");
    match sfid {
        Some(Sfid::Sampler) => {
            if let Ok(d) = MessageDescriptorSamplingEngine::unpack(&[desc]) {
                // The spec's names (seed 000 §2.13.1.3.1), in lower case as Mesa prints
                // them (`lod`).
                let t = d.message_type.name().unwrap_or("").to_ascii_lowercase();
                w.put(&format!(
                    " {t} {} Surface = {} Sampler = {}",
                    SIMD[d.simd_mode.0 as usize & 3],
                    d.binding_table_index,
                    d.sampler_index
                ));
            }
        }
        Some(Sfid::DataPortRenderCache) => {
            if let Ok(d) =
                MessageDescriptorRenderTargetWrite::unpack(&[desc & !(0xf << 14) | (12 << 14)])
            {
                let msg_type = (desc >> 14) & 0xf;
                if msg_type == 12 {
                    w.put(&format!(
                        " RT write {}",
                        RT_SUBTYPE[d.message_subtype.0 as usize & 7]
                    ));
                    if d.slot_group_select.0 != 0 {
                        w.put(" Hi");
                    }
                    if d.last_render_target_select {
                        w.put(" LastRT");
                    }
                } else {
                    let name = match msg_type {
                        4 => "media block read",
                        5 => "typed surface read",
                        6 => "typed atomic op",
                        7 => "memory fence",
                        10 => "media block write",
                        13 => "typed surface write",
                        _ => "",
                    };
                    w.put(&format!(" {name} MsgCtrl = 0x{}", (desc >> 8) & 0x3f));
                }
                w.put(&format!(" Surface = {}", d.binding_table_index));
            }
        }
        Some(Sfid::Urb) => {
            if let Ok(d) = MessageDescriptorUrb::unpack(&[desc]) {
                w.put(&format!(
                    " offset {} {}",
                    d.global_offset,
                    d.urb_opcode.name().unwrap_or("")
                ));
                if d.per_slot_offset {
                    w.put(" per-slot");
                }
                if d.interleave {
                    w.put(" interleave");
                }
                if d.complete {
                    w.put(" complete");
                }
            }
        }
        Some(Sfid::Gateway) => {
            const GW: [&str; 8] = [
                "open",
                "close",
                "forward msg",
                "get timestamp",
                "barrier msg",
                "update state",
                "mmio read/write",
                "",
            ];
            w.put(&format!(" ({})", GW[desc as usize & 7]));
        }
        Some(Sfid::ThreadSpawner) => {}
        Some(Sfid::DataPortSamplerCache | Sfid::DataPortConstantCache) => w.put(&format!(
            " (bti {}, msg_ctrl {}, msg_type {}, write_commit {})",
            desc & 0xff,
            (desc >> 8) & 0x3f,
            (desc >> 14) & 0x7,
            (desc >> 17) & 1
        )),
        Some(Sfid::DataPortDataCache) => {
            // Data cache (seed 000 §3.9.2.1.1 message types); the text follows the newer
            // Mesa form (DISASM_SYNTAX.md marks it unsure: no Gen7 client here emits it).
            let msg_type = (desc >> 14) & 0xf;
            // Untyped atomics name their operation (seed 000 §3.9.9.5 atomic operation
            // types, `AOP_ADD` printed `add` as Mesa does) instead of the control bits.
            // Mesa prints the operation through its `control` helper, which puts a space
            // before it after the message type: two spaces follow "bti N,".
            // OWord block reads and writes print their block size and alignment bits
            // ("owords = 2, aligned = 0", Mesa 22.3's dp_oword_block_rw table).
            let msg_ctrl = (desc >> 8) & 0x3f;
            let owords = ["1-low", "1-high", "2", "4", "8"].get((msg_ctrl & 7) as usize);
            let ctrl = match DataPortAtomicOperationType((desc >> 8) & 0xf).name() {
                Some(op) if msg_type == 6 => {
                    format!(" {}", op.trim_start_matches("AOP_").to_ascii_lowercase())
                }
                _ if matches!(msg_type, 0 | 8) && owords.is_some() => format!(
                    "owords = {}, aligned = {}",
                    owords.copied().unwrap_or_default(),
                    (msg_ctrl >> 3) & 3
                ),
                _ => msg_ctrl.to_string(),
            };
            w.put(&format!(
                " ({}, bti {}, {ctrl})",
                DC_MESSAGES.get(msg_type as usize).copied().unwrap_or(""),
                desc & 0xff,
            ));
        }
        Some(Sfid::PixelInterpolator) => w.put(&pixel_interpolator(desc)),
        _ => {
            w.put(&format!("unsupported shared function ID {sfid:?}"));
        }
    }
    w.put(&format!(" mlen {}", (desc >> 25) & 0xf));
    w.put(&format!(" rlen {}", (desc >> 20) & 0x1f));
}

/// Labels for every branch target of a kernel (Mesa brw_label_assembly: UIP before JIP,
/// numbered in order of creation). Only targets the text can name get one: the start of
/// an instruction, or the end of the kernel (one past the last instruction); other targets
/// print as byte offsets.
pub fn labels(instructions: &[(usize, Instruction)]) -> Labels {
    labels_for(Encoding::IvyBridge, instructions)
}

/// [`labels`] for a kernel of encoding `enc`.
pub fn labels_for(enc: Encoding, instructions: &[(usize, Instruction)]) -> Labels {
    let end = instructions
        .last()
        .map_or(0, |(o, i)| o + if i.compacted { 8 } else { 16 });
    let starts: std::collections::BTreeSet<usize> =
        instructions.iter().map(|(o, _)| *o).chain([end]).collect();
    let mut l = Labels::new();
    for (off, ins) in instructions {
        let mut add = |d: Option<i32>| {
            if let Some(d) = d
                && let Ok(t) = usize::try_from(*off as i64 + d as i64)
                && starts.contains(&t)
            {
                let n = l.len();
                l.entry(t).or_insert(n);
            }
        };
        match ins.opcode {
            op if has_uip(enc, op) => {
                add(ins.uip);
                add(ins.jip);
            }
            Opcode::Else | Opcode::Endif | Opcode::While => add(ins.jip),
            _ => {}
        }
    }
    l
}

/// A disassembly listing: the text of every instruction decoded, and where decoding
/// stopped if it did (the byte offset and why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// One entry per line: instructions, and `LABELn:` lines (each after an empty line).
    pub lines: Vec<String>,
    /// The first undecodable instruction, if any: its byte offset and the error.
    pub error: Option<(usize, crate::gen7::DecodeError)>,
}

/// Disassembles a kernel as far as it decodes. With `hex`, each instruction line starts
/// with its bytes (as `INTEL_DEBUG=hex` prints them). Labels of targets past the last
/// decoded instruction's end are not printed when decoding stopped early.
pub fn listing(bytes: &[u8], hex: bool) -> Listing {
    listing_for(Encoding::IvyBridge, bytes, hex)
}

/// [`listing`] for a kernel of encoding `enc`.
pub fn listing_for(enc: Encoding, bytes: &[u8], hex: bool) -> Listing {
    let mut ins = vec![];
    let mut lens = vec![];
    let mut off = 0;
    let mut error = None;
    while off < bytes.len() {
        match enc.decode(&bytes[off..]) {
            Ok((i, len)) => {
                ins.push((off, i));
                lens.push(len);
                off += len;
            }
            Err(e) => {
                error = Some((off, e));
                break;
            }
        }
    }
    let labels = labels_for(enc, &ins);
    let mut lines = vec![];
    let label_line = |lines: &mut Vec<String>, at: usize| {
        if let Some(n) = labels.get(&at) {
            lines.push(String::new());
            lines.push(format!("LABEL{n}:"));
        }
    };
    for ((o, i), len) in ins.iter().zip(&lens) {
        label_line(&mut lines, *o);
        let mut line = String::new();
        if hex {
            let h: String = bytes[*o..*o + *len]
                .iter()
                .map(|b| format!("{b:02x} "))
                .collect();
            line.push_str(&format!("{h:<48}"));
        }
        line.push_str(&format_for(enc, i, *o, &labels));
        lines.push(line);
    }
    label_line(&mut lines, off);
    Listing { lines, error }
}

/// A kernel disassembled: one entry per line (instructions, and "LABELn:" lines).
pub fn disassemble(bytes: &[u8]) -> Result<Vec<String>, crate::gen7::DecodeError> {
    disassemble_for(Encoding::IvyBridge, bytes)
}

/// [`disassemble`] for a kernel of encoding `enc`.
pub fn disassemble_for(enc: Encoding, bytes: &[u8]) -> Result<Vec<String>, crate::DecodeError> {
    let l = listing_for(enc, bytes, false);
    match l.error {
        Some((_, e)) => Err(e),
        None => Ok(l.lines),
    }
}
