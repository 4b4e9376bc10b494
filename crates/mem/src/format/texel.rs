//! Per-texel codecs for every uncompressed Gen7 `SURFACE_FORMAT` (seed 000 §2.12.2.1.1).
//!
//! # Layout rules
//!
//! * An element is little-endian and its channels are packed **in name order, lowest bits
//!   first**: `R8G8B8A8_UNORM` has R in byte 0, `B5G6R5_UNORM` has B in bits 4:0 and R in
//!   bits 15:11, `X8B8_UNORM_G8R8_SNORM` has the ignored X in bits 7:0 and R in bits 31:24.
//!   This is the D3D/DXGI naming convention and agrees with the `order` column of Mesa's
//!   published `isl_format_layout.csv` facts for every packed format.
//! * Output channels follow the sampler output channel mapping (seed 000 §2.12.2.1.2,
//!   DX10/OGL border-colour mode): a missing R/G/B reads 0, a missing A reads 1.0 (1 for
//!   integer formats); `L` replicates to R, G and B with A = 1 unless the format has A; `I`
//!   replicates to all four; an `A`-only format reads (0, 0, 0, A). X and TYPELESS bits are
//!   ignored on read and written as zero.
//!
//! # Number conversions
//!
//! Sources: Khronos GL 4.6 §2.3.5 "Fixed-Point Data Conversions" and the Khronos Data
//! Format spec §13 (unsigned/signed normalized conversions).
//!
//! * UNORM, n bits: `v / (2^n - 1)`; SNORM: `max(v / (2^(n-1) - 1), -1)`, so both -128 and
//!   -127 read -1.0 for 8 bits.
//! * USCALED/SSCALED: the integer's value as a float. SFIXED: signed 16.16 fixed point.
//! * FLOAT: IEEE half/single/double; 64-bit channels are rounded to the nearest `f32`.
//! * `R11G11B10_FLOAT`: unsigned floats (5-bit exponent, bias 15, 6/6/5-bit mantissas, no
//!   sign; exponent 31 is Inf/NaN) as defined in GL 4.6 §2.3.4.3/§2.3.4.4.
//! * `R9G9B9E5_SHAREDEXP`: 9-bit mantissas without implicit one and a shared 5-bit exponent,
//!   value `m * 2^(e - 15 - 9)` (GL 4.6 §8.5.2, EXT_texture_shared_exponent).
//! * `_SRGB`: [`decode`] returns **linear** values: R, G, B (and L) pass through
//!   [`srgb_to_linear`]; alpha is never converted. [`encode`] applies [`linear_to_srgb`]
//!   before quantising.
//!
//! Encoding follows render-target write rules: float → UNORM/SNORM clamps to the range,
//! maps NaN to 0 and rounds to nearest (ties to even); float → half rounds to nearest even;
//! integer writes saturate to the channel's range.
//!
//! Formats that are not plain texels have their own entry points: [`decode_ycrcb`] /
//! [`encode_ycrcb`] for packed 4:2:2 video, [`decode_palette_index`] and
//! [`decode_palette_index_sub_byte`] for paletted formats, [`decode_sub_byte`] for
//! `R1_UNORM`, [`decode_passthru`] for the 64-bit PASSTHRU formats. Block-compressed
//! formats are decoded by [`super::bc`]; [`layout`] still reports their block size.

use std::sync::OnceLock;

use gtsim_spec::shared::SurfaceFormat;

/// A texel's channels as the sampler returns them, before swizzle: float for
/// UNORM/SNORM/FLOAT/SCALED/SFIXED/sRGB (sRGB decoded to linear), raw integers for
/// UINT/SINT. Channel order is always R, G, B, A (seed 000 §2.12.2.1.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Texel {
    /// Normalised, scaled, fixed or floating-point channels.
    Float([f32; 4]),
    /// Unsigned integer channels (UINT formats).
    Uint([u32; 4]),
    /// Signed integer channels (SINT formats), sign-extended.
    Sint([i32; 4]),
}

impl Texel {
    /// Name of the variant, for error messages.
    fn kind_name(&self) -> &'static str {
        match self {
            Texel::Float(_) => "float",
            Texel::Uint(_) => "uint",
            Texel::Sint(_) => "sint",
        }
    }
}

/// Why a surface format cannot be read or written by this module.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The 9-bit code is not a value of `SURFACE_FORMAT` (seed 000 §2.12.2.1.1).
    #[error(
        "surface format code {code:#05x} is not a Gen7 SURFACE_FORMAT value (seed 000 §2.12.2.1.1)"
    )]
    UnknownCode {
        /// The code as programmed.
        code: u32,
    },
    /// The format exists in the Gen7 table but cannot be handled by this entry point.
    #[error("surface format {format} is not supported here: {reason} (seed 000 §2.12.2.1.1)")]
    Unsupported {
        /// The format's name from the table.
        format: &'static str,
        /// What is missing, and where to go instead.
        reason: &'static str,
    },
    /// The format is block-compressed; use the block decoders in `format::bc`.
    #[error(
        "surface format {format} is block-compressed ({block_width}x{block_height} texel blocks); decode it with format::bc"
    )]
    NotUncompressed {
        /// The format's name.
        format: &'static str,
        /// Block width in texels.
        block_width: u32,
        /// Block height in texels.
        block_height: u32,
    },
    /// The byte slice is not exactly one element.
    #[error("surface format {format}: one element is {expected} bytes, got {got}")]
    WrongLength {
        /// The format's name.
        format: &'static str,
        /// Bytes per element.
        expected: usize,
        /// Bytes supplied.
        got: usize,
    },
    /// [`encode`] was given a texel of the wrong numeric class.
    #[error("surface format {format} stores {expected} channels, cannot encode a {got} texel")]
    TexelKind {
        /// The format's name.
        format: &'static str,
        /// The class the format stores.
        expected: &'static str,
        /// The class supplied.
        got: &'static str,
    },
    /// A sub-byte element index is beyond the byte.
    #[error(
        "surface format {format}: element {index} is outside the byte ({per_byte} elements per byte)"
    )]
    SubByteIndex {
        /// The format's name.
        format: &'static str,
        /// The index supplied.
        index: u32,
        /// Elements per byte.
        per_byte: u32,
    },
}

/// Size of one element (texel, or compressed block) of a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Bits per element (per block for compressed formats).
    pub bits_per_element: u32,
    /// Texels per element horizontally (1 for uncompressed formats).
    pub block_width: u32,
    /// Texels per element vertically (1 for uncompressed formats).
    pub block_height: u32,
}

impl Layout {
    const fn texel(bits_per_element: u32) -> Self {
        Layout {
            bits_per_element,
            block_width: 1,
            block_height: 1,
        }
    }
}

/// Numeric type of one stored channel (the suffix of the format name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Unorm,
    Snorm,
    Uint,
    Sint,
    Uscaled,
    Sscaled,
    Float,
    Sfixed,
    Typeless,
}

/// Meaning of one stored channel (the letter in the format name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ch {
    R,
    G,
    B,
    A,
    /// Luminance: replicated to R, G, B.
    L,
    /// Intensity: replicated to R, G, B, A.
    I,
    /// Ignored bits.
    X,
}

/// One stored channel: bits `[shift, shift + bits)` of the element.
#[derive(Debug, Clone, Copy)]
struct Field {
    ch: Ch,
    num: Num,
    bits: u32,
    shift: u32,
}

/// Numeric class of a whole texel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Float,
    Uint,
    Sint,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::Float => "float",
            Class::Uint => "uint",
            Class::Sint => "sint",
        }
    }
}

/// A format whose channels are independent bit fields.
#[derive(Debug, Clone, Copy)]
struct Plain {
    /// Non-ignored channels (X/TYPELESS are dropped, their bits still counted).
    fields: [Option<Field>; 4],
    bpe: u32,
    srgb: bool,
    class: Class,
}

