//! Whole draws through the SO function of the SOL stage (seed 004 ch.8): 3DSTATE_STREAMOUT,
//! 3DSTATE_SO_DECL_LIST and 3DSTATE_SO_BUFFER packed by hand, the buffer contents, the
//! Write Offsets and the statistics worked out from the seed's rules.

mod common;

use common::*;
use gtsim_mem::AddressSpace;
use gtsim_spec::gen7::*;
use gtsim_spec::shared::ThreeDPrimTopoType as T;

const SOB: u64 = 0x50000;
const PITCH: u16 = 16;
/// Where the draw's Write Offset starts (SO_WRITE_OFFSET0, loaded before the draw).
const START: u32 = 32;
const UNTOUCHED: u32 = 0xdead_beef;

fn v(x: f32, y: f32, r: f32) -> [f32; 6] {
    [x, y, r, 0.0, 0.0, 1.0]
}

fn decl(buffer: u8, hole: bool, register: u8, mask: u8) -> SoDecl {
    SoDecl {
        output_buffer_slot: buffer,
        hole_flag: hole,
        register_index: register,
        component_mask: mask,
    }
}

/// Stream 0 writes, per vertex, the position's x and y (VUE slot 1, mask XY), skips one
/// dword (a hole) and writes the colour's red (slot 2, mask X): 16 bytes a vertex.
fn stream_out(st: &mut State, mem: &mut AddressSpace, end: u64, so: ThreeDStateStreamout) {
    mem.load(SOB, &bytes(&[UNTOUCHED; 256]));
    st.registers.insert(SoWriteOffset0::OFFSET, START);
    st.commands.insert(
        "3DSTATE_STREAMOUT",
        ThreeDStateStreamout {
            so_function_enable: true,
            so_statistics_enable: true,
            so_buffer_enable_0: true,
            // Read slots 0-1 and 2-3 (two 256-bit units).
            stream_0_vertex_read_length: 1,
            ..so
        }
        .pack()
        .unwrap(),
    );
    let entries = [
        decl(0, false, 1, 0x3),
        decl(0, true, 0, 0x1),
        decl(0, false, 2, 0x1),
    ]
    .into_iter()
    .map(|d| SoDeclEntry {
        stream_0_decl: d,
        ..Default::default()
    })
    .collect();
    st.commands.insert(
        "3DSTATE_SO_DECL_LIST",
        ThreeDStateSoDeclList {
            stream_to_buffer_selects_0: 1,
            num_entries_0: 3,
            so_decl_entries: entries,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    st.commands.insert(
        "3DSTATE_SO_BUFFER",
        ThreeDStateSoBuffer {
            so_buffer_index: 0,
            surface_pitch: PITCH,
            surface_base_address: SOB,
            surface_end_address: end,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
}

/// The buffer's dwords from START on, four per vertex.
fn written(mem: &AddressSpace, vertices: usize) -> Vec<[u32; 4]> {
    (0..vertices)
        .map(|i| {
            let mut b = [0u8; 16];
            mem.read(SOB + u64::from(START) + 16 * i as u64, &mut b)
                .unwrap();
            std::array::from_fn(|k| u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap()))
        })
        .collect()
}

fn expect(verts: &[[f32; 6]]) -> Vec<[u32; 4]> {
    verts
        .iter()
        .map(|v| [v[0].to_bits(), v[1].to_bits(), UNTOUCHED, v[2].to_bits()])
        .collect()
}

/// Two triangles: six vertices through the decls, the hole left untouched, the Write
/// Offset moved by the pitch per vertex (32 + 6 x 16 = 128), two primitives written and
/// needed; the triangles are still rendered (stream 0, rendering enabled).
#[test]
fn a_triangle_list_streams_out_every_vertex_through_the_decls() {
    let tris = [
        v(1.0, 1.0, 0.25),
        v(9.0, 1.0, 0.5),
        v(1.0, 9.0, 0.75),
        v(15.0, 15.0, 1.0),
        v(8.0, 15.0, 0.125),
        v(15.0, 8.0, 0.375),
    ];
    let (mut st, mut mem) = setup(&tris, PS_FLAT_SIMD16, false, None, true);
    stream_out(&mut st, &mut mem, SOB + 1024, Default::default());
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_TRILIST, 6)).unwrap();
    assert_eq!(written(&mem, 6), expect(&tris));
    // Nothing before the Write Offset or after the last vertex.
    assert_eq!(written(&mem, 7)[6], [UNTOUCHED; 4]);
    let mut before = [0u8; 4];
    mem.read(SOB + u64::from(START) - 4, &mut before).unwrap();
    assert_eq!(u32::from_le_bytes(before), UNTOUCHED);
    assert_eq!(stats.so_write_offsets, Some([START + 6 * 16, 0, 0, 0]));
    assert_eq!(stats.so_prims_written, [2, 0, 0, 0]);
    assert_eq!(stats.so_prim_storage_needed, [2, 0, 0, 0]);
    assert!(stats.ps_depth_count > 0, "still rendered");
}

/// Seed 004 §8.3: an object that would move the Write Offset past the end address
/// overflows: nothing of it is written, only SO_PRIM_STORAGE_NEEDED counts it.
#[test]
fn an_object_past_the_end_address_overflows() {
    let tris = [
        v(1.0, 1.0, 0.25),
        v(9.0, 1.0, 0.5),
        v(1.0, 9.0, 0.75),
        v(15.0, 15.0, 1.0),
        v(8.0, 15.0, 0.125),
        v(15.0, 8.0, 0.375),
    ];
    let (mut st, mut mem) = setup(&tris, PS_FLAT_SIMD16, false, None, true);
    // Room for one triangle and a half: the second would end at START + 96.
    let end = SOB + u64::from(START) + 48 + 24;
    stream_out(&mut st, &mut mem, end, Default::default());
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_TRILIST, 6)).unwrap();
    let got = written(&mem, 6);
    assert_eq!(got[..3], expect(&tris[..3])[..]);
    assert_eq!(got[3..], [[UNTOUCHED; 4]; 3]);
    assert_eq!(stats.so_write_offsets, Some([START + 48, 0, 0, 0]));
    assert_eq!(stats.so_prims_written, [1, 0, 0, 0]);
    assert_eq!(stats.so_prim_storage_needed, [2, 0, 0, 0]);
    // Exactly enough room: the end address equals the offset after the object.
    let (mut st, mut mem) = setup(&tris, PS_FLAT_SIMD16, false, None, true);
    stream_out(
        &mut st,
        &mut mem,
        SOB + u64::from(START) + 96,
        Default::default(),
    );
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_TRILIST, 6)).unwrap();
    assert_eq!(stats.so_prims_written, [2, 0, 0, 0]);
}

