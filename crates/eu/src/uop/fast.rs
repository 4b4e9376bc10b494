//! The commonest micro-ops without lane arrays: float arithmetic of 8 or 16 channels (or
//! fewer than 8, run as 8 lanes where those lie in the register file; the float `math`
//! functions included) on F registers in any region (packed, scalar,
//! or element by element for swizzles and strides) and float immediates (VF vectors
//! too), written packed to an F register (or, for `mov`, converted to D/UD), with no
//! saturation or explicit accumulator write; a condition modifier only on `cmp`/`cmpn`
//! (flags, and all ones or zero in a dword destination or none) and `sel` (min/max).
//!
//! Shader code is mostly such instructions (`mov`, `add`, `mul`, `mad`, `sel`, `lrp`,
//! the roundings, `cmp`), and the general path (`super::run`) pays for its generality on each
//! of them: three 32-lane source arrays and a result array cleared, every channel
//! converted to the destination type through a 64-bit array, the flags and the
//! accumulator considered. Here the channel count is a constant of the function
//! (`[f32; 8]` or `[f32; 16]`, which the compiler keeps in vector registers), the
//! sources are read straight from the register file and the results stored straight
//! back. The rules are those of `super::run` (and so of `crate::ops`): signalling NaNs
//! of register sources quieted, then |x| and -x, denormal sources flushed to zero of
//! their sign unless the instruction is a plain `mov`, the result NaN replaced by the
//! default NaN unless the instruction is a `mov` or `sel`, denormal results flushed, and
//! only the enabled channels written. Float micro-ops run here in IEEE mode only; in
//! the alternative mode they take the general path (`Thread::run_uop`). Integer ones,
//! which that mode does not change, run here in both.
//!
//! The loops are over `[T; N]` lane arrays (`super::lanes`), and the whole fast path is
//! compiled a second time for AVX2 and FMA, chosen per micro-op where the host has them.
//!
//! Integer instructions (`mov`, `add`, `mul`, the logic operations and shifts, `sel`,
//! `cmp`, and condition modifiers with their flags) on any integer register region or
//! immediate run here too, written to a D/UD/W/UW register, packed or at a stride of
//! two or four elements (or the null register when flags are the result): their results are the low bits of the general path's 64-bit
//! arithmetic, computed in 32-bit lanes; comparisons, min/max and `mul`'s accumulator
//! take the sources' 64-bit values (so those sources carry no modifier, which the
//! general path applies in 64 bits), and the shifts a D/UD src0 (they read it at its
//! own width).

use super::lanes::{bits, compare, expand, lanes, select};
use super::{GRF_BYTES, Operand, Shape, Uop, UopOp};
use crate::exec::Thread;
use crate::region::Acc;
use crate::region::quiet_nan;
use gtsim_isa::ir::CondModifier;
use gtsim_isa::ir::MathFunction;
use gtsim_isa::ir::Type;

/// Where a fast micro-op reads one source: 32-bit elements of the register file with
/// the source modifiers, or an immediate `T` the same in every channel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Source<T> {
    /// Packed elements from this byte offset.
    Packed { off: u16, negate: bool, abs: bool },
    /// One element for every channel.
    Scalar { off: u16, negate: bool, abs: bool },
    /// The same value in every channel.
    Imm(T),
    /// Element by element through the micro-op's source of this index (integer sources
    /// of 8 or 16 bits, irregular regions such as swizzles and strides, immediate
    /// vectors).
    Lanes(u8),
}

/// A float source: F elements, or an F immediate.
pub(crate) type FastSrc = Source<f32>;

/// A float micro-op the fast path runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FastF {
    pub(crate) srcs: [FastSrc; 3],
    /// Byte offset of channel 0's destination element.
    pub(crate) dst: u16,
    /// Channels (relative) the destination's write mask lets through.
    pub(crate) enabled: u32,
    /// Denormal sources and results are flushed (not a plain `mov`).
    pub(crate) flush: bool,
    /// NaN results become the default NaN (not `mov` or `sel`).
    pub(crate) nan_default: bool,
    /// `pln`: the byte offsets of p, q and r (with src0's modifiers) and of channel 0's
    /// x, whose channels run packed by eight (channel 8's x two registers on), each y
    /// one register after its x (`super::Pln`).
    pub(crate) pln: Option<([u16; 3], bool, bool, u16)>,
    /// A `mov` to a D (`Some(true)`) or UD (`Some(false)`) destination: each float
    /// truncated toward zero and saturated to the type, NaN to 0 (`region::convert_bits`,
    /// which is what Rust's `as` does).
    pub(crate) to_int: Option<bool>,
    /// A `cmp`: the flag register and the shift of the micro-op's first channel in it;
    /// its destination (all ones or zero per channel) is a dword, or the null register.
    pub(crate) cmp: Option<(usize, u32, bool)>,
}

/// The channels where float condition `cond` holds between `a` and `b`
/// (`ops::test_floats`, the general path's test).
#[inline(always)]
fn float_hits<const N: usize>(cond: Option<CondModifier>, a: &[f32; N], b: &[f32; N]) -> u32 {
    // (Comparing the f32 values is comparing their exact f64 widenings.)
    match cond {
        Some(CondModifier::U) => bits::<N>(|c| a[c].is_nan() || b[c].is_nan()),
        _ => compare(cond, a, b),
    }
}

