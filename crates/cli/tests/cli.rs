//! The `gtsim` binary as a user runs it.

use std::process::Command;

fn gtsim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gtsim"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("gtsim runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("gtsim-cli-{}-{name}", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn decode_without_a_file_decodes_the_embedded_sample() {
    let (code, out, err) = gtsim(&["decode"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("3DPRIMITIVE")
            && out.contains("RENDER_SURFACE_STATE[0]")
            && out.contains("kernel"),
        "{out}"
    );
}

#[test]
fn decode_a_raw_batch_with_a_bad_command() {
    // MI_NOOP, an unknown type-7 dword, MI_BATCH_BUFFER_END.
    let bytes: Vec<u8> = [0u32, 0xe000_0000, 0x0500_0000]
        .iter()
        .flat_map(|d| d.to_le_bytes())
        .collect();
    let f = temp("raw.bin", &bytes);
    let (code, out, err) = gtsim(&["decode", "--base", "0x4000", f.to_str().unwrap()]);
    assert_eq!(code, 1, "problems give exit status 1: {err}");
    assert!(
        out.contains("0x00004004:  error: unknown command 0xe0000000"),
        "{out}"
    );
    assert!(
        out.contains("0x00004008:  0x05000000:  MI_BATCH_BUFFER_END"),
        "{out}"
    );
    assert!(err.contains("1 problem"), "{err}");
}

#[test]
fn raw_dwords_are_shown_on_request() {
    let bytes: Vec<u8> = [0x0500_0000u32]
        .iter()
        .flat_map(|d| d.to_le_bytes())
        .collect();
    let f = temp("raw2.bin", &bytes);
    let (code, out, _) = gtsim(&["decode", "--raw", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("dw0: 0x05000000"), "{out}");
}

#[test]
fn colour_can_be_forced() {
    let (_, out, _) = gtsim(&["decode", "--color", "always"]);
    assert!(out.contains("\u{1b}["), "ANSI escapes expected");
}

#[test]
fn unsupported_generation_and_missing_file_are_clear_errors() {
    let (code, _, err) = gtsim(&["decode", "--gen", "8"]);
    assert_eq!(code, 2);
    assert!(err.contains("generation 8 is not modelled"), "{err}");
    let (code, _, err) = gtsim(&["decode", "/nonexistent/batch.bin"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read /nonexistent/batch.bin"), "{err}");
}
