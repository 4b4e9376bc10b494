//! Triangle coverage against hand-derived pixel sets (seed 004 §10.3).

use gtsim_pipe3d::raster::{RasterState, SubpixelBits, Winding, rectangle, snap, triangle};
use std::collections::BTreeSet;

const GL: RasterState = RasterState {
    subpixel: SubpixelBits::Eight,
    half_pixel_centers: true,
    rect: [0, 0, 63, 63],
};

fn set(v: Vec<(u32, u32)>) -> BTreeSet<(u32, u32)> {
    v.into_iter().collect()
}

#[test]
fn shared_diagonal_lights_each_pixel_once() {
    // Square [0,4]^2 split along x + y = 4. Pixel (i, j) has its centre at
    // (i + .5, j + .5): strictly inside the upper-left triangle when i + j < 3 (6 pixels),
    // exactly on the diagonal when i + j = 3 (4 pixels). The diagonal is a left edge of
    // the lower-right triangle (its interior is to the right) and not of the other, so
    // the lower-right triangle owns those 4 pixels: 6 + 10 = 16, no pixel twice.
    let (a, wa) = triangle([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]], &GL);
    let (b, wb) = triangle([[4.0, 0.0], [4.0, 4.0], [0.0, 4.0]], &GL);
    let (a, b) = (set(a), set(b));
    let want_a: BTreeSet<_> = (0..4)
        .flat_map(|j| (0..4).map(move |i| (i, j)))
        .filter(|(i, j)| i + j < 3)
        .collect();
    assert_eq!(a, want_a);
    assert_eq!(b.len(), 10);
    assert!(a.is_disjoint(&b));
    assert_eq!(a.union(&b).count(), 16);
    // (0,0) -> (4,0) -> (0,4) turns clockwise on a y-down screen; so does the second.
    assert_eq!((wa, wb), (Some(Winding::Cw), Some(Winding::Cw)));
}

#[test]
fn top_and_left_edges_are_inclusive_bottom_and_right_are_not() {
    // Axis-aligned square [1,3]^2 as two triangles on the integer sampling grid: samples at
    // integer points; x = 1 (left) and y = 1 (top) are in, x = 3 and y = 3 are out, so
    // exactly the 4 samples (1..=2, 1..=2) are lit.
    let grid = RasterState {
        half_pixel_centers: false,
        ..GL
    };
    let (a, _) = triangle([[1.0, 1.0], [3.0, 1.0], [1.0, 3.0]], &grid);
    let (b, _) = triangle([[3.0, 1.0], [3.0, 3.0], [1.0, 3.0]], &grid);
    let mut all = set(a);
    all.extend(b);
    let want: BTreeSet<_> = [(1, 1), (2, 1), (1, 2), (2, 2)].into_iter().collect();
    assert_eq!(all, want);
}

#[test]
fn winding_does_not_change_coverage() {
    let (a, wa) = triangle([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]], &GL);
    let (b, wb) = triangle([[0.0, 0.0], [0.0, 4.0], [4.0, 0.0]], &GL);
    assert_eq!(set(a), set(b));
    assert_eq!((wa, wb), (Some(Winding::Cw), Some(Winding::Ccw)));
}

#[test]
fn subpixel_snapping_decides_edge_pixels() {
    // 0.53125 = 8.5/16: with 4 bits it rounds to even, 8/16 = 0.5, putting the left edge
    // exactly on column 0's sample points (left edge: lit); with 8 bits it stays at
    // 136/256 > 0.5 and column 0 is out.
    assert_eq!(snap(0.53125, SubpixelBits::Four), Some(8));
    assert_eq!(snap(0.53125, SubpixelBits::Eight), Some(136));
    assert_eq!(
        snap(0.59375, SubpixelBits::Four),
        Some(10),
        "9.5 rounds to even 10"
    );
    let tri = [[0.53125, 0.0], [0.53125, 8.0], [8.0, 0.0]];
    let four = RasterState {
        subpixel: SubpixelBits::Four,
        ..GL
    };
    assert!(set(triangle(tri, &four).0).contains(&(0, 0)));
    assert!(!set(triangle(tri, &GL).0).contains(&(0, 0)));
}

#[test]
fn degenerate_nan_and_drawing_rectangle() {
    assert!(
        triangle([[0.0, 0.0], [2.0, 2.0], [4.0, 4.0]], &GL)
            .0
            .is_empty()
    );
    assert!(
        triangle([[f32::NAN, 0.0], [2.0, 2.0], [4.0, 0.0]], &GL)
            .0
            .is_empty()
    );
    // A big triangle (hypotenuse x + y = 200) clipped to the inclusive rectangle
    // [2,3] x [2,3]: 4 pixels.
    let small = RasterState {
        rect: [2, 2, 3, 3],
        ..GL
    };
    let (p, _) = triangle([[-100.0, -100.0], [300.0, -100.0], [-100.0, 300.0]], &small);
    assert_eq!(
        set(p),
        [(2, 2), (3, 2), (2, 3), (3, 3)].into_iter().collect()
    );
}

