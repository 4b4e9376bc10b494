//! What a Gen7 `send` asks for: its SFID (IVB PRM Vol4 Part3 "send", `EU_SFID` in
//! `defs/gen7/eu.spec`) and message descriptor (`defs/gen7/messages.spec`), decoded once
//! per message into the pipeline's [`MessageKind`].

use gtsim_eu::exec::Message;
use gtsim_pipe3d::state::MessageKind;
use gtsim_spec::gen7::message_descriptor_urb::UrbOpcode;
use gtsim_spec::gen7::{
    DataPortRenderCacheMessageType, EuSfid, MessageDescriptorRenderCacheDataPort,
    MessageDescriptorUrb,
};

/// The kind of message `m` is.
pub(crate) fn kind(m: &Message) -> MessageKind {
    match EuSfid(u32::from(m.sfid)) {
        EuSfid::NULL => MessageKind::Null,
        EuSfid::SAMPLER => MessageKind::Sampler,
        EuSfid::URB => urb(m.desc),
        // Seed 000 §3.9.2.1.1: the render cache's message types.
        EuSfid::DATA_PORT_RENDER_CACHE => {
            match MessageDescriptorRenderCacheDataPort::unpack(&[m.desc]) {
                Ok(d) if d.message_type == DataPortRenderCacheMessageType::RENDER_TARGET_WRITE => {
                    MessageKind::RenderTargetWrite
                }
                _ => MessageKind::Other { sfid: m.sfid },
            }
        }
        _ => MessageKind::Other { sfid: m.sfid },
    }
}

/// A URB message (IVB PRM Vol4 Part2 "URB"): the interleaved SIMD4x2 HWord write is the
/// one the model carries out.
fn urb(desc: u32) -> MessageKind {
    let d = match MessageDescriptorUrb::unpack(&[desc]) {
        Ok(d) => d,
        Err(e) => {
            return MessageKind::Invalid {
                why: format!("URB descriptor {desc:#010x}: {e}"),
            };
        }
    };
    if d.urb_opcode != UrbOpcode::WRITE_HWORD || !d.interleave || d.per_slot_offset {
        return MessageKind::Unsupported {
            what: format!(
                "URB message {} (interleave {}, per-slot offset {})",
                d.urb_opcode.name().unwrap_or("reserved"),
                d.interleave,
                d.per_slot_offset
            ),
            reference: "IVB PRM Vol4 Part2 URB",
        };
    }
    MessageKind::UrbWrite {
        global_offset: usize::from(d.global_offset),
        header: d.header_present,
    }
}
