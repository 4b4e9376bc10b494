//! IR to native Gen7 instructions (the inverse of `decode`).

use super::codes;
use super::*;
use crate::ir::*;
use crate::opcode::{Kind, Opcode};
use gtsim_spec::gen7::*;

fn un<E: std::fmt::Display>(e: E) -> EncodeError {
    EncodeError::Unencodable(e.to_string())
}

fn file_code(f: RegFile) -> EuRegfile {
    EuRegfile(match f {
        RegFile::Arf => 0,
        RegFile::Grf => 1,
        RegFile::Mrf => 2,
        RegFile::Imm => 3,
    })
}

/// Common header fields, as a 2-source align1 instruction (every form shares them).
fn header(ins: &Instruction) -> Result<EuInstructionAlign12src, EncodeError> {
    let opcode = (0..128)
        .map(EuOpcode)
        .find(|o| o.name() == Some(ins.opcode.mnemonic()))
        .ok_or_else(|| {
            EncodeError::Unencodable(format!("{} is not a Gen7 opcode", ins.opcode.mnemonic()))
        })?;
    let (pc, pi) = match ins.predicate {
        Some(p) => (codes::pred_control_code(p.control), p.inverse),
        None => (0, false),
    };
    let mut h = EuInstructionAlign12src {
        saturate: ins.saturate,
        debug_control: ins.debug,
        accumulator_write_control: ins.acc_write,
        execution_size: EuExecsize(exec_size_code(ins.exec_size)?),
        predicate_inverse: pi,
        predicate_control: EuPredctrl(pc),
        thread_control: EuThreadctrl(ins.thread_control as u32),
        quarter_control: EuQtrctrl(ins.qtr_control as u32),
        dependency_control: EuDepctrl(ins.dep_control as u32),
        mask_control: EuMaskctrl(ins.mask_disable as u32),
        opcode,
        nibble_control: ins.nib_control as u8,
        flag_register_number: ins.flag.0,
        flag_subregister_number: ins.flag.1,
        ..Default::default()
    };
    match ins.opcode.kind() {
        Kind::Math => {
            let f = ins.math.ok_or_else(|| {
                EncodeError::Unencodable("a math instruction without its function".into())
            })?;
            h.math_function = EuMathFunction(codes::math_function_code(f));
        }
        // The SFID shares bits 27:24 with the conditional modifier.
        Kind::Send => {
            let sfid = ins.sfid.ok_or_else(|| {
                EncodeError::Unencodable("a send without its shared function".into())
            })?;
            h.conditional_modifier = EuCondmod(codes::sfid_code(sfid));
        }
        _ => h.conditional_modifier = EuCondmod(codes::cond_modifier_code(ins.cond_modifier)),
    }
    Ok(h)
}

/// The fields every native form shares with the header. Each form has them at the
/// positions the spec gives it (the flag register fields of the three-source form
/// differ); they are copied by name, through the generated field tables, from the header
/// as encoded in the align1 two-source layout (Math Function and SFID share Conditional
/// Modifier's bits).
const HEADER_FIELDS: &[&str] = &[
    "Saturate",
    "Debug Control",
    "Accumulator Write Control",
    "Conditional Modifier",
    "Execution Size",
    "Predicate Inverse",
    "Predicate Control",
    "Thread Control",
    "Quarter Control",
    "Dependency Control",
    "Mask Control",
    "Opcode",
    "Nibble Control",
    "Flag Register Number",
    "Flag Subregister Number",
];

