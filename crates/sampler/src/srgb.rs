//! Texel colour gamma linearization (seed 000 §2.6 L724-728).
//!
//! The seed: for a surface format with "_SRGB" in its name, "the pre-filtered texel RGB
//! color \[is\] converted from gamma=2.4 space to gamma=1.0 space by applying a (1/2.4) =
//! 0.4167 exponential function" — RGB only, not alpha (L726), and before filtering.
//!
//! The sentence names the encoding exponent (1/2.4) of the sRGB curve; undoing it raises
//! to the power 2.4. The seed gives no more detail; this model uses the sRGB decode curve
//! that exponent belongs to (IEC 61966-2-1): `c/12.92` for `c ≤ 0.04045`, otherwise
//! `((c + 0.055)/1.055)^2.4`.
//!
//! The sampler's messages do not call these: the texels they filter come linear from
//! `gtsim_mem` (`texel::decode` for uncompressed `_SRGB` formats, `Surface::read_texel_at`
//! for the block-compressed ones, both through `texel::srgb_to_linear`). This module is
//! the curve as a standalone function for callers outside the message path.

/// Converts one sRGB-encoded channel in \[0,1\] to linear. Inputs are clamped to \[0,1\]
/// first (UNORM texels cannot lie outside it); NaN reads as 0.
pub fn srgb_to_linear(c: f32) -> f32 {
    let c = if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) };
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linearizes the RGB channels of a texel, leaving alpha (§2.6 L726: "RGB (not A)").
pub fn linearize_texel(texel: [f32; 4]) -> [f32; 4] {
    [
        srgb_to_linear(texel[0]),
        srgb_to_linear(texel[1]),
        srgb_to_linear(texel[2]),
        texel[3],
    ]
}
