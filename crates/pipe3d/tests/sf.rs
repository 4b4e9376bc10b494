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
