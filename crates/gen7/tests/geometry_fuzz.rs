//! Hostile GS and stream output state and GS kernels (docs/FUZZING.md): random
//! 3DSTATE_GS, 3DSTATE_STREAMOUT, SO_DECL_LIST and SO_BUFFER fields, random Write
//! Offsets, and GS kernels whose URB writes carry random offsets, masks and vertex
//! counts, drawn with every topology. A draw must end with its result or a typed error:
//! never a panic, never unbounded memory (URB entries are capped at the largest entry,
//! output vertex counts by the entry and the control data header).
//!
//! `GTSIM_FUZZ_CASES` sets the number of draws (default 300), `GTSIM_FUZZ_SEED` the seed.

mod common;

use common::*;
use gtsim_fuzzkit::{Rng, cases, env_u64};
use gtsim_spec::gen7::*;
use gtsim_spec::shared::ThreeDPrimTopoType;

const GS_KERNEL: u64 = 0x800;
const SOB: u64 = 0x50000;

fn pick<T: Copy>(r: &mut Rng, xs: &[T]) -> T {
    xs[r.below(xs.len())]
}

/// One of `xs`, or (as often as each of them) a random value below `n`.
fn pick_or(r: &mut Rng, xs: &[u32], n: usize) -> u32 {
    let any = r.below(n) as u32;
    let i = r.below(xs.len() + 1);
    xs.get(i).copied().unwrap_or(any)
}

/// A value near the edges a guest might probe: small, at a field's limit, or random.
fn edgy(r: &mut Rng) -> u32 {
    match r.below(4) {
        0 => r.below(8) as u32,
        1 => pick(r, &[0xff, 0x100, 0xffff, 0x1_0000, 0x7fff_ffff, u32::MAX]),
        2 => r.below(1 << 12) as u32,
        _ => r.next_u64() as u32,
    }
}

/// A GS kernel of random URB writes (HWord with per-slot offsets, OWord, with random
/// offsets, lengths and channel masks) ending in an EOT write with random vertex counts,
/// or in an EOT to the null shared function.
fn kernel(r: &mut Rng) -> String {
    let mut k = String::from(
        "mov(8)          g20<1>UD        g0<8,8,1>UD                     { align1 WE_all 1Q };
mov(8)          g21<1>F         g1<4>F                          { align16 1Q };
mov(8)          g22<1>F         g1.4<0>F                        { align16 1Q };
mov(8)          g23<1>F         g2<4>F                          { align16 1Q };
mov(8)          g24<1>F         g2<4>F                          { align16 1Q };
",
    );
    for _ in 0..r.below(6) {
        k += &format!(
            "mov(1)          g20.3<1>UD      0x{:08x}UD                    {{ align1 WE_all 1N }};
mov(1)          g20.4<1>UD      0x{:08x}UD                    {{ align1 WE_all 1N }};
mov(1)          g20.5<1>UD      0x{:08x}UD                    {{ align1 WE_all 1N }};
",
            edgy(r),
            edgy(r),
            (r.below(256) as u32) << 8
        );
        let mlen = 2 + r.below(4) as u32;
        let opcode = r.below(2) as u32; // write HWord or OWord
        let per_slot = r.below(2) as u32;
        let offset = r.below(1 << 11) as u32;
        let desc = (mlen << 25) | (1 << 19) | (per_slot << 16) | (1 << 14) | (offset << 3) | opcode;
        k += &format!(
            "send(8)         null<1>F        g20<4>F         0x{desc:08x}
                            urb MsgDesc: {{ align16 1Q }};
"
        );
    }
    if r.below(8) == 0 {
        k += "send(8)         null<1>F        g20<4>F         0x02000000
                            null MsgDesc: { align16 1Q EOT };";
    } else {
        k += &format!(
            "mov(8)          g20<1>UD        g0<8,8,1>UD                     {{ align1 WE_all 1Q }};
mov(1)          g20.2<1>UD      0x{:08x}UD                    {{ align1 WE_all 1N }};
send(8)         null<1>F        g20<4>F         0x0208c000
                            urb MsgDesc: {{ align16 1Q EOT }};",
            edgy(r)
        );
    }
    k
}

