//! The execution harness shared by `gtsim exec` and the tests: assemble a kernel, set
//! registers from text, run it to EOT (or the end of the program) with a shared function
//! that records messages, and print registers as text.
//!
//! Register text: `g10:f=1.5,2,-0,inf,nan` sets channels 0.. of g10 (and following
//! registers, if more values than fit) as the given type; types are `ub b uw w ud d f df`
//! (`hf` too). Dumps print `g10:f = v0 v1 ... v7`: integers in decimal, floats as Rust's
//! shortest round-trip form (`1.5`, `-0`, `inf`, `NaN`).

use crate::exec::{ExecError, Message, MessageError, SharedFunctions, Thread};
use gtsim_isa::asm::{AsmError, Compaction, assemble};
use thiserror::Error;

/// A run's outcome.
#[derive(Debug, Clone)]
pub struct Run {
    /// The thread after it ended.
    pub thread: Thread,
    /// Messages the kernel sent, in order.
    pub messages: Vec<Message>,
    /// Instructions executed.
    pub executed: u64,
}

/// Why the harness could not run what it was given.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum HarnessError {
    /// A register assignment, register name or value that does not parse; the text
    /// names the offending input.
    #[error("{0}")]
    Input(String),
    /// The assembly text does not assemble.
    #[error(transparent)]
    Assemble(#[from] AsmError),
    /// The thread stopped with an error.
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// [`run_asm_every_path`]: a path's registers, messages or result differ from the
    /// per-instruction run's.
    #[error("the {path} path's {what} differ from the per-instruction run's")]
    PathsDiffer {
        /// The path: "micro-ops", "jit" or "optimized jit" (against "per-channel").
        path: &'static str,
        /// What differs: "registers", "messages" or "instruction count".
        what: &'static str,
    },
}

fn input(msg: String) -> HarnessError {
    HarnessError::Input(msg)
}

/// A shared function that records every message and answers with zeros.
#[derive(Debug, Default)]
pub struct Recorder {
    /// Messages received.
    pub messages: Vec<Message>,
}

impl SharedFunctions for Recorder {
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError> {
        self.messages.push(m.clone());
        Ok(vec![[0u8; 32]; m.response_length as usize])
    }
}

/// Element size and parser/printer of a register type name.
fn ty_size(t: &str) -> Option<usize> {
    Some(match t {
        "ub" | "b" => 1,
        "uw" | "w" | "hf" => 2,
        "ud" | "d" | "f" => 4,
        "df" => 8,
        _ => return None,
    })
}

fn encode_value(t: &str, v: &str) -> Result<Vec<u8>, HarnessError> {
    let bad = || input(format!("`{v}` is not a {t} value"));
    let f = || -> Result<f64, HarnessError> {
        match v.to_ascii_lowercase().as_str() {
            "nan" => Ok(f64::NAN),
            "inf" | "+inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            _ => v.parse::<f64>().map_err(|_| bad()),
        }
    };
    let int = || -> Result<i128, HarnessError> {
        if let Some(h) = v.strip_prefix("0x") {
            i128::from_str_radix(h, 16).map_err(|_| bad())
        } else {
            v.parse::<i128>().map_err(|_| bad())
        }
    };
    // Integers must fit the type (signed types also take their unsigned bit patterns, as
    // `0xff` for b); hex bit patterns must fit the element; finite floats must not round
    // to infinity. Nothing wraps.
    let fits = |lo: i128, hi: i128| -> Result<i128, HarnessError> {
        let x = int()?;
        if (lo..=hi).contains(&x) {
            Ok(x)
        } else {
            Err(input(format!("`{v}` does not fit {t} ({lo}..={hi})")))
        }
    };
    Ok(match t {
        "ub" => vec![fits(0, 0xff)? as u8],
        "b" => vec![fits(-0x80, 0xff)? as u8],
        "uw" => (fits(0, 0xffff)? as u16).to_le_bytes().to_vec(),
        "w" => (fits(-0x8000, 0xffff)? as u16).to_le_bytes().to_vec(),
        "ud" => (fits(0, 0xffff_ffff)? as u32).to_le_bytes().to_vec(),
        "d" => (fits(-0x8000_0000, 0xffff_ffff)? as u32)
            .to_le_bytes()
            .to_vec(),
        "f" => (if v.starts_with("0x") {
            fits(0, 0xffff_ffff)? as u32
        } else {
            let x = f()?;
            let y = x as f32;
            if x.is_finite() && y.is_infinite() {
                return Err(input(format!("`{v}` is too large for {t}")));
            }
            y.to_bits()
        })
        .to_le_bytes()
        .to_vec(),
        "hf" => {
            let x = f()?;
            let h = half::f16::from_f64(x);
            if x.is_finite() && h.is_infinite() {
                return Err(input(format!("`{v}` is too large for {t}")));
            }
            h.to_bits().to_le_bytes().to_vec()
        }
        "df" => f()?.to_bits().to_le_bytes().to_vec(),
        _ => return Err(input(format!("unknown type `{t}`"))),
    })
}

