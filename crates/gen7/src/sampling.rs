//! Sampler messages of Gen7 threads: the message descriptor and header (seed 000
//! §2.13.1.1-2.13.1.2), and the stage's binding table, surfaces and sampler states (seed
//! 000 §2.12 "State": BINDING_TABLE_STATE, RENDER_SURFACE_STATE, SAMPLER_STATE and
//! SAMPLER_BORDER_COLOR_STATE, found from the thread's R0 pointers or the header),
//! decoded into the sampler's neutral [`gtsim_sampler::state`] types.

use crate::front::StageTables;
use crate::indirect::{Bases, binding_table_entry, binding_table_surface};
use crate::sampling_media::{avs_config, dndi_config, media_surface_view};
use crate::surface_state::{Use, buffer_entries, surface_from_state};
use gtsim_eu::exec::{Message, MessageError, Response};
use gtsim_mem::Memory;
use gtsim_mem::layout::SurfaceDesc;
use gtsim_mem::surface::Surface;
use gtsim_sampler::address::TexCoordMode;
use gtsim_sampler::cache::TableCache;
use gtsim_sampler::filter::MapFilter;
use gtsim_sampler::lod::MipFilter;
use gtsim_sampler::media::avs::AvsConfig;
use gtsim_sampler::media::dndi::DndiConfig;
use gtsim_sampler::media::surface::{Channel, MediaSurfaceView};
use gtsim_sampler::message::SamplerResources;
use gtsim_sampler::state::{
    ChromaKey, SamplerConfig, SamplerHeader, SamplerMessage, SamplerOp, SamplerSimd, SurfaceKind,
    SurfaceView,
};
use gtsim_spec::Unsupported;
use gtsim_spec::gen7::message_descriptor_sampling_engine::SimdMode;
use gtsim_spec::gen7::render_surface_state::{NumberOfMultisamples, SurfaceType};
use gtsim_spec::gen7::sampler_state::{ChromaKeyMode, LodPreClampEnable, TrilinearFilterQuality};
use gtsim_spec::gen7::{
    DeinterlaceSamplerState, MediaSurfaceState, MessageDescriptorSamplingEngine,
    MessageHeaderSamplingEngine, RenderSurfaceState, Sample8x8SamplerState, Sampler8x8State,
    SamplerBorderColorState, SamplerMessageType as T, SamplerState,
};
use gtsim_spec::shared::SurfaceFormat;

/// A stage's Gen7 sampling state: the surface states its binding table points to and
/// its sampler states with their border colours (seed 000 §2.12).
pub trait SamplerTables {
    /// The RENDER_SURFACE_STATE at binding table index `bti`.
    fn surface(&self, bti: u8) -> Result<RenderSurfaceState, MessageError>;
    /// The SAMPLER_STATE at index `index`, with its border colour (RGBA float).
    fn sampler(&self, index: u8) -> Result<(SamplerState, [f32; 4]), MessageError>;
    /// Graphics memory, for texels.
    fn memory(&self) -> &dyn Memory;
    /// The 3DSTATE_CHROMA_KEY table, (ChromaKey Low Value, ChromaKey High Value) per
    /// ChromaKey Table Index (seed 000 §2.12.6); all zero until a command loads it.
    fn chroma_keys(&self) -> [(u32, u32); 4] {
        [(0, 0); 4]
    }
    /// The MEDIA_SURFACE_STATE at binding table index `bti` (seed 000 §2.12.2.2), for
    /// the media sampler's messages.
    fn media_surface(&self, bti: u8) -> Result<MediaSurfaceState, MessageError> {
        let _ = bti;
        Err(Unsupported::new("media surfaces in this stage", "seed 000 §2.12.2.2").into())
    }
    /// The deinterlace message's statistics surface at `bti` as bytes (seed 000
    /// §2.8.6.2): by default the MEDIA_SURFACE_STATE of format STMM_DN_STATISTICS the
    /// seed names ([`crate::sampling_media::statistics`] reads either form).
    fn statistics(&self, bti: u8) -> Result<Channel, MessageError> {
        media_surface_view(&self.media_surface(bti)?)?.statistics()
    }
    /// The DEINTERLACE_SAMPLER_STATE the deinterlace message with Sampler Index `index`
    /// uses (seed 000 §2.12.3.3: element `index / 2` of 8-dword elements, so at `index`
    /// times 16 bytes, as other sampler states).
    fn deinterlace_sampler(&self, index: u8) -> Result<DeinterlaceSamplerState, MessageError> {
        let _ = index;
        Err(Unsupported::new(
            "deinterlace sampler state in this stage",
            "seed 000 §2.12.3.3",
        )
        .into())
    }
    /// The SAMPLER_STATE for Sample_8x8 at index `index` (seed 000 §2.12.3.2), with the
    /// SAMPLER_8x8_STATE it points to (§2.12.4) and that state's dwords.
    fn sampler_8x8(
        &self,
        index: u8,
    ) -> Result<(Sample8x8SamplerState, Sampler8x8State, Vec<u32>), MessageError> {
        let _ = index;
        Err(Unsupported::new("sample_8x8 sampler state in this stage", "seed 000 §2.12.4").into())
    }
}

