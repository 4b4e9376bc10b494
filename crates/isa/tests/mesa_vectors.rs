//! Hand-worked encodings for the fields Mesa's compiler sets but the text does not show,
//! and for the disassembler's message names. Each byte string below was worked out by
//! hand from the field positions of `defs/gen7/eu.spec` (EU_INSTRUCTION_BRANCH, _SEND,
//! _ALIGN16_2SRC) and `defs/gen7/messages.spec`; the derivation is in the comments.
//! They agree with the shape of Mesa's own test bytes (src/intel/tools/tests/gen7),
//! which `mesa_asm.rs` checks in full when those files are present.

use gtsim_isa::asm::{Compaction, assemble};
use gtsim_isa::disasm::disassemble;

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|h| u8::from_str_radix(h, 16).unwrap())
        .collect()
}

/// Assembles `text` without compaction, checks the bytes, and checks that the bytes
/// disassemble and assemble back to themselves.
fn check(text: &str, bytes: &str) {
    let want = hex(bytes);
    let got = assemble(text, Compaction::Never).unwrap();
    assert_eq!(got, want, "{text}");
    let back = disassemble(&want).unwrap().join("\n");
    assert_eq!(
        assemble(&back, Compaction::AsWritten).unwrap(),
        want,
        "{back}"
    );
}

#[test]
fn align1_if_has_a_w_immediate_and_a_scalar_null_src0() {
    // dw0 0x00610022: opcode 0x22, pred control 1 (19:16), exec size 8 = code 3 (23:21).
    // dw1 0x20003c84: dst ARF:D (type 1 at 4:2), src0 ARF:D (9:7), src1 IMM (11:10 = 3)
    // of type W (14:12 = 3), dst hstride 1 (30:29 = 1). dw2 0: src0 null<0,1,0>.
    // dw3 0x00020002: JIP = UIP = 16 bytes = 2 units of 8.
    check(
        "(+f0.0) if(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };\nLABEL0:\n",
        "22 00 61 00 84 3c 00 20 00 00 00 00 02 00 02 00",
    );
}

#[test]
fn align1_else_has_a_w_immediate_and_a_null_881_src0() {
    // dw2 0x008d0000: src0 <8,8,1> = vstride code 4 (24:21), width code 3 (20:18),
    // hstride code 1 (17:16). dw3: JIP 2 units, no UIP.
    check(
        "else(8) JIP: LABEL0 { align1 1Q };\nLABEL0:\n",
        "24 00 60 00 84 3c 00 20 00 00 8d 00 02 00 00 00",
    );
}

#[test]
fn align16_break_has_a_write_mask_and_an_identity_swizzle() {
    // dw0 0x00600128: opcode 0x28, Access Mode (bit 8) align16, exec size 8.
    // dw1 0x200f1c84: src1 IMM type D (14:12 = 1), dst write mask xyzw (19:16 = 0xf).
    // dw2 0x006e0004: src0 vstride 4 = code 3 (24:21), swizzle x=0 (1:0), y=1 (3:2),
    // z=2 (17:16), w=3 (19:18).
    check(
        "break(8) JIP: LABEL0 UIP: LABEL0 { align16 1Q };\nLABEL0:\n",
        "28 01 60 00 84 1c 0f 20 04 00 6e 00 02 00 02 00",
    );
}

#[test]
fn align16_wait_reads_its_channel_and_a_null_src1() {
    // dw0 0x00000330: opcode 0x30, align16 (bit 8), WE_all (bit 9), exec size 1.
    // dw1 0x32027000: dst n0 = ARF 0x90 (28:21), write mask y (19:16 = 2), hstride 1;
    // src1 ARF of type F (14:12 = 7); every file ARF and other type UD.
    // dw2 0x00051205: src0 n0 (12:5 = 0x90), swizzle yyyy (1 in each channel select).
    // dw3 0x006e0004: src1 null, vstride 4, swizzle xyzw.
    check(
        "wait(1) n0<1>.yUD { align16 WE_all 1N };\n",
        "30 03 00 00 00 70 02 32 05 12 05 00 04 00 6e 00",
    );
}

#[test]
fn send_with_its_descriptor_in_a0() {
    // dw0 0x02600031: opcode send, exec size 8, shared function sampler (27:24 = 2).
    // dw1 0x2f800029: dst g124 (28:21) GRF:UW, src0 GRF:UD, src1 ARF:UD.
    // dw2 0x008d00e0: src0 g7 (12:5) <8,8,1>. dw3 0x00000200: src1 a0 = ARF 0x10 at
    // 12:5, region <0,1,0>: the number Mesa prints after the register.
    let text = "send(8) g124<1>UW g7<8,8,1>UD a0<0,1,0>UD 0x00000200\n\
                sampler MsgDesc: indirect { align1 1Q };\n";
    check(text, "31 00 60 02 29 00 80 2f e0 00 8d 00 00 02 00 00");
    let lines = disassemble(&hex("31 00 60 02 29 00 80 2f e0 00 8d 00 00 02 00 00")).unwrap();
    assert!(
        lines[0].contains("a0<0,1,0>UD     0x00000200\n"),
        "{}",
        lines[0]
    );
    // A number that is not the register's encoding is refused, not silently dropped.
    let wrong = text.replace("0x00000200", "0x00000201");
    let e = assemble(&wrong, Compaction::Never).unwrap_err();
    assert_eq!(e.line, 1);
    assert!(
        e.msg.contains(
            "descriptor dword 0x00000201 does not match its register operand (0x00000200)"
        ),
        "{}",
        e.msg
    );
}

