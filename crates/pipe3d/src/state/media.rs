//! The neutral state of one media thread: a MEDIA_OBJECT's kernel and payload (the media
//! pipeline of IVB PRM Vol2 Part2, which the seeds do not describe; the commands are in
//! `defs/gen7/media.spec` with their public sources, the payload order below from the
//! kernels that read it).

use super::{KernelPointer, PayloadField, Scratch, StageResources};

/// One MEDIA_OBJECT's thread, as a generation's front decodes it.
///
/// Its payload: R0 (the common pointers, scratch and FFTID, and the object's X, Y and
/// colour), then the CURBE rows every media thread of the kernel receives alike (from
/// the interface descriptor's Constant URB Entry Read Offset, for its Read Length), then
/// the object's inline data, one dword after another. That order is what Intel's VA
/// driver's post-processing kernels (CURBE in R1-R8, inline data from R9), its encoder
/// kernels (R1-R4, R5) and Linux i915's Ivy Bridge clear kernel (no CURBE, inline data
/// in R1) read.
#[derive(Debug, Clone)]
pub struct MediaThread {
    /// The kernel (Interface Descriptor Kernel Start Pointer).
    pub kernel: KernelPointer,
    /// The kernel's instruction encoding.
    pub encoding: gtsim_isa::Encoding,
    /// The CURBE rows the thread receives, from register `payload.curbe_start`.
    pub curbe: Vec<[u8; 32]>,
    /// The object's inline data, after the CURBE rows.
    pub inline: Vec<u32>,
    /// The object's position (Scoreboard X and Y) and colour (Scoreboard Color).
    pub position: [u32; 2],
    /// Scoreboard Color.
    pub color: u32,
    /// Binding table and sampler state pointers (`constants` unused).
    pub resources: StageResources,
    /// Scratch space.
    pub scratch: Scratch,
    /// The ALT floating-point mode.
    pub alt_float_mode: bool,
    /// The interface descriptor's Illegal Opcode Exception Enable (loaded into cr0.1 12,
    /// `gtsim_eu::exec::Thread::illegal_opcode_exception`).
    pub illegal_opcode_exception: bool,
    /// Where the generation puts the payload's header fields.
    pub payload: &'static MediaPayload,
}

/// Where a generation's media thread payload puts its header fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MediaPayload {
    /// The object's X and Y.
    pub position: [PayloadField; 2],
    /// Its colour.
    pub color: PayloadField,
    /// The common header fields (pointers, scratch, FFTID).
    pub common: &'static super::PointerFields,
    /// The first register of the CURBE rows.
    pub curbe_start: usize,
}
