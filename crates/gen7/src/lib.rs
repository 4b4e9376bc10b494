//! # gtsim-gen7: the Ivy Bridge front
//!
//! The generation-neutral pipeline (`gtsim-pipe3d`) reads [`gtsim_pipe3d::state`]; this
//! crate is where Gen7's encodings meet it. It decodes the commands the command streamer
//! latched (seed 004 §1.4.1) and the indirect state they point to (viewports, scissor,
//! depth/stencil, blend and colour-calculator state, binding tables, surface and sampler
//! states, push constants) into that neutral state, and tells the pipeline what each
//! `send` of a Gen7 kernel is (SFID and message descriptor).
//!
//! * [`latched`]: the typed latched state, each command decoded once when latched;
//! * [`front`]: [`DrawFront`], the [`gtsim_pipe3d::state::Front`] of one 3DPRIMITIVE;
//! * `gather`: the draw's [`gtsim_pipe3d::state::DrawState`], counts included (command,
//!   3DPRIM_* registers, or VB0's end offset);
//! * `depth`: the depth and stencil buffers and tests;
//! * `output`: render targets with their blend and colour-calculator state;
//! * `payload`: where Gen7's thread payloads put their header fields;
//! * `messages`: SFIDs and message descriptors;
//! * `indirect`: STATE_BASE_ADDRESS and the reads of indirect state it bounds;
//! * [`surface_state`]: a surface layout from RENDER_SURFACE_STATE;
//! * [`sampling`]: sampler messages (descriptor, header, surface and sampler state).
//!
//! A later generation gets a crate like this one; the stages do not change.

mod color_processing;
pub mod compute;
mod data_port;
mod depth;
pub mod front;
mod gather;
mod indirect;
pub mod latched;
mod messages;
mod output;
mod payload;
pub mod sampling;
mod sampling_media;
pub mod surface_state;

pub use front::DrawFront;
pub use latched::{LatchError, LatchedState, Registers};

/// The RENDER_SURFACE_STATE that entry `bti` of the binding table at `binding_table`
/// (an offset from Surface State Base Address, as a stage's binding table pointer holds
/// it) names under `state`, with its address: the model's own lookup, for tools that
/// show a draw's surfaces (`gtsim inspect`).
pub fn surface_state(
    mem: &dyn gtsim_mem::Memory,
    state: &LatchedState,
    binding_table: u64,
    bti: u8,
) -> Result<(u64, gtsim_spec::gen7::RenderSurfaceState), gtsim_pipe3d::draw::DrawError> {
    indirect::binding_table_surface(mem, &indirect::Bases::latched(state), binding_table, bti)
}

/// The `dwords` dwords of the indirect state structure `name` at `offset` from Dynamic
/// State Base Address under `state`, within Dynamic State Access Upper Bound, with its
/// address: read as the front reads it, for tools that show a draw's state (`gtsim
/// inspect`).
pub fn dynamic_state_dwords(
    mem: &dyn gtsim_mem::Memory,
    state: &LatchedState,
    name: &'static str,
    offset: u64,
    dwords: usize,
) -> Result<(u64, Vec<u32>), gtsim_pipe3d::draw::DrawError> {
    let bases = indirect::Bases::latched(state);
    let addr = bases.dynamic.wrapping_add(offset);
    gtsim_pipe3d::state::check_bound(
        name,
        "Dynamic State Access Upper Bound",
        addr,
        dwords as u64 * 4,
        bases.dynamic_bound,
    )?;
    let dw = mem
        .read_dwords(addr, dwords)
        .map_err(|fault| gtsim_pipe3d::draw::DrawError::Fault { unit: name, fault })?;
    Ok((addr, dw))
}
