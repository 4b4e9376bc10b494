//! The operands of every Gen7 layout, read and written by name: one field table per
//! operand (`Src0 Register Number` is one name in the align1, align16, send and branch
//! layouts, at each layout's own bits), and the three-source layout's own table. What the
//! values mean (type codes, strides, swizzles, subregister units) is translated here,
//! once for decoding and once for encoding.

use super::fields::{Fields, FieldsMut, IMM_FILE, file, file_code, unencodable};
use super::{
    DecodeError, EncodeError, imm_type, imm_type_code, reg_type, reg_type_code, stride_code,
    stride_from_code, three_src_type, three_src_type_code, width_code, width_from_code,
};
use crate::ir::*;
use gtsim_spec::gen7::{Eu3srcType, EuField as F, EuForm, EuImmtype, EuRegtype};

/// The fields of the destination, by name.
struct DstFields {
    file: F,
    ty: F,
    mode: F,
    nr: F,
    subnr: F,
    ia_sub: F,
    ia_imm: F,
    hstride: F,
    writemask: F,
}

const DST: DstFields = DstFields {
    file: F::DstRegisterFile,
    ty: F::DstRegisterType,
    mode: F::DstAddressMode,
    nr: F::DstRegisterNumber,
    subnr: F::DstSubregisterNumber,
    ia_sub: F::DstIndirectAddressSubregister,
    ia_imm: F::DstIndirectAddressImmediate,
    hstride: F::DstHorizontalStride,
    writemask: F::DstWritemask,
};

/// The fields of register source 0 or 1, by name: align1 layouts have the region
/// fields, align16 layouts the swizzle fields.
struct SrcFields {
    file: F,
    ty: F,
    mode: F,
    nr: F,
    subnr: F,
    ia_sub: F,
    ia_imm: F,
    vstride: F,
    width: F,
    hstride: F,
    swizzle: [F; 4],
    negate: F,
    abs: F,
}

const SRC: [SrcFields; 2] = [
    SrcFields {
        file: F::Src0RegisterFile,
        ty: F::Src0RegisterType,
        mode: F::Src0AddressMode,
        nr: F::Src0RegisterNumber,
        subnr: F::Src0SubregisterNumber,
        ia_sub: F::Src0IndirectAddressSubregister,
        ia_imm: F::Src0IndirectAddressImmediate,
        vstride: F::Src0VerticalStride,
        width: F::Src0Width,
        hstride: F::Src0HorizontalStride,
        swizzle: [
            F::Src0SwizzleX,
            F::Src0SwizzleY,
            F::Src0SwizzleZ,
            F::Src0SwizzleW,
        ],
        negate: F::Src0Negate,
        abs: F::Src0Absolute,
    },
    SrcFields {
        file: F::Src1RegisterFile,
        ty: F::Src1RegisterType,
        mode: F::Src1AddressMode,
        nr: F::Src1RegisterNumber,
        subnr: F::Src1SubregisterNumber,
        ia_sub: F::Src1IndirectAddressSubregister,
        ia_imm: F::Src1IndirectAddressImmediate,
        vstride: F::Src1VerticalStride,
        width: F::Src1Width,
        hstride: F::Src1HorizontalStride,
        swizzle: [
            F::Src1SwizzleX,
            F::Src1SwizzleY,
            F::Src1SwizzleZ,
            F::Src1SwizzleW,
        ],
        negate: F::Src1Negate,
        abs: F::Src1Absolute,
    },
];

/// Align16 subregister numbers and indirect immediates count 16-byte halves of a
/// register (the field holds byte offset bit 4, AddrImm[9:4]); align1 ones count bytes.
fn unit(align16: bool) -> i64 {
    if align16 { 16 } else { 1 }
}

