//! Running a micro-op: gather every source into a lane array, compute all channels one
//! operation at a time, scatter the enabled channels (see the module documentation of
//! `uop`; every rule cited there is the per-channel interpreter's, in `crate::ops`).

use super::{DstOp, Operand, Shape, Uop, UopOp};
use crate::exec::{FpMode, Thread};
use crate::ops::{as_signed, as_unsigned, fp_result, test, test_floats};
use crate::region::{Acc, Val, convert_bits, quiet_nan, read_elem};
use gtsim_isa::ir::*;

/// One value per channel, for up to `L` channels (8, 16 or 32: the execution size
/// rounded up, so that narrow instructions clear and copy narrow arrays).
type Lanes<T, const L: usize> = [T; L];

/// The element at byte `o` of the register file, `N` bytes little-endian (offsets were
/// checked against the register file when the micro-op was made).
fn load<const N: usize>(grf: &[u8], o: u16) -> [u8; N] {
    let o = o as usize;
    grf.get(o..o + N)
        .and_then(|b| b.try_into().ok())
        .unwrap_or([0; N])
}

/// The channels (bit per channel) where integer condition `cond` holds between `a` and
/// `b` (`ops::test` on two integers), with the condition chosen once for all channels.
pub(super) fn int_hits(cond: Option<CondModifier>, a: &[i64], b: &[i64]) -> u32 {
    match cond {
        Some(
            k @ (CondModifier::Z
            | CondModifier::Nz
            | CondModifier::G
            | CondModifier::Ge
            | CondModifier::L
            | CondModifier::Le),
        ) => a.iter().zip(b).enumerate().fold(0, |m, (c, (&x, &y))| {
            m | (u32::from(crate::ops::compare(Some(k), x, y)) << c)
        }),
        // Overflow and unordered never hold between integers (`ops::compare`).
        _ => 0,
    }
}

/// Stores the `N` bytes of an element at byte `o` of the register file (offsets were
/// checked against it when the micro-op was made; one out of range is not written).
fn store<const N: usize>(grf: &mut [u8], o: usize, bytes: [u8; N]) {
    if let Some(slot) = grf.get_mut(o..o + N) {
        slot.copy_from_slice(&bytes);
    }
}

/// Float sources: F registers (signalling NaNs quieted as `region::read_elem` reads them,
/// then |x| and -x) or float immediates.
fn gather_f<const L: usize>(grf: &[u8], s: &Operand, n: usize, out: &mut Lanes<f32, L>) {
    match s {
        Operand::Reg {
            offs,
            negate,
            abs,
            shape,
            ..
        } => {
            let read = |b: [u8; 4]| f32::from_bits(quiet_nan(u32::from_le_bytes(b)));
            match shape {
                Shape::Packed => {
                    let o = offs[0] as usize;
                    match grf.get(o..o + 4 * n) {
                        Some(bytes) => {
                            // The dwords first, then one loop quieting them (vector code).
                            let mut d = [0u32; L];
                            for (x, b) in d.iter_mut().zip(bytes.chunks_exact(4)) {
                                *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                            }
                            for (x, b) in out.iter_mut().zip(d) {
                                *x = f32::from_bits(quiet_nan(b));
                            }
                        }
                        None => out[..n].fill(0.0),
                    }
                }
                Shape::Scalar => out[..n].fill(read(load::<4>(grf, offs[0]))),
                Shape::Gather => {
                    for (x, &o) in out.iter_mut().zip(offs).take(n) {
                        *x = read(load::<4>(grf, o));
                    }
                }
            }
            if *abs {
                out.iter_mut().take(n).for_each(|x| *x = x.abs());
            }
            if *negate {
                out.iter_mut().take(n).for_each(|x| *x = -*x);
            }
        }
        Operand::ImmF { lanes, .. } => out[..n].copy_from_slice(&lanes[..n]),
        // Integer operands are not made for float micro-ops (`resolve_src`).
        Operand::ImmI { .. } => out[..n].fill(0.0),
    }
}