/// How a format is stored, derived from its name.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Plain(Plain),
    /// R11G11B10_FLOAT.
    PackedFloat,
    /// R9G9B9E5_SHAREDEXP.
    SharedExp,
    /// P8, P4A4, A4P4, A8P8, P8A8 (index and optional alpha).
    Palette {
        bpe: u32,
    },
    /// R1_UNORM, P2_UNORM_PALETTE*: several elements per byte.
    SubByte {
        bits: u32,
    },
    /// R64*_PASSTHRU: raw 64-bit channels.
    Passthru {
        channels: u32,
    },
    /// YCRCB_*: 4:2:2, two texels per 32 bits.
    Ycrcb,
    /// Block-compressed (which generation has which is [`super::caps`]'s to say).
    Compressed {
        bpb: u32,
        bw: u32,
        bh: u32,
    },
    /// Listed, but not a texel format this module can describe.
    Special {
        reason: &'static str,
        bpe: Option<u32>,
    },
}

/// A format code resolved to its name and storage kind.
#[derive(Debug, Clone, Copy)]
struct Entry {
    name: &'static str,
    kind: Kind,
    /// [`unorm8x4_layout`], worked out once.
    unorm8: Option<[Option<u8>; 4]>,
    /// [`plain_uint8`], worked out once.
    uint8: Option<Uint8>,
}

/// An 8-, 16- or 32-bit UINT format whose every field is one whole byte of one channel
/// (R8_UINT, R8G8_UINT, R8G8B8A8_UINT, ...): its texels decode and encode byte by byte.
#[derive(Debug, Clone, Copy)]
struct Uint8 {
    /// Bytes per element.
    bytes: usize,
    /// Per byte, the channel it holds (None for an X byte).
    layout: [Option<u8>; 4],
}

/// Size of the code space: `SURFACE_FORMAT` is a 9-bit field.
const CODES: usize = 512;

/// Resolved entries for all 512 codes, built once.
fn table() -> &'static [Result<Entry, FormatError>] {
    static TABLE: OnceLock<Vec<Result<Entry, FormatError>>> = OnceLock::new();
    TABLE.get_or_init(|| (0..CODES as u32).map(classify).collect())
}

/// Look a format up in the resolved table.
fn entry(f: SurfaceFormat) -> Result<&'static Entry, FormatError> {
    match table().get(f.0 as usize) {
        Some(Ok(e)) => Ok(e),
        Some(Err(e)) => Err(e.clone()),
        None => Err(FormatError::UnknownCode { code: f.0 }),
    }
}

/// Decide how the format with `code` is stored, from its name in the seed table.
fn classify(code: u32) -> Result<Entry, FormatError> {
    let name = SurfaceFormat(code)
        .name()
        .ok_or(FormatError::UnknownCode { code })?;
    let kind = special_kind(name)
        .or_else(|| parse_plain(name).map(Kind::Plain))
        .unwrap_or(Kind::Special {
            reason: "format name does not describe a texel layout",
            bpe: None,
        });
    Ok(Entry {
        name,
        kind,
        unorm8: match kind {
            Kind::Plain(p) => plain_unorm8x4(&p),
            _ => None,
        },
        uint8: match kind {
            Kind::Plain(p) => plain_uint8(&p),
            _ => None,
        },
    })
}

/// Formats that are not independent bit fields, recognised by name.
fn special_kind(name: &str) -> Option<Kind> {
    let compressed = |bpb, bw| Some(Kind::Compressed { bpb, bw, bh: 4 });
    match name {
        "R11G11B10_FLOAT" => Some(Kind::PackedFloat),
        "R9G9B9E5_SHAREDEXP" => Some(Kind::SharedExp),
        "R1_UNORM" => Some(Kind::SubByte { bits: 1 }),
        "P2_UNORM_PALETTE0" | "P2_UNORM_PALETTE1" => Some(Kind::SubByte { bits: 2 }),
        "P8_UNORM_PALETTE0"
        | "P8_UNORM_PALETTE1"
        | "P4A4_UNORM_PALETTE0"
        | "P4A4_UNORM_PALETTE1"
        | "A4P4_UNORM_PALETTE0"
        | "A4P4_UNORM_PALETTE1" => Some(Kind::Palette { bpe: 8 }),
        "A8P8_UNORM_PALETTE0"
        | "A8P8_UNORM_PALETTE1"
        | "P8A8_UNORM_PALETTE0"
        | "P8A8_UNORM_PALETTE1" => Some(Kind::Palette { bpe: 16 }),
        "R64_PASSTHRU" => Some(Kind::Passthru { channels: 1 }),
        "R64G64_PASSTHRU" => Some(Kind::Passthru { channels: 2 }),
        "R64G64B64_PASSTHRU" => Some(Kind::Passthru { channels: 3 }),
        "R64G64B64A64_PASSTHRU" => Some(Kind::Passthru { channels: 4 }),
        "YCRCB_NORMAL" | "YCRCB_SWAPUVY" | "YCRCB_SWAPUV" | "YCRCB_SWAPY" => Some(Kind::Ycrcb),
        // 64-bit 4x4 blocks.
        "BC1_UNORM" | "BC1_UNORM_SRGB" | "BC4_UNORM" | "BC4_SNORM" | "DXT1_RGB"
        | "DXT1_RGB_SRGB" => compressed(64, 4),
        // 128-bit 4x4 blocks.
        "BC2_UNORM" | "BC2_UNORM_SRGB" | "BC3_UNORM" | "BC3_UNORM_SRGB" | "BC5_UNORM"
        | "BC5_SNORM" | "BC6H_SF16" | "BC6H_UF16" | "BC7_UNORM" | "BC7_UNORM_SRGB" => {
            compressed(128, 4)
        }
        // FXT1: 128-bit 8x4 blocks.
        "FXT1" => compressed(128, 8),
        "ETC1_RGB8" | "ETC2_RGB8" | "ETC2_SRGB8" | "ETC2_RGB8_PTA" | "ETC2_SRGB8_PTA"
        | "EAC_R11" | "EAC_SIGNED_R11" => compressed(64, 4),
        "EAC_RG11" | "EAC_SIGNED_RG11" | "ETC2_EAC_RGBA8" | "ETC2_EAC_SRGB8_A8" => {
            compressed(128, 4)
        }
        "MONO8" => Some(Kind::Special {
            reason: "MONO8 is read only by the monochrome filter (seed 000 L552) and has no channel mapping (N/A in §2.12.2.1.2)",
            bpe: Some(1),
        }),
        "Y8_UNORM" => Some(Kind::Special {
            reason: "Y8_UNORM is a media (sample_8x8) format with no 3D sampler channel mapping in §2.12.2.1.2",
            bpe: Some(8),
        }),
        "PLANAR_420_8" => Some(Kind::Special {
            reason: "PLANAR_420_8 is a planar media format; its planes are not single elements",
            bpe: None,
        }),
        "RAW" => Some(Kind::Special {
            reason: "RAW is only for untyped surface reads/writes/atomics (note under the table); it has no texels",
            bpe: None,
        }),
        _ => None,
    }
}

/// Parse a name such as `R10G10B10_SNORM_A2_UNORM` or `B8G8R8A8_UNORM_SRGB` into bit
/// fields: groups of `<channel><bits>` runs, each followed by its numeric type.
fn parse_plain(name: &str) -> Option<Plain> {
    // R32G32_FLOAT_LD stores R32G32_FLOAT's texels (Mesa isl: same layout); the variant
    // only changes how Ivy Bridge's gather4 reads them.
    let name = name.strip_suffix("_LD").unwrap_or(name);
    let (body, srgb) = match name.strip_suffix("_SRGB") {
        Some(body) => (body, true),
        None => (name, false),
    };
    let parts: Vec<&str> = body.split('_').collect();
    if !parts.len().is_multiple_of(2) {
        return None;
    }
    let mut fields = [None; 4];
    let mut count = 0;
    let mut shift = 0;
    for pair in parts.chunks(2) {
        let num = parse_num(pair[1])?;
        for (ch, bits) in parse_channels(pair[0])? {
            if !valid_width(num, bits) {
                return None;
            }
            if ch != Ch::X && num != Num::Typeless {
                *fields.get_mut(count)? = Some(Field {
                    ch,
                    num,
                    bits,
                    shift,
                });
                count += 1;
            }
            shift += bits;
        }
    }
    if !shift.is_multiple_of(8) || count == 0 {
        return None;
    }
    let class = plain_class(&fields)?;
    Some(Plain {
        fields,
        bpe: shift,
        srgb,
        class,
    })
}

