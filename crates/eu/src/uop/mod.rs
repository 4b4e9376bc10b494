//! Whole-register micro-ops: the fast path of the interpreter.
//!
//! When a kernel is decoded into a [`crate::exec::Program`], each instruction of the common
//! shapes is also predecoded once into a [`Uop`]: its regions resolved to one byte offset
//! per channel, its immediates expanded to one value per channel, its types and
//! conversions chosen. Running a `Uop` gathers every source into a lane array (`[f32; 32]`
//! for float arithmetic, `[i64; 32]` for integer arithmetic), computes all channels with
//! one loop per operation (the compiler vectorises them), and scatters the enabled
//! channels to the destination, the flags and the accumulator under a bit mask. Nothing
//! is allocated and nothing dispatches per channel.
//!
//! The semantics are exactly those of the per-channel interpreter (`crate::ops::alu`):
//! the same source modifiers, denormal flushing, floating-point mode, conversion and
//! saturation rules (`crate::region::convert_bits` is shared), the same condition-modifier
//! and accumulator results. What a `Uop` does not cover (indirect operands, architecture
//! registers other than the null register and a `mul`'s acc0 destination, double
//! precision, integer `math`, accumulator sources, the rarer opcodes) stays an
//! ordinary instruction and runs on the per-channel interpreter; a differential test
//! (`tests/differential.rs`) runs every corpus kernel and random kernels both ways and
//! compares every register bit.

mod fast;
mod lanes;
mod run;

use crate::region::{Val, imm, is_float};
use gtsim_isa::ir::*;
use gtsim_isa::opcode::Opcode;

/// Bytes in the general register file (g0..g127).
const GRF_BYTES: usize = 128 * 32;

/// The operations a micro-op performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UopOp {
    Mov,
    Add,
    Mul,
    Mad,
    Lrp,
    Sel,
    Cmp,
    Cmpn,
    Rndd,
    Rndu,
    Rnde,
    Rndz,
    Frc,
    Not,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Asr,
    Pln,
    /// A float `math` function (`ops::math_f`).
    Math(MathFunction),
    /// The high 32 bits of the 64-bit product, the accumulator getting the signed
    /// product of the low dwords (IVB PRM Vol4 Part3 "mach"; `ops`'s `mach`). Made only
    /// where the fast path runs it (`fast::of`); the general path has no form of it.
    Mach,
}

impl UopOp {
    fn of(op: Opcode) -> Option<(UopOp, usize)> {
        Some(match op {
            Opcode::Mov => (UopOp::Mov, 1),
            Opcode::Add => (UopOp::Add, 2),
            Opcode::Mul => (UopOp::Mul, 2),
            Opcode::Mad => (UopOp::Mad, 3),
            Opcode::Lrp => (UopOp::Lrp, 3),
            Opcode::Sel => (UopOp::Sel, 2),
            Opcode::Cmp => (UopOp::Cmp, 2),
            Opcode::Cmpn => (UopOp::Cmpn, 2),
            Opcode::Rndd => (UopOp::Rndd, 1),
            Opcode::Rndu => (UopOp::Rndu, 1),
            Opcode::Rnde => (UopOp::Rnde, 1),
            Opcode::Rndz => (UopOp::Rndz, 1),
            Opcode::Frc => (UopOp::Frc, 1),
            Opcode::Not => (UopOp::Not, 1),
            Opcode::And => (UopOp::And, 2),
            Opcode::Or => (UopOp::Or, 2),
            Opcode::Xor => (UopOp::Xor, 2),
            Opcode::Shl => (UopOp::Shl, 2),
            Opcode::Shr => (UopOp::Shr, 2),
            Opcode::Asr => (UopOp::Asr, 2),
            Opcode::Pln => (UopOp::Pln, 2),
            Opcode::Mach => (UopOp::Mach, 2),
            _ => return None,
        })
    }

    /// Operations defined on floats only (the interpreter converts integer sources).
    fn float_only(self) -> bool {
        matches!(
            self,
            UopOp::Mad
                | UopOp::Math(_)
                | UopOp::Pln
                | UopOp::Lrp
                | UopOp::Rndd
                | UopOp::Rndu
                | UopOp::Rnde
                | UopOp::Rndz
                | UopOp::Frc
        )
    }

    /// Operations defined on integers only (the interpreter truncates float sources).
    fn int_only(self) -> bool {
        matches!(
            self,
            UopOp::Not
                | UopOp::And
                | UopOp::Or
                | UopOp::Xor
                | UopOp::Shl
                | UopOp::Shr
                | UopOp::Asr
                | UopOp::Mach
        )
    }
}

