//! Clip test and clip determination, worked by hand from seed 004 §9.2 and §9.4.2.

use gtsim_pipe3d::clip::{ClipStatus, ClipTest, OutCode, clip_determination, vertex_clip_test};

const T: ClipTest = ClipTest {
    viewport_xy: true,
    viewport_z: true,
    guardband: true,
    gb: [-4.0, 4.0, -4.0, 4.0],
    opengl_z: true,
    ucd_mask: 0,
};
const NO_UCD: [f32; 8] = [0.0; 8];

fn oc(x: f32, y: f32, z: f32) -> OutCode {
    vertex_clip_test([x, y, z], 1.0, &T, &NO_UCD)
}

#[test]
fn outcodes() {
    assert_eq!(oc(0.0, 0.0, 0.0), OutCode(0));
    // x = 2: outside the viewport right, inside the guard band.
    assert_eq!(oc(2.0, 0.0, 0.0), OutCode(OutCode::VP_R));
    // x = -5: outside viewport and guard band left; z = -1.5 outside the GL near plane.
    assert_eq!(
        oc(-5.0, 0.0, -1.5),
        OutCode(OutCode::VP_L | OutCode::GB_L | OutCode::VP_N)
    );
    // Direct3D near plane is z < 0.
    let d3d = ClipTest {
        opengl_z: false,
        ..T
    };
    assert_eq!(
        vertex_clip_test([0.0, 0.0, -0.5], 1.0, &d3d, &NO_UCD),
        OutCode(OutCode::VP_N)
    );
    // Negative 1/w: NEGW, and the comparisons flip (x = 0.5 with w < 0 is "x/w < 1"
    // failing the other way: 0.5 > -1 is outside left).
    let c = vertex_clip_test([0.5, 0.0, 0.0], -1.0, &T, &NO_UCD);
    assert_ne!(c.0 & OutCode::NEGW, 0);
    assert_ne!(c.0 & OutCode::VP_L, 0);
    // NaN is BAD.
    assert_ne!(
        vertex_clip_test([f32::NAN, 0.0, 0.0], 1.0, &T, &NO_UCD).0 & OutCode::BAD,
        0
    );
    // User clip distance 3 enabled and negative (or NaN) sets UCF3.
    let u = ClipTest {
        ucd_mask: 0b1000,
        ..T
    };
    let mut d = NO_UCD;
    d[3] = -0.25;
    assert_eq!(
        vertex_clip_test([0.0; 3], 1.0, &u, &d),
        OutCode(OutCode::ucf(3))
    );
    d[3] = f32::NAN;
    assert_eq!(
        vertex_clip_test([0.0; 3], 1.0, &u, &d),
        OutCode(OutCode::ucf(3))
    );
}

#[test]
fn guard_band_disabled_coincides_with_the_viewport() {
    let no_gb = ClipTest {
        guardband: false,
        ..T
    };
    let c = vertex_clip_test([2.0, 0.0, 0.0], 1.0, &no_gb, &NO_UCD);
    assert_eq!(c, OutCode(OutCode::VP_R | OutCode::GB_R));
}

#[test]
fn determination() {
    // All inside: accept.
    let inside = [oc(0.0, 0.0, 0.0), oc(0.5, 0.5, 0.0), oc(-0.5, 0.5, 0.0)];
    assert_eq!(clip_determination(&inside, false), ClipStatus::Accept);
    // Straddling the viewport but inside the guard band: accepted (2D clipping does it).
    let gb = [oc(-2.0, 0.0, 0.0), oc(2.0, 0.0, 0.0), oc(0.0, 2.0, 0.0)];
    assert_eq!(clip_determination(&gb, false), ClipStatus::Accept);
    // All three right of the viewport: rejected (TR_VPXY) even inside the guard band.
    let right = [oc(2.0, 0.0, 0.0), oc(3.0, 0.0, 0.0), oc(2.5, 1.0, 0.0)];
    assert_eq!(clip_determination(&right, false), ClipStatus::Reject);
    // Crossing the guard band: must clip.
    let big = [oc(-5.0, 0.0, 0.0), oc(0.0, 0.0, 0.0), oc(0.0, 0.5, 0.0)];
    assert_eq!(clip_determination(&big, false), ClipStatus::MustClip);
    // Crossing the near plane: must clip.
    let near = [oc(0.0, 0.0, -2.0), oc(0.0, 0.0, 0.0), oc(0.5, 0.0, 0.0)];
    assert_eq!(clip_determination(&near, false), ClipStatus::MustClip);
    // A BAD vertex wins.
    let bad = [
        oc(0.0, 0.0, 0.0),
        vertex_clip_test([0.0, f32::INFINITY, 0.0], 1.0, &T, &NO_UCD),
    ];
    assert_eq!(clip_determination(&bad, false), ClipStatus::Bad);
}

#[test]
fn user_clip_must_clip_mode() {
    // One vertex outside UCF0, others inside: without UCMC the object is TA (only culled
    // against user planes); with UCMC it must be clipped. All outside: TR either way.
    let out = OutCode(OutCode::ucf(0));
    let v = [out, OutCode(0), OutCode(0)];
    assert_eq!(clip_determination(&v, false), ClipStatus::Accept);
    assert_eq!(clip_determination(&v, true), ClipStatus::MustClip);
    assert_eq!(
        clip_determination(&[out, out, out], false),
        ClipStatus::Reject
    );
}
