//! # gtsim-mem: the GPU's view of memory
//!
//! Everything the GPU reads or writes goes through an [`AddressSpace`]: a sparse set of
//! 4 KiB pages indexed by graphics address (the GTT view on Ivy Bridge, where drivers see
//! a 2 GiB global/per-process GTT). A page that is not present is a fault, reported as a
//! typed [`Fault`] with the address and access size, never a panic and never a silent
//! zero: on real hardware such an access hangs or corrupts, and the model reports it.
//!
//! Later layers add tiling (X/Y/W), surface layouts and texel codecs on top; this crate
//! starts with the flat address space that the batch decoder and AUB traces need.

pub mod format;
pub mod layout;
pub mod memory;
pub mod space;
pub mod tiling;

pub use memory::Memory;
pub use space::{AddressSpace, Fault, PAGE_SIZE};
