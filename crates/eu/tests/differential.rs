//! The fast paths against the per-channel interpreter: the whole-register micro-ops
//! (`uop`) and the JIT (`jit`, runs of micro-ops compiled to host code with Cranelift).
//! Every corpus kernel (real shaders, with divergent loops and branches) and a few hundred
//! random kernels (straight-line ALU and `math` code, and code with divergent
//! `if`/`else`/`endif`)
//! run all three ways from register files holding NaNs, infinities, denormals, signed
//! zeros and integers of every range, and every architectural bit (registers,
//! accumulators, flags, control flow, counters) and every message sent must be the same.
//! The per-channel interpreter is the reference: its per-opcode tests
//! (`tests/opcodes.rs`) check it against hand-worked values.
//!
//! The random kernels come from fixed seeds (the regression cases `cargo test` replays);
//! `GTSIM_FUZZ_SEED` draws others (`scripts/fuzz-fresh.sh`, docs/FUZZING.md).

mod common;

use gtsim_eu::exec::{Program, SharedFunctions, Thread};
use gtsim_eu::harness::Recorder;
use gtsim_isa::Encoding;
use gtsim_isa::asm::{Compaction, assemble};

/// A deterministic pseudo-random sequence (64-bit LCG, high bits).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u32) as usize]
    }
}

/// A harness's seed: `fixed` (its regression cases) unless `GTSIM_FUZZ_SEED` is set
/// (`scripts/fuzz-fresh.sh`); that seed is then mixed with `salt`, one per harness, so
/// that the harnesses draw different kernels from one fresh seed. (Salts that differ in
/// their low bits: the LCG's low state bits never depend on its higher ones.)
fn seed(fixed: u64, salt: u64) -> u64 {
    gtsim_fuzzkit::seed(fixed ^ salt) ^ salt
}

/// Dwords that stress the conversion and float rules.
const SPECIAL: &[u32] = &[
    0x7fc0_0000, // NaN
    0x7f80_0001, // signalling NaN
    0xffa0_0000, // negative signalling NaN with a payload
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x8000_0000, // -0
    0x0000_0001, // smallest denormal (and integer 1)
    0x807f_ffff, // negative denormal
    0x3f80_0000, // 1.0
    0xbf00_0000, // -0.5
    0x4b7f_ffff, // 16777215.0
    0x4f00_0000, // 2^31 as float
    0xcf00_0001, // just below -2^31 as float
    0xffff_ffff, // -1
    0x7fff_ffff, // i32::MAX
    0x0000_ffff,
    0x0001_0000,
    0x0000_0020, // shift counts
    0x0000_001f,
];

/// A thread whose g1..g127 mix special values, small floats and small integers.
fn thread(simd: u8, seed: u64) -> Thread {
    let mut t = Thread::new(simd);
    let mut rng = Rng(seed);
    for chunk in t.grf_bytes_mut()[32..].chunks_mut(4) {
        let v = match rng.below(4) {
            0 => *rng.pick(SPECIAL),
            1 => ((rng.below(1 << 20) as f32) / 4096.0 - 128.0).to_bits(),
            2 => rng.below(64).wrapping_sub(16),
            _ => rng.next(),
        };
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    t
}

/// How a kernel runs.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Every instruction on the per-channel interpreter (the reference).
    PerChannel,
    /// Micro-ops where they apply, the JIT off.
    MicroOps,
    /// Compiled code where it applies, micro-ops and the interpreter elsewhere.
    Jit,
    /// As `Jit`, with the JIT's second, optimized tier (`Program::optimize`).
    OptimizedJit,
}

/// Runs `code` in `mode`; the thread's bits, the messages and the result.
fn run(code: &[u8], simd: u8, seed: u64, mode: Mode) -> (Vec<u64>, String, String) {
    run_from(code, thread(simd, seed), mode)
}

/// Runs `code` in `mode` from thread `initial`. Every run also checks the program's
/// written registers (`Program::written_registers`): every register that changed is in
/// the set, [`Thread::rewind`] gives back `initial`, and (with micro-ops) a thread whose
/// payload covers only part of the register file resets to a new thread's state.
fn run_from(code: &[u8], initial: Thread, mode: Mode) -> (Vec<u64>, String, String) {
    run_encoded(Encoding::IvyBridge, code, initial, mode)
}

/// [`run_from`] for a kernel in `encoding`.
fn run_encoded(
    encoding: Encoding,
    code: &[u8],
    initial: Thread,
    mode: Mode,
) -> (Vec<u64>, String, String) {
    let mut prog = Program::new(encoding, code);
    prog.set_micro_ops(mode != Mode::PerChannel);
    prog.set_jit(matches!(mode, Mode::Jit | Mode::OptimizedJit));
    if mode == Mode::OptimizedJit {
        prog.optimize();
    }
    let mut sf = Recorder::default();
    let mut t = initial.clone();
    let result = t.run_program(&prog, &mut sf as &mut dyn SharedFunctions, 200_000);
    let out = (
        t.snapshot(),
        format!("{:?}", sf.messages),
        format!("{result:?}"),
    );
    let written = prog.written_registers();
    for r in 0..128 {
        let bytes = r * 32..r * 32 + 32;
        assert!(
            written.contains(r) || t.grf_bytes()[bytes.clone()] == initial.grf_bytes()[bytes],
            "g{r} changed but is not among the written registers {written:?} ({mode:?})"
        );
    }
    t.rewind(&initial);
    assert_eq!(t.snapshot(), initial.snapshot(), "rewind ({mode:?})");
    if mode == Mode::MicroOps {
        let mut p = Thread::new(initial.simd);
        p.dispatch_mask = initial.dispatch_mask;
        p.write_payload(|grf| {
            grf[32..21 * 32].copy_from_slice(&initial.grf_bytes()[32..21 * 32]);
            ((), 21)
        });
        let _ = p.run_program(
            &prog,
            &mut Recorder::default() as &mut dyn SharedFunctions,
            200_000,
        );
        p.reset(initial.simd);
        assert_eq!(p.snapshot(), Thread::new(initial.simd).snapshot(), "reset");
    }
    out
}

