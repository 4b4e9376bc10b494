//! The embedded sample: a small but complete Gen7 3D submission, built with the typed
//! structs of `gtsim-spec` (so every bit comes from the spec files) and stored as an AUB
//! trace, the same form a capture of a real driver takes. `gtsim decode` with no file
//! decodes it; tests use it as a known input.
//!
//! It draws one triangle: PIPELINE_SELECT, STATE_BASE_ADDRESS, the colour-calculator,
//! blend, depth-stencil, viewport and scissor pointers, a pixel shader's binding table
//! (one render target) and sampler (with a border colour), VS/PS state, vertex buffers
//! and elements, 3DPRIMITIVE, and the PIPE_CONTROL post-sync write a driver's fence polls.

use crate::aub::{AubWriter, TYPE_BATCH};
use gtsim_spec::PackError;
use gtsim_spec::gen7::*;
use gtsim_spec::shared::*;

/// Where the sample puts things in the graphics address space.
pub mod layout {
    /// The batch buffer.
    pub const BATCH: u64 = 0x0001_0000;
    /// Dynamic State Base Address.
    pub const DYNAMIC: u64 = 0x0002_0000;
    /// Surface State Base Address.
    pub const SURFACE: u64 = 0x0003_0000;
    /// Instruction Base Address.
    pub const INSTRUCTION: u64 = 0x0004_0000;
    /// The vertex buffer.
    pub const VERTICES: u64 = 0x0005_0000;
    /// The render target.
    pub const RENDER_TARGET: u64 = 0x0010_0000;
    /// The fence the PIPE_CONTROL writes.
    pub const FENCE: u64 = 0x0006_0000;
    /// Where the ring holding MI_BATCH_BUFFER_START lives.
    pub const RING: u64 = 0x0000_0000;
}

fn bytes(dw: &[u32]) -> Vec<u8> {
    dw.iter().flat_map(|d| d.to_le_bytes()).collect()
}

/// Offsets within the dynamic and surface state buffers.
mod at {
    pub const CC: u64 = 0x280;
    pub const BLEND: u64 = 0x040;
    pub const DEPTH_STENCIL: u64 = 0x0c0;
    pub const CC_VIEWPORT: u64 = 0x100;
    pub const SF_CLIP_VIEWPORT: u64 = 0x140;
    pub const SCISSOR: u64 = 0x180;
    pub const SAMPLER: u64 = 0x1c0;
    pub const BORDER: u64 = 0x200;
    pub const BINDING_TABLE: u64 = 0x020;
    pub const RENDER_SURFACE: u64 = 0x040;
    pub const PS_KERNEL: u64 = 0x040;
}

