//! Line and polygon stipple rules (seed 004 §11.3.2.3, §11.3.3.1), worked by hand.

use gtsim_pipe3d::state::{LineStipple, PolygonStipple};

#[test]
fn line_stipple_selects_bit_floor_s_over_r_mod_16() {
    // p = 0b1010, r = 2: b = floor(s / 2) mod 16 is 0, 0, 1, 1, 2, 2, 3, 3 for s = 0..8;
    // bits 1 and 3 are set.
    let l = LineStipple {
        pattern: 0b1010,
        repeat: 2,
    };
    let kept: Vec<bool> = (0..8).map(|s| l.keeps(s)).collect();
    assert_eq!(kept, [false, false, true, true, false, false, true, true]);
    // The pattern repeats every 16 * r pixels.
    assert!(!l.keeps(32) && l.keeps(34) && l.keeps(35));
}

#[test]
fn polygon_stipple_repeats_from_its_offset() {
    // Row 1's leftmost pixel only (bit 31), pattern corner at (3, 5).
    let mut rows = [0u32; 32];
    rows[0] = 1 << 31;
    rows[1] = 1; // row 2's rightmost pixel
    let p = PolygonStipple {
        rows,
        offset: [3, 5],
    };
    assert!(p.keeps(3, 5));
    assert!(!p.keeps(4, 5));
    assert!(p.keeps(35, 5) && p.keeps(3, 37) && p.keeps(67, 69));
    // Column 31 of row 2 is pixel (3 + 31, 6), and (2, 6) one pattern to the left.
    assert!(p.keeps(34, 6) && p.keeps(2, 6));
    // (2, 4) is column 31, row 32 of the pattern to the upper left: clear.
    assert!(!p.keeps(2, 4));
}
