//! The thread and its run loop: fetch, decode (gtsim-isa), execute, control flow.

pub mod trace;

use crate::region::Acc;
use gtsim_isa::Encoding;
use gtsim_isa::ir::*;
use gtsim_isa::opcode::{Kind, Opcode};
use gtsim_spec::Unsupported;
use thiserror::Error;

/// Instructions a thread may execute before it is declared runaway.
pub const DEFAULT_BUDGET: u64 = 10_000_000;

/// A thread that could not finish: what a GPU hang report would say about it.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ExecError {
    /// The bytes at `ip` are not an instruction.
    #[error("invalid instruction at byte {ip:#x}: {error}")]
    Decode {
        /// Byte offset in the kernel.
        ip: usize,
        /// Why the bytes do not decode.
        #[source]
        error: gtsim_isa::DecodeError,
    },
    /// The instruction at `ip` breaks a rule of the ISA (execution size past channel 31,
    /// a branch out of the kernel, ...).
    #[error("invalid instruction at byte {ip:#x}: {msg}")]
    Invalid {
        /// Byte offset in the kernel.
        ip: usize,
        /// The rule it breaks.
        msg: String,
    },
    /// A register region leaves the register file.
    #[error("instruction at byte {ip:#x} addresses register byte {byte:#x}, outside g0..g127")]
    Region {
        /// Byte offset of the instruction.
        ip: usize,
        /// First byte out of range.
        byte: usize,
    },
    /// The thread ran out of its instruction budget.
    #[error(
        "runaway kernel: {budget} instructions executed without EOT (instruction budget exhausted at byte {ip:#x})"
    )]
    Budget {
        /// The budget.
        budget: u64,
        /// Where it ran out.
        ip: usize,
    },
    /// A shared function refused a message (seed 000 §1.5: the message's error cases).
    #[error("send at byte {ip:#x}: {error}")]
    SharedFunction {
        /// Byte offset of the send.
        ip: usize,
        /// What the shared function reported.
        #[source]
        error: MessageError,
    },
    /// The thread stopped at a `wait` with no notification: a dispatcher that delivers
    /// notifications resumes it ([`Thread::resume_program`]); for any other, a thread
    /// that would wait for ever.
    #[error(
        "thread waits at byte {ip:#x} for a notification (`wait` on n0.0) that no message gateway delivers"
    )]
    Waiting {
        /// Byte offset of the `wait`.
        ip: usize,
        /// Instructions the run executed before it stopped (the dispatcher charges
        /// them to its watchdog).
        executed: u64,
    },
    /// An instruction the model does not execute yet.
    #[error("instruction at byte {ip:#x}: {unsupported}")]
    Unsupported {
        /// Byte offset.
        ip: usize,
        /// What, and where it is specified.
        #[source]
        unsupported: Unsupported,
    },
}

/// A run's result, a stop at `wait` carrying the instructions the run executed.
fn with_executed(r: Result<u64, ExecError>, executed: u64) -> Result<u64, ExecError> {
    match r {
        Err(ExecError::Waiting { ip, .. }) => Err(ExecError::Waiting { ip, executed }),
        r => r,
    }
}

/// The ISA reference the EU's unmodelled instructions cite (the seeds do not describe
/// the instruction set).
pub(crate) const ISA_REFERENCE: &str = "IVB PRM Vol4 Part3";

impl ExecError {
    /// An instruction at `ip` doing `what`, which the model does not execute yet.
    pub(crate) fn unsupported(ip: usize, what: impl Into<std::borrow::Cow<'static, str>>) -> Self {
        ExecError::Unsupported {
            ip,
            unsupported: Unsupported::new(what, ISA_REFERENCE),
        }
    }
}

pub use crate::written::RegisterSet;
pub use gtsim_message::{Message, MessageError, Response, SharedFunctions};

/// A kernel decoded once, for running many threads: instructions are decoded linearly
/// from byte 0 up to the end, the first bytes that are not an instruction, or an EOT
/// send that no branch seen before it jumps past (what follows is unreachable, and in a
/// driver's instruction heap usually another kernel). Anything else execution reaches is
/// decoded, and reported if it does not decode, when it is reached.
#[derive(Debug, Clone)]
pub struct Program {
    encoding: Encoding,
    code: Vec<u8>,
    /// The bytes execution can reach, when the decode sees all of them (see
    /// [`Program::closed_code`]).
    extent: Option<usize>,
    /// By 8-byte slot: the instruction starting there, its length, and its whole-register
    /// micro-op when it has one (`crate::uop`).
    slots: Vec<Option<Slot>>,
    /// Whether micro-ops run (on by default; off runs every instruction per channel).
    micro_ops: bool,
    /// The program compiled to host code (`crate::jit`): compiled once the
    /// program has run enough instructions to repay the compilation, at once
    /// ([`Program::set_jit`]), or never.
    jit: std::sync::Arc<crate::jit::Tier>,
    jit_on: bool,
    /// Where compiled code is kept across processes (`crate::jit::cache`): the
    /// environment's directory unless [`Program::set_jit_cache`] says otherwise.
    jit_cache: Option<std::sync::Arc<crate::jit::cache::DiskCache>>,
    /// The registers its decoded instructions can write (`crate::written`).
    written: RegisterSet,
    /// Whether an instruction may write the accumulator (`written::may_write_acc`), or
    /// park channels in control flow (a branch): what [`Thread::rewind`] and
    /// [`Thread::reset_for`] must restore besides registers.
    writes_acc: bool,
    parks: bool,
    /// Whether an instruction writes cr0 (the kernel sets its own rounding or denormal
    /// modes, `crate::rounding`): such a program runs on the per-channel interpreter
    /// alone, whose float operations follow those modes; the micro-ops and compiled code
    /// assume the dispatch's.
    controls_fp: bool,
    /// The registers it can read ([`Program::read_registers`]).
    read: RegisterSet,
    /// The lowest register it can read, when that is all its threads' behaviour depends
    /// on (`crate::invariant`).
    lowest_read: Option<usize>,
}

#[derive(Debug, Clone)]
struct Slot {
    ins: Instruction,
    len: usize,
    uop: Option<Box<crate::uop::Uop>>,
    /// A double-precision instruction's predecoded form (`crate::df::DfOp`).
    df: Option<Box<crate::df::DfOp>>,
}

/// A `mov` of a float GRF or immediate to a float GRF of the same type, with no source
/// modifier, saturation or condition, is a raw move: its bits arrive unchanged, a
/// signalling NaN included, so every tier runs it as the integer move of the same size.
/// Mesa's compiler relies on it (brw_fs `is_raw_move`: such a MOV copy-propagates as a
/// bit copy; `floatBitsToUint` of a value a shader moved keeps a signalling NaN, which
/// piglit's arb_shader_image_load_store bitcast and semantics tests check); seed 003's
/// atomic fcmpwr "performs the store as a raw move (so SNaN is not quietized)" names
/// the same rule. Arithmetic still reads a signalling NaN as quiet (`region::quiet_nan`).
fn raw_float_move(mut ins: Instruction) -> Instruction {
    use gtsim_isa::ir::RegFile;
    let raw = ins.opcode == Opcode::Mov
        && !ins.saturate
        && ins.cond_modifier.is_none()
        && ins.dst.ty == Type::F
        && ins.dst.file == RegFile::Grf
        && ins.srcs.len() == 1
        && match &ins.srcs[0] {
            Src::Reg {
                file,
                ty,
                negate,
                abs,
                ..
            } => *file == RegFile::Grf && *ty == Type::F && !negate && !abs,
            Src::Imm { ty, .. } => *ty == Type::F,
        };
    if raw {
        ins.dst.ty = Type::UD;
        match &mut ins.srcs[0] {
            Src::Reg { ty, .. } | Src::Imm { ty, .. } => *ty = Type::UD,
        }
    }
    ins
}

