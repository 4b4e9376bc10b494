//! Cranelift IR for the instructions a block computes in place (see the module
//! documentation of `jit`; `flow` builds the blocks). Each instruction's code mirrors
//! `crate::uop::run` step for step: the same source reads (signalling
//! NaNs quieted, |x| then -x, denormals flushed), the same arithmetic in the same order,
//! the same default NaN for computed NaNs (`ops::default_nan`), the same result flushing,
//! stores under the same masks, the same flag updates.

use crate::ops::DEFAULT_NAN;
use crate::uop::{DstOp, Operand, Uop, UopOp};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    Block, ConstantData, Endianness, FuncRef, InstBuilder, MemFlagsData, StackSlotData,
    StackSlotKind, Type as IrType, Value, types,
};
use cranelift_frontend::FunctionBuilder;
use gtsim_isa::ir::*;

const V: IrType = types::I32X4;
const VF: IrType = types::F32X4;

/// Bit casts between the lanes of one vector type and another (lane order as stored).
fn vcast(b: &mut FunctionBuilder, ty: IrType, x: Value) -> Value {
    b.ins().bitcast(
        ty,
        MemFlagsData::new().with_endianness(Endianness::Little),
        x,
    )
}

/// A constant's key: its block, its lanes, and whether it is a vector.
type ConstantKey = (Block, [u32; 4], bool);

