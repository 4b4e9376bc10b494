//! What a Gen7 `send` asks for: its shared function (decoded from the instruction's
//! `EU_SFID` by the instruction decoder) and its message descriptor
//! (`defs/gen7/messages.spec`), decoded once per message into the pipeline's
//! [`MessageKind`].

use gtsim_dataport::rt_message::{RtHeader, RtSubtype, RtWrite};
use gtsim_dataport::urb::{UrbRead, UrbWrite};
use gtsim_eu::exec::{Message, MessageError};
use gtsim_isa::ir::Sfid;
use gtsim_pipe3d::state::MessageKind;
use gtsim_spec::Unsupported;
use gtsim_spec::gen7::message_descriptor_gateway::SubFunctionId;
use gtsim_spec::gen7::message_descriptor_render_target_write::{MessageSubtype, SlotGroupSelect};
use gtsim_spec::gen7::message_descriptor_urb::UrbOpcode;
use gtsim_spec::gen7::{
    MessageDescriptorGateway, MessageDescriptorRenderTargetWrite, MessageDescriptorUrb,
    MessageHeaderGatewayBarrier, MessageHeaderRenderTargetWrite, MessageHeaderUrb,
};

/// The kind of message `m` is.
pub(crate) fn kind(m: &Message) -> MessageKind {
    match m.sfid {
        Sfid::Null => MessageKind::Null,
        Sfid::Sampler => MessageKind::Sampler,
        Sfid::Urb => urb(m),
        Sfid::PixelInterpolator => gtsim_pipe3d::state::PiMessage::decode(m),
        Sfid::Gateway => gateway(m),
        // A GPGPU thread ends with a message to the thread spawner with End of Thread
        // (IVB PRM Vol4 Part2 "Thread Spawner"; Mesa's Gen7 CS_OPCODE_CS_TERMINATE);
        // the spawner's other messages (root and child threads) are not modelled.
        Sfid::ThreadSpawner if m.eot => MessageKind::Null,
        Sfid::ThreadSpawner => MessageKind::Unsupported(Unsupported::new(
            "thread spawner messages other than the end of a thread",
            "IVB PRM Vol4 Part2 Thread Spawner",
        )),
        // Seed 000 §3.9.2.1.1: the data port's message types per target cache; the
        // render target write has its own decoder.
        Sfid::DataPortRenderCache
        | Sfid::DataPortDataCache
        | Sfid::DataPortConstantCache
        | Sfid::DataPortSamplerCache => match crate::data_port::decode(m.sfid, m.desc) {
            Ok(Some(d)) => MessageKind::DataPort(d),
            Ok(None) => match render_target_write(m) {
                Ok(rt) => MessageKind::RenderTargetWrite(rt),
                Err(e) => MessageKind::Invalid(e),
            },
            Err(MessageError::Unsupported(u)) => MessageKind::Unsupported(u),
            Err(e) => MessageKind::Invalid(e),
        },
        _ => MessageKind::Other { sfid: m.sfid },
    }
}

