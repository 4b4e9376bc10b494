//! `gtsim exec`: run one EU kernel from given registers (issue 5's harness, shared with
//! gtsim-eu's tests).

use crate::input::InputProblem;
use anyhow::{Result, anyhow, bail};
use gtsim_eu::exec::{FpMode, Thread};
use gtsim_eu::harness;
use std::path::Path;

/// What `gtsim exec` was asked to do.
pub struct ExecArgs<'a> {
    /// Kernel file: assembly text, or raw bytes with `bin`.
    pub file: &'a Path,
    /// The file holds machine code.
    pub bin: bool,
    /// Dispatch width.
    pub simd: u8,
    /// The machine code's encoding (`--gen`).
    pub encoding: gtsim_isa::Encoding,
    /// `REG:TYPE=v0,v1,...` assignments.
    pub sets: &'a [String],
    /// `REG:TYPE` registers to print afterwards.
    pub dumps: &'a [String],
    /// ALT floating-point mode instead of IEEE.
    pub alt: bool,
    /// Instruction budget.
    pub budget: u64,
}

/// Runs the kernel and returns the report text (dumps, then the messages sent).
pub fn exec(a: &ExecArgs) -> Result<String> {
    let code = if a.bin {
        crate::input::read(a.file)?
    } else {
        let text = crate::input::read_text(a.file)?;
        gtsim_isa::asm::assemble_for(a.encoding, &text, gtsim_isa::asm::Compaction::Never)
            .map_err(|e| InputProblem(format!("{}: {e}", a.file.display())))?
    };
    if ![1, 8, 16, 32].contains(&a.simd) {
        bail!(
            "--simd {}: threads are dispatched SIMD8, SIMD16 or SIMD32 (pixel shaders), or SIMD1 for tests",
            a.simd
        );
    }
    let mut thread = Thread::new(a.simd);
    thread.fp_mode = if a.alt { FpMode::Alt } else { FpMode::Ieee };
    for s in a.sets {
        harness::set(&mut thread, s).map_err(|e| anyhow!("--set {e}"))?;
    }
    let run = harness::run_thread_for(a.encoding, thread, &code, a.budget)
        .map_err(|e| InputProblem(format!("{}: thread hang: {e}", a.file.display())))?;
    let mut out = String::new();
    for d in a.dumps {
        out.push_str(
            &harness::dump(&run.thread, d, a.simd as usize).map_err(|e| anyhow!("--dump {e}"))?,
        );
        out.push('\n');
    }
    for (i, m) in run.messages.iter().enumerate() {
        out.push_str(&format!(
            "message {i}: sfid {} desc {:#010x} mlen {} rlen {} dst g{} channels {:#x}{}\n",
            gtsim_isa::gen7::codes::sfid_code(m.sfid),
            m.desc,
            m.payload.len(),
            m.response_length,
            m.dst,
            m.channel_mask,
            if m.eot { " EOT" } else { "" }
        ));
    }
    out.push_str(&format!("{} instructions executed\n", run.executed));
    Ok(out)
}
