//! Structured control flow in compiled code: a program's covered instructions become one
//! host function whose basic blocks branch the way `exec::Thread::branch` moves the
//! threads' channels, so loops and `if`/`else` run without leaving compiled code.
//!
//! The interpreter keeps, per channel, the instruction it waits for (`Thread::waiting`).
//! Every such instruction is a static target of a branch of the program (a JIP, a UIP,
//! or the instruction after the branch: `if`, `else`, `break`, `cont`, `halt`, `while`
//! and `call` wait there and nowhere else), so compiled code keeps the same state as one
//! channel mask per target ([`Layout::targets`]), converted on entry and exit by
//! `Compiled::run`. Waking the channels that wait for an instruction is then one mask
//! operation at the start of each block that is a target. The parked and broken masks,
//! the instruction count and the channel-instruction count live in registers.
//!
//! A block is entered only at its first instruction. Before its instructions it checks
//! the instruction budget (a block that would overrun it returns to the interpreter at
//! its start, which reports the runaway thread at the same instruction it always did);
//! then the wake-up, then the counts, then the instructions, then its branch. Sends and
//! the instructions the JIT does not compute are called: compiled code hands them to
//! the interpreter (`super::interpret`) and goes on after them, inside the block. What
//! it cannot take over (`jmpi`, rarer branches, branches whose targets are not
//! instructions of the program) returns to the interpreter at that instruction, with
//! every channel's state where the interpreter expects it, and the interpreter re-enters
//! compiled code at the next block.

use super::emit::{self, Emit};
use crate::uop::Uop;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    BlockArg, FuncRef, InstBuilder, JumpTableData, MemFlagsData, Value, types,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use gtsim_isa::ir::*;
use gtsim_isa::opcode::{Kind, Opcode};
use std::collections::{BTreeMap, BTreeSet};

/// What compiled code shares with `Compiled::run` besides the registers and the wait
/// masks.
#[repr(C)]
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Dispatched channels.
    pub(crate) dispatch: u32,
    /// Channels waiting in control flow (`Thread::parked`).
    pub(crate) parked: u32,
    /// Channels that left a loop by `break` (`Thread::broken`).
    pub(crate) broken: u32,
    /// The 8-byte slot of the instruction to start at.
    pub(crate) entry: u32,
    /// Instructions executed by the thread so far.
    pub(crate) executed: u64,
    /// The thread's instruction budget.
    pub(crate) budget: u64,
    /// Channel-instructions executed by compiled code (added to the thread's count).
    pub(crate) channels: u64,
}

/// A compiled program: `f(state, wait, grf, flags, calls, acc)` runs from `state.entry`
/// and returns the byte offset where the interpreter goes on; `wait` holds one channel
/// mask per target of [`Layout::targets`]; `calls` is what the instructions it leaves to
/// the interpreter are run with (`super::Calls`, passed on to `super::interpret`); `acc`
/// is the thread's first accumulator (16 channels), which integer `mul` writes.
pub(crate) type ProgramFn = unsafe extern "C" fn(
    *mut State,
    *mut u32,
    *mut u8,
    *mut u32,
    *mut super::Calls,
    *mut crate::region::Acc,
) -> u32;

/// The instructions of one decoded program: (byte offset, instruction, length, micro-op).
pub(crate) type Code<'a> = [(usize, &'a Instruction, usize, Option<&'a Uop>)];

/// How compiled code treats an instruction.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Treat {
    /// Computed in place (a covered micro-op, or `nop`).
    Inline,
    /// Run by the interpreter from compiled code (`super::interpret`): a send or an
    /// instruction the JIT does not compute; it stays inside its block.
    Call,
    /// A branch compiled as control flow; it ends its block.
    Branch,
    /// Left to the interpreter: compiled code returns there.
    Exit,
}

/// A basic block: instructions computed in place, the last one possibly a branch.
pub(crate) struct Block<'a> {
    /// Byte offset of its first instruction.
    pub(crate) start: usize,
    /// Its instructions, in order, each with whether it is called (`Treat::Call`).
    items: Vec<(usize, &'a Instruction, usize, Option<&'a Uop>, bool)>,
    /// Byte offset just past its last instruction.
    after: usize,
}