/// A source, resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Operand {
    /// A direct GRF region: channel `c`'s element is at byte `offs[c]`.
    Reg {
        ty: Type,
        offs: [u16; 32],
        negate: bool,
        abs: bool,
        /// How the offsets run: packed elements from `offs[0]`, one scalar, or neither.
        shape: Shape,
    },
    /// An immediate in a float operation, per channel (VF vectors differ by channel).
    ImmF { ty: Type, lanes: [f32; 32] },
    /// An immediate in an integer operation, per channel (V/UV vectors differ by channel).
    ImmI { ty: Type, lanes: [i64; 32] },
}

impl Operand {
    pub(crate) fn ty(&self) -> Type {
        match *self {
            Operand::Reg { ty, .. } | Operand::ImmF { ty, .. } | Operand::ImmI { ty, .. } => ty,
        }
    }
}

/// The arrangement of a region's channel offsets, for the common cases' straight loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Channel `c` at `offs[0] + c * size`.
    Packed,
    /// Every channel at `offs[0]`.
    Scalar,
    /// Anything else.
    Gather,
}

fn shape(offs: &[u16], size: usize) -> Shape {
    if offs.iter().all(|&o| o == offs[0]) {
        Shape::Scalar
    } else if offs
        .iter()
        .enumerate()
        .all(|(c, &o)| o as usize == offs[0] as usize + c * size)
    {
        Shape::Packed
    } else {
        Shape::Gather
    }
}

/// The destination, resolved.
#[derive(Debug, Clone)]
pub(crate) struct DstOp {
    /// The type written (a float `cmp` writes all ones of the destination's size).
    pub(crate) ty: Type,
    /// The type whose conversion rules the condition modifier tests (the instruction's).
    pub(crate) cond_ty: Type,
    /// Channel `c`'s byte offset; `None` for the null register.
    pub(crate) offs: Option<[u16; 32]>,
    /// Channels (relative) the align16 write mask lets through.
    pub(crate) enabled: u32,
    /// Whether channel `c` is at `offs[0] + c * size`.
    pub(crate) packed: bool,
}

/// One predecoded instruction (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct Uop {
    pub(crate) op: UopOp,
    /// Float arithmetic (any source is a float), else integer arithmetic in i64.
    pub(crate) float: bool,
    /// A `mov` without conversion, modifier or saturation (no denormal flushing).
    pub(crate) raw_mov: bool,
    /// Execution size and first channel.
    pub(crate) n: usize,
    pub(crate) group: usize,
    pub(crate) srcs: Vec<Operand>,
    pub(crate) dst: DstOp,
    pub(crate) saturate: bool,
    pub(crate) cond: Option<CondModifier>,
    /// Flag register and the bit of channel 0 in it.
    pub(crate) flag_reg: usize,
    pub(crate) flag_shift: u32,
    pub(crate) acc_write: bool,
    /// `sel` chooses by its predicate instead of masking by it.
    pub(crate) pred_select: bool,
    /// `pln`'s own operands.
    pub(crate) pln: Option<Box<Pln>>,
    /// The form `fast` runs, for the commonest instructions, with its runner.
    pub(crate) fast: Option<(fast::Fast, fast::Runner)>,
    /// The channels (absolute) of the instruction's span.
    pub(crate) span: u32,
    /// The span relative to its first channel: the low `n` bits.
    pub(crate) lanes: u32,
    /// Write Enable Control (NoMask): the span runs whatever the dispatch mask and the
    /// control flow.
    pub(crate) mask_disable: bool,
    /// The predicate, when it is normal (or none): flag register, the shift of its
    /// subregister, inverse. `None` inside `Some` for no predicate; `None` for another
    /// predicate control, which `Thread::exec_mask_with` works out.
    pub(crate) pred: Option<Option<(usize, u32, bool)>>,
}

/// The operands of `pln dst, src0, src1` (IVB PRM PLN, as `ops::alu` reads them):
/// `dst = p*x + q*y + r` with p, q and r elements 0, 1 and 3 of src0 (with src0's
/// modifiers) and x, y channel `c % 8` of registers `src1 + 2*(c / 8)` and the next.
#[derive(Debug, Clone)]
pub(crate) struct Pln {
    pub(crate) coef: [u16; 3],
    pub(crate) negate: bool,
    pub(crate) abs: bool,
    /// Channel `c`'s x; its y is the next register.
    pub(crate) x: [u16; 32],
}

