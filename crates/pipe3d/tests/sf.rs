//! Viewport transform and culling, worked by hand from seed 004 §10.3.

use gtsim_pipe3d::raster::Winding::{Ccw, Cw};
use gtsim_pipe3d::sf::{CullMode, Viewport, culled};

#[test]
fn viewport_maps_ndc_to_pixels() {
    // A 640x480 GL viewport drawn y-down: m00 = 320, m30 = 320, m11 = -240, m31 = 240,
    // depth range [0,1]: m22 = 0.5, m32 = 0.5. NDC (-1, 1, -1) is the top-left corner at
    // depth 0; (0.5, -0.5, 1) -> (480, 360, 1).
    let v = Viewport {
        m00: 320.0,
        m11: -240.0,
        m22: 0.5,
        m30: 320.0,
        m31: 240.0,
        m32: 0.5,
    };
    assert_eq!(v.transform([-1.0, 1.0, -1.0]), [0.0, 0.0, 0.0]);
    assert_eq!(v.transform([0.5, -0.5, 1.0]), [480.0, 360.0, 1.0]);
}

#[test]
fn every_cull_mode() {
    // Front winding CW: a CW triangle faces front, a CCW one back; strips' odd triangles
    // (invert) swap that.
    let cases = [
        (CullMode::Both, [true, true, true]),
        (CullMode::None, [false, false, false]),
        (CullMode::Front, [true, false, false]),
        (CullMode::Back, [false, true, true]),
    ];
    for (mode, [cw, ccw, cw_inverted]) in cases {
        assert_eq!(culled(mode, Cw, Cw, false), cw, "{mode:?} CW");
        assert_eq!(culled(mode, Cw, Ccw, false), ccw, "{mode:?} CCW");
        assert_eq!(
            culled(mode, Cw, Cw, true),
            cw_inverted,
            "{mode:?} CW inverted"
        );
    }
    // Front winding CCW flips which one is culled by BACK.
    assert!(culled(CullMode::Back, Ccw, Cw, false));
    assert!(!culled(CullMode::Back, Ccw, Ccw, false));
    assert_eq!(CullMode::from_field(2), CullMode::Front);
}

#[test]
fn attribute_deltas_and_flat_shading() {
    use gtsim_pipe3d::bary::interpolate;
    use gtsim_pipe3d::sf::attribute_setup;
    // A = (10, 14, 2): deltas (10, 4, -8); at b = (0.5, 0.5) -> 10 + 2 - 4 = 8, the
    // midpoint of v1 and v2.
    let d = attribute_setup([10.0, 14.0, 2.0], None);
    assert_eq!(d, [10.0, 4.0, -8.0]);
    assert_eq!(interpolate(d, [0.5, 0.5]), 8.0);
    // Flat shading from provoking vertex 2: 2 everywhere.
    let f = attribute_setup([10.0, 14.0, 2.0], Some(2));
    assert_eq!(interpolate(f, [0.3, 0.6]), 2.0);
}

use gtsim_pipe3d::sf::{DepthOffset, DepthOffsetFormat, depth_offset_bias};

#[test]
fn global_depth_offset_follows_the_seed_formula() {
    // Seed 004 §11.5.1. Triangle (0,0,0.25) (4,0,0.75) (0,8,0.25): dz/dx = 0.5/4 = 0.125,
    // dz/dy = 0, MaxDepthSlope 0.125.
    let tri = [[0.0, 0.0, 0.25], [4.0, 0.0, 0.75], [0.0, 8.0, 0.25]];
    let o = DepthOffset {
        constant: 2.0,
        scale: 4.0,
        clamp: 0.0,
        legacy: false,
        format: DepthOffsetFormat::Unorm(24),
    };
    // D24: r = 1/(2^24 - 1); Bias = 2r + 4 * 0.125 = 0.5 + 2r.
    let r24 = 1.0 / 16_777_215.0f32;
    assert_eq!(depth_offset_bias(&o, tri), 2.0 * r24 + 0.5);
    // D16 and the legacy bit (r = 1).
    let d16 = DepthOffset {
        format: DepthOffsetFormat::Unorm(16),
        ..o
    };
    assert_eq!(depth_offset_bias(&d16, tri), 2.0 / 65_535.0 + 0.5);
    let legacy = DepthOffset { legacy: true, ..o };
    assert_eq!(depth_offset_bias(&legacy, tri), 2.5);
    // Float: max z 0.75 has exponent -1, so the unit is 2^(-1-23) = 2^-24.
    let float = DepthOffset {
        format: DepthOffsetFormat::Float,
        ..o
    };
    assert_eq!(depth_offset_bias(&float, tri), 2.0 * 2f32.powi(-24) + 0.5);
    // Clamps: a positive clamp is a maximum, a negative one a minimum.
    let clamped = DepthOffset { clamp: 0.1, ..o };
    assert_eq!(depth_offset_bias(&clamped, tri), 0.1);
    let negative = DepthOffset {
        constant: -2.0,
        scale: -4.0,
        clamp: -0.2,
        ..o
    };
    assert_eq!(depth_offset_bias(&negative, tri), -0.2);
    // A y slope counts the same: the triangle turned on its side.
    let side = [[0.0, 0.0, 0.25], [0.0, 4.0, 0.75], [8.0, 0.0, 0.25]];
    let slope_only = DepthOffset { constant: 0.0, ..o };
    assert_eq!(depth_offset_bias(&slope_only, side), 0.5);
}
