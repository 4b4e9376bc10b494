//! The generation-neutral state of the 3D pipeline: what each unit is set up to do, in
//! meaning, not in bits.
//!
//! A generation's front (the Ivy Bridge front for Gen7) decodes the commands the
//! command streamer latched, and the indirect state they point to, into these types; the
//! stages in [`crate::draw`] read nothing else. Adding a generation means adding a
//! front that fills them, not touching the stages. The enumerations that every
//! generation encodes alike (topologies, surface formats, compare functions, blend
//! factors, ...) are the shared ones of `gtsim_spec::shared`.
//!
//! One [`DrawState`] is built per draw ([`Front::draw_state`]). What the stages read
//! lazily, one render target or sampler at a time, the front resolves on request
//! ([`Front::render_target`], [`Front::sample`]), so that state a draw never
//! touches is never read (nor can it fault).

mod compute;
mod front;
mod geometry;
mod interpolator;
mod media;
mod payload;
mod pixel;
mod setup;
mod stream_out;
mod tessellation;
mod vertex;

pub use compute::{ComputeDispatch, ComputePayload};
pub use front::{Front, MessageKind, Registers, ShaderStage};
pub use geometry::{ControlData, GeometryShader, GsDispatch, GsVertexCount};
pub use interpolator::{PiLocation, PiMessage};
pub use media::{MediaPayload, MediaThread};
pub use payload::{PayloadField, PayloadLayout, PointerFields};
pub use pixel::{
    AttributeSetup, AttributeSwizzle, CoarseShading, ConstantSource, PixelShader, PositionOffset,
    PsKernel, SwizzleSelect,
};
pub use setup::{
    ClipMode, ClipState, DrawingRectangle, FillMode, LineStipple, Multisample, PolygonStipple,
    SetupState, ViewportSet,
};
pub use stream_out::{SoBuffer, SoDecl, SoFunction, SoStream, StreamOutput};
pub use tessellation::{
    DomainShader, HullShader, Partitioning, TessDomain, TessOutput, Tessellation, Tessellator,
};
pub use vertex::{DrawCounts, VertexElement, VertexFetch, VertexShader};

use crate::draw::{DepthBuffer, DrawError};

/// A kernel's graphics address, with the upper bound its fetch must stay below (the
/// Instruction Access Upper Bound of Gen7's STATE_BASE_ADDRESS; 0: unchecked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelPointer {
    /// Graphics address of the first instruction.
    pub address: u64,
    /// Exclusive upper bound of instruction fetches; 0 disables the check.
    pub bound: u64,
}

impl KernelPointer {
    /// The address, after checking that the kernel's first instruction lies below the
    /// bound. The seeds do not say what a fetch past the bound returns, so the model
    /// stops with a hang naming the bound rather than guess.
    pub fn checked(&self, what: &'static str) -> Result<u64, DrawError> {
        check_bound(
            what,
            "Instruction Access Upper Bound",
            self.address,
            16,
            self.bound,
        )?;
        Ok(self.address)
    }
}

/// Checks that `len` bytes at `addr` stay below `bound` (exclusive; 0: unchecked).
pub fn check_bound(
    what: &'static str,
    bound_name: &'static str,
    addr: u64,
    len: u64,
    bound: u64,
) -> Result<(), DrawError> {
    if bound != 0 && addr.saturating_add(len) > bound {
        return Err(DrawError::State {
            command: "STATE_BASE_ADDRESS",
            why: format!(
                "{what} at {addr:#x} ({len} bytes) reaches past the {bound_name} {bound:#x}"
            ),
        });
    }
    Ok(())
}

/// Reads `dwords` dwords of indirect state `name` at graphics address `addr` and unpacks
/// them with the generation's generated `unpack`: a fault or a structure that does not
/// decode is a [`DrawError`] naming the structure. Every front reads its indirect state
/// through this.
pub fn read_indirect<T>(
    mem: &dyn gtsim_mem::Memory,
    name: &'static str,
    addr: u64,
    dwords: usize,
    unpack: fn(&[u32]) -> Result<T, gtsim_spec::UnpackError>,
) -> Result<T, DrawError> {
    let dw = mem
        .read_dwords(addr, dwords)
        .map_err(|fault| DrawError::Fault { unit: name, fault })?;
    unpack(&dw).map_err(|e| DrawError::State {
        command: name,
        why: e.to_string(),
    })
}

