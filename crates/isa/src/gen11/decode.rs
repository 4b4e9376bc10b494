//! Native and compacted Gen11 instructions to IR. The opcode picks the layout
//! (`defs/gen11/eu.spec`, "Which form applies"); every field is read by name in it.

use super::codes::CODES;
use super::*;
use crate::ir::*;
use crate::layout::{Fields, read_header, stride_from_code, width_from_code, words};
use crate::opcode::{Kind, Opcode};
use gtsim_spec::gen11::{EuField as F, EuForm, eu_get};

/// Register File codes (EU_REGFILE).
pub(crate) const IMM_FILE: u64 = 3;

pub(crate) fn file(code: u64) -> RegFile {
    match code {
        0 => RegFile::Arf,
        1 => RegFile::Grf,
        2 => RegFile::Mrf,
        _ => RegFile::Imm,
    }
}

/// A register operand's fields, by name, in the align1 layouts.
pub(crate) struct RegFields {
    pub file: F,
    pub ty: F,
    pub mode: F,
    pub nr: F,
    pub subnr: F,
    pub ia_sub: F,
    pub ia_imm: F,
    /// Bit 9 of the indirect immediate, apart from bits 8:0 (Mesa brw_inst.h ver 8+).
    pub ia_imm9: F,
}

/// An align1 source's region and modifier fields.
pub(crate) struct SrcFields {
    pub reg: RegFields,
    pub vstride: F,
    pub width: F,
    pub hstride: F,
    pub negate: F,
    pub abs: F,
}

pub(crate) const DST: RegFields = RegFields {
    file: F::DstRegisterFile,
    ty: F::DstRegisterType,
    mode: F::DstAddressMode,
    nr: F::DstRegisterNumber,
    subnr: F::DstSubregisterNumber,
    ia_sub: F::DstIndirectAddressSubregister,
    ia_imm: F::DstIndirectAddressImmediate,
    ia_imm9: F::DstIndirectAddressImmediate9,
};

pub(crate) const SRC: [SrcFields; 2] = [
    SrcFields {
        reg: RegFields {
            file: F::Src0RegisterFile,
            ty: F::Src0RegisterType,
            mode: F::Src0AddressMode,
            nr: F::Src0RegisterNumber,
            subnr: F::Src0SubregisterNumber,
            ia_sub: F::Src0IndirectAddressSubregister,
            ia_imm: F::Src0IndirectAddressImmediate,
            ia_imm9: F::Src0IndirectAddressImmediate9,
        },
        vstride: F::Src0VerticalStride,
        width: F::Src0Width,
        hstride: F::Src0HorizontalStride,
        negate: F::Src0Negate,
        abs: F::Src0Absolute,
    },
    SrcFields {
        reg: RegFields {
            file: F::Src1RegisterFile,
            ty: F::Src1RegisterType,
            mode: F::Src1AddressMode,
            nr: F::Src1RegisterNumber,
            subnr: F::Src1SubregisterNumber,
            ia_sub: F::Src1IndirectAddressSubregister,
            ia_imm: F::Src1IndirectAddressImmediate,
            ia_imm9: F::Src1IndirectAddressImmediate9,
        },
        vstride: F::Src1VerticalStride,
        width: F::Src1Width,
        hstride: F::Src1HorizontalStride,
        negate: F::Src1Negate,
        abs: F::Src1Absolute,
    },
];

type R<'a> = Fields<'a, EuForm>;

fn invalid(why: impl Into<String>) -> DecodeError {
    DecodeError::Invalid(why.into())
}

