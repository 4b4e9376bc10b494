//! How a kernel is decoded for running (`Program::new`): it ends at an EOT send that no
//! earlier branch jumps past, so the next kernel of a driver's instruction heap is
//! neither decoded, nor compiled, nor counted.

use gtsim_eu::exec::Program;
use gtsim_isa::Encoding;
use gtsim_isa::asm::{Compaction, assemble};

const EOT: &str = "sendc(8) null<1>UW g124<8,8,1>UD 0x88031400
                            render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };\n";

fn decoded(text: &str) -> usize {
    let code = assemble(text, Compaction::Never).unwrap();
    Program::new(Encoding::IvyBridge, &code)
        .micro_op_coverage()
        .1
}

#[test]
fn a_kernel_ends_at_its_last_reachable_eot() {
    // Two instructions, the EOT, then another kernel of three: three decoded.
    let next = "mov(8) g10<1>F 0x3f800000F { align1 1Q };\n".repeat(3);
    let text = format!("mov(8) g2<1>F g3<8,8,1>F {{ align1 1Q }};\n{EOT}{next}");
    assert_eq!(decoded(&text), 2);
    // An `if` whose JIP lies past an EOT inside its block: decoding goes on to the
    // `endif` and the second EOT (the instructions after that one are not decoded).
    let text = format!(
        "cmp.l.f0.0(8) null<1>F g2<8,8,1>F g3<8,8,1>F {{ align1 1Q }};\n\
         (+f0.0) if(8) JIP: ENDIF UIP: ENDIF {{ align1 1Q }};\n{EOT}\
         ENDIF:\nendif(8) JIP: AFTER {{ align1 1Q }};\nAFTER:\n{EOT}{next}"
    );
    assert_eq!(decoded(&text), 5);
}

fn alike_from(text: &str) -> Option<usize> {
    let code = assemble(text, Compaction::Never).unwrap();
    Program::new(Encoding::IvyBridge, &code).alike_from()
}

/// `Program::alike_from`: the lowest register a kernel reads, when nothing else a thread
/// may differ in reaches it (`crate::invariant`). Expected values worked from the
/// kernels' operands by hand.
#[test]
fn threads_are_alike_above_the_lowest_register_read() {
    // BLORP's clear (crocus, Mesa 22.3): the colour from g2, a replicated-data write.
    let clear = "mov(4) g114<1>UD g2.3<8,2,4>UD { align1 WE_all 1N };\n\
                 sendc(16) null<1>UW g114<8,8,1>F 0x82031100\n\
                 render MsgDesc: RT write SIMD16/RepData LastRT Surface = 0 mlen 1 rlen 0 { align1 1H EOT };\n";
    assert_eq!(alike_from(clear), Some(2));
    // The payload of the write counts as read: g124 up.
    assert_eq!(alike_from(EOT), Some(124));
    // A source below, even one a later instruction reads after writing it.
    let text = format!(
        "mov(8) g1<1>F g0<8,8,1>F {{ align1 1Q }};\nmov(8) g124<1>F g1<8,8,1>F {{ align1 1Q }};\n{EOT}"
    );
    assert_eq!(alike_from(&text), Some(0));
    // Indirect sources may read anything.
    let text = format!("mov(8) g124<1>F g[a0.0]<8,8,1>F {{ align1 1Q }};\n{EOT}");
    assert_eq!(alike_from(&text), None);
    // A message with a response: what comes back may differ from thread to thread.
    let text = format!(
        "send(8) g10<1>UW g20<8,8,1>F 0x04420001\n\
         sampler MsgDesc: sample SIMD8 Surface = 1 Sampler = 0 mlen 2 rlen 4 {{ align1 1Q }};\n{EOT}"
    );
    assert_eq!(alike_from(&text), None);
    // The same send without a response reads only from its payload up.
    let text = text
        .replace("0x04420001", "0x04020001")
        .replace("rlen 4", "rlen 0");
    assert_eq!(alike_from(&text), Some(20));
    // Structured branches stay inside the decode; `jmpi` may go anywhere.
    let text = format!(
        "cmp.l.f0.0(8) null<1>F g30<8,8,1>F g31<8,8,1>F {{ align1 1Q }};\n\
         (+f0.0) if(8) JIP: ENDIF UIP: ENDIF {{ align1 1Q }};\n\
         mov(8) g124<1>F g40<8,8,1>F {{ align1 1Q }};\n\
         ENDIF:\nendif(8) JIP: AFTER {{ align1 1Q }};\nAFTER:\n{EOT}"
    );
    assert_eq!(alike_from(&text), Some(30));
    let text = format!("jmpi(1) 16D {{ align1 WE_all 1N }};\n{EOT}");
    assert_eq!(alike_from(&text), None);
}

fn read(text: &str) -> Vec<usize> {
    let code = assemble(text, Compaction::Never).unwrap();
    Program::new(Encoding::IvyBridge, &code)
        .read_registers()
        .iter()
        .collect()
}

/// `Program::read_registers`: the registers a kernel's sources and payloads can read,
/// worked from the operands by hand (each direct source at least four registers from
/// its first, for a compressed instruction's second half), or all of them when the
/// kernel may run code it did not decode.
#[test]
fn the_registers_a_kernel_reads() {
    // BLORP's clear: g2.3<8,2,4>UD over 4 channels spans bytes 76..128 (two rows of two
    // dwords, rows 32 bytes apart, columns 16): g2-g3, at least g2-g5; the replicated
    // write's one payload register g114.
    let clear = "mov(4) g114<1>UD g2.3<8,2,4>UD { align1 WE_all 1N };\n\
                 sendc(16) null<1>UW g114<8,8,1>F 0x82031100\n\
                 render MsgDesc: RT write SIMD16/RepData LastRT Surface = 0 mlen 1 rlen 0 { align1 1H EOT };\n";
    assert_eq!(read(clear), [2, 3, 4, 5, 114]);
    // A SIMD16 float source <8;8,1> from g40.0 spans g40-g41; the payload g124-g127.
    let text = format!("mov(16) g10<1>F g40<8,8,1>F {{ align1 1H }};\n{EOT}");
    assert_eq!(read(&text), [40, 41, 42, 43, 124, 125, 126, 127]);
    // <16;8,2> over 16 dwords: two rows of eight at stride 2, 16 dwords apart, the last
    // at 16 x 4 + 7 x 8 = 120 bytes, ending at 124: g60-g63;
    // a scalar g70.1<0;1,0> reads one dword, counted as four registers.
    let text = format!("add(16) g10<1>F g60<16,8,2>F g70.1<0,1,0>F {{ align1 1H }};\n{EOT}");
    assert_eq!(
        read(&text),
        [60, 61, 62, 63, 70, 71, 72, 73, 124, 125, 126, 127]
    );
    // Indirect sources, and a kernel that may jump where it was not decoded: all.
    let text = format!("mov(8) g10<1>F g[a0.0]<8,8,1>F {{ align1 1Q }};\n{EOT}");
    assert_eq!(read(&text).len(), 128);
    let text = format!("jmpi(1) 16D {{ align1 WE_all 1N }};\n{EOT}");
    assert_eq!(read(&text).len(), 128);
}
