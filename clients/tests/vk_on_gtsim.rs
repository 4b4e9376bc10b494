//! The Vulkan clients on the real drivers: each runs on lavapipe (the reference) and,
//! through `gtsim run`, on hasvk (`--gen 7`, Ivy Bridge) and anv (`--gen 11`, Ice Lake)
//! with the GPU emulated. Under gtsim every client must complete without a GPU hang,
//! report the emulated device, print what lavapipe prints and render lavapipe's image
//! within the tolerance stated below.
//!
//! Needs the Vulkan loader and Mesa's Vulkan drivers
//! (`apt-get install -y libvulkan1 mesa-vulkan-drivers`). Where they are missing the
//! tests say so and pass, except under CI (`CI` set), where they fail.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CLIENTS: &[(&str, &str)] = &[
    ("vk_triangle", env!("CARGO_BIN_EXE_vk_triangle")),
    ("vk_compute", env!("CARGO_BIN_EXE_vk_compute")),
    ("vk_textured", env!("CARGO_BIN_EXE_vk_textured")),
    ("vk_depth_stencil", env!("CARGO_BIN_EXE_vk_depth_stencil")),
    ("vk_blend", env!("CARGO_BIN_EXE_vk_blend")),
    ("vk_msaa", env!("CARGO_BIN_EXE_vk_msaa")),
    ("vk_indirect", env!("CARGO_BIN_EXE_vk_indirect")),
    ("vk_texture_array", env!("CARGO_BIN_EXE_vk_texture_array")),
    ("vk_secondary", env!("CARGO_BIN_EXE_vk_secondary")),
    ("vk_shading_rate", env!("CARGO_BIN_EXE_vk_shading_rate")),
    (
        "vk_descriptor_indexing",
        env!("CARGO_BIN_EXE_vk_descriptor_indexing"),
    ),
];

const ICDS: &str = "/usr/share/vulkan/icd.d";
const LAVAPIPE: &str = "lvp_icd.x86_64.json";

fn vulkan_present() -> bool {
    let present = [
        "intel_icd.x86_64.json",
        "intel_hasvk_icd.x86_64.json",
        LAVAPIPE,
    ]
    .iter()
    .all(|f| Path::new(ICDS).join(f).is_file())
        && Path::new("/usr/lib/x86_64-linux-gnu/libvulkan.so.1").is_file();
    if !present {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install the Vulkan loader and drivers (libvulkan1 mesa-vulkan-drivers)"
        );
        eprintln!("SKIPPED: the Vulkan loader or Mesa's Vulkan drivers are not installed");
    }
    present
}

fn gtsim() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_BIN_EXE_vk_triangle"))
        .parent()
        .unwrap()
        .join("gtsim");
    assert!(
        p.is_file(),
        "{} not built (cargo build --workspace)",
        p.display()
    );
    p
}

fn tmp(name: &str) -> PathBuf {
    common::scratch_dir("gtsim-vk-clients").join(name)
}

/// Per client: the largest difference allowed in any channel of a pixel, the number of
/// pixels allowed beyond that, and the reason when either is not 0.
/// The Vulkan spec lets a float-to-UNORM conversion return either of the two nearest
/// values ("Conversion from Floating-Point to Normalized Fixed-Point": convertFloatToUint
/// returns one of the two closest integers), which is where most differences of 1 come
/// from.
const TOLERANCE: &[(&str, u8, usize, &str)] = &[
    (
        "vk_textured",
        6,
        0,
        "filtering precision, as for the GL `textured_quad`: the seed does not fix the \
         precision of the bilinear and trilinear weights or of the LOD (seed 000 \
         §2.2.1.5); gtsim computes them in f32, lavapipe (llvmpipe's sampler) in 8-bit \
         fixed point, and the mip chain the blits made holds each level's 2x2 means \
         rounded by each implementation. At 64x64, 30% of the pixels are exact, 63% \
         within 2, none beyond 6; hasvk's and anv's images are identical",
    ),
    (
        "vk_depth_stencil",
        1,
        0,
        "UNORM8 conversion: the cyan triangle's blue 0.9 is 0.89999998 in f32, x 255 = \
         229.499994, which gtsim rounds to the nearest (229) and lavapipe stores as 230; \
         the Vulkan spec allows either. Depth and stencil results are exact",
    ),
    (
        "vk_blend",
        1,
        0,
        "blend precision, as for the GL `blend`: gtsim blends the colour values in f32 \
         (seed 004 §12.1.7), lavapipe blends UNORM8 targets in 8-bit fixed point",
    ),
    (
        "vk_msaa",
        1,
        0,
        "resolve rounding: the mean of a pixel's four samples is rounded by the \
         driver's resolve (a BLORP kernel on gtsim's EU, in f32), and by lavapipe in \
         fixed point; coverage and sample positions agree (no pixel differs by more)",
    ),
];

