//! What every generation's encoder shares: reading and writing an instruction's fields by
//! name in one of its layouts (the spec's generated `EuForm`/`EuField` accessors, in the
//! spirit of Mesa's brw_inst.h), the header fields (controls, predicate, modifier, flag
//! register) every layout names alike, the code tables of the IR's control enumerations,
//! and the region and execution-size codes, which Gen7 and Gen11 encode alike (Mesa
//! brw_eu_defines.h enum brw_horizontal_stride / brw_vertical_stride / brw_width /
//! brw_execution_size).
//!
//! A generation plugs in by implementing [`Layout`] for its `EuForm` and describing its
//! header fields ([`Header`]) and code tables ([`Codes`]).

use crate::error::{DecodeError, EncodeError};
use crate::ir::*;
use crate::opcode::{Kind, Opcode};
use gtsim_spec::bits;
use gtsim_spec::table::Def;
use std::fmt::Debug;

/// One instruction layout of a generation (its spec `EuForm`).
pub(crate) trait Layout: Copy + Debug {
    /// The generation's field names (`EuField`).
    type Field: Copy + Debug;
    /// The bits of `f` in this layout, if it has the field.
    fn bits(self, f: Self::Field) -> Option<(u32, u32)>;
    /// The layout's definition (fixed fields).
    fn def(self) -> &'static Def;
}

pub(crate) fn unencodable(why: impl Into<String>) -> EncodeError {
    EncodeError::Unencodable(why.into())
}

/// An instruction's dwords read in one of its layouts.
pub(crate) struct Fields<'a, L: Layout> {
    form: L,
    dw: &'a [u32],
}

impl<'a, L: Layout> Fields<'a, L> {
    /// The layout `form` of `dw`, after checking its fixed fields.
    pub(crate) fn new(form: L, dw: &'a [u32]) -> Result<Fields<'a, L>, DecodeError> {
        form.def()
            .check_fixed(dw)
            .map_err(|e| DecodeError::Invalid(e.to_string()))?;
        Ok(Fields { form, dw })
    }

    pub(crate) fn form(&self) -> L {
        self.form
    }

    /// The field's bits (0 where the layout has no such field).
    pub(crate) fn get(&self, f: L::Field) -> u64 {
        self.form
            .bits(f)
            .map_or(0, |(s, e)| bits::get(self.dw, s, e))
    }

    pub(crate) fn u8(&self, f: L::Field) -> u8 {
        self.get(f) as u8
    }

    pub(crate) fn flag(&self, f: L::Field) -> bool {
        self.get(f) != 0
    }

    /// The field read as two's complement.
    pub(crate) fn signed(&self, f: L::Field) -> i64 {
        self.form
            .bits(f)
            .map_or(0, |(s, e)| bits::sext(bits::get(self.dw, s, e), e - s + 1))
    }
}

/// Dwords being written in one layout. Every value is checked against its field's width:
/// a value that does not fit is an error, never a truncation.
pub(crate) struct FieldsMut<L: Layout> {
    form: L,
    dw: [u32; 4],
}

impl<L: Layout> FieldsMut<L> {
    pub(crate) fn new(form: L) -> FieldsMut<L> {
        FieldsMut { form, dw: [0; 4] }
    }

    /// Writes the following fields in layout `form`.
    pub(crate) fn set_form(&mut self, form: L) {
        self.form = form;
    }

    fn bits(&self, f: L::Field, nonzero: bool) -> Result<Option<(u32, u32)>, EncodeError> {
        match self.form.bits(f) {
            Some(b) => Ok(Some(b)),
            None if !nonzero => Ok(None),
            None => Err(unencodable(format!(
                "the {:?} layout has no {f:?} field",
                self.form
            ))),
        }
    }

    /// Writes an unsigned field.
    pub(crate) fn put(&mut self, f: L::Field, value: u64) -> Result<(), EncodeError> {
        let Some((s, e)) = self.bits(f, value != 0)? else {
            return Ok(());
        };
        let w = e - s + 1;
        if w < 64 && value >> w != 0 {
            return Err(unencodable(format!(
                "{f:?} {value} does not fit its {w} bits"
            )));
        }
        bits::set(&mut self.dw, s, e, value);
        Ok(())
    }

    /// Writes a two's complement field.
    pub(crate) fn put_signed(&mut self, f: L::Field, value: i64) -> Result<(), EncodeError> {
        let Some((s, e)) = self.bits(f, value != 0)? else {
            return Ok(());
        };
        let w = e - s + 1;
        let (lo, hi) = (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1);
        if value < lo || value > hi {
            return Err(unencodable(format!(
                "{f:?} {value} does not fit its {w} signed bits"
            )));
        }
        bits::set(&mut self.dw, s, e, value as u64 & ((1u64 << w) - 1));
        Ok(())
    }

    pub(crate) fn put_flag(&mut self, f: L::Field, value: bool) -> Result<(), EncodeError> {
        self.put(f, value as u64)
    }

