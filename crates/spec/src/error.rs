//! Errors of the generated codecs. Unpacking errors are guest mistakes (a batch that does
//! not say what the spec allows); packing errors are caller mistakes (a value that does
//! not fit its field).

use thiserror::Error;

/// A dword sequence is not a valid encoding of a definition.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UnpackError {
    /// Fewer dwords than the definition needs.
    #[error("{def}: needs {need} dwords, only {have} present")]
    Short {
        /// Definition.
        def: &'static str,
        /// Dwords needed.
        need: usize,
        /// Dwords given.
        have: usize,
    },
    /// A fixed field (opcode, fixed length) holds another value.
    #[error("{def}: field `{field}` must be {expected:#x}, found {found:#x}")]
    Mismatch {
        /// Definition.
        def: &'static str,
        /// Field.
        field: &'static str,
        /// Required value.
        expected: u64,
        /// Value present.
        found: u64,
    },
    /// The DWord Length field disagrees with the dwords given.
    #[error("{def}: DWord Length gives {length} dwords, but {have} were given")]
    Length {
        /// Definition.
        def: &'static str,
        /// Length implied by the DWord Length field.
        length: usize,
        /// Dwords given.
        have: usize,
    },
    /// An open array does not hold a whole number of elements.
    #[error(
        "{def}: `{field}` has {have} dwords, not a multiple of its {elem_dwords}-dword elements"
    )]
    Ragged {
        /// Definition.
        def: &'static str,
        /// Array field.
        field: &'static str,
        /// Element size.
        elem_dwords: usize,
        /// Dwords in the array.
        have: usize,
    },
}

/// A typed value cannot be encoded.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PackError {
    /// The value needs more bits than the field has.
    #[error("{def}: {value} does not fit the {bits}-bit field `{field}`")]
    TooWide {
        /// Definition.
        def: &'static str,
        /// Field.
        field: &'static str,
        /// Value given.
        value: i128,
        /// Field width.
        bits: u32,
    },
    /// An address or offset has low bits set that the field cannot hold.
    #[error("{def}: `{field}` = {value:#x} is not {align}-byte aligned")]
    Misaligned {
        /// Definition.
        def: &'static str,
        /// Field.
        field: &'static str,
        /// Value given.
        value: u64,
        /// Required alignment.
        align: u64,
    },
    /// A variable-length command has nonzero fields beyond the length it was given.
    #[error("{def}: fields beyond its length of {length} dwords are set")]
    BeyondLength {
        /// Definition.
        def: &'static str,
        /// The length the value asked for.
        length: usize,
    },
    /// A fixed-point value is not exactly representable.
    #[error("{def}: {value} is not representable in fixed-point field `{field}`")]
    NotRepresentable {
        /// Definition.
        def: &'static str,
        /// Field.
        field: &'static str,
        /// Value given.
        value: f64,
    },
}

/// Either direction failed (used by the round-trip registry).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CodecError {
    /// Decoding failed.
    #[error(transparent)]
    Unpack(#[from] UnpackError),
    /// Encoding failed.
    #[error(transparent)]
    Pack(#[from] PackError),
}

/// Something the hardware does that the model does not do yet: the one way every layer
/// reports it, with where the behaviour is specified (a seed section, or the public
/// manual for what the seeds lack).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{what} is not modelled yet ({reference})")]
pub struct Unsupported {
    /// What is not modelled.
    pub what: std::borrow::Cow<'static, str>,
    /// Where it is specified, e.g. "seed 004 §11.4".
    pub reference: &'static str,
}

impl Unsupported {
    /// `what` is not modelled yet; it is specified at `reference`.
    pub fn new(what: impl Into<std::borrow::Cow<'static, str>>, reference: &'static str) -> Self {
        Unsupported {
            what: what.into(),
            reference,
        }
    }
}
