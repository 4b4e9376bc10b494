//! The data port's memory messages (seed 000 §3.9.3-§3.9.10): block, scattered,
//! untyped and typed surface reads, writes and atomics, scratch blocks and fences, over
//! the three address models of seed 000 §3.2 (a binding table surface, the stateless
//! model and shared local memory).
//!
//! A generation's front decodes a `send`'s descriptor into a [`DataMessage`] (the
//! operation and its address model) and resolves the addressed surface into a
//! [`DataSurface`]; [`execute`] then reads the payload, touches memory and builds the
//! writeback. Nothing here names a generation.
//!
//! The rules every message shares:
//! * out-of-bounds reads return zero and out-of-bounds writes are dropped ("Reads to
//!   areas outside of the surface return 0. Writes to areas outside of the surface are
//!   dropped", §3.9.3 to §3.9.10); a SURFTYPE_NULL surface is out of bounds everywhere;
//! * the stateless model (§3.2.2) addresses General State Base Address + the header's
//!   Immediate Buffer Base Address (M0.5 31:10), bounded only by General State Access
//!   Upper Bound;
//! * shared local memory (§3.2.3) has no bounds check: addresses wrap at 64 KiB;
//! * a page fault inside the bounds is the thread's error, reported like a GPU hang.

mod atomic;
mod block;
pub mod iecp;
mod media;
mod scattered;
mod space;
mod typed;
mod untyped;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_iecp;

pub use atomic::AtomicOp;
pub use space::SLM_BYTES;

use gtsim_mem::Memory;
use gtsim_mem::surface::Surface;
use gtsim_message::{MessageError, Payload, Response};
use gtsim_spec::shared::SurfaceFormat;

/// Where a message's addresses point (seed 000 §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressModel {
    /// The surface state model: binding table entry `n` (§3.2.1).
    Surface(u8),
    /// The stateless model, binding table index 255 (§3.2.2).
    Stateless,
    /// Shared local memory, binding table index 254 on the data cache (§3.2.3).
    Slm,
    /// Gen8+ A64 stateless messages: each slot's 64-bit graphics address in the payload
    /// (seed 003 MT_DP1 "A64 Stateless operations", headerless), unbounded.
    A64,
}

/// What an untyped or typed surface message does with each slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads the enabled channels.
    Read,
    /// Writes the enabled channels.
    Write,
    /// An atomic read-modify-write of the first dword (§3.9.9), returning the
    /// operation's `ret` when `ret` is set (Return Data Control).
    Atomic {
        /// The operation.
        op: AtomicOp,
        /// Whether a writeback returns the old (or, for AOP_PREDEC, new) values.
        ret: bool,
    },
}

/// The slot layout of an untyped message (§3.9.9.10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simd {
    /// Two slots, four channels each, in one register.
    Simd4x2,
    /// Eight slots, one register per parameter.
    Simd8,
    /// Sixteen slots, two registers per parameter.
    Simd16,
}

impl Simd {
    /// Registers per address parameter or data channel.
    pub fn regs_per_param(self) -> usize {
        match self {
            Simd::Simd16 => 2,
            _ => 1,
        }
    }

    /// Slots.
    pub fn slots(self) -> usize {
        match self {
            Simd::Simd4x2 => 2,
            Simd::Simd8 => 8,
            Simd::Simd16 => 16,
        }
    }
}