/// Carries out a sampler message of a thread (seed 000 ch.2): the sampler state table is
/// the header's when the message has one, else the stage's (the thread's R0.3). The
/// SIMD32/64 (media sampler) messages always use the stage's: their header carries
/// only the write channel masks (seed 000 §2.13.1.2 marks M0.3 "Ignored" beside the
/// pointer; Intel's VA driver's Gen7 AVS kernels leave M0.3 unwritten, and their header
/// comment reads "m0.3 Ignored").
pub(crate) fn message(
    cache: &SamplerCache,
    bases: &Bases,
    mut tables: StageTables,
    mem: &dyn Memory,
    m: &Message,
) -> Result<Response, MessageError> {
    if let Some(p) = header_sampler_state_pointer(m.desc, &m.payload) {
        tables.sampler_state = p;
    }
    let s = StageSampling { bases, tables, mem };
    // The sampler numbers the message's channels from 0 (a 2H send's channels 16-31
    // are its 0-15).
    run(
        m.desc,
        &m.payload,
        m.channel_mask >> m.first_channel,
        &Cached { cache, tables: &s },
    )
}

/// The surfaces and sampler states a draw's sampler messages resolved (the neutral
/// [`TableCache`]), and the draw's chroma keys that sampler states are decoded with.
#[derive(Debug, Default)]
pub(crate) struct SamplerCache {
    surfaces: TableCache<std::sync::Arc<SurfaceView>>,
    samplers: TableCache<SamplerConfig>,
    /// The 3DSTATE_CHROMA_KEY table: (low, high) per ChromaKey Index.
    chroma_keys: [(u32, u32); 4],
}

impl SamplerCache {
    /// An empty cache for a draw with the chroma key table `chroma_keys`.
    pub(crate) fn new(chroma_keys: [(u32, u32); 4]) -> SamplerCache {
        SamplerCache {
            chroma_keys,
            ..Default::default()
        }
    }
}

/// A stage's sampling state through the draw's cache.
struct Cached<'a> {
    cache: &'a SamplerCache,
    tables: &'a StageSampling<'a>,
}

impl SamplerResources for Cached<'_> {
    fn surface(&self, bti: u8) -> Result<std::sync::Arc<SurfaceView>, MessageError> {
        let table = self.tables.tables.binding_table;
        self.cache.surfaces.get_or(table, bti, || {
            Ok(std::sync::Arc::new(surface_view(
                &self.tables.surface(bti)?,
            )))
        })
    }

    fn sampler(&self, index: u8) -> Result<SamplerConfig, MessageError> {
        let table = self.tables.tables.sampler_state;
        self.cache.samplers.get_or(table, index, || {
            let (s, border) = self.tables.sampler(index)?;
            Ok(sampler_config(&s, border, self.cache.chroma_keys))
        })
    }

    fn memory(&self) -> &dyn Memory {
        self.tables.mem
    }

    fn media_surface(&self, bti: u8) -> Result<MediaSurfaceView, MessageError> {
        media_surface_view(&self.tables.media_surface(bti)?)
    }

    fn avs(&self, index: u8) -> Result<AvsConfig, MessageError> {
        crate::sampling_media::sample_8x8_index(index)?;
        let (s, t, raw) = self.tables.sampler_8x8(index)?;
        Ok(avs_config(&s, &t, &raw))
    }

    fn dndi(&self, index: u8) -> Result<DndiConfig, MessageError> {
        Ok(dndi_config(&self.tables.deinterlace_sampler(index)?))
    }

    fn statistics(&self, bti: u8) -> Result<Channel, MessageError> {
        self.tables.statistics(bti)
    }
}

