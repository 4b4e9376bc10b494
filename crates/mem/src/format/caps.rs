//! What Ivy Bridge can do with each surface format.
//!
//! The seed manual has no capability matrix (seed INDEX §2.13: the IVB PRM dropped the
//! sampling/filtering/render-target/blend/vertex-fetch columns). This table transcribes
//! the facts published in Mesa's `src/intel/isl/isl_format.c` `format_info` table, whose
//! entries give the first hardware generation (×10) supporting each capability:
//! "Y" = every generation, 45/50/60/70/75/80/90/110/120 = that generation, "x" = never.
//! Ivy Bridge is generation 7.0, so a capability is present when its number is ≤ 70.
//!
//! Deviations from a plain transcription, each from the seed:
//! * ETC1/ETC2/EAC (1A9h-1AFh, 1C0h-1C3h) are Bay Trail-only encodings on Gen7: [`caps`]
//!   returns `None` for them (surface.spec note on SURFACE_FORMAT). From Gen8 they are
//!   sampled and filtered (Mesa: 80/80), which [`caps_on`] gives for a later generation.
//! * BC6H_SF16, BC6H_UF16 and BC7_UNORM_SRGB are listed by Mesa as sampleable from Gen7,
//!   but the seed's errata (seed 000 L2873) says they "are not supported and may result in
//!   data corruption": sampling and filtering are reported false.
//! * Formats present in the Gen7 enum but absent from Mesa's table (L32_UNORM, A32_UNORM,
//!   the three *_UNORM_G8R8_SNORM bump formats, RAW) report no capability.

use gtsim_spec::shared::SurfaceFormat;

/// Capabilities of one format on Ivy Bridge (Gen 7.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Caps {
    /// The sampling engine can read it.
    pub sampling: bool,
    /// The sampler can filter it (bilinear and better).
    pub filtering: bool,
    /// It can be a render target.
    pub render_target: bool,
    /// Alpha blending works on it as a render target.
    pub alpha_blend: bool,
    /// Vertex fetch can read it from a vertex buffer.
    pub vertex_fetch: bool,
    /// The sampler can do shadow-map compares on it.
    pub shadow_map: bool,
}

/// Supported on every generation (Mesa's "Y").
const Y: u8 = 0;
/// Never supported (Mesa's "x").
const X: u8 = u8::MAX;
/// Ivy Bridge's generation number in Mesa's ×10 notation.
const IVB: u8 = 70;

/// One row: format code and the first generation for
/// [sampling, filtering, shadow map, render target, alpha blend, vertex fetch].
type Row = (u32, [u8; 6]);

