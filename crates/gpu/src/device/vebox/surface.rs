//! The VEBOX's frames in memory: VEBOX_SURFACE_STATE's layout of a surface, and its
//! reads and writes at the pipe's precision.
//!
//! VEBOX_SURFACE_STATE is not in seed 003 (the seed has the VEBOX heap's states, not its
//! commands); its fields are Intel media-driver's (`mhw_vebox_hwcmd_g11_X.h`
//! VEBOX_SURFACE_STATE_CMD, `defs/gen11/media_driver_vebox.spec`): Width and Height
//! minus one, Surface Pitch in bytes minus one, Tiled Surface with Tile Walk 1 for
//! Y-major tiles, and for a planar format the chroma plane's place as a row offset (Y
//! Offset For U) and a byte offset in the row (X Offset For U) from the surface's base.
//! The VEB_DI_IECP command gives each surface's base address.

use super::super::Hang;
use super::super::cs::unsupported;
use gtsim_mem::memory::Memory;
use gtsim_mem::tiling::Tiling;

/// Where the surface layouts are defined.
const REFERENCE: &str = "media-driver mhw_vebox_hwcmd_g11_X.h VEBOX_SURFACE_STATE_CMD";

/// The largest frame the model processes (it holds the frame, upsampled to 4:4:4, in
/// host memory: a bound on what a guest's state can make it allocate).
const MAX_PIXELS: u64 = 4096 * 4096;

/// A frame's layout, decoded from VEBOX_SURFACE_STATE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Width in pixels.
    pub width: u32,
    /// Height in rows.
    pub height: u32,
    /// Bytes from one row to the next.
    pub pitch: u64,
    /// How rows are laid out.
    pub tiling: Tiling,
    /// The pixel format.
    pub format: Format,
    /// The chroma plane's first row (Y Offset For U) and byte (X Offset For U).
    pub chroma_at: (u64, u64),
}

/// The formats the model reads and writes: the 8-bit YUV ones iHD's post-processing
/// uses by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// PLANAR4208 with Interleave Chroma (NV12): a plane of Y bytes, then a plane of
    /// U, V byte pairs at half the width and height.
    Nv12,
    /// YCRCBNORMAL (YUY2): Y0 U Y1 V per pair of pixels.
    Yuy2,
}

/// A frame at the pipe's precision (12 bits per component: seed 000 §3.6.1.1, the
/// unpacker, shifts 8-bit components up by 4): Y per pixel, U and V at the format's
/// chroma resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Width in pixels.
    pub width: usize,
    /// Height in rows.
    pub height: usize,
    /// Y, row by row.
    pub y: Vec<i32>,
    /// U and V, row by row, `chroma_size` of them.
    pub uv: Vec<[i32; 2]>,
    /// The chroma planes' (width, height): half the width for 4:2:2 and 4:2:0, half the
    /// height for 4:2:0.
    pub chroma_size: (usize, usize),
}

impl Layout {
    /// The layout VEBOX_SURFACE_STATE `c` describes, or a refusal naming what is not
    /// modelled.
    pub(super) fn decode(c: &super::super::fields::Fields, at: u64) -> Result<Layout, Hang> {
        let format = match c.u("Surface Format") {
            4 if c.flag("Interleave Chroma") => Format::Nv12,
            0 => Format::Yuy2,
            other => {
                let name = c
                    .def
                    .field("Surface Format")
                    .and_then(|f| match f.ty {
                        gtsim_spec::table::Ty::Enum(e) => e.name_of(other),
                        _ => None,
                    })
                    .unwrap_or("unknown");
                return Err(unsupported(
                    "VEBOX_SURFACE_STATE",
                    at,
                    format!(
                        "Surface Format {other} ({name}{}): the model reads and writes NV12 \
                         (PLANAR4208 with Interleave Chroma) and YUY2 (YCRCBNORMAL)",
                        if other == 4 { ", planar chroma" } else { "" }
                    ),
                    REFERENCE,
                ));
            }
        };
        if c.flag("Half Pitch For Chroma") {
            return Err(unsupported(
                "VEBOX_SURFACE_STATE",
                at,
                "Half Pitch For Chroma",
                REFERENCE,
            ));
        }
        if c.u("X Offset For Frame") != 0 || c.u("Y Offset For Frame") != 0 {
            return Err(unsupported(
                "VEBOX_SURFACE_STATE",
                at,
                "a frame offset (X/Y Offset For Frame)",
                REFERENCE,
            ));
        }
        let (width, height) = (c.u("Width") + 1, c.u("Height") + 1);
        if width * height > MAX_PIXELS {
            return Err(unsupported(
                "VEBOX_SURFACE_STATE",
                at,
                format!(
                    "a {width}x{height} frame: the model holds a frame in host memory, up to \
                     {MAX_PIXELS} pixels (4096x4096)"
                ),
                REFERENCE,
            ));
        }
        let tiling = match (c.flag("Tiled Surface"), c.flag("Tile Walk")) {
            (false, _) => Tiling::Linear,
            (true, false) => Tiling::X,
            (true, true) => Tiling::Y,
        };
        Ok(Layout {
            width: width as u32,
            height: height as u32,
            pitch: c.u("Surface Pitch") + 1,
            tiling,
            format,
            chroma_at: (c.u("Y Offset For U"), c.u("X Offset For U")),
        })
    }

