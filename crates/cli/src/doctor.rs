//! `gtsim doctor`: what this machine has of what `gtsim run` drives (Mesa's GL and
//! Vulkan drivers, the VA-API drivers, the test tools), the exact Debian packages that
//! add what is missing, and whether `gtsim run` can work here at all.
//!
//! Everything is looked for where Debian 12 installs it (the DRI directories `gtsim run`
//! searches, `/usr/share/vulkan/icd.d`, `$PATH`); versions come from `dpkg-query`. The
//! looking goes through [`Probe`], so the report for a machine with or without the
//! packages is tested without one.

use std::path::{Path, PathBuf};

/// How the report looks at the machine.
pub trait Probe {
    /// Whether `path` is a file.
    fn file(&self, path: &Path) -> bool;
    /// Where program `name` is on the search path.
    fn program(&self, name: &str) -> Option<PathBuf>;
    /// The installed version of Debian package `package`.
    fn version(&self, package: &str) -> Option<String>;
    /// Where gtsim's preload library is (or why it is not found).
    fn preload_library(&self) -> Result<PathBuf, String>;
}

/// The machine itself.
pub struct Host;

impl Probe for Host {
    fn file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn program(&self, name: &str) -> Option<PathBuf> {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    }

    fn version(&self, package: &str) -> Option<String> {
        let out = std::process::Command::new("dpkg-query")
            .args(["-W", "-f=${Version}", package])
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
        (out.status.success() && !v.is_empty()).then_some(v)
    }

    fn preload_library(&self) -> Result<PathBuf, String> {
        let p = crate::run::find_library().map_err(|e| e.to_string())?;
        if p.is_file() {
            Ok(p)
        } else {
            Err(format!("{} does not exist", p.display()))
        }
    }
}