/// A data port memory message, decoded from its descriptor by the front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataOp {
    /// OWord Block Read/Write (§3.9.3) and Unaligned OWord Block Read (§3.9.4):
    /// `owords` (1, 2, 4 or 8) contiguous OWords at the header's Global Offset (OWords,
    /// or bytes when `unaligned`); a 1-OWord block uses the low or the `high` half of
    /// its register.
    OwordBlock {
        /// Write (else read).
        write: bool,
        /// Unaligned OWord Block Read: Global Offset in bytes (DWord aligned).
        unaligned: bool,
        /// OWords moved.
        owords: u8,
        /// A 1-OWord block in the high 128 bits of its register.
        high: bool,
    },
    /// OWord Dual Block Read/Write (§3.9.5): `owords` (1 or 4) OWords at each of two
    /// block offsets.
    OwordDualBlock {
        /// Write (else read).
        write: bool,
        /// OWords per block.
        owords: u8,
    },
    /// DWord Scattered Read/Write (§3.9.7): 8 or 16 DWords at per-slot DWord offsets.
    DwordScattered {
        /// Write (else read).
        write: bool,
        /// Slots (8 or 16).
        slots: u8,
    },
    /// Byte Scattered Read/Write (§3.9.8): `bytes` (1, 2 or 4) at per-slot byte
    /// offsets.
    ByteScattered {
        /// Write (else read).
        write: bool,
        /// Slots (8 or 16).
        slots: u8,
        /// Bytes per slot.
        bytes: u8,
    },
    /// Untyped Surface Read/Write and Untyped Atomic Operation (§3.9.9): raw or
    /// structured buffers, and SLM.
    Untyped {
        /// What each slot does.
        access: Access,
        /// The slot layout.
        simd: Simd,
        /// Channels included (R, G, B, A); atomics use only the first dword.
        channels: [bool; 4],
    },
    /// Typed Surface Read/Write and Typed Atomic Operation (§3.9.9): SIMD8 over 1D, 2D,
    /// 3D or buffer surfaces with format conversion; the Slot Group selects the high
    /// 8 bits of the execution and pixel masks.
    Typed {
        /// What each slot does.
        access: Access,
        /// Slot Group: the high 8 slots.
        high: bool,
        /// Channels included (R, G, B, A).
        channels: [bool; 4],
    },
    /// Scratch Block Read/Write (§3.9.10): 1, 2 or 4 registers at an HWord offset of
    /// the stateless Immediate Buffer.
    ScratchBlock {
        /// Write (else read).
        write: bool,
        /// Dword channel mode (else OWord mode).
        dword_mode: bool,
        /// Registers moved.
        regs: u8,
        /// HWord (32-byte) offset.
        offset: u32,
    },
    /// Media Block Read/Write (§3.9.6): a rectangle of a 2D surface.
    MediaBlock {
        /// Write (else read).
        write: bool,
        /// The descriptor's Vertical Line Stride Override (§3.9.6.1): `None` to use the
        /// surface's Vertical Line Stride, else the override, `Some(None)` for a frame
        /// and `Some(Some(offset))` for the field starting at row `offset`.
        stride_override: Option<Option<u8>>,
        /// Sent to the render cache, whose pixel backend holds the colour processing
        /// pipe (§3.6.1): only there may a write set Color Processing Enable.
        render_cache: bool,
        /// The Gen8+ header (seed 003 MH_MB, MHC_MB_CONTROL): M0.2 31:30 the Message
        /// Mode (0 Normal), 5:0 the Block Width (U6: up to 64 bytes written, 32 read),
        /// M0.3 the Mask, "ignored by the Normal Media Block message"; else Gen7's
        /// (seed 000 §3.9.6.2: M0.2 4:0 the width, M0.3 the mode and colour processing).
        normal_header: bool,
    },
    /// Memory Fence: every earlier access of the thread is done (the model executes
    /// messages in order, so there is nothing to wait for); with Commit Enable one
    /// register comes back.
    Fence {
        /// Commit Enable.
        commit: bool,
    },
}

/// A decoded data port message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataMessage {
    /// The operation.
    pub op: DataOp,
    /// The address model.
    pub model: AddressModel,
    /// Whether the payload starts with a header.
    pub header: bool,
}

impl DataMessage {
    /// Whether the message is an atomic read-modify-write: threads sending such
    /// messages cannot run over private copies of memory.
    pub fn is_atomic(&self) -> bool {
        matches!(
            self.op,
            DataOp::Untyped {
                access: Access::Atomic { .. },
                ..
            } | DataOp::Typed {
                access: Access::Atomic { .. },
                ..
            }
        )
    }
}

/// The surface a binding table entry names, as the data port sees it (the front
/// resolves it from the generation's surface state).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DataSurface {
    /// SURFTYPE_NULL: every access is out of bounds.
    Null,
    /// SURFTYPE_BUFFER: `entries` elements from `base`; `format` RAW for raw buffers
    /// (1-byte elements); `typed` the same buffer as a typed surface, for formats the
    /// typed messages convert.
    Buffer {
        /// Graphics address of the first byte.
        base: u64,
        /// Number of entries.
        entries: u64,
        /// Surface Format.
        format: SurfaceFormat,
        /// The buffer as a typed surface, when its format has a layout.
        typed: Option<Surface>,
        /// Typed reads of it return any format ([`ImageView::any_format_reads`]).
        any_format_reads: bool,
    },
    /// SURFTYPE_STRBUF: `entries` structures of `pitch` bytes.
    Structured {
        /// Graphics address of the first byte.
        base: u64,
        /// Number of structures.
        entries: u64,
        /// Bytes per structure.
        pitch: u64,
    },
    /// A SURFTYPE_1D, 2D or 3D surface, for the typed messages.
    Image {
        /// The surface.
        surface: Surface,
        /// Whether the surface is an array (Surface Array): the V (1D) or R (2D)
        /// address is the array index.
        array: bool,
        /// The view: the level the message's LOD 0 is (Surface Min LOD), the levels it
        /// sees, and the slice its array index 0 is (Minimum Array Element).
        view: ImageView,
    },
}

