//! Seeded random testing ("fuzzing" on stable Rust, no extra tools) of the paths that read
//! untrusted input: the instruction decoder, the disassembler and the assembler.
//!
//! * random and mutated instruction bytes: decoding never panics; whatever decodes and
//!   encodes, re-decodes to the same IR, and its text assembles back to the same bytes;
//! * random and mutated assembly text: assembling never panics (errors are fine).
//!
//! Each test also requires both of its outcomes (instructions decoded and refused, texts
//! assembled and refused, kernels listed whole and stopped at a bad instruction), each
//! reached hundreds of times in a default run whatever the seed.
//!
//! Cases per test: `GTSIM_FUZZ_CASES` (default a few thousand, a few seconds in a debug
//! build); seed: `GTSIM_FUZZ_SEED` (default fixed, so the default run is reproducible).
//! docs/FUZZING.md lists the campaigns run and what they found.

use gtsim_fuzzkit::{Rng, env_u64};
use gtsim_isa::asm::{Compaction, assemble};
use gtsim_isa::disasm;
use gtsim_isa::gen7::decode::decode;
use gtsim_isa::gen7::encode::encode;
use gtsim_isa::opcode::Kind;
use std::panic::{AssertUnwindSafe, catch_unwind};

fn cases(default: u64) -> u64 {
    env_u64("GTSIM_FUZZ_CASES", default)
}

fn rng(salt: u64) -> Rng {
    Rng(env_u64("GTSIM_FUZZ_SEED", 0x6774_7369_6d00_0001) ^ salt | 1)
}

/// Instruction bytes from the committed corpora (Mesa 22.3 and intel-gen4asm), as seeds
/// for mutation: valid encodings whose neighbours are interesting.
fn corpus_instructions() -> Vec<Vec<u8>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");
    let mut out = vec![];
    for f in ["all.pairs", "gen4asm.pairs"] {
        let text = std::fs::read_to_string(format!("{dir}/{f}")).unwrap();
        for l in text.lines().filter(|l| !l.starts_with('#')) {
            let Some((hex, _)) = l.split_once(" | ") else {
                continue;
            };
            let words: Vec<u32> = hex
                .split_whitespace()
                .filter_map(|w| u32::from_str_radix(w, 16).ok())
                .collect();
            if words.len() == 2 || words.len() == 4 {
                out.push(words.iter().flat_map(|w| w.to_le_bytes()).collect());
            }
        }
    }
    assert!(out.len() > 500, "{} corpus instructions", out.len());
    out
}

/// Assembly lines from the corpora, as seeds for text mutation.
fn corpus_lines() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");
    let mut out = vec![];
    for f in ["all.pairs", "gen4asm.pairs"] {
        let text = std::fs::read_to_string(format!("{dir}/{f}")).unwrap();
        for l in text.lines().filter(|l| !l.starts_with('#')) {
            if let Some((_, t)) = l.split_once(" | ") {
                out.push(t.replace("\\n", "\n"));
            }
        }
    }
    out
}

fn mutate_bytes(r: &mut Rng, b: &mut [u8]) {
    for _ in 0..1 + r.below(4) {
        let i = r.below(b.len());
        match r.below(3) {
            0 => b[i] ^= 1 << r.below(8),
            1 => b[i] = r.next_u64() as u8,
            _ => b[i] = [0, 0xff, 0x80, 0x7f][r.below(4)],
        }
    }
}

/// What [`check_bytes`] found about bytes that passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Not an instruction (a typed decode error).
    Refused,
    /// Decoded; the text round trip gave the same bytes.
    Exact,
    /// Decoded, but the encoding sets fields the text does not show (src1 fields of a
    /// one-source instruction, the operands of a branch, the upper half of a 16-bit
    /// immediate, the low bits of `null`): the text round trip gives the bytes the
    /// assembler writes for that text instead, a fixed point in turn.
    Hidden,
    /// A compacted encoding whose hidden fields leave no compacted form for the same
    /// instruction: its text (`compacted`) is refused by the assembler with a typed error.
    NotRecompactable,
}

