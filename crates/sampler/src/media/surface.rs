//! The media surfaces the sample_8x8 and deinterlace messages read (seed 000 §2.12.2.2
//! MEDIA_SURFACE_STATE), as channels of bytes: which plane, which byte of its element,
//! at what resolution. The front decodes the state into a [`MediaSurfaceView`]; the
//! media sampler asks it for a channel ([`MediaSurfaceView::channel`]) and reads texels
//! of it by integer position, clamped to the plane ("The address control mode behaves
//! as clamp mode", §2.13.1.4 sample_8x8).

use gtsim_mem::Memory;
use gtsim_mem::tiling::Tiling;
use gtsim_message::{MessageError, invalid};
use gtsim_spec::Unsupported;

/// MEDIA_SURFACE_STATE Surface Format (seed 000 §2.12.2.2 DW2 31:28).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaFormat {
    /// YCRCB_NORMAL: Y0 Cb Y1 Cr (YUYV).
    YcrcbNormal,
    /// YCRCB_SWAPUVY: Cr Y0 Cb Y1 (VYUY).
    YcrcbSwapUvy,
    /// YCRCB_SWAPUV: Y0 Cr Y1 Cb (YVYU).
    YcrcbSwapUv,
    /// YCRCB_SWAPY: Cb Y0 Cr Y1 (UYVY).
    YcrcbSwapY,
    /// PLANAR_420_8: a Y plane, then U and V planes (or one interleaved UV plane) of
    /// half the width and height.
    Planar420,
    /// PLANAR_411_8 (deinterlace only).
    Planar411,
    /// PLANAR_422_8 (deinterlace only).
    Planar422,
    /// STMM_DN_STATISTICS (deinterlace only).
    StmmDnStatistics,
    /// R10G10B10A2_UNORM (sample_8x8 only).
    R10G10B10A2,
    /// R8G8B8A8_UNORM (sample_8x8 only).
    R8G8B8A8,
    /// R8B8_UNORM (CrCb) (sample_8x8 only).
    R8B8,
    /// R8_UNORM (Cr/Cb) (sample_8x8 only).
    R8,
    /// Y8_UNORM.
    Y8,
    /// A reserved value (13-15).
    Reserved(u32),
}

impl MediaFormat {
    /// Surface Format value `v` (seed 000 §2.12.2.2; values in the order the seed lists
    /// the names, see the spec file's note on MEDIA_SURFACE_STATE).
    pub fn from_raw(v: u32) -> MediaFormat {
        use MediaFormat::*;
        match v {
            0 => YcrcbNormal,
            1 => YcrcbSwapUvy,
            2 => YcrcbSwapUv,
            3 => YcrcbSwapY,
            4 => Planar420,
            5 => Planar411,
            6 => Planar422,
            7 => StmmDnStatistics,
            8 => R10G10B10A2,
            9 => R8G8B8A8,
            10 => R8B8,
            11 => R8,
            12 => Y8,
            other => Reserved(other),
        }
    }
}

/// How a field or frame picture maps rows (seed 000 §2.12.2.2 DW1 3:2 Picture
/// Structure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PictureStructure {
    /// The whole frame.
    Frame,
    /// The top field: the frame's even rows.
    TopField,
    /// The bottom field: the frame's odd rows.
    BottomField,
}

/// MEDIA_SURFACE_STATE as the media sampler uses it (seed 000 §2.12.2.2), decoded by the
/// front.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaSurfaceView {
    /// Surface Base Address.
    pub base: u64,
    /// Width + 1, in pixels (of the Y plane for planar formats).
    pub width: u32,
    /// Height + 1, in rows (of a field for field pictures).
    pub height: u32,
    /// Surface Pitch + 1, in bytes.
    pub pitch: u64,
    /// Tile Mode.
    pub tiling: Tiling,
    /// Surface Format.
    pub format: MediaFormat,
    /// Picture Structure, or the invalid value 3.
    pub picture: Result<PictureStructure, u32>,
    /// Interleave Chroma: U and V share one plane (NV12).
    pub interleave_chroma: bool,
    /// Half Pitch for Chroma.
    pub half_pitch_chroma: bool,
    /// X and Y Offset for U(Cb): the U (or interleaved UV) plane's origin, in pixels
    /// and rows from the base.
    pub u_offset: (u32, u32),
    /// X and Y Offset for V(Cr).
    pub v_offset: (u32, u32),
    /// Cr(V)/Cb(U) Pixel Offset V Direction, in quarters of a (Y) row.
    pub chroma_v_offset_quarters: u32,
}

