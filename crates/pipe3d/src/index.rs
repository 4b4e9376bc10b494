//! Index buffer access (seed 004 §2.2, 3DSTATE_INDEX_BUFFER L1940-2040): indices read
//! from linear memory in the Index Format, reads past the Buffer Ending Address return 0,
//! and with Cut Index Enable an index equal to the cut index cuts the topology, for the
//! topologies the seed's table allows: on Gen7 the largest value of the format
//! ([`all_ones`]), on Gen8+ 3DSTATE_VF's Cut Index.

use gtsim_mem::{Fault, Memory};
use gtsim_spec::shared::ThreeDPrimTopoType as T;
use thiserror::Error;

/// Why indices could not be fetched.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IndexError {
    /// Index Format 3 is reserved.
    #[error("3DSTATE_INDEX_BUFFER Index Format {0} is reserved (seed 004 §2.2.1)")]
    Format(u32),
    /// The start address is not aligned to the index size.
    #[error(
        "3DSTATE_INDEX_BUFFER Buffer Starting Address {0:#x} is not index-size aligned (seed 004 §2.2.1)"
    )]
    Misaligned(u64),
    /// Cut Index Enable with a topology that does not support cuts (UNDEFINED in the seed).
    #[error(
        "Cut Index Enable with topology {0:#x}, which has no cut index (seed 004 §2.2.1 table)"
    )]
    CutTopology(u32),
    /// The index buffer is not mapped.
    #[error(transparent)]
    Fault(#[from] Fault),
}

/// The 3DSTATE_INDEX_BUFFER state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexBuffer {
    /// Buffer Starting Address.
    pub start: u64,
    /// Buffer Ending Address (last valid byte); 0 = no limit.
    pub end: u64,
    /// Index Format: 0 byte, 1 word, 2 dword.
    pub format: u32,
    /// With Cut Index Enable, the index value that cuts the topology, compared with
    /// each fetched index zero-extended to 32 bits (Gen7: [`all_ones`] of the format,
    /// seed 004 §2.2.1; Gen11: 3DSTATE_VF Cut Index, seed 003 3DSTATE_VF_BODY); `None`
    /// without Cut Index Enable.
    ///
    /// Seed 003 says the Cut Index "is compared to the fetched (and possibly-sign-
    /// extended) vertex index", and that for indices under 32 bits a large Cut Index
    /// "will never match": the model compares the index as fetched, zero-extended,
    /// which is what makes the format's all-ones cut (Mesa's anv programs 0xff, 0xffff
    /// or 0xffffffff by index type, `restart_index_for_type`).
    pub cut_index: Option<u32>,
    /// Whether a cut index may end any topology: Gen8+ (3DSTATE_VF Indexed Draw Cut
    /// Index Enable has no topology table in seed 003, and Mesa's drivers rely on it
    /// from Haswell on: crocus `can_cut_index_handle_prim` returns true for Gen 7.5+).
    /// Ivy Bridge refuses the topologies of seed 004 §2.2.1's table ([`supports_cut`]).
    pub cut_any_topology: bool,
}

/// The largest value of Index Format `format` (0 byte, 1 word, 2 dword): Gen7's cut
/// index (seed 004 §2.2.1 Cut Index Enable).
pub fn all_ones(format: u32) -> u32 {
    match format {
        0 => 0xff,
        1 => 0xffff,
        _ => u32::MAX,
    }
}

/// Whether a topology accepts cut indices (seed 004 §2.2.1 table, L2014-2035).
pub fn supports_cut(t: T) -> bool {
    !matches!(
        t,
        T::_3DPRIM_TRIFAN
            | T::_3DPRIM_QUADLIST
            | T::_3DPRIM_QUADSTRIP
            | T::_3DPRIM_POLYGON
            | T::_3DPRIM_RECTLIST
            | T::_3DPRIM_LINELOOP
            | T::_3DPRIM_TRIFAN_NOSTIPPLE
    )
}

/// Reads `count` indices starting at index `first`; `None` marks a cut.
pub fn fetch(
    mem: &dyn Memory,
    ib: &IndexBuffer,
    topology: T,
    first: u64,
    count: u64,
) -> Result<Vec<Option<u32>>, IndexError> {
    let size: u64 = match ib.format {
        0 => 1,
        1 => 2,
        2 => 4,
        f => return Err(IndexError::Format(f)),
    };
    if !ib.start.is_multiple_of(size) {
        return Err(IndexError::Misaligned(ib.start));
    }
    if ib.cut_index.is_some() && !ib.cut_any_topology && !supports_cut(topology) {
        return Err(IndexError::CutTopology(topology.0));
    }
    let mut out = Vec::with_capacity(count.min(1 << 20) as usize);
    for i in first..first.saturating_add(count) {
        let at = ib.start.wrapping_add(i.wrapping_mul(size));
        // Past the end address the buffer reads as zero-extended.
        let v = if ib.end != 0 && at.saturating_add(size - 1) > ib.end {
            0
        } else {
            let mut b = [0u8; 4];
            mem.read(at, &mut b[..size as usize])?;
            u32::from_le_bytes(b)
        };
        out.push(if ib.cut_index == Some(v) {
            None
        } else {
            Some(v)
        });
    }
    Ok(out)
}

/// Splits an index stream at its cuts: each run restarts the topology.
pub fn split_at_cuts(indices: &[Option<u32>]) -> Vec<Vec<u32>> {
    indices
        .split(|i| i.is_none())
        .filter(|run| !run.is_empty())
        .map(|run| run.iter().flatten().copied().collect())
        .collect()
}
