//! Tests for the block-compressed texture decoders (`gtsim_mem::format::bc`).
//!
//! Two kinds of independent expectation:
//!
//! * hand-built blocks whose texels are derived by hand from the specs (the derivation is
//!   written next to each block), and
//! * vectors produced offline by Pillow's BCn decoder (`tests/vectors/bc/`, see the
//!   README there), compared exactly except where Pillow's documented rounding differs
//!   from this model's (then within 1 on interpolated values only).
//!
//! Plus property tests: no input bytes of any length make a decoder panic.

use gtsim_mem::format::bc::{BcError, BlockFormat, decode_block, decode_block_unorm8};
use gtsim_spec::shared::SurfaceFormat;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("test hex"))
        .collect()
}

fn unorm8(f: BlockFormat, block: &[u8]) -> Vec<[u8; 4]> {
    decode_block_unorm8(f, block).expect("decodes")
}

fn float(f: BlockFormat, block: &[u8]) -> Vec<[f32; 4]> {
    decode_block(f, block).expect("decodes")
}

/// Little-endian 2-bit index of texel `i` in a 32-bit index word at `block[off..off+4]`.
fn idx2(block: &[u8], off: usize, i: usize) -> u32 {
    let w = u32::from_le_bytes([block[off], block[off + 1], block[off + 2], block[off + 3]]);
    (w >> (2 * i)) & 3
}

/// 3-bit index of texel `i` in an RGTC block starting at `block[off]`.
fn idx3(block: &[u8], off: usize, i: usize) -> u32 {
    let mut v = 0u64;
    for k in (0..6).rev() {
        v = (v << 8) | u64::from(block[off + 2 + k]);
    }
    ((v >> (3 * i)) & 7) as u32
}

fn vectors(name: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    let path = format!("{}/tests/vectors/bc/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("vector file");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split_whitespace();
            (
                hex(it.next().expect("block")),
                hex(it.next().expect("texels")),
            )
        })
        .collect()
}

fn close(a: u8, b: u8, tol: u8) -> bool {
    a.abs_diff(b) <= tol
}

// ---------------------------------------------------------------------------------------
// Pillow oracle vectors
// ---------------------------------------------------------------------------------------

/// Whether the BC1-style colour index of texel `i` is an interpolated palette entry.
fn bc1_interpolated(block: &[u8], off: usize, i: usize, four: bool) -> bool {
    let k = idx2(block, off, i);
    if four { k >= 2 } else { k == 2 }
}

/// Whether RGTC index of texel `i` is interpolated (not an endpoint nor a constant).
fn rgtc_interpolated(block: &[u8], off: usize, i: usize) -> bool {
    let k = idx3(block, off, i);
    if block[off] > block[off + 1] {
        k >= 2
    } else {
        (2..=5).contains(&k)
    }
}