fn tolerance(name: &str) -> (u8, usize, &'static str) {
    TOLERANCE
        .iter()
        .find(|t| t.0 == name)
        .map_or((0, 0, "exact"), |t| (t.1, t.2, t.3))
}

fn on_lavapipe(name: &str, exe: &str, png: &Path, args: &[&str]) -> Output {
    let out = Command::new(exe)
        .arg("--out")
        .arg(png)
        .args(args)
        .env("VK_DRIVER_FILES", Path::new(ICDS).join(LAVAPIPE))
        .env("VK_ICD_FILENAMES", Path::new(ICDS).join(LAVAPIPE))
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name} on lavapipe: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `vk_shading_rate`'s reference: lavapipe's full-rate render at half the size (32x32),
/// each pixel doubled in both directions (nearest), white where the client's occluding
/// rectangle covers pixel centres, written to `png`. A 2x2 coarse pixel's varyings are
/// interpolated at its centre, which is the centre of the half-size pixel standing for
/// it; the depth test stays per pixel, so the rectangle's edges cut coarse pixels.
fn half_size_doubled(name: &str, png: &Path) -> Output {
    let half = tmp(&format!("{name}-lavapipe-half.png"));
    let out = on_lavapipe(name, reference_client(name), &half, &["--size", "32"]);
    let (w, h, px) = common::read_png(&half);
    let mut doubled = vec![0u8; (4 * w * h * 4) as usize];
    // vk_shading_rate's OCCLUDER (columns 13..41, rows 7..31 at 64x64) is white.
    let occluded = |x: u32, y: u32| (13..41).contains(&x) && (7..31).contains(&y);
    for y in 0..2 * h {
        for x in 0..2 * w {
            let from = (((y / 2) * w + x / 2) * 4) as usize;
            let to = ((y * 2 * w + x) * 4) as usize;
            if occluded(x, y) {
                doubled[to..to + 4].copy_from_slice(&[255; 4]);
            } else {
                doubled[to..to + 4].copy_from_slice(&px[from..from + 4]);
            }
        }
    }
    gtsim_clients::write_png(png, 2 * w, 2 * h, &doubled).unwrap();
    out
}

fn under_gtsim(generation: u32, exe: &str, png: &Path) -> Output {
    Command::new(gtsim())
        .args(["run", "--gen", &generation.to_string(), "--"])
        .arg(exe)
        .arg("--out")
        .arg(png)
        .env("GTSIM_I915_QUIET", "1")
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .env_remove("VK_DRIVER_FILES")
        .env_remove("VK_ICD_FILENAMES")
        .output()
        .unwrap()
}

/// The client whose lavapipe image is a client's reference: its own, except for
/// `vk_descriptor_indexing`, which lavapipe (Mesa 22.3) cannot run (it offers no
/// descriptor indexing) and whose scene `vk_texture_array` draws through an array
/// texture, the same image with nearest sampling.
fn reference_client(name: &str) -> &'static str {
    let of = if name == "vk_descriptor_indexing" {
        "vk_texture_array"
    } else {
        name
    };
    CLIENTS.iter().find(|c| c.0 == of).map(|c| c.1).unwrap()
}