/// The Sampler State Pointer (M0.3 31:5, seed 000 §2.13.1.2) of a message whose descriptor
/// says a header is present, or `None` without a header or for a SIMD32/64 message (the
/// thread's R0.3 applies then, see [`message`]).
pub fn header_sampler_state_pointer(desc: u32, payload: &[[u8; 32]]) -> Option<u64> {
    let d = MessageDescriptorSamplingEngine::unpack(&[desc]).ok()?;
    if !d.header_present || d.simd_mode == SimdMode::SIMD32_64 {
        return None;
    }
    let header = MessageHeaderSamplingEngine::unpack(&dwords(payload.first()?)).ok()?;
    Some(header.sampler_state_pointer)
}

/// Executes one Gen7 sampler message: `desc` is the 32-bit message descriptor
/// (§2.13.1.1), `payload` the message registers (header first when the descriptor says
/// one is present), `channel_mask` the enabled channels. The descriptor and header are
/// decoded here, once, into the sampler's neutral [`SamplerMessage`]; the surfaces and
/// sampler states `res` names become [`SurfaceView`]s and [`SamplerConfig`]s.
pub fn handle(
    desc: u32,
    payload: &[[u8; 32]],
    channel_mask: u32,
    res: &dyn SamplerTables,
) -> Result<Vec<[u8; 32]>, MessageError> {
    handle_response(desc, payload, channel_mask, res).map(|r| r.registers)
}

/// [`handle`], with the dwords of the response the message writes (a SIMD4x2 writeback
/// writes only the active samples' unmasked channels, seed 000 §2.13.2.3).
pub fn handle_response(
    desc: u32,
    payload: &[[u8; 32]],
    channel_mask: u32,
    res: &dyn SamplerTables,
) -> Result<Response, MessageError> {
    run(desc, payload, channel_mask, &Neutral(res))
}

/// [`handle`] over the neutral resources.
fn run(
    desc: u32,
    payload: &[[u8; 32]],
    channel_mask: u32,
    res: &dyn SamplerResources,
) -> Result<Response, MessageError> {
    let d = MessageDescriptorSamplingEngine::unpack(&[desc]).map_err(|e| MessageError::State {
        structure: "sampler message descriptor",
        why: format!("{desc:#010x}: {e}"),
    })?;
    // How errors name the message, formatted only for an error.
    let name = || {
        let t = if d.simd_mode == SimdMode::SIMD32_64 {
            simd32_64_name(d.message_type.0)
        } else {
            d.message_type.name()
        };
        format!(
            "sampler {} (descriptor {desc:#010x}: type {}, {}, BTI {}, sampler {})",
            t.unwrap_or("unknown type"),
            d.message_type.0,
            d.simd_mode.name().unwrap_or("?"),
            d.binding_table_index,
            d.sampler_index
        )
    };
    let header = match (d.header_present, payload.first()) {
        (true, Some(reg)) => {
            let h = MessageHeaderSamplingEngine::unpack(&dwords(reg)).map_err(|e| {
                MessageError::State {
                    structure: "sampler message header",
                    why: e.to_string(),
                }
                .context(name())
            })?;
            Some(SamplerHeader {
                write_masks: [
                    h.red_write_channel_mask,
                    h.green_write_channel_mask,
                    h.blue_write_channel_mask,
                    h.alpha_write_channel_mask,
                ],
                offsets: [h.u_offset, h.v_offset, h.r_offset],
                force_lod_zero: h.force_lod_to_zero,
                gather_channel: (h.gather4_source_channel_select.0 & 3) as u8,
            })
        }
        // A header the payload lacks: the sampler reports the short message.
        (true, None) => Some(SamplerHeader::default()),
        (false, _) => None,
    };
    let simd = match d.simd_mode {
        SimdMode::SIMD4X2 => SamplerSimd::Simd4x2,
        SimdMode::SIMD8 => SamplerSimd::Simd8,
        SimdMode::SIMD16 => SamplerSimd::Simd16,
        _ => SamplerSimd::Simd32_64,
    };
    let msg = SamplerMessage {
        op: match simd {
            SamplerSimd::Simd32_64 => op_simd32_64(d.message_type.0),
            _ => op(d.message_type),
        },
        simd,
        header,
        message_length: usize::from(d.message_length),
        response_length: usize::from(d.response_length),
        binding_table_index: d.binding_table_index,
        sampler_index: d.sampler_index,
        name: String::new(),
    };
    gtsim_sampler::message::handle(&msg, payload, channel_mask, res).map_err(|e| e.context(name()))
}

