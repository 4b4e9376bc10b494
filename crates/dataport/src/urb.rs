//! The URB as the vertex shader writes it: its output VUEs, filled by URB write messages
//! (IVB PRM Vol4 Part2 "URB"; seed 004 §1.9 "URB payload" and §3.4.1 "Vertex Output").
//!
//! A VUE is a list of 128-bit slots: slot 0 the vertex header, slot 1 the position, then
//! the attributes (seed 004 §1.8 "VUE formats"). An interleaved SIMD4x2 write carries,
//! after its header, registers whose dwords 0-3 go to the VUE of the first URB handle and
//! dwords 4-7 to the VUE of the second, at slot 2 x Global Offset (which counts 256-bit
//! rows) + register index; the header's channel mask enables the eight dwords of each
//! register, and execution channels 0-3 / 4-7 enable each vertex.
//!
//! A write with per-slot offsets adds each handle's Slot Offset from the header (also in
//! 256-bit rows) to the Global Offset (IVB PRM Vol4 Part2 §2.4.3.1 M0.3/M0.4): the GS
//! writes its output vertices that way, one entry per object or instance (seed 004
//! §7.5.1.1), and reports how many it wrote in the header of its EOT write (M0.2).
//! URB_WRITE_OWORD writes one 128-bit slot per handle, its offsets counting 128-bit
//! slots ("causes offsets to be interpreted as multiples of an OWORD instead of an
//! HWORD, and only allows one OWORD to be written", Mesa brw_eu_defines.h
//! BRW_URB_WRITE_OWORD): the GS's control data header is written that way.

use gtsim_message::{MessageError, invalid};

/// One vertex's URB entry: 128-bit slots of raw dwords.
pub type Vue = Vec<[u32; 4]>;

/// The most 128-bit slots a URB entry can have: Gen7's largest entry allocation is 512
/// 64-byte units (3DSTATE_URB_* Entry Allocation Size, seed 004 §1.7), 32 KiB. A write
/// past it is the guest's mistake, reported rather than grown without bound.
pub const MAX_SLOTS: usize = 512 * 4;

/// An interleaved SIMD4x2 URB write, its descriptor and header decoded by the
/// generation's front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrbWrite {
    /// URB_WRITE_OWORD: one 128-bit slot per handle, offsets in 128-bit slots
    /// (otherwise URB_WRITE_HWORD, offsets in 256-bit rows).
    pub oword: bool,
    /// Interleaved (SIMD4x2: dwords 0-3 to the first handle, 4-7 to the second);
    /// otherwise every dword goes to the first handle, a register filling two slots
    /// (URB_NOSWIZZLE; an OWord write's dwords 0-3 only).
    pub interleave: bool,
    /// Global Offset, in 256-bit URB rows (128-bit slots for an OWord write).
    pub global_offset: usize,
    /// The URB handles of the two vertices (indices of the entries the thread owns).
    pub handles: [usize; 2],
    /// The header's channel mask: one bit per dword of each data register.
    pub channel_mask: u8,
    /// Per-slot offsets of the two handles' entries, in the Global Offset's units (zero
    /// unless the descriptor's Per-Slot Offset is set).
    pub slot_offsets: [usize; 2],
    /// The header's output vertex count of each slot (M0.2): what a GS thread's EOT
    /// write reports; other stages' headers carry other bits there.
    pub vertex_counts: [u32; 2],
}

fn dword(reg: &[u8; 32], i: usize) -> u32 {
    u32::from_le_bytes([reg[i * 4], reg[i * 4 + 1], reg[i * 4 + 2], reg[i * 4 + 3]])
}

/// Writes the data registers `data` (the payload after the header) of `w` into `vues`
/// (the entries the thread owns, by handle); `exec_mask` is the send's execution mask.
pub fn write(
    vues: &mut [Vue],
    w: &UrbWrite,
    data: &[[u8; 32]],
    exec_mask: u32,
) -> Result<(), MessageError> {
    if w.oword && data.len() != 1 {
        return Err(invalid(format!(
            "URB OWord write with {} data registers (it writes exactly one OWord per handle)",
            data.len()
        )));
    }
    if !w.interleave {
        return write_linear(vues, w, data, exec_mask);
    }
    for (k, reg) in data.iter().enumerate() {
        // Global Offset counts 256-bit URB rows; an interleaved register carries half a
        // row (one 128-bit slot) of each vertex (Mesa brw_vec4_visitor emit_vertex: "URB
        // offset is in URB row increments, and each of our MRFs is half of one").
        for (v, &handle) in w.handles.iter().enumerate() {
            if exec_mask & (0xf << (4 * v)) == 0 {
                continue;
            }
            let base = w.global_offset.saturating_add(w.slot_offsets[v]);
            let slot = if w.oword {
                base
            } else {
                base.saturating_mul(2).saturating_add(k)
            };
            if slot >= MAX_SLOTS {
                return Err(invalid(format!(
                    "URB write to 128-bit slot {slot} of handle {handle}, past the largest URB entry ({MAX_SLOTS} slots)"
                )));
            }
            let vue = vues.get_mut(handle).ok_or_else(|| {
                invalid(format!(
                    "URB write to handle {handle}, which this thread was not given"
                ))
            })?;
            if vue.len() <= slot {
                vue.resize(slot + 1, [0; 4]);
            }
            for (c, out) in vue[slot].iter_mut().enumerate() {
                let dw = v * 4 + c;
                if w.channel_mask & (1 << dw) != 0 && exec_mask & (1 << dw) != 0 {
                    *out = dword(reg, dw);
                }
            }
        }
    }
    Ok(())
}