thread_local! {
    /// The constants made so far in the function this host thread builds, by block and
    /// bits (lanes of 32 bits; a scalar is keyed with `None` as its other lanes): a
    /// constant is made once per block, not once per use, which halves the IR Cranelift
    /// compiles. Values of one block never reach another; [`clear_constants`] empties
    /// the cache before each function.
    static CONSTANTS: std::cell::RefCell<std::collections::HashMap<ConstantKey, Value>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Forgets the constants of the previous function (call before building one).
pub(super) fn clear_constants() {
    // try_with: thread-local storage may already be destroyed when a client submits
    // from an exit handler; nothing is cached then.
    let _ = CONSTANTS.try_with(|c| c.borrow_mut().clear());
}

/// A constant of the current block: the cached one, or `make`'s.
fn constant(
    b: &mut FunctionBuilder,
    key: ([u32; 4], bool),
    make: impl FnOnce(&mut FunctionBuilder) -> Value,
) -> Value {
    let Some(block) = b.current_block() else {
        return make(b);
    };
    if let Some(v) = CONSTANTS
        .try_with(|c| c.borrow().get(&(block, key.0, key.1)).copied())
        .ok()
        .flatten()
    {
        return v;
    }
    let v = make(b);
    let _ = CONSTANTS.try_with(|c| c.borrow_mut().insert((block, key.0, key.1), v));
    v
}

fn vsplat(b: &mut FunctionBuilder, v: u32) -> Value {
    constant(b, ([v; 4], true), |b| {
        let x = c32(b, v);
        b.ins().splat(V, x)
    })
}

fn vconst(b: &mut FunctionBuilder, lanes: [u32; 4]) -> Value {
    if lanes.iter().all(|&l| l == lanes[0]) {
        return vsplat(b, lanes[0]);
    }
    constant(b, (lanes, true), |b| {
        let bytes: Vec<u8> = lanes.iter().flat_map(|l| l.to_le_bytes()).collect();
        let h = b.func.dfg.constants.insert(ConstantData::from(bytes));
        b.ins().vconst(V, h)
    })
}

/// Lane masks (all ones where set) of the 4 bits of `bits` from bit `at` on.
fn lane_mask(b: &mut FunctionBuilder, bits: Value, at: usize) -> Value {
    let x = b.ins().ushr_imm_u(bits, at as i64);
    let x = b.ins().splat(V, x);
    let sel = vconst(b, [1, 2, 4, 8]);
    let x = b.ins().band(x, sel);
    let zero = vsplat(b, 0);
    b.ins().icmp(IntCC::NotEqual, x, zero)
}

/// Float saturation as `region::convert_bits` stores it, on 4 lanes of bits: NaN gives
/// +0, below 0 gives 0, above 1 gives 1, the rest (-0 included) is kept.
fn vsat(b: &mut FunctionBuilder, x: Value) -> Value {
    let f = vcast(b, VF, x);
    let zero = vsplat(b, 0);
    let one = vsplat(b, 1.0f32.to_bits());
    let zf = vcast(b, VF, zero);
    let of = vcast(b, VF, one);
    let nan = b.ins().fcmp(FloatCC::Unordered, f, f);
    let low = b.ins().fcmp(FloatCC::LessThan, f, zf);
    let high = b.ins().fcmp(FloatCC::GreaterThan, f, of);
    let to_zero = b.ins().bor(nan, low);
    let r = b.ins().bitselect(high, one, x);
    b.ins().bitselect(to_zero, zero, r)
}

/// A denormal's bits become zero of its sign (`uop::run::flush`), on 4 lanes.
fn vflush(b: &mut FunctionBuilder, x: Value) -> Value {
    let m = vsplat(b, 0x7f80_0000);
    let e = b.ins().band(x, m);
    let zero = vsplat(b, 0);
    let z = b.ins().icmp(IntCC::Equal, e, zero);
    let sign = vsplat(b, 0x8000_0000);
    let s = b.ins().band(x, sign);
    b.ins().bitselect(z, s, x)
}

/// [`vflush`] where the host reads denormal sources as zero (`super::fpenv`): a lane
/// that compares unequal to zero (a normal number, an infinity or a NaN) keeps its bits,
/// one that compares equal (a zero, or a denormal read as zero) keeps its sign only.
/// Three host instructions instead of four and a constant fewer.
fn vflush_under_daz(b: &mut FunctionBuilder, x: Value) -> Value {
    let f = vcast(b, VF, x);
    let zero = vsplat(b, 0);
    let zf = vcast(b, VF, zero);
    let keep = b.ins().fcmp(FloatCC::NotEqual, f, zf);
    let sign = vsplat(b, 0x8000_0000);
    let m = b.ins().bor(keep, sign);
    b.ins().band(x, m)
}

/// [`quiet`] on 4 lanes.
fn vquiet(b: &mut FunctionBuilder, x: Value) -> Value {
    let mag = vsplat(b, 0x7fff_ffff);
    let m = b.ins().band(x, mag);
    let inf = vsplat(b, 0x7f80_0000);
    let nan = b.ins().icmp(IntCC::UnsignedGreaterThan, m, inf);
    let bit = vsplat(b, 0x0040_0000);
    let q = b.ins().bor(x, bit);
    b.ins().bitselect(nan, q, x)
}

/// `ops::test_floats` (the condition on two floats, NaN unordered) on 4 lanes: all ones
/// where it holds.
fn vtest_f(b: &mut FunctionBuilder, cond: Option<CondModifier>, x: Value, y: Value) -> Value {
    let cc = match cond {
        Some(CondModifier::Z) => FloatCC::Equal,
        Some(CondModifier::Nz) => FloatCC::NotEqual,
        Some(CondModifier::G) => FloatCC::GreaterThan,
        Some(CondModifier::Ge) => FloatCC::GreaterThanOrEqual,
        Some(CondModifier::L) => FloatCC::LessThan,
        Some(CondModifier::Le) => FloatCC::LessThanOrEqual,
        Some(CondModifier::U) => FloatCC::Unordered,
        _ => return vsplat(b, 0),
    };
    b.ins().fcmp(cc, x, y)
}

/// Whether the JIT covers micro-op `u` of `ins` (the list in the module documentation).
pub(super) fn covers(ins: &Instruction, u: &Uop) -> bool {
    // Saturation only of float results (`vsat`; converting to D or UD saturates anyway),
    // not of a comparison's all-ones (which saturates to 0 as UD).
    let compare = matches!(u.op, UopOp::Cmp | UopOp::Cmpn);
    if u.acc_write || (u.saturate && (!u.float || compare)) {
        return false;
    }
    if let Some(p) = ins.predicate
        && !matches!(
            p.control,
            PredControl::Align1(Align1Predicate::Normal)
                | PredControl::Align16(Align16Predicate::Normal)
        )
    {
        return false;
    }
    let dst_ok = |ty: &[Type]| ty.contains(&u.dst.ty) && u.dst.ty.size() == 4;
    if u.float {
        let ops_ok = matches!(
            u.op,
            UopOp::Mov
                | UopOp::Add
                | UopOp::Mul
                | UopOp::Mad
                | UopOp::Lrp
                | UopOp::Sel
                | UopOp::Cmp
                | UopOp::Cmpn
                | UopOp::Rndd
                | UopOp::Rndu
                | UopOp::Rnde
                | UopOp::Rndz
                | UopOp::Frc
                | UopOp::Pln
                | UopOp::Math(_)
        ) && match u.op {
            UopOp::Math(f) => MATH.contains(&f),
            _ => true,
        };
        let srcs_ok = u.srcs.iter().all(|s| match s {
            Operand::Reg { ty, .. } => *ty == Type::F,
            Operand::ImmF { .. } => true,
            Operand::ImmI { .. } => false,
        });
        // Float results stored as D or UD convert with `fcvt_to_*_sat`, which is
        // `region::convert_bits`'s rule (truncate, saturate to the type, NaN gives 0).
        let dst = dst_ok(&[Type::F, Type::D, Type::UD]);
        // 4 lanes at a time.
        ops_ok && srcs_ok && dst && u.n.is_multiple_of(4) && (u.op != UopOp::Pln || u.pln.is_some())
    } else {
        let ops_ok = matches!(
            u.op,
            UopOp::Mov
                | UopOp::Add
                | UopOp::Mul
                | UopOp::Not
                | UopOp::And
                | UopOp::Or
                | UopOp::Xor
                | UopOp::Shl
                | UopOp::Shr
                | UopOp::Asr
                | UopOp::Sel
                | UopOp::Cmp
                | UopOp::Cmpn
        );
        let srcs_ok = u.srcs.iter().all(|s| match s {
            Operand::Reg { ty, .. } => matches!(ty, Type::D | Type::UD | Type::W | Type::UW),
            Operand::ImmI { .. } => true,
            Operand::ImmF { .. } => false,
        });
        // Shifts read their first source at its own width.
        let shift_ok = !matches!(u.op, UopOp::Shl | UopOp::Shr | UopOp::Asr)
            || matches!(u.srcs[0].ty(), Type::D | Type::UD);
        // An F destination takes the i64 result converted (`i as f32`, as
        // `region::convert_bits` stores it), a W or UW one its low 16 bits; both without
        // a condition modifier.
        let dst = dst_ok(&[Type::D, Type::UD])
            || (matches!(u.dst.ty, Type::F | Type::W | Type::UW) && u.cond.is_none());
        ops_ok && srcs_ok && shift_ok && dst && u.dst.cond_ty == u.dst.ty
    }
}

/// Whether integer micro-op `u` computes the same bits on 32-bit lanes as in the
/// micro-ops' i64 model (`uop::run::compute_i`), and for a comparison whether it compares
/// signed: 4n channels; results of 32 bits; shifts by one amount for all channels (the
/// vector shifts take a scalar count); comparisons (`cmp`, `cmpn`, `sel` with a
/// condition) of sources without modifiers that all read as D (signed) or all as UD
/// (unsigned), immediates fitting that reading.
fn int_lanes(u: &Uop) -> Option<Option<bool>> {
    // An F destination converts the whole i64 result, which 32-bit lanes do not hold;
    // the lanes are D or UD elements.
    let dword = |t: Type| matches!(t, Type::D | Type::UD);
    let regs_dword = u.srcs.iter().all(|s| match s {
        Operand::Reg { ty, .. } => dword(*ty),
        _ => true,
    });
    if !u.n.is_multiple_of(4) || !dword(u.dst.ty) || !regs_dword {
        return None;
    }
    let uniform = |s: &Operand| match s {
        Operand::Reg { shape, .. } => *shape == crate::uop::Shape::Scalar,
        Operand::ImmI { lanes, .. } => lanes[..u.n].iter().all(|&l| l == lanes[0]),
        Operand::ImmF { .. } => false,
    };
    let compares =
        matches!(u.op, UopOp::Cmp | UopOp::Cmpn) || (u.op == UopOp::Sel && u.cond.is_some());
    match u.op {
        UopOp::Shl | UopOp::Shr | UopOp::Asr => uniform(&u.srcs[1]).then_some(None),
        UopOp::Mov | UopOp::Add | UopOp::Not | UopOp::And | UopOp::Or | UopOp::Xor => Some(None),
        UopOp::Sel if !compares => Some(None),
        _ if compares => {
            let mut signed = None;
            for s in &u.srcs {
                if let Operand::Reg {
                    ty, negate, abs, ..
                } = s
                {
                    if *negate || *abs {
                        return None;
                    }
                    let this = *ty == Type::D;
                    if signed.is_some_and(|x| x != this) {
                        return None;
                    }
                    signed = Some(this);
                }
            }
            let signed = signed?;
            let fits = |v: i64| {
                if signed {
                    i32::try_from(v).is_ok()
                } else {
                    u32::try_from(v).is_ok()
                }
            };
            for s in &u.srcs {
                if let Operand::ImmI { lanes, .. } = s
                    && !lanes[..u.n].iter().all(|&l| fits(l))
                {
                    return None;
                }
            }
            Some(Some(signed))
        }
        _ => None,
    }
}

/// A condition on 32-bit lanes read signed or unsigned: all ones where it holds.
fn vtest_i(
    b: &mut FunctionBuilder,
    cond: Option<CondModifier>,
    signed: bool,
    x: Value,
    y: Value,
) -> Value {
    let (s, u) = match cond {
        Some(CondModifier::Z) => (IntCC::Equal, IntCC::Equal),
        Some(CondModifier::Nz) => (IntCC::NotEqual, IntCC::NotEqual),
        Some(CondModifier::G) => (IntCC::SignedGreaterThan, IntCC::UnsignedGreaterThan),
        Some(CondModifier::Ge) => (
            IntCC::SignedGreaterThanOrEqual,
            IntCC::UnsignedGreaterThanOrEqual,
        ),
        Some(CondModifier::L) => (IntCC::SignedLessThan, IntCC::UnsignedLessThan),
        Some(CondModifier::Le) => (IntCC::SignedLessThanOrEqual, IntCC::UnsignedLessThanOrEqual),
        _ => return vsplat(b, 0),
    };
    b.ins().icmp(if signed { s } else { u }, x, y)
}

/// The channels (absolute) of `ins`'s execution span.
pub(super) fn span(ins: &Instruction) -> u32 {
    let g = crate::exec::Thread::group(ins);
    if ins.exec_size >= 32 {
        u32::MAX
    } else {
        ((1u32 << ins.exec_size) - 1) << g
    }
}

fn mem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// The float math functions the JIT calls [`math_helper`] for, by code.
const MATH: [MathFunction; 9] = [
    MathFunction::Inv,
    MathFunction::Log,
    MathFunction::Exp,
    MathFunction::Sqrt,
    MathFunction::Rsq,
    MathFunction::Sin,
    MathFunction::Cos,
    MathFunction::Fdiv,
    MathFunction::Pow,
];

/// What compiled code calls for four lanes of a `math` instruction: `ops::math_f` of
/// function `code` (an index into [`MATH`]), the same function the micro-ops and the
/// per-channel interpreter use, on lanes `io[0..4]` (first source) and `io[4..8]`
/// (second), the results into `io[8..12]`. One call per four lanes: the call and the
/// floating-point mode switch around it (`fpenv::outside`) are paid once for them.
pub(super) extern "C" fn math_helper(code: u32, io: *mut f32) {
    // SAFETY: compiled code passes the address of its 48-byte, 4-aligned stack slot
    // for the call (`Emit::vector`), which nothing else uses meanwhile.
    let io = unsafe { std::slice::from_raw_parts_mut(io, 12) };
    super::fpenv::outside(|| {
        for lane in 0..4 {
            io[8 + lane] = MATH
                .get(code as usize)
                .and_then(|&f| crate::ops::math_f(f, io[lane], io[4 + lane]))
                .unwrap_or(0.0);
        }
    })
}

/// What an instruction's code works on: the register file and flags (pointers), the
/// running, dispatched channels (a mask), and the imported [`math_helper`].
pub(super) struct Emit {
    pub(super) grf: Value,
    pub(super) flags: Value,
    /// The first accumulator's 16 channels (`region::Acc`, 16 bytes each).
    pub(super) acc: Value,
    /// The host's pointer type.
    pub(super) ptr: IrType,
    /// Whether the code runs with denormal sources read as zero by the host
    /// (`super::fpenv`).
    pub(super) daz: bool,
    /// Whether DAZ is on at this point of the block (every block starts with it on).
    pub(super) daz_on: std::cell::Cell<bool>,
    /// The imported `fpenv::set_daz`.
    pub(super) set_daz: FuncRef,
    pub(super) live: Value,
    pub(super) math: FuncRef,
    /// Masks already computed in this block (`Emit` is made per block, and a value made
    /// earlier in a block serves every later instruction of it): the same execution
    /// mask, write mask or 4-lane mask is made once, which the code generator would not
    /// find by itself without its optimizer.
    pub(super) masks: std::cell::RefCell<std::collections::HashMap<MaskKey, Value>>,
}

/// What a mask remembered in a block ([`Emit::masks`]) was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum MaskKey {
    /// An unpredicated instruction's relative execution mask: mask-disable, its span
    /// (absolute), first channel and width mask.
    Exec(bool, u32, i64, u32),
    /// A mask value and-ed with a constant.
    And(Value, u32),
    /// The 4-lane mask of a value's bits from bit `at`.
    Lanes(Value, usize),
}

