//! A surface in GPU memory: base address, layout and format together, so a unit can read
//! or write texel (x, y, slice, lod, sample) through any [`Memory`].

use crate::format::bc::{BlockFormat, decode_block};
use crate::format::texel::{self, FormatError, Texel};
use crate::layout::{LayoutError, SurfaceDesc};
use crate::{Fault, Memory};
use gtsim_spec::shared::SurfaceFormat;
use thiserror::Error;

/// Why a texel access failed.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SurfaceError {
    /// The coordinates do not name a texel of the surface.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The format cannot be read or written this way.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A block-compressed block failed to decode.
    #[error("compressed block: {0}")]
    Block(String),
    /// The format is not one Ivy Bridge has (its capability table has no row).
    #[error("surface format {0} is not an Ivy Bridge format (seed 000 §2.12.2.1.1 notes)")]
    NotIvyBridge(String),
    /// The format is not one of a later generation's that the model knows (its
    /// capability table has no row for it there).
    #[error(
        "surface format {name} is not modelled as a format of generation {}.{} (Mesa isl_format.c has the generations' formats; `gtsim_mem::format::caps::caps_on`)",
        generation / 10,
        generation % 10
    )]
    NotOnGeneration {
        /// The format's name (or code).
        name: String,
        /// The generation (×10: 110 is Ice Lake).
        generation: u8,
    },
    /// The memory is not mapped.
    #[error(transparent)]
    Fault(#[from] Fault),
}

/// Which texel: position in the LOD, array slice (cube face 6·cube + face, or 3D z),
/// LOD and sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TexelCoord {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
    /// Array slice, cube face or 3D depth.
    pub slice: u32,
    /// Level of detail.
    pub lod: u32,
    /// Sample index.
    pub sample: u32,
}

impl TexelCoord {
    /// Texel (x, y) of slice 0, LOD 0, sample 0.
    pub fn xy(x: u32, y: u32) -> TexelCoord {
        TexelCoord {
            x,
            y,
            ..TexelCoord::default()
        }
    }
}

/// A surface: where it starts, how it is laid out, what its texels are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Surface {
    /// Graphics address of the surface's first byte.
    pub base: u64,
    /// Layout.
    pub desc: SurfaceDesc,
    /// SURFACE_FORMAT.
    pub format: SurfaceFormat,
}

impl Surface {
    /// A surface whose description takes its block size and bytes per block from
    /// `format` (seed 000 §2.12.2.1.1 bits per element), so the two cannot disagree, and
    /// that refuses formats Ivy Bridge does not have.
    pub fn new(
        base: u64,
        desc: SurfaceDesc,
        format: SurfaceFormat,
    ) -> Result<Surface, SurfaceError> {
        Surface::new_on(base, desc, format, 70)
    }

    /// [`Surface::new`] on generation `generation` (×10: 70 Ivy Bridge, 110 Ice Lake),
    /// which decides the formats there are ([`crate::format::caps::caps_on`]).
    pub fn new_on(
        base: u64,
        mut desc: SurfaceDesc,
        format: SurfaceFormat,
        generation: u8,
    ) -> Result<Surface, SurfaceError> {
        if crate::format::caps::caps_on(format, generation).is_none() {
            let name = format
                .name()
                .map_or(format!("{:#x}", format.0), str::to_owned);
            return Err(if generation <= 75 {
                SurfaceError::NotIvyBridge(name)
            } else {
                SurfaceError::NotOnGeneration { name, generation }
            });
        }
        let l = texel::layout(format)?;
        desc.block = (l.block_width, l.block_height);
        desc.block_bytes = l.bits_per_element.div_ceil(8);
        // A block-compressed surface's origin (X Offset, Y Offset) must fall on a block:
        // the texel inside a block is picked from the image's coordinates alone.
        let (ox, oy) = desc.origin;
        if ox % desc.block.0 != 0 || oy % desc.block.1 != 0 {
            return Err(SurfaceError::Layout(LayoutError::Invalid(format!(
                "the surface origin ({ox}, {oy}) (X Offset, Y Offset) is not on a {}x{} block",
                desc.block.0, desc.block.1
            ))));
        }
        Ok(Surface { base, desc, format })
    }

    fn offset(&self, at: TexelCoord) -> Result<u64, LayoutError> {
        self.desc
            .texel_offset(at.x, at.y, at.slice, at.lod, at.sample)
    }

    /// Reads one texel. Block-compressed formats decode the whole block and pick the
    /// texel.
    pub fn read_texel(&self, mem: &dyn Memory, at: TexelCoord) -> Result<Texel, SurfaceError> {
        let off = self.offset(at)?;
        self.read_texel_at(mem, off, at.x, at.y)
    }

    /// [`Surface::read_texel`] of the texel (`x`, `y`) whose element or block is at byte
    /// `off` from the base (from [`crate::layout::SurfaceDesc::texel_offset`] or an
    /// image's [`crate::layout::ImageOffsets`]).
    pub fn read_texel_at(
        &self,
        mem: &dyn Memory,
        off: u64,
        x: u32,
        y: u32,
    ) -> Result<Texel, SurfaceError> {
        // Elements and blocks are at most 16 bytes: a stack buffer holds them.
        let n = self.desc.block_bytes as usize;
        let mut stack = [0u8; 16];
        let mut heap = Vec::new();
        let bytes: &mut [u8] = if n <= stack.len() {
            &mut stack[..n]
        } else {
            heap.resize(n, 0);
            &mut heap
        };
        mem.read(self.base.wrapping_add(off), bytes)?;
        match BlockFormat::from_surface_format(self.format) {
            Some(bf) => {
                let texels =
                    decode_block(bf, bytes).map_err(|e| SurfaceError::Block(e.to_string()))?;
                let (bw, bh) = bf.block_size();
                let i = ((y % bh) * bw + x % bw) as usize;
                let t = texels.get(i).copied().unwrap_or([0.0; 4]);
                // Seed 000 §2.6 (L724-728): an `_SRGB` format's pre-filtered texel RGB is
                // converted to linear, after decompression for a block format (the block
                // decoders return the stored, gamma-encoded values), as `texel::decode`
                // does for the uncompressed ones.
                let t = if bf.is_srgb() {
                    [
                        texel::srgb_to_linear(t[0]),
                        texel::srgb_to_linear(t[1]),
                        texel::srgb_to_linear(t[2]),
                        t[3],
                    ]
                } else {
                    t
                };
                Ok(Texel::Float(t))
            }
            None => Ok(texel::decode(self.format, bytes)?),
        }
    }

    /// Writes one texel of an uncompressed format.
    pub fn write_texel(
        &self,
        mem: &mut dyn Memory,
        at: TexelCoord,
        t: Texel,
    ) -> Result<(), SurfaceError> {
        let off = self.offset(at)?;
        let bytes = texel::encode(self.format, t)?;
        mem.write(self.base.wrapping_add(off), &bytes)?;
        Ok(())
    }
}
