//! The sampler message handler (seed 000 §2.13) on a tiny surface in an `AddressSpace`.
//! Every expected value is worked by hand from the texel pattern below.
//!
//! The surface: 4x4 R8G8B8A8_UNORM, linear, pitch 16 bytes, at `BASE`. Texel (x, y) of
//! level 0 holds R = 10x + 40y, G = 255 − R, B = x, A = 255 (bytes). A second level (2x2,
//! which the Gen7 layout places below level 0: rows 4-5) holds R = 200 + x + 2y, G = 1,
//! B = 2, A = 255.

use gtsim_gen7::sampling::{
    SamplerTables as SamplerResources, handle, handle_response, header_sampler_state_pointer,
};
use gtsim_mem::AddressSpace;
use gtsim_message::MessageError;
use gtsim_spec::gen7::message_descriptor_sampling_engine::SimdMode;
use gtsim_spec::gen7::render_surface_state::SurfaceType;
use gtsim_spec::gen7::sampler_state::{
    ChromaKeyMode, MagModeFilter, MinModeFilter, MipModeFilter, ShadowFunction,
};
use gtsim_spec::gen7::{
    MessageDescriptorSamplingEngine, MessageHeaderSamplingEngine, RenderSurfaceState,
    SamplerMessageType, SamplerState, Texcoordmode,
};
use gtsim_spec::shared::SurfaceFormat;

const BASE: u64 = 0x1_0000;

struct Fake {
    mem: AddressSpace,
    surface: RenderSurfaceState,
    sampler: SamplerState,
    border: [f32; 4],
    /// The 3DSTATE_CHROMA_KEY table.
    chroma_keys: [(u32, u32); 4],
}

impl SamplerResources for Fake {
    fn surface(&self, bti: u8) -> Result<RenderSurfaceState, MessageError> {
        match bti {
            0 => Ok(self.surface.clone()),
            _ => Err(MessageError::Invalid(format!("no surface at BTI {bti}"))),
        }
    }
    fn sampler(&self, index: u8) -> Result<(SamplerState, [f32; 4]), MessageError> {
        match index {
            0 => Ok((self.sampler.clone(), self.border)),
            _ => Err(MessageError::Invalid(format!("no sampler {index}"))),
        }
    }
    fn memory(&self) -> &dyn gtsim_mem::Memory {
        &self.mem
    }
    fn chroma_keys(&self) -> [(u32, u32); 4] {
        self.chroma_keys
    }
}

fn level0(x: u32, y: u32) -> [u8; 4] {
    let r = (10 * x + 40 * y) as u8;
    [r, 255 - r, x as u8, 255]
}

fn level1(x: u32, y: u32) -> [u8; 4] {
    [(200 + x + 2 * y) as u8, 1, 2, 255]
}

fn unorm(b: [u8; 4]) -> [f32; 4] {
    b.map(|c| f32::from(c) / 255.0)
}

/// The 4x4 surface with two levels, NEAREST / no mipmapping / WRAP sampler.
fn fake() -> Fake {
    let mut mem = AddressSpace::new();
    mem.map(BASE, 0x1000);
    for y in 0..4 {
        for x in 0..4 {
            mem.load(BASE + 16 * u64::from(y) + 4 * u64::from(x), &level0(x, y));
        }
    }
    for y in 0..2 {
        for x in 0..2 {
            mem.load(
                BASE + 16 * u64::from(4 + y) + 4 * u64::from(x),
                &level1(x, y),
            );
        }
    }
    Fake {
        mem,
        surface: RenderSurfaceState {
            surface_type: SurfaceType::SURFTYPE_2D,
            surface_format: SurfaceFormat::R8G8B8A8_UNORM,
            width: 3,
            height: 3,
            surface_pitch: 15,
            surface_base_address: BASE,
            mip_count_lod: 1,
            ..Default::default()
        },
        sampler: SamplerState {
            max_lod: 1.0,
            ..Default::default()
        },
        border: [0.25, 0.5, 0.75, 1.0],
        chroma_keys: [(0, 0); 4],
    }
}

fn desc(ty: SamplerMessageType, simd16: bool, header: bool, mlen: u8, rlen: u8) -> u32 {
    MessageDescriptorSamplingEngine {
        message_length: mlen,
        response_length: rlen,
        header_present: header,
        simd_mode: if simd16 {
            SimdMode::SIMD16
        } else {
            SimdMode::SIMD8
        },
        message_type: ty,
        sampler_index: 0,
        binding_table_index: 0,
    }
    .pack()
    .unwrap()[0]
}

fn reg(dwords: &[u32]) -> [u8; 32] {
    let mut r = [0u8; 32];
    for (i, d) in dwords.iter().take(8).enumerate() {
        r[4 * i..4 * i + 4].copy_from_slice(&d.to_le_bytes());
    }
    r
}

/// Parameter registers: `params[p][lane]`, 8 channels per register, two registers per
/// parameter for 16 channels.
fn payload(params: &[Vec<u32>]) -> Vec<[u8; 32]> {
    params
        .iter()
        .flat_map(|p| p.chunks(8).map(reg).collect::<Vec<_>>())
        .collect()
}

fn floats(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

fn dword(r: &[u8; 32], i: usize) -> u32 {
    u32::from_le_bytes([r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]])
}

/// Channel `lane`'s RGBA from a SIMD8 writeback (R, G, B, A registers).
fn rgba8(w: &[[u8; 32]], lane: usize) -> [f32; 4] {
    std::array::from_fn(|c| f32::from_bits(dword(&w[c], lane)))
}

fn close(a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
}

/// A SIMD8 sample-type message with all channels enabled.
fn sample8(f: &Fake, ty: SamplerMessageType, params: &[Vec<u32>]) -> Vec<[u8; 32]> {
    let mlen = params.len() as u8;
    handle(desc(ty, false, false, mlen, 4), &payload(params), 0xff, f).unwrap()
}

#[test]
fn ld_returns_the_exact_texel() {
    let f = fake();
    // ld, Gen7 parameter order u, lod, v (seed 000 §2.13.1.3.1).
    let u = vec![2, 0, 3, 1, 0, 0, 0, 0];
    let lod = vec![0, 0, 0, 1, 0, 0, 0, 0];
    let v = vec![3, 0, 1, 1, 0, 0, 0, 0];
    let w = sample8(&f, SamplerMessageType::LD, &[u, lod, v]);
    assert_eq!(w.len(), 4);
    assert_eq!(rgba8(&w, 0), unorm(level0(2, 3))); // R = 140
    assert_eq!(rgba8(&w, 1), unorm(level0(0, 0)));
    assert_eq!(rgba8(&w, 2), unorm(level0(3, 1)));
    assert_eq!(rgba8(&w, 3), unorm(level1(1, 1))); // LOD 1: R = 203
}

#[test]
fn ld_outside_the_surface_returns_zero() {
    let f = fake();
    // x = 4 (past the width), y = −1, LOD 2 (past MIP Count), x = 2 at LOD 1 (width 2).
    let u = vec![4, 0, 0, 2, 0, 0, 0, 0];
    let lod = vec![0, 0, 2, 1, 0, 0, 0, 0];
    let v = vec![0, (-1i32) as u32, 0, 0, 0, 0, 0, 0];
    let w = sample8(&f, SamplerMessageType::LD, &[u, lod, v]);
    for lane in 0..4 {
        // R8G8B8A8_UNORM has alpha, so all four channels are zero.
        assert_eq!(rgba8(&w, lane), [0.0; 4], "lane {lane}");
    }
}

#[test]
fn ld_of_an_integer_surface_returns_integer_bits() {
    let mut f = fake();
    f.surface.surface_format = SurfaceFormat::R8G8B8A8_UINT;
    let w = sample8(
        &f,
        SamplerMessageType::LD,
        &[vec![2; 8], vec![0; 8], vec![3; 8]],
    );
    assert_eq!([0, 1, 2, 3].map(|c| dword(&w[c], 0)), [140, 115, 2, 255]);
}

#[test]
fn ld_of_an_srgb_surface_returns_linear_values() {
    let mut f = fake();
    f.surface.surface_format = SurfaceFormat::R8G8B8A8_UNORM_SRGB;
    let w = sample8(
        &f,
        SamplerMessageType::LD,
        &[vec![0; 8], vec![0; 8], vec![0; 8]],
    );
    // Texel (0,0) = (0, 255, 0, 255): sRGB 0 and 1 are linear 0 and 1; alpha untouched.
    assert_eq!(rgba8(&w, 0), [0.0, 1.0, 0.0, 1.0]);
    let w = sample8(
        &f,
        SamplerMessageType::LD,
        &[vec![1; 8], vec![0; 8], vec![1; 8]],
    );
    // Texel (1,1) R = 50: (50/255 + 0.055)/1.055 = 0.23798..., to the power 2.4 = 0.03190.
    let r = f32::from_bits(dword(&w[0], 0));
    assert!((r - 0.031_896).abs() < 1e-4, "{r}");
}

#[test]
fn sample_nearest_at_texel_centres() {
    let f = fake();
    // Lanes 0-3 are one subspan: with identical coordinates the derivatives are 0 and the
    // texture is magnified, so level 0 is sampled with the MagFilter (NEAREST).
    let us = [0.125f32, 0.125, 0.125, 0.125, 0.875, 0.875, 0.875, 0.875];
    let vs = [0.625f32, 0.625, 0.625, 0.625, 0.375, 0.375, 0.375, 0.375];
    let w = sample8(&f, SamplerMessageType::SAMPLE, &[floats(&us), floats(&vs)]);
    assert_eq!(rgba8(&w, 0), unorm(level0(0, 2)));
    assert_eq!(rgba8(&w, 3), unorm(level0(0, 2)));
    assert_eq!(rgba8(&w, 4), unorm(level0(3, 1)));
    assert_eq!(rgba8(&w, 7), unorm(level0(3, 1)));
}

