//! # gtsim-pipe3d: the 3D fixed-function pipeline
//!
//! Generation-neutral: the stages read [`state::DrawState`], which a generation's front
//! (the Ivy Bridge front for Gen7) decodes from the latched commands, through the
//! [`state::Front`] trait.
//!
//! Each stage follows its chapter of seed 004 (VF ch.2, VS ch.3, GS ch.7, CLIP ch.9, SF ch.10,
//! WM ch.11). [`draw`] runs one 3DPRIMITIVE through the stages, with VS and PS threads
//! on the EU; it is assembled from per-stage functions, each pure and unit-tested
//! against the seed:
//!
//! * [`index`]: index buffer access and cut indices (§2.2);
//! * [`vf`]: vertex element assembly and PrimitiveID generation (§2.4, §2.5.13);
//! * [`assembly`]: primitive decomposition into objects (§10.2);
//! * [`gs_order`]: the GS unit's objects, their vertex order and PrimitiveID vertex
//!   (§7.4.1);
//! * [`clip`]: VertexClipTest and ClipDetermination (§9.2, §9.4.2);
//! * [`sf`]: viewport transform and face culling (§10.3);
//! * [`coverage`]: multisample rasterization, per-sample coverage masks (§11.4);
//! * [`raster`]: subpixel snapping, the sampling grid, triangle, rectangle and point
//!   coverage with the upper-left rule, and line rasterization (§10.3);
//! * [`tessellator`]: the TE's culling, factor partitioning and domain points (ch.5);
//! * [`bary`]: barycentric parameters and the attribute formula (§11.6).

pub mod assembly;
pub mod bary;
pub mod clip;
pub mod coverage;
pub mod draw;
pub mod gs_order;
pub mod index;
pub mod raster;
pub mod sf;
pub mod state;
pub mod tessellator;
pub mod vf;
