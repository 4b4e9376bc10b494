//! Surface formats (seed 000 §2.12.2.1.1, the SURFACE_FORMAT table): per-texel codecs,
//! block-compressed decoders and the per-format capability table.
//!
//! * [`texel`]: read and write one texel of any uncompressed format, bit-exact.
//! * [`bc`]: BC1–BC7, DXT1_RGB and FXT1 block decoders.
//! * [`caps`]: what Ivy Bridge can do with each format (sample, filter, render, blend,
//!   vertex fetch), and which listed formats belong to other generations.

pub mod bc;
pub mod caps;
pub mod etc;
pub mod texel;
