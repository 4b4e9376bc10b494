//! Gen7's data port descriptors (seed 000 §3.9.2.1.1 message types per target cache,
//! and each message's descriptor, `defs/gen7/messages.spec`) decoded into the neutral
//! [`DataMessage`] that `gtsim_dataport::dc` carries out.

use gtsim_dataport::dc::{
    Access, AddressModel, AtomicOp, DataMessage, DataOp, DataSurface, GeneralState, ImageView,
    MediaBoundary, MediaRows, Simd,
};
use gtsim_eu::exec::MessageError;
use gtsim_isa::ir::Sfid;
use gtsim_spec::gen7::message_descriptor_byte_scattered_read_write as byte_scattered;
use gtsim_spec::gen7::message_descriptor_data_cache_data_port::Category;
use gtsim_spec::gen7::message_descriptor_dword_scattered_read_write as dword_scattered;
use gtsim_spec::gen7::message_descriptor_oword_dual_block_read_write as dual_block;
use gtsim_spec::gen7::message_descriptor_scratch_block_read_write as scratch;
use gtsim_spec::gen7::message_descriptor_typed_atomic_operation as typed_atomic;
use gtsim_spec::gen7::message_descriptor_typed_surface_read_write as typed_rw;
use gtsim_spec::gen7::message_descriptor_untyped_atomic_operation as untyped_atomic;
use gtsim_spec::gen7::message_descriptor_untyped_surface_read_write as untyped_rw;
use gtsim_spec::gen7::{
    DataPortConstantCacheMessageType as Cc, DataPortDataCacheMessageType as Dc,
    DataPortRenderCacheMessageType as Rc, DataPortSamplerCacheMessageType as Sc,
    MessageDescriptorByteScatteredReadWrite, MessageDescriptorConstantCacheDataPort,
    MessageDescriptorDWordScatteredReadWrite, MessageDescriptorDataCacheDataPort,
    MessageDescriptorMediaBlockReadWrite, MessageDescriptorMemoryFence,
    MessageDescriptorOWordBlockReadWrite, MessageDescriptorOWordDualBlockReadWrite,
    MessageDescriptorRenderCacheDataPort, MessageDescriptorSamplerCacheDataPort,
    MessageDescriptorScratchBlockReadWrite, MessageDescriptorTypedAtomicOperation,
    MessageDescriptorTypedSurfaceReadWrite, MessageDescriptorUnalignedOWordBlockRead,
    MessageDescriptorUntypedAtomicOperation, MessageDescriptorUntypedSurfaceReadWrite,
};

/// Binding Table Index 255: the stateless model (seed 000 §3.2.2).
const BTI_STATELESS: u8 = 255;
/// Binding Table Index 254: shared local memory, on the data cache only (§3.2.3).
const BTI_SLM: u8 = 254;