/// One instruction's bytes. Decoding must not panic. Whatever decodes must encode, and
/// re-decode to the same IR. Its text must be accepted by the assembler and be a fixed
/// point (assembling it and disassembling the result prints the same text), and the
/// assembler's bytes for it must survive disassemble -> assemble unchanged.
fn check_bytes(bytes: &[u8]) -> Result<Outcome, String> {
    let Ok((ins, len)) = decode(bytes) else {
        return Ok(Outcome::Refused);
    };
    if len > bytes.len() {
        return Err(format!("length {len} beyond {} bytes", bytes.len()));
    }
    let own = &bytes[..len];
    let enc = encode(&ins).map_err(|e| format!("decoded but cannot encode: {e}\n ir: {ins:?}"))?;
    if ins.compacted && enc.len() != 8 {
        return Ok(Outcome::NotRecompactable);
    }
    let (back, _) = decode(&enc).map_err(|e| format!("re-decode of our encoding: {e}"))?;
    if back != ins {
        return Err(format!(
            "decode(encode(ir)) != ir\n ir:   {ins:?}\n back: {back:?}"
        ));
    }
    let text = disasm::disassemble(own)
        .map_err(|e| format!("disassemble: {e}"))?
        .join("\n");
    let again = match assemble(&text, Compaction::AsWritten) {
        Ok(b) => b,
        // The assembler gives the fields the text does not show Mesa's values; when the
        // decoded instruction was compacted with other values, that form may have no
        // compacted encoding: a typed error, counted.
        Err(e) if ins.compacted && e.msg.contains("`compacted` asked for") => {
            return Ok(Outcome::NotRecompactable);
        }
        Err(e) => return Err(format!("our own text refused: {e}\n {text}\n ir: {ins:?}")),
    };
    let text2 = disasm::disassemble(&again)
        .map_err(|e| format!("our assembly does not decode: {e}\n {text}"))?
        .join("\n");
    if text2 != text {
        return Err(format!(
            "text changed by asm -> disasm\n before: {text}\n after:  {text2}\n ir: {ins:?}"
        ));
    }
    let third = assemble(&text2, Compaction::AsWritten)
        .map_err(|e| format!("our own text refused the second time: {e}\n {text2}"))?;
    if third != again {
        return Err(format!(
            "the assembler's bytes changed by disasm -> asm\n text: {text}\n want: {again:02x?}\n got:  {third:02x?}"
        ));
    }
    Ok(if again == own {
        Outcome::Exact
    } else {
        Outcome::Hidden
    })
}

fn run_bytes(label: &str, n: u64, mut gen_: impl FnMut(&mut Rng) -> Vec<u8>, salt: u64) {
    let mut r = rng(salt);
    let mut failures: std::collections::BTreeMap<String, (u64, String)> = Default::default();
    let mut outcomes: std::collections::BTreeMap<String, u64> = Default::default();
    for case in 0..n {
        let b = gen_(&mut r);
        let res = catch_unwind(AssertUnwindSafe(|| check_bytes(&b)))
            .unwrap_or_else(|_| Err("PANIC".into()));
        if let Ok(o) = res {
            *outcomes.entry(format!("{o:?}")).or_default() += 1;
        }
        if let Err(e) = res {
            if let Some(log) = std::env::var_os("GTSIM_FUZZ_LOG") {
                use std::io::Write;
                if let Ok(mut f) = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(log)
                {
                    let _ = writeln!(f, "{label} case {case} bytes {b:02x?}: {e}\n");
                }
            }
            // One example per kind of failure (the message up to its first colon).
            let kind: String = e.split([':', '\n']).next().unwrap_or("").to_string();
            let entry = failures
                .entry(kind)
                .or_insert((0, format!("case {case} bytes {b:02x?}: {e}")));
            entry.0 += 1;
        }
    }
    let total: u64 = failures.values().map(|f| f.0).sum();
    eprintln!("{label}: {n} cases, {outcomes:?}, {total} failure(s)");
    let report: Vec<String> = failures
        .values()
        .map(|(k, ex)| format!("{k} like: {ex}"))
        .collect();
    assert!(failures.is_empty(), "{}", report.join("\n\n"));
    // Both outcomes: random bytes decode 3.4% of the time, mutated corpus instructions
    // 47% (docs/FUZZING.md, 2,000,000 cases each), hundreds of either in a default run.
    let refused = outcomes.get("Refused").copied().unwrap_or(0);
    let decoded = outcomes.values().sum::<u64>() - refused;
    assert!(
        refused > 0 && decoded > 0,
        "{label}: both outcomes: {decoded} decoded, {refused} refused"
    );
}

