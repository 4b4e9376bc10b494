//! The host's floating-point environment around compiled code.
//!
//! Gen7's IEEE mode reads single-precision denormal sources as zero of their sign
//! (`uop::run::flush`, applied to every float source). On x86-64 the vector arithmetic
//! does the same by itself when MXCSR's DAZ bit (denormals are zero) is set: the SSE,
//! AVX and FMA instructions then take a denormal source as a zero of the same sign
//! (Intel SDM Vol. 1 §10.2.3.4 "Denormals-Are-Zeros"), which saves compiled code the four
//! vector operations per source and per four channels that flush it. A program that
//! relies on this (one with such an operation) runs with DAZ set ([`with_daz`]); the Rust it calls (the math helper,
//! the interpreter for called instructions) runs with the caller's mode restored
//! ([`outside`]), so nothing else ever sees DAZ. The few operations of compiled code
//! that read float values unflushed (`pln`'s sources, `lrp`'s and `pln`'s intermediate
//! results, the condition of a `mov` that copies a float's bits) switch DAZ off around
//! themselves ([`set_daz`]); every block starts and ends with it on. Results are flushed in software as
//! before: the hardware's flush-to-zero (FTZ) judges a result tiny after rounding it to
//! 24 bits with an unbounded exponent, not after rounding it to the denormal format as
//! `flush` sees it, so the two differ on results just below the smallest normal number.
//!
//! Only operations that are one host instruction on their sources rely on it (`add`,
//! `mul`, comparisons, and `mad` as one fused multiply-add, which is why only hosts with
//! FMA use DAZ): an operation of several steps (`lrp`, `pln`) may make a denormal
//! intermediate that the next step must read as it is.

/// MXCSR's denormals-are-zero bit.
#[cfg(target_arch = "x86_64")]
const DAZ: u32 = 1 << 6;

/// Whether compiled code reads denormal float sources through DAZ on this host.
pub(super) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
fn get() -> u32 {
    let mut x: u32 = 0;
    // SAFETY: `stmxcsr` stores the 4-byte MXCSR to the address of a live local.
    unsafe {
        core::arch::asm!(
            "stmxcsr [{}]",
            in(reg) &mut x as *mut u32,
            options(nostack, preserves_flags)
        );
    }
    x
}

#[cfg(target_arch = "x86_64")]
fn set(x: u32) {
    // SAFETY: `ldmxcsr` loads MXCSR from a live local; every value set here is one read
    // from MXCSR with only the DAZ bit changed, so no reserved bit is set (#GP).
    unsafe {
        core::arch::asm!(
            "ldmxcsr [{}]",
            in(reg) &x as *const u32,
            options(nostack, preserves_flags, readonly)
        );
    }
}

/// Runs `f` (a call of compiled code) with DAZ set when `on`, then restores the mode.
/// `f` must not unwind (compiled code does not).
pub(super) fn with_daz<R>(on: bool, f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if on {
        let saved = get();
        set(saved | DAZ);
        let r = f();
        set(saved);
        return r;
    }
    let _ = on;
    f()
}

/// What compiled code calls to switch DAZ on (`on` not 0) or off around the few
/// operations that must read denormals as they are (see the module documentation).
pub(super) extern "C" fn set_daz(on: u32) {
    #[cfg(target_arch = "x86_64")]
    {
        let x = get();
        set(if on != 0 { x | DAZ } else { x & !DAZ });
    }
    let _ = on;
}

/// Runs `f` (Rust called from compiled code) with DAZ clear, then sets the mode back to
/// compiled code's. `f` must not unwind (the callers catch panics inside it).
pub(super) fn outside<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        let saved = get();
        if saved & DAZ != 0 {
            set(saved & !DAZ);
            let r = f();
            set(saved);
            return r;
        }
    }
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A denormal source reads as zero of its sign inside `with_daz` (the hardware rule
    /// compiled code relies on), and as itself outside it and in `outside`.
    #[test]
    fn daz_reads_denormals_as_signed_zero_only_inside() {
        if !available() {
            eprintln!("note: the host has no DAZ path; nothing to check");
            return;
        }
        let tiny = std::hint::black_box(f32::from_bits(0x8000_0001));
        let big = std::hint::black_box(1.0e30f32);
        // -denormal * 1e30 is about -1.4e-15 when the denormal is read, -0 under DAZ.
        let plain = tiny * big;
        assert!(plain < 0.0 && plain != 0.0, "{plain}");
        let inside = with_daz(true, || {
            std::hint::black_box(tiny) * std::hint::black_box(big)
        });
        assert_eq!(inside.to_bits(), 0x8000_0000, "{inside}");
        let nested = with_daz(true, || {
            outside(|| std::hint::black_box(tiny) * std::hint::black_box(big))
        });
        assert_eq!(nested.to_bits(), plain.to_bits());
        let after = std::hint::black_box(tiny) * std::hint::black_box(big);
        assert_eq!(after.to_bits(), plain.to_bits(), "the mode is restored");
    }
}