/// A stage's Gen7 sampling state as the neutral sampler asks for it.
struct Neutral<'a>(&'a dyn SamplerTables);

impl SamplerResources for Neutral<'_> {
    fn surface(&self, bti: u8) -> Result<std::sync::Arc<SurfaceView>, MessageError> {
        self.0
            .surface(bti)
            .map(|rss| std::sync::Arc::new(surface_view(&rss)))
    }

    fn sampler(&self, index: u8) -> Result<SamplerConfig, MessageError> {
        self.0
            .sampler(index)
            .map(|(s, border)| sampler_config(&s, border, self.0.chroma_keys()))
    }

    fn memory(&self) -> &dyn Memory {
        self.0.memory()
    }

    fn media_surface(&self, bti: u8) -> Result<MediaSurfaceView, MessageError> {
        media_surface_view(&self.0.media_surface(bti)?)
    }

    fn avs(&self, index: u8) -> Result<AvsConfig, MessageError> {
        crate::sampling_media::sample_8x8_index(index)?;
        let (s, t, raw) = self.0.sampler_8x8(index)?;
        Ok(avs_config(&s, &t, &raw))
    }

    fn dndi(&self, index: u8) -> Result<DndiConfig, MessageError> {
        Ok(dndi_config(&self.0.deinterlace_sampler(index)?))
    }

    fn statistics(&self, bti: u8) -> Result<Channel, MessageError> {
        self.0.statistics(bti)
    }
}

fn dwords(reg: &[u8; 32]) -> [u32; 8] {
    std::array::from_fn(|i| {
        u32::from_le_bytes([reg[4 * i], reg[4 * i + 1], reg[4 * i + 2], reg[4 * i + 3]])
    })
}

/// Seed 000 §2.13.1.3.1 (SIMD8 and SIMD16 table) and §2.13.1.4: the message types.
fn op(t: T) -> SamplerOp {
    match t {
        T::SAMPLE => SamplerOp::Sample,
        T::SAMPLE_B => SamplerOp::SampleB,
        T::SAMPLE_L => SamplerOp::SampleL,
        T::SAMPLE_KILLPIX => SamplerOp::SampleKillpix,
        T::LD => SamplerOp::Ld,
        T::RESINFO => SamplerOp::Resinfo,
        T::SAMPLE_C => SamplerOp::SampleC,
        T::SAMPLE_B_C => SamplerOp::SampleBC,
        T::SAMPLE_L_C => SamplerOp::SampleLC,
        T::SAMPLE_D => SamplerOp::SampleD,
        T::SAMPLE_D_C => SamplerOp::SampleDC,
        T::GATHER4 => SamplerOp::Gather4,
        T::GATHER4_C => SamplerOp::Gather4C,
        T::GATHER4_PO => SamplerOp::Gather4Po,
        T::GATHER4_PO_C => SamplerOp::Gather4PoC,
        T::LOD => SamplerOp::Lod,
        T::SAMPLEINFO => SamplerOp::Sampleinfo,
        T::LD_MCS => SamplerOp::LdMcs,
        T::LD2DMS => SamplerOp::Ld2dms,
        T::LD2DSS => SamplerOp::Ld2dss,
        _ => SamplerOp::Invalid(t.0),
    }
}