fn parse_reg(spec: &str) -> Result<(usize, &str), HarnessError> {
    let (r, t) = spec
        .split_once(':')
        .ok_or_else(|| input(format!("`{spec}`: want REG:TYPE, e.g. g10:f")))?;
    let n: usize = r
        .strip_prefix('g')
        .and_then(|n| n.parse().ok())
        .filter(|n| *n < 128)
        .ok_or_else(|| input(format!("`{r}` is not a GRF register g0..g127")))?;
    ty_size(t).ok_or_else(|| input(format!("unknown type `{t}` (ub b uw w ud d f df hf)")))?;
    Ok((n, t))
}

/// Applies `REG:TYPE=v0,v1,...` to a thread.
pub fn set(thread: &mut Thread, assignment: &str) -> Result<(), HarnessError> {
    let (spec, values) = assignment
        .split_once('=')
        .ok_or_else(|| input(format!("`{assignment}`: want REG:TYPE=v0,v1,...")))?;
    let (reg, t) = parse_reg(spec)?;
    let mut bytes = vec![];
    for (i, v) in values
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .enumerate()
    {
        bytes.extend(
            encode_value(t, v).map_err(|e| input(format!("`{assignment}`: value {i}: {e}")))?,
        );
    }
    if reg * 32 + bytes.len() > 128 * 32 {
        return Err(input(format!("`{assignment}` runs past g127")));
    }
    thread.grf_bytes_mut()[reg * 32..reg * 32 + bytes.len()].copy_from_slice(&bytes);
    Ok(())
}

/// The shortest text that reads back to the same value at `bits` precision; very large or
/// small magnitudes in exponent form (`3.4028235e38`).
fn float_text(v: f64, bits: u32) -> String {
    let a = v.abs();
    let plain = v == 0.0 || !v.is_finite() || (1e-5..1e9).contains(&a);
    match (bits, plain) {
        (64, true) => v.to_string(),
        (64, false) => format!("{v:e}"),
        (_, true) => (v as f32).to_string(),
        (_, false) => format!("{:e}", v as f32),
    }
}

/// Prints `REG:TYPE` as `REG:TYPE = v0 v1 ...` with `channels` values.
pub fn dump(thread: &Thread, spec: &str, channels: usize) -> Result<String, HarnessError> {
    let (reg, t) = parse_reg(spec)?;
    let size = ty_size(t).unwrap_or(4);
    let g = thread.grf_bytes();
    let mut vals = vec![];
    for i in 0..channels {
        let at = reg * 32 + i * size;
        let Some(b) = g.get(at..at + size) else { break };
        vals.push(match t {
            "ub" => b[0].to_string(),
            "b" => (b[0] as i8).to_string(),
            "uw" => u16::from_le_bytes([b[0], b[1]]).to_string(),
            "w" => i16::from_le_bytes([b[0], b[1]]).to_string(),
            "ud" => u32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_string(),
            "d" => i32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_string(),
            "f" => float_text(f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64, 32),
            "hf" => float_text(half::f16::from_le_bytes([b[0], b[1]]).to_f32() as f64, 16),
            _ => float_text(f64::from_le_bytes(b.try_into().unwrap_or([0; 8])), 64),
        });
    }
    Ok(format!("{spec} = {}", vals.join(" ")))
}

