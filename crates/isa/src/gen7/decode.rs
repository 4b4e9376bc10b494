//! Native Gen7 instructions to IR.

use super::codes;
use super::*;
use crate::ir::*;
use crate::opcode::{Kind, Opcode};
use gtsim_spec::gen7::*;

fn words(bytes: &[u8], n: usize) -> Result<Vec<u32>, DecodeError> {
    if bytes.len() < n * 4 {
        return Err(DecodeError::Truncated {
            need: n * 4,
            have: bytes.len(),
        });
    }
    Ok(bytes[..n * 4]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn bad<E: std::fmt::Display>(e: E) -> DecodeError {
    DecodeError::Invalid(e.to_string())
}

fn file(f: EuRegfile) -> RegFile {
    match f.0 {
        0 => RegFile::Arf,
        1 => RegFile::Grf,
        2 => RegFile::Mrf,
        _ => RegFile::Imm,
    }
}

/// Source operands whose fields an instruction's encoding carries. `wait` names one
/// source, but Mesa fills src1 too (null:F <4>.xyzw in align16, Mesa's assembler test
/// src/intel/tools/tests/gen7/wait.expected), so its fields are kept for the round trip.
fn encoded_sources(op: Opcode) -> u8 {
    if op == Opcode::Wait { 2 } else { op.sources() }
}

/// Decodes one instruction (native or compacted) at the start of `bytes`; returns it and
/// its size in bytes.
pub fn decode(bytes: &[u8]) -> Result<(Instruction, usize), DecodeError> {
    let first = words(bytes, 2)?;
    // Compaction Control is bit 29 of the first dword in both forms.
    if first[0] & (1 << 29) != 0 {
        let native = super::compact::uncompact([first[0], first[1]])?;
        let mut ins = decode_native(&native)?;
        if matches!(ins.opcode, Opcode::Nop | Opcode::Illegal) {
            return Err(DecodeError::Invalid(format!(
                "a compacted {}",
                ins.opcode.mnemonic()
            )));
        }
        ins.compacted = true;
        return Ok((ins, 8));
    }
    let dw = words(bytes, 4)?;
    // nop and illegal print no fields (Mesa encodes them all-zero but the opcode), so
    // anything else set cannot be shown.
    let op = dw[0] & 0x7f;
    if matches!(op, 0 | 0x7e) && (dw[0] & !0x7f) | dw[1] | dw[2] | dw[3] != 0 {
        return Err(DecodeError::Invalid(format!(
            "opcode {op:#x} (nop/illegal) with other fields set"
        )));
    }
    Ok((decode_native(&dw)?, 16))
}

/// Decodes a native (128-bit) instruction.
pub fn decode_native(dw: &[u32]) -> Result<Instruction, DecodeError> {
    // The header fields are common to every form; read them through the align1 layout
    // with Access Mode masked (it is fixed per form in the spec).
    let header = [dw[0] & !(1 << 8), dw[1], dw[2], dw[3]];
    let common = EuInstructionAlign12src::unpack(&header).map_err(bad)?;
    let opcode = common
        .opcode
        .name()
        .and_then(Opcode::from_mnemonic)
        .ok_or(DecodeError::UnknownOpcode(common.opcode.0))?;
    let align16 = dw[0] & (1 << 8) != 0;
    let mut ins = Instruction {
        opcode,
        align16,
        mask_disable: common.mask_control.0 != 0,
        dep_control: common.dependency_control.0 as u8,
        qtr_control: common.quarter_control.0 as u8,
        nib_control: common.nibble_control != 0,
        thread_control: common.thread_control.0 as u8,
        predicate: codes::pred_control(common.predicate_control.0, align16)?.map(|control| {
            Predicate {
                control,
                inverse: common.predicate_inverse,
            }
        }),
        exec_size: exec_size_from_code(common.execution_size.0),
        cond_modifier: None,
        math: None,
        sfid: None,
        ex_desc: 0,
        flag: (common.flag_register_number, common.flag_subregister_number),
        acc_write: common.accumulator_write_control,
        saturate: common.saturate,
        debug: common.debug_control,
        eot: false,
        dst: Dst {
            file: RegFile::Grf,
            nr: 0,
            subnr: 0,
            ty: Type::F,
            layout: DstLayout::HStride(1),
            address: Address::Direct,
        },
        srcs: vec![],
        jip: None,
        uip: None,
        desc: None,
        compacted: false,
        src1_type_field: None,
    };
    match opcode.kind() {
        Kind::Math => ins.math = Some(codes::math_function(common.math_function.0)?),
        Kind::Send => {}
        _ => ins.cond_modifier = codes::cond_modifier(common.conditional_modifier.0)?,
    }
    match opcode.kind() {
        Kind::Send => decode_send(dw, &mut ins)?,
        Kind::Branch => decode_branch(dw, &mut ins)?,
        Kind::Alu3 => decode_3src(dw, &mut ins)?,
        _ if align16 => decode_align16(dw, &mut ins)?,
        _ => decode_align1(dw, &mut ins)?,
    }
    super::validate::controls(&ins)?;
    super::validate::operands(&ins)?;
    Ok(ins)
}

#[allow(
    clippy::too_many_arguments,
    reason = "the fields of one align1 destination"
)]
fn dst_align1(
    file_: EuRegfile,
    ty: Type,
    mode: EuAddrmode,
    nr: u8,
    subnr: u8,
    ia_sub: u8,
    ia_imm: i16,
    hstride: EuHstride,
) -> Dst {
    Dst {
        file: file(file_),
        nr,
        subnr,
        ty,
        layout: DstLayout::HStride(stride_from_code(hstride.0)),
        address: if mode.0 == 0 {
            Address::Direct
        } else {
            Address::Indirect {
                subnr: ia_sub,
                offset: ia_imm,
            }
        },
    }
}