fn c32(b: &mut FunctionBuilder, v: u32) -> Value {
    constant(b, ([v, 0, 0, 0], false), |b| {
        b.ins().iconst(types::I32, v as i32 as i64)
    })
}

/// A signalling NaN's bits become quiet (`region::quiet_nan`).
fn quiet(b: &mut FunctionBuilder, x: Value) -> Value {
    let m = b.ins().band_imm_u(x, 0x7fff_ffff);
    let nan = b
        .ins()
        .icmp_imm_u(IntCC::UnsignedGreaterThan, m, 0x7f80_0000);
    let q = b.ins().bor_imm_u(x, 0x0040_0000);
    b.ins().select(nan, q, x)
}

fn to_i(b: &mut FunctionBuilder, x: Value) -> Value {
    b.ins().bitcast(types::I32, MemFlagsData::new(), x)
}

fn to_f(b: &mut FunctionBuilder, x: Value) -> Value {
    b.ins().bitcast(types::F32, MemFlagsData::new(), x)
}

fn bool8(b: &mut FunctionBuilder, v: bool) -> Value {
    b.ins().iconst(types::I8, i64::from(v))
}

/// `ops::test` on two integers (i64).
fn test_i(b: &mut FunctionBuilder, cond: Option<CondModifier>, x: Value, y: Value) -> Value {
    let cc = match cond {
        Some(CondModifier::Z) => IntCC::Equal,
        Some(CondModifier::Nz) => IntCC::NotEqual,
        Some(CondModifier::G) => IntCC::SignedGreaterThan,
        Some(CondModifier::Ge) => IntCC::SignedGreaterThanOrEqual,
        Some(CondModifier::L) => IntCC::SignedLessThan,
        Some(CondModifier::Le) => IntCC::SignedLessThanOrEqual,
        _ => return bool8(b, false),
    };
    b.ins().icmp(cc, x, y)
}

