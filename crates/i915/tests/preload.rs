//! The library preloaded into a real process: several threads open the render node and
//! create, map, submit and close buffer objects through the C entry points, with bad
//! arguments mixed in (i915-stress checks every errno).

use std::path::PathBuf;
use std::process::Command;

fn library() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_i915-stress"));
    let lib = exe.parent().unwrap().join("libgtsim_i915.so");
    assert!(lib.is_file(), "{} not built", lib.display());
    lib
}

#[test]
fn concurrent_clients_through_the_preloaded_library() {
    let out = Command::new(env!("CARGO_BIN_EXE_i915-stress"))
        .env("LD_PRELOAD", library())
        .env("GTSIM_I915_QUIET", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stress failed: {stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok: 4 threads x 50 rounds"));
}

#[test]
fn without_the_library_there_is_no_device() {
    // Control: the same program without the preload cannot open the emulated node (this
    // machine has no Ivy Bridge), which shows the library is what answers.
    let out = Command::new(env!("CARGO_BIN_EXE_i915-stress"))
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap();
    assert!(!out.status.success());
}
