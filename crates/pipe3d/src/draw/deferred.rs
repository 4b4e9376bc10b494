//! Primitives held back so that the pixel work of several runs at once.
//!
//! The hardware orders only the writes to one pixel: they happen in primitive order
//! (seed 000 ch.1; the pixel pipeline of seed 004 ch.11-12). Primitives that light
//! distinct pixels may therefore be shaded in any order, and so in parallel. The WM
//! holds back the small primitives of a draw as long as each lights pixels none of the
//! held ones lights ([`Claims`]), keeping an owned copy of each ([`Deferred`]), and then
//! shades all of them at once on the host's cores (`pixel::PixelStage::flush`): their
//! early depth tests in parallel, then all their threads as one list of dispatches, each
//! over its own overlay of memory, the writes applied in primitive and dispatch order.
//!
//! What is held back, and when the held primitives run, depends only on the primitives
//! (their pixels and sizes), never on the host's thread count, so the result is the
//! same whatever the number of threads.

use super::Vue;
use super::pixel::{Corner, Primitive, SourceTriangle};
use std::collections::HashMap;

/// Largest primitive (in lit pixels) held back; a larger one runs at once, its threads
/// in parallel batches of their own.
pub(super) const MAX_PIXELS: usize = 4096;

/// Most pixels held back in all (bounds the memory the overlays of one flush hold).
pub(super) const MAX_HELD_PIXELS: usize = 1 << 16;

/// Most primitives held back (bounds the memory their copies hold, with their VUEs,
/// however small they are).
pub(super) const MAX_HELD_PRIMITIVES: usize = 1024;

/// The pixels the held primitives light, by 8x8 tile: bit `(y % 8) * 8 + x % 8` of the
/// tile `(x / 8, y / 8)`.
#[derive(Default)]
pub(super) struct Claims {
    tiles: HashMap<(u32, u32), u64>,
}

impl Claims {
    /// Claims `pixels` if none of them is claimed yet; `false` (and nothing claimed)
    /// otherwise.
    pub fn claim(&mut self, pixels: &[(u32, u32)]) -> bool {
        let mine = tiles(pixels);
        if mine
            .iter()
            .any(|(t, m)| self.tiles.get(t).is_some_and(|held| held & m != 0))
        {
            return false;
        }
        for (t, m) in mine {
            *self.tiles.entry(t).or_insert(0) |= m;
        }
        true
    }

    /// Releases every claim.
    pub fn clear(&mut self) {
        self.tiles.clear();
    }
}

/// The tiles `pixels` touch with their masks (pixels of one row in a run share a tile
/// entry; a tile may appear several times).
fn tiles(pixels: &[(u32, u32)]) -> Vec<((u32, u32), u64)> {
    let mut out: Vec<((u32, u32), u64)> = Vec::with_capacity(pixels.len() / 4 + 1);
    for &(x, y) in pixels {
        let key = (x / 8, y / 8);
        let bit = 1u64 << ((y % 8) * 8 + x % 8);
        match out.last_mut() {
            Some(last) if last.0 == key => last.1 |= bit,
            _ => out.push((key, bit)),
        }
    }
    out
}

/// An owned copy of a [`Primitive`] (which borrows its vertices from the draw's current
/// chunk of vertices).
pub(super) struct Deferred {
    corners: Vec<([f32; 2], f32, f32)>,
    vues: Vec<Vue>,
    provoking_vue: Vue,
    back_facing: bool,
    primitive_id: u32,
    pixels: Vec<(u32, u32)>,
    point: Option<([f32; 2], f32)>,
    source: Option<OwnedSource>,
}

/// An owned [`SourceTriangle`]: its vertices' VUEs, and the piece's corners' perspective
/// and screen-linear barycentrics in it.
type OwnedSource = ([Vue; 3], [[f32; 3]; 3], [[f32; 3]; 3]);

impl Deferred {
    pub fn new(prim: &Primitive) -> Deferred {
        Deferred {
            corners: prim.corners.iter().map(|c| (c.xy, c.z, c.rhw)).collect(),
            vues: prim.corners.iter().map(|c| c.vue.clone()).collect(),
            provoking_vue: prim.provoking_vue.clone(),
            back_facing: prim.back_facing,
            primitive_id: prim.primitive_id,
            pixels: prim.pixels.to_vec(),
            point: prim.point,
            source: prim
                .source
                .as_ref()
                .map(|s| (s.vues.map(|v| v.clone()), s.perspective, s.linear)),
        }
    }

    /// The primitive again.
    pub fn view(&self) -> Primitive<'_> {
        Primitive {
            corners: self
                .corners
                .iter()
                .zip(&self.vues)
                .map(|(&(xy, z, rhw), vue)| Corner { xy, z, rhw, vue })
                .collect(),
            provoking_vue: &self.provoking_vue,
            back_facing: self.back_facing,
            primitive_id: self.primitive_id,
            pixels: std::borrow::Cow::Borrowed(&self.pixels),
            // Multisampled primitives are never held back.
            coverage: std::borrow::Cow::Borrowed(&[]),
            // Anti-aliased lines are never held back either.
            aa_line: None,
            point: self.point,
            source: self
                .source
                .as_ref()
                .map(|(vues, perspective, linear)| SourceTriangle {
                    vues: [&vues[0], &vues[1], &vues[2]],
                    perspective: *perspective,
                    linear: *linear,
                }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_refuse_any_shared_pixel_and_nothing_else() {
        let mut c = Claims::default();
        // Two triangles of a quad split along its diagonal: distinct pixels in shared
        // tiles.
        let lower: Vec<(u32, u32)> = (0..16).flat_map(|y| (0..=y).map(move |x| (x, y))).collect();
        let upper: Vec<(u32, u32)> = (0..16)
            .flat_map(|y| (y + 1..16).map(move |x| (x, y)))
            .collect();
        assert!(c.claim(&lower));
        assert!(c.claim(&upper));
        // Any pixel of either is refused, and a refused claim takes nothing.
        assert!(!c.claim(&[(20, 20), (15, 15)]));
        assert!(c.claim(&[(20, 20)]));
        assert!(!c.claim(&[(0, 0)]));
        assert!(!c.claim(&[(15, 0)]));
        c.clear();
        assert!(c.claim(&lower));
    }
}
