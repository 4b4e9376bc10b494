//! Whole draws through the pipeline, from state packed by hand and kernels assembled
//! from text, with expectations worked out from the seed's rules: which pixels a
//! rectangle and a triangle light (§10.3, upper-left rule), what a flat attribute and a
//! barycentric-interpolated one give (§11.6), how a VS thread's URB writes become the
//! VUE (ch.3), and what the render target write stores (seed 000 §3.9.11, UNORM8
//! rounding).

mod common;

use common::*;
use gtsim_pipe3d::draw::DrawError;
use gtsim_spec::gen7::*;
use gtsim_spec::shared::*;

#[test]
fn a_rectlist_rectangle_lights_exactly_its_pixels_with_the_flat_colour() {
    // V0 lower right (12, 10), V1 lower left (4, 10), V2 upper left (4, 2): the implied
    // fourth corner is (12, 2). Pixel centres (x + 0.5, y + 0.5) inside [4, 12) x [2, 10)
    // light: x in 4..=11, y in 2..=9, 64 pixels.
    let c = [0.2, 0.4, 0.6, 1.0];
    let v = [
        [12.0, 10.0, c[0], c[1], c[2], c[3]],
        [4.0, 10.0, c[0], c[1], c[2], c[3]],
        [4.0, 2.0, c[0], c[1], c[2], c[3]],
    ];
    let (st, mut mem) = setup(&v, PS_FLAT_SIMD16, false, None, true);
    let stats = run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_RECTLIST, 3),
    )
    .unwrap();
    // UNORM8: round(0.2 * 255) = 51, round(0.4 * 255) = 102, round(0.6 * 255) = 153.
    let want = [51, 102, 153, 255];
    for y in 0..W {
        for x in 0..W {
            let inside = (4..12).contains(&x) && (2..10).contains(&y);
            assert_eq!(
                pixel(&mem, x, y),
                if inside { want } else { [0; 4] },
                "({x}, {y})"
            );
        }
    }
    assert_eq!(stats.ps_depth_count, 64);
    assert_eq!(stats.ia_vertices, 3);
}

#[test]
fn wm_statistics_enable_gates_ps_depth_count() {
    // The rectangle of the test above with 3DSTATE_WM Statistics Enable clear: the same
    // 64 pixels are written, and PS_DEPTH_COUNT does not count them (seed 004 §11.2.1
    // L10737: it increments "If Statistics Enable is set in 3DSTATE_WM"), as crocus
    // relies on for the blorp draws it issues inside an occlusion query.
    let c = [0.2, 0.4, 0.6, 1.0];
    let v = [
        [12.0, 10.0, c[0], c[1], c[2], c[3]],
        [4.0, 10.0, c[0], c[1], c[2], c[3]],
        [4.0, 2.0, c[0], c[1], c[2], c[3]],
    ];
    let (mut st, mut mem) = setup(&v, PS_FLAT_SIMD16, false, None, true);
    let wm = st
        .commands
        .get_mut("3DSTATE_WM")
        .expect("setup emits 3DSTATE_WM");
    // DW1 bit 31: Statistics Enable (seed 004 §11.2.1).
    assert_ne!(wm[1] & (1 << 31), 0, "setup enables the WM statistics");
    wm[1] &= !(1 << 31);
    let stats = run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_RECTLIST, 3),
    )
    .unwrap();
    assert_eq!(pixel(&mem, 4, 2), [51, 102, 153, 255]);
    assert_eq!(pixel(&mem, 11, 9), [51, 102, 153, 255]);
    assert_eq!(stats.ps_depth_count, 0);
    assert_eq!(stats.ps_invocations, 0);
    assert_eq!(stats.ia_vertices, 3);
}

/// Pixels of the screen triangle (2, 2), (14, 2), (2, 14) under the upper-left rule:
/// centres with x + 0.5 > 2 and y + 0.5 > 2 (strictly inside the left and top edges, or
/// on them, which are lit), and x + y + 1 < 16 (the hypotenuse is a bottom-right edge,
/// not lit when a centre falls exactly on it): x >= 2, y >= 2, x + y <= 14.
fn in_triangle(x: u32, y: u32) -> bool {
    x >= 2 && y >= 2 && x + y <= 14
}

/// The pixel interpolator (SFID 11; see `gtsim_pipe3d::state::PiMessage` for the public
/// description it follows): the PS asks for linear barycentrics at a shared offset of
/// (+7/16, 0) from each pixel (descriptor 0x02204007: SIMD8, location 0, X 7 and Y 0 in
/// S0.4) and interpolates with them instead of the payload's. On the screen triangle
/// (2, 2), (14, 2), (2, 14) with red 1 at vertex 1 only, b1 at (x + 0.5 + 7/16, y + 0.5)
/// is (x + 0.9375 - 2) / 12, so red = round(255 * that) where the payload's pixel
/// centre would give (x + 0.5 - 2) / 12.
#[test]
fn the_pixel_interpolator_evaluates_barycentrics_at_an_offset() {
    let ps = format!(
        "send(8)         g20<1>UW        g0<8,8,1>UD     0x02204007\n\
         {:>28}pixel interp MsgDesc: {{ align1 1Q }};\n{}",
        "",
        PS_PLN_SIMD8.replace("g2<8,8,1>F", "g20<8,8,1>F")
    );
    let v = [
        [2.0, 2.0, 0.0, 0.5, 0.0, 1.0],
        [14.0, 2.0, 1.0, 0.5, 0.0, 1.0],
        [2.0, 14.0, 0.0, 0.5, 0.0, 1.0],
    ];
    let (st, mut mem) = setup(&v, &ps, true, None, false);
    run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
    )
    .unwrap();
    for y in 0..W {
        for x in 0..W {
            let got = pixel(&mem, x, y);
            if in_triangle(x, y) {
                let red = ((x as f64 + 0.9375 - 2.0) / 12.0 * 255.0).round() as u8;
                assert_eq!(got, [red, 128, 0, 255], "({x}, {y})");
            } else {
                assert_eq!(got, [0; 4], "({x}, {y})");
            }
        }
    }
}