/// Seed 000 §2.13.1.3.1, the SIMD32/SIMD64 table: the media sampler's message types,
/// which reuse SIMD8/16 type numbers.
fn op_simd32_64(t: u32) -> SamplerOp {
    match t {
        0b00000 => SamplerOp::SampleUnorm { media: false },
        0b00010 => SamplerOp::SampleUnormKillpix { media: false },
        0b00011 => SamplerOp::Sample8x8 { media: false },
        0b01000 => SamplerOp::Deinterlace,
        0b01100 => SamplerOp::SampleUnorm { media: true },
        0b01010 => SamplerOp::SampleUnormKillpix { media: true },
        0b01011 => SamplerOp::Sample8x8 { media: true },
        0b11111 => SamplerOp::CacheFlush,
        other => SamplerOp::Invalid(other),
    }
}

/// The SIMD32/64 table's mnemonic of message type `t` (seed 000 §2.13.1.3.1).
fn simd32_64_name(t: u32) -> Option<&'static str> {
    Some(match t {
        0b00000 | 0b01100 => "sample_unorm",
        0b00010 | 0b01010 => "sample_unorm+killpix",
        0b00011 | 0b01011 => "sample_8x8",
        0b01000 => "deinterlace",
        0b11111 => "cache_flush",
        _ => return None,
    })
}

/// The multisample control surface of a multisampled surface with MCS Enable set
/// (seed 000 §2.12.2 DW6: MCS Base Address, MCS Surface Pitch "in tiles - 1", §2.7.1:
/// "the surface is defined by the MCS fields of SURFACE_STATE"): Y-tiled, one R8_UINT
/// (4x) or R32_UINT (8x) element per pixel, the colour surface's size and slices.
pub(crate) fn mcs_surface(rss: &RenderSurfaceState) -> Option<Result<Surface, MessageError>> {
    if !rss.mcs_enable || rss.number_of_multisamples == NumberOfMultisamples::MULTISAMPLECOUNT_1 {
        return None;
    }
    Some(
        surface_from_state(rss, Use::Sampled)
            .map_err(|e| MessageError::State {
                structure: "RENDER_SURFACE_STATE",
                why: e.to_string(),
            })
            .and_then(|(color, _)| {
                // Whether X Offset and Y Offset move the MCS too the seed does not say.
                if color.desc.origin != (0, 0) {
                    return Err(MessageError::Unsupported(gtsim_spec::Unsupported::new(
                        "an MCS for a surface with X Offset or Y Offset",
                        "seed 000 RENDER_SURFACE_STATE DW5, MCS Base Address",
                    )));
                }
                // Y tiles are 128 bytes wide.
                let pitch = (u64::from(rss.mcs_surface_pitch) + 1) * 128;
                let desc = SurfaceDesc::mcs(&color.desc, pitch);
                let format = if color.desc.samples == 8 {
                    SurfaceFormat::R32_UINT
                } else {
                    SurfaceFormat::R8_UINT
                };
                Surface::new(rss.mcs_base_address, desc, format).map_err(|e| MessageError::State {
                    structure: "RENDER_SURFACE_STATE",
                    why: format!("MCS Base Address / MCS Surface Pitch: {e}"),
                })
            }),
    )
}