/// What a data port message of `sfid` with descriptor `desc` is: `Ok(None)` for a
/// render target write (decoded elsewhere), an error for descriptors that do not
/// decode or messages not modelled.
pub(crate) fn decode(sfid: Sfid, desc: u32) -> Result<Option<DataMessage>, MessageError> {
    let bad = |structure: &'static str, e: &dyn std::fmt::Display| MessageError::State {
        structure,
        why: format!("{desc:#010x}: {e}"),
    };
    let header = desc >> 19 & 1 != 0;
    let bti = desc as u8;
    let model = |slm_port: bool| match bti {
        BTI_STATELESS => AddressModel::Stateless,
        BTI_SLM if slm_port => AddressModel::Slm,
        n => AddressModel::Surface(n),
    };
    let msg = |op, slm_port| {
        Ok(Some(DataMessage {
            op,
            model: model(slm_port),
            header,
        }))
    };
    match sfid {
        Sfid::DataPortDataCache => {
            let d = MessageDescriptorDataCacheDataPort::unpack(&[desc])
                .map_err(|e| bad("data cache message descriptor", &e))?;
            // Seed 000 §3.9.10: "binding table entry 0xFF is hard-coded" (bits 11:0
            // are the HWord offset, not a binding table index).
            if d.category == Category::SCRATCH_BLOCK_READ_WRITE_MESSAGES {
                return Ok(Some(DataMessage {
                    op: scratch_block(desc)?,
                    model: AddressModel::Stateless,
                    header,
                }));
            }
            msg(data_cache(desc, d.message_type)?, true)
        }
        // Seed 000 §3.9.2.1.1: the constant cache takes the four read messages, with
        // the data cache's encodings.
        Sfid::DataPortConstantCache => {
            let d = MessageDescriptorConstantCacheDataPort::unpack(&[desc])
                .map_err(|e| bad("constant cache message descriptor", &e))?;
            let dc = match d.message_type {
                Cc::OWORD_BLOCK_READ => Dc::OWORD_BLOCK_READ,
                Cc::UNALIGNED_OWORD_BLOCK_READ => Dc::UNALIGNED_OWORD_BLOCK_READ,
                Cc::OWORD_DUAL_BLOCK_READ => Dc::OWORD_DUAL_BLOCK_READ,
                Cc::DWORD_SCATTERED_READ => Dc::DWORD_SCATTERED_READ,
                other => {
                    return Err(bad(
                        "constant cache message descriptor",
                        &format!("Message Type {} is reserved (seed 000 §3.9.2.1.1)", other.0),
                    ));
                }
            };
            msg(data_cache(desc, dc)?, false)
        }
        Sfid::DataPortSamplerCache => {
            let d = MessageDescriptorSamplerCacheDataPort::unpack(&[desc])
                .map_err(|e| bad("sampler cache message descriptor", &e))?;
            match d.message_type {
                Sc::UNALIGNED_OWORD_BLOCK_READ => {
                    msg(data_cache(desc, Dc::UNALIGNED_OWORD_BLOCK_READ)?, false)
                }
                Sc::MEDIA_BLOCK_READ => msg(media_block(desc, false, false)?, false),
                other => Err(bad(
                    "sampler cache message descriptor",
                    &format!("Message Type {} is reserved (seed 000 §3.9.2.1.1)", other.0),
                )),
            }
        }
        Sfid::DataPortRenderCache => {
            let d = MessageDescriptorRenderCacheDataPort::unpack(&[desc])
                .map_err(|e| bad("render cache message descriptor", &e))?;
            match d.message_type {
                Rc::RENDER_TARGET_WRITE => Ok(None),
                // Seed 000 §3.9.9.9: Gen7's typed messages must include the header.
                Rc::TYPED_SURFACE_READ | Rc::TYPED_SURFACE_WRITE | Rc::TYPED_ATOMIC_OPERATION
                    if !header =>
                {
                    Err(gtsim_message::invalid(
                        "a typed surface message without its header (seed 000 §3.9.9.9: typed messages must include it)",
                    ))
                }
                Rc::TYPED_SURFACE_READ | Rc::TYPED_SURFACE_WRITE => {
                    let t = MessageDescriptorTypedSurfaceReadWrite::unpack(&[desc])
                        .map_err(|e| bad("typed surface read/write descriptor", &e))?;
                    msg(
                        DataOp::Typed {
                            access: if d.message_type == Rc::TYPED_SURFACE_READ {
                                Access::Read
                            } else {
                                Access::Write
                            },
                            high: t.slot_group == typed_rw::SlotGroup::USE_HIGH_8_SLOTS,
                            channels: [
                                !t.red_channel_mask,
                                !t.green_channel_mask,
                                !t.blue_channel_mask,
                                !t.alpha_channel_mask,
                            ],
                        },
                        false,
                    )
                }
                Rc::TYPED_ATOMIC_OPERATION => {
                    let t = MessageDescriptorTypedAtomicOperation::unpack(&[desc])
                        .map_err(|e| bad("typed atomic operation descriptor", &e))?;
                    msg(
                        DataOp::Typed {
                            access: Access::Atomic {
                                op: atomic_op(t.atomic_operation_type.0)?,
                                ret: t.return_data_control,
                            },
                            high: t.slot_group == typed_atomic::SlotGroup::USE_HIGH_8_SLOTS,
                            channels: [true, false, false, false],
                        },
                        false,
                    )
                }
                Rc::MEMORY_FENCE => fence(desc, header),
                Rc::MEDIA_BLOCK_READ | Rc::MEDIA_BLOCK_WRITE => msg(
                    media_block(desc, d.message_type == Rc::MEDIA_BLOCK_WRITE, true)?,
                    false,
                ),
                other => Err(bad(
                    "render cache message descriptor",
                    &format!("Message Type {} is reserved (seed 000 §3.9.2.1.1)", other.0),
                )),
            }
        }
        _ => Err(gtsim_message::invalid(format!(
            "shared function {} is not a data port",
            sfid.mnemonic()
        ))),
    }
}