/// Integer sources widened to i64 (sign or zero extended by type), with |x| and -x
/// wrapping as `region::modify` applies them.
fn gather_i<const L: usize>(grf: &[u8], s: &Operand, n: usize, out: &mut Lanes<i64, L>) {
    match s {
        Operand::Reg {
            ty,
            offs,
            negate,
            abs,
            shape,
        } => {
            let offs = &offs[..n];
            let out = &mut out[..n];
            // Consecutive dwords are read as one slice.
            let packed = match shape {
                Shape::Packed if matches!(ty, Type::D | Type::UD) => {
                    let o = offs[0] as usize;
                    grf.get(o..o + 4 * n)
                }
                _ => None,
            };
            match (ty, packed) {
                (Type::D, Some(bytes)) => {
                    for (x, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                        *x = i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64;
                    }
                }
                (Type::UD, Some(bytes)) => {
                    for (x, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                        *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64;
                    }
                }
                _ => gather_elements(grf, *ty, offs, out),
            }
            if *abs {
                out.iter_mut().for_each(|x| *x = x.wrapping_abs());
            }
            if *negate {
                out.iter_mut().for_each(|x| *x = x.wrapping_neg());
            }
        }
        Operand::ImmI { lanes, .. } => out[..n].copy_from_slice(&lanes[..n]),
        Operand::ImmF { .. } => out[..n].fill(0),
    }
}

/// Integer elements of type `ty` at `offs`, widened to i64 (`gather_i`).
fn gather_elements(grf: &[u8], ty: Type, offs: &[u16], out: &mut [i64]) {
    let n = out.len();
    match ty {
        Type::D => (0..n).for_each(|c| {
            out[c] = i32::from_le_bytes(load::<4>(grf, offs[c])) as i64;
        }),
        Type::UD => (0..n).for_each(|c| {
            out[c] = u32::from_le_bytes(load::<4>(grf, offs[c])) as i64;
        }),
        Type::W => (0..n).for_each(|c| {
            out[c] = i16::from_le_bytes(load::<2>(grf, offs[c])) as i64;
        }),
        Type::UW => (0..n).for_each(|c| {
            out[c] = u16::from_le_bytes(load::<2>(grf, offs[c])) as i64;
        }),
        Type::B => (0..n).for_each(|c| out[c] = load::<1>(grf, offs[c])[0] as i8 as i64),
        _ => (0..n).for_each(|c| out[c] = load::<1>(grf, offs[c])[0] as i64),
    }
}

/// A single-precision denormal becomes zero of its sign (`ops::flush_denormal`).
fn flush(x: f32) -> f32 {
    let b = x.to_bits();
    f32::from_bits(if b & 0x7f80_0000 == 0 {
        b & 0x8000_0000
    } else {
        b
    })
}

/// A channel's result before conversion.
enum Results<const L: usize> {
    F(Lanes<f32, L>),
    I(Lanes<i64, L>),
}

impl Thread {
    /// Executes micro-op `u` of instruction `ins` (see the module documentation);
    /// returns the channels of its span that were live (dispatched and not waiting in
    /// control flow) when it ran.
    #[inline(always)]
    pub(crate) fn run_uop(&mut self, ins: &Instruction, u: &Uop) -> u32 {
        // The channels of the span dispatched and not waiting in control flow (what the
        // run loop counts), and the execution mask (`Thread::exec_mask_with`) from them
        // and the predecoded normal predicate, or worked out from the instruction for the
        // other controls.
        let live = u.span & self.dispatch_mask & self.running();
        let (mask, pick) = match u.pred {
            Some(pred) => {
                let m = if u.mask_disable { u.span } else { live };
                let f = pred.map(|(reg, shift, inverse)| {
                    let f = self.flags[reg] >> shift;
                    if inverse { !f } else { f }
                });
                match f {
                    // `sel` with a predicate takes src0 where the predicate holds.
                    Some(f) if u.pred_select => (m, f >> u.group),
                    Some(f) => (m & f, u32::MAX),
                    None => (m, u32::MAX),
                }
            }
            None => {
                let mask = self.exec_mask_with(ins, !u.pred_select);
                let pick = match ins.predicate {
                    Some(p) if u.pred_select => {
                        let f = self.predicate_bits(ins, p);
                        (if p.inverse { !f } else { f }) >> u.group
                    }
                    _ => u32::MAX,
                };
                (mask, pick)
            }
        };
        let rel = (mask >> u.group) & u.lanes;
        if rel == 0 {
            return live;
        }
        // (Integer arithmetic is the same in either floating-point mode, which changes
        // only float results (`ops::fp_result`); `mach`, made only with a fast form,
        // relies on it.)
        if let Some((f, run)) = &u.fast
            && (self.fp_mode == FpMode::Ieee || !u.float)
        {
            // SAFETY: `fast::runner` chose `run` for this host's features.
            unsafe { run(self, u, f, rel, pick) };
            return live;
        }
        match u.n {
            0..=8 => self.compute_and_scatter::<8>(u, rel, pick),
            9..=16 => self.compute_and_scatter::<16>(u, rel, pick),
            _ => self.compute_and_scatter::<32>(u, rel, pick),
        }
        live
    }

