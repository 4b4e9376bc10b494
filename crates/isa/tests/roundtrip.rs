//! Property tests on random valid Gen7 instructions: encode -> decode gives the same IR,
//! and disassemble -> assemble gives the same bytes (every field the text shows).

use gtsim_isa::asm::{Compaction, assemble};
use gtsim_isa::disasm;
use gtsim_isa::gen7::compact::compact;
use gtsim_isa::gen7::decode::decode;
use gtsim_isa::gen7::encode::{encode, encode_native};
use gtsim_isa::ir::*;
use gtsim_isa::opcode::{Kind, Opcode};
use proptest::prelude::*;

const ALU1: &[Opcode] = &[
    Opcode::Mov,
    Opcode::Not,
    Opcode::Frc,
    Opcode::Rndd,
    Opcode::Rndz,
    Opcode::Lzd,
    Opcode::Fbh,
    Opcode::Cbit,
    Opcode::Bfrev,
];
const ALU2: &[Opcode] = &[
    Opcode::Add,
    Opcode::Mul,
    Opcode::And,
    Opcode::Or,
    Opcode::Xor,
    Opcode::Shl,
    Opcode::Shr,
    Opcode::Asr,
    Opcode::Cmp,
    Opcode::Sel,
    Opcode::Mach,
    Opcode::Avg,
    Opcode::Dp4,
    Opcode::Pln,
    Opcode::Addc,
    Opcode::Bfi1,
];
const TYPES: &[Type] = &[Type::F, Type::D, Type::UD, Type::W, Type::UW];

fn grf_src(align16: bool) -> impl Strategy<Value = Src> {
    (
        0u8..128,
        0u8..8,
        prop::sample::select(TYPES),
        any::<bool>(),
        any::<bool>(),
        0usize..4,
        any::<[u8; 4]>(),
        any::<bool>(),
    )
        .prop_map(move |(nr, sub, ty, negate, abs, region, sw, vs4)| {
            let (subnr, layout) = if align16 {
                (
                    if sub % 2 == 1 { 16 } else { 0 },
                    Layout::Swizzle {
                        vstride: if vs4 { 4 } else { 0 },
                        swizzle: sw.map(|c| c % 4),
                    },
                )
            } else {
                let r = [
                    Region {
                        vstride: Some(8),
                        width: 8,
                        hstride: 1,
                    },
                    Region {
                        vstride: Some(0),
                        width: 1,
                        hstride: 0,
                    },
                    Region {
                        vstride: Some(16),
                        width: 8,
                        hstride: 2,
                    },
                    Region {
                        vstride: Some(4),
                        width: 4,
                        hstride: 1,
                    },
                ][region];
                ((sub as u32 * ty.size()) as u8 % 32, Layout::Region(r))
            };
            let subnr = subnr - subnr % ty.size() as u8;
            Src::Reg {
                file: RegFile::Grf,
                nr,
                subnr,
                ty,
                layout,
                address: Address::Direct,
                negate,
                abs,
            }
        })
}

fn imm() -> impl Strategy<Value = Src> {
    (
        prop::sample::select(
            &[
                Type::F,
                Type::D,
                Type::UD,
                Type::W,
                Type::UW,
                Type::V,
                Type::VF,
            ][..],
        ),
        any::<u32>(),
    )
        .prop_map(|(ty, v)| {
            let bits = match ty {
                Type::W | Type::UW => (v & 0xffff) | ((v & 0xffff) << 16),
                _ => v,
            } as u64;
            Src::Imm { ty, bits }
        })
}

