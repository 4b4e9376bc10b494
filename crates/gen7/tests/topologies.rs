//! Whole draws of the topologies the VF converts (QUADLIST, QUADSTRIP, LINELOOP; seed 004
//! §1.3), of draws longer than the pipeline's streaming window, of indirect draws (seed
//! 004 §2.5.1 Indirect Parameter Enable) and of runaway draws the watchdog ends.
//! Expectations are worked by hand from the seed's rules.

mod common;

use common::*;
use gtsim_pipe3d::draw::{DrawError, WorkLimits};
use gtsim_spec::gen7::ThreeDPrimitive;
use gtsim_spec::shared::ThreeDPrimTopoType as T;

fn colour(c: [f32; 4]) -> [u8; 4] {
    c.map(|v| (v * 255.0).round() as u8)
}

const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
const BLUE: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
const WHITE: [f32; 4] = [1.0, 1.0, 1.0, 1.0];
const GREY: [f32; 4] = [0.2, 0.2, 0.2, 1.0];
const TEAL: [f32; 4] = [0.0, 0.6, 0.6, 1.0];

fn v(x: f32, y: f32, c: [f32; 4]) -> [f32; 6] {
    [x, y, c[0], c[1], c[2], c[3]]
}

/// The square [2, 14) x [2, 14) is lit exactly: 144 pixels, each once (the two
/// triangles of the polygon share the diagonal, which the upper-left rule gives to one).
fn assert_square(mem: &gtsim_mem::AddressSpace, want: impl Fn(u32, u32) -> [u8; 4]) {
    for y in 0..W {
        for x in 0..W {
            let inside = (2..14).contains(&x) && (2..14).contains(&y);
            let expect = if inside { want(x, y) } else { [0; 4] };
            assert_eq!(pixel(mem, x, y), expect, "({x}, {y})");
        }
    }
}

#[test]
fn a_quad_is_one_object_flat_shaded_from_its_last_vertex() {
    // Quad (2,2) (14,2) (14,14) (2,14), each vertex its own colour, flat: the polygon
    // (3, 0, 1, 2) has vertex 3 provoking, so the whole quad is vertex 3's colour.
    let verts = [
        v(2.0, 2.0, RED),
        v(14.0, 2.0, GREEN),
        v(14.0, 14.0, BLUE),
        v(2.0, 14.0, WHITE),
    ];
    let (st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_QUADLIST, 4)).unwrap();
    assert_square(&mem, |_, _| colour(WHITE));
    assert_eq!(stats.ps_depth_count, 144);
    // Seed 004 §2.7.1.2: one object (a quadrilateral), four vertices.
    assert_eq!((stats.ia_vertices, stats.ia_primitives), (4, 1));
}

#[test]
fn a_quad_list_drops_its_dangling_vertices() {
    let mut verts = vec![
        v(2.0, 2.0, RED),
        v(14.0, 2.0, GREEN),
        v(14.0, 14.0, BLUE),
        v(2.0, 14.0, GREY),
    ];
    verts.extend([v(0.0, 0.0, RED), v(16.0, 0.0, RED), v(16.0, 16.0, RED)]);
    let (st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_QUADLIST, 7)).unwrap();
    assert_square(&mem, |_, _| colour(GREY));
    assert_eq!((stats.ia_vertices, stats.ia_primitives), (4, 1));
}

#[test]
fn a_quad_strip_makes_one_quad_per_pair_each_flat_from_its_last_vertex() {
    // Quads (v0, v1, v3, v2) over y in [2, 8) and (v2, v3, v5, v4) over [8, 14); their
    // provoking vertices are v3 and v5 (seed 004 L4891: vertex 2k+3 of quad k).
    let verts = [
        v(2.0, 2.0, RED),
        v(14.0, 2.0, RED),
        v(2.0, 8.0, RED),
        v(14.0, 8.0, TEAL),
        v(2.0, 14.0, RED),
        v(14.0, 14.0, BLUE),
    ];
    let (st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_QUADSTRIP, 6)).unwrap();
    assert_square(&mem, |_, y| colour(if y < 8 { TEAL } else { BLUE }));
    assert_eq!(stats.ps_depth_count, 144);
    assert_eq!((stats.ia_vertices, stats.ia_primitives), (6, 2));
}

