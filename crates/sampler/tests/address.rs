//! Address modes on a 4-texel axis (seed 000 §2.2.3) and the NEAREST/LINEAR tap mapping
//! (§2.2.2). Expected values are worked by hand in the comments.

use gtsim_sampler::address::{
    Resolved, TexCoordMode, clamp, clamp_border, linear_taps, mirror, mirror_once, nearest_tap,
    resolve, wrap,
};

const COORDS: [i32; 15] = [-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

fn map(f: fn(i32, u32) -> u32) -> Vec<u32> {
    COORDS.iter().map(|&i| f(i, 4)).collect()
}

#[test]
fn wrap_repeats_every_four() {
    // i mod 4 (Euclidean): -5→3, -4→0, -3→1, -2→2, -1→3, then 0 1 2 3 0 1 2 3 0 1.
    assert_eq!(map(wrap), [3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1]);
}

#[test]
fn mirror_flips_at_every_junction() {
    // [0,4) normal: 0 1 2 3; [4,8) flipped: 3 2 1 0; [8,12) normal: 0 1 ...
    // [-4,0) flipped about 0: -1→0, -2→1, -3→2, -4→3; [-8,-4) normal: -5→3.
    assert_eq!(map(mirror), [3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1]);
}

#[test]
fn mirror_once_folds_then_clamps() {
    // |u| then clamp: -1→0, -2→1, -3→2, -4→3, -5→4 clamped to 3; ≥4 clamps to 3.
    assert_eq!(
        map(mirror_once),
        [3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3, 3]
    );
}

#[test]
fn clamp_repeats_the_edge() {
    // Below 0 → 0, above 3 → 3.
    assert_eq!(map(clamp), [0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3, 3]);
}

#[test]
fn clamp_border_is_none_outside() {
    let got: Vec<Option<u32>> = COORDS.iter().map(|&i| clamp_border(i, 4)).collect();
    let mut want = vec![None; 15];
    // Only 0..4 (COORDS indices 5..9) are inside.
    want[5..9].copy_from_slice(&[Some(0), Some(1), Some(2), Some(3)]);
    assert_eq!(got, want);
}

#[test]
fn resolve_dispatches_and_cube_reports_off_face() {
    assert_eq!(resolve(TexCoordMode::ClampBorder, 4, 4), Resolved::Border);
    assert_eq!(resolve(TexCoordMode::Cube, 2, 4), Resolved::Texel(2));
    assert_eq!(resolve(TexCoordMode::Cube, -1, 4), Resolved::OffFace(-1));
    assert_eq!(resolve(TexCoordMode::Wrap, -1, 4), Resolved::Texel(3));
}

#[test]
fn extreme_indices_and_zero_size_do_not_panic() {
    // i32::MIN = -2^31 is a multiple of 4 → wrap 0; i32::MAX = 2^31-1 ≡ 3 (mod 4).
    assert_eq!(wrap(i32::MIN, 4), 0);
    assert_eq!(wrap(i32::MAX, 4), 3);
    // Mirror period 8: 2^31-1 ≡ 7 (mod 8) → flipped half, 8-1-7 = 0.
    assert_eq!(mirror(i32::MAX, 4), 0);
    // -2^31 folds to 2^31-1, clamped to 3.
    assert_eq!(mirror_once(i32::MIN, 4), 3);
    // Size 0 is treated as 1: everything lands on texel 0.
    assert_eq!(wrap(7, 0), 0);
    assert_eq!(clamp(-7, 0), 0);
    assert_eq!(TexCoordMode::from_raw(5), Ok(TexCoordMode::MirrorOnce));
    assert!(matches!(
        TexCoordMode::from_raw(6),
        Err(gtsim_sampler::SamplerError::Reserved {
            field: "TCX/TCY/TCZ Address Control Mode",
            value: 6,
            ..
        })
    ));
}

#[test]
fn bilinear_taps_for_hand_worked_coordinates() {
    // u = 0.375, size 4: 0.375*4 - 0.5 = 1.0 → i0 = 1, i1 = 2, weight 0.
    let t = linear_taps(0.375, 4);
    assert_eq!((t.i0, t.i1, t.weight), (1, 2, 0.0));
    // u = 0.5: 2.0 - 0.5 = 1.5 → 1, 2, 0.5.
    let t = linear_taps(0.5, 4);
    assert_eq!((t.i0, t.i1, t.weight), (1, 2, 0.5));
    // u = 0.0: -0.5 → floor -1, i1 = 0, weight 0.5 (half from the tap left of the map).
    let t = linear_taps(0.0, 4);
    assert_eq!((t.i0, t.i1, t.weight), (-1, 0, 0.5));
}

#[test]
fn nearest_tap_is_the_containing_texel() {
    // 0.3*4 = 1.2 → 1; 0.99*4 = 3.96 → 3; -0.1*4 = -0.4 → -1.
    assert_eq!(nearest_tap(0.3, 4), 1);
    assert_eq!(nearest_tap(0.99, 4), 3);
    assert_eq!(nearest_tap(-0.1, 4), -1);
}

#[test]
fn nan_and_infinite_coordinates_are_handled() {
    // NaN reads as 0.0: nearest texel 0; linear taps -1/0 with weight 0.5.
    assert_eq!(nearest_tap(f32::NAN, 4), 0);
    let t = linear_taps(f32::NAN, 4);
    assert_eq!((t.i0, t.i1, t.weight), (-1, 0, 0.5));
    // ±∞ saturate to ±2^30 texels, an integer, so the weight is 0.
    assert_eq!(nearest_tap(f32::INFINITY, 4), 1 << 30);
    assert_eq!(nearest_tap(f32::NEG_INFINITY, 4), -(1 << 30));
    let t = linear_taps(f32::INFINITY, 4);
    assert_eq!(t.weight, 0.0);
    assert_eq!(t.i1, t.i0 + 1);
}

/// TEXCOORDMODE_HALF_BORDER (seed 000 §2.2.3 L612, 6h on Gen8+): the coordinate is
/// clamped to the map, 0..=4 texels on a 4-texel axis, so at the edge a LINEAR footprint
/// (texel centres at i + 0.5) is half the edge texel and half the border: clamped to 0,
/// the taps are -1 (the border, as CLAMP_BORDER resolves it) and 0, weight 0.5 each.
/// Gen7's field table has no 6h, so only the Gen8+ decoder takes it.
#[test]
fn half_border_clamps_the_coordinate_to_the_map() {
    use gtsim_sampler::address::half_border_clamp;
    assert_eq!(half_border_clamp(-3.0, 4), 0.0);
    assert_eq!(half_border_clamp(7.5, 4), 4.0);
    assert_eq!(half_border_clamp(2.25, 4), 2.25);
    // NEAREST: the clamped coordinate's texel, the far edge the edge texel's (worked by
    // GL's rule i = min(floor(clamp(u, 0, size)), size - 1)).
    use gtsim_sampler::address::half_border_nearest;
    assert_eq!(half_border_nearest(-3.0, 4), 0);
    assert_eq!(half_border_nearest(2.75, 4), 2);
    assert_eq!(half_border_nearest(4.0, 4), 3);
    assert_eq!(half_border_nearest(9.5, 4), 3);
    assert_eq!(half_border_nearest(0.5, 1), 0);
    let m = TexCoordMode::HalfBorder;
    assert_eq!(resolve(m, -1, 4), Resolved::Border);
    assert_eq!(resolve(m, 4, 4), Resolved::Border);
    assert_eq!(resolve(m, 2, 4), Resolved::Texel(2));
    assert_eq!(TexCoordMode::from_raw_gen8(6), Ok(TexCoordMode::HalfBorder));
    // Gen7 reserves 6.
    assert!(matches!(
        TexCoordMode::from_raw(6),
        Err(gtsim_sampler::SamplerError::Reserved {
            field: "TCX/TCY/TCZ Address Control Mode",
            value: 6,
            ..
        })
    ));
}
