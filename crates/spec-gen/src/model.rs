//! The in-memory model of a parsed spec: definitions, fields, types.

use std::collections::BTreeMap;

/// Where a definition or field was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc {
    /// The spec file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A named enumeration (`enum NAME`), or an inline one attached to a field.
#[derive(Debug, Clone)]
pub struct EnumDef {
    /// The manual's name.
    pub name: String,
    /// `(value, name)` pairs in the order written.
    pub values: Vec<(u64, String)>,
    /// Provenance.
    pub source: String,
    /// Decisions recorded with `note`.
    pub notes: Vec<String>,
    /// Where it was written.
    pub loc: Loc,
    /// `Some(namespace)` when the enumeration is defined once for every generation in
    /// `defs/<namespace>` (`shared`) and this generation only refers to it.
    pub external: Option<String>,
}

/// Which kind of thing a definition describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefKind {
    /// An in-memory structure.
    Struct,
    /// A batch-buffer command.
    Command {
        /// The length may exceed `dwords` (the `N+` form).
        variable: bool,
        /// DWord Length bias.
        bias: u32,
    },
    /// An MMIO register at a byte offset.
    Register {
        /// MMIO offset in bytes.
        offset: u32,
    },
}

/// A `struct`, `command` or `register` definition.
#[derive(Debug, Clone)]
pub struct Def {
    /// The manual's name.
    pub name: String,
    /// What kind of definition.
    pub kind: DefKind,
    /// Fixed (or minimum) size in dwords.
    pub dwords: u32,
    /// Provenance.
    pub source: String,
    /// Decisions recorded with `note`.
    pub notes: Vec<String>,
    /// Fields in the order written.
    pub fields: Vec<Field>,
    /// Where it was written.
    pub loc: Loc,
    /// A variable-length command's DWord Length when the writer gives none: its `length
    /// = N` (the manual's Default Value), which the command does not require (PIPE_CONTROL:
    /// 3, and 2 from Intel's VA driver).
    pub default_length: Option<u64>,
}

/// A state base a pointer is relative to (STATE_BASE_ADDRESS and friends).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Base {
    /// General State Base Address.
    General,
    /// Surface State Base Address.
    Surface,
    /// Dynamic State Base Address.
    Dynamic,
    /// Indirect Object Base Address.
    Indirect,
    /// Instruction Base Address.
    Instruction,
    /// Binding table pool (relative to the surface state base on Gen7).
    BindingTable,
    /// Not relative to any base.
    None,
}

impl Base {
    /// Parses the spelling used in spec files.
    pub fn parse(s: &str) -> Option<Base> {
        Some(match s {
            "general" => Base::General,
            "surface" => Base::Surface,
            "dynamic" => Base::Dynamic,
            "indirect" => Base::Indirect,
            "instruction" => Base::Instruction,
            "bindingtable" => Base::BindingTable,
            "none" => Base::None,
            _ => return None,
        })
    }

    /// The Rust variant name used by generated code.
    pub fn variant(self) -> &'static str {
        match self {
            Base::General => "General",
            Base::Surface => "Surface",
            Base::Dynamic => "Dynamic",
            Base::Indirect => "Indirect",
            Base::Instruction => "Instruction",
            Base::BindingTable => "BindingTable",
            Base::None => "None",
        }
    }
}

/// A field's type.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldType {
    /// Unsigned integer.
    U,
    /// Two's complement integer.
    S,
    /// One-bit flag.
    Bool,
    /// Reserved, must be zero.
    Mbz,
    /// The DWord Length of a command.
    Length,
    /// A named enum.
    Enum(String),
    /// An inline enum.
    InlineEnum(Vec<(u64, String)>),
    /// A graphics address, bits in place.
    Address,
    /// An offset from a state base, bits in place.
    Offset(Base),
    /// Unsigned fixed point with (integer, fraction) bits.
    UFixed(u32, u32),
    /// Signed fixed point with (integer, fraction) bits.
    SFixed(u32, u32),
    /// IEEE-754 binary32.
    Float,
    /// A nested struct filling the field's bits.
    Struct(String),
    /// An array of structs: `count` None means "to the end of the command".
    Array {
        /// Element struct.
        elem: String,
        /// Number of elements, or None for variable.
        count: Option<u32>,
    },
}

/// How many of the target to follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Count {
    /// Exactly one.
    One,
    /// A fixed count.
    Fixed(u32),
    /// Read from a sibling field.
    Field(String),
    /// Unknown: read until an empty entry or a limit.
    Unknown,
}

/// What a pointer field points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// EU machine code.
    Kernel,
    /// Indirect state of a struct type.
    Struct {
        /// Struct name.
        name: String,
        /// How many.
        count: Count,
    },
}

/// One field of a definition.
#[derive(Debug, Clone)]
pub struct Field {
    /// The manual's name.
    pub name: String,
    /// Absolute first bit (dw*32 + lo).
    pub start: u32,
    /// Absolute last bit (inclusive). For variable arrays: start of the array minus one
    /// plus one element.
    pub end: u32,
    /// Type.
    pub ty: FieldType,
    /// Fixed value (`= v`).
    pub fixed: Option<u64>,
    /// Pointer target (`-> T`).
    pub target: Option<Target>,
    /// May overlap other fields.
    pub overlay: bool,
    /// Where it was written.
    pub loc: Loc,
}

impl Field {
    /// Width in bits.
    pub fn width(&self) -> u32 {
        self.end - self.start + 1
    }
}

/// A whole parsed generation.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    /// Named enums by name.
    pub enums: BTreeMap<String, EnumDef>,
    /// Definitions by name.
    pub defs: BTreeMap<String, Def>,
}
