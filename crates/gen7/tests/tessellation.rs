//! Whole draws through the HS, TE and DS (seed 004 ch.4-6): 3DSTATE_HS, _TE and _DS
//! packed by hand, kernels assembled from text. The HS's two instances read the patch's
//! control points from the URB by handle, meet at a gateway barrier and write the patch
//! record; the TE's factors of 1 leave the quad domain undivided; the DS places each
//! domain point bilinearly.

mod common;

use common::*;
use gtsim_isa::asm::{Compaction, assemble};
use gtsim_mem::AddressSpace;
use gtsim_spec::gen7::*;
use gtsim_spec::shared::ThreeDPrimTopoType as T;

const HS_KERNEL: u64 = 0x800;
const DS_KERNEL: u64 = 0xc00;
const TEAL: [f32; 4] = [0.0, 0.6, 0.6, 1.0];

/// The HS: per-slot OWord reads of ICPs 0-1 and 2-3 (handles from R1) at slot 1 (the
/// position) into record slots 2-5, ICP 0's colour (slot 2) into record slot 6; the
/// tessellation factors into slots 0 (DW2-DW3 inside = 1.0) and 1 (DW4-DW7 outside =
/// 1.0); a gateway barrier for both instances and `wait`; then crocus's thread end.
const HS: &str = "mov(8)          g10<1>UD        0x00000000UD                    { align1 WE_all 1Q };
mov(1)          g10.5<1>UD      0x0000ff00UD                    { align1 WE_all 1N };
mov(8)          g12<1>UD        0x00000000UD                    { align1 WE_all 1Q };
mov(1)          g12.5<1>UD      0x0000ff00UD                    { align1 WE_all 1N };
mov(2)          g12<1>UD        g0<0,1,0>UD                     { align1 WE_all 1N };
mov(2)          g10<1>UD        g1<2,2,1>UD                     { align1 WE_all 1N };
send(8)         g13<1>UD        g10<4>UD        0x0218400b
                            urb MsgDesc: offset 1 read OWord interleave mlen 1 rlen 1 { align16 1Q };
mov(1)          g12.3<1>UD      0x00000002UD                    { align1 WE_all 1N };
mov(1)          g12.4<1>UD      0x00000003UD                    { align1 WE_all 1N };
send(8)         null<1>F        g12<4>UD        0x04094001
                            urb MsgDesc: offset 0 write OWord per-slot interleave mlen 2 rlen 0 { align16 1Q };
mov(2)          g10<1>UD        g1.2<2,2,1>UD                   { align1 WE_all 1N };
send(8)         g13<1>UD        g10<4>UD        0x0218400b
                            urb MsgDesc: offset 1 read OWord interleave mlen 1 rlen 1 { align16 1Q };
mov(1)          g12.3<1>UD      0x00000004UD                    { align1 WE_all 1N };
mov(1)          g12.4<1>UD      0x00000005UD                    { align1 WE_all 1N };
send(8)         null<1>F        g12<4>UD        0x04094001
                            urb MsgDesc: offset 0 write OWord per-slot interleave mlen 2 rlen 0 { align16 1Q };
mov(2)          g10<1>UD        g1<0,1,0>UD                     { align1 WE_all 1N };
send(8)         g13<1>UD        g10<4>UD        0x02184013
                            urb MsgDesc: offset 2 read OWord interleave mlen 1 rlen 1 { align16 1Q };
mov(1)          g12.3<1>UD      0x00000006UD                    { align1 WE_all 1N };
mov(1)          g12.4<1>UD      0x00000006UD                    { align1 WE_all 1N };
send(8)         null<1>F        g12<4>UD        0x04094001
                            urb MsgDesc: offset 0 write OWord per-slot interleave mlen 2 rlen 0 { align16 1Q };
