//! Hostile sampler messages (seed 000 §2.13): random descriptors (every message type and
//! SIMD mode, any lengths, with and without a header), random payload bits, random
//! SURFACE_STATE (type, format, sizes, levels, multisampling, tiling) and SAMPLER_STATE
//! (filters, address modes, shadow function, LOD fields) over a small mapped region. Each
//! message ends in a response of its length or a typed error; nothing panics, and a
//! response never writes dwords outside its registers.

use gtsim_fuzzkit::{Rng, cases, env_u64};
use gtsim_gen7::sampling::{SamplerTables, handle_response};
use gtsim_mem::AddressSpace;
use gtsim_message::MessageError;
use gtsim_spec::gen7::render_surface_state::{
    MultisampledSurfaceStorageFormat, NumberOfMultisamples, SurfaceType,
};
use gtsim_spec::gen7::sampler_state::{
    ChromaKeyMode, MagModeFilter, MinModeFilter, MipModeFilter, ShadowFunction,
};
use gtsim_spec::gen7::{RenderSurfaceState, SamplerState, Texcoordmode};
use gtsim_spec::shared::SurfaceFormat;

const BASE: u64 = 0x1_0000;

struct Tables {
    mem: AddressSpace,
    surface: RenderSurfaceState,
    sampler: SamplerState,
}

impl SamplerTables for Tables {
    fn surface(&self, bti: u8) -> Result<RenderSurfaceState, MessageError> {
        match bti {
            0 => Ok(self.surface.clone()),
            _ => Err(MessageError::Invalid(format!("no surface at BTI {bti}"))),
        }
    }
    fn sampler(&self, index: u8) -> Result<(SamplerState, [f32; 4]), MessageError> {
        match index {
            0 => Ok((self.sampler.clone(), [0.25, 0.5, 0.75, 1.0])),
            _ => Err(MessageError::Invalid(format!("no sampler {index}"))),
        }
    }
    fn memory(&self) -> &dyn gtsim_mem::Memory {
        &self.mem
    }
    /// Keys from none to every texel.
    fn chroma_keys(&self) -> [(u32, u32); 4] {
        [
            (0, 0),
            (0, u32::MAX),
            (0x8000_0000, 0xffff_ffff),
            (0xffff_ffff, 0),
        ]
    }
}

fn pick<T: Copy>(r: &mut Rng, xs: &[T]) -> T {
    xs[r.below(xs.len())]
}

/// A float or integer parameter dword: small coordinates, LODs, offsets, specials.
fn param(r: &mut Rng) -> u32 {
    match r.below(6) {
        0 => r.next_u64() as u32,
        1 => pick(
            r,
            &[
                0x7fc0_0000,
                0x7f80_0000,
                0xff80_0000,
                0x8000_0000,
                1,
                u32::MAX,
            ],
        ),
        2 => r.below(70) as u32,
        _ => ((r.below(4000) as f32) / 1000.0 - 1.0).to_bits(),
    }
}

fn tables(r: &mut Rng) -> Tables {
    let mut mem = AddressSpace::new();
    mem.map(BASE, 0x4000);
    let bytes: Vec<u8> = (0..0x4000).map(|_| r.below(256) as u8).collect();
    mem.load(BASE, &bytes);
    let surface = RenderSurfaceState {
        surface_type: SurfaceType(pick(r, &[0, 1, 1, 1, 2, 3, 4, 5, 6, 7])),
        surface_format: pick(
            r,
            &[
                SurfaceFormat::R8G8B8A8_UNORM,
                SurfaceFormat::R32_FLOAT,
                SurfaceFormat::R16_UNORM,
                SurfaceFormat::R32G32B32A32_UINT,
                SurfaceFormat::R8_SINT,
                SurfaceFormat::R24_UNORM_X8_TYPELESS,
                SurfaceFormat::BC1_UNORM,
                SurfaceFormat::R8G8B8A8_UNORM_SRGB,
                SurfaceFormat(0x1ff),
            ],
        ),
        width: pick(r, &[0, 1, 3, 7, 16383]),
        height: pick(r, &[0, 1, 3, 7, 16383]),
        depth: pick(r, &[0, 1, 3, 2047]),
        surface_pitch: pick(r, &[0, 15, 63, 255]),
        surface_base_address: pick(r, &[BASE, BASE + 0x3ff0, 0, !0xfff]),
        mip_count_lod: r.below(16) as u8,
        surface_min_lod: r.below(16) as u8,
        minimum_array_element: pick(r, &[0, 1, 2047]),
        surface_array: (r.below(2) == 0),
        number_of_multisamples: NumberOfMultisamples(pick(r, &[0, 0, 0, 2, 3, 1])),
        multisampled_surface_storage_format: MultisampledSurfaceStorageFormat(r.below(2) as u32),
        mcs_enable: (r.below(2) == 0),
        mcs_base_address: pick(r, &[BASE, BASE + 0x3000, !0xfff]),
        mcs_surface_pitch: pick(r, &[0, 1, 511]),
        ..Default::default()
    };
    let mode = |r: &mut Rng| Texcoordmode(r.below(8) as u32);
    let sampler = SamplerState {
        min_mode_filter: MinModeFilter(r.below(8) as u32),
        mag_mode_filter: MagModeFilter(r.below(8) as u32),
        mip_mode_filter: MipModeFilter(r.below(4) as u32),
        shadow_function: ShadowFunction(r.below(8) as u32),
        tcx_address_control_mode: mode(r),
        tcy_address_control_mode: mode(r),
        tcz_address_control_mode: mode(r),
        max_lod: (r.below(64) as f64) / 4.0,
        min_lod: (r.below(64) as f64) / 4.0,
        texture_lod_bias: (r.below(64) as f64) / 4.0 - 8.0,
        sampler_disable: (r.below(16) == 0),
        non_normalized_coordinate_enable: (r.below(8) == 0),
        chroma_key_enable: (r.below(8) == 0),
        chroma_key_index: r.below(4) as u8,
        chroma_key_mode: ChromaKeyMode(r.below(2) as u32),
        ..Default::default()
    };
    Tables {
        mem,
        surface,
        sampler,
    }
}

