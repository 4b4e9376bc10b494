//! The blitter ring's 2D commands (IVB PRM Vol1 Part4 "Blitter Engine"; the spec is
//! `crates/spec/defs/gen7/blt.spec`): XY_COLOR_BLT fills a rectangle with a colour,
//! XY_SRC_COPY_BLT copies one. Pixels are 1, 2 or 4 bytes (BR13 Color Depth); a tiled
//! surface is X-major (the Y-major choice is the BCS_SWCTRL register, not modelled),
//! its pitch given in dwords. The raster operations are PATCOPY (0xF0) for the fill and
//! SRCCOPY (0xCC) for the copy; others, and clipping, fail as unsupported. Every pixel
//! counts against the submission's pixel budget, so a huge rectangle ends as a hang.

use super::Hang;
use gtsim_mem::Memory;
use gtsim_mem::tiling::Tiling;
use gtsim_pipe3d::draw::Watchdog;
use gtsim_spec::gen7::BltColorDepth as ColorDepth;
use gtsim_spec::gen7::{XyColorBlt, XySrcCopyBlt};

/// IVB PRM Vol1 Part4 BR13 raster operations: the pattern (the fill colour) or the
/// source, unchanged.
const ROP_PATCOPY: u8 = 0xf0;
const ROP_SRCCOPY: u8 = 0xcc;

/// Bytes per pixel of a BR13 Color Depth.
fn bytes_per_pixel(d: ColorDepth) -> u64 {
    match d.0 {
        0 => 1,
        1 | 2 => 2,
        _ => 4,
    }
}

/// One surface of a blit: where it is and how its rows are laid out.
#[derive(Clone, Copy)]
struct Surface {
    base: u64,
    pitch: u64,
    tiling: Tiling,
}

impl Surface {
    /// `pitch` as BR13/BR11 give it: bytes when linear, dwords when tiled.
    fn new(base: u64, pitch: u16, tiled: bool) -> Surface {
        debug_assert!(tiled || pitch < 0x8000, "checked by Blitter::pitch");
        if tiled {
            Surface {
                base,
                pitch: u64::from(pitch) * 4,
                tiling: Tiling::X,
            }
        } else {
            Surface {
                base,
                pitch: u64::from(pitch),
                tiling: Tiling::Linear,
            }
        }
    }

    /// The address of byte `x` of row `y`: a linear row is `pitch` bytes after the one
    /// above it, whatever its width (the blitter computes the address, it does not
    /// bound it); a tiled surface must hold the byte within its pitch.
    fn at(&self, x: u64, y: u64) -> Result<u64, gtsim_mem::tiling::TilingError> {
        if self.tiling == Tiling::Linear {
            return Ok(self
                .base
                .wrapping_add(y.wrapping_mul(self.pitch))
                .wrapping_add(x));
        }
        self.tiling
            .offset(self.pitch, x, y)
            .map(|o| self.base.wrapping_add(o))
    }
}

/// What a blit needs from the command streamer.
pub(super) struct Blitter<'a> {
    pub mem: &'a mut dyn Memory,
    pub watchdog: &'a mut Watchdog,
    pub command: &'static str,
    pub addr: u64,
}

