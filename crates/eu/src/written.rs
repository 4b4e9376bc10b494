//! Which general registers a program can write, found once from its decoded
//! instructions, and the sets of registers a thread keeps with it.
//!
//! A GPU thread starts from its dispatch payload; the rest of its register file is
//! whatever it held (on the model: zero, for determinism). Resetting or restoring all
//! 4 KiB for every dispatch costs more than a short kernel's execution, so a thread
//! tracks, as over-approximations, which registers may be non-zero and which may have
//! changed since it was last made equal to another thread ([`crate::exec::Thread`]);
//! running a program adds what [`written_registers`] says the program can write.
//!
//! What an instruction writes (the register file is 128 registers of 32 bytes; the
//! region rules are the interpreter's, `region.rs`, after IVB PRM Vol4 Part3
//! "Destination Region"):
//! * a direct GRF destination: the bytes from `nr * 32 + subnr` over `exec_size`
//!   elements at the horizontal stride (align1) or packed (align16), each as large as
//!   the widest of its type and, for double-precision instructions, 8 bytes (whose
//!   execution size counts dwords on Ivy Bridge, so this over-approximates);
//!   `math` INT DIV with quotient and remainder writes as much again from the next
//!   register (or the one after, for more than 8 channels);
//! * a `send`'s response: Response Length registers from the destination register
//!   (seed 000 §1.5, the descriptor's bits 24:20);
//! * an indirect destination, or a send whose descriptor is in a register: any register.
//!
//! Jumps into the middle of the decoded instructions are decoded on the fly by the run
//! loop, which then counts the whole register file as written.

use gtsim_isa::ir::{Address, DstLayout, Instruction, MathFunction, RegFile, Src, Type};
use gtsim_isa::opcode::Opcode;

/// A set of general registers g0..g127, one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct RegisterSet(u128);

impl RegisterSet {
    /// No register.
    pub const EMPTY: RegisterSet = RegisterSet(0);
    /// Every register.
    pub const ALL: RegisterSet = RegisterSet(u128::MAX);

    /// Registers `first..first + count` (those past g127 left out).
    pub fn range(first: usize, count: usize) -> RegisterSet {
        let end = (first + count).min(128);
        if first >= end {
            return RegisterSet::EMPTY;
        }
        let n = end - first;
        let ones = if n == 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        };
        RegisterSet(ones << first)
    }

    /// Whether register `reg` is in the set.
    pub fn contains(self, reg: usize) -> bool {
        reg < 128 && self.0 >> reg & 1 == 1
    }

    /// The number of registers in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The registers of the set, in order.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let r = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                r
            })
        })
    }

    /// The set as runs of consecutive registers `(first, count)`, in order (copies and
    /// fills go a run at a time).
    pub fn runs(self) -> impl Iterator<Item = (usize, usize)> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let first = bits.trailing_zeros() as usize;
                let count = (bits >> first).trailing_ones() as usize;
                // Adding the run's lowest bit carries through the run and clears it.
                bits &= bits.wrapping_add(bits & bits.wrapping_neg());
                (first, count)
            })
        })
    }
}

impl std::ops::BitOr for RegisterSet {
    type Output = RegisterSet;
    fn bitor(self, o: RegisterSet) -> RegisterSet {
        RegisterSet(self.0 | o.0)
    }
}

impl std::ops::BitAnd for RegisterSet {
    type Output = RegisterSet;
    fn bitand(self, o: RegisterSet) -> RegisterSet {
        RegisterSet(self.0 & o.0)
    }
}

impl std::ops::Not for RegisterSet {
    type Output = RegisterSet;
    fn not(self) -> RegisterSet {
        RegisterSet(!self.0)
    }
}

impl std::ops::BitOrAssign for RegisterSet {
    fn bitor_assign(&mut self, o: RegisterSet) {
        self.0 |= o.0;
    }
}

/// Whether instruction `ins` may write the accumulator: an explicit accumulator write,
/// an accumulator destination, or an operation that writes it by itself (integer `mul`,
/// `mach`, `addc`, `subb`: `crate::ops`; `mac` and float `mul` are included, which is
/// only conservative).
pub(crate) fn may_write_acc(ins: &Instruction) -> bool {
    let acc_dst = ins.dst.file == RegFile::Arf
        && matches!(
            gtsim_isa::ir::ArfRegister::of(ins.dst.nr),
            Some((gtsim_isa::ir::ArfRegister::Accumulator, _))
        );
    ins.acc_write
        || acc_dst
        || matches!(
            ins.opcode,
            Opcode::Mul | Opcode::Mach | Opcode::Addc | Opcode::Subb | Opcode::Mac
        )
}

/// Whether `ins` is a send of either form (`send`/`sendc`, or Gen9+'s split
/// `sends`/`sendsc`).
fn is_send(ins: &Instruction) -> bool {
    matches!(
        ins.opcode,
        Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc
    )
}

