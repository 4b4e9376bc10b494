//! The JIT: runs of micro-ops compiled to host code with Cranelift.
//!
//! When a kernel becomes a [`crate::exec::Program`], each maximal run of consecutive
//! instructions whose micro-ops the JIT covers (straight-line ALU code between branches,
//! sends and the rarer instructions; a branch target starts a new run) is compiled once
//! into one host function, cached with the program. The function works on the thread's
//! register file and flags in place: for each instruction, for each channel, the sources
//! are loaded from their resolved byte offsets, converted, modified and computed in
//! native f32 or i64 arithmetic, and the enabled channels are stored, exactly as
//! `crate::uop` computes them (the micro-ops are the specification; a differential test,
//! `tests/differential.rs`, runs every corpus kernel and random kernels both ways
//! and compares every architectural bit).
//!
//! What the JIT covers:
//! * on F operands, 4 lanes at a time (so with 4, 8, 16 or 32 channels): `mov`, `add`,
//!   `mul`, `mad`, `lrp`, `sel`, `cmp`, `cmpn`, `rndd`/`rndu`/`rnde`/`rndz`, `frc`, `pln`
//!   and the float `math` functions (a call per lane to the function the interpreter
//!   uses), saturation and conversion to D or UD destinations included;
//! * on D/UD/W/UW registers and integer immediates: `mov`, `add`, `not`, `and`, `or`,
//!   `xor`, `shl`, `shr`, `asr`, `sel`, `cmp`, `cmpn`, 4 lanes of 32 bits at a time where
//!   those compute the bits of the micro-ops' i64 model (`emit::int_lanes`: D/UD
//!   operands, shifts by one count, comparisons of like-signed unmodified sources),
//!   otherwise channel by channel, which is also how they convert to an F destination
//!   and store into a W or UW one;
//! * any region, the null destination, align16 write masks, normal predication and
//!   predicated `sel`, condition modifiers and flag writes.
//!
//! Everything else (integer `math`, integer saturation, accumulator writes, integer `mul`,
//! other predicate controls, other types, the alternative floating-point mode, branches
//! and sends) runs on the micro-ops or the per-channel interpreter.
//!
//! A run is entered only at its first instruction, with the thread in IEEE mode, when
//! no channel waits for an instruction inside it and the instruction budget covers it
//! all; otherwise its instructions run one by one on the interpreter. `GTSIM_JIT=0`
//! turns the JIT off (and [`crate::exec::Program::set_jit`] per program).

mod emit;

use crate::uop::Uop;
use cranelift_codegen::ir::{AbiParam, types};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use gtsim_isa::ir::Instruction;

/// A compiled run: `f(grf, flags, live)` with `grf` the 4 KiB register file, `flags`
/// f0 and f1, and `live` the channels dispatched and not waiting in control flow.
pub(crate) type RunFn = unsafe extern "C" fn(*mut u8, *mut u32, u32);

/// One compiled run of instructions.
pub(crate) struct Run {
    pub(crate) f: RunFn,
    /// Byte offset just past the run's last instruction.
    pub(crate) end: usize,
    /// Its instructions' channel spans (absolute), for the channel-instruction count.
    pub(crate) spans: Vec<u32>,
}

/// The compiled runs of a program, by the 8-byte slot of their first instruction.
pub(crate) struct Compiled {
    module: Option<JITModule>,
    runs: Vec<Option<Run>>,
}

// SAFETY: after compilation the module is never touched again until it is dropped (its
// code stays mapped read-only and executable; calling a finished function from several
// threads at once is plain code execution). Dropping happens once, with the last
// reference to the program, after which no `Run` of it exists.
unsafe impl Send for Compiled {}
// SAFETY: as for `Send`: shared access only reads `runs` (function pointers and plain
// data).
unsafe impl Sync for Compiled {}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the runs (the only pointers into the module's code) are dropped with
            // `self`; nothing can call them any more.
            unsafe { m.free_memory() };
        }
    }
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("runs", &self.runs.iter().flatten().count())
            .finish()
    }
}

impl Compiled {
    /// The run starting at byte `ip`, if one does.
    pub(crate) fn at(&self, ip: usize) -> Option<&Run> {
        if ip.is_multiple_of(8) {
            self.runs.get(ip / 8)?.as_ref()
        } else {
            None
        }
    }

    /// Number of instructions inside compiled runs.
    pub(crate) fn covered(&self) -> usize {
        self.runs.iter().flatten().map(|r| r.spans.len()).sum()
    }
}

/// Whether the JIT is on by default (`GTSIM_JIT=0` turns it off).
pub(crate) fn enabled_by_default() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| !matches!(std::env::var("GTSIM_JIT").as_deref(), Ok("0")))
}

/// The host's code generator, set up once: the generated code is plain straight-line
/// arithmetic, so the IR verifier is off and the single-pass register allocator serves
/// (together they cut the corpus's compile time from 1.1 s to about 0.1 s; `opt_level`
/// "none" would save another third of it but run 7% slower, BENCHMARKS.md).
fn host_isa() -> Option<std::sync::Arc<dyn cranelift_codegen::isa::TargetIsa>> {
    static ISA: std::sync::OnceLock<Option<std::sync::Arc<dyn cranelift_codegen::isa::TargetIsa>>> =
        std::sync::OnceLock::new();
    ISA.get_or_init(|| {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").ok()?;
        flags.set("enable_verifier", "false").ok()?;
        flags.set("regalloc_algorithm", "single_pass").ok()?;
        cranelift_native::builder()
            .ok()?
            .finish(settings::Flags::new(flags))
            .ok()
    })
    .clone()
}

