//! The depth and stencil buffers and their tests (seed 004 §11.5, §12.1.4-12.1.5).

use crate::latched::{LatchedState, get};
use gtsim_dataport::depth_stencil::{DepthFormat, DepthStencilState as PixelState, StencilFace};
use gtsim_mem::layout::SurfaceDesc;
use gtsim_pipe3d::draw::{DepthBuffer, DepthOp, DrawError};
use gtsim_spec::gen7::three_d_state_depth_buffer::SurfaceType;
use gtsim_spec::gen7::{DepthStencilState, ThreeDStateDepthBuffer, ThreeDStateWm};

/// The W-major row pitch of the separate stencil buffer from 3DSTATE_STENCIL_BUFFER
/// Surface Pitch (#bytes - 1; seed 004 §11.5.5.2). The seed calls the buffer Tile-Y and
/// is silent on the factor; the programmed pitch is twice the W-major row's bytes: "the
/// pitch must be set to 2x the value computed based on width, as the stencil buffer is
/// stored with two rows interleaved" (Intel PRM, RENDER_SURFACE_STATE Surface Pitch, as
/// Mesa's isl quotes it for W tiling, whose 64x64-byte tile it stores as a 128x32-byte
/// Y-shaped one). crocus programs a 1024-pixel-wide stencil buffer with pitch 2048.
fn stencil_row_pitch(surface_pitch: u32) -> u64 {
    let programmed_bytes = u64::from(surface_pitch) + 1;
    programmed_bytes / 2
}

/// Depth Coordinate Offset X and Y of 3DSTATE_DEPTH_BUFFER (seed 004 §12.1.3): "a
/// programmable constant offset" "unconditionally added to the RT pixel coordinates to
/// generate DepthBuffer pixel coordinates", which the stencil and hierarchical depth
/// buffers share (§11.5.5.1-2). The model places the depth and stencil images from that
/// point (`SurfaceDesc::origin`). Refused: offsets whose 3 low bits are set (the field
/// is "S15 ... (3 LSBs MBZ)", 3DSTATE_DEPTH_BUFFER DW5), offsets on a multisampled or
/// mipmapped buffer ("Only simple 2D RTs are supported (no mipmaps)"), and negative
/// offsets, which the seed allows as long as the sums stay non-negative but the model
/// does not place yet.
fn depth_coordinate_offset(
    d: &ThreeDStateDepthBuffer,
    samples: u32,
    levels: u32,
) -> Result<(u32, u32), DrawError> {
    let (x, y) = (d.depth_coordinate_offset_x, d.depth_coordinate_offset_y);
    if (x, y) == (0, 0) {
        return Ok((0, 0));
    }
    let state = |why: String| DrawError::State {
        command: "3DSTATE_DEPTH_BUFFER",
        why,
    };
    if x & 7 != 0 || y & 7 != 0 {
        return Err(state(format!(
            "Depth Coordinate Offset ({x}, {y}): the 3 low bits must be zero (seed 004 3DSTATE_DEPTH_BUFFER DW5)"
        )));
    }
    if samples > 1 || levels > 1 {
        return Err(state(format!(
            "Depth Coordinate Offset ({x}, {y}) on a buffer of {samples} samples and {levels} levels: only simple 2D render targets, no mipmaps (seed 004 §12.1.3)"
        )));
    }
    match (u32::try_from(x), u32::try_from(y)) {
        (Ok(x), Ok(y)) => Ok((x, y)),
        _ => Err(DrawError::Unsupported(gtsim_spec::Unsupported::new(
            format!("a negative Depth Coordinate Offset ({x}, {y})"),
            "seed 004 §12.1.3",
        ))),
    }
}

