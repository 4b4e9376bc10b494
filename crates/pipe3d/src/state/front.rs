//! The interface between the generation-neutral pipeline and a generation's front.

use super::{ComputeDispatch, DrawState, MediaThread};
use crate::draw::{DrawError, RenderTarget};
use gtsim_eu::exec::{Message, MessageError, Response};
use gtsim_mem::Memory;
use gtsim_spec::Unsupported;

/// The shader stage a message comes from (each has its own binding table and samplers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShaderStage {
    /// The vertex shader.
    Vertex,
    /// The hull shader.
    Hull,
    /// The domain shader.
    Domain,
    /// The geometry shader.
    Geometry,
    /// The pixel shader.
    Pixel,
    /// A GPGPU (compute) thread.
    Compute,
}

/// What a `send` asks for, decoded once by the front from its SFID and descriptor.
#[derive(Debug, Clone, PartialEq)]
pub enum MessageKind {
    /// The null shared function: the response is zeros.
    Null,
    /// A sampling-engine message, carried out by [`Front::sample`].
    Sampler,
    /// A URB write of interleaved SIMD4x2 data, its header (URB handles, channel mask)
    /// decoded.
    UrbWrite(gtsim_dataport::urb::UrbWrite),
    /// A URB read of interleaved SIMD4x2 data, its header (URB handles, offsets)
    /// decoded.
    UrbRead(gtsim_dataport::urb::UrbRead),
    /// A Gen8+ SIMD8 URB write: one handle, offset and channel mask per execution
    /// channel; `data_start` is the first payload register after the handles, offsets
    /// and masks.
    UrbWriteSimd8 {
        /// The decoded handles, offsets and masks.
        write: gtsim_dataport::urb::Simd8Write,
        /// Payload registers before the data.
        data_start: usize,
    },
    /// A Gen8+ SIMD8 URB read.
    UrbReadSimd8(gtsim_dataport::urb::Simd8Read),
    /// A barrier message to the message gateway: this thread has arrived at barrier
    /// `id`, which `count` threads join (when the header enables the count).
    Barrier {
        /// Barrier ID.
        id: u32,
        /// Barrier Count, when Barrier Count Enable is set.
        count: Option<u32>,
    },
    /// A render target write through the render cache, its descriptor and header
    /// decoded.
    RenderTargetWrite(gtsim_dataport::rt_message::RtWrite),
    /// A render target read through the render cache (Gen9+), decoded.
    RenderTargetRead(gtsim_dataport::rt_message::RtRead),
    /// A data port memory message (seed 000 §3.9.3-§3.9.10), its descriptor decoded.
    DataPort(gtsim_dataport::dc::DataMessage),
    /// A pixel interpolator message (SFID 11), decoded ([`super::PiMessage`]).
    PixelInterpolator(super::PiMessage),
    /// A message of a modelled shared function in a form not modelled yet.
    Unsupported(Unsupported),
    /// A descriptor that does not decode, or a message that breaks its rules.
    Invalid(MessageError),
    /// A message to a shared function this stage's model does not reach.
    Other {
        /// The shared function.
        sfid: gtsim_isa::ir::Sfid,
    },
}

/// The MMIO registers a draw or walker reads (3DPRIM_*, GPGPU_DISPATCHDIM*, GT_MODE).
pub trait Registers: Sync {
    /// An MMIO register's value.
    fn register(&self, offset: u32) -> u32;
}

/// A generation's front as a draw sees it: the latched state decoded into neutral
/// state, and the state a draw resolves lazily.
pub trait Front: Sync {
    /// The state of the draw the front was made for, or `None` when it draws nothing
    /// (zero vertices or instances: the hardware then reads no state).
    fn draw_state(&self, mem: &dyn Memory) -> Result<Option<DrawState>, DrawError>;

    /// The GPGPU walker the front was made for (a front of a 3D primitive has none).
    fn compute_state(&self, _mem: &dyn Memory) -> Result<Option<ComputeDispatch>, DrawError> {
        Ok(None)
    }

    /// The MEDIA_OBJECT thread the front was made for (other fronts have none). Its
    /// messages go through the `Compute` stage's tables: the interface descriptor's.
    fn media_object(&self, _mem: &dyn Memory) -> Result<Option<MediaThread>, DrawError> {
        Ok(None)
    }

    /// The render target at binding table entry `bti` of the pixel shader, blended by
    /// blend state entry `rti`; `None` for a null surface (writes are dropped).
    fn render_target(
        &self,
        mem: &dyn Memory,
        bti: u8,
        rti: u8,
    ) -> Result<Option<RenderTarget>, DrawError>;

    /// The render target a write to the Null Render Target uses (seed 003 Extended
    /// Message Descriptor Render Target: no surface; its colour calculator state from
    /// blend state entry `rti`). By default the render target of binding table entry 0
    /// with a null surface, for fronts whose generation has no such write.
    fn null_render_target(
        &self,
        mem: &dyn Memory,
        rti: u8,
    ) -> Result<Option<RenderTarget>, DrawError> {
        Ok(self.render_target(mem, 0, rti)?.map(|mut t| {
            t.surface = RenderTarget::null_surface();
            t
        }))
    }

    /// What message `m` is.
    fn message(&self, m: &Message) -> MessageKind;

    /// The surface binding table entry `bti` of a `stage` thread names, as the data
    /// port sees it (seed 000 §3.2.1); `ex_desc` is the message's extended descriptor,
    /// which names the surface state itself where `bti` says bindless (Gen9+ SSO_BINDLESS,
    /// seed 003; 0 on Gen7, which has none).
    fn data_surface(
        &self,
        stage: ShaderStage,
        mem: &dyn Memory,
        bti: u8,
        ex_desc: u32,
    ) -> Result<gtsim_dataport::dc::DataSurface, MessageError>;

    /// General State Base Address and Access Upper Bound: the stateless model's base
    /// and bound (seed 000 §3.2.2).
    fn general_state(&self) -> gtsim_dataport::dc::GeneralState;

    /// Binding table entry `bti` of a `stage` thread as tools show it: where its
    /// RENDER_SURFACE_STATE lies and its dwords, in the generation's layout; `None`
    /// where the front does not say (the draw itself never asks).
    fn surface_state(
        &self,
        _stage: ShaderStage,
        _mem: &dyn Memory,
        _bti: u8,
    ) -> Option<(u64, Vec<u32>)> {
        None
    }

    /// The COLOR_PROCESSING_STATE at graphics address `address`, for a media block
    /// write that runs the colour processing pipe (seed 000 §3.6.1, §3.8.3).
    fn color_processing(
        &self,
        mem: &dyn Memory,
        address: u64,
    ) -> Result<gtsim_dataport::dc::iecp::ColorProcessing, MessageError>;

    /// Carries out sampler message `m` of a `stage` thread: its response, with the
    /// dwords it writes.
    fn sample(
        &self,
        stage: ShaderStage,
        mem: &dyn Memory,
        m: &Message,
    ) -> Result<Response, MessageError>;
}