#[test]
fn sample_linear_between_four_texels_averages_them() {
    let mut f = fake();
    f.sampler.mag_mode_filter = MagModeFilter::MAPFILTER_LINEAR;
    f.sampler.min_mode_filter = MinModeFilter::MAPFILTER_LINEAR;
    // (0.5, 0.5) is texel-space (2, 2): the corner shared by texels (1..2, 1..2), each
    // weighted 1/4. R = (50 + 60 + 90 + 100)/4 = 75, G = 255 − 75 = 180, B = 1.5, A = 255.
    let w = sample8(
        &f,
        SamplerMessageType::SAMPLE,
        &[floats(&[0.5; 8]), floats(&[0.5; 8])],
    );
    let want = [75.0 / 255.0, 180.0 / 255.0, 1.5 / 255.0, 1.0];
    assert!(close(rgba8(&w, 0), want), "{:?}", rgba8(&w, 0));
    // (0.375, 0.125) is texel-space (1.5, 0.5): exactly the centre of texel (1, 0), so
    // LINEAR returns that texel.
    let w = sample8(
        &f,
        SamplerMessageType::SAMPLE,
        &[floats(&[0.375; 8]), floats(&[0.125; 8])],
    );
    assert!(close(rgba8(&w, 0), unorm(level0(1, 0))));
}

#[test]
fn wrap_versus_clamp_at_u_1_25() {
    let mut f = fake();
    let params = [floats(&[1.25; 8]), floats(&[0.125; 8])];
    // u = 1.25 is texel 5: WRAP → texel 1, CLAMP → the edge texel 3.
    let w = sample8(&f, SamplerMessageType::SAMPLE, &params);
    assert_eq!(rgba8(&w, 0), unorm(level0(1, 0)));
    f.sampler.tcx_address_control_mode = Texcoordmode::TEXCOORDMODE_CLAMP;
    let w = sample8(&f, SamplerMessageType::SAMPLE, &params);
    assert_eq!(rgba8(&w, 0), unorm(level0(3, 0)));
    // MIRROR: texel 5 lies in the flipped copy [4, 8): 8 − 1 − 5 = 2.
    f.sampler.tcx_address_control_mode = Texcoordmode::TEXCOORDMODE_MIRROR;
    let w = sample8(&f, SamplerMessageType::SAMPLE, &params);
    assert_eq!(rgba8(&w, 0), unorm(level0(2, 0)));
    // CLAMP_BORDER: outside the map, the border colour.
    f.sampler.tcx_address_control_mode = Texcoordmode::TEXCOORDMODE_CLAMP_BORDER;
    let w = sample8(&f, SamplerMessageType::SAMPLE, &params);
    assert_eq!(rgba8(&w, 0), [0.25, 0.5, 0.75, 1.0]);
}

#[test]
fn implicit_lod_from_subspan_derivatives_selects_level_1() {
    let mut f = fake();
    f.sampler.mip_mode_filter = MipModeFilter::MIPFILTER_NEAREST;
    // One subspan whose neighbours are 0.5 apart: 2 texels per pixel on level 0, so
    // LOD = log2(2) = 1. Each pixel then reads its texel of the 2x2 level 1.
    let us = [0.25f32, 0.75, 0.25, 0.75, 0.25, 0.75, 0.25, 0.75];
    let vs = [0.25f32, 0.25, 0.75, 0.75, 0.25, 0.25, 0.75, 0.75];
    let params = [floats(&us), floats(&vs)];
    let w = sample8(&f, SamplerMessageType::SAMPLE, &params);
    assert_eq!(rgba8(&w, 0), unorm(level1(0, 0)));
    assert_eq!(rgba8(&w, 1), unorm(level1(1, 0)));
    assert_eq!(rgba8(&w, 2), unorm(level1(0, 1)));
    assert_eq!(rgba8(&w, 3), unorm(level1(1, 1)));
    // sample_b with bias −1 brings the LOD back to 0: (0.75, 0.25) is level-0 texel (3, 1).
    let mut b = vec![floats(&[-1.0; 8])];
    b.extend(params.iter().cloned());
    let w = sample8(&f, SamplerMessageType::SAMPLE_B, &b);
    assert_eq!(rgba8(&w, 1), unorm(level0(3, 1)));
    // Max LOD 0 clamps the same derivatives to level 0.
    f.sampler.max_lod = 0.0;
    let w = sample8(&f, SamplerMessageType::SAMPLE, &params);
    assert_eq!(rgba8(&w, 1), unorm(level0(3, 1)));
}

#[test]
fn sample_l_picks_and_blends_levels() {
    let mut f = fake();
    f.sampler.mip_mode_filter = MipModeFilter::MIPFILTER_NEAREST;
    let uv = [floats(&[0.125; 8]), floats(&[0.125; 8])];
    let with_lod = |lod: f32| {
        let mut p = vec![floats(&[lod; 8])];
        p.extend(uv.iter().cloned());
        p
    };
    // LOD 1 reads level 1 texel (0,0): R = 200.
    let w = sample8(&f, SamplerMessageType::SAMPLE_L, &with_lod(1.0));
    assert_eq!(rgba8(&w, 0), unorm(level1(0, 0)));
    // MIPFILTER_LINEAR at LOD 0.5: half of level-0 texel (0,0) (R = 0, G = 255, B = 0) and
    // half of level-1 texel (0,0) (R = 200, G = 1, B = 2): R = 100, G = 128, B = 1.
    f.sampler.mip_mode_filter = MipModeFilter::MIPFILTER_LINEAR;
    let w = sample8(&f, SamplerMessageType::SAMPLE_L, &with_lod(0.5));
    let want = [100.0 / 255.0, 128.0 / 255.0, 1.0 / 255.0, 1.0];
    assert!(close(rgba8(&w, 0), want), "{:?}", rgba8(&w, 0));
}

#[test]
fn resinfo_returns_the_size() {
    let f = fake();
    // resinfo's lod parameter: 0 on lane 0, 1 on lane 1, 2 (past MIP Count 1) on lane 2.
    let w = sample8(
        &f,
        SamplerMessageType::RESINFO,
        &[vec![0, 1, 2, 0, 0, 0, 0, 0]],
    );
    let lane = |l: usize| [0, 1, 2, 3].map(|c| dword(&w[c], l));
    // Width, height, 0 (not an array), two levels.
    assert_eq!(lane(0), [4, 4, 0, 2]);
    assert_eq!(lane(1), [2, 2, 0, 2]);
    assert_eq!(lane(2), [0, 0, 0, 2]);
}

#[test]
fn simd16_layout_is_two_registers_per_channel() {
    let f = fake();
    // ld over all 16 texels: lane = 4y + x.
    let u: Vec<u32> = (0..16).map(|l| l % 4).collect();
    let v: Vec<u32> = (0..16).map(|l| l / 4).collect();
    let p = payload(&[u, vec![0; 16], v]);
    assert_eq!(p.len(), 6);
    let w = handle(
        desc(SamplerMessageType::LD, true, false, 6, 8),
        &p,
        0xffff,
        &f,
    )
    .unwrap();
    assert_eq!(w.len(), 8);
    for lane in 0..16u32 {
        let t = unorm(level0(lane % 4, lane / 4));
        for c in 0..4 {
            let r = &w[2 * c + lane as usize / 8];
            assert_eq!(f32::from_bits(dword(r, lane as usize % 8)), t[c]);
        }
    }
}

#[test]
fn simd8_layout_is_one_register_per_channel() {
    let f = fake();
    let w = sample8(
        &f,
        SamplerMessageType::LD,
        &[vec![3; 8], vec![0; 8], vec![2; 8]],
    );
    // Texel (3, 2): R = 110, G = 145, B = 3, A = 255, one register each.
    for (c, want) in [110u8, 145, 3, 255].into_iter().enumerate() {
        for lane in 0..8 {
            assert_eq!(f32::from_bits(dword(&w[c], lane)), f32::from(want) / 255.0);
        }
    }
}

#[test]
fn disabled_channels_are_not_sampled() {
    let f = fake();
    // Lane 1 is disabled; its coordinates would be in range but it must stay 0.
    let p = payload(&[vec![1; 8], vec![0; 8], vec![1; 8]]);
    let w = handle(
        desc(SamplerMessageType::LD, false, false, 3, 4),
        &p,
        0b1111_1101,
        &f,
    )
    .unwrap();
    assert_eq!(rgba8(&w, 1), [0.0; 4]);
    assert_eq!(rgba8(&w, 0), unorm(level0(1, 1)));
}

fn header(h: MessageHeaderSamplingEngine) -> [u8; 32] {
    reg(&h.pack().unwrap())
}

#[test]
fn header_write_channel_masks_shorten_the_response() {
    let f = fake();
    // SIMD16 with green and blue masked: R in W0-W1, A in W2-W3 (seed 000 §2.13.2.1).
    let h = header(MessageHeaderSamplingEngine {
        green_write_channel_mask: true,
        blue_write_channel_mask: true,
        ..Default::default()
    });
    let mut p = vec![h];
    p.extend(payload(&[vec![2; 16], vec![0; 16], vec![3; 16]]));
    let w = handle(
        desc(SamplerMessageType::LD, true, true, 7, 4),
        &p,
        0xffff,
        &f,
    )
    .unwrap();
    assert_eq!(w.len(), 4);
    assert_eq!(f32::from_bits(dword(&w[1], 7)), 140.0 / 255.0);
    assert_eq!(f32::from_bits(dword(&w[2], 0)), 1.0);
    // SIMD8 with blue and alpha masked and a two-register response: R, G.
    let h = header(MessageHeaderSamplingEngine {
        blue_write_channel_mask: true,
        alpha_write_channel_mask: true,
        ..Default::default()
    });
    let mut p = vec![h];
    p.extend(payload(&[vec![2; 8], vec![0; 8], vec![3; 8]]));
    let w = handle(
        desc(SamplerMessageType::LD, false, true, 4, 2),
        &p,
        0xff,
        &f,
    )
    .unwrap();
    assert_eq!(w.len(), 2);
    assert_eq!(f32::from_bits(dword(&w[1], 0)), 115.0 / 255.0);
    // SIMD8 with green masked inside a four-register response cannot be expressed.
    let h = header(MessageHeaderSamplingEngine {
        green_write_channel_mask: true,
        ..Default::default()
    });
    let mut p = vec![h];
    p.extend(payload(&[vec![2; 8], vec![0; 8], vec![3; 8]]));
    let e = handle(
        desc(SamplerMessageType::LD, false, true, 4, 4),
        &p,
        0xff,
        &f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("§2.13.2.2"), "{e}");
}