/// The draw's depth buffer, `None` when it is SURFTYPE_NULL (tests pass, nothing is
/// written): 3DSTATE_DEPTH_BUFFER, 3DSTATE_WM's depth operations, DEPTH_STENCIL_STATE,
/// CC_VIEWPORT's depth range, 3DSTATE_STENCIL_BUFFER and 3DSTATE_CLEAR_PARAMS
/// (seed 004 §11.5), with COLOR_CALC_STATE's stencil references read only when the
/// stencil buffer is used.
pub(crate) fn depth_buffer(
    d: &ThreeDStateDepthBuffer,
    wm: &ThreeDStateWm,
    ds: &DepthStencilState,
    depth_range: [f32; 2],
    latched: &LatchedState,
    cc_stencil_ref: impl Fn() -> Result<(u8, u8), DrawError>,
) -> Result<Option<DepthBuffer>, DrawError> {
    {
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
        // §11.4.1: "The depth, hierarchical depth, and stencil buffers inherit [Number of
        // Multisamples] from 3DSTATE_MULTISAMPLE"; their samples are interleaved in the
        // plane, which the depth operations address directly (`DepthBuffer::samples`).
        let samples = match get(&latched.multisample).number_of_multisamples.0 {
            2 => 4,
            3 => 8,
            _ => 1,
        };
        let origin = depth_coordinate_offset(d, samples, levels)?;
        let mut desc = SurfaceDesc {
            ty: layout_type,
            ..SurfaceDesc::depth(
                w,
                h,
                layers,
                levels,
                samples,
                bytes,
                d.surface_pitch as u64 + 1,
            )
        }
        .interleaved_plane();
        desc.origin = origin;
        let stencil_needed = ds.stencil_test_enable || ds.stencil_buffer_write_enable;
        let stencil = if stencil_needed {
            let s = get(&latched.stencil_buffer);
            Some((
                s.surface_base_address,
                SurfaceDesc {
                    origin,
                    ..SurfaceDesc {
                        ty: layout_type,
                        ..SurfaceDesc::separate_stencil(
                            w,
                            h,
                            layers,
                            levels,
                            samples,
                            stencil_row_pitch(s.surface_pitch),
                        )
                    }
                    .interleaved_plane()
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
                depth_range,
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
        let clear = get(&latched.clear_params);
        Ok(Some(DepthBuffer {
            base: d.surface_base_address,
            desc,
            samples,
            format,
            lod: d.lod as u32,
            slice: d.minimum_array_element as u32,
            // A cube's index is its face, +x 0 to -z 5 (seed 000 §3.9.11).
            array_extent: if layout_type == gtsim_mem::layout::SurfaceType::Cube {
                5
            } else {
                d.depth as u32
            },
            stencil,
            front: face(false),
            back: face(true),
            // Seed 004 3DSTATE_CLEAR_PARAMS: the field counts only when Depth Clear Value
            // Valid is set; otherwise the clear primitive's depth is the value.
            clear_value: clear
                .depth_clear_value_valid
                .then_some(clear.depth_clear_value),
            // §11.5.3.1: a stencil clear writes COLOR_CALC_STATE's Stencil Reference Value.
            stencil_clear: (ds.stencil_buffer_write_enable && d.stencil_write_enable)
                .then_some(front_ref),
            op,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::{depth_coordinate_offset, stencil_row_pitch};
    use gtsim_mem::layout::SurfaceDesc;
    use gtsim_spec::gen7::ThreeDStateDepthBuffer;

    fn offset(x: i16, y: i16) -> ThreeDStateDepthBuffer {
        ThreeDStateDepthBuffer {
            depth_coordinate_offset_x: x,
            depth_coordinate_offset_y: y,
            ..Default::default()
        }
    }

    /// Seed 004 §12.1.3: the offset moves the depth buffer's pixels. With (8, 16) on a
    /// Y-tiled D32 buffer of 256-byte pitch, render target pixel (0, 0) is depth texel
    /// (8, 16): byte 32 of row 16, OWord column 2 of the first tile, 2 * 512 + 16 * 16.
    /// Refused: low bits set, a multisampled or mipmapped buffer, a negative offset.
    #[test]
    fn the_depth_coordinate_offset_moves_the_depth_pixels() {
        let origin = depth_coordinate_offset(&offset(8, 16), 1, 1).unwrap();
        assert_eq!(origin, (8, 16));
        let d = SurfaceDesc {
            origin,
            ..SurfaceDesc::depth(64, 64, 1, 1, 1, 4, 256)
        };
        assert_eq!(d.texel_offset(0, 0, 0, 0, 0), Ok(2 * 512 + 16 * 16));
        assert_eq!(
            depth_coordinate_offset(&offset(0, 0), 8, 4).unwrap(),
            (0, 0)
        );
        let e = |x, y, samples, levels| {
            depth_coordinate_offset(&offset(x, y), samples, levels)
                .unwrap_err()
                .to_string()
        };
        assert!(e(4, 0, 1, 1).contains("3 low bits"), "{}", e(4, 0, 1, 1));
        assert!(e(8, 8, 4, 1).contains("no mipmaps"));
        assert!(e(8, 8, 1, 2).contains("no mipmaps"));
        assert!(e(-8, 8, 1, 1).contains("negative Depth Coordinate Offset"));
    }

    /// Pitch field 255 (256 bytes programmed) is a 128-byte W-major row: two 64x64 tiles
    /// per tile row. Pixel (100, 70) is in tile 1 * 2 + 1 = 3; inside it, byte (36, 6):
    /// 8x8 block 36 / 8 = 4 of its column-major blocks (4 * 512), and the interleaved
    /// bits x0 y0 x1 y1 x2 y2 = 0 0 0 1 1 1 give 8 + 16 + 32 = 56: 3 * 4096 + 2048 + 56.
    #[test]
    fn the_stencil_pitch_field_is_twice_the_w_row() {
        let pitch = stencil_row_pitch(255);
        assert_eq!(pitch, 128);
        let d = SurfaceDesc::separate_stencil(128, 128, 1, 1, 1, pitch);
        assert_eq!(d.texel_offset(100, 70, 0, 0, 0), Ok(3 * 4096 + 2048 + 56));
    }
}
