//! The message-descriptor text Mesa 22.3's disassembler prints after a Gen11 send
//! (brw_disasm.c, ver 11 paths): the shared function's name, ` MsgDesc:`, the descriptor
//! decoded per shared function, then `mlen`, `ex_mlen` (split sends) and `rlen`. Field
//! positions are the message descriptor's (seed 003 MsgDescpt31, lines 15171-15187:
//! 28:25 message length, 24:20 response length, 19 header present, 18:0 function
//! control; the per-function controls as Mesa's brw_eu.h descriptor helpers read them).

use crate::disasm::{W, sfid_name};
use crate::ir::{Instruction, Sfid};

fn bits(v: u32, hi: u32, lo: u32) -> u32 {
    (v >> lo) & ((1u64 << (hi - lo + 1)) - 1) as u32
}

/// The sampler message types (desc 16:12; Mesa gfx5_sampler_msg_type, Gen9+ names).
const SAMPLER: &[(u32, &str)] = &[
    (0, "sample"),
    (1, "sample_b"),
    (2, "sample_l"),
    (3, "sample_c"),
    (4, "sample_d"),
    (5, "sample_b_c"),
    (6, "sample_l_c"),
    (7, "ld"),
    (8, "gather4"),
    (9, "lod"),
    (10, "resinfo"),
    (11, "sampleinfo"),
    (16, "gather4_c"),
    (17, "gather4_po"),
    (18, "gather4_po_c"),
    (20, "sample_d_c"),
    (24, "sample_lz"),
    (25, "sample_c_lz"),
    (26, "ld_lz"),
    (28, "ld2dms_w"),
    (29, "ld_mcs"),
    (30, "ld2dms"),
    (31, "ld2dss"),
];

/// Sampler SIMD modes (desc 18:17, with desc 29 as bit 2 on Gen10+).
const SIMD: [&str; 7] = [
    "SIMD4x2",
    "SIMD8",
    "SIMD16",
    "SIMD32/64",
    "",
    "SIMD8H",
    "SIMD16H",
];

const RT_SUBTYPE: [&str; 8] = [
    "SIMD16",
    "SIMD16/RepData",
    "SIMD8/DualSrcLow",
    "SIMD8/DualSrcHigh",
    "SIMD8",
    "SIMD8/ImageWrite",
    "",
    "SIMD16/RepData-111",
];

const URB: [&str; 9] = [
    "write HWord",
    "write OWord",
    "read HWord",
    "read OWord",
    "atomic mov",
    "atomic inc",
    "atomic add",
    "SIMD8 write",
    "SIMD8 read",
];

/// Data cache port 1 message types (desc 18:14; Mesa dp_dc1_msg_type_hsw).
const DC1: &[(u32, &str)] = &[
    (1, "untyped surface read"),
    (2, "DC untyped atomic op"),
    (3, "DC untyped 4x2 atomic op"),
    (4, "DC media block read"),
    (5, "DC typed surface read"),
    (6, "DC typed atomic"),
    (7, "DC typed 4x2 atomic op"),
    (9, "DC untyped surface write"),
    (10, "DC media block write"),
    (11, "DC atomic counter op"),
    (12, "DC 4x2 atomic counter op"),
    (13, "DC typed surface write"),
    (0x10, "DC A64 scattered read"),
    (0x11, "DC A64 untyped surface read"),
    (0x12, "DC A64 untyped atomic op"),
    (0x14, "DC A64 oword block read"),
    (0x15, "DC A64 oword block write"),
    (0x19, "DC A64 untyped surface write"),
    (0x1a, "DC A64 scattered write"),
    (0x1b, "DC untyped atomic float op"),
    (0x1d, "DC A64 untyped atomic float op"),
];

const AOP: [&str; 16] = [
    "", "and", "or", "xor", "mov", "inc", "dec", "add", "sub", "revsub", "imax", "imin", "umax",
    "umin", "cmpwr", "predec",
];

const AOP_FLOAT: [&str; 4] = ["fmax", "fmin", "fcmpwr", "fadd"];

const OWORDS: [&str; 5] = ["1-low", "1-high", "2", "4", "8"];