/// Whether `u` reads its float register sources through the host's DAZ instead of
/// flushing them (see [`Emit::vsrc_f`]): the operations that are one host instruction
/// on their sources (`mad` is one fused multiply-add). Not `lrp`, whose intermediate
/// products may be denormal and must be read as they are by the next step.
pub(super) fn relies_on_daz(u: &Uop) -> bool {
    u.float
        && matches!(
            u.op,
            UopOp::Add | UopOp::Mul | UopOp::Mad | UopOp::Cmp | UopOp::Cmpn
        )
}

/// Whether `u`'s float arithmetic or comparisons may see unflushed denormals, which DAZ
/// would change: `pln` reads its sources as they are (`uop::run`), `lrp` and `pln` read
/// their intermediate results as they are, and a `mov` that copies a float's bits tests
/// its condition on them.
fn needs_ieee(u: &Uop) -> bool {
    u.float && (matches!(u.op, UopOp::Pln | UopOp::Lrp) || (u.raw_mov && u.cond.is_some()))
}

impl Emit {
    /// Switches DAZ on (`on`) or off at this point if it is not so already.
    fn switch_daz(&self, b: &mut FunctionBuilder, on: bool) {
        if self.daz && self.daz_on.get() != on {
            let v = c32(b, u32::from(on));
            b.ins().call(self.set_daz, &[v]);
            self.daz_on.set(on);
        }
    }

    /// DAZ back on, as every block ends (call before a block's branch or jump).
    pub(super) fn end_block(&self, b: &mut FunctionBuilder) {
        self.switch_daz(b, true);
    }

    /// The mask `key` names, made by `make` the first time in this block.
    fn memo(
        &self,
        b: &mut FunctionBuilder,
        key: MaskKey,
        make: impl FnOnce(&mut FunctionBuilder) -> Value,
    ) -> Value {
        if let Some(&v) = self.masks.borrow().get(&key) {
            return v;
        }
        let v = make(b);
        self.masks.borrow_mut().insert(key, v);
        v
    }

    /// [`lane_mask`], made once per block for a value and position.
    fn lanes(&self, b: &mut FunctionBuilder, bits: Value, at: usize) -> Value {
        self.memo(b, MaskKey::Lanes(bits, at), |b| lane_mask(b, bits, at))
    }

    fn load(&self, b: &mut FunctionBuilder, off: u16) -> Value {
        b.ins().load(types::I32, mem(), self.grf, i32::from(off))
    }

    /// The flag subregister `ins` reads (`Thread::flag_bits`), with its predicate's
    /// inversion.
    pub(super) fn predicate(
        &self,
        b: &mut FunctionBuilder,
        ins: &Instruction,
        p: Predicate,
    ) -> Value {
        let reg = (ins.flag.0 as i32 & 1) * 4;
        let f = b.ins().load(types::I32, mem(), self.flags, reg);
        let f = b.ins().ushr_imm_u(f, 16 * (i64::from(ins.flag.1) & 1));
        if p.inverse { b.ins().bnot(f) } else { f }
    }

    /// Integer source `s` of channel `c` as i64 (`gather_i`).
    fn src_i(&self, b: &mut FunctionBuilder, s: &Operand, c: usize) -> Value {
        match s {
            Operand::Reg {
                ty,
                offs,
                negate,
                abs,
                ..
            } => {
                let mut x = match ty {
                    Type::W | Type::UW => {
                        let x = b
                            .ins()
                            .load(types::I16, mem(), self.grf, i32::from(offs[c]));
                        if *ty == Type::W {
                            b.ins().sextend(types::I64, x)
                        } else {
                            b.ins().uextend(types::I64, x)
                        }
                    }
                    _ => {
                        let x = self.load(b, offs[c]);
                        if *ty == Type::D {
                            b.ins().sextend(types::I64, x)
                        } else {
                            b.ins().uextend(types::I64, x)
                        }
                    }
                };
                if *abs {
                    x = b.ins().iabs(x);
                }
                if *negate {
                    x = b.ins().ineg(x);
                }
                x
            }
            Operand::ImmI { lanes, .. } => b.ins().iconst(types::I64, lanes[c]),
            Operand::ImmF { .. } => b.ins().iconst(types::I64, 0),
        }
    }

