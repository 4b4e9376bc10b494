//! Agreement with Mesa's own assembler tests (`src/intel/tools/tests/gen7/*.asm` with the
//! `.expected` hex bytes of each instruction). The files are not part of gtsim: point
//! `GTSIM_MESA_TESTS` at a directory holding them (`scripts/mesa-asm-check.sh` extracts
//! them from a Mesa git directory), or put them in `/tmp/mesa-gen7`. Without them the test
//! prints a note and passes.
//!
//! Checked for every file: the text assembles (`Compaction::Never`, as `gtsim asm
//! --no-compact`) to exactly Mesa's bytes; Mesa's bytes disassemble and assemble back
//! unchanged; and the sampler message names and untyped atomic operations the
//! disassembler prints are the ones Mesa's text gives.

use gtsim_isa::asm::{Compaction, assemble};
use gtsim_isa::disasm::disassemble;
use std::path::PathBuf;

fn mesa_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GTSIM_MESA_TESTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/mesa-gen7"));
    dir.join("add.asm").is_file().then_some(dir)
}

fn hex_lines(text: &str) -> Vec<Vec<u8>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .map(|h| u8::from_str_radix(h, 16).expect("hex byte in .expected"))
                .collect()
        })
        .collect()
}

/// The words following `key` in each line of `text` that has it (message names).
fn names_after(text: &str, key: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.split_once(key))
        .map(|(_, r)| r.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

/// Untyped atomic operations, from either syntax: `( DC untyped atomic, 1,  add)` (Mesa)
/// or `(DC untyped atomic, bti 1,  add)` (gtsim, as Mesa 22.3 prints it): the last word
/// before `)`.
fn atomics(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.split_once("untyped atomic,"))
        .map(|(_, r)| {
            let inner = r.split(')').next().unwrap_or("");
            inner.rsplit(',').next().unwrap_or("").trim().to_string()
        })
        .collect()
}

#[test]
fn mesa_gen7_assembler_tests_agree() {
    let Some(dir) = mesa_dir() else {
        assert!(
            std::env::var_os("GTSIM_REQUIRE_MESA_TESTS").is_none(),
            "GTSIM_REQUIRE_MESA_TESTS is set and Mesa's gen7 assembler tests are not found \
             (scripts/mesa-tests-debian.sh fetches them)"
        );
        eprintln!(
            "note: Mesa's gen7 assembler tests not found (set GTSIM_MESA_TESTS or run \
             scripts/mesa-asm-check.sh); skipped"
        );
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read the Mesa test directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    files.sort();
    let (mut n_files, mut n_ins, mut problems) = (0, 0, Vec::new());
    for asm_path in &files {
        let name = asm_path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(asm_path).unwrap();
        let expected =
            hex_lines(&std::fs::read_to_string(asm_path.with_extension("expected")).unwrap());
        let mesa_bytes: Vec<u8> = expected.concat();
        n_files += 1;
        n_ins += expected.len();
        match assemble(&text, Compaction::Never) {
            Ok(b) if b == mesa_bytes => {}
            Ok(b) => {
                let first = b
                    .chunks(16)
                    .zip(&expected)
                    .position(|(a, e)| a != e.as_slice())
                    .unwrap_or(expected.len());
                problems.push(format!(
                    "{name}: assembles differently from instruction {first}"
                ));
            }
            Err(e) => problems.push(format!("{name}: {e}")),
        }
        match disassemble(&mesa_bytes) {
            Ok(lines) => {
                let ours = lines.join("\n");
                match assemble(&ours, Compaction::AsWritten) {
                    Ok(b) if b == mesa_bytes => {}
                    Ok(_) => problems.push(format!("{name}: disasm -> asm changes the bytes")),
                    Err(e) => problems.push(format!("{name}: disasm -> asm: {e}")),
                }
                if names_after(&ours, "sampler MsgDesc:") != names_after(&text, "sampler MsgDesc:")
                {
                    problems.push(format!("{name}: sampler message names differ from Mesa's"));
                }
                if atomics(&ours) != atomics(&text) {
                    problems.push(format!(
                        "{name}: untyped atomic operations differ from Mesa's"
                    ));
                }
            }
            Err(e) => problems.push(format!("{name}: Mesa's bytes do not decode: {e}")),
        }
    }
    eprintln!(
        "Mesa gen7 assembler tests in {}: {n_files} files, {n_ins} instructions, {} problem(s)",
        dir.display(),
        problems.len()
    );
    assert!(n_files > 0, "no .asm files in {}", dir.display());
    // Debian 12's Mesa source package (what CI fetches, scripts/mesa-tests-debian.sh)
    // holds 44 gen7 tests: fewer means the fetch or the extraction lost some.
    if std::env::var_os("GTSIM_REQUIRE_MESA_TESTS").is_some() {
        assert!(
            n_files >= 44,
            "only {n_files} of Mesa's 44 gen7 assembler tests in {}",
            dir.display()
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
