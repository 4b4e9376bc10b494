//! Scanout: the frame the CRTC shows, composed from its planes, and where it goes.
//!
//! A frame is the mode's size, black where no plane covers it. The primary plane's
//! source rectangle (whole pixels: the 16.16 fractions are dropped, as no scaler is
//! modelled) is placed at its destination; the cursor is blended over it as
//! premultiplied ARGB (out = cursor + (1 - alpha) x below: the DRM default blend mode,
//! "Pre-multiplied", which i915's ARGB cursors use). Framebuffers are detiled by their
//! modifier (the tile layouts of `gtsim_mem::tiling`, no swizzling; a Y_TILED_CCS
//! framebuffer's main surface is read as Y-tiled, the model keeping it resolved) and
//! converted by `formats::to_rgba8`.
//!
//! Each frame is written, when `GTSIM_DISPLAY` names a place, as a PNG in that folder
//! or appended to a `.y4m` video (BT.601 limited range 4:4:4 at 60 frames a second).

use super::*;

/// Where a capture puts the frames the display shows (the top terabyte of the 48-bit
/// address space, which neither generation's objects use).
pub const DISPLAY_FRAME_ADDR: u64 = 0xfff0_0000_0000;

impl Kernel {
    /// Counts a frame and writes it where frames go, when the CRTC is active.
    pub(super) fn scan_out(&mut self) {
        self.kms.frames = self.kms.frames.wrapping_add(1);
        if self.kms.display.is_none() && self.capture.is_none() {
            return;
        }
        let s = self.kms.state;
        let Some(mode) = s.crtc.mode.filter(|_| s.crtc.active) else {
            return;
        };
        let (w, h) = (u32::from(mode.hdisplay), u32::from(mode.vdisplay));
        let frame = self.compose(w, h);
        if let Ok(rgb) = &frame {
            self.capture_frame(w, h, rgb);
        }
        let Some(dir) = self.kms.display.clone() else {
            return;
        };
        match frame {
            Ok(rgb) if dir.extension().is_some_and(|e| e == "y4m") => {
                if let Err(e) = self.kms.video_frame(&dir, w, h, &rgb) {
                    crate::log(&format!("display: cannot write {}: {e}", dir.display()));
                }
            }
            Ok(rgb) => {
                let path = dir.join(format!("frame-{:05}.png", self.kms.frames));
                if let Err(e) = write_png(&path, w, h, &rgb) {
                    crate::log(&format!("display: cannot write {}: {e}", path.display()));
                }
            }
            Err(e) => crate::log(&format!(
                "display: frame {} not written: {e}",
                self.kms.frames
            )),
        }
    }

    /// Records frame `rgb` (`w` x `h`) in the capture, when there is one: its pixels as
    /// a data write at [`DISPLAY_FRAME_ADDR`] in ARGB0888, then a CMD_AUB_DUMP_BMP
    /// naming them (legacy packets, which both trace forms may hold), so that a replay
    /// (`gtsim replay`, `gtsim inspect`) shows the frames the program showed. Each frame
    /// is whole in the trace (3 MiB at 1024x768): its place among an Ice Lake trace's
    /// submissions is not kept (the reader reconstructs those after the legacy packets).
    fn capture_frame(&mut self, w: u32, h: u32, rgb: &[u8]) {
        use std::io::Write;
        let Some(cap) = self.capture.as_mut() else {
            return;
        };
        let bgrx: Vec<u8> = rgb
            .chunks_exact(3)
            .flat_map(|p| [p[2], p[1], p[0], 255])
            .collect();
        // What the trace's writer holds (its header, before any submission) goes first.
        let mut bytes = match &mut cap.writer {
            crate::kernel::CaptureWriter::Legacy(w) => w.drain(),
            crate::kernel::CaptureWriter::Execlist(w) => w.drain(),
        };
        let mut aub = gtsim_gpu::aub::AubWriter::default();
        aub.write_memory(DISPLAY_FRAME_ADDR, &bgrx, 0);
        aub.dump_bmp(&gtsim_gpu::aub::DumpBmp {
            x: 0,
            y: 0,
            width: w,
            height: h,
            format: gtsim_gpu::aub::BMP_ARGB_0888,
            bpp: 32,
            pitch: 4 * w,
            addr: DISPLAY_FRAME_ADDR,
            tiled: false,
            y_tiled: false,
        });
        bytes.extend(aub.drain());
        if let Err(e) = cap.file.write_all(&bytes).and_then(|_| cap.file.flush()) {
            crate::log(&format!(
                "capture: cannot write the AUB file: {e}; capture stopped"
            ));
            self.capture = None;
        }
    }

