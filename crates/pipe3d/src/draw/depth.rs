//! The depth and stencil buffers as the WM uses them: the early depth/stencil test of
//! each covered pixel (seed 004 §11.5.2, the tests themselves §12.1.4-12.1.5), and the
//! depth buffer clear and resolve operations of §11.5.3.
//!
//! The hierarchical depth buffer is an acceleration structure whose contents the seed
//! does not define: the model keeps the depth buffer itself always up to date (a clear
//! writes the clear value into it at once), so a depth buffer resolve has nothing left to
//! do and the HiZ buffer is never read or written. Every access the seed permits (depth
//! tests, and sampling or CPU reads after a resolve) sees the values the hardware would
//! give.

use super::DrawError;
use super::gen7::DrawState;
use gtsim_dataport::depth_stencil::{
    DepthFormat, DepthStencilState as PixelState, StencilFace, depth_stencil,
};
use gtsim_mem::Memory;
use gtsim_mem::layout::SurfaceDesc;
use gtsim_spec::gen7::three_d_state_depth_buffer::SurfaceType;
use gtsim_spec::gen7::{ThreeDStateClearParams, ThreeDStateStencilBuffer};

/// What a draw does to the depth buffer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum DepthOp {
    /// Normal rendering: test (and maybe write) each pixel.
    Test,
    /// 3DSTATE_WM Depth Buffer Clear: covered pixels take the clear value (§11.5.3.1).
    Clear,
    /// A depth or HiZ resolve: no visible effect in this model (see the module docs).
    Resolve,
}

/// A bound depth buffer (and separate stencil buffer).
pub(super) struct DepthBuffer {
    base: u64,
    desc: SurfaceDesc,
    format: DepthFormat,
    lod: u32,
    slice: u32,
    stencil: Option<(u64, SurfaceDesc)>,
    front: PixelState,
    back: PixelState,
    clear_value: u32,
    stencil_clear: Option<u8>,
    pub op: DepthOp,
}

fn dword_le(b: &[u8]) -> u32 {
    let mut v = [0u8; 4];
    v[..b.len()].copy_from_slice(b);
    u32::from_le_bytes(v)
}

