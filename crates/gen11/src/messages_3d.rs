//! The messages of Gen11's 3D threads: the Gen8+ SIMD8 URB writes and reads a VS
//! sends (descriptor `Message_Descriptor-URB` in `defs/gen11/messages.spec`, payloads
//! seed 003 "URB Handle Message Header", "SIMD8 URB Offset Message Address Payload",
//! "SIMD8 URB Channel Mask Message Address Payload") and the render target write
//! (seed 003 "Message Descriptor - Render Target Write", "Extended Message Descriptor
//! Render Target", the payloads the Gen7 model decodes, which seed 003 keeps).

use gtsim_dataport::rt_message::{RtExtended, RtHeader, RtRead, RtSubtype, RtWrite};
use gtsim_dataport::urb::{Simd8Read, Simd8Write};
use gtsim_eu::exec::{Message, MessageError};
use gtsim_pipe3d::state::MessageKind;
use gtsim_spec::Unsupported;
use gtsim_spec::gen11::message_descriptor_urb::UrbOpcode;
use gtsim_spec::gen11::rt_write_descriptor::{DataFormat, MessageSubtype, SlotGroupSelect};
use gtsim_spec::gen11::{
    ExtendedMessageDescriptorRenderTarget, MessageDescriptorUrb, RenderTargetMessageHeaderControl,
    RtWriteDescriptor,
};

fn dwords(reg: &[u8; 32]) -> [u32; 8] {
    std::array::from_fn(|i| {
        u32::from_le_bytes([reg[4 * i], reg[4 * i + 1], reg[4 * i + 2], reg[4 * i + 3]])
    })
}

fn state(structure: &'static str, desc: u32, e: &dyn std::fmt::Display) -> MessageKind {
    MessageKind::Invalid(MessageError::State {
        structure,
        why: format!("{desc:#010x}: {e}"),
    })
}

/// A URB message: SIMD8 writes and reads, their handles in the first payload register,
/// then per-slot offsets and channel masks when the descriptor says they are present.
pub(crate) fn urb(m: &Message) -> MessageKind {
    let d = match MessageDescriptorUrb::unpack(&[m.desc]) {
        Ok(d) => d,
        Err(e) => return state("URB message descriptor", m.desc, &e),
    };
    let write = match d.urb_opcode {
        UrbOpcode::SIMD8_WRITE => true,
        UrbOpcode::SIMD8_READ => false,
        other => {
            return MessageKind::Unsupported(Unsupported::new(
                format!(
                    "URB {} messages on Gen11",
                    other.name().unwrap_or("reserved opcode")
                ),
                "Mesa brw_eu_defines.h URB opcodes; seed 003 URB payloads",
            ));
        }
    };
    let regs: Vec<&[u8; 32]> = m.payload.iter().chain(m.payload2.iter()).collect();
    // The handles, then the per-slot offsets and the channel masks when present.
    let wanted = 1 + usize::from(d.per_slot_offset) + usize::from(write && d.channel_mask_present);
    if regs.len() < wanted {
        return MessageKind::Invalid(gtsim_message::invalid(format!(
            "URB SIMD8 message of {} registers without its {wanted} handle, offset and mask registers",
            regs.len()
        )));
    }
    let mut at = 0;
    let mut next = || {
        at += 1;
        dwords(regs[at - 1])
    };
    let handles = next();
    let offsets = if d.per_slot_offset { next() } else { [0; 8] };
    let masks = if write && d.channel_mask_present {
        // Seed 003 URB Channel Mask Payload Control: Channel Mask in 23:16.
        next().map(|v| (v >> 16) as u8)
    } else {
        [0xff; 8]
    };
    // The handle is the dword's low 16 bits: an instanced SIMD8 GS's output handles
    // carry the instance number in bits 31:27, which Mesa 22.3's compiler passes to its
    // URB writes unmasked (later ones AND them with 0xffff: brw_fs_thread_payload.cpp
    // gs_thread_payload); seed 003 MHC_URB_HANDLE marks the upper bits reserved.
    let handles = handles.map(|h| (h & 0xffff) as usize);
    let slot_offsets = offsets.map(|o| o as usize);
    let global_offset = usize::from(d.global_offset);
    if write {
        MessageKind::UrbWriteSimd8 {
            write: Simd8Write {
                global_offset,
                handles,
                slot_offsets,
                channel_masks: masks,
            },
            data_start: at,
        }
    } else {
        MessageKind::UrbReadSimd8(Simd8Read {
            global_offset,
            handles,
            slot_offsets,
        })
    }
}