/// Numeric type from a name suffix.
fn parse_num(s: &str) -> Option<Num> {
    Some(match s {
        "UNORM" => Num::Unorm,
        "SNORM" => Num::Snorm,
        "UINT" => Num::Uint,
        "SINT" => Num::Sint,
        "USCALED" => Num::Uscaled,
        "SSCALED" => Num::Sscaled,
        "FLOAT" => Num::Float,
        "SFIXED" => Num::Sfixed,
        "TYPELESS" => Num::Typeless,
        _ => return None,
    })
}

/// Split `B5G6R5` into `[(B, 5), (G, 6), (R, 5)]`.
fn parse_channels(s: &str) -> Option<Vec<(Ch, u32)>> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(letter) = rest.chars().next() {
        let ch = match letter {
            'R' => Ch::R,
            'G' => Ch::G,
            'B' => Ch::B,
            'A' => Ch::A,
            'L' => Ch::L,
            'I' => Ch::I,
            'X' => Ch::X,
            _ => return None,
        };
        let digits = rest[1..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(rest.len(), |i| i + 1);
        let bits: u32 = rest.get(1..digits)?.parse().ok()?;
        out.push((ch, bits));
        rest = &rest[digits..];
    }
    (!out.is_empty()).then_some(out)
}

/// Channel widths the conversions below implement.
fn valid_width(num: Num, bits: u32) -> bool {
    match num {
        Num::Float => matches!(bits, 16 | 32 | 64),
        Num::Sfixed => bits == 32,
        _ => (1..=32).contains(&bits) || (num == Num::Typeless && bits <= 64),
    }
}

/// The texel class: integer formats must not mix with float channels.
fn plain_class(fields: &[Option<Field>; 4]) -> Option<Class> {
    let mut class = None;
    for f in fields.iter().flatten() {
        let c = match f.num {
            Num::Uint => Class::Uint,
            Num::Sint => Class::Sint,
            _ => Class::Float,
        };
        match class {
            None => class = Some(c),
            Some(prev) if prev != c => return None,
            Some(_) => {}
        }
    }
    class
}

// ---------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------

/// The numeric class of a format's texels: what the sampler returns for it (seed 000
/// §2.13.2.1: UINT and SINT formats return integers, the others floats), the class the
/// render target write reads the shader's colour in (seed 000 §3.9.11.6: "IEEE Float,
/// S31, or U32 depending on the Surface Format") and the range COLORCLAMP_RTFORMAT
/// clamps to (seed 004 §12.1.6: [0, 1] for UNORM, [-1, 1] for SNORM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumericClass {
    /// Every channel UNORM (sRGB included).
    Unorm,
    /// Every channel SNORM.
    Snorm,
    /// Floats of any other kind (FLOAT, SCALED, mixed, shared-exponent, ...).
    Float,
    /// Unsigned integers.
    Uint,
    /// Signed integers.
    Sint,
}

impl NumericClass {
    /// UINT or SINT: integer texels, never filtered or blended.
    pub fn is_integer(self) -> bool {
        matches!(self, NumericClass::Uint | NumericClass::Sint)
    }
}

/// The numeric class of `f`, the one place it is decided: for formats of independent
/// channels from their channels' types, for the others (compressed, palette, sub-byte,
/// packed) from the UNORM or SNORM in their names.
pub fn numeric_class(f: SurfaceFormat) -> Result<NumericClass, FormatError> {
    let e = entry(f)?;
    Ok(match e.kind {
        Kind::Plain(p) => match p.class {
            Class::Uint => NumericClass::Uint,
            Class::Sint => NumericClass::Sint,
            Class::Float => {
                let mut nums = p.fields.iter().flatten().map(|f| f.num);
                let any = p.fields.iter().flatten().next().is_some();
                if any && nums.clone().all(|n| n == Num::Unorm) {
                    NumericClass::Unorm
                } else if any && nums.all(|n| n == Num::Snorm) {
                    NumericClass::Snorm
                } else {
                    NumericClass::Float
                }
            }
        },
        _ if e.name.contains("UNORM") => NumericClass::Unorm,
        _ if e.name.contains("SNORM") => NumericClass::Snorm,
        _ => NumericClass::Float,
    })
}

/// Which of red, green, blue and alpha a format stores, for formats made only of R, G, B,
/// A and ignored (X) channels; `None` for the others (luminance, intensity, compressed and
/// special formats), whose missing channels the texel decoder defines itself. The seed's
/// Sampler Output Channel Mapping (seed 000 §2.12.2.1.2) gives the missing channels'
/// values.
pub fn rgba_channels(f: SurfaceFormat) -> Option<[bool; 4]> {
    let plain = parse_plain(f.name()?)?;
    let mut has = [false; 4];
    for field in plain.fields.iter().flatten() {
        match field.ch {
            Ch::R => has[0] = true,
            Ch::G => has[1] = true,
            Ch::B => has[2] = true,
            Ch::A => has[3] = true,
            Ch::L | Ch::I => return None,
            Ch::X => {}
        }
    }
    Some(has)
}

/// Element size and block shape of `f` (seed 000 §2.12.2.1.1 BPE column for uncompressed
/// formats; 4x4 blocks for BC1-7/DXT1/ETC/EAC and 8x4 for FXT1, whose table BPE is 0).
/// YCRCB formats report 16 bits per texel (seed 000 L8639: "these four surface formats
/// have 16bpp pixels, even though the BPE fields are set to zero"). PLANAR_420_8 and RAW
/// have no element size and return [`FormatError::Unsupported`].
pub fn layout(f: SurfaceFormat) -> Result<Layout, FormatError> {
    let e = entry(f)?;
    match e.kind {
        Kind::Plain(p) => Ok(Layout::texel(p.bpe)),
        Kind::PackedFloat | Kind::SharedExp => Ok(Layout::texel(32)),
        Kind::Palette { bpe } => Ok(Layout::texel(bpe)),
        Kind::SubByte { bits } => Ok(Layout::texel(bits)),
        Kind::Passthru { channels } => Ok(Layout::texel(64 * channels)),
        Kind::Ycrcb => Ok(Layout::texel(16)),
        Kind::Compressed { bpb, bw, bh, .. } => Ok(Layout {
            bits_per_element: bpb,
            block_width: bw,
            block_height: bh,
        }),
        Kind::Special { bpe: Some(bpe), .. } => Ok(Layout::texel(bpe)),
        Kind::Special { reason, bpe: None } => Err(FormatError::Unsupported {
            format: e.name,
            reason,
        }),
    }
}

