//! Texture address control (seed 000 §2.2.3 L601-662) and the coordinate-to-texel mapping
//! of the intra-level filters (§2.2.2 L537-601).
//!
//! The seed states every mode on the normalized coordinate range [0,1) (L603). A level of
//! `size` texels divides [0,1) into `size` cells, so texel `i` covers the normalized
//! interval [i/size, (i+1)/size). Applying a mode to the normalized coordinate and then
//! taking the texel is the same as taking the texel first and applying the mode below to
//! the integer texel index, which is the form used here: the filters first find their
//! taps (possibly outside the map), then resolve each tap through [`resolve`].
//!
//! Sizes are `u32`; a size of 0 (never a legal surface dimension, L412) is treated as 1 so
//! that no function divides by zero. Arithmetic is done in `i64`, so every `i32` index and
//! every `u32` size is handled exactly.

use crate::SamplerError;

/// TEXCOORDMODE_*: the per-axis address control.
///
/// Seed 000 §2.12.3.1 L3506-3514 (TCX Address Control Mode, shared by TCY/TCZ) lists the
/// values 0h-5h and 7h Reserved; the operation of each is §2.2.3 L609-616. The
/// TEXCOORDMODE_HALF_BORDER row of the §2.2.3 table (L612) has no value in the Gen7 field
/// table and is left out (as in the Ivy Bridge spec file surface.spec, enum TEXCOORDMODE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexCoordMode {
    /// 0h: repeat the map (§2.2.3.2 L634-636).
    Wrap = 0,
    /// 1h: repeat the map, flipping it at every integer junction (§2.2.3.1 L624-626).
    Mirror = 1,
    /// 2h: repeat the edge texel (§2.2.3.4 L642-644).
    Clamp = 2,
    /// 3h: cube maps, sample the adjoining face across an edge (§2.2.3.6 L658-660).
    Cube = 3,
    /// 4h: use the border colour outside the map (§2.2.3.5 L654-656).
    ClampBorder = 4,
    /// 5h: mirror once about the origin, then clamp (§2.2.3.3 L638-640).
    MirrorOnce = 5,
    /// 6h on Gen8+ (Mesa genxml gen11.xml TCM_HALF_BORDER): "Similar to CLAMP_BORDER
    /// except texels outside of the map are clamped to a value halfway between the edge
    /// texel and the border color" (seed 000 §2.2.3 L612; the Gen7 field table has no
    /// value for it): the coordinate is clamped to the map's edge, where a LINEAR
    /// footprint is half the edge texel and half the border ([`half_border_clamp`]), and
    /// taps outside are the border colour, as CLAMP_BORDER's.
    HalfBorder = 6,
}

impl TexCoordMode {
    /// Decodes the 3-bit field value. Seed 000 L3514: 6h and 7h are not defined for Gen7.
    pub fn from_raw(value: u32) -> Result<Self, SamplerError> {
        Ok(match value {
            0 => Self::Wrap,
            1 => Self::Mirror,
            2 => Self::Clamp,
            3 => Self::Cube,
            4 => Self::ClampBorder,
            5 => Self::MirrorOnce,
            _ => {
                return Err(SamplerError::Reserved {
                    field: "TCX/TCY/TCZ Address Control Mode",
                    value,
                    seed: "seed 000 §2.12.3.1 L3506-3514",
                });
            }
        })
    }
}

impl TexCoordMode {
    /// Decodes the Gen8+ field value: the Gen7 values and 6h, TEXCOORDMODE_HALF_BORDER.
    pub fn from_raw_gen8(value: u32) -> Result<Self, SamplerError> {
        if value == 6 {
            return Ok(Self::HalfBorder);
        }
        Self::from_raw(value)
    }
}

/// Where a texel tap lands after address control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    /// A texel inside the map, `0..size`.
    Texel(u32),
    /// Outside the map under TEXCOORDMODE_CLAMP_BORDER: the border colour is used
    /// (§2.2.3.5 L656).
    Border,
    /// Outside the face under TEXCOORDMODE_CUBE: the texel lies on an adjoining cube face
    /// (§2.2.3.6 L660). The tap is returned unchanged; face adjacency is not modelled.
    OffFace(i32),
}