/// Seed 000 §3.9.6.1: a media block message, with the descriptor's Vertical Line Stride
/// Override when it has one; `render_cache` for the render cache's, whose writes may run
/// the colour processing pipe (§3.6.1).
fn media_block(desc: u32, write: bool, render_cache: bool) -> Result<DataOp, MessageError> {
    let d =
        MessageDescriptorMediaBlockReadWrite::unpack(&[desc]).map_err(|e| MessageError::State {
            structure: "media block read/write descriptor",
            why: format!("{desc:#010x}: {e}"),
        })?;
    // "1: Use bits 9:8 to provide the Vertical Line Stride and Vertical Line Stride
    // Offset".
    let stride_override = (d.vertical_line_stride_override.0 == 1).then(|| {
        (d.override_vertical_line_stride != 0).then_some(d.override_vertical_line_stride_offset)
    });
    Ok(DataOp::MediaBlock {
        write,
        stride_override,
        render_cache,
        normal_header: false,
    })
}

fn atomic_op(code: u32) -> Result<AtomicOp, MessageError> {
    AtomicOp::from_code(code).ok_or_else(|| {
        gtsim_message::invalid(format!("Atomic Operation Type {code} (seed 000 §3.9.9.5)"))
    })
}

fn fence(desc: u32, header: bool) -> Result<Option<DataMessage>, MessageError> {
    let f = MessageDescriptorMemoryFence::unpack(&[desc]).map_err(|e| MessageError::State {
        structure: "memory fence descriptor",
        why: format!("{desc:#010x}: {e}"),
    })?;
    Ok(Some(DataMessage {
        op: DataOp::Fence {
            commit: f.commit_enable,
        },
        model: AddressModel::Surface(f.binding_table_index),
        header,
    }))
}

/// Seed 000 §3.9.10.1.
fn scratch_block(desc: u32) -> Result<DataOp, MessageError> {
    let d = MessageDescriptorScratchBlockReadWrite::unpack(&[desc]).map_err(|e| {
        MessageError::State {
            structure: "scratch block read/write descriptor",
            why: format!("{desc:#010x}: {e}"),
        }
    })?;
    let regs = match d.block_size {
        scratch::BlockSize::_1_REGISTER => 1,
        scratch::BlockSize::_2_REGISTERS => 2,
        scratch::BlockSize::_4_REGISTERS => 4,
        other => {
            return Err(gtsim_message::invalid(format!(
                "scratch Block Size {} is reserved (seed 000 §3.9.10.1)",
                other.0
            )));
        }
    };
    Ok(DataOp::ScratchBlock {
        write: d.operation_type == scratch::OperationType::WRITE,
        dword_mode: d.channel_mode == scratch::ChannelMode::DWORD,
        regs,
        offset: u32::from(d.offset),
    })
}

