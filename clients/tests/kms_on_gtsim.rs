//! KMS programs on the emulated display (`gtsim run --display DIR`, `crates/i915/src/
//! kms/`): Debian's `kmscube` (legacy mode setting and page flips through GBM, and
//! atomic commits with fences: `-A`) on
//! crocus (Gen7) and iris (Gen11), each frame written as a PNG, against llvmpipe on the
//! same emulated display (Mesa's kms_swrast through GBM and dumb buffers); and
//! `glmark2-es2-drm --validate`. kmscube
//! turns its cube by a fixed angle per frame, so frame N of every driver shows the same
//! picture. Skipped with a note when kmscube is not installed; CI installs it, and with
//! `CI` set a missing kmscube fails the test.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Frames kmscube renders (`-c`).
const FRAMES: usize = 30;

fn kmscube() -> Option<PathBuf> {
    let p = PathBuf::from("/usr/bin/kmscube");
    if p.is_file() {
        return Some(p);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must install kmscube (apt-get install -y kmscube)"
    );
    eprintln!("SKIPPED: kmscube is not installed (apt-get install -y kmscube)");
    None
}

/// Runs kmscube for [`FRAMES`] frames under `gtsim run --gen GEN --display DIR`, with
/// `driver` as Mesa's driver when given; the frames, in order. Its standard input is a
/// pipe nobody writes, which kmscube's legacy loop waits on beside the DRM fd (input
/// there ends it).
fn frames(bin: &Path, generation: u32, driver: Option<&str>, extra: &[&str]) -> Vec<PathBuf> {
    let name = format!(
        "gen{generation}-{}{}",
        driver.unwrap_or("native"),
        extra.join("")
    );
    let dir = common::scratch_dir("gtsim-kms").join(&name);
    run_kmscube(bin, generation, driver, &dir, extra);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    out.sort();
    out
}

/// Runs kmscube as [`frames`] says, with `extra` arguments, its frames going to
/// `display` (a folder, or a video).
fn run_kmscube(bin: &Path, generation: u32, driver: Option<&str>, display: &Path, extra: &[&str]) {
    let name = format!("gen{generation}-{}", driver.unwrap_or("native"));
    let dir = display;
    let log_path = dir.with_extension("log");
    let log = std::fs::File::create(&log_path).unwrap();
    let mut cmd = Command::new(common::gtsim());
    cmd.args(["run", "--gen", &generation.to_string(), "--display"])
        .arg(dir)
        .arg("--")
        .arg(bin)
        .args(["-c", &FRAMES.to_string()])
        .args(extra)
        .env("GTSIM_I915_QUIET", "1")
        // A small display keeps the debug build's frames quick.
        .env("GTSIM_DISPLAY_MODE", "320x240")
        .stdin(Stdio::piped())
        .stdout(log.try_clone().unwrap())
        .stderr(log);
    if let Some(d) = driver {
        cmd.env("MESA_LOADER_DRIVER_OVERRIDE", d);
    }
    let mut child = cmd.spawn().unwrap();
    // Held open, unwritten, until kmscube ends.
    let stdin = child.stdin.take();
    let status = child.wait().unwrap();
    drop(stdin);
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    assert!(status.success(), "kmscube on {name}: {log}");
    assert!(
        log.contains(&format!("Rendered {} frames", FRAMES - 1)) && !log.contains("GPU HANG"),
        "kmscube on {name}: {log}"
    );
}

/// `--display FILE.mkv`: the same run as a video ffmpeg encodes when kmscube exits
/// (CI installs ffmpeg), which ffprobe reads as [`FRAMES`] + 1 frames of the mode's
/// size.
#[test]
fn kmscube_frames_make_an_mkv_video() {
    let Some(bin) = kmscube() else {
        return;
    };
    if Command::new("ffprobe").arg("-version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "CI must install ffmpeg");
        eprintln!("SKIPPED: no ffmpeg (apt-get install -y ffmpeg)");
        return;
    }
    let video = common::scratch_dir("gtsim-kms").join("gen7.mkv");
    run_kmscube(&bin, 7, None, &video, &[]);
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args(["-show_entries", "stream=nb_read_frames,width,height"])
        .args(["-of", "csv=p=0"])
        .arg(&video)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("320,240,{}", FRAMES + 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `px` (RGB, `pixels` of them) is llvmpipe's `last` to within one level per channel on
/// all but 1 pixel in 1,000 (edge pixels, where the two rasterizers' coverage may part).
fn assert_like_llvmpipe(px: &[u8], last: &[u8], pixels: u32, what: &str) {
    let off = px
        .chunks(3)
        .zip(last.chunks(3))
        .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 1))
        .count();
    assert!(
        off * 1000 <= pixels as usize,
        "{what}: {off} pixels of the last frame differ from llvmpipe's"
    );
}

