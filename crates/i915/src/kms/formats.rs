//! What each plane scans out: its pixel formats and modifiers on each platform, as
//! Linux 6.1's i915 lists them (i9xx_plane.c `i965_primary_formats` and
//! `i9xx_format_modifiers` for Ivy Bridge's primary plane, skl_universal_plane.c
//! `icl_hdr_plane_formats` and `skl_plane_format_modifiers_ccs` for Ice Lake's,
//! intel_cursor.c `intel_cursor_formats` for both cursors), less what the scanout here
//! cannot convert: C8 (a palette through the gamma table), the 16-bit float formats and
//! Ice Lake's YUV formats, and Ice Lake's Yf tiling. Such a framebuffer is refused at
//! ADDFB2 (EINVAL) as one no plane takes; the plane lists say only what is converted.
//! The IN_FORMATS blob ([`in_formats_blob`]) carries the same lists.

use crate::platform::Platform;

/// A fourcc code.
pub(crate) const fn fourcc(s: &[u8; 4]) -> u32 {
    s[0] as u32 | (s[1] as u32) << 8 | (s[2] as u32) << 16 | (s[3] as u32) << 24
}

/// DRM_FORMAT_XRGB8888.
pub const XRGB8888: u32 = fourcc(b"XR24");
/// DRM_FORMAT_ARGB8888.
pub const ARGB8888: u32 = fourcc(b"AR24");
/// DRM_FORMAT_XBGR8888.
pub const XBGR8888: u32 = fourcc(b"XB24");
/// DRM_FORMAT_ABGR8888.
pub const ABGR8888: u32 = fourcc(b"AB24");
/// DRM_FORMAT_RGB565.
pub const RGB565: u32 = fourcc(b"RG16");
/// DRM_FORMAT_XRGB2101010.
pub const XRGB2101010: u32 = fourcc(b"XR30");
/// DRM_FORMAT_XBGR2101010.
pub const XBGR2101010: u32 = fourcc(b"XB30");
/// DRM_FORMAT_ARGB2101010.
pub const ARGB2101010: u32 = fourcc(b"AR30");
/// DRM_FORMAT_ABGR2101010.
pub const ABGR2101010: u32 = fourcc(b"AB30");

/// DRM_FORMAT_MOD_LINEAR.
pub const MOD_LINEAR: u64 = 0;
/// I915_FORMAT_MOD_X_TILED.
pub const MOD_X_TILED: u64 = 1 << 56 | 1;
/// I915_FORMAT_MOD_Y_TILED.
pub const MOD_Y_TILED: u64 = 1 << 56 | 2;
/// I915_FORMAT_MOD_Y_TILED_CCS: Y-tiled with a render-compression control surface in
/// a second plane of the same object (Gen9 to Gen11 display).
pub const MOD_Y_TILED_CCS: u64 = 1 << 56 | 4;

/// Ivy Bridge's primary plane formats (i965_primary_formats, less C8 and XBGR16161616F).
const IVB_PRIMARY: [u32; 5] = [RGB565, XRGB8888, XBGR8888, XRGB2101010, XBGR2101010];
/// Ice Lake's primary plane formats (icl_hdr_plane_formats, its RGB formats of 16 and
/// 32 bits).
const ICL_PRIMARY: [u32; 9] = [
    RGB565,
    XRGB8888,
    XBGR8888,
    ARGB8888,
    ABGR8888,
    XRGB2101010,
    XBGR2101010,
    ARGB2101010,
    ABGR2101010,
];
/// The cursor's one format (intel_cursor_formats).
const CURSOR: [u32; 1] = [ARGB8888];

/// The formats plane `primary` (or the cursor) takes on `platform`.
pub fn plane_formats(platform: Platform, primary: bool) -> &'static [u32] {
    match (primary, platform) {
        (false, _) => &CURSOR,
        (true, Platform::IvyBridge) => &IVB_PRIMARY,
        (true, Platform::IceLake) => &ICL_PRIMARY,
    }
}

/// The modifiers a plane takes on `platform`.
pub fn plane_modifiers(platform: Platform, primary: bool) -> &'static [u64] {
    match (primary, platform) {
        (false, _) => &[MOD_LINEAR],
        (true, Platform::IvyBridge) => &[MOD_X_TILED, MOD_LINEAR],
        (true, Platform::IceLake) => &[MOD_Y_TILED_CCS, MOD_Y_TILED, MOD_X_TILED, MOD_LINEAR],
    }
}

