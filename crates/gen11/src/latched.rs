//! The latched state of a Gen11 context, decoded once, when the command streamer latches
//! each command (the state model of seed 004 §1.4.1, which seed 003's commands keep).
//!
//! [`LatchedState`] has one typed field per GFXPIPE state command of the Gen11 spec
//! (`crates/spec/defs/gen11`); a command never sent is `None` and reads as its all-zero
//! power-on state. The merges the hardware does at latch time are done here:
//! STATE_BASE_ADDRESS changes only the bases and sizes whose Modify Enable is set,
//! 3DSTATE_VERTEX_BUFFERS only the buffers it lists; 3DSTATE_SO_BUFFER,
//! 3DSTATE_CHROMA_KEY and 3DSTATE_VF_INSTANCING each define one instance of several.

use gtsim_spec::gen11::*;

pub use gtsim_spec::LatchError;

gtsim_spec::latched_state! {
    /// The typed latched state: the last of each Gen11 state command.
    pub struct LatchedState {
        merged {
            "STATE_BASE_ADDRESS" => state_base_address: StateBaseAddress = merge_bases,
            "3DSTATE_VERTEX_BUFFERS" => vertex_buffers: ThreeDStateVertexBuffers = merge_vertex_buffers,
        }
        indexed {
            // SO Buffer Index, bits 30:29: four buffers.
            "3DSTATE_SO_BUFFER" => so_buffers: [ThreeDStateSoBuffer; 4] = so_buffer_index,
            // ChromaKey Table Index, bits 31:30: four entries.
            "3DSTATE_CHROMA_KEY" => chroma_keys: [ThreeDStateChromaKey; 4] = chroma_key_index,
            // Vertex Element Index, bits 5:0: the field's whole range.
            "3DSTATE_VF_INSTANCING" => vf_instancing: [ThreeDStateVfInstancing; 64] = vf_instancing_index,
        }
        plain {
            "3DSTATE_3D_MODE" => three_d_mode: ThreeDState3dMode,
            "3DSTATE_AA_LINE_PARAMETERS" => aa_line_parameters: ThreeDStateAaLineParameters,
            "3DSTATE_BINDING_TABLE_EDIT_DS" => binding_table_edit_ds: ThreeDStateBindingTableEditDs,
            "3DSTATE_BINDING_TABLE_EDIT_GS" => binding_table_edit_gs: ThreeDStateBindingTableEditGs,
            "3DSTATE_BINDING_TABLE_EDIT_HS" => binding_table_edit_hs: ThreeDStateBindingTableEditHs,
            "3DSTATE_BINDING_TABLE_EDIT_PS" => binding_table_edit_ps: ThreeDStateBindingTableEditPs,
            "3DSTATE_BINDING_TABLE_EDIT_VS" => binding_table_edit_vs: ThreeDStateBindingTableEditVs,
            "3DSTATE_BINDING_TABLE_POINTERS_DS" => binding_table_pointers_ds: ThreeDStateBindingTablePointersDs,
            "3DSTATE_BINDING_TABLE_POINTERS_GS" => binding_table_pointers_gs: ThreeDStateBindingTablePointersGs,
            "3DSTATE_BINDING_TABLE_POINTERS_HS" => binding_table_pointers_hs: ThreeDStateBindingTablePointersHs,
            "3DSTATE_BINDING_TABLE_POINTERS_PS" => binding_table_pointers_ps: ThreeDStateBindingTablePointersPs,
            "3DSTATE_BINDING_TABLE_POINTERS_VS" => binding_table_pointers_vs: ThreeDStateBindingTablePointersVs,
            "3DSTATE_BINDING_TABLE_POOL_ALLOC" => binding_table_pool_alloc: ThreeDStateBindingTablePoolAlloc,
            "3DSTATE_BLEND_STATE_POINTERS" => blend_state_pointers: ThreeDStateBlendStatePointers,
            "3DSTATE_CC_STATE_POINTERS" => cc_state_pointers: ThreeDStateCcStatePointers,
            "3DSTATE_CLEAR_PARAMS" => clear_params: ThreeDStateClearParams,
            "3DSTATE_CLIP" => clip: ThreeDStateClip,
            "3DSTATE_CONSTANT_DS" => constant_ds: ThreeDStateConstantDs,
            "3DSTATE_CONSTANT_GS" => constant_gs: ThreeDStateConstantGs,
            "3DSTATE_CONSTANT_HS" => constant_hs: ThreeDStateConstantHs,
            "3DSTATE_CONSTANT_PS" => constant_ps: ThreeDStateConstantPs,
            "3DSTATE_CONSTANT_VS" => constant_vs: ThreeDStateConstantVs,
            "3DSTATE_CPS" => cps: ThreeDStateCps,
            "3DSTATE_DEPTH_BUFFER" => depth_buffer: ThreeDStateDepthBuffer,
            "3DSTATE_DRAWING_RECTANGLE" => drawing_rectangle: ThreeDStateDrawingRectangle,
            "3DSTATE_DS" => ds: ThreeDStateDs,
            "3DSTATE_GATHER_CONSTANT_DS" => gather_constant_ds: ThreeDStateGatherConstantDs,
            "3DSTATE_GATHER_CONSTANT_GS" => gather_constant_gs: ThreeDStateGatherConstantGs,
            "3DSTATE_GATHER_CONSTANT_HS" => gather_constant_hs: ThreeDStateGatherConstantHs,
            "3DSTATE_GATHER_CONSTANT_PS" => gather_constant_ps: ThreeDStateGatherConstantPs,
            "3DSTATE_GATHER_CONSTANT_VS" => gather_constant_vs: ThreeDStateGatherConstantVs,
            "3DSTATE_GATHER_POOL_ALLOC" => gather_pool_alloc: ThreeDStateGatherPoolAlloc,
            "3DSTATE_GS" => gs: ThreeDStateGs,
            "3DSTATE_HIER_DEPTH_BUFFER" => hier_depth_buffer: ThreeDStateHierDepthBuffer,
            "3DSTATE_HS" => hs: ThreeDStateHs,
            "3DSTATE_INDEX_BUFFER" => index_buffer: ThreeDStateIndexBuffer,
            "3DSTATE_LINE_STIPPLE" => line_stipple: ThreeDStateLineStipple,
            "3DSTATE_MONOFILTER_SIZE" => monofilter_size: ThreeDStateMonofilterSize,
            "3DSTATE_MULTISAMPLE" => multisample: ThreeDStateMultisample,
            "3DSTATE_POLY_STIPPLE_OFFSET" => poly_stipple_offset: ThreeDStatePolyStippleOffset,
            "3DSTATE_POLY_STIPPLE_PATTERN" => poly_stipple_pattern: ThreeDStatePolyStipplePattern,
            "3DSTATE_PS" => ps: ThreeDStatePs,
            "3DSTATE_PS_BLEND" => ps_blend: ThreeDStatePsBlend,
            "3DSTATE_PS_EXTRA" => ps_extra: ThreeDStatePsExtra,
            "3DSTATE_PUSH_CONSTANT_ALLOC_DS" => push_constant_alloc_ds: ThreeDStatePushConstantAllocDs,
            "3DSTATE_PUSH_CONSTANT_ALLOC_GS" => push_constant_alloc_gs: ThreeDStatePushConstantAllocGs,
            "3DSTATE_PUSH_CONSTANT_ALLOC_HS" => push_constant_alloc_hs: ThreeDStatePushConstantAllocHs,
            "3DSTATE_PUSH_CONSTANT_ALLOC_PS" => push_constant_alloc_ps: ThreeDStatePushConstantAllocPs,
            "3DSTATE_PUSH_CONSTANT_ALLOC_VS" => push_constant_alloc_vs: ThreeDStatePushConstantAllocVs,
            "3DSTATE_RASTER" => raster: ThreeDStateRaster,
            "3DSTATE_RS_CONSTANT_POINTER" => rs_constant_pointer: ThreeDStateRsConstantPointer,
            "3DSTATE_SAMPLER_PALETTE_LOAD0" => sampler_palette_load0: ThreeDStateSamplerPaletteLoad0,
            "3DSTATE_SAMPLER_PALETTE_LOAD1" => sampler_palette_load1: ThreeDStateSamplerPaletteLoad1,
            "3DSTATE_SAMPLER_STATE_POINTERS_DS" => sampler_state_pointers_ds: ThreeDStateSamplerStatePointersDs,
            "3DSTATE_SAMPLER_STATE_POINTERS_GS" => sampler_state_pointers_gs: ThreeDStateSamplerStatePointersGs,
            "3DSTATE_SAMPLER_STATE_POINTERS_HS" => sampler_state_pointers_hs: ThreeDStateSamplerStatePointersHs,
            "3DSTATE_SAMPLER_STATE_POINTERS_PS" => sampler_state_pointers_ps: ThreeDStateSamplerStatePointersPs,
            "3DSTATE_SAMPLER_STATE_POINTERS_VS" => sampler_state_pointers_vs: ThreeDStateSamplerStatePointersVs,
            "3DSTATE_SAMPLE_MASK" => sample_mask: ThreeDStateSampleMask,
            "3DSTATE_SAMPLE_PATTERN" => sample_pattern: ThreeDStateSamplePattern,
            "3DSTATE_SBE" => sbe: ThreeDStateSbe,
            "3DSTATE_SBE_SWIZ" => sbe_swiz: ThreeDStateSbeSwiz,
            "3DSTATE_SCISSOR_STATE_POINTERS" => scissor_state_pointers: ThreeDStateScissorStatePointers,
            "3DSTATE_SF" => sf: ThreeDStateSf,
            "3DSTATE_SLICE_TABLE_STATE_POINTERS" => slice_table_state_pointers: ThreeDStateSliceTableStatePointers,
            "3DSTATE_SO_DECL_LIST" => so_decl_list: ThreeDStateSoDeclList,
            "3DSTATE_STENCIL_BUFFER" => stencil_buffer: ThreeDStateStencilBuffer,
            "3DSTATE_STREAMOUT" => streamout: ThreeDStateStreamout,
            "3DSTATE_TE" => te: ThreeDStateTe,
            "3DSTATE_URB_CLEAR" => urb_clear: ThreeDStateUrbClear,
            "3DSTATE_URB_DS" => urb_ds: ThreeDStateUrbDs,
            "3DSTATE_URB_GS" => urb_gs: ThreeDStateUrbGs,
            "3DSTATE_URB_HS" => urb_hs: ThreeDStateUrbHs,
            "3DSTATE_URB_VS" => urb_vs: ThreeDStateUrbVs,
            "3DSTATE_VERTEX_ELEMENTS" => vertex_elements: ThreeDStateVertexElements,
            "3DSTATE_VF" => vf: ThreeDStateVf,
            "3DSTATE_VF_COMPONENT_PACKING" => vf_component_packing: ThreeDStateVfComponentPacking,
            "3DSTATE_VF_SGVS" => vf_sgvs: ThreeDStateVfSgvs,
            "3DSTATE_VF_SGVS_2" => vf_sgvs_2: ThreeDStateVfSgvs2,
            "3DSTATE_VF_STATISTICS" => vf_statistics: ThreeDStateVfStatistics,
            "3DSTATE_VF_TOPOLOGY" => vf_topology: ThreeDStateVfTopology,
            "3DSTATE_VIEWPORT_STATE_POINTERS_CC" => viewport_state_pointers_cc: ThreeDStateViewportStatePointersCc,
            "3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP" => viewport_state_pointers_sf_clip: ThreeDStateViewportStatePointersSfClip,
            "3DSTATE_VS" => vs: ThreeDStateVs,
            "3DSTATE_WM" => wm: ThreeDStateWm,
            "3DSTATE_WM_CHROMAKEY" => wm_chromakey: ThreeDStateWmChromakey,
            "3DSTATE_WM_DEPTH_STENCIL" => wm_depth_stencil: ThreeDStateWmDepthStencil,
            "3DSTATE_WM_HZ_OP" => wm_hz_op: ThreeDStateWmHzOp,
            "MEDIA_CURBE_LOAD" => media_curbe_load: MediaCurbeLoad,
            "MEDIA_INTERFACE_DESCRIPTOR_LOAD" => media_interface_descriptor_load: MediaInterfaceDescriptorLoad,
            "MEDIA_VFE_STATE" => media_vfe_state: MediaVfeState,
            "PIPELINE_SELECT" => pipeline_select: PipelineSelect,
            "STATE_SIP" => state_sip: StateSip,
        }
    }
}