    /// The chroma planes' size for a frame of this layout.
    pub fn chroma_size(&self) -> (usize, usize) {
        let (w, h) = (self.width as usize, self.height as usize);
        match self.format {
            Format::Nv12 => (w.div_ceil(2), h.div_ceil(2)),
            Format::Yuy2 => (w.div_ceil(2), h),
        }
    }

    /// Bytes of row `y` of the luma (or packed) plane.
    fn row_bytes(&self) -> usize {
        match self.format {
            Format::Nv12 => self.width as usize,
            Format::Yuy2 => 2 * self.chroma_size().0 * 2,
        }
    }

    /// Checks that the rows fit the pitch and the tiling.
    fn check(&self, command: &'static str, at: u64) -> Result<(), Hang> {
        let needed = self.row_bytes() as u64 + self.chroma_at.1;
        if self.pitch < needed {
            return Err(invalid(
                command,
                at,
                format!(
                    "Surface Pitch {} bytes is less than a row's {needed} bytes",
                    self.pitch
                ),
            ));
        }
        let (tile_w, _) = self.tiling.tile_size();
        if self.tiling != Tiling::Linear && !self.pitch.is_multiple_of(tile_w) {
            return Err(invalid(
                command,
                at,
                format!(
                    "Surface Pitch {} bytes is not a whole number of {:?}-major tiles ({tile_w} bytes)",
                    self.pitch, self.tiling
                ),
            ));
        }
        Ok(())
    }

    /// Reads the frame at `base`.
    pub(super) fn read(
        &self,
        mem: &dyn Memory,
        base: u64,
        command: &'static str,
        at: u64,
    ) -> Result<Frame, Hang> {
        self.check(command, at)?;
        let (w, h) = (self.width as usize, self.height as usize);
        let (cw, ch) = self.chroma_size();
        let mut frame = Frame {
            width: w,
            height: h,
            y: vec![0; w * h],
            uv: vec![[0; 2]; cw * ch],
            chroma_size: (cw, ch),
        };
        let mut row = vec![0u8; self.row_bytes().max(2 * cw)];
        for y in 0..h {
            let bytes = &mut row[..self.row_bytes()];
            self.io_row(mem, base, y as u64, 0, bytes, command, at)?;
            match self.format {
                Format::Nv12 => {
                    for (x, b) in bytes.iter().enumerate() {
                        frame.y[y * w + x] = i32::from(*b) << 4;
                    }
                }
                Format::Yuy2 => {
                    for (i, q) in bytes.chunks_exact(4).enumerate() {
                        for (k, &luma) in [q[0], q[2]].iter().enumerate() {
                            if 2 * i + k < w {
                                frame.y[y * w + 2 * i + k] = i32::from(luma) << 4;
                            }
                        }
                        frame.uv[y * cw + i] = [i32::from(q[1]) << 4, i32::from(q[3]) << 4];
                    }
                }
            }
        }
        if self.format == Format::Nv12 {
            for y in 0..ch {
                let bytes = &mut row[..2 * cw];
                let (r, x) = self.chroma_at;
                self.io_row(mem, base, r + y as u64, x, bytes, command, at)?;
                for (i, p) in bytes.chunks_exact(2).enumerate() {
                    frame.uv[y * cw + i] = [i32::from(p[0]) << 4, i32::from(p[1]) << 4];
                }
            }
        }
        Ok(frame)
    }

