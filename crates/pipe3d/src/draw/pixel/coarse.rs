//! Coarse pixel shading (seed 003 3DSTATE_CPS_BODY, 3DSTATE_PS_EXTRA_BODY Pixel Shader
//! Is Per Coarse Pixel): the pixel shader runs once per coarse pixel and its render
//! target writes reach every pixel the coarse pixel stands for.
//!
//! The model, from the seed and from what the drivers that use it rely on:
//!
//! * Coarse pixels are `size` blocks of pixels aligned to multiples of their size ("Coarse
//!   Pixel Shading Ratios are defined per DRAW ... constant across render target").
//! * A coarse pixel is lit when the object covers one of its pixels and that pixel passed
//!   the depth and stencil test before the shader; the test stays per pixel.
//! * Threads take 2x2 quads of coarse pixels the way per-pixel dispatch takes 2x2
//!   subspans of pixels: four slots per quad, the quad's upper-left pixel as the
//!   subspan position in the payload, the lit coarse pixels as the pixel mask, and the
//!   actual coarse pixel size in R1.0 (width 7:0, height 15:8: Mesa's Gen11 compiler
//!   builds each channel's position as the subspan position plus 0 or the size,
//!   brw_fs_visitor.cpp emit_interpolation_setup_gfx6).
//! * Barycentrics, source depth and source W are evaluated at the centre of the coarse
//!   pixel (Microsoft's Variable Rate Shading specification, the D3D12 contract this
//!   hardware implements: attributes of a coarse pixel are interpolated at its centre).
//!   The centre of a block of pixel centres is the mean of those centres.
//! * With Pixel Shader Requires Source Depth and/or W Plane Coefficients the payload
//!   carries, after the per-slot phases, one register with the source depth's plane
//!   (Mesa brw_fs_thread_payload.cpp `depth_w_coef_reg`; brw_fs_visitor.cpp reads
//!   dword 0 as Z's y coefficient, 1 as its x coefficient, 2 as the x and 6 as the y of
//!   the point the plane starts from, 3 as Z there). The model starts the plane at the
//!   object's vertex 0. Where W's coefficients go in that register no public source
//!   says (Mesa reads only Z's); the model leaves dwords 4, 5 and 7 zero.
//! * Render target writes are coarse writes (descriptor bit 18): each slot's colour
//!   goes to each of its coarse pixel's lit pixels
//!   (`gtsim_dataport::rt_path::CoarseWrites`).
//!
//! * When the depth and stencil test comes after the shader (a shader that kills
//!   pixels), each pixel of a coarse pixel is tested at its own source depth at the
//!   first render target write, and the writes reach the pixels that pass. A shader
//!   that computes depth is a state error ("When PS dispatch rate is COARSE_RATE, this
//!   field must be programmed to PSCDEPTH_OFF").
//!
//! Refused by name, since the seed does not give what they need: multisampled render
//! targets, computed stencil, centroid and sample barycentrics, position offsets and
//! input coverage masks in a coarse payload, and anti-aliased lines.

use super::{Primitive, Subspan, ThreadContext, rt_mode, subspans, unsupported};
use crate::draw::{DrawError, Statistics, Watchdog};
use crate::state::{DrawState, Front, PositionOffset};
use gtsim_dataport::rt_path::CoarseWrites;
use gtsim_mem::Memory;
use std::collections::BTreeMap;

const SEED: &str =
    "seed 003 3DSTATE_CPS_BODY, 3DSTATE_PS_EXTRA_BODY Pixel Shader Is Per Coarse Pixel";

/// The coarse pixels a primitive lights: per coarse pixel (by its coordinates in
/// coarse pixels), the pixels of it that are lit, bit `dy * width + dx`.
pub(in crate::draw) struct CoarseMap {
    size: (u32, u32),
    masks: BTreeMap<(u32, u32), u16>,
}

impl CoarseMap {
    /// The coarse pixels of `size` that `pixels` light, and their coordinates `(cx,
    /// cy)` in raster order.
    fn new(size: (u32, u32), pixels: &[(u32, u32)]) -> (CoarseMap, Vec<(u32, u32)>) {
        let (w, h) = size;
        let mut masks: BTreeMap<(u32, u32), u16> = BTreeMap::new();
        for &(x, y) in pixels {
            *masks.entry((y / h, x / w)).or_default() |= 1 << ((y % h) * w + x % w);
        }
        let order = masks.keys().map(|&(cy, cx)| (cx, cy)).collect();
        (CoarseMap { size, masks }, order)
    }

    /// For slots at coarse pixel coordinates `slots`, `lit` of them lit: each slot's
    /// upper-left pixel, and the pixels its writes reach (none for a helper slot).
    pub(super) fn writes(
        &self,
        slots: &[(u32, u32); 32],
        lit: u32,
    ) -> ([(u32, u32); 32], CoarseWrites) {
        let (w, h) = self.size;
        let mut pixels = [0u16; 32];
        for (s, &(cx, cy)) in slots.iter().enumerate() {
            if lit & (1 << s) != 0 {
                pixels[s] = self.masks.get(&(cy, cx)).copied().unwrap_or(0);
            }
        }
        (
            slots.map(|(cx, cy)| (cx * w, cy * h)),
            CoarseWrites {
                size: self.size,
                pixels,
            },
        )
    }
}