/// The data cache's legacy messages (Category 0), by Message Type (seed 000
/// §3.9.2.1.1), each from its own descriptor (§3.9.3.1 to §3.9.9.5).
fn data_cache(desc: u32, ty: Dc) -> Result<DataOp, MessageError> {
    let bad = |structure: &'static str, e: &dyn std::fmt::Display| MessageError::State {
        structure,
        why: format!("{desc:#010x}: {e}"),
    };
    let reserved = |field: &str, v: u32, seed: &str| {
        gtsim_message::invalid(format!("{field} {v} is reserved ({seed})"))
    };
    Ok(match ty {
        Dc::OWORD_BLOCK_READ | Dc::OWORD_BLOCK_WRITE => {
            let d = MessageDescriptorOWordBlockReadWrite::unpack(&[desc])
                .map_err(|e| bad("OWord block descriptor", &e))?;
            let (owords, high) = oword_block_size(d.block_size.0)
                .ok_or_else(|| reserved("OWord Block Size", d.block_size.0, "seed 000 §3.9.3.1"))?;
            DataOp::OwordBlock {
                write: ty == Dc::OWORD_BLOCK_WRITE,
                unaligned: false,
                owords,
                high,
            }
        }
        Dc::UNALIGNED_OWORD_BLOCK_READ => {
            let d = MessageDescriptorUnalignedOWordBlockRead::unpack(&[desc])
                .map_err(|e| bad("unaligned OWord block descriptor", &e))?;
            let (owords, high) = oword_block_size(d.block_size.0)
                .ok_or_else(|| reserved("OWord Block Size", d.block_size.0, "seed 000 §3.9.4.1"))?;
            DataOp::OwordBlock {
                write: false,
                unaligned: true,
                owords,
                high,
            }
        }
        Dc::OWORD_DUAL_BLOCK_READ | Dc::OWORD_DUAL_BLOCK_WRITE => {
            let d = MessageDescriptorOWordDualBlockReadWrite::unpack(&[desc])
                .map_err(|e| bad("OWord dual block descriptor", &e))?;
            let owords = match d.block_size {
                dual_block::BlockSize::_1_OWORD => 1,
                dual_block::BlockSize::_4_OWORDS => 4,
                other => {
                    return Err(reserved(
                        "dual block Block Size",
                        other.0,
                        "seed 000 §3.9.5.1",
                    ));
                }
            };
            DataOp::OwordDualBlock {
                write: ty == Dc::OWORD_DUAL_BLOCK_WRITE,
                owords,
            }
        }
        Dc::DWORD_SCATTERED_READ | Dc::DWORD_SCATTERED_WRITE => {
            let d = MessageDescriptorDWordScatteredReadWrite::unpack(&[desc])
                .map_err(|e| bad("DWord scattered descriptor", &e))?;
            let slots = match d.block_size {
                dword_scattered::BlockSize::_8_DWORDS => 8,
                dword_scattered::BlockSize::_16_DWORDS => 16,
                other => {
                    return Err(reserved(
                        "DWord scattered Block Size",
                        other.0,
                        "seed 000 §3.9.7.1",
                    ));
                }
            };
            DataOp::DwordScattered {
                write: ty == Dc::DWORD_SCATTERED_WRITE,
                slots,
            }
        }
        Dc::BYTE_SCATTERED_READ | Dc::BYTE_SCATTERED_WRITE => {
            let d = MessageDescriptorByteScatteredReadWrite::unpack(&[desc])
                .map_err(|e| bad("byte scattered descriptor", &e))?;
            let bytes = match d.data_size {
                byte_scattered::DataSize::_1_BYTE => 1,
                byte_scattered::DataSize::_2_BYTES => 2,
                byte_scattered::DataSize::_4_BYTES => 4,
                other => {
                    return Err(reserved(
                        "byte scattered Data Size",
                        other.0,
                        "seed 000 §3.9.8.1",
                    ));
                }
            };
            DataOp::ByteScattered {
                write: ty == Dc::BYTE_SCATTERED_WRITE,
                slots: if d.simd_mode == byte_scattered::SimdMode::SIMD16 {
                    16
                } else {
                    8
                },
                bytes,
            }
        }
        Dc::UNTYPED_SURFACE_READ | Dc::UNTYPED_SURFACE_WRITE => {
            let d = MessageDescriptorUntypedSurfaceReadWrite::unpack(&[desc])
                .map_err(|e| bad("untyped surface read/write descriptor", &e))?;
            let simd = match d.simd_mode {
                untyped_rw::SimdMode::SIMD4X2 => Simd::Simd4x2,
                untyped_rw::SimdMode::SIMD16 => Simd::Simd16,
                untyped_rw::SimdMode::SIMD8 => Simd::Simd8,
                other => return Err(reserved("untyped SIMD Mode", other.0, "seed 000 §3.9.9.2")),
            };
            DataOp::Untyped {
                access: if ty == Dc::UNTYPED_SURFACE_READ {
                    Access::Read
                } else {
                    Access::Write
                },
                simd,
                channels: [
                    !d.red_channel_mask,
                    !d.green_channel_mask,
                    !d.blue_channel_mask,
                    !d.alpha_channel_mask,
                ],
            }
        }
        Dc::UNTYPED_ATOMIC_OPERATION => {
            let d = MessageDescriptorUntypedAtomicOperation::unpack(&[desc])
                .map_err(|e| bad("untyped atomic operation descriptor", &e))?;
            DataOp::Untyped {
                access: Access::Atomic {
                    op: atomic_op(d.atomic_operation_type.0)?,
                    ret: d.return_data_control,
                },
                simd: if d.simd_mode == untyped_atomic::SimdMode::SIMD8 {
                    Simd::Simd8
                } else {
                    Simd::Simd16
                },
                channels: [true, false, false, false],
            }
        }
        Dc::MEMORY_FENCE => {
            let f = MessageDescriptorMemoryFence::unpack(&[desc])
                .map_err(|e| bad("memory fence descriptor", &e))?;
            DataOp::Fence {
                commit: f.commit_enable,
            }
        }
        other => {
            return Err(reserved(
                "data cache Message Type",
                other.0,
                "seed 000 §3.9.2.1.1",
            ));
        }
    })
}