/// The batch's dwords (to be placed at [`layout::BATCH`]).
pub fn batch() -> Result<Vec<u32>, PackError> {
    let mut b = vec![];
    b.extend(
        PipelineSelect {
            pipeline_selection: pipeline_select::PipelineSelection::_3D,
        }
        .pack()?,
    );
    b.extend(
        StateBaseAddress {
            general_state_base_address_modify_enable: true,
            surface_state_base_address: layout::SURFACE,
            surface_state_base_address_modify_enable: true,
            dynamic_state_base_address: layout::DYNAMIC,
            dynamic_state_base_address_modify_enable: true,
            indirect_object_base_address_modify_enable: true,
            instruction_base_address: layout::INSTRUCTION,
            instruction_base_address_modify_enable: true,
            general_state_access_upper_bound_modify_enable: true,
            dynamic_state_access_upper_bound: 0xffff_f000,
            dynamic_state_access_upper_bound_modify_enable: true,
            indirect_object_access_upper_bound_modify_enable: true,
            instruction_access_upper_bound_modify_enable: true,
            ..Default::default()
        }
        .pack()?,
    );
    b.extend(
        ThreeDStateCcStatePointers {
            pointer_to_color_calc_state: at::CC,
        }
        .pack()?,
    );
    b.extend(
        ThreeDStateBlendStatePointers {
            pointer_to_blend_state: at::BLEND,
        }
        .pack()?,
    );
    b.extend(
        ThreeDStateDepthStencilStatePointers {
            pointer_to_depth_stencil_state: at::DEPTH_STENCIL,
        }
        .pack()?,
    );
    b.extend(
        ThreeDStateViewportStatePointersCc {
            pointer_to_cc_viewport: at::CC_VIEWPORT,
        }
        .pack()?,
    );
    b.extend(
        ThreeDStateViewportStatePointersSfClip {
            pointer_to_sf_clip_viewport: at::SF_CLIP_VIEWPORT,
        }
        .pack()?,
    );
    b.extend(
        ThreeDStateScissorStatePointers {
            pointer_to_scissor_rect: at::SCISSOR,
        }
        .pack()?,
    );
    b.extend(
        ThreeDStateBindingTablePointersPs {
            pointer_to_ps_binding_table: at::BINDING_TABLE,
        }
        .pack()?,
    );
    b.extend(
        ThreeDStateSamplerStatePointersPs {
            pointer_to_ps_sampler_state: at::SAMPLER,
        }
        .pack()?,
    );
    b.extend(ThreeDStateVs::default().pack()?);
    b.extend(
        ThreeDStatePs {
            kernel_start_pointer_0: at::PS_KERNEL,
            binding_table_entry_count: 1,
            maximum_number_of_threads: 85,
            n8_pixel_dispatch_enable: true,
            dispatch_grf_start_register_for_constant_setup_data_0: 2,
            ..Default::default()
        }
        .pack()?,
    );
    b.extend(
        ThreeDStateVertexBuffers {
            vertex_buffer_state: vec![VertexBufferState {
                vertex_buffer_index: 0,
                address_modify_enable: true,
                buffer_pitch: 12,
                buffer_starting_address: layout::VERTICES,
                end_address: layout::VERTICES + 3 * 12 - 1,
                ..Default::default()
            }],
        }
        .pack()?,
    );
    b.extend(
        ThreeDStateVertexElements {
            element: vec![VertexElementState {
                vertex_buffer_index: 0,
                valid: true,
                source_element_format: SurfaceFormat::R32G32B32_FLOAT,
                source_element_offset: 0,
                component_0_control: ThreeDVertexComponentControl::VFCOMP_STORE_SRC,
                component_1_control: ThreeDVertexComponentControl::VFCOMP_STORE_SRC,
                component_2_control: ThreeDVertexComponentControl::VFCOMP_STORE_SRC,
                component_3_control: ThreeDVertexComponentControl::VFCOMP_STORE_1_FP,
                ..Default::default()
            }],
        }
        .pack()?,
    );
    b.extend(
        ThreeDPrimitive {
            primitive_topology_type: ThreeDPrimTopoType::_3DPRIM_TRILIST,
            vertex_count_per_instance: 3,
            instance_count: 1,
            ..Default::default()
        }
        .pack()?,
    );
    b.extend(
        PipeControl {
            post_sync_operation: pipe_control::PostSyncOperation::WRITE_IMMEDIATE_DATA,
            cs_stall: true,
            render_target_cache_flush_enable: true,
            address: layout::FENCE,
            immediate_data: 1,
            ..Default::default()
        }
        .pack()?,
    );
    b.extend(MiBatchBufferEnd::default().pack()?);
    Ok(b)
}

