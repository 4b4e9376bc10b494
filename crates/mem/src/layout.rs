//! Surface layouts: where texel (x, y, slice or z, lod, sample) of a surface lives.
//!
//! The seeds define the fields (RENDER_SURFACE_STATE: Surface Type, Width/Height/Depth,
//! MIP Count, Surface Horizontal/Vertical Alignment, Surface Array Spacing, Number of
//! Multisamples and Multisampled Surface Storage Format; seed 000 §2.12.2 L1969-2617) and
//! refer to "Memory Data Formats" for the geometry, which the seeds lack
//! (`../shared/seeds/INDEX.md`, memory model row). The geometry here is the IVB PRM Vol1
//! Part1 "Surface Layout" as publicly documented (and as Mesa's isl implements it for
//! Gen7, `ISL_DIM_LAYOUT_GEN4_2D` / `GEN4_3D`):
//!
//! * **2D, 1D and cube (and their arrays)**: LOD0 at the top left, LOD1 below it, LOD2 and
//!   every later LOD stacked below one another to the right of LOD1. Each LOD's size is
//!   the minified size rounded up to the alignment unit (i = horizontal alignment,
//!   j = vertical). Array slices (cube faces are slices 6·cube + face) follow each other
//!   every QPitch rows: `h0 + h1 + 12·j` for full spacing (the Ivy Bridge equation; Sandy
//!   Bridge's had 11·j), `h0` for LOD0-only spacing.
//! * **3D**: every LOD stacked below the previous one; LOD L holds its `max(1, d >> L)`
//!   slices in rows of `2^L` slices side by side.
//! * **Gen8+ explicit QPitch** ([`ArraySpacing::QPitch`]: RENDER_SURFACE_STATE's Surface
//!   QPitch, seed 003): the same mip arrangement within a slice, slices QPitch rows
//!   apart, and 3D surfaces laid out as 2D arrays of their z slices (Mesa isl's
//!   `ISL_DIM_LAYOUT_GEN4_2D` for Gen9+ 3D: LOD L's slice z at the LOD's origin + z ×
//!   QPitch).
//! * **Multisampling**: array-style (UMS/CMS; each sample is a slice after the logical
//!   slices' samples: physical slice = slice·samples + sample) or interleaved (IMS, depth
//!   and stencil: samples interleave in 2×2 pixel groups, widening the surface).
//! * **Compressed formats**: sizes and offsets in blocks; alignments are 4 (one block).
//!
//! Addresses then go through the surface's [`Tiling`].

use crate::tiling::{Tiling, TilingError};
use thiserror::Error;

/// RENDER_SURFACE_STATE "Surface Type" (seed 000 §2.12.2, DW0 31:29).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SurfaceType {
    /// SURFTYPE_1D.
    D1,
    /// SURFTYPE_2D.
    D2,
    /// SURFTYPE_3D.
    D3,
    /// SURFTYPE_CUBE: six faces per cube, stored as array slices.
    Cube,
    /// SURFTYPE_BUFFER: linear elements.
    Buffer,
}

/// "Surface Array Spacing" (seed 000 L2110-2122), or Gen8+'s explicit QPitch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArraySpacing {
    /// ARYSPC_FULL: room for every LOD between slices.
    Full,
    /// ARYSPC_LOD0: slices hold LOD0 only.
    Lod0,
    /// Gen8+: slices (array layers, cube faces, 3D z slices) this many rows (of
    /// elements: texels, or blocks of a compressed format) apart, as RENDER_SURFACE_STATE
    /// Surface QPitch gives it; 3D surfaces are 2D arrays of their slices.
    QPitch(u32),
}

/// "Multisampled Surface Storage Format".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MsaaLayout {
    /// MSFMT_MSS: samples as array slices (with or without an MCS).
    Array,
    /// MSFMT_DEPTH_STENCIL: samples interleaved in the plane.
    Interleaved,
}