/// Number, subregister (bytes, `unit` per field step) and address of a register; the
/// indirect immediate's bits 8:0 step `imm_unit` bytes (1 in the align1 forms, 16 in
/// sends).
fn read_address(
    r: &R,
    f: &RegFields,
    unit: u8,
    imm_unit: i64,
) -> Result<(u8, u8, Address), DecodeError> {
    if r.get(f.mode) == 0 {
        if r.get(f.ia_imm9) != 0 {
            return Err(invalid(
                "direct operand sets its indirect immediate's bit 9",
            ));
        }
        let sub = r.get(f.subnr) * unit as u64;
        Ok((r.u8(f.nr), sub as u8, Address::Direct))
    } else {
        let raw = (r.get(f.ia_imm9) << 9) as i64 | (r.get(f.ia_imm) as i64 * imm_unit);
        let offset = (raw << 54) >> 54;
        Ok((
            0,
            0,
            Address::Indirect {
                subnr: r.u8(f.ia_sub),
                offset: offset as i16,
            },
        ))
    }
}

/// The align1 destination.
pub(crate) fn read_dst(r: &R) -> Result<Dst, DecodeError> {
    let (nr, subnr, address) = read_address(r, &DST, 1, 1)?;
    Ok(Dst {
        file: file(r.get(DST.file)),
        nr,
        subnr,
        ty: reg_type(r.get(DST.ty))?,
        layout: DstLayout::HStride(stride_from_code(r.get(F::DstHorizontalStride) as u32)),
        address,
    })
}

/// Align1 register source `k`. Reserved region codes are errors.
pub(crate) fn read_src(r: &R, k: usize) -> Result<Src, DecodeError> {
    let f = &SRC[k];
    let (vs, w) = (r.get(f.vstride) as u32, r.get(f.width) as u32);
    if (7..15).contains(&vs) || w > 4 {
        return Err(invalid(format!("reserved region code <{vs};{w}>")));
    }
    let (nr, subnr, address) = read_address(r, &f.reg, 1, 1)?;
    Ok(Src::Reg {
        file: file(r.get(f.reg.file)),
        nr,
        subnr,
        ty: reg_type(r.get(f.reg.ty))?,
        layout: Layout::Region(Region {
            vstride: (vs != 15).then(|| stride_from_code(vs)),
            width: width_from_code(w),
            hstride: stride_from_code(r.get(f.hstride) as u32),
        }),
        address,
        negate: r.flag(f.negate),
        abs: r.flag(f.abs),
    })
}

/// The region every split-send payload operand carries in the IR (the encoding has none:
/// whole registers).
pub(crate) const PAYLOAD: Layout = Layout::Region(Region {
    vstride: Some(8),
    width: 8,
    hstride: 1,
});

/// Decodes one instruction (native or compacted) at the start of `bytes`; returns it and
/// its size in bytes.
pub fn decode(bytes: &[u8]) -> Result<(Instruction, usize), DecodeError> {
    let first = words(bytes, 2)?;
    if first[0] & (1 << 29) != 0 {
        let op = CODES.opcode(first[0] & 0x7f)?;
        if op.kind() == Kind::Alu3 {
            return Err(invalid(
                "compacted three-source instructions (Align16 only on Gen11) are not modelled",
            ));
        }
        let native = super::compact::uncompact([first[0], first[1]])?;
        let mut ins = decode_native(&native)?;
        if matches!(ins.opcode, Opcode::Nop | Opcode::Illegal) {
            return Err(invalid(format!("a compacted {}", ins.opcode.mnemonic())));
        }
        ins.compacted = true;
        return Ok((ins, 8));
    }
    let dw = words(bytes, 4)?;
    let op = dw[0] & 0x7f;
    if matches!(op, 0 | 0x7e) && (dw[0] & !0x7f) | dw[1] | dw[2] | dw[3] != 0 {
        return Err(invalid(format!(
            "opcode {op:#x} (nop/illegal) with other fields set"
        )));
    }
    Ok((decode_native(&dw)?, 16))
}

/// The layout of an instruction of opcode `op` (immediate: a source in the IMM file).
pub(crate) fn form(op: Opcode, immediate: bool) -> EuForm {
    match (op.kind(), op) {
        (_, Opcode::Sends | Opcode::Sendsc) => EuForm::Sends,
        (Kind::Send, _) => EuForm::Send,
        (Kind::Branch, _) => EuForm::Branch,
        (Kind::Alu3, _) => EuForm::N3src,
        _ if immediate => EuForm::Align1Imm,
        _ => EuForm::Align12src,
    }
}

