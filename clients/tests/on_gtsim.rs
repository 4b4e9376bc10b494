//! The test clients on the real driver: each runs on llvmpipe (the reference) and, through
//! `gtsim run`, on Mesa's crocus driver with the GPU emulated. On gtsim every client must
//! complete without a GPU hang and render the image llvmpipe renders, crocus must report
//! the emulated Ivy Bridge GT2, the capture must decode without a problem, and gtsim's
//! decode must agree field by field with crocus's own `INTEL_DEBUG=bat` decode of the
//! same batches.
//!
//! Needs Mesa (`apt-get install -y libgl1-mesa-dri libegl-mesa0 libegl1 libgbm1`). Where it
//! is missing the tests say so and pass, except under CI (`CI` set), where they fail.

mod common;

use common::read_png;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CLIENTS: &[(&str, &str)] = &[
    ("clear", env!("CARGO_BIN_EXE_clear")),
    ("triangle", env!("CARGO_BIN_EXE_triangle")),
    ("textured_quad", env!("CARGO_BIN_EXE_textured_quad")),
    ("depth", env!("CARGO_BIN_EXE_depth")),
    ("blend", env!("CARGO_BIN_EXE_blend")),
    ("shader_loops", env!("CARGO_BIN_EXE_shader_loops")),
    ("queries", env!("CARGO_BIN_EXE_queries")),
    ("lines", env!("CARGO_BIN_EXE_lines")),
    ("discard_depth", env!("CARGO_BIN_EXE_discard_depth")),
    ("clipping", env!("CARGO_BIN_EXE_clipping")),
    ("wireframe", env!("CARGO_BIN_EXE_wireframe")),
    ("points", env!("CARGO_BIN_EXE_points")),
    ("julia", env!("CARGO_BIN_EXE_julia")),
    ("scene", env!("CARGO_BIN_EXE_scene")),
    ("geometry", env!("CARGO_BIN_EXE_geometry")),
    ("tessellation", env!("CARGO_BIN_EXE_tessellation")),
    ("sampling", env!("CARGO_BIN_EXE_sampling")),
    ("msaa", env!("CARGO_BIN_EXE_msaa")),
    ("stipple", env!("CARGO_BIN_EXE_stipple")),
    ("dual_source", env!("CARGO_BIN_EXE_dual_source")),
    ("smooth_lines", env!("CARGO_BIN_EXE_smooth_lines")),
    ("compute_ssbo", env!("CARGO_BIN_EXE_compute_ssbo")),
    ("shared_reduction", env!("CARGO_BIN_EXE_shared_reduction")),
    ("atomic_counters", env!("CARGO_BIN_EXE_atomic_counters")),
    ("image_store", env!("CARGO_BIN_EXE_image_store")),
    ("spilling", env!("CARGO_BIN_EXE_spilling")),
    (
        "transform_feedback",
        env!("CARGO_BIN_EXE_transform_feedback"),
    ),
];

fn mesa_present() -> bool {
    let present = [
        "/usr/lib/x86_64-linux-gnu/dri/crocus_dri.so",
        "/usr/lib/x86_64-linux-gnu/libEGL.so.1",
    ]
    .iter()
    .all(|p| Path::new(p).is_file());
    if !present {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install Mesa (libgl1-mesa-dri libegl-mesa0 libegl1 libgbm1)"
        );
        eprintln!("SKIPPED: Mesa's crocus driver or libEGL is not installed");
    }
    present
}

/// Whether Mesa's iris driver is installed (the Gen11 tests need it; CI installs it with
/// libgl1-mesa-dri and must not skip).
fn iris_present() -> bool {
    let present = Path::new("/usr/lib/x86_64-linux-gnu/dri/iris_dri.so").is_file();
    if !present {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install Mesa's iris driver (libgl1-mesa-dri)"
        );
        eprintln!("SKIPPED: Mesa's iris driver is not installed");
    }
    present
}

/// target/<profile>/ (where gtsim and libgtsim_i915.so are built).
fn target_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_clear"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn gtsim() -> PathBuf {
    let p = target_dir().join("gtsim");
    assert!(
        p.is_file(),
        "{} not built (cargo build --workspace)",
        p.display()
    );
    p
}

fn tmp(name: &str) -> PathBuf {
    common::scratch_dir("gtsim-clients").join(name)
}

/// Runs `exe` on llvmpipe writing `png`; returns its standard output.
fn on_llvmpipe(name: &str, exe: &str, png: &Path) -> Vec<u8> {
    let out = Command::new(exe)
        .arg("--out")
        .arg(png)
        .env("LIBGL_ALWAYS_SOFTWARE", "1")
        .env("EGL_PLATFORM", "surfaceless")
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name} on llvmpipe: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs `exe` under `gtsim run`, capturing to `capture` and writing its image to
/// `png`. The tests run in parallel and several run the same client: each caller
/// names its own image (a shared name let one test read another's half-written PNG).
fn under_gtsim(exe: &str, capture: &Path, png: &Path, bat: bool) -> Output {
    let mut cmd = Command::new(gtsim());
    cmd.arg("run")
        .arg("--capture")
        .arg(capture)
        .arg("--")
        .arg(exe)
        .arg("--out")
        .arg(png);
    cmd.env("GTSIM_I915_QUIET", "1")
        .env("MESA_SHADER_CACHE_DISABLE", "true");
    if bat {
        cmd.env("INTEL_DEBUG", "bat");
    }
    cmd.output().unwrap()
}

#[test]
fn clients_render_on_llvmpipe() {
    if !mesa_present() {
        return;
    }
    for (name, exe) in CLIENTS {
        let png = tmp(&format!("{name}-llvmpipe.png"));
        let out = Command::new(exe)
            .arg("--out")
            .arg(&png)
            .env("LIBGL_ALWAYS_SOFTWARE", "1")
            .env("EGL_PLATFORM", "surfaceless")
            .env_remove("LD_PRELOAD")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name} on llvmpipe: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("llvmpipe"),
            "{name} did not run on llvmpipe"
        );
        assert!(std::fs::metadata(&png).unwrap().len() > 0);
    }
}

fn tolerance(name: &str) -> (u8, usize, &'static str) {
    TOLERANCE
        .iter()
        .find(|t| t.0 == name)
        .map_or((0, 0, "exact"), |t| (t.1, t.2, t.3))
}

