//! The JIT: whole programs compiled to host code with Cranelift.
//!
//! When a kernel of a [`crate::exec::Program`] is hot ([`Tier`]), its instructions are
//! compiled into one host function, quickly first and, once it has run long, again with
//! Cranelift's optimizer and backtracking register allocator ([`Quality`]), cached with
//! the program (and kept across
//! instruction cache invalidations while the kernel's bytes stay the same, see
//! `gtsim_pipe3d::draw::KernelCache`) and on disk across processes ([`cache`]: a
//! program's first thread looks there, and runs the optimized code from the start when
//! an earlier process compiled it). The machine code is placed in executable memory by
//! [`code`], for fresh and cached code alike. The function is made of basic blocks
//! (`flow`): the instructions the JIT covers are computed in place, and the structured
//! branches (`if`, `else`, `endif`, `while`, `break`, `cont`, `halt`) move the channels
//! the way the interpreter does, with one wait mask per branch target, so that loops
//! run without leaving compiled code. Each instruction works on the thread's register
//! file and flags in place: the sources are loaded from their resolved byte offsets,
//! converted, modified and computed in native f32 or i64 arithmetic, and the enabled
//! channels are stored, exactly as `crate::uop` computes them (the micro-ops are the
//! specification; a differential test, `tests/differential.rs`, runs every corpus kernel
//! and random kernels, loops and runaway loops included, all ways and compares every
//! architectural bit).
//!
//! What the JIT covers:
//! * on F operands, 4 lanes at a time (so with 4, 8, 16 or 32 channels): `mov`, `add`,
//!   `mul`, `mad`, `lrp`, `sel`, `cmp`, `cmpn`, `rndd`/`rndu`/`rnde`/`rndz`, `frc`, `pln`
//!   and the float `math` functions (inv, sqrt, rsq and fdiv inline, the others a call
//!   per four lanes to the function the interpreter uses), saturation and conversion to
//!   D or UD destinations included; where the code runs with DAZ on, a denormal is
//!   flushed by comparing it with zero, which DAZ reads it as;
//! * on D/UD/W/UW registers and integer immediates: `mov`, `add`, `mul` (channel by
//!   channel, its whole products also written to the accumulator as the micro-ops do),
//!   `not`, `and`, `or`,
//!   `xor`, `shl`, `shr`, `asr`, `sel`, `cmp`, `cmpn`, 4 lanes of 32 bits at a time where
//!   those compute the bits of the micro-ops' i64 model (`emit::int_lanes`: D/UD
//!   operands, shifts by one count, comparisons of like-signed unmodified sources),
//!   otherwise channel by channel, which is also how they convert to an F destination
//!   and store into a W or UW one;
//! * any region, the null destination, align16 write masks, normal predication and
//!   predicated `sel`, condition modifiers and flag writes;
//! * `nop`, and the structured branches above with no or normal predication whose
//!   targets are instructions of the program or its end.
//!
//! Sends and the other non-branch instructions (integer `math`, integer saturation,
//! accumulator writes, `mach`, other predicate controls, other types) are
//! *called*: compiled code hands each to the interpreter ([`interpret`], which runs it
//! exactly as the interpreter's loop would) and goes on after it without leaving the
//! compiled function, so a kernel's messages, render target writes included, no longer
//! cost a return to the interpreter and a re-entry. A called send that ends the thread,
//! or a called instruction that fails, stops compiled code there with the interpreter's
//! counts. `call`/`ret`/`jmpi` and branches compiled code cannot follow return to the
//! interpreter at that instruction, which re-enters compiled code at the next block.
//! Compiled code is entered only at a block's start, in IEEE mode (in the alternative
//! mode every instruction is interpreted), when the instruction budget covers the block;
//! a block the budget does not cover returns to the interpreter, which reports the
//! runaway thread where it always did. `GTSIM_JIT=0` turns the JIT off (and
//! [`crate::exec::Program::set_jit`] per program). For looking at the generated code,
//! `GTSIM_JIT_CLIF=1` prints each function compiled as Cranelift IR and `GTSIM_JIT_ASM=1`
//! as host instructions, on standard error.

