//! Arithmetic, logic, comparison and math semantics (IVB PRM Vol4 Part3, instruction
//! reference; IEEE-754 for float arithmetic, which is done in f32 for F operands so every
//! result is rounded exactly once, to nearest even).

use crate::exec::{ExecError, FpMode, Thread};
use crate::region::{Acc, Val, is_float};
use gtsim_isa::ir::*;
use gtsim_isa::opcode::{Kind, Opcode};
/// One channel's outcome: the value to write, the condition-modifier result, the
/// accumulator update.
type ChannelResult = (Val, Option<bool>, Option<Acc>);

fn f32v(v: Val) -> f32 {
    v.f() as f32
}

fn fv(x: f32) -> Val {
    Val::F(x as f64)
}

/// A source's type (immediates included).
pub(crate) fn src_ty(s: &Src) -> Type {
    match *s {
        Src::Reg { ty, .. } | Src::Imm { ty, .. } => ty,
    }
}

/// Conditional modifier test on floating-point values, single or double (IVB PRM
/// "Conditional Modifier"): NaN compares unordered.
pub(crate) fn test_floats(cond: Option<CondModifier>, x: f64, y: f64) -> bool {
    match cond {
        Some(CondModifier::U) => x.is_nan() || y.is_nan(),
        _ => compare(cond, x, y),
    }
}

/// The relational conditions (z, nz, g, ge, l, le) on ordered values; the others
/// (overflow, unordered, none) are false here. The one table of them: the micro-ops'
/// lane comparisons (`uop::lanes::compare`, `uop::run::int_hits`) call it too.
#[inline(always)]
pub(crate) fn compare<T: PartialOrd>(cond: Option<CondModifier>, x: T, y: T) -> bool {
    match cond {
        Some(CondModifier::Z) => x == y,
        Some(CondModifier::Nz) => x != y,
        Some(CondModifier::G) => x > y,
        Some(CondModifier::Ge) => x >= y,
        Some(CondModifier::L) => x < y,
        Some(CondModifier::Le) => x <= y,
        _ => false,
    }
}

/// Conditional modifier test (IVB PRM "Conditional Modifier"): NaN compares unordered.
pub(crate) fn test(cond: Option<CondModifier>, a: Val, b: Val) -> bool {
    match (a, b) {
        (Val::I(x), Val::I(y)) => compare(cond, x, y),
        _ => test_floats(cond, a.f(), b.f()),
    }
}

fn width_of(t: Type) -> u32 {
    t.size() * 8
}

pub(crate) fn as_unsigned(v: i64, t: Type) -> u64 {
    let w = width_of(t);
    if w >= 64 {
        v as u64
    } else {
        (v as u64) & ((1u64 << w) - 1)
    }
}

pub(crate) fn as_signed(v: i64, t: Type) -> i64 {
    let w = width_of(t);
    if w >= 64 {
        v
    } else {
        (v << (64 - w)) >> (64 - w)
    }
}

/// A single-precision denormal becomes zero of the same sign.
pub(crate) fn flush_denormal(v: Val) -> Val {
    match v {
        Val::F(f) if (f as f32).is_subnormal() => {
            Val::F(if f.is_sign_negative() { -0.0 } else { 0.0 })
        }
        other => other,
    }
}

/// Applies the floating-point mode to a float result: in ALT mode infinities become
/// ±FLT_MAX and NaN becomes +0 (IVB PRM Vol4 Part3 "Floating Point Modes", ALT mode does
/// not produce infinities or NaNs).
/// The bits of the NaN a float computation returns (sign clear, quiet, no payload).
pub(crate) const DEFAULT_NAN: u32 = 0x7fc0_0000;

