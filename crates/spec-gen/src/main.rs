//! `specgen`: check spec files, or dump the generated Rust for review.
//!
//! ```text
//! specgen check DIR        report every problem with file:line, exit 1 if any
//! specgen dump DIR [GEN]   print the generated Rust module
//! specgen stats DIR        count definitions and fields
//! specgen seedcheck DIR [SEEDS]  compare bit ranges with the seeds' own tables
//! specgen import SEED_FILE  draft struct definitions from a structure reference (seed 003)
//! ```

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("rows") {
        return rows(args.get(1), args.get(2), args.get(3));
    }
    if args.first().map(String::as_str) == Some("import") {
        return import(args.get(1), args.get(2));
    }
    let (Some(cmd), Some(dir)) = (args.first(), args.get(1)) else {
        eprintln!("usage: specgen check|dump|stats DIR");
        return ExitCode::from(2);
    };
    let (spec, errors) = match gtsim_spec_gen::load(Path::new(dir)) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("specgen: cannot read {dir}: {e}");
            return ExitCode::from(2);
        }
    };
    for e in &errors {
        eprintln!("{e}");
    }
    match cmd.as_str() {
        "check" => {
            let fields: usize = spec.defs.values().map(|d| d.fields.len()).sum();
            println!(
                "{} definitions, {} enums, {fields} fields, {} problems",
                spec.defs.len(),
                spec.enums.len(),
                errors.len()
            );
        }
        "dump" => {
            if errors.is_empty() {
                print!(
                    "{}",
                    gtsim_spec_gen::codegen::generate(&spec, args.get(2).map_or("gen7", |s| s))
                );
            }
        }
        "seedcheck" => {
            let seeds = args.get(2).map_or("../shared/seeds", |s| s).to_string();
            if !Path::new(&seeds).is_dir() {
                // The seed documents live beside the repository, not in it.
                eprintln!(
                    "specgen seedcheck: no seed documents at {seeds}; name their folder: specgen seedcheck DIR SEEDS_DIR"
                );
                return ExitCode::from(2);
            }
            let exceptions = std::fs::read_to_string(Path::new(dir).join("seed-exceptions.txt"))
                .unwrap_or_default();
            let exceptions = gtsim_spec_gen::seedrows::parse_exceptions(&exceptions);
            let read = |n: &str| -> Option<String> {
                let entries = std::fs::read_dir(&seeds).ok()?;
                let path = entries.filter_map(|e| e.ok()).map(|e| e.path()).find(|p| {
                    p.file_name()
                        .is_some_and(|f| f.to_string_lossy().starts_with(&format!("{n}_")))
                })?;
                std::fs::read_to_string(path).ok()
            };
            let reports = gtsim_spec_gen::seedrows::check_spec(&spec, &read, &exceptions);
            print!("{}", gtsim_spec_gen::seedrows::report(&reports));
        }
        "stats" => {
            for d in spec.defs.values() {
                println!("{:?}\t{}\t{}\t{}", d.kind, d.name, d.dwords, d.fields.len());
            }
        }
        _ => {
            eprintln!("usage: specgen check|dump|stats DIR");
            return ExitCode::from(2);
        }
    }
    if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `specgen import SEED_FILE OUT_DIR`: the drafted definitions in
/// `OUT_DIR/seed003_<family>.spec`, what could not be drafted (and why) on stderr.
fn import(path: Option<&String>, out: Option<&String>) -> ExitCode {
    let (Some(path), Some(out)) = (path, out) else {
        eprintln!("usage: specgen import SEED_FILE OUT_DIR");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("specgen import: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let entries = gtsim_spec_gen::import::entries(&text);
    // Rows the spec deliberately differs from (OUT_DIR/seed-exceptions.txt, reviewed by
    // hand) do not make a table inconsistent.
    let excused = gtsim_spec_gen::seedrows::parse_exceptions(
        &std::fs::read_to_string(std::path::Path::new(out).join("seed-exceptions.txt"))
            .unwrap_or_default(),
    );
    // Tables written by hand (OUT_DIR/seed003_hand_*.spec) are not drafted again.
    let mut hand = gtsim_spec_gen::Spec::default();
    for entry in std::fs::read_dir(out).into_iter().flatten().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.starts_with("seed003_hand_") && file.ends_with(".spec") {
            let body = std::fs::read_to_string(entry.path()).unwrap_or_default();
            let _ = gtsim_spec_gen::parse::parse_into(&mut hand, &file, &body);
        }
    }
    let by_hand = hand.defs.into_keys().collect();
    let (drafted, skipped) = gtsim_spec_gen::import::draft_all(&text, &excused, &by_hand);
    let mut files: std::collections::BTreeMap<&str, String> = Default::default();
    for (family, d) in &drafted {
        let f = files.entry(family).or_insert_with(|| {
            "# Drafted from seed 003 (Gen11 Vol 2d, Command Reference: Structures) by\n# `specgen import`, then reviewed; each definition cites its seed lines.\n\n".to_string()
        });
        f.push_str(d);
        f.push('\n');
    }
    for (title, first, why) in &skipped {
        eprintln!("skipped {title} (L{first}): {why}");
    }
    let (ok, skipped) = (drafted.len(), skipped.len());
    for (family, body) in &files {
        let file = std::path::Path::new(out).join(format!("seed003_{family}.spec"));
        if let Err(e) = std::fs::write(&file, body) {
            eprintln!("specgen import: cannot write {}: {e}", file.display());
            return ExitCode::from(2);
        }
    }
    eprintln!(
        "{} table of contents entries, {} found in the body, {ok} drafted, {skipped} skipped",
        gtsim_spec_gen::import::toc(&text).len(),
        entries.len()
    );
    ExitCode::SUCCESS
}

/// `specgen rows SEED_FILE FIRST LAST`: the rows the seed-table extractor reads in lines
/// FIRST..=LAST (dword, bits, line, name), to see why a table reads as it does.
fn rows(path: Option<&String>, first: Option<&String>, last: Option<&String>) -> ExitCode {
    let (Some(path), Some(Ok(first)), Some(Ok(last))) = (
        path,
        first.map(|f| f.parse::<usize>()),
        last.map(|l| l.parse::<usize>()),
    ) else {
        eprintln!("usage: specgen rows SEED_FILE FIRST LAST");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("specgen rows: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    for r in gtsim_spec_gen::seedrows::extract(&text, first, last.max(first)) {
        println!(
            "dw{:<4} {:>3}:{:<3} L{:<6} {}",
            r.lo / 32,
            r.hi - r.lo / 32 * 32,
            r.lo % 32,
            r.line,
            r.name
        );
    }
    ExitCode::SUCCESS
}