/// A register operand's file, number, subregister byte, type and address (an indirect
/// one has no number: its fields hold the address register and immediate).
fn read_register(
    r: &Fields,
    (file_f, ty, mode, nr, subnr, ia_sub, ia_imm): (F, F, F, F, F, F, F),
    align16: bool,
) -> (RegFile, u8, u8, Type, Address) {
    let address = if r.get(mode) == 0 {
        Address::Direct
    } else {
        Address::Indirect {
            subnr: r.u8(ia_sub),
            offset: (r.signed(ia_imm) * unit(align16)) as i16,
        }
    };
    let (nr, subnr) = match address {
        Address::Direct => (r.u8(nr), (r.get(subnr) as i64 * unit(align16)) as u8),
        Address::Indirect { .. } => (0, 0),
    };
    (
        file(r.get(file_f)),
        nr,
        subnr,
        reg_type(EuRegtype(r.get(ty) as u32)),
        address,
    )
}

/// Writes a register's number and subregister (direct) or its address register and
/// immediate (indirect); a subregister or offset the layout cannot hold is an error.
fn write_address(
    w: &mut FieldsMut,
    (mode, nr_f, subnr_f, ia_sub, ia_imm): (F, F, F, F, F),
    nr: u8,
    subnr: u8,
    address: Address,
    align16: bool,
) -> Result<(), EncodeError> {
    let u = unit(align16);
    match address {
        Address::Direct => {
            if i64::from(subnr) % u != 0 {
                return Err(unencodable(format!(
                    "subregister byte {subnr} in align16 (whole halves only)"
                )));
            }
            w.put(nr_f, nr as u64)?;
            w.put(subnr_f, (i64::from(subnr) / u) as u64)
        }
        Address::Indirect { subnr: a, offset } => {
            if i64::from(offset) % u != 0 {
                return Err(unencodable(format!(
                    "indirect offset {offset} in align16 (whole halves only)"
                )));
            }
            w.put(mode, 1)?;
            w.put(ia_sub, a as u64)?;
            w.put_signed(ia_imm, i64::from(offset) / u)
        }
    }
}

/// The destination in an align1 or align16 layout.
pub(super) fn read_dst(r: &Fields, align16: bool) -> Dst {
    let d = &DST;
    let (file, nr, subnr, ty, address) = read_register(
        r,
        (d.file, d.ty, d.mode, d.nr, d.subnr, d.ia_sub, d.ia_imm),
        align16,
    );
    Dst {
        file,
        nr,
        subnr,
        ty,
        layout: if align16 {
            DstLayout::WriteMask(r.u8(d.writemask))
        } else {
            DstLayout::HStride(stride_from_code(r.get(d.hstride) as u32))
        },
        address,
    }
}

/// Writes the destination in an align1 or align16 layout (Align16: Dst Horizontal
/// Stride is 1, EU_INSTRUCTION_ALIGN16_2SRC).
pub(super) fn write_dst(w: &mut FieldsMut, d: &Dst, align16: bool) -> Result<(), EncodeError> {
    let f = &DST;
    w.put(f.file, file_code(d.file))?;
    w.put(f.ty, reg_type_code(d.ty)?.0 as u64)?;
    write_address(
        w,
        (f.mode, f.nr, f.subnr, f.ia_sub, f.ia_imm),
        d.nr,
        d.subnr,
        d.address,
        align16,
    )?;
    match (d.layout, align16) {
        (DstLayout::HStride(h), false) => w.put(f.hstride, stride_code(h)? as u64),
        (DstLayout::WriteMask(m), true) => {
            w.put(f.hstride, 1)?;
            w.put(f.writemask, m as u64)
        }
        (DstLayout::WriteMask(_), false) => {
            Err(unencodable("align1 destination with a write mask"))
        }
        (DstLayout::HStride(_), true) => Err(unencodable("align16 destination needs a write mask")),
    }
}