fn same_all_ways(name: &str, code: &[u8], simd: u8, seed: u64) {
    let slow = run(code, simd, seed, Mode::PerChannel);
    for mode in [Mode::MicroOps, Mode::Jit, Mode::OptimizedJit] {
        same(
            &format!("{name} ({mode:?})"),
            seed,
            &slow,
            &run(code, simd, seed, mode),
        );
    }
}

fn same(
    name: &str,
    seed: u64,
    slow: &(Vec<u64>, String, String),
    fast: &(Vec<u64>, String, String),
) {
    assert_eq!(slow.2, fast.2, "{name} seed {seed}: results differ");
    assert_eq!(slow.1, fast.1, "{name} seed {seed}: messages differ");
    if slow.0 != fast.0 {
        let at = slow
            .0
            .iter()
            .zip(&fast.0)
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{name} seed {seed}: state word {at} (grf byte {}) differs: {:#018x} vs {:#018x}",
            at * 8,
            slow.0[at],
            fast.0[at]
        );
    }
}

#[test]
fn every_corpus_kernel_gives_the_same_bits_with_micro_ops_and_jit() {
    let kernels = common::corpus::kernels();
    assert!(kernels.len() >= 40, "corpus kernels: {}", kernels.len());
    let (mut covered, mut compiled, mut total) = (0, 0, 0);
    for k in &kernels {
        let mut p = Program::new(Encoding::IvyBridge, &k.code);
        p.set_jit(true);
        let (c, t) = p.micro_op_coverage();
        covered += c;
        compiled += p.jit_coverage();
        total += t;
        for seed in 1..=3 {
            same_all_ways(&k.name, &k.code, k.simd, seed);
        }
    }
    // Most instructions of real kernels take the fast paths (the rest still agree).
    assert!(covered * 2 > total, "{covered} of {total} instructions");
    assert!(
        compiled * 3 > total,
        "{compiled} of {total} instructions compiled"
    );
}

/// In the alternative floating-point mode (the dispatching state's Floating Point Mode,
/// seed 004 §1.9.4.1; IVB PRM Vol4 Part3 "Floating Point Modes"), float micro-ops take
/// the general path and integer ones their fast path, which that mode does not change:
/// every corpus kernel gives the per-channel interpreter's bits with micro-ops there too.
/// iris's Ice Lake kernels (align1, split sends, word and byte operations, Gen11's
/// three-source and compaction forms) give the same bits on every path.
#[test]
fn every_gen11_corpus_kernel_gives_the_same_bits_with_micro_ops_and_jit() {
    let kernels = common::corpus::gen11_kernels();
    assert!(kernels.len() > 30, "{} Gen11 kernels", kernels.len());
    for (i, k) in kernels.iter().enumerate() {
        let seed = 1000 + i as u64;
        let slow = run_encoded(
            Encoding::IceLake,
            &k.code,
            thread(k.simd, seed),
            Mode::PerChannel,
        );
        for mode in [Mode::MicroOps, Mode::Jit, Mode::OptimizedJit] {
            let fast = run_encoded(Encoding::IceLake, &k.code, thread(k.simd, seed), mode);
            same(&format!("{} ({mode:?})", k.name), seed, &slow, &fast);
        }
    }
}

/// Random Gen11 kernels: the random instructions that assemble for Ice Lake (align1;
/// a negated source of a logic instruction is a bitwise NOT there), with Gen11's
/// rotates mixed in, give the same bits on every path.
#[test]
fn random_gen11_kernels_give_the_same_bits_with_micro_ops_and_jit() {
    use gtsim_isa::asm::assemble_for;
    let mut rng = Rng(seed(0x1ce1a6e, 1));
    let mut kernels = 0;
    let mut attempts = 0;
    let mut instructions = 0;
    let mut negated_logic = 0;
    while kernels < 150 {
        attempts += 1;
        assert!(attempts < 3000, "random Gen11 kernels do not assemble");
        let mut text = String::new();
        for _ in 0..24 {
            let line = if rng.below(8) == 0 {
                let op = *rng.pick(&["ror", "rol"]);
                let ty = *rng.pick(&["UD", "UW"]);
                format!(
                    "{op}(8) g{}<1>{ty} g{}<8,8,1>{ty} g{}<8,8,1>{ty} {{ align1 1Q }};",
                    50 + rng.below(40),
                    2 + rng.below(40),
                    2 + rng.below(40)
                )
            } else {
                random_instruction(&mut rng)
            };
            if assemble_for(Encoding::IceLake, &line, Compaction::Never).is_ok() {
                instructions += 1;
                let logic = ["and", "or(", "xor", "not"]
                    .iter()
                    .any(|o| line.contains(o));
                negated_logic += usize::from(logic && line.contains(" -g"));
                text.push_str(&line);
                text.push('\n');
            }
        }
        let Ok(code) = assemble_for(Encoding::IceLake, &text, Compaction::Never) else {
            continue;
        };
        let simd = *rng.pick(&[8u8, 16]);
        let seed = 7000 + kernels as u64;
        let slow = run_encoded(
            Encoding::IceLake,
            &code,
            thread(simd, seed),
            Mode::PerChannel,
        );
        for mode in [Mode::MicroOps, Mode::Jit, Mode::OptimizedJit] {
            let fast = run_encoded(Encoding::IceLake, &code, thread(simd, seed), mode);
            same(
                &format!("Gen11 kernel ({mode:?}):\n{text}"),
                seed,
                &slow,
                &fast,
            );
        }
        kernels += 1;
    }
    eprintln!("{instructions} Gen11 instructions, {negated_logic} logic ones with a NOT source");
    assert!(
        instructions > 150 * 12,
        "only {instructions} instructions assembled"
    );
    assert!(
        negated_logic > 20,
        "only {negated_logic} negated logic sources"
    );
}

