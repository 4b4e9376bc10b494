//! Guest safety: whatever bytes a guest hands the EU, the host never panics. Every run
//! ends in EOT, the end of the code, or a typed error; and compiled by the JIT, the same
//! bytes end the same way, with the same bits.

use gtsim_eu::exec::{Program, SharedFunctions, Thread};
use gtsim_eu::harness::Recorder;
use proptest::prelude::*;

use gtsim_isa::Encoding;

/// Every instruction of the Mesa corpus (real crocus kernels), as bytes.
fn corpus_instructions() -> Vec<Vec<u8>> {
    corpus_of("all.pairs")
}

/// Every instruction of iris's Ice Lake corpus, as bytes.
fn gen11_instructions() -> Vec<Vec<u8>> {
    corpus_of("gen11/all.pairs")
}

fn corpus_of(file: &str) -> Vec<Vec<u8>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../isa/tests/corpus");
    let text = std::fs::read_to_string(format!("{dir}/{file}")).expect("corpus");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(" | "))
        .map(|(hex, _)| {
            hex.split(' ')
                .flat_map(|w| u32::from_str_radix(w, 16).expect("hex").to_le_bytes())
                .collect()
        })
        .collect()
}

/// Runs `code` from random registers, JIT off (`jit` false: the program is never hot
/// enough to compile) or compiled at once; the thread's bits, the messages and the result.
fn run_with(code: &[u8], grf_seed: u32, simd: u8, jit: bool) -> (Vec<u64>, String, String) {
    run_encoded(Encoding::IvyBridge, code, grf_seed, simd, jit)
}

/// [`run_with`] for a kernel in `encoding`.
fn run_encoded(
    encoding: Encoding,
    code: &[u8],
    grf_seed: u32,
    simd: u8,
    jit: bool,
) -> (Vec<u64>, String, String) {
    let mut t = Thread::new(simd);
    let mut x = grf_seed;
    for b in t.grf_bytes_mut().iter_mut() {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        *b = (x >> 24) as u8;
    }
    let mut sf = Recorder::default();
    let mut prog = Program::new(encoding, code);
    prog.set_jit(jit);
    // Ok or a typed error; a panic fails the test.
    let r = t.run_program(&prog, &mut sf as &mut dyn SharedFunctions, 2_000);
    (t.snapshot(), format!("{:?}", sf.messages), format!("{r:?}"))
}

fn run(code: &[u8], grf_seed: u32, simd: u8) {
    run_with(code, grf_seed, simd, false);
}

/// Real instructions in random order, some with a flipped bit.
fn shuffled(picks: Vec<(prop::sample::Index, Option<u8>)>) -> Vec<u8> {
    shuffled_from(&corpus_instructions(), picks)
}

fn shuffled_from(corpus: &[Vec<u8>], picks: Vec<(prop::sample::Index, Option<u8>)>) -> Vec<u8> {
    let mut code = vec![];
    for (i, flip) in picks {
        let mut ins = i.get(corpus).clone();
        if let Some(f) = flip {
            let bit = f as usize % (ins.len() * 8);
            ins[bit / 8] ^= 1 << (bit % 8);
        }
        code.extend(ins);
    }
    code
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// Arbitrary bytes.
    #[test]
    fn random_bytes_never_panic(code in proptest::collection::vec(any::<u8>(), 0..256), seed: u32, wide: bool) {
        run(&code, seed, if wide { 16 } else { 8 });
    }

    /// Real instructions in random order (so branches, sends and indirect addressing meet
    /// arbitrary state), over random registers, some with a flipped bit.
    #[test]
    fn shuffled_real_instructions_never_panic(
        picks in proptest::collection::vec((any::<prop::sample::Index>(), any::<Option<u8>>()), 1..24),
        seed: u32,
        wide: bool,
    ) {
        run(&shuffled(picks), seed, if wide { 16 } else { 8 });
    }
}

proptest! {
    // Fewer cases: each compiles a program (slow in debug builds).
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Compiled at once, shuffled real instructions (branches whose targets are anywhere,
    /// sends, bit flips) end as they do interpreted, bit for bit: the JIT sees what a
    /// guest hands it too.
    #[test]
    fn compiled_shuffled_real_instructions_end_as_interpreted(
        picks in proptest::collection::vec((any::<prop::sample::Index>(), any::<Option<u8>>()), 1..24),
        seed: u32,
        wide: bool,
    ) {
        let code = shuffled(picks);
        let simd = if wide { 16 } else { 8 };
        let interpreted = run_with(&code, seed, simd, false);
        let compiled = run_with(&code, seed, simd, true);
        prop_assert_eq!(interpreted, compiled);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Gen11: arbitrary bytes, and iris's real instructions shuffled with flipped bits,
    /// end in EOT, the end of the code or a typed error; compiled, they end as they do
    /// interpreted, bit for bit.
    #[test]
    fn gen11_guest_code_never_panics_and_compiles_alike(
        bytes in proptest::collection::vec(any::<u8>(), 0..256),
        picks in proptest::collection::vec((any::<prop::sample::Index>(), any::<Option<u8>>()), 1..24),
        seed: u32,
        wide: bool,
    ) {
        let simd = if wide { 16 } else { 8 };
        run_encoded(Encoding::IceLake, &bytes, seed, simd, false);
        let code = shuffled_from(&gen11_instructions(), picks);
        let interpreted = run_encoded(Encoding::IceLake, &code, seed, simd, false);
        let compiled = run_encoded(Encoding::IceLake, &code, seed, simd, true);
        prop_assert_eq!(interpreted, compiled);
    }
}
