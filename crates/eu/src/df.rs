//! Double precision on Ivy Bridge: how an instruction with a DF operand executes.
//!
//! Gen7 (IVB/BYT, not Haswell) counts a DF instruction in 32-bit units. The IVB PRM
//! ("EU Changes by Processor Generation" and "Special Requirements for Handling Double
//! Precision Data Types", quoted in Mesa's brw_fs_generator.cpp, fact: "Each DF operand uses
//! an element size of 4 rather than 8 ... ExecSize, Width, HorzStride, and VertStride ... Each
//! DF operand uses a pair of channels and all masking and swizzling should be adjusted
//! appropriately") gives the model:
//!
//! * The execution size counts 32-bit channels: `mov(8)` with a DF operand moves 4 doubles.
//!   Double channel `k` is the pair of 32-bit channels `2k` (low dword) and `2k+1` (high
//!   dword). Mesa doubles the exec size of every DF instruction on IVB (brw_vec4_generator.cpp
//!   `exec_size *= 2` for `devinfo->gen == 7 && !is_haswell && is_df`; the FS does the same).
//! * Regions of DF operands are walked in 4-byte elements, one per 32-bit channel, in align1
//!   (`<8,8,1>DF` is four packed doubles, `<0,2,1>DF` one double for every channel: Mesa's
//!   "scalar DF sources ... on IVB and BYT ... a <0,2,1> region") and in align16 (rows of four
//!   32-bit channels, the swizzle picking dwords: `.xyxy` is the double at bytes 0-7 of the
//!   row, `.zwzw` the one at bytes 8-15; Mesa brw_vec4.cpp `apply_logical_swizzle`). The
//!   double of channel `k` is assembled from the dword channel `2k` reads and the dword
//!   channel `2k+1` reads.
//! * The execution mask, predication, the align16 write mask and the flag bits a condition
//!   writes have one bit per double channel (freedesktop bug 92760 comment 67: "the ExecMask
//!   in fp64 instructions is interpreted as 1-bit per fp64 component"): double channel `k`
//!   of an instruction whose channel group starts at `g` (quarter/nibble control: 1Q = 0,
//!   2N = 4, 2Q = 8, 4N = 12, ...) uses bit `g + k`, and in align16 write-mask bit `k % 4`
//!   (`.x` .. `.w` name the four doubles of a 32-byte register, and a disabled one's flag
//!   bit is left as it was, as in single precision; the crocus dumps show
//!   single components and `.xyzw` only, Mesa splitting `.xy`/`.zw` masks in brw_vec4.cpp
//!   scalarize_df; other masks are taken the same way, one bit per double).
//! * A 32-bit source of a DF instruction (F/D/UD -> DF conversions) is read by the even
//!   channel of each pair only: "When converting F->DF on IVB/BYT, every odd source channel
//!   is ignored" (Mesa brw_eu_emit.c `brw_MOV`, which therefore uses `<1,2,0>` sources).
//! * A 32-bit destination of a DF instruction (DF -> F/D/UD conversions) receives two dwords
//!   per double channel, the converted value in the even one: "each DF implicitly writes two
//!   floats, being the first one the converted value", "every other component is filled with
//!   garbage" (Mesa brw_vec4_generator.cpp / brw_fs_generator.cpp). The model writes 0 as that
//!   garbage (a `cmp`, whose result is a whole 64-bit mask, writes the mask to both dwords).
//!
//! Operations: `mov` (with conversion to and from F, D, UD and saturation), `sel` (predicated
//! or `.l`/`.ge` min/max), `cmp`/`cmpn`, `add`, `mul` and `mad` (align16 three-source; one
//! rounding, like the model's single-precision mad). Results are IEEE-754 binary64, rounded
//! to nearest even; double denormals are kept; DF -> F rounds to nearest even and then obeys
//! the model's single-precision rules (denormal results flushed, ALT mode). Everything else
//! with a DF operand is an [`ExecError::Unsupported`]: the extended math unit (Mesa lowers
//! drcp, dsqrt, drsq and ddiv for every Gen (brw_compiler.c `fp64_options`), so Gen7 has no DF
//! math), the rounding and fraction instructions (likewise lowered by Mesa: dfloor, dceil,
//! dtrunc, dround_even, dfract), DF immediates (Gen7 immediates are 32 bits), DF in the
//! accumulator, a DF destination stride other than 1, replicated (RepCtrl) three-source
//! DF operands (Mesa: "RepCtrl=1 is not allowed for them"), a DF instruction of execution
//! size 1 (half a double), and byte or word operands next to a DF one.