#[test]
fn header_texel_offsets_apply_to_ld_and_sample() {
    let f = fake();
    let h = header(MessageHeaderSamplingEngine {
        u_offset: -1,
        v_offset: 2,
        sampler_state_pointer: 0x40,
        ..Default::default()
    });
    let mut p = vec![h];
    p.extend(payload(&[vec![2; 8], vec![0; 8], vec![0; 8]]));
    let d = desc(SamplerMessageType::LD, false, true, 4, 4);
    let w = handle(d, &p, 0xff, &f).unwrap();
    assert_eq!(rgba8(&w, 0), unorm(level0(1, 2)));
    assert_eq!(header_sampler_state_pointer(d, &p), Some(0x40));
    // sample at the centre of texel (2, 0), offset by (−1, 2) texels: texel (1, 2).
    let mut p = vec![h];
    p.extend(payload(&[floats(&[0.625; 8]), floats(&[0.125; 8])]));
    let w = handle(
        desc(SamplerMessageType::SAMPLE, false, true, 3, 4),
        &p,
        0xff,
        &f,
    )
    .unwrap();
    assert_eq!(rgba8(&w, 0), unorm(level0(1, 2)));
}

#[test]
fn null_surfaces_and_disabled_samplers_return_zeros() {
    let mut f = fake();
    f.sampler.sampler_disable = true;
    let w = sample8(&f, SamplerMessageType::SAMPLE, &[floats(&[0.5; 8])]);
    assert!(w.iter().all(|r| r.iter().all(|&b| b == 0)));
    f.surface.surface_type = SurfaceType::SURFTYPE_NULL;
    let w = sample8(&f, SamplerMessageType::RESINFO, &[vec![0; 8]]);
    assert!(w.iter().all(|r| r.iter().all(|&b| b == 0)));
}

#[test]
fn unsupported_messages_are_errors_naming_the_seed() {
    let f = fake();
    let p = payload(&[floats(&[0.5; 8]), floats(&[0.5; 8])]);
    // sample_lz is not a Gen7 message type.
    let e = handle(
        desc(SamplerMessageType(0x18), false, false, 2, 4),
        &p,
        0xff,
        &f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("seed 000 §2.13"), "{e}");
    // sample and sample_b have no SIMD4x2 form (§2.13.1.4).
    for ty in [SamplerMessageType::SAMPLE, SamplerMessageType::SAMPLE_B] {
        let e = handle(desc4x2(ty, false, 2, 1), &p, 0xff, &f)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not supported in SIMD4x2 mode"), "{e}");
    }
    // ld of a cube surface is not allowed (§2.13.1.4 programming notes).
    let mut cube = fake();
    cube.surface.surface_type = SurfaceType::SURFTYPE_CUBE;
    let e = handle(
        desc(SamplerMessageType::LD, false, false, 2, 4),
        &p,
        0xff,
        &cube,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("SURFTYPE_CUBE") && e.contains("seed 000"), "{e}");
}

#[test]
fn malformed_messages_are_errors() {
    let f = fake();
    let p = payload(&[vec![0; 16], vec![0; 16]]);
    // SIMD16 with an odd parameter register count.
    let e = handle(
        desc(SamplerMessageType::LD, true, false, 3, 8),
        &p,
        0xffff,
        &f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("H + 2N"), "{e}");
    // More message registers than were sent.
    let e = handle(
        desc(SamplerMessageType::LD, true, false, 6, 8),
        &p,
        0xffff,
        &f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("payload registers"), "{e}");
    // Response length that does not match the writeback.
    let e = handle(
        desc(SamplerMessageType::LD, true, false, 4, 4),
        &p,
        0xffff,
        &f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("response length 4"), "{e}");
    // A binding table index the resources refuse.
    let mut d =
        MessageDescriptorSamplingEngine::unpack(&[desc(SamplerMessageType::LD, true, false, 4, 8)])
            .unwrap();
    d.binding_table_index = 7;
    let e = handle(d.pack().unwrap()[0], &p, 0xffff, &f)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no surface at BTI 7"), "{e}");
    // Unmapped texels fault into an error, not a panic.
    let mut far = fake();
    far.surface.surface_base_address = 0x80_0000;
    let e = handle(
        desc(SamplerMessageType::LD, true, false, 4, 8),
        &p,
        0xffff,
        &far,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("page fault"), "{e}");
}

#[test]
fn array_index_and_non_normalized_coordinates() {
    let mut f = fake();
    f.surface.surface_array = true;
    f.surface.depth = 1;
    f.surface.mip_count_lod = 0;
    // Two slices, one level, ARYSPC_FULL: QPitch = h0 + h1 + 12·VALIGN (IVB) = 4 + 2 +
    // 24 = 30 rows, so slice 1 starts at row 30. Slice 1 texel (x, y) holds R = 1 + x + 4y.
    for y in 0..4u32 {
        for x in 0..4u32 {
            let at = BASE + 16 * u64::from(30 + y) + 4 * u64::from(x);
            f.mem.load(at, &[(1 + x + 4 * y) as u8, 0, 0, 255]);
        }
    }
    // sample: r is the unnormalized array index, rounded (ties to even: 0.5 is slice 0,
    // 0.51 slice 1) and clamped to [0, Depth].
    let uv = [floats(&[0.625; 8]), floats(&[0.375; 8])];
    let mut p = uv.to_vec();
    p.push(floats(&[1.4, 0.4, 7.0, -3.0, 0.5, 0.51, 1.5, 1.4]));
    let w = sample8(&f, SamplerMessageType::SAMPLE, &p);
    let slice1 = unorm([1 + 2 + 4, 0, 0, 255]);
    assert_eq!(rgba8(&w, 0), slice1);
    assert_eq!(rgba8(&w, 1), unorm(level0(2, 1)));
    assert_eq!(rgba8(&w, 2), slice1);
    assert_eq!(rgba8(&w, 3), unorm(level0(2, 1)));
    assert_eq!(rgba8(&w, 4), unorm(level0(2, 1)));
    assert_eq!(rgba8(&w, 5), slice1);
    assert_eq!(rgba8(&w, 6), slice1);
    // ld: u, lod, v, r = array index; an index past Depth returns zero.
    let w = sample8(
        &f,
        SamplerMessageType::LD,
        &[
            vec![2; 8],
            vec![0; 8],
            vec![1; 8],
            vec![1, 2, 0, 0, 0, 0, 0, 0],
        ],
    );
    assert_eq!(rgba8(&w, 0), slice1);
    assert_eq!(rgba8(&w, 1), [0.0; 4]);
    assert_eq!(rgba8(&w, 2), unorm(level0(2, 1)));
    // resinfo reports the array length in blue.
    let w = sample8(&f, SamplerMessageType::RESINFO, &[vec![0; 8]]);
    assert_eq!([0, 1, 2, 3].map(|c| dword(&w[c], 0)), [4, 4, 2, 1]);
    // Non-normalized coordinates count texels: (2.5, 1.5) is texel (2, 1).
    f.sampler.non_normalized_coordinate_enable = true;
    let w = sample8(
        &f,
        SamplerMessageType::SAMPLE,
        &[floats(&[2.5; 8]), floats(&[1.5; 8])],
    );
    assert_eq!(rgba8(&w, 0), unorm(level0(2, 1)));
}

#[test]
fn trilinear_within_a_3d_level() {
    // 2x2x2 R8G8B8A8_UNORM, pitch 8: slice z of level 0 starts at row 2z. Texel (x, y, z)
    // holds R = 10x + 20y + 40z.
    let mut f = fake();
    f.surface.surface_type = SurfaceType::SURFTYPE_3D;
    f.surface.width = 1;
    f.surface.height = 1;
    f.surface.depth = 1;
    f.surface.surface_pitch = 7;
    f.surface.mip_count_lod = 0;
    for z in 0..2u32 {
        for y in 0..2u32 {
            for x in 0..2u32 {
                let at = BASE + 8 * u64::from(2 * z + y) + 4 * u64::from(x);
                f.mem
                    .load(at, &[(10 * x + 20 * y + 40 * z) as u8, 0, 0, 255]);
            }
        }
    }
    f.sampler.mag_mode_filter = MagModeFilter::MAPFILTER_LINEAR;
    f.sampler.tcz_address_control_mode = Texcoordmode::TEXCOORDMODE_CLAMP;
    // The centre (0.5, 0.5, 0.5) weights all eight texels 1/8: R = 5 + 10 + 20 = 35.
    let w = sample8(
        &f,
        SamplerMessageType::SAMPLE,
        &[floats(&[0.5; 8]), floats(&[0.5; 8]), floats(&[0.5; 8])],
    );
    assert!(
        close(rgba8(&w, 0), [35.0 / 255.0, 0.0, 0.0, 1.0]),
        "{:?}",
        rgba8(&w, 0)
    );
    // ld of texel (1, 0, 1): R = 50.
    let w = sample8(
        &f,
        SamplerMessageType::LD,
        &[vec![1; 8], vec![0; 8], vec![0; 8], vec![1; 8]],
    );
    assert_eq!(rgba8(&w, 0), [50.0 / 255.0, 0.0, 0.0, 1.0]);
}