/// A non-interleaved write: all eight dwords of each data register to the first
/// handle's entry, register k filling slots 2 (Global Offset + Slot 0 Offset) + 2k and
/// the next (the channel mask's bit d enables dword d, "Vertex 0 DATA[d]" under
/// URB_NOSWIZZLE); an OWord write fills the one slot at its offset from dwords 0-3.
fn write_linear(
    vues: &mut [Vue],
    w: &UrbWrite,
    data: &[[u8; 32]],
    exec_mask: u32,
) -> Result<(), MessageError> {
    let handle = w.handles[0];
    let vue = vues.get_mut(handle).ok_or_else(|| {
        invalid(format!(
            "URB write to handle {handle}, which this thread was not given"
        ))
    })?;
    let base = w.global_offset.saturating_add(w.slot_offsets[0]);
    for (k, reg) in data.iter().enumerate() {
        for half in 0..if w.oword { 1 } else { 2 } {
            let slot = if w.oword {
                base
            } else {
                base.saturating_mul(2).saturating_add(2 * k + half)
            };
            if slot >= MAX_SLOTS {
                return Err(invalid(format!(
                    "URB write to 128-bit slot {slot} of handle {handle}, past the largest URB entry ({MAX_SLOTS} slots)"
                )));
            }
            if vue.len() <= slot {
                vue.resize(slot + 1, [0; 4]);
            }
            for (c, out) in vue[slot].iter_mut().enumerate() {
                let dw = half * 4 + c;
                if w.channel_mask & (1 << dw) != 0 && exec_mask & (1 << dw) != 0 {
                    *out = dword(reg, dw);
                }
            }
        }
    }
    Ok(())
}

/// An interleaved SIMD4x2 URB read (URB_READ_HWORD or URB_READ_OWORD), its descriptor
/// and header decoded by the generation's front: the HS reads its input control points,
/// the DS its patch record, by handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrbRead {
    /// URB_READ_OWORD: one 128-bit slot per handle, offsets in slots (otherwise
    /// URB_READ_HWORD, offsets in 256-bit rows, one slot per handle per register).
    pub oword: bool,
    /// Interleaved (SIMD4x2); otherwise the first handle's slots fill whole registers
    /// (an OWord read its dwords 0-3).
    pub interleave: bool,
    /// Global Offset.
    pub global_offset: usize,
    /// The URB handles of the two halves.
    pub handles: [usize; 2],
    /// Per-slot offsets (zero without Per-Slot Offset).
    pub slot_offsets: [usize; 2],
}

/// The `response_length` registers of read `r` from `entries` (by handle): register k
/// holds, in dwords 0-3, the slot the first handle's offsets and k select and, in dwords
/// 4-7, the second handle's. Slots never written, or past the entry, read as zeros (the
/// model's URB starts cleared; the hardware's holds whatever was there).
pub fn read(
    entries: &[Vue],
    r: &UrbRead,
    response_length: usize,
) -> Result<Vec<[u8; 32]>, MessageError> {
    if r.oword && response_length > 1 {
        return Err(invalid(format!(
            "URB OWord read with a response of {response_length} registers (it reads one OWord per handle)"
        )));
    }
    let mut out = vec![[0u8; 32]; response_length];
    let halves = if r.interleave { 2 } else { 1 };
    for (k, reg) in out.iter_mut().enumerate() {
        for (v, &handle) in r.handles.iter().enumerate().take(halves) {
            let entry = entries.get(handle).ok_or_else(|| {
                invalid(format!(
                    "URB read from handle {handle}, which this thread was not given"
                ))
            })?;
            let base = r.global_offset.saturating_add(r.slot_offsets[v]);
            // Interleaved: this handle's slot in its half; otherwise two slots a register
            // from the first handle (one for an OWord read).
            let parts = if r.interleave || r.oword { 1 } else { 2 };
            for part in 0..parts {
                let slot = if r.oword {
                    base
                } else if r.interleave {
                    base.saturating_mul(2).saturating_add(k)
                } else {
                    base.saturating_mul(2).saturating_add(2 * k + part)
                };
                // Past the entry (even past the largest entry) a read returns zeros:
                // Mesa bounds-checks a dynamic index by replacing it with 0x0fffffff
                // and reads there (brw's vec4 TES and TCS), so a read far out must not
                // stop the thread; what the hardware returns there is not specified.
                let value = entry.get(slot).copied().unwrap_or([0; 4]);
                for (c, dw) in value.iter().enumerate() {
                    let at = ((v + part) * 4 + c) * 4;
                    reg[at..at + 4].copy_from_slice(&dw.to_le_bytes());
                }
            }
        }
    }
    Ok(out)
}

