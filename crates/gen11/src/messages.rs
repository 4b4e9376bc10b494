//! What a Gen11 `send` or `sends` asks for: its shared function (the instruction's SFID)
//! and descriptor (`defs/gen11/messages.spec`), decoded once per message into the
//! pipeline's [`MessageKind`].
//!
//! Modelled: the null function; the thread spawner's end of thread; the gateway's
//! barrier (seed 003 Barrier_Data_Payload); the data ports' memory messages a compute
//! shader sends: DC0 OWord block reads and writes, DWord and byte scattered, the memory
//! fence; DC1 untyped and typed surface reads, writes and integer and float atomics
//! and their A64 forms (seed 003 MT_DP1); the constant cache's OWord block reads. The
//! URB and render cache messages are `messages_3d`'s, the sampler's `sampling`'s.
//! Everything else is refused by name.

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
        Sfid::Sampler => MessageKind::Sampler,
        Sfid::Urb => crate::messages_3d::urb(m),
        Sfid::PixelInterpolator => gtsim_pipe3d::state::PiMessage::decode(m),
        Sfid::DataPortRenderCache => crate::messages_3d::render_cache(m),
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
            // Unaligned OWord Block Read: Global Offset in bytes (seed 003 MT_CC_OWUB).
            Ro::MT_CC_OWUB => unaligned(oword_block(desc, false)?),
            other => return Err(not_modelled("constant cache", other.name(), other.0)),
        },
        // Seed 003 MT_DP0: bit 18 (the message type's bit 4) selects the scratch block
        // messages, whose descriptor encodes differently.
        Sfid::DataPortDataCache if d.message_type & 0x10 != 0 => {
            return Ok(DataMessage {
                op: scratch_block(desc)?,
                model: AddressModel::Stateless,
                header: d.header_present,
            });
        }
        Sfid::DataPortDataCache => match Dp0(u32::from(d.message_type)) {
            Dp0::MT0R_B => oword_block(desc, false)?,
            // Seed 003 names 01h MT0R_AB ("Aligned Block Read") and says no more; Mesa
            // sends it as its unaligned OWord block read (brw_eu_defines.h
            // GFX7_DATAPORT_DC_UNALIGNED_OWORD_BLOCK_READ = 1), with the Global Offset
            // in bytes where type 0 takes OWords (brw_lower_logical_sends.cpp: "Address
            // in OWord units when aligned to OWords"): modelled as Mesa uses it.
            Dp0::MT0R_AB => unaligned(oword_block(desc, false)?),
            Dp0::MT0W_B => oword_block(desc, true)?,
            Dp0::MT0_MEMFENCE => DataOp::Fence {
                commit: d.response_length > 0,
            },
            // Message Specific Control (Mesa brw_eu.h brw_dp_dword_scattered_rw_desc):
            // bit 0 SIMD16, bit 1 the legacy SIMD mode, which must be set.
            Dp0::MT0R_DWS | Dp0::MT0W_DWS => {
                let control = d.message_specific_control;
                if control & 2 == 0 {
                    return Err(state(
                        "DWord scattered descriptor",
                        desc,
                        &"Legacy SIMD Mode (control bit 1) clear",
                    ));
                }
                DataOp::DwordScattered {
                    write: d.message_type == Dp0::MT0W_DWS.0 as u8,
                    slots: if control & 1 != 0 { 16 } else { 8 },
                }
            }
            // Message Specific Control (Mesa brw_dp_byte_scattered_rw_desc): bit 0
            // SIMD16, bits 3:2 the data size (0: 1 byte, 1: 2 bytes, 2: 4 bytes).
            Dp0::MT0R_BS | Dp0::MT0W_BS => {
                let control = d.message_specific_control;
                let bytes = match (control >> 2) & 3 {
                    0 => 1,
                    1 => 2,
                    2 => 4,
                    _ => {
                        return Err(state(
                            "byte scattered descriptor",
                            desc,
                            &"Data Size 3 is reserved",
                        ));
                    }
                };
                DataOp::ByteScattered {
                    write: d.message_type == Dp0::MT0W_BS.0 as u8,
                    slots: if control & 1 != 0 { 16 } else { 8 },
                    bytes,
                }
            }
            other => return Err(not_modelled("data port 0", other.name(), other.0)),
        },
        _ => match Dp1(u32::from(d.message_type)) {
            Dp1::MT1R_US | Dp1::MT1W_US => untyped_rw(desc)?,
            // The A64 forms (seed 003 MT1R_A64_US, MT1W_A64_US; Mesa
            // brw_dp_a64_untyped_surface_rw_desc: the same control field), each slot's
            // 64-bit address in the payload.
            Dp1::MT1R_A64_US | Dp1::MT1W_A64_US => {
                return Ok(DataMessage {
                    op: untyped_rw(desc)?,
                    model: AddressModel::A64,
                    header: false,
                });
            }
            // A64 OWord block read and write (seed 003 MT1R_A64_B, MT1W_A64_B; Mesa
            // brw_dp_a64_oword_block_rw_desc): Message Specific Control bits 2:0 the
            // block size as for the A32 block messages, bit 3 set for an address only
            // DWord aligned; the address is the header's first qword.
            Dp1::MT1R_A64_B | Dp1::MT1W_A64_B => {
                let control = d.message_specific_control;
                let (owords, high) = match control & 7 {
                    0 => (1, false),
                    1 => (1, true),
                    2 => (2, false),
                    3 => (4, false),
                    4 => (8, false),
                    other => {
                        return Err(gtsim_message::invalid(format!(
                            "A64 OWord Block Size {other} is reserved"
                        )));
                    }
                };
                let write = d.message_type == Dp1::MT1W_A64_B.0 as u8;
                if write && control & 8 != 0 {
                    return Err(gtsim_message::invalid(
                        "an unaligned A64 OWord block write (writes are OWord aligned)",
                    ));
                }
                return Ok(DataMessage {
                    op: DataOp::OwordBlock {
                        write,
                        unaligned: control & 8 != 0,
                        owords,
                        high,
                    },
                    model: AddressModel::A64,
                    header: true,
                });
            }
            Dp1::MT1A_A64_UI | Dp1::MT1A_A64_UF => {
                return Ok(DataMessage {
                    op: a64_atomic(desc)?,
                    model: AddressModel::A64,
                    header: false,
                });
            }
            Dp1::MT1R_TS | Dp1::MT1W_TS => typed_rw(desc)?,
            // Media Block Read and Write (seed 003 MT1R_MB, MT1W_MB; the header is
            // MH_MB): Message Specific Control 2:0 is the Vertical Line Stride Override
            // (seed 003 MDC_VLSO: bit 2 enable, bit 1 the stride, bit 0 its offset).
            Dp1::MT1R_MB | Dp1::MT1W_MB => {
                let control = d.message_specific_control;
                DataOp::MediaBlock {
                    write: d.message_type == Dp1::MT1W_MB.0 as u8,
                    stride_override: (control & 4 != 0)
                        .then(|| (control & 2 != 0).then_some(control & 1)),
                    render_cache: false,
                    normal_header: true,
                }
            }
            Dp1::MT1A_TA => {
                use gtsim_spec::gen11::MessageDescriptorTypedAtomicOperation as TypedAtomic;
                use gtsim_spec::gen11::message_descriptor_typed_atomic_operation::SlotGroup;
                let a = TypedAtomic::unpack(&[desc])
                    .map_err(|e| state("typed atomic descriptor", desc, &e))?;
                DataOp::Typed {
                    access: Access::Atomic {
                        op: atomic_op(a.message_type, u32::from(a.atomic_operation_type))?,
                        ret: a.return_data_control,
                    },
                    high: a.slot_group == SlotGroup::HIGH_8_SLOTS,
                    channels: [true, false, false, false],
                }
            }
            Dp1::MT1A_UI | Dp1::MT1A_UF => {
                let a = MessageDescriptorUntypedAtomicOperation::unpack(&[desc])
                    .map_err(|e| state("untyped atomic descriptor", desc, &e))?;
                let op = atomic_op(a.message_type, u32::from(a.atomic_operation_type))?;
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

/// An untyped surface read or write (its A64 form too): SIMD mode and channel masks.
fn untyped_rw(desc: u32) -> Result<DataOp, MessageError> {
    let u = MessageDescriptorUntypedSurfaceReadWrite::unpack(&[desc])
        .map_err(|e| state("untyped surface read/write descriptor", desc, &e))?;
    Ok(DataOp::Untyped {
        access: if matches!(u.message_type, Dp1::MT1R_US | Dp1::MT1R_A64_US) {
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
    })
}

/// A typed surface read or write: the slot group (the low or high 8 slots; SIMD4x2 is
/// not modelled) and the channel masks.
fn typed_rw(desc: u32) -> Result<DataOp, MessageError> {
    use gtsim_spec::gen11::MessageDescriptorTypedSurfaceReadWrite as Typed;
    use gtsim_spec::gen11::message_descriptor_typed_surface_read_write::SlotGroup;
    let t = Typed::unpack(&[desc]).map_err(|e| state("typed surface descriptor", desc, &e))?;
    let high = match t.slot_group {
        SlotGroup::LOW_8_SLOTS => false,
        SlotGroup::HIGH_8_SLOTS => true,
        SlotGroup::SIMD4X2 => {
            return Err(Unsupported::new(
                "SIMD4x2 typed surface messages on Gen11 (Mesa's compiler sends SIMD8 slot groups)",
                "seed 003 MT1R_TS, MT1W_TS",
            )
            .into());
        }
        other => {
            return Err(gtsim_message::invalid(format!(
                "typed Slot Group {} is reserved",
                other.0
            )));
        }
    };
    Ok(DataOp::Typed {
        access: if t.message_type == Dp1::MT1R_TS {
            Access::Read
        } else {
            Access::Write
        },
        high,
        channels: [
            !t.red_channel_mask,
            !t.green_channel_mask,
            !t.blue_channel_mask,
            !t.alpha_channel_mask,
        ],
    })
}

/// An A64 untyped atomic (seed 003 MT1A_A64_UI, MT1A_A64_UF): SIMD8, 32-bit data.
fn a64_atomic(desc: u32) -> Result<DataOp, MessageError> {
    use gtsim_spec::gen11::MessageDescriptorA64UntypedAtomicOperation as A64Atomic;
    use gtsim_spec::gen11::message_descriptor_a64_untyped_atomic_operation::DataSize;
    let a =
        A64Atomic::unpack(&[desc]).map_err(|e| state("A64 untyped atomic descriptor", desc, &e))?;
    if a.data_size != DataSize::_32_BITS {
        return Err(
            Unsupported::new("64-bit A64 atomics", "seed 003 MT1A_A64_UI (A64 Data Size)").into(),
        );
    }
    Ok(DataOp::Untyped {
        access: Access::Atomic {
            op: atomic_op(a.message_type, u32::from(a.atomic_operation_type))?,
            ret: a.return_data_control,
        },
        simd: Simd::Simd8,
        channels: [true, false, false, false],
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

/// The atomic operation `code` of an integer or float atomic message `ty` (seed 003
/// MDC_FOP2/MDC_FOP3: the float operations AOP_FMAX 1, AOP_FMIN 2, AOP_FCMPWR 3, in the
/// integer operations' control field).
fn atomic_op(ty: Dp1, code: u32) -> Result<AtomicOp, MessageError> {
    let float = matches!(ty, Dp1::MT1A_UF | Dp1::MT1A_A64_UF);
    if float {
        match code {
            1 => Some(AtomicOp::FMax),
            2 => Some(AtomicOp::FMin),
            3 => Some(AtomicOp::FCmpWr),
            _ => None,
        }
    } else {
        AtomicOp::from_code(code)
    }
    .ok_or_else(|| {
        gtsim_message::invalid(format!(
            "Atomic Operation Type {code} is reserved for {}",
            ty.name().unwrap_or("this message")
        ))
    })
}

/// A scratch block read or write (Gen8+: 1, 2, 4 or 8 registers; a header is required).
fn scratch_block(desc: u32) -> Result<DataOp, MessageError> {
    use gtsim_spec::gen11::MessageDescriptorScratchBlockReadWrite as Scratch;
    use gtsim_spec::gen11::message_descriptor_scratch_block_read_write::{
        BlockSize, ChannelMode, OperationType,
    };
    let d = Scratch::unpack(&[desc]).map_err(|e| state("scratch block descriptor", desc, &e))?;
    if !d.header_present {
        return Err(gtsim_message::invalid(
            "a scratch block message without its header (seed 003 MT_DP0: a Message Header is required)",
        ));
    }
    let regs = match d.block_size {
        BlockSize::_1_REGISTER => 1,
        BlockSize::_2_REGISTERS => 2,
        BlockSize::_4_REGISTERS => 4,
        _ => 8,
    };
    Ok(DataOp::ScratchBlock {
        write: d.operation_type == OperationType::WRITE,
        dword_mode: d.channel_mode == ChannelMode::DWORD,
        regs,
        offset: u32::from(d.offset),
    })
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

/// `op` (an OWord block read) with its Global Offset in bytes.
fn unaligned(op: DataOp) -> DataOp {
    match op {
        DataOp::OwordBlock {
            write,
            owords,
            high,
            ..
        } => DataOp::OwordBlock {
            write,
            unaligned: true,
            owords,
            high,
        },
        other => other,
    }
}

/// A media block write through the render cache's colour processing pipe: Gen11 does
/// that in the VEBOX, which a 3D or GPGPU thread's message does not reach.
pub(crate) fn no_color_processing() -> MessageError {
    Unsupported::new(
        "the render cache's colour processing pipe on Gen11 (the VEBOX does it there)",
        "seed 003 VEBOX_IECP_STATE",
    )
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(sfid: Sfid, desc: u32) -> DataMessage {
        data_port(sfid, desc).unwrap()
    }

    /// Descriptors from iris's ICL kernels, with what Mesa's disassembly says of them
    /// (`crates/isa/tests/corpus/gen11/*.mesa.txt`).
    #[test]
    fn iris_descriptors_decode_as_mesa_prints_them() {
        // "dp data 1 MsgDesc: (DC untyped atomic op, Surface = 0, SIMD8, add) mlen 1 ex_mlen 1 rlen 0"
        let d = decode(Sfid::DataPortDataCache1, 0x0200_9700);
        assert_eq!(d.model, AddressModel::Surface(0));
        assert!(!d.header);
        assert_eq!(
            d.op,
            DataOp::Untyped {
                access: Access::Atomic {
                    op: AtomicOp::Add,
                    ret: false
                },
                simd: Simd::Simd8,
                channels: [true, false, false, false],
            }
        );
        // "(DC untyped surface write, Surface = 2, SIMD16, Mask = 0xe)": only red.
        let d = decode(Sfid::DataPortDataCache1, 0x0402_5e02);
        assert_eq!(d.model, AddressModel::Surface(2));
        assert_eq!(
            d.op,
            DataOp::Untyped {
                access: Access::Write,
                simd: Simd::Simd16,
                channels: [true, false, false, false],
            }
        );
        // 0x02206c02 "(untyped surface read, Surface = 2, SIMD8, Mask = 0xc)": red and green.
        let d = decode(Sfid::DataPortDataCache1, 0x0220_6c02);
        assert_eq!(
            d.op,
            DataOp::Untyped {
                access: Access::Read,
                simd: Simd::Simd8,
                channels: [true, true, false, false],
            }
        );
        // "const MsgDesc: (bti 0, msg_ctrl 3, msg_type 0, write_commit 0) mlen 1 rlen 2":
        // a 4-OWord block read with its header.
        let d = decode(Sfid::DataPortConstantCache, 0x0228_0300);
        assert!(d.header);
        assert_eq!(
            d.op,
            DataOp::OwordBlock {
                write: false,
                unaligned: false,
                owords: 4,
                high: false
            }
        );
    }

    /// The block reads Mesa 25 sends on Gen11: the constant cache's unaligned OWord
    /// block read (MT_CC_OWUB, type 1) and data port 0's type 1 (MT0R_AB), both with
    /// the Global Offset in bytes; data port 1's A64 block read (MT1R_A64_B, 14h) with
    /// control 0xb (4 OWords, bit 3: DWord aligned), its address in the header; an A64
    /// block write with bit 3 set is refused. Descriptors built field by field: mlen 1
    /// (bit 25), rlen 2 (24:20), header (19), type (18:14), control (13:8), BTI (7:0).
    #[test]
    fn mesa_25_block_reads_decode() {
        let desc = |ty: u32, control: u32, bti: u32| {
            1 << 25 | 2 << 20 | 1 << 19 | ty << 14 | control << 8 | bti
        };
        let block = |unaligned, owords| DataOp::OwordBlock {
            write: false,
            unaligned,
            owords,
            high: false,
        };
        let d = decode(Sfid::DataPortConstantCache, desc(1, 3, 2));
        assert_eq!(
            (d.op, d.model, d.header),
            (block(true, 4), AddressModel::Surface(2), true)
        );
        let d = decode(Sfid::DataPortDataCache, desc(1, 2, 3));
        assert_eq!((d.op, d.model), (block(true, 2), AddressModel::Surface(3)));
        let d = decode(Sfid::DataPortDataCache1, desc(0x14, 0xb, 0xfd));
        assert_eq!(
            (d.op, d.model, d.header),
            (block(true, 4), AddressModel::A64, true)
        );
        let d = decode(Sfid::DataPortDataCache1, desc(0x14, 4, 0xfd));
        assert_eq!(d.op, block(false, 8));
        assert!(
            data_port(Sfid::DataPortDataCache1, desc(0x15, 0xb, 0xfd))
                .is_err_and(|e| e.to_string().contains("unaligned A64 OWord block write"))
        );
    }

    /// Typed descriptors from iris's ICL kernels, as Mesa prints them: 0x04036001 "(DC
    /// typed surface write, Surface = 1, SIMD16, Mask = 0x0)" in its low 8 slots; the
    /// typed atomic add of the corpus (0x0401a602: Surface = 2, SIMD8, add, high slot
    /// group off).
    #[test]
    fn typed_descriptors_decode_as_mesa_prints_them() {
        let w = decode(Sfid::DataPortDataCache1, 0x0403_5001);
        assert_eq!(w.model, AddressModel::Surface(1));
        assert_eq!(
            w.op,
            DataOp::Typed {
                access: Access::Write,
                high: false,
                channels: [true; 4],
            }
        );
        let hi = decode(Sfid::DataPortDataCache1, 0x0403_6001);
        assert!(matches!(hi.op, DataOp::Typed { high: true, .. }));
        let add = 2 << 25 | 1 << 19 | 0x06 << 14 | 7 << 8 | 2;
        assert_eq!(
            decode(Sfid::DataPortDataCache1, add).op,
            DataOp::Typed {
                access: Access::Atomic {
                    op: AtomicOp::Add,
                    ret: false
                },
                high: false,
                channels: [true, false, false, false],
            }
        );
    }

    /// A64 descriptors as Mesa's brw_dp_a64_untyped_surface_rw_desc and
    /// brw_dp_a64_untyped_atomic_desc build them (BTI 253, headerless): a SIMD8 read of one
    /// channel (msg_control 0xe | SIMD8 2 << 4) and an add with return (7 | 1 << 5); a
    /// 64-bit atomic (bit 12) is refused.
    #[test]
    fn a64_descriptors_decode_as_mesa_builds_them() {
        let read = 2 << 25 | 1 << 20 | 0x11 << 14 | (0xe | 2 << 4) << 8 | 253;
        let d = decode(Sfid::DataPortDataCache1, read);
        assert_eq!(d.model, AddressModel::A64);
        assert_eq!(
            d.op,
            DataOp::Untyped {
                access: Access::Read,
                simd: Simd::Simd8,
                channels: [true, false, false, false],
            }
        );
        let add = 3 << 25 | 1 << 20 | 0x12 << 14 | (7 | 1 << 5) << 8 | 253;
        assert_eq!(
            decode(Sfid::DataPortDataCache1, add).op,
            DataOp::Untyped {
                access: Access::Atomic {
                    op: AtomicOp::Add,
                    ret: true
                },
                simd: Simd::Simd8,
                channels: [true, false, false, false],
            }
        );
        assert!(matches!(
            data_port(Sfid::DataPortDataCache1, add | 1 << 12),
            Err(MessageError::Unsupported(u))
                if u.what == "64-bit A64 atomics" && u.reference.contains("(A64 Data Size)")
        ));
    }

    /// Scratch block messages as Mesa's brw_set_dp_scratch_message builds them on Gen8+
    /// (category bit 18, write bit 17, Dword mode bit 16, block size log2(registers)
    /// 13:12, HWord offset 11:0, header required): an 8-register write at HWord 5.
    #[test]
    fn scratch_blocks_decode_as_mesa_builds_them() {
        let write = 9 << 25 | 1 << 19 | 1 << 18 | 1 << 17 | 1 << 16 | 3 << 12 | 5;
        let d = decode(Sfid::DataPortDataCache, write);
        assert_eq!(d.model, AddressModel::Stateless);
        assert_eq!(
            d.op,
            DataOp::ScratchBlock {
                write: true,
                dword_mode: true,
                regs: 8,
                offset: 5
            }
        );
        let read = 1 << 25 | 2 << 20 | 1 << 19 | 1 << 18 | 1 << 12 | 0x40;
        assert_eq!(
            decode(Sfid::DataPortDataCache, read).op,
            DataOp::ScratchBlock {
                write: false,
                dword_mode: false,
                regs: 2,
                offset: 0x40
            }
        );
        // Bit 19 is Header Present: a scratch block message needs its header.
        assert!(matches!(
            data_port(Sfid::DataPortDataCache, read & !(1 << 19)),
            Err(MessageError::Invalid(why)) if why.starts_with("a scratch block message without its header")
        ));
    }

    /// BTI 254 is shared local memory on the data cache ports, 255 and 253 stateless;
    /// float atomics take seed 003's float operation codes; what is not modelled is
    /// refused by name.
    #[test]
    fn address_models_float_atomics_and_refusals() {
        let slm = decode(Sfid::DataPortDataCache1, 0x0200_97fe);
        assert_eq!(slm.model, AddressModel::Slm);
        let stateless = decode(Sfid::DataPortDataCache1, 0x0200_97fd);
        assert_eq!(stateless.model, AddressModel::Stateless);
        // MT1A_UF (0x1b) with AOP_FMAX (1), SIMD8, returning.
        let desc = 0x0210_0000 | 0x1b << 14 | 1 << 13 | 1 << 12 | 1 << 8;
        assert!(matches!(
            decode(Sfid::DataPortDataCache1, desc).op,
            DataOp::Untyped {
                access: Access::Atomic {
                    op: AtomicOp::FMax,
                    ret: true
                },
                simd: Simd::Simd8,
                ..
            }
        ));
        // AOP_FADD does not exist on Gen11 (float code 4).
        assert!(matches!(
            data_port(Sfid::DataPortDataCache1, 0x0200_0000 | 0x1b << 14 | 4 << 8),
            Err(MessageError::Invalid(why)) if why == "Atomic Operation Type 4 is reserved for MT1A_UF"
        ));
        // A typed surface write in SIMD4x2 form (slot group 0): refused, naming it.
        match data_port(Sfid::DataPortDataCache1, 0x0400_0000 | 0x0d << 14) {
            Err(MessageError::Unsupported(u)) => assert!(u.to_string().contains("MT1W_TS")),
            other => panic!("{other:?}"),
        }
        // Media block read and write (MT1R_MB 0x04, MT1W_MB 0x0a) with the Gen8+ header;
        // Message Specific Control 2:0 the Vertical Line Stride Override (seed 003
        // MDC_VLSO): 110b overrides to a field starting at row 0.
        assert!(matches!(
            data_port(Sfid::DataPortDataCache1, 0x0200_0000 | 0x04 << 14),
            Ok(DataMessage {
                op: DataOp::MediaBlock {
                    write: false,
                    stride_override: None,
                    render_cache: false,
                    normal_header: true,
                },
                ..
            })
        ));
        assert!(matches!(
            data_port(
                Sfid::DataPortDataCache1,
                0x0200_0000 | 0x0a << 14 | 0b110 << 8
            ),
            Ok(DataMessage {
                op: DataOp::MediaBlock {
                    write: true,
                    stride_override: Some(Some(0)),
                    ..
                },
                ..
            })
        ));
        // The transpose read (MT1R_T, 0x00): not modelled on Gen11, refused by name.
        match data_port(Sfid::DataPortDataCache1, 0x0200_0000) {
            Err(MessageError::Unsupported(u)) => assert!(u.to_string().contains("MT1R_T")),
            other => panic!("{other:?}"),
        }
    }
}