/// Decodes a native (128-bit) instruction.
pub fn decode_native(dw: &[u32]) -> Result<Instruction, DecodeError> {
    let opcode = CODES.opcode(eu_get(EuForm::Align12src, F::Opcode, dw) as u32)?;
    if eu_get(EuForm::Send, F::AccessMode, dw) != 0 {
        return Err(invalid("Align16 is not supported on Gen11"));
    }
    let src_file = |k: usize| eu_get(EuForm::Align12src, SRC[k].reg.file, dw);
    let n = opcode.sources();
    let src0_imm = src_file(0) == IMM_FILE;
    let immediate = src0_imm || (src_file(1) == IMM_FILE && n >= 2);
    let r = Fields::new(form(opcode, immediate), dw)?;
    let mut ins = read_header(&r, &HEADER, &CODES, opcode, false)?;
    match r.form() {
        EuForm::Sends => sends(&r, &mut ins)?,
        EuForm::Send => send(&r, &mut ins)?,
        EuForm::Branch => branch(&r, dw, &mut ins)?,
        EuForm::N3src => three_source(&r, &mut ins)?,
        EuForm::Align1Imm => {
            ins.dst = read_dst(&r)?;
            let t1 = r.get(F::Src1RegisterType);
            if src0_imm {
                ins.srcs.push(Src::Imm {
                    ty: imm_type(r.get(F::Src0ImmediateType))?,
                    bits: r.get(F::Immediate),
                });
                // Mesa copies src0's type code into src1's (brw_set_src0, ver < 12);
                // dword 2's src0 region bits stay zero.
                if r.get(F::Src1RegisterFile) != 0 || dw[2] & 0x01ff_ffff != 0 {
                    return Err(invalid("an immediate src0 with src1 or region bits set"));
                }
                ins.src1_type_field = (t1 != 0).then(|| imm_type(t1)).transpose()?;
                if n >= 2 {
                    return Err(invalid("src0 is an immediate in a two-source instruction"));
                }
            } else {
                ins.srcs.push(read_src(&r, 0)?);
                ins.srcs.push(Src::Imm {
                    ty: imm_type(t1)?,
                    bits: r.get(F::Immediate),
                });
            }
        }
        _ => {
            ins.dst = read_dst(&r)?;
            for k in 0..usize::from(n.min(2)) {
                ins.srcs.push(read_src(&r, k)?);
            }
        }
    }
    if r.form() != EuForm::N3src && r.form() != EuForm::Sends {
        crate::gen7::validate::operands(&ins)?;
    }
    crate::gen7::validate::controls(&ins)?;
    Ok(ins)
}

/// send/sendc: dst and src0 as align1 registers; an immediate descriptor in dword 3, or
/// the descriptor register (a0.0) described by src1's fields.
fn send(r: &R, ins: &mut Instruction) -> Result<(), DecodeError> {
    if r.get(F::Src0RegisterFile) == IMM_FILE {
        return Err(invalid("send with an immediate src0"));
    }
    ins.dst = read_dst(r)?;
    ins.srcs.push(read_src(r, 0)?);
    if r.get(F::Src1RegisterFile) == IMM_FILE {
        ins.eot = r.flag(F::EndOfThread);
        ins.desc = Some(r.get(F::MessageDescriptor) as u32);
        let t1 = r.get(F::Src1RegisterType);
        ins.src1_type_field = (t1 != 0).then(|| imm_type(t1)).transpose()?;
    } else {
        if r.get(F::Src1AddressMode) != 0 || r.flag(F::EndOfThread) {
            return Err(invalid("send with an indirect descriptor register or EOT"));
        }
        ins.srcs.push(read_src(r, 1)?);
    }
    Ok(())
}

