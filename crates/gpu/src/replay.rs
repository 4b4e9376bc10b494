//! Replaying a captured trace on the device: every memory write the trace records is
//! loaded, every submission is executed in order (in the hardware context its ring's
//! MI_SET_CONTEXT names, as `gtsim run --capture` records it, else all in one context,
//! as a single-context capture has), and the render targets the draws wrote are read
//! back as RGBA8 images.

use crate::aub::{Event, Trace};
use crate::device::observe::Observer;
use crate::device::{Device, DeviceLimits, Hang};
use gtsim_mem::format::texel::Texel;
use gtsim_mem::surface::TexelCoord;
use gtsim_mem::{AddressSpace, Memory};
use gtsim_pipe3d::draw::RenderTarget;

/// The context id replayed submissions run in.
const CONTEXT: u32 = 1;

/// What a replay did.
#[derive(Debug, Default)]
pub struct Replay {
    /// Graphics memory after the last submission.
    pub mem: AddressSpace,
    /// Submissions executed.
    pub submissions: usize,
    /// 3DPRIMITIVEs executed.
    pub draws: usize,
    /// GPGPU_WALKERs executed.
    pub walkers: usize,
    /// Submissions that hung: (submission index, report).
    pub hangs: Vec<(usize, Hang)>,
    /// Work not executed (media/GPGPU walkers), one line each.
    pub not_executed: Vec<String>,
    /// Render targets written, by surface address (the last description of each).
    pub render_targets: Vec<RenderTarget>,
}

/// Replays `trace`; `progress(done, total)` is called after each submission.
pub fn replay(trace: &Trace, progress: impl FnMut(usize, usize)) -> Replay {
    replay_limited(trace, DeviceLimits::default(), progress)
}

/// [`replay`] under the given hangcheck limits.
pub fn replay_limited(
    trace: &Trace,
    limits: DeviceLimits,
    progress: impl FnMut(usize, usize),
) -> Replay {
    replay_observed(trace, limits, progress, None)
}

/// [`replay_limited`], telling `observer` each submission's commands and draws
/// (`gtsim inspect`).
pub fn replay_observed(
    trace: &Trace,
    limits: DeviceLimits,
    mut progress: impl FnMut(usize, usize),
    mut observer: Option<&mut dyn Observer>,
) -> Replay {
    let total = trace
        .events
        .iter()
        .filter(|e| matches!(e, Event::Exec { .. }))
        .count();
    let mut r = Replay::default();
    // The device the trace names (an Ice Lake trace replays on the Gen11 command
    // streamer), Ivy Bridge when it names none.
    let platform = trace
        .pci_id()
        .and_then(crate::device::Platform::from_pci_id)
        .unwrap_or_default();
    let ice_lake = platform == crate::device::Platform::IceLake;
    let mut dev = Device::with_platform(platform);
    dev.limits = limits;
    for ev in &trace.events {
        match ev {
            Event::Write { addr, data, .. } => r.mem.load(*addr, data),
            Event::Exec {
                ring,
                offset,
                commands,
            } => {
                let bytes: Vec<u8> = commands.iter().flat_map(|d| d.to_le_bytes()).collect();
                r.mem.load(*offset, &bytes);
                // A ring that starts with MI_SET_CONTEXT (a `gtsim run --capture` of a
                // driver with several contexts) runs the rest in that context.
                // An execlist trace gives each hardware context its own ring (the
                // reconstruction places it at RING_WINDOW + its GGTT address).
                let (context, start) = match commands.as_slice() {
                    [dw0, address, ..] if !ice_lake && dw0 >> 23 == 0x18 => {
                        (address >> 12, *offset + 8)
                    }
                    _ if ice_lake && *offset >= crate::aub::memtrace::RING_WINDOW => (
                        ((*offset - crate::aub::memtrace::RING_WINDOW) >> 12) as u32,
                        *offset,
                    ),
                    _ => (CONTEXT, *offset),
                };
                // The blitter ring's submissions (Gen7 captures) run on the blitter.
                let engine = if *ring == crate::aub::TYPE_RING_PRB2 && !ice_lake {
                    crate::device::Ring::Blitter
                } else if *ring == crate::aub::TYPE_RING_PRB3 && ice_lake {
                    // The video enhancement engine's execlist submissions (Gen11).
                    crate::device::Ring::VideoEnhance
                } else {
                    crate::device::Ring::Render
                };
                let watcher = observer.as_mut().map(|o| &mut **o as &mut dyn Observer);
                match dev.submit_observed(engine, context, start, &mut r.mem, watcher) {
                    Ok(rep) => {
                        r.draws += rep.draws;
                        r.walkers += rep.walkers;
                        r.not_executed.extend(rep.not_executed);
                        for t in rep.render_targets {
                            r.render_targets
                                .retain(|o| o.surface.base != t.surface.base);
                            r.render_targets.push(t);
                        }
                    }
                    Err(h) => r.hangs.push((r.submissions, h)),
                }
                r.submissions += 1;
                progress(r.submissions, total);
            }
            Event::Header { .. } | Event::GttEntries { .. } | Event::Mmio { .. } => {}
        }
    }
    r
}

/// A texel of a render target that could not be read back.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("render target at {base:#x} ({x}, {y}): {error}")]
pub struct ReadBackError {
    /// The render target's graphics address.
    pub base: u64,
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// Why.
    #[source]
    pub error: gtsim_mem::surface::SurfaceError,
}

/// A render target's written LOD and slice as RGBA8 rows (width, height, pixels): float
/// channels are clamped to [0, 1] and scaled to 255 with rounding; integer channels are
/// clamped to 0..=255.
pub fn read_rgba8(
    mem: &dyn Memory,
    rt: &RenderTarget,
) -> Result<(u32, u32, Vec<u8>), ReadBackError> {
    let d = &rt.surface.desc;
    let (w, h) = ((d.width >> rt.lod).max(1), (d.height >> rt.lod).max(1));
    let mut out = Vec::with_capacity((w * h * 4) as usize);
    // The image's offsets once (the surface's checks and the image's origin), not per
    // texel; a multisampled or buffer surface takes the general path.
    let image = d.image_offsets(rt.min_array_element, rt.lod);
    for y in 0..h {
        for x in 0..w {
            let at = TexelCoord {
                x,
                y,
                slice: rt.min_array_element,
                lod: rt.lod,
                sample: 0,
            };
            let t = match &image {
                Some(io) => io
                    .offset(x, y)
                    .map_err(gtsim_mem::surface::SurfaceError::from)
                    .and_then(|off| rt.surface.read_texel_at(mem, off, x, y)),
                None => rt.surface.read_texel(mem, at),
            }
            .map_err(|error| ReadBackError {
                base: rt.surface.base,
                x,
                y,
                error,
            })?;
            out.extend_from_slice(&texel_rgba8(t));
        }
    }
    Ok((w, h, out))
}

/// A texel as RGBA8, as [`read_rgba8`] shows it: float channels clamped to [0, 1] and
/// scaled to 255 with rounding (NaN as 0), integer channels clamped to 0..=255.
pub fn texel_rgba8(t: Texel) -> [u8; 4] {
    match t {
        Texel::Float(c) => c.map(|v| {
            if v.is_nan() {
                0
            } else {
                (v.clamp(0.0, 1.0) * 255.0).round() as u8
            }
        }),
        Texel::Uint(c) => c.map(|v| v.min(255) as u8),
        Texel::Sint(c) => c.map(|v| v.clamp(0, 255) as u8),
    }
}
