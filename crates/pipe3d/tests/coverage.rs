//! Multisample coverage (seed 004 §11.4) against hand-worked sample sets, and against
//! the single-sample rasterizer for a one-sample pattern at the pixel centre.

use gtsim_pipe3d::coverage::{self, SamplePattern};
use gtsim_pipe3d::raster::{self, PointRule, RasterState, SubpixelBits};

const GL: RasterState = RasterState {
    subpixel: SubpixelBits::Eight,
    half_pixel_centers: true,
    rect: [0, 0, 63, 63],
};

/// Four samples at (3,5), (11,2), (6,13), (14,10) sixteenths: x + y = 8, 13, 19, 24.
fn pattern() -> SamplePattern {
    let mut offsets = [[0u8; 2]; 16];
    offsets[..4].copy_from_slice(&[[3, 5], [11, 2], [6, 13], [14, 10]]);
    SamplePattern { count: 4, offsets }
}

#[test]
fn triangle_samples_worked_by_hand() {
    // The triangle x >= 0, y >= 0, x + y < 41/16 (2.5625). Sample k of pixel (i, j)
    // lies at 16 (i + j) + s_k sixteenths along x + y, s = 8, 13, 19, 24: i + j = 0 and
    // 1 cover all four (at most 40 < 41), i + j = 2 covers sample 0 only (40; 45 and
    // on are outside), i + j = 3 nothing. Every sample is strictly inside the legs.
    let e = 41.0 / 16.0;
    let ((px, masks), w) = coverage::triangle([[0.0, 0.0], [e, 0.0], [0.0, e]], &GL, &pattern());
    assert!(w.is_some());
    let got: Vec<((u32, u32), u16)> = px.into_iter().zip(masks).collect();
    let want = vec![
        ((0, 0), 0xf),
        ((1, 0), 0xf),
        ((2, 0), 0x1),
        ((0, 1), 0xf),
        ((1, 1), 0x1),
        ((0, 2), 0x1),
    ];
    assert_eq!(got, want);
}

#[test]
fn a_centre_sample_pattern_is_the_single_sample_rasterizer() {
    let one = SamplePattern {
        count: 1,
        offsets: [[8, 8]; 16],
    };
    let mut x = 0x1234_5678u32;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        (x % 2000) as f32 / 37.0
    };
    for _ in 0..300 {
        let v = [[rnd(), rnd()], [rnd(), rnd()], [rnd(), rnd()]];
        let (single, w1) = raster::triangle(v, &GL);
        let ((multi, masks), w2) = coverage::triangle(v, &GL, &one);
        assert_eq!(w1, w2);
        assert_eq!(single, multi, "{v:?}");
        assert!(masks.iter().all(|&m| m == 1));
        assert_eq!(
            raster::rectangle(v, &GL),
            coverage::rectangle(v, &GL, &one).0
        );
        let c = v[0];
        let size = 1.0 + v[1][0] / 10.0;
        assert_eq!(
            raster::point(c, size, PointRule::UpperLeft, &GL),
            coverage::point(c, size, PointRule::UpperLeft, &GL, &one).0
        );
    }
}

#[test]
fn shared_edges_give_each_sample_once() {
    // A quad split on its diagonal: every sample of the covered pixels goes to exactly
    // one of the two triangles (the upper-left rule at each sample).
    let p = pattern();
    let a = [[1.0, 1.0], [9.0, 2.0], [3.0, 8.0]];
    let b = [[9.0, 2.0], [10.0, 9.0], [3.0, 8.0]];
    let ((pa, ma), _) = coverage::triangle(a, &GL, &p);
    let ((pb, mb), _) = coverage::triangle(b, &GL, &p);
    let mut seen = std::collections::BTreeMap::<(u32, u32), u16>::new();
    for (px, m) in pa.into_iter().zip(ma).chain(pb.into_iter().zip(mb)) {
        let e = seen.entry(px).or_default();
        assert_eq!(*e & m, 0, "sample of {px:?} covered twice");
        *e |= m;
    }
    // The square's interior pixel (5, 5) is covered entirely between them.
    assert_eq!(seen.get(&(5, 5)), Some(&0xf));
}

#[test]
fn multisampled_lines_are_rectangles_of_at_least_one_pixel() {
    // A horizontal line from (2, 4.5) to (6, 4.5): the rectangle x in [2, 6], y in
    // [4, 5]. Row 4 samples (y = 4 + 5/16, 2/16, 13/16, 10/16) are all inside; x from
    // 2 + o/16 for pixels 2..5 (and pixel 6's samples lie past x = 6).
    let (px, masks) = coverage::line([2.0, 4.5], [6.0, 4.5], 0.0, &GL, &pattern());
    let got: Vec<((u32, u32), u16)> = px.into_iter().zip(masks).collect();
    let want: Vec<((u32, u32), u16)> = (2..6).map(|x| ((x, 4), 0xf)).collect();
    assert_eq!(got, want);
}

/// The state's U0.4 offsets (decoded to pixels) kept in sixteenths: 0.375 is 6/16,
/// 0.125 2/16; 15/16 stays 15, and a value past it (not encodable in U0.4) clamps to
/// 15; the count is the offsets given.
#[test]
fn sample_patterns_keep_offsets_in_sixteenths() {
    let p = SamplePattern::from_offsets(&[[0.375, 0.125], [0.9375, 0.99]]);
    assert_eq!(p.count, 2);
    assert_eq!(p.offsets[..2], [[6, 2], [15, 15]]);
    assert_eq!(p.all(), 0b11);
}