/// A NaN computed by an arithmetic instruction (anything but `mov` and `sel`, which
/// pass a source through) is the default NaN. The seeds do not say which NaN an
/// operation with NaN sources returns; a fixed answer keeps the result independent of
/// how the host compiler orders the operands of its own float instructions (x86 returns
/// the first NaN operand), so the per-channel interpreter, the micro-ops and the JIT
/// agree bit for bit.
pub(crate) fn default_nan(v: Val) -> Val {
    match v {
        Val::F(f) if f.is_nan() => Val::F(f32::from_bits(DEFAULT_NAN) as f64),
        other => other,
    }
}

pub(crate) fn fp_result(mode: FpMode, v: Val) -> Val {
    match (mode, v) {
        (FpMode::Alt, Val::F(f)) if f.is_nan() => Val::F(0.0),
        (FpMode::Alt, Val::F(f)) if f.is_infinite() || (f as f32).is_infinite() => {
            Val::F(if f > 0.0 {
                f32::MAX as f64
            } else {
                f32::MIN as f64
            })
        }
        (_, other) => other,
    }
}

/// Channel result `r` of `ins` (sources `a`, `b`, `x` after modifiers) rounded to its
/// float or half destination under directed rounding mode `mode` (`crate::rounding`):
/// an integer result converted, a float add, mul or fused mad worked out exactly and
/// rounded once, a value passed through (mov, sel, csel, the round instructions, whose
/// results are exact) rounded to the destination's precision. The other float
/// operations (mac, lrp, line, pln, the dot products) are not modelled under a directed
/// mode and say so.
fn directed(
    t: &Thread,
    ins: &Instruction,
    mode: crate::rounding::Rounding,
    [a, b, x]: [Val; 3],
    r: Val,
) -> Result<Val, ExecError> {
    use crate::rounding::{Exact, to_f16, to_f32};
    let exact = match r {
        // NaNs and integer results: a NaN stays the NaN computed; an integer converts.
        Val::F(f) if f.is_nan() => return Ok(r),
        Val::I(i) => Exact::of(i as f64),
        Val::F(f) => {
            let d = |v: Val| f64::from(f32v(v));
            match ins.opcode {
                Opcode::Add => Exact::sum(d(a), d(b), mode),
                // Products of single (or half) values are exact in a double.
                Opcode::Mul => Exact::of(d(a) * d(b)),
                // mad dst = src1 * src2 + src0, fused: one rounding.
                Opcode::Mad => Exact::sum(d(b) * d(x), d(a), mode),
                Opcode::Mov
                | Opcode::Sel
                | Opcode::Csel
                | Opcode::Frc
                | Opcode::Rndd
                | Opcode::Rndu
                | Opcode::Rnde
                | Opcode::Rndz
                | Opcode::F16to32 => Exact::of(f),
                // The extended math unit's results are approximations with error bounds
                // of their own (not a rounding of the exact value); a directed mode is
                // read as leaving them as they are, and only their conversion to a half
                // destination follows it.
                Opcode::Math => Exact::of(f),
                other => {
                    return Err(ExecError::unsupported(
                        t.ip,
                        format!(
                            "`{}` to a float destination under rounding mode {} (cr0.0 5:4 set by the kernel); add, mul, mad and conversions are modelled",
                            other.mnemonic(),
                            mode.name()
                        ),
                    ));
                }
            }
        }
    };
    Ok(match ins.dst.ty {
        Type::HF => Val::F(to_f16(exact, mode).to_f64()),
        _ => Val::F(f64::from(to_f32(exact, mode))),
    })
}

/// Whether a source has a negate or absolute-value modifier.
pub(crate) fn has_mods(s: &Src) -> bool {
    match s {
        Src::Reg { negate, abs, .. } => *negate || *abs,
        _ => false,
    }
}

