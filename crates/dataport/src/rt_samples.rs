//! Render target writes to multisampled render targets (seed 004 §11.4, §12.1.1; seed
//! 000 §3.9.11): each slot of the thread stands for some samples of its pixel — all the
//! samples the object covers and the early tests passed under MSDISPMODE_PERPIXEL, the
//! one sample the slot runs for under MSDISPMODE_PERSAMPLE (§11.10.2) — and the write
//! masks them further with oMask (§3.9.11.5) and alpha-to-coverage (§12.1.1), tests the
//! rest against the depth and stencil buffer when that comes after the shader, and
//! stores the colour into each remaining sample through the colour calculator.

use crate::mcs;
use crate::rt_message::{PixelSink, RenderTarget, RtPayload, texel_of};
use crate::rt_path::LateDepth;
use gtsim_mem::Memory;
use gtsim_mem::format::texel::Texel;
use gtsim_message::{MessageError, invalid};

/// A pixel's samples as a bit mask, bit *n* for sample *n* (3DSTATE_SAMPLE_MASK's bit
/// order, seed 004 §11.2.5): 16 bits, for the 16 samples per pixel of Gen9+ (seed 003
/// 3DSTATE_MULTISAMPLE Number of Multisamples 4); Gen7 uses the low 8.
pub type SampleMask = u16;

/// The most samples per pixel (Gen9+ MULTISAMPLECOUNT_16).
pub const MAX_SAMPLES: usize = 16;

/// One thread's samples (see the module docs).
#[derive(Debug, Clone)]
pub struct SampleWrites {
    /// Samples per pixel.
    pub count: u32,
    /// Per slot, the samples its writes cover (bit n: sample n).
    pub masks: [SampleMask; 32],
    /// Per slot and sample, the windower's source depth (for the test after the shader).
    pub z: [[f32; MAX_SAMPLES]; 32],
    /// Per slot, the samples the test after the shader has tested, and those that passed.
    pub tested: [SampleMask; 32],
    /// See `tested`.
    pub passed: [SampleMask; 32],
    /// Per slot, the samples the last render target write made visible (PS_DEPTH_COUNT
    /// counts samples: seed 004 §1.9, "# of visible multisamples").
    pub visible: [SampleMask; 32],
}

impl SampleWrites {
    /// The samples of a thread whose slots cover `masks`, at source depths `z`.
    pub fn new(count: u32, masks: [SampleMask; 32], z: [[f32; MAX_SAMPLES]; 32]) -> SampleWrites {
        SampleWrites {
            count,
            masks,
            z,
            tested: [0; 32],
            passed: [0; 32],
            visible: [0; 32],
        }
    }

    /// The visible samples of the slots in `slots`.
    pub fn visible_samples(&self, slots: u32) -> u32 {
        (0..32)
            .filter(|s| slots & (1 << s) != 0)
            .map(|s| self.visible[s].count_ones())
            .sum()
    }
}

/// The alpha-to-coverage mask of `alpha` for `samples` samples (seed 004 §12.1.1): NaN
/// gives no coverage. The seed does not give the mask's pattern; the model covers the
/// round(alpha × samples) lowest samples (alpha clamped to [0, 1]), so that the
/// fraction of samples covered is the alpha, and does not dither.
pub fn alpha_to_coverage(alpha: f32, samples: u32) -> SampleMask {
    if alpha.is_nan() {
        return 0;
    }
    let n = (alpha.clamp(0.0, 1.0) * samples as f32 + 0.5).floor() as u32;
    ((1u32 << n.min(MAX_SAMPLES as u32)) - 1) as SampleMask
}

