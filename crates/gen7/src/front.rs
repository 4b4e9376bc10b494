//! [`DrawFront`]: the Gen7 front of one 3DPRIMITIVE.

use crate::indirect::Bases;
use crate::latched::{LatchedState, Registers, get};
use gtsim_dataport::dc::{DataSurface, GeneralState};
use gtsim_eu::exec::{Message, MessageError, Response};
use gtsim_mem::Memory;
use gtsim_pipe3d::draw::{DrawError, RenderTarget};
use gtsim_pipe3d::state::{DrawState, Front, MessageKind, ShaderStage};
use gtsim_spec::gen7::ThreeDPrimitive;

/// A stage's binding table and sampler state table, as offsets from Surface State and
/// Dynamic State Base Address (3DSTATE_BINDING_TABLE_POINTERS_*,
/// 3DSTATE_SAMPLER_STATE_POINTERS_*; seed 004 §1.6).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StageTables {
    pub binding_table: u64,
    pub sampler_state: u64,
}

/// The pointers a draw follows into indirect state, from latched commands alone.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pointers {
    pub bases: Bases,
    pub vs: StageTables,
    pub hs: StageTables,
    pub ds: StageTables,
    pub gs: StageTables,
    pub ps: StageTables,
    /// BLEND_STATE (graphics address).
    pub blend: u64,
    /// COLOR_CALC_STATE (graphics address).
    pub color_calc: u64,
}

impl Pointers {
    pub(crate) fn latched(s: &LatchedState) -> Pointers {
        let bases = Bases::latched(s);
        let dynamic = |off: u64| bases.dynamic.wrapping_add(off);
        Pointers {
            bases,
            vs: StageTables {
                binding_table: get(&s.binding_table_pointers_vs).pointer_to_vs_binding_table,
                sampler_state: get(&s.sampler_state_pointers_vs).pointer_to_vs_sampler_state,
            },
            hs: StageTables {
                binding_table: get(&s.binding_table_pointers_hs).pointer_to_hs_binding_table,
                sampler_state: get(&s.sampler_state_pointers_hs).pointer_to_hs_sampler_state,
            },
            ds: StageTables {
                binding_table: get(&s.binding_table_pointers_ds).pointer_to_ds_binding_table,
                sampler_state: get(&s.sampler_state_pointers_ds).pointer_to_ds_sampler_state,
            },
            gs: StageTables {
                binding_table: get(&s.binding_table_pointers_gs).pointer_to_gs_binding_table,
                sampler_state: get(&s.sampler_state_pointers_gs).pointer_to_gs_sampler_state,
            },
            ps: StageTables {
                binding_table: get(&s.binding_table_pointers_ps).pointer_to_ps_binding_table,
                sampler_state: get(&s.sampler_state_pointers_ps).pointer_to_ps_sampler_state,
            },
            blend: dynamic(get(&s.blend_state_pointers).pointer_to_blend_state),
            color_calc: dynamic(get(&s.cc_state_pointers).pointer_to_color_calc_state),
        }
    }

    pub fn stage(&self, stage: ShaderStage) -> StageTables {
        match stage {
            ShaderStage::Vertex => self.vs,
            ShaderStage::Hull => self.hs,
            ShaderStage::Domain => self.ds,
            ShaderStage::Geometry => self.gs,
            ShaderStage::Pixel => self.ps,
            // A compute thread's tables are its interface descriptor's
            // (`ComputeFront`); a 3D front has none.
            ShaderStage::Compute => StageTables::default(),
        }
    }
}

/// The front of one 3DPRIMITIVE over a context's latched state and
/// registers. Indirect state is read only when the pipeline asks: a draw of nothing
/// reads none.
pub struct DrawFront<'a> {
    state: &'a LatchedState,
    registers: &'a dyn Registers,
    primitive: &'a ThreeDPrimitive,
    pointers: Pointers,
    /// Surfaces and sampler states the draw's sampler messages resolved.
    sampler_cache: crate::sampling::SamplerCache,
}

impl<'a> DrawFront<'a> {
    /// The front of the 3DPRIMITIVE `primitive` (decoded once, by the command streamer)
    /// against `state` and `registers`.
    pub fn new(
        state: &'a LatchedState,
        registers: &'a dyn Registers,
        primitive: &'a ThreeDPrimitive,
    ) -> DrawFront<'a> {
        DrawFront {
            state,
            registers,
            primitive,
            pointers: Pointers::latched(state),
            sampler_cache: crate::sampling::SamplerCache::new(state.chroma_keys.clone().map(|k| {
                k.map_or((0, 0), |k| {
                    (k.chroma_key_low_value, k.chroma_key_high_value)
                })
            })),
        }
    }

    pub(crate) fn pointers(&self) -> &Pointers {
        &self.pointers
    }
}

impl Front for DrawFront<'_> {
    fn draw_state(&self, mem: &dyn Memory) -> Result<Option<DrawState>, DrawError> {
        crate::gather::draw_state(self, self.state, self.registers, self.primitive, mem)
    }

    fn render_target(
        &self,
        mem: &dyn Memory,
        bti: u8,
        rti: u8,
    ) -> Result<Option<RenderTarget>, DrawError> {
        crate::output::render_target(&self.pointers, mem, bti, rti)
    }

    fn message(&self, m: &Message) -> MessageKind {
        crate::messages::kind(m)
    }

    fn data_surface(
        &self,
        stage: ShaderStage,
        mem: &dyn Memory,
        bti: u8,
        _ex_desc: u32,
    ) -> Result<DataSurface, MessageError> {
        let p = &self.pointers;
        crate::data_port::surface(mem, &p.bases, p.stage(stage).binding_table, bti)
    }

    fn general_state(&self) -> GeneralState {
        crate::data_port::general_state(&self.pointers.bases)
    }

    fn color_processing(
        &self,
        mem: &dyn Memory,
        address: u64,
    ) -> Result<gtsim_dataport::dc::iecp::ColorProcessing, MessageError> {
        crate::color_processing::decode(mem, address)
    }

    fn sample(
        &self,
        stage: ShaderStage,
        mem: &dyn Memory,
        m: &Message,
    ) -> Result<Response, MessageError> {
        let p = &self.pointers;
        crate::sampling::message(&self.sampler_cache, &p.bases, p.stage(stage), mem, m)
    }
}