/// The fast form of float micro-op `u`, when it has one.
fn of_f(u: &Uop) -> Option<FastF> {
    let covered = matches!(
        u.op,
        UopOp::Mov
            | UopOp::Add
            | UopOp::Mul
            | UopOp::Mad
            | UopOp::Lrp
            | UopOp::Sel
            | UopOp::Rndd
            | UopOp::Rndu
            | UopOp::Rnde
            | UopOp::Rndz
            | UopOp::Frc
            | UopOp::Pln
            | UopOp::Cmp
            | UopOp::Cmpn
    ) || matches!(u.op, UopOp::Math(m) if crate::ops::math_f(m, 1.0, 1.0).is_some());
    let is_cmp = matches!(u.op, UopOp::Cmp | UopOp::Cmpn);
    // `sel` with a condition modifier is min/max, which sets no flags but compares; a
    // `cmp` writes flags and all ones or zero of its destination's size (a UD for a
    // float one, `resolve_dst`), or only flags with the null register.
    let cond_ok = match u.cond {
        None => !is_cmp,
        Some(_) => is_cmp || u.op == UopOp::Sel,
    };
    let dst_ok = if is_cmp {
        matches!(u.dst.ty, Type::UD | Type::D) && (u.dst.packed || u.dst.offs.is_none())
    } else {
        u.dst.cond_ty == u.dst.ty && u.dst.packed
    };
    if !covered
        || !u.float
        || !channels_ok(u)
        || u.saturate
        || !cond_ok
        || u.acc_write
        || !dst_ok
        || u.srcs.len() > 3
    {
        return None;
    }
    let to_int = match u.dst.ty {
        _ if is_cmp => None,
        Type::F => None,
        Type::D if u.op == UopOp::Mov => Some(true),
        Type::UD if u.op == UopOp::Mov => Some(false),
        _ => return None,
    };
    let cmp = is_cmp.then_some((
        u.flag_reg,
        u.group as u32 + u.flag_shift,
        u.dst.offs.is_none(),
    ));
    let dst = u.dst.offs.map_or(0, |o| o[0]);
    let mut srcs = [FastSrc::Imm(0.0); 3];
    if u.op == UopOp::Pln {
        // (Whole registers of x and y: 8 or 16 channels.)
        if u.n < 8 {
            return None;
        }
        let p = u.pln.as_ref()?;
        let x0 = p.x[0];
        let packed =
            (0..u.n).all(|c| usize::from(p.x[c]) == usize::from(x0) + 4 * (c % 8) + 64 * (c / 8));
        return packed.then_some(FastF {
            srcs,
            dst,
            enabled: u.dst.enabled,
            flush: !u.raw_mov,
            nan_default: true,
            pln: Some((p.coef, p.negate, p.abs, x0)),
            to_int,
            cmp,
        });
    }
    for (i, (s, f)) in u.srcs.iter().zip(srcs.iter_mut()).enumerate() {
        *f = match *s {
            Operand::Reg {
                ty: Type::F,
                ref offs,
                negate,
                abs,
                shape: Shape::Packed,
            } => FastSrc::Packed {
                off: offs[0],
                negate,
                abs,
            },
            Operand::Reg {
                ty: Type::F,
                ref offs,
                negate,
                abs,
                shape: Shape::Scalar,
            } => FastSrc::Scalar {
                off: offs[0],
                negate,
                abs,
            },
            Operand::ImmF { ref lanes, .. }
                if lanes[..u.n]
                    .iter()
                    .all(|l| l.to_bits() == lanes[0].to_bits()) =>
            {
                FastSrc::Imm(lanes[0])
            }
            // Swizzled or strided F registers, immediate vectors: element by element.
            Operand::Reg {
                ty: Type::F,
                shape: Shape::Gather,
                ..
            }
            | Operand::ImmF { .. } => FastSrc::Lanes(i as u8),
            _ => return None,
        };
    }
    Some(FastF {
        srcs,
        dst,
        enabled: u.dst.enabled,
        flush: !u.raw_mov,
        nan_default: !matches!(u.op, UopOp::Mov | UopOp::Sel),
        pln: None,
        to_int,
        cmp,
    })
}

/// Whether `u`'s channel count has a runner: 8 or 16, or fewer than 8 run as 8 lanes
/// of which only the first `n` are enabled. The other lanes read and rewrite what is
/// there, so they must lie in the register file: the destination's eight elements when
/// packed (a strided destination writes only enabled lanes), and the eight elements of
/// each packed source (a scalar one reads one element, one element by element its own
/// offsets, which lie in the file).
fn channels_ok(u: &Uop) -> bool {
    if matches!(u.n, 8 | 16) {
        return true;
    }
    if u.n > 8 || u.n == 0 {
        return false;
    }
    let size = u.dst.ty.size() as usize;
    let dst_ok = match &u.dst.offs {
        Some(o) if u.dst.packed => usize::from(o[0]) + 8 * size <= GRF_BYTES,
        _ => true,
    };
    let srcs_ok = u.srcs.iter().all(|s| match s {
        Operand::Reg {
            offs,
            ty,
            shape: Shape::Packed,
            ..
        } => usize::from(offs[0]) + 8 * ty.size() as usize <= GRF_BYTES,
        _ => true,
    });
    dst_ok && srcs_ok
}

/// A single-precision denormal becomes zero of its sign.
#[inline(always)]
fn flush(x: f32) -> f32 {
    let b = x.to_bits();
    f32::from_bits(if b & 0x7f80_0000 == 0 {
        b & 0x8000_0000
    } else {
        b
    })
}

/// `b * x + a` per channel, fused (one rounding, as `f32::mul_add` and `ops` compute
/// `mad`): with the host's FMA instructions where it has them, which the compiler
/// otherwise leaves to a library call per channel.
#[inline(always)]
pub(crate) fn mad<const N: usize>(a: &[f32; N], b: &[f32; N], x: &[f32; N]) -> [f32; N] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the host has FMA (checked just above), all `mad_fma` needs.
        return unsafe { mad_fma(a, b, x) };
    }
    lanes(|c| b[c].mul_add(x[c], a[c]))
}

/// [`mad`] compiled for hosts with FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn mad_fma<const N: usize>(a: &[f32; N], b: &[f32; N], x: &[f32; N]) -> [f32; N] {
    lanes(|c| b[c].mul_add(x[c], a[c]))
}

