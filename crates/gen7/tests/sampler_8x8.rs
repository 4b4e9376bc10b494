//! The media sampler's sample_8x8 message (seed 000 §2.9, §2.13.1.10.2, §2.13.2.5) on
//! tiny media surfaces. Every expected value is worked by hand from the seed's formulas:
//! texel-space address U·width (§2.9: "u=3.3 ... betau=0.3", footprint from
//! floor(u) − 3), 5-bit betas, the 17 stored phases with the rest mirrored, the sharp
//! 8x8 sum (§2.9.1.1), the bilinear smooth filter (§2.9.1.2), the Default Sharpness
//! Level blend (§2.12.4), and the "16 bit Full" writeback (value·256, FF00h = 1.0).

use gtsim_gen7::sampling::{SamplerTables, handle};
use gtsim_mem::AddressSpace;
use gtsim_message::MessageError;
use gtsim_spec::gen7::media_surface_state::SurfaceFormat as MediaFormat;
use gtsim_spec::gen7::message_descriptor_sampling_engine::SimdMode;
use gtsim_spec::gen7::{
    MediaSurfaceState, MessageDescriptorSamplingEngine, MessageHeaderSamplingEngine,
    RenderSurfaceState, Sample8x8SamplerState, Sampler8x8State, SamplerMessageType, SamplerState,
};

const BASE: u64 = 0x1_0000;

/// Coefficient tables in 1/64, per phase (17) and tap (8).
type Table = [[i8; 8]; 17];

/// Every phase [0, 0, 0, 64, 0, 0, 0, 0]: texel floor(u) for phases 0-16, and (mirrored)
/// texel floor(u) + 1 for phases 17-31.
fn identity() -> Table {
    [[0, 0, 0, 64, 0, 0, 0, 0]; 17]
}

/// A 4-tap chroma table with all its weight on tap 4: texel floor(u) + 1 for phases
/// 0-16.
fn next_texel() -> Table {
    [[0, 0, 0, 0, 64, 0, 0, 0]; 17]
}

/// SAMPLER_8x8_STATE's 138 dwords laid out as seed 000 §2.12.4 gives them: element p at
/// DW 8p, Table 0X taps 0-3 in DW0 (tap 0 in 7:0) and 4-7 in DW1, 0Y in DW2-3, 1X taps
/// 2-3 in DW4 31:16 and 4-5 in DW5 15:0, 1Y in DW6-7; DW136 Default Sharpness Level
/// 31:24; DW137 Bypass X (22) and Y (21) Adaptive Filtering.
fn sampler_8x8_dwords(t: [&Table; 4], sharpness: u8, bypass: bool) -> Vec<u32> {
    let b = |v: i8| u32::from(v as u8);
    let mut dw = vec![0u32; 138];
    for (p, element) in dw.chunks_mut(8).take(17).enumerate() {
        for (table, at) in [(0, 0), (1, 2)] {
            let k = t[table][p];
            element[at] = b(k[0]) | b(k[1]) << 8 | b(k[2]) << 16 | b(k[3]) << 24;
            element[at + 1] = b(k[4]) | b(k[5]) << 8 | b(k[6]) << 16 | b(k[7]) << 24;
        }
        for (table, at) in [(2, 4), (3, 6)] {
            let k = t[table][p];
            element[at] = b(k[2]) << 16 | b(k[3]) << 24;
            element[at + 1] = b(k[4]) | b(k[5]) << 8;
        }
    }
    dw[136] = u32::from(sharpness) << 24;
    dw[137] = if bypass { 3 << 21 } else { 0 };
    dw
}

struct Fake {
    mem: AddressSpace,
    surface: MediaSurfaceState,
    sampler: Sample8x8SamplerState,
    table: Vec<u32>,
}

