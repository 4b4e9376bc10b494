//! NEAREST/LINEAR filtering, address modes at the edge, border colour and the mip blend
//! (seed 000 §2.2.2, §2.2.3, §2.2.1.5.1). Expected values are worked by hand.

use gtsim_sampler::SamplerError;
use gtsim_sampler::address::TexCoordMode;
use gtsim_sampler::filter::{MapFilter, Sampler2d, level_size, sample_2d, sample_level};
use gtsim_sampler::lod::{LodInput, LodResult, LodState, MipFilter, MipLevels, compute_lod};

fn grey(v: f32) -> [f32; 4] {
    [v, v, v, 1.0]
}

/// 2x2 checkerboard: (0,0) and (1,1) white, (1,0) and (0,1) black.
fn checker(_level: u32, x: u32, y: u32) -> [f32; 4] {
    assert!(x < 2 && y < 2, "tap outside the map");
    grey(if (x + y).is_multiple_of(2) { 1.0 } else { 0.0 })
}

/// A 4x1 ramp: texel x holds 10·x.
fn ramp(_level: u32, x: u32, y: u32) -> [f32; 4] {
    assert!(x < 4 && y < 1, "tap outside the map");
    grey(10.0 * x as f32)
}

fn sampler(filter: MapFilter, u: TexCoordMode) -> Sampler2d {
    Sampler2d {
        min_filter: filter,
        mag_filter: filter,
        address_u: u,
        address_v: TexCoordMode::Clamp,
        border_color: [9.0, 9.0, 9.0, 9.0],
    }
}

#[test]
fn nearest_versus_linear_on_a_checkerboard() {
    let s = sampler(MapFilter::Nearest, TexCoordMode::Clamp);
    // (0.25, 0.75) lies in texel (0, 1): black.
    assert_eq!(
        sample_level(&checker, &s, MapFilter::Nearest, 0, (2, 2), (0.25, 0.75)),
        Ok(grey(0.0))
    );
    // (0.5, 0.5): nearest texel floor(1.0) = (1, 1): white.
    assert_eq!(
        sample_level(&checker, &s, MapFilter::Nearest, 0, (2, 2), (0.5, 0.5)),
        Ok(grey(1.0))
    );
    // LINEAR at the centre: t = 0.5·2 − 0.5 = 0.5 on both axes, a quarter of each
    // texel: (1 + 0 + 0 + 1)/4 = 0.5.
    assert_eq!(
        sample_level(&checker, &s, MapFilter::Linear, 0, (2, 2), (0.5, 0.5)),
        Ok(grey(0.5))
    );
    // LINEAR at a texel centre (0.25, 0.25): t = 0, weights 0 → texel (0, 0) exactly.
    assert_eq!(
        sample_level(&checker, &s, MapFilter::Linear, 0, (2, 2), (0.25, 0.25)),
        Ok(grey(1.0))
    );
    // Between (0,0) and (1,0) horizontally at u = 0.5, v = 0.25: (1 + 0)/2 = 0.5.
    assert_eq!(
        sample_level(&checker, &s, MapFilter::Linear, 0, (2, 2), (0.5, 0.25)),
        Ok(grey(0.5))
    );
}

#[test]
fn wrap_versus_clamp_at_the_left_edge() {
    // u = 0 on the 4-texel ramp: t = −0.5 → taps −1 and 0, half each.
    // WRAP: −1 → 3: (30 + 0)/2 = 15. CLAMP: −1 → 0: (0 + 0)/2 = 0.
    // MIRROR: −1 → 0 as well: 0.
    let at = |mode| {
        sample_level(
            &ramp,
            &sampler(MapFilter::Linear, mode),
            MapFilter::Linear,
            0,
            (4, 1),
            (0.0, 0.5),
        )
    };
    assert_eq!(at(TexCoordMode::Wrap), Ok(grey(15.0)));
    assert_eq!(at(TexCoordMode::Clamp), Ok(grey(0.0)));
    assert_eq!(at(TexCoordMode::Mirror), Ok(grey(0.0)));
    // Right edge u = 1: t = 3.5 → taps 3 and 4. WRAP: 4 → 0: (30 + 0)/2 = 15.
    // MIRROR_ONCE: 4 → 3: 30.
    let at = |mode| {
        sample_level(
            &ramp,
            &sampler(MapFilter::Linear, mode),
            MapFilter::Linear,
            0,
            (4, 1),
            (1.0, 0.5),
        )
    };
    assert_eq!(at(TexCoordMode::Wrap), Ok(grey(15.0)));
    assert_eq!(at(TexCoordMode::MirrorOnce), Ok(grey(30.0)));
}

