//! # gtsim-sampler: the sampling engine's core math
//!
//! Seed 000 chapter 2 ("Sampling Engine") describes the per-pixel work of the sampler as
//! a chain: compute a level of detail (LOD) from the texel-space derivatives, bias and
//! clamp it, decide magnification versus minification, pick one or two mip levels
//! (§2.2.1), choose the texels inside each level with the intra-level filter (§2.2.2)
//! after applying the per-axis texture address control (§2.2.3), linearize sRGB texels
//! (§2.6), and filter (§2.5). This crate holds that math as pure functions, so the
//! sampler message handler and the unit tests share one definition:
//!
//! * [`address`]: TEXCOORDMODE_* on integer texel coordinates, and the mapping from a
//!   normalized coordinate to the NEAREST texel or the two LINEAR taps and their weight;
//! * [`lod`]: the §2.2.1.5 LOD pseudocode (bias, pre-clamp, min/mag determination,
//!   MIPFILTER selection of one or two levels and the inter-level weight);
//! * [`filter`]: NEAREST / LINEAR filtering within a 2D level, border colour, and the
//!   inter-level blend;
//! * [`srgb`]: the §2.6 texel gamma linearization;
//! * [`shadow`]: the §2.4 shadow prefilter compare of the sample_c messages;
//! * [`cube`]: cube face selection and the way across a face edge (§2.1.2, §2.2.3.6);
//! * [`message`]: the §2.13 sampler message handler (SIMD4x2, SIMD8 and SIMD16 payloads;
//!   sample, sample_b, sample_l, the sample_c and sample_d families, LOD, gather4*, ld,
//!   resinfo; writeback) over `gtsim-mem` surfaces;
//! * [`media`]: the media sampler's SIMD32/64 messages (§2.8-§2.13): sample_8x8 through
//!   the adaptive video scaler, the deinterlace message's denoise and deinterlace,
//!   sample_unorm, cache_flush, on the media surfaces of MEDIA_SURFACE_STATE;
//! * [`cache`]: the surfaces and sampler states a draw's messages resolved, decoded once
//!   per draw whatever the generation;
//! * [`state`]: the generation-neutral message, surface and sampler state a
//!   generation's front decodes for it.
//!
//! ## What is modelled and what is not
//!
//! In the math modules texels are supplied by a caller's `fetch` closure as four `f32`
//! channels (already decoded from the surface format); [`message`] reads them through
//! `gtsim-mem` and documents its own coverage (MAPFILTER_ANISOTROPIC among it; the
//! math module [`filter`] filters it as LINEAR). MAPFILTER_MONO and 1D/3D
//! surfaces in [`filter`] are not modelled there; chroma keying (§2.3.1) is in
//! [`chroma`]. Where a caller asks for what is not modelled the functions return a typed
//! error rather than guessing.
//!
//! ## Numeric policy
//!
//! No function panics on any input. NaN coordinates are treated as 0.0, infinite or very
//! large coordinates saturate to ±2^30 texels (each function documents its choice), and
//! the seed's "maximum 32 wraps" precision limit (§2.2.3 L620-622) is not reproduced:
//! wrapping here is exact for every representable coordinate.

pub mod address;
pub mod cache;
pub mod chroma;
pub mod cube;
pub mod filter;
pub mod lod;
pub mod media;
pub mod message;
pub mod shadow;
pub mod srgb;
pub mod state;

use thiserror::Error;

/// A state field holding a value the hardware does not define, or one this model does
/// not implement.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SamplerError {
    /// The value is reserved in the seed's field table.
    #[error("{field} = {value:#x} is reserved ({seed})")]
    Reserved {
        /// The state field.
        field: &'static str,
        /// Its value.
        value: u32,
        /// Where the seed lists the defined values.
        seed: &'static str,
    },
    /// The value is defined by the hardware but not modelled by this crate.
    #[error(transparent)]
    Unmodelled(#[from] gtsim_spec::Unsupported),
}
