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
    /// What the display showed (the trace's bitmap dumps, in order): each frame's
    /// width, height and RGBA8 pixels, or why it could not be read.
    pub display_frames: Vec<Result<Bitmap, String>>,
}

/// A picture: width, height and RGBA8 pixels.
pub type Bitmap = (u32, u32, Vec<u8>);

/// The pixels a display frame may have (the model's bound on a hostile trace: 16
/// Mpixels, a 4096 x 4096 frame).
const MAX_FRAME_PIXELS: u64 = 1 << 24;

/// The bitmap `b` describes, read from `mem` as RGBA8 (ARGB8888 and ARGB0888: alpha
/// 255 for the latter; linear, X- or Y-tiled as `gtsim_mem::tiling` lays tiles out).
pub fn read_bitmap(
    mem: &AddressSpace,
    b: &crate::aub::DumpBmp,
) -> Result<(u32, u32, Vec<u8>), String> {
    use gtsim_mem::tiling::Tiling;
    if ![crate::aub::BMP_ARGB_8888, crate::aub::BMP_ARGB_0888].contains(&b.format) || b.bpp != 32 {
        return Err(format!(
            "bitmap format {} with {} bits per pixel is not modelled (ARGB8888 and ARGB0888, 32 bits, are)",
            b.format, b.bpp
        ));
    }
    if b.width == 0 || b.height == 0 || u64::from(b.width) * u64::from(b.height) > MAX_FRAME_PIXELS
    {
        return Err(format!("a {}x{} bitmap", b.width, b.height));
    }
    if u64::from(b.x + b.width) * 4 > u64::from(b.pitch) {
        return Err(format!(
            "a pitch of {} bytes for {} pixels from x {}",
            b.pitch, b.width, b.x
        ));
    }
    let tiling = match (b.tiled, b.y_tiled) {
        (false, _) => Tiling::Linear,
        (true, false) => Tiling::X,
        (true, true) => Tiling::Y,
    };
    let mut bgra = vec![0u8; b.width as usize * b.height as usize * 4];
    let row_bytes = b.width as usize * 4;
    for (i, row) in (b.y..b.y + b.height).enumerate() {
        let dst = &mut bgra[i * row_bytes..(i + 1) * row_bytes];
        if tiling == Tiling::Linear {
            // A linear row is one read.
            let at = u64::from(row) * u64::from(b.pitch) + u64::from(b.x) * 4;
            mem.read(b.addr.wrapping_add(at), dst)
                .map_err(|e| format!("reading the bitmap: {e:?}"))?;
            continue;
        }
        for (j, col) in (b.x..b.x + b.width).enumerate() {
            let at = tiling
                .offset(u64::from(b.pitch), u64::from(col) * 4, u64::from(row))
                .map_err(|e| e.to_string())?;
            mem.read(b.addr.wrapping_add(at), &mut dst[4 * j..4 * j + 4])
                .map_err(|e| format!("reading the bitmap: {e:?}"))?;
        }
    }
    let opaque = b.format == crate::aub::BMP_ARGB_0888;
    for p in bgra.chunks_exact_mut(4) {
        p.swap(0, 2);
        if opaque {
            p[3] = 255;
        }
    }
    Ok((b.width, b.height, bgra))
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
            Event::DumpBmp(b) => r.display_frames.push(read_bitmap(&r.mem, b)),
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

#[cfg(test)]
mod bitmap_tests {
    use super::*;
    use crate::aub::{BMP_ARGB_0888, BMP_ARGB_8888, DumpBmp};

    fn bmp(width: u32, height: u32, pitch: u32) -> DumpBmp {
        DumpBmp {
            x: 0,
            y: 0,
            width,
            height,
            format: BMP_ARGB_8888,
            bpp: 32,
            pitch,
            addr: 0x10_0000,
            tiled: false,
            y_tiled: false,
        }
    }

    /// A packet's dwords parse back to its fields (libdrm's layout, the address's high
    /// half in the seventh dword).
    #[test]
    fn a_dump_bmp_packet_round_trips() {
        let mut b = bmp(320, 240, 1280);
        (b.x, b.y, b.addr, b.tiled, b.y_tiled) = (3, 4, 0xfff0_0000_1000, true, true);
        let bytes: Vec<u8> = b.dwords().iter().flat_map(|d| d.to_le_bytes()).collect();
        assert_eq!(bytes.len(), 28);
        assert_eq!(DumpBmp::parse(&bytes), Some(b));
        // libdrm's six dwords: a 32-bit address.
        assert_eq!(DumpBmp::parse(&bytes[..24]).map(|p| p.addr), Some(0x1000));
        assert_eq!(DumpBmp::parse(&bytes[..20]), None);
    }

    /// ARGB8888 and ARGB0888 pixels (BGRA in memory) come back as RGBA; an X-tiled one
    /// from where the X tile puts it (row 1 of a tile at byte 512, worked by hand);
    /// unmodelled formats, empty or oversized bitmaps, short pitches and unmapped memory
    /// are errors, not panics.
    #[test]
    fn bitmaps_read_back_and_bad_ones_are_errors() {
        let mut mem = AddressSpace::new();
        mem.load(0x10_0000, &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(
            read_bitmap(&mem, &bmp(2, 1, 8)),
            Ok((2, 1, vec![3, 2, 1, 4, 7, 6, 5, 8]))
        );
        let mut opaque = bmp(2, 1, 8);
        opaque.format = BMP_ARGB_0888;
        assert_eq!(read_bitmap(&mem, &opaque).unwrap().2[3], 255);
        let mut x = bmp(1, 2, 512);
        x.tiled = true;
        mem.load(0x10_0000 + 512, &[9, 10, 11, 12]);
        assert_eq!(read_bitmap(&mem, &x).unwrap().2[4..], [11, 10, 9, 12]);
        let mut bad = bmp(2, 1, 8);
        bad.format = 1;
        assert!(read_bitmap(&mem, &bad).is_err());
        assert!(read_bitmap(&mem, &bmp(0, 1, 8)).is_err());
        assert!(read_bitmap(&mem, &bmp(65535, 65535, 0x3fffc)).is_err());
        assert!(read_bitmap(&mem, &bmp(4, 1, 8)).is_err());
        let mut far = bmp(2, 1, 8);
        far.addr = u64::MAX - 3;
        let _ = read_bitmap(&mem, &far);
    }
}
