//! The URB as the VS sees it: the output VUEs its threads write with URB write messages
//! (IVB PRM Vol4 Part2 "URB"; seed 004 §1.9 "URB payload" and §3.4.1 "Vertex Output").
//!
//! A VUE is a list of 128-bit slots: slot 0 the vertex header, slot 1 the position, then
//! the attributes (seed 004 §1.8 "VUE formats"). A SIMD4x2 write with "Interleave" set
//! carries, after its header, registers whose dwords 0-3 go to the VUE of URB handle 0
//! (header dword 0) and dwords 4-7 to the VUE of handle 1 (header dword 1), at slot
//! 2 x Global Offset (which counts 256-bit rows) + register index; header dword 5 bits 15:8 enable the eight dwords of
//! each register, and execution channels 0-3 / 4-7 enable each vertex.

use crate::state::{Front, MessageKind, ShaderStage};
use gtsim_eu::exec::{Message, MessageError, SharedFunctions};
use gtsim_mem::Memory;
use gtsim_message::invalid;
use gtsim_spec::Unsupported;

/// One vertex's URB entry: 128-bit slots of raw dwords.
pub type Vue = Vec<[u32; 4]>;

/// The shared functions a VS thread reaches: the URB, for its output VUEs, and the
/// sampler.
pub(super) struct VsMessages<'a> {
    vues: Vec<Vue>,
    front: &'a dyn Front,
    mem: &'a dyn Memory,
}

impl<'a> VsMessages<'a> {
    /// Output entries for `n` (1 or 2) vertices, URB handles 0 and 1.
    pub fn new(n: usize, front: &'a dyn Front, mem: &'a dyn Memory) -> VsMessages<'a> {
        VsMessages {
            vues: vec![Vec::new(); n],
            front,
            mem,
        }
    }

    /// The VUEs written.
    pub fn into_vues(self) -> Vec<Vue> {
        self.vues
    }
}

fn dword(reg: &[u8; 32], i: usize) -> u32 {
    u32::from_le_bytes([reg[i * 4], reg[i * 4 + 1], reg[i * 4 + 2], reg[i * 4 + 3]])
}

impl SharedFunctions for VsMessages<'_> {
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError> {
        let (global_offset, header) = match self.front.message(m) {
            MessageKind::Sampler => {
                return self.front.sample(ShaderStage::Vertex, self.mem, m);
            }
            MessageKind::UrbWrite {
                global_offset,
                header,
            } => (global_offset, header),
            MessageKind::Unsupported(u) => return Err(u.into()),
            MessageKind::Invalid(e) => return Err(e),
            MessageKind::Null | MessageKind::RenderTargetWrite(_) | MessageKind::Other { .. } => {
                return Err(Unsupported::new(
                    format!("VS messages to shared function {}", m.sfid),
                    "seed 000 §1.5",
                )
                .into());
            }
        };
        let header = m
            .payload
            .first()
            .filter(|_| header)
            .ok_or_else(|| invalid("URB write without its header (the URB handles)"))?;
        let enables = (dword(header, 5) >> 8) & 0xff;
        for (k, reg) in m.payload.iter().enumerate().skip(1) {
            // Global Offset counts 256-bit URB rows; an interleaved register carries half
            // a row (one 128-bit slot) of each vertex (Mesa brw_vec4_visitor emit_vertex:
            // "URB offset is in URB row increments, and each of our MRFs is half of one").
            let slot = 2 * global_offset + k - 1;
            for v in 0..2 {
                if m.channel_mask & (0xf << (4 * v)) == 0 {
                    continue;
                }
                let handle = (dword(header, v) & 0xffff) as usize;
                let vue = self.vues.get_mut(handle).ok_or_else(|| {
                    invalid(format!(
                        "URB write to handle {handle}, which this thread was not given"
                    ))
                })?;
                if vue.len() <= slot {
                    vue.resize(slot + 1, [0; 4]);
                }
                for (c, out) in vue[slot].iter_mut().enumerate() {
                    let dw = v * 4 + c;
                    if enables & (1 << dw) != 0 && m.channel_mask & (1 << dw) != 0 {
                        *out = dword(reg, dw);
                    }
                }
            }
        }
        Ok(vec![[0u8; 32]; m.response_length as usize])
    }
}
