//! The kernels crocus compiled for the demo clients and the benchmark frames (julia,
//! scene) (`crates/isa/tests/corpus/*.pairs`,
//! captured with INTEL_DEBUG; see that directory's README), shared by the interpreter
//! benchmark and the micro-op differential test.

/// A kernel from the corpus: its name, dispatch width and bytes.
pub struct Kernel {
    /// Program and shader name.
    pub name: String,
    /// Dispatch width.
    pub simd: u8,
    /// Machine code.
    pub code: Vec<u8>,
}

/// Every kernel of the corpus files of the demo clients (crocus, Ivy Bridge).
pub fn kernels() -> Vec<Kernel> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../isa/tests/corpus");
    read(
        dir,
        &[
            "clear",
            "triangle",
            "textured_quad",
            "depth",
            "blend",
            "shader_loops",
            "julia",
            "scene",
        ],
    )
}

/// Every kernel iris compiled for the demo clients on an emulated Ice Lake
/// (`crates/isa/tests/corpus/gen11`).
#[allow(dead_code, reason = "only the differential test runs Gen11 kernels")]
pub fn gen11_kernels() -> Vec<Kernel> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../isa/tests/corpus/gen11");
    read(
        dir,
        &[
            "atomic_counters",
            "blend",
            "clear",
            "compute_ssbo",
            "depth",
            "image_store",
            "julia",
            "scene",
            "shader_loops",
            "textured_quad",
            "triangle",
        ],
    )
}

fn read(dir: &str, programs: &[&str]) -> Vec<Kernel> {
    let mut out: Vec<Kernel> = vec![];
    for prog in programs {
        let text = std::fs::read_to_string(format!("{dir}/{prog}.pairs")).expect("corpus file");
        for line in text.lines() {
            if let Some(name) = line.strip_prefix("# shader: ") {
                out.push(Kernel {
                    name: format!("{prog}: {name}"),
                    simd: 8,
                    code: vec![],
                });
            } else if let Some(stats) = line.strip_prefix("# ") {
                if stats.starts_with("SIMD16 shader")
                    && let Some(k) = out.last_mut()
                {
                    k.simd = 16;
                }
            } else if let (Some(k), Some((hex, _))) = (out.last_mut(), line.split_once(" | ")) {
                for w in hex.split(' ') {
                    let w = u32::from_str_radix(w, 16).expect("hex word");
                    k.code.extend(w.to_le_bytes());
                }
            }
        }
    }
    out
}
