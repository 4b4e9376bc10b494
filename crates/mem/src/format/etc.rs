//! ETC1, ETC2 and EAC blocks: the 4x4 compressed formats Ice Lake's sampler reads (seed
//! 003 RENDER_SURFACE_STATE Surface Format: ETC1_RGB8 1A9h, ETC2_RGB8 1AAh, EAC_R11
//! 1ABh, EAC_RG11 1ACh, EAC_SIGNED_R11 1ADh, EAC_SIGNED_RG11 1AEh, ETC2_SRGB8 1AFh,
//! ETC2_RGB8_PTA 1C0h, ETC2_SRGB8_PTA 1C1h, ETC2_EAC_RGBA8 1C2h, ETC2_EAC_SRGB8_A8 1C3h).
//!
//! The seeds do not define the encodings; they are the Khronos ones (the OpenGL ES 3.0
//! specification, Annex C "Compressed Texture Image Formats", and the Khronos Data
//! Format Specification's ETC1/ETC2/EAC chapters), which fix every output bit:
//! * a 64-bit colour block is read big-endian; its 32 low bits hold each texel's 2-bit
//!   index (most significant bits in bits 31:16, least in 15:0), texel (x, y) at bit
//!   `4x + y` (columns first);
//! * **individual** and **differential** modes (ETC1): two base colours, one per 2x4 or
//!   4x2 half (the flip bit 32), each with a 3-bit table of intensity modifiers;
//! * ETC2 keeps a differential block whose red, green or blue sum leaves 0..31 for the
//!   **T**, **H** and **planar** modes: four paint colours from two 4-bit base colours
//!   and a distance, or a colour gradient from three 6/7/6-bit colours;
//! * **punch-through alpha** (the PTA formats): bit 33 is "opaque" instead of
//!   "differential"; without it, index 2 is transparent black and the small modifiers
//!   are 0 (the planar mode is always opaque);
//! * **EAC**: a base codeword, a multiplier and one of 16 modifier tables, 3-bit
//!   indices; 8-bit alpha `clamp(base + modifier * multiplier)`, 11-bit R
//!   `clamp(base * 8 + 4 + modifier * multiplier * 8)` (the modifier alone when the
//!   multiplier is 0), signed variants on -1023..1023.
//!
//! R11 and RG11 channels come back as floats, `value / 2047` (signed: `value / 1023`),
//! the specification's conversion; the hardware's internal width is not public.

/// The ETC1 intensity modifier tables (a, b): indices 0..3 give +a, +b, -a, -b.
const MODIFIERS: [[i32; 2]; 8] = [
    [2, 8],
    [5, 17],
    [9, 29],
    [13, 42],
    [18, 60],
    [24, 80],
    [33, 106],
    [47, 183],
];

/// The T and H modes' distances.
const DISTANCES: [i32; 8] = [3, 6, 11, 16, 23, 32, 41, 64];

/// The EAC modifier tables.
const EAC: [[i32; 8]; 16] = [
    [-3, -6, -9, -15, 2, 5, 8, 14],
    [-3, -7, -10, -13, 2, 6, 9, 12],
    [-2, -5, -8, -13, 1, 4, 7, 12],
    [-2, -4, -6, -13, 1, 3, 5, 12],
    [-3, -6, -8, -12, 2, 5, 7, 11],
    [-3, -7, -9, -11, 2, 6, 8, 10],
    [-4, -7, -8, -11, 3, 6, 7, 10],
    [-3, -5, -8, -11, 2, 4, 7, 10],
    [-2, -6, -8, -10, 1, 5, 7, 9],
    [-2, -5, -8, -10, 1, 4, 7, 9],
    [-2, -4, -8, -10, 1, 3, 7, 9],
    [-2, -5, -7, -10, 1, 4, 6, 9],
    [-3, -4, -7, -10, 2, 3, 6, 9],
    [-1, -2, -3, -10, 0, 1, 2, 9],
    [-4, -6, -8, -9, 3, 5, 7, 8],
    [-3, -5, -7, -9, 2, 4, 6, 8],
];