/// Everything that decides a surface's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceDesc {
    /// Surface type.
    pub ty: SurfaceType,
    /// Width in texels (buffer: elements).
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// 3D: depth in texels; arrays: number of slices; cube: number of cubes.
    pub depth: u32,
    /// Number of LODs (MIP Count + 1).
    pub levels: u32,
    /// Samples per pixel (1, 2, 4 or 8).
    pub samples: u32,
    /// How samples are stored.
    pub msaa_layout: MsaaLayout,
    /// Horizontal alignment unit in texels (4, 8, or 16 for HiZ).
    pub halign: u32,
    /// Vertical alignment unit in texels (2, 4, or 8 for HiZ).
    pub valign: u32,
    /// Array spacing.
    pub array_spacing: ArraySpacing,
    /// Texels per block horizontally and vertically (1×1; 4×4 BCn; 8×4 FXT1 and HiZ).
    pub block: (u32, u32),
    /// Bytes per block (per texel for uncompressed formats).
    pub block_bytes: u32,
    /// Tiling.
    pub tiling: Tiling,
    /// Pitch in bytes.
    pub pitch: u64,
    /// Where the surface's origin sits from its base address, in texels (x, y): the
    /// X Offset and Y Offset of RENDER_SURFACE_STATE, which let a tiled surface start
    /// inside a tile (seed 000 RENDER_SURFACE_STATE DW5, seed 003 RENDER_SURFACE_STATE
    /// DW5: "the horizontal offset in pixels from the Surface Base Address to the
    /// start (origin) of the surface"). Every level and slice is placed from it.
    pub origin: (u32, u32),
}

/// A texel the layout cannot place.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutError {
    /// A coordinate outside the surface.
    #[error("{what} {value} is outside the surface (limit {limit})")]
    Outside {
        /// Which coordinate.
        what: &'static str,
        /// Its value.
        value: u32,
        /// The first value outside.
        limit: u32,
    },
    /// A description the hardware does not allow.
    #[error("invalid surface: {0}")]
    Invalid(String),
    /// The tiling refuses the address.
    #[error(transparent)]
    Tiling(#[from] TilingError),
}

/// The number of entries of a buffer surface from RENDER_SURFACE_STATE's Width, Height
/// and Depth fields, which hold the count − 1 split as bits 6:0, 20:7 and from 21 up
/// (seed 000 §2.12.2, seed 003 RENDER_SURFACE_STATE: the same split on both
/// generations); `depth_bits` of Depth count (10 for RAW, 7 for a formatted buffer, 6
/// for a structured one), higher field bits are not part of the count.
pub fn buffer_entries(width: u32, height: u32, depth: u32, depth_bits: u32) -> u64 {
    let n = u64::from(width & 0x7f)
        | u64::from(height & 0x3fff) << 7
        | u64::from(depth & ((1 << depth_bits) - 1)) << 21;
    n + 1
}

fn align(v: u32, a: u32) -> u32 {
    v.div_ceil(a) * a
}

fn minify(v: u32, lod: u32) -> u32 {
    (v >> lod.min(31)).max(1)
}

/// One image of a surface, for texel offsets without re-deriving the image's origin
/// ([`SurfaceDesc::image_offsets`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageOffsets {
    width: u32,
    height: u32,
    origin: (u32, u32),
    block: (u32, u32),
    block_bytes: u32,
    tiling: Tiling,
    pitch: u64,
}

impl ImageOffsets {
    /// Byte offset from the surface base of texel (x, y) of the image: the same value,
    /// or the same error, as [`SurfaceDesc::texel_offset`].
    pub fn offset(&self, x: u32, y: u32) -> Result<u64, LayoutError> {
        let (w, h) = (self.width, self.height);
        if x >= w || y >= h {
            let (what, value, limit) = if x >= w { ("x", x, w) } else { ("y", y, h) };
            return Err(LayoutError::Outside { what, value, limit });
        }
        let (bw, bh) = self.block;
        // Uncompressed formats have 1x1 blocks: no division for them.
        let (bx, by) = if (bw, bh) == (1, 1) {
            (self.origin.0 + x, self.origin.1 + y)
        } else {
            ((self.origin.0 + x) / bw, (self.origin.1 + y) / bh)
        };
        Ok(self
            .tiling
            .offset(self.pitch, bx as u64 * self.block_bytes as u64, by as u64)?)
    }

