//! Agreement with Mesa's own Gen11 assembler tests (`src/intel/tools/tests/gen11/*.asm`
//! with the `.expected` hex bytes of each instruction: cr0, rol, ror). The files are not
//! part of gtsim: point `GTSIM_MESA_TESTS_GEN11` at a directory holding them, or put them
//! in `/tmp/mesa-gen11` (`git -C <mesa> show HEAD:src/intel/tools/tests/gen11/rol.asm`).
//! Without them the test prints a note and passes.
//!
//! For every file: the text assembles (no compaction, as i965_asm does) to exactly Mesa's
//! bytes, and Mesa's bytes disassemble back to Mesa's text.

use gtsim_isa::Encoding;
use gtsim_isa::asm::{Compaction, assemble_for};
use gtsim_isa::disasm::disassemble_for;
use std::path::PathBuf;

fn mesa_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GTSIM_MESA_TESTS_GEN11")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/mesa-gen11"));
    dir.join("rol.asm").is_file().then_some(dir)
}

#[test]
fn mesa_gen11_assembler_tests_agree() {
    let Some(dir) = mesa_dir() else {
        assert!(
            std::env::var_os("GTSIM_REQUIRE_MESA_TESTS").is_none(),
            "GTSIM_REQUIRE_MESA_TESTS is set and Mesa's gen11 assembler tests are not found \
             (scripts/mesa-tests-debian.sh fetches them)"
        );
        eprintln!(
            "note: Mesa's gen11 assembler tests not found (set GTSIM_MESA_TESTS_GEN11 or \
             extract them to /tmp/mesa-gen11); skipped"
        );
        return;
    };
    let mut checked = 0;
    let mut bad = vec![];
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("readable directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    files.sort();
    for asm in files {
        let text = std::fs::read_to_string(&asm).expect("readable .asm");
        let expected = std::fs::read_to_string(asm.with_extension("expected"))
            .expect("every .asm has its .expected");
        let want: Vec<u8> = expected
            .split_whitespace()
            .map(|h| u8::from_str_radix(h, 16).expect("hex byte"))
            .collect();
        match assemble_for(Encoding::IceLake, &text, Compaction::Never) {
            Ok(b) if b == want => {}
            Ok(b) => bad.push(format!("{}: ours {b:02x?}", asm.display())),
            Err(e) => bad.push(format!("{}: {e}", asm.display())),
        }
        match disassemble_for(Encoding::IceLake, &want) {
            Ok(lines) => {
                let mesa: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
                if lines != mesa {
                    bad.push(format!("{}: disassembly {lines:#?}", asm.display()));
                }
            }
            Err(e) => bad.push(format!("{}: decode: {e}", asm.display())),
        }
        checked += 1;
    }
    eprintln!("Mesa gen11 assembler tests: {checked} files checked");
    assert!(checked >= 3, "{checked}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
