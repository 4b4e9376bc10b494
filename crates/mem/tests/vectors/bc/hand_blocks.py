#!/usr/bin/env python3
"""Bit packer for the hand-built blocks in crates/mem/tests/bc.rs (a calculator only).

Each block is a list of (value, bit count) fields written LSB first, in the order the
format's spec lists them; the script prints the 16-byte block in hex. The expected texels
are derived by hand in the comments of tests/bc.rs, not computed here.
"""


def pack(fields, total=128):
    v, pos = 0, 0
    for value, n in fields:
        assert 0 <= value < (1 << n), (value, n)
        v |= value << pos
        pos += n
    assert pos <= total, pos
    return v.to_bytes(total // 8, "little").hex()


def idx(values, anchors, bits):
    """16 indices of `bits` bits; anchor texels are one bit shorter."""
    return [(v, bits - 1 if i in anchors else bits) for i, v in enumerate(values)]


def at(n, **kw):
    """n zero indices except texel: value pairs given as t<i>=value."""
    out = [0] * n
    for k, val in kw.items():
        out[int(k[1:])] = val
    return out


BLOCKS = {
    # BC7 mode 0: partition 0 (anchors 0, 3, 15); R,G,B x6 endpoints (4 bits), 6 p-bits.
    "bc7_mode0": [(1, 1), (0, 4)]
    + [(v, 4) for v in [15, 0, 0, 0, 0, 8]]  # R: s0e0 s0e1 s1e0 s1e1 s2e0 s2e1
    + [(v, 4) for v in [0, 0, 15, 0, 0, 8]]  # G
    + [(v, 4) for v in [0, 0, 0, 0, 15, 8]]  # B
    + [(p, 1) for p in [1, 0, 1, 0, 0, 1]]
    + idx(at(16, t1=4, t15=3), {0, 3, 15}, 3),
    # BC7 mode 1: partition 0 (anchor 15); 6-bit RGB, shared p-bits.
    "bc7_mode1": [(2, 2), (0, 6)]
    + [(v, 6) for v in [63, 0, 0, 32]]
    + [(v, 6) for v in [0, 63, 0, 32]]
    + [(v, 6) for v in [0, 0, 63, 32]]
    + [(0, 1), (1, 1)]
    + idx(at(16, t1=3, t15=3), {0, 15}, 3),
    # BC7 mode 2: 3-subset partition 0; 5-bit RGB; 2-bit indices.
    "bc7_mode2": [(4, 3), (0, 6)]
    + [(v, 5) for v in [31, 0, 0, 0, 0, 16]]
    + [(v, 5) for v in [0, 0, 31, 0, 0, 16]]
    + [(v, 5) for v in [0, 0, 0, 0, 31, 16]]
    + idx(at(16, t1=1, t3=1, t15=1, t14=3), {0, 3, 15}, 2),
    # BC7 mode 3: partition 13 (rows 2-3 subset 1, anchor 15); 7-bit RGB, 4 p-bits.
    "bc7_mode3": [(8, 4), (13, 6)]
    + [(v, 7) for v in [127, 0, 0, 64]]
    + [(v, 7) for v in [0, 0, 0, 64]]
    + [(v, 7) for v in [0, 0, 127, 64]]
    + [(1, 1), (0, 1), (0, 1), (1, 1)]
    + idx(at(16, t5=2, t15=1), {0, 15}, 2),
    # BC7 mode 4: rotation 1, index selection 1.
    "bc7_mode4": [(16, 5), (1, 2), (1, 1)]
    + [(31, 5), (0, 5), (0, 5), (31, 5), (0, 5), (0, 5)]
    + [(63, 6), (0, 6)]
    + idx(at(16, t1=1), {0}, 2)
    + idx(at(16, t1=5, t2=7), {0}, 3),
    # BC7 mode 5: rotation 0.
    "bc7_mode5": [(32, 6), (0, 2)]
    + [(127, 7), (0, 7), (0, 7), (127, 7), (64, 7), (0, 7)]
    + [(255, 8), (0, 8)]
    + idx(at(16, t1=2), {0}, 2)
    + idx(at(16, t1=1, t2=3), {0}, 2),
    # BC7 mode 6.
    "bc7_mode6": [(64, 7)]
    + [(127, 7), (0, 7), (0, 7), (0, 7), (0, 7), (127, 7), (127, 7), (0, 7)]
    + [(1, 1), (0, 1)]
    + idx(at(16, t1=8, t15=15), {0}, 4),
    # BC7 mode 7: partition 0 (anchor 15).
    "bc7_mode7": [(128, 8), (0, 6)]
    + [(v, 5) for v in [31, 0, 0, 0]]
    + [(v, 5) for v in [0, 0, 0, 31]]
    + [(v, 5) for v in [0, 0, 31, 0]]
    + [(v, 5) for v in [31, 0, 16, 31]]
    + [(1, 1), (0, 1), (0, 1), (1, 1)]
    + idx(at(16, t1=1, t15=1), {0, 15}, 2),
    # BC6H mode 11 (0x03): r0,g0,b0,r1,g1,b1 10 bits; 4-bit indices.
    "bc6h_mode11": [(0x03, 5), (0, 10), (512, 10), (1023, 10), (1023, 10), (0, 10), (0, 10)]
    + idx(at(16, t1=15, t2=7), {0}, 4),
    # BC6H mode 1 (0x00), see tests/bc.rs for the field order.
    "bc6h_mode1": [(0, 2), (0, 1), (0, 1), (0, 1), (100, 10), (100, 10), (100, 10), (5, 5),
                   (0, 1), (0, 4), (0, 5), (0, 1), (0, 4), (0, 5), (0, 1), (0, 4), (29, 5),
                   (0, 1), (0, 5), (0, 1), (0, 5)]
    + idx(at(16, t1=7, t15=3), {0, 15}, 3),
    # BC6H mode 11 signed: r0 = 0x3ff (-1).
    "bc6h_mode11_neg": [(0x03, 5), (0x3FF, 10), (0, 10), (0, 10), (0, 10), (0, 10), (0, 10)]
    + idx(at(16), {0}, 4),
    # BC6H mode 12 (0x07): r0 = 1023, r1 (delta, 9 bits) = +1, r0[10] = 0.
    "bc6h_mode12_wrap": [(0x07, 5), (1023, 10), (0, 10), (0, 10), (1, 9), (0, 1), (0, 9),
                         (0, 1), (0, 9), (0, 1)]
    + idx(at(16, t1=15, t2=8), {0}, 4),
    # FXT1 CC_HI: 3-bit indices, colour 0 (B=16, G=0, R=31), colour 1 (G=31), mode 00.
    "fxt1_hi": [(v, 3) for v in at(32, t0=7, t2=6, t3=3, t16=1)]
    + [(16, 5), (0, 5), (31, 5), (0, 5), (31, 5), (0, 5), (0, 2)],
    # FXT1 CC_CHROMA: index = t % 4; colours red, green, blue, (R1,G2,B3); mode 010.
    "fxt1_chroma": [(t % 4, 2) for t in range(32)]
    + [(0, 5), (0, 5), (31, 5), (0, 5), (31, 5), (0, 5), (31, 5), (0, 5), (0, 5),
       (3, 5), (2, 5), (1, 5), (0, 1), (2, 3)],
    # FXT1 CC_MIXED, alpha bit 0: left c0 (G=10), c1 (R=31, G=20), glsb 1; right c2 = blue.
    "fxt1_mixed": [(v, 2) for v in at(32, t0=2, t2=3)]
    + [(0, 5), (10, 5), (0, 5), (0, 5), (20, 5), (31, 5), (31, 5), (0, 5), (0, 5),
       (0, 5), (0, 5), (0, 5), (0, 1), (1, 1), (0, 1), (1, 1)],
    # FXT1 CC_MIXED, alpha bit 1: left c0 red, c1 green (glsb 1); right colours 0.
    "fxt1_mixed_alpha": [(v, 2) for v in at(32, t1=1, t2=2, t3=3)]
    + [(0, 5), (0, 5), (31, 5), (0, 5), (31, 5), (0, 5), (0, 5), (0, 5), (0, 5),
       (0, 5), (0, 5), (0, 5), (1, 1), (1, 1), (0, 1), (1, 1)],
    # FXT1 CC_ALPHA, lerp 0: c0 red a31, c1 green a16, c2 blue a0; index = t % 4; mode 011.
    "fxt1_alpha": [(t % 4, 2) for t in range(32)]
    + [(0, 5), (0, 5), (31, 5), (0, 5), (31, 5), (0, 5), (31, 5), (0, 5), (0, 5),
       (31, 5), (16, 5), (0, 5), (0, 1), (3, 3)],
    # FXT1 CC_ALPHA, lerp 1: same colours; index = t % 4.
    "fxt1_alpha_lerp": [(t % 4, 2) for t in range(32)]
    + [(0, 5), (0, 5), (31, 5), (0, 5), (31, 5), (0, 5), (31, 5), (0, 5), (0, 5),
       (31, 5), (16, 5), (0, 5), (1, 1), (3, 3)],
}

if __name__ == "__main__":
    for name, fields in BLOCKS.items():
        print(name, pack(fields))
