//! The latched state of a Gen7 context, decoded once, when the command streamer latches
//! each command (seed 004 §1.4.1: state commands are latched into the context and
//! consumed by later primitives).
//!
//! [`LatchedState`] has one typed field per state command the 3D pipeline reads; a
//! command never sent is `None` and reads as its all-zero power-on state. The merges the
//! hardware does at latch time are done here too: STATE_BASE_ADDRESS changes only the
//! bases whose Modify Enable is set, 3DSTATE_VERTEX_BUFFERS only the buffers it lists.

use gtsim_spec::gen7::*;

pub use gtsim_pipe3d::state::Registers;

pub use gtsim_spec::LatchError;

gtsim_spec::latched_state! {
    /// The typed latched state: the last of each state command the pipeline reads.
    pub struct LatchedState {
        merged {
            "STATE_BASE_ADDRESS" => state_base_address: StateBaseAddress = merge_bases,
            "3DSTATE_VERTEX_BUFFERS" => vertex_buffers: ThreeDStateVertexBuffers = merge_vertex_buffers,
        }
        indexed {
            // Seed 004 §8.6: each command defines one of the four SO buffers.
            "3DSTATE_SO_BUFFER" => so_buffers: [ThreeDStateSoBuffer; 4] = so_buffer_index,
            // Seed 000 §2.12.6: each command loads one of the four chroma key entries.
            "3DSTATE_CHROMA_KEY" => chroma_keys: [ThreeDStateChromaKey; 4] = chroma_key_index,
        }
        plain {
    "3DSTATE_INDEX_BUFFER" => index_buffer: ThreeDStateIndexBuffer,
    "PIPELINE_SELECT" => pipeline_select: PipelineSelect,
    "MEDIA_VFE_STATE" => media_vfe_state: MediaVfeState,
    "MEDIA_CURBE_LOAD" => media_curbe_load: MediaCurbeLoad,
    "MEDIA_INTERFACE_DESCRIPTOR_LOAD" => media_interface_descriptor_load: MediaInterfaceDescriptorLoad,
    "3DSTATE_VERTEX_ELEMENTS" => vertex_elements: ThreeDStateVertexElements,
    "3DSTATE_VF_STATISTICS" => vf_statistics: ThreeDStateVfStatistics,
    "3DSTATE_VS" => vs: ThreeDStateVs,
    "3DSTATE_CONSTANT_VS" => constant_vs: ThreeDStateConstantVs,
    "3DSTATE_BINDING_TABLE_POINTERS_VS" => binding_table_pointers_vs: ThreeDStateBindingTablePointersVs,
    "3DSTATE_SAMPLER_STATE_POINTERS_VS" => sampler_state_pointers_vs: ThreeDStateSamplerStatePointersVs,
    "3DSTATE_HS" => hs: ThreeDStateHs,
    "3DSTATE_CONSTANT_HS" => constant_hs: ThreeDStateConstantHs,
    "3DSTATE_BINDING_TABLE_POINTERS_HS" => binding_table_pointers_hs: ThreeDStateBindingTablePointersHs,
    "3DSTATE_SAMPLER_STATE_POINTERS_HS" => sampler_state_pointers_hs: ThreeDStateSamplerStatePointersHs,
    "3DSTATE_TE" => te: ThreeDStateTe,
    "3DSTATE_DS" => ds: ThreeDStateDs,
    "3DSTATE_CONSTANT_DS" => constant_ds: ThreeDStateConstantDs,
    "3DSTATE_BINDING_TABLE_POINTERS_DS" => binding_table_pointers_ds: ThreeDStateBindingTablePointersDs,
    "3DSTATE_SAMPLER_STATE_POINTERS_DS" => sampler_state_pointers_ds: ThreeDStateSamplerStatePointersDs,
    "3DSTATE_GS" => gs: ThreeDStateGs,
    "3DSTATE_CONSTANT_GS" => constant_gs: ThreeDStateConstantGs,
    "3DSTATE_BINDING_TABLE_POINTERS_GS" => binding_table_pointers_gs: ThreeDStateBindingTablePointersGs,
    "3DSTATE_SAMPLER_STATE_POINTERS_GS" => sampler_state_pointers_gs: ThreeDStateSamplerStatePointersGs,
    "3DSTATE_STREAMOUT" => streamout: ThreeDStateStreamout,
    "3DSTATE_SO_DECL_LIST" => so_decl_list: ThreeDStateSoDeclList,
    "3DSTATE_CLIP" => clip: ThreeDStateClip,
    "3DSTATE_SF" => sf: ThreeDStateSf,
    "3DSTATE_SBE" => sbe: ThreeDStateSbe,
    "3DSTATE_WM" => wm: ThreeDStateWm,
    "3DSTATE_PS" => ps: ThreeDStatePs,
    "3DSTATE_CONSTANT_PS" => constant_ps: ThreeDStateConstantPs,
    "3DSTATE_BINDING_TABLE_POINTERS_PS" => binding_table_pointers_ps: ThreeDStateBindingTablePointersPs,
    "3DSTATE_SAMPLER_STATE_POINTERS_PS" => sampler_state_pointers_ps: ThreeDStateSamplerStatePointersPs,
    "3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP" => viewport_sf_clip: ThreeDStateViewportStatePointersSfClip,
    "3DSTATE_VIEWPORT_STATE_POINTERS_CC" => viewport_cc: ThreeDStateViewportStatePointersCc,
    "3DSTATE_SCISSOR_STATE_POINTERS" => scissor: ThreeDStateScissorStatePointers,
    "3DSTATE_DRAWING_RECTANGLE" => drawing_rectangle: ThreeDStateDrawingRectangle,
    "3DSTATE_MULTISAMPLE" => multisample: ThreeDStateMultisample,
    "3DSTATE_SAMPLE_MASK" => sample_mask: ThreeDStateSampleMask,
    "3DSTATE_POLY_STIPPLE_OFFSET" => poly_stipple_offset: ThreeDStatePolyStippleOffset,
    "3DSTATE_POLY_STIPPLE_PATTERN" => poly_stipple_pattern: ThreeDStatePolyStipplePattern,
    "3DSTATE_LINE_STIPPLE" => line_stipple: ThreeDStateLineStipple,
    "3DSTATE_DEPTH_BUFFER" => depth_buffer: ThreeDStateDepthBuffer,
    "3DSTATE_STENCIL_BUFFER" => stencil_buffer: ThreeDStateStencilBuffer,
    "3DSTATE_CLEAR_PARAMS" => clear_params: ThreeDStateClearParams,
    "3DSTATE_DEPTH_STENCIL_STATE_POINTERS" => depth_stencil_pointers: ThreeDStateDepthStencilStatePointers,
    "3DSTATE_CC_STATE_POINTERS" => cc_state_pointers: ThreeDStateCcStatePointers,
    "3DSTATE_BLEND_STATE_POINTERS" => blend_state_pointers: ThreeDStateBlendStatePointers,
        }
    }
}

