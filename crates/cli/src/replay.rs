//! `gtsim replay`: a captured trace through the model, render targets out as PNG.

use anyhow::{Context, Result};
use gtsim_gpu::aub;
use gtsim_gpu::replay::{read_rgba8, replay as run_replay};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

/// The embedded trace: the `triangle` client (clients/src/bin/triangle.rs) captured
/// through crocus with `gtsim run --capture`.
pub const EMBEDDED: &[u8] = include_bytes!("../data/triangle.aub");

pub fn replay(file: Option<&Path>, out: &Path, flip_y: bool) -> Result<ExitCode> {
    let bytes = match file {
        Some(f) => std::fs::read(f).with_context(|| format!("cannot read {}", f.display()))?,
        None => {
            eprintln!("gtsim: replaying the embedded trace of the triangle client");
            EMBEDDED.to_vec()
        }
    };
    let trace = aub::parse(&bytes);
    for (at, msg) in &trace.diagnostics {
        eprintln!("gtsim: AUB byte {at:#x}: {msg}");
    }
    if let Some(e) = &trace.error {
        eprintln!("gtsim: {e}");
    }
    let progress = Progress::new("submissions");
    let r = run_replay(&trace, |done, total| progress.update(done, total));
    progress.finish();
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut ok = r.hangs.is_empty() && trace.error.is_none();
    for (i, h) in &r.hangs {
        eprintln!("gtsim: GPU hang in submission {i}: {h}");
    }
    for line in &r.not_executed {
        eprintln!("gtsim: not executed: {line}");
    }
    for rt in &r.render_targets {
        let name = format!(
            "rt-{:08x}-{}.png",
            rt.surface.base,
            rt.surface.format.name().unwrap_or("format")
        );
        let path = out.join(&name);
        match read_rgba8(&r.mem, rt) {
            Ok((w, h, mut px)) => {
                if flip_y {
                    let row = w as usize * 4;
                    px = px.chunks(row).rev().flatten().copied().collect();
                }
                write_png(&path, w, h, &px)?;
                println!(
                    "{}: {w}x{h} render target at {:#x}",
                    path.display(),
                    rt.surface.base
                );
            }
            Err(e) => {
                eprintln!("gtsim: {name}: {e}");
                ok = false;
            }
        }
    }
    // The frames a display showed (a `gtsim run --display --capture` trace).
    for (i, f) in r.display_frames.iter().enumerate() {
        let path = out.join(format!("display-{:05}.png", i + 1));
        match f {
            Ok((w, h, px)) => {
                write_png(&path, *w, *h, px)?;
                println!("{}: {w}x{h} display frame {}", path.display(), i + 1);
            }
            Err(e) => {
                eprintln!("gtsim: display frame {}: {e}", i + 1);
                ok = false;
            }
        }
    }
    println!(
        "{} submissions, {} draws, {} walkers, {} hangs, {} render targets",
        r.submissions,
        r.draws,
        r.walkers,
        r.hangs.len(),
        r.render_targets.len()
    );
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn write_png(path: &Path, w: u32, h: u32, rgba: &[u8]) -> Result<()> {
    gtsim_inspect::image::write_png(path, w, h, rgba)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

/// Progress of a long replay: a bar on a terminal, else a plain line at each tenth of the
/// way (and at the end), so logs show it too.
pub struct Progress {
    bar: Option<ProgressBar>,
    what: &'static str,
    last_tenth: std::cell::Cell<usize>,
    started: std::time::Instant,
}

impl Progress {
    /// Progress counted in `what` (e.g. "submissions").
    pub fn new(what: &'static str) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{bar:40}} {{pos}}/{{len}} {what} {{elapsed}}"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Progress {
            bar,
            what,
            last_tenth: std::cell::Cell::new(0),
            started: std::time::Instant::now(),
        }
    }

    /// `done` of `total`.
    pub fn update(&self, done: usize, total: usize) {
        match &self.bar {
            Some(bar) => {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            }
            None => {
                // Plain lines only when the work takes more than a moment.
                let tenth = done * 10 / total.max(1);
                if tenth > self.last_tenth.get() && self.started.elapsed().as_secs_f64() > 1.0 {
                    self.last_tenth.set(tenth);
                    eprintln!(
                        "gtsim: {done}/{total} {} ({:.1} s)",
                        self.what,
                        self.started.elapsed().as_secs_f64()
                    );
                }
            }
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
