//! The render target write payload layouts (seed 000 §3.9.11.4): which registers carry
//! which slot's channels, worked by hand.

use gtsim_dataport::rt_message::{RtHeader, RtSubtype, RtWrite, decode_payload};
use gtsim_message::MessageError;

/// A register whose dword i is `f(i)`.
fn reg(f: impl Fn(u32) -> u32) -> [u8; 32] {
    let mut r = [0u8; 32];
    for i in 0..8 {
        r[i * 4..i * 4 + 4].copy_from_slice(&f(i as u32).to_le_bytes());
    }
    r
}

fn write(subtype: RtSubtype, hi: bool, header: Option<RtHeader>) -> RtWrite {
    RtWrite {
        subtype,
        slot_group_hi: hi,
        last: true,
        binding_table_index: 3,
        header,
    }
}

#[test]
fn simd8_carries_one_register_per_channel() {
    // Channel c of slot s is 100c + s.
    let payload: Vec<[u8; 32]> = (0..4).map(|c| reg(|s| 100 * c + s)).collect();
    let p = decode_payload(&write(RtSubtype::Simd8Lo, false, None), &payload, false).unwrap();
    assert_eq!(p.slots, 0xff);
    assert_eq!(p.colors[5], [5, 105, 205, 305]);
    assert_eq!(p.binding_table_index, 3);
    assert!(p.last);
    assert_eq!(p.header_pixel_mask, None);
}

#[test]
fn simd16_high_slot_group_fills_slots_16_to_31_after_the_header() {
    // Header (two registers), then per channel two registers: slots 0-7, 8-15.
    let mut payload = vec![[0u8; 32]; 2];
    for c in 0..4 {
        payload.push(reg(|s| 1000 * c + s));
        payload.push(reg(|s| 1000 * c + 8 + s));
    }
    let header = RtHeader {
        array_index: 7,
        render_target_index: 2,
        pixel_enables: 0x00f0,
        ..Default::default()
    };
    let p = decode_payload(
        &write(RtSubtype::Simd16, true, Some(header)),
        &payload,
        false,
    )
    .unwrap();
    assert_eq!(p.slots, 0xffff_0000);
    assert_eq!(p.colors[16 + 9], [9, 1009, 2009, 3009]);
    assert_eq!(p.colors[9], [0; 4]);
    assert_eq!(p.array_index, 7);
    assert_eq!(p.render_target_index, 2);
    // The header's 16 enables cover the high slots of the 32-pixel dispatch.
    assert_eq!(p.header_pixel_mask, Some(0x00f0_0000));
}

#[test]
fn short_payloads_and_unmodelled_forms_are_errors() {
    let one = vec![reg(|_| 0)];
    assert!(decode_payload(&write(RtSubtype::Simd8Lo, false, None), &one, false).is_err());
    let omask = RtHeader {
        omask: true,
        ..Default::default()
    };
    let many = vec![reg(|_| 0); 10];
    assert!(decode_payload(&write(RtSubtype::Simd16, false, Some(omask)), &many, false).is_err());
    let e = decode_payload(
        &write(RtSubtype::Other("SIMD8_DUALSRC_LO"), false, None),
        &many,
        false,
    )
    .unwrap_err();
    assert!(
        matches!(&e, MessageError::Unsupported(u)
            if u.what.contains("SIMD8_DUALSRC_LO") && u.reference == "seed 000 §3.9.11"),
        "{e}"
    );
}