    /// Byte offset from the surface base of texel (x, y) addressed from the image's
    /// origin like [`Self::offset`], but bounded by the surface's pitch rather than the
    /// image's size: the texel may lie right of or below the image, in the surface's
    /// padding or a neighbouring image, as long as its row stays within the pitch. This
    /// is how the depth and stencil buffers address a pixel past a LOD's edge (the
    /// hardware computes the address from the position; it does not bound it).
    pub fn offset_in_pitch(&self, x: u32, y: u32) -> Result<u64, LayoutError> {
        if x < self.width && y < self.height {
            return self.offset(x, y);
        }
        let (bw, bh) = (self.block.0.max(1), self.block.1.max(1));
        let bx = u64::from(self.origin.0.saturating_add(x) / bw);
        let by = u64::from(self.origin.1.saturating_add(y) / bh);
        let row_x = bx * u64::from(self.block_bytes);
        if row_x + u64::from(self.block_bytes) > self.pitch {
            return Err(LayoutError::Outside {
                what: "x",
                value: x,
                limit: self.width,
            });
        }
        Ok(self.tiling.offset(self.pitch, row_x, by)?)
    }

    /// Bytes from the surface base that hold every texel of the image: from the start
    /// of its first row to the end of its last (for a tiled surface, of the tile rows
    /// they lie in, which is what a tiled image occupies; Intel PRM Vol1 Part2 §"Tiled
    /// Memory": a tile row is pitch x tile height bytes), possibly more. `None` for an
    /// empty image or a pitch the tiling refuses (whose offsets all fail).
    pub fn byte_range(&self) -> Option<std::ops::Range<u64>> {
        if self.width == 0 || self.height == 0 {
            return None;
        }
        let (bw, bh) = (
            u64::from(self.block.0.max(1)),
            u64::from(self.block.1.max(1)),
        );
        let bytes = u64::from(self.block_bytes);
        let first_row = u64::from(self.origin.1) / bh;
        let last_row = (u64::from(self.origin.1) + u64::from(self.height) - 1) / bh;
        let (tw, th) = self.tiling.tile_size();
        if self.pitch == 0 || self.pitch & (tw - 1) != 0 {
            return None;
        }
        if self.tiling == Tiling::Linear {
            let x0 = u64::from(self.origin.0) / bw * bytes;
            let x1 = (u64::from(self.origin.0) + u64::from(self.width) - 1) / bw * bytes + bytes;
            return Some(first_row * self.pitch + x0..last_row * self.pitch + x1);
        }
        Some(first_row / th * th * self.pitch..(last_row / th + 1) * th * self.pitch)
    }

    /// [`ImageOffsets::run`] of texel (x, y) cut to at most `want` texels, with the number
    /// of rows from `y` on (1 at least, within the image) whose pieces at the same
    /// texels follow each other in memory ([`Tiling::stacked_rows`]): texel x + i of row
    /// y + j is at the offset plus (j x texels + i) texels for i below the texels and j
    /// below the rows.
    pub fn column(&self, x: u32, y: u32, want: u32) -> Result<(u64, u32, u32), LayoutError> {
        let (off, k) = self.run(x, y)?;
        let k = k.min(want.max(1));
        if self.block != (1, 1) {
            return Ok((off, k, 1));
        }
        let bytes = u64::from(self.block_bytes);
        let row_x = u64::from(self.origin.0 + x) * bytes;
        let rows = self.tiling.stacked_rows(
            self.pitch,
            row_x,
            u64::from(k) * bytes,
            u64::from(self.origin.1 + y),
        );
        let left = u64::from(self.height - y);
        Ok((off, k, rows.clamp(1, left) as u32))
    }

