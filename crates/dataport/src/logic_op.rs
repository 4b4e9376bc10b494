//! Logic ops (seed 004 §12.1.10, table L10160-10175): applied bitwise to the source and
//! destination colour in the render target's (UNORM) representation.

use gtsim_spec::shared::ThreeDLogicOpFunction as L;

/// `S op D` on raw render-target bits, one arm per row of the seed's table. All sixteen
/// 4-bit values are defined, so this cannot fail; the caller masks to the channel width.
pub fn logic_op(op: L, s: u32, d: u32) -> u32 {
    match op.0 & 0xf {
        0x0 => 0,
        0x1 => !(s | d),
        0x2 => !s & d,
        0x3 => !s,
        0x4 => s & !d,
        0x5 => !d,
        0x6 => s ^ d,
        0x7 => !(s & d),
        0x8 => s & d,
        0x9 => !(s ^ d),
        0xa => d,
        0xb => !s | d,
        0xc => s,
        0xd => s | !d,
        0xe => s | d,
        _ => u32::MAX,
    }
}
