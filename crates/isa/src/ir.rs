//! The generation-neutral instruction IR: what an instruction means, not where its bits
//! are. Decoders fill it from a generation's encoding; encoders write it back; the
//! disassembler prints it; the interpreter (gtsim-eu) executes it.

use crate::opcode::Opcode;

/// Register files (IVB PRM Vol4 Part3 "Register Files").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegFile {
    /// Architecture registers (null, a0, acc, f, sr, cr, n, ip, tdr, tm).
    Arf,
    /// General registers g0..g127.
    Grf,
    /// Message registers (pre-Gen7 only; Gen7 sends from the GRF).
    Mrf,
    /// An immediate (sources only).
    Imm,
}

/// Data types. Register and immediate encodings differ per generation; the IR names the
/// type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs, reason = "the PRM's type names")]
pub enum Type {
    UD,
    D,
    UW,
    W,
    UB,
    B,
    DF,
    F,
    HF,
    UQ,
    Q,
    /// Packed unsigned half-byte vector (immediate only).
    UV,
    /// Packed signed half-byte vector (immediate only).
    V,
    /// Packed restricted float vector (immediate only).
    VF,
}

impl Type {
    /// Size of one element in bytes (vectors: the immediate's size).
    pub fn size(self) -> u32 {
        match self {
            Type::UB | Type::B => 1,
            Type::UW | Type::W | Type::HF => 2,
            Type::UD | Type::D | Type::F | Type::UV | Type::V | Type::VF => 4,
            Type::DF | Type::UQ | Type::Q => 8,
        }
    }

    /// The suffix the disassembler prints.
    pub fn suffix(self) -> &'static str {
        match self {
            Type::UD => "UD",
            Type::D => "D",
            Type::UW => "UW",
            Type::W => "W",
            Type::UB => "UB",
            Type::B => "B",
            Type::DF => "DF",
            Type::F => "F",
            Type::HF => "HF",
            Type::UQ => "UQ",
            Type::Q => "Q",
            Type::UV => "UV",
            Type::V => "V",
            Type::VF => "VF",
        }
    }
}

/// How a register operand is addressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Address {
    /// Register number and subregister given directly.
    Direct,
    /// Through the address register: a0.`subnr` plus an immediate byte offset.
    Indirect {
        /// Address subregister (a0.N).
        subnr: u8,
        /// Signed byte offset.
        offset: i16,
    },
}

/// An align1 source region `<vstride;width,hstride>`, in elements (vstride and hstride
/// are 0, 1, 2, 4, ... 32; width 1..16). `vstride == None` is the "VxH" indirect form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Region {
    /// Vertical stride in elements (None: VxH).
    pub vstride: Option<u8>,
    /// Width in elements.
    pub width: u8,
    /// Horizontal stride in elements.
    pub hstride: u8,
}

/// An align16 source swizzle: one channel (0..3 = x y z w) per output channel.
pub type Swizzle = [u8; 4];

/// Source operand layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Align1: a region.
    Region(Region),
    /// Align16: vertical stride (in elements) and a swizzle.
    Swizzle {
        /// Vertical stride (0 or 4, in elements).
        vstride: u8,
        /// The swizzle.
        swizzle: Swizzle,
    },
}

/// A source operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Src {
    /// A register.
    Reg {
        /// File.
        file: RegFile,
        /// Register number (ARF: the architecture register number, e.g. 0x20 for acc0).
        nr: u8,
        /// Subregister in bytes.
        subnr: u8,
        /// Type.
        ty: Type,
        /// Region or swizzle.
        layout: Layout,
        /// Direct or indirect.
        address: Address,
        /// Source modifier: negate.
        negate: bool,
        /// Source modifier: absolute value.
        abs: bool,
    },
    /// An immediate: the raw bits (32 or 64) and the type.
    Imm {
        /// Type.
        ty: Type,
        /// Bits.
        bits: u64,
    },
}

/// Destination layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DstLayout {
    /// Align1 horizontal stride in elements (1, 2, 4; 0 is only legal for some ARFs).
    HStride(u8),
    /// Align16 write mask (bit 0 = x).
    WriteMask(u8),
}

