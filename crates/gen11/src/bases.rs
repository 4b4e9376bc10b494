//! The state bases a Gen11 front reads indirect state through: STATE_BASE_ADDRESS's
//! 48-bit bases and buffer sizes (Gen11 PRM Vol 2a STATE_BASE_ADDRESS; Mesa genxml
//! gen11.xml: a buffer size counts 4 KiB pages), the binding table pool
//! (3DSTATE_BINDING_TABLE_POOL_ALLOC: an enabled pool rebases the binding table pointers
//! while the table entries stay relative to Surface State Base Address) and GT_MODE's
//! Binding Table Alignment (BTP_18_8: a pointer's bits 15:5 are offset bits 18:8).

use crate::latched::LatchedState;
use gtsim_pipe3d::draw::DrawError;
use gtsim_pipe3d::state::{Registers, read_indirect as indirect};
use gtsim_spec::gen11::gt_mode::BindingTableAlignment;
use gtsim_spec::gen11::{BindingTableState, GtMode};

/// A graphics address from Gen11 state: its 48 meaningful bits (iris and anv write
/// canonical addresses, bits 63:48 copying bit 47; `DeviceInfo::address_bits`).
pub fn address(a: u64) -> u64 {
    a & gtsim_spec::device::ICE_LAKE_GT2.address_mask()
}

/// The bases and bounds of one context's state.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bases {
    /// Surface State Base Address.
    pub surface: u64,
    /// Dynamic State Base Address.
    pub dynamic: u64,
    /// Instruction Base Address.
    pub instruction: u64,
    /// General State Base Address.
    pub general: u64,
    /// The end of dynamic state (base + Dynamic State Buffer Size pages); 0: unbounded.
    pub dynamic_bound: u64,
    /// The end of instructions; 0: unbounded.
    pub instruction_bound: u64,
    /// The end of general state; 0: unbounded.
    pub general_bound: u64,
    /// Binding table pointers' base: the pool's when enabled, else Surface State Base.
    pub binding_table: u64,
    /// GT_MODE Binding Table Alignment is BTP_18_8.
    pub btp_18_8: bool,
    /// Bindless Surface State Base Address (STATE_BASE_ADDRESS DW12-13).
    pub bindless_surface: u64,
}

impl Bases {
    /// The bases latched in `s`, with GT_MODE from `registers`.
    pub fn latched(s: &LatchedState, registers: &dyn Registers) -> Bases {
        let sba = s.state_base_address.clone().unwrap_or_default();
        let bound = |base: u64, pages: u32| {
            if pages == 0 {
                0
            } else {
                address(base).wrapping_add(u64::from(pages) << 12)
            }
        };
        let pool = s
            .binding_table_pool_alloc
            .as_ref()
            .filter(|p| p.binding_table_pool_enable)
            .map(|p| address(p.binding_table_pool_base_address));
        // The field by name: the register holds other bits (write masks, other modes).
        let alignment = GtMode::DEF
            .field("Binding Table Alignment")
            .map_or(0, |f| f.raw(&[registers.register(GtMode::OFFSET)]));
        Bases {
            surface: address(sba.surface_state_base_address),
            dynamic: address(sba.dynamic_state_base_address),
            instruction: address(sba.instruction_base_address),
            general: address(sba.general_state_base_address),
            dynamic_bound: bound(
                sba.dynamic_state_base_address,
                sba.dynamic_state_buffer_size,
            ),
            instruction_bound: bound(sba.instruction_base_address, sba.instruction_buffer_size),
            general_bound: bound(
                sba.general_state_base_address,
                sba.general_state_buffer_size,
            ),
            binding_table: pool.unwrap_or(address(sba.surface_state_base_address)),
            btp_18_8: alignment == u64::from(BindingTableAlignment::BTP_18_8.0),
            bindless_surface: address(sba.bindless_surface_state_base_address),
        }
    }

    /// General State Base Address and its bound: the stateless model's (seed 000
    /// §3.2.2, kept on Gen11).
    pub fn general_state(&self) -> gtsim_dataport::dc::GeneralState {
        gtsim_dataport::dc::GeneralState {
            base: self.general,
            bound: (self.general_bound != 0).then_some(self.general_bound),
        }
    }

    /// The graphics address of a binding table whose pointer field holds `pointer`
    /// (bits in place).
    pub fn binding_table(&self, pointer: u64) -> u64 {
        let offset = if self.btp_18_8 { pointer << 3 } else { pointer };
        address(self.binding_table.wrapping_add(offset))
    }
}

/// Binding table index 252 (SSO_BINDLESS): the surface state is in the bindless heap, at
/// the offset the extended message descriptor carries (seed 003 Binding Table Index:
/// "0FCh SSO_BINDLESS ... supplied by the extended message descriptor").
pub const BTI_BINDLESS: u8 = 0xfc;

/// The RENDER_SURFACE_STATE address a message's Binding Table Index `bti` and extended
/// descriptor `ex_desc` name: entries 0-EFh of the binding table at `table`; with
/// SSO_BINDLESS (FCh), Bindless Surface State Base Address plus the extended
/// descriptor's Bindless Surface Offset, bits 31:12 holding the offset's bits 25:6
/// (seed 003 DP_EXTDESC_BTI252, "Data Port Bindless Surface Extended Message
/// Descriptor"; the sampler's extended descriptor is the same). The reserved indices
/// F0h-FBh are a guest error; FDh-FFh (stateless, SLM) never name a surface state.
pub(crate) fn surface_state_address(
    mem: &dyn gtsim_mem::Memory,
    bases: &Bases,
    table: u64,
    bti: u8,
    ex_desc: u32,
) -> Result<u64, DrawError> {
    match bti {
        0..=0xef => binding_table_entry(mem, bases, table, bti),
        BTI_BINDLESS => Ok(address(
            bases
                .bindless_surface
                .wrapping_add(u64::from(ex_desc & 0xffff_f000) >> 6),
        )),
        n => Err(DrawError::State {
            command: "message descriptor",
            why: format!(
                "Binding Table Index {n:#04x} is reserved (seed 003: 00h-EFh index the binding table, FCh is bindless, FDh-FFh stateless and SLM)"
            ),
        }),
    }
}

/// The RENDER_SURFACE_STATE address that entry `index` of the binding table at
/// `table` (a graphics address) names.
pub(crate) fn binding_table_entry(
    mem: &dyn gtsim_mem::Memory,
    bases: &Bases,
    table: u64,
    index: u8,
) -> Result<u64, DrawError> {
    let bt = indirect(
        mem,
        "BINDING_TABLE_STATE",
        table.wrapping_add(u64::from(index) * 4),
        BindingTableState::DWORDS,
        BindingTableState::unpack,
    )?;
    Ok(address(
        bases.surface.wrapping_add(bt.surface_state_pointer),
    ))
}
