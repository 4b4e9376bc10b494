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