/// Executes an ALU or math instruction on every enabled channel.
/// Runs ALU instruction `ins` channel by channel; `negate_is_not`: its sources' negate
/// modifier is a bitwise NOT ([`gtsim_isa::Encoding::negate_is_not`]).
pub(crate) fn alu(t: &mut Thread, ins: &Instruction, negate_is_not: bool) -> Result<(), ExecError> {
    // Double precision has its own channel model on Gen7 (see `crate::df`).
    if crate::df::is_df(ins) {
        return crate::df::alu_df(t, ins);
    }
    let group = ins.qtr_control as usize * 8 + if ins.nib_control { 4 } else { 0 };
    let n = ins.exec_size as usize;
    if group + n > 32 {
        return Err(ExecError::Invalid {
            ip: t.ip,
            msg: format!("execution size {n} from channel {group} passes channel 31"),
        });
    }
    // sel chooses by predicate instead of masking by it.
    let mut sel_ins;
    let mask_ins = if ins.opcode == Opcode::Sel && ins.predicate.is_some() {
        sel_ins = ins.clone();
        sel_ins.predicate = None;
        &sel_ins
    } else {
        ins
    };
    let mask = t.exec_mask(mask_ins);
    // sel picks by the predicate with the same rules (any/all groups, replication) as
    // channel masking.
    let pred = ins.predicate.map(|p| {
        let f = t.predicate_bits(ins, p);
        if p.inverse { !f } else { f }
    });
    let float = ins.srcs.iter().any(|s| is_float(src_ty(s)));
    let mut results: [Option<ChannelResult>; 32] = [None; 32];
    let mut remainders: [Option<Val>; 32] = [None; 32];
    // Vector ops (dp*, line, pln) need other channels' sources: read them all first.
    // Enabled channels report out-of-range regions; others are read only when needed.
    let mut srcs: [[Val; 32]; 3] = [[Val::I(0); 32]; 3];
    for (s, v) in ins.srcs.iter().zip(srcs.iter_mut()) {
        for (c, x) in v.iter_mut().enumerate().take(n) {
            if mask & (1 << (group + c)) != 0 {
                *x = t.read_src(s, c)?;
            } else if needs_all(ins.opcode) {
                *x = t.read_src(s, c).unwrap_or(Val::I(0));
            }
        }
    }
    // Gen8+ logic instructions: a negated source is its bitwise NOT, which is the
    // arithmetic negation just applied minus one (two's complement: !x = -x - 1).
    if negate_is_not {
        for (s, v) in ins.srcs.iter().zip(srcs.iter_mut()) {
            if matches!(s, Src::Reg { negate: true, .. }) {
                v.iter_mut()
                    .for_each(|x| *x = Val::I(x.i().wrapping_sub(1)));
            }
        }
    }
    // Single-precision denormals are flushed to sign-preserving zero on input to float
    // arithmetic (Gen7 has no fp32 denormal support; IVB PRM Vol4 Part3 "Floating Point
    // Modes"); a `mov` without modifiers or conversion is a raw copy.
    let raw_mov = ins.opcode == Opcode::Mov
        && !ins.saturate
        && ins
            .srcs
            .first()
            .is_some_and(|s| src_ty(s) == ins.dst.ty && !has_mods(s));
    // Gen8+ kernels may keep them instead (cr0.0 bit 7, `crate::rounding`).
    let flush = t.cr0 & crate::rounding::CR0_F_DENORM == 0;
    let rounding = crate::rounding::Rounding::of(t.cr0);
    if float && !raw_mov && flush {
        for (s, v) in ins.srcs.iter().zip(srcs.iter_mut()) {
            if src_ty(s) == Type::F {
                v.iter_mut().for_each(|x| *x = flush_denormal(*x));
            }
        }
    }
    for (c, slot) in results.iter_mut().enumerate().take(n) {
        let abs = group + c;
        if mask & (1 << abs) == 0 {
            continue;
        }
        let a = srcs.first().map_or(Val::I(0), |v| v[c]);
        let b = srcs.get(1).map_or(Val::I(0), |v| v[c]);
        let x = srcs.get(2).map_or(Val::I(0), |v| v[c]);
        let ta = ins.srcs.first().map_or(Type::UD, src_ty);
        let tb = ins.srcs.get(1).map_or(Type::UD, src_ty);
        let acc = t.acc[0][c.min(15)];
        let mut flag = None;
        let mut acc_out = None;
        let r = match ins.opcode {
            Opcode::Mov => a,
            Opcode::Sel => {
                let take_a = if ins.cond_modifier.is_some() {
                    // min/max: a NaN operand yields the other (IEEE minNum/maxNum).
                    if float && f32v(a).is_nan() {
                        false
                    } else if float && f32v(b).is_nan() {
                        true
                    } else {
                        test(ins.cond_modifier, a, b)
                    }
                } else {
                    pred.is_none_or(|p| p & (1 << abs) != 0)
                };
                if take_a { a } else { b }
            }
            // csel (Gen8+; Mesa brw_eu_defines.h BRW_OPCODE_CSEL, lowered from NIR's
            // fcsel/b32csel): dst = src2 <cond> 0 ? src0 : src1, the comparison in
            // src2's type; the conditional modifier only chooses, no flag is written
            // (Intel's Gen8+ PRM "CSEL").
            Opcode::Csel => {
                let zero = if is_float(src_ty(&ins.srcs[2])) {
                    Val::F(0.0)
                } else {
                    Val::I(0)
                };
                if test(ins.cond_modifier, x, zero) {
                    a
                } else {
                    b
                }
            }
            Opcode::Not => Val::I(!a.i()),
            Opcode::And => Val::I(a.i() & b.i()),
            Opcode::Or => Val::I(a.i() | b.i()),
            Opcode::Xor => Val::I(a.i() ^ b.i()),
            Opcode::Shl => Val::I((as_unsigned(a.i(), ta) << (b.i() & 31)) as i64),
            Opcode::Shr => Val::I((as_unsigned(a.i(), ta) >> (b.i() & 31)) as i64),
            Opcode::Asr => Val::I(as_signed(a.i(), ta) >> (b.i() & 31)),
            // Gen11 ROR/ROL (Mesa brw_eu_emit.c brw_ROR/brw_ROL, Gen11+): rotate within
            // the source type's width, by the count modulo that width.
            Opcode::Ror | Opcode::Rol => {
                let bits = (ta.size() * 8).clamp(8, 32);
                let v = as_unsigned(a.i(), ta) as u32;
                let v = if bits == 32 {
                    v
                } else {
                    v & ((1u32 << bits) - 1)
                };
                let n = (b.i() as u32) & (bits - 1);
                let right = ins.opcode == Opcode::Ror;
                let n = if right { n } else { (bits - n) % bits };
                let r = if n == 0 {
                    v
                } else {
                    (v >> n) | (v << (bits - n))
                };
                let r = if bits == 32 {
                    r
                } else {
                    r & ((1u32 << bits) - 1)
                };
                Val::I(i64::from(r))
            }
            Opcode::Add if float => fv(f32v(a) + f32v(b)),
            Opcode::Add => Val::I(a.i().wrapping_add(b.i())),
            Opcode::Mul if float => fv(f32v(a) * f32v(b)),
            Opcode::Mul => {
                let p = a.i().wrapping_mul(b.i());
                acc_out = Some(Acc::Int(p));
                Val::I(p)
            }
            Opcode::Avg => Val::I(((a.i() as i128 + b.i() as i128 + 1) >> 1) as i64),
            Opcode::Frc => fv(f32v(a) - f32v(a).floor()),
            Opcode::Rndd => fv(f32v(a).floor()),
            Opcode::Rndu => fv(f32v(a).ceil()),
            Opcode::Rnde => fv(f32v(a).round_ties_even()),
            Opcode::Rndz => fv(f32v(a).trunc()),
            Opcode::Lzd => Val::I((as_unsigned(a.i(), Type::UD) as u32).leading_zeros() as i64),
            Opcode::Fbh => {
                let v = as_unsigned(a.i(), Type::UD) as u32;
                let v = if ta == Type::D && (v as i32) < 0 {
                    !v
                } else {
                    v
                };
                Val::I(if v == 0 { -1 } else { v.leading_zeros() as i64 })
            }
            Opcode::Fbl => {
                let v = as_unsigned(a.i(), Type::UD) as u32;
                Val::I(if v == 0 {
                    -1
                } else {
                    v.trailing_zeros() as i64
                })
            }
            Opcode::Cbit => Val::I((as_unsigned(a.i(), ta) as u32).count_ones() as i64),
            Opcode::Bfrev => Val::I((as_unsigned(a.i(), Type::UD) as u32).reverse_bits() as i64),
            Opcode::Bfe => {
                // bfe dst, width, offset, value (IVB PRM BFE; Mesa brw_BFE operand order).
                let (w, o) = ((a.i() & 31) as u32, (b.i() & 31) as u32);
                let v = as_unsigned(x.i(), Type::UD) as u32;
                let dst_signed = ins.dst.ty == Type::D;
                if w == 0 {
                    Val::I(0)
                } else if w + o < 32 {
                    let f = (v >> o) & ((1u32 << w) - 1);
                    Val::I(if dst_signed {
                        ((f << (32 - w)) as i32 >> (32 - w)) as i64
                    } else {
                        f as i64
                    })
                } else {
                    Val::I(if dst_signed {
                        ((v as i32) >> o) as i64
                    } else {
                        (v >> o) as i64
                    })
                }
            }
            Opcode::Bfi1 => {
                let (w, o) = ((a.i() & 31) as u32, (b.i() & 31) as u32);
                Val::I((((1u64 << w) - 1) << o) as u32 as i64)
            }
            Opcode::Bfi2 => {
                // dst = ((src1 << lsb(src0)) & src0) | (src2 & !src0): the insert value is
                // shifted up to the mask's lowest set bit (IVB PRM BFI2, as NIR's `bfi`,
                // which Mesa maps straight to BFI2).
                let mask = as_unsigned(a.i(), Type::UD) as u32;
                let ins_v = as_unsigned(b.i(), Type::UD) as u32;
                let shifted = if mask == 0 {
                    0
                } else {
                    ins_v << mask.trailing_zeros()
                };
                Val::I(((shifted & mask) | (as_unsigned(x.i(), Type::UD) as u32 & !mask)) as i64)
            }
            Opcode::Addc => {
                let s = as_unsigned(a.i(), Type::UD) + as_unsigned(b.i(), Type::UD);
                acc_out = Some(Acc::Int((s >> 32) as i64));
                Val::I(s as u32 as i64)
            }
            Opcode::Subb => {
                let (x1, y1) = (as_unsigned(a.i(), Type::UD), as_unsigned(b.i(), Type::UD));
                acc_out = Some(Acc::Int((x1 < y1) as i64));
                Val::I(x1.wrapping_sub(y1) as u32 as i64)
            }
            Opcode::Mac if float => fv(acc.as_val(Type::F).f() as f32 + f32v(a) * f32v(b)),
            Opcode::Mac => Val::I(
                acc.as_val(Type::D)
                    .i()
                    .wrapping_add(a.i().wrapping_mul(b.i())),
            ),
            Opcode::Mach => {
                // High 32 bits of the 64-bit product (the idiom mul acc0; mach dst).
                let p = if ta == Type::UD || tb == Type::UD {
                    ((as_unsigned(a.i(), Type::UD) * as_unsigned(b.i(), Type::UD)) >> 32) as i64
                } else {
                    (as_signed(a.i(), Type::D) * as_signed(b.i(), Type::D)) >> 32
                };
                acc_out = Some(Acc::Int(
                    as_signed(a.i(), Type::D).wrapping_mul(as_signed(b.i(), Type::D)),
                ));
                Val::I(p)
            }
            Opcode::Cmp | Opcode::Cmpn => {
                let mut r = test(ins.cond_modifier, a, b);
                // cmpn: a NaN in src1 makes the comparison true (IVB PRM CMPN), so min/max
                // sequences keep the non-NaN operand.
                if ins.opcode == Opcode::Cmpn && float && f32v(b).is_nan() && !f32v(a).is_nan() {
                    r = true;
                }
                flag = Some(r);
                Val::I(if r { -1 } else { 0 })
            }
            Opcode::Dp4 | Opcode::Dp3 | Opcode::Dp2 | Opcode::Dph => {
                let base = c / 4 * 4;
                let k = match ins.opcode {
                    Opcode::Dp4 => 4,
                    Opcode::Dp3 | Opcode::Dph => 3,
                    _ => 2,
                };
                let mut s = 0f32;
                for i in 0..k {
                    s +=
                        f32v(srcs[0][(base + i).min(n - 1)]) * f32v(srcs[1][(base + i).min(n - 1)]);
                }
                if ins.opcode == Opcode::Dph {
                    s += f32v(srcs[1][(base + 3).min(n - 1)]);
                }
                fv(s)
            }
            Opcode::Line => {
                // dst = src0[0] * src1 + src0[3] (src0 a scalar quad; IVB PRM LINE).
                let (p, q) = (scalar(t, ins, 0)?, scalar(t, ins, 3)?);
                fv(p * f32v(b) + q)
            }
            Opcode::Pln => {
                // dst = src0[0]*x + src0[1]*y + src0[3], x and y the two registers at src1
                // (per 8 channels; IVB PRM PLN).
                let (p, q, r0) = (scalar(t, ins, 0)?, scalar(t, ins, 1)?, scalar(t, ins, 3)?);
                let (xv, yv) = pln_xy(t, ins, c)?;
                fv(p * xv + q * yv + r0)
            }
            Opcode::Mad => fv(f32v(b).mul_add(f32v(x), f32v(a))),
            Opcode::Lrp => fv(f32v(a) * f32v(b) + (1.0 - f32v(a)) * f32v(x)),
            Opcode::Math => {
                if ins.math == Some(MathFunction::IntDivMod) {
                    remainders[c] = Some(divmod_vals(a, b, ins).1);
                }
                math(t, ins, a, b)?
            }
            Opcode::F32to16 => Val::I(half::f16::from_f32(f32v(a)).to_bits() as i64),
            Opcode::F16to32 => {
                fv(half::f16::from_bits(as_unsigned(a.i(), Type::UW) as u16).to_f32())
            }
            other => {
                return Err(ExecError::unsupported(
                    t.ip,
                    format!("`{}`", other.mnemonic()),
                ));
            }
        };
        let r = if !matches!(ins.opcode, Opcode::Mov | Opcode::Sel | Opcode::Csel) {
            default_nan(r)
        } else {
            r
        };
        let r = if rounding != crate::rounding::Rounding::NearestEven
            && matches!(ins.dst.ty, Type::F | Type::HF)
            && !raw_mov
        {
            directed(t, ins, rounding, [a, b, x], r)?
        } else {
            r
        };
        let r = if ins.dst.ty == Type::F && !raw_mov {
            fp_result(t.fp_mode, if flush { flush_denormal(r) } else { r })
        } else {
            r
        };
        if flag.is_none()
            && ins.cond_modifier.is_some()
            && ins.opcode.kind() != Kind::Math
            && !matches!(ins.opcode, Opcode::Sel | Opcode::Csel)
        {
            // The condition tests the result as it is written (after type conversion and
            // saturation) against zero.
            let written = crate::region::convert(r, ins.dst.ty, ins.saturate);
            let rv = crate::region::read_elem(&written, ins.dst.ty);
            flag = Some(test(
                ins.cond_modifier,
                rv,
                if matches!(rv, Val::F(_)) {
                    Val::F(0.0)
                } else {
                    Val::I(0)
                },
            ));
        }
        if ins.acc_write && acc_out.is_none() {
            acc_out = Some(Acc::from_val(r, ins.dst.ty));
        }
        *slot = Some((r, flag, acc_out));
    }
    // Write back: destination, flags, accumulator.
    for (c, slot) in results.into_iter().enumerate() {
        let Some((r, flag, acc_out)) = slot else {
            continue;
        };
        if matches!(ins.opcode, Opcode::Cmp | Opcode::Cmpn) && is_float(ins.dst.ty) {
            // cmp writes all ones (or zero) of the destination's size, whatever its type
            // (IVB PRM Vol4 Part3 CMP; Mesa reads the result as a ~0/0 boolean).
            let mut raw = ins.clone();
            raw.dst.ty = match ins.dst.ty.size() {
                2 => Type::UW,
                8 => Type::UQ,
                _ => Type::UD,
            };
            t.write_dst(&raw, c, r)?;
        } else {
            t.write_dst(ins, c, r)?;
        }
        if let Some(f) = flag
            && flag_write_enabled(ins, c)
        {
            // A flag subregister holds 16 channels.
            let Some(bit) = 1u32.checked_shl(((group + c) + 16 * ins.flag.1 as usize) as u32)
            else {
                return Err(ExecError::Invalid {
                    ip: t.ip,
                    msg: format!(
                        "channel {} has no bit in f{}.{}",
                        group + c,
                        ins.flag.0,
                        ins.flag.1
                    ),
                });
            };
            let reg = &mut t.flags[ins.flag.0 as usize & 1];
            if f {
                *reg |= bit;
            } else {
                *reg &= !bit;
            }
        }
        if let Some(a) = acc_out {
            t.acc[0][c.min(15)] = a;
        }
        if let Some(rem) = remainders[c] {
            // intdivmod also writes the remainder to the next register.
            let mut next = ins.clone();
            next.dst.nr = next
                .dst
                .nr
                .wrapping_add(if ins.exec_size > 8 { 2 } else { 1 });
            t.write_dst(&next, c, rem)?;
        }
    }
    Ok(())
}