fn so_buffer_index(b: &ThreeDStateSoBuffer) -> usize {
    usize::from(b.so_buffer_index)
}

fn chroma_key_index(k: &ThreeDStateChromaKey) -> usize {
    usize::from(k.chroma_key_table_index)
}

/// The latched command, or its all-zero power-on state when it was never sent.
pub(crate) fn get<T: Clone + Default>(c: &Option<T>) -> T {
    c.clone().unwrap_or_default()
}

/// STATE_BASE_ADDRESS keeps the bases and bounds whose Modify Enable is clear (IVB PRM
/// Vol2 Part1 STATE_BASE_ADDRESS; Mesa genxml gen7.xml).
fn merge_bases(old: Option<StateBaseAddress>, mut new: StateBaseAddress) -> StateBaseAddress {
    let Some(old) = old else {
        return new;
    };
    macro_rules! keep {
        ($($field:ident if $enable:ident),* $(,)?) => {$(
            if !new.$enable {
                new.$field = old.$field;
            }
        )*};
    }
    keep!(
        general_state_base_address if general_state_base_address_modify_enable,
        surface_state_base_address if surface_state_base_address_modify_enable,
        dynamic_state_base_address if dynamic_state_base_address_modify_enable,
        indirect_object_base_address if indirect_object_base_address_modify_enable,
        instruction_base_address if instruction_base_address_modify_enable,
        general_state_access_upper_bound if general_state_access_upper_bound_modify_enable,
        dynamic_state_access_upper_bound if dynamic_state_access_upper_bound_modify_enable,
        indirect_object_access_upper_bound if indirect_object_access_upper_bound_modify_enable,
        instruction_access_upper_bound if instruction_access_upper_bound_modify_enable,
    );
    new
}