/// Seed 004 §8.1: TRISTRIP objects are streamed out as independent triangles, the odd
/// ones reordered: REORDER.LEADING (1, 3, 2), REORDER.TRAILING (2, 1, 3).
#[test]
fn strip_triangles_are_streamed_out_in_the_reorder_modes_order() {
    let strip = [
        v(1.0, 1.0, 0.0),
        v(1.0, 9.0, 0.125),
        v(9.0, 1.0, 0.25),
        v(9.0, 9.0, 0.375),
    ];
    for (mode, order) in [
        (
            three_d_state_streamout::ReorderMode::REORDER_LEADING,
            [0, 1, 2, 1, 3, 2],
        ),
        (
            three_d_state_streamout::ReorderMode::REORDER_TRAILING,
            [0, 1, 2, 2, 1, 3],
        ),
    ] {
        let (mut st, mut mem) = setup(&strip, PS_FLAT_SIMD16, false, None, true);
        stream_out(
            &mut st,
            &mut mem,
            SOB + 1024,
            ThreeDStateStreamout {
                reorder_mode: mode,
                ..Default::default()
            },
        );
        let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_TRISTRIP, 4)).unwrap();
        let want: Vec<[f32; 6]> = order.iter().map(|&i| strip[i]).collect();
        assert_eq!(written(&mem, 6), expect(&want), "{mode:?}");
        assert_eq!(stats.so_prims_written, [2, 0, 0, 0]);
    }
}