fn resolve_pln(ins: &Instruction, n: usize) -> Option<Pln> {
    let Some(&Src::Reg {
        file: RegFile::Grf,
        nr,
        subnr,
        ty: Type::F,
        address: Address::Direct,
        negate,
        abs,
        ..
    }) = ins.srcs.first()
    else {
        return None;
    };
    let Some(&Src::Reg {
        file: RegFile::Grf,
        nr: xy,
        ty: Type::F,
        ..
    }) = ins.srcs.get(1)
    else {
        return None;
    };
    let base = nr as usize * 32 + subnr as usize;
    let coef = [base, base + 4, base + 12];
    if coef[2] + 4 > GRF_BYTES {
        return None;
    }
    let mut x = [0u16; 32];
    for (c, o) in x.iter_mut().enumerate().take(n) {
        let off = (xy as usize + 2 * (c / 8)) * 32 + (c % 8) * 4;
        if off + 32 + 4 > GRF_BYTES {
            return None;
        }
        *o = off as u16;
    }
    Some(Pln {
        coef: coef.map(|o| o as u16),
        negate,
        abs,
        x,
    })
}

/// The register types a micro-op reads and writes.
fn lane_type(t: Type) -> bool {
    matches!(
        t,
        Type::F | Type::D | Type::UD | Type::W | Type::UW | Type::B | Type::UB
    )
}

fn resolve_src(s: &Src, n: usize, float: bool) -> Option<Operand> {
    match *s {
        Src::Imm { ty, bits } => {
            if float {
                if !matches!(ty, Type::F | Type::VF) {
                    return None;
                }
                let mut lanes = [0f32; 32];
                for (c, l) in lanes.iter_mut().enumerate() {
                    let Val::F(f) = imm(ty, bits, c) else {
                        return None;
                    };
                    *l = f as f32;
                }
                Some(Operand::ImmF { ty, lanes })
            } else {
                if !matches!(
                    ty,
                    Type::D | Type::UD | Type::W | Type::UW | Type::V | Type::UV
                ) {
                    return None;
                }
                let mut lanes = [0i64; 32];
                for (c, l) in lanes.iter_mut().enumerate() {
                    let Val::I(i) = imm(ty, bits, c) else {
                        return None;
                    };
                    *l = i;
                }
                Some(Operand::ImmI { ty, lanes })
            }
        }
        Src::Reg {
            file: RegFile::Grf,
            nr,
            subnr,
            ty,
            layout,
            address: Address::Direct,
            negate,
            abs,
        } => {
            if !lane_type(ty) || (float && ty != Type::F) || (!float && ty == Type::F) {
                return None;
            }
            let size = ty.size() as usize;
            let base = nr as usize * 32 + subnr as usize;
            let mut offs = [0u16; 32];
            for (c, o) in offs.iter_mut().enumerate().take(n) {
                // The element of channel c, as `Thread::src_offset` finds it.
                let off = match layout {
                    Layout::Region(r) => {
                        let vs = r.vstride? as usize;
                        let w = r.width.max(1) as usize;
                        let (row, col) = (c / w, c % w);
                        base + (row * vs + col * r.hstride as usize) * size
                    }
                    Layout::Swizzle { vstride, swizzle } => {
                        let (vec, comp) = (c / 4, c % 4);
                        base + (vec * vstride as usize + swizzle[comp] as usize) * size
                    }
                };
                if off + size > GRF_BYTES {
                    return None;
                }
                *o = off as u16;
            }
            Some(Operand::Reg {
                ty,
                offs,
                negate,
                abs,
                shape: shape(&offs[..n], size),
            })
        }
        _ => None,
    }
}

fn resolve_dst(ins: &Instruction, n: usize, op: UopOp) -> Option<DstOp> {
    let d = &ins.dst;
    if !lane_type(d.ty) {
        return None;
    }
    // cmp writes all ones (or zero) of the destination's size, whatever its type.
    let ty = if matches!(op, UopOp::Cmp | UopOp::Cmpn) && is_float(d.ty) {
        Type::UD
    } else {
        d.ty
    };
    let size = d.ty.size() as usize;
    let mut enabled = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
    let offs = match (d.file, d.address) {
        (RegFile::Arf, Address::Direct)
            if matches!(ArfRegister::of(d.nr), Some((ArfRegister::Null, _))) =>
        {
            None
        }
        // An integer `mul` into acc0 (`mul acc0 a b; mach dst a b`, Gen7's 32x32
        // multiply): what it writes there is the accumulator value it writes anyway, the
        // whole product (`ops`: the product overrides the destination write), so it runs
        // as a `mul` to the null register.
        (RegFile::Arf, Address::Direct)
            if op == UopOp::Mul
                && matches!(ArfRegister::of(d.nr), Some((ArfRegister::Accumulator, 0)))
                && !ins
                    .srcs
                    .iter()
                    .take(2)
                    .any(|s| is_float(crate::ops::src_ty(s))) =>
        {
            None
        }
        (RegFile::Grf, Address::Direct) => {
            let base = d.nr as usize * 32 + d.subnr as usize;
            let mut offs = [0u16; 32];
            for (c, o) in offs.iter_mut().enumerate().take(n) {
                let off = match d.layout {
                    DstLayout::HStride(h) => base + c * h.max(1) as usize * size,
                    DstLayout::WriteMask(wm) => {
                        if wm & (1 << (c % 4)) == 0 {
                            enabled &= !(1 << c);
                        }
                        base + c * size
                    }
                };
                if enabled & (1 << c) != 0 && off + size > GRF_BYTES {
                    return None;
                }
                *o = off as u16;
            }
            Some(offs)
        }
        _ => return None,
    };
    let packed = offs.is_some_and(|o| shape(&o[..n], ty.size() as usize) == Shape::Packed);
    Some(DstOp {
        ty,
        cond_ty: d.ty,
        offs,
        enabled,
        packed,
    })
}