#[allow(clippy::too_many_arguments, reason = "the fields of one align1 source")]
fn src_align1(
    f: EuRegfile,
    ty: Type,
    mode: EuAddrmode,
    nr: u8,
    subnr: u8,
    ia_sub: u8,
    ia_imm: i16,
    vs: EuVstride,
    w: EuWidth,
    hs: EuHstride,
    negate: bool,
    abs: bool,
) -> Result<Src, DecodeError> {
    // Vertical stride codes 7..14 and width codes 5..7 are reserved (IVB PRM Vol4 Part3
    // "Region Parameters").
    if (7..15).contains(&vs.0) {
        return Err(DecodeError::Invalid(format!(
            "reserved vertical stride code {}",
            vs.0
        )));
    }
    if w.0 > 4 {
        return Err(DecodeError::Invalid(format!("reserved width code {}", w.0)));
    }
    Ok(Src::Reg {
        file: file(f),
        nr,
        subnr,
        ty,
        layout: Layout::Region(Region {
            vstride: (vs.0 != 15).then(|| stride_from_code(vs.0)),
            width: width_from_code(w.0),
            hstride: stride_from_code(hs.0),
        }),
        address: if mode.0 == 0 {
            Address::Direct
        } else {
            Address::Indirect {
                subnr: ia_sub,
                offset: ia_imm,
            }
        },
        negate,
        abs,
    })
}

/// An instruction's dwords read in one of its layouts, field by field through the spec's
/// generated accessors.
struct Fields<'a> {
    form: EuForm,
    dw: &'a [u32],
}