#[test]
fn a_line_loop_counts_every_vertex_but_not_its_closing_line() {
    // Seed 004 §2.7.1.2: "For LINELOOP, the last (closing) line object is not counted."
    let verts = [v(2.5, 2.5, RED), v(12.5, 2.5, RED), v(12.5, 12.5, RED)];
    let (st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_LINELOOP, 3)).unwrap();
    assert_eq!((stats.ia_vertices, stats.ia_primitives), (3, 2));
    // The closing line (12.5, 12.5) -> (2.5, 2.5) is drawn: the diagonal's midpoint
    // pixel (7, 7) is on it and on no other line.
    assert_eq!(pixel(&mem, 7, 7), colour(RED));
}

/// Pixels of the triangle (2, 2), (14, 2), (2, 14) under the upper-left rule (the
/// hypotenuse x + y = 16 is a bottom-right edge): x, y >= 2, x + y <= 14, 66 of them.
const TRIANGLE_PIXELS: u64 = 66;

#[test]
fn a_fan_longer_than_the_streaming_window_keeps_its_first_vertex() {
    // A TRIFAN of 2,501 vertices: v0 = (2, 2), then (14, 2) and (2, 14) alternating, so
    // each of the 2,499 triangles (0, k+1, k+2) is the same triangle (alternately wound;
    // culling is off). Every one lights its 66 pixels, which needs vertex 0 long after
    // the first chunk of vertices has gone through.
    let n = 2501;
    let mut verts = vec![v(2.0, 2.0, GREEN)];
    for k in 1..n {
        verts.push(if k % 2 == 1 {
            v(14.0, 2.0, RED)
        } else {
            v(2.0, 14.0, BLUE)
        });
    }
    let (st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_TRIFAN, n as u32)).unwrap();
    let triangles = n as u64 - 2;
    assert_eq!(stats.ps_depth_count, triangles * TRIANGLE_PIXELS);
    assert_eq!(
        (stats.ia_vertices, stats.ia_primitives),
        (n as u64, triangles)
    );
    // Flat from TriangleFanProvokingVertexSelect 0: the shared vertex 0's green.
    assert_eq!(pixel(&mem, 3, 3), colour(GREEN));
}

#[test]
fn a_triangle_list_across_chunk_boundaries_keeps_every_triangle() {
    // 900 copies of one triangle, 2,700 vertices: objects straddle the 1,024-vertex
    // chunks; each must still light its 66 pixels, and the two dangling vertices of
    // 2,702 are dropped. (The vertex buffer must stay below the render target, 64 KiB
    // further: 2,702 x 24 bytes fit.)
    let one = [v(2.0, 2.0, RED), v(14.0, 2.0, RED), v(2.0, 14.0, RED)];
    let mut verts: Vec<[f32; 6]> = one.iter().copied().cycle().take(2700).collect();
    verts.extend([v(0.0, 0.0, BLUE), v(1.0, 1.0, BLUE)]);
    let (st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_TRILIST, 2702)).unwrap();
    assert_eq!(stats.ps_depth_count, 900 * TRIANGLE_PIXELS);
    assert_eq!((stats.ia_vertices, stats.ia_primitives), (2700, 900));
}