/// RENDER_SURFACE_STATE as the sampler sees it (seed 000 §2.12.2).
pub(crate) fn surface_view(rss: &RenderSurfaceState) -> SurfaceView {
    SurfaceView {
        kind: match rss.surface_type {
            SurfaceType::SURFTYPE_1D => SurfaceKind::D1,
            SurfaceType::SURFTYPE_2D => SurfaceKind::D2,
            SurfaceType::SURFTYPE_3D => SurfaceKind::D3,
            SurfaceType::SURFTYPE_CUBE => SurfaceKind::Cube,
            SurfaceType::SURFTYPE_BUFFER => SurfaceKind::Buffer,
            SurfaceType::SURFTYPE_STRBUF => SurfaceKind::StructuredBuffer,
            SurfaceType::SURFTYPE_NULL => SurfaceKind::Null,
            other => SurfaceKind::Reserved(other.0),
        },
        layout: surface_from_state(rss, Use::Sampled)
            .map(|(s, _)| s)
            .map_err(|e| MessageError::State {
                structure: "RENDER_SURFACE_STATE",
                why: e.to_string(),
            }),
        size: [
            u32::from(rss.width) + 1,
            u32::from(rss.height) + 1,
            u32::from(rss.depth) + 1,
        ],
        array: rss.surface_array,
        mip_count: u32::from(rss.mip_count_lod),
        surface_min_lod: u32::from(rss.surface_min_lod),
        resource_min_lod: rss.resource_min_lod as f32,
        min_array_element: u32::from(rss.minimum_array_element),
        samples: match rss.number_of_multisamples {
            NumberOfMultisamples::MULTISAMPLECOUNT_4 => 4,
            NumberOfMultisamples::MULTISAMPLECOUNT_8 => 8,
            // MULTISAMPLECOUNT_1; the layout reports a reserved count.
            _ => 1,
        },
        sample_palette_index: u32::from(rss.multisample_position_palette_index),
        mcs: mcs_surface(rss),
        clear_color: [
            rss.red_clear_color.0 == 1,
            rss.green_clear_color.0 == 1,
            rss.blue_clear_color.0 == 1,
            rss.alpha_clear_color.0 == 1,
        ],
        // Gen7's clear colour is one or zero per channel.
        clear_value: None,
        buffer_entries: buffer_entries(rss),
    }
}

/// SAMPLER_STATE and its border colour as the sampler uses them (seed 000 §2.12.3.1).
/// The sampler's chroma key (seed 000 §2.3.1): ChromaKey Enable, ChromaKey Mode, and the
/// entry of the 3DSTATE_CHROMA_KEY table (`table`, (low, high) per index) ChromaKey
/// Index selects (§2.12.6).
fn chroma_key(s: &SamplerState, table: [(u32, u32); 4]) -> Option<ChromaKey> {
    s.chroma_key_enable.then(|| {
        let (low, high) = table[usize::from(s.chroma_key_index & 3)];
        ChromaKey {
            kill: s.chroma_key_mode == ChromaKeyMode::KEYFILTER_KILL_ON_ANY_MATCH,
            low,
            high,
        }
    })
}

/// SAMPLER_STATE `s` with its border colour and the draw's 3DSTATE_CHROMA_KEY table.
fn sampler_config(
    s: &SamplerState,
    border: [f32; 4],
    chroma_keys: [(u32, u32); 4],
) -> SamplerConfig {
    SamplerConfig {
        disabled: s.sampler_disable,
        min_filter: MapFilter::from_raw(s.min_mode_filter.0),
        mag_filter: MapFilter::from_raw(s.mag_mode_filter.0),
        mip_filter: MipFilter::from_raw(s.mip_mode_filter.0),
        address: [
            TexCoordMode::from_raw(s.tcx_address_control_mode.0),
            TexCoordMode::from_raw(s.tcy_address_control_mode.0),
            TexCoordMode::from_raw(s.tcz_address_control_mode.0),
        ],
        chroma_key: chroma_key(s, chroma_keys),
        shadow: gtsim_sampler::shadow::ShadowFunction::from_raw(s.shadow_function.0),
        border_dx9: s.texture_border_color_mode.0 == 1,
        // RATIO 2:1 (0) to RATIO 16:1 (7).
        max_anisotropy: ((s.maximum_anisotropy.0 & 7) + 1) as f32 * 2.0,
        cube_override: s.cube_surface_control_mode
            == gtsim_spec::gen7::sampler_state::CubeSurfaceControlMode::CUBECTRLMODE_OVERRIDE,
        // §2.12.3.1 Trilinear Filter Quality: "If the contribution of one mip map is less
        // than 25% [37.5% for LOW], only the other mip map contributes."
        trilinear_threshold: match s.trilinear_filter_quality {
            TrilinearFilterQuality::TRIQUAL_FULL => Ok(0.0),
            TrilinearFilterQuality::TRIQUAL_MED => Ok(0.25),
            TrilinearFilterQuality::TRIQUAL_LOW => Ok(0.375),
            other => Err(other.0),
        },
        lod_bias: s.texture_lod_bias as f32,
        min_lod: s.min_lod as f32,
        max_lod: s.max_lod as f32,
        base_mip_level: s.base_mip_level as f32,
        lod_pre_clamp: s.lod_pre_clamp_enable == LodPreClampEnable::OGL,
        non_normalized: s.non_normalized_coordinate_enable,
        border,
        integer_border: false,
    }
}