impl<'a> Fields<'a> {
    /// The layout `form` of `dw`, after unpacking checks its fixed fields.
    fn new(form: EuForm, dw: &'a [u32]) -> Result<Fields<'a>, DecodeError> {
        match form {
            EuForm::Align1Imm => {
                EuInstructionAlign1Imm::unpack(dw).map_err(bad)?;
            }
            EuForm::Align12src => {
                EuInstructionAlign12src::unpack(dw).map_err(bad)?;
            }
            EuForm::Align16Imm => {
                EuInstructionAlign16Imm::unpack(dw).map_err(bad)?;
            }
            _ => {
                EuInstructionAlign162src::unpack(dw).map_err(bad)?;
            }
        }
        Ok(Fields { form, dw })
    }

    fn get(&self, f: EuField) -> u64 {
        eu_get(self.form, f, self.dw)
    }

    fn signed(&self, f: EuField) -> i64 {
        eu_field(self.form, f).map_or(0, |(s, e)| {
            gtsim_spec::bits::sext(gtsim_spec::bits::get(self.dw, s, e), e - s + 1)
        })
    }

    fn immediate_form(&self) -> bool {
        matches!(self.form, EuForm::Align1Imm | EuForm::Align16Imm)
    }
}

/// The sources of a one- or two-source instruction: in an immediate layout the immediate
/// (as src0, or as src1 after register src0 `source(0)`), else up to two register
/// sources `source(k)`.
fn push_sources(
    ins: &mut Instruction,
    r: &Fields,
    n: u8,
    src0_imm: bool,
    source: &dyn Fn(usize) -> Result<Src, DecodeError>,
) -> Result<(), DecodeError> {
    if r.immediate_form() {
        let immediate = r.get(EuField::Immediate);
        let t1 = EuImmtype(r.get(EuField::Src1RegisterType) as u32);
        if src0_imm {
            ins.srcs.push(Src::Imm {
                ty: imm_type(EuImmtype(r.get(EuField::Src0ImmediateType) as u32)),
                bits: immediate,
            });
            ins.src1_type_field = (t1.0 != 0).then(|| imm_type(t1));
        } else {
            ins.srcs.push(source(0)?);
            ins.srcs.push(Src::Imm {
                ty: imm_type(t1),
                bits: immediate,
            });
        }
    } else {
        for k in 0..usize::from(n.min(2)) {
            ins.srcs.push(source(k)?);
        }
    }
    Ok(())
}

/// The fields of align1 register sources 0 and 1, in `src_align1`'s argument order.
const SRC1_FIELDS: [[EuField; 12]; 2] = [
    [
        EuField::Src0RegisterFile,
        EuField::Src0RegisterType,
        EuField::Src0AddressMode,
        EuField::Src0RegisterNumber,
        EuField::Src0SubregisterNumber,
        EuField::Src0IndirectAddressSubregister,
        EuField::Src0IndirectAddressImmediate,
        EuField::Src0VerticalStride,
        EuField::Src0Width,
        EuField::Src0HorizontalStride,
        EuField::Src0Negate,
        EuField::Src0Absolute,
    ],
    [
        EuField::Src1RegisterFile,
        EuField::Src1RegisterType,
        EuField::Src1AddressMode,
        EuField::Src1RegisterNumber,
        EuField::Src1SubregisterNumber,
        EuField::Src1IndirectAddressSubregister,
        EuField::Src1IndirectAddressImmediate,
        EuField::Src1VerticalStride,
        EuField::Src1Width,
        EuField::Src1HorizontalStride,
        EuField::Src1Negate,
        EuField::Src1Absolute,
    ],
];

fn decode_align1(dw: &[u32], ins: &mut Instruction) -> Result<(), DecodeError> {
    let n = encoded_sources(ins.opcode);
    let src0_imm = (dw[1] >> 5) & 3 == 3;
    let src1_imm = (dw[1] >> 10) & 3 == 3;
    // Operands are read by field name through the spec's generated accessors, the same
    // way whichever align1 layout the instruction uses.
    let imm = src0_imm || (src1_imm && n >= 2);
    let r = Fields::new(
        if imm {
            EuForm::Align1Imm
        } else {
            EuForm::Align12src
        },
        dw,
    )?;
    ins.dst = dst_align1(
        EuRegfile(r.get(EuField::DstRegisterFile) as u32),
        reg_type(EuRegtype(r.get(EuField::DstRegisterType) as u32)),
        EuAddrmode(r.get(EuField::DstAddressMode) as u32),
        r.get(EuField::DstRegisterNumber) as u8,
        r.get(EuField::DstSubregisterNumber) as u8,
        r.get(EuField::DstIndirectAddressSubregister) as u8,
        r.signed(EuField::DstIndirectAddressImmediate) as i16,
        EuHstride(r.get(EuField::DstHorizontalStride) as u32),
    );
    let source = |k: usize| {
        let f = &SRC1_FIELDS[k];
        src_align1(
            EuRegfile(r.get(f[0]) as u32),
            reg_type(EuRegtype(r.get(f[1]) as u32)),
            EuAddrmode(r.get(f[2]) as u32),
            r.get(f[3]) as u8,
            r.get(f[4]) as u8,
            r.get(f[5]) as u8,
            r.signed(f[6]) as i16,
            EuVstride(r.get(f[7]) as u32),
            EuWidth(r.get(f[8]) as u32),
            EuHstride(r.get(f[9]) as u32),
            r.get(f[10]) != 0,
            r.get(f[11]) != 0,
        )
    };
    push_sources(ins, &r, n, src0_imm, &source)?;
    Ok(())
}

fn swz(
    x: EuSwizzleChannel,
    y: EuSwizzleChannel,
    z: EuSwizzleChannel,
    w: EuSwizzleChannel,
) -> Swizzle {
    [x.0 as u8, y.0 as u8, z.0 as u8, w.0 as u8]
}

/// The fields of align16 register sources 0 and 1, in `src16`'s argument order.
const SRC16_FIELDS: [[EuField; 14]; 2] = [
    [
        EuField::Src0RegisterFile,
        EuField::Src0RegisterType,
        EuField::Src0AddressMode,
        EuField::Src0RegisterNumber,
        EuField::Src0SubregisterNumber,
        EuField::Src0VerticalStride,
        EuField::Src0SwizzleX,
        EuField::Src0SwizzleY,
        EuField::Src0SwizzleZ,
        EuField::Src0SwizzleW,
        EuField::Src0IndirectAddressSubregister,
        EuField::Src0IndirectAddressImmediate,
        EuField::Src0Negate,
        EuField::Src0Absolute,
    ],
    [
        EuField::Src1RegisterFile,
        EuField::Src1RegisterType,
        EuField::Src1AddressMode,
        EuField::Src1RegisterNumber,
        EuField::Src1SubregisterNumber,
        EuField::Src1VerticalStride,
        EuField::Src1SwizzleX,
        EuField::Src1SwizzleY,
        EuField::Src1SwizzleZ,
        EuField::Src1SwizzleW,
        EuField::Src1IndirectAddressSubregister,
        EuField::Src1IndirectAddressImmediate,
        EuField::Src1Negate,
        EuField::Src1Absolute,
    ],
];

fn decode_align16(dw: &[u32], ins: &mut Instruction) -> Result<(), DecodeError> {
    let n = encoded_sources(ins.opcode);
    let src0_imm = (dw[1] >> 5) & 3 == 3;
    let src1_imm = (dw[1] >> 10) & 3 == 3;
    // EU_INSTRUCTION_ALIGN16_2SRC: Dst Horizontal Stride must be 1, and bit 20 of the
    // source dwords (an align1 width bit) is reserved, must be zero.
    if (dw[1] >> 29) & 3 != 1 {
        return Err(DecodeError::Invalid(format!(
            "align16 destination horizontal stride code {} (must be 1)",
            (dw[1] >> 29) & 3
        )));
    }
    if !src0_imm && dw[2] & (1 << 20) != 0
        || n >= 2 && !src0_imm && !src1_imm && dw[3] & (1 << 20) != 0
    {
        return Err(DecodeError::Invalid(
            "align16 source sets reserved bit 20".into(),
        ));
    }
    let dst16 = |f: EuRegfile,
                 t: EuRegtype,
                 mode: EuAddrmode,
                 nr: u8,
                 sub: u8,
                 wm: u8,
                 ia_sub: u8,
                 ia_imm: i8| Dst {
        file: file(f),
        nr,
        subnr: sub * 16,
        ty: reg_type(t),
        layout: DstLayout::WriteMask(wm),
        address: if mode.0 == 0 {
            Address::Direct
        } else {
            Address::Indirect {
                subnr: ia_sub,
                offset: ia_imm as i16 * 16,
            }
        },
    };
    #[allow(
        clippy::too_many_arguments,
        reason = "the fields of one align16 source"
    )]
    fn src16(
        f: EuRegfile,
        t: EuRegtype,
        mode: EuAddrmode,
        nr: u8,
        sub: u8,
        vs: EuVstride,
        s: Swizzle,
        ia_sub: u8,
        ia_imm: i8,
        negate: bool,
        abs: bool,
    ) -> Result<Src, DecodeError> {
        // Align16 vertical strides are 0 or 4 (codes 0 and 3); codes 7..15 are reserved
        // (IVB PRM Vol4 Part3 "Region Parameters").
        if vs.0 > 6 {
            return Err(DecodeError::Invalid(format!(
                "reserved vertical stride code {}",
                vs.0
            )));
        }
        Ok(Src::Reg {
            file: file(f),
            nr,
            subnr: sub * 16,
            ty: reg_type(t),
            layout: Layout::Swizzle {
                vstride: stride_from_code(vs.0),
                swizzle: s,
            },
            address: if mode.0 == 0 {
                Address::Direct
            } else {
                Address::Indirect {
                    subnr: ia_sub,
                    offset: ia_imm as i16 * 16,
                }
            },
            negate,
            abs,
        })
    }
    // Operands are read by field name through the spec's generated accessors, the same
    // way whichever align16 layout the instruction uses.
    let imm = src0_imm || (src1_imm && n >= 2);
    let r = Fields::new(
        if imm {
            EuForm::Align16Imm
        } else {
            EuForm::Align162src
        },
        dw,
    )?;
    ins.dst = dst16(
        EuRegfile(r.get(EuField::DstRegisterFile) as u32),
        EuRegtype(r.get(EuField::DstRegisterType) as u32),
        EuAddrmode(r.get(EuField::DstAddressMode) as u32),
        r.get(EuField::DstRegisterNumber) as u8,
        r.get(EuField::DstSubregisterNumber) as u8,
        r.get(EuField::DstWritemask) as u8,
        r.get(EuField::DstIndirectAddressSubregister) as u8,
        r.signed(EuField::DstIndirectAddressImmediate) as i8,
    );
    let source = |k: usize| {
        let f = &SRC16_FIELDS[k];
        src16(
            EuRegfile(r.get(f[0]) as u32),
            EuRegtype(r.get(f[1]) as u32),
            EuAddrmode(r.get(f[2]) as u32),
            r.get(f[3]) as u8,
            r.get(f[4]) as u8,
            EuVstride(r.get(f[5]) as u32),
            [
                r.get(f[6]) as u8,
                r.get(f[7]) as u8,
                r.get(f[8]) as u8,
                r.get(f[9]) as u8,
            ],
            r.get(f[10]) as u8,
            r.signed(f[11]) as i8,
            r.get(f[12]) != 0,
            r.get(f[13]) != 0,
        )
    };
    push_sources(ins, &r, n, src0_imm, &source)?;
    Ok(())
}

