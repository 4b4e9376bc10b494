//! What a Gen7 `send` asks for: its shared function (decoded from the instruction's
//! `EU_SFID` by the instruction decoder) and its message descriptor
//! (`defs/gen7/messages.spec`), decoded once per message into the pipeline's
//! [`MessageKind`].

use gtsim_dataport::rt_message::{RtHeader, RtSubtype, RtWrite};
use gtsim_dataport::urb::UrbWrite;
use gtsim_eu::exec::{Message, MessageError};
use gtsim_isa::ir::Sfid;
use gtsim_pipe3d::state::MessageKind;
use gtsim_spec::Unsupported;
use gtsim_spec::gen7::message_descriptor_render_target_write::{MessageSubtype, SlotGroupSelect};
use gtsim_spec::gen7::message_descriptor_urb::UrbOpcode;
use gtsim_spec::gen7::{
    DataPortRenderCacheMessageType, MessageDescriptorRenderCacheDataPort,
    MessageDescriptorRenderTargetWrite, MessageDescriptorUrb, MessageHeaderRenderTargetWrite,
    MessageHeaderUrb,
};

/// The kind of message `m` is.
pub(crate) fn kind(m: &Message) -> MessageKind {
    match m.sfid {
        Sfid::Null => MessageKind::Null,
        Sfid::Sampler => MessageKind::Sampler,
        Sfid::Urb => urb(m),
        // Seed 000 §3.9.2.1.1: the render cache's message types.
        Sfid::DataPortRenderCache => {
            match MessageDescriptorRenderCacheDataPort::unpack(&[m.desc]) {
                Ok(d) if d.message_type == DataPortRenderCacheMessageType::RENDER_TARGET_WRITE => {
                    match render_target_write(m) {
                        Ok(rt) => MessageKind::RenderTargetWrite(rt),
                        Err(e) => MessageKind::Invalid(e),
                    }
                }
                _ => MessageKind::Other { sfid: m.sfid },
            }
        }
        _ => MessageKind::Other { sfid: m.sfid },
    }
}

/// A URB message (IVB PRM Vol4 Part2 "URB"): the interleaved SIMD4x2 HWord and OWord
/// writes, with their header (the first payload register) and optional per-slot
/// offsets, are the ones the model carries out.
fn urb(m: &Message) -> MessageKind {
    let desc = m.desc;
    let d = match MessageDescriptorUrb::unpack(&[desc]) {
        Ok(d) => d,
        Err(e) => {
            return MessageKind::Invalid(MessageError::State {
                structure: "URB message descriptor",
                why: format!("{desc:#010x}: {e}"),
            });
        }
    };
    let oword = d.urb_opcode == UrbOpcode::WRITE_OWORD;
    if !(oword || d.urb_opcode == UrbOpcode::WRITE_HWORD) || !d.interleave {
        return MessageKind::Unsupported(Unsupported::new(
            format!(
                "URB message {} (interleave {})",
                d.urb_opcode.name().unwrap_or("reserved"),
                d.interleave,
            ),
            "IVB PRM Vol4 Part2 URB",
        ));
    }
    let Some(reg) = m.payload.first().filter(|_| d.header_present) else {
        return MessageKind::Invalid(gtsim_message::invalid(
            "URB write without its header (the URB handles)",
        ));
    };
    let dws: Vec<u32> = reg
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    match MessageHeaderUrb::unpack(&dws) {
        Ok(h) => MessageKind::UrbWrite(UrbWrite {
            oword,
            global_offset: usize::from(d.global_offset),
            handles: [usize::from(h.urb_handle_0), usize::from(h.urb_handle_1)],
            channel_mask: h.channel_mask,
            // M0.3/M0.4: only with Per-Slot Offset; otherwise the header's copy of R0
            // has other bits there.
            slot_offsets: if d.per_slot_offset {
                [h.slot_0_offset as usize, h.slot_1_offset as usize]
            } else {
                [0, 0]
            },
            vertex_counts: [
                u32::from(h.gs_vertex_count_slot_0),
                u32::from(h.gs_vertex_count_slot_1),
            ],
        }),
        Err(e) => MessageKind::Invalid(MessageError::State {
            structure: "URB message header",
            why: e.to_string(),
        }),
    }
}

/// A render target write (seed 000 §3.9.11.2 descriptor, §3.9.11.3 header: the first two
/// payload registers when the descriptor says one is present).
fn render_target_write(m: &Message) -> Result<RtWrite, MessageError> {
    let desc = m.desc;
    let d =
        MessageDescriptorRenderTargetWrite::unpack(&[desc]).map_err(|e| MessageError::State {
            structure: "render target write descriptor",
            why: format!("{desc:#010x}: {e}"),
        })?;
    let header = if d.header_present {
        match m.payload.get(..2) {
            Some(regs) => {
                let dws: Vec<u32> = regs
                    .iter()
                    .flat_map(|r| r.chunks_exact(4))
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                let h = MessageHeaderRenderTargetWrite::unpack(&dws).map_err(|e| {
                    MessageError::State {
                        structure: "render target write header",
                        why: e.to_string(),
                    }
                })?;
                Some(RtHeader {
                    array_index: u32::from(h.render_target_array_index),
                    render_target_index: h.render_target_index,
                    pixel_enables: u32::from(h.pixel_sample_enables),
                    source_depth: h.source_depth_present_to_render_target,
                    omask: h.o_mask_to_render_target,
                    source0_alpha: h.source0_alpha_present_to_render_target,
                })
            }
            // Too short for its header: the data port reports the short payload.
            None => Some(RtHeader::default()),
        }
    } else {
        None
    };
    Ok(RtWrite {
        subtype: match d.message_subtype {
            MessageSubtype::SIMD16 => RtSubtype::Simd16,
            MessageSubtype::SIMD16_REPDATA => RtSubtype::Simd16RepData,
            MessageSubtype::SIMD8_LO => RtSubtype::Simd8Lo,
            other => RtSubtype::Other(other.name().unwrap_or("reserved")),
        },
        slot_group_hi: d.slot_group_select == SlotGroupSelect::SLOTGRP_HI,
        last: d.last_render_target_select,
        binding_table_index: d.binding_table_index,
        header,
    })
}