/// The destination operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dst {
    /// File (never Imm).
    pub file: RegFile,
    /// Register number.
    pub nr: u8,
    /// Subregister in bytes.
    pub subnr: u8,
    /// Type.
    pub ty: Type,
    /// Stride or write mask.
    pub layout: DstLayout,
    /// Direct or indirect.
    pub address: Address,
}

/// Predication (IVB PRM Vol4 Part3 "Predication").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Predicate {
    /// How the predicate is formed from the flag bits.
    pub control: PredControl,
    /// Inverted.
    pub inverse: bool,
}

/// Everything an instruction says.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Instruction {
    /// What it does.
    pub opcode: Opcode,
    /// Align16 (true) or align1.
    pub align16: bool,
    /// Executes on all channels regardless of the execution mask (WE_all).
    pub mask_disable: bool,
    /// Dependency control bits (bit 0 NoDDClr, bit 1 NoDDChk).
    pub dep_control: u8,
    /// Quarter control (channel group: 0..3).
    pub qtr_control: u8,
    /// Nibble control (Gen7: selects the second SIMD4 within a quarter).
    pub nib_control: bool,
    /// Thread control (0 normal, 1 atomic, 2 switch).
    pub thread_control: u8,
    /// Predication, if any.
    pub predicate: Option<Predicate>,
    /// Number of channels (1, 2, 4, 8, 16, 32).
    pub exec_size: u8,
    /// Conditional modifier, for ALU instructions.
    pub cond_modifier: Option<CondModifier>,
    /// The function of a `math`.
    pub math: Option<MathFunction>,
    /// The shared function a `send` addresses.
    pub sfid: Option<Sfid>,
    /// The extended message descriptor of generations that have one (Gen8+ `sends`); 0
    /// on Gen7, whose send encodes the SFID in the instruction.
    pub ex_desc: u32,
    /// Where a split send (Gen9-11 `sends`) takes its extended descriptor from a register:
    /// the a0 subregister (in dwords); `None`: `ex_desc` is immediate.
    pub ex_desc_reg: Option<u8>,
    /// Flag register used by predication / conditional modifier: (f0 or f1, subregister).
    pub flag: (u8, u8),
    /// Accumulator write enable.
    pub acc_write: bool,
    /// Saturate the result to [0, 1] (float) or the type's range.
    pub saturate: bool,
    /// Debug breakpoint.
    pub debug: bool,
    /// End of thread (send).
    pub eot: bool,
    /// Destination.
    pub dst: Dst,
    /// Sources (0 to 3).
    pub srcs: Vec<Src>,
    /// Branch targets in bytes relative to this instruction (JIP, UIP).
    pub jip: Option<i32>,
    /// UIP.
    pub uip: Option<i32>,
    /// Message descriptor (send/sendc).
    pub desc: Option<u32>,
    /// The instruction was (or should be) encoded compacted (64 bits).
    pub compacted: bool,
    /// The type field of src1 when src1 carries no operand of its own (an immediate in
    /// src0, or send's immediate descriptor). It has no effect, but encoders differ —
    /// Mesa writes src0's type, intel-gen4asm writes 0 or D — and a bit-exact round trip
    /// must keep it. `None` means the field is zero.
    pub src1_type_field: Option<Type>,
}

impl Instruction {
    /// An instruction with no operands and every control at its default: SIMD1, align1,
    /// no predicate, modifier or flag, destination `null<1>:UD`.
    pub fn new(opcode: Opcode) -> Instruction {
        Instruction {
            opcode,
            align16: false,
            mask_disable: false,
            dep_control: 0,
            qtr_control: 0,
            nib_control: false,
            thread_control: 0,
            predicate: None,
            exec_size: 1,
            cond_modifier: None,
            math: None,
            sfid: None,
            ex_desc: 0,
            ex_desc_reg: None,
            flag: (0, 0),
            acc_write: false,
            saturate: false,
            debug: false,
            eot: false,
            dst: Dst {
                file: RegFile::Arf,
                nr: 0,
                subnr: 0,
                ty: Type::UD,
                layout: DstLayout::HStride(1),
                address: Address::Direct,
            },
            srcs: vec![],
            jip: None,
            uip: None,
            desc: None,
            compacted: false,
            src1_type_field: None,
        }
    }
}

