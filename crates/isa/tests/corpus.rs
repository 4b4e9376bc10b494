//! The oracle corpus (`tests/corpus/`, see DISASM_SYNTAX.md and the headers of the
//! `.pairs` files): every instruction Mesa 22.3's compiler emitted for the test clients,
//! with Mesa's own disassembly, and a broad set assembled by intel-gen4asm.

use gtsim_isa::gen7::decode::decode;
use gtsim_isa::gen7::encode::encode;

/// `(hex words, text)` pairs of a corpus file.
pub fn pairs(name: &str) -> Vec<(Vec<u8>, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && l.contains(" | "))
        .map(|l| {
            let (hex, txt) = l.split_once(" | ").unwrap();
            let bytes = hex
                .split_whitespace()
                .flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_le_bytes())
                .collect();
            (bytes, txt.to_string())
        })
        .collect()
}

fn round_trip(name: &str) -> usize {
    let mut bad = vec![];
    let all = pairs(name);
    for (bytes, text) in &all {
        // intel-gen4asm emits its Gen4/5 `do` (opcode 0x26) even for -g 7; Gen7 has no
        // such instruction (the corpus header says so), and decoding must refuse it.
        if text.starts_with("do(") {
            assert!(
                matches!(
                    decode(bytes),
                    Err(gtsim_isa::gen7::DecodeError::UnknownOpcode(0x26))
                ),
                "{text}"
            );
            continue;
        }
        match decode(bytes) {
            Ok((ins, len)) => {
                assert_eq!(len, bytes.len(), "{text}");
                match encode(&ins) {
                    Ok(b) if &b == bytes => {}
                    Ok(b) => bad.push(format!("{text}\n    mesa {bytes:02x?}\n    ours {b:02x?}")),
                    Err(e) => bad.push(format!("{text}: encode: {e}")),
                }
            }
            Err(e) => bad.push(format!("{text}: decode: {e}")),
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} instructions of {name} do not round-trip:\n{}",
        bad.len(),
        all.len(),
        bad.join("\n")
    );
    all.len()
}

#[test]
fn mesa_instructions_decode_and_reencode_bit_exactly() {
    let n = round_trip("all.pairs");
    assert!(n > 600, "{n}");
}

#[test]
fn gen4asm_instructions_decode_and_reencode_bit_exactly() {
    let n = round_trip("gen4asm.pairs");
    assert!(n > 150, "{n}");
}