use crate::exec::{ExecError, FpMode, Thread};
// Conditions on doubles follow the single-precision rule (NaN compares unordered).
use crate::ops::test_floats as test;
use crate::region::{Val, convert};
use gtsim_isa::ir::*;
use gtsim_isa::opcode::Opcode;

/// Whether an instruction executes as a Gen7 double-precision instruction: its destination
/// or a source is DF (Mesa's `is_df`: execution type or destination of 8 bytes).
pub(crate) fn is_df(ins: &Instruction) -> bool {
    ins.dst.ty == Type::DF
        || ins.srcs.iter().any(|s| match *s {
            Src::Reg { ty, .. } | Src::Imm { ty, .. } => ty == Type::DF,
        })
}

fn unsupported(t: &Thread, what: impl Into<String>) -> ExecError {
    ExecError::unsupported(t.ip, what.into())
}

/// One double channel's source value (with source modifiers).
fn read(t: &Thread, ins: &Instruction, s: &Src, k: usize) -> Result<Val, ExecError> {
    match *s {
        Src::Imm { ty: Type::DF, .. } => Err(unsupported(
            t,
            "a DF immediate (Gen7 immediates are 32 bits; Mesa builds doubles with two UD moves)",
        )),
        Src::Imm { .. } => t.read_src(s, 2 * k),
        Src::Reg {
            file,
            nr,
            subnr,
            ty: Type::DF,
            layout,
            address,
            negate,
            abs,
        } => {
            if file != RegFile::Grf {
                return Err(unsupported(t, format!("a DF source in the {file:?} file")));
            }
            if ins.align16 && matches!(layout, Layout::Region(_)) {
                return Err(unsupported(
                    t,
                    "a replicated (RepCtrl) three-source DF operand (not allowed for DF)",
                ));
            }
            // The pair of dwords channels 2k and 2k+1 address, in 4-byte elements.
            let half = Src::Reg {
                file,
                nr,
                subnr,
                ty: Type::UD,
                layout,
                address,
                negate: false,
                abs: false,
            };
            let lo = t.read_src(&half, 2 * k)?.i() as u32 as u64;
            let hi = t.read_src(&half, 2 * k + 1)?.i() as u32 as u64;
            let mut bits = hi << 32 | lo;
            // Source modifiers act on the sign bit (abs clears, negate flips).
            if abs {
                bits &= !(1 << 63);
            }
            if negate {
                bits ^= 1 << 63;
            }
            Ok(Val::F(f64::from_bits(bits)))
        }
        Src::Reg { ty, .. } if ty.size() == 4 => {
            let v = t.read_src(s, 2 * k)?;
            // fp32 denormals are flushed on input, as in single-precision arithmetic.
            Ok(match v {
                Val::F(f) if ty == Type::F && (f as f32).is_subnormal() => {
                    Val::F(if f.is_sign_negative() { -0.0 } else { 0.0 })
                }
                other => other,
            })
        }
        Src::Reg { ty, .. } => Err(unsupported(
            t,
            format!("a {} source in a DF instruction", ty.suffix()),
        )),
    }
}

/// The operations a DF instruction carries out (see the module docs).
fn computes(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Mov
            | Opcode::Sel
            | Opcode::Cmp
            | Opcode::Cmpn
            | Opcode::Add
            | Opcode::Mul
            | Opcode::Mad
    )
}

