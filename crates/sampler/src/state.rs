//! The sampling engine's generation-neutral inputs: the message a thread sends, the
//! surface it names and the sampler state it uses, in meaning rather than bits.
//!
//! A generation's front decodes its message descriptor and header (Gen7: seed 000
//! §2.13.1.1-2.13.1.2), its surface state (§2.12.2) and its sampler state (§2.12.3) into
//! these; [`crate::message::handle`] reads nothing else.

use crate::SamplerError;
use crate::address::TexCoordMode;
use crate::filter::MapFilter;
use crate::lod::MipFilter;
use gtsim_mem::surface::Surface;
use gtsim_message::MessageError;

/// What the message asks for (seed 000 §2.13.1.3.1 message types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplerOp {
    /// sample: LOD from the subspan's derivatives.
    Sample,
    /// sample_b: LOD plus a bias parameter.
    SampleB,
    /// sample_l: an explicit LOD parameter.
    SampleL,
    /// sample+killpix (SIMD8 only).
    SampleKillpix,
    /// sample_c: sample with the shadow prefilter compare (§2.4) against a reference.
    SampleC,
    /// sample_b_c: sample_b with the compare.
    SampleBC,
    /// sample_l_c: sample_l with the compare.
    SampleLC,
    /// sample_d: the LOD from the message's gradients.
    SampleD,
    /// sample_d_c: sample_d with the compare.
    SampleDC,
    /// LOD: the LOD the sample message would use, clamped and unclamped.
    Lod,
    /// gather4: the four texels of the bilinear footprint, one channel of each.
    Gather4,
    /// gather4_c: gather4 of comparison results.
    Gather4C,
    /// gather4_po: gather4 with per-channel texel offsets.
    Gather4Po,
    /// gather4_po_c: gather4_po of comparison results.
    Gather4PoC,
    /// ld: integer texel coordinates.
    Ld,
    /// resinfo: the surface's sizes.
    Resinfo,
    /// sampleinfo: the surface's sample count and sample position palette index.
    Sampleinfo,
    /// ld_mcs: ld from the multisample control surface.
    LdMcs,
    /// ld2dms: one sample of a multisampled surface, through an MCS value.
    Ld2dms,
    /// ld2dms_w (Gen9+): ld2dms with a 64-bit MCS value in two parameters, `si mcsl
    /// mcsh u v r` (16 samples take 4 bits each; Mesa lower_sampler_logical_send:
    /// SHADER_OPCODE_TXF_CMS_W), no LOD (multisampled surfaces have one level).
    Ld2dmsW,
    /// ld2dss: one sample slice of a multisampled surface.
    Ld2dss,
    /// sample_8x8 (SIMD32/64): the media sampler's AVS; `media` selects the media
    /// payload layout (§2.13.1.10.2) over the pixel shader one (§2.13.1.10.1).
    Sample8x8 {
        /// The media payload layout.
        media: bool,
    },
    /// sample_unorm (SIMD32/64).
    SampleUnorm {
        /// The media payload layout.
        media: bool,
    },
    /// sample_unorm+killpix (SIMD32/64).
    SampleUnormKillpix {
        /// The media payload layout.
        media: bool,
    },
    /// deinterlace (SIMD32/64): the media sampler's denoise and deinterlace (§2.8).
    Deinterlace,
    /// cache_flush (SIMD32/64).
    CacheFlush,
    /// A value that is no message type of the generation (the raw value).
    Invalid(u32),
}

/// The message's SIMD mode (seed 000 §2.13.1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplerSimd {
    /// SIMD4x2 (vertex-shader style threads).
    Simd4x2,
    /// SIMD8.
    Simd8,
    /// SIMD16.
    Simd16,
    /// SIMD32/64 (media messages).
    Simd32_64,
}

/// The optional message header (seed 000 §2.13.1.2), as the message uses it; a message
/// without one behaves as if every field were zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SamplerHeader {
    /// Red, green, blue and alpha write channel masks (a set mask drops the channel).
    pub write_masks: [bool; 4],
    /// The U, V and R texel offsets (_aoffimmi), in texels.
    pub offsets: [i8; 3],
    /// Force LOD to Zero.
    pub force_lod_zero: bool,
    /// Gather4 Source Channel Select: the channel gather4 returns (0 red .. 3 alpha).
    pub gather_channel: u8,
}

/// One sampler message, decoded once by the generation's front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplerMessage {
    /// The message type.
    pub op: SamplerOp,
    /// The SIMD mode.
    pub simd: SamplerSimd,
    /// The header, when the message has one.
    pub header: Option<SamplerHeader>,
    /// Message length in registers (header included).
    pub message_length: usize,
    /// Response length in registers.
    pub response_length: usize,
    /// The surface's binding table index.
    pub binding_table_index: u8,
    /// The sampler state's index.
    pub sampler_index: u8,
    /// How errors name the message ("sampler sample_l (descriptor ...)"); empty when
    /// the caller names it in its own errors (formatting a name per message costs more
    /// than an `ld`).
    pub name: String,
}

/// The type of a surface (seed 000 §2.12.2 Surface Type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceKind {
    /// 1D (with array elements).
    D1,
    /// 2D (with array elements).
    D2,
    /// 3D.
    D3,
    /// A cube map.
    Cube,
    /// A buffer of elements.
    Buffer,
    /// A structured buffer.
    StructuredBuffer,
    /// The null surface: reads return zeros.
    Null,
    /// A reserved encoding (the raw value).
    Reserved(u32),
}