/// The multisampled part of [`crate::rt_path::PixelWrites::write`]: the slots `enabled`
/// (after the pixel enables and the alpha test) of payload `p` written to `target` (if
/// any) at `array_index`. Returns the slots with a sample left (written, or counted for
/// a null render target).
#[allow(
    clippy::too_many_arguments,
    reason = "the thread's write state, passed down"
)]
pub(crate) fn write_samples(
    ms: &mut SampleWrites,
    late: Option<&mut LateDepth<'_>>,
    slots: &[(u32, u32); 32],
    mem: &mut dyn Memory,
    p: &RtPayload,
    target: Option<&RenderTarget>,
    enabled: u32,
    array_index: u32,
) -> Result<(u32, [SampleMask; 32]), MessageError> {
    let mut late = late;
    let float = match target {
        Some(t) => matches!(texel_of(&t.surface, [0; 4])?, Texel::Float(_)),
        None => false,
    };
    let coverage = target.map(|t| t.alpha_coverage).unwrap_or_default();
    let mut masks: [SampleMask; 32] = [0; 32];
    let mut lit = 0u32;
    for s in (0..32).filter(|s| enabled & (1 << s) != 0) {
        let mut m = ms.masks[s];
        // §3.9.11.5: "Sample n for that pixel will be killed ... if bit n of the oMask is
        // zero. Bits numbers where n is larger than the number of multisamples are
        // ignored."
        if let Some(o) = &p.omask {
            m &= o[s] as SampleMask;
        }
        // §12.1.1: source 0 alpha (the message's, or the colour's) as FLOAT32; not when
        // the message carries oMask ("If Pixel Shader outputs oMask, AlphaToCoverage is
        // disabled in hardware, regardless of the state setting", SKL PRM Vol 7 "Alpha
        // Coverage", which Mesa's compiler relies on from Gen7 on).
        if coverage.to_coverage && float && p.omask.is_none() {
            let a = p.source0_alpha.map_or(p.colors[s][3], |a| a[s]);
            m &= alpha_to_coverage(f32::from_bits(a), ms.count);
        }
        if let Some(late) = late.as_deref_mut() {
            let (x, y) = slots[s];
            for k in 0..ms.count.min(MAX_SAMPLES as u32) {
                let bit: SampleMask = 1 << k;
                if m & bit == 0 || ms.tested[s] & bit != 0 {
                    continue;
                }
                let z = match (late.computed, p.depth) {
                    (true, Some(d)) => f32::from_bits(d[s]),
                    (true, None) => {
                        return Err(invalid(
                            "the PS computes depth but its render target write carries none (seed 000 §3.9.11.9)",
                        ));
                    }
                    _ => ms.z[s][k as usize],
                };
                ms.tested[s] |= bit;
                // A computed stencil value is the sample's stencil reference.
                let reference = p.stencil.map(|st| st[s]);
                if late.depth.sample_with_reference(
                    mem,
                    (x, y, k),
                    z,
                    late.back_facing,
                    reference,
                )? {
                    ms.passed[s] |= bit;
                }
            }
            m &= ms.passed[s];
        }
        if p.last {
            ms.visible[s] = m;
        }
        masks[s] = m;
        if m != 0 {
            lit |= 1 << s;
        }
    }
    let Some(t) = target else {
        return Ok((lit, masks));
    };
    let sink = PixelSink::new(t, array_index);
    for s in (0..32).filter(|s| lit & (1 << s) != 0) {
        let (x, y) = slots[s];
        mcs::expand(mem, t, sink.slice(), (x, y))?;
        let mut color = p.colors[s];
        // §12.1.1 AlphaToOne: source 0 alpha becomes 1.0 (after alpha-to-coverage).
        if coverage.to_one && float {
            color[3] = 1.0f32.to_bits();
        }
        for k in (0..ms.count.min(MAX_SAMPLES as u32)).filter(|k| masks[s] & (1 << k) != 0) {
            sink.write_dual(mem, (x, y, k), color, p.colors1.map(|c| c[s]))?;
        }
    }
    Ok((lit, masks))
}

#[cfg(test)]
mod tests {
    use super::alpha_to_coverage;

    /// round(alpha × samples) lowest samples, by hand.
    #[test]
    fn alpha_to_coverage_masks() {
        assert_eq!(alpha_to_coverage(0.0, 4), 0);
        assert_eq!(alpha_to_coverage(0.3, 4), 0b0001); // 1.2 → 1
        assert_eq!(alpha_to_coverage(0.5, 4), 0b0011);
        assert_eq!(alpha_to_coverage(0.9, 4), 0b1111); // 3.6 → 4
        assert_eq!(alpha_to_coverage(0.5, 8), 0x0f);
        assert_eq!(alpha_to_coverage(2.0, 8), 0xff);
        assert_eq!(alpha_to_coverage(f32::NAN, 8), 0);
    }
}