    pub(super) fn instruction(&self, b: &mut FunctionBuilder, ins: &Instruction, u: &Uop) {
        let n = u.n;
        let group = u.group as i64;
        // The execution mask (`Thread::exec_mask_with`), relative to the group.
        let span_abs = span(ins);
        let span_rel = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
        let live = self.live;
        let exec = |b: &mut FunctionBuilder| {
            if ins.mask_disable {
                c32(b, span_abs)
            } else {
                b.ins().band_imm_u(live, i64::from(span_abs))
            }
        };
        let relative = |b: &mut FunctionBuilder, m: Value| {
            let m = b.ins().ushr_imm_u(m, group);
            b.ins().band_imm_u(m, i64::from(span_rel))
        };
        let mut pick = None;
        let rel = match ins.predicate {
            Some(p) => {
                let mut m = exec(b);
                let f = self.predicate(b, ins, p);
                if u.pred_select {
                    pick = Some(b.ins().ushr_imm_u(f, group));
                } else {
                    m = b.ins().band(m, f);
                }
                relative(b, m)
            }
            // Without a predicate the mask depends on the block's live channels only.
            None => self.memo(
                b,
                MaskKey::Exec(ins.mask_disable, span_abs, group, span_rel),
                |b| {
                    let m = exec(b);
                    relative(b, m)
                },
            ),
        };
        let picks = |b: &mut FunctionBuilder, c: usize| -> Value {
            match pick {
                Some(p) => {
                    let bit = b.ins().ushr_imm_u(p, c as i64);
                    let bit = b.ins().band_imm_u(bit, 1);
                    b.ins().icmp_imm_u(IntCC::NotEqual, bit, 0)
                }
                None => bool8(b, true),
            }
        };
        let is_cmp = matches!(u.op, UopOp::Cmp | UopOp::Cmpn);
        if relies_on_daz(u) {
            self.switch_daz(b, true);
        } else if needs_ieee(u) {
            self.switch_daz(b, false);
        }
        // Float instructions run 4 lanes at a time (`covers` takes only 4n channels).
        if u.float {
            return self.vector(b, u, rel, pick);
        }
        // Integer instructions too where 32-bit lanes compute what the i64 model does.
        if let Some(signed) = int_lanes(u) {
            return self.vector_int(b, u, rel, pick, signed);
        }
        let mut bits = Vec::with_capacity(n);
        let mut hits: Vec<Value> = Vec::with_capacity(n);
        let mut products: Vec<Value> = vec![];
        for c in 0..n {
            {
                let s: Vec<Value> = u.srcs.iter().map(|s| self.src_i(b, s, c)).collect();
                let low32 = |b: &mut FunctionBuilder, x: Value| b.ins().band_imm_u(x, 0xffff_ffff);
                let r = match u.op {
                    UopOp::Mov => s[0],
                    UopOp::Add => b.ins().iadd(s[0], s[1]),
                    UopOp::Mul => {
                        let p = b.ins().imul(s[0], s[1]);
                        products.push(p);
                        p
                    }
                    UopOp::Not => b.ins().bnot(s[0]),
                    UopOp::And => b.ins().band(s[0], s[1]),
                    UopOp::Or => b.ins().bor(s[0], s[1]),
                    UopOp::Xor => b.ins().bxor(s[0], s[1]),
                    UopOp::Shl | UopOp::Shr | UopOp::Asr => {
                        let k = b.ins().band_imm_u(s[1], 31);
                        match u.op {
                            UopOp::Shl => {
                                let a = low32(b, s[0]);
                                b.ins().ishl(a, k)
                            }
                            UopOp::Shr => {
                                let a = low32(b, s[0]);
                                b.ins().ushr(a, k)
                            }
                            _ => {
                                let a = b.ins().ireduce(types::I32, s[0]);
                                let a = b.ins().sextend(types::I64, a);
                                b.ins().sshr(a, k)
                            }
                        }
                    }
                    UopOp::Sel => {
                        let take_a = if u.cond.is_some() {
                            test_i(b, u.cond, s[0], s[1])
                        } else {
                            picks(b, c)
                        };
                        b.ins().select(take_a, s[0], s[1])
                    }
                    UopOp::Cmp | UopOp::Cmpn => {
                        let hit = test_i(b, u.cond, s[0], s[1]);
                        hits.push(hit);
                        let one = b.ins().uextend(types::I64, hit);
                        b.ins().ineg(one)
                    }
                    // Not covered (`covers`).
                    _ => s[0],
                };
                bits.push(if u.dst.ty == Type::F {
                    let f = b.ins().fcvt_from_sint(types::F32, r);
                    to_i(b, f)
                } else {
                    b.ins().ireduce(types::I32, r)
                });
            }
        }
        self.store(b, &u.dst, n, rel, &bits);
        self.acc_ints(b, rel, &products);
        let cond_flags = u.cond.is_some() && !is_cmp && u.op != UopOp::Sel;
        if is_cmp || cond_flags {
            if cond_flags {
                // The condition tests the result as written against zero.
                hits = bits
                    .iter()
                    .map(|&x| {
                        let w = if u.dst.cond_ty == Type::D {
                            b.ins().sextend(types::I64, x)
                        } else {
                            b.ins().uextend(types::I64, x)
                        };
                        let zero = b.ins().iconst(types::I64, 0);
                        test_i(b, u.cond, w, zero)
                    })
                    .collect();
            }
            let mut acc = c32(b, 0);
            for (c, &h) in hits.iter().enumerate() {
                let h = b.ins().uextend(types::I32, h);
                let h = b.ins().ishl_imm_u(h, c as i64);
                acc = b.ins().bor(acc, h);
            }
            self.write_flags(b, u, rel, acc);
        }
    }

    /// 4 lanes of the register file at `offs` (one vector load when they are consecutive,
    /// a splat when they are one element).
    fn vload(&self, b: &mut FunctionBuilder, offs: &[u16]) -> Value {
        if offs
            .iter()
            .enumerate()
            .all(|(i, &o)| o == offs[0] + 4 * i as u16)
        {
            return b.ins().load(V, mem(), self.grf, i32::from(offs[0]));
        }
        if offs.iter().all(|&o| o == offs[0]) {
            let x = self.load(b, offs[0]);
            return b.ins().splat(V, x);
        }
        let x = self.load(b, offs[0]);
        let mut v = b.ins().scalar_to_vector(V, x);
        for (i, &o) in offs.iter().enumerate().skip(1) {
            let x = self.load(b, o);
            v = b.ins().insertlane(v, x, i as u8);
        }
        v
    }