/// Render cache messages: the render target write (message type 0Ch, seed 003 MT_RC);
/// the render target read and the render cache's other messages are refused by name.
pub(crate) fn render_cache(m: &Message) -> MessageKind {
    let d = match RtWriteDescriptor::unpack(&[m.desc]) {
        Ok(d) => d,
        Err(e) => return state("render target write descriptor", m.desc, &e),
    };
    if d.message_type == 0x0d {
        return render_target_read(m, &d);
    }
    if d.message_type != 0x0c {
        return MessageKind::Unsupported(Unsupported::new(
            format!(
                "render cache message type {:#x} on Gen11 (the render target write 0Ch and read 0Dh are modelled)",
                d.message_type
            ),
            "seed 003 Message Descriptor - Render Target Write",
        ));
    }
    if d.data_format == DataFormat::HALF_PRECISION {
        return MessageKind::Unsupported(Unsupported::new(
            "half-precision render target writes",
            "seed 003 Half_Precision_*_Render_Target_Data_Payload",
        ));
    }
    if d.per_sample_ps_outputs_enable {
        return MessageKind::Unsupported(Unsupported::new(
            "per-sample PS outputs",
            "seed 003 Message Descriptor - Render Target Write",
        ));
    }
    let ex = match ExtendedMessageDescriptorRenderTarget::unpack(&[m.ex_desc]) {
        Ok(e) => e,
        Err(e) => return state("render target write extended descriptor", m.ex_desc, &e),
    };
    let header = if d.header_present {
        let Some(r0) = m.payload.first() else {
            return MessageKind::Invalid(gtsim_message::invalid(
                "render target write without its header",
            ));
        };
        let dw = dwords(r0);
        let h = match RenderTargetMessageHeaderControl::unpack(&[dw[0]]) {
            Ok(h) => h,
            Err(e) => return state("render target write header", dw[0], &e),
        };
        let m1 = m.payload.get(1).map(dwords).unwrap_or_default();
        Some(RtHeader {
            array_index: u32::from(h.render_target_array_index),
            // Seed 003 Render Target Message Header DW2: Render Target Index 2:0.
            render_target_index: (dw[2] & 7) as u8,
            // DW15 (M1.7): Pixel/Sample Enables.
            pixel_enables: m1[7] & 0xffff,
            source_depth: h.source_depth_present_to_render_target,
            omask: false,
            source0_alpha: h.source0_alpha_present_to_render_target,
            stencil: h.stencil_present_to_render_target,
        })
    } else {
        None
    };
    MessageKind::RenderTargetWrite(RtWrite {
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
        extended: RtExtended {
            render_target_index: ex.render_target_array_index,
            source0_alpha: ex.src0_alpha_present != 0,
            null_render_target: ex.null_render_target != 0,
            coarse_write: d.coarse_write,
            execution_mask: header
                .is_none()
                .then(|| execution_slots(&d, m.channel_mask >> m.first_channel)),
        },
    })
}

/// The render target read (render cache message type 0Dh, Mesa brw_eu_defines.h
/// GFX9_DATAPORT_RC_RENDER_TARGET_READ): the write's descriptor fields, Message Subtype
/// 1 for eight slots and 0 for sixteen (Mesa brw_fb_read_desc), Slot Group Select, the
/// per-sample bit; a two-register header whose DW0 carries the Render Target Array Index
/// as the write's header does (Mesa lower_fb_read_logical_send copies R0-R1 there).
fn render_target_read(m: &Message, d: &RtWriteDescriptor) -> MessageKind {
    if !d.header_present {
        return MessageKind::Invalid(gtsim_message::invalid(
            "render target read without its header (Mesa always sends one)",
        ));
    }
    let simd16 = match d.message_subtype.0 {
        0 => true,
        1 => false,
        other => {
            return MessageKind::Invalid(gtsim_message::invalid(format!(
                "render target read subtype {other} (0 SIMD16 and 1 SIMD8 are defined)"
            )));
        }
    };
    let Some(r0) = m.payload.first() else {
        return MessageKind::Invalid(gtsim_message::invalid(
            "render target read without its header",
        ));
    };
    let dw0 = dwords(r0)[0];
    let h = match RenderTargetMessageHeaderControl::unpack(&[dw0]) {
        Ok(h) => h,
        Err(e) => return state("render target read header", dw0, &e),
    };
    MessageKind::RenderTargetRead(RtRead {
        binding_table_index: d.binding_table_index,
        simd16,
        slot_group_hi: d.slot_group_select == SlotGroupSelect::SLOTGRP_HI,
        per_sample: d.per_sample_ps_outputs_enable,
        array_index: u32::from(h.render_target_array_index),
    })
}

/// The slots a headerless write's execution mask enables: channel i is slot i of the
/// 16 the Slot Group Select picks (slots 8-15 for SIMD8_DUALSRC_HI).
fn execution_slots(d: &RtWriteDescriptor, channel_mask: u32) -> u32 {
    let (width, first) = match d.message_subtype {
        MessageSubtype::SIMD8_LO | MessageSubtype::SIMD8_DUALSRC_LO => (8, 0),
        MessageSubtype::SIMD8_DUALSRC_HI => (8, 8),
        _ => (16, 0),
    };
    let group = if d.slot_group_select == SlotGroupSelect::SLOTGRP_HI {
        16
    } else {
        0
    };
    (channel_mask & ((1u32 << width) - 1)) << (first + group)
}