#[test]
fn ld_out_of_range_alpha_follows_the_format_and_errata() {
    let mut f = fake();
    let out_of_range = [vec![9; 8], vec![0; 8], vec![0; 8]];
    // R16G16_UNORM has no alpha: zero channels, alpha 1.
    f.surface.surface_format = SurfaceFormat::R16G16_UNORM;
    let w = sample8(&f, SamplerMessageType::LD, &out_of_range);
    assert_eq!(rgba8(&w, 0), [0.0, 0.0, 0.0, 1.0]);
    // R8G8B8X8_UNORM has no alpha either, but the ld erratum returns alpha 0.
    f.surface.surface_format = SurfaceFormat::R8G8B8X8_UNORM;
    let w = sample8(&f, SamplerMessageType::LD, &out_of_range);
    assert_eq!(rgba8(&w, 0), [0.0; 4]);
}

#[test]
fn sample_killpix_adds_the_pixel_mask_register() {
    let f = fake();
    let p = payload(&[floats(&[0.125; 8]), floats(&[0.125; 8])]);
    let w = handle(
        desc(SamplerMessageType::SAMPLE_KILLPIX, false, false, 2, 5),
        &p,
        0xff,
        &f,
    )
    .unwrap();
    assert_eq!(w.len(), 5);
    assert_eq!(rgba8(&w, 0), unorm(level0(0, 0)));
    // No chroma key: every pixel stays alive (seed 000 §2.13.2.2 W4.0).
    assert_eq!(dword(&w[4], 0), 0xffff_ffff);
    // SIMD16 sample+killpix does not exist.
    let p = payload(&[floats(&[0.125; 16]), floats(&[0.125; 16])]);
    let e = handle(
        desc(SamplerMessageType::SAMPLE_KILLPIX, true, false, 4, 8),
        &p,
        0xffff,
        &f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("only in SIMD8"), "{e}");
}

/// Chroma keying (seed 000 §2.3.1) with key 1 of the table: A 0xff, R 0x0a (10), G and B
/// any: of level 0 only texel (1, 0) has R = 10x + 40y = 10. Lanes 0-3 sample texel
/// centres (0, 0), (1, 0), (2, 0), (1, 1), NEAREST.
#[test]
fn chroma_key_replaces_matching_texels_or_kills_the_pixel() {
    let mut f = fake();
    f.chroma_keys[1] = (0xff0a_0000, 0xff0a_ffff);
    f.sampler.chroma_key_enable = true;
    f.sampler.chroma_key_index = 1;
    f.sampler.chroma_key_mode = ChromaKeyMode::KEYFILTER_REPLACE_BLACK;
    let u = floats(&[0.125, 0.375, 0.625, 0.375, 0.125, 0.125, 0.125, 0.125]);
    let v = floats(&[0.125, 0.125, 0.125, 0.375, 0.125, 0.125, 0.125, 0.125]);
    let w = sample8(
        &f,
        SamplerMessageType::SAMPLE_L,
        &[vec![0; 8], u.clone(), v.clone()],
    );
    assert_eq!(rgba8(&w, 0), unorm(level0(0, 0)));
    // "the sample is replaced with (0,0,0,0)".
    assert_eq!(rgba8(&w, 1), [0.0; 4]);
    assert_eq!(rgba8(&w, 2), unorm(level0(2, 0)));
    assert_eq!(rgba8(&w, 3), unorm(level0(1, 1)));
    // LINEAR at the corner between texels (0, 0), (1, 0), (0, 1), (1, 1): the keyed
    // texel contributes black, a quarter of the weight.
    f.sampler.min_mode_filter = MinModeFilter::MAPFILTER_LINEAR;
    f.sampler.mag_mode_filter = MagModeFilter::MAPFILTER_LINEAR;
    let w = sample8(
        &f,
        SamplerMessageType::SAMPLE_L,
        &[vec![0; 8], floats(&[0.5; 8]), floats(&[0.5; 8])],
    );
    let sum = |c: usize| {
        [level0(1, 1), level0(2, 1), level0(1, 2), level0(2, 2)]
            .iter()
            .map(|t| f32::from(t[c]) / 255.0)
            .sum::<f32>()
            / 4.0
    };
    // u = v = 0.5 is the corner of texels (1..2, 1..2), none keyed: unchanged.
    assert!(
        close(rgba8(&w, 0), std::array::from_fn(sum)),
        "{:?}",
        rgba8(&w, 0)
    );
    let w = sample8(
        &f,
        SamplerMessageType::SAMPLE_L,
        &[vec![0; 8], floats(&[0.25; 8]), floats(&[0.25; 8])],
    );
    let keyed = |c: usize| {
        [level0(0, 0), level0(0, 1), level0(1, 1)]
            .iter()
            .map(|t| f32::from(t[c]) / 255.0)
            .sum::<f32>()
            / 4.0
    };
    assert!(
        close(rgba8(&w, 0), std::array::from_fn(keyed)),
        "{:?}",
        rgba8(&w, 0)
    );
    // KEYFILTER_KILL_ON_ANY_MATCH: sample+killpix clears the killed pixel's bit of W4
    // 15:0 and returns its colour as sampled.
    f.sampler.min_mode_filter = MinModeFilter::MAPFILTER_NEAREST;
    f.sampler.mag_mode_filter = MagModeFilter::MAPFILTER_NEAREST;
    f.sampler.chroma_key_mode = ChromaKeyMode::KEYFILTER_KILL_ON_ANY_MATCH;
    let w = handle(
        desc(SamplerMessageType::SAMPLE_KILLPIX, false, false, 2, 5),
        &payload(&[u, v]),
        0xff,
        &f,
    )
    .unwrap();
    assert_eq!(dword(&w[4], 0), 0xffff_fffd);
    assert_eq!(rgba8(&w, 1), unorm(level0(1, 0)));
    // A format the model cannot key fails loudly.
    f.surface.surface_format = SurfaceFormat::R16G16B16A16_UNORM;
    let e = handle(
        desc(SamplerMessageType::SAMPLE_KILLPIX, false, false, 2, 5),
        &payload(&[floats(&[0.5; 8]), floats(&[0.5; 8])]),
        0xff,
        &f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("§2.3.1"), "{e}");
}

