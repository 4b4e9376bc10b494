//! The runtime field tables: what the decoder and pretty-printer walk. Generated code
//! fills these statics from the spec files; nothing here knows a bit position.

/// A named enumeration's values.
#[derive(Debug)]
pub struct EnumInfo {
    /// The manual's name (or the field's, for an inline enum).
    pub name: &'static str,
    /// `(value, name)` pairs.
    pub values: &'static [(u64, &'static str)],
}

impl EnumInfo {
    /// The name of `value`, if the manual gives one.
    pub fn name_of(&self, value: u64) -> Option<&'static str> {
        self.values
            .iter()
            .find(|(v, _)| *v == value)
            .map(|(_, n)| *n)
    }
}

/// A state base a pointer is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    /// The binding table pool (the surface state base on Gen7).
    BindingTable,
    /// Not relative to a base.
    None,
}

/// How many entries a pointer field points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// One.
    One,
    /// A fixed number.
    Fixed(u32),
    /// The value of a sibling field.
    Field(&'static str),
    /// Unknown: read until an empty entry, up to a limit.
    Unknown,
}

/// What a pointer field points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// EU machine code.
    Kernel,
    /// Indirect state.
    Struct {
        /// Definition name.
        name: &'static str,
        /// How many.
        count: Count,
    },
}

/// A field's type.
#[derive(Debug, Clone, Copy)]
pub enum Ty {
    /// Unsigned integer.
    U,
    /// Signed integer.
    S,
    /// Flag.
    Bool,
    /// Reserved, must be zero.
    Mbz,
    /// DWord Length.
    Length,
    /// Enumerated.
    Enum(&'static EnumInfo),
    /// Graphics address, bits in place.
    Address,
    /// Offset from a base, bits in place.
    Offset(Base),
    /// Unsigned fixed point (integer bits, fraction bits).
    UFixed(u8, u8),
    /// Signed fixed point (integer bits, fraction bits).
    SFixed(u8, u8),
    /// IEEE-754 binary32.
    Float,
    /// A nested definition.
    Struct(&'static str),
    /// An array of definitions; `None` = to the end of the command.
    Array {
        /// Element definition.
        elem: &'static str,
        /// Count, if fixed.
        count: Option<u32>,
    },
}

/// One field.
#[derive(Debug)]
pub struct Field {
    /// The manual's name.
    pub name: &'static str,
    /// First bit (absolute over the definition).
    pub start: u32,
    /// Last bit, inclusive. For an open array: the end of its first element.
    pub end: u32,
    /// Type.
    pub ty: Ty,
    /// Fixed value (opcodes, fixed lengths).
    pub fixed: Option<u64>,
    /// Indirect state this field points at.
    pub target: Option<Target>,
    /// An alternative interpretation of bits another field also covers.
    pub overlay: bool,
}

impl Field {
    /// Width in bits.
    pub fn width(&self) -> u32 {
        self.end - self.start + 1
    }

    /// The raw bits of this field in `dw` (at most 64 bits; wider fields are nested).
    pub fn raw(&self, dw: &[u32]) -> u64 {
        crate::bits::get(dw, self.start, self.end.min(self.start + 63))
    }

    /// The field's value as a byte address/offset (raw bits shifted into place).
    pub fn address(&self, dw: &[u32]) -> u64 {
        self.raw(dw) << (self.start % 32)
    }
}

/// What a definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefKind {
    /// In-memory state.
    Struct,
    /// A batch command.
    Command {
        /// Length varies (from the DWord Length field).
        variable: bool,
        /// DWord Length bias.
        bias: u32,
    },
    /// MMIO register.
    Register {
        /// Byte offset.
        offset: u32,
    },
}

/// One definition (command, structure or register).
#[derive(Debug)]
pub struct Def {
    /// The manual's name.
    pub name: &'static str,
    /// Its index in its generation's `DEFS` (sorted by name); the generated struct's
    /// `ID`, so decoded commands are matched by value, not by name.
    pub id: usize,
    /// What it is.
    pub kind: DefKind,
    /// Fixed (minimum) size in dwords.
    pub dwords: u32,
    /// Provenance.
    pub source: &'static str,
    /// Recorded decisions.
    pub notes: &'static [&'static str],
    /// Dword-0 bits that identify a command.
    pub opcode_mask: u32,
    /// Their value.
    pub opcode_value: u32,
    /// Fields in spec order.
    pub fields: &'static [Field],
}

impl Def {
    /// Whether `dw0` is this command's header.
    pub fn matches(&self, dw0: u32) -> bool {
        matches!(self.kind, DefKind::Command { .. })
            && self.opcode_mask != 0
            && dw0 & self.opcode_mask == self.opcode_value
    }