    /// The image's width and height in texels.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// [`ImageOffsets::offset`] of texel (x, y) with the number of texels from it on
    /// along its row (1 at least, within the image) that follow each other in memory:
    /// texel x + i is at the offset plus i texels for i below that number. Compressed
    /// formats count one block column at a time (1).
    pub fn run(&self, x: u32, y: u32) -> Result<(u64, u32), LayoutError> {
        let off = self.offset(x, y)?;
        if self.block != (1, 1) {
            return Ok((off, 1));
        }
        let bytes = self.block_bytes as u64;
        let row_x = (self.origin.0 + x) as u64 * bytes;
        let texels = self.tiling.contiguous(self.pitch, row_x) / bytes.max(1);
        let left = (self.width - x) as u64;
        Ok((off, texels.clamp(1, left) as u32))
    }
}

impl SurfaceDesc {
    /// A single-level, single-sample 2D surface of `width` x `height` elements of
    /// `block_bytes` bytes, `tiling` and `pitch` bytes per row, aligned 4x2 (the
    /// surface state's smallest alignments): the plain shape tests and simple callers
    /// start from (`SurfaceDesc { levels: 5, ..SurfaceDesc::plain_2d(..) }`).
    pub fn plain_2d(
        width: u32,
        height: u32,
        block_bytes: u32,
        tiling: Tiling,
        pitch: u64,
    ) -> SurfaceDesc {
        SurfaceDesc {
            ty: SurfaceType::D2,
            width,
            height,
            depth: 1,
            levels: 1,
            samples: 1,
            msaa_layout: MsaaLayout::Array,
            halign: 4,
            valign: 2,
            array_spacing: ArraySpacing::Full,
            block: (1, 1),
            block_bytes,
            tiling,
            pitch,
            origin: (0, 0),
        }
    }

    fn check(&self) -> Result<(), LayoutError> {
        let ok_samples = matches!(self.samples, 1 | 2 | 4 | 8 | 16);
        if !ok_samples || self.levels == 0 || self.width == 0 || self.height == 0 {
            return Err(LayoutError::Invalid(format!(
                "{} samples, {} levels, {}x{}",
                self.samples, self.levels, self.width, self.height
            )));
        }
        if self.halign == 0 || self.valign == 0 || self.block.0 == 0 || self.block.1 == 0 {
            return Err(LayoutError::Invalid("zero alignment or block size".into()));
        }
        Ok(())
    }

    /// Physical size of LOD0 in texels: interleaved multisampling widens it (IMS: 2x →
    /// 2W×H, 4x → 2W×2H, 8x → 4W×2H, each rounded to whole 2×2 groups).
    fn physical_size(&self) -> (u32, u32) {
        if self.msaa_layout == MsaaLayout::Interleaved && self.samples > 1 {
            let (sx, sy) = ims_scale(self.samples);
            (align(self.width, 2) * sx, align(self.height, 2) * sy)
        } else {
            (self.width, self.height)
        }
    }

    /// Aligned width and height of LOD `lod` in texels.
    pub fn level_extent(&self, lod: u32) -> (u32, u32) {
        let (w, h) = self.physical_size();
        let (i, j) = self.alignment();
        (align(minify(w, lod), i), align(minify(h, lod), j))
    }

    /// The alignment unit in texels (compressed formats: one block, or the horizontal
    /// and vertical alignment when larger: Gen9+ counts those in blocks, which its
    /// front gives here in texels).
    fn alignment(&self) -> (u32, u32) {
        if self.block != (1, 1) {
            (self.block.0.max(self.halign), self.block.1.max(self.valign))
        } else {
            (self.halign, self.valign)
        }
    }

