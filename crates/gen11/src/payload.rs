//! Where Gen11's compute thread payload puts its header fields (the facts Mesa's Gen8-11
//! compiler reads, brw_fs_generator.cpp generate_scratch_header and
//! fs_visitor::emit_barrier, brw_fs.cpp emit_work_group_id_setup): R0.1, R0.6 and R0.7
//! the thread group IDs X, Y and Z; R0.2 30:24 the barrier ID; R0.3 3:0 the per-thread
//! scratch space, R0.5 31:10 the scratch space pointer and 9:0 the FFTID; R0.3 31:5 and
//! R0.4 31:5 the sampler state and binding table pointers; the CURBE from R1
//! (brw_cs setup_cs_payload: a one-register payload). The 3D stages' payloads come with
//! the Gen11 draw front.

use gtsim_pipe3d::state::{ComputePayload, PayloadField, PointerFields};

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