impl Program {
    /// The `send`s the decoded program holds: each one's shared function and its
    /// immediate descriptor (`None` when the descriptor comes from a register). Lets a
    /// dispatcher see before running a kernel which messages it may send.
    pub fn sends(&self) -> impl Iterator<Item = (gtsim_isa::ir::Sfid, Option<u32>)> + '_ {
        self.slots.iter().flatten().filter_map(|s| {
            (matches!(
                s.ins.opcode,
                Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc
            ))
            .then_some(())
            .and(s.ins.sfid.map(|f| (f, s.ins.desc)))
        })
    }

    /// Decodes `code` in the generation's `encoding` (a raw float move read as the
    /// integer move it is, [`raw_float_move`]), predecoding each instruction of the
    /// common shapes into a whole-register micro-op.
    pub fn new(encoding: Encoding, code: &[u8]) -> Program {
        let mut decoded = vec![];
        let mut at = 0;
        // The furthest branch target seen so far: an EOT send past it ends the kernel
        // (seed 000 §1.5: a send with End Of Thread in its immediate descriptor ends the
        // thread, so what follows, often the driver's next kernel, is not reachable).
        let mut reach = 0i64;
        // Whether execution cannot leave the decoded code: it ended at such an EOT, and
        // no instruction jumps where the decode cannot see (`jmpi`, `call`, `ret`).
        let mut closed = true;
        let mut ended = false;
        while at < code.len() {
            let Ok((ins, len)) = encoding.decode(&code[at..]) else {
                break;
            };
            let ins = raw_float_move(ins);
            for rel in [ins.jip, ins.uip].into_iter().flatten() {
                reach = reach.max(at as i64 + i64::from(rel));
            }
            // A `jmpi` may go anywhere its register says; keep decoding.
            if ins.opcode == Opcode::Jmpi {
                reach = i64::MAX;
            }
            if matches!(ins.opcode, Opcode::Jmpi | Opcode::Call | Opcode::Ret) {
                closed = false;
            }
            let end = ins.eot && reach <= at as i64;
            ended |= end;
            // A source NOT (Gen8+ logic instructions) runs on the per-channel
            // interpreter, which every tier hands what it does not cover.
            let not = encoding.negate_is_not(&ins)
                && ins
                    .srcs
                    .iter()
                    .any(|s| matches!(s, Src::Reg { negate: true, .. }));
            let uop = if not {
                None
            } else {
                crate::uop::predecode(&ins).map(Box::new)
            };
            let df = crate::df::predecode(&ins).map(Box::new);
            decoded.push((at, Slot { ins, len, uop, df }));
            at += len;
            if end {
                break;
            }
        }
        // Slots up to the decoded end only (the code may run on for the rest of the
        // driver's instruction heap).
        let mut slots = vec![None; at.div_ceil(8)];
        for (a, slot) in decoded {
            slots[a / 8] = Some(slot);
        }
        let decoded = slots.iter().flatten().count() as u64;
        let written = slots.iter().flatten().fold(RegisterSet::EMPTY, |w, s| {
            w | crate::written::by_instruction(&s.ins)
        });
        // The registers the program can read, when it cannot run anything else: it
        // ends at an EOT no branch passes, nothing jumps where the decode cannot see,
        // and every JIP/UIP lands on a decoded instruction (a jump elsewhere would
        // decode on the fly, reading what it reads). Otherwise any register.
        let targets_decoded = slots.iter().enumerate().all(|(i, s)| {
            s.as_ref().is_none_or(|s| {
                [s.ins.jip, s.ins.uip].into_iter().flatten().all(|rel| {
                    usize::try_from(i as i64 * 8 + i64::from(rel)).is_ok_and(|to| {
                        to % 8 == 0 && slots.get(to / 8).is_some_and(Option::is_some)
                    })
                })
            })
        });
        let read = if closed && ended && targets_decoded {
            slots.iter().flatten().fold(RegisterSet::EMPTY, |r, s| {
                r | crate::written::read_by_instruction(&s.ins)
            })
        } else {
            RegisterSet::ALL
        };
        let lowest_read = crate::invariant::lowest_read(
            slots
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.as_ref().map(|s| (i * 8, &s.ins))),
            at,
        );
        let writes_acc = slots
            .iter()
            .flatten()
            .any(|s| crate::written::may_write_acc(&s.ins));
        let parks = slots
            .iter()
            .flatten()
            .any(|s| s.ins.opcode.kind() == Kind::Branch);
        // A thread that may stop at `wait` and be resumed runs on the interpreter, whose
        // state at every instruction boundary is the thread's.
        let waits = slots.iter().flatten().any(|s| s.ins.opcode == Opcode::Wait);
        let controls_fp = slots.iter().flatten().any(|s| {
            s.ins.dst.file == RegFile::Arf
                && matches!(
                    gtsim_isa::ir::ArfRegister::of(s.ins.dst.nr),
                    Some((gtsim_isa::ir::ArfRegister::Control, _))
                )
        });
        Program {
            written,
            writes_acc,
            parks,
            controls_fp,
            read,
            lowest_read,
            encoding,
            code: code.to_vec(),
            extent: (closed && ended).then_some(at),
            slots,
            micro_ops: true,
            jit: std::sync::Arc::new(crate::jit::Tier::new(decoded)),
            jit_on: crate::jit::enabled_by_default() && !waits && !controls_fp,
            jit_cache: crate::jit::cache::DiskCache::from_env()
                .cloned()
                .map(std::sync::Arc::new),
        }
    }

    /// `true` compiles the program to host code now; `false` turns
    /// the JIT off for this program. By default (unless `GTSIM_JIT=0`) a program is
    /// compiled once it has executed enough instructions to repay the compilation
    /// (`crate::jit::Tier`). Every way gives the same bits; the JIT only runs while
    /// micro-ops are on.
    pub fn set_jit(&mut self, on: bool) {
        self.jit_on = on && !self.controls_fp;
        if on {
            self.compiled(crate::jit::Quality::Quick);
        }
    }

    /// Keeps the program's compiled code in the disk cache at `dir` (and looks for it
    /// there), or nowhere with `None`, instead of the environment's cache
    /// (`GTSIM_JIT_CACHE_DIR`, `$XDG_CACHE_HOME/gtsim/jit` or `~/.cache/gtsim/jit`;
    /// `GTSIM_JIT_CACHE=0` turns it off). Set it before the program runs.
    pub fn set_jit_cache(&mut self, dir: Option<std::path::PathBuf>) {
        self.jit_cache = dir.map(|d| std::sync::Arc::new(crate::jit::cache::DiskCache::at(d)));
    }

    /// Whether the JIT's optimized tier has compiled the program (`crate::jit::Tier`).
    pub fn jit_optimized(&self) -> bool {
        self.jit.optimized()
    }

    /// How many instructions run as compiled code (0 before compilation or with the JIT
    /// off).
    pub fn jit_coverage(&self) -> usize {
        self.jit.get().map_or(0, |j| j.covered())
    }

    /// The program compiled at `quality`, compiling it now (or loading it from the JIT's
    /// disk cache, `crate::jit::cache`) if it is not yet (or `None` while another
    /// thread compiles it).
    fn compiled(&self, quality: crate::jit::Quality) -> Option<&crate::jit::Compiled> {
        self.jit.get_or_compile(quality, || {
            self.compile(
                quality,
                crate::jit::Source::Compile(self.jit_cache.as_deref()),
            )
        })
    }

    /// The program's instructions for the JIT: (byte offset, instruction, length,
    /// micro-op), in order.
    fn jit_code(&self) -> Vec<(usize, &Instruction, usize, Option<&crate::uop::Uop>)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| (i * 8, &s.ins, s.len, s.uop.as_deref())))
            .collect()
    }

    /// The program compiled at `quality` from `source` (`crate::jit::compile`), logged
    /// under `GTSIM_JIT_LOG`.
    fn compile(
        &self,
        quality: crate::jit::Quality,
        source: crate::jit::Source<'_>,
    ) -> Option<crate::jit::Compiled> {
        let start = std::time::Instant::now();
        let code = self.jit_code();
        // The decoded instructions' bytes: what the code is made from.
        let end = code.last().map_or(0, |c| c.0 + c.2).min(self.code.len());
        let encoding = format!("{:?}", self.encoding);
        let c = crate::jit::compile(&code, quality, &self.code[..end], &encoding, source);
        if std::env::var_os("GTSIM_JIT_LOG").is_some()
            && (c.is_some() || !matches!(source, crate::jit::Source::CacheOnly(_)))
        {
            let how = match source {
                crate::jit::Source::CacheOnly(_) => "loaded from the disk cache",
                crate::jit::Source::Compile(_) => "compiled (or found in the disk cache)",
            };
            tracing::info!(
                target: "gtsim_eu::jit",
                "JIT {how}: {} of {} instructions in {:.2} ms ({quality:?})",
                c.as_ref().map_or(0, |c| c.covered()),
                code.len(),
                start.elapsed().as_secs_f64() * 1e3
            );
        }
        c
    }

    /// Compiles the program's optimized code now (the JIT's second tier, which a
    /// program reaches by running long; see `crate::jit::Tier`), as benchmarks and tests
    /// of it need. Nothing happens with the JIT off.
    pub fn optimize(&self) {
        if self.jit_on && self.micro_ops {
            self.compiled(crate::jit::Quality::Optimized);
        }
    }

    /// The compiled program for a thread about to run: compiled already (optimized, once
    /// the program has run long enough for that to pay), or now if the program's
    /// executed instructions have reached the point where compiling pays.
    fn jit_for_run(&self) -> Option<&crate::jit::Compiled> {
        if !self.jit_on || !self.micro_ops {
            return None;
        }
        // A program's first thread looks for its code in the disk cache, optimized
        // first: found, it runs compiled from the start.
        if let Some(cache) = self.jit_cache.as_deref()
            && self.jit.first_look()
        {
            for quality in [crate::jit::Quality::Optimized, crate::jit::Quality::Quick] {
                if let Some(c) = self.compile(quality, crate::jit::Source::CacheOnly(cache)) {
                    self.jit.offer(quality, c);
                    break;
                }
            }
        }
        if self.jit.wants_optimizing()
            && let Some(c) = self.compiled(crate::jit::Quality::Optimized)
        {
            return Some(c);
        }
        match self.jit.get() {
            Some(c) => Some(c),
            None if self.jit.hot() => self.compiled(crate::jit::Quality::Quick),
            None => None,
        }
    }

    /// The general registers the program's instructions can write: an
    /// over-approximation found from their destinations and send responses
    /// (`crate::written`). A thread running the program adds them to the registers it
    /// tracks as changed ([`Thread::rewind`]) and possibly non-zero ([`Thread::reset`]).
    pub fn written_registers(&self) -> RegisterSet {
        self.written
    }

    /// The general registers the program can read: an over-approximation from its
    /// sources and send payloads (`crate::written`), or every register when it may run
    /// code it did not decode. What it does not read cannot change what it does, so a
    /// dispatcher need only clear those ([`Thread::reset_for`]).
    pub fn read_registers(&self) -> RegisterSet {
        self.read
    }

    /// `Some(r)` when threads of the program that hold the same registers from `r` on
    /// and have the same dispatch mask and floating-point mode execute alike and send the
    /// same messages, none of which expects a response, whatever their registers below
    /// `r` hold: it reads no register below `r`, none indirectly, and goes only where its
    /// decoded instructions are (`crate::invariant`). A dispatcher may then run one
    /// such thread and replay its messages for the others.
    pub fn alike_from(&self) -> Option<usize> {
        self.lowest_read
    }

    /// The code the program was made from.
    pub fn code(&self) -> &[u8] {
        &self.code
    }

    /// The code up to the end of the kernel, when nothing past it can run: the decode
    /// ended at an EOT no branch jumps past (seed 000 §1.5) and no instruction jumps
    /// where the decode cannot see (`jmpi`, `call`, `ret`). Two programs with the same
    /// closed code run the same, whatever follows it in memory (a driver's instruction
    /// heap grows past a kernel as it uploads the next ones).
    ///
    /// It runs 16 bytes past the last instruction: a branch into the middle of an
    /// instruction decodes from there (`run_loop`), reading up to one instruction on.
    pub fn closed_code(&self) -> Option<&[u8]> {
        self.extent
            .map(|n| &self.code[..(n + 16).min(self.code.len())])
    }

    /// The encoding it is decoded in.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Runs every instruction on the per-channel interpreter (`false`) or lets the
    /// whole-register micro-ops run where they apply (`true`, the default). Both give the
    /// same bits; the switch exists for differential tests and measurements.
    pub fn set_micro_ops(&mut self, on: bool) {
        self.micro_ops = on;
    }

    /// How many instructions have a micro-op, and how many were decoded.
    pub fn micro_op_coverage(&self) -> (usize, usize) {
        let decoded = self.slots.iter().flatten();
        (
            decoded.clone().filter(|s| s.uop.is_some()).count(),
            decoded.count(),
        )
    }

    fn at(&self, ip: usize) -> Option<&Slot> {
        if ip.is_multiple_of(8) {
            self.slots.get(ip / 8)?.as_ref()
        } else {
            None
        }
    }
}

