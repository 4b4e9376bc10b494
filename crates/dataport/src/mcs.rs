//! The multisample control surface (MCS) of a compressed multisampled render target
//! (seed 004 §11.7, "MSAA Compression"): one element per pixel, 8 bits for 2x and 4x, 32
//! bits for 8x and 64 bits for Gen9+'s 16x (Mesa isl ISL_FORMAT_MCS_16X), that says in
//! which sample slice each sample's colour is stored.
//!
//! The seeds name the buffer but not its encoding. The public facts the sampler's
//! `ld_mcs`/`ld2dms` already follow (IVB PRM Vol2 Part1 "Multisample Control Surface";
//! Mesa's BLORP documents the same layout) are: log2(samples) bits per sample, sample 0
//! lowest, the field giving the slice that holds that sample's colour, and the all-ones
//! value meaning "cleared": every sample reads the SURFACE_STATE clear colour.
//!
//! Which compressed encodings the hardware writes is not public. The model writes the
//! one encoding whose meaning is certain, the identity (sample *n* in slice *n*): before
//! a pixel's samples are written it expands the pixel — each sample's colour is copied
//! into its own slice (the clear colour for a cleared pixel) — and sets its MCS to the
//! identity. Every reader the seeds define (`ld_mcs` + `ld2dms`, crocus's resolve
//! kernels, rendering that blends with the destination) then sees the colours the
//! hardware would give, which is what the render target's contents mean.

use crate::rt_message::{RenderTarget, texel_of};
use gtsim_mem::Memory;
use gtsim_mem::format::texel::Texel;
use gtsim_message::MessageError;

/// The MCS value of a pixel whose samples are each in their own slice: field n = n.
pub fn identity(samples: u32) -> u64 {
    let bits = samples.trailing_zeros();
    (0..samples).fold(0, |v, n| v | u64::from(n) << (n * bits))
}

/// The MCS value of a cleared pixel: all ones in the element (0xff for 2x and 4x,
/// 0xffffffff for 8x, all 64 bits for 16x).
pub fn cleared(samples: u32) -> u64 {
    match samples {
        16 => u64::MAX,
        8 => u64::from(u32::MAX),
        _ => 0xff,
    }
}

/// Bytes of one MCS element for `samples` per pixel.
pub fn element_bytes(samples: u32) -> usize {
    match samples {
        16 => 8,
        8 => 4,
        _ => 1,
    }
}

/// The slice holding sample `n` of a pixel with MCS `value`, `None` when the pixel is
/// cleared.
pub fn slice_of(value: u64, n: u32, samples: u32) -> Option<u32> {
    if value == cleared(samples) {
        return None;
    }
    let bits = samples.trailing_zeros();
    Some((value.checked_shr(n * bits).unwrap_or(0) & ((1 << bits) - 1)) as u32)
}

/// The bytes of `rt`'s clear colour in its format (SURFACE_STATE Red/Green/Blue/Alpha
/// Clear Color: one or zero, seed 004 §11.8; 1 for integer formats, 1.0 otherwise) and
/// their number.
pub fn clear_bytes(rt: &RenderTarget) -> Result<([u8; 16], usize), MessageError> {
    let cc = rt.clear_color;
    let t = match (rt.clear_value, texel_of(&rt.surface, [0; 4])?) {
        (Some(v), _) => texel_of(&rt.surface, v)?,
        (None, t) => match t {
            Texel::Float(_) => Texel::Float(cc.map(|on| f32::from(u8::from(on)))),
            Texel::Uint(_) => Texel::Uint(cc.map(u32::from)),
            Texel::Sint(_) => Texel::Sint(cc.map(i32::from)),
        },
    };
    let mut bytes = [0u8; 16];
    let n = gtsim_mem::format::texel::encode_into(rt.surface.format, t, &mut bytes).map_err(
        |error| MessageError::Texel {
            what: "clear colour".into(),
            error: error.into(),
        },
    )?;
    Ok((bytes, n))
}

