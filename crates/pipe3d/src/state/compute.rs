//! The neutral state of one GPGPU walker: the thread groups to run, the threads of a
//! group, their kernel, payload constants, shared local memory and barrier (the GPGPU
//! pipeline of IVB PRM Vol2 Part2, which the seeds do not describe; its commands are in
//! `defs/gen7/media.spec` with their public sources).

use super::{KernelPointer, Scratch, StageResources};

/// One GPGPU_WALKER, as a generation's front decodes it.
#[derive(Debug, Clone)]
pub struct ComputeDispatch {
    /// The kernel (Interface Descriptor Kernel Start Pointer).
    pub kernel: KernelPointer,
    /// The kernels' instruction encoding.
    pub encoding: gtsim_isa::Encoding,
    /// Channels per thread: 8, 16 or 32 (SIMD Size).
    pub simd: usize,
    /// Threads of a group along the walker's width, height and depth (Thread Width,
    /// Height and Depth Counter Maximum + 1).
    pub threads: [u32; 3],
    /// The thread group IDs walked: from the start to the end (exclusive) in X, Y
    /// and Z, X fastest.
    pub groups: [std::ops::Range<u32>; 3],
    /// The execution mask of the last thread of each row (Right Execution Mask).
    pub right_mask: u32,
    /// The execution mask of the threads of the last row (Bottom Execution Mask).
    pub bottom_mask: u32,
    /// The constant registers (CURBE) the walker's threads read their payload from.
    pub curbe: Vec<[u8; 32]>,
    /// Registers of CURBE each thread gets (Constant URB Entry Read Length), thread t
    /// of a group reading from register `curbe_offset + cross_thread + t × curbe_read`.
    pub curbe_read: usize,
    /// Registers of CURBE every thread of a group gets before its own (Gen8+
    /// Cross-Thread Constant Data Read Length; 0 on Gen7): the CURBE's first rows, which
    /// the per-thread blocks follow.
    pub cross_thread: usize,
    /// The first CURBE register read (Constant URB Entry Read Offset).
    pub curbe_offset: usize,
    /// Shared local memory per group, in bytes.
    pub slm_bytes: usize,
    /// Threads that take part in the group's barrier (Barrier Enable and Number of
    /// Threads in GPGPU Thread Group); `None` without a barrier.
    pub barrier: Option<u32>,
    /// Binding table and sampler state pointers (`constants` unused).
    pub resources: StageResources,
    /// Scratch space.
    pub scratch: Scratch,
    /// The ALT floating-point mode.
    pub alt_float_mode: bool,
    /// Where the generation puts the payload's header fields.
    pub payload: &'static ComputePayload,
}

/// Where a generation's GPGPU thread payload puts its header fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputePayload {
    /// The thread group IDs X, Y and Z.
    pub group_id: [super::PayloadField; 3],
    /// The barrier ID of the thread's group.
    pub barrier_id: super::PayloadField,
    /// The common header fields (pointers, scratch).
    pub common: &'static super::PointerFields,
    /// The first register of the constants (CURBE) in the payload.
    pub curbe_start: usize,
}

impl ComputeDispatch {
    /// Threads per group.
    pub fn threads_per_group(&self) -> u32 {
        self.threads.iter().product()
    }

    /// The channels a group runs: every thread's execution mask counted (the compute
    /// shader invocations of one group).
    pub fn invocations_per_group(&self) -> u64 {
        let mut n = 0u64;
        for h in 0..self.threads[1] {
            for w in 0..self.threads[0] {
                n += u64::from(self.execution_mask(w, h).count_ones());
            }
        }
        n * u64::from(self.threads[2])
    }

    /// The execution mask of thread `(w, h)` of a group: all `simd` channels, ANDed
    /// with the Right Execution Mask for the last thread of a row and the Bottom
    /// Execution Mask for the last row.
    pub fn execution_mask(&self, w: u32, h: u32) -> u32 {
        let mut m = if self.simd >= 32 {
            u32::MAX
        } else {
            (1u32 << self.simd) - 1
        };
        if w + 1 == self.threads[0] {
            m &= self.right_mask;
        }
        if h + 1 == self.threads[1] {
            m &= self.bottom_mask;
        }
        m
    }
}