    /// Float source `s` for channels `4k..4k+4` as f32 lanes (`src_f` on 4 lanes).
    fn vsrc_f(&self, b: &mut FunctionBuilder, u: &Uop, s: &Operand, k: usize) -> Value {
        // Under DAZ the arithmetic of `add`, `mul`, `mad` and the comparisons reads a
        // denormal register source as zero of its sign by itself (`super::fpenv`);
        // where a source's bits reach the result (`mov`, `sel`), go to the math helper,
        // feed `rnd*`/`frc` or several steps (`lrp`), they are flushed here.
        let host_flushes = self.daz && relies_on_daz(u) && matches!(s, Operand::Reg { .. });
        let flush_in = !u.raw_mov && s.ty() == Type::F && !host_flushes;
        let bits = match s {
            Operand::Reg {
                offs, negate, abs, ..
            } => {
                let x = self.vload(b, &offs[4 * k..4 * k + 4]);
                // Quieting a signalling NaN matters only where the source's bits reach
                // the result (`mov`, `sel`): every other float result that is a NaN
                // becomes the default NaN, and comparisons see a NaN either way.
                let mut x = if matches!(u.op, UopOp::Mov | UopOp::Sel) {
                    vquiet(b, x)
                } else {
                    x
                };
                if *abs {
                    let m = vsplat(b, 0x7fff_ffff);
                    x = b.ins().band(x, m);
                }
                if *negate {
                    let m = vsplat(b, 0x8000_0000);
                    x = b.ins().bxor(x, m);
                }
                match flush_in {
                    // DAZ may be on here for the instructions around (`mov` and `sel`,
                    // the math helper and the roundings leave it as it is).
                    true if self.daz && self.daz_on.get() => vflush_under_daz(b, x),
                    true => vflush(b, x),
                    false => x,
                }
            }
            Operand::ImmF { lanes, .. } => {
                let l: [u32; 4] = std::array::from_fn(|i| {
                    let v = lanes[4 * k + i].to_bits();
                    if flush_in && v & 0x7f80_0000 == 0 {
                        v & 0x8000_0000
                    } else {
                        v
                    }
                });
                vconst(b, l)
            }
            Operand::ImmI { .. } => vsplat(b, 0),
        };
        vcast(b, VF, bits)
    }