/// Decode one element of an uncompressed format from exactly `bits_per_element / 8` bytes.
///
/// Returns the sampler's pre-swizzle channels (seed 000 §2.12.2.1.2); `_SRGB` formats
/// come back linear. Formats that need another entry point (YCRCB, palettes, sub-byte,
/// PASSTHRU, compressed) return an error naming it; never panics.
pub fn decode(f: SurfaceFormat, bytes: &[u8]) -> Result<Texel, FormatError> {
    let e = entry(f)?;
    // Four UNORM8 bytes: each channel from the table, the others as `decode_plain`
    // leaves them (0, and 1 for alpha).
    if let (Some(layout), &[b0, b1, b2, b3]) = (e.unorm8, bytes) {
        let floats = unorm8_floats();
        let mut out = [0.0, 0.0, 0.0, 1.0];
        for (ch, b) in layout.into_iter().zip([b0, b1, b2, b3]) {
            if let Some(ch) = ch {
                out[ch as usize & 3] = floats[b as usize];
            }
        }
        return Ok(Texel::Float(out));
    }
    // Whole-byte UINT channels: each byte is its channel's value.
    if let Some(u) = e.uint8
        && bytes.len() == u.bytes
    {
        let mut out = [0, 0, 0, 1];
        for (ch, &b) in u.layout.iter().zip(bytes) {
            if let Some(ch) = ch {
                out[*ch as usize & 3] = u32::from(b);
            }
        }
        return Ok(Texel::Uint(out));
    }
    match e.kind {
        Kind::Plain(p) => decode_plain(e.name, &p, bytes),
        Kind::PackedFloat => {
            let w = word32(e.name, bytes)?;
            Ok(Texel::Float(decode_r11g11b10(w)))
        }
        Kind::SharedExp => {
            let w = word32(e.name, bytes)?;
            Ok(Texel::Float(decode_rgb9e5(w)))
        }
        kind => Err(not_a_texel(e.name, kind)),
    }
}

/// [`decode`] of the consecutive elements of `bytes`, `bpe` bytes each, into `out` (as
/// many as both hold), the format looked up once: the same texels, element by element.
pub fn decode_run(
    f: SurfaceFormat,
    bytes: &[u8],
    bpe: usize,
    out: &mut [Texel],
) -> Result<(), FormatError> {
    let e = entry(f)?;
    let elements = bytes.chunks_exact(bpe.max(1));
    if let (Some(layout), 4) = (e.unorm8, bpe) {
        let floats = unorm8_floats();
        for (t, b) in out.iter_mut().zip(elements) {
            let mut o = [0.0, 0.0, 0.0, 1.0];
            for (ch, &v) in layout.iter().zip(b) {
                if let Some(ch) = ch {
                    o[*ch as usize & 3] = floats[v as usize];
                }
            }
            *t = Texel::Float(o);
        }
        return Ok(());
    }
    if let Some(u) = e.uint8
        && u.bytes == bpe
    {
        for (t, b) in out.iter_mut().zip(elements) {
            let mut o = [0, 0, 0, 1];
            for (ch, &v) in u.layout.iter().zip(b) {
                if let Some(ch) = ch {
                    o[*ch as usize & 3] = u32::from(v);
                }
            }
            *t = Texel::Uint(o);
        }
        return Ok(());
    }
    for (t, b) in out.iter_mut().zip(elements) {
        *t = decode(f, b)?;
    }
    Ok(())
}

/// Encode one texel as a render-target write would store it (see the module docs for the
/// rounding and clamping rules). The texel's class must match the format's: UINT formats
/// take [`Texel::Uint`], SINT formats [`Texel::Sint`], all others [`Texel::Float`].
pub fn encode(f: SurfaceFormat, t: Texel) -> Result<Vec<u8>, FormatError> {
    let mut out = [0u8; 16];
    let n = encode_into(f, t, &mut out)?;
    Ok(out[..n].to_vec())
}

/// [`encode`] into the first bytes of `out` (an element of a texel format is at most 16
/// bytes); returns how many it wrote.
pub fn encode_into(f: SurfaceFormat, t: Texel, out: &mut [u8; 16]) -> Result<usize, FormatError> {
    let e = entry(f)?;
    let word = |out: &mut [u8; 16], w: u32| {
        out[..4].copy_from_slice(&w.to_le_bytes());
        4
    };
    // Whole-byte UINT channels: each byte its channel, clamped to 255 as
    // `encode_plain` clamps.
    if let (Some(u), Texel::Uint(c)) = (e.uint8, t) {
        for (o, ch) in out.iter_mut().zip(u.layout).take(u.bytes) {
            *o = ch.map_or(0, |ch| c[ch as usize & 3].min(255) as u8);
        }
        return Ok(u.bytes);
    }
    match e.kind {
        Kind::Plain(p) => encode_plain(e.name, &p, t, out),
        Kind::PackedFloat => float_texel(e.name, t).map(|c| word(out, encode_r11g11b10(c))),
        Kind::SharedExp => float_texel(e.name, t).map(|c| word(out, encode_rgb9e5(c))),
        Kind::Ycrcb => Err(FormatError::Unsupported {
            format: e.name,
            reason: "a YCRCB element holds two texels; use encode_ycrcb",
        }),
        kind => Err(not_a_texel(e.name, kind)),
    }
}

/// The error for formats [`decode`]/[`encode`] do not handle as single texels.
fn not_a_texel(format: &'static str, kind: Kind) -> FormatError {
    let reason = match kind {
        Kind::Palette { .. } => {
            "palette format: use decode_palette_index (the palette lookup belongs to the sampler)"
        }
        Kind::SubByte { bits: 1 } => "1-bit format, several texels per byte: use decode_sub_byte",
        Kind::SubByte { .. } => "2-bit palette format: use decode_palette_index_sub_byte",
        Kind::Passthru { .. } => "PASSTHRU channels are raw 64-bit values: use decode_passthru",
        Kind::Ycrcb => "4:2:2 format, two texels per 32 bits: use decode_ycrcb",
        Kind::Compressed { bw, bh, .. } => {
            return FormatError::NotUncompressed {
                format,
                block_width: bw,
                block_height: bh,
            };
        }
        Kind::Special { reason, .. } => reason,
        Kind::Plain(_) | Kind::PackedFloat | Kind::SharedExp => {
            "internal: texel format routed wrongly"
        }
    };
    FormatError::Unsupported { format, reason }
}

/// Check the slice is exactly `expected` bytes.
fn check_len(format: &'static str, bytes: &[u8], expected: usize) -> Result<(), FormatError> {
    if bytes.len() == expected {
        Ok(())
    } else {
        Err(FormatError::WrongLength {
            format,
            expected,
            got: bytes.len(),
        })
    }
}

/// One little-endian dword element.
fn word32(format: &'static str, bytes: &[u8]) -> Result<u32, FormatError> {
    let arr: [u8; 4] = bytes.try_into().map_err(|_| FormatError::WrongLength {
        format,
        expected: 4,
        got: bytes.len(),
    })?;
    Ok(u32::from_le_bytes(arr))
}

/// Require a float texel.
fn float_texel(format: &'static str, t: Texel) -> Result<[f32; 4], FormatError> {
    match t {
        Texel::Float(c) => Ok(c),
        other => Err(FormatError::TexelKind {
            format,
            expected: "float",
            got: other.kind_name(),
        }),
    }
}

// ---------------------------------------------------------------------------------------
// Bit fields
// ---------------------------------------------------------------------------------------

/// Bits `[shift, shift + bits)` of a little-endian byte string (`bits <= 64`).
fn get_bits(bytes: &[u8], shift: u32, bits: u32) -> u64 {
    // Whole bytes (every channel of the 8/16/32-bit formats): read them as they are.
    if shift.is_multiple_of(8) && bits.is_multiple_of(8) && bits <= 64 {
        let first = (shift / 8) as usize;
        let mut acc = 0u64;
        for k in 0..(bits / 8) as usize {
            acc |= u64::from(bytes.get(first + k).copied().unwrap_or(0)) << (8 * k);
        }
        return acc;
    }
    let first = (shift / 8) as usize;
    let last = ((shift + bits).div_ceil(8)) as usize;
    let mut acc: u128 = 0;
    for (k, i) in (first..last).enumerate() {
        acc |= u128::from(bytes.get(i).copied().unwrap_or(0)) << (8 * k);
    }
    (acc >> (shift % 8)) as u64 & mask(bits)
}

