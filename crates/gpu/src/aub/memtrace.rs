//! Gen8+ AUB traces: "memtrace" packets and execlist submissions, as Mesa's
//! `intel_dump_gpu` writes them for Broadwell and later.
//!
//! Format facts (public: Mesa `src/intel/tools/intel_aub.h`, `aub_write.c`, `aub_read.c`,
//! `aubinator.c`, `intel_context.h`; Linux `intel_lrc_reg.h`):
//! * Memtrace packets have opcode 0x2e in bits 28:23 and count their length as dwords
//!   minus 1 (the legacy packets: minus 2).
//! * `MEM_TRACE_VERSION` (sub-opcode 0x0e): dwords 1-4 file version, device, versions;
//!   from dword 5 the text `PCI-ID=0x8A52 <application>`.
//! * `MEM_TRACE_MEMORY_WRITE` (0x06): dwords 1-2 the address (48 bits, sign-extended),
//!   dword 3 the address space in bits 31:28 (0 GGTT, 1 local, 2 physical, 4 GGTT entry),
//!   dword 4 the size in bytes; the data follows, padded to a dword.
//! * `MEM_TRACE_REGISTER_WRITE` (0x03): dword 1 the MMIO offset, dword 2 size and space,
//!   dwords 3-4 a mask, dword 5 the value. `REGISTER_POLL` (0x02) waits on a register.
//! * The GGTT maps 4 KiB pages through 8-byte entries (physical address | 1) written in
//!   the GGTT-entry space at (page number × 8). The PPGTT is four levels of 512 8-byte
//!   entries (physical address | 3: present, writable) in physical memory, indexed by
//!   address bits 47:39, 38:30, 29:21 and 20:12.
//! * A submission on Gen11 writes the context descriptor into the render engine's
//!   EXECLIST_SQ_CONTENTS (0x2510 low, 0x2514 high) and 1 into EXECLIST_CONTROL (0x2550);
//!   before Gen11 the four ELSP (0x2230) writes end with the descriptor's low half. The
//!   descriptor's bits 31:12 are the GGTT address of the per-process hardware status page;
//!   the logical ring context image follows it (4 KiB on), a MI_LOAD_REGISTER_IMM list
//!   whose dwords 5, 7, 9 and 11 hold RING_BUFFER_HEAD, TAIL, START and CTL (length in
//!   bits 20:12, in pages minus one) and dwords 49 and 51 the PML4's high and low halves.
//!
//! [`reconstruct`] turns such a trace into the events of the legacy form that the decoder
//! and replay read: memory at its PPGTT (virtual) addresses, and each submission's ring
//! commands, placed at [`RING_WINDOW`] + their GGTT address (the top 4 GiB of the 48-bit
//! space, which iris does not use).

use super::read::Event;
use std::collections::{BTreeMap, BTreeSet};

/// Why a memtrace packet or an execlist submission could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemtraceError {
    /// A packet shorter than the dword a field is in.
    #[error("memtrace packet {dw0:#010x} is too short for dword {dword}")]
    Short {
        /// The packet's header.
        dw0: u32,
        /// The dword wanted.
        dword: usize,
    },
    /// A memory write whose data runs past its packet.
    #[error("memory write of {size} bytes runs past its packet")]
    WriteOverrun {
        /// The size the write declares.
        size: usize,
    },
    /// A packet kind the reader does not model.
    #[error("memtrace packet {dw0:#010x} (sub-opcode {sub_opcode:#x}) is not modelled")]
    UnknownPacket {
        /// The packet's header.
        dw0: u32,
        /// Its sub-opcode (bits 22:16).
        sub_opcode: u32,
    },
    /// A GGTT address no entry maps.
    #[error("GGTT address {0:#x} is not mapped")]
    GgttUnmapped(u64),
    /// Page tables that lead to too many tables (a loop, or hostile input).
    #[error("the page tables under PML4 {pml4:#x} lead to more than {limit} tables")]
    TableWalk {
        /// The PML4's physical address.
        pml4: u64,
        /// The walk's limit.
        limit: usize,
    },
    /// A context image whose ring head and tail do not fit its ring.
    #[error(
        "context at {context:#x}: ring head {head:#x} and tail {tail:#x} do not fit its {length}-byte ring"
    )]
    RingBounds {
        /// The context's PPHWSP address.
        context: u64,
        /// RING_BUFFER_HEAD.
        head: u32,
        /// RING_BUFFER_TAIL.
        tail: u32,
        /// The ring's length in bytes.
        length: u64,
    },
    /// A ring that runs past the 4 GiB GGTT.
    #[error("ring at GGTT {0:#x} runs past 4 GiB")]
    RingPast4G(u32),
}