#[test]
fn a_vs_thread_scales_positions_and_the_ps_interpolates_colour() {
    // The VS doubles positions, so the input triangle (1, 1), (7, 1), (1, 7) lands on
    // (2, 2), (14, 2), (2, 14). Red is 1 at vertex 1 and 0 elsewhere: with w = 1 the
    // barycentric b1 at a pixel centre is (x + 0.5 - 2) / 12, so red = round(b1 * 255).
    let v = [
        [1.0, 1.0, 0.0, 0.5, 0.0, 1.0],
        [7.0, 1.0, 1.0, 0.5, 0.0, 1.0],
        [1.0, 7.0, 0.0, 0.5, 0.0, 1.0],
    ];
    let (st, mut mem) = setup(&v, PS_PLN_SIMD8, true, Some(VS_SCALE2), false);
    let stats = run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
    )
    .unwrap();
    let mut lit = 0;
    for y in 0..W {
        for x in 0..W {
            let got = pixel(&mem, x, y);
            if in_triangle(x, y) {
                lit += 1;
                let red = ((x as f64 + 0.5 - 2.0) / 12.0 * 255.0).round() as u8;
                // Green: 0.5 everywhere, round(127.5) = 128 (round half to even: 128).
                assert_eq!(got, [red, 128, 0, 255], "({x}, {y})");
            } else {
                assert_eq!(got, [0; 4], "({x}, {y})");
            }
        }
    }
    // a + b <= 10 with a, b >= 0: 66 pixels.
    assert_eq!(lit, 66);
    assert_eq!(stats.ps_depth_count, 66);
    // PS_INVOCATION_COUNT includes the helper pixels of every dispatched subspan (seed
    // 004 §1.9): subspans (sx, sy) with sx, sy >= 1 and 2sx + 2sy <= 14 hold a lit
    // pixel, 6 + 5 + 4 + 3 + 2 + 1 = 21 of them, 84 pixels.
    assert_eq!(stats.ps_invocations, 84);
    assert_eq!((stats.ia_vertices, stats.ia_primitives), (3, 1));
}

#[test]
fn a_flat_attribute_takes_the_provoking_vertex_value() {
    // Constant interpolation with the default provoking vertex 0: the colour of vertex 0
    // (0, 1, 0, 1) everywhere, whatever the others say.
    let v = [
        [2.0, 2.0, 0.0, 1.0, 0.0, 1.0],
        [14.0, 2.0, 1.0, 0.0, 0.0, 1.0],
        [2.0, 14.0, 0.0, 0.0, 1.0, 1.0],
    ];
    let (st, mut mem) = setup(&v, PS_PLN_SIMD8, true, None, true);
    run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
    )
    .unwrap();
    assert_eq!(pixel(&mem, 2, 2), [0, 255, 0, 255]);
    assert_eq!(pixel(&mem, 10, 4), [0, 255, 0, 255]);
    assert_eq!(pixel(&mem, 10, 10), [0; 4]);
}

#[test]
fn culling_both_discards_triangles_but_not_rectangles() {
    // Seed 004 §10.3: CULLMODE_BOTH culls every triangle; rectangles are not culled.
    let c = [1.0f32, 1.0, 1.0, 1.0];
    let v = [
        [12.0, 10.0, c[0], c[1], c[2], c[3]],
        [4.0, 10.0, c[0], c[1], c[2], c[3]],
        [4.0, 2.0, c[0], c[1], c[2], c[3]],
    ];
    let (mut st, mut mem) = setup(&v, PS_FLAT_SIMD16, false, None, true);
    st.commands.insert(
        "3DSTATE_SF",
        ThreeDStateSf {
            cull_mode: three_d_state_sf::CullMode::CULLMODE_BOTH,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
    )
    .unwrap();
    assert_eq!(pixel(&mem, 5, 5), [0; 4]);
    run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_RECTLIST, 3),
    )
    .unwrap();
    assert_eq!(pixel(&mem, 5, 5), [255; 4]);
}