/// Executes an instruction with a DF operand (see the module docs).
pub(crate) fn alu_df(t: &mut Thread, ins: &Instruction) -> Result<(), ExecError> {
    // Double precision rounds to nearest even here; a kernel's directed mode (cr0.0
    // 5:4, `crate::rounding`) or kept single precision denormals are not modelled for it.
    if t.cr0 & (crate::rounding::CR0_ROUNDING | crate::rounding::CR0_F_DENORM) != 0 {
        return Err(unsupported(
            t,
            "a double-precision instruction under a kernel's own rounding or single precision denormal mode (cr0.0)",
        ));
    }
    match ins.opcode {
        op if computes(op) => {}
        Opcode::Math => {
            return Err(unsupported(
                t,
                "double-precision `math` (the Gen7 extended math unit has no DF functions; \
                 Mesa lowers drcp/dsqrt/drsq/ddiv)",
            ));
        }
        other => {
            return Err(unsupported(
                t,
                format!("double-precision `{}`", other.mnemonic()),
            ));
        }
    }
    if ins.exec_size < 2 {
        return Err(unsupported(
            t,
            "a DF instruction of execution size 1 (Gen7 counts DF execution in 32-bit channels)",
        ));
    }
    let n = ins.exec_size as usize / 2;
    let group = Thread::group(ins);
    if group + n > 32 {
        return Err(ExecError::Invalid {
            ip: t.ip,
            msg: format!("{n} double channels from channel {group} pass channel 31"),
        });
    }
    let dst_size = ins.dst.ty.size() as usize;
    let null_dst = ins.dst.file == RegFile::Arf && ins.dst.nr & 0xf0 == 0;
    if !null_dst {
        if ins.dst.file != RegFile::Grf {
            return Err(unsupported(
                t,
                format!(
                    "a DF instruction writing {:?} {:#x}",
                    ins.dst.file, ins.dst.nr
                ),
            ));
        }
        if dst_size != 8 && (dst_size != 4 || ins.align16) {
            return Err(unsupported(
                t,
                format!(
                    "a {} destination of a DF instruction in {}",
                    ins.dst.ty.suffix(),
                    if ins.align16 { "align16" } else { "align1" }
                ),
            ));
        }
    }
    if ins.dst.ty == Type::DF && matches!(ins.dst.layout, DstLayout::HStride(h) if h != 1) {
        // "In Align1 mode, all regioning parameters ... must use the syntax of a pair of
        // packed floats" (IVB PRM via Mesa, which asserts a DF stride of 1 on IVB).
        return Err(unsupported(
            t,
            "a DF destination with a horizontal stride other than 1",
        ));
    }
    if ins.acc_write {
        return Err(unsupported(t, "a DF result written to the accumulator"));
    }
    let wm = match ins.dst.layout {
        DstLayout::WriteMask(w) => w,
        DstLayout::HStride(_) => 0xf,
    };
    let shape = Shape {
        n,
        group,
        dst_size,
        null_dst,
        wm,
    };
    // Write back: two dwords per double channel.
    let mut dw = ins.dst;
    dw.ty = Type::UD;
    if let DstLayout::WriteMask(_) = dw.layout {
        dw.layout = DstLayout::WriteMask(0xf);
    }
    execute(
        t,
        ins,
        &shape,
        |t, i, k| read(t, ins, &ins.srcs[i], k).map(|v| v.f()),
        |t, k, lo, hi| {
            t.write_dst_as(&dw, false, 2 * k, Val::I(lo as i64))?;
            t.write_dst_as(&dw, false, 2 * k + 1, Val::I(hi as i64))
        },
    )
}

/// What [`execute`] needs of a checked DF instruction: its double channels and first
/// channel, its destination's element size, whether that is the null register, and the
/// align16 write mask (one bit per double, `0xf` in align1).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    n: usize,
    group: usize,
    dst_size: usize,
    null_dst: bool,
    wm: u8,
}