#[test]
fn random_instruction_bytes() {
    run_bytes(
        "random bytes",
        cases(20_000),
        |r| {
            let mut b = vec![0u8; 16];
            b.iter_mut().for_each(|x| *x = r.next_u64() as u8);
            // Half of them with a real opcode number and compaction off or on.
            if r.below(2) == 0 {
                b[0] &= 0x7f;
            }
            b
        },
        1,
    );
}

#[test]
fn mutated_corpus_instructions() {
    let seeds = corpus_instructions();
    run_bytes(
        "mutated instructions",
        cases(20_000),
        |r| {
            let mut b = seeds[r.below(seeds.len())].clone();
            mutate_bytes(r, &mut b);
            b
        },
        2,
    );
}

/// Whole mutated kernels through the disassembler listing (labels, partial output).
#[test]
fn mutated_kernels_disassemble() {
    let seeds = corpus_instructions();
    let mut r = rng(3);
    let n = cases(20_000) / 20;
    let (mut listed, mut stopped) = (0, 0);
    for _ in 0..n {
        let mut k: Vec<u8> = (0..1 + r.below(12))
            .flat_map(|_| seeds[r.below(seeds.len())].clone())
            .collect();
        mutate_bytes(&mut r, &mut k);
        if r.below(4) == 0 {
            k.truncate(r.below(k.len() + 1));
        }
        let l = catch_unwind(|| disasm::listing(&k, true))
            .unwrap_or_else(|_| panic!("listing panicked on {k:02x?}"));
        if l.error.is_none() {
            listed += 1;
            let text = disasm::disassemble(&k).unwrap().join("\n");
            // Our own text must assemble (the bytes may differ where they are not
            // canonical); no panic in any case.
            let _ = catch_unwind(|| assemble(&text, Compaction::AsWritten))
                .unwrap_or_else(|_| panic!("assemble panicked on\n{text}"));
        } else {
            stopped += 1;
        }
    }
    eprintln!("mutated kernels: {n} cases, {listed} listed whole, {stopped} stopped");
    // Both outcomes: about half of the mutated instructions are refused and a quarter of
    // the kernels are cut (mostly inside an instruction), so each is a large share.
    assert!(
        listed > 0 && stopped > 0,
        "both outcomes: {listed} listed whole, {stopped} stopped at a bad instruction"
    );
}

const ALPHABET: &[&str] = &[
    "0",
    "1",
    "7",
    "8",
    "9",
    "15",
    "16",
    "31",
    "32",
    "127",
    "128",
    "255",
    "256",
    "65535",
    "4294967295",
    "-",
    "+",
    ".",
    ",",
    ";",
    ":",
    "<",
    ">",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    " ",
    "\n",
    "x",
    "y",
    "z",
    "w",
    "g",
    "a0",
    "f",
    "acc",
    "null",
    "UD",
    "D",
    "UW",
    "W",
    "F",
    "V",
    "VF",
    "DF",
    "0x",
    "é",
    "\u{0}",
    "\u{feff}",
    "LABEL0",
    "JIP:",
    "UIP:",
    "align16",
    "compacted",
    "EOT",
    "1N",
    "1Q",
    "2H",
    "MsgDesc:",
    "/*",
    "*/",
    "VxH",
    "abs",
    "sat",
];