#[test]
fn ld_of_a_buffer_steps_by_the_surface_pitch() {
    // SURFTYPE_BUFFER R32G32B32A32_FLOAT with Surface Pitch 0: the structure is 1 byte
    // (seed 000 §2.12.2), so u is a byte offset and each 16-byte texel is read from
    // there (crocus's pull-constant buffers). Floats 0, 1, 2, ... from BASE: u = 48 reads
    // floats 12..15, u = 4 floats 1..4; u = 224 is past the 224 elements: zero.
    let mut f = fake();
    let data: Vec<u8> = (0..64).flat_map(|i| (i as f32).to_le_bytes()).collect();
    f.mem.load(BASE, &data);
    f.surface = RenderSurfaceState {
        surface_type: SurfaceType::SURFTYPE_BUFFER,
        surface_format: SurfaceFormat::R32G32B32A32_FLOAT,
        // 224 elements: Width 95 (bits 6:0) and Height 1 (bits 19:7) hold 223.
        width: 95,
        height: 1,
        surface_pitch: 0,
        surface_base_address: BASE,
        ..Default::default()
    };
    let u = vec![48, 4, 224, 0, 0, 0, 0, 0];
    let w = sample8(&f, SamplerMessageType::LD, &[u, vec![0; 8]]);
    assert_eq!(rgba8(&w, 0), [12.0, 13.0, 14.0, 15.0]);
    assert_eq!(rgba8(&w, 1), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(rgba8(&w, 2), [0.0; 4]);
    assert_eq!(rgba8(&w, 3), [0.0, 1.0, 2.0, 3.0]);
}

/// Byte offset of byte `xb` of row `y` in a surface of `pitch` bytes per row, tiled as
/// `tiling` (None linear; Some(false) X-major: 4 KiB tiles of 512 B x 8 rows; Some(true)
/// Y-major: 4 KiB tiles of 128 B x 32 rows, stored as 16-byte columns of 32 rows):
/// the Ivy Bridge tile layouts (IVB PRM Vol1 Part2 "Tiling", and the i915 uapi's
/// I915_TILING_X / I915_TILING_Y), worked here independently of `gtsim_mem::tiling`.
fn tiled_offset(tiling: Option<bool>, pitch: u64, xb: u64, y: u64) -> u64 {
    match tiling {
        None => y * pitch + xb,
        Some(false) => {
            let tile = (y / 8) * (pitch / 512) + xb / 512;
            tile * 4096 + (y % 8) * 512 + xb % 512
        }
        Some(true) => {
            let tile = (y / 32) * (pitch / 128) + xb / 128;
            tile * 4096 + ((xb % 128) / 16) * 512 + (y % 32) * 16 + xb % 16
        }
    }
}

/// `ld` reads each lane's texel wherever the lanes' rows neighbour in memory or not: on
/// linear, X- and Y-tiled surfaces of 1-, 2-, 4-, 8- and 16-byte integer texels (whose
/// returned bits are the stored ones), SIMD16 lanes in shuffled order along rows that
/// cross tile boundaries, with and without a repeated texel and lanes outside the surface, give for
/// every lane the bytes at the texel's address worked out by hand; and a lane whose
/// texel is on an unmapped page fails the message naming the first such lane.
#[test]
fn ld_reads_rows_of_texels_as_each_texel_is_stored() {
    use gtsim_spec::gen7::render_surface_state::TileWalk;
    let formats = [
        (SurfaceFormat::R8_UINT, 1usize),
        (SurfaceFormat::R16_UINT, 2),
        (SurfaceFormat::R32_UINT, 4),
        (SurfaceFormat::R32G32_UINT, 8),
        (SurfaceFormat::R32G32B32A32_UINT, 16),
    ];
    let (w, h, pitch) = (200u32, 40u32, 4096u64);
    let mut rng = gtsim_fuzzkit::Rng::new(gtsim_fuzzkit::seed(0x2545_f491));
    let mut next = move || rng.next_u64() as u32;
    for tiling in [None, Some(false), Some(true)] {
        for &(format, bpp) in &formats {
            let mut mem = AddressSpace::new();
            let size = pitch * 64;
            mem.map(BASE, size);
            let bytes: Vec<u8> = (0..size).map(|i| (i * 7 + i / 251) as u8).collect();
            mem.load(BASE, &bytes);
            let f = Fake {
                mem,
                surface: RenderSurfaceState {
                    surface_type: SurfaceType::SURFTYPE_2D,
                    surface_format: format,
                    width: (w - 1) as u16,
                    height: (h - 1) as u16,
                    surface_pitch: pitch as u32 - 1,
                    surface_base_address: BASE,
                    tiled_surface: tiling.is_some(),
                    tile_walk: if tiling == Some(true) {
                        TileWalk::TILEWALK_YMAJOR
                    } else {
                        TileWalk::TILEWALK_XMAJOR
                    },
                    ..Default::default()
                },
                sampler: SamplerState::default(),
                border: [0.0; 4],
                chroma_keys: [(0, 0); 4],
            };
            for case in 0..20 {
                // Two rows of 8 neighbours each, starting where tiles often end.
                let x0 = [0, 120, 124, 126, 60, 185][case % 6] + next() % 4;
                let y0 = next() % (h - 1);
                let mut lanes: Vec<(i64, i64)> = (0..16)
                    .map(|i| (i64::from(x0 + i % 8), i64::from(y0 + i / 8)))
                    .collect();
                if case % 2 == 0 {
                    lanes[5] = lanes[4]; // a repeated texel
                }
                if case % 4 == 1 {
                    lanes[9] = (-1, 0); // outside the surface
                    lanes[12] = (i64::from(w), 0);
                }
                // Shuffle the lanes.
                for i in (1..16).rev() {
                    lanes.swap(i, next() as usize % (i + 1));
                }
                let u: Vec<u32> = lanes.iter().map(|l| l.0 as u32).collect();
                let v: Vec<u32> = lanes.iter().map(|l| l.1 as u32).collect();
                let out = handle(
                    desc(SamplerMessageType::LD, true, false, 6, 8),
                    &payload(&[u, vec![0; 16], v]),
                    0xffff,
                    &f,
                )
                .unwrap();
                for (lane, &(x, y)) in lanes.iter().enumerate() {
                    let inside = (0..i64::from(w)).contains(&x) && (0..i64::from(h)).contains(&y);
                    // Red: the first channel's bits (the low dword of wider texels).
                    let red = dword(&out[lane / 8], lane % 8);
                    let want = if inside {
                        let at = tiled_offset(tiling, pitch, x as u64 * bpp as u64, y as u64);
                        let b = &bytes[at as usize..at as usize + bpp.min(4)];
                        let mut d = [0u8; 4];
                        d[..b.len()].copy_from_slice(b);
                        u32::from_le_bytes(d)
                    } else {
                        0
                    };
                    assert_eq!(
                        red, want,
                        "{format:?} tiling {tiling:?} case {case} lane {lane} at ({x}, {y})"
                    );
                }
            }
        }
    }
    // A fault: the first lane (in lane order) whose texel is unmapped is named.
    let mut mem = AddressSpace::new();
    mem.map(BASE, 4096);
    let f = Fake {
        mem,
        surface: RenderSurfaceState {
            surface_type: SurfaceType::SURFTYPE_2D,
            surface_format: SurfaceFormat::R32_UINT,
            width: 1023,
            height: 3,
            surface_pitch: 4095,
            surface_base_address: BASE,
            ..Default::default()
        },
        sampler: SamplerState::default(),
        border: [0.0; 4],
        chroma_keys: [(0, 0); 4],
    };
    // Row 0 is mapped, row 1 (bytes 4096..) is not: lanes 3 and 6 read row 1.
    let u = vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
    let v = vec![0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let e = handle(
        desc(SamplerMessageType::LD, true, false, 6, 8),
        &payload(&[u, vec![0; 16], v]),
        0xffff,
        &f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("channel 3"), "{e}");
    assert!(e.contains("(3, 1)"), "{e}");
}

fn desc4x2(ty: SamplerMessageType, header: bool, mlen: u8, rlen: u8) -> u32 {
    let mut d =
        MessageDescriptorSamplingEngine::unpack(&[desc(ty, false, header, mlen, rlen)]).unwrap();
    d.simd_mode = SimdMode::SIMD4X2;
    d.pack().unwrap()[0]
}

/// The two samples' RGBA of a SIMD4x2 writeback register (seed 000 §2.13.2.3: sample 0
/// in dwords 0-3, sample 1 in dwords 4-7).
fn samples4x2(w: &[u8; 32]) -> [[f32; 4]; 2] {
    [0, 1].map(|s| std::array::from_fn(|c| f32::from_bits(dword(w, 4 * s + c))))
}

/// Seed 000 §2.13.1.9 and the SIMD4x2 table of §2.13.1.3.1: ld's parameters are u v r lod,
/// four to a register, sample 0's in dwords 0-3 and sample 1's in 4-7. Sample 0 reads
/// level-0 texel (1, 2): R = 10 + 80 = 90, G = 165, B = 1; sample 1 level-1 texel (1, 1):
/// R = 200 + 1 + 2 = 203, G = 1, B = 2.
#[test]
fn simd4x2_ld_reads_both_samples_from_one_register() {
    let f = fake();
    let p = [reg(&[1, 2, 0, 0, 1, 1, 0, 1])];
    let r = handle_response(desc4x2(SamplerMessageType::LD, false, 1, 1), &p, 0xff, &f).unwrap();
    assert_eq!(r.registers.len(), 1);
    assert_eq!(
        samples4x2(&r.registers[0]),
        [unorm([90, 165, 1, 255]), unorm([203, 1, 2, 255])]
    );
    assert_eq!(r.written, Some(vec![0xff]));
}

/// §2.13.2.3: a sample whose four execution mask bits are all clear is not written, nor
/// are the channels the header masks of an active one (green here): sample 0 writes R, B,
/// A (dwords 0, 2, 3), sample 1 nothing.
#[test]
fn simd4x2_writes_only_active_samples_unmasked_channels() {
    let f = fake();
    let h = header(MessageHeaderSamplingEngine {
        green_write_channel_mask: true,
        ..Default::default()
    });
    let p = [h, reg(&[1, 2, 0, 0, 1, 1, 0, 1])];
    let r = handle_response(desc4x2(SamplerMessageType::LD, true, 2, 1), &p, 0x0f, &f).unwrap();
    assert_eq!(r.written, Some(vec![0b1101]));
    // One execution mask bit of a group makes the sample active (§2.13.1 "Execution
    // Mask": "If any of the high 4 bits are asserted, that sample is valid").
    let r = handle_response(desc4x2(SamplerMessageType::LD, true, 2, 1), &p, 0x20, &f).unwrap();
    assert_eq!(r.written, Some(vec![0b1101_0000]));
    assert_eq!(samples4x2(&r.registers[0])[1], unorm([203, 1, 2, 255]));
    // The writeback is one register.
    let e = handle(desc4x2(SamplerMessageType::LD, true, 2, 4), &p, 0xff, &f)
        .unwrap_err()
        .to_string();
    assert!(e.contains("one register"), "{e}");
}

/// sample_l in SIMD4x2 takes u v r ai first and the LOD fifth (§2.13.1.3.1), so a second
/// register: sample 0 at (0.125, 0.125) LOD 1 reads level-1 texel (0, 0), R = 200;
/// sample 1 at (0.875, 0.125) LOD 0 reads level-0 texel (3, 0), R = 30, G = 225, B = 3.
#[test]
fn simd4x2_sample_l_takes_the_lod_after_the_coordinates() {
    let mut f = fake();
    f.sampler.mip_mode_filter = MipModeFilter::MIPFILTER_NEAREST;
    let p = [
        reg(&floats(&[0.125, 0.125, 0.0, 0.0, 0.875, 0.125, 0.0, 0.0])),
        reg(&floats(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])),
    ];
    let w = handle(
        desc4x2(SamplerMessageType::SAMPLE_L, false, 2, 1),
        &p,
        0xff,
        &f,
    )
    .unwrap();
    assert_eq!(
        samples4x2(&w[0]),
        [unorm(level1(0, 0)), unorm([30, 225, 3, 255])]
    );
    // With only the first register sent, the LOD defaults to 0 (§2.13.1.3.1: parameters
    // not sent read 0): sample 0 reads level-0 texel (0, 0).
    let w = handle(
        desc4x2(SamplerMessageType::SAMPLE_L, false, 1, 1),
        &p[..1],
        0xff,
        &f,
    )
    .unwrap();
    assert_eq!(samples4x2(&w[0])[0], unorm(level0(0, 0)));
}

/// resinfo in SIMD4x2: the LOD is parameter 0 of each sample; LOD 0 gives 4x4, LOD 1 2x2,
/// with two levels.
#[test]
fn simd4x2_resinfo_returns_each_samples_size() {
    let f = fake();
    let p = [reg(&[0, 0, 0, 0, 1, 0, 0, 0])];
    let w = handle(
        desc4x2(SamplerMessageType::RESINFO, false, 1, 1),
        &p,
        0xff,
        &f,
    )
    .unwrap();
    let got: Vec<u32> = (0..8).map(|i| dword(&w[0], i)).collect();
    assert_eq!(got, [4, 4, 0, 2, 2, 2, 0, 2]);
}

/// Seed 000 §2.4: sample_c ("ref u v r") compares each texel's red with the reference
/// before filtering; the result, 0.0 where the comparison holds and 1.0 where not, fills
/// every channel. NEAREST at texel (1, 0), red 10/255, against 0.1: LEQUAL holds (0.0),
/// GREATER does not (1.0).
#[test]
fn sample_c_compares_each_texel_with_the_reference() {
    let mut f = fake();
    let at = [floats(&[0.1; 8]), floats(&[0.375; 8]), floats(&[0.125; 8])];
    f.sampler.shadow_function = ShadowFunction::PREFILTEROP_LEQUAL;
    let w = sample8(&f, SamplerMessageType::SAMPLE_C, &at);
    assert_eq!(rgba8(&w, 0), [0.0; 4]);
    f.sampler.shadow_function = ShadowFunction::PREFILTEROP_GREATER;
    let w = sample8(&f, SamplerMessageType::SAMPLE_C, &at);
    assert_eq!(rgba8(&w, 3), [1.0; 4]);
}

/// §2.4 "The binary result of each comparison is fed into the subsequent texture filter":
/// LINEAR at texel-space (1, 1) weighs texels (0..1, 0..1) a quarter each; their reds
/// 0, 10, 40, 50 (/255) against 0.1 (25.5/255) with LESS hold, hold, fail, fail: 0.5.
/// sample_l_c ("ref lod u v r") at LOD 1 reads level 1 (reds 200 and more): all fail, 1.0.
#[test]
fn sample_c_filters_the_comparison_results() {
    let mut f = fake();
    f.sampler.mag_mode_filter = MagModeFilter::MAPFILTER_LINEAR;
    f.sampler.min_mode_filter = MinModeFilter::MAPFILTER_LINEAR;
    f.sampler.shadow_function = ShadowFunction::PREFILTEROP_LESS;
    let w = sample8(
        &f,
        SamplerMessageType::SAMPLE_C,
        &[floats(&[0.1; 8]), floats(&[0.25; 8]), floats(&[0.25; 8])],
    );
    assert!(close(rgba8(&w, 0), [0.5; 4]), "{:?}", rgba8(&w, 0));
    f.sampler.mip_mode_filter = MipModeFilter::MIPFILTER_NEAREST;
    let w = sample8(
        &f,
        SamplerMessageType::SAMPLE_L_C,
        &[
            floats(&[0.1; 8]),
            floats(&[1.0; 8]),
            floats(&[0.25; 8]),
            floats(&[0.25; 8]),
        ],
    );
    assert!(close(rgba8(&w, 0), [1.0; 4]), "{:?}", rgba8(&w, 0));
}

/// sample_l_c in SIMD4x2 ("u v r ai ref lod", §2.13.1.3.1): sample 0 at texel (1, 0)
/// (red 10/255) against 0.1 with LEQUAL holds (0.0); sample 1 at texel (3, 3) (red
/// 150/255) does not (1.0). sample_c has no SIMD4x2 form without Force LOD to Zero.
#[test]
fn simd4x2_sample_l_c_takes_the_reference_after_the_coordinates() {
    let mut f = fake();
    f.sampler.shadow_function = ShadowFunction::PREFILTEROP_LEQUAL;
    let p = [
        reg(&floats(&[0.375, 0.125, 0.0, 0.0, 0.875, 0.875, 0.0, 0.0])),
        reg(&floats(&[0.1, 0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0])),
    ];
    let w = handle(
        desc4x2(SamplerMessageType::SAMPLE_L_C, false, 2, 1),
        &p,
        0xff,
        &f,
    )
    .unwrap();
    assert_eq!(samples4x2(&w[0]), [[0.0; 4], [1.0; 4]]);
    let e = handle(
        desc4x2(SamplerMessageType::SAMPLE_C, false, 2, 1),
        &p,
        0xff,
        &f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("not supported in SIMD4x2 mode"), "{e}");
}

/// Seed 000 §2.13.1.4 sample_d: "LOD is computed using the gradients present in the
/// message" ("u dudx dudy v dvdx dvdy", §2.13.1.3.1), per channel, as the ideal LOD of
/// §2.2.1.1: log2 of the longer texel-space gradient. On the 4x4 level 0, d/dx u = 0.5 is
/// 2 texels per pixel: LOD 1, level-1 texel (0, 0) (R = 200); 0.25 is 1 texel: LOD 0,
/// level-0 texel (0, 0) (R = 0). Channel 1 takes the first, channel 0 the second.
#[test]
fn sample_d_takes_the_lod_from_the_gradients() {
    let mut f = fake();
    f.sampler.mip_mode_filter = MipModeFilter::MIPFILTER_NEAREST;
    let mut dudx = vec![0.25f32; 8];
    dudx[1] = 0.5;
    let w = sample8(
        &f,
        SamplerMessageType::SAMPLE_D,
        &[
            floats(&[0.125; 8]),
            floats(&dudx),
            floats(&[0.0; 8]),
            floats(&[0.125; 8]),
            floats(&[0.0; 8]),
            floats(&[0.25; 8]),
        ],
    );
    assert_eq!(rgba8(&w, 0), unorm(level0(0, 0)));
    assert_eq!(rgba8(&w, 1), unorm(level1(0, 0)));
    // The SIMD4x2 order ("u v r ai dudx dudy dvdx dvdy"): the same two lookups.
    let p = [
        reg(&floats(&[0.125, 0.125, 0.0, 0.0, 0.125, 0.125, 0.0, 0.0])),
        reg(&floats(&[0.25, 0.0, 0.0, 0.25, 0.5, 0.0, 0.0, 0.25])),
    ];
    let w = handle(
        desc4x2(SamplerMessageType::SAMPLE_D, false, 2, 1),
        &p,
        0xff,
        &f,
    )
    .unwrap();
    assert_eq!(
        samples4x2(&w[0]),
        [unorm(level0(0, 0)), unorm(level1(0, 0))]
    );
    // "SIMD16 forms of sample_d and sample_d_c are not allowed" (§2.13.1.3.1).
    let e = handle(
        desc(SamplerMessageType::SAMPLE_D, true, false, 2, 8),
        &payload(&[vec![0; 16]]),
        0xffff,
        &f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("SIMD16 forms of sample_d"), "{e}");
}

/// Seed 000 §2.13.1.4 gather4 ("u v r ai"): the bilinear footprint at (0.25, 0.25),
/// texel space (1, 1), is texels (0..1, 0..1), returned unfiltered: lower left (0, 1) in
/// red, lower right (1, 1) in green, upper right (1, 0) in blue, upper left (0, 0) in
/// alpha. Their reds are 40, 50, 10, 0; their greens 215, 205, 245, 255.
#[test]
fn gather4_returns_the_footprints_four_texels() {
    let f = fake();
    let uv = [floats(&[0.25; 8]), floats(&[0.25; 8])];
    let w = sample8(&f, SamplerMessageType::GATHER4, &uv);
    assert_eq!(rgba8(&w, 0), [40.0, 50.0, 10.0, 0.0].map(|r| r / 255.0));
    // Gather4 Source Channel Select = green (M0.2 17:16).
    let mut p = vec![header(MessageHeaderSamplingEngine {
        gather4_source_channel_select:
            gtsim_spec::gen7::message_header_sampling_engine::Gather4SourceChannelSelect(1),
        ..Default::default()
    })];
    p.extend(payload(&uv));
    let w = handle(
        desc(SamplerMessageType::GATHER4, false, true, 3, 4),
        &p,
        0xff,
        &f,
    )
    .unwrap();
    assert_eq!(
        rgba8(&w, 7),
        [215.0, 205.0, 245.0, 255.0].map(|g| g / 255.0)
    );
}

/// gather4_c ("ref u v r ai") returns the four comparisons (LESS against 0.1: reds 0 and
/// 10 hold, 0.0; 40 and 50 do not, 1.0); gather4_po ("u v offu offv r") moves the
/// footprint by its per-channel offsets, of which only the low 6 bits count: 65 is +1,
/// so texels (1..2, 0..1), reds 50, 60, 20, 10.
#[test]
fn gather4_c_compares_and_gather4_po_offsets_per_channel() {
    let mut f = fake();
    f.sampler.shadow_function = ShadowFunction::PREFILTEROP_LESS;
    let w = sample8(
        &f,
        SamplerMessageType::GATHER4_C,
        &[floats(&[0.1; 8]), floats(&[0.25; 8]), floats(&[0.25; 8])],
    );
    assert_eq!(rgba8(&w, 0), [1.0, 1.0, 0.0, 0.0]);
    let w = sample8(
        &f,
        SamplerMessageType::GATHER4_PO,
        &[
            floats(&[0.25; 8]),
            floats(&[0.25; 8]),
            vec![65; 8],
            vec![0; 8],
        ],
    );
    assert_eq!(rgba8(&w, 0), [50.0, 60.0, 20.0, 10.0].map(|r| r / 255.0));
}

/// Seed 000 §2.13.1.4 LOD: the subspan's LOD, clamped (red) and unclamped (green). u
/// steps by 1.0 from the upper-left pixel to the upper-right on the 4-texel-wide level 0:
/// 4 texels per pixel, LOD log2(4) = 2; Max LOD and MIP Count 1 clamp it to 1
/// (MIPFILTER_NEAREST rounds, 1 stays 1).
#[test]
fn lod_returns_the_clamped_and_unclamped_lod() {
    let mut f = fake();
    f.sampler.mip_mode_filter = MipModeFilter::MIPFILTER_NEAREST;
    let u = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0];
    let w = sample8(
        &f,
        SamplerMessageType::LOD,
        &[floats(&u), floats(&[0.0; 8])],
    );
    assert_eq!([dword(&w[0], 0), dword(&w[1], 0)], floats(&[1.0, 2.0])[..]);
}

