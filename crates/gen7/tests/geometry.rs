//! Whole draws through the GS stage (seed 004 ch.7): 3DSTATE_GS packed by hand, GS
//! kernels assembled from text. Each GS output is checked against the same primitives
//! drawn without a GS (the clipper and rasterizer are the oracle for where pixels land)
//! and against pixel and statistics counts worked by hand.

mod common;

use common::*;
use gtsim_mem::AddressSpace;
use gtsim_pipe3d::draw::{DrawError, Statistics};
use gtsim_spec::gen7::*;
use gtsim_spec::shared::ThreeDPrimTopoType as T;

const GS_KERNEL: u64 = 0x800;
const ORANGE: [f32; 4] = [1.0, 0.6, 0.2, 1.0];

fn v(x: f32, y: f32, c: [f32; 4]) -> [f32; 6] {
    [x, y, c[0], c[1], c[2], c[3]]
}

/// Adds a GS with `kernel` and `gs` (its kernel pointer and enable filled in).
fn with_gs(st: &mut State, mem: &mut AddressSpace, kernel: &str, gs: ThreeDStateGs) {
    use gtsim_isa::asm::{Compaction, assemble};
    mem.load(
        INSTRUCTION_BASE + GS_KERNEL,
        &assemble(kernel, Compaction::Never).unwrap(),
    );
    st.commands.insert(
        "3DSTATE_GS",
        ThreeDStateGs {
            gs_enable: true,
            kernel_start_pointer: GS_KERNEL,
            gs_statistics_enable: true,
            ..gs
        }
        .pack()
        .unwrap(),
    );
}

fn image(mem: &AddressSpace) -> Vec<[u8; 4]> {
    (0..W * W).map(|i| pixel(mem, i % W, i / W)).collect()
}

/// The image of `verts` drawn as `topology` without a GS.
fn plain(verts: &[[f32; 6]], topology: T) -> (Vec<[u8; 4]>, Statistics) {
    let (st, mut mem) = setup(verts, PS_FLAT_SIMD16, false, None, true);
    let stats = run(&st, &mut mem, &primitive(topology, verts.len() as u32)).unwrap();
    (image(&mem), stats)
}

/// The header of a URB write: a copy of R0 with all eight channels enabled (M0.5
/// 15:8), in g20.
const HEADER: &str =
    "mov(8)          g20<1>UD        g0<8,8,1>UD                     { align1 WE_all 1Q };
or(1)           g20.5<1>UD      g0.5<0,1,0>UD   0x0000ff00UD    { align1 WE_all 1N };
";

/// Writes output vertex `j` (header g21, position g22, colour g23) at per-slot offset
/// 2j rows after a one-row control data header (descriptor: mlen 4, header present,
/// per-slot offset, interleave, global offset 1).
fn emit(j: u32, position: &str) -> String {
    format!(
        "{position}
mov(1)          g20.3<1>UD      0x{:08x}UD                    {{ align1 WE_all 1N }};
send(8)         null<1>F        g20<4>F         0x08094008
                            urb MsgDesc: offset 1 write HWord per-slot interleave mlen 4 rlen 0 {{ align16 1Q }};
",
        2 * j
    )
}

