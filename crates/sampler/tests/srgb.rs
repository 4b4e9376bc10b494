//! sRGB texel linearization (seed 000 §2.6 L724-728).

use gtsim_sampler::srgb::{linearize_texel, srgb_to_linear};

#[test]
fn endpoints_and_midpoint() {
    assert_eq!(srgb_to_linear(0.0), 0.0);
    assert!((srgb_to_linear(1.0) - 1.0).abs() < 1e-6);
    // ((0.5 + 0.055)/1.055)^2.4 = 0.526066^2.4; ln 0.526066 = −0.642271, ×2.4 = −1.541450,
    // e^−1.541450 ≈ 0.21404.
    assert!((srgb_to_linear(0.5) - 0.21404).abs() < 1e-4);
    // Linear segment: 0.02/12.92 ≈ 0.001548.
    assert!((srgb_to_linear(0.02) - 0.001_548).abs() < 1e-6);
}

#[test]
fn alpha_is_untouched_and_nan_reads_zero() {
    let t = linearize_texel([0.0, 1.0, f32::NAN, 0.5]);
    assert_eq!(t[0], 0.0);
    assert_eq!(t[2], 0.0);
    assert_eq!(t[3], 0.5);
}