/// Whether a plane takes `format` with `modifier` (the plane's format_mod_supported:
/// CCS only for the 8-bit-per-channel RGB formats, skl_plane_format_mod_supported).
pub fn plane_takes(platform: Platform, primary: bool, format: u32, modifier: u64) -> bool {
    plane_formats(platform, primary).contains(&format)
        && plane_modifiers(platform, primary).contains(&modifier)
        && (modifier != MOD_Y_TILED_CCS
            || matches!(format, XRGB8888 | XBGR8888 | ARGB8888 | ABGR8888))
}

/// Whether any plane takes `format` with `modifier` (drm_any_plane_has_format, which
/// intel_framebuffer_init asks of a new framebuffer).
pub fn any_plane_takes(platform: Platform, format: u32, modifier: u64) -> bool {
    plane_takes(platform, true, format, modifier) || plane_takes(platform, false, format, modifier)
}

/// Bytes per pixel of the main plane of a format the planes take.
pub fn cpp(format: u32) -> Option<u32> {
    match format {
        XRGB8888 | ARGB8888 | XBGR8888 | ABGR8888 | XRGB2101010 | XBGR2101010 | ARGB2101010
        | ABGR2101010 => Some(4),
        RGB565 => Some(2),
        _ => None,
    }
}

/// A pixel of `format` (its little-endian bytes in `v`) as 8-bit red, green, blue and
/// alpha (alpha 255 for the X formats): 5- and 6-bit channels widened by replicating
/// their top bits, 10-bit ones narrowed to their top 8.
pub fn to_rgba8(format: u32, v: u32) -> [u8; 4] {
    let ten = |c: u32| (c >> 2) as u8;
    let two = |a: u32| (a * 85) as u8;
    match format {
        XRGB8888 => [(v >> 16) as u8, (v >> 8) as u8, v as u8, 255],
        ARGB8888 => [(v >> 16) as u8, (v >> 8) as u8, v as u8, (v >> 24) as u8],
        XBGR8888 => [v as u8, (v >> 8) as u8, (v >> 16) as u8, 255],
        ABGR8888 => [v as u8, (v >> 8) as u8, (v >> 16) as u8, (v >> 24) as u8],
        XRGB2101010 => [
            ten(v >> 20 & 0x3ff),
            ten(v >> 10 & 0x3ff),
            ten(v & 0x3ff),
            255,
        ],
        ARGB2101010 => [
            ten(v >> 20 & 0x3ff),
            ten(v >> 10 & 0x3ff),
            ten(v & 0x3ff),
            two(v >> 30),
        ],
        XBGR2101010 => [
            ten(v & 0x3ff),
            ten(v >> 10 & 0x3ff),
            ten(v >> 20 & 0x3ff),
            255,
        ],
        ABGR2101010 => [
            ten(v & 0x3ff),
            ten(v >> 10 & 0x3ff),
            ten(v >> 20 & 0x3ff),
            two(v >> 30),
        ],
        _ => {
            let (r, g, b) = (v >> 11 & 31, v >> 5 & 63, v & 31);
            [
                (r << 3 | r >> 2) as u8,
                (g << 2 | g >> 4) as u8,
                (b << 3 | b >> 2) as u8,
                255,
            ]
        }
    }
}

/// The IN_FORMATS blob of a plane (struct drm_format_modifier_blob, drm_mode.h, as
/// create_in_format_blob builds it): version 1, the formats at byte 24, then, 8-byte
/// aligned, one struct drm_format_modifier per modifier with the mask of the formats it
/// takes (offset 0: the first 64 formats).
pub fn in_formats_blob(platform: Platform, primary: bool) -> Vec<u8> {
    let formats = plane_formats(platform, primary);
    let modifiers = plane_modifiers(platform, primary);
    let formats_offset = 24u32;
    let modifiers_offset = formats_offset + (4 * formats.len() as u32).div_ceil(8) * 8;
    let mut b = Vec::new();
    for w in [
        1,
        0,
        formats.len() as u32,
        formats_offset,
        modifiers.len() as u32,
        modifiers_offset,
    ] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    for f in formats {
        b.extend_from_slice(&f.to_le_bytes());
    }
    b.resize(modifiers_offset as usize, 0);
    for &m in modifiers {
        let mask = formats
            .iter()
            .enumerate()
            .filter(|(_, f)| plane_takes(platform, primary, **f, m))
            .fold(0u64, |mask, (i, _)| mask | 1 << i);
        b.extend_from_slice(&mask.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&m.to_le_bytes());
    }
    b
}
