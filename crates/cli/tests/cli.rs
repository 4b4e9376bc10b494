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

#[test]
fn disasm_and_asm_round_trip_a_kernel() {
    // A SIMD8 fragment kernel crocus compiled (tests/corpus of gtsim-isa): four compacted
    // movs and an EOT render-target write.
    let words: [u32; 12] = [
        0x20010b01, 0x00027c00, 0x20150b01, 0x00027d00, 0x20190b01, 0x00027e00, 0x201d0b01,
        0x00027f00, 0x05600032, 0x20000c28, 0x008d0f80, 0x88031400,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let bin = temp("k.bin", &bytes);
    let (code, text, err) = gtsim(&["disasm", bin.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("mov(8)          g124<1>F        g2<0,1,0>F                      { align1 1Q compacted };"), "{text}");
    assert!(
        text.contains(
            "render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };"
        ),
        "{text}"
    );
    let asm = temp("k.asm", text.as_bytes());
    let out = std::env::temp_dir().join(format!("gtsim-cli-{}-k2.bin", std::process::id()));
    let (code, _, err) = gtsim(&[
        "asm",
        "--as-written",
        asm.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
    // Without compaction every instruction takes 16 bytes.
    let (code, _, _) = gtsim(&[
        "asm",
        "--no-compact",
        asm.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read(&out).unwrap().len(), 5 * 16);
}

#[test]
fn asm_errors_name_the_line() {
    let asm = temp(
        "bad.asm",
        b"mov(8) g1<1>F g2<8,8,1>F { align1 1Q };\nfrobnicate(8) g1<1>F { align1 };\n",
    );
    let out = std::env::temp_dir().join("gtsim-cli-bad.bin");
    let (code, _, err) = gtsim(&["asm", asm.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    // A problem in the input: exit status 1 (docs/FEATURES.md "Exit status").
    assert_eq!(code, 1);
    assert!(err.contains("line 2: unknown opcode `frobnicate`"), "{err}");
}

/// `gtsim exec --gen 11` assembles and runs Ice Lake machine code: g10 = 5, then + 7,
/// and the EOT send's thread spawner message is recorded; an unmodelled generation is
/// refused.
#[test]
fn exec_runs_an_ice_lake_kernel() {
    let k = temp(
        "exec-gen11.asm",
        b"mov(8)          g10<1>UD        0x00000005UD                    { align1 1Q };\n\
          add(8)          g10<1>UD        g10<8,8,1>UD    0x00000007UD    { align1 1Q };\n\
          mov(8)          g126<1>UD       g0<8,8,1>UD                     { align1 WE_all 1Q };\n\
          send(16)        null<1>UW       g126<8,8,1>UW   0x82000000\n\
          thread_spawner MsgDesc: mlen 1 rlen 0           { align1 WE_all 1H EOT };\n",
    );
    let (code, out, err) = gtsim(&[
        "exec",
        "--gen",
        "11",
        k.to_str().unwrap(),
        "--dump",
        "g10:ud",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("g10:ud = 12 12 12 12 12 12 12 12\n"), "{out}");
    assert!(
        out.contains("mlen 1 rlen 0") && out.contains("EOT"),
        "{out}"
    );
    let (code, _, err) = gtsim(&["exec", "--gen", "9", k.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("generation 9 is not modelled"), "{err}");
}

/// `gtsim exec` adds per channel as IEEE-754 says (1+0.5, inf+x = inf, NaN propagates,
/// 7 + -0 = 7, 8 + -8 = +0) and reports the EOT message it recorded.
#[test]
fn exec_runs_a_kernel_and_dumps_registers() {
    let k = temp(
        "exec-add.asm",
        b"add(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };\n\
          sendc(8) null<1>UW g124<8,8,1>UD 0x88031400\n\
          render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };\n",
    );
    let p = k.to_str().unwrap();
    let (code, out, err) = gtsim(&[
        "exec",
        p,
        "--set",
        "g2:f=1,2,3,4,5,6,7,8",
        "--set",
        "g3:f=0.5,0.5,0.5,0.5,inf,nan,-0,-8",
        "--dump",
        "g10:f",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("g10:f = 1.5 2.5 3.5 4.5 inf NaN 7 0\n"),
        "{out}"
    );
    assert!(
        out.contains("sfid 5 desc 0x08031400 mlen 4 rlen 0") && out.contains("EOT"),
        "{out}"
    );
    // ALT mode: infinity becomes FLT_MAX = (2 - 2^-23) * 2^127, NaN becomes 0.
    let (code, out, err) = gtsim(&[
        "exec",
        p,
        "--alt",
        "--set",
        "g2:f=1,2,3,4,5,6,7,8",
        "--set",
        "g3:f=0.5,0.5,0.5,0.5,inf,nan,-0,-8",
        "--dump",
        "g10:f",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("g10:f = 1.5 2.5 3.5 4.5 3.4028235e38 0 7 0\n"),
        "{out}"
    );
    // A runaway loop is a reported hang, not a stuck process.
    let l = temp(
        "exec-loop.asm",
        b"LABEL0:\nwhile(8) JIP: LABEL0 { align1 1Q };\n",
    );
    let (code, _, err) = gtsim(&["exec", l.to_str().unwrap(), "--budget", "1000"]);
    // A runaway kernel is a problem in the input: exit status 1.
    assert_eq!(code, 1);
    assert!(
        err.contains("thread hang") && err.contains("runaway"),
        "{err}"
    );
}

/// Replaying PS threads that are all alike (`gtsim_pipe3d`'s `replay`) writes the same
/// bytes as running each: the embedded triangle trace's clear is such a draw (BLORP's
/// replicated-data clear), and the log says its threads were replayed.
#[test]
fn replayed_ps_threads_write_what_running_them_writes() {
    let dir = std::env::temp_dir().join(format!("gtsim-cli-{}-ps-replay", std::process::id()));
    let run = |replay: &str| {
        let out = dir.join(replay);
        let o = Command::new(env!("CARGO_BIN_EXE_gtsim"))
            .args(["replay", "-o"])
            .arg(&out)
            .env("GTSIM_PS_REPLAY", replay)
            .env("GTSIM_PS_REPLAY_LOG", "1")
            .output()
            .expect("gtsim runs");
        assert!(o.status.success());
        let log = String::from_utf8_lossy(&o.stderr).into_owned();
        let replayed: u64 = log
            .lines()
            // The log line (`tracing`, target gtsim_pipe3d::draw::replay) ends with it.
            .filter_map(|l| l.split_once("PS threads: ").map(|(_, rest)| rest))
            .filter_map(|l| {
                l.split(", ")
                    .nth(1)?
                    .strip_suffix(" replayed")?
                    .parse::<u64>()
                    .ok()
            })
            .sum();
        let mut images: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        images.sort();
        (replayed, images)
    };
    let (none, ran) = run("0");
    let (some, replayed) = run("1");
    assert_eq!(none, 0);
    assert!(some > 100, "{some} PS threads replayed");
    assert!(!ran.is_empty());
    assert!(ran == replayed, "the images differ");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `gtsim doctor` on this machine: it lists crocus and iris, and exits 0 exactly when
/// `gtsim run` can work here (the preload library, given here as any existing file;
/// EGL; and crocus or iris where Debian puts them). With a preload library that does
/// not exist it says how to build it and exits 1.
#[test]
fn doctor_says_whether_gtsim_run_can_work_here() {
    let run = |lib: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_gtsim"))
            .arg("doctor")
            .env("GTSIM_I915_LIB", lib)
            .output()
            .expect("gtsim runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let lib = env!("CARGO_BIN_EXE_gtsim");
    let (code, out) = run(lib);
    assert!(out.contains("crocus") && out.contains("iris"), "{out}");
    let has = |p: &str| std::path::Path::new(p).is_file();
    let dri = "/usr/lib/x86_64-linux-gnu/dri";
    let can = has("/usr/lib/x86_64-linux-gnu/libEGL.so.1")
        && has("/usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0")
        && (has(&format!("{dri}/crocus_dri.so")) || has(&format!("{dri}/iris_dri.so")));
    assert_eq!(code, if can { 0 } else { 1 }, "{out}");
    let (code, out) = run("/nonexistent/libgtsim_i915.so");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("cargo build --release --workspace"), "{out}");
}