/// The micro-op of `ins`, if its shape is one the fast path covers.
pub(crate) fn predecode(ins: &Instruction) -> Option<Uop> {
    use MathFunction as M;
    let (op, arity) = match (ins.opcode, ins.math) {
        // The float functions; a unary one's second source is the null register. The
        // condition modifier of `math` is not the result's test: left to `ops`.
        (Opcode::Math, Some(f)) if ins.cond_modifier.is_none() => match f {
            M::Inv | M::Log | M::Exp | M::Sqrt | M::Rsq | M::Sin | M::Cos => (UopOp::Math(f), 1),
            M::Fdiv | M::Pow => (UopOp::Math(f), 2),
            _ => return None,
        },
        (Opcode::Math, _) => return None,
        (op, _) => UopOp::of(op)?,
    };
    let srcs_used = &ins.srcs[..arity.min(ins.srcs.len())];
    if crate::df::is_df(ins) || srcs_used.len() != arity {
        return None;
    }
    if matches!(op, UopOp::Math(_)) && ins.srcs.len() > arity + 1 {
        return None;
    }
    let n = ins.exec_size as usize;
    let group = ins.qtr_control as usize * 8 + if ins.nib_control { 4 } else { 0 };
    if n == 0 || group + n > 32 {
        return None;
    }
    let float = srcs_used.iter().any(|s| is_float(crate::ops::src_ty(s)));
    if (float && op.int_only()) || (!float && op.float_only()) {
        return None;
    }
    let srcs = srcs_used
        .iter()
        .map(|s| resolve_src(s, n, float))
        .collect::<Option<Vec<_>>>()?;
    let dst = resolve_dst(ins, n, op)?;
    let pln = match op {
        UopOp::Pln => Some(Box::new(resolve_pln(ins, n)?)),
        _ => None,
    };
    let flags = ins.cond_modifier.is_some() || matches!(op, UopOp::Cmp | UopOp::Cmpn);
    let flag_shift = 16 * ins.flag.1 as u32;
    if flags && group + n + flag_shift as usize > 32 {
        return None;
    }
    // An align16 flag write under a partial write mask updates only the enabled
    // components' bits (`ops::flag_write_enabled`): left to `ops`.
    if flags && matches!(ins.dst.layout, DstLayout::WriteMask(wm) if wm & 0xf != 0xf) {
        return None;
    }
    let raw_mov = op == UopOp::Mov
        && !ins.saturate
        && srcs[0].ty() == ins.dst.ty
        && !crate::ops::has_mods(&ins.srcs[0]);
    let mut u = Uop {
        op,
        float,
        raw_mov,
        n,
        group,
        srcs,
        dst,
        saturate: ins.saturate,
        cond: ins.cond_modifier,
        flag_reg: ins.flag.0 as usize & 1,
        flag_shift,
        acc_write: ins.acc_write,
        pred_select: op == UopOp::Sel && ins.predicate.is_some(),
        pln,
        fast: None,
        lanes: if n >= 32 { u32::MAX } else { (1u32 << n) - 1 },
        span: if n >= 32 {
            u32::MAX
        } else {
            ((1u32 << n) - 1) << group
        },
        mask_disable: ins.mask_disable,
        pred: match ins.predicate {
            None => Some(None),
            Some(Predicate {
                control:
                    PredControl::Align1(Align1Predicate::Normal)
                    | PredControl::Align16(Align16Predicate::Normal),
                inverse,
            }) => Some(Some((
                ins.flag.0 as usize & 1,
                16 * (ins.flag.1 as u32 & 1),
                inverse,
            ))),
            Some(_) => None,
        },
    };
    u.fast = fast::of(&u).and_then(|f| Some((f, fast::runner(&f, &u)?)));
    // (`mach` has no general form: without a fast one it stays an instruction.)
    if u.op == UopOp::Mach && u.fast.is_none() {
        return None;
    }
    Some(u)
}
