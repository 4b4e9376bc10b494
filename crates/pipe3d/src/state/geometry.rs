//! The geometry shader's state (seed 004 ch.7).

use super::{KernelPointer, StageResources};
use gtsim_spec::shared::ThreeDPrimTopoType;

/// How the GS unit packs objects and instances into threads (seed 004 §7.2.1.1
/// 3DSTATE_GS Dispatch Mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GsDispatch {
    /// One instance of one object per thread.
    Single,
    /// Up to two instances of one object per thread (a trailing single instance when the
    /// instance count is odd).
    DualInstance,
    /// One instance of up to two objects per thread, their vertex data interleaved.
    DualObject,
    /// Gen8+ DISPATCH_MODE_SIMD8: one instance of up to eight objects per thread, a
    /// channel each; every vertex attribute component a register.
    Simd8,
}

/// How a GS thread reports the vertex count of each output entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GsVertexCount {
    /// In the header of its EOT URB write (seed 004 §7.5.3, Gen7's SIMD4x2 GS).
    EotHeader,
    /// In DWord 0 of the entry's first 256-bit row, before the control data header
    /// (Gen8+ SIMD8 GS without Static Output; Mesa brw_fs_visitor.cpp: "Broadwell's
    /// extra Vertex Count payload at the beginning of the URB entry").
    EntryDword,
    /// The state's Static Output Vertex Count (Gen8+ Static Output).
    Static(u32),
}

/// What the control data header at the start of a GS output entry holds (seed 004
/// §7.5.1.1, 3DSTATE_GS Control Data Format).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlData {
    /// One cut bit per output vertex: set, the strip ends after that vertex.
    Cut,
    /// Two StreamID bits per output vertex.
    StreamId,
}

/// The geometry shader (seed 004 ch.7): enabled when a draw has one.
#[derive(Debug, Clone)]
pub struct GeometryShader {
    /// The kernel.
    pub kernel: KernelPointer,
    /// Dispatch mode.
    pub dispatch: GsDispatch,
    /// Instances per input object (Instance Control + 1, 1-32).
    pub instances: u32,
    /// GS_INVOCATION_COUNT's increment per dispatched instance of an object.
    pub invocations_increment: u64,
    /// GS_INVOCATION_COUNT and GS_PRIMITIVES_COUNT count this draw.
    pub statistics: bool,
    /// The ALT floating-point mode (otherwise IEEE-754).
    pub alt_float_mode: bool,
    /// The stage's scratch space (R0.3 and R0.5 of the payload).
    pub scratch: super::Scratch,
    /// The first payload register of the URB data (push constants, then vertex data).
    pub urb_data_start: usize,
    /// The first VUE slot of each vertex read into the payload.
    pub first_slot: usize,
    /// VUE slots of each vertex read into the payload (twice the read length).
    pub slots: usize,
    /// Input vertex URB handles in the payload (the pull model).
    pub include_vertex_handles: bool,
    /// R1 carries the objects' PrimitiveIDs.
    pub include_primitive_id: bool,
    /// 128-bit slots per output vertex (Output Vertex Size + 1).
    pub output_vertex_slots: usize,
    /// The topology of the output vertices.
    pub output_topology: ThreeDPrimTopoType,
    /// What the control data header holds.
    pub control_data: ControlData,
    /// Size of the control data header in 256-bit rows (0-8; 0: none).
    pub control_header_rows: usize,
    /// StreamID of output vertices without StreamID bits.
    pub default_stream: u32,
    /// TRISTRIP[_REV] "odd" objects are reordered (Reorder Enable; always on Gen8+).
    pub reorder: bool,
    /// Reordered objects take the TRAILING order (Gen8+ Reorder Mode,
    /// [`crate::gs_order::Staging::trailing`]); Gen7 has only the LEADING one.
    pub reorder_trailing: bool,
    /// Adjacent vertices are dropped from adjacency topologies (Discard Adjacency).
    pub discard_adjacency: bool,
    /// The Hint bit passed in the payload.
    pub hint: u32,
    /// Where each output entry's vertex count comes from.
    pub vertex_count: GsVertexCount,
    /// Binding table, samplers and push constants.
    pub resources: StageResources,
}