fn instruction() -> impl Strategy<Value = Instruction> {
    (
        (
            0usize..4,
            prop::sample::select(ALU1),
            prop::sample::select(ALU2),
            any::<bool>(),
            0u8..10,
        ),
        (
            prop::sample::select(&[1u8, 2, 4, 8, 16][..]),
            0u8..4,
            any::<bool>(),
            0u8..4,
            any::<bool>(),
        ),
        (
            any::<bool>(),
            any::<bool>(),
            0u8..2,
            0u8..2,
            any::<bool>(),
            any::<bool>(),
            0u8..3,
            any::<bool>(),
        ),
        (
            0u8..128,
            prop::sample::select(TYPES),
            0u8..16,
            grf_src(false),
            grf_src(false),
            grf_src(true),
            grf_src(true),
            imm(),
        ),
        (any::<bool>(), 0u8..4, -300i32..300, -300i32..300, 1u8..14),
    )
        .prop_map(
            |(
                (form, op1, op2, align16, cond),
                (exec, qtr, nib, dep, we),
                (pred, inv, f, fs, sat, acc, thread, compacted),
                (dnr, dty, wm, a1, b1, a16, b16, im),
                (use_imm, branch, jip, uip, mathfn),
            )| {
                let mut ins = decode(&[0u8; 16]).unwrap().0;
                ins.exec_size = exec;
                match exec {
                    8 => ins.qtr_control = qtr,
                    16 => ins.qtr_control = qtr & 2,
                    1 | 2 | 4 => {
                        ins.qtr_control = qtr;
                        ins.nib_control = nib;
                    }
                    _ => {}
                }
                ins.dep_control = dep;
                ins.mask_disable = we;
                ins.thread_control = thread;
                ins.acc_write = acc;
                let three = form == 2;
                ins.align16 = align16 || three;
                if pred {
                    ins.predicate = Some(Predicate {
                        control: if ins.align16 {
                            PredControl::Align16(Align16Predicate::Normal)
                        } else {
                            PredControl::Align1(Align1Predicate::Normal)
                        },
                        inverse: inv,
                    });
                    ins.flag = (f, fs);
                }
                ins.dst = if ins.align16 {
                    Dst {
                        file: RegFile::Grf,
                        nr: dnr,
                        subnr: 0,
                        ty: dty,
                        layout: DstLayout::WriteMask(wm),
                        address: Address::Direct,
                    }
                } else {
                    Dst {
                        file: RegFile::Grf,
                        nr: dnr,
                        subnr: 0,
                        ty: dty,
                        layout: DstLayout::HStride(1),
                        address: Address::Direct,
                    }
                };
                let (s0, s1) = if ins.align16 { (a16, b16) } else { (a1, b1) };
                match form {
                    0 => {
                        ins.opcode = op1;
                        ins.srcs = vec![if use_imm { im } else { s0 }];
                    }
                    1 => {
                        ins.opcode = op2;
                        ins.srcs = vec![s0, if use_imm { im } else { s1 }];
                    }
                    2 => {
                        ins.opcode = if branch % 2 == 0 {
                            Opcode::Mad
                        } else {
                            Opcode::Lrp
                        };
                        let t = Type::F;
                        ins.dst.ty = t;
                        let mk = |s: Src, rep: bool| match s {
                            Src::Reg {
                                nr,
                                subnr,
                                negate,
                                abs,
                                layout,
                                ..
                            } => Src::Reg {
                                file: RegFile::Grf,
                                nr,
                                subnr: subnr / 4 * 4,
                                ty: t,
                                layout: if rep {
                                    Layout::Region(Region {
                                        vstride: Some(0),
                                        width: 1,
                                        hstride: 0,
                                    })
                                } else if let Layout::Swizzle { swizzle, .. } = layout {
                                    Layout::Swizzle {
                                        vstride: 4,
                                        swizzle,
                                    }
                                } else {
                                    unreachable!()
                                },
                                address: Address::Direct,
                                negate,
                                abs,
                            },
                            other => other,
                        };
                        ins.srcs = vec![mk(s0, nib), mk(s1, false), mk(b16, use_imm)];
                    }
                    _ => {
                        if branch < 3 {
                            ins.opcode =
                                [Opcode::If, Opcode::Break, Opcode::While][branch as usize];
                            ins.align16 = false;
                            ins.dst = Dst {
                                file: RegFile::Arf,
                                nr: 0,
                                subnr: 0,
                                ty: Type::D,
                                layout: DstLayout::HStride(1),
                                address: Address::Direct,
                            };
                            ins.srcs = vec![
                                Src::Reg {
                                    file: RegFile::Arf,
                                    nr: 0,
                                    subnr: 0,
                                    ty: Type::D,
                                    layout: Layout::Region(Region {
                                        vstride: Some(8),
                                        width: 8,
                                        hstride: 1,
                                    }),
                                    address: Address::Direct,
                                    negate: false,
                                    abs: false,
                                },
                                Src::Imm {
                                    ty: if branch == 2 { Type::W } else { Type::D },
                                    bits: 0,
                                },
                            ];
                            ins.jip = Some(jip * 8);
                            ins.uip = Some(if branch == 2 { 0 } else { uip * 8 });
                        } else {
                            ins.opcode = Opcode::Math;
                            ins.math = MathFunction::ALL.get(usize::from(mathfn) - 1).copied();
                            ins.srcs = vec![s0, s1];
                        }
                    }
                }
                if ins.opcode.kind() != Kind::Branch && ins.opcode.kind() != Kind::Math {
                    ins.cond_modifier = (cond != 0)
                        .then(|| CondModifier::ALL.get(usize::from(cond) - 1).copied())
                        .flatten();
                    ins.saturate = sat;
                    if cond != 0 && !pred && !matches!(ins.opcode, Opcode::Sel) {
                        ins.flag = (f, fs);
                    }
                }
                // The predicate's mode belongs to the access mode the instruction ends with
                // (branches are align1).
                if let Some(p) = &mut ins.predicate {
                    p.control = if ins.align16 {
                        PredControl::Align16(Align16Predicate::Normal)
                    } else {
                        PredControl::Align1(Align1Predicate::Normal)
                    };
                }
                // Mesa's convention for a full-size instruction with an immediate src0.
                if let (Some(Src::Imm { ty, .. }), 1) = (ins.srcs.first(), ins.srcs.len()) {
                    ins.src1_type_field = Some(*ty).filter(|t| *t != Type::UD);
                }
                if compacted && ins.opcode.kind() != Kind::Branch {
                    let mut c = ins.clone();
                    c.src1_type_field = None;
                    if encode_native(&c).ok().and_then(|n| compact(&n)).is_some() {
                        ins = c;
                        ins.compacted = true;
                    }
                }
                ins
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn encode_then_decode_is_identity(ins in instruction()) {
        let bytes = encode(&ins).map_err(|e| TestCaseError::fail(format!("{e}: {ins:?}")))?;
        let (back, len) = decode(&bytes).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert_eq!(len, bytes.len());
        prop_assert_eq!(&back, &ins);
    }

    #[test]
    fn disassemble_then_assemble_is_identity(ins in instruction()) {
        let bytes = encode(&ins).unwrap();
        let text = disasm::disassemble(&bytes).unwrap().join("\n");
        // Branch targets lie outside a one-instruction kernel, so branches are checked by
        // the corpus kernels (tests/disasm.rs), where every target has its label.
        prop_assume!(ins.opcode.kind() != Kind::Branch);
        let back = assemble(&text, Compaction::AsWritten).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back, bytes, "{}", text);
    }
}

/// Every Gen7 opcode of the spec's EU_OPCODE table decodes to an IR opcode and encodes
/// back to the same number; no two numbers share a mnemonic (no shadowing).
#[test]
fn every_opcode_is_reachable_and_unique() {
    let table = &gtsim_spec::gen7::ENUM_EU_OPCODE;
    let mut seen = std::collections::BTreeSet::new();
    for (num, name) in table.values {
        let op = Opcode::from_mnemonic(name).unwrap_or_else(|| panic!("{name} has no IR opcode"));
        assert!(seen.insert(op), "{name} listed twice");
        let mut dw = [0u8; 16];
        dw[0] = *num as u8;
        if op.kind() == Kind::Alu3 {
            dw[1] = 1; // Access Mode: three-source instructions are align16 only
        }
        if op.kind() == Kind::Math {
            dw[3] = 1; // Math Function 0 is reserved: inv
        }
        let (ins, _) = decode(&dw).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ins.opcode, op);
    }
    assert!(seen.len() >= 60, "{} opcodes", seen.len());
}