#[test]
fn every_corpus_kernel_gives_the_same_bits_in_the_alternative_mode() {
    for k in common::corpus::kernels() {
        for seed in 1..=2 {
            let mut initial = thread(k.simd, seed);
            initial.fp_mode = gtsim_eu::exec::FpMode::Alt;
            let slow = run_from(&k.code, initial.clone(), Mode::PerChannel);
            let fast = run_from(&k.code, initial, Mode::MicroOps);
            same(&format!("{} (Alt)", k.name), seed, &slow, &fast);
        }
    }
}

/// One random instruction of the shapes micro-ops cover (and some they do not), as text.
fn random_instruction(rng: &mut Rng) -> String {
    let float = rng.below(2) == 0;
    let (size, qtr, regs) = *rng.pick(&[(8, "1Q", 1), (8, "2Q", 1), (16, "1H", 2), (16, "2H", 2)]);
    let ty = if float {
        "F"
    } else {
        *rng.pick(&["D", "UD", "W", "UW"])
    };
    let reg = |rng: &mut Rng, lo: u32| lo + rng.below(40) * regs;
    let src = |rng: &mut Rng, ty: &str| -> String {
        if rng.below(5) == 0 {
            return match ty {
                "F" => rng
                    .pick(&["0F", "1F", "-0.5F", "0x7fc00000F", "0x3b808081F"])
                    .to_string(),
                "W" | "UW" => format!("{}{}", rng.below(40), ty),
                _ => format!(
                    "{}{}",
                    rng.below(70) as i32 - 20,
                    if ty == "UD" { "D" } else { ty }
                ),
            };
        }
        let m = *rng.pick(&["", "", "-", "(abs)"]);
        let region = *rng.pick(&["<8,8,1>", "<0,1,0>", "<4,4,1>", "<8,8,1>"]);
        let sub = if region == "<0,1,0>" {
            format!(".{}", rng.below(4))
        } else {
            String::new()
        };
        format!("{m}g{}{sub}{region}{ty}", reg(rng, 2))
    };
    let dst_ty = if rng.below(6) == 0 {
        *rng.pick(&["F", "D", "UD"])
    } else {
        ty
    };
    let flag = format!("f0.{}", rng.below(2));
    let pred = match rng.below(5) {
        0 => format!("(+{flag}) "),
        1 => format!("(-{flag}) "),
        _ => String::new(),
    };
    let sat = if rng.below(5) == 0 { ".sat" } else { "" };
    let cmod = *rng.pick(&["z", "nz", "g", "ge", "l", "le"]);
    let dst = format!("g{}<1>{dst_ty}", reg(rng, 50));
    if float && rng.below(6) == 0 {
        // Three-source instructions are align16 on Gen7.
        let op = *rng.pick(&["mad", "lrp"]);
        let s = |rng: &mut Rng| {
            if rng.below(3) == 0 {
                format!("g{}.{}<0,1,0>F", reg(rng, 2), rng.below(4))
            } else {
                format!("g{}<4,4,1>F", reg(rng, 2))
            }
        };
        let qtr16 = if qtr == "2Q" { "2Q" } else { "1Q" };
        return format!(
            "{pred}{op}{sat}(8) g{}<1>F {} {} {} {{ align16 {qtr16} }};",
            reg(rng, 50),
            s(rng),
            s(rng),
            s(rng)
        );
    }
    if float && rng.below(8) == 0 {
        // Extended math: unary functions take a null second source.
        let f = *rng.pick(&[
            "inv", "log", "exp", "sqrt", "rsq", "sin", "cos", "pow", "fdiv",
        ]);
        let b = if matches!(f, "pow" | "fdiv") {
            src(rng, "F")
        } else {
            "null<8,8,1>F".to_string()
        };
        let a = format!("{}g{}<8,8,1>F", rng.pick(&["", "-", "(abs)"]), reg(rng, 2));
        return format!("{pred}math{sat} {f}({size}) {dst} {a} {b} {{ align1 {qtr} }};");
    }
    let one = if float {
        &["mov", "rndd", "rndu", "rnde", "rndz", "frc"][..]
    } else {
        &["mov", "not"][..]
    };
    let two = if float {
        &["add", "mul", "sel.l", "sel.ge", "sel", "cmp", "cmpn"][..]
    } else {
        &[
            "add", "mul", "and", "or", "xor", "shl", "shr", "asr", "sel.l", "sel", "cmp",
        ][..]
    };
    if rng.below(3) == 0 {
        let op = *rng.pick(one);
        let cm = if rng.below(4) == 0 {
            format!(".{cmod}.{flag}")
        } else {
            String::new()
        };
        return format!(
            "{pred}{op}{sat}{cm}({size}) {dst} {} {{ align1 {qtr} }};",
            src(rng, ty)
        );
    }
    let op = *rng.pick(two);
    // Only src1 may be an immediate.
    let a = format!(
        "{}g{}<8,8,1>{ty}",
        rng.pick(&["", "-", "(abs)"]),
        reg(rng, 2)
    );
    let (op, cm) = match op {
        "cmp" | "cmpn" => (op.to_string(), format!(".{cmod}.{flag}")),
        o if rng.below(5) == 0 && !o.starts_with("sel") => {
            (o.to_string(), format!(".{cmod}.{flag}"))
        }
        o => (o.to_string(), String::new()),
    };
    format!(
        "{pred}{op}{sat}{cm}({size}) {dst} {a} {} {{ align1 {qtr} }};",
        src(rng, ty)
    )
}