/// The operation of a checked DF instruction on its enabled double channels, with
/// `read(t, i, k)` giving source `i` of double channel `k` and `write(t, k, lo, hi)`
/// storing the two dwords of channel `k` (the one implementation of the rules, for the
/// per-channel path and the predecoded one).
fn execute(
    t: &mut Thread,
    ins: &Instruction,
    shape: &Shape,
    read: impl Fn(&Thread, usize, usize) -> Result<f64, ExecError>,
    mut write: impl FnMut(&mut Thread, usize, u32, u32) -> Result<(), ExecError>,
) -> Result<(), ExecError> {
    let Shape {
        n,
        group,
        dst_size,
        null_dst,
        wm,
    } = *shape;
    // Masks with one bit per double channel: the instruction seen with `n` channels.
    let pred = ins.predicate.map(|p| {
        let f = t.predicate_bits_sized(ins, p, n as u8);
        if p.inverse { !f } else { f }
    });
    // sel chooses by the predicate instead of masking by it.
    let masked_by_predicate = !(ins.opcode == Opcode::Sel && ins.predicate.is_some());
    let mask = t.exec_mask_sized(ins, n as u8, masked_by_predicate);

    // At most 16 double channels (32 channels of 32 bits).
    let mut results = [(0usize, Val::I(0), None::<bool>); 16];
    let mut count = 0;
    for k in 0..n {
        if mask & (1 << (group + k)) == 0 {
            continue;
        }
        let mut src = [0f64; 3];
        for (i, v) in src.iter_mut().enumerate().take(ins.srcs.len().min(3)) {
            *v = read(t, i, k)?;
        }
        let [a, b, c] = src;
        let mut flag = None;
        let r = match ins.opcode {
            Opcode::Mov => a,
            Opcode::Sel => {
                let take_a = if ins.cond_modifier.is_some() {
                    // min/max: a NaN operand yields the other (as in single precision).
                    if a.is_nan() {
                        false
                    } else if b.is_nan() {
                        true
                    } else {
                        test(ins.cond_modifier, a, b)
                    }
                } else {
                    pred.is_none_or(|p| p & (1 << (group + k)) != 0)
                };
                if take_a { a } else { b }
            }
            Opcode::Cmp | Opcode::Cmpn => {
                let mut r = test(ins.cond_modifier, a, b);
                if ins.opcode == Opcode::Cmpn && b.is_nan() && !a.is_nan() {
                    r = true;
                }
                flag = Some(r);
                if r { f64::from_bits(u64::MAX) } else { 0.0 }
            }
            Opcode::Add => a + b,
            Opcode::Mul => a * b,
            // mad dst = src0 + src1 * src2, one rounding.
            Opcode::Mad => b.mul_add(c, a),
            _ => unreachable!("checked above"),
        };
        let cmp = matches!(ins.opcode, Opcode::Cmp | Opcode::Cmpn);
        if flag.is_none() && ins.cond_modifier.is_some() && ins.opcode != Opcode::Sel {
            // The condition tests the result as written against zero.
            let written = if dst_size == 8 || null_dst {
                if ins.saturate && !r.is_nan() {
                    r.clamp(0.0, 1.0)
                } else if ins.saturate {
                    0.0
                } else {
                    r
                }
            } else {
                reread(
                    &convert(single(t, ins, r), ins.dst.ty, ins.saturate),
                    ins.dst.ty,
                )
            };
            flag = Some(test(ins.cond_modifier, written, 0.0));
        }
        let v = if cmp {
            Val::F(r)
        } else if dst_size == 4 {
            single(t, ins, r)
        } else {
            Val::F(r)
        };
        if let Some(slot) = results.get_mut(count) {
            *slot = (k, v, flag);
            count += 1;
        }
    }

    // Write back: two dwords per double channel, then the flag bits.
    let cmp = matches!(ins.opcode, Opcode::Cmp | Opcode::Cmpn);
    for &(k, v, flag) in &results[..count] {
        if !null_dst && wm & (1 << (k % 4)) != 0 {
            let (lo, hi) = if cmp {
                let m = if v.f().to_bits() == 0 { 0 } else { u32::MAX };
                (m, m)
            } else if dst_size == 8 {
                let f = match v {
                    Val::F(f) => f,
                    Val::I(i) => i as f64,
                };
                let f = if ins.saturate {
                    if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) }
                } else {
                    f
                };
                let bits = f.to_bits();
                (bits as u32, (bits >> 32) as u32)
            } else {
                let b = convert(v, ins.dst.ty, ins.saturate);
                (u32::from_le_bytes([b[0], b[1], b[2], b[3]]), 0)
            };
            write(t, k, lo, hi)?;
        }
        // In align16 the write mask gates the flag bit too: one bit per double, as for
        // the destination.
        if let Some(f) = flag
            && crate::ops::flag_write_enabled(ins, k)
        {
            let at = group + k + 16 * ins.flag.1 as usize;
            if at > 31 {
                return Err(ExecError::Invalid {
                    ip: t.ip,
                    msg: format!(
                        "double channel {} has no bit in f{}.{}",
                        group + k,
                        ins.flag.0,
                        ins.flag.1
                    ),
                });
            }
            let bit = 1u32 << at;
            let reg = &mut t.flags[ins.flag.0 as usize & 1];
            if f {
                *reg |= bit;
            } else {
                *reg &= !bit;
            }
        }
    }
    Ok(())
}