/// Declares an IR enumeration with its one mnemonic table (the spelling Mesa's
/// disassembler prints and the assembler reads).
macro_rules! mnemonics {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant),*
        }

        impl $name {
            /// Every value, in encoding order.
            pub const ALL: &[$name] = &[$($name::$variant),*];

            /// The mnemonic.
            pub fn mnemonic(self) -> &'static str {
                match self {
                    $($name::$variant => $text),*
                }
            }

            /// The value whose mnemonic is `text`.
            pub fn from_mnemonic(text: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|v| !v.mnemonic().is_empty() && v.mnemonic() == text)
            }
        }
    };
}

mnemonics! {
    /// Conditional modifier (IVB PRM Vol4 Part3 "Conditional Modifier"): the flag
    /// written per channel from the result.
    CondModifier {
        /// Zero (equal).
        Z = "z",
        /// Not zero (not equal).
        Nz = "nz",
        /// Greater than zero.
        G = "g",
        /// Greater than or equal to zero.
        Ge = "ge",
        /// Less than zero.
        L = "l",
        /// Less than or equal to zero.
        Le = "le",
        /// Round increment (Gen4-5; reserved on Gen7, kept so such code round-trips).
        R = "r",
        /// Overflow.
        O = "o",
        /// Unordered (NaN).
        U = "u",
    }
}

mnemonics! {
    /// Align1 predication modes (IVB PRM Vol4 Part3 "Predication"): how a channel's
    /// predicate is formed from the flag bits.
    Align1Predicate {
        /// The channel's own flag bit.
        Normal = "",
        /// Any flag bit of the execution size.
        AnyV = "anyv",
        /// All flag bits of the execution size.
        AllV = "allv",
        /// Any of a group of 2 channels.
        Any2h = "any2h",
        /// All of a group of 2.
        All2h = "all2h",
        /// Any of 4.
        Any4h = "any4h",
        /// All of 4.
        All4h = "all4h",
        /// Any of 8.
        Any8h = "any8h",
        /// All of 8.
        All8h = "all8h",
        /// Any of 16.
        Any16h = "any16h",
        /// All of 16.
        All16h = "all16h",
        /// Any of 32.
        Any32h = "any32h",
    }
}

mnemonics! {
    /// Align16 predication modes (IVB PRM Vol4 Part3 "Predication").
    Align16Predicate {
        /// The channel's own flag bit.
        Normal = "",
        /// Flag bit x of the channel's group of four, replicated.
        X = "x",
        /// Flag bit y, replicated.
        Y = "y",
        /// Flag bit z, replicated.
        Z = "z",
        /// Flag bit w, replicated.
        W = "w",
        /// Any of the group's four bits.
        Any4h = "any4h",
        /// All of the group's four bits.
        All4h = "all4h",
    }
}

/// A predicate's mode, in the instruction's access mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PredControl {
    /// An align1 instruction's mode.
    Align1(Align1Predicate),
    /// An align16 instruction's mode.
    Align16(Align16Predicate),
}

impl PredControl {
    /// The suffix the disassembler prints after the flag register ("" or ".anyv").
    pub fn suffix(self) -> String {
        let m = match self {
            PredControl::Align1(p) => p.mnemonic(),
            PredControl::Align16(p) => p.mnemonic(),
        };
        if m.is_empty() {
            String::new()
        } else {
            format!(".{m}")
        }
    }

    /// Whether this is the plain mode (each channel reads its own flag bit).
    pub fn is_normal(self) -> bool {
        matches!(
            self,
            PredControl::Align1(Align1Predicate::Normal)
                | PredControl::Align16(Align16Predicate::Normal)
        )
    }
}