/// The frame's pixels as RGB.
fn rgb(path: &Path) -> (u32, u32, Vec<u8>) {
    let (w, h, px) = common::read_png(path);
    assert_eq!(px.len(), (w * h * 3) as usize, "{} is RGB", path.display());
    (w, h, px)
}

/// kmscube runs its frames on both generations: the first (its clear to grey, shown
/// by the mode set) is one grey, each later one shows the cube (hundreds of colours)
/// turning (frames 10 and 20 differ), and the last is llvmpipe's last on the same
/// display to within one level per channel on all but 1 pixel in 1,000 (edge pixels,
/// where the two rasterizers' coverage may part).
#[test]
fn kmscube_runs_on_both_generations_as_on_llvmpipe() {
    let Some(bin) = kmscube() else {
        return;
    };
    let reference = frames(&bin, 7, Some("kms_swrast"), &[]);
    assert_eq!(reference.len(), FRAMES + 1, "{reference:?}");
    let (rw, rh, last) = rgb(&reference[FRAMES]);
    for generation in [7, 11] {
        let got = frames(&bin, generation, None, &[]);
        assert_eq!(got.len(), FRAMES + 1, "gen {generation}: {got:?}");
        let (w, h, first) = rgb(&got[0]);
        assert_eq!(
            (w, h),
            (320, 240),
            "the display's mode (GTSIM_DISPLAY_MODE)"
        );
        assert!(
            first.chunks(3).all(|p| p == first[..3].as_ref()),
            "gen {generation}: the first frame is one colour"
        );
        let colours = |px: &[u8]| {
            px.chunks(3)
                .map(|p| [p[0], p[1], p[2]])
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        };
        let (_, _, a) = rgb(&got[10]);
        let (_, _, b) = rgb(&got[20]);
        assert!(
            colours(&a) > 100 && a != b,
            "gen {generation}: the cube turns"
        );
        let (w, h, px) = rgb(&got[FRAMES]);
        assert_eq!((w, h), (rw, rh));
        assert_like_llvmpipe(&px, &last, w * h, &format!("gen {generation}"));
    }
}

/// kmscube's textured mode (`-M rgba`: a texture uploaded through a linear GBM buffer,
/// exported as a dma-buf and imported as an EGLImage after the buffer is destroyed) on
/// both generations: the last frame is llvmpipe's to within one level on all but 1
/// pixel in 1,000, as the smooth cube's.
#[test]
fn kmscube_textured_runs_on_both_generations_as_on_llvmpipe() {
    let Some(bin) = kmscube() else {
        return;
    };
    let reference = frames(&bin, 7, Some("kms_swrast"), &["-M", "rgba"]);
    assert_eq!(reference.len(), FRAMES + 1, "{reference:?}");
    let (_, _, last) = rgb(&reference[FRAMES]);
    for generation in [7, 11] {
        let got = frames(&bin, generation, None, &["-M", "rgba"]);
        assert_eq!(got.len(), FRAMES + 1, "gen {generation}: {got:?}");
        let (w, h, px) = rgb(&got[FRAMES]);
        assert_like_llvmpipe(&px, &last, w * h, &format!("gen {generation}, textured"));
    }
}

/// kmscube's atomic path (`-A`: ATOMIC commits with ALLOW_MODESET, then non-blocking
/// flips carrying the GPU's fence in IN_FENCE_FD and taking the display's from
/// OUT_FENCE_PTR) on both generations, Ice Lake's with render-compressed framebuffers
/// (`-m`: I915_FORMAT_MOD_Y_TILED_CCS, two planes in one object). Its first commit
/// shows the frame the legacy path's first flip shows, so its last frame (index
/// [`FRAMES`] - 1) is llvmpipe's last on the same display (legacy kms_swrast, which has
/// no native fences for `-A`), to within one level on all but 1 pixel in 1,000.
#[test]
fn kmscube_atomic_runs_on_both_generations_as_on_llvmpipe() {
    let Some(bin) = kmscube() else {
        return;
    };
    let reference = frames(&bin, 7, Some("kms_swrast"), &[]);
    let (_, _, last) = rgb(&reference[FRAMES]);
    for (generation, extra) in [
        (7, &["-A"][..]),
        (11, &["-A", "-m", "0x0100000000000004"][..]),
    ] {
        let got = frames(&bin, generation, None, extra);
        assert_eq!(got.len(), FRAMES, "gen {generation} {extra:?}: {got:?}");
        let (w, h, px) = rgb(&got[FRAMES - 1]);
        assert_like_llvmpipe(&px, &last, w * h, &format!("gen {generation} {extra:?}"));
    }
}

