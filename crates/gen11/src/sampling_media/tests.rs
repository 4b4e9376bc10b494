//! The Gen11 sample_8x8 message worked by hand: a Y8 plane through AVS states built
//! dword by dword from seed 003's tables (SAMPLER_STATE_8x8_AVS L18159-18490, its
//! coefficient elements L18081-18157, MEDIA_SURFACE_STATE L14486-14761), the message
//! as Intel's vISA lowering builds it (header, M1 with M1.7's IEF Bypass).

use crate::bases::Bases;
use crate::draw::StageTables;
use crate::sampling::{SamplerCache, message};
use gtsim_eu::exec::Message;
use gtsim_isa::ir::Sfid;
use gtsim_mem::{AddressSpace, Memory};
use gtsim_message::{MessageError, Payload};
use gtsim_spec::gen11::MessageDescriptorSamplingEngine;

const TABLE: u64 = 0x1000;
const SURFACE: u64 = 0x1100;
const SAMPLERS: u64 = 0x4000;
const PLANE: u64 = 0x10_0000;
const W: u32 = 64;
const H: u32 = 16;

/// The plane's texel (x, y): distinct, even sums of horizontal neighbours' halves.
fn texel(x: u32, y: u32) -> u8 {
    (2 * x + 16 * (y % 4)) as u8
}

/// Coefficient tables for [`avs_state`]: per phase, eight taps in 1/64.
type Taps = [[i8; 8]; 32];

fn identity() -> Taps {
    [[0, 0, 0, 64, 0, 0, 0, 0]; 32]
}

/// Phase 16 (beta 1/2) averages texels 3 and 4 of the footprint; the others are the
/// identity.
fn half_at_phase_16() -> Taps {
    let mut t = identity();
    t[16] = [0, 0, 0, 32, 32, 0, 0, 0];
    t
}

/// SAMPLER_STATE_8x8_AVS: `x0`, `y0` the 8-tap tables, `x1`, `y1` the 4-tap ones
/// (taps 2-5), Enable 8-tap filter `eight_tap`, the shuffle bit, the sharpness and the
/// adaptive bypass.
fn avs_state(
    (x0, y0, x1, y1): (&Taps, &Taps, &Taps, &Taps),
    eight_tap: u32,
    shuffle: bool,
    bypass: bool,
) -> Vec<u32> {
    let mut dw = vec![0u32; 280];
    dw[3] = eight_tap << 28;
    dw[4] = u32::from(shuffle) << 11;
    let byte = |dw: &mut Vec<u32>, at: usize, b: usize, v: i8| {
        dw[at] |= u32::from(v as u8) << (8 * b);
    };
    for p in 0..32 {
        // Elements 0-16 from DW16, 17-31 from DW160, eight dwords each.
        let e = if p < 17 {
            16 + 8 * p
        } else {
            160 + 8 * (p - 17)
        };
        for t in 0..8 {
            // 0X[n,t] in byte 2(t%2) of DW t/2, 0Y[n,t] in the byte above.
            byte(&mut dw, e + t / 2, 2 * (t % 2), x0[p][t]);
            byte(&mut dw, e + t / 2, 2 * (t % 2) + 1, y0[p][t]);
        }
        // 1X taps 2, 3 in DW4 23:16, 31:24; taps 4, 5 in DW5 7:0, 15:8; 1Y in DW6-7.
        byte(&mut dw, e + 4, 2, x1[p][2]);
        byte(&mut dw, e + 4, 3, x1[p][3]);
        byte(&mut dw, e + 5, 0, x1[p][4]);
        byte(&mut dw, e + 5, 1, x1[p][5]);
        byte(&mut dw, e + 6, 2, y1[p][2]);
        byte(&mut dw, e + 6, 3, y1[p][3]);
        byte(&mut dw, e + 7, 0, y1[p][4]);
        byte(&mut dw, e + 7, 1, y1[p][5]);
    }
    // DW152 31:24 Default Sharpness Level 255 (the sharp filter alone); DW153 22, 21
    // Bypass X and Y Adaptive Filtering.
    dw[152] = 255 << 24;
    dw[153] = if bypass { 3 << 21 } else { 0 };
    dw
}

/// Memory with the Y8 plane (linear, pitch 64), its MEDIA_SURFACE_STATE of `format` at
/// binding table entry 0, garbage at sampler index 0's AVS state and `avs` at index
/// 1's, 2048 bytes on.
fn memory(format: u32, avs: &[u32]) -> AddressSpace {
    let mut mem = AddressSpace::new();
    mem.map(TABLE, 0x1000);
    mem.map(SAMPLERS, 0x2000);
    mem.map(PLANE, 0x1000);
    mem.write_u32(TABLE, SURFACE as u32).unwrap();
    let surface = [
        0,
        (H - 1) << 18 | (W - 1) << 4,
        format << 27 | (W - 1) << 3,
        0,
        0,
        0,
        PLANE as u32,
        0,
    ];
    for (i, d) in surface.iter().enumerate() {
        mem.write_u32(SURFACE + 4 * i as u64, *d).unwrap();
    }
    for y in 0..H {
        for x in 0..W {
            mem.write(PLANE + u64::from(y * W + x), &[texel(x, y)])
                .unwrap();
        }
    }
    for i in 0..280 {
        mem.write_u32(SAMPLERS + 4 * i, 0xdead_beef).unwrap();
    }
    for (i, d) in avs.iter().enumerate() {
        mem.write_u32(SAMPLERS + 2048 + 4 * i as u64, *d).unwrap();
    }
    mem
}

