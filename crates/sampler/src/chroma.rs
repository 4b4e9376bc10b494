//! Texel chroma keying (seed 000 §2.3.1): each texel sample a filter reads is tested
//! against the key range of the sampler's 3DSTATE_CHROMA_KEY entry (§2.12.6); "only if
//! all 4 channels are within range" does it match. A match is replaced with (0, 0, 0, 0)
//! (KEYFILTER_REPLACE_BLACK) or kills the pixel (KEYFILTER_KILL_ON_ANY_MATCH), which only
//! `sample+killpix` can report.
//!
//! "ChromaKey values are specified using 8-bit channels. When using surface formats with
//! less than 8 bits per channel, the device will expand channels by replicating the
//! required number of MSBs into the LSBs" (§2.12.6): for UNORM channels that expansion is
//! the channel's value times 255, rounded, which is how a decoded texel is compared here.
//! SNORM channels (keyed in sign-magnitude), YCrCb formats (keyed on interpolated
//! chrominance), channels wider than 8 bits and sRGB formats (whose decoded texels are
//! already linearized) are not modelled and fail as unsupported.

use crate::state::ChromaKey;
use gtsim_mem::format::texel::Texel;
use gtsim_spec::Unsupported;
use gtsim_spec::shared::SurfaceFormat;

/// A chroma key ready to test the texels of one surface format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keyer {
    /// KEYFILTER_KILL_ON_ANY_MATCH (else KEYFILTER_REPLACE_BLACK).
    pub kill: bool,
    /// The inclusive range per channel, red, green, blue, alpha.
    low: [u8; 4],
    high: [u8; 4],
}

/// The key's 8-bit channels in RGBA order from the "ARGB" layout of §2.12.6: A in 31:24,
/// R in 23:16, G in 15:8, B in 7:0.
fn rgba(v: u32) -> [u8; 4] {
    let [b, g, r, a] = v.to_le_bytes();
    [r, g, b, a]
}

/// Whether chroma keying of `format` is modelled: UNORM formats of channels at most 8
/// bits wide (the digits of the format's name), block-compressed UNORM formats included
/// (§2.12.6 keys "ARGB and BC (DXT) formats" alike).
fn keyable(format: SurfaceFormat) -> bool {
    let Some(name) = format.name() else {
        return false;
    };
    let Some(channels) = name.strip_suffix("_UNORM") else {
        return false;
    };
    channels
        .split(|c: char| !c.is_ascii_digit())
        .filter(|d| !d.is_empty())
        .all(|d| d.parse::<u32>().is_ok_and(|bits| bits <= 8))
}

impl Keyer {
    /// The key `key` for texels of `format`.
    pub fn new(key: ChromaKey, format: SurfaceFormat) -> Result<Keyer, Unsupported> {
        if !keyable(format) {
            return Err(Unsupported::new(
                format!(
                    "chroma keying of surface format {} (only UNORM formats of 8 bits or \
                     fewer per channel are modelled)",
                    format.name().unwrap_or("?")
                ),
                "seed 000 §2.3.1, §2.12.6",
            ));
        }
        Ok(Keyer {
            kill: key.kill,
            low: rgba(key.low),
            high: rgba(key.high),
        })
    }

    /// Whether texel `t` lies in the key range in all four channels.
    pub fn matches(&self, t: &Texel) -> bool {
        let Texel::Float(v) = t else {
            return false;
        };
        (0..4).all(|c| {
            let x = (v[c].clamp(0.0, 1.0) * 255.0).round() as u8;
            (self.low[c]..=self.high[c]).contains(&x)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_keyed_are_unorm_of_at_most_8_bits() {
        for f in [
            SurfaceFormat::R8G8B8A8_UNORM,
            SurfaceFormat::B5G6R5_UNORM,
            SurfaceFormat::BC1_UNORM,
        ] {
            assert!(keyable(f), "{:?}", f.name());
        }
        for f in [
            SurfaceFormat::R16_UNORM,
            SurfaceFormat::R10G10B10A2_UNORM,
            SurfaceFormat::R8G8B8A8_UNORM_SRGB,
            SurfaceFormat::R8G8B8A8_SNORM,
            SurfaceFormat::R32_FLOAT,
        ] {
            assert!(!keyable(f), "{:?}", f.name());
        }
    }

    /// Key: A 0xff..0xff, R 0x10..0x20, G 0x00..0xff, B 0x80..0x80. The texel (16, 200,
    /// 128, 255)/255 matches; one more in blue does not; red 0x21 does not.
    #[test]
    fn a_texel_matches_when_all_four_channels_are_in_range() {
        let k = Keyer::new(
            ChromaKey {
                kill: false,
                low: 0xff10_0080,
                high: 0xff20_ff80,
            },
            SurfaceFormat::R8G8B8A8_UNORM,
        )
        .unwrap();
        let t =
            |r: u8, g: u8, b: u8, a: u8| Texel::Float([r, g, b, a].map(|c| f32::from(c) / 255.0));
        assert!(k.matches(&t(0x10, 200, 0x80, 0xff)));
        assert!(k.matches(&t(0x20, 0, 0x80, 0xff)));
        assert!(!k.matches(&t(0x10, 200, 0x81, 0xff)));
        assert!(!k.matches(&t(0x21, 200, 0x80, 0xff)));
        assert!(!k.matches(&t(0x10, 200, 0x80, 0xfe)));
    }

    /// A 5-bit channel x expands to (x << 3) | (x >> 2) (§2.12.6 MSB replication): 16 is
    /// 132, which round(16 / 31 · 255) also gives.
    #[test]
    fn narrow_channels_compare_as_their_msb_replicated_bytes() {
        let k = Keyer::new(
            ChromaKey {
                kill: true,
                low: 0x0084_0000,
                high: 0xff84_ffff,
            },
            SurfaceFormat::B5G6R5_UNORM,
        )
        .unwrap();
        assert!(k.matches(&Texel::Float([16.0 / 31.0, 0.5, 0.5, 1.0])));
        assert!(!k.matches(&Texel::Float([17.0 / 31.0, 0.5, 0.5, 1.0])));
    }
}