/// The 64-bit block, big-endian. `block` must be 8 bytes (the callers check).
fn word(block: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&block[..8]);
    u64::from_be_bytes(b)
}

/// Bits `hi..=lo` of `v`.
fn bits(v: u64, hi: u32, lo: u32) -> i32 {
    ((v >> lo) & ((1u64 << (hi - lo + 1)) - 1)) as i32
}

fn x4(c: i32) -> i32 {
    (c << 4) | c
}
fn x5(c: i32) -> i32 {
    (c << 3) | (c >> 2)
}
fn x6(c: i32) -> i32 {
    (c << 2) | (c >> 4)
}
fn x7(c: i32) -> i32 {
    (c << 1) | (c >> 6)
}
fn clamp8(v: i32) -> u8 {
    v.clamp(0, 255) as u8
}

/// Texel (x, y)'s 2-bit index: its most significant bit at bit 16 + 4x + y, its least
/// at bit 4x + y.
fn index(v: u64, x: usize, y: usize) -> usize {
    let i = 4 * x + y;
    (((v >> (16 + i)) & 1) << 1 | ((v >> i) & 1)) as usize
}

/// An ETC1/ETC2 RGB block (`punchthrough`: the ETC2 punch-through alpha format), as
/// RGBA8 texels in rows (texel (x, y) at `4y + x`); alpha 255 but for punch-through's
/// transparent texels, (0, 0, 0, 0).
pub fn etc2_rgb(block: &[u8], punchthrough: bool) -> [[u8; 4]; 16] {
    let v = word(block);
    // Bit 33: "diff" (ETC1/ETC2) or "opaque" (punch-through, whose blocks are always
    // differential).
    let bit33 = (v >> 33) & 1 == 1;
    let differential = punchthrough || bit33;
    let opaque = !punchthrough || bit33;
    if !differential {
        return individual(v);
    }
    let (r, dr) = (bits(v, 63, 59), sign3(bits(v, 58, 56)));
    let (g, dg) = (bits(v, 55, 51), sign3(bits(v, 50, 48)));
    let (b, db) = (bits(v, 47, 43), sign3(bits(v, 42, 40)));
    if !(0..32).contains(&(r + dr)) {
        paint(v, t_mode(v), opaque)
    } else if !(0..32).contains(&(g + dg)) {
        paint(v, h_mode(v), opaque)
    } else if !(0..32).contains(&(b + db)) {
        planar(v)
    } else {
        let base = [[x5(r), x5(g), x5(b)], [x5(r + dr), x5(g + dg), x5(b + db)]];
        halves(v, base, opaque)
    }
}

/// A 3-bit two's complement value.
fn sign3(v: i32) -> i32 {
    if v & 4 != 0 { v - 8 } else { v }
}

/// The individual mode: two 4-bit base colours.
fn individual(v: u64) -> [[u8; 4]; 16] {
    let base = [
        [
            x4(bits(v, 63, 60)),
            x4(bits(v, 55, 52)),
            x4(bits(v, 47, 44)),
        ],
        [
            x4(bits(v, 59, 56)),
            x4(bits(v, 51, 48)),
            x4(bits(v, 43, 40)),
        ],
    ];
    halves(v, base, true)
}

/// The two halves' texels (individual and differential modes): the half's base colour
/// plus its table's modifier, in each channel.
fn halves(v: u64, base: [[i32; 3]; 2], opaque: bool) -> [[u8; 4]; 16] {
    let tables = [bits(v, 39, 37) as usize, bits(v, 36, 34) as usize];
    let flip = (v >> 32) & 1 == 1;
    let mut out = [[0u8; 4]; 16];
    for y in 0..4 {
        for x in 0..4 {
            let half = usize::from(if flip { y >= 2 } else { x >= 2 });
            let [a, b] = MODIFIERS[tables[half]];
            let i = index(v, x, y);
            if !opaque && i == 2 {
                continue; // transparent black
            }
            // Without "opaque", the small modifiers are 0.
            let a = if opaque { a } else { 0 };
            let m = [a, b, -a, -b][i];
            let c = base[half];
            out[4 * y + x] = [clamp8(c[0] + m), clamp8(c[1] + m), clamp8(c[2] + m), 255];
        }
    }
    out
}

