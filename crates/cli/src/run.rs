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

/// The preload library the binary carries, with the `embed-preload` feature (build.rs).
#[cfg(feature = "embed-preload")]
const EMBEDDED: Option<&[u8]> = Some(include_bytes!(env!("GTSIM_EMBEDDED_PRELOAD")));
#[cfg(not(feature = "embed-preload"))]
const EMBEDDED: Option<&[u8]> = None;

/// Where an embedded library is extracted: `$XDG_CACHE_HOME/gtsim/preload`, else
/// `~/.cache/gtsim/preload`, else the temporary directory.
fn extraction_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("gtsim/preload")
}

/// Writes `bytes` (a preload library) under `dir` as `libgtsim_i915-HASH.so`, named by
/// its content so that every build extracts its own and an existing file is reused;
/// the file appears whole (written beside and renamed) and executable.
pub(crate) fn extract_library(dir: &Path, bytes: &[u8]) -> Result<PathBuf> {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    let path = dir.join(format!("libgtsim_i915-{hash:016x}.so"));
    if std::fs::read(&path).is_ok_and(|have| have == bytes) {
        return Ok(path);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = dir.join(format!(".libgtsim_i915-{hash:016x}.{}", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(path)
}

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
    // An installed binary (`cargo install --path crates/cli --features embed-preload`)
    // carries its library.
    if let Some(bytes) = EMBEDDED {
        return extract_library(&extraction_dir(), bytes);
    }
    bail!(
        "libgtsim_i915.so is not next to {} : build it with `cargo build --release --workspace`, install gtsim with `cargo install --path crates/cli --features embed-preload`, or set GTSIM_I915_LIB",
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
pub fn run(
    capture: Option<PathBuf>,
    display: Option<PathBuf>,
    vblank: &str,
    generation: u32,
    command: Vec<OsString>,
) -> Result<ExitCode> {
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
    // A driver the user named wins: `MESA_LOADER_DRIVER_OVERRIDE=kms_swrast` runs
    // llvmpipe on the emulated display (through its dumb buffers) for comparison.
    if std::env::var_os("MESA_LOADER_DRIVER_OVERRIDE").is_none() {
        cmd.env("MESA_LOADER_DRIVER_OVERRIDE", driver(generation));
    }
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
    let target = match &display {
        Some(d) => Some(crate::display::Target::plan(d)?),
        None => None,
    };
    if let Some(t) = &target {
        cmd.env("GTSIM_DISPLAY", t.env());
    }
    cmd.env("GTSIM_DISPLAY_VBLANK", vblank);
    let status = cmd
        .status()
        .with_context(|| format!("cannot start {}", program.to_string_lossy()))?;
    if let Some(t) = &target {
        t.finish()?;
    }
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

#[cfg(test)]
mod tests {
    use super::extract_library;

    /// An embedded library is extracted once per content: the same bytes give the same
    /// executable file back, other bytes another file beside it.
    #[test]
    fn an_embedded_library_is_extracted_by_content() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("gtsim-extract-{}", std::process::id()));
        let a = extract_library(&dir, b"\x7fELF one").unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"\x7fELF one");
        assert_eq!(
            std::fs::metadata(&a).unwrap().permissions().mode() & 0o777,
            0o755
        );
        assert_eq!(extract_library(&dir, b"\x7fELF one").unwrap(), a, "reused");
        let b = extract_library(&dir, b"\x7fELF two").unwrap();
        assert_ne!(a, b);
        assert_eq!(std::fs::read(&b).unwrap(), b"\x7fELF two");
        // A damaged copy (same name, other bytes) is written again.
        std::fs::write(&a, b"torn").unwrap();
        assert_eq!(extract_library(&dir, b"\x7fELF one").unwrap(), a);
        assert_eq!(std::fs::read(&a).unwrap(), b"\x7fELF one");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