/// Mesa isl_format.c `format_info`, columns smpl/filt/shad/RT/AB/VB, Gen7 column = 70.
#[rustfmt::skip]
static TABLE: &[Row] = &[
    (0x000, [Y, 50, X, Y, Y, Y]),   // R32G32B32A32_FLOAT
    (0x001, [Y, X, X, Y, X, Y]),    // R32G32B32A32_SINT
    (0x002, [Y, X, X, Y, X, Y]),    // R32G32B32A32_UINT
    (0x003, [X, X, X, X, X, Y]),    // R32G32B32A32_UNORM
    (0x004, [X, X, X, X, X, Y]),    // R32G32B32A32_SNORM
    (0x005, [X, X, X, X, X, Y]),    // R64G64_FLOAT
    (0x006, [Y, 50, X, 110, 110, X]), // R32G32B32X32_FLOAT
    (0x007, [X, X, X, X, X, Y]),    // R32G32B32A32_SSCALED
    (0x008, [X, X, X, X, X, Y]),    // R32G32B32A32_USCALED
    (0x020, [X, X, X, X, X, 75]),   // R32G32B32A32_SFIXED
    (0x021, [X, X, X, X, X, 80]),   // R64G64_PASSTHRU
    (0x040, [Y, 50, X, X, X, Y]),   // R32G32B32_FLOAT
    (0x041, [Y, X, X, X, X, Y]),    // R32G32B32_SINT
    (0x042, [Y, X, X, X, X, Y]),    // R32G32B32_UINT
    (0x043, [X, X, X, X, X, Y]),    // R32G32B32_UNORM
    (0x044, [X, X, X, X, X, Y]),    // R32G32B32_SNORM
    (0x045, [X, X, X, X, X, Y]),    // R32G32B32_SSCALED
    (0x046, [X, X, X, X, X, Y]),    // R32G32B32_USCALED
    (0x050, [X, X, X, X, X, 75]),   // R32G32B32_SFIXED
    (0x080, [Y, Y, X, Y, 45, Y]),   // R16G16B16A16_UNORM
    (0x081, [Y, Y, X, Y, 60, Y]),   // R16G16B16A16_SNORM
    (0x082, [Y, X, X, Y, X, Y]),    // R16G16B16A16_SINT
    (0x083, [Y, X, X, Y, X, Y]),    // R16G16B16A16_UINT
    (0x084, [Y, Y, X, Y, Y, Y]),    // R16G16B16A16_FLOAT
    (0x085, [Y, 50, X, Y, Y, Y]),   // R32G32_FLOAT
    (0x086, [Y, X, X, Y, X, Y]),    // R32G32_SINT
    (0x087, [Y, X, X, Y, X, Y]),    // R32G32_UINT
    (0x088, [Y, 50, Y, X, X, X]),   // R32_FLOAT_X8X24_TYPELESS
    (0x089, [Y, X, X, X, X, X]),    // X32_TYPELESS_G8X24_UINT
    (0x08a, [Y, 50, X, X, X, X]),   // L32A32_FLOAT
    (0x08b, [X, X, X, X, X, Y]),    // R32G32_UNORM
    (0x08c, [X, X, X, X, X, Y]),    // R32G32_SNORM
    (0x08d, [X, X, X, X, X, Y]),    // R64_FLOAT
    (0x08e, [Y, Y, X, X, X, X]),    // R16G16B16X16_UNORM
    (0x08f, [Y, Y, X, 90, 90, X]),  // R16G16B16X16_FLOAT
    (0x090, [Y, 50, X, X, X, X]),   // A32X32_FLOAT
    (0x091, [Y, 50, X, X, X, X]),   // L32X32_FLOAT
    (0x092, [Y, 50, X, X, X, X]),   // I32X32_FLOAT
    (0x093, [X, X, X, X, X, Y]),    // R16G16B16A16_SSCALED
    (0x094, [X, X, X, X, X, Y]),    // R16G16B16A16_USCALED
    (0x095, [X, X, X, X, X, Y]),    // R32G32_SSCALED
    (0x096, [X, X, X, X, X, Y]),    // R32G32_USCALED
    (0x097, [Y, 70, X, Y, Y, Y]),   // R32G32_FLOAT_LD (isl; not in the seed's table)
    (0x0a0, [X, X, X, X, X, 75]),   // R32G32_SFIXED
    (0x0a1, [X, X, X, X, X, 80]),   // R64_PASSTHRU
    (0x0c0, [Y, Y, X, Y, Y, Y]),    // B8G8R8A8_UNORM
    (0x0c1, [Y, Y, X, Y, Y, X]),    // B8G8R8A8_UNORM_SRGB
    (0x0c2, [Y, Y, X, Y, Y, Y]),    // R10G10B10A2_UNORM
    (0x0c3, [Y, Y, X, X, X, X]),    // R10G10B10A2_UNORM_SRGB
    (0x0c4, [Y, X, X, Y, X, Y]),    // R10G10B10A2_UINT
    (0x0c5, [Y, Y, X, X, X, Y]),    // R10G10B10_SNORM_A2_UNORM
    (0x0c7, [Y, Y, X, Y, Y, Y]),    // R8G8B8A8_UNORM
    (0x0c8, [Y, Y, X, Y, Y, X]),    // R8G8B8A8_UNORM_SRGB
    (0x0c9, [Y, Y, X, Y, 60, Y]),   // R8G8B8A8_SNORM
    (0x0ca, [Y, X, X, Y, X, Y]),    // R8G8B8A8_SINT
    (0x0cb, [Y, X, X, Y, X, Y]),    // R8G8B8A8_UINT
    (0x0cc, [Y, Y, X, Y, 45, Y]),   // R16G16_UNORM
    (0x0cd, [Y, Y, X, Y, 60, Y]),   // R16G16_SNORM
    (0x0ce, [Y, X, X, Y, X, Y]),    // R16G16_SINT
    (0x0cf, [Y, X, X, Y, X, Y]),    // R16G16_UINT
    (0x0d0, [Y, Y, X, Y, Y, Y]),    // R16G16_FLOAT
    (0x0d1, [Y, Y, X, Y, Y, 75]),   // B10G10R10A2_UNORM
    (0x0d2, [Y, Y, X, Y, Y, X]),    // B10G10R10A2_UNORM_SRGB
    (0x0d3, [Y, Y, X, Y, Y, Y]),    // R11G11B10_FLOAT
    (0x0d6, [Y, X, X, Y, X, Y]),    // R32_SINT
    (0x0d7, [Y, X, X, Y, X, Y]),    // R32_UINT
    (0x0d8, [Y, 50, Y, Y, Y, Y]),   // R32_FLOAT
    (0x0d9, [Y, 50, Y, X, X, X]),   // R24_UNORM_X8_TYPELESS
    (0x0da, [Y, X, X, X, X, X]),    // X24_TYPELESS_G8_UINT
    (0x0dd, [X, X, X, X, X, X]),    // L32_UNORM (not in Mesa's table)
    (0x0de, [X, X, X, X, X, X]),    // A32_UNORM (not in Mesa's table)
    (0x0df, [Y, Y, X, X, X, X]),    // L16A16_UNORM
    (0x0e0, [Y, 50, Y, X, X, X]),   // I24X8_UNORM
    (0x0e1, [Y, 50, Y, X, X, X]),   // L24X8_UNORM
    (0x0e2, [Y, 50, Y, X, X, X]),   // A24X8_UNORM
    (0x0e3, [Y, 50, Y, X, X, X]),   // I32_FLOAT
    (0x0e4, [Y, 50, Y, X, X, X]),   // L32_FLOAT
    (0x0e5, [Y, 50, Y, X, X, X]),   // A32_FLOAT
    (0x0e6, [X, X, X, X, X, X]),    // X8B8_UNORM_G8R8_SNORM (not in Mesa's table)
    (0x0e7, [X, X, X, X, X, X]),    // A8X8_UNORM_G8R8_SNORM (not in Mesa's table)
    (0x0e8, [X, X, X, X, X, X]),    // B8X8_UNORM_G8R8_SNORM (not in Mesa's table)
    (0x0e9, [Y, Y, X, 80, 80, X]),  // B8G8R8X8_UNORM
    (0x0ea, [Y, Y, X, 80, 80, X]),  // B8G8R8X8_UNORM_SRGB
    (0x0eb, [Y, Y, X, X, X, X]),    // R8G8B8X8_UNORM
    (0x0ec, [Y, Y, X, X, X, X]),    // R8G8B8X8_UNORM_SRGB
    (0x0ed, [Y, Y, X, X, X, X]),    // R9G9B9E5_SHAREDEXP
    (0x0ee, [Y, Y, X, X, X, X]),    // B10G10R10X2_UNORM
    (0x0f0, [Y, Y, X, X, X, X]),    // L16A16_FLOAT
    (0x0f1, [X, X, X, X, X, Y]),    // R32_UNORM
    (0x0f2, [X, X, X, X, X, Y]),    // R32_SNORM
    (0x0f3, [X, X, X, X, X, Y]),    // R10G10B10X2_USCALED
    (0x0f4, [X, X, X, X, X, Y]),    // R8G8B8A8_SSCALED
    (0x0f5, [X, X, X, X, X, Y]),    // R8G8B8A8_USCALED
    (0x0f6, [X, X, X, X, X, Y]),    // R16G16_SSCALED
    (0x0f7, [X, X, X, X, X, Y]),    // R16G16_USCALED
    (0x0f8, [X, X, X, X, X, Y]),    // R32_SSCALED
    (0x0f9, [X, X, X, X, X, Y]),    // R32_USCALED
    (0x100, [Y, Y, X, Y, Y, X]),    // B5G6R5_UNORM
    (0x101, [Y, Y, X, Y, Y, X]),    // B5G6R5_UNORM_SRGB
    (0x102, [Y, Y, X, Y, Y, X]),    // B5G5R5A1_UNORM
    (0x103, [Y, Y, X, Y, Y, X]),    // B5G5R5A1_UNORM_SRGB
    (0x104, [Y, Y, X, Y, Y, X]),    // B4G4R4A4_UNORM
    (0x105, [Y, Y, X, Y, Y, X]),    // B4G4R4A4_UNORM_SRGB
    (0x106, [Y, Y, X, Y, Y, Y]),    // R8G8_UNORM
    (0x107, [Y, Y, X, Y, 60, Y]),   // R8G8_SNORM
    (0x108, [Y, X, X, Y, X, Y]),    // R8G8_SINT
    (0x109, [Y, X, X, Y, X, Y]),    // R8G8_UINT
    (0x10a, [Y, Y, Y, Y, 45, Y]),   // R16_UNORM
    (0x10b, [Y, Y, X, Y, 60, Y]),   // R16_SNORM
    (0x10c, [Y, X, X, Y, X, Y]),    // R16_SINT
    (0x10d, [Y, X, X, Y, X, Y]),    // R16_UINT
    (0x10e, [Y, Y, X, Y, Y, Y]),    // R16_FLOAT
    (0x10f, [50, 50, X, X, X, X]),  // A8P8_UNORM_PALETTE0
    (0x110, [50, 50, X, X, X, X]),  // A8P8_UNORM_PALETTE1
    (0x111, [Y, Y, Y, X, X, X]),    // I16_UNORM
    (0x112, [Y, Y, Y, X, X, X]),    // L16_UNORM
    (0x113, [Y, Y, Y, X, X, X]),    // A16_UNORM
    (0x114, [Y, Y, X, X, X, X]),    // L8A8_UNORM
    (0x115, [Y, Y, Y, X, X, X]),    // I16_FLOAT
    (0x116, [Y, Y, Y, X, X, X]),    // L16_FLOAT
    (0x117, [Y, Y, Y, X, X, X]),    // A16_FLOAT
    (0x118, [45, 45, X, X, X, X]),  // L8A8_UNORM_SRGB
    (0x119, [Y, Y, X, X, X, X]),    // R5G5_SNORM_B6_UNORM
    (0x11a, [X, X, X, Y, Y, X]),    // B5G5R5X1_UNORM
    (0x11b, [X, X, X, Y, Y, X]),    // B5G5R5X1_UNORM_SRGB
    (0x11c, [X, X, X, X, X, Y]),    // R8G8_SSCALED
    (0x11d, [X, X, X, X, X, Y]),    // R8G8_USCALED
    (0x11e, [X, X, X, X, X, Y]),    // R16_SSCALED
    (0x11f, [X, X, X, X, X, Y]),    // R16_USCALED
    (0x122, [50, 50, X, X, X, X]),  // P8A8_UNORM_PALETTE0
    (0x123, [50, 50, X, X, X, X]),  // P8A8_UNORM_PALETTE1
    (0x124, [120, 120, X, 120, 120, X]), // A1B5G5R5_UNORM
    (0x125, [80, 80, X, 90, 120, X]), // A4B4G4R4_UNORM
    (0x126, [90, X, X, X, X, X]),   // L8A8_UINT
    (0x127, [90, X, X, X, X, X]),   // L8A8_SINT
    (0x140, [Y, Y, X, Y, Y, Y]),    // R8_UNORM
    (0x141, [Y, Y, X, Y, 60, Y]),   // R8_SNORM
    (0x142, [Y, X, X, Y, X, Y]),    // R8_SINT
    (0x143, [Y, X, X, Y, X, Y]),    // R8_UINT
    (0x144, [Y, Y, X, Y, Y, X]),    // A8_UNORM
    (0x145, [Y, Y, X, X, X, X]),    // I8_UNORM
    (0x146, [Y, Y, X, X, X, X]),    // L8_UNORM
    (0x147, [Y, Y, X, X, X, X]),    // P4A4_UNORM_PALETTE0
    (0x148, [Y, Y, X, X, X, X]),    // A4P4_UNORM_PALETTE0
    (0x149, [X, X, X, X, X, Y]),    // R8_SSCALED
    (0x14a, [X, X, X, X, X, Y]),    // R8_USCALED
    (0x14b, [45, 45, X, X, X, X]),  // P8_UNORM_PALETTE0
    (0x14c, [45, 45, X, X, X, X]),  // L8_UNORM_SRGB
    (0x14d, [45, 45, X, X, X, X]),  // P8_UNORM_PALETTE1
    (0x14e, [45, 45, X, X, X, X]),  // P4A4_UNORM_PALETTE1
    (0x14f, [45, 45, X, X, X, X]),  // A4P4_UNORM_PALETTE1
    (0x150, [X, X, X, X, X, X]),    // Y8_UNORM
    (0x152, [90, X, X, X, X, X]),   // L8_UINT
    (0x153, [90, X, X, X, X, X]),   // L8_SINT
    (0x154, [90, X, X, X, X, X]),   // I8_UINT
    (0x155, [90, X, X, X, X, X]),   // I8_SINT
    (0x180, [45, 45, X, X, X, X]),  // DXT1_RGB_SRGB
    (0x181, [Y, Y, X, X, X, X]),    // R1_UNORM
    (0x182, [Y, Y, X, Y, X, X]),    // YCRCB_NORMAL
    (0x183, [Y, Y, X, Y, X, X]),    // YCRCB_SWAPUVY
    (0x184, [45, 45, X, X, X, X]),  // P2_UNORM_PALETTE0
    (0x185, [45, 45, X, X, X, X]),  // P2_UNORM_PALETTE1
    (0x186, [Y, Y, X, X, X, X]),    // BC1_UNORM
    (0x187, [Y, Y, X, X, X, X]),    // BC2_UNORM
    (0x188, [Y, Y, X, X, X, X]),    // BC3_UNORM
    (0x189, [Y, Y, X, X, X, X]),    // BC4_UNORM
    (0x18a, [Y, Y, X, X, X, X]),    // BC5_UNORM
    (0x18b, [Y, Y, X, X, X, X]),    // BC1_UNORM_SRGB
    (0x18c, [Y, Y, X, X, X, X]),    // BC2_UNORM_SRGB
    (0x18d, [Y, Y, X, X, X, X]),    // BC3_UNORM_SRGB
    (0x18e, [Y, X, X, X, X, X]),    // MONO8
    (0x18f, [Y, Y, X, Y, X, X]),    // YCRCB_SWAPUV
    (0x190, [Y, Y, X, Y, X, X]),    // YCRCB_SWAPY
    (0x191, [Y, Y, X, X, X, X]),    // DXT1_RGB
    (0x192, [Y, Y, X, X, X, X]),    // FXT1
    (0x193, [75, 75, X, X, X, Y]),  // R8G8B8_UNORM
    (0x194, [75, 75, X, X, X, Y]),  // R8G8B8_SNORM
    (0x195, [X, X, X, X, X, Y]),    // R8G8B8_SSCALED
    (0x196, [X, X, X, X, X, Y]),    // R8G8B8_USCALED
    (0x197, [X, X, X, X, X, Y]),    // R64G64B64A64_FLOAT
    (0x198, [X, X, X, X, X, Y]),    // R64G64B64_FLOAT
    (0x199, [Y, Y, X, X, X, X]),    // BC4_SNORM
    (0x19a, [Y, Y, X, X, X, X]),    // BC5_SNORM
    (0x19b, [50, 50, X, X, X, 60]), // R16G16B16_FLOAT
    (0x19c, [75, 75, X, X, X, Y]),  // R16G16B16_UNORM
    (0x19d, [75, 75, X, X, X, Y]),  // R16G16B16_SNORM
    (0x19e, [X, X, X, X, X, Y]),    // R16G16B16_SSCALED
    (0x19f, [X, X, X, X, X, Y]),    // R16G16B16_USCALED
    (0x1a1, [X, X, X, X, X, X]),    // BC6H_SF16 (Mesa: 70/70; seed errata L2873: unsupported)
    (0x1a2, [70, 70, X, X, X, X]),  // BC7_UNORM
    (0x1a3, [X, X, X, X, X, X]),    // BC7_UNORM_SRGB (Mesa: 70/70; seed errata L2873)
    (0x1a4, [X, X, X, X, X, X]),    // BC6H_UF16 (Mesa: 70/70; seed errata L2873)
    (0x1a5, [X, X, X, X, X, X]),    // PLANAR_420_8
    (0x1a8, [80, 80, X, X, X, X]),  // R8G8B8_UNORM_SRGB
    (0x1b0, [90, X, X, X, X, 75]),  // R16G16B16_UINT
    (0x1b1, [90, X, X, X, X, 75]),  // R16G16B16_SINT
    (0x1b2, [X, X, X, X, X, 75]),   // R32_SFIXED
    (0x1b3, [X, X, X, X, X, 75]),   // R10G10B10A2_SNORM
    (0x1b4, [X, X, X, X, X, 75]),   // R10G10B10A2_USCALED
    (0x1b5, [X, X, X, X, X, 75]),   // R10G10B10A2_SSCALED
    (0x1b6, [X, X, X, X, X, 75]),   // R10G10B10A2_SINT
    (0x1b7, [X, X, X, X, X, 75]),   // B10G10R10A2_SNORM
    (0x1b8, [X, X, X, X, X, 75]),   // B10G10R10A2_USCALED
    (0x1b9, [X, X, X, X, X, 75]),   // B10G10R10A2_SSCALED
    (0x1ba, [X, X, X, X, X, 75]),   // B10G10R10A2_UINT
    (0x1bb, [X, X, X, X, X, 75]),   // B10G10R10A2_SINT
    (0x1bc, [X, X, X, X, X, 80]),   // R64G64B64A64_PASSTHRU
    (0x1bd, [X, X, X, X, X, 80]),   // R64G64B64_PASSTHRU
    (0x1c8, [90, X, X, X, X, 75]),  // R8G8B8_UINT
    (0x1c9, [90, X, X, X, X, 75]),  // R8G8B8_SINT
    (0x1ff, [X, X, X, X, X, X]),    // RAW (untyped messages only; not in Mesa's table)
];