/// An indirect destination through a0.1 with a word type: the field holds the word
/// subregister 1, which Mesa's print (in elements of the type: 1 / 2) would lose.
/// Intel's VA driver's Save_AVS kernels write `r[a0.1,0]<1>:uw` (gen4asm). It decodes,
/// prints as `g[a0.1w]`, and assembles back to the same bytes.
#[test]
fn an_indirect_destination_through_a_word_subregister_round_trips() {
    use gtsim_isa::asm::{Compaction, assemble};
    let text = "add.sat(16)     g[a0.1w]<1>UW   g[a0.1]<16,16,1>UW 0x0080UW        { align1 1H };";
    let bytes = assemble(text, Compaction::Never).unwrap();
    let (ins, _) = gtsim_isa::Encoding::IvyBridge.decode(&bytes).unwrap();
    match ins.dst.address {
        gtsim_isa::ir::Address::Indirect { subnr, offset } => assert_eq!((subnr, offset), (1, 0)),
        a => panic!("{a:?}"),
    }
    let printed =
        gtsim_isa::disasm::format_for(gtsim_isa::Encoding::IvyBridge, &ins, 0, &Default::default());
    assert!(printed.contains("g[a0.1w]<1>UW"), "{printed}");
    let again = assemble(&printed, Compaction::Never).unwrap();
    assert_eq!(again, bytes);
}