/// A cube array of two cubes with 2x2 faces (R8G8B8A8_UNORM, linear): slice k = 6 * cube
/// + face (+X, -X, +Y, -Y, +Z, -Z) holds texel (x, y) = R 20k + 2x + y, G 7, B 9, A 255.
fn cube_fake() -> Fake {
    use gtsim_gen7::surface_state::{Use, surface_from_state};
    use gtsim_mem::format::texel::Texel;
    use gtsim_mem::surface::TexelCoord;
    let mut f = fake();
    f.mem.map(BASE + 0x1000, 0x8000);
    f.surface = RenderSurfaceState {
        surface_type: SurfaceType::SURFTYPE_CUBE,
        surface_format: SurfaceFormat::R8G8B8A8_UNORM,
        width: 1,
        height: 1,
        depth: 1,
        surface_pitch: 63,
        surface_base_address: BASE,
        mip_count_lod: 0,
        ..Default::default()
    };
    let (surface, _) = surface_from_state(&f.surface, Use::Sampled).unwrap();
    for k in 0..12u32 {
        for y in 0..2u32 {
            for x in 0..2u32 {
                let r = (20 * k + 2 * x + y) as f32 / 255.0;
                let at = TexelCoord {
                    x,
                    y,
                    slice: k,
                    ..TexelCoord::default()
                };
                surface
                    .write_texel(
                        &mut f.mem,
                        at,
                        Texel::Float([r, 7.0 / 255.0, 9.0 / 255.0, 1.0]),
                    )
                    .unwrap();
            }
        }
    }
    f
}

