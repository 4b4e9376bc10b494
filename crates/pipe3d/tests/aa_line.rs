//! Anti-aliased line coverage (seed 004 §10.3.12.5), worked by hand.

use gtsim_pipe3d::raster::{AaLine, RasterState, SubpixelBits};

const GL: RasterState = RasterState {
    subpixel: SubpixelBits::Eight,
    half_pixel_centers: true,
    rect: [0, 0, 63, 63],
};

/// From (2, 5) to (10, 5), 2 pixels wide, AA region 1 (ramp 0.5 from each parallel
/// edge), end caps 1 pixel.
fn line() -> AaLine {
    AaLine {
        a: [2.0, 5.0],
        b: [10.0, 5.0],
        width: 2.0,
        region: 1.0,
        cap: 1.0,
    }
}

#[test]
fn coverage_ramps_across_and_past_the_ends() {
    let l = line();
    // On the line: full. 0.75 from it: 0.25 inside the edge, half the 0.5 ramp.
    assert_eq!(l.coverage([6.0, 5.0]), 1.0);
    assert_eq!(l.coverage([6.0, 5.75]), 0.5);
    assert_eq!(l.coverage([6.0, 4.25]), 0.5);
    // 0.5 before the start: half the 1-pixel cap; with 0.75 across, 0.5 * 0.5.
    assert_eq!(l.coverage([1.5, 5.0]), 0.5);
    assert_eq!(l.coverage([1.5, 5.75]), 0.25);
    // Past the cap edge or the parallel edges: nothing.
    assert_eq!(l.coverage([0.9, 5.0]), 0.0);
    assert_eq!(l.coverage([6.0, 6.1]), 0.0);
}

#[test]
fn pixels_are_the_rectangle_with_its_caps() {
    // The rectangle x in [1, 11], y in [4, 6]: centres x + 0.5 for x = 1..=10 and
    // y + 0.5 for rows 4 and 5, all with coverage above 0.
    let want: Vec<(u32, u32)> = (4..=5)
        .flat_map(|y| (1..=10).map(move |x| (x, y)))
        .collect();
    assert_eq!(line().pixels(&GL), want);
}
