//! The multisampled-surface sampler messages (seed 000 §2.7, §2.13.1.4): ld2dms, ld2dss,
//! ld_mcs and sampleinfo, on surfaces laid out by hand in an `AddressSpace`.
//!
//! The colour surface: 2x2 pixels, 4 samples, R8G8B8A8_UNORM, linear, pitch 8 bytes,
//! MSFMT_MSS with ARYSPC_LOD0 and VALIGN_2, so each sample slice is the 2 rows of level
//! 0 and sample slice `s` of array slice `a` is physical slice 4a + s, at row 2(4a + s)
//! (seed 000 §2.12.2 Surface Array Spacing; samples as array slices, IVB PRM Vol 1 Part 1
//! "Multisampled Surfaces"). Sample slice `s` of pixel (x, y) holds bytes
//! [10x + 1, 10y + 2, 10s + 3, 255].
//!
//! The MCS: Y-tiled, pitch 128 bytes, one byte per pixel (R8_UINT for 4x); inside the
//! first tile byte (x, y) is at 16y + x (a Y tile is 16-byte columns of 32 rows).

use gtsim_gen7::sampling::{SamplerTables as SamplerResources, handle};
use gtsim_mem::AddressSpace;
use gtsim_message::MessageError;
use gtsim_spec::gen7::message_descriptor_sampling_engine::SimdMode;
use gtsim_spec::gen7::render_surface_state::{
    AlphaClearColor, MultisampledSurfaceStorageFormat, NumberOfMultisamples, RedClearColor,
    SurfaceArraySpacing, SurfaceType,
};
use gtsim_spec::gen7::{
    MessageDescriptorSamplingEngine, RenderSurfaceState, SamplerMessageType as T, SamplerState,
};
use gtsim_spec::shared::SurfaceFormat;

const BASE: u64 = 0x1_0000;
const MCS: u64 = 0x2_0000;

struct Fake {
    mem: AddressSpace,
    surface: RenderSurfaceState,
}

impl SamplerResources for Fake {
    fn surface(&self, bti: u8) -> Result<RenderSurfaceState, MessageError> {
        match bti {
            0 => Ok(self.surface.clone()),
            _ => Err(MessageError::Invalid(format!("no surface at BTI {bti}"))),
        }
    }
    fn sampler(&self, _: u8) -> Result<(SamplerState, [f32; 4]), MessageError> {
        Ok((SamplerState::default(), [0.0; 4]))
    }
    fn memory(&self) -> &dyn gtsim_mem::Memory {
        &self.mem
    }
}

fn texel(x: u32, y: u32, s: u32) -> [u8; 4] {
    [
        (10 * x + 1) as u8,
        (10 * y + 2) as u8,
        (10 * s + 3) as u8,
        255,
    ]
}

fn unorm(b: [u8; 4]) -> [f32; 4] {
    b.map(|c| f32::from(c) / 255.0)
}

/// The 4x colour surface with two array slices; `mcs` enables the MCS whose bytes for
/// pixels (0,0), (1,0), (0,1), (1,1) of array slice 0 are given.
fn fake(mcs: Option<[u8; 4]>) -> Fake {
    let mut mem = AddressSpace::new();
    mem.map(BASE, 0x1000);
    mem.map(MCS, 0x2000);
    for a in 0..2 {
        for s in 0..4 {
            for y in 0..2 {
                for x in 0..2 {
                    let row = 2 * (4 * a + s) + y;
                    let mut t = texel(x, y, s);
                    t[3] = 255 - a as u8;
                    mem.load(BASE + 8 * u64::from(row) + 4 * u64::from(x), &t);
                }
            }
        }
    }
    if let Some(m) = mcs {
        for (i, v) in m.iter().enumerate() {
            let (x, y) = (i as u64 % 2, i as u64 / 2);
            mem.load(MCS + 16 * y + x, &[*v]);
        }
    }
    Fake {
        mem,
        surface: RenderSurfaceState {
            surface_type: SurfaceType::SURFTYPE_2D,
            surface_format: SurfaceFormat::R8G8B8A8_UNORM,
            surface_array: true,
            width: 1,
            height: 1,
            depth: 1,
            surface_pitch: 7,
            surface_base_address: BASE,
            surface_array_spacing: SurfaceArraySpacing::ARYSPC_LOD0,
            number_of_multisamples: NumberOfMultisamples::MULTISAMPLECOUNT_4,
            mcs_enable: mcs.is_some(),
            mcs_base_address: MCS,
            mcs_surface_pitch: 0,
            ..Default::default()
        },
    }
}