/// The indirect state the batch points at: `(address, bytes)` pairs.
pub fn state() -> Result<Vec<(u64, Vec<u8>)>, PackError> {
    let d = layout::DYNAMIC;
    let s = layout::SURFACE;
    let mut entry = BlendStateEntry {
        color_buffer_blend_enable: true,
        source_blend_factor: ThreeDColorBufferBlendFactor::BLENDFACTOR_SRC_ALPHA,
        destination_blend_factor: ThreeDColorBufferBlendFactor::BLENDFACTOR_INV_SRC_ALPHA,
        source_alpha_blend_factor: ThreeDColorBufferBlendFactor::BLENDFACTOR_ONE,
        destination_alpha_blend_factor: ThreeDColorBufferBlendFactor::BLENDFACTOR_ZERO,
        pre_blend_color_clamp_enable: true,
        post_blend_color_clamp_enable: true,
        ..Default::default()
    };
    let blend_rt0 = entry.clone();
    entry.color_buffer_blend_enable = false;
    let mut blend = BlendState {
        entry: std::array::from_fn(|_| entry.clone()),
    };
    blend.entry[0] = blend_rt0;
    Ok(vec![
        (
            d + at::CC,
            bytes(
                &ColorCalcState {
                    blend_constant_color_alpha: 1.0,
                    ..Default::default()
                }
                .pack()?,
            ),
        ),
        (d + at::BLEND, bytes(&blend.pack()?)),
        (
            d + at::DEPTH_STENCIL,
            bytes(
                &DepthStencilState {
                    depth_test_enable: true,
                    depth_test_function: ThreeDCompareFunction::COMPAREFUNCTION_LESS,
                    depth_buffer_write_enable: true,
                    ..Default::default()
                }
                .pack()?,
            ),
        ),
        (
            d + at::CC_VIEWPORT,
            bytes(
                &CcViewport {
                    minimum_depth: 0.0,
                    maximum_depth: 1.0,
                }
                .pack()?,
            ),
        ),
        (
            d + at::SF_CLIP_VIEWPORT,
            bytes(
                &SfClipViewport {
                    viewport_matrix_element_m00: 32.0,
                    viewport_matrix_element_m11: -32.0,
                    viewport_matrix_element_m22: 0.5,
                    viewport_matrix_element_m30: 32.0,
                    viewport_matrix_element_m31: 32.0,
                    viewport_matrix_element_m32: 0.5,
                    x_min_clip_guardband: -1.0,
                    x_max_clip_guardband: 1.0,
                    y_min_clip_guardband: -1.0,
                    y_max_clip_guardband: 1.0,
                }
                .pack()?,
            ),
        ),
        (
            d + at::SCISSOR,
            bytes(
                &ScissorRect {
                    scissor_rectangle_x_max: 63,
                    scissor_rectangle_y_max: 63,
                    ..Default::default()
                }
                .pack()?,
            ),
        ),
        (
            d + at::SAMPLER,
            bytes(
                &SamplerState {
                    mag_mode_filter: sampler_state::MagModeFilter::MAPFILTER_LINEAR,
                    min_mode_filter: sampler_state::MinModeFilter::MAPFILTER_LINEAR,
                    max_lod: 13.0,
                    border_color_pointer: at::BORDER,
                    tcx_address_control_mode: Texcoordmode::TEXCOORDMODE_CLAMP_BORDER,
                    tcy_address_control_mode: Texcoordmode::TEXCOORDMODE_CLAMP_BORDER,
                    tcz_address_control_mode: Texcoordmode::TEXCOORDMODE_CLAMP_BORDER,
                    ..Default::default()
                }
                .pack()?,
            ),
        ),
        (
            d + at::BORDER,
            bytes(
                &SamplerBorderColorState {
                    border_color_float_red: 1.0,
                    border_color_float_alpha: 1.0,
                    ..Default::default()
                }
                .pack()?,
            ),
        ),
        (
            s + at::BINDING_TABLE,
            bytes(
                &BindingTableState {
                    surface_state_pointer: at::RENDER_SURFACE,
                }
                .pack()?,
            ),
        ),
        (
            s + at::RENDER_SURFACE,
            bytes(
                &RenderSurfaceState {
                    surface_type: render_surface_state::SurfaceType::SURFTYPE_2D,
                    surface_format: SurfaceFormat::B8G8R8A8_UNORM,
                    surface_base_address: layout::RENDER_TARGET,
                    width: 63,
                    height: 63,
                    surface_pitch: 255,
                    tiled_surface: true,
                    ..Default::default()
                }
                .pack()?,
            ),
        ),
        // Three vertices, x y z floats.
        (
            layout::VERTICES,
            [-0.5f32, -0.5, 0.0, 0.5, -0.5, 0.0, 0.0, 0.5, 0.0]
                .iter()
                .flat_map(|f| f.to_le_bytes())
                .collect(),
        ),
        // A pixel-shader placeholder: the EU ISA arrives with its own issue; a send with EOT
        // would live here. The decoder only reports where the kernel starts.
        (layout::INSTRUCTION + at::PS_KERNEL, vec![0u8; 64]),
    ])
}

/// The sample as an AUB trace.
pub fn aub() -> Result<Vec<u8>, PackError> {
    let mut w = AubWriter::new("gtsim sample", 0x0162);
    for (addr, data) in state()? {
        w.write_memory(addr, &data, 0);
    }
    w.write_memory(layout::BATCH, &bytes(&batch()?), TYPE_BATCH);
    w.exec(layout::BATCH, layout::RING);
    Ok(w.finish())
}
