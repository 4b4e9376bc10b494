//! # gtsim-gen11: the Ice Lake front
//!
//! Where Gen11's encodings (seed 003 and, for what it lacks, Mesa's genxml facts in
//! `crates/spec/defs/gen11`) meet the generation-neutral model:
//!
//! * [`latched`]: the typed latched state, each command decoded once when latched;
//! * [`bases`]: STATE_BASE_ADDRESS's bases and sizes, the binding table pool, GT_MODE;
//! * [`draw`]: [`DrawFront`], the [`gtsim_pipe3d::state::Front`] of one 3DPRIMITIVE
//!   (and 3DSTATE_WM_HZ_OP's clears, Gen8+ stream output write-backs);
//! * [`compute`]: [`ComputeFront`], the front of one GPGPU_WALKER;
//! * [`messages`]: SFIDs and the Gen9+ data port, gateway and spawner descriptors;
//!   `messages_3d`: the SIMD8 URB and render target messages; `sampling`: the sampler's;
//! * [`surface`]: a binding table entry's RENDER_SURFACE_STATE in the Gen9+ layouts;
//! * `payload`: where Gen11's thread payloads put their header fields.
//!
//! Not modelled yet, refused by name: radial coarse pixel shading, a dispatch's own
//! directed rounding mode (docs/ARCHITECTURE.md section 7).

pub mod bases;
pub mod compute;
pub mod draw;
pub mod latched;
pub mod messages;
mod messages_3d;
mod payload;
mod sampling;
mod sampling_media;
pub mod surface;

pub use compute::ComputeFront;
pub use draw::DrawFront;
pub use latched::{LatchError, LatchedState};