fn gs_state(r: &mut Rng) -> ThreeDStateGs {
    ThreeDStateGs {
        gs_enable: true,
        kernel_start_pointer: GS_KERNEL,
        output_vertex_size: pick_or(r, &[1, 3, 3, 5, 0, 62], 64) as u8,
        output_topology: ThreeDPrimTopoType(pick_or(r, &[1, 3, 5, 5, 6], 0x40)),
        vertex_urb_entry_read_length: pick_or(r, &[1, 2, 2], 64) as u8,
        vertex_urb_entry_read_offset: pick_or(r, &[0, 0], 64) as u8,
        dispatch_grf_start_register_for_urb_data: pick_or(r, &[1, 2], 16) as u8,
        include_vertex_handles: r.below(16) == 0,
        control_data_format: three_d_state_gs::ControlDataFormat(r.below(2) as u32),
        control_data_header_size: r.below(16) as u8,
        instance_control: pick(r, &[0, 0, 1, 2, 31]),
        default_stream_id: r.below(4) as u8,
        dispatch_mode: three_d_state_gs::DispatchMode(r.below(4) as u32),
        gs_statistics_enable: r.below(2) == 0,
        gs_invocations_increment_value: r.below(32) as u8,
        include_primitive_id: r.below(2) == 0,
        reorder_enable: r.below(2) == 0,
        discard_adjacency: r.below(2) == 0,
        ..Default::default()
    }
}

fn decl(r: &mut Rng) -> SoDecl {
    SoDecl {
        output_buffer_slot: r.below(4) as u8,
        hole_flag: r.below(4) == 0,
        register_index: r.below(64) as u8,
        component_mask: r.below(16) as u8,
    }
}

#[test]
fn hostile_gs_and_stream_output_end_in_a_result_or_an_error() {
    let seed = env_u64("GTSIM_FUZZ_SEED", 0x65_6f6d);
    let mut r = Rng::new(seed);
    let (mut ok, mut errors) = (0, 0);
    for case in 0..cases(300) {
        let n = r.below(40);
        let verts: Vec<[f32; 6]> = (0..n)
            .map(|_| {
                let c = |r: &mut Rng| (r.below(64) as f32) / 4.0 - 8.0;
                [c(&mut r), c(&mut r), 1.0, 0.5, 0.25, 1.0]
            })
            .collect();
        let (mut st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
        let text = kernel(&mut r);
        let code = gtsim_isa::asm::assemble(&text, gtsim_isa::asm::Compaction::Never)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{text}"));
        mem.load(INSTRUCTION_BASE + GS_KERNEL, &code);
        if r.below(5) != 0 {
            st.commands
                .insert("3DSTATE_GS", gs_state(&mut r).pack().unwrap());
        }
        if r.below(2) == 0 {
            mem.load(SOB, &[0u8; 4096]);
            st.registers.insert(
                SoWriteOffset0::OFFSET + 4 * r.below(4) as u32,
                edgy(&mut r) & !3,
            );
            st.commands.insert(
                "3DSTATE_STREAMOUT",
                ThreeDStateStreamout {
                    so_function_enable: r.below(4) != 0,
                    rendering_disable: r.below(4) == 0,
                    render_stream_select: r.below(4) as u8,
                    reorder_mode: three_d_state_streamout::ReorderMode(r.below(2) as u32),
                    so_statistics_enable: true,
                    so_buffer_enable_0: r.below(4) != 0,
                    so_buffer_enable_1: r.below(2) == 0,
                    stream_0_vertex_read_length: r.below(32) as u8,
                    stream_0_vertex_read_offset: r.below(2) as u8,
                    stream_1_vertex_read_length: r.below(32) as u8,
                    ..Default::default()
                }
                .pack()
                .unwrap(),
            );
            let entries: Vec<SoDeclEntry> = (0..r.below(6))
                .map(|_| SoDeclEntry {
                    stream_0_decl: decl(&mut r),
                    stream_1_decl: decl(&mut r),
                    stream_2_decl: decl(&mut r),
                    stream_3_decl: decl(&mut r),
                })
                .collect();
            let count = |r: &mut Rng| pick(r, &[0, 1, entries.len() as u8, 200]);
            let list = ThreeDStateSoDeclList {
                stream_to_buffer_selects_0: r.below(16) as u8,
                stream_to_buffer_selects_1: r.below(16) as u8,
                num_entries_0: count(&mut r),
                num_entries_1: count(&mut r),
                so_decl_entries: entries.clone(),
                ..Default::default()
            };
            st.commands
                .insert("3DSTATE_SO_DECL_LIST", list.pack().unwrap());
            for b in 0..2u8 {
                let base = pick(&mut r, &[SOB, SOB + 4096, 0xffff_f000, 0]);
                let sob = ThreeDStateSoBuffer {
                    so_buffer_index: b,
                    surface_pitch: pick(&mut r, &[0, 4, 16, 2048, 4095, 3]),
                    surface_base_address: base,
                    surface_end_address: base.wrapping_add(u64::from(edgy(&mut r))) & 0xffff_fffc,
                    ..Default::default()
                };
                st.commands.insert("3DSTATE_SO_BUFFER", sob.pack().unwrap());
            }
        }
        let topology = if r.below(4) == 0 {
            ThreeDPrimTopoType(r.below(0x40) as u32)
        } else {
            ThreeDPrimTopoType(pick(
                &mut r,
                &[1, 2, 3, 4, 5, 6, 0xa, 0xb, 0xc, 0xd, 0x0f, 0x21, 0x23],
            ))
        };
        match run(&st, &mut mem, &primitive(topology, n as u32)) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(!e.to_string().is_empty());
                if std::env::var_os("GTSIM_FUZZ_LOG").is_some() {
                    eprintln!("case {case}: {e}");
                }
                errors += 1;
            }
        }
    }
    eprintln!("GS/SO fuzz (seed {seed:#x}): {ok} draws completed, {errors} typed errors");
    assert!(ok > 0 && errors > 0, "both outcomes are reached");
}