    /// The `w` x `h` frame the planes make, as RGB8.
    pub(super) fn compose(&self, w: u32, h: u32) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; w as usize * h as usize * 3];
        let s = self.kms.state;
        for (plane, blend) in [(s.primary, false), (s.cursor, true)] {
            if plane.crtc == 0 {
                continue;
            }
            let Some(f) = self.kms.fbs.get(&plane.fb) else {
                continue;
            };
            let bo = self
                .bos
                .get(&f.bo)
                .ok_or_else(|| format!("framebuffer {}: no object", plane.fb))?;
            let (sx, sy) = (i64::from(plane.src_x >> 16), i64::from(plane.src_y >> 16));
            let (x0, y0) = (i64::from(plane.crtc_x), i64::from(plane.crtc_y));
            let x_end = (x0 + i64::from(plane.src_w >> 16)).min(i64::from(w));
            let y_end = (y0 + i64::from(plane.src_h >> 16)).min(i64::from(h));
            for y in y0.max(0)..y_end {
                for x in x0.max(0)..x_end {
                    let (col, row) = ((sx + x - x0) as u32, (sy + y - y0) as u32);
                    let [r, g, b, a] = pixel(bo, f, col, row)?;
                    let at = 3 * (y as usize * w as usize + x as usize);
                    let px = &mut out[at..at + 3];
                    if blend {
                        let keep = 255 - u32::from(a);
                        for (o, c) in px.iter_mut().zip([r, g, b]) {
                            *o = (u32::from(c) + (u32::from(*o) * keep + 127) / 255).min(255) as u8;
                        }
                    } else {
                        px.copy_from_slice(&[r, g, b]);
                    }
                }
            }
        }
        if self.kms.gamma != gamma::linear() {
            for p in out.chunks_exact_mut(3) {
                let g = gamma::apply(&self.kms.gamma, [p[0], p[1], p[2]]);
                p.copy_from_slice(&g);
            }
        }
        Ok(out)
    }
}

/// Pixel (`col`, `row`) of framebuffer `f` in object `bo` as RGBA8.
fn pixel(bo: &crate::bo::Bo, f: &Fb, col: u32, row: u32) -> Result<[u8; 4], String> {
    use gtsim_mem::tiling::Tiling;
    let tiling = match f.modifier {
        MOD_LINEAR => Tiling::Linear,
        MOD_X_TILED => Tiling::X,
        MOD_Y_TILED | MOD_Y_TILED_CCS => Tiling::Y,
        m => return Err(format!("modifier {m:#x}")),
    };
    let cpp = formats::cpp(f.format).ok_or_else(|| format!("format {:#x}", f.format))?;
    let at = tiling
        .offset(u64::from(f.pitch), u64::from(col * cpp), u64::from(row))
        .map_err(|e| e.to_string())?;
    let mut px = [0u8; 4];
    bo.read(at, &mut px[..cpp as usize])
        .map_err(|e| format!("reading the framebuffer: {e:?}"))?;
    Ok(formats::to_rgba8(f.format, u32::from_le_bytes(px)))
}

impl Kms {
    /// Appends an RGB frame to the `.y4m` video at `path`, created with the first
    /// frame's size (a YUV4MPEG2 stream cannot change size: frames of another size are
    /// left out, said once each).
    fn video_frame(
        &mut self,
        path: &std::path::Path,
        w: u32,
        h: u32,
        rgb: &[u8],
    ) -> Result<(), String> {
        use std::io::Write;
        if self.video.is_none() {
            let mut f = std::fs::File::create(path).map_err(|e| e.to_string())?;
            f.write_all(format!("YUV4MPEG2 W{w} H{h} F60:1 Ip A1:1 C444\n").as_bytes())
                .map_err(|e| e.to_string())?;
            self.video = Some((f, w, h));
        }
        let Some((f, vw, vh)) = self.video.as_mut() else {
            return Ok(());
        };
        if (*vw, *vh) != (w, h) {
            return Err(format!("a {w}x{h} frame in a {vw}x{vh} video: left out"));
        }
        let mut out = Vec::with_capacity(6 + rgb.len());
        out.extend_from_slice(b"FRAME\n");
        out.extend(yuv444(rgb));
        f.write_all(&out).map_err(|e| e.to_string())
    }
}

/// RGB8 pixels as the three planes of 8-bit Y'CbCr 4:4:4, BT.601 limited range (what a
/// YUV4MPEG2 stream without a colour range tag means): Y' = 16 + 219 E'Y, Cb/Cr = 128 +
/// 224 E'Pb/E'Pr, with E'Y = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601).
pub fn yuv444(rgb: &[u8]) -> Vec<u8> {
    let n = rgb.len() / 3;
    let mut out = vec![0u8; 3 * n];
    for (i, p) in rgb.chunks_exact(3).enumerate() {
        let [r, g, b] = [p[0], p[1], p[2]].map(|c| f64::from(c) / 255.0);
        let y = 0.299 * r + 0.587 * g + 0.114 * b;
        let (pb, pr) = ((b - y) / 1.772, (r - y) / 1.402);
        out[i] = (16.0 + 219.0 * y).round() as u8;
        out[n + i] = (128.0 + 224.0 * pb).round().clamp(0.0, 255.0) as u8;
        out[2 * n + i] = (128.0 + 224.0 * pr).round().clamp(0.0, 255.0) as u8;
    }
    out
}

fn write_png(path: &std::path::Path, w: u32, h: u32, rgb: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut wr = enc.write_header().map_err(|e| e.to_string())?;
    wr.write_image_data(rgb).map_err(|e| e.to_string())
}
