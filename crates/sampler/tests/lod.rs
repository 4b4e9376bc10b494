//! The §2.2.1.5 LOD pseudocode (seed 000 L464-535) on hand-worked cases.

use gtsim_sampler::lod::{LodInput, LodState, MipFilter, MipLevels, compute_lod, ideal_lod};

fn state(mip_filter: MipFilter) -> LodState {
    LodState {
        bias: 0.0,
        min_lod: 0.0,
        max_lod: 15.0,
        base_mip_level: 0.0,
        mip_count: 5,
        surf_min_lod: 0,
        res_min_lod: 0.0,
        pre_clamp: false,
        mip_filter,
    }
}

#[test]
fn two_texels_per_pixel_is_lod_one() {
    // ρ = max(|(2,0,0)|, |(0,2,0)|) = 2 → log2 2 = 1.
    assert_eq!(ideal_lod([2.0, 0.0, 0.0], [0.0, 2.0, 0.0]), 1.0);
    // (3,4) has length 5, longer than 2: log2 5 ≈ 2.3219.
    assert!((ideal_lod([3.0, 4.0, 0.0], [0.0, 2.0, 0.0]) - 2.321_928).abs() < 1e-5);
    // Zero derivatives: log2 0 = -∞, magnification.
    assert_eq!(ideal_lod([0.0; 3], [0.0; 3]), f32::NEG_INFINITY);
}

#[test]
fn nearest_minification_at_lod_one() {
    // LOD 1, no bias, NEAREST: floor(1 + 0.5) = 1.
    let r = compute_lod(&state(MipFilter::Nearest), LodInput::Computed(1.0));
    assert!(!r.magnify);
    assert_eq!(r.levels, MipLevels::One(1));
}

#[test]
fn bias_moves_the_level() {
    // LOD 1 + state bias 0.75 = 1.75; NEAREST: floor(2.25) = 2.
    let mut s = state(MipFilter::Nearest);
    s.bias = 0.75;
    assert_eq!(
        compute_lod(&s, LodInput::Computed(1.0)).levels,
        MipLevels::One(2)
    );
    // sample_b adds the message bias too: 1 + 0.75 + 1.0 = 2.75 → floor(3.25) = 3.
    let r = compute_lod(
        &s,
        LodInput::Biased {
            lod: 1.0,
            bias: 1.0,
        },
    );
    assert_eq!(r.levels, MipLevels::One(3));
    // sample_l replaces the LOD: 0.75 + 0.0 = 0.75 > 0, minify; floor(1.25) = 1.
    assert_eq!(
        compute_lod(&s, LodInput::Explicit(0.0)).levels,
        MipLevels::One(1)
    );
}

#[test]
fn linear_blends_the_two_levels() {
    // LOD 1.25, LINEAR: TriBeta 0.25, LOD0 1, LOD1 2.
    let r = compute_lod(&state(MipFilter::Linear), LodInput::Computed(1.25));
    assert_eq!(
        r.levels,
        MipLevels::Two {
            lod0: 1,
            lod1: 2,
            beta: 0.25
        }
    );
}

#[test]
fn max_lod_and_mip_count_clamp() {
    // MaxLod 2.5 with MIPCnt 5: AdjMaxLod 2.5; LOD 4 → 2.5; LINEAR: beta 0.5, LOD0 2,
    // LOD1 3: MaxLOD's fraction limits level 3's weight to 50% (L452), so level 3 is
    // read (the integer bits of L535 bound it by ceil(AdjMaxLod) = 3).
    let mut s = state(MipFilter::Linear);
    s.max_lod = 2.5;
    let r = compute_lod(&s, LodInput::Computed(4.0));
    assert_eq!(
        r.levels,
        MipLevels::Two {
            lod0: 2,
            lod1: 3,
            beta: 0.5
        }
    );
    // piglit lodclamp-between-max: LOD 5 (32 texels a pixel) and MaxLod L + 0.5 blend
    // levels L and L + 1 half and half, up to MaxLod 4.5 (levels 4 and 5 of MIPCnt 5).
    for l in 0..5u32 {
        s.max_lod = l as f32 + 0.5;
        assert_eq!(
            compute_lod(&s, LodInput::Computed(5.0)).levels,
            MipLevels::Two {
                lod0: l,
                lod1: l + 1,
                beta: 0.5
            },
            "MaxLod {}",
            s.max_lod
        );
    }
    // A whole MaxLod 3 clamps LOD 5 to 3 with no weight past it: level 3 alone.
    s.max_lod = 3.0;
    assert_eq!(
        compute_lod(&s, LodInput::Computed(5.0)).levels,
        MipLevels::Two {
            lod0: 3,
            lod1: 3,
            beta: 0.0
        }
    );
    // MIPCnt 3 bounds MaxLod 15: LOD 9 → 3; NEAREST floor(3.5) = 3.
    let mut s = state(MipFilter::Nearest);
    s.mip_count = 3;
    assert_eq!(
        compute_lod(&s, LodInput::Computed(9.0)).levels,
        MipLevels::One(3)
    );
}