#[test]
fn positions_beyond_the_guard_band_give_no_coverage_and_no_panic() {
    assert_eq!(snap(1048576.0, SubpixelBits::Eight), None);
    assert_eq!(snap(-3.0e38, SubpixelBits::Four), None);
    assert!(
        triangle([[0.0, 0.0], [2.0e6, 0.0], [0.0, 2.0e6]], &GL)
            .0
            .is_empty()
    );
}

#[test]
fn rectlist_rectangles_cover_each_pixel_once() {
    use gtsim_pipe3d::raster::rectangle;
    // A BLORP-style 8x8 rectangle: V0 = (8,8) lower right, V1 = (0,8) lower left,
    // V2 = (0,0) upper left, implied V3 = (8,0). Pixel centres (i + .5, j + .5) for
    // i, j in 0..8 are all inside: 64 pixels, none twice.
    let p = rectangle([[8.0, 8.0], [0.0, 8.0], [0.0, 0.0]], &GL);
    assert_eq!(p.len(), 64);
    let s = set(p);
    assert_eq!(s.len(), 64);
    assert!(s.iter().all(|&(x, y)| x < 8 && y < 8));
    // Offset rectangle [2,5) x [1,3): 3 x 2 = 6 pixels.
    let p = rectangle([[5.0, 3.0], [2.0, 3.0], [2.0, 1.0]], &GL);
    assert_eq!(p, vec![(2, 1), (3, 1), (4, 1), (2, 2), (3, 2), (4, 2)]);
}

#[test]
fn points_follow_the_rasterization_rule() {
    use gtsim_pipe3d::raster::{PointRule, point};
    // The seed's example: a 2-pixel point centred at (2,2) on the integer grid is the
    // square [1,3]^2; UPPER_LEFT lights samples on its top and left edges: x, y in {1, 2}.
    let grid = RasterState {
        half_pixel_centers: false,
        ..GL
    };
    let ul = point([2.0, 2.0], 2.0, PointRule::UpperLeft, &grid);
    assert_eq!(ul, vec![(1, 1), (2, 1), (1, 2), (2, 2)]);
    // UPPER_RIGHT takes the right edge instead: x in {2, 3}.
    let ur = point([2.0, 2.0], 2.0, PointRule::UpperRight, &grid);
    assert_eq!(ur, vec![(2, 1), (3, 1), (2, 2), (3, 2)]);
    // GL centres: a 1-pixel point at (3.5, 4.5) lights exactly pixel (3, 4).
    assert_eq!(
        point([3.5, 4.5], 1.0, PointRule::UpperLeft, &GL),
        vec![(3, 4)]
    );
}

mod lines {
    use super::{GL, set};
    use gtsim_pipe3d::raster::{DiamondRule, wide_line, zero_width_line};

    fn row(xs: std::ops::RangeInclusive<u32>, y: u32) -> Vec<(u32, u32)> {
        xs.map(|x| (x, y)).collect()
    }

    #[test]
    fn a_cosmetic_line_lights_every_diamond_it_leaves_but_not_the_last() {
        // Along row 2's pixel centres from pixel 0 to pixel 5 (seed 004 §10.3.12.1): it
        // starts in pixel 0's diamond and leaves it (lit), passes 1-4 (lit) and ends in
        // pixel 5's diamond (not lit, unless Last Pixel Enable).
        let px = zero_width_line([0.5, 2.5], [5.5, 2.5], DiamondRule::Dx10, false, &GL);
        assert_eq!(set(px), set(row(0..=4, 2)));
        let px = zero_width_line([0.5, 2.5], [5.5, 2.5], DiamondRule::Dx10, true, &GL);
        assert_eq!(set(px), set(row(0..=5, 2)));
    }

    #[test]
    fn between_rows_the_bottom_corner_decides() {
        // y = 3.0 runs exactly between the centres of rows 2 and 3: it touches row 2's
        // diamonds at their bottom corners (inclusive) and row 3's at their top corners
        // (exclusive), §10.3.12.3 rule 1. It ends in pixel (4, 2)'s diamond.
        let px = zero_width_line([0.5, 3.0], [4.5, 3.0], DiamondRule::Dx10, false, &GL);
        assert_eq!(set(px), set(row(0..=3, 2)));
    }

    #[test]
    fn between_columns_a_y_major_line_takes_the_right_corner() {
        // x = 2.0 runs between the centres of columns 1 and 2: a y-major line includes a
        // diamond's right corner (column 1) but never its left corner (column 2),
        // §10.3.12.3 rules 2-3. It ends in pixel (1, 4)'s diamond.
        let px = zero_width_line([2.0, 0.5], [2.0, 4.5], DiamondRule::Dx10, false, &GL);
        assert_eq!(set(px), set((0..=3).map(|y| (1, y)).collect()));
        // Legacy rules: the right corner is inclusive too (slope is not 1).
        let px = zero_width_line([2.0, 0.5], [2.0, 4.5], DiamondRule::Legacy, false, &GL);
        assert_eq!(set(px), set((0..=3).map(|y| (1, y)).collect()));
    }

