//! The tessellation stages' state (seed 004 ch.4-6): the hull shader, the tessellation
//! engine and the domain shader, enabled together.

use super::{KernelPointer, StageResources};

/// The HS, TE and DS of a draw with tessellation.
#[derive(Debug, Clone)]
pub struct Tessellation {
    /// The hull shader (ch.4).
    pub hs: HullShader,
    /// The tessellation engine (ch.5).
    pub te: Tessellator,
    /// The domain shader (ch.6).
    pub ds: DomainShader,
}

/// The hull shader (seed 004 §4.4 3DSTATE_HS).
#[derive(Debug, Clone)]
pub struct HullShader {
    /// The kernel.
    pub kernel: KernelPointer,
    /// Threads per patch (Instance Count + 1), each with its Instance Number.
    pub instances: u32,
    /// HS_INVOCATION_COUNT counts this draw's patches.
    pub statistics: bool,
    /// The ALT floating-point mode (otherwise IEEE-754).
    pub alt_float_mode: bool,
    /// The stage's scratch space (R0.3 and R0.5 of the payload).
    pub scratch: super::Scratch,
    /// The first payload register of the URB data (push constants, then ICP data).
    pub urb_data_start: usize,
    /// The first VUE slot of each ICP pushed into the payload.
    pub first_slot: usize,
    /// VUE slots of each ICP pushed into the payload.
    pub slots: usize,
    /// The ICPs' URB handles in the payload (R1 on), for URB reads.
    pub include_vertex_handles: bool,
    /// Binding table, samplers and push constants.
    pub resources: StageResources,
}

/// The domain the TE tessellates (3DSTATE_TE Domain).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TessDomain {
    /// The (u, v) unit square.
    Quad,
    /// The (u, v, w) triangle.
    Tri,
    /// Lines of constant v across the unit square.
    Isoline,
}

/// How edges are divided (3DSTATE_TE Partitioning, §5.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partitioning {
    /// Into an integer number of equal segments.
    Integer,
    /// Into an odd number of possibly unequal segments.
    OddFractional,
    /// Into an even number of possibly unequal segments.
    EvenFractional,
}

/// What the TE outputs (3DSTATE_TE Output Topology).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TessOutput {
    /// Points.
    Point,
    /// Line strips (isolines only).
    Line,
    /// Clockwise triangles.
    TriCw,
    /// Counter-clockwise triangles.
    TriCcw,
}

/// The tessellation engine (seed 004 §5.1 3DSTATE_TE).
#[derive(Debug, Clone, Copy)]
pub struct Tessellator {
    /// The domain.
    pub domain: TessDomain,
    /// The partitioning.
    pub partitioning: Partitioning,
    /// The output topology.
    pub output: TessOutput,
    /// Max TessFactor Odd (ODD_FRACTIONAL).
    pub max_odd: f32,
    /// Max TessFactor Not Odd (INTEGER, EVEN_FRACTIONAL).
    pub max_not_odd: f32,
}

/// The domain shader (seed 004 §6.1 3DSTATE_DS).
#[derive(Debug, Clone)]
pub struct DomainShader {
    /// The kernel.
    pub kernel: KernelPointer,
    /// One domain point per thread (otherwise two, SIMD4x2).
    pub single_point: bool,
    /// Gen8+ SIMD8_SINGLE_PATCH: eight domain points of one patch a thread, U, V and W
    /// each a register (`PayloadLayout::ds_domain_point` with a point stride of 1) and
    /// the points' output URB handles in `PayloadLayout::simd8_ds_urb_handles`.
    pub simd8: bool,
    /// DS_INVOCATION_COUNT counts this draw's domain points.
    pub statistics: bool,
    /// The ALT floating-point mode (otherwise IEEE-754).
    pub alt_float_mode: bool,
    /// The stage's scratch space (R0.3 and R0.5 of the payload).
    pub scratch: super::Scratch,
    /// The first payload register of the URB data (push constants, then patch data).
    pub urb_data_start: usize,
    /// The first slot of the patch record pushed into the payload.
    pub first_slot: usize,
    /// Slots of the patch record pushed into the payload.
    pub slots: usize,
    /// The payload's W coordinates are 1 - U - V (otherwise 0.0).
    pub compute_w: bool,
    /// Binding table, samplers and push constants.
    pub resources: StageResources,
}
