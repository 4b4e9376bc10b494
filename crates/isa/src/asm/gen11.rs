//! Gen11's own syntax in the assembler: split sends (`sends`/`sendsc`, whole-register
//! operands, two descriptors), and the operands Mesa's compiler gives Gen8+ branches,
//! which the text does not show.

use super::operand::reg_head;
use crate::Encoding;
use crate::ir::*;
use crate::opcode::Opcode;

/// The operands Mesa gives a Gen8+ branch (brw_eu_emit.c brw_IF/brw_ELSE/brw_ENDIF/
/// brw_WHILE/brw_BREAK...; the corpus bytes decode to them): dst null:D `<1>` (endif: no
/// dst, all zero), src0 the immediate D 0, and for endif/while (no UIP) src1's type D in
/// dword 2. Returns dst, sources and the src1 type field.
pub(crate) fn branch_operands(opcode: Opcode) -> (Dst, Vec<Src>, Option<Type>) {
    let endif = opcode == Opcode::Endif;
    let dst = Dst {
        file: RegFile::Arf,
        nr: 0,
        subnr: 0,
        ty: if endif { Type::UD } else { Type::D },
        layout: DstLayout::HStride(if endif { 0 } else { 1 }),
        address: Address::Direct,
    };
    let src1 = (!crate::gen11::has_uip(opcode)).then_some(Type::D);
    (
        dst,
        vec![Src::Imm {
            ty: Type::D,
            bits: 0,
        }],
        src1,
    )
}

/// A split-send operand: `nullUD`, `g9UD`, `g9.1UD` (the subregister in 16-byte halves).
fn whole(s: &str) -> Option<(RegFile, u8, u8, Address)> {
    let body = s.strip_suffix("UD")?;
    let (file, nr, address, rest) = reg_head(body)?;
    let half = match rest.strip_prefix('.') {
        Some("1") => 16,
        Some(_) => return None,
        None if rest.is_empty() => 0,
        None => return None,
    };
    Some((file, nr, half, address))
}

fn hex(s: &str) -> Option<u32> {
    u32::from_str_radix(s.strip_prefix("0x")?, 16).ok()
}

/// `sends(n) dst src0 src1 desc ex_desc` and the message line's shared function.
pub(crate) fn split_send(ins: &mut Instruction, ops: &[String]) -> Result<(), String> {
    let get = |i: usize| ops.get(i).map_or("", |s| s.as_str());
    let bad = |what: &str, t: &str| format!("bad {what} `{t}`");
    let (file, nr, subnr, address) = whole(get(0)).ok_or_else(|| bad("destination", get(0)))?;
    ins.dst = Dst {
        file,
        nr,
        subnr,
        ty: Type::UD,
        layout: DstLayout::HStride(1),
        address,
    };
    for i in 1..3 {
        let (file, nr, subnr, address) = whole(get(i)).ok_or_else(|| bad("source", get(i)))?;
        ins.srcs.push(Src::Reg {
            file,
            nr,
            subnr,
            ty: Type::UD,
            layout: crate::gen11::decode::PAYLOAD,
            address,
            negate: false,
            abs: false,
        });
    }
    ins.desc = match get(3) {
        "a0<0>UD" => None,
        t => Some(hex(t).ok_or_else(|| bad("descriptor", t))?),
    };
    let ex = get(4);
    match ex
        .strip_prefix("a0.")
        .and_then(|r| r.strip_suffix("<0>UD"))
        .and_then(|n| n.parse::<u8>().ok())
    {
        Some(sub) => ins.ex_desc_reg = Some(sub),
        None => ins.ex_desc = hex(ex).ok_or_else(|| bad("extended descriptor", ex))?,
    }
    let words = ops.get(5..).unwrap_or(&[]);
    ins.sfid = Some(
        super::parse_sfid(Encoding::IceLake, words)
            .ok_or_else(|| bad("shared function", get(5)))?,
    );
    Ok(())
}