/// A SINGLE-dispatch GS for POINTLIST input (g1 = VUE slots 0-1, so the position is in
/// g1.4-7; g2 = slots 2-3, the colour in g2.0-3) that outputs two separate triangles as
/// one TRISTRIP output with a cut after vertex 2: (x-4, y-4) (x, y-4) (x-4, y), cut,
/// (x, y) (x+4, y) (x, y+4). The cut bits (bit 2) are written to the control data header
/// (one dword, channel mask 0x01) with an OWord write as crocus's GS kernels do, then the
/// EOT write reports 6 vertices (M0.2).
fn gs_two_triangles_with_a_cut() -> String {
    let mut k = String::from(HEADER);
    k += "mov(8)          g21<1>UD        0x00000000UD                    { align16 1Q };
mov(8)          g23<1>F         g2<0>F                          { align16 1Q };
";
    let offsets = [
        "add(8)          g22<1>F         g1.4<0>F        0xd0d0VF        { align16 1Q };",
        "add(8)          g22<1>F         g1.4<0>F        0xd000VF        { align16 1Q };",
        "add(8)          g22<1>F         g1.4<0>F        0xd0VF          { align16 1Q };",
        "mov(8)          g22<1>F         g1.4<0>F                        { align16 1Q };",
        "add(8)          g22<1>F         g1.4<0>F        0x50VF          { align16 1Q };",
        "add(8)          g22<1>F         g1.4<0>F        0x5000VF        { align16 1Q };",
    ];
    for (j, p) in offsets.iter().enumerate() {
        k += &emit(j as u32, p);
    }
    k += "mov(1)          g20.3<1>UD      0x00000000UD                    { align1 WE_all 1N };
mov(1)          g20.5<1>UD      0x00000100UD                    { align1 WE_all 1N };
mov(8)          g21<1>UD        0x00000004UD                    { align16 1Q };
send(8)         null<1>F        g20<4>F         0x04084001
                            urb MsgDesc: offset 0 write OWord interleave mlen 2 rlen 0 { align16 1Q };
mov(8)          g20<1>UD        g0<8,8,1>UD                     { align1 WE_all 1Q };
mov(1)          g20.2<1>UD      0x00000006UD                    { align1 WE_all 1N };
send(8)         null<1>F        g20<4>F         0x0208c000
                            urb MsgDesc: offset 0 write HWord interleave complete mlen 1 rlen 0 { align16 1Q EOT };
";
    k
}

fn single_gs() -> ThreeDStateGs {
    ThreeDStateGs {
        dispatch_mode: three_d_state_gs::DispatchMode::SINGLE,
        output_vertex_size: 3,
        output_topology: T::_3DPRIM_TRISTRIP,
        vertex_urb_entry_read_length: 2,
        dispatch_grf_start_register_for_urb_data: 1,
        control_data_header_size: 1,
        control_data_format: three_d_state_gs::ControlDataFormat::GSCTL_CUT,
        ..Default::default()
    }
}

/// Seed 004 §7.5.1.1: a cut bit ends the output strip after its vertex, so six vertices
/// with bit 2 set are two triangles, exactly those of a TRILIST of the same vertices.
/// By hand: triangle (4,4) (8,4) (4,8) lights the pixel centres with x, y >= 4 and
/// x + y < 11 (its hypotenuse is a bottom-right edge, not lit): 6 pixels; the other
/// likewise from (8,8): 12 in all.
#[test]
fn cut_bits_split_the_output_strip_into_separate_triangles() {
    let point = [v(8.0, 8.0, ORANGE)];
    let (mut st, mut mem) = setup(&point, PS_FLAT_SIMD16, false, None, true);
    with_gs(
        &mut st,
        &mut mem,
        &gs_two_triangles_with_a_cut(),
        single_gs(),
    );
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_POINTLIST, 1)).unwrap();
    let tris = [
        v(4.0, 4.0, ORANGE),
        v(8.0, 4.0, ORANGE),
        v(4.0, 8.0, ORANGE),
        v(8.0, 8.0, ORANGE),
        v(12.0, 8.0, ORANGE),
        v(8.0, 12.0, ORANGE),
    ];
    let (want, plain_stats) = plain(&tris, T::_3DPRIM_TRILIST);
    assert_eq!(image(&mem), want);
    assert_eq!(stats.ps_depth_count, 12);
    assert_eq!(plain_stats.ps_depth_count, 12);
    // §7.7.1: one invocation (increment value 0 counts 1), two complete triangles; the
    // VF counted one point.
    assert_eq!((stats.gs_invocations, stats.gs_primitives), (1, 2));
    assert_eq!((stats.ia_vertices, stats.ia_primitives), (1, 1));
    assert_eq!(stats.cl_invocations, plain_stats.cl_invocations);

    // Without the control data header (size 0) there are no cut bits: one strip of six
    // vertices, four triangles, lighting more pixels.
    let (mut st, mut mem) = setup(&point, PS_FLAT_SIMD16, false, None, true);
    let no_cuts = gs_two_triangles_with_a_cut().replace("0x08094008", "0x08094000");
    with_gs(
        &mut st,
        &mut mem,
        &no_cuts,
        ThreeDStateGs {
            control_data_header_size: 0,
            ..single_gs()
        },
    );
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_POINTLIST, 1)).unwrap();
    let (want, _) = plain(&tris, T::_3DPRIM_TRISTRIP);
    assert_eq!(image(&mem), want);
    assert_eq!(stats.gs_primitives, 4);
}