impl LatchedState {
    /// The selected pipeline: PIPELINE_SELECT's Pipeline Selection (3D until one is
    /// sent).
    pub fn pipeline(&self) -> pipeline_select::PipelineSelection {
        self.pipeline_select
            .as_ref()
            .map_or(pipeline_select::PipelineSelection::_3D, |p| {
                p.pipeline_selection
            })
    }
}

fn so_buffer_index(b: &ThreeDStateSoBuffer) -> usize {
    usize::from(b.so_buffer_index)
}

fn chroma_key_index(k: &ThreeDStateChromaKey) -> usize {
    usize::from(k.chroma_key_table_index)
}

fn vf_instancing_index(v: &ThreeDStateVfInstancing) -> usize {
    usize::from(v.vertex_element_index)
}

/// STATE_BASE_ADDRESS keeps the bases and sizes whose Modify Enable is clear (Gen11 PRM
/// Vol 2a STATE_BASE_ADDRESS; Mesa genxml gen11.xml). The bindless sizes have no enable
/// of their own: they change with their base.
fn merge_bases(old: Option<StateBaseAddress>, mut new: StateBaseAddress) -> StateBaseAddress {
    let Some(old) = old else {
        return new;
    };
    macro_rules! keep {
        ($($($field:ident),+ if $enable:ident);* $(;)?) => {$(
            if !new.$enable {
                $(new.$field = old.$field;)+
            }
        )*};
    }
    keep!(
        general_state_base_address, general_state_mocs, stateless_data_port_access_mocs
            if general_state_base_address_modify_enable;
        surface_state_base_address, surface_state_mocs
            if surface_state_base_address_modify_enable;
        dynamic_state_base_address, dynamic_state_mocs
            if dynamic_state_base_address_modify_enable;
        indirect_object_base_address, indirect_object_mocs
            if indirect_object_base_address_modify_enable;
        instruction_base_address, instruction_mocs
            if instruction_base_address_modify_enable;
        general_state_buffer_size if general_state_buffer_size_modify_enable;
        dynamic_state_buffer_size if dynamic_state_buffer_size_modify_enable;
        indirect_object_buffer_size if indirect_object_buffer_size_modify_enable;
        instruction_buffer_size if instruction_buffer_size_modify_enable;
        bindless_surface_state_base_address, bindless_surface_state_mocs,
            bindless_surface_state_size if bindless_surface_state_base_address_modify_enable;
        bindless_sampler_state_base_address, bindless_sampler_state_mocs,
            bindless_sampler_state_buffer_size if bindless_sampler_state_base_address_modify_enable;
    );
    new
}

/// 3DSTATE_VERTEX_BUFFERS changes only the buffers it lists (seed 003
/// 3DSTATE_VERTEX_BUFFERS: one VERTEX_BUFFER_STATE per buffer, by Vertex Buffer Index).
fn merge_vertex_buffers(
    old: Option<ThreeDStateVertexBuffers>,
    new: ThreeDStateVertexBuffers,
) -> ThreeDStateVertexBuffers {
    let Some(mut old) = old else {
        return new;
    };
    gtsim_spec::latched::merge_by_key(&mut old.vertex_buffer_state, new.vertex_buffer_state, |v| {
        v.vertex_buffer_index
    });
    old
}

#[cfg(test)]
mod tests;