/// The `N` dwords from byte `off` on (zeros past the register file, which the micro-op's
/// offsets were checked against), read in one loop before anything is done with them (so
/// that what follows compiles to vector code).
#[inline(always)]
fn dwords<const N: usize>(grf: &[u8], off: u16) -> [u32; N] {
    let o = off as usize;
    let mut d = [0u32; N];
    if let Some(bytes) = grf.get(o..o + 4 * N) {
        for (x, b) in d.iter_mut().zip(bytes.chunks_exact(4)) {
            *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
    }
    d
}

/// The eight floats of a 32-byte register, signalling NaNs quieted: the dwords first,
/// then each step one loop over all eight (which the compiler makes vector code).
#[inline(always)]
fn register(bytes: &[u8]) -> [f32; 8] {
    let mut d = [0u32; 8];
    for (x, b) in d.iter_mut().zip(bytes.chunks_exact(4)) {
        *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    lanes(|c| f32::from_bits(quiet_nan(d[c])))
}

/// The source modifiers and the flush, each one loop over the channels (which the
/// compiler vectorises), in `super::run`'s order: |x|, -x, then the flush.
#[inline(always)]
fn modify<const N: usize>(
    mut v: [f32; N],
    negate: bool,
    abs: bool,
    flush_denormals: bool,
) -> [f32; N] {
    if abs {
        for x in v.iter_mut() {
            *x = x.abs();
        }
    }
    if negate {
        for x in v.iter_mut() {
            *x = -*x;
        }
    }
    if flush_denormals {
        for x in v.iter_mut() {
            *x = flush(*x);
        }
    }
    v
}

/// Source `s` of `u` in `N` channels.
#[inline(always)]
fn load<const N: usize>(grf: &Grf, u: &Uop, s: FastSrc, flush_denormals: bool) -> [f32; N] {
    let read = |o: usize| -> f32 {
        let b = grf
            .get(o..o + 4)
            .map_or([0; 4], |b| [b[0], b[1], b[2], b[3]]);
        f32::from_bits(quiet_nan(u32::from_le_bytes(b)))
    };
    match s {
        FastSrc::Packed { off, negate, abs } => {
            let d = dwords::<N>(grf, off);
            modify(
                lanes(|c| f32::from_bits(quiet_nan(d[c]))),
                negate,
                abs,
                flush_denormals,
            )
        }
        FastSrc::Scalar { off, negate, abs } => {
            modify([read(off as usize); N], negate, abs, flush_denormals)
        }
        FastSrc::Imm(v) => modify([v; N], false, false, flush_denormals),
        FastSrc::Lanes(i) => match u.srcs.get(usize::from(i)) {
            Some(Operand::Reg {
                offs, negate, abs, ..
            }) => modify(
                lanes(|c| f32::from_bits(quiet_nan(u32::from_le_bytes(element(grf, offs[c]))))),
                *negate,
                *abs,
                flush_denormals,
            ),
            // An immediate vector (VF: an F immediate is one value, `FastSrc::Imm`),
            // which cannot hold a denormal: nothing to flush.
            Some(Operand::ImmF { lanes: imm, .. }) => lanes(|c| imm[c]),
            // `of_f` makes no other float source.
            _ => [0.0; N],
        },
    }
}

/// Runs fast micro-op `f` of `u` over `N` channels, `rel` of them enabled (relative to
/// the group), `pick` the channels where a predicated `sel` takes its first source.
#[inline(always)]
fn run_f<const N: usize>(
    grf: &mut Grf,
    flags: &mut [u32; 2],
    (u, op): (&Uop, UopOp),
    f: &FastF,
    rel: u32,
    pick: u32,
) {
    let mut r = [0f32; N];
    if op == UopOp::Pln
        && let Some((coef, negate, abs, x0)) = f.pln
    {
        // p*x + q*y + r, sources quieted but not flushed, as `super::run` computes it.
        let read = |o: usize| -> f32 {
            let b = grf
                .get(o..o + 4)
                .map_or([0; 4], |b| [b[0], b[1], b[2], b[3]]);
            f32::from_bits(quiet_nan(u32::from_le_bytes(b)))
        };
        let [p, q, k] = coef.map(|o| {
            let v = read(o as usize);
            let v = if abs { v.abs() } else { v };
            if negate { -v } else { v }
        });
        // Eight channels at a time: x from one register, y from the next.
        for (g, rg) in r.chunks_exact_mut(8).enumerate() {
            let o = usize::from(x0) + 64 * g;
            let (Some(xs), Some(ys)) = (grf.get(o..o + 32), grf.get(o + 32..o + 64)) else {
                return;
            };
            let (xs, ys) = (register(xs), register(ys));
            for ((rc, x), y) in rg.iter_mut().zip(xs).zip(ys) {
                *rc = p * x + q * y + k;
            }
        }
        return store::<N>(grf, f, rel, r);
    }
    let a = load::<N>(grf, u, f.srcs[0], f.flush);
    if op == UopOp::Mov
        && let Some(signed) = f.to_int
    {
        let bits = if signed {
            lanes::<_, N>(|c| a[c] as i32 as u32)
        } else {
            lanes::<_, N>(|c| a[c] as u32)
        };
        return store_dwords(grf, f.dst, rel & f.enabled, bits);
    }
    if matches!(op, UopOp::Cmp | UopOp::Cmpn)
        && let Some((reg, shift, null)) = f.cmp
    {
        let b = load::<N>(grf, u, f.srcs[1], f.flush);
        let mut set = float_hits(u.cond, &a, &b);
        if op == UopOp::Cmpn {
            // `cmpn`: a NaN in src1 alone makes the comparison true.
            set |= float_hits(Some(CondModifier::U), &b, &b)
                & !float_hits(Some(CondModifier::U), &a, &a);
        }
        let field = rel << shift;
        flags[reg] = (flags[reg] & !field) | ((set & rel) << shift);
        if !null {
            store_dwords(grf, f.dst, rel & f.enabled, expand::<N>(set));
        }
        return;
    }
    match op {
        UopOp::Mov => r = a,
        UopOp::Add => {
            let b = load::<N>(grf, u, f.srcs[1], f.flush);
            r = lanes(|c| a[c] + b[c]);
        }
        UopOp::Sel if u.cond.is_some() => {
            // min/max: a NaN operand yields the other (IEEE minNum/maxNum).
            let b = load::<N>(grf, u, f.srcs[1], f.flush);
            let take = float_hits(u.cond, &a, &b);
            let keep_a = bits::<N>(|c| !a[c].is_nan() && (b[c].is_nan() || take & (1 << c) != 0));
            r = select(keep_a, &a, &b);
        }
        UopOp::Mul => {
            let b = load::<N>(grf, u, f.srcs[1], f.flush);
            r = lanes(|c| a[c] * b[c]);
        }
        UopOp::Mad => {
            let b = load::<N>(grf, u, f.srcs[1], f.flush);
            let x = load::<N>(grf, u, f.srcs[2], f.flush);
            r = mad(&a, &b, &x);
        }
        UopOp::Lrp => {
            let b = load::<N>(grf, u, f.srcs[1], f.flush);
            let x = load::<N>(grf, u, f.srcs[2], f.flush);
            r = lanes(|c| a[c] * b[c] + (1.0 - a[c]) * x[c]);
        }
        UopOp::Sel => {
            let b = load::<N>(grf, u, f.srcs[1], f.flush);
            r = select(pick, &a, &b);
        }
        UopOp::Rndd => r = lanes(|c| a[c].floor()),
        UopOp::Rndu => r = lanes(|c| a[c].ceil()),
        UopOp::Rnde => r = lanes(|c| a[c].round_ties_even()),
        UopOp::Rndz => r = lanes(|c| a[c].trunc()),
        UopOp::Frc => r = lanes(|c| a[c] - a[c].floor()),
        UopOp::Math(m) => {
            // (A unary function's second source is absent: zeros, as on the general path.)
            let b = if u.srcs.len() > 1 {
                load::<N>(grf, u, f.srcs[1], f.flush)
            } else {
                [0.0; N]
            };
            // The commonest functions as loops the compiler vectorises; each is
            // `ops::math_f`'s formula.
            r = match m {
                MathFunction::Inv => lanes(|c| 1.0 / a[c]),
                MathFunction::Sqrt => lanes(|c| a[c].sqrt()),
                MathFunction::Rsq => lanes(|c| 1.0 / a[c].sqrt()),
                MathFunction::Fdiv => lanes(|c| a[c] / b[c]),
                _ => lanes(|c| crate::ops::math_f(m, a[c], b[c]).unwrap_or(0.0)),
            };
        }
        // `of` makes no other operation fast.
        _ => return,
    }
    store::<N>(grf, f, rel, r);
}

/// The results' last rules (the default NaN, the flush) and their store to the enabled
/// channels.
#[inline(always)]
fn store<const N: usize>(grf: &mut Grf, f: &FastF, rel: u32, mut r: [f32; N]) {
    if f.nan_default {
        let nan = f32::from_bits(crate::ops::DEFAULT_NAN);
        for x in r.iter_mut() {
            *x = if x.is_nan() { nan } else { *x };
        }
    }
    if f.flush {
        for x in r.iter_mut() {
            *x = flush(*x);
        }
    }
    store_dwords(
        grf,
        f.dst,
        rel & f.enabled,
        lanes::<_, N>(|c| r[c].to_bits()),
    );
}

/// Stores the dwords of the channels in `write` at byte `dst` on (packed).
#[inline(always)]
fn store_dwords<const N: usize>(grf: &mut [u8], dst: u16, write: u32, r: [u32; N]) {
    let o = dst as usize;
    let Some(out) = grf.get_mut(o..o + 4 * N) else {
        return;
    };
    // Partly enabled: the disabled channels keep what they held (a blend, not a branch
    // per channel).
    let r = if write == (1u32 << N) - 1 {
        r
    } else {
        select(write, &r, &dwords::<N>(out, 0))
    };
    for (w, x) in out.chunks_exact_mut(4).zip(r) {
        w.copy_from_slice(&x.to_le_bytes());
    }
}

/// A micro-op the fast path runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Fast {
    F(FastF),
    I(FastI),
}

/// The fast form of `u`, when it has one (see the module documentation).
pub(crate) fn of(u: &Uop) -> Option<Fast> {
    if u.float {
        of_f(u).map(Fast::F)
    } else {
        of_i(u).map(Fast::I)
    }
}

/// Runs fast micro-op `f` of `u` over its channels, `rel` of them enabled (relative to
/// the group), `pick` the channels where a predicated `sel` takes its first source: the
/// float or integer form at the micro-op's channel count, compiled for the host's
/// features (chosen once, by [`runner`]). Unsafe to call only in that a runner compiled
/// for AVX2 must run on a host that has it, which `runner` checked.
pub(crate) type Runner = unsafe fn(&mut Thread, &Uop, &Fast, u32, u32);

/// The register file as the array it always is (`Thread` keeps 128 registers), whose
/// size the compiler then knows.
type Grf = [u8; GRF_BYTES];

/// `grf` as a [`Grf`] (`None`, and the micro-op not run, would mean a thread of
/// another size, which `Thread` does not make).
#[inline(always)]
fn file(grf: &mut [u8]) -> Option<&mut Grf> {
    grf.try_into().ok()
}

/// The operations as the constants runners are compiled for ([`code`]); `math` is one
/// code, its function read from the micro-op.
const OPS: [UopOp; 23] = [
    UopOp::Mov,
    UopOp::Add,
    UopOp::Mul,
    UopOp::Mad,
    UopOp::Lrp,
    UopOp::Sel,
    UopOp::Cmp,
    UopOp::Cmpn,
    UopOp::Rndd,
    UopOp::Rndu,
    UopOp::Rnde,
    UopOp::Rndz,
    UopOp::Frc,
    UopOp::Not,
    UopOp::And,
    UopOp::Or,
    UopOp::Xor,
    UopOp::Shl,
    UopOp::Shr,
    UopOp::Asr,
    UopOp::Pln,
    UopOp::Mach,
    UopOp::Math(MathFunction::Inv),
];

/// The code of `op` (its index in [`OPS`]); `None` for one no runner is compiled for.
fn code(op: UopOp) -> Option<usize> {
    match op {
        UopOp::Math(_) => Some(OPS.len() - 1),
        _ => OPS.iter().position(|&o| o == op),
    }
}

/// The operation of a runner compiled for code `OP` (a constant once the runner is
/// compiled, so that its `match` on the operation leaves only one arm), `u`'s own for
/// `math`.
#[inline(always)]
fn op_of<const OP: usize>(u: &Uop) -> UopOp {
    match OPS[OP] {
        UopOp::Math(_) => u.op,
        op => op,
    }
}

/// The runner of fast micro-op `f` of `u`: one function per form, channel count and
/// operation (the interpreter's one indirect call per micro-op, rather than a branch on
/// each), compiled for this host; `None` for an operation no runner is compiled for.
pub(crate) fn runner(f: &Fast, u: &Uop) -> Option<Runner> {
    /// `$run::<$n, OP>` for the code `$op`.
    macro_rules! by_op {
        ($run:ident, $n:literal, $op:expr) => {
            match $op {
                0 => $run::<$n, 0>,
                1 => $run::<$n, 1>,
                2 => $run::<$n, 2>,
                3 => $run::<$n, 3>,
                4 => $run::<$n, 4>,
                5 => $run::<$n, 5>,
                6 => $run::<$n, 6>,
                7 => $run::<$n, 7>,
                8 => $run::<$n, 8>,
                9 => $run::<$n, 9>,
                10 => $run::<$n, 10>,
                11 => $run::<$n, 11>,
                12 => $run::<$n, 12>,
                13 => $run::<$n, 13>,
                14 => $run::<$n, 14>,
                15 => $run::<$n, 15>,
                16 => $run::<$n, 16>,
                17 => $run::<$n, 17>,
                18 => $run::<$n, 18>,
                19 => $run::<$n, 19>,
                20 => $run::<$n, 20>,
                21 => $run::<$n, 21>,
                _ => $run::<$n, 22>,
            }
        };
    }
    let op = code(u.op)?;
    #[cfg(target_arch = "x86_64")]
    if !crate::portable_only()
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
    {
        return Some(match (f, u.n) {
            (Fast::F(_), ..=8) => by_op!(f_avx2, 8, op),
            (Fast::F(_), _) => by_op!(f_avx2, 16, op),
            (Fast::I(_), ..=8) => by_op!(i_avx2, 8, op),
            (Fast::I(_), _) => by_op!(i_avx2, 16, op),
        });
    }
    Some(match (f, u.n) {
        (Fast::F(_), ..=8) => by_op!(f_any, 8, op),
        (Fast::F(_), _) => by_op!(f_any, 16, op),
        (Fast::I(_), ..=8) => by_op!(i_any, 8, op),
        (Fast::I(_), _) => by_op!(i_any, 16, op),
    })
}

/// A float micro-op of `N` channels and operation code `OP`, for any host.
fn f_any<const N: usize, const OP: usize>(t: &mut Thread, u: &Uop, f: &Fast, rel: u32, pick: u32) {
    if let Fast::F(f) = f {
        let at = (u, op_of::<OP>(u));
        if let Some(grf) = file(&mut t.grf) {
            run_f::<N>(grf, &mut t.flags, at, f, rel, pick);
        }
    }
}

/// An integer micro-op of `N` channels and operation code `OP`, for any host.
fn i_any<const N: usize, const OP: usize>(t: &mut Thread, u: &Uop, f: &Fast, rel: u32, pick: u32) {
    if let Fast::I(f) = f {
        let arf = (&mut t.flags, &mut t.acc[0]);
        let at = (u, op_of::<OP>(u));
        if let Some(grf) = file(&mut t.grf) {
            run_i::<N>(grf, arf, at, f, rel, pick);
        }
    }
}

/// [`f_any`] compiled for hosts with AVX2 and FMA: eight-lane vectors, and the roundings
/// as instructions rather than a library call per channel. The results are the same bits
/// (IEEE arithmetic is exact whatever the vector width, and only `mad` fuses, as
/// everywhere).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn f_avx2<const N: usize, const OP: usize>(t: &mut Thread, u: &Uop, f: &Fast, rel: u32, pick: u32) {
    if let Fast::F(f) = f {
        let at = (u, op_of::<OP>(u));
        if let Some(grf) = file(&mut t.grf) {
            run_f::<N>(grf, &mut t.flags, at, f, rel, pick);
        }
    }
}