/// Register source `k` (0 or 1) in an align1 or align16 layout. Reserved region codes
/// are errors: vertical stride 7..14 and width 5..7 in align1, vertical stride above 6
/// in align16 (IVB PRM Vol4 Part3 "Region Parameters").
pub(super) fn read_src(r: &Fields, k: usize, align16: bool) -> Result<Src, DecodeError> {
    let f = &SRC[k];
    let vs = r.get(f.vstride) as u32;
    let layout = if align16 {
        if vs > 6 {
            return Err(DecodeError::Invalid(format!(
                "reserved vertical stride code {vs}"
            )));
        }
        Layout::Swizzle {
            vstride: stride_from_code(vs),
            swizzle: f.swizzle.map(|c| r.u8(c)),
        }
    } else {
        let w = r.get(f.width) as u32;
        if (7..15).contains(&vs) {
            return Err(DecodeError::Invalid(format!(
                "reserved vertical stride code {vs}"
            )));
        }
        if w > 4 {
            return Err(DecodeError::Invalid(format!("reserved width code {w}")));
        }
        Layout::Region(Region {
            vstride: (vs != 15).then(|| stride_from_code(vs)),
            width: width_from_code(w),
            hstride: stride_from_code(r.get(f.hstride) as u32),
        })
    };
    let (file, nr, subnr, ty, address) = read_register(
        r,
        (f.file, f.ty, f.mode, f.nr, f.subnr, f.ia_sub, f.ia_imm),
        align16,
    );
    Ok(Src::Reg {
        file,
        nr,
        subnr,
        ty,
        layout,
        address,
        negate: r.flag(f.negate),
        abs: r.flag(f.abs),
    })
}

/// Writes register source `k` (0 or 1) in an align1 or align16 layout.
pub(super) fn write_src(
    w: &mut FieldsMut,
    k: usize,
    s: &Src,
    align16: bool,
) -> Result<(), EncodeError> {
    let f = &SRC[k];
    let Src::Reg {
        file: rf,
        nr,
        subnr,
        ty,
        layout,
        address,
        negate,
        abs,
    } = *s
    else {
        return Err(unencodable("immediate where a register is needed"));
    };
    w.put(f.file, file_code(rf))?;
    w.put(f.ty, reg_type_code(ty)?.0 as u64)?;
    write_address(
        w,
        (f.mode, f.nr, f.subnr, f.ia_sub, f.ia_imm),
        nr,
        subnr,
        address,
        align16,
    )?;
    match (layout, align16) {
        (Layout::Region(r), false) => {
            w.put(
                f.vstride,
                match r.vstride {
                    Some(v) => stride_code(v)? as u64,
                    None => 15,
                },
            )?;
            w.put(f.width, width_code(r.width)? as u64)?;
            w.put(f.hstride, stride_code(r.hstride)? as u64)?;
        }
        (Layout::Swizzle { vstride, swizzle }, true) => {
            w.put(f.vstride, stride_code(vstride)? as u64)?;
            for (field, c) in f.swizzle.iter().zip(swizzle) {
                w.put(*field, c as u64)?;
            }
        }
        (Layout::Swizzle { .. }, false) => return Err(unencodable("align1 source with a swizzle")),
        (Layout::Region(_), true) => return Err(unencodable("align16 source with a region")),
    }
    w.put_flag(f.negate, negate)?;
    w.put_flag(f.abs, abs)
}

/// Whether source `k` of native dwords `dw` is in the immediate file (Src0/Src1 Register
/// File share their bits in every one- and two-source layout).
pub(super) fn source_is_immediate(dw: &[u32], k: usize) -> bool {
    gtsim_spec::gen7::eu_get(EuForm::Align12src, SRC[k].file, dw) == IMM_FILE
}

