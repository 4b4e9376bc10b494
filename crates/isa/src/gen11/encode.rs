//! IR to native Gen11 instructions (the inverse of `decode`): the layout follows from the
//! opcode and whether a source is an immediate; every field is written by name in it.

use super::codes::CODES;
use super::decode::{DST, IMM_FILE, PAYLOAD, RegFields, SRC, VSTRIDE3, form, implied_width};
use super::*;
use crate::ir::*;
use crate::layout::{FieldsMut, stride_code, width_code, write_header};
use crate::opcode::Kind;
use gtsim_spec::gen11::{EuField as F, EuForm};

type W = FieldsMut<EuForm>;

fn file_code(f: RegFile) -> u64 {
    match f {
        RegFile::Arf => 0,
        RegFile::Grf => 1,
        RegFile::Mrf => 2,
        RegFile::Imm => IMM_FILE,
    }
}

/// Writes a register's number and subregister, or its address register and immediate
/// (bits 8:0 in steps of `unit` bytes, bit 9 apart).
fn write_address(
    w: &mut W,
    f: &RegFields,
    (nr, subnr, address): (u8, u8, Address),
    unit: u8,
) -> Result<(), EncodeError> {
    match address {
        Address::Direct => {
            if !subnr.is_multiple_of(unit) {
                return Err(unencodable(format!(
                    "subregister byte {subnr} is not a multiple of {unit}"
                )));
            }
            w.put(f.nr, nr as u64)?;
            w.put(f.subnr, (subnr / unit) as u64)
        }
        Address::Indirect { subnr, offset } => {
            let o = i64::from(offset);
            if !(-512..512).contains(&o) || o % i64::from(unit) != 0 {
                return Err(unencodable(format!("indirect offset {offset}")));
            }
            let raw = (o as u64) & 0x3ff;
            w.put(f.mode, 1)?;
            w.put(f.ia_sub, subnr as u64)?;
            w.put(f.ia_imm, (raw & 0x1ff) / unit as u64)?;
            w.put(f.ia_imm9, raw >> 9)
        }
    }
}

fn write_dst(w: &mut W, d: &Dst) -> Result<(), EncodeError> {
    let DstLayout::HStride(h) = d.layout else {
        return Err(unencodable("Gen11 destinations are align1 (a stride)"));
    };
    w.put(DST.file, file_code(d.file))?;
    w.put(DST.ty, reg_type_code(d.ty)?)?;
    write_address(w, &DST, (d.nr, d.subnr, d.address), 1)?;
    w.put(F::DstHorizontalStride, stride_code(h)? as u64)
}

fn write_src(w: &mut W, k: usize, s: &Src) -> Result<(), EncodeError> {
    let f = &SRC[k];
    let Src::Reg {
        file,
        nr,
        subnr,
        ty,
        layout: Layout::Region(r),
        address,
        negate,
        abs,
    } = *s
    else {
        return Err(unencodable("an align1 register source is needed here"));
    };
    w.put(f.reg.file, file_code(file))?;
    w.put(f.reg.ty, reg_type_code(ty)?)?;
    write_address(w, &f.reg, (nr, subnr, address), 1)?;
    w.put(
        f.vstride,
        match r.vstride {
            Some(v) => stride_code(v)? as u64,
            None => 15,
        },
    )?;
    w.put(f.width, width_code(r.width)? as u64)?;
    w.put(f.hstride, stride_code(r.hstride)? as u64)?;
    w.put_flag(f.negate, negate)?;
    w.put_flag(f.abs, abs)
}

fn src1_type_field(w: &mut W, ins: &Instruction) -> Result<(), EncodeError> {
    if let Some(t) = ins.src1_type_field {
        w.put(F::Src1RegisterType, imm_type_code(t)?)?;
    }
    Ok(())
}