/// Memtrace packets: opcode 0x2e.
pub const CMD_MEM_TRACE: u32 = super::CMD_AUB | (0x2e << 23);
/// Register poll.
pub const CMD_MEM_TRACE_REGISTER_POLL: u32 = CMD_MEM_TRACE | (0x02 << 16);
/// Register write.
pub const CMD_MEM_TRACE_REGISTER_WRITE: u32 = CMD_MEM_TRACE | (0x03 << 16);
/// Memory write.
pub const CMD_MEM_TRACE_MEMORY_WRITE: u32 = CMD_MEM_TRACE | (0x06 << 16);
/// Version and device.
pub const CMD_MEM_TRACE_VERSION: u32 = CMD_MEM_TRACE | (0x0e << 16);

/// Memory-write address spaces (dword 3, bits 31:28).
pub const SPACE_GGTT: u32 = 0;
/// Local memory (discrete parts).
pub const SPACE_LOCAL: u32 = 1;
/// Physical memory.
pub const SPACE_PHYSICAL: u32 = 2;
/// GGTT page-table entries.
pub const SPACE_GGTT_ENTRY: u32 = 4;

/// Render engine registers (RCSUNIT 0x2000 + offset, Mesa intel_context.h).
pub const RCS_EXECLIST_SUBMITPORT: u32 = 0x2230;
/// Execlist status.
pub const RCS_EXECLIST_STATUS: u32 = 0x2234;
/// GFX_MODE (execlist enable).
pub const RCS_GFX_MODE: u32 = 0x229c;
/// Gen11+ submit queue contents (low dword; high at +4).
pub const RCS_EXECLIST_SQ_CONTENTS: u32 = 0x2510;
/// Gen11+ execlist control (writing 1 loads the queue).
pub const RCS_EXECLIST_CONTROL: u32 = 0x2550;
/// The video enhancement engine's MMIO base on Gen11 (Linux i915_reg.h
/// GEN11_VEBOX_RING_BASE); its execlist registers are the render engine's at this base
/// instead of 0x2000.
pub const VECS_BASE: u32 = 0x1c_8000;
/// The VECS execlist registers: submit queue contents, control and status.
pub const VECS_EXECLIST_SQ_CONTENTS: u32 = VECS_BASE + 0x510;
/// See [`VECS_EXECLIST_SQ_CONTENTS`].
pub const VECS_EXECLIST_CONTROL: u32 = VECS_BASE + 0x550;
/// See [`VECS_EXECLIST_SQ_CONTENTS`].
pub const VECS_EXECLIST_STATUS: u32 = VECS_BASE + 0x234;

/// Where a submission's ring commands are placed in the reconstructed address space:
/// this base plus their GGTT address (below 4 GiB), the top 4 GiB of the 48-bit space,
/// which iris leaves unused (its last memory zone ends 4 GiB below the top,
/// iris_bufmgr.c), so a replay's 48-bit command streamer can fetch them.
pub const RING_WINDOW: u64 = 0xffff_0000_0000;

const PAGE: u64 = 4096;

/// The most page tables one submission's PPGTT walk visits (a 2 GiB working set needs
/// about a thousand).
const MAX_TABLE_VISITS: usize = 1 << 16;
const MASK48: u64 = (1 << 48) - 1;

/// Sign-extends a 48-bit address the way the trace stores it (Mesa intel_48b_address),
/// then keeps its 48 bits.
fn addr48(v: u64) -> u64 {
    (((v << 16) as i64) >> 16) as u64 & MASK48
}