/// Where a component is found.
#[derive(Debug, Clone, Copy)]
enum Where {
    /// A file in one of the DRI directories `gtsim run` searches.
    Dri(&'static str),
    /// A file at this path.
    File(&'static str),
    /// A program on the search path.
    Program(&'static str),
}

/// What a component is for: the `gtsim run` generations and API it serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Use {
    /// Needed by every GL, Vulkan and VA-API program (the EGL loader and Mesa's EGL).
    Base,
    /// OpenGL (and GLES) on this generation.
    Gl(u32),
    /// Vulkan on this generation.
    Vulkan(u32),
    /// VA-API on this generation.
    Va(u32),
    /// A tool the project's docs use (conformance runs, video tests).
    Tool,
}

/// One component: its name, what it is for, where it is found, the Debian package.
struct Component {
    name: &'static str,
    what: Use,
    at: Where,
    package: &'static str,
}

/// The DRI directories `gtsim run` searches for Mesa's drivers.
const DRI_DIRS: &[&str] = crate::run::DRI_DIRS;

const COMPONENTS: &[Component] = &[
    Component {
        name: "libEGL (the EGL loader)",
        what: Use::Base,
        at: Where::File("/usr/lib/x86_64-linux-gnu/libEGL.so.1"),
        package: "libegl1",
    },
    Component {
        name: "Mesa's EGL",
        what: Use::Base,
        at: Where::File("/usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0"),
        package: "libegl-mesa0",
    },
    Component {
        name: "crocus",
        what: Use::Gl(7),
        at: Where::Dri("crocus_dri.so"),
        package: "libgl1-mesa-dri",
    },
    Component {
        name: "iris",
        what: Use::Gl(11),
        at: Where::Dri("iris_dri.so"),
        package: "libgl1-mesa-dri",
    },
    Component {
        name: "hasvk",
        what: Use::Vulkan(7),
        at: Where::File("/usr/share/vulkan/icd.d/intel_hasvk_icd.x86_64.json"),
        package: "mesa-vulkan-drivers",
    },
    Component {
        name: "anv",
        what: Use::Vulkan(11),
        at: Where::File("/usr/share/vulkan/icd.d/intel_icd.x86_64.json"),
        package: "mesa-vulkan-drivers",
    },
    Component {
        name: "i965 VA driver",
        what: Use::Va(7),
        at: Where::Dri("i965_drv_video.so"),
        package: "i965-va-driver",
    },
    Component {
        name: "iHD (Intel media driver)",
        what: Use::Va(11),
        at: Where::Dri("iHD_drv_video.so"),
        package: "intel-media-va-driver",
    },
    Component {
        name: "piglit",
        what: Use::Tool,
        at: Where::Program("piglit"),
        package: "piglit",
    },
    Component {
        name: "wflinfo",
        what: Use::Tool,
        at: Where::Program("wflinfo"),
        package: "waffle-utils",
    },
    Component {
        name: "vulkaninfo",
        what: Use::Tool,
        at: Where::Program("vulkaninfo"),
        package: "vulkan-tools",
    },
    Component {
        name: "vainfo",
        what: Use::Tool,
        at: Where::Program("vainfo"),
        package: "vainfo",
    },
    Component {
        name: "ffmpeg",
        what: Use::Tool,
        at: Where::Program("ffmpeg"),
        package: "ffmpeg",
    },
];

/// The part a generation presents under `gtsim run --gen N`.
fn part(generation: u32) -> &'static str {
    if generation == 11 {
        "Ice Lake"
    } else {
        "Ivy Bridge"
    }
}

/// What a component serves, in words.
fn purpose(u: Use) -> String {
    match u {
        Use::Base => "every GL, Vulkan and VA-API program".into(),
        Use::Gl(g) => format!("OpenGL on --gen {g} ({})", part(g)),
        Use::Vulkan(g) => format!("Vulkan on --gen {g} ({})", part(g)),
        Use::Va(g) => format!("VA-API on --gen {g} ({})", part(g)),
        Use::Tool => "the conformance and video runs of docs/".into(),
    }
}

/// The report: its text, and whether `gtsim run` can work (the preload library, EGL and
/// at least one generation's GL driver are there).
pub fn report(p: &dyn Probe) -> (String, bool) {
    let mut out = String::from("gtsim doctor: what `gtsim run` can drive on this machine\n\n");
    let library = p.preload_library();
    match &library {
        Ok(path) => out.push_str(&format!(
            "  ok       gtsim's i915 emulation: {}\n",
            path.display()
        )),
        Err(e) => out.push_str(&format!("  missing  gtsim's i915 emulation: {e}\n")),
    }
    let mut found = vec![];
    let mut missing_packages: Vec<&str> = vec![];
    for c in COMPONENTS {
        let path = match c.at {
            Where::Dri(name) => DRI_DIRS
                .iter()
                .map(|d| Path::new(d).join(name))
                .find(|f| p.file(f)),
            Where::File(f) => p.file(Path::new(f)).then(|| PathBuf::from(f)),
            Where::Program(name) => p.program(name),
        };
        match path {
            Some(path) => {
                let version = p
                    .version(c.package)
                    .map(|v| format!(" ({} {v})", c.package))
                    .unwrap_or_default();
                out.push_str(&format!(
                    "  ok       {}: {}: {}{version}\n",
                    c.name,
                    purpose(c.what),
                    path.display()
                ));
                found.push(c.what);
            }
            None => {
                out.push_str(&format!(
                    "  missing  {}: {} (Debian package {})\n",
                    c.name,
                    purpose(c.what),
                    c.package
                ));
                if !missing_packages.contains(&c.package) {
                    missing_packages.push(c.package);
                }
            }
        }
    }
    let base = COMPONENTS
        .iter()
        .filter(|c| c.what == Use::Base)
        .all(|c| found.contains(&c.what) && !missing_packages.contains(&c.package));
    let runs = |u: Use| base && found.contains(&u);
    let mut can = vec![];
    for g in [7, 11] {
        // What gtsim does with each API's work today (README: the table of what each generation runs).
        let apis: Vec<&str> = [
            (Use::Gl(g), "OpenGL"),
            (
                Use::Vulkan(g),
                "Vulkan (the device comes up; its work is not modelled yet)",
            ),
            (
                Use::Va(g),
                if g == 11 {
                    "VA-API (the driver comes up; VEBOX is not modelled yet)"
                } else {
                    "VA-API"
                },
            ),
        ]
        .into_iter()
        .filter(|(u, _)| runs(*u))
        .map(|(_, n)| n)
        .collect();
        if !apis.is_empty() {
            can.push(format!("--gen {g} ({}): {}", part(g), apis.join(", ")));
        }
    }
    let works = library.is_ok() && (runs(Use::Gl(7)) || runs(Use::Gl(11)));
    out.push('\n');
    if works {
        out.push_str(&format!("`gtsim run` can drive {}.\n", can.join("; ")));
    } else {
        out.push_str("`gtsim run` cannot work here yet: it needs gtsim's i915 emulation, EGL and Mesa's crocus or iris.\n");
    }
    if library.is_err() {
        out.push_str("Build the emulation: cargo build --release --workspace\n");
    }
    if !missing_packages.is_empty() {
        missing_packages.sort_unstable();
        out.push_str(&format!(
            "To add what is missing: apt-get install -y {}\n",
            missing_packages.join(" ")
        ));
    }
    (out, works)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A machine with the given files and programs, every package at version 1.0.
    struct Fake {
        files: BTreeSet<&'static str>,
        programs: BTreeSet<&'static str>,
        library: bool,
    }

    impl Probe for Fake {
        fn file(&self, path: &Path) -> bool {
            self.files.iter().any(|f| Path::new(f) == path)
        }
        fn program(&self, name: &str) -> Option<PathBuf> {
            self.programs
                .contains(name)
                .then(|| PathBuf::from("/usr/bin").join(name))
        }
        fn version(&self, _: &str) -> Option<String> {
            Some("1.0".into())
        }
        fn preload_library(&self) -> Result<PathBuf, String> {
            if self.library {
                Ok(PathBuf::from("/opt/gtsim/libgtsim_i915.so"))
            } else {
                Err("libgtsim_i915.so is not next to gtsim".into())
            }
        }
    }

    const ALL_FILES: &[&str] = &[
        "/usr/lib/x86_64-linux-gnu/libEGL.so.1",
        "/usr/lib/x86_64-linux-gnu/libEGL_mesa.so.0",
        "/usr/lib/x86_64-linux-gnu/dri/crocus_dri.so",
        "/usr/lib/x86_64-linux-gnu/dri/iris_dri.so",
        "/usr/share/vulkan/icd.d/intel_hasvk_icd.x86_64.json",
        "/usr/share/vulkan/icd.d/intel_icd.x86_64.json",
        "/usr/lib/x86_64-linux-gnu/dri/i965_drv_video.so",
        "/usr/lib/x86_64-linux-gnu/dri/iHD_drv_video.so",
    ];
    const ALL_PROGRAMS: &[&str] = &["piglit", "wflinfo", "vulkaninfo", "vainfo", "ffmpeg"];

    fn fake(files: &[&'static str], programs: &[&'static str], library: bool) -> Fake {
        Fake {
            files: files.iter().copied().collect(),
            programs: programs.iter().copied().collect(),
            library,
        }
    }

    #[test]
    fn a_machine_with_everything_can_run_every_api() {
        let (text, works) = report(&fake(ALL_FILES, ALL_PROGRAMS, true));
        assert!(works, "{text}");
        assert!(!text.contains("missing"), "{text}");
        assert!(!text.contains("apt-get"), "{text}");
        assert!(
            text.contains(
                "--gen 7 (Ivy Bridge): OpenGL, Vulkan (the device comes up; its work is not \
                 modelled yet), VA-API; --gen 11 (Ice Lake): OpenGL, Vulkan (the device comes \
                 up; its work is not modelled yet), VA-API (the driver comes up; VEBOX is not \
                 modelled yet)."
            ),
            "{text}"
        );
        assert!(text.contains("(libgl1-mesa-dri 1.0)"), "{text}");
    }

    #[test]
    fn a_bare_machine_gets_the_exact_packages_and_fails() {
        let (text, works) = report(&fake(&[], &[], true));
        assert!(!works, "{text}");
        assert!(
            text.contains(
                "apt-get install -y ffmpeg i965-va-driver intel-media-va-driver libegl-mesa0 \
                 libegl1 libgl1-mesa-dri mesa-vulkan-drivers piglit vainfo vulkan-tools \
                 waffle-utils\n"
            ),
            "{text}"
        );
        assert!(text.contains("cannot work here yet"), "{text}");
    }

    /// GL present and nothing else: `gtsim run` works for GL on both generations, and
    /// the line names only what Vulkan, VA-API and the tools need.
    #[test]
    fn gl_alone_is_enough_to_run() {
        let gl = &ALL_FILES[..4];
        let (text, works) = report(&fake(gl, &[], true));
        assert!(works, "{text}");
        assert!(
            text.contains("--gen 7 (Ivy Bridge): OpenGL; --gen 11 (Ice Lake): OpenGL."),
            "{text}"
        );
        assert!(
            text.contains(
                "apt-get install -y ffmpeg i965-va-driver intel-media-va-driver \
                 mesa-vulkan-drivers piglit vainfo vulkan-tools waffle-utils\n"
            ),
            "{text}"
        );
    }

    /// Drivers without EGL, or without the emulation library, cannot run anything.
    #[test]
    fn egl_and_the_emulation_are_required() {
        let (text, works) = report(&fake(&ALL_FILES[2..], ALL_PROGRAMS, true));
        assert!(!works, "{text}");
        assert!(
            text.contains("apt-get install -y libegl-mesa0 libegl1\n"),
            "{text}"
        );
        let (text, works) = report(&fake(ALL_FILES, ALL_PROGRAMS, false));
        assert!(!works, "{text}");
        assert!(text.contains("cargo build --release --workspace"), "{text}");
    }
}
