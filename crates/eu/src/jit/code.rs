//! Machine code in executable memory: a compiled program's bytes with its relocations
//! applied.
//!
//! Cranelift gives a function as bytes and a list of relocations: places in the bytes
//! that must hold the address of a function outside them (the helpers compiled code
//! calls, and on hosts without the instructions for them the C library's rounding and
//! fused multiply-add). [`HostCode::load`] copies the bytes into fresh anonymous memory,
//! writes those addresses, and makes the memory read-only and executable. Freshly
//! compiled code and code read back from the disk cache (`super::cache`) take this one
//! path, so every compilation also tests the loading of cached code.
//!
//! Relocation kinds (Cranelift's `Reloc`, x86-64 ELF semantics): `Abs8` stores the
//! target's address plus the addend as 8 bytes; `PcRel4` stores the target's address
//! plus the addend minus the address of the field as a signed 4-byte displacement. The
//! code is generated with external functions not colocated, so Cranelift calls them
//! through `Abs8` addresses; a displacement that does not fit fails the load.

/// Where a relocation points: a function compiled code may reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Target {
    /// `super::emit::math_helper`.
    Math = 0,
    /// `super::interpret`.
    Interpret = 1,
    /// `super::fpenv::set_daz`.
    SetDaz = 2,
    /// IEEE fused multiply-add (Cranelift's `FmaF32` libcall, on hosts without FMA).
    FmaF32 = 3,
    /// `FmaF64`.
    FmaF64 = 4,
    /// Round toward +inf (`CeilF32`, on hosts without SSE4.1).
    CeilF32 = 5,
    /// `CeilF64`.
    CeilF64 = 6,
    /// Round toward -inf (`FloorF32`).
    FloorF32 = 7,
    /// `FloorF64`.
    FloorF64 = 8,
    /// Round toward zero (`TruncF32`).
    TruncF32 = 9,
    /// `TruncF64`.
    TruncF64 = 10,
    /// Round to nearest, ties to even (`NearestF32`).
    NearestF32 = 11,
    /// `NearestF64`.
    NearestF64 = 12,
}

impl Target {
    /// Every target, in the order of their numbers.
    const ALL: [Target; 13] = [
        Target::Math,
        Target::Interpret,
        Target::SetDaz,
        Target::FmaF32,
        Target::FmaF64,
        Target::CeilF32,
        Target::CeilF64,
        Target::FloorF32,
        Target::FloorF64,
        Target::TruncF32,
        Target::TruncF64,
        Target::NearestF32,
        Target::NearestF64,
    ];

    /// The target numbered `n` (as stored in the disk cache).
    pub(crate) fn from_u8(n: u8) -> Option<Target> {
        Target::ALL.get(usize::from(n)).copied()
    }

    /// The libcall Cranelift names `call`, if it is one compiled code may use.
    pub(crate) fn from_libcall(call: cranelift_codegen::ir::LibCall) -> Option<Target> {
        use cranelift_codegen::ir::LibCall as L;
        Some(match call {
            L::FmaF32 => Target::FmaF32,
            L::FmaF64 => Target::FmaF64,
            L::CeilF32 => Target::CeilF32,
            L::CeilF64 => Target::CeilF64,
            L::FloorF32 => Target::FloorF32,
            L::FloorF64 => Target::FloorF64,
            L::TruncF32 => Target::TruncF32,
            L::TruncF64 => Target::TruncF64,
            L::NearestF32 => Target::NearestF32,
            L::NearestF64 => Target::NearestF64,
            _ => return None,
        })
    }

    /// The target's address in this process.
    fn address(self) -> usize {
        match self {
            Target::Math => super::emit::math_helper as *const u8 as usize,
            Target::Interpret => super::interpret as *const u8 as usize,
            Target::SetDaz => super::fpenv::set_daz as *const u8 as usize,
            Target::FmaF32 => fma_f32 as *const u8 as usize,
            Target::FmaF64 => fma_f64 as *const u8 as usize,
            Target::CeilF32 => ceil_f32 as *const u8 as usize,
            Target::CeilF64 => ceil_f64 as *const u8 as usize,
            Target::FloorF32 => floor_f32 as *const u8 as usize,
            Target::FloorF64 => floor_f64 as *const u8 as usize,
            Target::TruncF32 => trunc_f32 as *const u8 as usize,
            Target::TruncF64 => trunc_f64 as *const u8 as usize,
            Target::NearestF32 => nearest_f32 as *const u8 as usize,
            Target::NearestF64 => nearest_f64 as *const u8 as usize,
        }
    }
}

extern "C" fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}
extern "C" fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}
/// The C library's rounding functions, as compiled code calls them: `name(x) = x.method()`.
macro_rules! rounding {
    ($($name:ident: $t:ty => $method:ident;)*) => {
        $(extern "C" fn $name(a: $t) -> $t {
            a.$method()
        })*
    };
}

rounding! {
    ceil_f32: f32 => ceil;
    ceil_f64: f64 => ceil;
    floor_f32: f32 => floor;
    floor_f64: f64 => floor;
    trunc_f32: f32 => trunc;
    trunc_f64: f64 => trunc;
    nearest_f32: f32 => round_ties_even;
    nearest_f64: f64 => round_ties_even;
}

/// How a relocation is written (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    /// The absolute address, 8 bytes.
    Abs8 = 0,
    /// The displacement from the field, 4 bytes, signed.
    PcRel4 = 1,
}

impl Kind {
    /// The kind numbered `n` (as stored in the disk cache).
    pub(crate) fn from_u8(n: u8) -> Option<Kind> {
        match n {
            0 => Some(Kind::Abs8),
            1 => Some(Kind::PcRel4),
            _ => None,
        }
    }

