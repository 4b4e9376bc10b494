use super::compact::{compact, uncompact};
use super::decode::decode;
use super::encode::{encode, encode_native};

#[test]
fn compact_round_trip_on_every_control_entry() {
    // Every native instruction made by expanding a compact one compacts back to it.
    for ctl in 0..32u32 {
        let c = [0x2000_0001 | (ctl << 8), 0x0302_0100];
        let n = uncompact(c).unwrap();
        assert_eq!(compact(&n), Some(c), "control index {ctl}");
    }
}

#[test]
fn decode_encode_round_trip_of_simple_instructions() {
    // A native `mov(8) g1<1>F g2<8,8,1>F` built by the encoder decodes to the same IR.
    let mut ins = decode(&[0u8; 16]).unwrap().0; // opcode 0 is illegal: a blank canvas
    ins.opcode = crate::opcode::Opcode::Mov;
    ins.exec_size = 8;
    ins.dst = crate::ir::Dst {
        file: crate::ir::RegFile::Grf,
        nr: 1,
        subnr: 0,
        ty: crate::ir::Type::F,
        layout: crate::ir::DstLayout::HStride(1),
        address: crate::ir::Address::Direct,
    };
    ins.srcs = vec![crate::ir::Src::Reg {
        file: crate::ir::RegFile::Grf,
        nr: 2,
        subnr: 0,
        ty: crate::ir::Type::F,
        layout: crate::ir::Layout::Region(crate::ir::Region {
            vstride: Some(8),
            width: 8,
            hstride: 1,
        }),
        address: crate::ir::Address::Direct,
        negate: false,
        abs: false,
    }];
    let bytes = encode(&ins).unwrap();
    let (back, len) = decode(&bytes).unwrap();
    assert_eq!(len, 16);
    assert_eq!(back, ins);
    let _ = encode_native(&back).unwrap();
}