/// Clients that do not run on a generation, and the message each fails with: hasvk
/// offers neither descriptor indexing (no bindless surfaces before Gen9) nor fragment
/// shading rates on Ivy Bridge.
const NOT_OFFERED: &[(&str, u32, &str)] = &[
    (
        "vk_descriptor_indexing",
        7,
        "descriptor indexing is not offered by Intel(R) HD Graphics 4000",
    ),
    (
        "vk_shading_rate",
        7,
        "fragment shading rates are not offered by Intel(R) HD Graphics 4000",
    ),
];

/// Every Vulkan client under gtsim on `generation` against lavapipe.
fn clients_match_lavapipe(generation: u32, device: &str) {
    if !vulkan_present() {
        return;
    }
    let mut failures = vec![];
    for (name, exe) in CLIENTS {
        let got = tmp(&format!("{name}-gen{generation}.png"));
        if let Some((.., why)) = NOT_OFFERED
            .iter()
            .find(|n| n.0 == *name && n.1 == generation)
        {
            let out = under_gtsim(generation, exe, &got);
            let stderr = String::from_utf8_lossy(&out.stderr);
            if out.status.success() || !stderr.contains(why) {
                failures.push(format!(
                    "{name} on gen {generation}: expected {why:?}, got {stderr}"
                ));
            }
            continue;
        }
        // Each generation's test renders its own reference: the two run at once.
        let reference = tmp(&format!("{name}-lavapipe-for-gen{generation}.png"));
        let want = if *name == "vk_shading_rate" {
            half_size_doubled(name, &reference)
        } else {
            on_lavapipe(name, reference_client(name), &reference, &[])
        };
        let out = under_gtsim(generation, exe, &got);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() || stderr.contains("GPU HANG") {
            failures.push(format!("{name} on gen {generation}: {stderr}"));
            continue;
        }
        assert!(
            stderr.contains(device),
            "{name}: the driver did not report {device}: {stderr}"
        );
        if out.stdout != want.stdout {
            failures.push(format!(
                "{name} on gen {generation} printed\n{}\nwhere lavapipe printed\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&want.stdout)
            ));
        }
        failures.extend(common::compare_images(
            &format!("{name} (gen {generation})"),
            &got,
            &reference,
            "lavapipe",
            tolerance(name),
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn vulkan_clients_on_hasvk_over_gtsim_match_lavapipe() {
    clients_match_lavapipe(7, "HD Graphics 4000 (IVB GT2)");
}

#[test]
fn vulkan_clients_on_anv_over_gtsim_match_lavapipe() {
    clients_match_lavapipe(11, "Iris(R) Plus Graphics (ICL GT2)");
}

/// `vulkaninfo` creates the device on both generations and sees only the emulated GPU
/// (`gtsim run` points the loader at the generation's driver).
#[test]
fn vulkaninfo_creates_the_device_on_both_generations() {
    if !vulkan_present() {
        return;
    }
    let Ok(vulkaninfo) = which("vulkaninfo") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install vulkan-tools"
        );
        eprintln!("SKIPPED: vulkaninfo (vulkan-tools) is not installed");
        return;
    };
    for (generation, device) in [
        (7, "HD Graphics 4000 (IVB GT2)"),
        (11, "Iris(R) Plus Graphics (ICL GT2)"),
    ] {
        let out = Command::new(gtsim())
            .args(["run", "--gen", &generation.to_string(), "--"])
            .arg(&vulkaninfo)
            .arg("--summary")
            .env("GTSIM_I915_QUIET", "1")
            .env_remove("VK_DRIVER_FILES")
            .env_remove("VK_ICD_FILENAMES")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "vulkaninfo on gen {generation}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains(device), "gen {generation}: {stdout}");
        assert_eq!(
            stdout.matches("deviceName").count(),
            1,
            "gen {generation}: only the emulated GPU: {stdout}"
        );
    }
}

fn which(tool: &str) -> Result<PathBuf, ()> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
        .ok_or(())
}

/// ffmpeg's Vulkan filters (issue 43's real program), each with the width and height of
/// its output; the input is one 64x64 `testsrc` frame uploaded as yuv420p.
const FFMPEG_FILTERS: &[(&str, &str, [usize; 2])] = &[
    ("gblur", "gblur_vulkan", [64, 64]),
    ("chromaber", "chromaber_vulkan", [64, 64]),
    ("scale", "scale_vulkan=w=48:h=40", [48, 40]),
    (
        "libplacebo",
        "libplacebo=w=96:h=80:format=yuv420p",
        [96, 80],
    ),
    ("avgblur", "avgblur_vulkan", [64, 64]),
];

/// Why `avgblur_vulkan` is held to no PSNR: Debian's ffmpeg 5.1 runs its shader
/// (printed with `-loglevel debug`) once per plane over one shared-memory array with a
/// single barrier() per pass, so each plane's reads race with the next plane's writes
/// from other invocations; the barrier sits in control flow that the chroma planes'
/// bounds check makes non-uniform, and `cache[cp + gl_WorkGroupSize.x]` writes past
/// the array for most invocations. The result is undefined: lavapipe's and gtsim's
/// differ (23.6 dB), and both differ from ffmpeg's own CPU `avgblur` (21.7 dB and
/// 23.3 dB). Both generations must still run it and agree with each other.
const AVGBLUR_RACES: &str = "avgblur_vulkan's shader races on shared memory";

/// One frame through `filter` on the Vulkan device: lavapipe when `generation` is
/// `None`, else the emulated GPU of that generation under `gtsim run`.
fn ffmpeg_vulkan(generation: Option<u32>, filter: &str, out: &Path) -> Vec<u8> {
    let mut cmd = match generation {
        Some(g) => {
            let mut c = Command::new(gtsim());
            c.args(["run", "--gen", &g.to_string(), "--", "ffmpeg"]);
            c.env("GTSIM_I915_QUIET", "1")
                .env_remove("VK_DRIVER_FILES")
                .env_remove("VK_ICD_FILENAMES");
            c
        }
        None => {
            let mut c = Command::new("ffmpeg");
            c.env("VK_DRIVER_FILES", Path::new(ICDS).join(LAVAPIPE))
                .env("VK_ICD_FILENAMES", Path::new(ICDS).join(LAVAPIPE))
                .env_remove("LD_PRELOAD");
            c
        }
    };
    cmd.args(["-hide_banner", "-loglevel", "error"])
        .args(["-init_hw_device", "vulkan=vk:0", "-filter_hw_device", "vk"])
        .args([
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=64x64:rate=1",
            "-frames:v",
            "1",
        ])
        .arg("-vf")
        .arg(format!(
            "format=yuv420p,hwupload,{filter},hwdownload,format=yuv420p"
        ))
        .args(["-f", "rawvideo", "-y"])
        .arg(out);
    let o = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && !stderr.contains("GPU HANG"),
        "ffmpeg {filter} on {generation:?}: {stderr}"
    );
    std::fs::read(out).unwrap()
}