/// The channels a thread of `simd` channels is dispatched with: all of them.
fn dispatched(simd: u8) -> u32 {
    if simd >= 32 {
        u32::MAX
    } else {
        (1u32 << simd) - 1
    }
}

/// Clears whole registers a register (32 bytes) at a time: `fill(0)` on the bytes
/// compiled to a loop of byte stores (`valgrind --tool=callgrind` counted about one
/// host instruction per byte in the pixel shader's thread reset).
fn zero_registers(bytes: &mut [u8]) {
    for reg in bytes.chunks_exact_mut(32) {
        reg.copy_from_slice(&[0; 32]);
    }
}

/// The low `exec_size` bits.
fn span_bits(exec_size: u8) -> u32 {
    if exec_size >= 32 {
        u32::MAX
    } else {
        (1u32 << exec_size) - 1
    }
}

/// The bit of [`Thread::wait_bloom`] for the instruction at byte `at`.
fn wait_bit(at: usize) -> u64 {
    1 << ((at / 8) % 64)
}

/// The floating-point mode a thread is dispatched with (the "Floating Point Mode" field
/// of the dispatching unit's state, e.g. 3DSTATE_VS/PS; IVB PRM Vol4 Part3 "Floating Point
/// Modes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FpMode {
    /// IEEE-754: infinities and NaNs are produced and propagate.
    #[default]
    Ieee,
    /// Alternate: no infinities or NaNs are produced (they become ±FLT_MAX and 0).
    Alt,
}

/// The address register's 16-bit subregisters: a0.0-a0.15, one per channel of a
/// SIMD16 indirect region (Gen11 PRM Vol 2a "Address Register": 256 bits; Mesa emits
/// `mov(16) a0<1>UW` and `g[a0]<VxH,1,0>` for indirect reads). Gen7 kernels use the
/// first eight.
pub(crate) const A0_WORDS: usize = 16;

/// One EU thread.
#[derive(Debug)]
pub struct Thread {
    pub(crate) grf: Vec<u8>,
    pub(crate) acc: [[Acc; 16]; 2],
    /// f0 and f1, each two 16-bit subregisters.
    pub(crate) flags: [u32; 2],
    pub(crate) a0: [u16; A0_WORDS],
    /// Byte offset of the current instruction.
    pub ip: usize,
    /// Dispatched channels.
    pub dispatch_mask: u32,
    /// Per channel: the instruction it waits for (structured control flow), if any.
    pub(crate) waiting: [Option<usize>; 32],
    /// A superset of the instructions parked channels wait for, one bit per 8-byte slot
    /// modulo 64 ([`wait_bit`]): the wake-up scan runs only at instructions whose bit is
    /// set, and a scan that wakes nobody recomputes it. Not architectural state.
    pub(crate) wait_bloom: u64,
    /// The channels of `waiting` that wait (bit per channel), kept beside it so masks
    /// are built without walking the array.
    pub(crate) parked: u32,
    /// Channels that left a loop by `break`: on Gen7 a break's UIP is the loop's `while`
    /// itself (Mesa's brw_set_uip_jip: "Gfx7 UIP points to WHILE"), and those channels
    /// resume after it, while `cont` channels waiting for the same `while` take part in it.
    pub(crate) broken: u32,
    /// SIMD width of the dispatch.
    pub simd: u8,
    /// Floating-point mode from the dispatching state.
    pub fp_mode: FpMode,
    /// cr0.0's rounding and denormal mode bits (5:4, 6, 7, 10; `crate::rounding`), as
    /// the kernel set them: clear at dispatch (round to nearest even, single precision
    /// denormals flushed).
    pub cr0: u32,
    /// cr0.1 bit 12, Illegal Opcode Exception Enable, loaded at dispatch from the
    /// state's field of that name (seed 003 INTERFACE_DESCRIPTOR_DATA DW2 13: "This bit
    /// gets loaded into EU CR0.1[12]"). Set, an `illegal` instruction would raise the
    /// exception and enter the System Routine, which the model does not run (refused);
    /// clear, the instruction does nothing. Neither seed says what an EU does with an
    /// illegal opcode whose exception is disabled; Intel's iHD driver runs eight all-zero
    /// (`illegal`) instructions after each of its video kernels' components (its kernel
    /// tool pads every component binary with 128 zero bytes, media-driver
    /// `KrnToHex_IGA.cpp`) with the exception disabled and no System Routine, so on the
    /// hardware they must do nothing. True for a new thread (the conservative refusal);
    /// fronts that know the state's field clear it.
    pub illegal_opcode_exception: bool,
    /// Channel-instructions executed: per instruction, the channels of its span that were
    /// dispatched and not waiting in control flow (the benchmark's unit).
    pub channel_instructions: u64,
    /// The notification count n0.0: notifications the message gateway delivered (a
    /// barrier completing) that `wait` has not consumed yet.
    pub notifications: u32,
    /// The value the timestamp register tm0.0-tm0.1 reads (IVB PRM Vol4 Part3
    /// "Timestamp Register": a free-running 64-bit counter, tm0.0 its low and tm0.1 its
    /// high dword). The model has no clock of its own: the dispatcher sets the start
    /// value (0 for a new thread), and each instruction that reads tm0 moves it on by
    /// one after it ran, so that a thread's successive reads increase (what
    /// ARB_shader_clock asks of an invocation). tm0 reads always run interpreted, so
    /// every execution tier gives the same values.
    pub timestamp: u64,
    /// The registers that may hold non-zero bytes, an over-approximation
    /// (`crate::written`): [`Thread::reset`] zeroes only these. Not architectural state.
    nonzero: RegisterSet,
    /// The registers that may have changed since the thread was last made equal to
    /// another ([`Clone::clone_from`], [`Thread::rewind`]) or reset: [`Thread::rewind`]
    /// copies only these. Not architectural state.
    touched: RegisterSet,
    /// Whether the accumulator, or the channels' waiting entries, may differ from a new
    /// thread's (zeros, no entries): `false` only where they cannot (no program that may
    /// write the accumulator, or one with branches, ran since the thread was made new,
    /// or equal to a thread where they could not). [`Thread::rewind`] and the resets
    /// restore them only where they may differ. Not architectural state.
    acc_dirty: bool,
    wait_dirty: bool,
}