/// Assembles `asm`, sets registers, runs with SIMD width `simd` (all channels enabled) and
/// returns the outcome.
pub fn run_asm(asm: &str, simd: u8, sets: &[&str]) -> Result<Run, HarnessError> {
    let code = assemble(asm, Compaction::Never)?;
    run_bin(&code, simd, sets)
}

/// Runs `asm` as [`run_asm`] does, on each of the model's paths in turn: every
/// instruction on the per-channel interpreter (the reference), then micro-ops, then the
/// JIT and its optimized tier forced on (a one-shot kernel never runs long enough for the
/// JIT to take it up by itself). The reference run, when every path ends with the same
/// registers, messages and instruction count; else [`HarnessError::PathsDiffer`] naming
/// the first path that differs and what.
pub fn run_asm_every_path(asm: &str, simd: u8, sets: &[&str]) -> Result<Run, HarnessError> {
    let code = assemble(asm, Compaction::Never)?;
    let mut reference: Option<Run> = None;
    for path in ["per-channel", "micro-ops", "jit", "optimized jit"] {
        let mut prog = crate::exec::Program::new(gtsim_isa::Encoding::IvyBridge, &code);
        prog.set_micro_ops(path != "per-channel");
        prog.set_jit(path == "jit" || path == "optimized jit");
        if path == "optimized jit" {
            prog.optimize();
        }
        let mut thread = Thread::new(simd);
        for s in sets {
            set(&mut thread, s)?;
        }
        let mut rec = Recorder::default();
        let executed = thread.run_program(&prog, &mut rec, crate::exec::DEFAULT_BUDGET)?;
        let run = Run {
            thread,
            messages: rec.messages,
            executed,
        };
        let Some(r) = &reference else {
            reference = Some(run);
            continue;
        };
        let differs = |what| Err(HarnessError::PathsDiffer { path, what });
        if run.thread.snapshot() != r.thread.snapshot() {
            return differs("registers");
        }
        if format!("{:?}", run.messages) != format!("{:?}", r.messages) {
            return differs("messages");
        }
        if run.executed != r.executed {
            return differs("instruction count");
        }
    }
    reference.ok_or(HarnessError::Input("no path ran".into()))
}

/// Runs raw kernel bytes.
pub fn run_bin(code: &[u8], simd: u8, sets: &[&str]) -> Result<Run, HarnessError> {
    run_bin_with_budget(code, simd, sets, crate::exec::DEFAULT_BUDGET)
}

/// Runs raw kernel bytes, failing after `budget` instructions without EOT.
pub fn run_bin_with_budget(
    code: &[u8],
    simd: u8,
    sets: &[&str],
    budget: u64,
) -> Result<Run, HarnessError> {
    let mut thread = Thread::new(simd);
    for s in sets {
        set(&mut thread, s)?;
    }
    run_thread(thread, code, budget)
}

/// Runs a prepared thread (registers set, mode chosen) on `code` with the recording null
/// shared function.
pub fn run_thread(thread: Thread, code: &[u8], budget: u64) -> Result<Run, HarnessError> {
    run_thread_for(gtsim_isa::Encoding::default(), thread, code, budget)
}

/// [`run_thread`] with the machine code of encoding `enc`.
pub fn run_thread_for(
    enc: gtsim_isa::Encoding,
    mut thread: Thread,
    code: &[u8],
    budget: u64,
) -> Result<Run, HarnessError> {
    let mut rec = Recorder::default();
    let executed = thread.run_program(&crate::exec::Program::new(enc, code), &mut rec, budget)?;
    Ok(Run {
        thread,
        messages: rec.messages,
        executed,
    })
}