/// The sources of a one- or two-source instruction in `r`'s layout: in an immediate
/// layout the immediate (as src0, or as src1 after register src0), else up to two
/// register sources.
pub(super) fn read_sources(
    ins: &mut Instruction,
    r: &Fields,
    n: u8,
    src0_imm: bool,
) -> Result<(), DecodeError> {
    let immediate_form = matches!(r.form(), EuForm::Align1Imm | EuForm::Align16Imm);
    if immediate_form {
        let immediate = r.get(F::Immediate);
        let t1 = EuImmtype(r.get(F::Src1RegisterType) as u32);
        if src0_imm {
            ins.srcs.push(Src::Imm {
                ty: imm_type(EuImmtype(r.get(F::Src0ImmediateType) as u32)),
                bits: immediate,
            });
            ins.src1_type_field = (t1.0 != 0).then(|| imm_type(t1));
        } else {
            ins.srcs.push(read_src(r, 0, ins.align16)?);
            ins.srcs.push(Src::Imm {
                ty: imm_type(t1),
                bits: immediate,
            });
        }
    } else {
        for k in 0..usize::from(n.min(2)) {
            ins.srcs.push(read_src(r, k, ins.align16)?);
        }
    }
    Ok(())
}

/// The immediate of a source, if it is one.
pub(super) fn immediate(s: &Src) -> Option<(Type, u64)> {
    match *s {
        Src::Imm { ty, bits } => Some((ty, bits)),
        _ => None,
    }
}

/// Writes the sources of a one- or two-source instruction in `w`'s layout (an immediate
/// layout when one of them is an immediate). An immediate src0 leaves src1's file zero
/// and its type field as `src1_type_field` says (Mesa 22.3 and intel-gen4asm both encode
/// it so; the corpus shows it).
pub(super) fn write_sources(
    w: &mut FieldsMut,
    ins: &Instruction,
    srcs: &[Src],
) -> Result<(), EncodeError> {
    let align16 = ins.align16;
    match (srcs.first().and_then(immediate), srcs.get(1)) {
        (Some((ty, bits)), _) => {
            w.put(F::Src0RegisterFile, IMM_FILE)?;
            w.put(F::Src0ImmediateType, imm_type_code(ty)?.0 as u64)?;
            if let Some(t) = ins.src1_type_field {
                w.put(F::Src1RegisterType, imm_type_code(t)?.0 as u64)?;
            }
            w.put(F::Immediate, bits)?;
            if srcs.len() > 1 {
                return Err(unencodable(
                    "src0 is an immediate in a two-source instruction (only src1 may be)",
                ));
            }
            Ok(())
        }
        (None, Some(s1)) if immediate(s1).is_some() => {
            let (ty, bits) = immediate(s1).unwrap_or((Type::F, 0));
            write_src(w, 0, &srcs[0], align16)?;
            w.put(F::Src1RegisterFile, IMM_FILE)?;
            w.put(F::Src1RegisterType, imm_type_code(ty)?.0 as u64)?;
            w.put(F::Immediate, bits)
        }
        _ => {
            for (k, s) in srcs.iter().enumerate().take(2) {
                write_src(w, k, s, align16)?;
            }
            Ok(())
        }
    }
}

// ---------------------------------------------------------------------------------------
// The three-source layout
// ---------------------------------------------------------------------------------------

/// The fields of three-source operand `k`, by name.
struct Src3Fields {
    nr: F,
    subnr: F,
    replicate: F,
    swizzle: [F; 4],
    negate: F,
    abs: F,
}

/// Sources 0 and 1 keep their names in the three-source layout (at its own bits).
const fn three_source(s: &SrcFields, replicate: F) -> Src3Fields {
    Src3Fields {
        nr: s.nr,
        subnr: s.subnr,
        replicate,
        swizzle: s.swizzle,
        negate: s.negate,
        abs: s.abs,
    }
}

const SRC3: [Src3Fields; 3] = [
    three_source(&SRC[0], F::Src0ReplicateControl),
    three_source(&SRC[1], F::Src1ReplicateControl),
    Src3Fields {
        nr: F::Src2RegisterNumber,
        subnr: F::Src2SubregisterNumber,
        replicate: F::Src2ReplicateControl,
        swizzle: [
            F::Src2SwizzleX,
            F::Src2SwizzleY,
            F::Src2SwizzleZ,
            F::Src2SwizzleW,
        ],
        negate: F::Src2Negate,
        abs: F::Src2Absolute,
    },
];