/// A stage's sampling resources over graphics memory.
struct StageSampling<'a> {
    bases: &'a Bases,
    tables: StageTables,
    mem: &'a dyn Memory,
}

impl StageSampling<'_> {
    fn dwords(&self, what: &str, addr: u64, n: usize) -> Result<Vec<u32>, MessageError> {
        self.mem
            .read_dwords(addr, n)
            .map_err(|fault| MessageError::Fault {
                what: format!("{what} at {addr:#x}"),
                fault,
            })
    }
}

impl SamplerTables for StageSampling<'_> {
    fn surface(&self, bti: u8) -> Result<RenderSurfaceState, MessageError> {
        binding_table_surface(self.mem, self.bases, self.tables.binding_table, bti)
            .map(|(_, rss)| rss)
            .map_err(|e| {
                e.into_message_error()
                    .context(format!("binding table entry {bti}"))
            })
    }

    fn sampler(&self, index: u8) -> Result<(SamplerState, [f32; 4]), MessageError> {
        let base = self.bases.dynamic;
        let addr = base
            .wrapping_add(self.tables.sampler_state)
            .wrapping_add(index as u64 * 16);
        let dw = self.dwords("SAMPLER_STATE", addr, SamplerState::DWORDS)?;
        let s = SamplerState::unpack(&dw).map_err(|e| MessageError::State {
            structure: "SAMPLER_STATE",
            why: format!("at {addr:#x}: {e}"),
        })?;
        let baddr = base.wrapping_add(s.border_color_pointer);
        let bdw = self.dwords(
            "SAMPLER_BORDER_COLOR_STATE",
            baddr,
            SamplerBorderColorState::DWORDS,
        )?;
        let b = SamplerBorderColorState::unpack(&bdw).map_err(|e| MessageError::State {
            structure: "SAMPLER_BORDER_COLOR_STATE",
            why: format!("at {baddr:#x}: {e}"),
        })?;
        Ok((
            s,
            [
                b.border_color_float_red,
                b.border_color_float_green,
                b.border_color_float_blue,
                b.border_color_float_alpha,
            ],
        ))
    }

    fn memory(&self) -> &dyn Memory {
        self.mem
    }

    fn media_surface(&self, bti: u8) -> Result<MediaSurfaceState, MessageError> {
        let in_table = |e: gtsim_pipe3d::draw::DrawError| {
            e.into_message_error()
                .context(format!("binding table entry {bti}"))
        };
        let addr = binding_table_entry(self.mem, self.bases, self.tables.binding_table, bti)
            .map_err(in_table)?;
        let dw = self.dwords("MEDIA_SURFACE_STATE", addr, MediaSurfaceState::DWORDS)?;
        MediaSurfaceState::unpack(&dw).map_err(|e| MessageError::State {
            structure: "MEDIA_SURFACE_STATE",
            why: format!("at {addr:#x} (binding table entry {bti}): {e}"),
        })
    }

    fn statistics(&self, bti: u8) -> Result<Channel, MessageError> {
        let addr = binding_table_entry(self.mem, self.bases, self.tables.binding_table, bti)
            .map_err(|e| {
                e.into_message_error()
                    .context(format!("binding table entry {bti}"))
            })?;
        let dw = self.dwords("statistics surface state", addr, 8)?;
        crate::sampling_media::statistics(&dw)
            .map_err(|e| e.context(format!("binding table entry {bti} at {addr:#x}")))
    }

    fn deinterlace_sampler(&self, index: u8) -> Result<DeinterlaceSamplerState, MessageError> {
        let addr = self
            .bases
            .dynamic
            .wrapping_add(self.tables.sampler_state)
            .wrapping_add(index as u64 * 16);
        let dw = self.dwords(
            "DEINTERLACE_SAMPLER_STATE",
            addr,
            DeinterlaceSamplerState::DWORDS,
        )?;
        DeinterlaceSamplerState::unpack(&dw).map_err(|e| MessageError::State {
            structure: "DEINTERLACE_SAMPLER_STATE",
            why: format!("at {addr:#x}: {e}"),
        })
    }

    fn sampler_8x8(
        &self,
        index: u8,
    ) -> Result<(Sample8x8SamplerState, Sampler8x8State, Vec<u32>), MessageError> {
        // The sample_8x8 SAMPLER_STATE array: "The start of each element is spaced 4
        // dwords apart" (§2.12.3.2); its Sampler 8x8 State Pointer is "relative to the
        // Dynamic State Base Address".
        let base = self.bases.dynamic;
        let addr = base
            .wrapping_add(self.tables.sampler_state)
            .wrapping_add(index as u64 * 16);
        let dw = self.dwords(
            "SAMPLER_STATE (sample_8x8)",
            addr,
            Sample8x8SamplerState::DWORDS,
        )?;
        let s = Sample8x8SamplerState::unpack(&dw).map_err(|e| MessageError::State {
            structure: "SAMPLER_STATE for Sample_8x8",
            why: format!("at {addr:#x}: {e}"),
        })?;
        let taddr = base.wrapping_add(s.sampler_8x8_state_pointer);
        let raw = self.dwords("SAMPLER_8x8_STATE", taddr, Sampler8x8State::DWORDS)?;
        let t = Sampler8x8State::unpack(&raw).map_err(|e| MessageError::State {
            structure: "SAMPLER_8x8_STATE",
            why: format!("at {taddr:#x}: {e}"),
        })?;
        Ok((s, t, raw))
    }
}