impl SamplerTables for Fake {
    fn surface(&self, bti: u8) -> Result<RenderSurfaceState, MessageError> {
        Err(MessageError::Invalid(format!("no 3D surface at {bti}")))
    }
    fn sampler(&self, index: u8) -> Result<(SamplerState, [f32; 4]), MessageError> {
        Err(MessageError::Invalid(format!("no 3D sampler {index}")))
    }
    fn memory(&self) -> &dyn gtsim_mem::Memory {
        &self.mem
    }
    fn media_surface(&self, bti: u8) -> Result<MediaSurfaceState, MessageError> {
        match bti {
            0 => Ok(self.surface.clone()),
            _ => Err(MessageError::Invalid(format!("no surface at BTI {bti}"))),
        }
    }
    fn sampler_8x8(
        &self,
        index: u8,
    ) -> Result<(Sample8x8SamplerState, Sampler8x8State, Vec<u32>), MessageError> {
        match index {
            0 => Ok((
                self.sampler.clone(),
                Sampler8x8State::unpack(&self.table).unwrap(),
                self.table.clone(),
            )),
            _ => Err(MessageError::Invalid(format!("no sampler {index}"))),
        }
    }
}

/// A Y8_UNORM surface of `w` x `h`, linear, pitch `w`, texel (x, y) = `texel(x, y)`.
fn y8(w: u32, h: u32, texel: impl Fn(u32, u32) -> u8) -> Fake {
    let mut mem = AddressSpace::new();
    mem.map(BASE, 0x1000);
    for y in 0..h {
        let row: Vec<u8> = (0..w).map(|x| texel(x, y)).collect();
        mem.load(BASE + u64::from(y * w), &row);
    }
    Fake {
        mem,
        surface: MediaSurfaceState {
            surface_base_address: BASE,
            width: (w - 1) as u16,
            height: (h - 1) as u16,
            surface_pitch: w - 1,
            surface_format: MediaFormat::Y8_UNORM,
            ..Default::default()
        },
        sampler: Sample8x8SamplerState {
            ief_bypass: true,
            ..Default::default()
        },
        table: sampler_8x8_dwords(
            [&identity(), &identity(), &next_texel(), &next_texel()],
            255,
            true,
        ),
    }
}

/// The ramp Y = 4x + 16y.
fn ramp(x: u32, y: u32) -> u8 {
    (4 * x + 16 * y) as u8
}