    /// Writes `frame` (of this layout's size) at `base`, columns `columns` of it (the
    /// VEB_DI_IECP's Starting X to Ending X, whole chroma pairs).
    pub(super) fn write(
        &self,
        mem: &mut dyn Memory,
        base: u64,
        frame: &Frame,
        columns: std::ops::Range<usize>,
        command: &'static str,
        at: u64,
    ) -> Result<(), Hang> {
        self.check(command, at)?;
        let w = frame.width;
        let (cw, ch) = frame.chroma_size;
        // 8 bits keep the 12-bit value's 8 MSBs (seed 000 §3.6.1, the repacker).
        let byte = |v: i32| (v.clamp(0, 4095) >> 4) as u8;
        let (c0, c1) = (columns.start / 2, columns.end.div_ceil(2));
        let mut row = vec![0u8; self.row_bytes().max(2 * cw)];
        for y in 0..frame.height {
            let (from, bytes) = match self.format {
                Format::Nv12 => {
                    for x in columns.clone() {
                        row[x] = byte(frame.y[y * w + x]);
                    }
                    (columns.start, &row[columns.clone()])
                }
                Format::Yuy2 => {
                    for i in c0..c1 {
                        let [u, v] = frame.uv[y * cw + i];
                        let luma = |x: usize| byte(frame.y[y * w + x.min(w - 1)]);
                        row[4 * i..4 * i + 4].copy_from_slice(&[
                            luma(2 * i),
                            byte(u),
                            luma(2 * i + 1),
                            byte(v),
                        ]);
                    }
                    (4 * c0, &row[4 * c0..4 * c1])
                }
            };
            let from = from as u64;
            self.io_row_write(mem, base, y as u64, from, bytes, command, at)?;
        }
        if self.format == Format::Nv12 {
            for y in 0..ch {
                for i in c0..c1 {
                    let [u, v] = frame.uv[y * cw + i];
                    row[2 * i] = byte(u);
                    row[2 * i + 1] = byte(v);
                }
                let (r, x) = self.chroma_at;
                let bytes = &row[2 * c0..2 * c1];
                self.io_row_write(
                    mem,
                    base,
                    r + y as u64,
                    x + 2 * c0 as u64,
                    bytes,
                    command,
                    at,
                )?;
            }
        }
        Ok(())
    }

    /// Reads `out.len()` bytes from byte `x` of row `y`, in the tiling's contiguous runs.
    #[allow(
        clippy::too_many_arguments,
        reason = "one row's place and the error's context"
    )]
    pub(super) fn io_row(
        &self,
        mem: &dyn Memory,
        base: u64,
        y: u64,
        x: u64,
        out: &mut [u8],
        command: &'static str,
        at: u64,
    ) -> Result<(), Hang> {
        let mut i = 0;
        while i < out.len() {
            let (a, n) = self.run(base, x + i as u64, y, out.len() - i, command, at)?;
            mem.read(a, &mut out[i..i + n])
                .map_err(|fault| Hang::Fault {
                    command,
                    addr: at,
                    fault,
                })?;
            i += n;
        }
        Ok(())
    }

    /// Writes `data` at byte `x` of row `y`, in the tiling's contiguous runs.
    #[allow(
        clippy::too_many_arguments,
        reason = "one row's place and the error's context"
    )]
    pub(super) fn io_row_write(
        &self,
        mem: &mut dyn Memory,
        base: u64,
        y: u64,
        x: u64,
        data: &[u8],
        command: &'static str,
        at: u64,
    ) -> Result<(), Hang> {
        let mut i = 0;
        while i < data.len() {
            let (a, n) = self.run(base, x + i as u64, y, data.len() - i, command, at)?;
            mem.write(a, &data[i..i + n]).map_err(|fault| Hang::Fault {
                command,
                addr: at,
                fault,
            })?;
            i += n;
        }
        Ok(())
    }

    /// The address of byte `x` of row `y` and how many of the `left` bytes from there
    /// are contiguous in memory.
    fn run(
        &self,
        base: u64,
        x: u64,
        y: u64,
        left: usize,
        command: &'static str,
        at: u64,
    ) -> Result<(u64, usize), Hang> {
        let off = self
            .tiling
            .offset(self.pitch, x, y)
            .map_err(|e| invalid(command, at, e.to_string()))?;
        let n = (self.tiling.contiguous(self.pitch, x) as usize).min(left);
        Ok((base.wrapping_add(off), n.max(1)))
    }
}

/// A hang for state that cannot describe a frame.
pub(super) fn invalid(command: &'static str, at: u64, why: String) -> Hang {
    Hang::Command {
        command,
        addr: at,
        error: Box::new(gtsim_pipe3d::draw::DrawError::State { command, why }),
    }
}
