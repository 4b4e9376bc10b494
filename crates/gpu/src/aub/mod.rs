//! AUB trace files, in the legacy "trace block" form that Mesa's `intel_dump_gpu` writes
//! for Gen4–Gen7, and the Gen8+ form of memory-trace packets and execlist submissions
//! (`memtrace.rs`), which the reader turns into the same events.
//!
//! Format facts (public: Mesa `src/intel/tools/intel_aub.h` and `aub_write.c`):
//! * Every packet starts with a dword whose bits 31:29 are 7 (`CMD_AUB`), 28:23 the
//!   opcode, 22:16 the sub-opcode and 15:0 the packet length in dwords minus 2.
//! * `CMD_AUB_HEADER` (opcode 1, sub-opcode 0x05): version (major in 31:24, minor in
//!   23:16), a 32-byte application name, a 64-bit timestamp, a comment length in bytes and
//!   the comment (`intel_dump_gpu` writes `PCI-ID=0x162`).
//! * `CMD_AUB_TRACE_HEADER_BLOCK` (opcode 1, sub-opcode 0x41): dword 1 holds the
//!   operation (7:0: 1 data write, 2 command write, 3 MMIO write), the type (15:8; for a
//!   command write the ring: 2 = render PRB0, 3 = video PRB1, 4 = blitter PRB2) and the
//!   address space (23:16: 0 GTT, 4 GTT entries); dword 2 a subtype, dword 3 the address,
//!   dword 4 the data size in bytes, and for 48-bit traces dword 5 the address's high
//!   half. The data follows the packet, padded to a dword.
//! * A submission is a command write to the ring holding `MI_BATCH_BUFFER_START` with the
//!   batch address.

pub mod memtrace;
mod read;
mod write;

pub use memtrace::MemtraceWriter;
pub use read::{AubError, BMP_ARGB_0888, BMP_ARGB_8888, DumpBmp, Event, Trace, parse};
pub use write::AubWriter;

/// `CMD_AUB` in bits 31:29.
pub const CMD_AUB: u32 = 7 << 29;
/// Version header packet.
pub const CMD_AUB_HEADER: u32 = CMD_AUB | (1 << 23) | (0x05 << 16);
/// Trace block packet.
pub const CMD_AUB_TRACE_HEADER_BLOCK: u32 = CMD_AUB | (1 << 23) | (0x41 << 16);
/// Bitmap dump packet: a surface to dump as a picture ([`DumpBmp`]).
pub const CMD_AUB_DUMP_BMP: u32 = CMD_AUB | (1 << 23) | (0x9e << 16);

/// Trace block operation: data write.
pub const OP_DATA_WRITE: u32 = 1;
/// Trace block operation: command (ring) write.
pub const OP_COMMAND_WRITE: u32 = 2;
/// Trace block operation: MMIO write.
pub const OP_MMIO_WRITE: u32 = 3;
/// Address space: GTT.
pub const MEMTYPE_GTT: u32 = 0;
/// Address space: GTT entries (page table writes).
pub const MEMTYPE_GTT_ENTRY: u32 = 4;
/// Command-write type of the render ring (PRB0).
pub const TYPE_RING_PRB0: u32 = 2;
/// Command-write type of the blitter ring (PRB2; Mesa's intel_aub.h
/// AUB_TRACE_TYPE_RING_PRB2, `4 << 8`, which its AUB readers take as the blitter engine).
pub const TYPE_RING_PRB2: u32 = 4;
/// The video enhancement ring's submissions (VECS), as the model's reconstruction of a
/// Gen8+ trace tags them: a memtrace trace names the engine by the execlist registers
/// it writes (the VEBOX's at [`memtrace::VECS_BASE`]); Mesa's legacy ring types stop at
/// PRB2, so the next value is taken.
pub const TYPE_RING_PRB3: u32 = 5;
/// Data-write type of a batch buffer.
pub const TYPE_BATCH: u32 = 1;