fn size_i64(size: u32) -> i64 {
    i64::from(size.max(1))
}

/// Narrows a value known to be in `0..size` (size ≤ u32::MAX) back to `u32`.
fn to_texel(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(0)
}

/// TEXCOORDMODE_WRAP (§2.2.3.2 L636): "the integer part of the texture coordinate is
/// discarded, leaving only a fractional coordinate value". Discarding the integer part of
/// a negative coordinate keeps the fraction in [0,1) (−0.25 → 0.75, as for the repeat
/// shown in the L632 figure), so on texel indices this is the Euclidean remainder.
pub fn wrap(i: i32, size: u32) -> u32 {
    to_texel(i64::from(i).rem_euclid(size_i64(size)))
}

/// TEXCOORDMODE_MIRROR (§2.2.3.1 L626): "for U values between 0 and 1, the texture is
/// addressed normally, between 1 and 2 the texture is flipped (mirrored), between 2 and 3
/// the texture is normal again, and so on" — the map is flipped at *every* integer
/// junction, including 0, so [−1,0) is flipped and [−2,−1) normal again. On texel indices
/// the pattern has period `2*size`: the first `size` indices of a period address normally,
/// the next `size` in reverse.
pub fn mirror(i: i32, size: u32) -> u32 {
    let n = size_i64(size);
    let m = i64::from(i).rem_euclid(2 * n);
    to_texel(if m < n { m } else { 2 * n - 1 - m })
}

/// TEXCOORDMODE_MIRROR_ONCE (§2.2.3.3 L640): "The absolute value of the texture
/// coordinate component is first taken (thus mirroring about 0), and then the result is
/// clamped to 1.0." Texel `i < 0` covers [i, i+1); its absolute value covers
/// (−i−1, −i], which is texel `−i−1`. The clamp to 1.0 then repeats the last texel
/// (the edge texel, as TEXCOORDMODE_CLAMP does, since texel coordinates never reach 1.0).
pub fn mirror_once(i: i32, size: u32) -> u32 {
    let i = i64::from(i);
    let folded = if i < 0 { -i - 1 } else { i };
    to_texel(folded.min(size_i64(size) - 1))
}

/// TEXCOORDMODE_CLAMP (§2.2.3.4 L644): "repeats the 'edge' texel when the texture
/// coordinate extends outside the [0,1) range".
pub fn clamp(i: i32, size: u32) -> u32 {
    to_texel(i64::from(i).clamp(0, size_i64(size) - 1))
}

/// TEXCOORDMODE_CLAMP_BORDER (§2.2.3.5 L656): "BorderColor is to be used for any texel
/// samples that fall outside of the base map". `None` means the border colour.
pub fn clamp_border(i: i32, size: u32) -> Option<u32> {
    let i = i64::from(i);
    (0..size_i64(size)).contains(&i).then(|| to_texel(i))
}

/// Applies `mode` to the texel index `i` of an axis of `size` texels.
///
/// TEXCOORDMODE_CUBE inside the face addresses normally; outside it yields
/// [`Resolved::OffFace`], since selecting the adjoining face (§2.2.3.6 L660) needs the
/// cube geometry this crate does not model.
pub fn resolve(mode: TexCoordMode, i: i32, size: u32) -> Resolved {
    match mode {
        TexCoordMode::Wrap => Resolved::Texel(wrap(i, size)),
        TexCoordMode::Mirror => Resolved::Texel(mirror(i, size)),
        TexCoordMode::MirrorOnce => Resolved::Texel(mirror_once(i, size)),
        TexCoordMode::Clamp => Resolved::Texel(clamp(i, size)),
        TexCoordMode::ClampBorder => {
            clamp_border(i, size).map_or(Resolved::Border, Resolved::Texel)
        }
        TexCoordMode::HalfBorder => clamp_border(i, size).map_or(Resolved::Border, Resolved::Texel),
        TexCoordMode::Cube => clamp_border(i, size).map_or(Resolved::OffFace(i), Resolved::Texel),
    }
}