/// Up to `n` random instructions that assemble, as text, and how many there are.
fn random_lines(rng: &mut Rng, n: usize) -> (String, usize) {
    let mut text = String::new();
    let mut count = 0;
    for _ in 0..n {
        let line = random_instruction(rng);
        // Shapes the assembler refuses (or the validator rejects) are skipped.
        if assemble(&line, Compaction::Never).is_ok() {
            text.push_str(&line);
            text.push('\n');
            count += 1;
        }
    }
    (text, count)
}

/// A random SIMD8 kernel with divergent control flow: a comparison of register data
/// sets f0.0 per channel, and an `if`/`else`/`endif` runs random code on each side (the
/// failing channels wait at the first instruction after the `else`, the others at the
/// `endif`).
fn random_branching_kernel(rng: &mut Rng) -> Option<(String, usize)> {
    let (head, h) = random_lines(rng, 6);
    let (then, a) = random_lines(rng, 8);
    let (other, b) = random_lines(rng, 8);
    let (tail, t) = random_lines(rng, 6);
    if a == 0 || b == 0 {
        return None;
    }
    let text = format!(
        "{head}cmp.l.f0.0(8) null<1>F g{}<8,8,1>F g{}<8,8,1>F {{ align1 1Q }};\n\
         (+f0.0) if(8) JIP: ELSE UIP: ENDIF {{ align1 1Q }};\n{then}\
         else(8) JIP: ENDIF UIP: ENDIF {{ align1 1Q }};\nELSE:\n{other}\
         ENDIF:\nendif(8) JIP: AFTER {{ align1 1Q }};\nAFTER:\n{tail}",
        2 + rng.below(40),
        2 + rng.below(40),
    );
    Some((text, h + a + b + t + 4))
}

/// A random kernel with a divergent loop of `size` channels: a per-channel counter
/// (g1) ends it after a few iterations, a data-dependent `break` inside an `if` leaves it
/// early (its channels wait for the `while`, then for the instruction after it), a
/// data-dependent `cont` skips the rest of an iteration (its channels wait for the
/// `while` and take part in it), and random code runs everywhere in between.
fn random_loop_kernel(rng: &mut Rng, size: u32, lines: usize) -> Option<(String, usize)> {
    let q = if size == 16 { "1H" } else { "1Q" };
    let (head, h) = random_lines(rng, lines);
    let (body1, a) = random_lines(rng, lines);
    let (then, b) = random_lines(rng, lines);
    let (then2, c) = random_lines(rng, lines);
    let (body2, d) = random_lines(rng, lines);
    let (tail, t) = random_lines(rng, lines);
    let mut g = || 2 + rng.below(40);
    let (ga, gb, gc, gd, ge, gf) = (g(), g(), g(), g(), g(), g());
    let limit = 1 + rng.below(6);
    // Sometimes a predicate the JIT leaves to the interpreter (any/all of a group), so
    // that compiled loops hand over to it and take back parked channels.
    let any = format!("(+f0.1.any{size}h)");
    let all = format!("(+f0.1.all{size}h)");
    // (The skeleton alone, `lines` 0, keeps normal predicates: it compiles whole.)
    let (brk, cnt) = if lines == 0 {
        ("(+f0.1)", "(+f0.1)")
    } else {
        (
            *rng.pick(&["(+f0.1)", "(-f0.1)", any.as_str()]),
            *rng.pick(&["(+f0.1)", "(+f0.1)", all.as_str()]),
        )
    };
    let text = format!(
        "{head}mov({size}) g1<1>D 0D {{ align1 {q} }};\n\
         LOOP:\n{body1}\
         add({size}) g1<1>D g1<8,8,1>D 1D {{ align1 {q} }};\n\
         cmp.ge.f0.1({size}) null<1>D g1<8,8,1>D {limit}D {{ align1 {q} }};\n\
         (+f0.1) break({size}) JIP: END UIP: END {{ align1 {q} }};\n\
         cmp.l.f0.0({size}) null<1>F g{ga}<8,8,1>F g{gb}<8,8,1>F {{ align1 {q} }};\n\
         (+f0.0) if({size}) JIP: ENDIF UIP: ENDIF {{ align1 {q} }};\n{then}\
         cmp.g.f0.1({size}) null<1>F g{gc}<8,8,1>F g{gd}<8,8,1>F {{ align1 {q} }};\n\
         {brk} break({size}) JIP: ENDIF UIP: END {{ align1 {q} }};\n{then2}\
         ENDIF:\nendif({size}) JIP: NEXT {{ align1 {q} }};\nNEXT:\n\
         cmp.l.f0.1({size}) null<1>F g{ge}<8,8,1>F g{gf}<8,8,1>F {{ align1 {q} }};\n\
         {cnt} cont({size}) JIP: END UIP: END {{ align1 {q} }};\n{body2}\
         END:\nwhile({size}) JIP: LOOP {{ align1 {q} }};\nAFTER:\n{tail}"
    );
    Some((text, h + a + b + c + d + t + 12))
}