impl Clone for Thread {
    fn clone(&self) -> Thread {
        let mut t = Thread::new(self.simd);
        t.clone_from(self);
        t
    }

    /// Copies `source` into this thread, reusing its register file's allocation (a
    /// dispatcher or benchmark resetting a thread pays a copy, not an allocation).
    fn clone_from(&mut self, source: &Thread) {
        self.grf.clone_from(&source.grf);
        self.nonzero = source.nonzero;
        self.touched = RegisterSet::EMPTY;
        self.acc = source.acc;
        self.waiting = source.waiting;
        self.acc_dirty = source.acc_dirty;
        self.wait_dirty = source.wait_dirty;
        self.copy_state_from(source);
    }
}

impl Thread {
    /// Every field but the register file and the register sets, from `source`.
    fn copy_state_from(&mut self, source: &Thread) {
        // Every field by name: a new one must be copied here too.
        // (The register file, the accumulator and the waiting entries are the callers'.)
        let Thread {
            grf: _,
            acc: _,
            flags,
            a0,
            ip,
            dispatch_mask,
            waiting: _,
            wait_bloom,
            parked,
            broken,
            simd,
            fp_mode,
            cr0,
            illegal_opcode_exception,
            channel_instructions,
            notifications,
            timestamp,
            nonzero: _,
            touched: _,
            acc_dirty: _,
            wait_dirty: _,
        } = source;
        self.flags = *flags;
        self.a0 = *a0;
        self.ip = *ip;
        self.dispatch_mask = *dispatch_mask;
        self.wait_bloom = *wait_bloom;
        self.parked = *parked;
        self.broken = *broken;
        self.simd = *simd;
        self.fp_mode = *fp_mode;
        self.cr0 = *cr0;
        self.illegal_opcode_exception = *illegal_opcode_exception;
        self.channel_instructions = *channel_instructions;
        self.notifications = *notifications;
        self.timestamp = *timestamp;
    }
}

impl Thread {
    /// A thread with zeroed registers and `simd` channels dispatched.
    pub fn new(simd: u8) -> Thread {
        Thread::with_register_file(vec![0; 128 * 32], simd)
    }

    /// Makes this thread equal to `source` again, copying only the registers it may have
    /// changed since it was last made equal to `source` (by [`Clone::clone_from`] or
    /// [`Thread::rewind`]): the registers its programs can write
    /// ([`Program::written_registers`]) and those handed out by
    /// [`Thread::grf_bytes_mut`]. That is the caller's promise; a thread last made equal
    /// to another thread is made equal to neither (debug builds check the result). A
    /// benchmark or dispatcher restarting a thread from one state pays for the registers
    /// a short kernel writes, not for the whole 4 KiB register file.
    pub fn rewind(&mut self, source: &Thread) {
        if self.grf.len() != source.grf.len() {
            self.clone_from(source);
            return;
        }
        for (first, count) in self.touched.runs() {
            let bytes = first * 32..(first + count) * 32;
            self.grf[bytes.clone()].copy_from_slice(&source.grf[bytes]);
        }
        self.nonzero = source.nonzero;
        self.touched = RegisterSet::EMPTY;
        // Where neither may differ from a new thread's, they are equal.
        if self.acc_dirty || source.acc_dirty {
            self.acc = source.acc;
        }
        if self.wait_dirty || source.wait_dirty {
            self.waiting = source.waiting;
        }
        self.acc_dirty = source.acc_dirty;
        self.wait_dirty = source.wait_dirty;
        self.copy_state_from(source);
        debug_assert!(
            self.grf == source.grf && self.acc == source.acc && self.waiting == source.waiting,
            "rewind from a thread it was not made from"
        );
    }

    /// Makes this thread exactly what [`Thread::new`] makes, reusing its register
    /// file's allocation: a dispatcher that runs many threads one after the other pays
    /// for zeroing 4 KiB, not for allocating them.
    /// Only the registers that may be non-zero are cleared.
    pub fn reset(&mut self, simd: u8) {
        let mut grf = std::mem::take(&mut self.grf);
        if grf.len() == 128 * 32 {
            for (first, count) in self.nonzero.runs() {
                zero_registers(&mut grf[first * 32..(first + count) * 32]);
            }
        } else {
            grf.clear();
            grf.resize(128 * 32, 0);
        }
        *self = Thread::with_register_file(grf, simd);
    }

    /// [`Thread::reset`] for a thread about to run `prog`: only the registers the
    /// program can read ([`Program::read_registers`]) are cleared, where they may be
    /// non-zero. The others keep what they held, which the program cannot see: it runs
    /// exactly as from a reset thread (its payload written as usual), and the registers
    /// it leaves behind differ only where no run of it looks.
    pub fn reset_for(&mut self, simd: u8, prog: &Program) {
        let read = prog.read;
        let mut grf = std::mem::take(&mut self.grf);
        let nonzero = self.nonzero;
        let kept = if grf.len() == 128 * 32 {
            for (first, count) in (nonzero & read).runs() {
                zero_registers(&mut grf[first * 32..(first + count) * 32]);
            }
            nonzero & !read
        } else {
            grf.clear();
            grf.resize(128 * 32, 0);
            RegisterSet::EMPTY
        };
        self.grf = grf;
        self.make_new(simd);
        self.nonzero = kept;
        // Not equal to a fresh thread where registers were kept: a rewind copies those.
        self.touched = kept;
    }

    /// Everything but the register file as [`Thread::new`] makes it, the accumulator and
    /// the waiting entries written only where they may differ from that.
    fn make_new(&mut self, simd: u8) {
        let Thread {
            grf: _,
            acc,
            flags,
            a0,
            ip,
            dispatch_mask,
            waiting,
            wait_bloom,
            parked,
            broken,
            simd: width,
            fp_mode,
            cr0,
            illegal_opcode_exception,
            channel_instructions,
            notifications,
            timestamp,
            nonzero,
            touched,
            acc_dirty,
            wait_dirty,
        } = self;
        if *acc_dirty {
            *acc = [[Acc::Zero; 16]; 2];
        }
        if *wait_dirty {
            *waiting = [None; 32];
        }
        (*acc_dirty, *wait_dirty) = (false, false);
        *flags = [0; 2];
        *a0 = [0; A0_WORDS];
        *ip = 0;
        *dispatch_mask = dispatched(simd);
        (*wait_bloom, *parked, *broken) = (0, 0, 0);
        *width = simd;
        *fp_mode = FpMode::Ieee;
        *cr0 = 0;
        *illegal_opcode_exception = true;
        *channel_instructions = 0;
        *notifications = 0;
        *timestamp = 0;
        (*nonzero, *touched) = (RegisterSet::EMPTY, RegisterSet::EMPTY);
    }