/// Encodes one instruction in native form.
pub fn encode_native(ins: &Instruction) -> Result<[u32; 4], EncodeError> {
    if ins.align16 {
        return Err(unencodable("Align16 is not supported on Gen11"));
    }
    let immediate = ins.opcode.kind() != Kind::Alu3
        && ins
            .srcs
            .iter()
            .take(2)
            .any(|s| matches!(s, Src::Imm { .. }));
    let mut w = W::new(form(ins.opcode, immediate));
    write_header(&mut w, &HEADER, &CODES, ins)?;
    match form(ins.opcode, immediate) {
        EuForm::Sends => sends(&mut w, ins)?,
        EuForm::Send => send(&mut w, ins)?,
        EuForm::Branch => branch(&mut w, ins)?,
        EuForm::N3src => three_source(&mut w, ins)?,
        _ => {
            write_dst(&mut w, &ins.dst)?;
            match ins.srcs.as_slice() {
                [Src::Imm { ty, bits }] => {
                    w.put(F::Src0RegisterFile, IMM_FILE)?;
                    w.put(F::Src0ImmediateType, imm_type_code(*ty)?)?;
                    src1_type_field(&mut w, ins)?;
                    w.put(F::Immediate, *bits)?;
                }
                [s0, Src::Imm { ty, bits }] => {
                    write_src(&mut w, 0, s0)?;
                    w.put(F::Src1RegisterFile, IMM_FILE)?;
                    w.put(F::Src1RegisterType, imm_type_code(*ty)?)?;
                    w.put(F::Immediate, *bits)?;
                }
                srcs => {
                    for (k, s) in srcs.iter().enumerate().take(2) {
                        write_src(&mut w, k, s)?;
                    }
                }
            }
        }
    }
    w.finish()
}

fn send(w: &mut W, ins: &Instruction) -> Result<(), EncodeError> {
    write_dst(w, &ins.dst)?;
    let src0 = ins
        .srcs
        .first()
        .ok_or_else(|| unencodable("send needs src0"))?;
    write_src(w, 0, src0)?;
    match (ins.desc, ins.srcs.get(1)) {
        (Some(desc), _) => {
            w.put(F::Src1RegisterFile, IMM_FILE)?;
            src1_type_field(w, ins)?;
            w.put(F::MessageDescriptor, u64::from(desc))?;
            w.put_flag(F::EndOfThread, ins.eot)
        }
        (None, Some(s)) if !ins.eot => write_src(w, 1, s),
        _ => Err(unencodable(
            "send needs an immediate descriptor or a descriptor register without EOT",
        )),
    }
}

fn sends(w: &mut W, ins: &Instruction) -> Result<(), EncodeError> {
    let one_bit = |f: RegFile| match f {
        RegFile::Arf => Ok(0),
        RegFile::Grf => Ok(1),
        _ => Err(unencodable("split send operands are null or GRF registers")),
    };
    let d = &ins.dst;
    if d.ty != Type::UD || d.layout != DstLayout::HStride(1) {
        return Err(unencodable(
            "the split send destination is a whole UD register",
        ));
    }
    w.put(F::DstRegisterFile, one_bit(d.file)?)?;
    write_address(w, &DST, (d.nr, d.subnr, d.address), 16)?;
    let payload = |s: Option<&Src>| match s {
        Some(&Src::Reg {
            file,
            nr,
            subnr,
            ty: Type::UD,
            layout: PAYLOAD,
            address,
            negate: false,
            abs: false,
        }) => Ok((file, nr, subnr, address)),
        _ => Err(unencodable("split send payloads are whole UD registers")),
    };
    let (file0, nr, subnr, address) = payload(ins.srcs.first())?;
    if file0 != RegFile::Grf {
        return Err(unencodable("the split send's src0 is a GRF register"));
    }
    write_address(w, &SRC[0].reg, (nr, subnr, address), 16)?;
    let (file1, nr1, sub1, addr1) = payload(ins.srcs.get(1))?;
    if sub1 != 0 || addr1 != Address::Direct {
        return Err(unencodable(
            "the split send's src1 is a whole direct register",
        ));
    }
    w.put(F::Src1RegisterFile, one_bit(file1)?)?;
    w.put(F::Src1RegisterNumber, nr1 as u64)?;
    match ins.desc {
        Some(desc) => w.put(F::MessageDescriptor, u64::from(desc))?,
        None => w.put_flag(F::DescriptorInRegister, true)?,
    }
    w.put_flag(F::EndOfThread, ins.eot)?;
    // The extended descriptor: bits 31:16 and the extended message length (9:6); the
    // rest lives elsewhere (SFID 27:24, EOT 127) and must be zero (Mesa brw_inst.h
    // brw_inst_set_sends_ex_desc).
    let ex = ins.ex_desc;
    w.put(F::ExtendedMessageLength, u64::from((ex >> 6) & 0xf))?;
    match ins.ex_desc_reg {
        Some(sub) => {
            if ex & !0x3c0 != 0 {
                return Err(unencodable("extended descriptor bits with a register one"));
            }
            w.put_flag(F::ExDescriptorInRegister, true)?;
            w.put(F::ExDescriptorAddressSubregister, u64::from(sub))
        }
        None => {
            if ex & 0xfc3f != 0 {
                return Err(unencodable(format!(
                    "extended descriptor {ex:#010x} sets bits 15:10 or 5:0"
                )));
            }
            w.put(F::ExtendedDescriptorHigh, u64::from(ex >> 16))
        }
    }
}

