//! Operand addressing: where each channel's element lives, and reading/writing values of
//! every type (IVB PRM Vol4 Part3 "Register Region Restrictions" and "Data Types").

use crate::exec::A0_WORDS;
use crate::exec::{ExecError, FpMode, Thread};
use gtsim_isa::ir::*;

/// A value during execution: integers widened to i64, floats as f64 holding an exactly
/// representable value of their own type (f32 math is done in f32).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Val {
    I(i64),
    F(f64),
}

impl Val {
    pub(crate) fn f(self) -> f64 {
        match self {
            Val::I(i) => i as f64,
            Val::F(f) => f,
        }
    }
    pub(crate) fn i(self) -> i64 {
        match self {
            Val::I(i) => i,
            Val::F(f) => f as i64,
        }
    }
}

pub(crate) fn is_float(t: Type) -> bool {
    matches!(t, Type::F | Type::DF | Type::HF | Type::VF)
}

/// A signalling NaN read as a float operand becomes quiet (its quiet bit set, payload
/// kept), as widening it to double does on the host; done explicitly so the result does
/// not depend on how the compiler treats the conversion.
///
/// Without branches (both tests always made, `&` not `&&`), so that loops over lanes
/// compile to vector code.
#[inline(always)]
pub(crate) fn quiet_nan(bits: u32) -> u32 {
    let nan = (bits & 0x7f80_0000 == 0x7f80_0000) & (bits & 0x007f_ffff != 0);
    bits | (u32::from(nan) << 22)
}

pub(crate) fn read_elem(bytes: &[u8], ty: Type) -> Val {
    match ty {
        Type::UB => Val::I(bytes[0] as i64),
        Type::B => Val::I(bytes[0] as i8 as i64),
        Type::UW => Val::I(u16::from_le_bytes([bytes[0], bytes[1]]) as i64),
        Type::W => Val::I(i16::from_le_bytes([bytes[0], bytes[1]]) as i64),
        Type::UD => Val::I(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as i64),
        Type::D => Val::I(i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as i64),
        Type::F => Val::F(f32::from_bits(quiet_nan(u32::from_le_bytes([
            bytes[0], bytes[1], bytes[2], bytes[3],
        ]))) as f64),
        Type::HF => Val::F(half::f16::from_le_bytes([bytes[0], bytes[1]]).to_f64()),
        Type::DF => Val::F(f64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]))),
        Type::UQ | Type::Q => Val::I(i64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8]))),
        Type::UV | Type::V | Type::VF => Val::I(0),
    }
}

/// Converts a value for storing as `ty` (IVB PRM Vol4 Part3 "Type Conversion": float to
/// integer rounds toward zero and saturates to the type's range, NaN becomes 0; integer
/// to float rounds to nearest even; integers narrow by truncation; with `sat`, results
/// clamp to [0,1] (floats, NaN to 0) or to the type's range (integers)).
/// The stored bytes are the first `ty.size()` of the eight returned (no allocation: every
/// per-channel write converts).
pub(crate) fn convert(v: Val, ty: Type, sat: bool) -> [u8; 8] {
    convert_bits(v, ty, sat).to_le_bytes()
}

/// [`convert`] as the stored bits (little-endian, in the low `ty.size()` bytes); the
/// one implementation of the conversion rules, which the whole-register path shares.
pub(crate) fn convert_bits(v: Val, ty: Type, sat: bool) -> u64 {
    let (lo, hi): (i64, i64) = match ty {
        Type::UB => (0, u8::MAX as i64),
        Type::B => (i8::MIN as i64, i8::MAX as i64),
        Type::UW => (0, u16::MAX as i64),
        Type::W => (i16::MIN as i64, i16::MAX as i64),
        Type::UD => (0, u32::MAX as i64),
        Type::D => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    };
    let int_bits = |v: Val| -> i64 {
        match v {
            Val::I(i) => {
                if sat {
                    i.clamp(lo, hi)
                } else {
                    i
                }
            }
            Val::F(f) => {
                if f.is_nan() {
                    0
                } else {
                    (f.trunc().clamp(lo as f64, hi as f64)) as i64
                }
            }
        }
    };
    let unit = |f: f64| if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) };
    match ty {
        Type::UB | Type::B => int_bits(v) as u8 as u64,
        Type::UW | Type::W => int_bits(v) as u16 as u64,
        Type::UD | Type::D => int_bits(v) as u32 as u64,
        Type::UQ | Type::Q => int_bits(v) as u64,
        Type::F | Type::VF => {
            let mut f = match v {
                Val::I(i) => i as f32,
                Val::F(f) => f as f32,
            };
            if sat {
                f = if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) };
            }
            f.to_bits() as u64
        }
        Type::HF => {
            let f = if sat { unit(v.f()) } else { v.f() };
            half::f16::from_f64(f).to_bits() as u64
        }
        Type::DF => {
            let f = if sat { unit(v.f()) } else { v.f() };
            f.to_bits()
        }
        Type::UV | Type::V => 0,
    }
}

