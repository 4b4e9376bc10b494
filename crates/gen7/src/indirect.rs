//! STATE_BASE_ADDRESS and the indirect state it locates.

use crate::latched::{LatchedState, get};
use gtsim_mem::Memory;
use gtsim_pipe3d::draw::DrawError;
use gtsim_pipe3d::state::check_bound;
use gtsim_spec::UnpackError;
use gtsim_spec::gen7::{BindingTableState, RenderSurfaceState};

/// Graphics base addresses from STATE_BASE_ADDRESS.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Bases {
    pub surface: u64,
    pub dynamic: u64,
    pub instruction: u64,
    /// Dynamic State Access Upper Bound (exclusive; 0: unchecked).
    pub dynamic_bound: u64,
    /// Instruction Access Upper Bound (exclusive; 0: unchecked).
    pub instruction_bound: u64,
    /// General State Base Address: the stateless model's and scratch space's base
    /// (seed 000 §3.2.2, seed 004 §1.6).
    pub general: u64,
    /// General State Access Upper Bound (exclusive; 0: unchecked).
    pub general_bound: u64,
}

impl Bases {
    /// STATE_BASE_ADDRESS's bases and access upper bounds (Mesa genxml gen7.xml; IVB PRM
    /// Vol2 Part1 STATE_BASE_ADDRESS: a 4 KiB aligned exclusive limit, 0 disables the
    /// check).
    pub fn latched(s: &LatchedState) -> Bases {
        let sba = get(&s.state_base_address);
        Bases {
            surface: sba.surface_state_base_address,
            dynamic: sba.dynamic_state_base_address,
            instruction: sba.instruction_base_address,
            dynamic_bound: sba.dynamic_state_access_upper_bound,
            instruction_bound: sba.instruction_access_upper_bound,
            general: sba.general_state_base_address,
            general_bound: sba.general_state_access_upper_bound,
        }
    }
}

/// An indirect state structure of `dwords` dwords at `addr`.
pub(crate) fn indirect<T>(
    mem: &dyn Memory,
    name: &'static str,
    addr: u64,
    dwords: usize,
    unpack: fn(&[u32]) -> Result<T, UnpackError>,
) -> Result<T, DrawError> {
    gtsim_pipe3d::state::read_indirect(mem, name, addr, dwords, unpack)
}

/// An indirect state structure in dynamic state, within its upper bound.
pub(crate) fn dynamic_state<T>(
    mem: &dyn Memory,
    bound: u64,
    name: &'static str,
    addr: u64,
    dwords: usize,
    unpack: fn(&[u32]) -> Result<T, UnpackError>,
) -> Result<T, DrawError> {
    check_bound(
        name,
        "Dynamic State Access Upper Bound",
        addr,
        dwords as u64 * 4,
        bound,
    )?;
    indirect(mem, name, addr, dwords, unpack)
}

/// The address of the surface state entry `index` of the binding table at
/// `binding_table` points to (seed 000 §2.12.1 BINDING_TABLE_STATE: Surface State
/// Pointer, relative to Surface State Base Address, like the table itself).
pub(crate) fn binding_table_entry(
    mem: &dyn Memory,
    bases: &Bases,
    binding_table: u64,
    index: u8,
) -> Result<u64, DrawError> {
    let entry = bases
        .surface
        .wrapping_add(binding_table)
        .wrapping_add(u64::from(index) * 4);
    let bt = indirect(
        mem,
        "BINDING_TABLE_STATE",
        entry,
        BindingTableState::DWORDS,
        BindingTableState::unpack,
    )?;
    Ok(bases.surface.wrapping_add(bt.surface_state_pointer))
}

/// The RENDER_SURFACE_STATE that entry `index` of the binding table at `binding_table`
/// (an offset from Surface State Base Address) points to, with its address (seed 000
/// §2.12.1 BINDING_TABLE_STATE: Surface State Pointer, also from Surface State Base
/// Address). The one binding-table lookup of the model: render targets and sampler
/// messages use it.
pub(crate) fn binding_table_surface(
    mem: &dyn Memory,
    bases: &Bases,
    binding_table: u64,
    index: u8,
) -> Result<(u64, RenderSurfaceState), DrawError> {
    let addr = binding_table_entry(mem, bases, binding_table, index)?;
    let rss = indirect(
        mem,
        "RENDER_SURFACE_STATE",
        addr,
        RenderSurfaceState::DWORDS,
        RenderSurfaceState::unpack,
    )?;
    Ok((addr, rss))
}