/// [`i_any`] compiled for hosts with AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn i_avx2<const N: usize, const OP: usize>(t: &mut Thread, u: &Uop, f: &Fast, rel: u32, pick: u32) {
    if let Fast::I(f) = f {
        let arf = (&mut t.flags, &mut t.acc[0]);
        let at = (u, op_of::<OP>(u));
        if let Some(grf) = file(&mut t.grf) {
            run_i::<N>(grf, arf, at, f, rel, pick);
        }
    }
}

/// An integer source: D/UD elements, with the source modifiers as `super::run` applies
/// them to the element widened by its type (so `abs` only for D: |x| of a UD element is
/// itself; -x wraps), or the low 32 bits of an integer immediate.
pub(crate) type FastISrc = Source<u32>;

/// An integer micro-op the fast path runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FastI {
    pub(crate) srcs: [FastISrc; 2],
    /// Byte offset of channel 0's destination element (`None`: the null register).
    pub(crate) dst: Option<u16>,
    /// Bytes per destination element: 4 (D, UD, F) or 2 (W, UW: the low 16 bits).
    pub(crate) dst_bytes: u8,
    /// Bytes from one channel's destination element to the next: the element size
    /// (packed), or two or four times it (`<2>`, `<4>` horizontal strides).
    pub(crate) dst_stride: u8,
    /// Channels (relative) the destination's write mask lets through.
    pub(crate) enabled: u32,
    /// A `mov` to an F destination from a signed (`Some(true)`: D, W, V) or unsigned
    /// source: each value rounded to the nearest float (`region::convert_bits`).
    pub(crate) to_float: Option<bool>,
    /// Whether each source is of a signed type (D, W, B, V), for the 64-bit values
    /// comparisons and `mul`'s accumulator see.
    pub(crate) signed: [bool; 2],
    /// Flags are written (a `cmp`, or a condition modifier on anything but `sel`): the
    /// flag register and the shift of the micro-op's first channel in it.
    pub(crate) flags: Option<(usize, u32)>,
}