impl Block<'_> {
    /// Number of instructions.
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }
}

/// The blocks of a program and the instructions channels may wait for.
pub(crate) struct Layout<'a> {
    /// Every instruction a channel may wait for (sorted byte offsets).
    pub(crate) targets: Vec<usize>,
    /// The compiled blocks, in program order.
    pub(crate) blocks: Vec<Block<'a>>,
}

/// A branch target: `at` plus the relative offset (a missing one is 0, as the
/// interpreter takes it).
fn target(at: usize, rel: Option<i32>) -> Option<usize> {
    usize::try_from(at as i64 + i64::from(rel.unwrap_or(0))).ok()
}

/// Whether a branch's predicate is one compiled code reads (none, or normal).
fn plain_predicate(ins: &Instruction) -> bool {
    ins.predicate.is_none_or(|p| {
        matches!(
            p.control,
            PredControl::Align1(Align1Predicate::Normal)
                | PredControl::Align16(Align16Predicate::Normal)
        )
    })
}

impl<'a> Layout<'a> {
    /// Splits `code` (a program of `len` bytes) into blocks.
    pub(crate) fn new(code: &'a Code<'a>, len: usize) -> Layout<'a> {
        let starts_at: BTreeSet<usize> = code.iter().map(|c| c.0).collect();
        // A target compiled code can go to: an instruction of the program, or its end.
        let landing = |ip: Option<usize>| ip.is_some_and(|ip| ip == len || starts_at.contains(&ip));
        let mut targets = BTreeSet::new();
        let mut treat = Vec::with_capacity(code.len());
        for &(at, ins, n, uop) in code {
            let next = at + n;
            let t = if ins.opcode.kind() == Kind::Branch {
                let (jip, uip) = (target(at, ins.jip), target(at, ins.uip));
                for ip in [jip, uip, Some(next)].into_iter().flatten() {
                    if ip <= len {
                        targets.insert(ip);
                    }
                }
                let lands = match ins.opcode {
                    Opcode::If | Opcode::Else | Opcode::While | Opcode::Endif => landing(jip),
                    Opcode::Break | Opcode::Cont | Opcode::Halt => landing(jip) && landing(uip),
                    _ => false,
                };
                if lands && plain_predicate(ins) && landing(Some(next)) {
                    Treat::Branch
                } else {
                    Treat::Exit
                }
            } else if ins.opcode == Opcode::Nop || uop.is_some_and(|u| emit::covers(ins, u)) {
                Treat::Inline
            } else if ins.opcode == Opcode::Jmpi {
                // It moves the IP for all channels: the interpreter's.
                Treat::Exit
            } else {
                // Every other non-branch instruction writes only registers (the GRF,
                // flags, accumulators, a0) and talks to shared functions: the
                // interpreter runs it without leaving compiled code.
                Treat::Call
            };
            treat.push(t);
        }
        // Blocks start at the first instruction, at every target, and after every
        // branch and every instruction left to the interpreter.
        let mut starts: BTreeSet<usize> = targets.clone();
        starts.extend(code.first().map(|c| c.0));
        for (&(at, _, n, _), &t) in code.iter().zip(&treat) {
            if matches!(t, Treat::Branch | Treat::Exit) {
                starts.insert(at + n);
            }
        }
        let mut blocks = vec![];
        let mut cur: Option<Block> = None;
        let mut next_at = 0;
        for (&item, &t) in code.iter().zip(&treat) {
            let (at, _, n, _) = item;
            if starts.contains(&at) || at != next_at {
                blocks.extend(cur.take());
            }
            next_at = at + n;
            if t == Treat::Exit {
                blocks.extend(cur.take());
                continue;
            }
            let b = cur.get_or_insert_with(|| Block {
                start: at,
                items: vec![],
                after: at,
            });
            b.items
                .push((item.0, item.1, item.2, item.3, t == Treat::Call));
            b.after = at + n;
            if t == Treat::Branch {
                blocks.extend(cur.take());
            }
        }
        blocks.extend(cur);
        Layout {
            targets: targets.into_iter().collect(),
            blocks,
        }
    }

    /// Whether some instruction computed in place reads its float sources through the
    /// host's DAZ (`emit::relies_on_daz`): only then does the program run with it.
    pub(crate) fn relies_on_daz(&self) -> bool {
        self.blocks
            .iter()
            .flat_map(|b| &b.items)
            .any(|i| !i.4 && i.3.is_some_and(emit::relies_on_daz))
    }

    /// Number of instructions compiled in place (not called).
    pub(crate) fn covered(&self) -> usize {
        self.blocks
            .iter()
            .flat_map(|b| &b.items)
            .filter(|i| !i.4)
            .count()
    }
}