/// A random HS kernel: URB reads and writes with random handles, offsets and kinds,
/// gateway barriers with random counts, `wait`s, random tessellation factors written to
/// the patch header, and an EOT.
fn hull_kernel(r: &mut Rng) -> String {
    let mut k = String::from(
        "mov(8)          g10<1>UD        0x00000000UD                    { align1 WE_all 1Q };
mov(1)          g10.5<1>UD      0x0000ff00UD                    { align1 WE_all 1N };
",
    );
    for _ in 0..r.below(8) {
        match r.below(5) {
            0 | 1 => {
                let desc = pick(
                    r,
                    &[
                        0x0218_400b,
                        0x0218_4013,
                        0x0219_4013,
                        0x0208_c003,
                        0x0428_400a,
                    ],
                );
                k += &format!(
                    "mov(1)          g10<1>UD        0x{:08x}UD                    {{ align1 WE_all 1N }};
mov(1)          g10.3<1>UD      0x{:08x}UD                    {{ align1 WE_all 1N }};
send(8)         g13<1>UD        g10<4>UD        0x{desc:08x}
                            urb MsgDesc: {{ align16 1Q }};
",
                    r.below(8),
                    edgy(r)
                );
            }
            2 => {
                let factor: u32 = pick(
                    r,
                    &[
                        0x3f80_0000,
                        0,
                        0x4000_0000,
                        0x4281_0000,
                        0x7fc0_0000,
                        0xbf80_0000,
                    ],
                );
                k += &format!(
                    "mov(8)          g13<1>UD        0x{factor:08x}UD                    {{ align1 WE_all 1Q }};
mov(1)          g10<1>UD        g0<0,1,0>UD                     {{ align1 WE_all 1N }};
mov(1)          g10.1<1>UD      g0<0,1,0>UD                     {{ align1 WE_all 1N }};
mov(1)          g10.3<1>UD      0x00000000UD                    {{ align1 WE_all 1N }};
mov(1)          g10.4<1>UD      0x00000001UD                    {{ align1 WE_all 1N }};
send(8)         null<1>F        g10<4>UD        0x04094001
                            urb MsgDesc: {{ align16 1Q }};
"
                );
            }
            3 => {
                k += &format!(
                    "mov(8)          g17<1>UD        0x00000000UD                    {{ align1 WE_all 1Q }};
mov(1)          g17.2<1>UD      0x{:08x}UD                    {{ align1 WE_all 1N }};
send(8)         null<1>UW       g17<4,4,1>UD    0x02000004
                            gateway MsgDesc: {{ align1 WE_all 1Q }};
",
                    (1 << 15) | ((r.below(4) as u32) << 9)
                );
            }
            _ => {
                k += "wait(1)         n0<1>.xUD                                       { align16 WE_all 1N };\n";
            }
        }
    }
    k += "mov(8)          g126<1>UD       g0<8,8,1>UD                     { align1 WE_all 1Q };
send(8)         null<1>F        g126<4>F        0x84080001
                            urb MsgDesc: { align16 1Q EOT };";
    k
}