/// Shades one primitive per coarse pixel (see the module docs).
pub(super) fn shade(
    stage: &mut super::PixelStage,
    st: &DrawState,
    front: &dyn Front,
    mem: &mut dyn Memory,
    prim: &Primitive,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
) -> Result<(), DrawError> {
    let Some(coarse) = st.ps.coarse else {
        unreachable!("the coarse path runs for coarse dispatch only");
    };
    if st.multisample.samples > 1 {
        return Err(unsupported(
            "coarse pixel shading on a multisampled render target",
            SEED,
        ));
    }
    // Seed 003 3DSTATE_PS_EXTRA Pixel Shader Computed Depth Mode: "When PS dispatch
    // rate is COARSE_RATE, this field must be programmed to PSCDEPTH_OFF."
    if st.ps.computes_depth {
        return Err(DrawError::State {
            command: "3DSTATE_PS_EXTRA",
            why: "Pixel Shader Computed Depth Mode is not PSCDEPTH_OFF with the pixel shader dispatched per coarse pixel (seed 003 3DSTATE_PS_EXTRA_BODY: it must be)".into(),
        });
    }
    if st.ps.computes_stencil {
        return Err(unsupported(
            "a pixel shader computing stencil, dispatched per coarse pixel",
            SEED,
        ));
    }
    // Bits 1, 2, 4 and 5: the centroid and sample barycentrics.
    if st.ps.barycentric_modes & 0b11_0110 != 0
        || st.ps.position_offset != PositionOffset::None
        || st.ps.input_coverage
    {
        return Err(unsupported(
            "centroid or sample barycentrics, position offsets or input coverage masks in a coarse pixel payload",
            SEED,
        ));
    }
    if prim.aa_line.is_some() {
        return Err(unsupported(
            "coarse pixel shading of anti-aliased lines",
            SEED,
        ));
    }
    let Some(passed) = stage.early_passed(st, mem, prim)? else {
        return Ok(());
    };
    let Some(k) = &stage.kernel else {
        stats.ps_depth_count += passed.len() as u64;
        return Ok(());
    };
    if k.simd == 32 {
        return Err(DrawError::State {
            command: "3DSTATE_PS",
            why: "only a SIMD32 kernel is enabled, and coarse pixel dispatch cannot use SIMD32 (seed 003 3DSTATE_PS_EXTRA Pixel Shader Is Per Coarse Pixel)".into(),
        });
    }
    let (map, coarse_pixels) = CoarseMap::new(coarse.size, &passed);
    let quads: Vec<Subspan> = subspans(&coarse_pixels);
    if st.ps.statistics {
        // PS_INVOCATION_COUNT counts the shader's invocations: coarse pixels, helpers
        // of the quads included.
        stats.ps_invocations += 4 * quads.len() as u64;
    }
    let setup = super::attribute_deltas(st, prim)?;
    let ctx = ThreadContext {
        st,
        front,
        prim,
        kernel: k,
        setup: &setup,
        late: stage.depth.as_ref().filter(|_| stage.late),
        mode: rt_mode(st),
        replays: super::Replays::new(&k.prog, k.grf_start),
        coarse: Some(&map),
    };
    let groups: Vec<&[Subspan]> = quads.chunks(k.simd / 4).collect();
    super::dispatch(&ctx, &groups, k, mem, &mut stage.targets, stats, watchdog)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_fall_in_the_coarse_pixels_aligned_to_their_size() {
        // A 2x2 coarse grid: pixel (3, 1) is in coarse pixel (1, 0) as its lower right
        // pixel (bit 1 * 2 + 1 = 3); (4, 1) starts coarse pixel (2, 0) as its lower left
        // (bit 2); (0, 2) is coarse pixel (0, 1)'s upper left (bit 0).
        let (map, order) = CoarseMap::new((2, 2), &[(3, 1), (4, 1), (0, 2), (2, 0)]);
        assert_eq!(order, vec![(1, 0), (2, 0), (0, 1)]);
        assert_eq!(map.masks[&(0, 1)], 0b1001);
        assert_eq!(map.masks[&(0, 2)], 0b0100);
        assert_eq!(map.masks[&(1, 0)], 0b0001);
        // 4x2: pixel (7, 1) is coarse pixel (1, 0)'s bit 1 * 4 + 3.
        let (map, _) = CoarseMap::new((4, 2), &[(7, 1)]);
        assert_eq!(map.masks[&(0, 1)], 1 << 7);
    }

    #[test]
    fn slots_take_their_coarse_pixels_origin_and_lit_pixels() {
        let (map, order) = CoarseMap::new((2, 2), &[(2, 0), (3, 0), (2, 1)]);
        assert_eq!(order, vec![(1, 0)]);
        // One quad at coarse (0, 0)..(1, 1): only slot 1, coarse pixel (1, 0), is lit.
        let mut slots = [(0u32, 0u32); 32];
        slots[..4].copy_from_slice(&[(0, 0), (1, 0), (0, 1), (1, 1)]);
        let (px, w) = map.writes(&slots, 0b0010);
        assert_eq!(&px[..4], &[(0, 0), (2, 0), (0, 2), (2, 2)]);
        assert_eq!(&w.pixels[..4], &[0, 0b0111, 0, 0]);
        // Its write reaches (2, 0), (3, 0) and (2, 1), in raster order.
        assert_eq!(
            w.pixels_of(&px, 0b1111),
            vec![(2, 0, 1), (3, 0, 1), (2, 1, 1)]
        );
        assert_eq!(w.count(0b0010), 3);
    }
}
