//! Pixel interpolator messages (SFID 11, "pixel interp"): a pixel shader asks for the
//! barycentric coordinates of its slots at another position than the payload's, for
//! GLSL's interpolateAtSample and interpolateAtOffset.
//!
//! No seed describes this shared function (seed 000 §1.5 does not list it; seed 003
//! names only its SFID). What is modelled is the public description Mesa programs it
//! by (the Haswell and Skylake PRMs' "Shared Functions - Pixel Interpolater", as Mesa's
//! `brw_pixel_interp_desc`, `GFX7_PIXEL_INTERPOLATOR_LOC_*` and
//! `lower_interpolator_logical_send` encode it), the same on Ivy Bridge and Gen11:
//!
//! * descriptor bits 13:12 the location: 0 an offset shared by the message (bits 3:0 X
//!   and 7:4 Y, signed sixteenths of a pixel, S0.4), 1 a sample's position (sample
//!   index in bits 7:4), 2 the centroid, 3 an offset per slot (the payload: X then Y,
//!   each a signed integer in sixteenths, one register per 8 slots);
//! * bit 14 set for linear (noperspective) barycentrics, clear for perspective ones;
//! * bit 16 SIMD16 (else SIMD8); bit 11 the slot group (slots 16-31 of a SIMD32
//!   thread); bit 15 (coarse pixel rate, Gen11's coarse pixel shading) is refused;
//! * the response: the barycentrics (b1, b2) of each slot in the layout of the pixel
//!   shader payload's barycentric phases (seed 004 §11.10.3.1): per 8 slots, a register
//!   of b1 then a register of b2.
//!
//! Offsets are from the pixel's centre; a sample's position is that of the draw's
//! sample pattern (the pixel's centre on a single-sampled draw).

use crate::state::MessageKind;
use gtsim_eu::exec::Message;
use gtsim_spec::Unsupported;

/// Where a pixel interpolator message evaluates the barycentrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PiLocation {
    /// The pixel's centre plus this offset, in pixels (the message's shared offset).
    Offset([f32; 2]),
    /// Each slot's centre plus its own offset, from the payload.
    PerSlotOffset,
    /// The position of this sample of the pattern.
    Sample(u32),
    /// The slot's centroid.
    Centroid,
}

/// A pixel interpolator message, decoded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PiMessage {
    /// Where.
    pub location: PiLocation,
    /// Perspective-correct barycentrics (descriptor bit 14 clear) or linear ones.
    pub perspective: bool,
    /// Slots: 8 or 16.
    pub simd: usize,
    /// The first slot (16 for the second half of a SIMD32 thread, descriptor bit 11).
    pub first: usize,
}

/// A signed 4-bit field (S0.4 sixteenths of a pixel) as pixels.
fn s0_4(v: u32) -> f32 {
    (((v & 0xf) as i32) << 28 >> 28) as f32 / 16.0
}

impl PiMessage {
    /// The message `m` to the pixel interpolator (see the module docs), or why it is
    /// not one the model carries out.
    pub fn decode(m: &Message) -> MessageKind {
        let d = m.desc;
        if d & (1 << 15) != 0 {
            return MessageKind::Unsupported(Unsupported::new(
                format!("a pixel interpolator message at coarse pixel rate (descriptor {d:#010x})"),
                "Mesa brw_pixel_interp_desc (a Gen10+ field; no seed describes the pixel interpolator)",
            ));
        }
        let simd = if d & (1 << 16) != 0 { 16 } else { 8 };
        let location = match (d >> 12) & 3 {
            0 => PiLocation::Offset([s0_4(d), s0_4(d >> 4)]),
            1 => PiLocation::Sample((d >> 4) & 0xf),
            2 => PiLocation::Centroid,
            _ => PiLocation::PerSlotOffset,
        };
        let response = 2 * simd / 8;
        if usize::from(m.response_length) != response {
            return MessageKind::Invalid(gtsim_message::invalid(format!(
                "a SIMD{simd} pixel interpolator message returns {response} registers (b1 and \
                 b2 per 8 slots), not {}",
                m.response_length
            )));
        }
        if location == PiLocation::PerSlotOffset && m.payload.len() < response {
            return MessageKind::Invalid(gtsim_message::invalid(format!(
                "a SIMD{simd} per-slot-offset pixel interpolator message carries {response} \
                 registers of offsets (X then Y), not {}",
                m.payload.len()
            )));
        }
        MessageKind::PixelInterpolator(PiMessage {
            location,
            perspective: d & (1 << 14) == 0,
            simd,
            first: if d & (1 << 11) != 0 { 16 } else { 0 },
        })
    }

