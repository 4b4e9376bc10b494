//! # gtsim-spec: every Gen command, structure and register, defined once
//!
//! The hardware's interface is a set of bit layouts: commands in batch buffers
//! (`3DSTATE_VS`, `PIPE_CONTROL`, `MI_BATCH_BUFFER_START`), structures in memory that
//! commands point at (`RENDER_SURFACE_STATE`, `SAMPLER_STATE`, `BLEND_STATE`), MMIO
//! registers, and the descriptors of EU `send` messages. They are written once, in
//! `defs/<gen>/*.spec` (format: `defs/FORMAT.md`), each with its provenance: the seed
//! section and line range it was taken from, or the public source for what the seeds do
//! not define.
//!
//! `build.rs` runs `gtsim-spec-gen` over them and generates, per generation:
//! * a typed struct per definition ([`gen7::ThreeDStateVs`], ...) with `unpack(&[u32])`
//!   and `pack() -> Vec<u32>`; fixed opcode fields are checked on unpack and written on
//!   pack, DWord Length is computed, values that do not fit are [`PackError`]s;
//! * a newtype per enumeration with the manual's names as constants
//!   ([`shared::SurfaceFormat::R8G8B8A8_UNORM`]);
//! * static field tables ([`table::Def`]) that the batch decoder and the
//!   [`print`] pretty-printer walk, so they too never hard-code a bit.
//!
//! Unpacking never panics on any input: guest bytes are data.

pub mod bits;
pub mod device;
pub mod error;
pub mod latched;
pub mod print;
pub mod table;

pub use device::DeviceInfo;
pub use error::{CodecError, PackError, UnpackError, Unsupported};
pub use latched::LatchError;
pub use table::{Def, Field, Generation, Ty};

/// The named enumerations every generation encodes alike (`defs/shared`): surface
/// formats, topologies, compare functions, stencil operations, blend factors and
/// functions, logic ops, vertex component controls. Generation-neutral code (stages,
/// shared functions, texel codecs) names these, never a generation's module; each
/// generation's definitions refer to them.
#[allow(
    missing_docs,
    reason = "generated code carries the manual's names, documented at their spec definitions"
)]
#[allow(
    unused_imports,
    reason = "the generator's common imports; this namespace holds enumerations only"
)]
pub mod shared {
    include!(concat!(env!("OUT_DIR"), "/shared.rs"));
}

/// Ivy Bridge (Gen7): seed 004 (3D pipeline), seed 000 (shared functions), and public
/// sources for what the seeds lack.
#[allow(
    missing_docs,
    reason = "generated code carries the manual's names, documented at their spec definitions"
)]
pub mod gen7 {
    include!(concat!(env!("OUT_DIR"), "/gen7.rs"));

    /// The Gen7 tables.
    pub static GENERATION: crate::table::Generation = crate::table::Generation {
        name: "gen7",
        defs: DEFS,
        enums: ENUMS,
    };
}

/// Ice Lake / Lakefield (Gen11): seed 003 (the Gen11 structure reference), and public
/// sources for what it lacks (command headers and opcodes, MI commands, registers).
#[allow(
    missing_docs,
    reason = "generated code carries the manual's names, documented at their spec definitions"
)]
pub mod gen11 {
    include!(concat!(env!("OUT_DIR"), "/gen11.rs"));

    /// The Gen11 tables.
    pub static GENERATION: crate::table::Generation = crate::table::Generation {
        name: "gen11",
        defs: DEFS,
        enums: ENUMS,
    };
}