    /// The general path of a micro-op of at most `L` channels.
    fn compute_and_scatter<const L: usize>(&mut self, u: &Uop, rel: u32, pick: u32) {
        let mut cmp = 0u32;
        let results = if u.float {
            self.compute_f::<L>(u, pick, &mut cmp)
        } else {
            self.compute_i::<L>(u, pick, &mut cmp)
        };
        self.scatter(u, rel, &results, cmp);
    }

    fn compute_f<const L: usize>(&self, u: &Uop, pick: u32, cmp: &mut u32) -> Results<L> {
        let n = u.n;
        let mut v = [[0f32; L]; 3];
        for (s, lanes) in u.srcs.iter().zip(v.iter_mut()) {
            gather_f(&self.grf, s, n, lanes);
            // Denormal inputs of float arithmetic are flushed (not by a plain mov).
            if !u.raw_mov && s.ty() == Type::F {
                lanes[..n].iter_mut().for_each(|x| *x = flush(*x));
            }
        }
        let [a, b, x] = &v;
        let mut r = [0f32; L];
        match u.op {
            UopOp::Mov => r[..n].copy_from_slice(&a[..n]),
            UopOp::Add => (0..n).for_each(|c| r[c] = a[c] + b[c]),
            UopOp::Mul => (0..n).for_each(|c| r[c] = a[c] * b[c]),
            UopOp::Mad => r = super::fast::mad(a, b, x),
            UopOp::Lrp => (0..n).for_each(|c| r[c] = a[c] * b[c] + (1.0 - a[c]) * x[c]),
            UopOp::Rndd => (0..n).for_each(|c| r[c] = a[c].floor()),
            UopOp::Rndu => (0..n).for_each(|c| r[c] = a[c].ceil()),
            UopOp::Rnde => (0..n).for_each(|c| r[c] = a[c].round_ties_even()),
            UopOp::Rndz => (0..n).for_each(|c| r[c] = a[c].trunc()),
            UopOp::Frc => (0..n).for_each(|c| r[c] = a[c] - a[c].floor()),
            UopOp::Math(f) => {
                for c in 0..n {
                    r[c] = crate::ops::math_f(f, a[c], b[c]).unwrap_or(0.0);
                }
            }
            UopOp::Pln => {
                if let Some(p) = &u.pln {
                    let read =
                        |o: u16| f32::from_bits(quiet_nan(u32::from_le_bytes(load(&self.grf, o))));
                    let m = |v: f32| {
                        let v = if p.abs { v.abs() } else { v };
                        if p.negate { -v } else { v }
                    };
                    let [cp, cq, cr] = p.coef.map(|o| m(read(o)));
                    for (rc, &x) in r.iter_mut().zip(&p.x).take(n) {
                        *rc = cp * read(x) + cq * read(x + 32) + cr;
                    }
                }
            }
            UopOp::Sel => {
                for c in 0..n {
                    let take_a = if u.cond.is_some() {
                        // min/max: a NaN operand yields the other (IEEE minNum/maxNum).
                        if a[c].is_nan() {
                            false
                        } else if b[c].is_nan() {
                            true
                        } else {
                            test_floats(u.cond, a[c] as f64, b[c] as f64)
                        }
                    } else {
                        pick & (1 << c) != 0
                    };
                    r[c] = if take_a { a[c] } else { b[c] };
                }
            }
            UopOp::Cmp | UopOp::Cmpn => {
                let mut ri = [0i64; L];
                for c in 0..n {
                    let mut hit = test_floats(u.cond, a[c] as f64, b[c] as f64);
                    // cmpn: a NaN in src1 makes the comparison true.
                    if u.op == UopOp::Cmpn && b[c].is_nan() && !a[c].is_nan() {
                        hit = true;
                    }
                    *cmp |= (hit as u32) << c;
                    ri[c] = -(hit as i64);
                }
                return Results::I(ri);
            }
            // Integer-only operations are not made float micro-ops.
            _ => {}
        }
        if !matches!(u.op, UopOp::Mov | UopOp::Sel) {
            let nan = f32::from_bits(crate::ops::DEFAULT_NAN);
            r[..n]
                .iter_mut()
                .for_each(|x| *x = if x.is_nan() { nan } else { *x });
        }
        if u.dst.cond_ty == Type::F && !u.raw_mov {
            r[..n].iter_mut().for_each(|x| *x = flush(*x));
            if self.fp_mode == FpMode::Alt {
                for x in r[..n].iter_mut() {
                    if let Val::F(f) = fp_result(FpMode::Alt, Val::F(*x as f64)) {
                        *x = f as f32;
                    }
                }
            }
        }
        Results::F(r)
    }