fn cube_texel(slice: u32, x: u32, y: u32) -> [f32; 4] {
    unorm([(20 * slice + 2 * x + y) as u8, 7, 9, 255])
}

/// Seed 000 §2.1.2 face selection with OpenGL's Table 8.19 orientation, worked by hand
/// for sample_l ("lod u v r ai") at LOD 0, NEAREST: (1, -0.5, -0.5) is +X at sc = -rz =
/// 0.5, tc = -ry = 0.5: texel (1, 1); (-1, -0.5, 0.5) is -X at sc = rz, tc = -ry: (1, 1)
/// of slice 1; (0.5, 1, -0.5) is +Y at sc = rx, tc = rz: (1, 0) of slice 2; (-0.5, -0.5,
/// -1) is -Z at sc = -rx, tc = -ry: (1, 1) of slice 5; cube 1 adds six slices.
#[test]
fn cube_directions_select_faces_and_texels() {
    let f = cube_fake();
    let cases = [
        ([1.0, -0.5, -0.5], 0.0, cube_texel(0, 1, 1)),
        ([-1.0, -0.5, 0.5], 0.0, cube_texel(1, 1, 1)),
        ([0.5, 1.0, -0.5], 0.0, cube_texel(2, 1, 0)),
        ([-0.5, -0.5, -1.0], 0.0, cube_texel(5, 1, 1)),
        ([-0.5, -0.5, -1.0], 1.0, cube_texel(11, 1, 1)),
    ];
    for (d, ai, want) in cases {
        let w = sample8(
            &f,
            SamplerMessageType::SAMPLE_L,
            &[
                floats(&[0.0; 8]),
                floats(&[d[0]; 8]),
                floats(&[d[1]; 8]),
                floats(&[d[2]; 8]),
                floats(&[ai; 8]),
            ],
        );
        assert_eq!(rgba8(&w, 0), want, "{d:?} cube {ai}");
    }
}

/// A cube subspan's LOD is measured on its upper-left pixel's face or its centre's,
/// whichever gives the smaller LOD (the model's choice where seed 000 §2.2.1.1 leaves it
/// to the implementation), worked by hand with the LOD message (green: the unclamped
/// LOD). The subspan lies on +X with directions UL (1, 1.1, 1.2), UR (1, 1.1, 0.7), LL
/// (1, 0.6, 1.2), LR (1, 0.6, 0.7), sent divided by their largest component (§2.1.2);
/// its upper-left pixel, a helper past +X's corner, selects +Z. On +X (the face of UR +
/// LL = (2, 1.7, 1.9)), sc = -z/x and tc = -y/x step by 0.5 a pixel in x and in y: s and
/// t by 0.25, on 2x2 faces half a texel a pixel, LOD log2(0.5) = -1. On +Z the x step
/// is UR (1/0.7, -1.1/0.7) less UL (1/1.2, -1.1/1.2), halved and times 2 texels:
/// (0.5952, -0.6548), length 0.8849, and the y step (0, 0.4167): LOD -0.1764. The
/// smaller, -1, is the answer.
#[test]
fn a_cube_subspans_lod_is_the_smaller_of_its_upper_left_and_centre_faces() {
    let f = cube_fake();
    let dirs: [[f32; 3]; 4] = [
        [1.0, 1.1, 1.2],
        [1.0, 1.1, 0.7],
        [1.0, 0.6, 1.2],
        [1.0, 0.6, 0.7],
    ];
    let sent = dirs.map(|d| {
        let m = d.iter().fold(0.0f32, |m, c| m.max(c.abs()));
        d.map(|c| c / m)
    });
    let lanes = |a: usize| floats(&[0, 1, 2, 3, 0, 1, 2, 3].map(|l| sent[l][a]));
    let w = sample8(&f, SamplerMessageType::LOD, &[lanes(0), lanes(1), lanes(2)]);
    for lane in 0..8 {
        let got = f32::from_bits(dword(&w[1], lane));
        assert!((got + 1.0).abs() < 1e-5, "lane {lane}: {got}");
    }
    // x and z swapped, so that the upper-left pixel's face is +X and the centre's +Z:
    // UL (1.2, 1.1, 1), UR (0.7, 1.1, 1), LL (1.2, 0.6, 1), UR + LL = (1.9, 1.7, 2).
    // The swap maps each face's steps onto the other's with the same lengths: -0.1764
    // on +X, -1 on +Z. The smaller is -1 again, whichever face is the upper-left's.
    let mirrored = dirs.map(|d| [d[2], d[1], d[0]]).map(|d| {
        let m = d.iter().fold(0.0f32, |m, c| m.max(c.abs()));
        d.map(|c| c / m)
    });
    let lanes = |a: usize| floats(&[0, 1, 2, 3, 0, 1, 2, 3].map(|l| mirrored[l][a]));
    let w = sample8(&f, SamplerMessageType::LOD, &[lanes(0), lanes(1), lanes(2)]);
    let got = f32::from_bits(dword(&w[1], 0));
    assert!((got + 1.0).abs() < 1e-5, "mirrored: {got}");
}

/// sample_d of a cube (seed 000 §2.13.1.4): u, v are already the face's coordinates,
/// "still in [-1,+1] range", and r the face id; ai follows r's gradients. u 0.5, v -0.5
/// on face 2 (+Y) of cube 1 is s 0.75, t 0.25: texel (1, 0) of slice 6 + 2; face 4.6
/// rounds to 5.
#[test]
fn sample_d_of_a_cube_takes_face_coordinates_and_the_face_id() {
    let f = cube_fake();
    for (r, ai, want) in [
        (2.0, 1.0, cube_texel(8, 1, 0)),
        (4.6, 0.0, cube_texel(5, 1, 0)),
    ] {
        let w = sample8(
            &f,
            SamplerMessageType::SAMPLE_D,
            &[
                floats(&[0.5; 8]),
                floats(&[0.0; 8]),
                floats(&[0.0; 8]),
                floats(&[-0.5; 8]),
                floats(&[0.0; 8]),
                floats(&[0.0; 8]),
                floats(&[r; 8]),
                floats(&[0.0; 8]),
                floats(&[0.0; 8]),
                floats(&[ai; 8]),
            ],
        );
        assert_eq!(rgba8(&w, 3), want, "face {r} cube {ai}");
    }
}

/// §2.2.3.6 TEXCOORDMODE_CUBE, worked by hand: LINEAR at (1, -0.5, -1) (a tie, +X) is
/// +X's right edge, s = 1, t = 0.75: taps x = 1 and 2 at weight 1/2, y = 1. Tap x = 2 is
/// past the edge: its centre (sc 1.5, tc 0.5) is the direction (1, -0.5, -1.5), which
/// selects -Z at sc = -1/1.5, tc = 0.5/1.5: s = 1/6, t = 2/3, texel (0, 1) of slice 5. The
/// result is half +X (1, 1) (R 3) and half -Z (0, 1) (R 101): R 52. With CLAMP the tap
/// stays on +X: R 3.
#[test]
fn cube_mode_filters_across_a_face_edge() {
    let mut f = cube_fake();
    f.sampler.mag_mode_filter = MagModeFilter::MAPFILTER_LINEAR;
    f.sampler.min_mode_filter = MinModeFilter::MAPFILTER_LINEAR;
    let p = [
        floats(&[0.0; 8]),
        floats(&[1.0; 8]),
        floats(&[-0.5; 8]),
        floats(&[-1.0; 8]),
    ];
    f.sampler.tcx_address_control_mode = Texcoordmode::TEXCOORDMODE_CLAMP;
    f.sampler.tcy_address_control_mode = Texcoordmode::TEXCOORDMODE_CLAMP;
    let w = sample8(&f, SamplerMessageType::SAMPLE_L, &p);
    assert_eq!(rgba8(&w, 0), cube_texel(0, 1, 1));
    f.sampler.tcx_address_control_mode = Texcoordmode::TEXCOORDMODE_CUBE;
    f.sampler.tcy_address_control_mode = Texcoordmode::TEXCOORDMODE_CUBE;
    let w = sample8(&f, SamplerMessageType::SAMPLE_L, &p);
    let want = [52.0 / 255.0, 7.0 / 255.0, 9.0 / 255.0, 1.0];
    assert!(close(rgba8(&w, 0), want), "{:?}", rgba8(&w, 0));
    // Cube Surface Control Mode OVERRIDE makes CLAMP read as CUBE (§2.12.3).
    f.sampler.tcx_address_control_mode = Texcoordmode::TEXCOORDMODE_CLAMP;
    f.sampler.tcy_address_control_mode = Texcoordmode::TEXCOORDMODE_CLAMP;
    f.sampler.cube_surface_control_mode =
        gtsim_spec::gen7::sampler_state::CubeSurfaceControlMode::CUBECTRLMODE_OVERRIDE;
    let w = sample8(&f, SamplerMessageType::SAMPLE_L, &p);
    assert!(close(rgba8(&w, 0), want), "{:?}", rgba8(&w, 0));
}