pub(crate) mod cache;
mod code;
mod emit;
mod flow;
mod fpenv;

use crate::exec::{ExecError, Flow, Program, SharedFunctions, Thread};
use flow::{ProgramFn, State};

use cranelift_codegen::ir::{AbiParam, types};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

/// A compiled program: its function and the blocks it may be entered at.
pub(crate) struct Compiled {
    /// The machine code `f` points into.
    code: Option<code::HostCode>,
    f: Option<ProgramFn>,
    /// By 8-byte slot: the number of instructions of the block starting there (0: no
    /// block starts there).
    entries: Vec<u32>,
    /// The instructions channels may wait for ([`flow::Layout::targets`]).
    targets: Vec<usize>,
    covered: usize,
    /// Whether the code relies on the host reading denormal sources as zero
    /// (`fpenv`); it then runs with DAZ set.
    daz: bool,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("covered", &self.covered)
            .field("targets", &self.targets.len())
            .finish()
    }
}

impl Compiled {
    /// The number of instructions of the compiled block starting at byte `ip`, if one
    /// does.
    pub(crate) fn block_len(&self, ip: usize) -> Option<u64> {
        if !ip.is_multiple_of(8) {
            return None;
        }
        match self.entries.get(ip / 8) {
            Some(&n) if n > 0 => Some(u64::from(n)),
            _ => None,
        }
    }

    /// Number of instructions compiled.
    pub(crate) fn covered(&self) -> usize {
        self.covered
    }

    /// Runs the thread's compiled code from the block at its IP (the caller has checked
    /// [`Compiled::block_len`] against the budget) until an instruction it leaves to the
    /// interpreter, the end of the program, a block the budget does not cover, or a
    /// called instruction that ends the thread or fails; the thread's IP is then where
    /// the interpreter goes on (or the instruction that ended or failed). `prog` and
    /// `sf` run the called instructions ([`interpret`]).
    pub(crate) fn run(
        &self,
        t: &mut Thread,
        prog: &Program,
        sf: &mut dyn SharedFunctions,
        executed: &mut u64,
        budget: u64,
    ) -> Ran {
        let Some(f) = self.f else {
            return Ran::No;
        };
        if t.grf.len() != 128 * 32 {
            return Ran::No;
        }
        let n = self.targets.len();
        let mut small = [0u32; 64];
        let mut big = vec![];
        let wait: &mut [u32] = if n <= small.len() {
            &mut small[..n]
        } else {
            big.resize(n, 0);
            &mut big
        };
        let entry_parked = t.parked;
        let mut parked = t.parked;
        while parked != 0 {
            let c = parked.trailing_zeros() as usize;
            parked &= parked - 1;
            match t.waiting[c].and_then(|at| self.targets.binary_search(&at).ok()) {
                Some(i) => wait[i] |= 1 << c,
                None => return Ran::No,
            }
        }
        let mut state = State {
            dispatch: t.dispatch_mask,
            parked: t.parked,
            broken: t.broken,
            entry: (t.ip / 8) as u32,
            executed: *executed,
            budget,
            channels: 0,
        };
        let thread: *mut Thread = t;
        // SAFETY: `thread` comes from `t`, which nothing else uses until the call returns.
        let (grf, flags, acc) = unsafe {
            (
                (*thread).grf.as_mut_ptr(),
                (*thread).flags.as_mut_ptr(),
                (*thread).acc[0].as_mut_ptr(),
            )
        };
        let mut calls = Calls {
            thread,
            prog,
            sf,
            stop: None,
        };
        // SAFETY: the function reads and writes only `state`, the `n` wait masks, the
        // 4 KiB register file (checked above; every offset was checked against it when
        // the micro-ops were made), the two flag registers and the 16 channels of the
        // first accumulator (whole `Acc` values, in their fixed layout), and passes
        // `calls` to `interpret`, which changes the thread's registers but never moves or
        // frees them.
        let ip = fpenv::with_daz(self.daz, || unsafe {
            f(&mut state, wait.as_mut_ptr(), grf, flags, &mut calls, acc)
        });
        let stop = calls.stop.take();
        // A channel waits (has a `waiting` entry, or a bit in a wait mask) exactly when
        // it is parked, so without parked channels on entry or exit there is nothing
        // to convert back (`t.parked` itself may have been changed by called
        // instructions, see `Thread::run_called`).
        if entry_parked | state.parked != 0 {
            t.waiting = [None; 32];
            for (i, &w) in wait.iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    let c = w.trailing_zeros() as usize;
                    w &= w - 1;
                    t.waiting[c] = Some(self.targets[i]);
                }
            }
        }
        t.parked = state.parked;
        t.broken = state.broken;
        t.refresh_wait_bloom();
        t.channel_instructions += state.channels;
        *executed = state.executed;
        t.ip = ip as usize;
        match stop {
            None => Ran::Yes,
            Some(Ok(())) => Ran::Ended,
            Some(Err(e)) => Ran::Failed(e),
        }
    }
}

