//! `gtsim-spec-gen`: reads gtsim's declarative spec files (`crates/spec/defs`), checks
//! them, and generates Rust: typed structs with `pack`/`unpack` and the static field
//! tables the decoder walks.
//!
//! The format is defined in `crates/spec/defs/FORMAT.md`. The generator is ordinary,
//! deterministic code: definitions are emitted in name order, so the same spec always
//! gives byte-identical output (`specgen dump DIR` prints it for review).

pub mod check;
pub mod codegen;
pub mod model;
pub mod parse;
pub mod seedref;
pub mod seedrows;

pub use model::Spec;
pub use parse::SpecError;

/// Parses and checks a directory of spec files.
pub fn load(dir: &std::path::Path) -> Result<(Spec, Vec<SpecError>), std::io::Error> {
    let (mut spec, mut errors) = parse::parse_dir(dir)?;
    errors.extend(check::check(&mut spec));
    Ok((spec, errors))
}