/// A surface as the sampler sees it (seed 000 §2.12.2), decoded by the front.
#[derive(Debug, Clone)]
pub struct SurfaceView {
    /// Surface Type.
    pub kind: SurfaceKind,
    /// Its memory layout and format, or why the state does not describe one.
    pub layout: Result<Surface, MessageError>,
    /// Width, Height and Depth fields plus one (level 0 size; Depth + 1 counts array
    /// elements for 1D, 2D and cube surfaces).
    pub size: [u32; 3],
    /// Surface Array.
    pub array: bool,
    /// MIP Count / LOD (levels − 1, from Surface Min LOD).
    pub mip_count: u32,
    /// Surface Min LOD.
    pub surface_min_lod: u32,
    /// Resource Min LOD.
    pub resource_min_lod: f32,
    /// Minimum Array Element.
    pub min_array_element: u32,
    /// Number of Multisamples: samples per pixel (1, 4 or 8 on Gen7; 2 too on Gen11).
    pub samples: u32,
    /// Multisample Position Palette Index (what sampleinfo returns, less one).
    pub sample_palette_index: u32,
    /// The multisample control surface when MCS Enable is set on a multisampled
    /// surface (MCS Base Address and MCS Surface Pitch), or why the state does not
    /// describe one.
    pub mcs: Option<Result<Surface, MessageError>>,
    /// Red, Green, Blue and Alpha Clear Color (CC_ONE): the value an MCS-cleared pixel
    /// reads.
    pub clear_color: [bool; 4],
    /// The clear colour as raw channel values in the format's class (Gen9+: the surface
    /// state's 32-bit Clear Color fields or the dwords at its Clear Value Address),
    /// which an MCS-cleared pixel then reads instead of [`Self::clear_color`].
    pub clear_value: Option<[u32; 4]>,
    /// Elements of a buffer surface (its Width, Height and Depth combined).
    pub buffer_entries: u32,
}

/// A sampler's chroma key (seed 000 §2.3.1): the ChromaKey Mode of its SAMPLER_STATE and
/// the 3DSTATE_CHROMA_KEY table entry its ChromaKey Index selects (§2.12.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChromaKey {
    /// KEYFILTER_KILL_ON_ANY_MATCH (else KEYFILTER_REPLACE_BLACK).
    pub kill: bool,
    /// ChromaKey Low Value: 8-bit channels, A in 31:24, R 23:16, G 15:8, B 7:0.
    pub low: u32,
    /// ChromaKey High Value, laid out as the low value.
    pub high: u32,
}

/// The sampler state a sample message uses (seed 000 §2.12.3), decoded by the front.
/// Fields whose value may be reserved or unmodelled keep the error: a message reports it
/// only when it uses the field.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplerConfig {
    /// Sampler Disable: every channel returns 0.
    pub disabled: bool,
    /// Min Mode Filter.
    pub min_filter: Result<MapFilter, SamplerError>,
    /// Mag Mode Filter.
    pub mag_filter: Result<MapFilter, SamplerError>,
    /// Mip Mode Filter.
    pub mip_filter: Result<MipFilter, SamplerError>,
    /// TCX, TCY and TCZ Address Control Mode.
    pub address: [Result<TexCoordMode, SamplerError>; 3],
    /// ChromaKey Enable, with the key: None when disabled.
    pub chroma_key: Option<ChromaKey>,
    /// Texture Border Color Mode DX9 (else DX10/OGL): the value of the border colour's
    /// channels a surface format lacks (seed 000 §2.12.2.1.2).
    pub border_dx9: bool,
    /// Maximum Anisotropy: the largest footprint ratio MAPFILTER_ANISOTROPIC uses (2 to
    /// 16, §2.2.2.3).
    pub max_anisotropy: f32,
    /// Cube Surface Control Mode OVERRIDE: a cube surface's TCX and TCY modes read as
    /// TEXCOORDMODE_CUBE whatever they are programmed to (§2.12.3).
    pub cube_override: bool,
    /// Shadow Function, the sample_c messages' compare (§2.4).
    pub shadow: Result<crate::shadow::ShadowFunction, crate::SamplerError>,
    /// Trilinear Filter Quality: the contribution below which a level is dropped, or
    /// the reserved raw value.
    pub trilinear_threshold: Result<f32, u32>,
    /// Texture LOD Bias.
    pub lod_bias: f32,
    /// Min LOD.
    pub min_lod: f32,
    /// Max LOD.
    pub max_lod: f32,
    /// Base Mip Level.
    pub base_mip_level: f32,
    /// LOD PreClamp Enable (OpenGL mode).
    pub lod_pre_clamp: bool,
    /// Non-normalized Coordinate Enable.
    pub non_normalized: bool,
    /// The border colour (RGBA float; for an integer border, the channels' bits).
    pub border: [f32; 4],
    /// Whether a UINT or SINT surface may take the border colour, as R32G32B32A32_UINT
    /// or _SINT bits (seed 003 SAMPLER_BORDER_COLOR_STATE, DX10/OpenGL mode: "If the map
    /// format is UINT, then the border color format is R32G32B32A32_UINT. If the map
    /// format is SINT, then the border color format is R32G32B32A32_SINT"); Gen7 forbids
    /// CLAMP_BORDER on them (seed 000 §2.13.1.4).
    pub integer_border: bool,
}
