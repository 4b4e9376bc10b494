//! The Gen11 oracle corpus (`tests/corpus/gen11/all.pairs`): every instruction Mesa 22.3.6
//! (iris, Ice Lake) compiled for the gtsim test programs, with Mesa's own bytes and
//! disassembly. Each must decode, print exactly Mesa's text, encode back to Mesa's bytes
//! (compacted ones to the same compacted bytes), and Mesa's text must assemble to Mesa's
//! bytes.

use gtsim_isa::Encoding;
use gtsim_isa::asm::{Compaction, assemble_for};

/// One instruction of the corpus: its bytes, Mesa's text, the label lines before it.
type Entry = (Vec<u8>, String, Vec<String>);

/// The corpus, grouped by kernel.
fn kernels() -> Vec<Vec<Entry>> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/gen11/all.pairs");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out: Vec<Vec<Entry>> = vec![];
    let mut labels = vec![];
    for l in text.lines() {
        if l.starts_with("# shader:") {
            out.push(vec![]);
            continue;
        }
        if let Some(lab) = l
            .strip_prefix("# ")
            .filter(|s| s.starts_with("LABEL") && s.ends_with(':'))
        {
            labels.push(lab.to_string());
            continue;
        }
        if l.starts_with('#') || !l.contains(" | ") {
            continue;
        }
        let (hex, txt) = l.split_once(" | ").unwrap();
        let bytes = hex
            .split_whitespace()
            .flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_le_bytes())
            .collect();
        out.last_mut()
            .expect("instructions follow a '# shader:' line")
            .push((bytes, txt.replace("\\n", "\n"), std::mem::take(&mut labels)));
    }
    out
}

#[test]
fn gen11_corpus_round_trips_bytes() {
    let enc = Encoding::IceLake;
    let mut bad = vec![];
    let mut n = 0;
    for k in kernels() {
        for (bytes, text, _) in &k {
            n += 1;
            match enc.decode(bytes) {
                Ok((ins, len)) => {
                    assert_eq!(len, bytes.len(), "{text}");
                    match enc.encode(&ins) {
                        Ok(b) if &b == bytes => {}
                        Ok(b) => {
                            bad.push(format!("{text}\n    mesa {bytes:02x?}\n    ours {b:02x?}"))
                        }
                        Err(e) => bad.push(format!("{text}: encode: {e}")),
                    }
                }
                Err(e) => bad.push(format!("{text}: decode: {e}")),
            }
        }
    }
    assert_eq!(n, 1361);
    assert!(bad.is_empty(), "{} of {n}:\n{}", bad.len(), bad.join("\n"));
}

/// Decodes a kernel's instructions with their byte offsets.
fn decode_kernel(k: &[Entry]) -> Vec<(usize, gtsim_isa::ir::Instruction)> {
    let mut off = 0;
    k.iter()
        .map(|(bytes, text, _)| {
            let (ins, len) = Encoding::IceLake
                .decode(bytes)
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            off += len;
            (off - len, ins)
        })
        .collect()
}

#[test]
fn gen11_corpus_disassembles_to_mesa_text() {
    let enc = Encoding::IceLake;
    let mut bad = vec![];
    let mut n = 0;
    for k in kernels() {
        let decoded = decode_kernel(&k);
        let labels = gtsim_isa::disasm::labels_for(enc, &decoded);
        for ((off, ins), (_, text, before)) in decoded.iter().zip(&k) {
            n += 1;
            let ours = gtsim_isa::disasm::format_for(enc, ins, *off, &labels);
            if &ours != text {
                bad.push(format!("mesa `{text}`\nours `{ours}`"));
            }
            // The label lines Mesa printed before this instruction.
            let want: Vec<String> = labels
                .iter()
                .filter(|(t, _)| *t == off)
                .map(|(_, l)| format!("LABEL{l}:"))
                .collect();
            if !before.is_empty() && &want != before {
                bad.push(format!(
                    "labels before `{text}`: mesa {before:?}, ours {want:?}"
                ));
            }
        }
    }
    assert_eq!(n, 1361);
    assert!(bad.is_empty(), "{} of {n}:\n{}", bad.len(), bad.join("\n"));
}

/// Mesa's text of each kernel (labels included) assembles to Mesa's bytes, compacted where
/// the text says so; instruction by instruction where a kernel differs.
#[test]
fn gen11_corpus_text_assembles_to_mesa_bytes() {
    let mut bad = vec![];
    let mut n = 0;
    for k in kernels() {
        let mut text = String::new();
        let mut want = vec![];
        for (bytes, t, before) in &k {
            for l in before {
                text.push_str(&format!("{l}\n"));
            }
            text.push_str(t);
            text.push('\n');
            want.extend_from_slice(bytes);
        }
        n += k.len();
        match assemble_for(Encoding::IceLake, &text, Compaction::AsWritten) {
            Ok(b) if b == want => {}
            Ok(b) => {
                let mut off = 0;
                for (bytes, t, _) in &k {
                    let got = b.get(off..off + bytes.len()).unwrap_or(&[]);
                    if got != bytes.as_slice() {
                        bad.push(format!("{t}\n    mesa {bytes:02x?}\n    ours {got:02x?}"));
                        break;
                    }
                    off += bytes.len();
                }
            }
            Err(e) => bad.push(format!("{e}")),
        }
    }
    assert_eq!(n, 1361);
    assert!(bad.is_empty(), "{}:\n{}", bad.len(), bad.join("\n"));
}