fn find(table: &[(u32, &'static str)], v: u32) -> &'static str {
    table.iter().find(|e| e.0 == v).map_or("", |e| e.1)
}

/// The shared function's name as Mesa 22.3 prints it (its table names 8 `rt accel`).
fn name(sfid: Option<Sfid>) -> String {
    match sfid {
        Some(Sfid::Vme) => "rt accel".into(),
        s => sfid_name(s),
    }
}

/// The descriptors of a split send (columns 64 and 80, printed without moving Mesa's
/// column counter) and its message line.
pub(crate) fn split_send_descriptors(w: &mut W, ins: &Instruction) {
    w.pad(64);
    match ins.desc {
        Some(d) => w.raw(&format!("0x{d:08x}")),
        None => w.put("a0<0>UD"),
    }
    w.pad(80);
    match ins.ex_desc_reg {
        Some(sub) => w.put(&format!("a0.{sub}<0>UD")),
        None => w.raw(&format!("0x{:08x}", ins.ex_desc)),
    }
    w.newline();
    w.pad(16);
    w.raw("            ");
    match ins.desc {
        Some(d) => message(w, ins, d),
        None => w.put(&format!("{} MsgDesc: indirect", name(ins.sfid))),
    }
}

/// The message line of a send with immediate descriptor `desc`.
pub(crate) fn message(w: &mut W, ins: &Instruction, desc: u32) {
    w.put(&name(ins.sfid));
    w.put(" MsgDesc:");
    let bti = bits(desc, 7, 0);
    let msg_ctrl = bits(desc, 13, 8);
    let msg_type = bits(desc, 18, 14);
    match ins.sfid {
        Some(Sfid::Sampler) => {
            let simd = bits(desc, 18, 17) | bits(desc, 29, 29) << 2;
            w.put(&format!(
                " {} {}",
                find(SAMPLER, bits(desc, 16, 12)),
                SIMD.get(simd as usize).copied().unwrap_or("")
            ));
            if bits(desc, 30, 30) != 0 {
                w.put(" HP");
            }
            w.put(&format!(" Surface = {bti} Sampler = {}", bits(desc, 11, 8)));
        }
        Some(Sfid::DataPortSamplerCache | Sfid::DataPortConstantCache) => w.put(&format!(
            " (bti {bti}, msg_ctrl {msg_ctrl}, msg_type {msg_type}, write_commit 0)"
        )),
        Some(Sfid::DataPortRenderCache) => {
            let t = bits(desc, 17, 14);
            if t == 12 {
                w.put(&format!(
                    " RT write {}",
                    RT_SUBTYPE[bits(desc, 10, 8) as usize]
                ));
                if bits(desc, 11, 11) != 0 {
                    w.put(" Hi");
                }
                if bits(desc, 12, 12) != 0 {
                    w.put(" LastRT");
                }
                if bits(desc, 18, 18) != 0 {
                    w.put(" CoarseWrite");
                }
            } else {
                let name = match t {
                    13 => " RT read",
                    _ => "",
                };
                w.put(&format!("{name} MsgCtrl = 0x{}", bits(desc, 13, 8)));
            }
            w.put(&format!(" Surface = {bti}"));
        }
        Some(Sfid::Urb) => {
            let op = bits(desc, 3, 0);
            w.put(&format!(
                " offset {} {}",
                bits(desc, 14, 4),
                URB.get(op as usize).copied().unwrap_or("")
            ));
            if bits(desc, 17, 17) != 0 {
                w.put(" per-slot");
            }
            if op == 7 || op == 8 {
                if bits(desc, 15, 15) != 0 {
                    w.put(" masked");
                }
            } else if bits(desc, 15, 15) != 0 {
                w.put(" interleave");
            }
        }
        Some(Sfid::Gateway) => {
            const GW: [&str; 8] = [
                "open",
                "close",
                "forward msg",
                "get timestamp",
                "barrier msg",
                "update state",
                "mmio read/write",
                "",
            ];
            w.put(&format!(" ({})", GW[bits(desc, 2, 0) as usize]));
        }
        Some(Sfid::ThreadSpawner) => {}
        Some(Sfid::DataPortDataCache) => {
            let ctrl = match msg_type {
                6 => format!(" {}", AOP[(msg_ctrl & 0xf) as usize]),
                0 | 8 => format!(
                    "owords = {}, aligned = {}",
                    OWORDS.get((msg_ctrl & 7) as usize).copied().unwrap_or(""),
                    (msg_ctrl >> 3) & 3
                ),
                _ => msg_ctrl.to_string(),
            };
            w.put(&format!(
                " ({}, bti {bti}, {ctrl})",
                crate::disasm::DC_MESSAGES
                    .get(msg_type as usize)
                    .copied()
                    .unwrap_or("")
            ));
        }
        Some(Sfid::DataPortDataCache1) => {
            let simd_atomic = if msg_ctrl & 0x10 != 0 { 8 } else { 16 };
            let ctrl = match msg_type {
                2 | 6 | 11 => format!("SIMD{simd_atomic}, {}", AOP[(msg_ctrl & 0xf) as usize]),
                3 | 7 | 12 | 0x12 => format!(" {}", AOP[(msg_ctrl & 0xf) as usize]),
                1 | 9 | 5 | 13 | 0x19 | 0x11 => format!(
                    "SIMD{}, Mask = 0x{:x}",
                    ["4x2", "16", "8"]
                        .get((msg_ctrl >> 4) as usize)
                        .copied()
                        .unwrap_or(""),
                    msg_ctrl & 0xf
                ),
                0x1b | 0x1d => format!(
                    "SIMD{simd_atomic}, {}",
                    AOP_FLOAT
                        .get((msg_ctrl & 0xf) as usize)
                        .copied()
                        .unwrap_or("")
                ),
                0x14 | 0x15 => format!(
                    "owords = {}, aligned = {}",
                    OWORDS.get((msg_ctrl & 7) as usize).copied().unwrap_or(""),
                    (msg_ctrl >> 3) & 3
                ),
                _ => format!("0x{msg_ctrl:x}"),
            };
            w.put(&format!(
                " ({}, Surface = {bti}, {ctrl})",
                find(DC1, msg_type)
            ));
        }
        Some(Sfid::PixelInterpolator) => w.put(&crate::disasm::pixel_interpolator(desc)),
        _ => {
            let code = ins.sfid.map_or(0, |s| {
                super::codes::CODES
                    .sfid
                    .iter()
                    .find(|e| e.1 == s)
                    .map_or(8, |e| e.0)
            });
            w.put(&format!("unsupported shared function ID {code}"));
        }
    }
    w.put(&format!(" mlen {}", bits(desc, 28, 25)));
    if matches!(
        ins.opcode,
        crate::opcode::Opcode::Sends | crate::opcode::Opcode::Sendsc
    ) && ins.ex_desc_reg.is_none()
    {
        w.put(&format!(" ex_mlen {}", bits(ins.ex_desc, 9, 6)));
    }
    w.put(&format!(" rlen {}", bits(desc, 24, 20)));
}