mov(8)          g17<1>UD        0x00000000UD                    { align1 WE_all 1Q };
mov(1)          g17.2<1>UD      0x00008400UD                    { align1 WE_all 1N };
send(8)         null<1>UW       g17<4,4,1>UD    0x02000004
                            gateway MsgDesc: (barrier msg) mlen 1 rlen 0 { align1 WE_all 1Q };
wait(1)         n0<1>.xUD                                       { align16 WE_all 1N };
mov(8)          g13<1>F         0x3f800000F                     { align1 WE_all 1Q };
mov(2)          g13<1>F         0x0F                            { align1 WE_all 1N };
mov(1)          g12.3<1>UD      0x00000000UD                    { align1 WE_all 1N };
mov(1)          g12.4<1>UD      0x00000001UD                    { align1 WE_all 1N };
send(8)         null<1>F        g12<4>UD        0x04094001
                            urb MsgDesc: offset 0 write OWord per-slot interleave mlen 2 rlen 0 { align16 1Q };
mov(8)          g126<1>F        0x00000000UD                    { align1 WE_all 1Q };
mov(1)          g126.5<1>UD     0x00000100UD                    { align1 WE_all 1N };
mov(1)          g126<1>UD       g0<0,1,0>UD                     { align1 WE_all 1N };
mov(8)          g127<1>F        0x00000000UD                    { align1 WE_all 1Q };
send(8)         null<1>F        g126<4>F        0x84080001
                            urb MsgDesc: offset 0 write OWord mlen 2 rlen 0 { align16 1Q EOT };";

/// The DS: the patch record's slots 2-7 pushed from g2 (two a register: corners 0-3 in
/// slots 2-5, the colour in slot 6), the domain point's (u, v) in R1.0-1 (R1.4-5 for
/// the upper half); position = c0 + u (c1 - c0) + v (c3 - c0), exact for a
/// parallelogram; written as the VUE's slots 0-2.
const DS: &str = "mov(8)          g20<1>F         g2<0>F                          { align16 1Q };
mov(8)          g21<1>F         g2.4<0>F                        { align16 1Q };
mov(8)          g22<1>F         g3.4<0>F                        { align16 1Q };
add(8)          g23<1>F         g21<4>F         -g20<4>F        { align16 1Q };
add(8)          g24<1>F         g22<4>F         -g20<4>F        { align16 1Q };
mad(8)          g25<1>F         g20<4,4,1>F     g1<4,4,1>.xF    g23<4,4,1>F { align16 1Q };
mad(8)          g32<1>F         g25<4,4,1>F     g1<4,4,1>.yF    g24<4,4,1>F { align16 1Q };
mov(8)          g31<1>UD        0x00000000UD                    { align16 1Q };
mov(8)          g33<1>F         g4<0>F                          { align16 1Q };
mov(8)          g30<1>UD        g0<4>UD                         { align16 WE_all 1Q };
or(1)           g30.5<1>UD      g0.5<0,1,0>UD   0x0000ff00UD    { align1 WE_all 1N };
send(8)         null<1>F        g30<4>F         0x8808c000
                            urb MsgDesc: offset 0 write HWord interleave complete mlen 4 rlen 0 { align16 1Q EOT };";