/// 32-bit lanes as the 64-bit values of their type.
#[inline(always)]
fn widen<const N: usize>(v: &[u32; N], signed: bool) -> [i64; N] {
    if signed {
        lanes(|c| i64::from(v[c] as i32))
    } else {
        lanes(|c| i64::from(v[c]))
    }
}

/// The fast form of integer micro-op `u`, when it has one: every register source D or
/// UD (so that `shr` and `asr` see 32-bit values), the destination a packed D or UD.
fn of_i(u: &Uop) -> Option<FastI> {
    let covered = matches!(
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
            | UopOp::Mach
    );
    let is_cmp = matches!(u.op, UopOp::Cmp | UopOp::Cmpn);
    // A null destination only where flags or the accumulator are the result (`mul` into
    // acc0 runs as a `mul` to the null register, `super::resolve_dst`).
    let null_ok = u.dst.offs.is_none() && (is_cmp || u.cond.is_some() || u.op == UopOp::Mul);
    // `mach` writes the accumulator whatever AccWrEnable says, and only D/UD sources
    // without modifiers: it multiplies their 32-bit values (`ops`), which the lanes
    // hold. No condition modifier either.
    let mach_ok = u.op != UopOp::Mach
        || (u.cond.is_none()
            && u.srcs.iter().all(|s| match s {
                Operand::Reg {
                    ty, negate, abs, ..
                } => matches!(ty, Type::D | Type::UD) && !negate && !abs,
                Operand::ImmI { ty, .. } => matches!(ty, Type::D | Type::UD),
                Operand::ImmF { .. } => false,
            }));
    if !covered
        || !mach_ok
        || !channels_ok(u)
        || u.saturate
        || (u.acc_write && u.op != UopOp::Mach)
        || !matches!(u.dst.ty, Type::D | Type::UD | Type::W | Type::UW | Type::F)
        || !(dst_stride(u).is_some() || null_ok)
        || u.srcs.len() > 2
        || (is_cmp && u.cond.is_none())
    {
        return None;
    }
    // Comparisons, min/max and `mul`'s accumulator see the sources' 64-bit values, which
    // a modifier applied in 32 bits does not give (-x of a UD value, |x| of D -2^31).
    let compares = is_cmp
        || matches!(u.op, UopOp::Mul | UopOp::Mach)
        || (u.op == UopOp::Sel && u.cond.is_some());
    if compares
        && u.srcs.iter().any(|s| {
            matches!(
                s,
                Operand::Reg { negate: true, .. } | Operand::Reg { abs: true, .. }
            )
        })
    {
        return None;
    }
    // Flags from a result as written are read back at the instruction's integer type.
    let flags_from_result = u.cond.is_some() && !is_cmp && u.op != UopOp::Sel;
    if flags_from_result && !matches!(u.dst.cond_ty, Type::D | Type::UD | Type::W | Type::UW) {
        return None;
    }
    // (Without source modifiers: `super::run` negates in 64 bits, so -x of D -2^31 or of
    // any UD value converts to a float the 32 bits here do not hold.)
    let to_float = match u.dst.ty {
        Type::F if u.op == UopOp::Mov && u.cond.is_none() => {
            if matches!(
                u.srcs[0],
                Operand::Reg { negate: true, .. } | Operand::Reg { abs: true, .. }
            ) {
                return None;
            }
            Some(matches!(
                u.srcs[0].ty(),
                Type::D | Type::W | Type::B | Type::V
            ))
        }
        Type::F => return None,
        _ => None,
    };
    // The shifts read src0 at its own width (`ops::as_unsigned`, `as_signed`), which the
    // bits shifted into a 32-bit result show: 32 bits only here.
    if matches!(u.op, UopOp::Shl | UopOp::Shr | UopOp::Asr)
        && !matches!(u.srcs[0].ty(), Type::D | Type::UD)
    {
        return None;
    }
    // (A `cmp`'s destination type is the all-ones-or-zero size: UD for a float one.)
    if to_float.is_none() && u.dst.ty == Type::F {
        return None;
    }
    let dst = u.dst.offs.map(|o| o[0]);
    let mut srcs = [FastISrc::Imm(0); 2];
    for (i, (s, f)) in u.srcs.iter().zip(srcs.iter_mut()).enumerate() {
        *f = match *s {
            Operand::Reg {
                ty: ty @ (Type::D | Type::UD),
                ref offs,
                negate,
                abs,
                shape: shape @ (Shape::Packed | Shape::Scalar),
            } => {
                let (off, abs) = (offs[0], abs && ty == Type::D);
                if shape == Shape::Packed {
                    FastISrc::Packed { off, negate, abs }
                } else {
                    FastISrc::Scalar { off, negate, abs }
                }
            }
            Operand::ImmI { ref lanes, .. } if lanes[..u.n].iter().all(|&l| l == lanes[0]) => {
                FastISrc::Imm(lanes[0] as u32)
            }
            // Any other integer register or immediate vector: element by element.
            Operand::Reg {
                ty: Type::D | Type::UD | Type::W | Type::UW | Type::B | Type::UB,
                ..
            }
            | Operand::ImmI { .. } => FastISrc::Lanes(i as u8),
            _ => return None,
        };
    }
    let mut signed = [false; 2];
    for (sg, s) in signed.iter_mut().zip(&u.srcs) {
        *sg = matches!(s.ty(), Type::D | Type::W | Type::B | Type::V);
    }
    Some(FastI {
        srcs,
        dst,
        dst_bytes: u.dst.ty.size() as u8,
        dst_stride: dst_stride(u).unwrap_or(0),
        enabled: u.dst.enabled,
        to_float,
        signed,
        flags: (is_cmp || flags_from_result).then_some((u.flag_reg, u.group as u32 + u.flag_shift)),
    })
}