/// Capabilities of `f` on Ivy Bridge, or `None` if `f` is not an Ivy Bridge format (not
/// in the Gen7 SURFACE_FORMAT enum, or one of the Bay Trail-only ETC/EAC encodings).
pub fn caps(f: SurfaceFormat) -> Option<Caps> {
    caps_on(f, IVB)
}

/// Mesa isl_format.c rows of the formats that are not Gen7 formats at all (so that
/// [`caps`] has no row for them), with their first generations.
#[rustfmt::skip]
static LATER: &[Row] = &[
    (0x1a9, [80, 80, X, X, X, X]),  // ETC1_RGB8
    (0x1aa, [80, 80, X, X, X, X]),  // ETC2_RGB8
    (0x1ab, [80, 80, X, X, X, X]),  // EAC_R11
    (0x1ac, [80, 80, X, X, X, X]),  // EAC_RG11
    (0x1ad, [80, 80, X, X, X, X]),  // EAC_SIGNED_R11
    (0x1ae, [80, 80, X, X, X, X]),  // EAC_SIGNED_RG11
    (0x1af, [80, 80, X, X, X, X]),  // ETC2_SRGB8
    (0x1c0, [80, 80, X, X, X, X]),  // ETC2_RGB8_PTA
    (0x1c1, [80, 80, X, X, X, X]),  // ETC2_SRGB8_PTA
    (0x1c2, [80, 80, X, X, X, X]),  // ETC2_EAC_RGBA8
    (0x1c3, [80, 80, X, X, X, X]),  // ETC2_EAC_SRGB8_A8
];

/// Capabilities of `f` on generation `generation` (Mesa's ×10 notation: 70 Ivy Bridge,
/// 110 Ice Lake), or `None` if `f` is not a format of that generation. Formats later
/// generations added beyond the Gen7 enum are modelled only as far as [`LATER`] lists
/// them; the rows of the Gen7 formats are those of [`caps`], read at `generation`.
pub fn caps_on(f: SurfaceFormat, generation: u8) -> Option<Caps> {
    let row = TABLE.iter().find(|(code, _)| *code == f.0).or_else(|| {
        LATER
            .iter()
            .find(|(code, gens)| *code == f.0 && gens.iter().any(|&g| g <= generation))
    });
    let (_, gens) = row?;
    let present = |g: u8| g <= generation;
    let [
        sampling,
        filtering,
        shadow_map,
        render_target,
        alpha_blend,
        vertex_fetch,
    ] = gens.map(present);
    Some(Caps {
        sampling,
        filtering,
        render_target,
        alpha_blend,
        vertex_fetch,
        shadow_map,
    })
}
