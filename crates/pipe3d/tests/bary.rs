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