/// Loops, `break`, `cont` and nested `if` compiled as control flow (`jit::flow`) give
/// the interpreter's bits, SIMD8 and SIMD16.
#[test]
fn random_loops_give_the_same_bits_with_micro_ops_and_jit() {
    let mut rng = Rng(seed(0x100f, 2));
    // The loop's skeleton alone compiles whole, its control flow included.
    for size in [8, 16] {
        let (text, n) = random_loop_kernel(&mut rng, size, 0).unwrap();
        let code = assemble(&text, Compaction::Never).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let mut p = Program::new(Encoding::IvyBridge, &code);
        p.set_jit(true);
        assert_eq!(p.jit_coverage(), n, "{text}");
        for seed in 0..3 {
            same_all_ways("loop skeleton", &code, size as u8, seed);
        }
    }
    let mut kernels = 0;
    let mut attempts = 0;
    while kernels < 120 {
        attempts += 1;
        assert!(attempts < 1000, "random loops do not assemble");
        let size = *rng.pick(&[8u32, 16]);
        let Some((text, _)) = random_loop_kernel(&mut rng, size, 4) else {
            continue;
        };
        let code = assemble(&text, Compaction::Never).unwrap_or_else(|e| panic!("{e}\n{text}"));
        for seed in 0..3 {
            same_all_ways(
                &format!("random loop:\n{text}"),
                &code,
                size as u8,
                seed + kernels as u64,
            );
        }
        kernels += 1;
    }
}

/// A loop that never ends runs into the instruction budget at the same instruction,
/// with the same state, compiled or not (compiled code returns to the interpreter before
/// a block the budget does not cover).
#[test]
fn a_runaway_loop_ends_at_the_same_instruction_compiled_or_not() {
    let text = "mov(8) g1<1>D 0D { align1 1Q };\n\
                LOOP:\nadd(8) g1<1>D g1<8,8,1>D 1D { align1 1Q };\n\
                add(8) g2<1>F g2<8,8,1>F 0x3f800000F { align1 1Q };\n\
                cmp.l.f0.0(8) null<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };\n\
                while(8) JIP: LOOP { align1 1Q };\n";
    let code = assemble(text, Compaction::Never).unwrap();
    let mut p = Program::new(Encoding::IvyBridge, &code);
    p.set_jit(true);
    assert_eq!(p.jit_coverage(), 5, "the whole loop is compiled");
    for seed in 0..3 {
        let slow = run(&code, 8, seed, Mode::PerChannel);
        assert!(slow.2.contains("Budget"), "{}", slow.2);
        for mode in [Mode::MicroOps, Mode::Jit, Mode::OptimizedJit] {
            same("runaway loop", seed, &slow, &run(&code, 8, seed, mode));
        }
    }
}

/// A shared function whose answers depend on what it was sent (so responses flow into
/// later computation) and which fails at its `fail_at`-th message (1-based; 0: never),
/// as a page fault would.
struct Answering {
    messages: Vec<String>,
    fail_at: usize,
}