fn mutate_text(r: &mut Rng, s: &str) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    for _ in 0..1 + r.below(3) {
        let at = r.below(chars.len() + 1);
        let piece: Vec<char> = ALPHABET[r.below(ALPHABET.len())].chars().collect();
        match r.below(4) {
            0 if at < chars.len() => {
                chars.remove(at);
            }
            1 if at < chars.len() => {
                let end = (at + piece.len()).min(chars.len());
                chars.splice(at..end, piece);
            }
            2 if at < chars.len() => {
                // Swap a digit run for another number.
                if chars[at].is_ascii_digit() {
                    let mut end = at;
                    while end < chars.len() && chars[end].is_ascii_digit() {
                        end += 1;
                    }
                    let n = [
                        "0",
                        "1",
                        "8",
                        "300",
                        "65536",
                        "4294967296",
                        "99999999999999999999",
                    ][r.below(7)];
                    chars.splice(at..end, n.chars());
                }
            }
            _ => {
                chars.splice(at..at, piece);
            }
        }
    }
    chars.into_iter().collect()
}

#[test]
fn mutated_assembly_text_never_panics() {
    let lines = corpus_lines();
    let mut r = rng(4);
    let n = cases(20_000) / 4;
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..n {
        let k = 1 + r.below(4);
        let text: String = (0..k)
            .map(|_| lines[r.below(lines.len())].clone() + "\n")
            .collect();
        let text = mutate_text(&mut r, &text);
        for mode in [Compaction::Never, Compaction::Auto] {
            match catch_unwind(|| assemble(&text, mode)) {
                Ok(Ok(b)) => {
                    accepted += 1;
                    // Whatever is accepted disassembles (bytes we wrote decode).
                    disasm::disassemble(&b)
                        .unwrap_or_else(|e| panic!("our bytes do not decode ({e}):\n{text}"));
                }
                Ok(Err(e)) => {
                    assert!(e.line >= 1, "{e}");
                    refused += 1;
                }
                Err(_) => panic!("assemble panicked on:\n{text}"),
            }
        }
    }
    eprintln!("mutated text: {n} cases, {accepted} assembled, {refused} refused");
    // Both outcomes: a campaign (docs/FUZZING.md) counted 106,840 assemblies of 500,000
    // mutated texts, so a default run's 5,000 texts assemble hundreds of times.
    assert!(
        accepted > 0 && refused > 0,
        "both outcomes: {accepted} assembled, {refused} refused"
    );
}

#[test]
fn branch_kernels_round_trip() {
    // Random structured-branch kernels: labels resolve both ways.
    let mut r = rng(5);
    let n = cases(20_000) / 20;
    let ops = ["if", "else", "endif", "while", "break", "cont", "halt"];
    let (mut assembled, mut unresolved) = (0, 0);
    for _ in 0..n {
        let len = 1 + r.below(8);
        let mut text = String::new();
        for i in 0..len {
            if r.below(3) == 0 {
                text.push_str(&format!("LABEL{i}:\n"));
            }
            let op = ops[r.below(ops.len())];
            let t = format!("LABEL{}", r.below(len + 1));
            let mode = if r.below(2) == 0 {
                "align1 1Q"
            } else {
                "align16 1Q"
            };
            let both = matches!(op, "if" | "break" | "cont" | "halt");
            let u = format!("LABEL{}", r.below(len + 1));
            text.push_str(&if both {
                format!("{op}(8) JIP: {t} UIP: {u} {{ {mode} }};\n")
            } else {
                format!("{op}(8) JIP: {t} {{ {mode} }};\n")
            });
        }
        text.push_str(&format!("LABEL{len}:\n"));
        let Ok(bytes) = assemble(&text, Compaction::Never) else {
            unresolved += 1; // a label used but never defined
            continue;
        };
        assembled += 1;
        let back = disasm::disassemble(&bytes).unwrap().join("\n");
        let again = assemble(&back, Compaction::AsWritten)
            .unwrap_or_else(|e| panic!("{e}\n{text}\n---\n{back}"));
        assert_eq!(again, bytes, "{text}\n---\n{back}");
        for c in bytes.chunks(16) {
            let (ins, _) = decode(c).unwrap();
            assert_eq!(ins.opcode.kind(), Kind::Branch);
        }
    }
    eprintln!("branch kernels: {n} cases, {assembled} assembled, {unresolved} unresolved");
    // Both outcomes: a label is defined a third of the time (the last always), so short
    // kernels mostly assemble and long ones mostly name an undefined label: about one
    // kernel in eight assembles.
    assert!(
        assembled > 0 && unresolved > 0,
        "both outcomes: {assembled} assembled, {unresolved} with an undefined label"
    );
}
