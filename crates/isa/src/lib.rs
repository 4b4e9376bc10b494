//! # gtsim-isa: the EU instruction set
//!
//! EU machine code arrives as 128-bit native instructions, or 64-bit compacted ones whose
//! fields index small per-generation tables. This crate decodes both into one
//! generation-neutral [`ir::Instruction`], encodes it back, prints it in the syntax Mesa's
//! `INTEL_DEBUG` shader dumps use, and assembles that syntax.
//!
//! Bit positions and the compaction tables are spec data (`gtsim-spec`,
//! `defs/gen7/eu.spec`), like every other encoding in gtsim.

pub mod asm;
pub mod disasm;
pub mod gen7;
pub mod ir;
pub mod opcode;

pub use gen7::DecodeError;

/// An EU instruction encoding: how one generation lays instructions out in bits. Code
/// above this crate (the EU, the pipeline) decodes through it and never names a
/// generation's module; a new generation adds a variant and its module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Ivy Bridge (Gen7): native and compacted instructions (`defs/gen7/eu.spec`).
    #[default]
    IvyBridge,
}

impl Encoding {
    /// Decodes the instruction at the start of `bytes`: the instruction and its length
    /// in bytes (8 for a compacted one, 16 for a native one).
    pub fn decode(self, bytes: &[u8]) -> Result<(ir::Instruction, usize), DecodeError> {
        match self {
            Encoding::IvyBridge => gen7::decode::decode(bytes),
        }
    }
}