/// The T mode's paint colours: C1, C2 + d, C2, C2 - d.
fn t_mode(v: u64) -> [[i32; 3]; 4] {
    let c1 = [
        x4(bits(v, 60, 59) << 2 | bits(v, 57, 56)),
        x4(bits(v, 55, 52)),
        x4(bits(v, 51, 48)),
    ];
    let c2 = [
        x4(bits(v, 47, 44)),
        x4(bits(v, 43, 40)),
        x4(bits(v, 39, 36)),
    ];
    let d = DISTANCES[(bits(v, 35, 34) << 1 | bits(v, 32, 32)) as usize];
    [c1, c2.map(|c| c + d), c2, c2.map(|c| c - d)]
}

/// The H mode's paint colours: C1 + d, C1 - d, C2 + d, C2 - d, the distance's lowest bit
/// being whether C1 >= C2 (as 12-bit RGB444 values).
fn h_mode(v: u64) -> [[i32; 3]; 4] {
    let c1 = [
        bits(v, 62, 59),
        bits(v, 58, 56) << 1 | bits(v, 52, 52),
        bits(v, 51, 51) << 3 | bits(v, 49, 47),
    ];
    let c2 = [bits(v, 46, 43), bits(v, 42, 39), bits(v, 38, 35)];
    let packed = |c: [i32; 3]| c[0] << 8 | c[1] << 4 | c[2];
    let low = i32::from(packed(c1) >= packed(c2));
    let d = DISTANCES[(bits(v, 34, 34) << 2 | bits(v, 32, 32) << 1 | low) as usize];
    let (c1, c2) = (c1.map(x4), c2.map(x4));
    [
        c1.map(|c| c + d),
        c1.map(|c| c - d),
        c2.map(|c| c + d),
        c2.map(|c| c - d),
    ]
}

/// Texels from T or H paint colours by their index; without "opaque", index 2 is
/// transparent black.
fn paint(v: u64, colours: [[i32; 3]; 4], opaque: bool) -> [[u8; 4]; 16] {
    let mut out = [[0u8; 4]; 16];
    for y in 0..4 {
        for x in 0..4 {
            let i = index(v, x, y);
            if !opaque && i == 2 {
                continue;
            }
            let c = colours[i];
            out[4 * y + x] = [clamp8(c[0]), clamp8(c[1]), clamp8(c[2]), 255];
        }
    }
    out
}

/// The planar mode: origin O, horizontal H and vertical V colours, texel (x, y) =
/// (x (H - O) + y (V - O) + 4 O + 2) >> 2.
fn planar(v: u64) -> [[u8; 4]; 16] {
    let o = [
        x6(bits(v, 62, 57)),
        x7(bits(v, 56, 56) << 6 | bits(v, 54, 49)),
        x6(bits(v, 48, 48) << 5 | bits(v, 44, 43) << 3 | bits(v, 41, 39)),
    ];
    let h = [
        x6(bits(v, 38, 34) << 1 | bits(v, 32, 32)),
        x7(bits(v, 31, 25)),
        x6(bits(v, 24, 19)),
    ];
    let vv = [x6(bits(v, 18, 13)), x7(bits(v, 12, 6)), x6(bits(v, 5, 0))];
    let mut out = [[0u8; 4]; 16];
    for y in 0..4i32 {
        for x in 0..4i32 {
            let c = |k: usize| clamp8((x * (h[k] - o[k]) + y * (vv[k] - o[k]) + 4 * o[k] + 2) >> 2);
            out[(4 * y + x) as usize] = [c(0), c(1), c(2), 255];
        }
    }
    out
}