/// sends/sendsc: whole-register dst, src0 and src1, descriptors immediate or in a0.
fn sends(r: &R, ins: &mut Instruction) -> Result<(), DecodeError> {
    if r.get(F::DstRegisterType) != 0 {
        return Err(invalid("split send destination type other than UD"));
    }
    let reg_file = |f: F| {
        if r.flag(f) {
            RegFile::Grf
        } else {
            RegFile::Arf
        }
    };
    let dst_f = RegFields {
        file: F::DstRegisterFile,
        ..DST
    };
    let (nr, subnr, address) = read_address(r, &dst_f, 16, 16)?;
    ins.dst = Dst {
        file: reg_file(F::DstRegisterFile),
        nr,
        subnr,
        ty: Type::UD,
        layout: DstLayout::HStride(1),
        address,
    };
    let (nr, subnr, address) = read_address(r, &SRC[0].reg, 16, 16)?;
    let payload = |file, nr, subnr, address| Src::Reg {
        file,
        nr,
        subnr,
        ty: Type::UD,
        layout: PAYLOAD,
        address,
        negate: false,
        abs: false,
    };
    ins.srcs.push(payload(RegFile::Grf, nr, subnr, address));
    ins.srcs.push(payload(
        reg_file(F::Src1RegisterFile),
        r.u8(F::Src1RegisterNumber),
        0,
        Address::Direct,
    ));
    ins.eot = r.flag(F::EndOfThread);
    ins.desc = if r.flag(F::DescriptorInRegister) {
        if r.get(F::MessageDescriptor) != 0 {
            return Err(invalid("descriptor bits with a register descriptor"));
        }
        None
    } else {
        Some(r.get(F::MessageDescriptor) as u32)
    };
    let high = r.get(F::ExtendedDescriptorHigh) as u32;
    if r.flag(F::ExDescriptorInRegister) {
        if high >> 3 != 0 {
            return Err(invalid(
                "extended descriptor bits with a register descriptor",
            ));
        }
        ins.ex_desc_reg = Some(r.u8(F::ExDescriptorAddressSubregister));
        ins.ex_desc = (r.get(F::ExtendedMessageLength) as u32) << 6;
    } else {
        ins.ex_desc = high << 16 | (r.get(F::ExtendedMessageLength) as u32) << 6;
    }
    Ok(())
}

/// Branches: dst as encoded, src0 the immediate Mesa writes (only its type is kept:
/// dword 3 is JIP), UIP in dword 2 or src1's type and file there.
fn branch(r: &R, dw: &[u32], ins: &mut Instruction) -> Result<(), DecodeError> {
    if r.get(F::DstAddressMode) != 0 || r.get(F::Src0RegisterFile) != IMM_FILE {
        return Err(invalid(
            "a branch's dst must be direct and its src0 an immediate (Mesa brw_IF/brw_ENDIF)",
        ));
    }
    ins.dst = Dst {
        file: file(r.get(F::DstRegisterFile)),
        nr: r.u8(F::DstRegisterNumber),
        subnr: r.u8(F::DstSubregisterNumber),
        ty: reg_type(r.get(F::DstRegisterType))?,
        layout: DstLayout::HStride(stride_from_code(r.get(F::DstHorizontalStride) as u32)),
        address: Address::Direct,
    };
    ins.srcs.push(Src::Imm {
        ty: imm_type(r.get(F::Src0RegisterType))?,
        bits: 0,
    });
    ins.jip = Some(r.signed(F::Jip) as i32);
    if has_uip(ins.opcode) {
        ins.uip = Some(r.signed(F::Uip) as i32);
    } else {
        if dw[2] & !0x7800_0000 != 0 {
            return Err(invalid(format!(
                "{} has no UIP: dword 2 {:#010x} holds only src1's type",
                ins.opcode.mnemonic(),
                dw[2]
            )));
        }
        let t1 = r.get(F::Src1RegisterType);
        ins.src1_type_field = (t1 != 0).then(|| imm_type(t1)).transpose()?;
    }
    crate::gen7::validate::operands(&Instruction {
        srcs: vec![],
        ..ins.clone()
    })
}

