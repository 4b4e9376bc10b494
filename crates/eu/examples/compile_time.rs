//! Prints the JIT's compile time of every corpus kernel.
#[path = "../tests/common/corpus.rs"]
mod corpus;
fn main() {
    let all = std::time::Instant::now();
    for k in corpus::kernels() {
        let mut p = gtsim_eu::exec::Program::new(gtsim_isa::Encoding::IvyBridge, &k.code);
        let t = std::time::Instant::now();
        p.set_jit(true);
        let (c, n) = p.micro_op_coverage();
        println!(
            "{:>8.2} ms  {} of {} compiled ({} uops) SIMD{} {}",
            t.elapsed().as_secs_f64() * 1e3,
            p.jit_coverage(),
            n,
            c,
            k.simd,
            &k.name[..40.min(k.name.len())]
        );
    }
    println!("total {:.1} ms", all.elapsed().as_secs_f64() * 1e3);
}