/// TEXCOORDMODE_HALF_BORDER's coordinate (§2.2.3 L612): a texel-space coordinate `t`
/// clamped to the map, `0..=size`, so that no value lies further than halfway between
/// the edge texel and the border colour (at the edge, a LINEAR footprint takes the edge
/// texel and the border half each).
pub fn half_border_clamp(t: f32, size: u32) -> f32 {
    t.clamp(0.0, size.max(1) as f32)
}

/// TEXCOORDMODE_HALF_BORDER under MAPFILTER_NEAREST: the texel of the coordinate
/// clamped to the map ([`half_border_clamp`]), the far edge (`t == size`) belonging to
/// the edge texel, so that a point sample never takes the border colour: "texels
/// outside of the map are clamped to a value halfway between the edge texel and the
/// border color" (seed 000 §2.2.3 L612) leaves a point sample no texel outside the map.
/// This is GL_CLAMP's NEAREST rule (GL 4.6 §8.14.2: u clamped to [0, size], then
/// i = min(floor(u), size - 1)), the wrap mode Mesa 22.3's iris programs as HALF_BORDER
/// (translate_wrap).
pub fn half_border_nearest(t: f32, size: u32) -> i32 {
    let last = i32::try_from(size.max(1) - 1).unwrap_or(i32::MAX);
    (half_border_clamp(t, size).floor() as i32).min(last)
}

/// The largest texel-space coordinate magnitude kept, 2^30. Beyond 2^24 every `f32` is an
/// integer, so the fraction (the filter weight) is already 0 there; saturating at 2^30
/// keeps `floor + 1` inside `i32`.
pub const COORD_LIMIT: f32 = 1_073_741_824.0;

/// Scales a normalized coordinate to texel space with the crate's numeric policy: NaN is
/// treated as 0.0 and the result saturates to ±[`COORD_LIMIT`].
pub fn texel_space(u: f32, size: u32) -> f32 {
    let u = if u.is_nan() { 0.0 } else { u };
    // `size as f32` is exact up to 2^24 and the seed's largest level is 8192 (L412).
    (u * size.max(1) as f32).clamp(-COORD_LIMIT, COORD_LIMIT)
}

/// MAPFILTER_NEAREST (§2.2.2.1 L556): "the texel with coordinates nearest to the pixel's
/// texture coordinate". Texel `i`'s centre is at `(i + 0.5)/size`, so the nearest texel is
/// the cell containing the coordinate: `floor(u * size)`.
pub fn nearest_tap(u: f32, size: u32) -> i32 {
    // Saturated to ±2^30 by `texel_space`, so the cast is exact.
    texel_space(u, size).floor() as i32
}

/// The two taps of MAPFILTER_LINEAR along one axis and the weight of the second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearTaps {
    /// The lower tap, `floor(u*size − 0.5)`; may lie outside the map.
    pub i0: i32,
    /// The upper tap, `i0 + 1`.
    pub i1: i32,
    /// The weight of `i1`, `frac(u*size − 0.5)` in [0,1); `i0` gets `1 − weight`.
    pub weight: f32,
}

/// MAPFILTER_LINEAR taps (§2.2.2.2 L558-571): "The four texels surrounding the pixel
/// center are chosen ... The filter weights each texel's contribution according to its
/// distance from the pixel center." The seed gives this only in prose and a figure
/// (B6879-01); the formula here is the reading of it with texel centres at
/// `(i + 0.5)/size` (the same centres [`nearest_tap`] uses): the two texels whose centres
/// bracket `u*size` are `floor(u*size − 0.5)` and the next, and the weight of the upper
/// one is the distance from the lower centre, `frac(u*size − 0.5)`.
pub fn linear_taps(u: f32, size: u32) -> LinearTaps {
    let t = texel_space(u, size) - 0.5;
    let floor = t.floor();
    let i0 = floor as i32;
    LinearTaps {
        i0,
        i1: i0.saturating_add(1),
        weight: t - floor,
    }
}