/// Seed 004 §8.7 and §8.3: with Rendering Disable nothing is drawn but the SO function
/// still writes; a stream targeting a buffer whose SO Buffer Enable is clear overflows
/// at once (no writes, storage needed still counted).
#[test]
fn rendering_disable_and_disabled_buffers() {
    let tri = [v(1.0, 1.0, 0.25), v(9.0, 1.0, 0.5), v(1.0, 9.0, 0.75)];
    let (mut st, mut mem) = setup(&tri, PS_FLAT_SIMD16, false, None, true);
    stream_out(
        &mut st,
        &mut mem,
        SOB + 1024,
        ThreeDStateStreamout {
            rendering_disable: true,
            ..Default::default()
        },
    );
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_TRILIST, 3)).unwrap();
    assert_eq!(stats.ps_depth_count, 0);
    assert_eq!(written(&mem, 3), expect(&tri));

    let (mut st, mut mem) = setup(&tri, PS_FLAT_SIMD16, false, None, true);
    stream_out(&mut st, &mut mem, SOB + 1024, Default::default());
    // The same state with buffer 0 disabled.
    let mut so = ThreeDStateStreamout::unpack(&st.commands["3DSTATE_STREAMOUT"]).unwrap();
    so.so_buffer_enable_0 = false;
    st.commands.insert("3DSTATE_STREAMOUT", so.pack().unwrap());
    let stats = run(&st, &mut mem, &primitive(T::_3DPRIM_TRILIST, 3)).unwrap();
    assert_eq!(written(&mem, 3), [[UNTOUCHED; 4]; 3]);
    assert_eq!(stats.so_prims_written, [0; 4]);
    assert_eq!(stats.so_prim_storage_needed, [1, 0, 0, 0]);
    assert_eq!(stats.so_write_offsets, Some([START, 0, 0, 0]));
}

/// More SO_DECLs announced than the command carries is an error, reported.
#[test]
fn a_decl_count_past_the_list_is_an_error() {
    let tri = [v(1.0, 1.0, 0.25), v(9.0, 1.0, 0.5), v(1.0, 9.0, 0.75)];
    let (mut st, mut mem) = setup(&tri, PS_FLAT_SIMD16, false, None, true);
    stream_out(&mut st, &mut mem, SOB + 1024, Default::default());
    let mut list = ThreeDStateSoDeclList::unpack(&st.commands["3DSTATE_SO_DECL_LIST"]).unwrap();
    list.num_entries_0 = 9;
    st.commands
        .insert("3DSTATE_SO_DECL_LIST", list.pack().unwrap());
    let e = run(&st, &mut mem, &primitive(T::_3DPRIM_TRILIST, 3)).unwrap_err();
    assert!(e.to_string().contains("Num Entries [0] is 9"), "{e}");
}

/// Seed 004 §1.3 and §8.1: a QUADLIST reaches the SOL stage as one POLYGON per quad, led
/// by the quad's last vertex, and is streamed out as that polygon's fan: (3, 0, 1) and
/// (3, 1, 2) for the quad (0, 1, 2, 3); a QUADSTRIP's quad k is (2k+3, 2k+2, 2k, 2k+1).
#[test]
fn quads_are_streamed_out_as_the_triangles_of_their_polygons() {
    let quad = [
        v(1.0, 1.0, 0.0),
        v(9.0, 1.0, 0.125),
        v(9.0, 9.0, 0.25),
        v(1.0, 9.0, 0.375),
    ];
    for (topology, order) in [
        (T::_3DPRIM_QUADLIST, [3, 0, 1, 3, 1, 2]),
        (T::_3DPRIM_QUADSTRIP, [3, 2, 0, 3, 0, 1]),
    ] {
        let (mut st, mut mem) = setup(&quad, PS_FLAT_SIMD16, false, None, true);
        stream_out(&mut st, &mut mem, SOB + 1024, Default::default());
        let stats = run(&st, &mut mem, &primitive(topology, 4)).unwrap();
        let want: Vec<[f32; 6]> = order.iter().map(|&i| quad[i]).collect();
        assert_eq!(written(&mem, 6), expect(&want), "{topology:?}");
        assert_eq!(stats.so_prims_written, [2, 0, 0, 0]);
    }
}