/// A sample_8x8 (media layout) descriptor: header, message length 2.
fn desc(rlen: u8) -> u32 {
    MessageDescriptorSamplingEngine {
        message_length: 2,
        response_length: rlen,
        header_present: true,
        simd_mode: SimdMode::SIMD32_64,
        message_type: SamplerMessageType(0b01011),
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

/// The header with the channels in `masked` (0 red .. 3 alpha) masked.
fn header(masked: &[usize]) -> [u8; 32] {
    reg(&MessageHeaderSamplingEngine {
        red_write_channel_mask: masked.contains(&0),
        green_write_channel_mask: masked.contains(&1),
        blue_write_channel_mask: masked.contains(&2),
        alpha_write_channel_mask: masked.contains(&3),
        ..Default::default()
    }
    .pack()
    .unwrap())
}

/// M1 of the media layout (§2.13.1.10.2): VBN, U0, V0, Delta U, Delta V, U 2nd
/// derivative.
fn m1(vbn: u32, u0: f32, v0: f32, du: f32, dv: f32, ddu: f32) -> [u8; 32] {
    reg(&[
        0,
        vbn,
        u0.to_bits(),
        v0.to_bits(),
        du.to_bits(),
        dv.to_bits(),
        ddu.to_bits(),
        0,
    ])
}

/// Pixel `x` of row register `r` (16-bit words).
fn word(r: &[u8; 32], x: usize) -> u16 {
    u16::from_le_bytes([r[2 * x], r[2 * x + 1]])
}

/// Only green (Y) enabled: four registers, one per row.
fn green(f: &Fake, m: [u8; 32]) -> Vec<[u8; 32]> {
    handle(desc(4), &[header(&[0, 2, 3]), m], 0, f).unwrap()
}

#[test]
fn identity_tables_return_the_texel_at_floor_u_and_mirrored_phases_the_next() {
    let f = y8(32, 8, ramp);
    // u = 5.25 texels: beta 8/32, phase 8: tap 3, texel 5. u = 5.75: beta 24/32, the
    // mirror of phase 8: tap 4, texel 6. v = 2.0: row 2.
    for (u, texel) in [(5.25f32, 5u32), (5.75, 6), (5.0, 5), (5.5, 5), (5.53125, 6)] {
        let w = green(&f, m1(0, u / 32.0, 2.0 / 8.0, 0.0, 0.0, 0.0));
        assert_eq!(
            word(&w[0], 0),
            u16::from(ramp(texel, 2)) << 8,
            "u = {u}: texel {texel}"
        );
    }
}

#[test]
fn the_smooth_filter_is_bilinear_with_five_bit_betas() {
    let mut f = y8(32, 8, ramp);
    f.table = sampler_8x8_dwords([&identity(); 4], 0, true);
    // u = 5.3, v = 2.6: betas 9/32 and 19/32 (truncated). T33..T44 = Y(5,2) 52, Y(6,2)
    // 56, Y(5,3) 68, Y(6,3) 72: ((52·23 + 56·9)·13 + (68·23 + 72·9)·19) / 1024 levels =
    // 64128 / 1024 = 62.625, in 1/256: 16032.
    let w = green(&f, m1(0, 5.3 / 32.0, 2.6 / 8.0, 0.0, 0.0, 0.0));
    assert_eq!(word(&w[0], 0), 16032);
}

#[test]
fn default_sharpness_blends_smooth_and_sharp() {
    let mut f = y8(32, 8, ramp);
    f.table = sampler_8x8_dwords([&identity(); 4], 128, true);
    // Smooth 16032 (above). Sharp with the identity tables: beta U 9 (phase 9, tap 3:
    // column 5), beta V 19 (the mirror of phase 13, tap 4: row 3), texel (5, 3) = 68 →
    // 17408. (16032·127 + 17408·128) / 255 = 16723.2 → 16723.
    let w = green(&f, m1(0, 5.3 / 32.0, 2.6 / 8.0, 0.0, 0.0, 0.0));
    assert_eq!(word(&w[0], 0), 16723);
}

#[test]
fn the_sharp_filter_is_the_8x8_sum_and_clamps_below_zero() {
    // An impulse of 200 at (10, 4); Table 0X phase 0 is Intel's VA driver's 2:1
    // downscale phase, [-4, 0, 20, 32, 20, 0, -4, 0] / 64; Table 0Y the identity.
    let mut f = y8(32, 8, |x, y| if (x, y) == (10, 4) { 200 } else { 0 });
    let mut lanczos = identity();
    lanczos[0] = [-4, 0, 20, 32, 20, 0, -4, 0];
    f.table = sampler_8x8_dwords(
        [&lanczos, &identity(), &next_texel(), &next_texel()],
        255,
        true,
    );
    // u = 9: footprint columns 6..13, the impulse on tap 4 (20/64): 200·20/64 = 62.5
    // levels = 16000. u = 10: tap 3, 200·32/64 = 100 → 25600. u = 13: tap 0 (−4/64):
    // −12.5, clamped to 0. u = 7: tap 6 (−4/64): 0 too.
    for (u, expect) in [
        (9.0f32, 16000u16),
        (10.0, 25600),
        (13.0, 0),
        (7.0, 0),
        (12.0, 0),
    ] {
        let w = green(&f, m1(0, u / 32.0, 4.0 / 8.0, 0.0, 0.0, 0.0));
        assert_eq!(word(&w[0], 0), expect, "u = {u}");
    }
}

#[test]
fn the_block_is_16x4_rows_by_vertical_block_number_with_the_second_derivative() {
    let f = y8(32, 16, ramp);
    // Delta U 2/32 and U 2nd derivative 1/32: pixel x at u = 2x + x(x−1)/2 texels (0, 2,
    // 5, 9, 14, 20, 27, then past the edge: clamped to 31). Delta V 1/16 with Vertical
    // Block Number 2: rows 8 + y.
    let w = green(&f, m1(2, 0.0, 0.0, 2.0 / 32.0, 1.0 / 16.0, 1.0 / 32.0));
    assert_eq!(w.len(), 4);
    for (y, r) in w.iter().enumerate() {
        for x in 0..16u32 {
            let u = (2 * x + x * x.saturating_sub(1) / 2).min(31);
            // Column 31 clamps, the mirrored phases never apply (betas are 0).
            assert_eq!(
                word(r, x as usize),
                u16::from(ramp(u, 8 + y as u32)) << 8,
                "pixel ({x}, {y})"
            );
        }
    }
}

#[test]
fn nv12_returns_y_in_green_cb_in_blue_cr_in_red_through_the_chroma_tables() {
    // PLANAR_420_8, 16x8, interleaved chroma: Y plane rows 0-7 (Y = 10x + y), the UV
    // plane from row 8 (Y Offset for U), 8x4 pairs Cb = 100 + x, Cr = 200 + 10y.
    let mut mem = AddressSpace::new();
    mem.map(BASE, 0x1000);
    for y in 0..8u32 {
        let row: Vec<u8> = (0..16).map(|x| (10 * x + y) as u8).collect();
        mem.load(BASE + u64::from(16 * y), &row);
    }
    for y in 0..4u32 {
        let row: Vec<u8> = (0..8)
            .flat_map(|x| [(100 + x) as u8, (200 + 10 * y) as u8])
            .collect();
        mem.load(BASE + u64::from(16 * (8 + y)), &row);
    }
    let mut f = y8(16, 8, |_, _| 0);
    f.mem = mem;
    f.surface = MediaSurfaceState {
        surface_base_address: BASE,
        width: 15,
        height: 7,
        surface_pitch: 15,
        surface_format: MediaFormat::PLANAR_420_8,
        interleave_chroma: true,
        y_offset_for_u_cb: 8,
        ..Default::default()
    };
    // U = 4.25/16: Y column 4; chroma u = 2.125: table 1X puts all on tap 4, column 3.
    // V = 2/8: Y row 2, chroma row 1.
    let m = m1(0, 4.25 / 16.0, 2.0 / 8.0, 0.0, 0.0, 0.0);
    let w = handle(desc(12), &[header(&[3]), m], 0, &f).unwrap();
    assert_eq!(w.len(), 12);
    // Red (Cr) from row 1 + 1 (1Y also picks the next texel), blue (Cb) column 3.
    assert_eq!(word(&w[0], 0), u16::from(200u8 + 20) << 8, "Cr");
    assert_eq!(word(&w[4], 0), u16::from(42u8) << 8, "Y");
    assert_eq!(word(&w[8], 0), u16::from(103u8) << 8, "Cb");
}

#[test]
fn malformed_and_unmodelled_messages_are_errors() {
    let f = y8(32, 8, ramp);
    let m = m1(0, 0.0, 0.0, 1.0 / 32.0, 1.0 / 8.0, 0.0);
    // One channel enabled needs response length 4.
    let e = handle(desc(8), &[header(&[0, 2, 3]), m], 0, &f).unwrap_err();
    assert!(e.to_string().contains("response length"), "{e}");
    // All four masked.
    let e = handle(desc(4), &[header(&[0, 1, 2, 3]), m], 0, &f).unwrap_err();
    assert!(e.to_string().contains("masks all four"), "{e}");
    // Delta U · width of 16 texels per pixel.
    let e = handle(
        desc(4),
        &[header(&[0, 2, 3]), m1(0, 0.0, 0.0, 0.5, 0.0, 0.0)],
        0,
        &f,
    )
    .unwrap_err();
    assert!(e.to_string().contains("below 16"), "{e}");
    // The sample_8x8 Sampler Index is a multiple of 4 (seed 000 §2.13.1.1).
    let d = MessageDescriptorSamplingEngine {
        sampler_index: 2,
        ..MessageDescriptorSamplingEngine::unpack(&[desc(4)]).unwrap()
    }
    .pack()
    .unwrap()[0];
    let e = handle(d, &[header(&[0, 2, 3]), m], 0, &f).unwrap_err();
    assert!(e.to_string().contains("multiple of 4"), "{e}");
    // IEF on, adaptive blending on: not modelled.
    let mut g = y8(32, 8, ramp);
    g.sampler.ief_bypass = false;
    let e = handle(desc(4), &[header(&[0, 2, 3]), m], 0, &g).unwrap_err();
    assert!(
        matches!(e.root(), MessageError::Unsupported(u)
            if u.what.contains("IEF Bypass") && u.reference == "seed 000 §2.10"),
        "{e}"
    );
    let mut g = y8(32, 8, ramp);
    g.table = sampler_8x8_dwords([&identity(); 4], 255, false);
    let e = handle(desc(4), &[header(&[0, 2, 3]), m], 0, &g).unwrap_err();
    assert!(
        matches!(e.root(), MessageError::Unsupported(u)
            if u.what.contains("Bypass X/Y Adaptive Filtering")
                && u.reference.contains("§2.12.4 DW137")),
        "{e}"
    );
    // A deinterlace message: not modelled yet.
    let d = MessageDescriptorSamplingEngine {
        message_type: SamplerMessageType(0b01000),
        ..MessageDescriptorSamplingEngine::unpack(&[desc(4)]).unwrap()
    }
    .pack()
    .unwrap()[0];
    let e = handle(d, &[header(&[]), m], 0, &f).unwrap_err();
    assert!(e.to_string().contains("deinterlace"), "{e}");
}

/// A float a hostile kernel might send: NaN, infinities, huge, tiny, negative, or
/// ordinary.
fn hostile_float(rng: &mut gtsim_fuzzkit::SplitMix64) -> f32 {
    match rng.below(8) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => -1e30,
        3 => f32::from_bits(rng.next_u64() as u32),
        4 => -(rng.below(1000) as f32) / 100.0,
        _ => rng.below(2000) as f32 / 1000.0,
    }
}

#[test]
fn hostile_sample_8x8_messages_end_in_a_result_or_a_typed_error() {
    // Random message descriptors (response lengths, masks), M1 addresses and steps,
    // MEDIA_SURFACE_STATEs (every format value, tilings, pitches, plane offsets past
    // the memory, field pictures) and SAMPLER_8x8_STATE coefficients: the message ends
    // with its writeback or a typed error, never a panic, and both are reached.
    let mut rng = gtsim_fuzzkit::SplitMix64(gtsim_fuzzkit::env_u64("GTSIM_FUZZ_SEED", 11));
    let (mut ok, mut err) = (0, 0);
    for case in 0..gtsim_fuzzkit::cases(300) {
        // Every other case is plausible: the 32x8 Y8 surface, bypassed IEF and adaptive
        // blend, a response length that matches its mask and finite coordinates, with
        // random coefficients, sharpness, block number and position. One hostile field
        // of the many refuses a message, so without these the writeback side would be
        // reached only by luck on a fresh seed.
        let plausible = case % 2 == 0;
        let mut f = y8(32, 8, ramp);
        if !plausible {
            f.surface = MediaSurfaceState {
                surface_base_address: BASE + rng.below(3) * 0x800,
                width: rng.below(64) as u16,
                height: rng.below(64) as u16,
                surface_pitch: rng.below(1024) as u32,
                surface_format: MediaFormat(rng.below(16) as u32),
                picture_structure: gtsim_spec::gen7::media_surface_state::PictureStructure(
                    rng.below(4) as u32,
                ),
                tile_mode: gtsim_spec::gen7::media_surface_state::TileMode(rng.below(4) as u32),
                interleave_chroma: rng.one_in(2),
                half_pitch_for_chroma: rng.one_in(4),
                y_offset_for_u_cb: rng.below(80) as u16,
                x_offset_for_u_cb: rng.below(80) as u16,
                y_offset_for_v_cr: rng.below(80) as u16,
                cr_v_cb_u_pixel_offset_v_direction: rng.below(4) as f64 / 4.0,
                ..Default::default()
            };
        }
        let tables: Vec<Table> = (0..4)
            .map(|_| std::array::from_fn(|_| std::array::from_fn(|_| rng.next_u64() as i8)))
            .collect();
        f.table = sampler_8x8_dwords(
            [&tables[0], &tables[1], &tables[2], &tables[3]],
            rng.below(256) as u8,
            plausible || !rng.one_in(8),
        );
        f.sampler.ief_bypass = plausible || !rng.one_in(8);
        let mut masked: Vec<usize> = (0..4).filter(|_| rng.one_in(2)).collect();
        if plausible && masked.len() == 4 {
            masked.pop();
        }
        let rlen = if !plausible && rng.one_in(4) {
            rng.below(20) as u8
        } else {
            4 * (4 - masked.len()) as u8
        };
        let vbn = rng.below(600) as u32;
        let mut float = |scale: f32| {
            let v = hostile_float(&mut rng);
            if plausible && !v.is_finite() {
                0.5
            } else {
                v / scale
            }
        };
        let m = m1(
            vbn,
            float(1.0),
            float(1.0),
            float(16.0),
            float(16.0),
            float(64.0),
        );
        match handle(desc(rlen), &[header(&masked), m], 0, &f) {
            Ok(w) => {
                assert_eq!(w.len(), usize::from(rlen));
                ok += 1;
            }
            Err(_) => err += 1,
        }
    }
    assert!(ok > 0 && err > 0, "{ok} results, {err} errors");
}