#[test]
fn hostile_tessellation_ends_in_a_result_or_an_error() {
    let seed = env_u64("GTSIM_FUZZ_SEED", 0x7465_7373);
    let mut r = Rng::new(seed);
    let (mut ok, mut errors) = (0, 0);
    const HS_KERNEL: u64 = 0x1000;
    const DS_KERNEL: u64 = 0x1400;
    // A DS that writes its point's (u, v) as the position.
    const DS: &str = "mov(8)          g21<1>F         g1<4>F                          { align16 1Q };
mov(8)          g20<1>UD        g0<4>UD                         { align16 WE_all 1Q };
or(1)           g20.5<1>UD      g0.5<0,1,0>UD   0x0000ff00UD    { align1 WE_all 1N };
send(8)         null<1>F        g20<4>F         0x0608c000
                            urb MsgDesc: offset 0 write HWord interleave complete mlen 3 rlen 0 { align16 1Q EOT };";
    for case in 0..cases(200) {
        let n = r.below(12);
        let verts: Vec<[f32; 6]> = (0..n)
            .map(|i| [i as f32, (i * 3 % 16) as f32, 1.0, 0.5, 0.25, 1.0])
            .collect();
        let (mut st, mut mem) = setup(&verts, PS_FLAT_SIMD16, false, None, true);
        let text = hull_kernel(&mut r);
        let code = gtsim_isa::asm::assemble(&text, gtsim_isa::asm::Compaction::Never)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{text}"));
        mem.load(INSTRUCTION_BASE + HS_KERNEL, &code);
        mem.load(
            INSTRUCTION_BASE + DS_KERNEL,
            &gtsim_isa::asm::assemble(DS, gtsim_isa::asm::Compaction::Never).unwrap(),
        );
        let all = r.below(6) != 0;
        st.commands.insert(
            "3DSTATE_HS",
            ThreeDStateHs {
                hs_enable: all || r.below(2) == 0,
                instance_count: pick(&mut r, &[0, 1, 1, 3, 15]),
                kernel_start_pointer: HS_KERNEL,
                include_vertex_handles: r.below(4) != 0,
                dispatch_grf_start_register_for_urb_data: pick_or(&mut r, &[2, 3], 16) as u8,
                vertex_urb_entry_read_length: pick_or(&mut r, &[0, 0, 1], 64) as u8,
                hs_statistics_enable: true,
                ..Default::default()
            }
            .pack()
            .unwrap(),
        );
        st.commands.insert(
            "3DSTATE_TE",
            ThreeDStateTe {
                te_enable: all || r.below(2) == 0,
                te_mode: three_d_state_te::TeMode(pick(&mut r, &[0, 0, 0, 1])),
                domain: three_d_state_te::Domain(r.below(4) as u32),
                output_topology: three_d_state_te::OutputTopology(r.below(4) as u32),
                partitioning: three_d_state_te::Partitioning(r.below(4) as u32),
                max_tess_factor_odd: pick(&mut r, &[63.0, 0.0, f32::NAN]),
                max_tess_factor_not_odd: pick(&mut r, &[64.0, 0.5, f32::INFINITY]),
            }
            .pack()
            .unwrap(),
        );
        st.commands.insert(
            "3DSTATE_DS",
            ThreeDStateDs {
                ds_function_enable: all || r.below(2) == 0,
                kernel_start_pointer: DS_KERNEL,
                single_domain_point_dispatch: three_d_state_ds::SingleDomainPointDispatch(
                    r.below(2) as u32,
                ),
                compute_w_coordinate_enable: r.below(2) == 0,
                dispatch_grf_start_register_for_urb_data: pick_or(&mut r, &[2, 2], 16) as u8,
                patch_urb_entry_read_offset: pick_or(&mut r, &[0, 1], 64) as u8,
                patch_urb_entry_read_length: pick_or(&mut r, &[1, 3], 64) as u8,
                statistics_enable: true,
                ..Default::default()
            }
            .pack()
            .unwrap(),
        );
        let topology = ThreeDPrimTopoType(pick(&mut r, &[0x20, 0x22, 0x23, 0x23, 0x3f, 4]));
        match run(&st, &mut mem, &primitive(topology, n as u32)) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(!e.to_string().is_empty());
                if std::env::var_os("GTSIM_FUZZ_LOG").is_some() {
                    eprintln!("case {case}: {e}");
                }
                errors += 1;
            }
        }
    }
    eprintln!("tessellation fuzz (seed {seed:#x}): {ok} draws completed, {errors} typed errors");
    assert!(ok > 0 && errors > 0, "both outcomes are reached");
}
