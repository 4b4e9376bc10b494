//! The pixel interpolator's answer for one PS thread (`crate::state::PiMessage` says
//! what the message asks and which public description it follows): each slot's
//! barycentrics at the asked position, as the payload's barycentric phases give them at
//! the pixel's own (`build_payload`: the same primitive, the same attribute
//! composition for clipped pieces).

use super::multisample::{Location, MsThread, sample_position};
use super::{Primitive, attribute_barycentrics, pixel_bias, prim_barycentrics};
use crate::state::{DrawState, PiLocation, PiMessage};

/// What a PS thread's pixel interpolator messages evaluate over.
#[derive(Clone, Copy)]
pub(in crate::draw) struct Interpolation<'a> {
    pub(super) st: &'a DrawState,
    pub(super) prim: &'a Primitive<'a>,
    /// Each slot's pixel.
    pub(super) slots: [(u32, u32); 32],
    /// The thread's samples, on a multisampled draw.
    pub(super) ms: Option<&'a MsThread>,
}

impl Interpolation<'_> {
    /// The response to `pi` with message payload `payload`: per 8 slots a register of
    /// b1 and one of b2 (perspective or linear, as `pi` asks); a slot whose position
    /// has no barycentrics (a degenerate primitive) reads 0.
    pub fn respond(&self, pi: &PiMessage, payload: &[[u8; 32]]) -> Vec<[u8; 32]> {
        let (st, prim) = (self.st, self.prim);
        let bias = pixel_bias(st);
        let mut out = vec![[0u8; 32]; 2 * pi.simd / 8];
        for i in 0..pi.simd {
            let s = (pi.first + i).min(31);
            let xy = self.slots[s];
            // The pixel's location (its centre under PIXLOC_CENTER), where an offset of
            // 0 gives the payload's own barycentrics.
            let pixel = [xy.0 as f32 + bias, xy.1 as f32 + bias];
            let at = match pi.location {
                PiLocation::Offset(o) => [pixel[0] + o[0], pixel[1] + o[1]],
                PiLocation::PerSlotOffset => {
                    let o = pi.slot_offset(payload, i);
                    [pixel[0] + o[0], pixel[1] + o[1]]
                }
                PiLocation::Sample(k) => sample_position(st, prim, xy, k),
                PiLocation::Centroid => match self.ms {
                    Some(m) => m.position(st, prim, xy, s, Location::Centroid),
                    None => pixel,
                },
            };
            let b = attribute_barycentrics(prim, prim_barycentrics(prim, at));
            let v = b.map_or([0.0; 2], |b| {
                if pi.perspective {
                    b.perspective
                } else {
                    b.linear
                }
            });
            let (pair, at) = (2 * (i / 8), 4 * (i % 8));
            out[pair][at..at + 4].copy_from_slice(&v[0].to_le_bytes());
            out[pair + 1][at..at + 4].copy_from_slice(&v[1].to_le_bytes());
        }
        out
    }
}