/// The surface binding table entry `bti` of `binding_table` names, as the data port
/// sees it (seed 000 §3.2.1 and §2.12.2): SURFTYPE_BUFFER and SURFTYPE_STRBUF with
/// their entry counts, 1D/2D/3D surfaces with the view Surface Min LOD, MIP Count and
/// Minimum Array Element select (as the sampler's view, seed 000 §2.12.2).
pub(crate) fn surface(
    mem: &dyn gtsim_mem::Memory,
    bases: &crate::indirect::Bases,
    binding_table: u64,
    bti: u8,
) -> Result<DataSurface, MessageError> {
    use crate::surface_state::{Use, buffer_entries, surface_from_state};
    use gtsim_spec::gen7::render_surface_state::SurfaceType as St;
    let (_, rss) = crate::indirect::binding_table_surface(mem, bases, binding_table, bti)
        .map_err(gtsim_pipe3d::draw::DrawError::into_message_error)?;
    let state_error = |e: crate::surface_state::SurfaceStateError| MessageError::State {
        structure: "RENDER_SURFACE_STATE",
        why: format!("binding table entry {bti}: {e}"),
    };
    // Seed 000 §2.12.2 Vertical Line Stride: field access, which only the media block
    // messages on 2D surfaces model (through the image view below).
    let image = matches!(
        rss.surface_type,
        St::SURFTYPE_1D | St::SURFTYPE_2D | St::SURFTYPE_3D
    );
    if rss.vertical_line_stride != 0 && !image {
        return Err(gtsim_spec::Unsupported::new(
            "data port access to a buffer with Vertical Line Stride 1 (fields)",
            "seed 000 §2.12.2, §3.9.3-§3.9.9",
        )
        .into());
    }
    Ok(match rss.surface_type {
        St::SURFTYPE_NULL => DataSurface::Null,
        St::SURFTYPE_BUFFER => DataSurface::Buffer {
            base: rss.surface_base_address,
            entries: u64::from(buffer_entries(&rss)),
            format: rss.surface_format,
            any_format_reads: false,
            typed: if rss.surface_format == gtsim_spec::shared::SurfaceFormat::RAW {
                None
            } else {
                surface_from_state(&rss, Use::Sampled).ok().map(|(s, _)| s)
            },
        },
        St::SURFTYPE_STRBUF => DataSurface::Structured {
            base: rss.surface_base_address,
            entries: u64::from(buffer_entries(&rss)),
            pitch: u64::from(rss.surface_pitch) + 1,
        },
        St::SURFTYPE_1D | St::SURFTYPE_2D | St::SURFTYPE_3D => {
            let base_level = u32::from(rss.surface_min_lod);
            let levels = rss.mip_count_lod as u32 + 1;
            let mut state = rss.clone();
            // The layout places every level up to the view's last.
            state.mip_count_lod = (base_level + levels - 1) as _;
            let (mut surface, _) = surface_from_state(&state, Use::Sampled).map_err(state_error)?;
            // Seed 000 §2.12.2 Minimum Array Element, for typed surfaces "added to the
            // delivered array index", Depth the elements from there: the layout reaches
            // Minimum Array Element + Depth (as for render targets, `output.rs`).
            if rss.surface_array && rss.surface_type != St::SURFTYPE_3D {
                let min = u32::from(rss.minimum_array_element);
                surface.desc.depth = surface.desc.depth.max(min + surface.desc.depth);
            }
            DataSurface::Image {
                surface,
                array: rss.surface_array,
                view: ImageView {
                    base_level,
                    levels,
                    base_slice: u32::from(rss.minimum_array_element),
                    // Seed 000 §3.9.9: Gen7's typed reads take R32 formats only.
                    any_format_reads: false,
                    base_slice_3d: false,
                    // Seed 000 §2.12.2 Vertical Line Stride (Offset) and Media Boundary
                    // Pixel Mode, for the media block messages (the others refuse a
                    // field).
                    rows: MediaRows {
                        field: (rss.vertical_line_stride != 0)
                            .then_some(rss.vertical_line_stride_offset),
                        boundary: match rss.media_boundary_pixel_mode.0 {
                            0 => MediaBoundary::Normal,
                            2 => MediaBoundary::ProgressiveFrame,
                            3 => MediaBoundary::InterlacedFrame,
                            v => MediaBoundary::Reserved(v),
                        },
                    },
                },
            }
        }
        other => {
            return Err(MessageError::State {
                structure: "RENDER_SURFACE_STATE",
                why: format!(
                    "binding table entry {bti}: Surface Type {} is not one the data port messages take (seed 000 §3.9.9)",
                    other.name().unwrap_or("reserved")
                ),
            });
        }
    })
}