    /// Rows between array slices (QPitch), in texel rows. Full spacing: IVB PRM Vol1
    /// Part1 "Surface Arrays", QPitch = h0 + h1 + 12j (the seeds point to that chapter,
    /// seed 000 L2115, without reproducing it; Mesa's isl notes the same fact, "The QPitch
    /// equation changed slightly in Ivybridge", 12 where Sandy Bridge has 11).
    pub fn qpitch(&self) -> u32 {
        let (_, h0) = self.level_extent(0);
        match self.array_spacing {
            // Rows of elements: for a compressed format, blocks of block.1 texel rows.
            ArraySpacing::QPitch(q) => q * self.block.1,
            ArraySpacing::Lod0 => h0,
            ArraySpacing::Full => {
                let (_, h1) = self.level_extent(1);
                h0 + h1 + 12 * self.alignment().1
            }
        }
    }

    /// Logical slices (array layers; cube: 6 per cube; 3D: 1) times array-style samples.
    fn physical_slices(&self) -> u32 {
        let layers = match self.ty {
            SurfaceType::Cube => self.depth.max(1) * 6,
            SurfaceType::D3 | SurfaceType::Buffer => 1,
            _ => self.depth.max(1),
        };
        if self.msaa_layout == MsaaLayout::Array {
            layers * self.samples
        } else {
            layers
        }
    }

    /// Top-left texel of LOD `lod` of a 2D-layout slice, relative to the slice.
    fn mip_origin_2d(&self, lod: u32) -> (u32, u32) {
        if lod == 0 {
            return (0, 0);
        }
        let (_, h0) = self.level_extent(0);
        if lod == 1 {
            return (0, h0);
        }
        let (w1, _) = self.level_extent(1);
        let below: u32 = (2..lod).map(|l| self.level_extent(l).1).sum();
        (w1, h0 + below)
    }

    /// Top-left texel of (slice or z, lod) from the surface's base address: the
    /// image's place in the layout, moved by the surface's [`origin`](Self::origin).
    pub fn image_origin(&self, slice: u32, lod: u32) -> Result<(u32, u32), LayoutError> {
        let (x, y) = self.image_place(slice, lod)?;
        let (ox, oy) = self.origin;
        Ok((x + ox, y + oy))
    }

    /// Top-left texel of (slice or z, lod) from the surface's origin.
    fn image_place(&self, slice: u32, lod: u32) -> Result<(u32, u32), LayoutError> {
        self.check()?;
        if lod >= self.levels {
            return Err(LayoutError::Outside {
                what: "LOD",
                value: lod,
                limit: self.levels,
            });
        }
        match self.ty {
            // Gen8+: a 3D surface is a 2D array of its z slices (LOD L has d >> L).
            SurfaceType::D3 if matches!(self.array_spacing, ArraySpacing::QPitch(_)) => {
                let d = minify(self.depth.max(1), lod);
                if slice >= d {
                    return Err(LayoutError::Outside {
                        what: "z",
                        value: slice,
                        limit: d,
                    });
                }
                let (x, y) = self.mip_origin_2d(lod);
                Ok((x, y + slice * self.qpitch()))
            }
            SurfaceType::D3 => {
                let d = minify(self.depth.max(1), lod);
                if slice >= d {
                    return Err(LayoutError::Outside {
                        what: "z",
                        value: slice,
                        limit: d,
                    });
                }
                // LODs stacked; LOD L holds its slices 2^L to a row.
                let mut y = 0;
                for l in 0..lod {
                    let per_row = 1u32 << l.min(31);
                    y += minify(self.depth.max(1), l).div_ceil(per_row) * self.level_extent(l).1;
                }
                let per_row = 1u32 << lod.min(31);
                let (w, h) = self.level_extent(lod);
                Ok(((slice % per_row) * w, y + (slice / per_row) * h))
            }
            // Gen9+ 1D (Mesa isl ISL_DIM_LAYOUT_GFX9_1D, get_image_offset_sa_gfx9_1d):
            // within a slice the LODs side by side in one row, each aligned to the
            // horizontal alignment; slice s is row s (isl's array pitch is one row),
            // the rows QPitch texels long (the Skylake 1D surfaces rule isl quotes:
            // "Surface QPitch specifies the distance in pixels between array slices";
            // the pitch, which the hardware ignores for 1D, is then QPitch elements).
            // The layout is linear (a tiled 1D surface is laid out as 2D).
            SurfaceType::D1 if matches!(self.array_spacing, ArraySpacing::QPitch(_)) => {
                let slices = self.physical_slices();
                if slice >= slices {
                    return Err(LayoutError::Outside {
                        what: "slice",
                        value: slice,
                        limit: slices,
                    });
                }
                let x: u32 = (0..lod).map(|l| self.level_extent(l).0).sum();
                Ok((x, slice))
            }
            SurfaceType::Buffer => Err(LayoutError::Invalid(
                "buffers have no images; use the element index".into(),
            )),
            _ => {
                let slices = self.physical_slices();
                if slice >= slices {
                    return Err(LayoutError::Outside {
                        what: "slice",
                        value: slice,
                        limit: slices,
                    });
                }
                let (x, y) = self.mip_origin_2d(lod);
                // Slice 0 needs no QPitch (computing it per texel costs).
                if slice == 0 {
                    return Ok((x, y));
                }
                Ok((x, y + slice * self.qpitch()))
            }
        }
    }

