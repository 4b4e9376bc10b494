//! The vertex fetcher's and the vertex shader's state (seed 004 ch.2-3).

use super::{KernelPointer, StageResources};
use crate::index::IndexBuffer;
use crate::vf::VertexBuffer;
use gtsim_spec::shared::{SurfaceFormat, ThreeDPrimTopoType, ThreeDVertexComponentControl};

/// The counts of one draw (seed 004 §2.5.1), wherever the front took them from (the
/// command, indirect parameter registers, or a vertex buffer's end offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DrawCounts {
    /// Vertices per instance.
    pub vertex_count: u32,
    /// The first vertex (SEQUENTIAL) or index (RANDOM).
    pub start_vertex: u32,
    /// Instances.
    pub instance_count: u32,
    /// The first instance.
    pub start_instance: u32,
    /// Added to each index (RANDOM).
    pub base_vertex: i32,
}

/// One vertex element (seed 004 §2.4 VERTEX_ELEMENT_STATE): where its data comes from
/// and how its four components are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexElement {
    /// The vertex buffer it reads.
    pub buffer: usize,
    /// Valid: an invalid element still stores its components' controls (no source).
    pub valid: bool,
    /// Source Element Format.
    pub format: SurfaceFormat,
    /// Source Element Offset in bytes.
    pub offset: u32,
    /// Component 0-3 Control.
    pub components: [ThreeDVertexComponentControl; 4],
    /// Edge Flag Enable: component 0 is the vertex's EdgeFlag, which travels with the
    /// vertex rather than in its VUE (seed 004 VERTEX_ELEMENT_STATE).
    pub edge_flag: bool,
}

/// The vertex fetcher (seed 004 ch.2).
#[derive(Debug, Clone)]
pub struct VertexFetch {
    /// The primitive topology.
    pub topology: ThreeDPrimTopoType,
    /// The counts.
    pub counts: DrawCounts,
    /// RANDOM access: the index buffer; SEQUENTIAL: `None`.
    pub index_buffer: Option<IndexBuffer>,
    /// Vertex buffers by index (`None`: not bound or null).
    pub vertex_buffers: Vec<Option<VertexBuffer>>,
    /// The vertex elements, in VUE order.
    pub elements: Vec<VertexElement>,
    /// IA_VERTICES_COUNT and IA_PRIMITIVES_COUNT count this draw.
    pub statistics: bool,
    /// Per-draw values stored into every vertex after its elements, as (element,
    /// component, dword): Gen11's 3DSTATE_VF_SGVS_2 XP0-XP2 system values.
    pub draw_values: Vec<(usize, usize, u32)>,
}

/// The vertex shader (seed 004 ch.3).
#[derive(Debug, Clone, Default)]
pub struct VertexShader {
    /// The kernel; `None` when the VS function is disabled (VUEs pass through).
    pub kernel: Option<KernelPointer>,
    /// SIMD8 dispatch (Gen8+ 3DSTATE_VS SIMD8 Dispatch Enable): eight vertices a thread,
    /// each vertex attribute component a register; otherwise SIMD4x2, two vertices a
    /// thread interleaved in each register.
    pub simd8: bool,
    /// VS_INVOCATION_COUNT counts this draw's threads.
    pub statistics: bool,
    /// The ALT floating-point mode (otherwise IEEE-754).
    pub alt_float_mode: bool,
    /// The stage's scratch space (R0.3 and R0.5 of the payload).
    pub scratch: super::Scratch,
    /// The first payload register of the URB data (push constants, then vertex data).
    pub urb_data_start: usize,
    /// The first VUE slot read into the payload.
    pub first_slot: usize,
    /// VUE slots read into the payload.
    pub slots: usize,
    /// Binding table, samplers and push constants.
    pub resources: StageResources,
}
