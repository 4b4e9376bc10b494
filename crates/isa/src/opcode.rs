//! Opcodes as the generation-neutral IR names them, with what the decoder and
//! disassembler need to know about each: how many sources, and what kind of instruction
//! it is. The opcode *numbers* are per generation and live in the spec
//! (`defs/gen7/eu.spec`, enum EU_OPCODE); this table is keyed by Mesa's mnemonics, the
//! names the disassembly prints (IVB PRM Vol4 Part3 §"Instruction Set Summary").

/// What an instruction does, as far as encoding and control flow care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Arithmetic/logic with up to two sources.
    Alu,
    /// Three-source (align16 3-src encoding): mad, lrp, bfe, bfi2.
    Alu3,
    /// Extended math (function in the conditional-modifier field).
    Math,
    /// Message send (shared function id in the conditional-modifier field).
    Send,
    /// Structured control flow with JIP/UIP.
    Branch,
    /// Jumps and other control (jmpi, call, ret, wait, nop).
    Control,
}

/// One opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs, reason = "the mnemonics are the manual's")]
pub enum Opcode {
    Illegal,
    Mov,
    Sel,
    Movi,
    Not,
    And,
    Or,
    Xor,
    Shr,
    Shl,
    Asr,
    Cmp,
    Cmpn,
    F32to16,
    F16to32,
    Bfrev,
    Bfe,
    Bfi1,
    Bfi2,
    Jmpi,
    Brd,
    If,
    Iff,
    Brc,
    Else,
    Endif,
    Do,
    While,
    Break,
    Cont,
    Halt,
    Msave,
    Mrest,
    Push,
    Pop,
    Call,
    Ret,
    Wait,
    Send,
    Sendc,
    Math,
    Add,
    Mul,
    Avg,
    Frc,
    Rndu,
    Rndd,
    Rnde,
    Rndz,
    Mac,
    Mach,
    Lzd,
    Fbh,
    Fbl,
    Cbit,
    Addc,
    Subb,
    Sad2,
    Sada2,
    Dp4,
    Dph,
    Dp3,
    Dp2,
    Line,
    Pln,
    Mad,
    Lrp,
    Ror,
    Rol,
    Csel,
    Smov,
    Goto,
    Calla,
    Sends,
    Sendsc,
    Madm,
    Nop,
}

