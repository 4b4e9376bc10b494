//! What a Gen11 `send` or `sends` asks for: its shared function (the instruction's SFID)
//! and descriptor (`defs/gen11/messages.spec`), decoded once per message into the
//! pipeline's [`MessageKind`].
//!
//! Modelled: the null function; the thread spawner's end of thread; the gateway's
//! barrier (seed 003 Barrier_Data_Payload); the data ports' memory messages a compute
//! shader sends: DC0 OWord block reads and writes, DWord and byte scattered, the memory
//! fence; DC1 untyped surface reads, writes and integer atomics (seed 003 MT_DP1); the
//! constant cache's OWord block reads. Everything else is refused by name.

use gtsim_dataport::dc::{Access, AddressModel, AtomicOp, DataMessage, DataOp, Simd};
use gtsim_eu::exec::{Message, MessageError};
use gtsim_isa::ir::Sfid;
use gtsim_pipe3d::state::MessageKind;
use gtsim_spec::Unsupported;
use gtsim_spec::gen11::message_descriptor_gateway::SubFunctionId;
use gtsim_spec::gen11::message_descriptor_oword_block_read_write::BlockSize;
use gtsim_spec::gen11::message_descriptor_untyped_atomic_operation::SimdMode as AtomicSimd;
use gtsim_spec::gen11::message_descriptor_untyped_surface_read_write::SimdMode;
use gtsim_spec::gen11::{
    BarrierDataPayload, DataPort0MessageType as Dp0, DataPort1MessageType as Dp1,
    MessageDescriptorDataPort, MessageDescriptorGateway, MessageDescriptorOWordBlockReadWrite,
    MessageDescriptorUntypedAtomicOperation, MessageDescriptorUntypedSurfaceReadWrite,
    ReadOnlyMessageType as Ro,
};

/// Binding table index 255: the stateless model (Mesa BRW_BTI_STATELESS).
const BTI_STATELESS: u8 = 255;
/// Binding table index 254: shared local memory (Mesa GFX7_BTI_SLM).
const BTI_SLM: u8 = 254;
/// Binding table index 253: stateless, non-coherent (Mesa GFX8_BTI_STATELESS_NON_COHERENT).
const BTI_STATELESS_NON_COHERENT: u8 = 253;

/// The reference for what this module decodes.
const REFERENCE: &str = "seed 003 MT_DP0, MT_DP1, Read-Only Data Port Message Types";

/// The kind of message `m` is.
pub fn kind(m: &Message) -> MessageKind {
    match m.sfid {
        Sfid::Null => MessageKind::Null,
        // A compute thread ends with a message to the thread spawner with End of Thread
        // (Mesa CS_OPCODE_CS_TERMINATE, seed 003 Thread_EOT_Message_Descriptor).
        Sfid::ThreadSpawner if m.eot => MessageKind::Null,
        Sfid::Gateway => gateway(m),
        Sfid::DataPortDataCache | Sfid::DataPortDataCache1 | Sfid::DataPortConstantCache => {
            match data_port(m.sfid, m.desc) {
                Ok(d) => MessageKind::DataPort(d),
                Err(MessageError::Unsupported(u)) => MessageKind::Unsupported(u),
                Err(e) => MessageKind::Invalid(e),
            }
        }
        Sfid::Sampler => MessageKind::Unsupported(Unsupported::new(
            "Gen11 sampler messages",
            "seed 003 Message_Descriptor_Sampling_Engine",
        )),
        other => MessageKind::Unsupported(Unsupported::new(
            format!("Gen11 messages to {}", other.mnemonic()),
            "seed 003 (shared functions)",
        )),
    }
}

fn state(structure: &'static str, desc: u32, e: &dyn std::fmt::Display) -> MessageError {
    MessageError::State {
        structure,
        why: format!("{desc:#010x}: {e}"),
    }
}

/// The gateway's barrier message: the Barrier ID and Count of seed 003
/// Barrier_Data_Payload in the first payload register.
fn gateway(m: &Message) -> MessageKind {
    let desc = m.desc;
    let d = match MessageDescriptorGateway::unpack(&[desc]) {
        Ok(d) => d,
        Err(e) => return MessageKind::Invalid(state("message gateway descriptor", desc, &e)),
    };
    if d.sub_function_id != SubFunctionId::BARRIER_MESSAGE {
        return MessageKind::Unsupported(Unsupported::new(
            format!(
                "message gateway {}",
                d.sub_function_id.name().unwrap_or("reserved sub-function")
            ),
            "seed 003 (Message Gateway)",
        ));
    }
    let Some(reg) = m.payload.first() else {
        return MessageKind::Invalid(gtsim_message::invalid(
            "barrier message without its payload",
        ));
    };
    let dws: Vec<u32> = reg
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    match BarrierDataPayload::unpack(&dws) {
        Ok(p) => MessageKind::Barrier {
            id: u32::from(p.barrier_id),
            count: p.barrier_count_enable.then_some(u32::from(p.barrier_count)),
        },
        Err(e) => MessageKind::Invalid(MessageError::State {
            structure: "Barrier_Data_Payload",
            why: e.to_string(),
        }),
    }
}