fn reg(dw: [u32; 8]) -> [u8; 32] {
    let mut r = [0u8; 32];
    for (i, d) in dw.iter().enumerate() {
        r[i * 4..i * 4 + 4].copy_from_slice(&d.to_le_bytes());
    }
    r
}

/// A sample_8x8 of the green channel alone (R, B, A masked: M0.2 bits 12, 14, 15), the
/// block at normalized (`u0`, `v0`) with steps (`du`, `dv`), M1.7 `m7` and the header's
/// M0.2 `m2` extra bits; the response's 16-bit words.
fn sample_8x8(
    mem: &AddressSpace,
    (u0, v0, du, dv): (f32, f32, f32, f32),
    m7: u32,
    m2: u32,
) -> Result<Vec<u16>, MessageError> {
    let desc = MessageDescriptorSamplingEngine {
        message_length: 2,
        response_length: 4,
        header_present: true,
        simd_mode_1_0: 3,
        message_type: 0b01011,
        sampler_index: 1,
        ..Default::default()
    }
    .pack()
    .unwrap()[0];
    let mut payload = Payload::new();
    payload.push(reg([0, 0, 0xd000 | m2, 0, 0, 0, 0, 0]));
    payload.push(reg([
        0,
        0,
        u0.to_bits(),
        v0.to_bits(),
        du.to_bits(),
        dv.to_bits(),
        0,
        m7,
    ]));
    let m = Message {
        sfid: Sfid::Sampler,
        desc,
        ex_desc: 0,
        exec_size: 16,
        channel_mask: 1,
        first_channel: 0,
        payload,
        payload2: Payload::new(),
        response_length: 4,
        dst: 0,
        eot: false,
        ip: 0,
    };
    let tables = StageTables {
        binding_table: TABLE,
        sampler_state: SAMPLERS,
        ..Default::default()
    };
    let r = message(&SamplerCache::default(), &Bases::default(), tables, mem, &m)?;
    Ok(r.registers
        .iter()
        .flat_map(|g| g.chunks_exact(2).map(|w| u16::from_le_bytes([w[0], w[1]])))
        .collect())
}

/// IEF Bypass (M1.7 27): the IEF is not modelled.
const IEF_BYPASS: u32 = 1 << 27;
/// Y8_UNORM (seed 003 MEDIA_SURFACE_STATE Surface Format 12).
const Y8: u32 = 12;

/// The word of pixel (x, y) of a one-channel 16x4 response: shuffled, the left 8x4 half
/// in two registers (pixel 8y + x, 16 to a register) then the right half; else a row
/// per register.
fn at(words: &[u16], shuffle: bool, x: usize, y: usize) -> u16 {
    if shuffle {
        let p = 8 * y + x % 8;
        words[16 * (2 * (x / 8) + p / 16) + p % 16]
    } else {
        words[16 * y + x]
    }
}

#[test]
fn one_to_one_identity_returns_each_texel_in_either_writeback_layout() {
    let t = identity();
    for shuffle in [false, true] {
        let mem = memory(Y8, &avs_state((&t, &t, &t, &t), 1, shuffle, true));
        // Pixel (x, y) at U = (2 + x) / W, V = (1 + y) / H: with Delta U·W = 1 the
        // footprint's centre is the texel itself, phase 0.
        let words = sample_8x8(
            &mem,
            (
                2.0 / W as f32,
                1.0 / H as f32,
                1.0 / W as f32,
                1.0 / H as f32,
            ),
            IEF_BYPASS,
            0,
        )
        .unwrap();
        for y in 0..4 {
            for x in 0..16 {
                // 16-bit UNORM with an 8-bit range: level v is v·256 (FF00h is 1.0).
                let want = u16::from(texel(2 + x as u32, 1 + y as u32)) << 8;
                assert_eq!(
                    at(&words, shuffle, x, y),
                    want,
                    "shuffle {shuffle} ({x}, {y})"
                );
            }
        }
    }
}

#[test]
fn two_to_one_takes_each_output_pixels_centre_with_table_0x_across() {
    // Delta U·W = 2: output pixel x's footprint is texels 2x and 2x + 1, its centre at
    // 2x + 1/2 (U·W + (2 − 1)/2): phase 16 of Table 0X averages them. Delta V·H = 1:
    // vertical phase 0 of Table 0Y, the identity. Table 0Y's phase 16 is the identity
    // too, so swapped X and Y bytes would give texel 2x alone.
    let (x0, y0) = (half_at_phase_16(), identity());
    let mem = memory(Y8, &avs_state((&x0, &y0, &y0, &y0), 1, true, true));
    let words = sample_8x8(
        &mem,
        (0.0, 0.0, 2.0 / W as f32, 1.0 / H as f32),
        IEF_BYPASS,
        0,
    )
    .unwrap();
    for y in 0..4u32 {
        for x in 0..16u32 {
            // (T0·32 + T1·32)·64 / 4096 of a level, in 1/256: (T0 + T1)·128.
            let want = (u16::from(texel(2 * x, y)) + u16::from(texel(2 * x + 1, y))) * 128;
            assert_eq!(at(&words, true, x as usize, y as usize), want, "({x}, {y})");
        }
    }
}