const GRF_BYTES: usize = 128 * 32;

impl Thread {
    fn check(&self, at: usize, size: usize) -> Result<(), ExecError> {
        if at + size > GRF_BYTES {
            return Err(ExecError::Region {
                ip: self.ip,
                byte: at,
            });
        }
        Ok(())
    }

    /// Byte offset of channel `c`'s element of a register source.
    fn src_offset(
        &self,
        s: &Src,
        c: usize,
    ) -> Result<(usize, Type, bool, bool, RegFile, u8), ExecError> {
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
            unreachable!("immediates handled by the caller")
        };
        let size = ty.size() as usize;
        let base = |row: usize| -> i64 {
            match address {
                Address::Direct => nr as i64 * 32 + subnr as i64,
                Address::Indirect { subnr: a, offset } => {
                    self.a0[(a as usize + row) % A0_WORDS] as i64 + offset as i64
                }
            }
        };
        let off = match layout {
            Layout::Region(r) => {
                let w = r.width.max(1) as usize;
                // Widths are powers of two: a shift and a mask, not a division (this runs
                // for every channel the per-channel interpreter reads).
                let (row, col) = if w.is_power_of_two() {
                    (c >> w.trailing_zeros(), c & (w - 1))
                } else {
                    (c / w, c % w)
                };
                match r.vstride {
                    Some(vs) => {
                        base(0) + ((row * vs as usize + col * r.hstride as usize) * size) as i64
                    }
                    // VxH: one address subregister per row (IVB PRM "Indirect Addressing").
                    None => base(row) + (col * r.hstride as usize * size) as i64,
                }
            }
            Layout::Swizzle { vstride, swizzle } => {
                let (vec, comp) = (c / 4, c % 4);
                base(0) + ((vec * vstride as usize + swizzle[comp] as usize) * size) as i64
            }
        };
        if off < 0 {
            return Err(ExecError::Region {
                ip: self.ip,
                byte: 0,
            });
        }
        Ok((off as usize, ty, negate, abs, file, nr))
    }

    /// Channel `c`'s value of a source (immediates included), with source modifiers.
    pub(crate) fn read_src(&self, s: &Src, c: usize) -> Result<Val, ExecError> {
        let v = match *s {
            Src::Imm { ty, bits } => imm(ty, bits, c),
            Src::Reg {
                file: RegFile::Arf,
                nr,
                ..
            } if matches!(
                ArfRegister::of(nr),
                Some((
                    ArfRegister::Address
                        | ArfRegister::Flag
                        | ArfRegister::ChannelEnable
                        | ArfRegister::State
                        | ArfRegister::Control
                        | ArfRegister::Timestamp,
                    _
                ))
            ) =>
            {
                // a0, the flag registers, ce0 and sr0 are read through the region like a
                // GRF.
                let (off, ty, ..) = self.src_offset(s, c)?;
                let bytes = self.small_arf(nr);
                let rel = off.wrapping_sub(nr as usize * 32);
                if matches!(ArfRegister::of(nr), Some((ArfRegister::State, _))) && rel < 8 {
                    return Err(ExecError::unsupported(
                        self.ip,
                        "reading sr0.0-sr0.1 (the thread's EU, thread and priority state)",
                    ));
                }
                let size = ty.size() as usize;
                let b = bytes
                    .get(rel..rel.saturating_add(size))
                    .ok_or(ExecError::Region {
                        ip: self.ip,
                        byte: off,
                    })?;
                read_elem(b, ty)
            }
            Src::Reg {
                file: RegFile::Arf,
                nr,
                ty,
                ..
            } => self.read_arf(nr, ty, c)?,
            Src::Reg {
                file: RegFile::Grf, ..
            } => {
                let (off, ty, ..) = self.src_offset(s, c)?;
                let size = ty.size() as usize;
                self.check(off, size)?;
                read_elem(&self.grf[off..off + size], ty)
            }
            Src::Reg { file, .. } => {
                return Err(ExecError::unsupported(
                    self.ip,
                    format!("{file:?} register file on Gen7"),
                ));
            }
        };
        let (negate, abs) = match *s {
            Src::Reg { negate, abs, .. } => (negate, abs),
            Src::Imm { .. } => (false, false),
        };
        Ok(modify(v, negate, abs))
    }

    /// The bytes of a small architecture register: a0 (8 words) or f0/f1 (two 16-bit
    /// subregisters each; IVB PRM Vol4 Part3 "Architecture Registers").
    ///
    /// Gen8+ also reads ce0 and sr0 (Mesa brw_eu_emit.c brw_find_live_channel): ce0.0
    /// is the channels control flow leaves enabled, without the dispatch mask ("ce0 does
    /// not take into account the thread dispatch mask"); sr0.2 is the dispatch mask and
    /// sr0.3 the vector mask, the same for the threads the model dispatches (Gen11 PRM
    /// Vol 2a "State Register": Dispatch Mask, Vector Mask). sr0.0-sr0.1 (EU, thread and
    /// priority state) are refused by the reader.
    fn small_arf(&self, nr: u8) -> Vec<u8> {
        match ArfRegister::of(nr) {
            Some((ArfRegister::Flag, _)) => self.flags[(nr & 1) as usize].to_le_bytes().to_vec(),
            Some((ArfRegister::ChannelEnable, _)) => {
                let width = if self.simd >= 32 {
                    u32::MAX
                } else {
                    (1u32 << self.simd) - 1
                };
                (self.running() & width).to_le_bytes().to_vec()
            }
            Some((ArfRegister::State, _)) => [0, 0, self.dispatch_mask, self.dispatch_mask]
                .iter()
                .flat_map(|d| d.to_le_bytes())
                .collect(),
            // cr0.0: bit 0 the Single Precision Floating Point Mode (1: ALT), the rounding
            // mode in 5:4 (0: round to nearest even) and the denormal modes in bits 6, 7
            // and 10 (0: flushed), the state the thread was dispatched with (Mesa
            // brw_eu_defines.h BRW_CR0_RND_MODE_*, BRW_CR0_FP*_DENORM_PRESERVE; Gen11
            // PRM Vol 2d "Control Register"); cr0.1-cr0.3 read as zero.
            Some((ArfRegister::Control, _)) => [
                (u32::from(self.fp_mode == FpMode::Alt) * crate::rounding::CR0_ALT) | self.cr0,
                0,
                0,
                0,
            ]
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect(),
            // tm0: the low and high dwords of `Thread::timestamp`; tm0.2 (whose bits
            // report events such as a context switch that disturbed the count) and tm0.3
            // read as zero: no such event happens to a model thread.
            Some((ArfRegister::Timestamp, _)) => {
                [self.timestamp as u32, (self.timestamp >> 32) as u32, 0, 0]
                    .iter()
                    .flat_map(|d| d.to_le_bytes())
                    .collect()
            }
            _ => self.a0.iter().flat_map(|w| w.to_le_bytes()).collect(),
        }
    }

    fn set_small_arf(&mut self, nr: u8, bytes: &[u8]) {
        if matches!(ArfRegister::of(nr), Some((ArfRegister::Flag, _))) {
            let b: [u8; 4] = bytes[..4].try_into().expect("4 flag bytes");
            self.flags[(nr & 1) as usize] = u32::from_le_bytes(b);
        } else {
            for (w, b) in self.a0.iter_mut().zip(bytes.chunks(2)) {
                *w = u16::from_le_bytes([b[0], b[1]]);
            }
        }
    }

    fn read_arf(&self, nr: u8, ty: Type, c: usize) -> Result<Val, ExecError> {
        match ArfRegister::of(nr) {
            Some((ArfRegister::Null, _)) => Ok(Val::I(0)),
            Some((ArfRegister::Accumulator, i)) => {
                Ok(self.acc[usize::from(i & 1)][c.min(15)].as_val(ty))
            }
            // a0 and the flags are read through regions by `read_src`.
            _ => Err(ExecError::unsupported(
                self.ip,
                format!("reading architecture register {nr:#x}"),
            )),
        }
    }

    /// Writes channel `c`'s result to the destination.
    pub(crate) fn write_dst(
        &mut self,
        ins: &Instruction,
        c: usize,
        v: Val,
    ) -> Result<(), ExecError> {
        self.write_dst_as(&ins.dst, ins.saturate, c, v)
    }

    /// [`Thread::write_dst`] to destination `d`, saturating or not.
    pub(crate) fn write_dst_as(
        &mut self,
        d: &Dst,
        saturate: bool,
        c: usize,
        v: Val,
    ) -> Result<(), ExecError> {
        match d.file {
            RegFile::Arf => match ArfRegister::of(d.nr) {
                Some((ArfRegister::Null, _)) => Ok(()),
                Some((ArfRegister::Accumulator, i)) => {
                    self.acc[usize::from(i & 1)][c.min(15)] = Acc::from_val(v, d.ty);
                    Ok(())
                }
                Some((ArfRegister::Address | ArfRegister::Flag, _)) => {
                    // a0 and the flags are written through the destination region.
                    let size = d.ty.size() as usize;
                    let rel = match d.layout {
                        DstLayout::HStride(h) => d.subnr as usize + c * h.max(1) as usize * size,
                        DstLayout::WriteMask(_) => d.subnr as usize + c * size,
                    };
                    let mut bytes = self.small_arf(d.nr);
                    let Some(slot) = bytes.get_mut(rel..rel + size) else {
                        return Err(ExecError::Region {
                            ip: self.ip,
                            byte: d.nr as usize * 32 + rel,
                        });
                    };
                    slot.copy_from_slice(&convert(v, d.ty, saturate)[..size]);
                    self.set_small_arf(d.nr, &bytes);
                    Ok(())
                }
                Some((ArfRegister::Control, _)) => {
                    // cr0.0's rounding mode (5:4) and denormal modes (6, 7, 10) are the
                    // kernel's to set (Mesa's SHADER_OPCODE_FLOAT_CONTROL_MODE: `and` then
                    // `or` of cr0.0; `crate::rounding`). A write changing any other
                    // control bit (the ALT mode the thread was dispatched with, the
                    // exception enables, cr0.1-cr0.3) is not modelled, and says so.
                    let size = d.ty.size() as usize;
                    let rel = match d.layout {
                        DstLayout::HStride(h) => d.subnr as usize + c * h.max(1) as usize * size,
                        DstLayout::WriteMask(_) => d.subnr as usize + c * size,
                    };
                    let now = self.small_arf(d.nr);
                    let mut next = now.clone();
                    let Some(slot) = next.get_mut(rel..rel + size) else {
                        return Err(ExecError::Region {
                            ip: self.ip,
                            byte: d.nr as usize * 32 + rel,
                        });
                    };
                    slot.copy_from_slice(&convert(v, d.ty, saturate)[..size]);
                    let dword = |b: &[u8], i: usize| {
                        u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
                    };
                    let changed = dword(&next, 0) ^ dword(&now, 0);
                    let others_kept = (1..4).all(|i| dword(&next, i) == dword(&now, i));
                    if changed & !crate::rounding::CR0_MODELLED == 0 && others_kept {
                        self.cr0 = dword(&next, 0) & crate::rounding::CR0_MODELLED;
                        Ok(())
                    } else {
                        Err(ExecError::unsupported(
                            self.ip,
                            format!(
                                "changing cr0 bits {:#x} of cr0.0 or cr0.1-cr0.3 (the ALT mode the thread was dispatched with, exception enables; only the rounding and denormal modes, bits 5:4, 6, 7 and 10, are modelled; Gen11 PRM Vol 2d Control Register)",
                                changed & !crate::rounding::CR0_MODELLED
                            ),
                        ))
                    }
                }
                _ => Err(ExecError::unsupported(
                    self.ip,
                    format!("writing architecture register {:#x}", d.nr),
                )),
            },
            RegFile::Grf => {
                let size = d.ty.size() as usize;
                let base = match d.address {
                    Address::Direct => d.nr as i64 * 32 + d.subnr as i64,
                    Address::Indirect { subnr, offset } => {
                        self.a0[subnr as usize % A0_WORDS] as i64 + offset as i64
                    }
                };
                let off = match d.layout {
                    DstLayout::HStride(h) => base + (c * h.max(1) as usize * size) as i64,
                    DstLayout::WriteMask(wm) => {
                        if wm & (1 << (c % 4)) == 0 {
                            return Ok(());
                        }
                        base + (c * size) as i64
                    }
                };
                if off < 0 {
                    return Err(ExecError::Region {
                        ip: self.ip,
                        byte: 0,
                    });
                }
                let off = off as usize;
                self.check(off, size)?;
                let bytes = convert(v, d.ty, saturate);
                self.grf[off..off + size].copy_from_slice(&bytes[..size]);
                Ok(())
            }
            other => Err(ExecError::unsupported(
                self.ip,
                format!("{other:?} destination on Gen7"),
            )),
        }
    }
}