/// 3DSTATE_VERTEX_BUFFERS changes only the buffers it lists (seed 004 §2.3.1).
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
mod tests {
    use super::*;

    fn sba(surface: u64, modify: bool) -> Vec<u32> {
        StateBaseAddress {
            surface_state_base_address: surface,
            surface_state_base_address_modify_enable: modify,
            dynamic_state_base_address: 0x7000,
            dynamic_state_base_address_modify_enable: true,
            ..Default::default()
        }
        .pack()
        .unwrap()
    }

    #[test]
    fn state_base_address_keeps_the_bases_it_does_not_modify() {
        let mut s = LatchedState::default();
        assert!(s.latch("STATE_BASE_ADDRESS", &sba(0x1000, true)).unwrap());
        s.latch("STATE_BASE_ADDRESS", &sba(0x9000, false)).unwrap();
        let b = s.state_base_address.unwrap();
        assert_eq!(b.surface_state_base_address, 0x1000);
        assert_eq!(b.dynamic_state_base_address, 0x7000);
    }

    #[test]
    fn vertex_buffers_change_only_the_buffers_listed() {
        let vbs = |list: &[(u8, u64)]| {
            ThreeDStateVertexBuffers {
                vertex_buffer_state: list
                    .iter()
                    .map(|&(i, a)| VertexBufferState {
                        vertex_buffer_index: i,
                        buffer_starting_address: a,
                        ..Default::default()
                    })
                    .collect(),
            }
            .pack()
            .unwrap()
        };
        let mut s = LatchedState::default();
        s.latch("3DSTATE_VERTEX_BUFFERS", &vbs(&[(0, 0x100), (2, 0x200)]))
            .unwrap();
        s.latch("3DSTATE_VERTEX_BUFFERS", &vbs(&[(2, 0x300), (1, 0x400)]))
            .unwrap();
        let got: Vec<(u8, u64)> = s
            .vertex_buffers
            .unwrap()
            .vertex_buffer_state
            .iter()
            .map(|v| (v.vertex_buffer_index, v.buffer_starting_address))
            .collect();
        assert_eq!(got, [(0, 0x100), (1, 0x400), (2, 0x300)]);
    }

    #[test]
    fn commands_the_pipeline_does_not_read_are_not_kept() {
        let mut s = LatchedState::default();
        // URB allocation is the hardware's business, not the model's.
        assert!(!s.latch("3DSTATE_URB_VS", &[0x7830_0000, 0]).unwrap());
        // PIPELINE_SELECT GPGPU (1:0 = 2) is kept: the walker needs it.
        assert!(s.latch("PIPELINE_SELECT", &[0x6904_0002]).unwrap());
        assert_eq!(s.pipeline_select.unwrap().pipeline_selection.0, 2);
        assert!(LatchedState::COMMANDS.contains(&"3DSTATE_WM"));
    }
}
