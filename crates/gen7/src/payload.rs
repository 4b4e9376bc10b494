//! Where Gen7's thread payloads put their header fields: the VS payload's R0 (seed 004
//! §3.3, "Thread Payload": URB return handles in R0.0/R0.1, scratch space and sampler
//! state pointer in R0.3, binding table pointer in R0.4) and the PS payload's R0 and R1
//! (seed 004 §11.10.3.1: R0.0 primitive topology 4:0, Starting Sample Pair Index 7:6,
//! oMask to render target 12, source depth to render target 13,
//! front/back facing 15; R0.3 sampler state pointer 31:5; R0.4 binding table pointer
//! 31:5; R1.2-R1.5 the subspans' upper-left x 15:0 and y 31:16; R1.7 pixel mask 15:0
//! and dispatch mask 31:16, R2 likewise for the second 16 pixels of a 32-pixel
//! dispatch), and the GS payload's R0 and R1 (seed 004 §7.4.3: R0.0/R0.1 GS Instance ID
//! 31:27 and URB Return Handle 15:0, R0.2 Hint 22 and Primitive Topology Type 21:16,
//! R0.3-R0.4 as the VS's; R1.0/R1.4 Primitive ID 0/1), the HS payload (seed 004 §4.6.1:
//! R0.0 Patch Data Record URB Return Handle 15:0, R0.1 Primitive ID, R0.2 Instance
//! Number 22:16 and Barrier Index 15:12, R1 on the ICP handles) and the DS payload
//! (seed 004 §6.2 SIMD4x2: R0.0/R0.1 URB Return Handles, R1.0-R1.2 domain point 0's
//! U, V, W, R1.3 Patch URB Handle 13:0, R1.4-R1.6 point 1's, R1.7 PrimitiveID).

use gtsim_pipe3d::state::{PayloadField, PayloadLayout, PointerFields};

const fn field(reg: usize, dword: usize, shift: u32, bits: u32) -> PayloadField {
    PayloadField {
        reg,
        dword,
        shift,
        bits,
    }
}

/// Gen7's scratch and state pointer fields, every stage's.
pub(crate) static POINTERS: PointerFields = PointerFields {
    scratch_space: field(0, 3, 0, 4),
    // Seed 004 §3.3 (VS R0.5), §11.10.3.1 (PS R0.5): Scratch Space Pointer 31:10,
    // FFTID 7:0.
    scratch_pointer: field(0, 5, 10, 22),
    fftid: field(0, 5, 0, 8),
    sampler_state: field(0, 3, 5, 27),
    binding_table: field(0, 4, 5, 27),
};

/// The Gen7 layout.
pub(crate) static PAYLOAD: PayloadLayout = PayloadLayout {
    urb_handles: [field(0, 0, 0, 16), field(0, 1, 0, 16)],
    // Gen7 has no SIMD8 VS (its VS is SIMD4x2, seed 004 §3.3); never written.
    simd8_urb_handles: field(1, 0, 0, 32),
    // Gen7 has no SIMD8 GS; never written.
    simd8_gs_primitive_ids: field(2, 0, 0, 32),
    pointers: POINTERS,
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
    // Gen7 has no SIMD8 DS; never written.
    simd8_ds_urb_handles: field(4, 0, 0, 32),
    ds_primitive_id: field(1, 7, 0, 32),
    topology: field(0, 0, 0, 5),
    back_facing: field(0, 0, 15, 1),
    // Seed 004 §11.10.3.1 PS payload R0.0 26:16 Render Target Array Index.
    rt_array_index: field(0, 0, 16, 11),
    source_depth_to_rt: field(0, 0, 13, 1),
    // R0.0 12 oMask to Render Target, 7:6 Starting Sample Pair Index.
    omask_to_rt: field(0, 0, 12, 1),
    starting_sample_pair: field(0, 0, 6, 2),
    // Gen7 passes the Starting Sample Pair Index instead.
    sample_ids: field(0, 0, 0, 0),
    coarse_size: field(0, 0, 0, 0),
    subspan_x: field(1, 2, 0, 16),
    subspan_y: field(1, 2, 16, 16),
    pixel_mask: field(1, 7, 0, 16),
    dispatch_mask: field(1, 7, 16, 16),
};