/// Expands pixel (x, y) of `slice` of multisampled `rt` (see the module docs): after it,
/// sample n of the pixel is in slice n and its MCS is the identity. Without an MCS, or
/// for a pixel outside the surface, nothing is done.
pub fn expand(
    mem: &mut dyn Memory,
    rt: &RenderTarget,
    slice: u32,
    (x, y): (u32, u32),
) -> Result<(), MessageError> {
    let Some(mcs) = &rt.mcs else {
        return Ok(());
    };
    let samples = rt.surface.desc.samples;
    let fault = |fault| MessageError::Fault {
        what: format!("MCS of render target pixel ({x}, {y})"),
        fault,
    };
    let Ok(off) = mcs.desc.texel_offset(x, y, slice, 0, 0) else {
        return Ok(());
    };
    let width = (mcs.desc.block_bytes as usize).min(8);
    let mut raw = [0u8; 8];
    mem.read(mcs.base.wrapping_add(off), &mut raw[..width])
        .map_err(fault)?;
    let value = u64::from_le_bytes(raw);
    let id = identity(samples);
    if value == id {
        return Ok(());
    }
    let s = &rt.surface;
    let n = s.desc.block_bytes as usize;
    if !(1..=16).contains(&n) {
        return Err(MessageError::State {
            structure: "RENDER_SURFACE_STATE",
            why: format!("a multisampled render target of {n}-byte elements"),
        });
    }
    let addr = |k: u32| {
        s.desc
            .texel_offset(x, y, slice, rt.lod, k)
            .map(|o| s.base.wrapping_add(o))
            .map_err(|e| MessageError::Texel {
                what: format!("render target ({x}, {y}) sample {k}"),
                error: e.into(),
            })
    };
    let mut colours = [[0u8; 16]; crate::rt_samples::MAX_SAMPLES];
    let max = crate::rt_samples::MAX_SAMPLES as u32;
    for k in 0..samples.min(max) {
        match slice_of(value, k, samples) {
            None => colours[k as usize] = clear_bytes(rt)?.0,
            Some(j) if j < samples => {
                mem.read(addr(j)?, &mut colours[k as usize][..n])
                    .map_err(fault)?;
            }
            // A field naming a slice the surface does not have: the sampler reads zero
            // there (`ld2dms` of an absent slice).
            Some(_) => colours[k as usize] = [0; 16],
        }
    }
    for k in 0..samples.min(max) {
        mem.write(addr(k)?, &colours[k as usize][..n])
            .map_err(fault)?;
    }
    mem.write(mcs.base.wrapping_add(off), &id.to_le_bytes()[..width])
        .map_err(fault)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The identity worked by hand: 4x fields 0,1,2,3 of 2 bits = 0b11_10_01_00; 8x
    /// fields 0..7 of 3 bits = 0o76543210.
    #[test]
    fn identity_values() {
        assert_eq!(identity(4), 0b1110_0100);
        assert_eq!(identity(8), 0o7654_3210);
        assert_eq!(slice_of(0b0001_1011, 0, 4), Some(3));
        assert_eq!(slice_of(0b0001_1011, 3, 4), Some(0));
        assert_eq!(slice_of(0xff, 2, 4), None);
        assert_eq!(slice_of(0o7654_3210, 5, 8), Some(5));
        // 16x: fields 0..15 of 4 bits = 0xfedcba9876543210; field 11 of
        // 0x0000_b000_0000_0000 is 0xb; all 64 bits set is the cleared pixel.
        assert_eq!(identity(16), 0xfedc_ba98_7654_3210);
        assert_eq!(slice_of(0x0000_b000_0000_0000, 11, 16), Some(0xb));
        assert_eq!(slice_of(u64::MAX, 3, 16), None);
        assert_eq!(slice_of(u64::from(u32::MAX), 9, 16), Some(0));
        assert_eq!(element_bytes(16), 8);
    }
}