#[cfg(test)]
mod tests {
    use super::mcs_surface;
    use gtsim_spec::gen7::RenderSurfaceState;
    use gtsim_spec::gen7::render_surface_state::{NumberOfMultisamples, SurfaceType, TileWalk};
    use gtsim_spec::shared::SurfaceFormat;

    /// A 4x Y-tiled surface with MCS Enable has its MCS (one R8_UINT per pixel, MCS
    /// Surface Pitch 0: one 128-byte tile wide); with a Y Offset the MCS is refused by
    /// name, since seed 000 does not say whether the offset moves it too.
    #[test]
    fn an_mcs_with_a_surface_offset_is_refused() {
        let mut rss = RenderSurfaceState {
            surface_type: SurfaceType::SURFTYPE_2D,
            surface_format: SurfaceFormat::R8G8B8A8_UNORM,
            width: 15,
            height: 15,
            surface_pitch: 127,
            tiled_surface: true,
            tile_walk: TileWalk::TILEWALK_YMAJOR,
            number_of_multisamples: NumberOfMultisamples::MULTISAMPLECOUNT_4,
            mcs_enable: true,
            mcs_base_address: 0x8000,
            ..Default::default()
        };
        let mcs = mcs_surface(&rss).unwrap().unwrap();
        assert_eq!((mcs.base, mcs.format), (0x8000, SurfaceFormat::R8_UINT));
        assert_eq!(mcs.desc.pitch, 128);
        rss.y_offset = 2;
        let e = mcs_surface(&rss).unwrap().unwrap_err();
        assert!(
            e.to_string().contains("MCS for a surface with X Offset"),
            "{e}"
        );
    }
}