/// How a channel's value comes out of its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Extract {
    /// A byte of the element.
    Byte(u64),
    /// A 10-bit field of a 32-bit element at this shift: its 8 MSBs (seed 000 §2.9.1.3
    /// "Only the 8 MSBs are used in these calculations").
    Bits10(u32),
    /// The 2-bit alpha of R10G10B10A2, widened to 8 bits.
    Bits2,
    /// A channel the format lacks: seed 000 §2.12.2.1.2's rule for the 3D formats'
    /// missing channels, 0 for colour and 1.0 for alpha.
    Constant(u8),
}

/// One channel of a media surface: a plane of `width` x `height` texels of
/// `element_bytes` bytes, and where the channel is in each.
#[derive(Debug, Clone, Copy)]
pub struct Channel {
    origin_byte: u64,
    origin_row: u64,
    element_bytes: u64,
    extract: Extract,
    /// Texels per row of the channel's plane.
    pub width: u32,
    /// Rows of the channel's plane.
    pub height: u32,
    pitch: u64,
    tiling: Tiling,
    base: u64,
    row_step: u64,
    row_phase: u64,
    /// The channel's sample position below the Y rows', in the channel's own rows
    /// (the 4:2:0 chroma siting of DW1 1:0).
    pub v_shift: f64,
}

impl Channel {
    /// The bytes of a surface of `height` rows of `pitch` bytes from `base`, as one
    /// 8-bit plane as wide as the pitch (the statistics surface of the deinterlace
    /// message, seed 000 §2.8.6.2).
    pub fn bytes(base: u64, pitch: u64, tiling: Tiling, height: u32) -> Channel {
        Channel {
            origin_byte: 0,
            origin_row: 0,
            element_bytes: 1,
            extract: Extract::Byte(0),
            width: u32::try_from(pitch).unwrap_or(u32::MAX).max(1),
            height: height.max(1),
            pitch,
            tiling,
            base,
            row_step: 1,
            row_phase: 0,
            v_shift: 0.0,
        }
    }

    /// The channel's 8-bit value at texel (`x`, `y`), the position clamped to the plane.
    pub fn texel(&self, mem: &dyn Memory, x: i64, y: i64) -> Result<u8, MessageError> {
        let x = x.clamp(0, i64::from(self.width) - 1) as u64;
        let y = y.clamp(0, i64::from(self.height) - 1) as u64;
        let extract = self.extract;
        let size = match extract {
            Extract::Constant(v) => return Ok(v),
            Extract::Byte(_) => 1,
            Extract::Bits10(_) | Extract::Bits2 => 4,
        };
        let byte = match extract {
            Extract::Byte(b) => b,
            _ => 0,
        };
        let xb = self.origin_byte + x * self.element_bytes + byte;
        let row = self.origin_row + y * self.row_step + self.row_phase;
        let off = self
            .tiling
            .offset(self.pitch, xb, row)
            .map_err(|e| MessageError::State {
                structure: "MEDIA_SURFACE_STATE",
                why: format!("texel ({x}, {y}): {e}"),
            })?;
        let addr = self.base.wrapping_add(off);
        let mut b = [0u8; 4];
        mem.read(addr, &mut b[..size])
            .map_err(|fault| MessageError::Fault {
                what: format!("media surface texel ({x}, {y}) at {addr:#x}"),
                fault,
            })?;
        let d = u32::from_le_bytes(b);
        Ok(match extract {
            Extract::Byte(_) => b[0],
            Extract::Bits10(shift) => (d >> shift >> 2 & 0xff) as u8,
            Extract::Bits2 => ((d >> 30) * 85) as u8,
            Extract::Constant(v) => v,
        })
    }
}

impl MediaSurfaceView {
    /// The bytes of a STMM_DN_STATISTICS surface (seed 000 §2.8.6.2 "Statistics Surface
    /// Memory Format": the STMM and the denoise history of a frame, addressed in bytes
    /// from the base, rows of Surface Pitch), clamped to its pitch and height.
    pub fn statistics(&self) -> Result<Channel, MessageError> {
        if self.format != MediaFormat::StmmDnStatistics {
            return Err(invalid(format!(
                "the denoise history surface is {:?}, not STMM_DN_STATISTICS (seed 000 \
                 §2.12.2.2, §2.8.6.2)",
                self.format
            )));
        }
        Ok(Channel::bytes(
            self.base,
            self.pitch,
            self.tiling,
            self.height,
        ))
    }