/// An EAC block's (base, multiplier, table) and texel (x, y)'s modifier.
fn eac_fields(block: &[u8]) -> (u64, i32, i32, &'static [i32; 8]) {
    let v = word(block);
    (
        v,
        bits(v, 63, 56),
        bits(v, 55, 52),
        &EAC[bits(v, 51, 48) as usize],
    )
}

/// Texel (x, y)'s 3-bit EAC index: bits 47 - 3i..45 - 3i with i = 4x + y.
fn eac_index(v: u64, x: usize, y: usize) -> usize {
    let i = 4 * x + y;
    ((v >> (45 - 3 * i)) & 7) as usize
}

/// An EAC 8-bit alpha block (ETC2_EAC_RGBA8's first half), in rows.
pub fn eac_alpha8(block: &[u8]) -> [u8; 16] {
    let (v, base, mult, table) = eac_fields(block);
    let mut out = [0u8; 16];
    for y in 0..4 {
        for x in 0..4 {
            out[4 * y + x] = clamp8(base + table[eac_index(v, x, y)] * mult);
        }
    }
    out
}

/// An EAC 11-bit block (one channel of R11/RG11), as floats in rows: unsigned
/// `value / 2047` on 0..1, signed `value / 1023` on -1..1.
pub fn eac_r11(block: &[u8], signed: bool) -> [f32; 16] {
    let (v, base, mult, table) = eac_fields(block);
    let mut out = [0f32; 16];
    for y in 0..4 {
        for x in 0..4 {
            let m = table[eac_index(v, x, y)];
            let m = if mult == 0 { m } else { m * mult * 8 };
            out[4 * y + x] = if signed {
                // The base codeword is a signed byte, -128 read as -127.
                let b = i32::from(base as u8 as i8).max(-127);
                (b * 8 + m).clamp(-1023, 1023) as f32 / 1023.0
            } else {
                (base * 8 + 4 + m).clamp(0, 2047) as f32 / 2047.0
            };
        }
    }
    out
}

#[cfg(test)]
#[allow(
    clippy::identity_op,
    reason = "the test blocks are spelled field by field, zero fields included"
)]
mod tests {
    use super::*;

    /// A block from its 64-bit value.
    fn block(v: u64) -> [u8; 8] {
        v.to_be_bytes()
    }

    /// Texel indices (x, y) → 2-bit index packed into the low 32 bits.
    fn indices(f: impl Fn(usize, usize) -> u64) -> u64 {
        let mut v = 0;
        for x in 0..4 {
            for y in 0..4 {
                let i = f(x, y);
                let at = 4 * x + y;
                v |= (i >> 1) << (16 + at) | (i & 1) << at;
            }
        }
        v
    }

    /// Individual mode, worked by hand: left half base (0x1, 0x2, 0x3) → (17, 34, 51)
    /// with table 0 (2, 8); right half base (0xf, 0xe, 0xd) → (255, 238, 221) with
    /// table 7 (47, 183); texel (x, y) takes index (x + y) % 4.
    #[test]
    fn individual_mode_worked_by_hand() {
        let v = 0x1u64 << 60
            | 0xf << 56
            | 0x2 << 52
            | 0xe << 48
            | 0x3 << 44
            | 0xd << 40
            | 0 << 37
            | 7 << 34
            | indices(|x, y| ((x + y) % 4) as u64);
        let t = etc2_rgb(&block(v), false);
        // (0, 0): left, index 0, +2.
        assert_eq!(t[0], [19, 36, 53, 255]);
        // (1, 0): left, index 1, +8.
        assert_eq!(t[1], [25, 42, 59, 255]);
        // (0, 2): left, index 2, -2.
        assert_eq!(t[8], [15, 32, 49, 255]);
        // (3, 0): right, index 3, -183.
        assert_eq!(t[3], [72, 55, 38, 255]);
        // (2, 0): right, index 2, -47.
        assert_eq!(t[2], [208, 191, 174, 255]);
        // (3, 1): right, index 0, +47, clamped.
        assert_eq!(t[7], [255, 255, 255, 255]);
    }