/// The constants (CURBE) MEDIA_CURBE_LOAD loads: `len` bytes at graphics address `addr`,
/// as 32-byte registers, the last one padded with zeros.
pub fn read_curbe(
    mem: &dyn gtsim_mem::Memory,
    addr: u64,
    len: usize,
) -> Result<Vec<[u8; 32]>, DrawError> {
    let mut bytes = vec![0u8; len];
    if len > 0 {
        mem.read(addr, &mut bytes)
            .map_err(|fault| DrawError::Fault {
                unit: "MEDIA_CURBE_LOAD",
                fault,
            })?;
    }
    Ok(bytes
        .chunks(32)
        .map(|c| {
            let mut r = [0u8; 32];
            r[..c.len()].copy_from_slice(c);
            r
        })
        .collect())
}

/// A stage's scratch space (seed 004 §1.6 and each stage's state: Scratch Space Base
/// Pointer, a 1 KiB-aligned offset from General State Base Address, and Per-Thread
/// Scratch Space, 2^n KiB per thread), which the data port's stateless messages reach
/// through the thread's R0.5 (seed 000 §3.2.2, §3.9.10).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scratch {
    /// Scratch Space Base Pointer (bytes from General State Base Address).
    pub base: u64,
    /// Per-Thread Scratch Space, as R0.3 3:0 carries it.
    pub per_thread: u32,
    /// The bytes of one thread's region (the field decoded by the generation).
    pub bytes_per_thread: u64,
}

/// A shader stage's push constants and the pointers its thread payload carries.
#[derive(Debug, Clone, Default)]
pub struct StageResources {
    /// Binding table pointer, as the thread payload's R0 carries it.
    pub binding_table: u64,
    /// Sampler state pointer, as the thread payload's R0 carries it.
    pub sampler_state: u64,
    /// Push constant registers, in order of the constant buffers.
    pub constants: Vec<[u8; 32]>,
}

/// Everything one draw reads, decoded once by the front.
#[derive(Debug, Clone)]
pub struct DrawState {
    /// How the generation encodes the kernels the draw runs.
    pub encoding: gtsim_isa::Encoding,
    /// Where the generation's thread payloads put their header fields.
    pub payload: &'static PayloadLayout,
    /// The vertex fetcher: topology, counts, index and vertex buffers, elements.
    pub vf: VertexFetch,
    /// The vertex shader.
    pub vs: VertexShader,
    /// The HS, TE and DS; `None` when they are disabled.
    pub tess: Option<Tessellation>,
    /// The geometry shader; `None` when the GS stage is disabled (vertices pass
    /// through).
    pub gs: Option<GeometryShader>,
    /// What the stream output logic passes down the pipeline.
    pub sol: StreamOutput,
    /// The clipper.
    pub clip: ClipState,
    /// Strips and fans, the viewport transform, culling and rasterization controls.
    pub setup: SetupState,
    /// Attribute setup for the pixel shader (which VUE slots, swizzles, sprites).
    pub attributes: AttributeSetup,
    /// The windower and pixel shader.
    pub ps: PixelShader,
    /// The depth and stencil buffers and tests; `None` for a null depth buffer (every
    /// test passes, nothing is written).
    pub depth: Option<DepthBuffer>,
    /// Samples per pixel and where pixels are sampled.
    pub multisample: Multisample,
    /// The viewport array entries 1 to 3DSTATE_CLIP's Maximum VPIndex, for objects whose
    /// VUE header selects them (entry 0 is in `setup` and `clip`); empty when the
    /// maximum is 0.
    pub viewports: Vec<ViewportSet>,
}

impl DrawState {
    /// This state with viewport array entry `index` (1-based into [`Self::viewports`])
    /// in place of entry 0: its transform, scissor rectangle and guard band.
    pub fn with_viewport(&self, index: usize) -> Option<DrawState> {
        let v = self.viewports.get(index.checked_sub(1)?)?;
        let mut st = self.clone();
        st.setup.viewport = v.viewport;
        st.setup.scissor = v.scissor;
        st.clip.test.gb = v.guardband;
        st.viewports = vec![];
        Some(st)
    }

    /// The topology of the primitives the clipper and the SF receive: the GS's output
    /// topology when it is enabled, otherwise the draw's.
    pub fn rasterized_topology(&self) -> gtsim_spec::shared::ThreeDPrimTopoType {
        self.gs
            .as_ref()
            .map_or(self.vf.topology, |g| g.output_topology)
    }
}