/// The stateless model's base and bound: General State Base Address and General State
/// Access Upper Bound (seed 000 §3.2.2; an upper bound of 0 disables the check).
pub(crate) fn general_state(bases: &crate::indirect::Bases) -> GeneralState {
    GeneralState {
        base: bases.general,
        bound: (bases.general_bound != 0).then_some(bases.general_bound),
    }
}

/// OWords and half of an OWord block's Block Size (seed 000 §3.9.3.1).
fn oword_block_size(code: u32) -> Option<(u8, bool)> {
    Some(match code {
        0 => (1, false),
        1 => (1, true),
        2 => (2, false),
        3 => (4, false),
        4 => (8, false),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 000 §3.9.9.9: Gen7's typed messages must include the header. A typed surface
    /// write (render cache type 13) with Header Present clear is refused; with it set,
    /// decoded.
    #[test]
    fn typed_messages_need_their_header_on_gen7() {
        let desc = 0x0400_0000 | 13 << 14 | 1;
        let e = decode(Sfid::DataPortRenderCache, desc).unwrap_err();
        assert!(e.to_string().contains("must include it"), "{e}");
        let m = decode(Sfid::DataPortRenderCache, desc | 1 << 19)
            .unwrap()
            .unwrap();
        assert!(matches!(
            m.op,
            DataOp::Typed {
                access: Access::Write,
                ..
            }
        ));
    }

    /// Descriptors as Mesa's brw_eu_emit.c composes them for Gen7 (bit positions from
    /// seed 000 §3.9.2.1.1 and each message's descriptor table), decoded by hand.
    #[test]
    fn mesa_style_descriptors_decode() {
        // Untyped surface read, SIMD8 (13:12 = 2), R only (11:8 = 1110b), BTI 3,
        // mlen 1, rlen 1: 0x02000000 | 1<<20 | 5<<14 | 2<<12 | 0xe<<8 | 3.
        let desc = 0x0210_0000 | 5 << 14 | 2 << 12 | 0xe << 8 | 3;
        let m = decode(Sfid::DataPortDataCache, desc).unwrap().unwrap();
        assert_eq!(
            m.op,
            DataOp::Untyped {
                access: Access::Read,
                simd: Simd::Simd8,
                channels: [true, false, false, false]
            }
        );
        assert_eq!(m.model, AddressModel::Surface(3));
        // Untyped atomic ADD with return, SIMD16, on SLM (BTI 254).
        let desc = 0x0410_0000 | 6 << 14 | 1 << 13 | 7 << 8 | 254;
        let m = decode(Sfid::DataPortDataCache, desc).unwrap().unwrap();
        assert_eq!(m.model, AddressModel::Slm);
        assert_eq!(
            m.op,
            DataOp::Untyped {
                access: Access::Atomic {
                    op: AtomicOp::Add,
                    ret: true
                },
                simd: Simd::Simd16,
                channels: [true, false, false, false]
            }
        );
        // BTI 254 on the constant cache is an ordinary surface (§3.2.3).
        let desc = 0x0218_0000 | 2 << 8 | 254;
        let m = decode(Sfid::DataPortConstantCache, desc).unwrap().unwrap();
        assert_eq!(m.model, AddressModel::Surface(254));
        // Scratch write, Dword mode, 2 registers at HWord 5 (Category 1): stateless,
        // whatever the offset's low byte.
        let desc = 0x060a_0000 | 1 << 18 | 1 << 17 | 1 << 16 | 1 << 12 | 5;
        let m = decode(Sfid::DataPortDataCache, desc).unwrap().unwrap();
        assert_eq!(m.model, AddressModel::Stateless);
        assert_eq!(
            m.op,
            DataOp::ScratchBlock {
                write: true,
                dword_mode: true,
                regs: 2,
                offset: 5
            }
        );
        // Typed atomic (render cache type 6) UMAX, slot group high, with return.
        let desc = 0x0a18_0000 | 6 << 14 | 1 << 13 | 1 << 12 | 12 << 8 | 9;
        let m = decode(Sfid::DataPortRenderCache, desc).unwrap().unwrap();
        assert_eq!(
            m.op,
            DataOp::Typed {
                access: Access::Atomic {
                    op: AtomicOp::UMax,
                    ret: true
                },
                high: true,
                channels: [true, false, false, false]
            }
        );
        // The render target write is left to its own decoder.
        assert_eq!(decode(Sfid::DataPortRenderCache, 12 << 14).unwrap(), None);
        // A reserved scratch block size is an error, not a guess.
        let e = decode(Sfid::DataPortDataCache, 1 << 18 | 2 << 12)
            .unwrap_err()
            .to_string();
        assert!(e.contains("scratch Block Size 2 is reserved"), "{e}");
    }

    /// Fuzz (docs/FUZZING.md): random descriptors on the four data port SFIDs, and
    /// random payloads and execution masks for those that decode, against every kind
    /// of surface, the stateless model and SLM over a small memory with holes. Nothing
    /// may panic; every outcome is a response or a typed error. `GTSIM_FUZZ_CASES`
    /// sets the number of cases (default 20000), `GTSIM_FUZZ_SEED` the seed.
    #[test]
    fn hostile_data_port_messages_end_in_responses_or_typed_errors() {
        use gtsim_dataport::dc::{self, GeneralState, SLM_BYTES, Target};
        use gtsim_mem::layout::{ArraySpacing, MsaaLayout, SurfaceDesc, SurfaceType};
        use gtsim_mem::space::AddressSpace;
        use gtsim_mem::surface::Surface;
        use gtsim_mem::tiling::Tiling;
        use gtsim_message::Payload;
        use gtsim_spec::shared::SurfaceFormat;
        let mut rng = gtsim_fuzzkit::SplitMix64(gtsim_fuzzkit::env_u64("GTSIM_FUZZ_SEED", 17));
        let mut mem = AddressSpace::new();
        // Mapped: 64 KiB at 1 MiB; a hole after it.
        mem.map(0x10_0000, 0x1_0000);
        let image = |format, ty| {
            let desc = SurfaceDesc {
                ty,
                width: 16,
                height: 16,
                depth: 4,
                levels: 2,
                samples: 1,
                msaa_layout: MsaaLayout::Array,
                halign: 4,
                valign: 2,
                array_spacing: ArraySpacing::Full,
                block: (1, 1),
                block_bytes: 4,
                tiling: Tiling::Linear,
                pitch: 64,
                origin: (0, 0),
            };
            Surface::new(0x10_8000, desc, format).ok()
        };
        let sfids = [
            Sfid::DataPortDataCache,
            Sfid::DataPortRenderCache,
            Sfid::DataPortConstantCache,
            Sfid::DataPortSamplerCache,
        ];
        let mut slm = vec![0u8; SLM_BYTES];
        let color_processing = |mem: &dyn gtsim_mem::Memory, address: u64| {
            crate::color_processing::decode(mem, address)
        };
        let (mut responses, mut errors) = (0u32, 0u32);
        for _ in 0..gtsim_fuzzkit::cases(20_000) {
            let sfid = sfids[rng.below(4) as usize];
            // Mostly descriptors whose reserved high bits are clear, so that most decode.
            let desc = if rng.one_in(8) {
                rng.next_u64() as u32
            } else {
                rng.next_u64() as u32 & 0x1fff_ffff
            };
            let Ok(Some(msg)) = decode(sfid, desc) else {
                continue;
            };
            let surface = match rng.below(6) {
                0 => DataSurface::Null,
                1 => DataSurface::Buffer {
                    base: 0x10_0000 + rng.below(0x2_0000),
                    entries: rng.below(1 << 20),
                    format: SurfaceFormat::RAW,
                    any_format_reads: false,
                    typed: None,
                },
                2 => DataSurface::Buffer {
                    base: 0x10_0000,
                    entries: rng.below(4096),
                    format: SurfaceFormat::R32G32B32A32_FLOAT,
                    any_format_reads: false,
                    typed: image(SurfaceFormat::R32G32B32A32_FLOAT, SurfaceType::Buffer),
                },
                3 => DataSurface::Structured {
                    base: 0x10_0000,
                    entries: rng.below(1 << 16),
                    pitch: 1 + rng.below(256),
                },
                _ => match image(
                    [
                        SurfaceFormat::R32_UINT,
                        SurfaceFormat::R8G8B8A8_UNORM,
                        SurfaceFormat::R16_UINT,
                    ][rng.below(3) as usize],
                    [SurfaceType::D1, SurfaceType::D2, SurfaceType::D3][rng.below(3) as usize],
                ) {
                    Some(surface) => DataSurface::Image {
                        surface,
                        array: rng.one_in(2),
                        view: ImageView {
                            base_level: rng.below(3) as u32,
                            levels: rng.below(3) as u32,
                            base_slice: rng.below(5) as u32,
                            any_format_reads: rng.one_in(2),
                            base_slice_3d: rng.one_in(2),
                            rows: MediaRows {
                                field: rng.one_in(4).then(|| rng.below(2) as u8),
                                boundary: [
                                    MediaBoundary::Normal,
                                    MediaBoundary::ProgressiveFrame,
                                    MediaBoundary::InterlacedFrame,
                                    MediaBoundary::Reserved(1),
                                ][rng.below(4) as usize],
                            },
                        },
                    },
                    None => DataSurface::Null,
                },
            };
            let mut regs: Vec<[u8; 32]> = Vec::new();
            for _ in 0..rng.below(16) {
                let mut r = [0u8; 32];
                for d in r.chunks_mut(4) {
                    // Small offsets mostly, so that accesses land in and around the
                    // mapped range; sometimes anything.
                    let v = if rng.one_in(4) {
                        rng.next_u64() as u32
                    } else {
                        rng.below(0x2_0000) as u32
                    };
                    d.copy_from_slice(&v.to_le_bytes());
                }
                regs.push(r);
            }
            // A quarter of the messages point M0.3 at a COLOR_PROCESSING_STATE that
            // enables only modelled stages with random parameters (seed 000 §3.8.3
            // DW53-63, DW66 30:28), and set Color Processing Enable.
            if rng.one_in(4) && !regs.is_empty() {
                let at = rng.below(0x8000) & !0x1f;
                let mut state = [0u32; 67];
                for d in &mut state[53..=63] {
                    *d = rng.next_u64() as u32;
                }
                state[53] &= 0x0ffe_1fff;
                state[66] = (rng.below(8) as u32) << 28;
                let bytes: Vec<u8> = state.iter().flat_map(|d| d.to_le_bytes()).collect();
                mem.load(0x10_0000 + at, &bytes);
                let m3 = at as u32 | (rng.below(16) as u32 * 2) | 1;
                // A well-formed media block header: dword-aligned X, a width of whole
                // dwords, 1-8 rows.
                let header = [
                    rng.below(24) as u32 * 4,
                    rng.below(24) as u32,
                    ((rng.below(8) as u32) << 16) | (rng.below(8) as u32 * 4 + 3),
                    m3,
                ];
                for (i, d) in header.iter().enumerate() {
                    regs[0][4 * i..4 * i + 4].copy_from_slice(&d.to_le_bytes());
                }
            }
            let payload: Payload = regs.into_iter().collect();
            let mut target = Target {
                mem: &mut mem,
                surface: Some(surface),
                general: GeneralState {
                    base: 0x10_0000,
                    bound: rng.one_in(2).then_some(0x10_8000),
                },
                slm: rng.one_in(2).then_some(&mut slm[..]),
                color_processing: rng.one_in(2).then_some(&color_processing),
            };
            let rlen = rng.below(9) as usize;
            match dc::execute(&msg, &payload, rng.next_u64() as u32, rlen, &mut target) {
                Ok(r) => {
                    assert_eq!(r.registers.len(), rlen);
                    assert!(r.written.as_ref().is_none_or(|w| w.len() == rlen));
                    responses += 1;
                }
                Err(_) => errors += 1,
            }
        }
        assert!(
            responses > 0 && errors > 0,
            "{responses} responses, {errors} errors"
        );
    }
}
