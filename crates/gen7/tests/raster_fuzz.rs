//! Hostile rasterizer, multisampling and colour calculator state (docs/FUZZING.md):
//! random 3DSTATE_MULTISAMPLE (reserved counts included), 3DSTATE_SAMPLE_MASK, the
//! multisample modes, input coverage and position offset payloads of 3DSTATE_WM and
//! 3DSTATE_PS, oMask and dual source, fill modes, anti-aliased, wide and stippled lines,
//! polygon stipple, render targets of 1, 4 and 8 samples with or without an MCS (its
//! contents random), and BLEND_STATE's alpha coverage, drawn with points, lines,
//! triangles and rectangles. A draw must end with its result or a typed error: never a
//! panic.
//!
//! `GTSIM_FUZZ_CASES` sets the number of draws (default 300), `GTSIM_FUZZ_SEED` the seed.

mod common;

use common::*;
use gtsim_fuzzkit::{Rng, cases, env_u64};
use gtsim_spec::gen7::*;
use gtsim_spec::shared::ThreeDPrimTopoType as T;

/// Where the fuzz puts a render target's MCS.
const MCS: u64 = 0x60000;

#[test]
fn hostile_multisample_and_raster_state_ends_in_a_result_or_an_error() {
    let seed = env_u64("GTSIM_FUZZ_SEED", 0x6d73_6161);
    let mut r = Rng::new(seed);
    let (mut ok, mut errors) = (0, 0);
    for case in 0..cases(300) {
        let n = 1 + r.below(12);
        let verts: Vec<[f32; 6]> = (0..n)
            .map(|_| {
                let c = |r: &mut Rng| (r.below(96) as f32) / 4.0 - 4.0;
                [
                    c(&mut r),
                    c(&mut r),
                    1.0,
                    0.5,
                    0.25,
                    (r.below(5) as f32) / 4.0,
                ]
            })
            .collect();
        let simd8 = r.below(2) == 0;
        let ps = if simd8 { PS_PLN_SIMD8 } else { PS_FLAT_SIMD16 };
        let (mut st, mut mem) = setup(&verts, ps, simd8, None, !simd8);
        // Room for the samples of an 8x target and a random MCS.
        mem.load(RT, &vec![0u8; 0x20000]);
        let mcs: Vec<u8> = (0..0x1000).map(|_| r.below(256) as u8).collect();
        mem.load(MCS, &mcs);
        let samples = [0u32, 2, 3, 2, 3, 0, 2, 1, 5][r.below(9)];
        st.commands.insert(
            "3DSTATE_MULTISAMPLE",
            ThreeDStateMultisample {
                number_of_multisamples: three_d_state_multisample::NumberOfMultisamples(samples),
                pixel_location: three_d_state_multisample::PixelLocation(r.below(2) as u32),
                sample0_x_offset: r.below(16) as f64 / 16.0,
                sample0_y_offset: r.below(16) as f64 / 16.0,
                sample1_x_offset: r.below(16) as f64 / 16.0,
                sample1_y_offset: r.below(16) as f64 / 16.0,
                sample2_x_offset: r.below(16) as f64 / 16.0,
                sample3_y_offset: r.below(16) as f64 / 16.0,
                sample5_x_offset: r.below(16) as f64 / 16.0,
                sample7_y_offset: r.below(16) as f64 / 16.0,
                ..Default::default()
            }
            .pack()
            .unwrap(),
        );
        if r.below(2) == 0 {
            st.commands.insert(
                "3DSTATE_SAMPLE_MASK",
                ThreeDStateSampleMask {
                    sample_mask: r.below(256) as u8,
                }
                .pack()
                .unwrap(),
            );
        }
        let mut wm = ThreeDStateWm::unpack(&st.commands["3DSTATE_WM"]).unwrap();
        // PATTERN modes need more than one sample (seed 004 §11.4.2): mostly obeyed.
        let raster_mode = r.below(4) as u32;
        wm.multisample_rasterization_mode =
            three_d_state_wm::MultisampleRasterizationMode(if samples == 0 && r.below(4) != 0 {
                raster_mode & 2
            } else {
                raster_mode
            });
        wm.multisample_dispatch_mode = three_d_state_wm::MultisampleDispatchMode(r.below(2) as u32);
        wm.pixel_shader_uses_input_coverage_mask = r.below(2) == 0;
        wm.line_stipple_enable = r.below(3) == 0;
        wm.polygon_stipple_enable = r.below(3) == 0;
        let extra_phases = r.below(3) == 0;
        if extra_phases {
            wm.barycentric_interpolation_mode |= r.below(64) as u8;
        }
        wm.pixel_shader_kill_pixel = r.below(4) == 0;
        wm.line_antialiasing_region_width =
            three_d_state_wm::LineAntialiasingRegionWidth(r.below(4) as u32);
        st.commands.insert("3DSTATE_WM", wm.pack().unwrap());
        let mut ps_state = ThreeDStatePs::unpack(&st.commands["3DSTATE_PS"]).unwrap();
        ps_state.o_mask_present_to_render_target = r.below(4) == 0;
        ps_state.dual_source_blend_enable = r.below(4) == 0;
        ps_state.position_xy_offset_select =
            three_d_state_ps::PositionXyOffsetSelect(r.below(4) as u32);
        // Extra payload phases move the constant and setup data up (the kernel then
        // reads other registers, which changes nothing for the fuzz).
        if extra_phases
            || wm.pixel_shader_uses_input_coverage_mask
            || ps_state.position_xy_offset_select.0 != 0
        {
            ps_state.dispatch_grf_start_register_for_constant_setup_data_0 = 40;
        }
        st.commands.insert("3DSTATE_PS", ps_state.pack().unwrap());
        let mut sf = ThreeDStateSf::unpack(&st.commands["3DSTATE_SF"]).unwrap();
        sf.front_face_fill_mode = three_d_state_sf::FrontFaceFillMode([0, 0, 1, 2, 3][r.below(5)]);
        sf.back_face_fill_mode = three_d_state_sf::BackFaceFillMode([0, 0, 1, 2][r.below(4)]);
        sf.anti_aliasing_enable = r.below(2) == 0;
        sf.line_width = [0.0, 1.0, 2.5, 7.75][r.below(4)];
        sf.line_end_cap_antialiasing_region_width =
            three_d_state_sf::LineEndCapAntialiasingRegionWidth(r.below(4) as u32);
        sf.global_depth_offset_enable_wireframe = r.below(2) == 0;
        sf.global_depth_offset_constant = r.below(8) as f32;
        sf.use_point_width_state = three_d_state_sf::UsePointWidthState(r.below(2) as u32);
        sf.point_width = [0.125, 1.0, 3.5, 40.0][r.below(4)];
        st.commands.insert("3DSTATE_SF", sf.pack().unwrap());
        if r.below(2) == 0 {
            let mut dw = [0u32; 34];
            dw[0] = 0x7907_0000 | 31;
            for d in &mut dw[1..33] {
                *d = r.next_u64() as u32;
            }
            st.commands
                .insert("3DSTATE_POLY_STIPPLE_PATTERN", dw[..33].to_vec());
            st.commands.insert(
                "3DSTATE_POLY_STIPPLE_OFFSET",
                vec![0x7906_0000, r.next_u64() as u32 & 0x1f1f],
            );
            st.commands.insert(
                "3DSTATE_LINE_STIPPLE",
                vec![
                    0x7908_0001,
                    r.next_u64() as u32 & 0xffff,
                    r.below(300) as u32,
                ],
            );
        }
        // The render target: 1, 4 or 8 samples, array or interleaved, maybe an MCS.
        let mut rss =
            RenderSurfaceState::unpack(&read_dwords(&mem, SURFACE_BASE + 0x200, 8)).unwrap();
        // Mostly the draw's own count (seed 004 §11.4.1 requires them to match).
        rss.number_of_multisamples = render_surface_state::NumberOfMultisamples(
            if r.below(3) != 0 && samples != 1 && samples != 5 {
                samples
            } else {
                [0, 2, 3][r.below(3)]
            },
        );
        rss.multisampled_surface_storage_format =
            render_surface_state::MultisampledSurfaceStorageFormat(r.below(2) as u32);
        rss.mcs_enable = r.below(2) == 0;
        rss.mcs_base_address = MCS;
        rss.mcs_surface_pitch = r.below(4) as u16;
        rss.red_clear_color = render_surface_state::RedClearColor(r.below(2) as u32);
        mem.load(SURFACE_BASE + 0x200, &bytes(&rss.pack().unwrap()));
        // BLEND_STATE: random alpha coverage and write bits, no blend/logic-op clash.
        let mut blend = [0u32; 2];
        blend[1] = (r.next_u64() as u32) & 0xf800_0000;
        mem.load(SURFACE_BASE + 0x300, &bytes(&blend));
        let topo = [
            T::_3DPRIM_TRILIST,
            T::_3DPRIM_TRISTRIP,
            T::_3DPRIM_LINELIST,
            T::_3DPRIM_LINESTRIP,
            T::_3DPRIM_POINTLIST,
            T::_3DPRIM_RECTLIST,
        ][r.below(6)];
        match run(&st, &mut mem, &primitive(topo, n as u32)) {
            Ok(_) => ok += 1,
            Err(e) => {
                if std::env::var_os("GTSIM_FUZZ_VERBOSE").is_some() {
                    eprintln!("case {case}: {e}");
                }
                errors += 1
            }
        }
        let _ = case;
    }
    eprintln!("raster fuzz: {ok} draws completed, {errors} ended in a typed error");
    // Both outcomes are reached, as the sibling harnesses check: the hostile state
    // neither always draws nor always fails.
    assert!(
        ok > 0 && errors > 0,
        "raster fuzz: {ok} completed, {errors} errors: one outcome was never reached"
    );
}

/// `n` dwords of memory at `addr`.
fn read_dwords(mem: &gtsim_mem::AddressSpace, addr: u64, n: usize) -> Vec<u32> {
    let mut b = vec![0u8; n * 4];
    mem.read(addr, &mut b).unwrap();
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