    /// A thread in its dispatch state on register file `grf` (which must be zeroed).
    fn with_register_file(grf: Vec<u8>, simd: u8) -> Thread {
        Thread {
            grf,
            acc: [[Acc::Zero; 16]; 2],
            flags: [0; 2],
            a0: [0; A0_WORDS],
            ip: 0,
            dispatch_mask: dispatched(simd),
            waiting: [None; 32],
            wait_bloom: 0,
            parked: 0,
            broken: 0,
            simd,
            fp_mode: FpMode::Ieee,
            cr0: 0,
            illegal_opcode_exception: true,
            channel_instructions: 0,
            notifications: 0,
            timestamp: 0,
            nonzero: RegisterSet::EMPTY,
            touched: RegisterSet::EMPTY,
            acc_dirty: false,
            wait_dirty: false,
        }
    }

    /// The register file as bytes (g0 at 0).
    pub fn grf_bytes(&self) -> &[u8] {
        &self.grf
    }

    /// The register file, writable (every register then counts as changed and possibly
    /// non-zero: [`Thread::write_payload`] says which).
    pub fn grf_bytes_mut(&mut self) -> &mut [u8] {
        self.nonzero = RegisterSet::ALL;
        self.touched = RegisterSet::ALL;
        &mut self.grf
    }

    /// Lets `write` fill a dispatch payload into the register file; it returns its own
    /// result and how many registers from g0 on it wrote (at most 128), and only those
    /// count as changed and possibly non-zero, so [`Thread::reset`] and
    /// [`Thread::rewind`] stay short. Debug builds check that nothing past them changed.
    pub fn write_payload<R>(&mut self, write: impl FnOnce(&mut [u8]) -> (R, usize)) -> R {
        #[cfg(debug_assertions)]
        let before = self.grf.clone();
        let (r, regs) = write(&mut self.grf);
        let set = RegisterSet::range(0, regs);
        #[cfg(debug_assertions)]
        for reg in (0..self.grf.len() / 32).filter(|&g| !set.contains(g)) {
            debug_assert!(
                self.grf[reg * 32..reg * 32 + 32] == before[reg * 32..reg * 32 + 32],
                "the payload wrote g{reg}, past the {regs} registers it said"
            );
        }
        self.nonzero |= set;
        self.touched |= set;
        r
    }

    /// Every architectural bit of the thread (registers, accumulators with their kind,
    /// flags, a0, control-flow state, counters) as words, for comparing two runs bit for
    /// bit.
    pub fn snapshot(&self) -> Vec<u64> {
        let mut out: Vec<u64> = self
            .grf
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        for a in self.acc.iter().flatten() {
            out.extend(match *a {
                Acc::Zero => [0, 0],
                Acc::Int(i) => [1, i as u64],
                Acc::Float(f) => [2, f.to_bits()],
            });
        }
        out.extend(self.flags.map(u64::from));
        out.extend(self.a0.map(u64::from));
        out.extend(self.waiting.map(|w| w.map_or(u64::MAX, |at| at as u64)));
        out.extend([
            self.parked as u64,
            self.broken as u64,
            self.ip as u64,
            self.channel_instructions,
        ]);
        out
    }

    /// Flag subregister `f<reg>.<sub>`.
    pub fn flag(&self, reg: usize, sub: usize) -> u16 {
        (self.flags[reg & 1] >> (16 * (sub & 1))) as u16
    }

    /// The flag bits an instruction's channels read: channel n reads bit n counted from
    /// the named subregister, so a SIMD32 (or `2H`) instruction on f0.0 reads f0.1 for
    /// channels 16-31 (IVB PRM Vol4 Part3 "Flag Register": a 32-bit register of two
    /// 16-bit subregisters).
    fn flag_bits(&self, ins: &Instruction) -> u32 {
        self.flags[ins.flag.0 as usize & 1] >> (16 * (ins.flag.1 as u32 & 1))
    }

    /// First channel of the instruction's channel group (quarter/nibble control).
    pub(crate) fn group(ins: &Instruction) -> usize {
        ins.qtr_control as usize * 8 + if ins.nib_control { 4 } else { 0 }
    }

    /// Channels (bit per channel, absolute) the instruction executes on.
    pub(crate) fn exec_mask(&self, ins: &Instruction) -> u32 {
        self.exec_mask_with(ins, true)
    }

    /// [`Thread::exec_mask`], with or without the predicate (`sel` chooses by its
    /// predicate instead of masking by it).
    pub(crate) fn exec_mask_with(&self, ins: &Instruction, predicated: bool) -> u32 {
        self.exec_mask_sized(ins, ins.exec_size, predicated)
    }

    /// [`Thread::exec_mask_with`] as if the instruction had `exec_size` channels (a
    /// double-precision instruction's mask has one bit per double).
    pub(crate) fn exec_mask_sized(
        &self,
        ins: &Instruction,
        exec_size: u8,
        predicated: bool,
    ) -> u32 {
        let g = Self::group(ins);
        let span = if exec_size >= 32 {
            u32::MAX
        } else {
            ((1u32 << exec_size) - 1) << g
        };
        let mut m = span;
        if !ins.mask_disable {
            m &= self.dispatch_mask & self.running();
        }
        if predicated && let Some(p) = ins.predicate {
            // Flag bit n governs channel n (the quarter control picks the flag bits).
            let f = self.predicate_bits_sized(ins, p, exec_size);
            m &= if p.inverse { !f } else { f };
        }
        m
    }

    pub(crate) fn predicate_bits(&self, ins: &Instruction, p: Predicate) -> u32 {
        self.predicate_bits_sized(ins, p, ins.exec_size)
    }

    /// [`Thread::predicate_bits`] as if the instruction had `exec_size` channels.
    pub(crate) fn predicate_bits_sized(
        &self,
        ins: &Instruction,
        p: Predicate,
        exec_size: u8,
    ) -> u32 {
        use Align1Predicate as A1;
        use Align16Predicate as A16;
        let f = self.flag_bits(ins);
        // Align1 any/all groups of n channels (IVB PRM Vol4 Part3 "Predication").
        let groups = |n: u32, all: bool| {
            let full = ((1u64 << n) - 1) as u32;
            let mut out = 0;
            for ch in (0..32).step_by(n as usize) {
                let grp = (f >> ch) & full;
                let hit = if all { grp == full } else { grp != 0 };
                if hit {
                    out |= full << ch;
                }
            }
            out
        };
        match p.control {
            PredControl::Align1(A1::Normal) | PredControl::Align16(A16::Normal) => f,
            PredControl::Align1(A1::AnyV) => {
                if f != 0 {
                    u32::MAX
                } else {
                    0
                }
            }
            PredControl::Align1(A1::AllV) => {
                let span = span_bits(exec_size);
                if f & span == span { u32::MAX } else { 0 }
            }
            PredControl::Align1(A1::Any2h) => groups(2, false),
            PredControl::Align1(A1::All2h) => groups(2, true),
            PredControl::Align1(A1::Any4h) => groups(4, false),
            PredControl::Align1(A1::All4h) => groups(4, true),
            PredControl::Align1(A1::Any8h) => groups(8, false),
            PredControl::Align1(A1::All8h) => groups(8, true),
            PredControl::Align1(A1::Any16h) => groups(16, false),
            PredControl::Align1(A1::All16h) => groups(16, true),
            PredControl::Align1(A1::Any32h) => groups(32, false),
            // Align16 channel replication .x .y .z .w.
            PredControl::Align16(c @ (A16::X | A16::Y | A16::Z | A16::W)) => {
                let k = match c {
                    A16::X => 0,
                    A16::Y => 1,
                    A16::Z => 2,
                    _ => 3,
                };
                let mut out = 0;
                for v in 0..8 {
                    if f & (1 << (v * 4 + k)) != 0 {
                        out |= 0xf << (v * 4);
                    }
                }
                out
            }
            PredControl::Align16(c @ (A16::Any4h | A16::All4h)) => {
                let mut out = 0;
                for v in 0..8 {
                    let grp = (f >> (v * 4)) & 0xf;
                    if if c == A16::All4h {
                        grp == 0xf
                    } else {
                        grp != 0
                    } {
                        out |= 0xf << (v * 4);
                    }
                }
                out
            }
        }
    }

    /// Channels not waiting in control flow.
    pub(crate) fn running(&self) -> u32 {
        !self.parked
    }

