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