fn decode_3src(dw: &[u32], ins: &mut Instruction) -> Result<(), DecodeError> {
    let i = EuInstruction3src::unpack(dw).map_err(bad)?;
    // The three-source form keeps the flag register in dword 1.
    ins.flag = (i.flag_register_number, i.flag_subregister_number);
    let st = three_src_type(i.src_register_type);
    // Three-source subregister numbers count dwords (IVB PRM Vol4 Part3 3-src format).
    ins.dst = Dst {
        file: RegFile::Grf,
        nr: i.dst_register_number,
        subnr: i.dst_subregister_number * 4,
        ty: three_src_type(i.dst_register_type),
        layout: DstLayout::WriteMask(i.dst_writemask),
        address: Address::Direct,
    };
    let src = |nr: u8, sub: u8, rep: bool, s: Swizzle, negate: bool, abs: bool| Src::Reg {
        file: RegFile::Grf,
        nr,
        subnr: sub * 4,
        ty: st,
        // Replicate control reads one scalar for every channel: region <0;1,0>.
        layout: if rep {
            Layout::Region(Region {
                vstride: Some(0),
                width: 1,
                hstride: 0,
            })
        } else {
            Layout::Swizzle {
                vstride: 4,
                swizzle: s,
            }
        },
        address: Address::Direct,
        negate,
        abs,
    };
    ins.srcs.push(src(
        i.src0_register_number,
        i.src0_subregister_number,
        i.src0_replicate_control,
        swz(
            i.src0_swizzle_x,
            i.src0_swizzle_y,
            i.src0_swizzle_z,
            i.src0_swizzle_w,
        ),
        i.src0_negate,
        i.src0_absolute,
    ));
    ins.srcs.push(src(
        i.src1_register_number,
        i.src1_subregister_number,
        i.src1_replicate_control,
        swz(
            i.src1_swizzle_x,
            i.src1_swizzle_y,
            i.src1_swizzle_z,
            i.src1_swizzle_w,
        ),
        i.src1_negate,
        i.src1_absolute,
    ));
    ins.srcs.push(src(
        i.src2_register_number,
        i.src2_subregister_number,
        i.src2_replicate_control,
        swz(
            i.src2_swizzle_x,
            i.src2_swizzle_y,
            i.src2_swizzle_z,
            i.src2_swizzle_w,
        ),
        i.src2_negate,
        i.src2_absolute,
    ));
    Ok(())
}