/// Compiles the covered runs of a program given as (byte offset, instruction, length,
/// micro-op) in order. `None` when the host has no Cranelift backend; the program then
/// runs interpreted.
pub(crate) fn compile(
    slots: usize,
    code: &[(usize, &Instruction, usize, Option<&Uop>)],
) -> Option<Compiled> {
    // Where branches land: a run may only be entered at its start.
    let mut targets = std::collections::BTreeSet::new();
    for &(at, ins, _, _) in code {
        for rel in [ins.jip, ins.uip].into_iter().flatten() {
            targets.insert(at as i64 + rel as i64);
        }
    }
    let mut runs: Vec<Vec<(&Instruction, &Uop)>> = vec![];
    let mut starts = vec![];
    let mut cur: Vec<(&Instruction, &Uop)> = vec![];
    let mut next_at = 0usize;
    let mut start = 0usize;
    for &(at, ins, len, uop) in code {
        let covered = uop.filter(|u| emit::covers(ins, u));
        let contiguous = at == next_at;
        if !cur.is_empty() && (covered.is_none() || !contiguous || targets.contains(&(at as i64))) {
            runs.push(std::mem::take(&mut cur));
            starts.push((start, next_at));
        }
        if let Some(u) = covered {
            if cur.is_empty() {
                start = at;
            }
            cur.push((ins, u));
        }
        next_at = at + len;
    }
    if !cur.is_empty() {
        runs.push(cur);
        starts.push((start, next_at));
    }
    let mut out = Compiled {
        module: None,
        runs: (0..slots).map(|_| None).collect(),
    };
    if runs.is_empty() {
        return Some(out);
    }
    let isa = host_isa()?;
    let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
    builder.symbol("gtsim_jit_math", emit::math_helper as *const u8);
    let mut module = JITModule::new(builder);
    let ptr = module.target_config().pointer_type();
    // The math helper: (function code, x, y) -> result, all in registers.
    let mut math_sig = module.make_signature();
    math_sig.params.push(AbiParam::new(types::I32));
    math_sig.params.push(AbiParam::new(types::F32));
    math_sig.params.push(AbiParam::new(types::F32));
    math_sig.returns.push(AbiParam::new(types::F32));
    let math_id = module
        .declare_function("gtsim_jit_math", Linkage::Import, &math_sig)
        .ok()?;
    let mut ctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let mut ids = vec![];
    for (i, run) in runs.iter().enumerate() {
        ctx.func.signature.params.clear();
        ctx.func.signature.params.push(AbiParam::new(ptr));
        ctx.func.signature.params.push(AbiParam::new(ptr));
        ctx.func.signature.params.push(AbiParam::new(types::I32));
        let math = module.declare_func_in_func(math_id, &mut ctx.func);
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            emit::function(&mut b, run, math);
            b.finalize(module.target_config());
        }
        let id = module
            .declare_function(&format!("run{i}"), Linkage::Local, &ctx.func.signature)
            .ok()?;
        module.define_function(id, &mut ctx).ok()?;
        module.clear_context(&mut ctx);
        ids.push(id);
    }
    module.finalize_definitions().ok()?;
    for ((run, &(start, end)), id) in runs.iter().zip(&starts).zip(ids) {
        let code = module.get_finalized_function(id);
        // SAFETY: the function was built by `emit::function` with exactly this
        // signature (two pointers and an i32, no result, the host's C convention).
        let f: RunFn = unsafe { std::mem::transmute::<*const u8, RunFn>(code) };
        let spans = run.iter().map(|(ins, _)| emit::span(ins)).collect();
        if let Some(slot) = out.runs.get_mut(start / 8) {
            *slot = Some(Run { f, end, spans });
        }
    }
    out.module = Some(module);
    Some(out)
}

/// When a program gets compiled: the JIT's tiering. Compiling costs about as much as
/// interpreting each instruction about a thousand times (Cranelift builds every channel of
/// every instruction), so a program is compiled once the instructions its threads have
/// executed reach [`Tier::REPAY`] times its length; a kernel run by a handful of
/// threads stays interpreted. A thread that finds the program hot while another thread
/// compiles it waits for that compilation; the results are the same bits either way.
pub(crate) struct Tier {
    compiled: std::sync::OnceLock<Option<Compiled>>,
    executed: std::sync::atomic::AtomicU64,
    threshold: u64,
}

impl std::fmt::Debug for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tier")
            .field("compiled", &self.compiled.get())
            .field("threshold", &self.threshold)
            .finish()
    }
}

impl Tier {
    /// Executed instructions, per instruction of the program, before it is compiled.
    pub(crate) const REPAY: u64 = 2000;

    /// The tier of a program of `instructions` decoded instructions.
    pub(crate) fn new(instructions: u64) -> Tier {
        Tier {
            compiled: std::sync::OnceLock::new(),
            executed: std::sync::atomic::AtomicU64::new(0),
            threshold: instructions.max(1).saturating_mul(Self::REPAY),
        }
    }

    /// The compiled runs, if compiled (and compilable).
    pub(crate) fn get(&self) -> Option<&Compiled> {
        self.compiled.get().and_then(Option::as_ref)
    }

    /// The compiled runs, compiling them with `f` if nobody has yet.
    pub(crate) fn get_or_compile(&self, f: impl FnOnce() -> Option<Compiled>) -> Option<&Compiled> {
        self.compiled.get_or_init(f).as_ref()
    }

    /// Whether enough has been executed to compile.
    pub(crate) fn hot(&self) -> bool {
        self.executed.load(std::sync::atomic::Ordering::Relaxed) >= self.threshold
    }

    /// Counts a thread's executed instructions.
    pub(crate) fn ran(&self, n: u64) {
        if self.compiled.get().is_none() {
            self.executed
                .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
    }
}
