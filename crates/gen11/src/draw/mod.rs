//! [`DrawFront`]: the Gen11 front of one 3DPRIMITIVE. It turns the typed latched state
//! (`crate::latched`) and the indirect state it points to into the neutral
//! [`DrawState`] the pipeline runs (`gather.rs`: VF, VS, clip, SF, RASTER, SBE, WM and
//! PS; `depth.rs`: the depth and stencil buffers), and resolves render targets
//! (`output.rs`) and messages (`crate::messages`) as the threads ask for them.
//!
//! What Gen8+ changed from Gen7 is decided here, not in the pipeline: 48-bit addresses
//! and buffer sizes, instancing per vertex element (3DSTATE_VF_INSTANCING), the
//! system-generated values (3DSTATE_VF_SGVS), the topology in its own command
//! (3DSTATE_VF_TOPOLOGY), the SIMD8 VS, the RASTER/SF split, the viewport extents, the
//! kernel choice among three PS kernel pointers, headerless render target writes whose
//! render target index is in the extended descriptor, fast clears with the clear value
//! in memory.

mod depth;
mod gather;
mod stream_out;

pub use depth::wm_hz_op;
pub use stream_out::offset_write_backs;
mod output;
mod pending_clear;

pub use pending_clear::PendingClears;

use crate::bases::Bases;
use crate::latched::LatchedState;
use gtsim_dataport::dc::{DataSurface, GeneralState};
use gtsim_eu::exec::{Message, MessageError, Response};
use gtsim_mem::Memory;
use gtsim_pipe3d::draw::{DrawError, RenderTarget};
use gtsim_pipe3d::state::{DrawState, Front, MessageKind, Registers, ShaderStage};
use gtsim_spec::gen11::ThreeDPrimitive;

/// The last command of a kind latched, or its all-zero power-on state.
pub(crate) fn get<T: Clone + Default>(v: &Option<T>) -> T {
    v.clone().unwrap_or_default()
}

/// A stage's binding table and sampler state table (graphics addresses): the binding
/// table pointer through the pool (`Bases::binding_table`), the sampler state pointer
/// from Dynamic State Base Address.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StageTables {
    /// The binding table (graphics address).
    pub binding_table: u64,
    /// The pointer field as the payload carries it.
    pub binding_table_pointer: u64,
    /// The sampler state table (graphics address).
    pub sampler_state: u64,
    /// The pointer field as the payload carries it.
    pub sampler_state_pointer: u64,
}

/// The tables of each 3D stage.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tables {
    pub vs: StageTables,
    pub hs: StageTables,
    pub ds: StageTables,
    pub gs: StageTables,
    pub ps: StageTables,
}

impl Tables {
    fn latched(s: &LatchedState, bases: &Bases) -> Tables {
        let stage = |bt: u64, ss: u64| StageTables {
            binding_table: bases.binding_table(bt),
            binding_table_pointer: bt,
            sampler_state: crate::bases::address(bases.dynamic.wrapping_add(ss)),
            sampler_state_pointer: ss,
        };
        Tables {
            vs: stage(
                get(&s.binding_table_pointers_vs).pointer_to_vs_binding_table,
                get(&s.sampler_state_pointers_vs).pointer_to_vs_sampler_state,
            ),
            hs: stage(
                get(&s.binding_table_pointers_hs).pointer_to_hs_binding_table,
                get(&s.sampler_state_pointers_hs).pointer_to_hs_sampler_state,
            ),
            ds: stage(
                get(&s.binding_table_pointers_ds).pointer_to_ds_binding_table,
                get(&s.sampler_state_pointers_ds).pointer_to_ds_sampler_state,
            ),
            gs: stage(
                get(&s.binding_table_pointers_gs).pointer_to_gs_binding_table,
                get(&s.sampler_state_pointers_gs).pointer_to_gs_sampler_state,
            ),
            ps: stage(
                get(&s.binding_table_pointers_ps).pointer_to_ps_binding_table,
                get(&s.sampler_state_pointers_ps).pointer_to_ps_sampler_state,
            ),
        }
    }

