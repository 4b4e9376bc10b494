use super::compact::{compact, uncompact};
use super::decode::decode;
use super::encode::{encode, encode_native};
use crate::error::{DecodeError, EncodeError};

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

/// `ins` is refused by the native encoder, for the reason `why` names.
fn assert_unencodable(ins: &crate::ir::Instruction, why: &str) {
    match encode_native(ins) {
        Err(EncodeError::Unencodable(m)) => assert!(m.contains(why), "{m:?} does not say {why:?}"),
        other => panic!("{other:?}: expected the encoder to refuse ({why})"),
    }
}

/// Assembles one line of Mesa's syntax to IR (native, no compaction).
fn ir(line: &str) -> crate::ir::Instruction {
    let bytes = crate::asm::assemble(line, crate::asm::Compaction::Never).unwrap();
    decode(&bytes).unwrap().0
}

#[test]
fn values_a_layout_cannot_hold_are_refused_not_dropped() {
    use crate::ir::{Address, Src};
    // An align16 subregister is a whole 16-byte half (its field holds byte offset bit 4).
    let mut ins = ir("mov(8) g10<1>UD g1.4<0>UD { align16 1Q };");
    let good = encode_native(&ins).unwrap();
    ins.dst.subnr = 8;
    assert_unencodable(&ins, "subregister byte 8 in align16");
    // Three-source subregisters count dwords.
    let mut ins = ir("mad(8) g11<1>F g8<4,4,1>F g10<4,4,1>F g3.1<0,1,0>F { align16 1Q };");
    encode_native(&ins).unwrap();
    if let Src::Reg { subnr, .. } = &mut ins.srcs[1] {
        *subnr = 2;
    }
    assert_unencodable(&ins, "three-source subregister byte 2 is not a whole dword");
    // A branch's src1 immediate has no bits: dword 3 holds JIP and UIP.
    let mut ins = ir("if(8) JIP: 16 UIP: 32 { align1 1Q };");
    encode_native(&ins).unwrap();
    ins.srcs[1] = Src::Imm {
        ty: crate::ir::Type::W,
        bits: 5,
    };
    assert_unencodable(&ins, "a branch's src1 immediate has no bits");
    // The send descriptor register is direct, and End Of Thread is a descriptor bit.
    // (Mesa's `send(8) null<1>F g113<4>F 0x8a08c000 urb ... { align16 1Q EOT }`.)
    let words = [0x0660_0131u32, 0x200f_0fbc, 0x006e_0e24, 0x8a08_c000];
    let bytes: Vec<u8> = words.iter().flat_map(|d| d.to_le_bytes()).collect();
    let mut ins = decode(&bytes).unwrap().0;
    assert_eq!(encode_native(&ins).unwrap(), words);
    ins.desc = None;
    let a0 = Src::Reg {
        file: crate::ir::RegFile::Arf,
        nr: 0x10,
        subnr: 0,
        ty: crate::ir::Type::UD,
        layout: crate::ir::Layout::Region(crate::ir::Region {
            vstride: Some(0),
            width: 1,
            hstride: 0,
        }),
        address: Address::Direct,
        negate: false,
        abs: false,
    };
    ins.srcs.push(a0);
    assert_unencodable(&ins, "End Of Thread with a descriptor in a register");
    ins.eot = false;
    encode_native(&ins).unwrap();
    if let Src::Reg { address, .. } = &mut ins.srcs[1] {
        *address = Address::Indirect {
            subnr: 0,
            offset: 0,
        };
    }
    assert_unencodable(&ins, "send with an indirect descriptor register");
    assert_ne!(good, [0; 4]);
}

#[test]
fn each_layout_checks_its_fixed_fields_both_ways() {
    // Access Mode is fixed per layout (1 in the align16 and three-source layouts): a
    // three-source instruction in align1 is neither decoded nor encoded.
    let mut ins = ir("mad(8) g11<1>F g8<4,4,1>F g10<4,4,1>F g3.1<0,1,0>F { align16 1Q };");
    let dw = encode_native(&ins).unwrap();
    let mut bytes: Vec<u8> = dw.iter().flat_map(|d| d.to_le_bytes()).collect();
    bytes[1] &= !1; // clear Access Mode (bit 8)
    let e = decode(&bytes).unwrap_err();
    assert!(
        matches!(&e, DecodeError::Invalid(m) if m.contains("`Access Mode` must be 0x1, found 0x0")),
        "{e:?}"
    );
    ins.align16 = false;
    assert_unencodable(&ins, "`Access Mode` must be 0x1, found 0x0");
}