/// A Gen8+ SIMD8 URB write (URB opcode SIMD8_WRITE), its descriptor and payload header
/// decoded by the generation's front: one URB handle per execution channel (seed 003
/// "URB Handle Message Header": "Handle n: the URB handle where slot n results are
/// written"), each channel's offset added to the Global Offset, both in OWords (seed
/// 003 "SIMD8 URB Offset Message Address Payload"), and each channel's mask of the
/// dwords it writes (seed 003 "URB Channel Mask Payload Control": "ANDed with the
/// slot's execution mask").
///
/// Data register k holds dword k of the written range for the eight channels, dword i
/// of the register channel i's: OWord `Global Offset + Slot Offset + k / 4` of the
/// channel's entry, component `k % 4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Simd8Write {
    /// Global Offset, in OWords (128-bit slots).
    pub global_offset: usize,
    /// Each channel's URB handle (the index of an entry the thread owns).
    pub handles: [usize; 8],
    /// Each channel's Slot Offset, in OWords (zero without Per Slot Offset).
    pub slot_offsets: [usize; 8],
    /// Each channel's Channel Mask: bit k enables data register k (all ones without
    /// Channel Mask Present).
    pub channel_masks: [u8; 8],
}

/// Writes the data registers `data` of SIMD8 write `w` into `vues`; `exec_mask` is the
/// send's execution mask (channel i: bit i).
pub fn write_simd8(
    vues: &mut [Vue],
    w: &Simd8Write,
    data: &[[u8; 32]],
    exec_mask: u32,
) -> Result<(), MessageError> {
    if data.len() > 8 {
        return Err(invalid(format!(
            "URB SIMD8 write with {} data registers (at most 8: two OWords per channel)",
            data.len()
        )));
    }
    for channel in 0..8 {
        if exec_mask & (1 << channel) == 0 {
            continue;
        }
        let handle = w.handles[channel];
        let base = w.global_offset.saturating_add(w.slot_offsets[channel]);
        for (k, reg) in data.iter().enumerate() {
            if w.channel_masks[channel] & (1 << k) == 0 {
                continue;
            }
            let slot = base.saturating_add(k / 4);
            if slot >= MAX_SLOTS {
                return Err(invalid(format!(
                    "URB write to 128-bit slot {slot} of handle {handle}, past the largest URB entry ({MAX_SLOTS} slots)"
                )));
            }
            let vue = vues.get_mut(handle).ok_or_else(|| {
                invalid(format!(
                    "URB write to handle {handle}, which this thread was not given"
                ))
            })?;
            if vue.len() <= slot {
                vue.resize(slot + 1, [0; 4]);
            }
            vue[slot][k % 4] = dword(reg, channel);
        }
    }
    Ok(())
}

/// A Gen8+ SIMD8 URB read (URB opcode SIMD8_READ): the same addressing as
/// [`Simd8Write`], without channel masks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Simd8Read {
    /// Global Offset, in OWords.
    pub global_offset: usize,
    /// Each channel's URB handle.
    pub handles: [usize; 8],
    /// Each channel's Slot Offset, in OWords (zero without Per Slot Offset).
    pub slot_offsets: [usize; 8],
}

/// The `response_length` registers of SIMD8 read `r` from `entries`: register k holds,
/// in dword i, dword k of channel i's range (OWord `Global Offset + Slot Offset + k / 4`,
/// component `k % 4`). Disabled channels and slots never written read as zeros, as
/// [`read`]'s do.
pub fn read_simd8(
    entries: &[Vue],
    r: &Simd8Read,
    response_length: usize,
    exec_mask: u32,
) -> Result<Vec<[u8; 32]>, MessageError> {
    let mut out = vec![[0u8; 32]; response_length];
    for channel in 0..8 {
        if exec_mask & (1 << channel) == 0 {
            continue;
        }
        let handle = r.handles[channel];
        let entry = entries.get(handle).ok_or_else(|| {
            invalid(format!(
                "URB read from handle {handle}, which this thread was not given"
            ))
        })?;
        let base = r.global_offset.saturating_add(r.slot_offsets[channel]);
        for (k, reg) in out.iter_mut().enumerate() {
            let value = entry
                .get(base.saturating_add(k / 4))
                .map_or(0, |s| s[k % 4]);
            reg[channel * 4..channel * 4 + 4].copy_from_slice(&value.to_le_bytes());
        }
    }
    Ok(out)
}
