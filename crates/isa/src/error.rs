//! Decoding and encoding errors, shared by every generation's encoding.

/// Why bytes are not a valid instruction of the generation decoding them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Fewer bytes than the instruction needs.
    #[error("truncated instruction: {need} bytes needed, {have} left")]
    Truncated {
        /// Bytes needed.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// An opcode number the generation does not define.
    #[error("opcode {0:#x} is not an instruction of this generation")]
    UnknownOpcode(u32),
    /// A compaction-table index or field value with no meaning.
    #[error("{0}")]
    Invalid(String),
}

/// Why an IR instruction cannot be encoded for a generation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// Something the generation cannot express.
    #[error("cannot encode: {0}")]
    Unencodable(String),
}
