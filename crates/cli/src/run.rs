//! `gtsim run`: start a program with the i915 emulation preloaded and Mesa pointed at
//! crocus (Ivy Bridge) or iris (`--gen 11`, Ice Lake), the way Mesa's own
//! `intel_stub_gpu` launcher does for its stub.

use anyhow::{Context, Result, bail};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where Debian 12 (x86-64) installs Mesa's DRI drivers.
pub(crate) const DRI_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu/dri",
    "/usr/lib/dri",
    "/usr/lib64/dri",
];

pub(crate) fn find_library() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("GTSIM_I915_LIB") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().context("cannot find the gtsim executable's path")?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    // `cargo build` puts the library beside the binaries, `cargo test` in deps/; when
    // both exist the newer one belongs to this build.
    let newest = [
        dir.join("libgtsim_i915.so"),
        dir.join("deps/libgtsim_i915.so"),
    ]
    .into_iter()
    .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
    .max_by_key(|(t, _)| *t);
    if let Some((_, p)) = newest {
        return Ok(p);
    }
    bail!(
        "libgtsim_i915.so is not next to {} : build it with `cargo build --release --workspace` (or set GTSIM_I915_LIB)",
        exe.display()
    )
}

/// The Mesa driver of a generation.
fn driver(generation: u32) -> &'static str {
    if generation == 11 { "iris" } else { "crocus" }
}

/// The VA-API driver of a generation: Intel's i965 VA driver (Debian `i965-va-driver`)
/// for Ivy Bridge, the media driver (`intel-media-va-driver`) for Ice Lake.
fn va_driver(generation: u32) -> &'static str {
    if generation == 11 { "iHD" } else { "i965" }
}

/// The Vulkan driver of a generation, by its loader manifest: Mesa's anv
/// (`intel_icd`) for Ice Lake, hasvk (`intel_hasvk_icd`) for Ivy Bridge, which anv no
/// longer drives (Debian `mesa-vulkan-drivers`).
fn vulkan_icd(generation: u32) -> &'static str {
    if generation == 11 {
        "intel_icd.x86_64.json"
    } else {
        "intel_hasvk_icd.x86_64.json"
    }
}

/// Where the Vulkan loader looks for driver manifests on Debian, system-wide
/// (Vulkan-Loader docs/LoaderDriverInterface.md, "Driver Discovery on Linux").
const VULKAN_ICD_DIRS: &[&str] = &[
    "/usr/local/etc/vulkan/icd.d",
    "/usr/local/share/vulkan/icd.d",
    "/etc/vulkan/icd.d",
    "/usr/share/vulkan/icd.d",
];

/// The manifest of the generation's Vulkan driver, when it is installed.
pub(crate) fn find_vulkan_icd(generation: u32) -> Option<PathBuf> {
    VULKAN_ICD_DIRS
        .iter()
        .map(|d| Path::new(d).join(vulkan_icd(generation)))
        .find(|p| p.is_file())
}

fn check_mesa(generation: u32) -> Result<()> {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        bail!("gtsim run needs Linux on x86-64 (the preload library plays the Linux i915 driver)");
    }
    let dirs: Vec<PathBuf> = match std::env::var_os("LIBGL_DRIVERS_PATH") {
        Some(p) => std::env::split_paths(&p).collect(),
        None => DRI_DIRS.iter().map(PathBuf::from).collect(),
    };
    let name = driver(generation);
    if !dirs
        .iter()
        .any(|d| d.join(format!("{name}_dri.so")).is_file())
    {
        bail!(
            "Mesa's {name} driver ({name}_dri.so) is not installed: on Debian 12 run `apt-get install -y libgl1-mesa-dri libegl-mesa0 libegl1 libgbm1`"
        );
    }
    Ok(())
}

/// Runs `command` under the emulation and returns its exit status.
pub fn run(capture: Option<PathBuf>, generation: u32, command: Vec<OsString>) -> Result<ExitCode> {
    check_mesa(generation)?;
    let lib = find_library()?;
    let (program, args) = command.split_first().context("no program given")?;
    let mut cmd = std::process::Command::new(program);
    cmd.args(args);
    let preload = match std::env::var_os("LD_PRELOAD") {
        Some(old) if !old.is_empty() => {
            let mut s = lib.clone().into_os_string();
            s.push(":");
            s.push(old);
            s
        }
        _ => lib.clone().into_os_string(),
    };
    cmd.env("LD_PRELOAD", preload);
    cmd.env("MESA_LOADER_DRIVER_OVERRIDE", driver(generation));
    // VA-API clients get Intel's VA driver for the emulated GPU, as Mesa gets crocus or
    // iris: libva would otherwise try the media driver (iHD) for an i915 node first,
    // which has no Ivy Bridge support. A name the user set wins.
    if std::env::var_os("LIBVA_DRIVER_NAME").is_none() {
        cmd.env("LIBVA_DRIVER_NAME", va_driver(generation));
    }
    // Vulkan clients get the generation's Intel driver and only it, as GL gets crocus or
    // iris: the loader would otherwise also offer lavapipe, and anv would decline an Ivy
    // Bridge that hasvk drives. A driver list the user set wins; without the driver
    // installed (a GL-only machine) the loader is left alone.
    if std::env::var_os("VK_ICD_FILENAMES").is_none()
        && std::env::var_os("VK_DRIVER_FILES").is_none()
        && let Some(icd) = find_vulkan_icd(generation)
    {
        cmd.env("VK_DRIVER_FILES", &icd);
        cmd.env("VK_ICD_FILENAMES", &icd);
    }
    cmd.env("GTSIM_GEN", generation.to_string());
    cmd.env("EGL_PLATFORM", "surfaceless");
    cmd.env_remove("LIBGL_ALWAYS_SOFTWARE");
    cmd.env_remove("GALLIUM_DRIVER");
    let vendor = Path::new("/usr/share/glvnd/egl_vendor.d/50_mesa.json");
    if vendor.is_file() {
        cmd.env("__EGL_VENDOR_LIBRARY_FILENAMES", vendor);
    }
    if let Some(c) = &capture {
        let abs =
            std::path::absolute(c).with_context(|| format!("bad capture path {}", c.display()))?;
        cmd.env("GTSIM_CAPTURE", abs);
    }
    let status = cmd
        .status()
        .with_context(|| format!("cannot start {}", program.to_string_lossy()))?;
    use std::os::unix::process::ExitStatusExt;
    Ok(match (status.code(), status.signal()) {
        (Some(c), _) => ExitCode::from(c as u8),
        (None, Some(sig)) => {
            eprintln!(
                "gtsim: {} was killed by signal {sig}",
                program.to_string_lossy()
            );
            ExitCode::from(128u8.wrapping_add(sig as u8))
        }
        _ => ExitCode::FAILURE,
    })
}
