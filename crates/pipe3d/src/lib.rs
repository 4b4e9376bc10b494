//! # gtsim-pipe3d: the 3D fixed-function pipeline
//!
//! Each stage follows its chapter of seed 004 (VF ch.2, VS ch.3, CLIP ch.9, SF ch.10,
//! WM ch.11). The crate starts with the rasterizer core ([`raster`]): subpixel snapping
//! (§10.3 "Vertex X,Y Clamping and Quantization"), the pixel sampling grid (§10.3.3) and
//! triangle coverage with the upper-left rule (§10.3.4), as pure functions the WM stage
//! and its unit tests share, and vertex element assembly ([`vf`], §2.4).

pub mod clip;
pub mod raster;
pub mod sf;
pub mod vf;