#[test]
fn min_lod_limits_the_high_resolution_weight() {
    // The seed's example (L452): MinLod 4.5, LINEAR: LOD 1 → 4.5, so LOD 4 gets 1 - 0.5.
    let mut s = state(MipFilter::Linear);
    s.min_lod = 4.5;
    let r = compute_lod(&s, LodInput::Computed(1.0));
    assert_eq!(
        r.levels,
        MipLevels::Two {
            lod0: 4,
            lod1: 5,
            beta: 0.5
        }
    );
}

#[test]
fn magnification_resets_to_zero() {
    // LOD -1 ≤ Base 0 → MagMode; LOD = 0 even with LINEAR, one level.
    let r = compute_lod(&state(MipFilter::Linear), LodInput::Computed(-1.0));
    assert!(r.magnify);
    assert_eq!(r.levels, MipLevels::One(0));
    // Base 1.5 moves the crossover: LOD 1.0 - 1.5 ≤ 0 → still magnified.
    let mut s = state(MipFilter::Nearest);
    s.base_mip_level = 1.5;
    assert!(compute_lod(&s, LodInput::Computed(1.0)).magnify);
    // Magnified with MinLod 4.5: LOD = max(0, floor(4.5)) = 4.
    let mut s = state(MipFilter::Nearest);
    s.min_lod = 4.5;
    s.base_mip_level = 8.0;
    let r = compute_lod(&s, LodInput::Computed(6.0));
    assert!(r.magnify);
    assert_eq!(r.levels, MipLevels::One(4));
}

#[test]
fn mipfilter_none_uses_level_zero() {
    // MIPFILTER_NONE: LOD = 0 whatever the computed LOD.
    let r = compute_lod(&state(MipFilter::None), LodInput::Computed(3.7));
    assert!(!r.magnify);
    assert_eq!(r.levels, MipLevels::One(0));
}

#[test]
fn pre_clamp_changes_the_mag_decision() {
    // MinLod 1, LOD -2. Without pre-clamp: -2 ≤ 0 → magnify, then LOD = floor(1) = 1.
    // With pre-clamp: LOD = max(-2, 1) = 1 > 0 → minify; NEAREST floor(1.5) = 1.
    let mut s = state(MipFilter::Nearest);
    s.min_lod = 1.0;
    assert!(compute_lod(&s, LodInput::Computed(-2.0)).magnify);
    s.pre_clamp = true;
    let r = compute_lod(&s, LodInput::Computed(-2.0));
    assert!(!r.magnify);
    assert_eq!(r.levels, MipLevels::One(1));
}

#[test]
fn surf_min_lod_offsets_levels_except_for_the_lod_message() {
    // SurfMinLod 2, LOD 1 NEAREST: level 1 + 2 = 3; the LOD message keeps 1.
    let mut s = state(MipFilter::Nearest);
    s.surf_min_lod = 2;
    assert_eq!(
        compute_lod(&s, LodInput::Computed(1.0)).levels,
        MipLevels::One(3)
    );
    assert_eq!(
        compute_lod(&s, LodInput::Query(1.0)).levels,
        MipLevels::One(1)
    );
}

#[test]
fn out_of_bounds_and_the_linear_erratum() {
    // ResMinLod 7 - SurfMinLod 0 = 7 > MIPCnt 5 → Out of Bounds; zero-forcing except
    // for MIPFILTER_LINEAR (L520).
    let mut s = state(MipFilter::Nearest);
    s.res_min_lod = 7.0;
    let r = compute_lod(&s, LodInput::Computed(0.5));
    assert!(r.out_of_bounds && r.force_zero);
    s.mip_filter = MipFilter::Linear;
    let r = compute_lod(&s, LodInput::Computed(0.5));
    assert!(r.out_of_bounds && !r.force_zero);
}

#[test]
fn nan_and_infinite_lods() {
    // NaN reads as +∞: clamped to AdjMaxLod = MIPCnt 5.
    let s = state(MipFilter::Nearest);
    assert_eq!(
        compute_lod(&s, LodInput::Computed(f32::NAN)).levels,
        MipLevels::One(5)
    );
    assert_eq!(
        compute_lod(&s, LodInput::Computed(f32::INFINITY)).levels,
        MipLevels::One(5)
    );
    let r = compute_lod(&s, LodInput::Computed(f32::NEG_INFINITY));
    assert!(r.magnify);
    assert_eq!(r.levels, MipLevels::One(0));
    assert!(matches!(
        MipFilter::from_raw(2),
        Err(gtsim_sampler::SamplerError::Reserved {
            field: "Mip Mode Filter",
            value: 2,
            ..
        })
    ));
}