    /// Byte offset from the surface base of texel (x, y) of `slice` (array layer, cube
    /// face 6·cube + face, or 3D z), `lod` and `sample`.
    pub fn texel_offset(
        &self,
        x: u32,
        y: u32,
        slice: u32,
        lod: u32,
        sample: u32,
    ) -> Result<u64, LayoutError> {
        self.check()?;
        if self.ty == SurfaceType::Buffer {
            if x >= self.width {
                return Err(LayoutError::Outside {
                    what: "element",
                    value: x,
                    limit: self.width,
                });
            }
            // Seed 000 §2.12.2 Surface Pitch: "For surfaces of type SURFTYPE_BUFFER ...
            // this field indicates the size of the structure": element x starts x
            // pitches in, and is read in the surface format from there (crocus binds
            // pull-constant buffers with a 1-byte pitch, so that `ld` takes byte offsets).
            return Ok(x as u64 * self.pitch);
        }
        if sample >= self.samples {
            return Err(LayoutError::Outside {
                what: "sample",
                value: sample,
                limit: self.samples,
            });
        }
        let (w, h) = (minify(self.width, lod), minify(self.height, lod));
        if x >= w || y >= h {
            let (what, value, limit) = if x >= w { ("x", x, w) } else { ("y", y, h) };
            return Err(LayoutError::Outside { what, value, limit });
        }
        let (px, py, slice) = match self.msaa_layout {
            MsaaLayout::Interleaved if self.samples > 1 => {
                let (px, py) = ims_position(x, y, sample, self.samples);
                (px, py, slice)
            }
            _ if self.samples > 1 => (x, y, slice * self.samples + sample),
            _ => (x, y, slice),
        };
        let (ox, oy) = self.image_origin(slice, lod)?;
        let (bw, bh) = self.block;
        let bx = (ox + px) / bw;
        let by = (oy + py) / bh;
        Ok(self
            .tiling
            .offset(self.pitch, bx as u64 * self.block_bytes as u64, by as u64)?)
    }