mnemonics! {
    /// Extended math functions (IVB PRM Vol4 Part3 `math`).
    MathFunction {
        /// 1/x.
        Inv = "inv",
        /// log2.
        Log = "log",
        /// 2^x.
        Exp = "exp",
        /// Square root.
        Sqrt = "sqrt",
        /// 1/sqrt.
        Rsq = "rsq",
        /// Sine.
        Sin = "sin",
        /// Cosine.
        Cos = "cos",
        /// Sine and cosine (Gen4-5; kept so such code round-trips).
        SinCos = "sincos",
        /// Float division.
        Fdiv = "fdiv",
        /// Power.
        Pow = "pow",
        /// Integer quotient and remainder.
        IntDivMod = "intdivmod",
        /// Integer quotient.
        IntDiv = "intdiv",
        /// Integer remainder.
        IntMod = "intmod",
        /// IEEE reciprocal macro (Gen8+).
        Invm = "invm",
        /// IEEE reciprocal square root macro (Gen8+).
        Rsqrtm = "rsqrtm",
    }
}

mnemonics! {
    /// Shared functions a `send` addresses (IVB PRM Vol4 Part3 `send`; seed 000 §1.5).
    Sfid {
        /// The null function.
        Null = "null",
        /// The Gen4-5 math box (kept so such code round-trips).
        Math = "math",
        /// The sampling engine.
        Sampler = "sampler",
        /// The message gateway.
        Gateway = "gateway",
        /// The data port's sampler cache.
        DataPortSamplerCache = "dp_sampler",
        /// The data port's render cache.
        DataPortRenderCache = "render",
        /// The URB.
        Urb = "urb",
        /// The thread spawner.
        ThreadSpawner = "thread_spawner",
        /// Video motion estimation.
        Vme = "vme",
        /// The data port's constant cache.
        DataPortConstantCache = "const",
        /// The data port's data cache.
        DataPortDataCache = "data",
        /// The pixel interpolator.
        PixelInterpolator = "pixel interp",
        /// The data port's second data cache port (Haswell+).
        DataPortDataCache1 = "dp data 1",
        /// The check and refinement engine (Haswell+; Mesa 22.3 prints it `tgm`).
        Cre = "tgm",
    }
}

impl Sfid {
    /// Whether the function's immediate descriptors name a binding table entry in bits
    /// 7:0: the sampler and the data ports (seed 000 §2.11.1, §3.9.2).
    pub fn names_surfaces(self) -> bool {
        matches!(
            self,
            Sfid::Sampler
                | Sfid::DataPortSamplerCache
                | Sfid::DataPortRenderCache
                | Sfid::DataPortConstantCache
                | Sfid::DataPortDataCache
                | Sfid::DataPortDataCache1
        )
    }
}

mnemonics! {
    /// Architecture register kinds (IVB PRM Vol4 Part3 "Architecture Registers"): an ARF
    /// operand's register number holds the kind in its high nibble and the register's
    /// index (acc0/acc1, f0/f1) in its low nibble (`EU_ARF` in the spec).
    ArfRegister {
        /// The null register.
        Null = "null",
        /// The address register a0.
        Address = "a",
        /// The accumulators.
        Accumulator = "acc",
        /// The flag registers.
        Flag = "f",
        /// The channel enable (mask) register.
        ChannelEnable = "mask",
        /// The mask stack register.
        MaskStack = "ms",
        /// The mask stack depth register.
        MaskStackDepth = "msd",
        /// The state register.
        State = "sr",
        /// The control register.
        Control = "cr",
        /// The notification count register.
        Notification = "n",
        /// The instruction pointer.
        Ip = "ip",
        /// The thread dependency register.
        ThreadDependency = "tdr",
        /// The timestamp register.
        Timestamp = "tm",
    }
}

impl ArfRegister {
    /// The kind and index of an ARF operand's register number; `None` for a reserved
    /// kind (0xd0-0xf0).
    pub fn of(nr: u8) -> Option<(ArfRegister, u8)> {
        ArfRegister::ALL
            .get(usize::from(nr >> 4))
            .map(|&k| (k, nr & 0xf))
    }

    /// The register number of index `index` of this kind.
    pub fn nr(self, index: u8) -> u8 {
        let kind = ArfRegister::ALL
            .iter()
            .position(|&k| k == self)
            .unwrap_or(0) as u8;
        (kind << 4) | (index & 0xf)
    }
}