    fn compute_i<const L: usize>(&self, u: &Uop, pick: u32, cmp: &mut u32) -> Results<L> {
        let n = u.n;
        let mut v = [[0i64; L]; 2];
        for (s, lanes) in u.srcs.iter().zip(v.iter_mut()) {
            gather_i(&self.grf, s, n, lanes);
        }
        let [a, b] = &v;
        let ta = u.srcs[0].ty();
        let mut r = [0i64; L];
        match u.op {
            UopOp::Mov => r[..n].copy_from_slice(&a[..n]),
            UopOp::Add => (0..n).for_each(|c| r[c] = a[c].wrapping_add(b[c])),
            UopOp::Mul => (0..n).for_each(|c| r[c] = a[c].wrapping_mul(b[c])),
            UopOp::Not => (0..n).for_each(|c| r[c] = !a[c]),
            UopOp::And => (0..n).for_each(|c| r[c] = a[c] & b[c]),
            UopOp::Or => (0..n).for_each(|c| r[c] = a[c] | b[c]),
            UopOp::Xor => (0..n).for_each(|c| r[c] = a[c] ^ b[c]),
            UopOp::Shl => (0..n).for_each(|c| r[c] = (as_unsigned(a[c], ta) << (b[c] & 31)) as i64),
            UopOp::Shr => (0..n).for_each(|c| r[c] = (as_unsigned(a[c], ta) >> (b[c] & 31)) as i64),
            UopOp::Asr => (0..n).for_each(|c| r[c] = as_signed(a[c], ta) >> (b[c] & 31)),
            UopOp::Sel => {
                let take_a = if u.cond.is_some() {
                    int_hits(u.cond, &a[..n], &b[..n])
                } else {
                    pick
                };
                (0..n).for_each(|c| r[c] = if take_a & (1 << c) != 0 { a[c] } else { b[c] });
            }
            UopOp::Cmp | UopOp::Cmpn => {
                let hits = int_hits(u.cond, &a[..n], &b[..n]);
                *cmp |= hits;
                (0..n).for_each(|c| r[c] = -i64::from(hits & (1 << c) != 0));
            }
            // Float-only operations are not made integer micro-ops, and `mach` runs only
            // on the fast path (`run_uop`, in either floating-point mode).
            _ => {}
        }
        Results::I(r)
    }

