//! The Gen7 front: the latched commands and the indirect state they point to, decoded
//! into the typed structures the stages read. Commands never sent read as their
//! all-zero power-on state.

use super::{DrawCounts, DrawError, unsupported};
use crate::index::IndexBuffer;
use crate::vf::VertexBuffer;
use gtsim_mem::Memory;
use gtsim_spec::UnpackError;
use gtsim_spec::gen7::vertex_buffer_state::BufferAccessType;
use gtsim_spec::gen7::*;
use gtsim_spec::shared::*;

/// The context's latched state as the draw sees it.
pub trait Latched {
    /// The dwords of the last `name` command (by spec name, e.g. "3DSTATE_VS").
    fn command(&self, name: &str) -> Option<&[u32]>;
    /// An MMIO register's value.
    fn register(&self, offset: u32) -> u32;
}

/// INSTPM (IVB PRM Vol1 Part3), bit 6 "CONSTANT_BUFFER Address Offset Disable".
const INSTPM: u32 = 0x20c0;

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
}

/// STATE_BASE_ADDRESS's access upper bounds (Mesa genxml gen7.xml; IVB PRM Vol2 Part1
/// STATE_BASE_ADDRESS: a 4 KiB aligned exclusive limit, 0 disables the check). The seeds
/// do not say what an access past the bound returns, so the model stops with a hang
/// naming the bound rather than guess.
pub(crate) fn check_bound(
    what: &'static str,
    bound_name: &'static str,
    addr: u64,
    len: u64,
    bound: u64,
) -> Result<(), DrawError> {
    if bound != 0 && addr.saturating_add(len) > bound {
        return Err(DrawError::State {
            command: "STATE_BASE_ADDRESS",
            why: format!(
                "{what} at {addr:#x} ({len} bytes) reaches past the {bound_name} {bound:#x}"
            ),
        });
    }
    Ok(())
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

/// A shader stage's binding table, sampler table and push constants.
#[derive(Debug, Clone, Default)]
pub(crate) struct StageResources {
    /// Binding table offset from Surface State Base Address.
    pub binding_table: u64,
    /// Sampler state offset from Dynamic State Base Address.
    pub sampler_state: u64,
    /// Push constant registers, in order of the four buffers.
    pub constants: Vec<[u8; 32]>,
}

/// Everything one draw reads.
#[derive(Debug, Clone)]
pub(crate) struct DrawState {
    pub topology: ThreeDPrimTopoType,
    pub vertex_count: u32,
    pub start_vertex: u32,
    pub instance_count: u32,
    pub start_instance: u32,
    pub base_vertex: i32,
    /// RANDOM access: the index buffer.
    pub index_buffer: Option<IndexBuffer>,
    pub vertex_buffers: Vec<Option<VertexBuffer>>,
    pub elements: Vec<VertexElementState>,
    pub bases: Bases,
    pub vs: ThreeDStateVs,
    pub vs_res: StageResources,
    pub clip: ThreeDStateClip,
    pub sf: ThreeDStateSf,
    pub sbe: ThreeDStateSbe,
    pub wm: ThreeDStateWm,
    pub ps: ThreeDStatePs,
    pub ps_res: StageResources,
    pub sf_clip_viewport: SfClipViewport,
    pub cc_viewport: CcViewport,
    pub drawing_rectangle: ThreeDStateDrawingRectangle,
    pub scissor: ScissorRect,
    pub blend_pointer: u64,
    /// COLOR_CALC_STATE, read by the render target writes that need it.
    pub cc_pointer: u64,
    pub depth_stencil: DepthStencilState,
    pub depth_buffer: ThreeDStateDepthBuffer,
    pub multisample: ThreeDStateMultisample,
    /// 3DSTATE_VF_STATISTICS Statistics Enable.
    pub vf_statistics: bool,
}

fn bad(command: &'static str) -> impl Fn(UnpackError) -> DrawError {
    move |e| DrawError::State {
        command,
        why: e.to_string(),
    }
}

/// The last `name` command, decoded, or its power-on (all-zero) state.
fn cmd<T: Default>(
    l: &dyn Latched,
    name: &'static str,
    unpack: fn(&[u32]) -> Result<T, UnpackError>,
) -> Result<T, DrawError> {
    match l.command(name) {
        Some(dw) => unpack(dw).map_err(bad(name)),
        None => Ok(T::default()),
    }
}

/// 3DPRIM_END_OFFSET (spec `registers.spec`; seed 004 calls it VB0ENDOFFSET).
const _3DPRIM_END_OFFSET: u32 = 0x2420;

/// Seed 004 §2.5.1 3DPRIMITIVE DW1 bit 9 "End Offset Enable": the vertex count is how
/// many whole vertices of VB0 lie before the offset in 3DPRIM_END_OFFSET ("If EndOffset
/// is reached or exceeded within the data associated with a vertex, that vertex is
/// considered incomplete and will not be output"). The restrictions the seed lists
/// (VB0 enabled, SEQUENTIAL, one instance, zero start and base locations) are checked:
/// anything else is UNDEFINED and reported.
fn end_offset_vertex_count(
    l: &dyn Latched,
    p: &ThreeDPrimitive,
    counts: &DrawCounts,
    vertex_buffers: &[Option<VertexBuffer>],
) -> Result<u32, DrawError> {
    let fail = |why: &str| DrawError::State {
        command: "3DPRIMITIVE",
        why: format!("End Offset Enable with {why} (UNDEFINED, seed 004 §2.5.1)"),
    };
    let Some(vb0) = vertex_buffers.first().copied().flatten() else {
        return Err(fail("VB0 not enabled"));
    };
    if p.vertex_access_type != three_d_primitive::VertexAccessType::SEQUENTIAL {
        return Err(fail("RANDOM vertex access"));
    }
    if counts.instance_count != 1
        || counts.start_vertex != 0
        || counts.start_instance != 0
        || counts.base_vertex != 0
    {
        return Err(fail(
            "an instance count other than 1 or a non-zero start or base location",
        ));
    }
    if vb0.pitch == 0 {
        return Err(fail("a VB0 Buffer Pitch of 0"));
    }
    Ok(l.register(_3DPRIM_END_OFFSET) / vb0.pitch)
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
    let addr = bases.surface.wrapping_add(bt.surface_state_pointer);
    let rss = indirect(
        mem,
        "RENDER_SURFACE_STATE",
        addr,
        RenderSurfaceState::DWORDS,
        RenderSurfaceState::unpack,
    )?;
    Ok((addr, rss))
}

/// An indirect state structure of `dwords` dwords at `addr`.
pub(crate) fn indirect<T>(
    mem: &dyn Memory,
    name: &'static str,
    addr: u64,
    dwords: usize,
    unpack: fn(&[u32]) -> Result<T, UnpackError>,
) -> Result<T, DrawError> {
    let dw = mem
        .read_dwords(addr, dwords)
        .map_err(|fault| DrawError::Fault { unit: name, fault })?;
    unpack(&dw).map_err(bad(name))
}

impl DrawState {
    pub fn gather(
        l: &dyn Latched,
        prim: &[u32],
        counts: DrawCounts,
        mem: &dyn Memory,
    ) -> Result<DrawState, DrawError> {
        let p = ThreeDPrimitive::unpack(prim).map_err(bad("3DPRIMITIVE"))?;
        let sba = cmd(l, "STATE_BASE_ADDRESS", StateBaseAddress::unpack)?;
        let bases = Bases {
            surface: sba.surface_state_base_address,
            dynamic: sba.dynamic_state_base_address,
            instruction: sba.instruction_base_address,
            dynamic_bound: sba.dynamic_state_access_upper_bound,
            instruction_bound: sba.instruction_access_upper_bound,
        };
        for (name, enabled, seed) in [
            (
                "3DSTATE_HS HS Enable",
                cmd(l, "3DSTATE_HS", ThreeDStateHs::unpack)?.hs_enable,
                "seed 004 ch.4",
            ),
            (
                "3DSTATE_TE TE Enable",
                cmd(l, "3DSTATE_TE", ThreeDStateTe::unpack)?.te_enable,
                "seed 004 ch.5",
            ),
            (
                "3DSTATE_DS DS Function Enable",
                cmd(l, "3DSTATE_DS", ThreeDStateDs::unpack)?.ds_function_enable,
                "seed 004 ch.6",
            ),
            (
                "3DSTATE_GS GS Enable",
                cmd(l, "3DSTATE_GS", ThreeDStateGs::unpack)?.gs_enable,
                "seed 004 ch.7",
            ),
            (
                "3DSTATE_STREAMOUT SO Function Enable",
                cmd(l, "3DSTATE_STREAMOUT", ThreeDStateStreamout::unpack)?.so_function_enable,
                "seed 004 ch.8",
            ),
        ] {
            if enabled {
                return Err(unsupported(name, seed));
            }
        }
        let index_buffer = if p.vertex_access_type == three_d_primitive::VertexAccessType::RANDOM {
            let ib = cmd(l, "3DSTATE_INDEX_BUFFER", ThreeDStateIndexBuffer::unpack)?;
            Some(IndexBuffer {
                start: ib.buffer_starting_address,
                end: ib.buffer_ending_address,
                format: ib.index_format.0,
                cut_enable: ib.cut_index_enable,
            })
        } else {
            None
        };
        let vbs = cmd(
            l,
            "3DSTATE_VERTEX_BUFFERS",
            ThreeDStateVertexBuffers::unpack,
        )?;
        let mut vertex_buffers = vec![None; 33];
        for vb in &vbs.vertex_buffer_state {
            let slot = vertex_buffers
                .get_mut(vb.vertex_buffer_index as usize)
                .ok_or_else(|| DrawError::State {
                    command: "3DSTATE_VERTEX_BUFFERS",
                    why: format!("Vertex Buffer Index {} > 32", vb.vertex_buffer_index),
                })?;
            *slot = (!vb.null_vertex_buffer).then_some(VertexBuffer {
                start: vb.buffer_starting_address,
                pitch: vb.buffer_pitch as u32,
                end: vb.end_address,
                instance_step_rate: (vb.buffer_access_type == BufferAccessType::INSTANCEDATA)
                    .then_some(vb.instance_data_step_rate),
            });
        }
        let vertex_count = if p.end_offset_enable {
            end_offset_vertex_count(l, &p, &counts, &vertex_buffers)?
        } else {
            counts.vertex_count
        };
        let elements = cmd(
            l,
            "3DSTATE_VERTEX_ELEMENTS",
            ThreeDStateVertexElements::unpack,
        )?
        .element;
        let constant_base = if l.register(INSTPM) & (1 << 6) != 0 {
            0
        } else {
            bases.dynamic
        };
        let resources = |bt: u64, samp: u64, body: &ThreeDStateConstantBody| {
            Ok::<_, DrawError>(StageResources {
                binding_table: bt,
                sampler_state: samp,
                constants: push_constants(mem, constant_base, body)?,
            })
        };
        let vs = cmd(l, "3DSTATE_VS", ThreeDStateVs::unpack)?;
        let vs_res = resources(
            cmd(
                l,
                "3DSTATE_BINDING_TABLE_POINTERS_VS",
                ThreeDStateBindingTablePointersVs::unpack,
            )?
            .pointer_to_vs_binding_table,
            cmd(
                l,
                "3DSTATE_SAMPLER_STATE_POINTERS_VS",
                ThreeDStateSamplerStatePointersVs::unpack,
            )?
            .pointer_to_vs_sampler_state,
            &cmd(l, "3DSTATE_CONSTANT_VS", ThreeDStateConstantVs::unpack)?.constant_body,
        )?;
        let ps = cmd(l, "3DSTATE_PS", ThreeDStatePs::unpack)?;
        let ps_constants = cmd(l, "3DSTATE_CONSTANT_PS", ThreeDStateConstantPs::unpack)?;
        let ps_res = resources(
            cmd(
                l,
                "3DSTATE_BINDING_TABLE_POINTERS_PS",
                ThreeDStateBindingTablePointersPs::unpack,
            )?
            .pointer_to_ps_binding_table,
            cmd(
                l,
                "3DSTATE_SAMPLER_STATE_POINTERS_PS",
                ThreeDStateSamplerStatePointersPs::unpack,
            )?
            .pointer_to_ps_sampler_state,
            &ps_constants.constant_body,
        )?;
        let sf = cmd(l, "3DSTATE_SF", ThreeDStateSf::unpack)?;
        let dynamic = |off: u64| bases.dynamic.wrapping_add(off);
        let clip = cmd(l, "3DSTATE_CLIP", ThreeDStateClip::unpack)?;
        // The viewport is read only by the units that use it: the SF's viewport
        // transform and the clip tests.
        let sf_clip_viewport = if !(sf.view_transform_enable || clip.clip_enable) {
            SfClipViewport::default()
        } else {
            dynamic_state(
                mem,
                bases.dynamic_bound,
                "SF_CLIP_VIEWPORT",
                dynamic(
                    cmd(
                        l,
                        "3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP",
                        ThreeDStateViewportStatePointersSfClip::unpack,
                    )?
                    .pointer_to_sf_clip_viewport,
                ),
                SfClipViewport::DWORDS,
                SfClipViewport::unpack,
            )?
        };
        let scissor = if sf.scissor_rectangle_enable {
            dynamic_state(
                mem,
                bases.dynamic_bound,
                "SCISSOR_RECT",
                dynamic(
                    cmd(
                        l,
                        "3DSTATE_SCISSOR_STATE_POINTERS",
                        ThreeDStateScissorStatePointers::unpack,
                    )?
                    .pointer_to_scissor_rect,
                ),
                ScissorRect::DWORDS,
                ScissorRect::unpack,
            )?
        } else {
            ScissorRect::default()
        };
        let cc_pointer = dynamic(
            cmd(
                l,
                "3DSTATE_CC_STATE_POINTERS",
                ThreeDStateCcStatePointers::unpack,
            )?
            .pointer_to_color_calc_state,
        );
        let depth_buffer = cmd(l, "3DSTATE_DEPTH_BUFFER", ThreeDStateDepthBuffer::unpack)?;
        // Depth and stencil state matter only with a depth buffer bound (a null depth
        // buffer makes the tests pass and the writes vanish, seed 004 §11.5).
        let null_depth =
            depth_buffer.surface_type == three_d_state_depth_buffer::SurfaceType::SURFTYPE_NULL;
        let cc_viewport = if null_depth {
            CcViewport::default()
        } else {
            dynamic_state(
                mem,
                bases.dynamic_bound,
                "CC_VIEWPORT",
                dynamic(
                    cmd(
                        l,
                        "3DSTATE_VIEWPORT_STATE_POINTERS_CC",
                        ThreeDStateViewportStatePointersCc::unpack,
                    )?
                    .pointer_to_cc_viewport,
                ),
                CcViewport::DWORDS,
                CcViewport::unpack,
            )?
        };
        let depth_stencil = if null_depth {
            DepthStencilState::default()
        } else {
            dynamic_state(
                mem,
                bases.dynamic_bound,
                "DEPTH_STENCIL_STATE",
                dynamic(
                    cmd(
                        l,
                        "3DSTATE_DEPTH_STENCIL_STATE_POINTERS",
                        ThreeDStateDepthStencilStatePointers::unpack,
                    )?
                    .pointer_to_depth_stencil_state,
                ),
                DepthStencilState::DWORDS,
                DepthStencilState::unpack,
            )?
        };
        Ok(DrawState {
            topology: p.primitive_topology_type,
            vertex_count,
            start_vertex: counts.start_vertex,
            instance_count: counts.instance_count,
            start_instance: counts.start_instance,
            base_vertex: counts.base_vertex,
            index_buffer,
            vertex_buffers,
            elements,
            bases,
            vs,
            vs_res,
            clip,
            sf,
            sbe: cmd(l, "3DSTATE_SBE", ThreeDStateSbe::unpack)?,
            wm: cmd(l, "3DSTATE_WM", ThreeDStateWm::unpack)?,
            ps,
            ps_res,
            sf_clip_viewport,
            cc_viewport,
            drawing_rectangle: cmd(
                l,
                "3DSTATE_DRAWING_RECTANGLE",
                ThreeDStateDrawingRectangle::unpack,
            )?,
            scissor,
            blend_pointer: dynamic(
                cmd(
                    l,
                    "3DSTATE_BLEND_STATE_POINTERS",
                    ThreeDStateBlendStatePointers::unpack,
                )?
                .pointer_to_blend_state,
            ),
            cc_pointer,
            depth_stencil,
            depth_buffer,
            multisample: cmd(l, "3DSTATE_MULTISAMPLE", ThreeDStateMultisample::unpack)?,
            vf_statistics: cmd(l, "3DSTATE_VF_STATISTICS", ThreeDStateVfStatistics::unpack)?
                .statistics_enable,
        })
    }
}

/// The push constants of a 3DSTATE_CONSTANT_* body: buffers 0 to 3, each Read Length
/// registers from its pointer (seed 004 §3.2.1.3; the pointer is an offset from Dynamic
/// State Base Address unless INSTPM's CONSTANT_BUFFER Address Offset Disable is set).
fn push_constants(
    mem: &dyn Memory,
    base: u64,
    b: &ThreeDStateConstantBody,
) -> Result<Vec<[u8; 32]>, DrawError> {
    let mut out = vec![];
    for (len, ptr) in [
        (
            b.constant_buffer_0_read_length,
            b.pointer_to_constant_buffer_0,
        ),
        (
            b.constant_buffer_1_read_length,
            b.pointer_to_constant_buffer_1,
        ),
        (
            b.constant_buffer_2_read_length,
            b.pointer_to_constant_buffer_2,
        ),
        (
            b.constant_buffer_3_read_length,
            b.pointer_to_constant_buffer_3,
        ),
    ] {
        for r in 0..len as u64 {
            let mut reg = [0u8; 32];
            mem.read(base.wrapping_add(ptr).wrapping_add(r * 32), &mut reg)
                .map_err(|fault| DrawError::Fault {
                    unit: "push constants",
                    fault,
                })?;
            out.push(reg);
        }
    }
    if out.len() > 64 {
        return Err(DrawError::State {
            command: "3DSTATE_CONSTANT_*",
            why: format!(
                "the read lengths add up to {} registers, more than 64 (seed 004 §3.2.1.3)",
                out.len()
            ),
        });
    }
    Ok(out)
}
