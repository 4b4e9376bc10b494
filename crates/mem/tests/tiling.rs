//! Tile address tests. Expectations are worked by hand from the tile geometry (IVB PRM
//! Vol1 Part4 "Tiled Memory"), plus structural properties that any correct tiling must
//! have (every tile is a permutation of its 4096 bytes).

use gtsim_mem::tiling::{TILE_BYTES, Tiling, TilingError};
use proptest::prelude::*;

#[test]
fn x_tile_known_answers() {
    // Pitch 1024 = 2 X tiles across. (513, 9): tile row 9/8 = 1, tile column 513/512 = 1
    // -> tile 1*2 + 1 = 3 at 12288; inside: row 9%8 = 1 -> 512, byte 513%512 = 1 -> 12801.
    assert_eq!(Tiling::X.offset(1024, 513, 9), Ok(12801));
    // The first row of the first tile is linear.
    assert_eq!(Tiling::X.offset(1024, 511, 0), Ok(511));
    // Row 1 starts 512 bytes in, not `pitch` bytes in.
    assert_eq!(Tiling::X.offset(1024, 0, 1), Ok(512));
}

#[test]
fn y_tile_known_answers() {
    // Pitch 256 = 2 Y tiles. (20, 33): tile row 1 -> 1*2*4096 = 8192; inside: OWord column
    // 20/16 = 1 -> 512, row 33%32 = 1 -> 16, byte 20%16 = 4 -> 8192 + 532 = 8724.
    assert_eq!(Tiling::Y.offset(256, 20, 33), Ok(8724));
    // A 16-byte OWord is contiguous, and the next row of the column follows it.
    assert_eq!(Tiling::Y.offset(256, 15, 0), Ok(15));
    assert_eq!(Tiling::Y.offset(256, 0, 1), Ok(16));
    // Byte 16 of row 0 starts the second column, after 32 rows of 16 bytes.
    assert_eq!(Tiling::Y.offset(256, 16, 0), Ok(512));
    // The second tile across starts at 4096.
    assert_eq!(Tiling::Y.offset(256, 128, 0), Ok(4096));
}

#[test]
fn w_tile_known_answers() {
    // Pitch 128 = 2 W tiles. (13, 70): tile row 70/64 = 1 -> 8192. Inside, x = 13 =
    // 0b001101, y = 6 = 0b000110: block column 13/8 = 1 -> 512, block row 6/8 = 0;
    // interleave x0=1 y0=0 x1=0 y1=1 x2=1 y2=1 -> 1 + 0 + 0 + 8 + 16 + 32 = 57.
    // Total 8192 + 512 + 57 = 8761.
    assert_eq!(Tiling::W.offset(128, 13, 70), Ok(8761));
    // A 2x2 quad of stencil bytes is 4 consecutive bytes.
    assert_eq!(Tiling::W.offset(64, 0, 0), Ok(0));
    assert_eq!(Tiling::W.offset(64, 1, 0), Ok(1));
    assert_eq!(Tiling::W.offset(64, 0, 1), Ok(2));
    assert_eq!(Tiling::W.offset(64, 1, 1), Ok(3));
    // The 8x8 block below the first one follows it (64 bytes), the one to its right
    // comes after a whole column of eight blocks (512 bytes).
    assert_eq!(Tiling::W.offset(64, 0, 8), Ok(64));
    assert_eq!(Tiling::W.offset(64, 8, 0), Ok(512));
}

#[test]
fn linear_is_row_times_pitch() {
    assert_eq!(Tiling::Linear.offset(100, 7, 3), Ok(307));
}

#[test]
fn bad_pitches_and_rows_are_errors() {
    assert!(matches!(
        Tiling::Y.offset(200, 0, 0),
        Err(TilingError::Pitch {
            tiling: Tiling::Y,
            pitch: 200,
            width: 128
        })
    ));
    assert!(matches!(
        Tiling::X.offset(0, 0, 0),
        Err(TilingError::Pitch {
            tiling: Tiling::X,
            pitch: 0,
            width: 512
        })
    ));
    assert_eq!(
        Tiling::X.offset(512, 512, 0),
        Err(TilingError::OutsideRow { x: 512, pitch: 512 })
    );
}

#[test]
fn surface_state_tile_walk() {
    assert_eq!(Tiling::from_surface_state(false, true), Tiling::Linear);
    assert_eq!(Tiling::from_surface_state(true, false), Tiling::X);
    assert_eq!(Tiling::from_surface_state(true, true), Tiling::Y);
    // 33 rows of a Y-tiled surface occupy two tile rows.
    assert_eq!(Tiling::Y.surface_bytes(256, 33), 2 * 32 * 256);
}

/// Every byte of a tile lands on a distinct offset inside that tile.
#[test]
fn every_tile_is_a_permutation() {
    for t in [Tiling::X, Tiling::Y, Tiling::W] {
        let (tw, th) = t.tile_size();
        assert_eq!(tw * th, TILE_BYTES);
        let mut seen = vec![false; TILE_BYTES as usize];
        for y in 0..th {
            for x in 0..tw {
                let o = t.offset(tw, x, y).unwrap();
                assert!(o < TILE_BYTES, "{t:?} ({x},{y}) -> {o}");
                assert!(!seen[o as usize], "{t:?} ({x},{y}) -> {o} twice");
                seen[o as usize] = true;
            }
        }
    }
}

proptest! {
    /// Over a whole surface the mapping is injective and stays inside the surface.
    #[test]
    fn offsets_stay_in_their_tile(tiles_across in 1u64..6, x in 0u64..4096, y in 0u64..512, t in 0usize..3) {
        let t = [Tiling::X, Tiling::Y, Tiling::W][t];
        let (tw, th) = t.tile_size();
        let pitch = tiles_across * tw;
        let x = x % pitch;
        let o = t.offset(pitch, x, y).unwrap();
        let tile = (y / th) * tiles_across + x / tw;
        prop_assert_eq!(o / TILE_BYTES, tile);
        prop_assert!(o < t.surface_bytes(pitch, y + 1));
    }
}

/// `contiguous` promises that the bytes it counts are at consecutive offsets and that
/// the byte after them is not (or is past the row): checked against `offset` byte by
/// byte for every tiling, over two tile widths and rows inside and across tiles.
#[test]
fn contiguous_counts_exactly_the_bytes_that_follow_in_memory() {
    for t in [Tiling::Linear, Tiling::X, Tiling::Y, Tiling::W] {
        let pitch = t.tile_size().0.max(64) * 2;
        for y in [0u64, 1, 7, 33] {
            for x in 0..pitch {
                let n = t.contiguous(pitch, x);
                assert!(n >= 1, "{t:?} x {x}");
                let at = t.offset(pitch, x, y).unwrap();
                for i in 0..n {
                    assert_eq!(
                        t.offset(pitch, x + i, y).unwrap(),
                        at + i,
                        "{t:?} x {x} i {i}"
                    );
                }
                if x + n < pitch {
                    assert_ne!(
                        t.offset(pitch, x + n, y).unwrap(),
                        at + n,
                        "{t:?} x {x} n {n}"
                    );
                }
            }
        }
    }
}
