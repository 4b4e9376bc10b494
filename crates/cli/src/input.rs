//! Reading the input files of the subcommands, and the exit-status convention every
//! subcommand follows: 0 = done, 1 = problems in the input (it was read, but holds
//! something wrong: undecodable bytes, assembly errors, a runaway kernel, differences
//! found), 2 = the input could not be read, or bad usage (unknown options, bad option
//! values, a file larger than [`MAX_INPUT`]).

use anyhow::{Context, Result, bail};
use std::io::Read;
use std::path::Path;

/// The largest input file read (512 MiB): larger inputs are refused instead of read to
/// the end, so `gtsim decode /dev/zero` stops.
pub const MAX_INPUT: u64 = 512 << 20;

/// A problem in the input (exit status 1), as opposed to failing to read it (2).
#[derive(Debug)]
pub struct InputProblem(pub String);

impl std::fmt::Display for InputProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputProblem {}

/// Reads at most [`MAX_INPUT`] bytes of `path`; a longer file is an error.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    let f = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut bytes = vec![];
    f.take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.len() as u64 > MAX_INPUT {
        bail!(
            "{} is larger than {} MiB, the most gtsim reads",
            path.display(),
            MAX_INPUT >> 20
        );
    }
    Ok(bytes)
}

/// Reads a text file (at most [`MAX_INPUT`] bytes); text that is not UTF-8 is a problem
/// in the input, reported with the byte offset where it stops being UTF-8.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = read(path)?;
    String::from_utf8(bytes).map_err(|e| {
        InputProblem(format!(
            "{}: byte {}: not UTF-8 text",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
        .into()
    })
}

/// The exit status for an error: 1 for an [`InputProblem`], 2 otherwise.
pub fn status(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<InputProblem>().is_some() {
        1
    } else {
        2
    }
}