fn with_tessellation(
    st: &mut State,
    mem: &mut AddressSpace,
    output: three_d_state_te::OutputTopology,
) {
    mem.load(
        INSTRUCTION_BASE + HS_KERNEL,
        &assemble(HS, Compaction::Never).unwrap(),
    );
    mem.load(
        INSTRUCTION_BASE + DS_KERNEL,
        &assemble(DS, Compaction::Never).unwrap(),
    );
    st.commands.insert(
        "3DSTATE_HS",
        ThreeDStateHs {
            hs_enable: true,
            hs_statistics_enable: true,
            instance_count: 1,
            kernel_start_pointer: HS_KERNEL,
            include_vertex_handles: true,
            dispatch_grf_start_register_for_urb_data: 2,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    st.commands.insert(
        "3DSTATE_TE",
        ThreeDStateTe {
            te_enable: true,
            domain: three_d_state_te::Domain::QUAD,
            output_topology: output,
            partitioning: three_d_state_te::Partitioning::INTEGER,
            max_tess_factor_odd: 63.0,
            max_tess_factor_not_odd: 64.0,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    st.commands.insert(
        "3DSTATE_DS",
        ThreeDStateDs {
            ds_function_enable: true,
            statistics_enable: true,
            compute_w_coordinate_enable: true,
            kernel_start_pointer: DS_KERNEL,
            dispatch_grf_start_register_for_urb_data: 2,
            patch_urb_entry_read_offset: 1,
            patch_urb_entry_read_length: 3,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
}

fn v(x: f32, y: f32, c: [f32; 4]) -> [f32; 6] {
    [x, y, c[0], c[1], c[2], c[3]]
}

/// A PATCHLIST_4 patch over the square [2, 14) x [2, 14): the HS copies its corners, the
/// TE makes the domain's two triangles, the DS maps them onto the square: exactly its
/// 144 pixels lit in the patch's colour, each once. HS_INVOCATION_COUNT 1 (one patch),
/// DS_INVOCATION_COUNT 4 (its four domain points).
#[test]
fn a_patch_with_unit_factors_covers_its_quad() {
    let corners = [
        v(2.0, 2.0, TEAL),
        v(14.0, 2.0, TEAL),
        v(14.0, 14.0, TEAL),
        v(2.0, 14.0, TEAL),
    ];
    for output in [
        three_d_state_te::OutputTopology::TRI_CW,
        three_d_state_te::OutputTopology::TRI_CCW,
    ] {
        let (mut st, mut mem) = setup(&corners, PS_FLAT_SIMD16, false, None, true);
        with_tessellation(&mut st, &mut mem, output);
        let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_PATCHLIST_4, 4)).unwrap();
        let want = TEAL.map(|c| (c * 255.0).round() as u8);
        for y in 0..W {
            for x in 0..W {
                let inside = (2..14).contains(&x) && (2..14).contains(&y);
                assert_eq!(
                    pixel(&mem, x, y),
                    if inside { want } else { [0; 4] },
                    "({x}, {y}) {output:?}"
                );
            }
        }
        assert_eq!(stats.ps_depth_count, 144);
        assert_eq!((stats.hs_invocations, stats.ds_invocations), (1, 4));
        assert_eq!((stats.ia_vertices, stats.ia_primitives), (4, 1));
    }
}

/// Seed 004 §5.5: a zero outside factor culls the patch (nothing drawn, the HS still
/// ran); factors of 2 divide it; HS, TE and DS not enabled together, or a
/// topology other than a patch list, are reported.
#[test]
fn culling_divided_factors_and_invalid_state() {
    let corners = [
        v(2.0, 2.0, TEAL),
        v(14.0, 2.0, TEAL),
        v(14.0, 14.0, TEAL),
        v(2.0, 14.0, TEAL),
    ];
    let draw = |hs: &str| {
        let (mut st, mut mem) = setup(&corners, PS_FLAT_SIMD16, false, None, true);
        with_tessellation(&mut st, &mut mem, three_d_state_te::OutputTopology::TRI_CW);
        mem.load(
            INSTRUCTION_BASE + HS_KERNEL,
            &assemble(hs, Compaction::Never).unwrap(),
        );
        let r = run(&st, &mut mem, &primitive(T::_3DPRIM_PATCHLIST_4, 4));
        (r, pixel(&mem, 8, 8))
    };
    // The outside factors (g13 dwords 4-7) zero: culled.
    let culled = HS.replace(
        "mov(8)          g13<1>F         0x3f800000F ",
        "mov(8)          g13<1>F         0x00000000F ",
    );
    let (r, p) = draw(&culled);
    let stats = r.unwrap();
    assert_eq!((stats.hs_invocations, stats.ds_invocations), (1, 0));
    assert_eq!(p, [0; 4]);
    // Factors of 1: the square undivided; of 2 (INTEGER): a 3x3 grid of domain points
    // (§5.3 "a regular grid"), nine DS invocations, the same pixels.
    let (r, one) = draw(HS);
    let undivided = r.unwrap();
    assert_eq!(undivided.ds_invocations, 4);
    let two = HS.replace(
        "mov(8)          g13<1>F         0x3f800000F ",
        "mov(8)          g13<1>F         0x40000000F ",
    );
    let (r, p) = draw(&two);
    let stats = r.unwrap();
    assert_eq!((stats.hs_invocations, stats.ds_invocations), (1, 9));
    assert_eq!(p, one);
    assert_eq!(stats.ps_depth_count, undivided.ps_depth_count);
    // Only the HS enabled.
    let (mut st, mut mem) = setup(&corners, PS_FLAT_SIMD16, false, None, true);
    with_tessellation(&mut st, &mut mem, three_d_state_te::OutputTopology::TRI_CW);
    st.commands
        .insert("3DSTATE_DS", ThreeDStateDs::default().pack().unwrap());
    let e = run(&st, &mut mem, &primitive(T::_3DPRIM_PATCHLIST_4, 4)).unwrap_err();
    assert!(
        e.to_string().contains("enabled and disabled together"),
        "{e}"
    );
    // A triangle list with tessellation enabled.
    let (mut st, mut mem) = setup(&corners, PS_FLAT_SIMD16, false, None, true);
    with_tessellation(&mut st, &mut mem, three_d_state_te::OutputTopology::TRI_CW);
    let e = run(&st, &mut mem, &primitive(T::_3DPRIM_TRILIST, 3)).unwrap_err();
    assert!(e.to_string().contains("only PATCHLIST"), "{e}");
    // A barrier that only one of the two instances reaches: the draw ends with an
    // error, not a hang of the host.
    let alone = HS.replace(
        "mov(1)          g17.2<1>UD      0x00008400UD ",
        "mov(1)          g17.2<1>UD      0x00008600UD ",
    );
    let e = draw(&alone).0.unwrap_err();
    assert!(e.to_string().contains("wait for ever"), "{e}");
}

/// A GS after the DS (seed 004 ch.6-7): the DS's output for the patch, the TE's
/// TRILIST, is the GS's input; a DUAL_OBJECT pass-through GS gets the two triangles in
/// one thread and the square is drawn as without it.
#[test]
fn a_gs_takes_the_domain_shaders_triangles() {
    let corners = [
        v(2.0, 2.0, TEAL),
        v(14.0, 2.0, TEAL),
        v(14.0, 14.0, TEAL),
        v(2.0, 14.0, TEAL),
    ];
    let (mut st, mut mem) = setup(&corners, PS_FLAT_SIMD16, false, None, true);
    with_tessellation(&mut st, &mut mem, three_d_state_te::OutputTopology::TRI_CW);
    mem.load(
        INSTRUCTION_BASE + 0x1000,
        &assemble(GS_PASS_DUAL_OBJECT, Compaction::Never).unwrap(),
    );
    st.commands.insert(
        "3DSTATE_GS",
        ThreeDStateGs {
            gs_enable: true,
            gs_statistics_enable: true,
            kernel_start_pointer: 0x1000,
            dispatch_mode: three_d_state_gs::DispatchMode::DUAL_OBJECT,
            output_vertex_size: 3,
            output_topology: T::_3DPRIM_TRISTRIP,
            vertex_urb_entry_read_length: 2,
            dispatch_grf_start_register_for_urb_data: 1,
            reorder_enable: true,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_PATCHLIST_4, 4)).unwrap();
    assert_eq!(stats.ps_depth_count, 144);
    assert_eq!(pixel(&mem, 8, 8), TEAL.map(|c| (c * 255.0).round() as u8));
    assert_eq!((stats.gs_invocations, stats.gs_primitives), (2, 2));
    assert_eq!(stats.ds_invocations, 4);
}