#[test]
fn a_triangle_strip_across_chunk_boundaries_alternates_its_winding() {
    // A strip of 2,100 vertices whose triangles all lie on one triangle: 2,098 objects.
    // With back faces culled, only the triangles whose strip winding (odd ones reversed,
    // seed 004 §10.2) makes them front-facing are drawn: exactly half.
    let cycle = [v(2.0, 2.0, RED), v(14.0, 2.0, RED), v(2.0, 14.0, RED)];
    let n = 2100;
    let verts: Vec<[f32; 6]> = cycle.iter().copied().cycle().take(n).collect();
    let (mut st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
    let all = run(&st, &mut mem, &primitive(T::_3DPRIM_TRISTRIP, n as u32)).unwrap();
    assert_eq!(all.ps_depth_count, (n as u64 - 2) * TRIANGLE_PIXELS);
    // Strip triangle k is (k, k+1, k+2) = a rotation of the cycle, always the same
    // screen winding; inverting every odd one makes them alternate, so culling either
    // face keeps 1,049 of the 2,098.
    let sf = gtsim_spec::gen7::ThreeDStateSf {
        cull_mode: gtsim_spec::gen7::three_d_state_sf::CullMode::CULLMODE_BACK,
        ..Default::default()
    };
    st.commands.insert("3DSTATE_SF", sf.pack().unwrap());
    let culled = run(&st, &mut mem, &primitive(T::_3DPRIM_TRISTRIP, n as u32)).unwrap();
    assert_eq!(culled.ps_depth_count, (n as u64 - 2) / 2 * TRIANGLE_PIXELS);
}

/// 3DPRIM_* register offsets (Linux i915_reg.h, GEN7_3DPRIM_*).
const START_VERTEX: u32 = 0x2430;
const VERTEX_COUNT: u32 = 0x2434;
const INSTANCE_COUNT: u32 = 0x2438;

#[test]
fn an_indirect_draw_takes_its_counts_from_the_3dprim_registers() {
    // Two rectangles in the vertex buffer; the command says 0 vertices, 0 instances;
    // the registers say: 3 vertices from vertex 3, one instance. Only the second
    // rectangle, [8, 12) x [8, 12), is drawn.
    let verts = [
        v(6.0, 6.0, RED),
        v(2.0, 6.0, RED),
        v(2.0, 2.0, RED),
        v(12.0, 12.0, BLUE),
        v(8.0, 12.0, BLUE),
        v(8.0, 8.0, BLUE),
    ];
    let (mut st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
    st.registers.insert(START_VERTEX, 3);
    st.registers.insert(VERTEX_COUNT, 3);
    st.registers.insert(INSTANCE_COUNT, 1);
    let prim = ThreeDPrimitive {
        indirect_parameter_enable: true,
        primitive_topology_type: T::_3DPRIM_RECTLIST,
        ..Default::default()
    }
    .pack()
    .unwrap();
    let stats = run(&st, &mut mem, &prim).unwrap();
    for y in 0..W {
        for x in 0..W {
            let inside = (8..12).contains(&x) && (8..12).contains(&y);
            let want = if inside { colour(BLUE) } else { [0; 4] };
            assert_eq!(pixel(&mem, x, y), want, "({x}, {y})");
        }
    }
    assert_eq!(stats.ps_depth_count, 16);
    // And with the register's instance count 0, nothing at all.
    st.registers.insert(INSTANCE_COUNT, 0);
    let stats = run(&st, &mut mem, &prim).unwrap();
    assert_eq!(stats.ps_depth_count, 0);
}

fn rect() -> Vec<[f32; 6]> {
    vec![v(14.0, 14.0, RED), v(2.0, 14.0, RED), v(2.0, 2.0, RED)]
}

#[test]
fn a_huge_vertex_count_ends_at_the_vertex_watchdog_not_in_an_allocation() {
    // 0x02000003 RECTLIST vertices (all but three read past the buffer's end as zero):
    // the draw streams, so the limit of 10,000 vertices ends it with a hang report.
    let (st, mut mem) = setup(&rect(), PS_FLAT_SIMD16, false, None, true);
    let limits = WorkLimits {
        vertices: 10_000,
        ..WorkLimits::BUILT_IN
    };
    let e = run_limited(
        &st,
        &mut mem,
        &primitive(T::_3DPRIM_RECTLIST, 0x0200_0003),
        limits,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            DrawError::Watchdog {
                what: "vertices",
                limit: 10_000,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn an_endless_instance_count_ends_at_the_watchdog() {
    let (st, mut mem) = setup(&rect(), PS_FLAT_SIMD16, false, None, true);
    let prim = ThreeDPrimitive {
        primitive_topology_type: T::_3DPRIM_RECTLIST,
        vertex_count_per_instance: 3,
        instance_count: u32::MAX,
        ..Default::default()
    }
    .pack()
    .unwrap();
    // 144 pixels an instance: a limit of 1,000 pixels stops it in the 7th instance.
    let limits = WorkLimits {
        pixels: 1_000,
        ..WorkLimits::BUILT_IN
    };
    let e = run_limited(&st, &mut mem, &prim, limits).unwrap_err();
    assert!(
        matches!(e, DrawError::Watchdog { what: "pixels", .. }),
        "{e}"
    );
    // The same draw with an EU instruction limit: each SIMD16 thread runs the kernel's
    // two instructions, so 100 instructions allow 50 threads and then stop.
    let limits = WorkLimits {
        eu_instructions: 100,
        ..WorkLimits::BUILT_IN
    };
    let e = run_limited(&st, &mut mem, &prim, limits).unwrap_err();
    assert!(
        matches!(
            e,
            DrawError::Watchdog {
                what: "EU instructions",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn a_placeholder_depth_buffer_that_nothing_reads_is_never_touched() {
    // A SURFTYPE_2D depth buffer at address 0 with pitch 0 (what crocus binds for a
    // draw without depth), depth test and write off: the hardware never reads it, so
    // the draw completes as with a null depth buffer.
    let (mut st, mut mem) = setup(&rect(), PS_FLAT_SIMD16, false, None, true);
    let depth = gtsim_spec::gen7::ThreeDStateDepthBuffer {
        surface_type: gtsim_spec::gen7::three_d_state_depth_buffer::SurfaceType::SURFTYPE_2D,
        surface_format: gtsim_spec::gen7::three_d_state_depth_buffer::SurfaceFormat::D32_FLOAT,
        width: 15,
        height: 15,
        ..Default::default()
    };
    st.commands
        .insert("3DSTATE_DEPTH_BUFFER", depth.pack().unwrap());
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_RECTLIST, 3)).unwrap();
    assert_eq!(stats.ps_depth_count, 144);
    assert_eq!(pixel(&mem, 2, 2), colour(RED));
}

#[test]
fn a_render_target_view_of_one_array_layer_writes_that_layer() {
    // RENDER_SURFACE_STATE: a 2D array viewed from Minimum Array Element 2 with Depth 0
    // (one element), LOD0 spacing: QPitch 16 rows, so layer 2 starts at row 32 (seed 000
    // §2.12.2: Minimum Array Element is the minimum R coordinate rendered to, and Depth
    // counts the view's elements from there). The rectangle lands in layer 2 only.
    let (st, mut mem) = setup(&rect(), PS_FLAT_SIMD16, false, None, true);
    let rss = gtsim_spec::gen7::RenderSurfaceState {
        surface_type: gtsim_spec::gen7::render_surface_state::SurfaceType::SURFTYPE_2D,
        surface_array: true,
        surface_array_spacing:
            gtsim_spec::gen7::render_surface_state::SurfaceArraySpacing::ARYSPC_LOD0,
        surface_format: gtsim_spec::shared::SurfaceFormat::R8G8B8A8_UNORM,
        surface_base_address: RT,
        width: (W - 1) as u16,
        height: (W - 1) as u16,
        surface_pitch: W * 4 - 1,
        minimum_array_element: 2,
        ..Default::default()
    };
    mem.load(SURFACE_BASE + 0x200, &bytes(&rss.pack().unwrap()));
    mem.load(RT, &vec![0u8; (3 * W * W * 4) as usize]);
    run(&st, &mut mem, &primitive(T::_3DPRIM_RECTLIST, 3)).unwrap();
    let at = |x: u32, y: u32| {
        let mut p = [0u8; 4];
        mem.read(RT + u64::from(y * W * 4 + x * 4), &mut p).unwrap();
        p
    };
    for y in 0..3 * W {
        for x in 0..W {
            let in_layer_2 = y >= 2 * W && (2..14).contains(&x) && (2..14).contains(&(y - 2 * W));
            let want = if in_layer_2 { colour(RED) } else { [0; 4] };
            assert_eq!(at(x, y), want, "({x}, row {y})");
        }
    }
}

#[test]
fn a_rectangle_over_the_largest_drawing_rectangle_streams_its_pixels() {
    // A 65,536 x 65,536 rectangle in a drawing rectangle as large as the state allows:
    // 2^32 pixels, which the WM receives in bands of about 2^20 (16 rows), so the pixel
    // watchdog (here 2^18) ends the draw at the first band instead of the model first
    // building a 32 GiB pixel list.
    let big = [
        v(65536.0, 65536.0, RED),
        v(0.0, 65536.0, RED),
        v(0.0, 0.0, RED),
    ];
    let (mut st, mut mem) = setup(&big, PS_FLAT_SIMD16, false, None, true);
    st.commands.insert(
        "3DSTATE_DRAWING_RECTANGLE",
        gtsim_spec::gen7::ThreeDStateDrawingRectangle {
            clipped_drawing_rectangle_x_max: u16::MAX,
            clipped_drawing_rectangle_y_max: u16::MAX,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    // No pixel shader: the WM only counts the pixels (PS_DEPTH_COUNT, which its
    // Statistics Enable turns on), which keeps the test fast.
    st.commands.insert(
        "3DSTATE_WM",
        gtsim_spec::gen7::ThreeDStateWm {
            statistics_enable: true,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    let limits = WorkLimits {
        pixels: 1 << 18,
        ..WorkLimits::BUILT_IN
    };
    let e = run_limited(&st, &mut mem, &primitive(T::_3DPRIM_RECTLIST, 3), limits).unwrap_err();
    assert!(
        matches!(e, DrawError::Watchdog { what: "pixels", .. }),
        "{e}"
    );
    // Clipped to a 2-row drawing rectangle, its 65,536 x 2 = 2^17 pixels stay below the
    // limit and are all counted.
    st.commands.insert(
        "3DSTATE_DRAWING_RECTANGLE",
        gtsim_spec::gen7::ThreeDStateDrawingRectangle {
            clipped_drawing_rectangle_x_max: u16::MAX,
            clipped_drawing_rectangle_y_max: 1,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    let stats = run_limited(&st, &mut mem, &primitive(T::_3DPRIM_RECTLIST, 3), limits).unwrap();
    assert_eq!(stats.ps_depth_count, 65_536 * 2);
}

/// Seed 004 §10.3.14 and §2.5.13: an SBE attribute overridden with Constant Source
/// PRIM_ID carries each object's PrimitiveID as raw 32 bits: that of the vertex that
/// completes it (the strip's S/R of 3, 0 give vertices 0-4 the IDs 0, 0, 0, 1, 2, so
/// triangle k takes vertex k+2's, k), whatever the provoking vertex select for flat
/// shading. Drawn into an R32_UINT target.
#[test]
fn the_sbe_prim_id_constant_gives_each_object_its_primitive_id() {
    use gtsim_spec::gen7::*;
    // Three strip triangles side by side: columns [1,5), [6,10), [11,15) of rows 2-13.
    let verts: Vec<[f32; 6]> = (0..5)
        .map(|i| {
            let x = 1.0 + 3.5 * i as f32;
            v(x, if i % 2 == 0 { 2.0 } else { 14.0 }, WHITE)
        })
        .collect();
    let (mut st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
    let rss = RenderSurfaceState {
        surface_type: render_surface_state::SurfaceType::SURFTYPE_2D,
        surface_format: gtsim_spec::shared::SurfaceFormat::R32_UINT,
        surface_base_address: RT,
        width: (W - 1) as u16,
        height: (W - 1) as u16,
        surface_pitch: W * 4 - 1,
        ..Default::default()
    };
    mem.write(SURFACE_BASE + 0x200, &bytes(&rss.pack().unwrap()))
        .unwrap();
    let mut sbe = ThreeDStateSbe::unpack(&st.commands["3DSTATE_SBE"]).unwrap();
    sbe.attribute_swizzle_enable = true;
    sbe.attribute_0 = SfOutputAttributeDetail {
        component_override_x: true,
        component_override_y: true,
        component_override_z: true,
        component_override_w: true,
        constant_source: sf_output_attribute_detail::ConstantSource(3),
        ..Default::default()
    };
    st.commands.insert("3DSTATE_SBE", sbe.pack().unwrap());
    mem.load(RT, &bytes(&[0xffff_ffff; (W * W) as usize]));
    run(&st, &mut mem, &primitive(T::_3DPRIM_TRISTRIP, 5)).unwrap();
    let id = |x: u32, y: u32| u32::from_le_bytes(pixel(&mem, x, y));
    // Each triangle's centroid column holds its PrimitiveID; outside, untouched.
    let lit: Vec<u32> = (0..W)
        .map(|x| id(x, 8))
        .filter(|&p| p != u32::MAX)
        .collect();
    assert!(
        lit.contains(&0) && lit.contains(&1) && lit.contains(&2),
        "{lit:?}"
    );
    assert!(
        lit.windows(2).all(|w| w[0] <= w[1]),
        "IDs grow left to right: {lit:?}"
    );
    // Triangle 0 (1,2) (4.5,14) (8,2) and 2 (8,2) (11.5,14) (15,2) along the top row,
    // triangle 1 (4.5,14) (8,2) (11.5,14) along the bottom.
    assert_eq!((id(4, 2), id(11, 2), id(8, 13)), (0, 2, 1));
    assert_eq!(id(0, 0), u32::MAX);
}

/// Seed 004 §2.5.6: VertexID is the VertexNumber for SEQUENTIAL access (0 for the
/// draw's first vertex, whatever its StartVertexLocation) and the index buffer's value
/// for RANDOM access (before BaseVertexLocation), while VertexIndex, which fetches the
/// vertex data, adds the start or the base. A VFCOMP_STORE_VID component, flat-shaded
/// into an R32_UINT target from the provoking (first) vertex, shows it.
#[test]
fn vertex_ids_leave_out_the_start_vertex_and_the_base_vertex() {
    use gtsim_spec::gen7::*;
    use gtsim_spec::shared::{SurfaceFormat, ThreeDVertexComponentControl as C};
    let verts: Vec<[f32; 6]> = (0..8)
        .map(|i| match i % 3 {
            0 => v(1.0, 1.0, WHITE),
            1 => v(15.0, 1.0, WHITE),
            _ => v(1.0, 15.0, WHITE),
        })
        .collect();
    let draw = |prim: ThreeDPrimitive, ib: Option<&[u32]>| {
        let (mut st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
        let rss = RenderSurfaceState {
            surface_type: render_surface_state::SurfaceType::SURFTYPE_2D,
            surface_format: SurfaceFormat::R32_UINT,
            surface_base_address: RT,
            width: (W - 1) as u16,
            height: (W - 1) as u16,
            surface_pitch: W * 4 - 1,
            ..Default::default()
        };
        mem.write(SURFACE_BASE + 0x200, &bytes(&rss.pack().unwrap()))
            .unwrap();
        let element =
            |offset, controls: [C; 4]| element(SurfaceFormat::R32G32_FLOAT, offset, controls);
        let elements = vec![
            element(0, [C::VFCOMP_STORE_0; 4]),
            element(
                0,
                [
                    C::VFCOMP_STORE_SRC,
                    C::VFCOMP_STORE_SRC,
                    C::VFCOMP_STORE_0,
                    C::VFCOMP_STORE_1_FP,
                ],
            ),
            element(
                0,
                [
                    C::VFCOMP_STORE_VID,
                    C::VFCOMP_STORE_0,
                    C::VFCOMP_STORE_0,
                    C::VFCOMP_STORE_0,
                ],
            ),
        ];
        st.commands.insert(
            "3DSTATE_VERTEX_ELEMENTS",
            ThreeDStateVertexElements { element: elements }
                .pack()
                .unwrap(),
        );
        if let Some(ib) = ib {
            const IB: u64 = 0x60000;
            mem.load(IB, &bytes(ib));
            st.commands.insert(
                "3DSTATE_INDEX_BUFFER",
                ThreeDStateIndexBuffer {
                    index_format: three_d_state_index_buffer::IndexFormat(2),
                    buffer_starting_address: IB,
                    buffer_ending_address: IB + 4 * ib.len() as u64 - 1,
                    ..Default::default()
                }
                .pack()
                .unwrap(),
            );
        }
        run(&st, &mut mem, &prim.pack().unwrap()).unwrap();
        u32::from_le_bytes(pixel(&mem, 4, 4))
    };
    let sequential = ThreeDPrimitive {
        primitive_topology_type: T::_3DPRIM_TRILIST,
        vertex_count_per_instance: 3,
        start_vertex_location: 3,
        instance_count: 1,
        ..Default::default()
    };
    assert_eq!(draw(sequential.clone(), None), 0);
    let random = ThreeDPrimitive {
        vertex_access_type: three_d_primitive::VertexAccessType::RANDOM,
        start_vertex_location: 0,
        base_vertex_location: 3,
        ..sequential
    };
    // Indices 2, 1, 0 plus base 3 fetch vertices 5, 4, 3; the first's VertexID is 2.
    assert_eq!(draw(random, Some(&[2, 1, 0])), 2);
}
