//! Where `gtsim run --display` sends the emulated display's frames: a folder of PNGs, a
//! YUV4MPEG2 video the emulation writes itself, or any video ffmpeg writes (`.mkv`,
//! `.mp4`, `.webm`, `.avi`, `.mov`), encoded from a YUV4MPEG2 stream kept in the
//! temporary directory while the program runs and converted when it exits.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// The video containers handed to ffmpeg.
const ENCODED: &[&str] = &["mkv", "mp4", "webm", "avi", "mov"];

/// Where frames go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// PNG files in a folder.
    Folder(PathBuf),
    /// A YUV4MPEG2 video written as frames come.
    Y4m(PathBuf),
    /// A video ffmpeg encodes, from the YUV4MPEG2 stream at `y4m`, when the program
    /// has exited.
    Encoded {
        /// The intermediate stream.
        y4m: PathBuf,
        /// The video to write.
        out: PathBuf,
    },
}

impl Target {
    /// The target `--display PATH` names (absolute paths, the folder created), with an
    /// error now, before the program runs, when the video needs an ffmpeg that is not
    /// installed.
    pub fn plan(path: &Path) -> Result<Target> {
        let abs = std::path::absolute(path)
            .with_context(|| format!("bad display path {}", path.display()))?;
        let ext = abs
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("y4m") => Ok(Target::Y4m(abs)),
            Some(e) if ENCODED.contains(&e) => {
                if !ffmpeg_present() {
                    bail!(
                        "--display {}: a .{e} video is encoded by ffmpeg, which is not installed: on Debian 12 run `apt-get install -y ffmpeg` (or write .y4m, or a folder of PNGs)",
                        path.display()
                    );
                }
                let y4m =
                    std::env::temp_dir().join(format!("gtsim-display-{}.y4m", std::process::id()));
                Ok(Target::Encoded { y4m, out: abs })
            }
            _ => {
                std::fs::create_dir_all(&abs).with_context(|| {
                    format!("cannot create the display folder {}", abs.display())
                })?;
                Ok(Target::Folder(abs))
            }
        }
    }

    /// What `GTSIM_DISPLAY` tells the emulation.
    pub fn env(&self) -> &Path {
        match self {
            Target::Folder(p) | Target::Y4m(p) => p,
            Target::Encoded { y4m, .. } => y4m,
        }
    }

    /// After the program: encodes the video (ffmpeg, lossless-quality defaults of its
    /// container) and removes the intermediate stream; nothing to do otherwise. A
    /// program that showed no frame leaves no video, said as an error.
    pub fn finish(&self) -> Result<()> {
        let Target::Encoded { y4m, out } = self else {
            return Ok(());
        };
        if !y4m.is_file() {
            bail!(
                "--display {}: the program showed no frame on the display (no KMS mode set or page flip)",
                out.display()
            );
        }
        let status = std::process::Command::new("ffmpeg")
            .args(["-y", "-loglevel", "error", "-f", "yuv4mpegpipe", "-i"])
            .arg(y4m)
            .arg(out)
            .env_remove("LD_PRELOAD")
            .status()
            .context("cannot run ffmpeg")?;
        let _ = std::fs::remove_file(y4m);
        if !status.success() {
            bail!("ffmpeg could not write {} ({status})", out.display());
        }
        Ok(())
    }
}

/// Whether `ffmpeg` runs.
fn ffmpeg_present() -> bool {
    std::process::Command::new("ffmpeg")
        .arg("-version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path's extension picks the target: .y4m written directly, known containers
    /// through ffmpeg (an error up front when it is absent), anything else a folder.
    #[test]
    fn the_extension_picks_the_target() {
        let dir = std::env::temp_dir().join(format!("gtsim-display-plan-{}", std::process::id()));
        let folder = Target::plan(&dir.join("frames")).unwrap();
        assert_eq!(folder, Target::Folder(dir.join("frames")));
        assert!(dir.join("frames").is_dir());
        assert_eq!(
            Target::plan(&dir.join("v.y4m")).unwrap(),
            Target::Y4m(dir.join("v.y4m"))
        );
        match Target::plan(&dir.join("v.MKV")) {
            Ok(Target::Encoded { out, y4m }) => {
                assert_eq!(out, dir.join("v.MKV"));
                assert_eq!(y4m.extension().unwrap(), "y4m");
                // No frames: no video, said.
                assert!(Target::Encoded { out, y4m }.finish().is_err());
            }
            Ok(other) => panic!("{other:?}"),
            Err(e) => {
                assert!(!ffmpeg_present());
                assert!(e.to_string().contains("apt-get install -y ffmpeg"), "{e}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