    /// The instruction, after checking it against its layout's fixed fields.
    pub(crate) fn finish(self) -> Result<[u32; 4], EncodeError> {
        self.form
            .def()
            .check_fixed(&self.dw)
            .map_err(|e| unencodable(e.to_string()))?;
        Ok(self.dw)
    }
}

// ---------------------------------------------------------------------------------------
// Code tables
// ---------------------------------------------------------------------------------------

/// A generation's codes for the IR's control enumerations (code, value), and its opcode
/// numbers by mnemonic (the spec's EU_OPCODE).
pub(crate) struct Codes {
    pub cond: &'static [(u32, CondModifier)],
    pub pred1: &'static [(u32, Align1Predicate)],
    pub pred16: &'static [(u32, Align16Predicate)],
    pub math: &'static [(u32, MathFunction)],
    pub sfid: &'static [(u32, Sfid)],
    /// The mnemonic of an opcode number.
    pub opcode_name: fn(u32) -> Option<&'static str>,
    /// The generation's name, for messages.
    pub name: &'static str,
}

pub(crate) fn lookup<T: Copy>(table: &[(u32, T)], code: u32, what: &str) -> Result<T, DecodeError> {
    table
        .iter()
        .find(|e| e.0 == code)
        .map(|e| e.1)
        .ok_or_else(|| DecodeError::Invalid(format!("reserved {what} {code}")))
}

pub(crate) fn code<T: Copy + PartialEq>(table: &[(u32, T)], v: T) -> u32 {
    table.iter().find(|e| e.1 == v).map_or(0, |e| e.0)
}

impl Codes {
    pub(crate) fn opcode(&self, code: u32) -> Result<Opcode, DecodeError> {
        (self.opcode_name)(code)
            .and_then(Opcode::from_mnemonic)
            .ok_or(DecodeError::UnknownOpcode(code))
    }

    pub(crate) fn opcode_code(&self, op: Opcode) -> Result<u32, EncodeError> {
        (0..128)
            .find(|&c| (self.opcode_name)(c) == Some(op.mnemonic()))
            .ok_or_else(|| unencodable(format!("{} is not a {} opcode", op.mnemonic(), self.name)))
    }

    pub(crate) fn cond_modifier(&self, c: u32) -> Result<Option<CondModifier>, DecodeError> {
        if c == 0 {
            return Ok(None);
        }
        lookup(self.cond, c, "conditional modifier").map(Some)
    }

    pub(crate) fn pred_control(
        &self,
        c: u32,
        align16: bool,
    ) -> Result<Option<PredControl>, DecodeError> {
        if c == 0 {
            return Ok(None);
        }
        Ok(Some(if align16 {
            PredControl::Align16(lookup(self.pred16, c, "predicate control")?)
        } else {
            PredControl::Align1(lookup(self.pred1, c, "predicate control")?)
        }))
    }

    pub(crate) fn pred_control_code(&self, p: PredControl) -> u32 {
        match p {
            PredControl::Align1(p) => code(self.pred1, p),
            PredControl::Align16(p) => code(self.pred16, p),
        }
    }