/// `(opcode, mnemonic, sources, kind)` for every opcode. Control instructions that
/// carry a jump offset or count take it as src1 (an immediate), so they list 2 sources;
/// call and ret keep their target in dword 3 like the structured branches.
pub const TABLE: &[(Opcode, &str, u8, Kind)] = &[
    (Opcode::Illegal, "illegal", 0, Kind::Control),
    (Opcode::Mov, "mov", 1, Kind::Alu),
    (Opcode::Sel, "sel", 2, Kind::Alu),
    (Opcode::Movi, "movi", 1, Kind::Alu),
    (Opcode::Not, "not", 1, Kind::Alu),
    (Opcode::And, "and", 2, Kind::Alu),
    (Opcode::Or, "or", 2, Kind::Alu),
    (Opcode::Xor, "xor", 2, Kind::Alu),
    (Opcode::Shr, "shr", 2, Kind::Alu),
    (Opcode::Shl, "shl", 2, Kind::Alu),
    (Opcode::Asr, "asr", 2, Kind::Alu),
    (Opcode::Cmp, "cmp", 2, Kind::Alu),
    (Opcode::Cmpn, "cmpn", 2, Kind::Alu),
    (Opcode::F32to16, "f32to16", 1, Kind::Alu),
    (Opcode::F16to32, "f16to32", 1, Kind::Alu),
    (Opcode::Bfrev, "bfrev", 1, Kind::Alu),
    (Opcode::Bfe, "bfe", 3, Kind::Alu3),
    (Opcode::Bfi1, "bfi1", 2, Kind::Alu),
    (Opcode::Bfi2, "bfi2", 3, Kind::Alu3),
    (Opcode::Jmpi, "jmpi", 2, Kind::Control),
    (Opcode::Brd, "brd", 0, Kind::Branch),
    (Opcode::If, "if", 0, Kind::Branch),
    (Opcode::Iff, "iff", 0, Kind::Branch),
    (Opcode::Brc, "brc", 0, Kind::Branch),
    (Opcode::Else, "else", 0, Kind::Branch),
    (Opcode::Endif, "endif", 0, Kind::Branch),
    (Opcode::Do, "do", 0, Kind::Branch),
    (Opcode::While, "while", 0, Kind::Branch),
    (Opcode::Break, "break", 0, Kind::Branch),
    (Opcode::Cont, "cont", 0, Kind::Branch),
    (Opcode::Halt, "halt", 0, Kind::Branch),
    (Opcode::Msave, "msave", 2, Kind::Control),
    (Opcode::Mrest, "mrest", 2, Kind::Control),
    (Opcode::Push, "push", 2, Kind::Control),
    (Opcode::Pop, "pop", 2, Kind::Control),
    (Opcode::Call, "call", 0, Kind::Branch),
    (Opcode::Ret, "ret", 0, Kind::Branch),
    (Opcode::Wait, "wait", 1, Kind::Control),
    (Opcode::Send, "send", 1, Kind::Send),
    (Opcode::Sendc, "sendc", 1, Kind::Send),
    (Opcode::Math, "math", 2, Kind::Math),
    (Opcode::Add, "add", 2, Kind::Alu),
    (Opcode::Mul, "mul", 2, Kind::Alu),
    (Opcode::Avg, "avg", 2, Kind::Alu),
    (Opcode::Frc, "frc", 1, Kind::Alu),
    (Opcode::Rndu, "rndu", 1, Kind::Alu),
    (Opcode::Rndd, "rndd", 1, Kind::Alu),
    (Opcode::Rnde, "rnde", 1, Kind::Alu),
    (Opcode::Rndz, "rndz", 1, Kind::Alu),
    (Opcode::Mac, "mac", 2, Kind::Alu),
    (Opcode::Mach, "mach", 2, Kind::Alu),
    (Opcode::Lzd, "lzd", 1, Kind::Alu),
    (Opcode::Fbh, "fbh", 1, Kind::Alu),
    (Opcode::Fbl, "fbl", 1, Kind::Alu),
    (Opcode::Cbit, "cbit", 1, Kind::Alu),
    (Opcode::Addc, "addc", 2, Kind::Alu),
    (Opcode::Subb, "subb", 2, Kind::Alu),
    (Opcode::Sad2, "sad2", 2, Kind::Alu),
    (Opcode::Sada2, "sada2", 2, Kind::Alu),
    (Opcode::Dp4, "dp4", 2, Kind::Alu),
    (Opcode::Dph, "dph", 2, Kind::Alu),
    (Opcode::Dp3, "dp3", 2, Kind::Alu),
    (Opcode::Dp2, "dp2", 2, Kind::Alu),
    (Opcode::Line, "line", 2, Kind::Alu),
    (Opcode::Pln, "pln", 2, Kind::Alu),
    (Opcode::Mad, "mad", 3, Kind::Alu3),
    (Opcode::Lrp, "lrp", 3, Kind::Alu3),
    // Gen8+ (Mesa brw_eu.c opcode_descs; ror/rol at these numbers on Gen11 only).
    (Opcode::Ror, "ror", 2, Kind::Alu),
    (Opcode::Rol, "rol", 2, Kind::Alu),
    (Opcode::Csel, "csel", 3, Kind::Alu3),
    (Opcode::Smov, "smov", 1, Kind::Alu),
    (Opcode::Goto, "goto", 0, Kind::Branch),
    (Opcode::Calla, "calla", 0, Kind::Branch),
    // Split sends (Gen9-11): two payload registers.
    (Opcode::Sends, "sends", 2, Kind::Send),
    (Opcode::Sendsc, "sendsc", 2, Kind::Send),
    (Opcode::Madm, "madm", 3, Kind::Alu3),
    (Opcode::Nop, "nop", 0, Kind::Control),
];

// Every opcode has its row: `Nop` is the enum's last variant (and the order test checks
// each row's index).
const _: () = assert!(TABLE.len() == Opcode::Nop as usize + 1);

impl Opcode {
    /// From the mnemonic.
    pub fn from_mnemonic(m: &str) -> Option<Opcode> {
        TABLE.iter().find(|e| e.1 == m).map(|e| e.0)
    }

    /// Its row of [`TABLE`], at its own index: the table lists the opcodes in the
    /// enum's order, once each (the tests below check both).
    #[inline]
    fn entry(self) -> &'static (Opcode, &'static str, u8, Kind) {
        &TABLE[self as usize]
    }

    /// The mnemonic.
    pub fn mnemonic(self) -> &'static str {
        self.entry().1
    }

    /// Number of source operands.
    pub fn sources(self) -> u8 {
        self.entry().2
    }

    /// The encoding/behaviour class.
    #[inline]
    pub fn kind(self) -> Kind {
        self.entry().3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_the_opcodes_in_the_enums_order() {
        for (i, e) in TABLE.iter().enumerate() {
            assert_eq!(e.0 as usize, i, "{:?} is row {i}", e.0);
        }
    }

    #[test]
    fn every_opcode_is_in_the_table_once() {
        let mut names: Vec<&str> = TABLE.iter().map(|e| e.1).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), TABLE.len());
        for e in TABLE {
            assert_eq!(Opcode::from_mnemonic(e.1), Some(e.0));
        }
    }
}