impl SharedFunctions for Answering {
    fn send(
        &mut self,
        m: &gtsim_eu::exec::Message,
    ) -> Result<Vec<[u8; 32]>, gtsim_eu::exec::MessageError> {
        self.messages.push(format!("{m:?}"));
        if self.messages.len() == self.fail_at {
            return Err(gtsim_eu::exec::MessageError::Invalid(format!(
                "message {} faults",
                self.fail_at
            )));
        }
        // Each response dword: an FNV-style hash of the payload, the register and dword
        // index and the message count, kept a small float or integer half the time.
        let mut h = 0xcbf2_9ce4_8422_2325u64 ^ self.messages.len() as u64;
        for r in m.payload.iter() {
            for &b in r.iter() {
                h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
            }
        }
        Ok((0..m.response_length as u64)
            .map(|r| {
                let mut reg = [0u8; 32];
                for (d, chunk) in reg.chunks_mut(4).enumerate() {
                    let x = (h ^ (r * 8 + d as u64)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32;
                    let v = if x & 1 == 0 {
                        ((x >> 8) as u32 % 4096) as f32 / 256.0
                    } else {
                        f32::from_bits(x as u32)
                    };
                    chunk.copy_from_slice(&v.to_bits().to_le_bytes());
                }
                reg
            })
            .collect())
    }
}

/// Sends inside compiled blocks (`jit::interpret` runs them without leaving compiled
/// code): random divergent loops with sampler messages in their body and under their
/// `if`, whose responses feed later instructions, ending with an EOT render target
/// write; and the same kernels with a shared function that fails at the first, second,
/// ... message, in the middle of a block. Every mode gives the same messages (their
/// channel masks included), the same result (the error and its instruction, or the
/// instruction count) and the same bits (the channel-instruction count included).
#[test]
fn sends_in_compiled_loops_give_the_same_bits_and_errors() {
    let mut rng = Rng(seed(0x5e0d, 3));
    let mut kernels = 0;
    let mut failures = 0;
    while kernels < 40 {
        let size = *rng.pick(&[8u32, 16]);
        let (q, desc, eot) = if size == 16 {
            ("1H", "0x08840001", "0x90031000")
        } else {
            ("1Q", "0x04420001", "0x88031400")
        };
        let send = |rng: &mut Rng| {
            format!(
                "send({size}) g{}<1>UW g{}<8,8,1>UD {desc} sampler {{ align1 {q} }};\n",
                50 + 2 * rng.below(20),
                2 + 2 * rng.below(20),
            )
        };
        let Some((text, _)) = random_loop_kernel(&mut rng, size, 3) else {
            continue;
        };
        // A message before the loop, in its body and under its `if`; an EOT at the end.
        let (a, b, c) = (send(&mut rng), send(&mut rng), send(&mut rng));
        let text = text
            .replacen("mov(", &format!("{a}mov("), 1)
            .replacen("LOOP:\n", &format!("LOOP:\n{b}"), 1)
            .replacen("ENDIF:\n", &format!("{c}ENDIF:\n"), 1)
            + &format!(
                "sendc({size}) null<1>UW g{}<8,8,1>UD {eot} render {{ align1 {q} EOT }};\n",
                60 + 2 * rng.below(10)
            );
        let code = assemble(&text, Compaction::Never).unwrap_or_else(|e| panic!("{e}\n{text}"));
        for fail_at in 0..6 {
            let seed = kernels as u64 * 7 + fail_at as u64;
            let run = |mode: Mode| {
                let mut prog = Program::new(Encoding::IvyBridge, &code);
                prog.set_micro_ops(mode != Mode::PerChannel);
                prog.set_jit(matches!(mode, Mode::Jit | Mode::OptimizedJit));
                if mode == Mode::OptimizedJit {
                    prog.optimize();
                }
                let mut t = thread(size as u8, seed);
                let mut sf = Answering {
                    messages: vec![],
                    fail_at,
                };
                let result = t.run_program(&prog, &mut sf as &mut dyn SharedFunctions, 200_000);
                (
                    t.snapshot(),
                    format!("{:?}", sf.messages),
                    format!("{result:?}"),
                )
            };
            let slow = run(Mode::PerChannel);
            if slow.2.contains("faults") {
                failures += 1;
            } else {
                assert!(slow.2.starts_with("Ok("), "{}\n{text}", slow.2);
            }
            for mode in [Mode::MicroOps, Mode::Jit, Mode::OptimizedJit] {
                same(
                    &format!("sends in a loop ({mode:?}), failing at message {fail_at}:\n{text}"),
                    seed,
                    &slow,
                    &run(mode),
                );
            }
        }
        kernels += 1;
    }
    // Most runs reach their failing message (every kernel sends at least twice).
    assert!(failures > 40 * 2, "only {failures} runs failed");
}

/// A thread whose g1..g127 hold values at the edge of the denormal range: denormals of
/// both signs, neighbours of the smallest normal number, and numbers near 2^-63 (whose
/// products are denormal or just normal) and near 1 (for `lrp`'s 1 - a).
fn tiny_thread(simd: u8, seed: u64) -> Thread {
    let mut t = Thread::new(simd);
    let mut rng = Rng(seed);
    for chunk in t.grf_bytes_mut()[32..].chunks_mut(4) {
        let sign = rng.below(2) << 31;
        let v = match rng.below(4) {
            0 => rng.below(0x0080_0000),
            1 => 0x0080_0000 + rng.below(8) - 4,
            2 => ((127 - 63 + rng.below(5) - 2) << 23) | rng.below(0x0080_0000),
            _ => (126 << 23) | rng.below(0x0100_0000),
        };
        chunk.copy_from_slice(&(v | sign).to_le_bytes());
    }
    t
}

/// Compiled float code reads denormal sources through the host's denormals-are-zero mode
/// where one host instruction does the whole operation (`jit::fpenv`), and switches it
/// off for `pln`, `lrp` and conditions on copied bits: from register files of
/// denormals, near-denormal products and smallest-normal neighbours, random float
/// kernels with `pln`, `lrp`, `mad` and conditional copies give the interpreter's bits.
#[test]
fn denormals_give_the_same_bits_under_the_hosts_daz() {
    let mut rng = Rng(seed(0xda2, 4));
    let mut kernels = 0;
    while kernels < 150 {
        let (text, _) = random_lines(&mut rng, 16);
        let mut extra = String::new();
        for _ in 0..3 {
            extra += &match rng.below(3) {
                0 => format!(
                    "pln(8) g{}<1>F g{}.{}<0,1,0>F g{}<8,8,1>F {{ align1 1Q }};\n",
                    50 + rng.below(40),
                    2 + rng.below(40),
                    4 * rng.below(2),
                    2 + 2 * rng.below(20),
                ),
                1 => format!(
                    "mov.{}.f0.{}(8) g{}<1>F g{}<8,8,1>F {{ align1 1Q }};\n",
                    rng.pick(&["z", "nz", "g", "ge", "l", "le"]),
                    rng.below(2),
                    50 + rng.below(40),
                    2 + rng.below(40),
                ),
                _ => format!(
                    "{}(8) g{}<1>F g{}<4,4,1>F g{}<4,4,1>F g{}<4,4,1>F {{ align16 1Q }};\n",
                    rng.pick(&["mad", "lrp"]),
                    50 + rng.below(40),
                    2 + rng.below(40),
                    2 + rng.below(40),
                    2 + rng.below(40),
                ),
            };
        }
        let text = extra.clone() + &text + &extra;
        let Ok(code) = assemble(&text, Compaction::Never) else {
            continue;
        };
        for seed in 0..2 {
            let seed = seed + 2 * kernels as u64;
            let slow = run_from(&code, tiny_thread(8, seed), Mode::PerChannel);
            for mode in [Mode::MicroOps, Mode::Jit, Mode::OptimizedJit] {
                same(
                    &format!("denormal kernel ({mode:?}):\n{text}"),
                    seed,
                    &slow,
                    &run_from(&code, tiny_thread(8, seed), mode),
                );
            }
        }
        kernels += 1;
    }
}

#[test]
fn random_kernels_give_the_same_bits_with_micro_ops_and_jit() {
    let mut rng = Rng(seed(0x5eed, 5));
    let mut kernels = 0;
    let mut branching = 0;
    let mut math = 0;
    let mut instructions = 0;
    let mut covered = 0;
    let mut compiled = 0;
    let mut attempts = 0;
    while kernels < 300 {
        attempts += 1;
        assert!(attempts < 3000, "random kernels do not assemble");
        let (text, n, simd) = if kernels % 4 == 3 {
            let Some((text, n)) = random_branching_kernel(&mut rng) else {
                continue;
            };
            (text, n, 8)
        } else {
            let (text, n) = random_lines(&mut rng, 24);
            (text, n, *rng.pick(&[8u8, 16]))
        };
        let code = match assemble(&text, Compaction::Never) {
            Ok(c) => c,
            Err(e) if text.contains("if(8)") => panic!("{e}\n{text}"),
            Err(_) => continue,
        };
        instructions += n;
        let mut p = Program::new(Encoding::IvyBridge, &code);
        p.set_jit(true);
        covered += p.micro_op_coverage().0;
        compiled += p.jit_coverage();
        if text.contains("if(8)") {
            branching += 1;
        }
        if text.contains("math") {
            math += 1;
        }
        for seed in 0..3 {
            same_all_ways(
                &format!("random kernel:\n{text}"),
                &code,
                simd,
                seed + kernels as u64,
            );
        }
        kernels += 1;
    }
    assert!(branching >= 60, "only {branching} kernels branch");
    assert!(math >= 100, "only {math} kernels have math");
    assert!(
        compiled * 4 > instructions,
        "only {compiled} of {instructions} random instructions compiled"
    );
    assert!(
        instructions > 3000,
        "only {instructions} random instructions assembled"
    );
    assert!(
        covered * 2 > instructions,
        "only {covered} of {instructions} random instructions have micro-ops"
    );
}

/// A random double-precision instruction in the forms crocus emits for Ivy Bridge
/// (`tests/df.rs`): align1 `<8,8,1>DF` and scalar `<0,2,1>DF` sources with modifiers,
/// F/D/UD -> DF through `<1,2,0>`, DF -> F/D/UD into `<1>` destinations, `.sat`,
/// conditions, predicates, quarter and nibble controls, align16 `mad` and swizzled moves.
fn random_df_instruction(rng: &mut Rng) -> String {
    let reg = |rng: &mut Rng| 2 + rng.below(40) * 2;
    let df_src = |rng: &mut Rng| -> String {
        let m = *rng.pick(&["", "", "-", "(abs)", "-(abs)"]);
        if rng.below(4) == 0 {
            format!("{m}g{}.{}<0,2,1>DF", reg(rng), rng.below(4))
        } else {
            format!("{m}g{}<8,8,1>DF", reg(rng))
        }
    };
    let ctl = *rng.pick(&["1Q", "1Q", "2N", "2Q", "4N"]);
    let pred = if rng.below(4) == 0 {
        *rng.pick(&["(+f0.0) ", "(-f0.1) ", "(+f1.0) "])
    } else {
        ""
    };
    let dst = 60 + rng.below(30) * 2;
    match rng.below(8) {
        0..=2 => {
            let op = *rng.pick(&["add", "mul", "add", "mul"]);
            let sat = if rng.below(5) == 0 { ".sat" } else { "" };
            let cond = if rng.below(4) == 0 {
                *rng.pick(&[".z.f0.0", ".l.f0.1", ".g.f1.0", ".nz.f0.0"])
            } else {
                ""
            };
            // One instruction has one flag register: a condition goes unpredicated.
            let pred = if cond.is_empty() { pred } else { "" };
            format!(
                "{pred}{op}{sat}{cond}(8) g{dst}<1>DF {} {} {{ align1 {ctl} }};",
                df_src(rng),
                df_src(rng)
            )
        }
        3 => {
            let op = *rng.pick(&["cmp.l.f0.0", "cmp.ge.f0.1", "cmpn.l.f1.0", "cmp.nz.f0.0"]);
            let d = if rng.below(2) == 0 {
                format!("g{dst}<1>DF")
            } else {
                "null<1>DF".into()
            };
            format!(
                "{op}(8) {d} {} {} {{ align1 {ctl} }};",
                df_src(rng),
                df_src(rng)
            )
        }
        4 => {
            let op = *rng.pick(&["sel.l", "sel.ge"]);
            let sel = if pred.is_empty() { op } else { "sel" };
            format!(
                "{pred}{sel}(8) g{dst}<1>DF {} {} {{ align1 {ctl} }};",
                df_src(rng),
                df_src(rng)
            )
        }
        5 => {
            // Conversions both ways.
            let t = *rng.pick(&["F", "D", "UD"]);
            let sat = if rng.below(5) == 0 { ".sat" } else { "" };
            if rng.below(2) == 0 {
                format!(
                    "{pred}mov{sat}(8) g{dst}<1>DF g{}<1,2,0>{t} {{ align1 {ctl} }};",
                    reg(rng)
                )
            } else {
                format!(
                    "{pred}mov{sat}(8) g{dst}<1>{t} {} {{ align1 {ctl} }};",
                    df_src(rng)
                )
            }
        }
        6 => {
            let neg = *rng.pick(&["", "-"]);
            format!(
                "{pred}mad(8) g{dst}<1>DF g{}<4,4,1>DF g{}<4,4,1>DF {neg}g{}<4,4,1>DF {{ align16 1Q }};",
                reg(rng),
                reg(rng),
                reg(rng)
            )
        }
        _ => {
            let wm = *rng.pick(&[".x", ".y", ".z", ".w", ".xyzw"]);
            let sw = *rng.pick(&[".xyxy", ".zwzw", ".xyzw"]);
            format!(
                "{pred}mov(8) g{dst}<1>{wm}DF g{}<0>{sw}DF {{ align16 {} }};",
                reg(rng),
                *rng.pick(&["1Q", "2N"])
            )
        }
    }
}

/// The predecoded DF instructions (`df::DfOp`) against the per-channel path: random
/// kernels of DF instructions give the same bits all three ways, from register files
/// whose doubles are built of NaNs, infinities, denormal halves and integers.
#[test]
fn random_df_kernels_give_the_same_bits_on_every_path() {
    let mut rng = Rng(seed(0xdf64_0001, 6));
    let mut ran = 0;
    for case in 0..150u64 {
        let lines: Vec<String> = (0..1 + rng.below(8))
            .map(|_| random_df_instruction(&mut rng))
            .collect();
        let text = format!(
            "mov(1) f0<1>UD g1<0,1,0>UD {{ align1 WE_all 1N }};\n\
             mov(1) f1<1>UD g1.1<0,1,0>UD {{ align1 WE_all 1N }};\n{}\n",
            lines.join("\n")
        );
        let code = match assemble(&text, Compaction::Never) {
            Ok(c) => c,
            Err(e) => panic!("case {case}: {e}\n{text}"),
        };
        let simd = *rng.pick(&[8u8, 16]);
        same_all_ways(&format!("df case {case}\n{text}"), &code, simd, case);
        ran += 1;
    }
    assert_eq!(ran, 150);
}

/// A program that runs long reaches the JIT's optimized tier by itself (quick code at
/// `REPAY` executions per instruction, optimized code at 20 times that), and every
/// thread along the way, interpreted, quick or optimized, ends with the same bits.
#[test]
fn a_long_running_program_moves_up_the_tiers_with_the_same_bits() {
    let mut rng = Rng(seed(0x7133, 7));
    let (text, _) = random_loop_kernel(&mut rng, 8, 4).unwrap();
    let code = assemble(&text, Compaction::Never).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let want = run(&code, 8, 5, Mode::PerChannel);
    let mut prog = Program::new(Encoding::IvyBridge, &code);
    // Without the disk cache, which may hold the optimized code from an earlier run.
    prog.set_jit_cache(None);
    let mut tiers = vec![];
    // Until the optimized tier: a kernel whose loop breaks at once executes a handful of
    // instructions a run, so it may take tens of thousands of runs to reach
    // OPTIMIZE × REPAY executions per instruction; the bound only stops a runaway.
    for _ in 0..400_000 {
        let mut t = thread(8, 5);
        let mut sf = Recorder::default();
        let result = t.run_program(&prog, &mut sf as &mut dyn SharedFunctions, 200_000);
        let got = (
            t.snapshot(),
            format!("{:?}", sf.messages),
            format!("{result:?}"),
        );
        same("tiering", 5, &want, &got);
        let tier = (prog.jit_coverage() > 0, prog.jit_optimized());
        if tiers.last() != Some(&tier) {
            tiers.push(tier);
        }
        if tier.1 {
            break;
        }
    }
    assert_eq!(
        tiers,
        [(false, false), (true, false), (true, true)],
        "{text}"
    );
}

/// `Program::alike_from`: two threads of a random kernel that agree from its lowest
/// register read on, and differ below it, send the same messages, end the same way and
/// leave the same registers from there on, interpreted and compiled alike. A kernel whose
/// threads the analysis wrongly calls alike (a read it missed below `r`) fails here.
#[test]
fn threads_alike_above_the_lowest_register_read_behave_alike() {
    let mut rng = Rng(seed(0xa11e, 8));
    let (mut kernels, mut low) = (0, 0);
    let mut attempts = 0;
    while kernels < 150 {
        attempts += 1;
        assert!(attempts < 3000, "random kernels do not assemble");
        let (text, simd) = if kernels % 3 == 2 {
            let Some((text, _)) = random_branching_kernel(&mut rng) else {
                continue;
            };
            (text, 8)
        } else {
            let (text, _) = random_lines(&mut rng, 16);
            (text, *rng.pick(&[8u8, 16]))
        };
        let Ok(code) = assemble(&text, Compaction::Never) else {
            continue;
        };
        let Some(r) = Program::new(Encoding::IvyBridge, &code).alike_from() else {
            continue;
        };
        kernels += 1;
        if r > 1 {
            low += 1;
        }
        let seed = kernels as u64;
        let a = thread(simd, seed);
        let mut b = a.clone();
        let other = thread(simd, seed + 1000);
        b.grf_bytes_mut()[..r * 32].copy_from_slice(&other.grf_bytes()[..r * 32]);
        for mode in [Mode::MicroOps, Mode::Jit] {
            let run = |t: Thread| {
                let mut prog = Program::new(Encoding::IvyBridge, &code);
                prog.set_jit(mode == Mode::Jit);
                let mut t = t;
                let mut sf = Recorder::default();
                let result = t.run_program(&prog, &mut sf as &mut dyn SharedFunctions, 200_000);
                (
                    format!("{result:?}"),
                    format!("{:?}", sf.messages),
                    t.grf_bytes()[r * 32..].to_vec(),
                )
            };
            let (x, y) = (run(a.clone()), run(b.clone()));
            assert_eq!(x.0, y.0, "results ({mode:?}, alike from g{r}):\n{text}");
            assert_eq!(x.1, y.1, "messages ({mode:?}, alike from g{r}):\n{text}");
            assert!(x.2 == y.2, "registers from g{r} ({mode:?}):\n{text}");
        }
    }
    assert!(low >= 30, "only {low} kernels read nothing below g2");
}
