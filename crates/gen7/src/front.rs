//! [`DrawFront`]: the Gen7 front of one 3DPRIMITIVE.

use crate::indirect::Bases;
use crate::latched::{Latched, cmd};
use gtsim_eu::exec::Message;
use gtsim_mem::Memory;
use gtsim_pipe3d::draw::{DrawError, RenderTarget};
use gtsim_pipe3d::state::{DrawState, Front, MessageKind, ShaderStage};
use gtsim_spec::gen7::*;
use std::cell::OnceCell;

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
    pub ps: StageTables,
    /// BLEND_STATE (graphics address).
    pub blend: u64,
    /// COLOR_CALC_STATE (graphics address).
    pub color_calc: u64,
}

impl Pointers {
    fn latched(l: &dyn Latched) -> Result<Pointers, DrawError> {
        let bases = Bases::latched(l)?;
        let dynamic = |off: u64| bases.dynamic.wrapping_add(off);
        Ok(Pointers {
            bases,
            vs: StageTables {
                binding_table: cmd(
                    l,
                    "3DSTATE_BINDING_TABLE_POINTERS_VS",
                    ThreeDStateBindingTablePointersVs::unpack,
                )?
                .pointer_to_vs_binding_table,
                sampler_state: cmd(
                    l,
                    "3DSTATE_SAMPLER_STATE_POINTERS_VS",
                    ThreeDStateSamplerStatePointersVs::unpack,
                )?
                .pointer_to_vs_sampler_state,
            },
            ps: StageTables {
                binding_table: cmd(
                    l,
                    "3DSTATE_BINDING_TABLE_POINTERS_PS",
                    ThreeDStateBindingTablePointersPs::unpack,
                )?
                .pointer_to_ps_binding_table,
                sampler_state: cmd(
                    l,
                    "3DSTATE_SAMPLER_STATE_POINTERS_PS",
                    ThreeDStateSamplerStatePointersPs::unpack,
                )?
                .pointer_to_ps_sampler_state,
            },
            blend: dynamic(
                cmd(
                    l,
                    "3DSTATE_BLEND_STATE_POINTERS",
                    ThreeDStateBlendStatePointers::unpack,
                )?
                .pointer_to_blend_state,
            ),
            color_calc: dynamic(
                cmd(
                    l,
                    "3DSTATE_CC_STATE_POINTERS",
                    ThreeDStateCcStatePointers::unpack,
                )?
                .pointer_to_color_calc_state,
            ),
        })
    }

    pub fn stage(&self, stage: ShaderStage) -> StageTables {
        match stage {
            ShaderStage::Vertex => self.vs,
            ShaderStage::Pixel => self.ps,
        }
    }
}

/// The front of one 3DPRIMITIVE (its dwords) over the context's latched state. Nothing
/// is read before the pipeline asks: a draw of nothing reads no state.
pub struct DrawFront<'a> {
    latched: &'a dyn Latched,
    primitive: &'a [u32],
    pointers: OnceCell<Result<Pointers, DrawError>>,
}

impl<'a> DrawFront<'a> {
    /// The front of the 3DPRIMITIVE `primitive` against `latched`.
    pub fn new(latched: &'a dyn Latched, primitive: &'a [u32]) -> DrawFront<'a> {
        DrawFront {
            latched,
            primitive,
            pointers: OnceCell::new(),
        }
    }

    pub(crate) fn pointers(&self) -> Result<&Pointers, DrawError> {
        self.pointers
            .get_or_init(|| Pointers::latched(self.latched))
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl Front for DrawFront<'_> {
    fn draw_state(&self, mem: &dyn Memory) -> Result<Option<DrawState>, DrawError> {
        crate::gather::draw_state(self, self.latched, self.primitive, mem)
    }

    fn render_target(
        &self,
        mem: &dyn Memory,
        bti: u8,
        rti: u8,
    ) -> Result<Option<RenderTarget>, DrawError> {
        crate::output::render_target(self.pointers()?, mem, bti, rti)
    }

    fn message(&self, m: &Message) -> MessageKind {
        crate::messages::kind(m)
    }

    fn sample(
        &self,
        stage: ShaderStage,
        mem: &dyn Memory,
        m: &Message,
    ) -> Result<Vec<[u8; 32]>, String> {
        let p = self.pointers().map_err(|e| e.to_string())?;
        crate::sampling::message(&p.bases, p.stage(stage), mem, m)
    }
}