    /// Differential mode with the flip bit: top half base 5-bit (10, 20, 30) → (82, 165,
    /// 247), bottom half (10 - 1, 20 + 3, 30 - 4) → (74, 189, 214); table 2 (9, 29) on
    /// top, 4 (18, 60) below; every index 1 (+b).
    #[test]
    fn differential_mode_with_flip_worked_by_hand() {
        let v = 10u64 << 59
            | 0b111 << 56 // -1
            | 20 << 51
            | 0b011 << 48 // +3
            | 30 << 43
            | 0b100 << 40 // -4
            | 2 << 37
            | 4 << 34
            | 1 << 33
            | 1 << 32
            | indices(|_, _| 1);
        let t = etc2_rgb(&block(v), false);
        assert_eq!(t[0], [82 + 29, 165 + 29, 255, 255]);
        assert_eq!(t[4 * 3 + 2], [74 + 60, 189 + 60, 255, 255]);
        assert_eq!(t[4 * 2], [134, 249, 255, 255]);
    }

    /// T mode: red 5-bit 30 (bits 63:59 = 0b11110) plus dR 0b011 (+3) leaves 0..31.
    /// C1 = (bits 60:59 0b10 and 57:56 0b11 = 0b1011 → 187, 0x4 → 68, 0x8 → 136), C2 =
    /// (0x2 → 34, 0x6 → 102, 0xa → 170), distance index 0b101 → 32: paint colours C1,
    /// C2 + 32, C2, C2 - 32; texel (x, y) takes index x.
    #[test]
    fn t_mode_worked_by_hand() {
        let v = 0b11110u64 << 59
            | 0b011 << 56
            | 0x4 << 52
            | 0x8 << 48
            | 0x2 << 44
            | 0x6 << 40
            | 0xa << 36
            | 0b10 << 34
            | 1 << 33
            | 1 << 32
            | indices(|x, _| x as u64);
        let t = etc2_rgb(&block(v), false);
        assert_eq!(t[0], [187, 68, 136, 255]);
        assert_eq!(t[1], [66, 134, 202, 255]);
        assert_eq!(t[2], [34, 102, 170, 255]);
        assert_eq!(t[3], [2, 70, 138, 255]);
    }

    /// H mode: red 3 (bits 63:59) plus dR +3 stays inside 0..31, green 31 (bits 55:51)
    /// plus dG 0b011 (+3, bits 50:48) leaves it. C1 = (R1 bits 62:59 = 3, G1 bits 58:56
    /// 0b011 and bit 52 = 0b0111, B1 bit 51 and bits 49:47 0b110 = 0b1110) = (51, 119,
    /// 238), C2 = (1, 2, 3) = (17, 34, 51); C1 >= C2 as RGB444, with bits 34 and 32 = 0
    /// and 1 the distance index is 0b011 → 16: paint colours C1 + 16, C1 - 16, C2 + 16,
    /// C2 - 16; texel (x, y) takes index x.
    #[test]
    fn h_mode_worked_by_hand() {
        let v = 0x3u64 << 59
            | 0b011 << 56
            | 0b11111 << 51
            | 0b110 << 47
            | 0x1 << 43
            | 0x2 << 39
            | 0x3 << 35
            | 0 << 34
            | 1 << 33
            | 1 << 32
            | indices(|x, _| x as u64);
        let t = etc2_rgb(&block(v), false);
        assert_eq!(t[0], [67, 135, 254, 255]);
        assert_eq!(t[1], [35, 103, 222, 255]);
        assert_eq!(t[2], [33, 50, 67, 255]);
        assert_eq!(t[3], [1, 18, 35, 255]);
    }