    pub(crate) fn stage(&self, stage: ShaderStage) -> StageTables {
        match stage {
            ShaderStage::Vertex => self.vs,
            ShaderStage::Hull => self.hs,
            ShaderStage::Domain => self.ds,
            ShaderStage::Geometry => self.gs,
            ShaderStage::Pixel => self.ps,
            // A compute thread's tables are its interface descriptor's.
            ShaderStage::Compute => StageTables::default(),
        }
    }
}

/// The front of one 3DPRIMITIVE over a context's latched state and registers. Indirect
/// state is read only when the pipeline asks for it.
pub struct DrawFront<'a> {
    state: &'a LatchedState,
    registers: &'a dyn Registers,
    primitive: &'a ThreeDPrimitive,
    bases: Bases,
    tables: Tables,
    /// The surfaces and sampler states the draw's sampler messages resolved.
    sampler_cache: crate::sampling::SamplerCache,
    /// The extended 3DPRIMITIVE's XP0-XP2 parameters (DWs 7-9), when it has them.
    extended: Option<[u32; 3]>,
}

impl<'a> DrawFront<'a> {
    /// The front of `primitive` (decoded once, by the command streamer) against `state`
    /// and `registers`.
    pub fn new(
        state: &'a LatchedState,
        registers: &'a dyn Registers,
        primitive: &'a ThreeDPrimitive,
    ) -> DrawFront<'a> {
        let bases = Bases::latched(state, registers);
        DrawFront {
            state,
            registers,
            primitive,
            tables: Tables::latched(state, &bases),
            bases,
            sampler_cache: crate::sampling::SamplerCache::default(),
            extended: None,
        }
    }

    /// The front with the extended 3DPRIMITIVE's XP0-XP2 parameters (Extended
    /// Parameters Present; Mesa genxml gen11.xml 3DPRIMITIVE_EXTENDED DWs 7-9), which
    /// 3DSTATE_VF_SGVS_2 can insert.
    pub fn with_extended_parameters(mut self, xp: [u32; 3]) -> Self {
        self.extended = Some(xp);
        self
    }
}

impl Front for DrawFront<'_> {
    fn draw_state(&self, mem: &dyn Memory) -> Result<Option<DrawState>, DrawError> {
        gather::draw_state(self, mem)
    }

    fn render_target(
        &self,
        mem: &dyn Memory,
        bti: u8,
        rti: u8,
    ) -> Result<Option<RenderTarget>, DrawError> {
        output::render_target(self, mem, Some(bti), rti)
    }

    /// A write to the Null Render Target reads no binding table entry or surface state:
    /// a null surface with blend state entry `rti`'s colour calculator state.
    fn null_render_target(
        &self,
        mem: &dyn Memory,
        rti: u8,
    ) -> Result<Option<RenderTarget>, DrawError> {
        output::render_target(self, mem, None, rti)
    }

    fn message(&self, m: &Message) -> MessageKind {
        crate::messages::kind(m)
    }

    fn data_surface(
        &self,
        stage: ShaderStage,
        mem: &dyn Memory,
        bti: u8,
        ex_desc: u32,
    ) -> Result<DataSurface, MessageError> {
        crate::surface::data_surface(
            mem,
            &self.bases,
            self.tables.stage(stage).binding_table,
            bti,
            ex_desc,
        )
    }

    fn general_state(&self) -> GeneralState {
        self.bases.general_state()
    }

    fn surface_state(
        &self,
        stage: ShaderStage,
        mem: &dyn Memory,
        bti: u8,
    ) -> Option<(u64, Vec<u32>)> {
        let table = self.tables.stage(stage).binding_table;
        let addr = crate::bases::binding_table_entry(mem, &self.bases, table, bti).ok()?;
        let dw = mem
            .read_dwords(addr, gtsim_spec::gen11::RenderSurfaceState::DWORDS)
            .ok()?;
        Some((addr, dw))
    }

    fn color_processing(
        &self,
        _mem: &dyn Memory,
        _address: u64,
    ) -> Result<gtsim_dataport::dc::iecp::ColorProcessing, MessageError> {
        Err(crate::messages::no_color_processing())
    }

    fn sample(
        &self,
        stage: ShaderStage,
        mem: &dyn Memory,
        m: &Message,
    ) -> Result<Response, MessageError> {
        crate::sampling::message(
            &self.sampler_cache,
            &self.bases,
            self.tables.stage(stage),
            mem,
            m,
        )
    }
}
