//! The JIT's disk cache (`jit::cache`): code compiled by one program object (standing
//! for one process) and read back by another runs the corpus kernels to the same bits
//! as the interpreter, from the first thread on; damaged entries are not used, and are
//! replaced by the next compile.

mod common;

use gtsim_eu::exec::{Program, SharedFunctions, Thread};
use gtsim_eu::harness::Recorder;
use gtsim_isa::Encoding;
use std::path::PathBuf;

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "gtsim-jit-cache-test-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A thread with g1..g127 filled from a linear congruential sequence of small floats.
fn thread(simd: u8, seed: u32) -> Thread {
    let mut t = Thread::new(simd);
    let mut x = seed;
    for chunk in t.grf_bytes_mut()[32..].chunks_mut(4) {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        chunk.copy_from_slice(&((x >> 8) as f32 / (1u32 << 20) as f32 - 8.0).to_le_bytes());
    }
    t
}

/// One thread of `prog`: its bits, messages and result.
fn run(prog: &Program, simd: u8, seed: u32) -> (Vec<u64>, String, String) {
    let mut t = thread(simd, seed);
    let mut sf = Recorder::default();
    let result = t.run_program(prog, &mut sf as &mut dyn SharedFunctions, 200_000);
    (
        t.snapshot(),
        format!("{:?}", sf.messages),
        format!("{result:?}"),
    )
}

/// The interpreter's answer (the JIT off).
fn reference(code: &[u8], simd: u8, seed: u32) -> (Vec<u64>, String, String) {
    let mut p = Program::new(Encoding::IvyBridge, code);
    p.set_jit(false);
    run(&p, simd, seed)
}

/// A program of `code` keeping its compiled code in the disk cache at `dir`.
fn cached(code: &[u8], dir: &std::path::Path) -> Program {
    let mut p = Program::new(Encoding::IvyBridge, code);
    p.set_jit_cache(Some(dir.to_path_buf()));
    p
}

/// One thread of `p` (kernel `k`) from `seed` gives the interpreter's bits.
fn same_as_interpreter(p: &Program, k: &common::corpus::Kernel, seed: u32) {
    assert_eq!(
        run(p, k.simd, seed),
        reference(&k.code, k.simd, seed),
        "{}",
        k.name
    );
}

/// Whether the JIT is on by default here (`GTSIM_JIT=0` turns it off).
fn jit_on_by_default() -> bool {
    std::env::var("GTSIM_JIT").as_deref() != Ok("0")
}

/// Compiles every distinct corpus kernel at both tiers into `dir`; those that have
/// compiled code (some are not compiled at all), by index.
fn fill(dir: &std::path::Path) -> Vec<usize> {
    let mut with_code = vec![];
    let mut seen = std::collections::HashSet::new();
    for (i, k) in common::corpus::kernels().iter().enumerate() {
        if !seen.insert(k.code.clone()) {
            continue;
        }
        let mut p = cached(&k.code, dir);
        p.set_jit(true);
        p.optimize();
        same_as_interpreter(&p, k, 7);
        if p.jit_optimized() && p.jit_coverage() > 0 {
            with_code.push(i);
        }
    }
    with_code
}