/// Ivy Bridge gathers integer surfaces (Mesa's crocus works around broken integer
/// gathers only on Gen6): the texels' integer values, as ld returns them. An R32G32_UINT
/// surface also shows the RG32 channel-select quirk crocus relies on: selecting blue
/// returns green.
#[test]
fn gather4_of_integer_surfaces_returns_integer_texels() {
    let mut f = fake();
    f.surface.surface_format = SurfaceFormat::R8G8B8A8_UINT;
    let uv = [floats(&[0.25; 8]), floats(&[0.25; 8])];
    let w = sample8(&f, SamplerMessageType::GATHER4, &uv);
    assert_eq!([0, 1, 2, 3].map(|c| dword(&w[c], 0)), [40, 50, 10, 0]);
    // R32G32_UINT over the same bytes: texel (x, y) of row pitch 16 is two dwords; the
    // 4x4 fixture is read as 2 texels wide. Green of texel (0, 0) is bytes 4-7 (texel
    // (1, 0) of the RGBA8 pattern: 10, 245, 1, 255).
    f.surface.surface_format = SurfaceFormat::R32G32_UINT;
    f.surface.width = 1;
    let mut p = vec![header(MessageHeaderSamplingEngine {
        gather4_source_channel_select:
            gtsim_spec::gen7::message_header_sampling_engine::Gather4SourceChannelSelect(2),
        ..Default::default()
    })];
    p.extend(payload(&[floats(&[0.25; 8]), floats(&[0.25; 8])]));
    let w = handle(
        desc(SamplerMessageType::GATHER4, false, true, 3, 4),
        &p,
        0xff,
        &f,
    )
    .unwrap();
    let green00 = u32::from_le_bytes([10, 245, 1, 255]);
    assert_eq!(dword(&w[3], 0), green00);
}

/// A 16x4 RGBA8 surface with two levels for MAPFILTER_ANISOTROPIC: level 0 has red 200,
/// 100, 100, 40 in columns 6 to 9 and 0 elsewhere (every row alike); level 1 is red 250.
fn aniso_fake() -> Fake {
    use gtsim_gen7::surface_state::{Use, surface_from_state};
    use gtsim_mem::format::texel::Texel;
    use gtsim_mem::surface::TexelCoord;
    let mut f = fake();
    f.mem.map(BASE + 0x1000, 0x4000);
    f.surface = RenderSurfaceState {
        surface_type: SurfaceType::SURFTYPE_2D,
        surface_format: SurfaceFormat::R8G8B8A8_UNORM,
        width: 15,
        height: 3,
        surface_pitch: 63,
        surface_base_address: BASE,
        mip_count_lod: 1,
        ..Default::default()
    };
    let (surface, _) = surface_from_state(&f.surface, Use::Sampled).unwrap();
    for lod in 0..2u32 {
        for y in 0..(4 >> lod) {
            for x in 0..(16 >> lod) {
                let r = match (lod, x) {
                    (1, _) => 250,
                    (_, 6) => 200,
                    (_, 7 | 8) => 100,
                    (_, 9) => 40,
                    _ => 0,
                };
                let at = TexelCoord {
                    x,
                    y,
                    lod,
                    ..TexelCoord::default()
                };
                let t = Texel::Float([r as f32 / 255.0, 0.0, 0.0, 1.0]);
                surface.write_texel(&mut f.mem, at, t).unwrap();
            }
        }
    }
    // Mesa programs both filters ANISOTROPIC; at LOD 0 the magnification filter applies.
    f.sampler.min_mode_filter = MinModeFilter::MAPFILTER_ANISOTROPIC;
    f.sampler.mag_mode_filter = MagModeFilter::MAPFILTER_ANISOTROPIC;
    f.sampler.mip_mode_filter = MipModeFilter::MIPFILTER_NEAREST;
    f.sampler.maximum_anisotropy = gtsim_spec::gen7::sampler_state::MaximumAnisotropy(7);
    f
}

/// A subspan whose upper-left pixel is at texel space (8, 1.5) with d/dx = `dx` texels
/// along u and d/dy one texel along v; channel 0's red.
fn aniso_red(f: &Fake, dx: f32) -> f32 {
    let (u, v) = (0.5, 0.375);
    let us = [u, u + dx / 16.0, u, u + dx / 16.0, u, u, u, u];
    let vs = [v, v, v + 0.25, v + 0.25, v, v, v, v];
    let w = sample8(f, SamplerMessageType::SAMPLE, &[floats(&us), floats(&vs)]);
    rgba8(&w, 0)[0] * 255.0
}

/// Seed 000 §2.2.2.3 worked by hand. d/dx 4 texels, d/dy 1: the ratio is 4 and "LOD is
/// chosen based on the minor axis length": LOD 0 (the major axis alone would give LOD 2,
/// level 1, red 250). Four ways, "spaced one texel apart" along u around x = 8: texel
/// centres 6.5 to 9.5, reds 200, 100, 100, 40, all weight 1 (the endpoints weigh
/// (ratio - (ways - 2)) / 2 = 1): 110, where LINEAR at x = 8 gives 100. With ratio 3 the
/// ways stay 4 and the endpoints weigh 1/2: (100 + 100 + 100 + 20) / 3 = 106.67.
#[test]
fn anisotropic_filtering_samples_along_the_major_axis() {
    let f = aniso_fake();
    assert!(
        (aniso_red(&f, 4.0) - 110.0).abs() < 0.01,
        "{}",
        aniso_red(&f, 4.0)
    );
    assert!(
        (aniso_red(&f, 3.0) - 320.0 / 3.0).abs() < 0.01,
        "{}",
        aniso_red(&f, 3.0)
    );
    // Maximum Anisotropy 2:1 (field 0): the ratio is capped at 2, the minor axis
    // lengthened to 4 / 2 = 2 texels: LOD 1, level 1 (red 250 everywhere).
    let mut capped = aniso_fake();
    capped.sampler.maximum_anisotropy = gtsim_spec::gen7::sampler_state::MaximumAnisotropy(0);
    assert!(
        (aniso_red(&capped, 4.0) - 250.0).abs() < 0.01,
        "{}",
        aniso_red(&capped, 4.0)
    );
}

/// Seed 000 §2.12.2.1.2, the Sampler Output Channel Mapping: a border colour tap returns
/// the channels the surface format lacks as the format's defaults, 0.0 for colour and
/// 1.0 for alpha in DX10/OGL Border Color Mode and 1.0 in DX9 mode (the table's
/// R32G32_FLOAT row: "R G 0.0 1.0", "DX9 R G 1.0 1.0"; R8G8_UNORM alike). The border
/// colour here is (0.25, 0.5, 0.75, 1.0).
#[test]
fn border_colour_channels_follow_the_format() {
    let mut f = fake();
    f.sampler.tcx_address_control_mode = Texcoordmode::TEXCOORDMODE_CLAMP_BORDER;
    f.sampler.tcy_address_control_mode = Texcoordmode::TEXCOORDMODE_CLAMP_BORDER;
    let outside = [floats(&[1.5; 8]), floats(&[0.5; 8])];
    // All four channels stored: the border colour as it is.
    let w = sample8(&f, SamplerMessageType::SAMPLE, &outside);
    assert_eq!(rgba8(&w, 0), [0.25, 0.5, 0.75, 1.0]);
    f.surface.surface_format = SurfaceFormat::R8G8_UNORM;
    let w = sample8(&f, SamplerMessageType::SAMPLE, &outside);
    assert_eq!(rgba8(&w, 0), [0.25, 0.5, 0.0, 1.0]);
    f.sampler.texture_border_color_mode =
        gtsim_spec::gen7::sampler_state::TextureBorderColorMode(1);
    let w = sample8(&f, SamplerMessageType::SAMPLE, &outside);
    assert_eq!(rgba8(&w, 0), [0.25, 0.5, 1.0, 1.0]);
}

/// X Offset and Y Offset (seed 000 RENDER_SURFACE_STATE DW5, in multiples of 4 pixels
/// and 2 rows) move a tiled surface's origin from its base address. A 4x4 R8G8B8A8
/// surface, Y-tiled with a 128-byte pitch, X Offset 1 (4 pixels, bytes 16-31 of a row)
/// and Y Offset 14 (28 rows): texel (x, y) is byte 16 + 4x of tile row y + 28, which a
/// Y tile keeps in its second OWord column, at 512 + 16 (y + 28) + 4x. crocus binds a 3D
/// slice this way for a framebuffer fetch (piglit's single-slice-3d).
#[test]
fn ld_reads_from_the_surface_origin_that_x_and_y_offset_give() {
    // A memory of its own: fake()'s level 0 sits where an offset-less Y tile keeps the
    // texels, which would let a model that drops the offsets pass.
    let mut f = fake();
    f.mem = AddressSpace::new();
    f.mem.map(BASE, 0x1000);
    for y in 0..4u32 {
        for x in 0..4u32 {
            let at = 512 + 16 * u64::from(y + 28) + 4 * u64::from(x);
            f.mem.load(BASE + at, &level0(x, y));
        }
    }
    f.surface = RenderSurfaceState {
        surface_type: SurfaceType::SURFTYPE_2D,
        surface_format: SurfaceFormat::R8G8B8A8_UNORM,
        width: 3,
        height: 3,
        surface_pitch: 127,
        surface_base_address: BASE,
        tiled_surface: true,
        tile_walk: gtsim_spec::gen7::render_surface_state::TileWalk::TILEWALK_YMAJOR,
        x_offset: 1,
        y_offset: 14,
        ..Default::default()
    };
    let u = vec![0, 3, 1, 2, 0, 0, 0, 0];
    let lod = vec![0; 8];
    let v = vec![0, 3, 2, 1, 0, 0, 0, 0];
    let w = sample8(&f, SamplerMessageType::LD, &[u, lod, v]);
    for (lane, (x, y)) in [(0, 0), (3, 3), (1, 2), (2, 1)].into_iter().enumerate() {
        assert_eq!(rgba8(&w, lane), unorm(level0(x, y)), "texel ({x}, {y})");
    }
    // "For linear surfaces, this field must be zero": a linear surface with an offset
    // is refused, naming the field.
    f.surface.tiled_surface = false;
    let e = handle(
        desc(SamplerMessageType::LD, false, false, 3, 4),
        &payload(&[vec![0; 8], vec![0; 8], vec![0; 8]]),
        0xff,
        &f,
    )
    .unwrap_err();
    assert!(e.to_string().contains("X Offset"), "{e}");
}
