//! `gtsim-spec-gen`: reads gtsim's declarative spec files (`crates/spec/defs`), checks
//! them, and generates Rust: typed structs with `pack`/`unpack` and the static field
//! tables the decoder walks.
//!
//! The format is defined in `crates/spec/defs/FORMAT.md`. The generator is ordinary,
//! deterministic code: definitions are emitted in name order, so the same spec always
//! gives byte-identical output (`specgen dump DIR` prints it for review).

pub mod check;
pub mod codegen;
pub mod import;
pub mod model;
pub mod parse;
pub mod seedref;
pub mod seedrows;

pub use model::Spec;
pub use parse::SpecError;

/// The folder beside the generations' folders that holds the enumerations every
/// generation encodes alike (`defs/shared`): surface formats, compare functions, blend
/// factors, ... A generation's definitions refer to them by name; they are generated
/// once, into `gtsim_spec::shared`.
pub const SHARED: &str = "shared";

/// Parses and checks a directory of spec files. A generation's folder (any but
/// [`SHARED`]) also sees the enumerations of its sibling `shared` folder, when there is
/// one, marked [`model::EnumDef::external`]; a name defined in both is an error.
pub fn load(dir: &std::path::Path) -> Result<(Spec, Vec<SpecError>), std::io::Error> {
    let (mut spec, mut errors) = parse::parse_dir(dir)?;
    let shared = dir.parent().map(|p| p.join(SHARED));
    let is_shared = dir.file_name().is_some_and(|n| n == SHARED);
    if let Some(shared) = shared.filter(|s| !is_shared && s.is_dir()) {
        let (common, common_errors) = parse::parse_dir(&shared)?;
        errors.extend(common_errors);
        for (name, mut e) in common.enums {
            if let Some(local) = spec.enums.get(&name) {
                errors.push(SpecError {
                    loc: local.loc.clone(),
                    msg: format!("enum `{name}` is also defined in {}", e.loc),
                });
                continue;
            }
            e.external = Some(SHARED.to_string());
            spec.enums.insert(name, e);
        }
    }
    errors.extend(check::check(&mut spec));
    Ok((spec, errors))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!(
            "gtsim-spec-gen-shared-{}-{}",
            std::process::id(),
            files.len()
        ));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().expect("a file in a folder")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        }
        root
    }

    const SHARED_ENUM: &str = "enum Colour\n  source test\n  0 RED\n  1 GREEN\n";
    const GEN_STRUCT: &str = "struct THING  dwords 1\n  source test\n  0 1:0   Hue : enum Colour\n  0 31:2  Reserved : mbz\n";

    #[test]
    fn a_generation_refers_to_a_shared_enumeration_by_absolute_path() {
        let root = tree(&[("shared/e.spec", SHARED_ENUM), ("genx/s.spec", GEN_STRUCT)]);
        let (spec, errors) = load(&root.join("genx")).expect("readable");
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(spec.enums["Colour"].external.as_deref(), Some(SHARED));
        let code = codegen::generate(&spec, "genx");
        // The field's type and its table entry point into `crate::shared`, and the
        // generation does not define the enumeration again.
        assert!(code.contains("crate::shared::Colour"), "{code}");
        assert!(code.contains("&crate::shared::ENUM_COLOUR"), "{code}");
        assert!(!code.contains("pub struct Colour"), "{code}");
        let (shared, errors) = load(&root.join("shared")).expect("readable");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(codegen::generate(&shared, SHARED).contains("pub struct Colour"));
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn an_enumeration_defined_in_both_places_is_an_error() {
        let root = tree(&[
            ("shared/e.spec", SHARED_ENUM),
            ("genx/e.spec", SHARED_ENUM),
            ("genx/s.spec", GEN_STRUCT),
        ]);
        let (_, errors) = load(&root.join("genx")).expect("readable");
        assert!(
            errors.iter().any(|e| e.msg.contains("also defined")),
            "{errors:?}"
        );
        let _ = std::fs::remove_dir_all(root);
    }
}