/// Store `value` into bits `[shift, shift + bits)` of a little-endian byte string (OR-ing
/// into bytes that start zeroed), a byte at a time.
fn put_bits(bytes: &mut [u8], shift: u32, bits: u32, value: u64) {
    if shift.is_multiple_of(8) && bits.is_multiple_of(8) && bits <= 64 {
        let first = (shift / 8) as usize;
        for k in 0..(bits / 8) as usize {
            if let Some(b) = bytes.get_mut(first + k) {
                *b |= (value >> (8 * k)) as u8;
            }
        }
        return;
    }
    let v = (u128::from(value & mask(bits))) << (shift % 8);
    let first = (shift / 8) as usize;
    let last = (shift + bits).div_ceil(8) as usize;
    for (k, i) in (first..last).enumerate() {
        if let Some(b) = bytes.get_mut(i) {
            *b |= (v >> (8 * k)) as u8;
        }
    }
}

/// `bits` low ones (`bits <= 64`).
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Two's-complement sign extension of a `bits`-wide value.
fn sign_extend(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

// ---------------------------------------------------------------------------------------
// Plain formats
// ---------------------------------------------------------------------------------------

/// Decode a bit-field format and apply the channel mapping.
fn decode_plain(format: &'static str, p: &Plain, bytes: &[u8]) -> Result<Texel, FormatError> {
    check_len(format, bytes, (p.bpe / 8) as usize)?;
    let fields = p.fields.iter().flatten();
    Ok(match p.class {
        Class::Float => {
            let mut out = [0.0, 0.0, 0.0, 1.0];
            for f in fields {
                place(
                    &mut out,
                    f.ch,
                    to_float(f, get_bits(bytes, f.shift, f.bits)),
                );
            }
            if p.srgb {
                for c in &mut out[..3] {
                    *c = srgb_to_linear(*c);
                }
            }
            Texel::Float(out)
        }
        Class::Uint => {
            let mut out = [0, 0, 0, 1];
            for f in fields {
                place(&mut out, f.ch, get_bits(bytes, f.shift, f.bits) as u32);
            }
            Texel::Uint(out)
        }
        Class::Sint => {
            let mut out = [0, 0, 0, 1];
            for f in fields {
                place(
                    &mut out,
                    f.ch,
                    sign_extend(get_bits(bytes, f.shift, f.bits), f.bits) as i32,
                );
            }
            Texel::Sint(out)
        }
    })
}

/// Route a stored channel to the output channels (seed 000 §2.12.2.1.2).
fn place<T: Copy>(out: &mut [T; 4], ch: Ch, v: T) {
    let targets: &[usize] = match ch {
        Ch::R => &[0],
        Ch::G => &[1],
        Ch::B => &[2],
        Ch::A => &[3],
        Ch::L => &[0, 1, 2],
        Ch::I => &[0, 1, 2, 3],
        Ch::X => &[],
    };
    for &i in targets {
        out[i] = v;
    }
}

/// The input channel an encoded field takes its value from.
fn source_index(ch: Ch) -> usize {
    match ch {
        Ch::R | Ch::L | Ch::I | Ch::X => 0,
        Ch::G => 1,
        Ch::B => 2,
        Ch::A => 3,
    }
}

/// Convert one raw field to float (GL 4.6 §2.3.5.1/§2.3.5.2 for UNORM/SNORM).
fn to_float(f: &Field, raw: u64) -> f32 {
    match f.num {
        Num::Unorm => unorm_to_float(raw, f.bits),
        Num::Snorm => snorm_to_float(raw, f.bits),
        Num::Uscaled => raw as f32,
        Num::Sscaled => sign_extend(raw, f.bits) as f32,
        Num::Sfixed => (sign_extend(raw, 32) as f64 / 65536.0) as f32,
        Num::Float => float_bits_to_f32(raw, f.bits),
        // Not produced for float-class formats; a raw value is the least surprising.
        Num::Uint | Num::Sint | Num::Typeless => raw as f32,
    }
}

/// UNORM: `v / (2^n - 1)`, computed in f64 and rounded once to f32.
fn unorm_to_float(raw: u64, bits: u32) -> f32 {
    (raw as f64 / mask(bits) as f64) as f32
}

/// SNORM: `max(v / (2^(n-1) - 1), -1)`.
fn snorm_to_float(raw: u64, bits: u32) -> f32 {
    let max = mask(bits - 1) as f64;
    (sign_extend(raw, bits) as f64 / max).max(-1.0) as f32
}

/// IEEE half/single/double bits to f32 (doubles rounded to nearest).
fn float_bits_to_f32(raw: u64, bits: u32) -> f32 {
    match bits {
        16 => half::f16::from_bits(raw as u16).to_f32(),
        32 => f32::from_bits(raw as u32),
        _ => f64::from_bits(raw) as f32,
    }
}

/// Encode a bit-field format.
fn encode_plain(
    format: &'static str,
    p: &Plain,
    t: Texel,
    out: &mut [u8; 16],
) -> Result<usize, FormatError> {
    let n = (p.bpe / 8) as usize;
    let Some(out) = out.get_mut(..n) else {
        return Err(FormatError::Unsupported {
            format,
            reason: "an element of more than 128 bits",
        });
    };
    out.fill(0);
    let mismatch = || FormatError::TexelKind {
        format,
        expected: p.class.name(),
        got: t.kind_name(),
    };
    for f in p.fields.iter().flatten() {
        let src = source_index(f.ch);
        let raw = match (p.class, t) {
            (Class::Float, Texel::Float(c)) => {
                let v = if p.srgb && f.ch != Ch::A {
                    linear_to_srgb(c[src])
                } else {
                    c[src]
                };
                from_float(f, v)
            }
            (Class::Uint, Texel::Uint(c)) => u64::from(c[src]).min(mask(f.bits)),
            (Class::Sint, Texel::Sint(c)) => saturate_signed(i64::from(c[src]), f.bits),
            _ => return Err(mismatch()),
        };
        put_bits(out, f.shift, f.bits, raw);
    }
    Ok(n)
}

/// Clamp a signed value to `bits` and return its two's-complement bit pattern.
fn saturate_signed(v: i64, bits: u32) -> u64 {
    let max = mask(bits - 1) as i64;
    (v.clamp(-max - 1, max) as u64) & mask(bits)
}

/// Convert a float to one raw field, render-target style. Single floats are stored
/// bit-for-bit (NaN payloads, including signalling NaNs, survive).
fn from_float(f: &Field, x: f32) -> u64 {
    let v = f64::from(x);
    match f.num {
        Num::Unorm => float_to_unorm(v, f.bits),
        Num::Snorm => float_to_snorm(v, f.bits),
        Num::Uscaled => float_to_uint_sat(v, mask(f.bits) as f64),
        Num::Sscaled => float_to_sint_sat(v, f.bits),
        Num::Sfixed => float_to_sint_sat(v * 65536.0, 32),
        Num::Float => match f.bits {
            16 => u64::from(half::f16::from_f32(x).to_bits()),
            32 => u64::from(x.to_bits()),
            _ => v.to_bits(),
        },
        Num::Uint | Num::Sint | Num::Typeless => 0,
    }
}

/// `x` rounded to the nearest integer, ties to even: `f64::round_ties_even`, without the
/// library call that needs on x86-64 baseline targets (no SSE4.1): for |x| < 2^52,
/// adding and subtracting 2^52 to the magnitude leaves exactly the rounded value (the
/// sum's unit in the last place is 1, and IEEE addition rounds to nearest even).
pub fn round_even(x: f64) -> f64 {
    const TWO52: f64 = 4_503_599_627_370_496.0;
    let m = x.abs();
    if m < TWO52 {
        ((m + TWO52) - TWO52).copysign(x)
    } else {
        x.round_ties_even()
    }
}

/// For a format whose element is four bytes, each an 8-bit UNORM channel (linear, not
/// sRGB: R8G8B8A8_UNORM, B8G8R8A8_UNORM, ...), or an ignored byte (B8G8R8X8_UNORM), the
/// texel channel (0-3, R-A) each byte stores, or `None` for an ignored one. Encoding such
/// a texel is then [`float_to_unorm8`] per byte, what [`encode_into`] computes for it
/// (the fast path of render target writes).
pub fn unorm8x4_layout(f: SurfaceFormat) -> Option<[Option<u8>; 4]> {
    match table().get(f.0 as usize)? {
        Ok(e) => e.unorm8,
        Err(_) => None,
    }
}

/// For a 32-bit UINT format whose every field is one whole byte of one channel
/// (R8G8B8A8_UINT, B8G8R8X8-like UINT layouts): per byte, the source channel it stores
/// (None for an X byte, stored as 0), each value clamped to 255 as [`encode_into`]
/// clamps it. None for other formats.
pub fn uint8x4_layout(f: SurfaceFormat) -> Option<[Option<u8>; 4]> {
    match table().get(f.0 as usize)? {
        Ok(Entry { uint8: Some(u), .. }) if u.bytes == 4 => Some(u.layout),
        _ => None,
    }
}

/// [`unorm8x4_layout`] of a plain format.
fn plain_unorm8x4(p: &Plain) -> Option<[Option<u8>; 4]> {
    if p.bpe != 32 || p.srgb || p.class != Class::Float {
        return None;
    }
    let mut out = [None; 4];
    let mut covered = 0u32;
    for fld in p.fields.iter().flatten() {
        let lone = matches!(fld.ch, Ch::R | Ch::G | Ch::B | Ch::A);
        if fld.num != Num::Unorm || fld.bits != 8 || !fld.shift.is_multiple_of(8) || !lone {
            return None;
        }
        out[(fld.shift / 8) as usize] = Some(source_index(fld.ch) as u8);
        covered |= 1 << (fld.shift / 8);
    }
    // Bytes of no field are X channels (stored as 0 by `encode_plain`).
    (covered != 0).then_some(out)
}

/// The byte layout of a plain UINT format whose fields are whole bytes of single
/// channels, if it is one.
fn plain_uint8(p: &Plain) -> Option<Uint8> {
    if !matches!(p.bpe, 8 | 16 | 32) || p.class != Class::Uint {
        return None;
    }
    let mut layout = [None; 4];
    for fld in p.fields.iter().flatten() {
        let lone = matches!(fld.ch, Ch::R | Ch::G | Ch::B | Ch::A);
        if fld.num != Num::Uint || fld.bits != 8 || !fld.shift.is_multiple_of(8) || !lone {
            return None;
        }
        layout[(fld.shift / 8) as usize] = Some(source_index(fld.ch) as u8);
    }
    layout.iter().any(Option::is_some).then_some(Uint8 {
        bytes: (p.bpe / 8) as usize,
        layout,
    })
}

/// Every 8-bit UNORM value as a float (`unorm_to_float(v, 8)`), made once.
fn unorm8_floats() -> &'static [f32; 256] {
    static TABLE: OnceLock<[f32; 256]> = OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|v| unorm_to_float(v as u64, 8)))
}

