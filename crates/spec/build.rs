//! Generates `shared.rs` from `defs/shared/*.spec` (the enumerations every generation
//! encodes alike), `gen7.rs` from `defs/gen7/*.spec` and `gen11.rs` from
//! `defs/gen11/*.spec` (see `defs/FORMAT.md`).

use std::path::Path;

fn main() {
    for generation in [gtsim_spec_gen::SHARED, "gen7", "gen11"] {
        let dir = Path::new("defs").join(generation);
        println!("cargo::rerun-if-changed={}", dir.display());
        let (spec, errors) = match gtsim_spec_gen::load(&dir) {
            Ok(x) => x,
            Err(e) => panic!("cannot read {}: {e}", dir.display()),
        };
        if !errors.is_empty() {
            for e in &errors {
                println!("cargo::warning={generation}/{e}");
            }
            panic!(
                "{} problems in defs/{generation} (run `cargo run -p gtsim-spec-gen -- check crates/spec/defs/{generation}`)",
                errors.len()
            );
        }
        let code = gtsim_spec_gen::codegen::generate(&spec, generation);
        let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"))
            .join(format!("{generation}.rs"));
        std::fs::write(&out, code)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
    }
}
