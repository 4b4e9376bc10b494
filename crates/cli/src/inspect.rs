//! `gtsim inspect`: a captured trace replayed into a report ([`gtsim_inspect`]), then
//! optionally served.

use anyhow::{Context, Result};
use gtsim_gpu::aub;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

pub fn inspect(file: Option<&Path>, out: &Path, serve: Option<&str>) -> Result<ExitCode> {
    let (bytes, source) = match file {
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
    };
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
        gtsim_inspect::serve::serve(out, listener)?;
    }
    Ok(if summary.hangs == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