#[test]
fn what_is_not_modelled_is_refused_by_name() {
    let t = identity();
    let ok = avs_state((&t, &t, &t, &t), 1, true, true);
    let mem = memory(Y8, &ok);
    let at = (0.0, 0.0, 1.0 / W as f32, 1.0 / H as f32);
    let refused = |mem: &AddressSpace, m7: u32, m2: u32, what: &str| {
        let e = sample_8x8(mem, at, m7, m2).unwrap_err().to_string();
        assert!(e.contains(what), "{what}: {e}");
    };
    refused(&mem, IEF_BYPASS | 1 << 25, 0, "block mode 8x4");
    refused(&mem, IEF_BYPASS | 1 << 28, 0, "function 1");
    refused(&mem, 0, 0, "image enhancement filter");
    refused(&mem, IEF_BYPASS, 2 << 18, "Output Format Control 2");
    // Adaptive filtering on (the bypass bits clear).
    let adaptive = memory(Y8, &avs_state((&t, &t, &t, &t), 1, true, false));
    refused(&adaptive, IEF_BYPASS, 0, "adaptive blend");
    // 4-tap on all channels of an RGB surface (R8G8B8A8_UNORM, 9).
    let rgb = memory(9, &avs_state((&t, &t, &t, &t), 0, true, true));
    refused(&rgb, IEF_BYPASS, 0, "Enable 8-tap filter 00b");
    // Y16_SNORM (6): "Sample_8x8 only except AVS" on Gen11, Gen7's PLANAR_422 value.
    let y16 = memory(6, &ok);
    assert!(sample_8x8(&y16, at, IEF_BYPASS, 0).is_err());
}

/// A float of the kinds a hostile kernel sends: ordinary, huge, tiny, negative, NaN,
/// infinite.
fn hostile_float(rng: &mut gtsim_fuzzkit::Rng) -> f32 {
    match rng.below(6) {
        0 => f32::from_bits(rng.next_u64() as u32),
        1 => [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -0.0][rng.below(5)],
        2 => (rng.next_u64() % 1000) as f32 / 100.0 - 5.0,
        _ => (rng.next_u64() % 64) as f32 / 64.0,
    }
}

/// Hostile sample_8x8 messages and state (random AVS dwords, surface state dwords, M1
/// floats and control bits) end in a response of the block's words or a typed error,
/// never a panic; every fourth case is a sane message on sane state, which must
/// complete. `GTSIM_FUZZ_SEED` and `GTSIM_FUZZ_CASES` as every harness.
#[test]
fn hostile_sample_8x8_messages_end_in_a_result_or_a_typed_error() {
    let mut rng = gtsim_fuzzkit::Rng::new(gtsim_fuzzkit::seed(0x5a4d_0808));
    let t = identity();
    for case in 0..gtsim_fuzzkit::cases(300) {
        let sane = case % 4 == 0;
        let mut avs = avs_state(
            (&t, &half_at_phase_16(), &t, &t),
            1,
            rng.below(2) == 1,
            true,
        );
        let mut format = Y8;
        if !sane {
            for _ in 0..rng.below(8) {
                let i = rng.below(avs.len());
                avs[i] = rng.next_u64() as u32;
            }
            format = rng.below(32) as u32;
        }
        let mut mem = memory(format, &avs);
        if !sane && rng.below(2) == 0 {
            // A hostile MEDIA_SURFACE_STATE dword (sizes, pitch, tiling, base).
            let i = rng.below(8) as u64;
            mem.write_u32(SURFACE + 4 * i, rng.next_u64() as u32)
                .unwrap();
        }
        let block = if sane {
            (
                rng.below(W as usize) as f32 / W as f32,
                rng.below(H as usize) as f32 / H as f32,
                (1 + rng.below(3)) as f32 / W as f32,
                1.0 / H as f32,
            )
        } else {
            (
                hostile_float(&mut rng),
                hostile_float(&mut rng),
                hostile_float(&mut rng),
                hostile_float(&mut rng),
            )
        };
        let (m7, m2) = if sane {
            (IEF_BYPASS, 0)
        } else {
            (rng.next_u64() as u32, (rng.next_u64() as u32) & 0xc_0000)
        };
        match sample_8x8(&mem, block, m7, m2) {
            Ok(words) => assert_eq!(words.len(), 64, "case {case}: one channel's 16x4 block"),
            Err(e) => assert!(!sane, "case {case}: a sane message failed: {e}"),
        }
    }
}