fn decode_send(dw: &[u32], ins: &mut Instruction) -> Result<(), DecodeError> {
    // Dwords 0-2 hold dst and src0 in the instruction's access mode (align16 sends exist:
    // Mesa's vec4 backend); src1's file/type and dword 3 hold the message descriptor.
    let i = EuInstructionSend::unpack(&[dw[0] & !(1 << 8), dw[1], dw[2], dw[3]]).map_err(bad)?;
    ins.sfid = Some(codes::sfid(i.shared_function_id.0)?);
    // Read as a one-source instruction, so src1 (the descriptor) is not taken for an operand.
    let shell = [dw[0], dw[1], dw[2], 0];
    let mut view = ins.clone();
    view.opcode = Opcode::Mov;
    if ins.align16 {
        decode_align16(&shell, &mut view)?;
    } else {
        decode_align1(&shell, &mut view)?;
    }
    ins.dst = view.dst;
    ins.srcs = view.srcs;
    if i.src1_register_file.0 == 3 {
        if dw[3] & 0x6000_0000 != 0 {
            return Err(DecodeError::Invalid(format!(
                "send descriptor {:#010x} sets reserved bits 30:29",
                dw[3]
            )));
        }
        ins.eot = i.end_of_thread;
        ins.desc = Some(dw[3] & 0x7fff_ffff);
        ins.src1_type_field = (i.src1_register_type.0 != 0).then(|| imm_type(i.src1_register_type));
    } else {
        // Descriptor in a register (a0.0): the message is only known at run time. The
        // register is direct (EU_INSTRUCTION_SEND has no indirect src1 overlays).
        if i.src1_address_mode.0 != 0 {
            return Err(DecodeError::Invalid(
                "send with an indirectly addressed descriptor register".into(),
            ));
        }
        ins.srcs.push(src_align1(
            i.src1_register_file,
            reg_type(EuRegtype(i.src1_register_type.0)),
            i.src1_address_mode,
            i.src1_register_number,
            i.src1_subregister_number,
            0,
            0,
            i.src1_vertical_stride,
            i.src1_width,
            i.src1_horizontal_stride,
            i.src1_negate,
            i.src1_absolute,
        )?);
    }
    Ok(())
}