    /// Runs `code` from byte 0 until EOT or the end of the code; returns the number of
    /// instructions executed.
    pub fn run(
        &mut self,
        code: &[u8],
        sf: &mut dyn SharedFunctions,
        budget: u64,
    ) -> Result<u64, ExecError> {
        self.run_program(&Program::new(Encoding::default(), code), sf, budget)
    }

    /// Resumes a thread that stopped at a `wait` ([`ExecError::Waiting`]) once it has
    /// been notified: runs `prog` on from the thread's instruction pointer until EOT,
    /// its end or another `wait`; returns the instructions executed in this run.
    pub fn resume_program(
        &mut self,
        prog: &Program,
        sf: &mut dyn SharedFunctions,
        budget: u64,
    ) -> Result<u64, ExecError> {
        let mut executed = 0;
        let code = prog.code.as_slice();
        let r = self.run_loop(prog, code, None, sf, budget, &mut executed);
        with_executed(r, executed)
    }

    /// Runs a decoded kernel from byte 0 until EOT or its end; returns the number of
    /// instructions executed.
    pub fn run_program(
        &mut self,
        prog: &Program,
        sf: &mut dyn SharedFunctions,
        budget: u64,
    ) -> Result<u64, ExecError> {
        let code = prog.code.as_slice();
        let mut executed = 0;
        self.ip = 0;
        self.nonzero |= prog.written;
        self.touched |= prog.written;
        self.acc_dirty |= prog.writes_acc;
        // (Channels parked at dispatch may wake without a branch of the program.)
        self.wait_dirty |= prog.parks || self.parked != 0;
        let jit = prog.jit_for_run();
        let result = match jit {
            // A thread that starts in compiled code (a short kernel's usual run, which
            // also ends there) takes the run loop's first step here, as the loop would.
            Some(j)
                if self.fp_mode == FpMode::Ieee
                    && self.parked == 0
                    && !code.is_empty()
                    && j.block_len(0).is_some_and(|n| n <= budget) =>
            {
                match j.run(self, prog, sf, &mut executed, budget) {
                    crate::jit::Ran::Ended => Ok(executed),
                    crate::jit::Ran::Failed(e) => Err(e),
                    crate::jit::Ran::Yes | crate::jit::Ran::No => {
                        self.run_loop(prog, code, jit, sf, budget, &mut executed)
                    }
                }
            }
            _ => self.run_loop(prog, code, jit, sf, budget, &mut executed),
        };
        // (Counted for the JIT's tiers only: the count is an atomic shared by every
        // thread of the program.)
        if prog.jit_on {
            prog.jit.ran(executed);
        }
        with_executed(result, executed)
    }