impl DepthBuffer {
    /// The draw's depth buffer, `None` when it is SURFTYPE_NULL (tests pass, nothing is
    /// written).
    pub fn new(
        st: &DrawState,
        latched: &dyn super::Latched,
        cc_stencil_ref: impl Fn() -> Result<(u8, u8), DrawError>,
    ) -> Result<Option<DepthBuffer>, DrawError> {
        let d = &st.depth_buffer;
        let wm = &st.wm;
        let ds = &st.depth_stencil;
        let op = if wm.depth_buffer_clear {
            DepthOp::Clear
        } else if wm.depth_buffer_resolve_enable || wm.hierarchical_depth_buffer_resolve_enable {
            DepthOp::Resolve
        } else {
            DepthOp::Test
        };
        if d.surface_type == SurfaceType::SURFTYPE_NULL {
            return Ok(None);
        }
        // Seed 004 §11.5.5.1 (the HZ size table lists SURFTYPE_1D, 2D, 3D and CUBE depth
        // buffers): 1D and 2D surfaces use the 2D layout (1D with its Height), a cube
        // holds six faces per Depth + 1 cubes as array slices, 3D the 3D layout.
        let layout_type = match d.surface_type {
            SurfaceType::SURFTYPE_1D | SurfaceType::SURFTYPE_2D => {
                gtsim_mem::layout::SurfaceType::D2
            }
            SurfaceType::SURFTYPE_CUBE => gtsim_mem::layout::SurfaceType::Cube,
            SurfaceType::SURFTYPE_3D => gtsim_mem::layout::SurfaceType::D3,
            other => {
                return Err(DrawError::State {
                    command: "3DSTATE_DEPTH_BUFFER",
                    why: format!(
                        "Surface Type {} is not a depth buffer type (seed 004 §11.5.5.1)",
                        other.name().unwrap_or("(reserved)")
                    ),
                });
            }
        };
        let format = DepthFormat::from_field(d.surface_format.0).map_err(|e| DrawError::State {
            command: "3DSTATE_DEPTH_BUFFER",
            why: e.to_string(),
        })?;
        let bytes = if format == DepthFormat::D16Unorm {
            2
        } else {
            4
        };
        // Depth counts the view's elements from Minimum Array Element (as for render
        // targets, seed 000 §2.12.2): the layout reaches Minimum Array Element + Depth.
        let min = d.minimum_array_element as u32;
        let layers = match layout_type {
            gtsim_mem::layout::SurfaceType::Cube => (d.depth as u32 + 1).max(min / 6 + 1),
            gtsim_mem::layout::SurfaceType::D3 => d.depth as u32 + 1,
            _ => d.depth as u32 + 1 + min,
        };
        let (w, h, levels) = (d.width as u32 + 1, d.height as u32 + 1, d.lod as u32 + 1);
        let desc = SurfaceDesc {
            ty: layout_type,
            ..SurfaceDesc::depth(w, h, layers, levels, 1, bytes, d.surface_pitch as u64 + 1)
        };
        let stencil_needed = ds.stencil_test_enable || ds.stencil_buffer_write_enable;
        let stencil = if stencil_needed {
            let s = match latched.command("3DSTATE_STENCIL_BUFFER") {
                Some(dw) => ThreeDStateStencilBuffer::unpack(dw).map_err(|e| DrawError::State {
                    command: "3DSTATE_STENCIL_BUFFER",
                    why: e.to_string(),
                })?,
                None => ThreeDStateStencilBuffer::default(),
            };
            Some((
                s.surface_base_address,
                SurfaceDesc {
                    ty: layout_type,
                    ..SurfaceDesc::separate_stencil(
                        w,
                        h,
                        layers,
                        levels,
                        1,
                        s.surface_pitch as u64 + 1,
                    )
                },
            ))
        } else {
            None
        };
        let (front_ref, back_ref) = if stencil_needed {
            cc_stencil_ref()?
        } else {
            (0, 0)
        };
        let face = |back: bool| {
            let two = ds.double_sided_stencil_enable && back;
            PixelState {
                depth_test: ds.depth_test_enable.then_some(ds.depth_test_function),
                depth_write: ds.depth_buffer_write_enable && d.depth_write_enable,
                depth_range: [st.cc_viewport.minimum_depth, st.cc_viewport.maximum_depth],
                stencil: ds.stencil_test_enable.then_some(if two {
                    StencilFace {
                        func: ds.back_face_stencil_test_function,
                        fail: ds.backface_stencil_fail_op,
                        depth_fail: ds.backface_stencil_pass_depth_fail_op,
                        pass: ds.backface_stencil_pass_depth_pass_op,
                        reference: back_ref,
                        test_mask: ds.backface_stencil_test_mask,
                        write_mask: ds.backface_stencil_write_mask,
                    }
                } else {
                    StencilFace {
                        func: ds.stencil_test_function,
                        fail: ds.stencil_fail_op,
                        depth_fail: ds.stencil_pass_depth_fail_op,
                        pass: ds.stencil_pass_depth_pass_op,
                        reference: front_ref,
                        test_mask: ds.stencil_test_mask,
                        write_mask: ds.stencil_write_mask,
                    }
                }),
                stencil_write: ds.stencil_buffer_write_enable && d.stencil_write_enable,
            }
        };
        let clear = match latched.command("3DSTATE_CLEAR_PARAMS") {
            Some(dw) => ThreeDStateClearParams::unpack(dw).map_err(|e| DrawError::State {
                command: "3DSTATE_CLEAR_PARAMS",
                why: e.to_string(),
            })?,
            None => ThreeDStateClearParams::default(),
        };
        Ok(Some(DepthBuffer {
            base: d.surface_base_address,
            desc,
            format,
            lod: d.lod as u32,
            slice: d.minimum_array_element as u32,
            stencil,
            front: face(false),
            back: face(true),
            clear_value: clear.depth_clear_value,
            // §11.5.3.1: a stencil clear writes COLOR_CALC_STATE's Stencil Reference Value.
            stencil_clear: (ds.stencil_buffer_write_enable && d.stencil_write_enable)
                .then_some(front_ref),
            op,
        }))
    }

