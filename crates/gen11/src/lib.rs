//! # gtsim-gen11: the Ice Lake front
//!
//! Where Gen11's encodings (seed 003 and, for what it lacks, Mesa's genxml facts in
//! `crates/spec/defs/gen11`) meet the generation-neutral model. Today it holds the typed
//! latched state ([`latched`]), which the command streamer fills as it latches each state
//! command; the draw and compute fronts that turn it into `gtsim-pipe3d`'s neutral state
//! come next (docs/ARCHITECTURE.md, "Adding a generation").

pub mod latched;

pub use latched::{LatchError, LatchedState};