/// Three-source type of a 3-bit code under the Execution Datatype.
pub(crate) fn three_src_type(code: u64, float: bool) -> Result<Type, DecodeError> {
    const INT: [Type; 6] = [Type::UD, Type::D, Type::UW, Type::W, Type::UB, Type::B];
    match (float, code) {
        (true, 0) => Ok(Type::HF),
        (true, 1) => Ok(Type::F),
        (false, c) if c < 6 => Ok(INT[c as usize]),
        _ => Err(invalid(format!(
            "three-source type code {code} ({}) is not modelled on Gen11",
            if float { "DF or NF" } else { "reserved" }
        ))),
    }
}

/// Align1 three-source vertical stride code (ver 10-11: 0, 2, 4, 8).
pub(crate) const VSTRIDE3: [u8; 4] = [0, 2, 4, 8];

/// The width a three-source region implies (Mesa brw_disasm.c implied_width, from the
/// GFX10 ternary regioning rules): 1 for <0;0>, the vertical stride when the horizontal
/// stride is 0, their quotient otherwise.
pub(crate) fn implied_width(vs: u8, hs: u8) -> Option<u8> {
    match (vs, hs) {
        (0, 0) => Some(1),
        (v, 0) => Some(v),
        (v, h) if v >= h => Some(v / h),
        _ => None,
    }
}

fn three_source(r: &R, ins: &mut Instruction) -> Result<(), DecodeError> {
    let float = r.flag(F::ExecutionDatatype);
    let ty = |f: F| three_src_type(r.get(f), float);
    if r.flag(F::DstRegisterFile) || r.flag(F::Src1RegisterFile) {
        return Err(invalid(
            "three-source accumulator operands are not modelled on Gen11",
        ));
    }
    ins.dst = Dst {
        file: RegFile::Grf,
        nr: r.u8(F::DstRegisterNumber),
        subnr: r.u8(F::DstSubregisterNumber) * 8,
        ty: ty(F::DstRegisterType)?,
        layout: DstLayout::HStride(if r.flag(F::DstHorizontalStride) { 2 } else { 1 }),
        address: Address::Direct,
    };
    let parts = [
        (
            Some(F::Src0RegisterFile),
            F::Src0RegisterNumber,
            F::Src0SubregisterNumber,
            Some(F::Src0VerticalStride),
            F::Src0HorizontalStride,
            F::Src0RegisterType,
            F::Src0Negate,
            F::Src0Absolute,
            F::Src0Immediate,
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
            F::Src1RegisterNumber,
        ),
        (
            Some(F::Src2RegisterFile),
            F::Src2RegisterNumber,
            F::Src2SubregisterNumber,
            None,
            F::Src2HorizontalStride,
            F::Src2RegisterType,
            F::Src2Negate,
            F::Src2Absolute,
            F::Src2Immediate,
        ),
    ];
    for (imm_file, nr, subnr, vstride, hstride, t, neg, abs, imm) in parts {
        let ty = ty(t)?;
        if imm_file.is_some_and(|f| r.flag(f)) {
            // A 16-bit immediate overlays the register fields (its top register bit is
            // reserved).
            if r.get(neg) | r.get(abs) != 0 || r.get(nr) >> 7 != 0 {
                return Err(invalid(
                    "three-source immediate with modifiers or bit 7 set",
                ));
            }
            ins.srcs.push(Src::Imm {
                ty,
                bits: r.get(imm),
            });
            continue;
        }
        let hs = stride_from_code(r.get(hstride) as u32);
        let vs = vstride.map_or(hs, |f| VSTRIDE3[r.get(f) as usize & 3]);
        let width = implied_width(vs, hs)
            .filter(|w| w.is_power_of_two() && *w <= 16)
            .ok_or_else(|| invalid(format!("three-source region <{vs};{hs}> has no width")))?;
        ins.srcs.push(Src::Reg {
            file: RegFile::Grf,
            nr: r.u8(nr),
            subnr: r.u8(subnr),
            ty,
            layout: Layout::Region(Region {
                vstride: Some(vs),
                width: if vstride.is_some() { width } else { 1 },
                hstride: hs,
            }),
            address: Address::Direct,
            negate: r.flag(neg),
            abs: r.flag(abs),
        });
    }
    Ok(())
}