/// How a run of compiled code ended ([`Compiled::run`]).
#[derive(Debug)]
pub(crate) enum Ran {
    /// Nothing ran: a channel waits for an instruction that is no target of the
    /// program, or there is no code.
    No,
    /// It ran; the interpreter goes on at the thread's IP.
    Yes,
    /// A called send ended the thread (End Of Thread).
    Ended,
    /// A called instruction failed.
    Failed(ExecError),
}

/// What compiled code runs its called instructions with ([`interpret`]): the thread, its
/// program and shared functions, and, once a call ends the thread (`Ok`) or fails, how.
pub(crate) struct Calls<'a> {
    thread: *mut Thread,
    prog: &'a Program,
    sf: &'a mut dyn SharedFunctions,
    stop: Option<Result<(), ExecError>>,
}

/// What compiled code calls for an instruction it leaves to the interpreter (a send, or
/// one it does not compute; `flow::Treat::Call`): runs the instruction at byte `ip`
/// with `parked` the channels waiting in control flow (`Thread::run_called`). 0: go on
/// after it; 1: stop there, the thread ended or failed (`Calls::stop`). A panic is
/// caught here (it must not unwind through compiled code) and reported as a failure.
extern "C" fn interpret(calls: *mut Calls<'_>, ip: u32, parked: u32) -> u32 {
    // SAFETY: compiled code passes on the pointer `Compiled::run` gave it, to a `Calls`
    // that outlives the call, and runs nothing else meanwhile.
    let calls = unsafe { &mut *calls };
    // SAFETY: the thread `Compiled::run` was given; compiled code does not touch it
    // during the call.
    let t = unsafe { &mut *calls.thread };
    let (prog, sf) = (calls.prog, &mut *calls.sf);
    let ip = ip as usize;
    let ran = fpenv::outside(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            t.run_called(prog, ip, parked, sf)
        }))
    });
    let stop = match ran {
        Ok(Ok(Flow::Next)) => return 0,
        Ok(Ok(Flow::End)) => Ok(()),
        Ok(Ok(Flow::Jump(to))) => Err(ExecError::Invalid {
            ip,
            msg: format!("a called instruction jumped (to {to:#x})"),
        }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(ExecError::Invalid {
            ip,
            msg: "internal error: the interpreter panicked on this instruction".into(),
        }),
    };
    calls.stop = Some(stop);
    1
}

/// Whether the JIT is on by default (`GTSIM_JIT=0` turns it off).
pub(crate) fn enabled_by_default() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| !matches!(std::env::var("GTSIM_JIT").as_deref(), Ok("0")))
}

/// How hard the code generator works on a program: the JIT's two tiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quality {
    /// Compiled soon, quickly: the single-pass register allocator, no optimizer.
    Quick,
    /// For programs that run long: Cranelift's backtracking register allocator and its
    /// optimizer. On the Julia-set frame its code executes 37-42% fewer host instructions
    /// than the quick tier's, for twice to three times the compile time
    /// (BENCHMARKS.md).
    Optimized,
}