/// A double converted for a 32-bit destination: to F it rounds to nearest even and then
/// follows the model's single-precision result rules (denormals flushed, ALT mode); integer
/// destinations convert in [`convert`] (toward zero, saturating, NaN to 0).
fn single(t: &Thread, ins: &Instruction, r: f64) -> Val {
    if ins.dst.ty != Type::F {
        return Val::F(r);
    }
    let f = r as f32;
    let f = if f.is_subnormal() {
        if f.is_sign_negative() { -0.0 } else { 0.0 }
    } else {
        f
    };
    match t.fp_mode {
        FpMode::Alt if f.is_nan() => Val::F(0.0),
        FpMode::Alt if f.is_infinite() => Val::F(if f > 0.0 {
            f32::MAX as f64
        } else {
            f32::MIN as f64
        }),
        _ => Val::F(f as f64),
    }
}

fn reread(b: &[u8], ty: Type) -> f64 {
    let w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    match ty {
        Type::F => f32::from_bits(w) as f64,
        Type::D => w as i32 as f64,
        _ => w as f64,
    }
}

/// A DF instruction predecoded ([`predecode`]): its shape and, per double channel, where
/// each double source's two dwords and the destination's two dwords are, so that running
/// it reads and writes the register file directly. The rules are [`execute`]'s, shared
/// with the per-channel path.
#[derive(Debug, Clone)]
pub(crate) struct DfOp {
    shape: Shape,
    srcs: Vec<DfSrc>,
    /// Byte offsets of the destination's dword channels (two per double); `None` for
    /// the null register.
    dst: Option<[u16; 32]>,
}

/// A source of a predecoded DF instruction.
#[derive(Debug, Clone)]
enum DfSrc {
    /// A DF register region: double channel `k` is the dwords at `lo[k]` and `hi[k]`.
    Double {
        lo: [u16; 16],
        hi: [u16; 16],
        negate: bool,
        abs: bool,
    },
    /// A 32-bit register or immediate, read as the per-channel path reads it.
    Other,
}

/// Bytes in the register file.
const GRF_BYTES: usize = 128 * 32;

/// The byte offset of dword channel `c` of a direct GRF region (`Thread::src_offset` for
/// a 4-byte type), if it lies in the register file.
fn dword_offset(nr: u8, subnr: u8, layout: Layout, c: usize) -> Option<u16> {
    let base = nr as usize * 32 + subnr as usize;
    let off = match layout {
        Layout::Region(r) => {
            let w = r.width.max(1) as usize;
            base + ((c / w) * r.vstride? as usize + (c % w) * r.hstride as usize) * 4
        }
        Layout::Swizzle { vstride, swizzle } => {
            base + ((c / 4) * vstride as usize + swizzle[c % 4] as usize) * 4
        }
    };
    (off + 4 <= GRF_BYTES).then_some(off as u16)
}