    #[test]
    fn a_wide_line_is_a_parallelogram_along_the_minor_axis() {
        // Width 1, x-major, from (0, 2.5) to (4, 2.5): corners at y 2 and 3 (§10.3.12.4);
        // the centres of pixels 0-3 of row 2 are inside.
        let px = wide_line([0.0, 2.5], [4.0, 2.5], 1.0, &GL);
        assert_eq!(set(px), set(row(0..=3, 2)));
        // Width 3 from (1, 1) to (1, 5) is y-major: x from -0.5 to 2.5, so columns 0 and
        // 1 (centres 0.5, 1.5) of rows 1-4 are lit; 2.5 is the right edge, not lit.
        let px = wide_line([1.0, 1.0], [1.0, 5.0], 3.0, &GL);
        assert_eq!(
            set(px),
            set((1..=4).flat_map(|y| [(0, y), (1, y)]).collect())
        );
    }
}

/// The coverage rule sample by sample, as the module states it (seed 004 §10.3.4): snap
/// the vertices, then a pixel is lit when its sample is strictly inside every edge, or
/// on an edge that is a top edge (horizontal, interior below) or a left edge (interior
/// to its right). Clockwise order first.
fn covered_by_samples(v: [[f32; 2]; 3], s: &RasterState) -> BTreeSet<(u32, u32)> {
    let bits = match s.subpixel {
        SubpixelBits::Four => 4,
        SubpixelBits::Eight => 8,
    };
    let one = 1i64 << bits;
    let bias = if s.half_pixel_centers { one / 2 } else { 0 };
    let mut p = v.map(|q| {
        [
            snap(q[0], s.subpixel).unwrap(),
            snap(q[1], s.subpixel).unwrap(),
        ]
    });
    let area =
        (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
    if area < 0 {
        p.swap(1, 2);
    }
    let mut lit = BTreeSet::new();
    if area == 0 {
        return lit;
    }
    for py in s.rect[1]..=s.rect[3] {
        for px in s.rect[0]..=s.rect[2] {
            let q = [px as i64 * one + bias, py as i64 * one + bias];
            let inside = (0..3).all(|i| {
                let (a, b) = (p[i], p[(i + 1) % 3]);
                let (ea, eb) = (a[1] - b[1], b[0] - a[0]);
                let e = ea * (q[0] - a[0]) + eb * (q[1] - a[1]);
                e > 0 || (e == 0 && (ea > 0 || (ea == 0 && eb > 0)))
            });
            if inside {
                lit.insert((px, py));
            }
        }
    }
    lit
}

#[test]
fn random_triangles_light_exactly_the_pixels_whose_samples_they_cover() {
    // Vertices on a coarse grid of quarter pixels (so that samples fall on edges and
    // corners often) and anywhere, inside and beyond a small drawing rectangle.
    let mut x = 0x2545_f491u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for case in 0..3000 {
        let s = RasterState {
            subpixel: if case % 3 == 0 {
                SubpixelBits::Four
            } else {
                SubpixelBits::Eight
            },
            half_pixel_centers: case % 5 != 0,
            rect: [2, 1, 21, 18],
        };
        let v: [[f32; 2]; 3] = std::array::from_fn(|_| {
            std::array::from_fn(|_| {
                if case % 2 == 0 {
                    (next() % 112) as f32 / 4.0 - 2.0
                } else {
                    (next() % 1_000_000) as f32 / 40_000.0 - 1.0
                }
            })
        });
        let (lit, _) = triangle(v, &s);
        assert!(
            lit.is_sorted_by_key(|&(x, y)| (y, x)),
            "case {case}: not in raster order"
        );
        assert_eq!(set(lit), covered_by_samples(v, &s), "case {case}: {v:?}");
    }
}

/// A RECTLIST rectangle lights exactly the pixels of its two triangles (V0, V1, V2) and
/// (V0, V2, V3) (seed 004 §1, RectangleCompletion), in raster order, for random
/// (also sheared and inverted) rectangles.
#[test]
fn random_rectangles_light_their_two_triangles_in_raster_order() {
    let mut x = 0x9e37_79b9u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % 100_000) as f32 / 2_500.0 - 4.0
    };
    for case in 0..2000 {
        let v: [[f32; 2]; 3] = std::array::from_fn(|_| [next(), next()]);
        let v = if case % 2 == 0 {
            // Axis-aligned, as BLORP and clears draw them.
            [[v[0][0], v[0][1]], [v[1][0], v[0][1]], [v[1][0], v[1][1]]]
        } else {
            v
        };
        let v3 = [v[0][0] - v[1][0] + v[2][0], v[0][1] - v[1][1] + v[2][1]];
        let lit = rectangle(v, &GL);
        assert!(
            lit.is_sorted_by_key(|&(x, y)| (y, x)),
            "case {case}: not in raster order"
        );
        let mut want = set(triangle([v[0], v[1], v[2]], &GL).0);
        want.extend(triangle([v[0], v[2], v3], &GL).0);
        assert_eq!(lit.len(), want.len(), "case {case}: a pixel twice");
        assert_eq!(set(lit), want, "case {case}: {v:?}");
    }
}