pub(crate) fn modify(v: Val, negate: bool, abs: bool) -> Val {
    let v = if abs {
        match v {
            Val::I(i) => Val::I(i.wrapping_abs()),
            Val::F(f) => Val::F(f.abs()),
        }
    } else {
        v
    };
    if negate {
        match v {
            Val::I(i) => Val::I(i.wrapping_neg()),
            Val::F(f) => Val::F(-f),
        }
    } else {
        v
    }
}

/// Channel `c` of an immediate (vector immediates repeat every 8 (V/UV) or 4 (VF)
/// channels; IVB PRM Vol4 Part3 "Immediate Vectors").
pub(crate) fn imm(ty: Type, bits: u64, c: usize) -> Val {
    let b = bits as u32;
    match ty {
        Type::UD => Val::I(b as i64),
        Type::D => Val::I(b as i32 as i64),
        Type::UW => Val::I((b & 0xffff) as i64),
        Type::W => Val::I(b as u16 as i16 as i64),
        Type::F => Val::F(f32::from_bits(b) as f64),
        Type::UV => Val::I(((b >> (4 * (c % 8))) & 0xf) as i64),
        Type::V => Val::I((((b >> (4 * (c % 8))) & 0xf) as i64 ^ 8) - 8),
        Type::VF => Val::F(gtsim_isa::disasm::vf_to_f32((b >> (8 * (c % 4))) as u8) as f64),
        _ => Val::I(b as i64),
    }
}