/// A URB message (IVB PRM Vol4 Part2 "URB"): the interleaved SIMD4x2 HWord and OWord
/// writes and reads, with their header (the first payload register) and optional
/// per-slot offsets, are the ones the model carries out (the atomics are not).
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
    let oword = matches!(d.urb_opcode, UrbOpcode::WRITE_OWORD | UrbOpcode::READ_OWORD);
    let reading = matches!(d.urb_opcode, UrbOpcode::READ_HWORD | UrbOpcode::READ_OWORD);
    let writing = matches!(
        d.urb_opcode,
        UrbOpcode::WRITE_HWORD | UrbOpcode::WRITE_OWORD
    );
    if !(reading || writing) {
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
        Ok(h) if reading => MessageKind::UrbRead(UrbRead {
            oword,
            interleave: d.interleave,
            global_offset: usize::from(d.global_offset),
            handles: [usize::from(h.urb_handle_0), usize::from(h.urb_handle_1)],
            slot_offsets: if d.per_slot_offset {
                [h.slot_0_offset as usize, h.slot_1_offset as usize]
            } else {
                [0, 0]
            },
        }),
        Ok(h) => MessageKind::UrbWrite(UrbWrite {
            oword,
            interleave: d.interleave,
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

/// A message gateway message (IVB PRM Vol4 Part2 "Message Gateway"): the barrier
/// message, its header's M0.2 decoded; the other sub-functions are not modelled.
fn gateway(m: &Message) -> MessageKind {
    let desc = m.desc;
    let d = match MessageDescriptorGateway::unpack(&[desc]) {
        Ok(d) => d,
        Err(e) => {
            return MessageKind::Invalid(MessageError::State {
                structure: "message gateway descriptor",
                why: format!("{desc:#010x}: {e}"),
            });
        }
    };
    if d.sub_function_id != SubFunctionId::BARRIER_MESSAGE {
        return MessageKind::Unsupported(Unsupported::new(
            format!(
                "message gateway {}",
                d.sub_function_id.name().unwrap_or("reserved sub-function")
            ),
            "IVB PRM Vol4 Part2 Message Gateway",
        ));
    }
    let Some(reg) = m.payload.first() else {
        return MessageKind::Invalid(gtsim_message::invalid("barrier message without its header"));
    };
    let dws: Vec<u32> = reg
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    match MessageHeaderGatewayBarrier::unpack(&dws) {
        Ok(h) => MessageKind::Barrier {
            id: u32::from(h.barrier_id),
            count: h.barrier_count_enable.then_some(u32::from(h.barrier_count)),
        },
        Err(e) => MessageKind::Invalid(MessageError::State {
            structure: "barrier message header",
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
                    // Gen7 has no computed stencil.
                    stencil: false,
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
            MessageSubtype::SIMD8_DUALSRC_LO => RtSubtype::Simd8Dual { hi: false },
            MessageSubtype::SIMD8_DUALSRC_HI => RtSubtype::Simd8Dual { hi: true },
            other => RtSubtype::Other(other.name().unwrap_or("reserved")),
        },
        slot_group_hi: d.slot_group_select == SlotGroupSelect::SLOTGRP_HI,
        last: d.last_render_target_select,
        binding_table_index: d.binding_table_index,
        header,
        extended: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gtsim_message::Payload;

    fn message(sfid: Sfid, desc: u32, header: [u32; 8]) -> Message {
        let mut payload = Payload::new();
        let mut reg = [0u8; 32];
        for (i, d) in header.iter().enumerate() {
            reg[4 * i..4 * i + 4].copy_from_slice(&d.to_le_bytes());
        }
        payload.push(reg);
        Message {
            sfid,
            desc,
            ex_desc: 0,
            payload2: Payload::new(),
            exec_size: 8,
            channel_mask: 0xff,
            first_channel: 0,
            payload,
            response_length: 0,
            dst: 0,
            eot: false,
            ip: 0,
        }
    }

    /// crocus's TCS barrier (descriptor 0x02000004): M0.2 = Barrier ID << 24 | 1 << 15 |
    /// instances << 9, here barrier 3 joined by 2 threads.
    #[test]
    fn a_barrier_message_names_its_barrier_and_thread_count() {
        let m = message(
            Sfid::Gateway,
            0x0200_0004,
            [0, 0, 3 << 24 | 0x8400, 0, 0, 0, 0, 0],
        );
        assert_eq!(
            kind(&m),
            MessageKind::Barrier {
                id: 3,
                count: Some(2)
            }
        );
        let m = message(Sfid::Gateway, 0x0200_0004, [0, 0, 3 << 24, 0, 0, 0, 0, 0]);
        assert_eq!(kind(&m), MessageKind::Barrier { id: 3, count: None });
        // The other sub-functions are not modelled, and say so.
        let m = message(Sfid::Gateway, 0x0200_0000, [0; 8]);
        assert!(
            matches!(kind(&m), MessageKind::Unsupported(u) if u.to_string().contains("open gateway"))
        );
    }

    /// Per-slot offsets are read from M0.3/M0.4 only with the descriptor's Per-Slot
    /// Offset; the GS's vertex counts from M0.2's words; OWord writes are flagged.
    #[test]
    fn urb_write_headers_give_slot_offsets_and_vertex_counts() {
        let header = [1, 2, 0x0003_0006, 4, 5, 0xff00, 0, 0];
        let w = |desc| match kind(&message(Sfid::Urb, desc, header)) {
            MessageKind::UrbWrite(w) => w,
            other => panic!("{other:?}"),
        };
        let plain = w(0x0a08_c000);
        assert_eq!(plain.slot_offsets, [0, 0]);
        assert_eq!(plain.handles, [1, 2]);
        assert!(!plain.oword);
        let per_slot = w(0x0a09_4008);
        assert_eq!(per_slot.slot_offsets, [4, 5]);
        assert_eq!(per_slot.global_offset, 1);
        assert_eq!(per_slot.vertex_counts, [6, 3]);
        assert!(w(0x0408_4001).oword);
    }
}