fn mem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// The function's registers of control-flow state.
struct Vars {
    parked: Variable,
    broken: Variable,
    executed: Variable,
    channels: Variable,
}

struct Builder<'l> {
    layout: &'l Layout<'l>,
    wait: Value,
    grf: Value,
    flags: Value,
    acc: Value,
    dispatch: Value,
    budget: Value,
    vars: Vars,
    /// The host block of each compiled block, by its first instruction's byte offset.
    blocks: BTreeMap<usize, cranelift_codegen::ir::Block>,
    exit: cranelift_codegen::ir::Block,
    math: FuncRef,
    /// `super::interpret`, and the `Calls` pointer passed to it.
    interpret: FuncRef,
    /// `super::fpenv::set_daz`.
    set_daz: FuncRef,
    daz: bool,
    ptr: cranelift_codegen::ir::Type,
    calls: Value,
}

/// What a program's function is built with: the helpers it calls (imported into it),
/// whether it runs with DAZ, and the host's pointer type.
pub(crate) struct Imports {
    /// `emit::math_helper`.
    pub(crate) math: FuncRef,
    /// `super::interpret`.
    pub(crate) interpret: FuncRef,
    /// `super::fpenv::set_daz`.
    pub(crate) set_daz: FuncRef,
    /// Whether the code runs with DAZ (`super::fpenv`): `Layout::relies_on_daz` on a
    /// host that has it.
    pub(crate) daz: bool,
    /// The host's pointer type.
    pub(crate) ptr: cranelift_codegen::ir::Type,
}

/// Builds the whole program's function into `b` (see [`ProgramFn`]); `slots` is the
/// number of 8-byte slots of the program.
pub(crate) fn program(b: &mut FunctionBuilder, layout: &Layout, slots: usize, imports: Imports) {
    let Imports {
        math,
        interpret,
        set_daz,
        daz,
        ptr,
    } = imports;
    emit::clear_constants();
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (state, wait, grf, flags, calls, acc) = (p[0], p[1], p[2], p[3], p[4], p[5]);
    let field =
        |b: &mut FunctionBuilder, ty, off: usize| b.ins().load(ty, mem(), state, off as i32);
    let dispatch = field(b, types::I32, std::mem::offset_of!(State, dispatch));
    let parked0 = field(b, types::I32, std::mem::offset_of!(State, parked));
    let broken0 = field(b, types::I32, std::mem::offset_of!(State, broken));
    let slot = field(b, types::I32, std::mem::offset_of!(State, entry));
    let executed0 = field(b, types::I64, std::mem::offset_of!(State, executed));
    let budget = field(b, types::I64, std::mem::offset_of!(State, budget));
    let vars = Vars {
        parked: b.declare_var(types::I32),
        broken: b.declare_var(types::I32),
        executed: b.declare_var(types::I64),
        channels: b.declare_var(types::I64),
    };
    b.def_var(vars.parked, parked0);
    b.def_var(vars.broken, broken0);
    b.def_var(vars.executed, executed0);
    let zero = b.ins().iconst(types::I64, 0);
    b.def_var(vars.channels, zero);
    let exit = b.create_block();
    b.append_block_param(exit, types::I32);
    let blocks: BTreeMap<usize, _> = layout
        .blocks
        .iter()
        .map(|blk| (blk.start, b.create_block()))
        .collect();
    // Enter at the block of the entry slot; any other slot returns there at once.
    let bad = b.create_block();
    let default = b.func.dfg.block_call(bad, &[]);
    let table: Vec<_> = (0..slots)
        .map(|s| match blocks.get(&(s * 8)) {
            Some(&blk) => b.func.dfg.block_call(blk, &[]),
            None => default,
        })
        .collect();
    let jt = b.create_jump_table(JumpTableData::new(default, &table));
    b.ins().br_table(slot, jt);
    b.switch_to_block(bad);
    let ip = b.ins().imul_imm_u(slot, 8);
    b.ins().jump(exit, &[BlockArg::Value(ip)]);
    let mut f = Builder {
        layout,
        wait,
        grf,
        flags,
        acc,
        dispatch,
        budget,
        vars,
        blocks,
        exit,
        math,
        interpret,
        set_daz,
        daz,
        ptr,
        calls,
    };
    for blk in &layout.blocks {
        f.block(b, blk);
    }
    // The exit: the state back for the interpreter.
    b.switch_to_block(exit);
    let ip = b.block_params(exit)[0];
    let store = |b: &mut FunctionBuilder, v: Variable, off: usize| {
        let x = b.use_var(v);
        b.ins().store(mem(), x, state, off as i32);
    };
    store(b, f.vars.parked, std::mem::offset_of!(State, parked));
    store(b, f.vars.broken, std::mem::offset_of!(State, broken));
    store(b, f.vars.executed, std::mem::offset_of!(State, executed));
    store(b, f.vars.channels, std::mem::offset_of!(State, channels));
    b.ins().return_(&[ip]);
    b.seal_all_blocks();
    emit::clear_constants();
}