/// Per client: the largest difference allowed in any channel of a pixel, the number of
/// pixels allowed beyond that, and the reason when either is not 0.
const TOLERANCE: &[(&str, u8, usize, &str)] = &[
    (
        "textured_quad",
        4,
        0,
        "filtering precision: the seed does not fix the precision of the bilinear and \
         trilinear weights or of the LOD (seed 000 §2.2.1.5); gtsim computes them in f32, \
         llvmpipe in 8-bit fixed point",
    ),
    (
        "blend",
        1,
        0,
        "blend precision: the seed blends the colour values (seed 004 §12.1.7), so half of \
         white is 0.5 and stores as round(127.5) = 128; llvmpipe blends UNORM8 targets in \
         8-bit fixed point (alpha 0.5 becomes 128/255, 1 - alpha 127/255) and stores 127",
    ),
    (
        "lines",
        0,
        2,
        "line ends: for 1-pixel GL lines crocus programs 3DSTATE_SF Line Width 1.0, which \
         the hardware draws as a parallelogram reaching the end point (seed 004 \
         §10.3.12.4); llvmpipe applies GL's diamond-exit rule and leaves the last pixel \
         of two of the lines unlit",
    ),
    (
        "wireframe",
        0,
        2,
        "line ends: each outline edge leaves its end pixel to the edge that starts there \
         (3DSTATE_SF Last Pixel Enable clear, seed 004 §10.3.12.4); where that next edge \
         is a view volume cut, which is not drawn, the pixel stays unlit, while llvmpipe's \
         lines light it",
    ),
    (
        "geometry",
        0,
        3,
        "line ends, as for `lines`: the geometry shader's line segments are 1-pixel GL \
         lines that the hardware draws as parallelograms reaching their end points (seed \
         004 §10.3.12.4) where llvmpipe applies the diamond-exit rule; at 64x64 three of \
         their end pixels differ, every triangle and square pixel is exact",
    ),
    (
        "sampling",
        0,
        8,
        "cube map corners under seamless LINEAR filtering: a tap past two edges of a face \
         at once is taken from the face its direction selects (seed 000 §2.2.3.6, which \
         warns that \"some artifacts at cube corners may still be present\"), where \
         llvmpipe averages the three texels that meet at the corner; at 64x64 eight \
         pixels at face corners differ, every other pixel is exact",
    ),
    (
        "msaa",
        1,
        0,
        "a tie in the resolve: under alpha-to-coverage at alpha 0.5 two of a pixel's four \
         samples hold alpha 128/255 and two the clear alpha 1.0, whose mean is 191.5/255; \
         crocus's resolve kernel (running in f32 on gtsim's EU) stores it as 191, \
         llvmpipe as 192. Every other channel of every pixel is exact, the edges of \
         the piercing triangles (resolved per sample against the multisampled depth \
         buffer) included",
    ),
    (
        "dual_source",
        1,
        0,
        "blend precision, as for `blend`: 0.4 + 1 x 0.5 = 0.9 of 255 is 229.5; gtsim \
         blends the colour values in f32 (seed 004 §12.1.7) and stores 229, llvmpipe \
         blends UNORM8 targets in 8-bit fixed point and stores 230",
    ),
    (
        "stipple",
        1,
        26,
        "the polygon stipple and the thin stippled lines are exact but for one line end \
         (as for `lines`, 1 pixel); the seed leaves open where a wide line's stipple \
         counter starts (§11.3.2.3 counts produced pixels, not columns): gtsim starts \
         each segment at its start point's column, llvmpipe at the first column of \
         its diamond-exit rule, which shifts the dashes of the strip's second segment \
         by a row (24 pixels at 64x64); and 0.3 of 255 (76.5) stores as 77 against \
         llvmpipe's 76, blend precision as above",
    ),
    (
        "smooth_lines",
        2,
        255,
        "anti-aliased line coverage: the seed's coverage ramps inward from the edges of \
         the line-wide rectangle over half the AA region (seed 004 §10.3.12.5; crocus \
         programs the GL width and a 1-pixel region), so a line's cross-section \
         integrates to width - 0.5; llvmpipe's coverage is each pixel's overlap with \
         the rectangle, integrating to the width. The lines lie in the same place; their \
         edge and end pixels differ (255 of 4096 at 64x64 by more than 2, up to 122 of \
         255), every background pixel is exact, and `aa_intensity` checks the \
         difference itself: gtsim's lines hold (width - 0.5) / width of llvmpipe's \
         intensity",
    ),
    (
        "julia",
        1,
        2,
        "two documented differences, each checked pixel by pixel by `julia_escape_counts`: \
         the palette's near-halves (for n = 16 and 80, 255 t and 255 (1 - t) lie within \
         a single-precision ulp of 42.5 and 212.5), which gtsim rounds exactly as the \
         seed converts floats to UNORM8 and llvmpipe rounds in single precision to even, \
         a level apart (30 pixels at 64x64); and chaotic escape counts: near the Julia set's boundary a 1-ulp \
         difference in z changes the iteration count (crocus compiles z*z + c to the EU's \
         mad, which gtsim rounds once, llvmpipe twice), so a few boundary pixels escape \
         one or two iterations apart (2 pixels at 64x64, up to 5 levels)",
    ),
];

/// The image of every client rendered by crocus on gtsim equals llvmpipe's, and so does
/// everything it prints, (the oracle,
/// docs/ARCHITECTURE.md) pixel for pixel, within the tolerance stated above. On a
/// difference, an image of the differing pixels (white where they agree, the gtsim pixel
/// where they differ) is saved beside the two images and named in the failure.
#[test]
fn clients_render_on_gtsim_as_on_llvmpipe() {
    if !mesa_present() {
        return;
    }
    let mut failures = vec![];
    for (name, exe) in CLIENTS {
        let capture = tmp(&format!("{name}-image.aub"));
        let png = tmp(&format!("{name}-gtsim.png"));
        let out = under_gtsim(exe, &capture, &png, false);
        failures.extend(compare_with_llvmpipe(name, exe, &out, &png));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Compares what `name` rendered and printed under gtsim (`out`, its image at `got`)
/// with llvmpipe's run of the same client, within the client's tolerance. The run
/// must succeed without a GPU hang. Returns the failure, if any; on an image difference
/// an image of the differing pixels (white where they agree, the gtsim pixel where they
/// differ) is saved beside the two images and named in it.
fn compare_with_llvmpipe(name: &str, exe: &str, out: &Output, got: &Path) -> Option<String> {
    let reference = got.with_file_name(format!(
        "{}-reference.png",
        got.file_stem().unwrap().to_string_lossy()
    ));
    let reference_stdout = on_llvmpipe(name, exe, &reference);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name} under gtsim: {stderr}");
    assert!(!stderr.contains("GPU HANG"), "{name}: {stderr}");
    // What a client prints (the query results of `queries`: PS_DEPTH_COUNT and
    // CL_INVOCATION_COUNT read back through PIPE_CONTROL and MI_STORE_REGISTER_MEM)
    // must equal llvmpipe's.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&reference_stdout),
        "{name}: printed results differ from llvmpipe's"
    );
    common::compare_images(name, got, &reference, "llvmpipe", tolerance(name))
        .or_else(|| documented_difference(name, got, &reference))
}

