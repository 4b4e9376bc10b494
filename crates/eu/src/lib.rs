//! # gtsim-eu: the execution unit
//!
//! An EU thread owns 128 general registers of 256 bits (g0..g127), the architecture
//! registers that matter to programs (accumulators acc0/acc1, flags f0/f1, the address
//! register a0, null), and an instruction pointer. A kernel runs SIMD8, SIMD16 or SIMD32: each
//! instruction works on `exec_size` channels starting at its channel group (quarter
//! control), and a channel takes part only if it is dispatched, not waiting in control
//! flow, and (when predicated) its flag bit says so — unless the instruction is `WE_all`.
//!
//! Operands address the register file through regions (align1 `<vstride;width,hstride>`,
//! align16 swizzles and write masks): each channel finds its element at
//! `reg*32 + subreg + (row*vstride + col*hstride)*size`. Every address is checked; a region
//! that leaves the register file is a typed error, as is a runaway kernel (an instruction
//! budget) or an instruction the model does not execute yet.
//!
//! Structured control flow follows the Gen6+ model of per-channel instruction pointers:
//! a channel disabled by `if`, `else`, `break`, `cont` or `while` waits for a target
//! instruction (JIP/UIP) and wakes when execution reaches it; when no channel is left
//! running, the instruction jumps to its JIP instead (IVB PRM Vol4 Part3, "Structured
//! Control Flow"). `send` builds a [`exec::Message`] for a [`exec::SharedFunctions`]
//! implementation; `EOT` ends the thread.
//!
//! Floating point follows the dispatching state's mode ([`exec::FpMode`]: IEEE, or ALT
//! where infinities and NaNs are not produced); fp32 denormals are flushed to signed zero
//! on float arithmetic (a plain `mov` copies bits). A kernel decoded once as an
//! [`exec::Program`] runs any number of threads; the [`harness`] drives `gtsim exec` and
//! the tests.
//!
//! ## Three ways to run an instruction, one result
//!
//! The per-channel interpreter (`ops`) is the reference. Whole-register micro-ops
//! (`uop`, predecoded with the program) run the common ALU shapes on lane arrays, and
//! the JIT (`jit`, Cranelift) compiles a hot program, its structured control flow
//! included, to host code. All three give the same bits, NaNs included (a computed NaN is the default NaN
//! 0x7FC00000); `tests/differential.rs` checks it. [`exec::Program::set_micro_ops`],
//! [`exec::Program::set_jit`] and `GTSIM_JIT=0` select the slower tiers.
//!
//! Where the host has AVX2 and FMA (and POPCNT), the micro-ops' fast path and the run
//! loop run a second build compiled for them; `GTSIM_EU_PORTABLE=1` keeps to the
//! portable build, which hosts without those features run (CI runs the differential and
//! per-opcode tests both ways).
//!
//! ## Double precision (Ivy Bridge)
//!
//! An instruction with a DF destination or source follows the Gen7 (IVB/BYT) rules, which
//! differ from Haswell's: the execution size and the align1 region parameters count 32-bit
//! elements, so `mov(8)` with DF operands moves four doubles, `<8,8,1>DF` is four packed
//! doubles and `<0,2,1>DF` a scalar (IVB PRM "Special Requirements for Handling Double
//! Precision Data Types", quoted in Mesa's brw_fs_generator.cpp). Double channel `k` is the
//! pair of 32-bit channels `2k` (low dword) and `2k+1` (high dword) and has one bit of the
//! execution mask, predicate and flags: bit `g + k` for the channel group `g` of the
//! quarter/nibble control (1Q, 2N, 2Q, 4N, ...), as Mesa's SIMD8/SIMD16 fragment code and
//! SIMD4x2 vertex code (one vertex per `(8)` instruction, 1Q and 2N) rely on. Align16
//! swizzles pick dwords (`.xyxy` / `.zwzw` are the two doubles of a 16-byte row, `.2` starts
//! at byte 16) and the align16 write mask has one bit per double. Conversions F/D/UD -> DF
//! read the even channel of each pair (Mesa reads sources `<1,2,0>`); DF -> F/D/UD writes
//! the converted value to the even dword of each pair of a `<1>` destination (the odd one
//! is garbage on the hardware; the model writes 0). `mov`, `sel`, `cmp`/`cmpn`, `add`,
//! `mul` and align16 `mad` execute in binary64 (denormals kept); DF `math`, `frc` and the
//! `rnd*` instructions, DF immediates, DF in the accumulator, strided DF destinations,
//! replicated three-source DF operands and execution size 1 are typed
//! [`exec::ExecError::Unsupported`] errors — Mesa lowers those operations for Gen7. The rules and their sources are in the `df` module.

/// `GTSIM_EU_PORTABLE=1`: only the portable build of the interpreter's fast paths, never
/// the ones compiled for the host's AVX2, FMA or POPCNT (read once).
pub(crate) fn portable_only() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| matches!(std::env::var("GTSIM_EU_PORTABLE").as_deref(), Ok("1")))
}

mod df;
pub mod exec;
pub mod harness;
mod invariant;
mod jit;
mod ops;
mod region;
mod rounding;
mod uop;
mod written;