/// One 8-bit UNORM channel from a float, as [`encode_into`] stores it (GL 4.6 §2.3.5.1:
/// clamp to [0, 1], NaN → 0, scale by 255, round to nearest even).
#[inline]
pub fn float_to_unorm8(x: f32) -> u8 {
    float_to_unorm(f64::from(x), 8) as u8
}

/// GL 4.6 §2.3.5.1: clamp to [0, 1] (NaN → 0), scale by `2^n - 1`, round to nearest even.
#[inline]
fn float_to_unorm(v: f64, bits: u32) -> u64 {
    if v.is_nan() {
        return 0;
    }
    round_even(v.clamp(0.0, 1.0) * mask(bits) as f64) as u64
}

/// GL 4.6 §2.3.5.2: clamp to [-1, 1] (NaN → 0), scale by `2^(n-1) - 1`, round to nearest even.
fn float_to_snorm(v: f64, bits: u32) -> u64 {
    if v.is_nan() {
        return 0;
    }
    let q = round_even(v.clamp(-1.0, 1.0) * mask(bits - 1) as f64) as i64;
    (q as u64) & mask(bits)
}

/// Round to nearest even and saturate to `[0, max]` (NaN → 0).
fn float_to_uint_sat(v: f64, max: f64) -> u64 {
    if v.is_nan() {
        return 0;
    }
    v.round_ties_even().clamp(0.0, max) as u64
}

/// Round to nearest even and saturate to the signed `bits` range (NaN → 0).
fn float_to_sint_sat(v: f64, bits: u32) -> u64 {
    if v.is_nan() {
        return 0;
    }
    let max = mask(bits - 1) as f64;
    let q = v.round_ties_even().clamp(-max - 1.0, max) as i64;
    (q as u64) & mask(bits)
}

// ---------------------------------------------------------------------------------------
// sRGB
// ---------------------------------------------------------------------------------------

/// The sRGB electro-optical transfer function (Khronos Data Format spec §13.3.1, GL 4.6
/// §8.24): `c / 12.92` for `c <= 0.04045`, else `((c + 0.055) / 1.055)^2.4`.
pub fn srgb_to_linear(v: f32) -> f32 {
    let c = f64::from(v);
    let l = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    l as f32
}

/// The inverse transfer function (Khronos Data Format spec §13.3.2, GL 4.6 §17.3.7):
/// `12.92 * l` for `l <= 0.0031308`, else `1.055 * l^(1/2.4) - 0.055`. Values outside
/// [0, 1] are not clamped here; the UNORM conversion that follows clamps them.
pub fn linear_to_srgb(v: f32) -> f32 {
    let l = f64::from(v);
    let c = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    c as f32
}

// ---------------------------------------------------------------------------------------
// Packed floats
// ---------------------------------------------------------------------------------------

/// Exponent bias of the 10/11-bit unsigned floats and of RGB9E5.
const UF_BIAS: i32 = 15;

/// Decode an unsigned float with a 5-bit exponent and `mbits` mantissa bits (GL 4.6
/// §2.3.4.3/§2.3.4.4): denormals for e = 0, Inf/NaN for e = 31.
fn decode_ufloat(v: u32, mbits: u32) -> f32 {
    let m = v & ((1 << mbits) - 1);
    let e = (v >> mbits) & 0x1f;
    let scale = f64::from(1u32 << mbits);
    match e {
        0 => (f64::from(m) / scale * 2f64.powi(1 - UF_BIAS)) as f32,
        31 if m == 0 => f32::INFINITY,
        31 => f32::NAN,
        _ => ((1.0 + f64::from(m) / scale) * 2f64.powi(e as i32 - UF_BIAS)) as f32,
    }
}

/// Encode an unsigned float: negative values and -Inf → 0, NaN → NaN, +Inf → Inf, finite
/// values round to nearest even and saturate to the largest finite value (the D3D11
/// float11/float10 rule; GL leaves overflow implementation-defined).
fn encode_ufloat(v: f32, mbits: u32) -> u32 {
    let mmask = (1u32 << mbits) - 1;
    let max_finite = (30 << mbits) | mmask;
    if v.is_nan() {
        return (31 << mbits) | (1 << (mbits - 1));
    }
    if v == f32::INFINITY {
        return 31 << mbits;
    }
    if v <= 0.0 {
        return 0;
    }
    let x = f64::from(v);
    let unbiased = f64_exponent(x);
    if unbiased < 1 - UF_BIAS {
        // Denormal range: quantum is 2^(1 - bias - mbits); a carry into bit `mbits` is
        // exactly the smallest normal number.
        let q = (x / 2f64.powi(1 - UF_BIAS - mbits as i32)).round_ties_even() as u32;
        return q;
    }
    let frac = x / 2f64.powi(unbiased) - 1.0;
    let mut m = (frac * f64::from(1u32 << mbits)).round_ties_even() as u32;
    let mut e = unbiased + UF_BIAS;
    if m > mmask {
        m = 0;
        e += 1;
    }
    if e >= 31 {
        return max_finite;
    }
    ((e as u32) << mbits) | m
}