    fn depth_addr(&self, x: u32, y: u32) -> Result<u64, DrawError> {
        let off = self
            .desc
            .texel_offset(x, y, self.slice, self.lod, 0)
            .map_err(|e| DrawError::State {
                command: "3DSTATE_DEPTH_BUFFER",
                why: format!("pixel ({x}, {y}): {e}"),
            })?;
        Ok(self.base.wrapping_add(off))
    }

    fn stencil_addr(&self, x: u32, y: u32) -> Result<Option<u64>, DrawError> {
        let Some((base, desc)) = &self.stencil else {
            return Ok(None);
        };
        let off = desc
            .texel_offset(x, y, self.slice, self.lod, 0)
            .map_err(|e| DrawError::State {
                command: "3DSTATE_STENCIL_BUFFER",
                why: format!("pixel ({x}, {y}): {e}"),
            })?;
        Ok(Some(base.wrapping_add(off)))
    }

    /// Runs the depth operation on one pixel of source depth `z`; returns whether the
    /// pixel goes on to the pixel shader.
    pub fn pixel(
        &self,
        mem: &mut dyn Memory,
        x: u32,
        y: u32,
        z: f32,
        back_facing: bool,
    ) -> Result<bool, DrawError> {
        let fault = |fault| DrawError::Fault {
            unit: "depth buffer",
            fault,
        };
        let bytes = self.desc.block_bytes as usize;
        let sa = self.stencil_addr(x, y)?;
        match self.op {
            DepthOp::Resolve => Ok(false),
            DepthOp::Clear => {
                if self.front.depth_write {
                    let da = self.depth_addr(x, y)?;
                    let v = self.clear_value.to_le_bytes();
                    mem.write(da, &v[..bytes]).map_err(fault)?;
                }
                if let (Some(a), Some(s)) = (sa, self.stencil_clear) {
                    mem.write(a, &[s]).map_err(fault)?;
                }
                Ok(false)
            }
            DepthOp::Test => {
                // The depth buffer is accessed only by a depth test or write: a stencil-
                // only draw may bind a placeholder depth buffer (crocus binds one with
                // address and pitch 0), which the hardware never reads.
                let s = if back_facing { &self.back } else { &self.front };
                let da = if s.depth_test.is_some() || s.depth_write {
                    Some(self.depth_addr(x, y)?)
                } else {
                    None
                };
                let mut stored = [0u8; 4];
                if let Some(da) = da {
                    mem.read(da, &mut stored[..bytes]).map_err(fault)?;
                }
                let mut stored = dword_le(&stored[..bytes]);
                if self.format == DepthFormat::D24Unorm {
                    stored &= 0x00ff_ffff;
                }
                let mut sten = [0u8; 1];
                if let Some(a) = sa {
                    mem.read(a, &mut sten).map_err(fault)?;
                }
                let r = depth_stencil(s, self.format, z, stored, sten[0]).map_err(|e| {
                    DrawError::State {
                        command: "DEPTH_STENCIL_STATE",
                        why: e.to_string(),
                    }
                })?;
                if let (Some(da), Some(v)) = (da, r.depth) {
                    mem.write(da, &v.to_le_bytes()[..bytes]).map_err(fault)?;
                }
                if let (Some(a), Some(v)) = (sa, r.stencil) {
                    mem.write(a, &[v]).map_err(fault)?;
                }
                Ok(r.pass)
            }
        }
    }
}