/// The check of a client's documented difference from llvmpipe itself, where its
/// tolerance names one: `smooth_lines`' AA intensity and `julia`'s boundary pixels.
fn documented_difference(name: &str, got: &Path, reference: &Path) -> Option<String> {
    match name {
        "smooth_lines" => aa_intensity(got, reference),
        "julia" => julia_escape_counts(got, reference),
        _ => None,
    }
}

/// `julia`'s documented differences, checked pixel by pixel. The client's colour is
/// `(t, t * t, 1 - t)` for t = n / 96 (n times 1/96 in single precision, as Mesa
/// compiles it), n the escape count (clients/src/bin/julia.rs). Each reference pixel gives its n (the palette entry it is
/// within one level of); each gtsim pixel that differs must be that n's entry as the
/// seed converts floats to UNORM8: the single-precision value times 255, exactly, rounded
/// to nearest. For n = 16 and 80, 255 t and 255 (1 - t) lie within a single-precision
/// ulp of a half (42.5, 212.5): gtsim rounds the exact product, llvmpipe the product
/// rounded to single precision, where it is the half, to even: a level apart. Or, for at most 4 pixels, the gtsim pixel is the
/// entry of n +- 1 or 2 lying on an escape-count boundary of the reference (a
/// 4-neighbour with another n).
fn julia_escape_counts(got: &Path, reference: &Path) -> Option<String> {
    let (w, h, g) = common::read_png(got);
    let (_, _, l) = common::read_png(reference);
    let unorm = |v: f32| -> u8 { (f64::from(v.clamp(0.0, 1.0)) * 255.0 + 0.5).floor() as u8 };
    let palette = |n: i32| -> [u8; 3] {
        // Mesa's compiler turns the division by the constant into a multiplication by
        // its single-precision reciprocal.
        let t = n as f32 * (1.0f32 / 96.0);
        [unorm(t), unorm(t * t), unorm(1.0 - t)]
    };
    let n_of = |px: &[u8]| {
        (0..=96)
            .map(|n| {
                let p = palette(n);
                let d = (0..3).map(|c| p[c].abs_diff(px[c])).max().unwrap_or(0);
                (d, n)
            })
            .filter(|&(d, _)| d <= 1)
            .min()
            .map(|(_, n)| n)
    };
    let at = |img: &[u8], x: u32, y: u32| -> [u8; 4] {
        let i = ((y * w + x) * 4) as usize;
        [img[i], img[i + 1], img[i + 2], img[i + 3]]
    };
    let mut iterations_apart = 0;
    for y in 0..h {
        for x in 0..w {
            let (a, b) = (at(&g, x, y), at(&l, x, y));
            if a == b {
                continue;
            }
            let Some(n) = n_of(&b) else {
                return Some(format!(
                    "julia: llvmpipe's pixel ({x}, {y}) {b:?} is no palette entry"
                ));
            };
            let rgb = [a[0], a[1], a[2]];
            if rgb == palette(n) {
                continue;
            }
            let boundary = [(0i64, 1i64), (0, -1), (1, 0), (-1, 0)]
                .iter()
                .any(|(dx, dy)| {
                    let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
                    (0..i64::from(w)).contains(&nx)
                        && (0..i64::from(h)).contains(&ny)
                        && n_of(&at(&l, nx as u32, ny as u32)) != Some(n)
                });
            let apart = [-2, -1, 1, 2].iter().any(|k| rgb == palette(n + k));
            if !(apart && boundary) {
                return Some(format!(
                    "julia: pixel ({x}, {y}) is {a:?} where llvmpipe has escape count {n} {b:?}: neither that count's palette entry nor a neighbouring count's on a boundary"
                ));
            }
            iterations_apart += 1;
        }
    }
    eprintln!("julia: {iterations_apart} boundary pixels escape one or two iterations apart");
    (iterations_apart > 4).then(|| {
        format!("julia: {iterations_apart} pixels escape at other counts (at most 4 expected)")
    })
}

/// `smooth_lines`' documented difference, checked: the lines' intensity above the
/// background (the sum over the image of each channel's distance from the clear colour)
/// is, relative to llvmpipe's, what the seed's coverage ramp gives, (width - 0.5) /
/// width: 2 / 2.5 = 0.80 for the white line and 3.5 / 4 = 0.875 for the yellow one, so
/// the image's ratio lies between the two (measured 0.862 at 64x64). A line drawn
/// elsewhere, or a coverage ramp of another width, leaves the band.
fn aa_intensity(got: &Path, reference: &Path) -> Option<String> {
    let (_, _, g) = common::read_png(got);
    let (_, _, l) = common::read_png(reference);
    let bg = [l[0], l[1], l[2]];
    let above = |px: &[u8]| -> f64 {
        px.chunks(4)
            .map(|p| (0..3).map(|c| f64::from(p[c].abs_diff(bg[c]))).sum::<f64>())
            .sum()
    };
    let ratio = above(&g) / above(&l);
    eprintln!("smooth_lines: intensity above the background {ratio:.3} of llvmpipe's");
    (!(0.80..=0.875).contains(&ratio)).then(|| {
        format!(
            "smooth_lines: the lines hold {ratio:.3} of llvmpipe's intensity, outside the seed's 0.80..=0.875"
        )
    })
}