impl Blitter<'_> {
    fn unsupported(&self, what: String) -> Hang {
        Hang::Unsupported {
            command: self.command,
            addr: self.addr,
            unsupported: gtsim_spec::Unsupported::new(what, "IVB PRM Vol1 Part4 (Blitter Engine)"),
        }
    }

    fn layout(&self, why: gtsim_mem::tiling::TilingError) -> Hang {
        Hang::Unsupported {
            command: self.command,
            addr: self.addr,
            unsupported: gtsim_spec::Unsupported::new(
                format!("a surface the blitter cannot address ({why})"),
                "IVB PRM Vol1 Part4 BR13 Destination Pitch, BR11 Source Pitch",
            ),
        }
    }

    /// A linear pitch of 32 KiB or more: the BR13/BR11 pitch field's top bit, which the
    /// blitter may read as a negative (bottom-up) pitch; not modelled.
    fn pitch(&self, pitch: u16, tiled: bool) -> Result<(), Hang> {
        if !tiled && pitch >= 0x8000 {
            return Err(self.unsupported(format!(
                "a linear pitch of {pitch} bytes (bit 15 set: a bottom-up pitch)"
            )));
        }
        Ok(())
    }

    /// Charges the rectangle's pixels; `Ok(None)` for an empty one.
    fn rectangle(
        &mut self,
        x1: u16,
        y1: u16,
        x2: u16,
        y2: u16,
    ) -> Result<Option<(u64, u64)>, Hang> {
        if x2 <= x1 || y2 <= y1 {
            return Ok(None);
        }
        let (w, h) = (u64::from(x2 - x1), u64::from(y2 - y1));
        self.watchdog.pixels(w * h).map_err(|error| Hang::Blit {
            command: self.command,
            addr: self.addr,
            error: Box::new(error),
        })?;
        Ok(Some((w, h)))
    }

    /// The contiguous runs of `len` bytes from byte `x` of row `y` of `s` (a linear row is
    /// one run; a tiled one breaks at every 16 bytes, the narrowest run a tile keeps
    /// together), as (address, offset in the row, length).
    fn runs(
        &self,
        s: &Surface,
        x: u64,
        y: u64,
        len: u64,
    ) -> Result<Vec<(u64, usize, usize)>, Hang> {
        let mut out = vec![];
        let mut i = 0u64;
        while i < len {
            let n = match s.tiling {
                Tiling::Linear => len - i,
                _ => (16 - (x + i) % 16).min(len - i),
            };
            let a = s.at(x + i, y).map_err(|e| self.layout(e))?;
            out.push((a, i as usize, n as usize));
            i += n;
        }
        Ok(out)
    }

    fn fault(&self, fault: gtsim_mem::Fault) -> Hang {
        Hang::Fault {
            command: self.command,
            addr: self.addr,
            fault,
        }
    }

    /// Writes `row` at byte `x` of row `y` of `s`.
    fn write_row(&mut self, s: &Surface, x: u64, y: u64, row: &[u8]) -> Result<(), Hang> {
        for (a, i, n) in self.runs(s, x, y, row.len() as u64)? {
            self.mem
                .write(a, &row[i..i + n])
                .map_err(|f| self.fault(f))?;
        }
        Ok(())
    }

    /// Reads `row` from byte `x` of row `y` of `s`.
    fn read_row(&self, s: &Surface, x: u64, y: u64, row: &mut [u8]) -> Result<(), Hang> {
        for (a, i, n) in self.runs(s, x, y, row.len() as u64)? {
            self.mem
                .read(a, &mut row[i..i + n])
                .map_err(|f| self.fault(f))?;
        }
        Ok(())
    }

    /// The checks both blits share: no clipping, the one raster operation modelled.
    fn check(&self, clipping: bool, rop: u8, want: (u8, &str)) -> Result<(), Hang> {
        if clipping {
            return Err(self.unsupported("clipping (XY_SETUP_CLIP_BLT)".into()));
        }
        if rop != want.0 {
            return Err(self.unsupported(format!(
                "raster operation {rop:#04x} in {} (only {}, {:#04x})",
                self.command, want.1, want.0
            )));
        }
        Ok(())
    }

    /// The bytes of a 32-bit pixel the byte masks let through (all for 8 and 16 bits).
    fn mask(depth: ColorDepth, alpha: bool, rgb: bool) -> [bool; 4] {
        if bytes_per_pixel(depth) < 4 {
            return [true; 4];
        }
        [rgb, rgb, rgb, alpha]
    }

    /// The shared checks and setup of a blit, then each destination row of the
    /// rectangle read, its bytes the byte masks let through replaced from `source`, and
    /// written back. `Ok` without effect for an empty rectangle.
    #[allow(
        clippy::too_many_arguments,
        reason = "the fields both blit commands share"
    )]
    fn blit(
        &mut self,
        (clipping, rop, want): (bool, u8, (u8, &str)),
        depth: ColorDepth,
        (alpha, rgb): (bool, bool),
        dst: (u64, u16, bool),
        (x1, y1, x2, y2): (u16, u16, u16, u16),
        source: Source,
    ) -> Result<(), Hang> {
        self.check(clipping, rop, want)?;
        let Some((w, h)) = self.rectangle(x1, y1, x2, y2)? else {
            return Ok(());
        };
        let bpp = bytes_per_pixel(depth);
        self.pitch(dst.1, dst.2)?;
        if let Source::Copy { pitch, tiled, .. } = source {
            self.pitch(pitch, tiled)?;
        }
        let dst = Surface::new(dst.0, dst.1, dst.2);
        let mask = Self::mask(depth, alpha, rgb);
        let x0 = u64::from(x1) * bpp;
        let mut from = vec![0u8; (w * bpp) as usize];
        if let Source::Colour(c) = source {
            for (i, b) in from.iter_mut().enumerate() {
                *b = c[i % bpp as usize];
            }
        }
        let mut to = vec![0u8; from.len()];
        for y in 0..h {
            if let Source::Copy {
                base,
                pitch,
                tiled,
                x,
                y: sy,
            } = source
            {
                let src = Surface::new(base, pitch, tiled);
                self.read_row(&src, u64::from(x) * bpp, u64::from(sy) + y, &mut from)?;
            }
            let dy = u64::from(y1) + y;
            self.read_row(&dst, x0, dy, &mut to)?;
            for (i, (t, f)) in to.iter_mut().zip(&from).enumerate() {
                if mask[i % bpp as usize] {
                    *t = *f;
                }
            }
            self.write_row(&dst, x0, dy, &to)?;
        }
        Ok(())
    }

    /// XY_COLOR_BLT: the rectangle filled with the solid pattern colour.
    pub fn color(&mut self, c: &XyColorBlt) -> Result<(), Hang> {
        self.blit(
            (
                c.clipping_enabled,
                c.raster_operation,
                (ROP_PATCOPY, "PATCOPY"),
            ),
            c.color_depth,
            (c.n32bpp_byte_mask_alpha, c.n32bpp_byte_mask_rgb),
            (
                c.destination_base_address,
                c.destination_pitch,
                c.tiling_enable,
            ),
            (
                c.destination_x1,
                c.destination_y1,
                c.destination_x2,
                c.destination_y2,
            ),
            Source::Colour(c.solid_pattern_color.to_le_bytes()),
        )
    }

    /// XY_SRC_COPY_BLT: rows copied whole, so an overlapping copy reads each source row
    /// before writing its destination row, in top-to-bottom order.
    pub fn src_copy(&mut self, c: &XySrcCopyBlt) -> Result<(), Hang> {
        self.blit(
            (
                c.clipping_enabled,
                c.raster_operation,
                (ROP_SRCCOPY, "SRCCOPY"),
            ),
            c.color_depth,
            (c.n32bpp_byte_mask_alpha, c.n32bpp_byte_mask_rgb),
            (
                c.destination_base_address,
                c.destination_pitch,
                c.destination_tiling_enable,
            ),
            (
                c.destination_x1,
                c.destination_y1,
                c.destination_x2,
                c.destination_y2,
            ),
            Source::Copy {
                base: c.source_base_address,
                pitch: c.source_pitch,
                tiled: c.source_tiling_enable,
                x: c.source_x1,
                y: c.source_y1,
            },
        )
    }
}