/// The `B` bytes of an element at byte `off`. The micro-op's offsets were checked
/// against the register file when it was made (`super::resolve_src`), so the clamp to
/// the file's last element never moves one; it lets the compiler drop the bounds check
/// of each lane's read.
#[inline(always)]
fn element<const B: usize>(grf: &Grf, off: u16) -> [u8; B] {
    let o = usize::from(off).min(GRF_BYTES - B);
    let mut e = [0; B];
    e.copy_from_slice(&grf[o..o + B]);
    e
}

/// The byte distance between consecutive channels' destination elements, where it is
/// one, of 1, 2 or 4 elements (the offsets are the region's, checked against the
/// register file when the micro-op was made).
fn dst_stride(u: &Uop) -> Option<u8> {
    let offs = u.dst.offs.as_ref()?;
    let size = u.dst.ty.size() as usize;
    if u.dst.packed {
        return Some(size as u8);
    }
    let stride = usize::from(offs[1]).checked_sub(usize::from(offs[0]))?;
    let regular = (0..u.n).all(|c| usize::from(offs[c]) == usize::from(offs[0]) + c * stride);
    (regular && [2 * size, 4 * size].contains(&stride)).then_some(stride as u8)
}

/// |x| (of a signed element), then -x, wrapping in 32 bits.
#[inline(always)]
fn modify_i<const N: usize>(mut v: [u32; N], negate: bool, abs: bool) -> [u32; N] {
    if abs {
        for x in v.iter_mut() {
            *x = (*x as i32).wrapping_abs() as u32;
        }
    }
    if negate {
        for x in v.iter_mut() {
            *x = x.wrapping_neg();
        }
    }
    v
}