    /// A float micro-op, 4 channels at a time (the steps of `uop::run::compute_f`).
    fn vector(&self, b: &mut FunctionBuilder, u: &Uop, rel: Value, pick: Option<Value>) {
        let n = u.n;
        let is_cmp = matches!(u.op, UopOp::Cmp | UopOp::Cmpn);
        let mut chunks = Vec::with_capacity(n / 4);
        let mut hits = Vec::with_capacity(n / 4);
        for k in 0..n / 4 {
            // A source that repeats an earlier one of the instruction (`mul g2 g8 g8`)
            // is read once.
            let mut s: Vec<Value> = Vec::with_capacity(u.srcs.len());
            for (i, src) in u.srcs.iter().enumerate() {
                let v = match u.srcs[..i].iter().position(|e| e == src) {
                    Some(j) => s[j],
                    None => self.vsrc_f(b, u, src, k),
                };
                s.push(v);
            }
            let r = match u.op {
                UopOp::Mov => s[0],
                UopOp::Add => b.ins().fadd(s[0], s[1]),
                UopOp::Mul => b.ins().fmul(s[0], s[1]),
                UopOp::Mad => b.ins().fma(s[1], s[2], s[0]),
                UopOp::Lrp => {
                    let ab = b.ins().fmul(s[0], s[1]);
                    let one = b.ins().f32const(1.0);
                    let one = b.ins().splat(VF, one);
                    let t = b.ins().fsub(one, s[0]);
                    let tx = b.ins().fmul(t, s[2]);
                    b.ins().fadd(ab, tx)
                }
                UopOp::Rndd => b.ins().floor(s[0]),
                UopOp::Rndu => b.ins().ceil(s[0]),
                UopOp::Rnde => b.ins().nearest(s[0]),
                UopOp::Rndz => b.ins().trunc(s[0]),
                UopOp::Frc => {
                    let f = b.ins().floor(s[0]);
                    b.ins().fsub(s[0], f)
                }
                UopOp::Pln => self.vpln(b, u, k),
                // `ops::math_f`'s correctly rounded functions are one host instruction
                // each (IEEE division and square root, as Rust's f32 operators): the
                // same bits, flushed sources in and the result going through the same
                // NaN and denormal rules below.
                UopOp::Math(MathFunction::Inv) => {
                    let one = b.ins().f32const(1.0);
                    let one = b.ins().splat(VF, one);
                    b.ins().fdiv(one, s[0])
                }
                UopOp::Math(MathFunction::Sqrt) => b.ins().sqrt(s[0]),
                UopOp::Math(MathFunction::Rsq) => {
                    let one = b.ins().f32const(1.0);
                    let one = b.ins().splat(VF, one);
                    let root = b.ins().sqrt(s[0]);
                    b.ins().fdiv(one, root)
                }
                UopOp::Math(MathFunction::Fdiv) => b.ins().fdiv(s[0], s[1]),
                UopOp::Math(f) => {
                    // The others: one call per four lanes, through a stack slot: the
                    // sources at bytes 0 and 16, the results at 32.
                    let code = MATH.iter().position(|&m| m == f).unwrap_or(0);
                    let code = c32(b, code as u32);
                    let slot = b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        48,
                        4,
                    ));
                    let y = match s.get(1) {
                        Some(&v) => v,
                        None => {
                            let zero = vsplat(b, 0);
                            vcast(b, VF, zero)
                        }
                    };
                    let io = b.ins().stack_addr(self.ptr, slot, 0);
                    b.ins().store(mem(), s[0], io, 0);
                    b.ins().store(mem(), y, io, 16);
                    b.ins().call(self.math, &[code, io]);
                    b.ins().load(VF, mem(), io, 32)
                }
                UopOp::Sel => {
                    let take_a = if u.cond.is_some() {
                        let an = b.ins().fcmp(FloatCC::Unordered, s[0], s[0]);
                        let bn = b.ins().fcmp(FloatCC::Unordered, s[1], s[1]);
                        let t = vtest_f(b, u.cond, s[0], s[1]);
                        let t = b.ins().bor(bn, t);
                        let not_an = b.ins().bnot(an);
                        b.ins().band(not_an, t)
                    } else {
                        match pick {
                            Some(p) => self.lanes(b, p, 4 * k),
                            None => vsplat(b, u32::MAX),
                        }
                    };
                    let a = vcast(b, V, s[0]);
                    let c = vcast(b, V, s[1]);
                    let r = b.ins().bitselect(take_a, a, c);
                    vcast(b, VF, r)
                }
                UopOp::Cmp | UopOp::Cmpn => {
                    let mut hit = vtest_f(b, u.cond, s[0], s[1]);
                    if u.op == UopOp::Cmpn {
                        let an = b.ins().fcmp(FloatCC::Unordered, s[0], s[0]);
                        let bn = b.ins().fcmp(FloatCC::Unordered, s[1], s[1]);
                        let not_an = b.ins().bnot(an);
                        let extra = b.ins().band(bn, not_an);
                        hit = b.ins().bor(hit, extra);
                    }
                    hits.push(hit);
                    // -(hit): all ones where it holds.
                    chunks.push(hit);
                    continue;
                }
                // Not covered (`covers`).
                _ => s[0],
            };
            let mut r = vcast(b, V, r);
            if !matches!(u.op, UopOp::Mov | UopOp::Sel) {
                let f = vcast(b, VF, r);
                let nan = b.ins().fcmp(FloatCC::Unordered, f, f);
                let d = vsplat(b, DEFAULT_NAN);
                r = b.ins().bitselect(nan, d, r);
            }
            if u.dst.cond_ty == Type::F && !u.raw_mov {
                r = if self.daz && self.daz_on.get() {
                    vflush_under_daz(b, r)
                } else {
                    vflush(b, r)
                };
            }
            match u.dst.ty {
                Type::D | Type::UD => {
                    let f = vcast(b, VF, r);
                    r = if u.dst.ty == Type::D {
                        b.ins().fcvt_to_sint_sat(V, f)
                    } else {
                        b.ins().fcvt_to_uint_sat(V, f)
                    };
                }
                _ if u.saturate => r = vsat(b, r),
                _ => {}
            }
            chunks.push(r);
        }
        self.vstore(b, &u.dst, rel, &chunks);
        let cond_flags = u.cond.is_some() && !is_cmp && u.op != UopOp::Sel;
        if cond_flags {
            // The condition tests the result as written against zero.
            hits = chunks
                .iter()
                .map(|&x| match u.dst.cond_ty {
                    Type::F => {
                        let f = vcast(b, VF, x);
                        let zero = b.ins().f32const(0.0);
                        let zero = b.ins().splat(VF, zero);
                        vtest_f(b, u.cond, f, zero)
                    }
                    t => {
                        let zero = vsplat(b, 0);
                        vtest_i(b, u.cond, t == Type::D, x, zero)
                    }
                })
                .collect();
        }
        if is_cmp || cond_flags {
            self.write_lane_flags(b, u, rel, &hits);
        }
    }

    /// Integer source `s` for channels `4k..4k+4` as 32-bit lanes (`gather_i`, whose
    /// low 32 bits these are: |x| of a UD value is itself).
    fn vsrc_i(&self, b: &mut FunctionBuilder, s: &Operand, k: usize) -> Value {
        match s {
            Operand::Reg {
                ty,
                offs,
                negate,
                abs,
                ..
            } => {
                let mut x = self.vload(b, &offs[4 * k..4 * k + 4]);
                if *abs && *ty == Type::D {
                    x = b.ins().iabs(x);
                }
                if *negate {
                    x = b.ins().ineg(x);
                }
                x
            }
            Operand::ImmI { lanes, .. } => {
                vconst(b, std::array::from_fn(|i| lanes[4 * k + i] as u32))
            }
            Operand::ImmF { .. } => vsplat(b, 0),
        }
    }

    /// An integer micro-op, 4 channels at a time (`int_lanes` says when; `signed` is how
    /// a comparison reads its sources).
    fn vector_int(
        &self,
        b: &mut FunctionBuilder,
        u: &Uop,
        rel: Value,
        pick: Option<Value>,
        signed: Option<bool>,
    ) {
        let n = u.n;
        let is_cmp = matches!(u.op, UopOp::Cmp | UopOp::Cmpn);
        let mut chunks = Vec::with_capacity(n / 4);
        let mut hits = Vec::with_capacity(n / 4);
        for k in 0..n / 4 {
            let s: Vec<Value> = u.srcs.iter().map(|s| self.vsrc_i(b, s, k)).collect();
            let r = match u.op {
                UopOp::Mov => s[0],
                UopOp::Add => b.ins().iadd(s[0], s[1]),
                UopOp::Not => b.ins().bnot(s[0]),
                UopOp::And => b.ins().band(s[0], s[1]),
                UopOp::Or => b.ins().bor(s[0], s[1]),
                UopOp::Xor => b.ins().bxor(s[0], s[1]),
                UopOp::Shl | UopOp::Shr | UopOp::Asr => {
                    // One count for all lanes: lane 0's, masked to 5 bits.
                    let count = b.ins().extractlane(s[1], 0);
                    let count = b.ins().band_imm_u(count, 31);
                    match u.op {
                        UopOp::Shl => b.ins().ishl(s[0], count),
                        UopOp::Shr => b.ins().ushr(s[0], count),
                        _ => b.ins().sshr(s[0], count),
                    }
                }
                UopOp::Sel => {
                    let take_a = match (u.cond, pick) {
                        (Some(_), _) => vtest_i(b, u.cond, signed.unwrap_or(true), s[0], s[1]),
                        (None, Some(p)) => self.lanes(b, p, 4 * k),
                        (None, None) => vsplat(b, u32::MAX),
                    };
                    b.ins().bitselect(take_a, s[0], s[1])
                }
                UopOp::Cmp | UopOp::Cmpn => {
                    let hit = vtest_i(b, u.cond, signed.unwrap_or(true), s[0], s[1]);
                    hits.push(hit);
                    hit
                }
                // Not made (`int_lanes`).
                _ => s[0],
            };
            chunks.push(r);
        }
        self.vstore(b, &u.dst, rel, &chunks);
        let cond_flags = u.cond.is_some() && !is_cmp && u.op != UopOp::Sel;
        if cond_flags {
            // The condition tests the result as written (D or UD) against zero.
            let signed = u.dst.cond_ty == Type::D;
            hits = chunks
                .iter()
                .map(|&x| {
                    let zero = vsplat(b, 0);
                    vtest_i(b, u.cond, signed, x, zero)
                })
                .collect();
        }
        if is_cmp || cond_flags {
            self.write_lane_flags(b, u, rel, &hits);
        }
    }

    /// `pln` on 4 lanes.
    fn vpln(&self, b: &mut FunctionBuilder, u: &Uop, k: usize) -> Value {
        let Some(p) = &u.pln else {
            let z = b.ins().f32const(0.0);
            return b.ins().splat(VF, z);
        };
        let coef: Vec<Value> = p
            .coef
            .iter()
            .map(|&o| {
                let x = self.load(b, o);
                let mut x = quiet(b, x);
                if p.abs {
                    x = b.ins().band_imm_u(x, 0x7fff_ffff);
                }
                if p.negate {
                    let sign = c32(b, 0x8000_0000);
                    x = b.ins().bxor(x, sign);
                }
                let f = to_f(b, x);
                b.ins().splat(VF, f)
            })
            .collect();
        let xs = &p.x[4 * k..4 * k + 4];
        let x = self.vload(b, xs);
        let x = vquiet(b, x);
        let x = vcast(b, VF, x);
        let ys: Vec<u16> = xs.iter().map(|&o| o + 32).collect();
        let y = self.vload(b, &ys);
        let y = vquiet(b, y);
        let y = vcast(b, VF, y);
        let px = b.ins().fmul(coef[0], x);
        let qy = b.ins().fmul(coef[1], y);
        let s = b.ins().fadd(px, qy);
        b.ins().fadd(s, coef[2])
    }

    /// Stores 4-lane results under the mask (`store` on 4 lanes; consecutive
    /// destinations take one vector load, select and store).
    fn vstore(&self, b: &mut FunctionBuilder, d: &DstOp, rel: Value, chunks: &[Value]) {
        let Some(offs) = &d.offs else {
            return;
        };
        let write = self.memo(b, MaskKey::And(rel, d.enabled), |b| {
            b.ins().band_imm_u(rel, i64::from(d.enabled))
        });
        for (k, &v) in chunks.iter().enumerate() {
            let o = &offs[4 * k..4 * k + 4];
            if d.enabled >> (4 * k) & 0xf == 0 {
                continue;
            }
            if o.iter().enumerate().all(|(i, &x)| x == o[0] + 4 * i as u16) {
                let m = self.lanes(b, write, 4 * k);
                let old = b.ins().load(V, mem(), self.grf, i32::from(o[0]));
                let new = b.ins().bitselect(m, v, old);
                b.ins().store(mem(), new, self.grf, i32::from(o[0]));
            } else {
                for (i, &off) in o.iter().enumerate() {
                    let c = 4 * k + i;
                    if d.enabled & (1 << c) == 0 {
                        continue;
                    }
                    let x = b.ins().extractlane(v, i as u8);
                    let bit = b.ins().ushr_imm_u(write, c as i64);
                    let bit = b.ins().band_imm_u(bit, 1);
                    let on = b.ins().icmp_imm_u(IntCC::NotEqual, bit, 0);
                    let old = self.load(b, off);
                    let new = b.ins().select(on, x, old);
                    b.ins().store(mem(), new, self.grf, i32::from(off));
                }
            }
        }
    }

    /// [`Emit::write_flags`] from 4-lane masks (all ones where the condition holds),
    /// chunk `k` giving channels `4k..4k+4`.
    fn write_lane_flags(&self, b: &mut FunctionBuilder, u: &Uop, rel: Value, hits: &[Value]) {
        let mut acc = c32(b, 0);
        for (k, &h) in hits.iter().enumerate() {
            let m = b.ins().vhigh_bits(types::I32, h);
            let m = b.ins().ishl_imm_u(m, 4 * k as i64);
            acc = b.ins().bor(acc, m);
        }
        self.write_flags(b, u, rel, acc);
    }

    /// The flag update of a comparison or condition modifier (`Thread::scatter`): the
    /// channels of `rel` take their bit of `hits`.
    fn write_flags(&self, b: &mut FunctionBuilder, u: &Uop, rel: Value, hits: Value) {
        let shift = u.group as i64 + i64::from(u.flag_shift);
        let field = b.ins().ishl_imm_u(rel, shift);
        let keep = b.ins().bnot(field);
        let at = (u.flag_reg as i32) * 4;
        let reg = b.ins().load(types::I32, mem(), self.flags, at);
        let reg = b.ins().band(reg, keep);
        let new = b.ins().band(hits, rel);
        let new = b.ins().ishl_imm_u(new, shift);
        let reg = b.ins().bor(reg, new);
        b.ins().store(mem(), reg, self.flags, at);
    }

    /// An integer `mul`'s whole products into the first accumulator (`Thread::scatter`:
    /// every channel of `rel`, channels past 15 into channel 15), as `Acc::Int`.
    fn acc_ints(&self, b: &mut FunctionBuilder, rel: Value, products: &[Value]) {
        let tag = b.ins().iconst(types::I64, 1);
        for (c, &p) in products.iter().enumerate() {
            let bit = b.ins().ushr_imm_u(rel, c as i64);
            let bit = b.ins().band_imm_u(bit, 1);
            let on = b.ins().icmp_imm_u(IntCC::NotEqual, bit, 0);
            let at = 16 * c.min(15) as i32;
            let old_tag = b.ins().load(types::I64, mem(), self.acc, at);
            let old = b.ins().load(types::I64, mem(), self.acc, at + 8);
            let new_tag = b.ins().select(on, tag, old_tag);
            let new = b.ins().select(on, p, old);
            b.ins().store(mem(), new_tag, self.acc, at);
            b.ins().store(mem(), new, self.acc, at + 8);
        }
    }

    /// Stores the enabled channels (`Thread::scatter`), one after the other.
    fn store(&self, b: &mut FunctionBuilder, d: &DstOp, n: usize, rel: Value, bits: &[Value]) {
        let Some(offs) = &d.offs else {
            return;
        };
        let write = b.ins().band_imm_u(rel, i64::from(d.enabled));
        for (c, &v) in bits.iter().enumerate().take(n) {
            if d.enabled & (1 << c) == 0 {
                continue;
            }
            let bit = b.ins().ushr_imm_u(write, c as i64);
            let bit = b.ins().band_imm_u(bit, 1);
            let on = b.ins().icmp_imm_u(IntCC::NotEqual, bit, 0);
            let at = i32::from(offs[c]);
            // W and UW destinations take the low 16 bits.
            let (v, ty) = if d.ty.size() == 2 {
                (b.ins().ireduce(types::I16, v), types::I16)
            } else {
                (v, types::I32)
            };
            let old = b.ins().load(ty, mem(), self.grf, at);
            let new = b.ins().select(on, v, old);
            b.ins().store(mem(), new, self.grf, at);
        }
    }
}
