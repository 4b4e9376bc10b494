//! With the `embed-preload` feature (what `cargo install` should use), builds the i915
//! emulation's preload library (`libgtsim_i915.so`, the `gtsim-i915` crate's cdylib) in
//! a target directory of its own and hands its path to the compiler, which embeds it in
//! the `gtsim` binary (`run::find_library` extracts it when no library lies beside the
//! binary). Cargo cannot depend on another package's cdylib, so this runs a nested
//! `cargo build` of the same workspace; without the feature nothing happens and the
//! library is found beside the binary, as `cargo build --workspace` leaves it.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_FEATURE_EMBED_PRELOAD");
    if std::env::var_os("CARGO_FEATURE_EMBED_PRELOAD").is_none() {
        return;
    }
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let workspace = manifest.join("../../Cargo.toml");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let target = out.join("preload-target");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // The library's sources: rebuild when any crate of the workspace changes.
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("../../crates").display()
    );
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--lib",
            "-p",
            "gtsim-i915",
            "--manifest-path",
        ])
        .arg(&workspace)
        .arg("--target-dir")
        .arg(&target)
        // The outer build's flags and jobserver are for the outer build.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_MAKEFLAGS")
        .status()
        .expect("cannot run cargo to build the preload library");
    assert!(
        status.success(),
        "building libgtsim_i915.so for embedding failed"
    );
    let lib = target.join("release/libgtsim_i915.so");
    assert!(lib.is_file(), "{} was not built", lib.display());
    println!("cargo:rustc-env=GTSIM_EMBEDDED_PRELOAD={}", lib.display());
}