/// Whether channel `c` of `ins` updates its flag bit: always in align1; in align16 only
/// when the destination write mask enables the channel's component (`c % 4`), the null
/// register's included.
///
/// The seeds have no EU ISA (seed INDEX §4). Public fact: Mesa's vec4 backend relies on
/// it. Its dead-code pass tracks the flag register per component and narrows an
/// instruction's write mask to the components whose flag or value is still read
/// (brw_vec4_dead_code_eliminate.cpp), and for a double's `sign` it sets one flag
/// component per instruction (`mov.nz.f0.0 null.xDF`, `null.yDF`, ...) before one
/// `(+f0.0)` predicate reads all four (brw_vec4_nir.cpp, nir_op_fsign on 64 bits), which
/// piglit's fp64 `sign` tests check on the real part.
pub(crate) fn flag_write_enabled(ins: &Instruction, c: usize) -> bool {
    match ins.dst.layout {
        gtsim_isa::ir::DstLayout::WriteMask(wm) => wm & (1 << (c % 4)) != 0,
        gtsim_isa::ir::DstLayout::HStride(_) => true,
    }
}

fn needs_all(op: Opcode) -> bool {
    matches!(op, Opcode::Dp4 | Opcode::Dp3 | Opcode::Dp2 | Opcode::Dph)
}