#[test]
fn border_colour_outside_the_map() {
    let s = sampler(MapFilter::Linear, TexCoordMode::ClampBorder);
    // LINEAR at u = 0: half border 9 (tap −1), half texel 0 (value 0): 4.5; alpha
    // (9 + 1)/2 = 5.
    assert_eq!(
        sample_level(&ramp, &s, MapFilter::Linear, 0, (4, 1), (0.0, 0.5)),
        Ok([4.5, 4.5, 4.5, 5.0])
    );
    // NEAREST at u = 1.1: tap floor(4.4) = 4, outside → the border colour.
    assert_eq!(
        sample_level(&ramp, &s, MapFilter::Nearest, 0, (4, 1), (1.1, 0.5)),
        Ok([9.0; 4])
    );
    // Inside the map the border does not matter: u = 0.6 → texel 2 → 20.
    assert_eq!(
        sample_level(&ramp, &s, MapFilter::Nearest, 0, (4, 1), (0.6, 0.5)),
        Ok(grey(20.0))
    );
}

#[test]
fn cube_taps_off_the_face_are_reported() {
    let s = sampler(MapFilter::Nearest, TexCoordMode::Cube);
    let r = sample_level(&ramp, &s, MapFilter::Nearest, 0, (4, 1), (-0.1, 0.5));
    // Tap floor(−0.4) = −1 is off the face: the adjoining-face tap is what is unmodelled.
    assert!(matches!(&r, Err(SamplerError::Unmodelled(u))
        if u.what == "TEXCOORDMODE_CUBE adjoining-face taps"
            && u.reference == "seed 000 §2.2.3.6 L660"));
}

/// Level l of a 4x4 surface is a constant 10·l; taps must fit the level's size.
fn levels(level: u32, x: u32, y: u32) -> [f32; 4] {
    let size = 4 >> level;
    assert!(x < size && y < size, "tap outside level {level}");
    grey(10.0 * level as f32)
}

#[test]
fn mip_linear_blend() {
    // LOD 1.25, MIPFILTER_LINEAR: levels 1 and 2, beta 0.25:
    // 0.75·10 + 0.25·20 = 12.5.
    let state = LodState {
        bias: 0.0,
        min_lod: 0.0,
        max_lod: 15.0,
        base_mip_level: 0.0,
        mip_count: 2,
        surf_min_lod: 0,
        res_min_lod: 0.0,
        pre_clamp: false,
        mip_filter: MipFilter::Linear,
    };
    let lod = compute_lod(&state, LodInput::Computed(1.25));
    let s = sampler(MapFilter::Linear, TexCoordMode::Wrap);
    assert_eq!(
        sample_2d(&levels, &s, (4, 4), &lod, (0.3, 0.7)),
        Ok(grey(12.5))
    );
}

#[test]
fn mag_and_min_filters_are_selected_by_magnify() {
    let mut s = sampler(MapFilter::Nearest, TexCoordMode::Clamp);
    s.mag_filter = MapFilter::Linear;
    let mut lod = LodResult {
        magnify: true,
        lod: 0.0,
        levels: MipLevels::One(0),
        out_of_bounds: false,
        force_zero: false,
    };
    // Magnified: LINEAR at the checkerboard centre → 0.5.
    assert_eq!(
        sample_2d(&checker, &s, (2, 2), &lod, (0.5, 0.5)),
        Ok(grey(0.5))
    );
    // Minified: NEAREST → texel (1, 1) → 1.
    lod.magnify = false;
    assert_eq!(
        sample_2d(&checker, &s, (2, 2), &lod, (0.5, 0.5)),
        Ok(grey(1.0))
    );
}

#[test]
fn level_sizes_halve_down_to_one() {
    // 5 → 2 → 1 → 1; shifts past 31 saturate to 1.
    assert_eq!([0, 1, 2, 3].map(|l| level_size(5, l)), [5, 2, 1, 1]);
    assert_eq!(level_size(8192, 40), 1);
    assert_eq!(MapFilter::from_raw(2), Ok(MapFilter::Anisotropic));
    assert!(matches!(
        MapFilter::from_raw(6),
        Err(SamplerError::Unmodelled(u))
            if u.what == "MAPFILTER_MONO" && u.reference == "seed 000 §2.2.2.4"
    ));
    assert!(matches!(
        MapFilter::from_raw(3),
        Err(SamplerError::Reserved {
            field: "Min/Mag Mode Filter",
            value: 3,
            seed
        }) if seed.contains("SAMPLER_STATE DW0 19:14")
    ));
}