/// Per-plane PSNR (dB) of two yuv420p frames of `size`, as ffmpeg's `psnr` filter
/// computes it: 10 log10(255² / MSE); identical planes are infinite.
fn psnr_planes(a: &[u8], b: &[u8], [w, h]: [usize; 2]) -> [f64; 3] {
    assert_eq!(a.len(), b.len());
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
    let planes = [(0, w * h), (w * h, cw * ch), (w * h + cw * ch, cw * ch)];
    assert_eq!(a.len(), w * h + 2 * cw * ch, "a yuv420p frame of {w}x{h}");
    planes.map(|(at, n)| {
        let mse = a[at..at + n]
            .iter()
            .zip(&b[at..at + n])
            .map(|(x, y)| (f64::from(*x) - f64::from(*y)).powi(2))
            .sum::<f64>()
            / n as f64;
        10.0 * (255.0f64 * 255.0 / mse).log10()
    })
}

/// The five ffmpeg Vulkan filters on hasvk and anv give lavapipe's frame within 40 dB
/// PSNR on every plane, except `avgblur_vulkan`, whose shader is racy
/// ([`AVGBLUR_RACES`]): it must run on both and give the same frame on both.
#[test]
fn ffmpeg_vulkan_filters_match_lavapipe_on_both_generations() {
    if !vulkan_present() {
        return;
    }
    if Command::new("ffmpeg").arg("-version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "CI must install ffmpeg");
        eprintln!("SKIPPED: ffmpeg is not installed");
        return;
    }
    let mut failures = vec![];
    for (name, filter, size) in FFMPEG_FILTERS {
        let want = ffmpeg_vulkan(None, filter, &tmp(&format!("ff-{name}-lavapipe.yuv")));
        let mut frames = vec![];
        for generation in [7, 11] {
            let got = ffmpeg_vulkan(
                Some(generation),
                filter,
                &tmp(&format!("ff-{name}-gen{generation}.yuv")),
            );
            let psnr = psnr_planes(&got, &want, *size);
            eprintln!(
                "{name} on gen {generation}: PSNR y {:.1} u {:.1} v {:.1} dB",
                psnr[0], psnr[1], psnr[2]
            );
            if *name != "avgblur" && psnr.iter().any(|p| *p < 40.0) {
                failures.push(format!(
                    "{name} on gen {generation}: PSNR {psnr:?} dB below 40"
                ));
            }
            frames.push(got);
        }
        if *name == "avgblur" && frames[0] != frames[1] {
            failures.push(format!("{name}: the generations differ ({AVGBLUR_RACES})"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Pixel history through coarse pixel shading: `vk_shading_rate` on anv (Gen11) shades
/// 2x2 coarse pixels, and a pixel that is not its coarse pixel's first (odd x and y)
/// has the coarse write in its history, with a lane trace ending in the render target
/// write, and its `final` value is the client's own pixel (read back by the client);
/// in block (5, 9), which the shader discards (clients/shaders/rate.frag), the history
/// says the write left the pixel out.
#[test]
fn pixel_history_follows_coarse_writes() {
    if !vulkan_present() {
        return;
    }
    let exe = env!("CARGO_BIN_EXE_vk_shading_rate");
    let png = tmp("vk_shading_rate-history.png");
    let capture = tmp("vk_shading_rate-history.aub");
    let out = Command::new(gtsim())
        .args(["run", "--gen", "11", "--capture"])
        .arg(&capture)
        .arg("--")
        .arg(exe)
        .arg("--out")
        .arg(&png)
        .env("GTSIM_I915_QUIET", "1")
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .env_remove("VK_DRIVER_FILES")
        .env_remove("VK_ICD_FILENAMES")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, _, px) = common::read_png(&png);
    let inspect = |x: u32, y: u32| {
        let out = Command::new(gtsim())
            .arg("inspect")
            .arg(&capture)
            .args(["--pixel", &format!("{x},{y}"), "--trace"])
            .output()
            .unwrap();
        assert!(out.status.success(), "({x}, {y})");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // Outside the occluder (columns 13..41, rows 7..31) and the discarded block.
    for (x, y) in [(5, 5), (45, 51), (61, 39)] {
        let text = inspect(x, y);
        let i = 4 * (y * w + x) as usize;
        let last = format!(
            "final {} {} {} {}\n",
            px[i],
            px[i + 1],
            px[i + 2],
            px[i + 3]
        );
        assert!(text.ends_with(&last), "({x}, {y}): want {last}{text}");
        assert!(
            text.contains("render target write (binding table entry")
                && !text.contains("not followed")
                && text.contains("pixel shader lane"),
            "({x}, {y}): {text}"
        );
    }
    let text = inspect(11, 19);
    assert!(
        text.contains("the shader discarded the pixel"),
        "(11, 19): {text}"
    );
}