/// The predecoded form of a DF instruction whose operands are all direct (GRF regions,
/// 32-bit immediates) and that [`alu_df`] would carry out; `None` for anything else,
/// which stays on the per-channel path (and its errors).
pub(crate) fn predecode(ins: &Instruction) -> Option<DfOp> {
    if !is_df(ins) || !computes(ins.opcode) || ins.exec_size < 2 || ins.acc_write {
        return None;
    }
    let n = ins.exec_size as usize / 2;
    let group = Thread::group(ins);
    if group + n > 32 {
        return None;
    }
    let dst_size = ins.dst.ty.size() as usize;
    let null_dst = ins.dst.file == RegFile::Arf && ins.dst.nr & 0xf0 == 0;
    if dst_size != 8 && (dst_size != 4 || ins.align16) {
        return None;
    }
    if ins.dst.ty == Type::DF && matches!(ins.dst.layout, DstLayout::HStride(h) if h != 1) {
        return None;
    }
    let dst = if null_dst {
        None
    } else {
        if ins.dst.file != RegFile::Grf || ins.dst.address != Address::Direct {
            return None;
        }
        let base = ins.dst.nr as usize * 32 + ins.dst.subnr as usize;
        let mut offs = [0u16; 32];
        for (c, o) in offs.iter_mut().enumerate().take(2 * n) {
            // As `write_dst_as` places dword channel c (align16 masks apply per double).
            let off = match ins.dst.layout {
                DstLayout::HStride(h) => base + c * h.max(1) as usize * 4,
                DstLayout::WriteMask(_) => base + c * 4,
            };
            if off + 4 > GRF_BYTES {
                return None;
            }
            *o = off as u16;
        }
        Some(offs)
    };
    let mut srcs = vec![];
    for s in ins.srcs.iter().take(3) {
        srcs.push(match *s {
            Src::Imm { ty: Type::DF, .. } => return None,
            Src::Imm { .. } => DfSrc::Other,
            Src::Reg {
                file: RegFile::Grf,
                nr,
                subnr,
                ty: Type::DF,
                layout,
                address: Address::Direct,
                negate,
                abs,
            } => {
                if ins.align16 && matches!(layout, Layout::Region(_)) {
                    return None;
                }
                let (mut lo, mut hi) = ([0u16; 16], [0u16; 16]);
                for k in 0..n {
                    lo[k] = dword_offset(nr, subnr, layout, 2 * k)?;
                    hi[k] = dword_offset(nr, subnr, layout, 2 * k + 1)?;
                }
                DfSrc::Double {
                    lo,
                    hi,
                    negate,
                    abs,
                }
            }
            Src::Reg { ty, .. } if ty.size() == 4 && ty != Type::DF => DfSrc::Other,
            Src::Reg { .. } => return None,
        });
    }
    let wm = match ins.dst.layout {
        DstLayout::WriteMask(w) => w,
        DstLayout::HStride(_) => 0xf,
    };
    Some(DfOp {
        shape: Shape {
            n,
            group,
            dst_size,
            null_dst,
            wm,
        },
        srcs,
        dst,
    })
}

/// Runs a predecoded DF instruction: [`alu_df`]'s result, bit for bit.
pub(crate) fn run(t: &mut Thread, ins: &Instruction, op: &DfOp) -> Result<(), ExecError> {
    let dword = |t: &Thread, o: u16| -> u64 {
        let o = o as usize;
        t.grf
            .get(o..o + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64)
    };
    execute(
        t,
        ins,
        &op.shape,
        |t, i, k| match &op.srcs[i] {
            DfSrc::Double {
                lo,
                hi,
                negate,
                abs,
            } => {
                let mut bits = dword(t, hi[k]) << 32 | dword(t, lo[k]);
                // Source modifiers act on the sign bit (abs clears, negate flips).
                if *abs {
                    bits &= !(1 << 63);
                }
                if *negate {
                    bits ^= 1 << 63;
                }
                Ok(f64::from_bits(bits))
            }
            DfSrc::Other => read(t, ins, &ins.srcs[i], k).map(|v| v.f()),
        },
        |t, k, lo, hi| {
            if let Some(d) = &op.dst {
                for (o, v) in [(d[2 * k], lo), (d[2 * k + 1], hi)] {
                    let o = o as usize;
                    if let Some(slot) = t.grf.get_mut(o..o + 4) {
                        slot.copy_from_slice(&v.to_le_bytes());
                    }
                }
            }
            Ok(())
        },
    )
}