/// The general registers instruction `ins` can write (see the module documentation).
pub(crate) fn by_instruction(ins: &Instruction) -> RegisterSet {
    let mut set = RegisterSet::EMPTY;
    if is_send(ins) {
        let Some(desc) = ins.desc else {
            return RegisterSet::ALL;
        };
        if ins.dst.file == RegFile::Grf {
            if ins.dst.address != Address::Direct {
                return RegisterSet::ALL;
            }
            let rlen = ((desc >> 20) & 0x1f) as usize;
            set |= RegisterSet::range(ins.dst.nr as usize, rlen);
        }
        return set;
    }
    let d = &ins.dst;
    if d.file != RegFile::Grf {
        return set;
    }
    if d.address != Address::Direct {
        return RegisterSet::ALL;
    }
    let double = d.ty == Type::DF
        || ins.srcs.iter().any(|s| {
            matches!(
                s,
                Src::Reg { ty: Type::DF, .. } | Src::Imm { ty: Type::DF, .. }
            )
        });
    let size = if double { 8 } else { d.ty.size() as usize };
    let stride = match d.layout {
        DstLayout::HStride(h) => h.max(1) as usize,
        DstLayout::WriteMask(_) => 1,
    };
    let first = d.nr as usize * 32 + d.subnr as usize;
    let n = ins.exec_size.max(1) as usize;
    let end = first + (n - 1) * stride * size + size;
    let reg = first / 32;
    let count = end.div_ceil(32) - reg;
    set |= RegisterSet::range(reg, count);
    // `math` INT DIV (quotient and remainder) also writes the remainder to the next
    // register, or the one after for more than 8 channels (`ops::alu`).
    if ins.opcode == Opcode::Math && ins.math == Some(MathFunction::IntDivMod) {
        set |= RegisterSet::range(reg + if n > 8 { 2 } else { 1 }, count);
    }
    set
}

/// The general registers instruction `ins` can read: its direct GRF sources, each the
/// bytes of its region over the execution size (as [`by_instruction`] sizes a
/// destination, with regions after IVB PRM Vol4 Part3 "Region Parameters") and at least
/// four registers from its first (a compressed instruction's second half, `pln`'s
/// second source), and a send's payload (Message Length registers from its first
/// source, seed 000 §1.5). An indirect source, or a send whose descriptor is in a
/// register: any register.
pub(crate) fn read_by_instruction(ins: &Instruction) -> RegisterSet {
    use gtsim_isa::ir::Layout;
    let mut set = RegisterSet::EMPTY;
    if is_send(ins) {
        let Some(desc) = ins.desc else {
            return RegisterSet::ALL;
        };
        let mlen = ((desc >> 25) & 0xf) as usize;
        // A split send's second payload: src1, Extended Message Length (9:6) registers.
        let split = matches!(ins.opcode, Opcode::Sends | Opcode::Sendsc);
        if split && ins.ex_desc_reg.is_some() {
            return RegisterSet::ALL;
        }
        let ex_mlen = ((ins.ex_desc >> 6) & 0xf) as usize;
        let payloads = [(0, mlen.max(1)), (1, if split { ex_mlen } else { 0 })];
        for (src, len) in payloads {
            if len == 0 {
                continue;
            }
            if let Some(Src::Reg {
                file: RegFile::Grf,
                nr,
                address,
                ..
            }) = ins.srcs.get(src)
            {
                if *address != Address::Direct {
                    return RegisterSet::ALL;
                }
                set |= RegisterSet::range(*nr as usize, len);
            }
        }
        return set;
    }
    let n = ins.exec_size.max(1) as usize;
    for s in &ins.srcs {
        let Src::Reg {
            file: RegFile::Grf,
            nr,
            subnr,
            ty,
            layout,
            address,
            ..
        } = *s
        else {
            continue;
        };
        if address != Address::Direct {
            return RegisterSet::ALL;
        }
        let size = if ty == Type::DF {
            8
        } else {
            (ty.size() as usize).max(1)
        };
        let first = nr as usize * 32 + subnr as usize;
        let last = match layout {
            Layout::Region(r) => {
                let w = r.width.max(1) as usize;
                let rows = n.div_ceil(w);
                let vs = r.vstride.unwrap_or(0) as usize;
                (rows - 1) * vs * size + (w - 1) * r.hstride as usize * size
            }
            Layout::Swizzle { vstride, .. } => {
                (n.div_ceil(4) - 1) * vstride as usize * size + 3 * size
            }
        };
        let end = first + last + size;
        let reg = first / 32;
        let count = (end.div_ceil(32) - reg).max(4);
        set |= RegisterSet::range(reg, count);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::RegisterSet;

    #[test]
    fn ranges_runs_and_membership_agree() {
        let s = RegisterSet::range(3, 4) | RegisterSet::range(10, 1) | RegisterSet::range(126, 9);
        assert_eq!(s.iter().collect::<Vec<_>>(), [3, 4, 5, 6, 10, 126, 127]);
        assert_eq!(s.runs().collect::<Vec<_>>(), [(3, 4), (10, 1), (126, 2)]);
        assert_eq!(s.len(), 7);
        assert!(s.contains(6) && !s.contains(7) && !s.contains(500));
        assert_eq!(RegisterSet::ALL.runs().collect::<Vec<_>>(), [(0, 128)]);
        assert_eq!(RegisterSet::range(0, 128), RegisterSet::ALL);
        assert!(RegisterSet::range(128, 3).is_empty() && RegisterSet::range(5, 0).is_empty());
    }
}
