//! The batch decoder behind `gtsim decode`: walks commands the way the command streamer
//! would (following `MI_BATCH_BUFFER_START`, stopping at `MI_BATCH_BUFFER_END`), names
//! every field through the spec's tables, tracks `STATE_BASE_ADDRESS`, and decodes the
//! indirect state that pointer fields reference when that memory is present.
//!
//! The decoder never trusts the batch: unknown opcodes, impossible lengths, truncated
//! commands, page faults and jump loops become [`Item::Diagnostic`]s with the byte
//! address, and decoding resumes at the next dword or command where that makes sense.

mod render;

pub use render::{RenderOptions, render};

use gtsim_mem::Memory;
use gtsim_spec::print::{self, Line};
use gtsim_spec::table::{Base, Count, Def, DefKind, Generation, Target, Ty};
use std::collections::BTreeSet;

/// The five state bases of STATE_BASE_ADDRESS (IVB PRM Vol2 Part1, seed 004 §1.4: every
/// `*_STATE_POINTERS` offset is relative to one of them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bases {
    /// General State Base Address.
    pub general: Option<u64>,
    /// Surface State Base Address.
    pub surface: Option<u64>,
    /// Dynamic State Base Address.
    pub dynamic: Option<u64>,
    /// Indirect Object Base Address.
    pub indirect: Option<u64>,
    /// Instruction Base Address.
    pub instruction: Option<u64>,
    /// Binding Table Pool Base Address (Gen8+ 3DSTATE_BINDING_TABLE_POOL_ALLOC): when a
    /// pool is enabled, binding table pointers are relative to it instead of Surface State
    /// Base Address.
    pub binding_table_pool: Option<u64>,
    /// GT_MODE Binding Table Alignment = BTP_18_8 (Gen9+, genxml gen11.xml GT_MODE): the
    /// 3DSTATE_BINDING_TABLE_POINTERS_* fields (bits 15:5) then hold offset bits 18:8.
    pub btp_18_8: bool,
}

impl Bases {
    /// The base a pointer of type `b` is relative to.
    pub fn get(&self, b: Base) -> Option<u64> {
        match b {
            Base::General => self.general,
            Base::Surface => self.surface,
            Base::BindingTable => self.binding_table_pool.or(self.surface),
            Base::Dynamic => self.dynamic,
            Base::Indirect => self.indirect,
            Base::Instruction => self.instruction,
            Base::None => Some(0),
        }
    }

    fn name(&self, b: Base) -> &'static str {
        match b {
            Base::General => "General State Base Address",
            Base::BindingTable if self.binding_table_pool.is_some() => {
                "Binding Table Pool Base Address"
            }
            Base::Surface | Base::BindingTable => "Surface State Base Address",
            Base::Dynamic => "Dynamic State Base Address",
            Base::Indirect => "Indirect Object Base Address",
            Base::Instruction => "Instruction Base Address",
            Base::None => "0",
        }
    }
}

/// One thing the decoder found.
#[derive(Debug, Clone)]
pub enum Item {
    /// A command in a batch or ring.
    Command {
        /// Graphics address of its first dword.
        addr: u64,
        /// Its definition.
        def: &'static Def,
        /// Its dwords.
        dwords: Vec<u32>,
        /// Its fields.
        lines: Vec<Line>,
    },
    /// Indirect state a command points at.
    State {
        /// Graphics address.
        addr: u64,
        /// Its definition.
        def: &'static Def,
        /// Entry index within an array of such state.
        index: usize,
        /// Its dwords.
        dwords: Vec<u32>,
        /// Its fields.
        lines: Vec<Line>,
        /// Which field pointed here.
        via: String,
        /// Nesting (1 = pointed at by a command).
        depth: usize,
    },
    /// Where a kernel starts.
    Kernel {
        /// Graphics address.
        addr: u64,
        /// Which field pointed here and how the address was formed.
        via: String,
        /// Nesting.
        depth: usize,
    },
    /// Something worth saying that is not an error (a jump, an unset base).
    Note {
        /// Address it concerns.
        addr: u64,
        /// Text.
        msg: String,
    },
    /// A problem with the batch: decoding went on where it could.
    Diagnostic {
        /// Byte address of the problem.
        addr: u64,
        /// Text.
        msg: String,
    },
}