    /// Channel `c` (0 red, 1 green, 2 blue, 3 alpha) of the surface for the sample_8x8
    /// message. YCrCb formats return Y in green, Cr(V) in red and Cb(U) in blue; R8_UNORM
    /// its byte in red; R8B8_UNORM its first byte in red and its second in blue (the
    /// VA driver's PL2 kernels read an NV12 UV plane so: U from red).
    pub fn channel(&self, c: usize) -> Result<Channel, MessageError> {
        use MediaFormat::*;
        let picture = self.picture.map_err(|v| {
            invalid(format!(
                "MEDIA_SURFACE_STATE Picture Structure {v} is invalid (seed 000 §2.12.2.2 \
                 DW1 3:2: \"Invalid, not allowed\")"
            ))
        })?;
        let (row_step, row_phase) = match picture {
            PictureStructure::Frame => (1, 0),
            PictureStructure::TopField => (2, 0),
            PictureStructure::BottomField => (2, 1),
        };
        let plane =
            |origin: (u32, u32), element_bytes: u64, extract, width, height, pitch| Channel {
                origin_byte: u64::from(origin.0),
                origin_row: u64::from(origin.1),
                element_bytes,
                extract,
                width,
                height,
                pitch,
                tiling: self.tiling,
                base: self.base,
                row_step,
                row_phase,
                v_shift: 0.0,
            };
        let (w, h, p) = (self.width, self.height, self.pitch);
        let missing = |c: usize| {
            plane(
                (0, 0),
                1,
                Extract::Constant(if c == 3 { 255 } else { 0 }),
                w,
                h,
                p,
            )
        };
        let unsupported = |what: &str| -> MessageError {
            Unsupported::new(
                format!("sample_8x8 on a {what} media surface"),
                "seed 000 §2.12.2.2 (Deinterlace only formats), §2.13.1.4",
            )
            .into()
        };
        Ok(match self.format {
            Y8 => match c {
                1 => plane((0, 0), 1, Extract::Byte(0), w, h, p),
                _ => missing(c),
            },
            R8 => match c {
                0 => plane((0, 0), 1, Extract::Byte(0), w, h, p),
                _ => missing(c),
            },
            R8B8 => match c {
                0 => plane((0, 0), 2, Extract::Byte(0), w, h, p),
                2 => plane((0, 0), 2, Extract::Byte(1), w, h, p),
                _ => missing(c),
            },
            R8G8B8A8 => plane((0, 0), 4, Extract::Byte(c as u64), w, h, p),
            R10G10B10A2 => {
                let e = match c {
                    3 => Extract::Bits2,
                    _ => Extract::Bits10(10 * c as u32),
                };
                plane((0, 0), 4, e, w, h, p)
            }
            YcrcbNormal | YcrcbSwapUvy | YcrcbSwapUv | YcrcbSwapY => {
                // Byte of Y0, Cb and Cr within each 4-byte pair of pixels.
                let (y0, cb, cr) = match self.format {
                    YcrcbNormal => (0, 1, 3),
                    YcrcbSwapUvy => (1, 2, 0),
                    YcrcbSwapUv => (0, 3, 1),
                    _ => (1, 0, 2),
                };
                let half = w.div_ceil(2);
                match c {
                    // Y: every second byte from Y0's.
                    1 => plane((0, 0), 2, Extract::Byte(y0), w, h, p),
                    0 => plane((0, 0), 4, Extract::Byte(cr), half, h, p),
                    2 => plane((0, 0), 4, Extract::Byte(cb), half, h, p),
                    _ => missing(c),
                }
            }
            Planar420 => {
                let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
                let cp = if self.half_pitch_chroma { p / 2 } else { p };
                // "the distance to the U/V values with respect to the even numbered Y
                // channels in the V direction", in Y rows: half as many chroma rows.
                let v_shift = f64::from(self.chroma_v_offset_quarters) / 4.0 / 2.0;
                let mut ch_plane = match (c, self.interleave_chroma) {
                    (1, _) => return Ok(plane((0, 0), 1, Extract::Byte(0), w, h, p)),
                    (3, _) => return Ok(missing(3)),
                    // NV12: Cb then Cr in each 2-byte element of the U plane.
                    (0, true) => plane(self.u_offset, 2, Extract::Byte(1), cw, ch, p),
                    (_, true) => plane(self.u_offset, 2, Extract::Byte(0), cw, ch, p),
                    (0, false) => plane(self.v_offset, 1, Extract::Byte(0), cw, ch, cp),
                    (_, false) => plane(self.u_offset, 1, Extract::Byte(0), cw, ch, cp),
                };
                ch_plane.v_shift = v_shift;
                ch_plane
            }
            Planar411 => return Err(unsupported("PLANAR_411_8")),
            Planar422 => return Err(unsupported("PLANAR_422_8")),
            StmmDnStatistics => return Err(unsupported("STMM_DN_STATISTICS")),
            Reserved(v) => {
                return Err(invalid(format!(
                    "MEDIA_SURFACE_STATE Surface Format {v} is reserved (seed 000 §2.12.2.2)"
                )));
            }
        })
    }
}