    fn known<T: Copy + PartialEq + Debug>(
        table: &[(u32, T)],
        v: T,
        name: &str,
    ) -> Result<u32, EncodeError> {
        table
            .iter()
            .find(|e| e.1 == v)
            .map(|e| e.0)
            .ok_or_else(|| unencodable(format!("{v:?} has no {name} encoding")))
    }
}

// ---------------------------------------------------------------------------------------
// The header
// ---------------------------------------------------------------------------------------

/// The header fields' names in a generation's layouts (every layout of a generation names
/// them alike; Math Function and Shared Function ID share Conditional Modifier's bits).
pub(crate) struct Header<F> {
    pub saturate: F,
    pub debug: F,
    pub acc_write: F,
    pub cond_modifier: F,
    pub math_function: F,
    pub sfid: F,
    pub exec_size: F,
    pub pred_inverse: F,
    pub pred_control: F,
    pub thread_control: F,
    pub qtr_control: F,
    pub nib_control: F,
    pub dep_control: F,
    pub mask_control: F,
    pub access_mode: F,
    pub opcode: F,
    pub flag_reg: F,
    pub flag_subreg: F,
}

/// An instruction with the header fields of `r` and no operands yet.
pub(crate) fn read_header<L: Layout>(
    r: &Fields<L>,
    h: &Header<L::Field>,
    codes: &Codes,
    opcode: Opcode,
    align16: bool,
) -> Result<Instruction, DecodeError> {
    let mut ins = Instruction::new(opcode);
    ins.align16 = align16;
    ins.mask_disable = r.flag(h.mask_control);
    ins.dep_control = r.u8(h.dep_control);
    ins.qtr_control = r.u8(h.qtr_control);
    ins.nib_control = r.flag(h.nib_control);
    ins.thread_control = r.u8(h.thread_control);
    ins.predicate = codes
        .pred_control(r.get(h.pred_control) as u32, align16)?
        .map(|control| Predicate {
            control,
            inverse: r.flag(h.pred_inverse),
        });
    ins.exec_size = exec_size_from_code(r.get(h.exec_size) as u32);
    ins.flag = (r.u8(h.flag_reg), r.u8(h.flag_subreg));
    ins.acc_write = r.flag(h.acc_write);
    ins.saturate = r.flag(h.saturate);
    ins.debug = r.flag(h.debug);
    match opcode.kind() {
        Kind::Math => {
            ins.math = Some(lookup(
                codes.math,
                r.get(h.math_function) as u32,
                "math function",
            )?)
        }
        Kind::Send => ins.sfid = Some(lookup(codes.sfid, r.get(h.sfid) as u32, "shared function")?),
        _ => ins.cond_modifier = codes.cond_modifier(r.get(h.cond_modifier) as u32)?,
    }
    Ok(ins)
}

/// Writes the header fields of `ins` in `w`'s layout.
pub(crate) fn write_header<L: Layout>(
    w: &mut FieldsMut<L>,
    h: &Header<L::Field>,
    codes: &Codes,
    ins: &Instruction,
) -> Result<(), EncodeError> {
    w.put(h.opcode, codes.opcode_code(ins.opcode)? as u64)?;
    w.put_flag(h.access_mode, ins.align16)?;
    w.put_flag(h.saturate, ins.saturate)?;
    w.put_flag(h.debug, ins.debug)?;
    w.put_flag(h.acc_write, ins.acc_write)?;
    w.put(h.exec_size, exec_size_code(ins.exec_size)? as u64)?;
    if let Some(p) = ins.predicate {
        w.put(h.pred_control, codes.pred_control_code(p.control) as u64)?;
        w.put_flag(h.pred_inverse, p.inverse)?;
    }
    w.put(h.thread_control, ins.thread_control as u64)?;
    w.put(h.qtr_control, ins.qtr_control as u64)?;
    w.put(h.dep_control, ins.dep_control as u64)?;
    w.put_flag(h.mask_control, ins.mask_disable)?;
    w.put_flag(h.nib_control, ins.nib_control)?;
    w.put(h.flag_reg, ins.flag.0 as u64)?;
    w.put(h.flag_subreg, ins.flag.1 as u64)?;
    match ins.opcode.kind() {
        Kind::Math => {
            let f = ins
                .math
                .ok_or_else(|| unencodable("a math instruction without its function"))?;
            w.put(
                h.math_function,
                Codes::known(codes.math, f, "math function")? as u64,
            )
        }
        Kind::Send => {
            let sfid = ins
                .sfid
                .ok_or_else(|| unencodable("a send without its shared function"))?;
            // VME (8) has no mnemonic the disassembler accepts, but a code.
            let c = if sfid == Sfid::Vme {
                8
            } else {
                Codes::known(codes.sfid, sfid, "shared function")?
            };
            w.put(h.sfid, c as u64)
        }
        _ => w.put(
            h.cond_modifier,
            ins.cond_modifier.map_or(Ok(0), |c| {
                Codes::known(codes.cond, c, "conditional modifier")
            })? as u64,
        ),
    }
}

// ---------------------------------------------------------------------------------------
// Region and execution-size codes
// ---------------------------------------------------------------------------------------

/// Region field codes: horizontal stride 0,1,2,4 -> 0..3; vertical stride 0,1,2,4..32 ->
/// 0..6 (Mesa brw_eu_defines.h enum brw_horizontal_stride / brw_vertical_stride; the
/// spec's EU_HSTRIDE / EU_VSTRIDE name the same values).
pub(crate) fn stride_from_code(c: u32) -> u8 {
    if c == 0 { 0 } else { 1 << (c - 1) }
}

/// Inverse of [`stride_from_code`].
pub(crate) fn stride_code(v: u8) -> Result<u32, EncodeError> {
    match v {
        0 => Ok(0),
        v if v.is_power_of_two() && v <= 32 => Ok(v.trailing_zeros() + 1),
        v => Err(EncodeError::Unencodable(format!("stride {v}"))),
    }
}

/// Width code 0..4 -> 1..16.
pub(crate) fn width_from_code(c: u32) -> u8 {
    1 << c.min(4)
}

/// Inverse of [`width_from_code`].
pub(crate) fn width_code(v: u8) -> Result<u32, EncodeError> {
    if v.is_power_of_two() && v <= 16 {
        Ok(v.trailing_zeros())
    } else {
        Err(EncodeError::Unencodable(format!("width {v}")))
    }
}

/// Execution size code 0..5 -> 1..32.
pub(crate) fn exec_size_from_code(c: u32) -> u8 {
    1 << c.min(5)
}

/// Inverse of [`exec_size_from_code`].
pub(crate) fn exec_size_code(v: u8) -> Result<u32, EncodeError> {
    if v.is_power_of_two() && v <= 32 {
        Ok(v.trailing_zeros())
    } else {
        Err(EncodeError::Unencodable(format!("execution size {v}")))
    }
}

/// Little-endian dwords of the first `n` dwords of `bytes`.
pub(crate) fn words(bytes: &[u8], n: usize) -> Result<Vec<u32>, DecodeError> {
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