/// Decoder limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Stop after this many commands (runaway batches).
    pub max_commands: usize,
    /// One-dword entries (binding table entries) read for a pointer whose count is
    /// unknown; reading stops earlier at an all-zero entry.
    pub unknown_count: usize,
    /// Upper bound for a count read from a field.
    pub max_count: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_commands: 100_000,
            unknown_count: 32,
            max_count: 64,
        }
    }
}

/// Walks batches in an address space.
pub struct Decoder<'a> {
    generation: &'static Generation,
    mem: &'a dyn Memory,
    /// Current state bases (updated by STATE_BASE_ADDRESS).
    pub bases: Bases,
    /// What was found, in order.
    pub items: Vec<Item>,
    limits: Limits,
    commands: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder over `mem` for one generation.
    pub fn new(generation: &'static Generation, mem: &'a dyn Memory) -> Self {
        Self {
            generation,
            mem,
            bases: Bases::default(),
            items: vec![],
            limits: Limits::default(),
            commands: 0,
        }
    }

    /// Changes the limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    fn diag(&mut self, addr: u64, msg: String) {
        self.items.push(Item::Diagnostic { addr, msg });
    }

    /// Decodes the batch at `start`. With `end`, the batch is known to stop there (a raw
    /// file or a ring write); otherwise it runs to MI_BATCH_BUFFER_END.
    pub fn decode_batch(&mut self, start: u64, end: Option<u64>) {
        let mut p = start;
        let mut end = end;
        let mut batches = BTreeSet::from([start]);
        loop {
            if end.is_some_and(|e| p >= e) {
                break;
            }
            if self.commands >= self.limits.max_commands {
                self.diag(
                    p,
                    format!("stopped after {} commands (runaway batch?)", self.commands),
                );
                break;
            }
            let dw0 = match self.mem.read_u32(p) {
                Ok(v) => v,
                Err(f) => {
                    self.diag(
                        p,
                        format!(
                            "cannot read the next command: {f} (batch without MI_BATCH_BUFFER_END?)"
                        ),
                    );
                    break;
                }
            };
            let Some(def) = self.generation.identify(dw0) else {
                self.diag(
                    p,
                    format!(
                        "unknown command {dw0:#010x} ({}); skipped one dword",
                        describe_header(dw0)
                    ),
                );
                p += 4;
                continue;
            };
            let len = def.length(dw0).unwrap_or(1);
            let fixed = match def.kind {
                DefKind::Command {
                    variable: false, ..
                } => Some(def.dwords as usize),
                _ => None,
            };
            if len < def.dwords as usize && fixed.is_some() || len == 0 {
                self.diag(p, format!("{}: impossible length: DWord Length gives {len} dwords, the command has {}; skipped one dword", def.name, def.dwords));
                p += 4;
                continue;
            }
            if len < def.dwords as usize {
                self.diag(p, format!("{}: DWord Length gives {len} dwords, fewer than its minimum {}; skipped one dword", def.name, def.dwords));
                p += 4;
                continue;
            }
            if let Some(e) = end
                && p.saturating_add(len as u64 * 4) > e
            {
                self.diag(p, format!("{} truncated: needs {len} dwords, only {} before the end of the batch at {e:#x}", def.name, (e - p) / 4));
                break;
            }
            let dwords = match self.mem.read_dwords(p, len) {
                Ok(d) => d,
                Err(f) => {
                    self.diag(p, format!("{} truncated: {f}", def.name));
                    break;
                }
            };
            if let Some(n) = fixed
                && len != n
            {
                self.diag(p, format!("{}: DWord Length gives {len} dwords, the spec says {n}; decoded with the length given", def.name));
            }
            self.commands += 1;
            let lines = print::describe(self.generation, def, &dwords);
            self.items.push(Item::Command {
                addr: p,
                def,
                dwords: dwords.clone(),
                lines,
            });
            self.effects(p, def, &dwords);
            match def.name {
                "MI_BATCH_BUFFER_END" => break,
                "MI_BATCH_BUFFER_START" => {
                    let Some(f) = def.fields.iter().find(|f| matches!(f.ty, Ty::Address)) else {
                        break;
                    };
                    let target = f.address(&dwords);
                    if !batches.insert(target) {
                        self.diag(p, format!("MI_BATCH_BUFFER_START jumps to {target:#x}, a batch already decoded: stopping (loop)"));
                        break;
                    }
                    self.items.push(Item::Note {
                        addr: p,
                        msg: format!("jump to batch at {target:#x}"),
                    });
                    p = target;
                    end = None;
                    continue;
                }
                _ => {}
            }
            p += len as u64 * 4;
        }
    }

    /// Side effects a decoder must track: state bases and pointers to indirect state.
    fn effects(&mut self, addr: u64, def: &'static Def, dwords: &[u32]) {
        if def.name == "STATE_BASE_ADDRESS" {
            self.state_base_address(def, dwords);
        }
        if def.name == "3DSTATE_BINDING_TABLE_POOL_ALLOC" {
            // Gen11 PRM 3DSTATE_BINDING_TABLE_POOL_ALLOC: an enabled pool rebases the
            // binding table pointers; a disabled one returns them to Surface State Base.
            let enabled = def
                .field("Binding Table Pool Enable")
                .is_some_and(|f| f.raw(dwords) != 0);
            self.bases.binding_table_pool = def
                .field("Binding Table Pool Base Address")
                .filter(|_| enabled)
                .map(|f| f.address(dwords));
        }
        if def.name == "MI_LOAD_REGISTER_IMM" {
            self.registers_written(addr, dwords);
        }
        self.follow_all(addr, def, dwords, 1);
    }

    /// STATE_BASE_ADDRESS: each base loads only when its Modify Enable bit is set
    /// (IVB PRM Vol2 Part1 STATE_BASE_ADDRESS; see defs/gen7/mi.spec).
    fn state_base_address(&mut self, def: &'static Def, dw: &[u32]) {
        let load = |name: &str| -> Option<u64> {
            let f = def.field(name)?;
            let enable = def.field(&format!("{name} Modify Enable"))?;
            (enable.raw(dw) != 0).then(|| f.address(dw))
        };
        for (name, slot) in [
            ("General State Base Address", &mut self.bases.general),
            ("Surface State Base Address", &mut self.bases.surface),
            ("Dynamic State Base Address", &mut self.bases.dynamic),
            ("Indirect Object Base Address", &mut self.bases.indirect),
            ("Instruction Base Address", &mut self.bases.instruction),
        ] {
            if let Some(v) = load(name) {
                *slot = Some(v);
            }
        }
    }

    /// MI_LOAD_REGISTER_IMM: names the registers written and decodes the values of those
    /// the spec gives fields (defs/gen7/registers.spec).
    fn registers_written(&mut self, addr: u64, dwords: &[u32]) {
        // Both generations' MI_LOAD_REGISTER_IMM are (offset, value) pairs after the
        // header; the offset's bits 22:2 (Gen7 and Gen11 alike, defs/*/mi.spec).
        let pairs: Vec<(u32, u32)> = dwords
            .get(1..)
            .unwrap_or(&[])
            .chunks_exact(2)
            .map(|p| (p[0] & 0x007f_fffc, p[1]))
            .collect();
        for (i, &(offset, data_dword)) in pairs.iter().enumerate() {
            // GT_MODE (0x7008) is a masked register; bit 26 unmasks Binding Table
            // Alignment, bit 10 (Gen11 genxml GT_MODE).
            if self.generation.name == "gen11" && offset == 0x7008 && data_dword & (1 << 26) != 0 {
                self.bases.btp_18_8 = data_dword & (1 << 10) != 0;
            }
            let data_addr = addr + 4 * (2 + 2 * i as u64);
            match self.generation.register(offset) {
                Some(reg) if reg.dwords == 1 && !reg.fields.is_empty() => {
                    let dw = vec![data_dword];
                    let lines = print::describe(self.generation, reg, &dw);
                    self.items.push(Item::State { addr: data_addr, def: reg, index: 0, dwords: dw, lines, via: format!("MI_LOAD_REGISTER_IMM to {offset:#x}"), depth: 1 });
                }
                Some(reg) => self.items.push(Item::Note { addr: data_addr, msg: format!("MI_LOAD_REGISTER_IMM writes {:#010x} to {} ({offset:#x})", data_dword, reg.name) }),
                None => self.items.push(Item::Note { addr: data_addr, msg: format!("MI_LOAD_REGISTER_IMM writes {:#010x} to register {offset:#x}, which the spec does not name", data_dword) }),
            }
        }
    }

    fn follow_all(&mut self, addr: u64, def: &'static Def, dwords: &[u32], depth: usize) {
        for f in def.fields {
            let Some(target) = f.target else { continue };
            let value = f.address(dwords);
            if value == 0 {
                continue; // An unset pointer: nothing to show.
            }
            let base = match f.ty {
                Ty::Offset(b) => b,
                _ => Base::None,
            };
            // BTP_18_8: the pointer's bits 15:5 are offset bits 18:8.
            let value = if base == Base::BindingTable && self.bases.btp_18_8 {
                value << 3
            } else {
                value
            };
            let Some(base_addr) = self.bases.get(base) else {
                self.items.push(Item::Note { addr, msg: format!("{}.{} = {value:#x} is relative to {}, which no STATE_BASE_ADDRESS has set: not followed", def.name, f.name, self.bases.name(base)) });
                continue;
            };
            let at = base_addr.wrapping_add(value);
            let via = if base == Base::None {
                format!("{}.{}", def.name, f.name)
            } else {
                format!(
                    "{}.{} = {} + {value:#x}",
                    def.name,
                    f.name,
                    self.bases.name(base)
                )
            };
            match target {
                Target::Kernel => self.items.push(Item::Kernel {
                    addr: at,
                    via,
                    depth,
                }),
                Target::Struct { name, count } => {
                    let Some(tdef) = self.generation.def(name) else {
                        continue;
                    };
                    let n = match count {
                        Count::One => Some(1),
                        Count::Fixed(k) => Some(k as usize),
                        Count::Field(c) => def
                            .field(c)
                            .map(|cf| (cf.raw(dwords) as usize).clamp(1, self.limits.max_count)),
                        Count::Unknown => None,
                    };
                    self.follow_struct(at, tdef, n, via, depth);
                }
            }
        }
    }

    fn follow_struct(
        &mut self,
        at: u64,
        def: &'static Def,
        count: Option<usize>,
        via: String,
        depth: usize,
    ) {
        if depth > 3 {
            return;
        }
        // A state ending in an open array (BLEND_STATE's entries, one per render target)
        // shows its first element: the hardware reads at least one, and nothing in the
        // state says how many more.
        let tail = def
            .fields
            .iter()
            .find_map(|f| match f.ty {
                Ty::Array { elem, count: None } => self.generation.def(elem),
                _ => None,
            })
            .map_or(0, |e| e.dwords as usize);
        let size = (def.dwords as u64 + tail as u64) * 4;
        // An unknown count: one-dword entries (binding tables) are read until an empty
        // entry; larger state shows its first entry only, as nothing says how many follow.
        let n = count.unwrap_or(if def.dwords == 1 {
            self.limits.unknown_count
        } else {
            1
        });
        for i in 0..n {
            let a = at.wrapping_add(i as u64 * size);
            let dwords = match self.mem.read_dwords(a, def.dwords as usize + tail) {
                Ok(d) => d,
                Err(f) => {
                    if i == 0 || count.is_some() {
                        self.diag(a, format!("{} via {via}: {f}", def.name));
                    }
                    break;
                }
            };
            if count.is_none() && dwords.iter().all(|&d| d == 0) {
                break;
            }
            let lines = print::describe(self.generation, def, &dwords);
            self.items.push(Item::State {
                addr: a,
                def,
                index: i,
                dwords: dwords.clone(),
                lines,
                via: via.clone(),
                depth,
            });
            self.follow_all(a, def, &dwords, depth + 1);
        }
    }
}

/// Names the parts of a command header that did not match any definition.
fn describe_header(dw0: u32) -> String {
    let ty = dw0 >> 29;
    match ty {
        0 => format!("MI opcode {:#x}", (dw0 >> 23) & 0x3f),
        2 => format!("blitter opcode {:#x}", (dw0 >> 22) & 0x7f),
        3 => format!(
            "GFXPIPE subtype {}, opcode {}, sub-opcode {:#x}",
            (dw0 >> 27) & 3,
            (dw0 >> 24) & 7,
            (dw0 >> 16) & 0xff
        ),
        _ => format!("command type {ty}"),
    }
}

#[cfg(test)]
mod tests;