/// floor(log2(x)) for a positive, finite, normal f64.
fn f64_exponent(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// R11G11B10_FLOAT: R bits 10:0 and G bits 21:11 (6-bit mantissa), B bits 31:22 (5-bit).
fn decode_r11g11b10(w: u32) -> [f32; 4] {
    [
        decode_ufloat(w & 0x7ff, 6),
        decode_ufloat((w >> 11) & 0x7ff, 6),
        decode_ufloat(w >> 22, 5),
        1.0,
    ]
}

/// Inverse of [`decode_r11g11b10`]; alpha is dropped.
fn encode_r11g11b10(c: [f32; 4]) -> u32 {
    encode_ufloat(c[0], 6) | (encode_ufloat(c[1], 6) << 11) | (encode_ufloat(c[2], 5) << 22)
}

/// R9G9B9E5_SHAREDEXP: mantissas in bits 8:0, 17:9, 26:18, exponent in 31:27;
/// each channel is `m * 2^(e - 15 - 9)`.
fn decode_rgb9e5(w: u32) -> [f32; 4] {
    let e = (w >> 27) as i32;
    let scale = 2f64.powi(e - UF_BIAS - 9);
    let ch = |s: u32| (f64::from((w >> s) & 0x1ff) * scale) as f32;
    [ch(0), ch(9), ch(18), 1.0]
}

/// Encode RGB9E5 with the EXT_texture_shared_exponent algorithm (GL 4.6 §8.5.2): clamp
/// each channel to [0, 65408] (NaN → 0), pick the shared exponent from the largest,
/// round mantissas half-up, bump the exponent if the largest mantissa overflows.
fn encode_rgb9e5(c: [f32; 4]) -> u32 {
    const N: i32 = 9;
    let max_val = f64::from(0x1ffu32) / 512.0 * 2f64.powi(31 - UF_BIAS);
    let clamp = |v: f32| {
        let v = f64::from(v);
        if v.is_nan() {
            0.0
        } else {
            v.clamp(0.0, max_val)
        }
    };
    let rgb = [clamp(c[0]), clamp(c[1]), clamp(c[2])];
    let maxc = rgb[0].max(rgb[1]).max(rgb[2]);
    let floor_log2 = if maxc > 0.0 {
        f64_exponent(maxc)
    } else {
        -UF_BIAS - 1
    };
    let mut exp = floor_log2.max(-UF_BIAS - 1) + 1 + UF_BIAS;
    let quant = |v: f64, e: i32| (v / 2f64.powi(e - UF_BIAS - N) + 0.5).floor() as u32;
    if quant(maxc, exp) == 1 << N {
        exp += 1;
    }
    let m = rgb.map(|v| quant(v, exp).min(0x1ff));
    m[0] | (m[1] << 9) | (m[2] << 18) | ((exp as u32) << 27)
}

// ---------------------------------------------------------------------------------------
// YCRCB (4:2:2), palettes, sub-byte, PASSTHRU
// ---------------------------------------------------------------------------------------

/// Byte positions of (Y0, Cb, Y1, Cr) within a YCRCB dword, from seed 000 L8639:
/// YCRCB_NORMAL = YUYV, YCRCB_SWAPUV = YVYU, YCRCB_SWAPY = UYVY, YCRCB_SWAPUVY = VYUY.
fn ycrcb_positions(name: &str) -> Option<[usize; 4]> {
    match name {
        "YCRCB_NORMAL" => Some([0, 1, 2, 3]),
        "YCRCB_SWAPUV" => Some([0, 3, 2, 1]),
        "YCRCB_SWAPY" => Some([1, 0, 3, 2]),
        "YCRCB_SWAPUVY" => Some([1, 2, 3, 0]),
        _ => None,
    }
}

/// Positions for a YCRCB format, or the error for anything else.
fn ycrcb_entry(f: SurfaceFormat) -> Result<(&'static str, [usize; 4]), FormatError> {
    let e = entry(f)?;
    ycrcb_positions(e.name)
        .map(|p| (e.name, p))
        .ok_or(FormatError::Unsupported {
            format: e.name,
            reason: "not a YCRCB format",
        })
}

/// Decode the even (`odd == false`) or odd texel of a 4-byte YCRCB pair. Output follows
/// seed 000 §2.12.2.1.2: R = Cr, G = Y, B = Cb, A = 1.0, each 8-bit UNORM.
pub fn decode_ycrcb(f: SurfaceFormat, bytes4: &[u8], odd: bool) -> Result<[f32; 4], FormatError> {
    let (name, [y0, cb, y1, cr]) = ycrcb_entry(f)?;
    check_len(name, bytes4, 4)?;
    let un8 = |i: usize| unorm_to_float(u64::from(bytes4.get(i).copied().unwrap_or(0)), 8);
    let y = if odd { y1 } else { y0 };
    Ok([un8(cr), un8(y), un8(cb), 1.0])
}

/// Encode two horizontally adjacent texels (sampler order R = Cr, G = Y, B = Cb) into one
/// YCRCB dword. Each Y is kept; the shared Cr and Cb are the average of the two texels'
/// (a model choice: the seed does not say how the render cache subsamples chroma).
pub fn encode_ycrcb(
    f: SurfaceFormat,
    even: [f32; 4],
    odd: [f32; 4],
) -> Result<[u8; 4], FormatError> {
    let (_, [y0, cb, y1, cr]) = ycrcb_entry(f)?;
    let un8 = |v: f32| float_to_unorm(f64::from(v), 8) as u8;
    let avg = |a: f32, b: f32| (a + b) * 0.5;
    let mut out = [0u8; 4];
    out[y0] = un8(even[1]);
    out[y1] = un8(odd[1]);
    out[cr] = un8(avg(even[0], odd[0]));
    out[cb] = un8(avg(even[2], odd[2]));
    Ok(out)
}

/// Decode a palette element into (index, alpha): P8 → (P, None); P4A4 → P in bits 3:0, A
/// in 7:4; A4P4 → A in 3:0, P in 7:4; A8P8 → A in byte 0, P in byte 1; P8A8 → P in byte
/// 0, A in byte 1 (name order, lowest first). Alpha is UNORM. The palette lookup itself
/// (3DSTATE_SAMPLER_PALETTE_LOAD0/1) belongs to the sampler.
pub fn decode_palette_index(
    f: SurfaceFormat,
    bytes: &[u8],
) -> Result<(u8, Option<f32>), FormatError> {
    let e = entry(f)?;
    let Kind::Palette { bpe } = e.kind else {
        return Err(FormatError::Unsupported {
            format: e.name,
            reason: "not a byte-sized palette format (P2 formats: decode_palette_index_sub_byte)",
        });
    };
    check_len(e.name, bytes, (bpe / 8) as usize)?;
    let b0 = u64::from(bytes.first().copied().unwrap_or(0));
    let b1 = u64::from(bytes.get(1).copied().unwrap_or(0));
    let (index, alpha) = match e.name.get(..4) {
        Some("P4A4") => (b0 & 0xf, Some(unorm_to_float(b0 >> 4, 4))),
        Some("A4P4") => (b0 >> 4, Some(unorm_to_float(b0 & 0xf, 4))),
        Some("A8P8") => (b1, Some(unorm_to_float(b0, 8))),
        Some("P8A8") => (b0, Some(unorm_to_float(b1, 8))),
        _ => (b0, None),
    };
    Ok((index as u8, alpha))
}

/// Elements per byte and element width of a sub-byte format.
fn sub_byte(f: SurfaceFormat, want_bits: u32, index: u32, byte: u8) -> Result<u64, FormatError> {
    let e = entry(f)?;
    match e.kind {
        Kind::SubByte { bits } if bits == want_bits => {
            let per_byte = 8 / bits;
            if index >= per_byte {
                return Err(FormatError::SubByteIndex {
                    format: e.name,
                    index,
                    per_byte,
                });
            }
            Ok(get_bits(&[byte], index * bits, bits))
        }
        _ => Err(FormatError::Unsupported {
            format: e.name,
            reason: if want_bits == 1 {
                "decode_sub_byte is only for R1_UNORM"
            } else {
                "decode_palette_index_sub_byte is only for P2_UNORM_PALETTE0/1"
            },
        }),
    }
}

/// Decode texel `index` (0 = least significant bit) of an `R1_UNORM` byte as
/// (R, 0, 0, 1) per seed 000 §2.12.2.1.2. The LSB-first order within the byte is an
/// assumption: the seed gives BPE 1 but not the bit order.
pub fn decode_sub_byte(f: SurfaceFormat, byte: u8, index: u32) -> Result<Texel, FormatError> {
    let v = sub_byte(f, 1, index, byte)?;
    Ok(Texel::Float([v as f32, 0.0, 0.0, 1.0]))
}

/// Palette index `index` (0 = bits 1:0) of a `P2_UNORM_PALETTE*` byte; LSB-first as for
/// [`decode_sub_byte`] (an assumption, see there).
pub fn decode_palette_index_sub_byte(
    f: SurfaceFormat,
    byte: u8,
    index: u32,
) -> Result<u8, FormatError> {
    sub_byte(f, 2, index, byte).map(|v| v as u8)
}

/// The raw 64-bit channels of a `R64*_PASSTHRU` element, R first (vertex fetch passes
/// these bits through without conversion).
pub fn decode_passthru(f: SurfaceFormat, bytes: &[u8]) -> Result<Vec<u64>, FormatError> {
    let e = entry(f)?;
    let Kind::Passthru { channels } = e.kind else {
        return Err(FormatError::Unsupported {
            format: e.name,
            reason: "not a PASSTHRU format",
        });
    };
    check_len(e.name, bytes, 8 * channels as usize)?;
    Ok((0..channels).map(|i| get_bits(bytes, 64 * i, 64)).collect())
}

/// Whether [`encode`] (or [`encode_ycrcb`] for YCRCB formats) can write `f`.
pub fn has_encoder(f: SurfaceFormat) -> bool {
    matches!(
        entry(f).map(|e| e.kind),
        Ok(Kind::Plain(_) | Kind::PackedFloat | Kind::SharedExp | Kind::Ycrcb)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against `f64::round_ties_even` on ties, near-ties, signs, large values and
    /// non-finite ones.
    /// The UNORM8 fast layout names the seed's byte order (R8G8B8A8: R in byte 0;
    /// B8G8R8A8: B in byte 0; B8G8R8X8: byte 3 ignored), is refused for sRGB and other
    /// formats, and encodes every format it accepts as `encode_into` does.
    #[test]
    fn the_unorm8x4_layout_encodes_as_encode_into() {
        use gtsim_spec::shared::SurfaceFormat as F;
        assert_eq!(
            unorm8x4_layout(F::R8G8B8A8_UNORM),
            Some([Some(0), Some(1), Some(2), Some(3)])
        );
        assert_eq!(
            unorm8x4_layout(F::B8G8R8A8_UNORM),
            Some([Some(2), Some(1), Some(0), Some(3)])
        );
        assert_eq!(
            unorm8x4_layout(F::B8G8R8X8_UNORM),
            Some([Some(2), Some(1), Some(0), None])
        );
        assert_eq!(unorm8x4_layout(F::R8G8B8A8_UNORM_SRGB), None);
        assert_eq!(unorm8x4_layout(F::R8G8B8A8_UINT), None);
        assert_eq!(unorm8x4_layout(F::R16G16_UNORM), None);
        let values = [
            0.0f32,
            -0.0,
            1.0,
            0.5,
            0.25,
            -3.0,
            7.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.001,
            0.998,
            1.0 / 255.0,
            0.5 / 255.0,
            1.5 / 255.0,
        ];
        let mut fast = 0;
        for code in 0..512u32 {
            let f = F(code);
            let Some(layout) = unorm8x4_layout(f) else {
                continue;
            };
            fast += 1;
            for (i, &r) in values.iter().enumerate() {
                let c = [
                    r,
                    values[(i + 3) % values.len()],
                    values[(i + 7) % values.len()],
                    values[(i + 11) % values.len()],
                ];
                let mut want = [0u8; 16];
                assert_eq!(encode_into(f, Texel::Float(c), &mut want), Ok(4));
                let got = layout.map(|ch| ch.map_or(0, |ch| float_to_unorm8(c[ch as usize])));
                assert_eq!(got, want[..4], "{:?} {c:?}", f.name());
            }
        }
        assert!(fast >= 3, "{fast} formats");
    }

    /// Decoding a four-byte UNORM8 format through its layout gives `decode_plain`'s
    /// texel for every byte value in every position.
    #[test]
    fn the_unorm8x4_decode_is_decode_plain() {
        let mut fast = 0;
        for code in 0..512u32 {
            let f = SurfaceFormat(code);
            let Ok(e) = entry(f) else { continue };
            let (Some(_), Kind::Plain(p)) = (e.unorm8, e.kind) else {
                continue;
            };
            fast += 1;
            for v in 0..=255u8 {
                let bytes = [v, v.wrapping_mul(7), v.wrapping_add(101), 255 - v];
                assert_eq!(
                    decode(f, &bytes).unwrap(),
                    decode_plain(e.name, &p, &bytes).unwrap(),
                    "{} {bytes:?}",
                    e.name
                );
            }
        }
        assert!(fast >= 3, "{fast} formats");
    }

    /// The whole-byte UINT formats decode and encode through their byte layout as
    /// `decode_plain` and `encode_plain` do, for every byte value and for values past
    /// 255 (clamped).
    #[test]
    fn the_uint8_layout_is_decode_and_encode_plain() {
        let mut fast = 0;
        for code in 0..512u32 {
            let f = SurfaceFormat(code);
            let Ok(e) = entry(f) else { continue };
            let (Some(u), Kind::Plain(p)) = (e.uint8, e.kind) else {
                continue;
            };
            fast += 1;
            for v in 0..=255u8 {
                let all = [v, v.wrapping_mul(7), v.wrapping_add(101), 255 - v];
                let bytes = &all[..u.bytes];
                assert_eq!(
                    decode(f, bytes).unwrap(),
                    decode_plain(e.name, &p, bytes).unwrap(),
                    "{} {bytes:?}",
                    e.name
                );
                let c = [u32::from(v), u32::from(v) * 3, 256 + u32::from(v), u32::MAX];
                let (mut fast_out, mut plain_out) = ([0xaau8; 16], [0x55u8; 16]);
                let n = encode_into(f, Texel::Uint(c), &mut fast_out).unwrap();
                let m = encode_plain(e.name, &p, Texel::Uint(c), &mut plain_out).unwrap();
                assert_eq!(
                    (n, &fast_out[..n]),
                    (m, &plain_out[..m]),
                    "{} {c:?}",
                    e.name
                );
            }
        }
        // R8_UINT, R8G8_UINT, R8G8B8A8_UINT, B8G8R8A8_UINT-like orders among them.
        assert!(fast >= 3, "{fast} formats");
        assert_eq!(
            decode(SurfaceFormat::R8G8B8A8_UINT, &[1, 2, 3, 4]),
            Ok(Texel::Uint([1, 2, 3, 4]))
        );
    }

    #[test]
    fn round_even_is_round_ties_even() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -1.5,
            -2.5,
            0.49999999999999994,
            127.5,
            128.5,
            254.5,
            255.0,
            4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            5e-324,
        ];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            xs.push(f32::from_bits(x as u32) as f64 * 255.0);
            xs.push((x % 100_000) as f64 / 4.0 - 12_500.0);
        }
        for v in xs {
            let (a, b) = (round_even(v), v.round_ties_even());
            assert!(a == b || (a.is_nan() && b.is_nan()), "{v}: {a} vs {b}");
        }
    }
}