fn dual_object_gs() -> ThreeDStateGs {
    ThreeDStateGs {
        dispatch_mode: three_d_state_gs::DispatchMode::DUAL_OBJECT,
        output_vertex_size: 3,
        output_topology: T::_3DPRIM_TRISTRIP,
        vertex_urb_entry_read_length: 2,
        dispatch_grf_start_register_for_urb_data: 1,
        reorder_enable: true,
        ..Default::default()
    }
}

/// Three triangles in DUAL_OBJECT mode: a thread for objects 0 and 1 (dispatch mask
/// 0xff) and one for object 2 alone (0x0f; its upper half writes nothing). The output is
/// the input: the same image as without a GS, and GS_INVOCATION_COUNT 3 (twice the
/// increment for the pair, once for the single object).
#[test]
fn dual_object_threads_pass_two_triangles_each_and_a_trailing_one_alone() {
    let tris = [
        v(0.0, 0.0, ORANGE),
        v(8.0, 0.0, ORANGE),
        v(0.0, 8.0, ORANGE),
        v(16.0, 0.0, [0.0, 1.0, 0.0, 1.0]),
        v(16.0, 8.0, [0.0, 1.0, 0.0, 1.0]),
        v(8.0, 0.0, [0.0, 1.0, 0.0, 1.0]),
        v(4.0, 10.0, [0.0, 0.0, 1.0, 1.0]),
        v(14.0, 10.0, [0.0, 0.0, 1.0, 1.0]),
        v(4.0, 16.0, [0.0, 0.0, 1.0, 1.0]),
    ];
    let (mut st, mut mem) = setup(&tris, PS_FLAT_SIMD16, false, None, true);
    with_gs(&mut st, &mut mem, GS_PASS_DUAL_OBJECT, dual_object_gs());
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_TRILIST, 9)).unwrap();
    let (want, plain_stats) = plain(&tris, T::_3DPRIM_TRILIST);
    assert_eq!(image(&mem), want);
    assert!(
        want.iter().any(|p| p[2] == 255),
        "the third triangle is lit"
    );
    assert_eq!(stats.ps_depth_count, plain_stats.ps_depth_count);
    assert_eq!((stats.gs_invocations, stats.gs_primitives), (3, 3));
    assert_eq!((stats.ia_vertices, stats.ia_primitives), (9, 3));
}