    /// The offsets of one image (`slice`, `lod`) of a single-sampled, non-buffer
    /// surface, worked out once for many texels: [`ImageOffsets::offset`] gives what
    /// [`SurfaceDesc::texel_offset`] gives for its texels. `None` for buffers,
    /// multisampled surfaces and an image that does not exist (`texel_offset` then says
    /// why, texel by texel).
    pub fn image_offsets(&self, slice: u32, lod: u32) -> Option<ImageOffsets> {
        if self.ty == SurfaceType::Buffer || self.samples != 1 {
            return None;
        }
        let (ox, oy) = self.image_origin(slice, lod).ok()?;
        Some(ImageOffsets {
            width: minify(self.width, lod),
            height: minify(self.height, lod),
            origin: (ox, oy),
            block: self.block,
            block_bytes: self.block_bytes,
            tiling: self.tiling,
            pitch: self.pitch,
        })
    }

    /// Rows (of blocks) the whole surface occupies.
    pub fn total_rows(&self) -> Result<u32, LayoutError> {
        self.check()?;
        let texel_rows = match self.ty {
            SurfaceType::Buffer => 1,
            SurfaceType::D3 if matches!(self.array_spacing, ArraySpacing::QPitch(_)) => {
                let one = (0..self.levels)
                    .map(|l| {
                        let (_, y) = self.mip_origin_2d(l);
                        y + self.level_extent(l).1
                    })
                    .max()
                    .unwrap_or(0);
                (self.depth.max(1) - 1) * self.qpitch() + one
            }
            SurfaceType::D3 => {
                let last = self.levels - 1;
                let (_, y) = self.image_place(0, last)?;
                let per_row = 1u32 << last.min(31);
                y + minify(self.depth.max(1), last).div_ceil(per_row) * self.level_extent(last).1
            }
            _ => {
                let one = (0..self.levels)
                    .map(|l| {
                        let (_, y) = self.mip_origin_2d(l);
                        y + self.level_extent(l).1
                    })
                    .max()
                    .unwrap_or(0);
                (self.physical_slices() - 1) * self.qpitch() + one
            }
        };
        // The rows above the origin belong to the surface's span too.
        let origin = if self.ty == SurfaceType::Buffer {
            0
        } else {
            self.origin.1
        };
        Ok((texel_rows + origin).div_ceil(self.block.1))
    }
}

/// IMS widening per sample count (horizontal, vertical).
fn ims_scale(samples: u32) -> (u32, u32) {
    match samples {
        2 => (2, 1),
        4 => (2, 2),
        8 => (4, 2),
        16 => (4, 4),
        _ => (1, 1),
    }
}

/// Physical position of sample `s` of pixel (x, y) in an interleaved (IMS) surface:
/// samples interleave in 2×2 pixel groups (IVB PRM Vol1 Part1 "Interleaved
/// Multisampled Surfaces"; the same mapping Mesa's BLORP documents for Gen7):
/// 2x: X' = (X & !1)·2 + (S & 1)·2 + (X & 1), Y' = Y;
/// 4x: X' as 2x, Y' = (Y & !1)·2 + (S & 2) + (Y & 1);
/// 8x: X' = (X & !1)·4 + (S & 4) + (S & 1)·2 + (X & 1), Y' as 4x;
/// 16x (Gen9+ depth and stencil, 4×4 samples per pixel): X' as 8x,
/// Y' = (Y & !1)·4 + (S & 8)/2 + (S & 2) + (Y & 1) (Mesa's BLORP encode_msaa and isl's
/// 4×4 interleaved scale for 16 samples).
pub fn ims_position(x: u32, y: u32, s: u32, samples: u32) -> (u32, u32) {
    match samples {
        2 => ((x & !1) * 2 + (s & 1) * 2 + (x & 1), y),
        4 => (
            (x & !1) * 2 + (s & 1) * 2 + (x & 1),
            (y & !1) * 2 + (s & 2) + (y & 1),
        ),
        8 => (
            (x & !1) * 4 + (s & 4) + (s & 1) * 2 + (x & 1),
            (y & !1) * 2 + (s & 2) + (y & 1),
        ),
        16 => (
            (x & !1) * 4 + (s & 4) + (s & 1) * 2 + (x & 1),
            (y & !1) * 4 + (s & 8) / 2 + (s & 2) + (y & 1),
        ),
        _ => (x, y),
    }
}

