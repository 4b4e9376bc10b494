//! Payload fields written through a layout, worked by hand.

use gtsim_pipe3d::state::PayloadField;

fn dword(grf: &[u8], reg: usize, dw: usize) -> u32 {
    let at = reg * 32 + dw * 4;
    u32::from_le_bytes([grf[at], grf[at + 1], grf[at + 2], grf[at + 3]])
}

#[test]
fn fields_land_at_their_bits_and_keep_the_others() {
    let mut grf = vec![0u8; 4 * 32];
    let y = PayloadField {
        reg: 1,
        dword: 2,
        shift: 16,
        bits: 16,
    };
    let x = PayloadField { shift: 0, ..y };
    x.put(&mut grf, 0x12);
    y.put(&mut grf, 0x34);
    assert_eq!(dword(&grf, 1, 2), 0x0034_0012);
    // Subspan 5: one register and one dword on.
    y.offset(1, 1).put(&mut grf, 0xffff_ffff);
    assert_eq!(dword(&grf, 2, 3), 0xffff_0000);
    // A 27-bit pointer field at bit 5 takes the address's 32-byte-aligned bits.
    let ptr = PayloadField {
        reg: 0,
        dword: 3,
        shift: 5,
        bits: 27,
    };
    PayloadField {
        shift: 0,
        bits: 4,
        ..ptr
    }
    .put(&mut grf, 0x3);
    ptr.put(&mut grf, 0x1240 >> 5);
    assert_eq!(dword(&grf, 0, 3), 0x1243);
    // Outside the register file: nothing happens.
    PayloadField { reg: 9, ..ptr }.put(&mut grf, 1);
}