#[test]
fn clients_complete_on_crocus_over_gtsim_and_their_captures_decode() {
    if !mesa_present() {
        return;
    }
    for (name, exe) in CLIENTS {
        let capture = tmp(&format!("{name}.aub"));
        let png = tmp(&format!("{name}-decode.png"));
        let out = under_gtsim(exe, &capture, &png, false);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name} under gtsim: {stderr}");
        assert!(
            stderr.contains("HD Graphics 4000 (IVB GT2)"),
            "{name}: crocus did not report the emulated GPU: {stderr}"
        );
        assert!(!stderr.contains("GPU HANG"), "{name}: {stderr}");
        let dec = Command::new(gtsim())
            .arg("decode")
            .arg("--color")
            .arg("never")
            .arg(&capture)
            .output()
            .unwrap();
        assert!(
            dec.status.success(),
            "{name}: decoding the capture found problems: {}",
            String::from_utf8_lossy(&dec.stdout)
                .lines()
                .filter(|l| l.contains("error:"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        assert!(String::from_utf8_lossy(&dec.stdout).contains("3DPRIMITIVE"));
        inspect_report_shows_every_draw(name, &capture);
        if *name == "compute_ssbo" {
            invocation_trace_shows_the_shaders_values(&capture);
        }
    }
}

/// `gtsim inspect --invocation` of compute_ssbo's dispatch (clients/src/bin/
/// compute_ssbo.rs: 8x4 workgroups, `values[i] = (x * 7 + y * 13) ^ (x * y)`, `ids[i] =
/// (group.x * 16 + group.y * 8, local index)`): invocation (11, 6, 0) is local ID (3, 2)
/// of group (1, 1), local index 3 + 8 * 2 = 19, so its lane stores (11 * 7 + 6 * 13) ^
/// (11 * 6) = 155 ^ 66 = 217 and the pair (24, 19); an invocation past the grid and a
/// walker not in the capture say so and exit 1.
fn invocation_trace_shows_the_shaders_values(capture: &Path) {
    let inspect = |args: &[&str]| {
        let out = Command::new(gtsim())
            .arg("inspect")
            .arg(capture)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, text) = inspect(&["--invocation", "11,6,0", "--local-size", "8,4,1"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("thread group [1, 1, 0]") && text.contains("workgroup size [8, 4, 1]"),
        "{text}"
    );
    // The lane's column of the stores' payloads: 217, then 24 and 19.
    let stores: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("sources:") && l.contains(": 0x000000d9 "))
        .collect();
    assert_eq!(stores.len(), 1, "one store of 217 in:\n{text}");
    assert!(
        text.lines()
            .any(|l| l.contains(": 0x00000018 ") && l.contains(": 0x00000013 ")),
        "the ids store (24, 19) in:\n{text}"
    );
    let (code, text) = inspect(&["--invocation", "4096,0,0", "--local-size", "8,4,1"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("is not among the walker's"), "{text}");
    let (code, text) = inspect(&["--invocation", "0,0,0", "--walker", "5"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("walker 5 is not in the capture"), "{text}");
}

/// `gtsim inspect` of a client's capture: a page per draw with its state by stage, its
/// shaders disassembled to their end of thread, and pictures that exist and decode.
fn inspect_report_shows_every_draw(name: &str, capture: &Path) {
    let dir = tmp(&format!("{name}-report"));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(gtsim())
        .arg("inspect")
        .arg(capture)
        .arg("-o")
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{name}: inspect: {stdout}");
    // "DIR/index.html: S submissions, D draws, 0 hangs"
    let draws: usize = stdout
        .split(" draws")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{name}: {stdout}"));
    assert!(draws > 0, "{name}: no draws in the report");
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert_eq!(
        index.matches("<tr class=\"draw\">").count(),
        draws,
        "{name}"
    );
    for i in 0..draws {
        let page = std::fs::read_to_string(dir.join(format!("draw-{i}.html")))
            .unwrap_or_else(|e| panic!("{name}: draw {i}: {e}"));
        assert!(
            page.contains("<h2 id=\"state\">"),
            "{name}: draw {i} has no state"
        );
        // A draw of no vertices reads no state (crocus's first batch has one).
        if !page.contains("IA_VERTICES_COUNT</td><td>0<") {
            assert!(page.contains("3DSTATE_VS"), "{name}: draw {i} state");
            assert!(
                page.contains("vertex shader, SIMD4x2") && page.contains("EOT"),
                "{name}: draw {i} has no shader listing"
            );
        }
        for src in page.split("src=\"").skip(1) {
            let file = src.split('"').next().unwrap();
            let (w, h, px) = read_png(&dir.join(file));
            assert_eq!(px.len(), (w * h * 4) as usize, "{name}: draw {i}: {file}");
        }
    }
}

#[test]
fn gtsim_decode_agrees_with_intel_debug_bat() {
    if !mesa_present() {
        return;
    }
    let mut total = (0, 0);
    let mut unpaired: std::collections::BTreeSet<(String, String)> = Default::default();
    for (name, exe) in CLIENTS {
        let capture = tmp(&format!("{name}-bat.aub"));
        let png = tmp(&format!("{name}-bat.png"));
        let out = under_gtsim(exe, &capture, &png, true);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mesa = gtsim_gpu::mesa_bat::parse_bat(&String::from_utf8_lossy(&out.stderr));
        assert!(!mesa.is_empty(), "{name}: no INTEL_DEBUG=bat output");
        let bytes = std::fs::read(&capture).unwrap();
        let items = gtsim_gpu::trace::decode_trace(
            &gtsim_spec::gen7::GENERATION,
            &gtsim_gpu::aub::parse(&bytes),
        );
        let c = gtsim_gpu::mesa_bat::compare(&mesa, &items);
        eprintln!("{name}: {}", c.report().lines().last().unwrap_or(""));
        assert!(
            c.differ.is_empty(),
            "{name}: gtsim and Mesa disagree:\n{}",
            c.report()
        );
        assert!(c.agree > 1000, "{name}: only {} fields compared", c.agree);
        total.0 += c.agree;
        total.1 += c.unpaired.values().sum::<usize>();
        unpaired.extend(c.unpaired.keys().cloned());
    }
    eprintln!(
        "all clients: {} fields agree, {} Mesa fields unpaired (naming), 0 differ",
        total.0, total.1
    );
    check_unpaired(
        &unpaired,
        include_str!("data/bat_unpaired.tsv"),
        "bat_unpaired.tsv",
    );
}

/// `gtsim inspect CAPTURE --pixel` at the centre of a client's image (render target 0,
/// the client's framebuffer): the history lists at least two draws, shows `shows` (what
/// the client exercises there) and ends in the client's own pixel, from the PNG it wrote
/// through glReadPixels (`png`, row 0 last in memory).
fn pixel_history_ends_in_the_image(name: &str, capture: &Path, png: &Path, shows: &str) {
    let (w, h, px) = read_png(png);
    let (x, y) = (w / 2, h / 2);
    let out = Command::new(gtsim())
        .arg("inspect")
        .arg(capture)
        .args(["--pixel", &format!("{x},{y}")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{name}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let i = 4 * ((h - 1 - y) * w + x) as usize;
    let last = format!(
        "final {} {} {} {}\n",
        px[i],
        px[i + 1],
        px[i + 2],
        px[i + 3]
    );
    assert!(text.ends_with(&last), "{name}: want {last}{text}");
    let draws = text.lines().filter(|l| l.starts_with("draw ")).count();
    assert!(draws >= 2 && text.contains(shows), "{name}: {text}");
    // With `--trace`, the same history and the last writing draw's pixel shader lane,
    // ending in its render target write.
    let out = Command::new(gtsim())
        .arg("inspect")
        .arg(capture)
        .args(["--pixel", &format!("{x},{y}"), "--trace"])
        .output()
        .unwrap();
    let traced = String::from_utf8_lossy(&out.stdout);
    let lane = traced.find("pixel shader lane").expect("a lane trace");
    assert!(
        traced.ends_with(&last) && traced[lane..].contains("RT write"),
        "{name}: {traced}"
    );
}

/// Pixel history on the msaa client's 4x target: along its middle row, the pixels its
/// alpha-to-coverage triangle (alpha 0.5) writes list every sample, and the write keeps
/// the two lowest samples of the four it covers (seed 004 §12.1.1: round(alpha x
/// samples) samples), storing the shader's colour in them (UNORM8) and leaving the others
/// as they were.
fn msaa_pixel_history(capture: &Path) {
    use gtsim_dataport::probe::Event;
    use gtsim_inspect::history::{LaneTrace, history, targets};
    use gtsim_mem::format::texel::Texel;
    let trace = gtsim_gpu::aub::parse(&std::fs::read(capture).unwrap());
    let t = targets(&trace)[0];
    assert_eq!(t.surface.desc.samples, 4);
    let mut checked = 0;
    for x in 0..64 {
        let h = history(&trace, t, (x, 40), LaneTrace::Off);
        for d in &h.draws {
            for e in &d.events {
                let Event::RtWriteSamples {
                    colour,
                    covered: 0b1111,
                    written,
                    before,
                    after,
                    ..
                } = e
                else {
                    continue;
                };
                if f32::from_bits(colour[3]) != 0.5 {
                    continue;
                }
                assert_eq!(*written, 0b0011, "pixel ({x}, 40): {e:?}");
                for k in 0..4 {
                    if k < 2 {
                        let Some(Texel::Float(a)) = after[k] else {
                            panic!("{e:?}")
                        };
                        for (c, v) in colour.iter().zip(a) {
                            let want = (f32::from_bits(*c).clamp(0.0, 1.0) * 255.0).round() / 255.0;
                            assert!((v - want).abs() < 1e-6, "sample {k}: {e:?}");
                        }
                    } else {
                        assert_eq!(before[k], after[k], "sample {k}: {e:?}");
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no alpha-to-coverage write along row 40");
    msaa_depth_by_sample(&trace, t);
}

/// The per-sample early depth test in the msaa client's piercing triangles (GL_LESS on a
/// 24-bit depth buffer cleared to 1.0): along memory rows 21 and 22, where the crossing
/// line runs, each covered sample of the pixel's every test passes exactly when its
/// source depth, converted to 24 bits, is less than the stored one; the write that
/// follows stores the samples that passed; and some pixel there has samples on both
/// sides of the line (the crossing is resolved sample by sample).
fn msaa_depth_by_sample(trace: &gtsim_gpu::aub::Trace, t: gtsim_inspect::history::Target) {
    use gtsim_dataport::probe::Event;
    use gtsim_inspect::history::{LaneTrace, history};
    let d24 = |z: f32| (f64::from(z.clamp(0.0, 1.0)) * 16_777_215.0).round() as u32;
    let mut mixed = 0;
    for y in [21, 22] {
        for x in 6..24 {
            let h = history(trace, t, (x, y), LaneTrace::Off);
            for d in &h.draws {
                let mut passed = 0u16;
                let mut tested = 0u16;
                for e in &d.events {
                    match e {
                        Event::EarlyDepthSample {
                            sample,
                            source,
                            stored: Some(stored),
                            passed: p,
                            ..
                        } => {
                            assert_eq!(
                                *p,
                                d24(*source) < d24(*stored),
                                "pixel ({x}, {y}) sample {sample}: {e:?}"
                            );
                            tested |= 1 << sample;
                            if *p {
                                passed |= 1 << sample;
                            }
                        }
                        Event::RtWriteSamples { written, .. } if tested != 0 => {
                            assert_eq!(*written, passed, "pixel ({x}, {y}): {e:?}");
                            if passed != 0 && passed != tested {
                                mixed += 1;
                            }
                            (passed, tested) = (0, 0);
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    assert!(mixed > 0, "no pixel of rows 21-22 split by the depth test");
}

/// `gtsim inspect --diff` and `--with` on an iris capture: the capture agrees with
/// itself, on this build and through another gtsim's digest (this one's, run as a
/// separate process); with the triangle's vertex count (the last 3DPRIMITIVE but one,
/// before BLORP's readback copy; Gen8+ 3DPRIMITIVE, 7 dwords, header 0x7b000005, Vertex
/// Count Per Instance in DW2) set to 0 it diverges at that draw, whose state differs in
/// that field alone, at a pixel of the triangle.
fn gen11_capture_diffs(capture: &Path, trace: &gtsim_gpu::aub::Trace) {
    for other in [
        ["--diff", capture.to_str().unwrap()],
        ["--with", gtsim().to_str().unwrap()],
    ] {
        let out = Command::new(gtsim())
            .arg("inspect")
            .arg(capture)
            .args(other)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("the same: "),
            "inspect {other:?}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    use gtsim_inspect::diff::{Divergence, compare, report, with_command_dword};
    use gtsim_inspect::digest::digest;
    let (_, n) = with_command_dword(trace, 0x7b00_0005, 7, usize::MAX, 2, 0);
    assert!(n > 1, "{n} 3DPRIMITIVEs in the capture");
    let (changed, _) = with_command_dword(trace, 0x7b00_0005, 7, n - 2, 2, 0);
    let (a, b) = (digest(trace, None), digest(&changed, None));
    let last = a.draws.len() - 2;
    let d = compare(&a, &b);
    assert!(
        matches!(&d, Divergence::Draw { index, .. } if *index == last),
        "{d:?}"
    );
    let (fa, fb) = (
        digest(trace, Some(last)).detail.unwrap(),
        digest(&changed, Some(last)).detail.unwrap(),
    );
    let text = report(("a", "b"), &a, &b, &d, Some((&fa, &fb)));
    assert!(
        text.contains("its state differs in 1 fields:")
            && text.contains("Vertex Count Per Instance: A 3, B 0")
            && text.contains("pixels differ; the first at"),
        "{text}"
    );
}

/// Every unpaired (Mesa name, gtsim names at that address) of a bat comparison is one
/// the expected set (`clients/tests/data/<file>`, Mesa name, gtsim names and why, tab
/// separated) explains; a new one is a field gtsim decodes into another dword or under a
/// new name, and fails.
fn check_unpaired(unpaired: &std::collections::BTreeSet<(String, String)>, tsv: &str, file: &str) {
    let expected: std::collections::BTreeSet<(String, String)> = tsv
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut f = l.split('\t');
            Some((f.next()?.to_string(), f.next()?.to_string()))
        })
        .collect();
    let new: Vec<String> = unpaired
        .difference(&expected)
        .map(|(mesa, near)| format!("{mesa}\t{near}\t"))
        .collect();
    assert!(
        new.is_empty(),
        "Mesa fields newly unpaired (a field decoded elsewhere or renamed?), not in \
         clients/tests/data/{file} (Mesa name, gtsim names there, tab separated):\n{}",
        new.join("\n")
    );
    for stale in expected.difference(unpaired) {
        eprintln!("{file} lists {stale:?}, which now pairs: the entry can go");
    }
}

/// Kernels in Mesa's INTEL_DEBUG=...,hex output: (name, bytes, lines as printed, with a
/// blank line and `LABELn:` before labelled instructions and send's two lines joined).
fn mesa_kernels(text: &str) -> Vec<(String, Vec<u8>, Vec<String>)> {
    let mut out: Vec<(String, Vec<u8>, Vec<String>)> = vec![];
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("Native code for ") {
            out.push((name.to_string(), vec![], vec![]));
            continue;
        }
        let Some(k) = out.last_mut() else { continue };
        let hex = line.get(..48).unwrap_or("");
        let is_hex = hex.len() == 48
            && hex
                .split_whitespace()
                .all(|b| b.len() == 2 && u8::from_str_radix(b, 16).is_ok())
            && !hex.trim().is_empty();
        if is_hex {
            k.1.extend(
                hex.split_whitespace()
                    .map(|b| u8::from_str_radix(b, 16).unwrap()),
            );
            k.2.push(line[48..].to_string());
        } else if line.starts_with("                            ") && line.contains("MsgDesc:") {
            if let Some(last) = k.2.last_mut() {
                last.push('\n');
                last.push_str(line);
            }
        } else if line.starts_with("LABEL") && line.ends_with(':') {
            k.2.push(String::new());
            k.2.push(line.to_string());
        }
    }
    out.retain(|k| !k.1.is_empty());
    out
}

#[test]
fn every_shader_crocus_compiles_disassembles_as_mesa_prints_it() {
    if !mesa_present() {
        return;
    }
    let (mut kernels, mut instructions) = (0, 0);
    for (name, exe) in CLIENTS {
        let mut cmd = Command::new(gtsim());
        cmd.arg("run")
            .arg("--")
            .arg(exe)
            .arg("--out")
            .arg(tmp(&format!("{name}-shaders.png")));
        cmd.env("GTSIM_I915_QUIET", "1")
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .env("INTEL_DEBUG", "vs,gs,fs,cs,hex,blorp");
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ks = mesa_kernels(&String::from_utf8_lossy(&out.stderr));
        assert!(!ks.is_empty(), "{name}: no shader dumps");
        for (kname, bytes, want) in ks {
            let got = gtsim_isa::disasm::disassemble(&bytes)
                .unwrap_or_else(|e| panic!("{name} {kname}: {e}"));
            assert_eq!(got, want, "{name}: {kname}");
            let back =
                gtsim_isa::asm::assemble(&got.join("\n"), gtsim_isa::asm::Compaction::AsWritten)
                    .unwrap();
            assert_eq!(back, bytes, "{name}: {kname}: reassembly");
            kernels += 1;
            instructions += want.iter().filter(|l| l.ends_with(';')).count();
        }
    }
    eprintln!(
        "{kernels} kernels, {instructions} instructions: gtsim's disassembly equals Mesa's, and reassembles to Mesa's bytes"
    );
}

/// `gtsim replay` of each client's capture, outside the driver, writes among its render
/// targets the image llvmpipe renders (within the client's tolerance) (rows flipped, as GL keeps framebuffer objects
/// bottom row first); and the trace embedded in gtsim (the triangle client) replays to
/// the triangle's llvmpipe image.
#[test]
fn replaying_a_capture_reproduces_the_client_image() {
    if !mesa_present() {
        return;
    }
    let check = |name: &str, capture: Option<&Path>| {
        let reference = tmp(&format!("{name}-replay-reference.png"));
        let exe = CLIENTS.iter().find(|c| c.0 == name).unwrap().1;
        on_llvmpipe(name, exe, &reference);
        let dir = tmp(&format!(
            "{name}-replay-{}",
            if capture.is_some() {
                "capture"
            } else {
                "embedded"
            }
        ));
        let mut cmd = Command::new(gtsim());
        cmd.arg("replay").arg("--flip-y").arg("-o").arg(&dir);
        if let Some(c) = capture {
            cmd.arg(c);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{name}: replay failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want = read_png(&reference);
        let found = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "png"))
            .any(|p| {
                let got = read_png(&p);
                let (tol, allowed, _) = tolerance(name);
                let beyond = got
                    .2
                    .chunks(4)
                    .zip(want.2.chunks(4))
                    .filter(|(a, b)| a.iter().zip(*b).any(|(x, y)| x.abs_diff(*y) > tol))
                    .count();
                got.0 == want.0
                    && got.1 == want.1
                    && beyond <= allowed
                    && documented_difference(name, &p, &reference).is_none()
            });
        assert!(
            found,
            "{name}: no replayed render target equals llvmpipe's image ({})",
            dir.display()
        );
    };
    check("triangle", None);
    for (name, exe) in CLIENTS {
        let capture = tmp(&format!("{name}-replay.aub"));
        let png = tmp(&format!("{name}-replay.png"));
        let out = under_gtsim(exe, &capture, &png, false);
        assert!(out.status.success(), "{name}");
        check(name, Some(&capture));
        // Pixel history on clients whose centre pixel several draws write: the depth
        // client's overlapping, depth-tested triangles and the blend client's blended
        // quads.
        match *name {
            "depth" => {
                pixel_history_ends_in_the_image(name, &capture, &png, "early depth/stencil test")
            }
            "blend" => pixel_history_ends_in_the_image(name, &capture, &png, "blended with"),
            "msaa" => msaa_pixel_history(&capture),
            _ => {}
        }
    }
}

/// Crocus compiles a pixel shader for several dispatch widths (SIMD8, SIMD16 and, for
/// some, SIMD32) and the hardware picks one; each must give the same image. gtsim
/// prefers SIMD16; `GTSIM_PS_DISPATCH` makes it prefer SIMD8 or SIMD32, and the images
/// must be bit-identical to the default run's.
#[test]
fn every_pixel_shader_dispatch_width_renders_the_same_image() {
    if !mesa_present() {
        return;
    }
    for (name, exe) in CLIENTS {
        let run = |width: Option<&str>| {
            let png = tmp(&format!("{name}-simd{}.png", width.unwrap_or("default")));
            let mut cmd = Command::new(gtsim());
            cmd.arg("run").arg("--").arg(exe).arg("--out").arg(&png);
            cmd.env("GTSIM_I915_QUIET", "1")
                .env("MESA_SHADER_CACHE_DISABLE", "true");
            if let Some(w) = width {
                cmd.env("GTSIM_PS_DISPATCH", w);
            }
            let out = cmd.output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && !stderr.contains("GPU HANG"),
                "{name}: {stderr}"
            );
            read_png(&png)
        };
        let default = run(None);
        for w in ["8", "32"] {
            assert!(
                run(Some(w)) == default,
                "{name}: SIMD{w} preferred gives another image"
            );
        }
    }
}

/// The benchmark frames (julia at 320x240, scene at 640x480: thousands of PS threads in
/// many dispatch batches) and every client at its default size render byte-identical
/// images and print the same results with the draw's threads on 1, 2 and 4 host threads
/// (`GTSIM_THREADS`).
#[test]
fn images_are_identical_whatever_the_host_thread_count() {
    if !mesa_present() {
        return;
    }
    let mut cases: Vec<(&str, &str, &str)> = CLIENTS.iter().map(|(n, e)| (*n, *e, "64")).collect();
    for (name, size) in [("julia", "320x240"), ("scene", "640x480")] {
        let exe = CLIENTS.iter().find(|c| c.0 == name).unwrap().1;
        cases.push((name, exe, size));
    }
    for (name, exe, size) in cases {
        let run = |threads: &str| {
            let png = tmp(&format!("{name}-{size}-threads{threads}.png"));
            let out = Command::new(gtsim())
                .arg("run")
                .arg("--")
                .arg(exe)
                .arg("--size")
                .arg(size)
                .arg("--out")
                .arg(&png)
                .env("GTSIM_I915_QUIET", "1")
                .env("GTSIM_THREADS", threads)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && !stderr.contains("GPU HANG"),
                "{name}: {stderr}"
            );
            (read_png(&png), out.stdout)
        };
        let one = run("1");
        for t in ["2", "4"] {
            assert!(
                run(t) == one,
                "{name} at {size}: {t} host threads give another image or output than 1"
            );
        }
    }
}

/// A draw's host threads run inside the client's process, under the preload library:
/// C library calls they make (here Cranelift writing its `perf` map, which it does when
/// `PERF_BUILDID_DIR` is set, as under `perf record`) must not go through the i915
/// emulation, whose lock the submitting thread holds. They once deadlocked the client.
#[test]
fn device_threads_calling_the_c_library_do_not_deadlock_the_client() {
    if !mesa_present() {
        return;
    }
    let exe = CLIENTS.iter().find(|c| c.0 == "julia").unwrap().1;
    let dir = tmp("perf-buildid");
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = Command::new(gtsim())
        .arg("run")
        .arg("--")
        .arg(exe)
        .arg("--size")
        .arg("320x240")
        .arg("--out")
        .arg(tmp("julia-perf.png"))
        .env("GTSIM_I915_QUIET", "1")
        .env("GTSIM_THREADS", "2")
        .env("GTSIM_JIT_LOG", "1")
        // Compiled in this run, whatever an earlier run left in the disk cache.
        .env("GTSIM_JIT_CACHE", "0")
        .env("PERF_BUILDID_DIR", &dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > std::time::Duration::from_secs(300) {
            let _ = child.kill();
            panic!("julia under gtsim did not finish in 300 s: deadlocked");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("JIT compiled"),
        "the frame must reach the JIT for the test to mean anything: {stderr}"
    );
}

// ---------------------------------------------------------------------------------------
// Ice Lake (gtsim run --gen 11): Mesa's iris comes up, renders every client as llvmpipe
// does (but those whose features the Gen11 front refuses by name), and what it submits
// decodes as iris's own INTEL_DEBUG=bat decode says.
// ---------------------------------------------------------------------------------------

/// The clients the Gen11 model does not render yet, each with what its draws lack:
/// they hang loudly naming it, and the client carries on.
const GEN11_NOT_YET: &[(&str, &str)] = &[];

/// Every client rendered by iris on gtsim --gen 11 equals llvmpipe's image and output,
/// within the same tolerances as the Gen7 runs (`TOLERANCE`); the ones in
/// `GEN11_NOT_YET` hang naming what is missing.
#[test]
fn clients_render_on_iris_over_gtsim_gen11_as_on_llvmpipe() {
    if !mesa_present() || !iris_present() {
        return;
    }
    let mut failures = vec![];
    for (name, exe) in CLIENTS {
        let png = tmp(&format!("{name}-gen11.png"));
        let out = Command::new(gtsim())
            .args(["run", "--gen", "11", "--"])
            .arg(exe)
            .arg("--out")
            .arg(&png)
            .env("GTSIM_I915_QUIET", "1")
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .output()
            .unwrap();
        if let Some((_, missing)) = GEN11_NOT_YET.iter().find(|n| n.0 == *name) {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{name}: {stderr}");
            assert!(
                stderr.contains("GPU HANG")
                    && stderr.contains("not modelled")
                    && stderr.contains(missing),
                "{name}: its draw must hang naming {missing}: {stderr}"
            );
            continue;
        }
        failures.extend(compare_with_llvmpipe(name, exe, &out, &png));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The clients whose Gen11 submissions are compared (a draw, a texture, a compute
/// dispatch).
const GEN11_CLIENTS: &[(&str, &str)] = &[
    ("triangle", env!("CARGO_BIN_EXE_triangle")),
    ("textured_quad", env!("CARGO_BIN_EXE_textured_quad")),
    ("compute_ssbo", env!("CARGO_BIN_EXE_compute_ssbo")),
];

fn under_gtsim_gen11(exe: &str, capture: &Path, png: &Path) -> Output {
    Command::new(gtsim())
        .args(["run", "--gen", "11", "--capture"])
        .arg(capture)
        .arg("--")
        .arg(exe)
        .arg("--out")
        .arg(png)
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .env("INTEL_DEBUG", "bat")
        .output()
        .unwrap()
}

/// What a compute client printed of its buffers under `gtsim run --gen 11` (`out`) equals
/// llvmpipe's, and its dispatch and draw ran.
fn compute_matches_llvmpipe(name: &str, exe: &str, out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reference = on_llvmpipe(
        name,
        exe,
        &tmp(&format!("{name}-gen11-compute-reference.png")),
    );
    let reference = String::from_utf8_lossy(&reference);
    assert!(reference.contains("fnv1a"), "{name}: {reference}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        reference,
        "{name} on iris over gtsim --gen 11: the buffers differ from llvmpipe's"
    );
    assert!(
        !stderr.contains("GPU HANG"),
        "{name}: the dispatch and the draw must run: {stderr}"
    );
}

/// Gen11 compute against llvmpipe: shared local memory, the gateway barrier and shared
/// atomics (the sums shared_reduction's groups compute), and typed image writes, reads
/// and atomics with format conversion (image_store's RGBA8, R32F and R32UI images, read
/// back before its draw).
#[test]
fn iris_computes_on_ice_lake_as_llvmpipe_does() {
    if !mesa_present() || !iris_present() {
        return;
    }
    for (name, exe) in [
        ("shared_reduction", env!("CARGO_BIN_EXE_shared_reduction")),
        ("image_store", env!("CARGO_BIN_EXE_image_store")),
    ] {
        let out = Command::new(gtsim())
            .args(["run", "--gen", "11", "--"])
            .arg(exe)
            .arg("--out")
            .arg(tmp(&format!("{name}-gen11-compute.png")))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        compute_matches_llvmpipe(name, exe, &out);
    }
}

#[test]
fn iris_comes_up_on_ice_lake_and_its_submissions_decode_as_iris_says() {
    if !mesa_present() || !iris_present() {
        return;
    }
    let mut unpaired: std::collections::BTreeSet<(String, String)> = Default::default();
    for (name, exe) in GEN11_CLIENTS {
        let capture = tmp(&format!("{name}-gen11.aub"));
        let png = tmp(&format!("{name}-gen11-bat.png"));
        let out = under_gtsim_gen11(exe, &capture, &png);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {stderr}");
        // Mesa's iris names the device from its PCI id table (iris_pci_ids.h: 0x8A52).
        assert!(
            stderr.contains("GL_RENDERER: Mesa Intel(R) Iris(R) Plus Graphics (ICL GT2)")
                && stderr.contains("GL_VERSION: 4.6"),
            "{name}: not iris on Ice Lake:\n{stderr}"
        );
        assert!(!stderr.contains("GPU HANG"), "{name}: {stderr}");
        // Compute runs: the buffers compute_ssbo's dispatch wrote, read back before its
        // draw, are llvmpipe's bit for bit.
        if *name == "compute_ssbo" {
            compute_matches_llvmpipe(name, exe, &out);
            invocation_trace_shows_the_shaders_values(&capture);
        }
        // `gtsim replay` of the capture runs its draws (and compute_ssbo's dispatch)
        // again, without a hang.
        let rep = Command::new(gtsim())
            .arg("replay")
            .arg(&capture)
            .arg("-o")
            .arg(tmp(&format!("{name}-gen11-replay")))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&rep.stdout);
        let walkers = if *name == "compute_ssbo" { 1 } else { 0 };
        assert!(
            stdout.contains(&format!(" draws, {walkers} walkers, 0 hangs"))
                && !stdout.contains(" 0 draws,"),
            "{name} replay: {stdout}{}",
            String::from_utf8_lossy(&rep.stderr)
        );
        // The capture decodes without a problem...
        let dec = Command::new(gtsim())
            .args(["decode", "--color", "never"])
            .arg(&capture)
            .output()
            .unwrap();
        assert!(
            dec.status.success(),
            "{name}: decode found problems:\n{}",
            String::from_utf8_lossy(&dec.stdout)
                .lines()
                .filter(|l| l.contains("error:"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        // ...and agrees with iris's own decode of the same batches, field by field.
        let mesa = gtsim_gpu::mesa_bat::parse_bat(&stderr);
        assert!(!mesa.is_empty(), "{name}: no INTEL_DEBUG=bat output");
        let bytes = std::fs::read(&capture).unwrap();
        let trace = gtsim_gpu::aub::parse(&bytes);
        assert_eq!(trace.pci_id(), Some(0x8a52));
        let items = gtsim_gpu::trace::decode_trace(&gtsim_spec::gen11::GENERATION, &trace);
        let c = gtsim_gpu::mesa_bat::compare(&mesa, &items);
        eprintln!(
            "{name} (gen11): {}",
            c.report().lines().last().unwrap_or("")
        );
        assert!(
            c.differ.is_empty(),
            "{name}: gtsim and iris disagree:\n{}",
            c.report()
        );
        assert!(c.agree > 500, "{name}: only {} fields compared", c.agree);
        unpaired.extend(c.unpaired.keys().cloned());
        if *name == "triangle" {
            gen11_capture_diffs(&capture, &trace);
            pixel_history_ends_in_the_image(name, &capture, &png, "stored (no blending)");
            // The triangle's first vertex through iris's SIMD8 vertex shader.
            let out = Command::new(gtsim())
                .arg("inspect")
                .arg(&capture)
                .args(["--vertex", "0", "--draw", "1"])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success()
                    && text.contains("vertex shader lane 0 of a SIMD8 thread")
                    && text.contains("urb MsgDesc"),
                "{text}"
            );
        }
        // `gtsim inspect` lists the commands with Gen11's fields.
        let dir = tmp(&format!("{name}-gen11-report"));
        let out = Command::new(gtsim())
            .arg("inspect")
            .arg(&capture)
            .arg("-o")
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
        assert!(index.contains("an Ice Lake capture"), "{name}");
        let listed: String = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("submission-"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .collect();
        // STATE_BASE_ADDRESS is 22 dwords on Gen11 (Mesa genxml gen11.xml), 10 on Gen7.
        assert!(
            listed.contains("STATE_BASE_ADDRESS</td><td><details><summary>22 dwords"),
            "{name}"
        );
        // Each draw has its page, through the neutral front: what it wrote (before and
        // after) and its kernels disassembled.
        let first = std::fs::read_to_string(dir.join("draw-0.html"))
            .unwrap_or_else(|e| panic!("{name}: no page for the first draw: {e}"));
        assert!(
            first.contains("What it wrote") && first.contains("Shaders"),
            "{name}: the draw page"
        );
        // Its latched state by stage, with Gen11's own commands named by Gen11's tables
        // (3DSTATE_PS_EXTRA and 3DSTATE_RASTER have no Gen7 counterpart).
        assert!(
            first.contains("3DSTATE_PS_EXTRA") && first.contains("3DSTATE_RASTER"),
            "{name}: the draw page's state"
        );
        // The surface its render target writes name, with Gen11's surface state fields
        // (Shader Channel Select is a Gen8+ field).
        assert!(
            first.contains("RENDER_SURFACE_STATE at") && first.contains("Shader Channel Select"),
            "{name}: the draw page's surfaces"
        );
        // The indirect state its pointers reach: Gen8+ BLEND_STATE has its one-dword
        // header (Alpha To Coverage Enable) before the entries.
        assert!(
            first.contains("BLEND_STATE at") && first.contains("CC_VIEWPORT at"),
            "{name}: the draw page's indirect state"
        );
    }
    check_unpaired(
        &unpaired,
        include_str!("data/bat_unpaired_gen11.tsv"),
        "bat_unpaired_gen11.tsv",
    );
}

/// The hangcheck end to end (issue 46): the `runaway` client's draw of 2^31 - 1
/// instances ends at the per-command clock (two seconds here) as a GPU HANG naming the
/// 3DPRIMITIVE and the knob; the context is banned, as Linux bans a guilty one, and the
/// client is not frozen: its `glFinish` returns and it exits. On crocus (Ivy Bridge)
/// and, where Mesa has it, iris (Ice Lake).
#[test]
fn a_runaway_draw_ends_at_the_hangcheck_clock_and_the_client_goes_on() {
    if !mesa_present() {
        return;
    }
    let gens: &[&str] = if iris_present() { &["7", "11"] } else { &["7"] };
    for generation in gens {
        let out = Command::new(gtsim())
            .args(["run", "--gen", generation, "--"])
            .arg(env!("CARGO_BIN_EXE_runaway"))
            .arg("--out")
            .arg(tmp(&format!("runaway-gen{generation}.png")))
            .env("GTSIM_WATCHDOG_SECONDS", "2")
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "gen {generation}: {stderr}");
        for want in [
            "GPU HANG: context",
            "3DPRIMITIVE at",
            "exceeded its limit of 2 seconds of host time in one command",
            "GTSIM_WATCHDOG_SECONDS",
            "the context is banned",
            "runaway: glGetError after glFinish",
        ] {
            assert!(
                stderr.contains(want),
                "gen {generation}: no {want:?} in\n{stderr}"
            );
        }
    }
}