/// Element `k` of src0 read as a scalar quad (line/pln coefficients).
fn scalar(t: &Thread, ins: &Instruction, k: usize) -> Result<f32, ExecError> {
    let Some(Src::Reg {
        file,
        nr,
        subnr,
        ty,
        address,
        negate,
        abs,
        ..
    }) = ins.srcs.first().cloned()
    else {
        return Ok(0.0);
    };
    let s = Src::Reg {
        file,
        nr,
        subnr: subnr + (k as u32 * ty.size()) as u8,
        ty,
        layout: Layout::Region(Region {
            vstride: Some(0),
            width: 1,
            hstride: 0,
        }),
        address,
        negate,
        abs,
    };
    Ok(f32v(t.read_src(&s, 0)?))
}

fn pln_xy(t: &Thread, ins: &Instruction, c: usize) -> Result<(f32, f32), ExecError> {
    let Some(Src::Reg { file, nr, ty, .. }) = ins.srcs.get(1).cloned() else {
        return Ok((0.0, 0.0));
    };
    let pair = (c / 8) as u8 * 2;
    let rd = |reg: u8| -> Result<f32, ExecError> {
        let s = Src::Reg {
            file,
            nr: reg,
            subnr: 0,
            ty,
            layout: Layout::Region(Region {
                vstride: Some(8),
                width: 8,
                hstride: 1,
            }),
            address: Address::Direct,
            negate: false,
            abs: false,
        };
        Ok(f32v(t.read_src(&s, c % 8)?))
    };
    Ok((rd(nr + pair)?, rd(nr + pair + 1)?))
}