#[test]
fn a_branch_target_one_past_the_end_gets_its_label() {
    let lines = disassemble(&hex("24 00 60 00 84 3c 00 20 00 00 8d 00 02 00 00 00")).unwrap();
    assert_eq!(
        lines.last().map(String::as_str),
        Some("LABEL0:"),
        "{lines:?}"
    );
    assert!(lines[0].contains("JIP:  LABEL0"), "{lines:?}");
}

/// The disassembly of `send(8) g2<1>UW g4<8,8,1>UD` to `sfid` with descriptor `desc`.
fn send_text(sfid: u8, desc: u32) -> String {
    let mut b = hex("31 00 60 00 29 00 40 20 80 00 8d 00");
    b[3] = sfid;
    b[5] |= 0x0c; // src1 IMM (dw1 11:10)
    b.extend(desc.to_le_bytes());
    disassemble(&b).unwrap().join("\n")
}

#[test]
fn sampler_message_names_follow_the_spec_table() {
    // Sampler descriptor: mlen 4 (28:25), rlen 4 (24:20), SIMD8 (18:17 = 1), message
    // type at 16:12, surface 1: 0x08420001 | type << 12. Names: seed 000 §2.13.1.3.1.
    for (ty, name) in [
        (9, "lod"),
        (12, "sample+killpix"),
        (16, "gather4_c"),
        (17, "gather4_po"),
        (18, "gather4_po_c"),
        (20, "sample_d_c"),
        (29, "ld_mcs"),
        (30, "ld2dms"),
        (31, "ld2dss"),
    ] {
        let t = send_text(2, 0x0842_0001 | ty << 12);
        assert!(
            t.contains(&format!(
                "sampler MsgDesc: {name} SIMD8 Surface = 1 Sampler = 0"
            )),
            "type {ty}: {t}"
        );
    }
}

#[test]
fn untyped_atomics_print_their_operation() {
    // Data cache (SFID 10), message type 6 (17:14), SIMD8 (12), AOP_ADD = 7 (11:8),
    // surface 1, mlen 2, rlen 1: 0x04119701.
    // Mesa 22.3's INTEL_DEBUG dump of crocus's shared-memory atomics prints
    // "(DC untyped atomic, bti 254,  umax)": its `control` helper adds a space before
    // the operation after the message type, so two spaces follow the comma.
    let t = send_text(10, 0x0411_9701);
    assert!(t.contains("(DC untyped atomic, bti 1,  add)"), "{t}");
    // OWord block writes print their size as Mesa 22.3 does in crocus's spills:
    // "(DC OWORD block write, bti 255, owords = 2, aligned = 0)" (descriptor 0x040a02ff).
    let t = send_text(10, 0x040a_02ff);
    assert!(
        t.contains("(DC OWORD block write, bti 255, owords = 2, aligned = 0)"),
        "{t}"
    );
    // Other data-cache messages keep the message control number.
    let t = send_text(10, 0x0411_5301); // untyped surface read, msg control 0x13
    assert!(t.contains("(DC untyped surface read, bti 1, 19)"), "{t}");
}

/// Pixel interpolator sends as Mesa 22.3 prints them (`INTEL_DEBUG=fs` of piglit's
/// arb_gpu_shader5-interpolateAtOffset on crocus, SIMD8 and SIMD16): the text assembles,
/// and disassembles back to the same text (whitespace aside).
#[test]
fn pixel_interpolator_sends_print_as_mesa_prints_them() {
    let mesa = [
        "send(8)         g7<1>UW         g0<8,8,1>UD     0x02200008\n                            pixel interp MsgDesc: (persp, per_message_offset, 0x08) mlen 1 rlen 2 { align1 1Q };",
        "send(16)        g19<1>UW        g0<8,8,1>UD     0x02410008\n                            pixel interp MsgDesc: (persp, per_message_offset, 0x08) mlen 1 rlen 4 { align1 1H };",
    ];
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    for text in mesa {
        let bytes = assemble(text, Compaction::Never).unwrap();
        let back = disassemble(&bytes).unwrap().join("\n");
        assert_eq!(words(&back), words(text));
    }
}