/// Integer source `s` in `N` channels (low 32 bits).
#[inline(always)]
fn load_i<const N: usize>(grf: &Grf, u: &Uop, s: FastISrc) -> [u32; N] {
    let modify = modify_i::<N>;
    match s {
        FastISrc::Packed { off, negate, abs } => modify(dwords::<N>(grf, off), negate, abs),
        FastISrc::Scalar { off, negate, abs } => {
            let o = off as usize;
            let b = grf
                .get(o..o + 4)
                .map_or([0; 4], |b| [b[0], b[1], b[2], b[3]]);
            modify([u32::from_le_bytes(b); N], negate, abs)
        }
        FastISrc::Imm(v) => [v; N],
        FastISrc::Lanes(i) => match u.srcs.get(usize::from(i)) {
            // Each element widened by its type to 32 bits (the low 32 bits of
            // `super::run`'s 64-bit widening), then the modifiers.
            Some(Operand::Reg {
                ty,
                offs,
                negate,
                abs,
                ..
            }) => {
                // (The type chosen once, then one loop per type.)
                let v: [u32; N] = match ty {
                    Type::D | Type::UD => lanes(|c| u32::from_le_bytes(element(grf, offs[c]))),
                    Type::W => lanes(|c| i16::from_le_bytes(element(grf, offs[c])) as i32 as u32),
                    Type::UW => lanes(|c| u32::from(u16::from_le_bytes(element(grf, offs[c])))),
                    Type::B => lanes(|c| element::<1>(grf, offs[c])[0] as i8 as i32 as u32),
                    _ => lanes(|c| u32::from(element::<1>(grf, offs[c])[0])),
                };
                let signed = matches!(ty, Type::D | Type::W | Type::B);
                modify(v, *negate, *abs && signed)
            }
            Some(Operand::ImmI { lanes: imm, .. }) => lanes(|c| imm[c] as u32),
            _ => [0; N],
        },
    }
}

