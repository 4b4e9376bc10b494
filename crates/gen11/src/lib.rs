//! # gtsim-gen11: the Ice Lake front
//!
//! Where Gen11's encodings (seed 003 and, for what it lacks, Mesa's genxml facts in
//! `crates/spec/defs/gen11`) meet the generation-neutral model:
//!
//! * [`latched`]: the typed latched state, each command decoded once when latched;
//! * [`bases`]: STATE_BASE_ADDRESS's bases and sizes, the binding table pool, GT_MODE;
//! * [`compute`]: [`ComputeFront`], the [`gtsim_pipe3d::state::Front`] of one
//!   GPGPU_WALKER;
//! * [`messages`]: SFIDs and the Gen9+ data port, gateway and spawner descriptors;
//! * [`surface`]: a binding table entry's RENDER_SURFACE_STATE as the data port sees it;
//! * `payload`: where Gen11's thread payloads put their header fields.
//!
//! The draw front comes next (docs/ARCHITECTURE.md, "Adding a generation").

pub mod bases;
pub mod compute;
pub mod draw;
pub mod latched;
pub mod messages;
mod messages_3d;
mod payload;
mod sampling;
pub mod surface;

pub use compute::ComputeFront;
pub use draw::DrawFront;
pub use latched::{LatchError, LatchedState};