/// The part of a typed surface a binding table entry shows (seed 000 §2.12.2: Surface
/// Min LOD, MIP Count, Minimum Array Element).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImageView {
    /// The absolute level of view level 0.
    pub base_level: u32,
    /// Levels in the view.
    pub levels: u32,
    /// The absolute slice of view slice 0 (arrays).
    pub base_slice: u32,
    /// Typed reads return texels of any format the surface may have (Gen9+: Mesa's
    /// isl lets Gen9+ read RGBA32, RGBA16 and others natively,
    /// isl_has_matching_typed_storage_image_format); otherwise only R32_SINT, R32_UINT
    /// and R32_FLOAT (Gen7, seed 000 §3.9.9).
    pub any_format_reads: bool,
    /// `base_slice` also offsets a 3D surface's R (z) coordinate (Gen9+: Mesa's isl
    /// programs a non-layered binding of one z slice of a 3D image as Minimum Array
    /// Element); otherwise it offsets array layers only.
    pub base_slice_3d: bool,
    /// How media block messages see the rows (§2.12.2 Vertical Line Stride and Offset,
    /// Media Boundary Pixel Mode).
    pub rows: MediaRows,
}

/// The rows of a surface as media block messages see them (seed 000 §2.12.2, §3.6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MediaRows {
    /// Vertical Line Stride 1: the surface is one field, its rows every second row of
    /// the frame from Vertical Line Stride Offset (the value), and Height counts the
    /// field's rows.
    pub field: Option<u8>,
    /// Media Boundary Pixel Mode, or the reserved raw value.
    pub boundary: MediaBoundary,
}

/// Seed 000 §2.12.2 Media Boundary Pixel Mode: how reads above and below the surface
/// are clamped (§3.6.2 "Boundary Behavior").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MediaBoundary {
    /// NORMAL_MODE: to the nearest row of the frame or field read.
    #[default]
    Normal,
    /// PROGRESSIVE_FRAME: a field read clamps to the frame's rows.
    ProgressiveFrame,
    /// INTERLACED_FRAME: a frame read clamps to the nearest row of the same field.
    InterlacedFrame,
    /// A reserved value.
    Reserved(u32),
}

/// What the stateless model addresses: General State Base Address, and General State
/// Access Upper Bound (exclusive; `None` when the check is off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GeneralState {
    /// General State Base Address.
    pub base: u64,
    /// General State Access Upper Bound (exclusive).
    pub bound: Option<u64>,
}

/// Decodes a generation's COLOR_PROCESSING_STATE at a graphics address (seed 000
/// §3.8.3) into what the colour processing pipe models, refusing what it does not.
pub type ColorProcessingState<'a> =
    &'a dyn Fn(&dyn Memory, u64) -> Result<iecp::ColorProcessing, MessageError>;

/// Everything a message may touch besides its payload.
pub struct Target<'a> {
    /// Graphics memory.
    pub mem: &'a mut dyn Memory,
    /// The resolved binding table surface (for [`AddressModel::Surface`]).
    pub surface: Option<DataSurface>,
    /// The stateless model's base and bound.
    pub general: GeneralState,
    /// The thread group's shared local memory, when the thread has one.
    pub slm: Option<&'a mut [u8]>,
    /// The front's COLOR_PROCESSING_STATE decoder, for media block writes with colour
    /// processing (`None`: such writes fail as unsupported).
    pub color_processing: Option<ColorProcessingState<'a>>,
}

/// The payload of one message as the handlers read it.
pub(crate) struct Regs<'a> {
    pub regs: &'a Payload,
    /// Registers before the message's own payload (the header).
    pub first: usize,
}

