//! Hostile assembly text: every input here is refused with a typed error naming its line,
//! never a panic and never a silently truncated field.

use gtsim_isa::asm::{AsmError, Compaction, assemble};

fn refused(line2: &str) -> AsmError {
    // A good first line, so the error must name line 2.
    let text = format!("mov(8) g2<1>F g3<8,8,1>F {{ align1 1Q }};\n{line2}\n");
    match assemble(&text, Compaction::Never) {
        Ok(b) => panic!("`{line2}` was accepted: {b:02x?}"),
        Err(e) => {
            assert_eq!(e.line, 2, "`{line2}`: {e}");
            e
        }
    }
}

#[test]
fn malformed_predicates_and_registers_are_errors() {
    for t in [
        "() mov(8) g2<1>F g3<8,8,1>F { align1 1Q };",
        "(é) mov(8) g2<1>F g3<8,8,1>F { align1 1Q };",
        "(+é0.0) mov(8) g2<1>F g3<8,8,1>F { align1 1Q };",
        "(+f0.0.é) mov(8) g2<1>F g3<8,8,1>F { align1 1Q };",
        "mov(8) g[a0.é]<1>F g3<8,8,1>F { align1 1Q };",
        "mov(8) g[é]<1>F g3<8,8,1>F { align1 1Q };",
        "mov(8) g[a0]>1<F g3<8,8,1>F { align1 1Q };",
        "mov(8) g2<1>F g[a0]>8,8,1<F { align1 1Q };",
        "mov(8) g2<1>F g3<8,8,1>F { align1 0Q };",
        "mov(8) g2<1>F g3<8,8,1>F { align1 0N };",
        "mov(8) g2<1>F g3<8,8,1>F { align1 9N };",
        "mov(8) g2<1>F g3<8,8,1>F { align1 éQ };",
    ] {
        refused(t);
    }
}

#[test]
fn values_that_do_not_fit_are_errors_not_truncations() {
    for t in [
        // Immediates wider than their type.
        "mov(8) g2<1>UW 0xa70fe9eaUW { align1 1Q };",
        "mov(8) g2<1>W 70000W { align1 1Q };",
        "mov(8) g2<1>UW -1UW { align1 1Q };",
        "mov(8) g2<1>D 9999999999D { align1 1Q };",
        "mov(8) g2<1>UD 0x1ffffffffUD { align1 1Q };",
        // Register numbers past their file.
        "mov(8) acc255<1>F g3<8,8,1>F { align1 1Q };",
        "mov(8) f16<1>UW g3<8,8,1>UW { align1 1Q };",
        "mov(8) g128<1>F g3<8,8,1>F { align1 1Q };",
        "mov(8) g[a0.8]<1>F g3<8,8,1>F { align1 1Q };",
        "mov(8) g[a0 600]<1>F g3<8,8,1>F { align1 1Q };",
        // Subregisters past the register (and large enough to overflow a multiply).
        "mov(8) g2.8<1>F g3<8,8,1>F { align1 1Q };",
        "mov(8) g2.64<1>F g3<8,8,1>F { align1 1Q };",
        "mov(8) g2<1>F g3.4294967295<8,8,1>F { align1 1Q };",
        "mov(8) g2.1<1>F g3<4>F { align16 1Q };",
        // Flag registers f0.0 .. f1.1 only.
        "cmp.l.f2.0(8) null<1>F g3<8,8,1>F g4<8,8,1>F { align1 1Q };",
        "cmp.l.f0.300(8) null<1>F g3<8,8,1>F g4<8,8,1>F { align1 1Q };",
        "cmp.l.f0(8) null<1>F g3<8,8,1>F g4<8,8,1>F { align1 1Q };",
        "(+f3.0) mov(8) g2<1>F g3<8,8,1>F { align1 1Q };",
        "(+f0.256) mov(8) g2<1>F g3<8,8,1>F { align1 1Q };",
        // The predicate and the conditional modifier share one flag field.
        "(+f1.0) cmp.l.f0.0(8) null<1>F g3<8,8,1>F g4<8,8,1>F { align1 1Q };",
        // Only src1 of a two-source instruction may be an immediate (found by fuzzing).
        "mul(8) acc0<1>UD 429496729UD 0xa8e83f57UD { align1 1Q };",
        // Jump targets are whole 8-byte units; descriptors keep bits 30:29 clear.
        "if(8) JIP: 5 UIP: 8 { align1 1Q };",
        "send(8) g2<1>UW g3<8,8,1>UD 0x6fffffff sampler { align1 1Q };",
    ] {
        refused(t);
    }
}

#[test]
fn the_limits_themselves_are_accepted() {
    for t in [
        "mov(8) g2<1>UW 0xffffUW { align1 1Q };",
        "mov(8) g2<1>W -32768W { align1 1Q };",
        "mov(8) g2<1>D -2147483648D { align1 1Q };",
        "mov(8) g127.7<1>F g3.7<0,1,0>F { align1 1Q };",
        "mov(8) g[a0.7 -512]<1>UB g3<8,8,1>UB { align1 1Q };",
        "(+f1.1) cmp.l.f1.1(8) null<1>F g3<8,8,1>F g4<8,8,1>F { align1 1Q };",
        "mov(8) acc1<1>F g3<8,8,1>F { align1 1Q };",
    ] {
        assemble(t, Compaction::Never).unwrap_or_else(|e| panic!("`{t}`: {e}"));
    }
}