impl Builder<'_> {
    /// Goes on at byte `ip`: its block, or the interpreter.
    fn goto(&self, b: &mut FunctionBuilder, ip: usize) {
        match self.blocks.get(&ip) {
            Some(&blk) => {
                b.ins().jump(blk, &[]);
            }
            None => {
                let v = b.ins().iconst(types::I32, ip as i64);
                b.ins().jump(self.exit, &[BlockArg::Value(v)]);
            }
        }
    }

    /// `cond != 0` goes on at `yes`, otherwise at `no`.
    fn branch_to(&self, b: &mut FunctionBuilder, cond: Value, yes: usize, no: usize) {
        let y = b.create_block();
        let n = b.create_block();
        b.ins().brif(cond, y, &[], n, &[]);
        b.switch_to_block(y);
        self.goto(b, yes);
        b.switch_to_block(n);
        self.goto(b, no);
    }

    /// The byte offset of the wait mask of target `ip`, if channels may wait there.
    fn wait_at(&self, ip: usize) -> Option<i32> {
        self.layout
            .targets
            .binary_search(&ip)
            .ok()
            .map(|i| (i * 4) as i32)
    }

    fn load_wait(&self, b: &mut FunctionBuilder, at: i32) -> Value {
        b.ins().load(types::I32, mem(), self.wait, at)
    }

    /// Channels `mask` wait for `ip` (`Thread::wait`).
    fn park(&self, b: &mut FunctionBuilder, mask: Value, ip: usize) {
        let Some(at) = self.wait_at(ip) else {
            return;
        };
        let w = self.load_wait(b, at);
        let w = b.ins().bor(w, mask);
        b.ins().store(mem(), w, self.wait, at);
        let p = b.use_var(self.vars.parked);
        let p = b.ins().bor(p, mask);
        b.def_var(self.vars.parked, p);
    }

    fn block(&mut self, b: &mut FunctionBuilder, blk: &Block) {
        let host = self.blocks[&blk.start];
        b.switch_to_block(host);
        // The budget: a block that would overrun it is left to the interpreter.
        let executed = b.use_var(self.vars.executed);
        let after = b.ins().iadd_imm_u(executed, blk.len() as i64);
        let over = b.ins().icmp(IntCC::UnsignedGreaterThan, after, self.budget);
        let body = b.create_block();
        let back = b.create_block();
        b.ins().brif(over, back, &[], body, &[]);
        b.switch_to_block(back);
        let v = b.ins().iconst(types::I32, blk.start as i64);
        b.ins().jump(self.exit, &[BlockArg::Value(v)]);
        b.switch_to_block(body);
        b.def_var(self.vars.executed, after);
        // Wake the channels waiting for this instruction; broken ones stay parked (they
        // move past their `while`).
        if let Some(at) = self.wait_at(blk.start) {
            let w = self.load_wait(b, at);
            let broken = b.use_var(self.vars.broken);
            let stay = b.ins().band(w, broken);
            b.ins().store(mem(), stay, self.wait, at);
            let woke = b.ins().band_not(w, broken);
            let p = b.use_var(self.vars.parked);
            let p = b.ins().band_not(p, woke);
            b.def_var(self.vars.parked, p);
        }
        // The channels running, and the count of channel-instructions (per instruction,
        // its span's running channels): each span's count is worked out once here, and
        // the instructions' counts are added up to each called instruction before it
        // runs and at the end (so that a call that stops the thread leaves the
        // interpreter's count).
        let parked = b.use_var(self.vars.parked);
        let live = b.ins().band_not(self.dispatch, parked);
        let mut per_span: BTreeMap<u32, Value> = BTreeMap::new();
        for (_, ins, _, _, _) in &blk.items {
            let span = emit::span(ins);
            if let std::collections::btree_map::Entry::Vacant(v) = per_span.entry(span) {
                let s = b.ins().band_imm_u(live, i64::from(span));
                let c = b.ins().popcnt(s);
                v.insert(b.ins().uextend(types::I64, c));
            }
        }
        let mut pending: BTreeMap<u32, i64> = BTreeMap::new();
        let count = |b: &mut FunctionBuilder, pending: &mut BTreeMap<u32, i64>| {
            let mut count = b.use_var(self.vars.channels);
            for (span, n) in std::mem::take(pending) {
                let c = b.ins().imul_imm_u(per_span[&span], n);
                count = b.ins().iadd(count, c);
            }
            b.def_var(self.vars.channels, count);
        };
        let e = Emit {
            grf: self.grf,
            flags: self.flags,
            live,
            acc: self.acc,
            ptr: self.ptr,
            daz: self.daz,
            daz_on: std::cell::Cell::new(true),
            set_daz: self.set_daz,
            math: self.math,
            masks: Default::default(),
        };
        for (i, &(at, ins, n, uop, called)) in blk.items.iter().enumerate() {
            *pending.entry(emit::span(ins)).or_default() += 1;
            if ins.opcode.kind() == Kind::Branch {
                count(b, &mut pending);
                e.end_block(b);
                self.control(b, &e, at, ins, at + n, live);
                return;
            }
            if called {
                count(b, &mut pending);
                self.call(b, blk, i);
            } else if let Some(u) = uop
                && ins.opcode != Opcode::Nop
            {
                e.instruction(b, ins, u);
            }
        }
        count(b, &mut pending);
        e.end_block(b);
        self.goto(b, blk.after);
    }

    /// Item `i` of `blk`, run by the interpreter (`super::interpret`) with the running
    /// channels where it expects them (its and the earlier instructions' channels are
    /// counted). When it ends the thread or fails, compiled code returns at that
    /// instruction with the counts the interpreter would have: the instructions after
    /// it, which the block's instruction count took on entry, are taken back off.
    fn call(&self, b: &mut FunctionBuilder, blk: &Block, i: usize) {
        let at = blk.items[i].0;
        let ip = b.ins().iconst(types::I32, at as i64);
        let parked = b.use_var(self.vars.parked);
        let call = b.ins().call(self.interpret, &[self.calls, ip, parked]);
        let status = b.inst_results(call)[0];
        let stop = b.create_block();
        let go_on = b.create_block();
        b.ins().brif(status, stop, &[], go_on, &[]);
        b.switch_to_block(stop);
        let rest = blk.items.len() - i - 1;
        let executed = b.use_var(self.vars.executed);
        let executed = b.ins().iadd_imm_u(executed, -(rest as i64));
        b.def_var(self.vars.executed, executed);
        b.ins().jump(self.exit, &[BlockArg::Value(ip)]);
        b.switch_to_block(go_on);
    }

    /// A branch, with `live` the running, dispatched channels: what `Thread::branch`
    /// does, case for case (IVB PRM Vol4 Part3, the structured flow control
    /// instructions; on Gen7 a `break`'s UIP is the loop's `while`, Mesa's
    /// brw_set_uip_jip).
    fn control(
        &self,
        b: &mut FunctionBuilder,
        e: &Emit,
        at: usize,
        ins: &Instruction,
        next: usize,
        live: Value,
    ) {
        let live = b.ins().band_imm_u(live, i64::from(emit::span(ins)));
        let cond = match ins.predicate {
            Some(p) => e.predicate(b, ins, p),
            None => b.ins().iconst(types::I32, -1),
        };
        let (jip, uip) = (
            target(at, ins.jip).unwrap_or(usize::MAX),
            target(at, ins.uip).unwrap_or(usize::MAX),
        );
        match ins.opcode {
            Opcode::If => {
                // Failing channels wait for JIP; with none passing, go there.
                let fail = b.ins().band_not(live, cond);
                self.park(b, fail, jip);
                let pass = b.ins().band(live, cond);
                self.branch_to(b, pass, next, jip);
            }
            Opcode::Else => {
                // The then-block's channels wait for JIP; go on to the else block only
                // if a channel waits for it.
                self.park(b, live, jip);
                let pending = match self.wait_at(next) {
                    Some(w) => self.load_wait(b, w),
                    None => b.ins().iconst(types::I32, 0),
                };
                self.branch_to(b, pending, next, jip);
            }
            Opcode::Endif => {
                // `Thread::branch`: with no live channel and none waiting before JIP, go
                // to JIP.
                if !(jip > next && jip != usize::MAX) {
                    self.goto(b, next);
                    return;
                }
                let mut waiting = b.ins().iconst(types::I32, 0);
                let first = self.layout.targets.partition_point(|&t| t < next);
                let last = self.layout.targets.partition_point(|&t| t < jip);
                for i in first..last {
                    let w = self.load_wait(b, (i * 4) as i32);
                    waiting = b.ins().bor(waiting, w);
                }
                let busy = b.ins().bor(live, waiting);
                self.branch_to(b, busy, next, jip);
            }
            Opcode::Break | Opcode::Cont | Opcode::Halt => {
                let go = b.ins().band(live, cond);
                self.park(b, go, uip);
                if ins.opcode == Opcode::Break {
                    let k = b.use_var(self.vars.broken);
                    let k = b.ins().bor(k, go);
                    b.def_var(self.vars.broken, k);
                }
                // With every live channel gone (and one going), go to JIP.
                let rest = b.ins().band_not(live, go);
                let none_left = b.ins().icmp_imm_u(IntCC::Equal, rest, 0);
                let some_go = b.ins().icmp_imm_u(IntCC::NotEqual, go, 0);
                let jump = b.ins().band(none_left, some_go);
                self.branch_to(b, jump, jip, next);
            }
            Opcode::While => {
                // Channels that broke out of this loop now wait for the instruction
                // after it.
                if let (Some(here), Some(after)) = (self.wait_at(at), self.wait_at(next)) {
                    let w = self.load_wait(b, here);
                    let k = b.use_var(self.vars.broken);
                    let moved = b.ins().band(w, k);
                    let w = b.ins().band_not(w, moved);
                    b.ins().store(mem(), w, self.wait, here);
                    let a = self.load_wait(b, after);
                    let a = b.ins().bor(a, moved);
                    b.ins().store(mem(), a, self.wait, after);
                    let k = b.ins().band_not(k, moved);
                    b.def_var(self.vars.broken, k);
                }
                let again = b.ins().band(live, cond);
                let y = b.create_block();
                let n = b.create_block();
                b.ins().brif(again, y, &[], n, &[]);
                b.switch_to_block(y);
                // Channels leaving the loop wait for the instruction after it.
                let leave = b.ins().band_not(live, cond);
                self.park(b, leave, next);
                self.goto(b, jip);
                b.switch_to_block(n);
                self.goto(b, next);
            }
            // `Layout::new` compiles no other branch: the interpreter runs it.
            _ => {
                let v = b.ins().iconst(types::I32, at as i64);
                b.ins().jump(self.exit, &[BlockArg::Value(v)]);
            }
        }
    }
}