    fn run_loop(
        &mut self,
        prog: &Program,
        code: &[u8],
        jit: Option<&crate::jit::Compiled>,
        sf: &mut dyn SharedFunctions,
        budget: u64,
        executed: &mut u64,
    ) -> Result<u64, ExecError> {
        #[cfg(target_arch = "x86_64")]
        if !crate::portable_only() && std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the host has POPCNT (checked just above), all `run_loop_popcnt`
            // needs.
            return unsafe { self.run_loop_popcnt(prog, code, jit, sf, budget, executed) };
        }
        self.run_loop_any(prog, code, jit, sf, budget, executed)
    }

    /// [`Thread::run_loop_any`] compiled for hosts with POPCNT: the loop counts the live
    /// channels of every instruction, which is otherwise a sequence of a dozen
    /// instructions.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn run_loop_popcnt(
        &mut self,
        prog: &Program,
        code: &[u8],
        jit: Option<&crate::jit::Compiled>,
        sf: &mut dyn SharedFunctions,
        budget: u64,
        executed: &mut u64,
    ) -> Result<u64, ExecError> {
        self.run_loop_any(prog, code, jit, sf, budget, executed)
    }

    /// The run loop, for any host.
    #[inline(always)]
    fn run_loop_any(
        &mut self,
        prog: &Program,
        code: &[u8],
        jit: Option<&crate::jit::Compiled>,
        sf: &mut dyn SharedFunctions,
        budget: u64,
        executed: &mut u64,
    ) -> Result<u64, ExecError> {
        while self.ip < code.len() {
            if *executed >= budget {
                return Err(ExecError::Budget {
                    budget,
                    ip: self.ip,
                });
            }
            self.wake_waiting();
            // Compiled code, entered at a block's start when the budget covers the
            // block (see `crate::jit`).
            if self.fp_mode == FpMode::Ieee
                && let Some(j) = jit
                && let Some(n) = j.block_len(self.ip)
                && *executed + n <= budget
            {
                match j.run(self, prog, sf, executed, budget) {
                    crate::jit::Ran::No => {}
                    crate::jit::Ran::Yes => continue,
                    crate::jit::Ran::Ended => return Ok(*executed),
                    crate::jit::Ran::Failed(e) => return Err(e),
                }
            }
            let on_the_fly;
            let (ins, len) = match prog.at(self.ip) {
                // A predecoded instruction: a micro-op, or double precision.
                Some(slot) if prog.micro_ops && !prog.controls_fp && slot.uop.is_some() => {
                    *executed += 1;
                    if let Some(u) = &slot.uop {
                        // (The channels counted are those live before it runs.)
                        let live = self.run_uop(&slot.ins, u);
                        self.channel_instructions += u64::from(live.count_ones());
                    }
                    self.ip += slot.len;
                    continue;
                }
                Some(slot) if prog.micro_ops && !prog.controls_fp && slot.df.is_some() => {
                    *executed += 1;
                    self.channel_instructions += self.live(&slot.ins).count_ones() as u64;
                    self.run_predecoded(slot)?;
                    self.ip += slot.len;
                    continue;
                }
                Some(d) => (&d.ins, d.len),
                None => {
                    // A jump into the middle of the linear decode: decode here (what it
                    // writes is not in the program's set).
                    self.nonzero = RegisterSet::ALL;
                    self.touched = RegisterSet::ALL;
                    self.acc_dirty = true;
                    self.wait_dirty = true;
                    on_the_fly = prog
                        .encoding
                        .decode(&code[self.ip..])
                        .map_err(|error| ExecError::Decode { ip: self.ip, error })?;
                    (&on_the_fly.0, on_the_fly.1)
                }
            };
            *executed += 1;
            self.channel_instructions += self.live(ins).count_ones() as u64;
            let next = self.ip + len;
            match self.step(ins, next, prog.encoding, sf)? {
                Flow::Next => self.ip = next,
                Flow::Jump(to) if to <= code.len() => self.ip = to,
                Flow::Jump(to) => {
                    return Err(ExecError::Invalid {
                        ip: self.ip,
                        msg: format!(
                            "branch target {to:#x} is outside the kernel ({:#x} bytes)",
                            code.len()
                        ),
                    });
                }
                Flow::End => return Ok(*executed),
            }
        }
        Ok(*executed)
    }

    /// Wakes the channels waiting for the instruction at the instruction pointer
    /// (broken channels stay parked: they move past the `while` that broke them).
    #[inline(always)]
    pub(crate) fn wake_waiting(&mut self) {
        let mut parked = self.parked & !self.broken;
        if parked != 0 && self.wait_bloom & wait_bit(self.ip) != 0 {
            let mut woke = false;
            while parked != 0 {
                let c = parked.trailing_zeros() as usize;
                parked &= parked - 1;
                if self.waiting[c] == Some(self.ip) {
                    self.waiting[c] = None;
                    self.parked &= !(1 << c);
                    woke = true;
                }
            }
            if !woke {
                self.refresh_wait_bloom();
            }
        }
    }

    /// A micro-op or double-precision instruction.
    fn run_predecoded(&mut self, slot: &Slot) -> Result<(), ExecError> {
        match (&slot.uop, &slot.df) {
            (Some(u), _) => {
                self.run_uop(&slot.ins, u);
                Ok(())
            }
            (None, Some(d)) => crate::df::run(self, &slot.ins, d),
            (None, None) => Ok(()),
        }
    }

    /// Runs the decoded non-branch instruction at byte `ip` for compiled code
    /// (`crate::jit::interpret`), as the run loop would, with `parked` the channels
    /// waiting in control flow (compiled code keeps them; the instruction reads them for
    /// its execution mask). Compiled code has counted it.
    pub(crate) fn run_called(
        &mut self,
        prog: &Program,
        ip: usize,
        parked: u32,
        sf: &mut dyn SharedFunctions,
    ) -> Result<Flow, ExecError> {
        self.ip = ip;
        self.parked = parked;
        let slot = prog.at(ip).ok_or_else(|| ExecError::Invalid {
            ip,
            msg: "compiled code called an instruction that was not decoded".into(),
        })?;
        if prog.micro_ops && (slot.uop.is_some() || slot.df.is_some()) {
            self.run_predecoded(slot)?;
            return Ok(Flow::Next);
        }
        self.step(&slot.ins, ip + slot.len, prog.encoding, sf)
    }

    /// A branch target; a negative one maps past any kernel so the run loop reports it.
    fn target(&self, rel: Option<i32>) -> usize {
        usize::try_from(self.ip as i64 + rel.unwrap_or(0) as i64).unwrap_or(usize::MAX)
    }

    /// Whether a channel waits for an instruction in `from..to`.
    fn waits_within(&self, from: usize, to: usize) -> bool {
        self.parked != 0
            && self
                .waiting
                .iter()
                .any(|w| w.is_some_and(|w| (from..to).contains(&w)))
    }

    fn wait(&mut self, mask: u32, at: usize) {
        let mut m = mask;
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            self.waiting[c] = Some(at);
        }
        self.parked |= mask;
        if mask != 0 {
            self.wait_bloom |= wait_bit(at);
        }
    }

    /// Recomputes [`Thread::wait_bloom`] from the parked channels.
    pub(crate) fn refresh_wait_bloom(&mut self) {
        let mut bloom = 0;
        let mut parked = self.parked;
        while parked != 0 {
            let c = parked.trailing_zeros() as usize;
            parked &= parked - 1;
            if let Some(at) = self.waiting[c] {
                bloom |= wait_bit(at);
            }
        }
        self.wait_bloom = bloom;
    }

    /// Channels of the instruction's span that are dispatched and running.
    fn live(&self, ins: &Instruction) -> u32 {
        let g = Self::group(ins);
        let span = if ins.exec_size >= 32 {
            u32::MAX
        } else {
            ((1u32 << ins.exec_size) - 1) << g
        };
        span & self.dispatch_mask & self.running()
    }

    /// Runs `ins` of a program in `encoding`, whose successor is at byte `next`; `jmpi`
    /// distances count [`Encoding::jmpi_unit`] bytes.
    fn step(
        &mut self,
        ins: &Instruction,
        next: usize,
        encoding: Encoding,
        sf: &mut dyn SharedFunctions,
    ) -> Result<Flow, ExecError> {
        let jmpi_unit = encoding.jmpi_unit();
        match ins.opcode.kind() {
            Kind::Branch => self.branch(ins, next),
            Kind::Send => self.send(ins, sf),
            _ => match ins.opcode {
                Opcode::Nop => Ok(Flow::Next),
                Opcode::Jmpi => {
                    // Jumps for all channels, relative to the next instruction (IVB PRM
                    // Vol4 Part3 JMPI: IP = IP + src1 where IP already points past jmpi),
                    // src1 counting 64-bit chunks on Gen7 and bytes from Gen8 on
                    // (Encoding::jmpi_unit).
                    let taken = match ins.predicate {
                        Some(_) => self.exec_mask(ins) != 0,
                        None => true,
                    };
                    let off = match ins.srcs.get(1) {
                        Some(s) => self.read_src(s, 0)?.i().saturating_mul(jmpi_unit),
                        None => 0,
                    };
                    Ok(if taken {
                        // A target before byte 0 maps past the end, reported by the run loop.
                        Flow::Jump(
                            usize::try_from((next as i64).saturating_add(off))
                                .unwrap_or(usize::MAX),
                        )
                    } else {
                        Flow::Next
                    })
                }
                // IVB PRM Vol4 Part3 `wait`: the thread stops while its notification
                // count is zero, and goes on (consuming one) once the message gateway
                // has notified it. The model returns to the dispatcher, which resumes
                // the thread at this instruction (`Thread::resume_program`).
                Opcode::Wait => {
                    if self.notifications == 0 {
                        return Err(ExecError::Waiting {
                            ip: self.ip,
                            executed: 0,
                        });
                    }
                    self.notifications -= 1;
                    Ok(Flow::Next)
                }
                // See `Thread::illegal_opcode_exception`.
                Opcode::Illegal if !self.illegal_opcode_exception => Ok(Flow::Next),
                Opcode::Illegal => Err(ExecError::unsupported(
                    self.ip,
                    "`illegal` with Illegal Opcode Exception Enable set (the exception's \
                     System Routine)",
                )),
                Opcode::Msave | Opcode::Mrest | Opcode::Push | Opcode::Pop | Opcode::Movi => Err(
                    ExecError::unsupported(self.ip, format!("`{}`", ins.opcode.mnemonic())),
                ),
                _ => {
                    crate::ops::alu(self, ins, encoding.negate_is_not(ins))?;
                    if ins.srcs.iter().any(reads_timestamp) {
                        // See `Thread::timestamp`.
                        self.timestamp = self.timestamp.wrapping_add(1);
                    }
                    Ok(Flow::Next)
                }
            },
        }
    }

    /// Structured control flow with per-channel waiting (see the crate docs).
    fn branch(&mut self, ins: &Instruction, next: usize) -> Result<Flow, ExecError> {
        let live = self.live(ins);
        let cond = match ins.predicate {
            Some(p) => {
                let f = self.predicate_bits(ins, p);
                if p.inverse { !f } else { f }
            }
            None => u32::MAX,
        };
        let jip = self.target(ins.jip);
        let uip = self.target(ins.uip);
        match ins.opcode {
            Opcode::If => {
                // Channels failing the condition wait for JIP (the else block or endif).
                let fail = live & !cond;
                self.wait(fail, jip);
                Ok(if live & cond == 0 {
                    Flow::Jump(jip)
                } else {
                    Flow::Next
                })
            }
            Opcode::Else => {
                // The then-block's channels wait for JIP (endif); the else block's channels
                // wake at the next instruction.
                self.wait(live, jip);
                let pending = self.waiting.contains(&Some(next));
                Ok(if pending { Flow::Next } else { Flow::Jump(jip) })
            }
            // IVB PRM Vol4 Part3 `endif`: with no channel enabled after it, the thread
            // jumps to JIP (the next point where channels join again). No channel can be
            // waiting in between, or the jump would strand it: then it goes on, and the
            // instructions in between, enabling none, change nothing but what their
            // WE_all forms write, which the jump keeps them from writing (Mesa's
            // find-live-channel `fbl` of ce0 after a loop's last channels broke out
            // would otherwise read an empty mask).
            Opcode::Endif => Ok(match ins.jip {
                Some(rel) if rel > 0 && live == 0 && !self.waits_within(next, jip) => {
                    Flow::Jump(jip)
                }
                _ => Flow::Next,
            }),
            Opcode::Break | Opcode::Cont | Opcode::Halt => {
                // Breaking channels wait for UIP (after the loop / the while / the end);
                // if none is left running, jump to JIP.
                let go = live & cond;
                self.wait(go, uip);
                if ins.opcode == Opcode::Break {
                    self.broken |= go;
                }
                Ok(if live & !go == 0 && go != 0 {
                    Flow::Jump(jip)
                } else {
                    Flow::Next
                })
            }
            Opcode::While => {
                // Channels that broke out of this loop now wait for the instruction after it.
                let mut broken = self.broken;
                while broken != 0 {
                    let c = broken.trailing_zeros() as usize;
                    broken &= broken - 1;
                    if self.waiting[c] == Some(self.ip) {
                        self.waiting[c] = Some(next);
                        self.wait_bloom |= wait_bit(next);
                        self.broken &= !(1 << c);
                    }
                }
                let again = live & cond;
                if again != 0 {
                    // Channels leaving the loop wait for the instruction after it.
                    self.wait(live & !cond, next);
                    Ok(Flow::Jump(jip))
                } else {
                    Ok(Flow::Next)
                }
            }
            Opcode::Call => {
                // CALL (IVB PRM Vol4 Part3): dst.0:ud receives the return IP (the byte
                // offset of the next instruction) and dst.1:ud the channels taking the call;
                // execution continues at JIP. Channels that do not take it wait for the
                // return point.
                let go = live & cond;
                if go == 0 {
                    return Ok(Flow::Next);
                }
                self.wait(live & !go, next);
                let at = ins.dst.nr as usize * 32 + ins.dst.subnr as usize;
                self.write_grf(at, &(next as u32).to_le_bytes())?;
                self.write_grf(at + 4, &go.to_le_bytes())?;
                Ok(Flow::Jump(jip))
            }
            Opcode::Ret => {
                // RET: execution continues at the IP saved by CALL in src0.0:ud.
                let Some(Src::Reg {
                    file: RegFile::Grf,
                    nr,
                    subnr,
                    ..
                }) = ins.srcs.first()
                else {
                    return Err(ExecError::unsupported(
                        self.ip,
                        "ret with a source outside the GRF",
                    ));
                };
                let at = *nr as usize * 32 + *subnr as usize;
                let b = self.grf.get(at..at + 4).ok_or(ExecError::Region {
                    ip: self.ip,
                    byte: at,
                })?;
                let to = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
                Ok(if live != 0 {
                    Flow::Jump(to)
                } else {
                    Flow::Next
                })
            }
            _ => Err(ExecError::unsupported(
                self.ip,
                format!(
                    "`{}` (diverging/converging branches are not modelled)",
                    ins.opcode.mnemonic()
                ),
            )),
        }
    }

    /// Writes bytes into the register file at byte `at`, checking the bounds.
    fn write_grf(&mut self, at: usize, bytes: &[u8]) -> Result<(), ExecError> {
        let ip = self.ip;
        self.grf
            .get_mut(at..at + bytes.len())
            .ok_or(ExecError::Region { ip, byte: at })?
            .copy_from_slice(bytes);
        Ok(())
    }

    /// The descriptor of a send whose src1 is a register rather than an immediate: the
    /// 32 bits of that register's first element, the address register a0.0 as Mesa's
    /// indirect sends use it (`or a0 ...` then `send ... a0<0,1,0>UD`), or a GRF dword
    /// (IVB PRM Vol4 Part3 "send": "src1 ... the message descriptor, an immediate or a
    /// register"). Any other register is an error naming it.
    fn register_descriptor(&self, ins: &Instruction) -> Result<u32, ExecError> {
        let ip = self.ip;
        match ins.srcs.get(1) {
            Some(Src::Reg {
                file: RegFile::Arf,
                nr,
                subnr,
                ..
            }) if nr & 0xf0 == 0x10 => {
                // a0: 16-bit subregisters; a dword at byte `subnr` spans two.
                let w = (*subnr as usize / 2) % A0_WORDS;
                Ok(u32::from(self.a0[w]) | u32::from(self.a0[(w + 1) % A0_WORDS]) << 16)
            }
            Some(Src::Reg {
                file: RegFile::Grf,
                nr,
                subnr,
                ..
            }) => {
                let at = *nr as usize * 32 + (*subnr as usize & !3);
                let b = self
                    .grf
                    .get(at..at + 4)
                    .ok_or(ExecError::Region { ip, byte: at })?;
                Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            other => Err(ExecError::Invalid {
                ip,
                msg: format!("a send's descriptor in {other:?}, neither a0 nor a GRF register"),
            }),
        }
    }

    /// The dword of a0 at dword subregister `sub` (a0's eight 16-bit subregisters; a
    /// dword spans two).
    fn a0_dword(&self, sub: u8) -> u32 {
        let w = (sub as usize * 2) % A0_WORDS;
        u32::from(self.a0[w]) | u32::from(self.a0[(w + 1) % A0_WORDS]) << 16
    }

    /// `count` registers from GRF `nr` (a payload), or the region error of the first
    /// register past the file.
    fn payload_registers(&self, nr: u8, count: usize) -> Result<&[u8], ExecError> {
        let first = nr as usize * 32;
        self.grf
            .get(first..first + count * 32)
            .ok_or(ExecError::Region {
                ip: self.ip,
                byte: first.max(self.grf.len()),
            })
    }

    fn send(&mut self, ins: &Instruction, sf: &mut dyn SharedFunctions) -> Result<Flow, ExecError> {
        // A split send (Gen9-11 `sends`/`sendsc`) carries two payloads: src0 with the
        // descriptor's Message Length (28:25), src1 with the extended descriptor's
        // Extended Message Length (9:6). Its descriptor, when not immediate, is a0.0 (its
        // sources are both payloads), and its extended descriptor is the immediate or the
        // whole a0 dword the instruction names (Mesa brw_eu_emit.c
        // brw_send_indirect_split_message: the register holds SFID, EOT, ex_mlen and the
        // function control bits; brw_inst.h brw_inst_sends_ex_desc for the immediate).
        let split = matches!(ins.opcode, Opcode::Sends | Opcode::Sendsc);
        let desc = match ins.desc {
            Some(d) => d,
            None if split => self.a0_dword(0),
            None => self.register_descriptor(ins)?,
        };
        let ex_desc = match (split, ins.ex_desc_reg) {
            (false, _) => 0,
            (true, None) => ins.ex_desc,
            (true, Some(sub)) => self.a0_dword(sub),
        };
        let Some(Src::Reg {
            file: RegFile::Grf,
            nr,
            ..
        }) = ins.srcs.first()
        else {
            return Err(ExecError::unsupported(
                self.ip,
                "send payload outside the GRF",
            ));
        };
        let mlen = ((desc >> 25) & 0xf) as usize;
        let rlen = ((desc >> 20) & 0x1f) as u8;
        let ex_mlen = ((ex_desc >> 6) & 0xf) as usize;
        let regs = self.payload_registers(*nr, mlen)?;
        let regs2 = match (ex_mlen, ins.srcs.get(1)) {
            (0, _) => &[][..],
            (
                _,
                Some(Src::Reg {
                    file: RegFile::Grf,
                    nr,
                    ..
                }),
            ) => self.payload_registers(*nr, ex_mlen)?,
            _ => {
                return Err(ExecError::unsupported(
                    self.ip,
                    "a split send's second payload outside the GRF",
                ));
            }
        };
        let sfid = ins.sfid.ok_or_else(|| ExecError::Invalid {
            ip: self.ip,
            msg: "a send without its shared function".into(),
        })?;
        // In Align16 the destination's write mask takes part in the channels the message
        // carries: channel c is enabled only when write-mask bit c mod 4 is set. Mesa
        // relies on it to keep a SIMD4x2 untyped atomic to the X component ("unused
        // but enabled components will cause the dataport to perform additional atomic
        // operations", brw_eu_emit.c brw_untyped_atomic on Ivy Bridge).
        let mut channel_mask = self.exec_mask(ins);
        if let gtsim_isa::ir::DstLayout::WriteMask(wm) = ins.dst.layout {
            let per_channel = (0..32).filter(|c| wm >> (c % 4) & 1 != 0);
            channel_mask &= per_channel.fold(0u32, |m, c| m | 1 << c);
        }
        // The payloads are filled in place (a message is some 1,000 bytes).
        let mut m = Message {
            sfid,
            desc,
            // Gen7's send has no extended descriptor (the SFID is in the instruction).
            ex_desc,
            payload2: gtsim_message::Payload::new(),
            exec_size: ins.exec_size,
            channel_mask,
            first_channel: Self::group(ins) as u8,
            payload: gtsim_message::Payload::new(),
            response_length: rlen,
            dst: ins.dst.nr,
            eot: ins.eot,
            ip: self.ip,
        };
        m.payload.set_registers(regs);
        m.payload2.set_registers(regs2);
        let ip = self.ip;
        let reply = sf
            .send_masked(&m)
            .map_err(|error| ExecError::SharedFunction { ip, error })?;
        if ins.dst.file == RegFile::Grf {
            for (r, data) in reply.registers.iter().take(rlen as usize).enumerate() {
                let at = (ins.dst.nr as usize + r) * 32;
                if at + 32 > self.grf.len() {
                    return Err(ExecError::Region {
                        ip: self.ip,
                        byte: at,
                    });
                }
                match reply.written.as_ref().and_then(|w| w.get(r)) {
                    // Only the dwords the shared function writes (seed 000 §2.13.2.3).
                    Some(&dwords) => {
                        for d in (0..8).filter(|d| dwords >> d & 1 != 0) {
                            self.grf[at + 4 * d..at + 4 * d + 4]
                                .copy_from_slice(&data[4 * d..4 * d + 4]);
                        }
                    }
                    None => self.grf[at..at + 32].copy_from_slice(data),
                }
            }
        }
        Ok(if ins.eot { Flow::End } else { Flow::Next })
    }
}

pub(crate) enum Flow {
    Next,
    Jump(usize),
    End,
}

/// Whether `s` is the timestamp register tm0 (see [`Thread::timestamp`]).
fn reads_timestamp(s: &Src) -> bool {
    matches!(
        *s,
        Src::Reg {
            file: RegFile::Arf,
            nr,
            ..
        } if matches!(ArfRegister::of(nr), Some((ArfRegister::Timestamp, 0)))
    )
}
