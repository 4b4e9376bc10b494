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
//! on float arithmetic (a plain `mov` copies bits); double precision covers moves, sel,
//! cmp, add, mul, mad, frc and the roundings, other DF opcodes fail as unsupported. A
//! kernel decoded once as an [`exec::Program`] runs any number of threads; the
//! [`harness`] drives `gtsim exec` and the tests.

pub mod exec;
pub mod harness;
mod ops;
mod region;
