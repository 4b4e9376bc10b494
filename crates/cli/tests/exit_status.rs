//! The exit-status convention of every subcommand (docs/FEATURES.md "Exit status"): 1 = problems
//! in the input, 2 = the input could not be read or bad usage; and the input bounds.

use std::path::PathBuf;
use std::process::{Command, Output};

fn gtsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gtsim"))
        .args(args)
        .output()
        .expect("run gtsim")
}

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gtsim-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn status(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const MOV: &str = "mov(8) g2<1>F g3<8,8,1>F { align1 1Q };\n";

#[test]
fn decode_bounds_its_input() {
    // /dev/zero never ends: refused once past the documented maximum.
    if std::path::Path::new("/dev/zero").exists() {
        let o = gtsim(&["decode", "/dev/zero"]);
        assert_eq!(status(&o), 2, "{}", stderr(&o));
        assert!(stderr(&o).contains("larger than"), "{}", stderr(&o));
    }
    // MI_NOOP (0) then MI_BATCH_BUFFER_END (0x05000000), then one stray byte.
    let f = tmp("trailing.bin", &[0, 0, 0, 0, 0, 0, 0, 5, 1]);
    let o = gtsim(&["decode", "--format", "raw", f.to_str().unwrap()]);
    assert_eq!(status(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("byte 0x8"), "{}", stderr(&o));
    // A base that would wrap past 2^64 is bad usage.
    let f = tmp("two.bin", &[0, 0, 0, 0, 0, 0, 0, 5]);
    let o = gtsim(&["decode", "--format", "raw", "--base", "0xfffffffffffffffc"]);
    assert_eq!(status(&o), 2, "{}", stderr(&o));
    let o = gtsim(&[
        "decode",
        "--format",
        "raw",
        "--base",
        "0xfffffffffffffffc",
        f.to_str().unwrap(),
    ]);
    assert_eq!(status(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--base"), "{}", stderr(&o));
    let o = gtsim(&["decode", "/nonexistent/gtsim-input"]);
    assert_eq!(status(&o), 2, "{}", stderr(&o));
}

#[test]
fn disasm_prints_what_decodes_before_a_bad_instruction() {
    let good = {
        let a = tmp("one.asm", MOV.as_bytes());
        let out = a.with_extension("bin");
        let o = gtsim(&[
            "asm",
            "--no-compact",
            a.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(status(&o), 0, "{}", stderr(&o));
        std::fs::read(out).unwrap()
    };
    // The good instruction, then 16 bytes of 0xff (width code 7 is reserved).
    let mut bytes = good.clone();
    bytes.extend([0xff; 16]);
    let f = tmp("bad.bin", &bytes);
    let o = gtsim(&["disasm", f.to_str().unwrap()]);
    assert_eq!(status(&o), 1, "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("mov(8)"));
    assert!(stderr(&o).contains("byte offset 0x10"), "{}", stderr(&o));
}

#[test]
fn asm_and_exec_report_bad_input_with_status_1() {
    let f = tmp(
        "bad.asm",
        format!("{MOV}mov(8) acc255<1>F g3<8,8,1>F {{ align1 1Q }};\n").as_bytes(),
    );
    let out = f.with_extension("bin");
    let o = gtsim(&["asm", f.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(status(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("line 2"), "{}", stderr(&o));
    let o = gtsim(&["exec", f.to_str().unwrap()]);
    assert_eq!(status(&o), 1, "{}", stderr(&o));
    // A runaway kernel ends at its budget as an input problem.
    let f = tmp(
        "loop.asm",
        b"LABEL0:\nwhile(8) JIP: LABEL0 { align1 1Q };\n",
    );
    let o = gtsim(&["exec", "--budget", "1000", f.to_str().unwrap()]);
    assert_eq!(status(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("runaway"), "{}", stderr(&o));
}

#[test]
fn set_values_that_do_not_fit_are_usage_errors() {
    let f = tmp("nop.asm", b"nop ;\n");
    for (set, what) in [
        ("g2:ub=300", "value 0"),
        ("g2:ub=1,2,256", "value 2"),
        ("g2:w=0x1ffff", "value 0"),
        ("g2:d=4294967296", "value 0"),
        ("g2:f=1e300", "too large"),
    ] {
        let o = gtsim(&["exec", f.to_str().unwrap(), "--set", set]);
        assert_eq!(status(&o), 2, "{set}: {}", stderr(&o));
        assert!(stderr(&o).contains(what), "{set}: {}", stderr(&o));
    }
    // The type's limits themselves are fine; signed types take bit patterns too.
    let o = gtsim(&[
        "exec",
        f.to_str().unwrap(),
        "--set",
        "g2:ub=255",
        "--set",
        "g3:b=0xff",
        "--dump",
        "g3:b",
    ]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("g3:b = -1 "));
}