    /// The command's length in dwords as dword 0 declares it (None if not a command).
    pub fn length(&self, dw0: u32) -> Option<usize> {
        let DefKind::Command { bias, .. } = self.kind else {
            return None;
        };
        match self.fields.iter().find(|f| matches!(f.ty, Ty::Length)) {
            Some(f) if f.end < 32 => Some(f.raw(&[dw0]) as usize + bias as usize),
            _ => Some(self.dwords as usize),
        }
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Checks the fixed fields (opcodes, fixed values such as an instruction layout's
    /// Access Mode) of `dw`, as the generated `unpack` does, without decoding the rest.
    pub fn check_fixed(&self, dw: &[u32]) -> Result<(), crate::UnpackError> {
        if dw.len() < self.dwords as usize {
            return Err(crate::UnpackError::Short {
                def: self.name,
                need: self.dwords as usize,
                have: dw.len(),
            });
        }
        for f in self.fields {
            if let Some(expected) = f.fixed
                && !matches!(f.ty, Ty::Length)
            {
                let found = f.raw(dw);
                if found != expected {
                    return Err(crate::UnpackError::Mismatch {
                        def: self.name,
                        field: f.name,
                        expected,
                        found,
                    });
                }
            }
        }
        Ok(())
    }
}

/// All definitions and enums of one generation.
#[derive(Debug, Clone, Copy)]
pub struct Generation {
    /// "gen7".
    pub name: &'static str,
    /// Definitions sorted by name.
    pub defs: &'static [&'static Def],
    /// Named enums sorted by name.
    pub enums: &'static [&'static EnumInfo],
}

impl Generation {
    /// Looks a definition up by its manual name.
    pub fn def(&self, name: &str) -> Option<&'static Def> {
        self.defs
            .binary_search_by(|d| d.name.cmp(name))
            .ok()
            .map(|i| self.defs[i])
    }

    /// The command whose opcode `dw0` carries. Where several match (a generic header and a
    /// specific one), the one with the most opcode bits wins.
    pub fn identify(&self, dw0: u32) -> Option<&'static Def> {
        // A command streamer identifies every command it reads, mostly the same few
        // headers: the last ones seen on this host thread are kept in front of the
        // shared memo (keyed by the generation's name, as the memo is, and the whole
        // header).
        type Recent = [Option<(&'static str, u32, Option<&'static Def>)>; 256];
        thread_local! {
            static RECENT: std::cell::RefCell<Recent> = const {
                std::cell::RefCell::new([None; 256])
            };
        }
        let slot = ((dw0 >> 16) ^ (dw0 >> 24) ^ dw0) as usize & 255;
        if let Some(d) = RECENT.with(|r| match r.borrow()[slot] {
            Some((name, h, d)) if h == dw0 && std::ptr::eq(name, self.name) => Some(d),
            _ => None,
        }) {
            return d;
        }
        let d = self.identify_shared(dw0);
        RECENT.with(|r| r.borrow_mut()[slot] = Some((self.name, dw0, d)));
        d
    }

    /// [`Self::identify`] through the memo all threads share.
    fn identify_shared(&self, dw0: u32) -> Option<&'static Def> {
        // The answer depends only on the bits some command's opcode covers: it is
        // searched once per distinct value of those bits and remembered.
        let mut memo = locked(lookups());
        let bits = match memo.opcode_bits.get(self.name) {
            Some(&m) => m,
            None => {
                let m = self
                    .defs
                    .iter()
                    .filter(|d| matches!(d.kind, DefKind::Command { .. }))
                    .fold(0, |m, d| m | d.opcode_mask);
                memo.opcode_bits.insert(self.name, m);
                m
            }
        };
        let key = (self.name, dw0 & bits);
        if let Some(&d) = memo.commands.get(&key) {
            return d;
        }
        let d = self
            .defs
            .iter()
            .filter(|d| d.matches(dw0))
            .max_by_key(|d| d.opcode_mask.count_ones())
            .copied();
        // Bounded: a hostile stream of distinct headers is searched, not remembered.
        if memo.commands.len() < MEMO_LIMIT {
            memo.commands.insert(key, d);
        }
        d
    }

    /// The register at MMIO offset `offset`.
    pub fn register(&self, offset: u32) -> Option<&'static Def> {
        let memo = lookups();
        if let Some(&d) = locked(memo).registers.get(&(self.name, offset)) {
            return d;
        }
        let d = self
            .defs
            .iter()
            .find(|d| d.kind == DefKind::Register { offset })
            .copied();
        let mut m = locked(memo);
        if m.registers.len() < MEMO_LIMIT {
            m.registers.insert((self.name, offset), d);
        }
        d
    }
}

/// The most lookups of each kind remembered.
const MEMO_LIMIT: usize = 1 << 16;

/// Lookups by opcode and by register offset, remembered per generation (the tables are
/// static, so an answer never changes).
#[derive(Default)]
struct Lookups {
    commands: std::collections::HashMap<(&'static str, u32), Option<&'static Def>>,
    registers: std::collections::HashMap<(&'static str, u32), Option<&'static Def>>,
    opcode_bits: std::collections::HashMap<&'static str, u32>,
}

fn lookups() -> &'static std::sync::Mutex<Lookups> {
    static L: std::sync::OnceLock<std::sync::Mutex<Lookups>> = std::sync::OnceLock::new();
    L.get_or_init(Default::default)
}

/// The memo; a panic while it was held left no partial entry, so a poisoned lock is
/// still usable.
fn locked(m: &std::sync::Mutex<Lookups>) -> std::sync::MutexGuard<'_, Lookups> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
