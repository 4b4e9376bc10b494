//! The stream output logic's state (seed 004 ch.8): what it writes to the SO buffers and
//! which topologies go on to be rendered.

/// The SOL stage (seed 004 §8.4 3DSTATE_STREAMOUT, §8.7 Rendering Disable).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StreamOutput {
    /// No topology leaves the SOL stage (used "even if SO Function Enable is
    /// DISABLED").
    pub rendering_disable: bool,
    /// The stream whose topologies go down the pipeline; topologies from the VF are
    /// stream 0.
    pub render_stream: u32,
    /// The SO function; `None` when SO Function Enable is clear.
    pub function: Option<SoFunction>,
}

impl StreamOutput {
    /// Whether the topologies of `stream` go down the pipeline past the SOL stage.
    pub fn renders(&self, stream: u32) -> bool {
        !self.rendering_disable && stream == self.render_stream
    }
}

/// The SO function's state (seed 004 §8.3-8.6).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SoFunction {
    /// SO_NUM_PRIMS_WRITTEN and SO_PRIM_STORAGE_NEEDED count this draw.
    pub statistics: bool,
    /// REORDER.TRAILING (otherwise REORDER.LEADING) for strip triangles.
    pub reorder_trailing: bool,
    /// The four streams.
    pub streams: [SoStream; 4],
    /// The four SO buffers; `None` where SO Buffer Enable is clear ("not bound").
    pub buffers: [Option<SoBuffer>; 4],
    /// The Write Offset of each buffer when the draw starts (the SO_WRITE_OFFSETn
    /// registers), in bytes from its base.
    pub write_offsets: [u32; 4],
}

/// One stream's SO declarations and vertex read-back (3DSTATE_SO_DECL_LIST,
/// 3DSTATE_STREAMOUT Stream n Vertex Read Offset/Length).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SoStream {
    /// The first 128-bit VUE slot read back.
    pub read_offset: usize,
    /// 128-bit slots read back.
    pub read_length: usize,
    /// Stream to Buffer Selects: bit b, the stream writes SO buffer b.
    pub buffer_selects: u8,
    /// The stream's SO_DECLs, in order (Num Entries of them).
    pub decls: Vec<SoDecl>,
}

/// One SO_DECL (seed 004 §8.5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SoDecl {
    /// Output Buffer Slot.
    pub buffer: usize,
    /// Hole Flag: skip the masked dwords instead of writing them.
    pub hole: bool,
    /// Register Index: the 128-bit slot of the read-back data.
    pub register: usize,
    /// Component Mask (contiguous components).
    pub mask: u8,
}

/// One SO buffer (3DSTATE_SO_BUFFER).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SoBuffer {
    /// Surface Base Address.
    pub base: u64,
    /// Surface End Address: the address past the buffer's last dword.
    pub end: u64,
    /// Surface Pitch in bytes: how far the Write Offset moves per vertex (0: unbound,
    /// nothing is written).
    pub pitch: u32,
}
