//! MI_MATH's arithmetic unit (Gen8+): sixteen 64-bit general purpose registers (CS_GPR0-15
//! at 0x2600 + 8n), two source registers, an accumulator and the zero and carry flags.
//!
//! Facts: the MI_MATH_ALU_INSTRUCTION encoding (opcode 31:20, operand 1 19:10, operand 2
//! 9:0, and their values) from Mesa's genxml gen11.xml; the semantics from the Gen11 PRM
//! Vol 2a MI_MATH and Mesa's `mi_builder.h`, which relies on the flags being stored as
//! 64-bit all-ones (true) or zero: it folds `mi_ult` of constants to `~0` and computes it
//! by SUB then STORE CF.

use super::RegisterFile;

/// CS_GPR0's MMIO offset (Mesa mi_builder.h; Linux GEN8_RING_CS_GPR).
pub const GPR_BASE: u32 = 0x2600;

const LOAD: u32 = 0x080;
const LOADINV: u32 = 0x480;
const LOAD0: u32 = 0x081;
const LOAD1: u32 = 0x481;
const ADD: u32 = 0x100;
const SUB: u32 = 0x101;
const AND: u32 = 0x102;
const OR: u32 = 0x103;
const XOR: u32 = 0x104;
const STORE: u32 = 0x180;
const STOREINV: u32 = 0x580;
const NOOP: u32 = 0x000;

const SRCA: u32 = 0x20;
const SRCB: u32 = 0x21;
const ACCU: u32 = 0x31;
const ZF: u32 = 0x32;
const CF: u32 = 0x33;

/// An ALU instruction the unit cannot execute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AluError {
    /// A source operand that names no register.
    #[error("ALU operand {0:#x} is no register")]
    Operand(u32),
    /// A LOAD whose destination is not SRCA or SRCB.
    #[error("ALU load into {0:#x}, not SRCA or SRCB")]
    LoadTarget(u32),
    /// A STORE whose destination is not a CS_GPR.
    #[error("ALU store into {0:#x}, not a CS_GPR")]
    StoreTarget(u32),
    /// An opcode the unit does not have.
    #[error("ALU opcode {0:#x}")]
    Opcode(u32),
}

/// The unit's internal registers; they do not survive an MI_MATH.
#[derive(Default)]
struct Unit {
    srca: u64,
    srcb: u64,
    accu: u64,
    zf: bool,
    cf: bool,
}

fn flag(b: bool) -> u64 {
    if b { u64::MAX } else { 0 }
}

impl Unit {
    fn read(&self, regs: &RegisterFile, operand: u32) -> Result<u64, AluError> {
        Ok(match operand {
            0..=15 => regs.read64(GPR_BASE + 8 * operand, 0),
            SRCA => self.srca,
            SRCB => self.srcb,
            ACCU => self.accu,
            ZF => flag(self.zf),
            CF => flag(self.cf),
            o => return Err(AluError::Operand(o)),
        })
    }

    fn result(&mut self, v: u64, carry: bool) {
        self.accu = v;
        self.zf = v == 0;
        self.cf = carry;
    }
}

/// Runs one MI_MATH's ALU instructions, `(opcode, operand 1, operand 2)` each, against
/// the context's registers. An unknown opcode or operand is an error naming it.
pub fn run(regs: &mut RegisterFile, program: &[(u32, u32, u32)]) -> Result<(), AluError> {
    let mut u = Unit::default();
    for &(op, a, b) in program {
        match op {
            NOOP => {}
            LOAD | LOADINV | LOAD0 | LOAD1 => {
                let v = match op {
                    LOAD => u.read(regs, b)?,
                    LOADINV => !u.read(regs, b)?,
                    LOAD0 => 0,
                    _ => 1,
                };
                match a {
                    SRCA => u.srca = v,
                    SRCB => u.srcb = v,
                    o => return Err(AluError::LoadTarget(o)),
                }
            }
            ADD => {
                let (v, c) = u.srca.overflowing_add(u.srcb);
                u.result(v, c);
            }
            SUB => {
                let (v, c) = u.srca.overflowing_sub(u.srcb);
                u.result(v, c);
            }
            AND => u.result(u.srca & u.srcb, false),
            OR => u.result(u.srca | u.srcb, false),
            XOR => u.result(u.srca ^ u.srcb, false),
            STORE | STOREINV => {
                let v = u.read(regs, b)?;
                let v = if op == STOREINV { !v } else { v };
                if a > 15 {
                    return Err(AluError::StoreTarget(a));
                }
                regs.write64(GPR_BASE + 8 * a, v);
            }
            o => return Err(AluError::Opcode(o)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpr(r: &RegisterFile, n: u32) -> u64 {
        r.read64(GPR_BASE + 8 * n, 0)
    }

    /// Mesa's mi_builder sequences, worked by hand: R2 = R0 + R1; R3 = (R0 < R1) as the
    /// carry of R0 - R1 (all-ones when true); R4 = (R0 == R1) as ZF, R5 = its inverse.
    #[test]
    fn mesa_builder_sequences_give_the_hand_worked_values() {
        let mut r = RegisterFile::default();
        r.write64(GPR_BASE, 5);
        r.write64(GPR_BASE + 8, 7);
        run(
            &mut r,
            &[
                (LOAD, SRCA, 0),
                (LOAD, SRCB, 1),
                (ADD, 0, 0),
                (STORE, 2, ACCU),
                (SUB, 0, 0),
                (STORE, 3, CF),
                (STORE, 4, ZF),
                (STOREINV, 5, ZF),
            ],
        )
        .unwrap();
        assert_eq!(gpr(&r, 2), 12);
        assert_eq!(gpr(&r, 3), u64::MAX, "5 < 7 borrows");
        assert_eq!(gpr(&r, 4), 0, "5 - 7 is not zero");
        assert_eq!(gpr(&r, 5), u64::MAX);
        run(
            &mut r,
            &[
                (LOAD0, SRCA, 0),
                (LOAD1, SRCB, 0),
                (XOR, 0, 0),
                (STORE, 6, ACCU),
            ],
        )
        .unwrap();
        assert_eq!(gpr(&r, 6), 1);
        run(
            &mut r,
            &[
                (LOADINV, SRCA, 0),
                (LOAD, SRCB, 6),
                (AND, 0, 0),
                (STORE, 7, ACCU),
            ],
        )
        .unwrap();
        assert_eq!(gpr(&r, 7), !5 & 1);
    }

    #[test]
    fn bad_operands_are_errors_naming_them() {
        let mut r = RegisterFile::default();
        assert_eq!(
            run(&mut r, &[(LOAD, ACCU, 0)]),
            Err(AluError::LoadTarget(ACCU))
        );
        assert_eq!(
            run(&mut r, &[(STORE, SRCA, ACCU)]),
            Err(AluError::StoreTarget(SRCA))
        );
        assert_eq!(run(&mut r, &[(0x7ff, 0, 0)]), Err(AluError::Opcode(0x7ff)));
        assert_eq!(
            run(&mut r, &[(LOAD, SRCA, 0x40)]),
            Err(AluError::Operand(0x40))
        );
        assert!(AluError::Opcode(0x7ff).to_string().contains("0x7ff"));
    }
}
