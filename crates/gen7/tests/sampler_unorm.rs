//! The media sampler's sample_unorm and sample_unorm+killpix (seed 000 §2.13.1.4,
//! §2.13.2.4) on a tiny RGBA surface: an 8x4 block of pixels sampled with the 3D
//! surface and sampler state at level 0, written back as 16-bit values with an 8-bit
//! range (FF00h = 1.0). Expected values are worked by hand from the texel pattern.
//!
//! The surface: 8x4 R8G8B8A8_UNORM, linear, pitch 32, texel (x, y) = R 10x + 40y, G
//! 255 − R, B x, A 255.

use gtsim_gen7::sampling::{SamplerTables, handle_response};
use gtsim_mem::AddressSpace;
use gtsim_message::MessageError;
use gtsim_spec::gen7::message_descriptor_sampling_engine::SimdMode;
use gtsim_spec::gen7::render_surface_state::SurfaceType;
use gtsim_spec::gen7::sampler_state::{ChromaKeyMode, MagModeFilter, MinModeFilter};
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
    chroma_keys: [(u32, u32); 4],
}

impl SamplerTables for Fake {
    fn surface(&self, bti: u8) -> Result<RenderSurfaceState, MessageError> {
        match bti {
            0 => Ok(self.surface.clone()),
            _ => Err(MessageError::Invalid(format!("no surface at BTI {bti}"))),
        }
    }
    fn sampler(&self, index: u8) -> Result<(SamplerState, [f32; 4]), MessageError> {
        match index {
            0 => Ok((self.sampler.clone(), [0.0; 4])),
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

fn red(x: u32, y: u32) -> u32 {
    10 * x + 40 * y
}

fn fake(linear: bool) -> Fake {
    let mut mem = AddressSpace::new();
    mem.map(BASE, 0x1000);
    for y in 0..4 {
        for x in 0..8 {
            let r = red(x, y) as u8;
            mem.load(
                BASE + u64::from(32 * y + 4 * x),
                &[r, 255 - r, x as u8, 255],
            );
        }
    }
    let filter = u32::from(linear);
    Fake {
        mem,
        surface: RenderSurfaceState {
            surface_type: SurfaceType::SURFTYPE_2D,
            surface_format: SurfaceFormat::R8G8B8A8_UNORM,
            width: 7,
            height: 3,
            surface_pitch: 31,
            surface_base_address: BASE,
            ..Default::default()
        },
        sampler: SamplerState {
            min_mode_filter: MinModeFilter(filter),
            mag_mode_filter: MagModeFilter(filter),
            tcx_address_control_mode: Texcoordmode::TEXCOORDMODE_CLAMP,
            tcy_address_control_mode: Texcoordmode::TEXCOORDMODE_CLAMP,
            tcz_address_control_mode: Texcoordmode::TEXCOORDMODE_CLAMP,
            ..Default::default()
        },
        chroma_keys: [(0, 0); 4],
    }
}

/// sample_unorm (media layout, type 01100) or sample_unorm+killpix (01010).
fn desc(killpix: bool, rlen: u8) -> u32 {
    MessageDescriptorSamplingEngine {
        message_length: 2,
        response_length: rlen,
        header_present: true,
        simd_mode: SimdMode::SIMD32_64,
        message_type: SamplerMessageType(if killpix { 0b01010 } else { 0b01100 }),
        sampler_index: 0,
        binding_table_index: 0,
    }
    .pack()
    .unwrap()[0]
}

fn reg(dw: &[u32]) -> [u8; 32] {
    let mut r = [0u8; 32];
    for (i, d) in dw.iter().enumerate() {
        r[4 * i..4 * i + 4].copy_from_slice(&d.to_le_bytes());
    }
    r
}

/// The header masking every channel but red, and M1 (media layout): U0, V0, Delta U,
/// Delta V.
fn payload(u0: f32, v0: f32, du: f32, dv: f32) -> Vec<[u8; 32]> {
    let h = MessageHeaderSamplingEngine {
        green_write_channel_mask: true,
        blue_write_channel_mask: true,
        alpha_write_channel_mask: true,
        ..Default::default()
    };
    vec![
        reg(&h.pack().unwrap()),
        reg(&[
            0,
            0,
            u0.to_bits(),
            v0.to_bits(),
            du.to_bits(),
            dv.to_bits(),
            0,
            0,
        ]),
    ]
}

/// Pixel `p` (0-31, row-major in the 8x4 block) of a channel's two registers.
fn pixel(w: &[[u8; 32]], p: usize) -> u16 {
    let r = &w[p / 16];
    u16::from_le_bytes([r[2 * (p % 16)], r[2 * (p % 16) + 1]])
}

#[test]
fn nearest_returns_each_texel_at_eight_bit_range() {
    let f = fake(false);
    // Texel centres: pixel (x, y) at texel (x, y); R · 256 (FF00h for 255).
    let w = handle_response(
        desc(false, 2),
        &payload(0.5 / 8.0, 0.5 / 4.0, 1.0 / 8.0, 1.0 / 4.0),
        0,
        &f,
    )
    .unwrap();
    assert_eq!(w.registers.len(), 2);
    for y in 0..4 {
        for x in 0..8 {
            assert_eq!(
                u32::from(pixel(&w.registers, 8 * y + x)),
                red(x as u32, y as u32) * 256,
                "pixel ({x}, {y})"
            );
        }
    }
}

#[test]
fn linear_blends_neighbours_and_clamps_at_the_edge() {
    let f = fake(true);
    // U = (x + 1) / 8: half way between texels x and x + 1 (x + 1 clamped to 7), on row
    // centres: R = 10x + 5 (70 at x = 7), times 256.
    let w = handle_response(
        desc(false, 2),
        &payload(1.0 / 8.0, 0.5 / 4.0, 1.0 / 8.0, 1.0 / 4.0),
        0,
        &f,
    )
    .unwrap();
    for y in 0..4u32 {
        for x in 0..8u32 {
            let r = if x == 7 { red(7, y) } else { red(x, y) + 5 };
            assert_eq!(
                u32::from(pixel(&w.registers, (8 * y + x) as usize)),
                r * 256
            );
        }
    }
}

#[test]
fn killpix_adds_the_active_pixel_mask() {
    let mut f = fake(false);
    // A kill-on-match key equal to texel (2, 1): A 255, R 60, G 195, B 2.
    f.sampler.chroma_key_enable = true;
    f.sampler.chroma_key_mode = ChromaKeyMode::KEYFILTER_KILL_ON_ANY_MATCH;
    f.chroma_keys[0] = (0xff3c_c302, 0xff3c_c302);
    let w = handle_response(
        desc(true, 3),
        &payload(0.5 / 8.0, 0.5 / 4.0, 1.0 / 8.0, 1.0 / 4.0),
        0,
        &f,
    )
    .unwrap();
    // Pixel 10 (x 2, y 1) killed: bit 31 − 10 = 21 clear; only dword 0 written.
    assert_eq!(w.registers[2][..4], (!(1u32 << 21)).to_le_bytes());
    assert_eq!(w.written.as_ref().unwrap()[2], 1);
}

#[test]
fn sample_unorm_restrictions_are_errors() {
    let p = payload(0.0, 0.0, 1.0 / 8.0, 1.0 / 4.0);
    // One channel: response length 2.
    let e = handle_response(desc(false, 8), &p, 0, &fake(false)).unwrap_err();
    assert!(e.to_string().contains("response length"), "{e}");
    // Delta U · width above 3.
    let far = payload(0.0, 0.0, 0.5, 0.0);
    let e = handle_response(desc(false, 2), &far, 0, &fake(false)).unwrap_err();
    assert!(e.to_string().contains("above 3"), "{e}");
    // A wrapping address mode, a 16-bit format.
    let mut f = fake(false);
    f.sampler.tcx_address_control_mode = Texcoordmode::TEXCOORDMODE_WRAP;
    let e = handle_response(desc(false, 2), &p, 0, &f).unwrap_err();
    assert!(e.to_string().contains("Address Control"), "{e}");
    let mut f = fake(false);
    f.surface.surface_format = SurfaceFormat::R16G16B16A16_UNORM;
    let e = handle_response(desc(false, 2), &p, 0, &f).unwrap_err();
    assert!(e.to_string().contains("8 bits"), "{e}");
}