fn branch(w: &mut W, ins: &Instruction) -> Result<(), EncodeError> {
    let d = &ins.dst;
    let DstLayout::HStride(h) = d.layout else {
        return Err(unencodable("a branch destination has a stride"));
    };
    if d.address != Address::Direct {
        return Err(unencodable("a branch destination is direct"));
    }
    w.put(F::DstRegisterFile, file_code(d.file))?;
    w.put(F::DstRegisterType, reg_type_code(d.ty)?)?;
    w.put(F::DstRegisterNumber, d.nr as u64)?;
    w.put(F::DstSubregisterNumber, d.subnr as u64)?;
    w.put(F::DstHorizontalStride, stride_code(h)? as u64)?;
    match ins.srcs.first() {
        Some(&Src::Imm { ty, bits: 0 }) => {
            w.put(F::Src0RegisterFile, IMM_FILE)?;
            w.put(F::Src0RegisterType, imm_type_code(ty)?)?;
        }
        _ => {
            return Err(unencodable(
                "a branch's src0 is the immediate 0 (dword 3 is JIP)",
            ));
        }
    }
    w.put_signed(F::Jip, i64::from(ins.jip.unwrap_or(0)))?;
    if has_uip(ins.opcode) {
        w.put_signed(F::Uip, i64::from(ins.uip.unwrap_or(0)))
    } else {
        if ins.uip.is_some_and(|u| u != 0) {
            return Err(unencodable(format!("{} has no UIP", ins.opcode.mnemonic())));
        }
        src1_type_field(w, ins)
    }
}

/// The 3-bit three-source type code and whether it is a float type.
fn three_src_code(t: Type) -> Result<(u64, bool), EncodeError> {
    Ok(match t {
        Type::HF => (0, true),
        Type::F => (1, true),
        Type::UD => (0, false),
        Type::D => (1, false),
        Type::UW => (2, false),
        Type::W => (3, false),
        Type::UB => (4, false),
        Type::B => (5, false),
        t => {
            return Err(unencodable(format!(
                "{} is not a Gen11 three-source type",
                t.suffix()
            )));
        }
    })
}