    /// Planar mode: blue 5-bit 31 plus 1 (red and green inside). O's red and green 0,
    /// its blue from bits 48, 44:43 and 41:39 (0b011010 = 26 → 105); H's red 63 → 255,
    /// the rest of H and V 0: texel (x, 0) red = (255x + 2) >> 2, blue = (-105x + 4 *
    /// 105 + 2) >> 2.
    #[test]
    fn planar_mode_worked_by_hand() {
        let v = 0u64 << 59
            | 0b000 << 56
            | 0 << 51
            | 0b000 << 48
            | 0b11111 << 43
            | 0b001 << 40
            | 1 << 33
            | 0b11111 << 34 // RH bits 38:34
            | 1 << 32; // RH bit 0
        let w = word(&block(v));
        // The fields the mode reads back: O's blue takes bits 48, 44:43, 41:39.
        let ob = bits(w, 48, 48) << 5 | bits(w, 44, 43) << 3 | bits(w, 41, 39);
        let t = etc2_rgb(&block(v), false);
        assert_eq!(x6(ob), 105);
        for x in 0..4 {
            let r = ((x * 255 + 2) >> 2) as u8;
            let b = ((-105 * x + 4 * 105 + 2) >> 2) as u8;
            assert_eq!(t[x as usize][0], r, "red at ({x}, 0)");
            assert_eq!(t[x as usize][2], b, "blue at ({x}, 0)");
        }
    }

    /// Punch-through alpha without "opaque": index 2 is transparent black and index 0
    /// takes no modifier.
    #[test]
    fn punchthrough_transparent_texels() {
        let v = 16u64 << 59 | 16 << 51 | 16 << 43 | 3 << 37 | 3 << 34 | indices(|x, _| x as u64);
        let t = etc2_rgb(&block(v), true);
        assert_eq!(t[0], [132, 132, 132, 255], "index 0: the base colour");
        assert_eq!(t[1], [174, 174, 174, 255], "index 1: +42");
        assert_eq!(t[2], [0, 0, 0, 0], "index 2: transparent");
        assert_eq!(t[3], [90, 90, 90, 255], "index 3: -42");
        // With "opaque" set it is the differential mode.
        let o = etc2_rgb(&block(v | 1 << 33), true);
        assert_eq!(o[0], [145, 145, 145, 255]);
        assert_eq!(o[2], [119, 119, 119, 255]);
    }

    /// EAC: base 100, multiplier 3, table 13 (-1 -2 -3 -10 0 1 2 9); texel (x, y) takes
    /// index (4x + y) % 8.
    #[test]
    fn eac_worked_by_hand() {
        let mut v = 100u64 << 56 | 3 << 52 | 13 << 48;
        for i in 0..16u64 {
            v |= (i % 8) << (45 - 3 * i);
        }
        let a = eac_alpha8(&block(v));
        // (0, 0): index 0, 100 - 3; (0, 3): index 3, 100 - 30; (1, 3): index 7, 100 + 27.
        assert_eq!(a[0], 97);
        assert_eq!(a[12], 70);
        assert_eq!(a[13], 127);
        let r = eac_r11(&block(v), false);
        // 100 * 8 + 4 - 1 * 3 * 8 = 780.
        assert_eq!(r[0], 780.0 / 2047.0);
        // Multiplier 0: the modifier alone, 804 + 9.
        let r0 = eac_r11(&block(v & !(0xf << 52)), false);
        assert_eq!(r0[13], 813.0 / 2047.0);
        // Signed: base 0x80 reads as -127; -1016 - 24 clamps to -1023.
        let s = eac_r11(&block(v & !(0xff << 56) | 0x80 << 56), true);
        assert_eq!(s[0], -1.0);
        assert_eq!(s[13], (-1016 + 27 * 8) as f32 / 1023.0);
    }

    #[test]
    fn any_block_decodes() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = block(x);
            let _ = etc2_rgb(&b, false);
            let _ = etc2_rgb(&b, true);
            let _ = eac_alpha8(&b);
            for f in eac_r11(&b, true).iter().chain(eac_r11(&b, false).iter()) {
                assert!((-1.0..=1.0).contains(f));
            }
        }
    }
}
