//! Tests for the texel codecs and capability table (`gtsim_mem::format::{texel, caps}`).
//!
//! Every expectation here is independent of the code under test: closed-form formulas
//! evaluated differently (integer mantissa times an exactly constructed power of two),
//! the `half` crate, hand-worked values (working shown in comments), and the BPE column
//! of the seed's SURFACE_FORMAT table (seed 000 §2.12.2.1.1), transcribed below by the
//! script in `tests/vectors/README.md`.

use gtsim_mem::format::caps::caps;
use gtsim_mem::format::texel::{
    FormatError, Texel, decode, decode_palette_index, decode_palette_index_sub_byte,
    decode_passthru, decode_sub_byte, decode_ycrcb, encode, encode_ycrcb, has_encoder, layout,
    linear_to_srgb, srgb_to_linear,
};
use gtsim_spec::shared::SurfaceFormat as SF;
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// 2^k built from its IEEE-754 bit pattern (valid for -1022 <= k <= 1023), so the
/// expectations do not share `powi` with the implementation.
fn pow2(k: i32) -> f64 {
    assert!((-1022..=1023).contains(&k));
    f64::from_bits(((k + 1023) as u64) << 52)
}

fn float(f: SF, bytes: &[u8]) -> [f32; 4] {
    match decode(f, bytes) {
        Ok(Texel::Float(c)) => c,
        other => panic!("{:?}: expected float texel, got {other:?}", f.name()),
    }
}

fn same_f32(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn close(a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-6)
}

/// All codes of the Gen7 SURFACE_FORMAT enum, parsed from the spec source.
fn spec_codes() -> Vec<(u32, String)> {
    let text = include_str!("../../spec/defs/shared/surface_format.spec");
    let mut in_enum = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("enum SURFACE_FORMAT") {
            in_enum = true;
            continue;
        }
        if in_enum {
            if !line.starts_with("  ") {
                break;
            }
            let mut it = line.split_whitespace();
            if let (Some(code), Some(name)) = (it.next(), it.next())
                && let Some(hex) = code.strip_prefix("0x")
            {
                out.push((u32::from_str_radix(hex, 16).unwrap(), name.to_string()));
            }
        }
    }
    out
}

/// BPE column of seed 000 §2.12.2.1.1 (L2617-2876), `code:bpe` in hex:decimal.
/// Produced by the script in tests/vectors/README.md; OCR-merged rows filled by eye.
const SEED_BPE: &[&str] = &[
    "000:128 001:128 002:128 003:128 004:128 005:128 006:128 007:128 008:128 020:128",
    "021:128 040:96 041:96 042:96 043:96 044:96 045:96 046:96 050:96 080:64",
    "081:64 082:64 083:64 084:64 085:64 086:64 087:64 088:64 089:64 08a:64",
    "08b:64 08c:64 08d:64 08e:64 08f:64 090:64 091:64 092:64 093:64 094:64",
    "095:64 096:64 0a0:64 0a1:64 0c0:32 0c1:32 0c2:32 0c3:32 0c4:32 0c5:32",
    "0c7:32 0c8:32 0c9:32 0ca:32 0cb:32 0cc:32 0cd:32 0ce:32 0cf:32 0d0:32",
    "0d1:32 0d2:32 0d3:32 0d6:32 0d7:32 0d8:32 0d9:32 0da:32 0dd:32 0de:32",
    "0df:32 0e0:32 0e1:32 0e2:32 0e3:32 0e4:32 0e5:32 0e6:32 0e7:32 0e8:32",
    "0e9:32 0ea:32 0eb:32 0ec:32 0ed:32 0ee:32 0f0:32 0f1:32 0f2:32 0f3:32",
    "0f4:32 0f5:32 0f6:32 0f7:32 0f8:32 0f9:32 100:16 101:16 102:16 103:16",
    "104:16 105:16 106:16 107:16 108:16 109:16 10a:16 10b:16 10c:16 10d:16",
    "10e:16 10f:16 110:16 111:16 112:16 113:16 114:16 115:16 116:16 117:16",
    "118:16 119:16 11a:16 11b:16 11c:16 11d:16 11e:16 11f:16 122:16 123:16",
    "124:16 125:16 126:16 127:16 140:8 141:8 142:8 143:8 144:8 145:8",
    "146:8 147:8 148:8 149:8 14a:8 14b:8 14c:8 14d:8 14e:8 14f:8",
    "150:8 152:8 153:8 154:8 155:8 180:0 181:1 182:0 183:0 184:2",
    "185:2 186:0 187:0 188:0 189:0 18a:0 18b:0 18c:0 18d:0 18e:1",
    "18f:0 190:0 191:0 192:0 193:24 194:24 195:24 196:24 197:256 198:192",
    "199:0 19a:0 19b:48 19c:48 19d:48 19e:48 19f:48 1a1:0 1a2:0 1a3:0",
    "1a4:0 1a5:0 1a8:24 1a9:0 1aa:0 1ab:0 1ac:0 1ad:0 1ae:0 1af:0",
    "1b0:48 1b1:48 1b2:32 1b3:32 1b4:32 1b5:32 1b6:32 1b7:32 1b8:32 1b9:32",
    "1ba:32 1bb:32 1bc:256 1bd:192 1c0:0 1c1:0 1c2:0 1c3:0 1c8:24 1c9:24",
    "1ff:0",
];