/// The host's code generator for `quality`, set up once each. The quick tier's generated
/// code is plain arithmetic whose constants and repeated sources the front end already
/// shares, so the IR verifier and the optimizer (`opt_level` "none") are off and the
/// single-pass register allocator serves: together they cut the corpus's compile time
/// from 1.1 s to under 0.06 s. That allocator keeps few values in registers (constants
/// and the register file's address are reloaded from the stack at each use), which the
/// optimized tier's backtracking allocator does not.
fn host_isa(quality: Quality) -> Option<std::sync::Arc<dyn cranelift_codegen::isa::TargetIsa>> {
    type Isa = Option<std::sync::Arc<dyn cranelift_codegen::isa::TargetIsa>>;
    static QUICK: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
    static OPTIMIZED: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
    let (cell, opt, regalloc) = match quality {
        Quality::Quick => (&QUICK, "none", "single_pass"),
        Quality::Optimized => (&OPTIMIZED, "speed", "backtracking"),
    };
    cell.get_or_init(|| {
        let mut flags = settings::builder();
        flags.set("opt_level", opt).ok()?;
        flags.set("enable_verifier", "false").ok()?;
        flags.set("regalloc_algorithm", regalloc).ok()?;
        // Every frame larger than a page touches its pages in order (inline probes), so a
        // host thread stack too small for it ends at the guard page rather than writing
        // past it into other memory.
        flags.set("enable_probestack", "true").ok()?;
        flags.set("probestack_strategy", "inline").ok()?;
        cranelift_native::builder()
            .ok()?
            .finish(settings::Flags::new(flags))
            .ok()
    })
    .clone()
}

/// The most instructions a program may have to be compiled; longer ones run
/// interpreted. A compiled program is one host function whose stack frame grows with its
/// length (the quick tier's allocator keeps values in stack slots): Mesa's softfp64 lowering
/// of a dmat4 inverse on Ice Lake (86,827 SIMD8 instructions, piglit
/// `fs-inverse-dmat4`) needed a frame larger than a 2 MiB host thread stack and, run on
/// one, wrote past it. Programs this long run seconds per thread anyway; at this bound
/// the frame stays well inside any host thread's stack, and the stack probes
/// ([`host_isa`]) catch what might not.
pub(crate) const MAX_INSTRUCTIONS: usize = 16_384;

