//! Tiled memory: where byte `x` of row `y` of a tiled surface lives.
//!
//! Gen7 tiles are 4 KiB (IVB PRM Vol1 Part4 "Tiled Memory"; the seeds are silent on tile
//! geometry, see `../shared/seeds/INDEX.md`):
//!
//! * **X-major**: 512 bytes × 8 rows, row-major inside the tile.
//! * **Y-major**: 128 bytes × 32 rows, made of eight 16-byte-wide columns (OWords) of
//!   32 rows each, stored column after column.
//! * **W-major** (separate stencil, 3DSTATE_STENCIL_BUFFER): 64 bytes × 64 rows; 8×8-byte
//!   blocks stored column after column, and inside a block the x and y bits interleave
//!   (x0 y0 x1 y1 x2 y2).
//!
//! Tiles follow each other left to right, then row of tiles by row of tiles; the surface
//! pitch is a whole number of tiles wide. Bit-6 address swizzling is not modelled: the i915
//! emulation reports `I915_BIT_6_SWIZZLE_NONE`, as on machines where the memory controller
//! does not swizzle.

use thiserror::Error;

/// Bytes in one tile.
pub const TILE_BYTES: u64 = 4096;

/// A surface's tiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tiling {
    /// Rows of `pitch` bytes, one after the other.
    Linear,
    /// X-major tiles (512 B × 8 rows).
    X,
    /// Y-major tiles (128 B × 32 rows, 16-byte columns).
    Y,
    /// W-major tiles (64 B × 64 rows), separate stencil only.
    W,
}

/// An address that a tiling cannot produce.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TilingError {
    /// The pitch is not a whole number of tiles (or is zero).
    #[error(
        "pitch {pitch} bytes is not a positive multiple of the {tiling:?} tile width ({width} bytes)"
    )]
    Pitch {
        /// The tiling.
        tiling: Tiling,
        /// The pitch in bytes.
        pitch: u64,
        /// Tile width in bytes.
        width: u64,
    },
    /// The byte is past the end of its row.
    #[error("byte {x} of a row is outside the pitch ({pitch} bytes)")]
    OutsideRow {
        /// Byte within the row.
        x: u64,
        /// The pitch.
        pitch: u64,
    },
}

impl Tiling {
    /// From RENDER_SURFACE_STATE "Tiled Surface" and "Tile Walk" (0 = X-major,
    /// 1 = Y-major; seed 000 §2.12.2, RENDER_SURFACE_STATE DW0).
    pub fn from_surface_state(tiled: bool, tile_walk_y: bool) -> Tiling {
        match (tiled, tile_walk_y) {
            (false, _) => Tiling::Linear,
            (true, false) => Tiling::X,
            (true, true) => Tiling::Y,
        }
    }

    /// Tile width in bytes and height in rows (linear: one byte by one row).
    pub fn tile_size(self) -> (u64, u64) {
        match self {
            Tiling::Linear => (1, 1),
            Tiling::X => (512, 8),
            Tiling::Y => (128, 32),
            Tiling::W => (64, 64),
        }
    }

    /// Byte offset from the surface base of byte `x` (in bytes) of row `y`, for a surface
    /// `pitch` bytes wide.
    pub fn offset(self, pitch: u64, x: u64, y: u64) -> Result<u64, TilingError> {
        // Tile sizes are powers of two: shifts and masks, not divisions (this runs for
        // every texel read and every pixel written).
        let (tw, th) = self.tile_size();
        let (tw_log, th_log) = (tw.trailing_zeros(), th.trailing_zeros());
        if pitch == 0 || pitch & (tw - 1) != 0 {
            return Err(TilingError::Pitch {
                tiling: self,
                pitch,
                width: tw,
            });
        }
        if x >= pitch {
            return Err(TilingError::OutsideRow { x, pitch });
        }
        if self == Tiling::Linear {
            return Ok(y * pitch + x);
        }
        let tile = (y >> th_log) * (pitch >> tw_log) + (x >> tw_log);
        Ok(tile * TILE_BYTES + self.within_tile(x & (tw - 1), y & (th - 1)))
    }

    /// How many bytes from byte `x` of a row on follow each other in memory (to the
    /// end of the row, its X tile row or its Y-tile OWord column; a W tile interleaves
    /// x with y bits, so only byte pairs do), given a valid `x` of a `pitch`-byte row.
    /// What [`Tiling::offset`] gives for `x + i` is its offset for `x` plus `i` for `i`
    /// below it.
    pub fn contiguous(self, pitch: u64, x: u64) -> u64 {
        match self {
            Tiling::Linear => pitch.saturating_sub(x),
            Tiling::X => 512 - (x & 511),
            Tiling::Y => 16 - (x & 15),
            Tiling::W => 2 - (x & 1),
        }
    }

    /// How many rows from row `row` on a piece of `piece` bytes starting at byte `x` of
    /// its row (a valid `x` of a `pitch`-byte row) follows the same piece of the row
    /// above in memory, so that the pieces of those rows are one run of bytes: when the
    /// piece is a whole unit of the layout (a linear row, the 512-byte row of an X tile,
    /// an OWord column of a Y tile, whose next row is the next 512 or 16 bytes, to the
    /// tile's last row; Intel PRM Vol1 Part2 "Tiled Memory"), otherwise 1. A linear
    /// surface's rows follow each other without end (`u64::MAX`).
    pub fn stacked_rows(self, pitch: u64, x: u64, piece: u64, row: u64) -> u64 {
        match self {
            Tiling::Linear if x == 0 && piece == pitch => u64::MAX,
            Tiling::X if x.is_multiple_of(512) && piece == 512 => 8 - row % 8,
            Tiling::Y if x.is_multiple_of(16) && piece == 16 => 32 - row % 32,
            _ => 1,
        }
    }

    /// Offset inside one tile of byte `x` of row `y` of that tile.
    fn within_tile(self, x: u64, y: u64) -> u64 {
        match self {
            Tiling::Linear => x,
            Tiling::X => y * 512 + x,
            Tiling::Y => (x / 16) * (16 * 32) + y * 16 + x % 16,
            Tiling::W => {
                // 8×8 blocks, column-major (8 blocks per 512-byte column); inside a block
                // the bits interleave x0 y0 x1 y1 x2 y2.
                let block = (x / 8) * 512 + (y / 8) * 64;
                let interleaved = (x & 1)
                    | (y & 1) << 1
                    | (x >> 1 & 1) << 2
                    | (y >> 1 & 1) << 3
                    | (x >> 2 & 1) << 4
                    | (y >> 2 & 1) << 5;
                block + interleaved
            }
        }
    }

    /// Bytes a surface of `rows` rows occupies: whole tile rows for tiled surfaces.
    pub fn surface_bytes(self, pitch: u64, rows: u64) -> u64 {
        let (_, th) = self.tile_size();
        rows.div_ceil(th) * th * pitch
    }
}
