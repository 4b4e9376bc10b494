//! # gtsim-dataport: the data port and the colour calculator
//!
//! The render-target write path ends in the colour calculator (seed 004 chapter 12,
//! "Color Calculator (Output Merger)"): alpha test, depth and stencil tests, pre-blend
//! clamping, blending, post-blend clamping, logic ops and the buffer updates. This crate
//! starts with those per-pixel functions, each a pure function of the state fields that
//! select it, so that the pixel path and its unit tests share one definition:
//!
//! * [`compare`]: COMPAREFUNCTION_* (alpha, depth and stencil tests) and STENCILOP_*;
//! * [`depth_stencil`]: the depth and stencil tests and buffer updates of one pixel;
//! * [`depth_buffer`]: the depth and stencil buffers in memory and their operations;
//! * [`blend`]: blend factors, blend functions, colour clamping;
//! * [`logic_op`]: the sixteen logic ops;
//! * [`rt_write`]: the colour path of one render-target write, ending in the format;
//! * [`rt_message`]: the render target write message: payload layouts, pixel enables,
//!   alpha test and the store.
//!
//! * [`rt_path`]: a pixel shader thread's render target writes: enables, alpha test,
//!   late depth, visible-pixel counts, fast clear, the store;
//! * [`urb`]: the URB entries vertex shaders write their output VUEs into;
//! * [`dc`]: the memory messages: block, scattered, untyped and typed reads, writes and
//!   atomics, scratch blocks and fences, over the surface, stateless and SLM models.
//!
//! State values that the seeds mark reserved are typed errors naming the field.

pub mod blend;
pub mod compare;
pub mod dc;
pub mod depth_buffer;
pub mod depth_stencil;
pub mod logic_op;
pub mod mcs;
pub mod probe;
pub mod rt_message;
pub mod rt_path;
pub mod rt_samples;
pub mod rt_write;
pub mod urb;

use thiserror::Error;

/// A state field holding a value the hardware does not define.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{field} = {value:#x} is reserved ({seed})")]
pub struct ReservedValue {
    /// The state field.
    pub field: &'static str,
    /// Its value.
    pub value: u32,
    /// Where the seed lists the defined values.
    pub seed: &'static str,
}
