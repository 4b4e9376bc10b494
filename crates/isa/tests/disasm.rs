//! gtsim's disassembly against Mesa 22.3's, line by line, for every kernel crocus compiled
//! for the test clients (tests/corpus/all.pairs; labels included).

use gtsim_isa::disasm::disassemble;

/// Kernels of a pairs file: (name, bytes, expected lines incl. "LABELn:").
fn kernels(name: &str) -> Vec<(String, Vec<u8>, Vec<String>)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name);
    let text = std::fs::read_to_string(path).unwrap();
    let mut out: Vec<(String, Vec<u8>, Vec<String>)> = vec![];
    for l in text.lines() {
        if let Some(s) = l.strip_prefix("# shader: ") {
            out.push((s.to_string(), vec![], vec![]));
        } else if let Some(lab) = l.strip_prefix("# ").filter(|x| x.starts_with("LABEL")) {
            if let Some(k) = out.last_mut() {
                k.2.push(String::new());
                k.2.push(lab.to_string());
            }
        } else if !l.starts_with('#')
            && let (Some(k), Some((hex, txt))) = (out.last_mut(), l.split_once(" | "))
        {
            k.1.extend(
                hex.split_whitespace()
                    .flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_le_bytes()),
            );
            k.2.push(txt.replace("\\n", "\n"));
        }
    }
    out
}

#[test]
fn every_mesa_kernel_disassembles_exactly_as_mesa_prints_it() {
    let ks = kernels("all.pairs");
    assert!(ks.len() >= 15);
    let mut bad = vec![];
    let mut lines = 0;
    for (name, bytes, want) in &ks {
        let got = disassemble(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        lines += want.len();
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            if g != w {
                bad.push(format!("{name} line {i}:\n  mesa  {w:?}\n  gtsim {g:?}"));
            }
        }
        if got.len() != want.len() {
            bad.push(format!(
                "{name}: {} lines, Mesa has {}",
                got.len(),
                want.len()
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {lines} lines differ:\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn every_mesa_kernel_reassembles_to_the_same_bytes() {
    use gtsim_isa::asm::{Compaction, assemble};
    let mut bad = vec![];
    for (name, bytes, _) in kernels("all.pairs") {
        let text = disassemble(&bytes).unwrap().join("\n");
        match assemble(&text, Compaction::AsWritten) {
            Ok(b) if b == bytes => {}
            Ok(b) => {
                // Find the first differing instruction for the report.
                let lines: Vec<&str> = text.lines().filter(|l| l.ends_with(';')).collect();
                let mut off = 0;
                for l in lines {
                    let len = if l.contains("compacted") { 8 } else { 16 };
                    if b.get(off..off + len) != bytes.get(off..off + len) {
                        bad.push(format!(
                            "{name}: {l}\n    mesa {:02x?}\n    asm  {:02x?}",
                            &bytes[off..off + len],
                            b.get(off..off + len)
                        ));
                        break;
                    }
                    off += len;
                }
            }
            Err(e) => bad.push(format!("{name}: {e}")),
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