/// One channel of an accumulator: Gen7 accumulators hold integers with 33+ bits or floats
/// (IVB PRM Vol4 Part3 "Accumulator Registers"); the model keeps 64-bit integers.
///
/// The primitive representation fixes the layout compiled code writes (`jit::emit`):
/// 16 bytes, the discriminant as a u64 at byte 0 and the value at byte 8.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[repr(u64)]
pub enum Acc {
    /// No value written yet.
    #[default]
    Zero = 0,
    /// An integer.
    Int(i64) = 1,
    /// A float.
    Float(f64) = 2,
}

const _: () = assert!(std::mem::size_of::<Acc>() == 16 && std::mem::align_of::<Acc>() == 8);

impl Acc {
    pub(crate) fn as_val(self, ty: Type) -> Val {
        match self {
            Acc::Zero => Val::I(0),
            Acc::Int(i) => {
                if is_float(ty) {
                    Val::F(i as f64)
                } else {
                    Val::I(i)
                }
            }
            Acc::Float(f) => Val::F(f),
        }
    }
    pub(crate) fn from_val(v: Val, ty: Type) -> Acc {
        match v {
            Val::F(f) => Acc::Float(if ty == Type::F { f as f32 as f64 } else { f }),
            Val::I(i) => Acc::Int(i),
        }
    }
}
