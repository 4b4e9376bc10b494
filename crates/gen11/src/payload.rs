//! Where Gen11's thread payloads put their header fields. For compute threads (the
//! facts Mesa's Gen8-11 compiler reads, brw_fs_generator.cpp generate_scratch_header and
//! fs_visitor::emit_barrier, brw_fs.cpp emit_work_group_id_setup): R0.1, R0.6 and R0.7
//! the thread group IDs X, Y and Z; R0.2 30:24 the barrier ID; R0.3 3:0 the per-thread
//! scratch space, R0.5 31:10 the scratch space pointer and 9:0 the FFTID; R0.3 31:5 and
//! R0.4 31:5 the sampler state and binding table pointers; the CURBE from R1
//! (brw_cs setup_cs_payload: a one-register payload).
//!
//! The 3D stages' fields are not Gen11's yet: Gen11 draws are refused as unsupported
//! (`gtsim_gpu::device::gen11`), and the Gen11 draw front will give them.

use gtsim_pipe3d::state::{ComputePayload, PayloadField, PayloadLayout};

const fn field(reg: usize, dword: usize, shift: u32, bits: u32) -> PayloadField {
    PayloadField {
        reg,
        dword,
        shift,
        bits,
    }
}

/// The common header fields (the compute ones; see the module docs for the others).
pub(crate) static PAYLOAD: PayloadLayout = PayloadLayout {
    urb_handles: [field(0, 0, 0, 16), field(0, 1, 0, 16)],
    scratch_space: field(0, 3, 0, 4),
    scratch_pointer: field(0, 5, 10, 22),
    fftid: field(0, 5, 0, 10),
    sampler_state: field(0, 3, 5, 27),
    binding_table: field(0, 4, 5, 27),
    gs_instance_ids: [field(0, 0, 27, 5), field(0, 1, 27, 5)],
    gs_topology: field(0, 2, 16, 6),
    gs_hint: field(0, 2, 22, 1),
    gs_primitive_ids: [field(1, 0, 0, 32), field(1, 4, 0, 32)],
    hs_patch_handle: field(0, 0, 0, 16),
    hs_primitive_id: field(0, 1, 0, 32),
    hs_instance: field(0, 2, 16, 7),
    hs_barrier: field(0, 2, 12, 4),
    hs_icp_handle: field(1, 0, 0, 32),
    ds_domain_point: [field(1, 0, 0, 32), field(1, 1, 0, 32), field(1, 2, 0, 32)],
    ds_point_stride: 4,
    ds_patch_handle: field(1, 3, 0, 14),
    ds_primitive_id: field(1, 7, 0, 32),
    topology: field(0, 0, 0, 5),
    back_facing: field(0, 0, 15, 1),
    rt_array_index: field(0, 0, 16, 11),
    source_depth_to_rt: field(0, 0, 13, 1),
    omask_to_rt: field(0, 0, 12, 1),
    starting_sample_pair: field(0, 0, 6, 2),
    subspan_x: field(1, 2, 0, 16),
    subspan_y: field(1, 2, 16, 16),
    pixel_mask: field(1, 7, 0, 16),
    dispatch_mask: field(1, 7, 16, 16),
};

/// Gen11's GPGPU thread payload.
pub(crate) static COMPUTE: ComputePayload = ComputePayload {
    group_id: [field(0, 1, 0, 32), field(0, 6, 0, 32), field(0, 7, 0, 32)],
    barrier_id: field(0, 2, 24, 7),
    common: &PAYLOAD,
    curbe_start: 1,
};
