//! MI_PREDICATE's compare, load and combine, the same on Gen7 and Gen11 (IVB PRM Vol1
//! Part3 and Gen11 PRM Vol 2a MI_PREDICATE; the field codes are those of both
//! generations' spec files): compare MI_PREDICATE_SRC0 with SRC1, load the outcome
//! (KEEP, LOAD, LOADINV) and combine it (SET, AND, OR, XOR) into MI_PREDICATE_RESULT.

use super::RegisterFile;

/// The predicate registers (Linux i915_reg.h, Mesa's defines; the same on both
/// generations).
const SRC0: u32 = 0x2400;
const SRC1: u32 = 0x2408;
const DATA: u32 = 0x2410;
/// MI_PREDICATE_RESULT.
pub const RESULT: u32 = 0x2418;

/// A reserved MI_PREDICATE Load Operation (1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("reserved Load Operation {0}")]
pub struct ReservedLoad(pub u32);

/// Applies one MI_PREDICATE with the given Compare, Load and Combine Operation codes.
/// COMPARE_DELTAS_EQUAL compares SRC0 - SRC1 with MI_PREDICATE_DATA and leaves the
/// difference there. A reserved Load Operation (1) is an error naming it.
pub fn apply(
    regs: &mut RegisterFile,
    compare: u32,
    load: u32,
    combine: u32,
) -> Result<(), ReservedLoad> {
    let src0 = regs.read64(SRC0, 0);
    let src1 = regs.read64(SRC1, 0);
    let outcome = match compare {
        0 => true,
        1 => false,
        2 => src0 == src1,
        _ => {
            let delta = src0.wrapping_sub(src1);
            let eq = delta == regs.read64(DATA, 0);
            regs.write64(DATA, delta);
            eq
        }
    };
    let loaded = match load {
        0 => return Ok(()),
        2 => outcome,
        3 => !outcome,
        other => return Err(ReservedLoad(other)),
    };
    let old = regs.read(RESULT, 0) & 1 != 0;
    let new = match combine {
        0 => loaded,
        1 => old & loaded,
        2 => old | loaded,
        _ => old ^ loaded,
    };
    regs.write(RESULT, new as u32);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand: SRCS_EQUAL on 5 and 5 is true; LOADINV then SET gives 0; a second
    /// predicate LOAD, OR gives 1; DELTAS_EQUAL with 7 - 5 = 2 in DATA is true.
    #[test]
    fn compare_load_and_combine() {
        let mut r = RegisterFile::default();
        r.write64(SRC0, 5);
        r.write64(SRC1, 5);
        apply(&mut r, 2, 3, 0).unwrap();
        assert_eq!(r.read(RESULT, 0), 0);
        apply(&mut r, 2, 2, 2).unwrap();
        assert_eq!(r.read(RESULT, 0), 1);
        r.write64(SRC0, 7);
        r.write64(DATA, 2);
        apply(&mut r, 3, 2, 0).unwrap();
        assert_eq!(r.read(RESULT, 0), 1);
        assert_eq!(r.read64(DATA, 0), 2);
        apply(&mut r, 0, 0, 0).unwrap();
        assert_eq!(r.read(RESULT, 0), 1, "KEEP leaves the result");
        assert_eq!(apply(&mut r, 0, 1, 0), Err(ReservedLoad(1)));
        assert!(ReservedLoad(1).to_string().contains("Load Operation 1"));
    }
}
