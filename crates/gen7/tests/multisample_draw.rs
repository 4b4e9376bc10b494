//! A multisampled draw end to end (seed 004 §11.4, §11.10.3.1): the input coverage mask
//! the WM puts in the PS payload, worked by hand from the sample pattern.

mod common;

use common::*;
use gtsim_spec::gen7::*;
use gtsim_spec::shared::ThreeDPrimTopoType;

/// SIMD8: red = the slot's input coverage mask (payload g2, R32 renumbered: the only
/// optional phase) / 16, alpha 1.
const PS_COVERAGE: &str = "mov(8)          g124<1>F        g2<8,8,1>UD                     { align1 1Q };
mul(8)          g124<1>F        g124<8,8,1>F    0x3d800000F      /* 0.0625F */ { align1 1Q };
mov(8)          g125<1>F        0x00000000F      /* 0F */        { align1 1Q };
mov(8)          g126<1>F        0x00000000F      /* 0F */        { align1 1Q };
mov(8)          g127<1>F        0x3f800000F      /* 1F */        { align1 1Q };
sendc(8)        null<1>UW       g124<8,8,1>UD   0x88031400
                            render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };";

/// A 4x pattern at (0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75) and the
/// rectangle x in [0, 2.5), y in [0, 16): pixels 0 and 1 cover all four samples (mask
/// 15, red round(15/16 x 255) = 239); pixel 2's samples at x = 2.25 are inside and at
/// 2.75 outside, mask 0b0101 = 5 (red round(79.69) = 80); pixel 3 is not lit. The
/// render target's sample 0 (slice 0) shows it.
#[test]
fn the_input_coverage_mask_is_the_covered_samples() {
    let c = [1.0f32, 1.0, 1.0, 1.0];
    let v = [
        [2.5, 16.0, c[0], c[1], c[2], c[3]],
        [0.0, 16.0, c[0], c[1], c[2], c[3]],
        [0.0, 0.0, c[0], c[1], c[2], c[3]],
    ];
    let (mut st, mut mem) = setup(&v, PS_COVERAGE, true, None, false);
    mem.load(RT, &vec![0u8; 0x10000]);
    st.commands.insert(
        "3DSTATE_MULTISAMPLE",
        ThreeDStateMultisample {
            number_of_multisamples: three_d_state_multisample::NumberOfMultisamples::NUMSAMPLES_4,
            sample0_x_offset: 0.25,
            sample0_y_offset: 0.25,
            sample1_x_offset: 0.75,
            sample1_y_offset: 0.25,
            sample2_x_offset: 0.25,
            sample2_y_offset: 0.75,
            sample3_x_offset: 0.75,
            sample3_y_offset: 0.75,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    let mut wm = ThreeDStateWm::unpack(&st.commands["3DSTATE_WM"]).unwrap();
    wm.multisample_rasterization_mode =
        three_d_state_wm::MultisampleRasterizationMode::MSRASTMODE_ON_PATTERN;
    wm.multisample_dispatch_mode = three_d_state_wm::MultisampleDispatchMode::MSDISPMODE_PERPIXEL;
    wm.pixel_shader_uses_input_coverage_mask = true;
    wm.barycentric_interpolation_mode = 0;
    st.commands.insert("3DSTATE_WM", wm.pack().unwrap());
    let mut ps = ThreeDStatePs::unpack(&st.commands["3DSTATE_PS"]).unwrap();
    ps.attribute_enable = false;
    ps.dispatch_grf_start_register_for_constant_setup_data_0 = 3;
    st.commands.insert("3DSTATE_PS", ps.pack().unwrap());
    // The render target: 4 samples, array layout.
    let mut b = vec![0u8; 32];
    gtsim_mem::Memory::read(&mem, SURFACE_BASE + 0x200, &mut b).unwrap();
    let dw: Vec<u32> = b
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut rss = RenderSurfaceState::unpack(&dw).unwrap();
    rss.number_of_multisamples = render_surface_state::NumberOfMultisamples::MULTISAMPLECOUNT_4;
    mem.load(SURFACE_BASE + 0x200, &bytes(&rss.pack().unwrap()));
    run(
        &st,
        &mut mem,
        &primitive(ThreeDPrimTopoType::_3DPRIM_RECTLIST, 3),
    )
    .unwrap();
    for y in [0, 7, 15] {
        assert_eq!(pixel(&mem, 0, y), [239, 0, 0, 255], "(0, {y})");
        assert_eq!(pixel(&mem, 1, y), [239, 0, 0, 255], "(1, {y})");
        assert_eq!(pixel(&mem, 2, y), [80, 0, 0, 255], "(2, {y})");
        assert_eq!(pixel(&mem, 3, y), [0; 4], "(3, {y})");
    }
}