fn decode_branch(dw: &[u32], ins: &mut Instruction) -> Result<(), DecodeError> {
    // Dwords 0-2 are laid out as an align1 instruction (with its indirect forms), or as an
    // align16 one (write mask, swizzle) when Access Mode says so; dword 3 holds JIP and UIP
    // instead of src1's register fields, but src1's file and type stay in dword 1 and
    // encoders differ in what they put there (Mesa: IMM W or D; gen4asm: ARF).
    let i = EuInstructionBranch::unpack(dw).map_err(bad)?;
    if ins.align16 {
        // Read dst and src0 as a one-source align16 instruction (as decode_send does).
        let mut view = ins.clone();
        view.opcode = Opcode::Mov;
        decode_align16(&[dw[0], dw[1] & !(0x1f << 10), dw[2], 0], &mut view)?;
        ins.dst = view.dst;
        ins.srcs = view.srcs;
        ins.srcs.push(if i.src1_register_file.0 == 3 {
            Src::Imm {
                ty: imm_type(i.src1_register_type),
                bits: 0,
            }
        } else {
            Src::Reg {
                file: file(i.src1_register_file),
                nr: 0,
                subnr: 0,
                ty: reg_type(EuRegtype(i.src1_register_type.0)),
                layout: Layout::Swizzle {
                    vstride: 0,
                    swizzle: [0, 1, 2, 3],
                },
                address: Address::Direct,
                negate: false,
                abs: false,
            }
        });
        ins.jip = Some(i.jip as i32 * JUMP_UNIT);
        ins.uip = Some(i.uip as i32 * JUMP_UNIT);
        return Ok(());
    }
    let a = EuInstructionAlign12src::unpack(&[dw[0] & !(1 << 8), dw[1], dw[2], 0]).map_err(bad)?;
    ins.dst = dst_align1(
        a.dst_register_file,
        reg_type(a.dst_register_type),
        a.dst_address_mode,
        a.dst_register_number,
        a.dst_subregister_number,
        a.dst_indirect_address_subregister,
        a.dst_indirect_address_immediate,
        a.dst_horizontal_stride,
    );
    ins.srcs.push(src_align1(
        a.src0_register_file,
        reg_type(a.src0_register_type),
        a.src0_address_mode,
        a.src0_register_number,
        a.src0_subregister_number,
        a.src0_indirect_address_subregister,
        a.src0_indirect_address_immediate,
        a.src0_vertical_stride,
        a.src0_width,
        a.src0_horizontal_stride,
        a.src0_negate,
        a.src0_absolute,
    )?);
    ins.srcs.push(if i.src1_register_file.0 == 3 {
        Src::Imm {
            ty: imm_type(i.src1_register_type),
            bits: 0,
        }
    } else {
        Src::Reg {
            file: file(i.src1_register_file),
            nr: 0,
            subnr: 0,
            ty: reg_type(EuRegtype(i.src1_register_type.0)),
            layout: Layout::Region(Region {
                vstride: Some(0),
                width: 1,
                hstride: 0,
            }),
            address: Address::Direct,
            negate: false,
            abs: false,
        }
    });
    ins.jip = Some(i.jip as i32 * JUMP_UNIT);
    ins.uip = Some(i.uip as i32 * JUMP_UNIT);
    Ok(())
}