#[test]
fn hostile_sampler_messages_end_in_a_response_or_an_error() {
    let seed = env_u64("GTSIM_FUZZ_SEED", 0x5a_6d70);
    let mut r = Rng::new(seed);
    let (mut ok, mut errors) = (0, 0);
    for case in 0..cases(3000) {
        // Half the cases are well-formed (a plain surface and sampler, lengths that fit
        // the SIMD mode), so the message types run to their ends; the rest are hostile.
        let sane = case % 2 == 0;
        let mut t = tables(&mut r);
        if sane {
            t.surface.surface_type = SurfaceType(pick(&mut r, &[0, 1, 1, 2]));
            t.surface.surface_format = pick(
                &mut r,
                &[SurfaceFormat::R8G8B8A8_UNORM, SurfaceFormat::R32_FLOAT],
            );
            t.surface.width = pick(&mut r, &[3, 7]);
            t.surface.height = pick(&mut r, &[3, 7]);
            t.surface.depth = pick(&mut r, &[0, 1]);
            t.surface.surface_pitch = 63;
            t.surface.surface_base_address = BASE;
            t.surface.mip_count_lod = r.below(3) as u8;
            t.surface.surface_min_lod = 0;
            t.surface.minimum_array_element = 0;
            t.surface.number_of_multisamples = NumberOfMultisamples(0);
            t.sampler.min_mode_filter = MinModeFilter(r.below(2) as u32);
            t.sampler.mag_mode_filter = MagModeFilter(r.below(2) as u32);
            t.sampler.mip_mode_filter = MipModeFilter(pick(&mut r, &[0, 1, 3]));
            t.sampler.tcx_address_control_mode = Texcoordmode(r.below(3) as u32);
            t.sampler.tcy_address_control_mode = Texcoordmode(r.below(3) as u32);
            t.sampler.tcz_address_control_mode = Texcoordmode(r.below(3) as u32);
        }
        let header = r.below(3) == 0;
        let simd = if sane {
            pick(&mut r, &[0u32, 1, 2])
        } else {
            pick(&mut r, &[0u32, 1, 1, 2, 3])
        };
        let ty = if sane {
            pick(
                &mut r,
                &[
                    0u32, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17, 18, 20, 11, 29, 30, 31,
                ],
            )
        } else {
            r.below(32) as u32
        };
        // The multisampled-surface messages read multisampled 2D surfaces (with or
        // without an MCS).
        if sane && matches!(ty, 11 | 29 | 30 | 31) {
            t.surface.surface_type = SurfaceType(1);
            t.surface.number_of_multisamples = NumberOfMultisamples(pick(&mut r, &[2, 3]));
            t.surface.mcs_base_address = BASE + 0x2000;
        }
        let (mlen, rlen) = if sane {
            let params = 1 + r.below(4) as u32;
            let body = match simd {
                0 => 1 + r.below(3) as u32,
                1 => params,
                _ => 2 * params,
            };
            let rlen = [1, 4, 8][simd as usize];
            (u32::from(header) + body, rlen)
        } else {
            (
                r.below(13) as u32,
                pick(&mut r, &[0u32, 1, 1, 4, 4, 5, 8, 31]),
            )
        };
        let desc = mlen << 25 | rlen << 20 | u32::from(header) << 19 | simd << 17 | ty << 12;
        let registers = if sane { mlen as usize } else { r.below(14) };
        let payload: Vec<[u8; 32]> = (0..registers)
            .map(|_| {
                let mut reg = [0u8; 32];
                for d in 0..8 {
                    reg[4 * d..4 * d + 4].copy_from_slice(&param(&mut r).to_le_bytes());
                }
                reg
            })
            .collect();
        let mask = pick(&mut r, &[0xffff_ffffu32, 0xff, 0x0f, 0xf0, 0x8001, 0]);
        // A sane header masks no channel (masks would need a matching response length).
        let mut payload = payload;
        if sane && header {
            payload[0] = [0; 32];
            payload[0][8] = r.below(4) as u8; // offsets
            payload[0][10] = (r.below(4) as u8) & 3; // Gather4 Source Channel Select
        }
        match handle_response(desc, &payload, mask, &t) {
            Ok(resp) => {
                ok += 1;
                assert_eq!(resp.registers.len(), rlen as usize, "{desc:#010x}");
                if let Some(w) = &resp.written {
                    assert_eq!(w.len(), resp.registers.len(), "{desc:#010x}");
                }
            }
            Err(e) => {
                errors += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    eprintln!("sampler fuzz (seed {seed:#x}): {ok} responses, {errors} typed errors");
    assert!(ok > 0 && errors > 0, "both outcomes reached: {ok} {errors}");
}