/// A memtrace packet decoded into an [`Event`]-like record for [`reconstruct`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Memtrace {
    /// Bytes written in an address space.
    Write {
        /// SPACE_*.
        space: u32,
        /// Address in that space.
        addr: u64,
        /// Data.
        data: Vec<u8>,
    },
    /// A register write.
    Register {
        /// MMIO offset.
        offset: u32,
        /// Value.
        value: u32,
    },
}

/// Reads one memtrace packet (`pkt` holds its dwords as the length field gives them, and
/// the trailing data); `None` for packets that carry nothing to model (polls).
pub fn parse_packet(dw0: u32, pkt: &[u8]) -> Result<Option<Memtrace>, MemtraceError> {
    let dword = |i: usize| -> Result<u32, MemtraceError> {
        pkt.get(i * 4..i * 4 + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or(MemtraceError::Short { dw0, dword: i })
    };
    match dw0 & 0xffff_0000 {
        CMD_MEM_TRACE_MEMORY_WRITE => {
            let addr = addr48(dword(1)? as u64 | (dword(2)? as u64) << 32);
            let space = dword(3)? >> 28;
            let size = dword(4)? as usize;
            let data = pkt
                .get(20..20 + size)
                .ok_or(MemtraceError::WriteOverrun { size })?;
            Ok(Some(Memtrace::Write {
                space,
                addr,
                data: data.to_vec(),
            }))
        }
        CMD_MEM_TRACE_REGISTER_WRITE => Ok(Some(Memtrace::Register {
            offset: dword(1)?,
            value: dword(5)?,
        })),
        CMD_MEM_TRACE_REGISTER_POLL => Ok(None),
        _ => Err(MemtraceError::UnknownPacket {
            dw0,
            sub_opcode: (dw0 >> 16) & 0x7f,
        }),
    }
}

/// Page-granular memory of one kind (physical memory, or the GGTT-entry table).
#[derive(Default)]
struct Pages(BTreeMap<u64, Box<[u8; 4096]>>);

impl Pages {
    fn write(&mut self, addr: u64, data: &[u8]) -> BTreeSet<u64> {
        let mut touched = BTreeSet::new();
        let mut at = addr;
        let mut rest = data;
        while !rest.is_empty() {
            let page = at & !(PAGE - 1);
            let off = (at - page) as usize;
            let n = rest.len().min(4096 - off);
            let p = self.0.entry(page).or_insert_with(|| Box::new([0; 4096]));
            p[off..off + n].copy_from_slice(&rest[..n]);
            touched.insert(page);
            rest = &rest[n..];
            at += n as u64;
        }
        touched
    }

    fn read(&self, addr: u64, out: &mut [u8]) {
        let mut at = addr;
        let mut done = 0;
        while done < out.len() {
            let page = at & !(PAGE - 1);
            let off = (at - page) as usize;
            let n = (out.len() - done).min(4096 - off);
            match self.0.get(&page) {
                Some(p) => out[done..done + n].copy_from_slice(&p[off..off + n]),
                None => out[done..done + n].fill(0),
            }
            done += n;
            at += n as u64;
        }
    }

    fn u64(&self, addr: u64) -> u64 {
        let mut b = [0u8; 8];
        self.read(addr, &mut b);
        u64::from_le_bytes(b)
    }
}

/// The state a reader keeps: physical memory, the GGTT and the pending descriptor.
#[derive(Default)]
struct Machine {
    phys: Pages,
    /// GGTT entries, by GGTT page address: the physical page.
    ggtt: BTreeMap<u64, u64>,
    /// Physical pages written since the last submission.
    dirty: BTreeSet<u64>,
    elsp: [u32; 4],
    elsp_index: usize,
    submissions: usize,
}

impl Machine {
    fn ggtt_phys(&self, addr: u64) -> Option<u64> {
        self.ggtt
            .get(&(addr & !(PAGE - 1)))
            .map(|p| p + (addr & (PAGE - 1)))
    }

    fn ggtt_read(&self, addr: u64, out: &mut [u8]) -> Result<(), MemtraceError> {
        let mut at = addr;
        let mut done = 0;
        while done < out.len() {
            let off = (at & (PAGE - 1)) as usize;
            let n = (out.len() - done).min(4096 - off);
            let p = self.ggtt_phys(at).ok_or(MemtraceError::GgttUnmapped(at))?;
            self.phys.read(p, &mut out[done..done + n]);
            done += n;
            at += n as u64;
        }
        Ok(())
    }

    fn ggtt_u32(&self, addr: u64) -> Result<u32, MemtraceError> {
        let mut b = [0u8; 4];
        self.ggtt_read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Every mapped 4 KiB page of the PPGTT rooted at `pml4`: (virtual, physical). A
    /// table the trace never wrote maps nothing; the walk visits at most
    /// [`MAX_TABLE_VISITS`] tables, so page tables that point back at themselves end in
    /// an error, not a walk of 512^4 entries.
    fn ppgtt_pages(&self, pml4: u64) -> Result<Vec<(u64, u64)>, MemtraceError> {
        let mut out = vec![];
        let mut visits = 0usize;
        let mut entries = |table: u64| -> Result<Vec<(u64, u64)>, MemtraceError> {
            visits += 1;
            if visits > MAX_TABLE_VISITS {
                return Err(MemtraceError::TableWalk {
                    pml4,
                    limit: MAX_TABLE_VISITS,
                });
            }
            if !self.phys.0.contains_key(&table) {
                return Ok(vec![]);
            }
            Ok((0..512u64)
                .filter_map(|i| {
                    let e = self.phys.u64(table + i * 8);
                    (e & 1 != 0).then_some((i, e & MASK48 & !(PAGE - 1)))
                })
                .collect())
        };
        for (i4, l3) in entries(pml4)? {
            for (i3, l2) in entries(l3)? {
                for (i2, l1) in entries(l2)? {
                    for (i1, page) in entries(l1)? {
                        let va = i4 << 39 | i3 << 30 | i2 << 21 | i1 << 12;
                        out.push((va, page));
                    }
                }
            }
        }
        Ok(out)
    }

    /// A submission of the context `descriptor`: the changed PPGTT pages as writes at
    /// their virtual addresses, then the ring's commands.
    fn submit(
        &mut self,
        descriptor: u64,
        ring_type: u32,
        out: &mut Vec<Event>,
    ) -> Result<(), MemtraceError> {
        let pphwsp = descriptor & 0xffff_f000;
        let image = pphwsp + PAGE;
        let ctx = |i: u64| self.ggtt_u32(image + 4 * i);
        let (head, tail, start, ctl) = (ctx(5)?, ctx(7)?, ctx(9)?, ctx(11)?);
        let pml4 = ((ctx(49)? as u64) << 32 | ctx(51)? as u64) & MASK48 & !(PAGE - 1);
        let length = (ctl & 0x1f_f000) as u64 + PAGE;
        if tail < head || (tail - head) as u64 > length {
            return Err(MemtraceError::RingBounds {
                context: pphwsp,
                head,
                tail,
                length,
            });
        }
        for (va, pa) in self.ppgtt_pages(pml4)? {
            if self.dirty.contains(&pa) {
                let mut data = vec![0u8; 4096];
                self.phys.read(pa, &mut data);
                out.push(Event::Write {
                    addr: va,
                    data,
                    kind: 0,
                });
            }
        }
        self.dirty.clear();
        if start as u64 + length > 1 << 32 {
            return Err(MemtraceError::RingPast4G(start));
        }
        let mut ring = vec![0u8; (tail - head) as usize];
        self.ggtt_read(start as u64 + head as u64, &mut ring)?;
        out.push(Event::Exec {
            ring: ring_type,
            offset: RING_WINDOW + start as u64 + head as u64,
            commands: ring
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        });
        self.submissions += 1;
        Ok(())
    }
}

/// Turns a Gen8+ trace's memtrace records into legacy-form events (see the module docs):
/// the decoder and replay then read both forms alike. Problems are diagnostics, with the
/// index of the record.
pub fn reconstruct(records: &[(usize, Memtrace)]) -> (Vec<Event>, Vec<(usize, String)>) {
    let mut m = Machine::default();
    let mut events = vec![];
    let mut diagnostics = vec![];
    for (at, r) in records {
        let submit = match r {
            Memtrace::Write { space, addr, data } => {
                match *space {
                    SPACE_PHYSICAL => {
                        let touched = m.phys.write(*addr, data);
                        m.dirty.extend(touched);
                    }
                    SPACE_GGTT => {
                        // Written through the GGTT: each page's physical page.
                        let mut a = *addr;
                        let mut rest = &data[..];
                        while !rest.is_empty() {
                            let n = rest.len().min((PAGE - (a & (PAGE - 1))) as usize);
                            let Some(p) = m.ggtt_phys(a) else {
                                diagnostics.push((
                                    *at,
                                    format!("GGTT write at {a:#x}: the page is not mapped; dropped"),
                                ));
                                break;
                            };
                            let touched = m.phys.write(p, &rest[..n]);
                            m.dirty.extend(touched);
                            rest = &rest[n..];
                            a += n as u64;
                        }
                    }
                    SPACE_GGTT_ENTRY => {
                        let mut entries = Pages::default();
                        entries.write(0, data);
                        for i in 0..(data.len() / 8) as u64 {
                            let e = entries.u64(i * 8);
                            let page = (addr / 8 + i) * PAGE;
                            if e & 1 != 0 {
                                m.ggtt.insert(page, e & MASK48 & !(PAGE - 1));
                            } else {
                                m.ggtt.remove(&page);
                            }
                        }
                    }
                    other => diagnostics.push((
                        *at,
                        format!("memory write in address space {other} (local memory) is not modelled; dropped"),
                    )),
                }
                None
            }
            Memtrace::Register { offset, value } => match *offset {
                RCS_EXECLIST_SUBMITPORT => {
                    m.elsp[m.elsp_index] = *value;
                    m.elsp_index += 1;
                    if m.elsp_index == 4 {
                        m.elsp_index = 0;
                        Some((
                            (m.elsp[2] as u64) << 32 | m.elsp[3] as u64,
                            super::TYPE_RING_PRB0,
                        ))
                    } else {
                        None
                    }
                }
                RCS_EXECLIST_SQ_CONTENTS | VECS_EXECLIST_SQ_CONTENTS => {
                    m.elsp[3] = *value;
                    None
                }
                o if o == RCS_EXECLIST_SQ_CONTENTS + 4 || o == VECS_EXECLIST_SQ_CONTENTS + 4 => {
                    m.elsp[2] = *value;
                    None
                }
                RCS_EXECLIST_CONTROL => Some((
                    (m.elsp[2] as u64) << 32 | m.elsp[3] as u64,
                    super::TYPE_RING_PRB0,
                )),
                VECS_EXECLIST_CONTROL => Some((
                    (m.elsp[2] as u64) << 32 | m.elsp[3] as u64,
                    super::TYPE_RING_PRB3,
                )),
                _ => {
                    events.push(Event::Mmio {
                        offset: *offset as u64,
                        values: vec![*value],
                    });
                    None
                }
            },
        };
        if let Some((d, ring)) = submit
            && let Err(e) = m.submit(d, ring, &mut events)
        {
            diagnostics.push((*at, format!("execlist submission: {e}; skipped")));
        }
    }
    (events, diagnostics)
}

/// Writes Gen8+ traces: the memtrace packets `intel_dump_gpu` writes, with a 4-level
/// PPGTT, one logical ring context per hardware context, and execlist submissions through
/// the Gen11 submit queue.
#[derive(Debug, Clone)]
pub struct MemtraceWriter {
    out: Vec<u8>,
    /// Next free physical page number.
    next_phys: u64,
    /// Next free GGTT page number.
    next_ggtt: u64,
    /// Physical address of each PPGTT table, by (level, virtual address prefix).
    tables: BTreeMap<(u8, u64), u64>,
    /// The PML4's physical address.
    pml4: u64,
    /// Each context's ring GGTT address (the PPHWSP follows at +4 KiB, the image at +8).
    contexts: BTreeMap<u32, u64>,
}

impl MemtraceWriter {
    /// A trace for `pci_id` (e.g. 0x8a52), starting with the version packet, the GGTT's
    /// first entry, and execlists enabled on the render engine.
    pub fn new(app: &str, pci_id: u32) -> Self {
        let mut w = MemtraceWriter {
            out: vec![],
            next_phys: 0,
            next_ggtt: 0,
            tables: BTreeMap::new(),
            pml4: 0,
            contexts: BTreeMap::new(),
        };
        let mut text = format!("PCI-ID=0x{pci_id:X} {app}").into_bytes();
        text.truncate(32);
        text.resize(text.len().div_ceil(4) * 4, 0);
        w.dw(CMD_MEM_TRACE_VERSION | (4 + text.len() as u32 / 4));
        w.dw(1); // file version
        w.dw(0); // device
        w.dw(0);
        w.dw(0);
        w.out.extend_from_slice(&text);
        w.pml4 = w.alloc_phys();
        w.register(RCS_GFX_MODE, 0x8000_8000);
        w
    }

    fn dw(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn alloc_phys(&mut self) -> u64 {
        let p = self.next_phys << 12;
        self.next_phys += 1;
        p
    }

    fn memory(&mut self, space: u32, addr: u64, data: &[u8]) {
        let dwords = data.len().div_ceil(4) as u32;
        self.dw(CMD_MEM_TRACE_MEMORY_WRITE | (4 + dwords));
        self.dw(addr as u32);
        self.dw((addr >> 32) as u32);
        self.dw(space << 28);
        self.dw(data.len() as u32);
        self.out.extend_from_slice(data);
        self.out.resize(self.out.len().div_ceil(4) * 4, 0);
    }

    fn register(&mut self, offset: u32, value: u32) {
        self.dw(CMD_MEM_TRACE_REGISTER_WRITE | 5);
        self.dw(offset);
        self.dw(2 << 16); // dword-sized, MMIO space
        self.dw(0xffff_ffff);
        self.dw(0);
        self.dw(value);
    }

    /// The physical page backing virtual page `va`, creating table entries on the way.
    fn ppgtt_page(&mut self, va: u64) -> u64 {
        let mut table = self.pml4;
        for level in (1..=4u8).rev() {
            let shift = 12 + 9 * (level as u64 - 1);
            let prefix = (va >> shift) << shift;
            let index = (va >> shift) & 0x1ff;
            let next = match self.tables.get(&(level, prefix)) {
                Some(p) => *p,
                None => {
                    let p = self.alloc_phys();
                    self.tables.insert((level, prefix), p);
                    self.memory(SPACE_PHYSICAL, table + index * 8, &(p | 3).to_le_bytes());
                    p
                }
            };
            table = next;
        }
        table
    }

    /// Records memory contents at a (48-bit) PPGTT address, page by page.
    pub fn write_memory(&mut self, addr: u64, data: &[u8]) {
        let mut at = addr & MASK48;
        let mut rest = data;
        while !rest.is_empty() {
            let off = (at & (PAGE - 1)) as usize;
            let n = rest.len().min(4096 - off);
            let page = self.ppgtt_page(at & !(PAGE - 1));
            self.memory(SPACE_PHYSICAL, page + off as u64, &rest[..n]);
            rest = &rest[n..];
            at += n as u64;
        }
    }

    /// GGTT pages for a context: ring, PPHWSP and context image (three pages), mapped
    /// to fresh physical pages; the image holds the ring registers and the PML4.
    fn context(&mut self, ctx: u32) -> u64 {
        if let Some(r) = self.contexts.get(&ctx) {
            return *r;
        }
        let ggtt = self.next_ggtt << 12;
        self.next_ggtt += 3;
        let mut entries = vec![];
        for _ in 0..3 {
            let p = self.alloc_phys();
            entries.extend_from_slice(&(p | 1).to_le_bytes());
        }
        self.memory(SPACE_GGTT_ENTRY, (ggtt >> 12) * 8, &entries);
        // The logical ring context image (Linux intel_lrc_reg.h register offsets from
        // RENDER_RING_BASE 0x2000): one MI_LOAD_REGISTER_IMM of (register, value) pairs
        // from dword 1, so that dword 2n+1 is a value: CTX_CTRL, RING_HEAD, RING_TAIL,
        // RING_START, RING_CTL, ..., PDP0_UDW at dword 48 and PDP0_LDW at 50.
        let mut image = [0u32; 64];
        image[1] = 0x1100_0000 | (2 * 25 - 1); // MI_LOAD_REGISTER_IMM, 25 pairs
        for (i, reg) in [
            (2, 0x2244u32), // CTX_CTRL
            (4, 0x2034),    // RING_HEAD
            (6, 0x2030),    // RING_TAIL
            (8, 0x2038),    // RING_START
            (10, 0x203c),   // RING_CTL
            (48, 0x2274),   // PDP0_UDW
            (50, 0x2270),   // PDP0_LDW
        ] {
            image[i] = reg;
        }
        image[9] = ggtt as u32; // RING_START: the ring page
        image[11] = 1; // RING_CTL: enabled, one page (length field 0)
        image[49] = (self.pml4 >> 32) as u32;
        image[51] = self.pml4 as u32;
        let bytes: Vec<u8> = image.iter().flat_map(|d| d.to_le_bytes()).collect();
        self.memory(SPACE_GGTT, ggtt + 2 * PAGE, &bytes);
        self.contexts.insert(ctx, ggtt);
        ggtt
    }

    /// Records a submission of the batch at `batch` in hardware context `ctx`: the ring
    /// holds MI_BATCH_BUFFER_START (48-bit address) and MI_NOOP; the image's head is 0
    /// and tail 16; the descriptor goes through the Gen11 submit queue.
    pub fn exec_in_context(&mut self, batch: u64, ctx: u32) {
        self.exec_on_engine(
            batch,
            ctx,
            (
                RCS_EXECLIST_SQ_CONTENTS,
                RCS_EXECLIST_CONTROL,
                RCS_EXECLIST_STATUS,
            ),
        );
    }

    /// [`Self::exec_in_context`] on the video enhancement engine (its execlist registers
    /// at [`VECS_BASE`]).
    pub fn exec_in_context_on_vecs(&mut self, batch: u64, ctx: u32) {
        self.exec_on_engine(
            batch,
            ctx,
            (
                VECS_EXECLIST_SQ_CONTENTS,
                VECS_EXECLIST_CONTROL,
                VECS_EXECLIST_STATUS,
            ),
        );
    }

    /// An execlist submission of `ctx` running `batch`, through the engine's submit
    /// queue, control and status registers `(sq, control, status)`.
    fn exec_on_engine(&mut self, batch: u64, ctx: u32, (sq, control, status): (u32, u32, u32)) {
        let ring = self.context(ctx);
        let batch = batch & MASK48;
        let cmds = [
            (0x31u32 << 23) | (1 << 8) | 1,
            batch as u32,
            (batch >> 32) as u32,
            0,
        ];
        let bytes: Vec<u8> = cmds.iter().flat_map(|d| d.to_le_bytes()).collect();
        self.memory(SPACE_GGTT, ring, &bytes);
        self.memory(SPACE_GGTT, ring + 2 * PAGE + 20, &0u32.to_le_bytes());
        self.memory(SPACE_GGTT, ring + 2 * PAGE + 28, &16u32.to_le_bytes());
        // Descriptor: the PPHWSP's GGTT address and Mesa's CONTEXT_FLAGS (0x339: valid,
        // legacy 64-bit PPGTT addressing, privileged, normal priority, L3-LLC coherent).
        let descriptor = (ring + PAGE) | 0x339;
        self.register(sq, descriptor as u32);
        self.register(sq + 4, (descriptor >> 32) as u32);
        self.register(control, 1);
        self.dw(CMD_MEM_TRACE_REGISTER_POLL | 5);
        self.dw(status);
        self.dw(2 << 16);
        self.dw(1);
        self.dw(0);
        self.dw(1);
    }

    /// Takes the bytes written so far.
    pub fn drain(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aub::{Event, parse};

    /// A trace written here reads back as the same memory at the same (48-bit) virtual
    /// addresses, and each execlist submission as its ring's MI_BATCH_BUFFER_START.
    #[test]
    fn written_traces_read_back() {
        let mut w = MemtraceWriter::new("test", 0x8a52);
        let batch = 0xffff_fffe_fffe_e000u64; // canonical, as iris pins its batches
        let data: Vec<u8> = (0..6000u32).map(|i| (i * 7) as u8).collect();
        w.write_memory(batch, &data);
        w.write_memory(0x1_0000_0040, b"surface");
        w.exec_in_context(batch, 3);
        w.exec_in_context(batch + 0x100, 4);
        w.exec_in_context_on_vecs(batch + 0x200, 5);
        let t = parse(&w.drain());
        assert!(t.error.is_none() && t.diagnostics.is_empty(), "{t:?}");
        assert_eq!(t.pci_id(), Some(0x8a52));
        let mut mem = gtsim_mem::AddressSpace::new();
        let mut execs = vec![];
        for e in &t.events {
            match e {
                Event::Write { addr, data, .. } => mem.load(*addr, data),
                Event::Exec {
                    offset,
                    commands,
                    ring,
                } => execs.push((*offset, commands.clone(), *ring)),
                _ => {}
            }
        }
        let mut back = vec![0u8; data.len()];
        mem.read(batch & MASK48, &mut back).unwrap();
        assert_eq!(back, data);
        let mut s = [0u8; 7];
        mem.read(0x1_0000_0040, &mut s).unwrap();
        assert_eq!(&s, b"surface");
        // Two submissions, each MI_BATCH_BUFFER_START (0x31 << 23, PPGTT, DWord Length 1)
        // with the 48-bit address, in two different contexts' rings.
        // The third, on the video enhancement engine, is tagged as its ring.
        assert_eq!(execs.len(), 3);
        assert_eq!(execs[0].1, [0x1880_0101, 0xfffe_e000, 0xfffe, 0]);
        assert_eq!(execs[1].1, [0x1880_0101, 0xfffe_e100, 0xfffe, 0]);
        assert_eq!(execs[2].1, [0x1880_0101, 0xfffe_e200, 0xfffe, 0]);
        assert_ne!(execs[0].0, execs[1].0);
        assert!(execs[0].0 >= RING_WINDOW);
        assert_eq!(
            [execs[0].2, execs[1].2, execs[2].2],
            [
                crate::aub::TYPE_RING_PRB0,
                crate::aub::TYPE_RING_PRB0,
                crate::aub::TYPE_RING_PRB3
            ]
        );
    }

    /// Hostile traces end in diagnostics, not hangs: page tables that point back at
    /// themselves, a descriptor naming unmapped memory, a write past its packet.
    #[test]
    fn hostile_traces_are_bounded() {
        let mut w = MemtraceWriter::new("test", 0x8a52);
        w.write_memory(0x1000, &[1; 64]);
        w.exec_in_context(0x1000, 1);
        // Every PML4 entry points at the PML4 (physical page 0): 512^4 "pages".
        let selfref: Vec<u8> = (0..512).flat_map(|_| 3u64.to_le_bytes()).collect();
        w.memory(SPACE_PHYSICAL, 0, &selfref);
        w.exec_in_context(0x1000, 1);
        // A descriptor at an unmapped GGTT address.
        w.register(RCS_EXECLIST_SQ_CONTENTS, 0x7fff_f000);
        w.register(RCS_EXECLIST_SQ_CONTENTS + 4, 0);
        w.register(RCS_EXECLIST_CONTROL, 1);
        let t = parse(&w.drain());
        let d: Vec<&String> = t.diagnostics.iter().map(|(_, m)| m).collect();
        assert!(d.iter().any(|m| m.contains("more than")), "{d:?}");
        assert!(d.iter().any(|m| m.contains("not mapped")), "{d:?}");
        // A memory write whose size runs past its packet.
        let mut bad = MemtraceWriter::new("test", 0x8a52);
        bad.dw(CMD_MEM_TRACE_MEMORY_WRITE | 4);
        bad.dw(0);
        bad.dw(0);
        bad.dw(SPACE_PHYSICAL << 28);
        bad.dw(4096);
        let t = parse(&bad.drain());
        assert!(
            t.diagnostics.iter().any(|(_, m)| m.contains("runs past")),
            "{t:?}"
        );
    }
}