    /// Cranelift's relocation `r`, if it is one of these.
    pub(crate) fn from_cranelift(r: cranelift_codegen::binemit::Reloc) -> Option<Kind> {
        use cranelift_codegen::binemit::Reloc as R;
        match r {
            R::Abs8 => Some(Kind::Abs8),
            R::X86PCRel4 | R::X86CallPCRel4 => Some(Kind::PcRel4),
            _ => None,
        }
    }

    /// The bytes the relocation writes.
    fn width(self) -> usize {
        match self {
            Kind::Abs8 => 8,
            Kind::PcRel4 => 4,
        }
    }
}

/// One relocation: at byte `offset` of the code, `target`'s address plus `addend`
/// written as `kind` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reloc {
    pub(crate) offset: u32,
    pub(crate) kind: Kind,
    pub(crate) target: Target,
    pub(crate) addend: i64,
}

/// A program's machine code before loading: what the code generator gives and the disk
/// cache keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MachineCode {
    pub(crate) bytes: Vec<u8>,
    pub(crate) relocs: Vec<Reloc>,
}

/// Loaded machine code: read-only, executable, unmapped when dropped.
pub(crate) struct HostCode {
    map: memmap2::Mmap,
}

impl HostCode {
    /// `code` in executable memory with its relocations applied; `None` when a
    /// relocation lies outside the bytes or its displacement does not fit, or the memory
    /// cannot be had.
    pub(crate) fn load(code: &MachineCode) -> Option<HostCode> {
        let mut map = memmap2::MmapMut::map_anon(code.bytes.len().max(1)).ok()?;
        map[..code.bytes.len()].copy_from_slice(&code.bytes);
        let base = map.as_ptr() as usize;
        for r in &code.relocs {
            let at = r.offset as usize;
            let end = at.checked_add(r.kind.width())?;
            if end > code.bytes.len() {
                return None;
            }
            let value = (r.target.address() as i64).wrapping_add(r.addend);
            match r.kind {
                Kind::Abs8 => map[at..end].copy_from_slice(&value.to_le_bytes()),
                Kind::PcRel4 => {
                    let field = base.wrapping_add(at) as i64;
                    let d = i32::try_from(value.wrapping_sub(field)).ok()?;
                    map[at..end].copy_from_slice(&d.to_le_bytes());
                }
            }
        }
        Some(HostCode {
            map: map.make_exec().ok()?,
        })
    }

    /// The address of the code's first byte (the function's entry).
    pub(crate) fn entry(&self) -> *const u8 {
        self.map.as_ptr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_and_kinds_round_trip_through_their_numbers() {
        for (i, t) in Target::ALL.iter().enumerate() {
            assert_eq!(*t as u8 as usize, i);
            assert_eq!(Target::from_u8(i as u8), Some(*t));
        }
        assert_eq!(Target::from_u8(Target::ALL.len() as u8), None);
        for k in [Kind::Abs8, Kind::PcRel4] {
            assert_eq!(Kind::from_u8(k as u8), Some(k));
        }
        assert_eq!(Kind::from_u8(2), None);
    }

    #[test]
    fn relocations_write_addresses_and_displacements() {
        let code = MachineCode {
            bytes: vec![0xcc; 32],
            relocs: vec![
                Reloc {
                    offset: 2,
                    kind: Kind::Abs8,
                    target: Target::Math,
                    addend: 5,
                },
                Reloc {
                    offset: 20,
                    kind: Kind::Abs8,
                    target: Target::Interpret,
                    addend: -3,
                },
            ],
        };
        let host = HostCode::load(&code).expect("loads");
        // SAFETY: the mapping is 32 readable bytes long (a page, in fact).
        let bytes = unsafe { std::slice::from_raw_parts(host.entry(), 32) };
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        assert_eq!(word(2), Target::Math.address() as u64 + 5);
        assert_eq!(word(20), Target::Interpret.address() as u64 - 3);
        assert_eq!(&bytes[..2], &[0xcc, 0xcc]);
        assert_eq!(&bytes[10..20], &[0xcc; 10]);
        assert_eq!(&bytes[28..], &[0xcc; 4]);
    }

    #[test]
    fn a_relocation_past_the_end_is_refused() {
        for (offset, kind) in [(25, Kind::Abs8), (29, Kind::PcRel4), (u32::MAX, Kind::Abs8)] {
            let code = MachineCode {
                bytes: vec![0; 32],
                relocs: vec![Reloc {
                    offset,
                    kind,
                    target: Target::SetDaz,
                    addend: 0,
                }],
            };
            assert!(HostCode::load(&code).is_none(), "{offset} {kind:?}");
        }
    }

    #[test]
    fn libcall_stand_ins_compute_the_ieee_results() {
        assert_eq!(fma_f32(0.1, 10.0, -1.0), 0.1f32.mul_add(10.0, -1.0));
        assert_ne!(fma_f32(0.1, 10.0, -1.0), 0.1f32 * 10.0 - 1.0);
        assert_eq!(nearest_f32(2.5), 2.0);
        assert_eq!(nearest_f32(3.5), 4.0);
        assert_eq!(nearest_f64(-0.5).to_bits(), (-0.0f64).to_bits());
        assert_eq!(ceil_f32(-0.5).to_bits(), (-0.0f32).to_bits());
        assert_eq!(floor_f64(-0.5), -1.0);
        assert_eq!(trunc_f32(-1.7), -1.0);
        assert_eq!(ceil_f64(1.2), 2.0);
        assert_eq!(floor_f32(1.7), 1.0);
        assert_eq!(trunc_f64(2.9), 2.0);
        assert_eq!(fma_f64(2.0, 3.0, 1.0), 7.0);
    }
}