    /// Writes the enabled channels: destination, flags, accumulator.
    fn scatter<const L: usize>(&mut self, u: &Uop, rel: u32, results: &Results<L>, cmp: u32) {
        let d: &DstOp = &u.dst;
        let size = d.ty.size() as usize;
        let n = u.n;
        // The stored bits of every channel, by the conversion rules (straight loops for
        // the common conversions, `convert_bits` for the rest).
        let mut bits = [0u64; L];
        match (results, d.ty, u.saturate) {
            (Results::F(r), Type::F, false) => {
                (0..n).for_each(|c| bits[c] = r[c].to_bits() as u64);
            }
            (Results::I(r), t, false) if !matches!(t, Type::F) => {
                // Integers narrow by truncation: the low bytes are stored.
                (0..n).for_each(|c| bits[c] = r[c] as u64);
            }
            (Results::F(r), t, sat) => {
                (0..n).for_each(|c| bits[c] = convert_bits(Val::F(r[c] as f64), t, sat));
            }
            (Results::I(r), t, sat) => {
                (0..n).for_each(|c| bits[c] = convert_bits(Val::I(r[c]), t, sat));
            }
        }
        if let Some(offs) = &d.offs {
            let write = rel & d.enabled;
            let full = write == if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
            let o = offs[0] as usize;
            match self.grf.get_mut(o..o + size * n) {
                Some(out) if d.packed && full && size == 4 => {
                    for (w, b) in out.chunks_exact_mut(4).zip(&bits) {
                        w.copy_from_slice(&(*b as u32).to_le_bytes());
                    }
                }
                _ => {
                    // The enabled channels one by one, each a store of its element's size
                    // (not a copy of a length known only at run time).
                    let mut w = write;
                    while w != 0 {
                        let c = w.trailing_zeros() as usize;
                        w &= w - 1;
                        let (o, b) = (offs[c] as usize, bits[c]);
                        match size {
                            1 => store(&mut self.grf, o, [b as u8]),
                            2 => store(&mut self.grf, o, (b as u16).to_le_bytes()),
                            4 => store(&mut self.grf, o, (b as u32).to_le_bytes()),
                            _ => store(&mut self.grf, o, b.to_le_bytes()),
                        }
                    }
                }
            }
        }
        let is_cmp = matches!(u.op, UopOp::Cmp | UopOp::Cmpn);
        let cond_flags = u.cond.is_some() && !is_cmp && u.op != UopOp::Sel;
        if is_cmp || cond_flags {
            let mut flags = cmp;
            if cond_flags && d.cond_ty != Type::F && d.cond_ty.size() <= 4 {
                // The condition tests the result as written against zero: an integer of
                // up to 32 bits, read back at its type.
                let mut written = [0i64; L];
                for (w, &b) in written.iter_mut().zip(&bits).take(n) {
                    *w = match d.cond_ty {
                        Type::D => b as u32 as i32 as i64,
                        Type::UD => b as u32 as i64,
                        Type::W => b as u16 as i16 as i64,
                        Type::UW => b as u16 as i64,
                        Type::B => b as u8 as i8 as i64,
                        _ => b as u8 as i64,
                    };
                }
                flags |= int_hits(u.cond, &written[..n], &[0; L][..n]);
            } else if cond_flags {
                // The condition tests the result as written against zero.
                for (c, b) in bits.iter().enumerate().take(n) {
                    let rv = read_elem(&b.to_le_bytes(), d.cond_ty);
                    let zero = if matches!(rv, Val::F(_)) {
                        Val::F(0.0)
                    } else {
                        Val::I(0)
                    };
                    flags |= (test(u.cond, rv, zero) as u32) << c;
                }
            }
            let shift = u.group as u32 + u.flag_shift;
            let field = rel << shift;
            let reg = &mut self.flags[u.flag_reg];
            *reg = (*reg & !field) | ((flags & rel) << shift);
        }
        let int_mul = u.op == UopOp::Mul && !u.float;
        if int_mul || u.acc_write {
            for c in 0..n {
                if rel & (1 << c) == 0 {
                    continue;
                }
                self.acc[0][c.min(15)] = match results {
                    Results::I(r) if int_mul => Acc::Int(r[c]),
                    Results::F(r) => Acc::from_val(Val::F(r[c] as f64), d.cond_ty),
                    Results::I(r) => Acc::from_val(Val::I(r[c]), d.cond_ty),
                };
            }
        }
    }
}
