//! Prints the JIT's compile times of every corpus kernel, quick and optimized (without
//! the disk cache), and the time a later process takes to load the optimized code from
//! the disk cache instead (a scratch cache directory, deleted afterwards).
//!
//! Run: `cargo run --release -p gtsim-eu --example compile_time`.
#[path = "../tests/common/corpus.rs"]
mod corpus;

use gtsim_eu::exec::Program;
use gtsim_isa::Encoding;

fn ms(t: std::time::Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let dir = std::env::temp_dir().join(format!("gtsim-compile-time-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut totals = [0f64; 3];
    println!("   quick  optimized  cached (ms)");
    for k in corpus::kernels() {
        let mut p = Program::new(Encoding::IvyBridge, &k.code);
        p.set_jit_cache(None);
        let t = std::time::Instant::now();
        p.set_jit(true);
        let quick = ms(t);
        let t = std::time::Instant::now();
        p.optimize();
        let optimized = ms(t);
        // Compiled once more into the scratch cache, then loaded by a fresh program as
        // its first thread would (`optimize` looks in the cache first).
        let mut q = Program::new(Encoding::IvyBridge, &k.code);
        q.set_jit_cache(Some(dir.clone()));
        q.optimize();
        let mut r = Program::new(Encoding::IvyBridge, &k.code);
        r.set_jit_cache(Some(dir.clone()));
        let t = std::time::Instant::now();
        r.optimize();
        let cached = ms(t);
        for (total, v) in totals.iter_mut().zip([quick, optimized, cached]) {
            *total += v;
        }
        let (c, n) = p.micro_op_coverage();
        println!(
            "{quick:>8.2} {optimized:>10.2} {cached:>7.2}  {} of {} compiled ({} uops) SIMD{} {}",
            p.jit_coverage(),
            n,
            c,
            k.simd,
            &k.name[..40.min(k.name.len())]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "total: quick {:.1} ms, optimized {:.1} ms, loaded from the disk cache {:.1} ms",
        totals[0], totals[1], totals[2]
    );
}
