//! Barycentrics worked by hand (seed 004 §11.6).

use gtsim_pipe3d::bary::{barycentrics, interpolate};

const TRI: [[f32; 2]; 3] = [[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]];

#[test]
fn linear_and_perspective() {
    // At (1, 1): areal coordinates l0 = 0.5, l1 = 0.25, l2 = 0.25. With w = 1 everywhere
    // perspective equals linear.
    let b = barycentrics(TRI, [1.0; 3], [1.0, 1.0]).unwrap();
    assert_eq!(b.linear, [0.25, 0.25]);
    assert_eq!(b.perspective, [0.25, 0.25]);
    // w = (1, 2, 4): l/w = (0.5, 0.125, 0.0625), sum 0.6875 = 11/16 -> b1 = 2/11,
    // b2 = 1/11.
    let b = barycentrics(TRI, [1.0, 2.0, 4.0], [1.0, 1.0]).unwrap();
    assert_eq!(
        b.perspective,
        [(2.0f64 / 11.0) as f32, (1.0f64 / 11.0) as f32]
    );
    assert_eq!(b.linear, [0.25, 0.25]);
    // At the vertices themselves.
    assert_eq!(
        barycentrics(TRI, [1.0; 3], [4.0, 0.0]).unwrap().linear,
        [1.0, 0.0]
    );
    assert_eq!(
        barycentrics(TRI, [1.0; 3], [0.0, 4.0]).unwrap().linear,
        [0.0, 1.0]
    );
}

#[test]
fn interpolation_formula_and_degenerates() {
    // A(v0) = 10, A(v1) = 14, A(v2) = 2: deltas (10, 4, -8); at b = (0.25, 0.25):
    // 10 + 1 - 2 = 9.
    assert_eq!(interpolate([10.0, 4.0, -8.0], [0.25, 0.25]), 9.0);
    assert!(barycentrics([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]], [1.0; 3], [0.5, 0.5]).is_none());
    assert!(barycentrics(TRI, [f32::NAN, 1.0, 1.0], [1.0, 1.0]).is_none());
}

/// The model's formula written out with every division (areal coordinates over the
/// area, each over its vertex's w, then over their sum), against `barycentrics`, which
/// skips the divisions by exactly 1: the same bits for random triangles and positions,
/// with w all 1 (2D work) and not.
#[test]
fn skipped_divisions_by_one_change_no_bit() {
    let mut x = 0x5151_2727u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % 1_000_000) as f32 / 1_000.0 - 500.0
    };
    for case in 0..20_000 {
        let v: [[f32; 2]; 3] = std::array::from_fn(|_| [next(), next()]);
        let p = [next(), next()];
        let w = if case % 2 == 0 {
            [1.0; 3]
        } else {
            std::array::from_fn(|_| next().abs() / 100.0 + 0.01)
        };
        let f = |a: [f32; 2]| [a[0] as f64, a[1] as f64];
        let (v0, v1, v2, q) = (f(v[0]), f(v[1]), f(v[2]), f(p));
        let area = (v1[0] - v0[0]) * (v2[1] - v0[1]) - (v1[1] - v0[1]) * (v2[0] - v0[0]);
        let got = barycentrics(v, w, p);
        if area == 0.0 {
            assert!(got.is_none());
            continue;
        }
        let l1 = ((q[0] - v0[0]) * (v2[1] - v0[1]) - (q[1] - v0[1]) * (v2[0] - v0[0])) / area;
        let l2 = ((v1[0] - v0[0]) * (q[1] - v0[1]) - (v1[1] - v0[1]) * (q[0] - v0[0])) / area;
        let l0 = 1.0 - l1 - l2;
        let (q0, q1, q2) = (l0 / w[0] as f64, l1 / w[1] as f64, l2 / w[2] as f64);
        let sum = q0 + q1 + q2;
        let want = [(q1 / sum) as f32, (q2 / sum) as f32, l1 as f32, l2 as f32];
        let got = got.expect("a finite, non-degenerate case");
        let got = [
            got.perspective[0],
            got.perspective[1],
            got.linear[0],
            got.linear[1],
        ];
        assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits), "case {case}");
    }
}