/// Three-source subregister numbers count dwords (IVB PRM Vol4 Part3, three-source
/// format); every operand is a direct GRF register.
const SRC3_UNIT: u8 = 4;

/// The replicated-scalar region Replicate Control selects: one channel for all.
const SCALAR: Region = Region {
    vstride: Some(0),
    width: 1,
    hstride: 0,
};

/// The destination and three sources of a three-source instruction.
pub(super) fn read_three_source(r: &Fields, ins: &mut Instruction) {
    let st = three_src_type(Eu3srcType(r.get(F::SrcRegisterType) as u32));
    ins.dst = Dst {
        file: RegFile::Grf,
        nr: r.u8(F::DstRegisterNumber),
        subnr: r.u8(F::DstSubregisterNumber) * SRC3_UNIT,
        ty: three_src_type(Eu3srcType(r.get(F::DstRegisterType) as u32)),
        layout: DstLayout::WriteMask(r.u8(F::DstWritemask)),
        address: Address::Direct,
    };
    for f in &SRC3 {
        ins.srcs.push(Src::Reg {
            file: RegFile::Grf,
            nr: r.u8(f.nr),
            subnr: r.u8(f.subnr) * SRC3_UNIT,
            ty: st,
            layout: if r.flag(f.replicate) {
                Layout::Region(SCALAR)
            } else {
                Layout::Swizzle {
                    vstride: 4,
                    swizzle: f.swizzle.map(|c| r.u8(c)),
                }
            },
            address: Address::Direct,
            negate: r.flag(f.negate),
            abs: r.flag(f.abs),
        });
    }
}

fn dword_subregister(subnr: u8) -> Result<u64, EncodeError> {
    if !subnr.is_multiple_of(SRC3_UNIT) {
        return Err(unencodable(format!(
            "three-source subregister byte {subnr} is not a whole dword"
        )));
    }
    Ok((subnr / SRC3_UNIT) as u64)
}

/// Writes the destination and three sources of a three-source instruction. A replicated
/// scalar keeps a .xxxx swizzle, as Mesa encodes it.
pub(super) fn write_three_source(w: &mut FieldsMut, ins: &Instruction) -> Result<(), EncodeError> {
    let DstLayout::WriteMask(wm) = ins.dst.layout else {
        return Err(unencodable("three-source destination needs a write mask"));
    };
    if ins.dst.file != RegFile::Grf || ins.dst.address != Address::Direct {
        return Err(unencodable(
            "the three-source destination is a direct GRF register",
        ));
    }
    if ins.srcs.len() != 3 {
        return Err(unencodable("three-source instruction needs three sources"));
    }
    w.put(F::DstRegisterNumber, ins.dst.nr as u64)?;
    w.put(F::DstSubregisterNumber, dword_subregister(ins.dst.subnr)?)?;
    w.put(F::DstWritemask, wm as u64)?;
    w.put(
        F::DstRegisterType,
        three_src_type_code(ins.dst.ty)?.0 as u64,
    )?;
    let mut src_type = Type::F;
    for (f, s) in SRC3.iter().zip(&ins.srcs) {
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
            return Err(unencodable(
                "three-source operands are direct GRF registers",
            ));
        };
        src_type = ty;
        let (replicate, swizzle) = match layout {
            Layout::Region(r) if r == SCALAR => (true, [0; 4]),
            Layout::Swizzle { swizzle, .. } => (false, swizzle),
            _ => {
                return Err(unencodable(
                    "three-source region must be a swizzle or <0;1,0>",
                ));
            }
        };
        w.put(f.nr, nr as u64)?;
        w.put(f.subnr, dword_subregister(subnr)?)?;
        w.put_flag(f.replicate, replicate)?;
        for (field, c) in f.swizzle.iter().zip(swizzle) {
            w.put(*field, c as u64)?;
        }
        w.put_flag(f.negate, negate)?;
        w.put_flag(f.abs, abs)?;
    }
    w.put(F::SrcRegisterType, three_src_type_code(src_type)?.0 as u64)
}
