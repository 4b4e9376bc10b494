//! `gtsim inspect`: a capture replayed through the model, draw by draw, into a report a
//! browser opens from the file system.
//!
//! The model: the replay is `gtsim replay`'s ([`gtsim_gpu::replay`]) with an observer
//! ([`record::Recorder`], the hooks of [`gtsim_gpu::device::observe`]) that the command
//! streamer tells each command, each draw before and after, and each hang. For a draw
//! it keeps what the model itself used: the latched state, typed, its fields named by
//! the spec tables (`state`); the render targets, depth and stencil buffers before and
//! after, and every level and slice of the surfaces the stages' binding tables name, as
//! PNG files (`image`); the kernels' disassembly (`shader`); the statistics the draw
//! added and the host time of its stages. [`html`] writes the pages, [`serve`] serves
//! them on a local port.

pub mod html;
pub mod image;
pub mod model;
pub mod record;
pub mod serve;
pub mod shader;
pub mod state;

use gtsim_gpu::aub::Trace;
use gtsim_gpu::device::DeviceLimits;
use std::path::Path;

/// What an inspection found.
#[derive(Debug)]
pub struct Summary {
    /// Submissions replayed.
    pub submissions: usize,
    /// Draws.
    pub draws: usize,
    /// Hangs.
    pub hangs: usize,
}

/// Replays `trace` (named `source` in the report) and writes the report into `dir`;
/// `progress(done, total)` after each submission.
pub fn inspect(
    trace: &Trace,
    source: &str,
    dir: &Path,
    progress: impl FnMut(usize, usize),
) -> std::io::Result<Summary> {
    inspect_limited(trace, source, dir, DeviceLimits::default(), progress)
}

/// [`inspect`] under the given hangcheck limits.
pub fn inspect_limited(
    trace: &Trace,
    source: &str,
    dir: &Path,
    limits: DeviceLimits,
    progress: impl FnMut(usize, usize),
) -> std::io::Result<Summary> {
    std::fs::create_dir_all(dir)?;
    let mut recorder = record::Recorder::new(source.to_string(), dir.to_path_buf());
    gtsim_gpu::replay::replay_observed(trace, limits, progress, Some(&mut recorder));
    let r = &recorder.report;
    html::write(r, dir)?;
    Ok(Summary {
        submissions: r.submissions.len(),
        draws: r.draws.len(),
        hangs: r.hangs.len(),
    })
}