fn spec_field(def: &'static gtsim_spec::Def, name: &str) -> Option<&'static gtsim_spec::Field> {
    def.fields.iter().find(|f| f.name == name && !f.overlay)
}

/// A form's dwords (`dw`, its own fields packed) with the header's fields added.
fn with_header(
    mut dw: Vec<u32>,
    form: &'static gtsim_spec::Def,
    h: &EuInstructionAlign12src,
) -> Result<[u32; 4], EncodeError> {
    let hw = h.pack().map_err(un)?;
    for name in HEADER_FIELDS {
        let (Some(from), Some(to)) = (
            spec_field(EuInstructionAlign12src::DEF, name),
            spec_field(form, name),
        ) else {
            continue;
        };
        gtsim_spec::bits::set(
            &mut dw,
            to.start,
            to.end,
            gtsim_spec::bits::get(&hw, from.start, from.end),
        );
    }
    Ok(words(dw))
}

fn words(v: Vec<u32>) -> [u32; 4] {
    [v[0], v[1], v[2], v[3]]
}

/// Encodes one instruction in native form.
pub fn encode_native(ins: &Instruction) -> Result<[u32; 4], EncodeError> {
    let h = header(ins)?;
    let mut dw = match ins.opcode.kind() {
        Kind::Send => send(ins, &h)?,
        Kind::Branch => branch(ins, &h)?,
        Kind::Alu3 => three_src(ins, &h)?,
        _ if ins.align16 => align16(ins, &h)?,
        _ => align1(ins, &h)?,
    };
    if ins.align16 {
        dw[0] |= 1 << 8; // Access Mode (EU_ACCESSMODE: 1 = Align16), fixed in the align16 forms
    }
    Ok(dw)
}

struct D1 {
    file: EuRegfile,
    ty: EuRegtype,
    mode: EuAddrmode,
    nr: u8,
    subnr: u8,
    ia_sub: u8,
    ia_imm: i16,
    hstride: EuHstride,
}

fn dst1(d: &Dst) -> Result<D1, EncodeError> {
    let hs = match d.layout {
        DstLayout::HStride(h) => stride_code(h)?,
        DstLayout::WriteMask(_) => {
            return Err(EncodeError::Unencodable(
                "align1 destination with a write mask".into(),
            ));
        }
    };
    let (mode, nr, subnr, ia_sub, ia_imm) = match d.address {
        Address::Direct => (0, d.nr, d.subnr, 0, 0),
        Address::Indirect { subnr, offset } => (1, 0, 0, subnr, offset),
    };
    Ok(D1 {
        file: file_code(d.file),
        ty: reg_type_code(d.ty)?,
        mode: EuAddrmode(mode),
        nr,
        subnr,
        ia_sub,
        ia_imm,
        hstride: EuHstride(hs),
    })
}

struct S1 {
    file: EuRegfile,
    ty: EuRegtype,
    mode: EuAddrmode,
    nr: u8,
    subnr: u8,
    ia_sub: u8,
    ia_imm: i16,
    vs: EuVstride,
    w: EuWidth,
    hs: EuHstride,
    neg: bool,
    abs: bool,
}

fn src1_fields(s: &Src) -> Result<S1, EncodeError> {
    let Src::Reg {
        file,
        nr,
        subnr,
        ty,
        layout,
        address,
        negate,
        abs,
    } = *s
    else {
        return Err(EncodeError::Unencodable(
            "immediate where a register is needed".into(),
        ));
    };
    let Layout::Region(r) = layout else {
        return Err(EncodeError::Unencodable(
            "align1 source with a swizzle".into(),
        ));
    };
    let (mode, nr, subnr, ia_sub, ia_imm) = match address {
        Address::Direct => (0, nr, subnr, 0, 0),
        Address::Indirect { subnr: a, offset } => (1, 0, 0, a, offset),
    };
    Ok(S1 {
        file: file_code(file),
        ty: reg_type_code(ty)?,
        mode: EuAddrmode(mode),
        nr,
        subnr,
        ia_sub,
        ia_imm,
        vs: EuVstride(match r.vstride {
            Some(v) => stride_code(v)?,
            None => 15,
        }),
        w: EuWidth(width_code(r.width)?),
        hs: EuHstride(stride_code(r.hstride)?),
        neg: negate,
        abs,
    })
}

fn imm_of(s: &Src) -> Option<(Type, u32)> {
    match *s {
        Src::Imm { ty, bits } => Some((ty, bits as u32)),
        _ => None,
    }
}

fn align1(ins: &Instruction, h: &EuInstructionAlign12src) -> Result<[u32; 4], EncodeError> {
    let d = dst1(&ins.dst)?;
    let s0 = ins.srcs.first();
    let s1 = ins.srcs.get(1);
    if let Some((ty, bits)) = s0.and_then(imm_of) {
        // An immediate in src0: src1's file and type stay zero, as Mesa 22.3 and
        // intel-gen4asm both encode it (the corpus shows it).
        let code = imm_type_code(ty)?;
        let i = EuInstructionAlign1Imm {
            dst_address_mode: d.mode,
            dst_horizontal_stride: d.hstride,
            dst_register_number: d.nr,
            dst_subregister_number: d.subnr,
            dst_indirect_address_subregister: d.ia_sub,
            dst_indirect_address_immediate: d.ia_imm,
            dst_register_type: d.ty,
            dst_register_file: d.file,
            src0_register_file: EuRegfile(3),
            src0_immediate_type: code,
            src1_register_type: match ins.src1_type_field {
                Some(t) => imm_type_code(t)?,
                None => EuImmtype(0),
            },
            immediate: bits,
            ..Default::default()
        };
        return with_header(i.pack().map_err(un)?, EuInstructionAlign1Imm::DEF, h);
    }
    if let Some((ty, bits)) = s1.and_then(imm_of) {
        let a = src1_fields(s0.ok_or_else(|| EncodeError::Unencodable("missing src0".into()))?)?;
        let i = EuInstructionAlign1Imm {
            dst_address_mode: d.mode,
            dst_horizontal_stride: d.hstride,
            dst_register_number: d.nr,
            dst_subregister_number: d.subnr,
            dst_indirect_address_subregister: d.ia_sub,
            dst_indirect_address_immediate: d.ia_imm,
            dst_register_type: d.ty,
            dst_register_file: d.file,
            src0_register_file: a.file,
            src0_register_type: a.ty,
            src0_address_mode: a.mode,
            src0_register_number: a.nr,
            src0_subregister_number: a.subnr,
            src0_indirect_address_subregister: a.ia_sub,
            src0_indirect_address_immediate: a.ia_imm,
            src0_vertical_stride: a.vs,
            src0_width: a.w,
            src0_horizontal_stride: a.hs,
            src0_negate: a.neg,
            src0_absolute: a.abs,
            src1_register_file: EuRegfile(3),
            src1_register_type: imm_type_code(ty)?,
            immediate: bits,
            ..Default::default()
        };
        return with_header(i.pack().map_err(un)?, EuInstructionAlign1Imm::DEF, h);
    }
    let mut i = EuInstructionAlign12src {
        dst_address_mode: d.mode,
        dst_horizontal_stride: d.hstride,
        dst_register_number: d.nr,
        dst_subregister_number: d.subnr,
        dst_indirect_address_subregister: d.ia_sub,
        dst_indirect_address_immediate: d.ia_imm,
        dst_register_type: d.ty,
        dst_register_file: d.file,
        ..h.clone()
    };
    if let Some(s) = s0 {
        let a = src1_fields(s)?;
        (
            i.src0_register_file,
            i.src0_register_type,
            i.src0_address_mode,
            i.src0_register_number,
            i.src0_subregister_number,
            i.src0_indirect_address_subregister,
            i.src0_indirect_address_immediate,
            i.src0_vertical_stride,
            i.src0_width,
            i.src0_horizontal_stride,
            i.src0_negate,
            i.src0_absolute,
        ) = (
            a.file, a.ty, a.mode, a.nr, a.subnr, a.ia_sub, a.ia_imm, a.vs, a.w, a.hs, a.neg, a.abs,
        );
    }
    if let Some(s) = s1 {
        let a = src1_fields(s)?;
        (
            i.src1_register_file,
            i.src1_register_type,
            i.src1_address_mode,
            i.src1_register_number,
            i.src1_subregister_number,
            i.src1_indirect_address_subregister,
            i.src1_indirect_address_immediate,
            i.src1_vertical_stride,
            i.src1_width,
            i.src1_horizontal_stride,
            i.src1_negate,
            i.src1_absolute,
        ) = (
            a.file, a.ty, a.mode, a.nr, a.subnr, a.ia_sub, a.ia_imm, a.vs, a.w, a.hs, a.neg, a.abs,
        );
    }
    with_header(i.pack().map_err(un)?, EuInstructionAlign12src::DEF, h)
}

struct S16 {
    file: EuRegfile,
    ty: EuRegtype,
    mode: EuAddrmode,
    nr: u8,
    sub: u8,
    vs: EuVstride,
    sw: [EuSwizzleChannel; 4],
    ia_sub: u8,
    ia_imm: i8,
    neg: bool,
    abs: bool,
}

fn src16_fields(s: &Src) -> Result<S16, EncodeError> {
    let Src::Reg {
        file,
        nr,
        subnr,
        ty,
        layout,
        address,
        negate,
        abs,
    } = *s
    else {
        return Err(EncodeError::Unencodable(
            "immediate where a register is needed".into(),
        ));
    };
    let Layout::Swizzle { vstride, swizzle } = layout else {
        return Err(EncodeError::Unencodable(
            "align16 source with a region".into(),
        ));
    };
    let (mode, nr, sub, ia_sub, ia_imm) = match address {
        Address::Direct => (0, nr, subnr / 16, 0, 0),
        Address::Indirect { subnr: a, offset } => (1, 0, 0, a, (offset / 16) as i8),
    };
    Ok(S16 {
        file: file_code(file),
        ty: reg_type_code(ty)?,
        mode: EuAddrmode(mode),
        nr,
        sub,
        vs: EuVstride(stride_code(vstride)?),
        sw: swizzle.map(|c| EuSwizzleChannel(c as u32)),
        ia_sub,
        ia_imm,
        neg: negate,
        abs,
    })
}

fn align16(ins: &Instruction, h: &EuInstructionAlign12src) -> Result<[u32; 4], EncodeError> {
    let DstLayout::WriteMask(wm) = ins.dst.layout else {
        return Err(EncodeError::Unencodable(
            "align16 destination needs a write mask".into(),
        ));
    };
    let (dmode, dnr, dsub, dia_sub, dia_imm) = match ins.dst.address {
        Address::Direct => (0, ins.dst.nr, ins.dst.subnr / 16, 0, 0),
        Address::Indirect { subnr, offset } => (1, 0, 0, subnr, (offset / 16) as i8),
    };
    let s0 = ins.srcs.first();
    let s1 = ins.srcs.get(1);
    let imm = s0
        .and_then(imm_of)
        .map(|x| (0, x))
        .or_else(|| s1.and_then(imm_of).map(|x| (1, x)));
    if let Some((which, (ty, bits))) = imm {
        let code = imm_type_code(ty)?;
        let mut i = EuInstructionAlign16Imm {
            dst_address_mode: EuAddrmode(dmode),
            dst_horizontal_stride: EuHstride(1),
            dst_register_number: dnr,
            dst_subregister_number: dsub,
            dst_writemask: wm,
            dst_indirect_address_subregister: dia_sub,
            dst_indirect_address_immediate: dia_imm,
            dst_register_type: reg_type_code(ins.dst.ty)?,
            dst_register_file: file_code(ins.dst.file),
            immediate: bits,
            ..Default::default()
        };
        if which == 0 {
            (i.src0_register_file, i.src0_immediate_type) = (EuRegfile(3), code);
            if let Some(t) = ins.src1_type_field {
                i.src1_register_type = imm_type_code(t)?;
            }
        } else {
            let a =
                src16_fields(s0.ok_or_else(|| EncodeError::Unencodable("missing src0".into()))?)?;
            (
                i.src0_register_file,
                i.src0_register_type,
                i.src0_address_mode,
                i.src0_register_number,
                i.src0_subregister_number,
                i.src0_vertical_stride,
            ) = (a.file, a.ty, a.mode, a.nr, a.sub, a.vs);
            [
                i.src0_swizzle_x,
                i.src0_swizzle_y,
                i.src0_swizzle_z,
                i.src0_swizzle_w,
            ] = a.sw;
            (
                i.src0_indirect_address_subregister,
                i.src0_indirect_address_immediate,
                i.src0_negate,
                i.src0_absolute,
            ) = (a.ia_sub, a.ia_imm, a.neg, a.abs);
            (i.src1_register_file, i.src1_register_type) = (EuRegfile(3), code);
        }
        return with_header(i.pack().map_err(un)?, EuInstructionAlign16Imm::DEF, h);
    }
    let mut i = EuInstructionAlign162src {
        dst_address_mode: EuAddrmode(dmode),
        dst_horizontal_stride: EuHstride(1),
        dst_register_number: dnr,
        dst_subregister_number: dsub,
        dst_writemask: wm,
        dst_indirect_address_subregister: dia_sub,
        dst_indirect_address_immediate: dia_imm,
        dst_register_type: reg_type_code(ins.dst.ty)?,
        dst_register_file: file_code(ins.dst.file),
        ..Default::default()
    };
    if let Some(s) = s0 {
        let a = src16_fields(s)?;
        (
            i.src0_register_file,
            i.src0_register_type,
            i.src0_address_mode,
            i.src0_register_number,
            i.src0_subregister_number,
            i.src0_vertical_stride,
        ) = (a.file, a.ty, a.mode, a.nr, a.sub, a.vs);
        [
            i.src0_swizzle_x,
            i.src0_swizzle_y,
            i.src0_swizzle_z,
            i.src0_swizzle_w,
        ] = a.sw;
        (
            i.src0_indirect_address_subregister,
            i.src0_indirect_address_immediate,
            i.src0_negate,
            i.src0_absolute,
        ) = (a.ia_sub, a.ia_imm, a.neg, a.abs);
    }
    if let Some(s) = s1 {
        let a = src16_fields(s)?;
        (
            i.src1_register_file,
            i.src1_register_type,
            i.src1_address_mode,
            i.src1_register_number,
            i.src1_subregister_number,
            i.src1_vertical_stride,
        ) = (a.file, a.ty, a.mode, a.nr, a.sub, a.vs);
        [
            i.src1_swizzle_x,
            i.src1_swizzle_y,
            i.src1_swizzle_z,
            i.src1_swizzle_w,
        ] = a.sw;
        (
            i.src1_indirect_address_subregister,
            i.src1_indirect_address_immediate,
            i.src1_negate,
            i.src1_absolute,
        ) = (a.ia_sub, a.ia_imm, a.neg, a.abs);
    }
    with_header(i.pack().map_err(un)?, EuInstructionAlign162src::DEF, h)
}

fn three_src(ins: &Instruction, h: &EuInstructionAlign12src) -> Result<[u32; 4], EncodeError> {
    let DstLayout::WriteMask(wm) = ins.dst.layout else {
        return Err(EncodeError::Unencodable(
            "three-source destination needs a write mask".into(),
        ));
    };
    if ins.srcs.len() != 3 {
        return Err(EncodeError::Unencodable(
            "three-source instruction needs three sources".into(),
        ));
    }
    let mut parts = vec![];
    let mut st = None;
    for s in &ins.srcs {
        let Src::Reg {
            file: RegFile::Grf,
            nr,
            subnr,
            ty,
            layout,
            address: Address::Direct,
            negate,
            abs,
        } = *s
        else {
            return Err(EncodeError::Unencodable(
                "three-source operands are direct GRF registers".into(),
            ));
        };
        st = Some(ty);
        let (rep, sw) = match layout {
            Layout::Region(Region {
                vstride: Some(0),
                width: 1,
                hstride: 0,
            }) => (true, [0, 0, 0, 0]), // replicated scalars keep a .xxxx swizzle, as Mesa encodes
            Layout::Swizzle { swizzle, .. } => (false, swizzle),
            _ => {
                return Err(EncodeError::Unencodable(
                    "three-source region must be a swizzle or <0;1,0>".into(),
                ));
            }
        };
        parts.push((
            nr,
            subnr / 4,
            rep,
            sw.map(|c| EuSwizzleChannel(c as u32)),
            negate,
            abs,
        ));
    }
    let i = EuInstruction3src {
        dst_register_number: ins.dst.nr,
        dst_subregister_number: ins.dst.subnr / 4,
        dst_writemask: wm,
        dst_register_type: three_src_type_code(ins.dst.ty)?,
        src_register_type: three_src_type_code(st.unwrap_or(Type::F))?,
        src0_register_number: parts[0].0,
        src0_subregister_number: parts[0].1,
        src0_replicate_control: parts[0].2,
        src0_swizzle_x: parts[0].3[0],
        src0_swizzle_y: parts[0].3[1],
        src0_swizzle_z: parts[0].3[2],
        src0_swizzle_w: parts[0].3[3],
        src0_negate: parts[0].4,
        src0_absolute: parts[0].5,
        src1_register_number: parts[1].0,
        src1_subregister_number: parts[1].1,
        src1_replicate_control: parts[1].2,
        src1_swizzle_x: parts[1].3[0],
        src1_swizzle_y: parts[1].3[1],
        src1_swizzle_z: parts[1].3[2],
        src1_swizzle_w: parts[1].3[3],
        src1_negate: parts[1].4,
        src1_absolute: parts[1].5,
        src2_register_number: parts[2].0,
        src2_subregister_number: parts[2].1,
        src2_replicate_control: parts[2].2,
        src2_swizzle_x: parts[2].3[0],
        src2_swizzle_y: parts[2].3[1],
        src2_swizzle_z: parts[2].3[2],
        src2_swizzle_w: parts[2].3[3],
        src2_negate: parts[2].4,
        src2_absolute: parts[2].5,
        ..Default::default()
    };
    with_header(i.pack().map_err(un)?, EuInstruction3src::DEF, h)
}

fn send(ins: &Instruction, h: &EuInstructionAlign12src) -> Result<[u32; 4], EncodeError> {
    // dst and src0 in the instruction's access mode (see decode_send), then src1's file
    // and type and the descriptor from the send layout.
    let mut shell = ins.clone();
    shell.opcode = Opcode::Mov;
    shell.srcs.truncate(1);
    let mut dw = if ins.align16 {
        align16(&shell, h)?
    } else {
        align1(&shell, h)?
    };
    let mut m = EuInstructionSend::default();
    match (ins.desc, ins.srcs.get(1)) {
        (Some(desc), _) => {
            if desc & 0xe000_0000 != 0 {
                // 30:29 are reserved and 31 is End Of Thread (EU_INSTRUCTION_SEND).
                return Err(EncodeError::Unencodable(format!(
                    "descriptor {desc:#010x} sets reserved bits 31:29"
                )));
            }
            m.message_length = ((desc >> 25) & 0xf) as u8;
            m.response_length = ((desc >> 20) & 0x1f) as u8;
            m.header_present = desc & (1 << 19) != 0;
            m.function_control = desc & 0x7ffff;
            m.end_of_thread = ins.eot;
            m.src1_register_file = EuRegfile(3);
            m.src1_register_type = match ins.src1_type_field {
                Some(t) => imm_type_code(t)?,
                None => EuImmtype(0),
            };
        }
        (None, Some(s)) => {
            let b = src1_fields(s)?;
            (
                m.src1_register_file,
                m.src1_register_type,
                m.src1_address_mode,
                m.src1_register_number,
                m.src1_subregister_number,
                m.src1_vertical_stride,
                m.src1_width,
                m.src1_horizontal_stride,
                m.src1_negate,
                m.src1_absolute,
            ) = (
                b.file,
                EuImmtype(b.ty.0),
                b.mode,
                b.nr,
                b.subnr,
                b.vs,
                b.w,
                b.hs,
                b.neg,
                b.abs,
            );
        }
        (None, None) => return Err(EncodeError::Unencodable("send needs a descriptor".into())),
    }
    let extra = m.pack().map_err(un)?;
    for (d, e) in dw.iter_mut().zip(extra) {
        *d |= e;
    }
    Ok(dw)
}

fn branch(ins: &Instruction, h: &EuInstructionAlign12src) -> Result<[u32; 4], EncodeError> {
    // Dwords 0-2 as an align1 or align16 instruction (dst, src0, src1's file and type),
    // dword 3 from the branch layout's JIP/UIP (see decode_branch).
    let mut shadow = ins.clone();
    shadow.srcs.truncate(2);
    let src1_imm = match shadow.srcs.get(1) {
        Some(Src::Imm { ty, .. }) => Some(*ty),
        _ => None,
    };
    if let Some(ty) = src1_imm {
        // Any immediate of the right type: only its file and type survive in dword 1.
        shadow.srcs[1] = Src::Imm { ty, bits: 0 };
    }
    let mut dw = if ins.align16 {
        align16(&shadow, h)?
    } else {
        align1(&shadow, h)?
    };
    // Targets are whole 64-bit units; anything else would be silently rounded.
    for (name, t) in [("JIP", ins.jip), ("UIP", ins.uip)] {
        if t.unwrap_or(0) % JUMP_UNIT != 0 {
            return Err(EncodeError::Unencodable(format!(
                "{name} {} is not a multiple of {JUMP_UNIT} bytes",
                t.unwrap_or(0)
            )));
        }
    }
    let jip = ins.jip.unwrap_or(0) / JUMP_UNIT;
    let uip = ins.uip.unwrap_or(0) / JUMP_UNIT;
    let targets = EuInstructionBranch {
        jip: i16::try_from(jip).map_err(|_| {
            EncodeError::Unencodable(format!("JIP {} out of range", jip * JUMP_UNIT))
        })?,
        uip: i16::try_from(uip).map_err(|_| {
            EncodeError::Unencodable(format!("UIP {} out of range", uip * JUMP_UNIT))
        })?,
        ..Default::default()
    }
    .pack()
    .map_err(un)?;
    dw[3] = targets[3];
    Ok(dw)
}

/// Encodes an instruction: compacted when `ins.compacted` asks for it and the tables allow
/// it, native otherwise. Returns the bytes.
pub fn encode(ins: &Instruction) -> Result<Vec<u8>, EncodeError> {
    let native = encode_native(ins)?;
    if ins.compacted
        && let Some(c) = super::compact::compact(&native)
    {
        return Ok(c.iter().flat_map(|d| d.to_le_bytes()).collect());
    }
    let _ = Opcode::Nop;
    Ok(native.iter().flat_map(|d| d.to_le_bytes()).collect())
}