#[test]
fn what_is_not_modelled_fails_loudly() {
    let v = [[0.0; 6]; 3];
    let tri = [
        [0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
        [8.0, 0.0, 1.0, 0.0, 0.0, 1.0],
        [0.0, 8.0, 1.0, 0.0, 0.0, 1.0],
    ];
    let (mut st, mut mem) = setup(&tri, PS_FLAT_SIMD16, false, None, true);
    st.commands.insert(
        "3DSTATE_MULTISAMPLE",
        ThreeDStateMultisample {
            number_of_multisamples: three_d_state_multisample::NumberOfMultisamples(2),
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    // A 4x draw into a single-sampled render target: seed 004 §11.4.1 requires the
    // counts to match, so it is a guest error naming both.
    let e = run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains(
            "has 1 samples per pixel, 3DSTATE_MULTISAMPLE 4 (they must match, seed 004 §11.4.1)"
        ),
        "{e}"
    );
    // A kernel in unmapped memory is a fault, not a crash.
    let (mut st, mut mem) = setup(&v, PS_FLAT_SIMD16, false, None, true);
    st.commands.insert(
        "3DSTATE_PS",
        ThreeDStatePs {
            kernel_start_pointer_0: 0x7fff_0000,
            n16_pixel_dispatch_enable: true,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    let e = run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            DrawError::Fault {
                unit: "kernel fetch",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn a_triangle_crossing_the_guard_band_is_clipped_without_changing_its_pixels() {
    // NDC triangle (-0.5, -0.5), (3, -0.5), (-0.5, 0.5), w = 1, viewport 16x16
    // (x' = 8x + 8, y' = 8y + 8), guard band = viewport: the vertex at x = 3 is outside,
    // so ClipDetermination says MustClip (seed 004 §9.4.2) and the clipper cuts the
    // triangle at x = 1 (screen x = 16). The lit pixels must be exactly those of the
    // whole screen triangle (4, 4), (32, 4), (4, 12) inside the 16x16 target.
    let c = [1.0f32, 0.0, 0.0, 1.0];
    let v = [
        [-0.5, -0.5, c[0], c[1], c[2], c[3]],
        [3.0, -0.5, c[0], c[1], c[2], c[3]],
        [-0.5, 0.5, c[0], c[1], c[2], c[3]],
    ];
    let (st, mut mem) = clipping_setup(&v, PS_FLAT_SIMD16, false);
    let stats = run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
    )
    .unwrap();
    let rs = gtsim_pipe3d::raster::RasterState {
        subpixel: gtsim_pipe3d::raster::SubpixelBits::Eight,
        half_pixel_centers: true,
        rect: [0, 0, W - 1, W - 1],
    };
    let (want, _) = gtsim_pipe3d::raster::triangle([[4.0, 4.0], [32.0, 4.0], [4.0, 12.0]], &rs);
    assert!(want.len() > 50);
    for y in 0..W {
        for x in 0..W {
            let lit = want.contains(&(x, y));
            assert_eq!(
                pixel(&mem, x, y),
                if lit { [255, 0, 0, 255] } else { [0; 4] },
                "({x}, {y})"
            );
        }
    }
    // One clipper invocation; the clipped quadrilateral leaves as two triangles, which
    // the SF counts as CL_PRIMITIVES (seed 004 §10.6.1).
    assert_eq!((stats.cl_invocations, stats.cl_primitives), (1, 2));
}

/// A 16x16 viewport (x' = 8x + 8, y' = 8y + 8) with the guard band at the viewport, the
/// clipper on with the perspective divide, culling off.
fn clipping_setup(v: &[[f32; 6]], ps: &str, simd8: bool) -> (State, gtsim_mem::AddressSpace) {
    let (mut st, mut mem) = setup(v, ps, simd8, None, !simd8);
    let vp = SfClipViewport {
        viewport_matrix_element_m00: 8.0,
        viewport_matrix_element_m11: 8.0,
        viewport_matrix_element_m22: 1.0,
        viewport_matrix_element_m30: 8.0,
        viewport_matrix_element_m31: 8.0,
        x_min_clip_guardband: -1.0,
        x_max_clip_guardband: 1.0,
        y_min_clip_guardband: -1.0,
        y_max_clip_guardband: 1.0,
        ..Default::default()
    };
    mem.load(SURFACE_BASE + 0x380, &bytes(&vp.pack().unwrap()));
    st.commands.insert(
        "3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP",
        ThreeDStateViewportStatePointersSfClip {
            pointer_to_sf_clip_viewport: 0x380,
        }
        .pack()
        .unwrap(),
    );
    st.commands.insert(
        "3DSTATE_CLIP",
        ThreeDStateClip {
            clip_enable: true,
            clipper_statistics_enable: true,
            guardband_clip_test_enable: true,
            viewport_xy_clip_test_enable: true,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    st.commands.insert(
        "3DSTATE_SF",
        ThreeDStateSf {
            cull_mode: three_d_state_sf::CullMode::CULLMODE_NONE,
            view_transform_enable: true,
            statistics_enable: true,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    (st, mem)
}

/// Vertex data x, y, z, w, blue, alpha read as position (x, y, z, w) and colour (z, w,
/// blue, alpha), and the PS interpolating without perspective (Barycentric
/// Interpolation Mode bit 3).
fn noperspective_xyzw_layout(st: &mut State) {
    use ThreeDVertexComponentControl as C;
    let element = |format, offset, control| VertexElementState {
        valid: true,
        source_element_format: format,
        source_element_offset: offset,
        component_0_control: control,
        component_1_control: control,
        component_2_control: control,
        component_3_control: control,
        ..Default::default()
    };
    let f4 = SurfaceFormat::R32G32B32A32_FLOAT;
    st.commands.insert(
        "3DSTATE_VERTEX_ELEMENTS",
        ThreeDStateVertexElements {
            element: vec![
                element(f4, 0, C::VFCOMP_STORE_0),
                element(f4, 0, C::VFCOMP_STORE_SRC),
                element(f4, 8, C::VFCOMP_STORE_SRC),
            ],
        }
        .pack()
        .unwrap(),
    );
    st.commands.insert(
        "3DSTATE_WM",
        ThreeDStateWm {
            statistics_enable: true,
            thread_dispatch_enable: true,
            barycentric_interpolation_mode: 1 << 3,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
}

/// Checks that every lit pixel's blue is V1's screen-space share (x + 0.5 - 4) / 28 of
/// a source primitive with V0 at screen x = 4 and V1 at x = 32 (within one unit of
/// UNORM8 rounding); returns the lit pixels.
fn blue_is_v1_screen_share(mem: &gtsim_mem::AddressSpace) -> Vec<(u32, u32)> {
    let mut lit = vec![];
    for y in 0..W {
        for x in 0..W {
            let got = pixel(mem, x, y);
            if got == [0; 4] {
                continue;
            }
            let blue = (x as f64 + 0.5 - 4.0) / 28.0 * 255.0;
            assert!(
                (got[2] as f64 - blue).abs() <= 1.0,
                "({x}, {y}): blue {} for {blue:.2}",
                got[2]
            );
            lit.push((x, y));
        }
    }
    lit
}

#[test]
fn a_clipped_triangle_interpolates_noperspective_attributes_in_screen_space() {
    // Clip-space V0 (-1, -1, 0, 2), V1 (3, -0.5, 0, 1), V2 (-0.5, 0.5, 0, 1): on screen
    // (4, 4), (32, 4), (4, 12), V1 outside the guard band, so the clipper cuts at screen
    // x = 16. Blue is 1 at V1, 0 elsewhere; interpolated without perspective (Barycentric
    // Interpolation Mode bit 3) it is V1's screen-space areal coordinate, (x + 0.5 - 4)
    // / 28 at a pixel centre, whatever the clipper did. (Clip-space interpolation along
    // V0-V1 would give the new vertex at x = 16 a blue of t = 0.6 where the screen-space
    // value is 12/28 = 0.43.) Vertex data: x, y, z, w, blue, alpha; the colour read from
    // float 2 on is (z, w, blue, alpha).
    let v = [
        [-1.0, -1.0, 0.0, 2.0, 0.0, 1.0],
        [3.0, -0.5, 0.0, 1.0, 1.0, 1.0],
        [-0.5, 0.5, 0.0, 1.0, 0.0, 1.0],
    ];
    let (mut st, mut mem) = clipping_setup(&v, PS_PLN_SIMD8, true);
    noperspective_xyzw_layout(&mut st);
    run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
    )
    .unwrap();
    let lit = blue_is_v1_screen_share(&mem);
    assert!(lit.len() > 50, "{} pixels lit", lit.len());
}

#[test]
fn a_clipped_line_interpolates_noperspective_attributes_in_screen_space() {
    // Clip-space V0 (-1, 0.125, 0, 2) and V1 (3, 0.0625, 0, 1): on screen the
    // horizontal line (4, 8.5) -> (32, 8.5), cut by the guard band at x = 16. Blue, 1 at
    // V1 and 0 at V0, interpolated without perspective is V1's screen-space share of
    // the source line: (x + 0.5 - 4) / 28 at a pixel centre. Same vertex layout as the
    // triangle test above.
    let v = [
        [-1.0, 0.125, 0.0, 2.0, 0.0, 1.0],
        [3.0, 0.0625, 0.0, 1.0, 1.0, 1.0],
    ];
    let (mut st, mut mem) = clipping_setup(&v, PS_PLN_SIMD8, true);
    noperspective_xyzw_layout(&mut st);
    run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_LINELIST, 2),
    )
    .unwrap();
    let lit = blue_is_v1_screen_share(&mem);
    assert!(lit.len() >= 10, "{} pixels lit", lit.len());
    assert!(lit.iter().all(|&(_, y)| y == 8), "{lit:?}");
}

#[test]
fn point_sprites_get_full_scale_coordinates() {
    // An 8-pixel point at (8, 8) covers pixels 4..=11 in x and y (§10.3.4). With attribute
    // 0 a point sprite coordinate and origin UPPERLEFT (§10.4.3), the PS's pln of it
    // gives s = (x + 0.5 - 4) / 8 and t = (y + 0.5 - 4) / 8 at each pixel centre.
    let v = [[8.0, 8.0, 0.3, 0.3, 0.3, 0.3]];
    let (mut st, mut mem) = setup(&v, PS_PLN_SIMD8, true, None, false);
    st.commands.insert(
        "3DSTATE_SF",
        ThreeDStateSf {
            cull_mode: three_d_state_sf::CullMode::CULLMODE_NONE,
            use_point_width_state: three_d_state_sf::UsePointWidthState(1),
            point_width: 8.0,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    st.commands.insert(
        "3DSTATE_SBE",
        ThreeDStateSbe {
            number_of_sf_output_attributes: 1,
            vertex_urb_entry_read_length: 1,
            vertex_urb_entry_read_offset: 1,
            point_sprite_texture_coordinate_enable: 1,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_POINTLIST, 1),
    )
    .unwrap();
    let unorm = |v: f64| (v * 255.0).round() as u8;
    for y in 0..W {
        for x in 0..W {
            let inside = (4..12).contains(&x) && (4..12).contains(&y);
            let want = if inside {
                let s = (x as f64 + 0.5 - 4.0) / 8.0;
                let t = (y as f64 + 0.5 - 4.0) / 8.0;
                [unorm(s), unorm(t), 0, 255]
            } else {
                [0; 4]
            };
            assert_eq!(pixel(&mem, x, y), want, "({x}, {y})");
        }
    }
}

#[test]
fn state_past_the_dynamic_state_upper_bound_stops_the_draw() {
    // Dynamic State Access Upper Bound 0x10000 + 0x1000 covers the blend state at +0x300;
    // a bound at the base itself does not, and the render target write stops with a hang
    // naming the bound instead of reading past it.
    let c = [1.0f32, 1.0, 1.0, 1.0];
    let v = [
        [12.0, 10.0, c[0], c[1], c[2], c[3]],
        [4.0, 10.0, c[0], c[1], c[2], c[3]],
        [4.0, 2.0, c[0], c[1], c[2], c[3]],
    ];
    for (bound, ok) in [(SURFACE_BASE + 0x1000, true), (SURFACE_BASE, false)] {
        let (mut st, mut mem) = setup(&v, PS_FLAT_SIMD16, false, None, true);
        st.commands.insert(
            "STATE_BASE_ADDRESS",
            StateBaseAddress {
                surface_state_base_address: SURFACE_BASE,
                dynamic_state_base_address: SURFACE_BASE,
                instruction_base_address: INSTRUCTION_BASE,
                dynamic_state_access_upper_bound: bound,
                ..Default::default()
            }
            .pack()
            .unwrap(),
        );
        let r = run(
            &st,
            &mut mem,
            &primitive(ThreeDPrimTopoType::_3DPRIM_RECTLIST, 3),
        );
        match ok {
            true => assert!(r.is_ok(), "{r:?}"),
            false => {
                let e = r.unwrap_err().to_string();
                assert!(e.contains("Dynamic State Access Upper Bound"), "{e}");
            }
        }
    }
}

/// The VS of `VS_SCALE2` written with two URB messages, the colour through the second
/// at Global Offset 1: one 256-bit row, i.e. VUE slot 2 of each vertex.
const VS_TWO_WRITES: &str = "mov(8)          g114<1>UD       0x00000000UD                    { align16 1Q };
mul(8)          g115<1>F        g1<4>F          0x40000000F     { align16 1Q };
mov(8)          g113<1>UD       g0<4>UD                         { align16 WE_all 1Q };
or(1)           g113.5<1>UD     g0.5<0,1,0>UD   0x0000ff00UD    { align1 WE_all 1N };
send(8)         null<1>F        g113<4>F        0x0608c000
                            urb MsgDesc: offset 0 write HWord interleave complete mlen 3 rlen 0 { align16 1Q };
mov(8)          g116<1>UD       g113<4>UD                       { align16 WE_all 1Q };
mov(8)          g117<1>F        g2<4>F                          { align16 1Q };
mov(8)          g118<1>UD       0x00000000UD                    { align16 1Q };
send(8)         null<1>F        g116<4>F        0x8608c008
                            urb MsgDesc: offset 1 write HWord interleave complete mlen 3 rlen 0 { align16 1Q EOT };";

#[test]
fn urb_global_offset_counts_256_bit_rows() {
    let v = [
        [1.0, 1.0, 0.0, 0.5, 0.0, 1.0],
        [7.0, 1.0, 1.0, 0.5, 0.0, 1.0],
        [1.0, 7.0, 0.0, 0.5, 0.0, 1.0],
    ];
    let (st, mut mem) = setup(&v, PS_PLN_SIMD8, true, Some(VS_TWO_WRITES), false);
    run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
    )
    .unwrap();
    // Same image as with one write: red = round((x + 0.5 - 2) / 12 * 255).
    assert_eq!(pixel(&mem, 2, 2), [11, 128, 0, 255]);
    assert_eq!(pixel(&mem, 8, 3), [138, 128, 0, 255]);
}

/// A page fault inside a sampler message keeps its address all the way up: the pixel
/// shader's `ld` from a surface whose base is unmapped ends the draw with a thread error
/// whose shared-function error is the fault at that base (the texel (0, 0) of LOD 0),
/// and the device's hang report carries the same fault.
#[test]
fn a_fault_in_a_sampler_message_keeps_its_address_up_to_the_hang() {
    use gtsim_eu::exec::{ExecError, MessageError};
    use gtsim_spec::gen7::{RenderSurfaceState, render_surface_state};
    const UNMAPPED: u64 = 0xdead_0000;
    // u = 0, lod = 0, then ld SIMD8 from binding table entry 1.
    let ps = "mov(8)          g12<1>UD        0x00000000UD                    { align1 1Q };
mov(8)          g13<1>UD        0x00000000UD                    { align1 1Q };
send(8)         g124<1>UW       g12<8,8,1>UD    0x04427001
                            sampler MsgDesc: ld SIMD8 Surface = 1 Sampler = 0 mlen 2 rlen 4 { align1 1Q };
sendc(8)        null<1>UW       g124<8,8,1>UD   0x88031400
                            render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };";
    let tri = [
        [0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
        [8.0, 0.0, 1.0, 0.0, 0.0, 1.0],
        [0.0, 8.0, 1.0, 0.0, 0.0, 1.0],
    ];
    let (state, mut mem) = setup(&tri, ps, true, None, false);
    // Binding table entry 1 -> a 4x4 surface state whose texels are nowhere.
    mem.load(SURFACE_BASE + 0x104, &bytes(&[0x400]));
    let rss = RenderSurfaceState {
        surface_type: render_surface_state::SurfaceType::SURFTYPE_2D,
        surface_format: gtsim_spec::shared::SurfaceFormat::R8G8B8A8_UNORM,
        surface_base_address: UNMAPPED,
        width: 3,
        height: 3,
        surface_pitch: 15,
        ..Default::default()
    };
    mem.load(SURFACE_BASE + 0x400, &bytes(&rss.pack().unwrap()));
    let prim = primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3);
    let e = run(&state, &mut mem, &prim).unwrap_err();
    // Matched through the types, not the text.
    let DrawError::Thread {
        stage: "PS",
        error: ExecError::SharedFunction { error, .. },
        ..
    } = &e
    else {
        panic!("not a PS shared-function error: {e:?}");
    };
    let fault = error.fault().expect("a fault");
    assert_eq!(fault.addr, UNMAPPED);
    assert!(
        matches!(error.root(), MessageError::Texel {
            what,
            error: gtsim_mem::surface::SurfaceError::Fault(f),
        } if what == "texel (0, 0) slice 0 LOD 0" && f.addr == UNMAPPED),
        "{error:?}"
    );
    assert_eq!(e.fault().map(|f| f.addr), Some(UNMAPPED));
    let hang = gtsim_gpu::device::Hang::Draw {
        addr: 0x1234,
        error: e,
    };
    assert_eq!(hang.fault().map(|f| f.addr), Some(UNMAPPED));
    assert!(
        hang.to_string().starts_with("3DPRIMITIVE at 0x1234"),
        "{hang}"
    );
}

/// Every feature the model refuses names where it is specified, through the one
/// `Unsupported` type: here 3DSTATE_SBE's swizzles of attributes 16-31.
#[test]
fn an_unsupported_feature_names_its_reference() {
    let tri = [
        [0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
        [8.0, 0.0, 1.0, 0.0, 0.0, 1.0],
        [0.0, 8.0, 1.0, 0.0, 0.0, 1.0],
    ];
    let (mut state, mut mem) = setup(&tri, PS_PLN_SIMD8, true, None, false);
    let mut sbe = ThreeDStateSbe::unpack(&state.commands["3DSTATE_SBE"]).unwrap();
    sbe.attribute_swizzle_enable = true;
    sbe.attribute_swizzle_control_mode = three_d_state_sbe::AttributeSwizzleControlMode(1);
    state.commands.insert("3DSTATE_SBE", sbe.pack().unwrap());
    let prim = primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3);
    match run(&state, &mut mem, &prim).unwrap_err() {
        DrawError::Unsupported(u) => {
            assert_eq!(u.reference, "seed 004 §10.3.14");
            assert!(
                u.to_string()
                    .contains("SWIZ_16_31 is not modelled yet (seed 004 §10.3.14)"),
                "{u}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// The VS and PS threads of a draw run on the host's cores
/// (gtsim_pipe3d::draw::parallel): the render target, the statistics and the outcome are
/// the same bits for 1, 2, 3 and 8 host threads, also when the watchdog's instruction
/// limit ends the draw part-way (the threads before the limit wrote their pixels, the
/// others did not, as when they run one at a time).
#[test]
fn results_are_bit_identical_whatever_the_host_thread_count() {
    use gtsim_pipe3d::draw::WorkLimits;
    use gtsim_pipe3d::draw::parallel::with_threads;
    // A triangle over most of the 16x16 target, SIMD8: 30 PS threads.
    let v = [
        [0.0, 0.0, 1.0, 0.25, 0.0, 1.0],
        [8.0, 0.0, 0.0, 0.75, 1.0, 1.0],
        [0.0, 8.0, 0.5, 0.0, 0.5, 1.0],
    ];
    let (st, mem0) = setup(&v, PS_PLN_SIMD8, true, Some(VS_SCALE2), false);
    let prim = primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3);
    let target = |mem: &gtsim_mem::AddressSpace| {
        let mut b = vec![0u8; (W * W * 4) as usize];
        gtsim_mem::Memory::read(mem, RT, &mut b).unwrap();
        b
    };
    let mut watchdog_ended = 0;
    for limit in [u64::MAX, 40, 100, 200] {
        let limits = WorkLimits {
            eu_instructions: limit,
            ..WorkLimits::BUILT_IN
        };
        let runs: Vec<_> = [1, 2, 3, 8]
            .iter()
            .map(|&t| {
                let mut mem = mem0.clone();
                let r = with_threads(t, || run_limited(&st, &mut mem, &prim, limits));
                (r, target(&mem))
            })
            .collect();
        for (i, r) in runs.iter().enumerate().skip(1) {
            assert_eq!(r.0, runs[0].0, "limit {limit}: outcome, run {i}");
            assert!(r.1 == runs[0].1, "limit {limit}: render target, run {i}");
        }
        if matches!(&runs[0].0, Err(DrawError::Watchdog { what: "EU instructions", limit: l, .. })
            if *l == limit)
        {
            watchdog_ended += 1;
            // Part-way: some pixels written, not all.
            let written = runs[0].1.chunks(4).filter(|p| p != &[0; 4]).count();
            assert!(written > 0 || limit < 100, "limit {limit}: nothing written");
        } else {
            assert!(runs[0].0.is_ok(), "limit {limit}: {:?}", runs[0].0);
        }
    }
    assert!(watchdog_ended >= 2, "the limits must end the draw part-way");

    // Many vertices: 24 triangles, 36 VS threads, which run as a parallel batch too; the
    // overlapping triangles are written in primitive order.
    let mut v = vec![];
    for i in 0..24 {
        let (x, y) = ((i % 6) as f32, (i / 6) as f32);
        let c = i as f32 / 24.0;
        v.push([x, y, c, 0.5, 1.0 - c, 1.0]);
        v.push([x + 2.5, y, 0.0, c, 0.0, 1.0]);
        v.push([x, y + 2.5, 1.0, 1.0, c, 1.0]);
    }
    let (st, mem0) = setup(&v, PS_PLN_SIMD8, true, Some(VS_SCALE2), false);
    let prim = primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, v.len() as u32);
    let runs: Vec<_> = [1, 2, 5]
        .iter()
        .map(|&t| {
            let mut mem = mem0.clone();
            let r = with_threads(t, || run(&st, &mut mem, &prim));
            (r, target(&mem))
        })
        .collect();
    assert!(runs[0].0.is_ok(), "{:?}", runs[0].0);
    assert!(runs[0].1.chunks(4).filter(|p| p != &[0; 4]).count() > 50);
    for (i, r) in runs.iter().enumerate().skip(1) {
        assert_eq!(r.0, runs[0].0, "many vertices: outcome, run {i}");
        assert!(r.1 == runs[0].1, "many vertices: render target, run {i}");
    }
}

/// Small triangles are held back and shaded together when they light distinct pixels
/// (pipe3d `draw::deferred`): one draw of many overlapping and disjoint triangles
/// leaves the render target and the pixel statistics exactly as drawing them one per
/// draw, in order (the primitive order of seed 000 ch.1), whatever the thread count.
#[test]
fn held_back_triangles_land_as_one_draw_per_triangle() {
    use gtsim_pipe3d::draw::parallel::with_threads;
    use gtsim_spec::gen7::ThreeDPrimitive;
    // Triangles on a 4x4 grid of 4-pixel cells: every third one spills into its
    // neighbours (overlaps), the others stay in their cell; flat colours per triangle.
    let mut v = vec![];
    for i in 0..40u32 {
        let (x, y) = ((i % 4) as f32 * 4.0, ((i / 4) % 4) as f32 * 4.0);
        let size = if i % 3 == 0 { 7.0 } else { 3.5 };
        let c = [i as f32 / 40.0, 1.0 - i as f32 / 40.0, (i % 5) as f32 / 5.0];
        let (x, y) = if i >= 16 { (x + 0.5, y + 0.25) } else { (x, y) };
        v.push([x, y, c[0], c[1], c[2], 1.0]);
        v.push([x + size, y, c[0], c[1], c[2], 1.0]);
        v.push([x, y + size, c[0], c[1], c[2], 1.0]);
    }
    let (st, mem0) = setup(&v, PS_PLN_SIMD8, true, Some(VS_SCALE2), false);
    let target = |mem: &gtsim_mem::AddressSpace| {
        let mut b = vec![0u8; (W * W * 4) as usize];
        gtsim_mem::Memory::read(mem, RT, &mut b).unwrap();
        b
    };
    // One per draw.
    let mut one_by_one = mem0.clone();
    let mut stats = (0, 0);
    for t in 0..v.len() as u32 / 3 {
        let prim = ThreeDPrimitive {
            primitive_topology_type: ThreeDPrimTopoType::_3DPRIM_TRILIST,
            vertex_count_per_instance: 3,
            start_vertex_location: 3 * t,
            instance_count: 1,
            ..Default::default()
        }
        .pack()
        .unwrap();
        let s = run(&st, &mut one_by_one, &prim).unwrap();
        stats.0 += s.ps_invocations;
        stats.1 += s.ps_depth_count;
    }
    let expected = target(&one_by_one);
    assert!(expected.chunks(4).filter(|p| p != &[0; 4]).count() > 150);
    let prim = primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, v.len() as u32);
    for threads in [1, 2, 3] {
        let mut mem = mem0.clone();
        let s = with_threads(threads, || run(&st, &mut mem, &prim)).unwrap();
        assert!(target(&mem) == expected, "{threads} threads: render target");
        assert_eq!(
            (s.ps_invocations, s.ps_depth_count),
            stats,
            "{threads} threads: statistics"
        );
    }
}

/// Seed 004 §10.3.13 Fill Mode: POINT draws a triangle's three vertices as points (1
/// pixel wide from state: the square [x - 0.5, x + 0.5) around (2, 2) holds the centre
/// of pixel (1, 1) only, and so on); WIREFRAME its edges as lines: the interior stays
/// unlit and the diagonal from (14, 2) to (2, 14) passes through the centre of pixel
/// (8, 7), (8.5, 7.5).
/// A triangle with its corners at (2, 2), (14, 2) and (2, 14), for the fill mode tests.
const CORNERS: [[f32; 6]; 3] = [
    [2.0, 2.0, 0.0, 1.0, 0.0, 1.0],
    [14.0, 2.0, 0.0, 1.0, 0.0, 1.0],
    [2.0, 14.0, 0.0, 1.0, 0.0, 1.0],
];

/// The render target's pixels that are not zero, row by row.
fn lit(mem: &gtsim_mem::AddressSpace) -> Vec<(u32, u32)> {
    (0..16)
        .flat_map(|y| (0..16).map(move |x| (x, y)))
        .filter(|&(x, y)| pixel(mem, x, y) != [0; 4])
        .collect()
}

#[test]
fn point_and_wireframe_fill_modes_draw_vertices_and_edges() {
    let v = CORNERS;
    for (mode, name) in [(2u32, "POINT"), (1, "WIREFRAME")] {
        let (mut st, mut mem) = setup(&v, PS_PLN_SIMD8, true, None, true);
        let mut sf = ThreeDStateSf::unpack(&st.commands["3DSTATE_SF"]).unwrap();
        sf.front_face_fill_mode = three_d_state_sf::FrontFaceFillMode(mode);
        sf.back_face_fill_mode = three_d_state_sf::BackFaceFillMode(mode);
        sf.use_point_width_state = three_d_state_sf::UsePointWidthState(1);
        sf.point_width = 1.0;
        st.commands.insert("3DSTATE_SF", sf.pack().unwrap());
        run(
            &st,
            &mut mem,
            &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
        )
        .unwrap();
        let px = lit(&mem);
        if mode == 2 {
            assert_eq!(px, vec![(1, 1), (13, 1), (1, 13)], "{name}");
        } else {
            assert!(px.contains(&(8, 7)), "{name}: {px:?}");
            assert!(!px.contains(&(5, 5)), "{name}: {px:?}");
            assert!(px.len() > 24 && px.len() < 60, "{name}: {px:?}");
        }
    }
}

/// 3DSTATE_CLIP Minimum and Maximum Point Width "clamp read-back PointWidth values"
/// (seed 004 3DSTATE_CLIP DW3): without a VS the VF writes the VUE header, its Point
/// Width 0.0; POINT fill draws each vertex as a square of the clamped width. Minimum 3:
/// the square [0.5, 3.5) around (2, 2) covers the pixel centres 0.5, 1.5 and 2.5, three
/// by three pixels a vertex. The defaults (0 and 0) leave no pixel; the state's Point
/// Width (Use Point Width State) is not clamped: 1.0 lights one pixel a vertex.
#[test]
fn the_clip_unit_clamps_a_point_width_from_the_vue() {
    let v = CORNERS;
    let square =
        |x0: u32, y0: u32| (y0..y0 + 3).flat_map(move |y| (x0..x0 + 3).map(move |x| (x, y)));
    let mut three: Vec<(u32, u32)> = square(0, 0)
        .chain(square(12, 0))
        .chain(square(0, 12))
        .collect();
    three.sort_by_key(|&(x, y)| (y, x));
    for (min, max, state_width, expect) in [
        (3.0, 255.875, None, three),
        (0.0, 0.0, None, vec![]),
        (3.0, 255.875, Some(1.0), vec![(1, 1), (13, 1), (1, 13)]),
    ] {
        let (mut st, mut mem) = setup(&v, PS_PLN_SIMD8, true, None, true);
        let mut sf = ThreeDStateSf::unpack(&st.commands["3DSTATE_SF"]).unwrap();
        sf.front_face_fill_mode = three_d_state_sf::FrontFaceFillMode(2);
        sf.back_face_fill_mode = three_d_state_sf::BackFaceFillMode(2);
        if let Some(w) = state_width {
            sf.use_point_width_state = three_d_state_sf::UsePointWidthState(1);
            sf.point_width = w;
        }
        st.commands.insert("3DSTATE_SF", sf.pack().unwrap());
        let mut clip = ThreeDStateClip::unpack(&st.commands["3DSTATE_CLIP"]).unwrap();
        clip.minimum_point_width = min;
        clip.maximum_point_width = max;
        st.commands.insert("3DSTATE_CLIP", clip.pack().unwrap());
        run(
            &st,
            &mut mem,
            &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
        )
        .unwrap();
        assert_eq!(
            lit(&mem),
            expect,
            "clamp [{min}, {max}], state width {state_width:?}"
        );
    }
}

/// VERTEX_ELEMENT_STATE Edge Flag Enable (seed 004: "If the source element is zero, the
/// EdgeFlag will be set to FALSE"): the last element's first component is each vertex's
/// flag, 1.0 for (2, 2) and (2, 14), 0.0 for (14, 2). WIREFRAME (§10.3.13 "controlled by the
/// vertex EdgeFlags") draws the edges that start at a flagged vertex: (2, 2) to (14, 2)
/// and (2, 14) back to (2, 2), not the diagonal from (14, 2), which would light pixel
/// (8, 7); POINT draws the flagged vertices, pixels (1, 1) and (1, 13) but not (13, 1);
/// SOLID ignores the flags.
#[test]
fn edge_flags_steer_point_and_wireframe_fill() {
    use gtsim_spec::gen7::ThreeDStateVertexElements;
    // The colour element (the last: R32G32B32A32_FLOAT from the vertex's third float)
    // carries the flag in its first component.
    let v = [
        [2.0, 2.0, 1.0, 1.0, 0.0, 1.0],
        [14.0, 2.0, 0.0, 1.0, 0.0, 1.0],
        [2.0, 14.0, 1.0, 1.0, 0.0, 1.0],
    ];
    for mode in [2u32, 1, 0] {
        let (mut st, mut mem) = setup(&v, PS_PLN_SIMD8, true, None, true);
        let mut ve =
            ThreeDStateVertexElements::unpack(&st.commands["3DSTATE_VERTEX_ELEMENTS"]).unwrap();
        if let Some(last) = ve.element.last_mut() {
            last.edge_flag_enable = true;
        }
        st.commands
            .insert("3DSTATE_VERTEX_ELEMENTS", ve.pack().unwrap());
        let mut sf = ThreeDStateSf::unpack(&st.commands["3DSTATE_SF"]).unwrap();
        sf.front_face_fill_mode = three_d_state_sf::FrontFaceFillMode(mode);
        sf.back_face_fill_mode = three_d_state_sf::BackFaceFillMode(mode);
        sf.use_point_width_state = three_d_state_sf::UsePointWidthState(1);
        sf.point_width = 1.0;
        st.commands.insert("3DSTATE_SF", sf.pack().unwrap());
        run(
            &st,
            &mut mem,
            &primitive(ThreeDPrimTopoType::_3DPRIM_TRILIST, 3),
        )
        .unwrap();
        let px = lit(&mem);
        match mode {
            2 => assert_eq!(px, vec![(1, 1), (1, 13)], "POINT"),
            1 => {
                assert!(
                    !px.contains(&(8, 7)),
                    "WIREFRAME: the unflagged edge: {px:?}"
                );
                assert!(
                    px.iter().any(|&(x, y)| x == 8 && y <= 2),
                    "WIREFRAME: the top edge: {px:?}"
                );
                assert!(
                    px.iter().any(|&(x, y)| y == 8 && x <= 2),
                    "WIREFRAME: the left edge: {px:?}"
                );
                assert!(!px.contains(&(5, 5)), "WIREFRAME: the interior: {px:?}");
            }
            _ => assert!(
                px.contains(&(7, 7)) && px.contains(&(5, 5)),
                "SOLID: {px:?}"
            ),
        }
    }
}

/// Seed 004 §9.2.4.6: the CLIP unit does not clip RECTLIST rectangles; one that needs
/// clipping (a vertex at x = 3 in NDC, past the viewport-sized guard band) is the
/// driver's mistake, reported as a state error naming the section. The same rectangle
/// inside the guard band draws.
#[test]
fn a_rectangle_that_needs_clipping_is_a_state_error() {
    let c = [1.0f32, 0.0, 0.0, 1.0];
    let outside = [
        [3.0, 0.5, c[0], c[1], c[2], c[3]],
        [-0.5, 0.5, c[0], c[1], c[2], c[3]],
        [-0.5, -0.5, c[0], c[1], c[2], c[3]],
    ];
    let (st, mut mem) = clipping_setup(&outside, PS_FLAT_SIMD16, false);
    let e = run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_RECTLIST, 3),
    )
    .unwrap_err();
    assert!(e.to_string().contains("seed 004 §9.2.4.6"), "{e}");
    let inside = [
        [0.5, 0.5, c[0], c[1], c[2], c[3]],
        [-0.5, 0.5, c[0], c[1], c[2], c[3]],
        [-0.5, -0.5, c[0], c[1], c[2], c[3]],
    ];
    let (st, mut mem) = clipping_setup(&inside, PS_FLAT_SIMD16, false);
    run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_RECTLIST, 3),
    )
    .unwrap();
    // Screen (4, 4)-(12, 12): pixel (8, 8) is red.
    assert_eq!(pixel(&mem, 8, 8), [255, 0, 0, 255]);
}