fn three_source(w: &mut W, ins: &Instruction) -> Result<(), EncodeError> {
    let d = &ins.dst;
    let h = match d.layout {
        DstLayout::HStride(1) => false,
        DstLayout::HStride(2) => true,
        _ => return Err(unencodable("three-source destination stride is 1 or 2")),
    };
    if d.file != RegFile::Grf || d.address != Address::Direct || !d.subnr.is_multiple_of(8) {
        return Err(unencodable(
            "the three-source destination is a direct GRF register at an 8-byte subregister",
        ));
    }
    if ins.srcs.len() != 3 {
        return Err(unencodable("three-source instruction needs three sources"));
    }
    let (dt, float) = three_src_code(d.ty)?;
    w.put_flag(F::ExecutionDatatype, float)?;
    w.put(F::DstRegisterNumber, d.nr as u64)?;
    w.put(F::DstSubregisterNumber, (d.subnr / 8) as u64)?;
    w.put_flag(F::DstHorizontalStride, h)?;
    w.put(F::DstRegisterType, dt)?;
    let parts = [
        (
            Some((F::Src0RegisterFile, F::Src0Immediate)),
            F::Src0RegisterNumber,
            F::Src0SubregisterNumber,
            Some(F::Src0VerticalStride),
            F::Src0HorizontalStride,
            F::Src0RegisterType,
            F::Src0Negate,
            F::Src0Absolute,
        ),
        (
            None,
            F::Src1RegisterNumber,
            F::Src1SubregisterNumber,
            Some(F::Src1VerticalStride),
            F::Src1HorizontalStride,
            F::Src1RegisterType,
            F::Src1Negate,
            F::Src1Absolute,
        ),
        (
            Some((F::Src2RegisterFile, F::Src2Immediate)),
            F::Src2RegisterNumber,
            F::Src2SubregisterNumber,
            None,
            F::Src2HorizontalStride,
            F::Src2RegisterType,
            F::Src2Negate,
            F::Src2Absolute,
        ),
    ];
    for ((imm, nr_f, sub_f, vs_f, hs_f, ty_f, neg_f, abs_f), s) in parts.into_iter().zip(&ins.srcs)
    {
        let ty = match *s {
            Src::Imm { ty, .. } | Src::Reg { ty, .. } => ty,
        };
        let (code, f) = three_src_code(ty)?;
        if f != float {
            return Err(unencodable(
                "three-source operands mix integer and float types",
            ));
        }
        w.put(ty_f, code)?;
        match *s {
            Src::Imm { bits, .. } => {
                let Some((file_f, imm_f)) = imm else {
                    return Err(unencodable("three-source src1 cannot be an immediate"));
                };
                w.put_flag(file_f, true)?;
                w.put(imm_f, bits)?;
            }
            Src::Reg {
                file: RegFile::Grf,
                nr,
                subnr,
                layout: Layout::Region(r),
                address: Address::Direct,
                negate,
                abs,
                ..
            } => {
                let vs = r.vstride.unwrap_or(0xff);
                let ok = match vs_f {
                    Some(_) => implied_width(vs, r.hstride) == Some(r.width),
                    None => vs == r.hstride && r.width == 1,
                };
                if !ok {
                    return Err(unencodable(format!(
                        "three-source region <{vs},{},{}> is not encodable",
                        r.width, r.hstride
                    )));
                }
                w.put(nr_f, nr as u64)?;
                w.put(sub_f, subnr as u64)?;
                if let Some(f) = vs_f {
                    let code = VSTRIDE3
                        .iter()
                        .position(|v| *v == vs)
                        .ok_or_else(|| unencodable(format!("three-source vertical stride {vs}")))?;
                    w.put(f, code as u64)?;
                }
                w.put(hs_f, stride_code(r.hstride)? as u64)?;
                w.put_flag(neg_f, negate)?;
                w.put_flag(abs_f, abs)?;
            }
            _ => {
                return Err(unencodable(
                    "three-source operands are direct GRF registers or immediates",
                ));
            }
        }
    }
    Ok(())
}

/// Encodes an instruction: compacted when `ins.compacted` asks for it and the tables allow
/// it, native otherwise.
pub fn encode(ins: &Instruction) -> Result<Vec<u8>, EncodeError> {
    let native = encode_native(ins)?;
    if ins.compacted
        && let Some(c) = super::compact::compact(&native)
    {
        return Ok(c.iter().flat_map(|d| d.to_le_bytes()).collect());
    }
    Ok(native.iter().flat_map(|d| d.to_le_bytes()).collect())
}
