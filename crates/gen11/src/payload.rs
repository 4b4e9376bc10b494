//! Where Gen11's compute thread payload puts its header fields (the facts Mesa's Gen8-11
//! compiler reads, brw_fs_generator.cpp generate_scratch_header and
//! fs_visitor::emit_barrier, brw_fs.cpp emit_work_group_id_setup): R0.1, R0.6 and R0.7
//! the thread group IDs X, Y and Z; R0.2 30:24 the barrier ID; R0.3 3:0 the per-thread
//! scratch space, R0.5 31:10 the scratch space pointer and 9:0 the FFTID; R0.3 31:5 and
//! R0.4 31:5 the sampler state and binding table pointers; the CURBE from R1
//! (brw_cs setup_cs_payload: a one-register payload). The 3D stages' payloads come with
//! the Gen11 draw front.

use gtsim_pipe3d::state::{
    ComputePayload, MediaPayload, PayloadField, PayloadLayout, PointerFields,
};

const fn field(reg: usize, dword: usize, shift: u32, bits: u32) -> PayloadField {
    PayloadField {
        reg,
        dword,
        shift,
        bits,
    }
}

/// The scratch and state pointer fields.
static POINTERS: PointerFields = PointerFields {
    scratch_space: field(0, 3, 0, 4),
    scratch_pointer: field(0, 5, 10, 22),
    fftid: field(0, 5, 0, 10),
    sampler_state: field(0, 3, 5, 27),
    binding_table: field(0, 4, 5, 27),
};

/// Gen11's GPGPU thread payload.
pub(crate) static COMPUTE: ComputePayload = ComputePayload {
    group_id: [field(0, 1, 0, 32), field(0, 6, 0, 32), field(0, 7, 0, 32)],
    barrier_id: field(0, 2, 24, 7),
    common: &POINTERS,
    curbe_start: 1,
};

/// Gen11's media thread payload (MEDIA_OBJECT_WALKER): R0.1 11:0 the thread's X, 23:12
/// its Y and 31:24 its colour (Intel's graphics compiler reads them so from Ice Lake on,
/// `visa/BuildIRImpl.cpp` expandPredefinedVars with `useNewR0Format`; iHD's Gen11 VP
/// kernels take X as `r0.1 & 0xFFF` and Y as `>> 12`), the pointers as the compute
/// payload's, the CURBE from R1 (iHD's `MEDIA_OBJECT_KA2_STATIC_DATA` "GRF R1.0"), the
/// inline data after it.
pub(crate) static MEDIA: MediaPayload = MediaPayload {
    position: [field(0, 1, 0, 12), field(0, 1, 12, 12)],
    color: field(0, 1, 24, 8),
    common: &POINTERS,
    curbe_start: 1,
};

/// Gen11's 3D payloads. The VS (SIMD8): R0 the header (R0.5 scratch pointer and FFTID,
/// R0.3/R0.4 sampler state and binding table pointers, as the compute payload's), R1
/// the eight URB return handles (Mesa brw_fs setup_vs_payload: "R0: thread header, R1:
/// urb handles"). The PS keeps the Gen6+ layout Mesa's Gen8-11 compiler reads
/// (brw_fs.cpp setup_fs_payload_gfx6 and the pixel X/Y, sample mask and front-facing
/// code): R0.0 primitive topology 4:0, Starting Sample Pair Index 7:6, oMask to render
/// target 12, source depth to render target 13, back facing 15, Render Target Array
/// Index 26:16; R1.0 15:0 a per-sample dispatch's sample numbers, four bits per subspan
/// (Mesa emit_sampleid_setup for Gen8+); R1.2-R1.5 the subspans' upper-left x 15:0 and y 31:16; R1.7 pixel mask
/// 15:0 and dispatch mask 31:16 (R2 for the second 16 pixels of a 32-pixel dispatch).
/// The SIMD8 GS's R1 output handles and R2 PrimitiveIDs (Mesa setup_gs_payload); the
/// SINGLE_PATCH HS's R0.0 patch URB handle, R0.1 PrimitiveID, R0.2 22:16 instance (as
/// seed 004 §4.6.1 has it for Gen7; Mesa's TCS reads gl_InvocationID so "22:16 on
/// gfx11+", and iris's Ice Lake TCS ANDs R0.2 with 0x007f0000) and 30:24 barrier ID, R1
/// on its ICP handles (Mesa tcs_thread_payload, emit_barrier); the
/// SIMD8_SINGLE_PATCH DS's R0.0 patch handle, R0.1 PrimitiveID, R1-R3 U, V, W and R4
/// output handles (Mesa tes_thread_payload). The SIMD4x2 GS fields are never written.
pub(crate) static DRAW: PayloadLayout = PayloadLayout {
    urb_handles: [field(0, 0, 0, 16), field(0, 1, 0, 16)],
    simd8_urb_handles: field(1, 0, 0, 32),
    // Mesa brw_fs setup_gs_payload: R2 the PrimitiveIDs, then the ICP handles.
    simd8_gs_primitive_ids: field(2, 0, 0, 32),
    pointers: POINTERS,
    gs_instance_ids: [field(0, 0, 27, 5), field(0, 1, 27, 5)],
    gs_topology: field(0, 2, 16, 6),
    gs_hint: field(0, 2, 22, 1),
    gs_primitive_ids: [field(1, 0, 0, 32), field(1, 4, 0, 32)],
    hs_patch_handle: field(0, 0, 0, 32),
    hs_primitive_id: field(0, 1, 0, 32),
    hs_instance: field(0, 2, 16, 7),
    hs_barrier: field(0, 2, 24, 7),
    hs_icp_handle: field(1, 0, 0, 32),
    ds_domain_point: [field(1, 0, 0, 32), field(2, 0, 0, 32), field(3, 0, 0, 32)],
    ds_point_stride: 1,
    ds_patch_handle: field(0, 0, 0, 32),
    // Mesa brw_fs tes_thread_payload: R1-R3 U, V, W; R4 the output URB handles.
    simd8_ds_urb_handles: field(4, 0, 0, 32),
    ds_primitive_id: field(0, 1, 0, 32),
    topology: field(0, 0, 0, 5),
    back_facing: field(0, 0, 15, 1),
    rt_array_index: field(0, 0, 16, 11),
    source_depth_to_rt: field(0, 0, 13, 1),
    omask_to_rt: field(0, 0, 12, 1),
    // Seed 003 MHC_RT_C0 9:6 Starting Sample Pair Index (U4, 0-7: 16 samples have 8
    // pairs).
    starting_sample_pair: field(0, 0, 6, 4),
    sample_ids: field(1, 0, 0, 16),
    coarse_size: field(1, 0, 0, 16),
    subspan_x: field(1, 2, 0, 16),
    subspan_y: field(1, 2, 16, 16),
    pixel_mask: field(1, 7, 0, 16),
    dispatch_mask: field(1, 7, 16, 16),
};