/// Where [`compile`] may take a program's code from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    /// Compile it (reading and filling the disk cache, if one is given).
    Compile(Option<&'a cache::DiskCache>),
    /// Only load it from the disk cache: `None` when it is not there.
    CacheOnly(&'a cache::DiskCache),
}

/// Compiles a program given as (byte offset, instruction, length, micro-op) in order,
/// or loads its code from the disk cache (`cache`): `program` is its instructions'
/// bytes and `encoding` their encoding (the cache's key). `None` when the host has no
/// Cranelift backend, or the code could not be loaded; the program then runs
/// interpreted. With [`Source::CacheOnly`], also `None` when the cache does not have it.
pub(crate) fn compile(
    code: &flow::Code,
    quality: Quality,
    program: &[u8],
    encoding: &str,
    source: Source<'_>,
) -> Option<Compiled> {
    if code.len() > MAX_INSTRUCTIONS {
        return None;
    }
    let isa = host_isa(quality)?;
    let host_daz = fpenv::available();
    let disk = match source {
        Source::Compile(c) => c,
        Source::CacheOnly(c) => Some(c),
    };
    let key = disk.map(|_| {
        cache::Key::new(
            program,
            encoding,
            quality,
            &isa_description(&*isa),
            host_daz,
        )
    });
    let cached = disk
        .zip(key.as_ref())
        .and_then(|(c, k)| c.lookup(k, quality));
    if cached.is_none() && matches!(source, Source::CacheOnly(_)) {
        return None;
    }
    let end = code.last().map_or(0, |c| c.0 + c.2);
    let layout = flow::Layout::new(code, end);
    // The entry table covers the decoded instructions (not the rest of the code buffer,
    // which may be the driver's whole instruction heap).
    let slots = end.div_ceil(8);
    let mut out = Compiled {
        code: None,
        f: None,
        entries: vec![0; slots],
        targets: layout.targets.clone(),
        covered: layout.covered(),
        daz: host_daz && layout.relies_on_daz(),
    };
    if layout.blocks.is_empty() {
        return Some(out);
    }
    let machine = match cached {
        Some(m) => m,
        None => {
            let m = generate(&layout, slots, &*isa, out.daz)?;
            if let (Some(c), Some(k)) = (disk, &key) {
                c.store(k, quality, &m);
            }
            m
        }
    };
    let host = code::HostCode::load(&machine)?;
    // SAFETY: the code is `flow::program`'s function (generated now, or by this very
    // build for these instructions, tier and host: the cache's key), with exactly this
    // signature (six pointers, an i32 result, the host's C convention), and its
    // relocations now hold this process's addresses.
    out.f = Some(unsafe { std::mem::transmute::<*const u8, ProgramFn>(host.entry()) });
    out.code = Some(host);
    for blk in &layout.blocks {
        if let Some(e) = out.entries.get_mut(blk.start / 8) {
            *e = blk.len() as u32;
        }
    }
    Some(out)
}

/// What the generated code depends on in the code generator: its target, settings and
/// the host's CPU features it may use.
fn isa_description(isa: &dyn cranelift_codegen::isa::TargetIsa) -> String {
    let features: Vec<String> = isa.isa_flags().iter().map(ToString::to_string).collect();
    format!("{} {} [{}]", isa.triple(), isa.flags(), features.join(" "))
}

/// The machine code of the program laid out as `layout` (`slots` 8-byte slots long):
/// `flow::program`'s function compiled by `isa`, with its references to the helpers it
/// calls as relocations. `None` when Cranelift fails or refers to something else.
fn generate(
    layout: &flow::Layout,
    slots: usize,
    isa: &dyn cranelift_codegen::isa::TargetIsa,
    daz: bool,
) -> Option<code::MachineCode> {
    use cranelift_codegen::ir::{
        ExtFuncData, ExternalName, Function, Signature, UserExternalName, UserFuncName,
    };
    let ptr = isa.pointer_type();
    let call_conv = isa.default_call_conv();
    let mut func =
        Function::with_name_signature(UserFuncName::user(0, 0), Signature::new(call_conv));
    for _ in 0..6 {
        func.signature.params.push(AbiParam::new(ptr));
    }
    func.signature.returns.push(AbiParam::new(types::I32));
    // The helpers, as user functions 0, 1 and 2 (`code::Target`'s numbers).
    let import = |func: &mut Function,
                  target: code::Target,
                  params: &[types::Type],
                  ret: Option<types::Type>| {
        let mut sig = Signature::new(call_conv);
        sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        sig.returns.extend(ret.map(AbiParam::new));
        let signature = func.import_signature(sig);
        let name = func.declare_imported_user_function(UserExternalName::new(0, target as u32));
        func.import_function(ExtFuncData {
            name: ExternalName::user(name),
            signature,
            colocated: false,
            patchable: false,
        })
    };
    // The math helper: (function code, four lanes' sources and results) -> ().
    let math = import(&mut func, code::Target::Math, &[types::I32, ptr], None);
    // The interpreter for called instructions: (calls, ip, parked) -> status.
    let interpret = import(
        &mut func,
        code::Target::Interpret,
        &[ptr, types::I32, types::I32],
        Some(types::I32),
    );
    // DAZ on or off: (on) -> ().
    let set_daz = import(&mut func, code::Target::SetDaz, &[types::I32], None);
    let imports = flow::Imports {
        math,
        interpret,
        set_daz,
        daz,
        ptr,
    };
    let mut ctx = cranelift_codegen::Context::for_function(func);
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        flow::program(&mut b, layout, slots, imports);
        b.finalize(isa.frontend_config());
    }
    if std::env::var_os("GTSIM_JIT_CLIF").is_some() {
        tracing::info!(target: "gtsim_eu::jit", "{}", ctx.func.display());
    }
    let asm = std::env::var_os("GTSIM_JIT_ASM").is_some();
    ctx.set_disasm(asm);
    ctx.compile(
        isa,
        &mut cranelift_codegen::control::ControlPlane::default(),
    )
    .ok()?;
    let compiled = ctx.compiled_code()?;
    if asm && let Some(text) = &compiled.vcode {
        tracing::info!(target: "gtsim_eu::jit", "{text}");
    }
    let names = ctx.func.params.user_named_funcs();
    let relocs = compiled
        .buffer
        .relocs()
        .iter()
        .map(|r| {
            use cranelift_codegen::FinalizedRelocTarget as T;
            let target = match &r.target {
                T::ExternalName(ExternalName::User(n)) => {
                    code::Target::from_u8(u8::try_from(names.get(*n)?.index).ok()?).filter(|t| {
                        matches!(
                            t,
                            code::Target::Math | code::Target::Interpret | code::Target::SetDaz
                        )
                    })?
                }
                T::ExternalName(ExternalName::LibCall(l)) => code::Target::from_libcall(*l)?,
                _ => return None,
            };
            Some(code::Reloc {
                offset: r.offset,
                kind: code::Kind::from_cranelift(r.kind)?,
                target,
                addend: r.addend,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(code::MachineCode {
        bytes: compiled.code_buffer().to_vec(),
        relocs,
    })
}

/// When a program gets compiled: the JIT's tiering. Compiling costs about 0.1 ms per
/// instruction (the 47-instruction Julia-set kernel compiles in 4-5 ms), several hundred
/// interpretations of it, so a program is compiled ([`Quality::Quick`]) once the
/// instructions its threads have executed reach [`Tier::REPAY`] times its length; a
/// kernel run by a handful of threads stays interpreted. A program that goes on to
/// execute [`Tier::OPTIMIZE`] times as much again, and whose quick code computes at
/// least half of its instructions in place, is compiled a second time
/// ([`Quality::Optimized`]), and threads started after that run the optimized code.
/// Both compilations have the same blocks and entries, and a thread keeps the code it
/// started with. Threads that find the program hot while another thread compiles it go
/// on with what they have; the results are the same bits either way.
pub(crate) struct Tier {
    compiled: std::sync::OnceLock<Option<Compiled>>,
    /// Set by the thread that compiles.
    compiling: std::sync::atomic::AtomicBool,
    optimized: std::sync::OnceLock<Option<Compiled>>,
    /// Set by the thread that compiles the optimized code.
    optimizing: std::sync::atomic::AtomicBool,
    executed: std::sync::atomic::AtomicU64,
    threshold: u64,
    /// The program's decoded instructions.
    instructions: u64,
    /// Set once a thread has looked for the program in the disk cache.
    looked: std::sync::atomic::AtomicBool,
    /// Set when the disk cache had the program's quick code only: it was hot in an
    /// earlier process, so it is optimized as soon as it is hot in this one.
    hot_before: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tier")
            .field("compiled", &self.compiled.get())
            .field("optimized", &self.optimized.get())
            .field("threshold", &self.threshold)
            .finish()
    }
}

impl Tier {
    /// Executed instructions, per instruction of the program, before it is compiled.
    pub(crate) const REPAY: u64 = 500;

    /// How many times [`Tier::REPAY`] a program executes before it is compiled again,
    /// optimized: the optimized compile costs two to three quick ones, and pays back
    /// only on programs that run long.
    pub(crate) const OPTIMIZE: u64 = 20;

    /// The tier of a program of `instructions` decoded instructions.
    pub(crate) fn new(instructions: u64) -> Tier {
        Tier {
            compiled: std::sync::OnceLock::new(),
            compiling: std::sync::atomic::AtomicBool::new(false),
            optimized: std::sync::OnceLock::new(),
            optimizing: std::sync::atomic::AtomicBool::new(false),
            executed: std::sync::atomic::AtomicU64::new(0),
            threshold: instructions.max(1).saturating_mul(Self::REPAY),
            instructions,
            looked: std::sync::atomic::AtomicBool::new(false),
            hot_before: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// `true` for the first caller only: the thread that looks for the program in the
    /// disk cache.
    pub(crate) fn first_look(&self) -> bool {
        !self.looked.load(std::sync::atomic::Ordering::Relaxed)
            && !self.looked.swap(true, std::sync::atomic::Ordering::AcqRel)
    }

    /// Takes code found in the disk cache as the program's code at `quality`, unless the
    /// program has some there already (then `c` is dropped: the same bits either way).
    /// Quick code offered this way marks the program as hot in an earlier process.
    pub(crate) fn offer(&self, quality: Quality, c: Compiled) {
        let cell = match quality {
            Quality::Quick => {
                self.hot_before
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                &self.compiled
            }
            Quality::Optimized => &self.optimized,
        };
        let _ = cell.set(Some(c));
    }

    /// The best compiled program, if compiled (and compilable): the optimized one once
    /// there is one.
    pub(crate) fn get(&self) -> Option<&Compiled> {
        self.optimized
            .get()
            .and_then(Option::as_ref)
            .or_else(|| self.compiled.get().and_then(Option::as_ref))
    }

    /// The program compiled at `quality`, compiling it with `f` if nobody has started
    /// to. While another thread compiles it, `None`: the caller goes on with what it has
    /// rather than wait (the bits are the same either way).
    pub(crate) fn get_or_compile(
        &self,
        quality: Quality,
        f: impl FnOnce() -> Option<Compiled>,
    ) -> Option<&Compiled> {
        let (cell, flag) = match quality {
            Quality::Quick => (&self.compiled, &self.compiling),
            Quality::Optimized => (&self.optimized, &self.optimizing),
        };
        if let Some(c) = cell.get() {
            return c.as_ref();
        }
        if flag.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return None;
        }
        let _ = cell.set(f());
        cell.get().and_then(Option::as_ref)
    }

    /// Whether the optimized code exists.
    pub(crate) fn optimized(&self) -> bool {
        self.optimized.get().is_some_and(Option::is_some)
    }

    /// Whether enough has been executed to compile.
    pub(crate) fn hot(&self) -> bool {
        self.executed.load(std::sync::atomic::Ordering::Relaxed) >= self.threshold
    }

    /// Whether enough has been executed to compile again, optimized, nobody has started
    /// to, and the quick code computes at least half of the program's instructions in
    /// place: the optimizer improves compiled code, and a program whose instructions are
    /// mostly called (double precision, say) would pay for an expensive compile of its
    /// many calls for little. Enough is [`Tier::OPTIMIZE`] times the quick threshold, or
    /// the quick threshold itself for a program that was hot in an earlier process (its
    /// quick code came from the disk cache): programs run again and again (a client's
    /// kernels, the driver's clears and blits) reach optimized code from the disk cache
    /// by their third process even when no single process runs them long.
    pub(crate) fn wants_optimizing(&self) -> bool {
        let enough = if self.hot_before.load(std::sync::atomic::Ordering::Relaxed) {
            self.threshold
        } else {
            self.threshold.saturating_mul(Self::OPTIMIZE)
        };
        self.compiled
            .get()
            .and_then(Option::as_ref)
            .is_some_and(|c| c.covered() as u64 * 2 >= self.instructions)
            && self.optimized.get().is_none()
            && !self.optimizing.load(std::sync::atomic::Ordering::Relaxed)
            && self.executed.load(std::sync::atomic::Ordering::Relaxed) >= enough
    }

    /// Counts a thread's executed instructions.
    pub(crate) fn ran(&self, n: u64) {
        if self.optimized.get().is_none() {
            self.executed
                .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
    }
}