#[inline(always)]
fn run_i<const N: usize>(
    grf: &mut Grf,
    (flags, acc): (&mut [u32; 2], &mut [Acc; 16]),
    (u, op): (&Uop, UopOp),
    f: &FastI,
    rel: u32,
    pick: u32,
) {
    let a = load_i::<N>(grf, u, f.srcs[0]);
    let b = if u.srcs.len() > 1 {
        load_i::<N>(grf, u, f.srcs[1])
    } else {
        [0; N]
    };
    let r: [u32; N];
    if op == UopOp::Mov
        && let Some(signed) = f.to_float
    {
        let bits = if signed {
            lanes::<_, N>(|c| (a[c] as i32 as f32).to_bits())
        } else {
            lanes::<_, N>(|c| (a[c] as f32).to_bits())
        };
        return store_i(grf, f, rel & f.enabled, bits);
    }
    // Channels whose flag bit is set: a comparison's, or the result's test.
    let mut set = 0u32;
    match op {
        UopOp::Cmp | UopOp::Cmpn => {
            // (`cmpn`'s NaN rule concerns floats only.)
            set = int_hits(u.cond, &a, &b, f.signed);
            r = expand::<N>(set);
        }
        UopOp::Mul => {
            let p: [i64; N] = {
                let (a, b) = (widen(&a, f.signed[0]), widen(&b, f.signed[1]));
                lanes(|c| a[c].wrapping_mul(b[c]))
            };
            r = lanes(|c| p[c] as u32);
            // The whole products go to the accumulator (`super::run`).
            // (A select per channel, not a branch.)
            for (c, (a, &x)) in acc.iter_mut().zip(&p).enumerate() {
                *a = if rel & (1 << c) != 0 { Acc::Int(x) } else { *a };
            }
        }
        UopOp::Mach => {
            // The high dword of the product: of the unsigned values where a source is
            // UD, else of the signed ones; the accumulator gets the signed product.
            let unsigned = u.srcs.iter().any(|s| s.ty() == Type::UD);
            let (sa, sb): ([i64; N], [i64; N]) = (
                lanes(|c| i64::from(a[c] as i32)),
                lanes(|c| i64::from(b[c] as i32)),
            );
            r = if unsigned {
                lanes(|c| ((u64::from(a[c]) * u64::from(b[c])) >> 32) as u32)
            } else {
                lanes(|c| ((sa[c] * sb[c]) >> 32) as u32)
            };
            for (c, acc) in acc.iter_mut().enumerate().take(N) {
                *acc = if rel & (1 << c) != 0 {
                    Acc::Int(sa[c].wrapping_mul(sb[c]))
                } else {
                    *acc
                };
            }
        }
        UopOp::Sel if u.cond.is_some() => {
            r = select(int_hits(u.cond, &a, &b, f.signed), &a, &b);
        }
        UopOp::Mov => r = a,
        UopOp::Add => r = lanes(|c| a[c].wrapping_add(b[c])),
        UopOp::Not => r = lanes(|c| !a[c]),
        UopOp::And => r = lanes(|c| a[c] & b[c]),
        UopOp::Or => r = lanes(|c| a[c] | b[c]),
        UopOp::Xor => r = lanes(|c| a[c] ^ b[c]),
        UopOp::Shl => r = lanes(|c| a[c] << (b[c] & 31)),
        UopOp::Shr => r = lanes(|c| a[c] >> (b[c] & 31)),
        UopOp::Asr => r = lanes(|c| ((a[c] as i32) >> (b[c] & 31)) as u32),
        UopOp::Sel => r = select(pick, &a, &b),
        // `of_i` makes no other operation fast.
        _ => return,
    }
    if let Some((reg, shift)) = f.flags {
        if !matches!(op, UopOp::Cmp | UopOp::Cmpn) {
            // The result as written, read back at the instruction's type, against 0.
            set = match u.dst.cond_ty {
                Type::D => compare(u.cond, &lanes(|c| r[c] as i32), &[0; N]),
                Type::UD => compare(u.cond, &r, &[0; N]),
                Type::W => compare(u.cond, &lanes(|c| r[c] as u16 as i16), &[0; N]),
                _ => compare(u.cond, &lanes(|c| r[c] as u16), &[0; N]),
            };
        }
        let field = rel << shift;
        flags[reg] = (flags[reg] & !field) | ((set & rel) << shift);
    }
    store_i(grf, f, rel & f.enabled, r);
}

/// Stores the low `f.dst_bytes` bytes of the channels in `write` to `f`'s destination.
#[inline(always)]
fn store_i<const N: usize>(grf: &mut Grf, f: &FastI, write: u32, r: [u32; N]) {
    let Some(dst) = f.dst else {
        return;
    };
    match (f.dst_bytes, f.dst_stride) {
        (2, 2) => store_words(grf, dst, write, r),
        (4, 4) => store_dwords(grf, dst, write, r),
        // Words at a stride of two (`<2>` of W or UW, as the pixel shader's coordinates
        // are computed): each word is the low half of a 4-byte window from the first
        // element on, so the windows are blended as dwords when they lie in the file.
        (2, 4) if usize::from(dst) + 4 * N <= grf.len() => {
            let old = dwords::<N>(grf, dst);
            let new: [u32; N] = lanes(|c| (old[c] & 0xffff_0000) | (r[c] & 0xffff));
            store_dwords(grf, dst, write, new);
        }
        (bytes, stride) => {
            let (bytes, stride) = (usize::from(bytes), usize::from(stride));
            for (c, x) in r.iter().enumerate() {
                let o = usize::from(dst) + c * stride;
                if write & (1 << c) != 0
                    && let Some(slot) = grf.get_mut(o..o + bytes)
                {
                    slot.copy_from_slice(&x.to_le_bytes()[..bytes]);
                }
            }
        }
    }
}

/// Stores the low 16 bits of the channels in `write` at byte `dst` on (packed words).
#[inline(always)]
fn store_words<const N: usize>(grf: &mut [u8], dst: u16, write: u32, r: [u32; N]) {
    let o = dst as usize;
    let Some(out) = grf.get_mut(o..o + 2 * N) else {
        return;
    };
    let old: [u32; N] = lanes(|c| u32::from(u16::from_le_bytes([out[2 * c], out[2 * c + 1]])));
    let r = select(write, &r, &old);
    for (w, x) in out.chunks_exact_mut(2).zip(r) {
        w.copy_from_slice(&(x as u16).to_le_bytes());
    }
}

/// The channels where integer condition `cond` holds between `a` and `b`, each of a
/// signed type or not (`signed`): their 64-bit values compared, as the general path's
/// `int_hits` does, in 32 bits where both sources have the same signedness (the order of
/// two values widened alike is theirs).
#[inline(always)]
fn int_hits<const N: usize>(
    cond: Option<CondModifier>,
    a: &[u32; N],
    b: &[u32; N],
    signed: [bool; 2],
) -> u32 {
    match signed {
        [true, true] => compare(
            cond,
            &lanes::<_, N>(|c| a[c] as i32),
            &lanes::<_, N>(|c| b[c] as i32),
        ),
        [false, false] => compare(cond, a, b),
        [sa, sb] => compare(cond, &widen(a, sa), &widen(b, sb)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_has_the_code_of_its_runner() {
        for (c, &op) in OPS.iter().enumerate() {
            assert_eq!(code(op), Some(c), "{op:?}");
        }
        // Every math function shares the last code; a runner reads it from the micro-op.
        for m in [MathFunction::Sqrt, MathFunction::Pow, MathFunction::Fdiv] {
            assert_eq!(code(UopOp::Math(m)), Some(OPS.len() - 1));
        }
    }
}