impl Regs<'_> {
    /// Dword `dw` of payload register `reg` (counting after the header); zero past the
    /// payload (a short message is checked by the handler before it reads).
    pub fn dword(&self, reg: usize, dw: usize) -> u32 {
        self.regs.get(self.first + reg).map_or(0, |r| {
            u32::from_le_bytes([r[4 * dw], r[4 * dw + 1], r[4 * dw + 2], r[4 * dw + 3]])
        })
    }

    /// Registers after the header.
    pub fn len(&self) -> usize {
        self.regs.len().saturating_sub(self.first)
    }

    /// Dword `dw` of the header (M0), when there is one.
    pub fn header(&self, dw: usize) -> Option<u32> {
        (self.first > 0).then(|| {
            let r = &self.regs[0];
            u32::from_le_bytes([r[4 * dw], r[4 * dw + 1], r[4 * dw + 2], r[4 * dw + 3]])
        })
    }
}

/// A writeback under construction: registers and the dwords each writes.
pub(crate) struct Writeback {
    pub regs: Vec<[u8; 32]>,
    pub written: Vec<u8>,
}

impl Writeback {
    pub fn new(n: usize) -> Writeback {
        Writeback {
            regs: vec![[0; 32]; n],
            written: vec![0; n],
        }
    }

    /// Sets dword `dw` of register `reg` and marks it written.
    pub fn put(&mut self, reg: usize, dw: usize, v: u32) {
        if let (Some(r), Some(w)) = (self.regs.get_mut(reg), self.written.get_mut(reg)) {
            r[4 * dw..4 * dw + 4].copy_from_slice(&v.to_le_bytes());
            *w |= 1 << dw;
        }
    }

    pub fn into_response(self) -> Response {
        Response {
            registers: self.regs,
            written: Some(self.written),
        }
    }
}

/// Carries out message `msg` with payload `payload` for the channels of `exec_mask`
/// (bit n: slot n of the message, the send's first channel at bit 0), whose send
/// names `response_length` registers for its writeback.
pub fn execute(
    msg: &DataMessage,
    payload: &Payload,
    exec_mask: u32,
    response_length: usize,
    target: &mut Target,
) -> Result<Response, MessageError> {
    let regs = Regs {
        regs: payload,
        first: usize::from(msg.header),
    };
    if msg.header && payload.is_empty() {
        return Err(gtsim_message::invalid(
            "a data port message whose descriptor says Header Present has no payload",
        ));
    }
    let (general, color_processing) = (target.general, target.color_processing);
    let mut space = space::Space::new(msg, &regs, target)?;
    let mut response = match msg.op {
        DataOp::OwordBlock { .. } | DataOp::OwordDualBlock { .. } | DataOp::ScratchBlock { .. } => {
            block::execute(msg, &regs, exec_mask, &mut space)?
        }
        DataOp::DwordScattered { .. } | DataOp::ByteScattered { .. } => {
            scattered::execute(msg, &regs, exec_mask, &mut space)?
        }
        DataOp::Untyped { .. } => untyped::execute(msg, &regs, exec_mask, &mut space)?,
        DataOp::Typed { .. } => typed::execute(msg, &regs, exec_mask, &mut space)?,
        // The execution mask is ignored (§3.9.6).
        DataOp::MediaBlock { .. } => {
            media::execute(msg, &regs, &mut space, general, color_processing)?
        }
        // Ordering within a thread holds by construction (§3.4); the commit writeback
        // is one register (Mesa's fence has response length 1).
        DataOp::Fence { commit } => Response::from(vec![[0u8; 32]; usize::from(commit)]),
    };
    // The send names how many registers it takes back; the EU writes those.
    response.registers.resize(response_length, [0; 32]);
    if let Some(w) = response.written.as_mut() {
        w.resize(response_length, 0);
    }
    Ok(response)
}

/// The pixel/sample mask a header's M0.7 15:0 gives (all ones without a header, seed
/// 000 §3.9.9.9).
pub(crate) fn header_pixel_mask(regs: &Regs) -> u32 {
    regs.header(7).map_or(0xffff, |d| d & 0xffff)
}

/// A message too short for what its descriptor says it carries.
pub(crate) fn short(what: &str, need: usize, have: usize) -> MessageError {
    gtsim_message::invalid(format!(
        "{what}: the payload has {have} registers after the header where the message needs {need}"
    ))
}