fn desc(ty: T, simd: SimdMode, mlen: u8, rlen: u8) -> u32 {
    MessageDescriptorSamplingEngine {
        message_length: mlen,
        response_length: rlen,
        header_present: false,
        simd_mode: simd,
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

fn dword(r: &[u8; 32], i: usize) -> u32 {
    u32::from_le_bytes([r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]])
}

/// A SIMD8 message of one register per parameter, all channels enabled: the writeback's
/// four channels per lane.
fn simd8(f: &Fake, ty: T, params: &[[u32; 8]]) -> Result<Vec<[u32; 4]>, MessageError> {
    let payload: Vec<[u8; 32]> = params.iter().map(|p| reg(p)).collect();
    let w = handle(
        desc(ty, SimdMode::SIMD8, params.len() as u8, 4),
        &payload,
        0xff,
        f,
    )?;
    Ok((0..8)
        .map(|lane| std::array::from_fn(|c| dword(&w[c], lane)))
        .collect())
}

fn floats(v: [u32; 4]) -> [f32; 4] {
    v.map(f32::from_bits)
}

/// Lane i reads pixel (i & 1, (i >> 1) & 1) of slice 0.
const U: [u32; 8] = [0, 1, 0, 1, 0, 1, 0, 1];
const V: [u32; 8] = [0, 0, 1, 1, 0, 0, 1, 1];
const ZERO: [u32; 8] = [0; 8];

#[test]
fn ld2dms_without_an_mcs_reads_sample_slice_si() {
    let f = fake(None);
    let si = [0, 1, 2, 3, 3, 2, 1, 0];
    // si mcs u v r lod; the mcs parameter is ignored without an MCS.
    let out = simd8(&f, T::LD2DMS, &[si, [0xff; 8], U, V, ZERO, ZERO]).unwrap();
    for lane in 0..8 {
        let want = unorm(texel(U[lane], V[lane], si[lane]));
        assert_eq!(floats(out[lane]), want, "lane {lane}");
    }
    // Array slice 1: physical slices 4-7, alpha 254 in this surface.
    let out = simd8(&f, T::LD2DMS, &[si, ZERO, U, V, [1; 8], ZERO]).unwrap();
    let mut want = texel(1, 0, 1);
    want[3] = 254;
    assert_eq!(floats(out[1]), unorm(want));
}

#[test]
fn ld2dms_follows_the_mcs_value_to_the_sample_slice() {
    let f = fake(Some([0; 4]));
    // 4x: two bits per sample, sample 0 lowest. 0b00_01_10_11: sample 0 in slice 3,
    // 1 in 2, 2 in 1, 3 in 0. 0: every sample in slice 0 (seed 000 §2.7.1).
    let mcs = 0b00_01_10_11;
    let si = [0, 1, 2, 3, 0, 1, 2, 3];
    let m = [mcs, mcs, mcs, mcs, 0, 0, 0, 0];
    let out = simd8(&f, T::LD2DMS, &[si, m, U, V, ZERO]).unwrap();
    let slices = [3, 2, 1, 0, 0, 0, 0, 0];
    for lane in 0..8 {
        let want = unorm(texel(U[lane], V[lane], slices[lane]));
        assert_eq!(floats(out[lane]), want, "lane {lane}");
    }
}

#[test]
fn the_all_ones_mcs_value_reads_the_clear_colour() {
    let mut f = fake(Some([0; 4]));
    f.surface.red_clear_color = RedClearColor::CC_ONE;
    f.surface.alpha_clear_color = AlphaClearColor::CC_ONE;
    let out = simd8(&f, T::LD2DMS, &[ZERO, [0xff; 8], U, V, ZERO]).unwrap();
    assert_eq!(floats(out[3]), [1.0, 0.0, 0.0, 1.0]);
    // An integer format reads integers.
    f.surface.surface_format = SurfaceFormat::R8G8B8A8_UINT;
    let out = simd8(&f, T::LD2DMS, &[ZERO, [0xff; 8], U, V, ZERO]).unwrap();
    assert_eq!(out[0], [1, 0, 0, 1]);
}

#[test]
fn ld2dss_reads_the_named_sample_slice() {
    let f = fake(Some([0; 4]));
    let ssi = [3, 2, 1, 0, 0, 1, 2, 3];
    let out = simd8(&f, T::LD2DSS, &[ssi, U, V, ZERO]).unwrap();
    for lane in 0..8 {
        let want = unorm(texel(U[lane], V[lane], ssi[lane]));
        assert_eq!(floats(out[lane]), want, "lane {lane}");
    }
}

#[test]
fn ld_mcs_reads_the_control_surface_as_r8_uint() {
    let f = fake(Some([0x1b, 0xe4, 0x00, 0xff]));
    let out = simd8(&f, T::LD_MCS, &[U, V, ZERO, ZERO]).unwrap();
    let want = [0x1b, 0xe4, 0x00, 0xff];
    for lane in 0..8 {
        // R8_UINT: green and blue 0, alpha 1 (seed 000 §2.12.2.1.2).
        assert_eq!(out[lane], [want[lane % 4], 0, 0, 1], "lane {lane}");
    }
    // Outside the surface: zero.
    let out = simd8(&f, T::LD_MCS, &[[2; 8], V, ZERO, ZERO]).unwrap();
    assert_eq!(out[0], [0, 0, 0, 1]);
    // No MCS: 0 for every pixel.
    let out = simd8(&fake(None), T::LD_MCS, &[U, V, ZERO, ZERO]).unwrap();
    assert_eq!(out[1], [0, 0, 0, 1]);
}

#[test]
fn out_of_range_samples_and_pixels_read_zero() {
    let f = fake(None);
    // Sample 4 of a 4x surface, pixel (2, 0), array slice 2, LOD 1.
    let out = simd8(
        &f,
        T::LD2DMS,
        &[
            [4, 0, 0, 0, 0, 0, 0, 0],
            ZERO,
            [0, 2, 0, 0, 0, 0, 0, 0],
            ZERO,
            [0, 0, 2, 0, 0, 0, 0, 0],
            [0, 0, 0, 1, 0, 0, 0, 0],
        ],
    )
    .unwrap();
    for (lane, texel) in out.iter().enumerate().take(4) {
        // R8G8B8A8_UNORM has alpha: every channel 0.
        assert_eq!(*texel, [0; 4], "lane {lane}");
    }
    assert_eq!(floats(out[4]), unorm(texel(0, 0, 0)));
}

#[test]
fn sampleinfo_returns_the_count_and_palette_index_plus_one() {
    let mut f = fake(None);
    f.surface.multisample_position_palette_index = 2;
    let out = simd8(&f, T::SAMPLEINFO, &[ZERO]).unwrap();
    assert_eq!(out[5], [4, 0, 0, 3]);
    f.surface.number_of_multisamples = NumberOfMultisamples::MULTISAMPLECOUNT_8;
    assert_eq!(simd8(&f, T::SAMPLEINFO, &[ZERO]).unwrap()[0][0], 8);
    f.surface.number_of_multisamples = NumberOfMultisamples::MULTISAMPLECOUNT_1;
    assert_eq!(simd8(&f, T::SAMPLEINFO, &[ZERO]).unwrap()[0][0], 1);
    f.surface.surface_type = SurfaceType::SURFTYPE_NULL;
    assert_eq!(simd8(&f, T::SAMPLEINFO, &[ZERO]).unwrap()[0], [0; 4]);
    f.surface.surface_type = SurfaceType::SURFTYPE_3D;
    let e = simd8(&f, T::SAMPLEINFO, &[ZERO]).unwrap_err().to_string();
    assert!(e.contains("sampleinfo of a SURFTYPE_3D surface"), "{e}");
}

/// SIMD4x2 ld2dms: "u v r lod si mcs" (seed 000 §2.13.1.3.1), four parameters per
/// register, sample 0's in dwords 0-3 and sample 1's in 4-7; the writeback is one
/// register, sample 0's RGBA then sample 1's.
#[test]
fn simd4x2_ld2dms_and_ld_mcs() {
    let f = fake(Some([0, 0b11_10_01_00, 0, 0]));
    let payload = [
        reg(&[1, 0, 0, 0, 0, 1, 0, 0]),
        reg(&[2, 0, 0, 0, 3, 0, 0, 0]),
    ];
    let w = handle(desc(T::LD2DMS, SimdMode::SIMD4X2, 2, 1), &payload, 0xff, &f).unwrap();
    let lane = |s: usize| floats(std::array::from_fn(|c| dword(&w[0], 4 * s + c)));
    // Without an MCS value to go by (mcs 0): sample 2 of (1, 0) in slice 0.
    assert_eq!(lane(0), unorm(texel(1, 0, 0)));
    assert_eq!(lane(1), unorm(texel(0, 1, 0)));
    // ld_mcs "u v r lod" in SIMD4x2.
    let payload = [reg(&[1, 0, 0, 0, 0, 1, 0, 0])];
    let w = handle(desc(T::LD_MCS, SimdMode::SIMD4X2, 1, 1), &payload, 0xff, &f).unwrap();
    assert_eq!(dword(&w[0], 0), 0b11_10_01_00);
    assert_eq!(dword(&w[0], 4), 0);
}

/// MSFMT_DEPTH_STENCIL: 4x samples interleave in 2x2 pixel groups, X' = (x & !1)·2 +
/// (s & 1)·2 + (x & 1), Y' = (y & !1)·2 + (s & 2) + (y & 1) (IVB PRM Vol 1 Part 1
/// "Interleaved Multisampled Surfaces", as Mesa's BLORP documents it for Gen7). A 2x2
/// R32_FLOAT surface is 4x4 physical texels; texel (X', Y') holds X' + 10·Y'.
#[test]
fn interleaved_surfaces_place_samples_in_the_plane() {
    let mut f = fake(None);
    for y in 0..4u32 {
        for x in 0..4u32 {
            let v = (x + 10 * y) as f32;
            f.mem.load(
                BASE + 16 * u64::from(y) + 4 * u64::from(x),
                &v.to_le_bytes(),
            );
        }
    }
    f.surface.surface_format = SurfaceFormat::R32_FLOAT;
    f.surface.surface_array = false;
    f.surface.depth = 0;
    f.surface.surface_pitch = 15;
    f.surface.multisampled_surface_storage_format =
        MultisampledSurfaceStorageFormat::MSFMT_DEPTH_STENCIL;
    let si = [0, 1, 2, 3, 3, 0, 1, 2];
    let out = simd8(&f, T::LD2DMS, &[si, ZERO, U, V, ZERO]).unwrap();
    // Pixel (1, 0) sample 1: X' = 2 + 1 = 3, Y' = 0. Pixel (0, 1) sample 2: X' = 0,
    // Y' = 2 + 1 = 3. Pixel (1, 1) sample 3: X' = 3, Y' = 3. Pixel (0, 0) sample 3:
    // X' = 2, Y' = 2. Pixel (0, 1) sample 1: X' = 2, Y' = 1. Pixel (1, 1) sample 2:
    // X' = 1, Y' = 3.
    let want = [0.0, 3.0, 30.0, 33.0, 22.0, 1.0, 12.0, 31.0];
    for lane in 0..8 {
        assert_eq!(f32::from_bits(out[lane][0]), want[lane], "lane {lane}");
    }
    // ld_mcs reads it as having no MCS (what Mesa's shaders rely on), 0 in every lane.
    let out = simd8(&f, T::LD_MCS, &[U, V, ZERO, ZERO]).unwrap();
    assert!(out.iter().all(|l| l[0] == 0), "{out:?}");
    // Otherwise only ld2dms (and resinfo, sampleinfo) may read it.
    let e = simd8(&f, T::LD2DSS, &[si, U, V, ZERO])
        .unwrap_err()
        .to_string();
    assert!(e.contains("MSFMT_DEPTH_STENCIL"), "{e}");
}

#[test]
fn other_messages_refuse_multisampled_surfaces_and_the_reverse() {
    let f = fake(None);
    for (ty, params) in [
        (T::LD, vec![U, ZERO, V]),
        (T::SAMPLE, vec![ZERO, ZERO]),
        (T::SAMPLE_L, vec![ZERO, ZERO, ZERO]),
    ] {
        let e = simd8(&f, ty, &params).unwrap_err().to_string();
        assert!(
            e.contains("multisampled") && e.contains("seed 000"),
            "{ty:?}: {e}"
        );
    }
    let mut single = fake(None);
    single.surface.number_of_multisamples = NumberOfMultisamples::MULTISAMPLECOUNT_1;
    let e = simd8(&single, T::LD2DSS, &[ZERO, ZERO, U, V])
        .unwrap_err()
        .to_string();
    assert!(e.contains("MULTISAMPLECOUNT_1"), "LD2DSS: {e}");
    // ld_mcs and ld2dms read a single-sampled surface as one sample without an MCS
    // (what Mesa's BLORP relies on): no MCS reads 0, and sample 1 does not exist, so it
    // reads zero.
    let mcs = simd8(&single, T::LD_MCS, &[U, V, ZERO, ZERO]).unwrap();
    assert!(mcs.iter().all(|l| l[0] == 0), "{mcs:?}");
    let one = [1u32; 8];
    let out = simd8(&single, T::LD2DMS, &[one, ZERO, U, V, ZERO]).unwrap();
    assert!(out.iter().all(|l| *l == [0; 4]), "{out:?}");
    let mut cube = fake(None);
    cube.surface.surface_type = SurfaceType::SURFTYPE_3D;
    let e = simd8(&cube, T::LD2DMS, &[ZERO, ZERO, U, V])
        .unwrap_err()
        .to_string();
    assert!(e.contains("SURFTYPE_2D"), "{e}");
    // ld2dss has no SIMD4x2 form.
    let e = handle(
        desc(T::LD2DSS, SimdMode::SIMD4X2, 1, 1),
        &[reg(&[0; 8])],
        0xff,
        &f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("SIMD4x2"), "{e}");
}
