//! The SFC's output frame: its layout (SFC_STATE DW16-18 and the ICL command's DW29-31)
//! and each output format's bytes.
//!
//! Seed 003 SFC_STATE_BODY DW2 3:0 Output Surface Format Type (L19720-19745) names the
//! formats and their packing: AYUV "8:8:8:8 MSB-A:Y:U:V", RGBA8 "MSB-A:B:G:R", RGBA10
//! "2:10:10:10 MSB-A:R:G:B", RGB565 "MSB-R:G:B", NV12, packed YUYV and UYVY, P016 and
//! the integral images; DW2 5 RGBA_Channel_Swap_Enable; DW3 21:20 BitDepth ("how many of
//! the LSB bits have valid data", for P016). The pitch, tiling and chroma plane offsets
//! are the ICL command's (media-driver `mhw_sfc_hwcmd_g11_X.h` SFC_STATE_CMD DW29-31;
//! Lakefield's seed moved them).
//!
//! Components leave the pipe's 12 bits by keeping their most significant bits (as the
//! VEBOX's repacker, seed 000 §3.6.1). P016 keeps 12 bits in the top of each 16-bit
//! word; BitDepth 0 (P010) clears its low 6 bits, 1 (P012) its low 4: this model's
//! reading of "valid LSB bits", which the seed states without the bit order.

use super::super::super::Hang;
use super::super::surface::{Format as VeboxFormat, Layout};
use super::invalid_sfc;
use gtsim_mem::memory::Memory;
use gtsim_mem::tiling::Tiling;

/// The output formats the model writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// 0: AYUV, 32 bits a pixel, MSB A:Y:U:V.
    Ayuv,
    /// 1: RGBA8, 32 bits, MSB A:B:G:R.
    Rgba8,
    /// 2: RGBA10, 32 bits, MSB A:R:G:B (2:10:10:10).
    Rgb10a2,
    /// 3: RGB565, 16 bits, MSB R:G:B.
    Rgb565,
    /// 4: NV12.
    Nv12,
    /// 5: YUYV (Y0 U Y1 V).
    Yuyv,
    /// 6: UYVY (U Y0 V Y1).
    Uyvy,
    /// 9: P016, NV12 with 16-bit samples, with the low bits BitDepth leaves cleared.
    P016 {
        /// The mask of the bits kept.
        mask: u16,
    },
}

impl Format {
    /// Output Surface Format Type `v`, or `None` (integral images, Y210, Y410).
    pub fn of(v: u64, bit_depth: u64) -> Option<Format> {
        Some(match v {
            0 => Format::Ayuv,
            1 => Format::Rgba8,
            2 => Format::Rgb10a2,
            3 => Format::Rgb565,
            4 => Format::Nv12,
            5 => Format::Yuyv,
            6 => Format::Uyvy,
            9 => Format::P016 {
                mask: match bit_depth {
                    0 => 0xffc0,
                    _ => 0xfff0,
                },
            },
            _ => return None,
        })
    }

    /// The chroma planes' size for a `w` x `h` frame.
    pub fn chroma_size(self, (w, h): (usize, usize)) -> (usize, usize) {
        match self {
            Format::Nv12 | Format::P016 { .. } => (w.div_ceil(2), h.div_ceil(2)),
            Format::Yuyv | Format::Uyvy => (w.div_ceil(2), h),
            _ => (w, h),
        }
    }

    /// Bytes per pixel of the first (or only) plane.
    fn luma_bytes(self) -> usize {
        match self {
            Format::Nv12 => 1,
            Format::P016 { .. } | Format::Yuyv | Format::Uyvy | Format::Rgb565 => 2,
            _ => 4,
        }
    }

    /// Whether the chroma is a second plane.
    fn planar(self) -> bool {
        matches!(self, Format::Nv12 | Format::P016 { .. })
    }
}

/// The output frame's layout.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    /// Its format, and whether RGBA_Channel_Swap_Enable swaps R and B.
    pub format: Format,
    /// RGBA_Channel_Swap_Enable.
    pub swap: bool,
    /// The rows' layout in memory (pitch, tiling, the chroma plane's row and byte).
    pub rows: Layout,
    /// Output Frame Width and Height.
    pub size: (usize, usize),
}

/// A frame to write: 12-bit channels (Y/R, U/G, V/B) per pixel at full resolution,
/// chroma pairs at the format's, and the alpha of every pixel.
pub struct Picture {
    /// Channel 0 per pixel.
    pub c0: Vec<i32>,
    /// Channels 1 and 2 at `chroma_size`.
    pub uv: Vec<[i32; 2]>,
    /// The chroma planes' size.
    pub chroma_size: (usize, usize),
    /// Alpha (12 bits), the same for every pixel (Alpha Default Value).
    pub alpha: i32,
}

