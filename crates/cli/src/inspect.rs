//! `gtsim inspect`: a captured trace replayed into a report ([`gtsim_inspect`]), then
//! optionally served.

use anyhow::{Context, Result};
use gtsim_gpu::aub;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

/// The bytes of `file` (the embedded triangle trace without one) and its name.
fn capture(file: Option<&Path>) -> Result<(Vec<u8>, String)> {
    Ok(match file {
        Some(f) => (
            std::fs::read(f).with_context(|| format!("cannot read {}", f.display()))?,
            f.display().to_string(),
        ),
        None => {
            eprintln!("gtsim: inspecting the embedded trace of the triangle client");
            (
                crate::replay::EMBEDDED.to_vec(),
                "the embedded triangle trace".to_string(),
            )
        }
    })
}

pub fn inspect(file: Option<&Path>, out: &Path, serve: Option<&str>) -> Result<ExitCode> {
    let (bytes, source) = capture(file)?;
    let trace = aub::parse(&bytes);
    for (at, msg) in &trace.diagnostics {
        eprintln!("gtsim: AUB byte {at:#x}: {msg}");
    }
    if let Some(e) = &trace.error {
        eprintln!("gtsim: {e}");
    }
    let progress = crate::replay::Progress::new("submissions");
    let summary = gtsim_inspect::inspect(&trace, &source, out, |done, total| {
        progress.update(done, total)
    })
    .with_context(|| format!("cannot write the report into {}", out.display()))?;
    progress.finish();
    let index = out.join("index.html");
    println!(
        "{}: {} submissions, {} draws, {} hangs",
        index.display(),
        summary.submissions,
        summary.draws,
        summary.hangs
    );
    for i in 0..summary.hangs {
        println!("hang {i}: {}", out.join(format!("hang-{i}.html")).display());
    }
    if let Some(addr) = serve {
        let listener = std::net::TcpListener::bind(addr)
            .with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        println!(
            "serving {} at http://{local}/ (interrupt to stop)",
            out.display()
        );
        if !std::io::stdout().is_terminal() {
            use std::io::Write;
            let _ = std::io::stdout().flush();
        }
        // Pixel pages are made on request from the capture (a click on a render
        // target's picture).
        let pages: std::sync::Arc<dyn gtsim_inspect::serve::Pages> =
            std::sync::Arc::new(gtsim_inspect::trace_page::TracePages::new(trace));
        gtsim_inspect::serve::serve_with(out, listener, Some(pages))?;
    }
    Ok(if summary.hangs == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// What `gtsim inspect --diff` / `--with` compares the capture with.
pub enum Other<'a> {
    /// A second capture, replayed on this build.
    Capture(&'a Path),
    /// The same capture on another gtsim build (its `inspect --digest`).
    Build(&'a Path),
}

/// `gtsim inspect --digest FILE [--digest-draw N]`.
pub fn write_digest(file: Option<&Path>, to: &Path, draw: Option<usize>) -> Result<ExitCode> {
    let (bytes, _) = capture(file)?;
    let text = gtsim_inspect::digest::digest(&aub::parse(&bytes), draw).to_text();
    if to == Path::new("-") {
        use std::io::Write;
        std::io::stdout().lock().write_all(text.as_bytes())?;
    } else {
        std::fs::write(to, text).with_context(|| format!("cannot write {}", to.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `gtsim inspect A --diff B` and `gtsim inspect A --with OTHER_GTSIM`: where the two
/// replays first diverge ([`gtsim_inspect::diff`]); exit 0 when they agree, 1 when not.
pub fn diff(file: Option<&Path>, other: Other<'_>) -> Result<ExitCode> {
    use gtsim_inspect::digest::{Digest, digest};
    let (bytes, source) = capture(file)?;
    let trace = aub::parse(&bytes);
    // The other side: a second capture's trace, or another build to run.
    let (b_side, b_name) = match other {
        Other::Capture(p) => {
            let (b, name) = capture(Some(p))?;
            (Ok(aub::parse(&b)), name)
        }
        Other::Build(g) => (Err(g), format!("{source} on {}", g.display())),
    };
    // The other side's digest, with draw `detail` in full.
    let other_digest = |detail: Option<usize>| -> Result<Digest> {
        let g = match &b_side {
            Ok(t) => return Ok(digest(t, detail)),
            Err(g) => g,
        };
        let mut cmd = std::process::Command::new(g);
        cmd.arg("inspect");
        if let Some(f) = file {
            cmd.arg(f);
        }
        cmd.args(["--digest", "-"]);
        if let Some(n) = detail {
            cmd.arg("--digest-draw").arg(n.to_string());
        }
        let out = cmd
            .output()
            .with_context(|| format!("cannot run {}", g.display()))?;
        anyhow::ensure!(
            out.status.success(),
            "{} inspect --digest failed (a build older than `--digest` cannot be compared): {}",
            g.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
        Digest::from_text(&String::from_utf8_lossy(&out.stdout))
            .with_context(|| format!("the digest of {}", g.display()))
    };
    let a = digest(&trace, None);
    let b = other_digest(None)?;
    let divergence = gtsim_inspect::diff::compare(&a, &b);
    let details = match &divergence {
        gtsim_inspect::diff::Divergence::Draw { index, .. } => {
            let da = digest(&trace, Some(*index)).detail;
            let db = other_digest(Some(*index))?.detail;
            da.zip(db)
        }
        _ => None,
    };
    let text = gtsim_inspect::diff::report(
        (&source, &b_name),
        &a,
        &b,
        &divergence,
        details.as_ref().map(|(x, y)| (x, y)),
    );
    print!("{text}");
    Ok(match divergence {
        gtsim_inspect::diff::Divergence::Same { .. } => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}

/// `gtsim inspect FILE --pixel X,Y [--target N]`: the pixel's history
/// ([`gtsim_inspect::history`]).
pub fn pixel(
    file: Option<&Path>,
    at: &str,
    target: usize,
    lanes: gtsim_inspect::history::LaneTrace,
) -> Result<ExitCode> {
    let parsed = at
        .split_once(',')
        .and_then(|(x, y)| Some((x.trim().parse::<u32>().ok()?, y.trim().parse::<u32>().ok()?)));
    let Some((x, y)) = parsed else {
        anyhow::bail!("--pixel takes X,Y (two whole numbers), not {at:?}");
    };
    let (bytes, _) = capture(file)?;
    let trace = aub::parse(&bytes);
    let targets = gtsim_inspect::history::targets(&trace);
    let list = || {
        targets
            .iter()
            .enumerate()
            .map(|(i, t)| format!("  {i}: {}", t.describe()))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let Some(t) = targets.get(target) else {
        anyhow::bail!(
            "render target {target} is not written by the capture; it writes {}:\n{}",
            targets.len(),
            list()
        );
    };
    let (w, h) = t.surface.desc.level_extent(t.lod);
    anyhow::ensure!(
        x < w && y < h,
        "pixel ({x}, {y}) is outside render target {target} ({w}x{h})"
    );
    let h = gtsim_inspect::history::history(&trace, *t, (x, y), lanes);
    print!("{}", gtsim_inspect::history::report(&h));
    Ok(ExitCode::SUCCESS)
}

/// Three unsigned integers "X,Y,Z", for `what`.
fn triple(text: &str, what: &str) -> Result<[u32; 3]> {
    let v: Vec<u32> = text
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("{what} {text:?}: not three unsigned integers X,Y,Z"))?;
    <[u32; 3]>::try_from(v)
        .map_err(|v| anyhow::anyhow!("{what} {text:?}: {} numbers, not three (X,Y,Z)", v.len()))
}

/// `gtsim inspect FILE --invocation X,Y,Z [--walker N] [--local-size X,Y,Z]`: the
/// invocation's lane traced ([`gtsim_inspect::history::invocation_trace`]); exit 1 when
/// the walker does not run it.
pub fn invocation(
    file: Option<&Path>,
    id: &str,
    walker: usize,
    local_size: Option<&str>,
) -> Result<ExitCode> {
    let id = triple(id, "--invocation")?;
    let local_size = local_size.map(|s| triple(s, "--local-size")).transpose()?;
    if let Some(s) = local_size {
        anyhow::ensure!(
            !s.contains(&0),
            "--local-size {s:?}: a workgroup size is at least 1 in each dimension"
        );
    }
    let (bytes, _) = capture(file)?;
    let watch = gtsim_inspect::history::InvocationWatch {
        walker,
        id,
        local_size,
    };
    let v = gtsim_inspect::history::invocation_trace(&aub::parse(&bytes), watch);
    print!("{}", gtsim_inspect::history::report_invocation(&v));
    let traced = v
        .events
        .iter()
        .any(|e| matches!(e, gtsim_inspect::history::ProbeEvent::LaneTrace { .. }));
    Ok(if traced {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `gtsim inspect FILE --vertex N --draw M`: the vertex's lanes traced
/// ([`gtsim_inspect::history::vertex_trace`]); exit 1 when there is no such vertex.
pub fn vertex(file: Option<&Path>, draw: usize, vertex: usize) -> Result<ExitCode> {
    let (bytes, _) = capture(file)?;
    let v = gtsim_inspect::history::vertex_trace(&aub::parse(&bytes), draw, vertex);
    print!("{}", gtsim_inspect::history::report_vertex(&v));
    Ok(if v.events.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