#[test]
fn code_read_back_from_the_disk_cache_runs_from_the_first_thread_with_the_same_bits() {
    if !jit_on_by_default() {
        eprintln!("skipped: GTSIM_JIT=0 turns the JIT off");
        return;
    }
    let dir = scratch("corpus");
    let with_code = fill(&dir);
    let kernels = common::corpus::kernels();
    assert!(
        with_code.len() >= 20,
        "{} of {}",
        with_code.len(),
        kernels.len()
    );
    // A quick and an optimized entry for each.
    let entries = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(entries, 2 * with_code.len());
    for &i in &with_code {
        let k = &kernels[i];
        let p = cached(&k.code, &dir);
        assert!(!p.jit_optimized());
        // The first thread finds the optimized code: no tiering, no compiling.
        for seed in 1..=3 {
            same_as_interpreter(&p, k, seed);
            assert!(p.jit_optimized(), "{}: loaded from the cache", k.name);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_entries_are_not_run_and_the_next_compile_replaces_them() {
    if !jit_on_by_default() {
        eprintln!("skipped: GTSIM_JIT=0 turns the JIT off");
        return;
    }
    let dir = scratch("damaged");
    let with_code = fill(&dir);
    // Every entry damaged: a byte flipped in half of them, the other half cut short.
    for (n, e) in std::fs::read_dir(&dir).unwrap().flatten().enumerate() {
        let mut bytes = std::fs::read(e.path()).unwrap();
        if n % 2 == 0 {
            let mid = bytes.len() / 2;
            bytes[mid] ^= 0x40;
        } else {
            bytes.truncate(bytes.len() - 9);
        }
        std::fs::write(e.path(), bytes).unwrap();
    }
    let kernels = common::corpus::kernels();
    for &i in with_code.iter().take(12) {
        let k = &kernels[i];
        let p = cached(&k.code, &dir);
        same_as_interpreter(&p, k, 2);
        assert!(!p.jit_optimized(), "{}: a damaged entry was used", k.name);
        // Compiled again, the entry is whole again for the next program.
        p.optimize();
        let q = cached(&k.code, &dir);
        same_as_interpreter(&q, k, 2);
        assert!(q.jit_optimized(), "{}: the new entry was not found", k.name);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_cache_nothing_is_written_and_tiering_starts_over() {
    let k = &common::corpus::kernels()[0];
    let dir = scratch("none");
    let mut p = Program::new(Encoding::IvyBridge, &k.code);
    p.set_jit_cache(None);
    p.set_jit(true);
    p.optimize();
    let mut q = Program::new(Encoding::IvyBridge, &k.code);
    q.set_jit_cache(None);
    run(&q, k.simd, 1);
    assert!(!q.jit_optimized());
    assert!(!dir.exists());
}

/// A program whose quick code came from the disk cache was hot in an earlier process: it
/// is optimized as soon as it is hot in this one (`Tier::REPAY` executions per
/// instruction) rather than twenty times later, and the optimized code goes to the cache
/// for the next process.
#[test]
fn a_program_hot_in_an_earlier_process_is_optimized_when_hot_again() {
    if !jit_on_by_default() {
        eprintln!("skipped: GTSIM_JIT=0 turns the JIT off");
        return;
    }
    let dir = scratch("hot-before");
    let kernels = common::corpus::kernels();
    // A straight-line kernel the JIT covers: every run executes all of its instructions.
    let k = kernels
        .iter()
        .find(|k| {
            let mut p = Program::new(Encoding::IvyBridge, &k.code);
            p.set_jit_cache(None);
            p.set_jit(true);
            let (_, n) = p.micro_op_coverage();
            n >= 20 && p.jit_coverage() * 2 >= n
        })
        .expect("a kernel");
    let runs = |p: &Program, n: usize| {
        for seed in 0..n {
            run(p, k.simd, seed as u32);
        }
    };
    // The first process: quick code only, stored.
    let mut first = cached(&k.code, &dir);
    first.set_jit(true);
    assert!(!first.jit_optimized());
    // Without the cache, 600 threads (more than REPAY = 500 per instruction, far fewer
    // than 20 times that) stay on the quick code...
    let mut cold = Program::new(Encoding::IvyBridge, &k.code);
    cold.set_jit_cache(None);
    runs(&cold, 600);
    assert!(
        cold.jit_coverage() > 0 && !cold.jit_optimized(),
        "{}",
        k.name
    );
    // ...while the second process, which found the quick code, optimizes by then.
    let second = cached(&k.code, &dir);
    runs(&second, 1);
    assert!(
        second.jit_coverage() > 0 && !second.jit_optimized(),
        "{}",
        k.name
    );
    runs(&second, 600);
    assert!(second.jit_optimized(), "{}", k.name);
    same_as_interpreter(&second, k, 9);
    // The third loads the optimized code at its first thread.
    let third = cached(&k.code, &dir);
    runs(&third, 1);
    assert!(third.jit_optimized(), "{}", k.name);
    let _ = std::fs::remove_dir_all(&dir);
}