/// A TRISTRIP input with Reorder Enable: object 1 arrives as (1, 3, 2), so passing the
/// vertices through as they arrive draws every triangle with the strip's winding; the
/// same image as the strip drawn without a GS.
#[test]
fn reordered_strip_objects_keep_the_strips_triangles() {
    let strip = [
        v(1.0, 1.0, ORANGE),
        v(1.0, 9.0, ORANGE),
        v(7.0, 2.0, ORANGE),
        v(8.0, 12.0, ORANGE),
        v(15.0, 4.0, ORANGE),
    ];
    let (mut st, mut mem) = setup(&strip, PS_FLAT_SIMD16, false, None, true);
    // One facing culled: a triangle passed with the wrong winding would vanish.
    st.commands.insert(
        "3DSTATE_SF",
        ThreeDStateSf {
            cull_mode: three_d_state_sf::CullMode::CULLMODE_FRONT,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    with_gs(&mut st, &mut mem, GS_PASS_DUAL_OBJECT, dual_object_gs());
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_TRISTRIP, 5)).unwrap();
    let (mut pst, mut pmem) = setup(&strip, PS_FLAT_SIMD16, false, None, true);
    pst.commands.insert(
        "3DSTATE_SF",
        ThreeDStateSf {
            cull_mode: three_d_state_sf::CullMode::CULLMODE_FRONT,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    let plain_stats = run(&pst, &mut pmem, &primitive(T::_3DPRIM_TRISTRIP, 5)).unwrap();
    assert_eq!(image(&mem), image(&pmem));
    assert_eq!(stats.ps_depth_count, plain_stats.ps_depth_count);
    assert!(stats.ps_depth_count > 0);
    assert_eq!(stats.gs_invocations, 3);
}

/// DUAL_INSTANCE with InstanceCount 3: a thread for instances 0 and 1 and a trailing
/// one for instance 2 (§7.2.1.1); each instance reads its GS Instance ID from R0.0 /
/// R0.1 31:27 and shifts its triangle right by 4 x ID. Both slots see the object's
/// vertex data unswizzled (g1 = slots 0-1: the position in g1.4-7).
#[test]
fn dual_instance_threads_give_each_instance_its_id() {
    let kernel = "shr(2)          g30<1>UD        g0<2,2,1>UD     0x0000001bUD    { align1 WE_all 1N };
mov(4)          g31<1>F         g30<0,1,0>UD                    { align1 WE_all 1N };
mov(4)          g31.4<1>F       g30.1<0,1,0>UD                  { align1 WE_all 1N };
mul(8)          g31<1>F         g31<4>F         0x40800000F     { align16 1Q };
mov(8)          g20<1>UD        g0<8,8,1>UD                     { align1 WE_all 1Q };
or(1)           g20.5<1>UD      g0.5<0,1,0>UD   0x0000ff00UD    { align1 WE_all 1N };
mov(8)          g21<1>UD        0x00000000UD                    { align16 1Q };
mov(8)          g23<1>F         g2<0>F                          { align16 1Q };
mov(8)          g22<1>F         g1.4<0>F                        { align16 1Q };
add(8)          g22<1>.xF       g22<4>F         g31<4>F         { align16 1Q };
mov(1)          g20.3<1>UD      0x00000000UD                    { align1 WE_all 1N };
mov(1)          g20.4<1>UD      0x00000000UD                    { align1 WE_all 1N };
send(8)         null<1>F        g20<4>F         0x08094000
                            urb MsgDesc: offset 0 write HWord per-slot interleave mlen 4 rlen 0 { align16 1Q };
add(8)          g22<1>.xF       g22<4>F         0x40800000F     { align16 1Q };
mov(1)          g20.3<1>UD      0x00000002UD                    { align1 WE_all 1N };
mov(1)          g20.4<1>UD      0x00000002UD                    { align1 WE_all 1N };
send(8)         null<1>F        g20<4>F         0x08094000
                            urb MsgDesc: offset 0 write HWord per-slot interleave mlen 4 rlen 0 { align16 1Q };
add(8)          g22<1>.xF       g22<4>F         0xc0800000F     { align16 1Q };
add(8)          g22<1>.yF       g22<4>F         0x40800000F     { align16 1Q };
mov(1)          g20.3<1>UD      0x00000004UD                    { align1 WE_all 1N };
mov(1)          g20.4<1>UD      0x00000004UD                    { align1 WE_all 1N };
send(8)         null<1>F        g20<4>F         0x08094000
                            urb MsgDesc: offset 0 write HWord per-slot interleave mlen 4 rlen 0 { align16 1Q };
mov(8)          g20<1>UD        g0<8,8,1>UD                     { align1 WE_all 1Q };
mov(1)          g20.2<1>UD      0x00030003UD                    { align1 WE_all 1N };
send(8)         null<1>F        g20<4>F         0x0208c000
                            urb MsgDesc: offset 0 write HWord interleave complete mlen 1 rlen 0 { align16 1Q EOT };";
    let point = [v(2.0, 4.0, ORANGE)];
    let (mut st, mut mem) = setup(&point, PS_FLAT_SIMD16, false, None, true);
    with_gs(
        &mut st,
        &mut mem,
        kernel,
        ThreeDStateGs {
            dispatch_mode: three_d_state_gs::DispatchMode::DUAL_INSTANCE,
            instance_control: 2,
            ..dual_object_gs()
        },
    );
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_POINTLIST, 1)).unwrap();
    // Instance i: (2 + 4i, 4) (6 + 4i, 4) (2 + 4i, 8).
    let tris: Vec<[f32; 6]> = (0..3)
        .flat_map(|i| {
            let x = 2.0 + 4.0 * i as f32;
            [
                v(x, 4.0, ORANGE),
                v(x + 4.0, 4.0, ORANGE),
                v(x, 8.0, ORANGE),
            ]
        })
        .collect();
    let (want, plain_stats) = plain(&tris, T::_3DPRIM_TRILIST);
    assert_eq!(image(&mem), want);
    assert_eq!(stats.ps_depth_count, plain_stats.ps_depth_count);
    // By hand: each triangle lights x + y < 3 above its corner: 6 pixels, 18 in all.
    assert_eq!(stats.ps_depth_count, 18);
    assert_eq!((stats.gs_invocations, stats.gs_primitives), (3, 3));
}

