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

pub mod diff;
pub mod digest;
pub mod history;
pub mod html;
pub mod image;
pub mod model;
pub mod record;
pub mod serve;
pub mod shader;
pub mod state;
pub mod trace_page;

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
    clear_old_report(dir)?;
    let mut recorder = record::Recorder::new(source.to_string(), dir.to_path_buf());
    let platform = trace
        .pci_id()
        .and_then(gtsim_gpu::device::Platform::from_pci_id)
        .unwrap_or_default();
    recorder.report.generation = Some(platform.generation());
    let replay = gtsim_gpu::replay::replay_observed(trace, limits, progress, Some(&mut recorder));
    let mut report = recorder.finish()?;
    let r = &mut report;
    // Hangs the observer did not see (a Gen11 command streamer calls no observer yet).
    for (i, h) in &replay.hangs {
        if r.submissions.get(*i).is_some_and(|s| s.hang.is_none()) {
            r.submissions[*i].hang = Some(r.hangs.len());
            r.hangs.push(model::HangPage {
                submission: *i,
                reason: h.to_string(),
                addr: h.addr(),
                ..model::HangPage::default()
            });
        }
    }
    if platform == gtsim_gpu::device::Platform::IceLake {
        r.notes.push(
            "an Ice Lake capture: each draw has its page (its latched state by stage \
             with the indirect state its pointers reach, the surfaces its binding tables \
             name, what it wrote, its kernels, counts and times)"
                .into(),
        );
    }
    r.notes.extend(
        replay
            .not_executed
            .iter()
            .map(|l| format!("not executed: {l}")),
    );
    if let Some(e) = &trace.error {
        r.notes.push(format!("the capture: {e}"));
    }
    // The frames the display showed (`gtsim run --display` with `--capture`).
    for (i, f) in replay.display_frames.iter().enumerate() {
        let entry = match f {
            Ok((w, h, rgba)) => {
                let name = format!("img/display-{:05}.png", i + 1);
                std::fs::create_dir_all(dir.join("img"))?;
                image::write_png(&dir.join(&name), *w, *h, rgba)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                Ok(name)
            }
            Err(e) => Err(e.clone()),
        };
        r.display.push(entry);
    }
    let r = &report;
    html::write(r, dir)?;
    Ok(Summary {
        submissions: r.submissions.len(),
        draws: r.draws.len(),
        hangs: r.hangs.len(),
    })
}

/// Removes the pages and pictures an earlier report left in `dir` (only the files a
/// report writes: `index.html`, `submission-N.html`, `draw-N.html`, `hang-N.html` and
/// `img/*.png`), so that a shorter report does not keep stale pages.
fn clear_old_report(dir: &Path) -> std::io::Result<()> {
    let ours = |name: &str| {
        name == "index.html"
            || ["submission-", "draw-", "hang-"].iter().any(|p| {
                name.strip_prefix(p)
                    .and_then(|r| r.strip_suffix(".html"))
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            })
    };
    for e in std::fs::read_dir(dir)?.flatten() {
        if e.file_name().to_str().is_some_and(ours) {
            std::fs::remove_file(e.path())?;
        }
    }
    if let Ok(img) = std::fs::read_dir(dir.join("img")) {
        for e in img.flatten() {
            if e.path().extension().is_some_and(|x| x == "png") {
                std::fs::remove_file(e.path())?;
            }
        }
    }
    Ok(())
}