fn check_rgba(name: &str, f: BlockFormat, color_off: usize, four_always: bool, alpha_rgtc: bool) {
    let v = vectors(name);
    assert!(v.len() >= 150, "{name}: {} vectors", v.len());
    for (block, exp) in &v {
        let got = unorm8(f, block);
        let c0 = u16::from_le_bytes([block[color_off], block[color_off + 1]]);
        let c1 = u16::from_le_bytes([block[color_off + 2], block[color_off + 3]]);
        let four = four_always || c0 > c1;
        for (i, t) in got.iter().enumerate() {
            let e = &exp[4 * i..4 * i + 4];
            let ctol = u8::from(bc1_interpolated(block, color_off + 4, i, four));
            let atol = u8::from(alpha_rgtc && rgtc_interpolated(block, 0, i));
            let ok = (0..3).all(|c| close(t[c], e[c], ctol)) && close(t[3], e[3], atol);
            assert!(
                ok,
                "{name} block {} texel {i}: got {t:?}, pillow {e:?}",
                hex_of(block)
            );
        }
    }
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn pillow_bc1() {
    check_rgba("bc1", BlockFormat::Bc1, 0, false, false);
}

#[test]
fn pillow_bc2() {
    check_rgba("bc2", BlockFormat::Bc2, 8, true, false);
}

#[test]
fn pillow_bc3() {
    check_rgba("bc3", BlockFormat::Bc3, 8, true, true);
}

#[test]
fn pillow_bc4() {
    for (block, exp) in vectors("bc4") {
        let got = unorm8(BlockFormat::Bc4Unorm, &block);
        for (i, t) in got.iter().enumerate() {
            let tol = u8::from(rgtc_interpolated(&block, 0, i));
            assert!(
                close(t[0], exp[i], tol),
                "bc4 {} texel {i}: {t:?} vs {}",
                hex_of(&block),
                exp[i]
            );
            assert_eq!([t[1], t[2], t[3]], [0, 0, 255]);
        }
    }
}

#[test]
fn pillow_bc5() {
    for (block, exp) in vectors("bc5") {
        let got = unorm8(BlockFormat::Bc5Unorm, &block);
        for (i, t) in got.iter().enumerate() {
            let rt = u8::from(rgtc_interpolated(&block, 0, i));
            let gt = u8::from(rgtc_interpolated(&block, 8, i));
            let e = &exp[3 * i..3 * i + 3];
            assert!(
                close(t[0], e[0], rt) && close(t[1], e[1], gt) && t[2] == 0 && t[3] == 255,
                "bc5 {} texel {i}: {t:?} vs {e:?}",
                hex_of(&block)
            );
        }
    }
}

#[test]
fn pillow_bc7() {
    let v = vectors("bc7");
    assert!(v.len() > 500);
    // The reserved all-zero block is checked by hand below: Pillow returns opaque black
    // there, the D3D11 spec (and this model) transparent black.
    for (block, exp) in v.into_iter().filter(|(b, _)| b[0] != 0) {
        let got = unorm8(BlockFormat::Bc7Unorm, &block);
        let got: Vec<u8> = got.iter().flatten().copied().collect();
        assert_eq!(got, exp, "bc7 block {}", hex_of(&block));
    }
}

/// Pillow gives BC6H as `clamp(v, 0, 1) * 255` (truncating, and its interpolation omits
/// the `+ 32` rounding term), hence the tolerance of 1. For SF16, negative values are not
/// compared (Pillow 13's 8-bit conversion of negatives is not meaningful), and only the
/// untransformed modes 10 (0x1e) and 11 (0x03) are compared: Pillow does not sign-extend
/// wrapped delta endpoints, which the D3D11 spec requires (see `bc6h_signed_wrap`).
fn check_bc6h(name: &str, f: BlockFormat) {
    let v = vectors(name);
    assert_eq!(v.len(), 14 * 16, "{name}: 16 blocks per mode");
    let signed = f == BlockFormat::Bc6hSf16;
    let untransformed = |b: &[u8]| matches!(b[0] & 0x1f, 0x1e | 0x03);
    for (block, exp) in v.into_iter().filter(|(b, _)| !signed || untransformed(b)) {
        let got = float(f, &block);
        for (i, t) in got.iter().enumerate() {
            for c in (0..3).filter(|&c| t[c].is_sign_positive()) {
                let g = (t[c].clamp(0.0, 1.0) * 255.0).round() as u8;
                assert!(
                    close(g, exp[3 * i + c], 1),
                    "bc6h {} texel {i} ch {c}: {} vs {}",
                    hex_of(&block),
                    t[c],
                    exp[3 * i + c]
                );
            }
        }
    }
}

#[test]
fn pillow_bc6h_uf16() {
    check_bc6h("bc6h_uf16", BlockFormat::Bc6hUf16);
}

#[test]
fn pillow_bc6h_sf16() {
    check_bc6h("bc6h_sf16", BlockFormat::Bc6hSf16);
}

#[test]
fn pillow_bc5_snorm() {
    // Pillow's BC5S output is the signed byte value + 128 (so -1.0 from the 6-value mode
    // comes out as -128 + 128 = 0, where the model's -1.0 is -127/127).
    for (block, exp) in vectors("bc5s") {
        let got = float(BlockFormat::Bc5Snorm, &block);
        for (i, t) in got.iter().enumerate() {
            for (c, off) in [(0, 0), (1, 8)] {
                let pillow = i32::from(exp[3 * i + c]) - 128;
                let model = t[c] * 127.0;
                let raw_endpoint = match idx3(&block, off, i) {
                    0 => Some(block[off] as i8),
                    1 => Some(block[off + 1] as i8),
                    _ => None,
                };
                let ok = match raw_endpoint {
                    Some(-128) => model == -127.0 && pillow == -128,
                    Some(r) => model == f32::from(r) && pillow == i32::from(r),
                    // Pillow interpolates from -128 where the model uses -127.
                    None if block[off] == 0x80 || block[off + 1] == 0x80 => {
                        (model - pillow as f32).abs() <= 2.0
                    }
                    None => (model - pillow as f32).abs() <= 1.0,
                };
                assert!(
                    ok,
                    "bc5s {} texel {i} ch {c}: {model} vs {pillow}",
                    hex_of(&block)
                );
            }
            assert_eq!([t[2], t[3]], [0.0, 1.0]);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Hand-built blocks (expected values derived by hand from the specs)
// ---------------------------------------------------------------------------------------

const BC1_4COLOR: &str = "00f81f00e4e4e4e4";

/// BC1, 4-colour mode (Khronos DFD S3TC): color0 = 0xf800 (R=31 → 255), color1 = 0x001f
/// (B=31 → 255), color0 > color1. Index bytes 0xe4 = 0b11_10_01_00: texel i uses i % 4.
/// c2 = (2·c0 + c1)/3 rounded: R (510+0+1)/3 = 170, B (0+255+1)/3 = 85;
/// c3 = (c0 + 2·c1)/3: R (255+1)/3 = 85, B (510+1)/3 = 170.
#[test]
fn bc1_four_color() {
    let b = hex(BC1_4COLOR);
    let row = [
        [255, 0, 0, 255],
        [0, 0, 255, 255],
        [170, 0, 85, 255],
        [85, 0, 170, 255],
    ];
    let exp: Vec<[u8; 4]> = (0..4).flat_map(|_| row).collect();
    assert_eq!(unorm8(BlockFormat::Bc1, &b), exp);
    assert_eq!(
        unorm8(BlockFormat::Bc1Srgb, &b),
        exp,
        "sRGB decodes identically"
    );
    assert_eq!(unorm8(BlockFormat::Dxt1Rgb, &b), exp);
    let f = float(BlockFormat::Bc1, &b);
    assert_eq!(f[2], [170.0 / 255.0, 0.0, 85.0 / 255.0, 1.0]);
}

/// BC1 rounding choice: color0 = 0x0020 (G6 = 1 → 0b00000100 = 4), color1 = 0.
/// c2.G = (2·4 + 0)/3 = 2.67 → 3 (truncation would give 2); c3.G = 4/3 = 1.33 → 1.
#[test]
fn bc1_thirds_round_to_nearest() {
    let b = hex("20000000e4e4e4e4");
    let t = unorm8(BlockFormat::Bc1, &b);
    assert_eq!(
        &t[..4],
        &[
            [0, 4, 0, 255],
            [0, 0, 0, 255],
            [0, 3, 0, 255],
            [0, 1, 0, 255]
        ]
    );
}

/// BC1, 3-colour mode: color0 = 0x001f (blue) <= color1 = 0xf800 (red).
/// c2 = (c0 + c1)/2 rounded half up: (0+255+1)/2 = 128 → (128, 0, 128);
/// c3 = transparent black (0,0,0,0) for BC1, opaque black for DXT1_RGB (alpha forced 1).
#[test]
fn bc1_three_color_and_dxt1_rgb() {
    let b = hex("1f0000f8e4e4e4e4");
    let t = unorm8(BlockFormat::Bc1, &b);
    assert_eq!(
        &t[..4],
        &[
            [0, 0, 255, 255],
            [255, 0, 0, 255],
            [128, 0, 128, 255],
            [0, 0, 0, 0]
        ]
    );
    let d = unorm8(BlockFormat::Dxt1Rgb, &b);
    assert_eq!(d[3], [0, 0, 0, 255]);
    assert_eq!(unorm8(BlockFormat::Dxt1RgbSrgb, &b), d);
    assert!(d.iter().all(|t| t[3] == 255), "DXT1_RGB alpha is always 1");
    // Equal endpoints also select the 3-colour mode.
    let e = unorm8(BlockFormat::Bc1, &hex("1f001f00ffffffff"));
    assert!(e.iter().all(|t| *t == [0, 0, 0, 0]));
}

/// BC2: alpha nibbles 0x10,0x32,…,0xfe give texel i alpha i·17 (4-bit replication).
/// The colour block 0x001f/0xf800 has color0 < color1 but BC2 always uses 4 colours:
/// c2 = (2·blue + red)/3 = (85, 0, 170), c3 = (170, 0, 85).
#[test]
fn bc2_explicit_alpha() {
    let b = hex("1032547698badcfe 1f0000f8e4e4e4e4");
    let t = unorm8(BlockFormat::Bc2, &b);
    let pal = [[0, 0, 255], [255, 0, 0], [85, 0, 170], [170, 0, 85]];
    for (i, tx) in t.iter().enumerate() {
        let c = pal[i % 4];
        assert_eq!(*tx, [c[0], c[1], c[2], (i * 17) as u8], "texel {i}");
    }
    assert_eq!(unorm8(BlockFormat::Bc2Srgb, &b), t);
}

/// BC3 alpha, 8-value mode: a0 = 255 > a1 = 0, index i % 8 (bytes 88 c6 fa = 0o76543210).
/// a2..a7 = (k·255)/7 for k = 6..1, rounded: 218.57→219, 182.14→182, 145.71→146,
/// 109.29→109, 72.86→73, 36.43→36.
#[test]
fn bc3_alpha_eight_values() {
    let b = hex("ff0088c6fa88c6fa 00f81f00e4e4e4e4");
    let t = unorm8(BlockFormat::Bc3, &b);
    let alpha = [255, 0, 219, 182, 146, 109, 73, 36];
    let color = [[255, 0, 0], [0, 0, 255], [170, 0, 85], [85, 0, 170]];
    for (i, tx) in t.iter().enumerate() {
        let c = color[i % 4];
        assert_eq!(*tx, [c[0], c[1], c[2], alpha[i % 8]], "texel {i}");
    }
    assert_eq!(unorm8(BlockFormat::Bc3Srgb, &b), t);
}

/// BC3 alpha, 6-value mode: a0 = 3 <= a1 = 7. a2 = (4·3+7)/5 = 3.8→4, a3 = (9+14)/5 =
/// 4.6→5, a4 = (6+21)/5 = 5.4→5, a5 = (3+28)/5 = 6.2→6, a6 = 0, a7 = 255.
#[test]
fn bc3_alpha_six_values() {
    let b = hex("030788c6fa88c6fa 00f81f00e4e4e4e4");
    let t = unorm8(BlockFormat::Bc3, &b);
    let alpha = [3, 7, 4, 5, 5, 6, 0, 255];
    for (i, tx) in t.iter().enumerate() {
        assert_eq!(tx[3], alpha[i % 8], "texel {i}");
    }
}

/// BC4 UNORM, both modes, as bytes and as exact reals (RGTC interpolates in real
/// arithmetic): 8-value block 255/0 gives k/7; 6-value block 3/7 gives (4·3+7)/(5·255) …
#[test]
fn bc4_unorm() {
    let b8 = hex("ff0088c6fa88c6fa");
    let t = unorm8(BlockFormat::Bc4Unorm, &b8);
    assert_eq!(
        &t[..3],
        &[[255, 0, 0, 255], [0, 0, 0, 255], [219, 0, 0, 255]]
    );
    let f = float(BlockFormat::Bc4Unorm, &b8);
    let exp8 = [
        1.0,
        0.0,
        6.0 / 7.0,
        5.0 / 7.0,
        4.0 / 7.0,
        3.0 / 7.0,
        2.0 / 7.0,
        1.0 / 7.0,
    ];
    for (i, tx) in f.iter().enumerate() {
        assert_eq!(*tx, [exp8[i % 8] as f32, 0.0, 0.0, 1.0], "texel {i}");
    }
    let f6 = float(BlockFormat::Bc4Unorm, &hex("030788c6fa88c6fa"));
    let exp6 = [
        3.0,
        7.0,
        19.0 / 5.0,
        23.0 / 5.0,
        27.0 / 5.0,
        31.0 / 5.0,
        0.0,
        255.0,
    ];
    for (i, tx) in f6.iter().enumerate() {
        assert_eq!(tx[0], (exp6[i % 8] / 255.0f64) as f32, "texel {i}");
    }
}

/// BC4 SNORM. 8-value: r0 = 0x7f (127) > r1 = 0x81 (-127): values (k·127 + (7-k)·-127)
/// /(7·127), i.e. 1, -1, 5/7, 3/7, 1/7, -1/7, -3/7, -5/7. 6-value: r0 = 0x80 (-128,
/// treated as -127 → -1.0) is not > r1 = 0x40 (64): -1, 64/127, (4·-127+64)/(5·127),
/// (3·-127+2·64)/635, (2·-127+3·64)/635, (-127+4·64)/635, -1, 1.
#[test]
fn bc4_snorm() {
    let f = float(BlockFormat::Bc4Snorm, &hex("7f8188c6fa88c6fa"));
    let exp = [
        1.0,
        -1.0,
        5.0 / 7.0,
        3.0 / 7.0,
        1.0 / 7.0,
        -1.0 / 7.0,
        -3.0 / 7.0,
        -5.0 / 7.0,
    ];
    for (i, tx) in f.iter().enumerate() {
        assert_eq!(*tx, [exp[i % 8] as f32, 0.0, 0.0, 1.0], "texel {i}");
    }
    let f = float(BlockFormat::Bc4Snorm, &hex("804088c6fa88c6fa"));
    let exp: [f64; 8] = [
        -1.0,
        64.0 / 127.0,
        (4.0 * -127.0 + 64.0) / 635.0,
        (3.0 * -127.0 + 128.0) / 635.0,
        (2.0 * -127.0 + 192.0) / 635.0,
        (-127.0 + 256.0) / 635.0,
        -1.0,
        1.0,
    ];
    for (i, tx) in f.iter().enumerate() {
        assert_eq!(tx[0], exp[i % 8] as f32, "texel {i}");
    }
    assert_eq!(
        decode_block_unorm8(BlockFormat::Bc4Snorm, &[0; 8]),
        Err(BcError::NotUnorm8(BlockFormat::Bc4Snorm))
    );
}

/// BC5: red = the 8-value UNORM block above, green = the 6-value one (blue 0, alpha 1).
/// SNORM: red = 8-value SNORM block, green = 6-value SNORM block.
#[test]
fn bc5_unorm_and_snorm() {
    let u = unorm8(
        BlockFormat::Bc5Unorm,
        &hex("ff0088c6fa88c6fa 030788c6fa88c6fa"),
    );
    assert_eq!(
        &u[..4],
        &[
            [255, 3, 0, 255],
            [0, 7, 0, 255],
            [219, 4, 0, 255],
            [182, 5, 0, 255]
        ]
    );
    assert_eq!(u[6], [73, 0, 0, 255]);
    assert_eq!(u[7], [36, 255, 0, 255]);
    let s = float(
        BlockFormat::Bc5Snorm,
        &hex("7f8188c6fa88c6fa 804088c6fa88c6fa"),
    );
    assert_eq!(s[0], [1.0, -1.0, 0.0, 1.0]);
    assert_eq!(s[1], [-1.0, (64.0f64 / 127.0) as f32, 0.0, 1.0]);
    assert_eq!(s[7], [(-5.0f64 / 7.0) as f32, 1.0, 0.0, 1.0]);
}

/// Expected texels: `base[subset[i]]`, then `overrides` (texel, value).
fn grid(subset: &[usize; 16], base: &[[u8; 4]], overrides: &[(usize, [u8; 4])]) -> Vec<[u8; 4]> {
    let mut v: Vec<[u8; 4]> = subset.iter().map(|&s| base[s]).collect();
    for &(i, t) in overrides {
        v[i] = t;
    }
    v
}

/// Block hex from `tests/vectors/bc/hand_blocks.py` (a bit packer used as calculator).
fn bc7(hexs: &str) -> Vec<[u8; 4]> {
    unorm8(BlockFormat::Bc7Unorm, &hex(hexs))
}

const P3_0: [usize; 16] = [0, 0, 1, 1, 0, 0, 1, 1, 0, 2, 2, 1, 2, 2, 2, 2];
const P2_0: [usize; 16] = [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1];
const ONE: [usize; 16] = [0; 16];

/// BC7 mode 0 (D3D11 BC7 mode table: 3 subsets, 4 partition bits, RGB 4 bits + unique
/// p-bit, 3-bit indices). Partition 0 = {0,0,1,1, 0,0,1,1, 0,2,2,1, 2,2,2,2}, anchors
/// 0, 3 (A3_1[0]) and 15 (A3_2[0]).
/// Endpoints (4-bit, p): s0e0 (15,0,0) p1 → 5-bit (31,1,1) → (255,8,8); s0e1 0 p0 → 0;
/// s1e0 (0,15,0) p1 → (8,255,8); s2e0 (0,0,15) p0 → (0,0,30) → (0,0,247);
/// s2e1 (8,8,8) p1 → 17 → 140. Indices 0 except t1 = 4 (w 37), t15 = 3 (w 27):
/// t1 = ((64-37)·e0 + 37·e1 + 32) >> 6 = (6917>>6, 248>>6, 248>>6) = (108, 3, 3);
/// t15: R = (37·0 + 27·140 + 32)>>6 = 59, B = (37·247 + 27·140 + 32)>>6 = 202.
#[test]
fn bc7_mode0() {
    let exp = grid(
        &P3_0,
        &[[255, 8, 8, 255], [8, 255, 8, 255], [0, 0, 247, 255]],
        &[(1, [108, 3, 3, 255]), (15, [59, 59, 202, 255])],
    );
    assert_eq!(bc7("e1010010e0011000e0b18400000000c0"), exp);
}

/// BC7 mode 1 (2 subsets, RGB 6 bits + shared p-bit, 3-bit indices), partition 0
/// (columns 2–3 are subset 1, anchor 15). s0: e0 (63,0,0), e1 (0,63,0), p 0 → 7-bit
/// 126 → 253; s1: e0 (0,0,63), e1 (32,32,32), p 1 → (1,1,127) → (2,2,255), 65 → 131.
/// t1 idx 3 (w 27): R (37·253+32)>>6 = 146, G (27·253+32)>>6 = 107.
/// t15 idx 3: R = G = (37·2 + 27·131 + 32)>>6 = 56, B = (37·255 + 27·131 + 32)>>6 = 203.
#[test]
fn bc7_mode1() {
    let exp = grid(
        &P2_0,
        &[[253, 0, 0, 255], [2, 2, 255, 255]],
        &[(1, [146, 107, 0, 255]), (15, [56, 56, 203, 255])],
    );
    assert_eq!(bc7("023f0080c00f8000f0833200000000c0"), exp);
}

/// BC7 mode 2 (3 subsets, RGB 5 bits, no p-bits, 2-bit indices), partition 0. s0 e0 red
/// (255,0,0), s1 e0 green, s2 e0 blue, s2 e1 (16,16,16) → 132; other e1 black.
/// t1 idx 1 (w 21): (43·255+32)>>6 = 171; t3 (anchor, 1 bit) idx 1: G 171;
/// t15 (anchor) idx 1: R = G = (21·132+32)>>6 = 43, B = (43·255 + 21·132 + 32)>>6 = 215;
/// t14 idx 3 (w 64): e1 = (132,132,132).
#[test]
fn bc7_mode2() {
    let exp = grid(
        &P3_0,
        &[[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]],
        &[
            (1, [171, 0, 0, 255]),
            (3, [0, 171, 0, 255]),
            (14, [132, 132, 132, 255]),
            (15, [43, 43, 215, 255]),
        ],
    );
    assert_eq!(bc7("043e000040003e001000003e140100e0"), exp);
}

/// BC7 mode 3 (2 subsets, RGB 7 bits + unique p-bit, 2-bit indices), partition 13
/// (rows 2–3 subset 1; anchor A2[13] = 15). s0e0 (127,0,0) p1 → (255,1,1); s0e1 p0 → 0;
/// s1e0 (0,0,127) p0 → (0,0,254); s1e1 (64,64,64) p1 → 129.
/// t5 idx 2 (w 43): R (21·255+32)>>6 = 84, G = B = (21·1+32)>>6 = 0;
/// t15 idx 1 (w 21): R = G = (21·129+32)>>6 = 42, B = (43·254 + 21·129 + 32)>>6 = 213.
#[test]
fn bc7_mode3() {
    let rows = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1];
    let exp = grid(
        &rows,
        &[[255, 1, 1, 255], [0, 0, 254, 255]],
        &[(5, [84, 0, 0, 255]), (15, [42, 42, 213, 255])],
    );
    assert_eq!(bc7("d8fc01002000000002007f6002100080"), exp);
}

/// BC7 mode 4 (1 subset, rotation, index selection, RGB 5 bits, A 6 bits, 2- and 3-bit
/// indices). Rotation 1 (swap R and A after interpolation), index selection 1 (colour
/// uses the 3-bit indices, alpha the 2-bit ones). e0 = (255,0,0,A 255), e1 = (0,255,0,0).
/// t1: colour idx 5 (w 46): R (18·255+32)>>6 = 72, G (46·255+32)>>6 = 183; alpha idx 1
/// (w 21): (43·255+32)>>6 = 171; rotated → (171, 183, 0, 72).
/// t2: colour idx 7 → (0,255,0), alpha idx 0 → 255; rotated → (255, 255, 0, 0).
/// Others: (255,0,0,255) rotated → unchanged.
#[test]
fn bc7_mode4_rotation_and_index_selection() {
    let exp = grid(
        &ONE,
        &[[255, 0, 0, 255]],
        &[(1, [171, 183, 0, 72]), (2, [255, 255, 0, 0])],
    );
    assert_eq!(bc7("b01f800fc00f08000000e80100000000"), exp);
}

/// BC7 mode 5 (1 subset, rotation, RGB 7 bits, A 8 bits, 2-bit colour and alpha
/// indices), rotation 0. e0 = (127,0,64, A 255) → (255, 0, 129, 255);
/// e1 = (0,127,0, A 0) → (0,255,0,0).
/// t1: colour idx 2 (w 43): (84, 171, (21·129+32)>>6 = 42), alpha idx 1 (w 21): 171.
/// t2: colour idx 0, alpha idx 3 → (255, 0, 129, 0).
#[test]
fn bc7_mode5() {
    let exp = grid(
        &ONE,
        &[[255, 0, 129, 255]],
        &[(1, [84, 171, 42, 171]), (2, [255, 0, 129, 0])],
    );
    assert_eq!(bc7("207f00e00f04fc031000000034000000"), exp);
}

/// BC7 mode 6 (1 subset, RGBA 7 bits + unique p-bit, 4-bit indices).
/// e0 = (127,0,0,127) p1 → (255,1,1,255); e1 = (0,0,127,0) p0 → (0,0,254,0).
/// t1 idx 8 (w 34): R (30·255+32)>>6 = 120, G (30+32)>>6 = 0,
/// B (30·1 + 34·254 + 32)>>6 = 135, A 120; t15 idx 15 → e1.
#[test]
fn bc7_mode6() {
    let exp = grid(
        &ONE,
        &[[255, 1, 1, 255]],
        &[(1, [120, 0, 135, 120]), (15, [0, 0, 254, 0])],
    );
    assert_eq!(bc7("c03f000000fcff8080000000000000f0"), exp);
}

/// BC7 mode 7 (2 subsets, RGBA 5 bits + unique p-bit, 2-bit indices), partition 0.
/// s0e0 (31,0,0,31) p1 → 6-bit (63,1,1,63) → (255,4,4,255); s0e1 p0 → 0;
/// s1e0 (0,0,31,16) p0 → (0,0,62,32) → (0,0,251,130); s1e1 (0,31,0,31) p1 → (4,255,4,255).
/// t1 idx 1 (w 21): (43·255+32)>>6 = 171, (43·4+32)>>6 = 3 → (171,3,3,171).
/// t15 idx 1: R (21·4+32)>>6 = 1, G (21·255+32)>>6 = 84, B (43·251 + 21·4 + 32)>>6 = 170,
/// A (43·130 + 21·255 + 32)>>6 = 171.
#[test]
fn bc7_mode7() {
    let exp = grid(
        &P2_0,
        &[[255, 4, 4, 255], [0, 0, 251, 130]],
        &[(1, [171, 3, 3, 171]), (15, [1, 84, 170, 171])],
    );
    assert_eq!(bc7("80c0070000003e001f7c007f0a000080"), exp);
}

/// D3D11 BC7: a block with no mode bit in byte 0 is reserved and decodes to (0,0,0,0).
/// (Pillow returns opaque black here; the spec, and this model, transparent black.)
#[test]
fn bc7_reserved_mode() {
    let mut b = [0xffu8; 16];
    b[0] = 0;
    assert_eq!(unorm8(BlockFormat::Bc7Unorm, &b), vec![[0, 0, 0, 0]; 16]);
    assert_eq!(unorm8(BlockFormat::Bc7Srgb, &b), vec![[0, 0, 0, 0]; 16]);
    assert_eq!(float(BlockFormat::Bc7Unorm, &b), vec![[0.0; 4]; 16]);
}

fn half(bits: u16) -> f32 {
    half::f16::from_bits(bits).to_f32()
}

/// BC6H mode 11 (0x03; 1 region, 10-bit endpoints, not transformed, 4-bit indices).
/// e0 = (0, 512, 1023), e1 = (1023, 0, 0). unquantize (10 bits, unsigned):
/// 0 → 0, 1023 → 0xffff, 512 → ((512<<16) + 0x8000) >> 10 = 32800.
/// finish_unquantize = (c·31) >> 6: 32800 → 15887 = 0x3e0f (1.5146484375),
/// 0xffff → 0x7bff (65504).
/// t0 idx 0 → (0, 0x3e0f, 0x7bff); t1 idx 15 (w 64) → (0x7bff, 0, 0);
/// t2 idx 7 (w 30): r (65535·30 + 32)>>6 = 30720 → 14880 = 0x3a20 (0.765625),
/// g (32800·34 + 32)>>6 = 17425 → 8440 = 0x20f8, b (65535·34+32)>>6 = 34815 → 16863 =
/// 0x41df (2.935546875).
#[test]
fn bc6h_mode11_unsigned() {
    let t = float(
        BlockFormat::Bc6hUf16,
        &hex("030000ffff1f0000f007000000000000"),
    );
    assert_eq!(t[0], [0.0, half(0x3e0f), 65504.0, 1.0]);
    assert_eq!(t[0][1], 1.0 + 527.0 / 1024.0); // 0x3e0f = 1.5146484375
    assert_eq!(t[1], [65504.0, 0.0, 0.0, 1.0]);
    assert_eq!(t[2], [half(0x3a20), half(0x20f8), half(0x41df), 1.0]);
    assert_eq!(t[2][0], 0.765625);
    assert_eq!(t[2][2], 2.0 * (1.0 + 479.0 / 1024.0)); // 0x41df = 2.935546875
    assert!(t[3..].iter().all(|x| *x == t[0]));
    assert_eq!(
        decode_block_unorm8(BlockFormat::Bc6hUf16, &[0; 16]),
        Err(BcError::NotUnorm8(BlockFormat::Bc6hUf16))
    );
}

/// BC6H mode 1 (0x00; 2 regions, 10-bit endpoint, 5-bit deltas, transformed).
/// Fields in D3D order: m[1:0]=00, g2[4], b2[4], b3[4], r0=g0=b0=100, r1=+5, g3[4],
/// g2[3:0], g1, b3[0], g3[3:0], b1, b3[1], b2[3:0], r2 = 0b11101 (-3), b3[2], r3, b3[3];
/// then partition 0 (columns 2–3 region 1, anchor 15).
/// Endpoints: region 0 (100,100,100) and (105,100,100); region 1 (97,100,100) and
/// (100,100,100). unquantize 10 bits: x·64 + 32 → 6432, 6752, 6240.
/// finish: 6432·31>>6 = 3115 = 0x0c2b, 6752 → 0x0cc6, 6240 → 3022 = 0x0bce.
/// t0 idx 0 → all 0x0c2b; t1 idx 7 → (0x0cc6, 0x0c2b, 0x0c2b); t2 (region 1) idx 0 →
/// (0x0bce, 0x0c2b, 0x0c2b); t15 (anchor, 2 bits) idx 3 (w 27):
/// r (6240·37 + 6432·27 + 32)>>6 = 6321 → 3061 = 0x0bf5.
#[test]
fn bc6h_mode1_deltas() {
    let t = float(
        BlockFormat::Bc6hUf16,
        &hex("800c32c8280000003a007000000000c0"),
    );
    let g = half(0x0c2b);
    assert_eq!(t[0], [g, g, g, 1.0]);
    assert_eq!(t[1], [half(0x0cc6), g, g, 1.0]);
    assert_eq!(t[2], [half(0x0bce), g, g, 1.0]);
    assert_eq!(t[15], [half(0x0bf5), g, g, 1.0]);
}

/// BC6H signed, mode 11: r0 = 0x3ff sign-extends to -1; signed unquantize (10 bits):
/// ((1<<15) + 0x4000) >> 9 = 96 → -96; finish: -((96·31)>>5) = -93 → 0x8000 | 93.
#[test]
fn bc6h_signed_negative() {
    let t = float(
        BlockFormat::Bc6hSf16,
        &hex("e37f0000000000000000000000000000"),
    );
    assert_eq!(t[0], [half(0x8000 | 93), 0.0, 0.0, 1.0]);
    assert!(t[0][0] < 0.0);
}

/// BC6H signed, mode 12 (0x07; 11-bit endpoint, 9-bit delta): r0 = 1023, r1 = +1 →
/// (1023 + 1) & 0x7ff = 1024, which D3D11 sign-extends from 11 bits when signed: -1024.
/// unquantize: |1023| and |−1024| ≥ 2^10 − 1 → ±0x7fff; finish (0x7fff·31)>>5 = 0x7bff.
/// t0 idx 0 → +65504, t1 idx 15 → -65504; t2 idx 8 (w 34):
/// (32767·30 − 32767·34 + 32)>>6 = −131036>>6 = −2048 → −((2048·31)>>5) = −1984 →
/// 0x8000 | 0x07c0. Unsigned, the same bits give 1024 → 0x3e07 = 1.5068359375 at t1.
#[test]
fn bc6h_signed_wrap() {
    let b = hex("e77f000008000000f008000000000000");
    let t = float(BlockFormat::Bc6hSf16, &b);
    assert_eq!(t[0], [65504.0, 0.0, 0.0, 1.0]);
    assert_eq!(t[1], [-65504.0, 0.0, 0.0, 1.0]);
    assert_eq!(t[2], [half(0x87c0), 0.0, 0.0, 1.0]);
    // Unsigned: ((1024<<16) + 0x8000) >> 11 = 32784 → (32784·31)>>6 = 15879 = 0x3e07.
    let u = float(BlockFormat::Bc6hUf16, &b);
    assert_eq!(u[1][0], 1.0 + 519.0 / 1024.0); // 0x3e07 = 1.5068359375
}

/// BC6H reserved modes 0x13, 0x17, 0x1b, 0x1f decode to zero colour (alpha stays 1).
#[test]
fn bc6h_reserved_modes() {
    for m in [0x13u8, 0x17, 0x1b, 0x1f] {
        let mut b = [0xa5u8; 16];
        b[0] = (b[0] & !0x1f) | m;
        for f in [BlockFormat::Bc6hUf16, BlockFormat::Bc6hSf16] {
            assert_eq!(float(f, &b), vec![[0.0, 0.0, 0.0, 1.0]; 16], "mode {m:#x}");
        }
    }
}

fn fxt1(hexs: &str) -> Vec<[u8; 4]> {
    let t = unorm8(BlockFormat::Fxt1, &hex(hexs));
    assert_eq!(t.len(), 32);
    t
}

/// Expected 8x4 FXT1 texels: row 0 given, rows 1–3 = `rest`.
fn fxt1_rows(row0: [[u8; 4]; 8], rest: [[u8; 4]; 8]) -> Vec<[u8; 4]> {
    let mut v = row0.to_vec();
    for _ in 0..3 {
        v.extend_from_slice(&rest);
    }
    v
}

/// FXT1 CC_HI (bits 127:126 = 00): 32 3-bit indices, colour 0 at bit 96 (B5 G5 R5) =
/// (R31, G0, B16) → (255, 0, 132), colour 1 at bit 111 = G31 → (0, 255, 0).
/// Texel (x, y) in the left 4x4 half uses index 4y+x, in the right half 16 + 4y + x-4.
/// t0 = 7 → transparent black; t2 = 6 → colour 1; t3 = 3: LERP(6,3) =
/// ((6-3)·a + 3·b + 3)/6 → R 768/6 = 128, G 128, B (396+3)/6 = 66;
/// t16 (x 4, y 0) = 1: R (5·255+3)/6 = 213, G (255+3)/6 = 43, B (660+3)/6 = 110.
#[test]
fn fxt1_cc_hi() {
    let c0 = [255, 0, 132, 255];
    let exp = fxt1_rows(
        [
            [0; 4],
            c0,
            [0, 255, 0, 255],
            [128, 128, 66, 255],
            [213, 43, 110, 255],
            c0,
            c0,
            c0,
        ],
        [c0; 8],
    );
    assert_eq!(fxt1("870700000000010000000000107cf001"), exp);
}

/// FXT1 CC_CHROMA (mode 010): four B5G5R5 colours at bits 64, 79, 94, 109 = red, green,
/// blue, (R1, G2, B3) → (8, 16, 24) by 5-bit replication; every half's index is t % 4.
#[test]
fn fxt1_cc_chroma() {
    let row = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [8, 16, 24, 255],
    ];
    let row8 = [
        row[0], row[1], row[2], row[3], row[0], row[1], row[2], row[3],
    ];
    assert_eq!(
        fxt1("e4e4e4e4e4e4e4e4007cf0c107608840"),
        fxt1_rows(row8, row8)
    );
}

/// FXT1 CC_MIXED (bit 127 = 1), alpha bit 124 = 0 (4 colours, LERP n = 3).
/// Left half: c0 = (R0, G10, B0), c1 = (R31, G20, B0), green LSB bit 125 = 1. t0's index
/// is 2 (MSB 1), so c0's green LSB = 1 XOR 1 = 0: G6 = 20 → 81; c1 G6 = 41 → 166.
/// t0 idx 2: R (0 + 2·255 + 1)/3 = 170, G (81 + 2·166 + 1)/3 = 138; t2 idx 3 → c1.
/// Right half: c2 = blue, green LSB bit 126 = 0, all indices 0 → (0, 0, 255).
#[test]
fn fxt1_cc_mixed() {
    let g = [0, 81, 0, 255];
    let b = [0, 0, 255, 255];
    let exp = fxt1_rows(
        [[170, 138, 0, 255], g, [255, 166, 0, 255], g, b, b, b, b],
        [g, g, g, g, b, b, b, b],
    );
    assert_eq!(fxt1("3200000000000000400140ff070000a0"), exp);
}

/// FXT1 CC_MIXED with alpha bit 124 = 1: 3 colours + transparent black. Left c0 = red
/// (5-bit green), c1 = G31 with LSB bit 125 = 1 → 63 → 255. idx 1 = (c0 + c1)/2 rounded
/// half up: (128, 128, 0); idx 3 → (0,0,0,0). Right half colours 0 → opaque black.
#[test]
fn fxt1_cc_mixed_alpha() {
    let r = [255, 0, 0, 255];
    let k = [0, 0, 0, 255];
    let exp = fxt1_rows(
        [r, [128, 128, 0, 255], [0, 255, 0, 255], [0; 4], k, k, k, k],
        [r, r, r, r, k, k, k, k],
    );
    assert_eq!(fxt1("e400000000000000007cf001000000b0"), exp);
}

/// FXT1 CC_ALPHA (mode 011), lerp bit 124 = 0: colours red, green, blue at bits 64, 79,
/// 94 with 5-bit alphas 31, 16, 0 at 109, 114, 119 (→ 255, 132, 0); index 3 is
/// transparent black. Index = t % 4 in both halves.
#[test]
fn fxt1_cc_alpha() {
    let row = [[255, 0, 0, 255], [0, 255, 0, 132], [0, 0, 255, 0], [0; 4]];
    let row8 = [
        row[0], row[1], row[2], row[3], row[0], row[1], row[2], row[3],
    ];
    assert_eq!(
        fxt1("e4e4e4e4e4e4e4e4007cf0c107e04360"),
        fxt1_rows(row8, row8)
    );
}

/// FXT1 CC_ALPHA, lerp bit 124 = 1: left half interpolates c0 → c1, right half c2 → c1
/// (LERP n = 3, alpha too). Left idx 1: (2·255+1)/3 = 170, (255+1)/3 = 85,
/// A (2·255 + 132 + 1)/3 = 214; idx 2: (85, 170, 0, (255 + 264 + 1)/3 = 173).
/// Right idx 1: (0, 85, 170, (132+1)/3 = 44); idx 2: (0, 170, 85, (264+1)/3 = 88).
#[test]
fn fxt1_cc_alpha_lerp() {
    let c1 = [0, 255, 0, 132];
    let row = [
        [255, 0, 0, 255],
        [170, 85, 0, 214],
        [85, 170, 0, 173],
        c1,
        [0, 0, 255, 0],
        [0, 85, 170, 44],
        [0, 170, 85, 88],
        c1,
    ];
    assert_eq!(
        fxt1("e4e4e4e4e4e4e4e4007cf0c107e04370"),
        fxt1_rows(row, row)
    );
}

// ---------------------------------------------------------------------------------------
// Format table, lengths, robustness
// ---------------------------------------------------------------------------------------

const ALL: [BlockFormat; 17] = [
    BlockFormat::Bc1,
    BlockFormat::Bc1Srgb,
    BlockFormat::Dxt1Rgb,
    BlockFormat::Dxt1RgbSrgb,
    BlockFormat::Bc2,
    BlockFormat::Bc2Srgb,
    BlockFormat::Bc3,
    BlockFormat::Bc3Srgb,
    BlockFormat::Bc4Unorm,
    BlockFormat::Bc4Snorm,
    BlockFormat::Bc5Unorm,
    BlockFormat::Bc5Snorm,
    BlockFormat::Bc6hUf16,
    BlockFormat::Bc6hSf16,
    BlockFormat::Bc7Unorm,
    BlockFormat::Bc7Srgb,
    BlockFormat::Fxt1,
];

#[test]
fn surface_format_mapping() {
    let pairs = [
        (SurfaceFormat::BC1_UNORM, BlockFormat::Bc1),
        (SurfaceFormat::BC1_UNORM_SRGB, BlockFormat::Bc1Srgb),
        (SurfaceFormat::DXT1_RGB, BlockFormat::Dxt1Rgb),
        (SurfaceFormat::DXT1_RGB_SRGB, BlockFormat::Dxt1RgbSrgb),
        (SurfaceFormat::BC2_UNORM, BlockFormat::Bc2),
        (SurfaceFormat::BC2_UNORM_SRGB, BlockFormat::Bc2Srgb),
        (SurfaceFormat::BC3_UNORM, BlockFormat::Bc3),
        (SurfaceFormat::BC3_UNORM_SRGB, BlockFormat::Bc3Srgb),
        (SurfaceFormat::BC4_UNORM, BlockFormat::Bc4Unorm),
        (SurfaceFormat::BC4_SNORM, BlockFormat::Bc4Snorm),
        (SurfaceFormat::BC5_UNORM, BlockFormat::Bc5Unorm),
        (SurfaceFormat::BC5_SNORM, BlockFormat::Bc5Snorm),
        (SurfaceFormat::BC6H_UF16, BlockFormat::Bc6hUf16),
        (SurfaceFormat::BC6H_SF16, BlockFormat::Bc6hSf16),
        (SurfaceFormat::BC7_UNORM, BlockFormat::Bc7Unorm),
        (SurfaceFormat::BC7_UNORM_SRGB, BlockFormat::Bc7Srgb),
        (SurfaceFormat::FXT1, BlockFormat::Fxt1),
    ];
    for (s, b) in pairs {
        assert_eq!(BlockFormat::from_surface_format(s), Some(b), "{s:?}");
    }
    assert_eq!(
        BlockFormat::from_surface_format(SurfaceFormat::R8G8B8A8_UNORM),
        None
    );
    assert_eq!(BlockFormat::from_surface_format(SurfaceFormat(0x1ff)), None);
}

#[test]
fn block_geometry() {
    for f in ALL {
        let (w, h) = f.block_size();
        let eight = matches!(
            f,
            BlockFormat::Bc1
                | BlockFormat::Bc1Srgb
                | BlockFormat::Dxt1Rgb
                | BlockFormat::Dxt1RgbSrgb
                | BlockFormat::Bc4Unorm
                | BlockFormat::Bc4Snorm
        );
        assert_eq!(f.block_bytes(), if eight { 8 } else { 16 }, "{f:?}");
        assert_eq!(
            (w, h),
            if f == BlockFormat::Fxt1 {
                (8, 4)
            } else {
                (4, 4)
            }
        );
        let out = decode_block(f, &vec![0x5a; f.block_bytes()]).expect("decodes");
        assert_eq!(out.len(), (w * h) as usize, "{f:?}");
    }
}

#[test]
fn wrong_length_is_an_error() {
    for f in ALL {
        let n = f.block_bytes();
        for len in [0, 1, n - 1, n + 1, 32] {
            let err = BcError::WrongLength {
                format: f,
                expected: n,
                got: len,
            };
            assert_eq!(
                decode_block(f, &vec![0; len]),
                Err(err.clone()),
                "{f:?} {len}"
            );
            assert_eq!(
                decode_block_unorm8(f, &vec![0; len]),
                Err(err),
                "{f:?} {len}"
            );
        }
    }
}

/// sRGB variants decode exactly like the linear ones (the sampler applies the curve).
#[test]
fn srgb_variants_decode_identically() {
    let pairs = [
        (BlockFormat::Bc1, BlockFormat::Bc1Srgb),
        (BlockFormat::Dxt1Rgb, BlockFormat::Dxt1RgbSrgb),
        (BlockFormat::Bc2, BlockFormat::Bc2Srgb),
        (BlockFormat::Bc3, BlockFormat::Bc3Srgb),
        (BlockFormat::Bc7Unorm, BlockFormat::Bc7Srgb),
    ];
    for (lin, srgb) in pairs {
        for (block, _) in vectors("bc7").iter().take(64) {
            let b = &block[..lin.block_bytes()];
            assert_eq!(decode_block(lin, b), decode_block(srgb, b));
        }
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// No bytes of any length make a decoder panic; right lengths always decode.
        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            for f in ALL {
                let ok = bytes.len() == f.block_bytes();
                let r = decode_block(f, &bytes);
                prop_assert_eq!(r.is_ok(), ok);
                if let Ok(t) = r {
                    prop_assert_eq!(t.len(), f.texels());
                }
                let _ = decode_block_unorm8(f, &bytes);
            }
        }

        /// Every right-length block decodes, with UNORM results in range.
        #[test]
        fn full_blocks_decode(block in proptest::array::uniform16(any::<u8>())) {
            for f in ALL {
                let t = decode_block(f, &block[..f.block_bytes()]).expect("right length");
                prop_assert_eq!(t.len(), f.texels());
                let signed = matches!(f, BlockFormat::Bc4Snorm | BlockFormat::Bc5Snorm);
                let hdr = matches!(f, BlockFormat::Bc6hUf16 | BlockFormat::Bc6hSf16);
                let low = if signed { -1.0 } else { 0.0 };
                for x in t.iter().flatten() {
                    prop_assert!(x.is_finite());
                    prop_assert!(hdr || (*x <= 1.0 && *x >= low));
                }
                if f == BlockFormat::Bc6hUf16 {
                    prop_assert!(t.iter().flatten().all(|x| *x >= 0.0));
                }
            }
        }
    }
}