/// Seed 004 §8.7: Rendering Disable stops every topology at the SOL stage, with or
/// without a GS (the GS still runs and counts); Render Stream Select passes only its
/// stream, and the VF's topologies are stream 0.
#[test]
fn the_sol_stage_passes_only_the_render_stream() {
    let point = [v(8.0, 8.0, ORANGE)];
    let streamout = |disable: bool, stream: u8| {
        ThreeDStateStreamout {
            rendering_disable: disable,
            render_stream_select: stream,
            ..Default::default()
        }
        .pack()
        .unwrap()
    };
    for (disable, stream, lit) in [(false, 0, 12), (true, 0, 0), (false, 1, 0)] {
        let (mut st, mut mem) = setup(&point, PS_FLAT_SIMD16, false, None, true);
        with_gs(
            &mut st,
            &mut mem,
            &gs_two_triangles_with_a_cut(),
            single_gs(),
        );
        st.commands
            .insert("3DSTATE_STREAMOUT", streamout(disable, stream));
        let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_POINTLIST, 1)).unwrap();
        assert_eq!(
            stats.ps_depth_count, lit,
            "disable {disable} stream {stream}"
        );
        assert_eq!(stats.gs_primitives, 2);
        // Without a GS.
        let tri = [
            v(0.0, 0.0, ORANGE),
            v(8.0, 0.0, ORANGE),
            v(0.0, 8.0, ORANGE),
        ];
        let (mut st, mut mem) = setup(&tri, PS_FLAT_SIMD16, false, None, true);
        st.commands
            .insert("3DSTATE_STREAMOUT", streamout(disable, stream));
        let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_TRILIST, 3)).unwrap();
        assert_eq!(stats.ps_depth_count > 0, lit > 0);
    }
}

/// What the seed calls invalid, and what a GS thread gets wrong, are reported.
#[test]
fn invalid_gs_state_and_output_are_errors() {
    let point = [v(8.0, 8.0, ORANGE)];
    let state_error = |gs: ThreeDStateGs, kernel: &str| {
        let (mut st, mut mem) = setup(&point, PS_FLAT_SIMD16, false, None, true);
        with_gs(&mut st, &mut mem, kernel, gs);
        run(&st, &mut mem, &primitive(T::_3DPRIM_POINTLIST, 1)).unwrap_err()
    };
    let k = gs_two_triangles_with_a_cut();
    // DUAL_OBJECT with more than one instance.
    let e = state_error(
        ThreeDStateGs {
            dispatch_mode: three_d_state_gs::DispatchMode::DUAL_OBJECT,
            instance_control: 1,
            ..single_gs()
        },
        &k,
    );
    assert!(e.to_string().contains("DUAL_OBJECT"), "{e}");
    // An output topology a GS thread may not use.
    let e = state_error(
        ThreeDStateGs {
            output_topology: T::_3DPRIM_QUADLIST,
            ..single_gs()
        },
        &k,
    );
    assert!(e.to_string().contains("§7.5.1.2"), "{e}");
    // The pull model is not modelled: said so, with its section.
    let e = state_error(
        ThreeDStateGs {
            include_vertex_handles: true,
            ..single_gs()
        },
        &k,
    );
    assert!(
        matches!(&e, DrawError::Unsupported(u)
            if u.what.contains("3DSTATE_GS Include Vertex Handles")
                && u.reference == "seed 004 §7.4.3"),
        "{e}"
    );
    // A thread that ends without its vertex counts (no EOT URB write).
    let no_eot = format!(
        "{HEADER}send(8)         null<1>F        g20<4>F         0x02000000
                            null MsgDesc: {{ align16 1Q EOT }};"
    );
    let e = state_error(single_gs(), &no_eot);
    assert!(e.to_string().contains("§7.5.3"), "{e}");
    // More vertices than a one-row header has cut bits for (256).
    let e = state_error(
        single_gs(),
        &k.replace(
            "g20.2<1>UD      0x00000006UD",
            "g20.2<1>UD      0x00000101UD",
        ),
    );
    assert!(e.to_string().contains("control data header"), "{e}");
}