fn seed_bpe() -> Vec<(u32, u32)> {
    SEED_BPE
        .iter()
        .flat_map(|l| l.split_whitespace())
        .map(|kv| {
            let (k, v) = kv.split_once(':').unwrap();
            (u32::from_str_radix(k, 16).unwrap(), v.parse().unwrap())
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// R11G11B10_FLOAT: exhaustive
// ---------------------------------------------------------------------------------------

/// Unsigned float with 5-bit exponent and `mb` mantissa bits, by integer arithmetic:
/// denormal m * 2^(-14 - mb), normal (2^mb + m) * 2^(e - 15 - mb).
fn ufloat_expect(v: u32, mb: u32) -> f32 {
    let e = (v >> mb) as i32;
    let m = v & ((1 << mb) - 1);
    if e == 31 {
        return if m == 0 { f32::INFINITY } else { f32::NAN };
    }
    let (int, k) = if e == 0 {
        (m, -14 - mb as i32)
    } else {
        ((1 << mb) + m, e - 15 - mb as i32)
    };
    (f64::from(int) * pow2(k)) as f32
}

#[test]
fn r11g11b10_every_11_bit_encoding_in_r_and_g() {
    for v in 0..2048u32 {
        let want = ufloat_expect(v, 6);
        let r = float(SF::R11G11B10_FLOAT, &v.to_le_bytes());
        let g = float(SF::R11G11B10_FLOAT, &(v << 11).to_le_bytes());
        assert!(same_f32(r[0], want), "R {v:#x}: {} vs {want}", r[0]);
        assert!(same_f32(g[1], want), "G {v:#x}: {} vs {want}", g[1]);
        assert_eq!((r[1], r[2], r[3]), (0.0, 0.0, 1.0));
    }
}

#[test]
fn r11g11b10_every_10_bit_encoding_in_b() {
    for v in 0..1024u32 {
        let want = ufloat_expect(v, 5);
        let c = float(SF::R11G11B10_FLOAT, &(v << 22).to_le_bytes());
        assert!(same_f32(c[2], want), "B {v:#x}: {} vs {want}", c[2]);
    }
}

#[test]
fn r11g11b10_round_trips_every_encoding() {
    for v in 0..2048u32 {
        for (shift, mb) in [(0, 6), (11, 6), (22, 5)] {
            if v >> (mb + 5) != 0 {
                continue;
            }
            let word = v << shift;
            let c = float(SF::R11G11B10_FLOAT, &word.to_le_bytes());
            let back = encode(SF::R11G11B10_FLOAT, Texel::Float(c)).unwrap();
            if ufloat_expect(v, mb).is_nan() {
                let again = float(SF::R11G11B10_FLOAT, &back);
                assert!(again[(shift / 11) as usize].is_nan());
            } else {
                assert_eq!(back, word.to_le_bytes(), "{v:#x} at bit {shift}");
            }
        }
    }
}

#[test]
fn r11g11b10_encode_known_answers() {
    let enc = |r: f32, g: f32, b: f32| {
        let bytes = encode(SF::R11G11B10_FLOAT, Texel::Float([r, g, b, 1.0])).unwrap();
        u32::from_le_bytes(bytes.try_into().unwrap())
    };
    // 1.0 = 2^0 → biased exponent 15, mantissa 0 → 15 << 6 = 0x3c0.
    assert_eq!(enc(1.0, 0.0, 0.0), 0x3c0);
    // Same in B (5-bit mantissa): 15 << 5 = 0x1e0, at bit 22.
    assert_eq!(enc(0.0, 0.0, 1.0), 0x1e0 << 22);
    // Negative and -Inf clamp to 0 (no sign bit).
    assert_eq!(enc(-1.0, f32::NEG_INFINITY, -0.0), 0);
    // +Inf → exponent 31, mantissa 0 = 0x7c0.
    assert_eq!(enc(f32::INFINITY, 0.0, 0.0), 0x7c0);
    // Largest finite: (1 + 63/64) * 2^15 = 65024 → 0x7bf; larger finite saturates there.
    assert_eq!(enc(65024.0, 0.0, 0.0), 0x7bf);
    assert_eq!(enc(1.0e9, 0.0, 0.0), 0x7bf);
    // 1 + 1/128 lies halfway between mantissa 0 and 1: ties to even → 0x3c0.
    assert_eq!(enc(1.0 + 1.0 / 128.0, 0.0, 0.0), 0x3c0);
    // 1 + 3/128 lies halfway between mantissas 1 and 2: ties to even → 2 → 0x3c2.
    assert_eq!(enc(1.0 + 3.0 / 128.0, 0.0, 0.0), 0x3c2);
    // Smallest denormal 2^-20 → 1; 2^-21 is half of it → tie to even → 0; 3*2^-21 → 2.
    assert_eq!(enc(2f32.powi(-20), 0.0, 0.0), 1);
    assert_eq!(enc(2f32.powi(-21), 0.0, 0.0), 0);
    assert_eq!(enc(3.0 * 2f32.powi(-21), 0.0, 0.0), 2);
    // NaN stays NaN (exponent 31, mantissa non-zero).
    let n = enc(f32::NAN, 0.0, 0.0);
    assert_eq!(n >> 6 & 0x1f, 31);
    assert_ne!(n & 0x3f, 0);
}

// ---------------------------------------------------------------------------------------
// Half floats: all 2^16 encodings
// ---------------------------------------------------------------------------------------

/// IEEE binary16 by hand: sign, 5-bit exponent (bias 15), 10-bit mantissa.
fn half_expect(v: u16) -> f32 {
    let sign = if v & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((v >> 10) & 0x1f);
    let m = u32::from(v & 0x3ff);
    let mag = match e {
        31 if m == 0 => f64::INFINITY,
        31 => f64::NAN,
        0 => f64::from(m) * pow2(-24),
        _ => f64::from(1024 + m) * pow2(e - 25),
    };
    (sign * mag) as f32
}

#[test]
fn half_every_encoding_matches_half_crate_and_formula() {
    for v in 0..=u16::MAX {
        let got = float(SF::R16_FLOAT, &v.to_le_bytes())[0];
        let crate_ref = half::f16::from_bits(v).to_f32();
        assert!(
            same_f32(got, crate_ref),
            "{v:#06x}: {got} vs half {crate_ref}"
        );
        assert!(same_f32(got, half_expect(v)), "{v:#06x}: {got} vs formula");
        let back = encode(SF::R16_FLOAT, Texel::Float([got, 0.0, 0.0, 1.0])).unwrap();
        if got.is_nan() {
            assert!(float(SF::R16_FLOAT, &back)[0].is_nan());
        } else {
            assert_eq!(back, v.to_le_bytes(), "{v:#06x} round trip");
        }
    }
}

#[test]
fn half_encode_rounds_to_nearest_even() {
    let enc = |x: f32| {
        u16::from_le_bytes(
            encode(SF::R16_FLOAT, Texel::Float([x, 0.0, 0.0, 1.0]))
                .unwrap()
                .try_into()
                .unwrap(),
        )
    };
    assert_eq!(enc(1.0), 0x3c00);
    // 1 + 2^-11 is halfway between 0x3c00 and 0x3c01 → even → 0x3c00.
    assert_eq!(enc(1.0 + 2f32.powi(-11)), 0x3c00);
    // 1 + 3*2^-11 is halfway between 0x3c01 and 0x3c02 → even → 0x3c02.
    assert_eq!(enc(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
    // 65520 is halfway between 65504 (max finite) and 65536 → rounds to +Inf.
    assert_eq!(enc(65520.0), 0x7c00);
    assert_eq!(enc(-2.0), 0xc000);
}

// ---------------------------------------------------------------------------------------
// R9G9B9E5_SHAREDEXP
// ---------------------------------------------------------------------------------------

#[test]
fn rgb9e5_every_mantissa_and_exponent() {
    for e in 0..32u32 {
        for m in 0..512u32 {
            let want = (f64::from(m) * pow2(e as i32 - 15 - 9)) as f32;
            for (slot, shift) in [(0usize, 0u32), (1, 9), (2, 18)] {
                let word = (m << shift) | (e << 27);
                let c = float(SF::R9G9B9E5_SHAREDEXP, &word.to_le_bytes());
                assert_eq!(c[slot].to_bits(), want.to_bits(), "m={m} e={e} slot {slot}");
                assert_eq!(c[3], 1.0);
            }
            // Round trip of the value (the encoding is not unique, the value is).
            let c = float(SF::R9G9B9E5_SHAREDEXP, &(m | (e << 27)).to_le_bytes());
            let back = encode(SF::R9G9B9E5_SHAREDEXP, Texel::Float(c)).unwrap();
            assert_eq!(float(SF::R9G9B9E5_SHAREDEXP, &back)[0], want, "m={m} e={e}");
        }
    }
}

#[test]
fn rgb9e5_encode_known_answers() {
    let enc = |c: [f32; 3]| {
        let b = encode(
            SF::R9G9B9E5_SHAREDEXP,
            Texel::Float([c[0], c[1], c[2], 1.0]),
        )
        .unwrap();
        u32::from_le_bytes(b.try_into().unwrap())
    };
    // max = 1.0: floor(log2 1) = 0 → exp = 0 + 1 + 15 = 16, quantum 2^(16-24) = 1/256:
    // R = 256, G = 128, B = 64 → 0x100 | 128<<9 | 64<<18 | 16<<27 = 0x8101_0100.
    assert_eq!(enc([1.0, 0.5, 0.25]), 0x8101_0100);
    // Clamp to the maximum 511/512 * 2^16 = 65408: mantissa 511, exponent 31.
    assert_eq!(enc([1.0e9, 0.0, 0.0]), 0x1ff | (31 << 27));
    // Negative and NaN → 0; all zero → exponent 0.
    assert_eq!(enc([-1.0, f32::NAN, 0.0]), 0);
}

// ---------------------------------------------------------------------------------------
// UNORM / SNORM / sRGB known answers
// ---------------------------------------------------------------------------------------

#[test]
fn unorm_snorm_encode_known_answers() {
    let r8 = |f: SF, x: f32| encode(f, Texel::Float([x, 0.0, 0.0, 1.0])).unwrap()[0];
    // 0.5 * 255 = 127.5 → ties to even → 128.
    assert_eq!(r8(SF::R8_UNORM, 0.5), 128);
    // 0.2 * 255 = 51.000000745 → 51.
    assert_eq!(r8(SF::R8_UNORM, 0.2), 51);
    // Clamp above and below; NaN → 0 (GL 4.6 §2.3.5.1).
    assert_eq!(r8(SF::R8_UNORM, 1.5), 255);
    assert_eq!(r8(SF::R8_UNORM, -0.2), 0);
    assert_eq!(r8(SF::R8_UNORM, f32::NAN), 0);
    // SNORM: -1 → -127 = 0x81; below -1 clamps to the same; 0.5 * 127 = 63.5 → 64.
    assert_eq!(r8(SF::R8_SNORM, -1.0), 0x81);
    assert_eq!(r8(SF::R8_SNORM, -2.0), 0x81);
    assert_eq!(r8(SF::R8_SNORM, 0.5), 64);
    assert_eq!(r8(SF::R8_SNORM, f32::NAN), 0);
    // B5G6R5: R = 1 → 31 << 11; G = 0.5 → 31.5 → 32 (even) << 5; B = 0.
    let b = encode(SF::B5G6R5_UNORM, Texel::Float([1.0, 0.5, 0.0, 1.0])).unwrap();
    assert_eq!(u16::from_le_bytes([b[0], b[1]]), (31 << 11) | (32 << 5));
}

#[test]
fn packed_unorm_known_answers() {
    // B5G6R5: B bits 4:0, G 10:5, R 15:11.
    assert_eq!(
        float(SF::B5G6R5_UNORM, &0xf800u16.to_le_bytes()),
        [1.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(
        float(SF::B5G6R5_UNORM, &0x07e0u16.to_le_bytes()),
        [0.0, 1.0, 0.0, 1.0]
    );
    assert_eq!(
        float(SF::B5G6R5_UNORM, &0x001fu16.to_le_bytes()),
        [0.0, 0.0, 1.0, 1.0]
    );
    // R10G10B10A2: R = 0x3ff → 1, G = 0x200 → 512/1023, B = 0, A = 3 → 1.
    let w: u32 = 0x3ff | (0x200 << 10) | (3 << 30);
    assert_eq!(
        float(SF::R10G10B10A2_UNORM, &w.to_le_bytes()),
        [1.0, (512.0f64 / 1023.0) as f32, 0.0, 1.0]
    );
    // B10G10R10A2: same word, B and R swap; A = 1 → 1/3.
    let w: u32 = 0x3ff | (1 << 30);
    assert_eq!(
        float(SF::B10G10R10A2_UNORM, &w.to_le_bytes()),
        [0.0, 0.0, 1.0, (1.0f64 / 3.0) as f32]
    );
    // B4G4R4A4 0x1234: B = 4, G = 3, R = 2, A = 1, each /15.
    let c = float(SF::B4G4R4A4_UNORM, &0x1234u16.to_le_bytes());
    assert_eq!(c, [2.0 / 15.0, 3.0 / 15.0, 4.0 / 15.0, 1.0 / 15.0]);
    // B5G5R5A1: A is bit 15, R bits 14:10.
    assert_eq!(
        float(SF::B5G5R5A1_UNORM, &0x8000u16.to_le_bytes()),
        [0.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(
        float(SF::B5G5R5A1_UNORM, &0x7c00u16.to_le_bytes()),
        [1.0, 0.0, 0.0, 0.0]
    );
    // B5G5R5X1: the X bit is ignored, alpha reads 1.
    assert_eq!(
        float(SF::B5G5R5X1_UNORM, &0x001fu16.to_le_bytes()),
        [0.0, 0.0, 1.0, 1.0]
    );
    // A1B5G5R5: A is bit 0, R bits 15:11.
    assert_eq!(
        float(SF::A1B5G5R5_UNORM, &0xf801u16.to_le_bytes()),
        [1.0, 0.0, 0.0, 1.0]
    );
    // R8G8B8A8: R in byte 0.
    assert_eq!(
        float(SF::R8G8B8A8_UNORM, &[255, 0, 51, 0]),
        [1.0, 0.0, 0.2, 0.0]
    );
    // B8G8R8X8: B in byte 0, X ignored → A = 1.
    assert_eq!(
        float(SF::B8G8R8X8_UNORM, &[255, 0, 0, 7]),
        [0.0, 0.0, 1.0, 1.0]
    );
    // R5G5_SNORM_B6_UNORM: R bits 4:0 = 15 → 1, G bits 9:5 = 0x10 (-16) → -1, B = 63 → 1.
    let w: u16 = 0x0f | (0x10 << 5) | (0x3f << 10);
    assert_eq!(
        float(SF::R5G5_SNORM_B6_UNORM, &w.to_le_bytes()),
        [1.0, -1.0, 1.0, 1.0]
    );
    // X8B8_UNORM_G8R8_SNORM: byte 0 X, byte 1 B (UNORM), byte 2 G, byte 3 R (SNORM).
    assert_eq!(
        float(SF::X8B8_UNORM_G8R8_SNORM, &[0xaa, 0xff, 0x81, 0x7f]),
        [1.0, -1.0, 1.0, 1.0]
    );
}

#[test]
fn snorm_most_negative_reads_minus_one() {
    // -128 and -127 both → -1.0; 127 → 1.0; 0 → 0.
    assert_eq!(
        float(SF::R8G8B8A8_SNORM, &[0x80, 0x81, 0x7f, 0x00]),
        [-1.0, -1.0, 1.0, 0.0]
    );
    // 16-bit: -32768 → -1; 16384/32767.
    let c = float(SF::R16G16_SNORM, &[0x00, 0x80, 0x00, 0x40]);
    assert_eq!(c, [-1.0, (16384.0f64 / 32767.0) as f32, 0.0, 1.0]);
}

#[test]
fn srgb_known_answers() {
    // 0x80 = 128/255 = 0.50196; ((0.50196 + 0.055) / 1.055)^2.4 = 0.527925^2.4
    // = exp(2.4 * ln 0.527925) = exp(2.4 * -0.638800) = exp(-1.533121) = 0.2158605.
    let c = float(SF::R8G8B8A8_UNORM_SRGB, &[0x80, 0x80, 0x80, 0x80]);
    for ch in &c[..3] {
        assert!((ch - 0.215_860_5).abs() < 1e-6, "{ch}");
    }
    // Alpha is linear: 128/255.
    assert_eq!(c[3], (128.0f64 / 255.0) as f32);
    // Linear segment: 10/255 = 0.0392157 <= 0.04045 → /12.92 = 0.00303527.
    assert!((srgb_to_linear(10.0 / 255.0) - 0.003_035_27).abs() < 1e-8);
    // Encode: linear 0.2158605 → sRGB 0.50196 → * 255 = 128.
    let b = encode(
        SF::B8G8R8A8_UNORM_SRGB,
        Texel::Float([0.215_860_5, 0.0, 1.0, 0.5]),
    )
    .unwrap();
    assert_eq!(b, vec![255, 0, 128, 128]);
    // Every 8-bit code survives decode → encode.
    for v in 0..=255u8 {
        let c = float(SF::R8G8B8A8_UNORM_SRGB, &[v, v, v, v]);
        assert_eq!(
            encode(SF::R8G8B8A8_UNORM_SRGB, Texel::Float(c)).unwrap(),
            vec![v, v, v, v]
        );
    }
    assert!((linear_to_srgb(0.001) - 0.012_92).abs() < 1e-7);
    // L8_UNORM_SRGB converts L (colour), L8A8_UNORM_SRGB leaves A linear.
    let c = float(SF::L8A8_UNORM_SRGB, &[0x80, 0x80]);
    assert!((c[0] - 0.215_860_5).abs() < 1e-6 && c[0] == c[1] && c[1] == c[2]);
    assert_eq!(c[3], (128.0f64 / 255.0) as f32);
}

// ---------------------------------------------------------------------------------------
// Channel mapping (seed 000 §2.12.2.1.2)
// ---------------------------------------------------------------------------------------

#[test]
fn luminance_alpha_intensity_mapping() {
    let q = (64.0f64 / 255.0) as f32;
    assert_eq!(float(SF::L8_UNORM, &[64]), [q, q, q, 1.0]);
    assert_eq!(float(SF::A8_UNORM, &[64]), [0.0, 0.0, 0.0, q]);
    assert_eq!(float(SF::I8_UNORM, &[64]), [q, q, q, q]);
    // L8A8: L in byte 0, A in byte 1.
    assert_eq!(float(SF::L8A8_UNORM, &[64, 255]), [q, q, q, 1.0]);
    assert_eq!(
        float(SF::L16A16_FLOAT, &[0x00, 0x3c, 0x00, 0x38]),
        [1.0, 1.0, 1.0, 0.5]
    );
    assert_eq!(float(SF::I24X8_UNORM, &[0xff, 0xff, 0xff, 0x12]), [1.0; 4]);
    assert_eq!(
        float(SF::A24X8_UNORM, &[0xff, 0xff, 0xff, 0x12]),
        [0.0, 0.0, 0.0, 1.0]
    );
    let one = 1.0f32.to_bits().to_le_bytes();
    let junk = [0xde, 0xad, 0xbe, 0xef];
    assert_eq!(
        float(SF::L32X32_FLOAT, &[one, junk].concat()),
        [1.0, 1.0, 1.0, 1.0]
    );
    assert_eq!(
        float(SF::A32X32_FLOAT, &[one, junk].concat()),
        [0.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(float(SF::I32X32_FLOAT, &[one, junk].concat()), [1.0; 4]);
    assert_eq!(
        decode(SF::L8A8_UINT, &[7, 9]),
        Ok(Texel::Uint([7, 7, 7, 9]))
    );
    assert_eq!(decode(SF::I8_SINT, &[0xff]), Ok(Texel::Sint([-1; 4])));
    assert_eq!(
        decode(SF::L8_UINT, &[200]),
        Ok(Texel::Uint([200, 200, 200, 1]))
    );
    // Missing channels: R/G/B → 0, A → 1 (1 for integer formats).
    assert_eq!(float(SF::R16_UNORM, &[0xff, 0xff]), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(
        decode(SF::R32G32_UINT, &[1, 0, 0, 0, 2, 0, 0, 0]),
        Ok(Texel::Uint([1, 2, 0, 1]))
    );
    // Depth/stencil views: only the named channel is real.
    let d = [0u8, 0, 0, 0, 0x5a, 0xff, 0xff, 0xff];
    assert_eq!(
        decode(SF::X32_TYPELESS_G8X24_UINT, &d),
        Ok(Texel::Uint([0, 0x5a, 0, 1]))
    );
    assert_eq!(
        decode(SF::X24_TYPELESS_G8_UINT, &[1, 2, 3, 0x80]),
        Ok(Texel::Uint([0, 0x80, 0, 1]))
    );
    assert_eq!(
        float(SF::R24_UNORM_X8_TYPELESS, &[0xff, 0xff, 0xff, 0x33]),
        [1.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(
        float(SF::R32_FLOAT_X8X24_TYPELESS, &[one, junk].concat()),
        [1.0, 0.0, 0.0, 1.0]
    );
}

#[test]
fn scaled_fixed_and_integer_formats() {
    assert_eq!(
        float(SF::R8G8_SSCALED, &[0x80, 0x7f]),
        [-128.0, 127.0, 0.0, 1.0]
    );
    assert_eq!(
        float(SF::R8G8_USCALED, &[0x80, 0x7f]),
        [128.0, 127.0, 0.0, 1.0]
    );
    assert_eq!(
        float(SF::R16_USCALED, &[0xff, 0xff]),
        [65535.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(
        float(SF::R32_SSCALED, &i32::MIN.to_le_bytes()),
        [-2_147_483_648.0, 0.0, 0.0, 1.0]
    );
    // 10-bit SSCALED: 0x200 is -512.
    assert_eq!(
        float(SF::R10G10B10A2_SSCALED, &0x200u32.to_le_bytes())[0],
        -512.0
    );
    // SFIXED 16.16: 0x0001_8000 = 1.5, 0xffff_0000 = -1.0.
    assert_eq!(float(SF::R32_SFIXED, &0x0001_8000u32.to_le_bytes())[0], 1.5);
    assert_eq!(
        float(SF::R32_SFIXED, &0xffff_0000u32.to_le_bytes())[0],
        -1.0
    );
    // Sign extension of SINT fields.
    assert_eq!(
        decode(SF::R8G8B8A8_SINT, &[0x80, 0xff, 0x01, 0x7f]),
        Ok(Texel::Sint([-128, -1, 1, 127]))
    );
    assert_eq!(
        decode(SF::R16G16_SINT, &[0x00, 0x80, 0xff, 0x7f]),
        Ok(Texel::Sint([-32768, 32767, 0, 1]))
    );
    let w: u32 = 0x3ff | (1 << 10) | (0x200 << 20) | (2 << 30);
    assert_eq!(
        decode(SF::R10G10B10A2_UINT, &w.to_le_bytes()),
        Ok(Texel::Uint([1023, 1, 512, 2]))
    );
    assert_eq!(
        decode(SF::B10G10R10A2_SINT, &w.to_le_bytes()),
        Ok(Texel::Sint([-512, 1, -1, -2]))
    );
    assert_eq!(
        decode(SF::R32_UINT, &u32::MAX.to_le_bytes()),
        Ok(Texel::Uint([u32::MAX, 0, 0, 1]))
    );
    // Integer encode saturates.
    assert_eq!(
        encode(SF::R8_UINT, Texel::Uint([300, 0, 0, 0])),
        Ok(vec![255])
    );
    assert_eq!(
        encode(SF::R8G8_SINT, Texel::Sint([-300, 300, 0, 0])),
        Ok(vec![0x80, 0x7f])
    );
    // Wrong texel class is a typed error.
    assert_eq!(
        encode(SF::R8_UINT, Texel::Float([0.0; 4])),
        Err(FormatError::TexelKind {
            format: "R8_UINT",
            expected: "uint",
            got: "float"
        })
    );
}

#[test]
fn float32_and_float64_bits() {
    for bits in [
        0x7fc0_1234u32,
        0xffa0_0001,
        0x8000_0000,
        0x0000_0001,
        0x7f80_0000,
        0x3f80_0000,
    ] {
        let mut bytes = Vec::new();
        for k in 0..4u32 {
            bytes.extend((bits ^ k).to_le_bytes());
        }
        let c = float(SF::R32G32B32A32_FLOAT, &bytes);
        for k in 0..4u32 {
            assert_eq!(
                c[k as usize].to_bits(),
                bits ^ k,
                "channel {k} of {bits:#x}"
            );
        }
        let back = encode(SF::R32G32B32A32_FLOAT, Texel::Float(c)).unwrap();
        assert_eq!(back, bytes);
    }
    // R64_FLOAT rounds to the nearest f32: 0.1f64 → 0.1f32.
    assert_eq!(float(SF::R64_FLOAT, &0.1f64.to_le_bytes())[0], 0.1f32);
    // 1 + 2^-24 (exactly between 1 and 1 + 2^-23) rounds to even → 1.0.
    assert_eq!(
        float(SF::R64_FLOAT, &(1.0 + pow2(-24)).to_le_bytes())[0],
        1.0
    );
}

// ---------------------------------------------------------------------------------------
// YCRCB, palettes, sub-byte, PASSTHRU
// ---------------------------------------------------------------------------------------

#[test]
fn ycrcb_byte_orders() {
    let u = |v: u8| (f64::from(v) / 255.0) as f32;
    // Seed 000 L8639: NORMAL = YUYV, SWAPUV = YVYU, SWAPY = UYVY, SWAPUVY = VYUY.
    // Y0 = 10, Y1 = 30, Cb (U) = 20, Cr (V) = 40; output R = Cr, G = Y, B = Cb, A = 1.
    let cases: [(SF, [u8; 4]); 4] = [
        (SF::YCRCB_NORMAL, [10, 20, 30, 40]),
        (SF::YCRCB_SWAPUV, [10, 40, 30, 20]),
        (SF::YCRCB_SWAPY, [20, 10, 40, 30]),
        (SF::YCRCB_SWAPUVY, [40, 10, 20, 30]),
    ];
    for (f, bytes) in cases {
        assert_eq!(
            decode_ycrcb(f, &bytes, false),
            Ok([u(40), u(10), u(20), 1.0]),
            "{:?}",
            f.name()
        );
        assert_eq!(
            decode_ycrcb(f, &bytes, true),
            Ok([u(40), u(30), u(20), 1.0]),
            "{:?}",
            f.name()
        );
        let even = [u(40), u(10), u(20), 1.0];
        let odd = [u(40), u(30), u(20), 1.0];
        assert_eq!(encode_ycrcb(f, even, odd), Ok(bytes));
        assert!(matches!(
            decode(f, &bytes),
            Err(FormatError::Unsupported { format, reason })
                if Some(format) == f.name() && reason.contains("use decode_ycrcb")
        ));
        assert_eq!(layout(f).unwrap().bits_per_element, 16);
    }
    assert_eq!(
        decode_ycrcb(SF::YCRCB_NORMAL, &[1, 2, 3], false),
        Err(FormatError::WrongLength {
            format: "YCRCB_NORMAL",
            expected: 4,
            got: 3
        })
    );
    assert!(matches!(
        decode_ycrcb(SF::R8_UNORM, &[1, 2, 3, 4], false),
        Err(FormatError::Unsupported {
            format: "R8_UNORM",
            ..
        })
    ));
}

#[test]
fn palette_indices() {
    // P4A4: P in bits 3:0, A in 7:4. 0xa5 → P = 5, A = 10/15.
    assert_eq!(
        decode_palette_index(SF::P4A4_UNORM_PALETTE0, &[0xa5]),
        Ok((5, Some(10.0 / 15.0)))
    );
    assert_eq!(
        decode_palette_index(SF::A4P4_UNORM_PALETTE1, &[0xa5]),
        Ok((10, Some(5.0 / 15.0)))
    );
    assert_eq!(
        decode_palette_index(SF::P8_UNORM_PALETTE1, &[0xa5]),
        Ok((0xa5, None))
    );
    assert_eq!(
        decode_palette_index(SF::A8P8_UNORM_PALETTE0, &[0xff, 7]),
        Ok((7, Some(1.0)))
    );
    assert_eq!(
        decode_palette_index(SF::P8A8_UNORM_PALETTE1, &[7, 0]),
        Ok((7, Some(0.0)))
    );
    assert_eq!(
        decode_palette_index(SF::P8A8_UNORM_PALETTE1, &[7]),
        Err(FormatError::WrongLength {
            format: "P8A8_UNORM_PALETTE1",
            expected: 2,
            got: 1
        })
    );
    assert!(matches!(
        decode_palette_index(SF::R8_UNORM, &[7]),
        Err(FormatError::Unsupported {
            format: "R8_UNORM",
            ..
        })
    ));
    assert!(matches!(
        decode(SF::P8_UNORM_PALETTE0, &[1]),
        Err(FormatError::Unsupported {
            format: "P8_UNORM_PALETTE0",
            reason
        }) if reason.contains("use decode_palette_index")
    ));
    // P2: 0b11_10_01_00 → indices 0, 1, 2, 3 from the low bits up.
    for i in 0..4 {
        assert_eq!(
            decode_palette_index_sub_byte(SF::P2_UNORM_PALETTE0, 0b1110_0100, i),
            Ok(i as u8)
        );
    }
    assert_eq!(
        decode_palette_index_sub_byte(SF::P2_UNORM_PALETTE0, 0, 4),
        Err(FormatError::SubByteIndex {
            format: "P2_UNORM_PALETTE0",
            index: 4,
            per_byte: 4
        })
    );
    assert_eq!(
        decode_sub_byte(SF::R1_UNORM, 0b10, 1),
        Ok(Texel::Float([1.0, 0.0, 0.0, 1.0]))
    );
    assert_eq!(
        decode_sub_byte(SF::R1_UNORM, 0b10, 0),
        Ok(Texel::Float([0.0, 0.0, 0.0, 1.0]))
    );
    assert_eq!(
        decode_sub_byte(SF::R1_UNORM, 0, 8),
        Err(FormatError::SubByteIndex {
            format: "R1_UNORM",
            index: 8,
            per_byte: 8
        })
    );
}

#[test]
fn passthru_raw_bits() {
    let bytes: Vec<u8> = (0..16).collect();
    let ch = decode_passthru(SF::R64G64_PASSTHRU, &bytes).unwrap();
    assert_eq!(ch, vec![0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908]);
    // Four 64-bit channels are 32 bytes, not 16.
    assert_eq!(
        decode_passthru(SF::R64G64B64A64_PASSTHRU, &bytes),
        Err(FormatError::WrongLength {
            format: "R64G64B64A64_PASSTHRU",
            expected: 32,
            got: 16
        })
    );
    // `decode` refuses PASSTHRU formats and points at `decode_passthru`.
    assert!(matches!(
        decode(SF::R64_PASSTHRU, &bytes[..8]),
        Err(FormatError::Unsupported { format: "R64_PASSTHRU", reason })
            if reason.contains("decode_passthru")
    ));
}

// ---------------------------------------------------------------------------------------
// Errors, layouts, coverage
// ---------------------------------------------------------------------------------------

#[test]
fn error_cases_are_typed() {
    assert_eq!(
        decode(SF::R8G8B8A8_UNORM, &[1, 2, 3]),
        Err(FormatError::WrongLength {
            format: "R8G8B8A8_UNORM",
            expected: 4,
            got: 3
        })
    );
    assert_eq!(
        decode(SF(0x00a), &[0; 16]),
        Err(FormatError::UnknownCode { code: 0x00a })
    );
    assert_eq!(
        decode(SF(600), &[0; 16]),
        Err(FormatError::UnknownCode { code: 600 })
    );
    // ETC1 is a 4x4 block format (Gen8+'s, `caps::caps_on`), read by the block decoder.
    assert_eq!(
        decode(SF::ETC1_RGB8, &[0; 8]),
        Err(FormatError::NotUncompressed {
            format: "ETC1_RGB8",
            block_width: 4,
            block_height: 4
        })
    );
    assert_eq!(
        decode(SF::BC1_UNORM, &[0; 8]),
        Err(FormatError::NotUncompressed {
            format: "BC1_UNORM",
            block_width: 4,
            block_height: 4
        })
    );
    assert!(matches!(
        decode(SF::RAW, &[0]),
        Err(FormatError::Unsupported {
            format: "RAW",
            reason
        }) if reason.contains("untyped surface")
    ));
    assert!(matches!(
        decode(SF::MONO8, &[0]),
        Err(FormatError::Unsupported {
            format: "MONO8",
            reason
        }) if reason.contains("monochrome filter")
    ));
}

#[test]
fn compressed_layouts() {
    let l = |f: SF| layout(f).map(|l| (l.bits_per_element, l.block_width, l.block_height));
    assert_eq!(l(SF::BC1_UNORM), Ok((64, 4, 4)));
    assert_eq!(l(SF::DXT1_RGB), Ok((64, 4, 4)));
    assert_eq!(l(SF::BC4_SNORM), Ok((64, 4, 4)));
    assert_eq!(l(SF::BC3_UNORM_SRGB), Ok((128, 4, 4)));
    assert_eq!(l(SF::BC7_UNORM), Ok((128, 4, 4)));
    assert_eq!(l(SF::BC6H_UF16), Ok((128, 4, 4)));
    assert_eq!(l(SF::FXT1), Ok((128, 8, 4)));
    assert_eq!(l(SF::ETC2_EAC_RGBA8), Ok((128, 4, 4)));
    assert_eq!(l(SF::R8G8B8A8_UNORM), Ok((32, 1, 1)));
}

/// Every enum code either decodes an all-zero element or returns a typed error, and for
/// every decodable format `layout` agrees with the seed's BPE column.
#[test]
fn every_code_handled_and_bpe_matches_seed() {
    let seed: std::collections::HashMap<u32, u32> = seed_bpe().into_iter().collect();
    let codes = spec_codes();
    // The seed's 221 and R32G32_FLOAT_LD, which only Mesa's isl lists (64 bits, as
    // R32G32_FLOAT).
    assert_eq!(codes.len(), 222, "surface.spec lists 222 formats");
    let mut decoded = 0;
    for (code, name) in &codes {
        let f = SF(*code);
        assert_eq!(f.name(), Some(name.as_str()));
        if *code == 0x097 {
            assert_eq!(layout(f).map(|l| l.bits_per_element), Ok(64), "{name}");
            assert!(decode(f, &[0; 8]).is_ok(), "{name}");
            continue;
        }
        let want = *seed
            .get(code)
            .unwrap_or_else(|| panic!("{name} missing from SEED_BPE"));
        match layout(f) {
            Ok(l) if l.block_width == 1 && l.block_height == 1 => {
                let zeros = vec![0u8; (l.bits_per_element as usize).div_ceil(8)];
                if decode(f, &zeros).is_ok() {
                    decoded += 1;
                    assert_eq!(l.bits_per_element, want, "{name}: layout vs seed BPE");
                } else if want != 0 {
                    assert_eq!(l.bits_per_element, want, "{name}: layout vs seed BPE");
                }
            }
            Ok(_) => assert_eq!(want, 0, "{name}: compressed formats have BPE 0 in the seed"),
            Err(e) => assert!(
                matches!(&e, FormatError::Unsupported { format, .. } if *format == name.as_str()),
                "{name}: {e}"
            ),
        }
    }
    // 221 codes minus 28 compressed (14 BC*, 2 DXT1*, FXT1, 11 ETC/EAC), 4 YCRCB,
    // 12 palette (incl. 2 P2), R1_UNORM, 4 PASSTHRU, and MONO8, Y8, PLANAR_420_8, RAW.
    assert_eq!(decoded, 221 - 28 - 4 - 12 - 1 - 4 - 4);
}

/// If the seed text is available next to the repository, re-derive SEED_BPE from it.
#[test]
fn seed_bpe_transcription_matches_seed_text() {
    // The seeds beside the repository, or where GTSIM_SEEDS says (as seed_tables.rs).
    let dir = std::env::var("GTSIM_SEEDS").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/seeds").to_string()
    });
    let dir = dir.as_str();
    let Some(path) = std::fs::read_dir(dir).ok().and_then(|d| {
        d.flatten().map(|e| e.path()).find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("000_"))
        })
    }) else {
        assert!(
            std::env::var_os("GTSIM_REQUIRE_SEEDS").is_none(),
            "GTSIM_REQUIRE_SEEDS is set but the seed text is not at {dir}"
        );
        eprintln!("SKIPPED: seed text not found at {dir}");
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let seed: std::collections::HashMap<u32, u32> = seed_bpe().into_iter().collect();
    let mut checked = 0;
    for line in text.lines().skip(2616).take(260) {
        // Clean rows look like "0C7h\tR8G8B8A8_UNORM\t32".
        let cols: Vec<&str> = line.split('\t').collect();
        let (Some(code), Some(bpe)) = (cols.first().and_then(|c| c.strip_suffix('h')), cols.get(2))
        else {
            continue;
        };
        let Ok(code) = u32::from_str_radix(code, 16) else {
            continue;
        };
        let digits: String = bpe
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(char::is_ascii_digit)
            .collect();
        if let Ok(bpe) = digits.parse::<u32>() {
            assert_eq!(seed.get(&code), Some(&bpe), "code {code:#x}");
            checked += 1;
        }
    }
    assert!(checked > 200, "only {checked} rows parsed");
}

#[test]
fn caps_table_covers_the_enum() {
    for (code, name) in spec_codes() {
        let c = caps(SF(code));
        let etc = name.starts_with("ETC") || name.starts_with("EAC");
        assert_eq!(c.is_none(), etc, "{name}");
    }
    assert_eq!(caps(SF(0x00a)), None);
    // Spot checks against Mesa isl_format.c (Gen7 column = 70).
    let rgba8 = caps(SF::R8G8B8A8_UNORM).unwrap();
    assert!(
        rgba8.sampling
            && rgba8.filtering
            && rgba8.render_target
            && rgba8.alpha_blend
            && rgba8.vertex_fetch
    );
    assert!(!rgba8.shadow_map);
    let r32f = caps(SF::R32_FLOAT).unwrap();
    assert!(r32f.filtering && r32f.shadow_map);
    // R16G16B16A16_UNORM blends from G45 (45 <= 70); A1B5G5R5 is Gen12 (120).
    assert!(caps(SF::R16G16B16A16_UNORM).unwrap().alpha_blend);
    assert!(!caps(SF::A1B5G5R5_UNORM).unwrap().sampling);
    // B8G8R8X8_UNORM renders from Gen8 only; R32G32B32A32_SFIXED fetches from Haswell.
    assert!(!caps(SF::B8G8R8X8_UNORM).unwrap().render_target);
    assert!(!caps(SF::R32G32B32A32_SFIXED).unwrap().vertex_fetch);
    // Seed errata L2873.
    assert!(!caps(SF::BC6H_UF16).unwrap().sampling);
    assert!(caps(SF::BC7_UNORM).unwrap().sampling);
}

#[test]
fn every_render_target_format_has_an_encoder() {
    let mut n = 0;
    for (code, name) in spec_codes() {
        let f = SF(code);
        if !caps(f).is_some_and(|c| c.render_target) {
            continue;
        }
        n += 1;
        assert!(has_encoder(f), "{name}");
        if name.starts_with("YCRCB") {
            assert!(encode_ycrcb(f, [0.5; 4], [0.5; 4]).is_ok(), "{name}");
            continue;
        }
        let t = if name.ends_with("_UINT") {
            Texel::Uint([1, 2, 3, 4])
        } else if name.ends_with("_SINT") {
            Texel::Sint([-1, 2, -3, 4])
        } else {
            Texel::Float([0.25, 0.5, 0.75, 1.0])
        };
        let bytes = encode(f, t).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            bytes.len() * 8,
            layout(f).unwrap().bits_per_element as usize,
            "{name}"
        );
    }
    assert!(n > 40, "only {n} render-target formats");
}

/// Decode → encode → decode is stable for every plain format on a few patterns.
#[test]
fn encode_decode_round_trip_all_plain_formats() {
    for (code, name) in spec_codes() {
        let f = SF(code);
        let Ok(l) = layout(f) else { continue };
        let n = (l.bits_per_element as usize).div_ceil(8);
        for pattern in [0x00u8, 0x3c, 0x5a, 0x7f, 0xa5, 0xff] {
            let bytes = vec![pattern; n];
            let Ok(t) = decode(f, &bytes) else { continue };
            let Ok(enc) = encode(f, t) else { continue };
            let again = decode(f, &enc).unwrap();
            let ok = match (t, again) {
                (Texel::Float(a), Texel::Float(b)) => {
                    a.iter().zip(b).all(|(x, y)| same_f32(*x, y)) || close(a, b)
                }
                (a, b) => a == b,
            };
            assert!(ok, "{name} pattern {pattern:#x}: {t:?} vs {again:?}");
        }
    }
}

proptest! {
    #[test]
    fn decode_never_panics(code in 0u32..512, bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        let f = SF(code);
        let _ = decode(f, &bytes);
        let _ = layout(f);
        let _ = decode_palette_index(f, &bytes);
        let _ = decode_passthru(f, &bytes);
        let _ = decode_ycrcb(f, &bytes, code & 1 == 1);
        let _ = decode_sub_byte(f, bytes.first().copied().unwrap_or(0), code % 9);
        let _ = decode_palette_index_sub_byte(f, bytes.first().copied().unwrap_or(0), code % 5);
        let _ = caps(f);
        if let Ok(l) = layout(f) {
            let n = (l.bits_per_element as usize).div_ceil(8);
            if l.block_width == 1
                && bytes.len() >= n
                && let Ok(t) = decode(f, &bytes[..n])
            {
                let _ = encode(f, t);
            }
        }
    }

    #[test]
    fn encode_never_panics(code in 0u32..512, c in proptest::array::uniform4(any::<f32>()), u in proptest::array::uniform4(any::<u32>())) {
        let f = SF(code);
        let _ = encode(f, Texel::Float(c));
        let _ = encode(f, Texel::Uint(u));
        let _ = encode(f, Texel::Sint(u.map(|v| v as i32)));
        let _ = encode_ycrcb(f, c, c);
    }
}

/// The numeric class, from the seed's format names (seed 000 §2.12.2.1.1): the channel
/// types each name spells.
#[test]
fn numeric_class_follows_the_format_names() {
    use gtsim_mem::format::texel::{NumericClass as C, numeric_class};
    for (f, want) in [
        (SF::R8G8B8A8_UNORM, C::Unorm),
        (SF::R8G8B8A8_UNORM_SRGB, C::Unorm),
        (SF::B5G6R5_UNORM, C::Unorm),
        (SF::R8G8_SNORM, C::Snorm),
        (SF::R32_FLOAT, C::Float),
        (SF::R11G11B10_FLOAT, C::Float),
        (SF::R8G8B8A8_USCALED, C::Float),
        (SF::R16G16_UINT, C::Uint),
        (SF::R8_SINT, C::Sint),
        (SF::BC1_UNORM, C::Unorm),
        (SF::BC5_SNORM, C::Snorm),
    ] {
        assert_eq!(numeric_class(f), Ok(want), "{}", f.name().unwrap());
    }
}

/// Every format an all-zero texel decodes for agrees with its class: integer formats
/// decode to integers, the others to floats (seed 000 §2.13.2.1).
#[test]
fn numeric_class_agrees_with_decoding() {
    use gtsim_mem::format::texel::{decode, layout, numeric_class};
    let mut checked = 0;
    for code in 0..512u32 {
        let f = SF(code);
        let (Ok(class), Ok(l)) = (numeric_class(f), layout(f)) else {
            continue;
        };
        let Ok(t) = decode(f, &vec![0u8; (l.bits_per_element / 8) as usize]) else {
            continue;
        };
        assert_eq!(
            class.is_integer(),
            !matches!(t, Texel::Float(_)),
            "{}",
            f.name().unwrap()
        );
        checked += 1;
    }
    assert!(checked > 150, "only {checked} formats decode");
}

/// `decode_run` gives, element by element, what `decode` gives each element (its fast
/// paths included: four UNORM8 bytes, whole-byte UINT), for every format with a texel
/// layout, over a run of 16 elements of varied bytes.
#[test]
fn decode_run_is_decode_element_by_element() {
    use gtsim_mem::format::texel::decode_run;
    let mut checked = 0;
    for code in 0..512u32 {
        let f = SF(code);
        let Ok(l) = layout(f) else { continue };
        let bpe = l.bits_per_element.div_ceil(8) as usize;
        if bpe == 0 || bpe > 16 {
            continue;
        }
        let bytes: Vec<u8> = (0..16 * bpe)
            .map(|i| (i * 37 + code as usize * 11) as u8)
            .collect();
        let Ok(expected) = bytes
            .chunks_exact(bpe)
            .map(|b| decode(f, b))
            .collect::<Result<Vec<_>, _>>()
        else {
            continue;
        };
        let mut got = vec![Texel::Uint([9; 4]); 16];
        decode_run(f, &bytes, bpe, &mut got).unwrap();
        // Bit patterns compared, so that NaNs compare too.
        let bits = |t: &Texel| match *t {
            Texel::Float(v) => v.map(f32::to_bits),
            Texel::Uint(v) => v,
            Texel::Sint(v) => v.map(|x| x as u32),
        };
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(
                (std::mem::discriminant(g), bits(g)),
                (std::mem::discriminant(e), bits(e)),
                "{:?} element {i}",
                f.name()
            );
        }
        checked += 1;
    }
    assert!(checked > 100, "only {checked} formats decoded");
}

/// `caps_on` reads Mesa isl_format.c's rows at another generation: ETC2/EAC exist from
/// Gen8 (sampled and filtered, 80/80) and not on Ivy Bridge; R32G32B32X32_FLOAT renders
/// and blends from Gen11 (110/110), not on Gen7.
#[test]
fn caps_on_a_later_generation() {
    use gtsim_mem::format::caps::caps_on;
    assert_eq!(caps(SF::ETC2_RGB8), None);
    assert_eq!(caps_on(SF::ETC2_EAC_RGBA8, 75), None);
    let etc = caps_on(SF::ETC2_EAC_RGBA8, 110).unwrap();
    assert!(etc.sampling && etc.filtering && !etc.render_target && !etc.vertex_fetch);
    let x32 = SF::R32G32B32X32_FLOAT;
    assert!(!caps(x32).unwrap().render_target);
    let on11 = caps_on(x32, 110).unwrap();
    assert!(on11.render_target && on11.alpha_blend && on11.sampling);
}