/// `--capture` with a display: the trace holds each frame shown (a data write and a
/// CMD_AUB_DUMP_BMP), and `gtsim replay` writes them back as display-NNNNN.png, the same
/// pictures `--display` wrote, in order.
#[test]
fn captured_kmscube_frames_replay_as_displayed() {
    let Some(bin) = kmscube() else {
        return;
    };
    let dir = common::scratch_dir("gtsim-kms").join("capture");
    std::fs::create_dir_all(&dir).unwrap();
    let aub = dir.join("kmscube.aub");
    let shown = dir.join("shown");
    let mut cmd = Command::new(common::gtsim());
    cmd.args(["run", "--capture"])
        .arg(&aub)
        .arg("--display")
        .arg(&shown)
        .arg("--")
        .arg(&bin)
        .args(["-c", "5"])
        .env("GTSIM_I915_QUIET", "1")
        .env("GTSIM_DISPLAY_MODE", "320x240")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let stdin = child.stdin.take();
    assert!(child.wait().unwrap().success());
    drop(stdin);
    let replayed = dir.join("replayed");
    let out = Command::new(common::gtsim())
        .args(["replay", "-o"])
        .arg(&replayed)
        .arg(&aub)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for i in 1..=6 {
        let (w, h, want) = rgb(&shown.join(format!("frame-{i:05}.png")));
        let (rw, rh, got) = common::read_png(&replayed.join(format!("display-{i:05}.png")));
        assert_eq!((rw, rh), (w, h));
        let got: Vec<u8> = got.chunks(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        assert!(got == want, "display frame {i} differs from what was shown");
    }
    assert!(!replayed.join("display-00007.png").exists());
}

/// glmark2's own validation of its scenes (it renders a frame and checks pixels it
/// knows) on the emulated display: on both generations every scene's verdict is
/// llvmpipe's on the same display (kms_swrast), and the scenes llvmpipe validates
/// (build, phong shading) are validated. glmark2 2023.01's references fail some scenes
/// on llvmpipe too (texture, gouraud, bump, pulsar) and have none for others
/// ("Unknown"). Skipped with a note when glmark2-es2-drm is not installed; CI installs
/// it.
#[test]
fn glmark2_validates_its_scenes_as_on_llvmpipe() {
    let bin = PathBuf::from("/usr/bin/glmark2-es2-drm");
    if !bin.is_file() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install glmark2-es2-drm"
        );
        eprintln!("SKIPPED: glmark2-es2-drm is not installed (apt-get install -y glmark2-es2-drm)");
        return;
    }
    let scenes = [
        "build:use-vbo=true",
        "shading:shading=phong",
        "texture",
        "shading:shading=gouraud",
        "function",
    ];
    let verdicts = |generation: u32, driver: Option<&str>| {
        let name = format!("glmark2-gen{generation}-{}", driver.unwrap_or("native"));
        let log = common::scratch_dir("gtsim-kms").join(format!("{name}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let mut cmd = Command::new(common::gtsim());
        cmd.args(["run", "--gen", &generation.to_string(), "--"])
            .arg(&bin)
            .arg("--validate")
            .env("GTSIM_I915_QUIET", "1")
            .env("GTSIM_DISPLAY_MODE", "320x240")
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file);
        if let Some(d) = driver {
            cmd.env("MESA_LOADER_DRIVER_OVERRIDE", d);
        }
        for s in scenes {
            cmd.args(["-b", s]);
        }
        // glmark2 exits 1 when a scene fails its validation: the verdicts are compared.
        cmd.status().unwrap();
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(!text.contains("GPU HANG"), "{name}: {text}");
        let v: Vec<String> = text
            .lines()
            .filter(|l| l.contains("Validation: "))
            .map(str::to_string)
            .collect();
        assert_eq!(v.len(), scenes.len(), "{name}: {text}");
        v
    };
    let reference = verdicts(7, Some("kms_swrast"));
    for scene in &reference[..2] {
        assert!(
            scene.ends_with("Validation: Success"),
            "llvmpipe: {reference:?}"
        );
    }
    for generation in [7, 11] {
        assert_eq!(verdicts(generation, None), reference, "gen {generation}");
    }
}