/// The SOL stage streams out what the GS outputs (seed 004 §8.1: "topologies originating
/// in the VF or GS stage"): the two triangles of the cut test, six vertices, each its
/// position (VUE slot 1) as four dwords.
#[test]
fn gs_output_is_streamed_out() {
    let point = [v(8.0, 8.0, ORANGE)];
    let (mut st, mut mem) = setup(&point, PS_FLAT_SIMD16, false, None, true);
    with_gs(
        &mut st,
        &mut mem,
        &gs_two_triangles_with_a_cut(),
        single_gs(),
    );
    const SOB: u64 = 0x50000;
    mem.load(SOB, &[0u8; 256]);
    st.commands.insert(
        "3DSTATE_STREAMOUT",
        ThreeDStateStreamout {
            so_function_enable: true,
            so_statistics_enable: true,
            so_buffer_enable_0: true,
            stream_0_vertex_read_length: 1,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    st.commands.insert(
        "3DSTATE_SO_DECL_LIST",
        ThreeDStateSoDeclList {
            stream_to_buffer_selects_0: 1,
            num_entries_0: 1,
            so_decl_entries: vec![SoDeclEntry {
                stream_0_decl: SoDecl {
                    register_index: 1,
                    component_mask: 0xf,
                    ..Default::default()
                },
                ..Default::default()
            }],
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    st.commands.insert(
        "3DSTATE_SO_BUFFER",
        ThreeDStateSoBuffer {
            surface_pitch: 16,
            surface_base_address: SOB,
            surface_end_address: SOB + 256,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_POINTLIST, 1)).unwrap();
    let want: Vec<f32> = [
        (4.0, 4.0),
        (8.0, 4.0),
        (4.0, 8.0),
        (8.0, 8.0),
        (12.0, 8.0),
        (8.0, 12.0),
    ]
    .iter()
    .flat_map(|&(x, y)| [x, y, 0.0, 1.0])
    .collect();
    let mut got = vec![0u8; 96];
    mem.read(SOB, &mut got).unwrap();
    assert_eq!(got, floats(&want));
    assert_eq!(stats.so_prims_written, [2, 0, 0, 0]);
    assert_eq!(stats.so_write_offsets, Some([96, 0, 0, 0]));
    assert_eq!(stats.ps_depth_count, 12);
}

/// A GS for POINTLIST input (as [`gs_two_triangles_with_a_cut`]) that outputs one
/// triangle, (x-4, y-4) (x, y-4) (x-4, y), whose VUE headers carry Viewport Index `vp`
/// (header DWord 2, seed 004 §1.8.1), with no cut bits.
fn gs_triangle_in_viewport(vp: u32) -> String {
    let mut k = String::from(HEADER);
    k += &format!(
        "mov(8)          g21<1>UD        0x00000000UD                    {{ align16 1Q }};
mov(1)          g21.2<1>UD      0x{vp:08x}UD                    {{ align1 WE_all 1N }};
mov(1)          g21.6<1>UD      0x{vp:08x}UD                    {{ align1 WE_all 1N }};
mov(8)          g23<1>F         g2<0>F                          {{ align16 1Q }};
"
    );
    let offsets = [
        "add(8)          g22<1>F         g1.4<0>F        0xd0d0VF        { align16 1Q };",
        "add(8)          g22<1>F         g1.4<0>F        0xd000VF        { align16 1Q };",
        "add(8)          g22<1>F         g1.4<0>F        0xd0VF          { align16 1Q };",
    ];
    for (j, p) in offsets.iter().enumerate() {
        k += &emit(j as u32, p);
    }
    k += "mov(1)          g20.3<1>UD      0x00000000UD                    { align1 WE_all 1N };
mov(1)          g20.5<1>UD      0x00000100UD                    { align1 WE_all 1N };
mov(8)          g21<1>UD        0x00000000UD                    { align16 1Q };
send(8)         null<1>F        g20<4>F         0x04084001
                            urb MsgDesc: offset 0 write OWord interleave mlen 2 rlen 0 { align16 1Q };
mov(8)          g20<1>UD        g0<8,8,1>UD                     { align1 WE_all 1Q };
mov(1)          g20.2<1>UD      0x00000003UD                    { align1 WE_all 1N };
send(8)         null<1>F        g20<4>F         0x0208c000
                            urb MsgDesc: offset 0 write HWord interleave complete mlen 1 rlen 0 { align16 1Q EOT };
";
    k
}

/// Seed 004 §1.8.1 VUE header DWord 2 and §10.2-10.3: an object's Viewport Index picks
/// its SF_CLIP_VIEWPORT entry (entries 64 bytes apart) for the viewport mapping, unless
/// it exceeds 3DSTATE_CLIP's Maximum VPIndex, when entry 0 is used ("a VPIndex value of
/// 0 is passed down the pipeline"). Entry 0 here is the identity, entry 1 the identity
/// moved by (3, 2) pixels (x' = x + m30, y' = y + m31): the GS's triangle at Viewport
/// Index 1 lands exactly where the same triangle moved by (3, 2) lands drawn plainly, and
/// with Maximum VPIndex 0 where it lands unmoved.
#[test]
fn the_viewport_index_selects_the_viewport_array_entry() {
    let point = [v(8.0, 8.0, ORANGE)];
    let draw = |max_vp_index: u8| {
        let (mut st, mut mem) = setup(&point, PS_FLAT_SIMD16, false, None, true);
        with_gs(&mut st, &mut mem, &gs_triangle_in_viewport(1), single_gs());
        let entry = |dx: f32, dy: f32| SfClipViewport {
            viewport_matrix_element_m00: 1.0,
            viewport_matrix_element_m11: 1.0,
            viewport_matrix_element_m22: 1.0,
            viewport_matrix_element_m30: dx,
            viewport_matrix_element_m31: dy,
            ..Default::default()
        };
        let mut array = bytes(&entry(0.0, 0.0).pack().unwrap());
        array.extend(bytes(&entry(3.0, 2.0).pack().unwrap()));
        mem.load(SURFACE_BASE + 0x400, &array);
        st.commands.insert(
            "3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP",
            ThreeDStateViewportStatePointersSfClip {
                pointer_to_sf_clip_viewport: 0x400,
            }
            .pack()
            .unwrap(),
        );
        st.commands.insert(
            "3DSTATE_SF",
            ThreeDStateSf {
                cull_mode: three_d_state_sf::CullMode::CULLMODE_NONE,
                view_transform_enable: true,
                ..Default::default()
            }
            .pack()
            .unwrap(),
        );
        st.commands.insert(
            "3DSTATE_CLIP",
            ThreeDStateClip {
                perspective_divide_disable: true,
                maximum_vpindex: max_vp_index,
                ..Default::default()
            }
            .pack()
            .unwrap(),
        );
        run(&st, &mut mem, &primitive(T::_3DPRIM_POINTLIST, 1)).unwrap();
        image(&mem)
    };
    let triangle = |dx: f32, dy: f32| {
        plain(
            &[
                v(4.0 + dx, 4.0 + dy, ORANGE),
                v(8.0 + dx, 4.0 + dy, ORANGE),
                v(4.0 + dx, 8.0 + dy, ORANGE),
            ],
            T::_3DPRIM_TRILIST,
        )
        .0
    };
    let moved = triangle(3.0, 2.0);
    assert_ne!(moved, triangle(0.0, 0.0));
    assert_eq!(draw(1), moved, "Viewport Index 1: entry 1");
    assert_eq!(
        draw(0),
        triangle(0.0, 0.0),
        "past Maximum VPIndex 0: entry 0"
    );
}