impl Output {
    /// The layout from the pitch, tiling and chroma offsets given, checked.
    pub fn new(
        format: Format,
        swap: bool,
        size: (usize, usize),
        (pitch, tiling, chroma_at): (u64, Tiling, (u64, u64)),
        at: u64,
    ) -> Result<Output, Hang> {
        let row = (size.0 * format.luma_bytes()) as u64;
        let chroma_row = if format.planar() {
            chroma_at.1 + 2 * format.luma_bytes() as u64 * size.0.div_ceil(2) as u64
        } else {
            0
        };
        if pitch < row.max(chroma_row) {
            return Err(invalid_sfc(
                at,
                format!(
                    "Output Surface Pitch {pitch} bytes is less than a row's {} bytes",
                    row.max(chroma_row)
                ),
            ));
        }
        let (tile_w, _) = tiling.tile_size();
        if tiling != Tiling::Linear && !pitch.is_multiple_of(tile_w) {
            return Err(invalid_sfc(
                at,
                format!(
                    "Output Surface Pitch {pitch} bytes is not a whole number of {tiling:?}-major tiles"
                ),
            ));
        }
        if format.planar() && chroma_at.0 < size.1 as u64 {
            return Err(invalid_sfc(
                at,
                format!(
                    "the chroma plane (Y Offset For U {}) starts inside the {}-row luma plane",
                    chroma_at.0, size.1
                ),
            ));
        }
        Ok(Output {
            format,
            swap,
            rows: Layout {
                width: size.0 as u32,
                height: size.1 as u32,
                pitch,
                tiling,
                format: VeboxFormat::Nv12,
                chroma_at,
            },
            size,
        })
    }

    /// Writes rows `rows` and columns `cols` of `p` (a whole-frame picture) at `base`,
    /// and the chroma samples of those pixels (the rectangle rounded outwards to whole
    /// chroma samples).
    pub fn write(
        &self,
        mem: &mut dyn Memory,
        base: u64,
        p: &Picture,
        (cols, rows): (std::ops::Range<usize>, std::ops::Range<usize>),
        at: u64,
    ) -> Result<(), Hang> {
        const CMD: &str = "VEB_DI_IECP";
        let (w, _) = self.size;
        let (cw, ch) = p.chroma_size;
        let bits = |v: i32, n: u32| (v.clamp(0, 4095) >> (12 - n)) as u32;
        let byte = |v: i32| bits(v, 8) as u8;
        let alpha = p.alpha;
        let mut buf = vec![];
        let (hx, hy) = (cw < w, ch < self.size.1);
        let cx = |x: usize| if hx { x / 2 } else { x };
        for y in rows.clone() {
            buf.clear();
            let cy = if hy { y / 2 } else { y };
            let (from, to) = match self.format {
                Format::Yuyv | Format::Uyvy => (cols.start / 2 * 2, cols.end.div_ceil(2) * 2),
                _ => (cols.start, cols.end),
            };
            let mut x = from;
            while x < to {
                let c0 = p.c0[y * w + x.min(w - 1)];
                let [c1, c2] = p.uv[cy * cw + cx(x).min(cw - 1)];
                match self.format {
                    Format::Nv12 => buf.push(byte(c0)),
                    Format::P016 { mask } => {
                        buf.extend_from_slice(&(((bits(c0, 12) << 4) as u16) & mask).to_le_bytes())
                    }
                    Format::Yuyv | Format::Uyvy => {
                        let c0b = byte(p.c0[y * w + (x + 1).min(w - 1)]);
                        let q = if self.format == Format::Yuyv {
                            [byte(c0), byte(c1), c0b, byte(c2)]
                        } else {
                            [byte(c1), byte(c0), byte(c2), c0b]
                        };
                        buf.extend_from_slice(&q);
                        x += 1;
                    }
                    Format::Ayuv => {
                        buf.extend_from_slice(&[byte(c2), byte(c1), byte(c0), byte(alpha)])
                    }
                    Format::Rgba8 => {
                        let (r, b) = if self.swap { (c2, c0) } else { (c0, c2) };
                        buf.extend_from_slice(&[byte(r), byte(c1), byte(b), byte(alpha)]);
                    }
                    Format::Rgb10a2 => {
                        let (r, b) = if self.swap { (c2, c0) } else { (c0, c2) };
                        let v = bits(alpha, 2) << 30
                            | bits(r, 10) << 20
                            | bits(c1, 10) << 10
                            | bits(b, 10);
                        buf.extend_from_slice(&v.to_le_bytes());
                    }
                    Format::Rgb565 => {
                        let (r, b) = if self.swap { (c2, c0) } else { (c0, c2) };
                        let v = (bits(r, 5) << 11 | bits(c1, 6) << 5 | bits(b, 5)) as u16;
                        buf.extend_from_slice(&v.to_le_bytes());
                    }
                }
                x += 1;
            }
            let bpp = self.format.luma_bytes();
            let x0 = match self.format {
                Format::Yuyv | Format::Uyvy => (from / 2 * 4) as u64,
                _ => (from * bpp) as u64,
            };
            self.rows
                .io_row_write(mem, base, y as u64, x0, &buf, CMD, at)?;
        }
        if !self.format.planar() {
            return Ok(());
        }
        // The interleaved U, V plane: chroma samples inside the rectangle.
        let (k0, k1) = (cols.start / 2, cols.end.div_ceil(2));
        let (r0, r1) = (rows.start / 2, rows.end.div_ceil(2));
        let (crow, cbyte) = self.rows.chroma_at;
        for k in r0..r1.min(ch) {
            buf.clear();
            for j in k0..k1.min(cw) {
                let [u, v] = p.uv[k * cw + j];
                match self.format {
                    Format::P016 { mask } => {
                        for c in [u, v] {
                            buf.extend_from_slice(
                                &(((bits(c, 12) << 4) as u16) & mask).to_le_bytes(),
                            );
                        }
                    }
                    _ => buf.extend_from_slice(&[byte(u), byte(v)]),
                }
            }
            let x0 = cbyte + (k0 * 2 * self.format.luma_bytes()) as u64;
            self.rows
                .io_row_write(mem, base, crow + k as u64, x0, &buf, CMD, at)?;
        }
        Ok(())
    }
}