/// Extended math (IVB PRM Vol4 Part3 "MATH", function codes in the conditional-modifier
/// field). Results are computed in f64 and rounded once to f32; the hardware's documented
/// precision is a few ULP for transcendental functions, exact for inv/sqrt/fdiv in IEEE
/// mode.
/// A float math function of single-precision operands (`y` only for `fdiv` and `pow`),
/// rounded to single precision: `inv`, `sqrt`, `rsq` and `fdiv` in f32, the
/// transcendentals in f64 (the seeds give the functions, not their precision). `None`
/// for the integer functions.
pub(crate) fn math_f(f: MathFunction, x: f32, y: f32) -> Option<f32> {
    use MathFunction as M;
    let (xd, yd) = (x as f64, y as f64);
    Some(match f {
        M::Inv => 1.0 / x,
        M::Log => xd.log2() as f32,
        M::Exp => xd.exp2() as f32,
        M::Sqrt => x.sqrt(),
        M::Rsq => 1.0 / x.sqrt(),
        M::Sin => xd.sin() as f32,
        M::Cos => xd.cos() as f32,
        M::Fdiv => x / y,
        M::Pow => xd.powf(yd) as f32,
        _ => return None,
    })
}

fn math(t: &Thread, ins: &Instruction, a: Val, b: Val) -> Result<Val, ExecError> {
    use MathFunction as M;
    if let Some(r) = ins.math.and_then(|f| math_f(f, f32v(a), f32v(b))) {
        return Ok(fv(r));
    }
    Ok(match ins.math {
        Some(M::IntDivMod | M::IntDiv) => divmod_vals(a, b, ins).0,
        Some(M::IntMod) => divmod_vals(a, b, ins).1,
        other => {
            return Err(ExecError::unsupported(
                t.ip,
                format!("math function {}", other.map_or("(none)", |m| m.mnemonic())),
            ));
        }
    })
}

fn divmod_vals(a: Val, b: Val, ins: &Instruction) -> (Val, Val) {
    let (a, b) = (a.i(), b.i());
    let unsigned = matches!(ins.srcs.first().map(src_ty), Some(Type::UD));
    // The divide is on 32 bits: a divisor whose low 32 bits are zero (a float source of
    // 2^32, say) divides by zero too, and must not reach the host's division.
    if b as u32 == 0 {
        return (Val::I(-1), Val::I(a));
    }
    if unsigned {
        let (x, y) = (a as u32, b as u32);
        (Val::I((x / y) as i64), Val::I((x % y) as i64))
    } else {
        let (x, y) = (a as i32, b as i32);
        (
            Val::I(x.wrapping_div(y) as i64),
            Val::I(x.wrapping_rem(y) as i64),
        )
    }
}