/// Descriptions of the depth-related and auxiliary surfaces, whose alignments and
/// formats are fixed by the hardware rather than by RENDER_SURFACE_STATE.
impl SurfaceDesc {
    /// A 2D (array) depth buffer (3DSTATE_DEPTH_BUFFER): Y-tiled, alignment 8×4 for
    /// 16-bit depth and 4×4 otherwise (IVB PRM Vol1 Part1 alignment-unit table), samples
    /// interleaved.
    pub fn depth(
        width: u32,
        height: u32,
        layers: u32,
        levels: u32,
        samples: u32,
        bytes: u32,
        pitch: u64,
    ) -> SurfaceDesc {
        SurfaceDesc {
            ty: SurfaceType::D2,
            width,
            height,
            depth: layers,
            levels,
            samples,
            msaa_layout: MsaaLayout::Interleaved,
            halign: if bytes == 2 { 8 } else { 4 },
            valign: 4,
            array_spacing: ArraySpacing::Full,
            block: (1, 1),
            block_bytes: bytes,
            tiling: Tiling::Y,
            pitch,
            origin: (0, 0),
        }
    }

    /// The separate stencil buffer (3DSTATE_STENCIL_BUFFER): S8, W-tiled, alignment 8×8,
    /// samples interleaved (IVB PRM Vol1 Part1 alignment-unit table, "Separate Stencil").
    pub fn separate_stencil(
        width: u32,
        height: u32,
        layers: u32,
        levels: u32,
        samples: u32,
        pitch: u64,
    ) -> SurfaceDesc {
        SurfaceDesc {
            halign: 8,
            valign: 8,
            block_bytes: 1,
            tiling: Tiling::W,
            ..SurfaceDesc::depth(width, height, layers, levels, samples, 1, pitch)
        }
    }

    /// The hierarchical depth buffer of a depth surface (3DSTATE_HIER_DEPTH_BUFFER): one
    /// 16-byte block per 8×4 depth pixels, Y-tiled, alignment 16×8 whatever the depth
    /// surface uses (seed 003 L17382 states this for the HiZ auxiliary surface; Mesa's
    /// isl uses the same 8×4-block geometry on Gen7). It covers the depth surface's
    /// physical (sample-interleaved) extent.
    pub fn hiz(depth: &SurfaceDesc, pitch: u64) -> SurfaceDesc {
        let (w, h) = depth.physical_size();
        SurfaceDesc {
            width: w,
            height: h,
            samples: 1,
            halign: 16,
            valign: 8,
            block: (8, 4),
            block_bytes: 16,
            tiling: Tiling::Y,
            pitch,
            ..*depth
        }
    }

    /// An interleaved multisampled surface (IMS: depth and stencil) as the single-sampled
    /// plane it is stored in: its physical width and height
    /// ([`ims_position`] places sample s of pixel (x, y) in it), one sample per
    /// element. Any other surface is returned as it is.
    pub fn interleaved_plane(&self) -> SurfaceDesc {
        if self.msaa_layout != MsaaLayout::Interleaved || self.samples <= 1 {
            return *self;
        }
        let (width, height) = self.physical_size();
        SurfaceDesc {
            width,
            height,
            samples: 1,
            ..*self
        }
    }

    /// The multisample control surface of an array-style multisampled colour surface:
    /// one element per pixel (8 bits for 2x and 4x, 32 bits for 8x: 3 bits per sample),
    /// Y-tiled, single-sampled, same size and slices (Mesa isl MCS formats; IVB PRM Vol1
    /// Part1 "Multisample Control Surface").
    pub fn mcs(color: &SurfaceDesc, pitch: u64) -> SurfaceDesc {
        SurfaceDesc {
            samples: 1,
            block: (1, 1),
            block_bytes: if color.samples == 8 { 4 } else { 1 },
            tiling: Tiling::Y,
            pitch,
            ..*color
        }
    }
}
