//! The library preloaded into a real process: several threads open the render node and
//! create, map, submit and close buffer objects through the C entry points, with bad
//! arguments mixed in (i915-stress checks every errno).

use std::path::PathBuf;
use std::process::Command;

fn library() -> PathBuf {
    // `cargo test` leaves the cdylib it just built in deps/; `cargo build` also copies one
    // beside the binaries, which may be older (or another checkout's, in a shared target
    // directory), so deps/ comes first.
    let dir = PathBuf::from(env!("CARGO_BIN_EXE_i915-stress"))
        .parent()
        .unwrap()
        .to_path_buf();
    let found = [
        dir.join("deps/libgtsim_i915.so"),
        dir.join("libgtsim_i915.so"),
    ]
    .into_iter()
    .find(|p| p.is_file());
    found.unwrap_or_else(|| panic!("libgtsim_i915.so not built in {}", dir.display()))
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

/// A timeline wait for a submission blocks, with the emulation's lock released, until
/// another thread signals the point, and times out at its deadline otherwise
/// (`i915-stress wait`).
#[test]
fn a_syncobj_wait_blocks_until_another_thread_signals() {
    let out = Command::new(env!("CARGO_BIN_EXE_i915-stress"))
        .arg("wait")
        .env("LD_PRELOAD", library())
        .env("GTSIM_I915_QUIET", "1")
        .env_remove("GTSIM_I915_WAIT_LIMIT_MS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "wait checks failed: {stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok: wait"));
}

#[test]
fn fds_closed_or_replaced_behind_the_close_hook_are_not_drm_fds() {
    let out = Command::new(env!("CARGO_BIN_EXE_i915-stress"))
        .arg("fds")
        .env("LD_PRELOAD", library())
        .env("GTSIM_I915_QUIET", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "fd checks failed: {stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok: fds"));
}

/// Random ioctls, mmaps and closes through the preloaded library in a child process
/// (`i915-stress fuzz CASES SEED`): it must exit normally, every errno must be one the
/// uapi knows and none EIO (a panic caught in a hook). `GTSIM_FUZZ_CASES` and
/// `GTSIM_FUZZ_SEED` scale it.
#[test]
fn fuzz_through_the_preloaded_library() {
    let cases = std::env::var("GTSIM_FUZZ_CASES").unwrap_or_else(|_| "3000".into());
    let seed = std::env::var("GTSIM_FUZZ_SEED").unwrap_or_else(|_| "1".into());
    let out = Command::new(env!("CARGO_BIN_EXE_i915-stress"))
        .args(["fuzz", &cases, &seed])
        .env("LD_PRELOAD", library())
        // Random syncobj waits for submissions nothing will make would block until
        // their (random) deadlines, as in the kernel: cap them.
        .env("GTSIM_I915_WAIT_LIMIT_MS", "1")
        .env("GTSIM_I915_QUIET", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stdout}");
    assert!(
        out.status.success(),
        "fuzz child failed ({:?}): {stderr}",
        out.status
    );
    assert!(stdout.contains("ok: fuzz"));
}

#[test]
fn buffer_object_mappings_cannot_reach_past_the_object() {
    let out = Command::new(env!("CARGO_BIN_EXE_i915-stress"))
        .arg("maps")
        .env("LD_PRELOAD", library())
        .env("GTSIM_I915_QUIET", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "map checks failed: {stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok: maps"));
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
