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
mod compact;
pub mod disasm;
mod error;
pub mod gen11;
pub mod gen7;
pub mod ir;
mod layout;
pub mod opcode;

pub use error::{DecodeError, EncodeError};

/// An EU instruction encoding: how one generation lays instructions out in bits. Code
/// above this crate (the EU, the pipeline) decodes through it and never names a
/// generation's module; a new generation adds a variant and its module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Ivy Bridge (Gen7): native and compacted instructions (`defs/gen7/eu.spec`).
    #[default]
    IvyBridge,
    /// Ice Lake (Gen11): align1 native forms, three-source align1, split sends and
    /// compacted instructions (`defs/gen11/eu.spec`).
    IceLake,
}

impl Encoding {
    /// The bytes one unit of `jmpi`'s jump distance stands for: 64-bit chunks on Gen5-7
    /// (Mesa brw_land_fwd_jump: 2 per native instruction from ver 5; brw_jump_scale:
    /// "Ironlake and later measure jump targets in 64-bit data chunks"), bytes from Gen8
    /// ("Broadwell measures jump targets in bytes").
    pub fn jmpi_unit(self) -> i64 {
        match self {
            Encoding::IvyBridge => 8,
            Encoding::IceLake => 1,
        }
    }

    /// Whether a source's negate modifier on `ins` is a bitwise NOT rather than an
    /// arithmetic negation: on the logic instructions (and, or, xor, not) from Gen8 on
    /// (Mesa brw_disasm.c src_da1 prints it `~`; brw_eu_validate.c: "the negate modifier
    /// on logic instructions is bitwise"); Gen7 negates arithmetically.
    pub fn negate_is_not(self, ins: &ir::Instruction) -> bool {
        self == Encoding::IceLake
            && matches!(
                ins.opcode,
                opcode::Opcode::And
                    | opcode::Opcode::Or
                    | opcode::Opcode::Xor
                    | opcode::Opcode::Not
            )
    }

    /// Decodes the instruction at the start of `bytes`: the instruction and its length
    /// in bytes (8 for a compacted one, 16 for a native one).
    pub fn decode(self, bytes: &[u8]) -> Result<(ir::Instruction, usize), DecodeError> {
        match self {
            Encoding::IvyBridge => gen7::decode::decode(bytes),
            Encoding::IceLake => gen11::decode::decode(bytes),
        }
    }

    /// Encodes an instruction in native form (128 bits).
    pub fn encode_native(self, ins: &ir::Instruction) -> Result<[u32; 4], EncodeError> {
        match self {
            Encoding::IvyBridge => gen7::encode::encode_native(ins),
            Encoding::IceLake => gen11::encode::encode_native(ins),
        }
    }

    /// Encodes an instruction: compacted when it asks for it and the tables allow it.
    pub fn encode(self, ins: &ir::Instruction) -> Result<Vec<u8>, EncodeError> {
        match self {
            Encoding::IvyBridge => gen7::encode::encode(ins),
            Encoding::IceLake => gen11::encode::encode(ins),
        }
    }

    /// The compacted form of a native instruction, if the tables express it.
    pub fn compact(self, native: &[u32; 4]) -> Option<[u32; 2]> {
        match self {
            Encoding::IvyBridge => gen7::compact::compact(native),
            Encoding::IceLake => gen11::compact::compact(native),
        }
    }

    /// Mesa's name of the generation's number (`--gen`).
    pub fn from_generation(generation: u32) -> Option<Encoding> {
        match generation {
            7 => Some(Encoding::IvyBridge),
            11 => Some(Encoding::IceLake),
            _ => None,
        }
    }
}
