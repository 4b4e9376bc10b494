//! # gtsim-mem: the GPU's view of memory
//!
//! Everything the GPU reads or writes goes through an [`AddressSpace`]: a sparse set of
//! 4 KiB pages indexed by graphics address (the GTT view on Ivy Bridge, where drivers see
//! a 2 GiB global/per-process GTT). A page that is not present is a fault, reported as a
//! typed [`Fault`] with the address and access size, never a panic and never a silent
//! zero: on real hardware such an access hangs or corrupts, and the model reports it.
//!
//! On top of the flat space:
//! * [`tiling`]: linear, X-, Y- and W-major tile addressing (no bit-6 swizzling);
//! * [`layout`]: surface layouts (1D/2D/3D/cube, arrays, mip chains with their alignment
//!   units, array spacing, multisampling array-style and interleaved, depth, separate
//!   stencil, HiZ and MCS geometry) mapping (x, y, slice, lod, sample) to a byte offset;
//! * [`format`](mod@format): the SURFACE_FORMAT texel codecs, block decoders and capabilities.
//! * [`overlay`]: a thread's buffered writes over shared memory, applied in order (how
//!   threads running in parallel stay deterministic);
//! * [`fill`]: one value written into many elements as runs of bytes (clears).

pub mod fill;
pub mod format;
pub mod layout;
pub mod memory;
pub mod overlay;
pub mod space;
pub mod surface;
pub mod tiling;

pub use memory::Memory;
pub use space::{AddressSpace, Fault, PAGE_SIZE};