/// The address model of binding table index `bti` (SLM only on the data cache ports).
fn model(bti: u8, slm_port: bool) -> AddressModel {
    match bti {
        BTI_STATELESS | BTI_STATELESS_NON_COHERENT => AddressModel::Stateless,
        BTI_SLM if slm_port => AddressModel::Slm,
        n => AddressModel::Surface(n),
    }
}

/// A data port memory message.
fn data_port(sfid: Sfid, desc: u32) -> Result<DataMessage, MessageError> {
    let d = MessageDescriptorDataPort::unpack(&[desc])
        .map_err(|e| state("data port message descriptor", desc, &e))?;
    let slm_port = sfid != Sfid::DataPortConstantCache;
    let op = match sfid {
        Sfid::DataPortConstantCache => match Ro(u32::from(d.message_type)) {
            Ro::MT_CC_OWB => oword_block(desc, false)?,
            other => return Err(not_modelled("constant cache", other.name(), other.0)),
        },
        Sfid::DataPortDataCache => match Dp0(u32::from(d.message_type)) {
            Dp0::MT0R_B => oword_block(desc, false)?,
            Dp0::MT0W_B => oword_block(desc, true)?,
            Dp0::MT0_MEMFENCE => DataOp::Fence {
                commit: d.response_length > 0,
            },
            other => return Err(not_modelled("data port 0", other.name(), other.0)),
        },
        _ => match Dp1(u32::from(d.message_type)) {
            Dp1::MT1R_US | Dp1::MT1W_US => {
                let u = MessageDescriptorUntypedSurfaceReadWrite::unpack(&[desc])
                    .map_err(|e| state("untyped surface read/write descriptor", desc, &e))?;
                DataOp::Untyped {
                    access: if u.message_type == Dp1::MT1R_US {
                        Access::Read
                    } else {
                        Access::Write
                    },
                    simd: match u.simd_mode {
                        SimdMode::SIMD4X2 => Simd::Simd4x2,
                        SimdMode::SIMD16 => Simd::Simd16,
                        SimdMode::SIMD8 => Simd::Simd8,
                        other => {
                            return Err(gtsim_message::invalid(format!(
                                "untyped SIMD Mode {} is reserved",
                                other.0
                            )));
                        }
                    },
                    channels: [
                        !u.red_channel_mask,
                        !u.green_channel_mask,
                        !u.blue_channel_mask,
                        !u.alpha_channel_mask,
                    ],
                }
            }
            Dp1::MT1A_UI => {
                let a = MessageDescriptorUntypedAtomicOperation::unpack(&[desc])
                    .map_err(|e| state("untyped atomic descriptor", desc, &e))?;
                let op =
                    AtomicOp::from_code(u32::from(a.atomic_operation_type)).ok_or_else(|| {
                        gtsim_message::invalid(format!(
                            "Atomic Integer Operation Type {}",
                            a.atomic_operation_type
                        ))
                    })?;
                DataOp::Untyped {
                    access: Access::Atomic {
                        op,
                        ret: a.return_data_control,
                    },
                    simd: if a.simd_mode == AtomicSimd::SIMD8 {
                        Simd::Simd8
                    } else {
                        Simd::Simd16
                    },
                    channels: [true, false, false, false],
                }
            }
            other => return Err(not_modelled("data port 1", other.name(), other.0)),
        },
    };
    Ok(DataMessage {
        op,
        model: model(d.binding_table_index, slm_port),
        header: d.header_present,
    })
}

fn not_modelled(port: &str, name: Option<&str>, code: u32) -> MessageError {
    Unsupported::new(
        format!(
            "Gen11 {port} message type {code:#x} ({})",
            name.unwrap_or("reserved")
        ),
        REFERENCE,
    )
    .into()
}

/// An OWord block read or write (the Oword Data Blocks control field's sizes).
fn oword_block(desc: u32, write: bool) -> Result<DataOp, MessageError> {
    let b = MessageDescriptorOWordBlockReadWrite::unpack(&[desc])
        .map_err(|e| state("OWord block descriptor", desc, &e))?;
    let (owords, high) = match b.block_size {
        BlockSize::_1_OWORD_LOW => (1, false),
        BlockSize::_1_OWORD_HIGH => (1, true),
        BlockSize::_2_OWORDS => (2, false),
        BlockSize::_4_OWORDS => (4, false),
        BlockSize::_8_OWORDS => (8, false),
        other => {
            return Err(gtsim_message::invalid(format!(
                "OWord Block Size {} is reserved",
                other.0
            )));
        }
    };
    Ok(DataOp::OwordBlock {
        write,
        unaligned: false,
        owords,
        high,
    })
}