    /// Slot `first + s`'s per-slot offset in pixels, from `payload` (X registers, then
    /// Y).
    pub fn slot_offset(&self, payload: &[[u8; 32]], s: usize) -> [f32; 2] {
        let per = self.simd / 8;
        let at = |c: usize| {
            let r = &payload[c * per + s / 8];
            let i = 4 * (s % 8);
            i32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]) as f32 / 16.0
        };
        [at(0), at(1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(desc: u32, rlen: u8, payload: &[[u8; 32]]) -> Message {
        Message {
            sfid: gtsim_isa::ir::Sfid::PixelInterpolator,
            desc,
            ex_desc: 0,
            payload2: gtsim_message::Payload::new(),
            exec_size: 16,
            channel_mask: 0xffff,
            first_channel: 0,
            payload: payload.iter().copied().collect(),
            response_length: rlen,
            dst: 0,
            eot: false,
            ip: 0,
        }
    }

    /// Descriptors crocus sent in piglit's interpolateAt* tests, decoded by hand:
    /// 0x02411020 (mlen 1, rlen 4, SIMD16, mode 1, data 0x20): sample 2, perspective;
    /// 0x02410008: SIMD16 shared offset X = 8 as S0.4 = -8/16, Y 0; 0x0241_4000 would be
    /// linear; 0x08413000: SIMD16 per-slot offsets (mlen 4).
    #[test]
    fn descriptors_decode_as_mesa_builds_them() {
        let k = |desc, rlen, payload: &[[u8; 32]]| PiMessage::decode(&message(desc, rlen, payload));
        assert_eq!(
            k(0x0241_1020, 4, &[[0; 32]]),
            MessageKind::PixelInterpolator(PiMessage {
                location: PiLocation::Sample(2),
                perspective: true,
                simd: 16,
                first: 0
            })
        );
        assert_eq!(
            k(0x0241_0008, 4, &[[0; 32]]),
            MessageKind::PixelInterpolator(PiMessage {
                location: PiLocation::Offset([-0.5, 0.0]),
                perspective: true,
                simd: 16,
                first: 0
            })
        );
        // X 7/16 (0x7), Y -1/16 (0xf), linear, SIMD8.
        assert_eq!(
            k(0x0220_40f7, 2, &[[0; 32]]),
            MessageKind::PixelInterpolator(PiMessage {
                location: PiLocation::Offset([7.0 / 16.0, -1.0 / 16.0]),
                perspective: false,
                simd: 8,
                first: 0
            })
        );
        assert!(matches!(
            k(0x0841_3000, 4, &[[0; 32]; 4]),
            MessageKind::PixelInterpolator(PiMessage {
                location: PiLocation::PerSlotOffset,
                ..
            })
        ));
        // A per-slot message without its offsets, a wrong response length, a Gen10+
        // coarse-rate form.
        assert!(matches!(
            k(0x0841_3000, 4, &[[0; 32]]),
            MessageKind::Invalid(gtsim_message::MessageError::Invalid(why))
                if why.contains("per-slot-offset") && why.contains("4 registers of offsets")
                    && why.ends_with("not 1")
        ));
        assert!(matches!(
            k(0x0241_1020, 2, &[[0; 32]]),
            MessageKind::Invalid(gtsim_message::MessageError::Invalid(why))
                if why.contains("SIMD16 pixel interpolator message returns 4 registers")
                    && why.ends_with("not 2")
        ));
        assert!(matches!(
            k(0x0241_9020, 4, &[[0; 32]]),
            MessageKind::Unsupported(u)
                if u.what.contains("coarse pixel rate (descriptor 0x02419020)")
                    && u.reference.contains("brw_pixel_interp_desc")
        ));
        // Bit 11: slots 16-31.
        assert!(matches!(
            k(0x0241_1820, 4, &[[0; 32]]),
            MessageKind::PixelInterpolator(PiMessage { first: 16, .. })
        ));
    }

    /// SIMD16 per-slot offsets: X in registers 0-1 (slots 0-7, 8-15), Y in 2-3, signed
    /// sixteenths: slot 9's X is dword 1 of register 1, its Y dword 1 of register 3.
    #[test]
    fn per_slot_offsets_are_read_x_then_y() {
        let mut regs = [[0u8; 32]; 4];
        regs[1][4..8].copy_from_slice(&(-8i32).to_le_bytes());
        regs[3][4..8].copy_from_slice(&7i32.to_le_bytes());
        let pi = PiMessage {
            location: PiLocation::PerSlotOffset,
            perspective: true,
            simd: 16,
            first: 0,
        };
        assert_eq!(pi.slot_offset(&regs, 9), [-0.5, 7.0 / 16.0]);
        assert_eq!(pi.slot_offset(&regs, 1), [0.0, 0.0]);
    }
}