/// Where a blit's pixels come from.
#[derive(Clone, Copy)]
enum Source {
    /// XY_COLOR_BLT's solid pattern colour (its bytes, low first).
    Colour([u8; 4]),
    /// XY_SRC_COPY_BLT's source surface and the rectangle's origin in it.
    Copy {
        base: u64,
        pitch: u16,
        tiled: bool,
        x: u16,
        y: u16,
    },
}

/// MI_FLUSH_DW on the blitter ring (IVB PRM Vol1 Part4) and Gen11's video enhancement
/// ring (Gen11 PRM Vol 2a; iHD writes its status tags this way, media-driver
/// mhw_mi_g11_X.cpp AddMiFlushDwCmd): the flush itself has no effect in a model that
/// executes in order; its post-sync operation writes the immediate data (a dword, or a
/// qword when the command carries its high dword) or the timestamp. A Store Data Index
/// write, into the hardware status page, and on Gen11 a write to a GGTT address (each
/// context's addresses are its PPGTT's) are not modelled.
pub(super) fn flush_dw<F: super::front::Front>(
    cs: &mut super::cs::CommandStreamer<'_, F>,
    c: &super::fields::Fields,
    at: u64,
) -> Result<(), Hang> {
    const NO_WRITE: u64 = 0;
    const WRITE_IMMEDIATE_DATA: u64 = 1;
    const WRITE_TIMESTAMP: u64 = 3;
    let name = c.def.name;
    let op = c.u("Post Sync Operation");
    if op == NO_WRITE {
        return Ok(());
    }
    if op != WRITE_IMMEDIATE_DATA && op != WRITE_TIMESTAMP {
        return Err(super::cs::unsupported(
            name,
            at,
            format!("MI_FLUSH_DW Post Sync Operation {op}, a reserved value"),
            "IVB PRM Vol1 Part3 MI_FLUSH_DW",
        ));
    }
    if c.flag("Store Data Index") {
        return Err(super::cs::unsupported(
            name,
            at,
            "MI_FLUSH_DW writes into the hardware status page (Store Data Index)",
            "IVB PRM Vol1 Part3 MI_FLUSH_DW",
        ));
    }
    // Gen7 has one GTT, its aliasing PPGTT the same addresses: the type matters only on
    // Gen11, where each context has its own PPGTT.
    if cs.ring == super::Ring::VideoEnhance && c.u("Destination Address Type") == 1 {
        return Err(super::cs::unsupported(
            name,
            at,
            "MI_FLUSH_DW post-sync writes to a GGTT address (each context's addresses are its PPGTT's)",
            "Gen11 PRM Vol 2a MI_FLUSH_DW",
        ));
    }
    let high = c.array("Immediate Data High");
    let addr = c.address("Address");
    if op == WRITE_TIMESTAMP {
        let clock = cs.clock();
        return cs.write_u64(name, at, addr, clock);
    }
    let low = c.u("Immediate Data Low");
    match high.first() {
        Some(h) => cs.write_u64(name, at, addr, low | h.u("Data DWord") << 32),
        None => cs.write_u32(name, at, addr, low as u32),
    }
}
