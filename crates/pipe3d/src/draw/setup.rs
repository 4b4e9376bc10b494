//! CLIP and SF for one run of VUEs: assembly into objects, the clip test, the
//! perspective divide and viewport transform, culling and rasterization; each object's
//! covered pixels then go to the WM.

use super::gen7::DrawState;
use super::pixel::{Corner, PixelStage, Primitive};
use super::urb::Vue;
use super::{DrawError, Statistics, unsupported};
use crate::assembly::{ObjectType, ProvokingVertex, decompose};
use crate::clip::{ClipStatus, ClipTest, clip_determination, vertex_clip_test};
use crate::raster::{self, PointRule, RasterState, SubpixelBits, Winding};
use crate::sf::{CullMode, Viewport, culled};
use gtsim_mem::Memory;
use gtsim_spec::gen7::three_d_state_clip::{ApiMode, ClipMode};
use gtsim_spec::gen7::three_d_state_multisample::PixelLocation;
use gtsim_spec::gen7::three_d_state_sf::{
    BackFaceFillMode, FrontFaceFillMode, FrontWinding, VertexSubPixelPrecisionSelect,
};
use gtsim_spec::gen7::three_d_state_wm::PointRasterizationRule;

/// VUE slot of the position (seed 004 §1.8: slot 0 is the vertex header).
const POSITION: usize = 1;

fn f(v: u32) -> f32 {
    f32::from_bits(v)
}

/// Runs one run's objects through CLIP, SF and the WM.
pub(super) fn primitives(
    st: &DrawState,
    vues: &[Vue],
    mem: &mut dyn Memory,
    ps: &mut PixelStage,
    stats: &mut Statistics,
) -> Result<(), DrawError> {
    let sf = &st.sf;
    let pv = ProvokingVertex {
        tri_list_strip: sf.triangle_strip_list_provoking_vertex_select.0 as usize,
        tri_fan: sf.triangle_fan_provoking_vertex_select.0 as usize,
        line: sf.line_strip_list_provoking_vertex_select.0 as usize,
    };
    let objects = decompose(st.topology, vues.len(), pv).map_err(|e| DrawError::State {
        command: "3DPRIMITIVE",
        why: e.to_string(),
    })?;
    stats.ia_primitives += objects.len() as u64;
    let raster = raster_state(st);
    for obj in &objects {
        let verts: Vec<&Vue> = obj.v.iter().map(|&i| &vues[i]).collect();
        let clip_pos: Vec<[f32; 4]> = verts
            .iter()
            .map(|v| v.get(POSITION).copied().unwrap_or([0; 4]).map(f))
            .collect();
        if !clip_accepts(st, &clip_pos, stats)? {
            continue;
        }
        // §9.x: the perspective divide (unless disabled), then §10.3.2 the viewport
        // transform and §10.3.x the drawing rectangle origin.
        let screen: Vec<[f32; 4]> = clip_pos
            .iter()
            .map(|p| {
                let (ndc, rhw) = if st.clip.perspective_divide_disable {
                    ([p[0], p[1], p[2]], 1.0)
                } else {
                    let rhw = 1.0 / p[3];
                    ([p[0] * rhw, p[1] * rhw, p[2] * rhw], rhw)
                };
                let s = if sf.view_transform_enable {
                    viewport(st).transform(ndc)
                } else {
                    ndc
                };
                let o = &st.drawing_rectangle;
                [
                    s[0] + o.drawing_rectangle_origin_x as f32,
                    s[1] + o.drawing_rectangle_origin_y as f32,
                    s[2],
                    rhw,
                ]
            })
            .collect();
        let xy = |i: usize| [screen[i][0], screen[i][1]];
        let (pixels, back_facing) = match obj.kind {
            ObjectType::Triangle => {
                if sf.front_face_fill_mode != FrontFaceFillMode::SOLID
                    || sf.back_face_fill_mode != BackFaceFillMode::SOLID
                {
                    return Err(unsupported(
                        "wireframe and point fill modes",
                        "seed 004 §10.3 (3DSTATE_SF FrontFace/BackFace Fill Mode)",
                    ));
                }
                let (px, winding) = raster::triangle([xy(0), xy(1), xy(2)], &raster);
                let Some(winding) = winding else { continue };
                let front = if sf.front_winding == FrontWinding::FRONTWINDING_CCW {
                    Winding::Ccw
                } else {
                    Winding::Cw
                };
                let mode = CullMode::from_field(sf.cull_mode.0);
                if culled(mode, front, winding, obj.invert_orientation) {
                    continue;
                }
                let facing_front = (winding == front) != obj.invert_orientation;
                (px, !facing_front)
            }
            ObjectType::Rectangle => (raster::rectangle([xy(0), xy(1), xy(2)], &raster), false),
            ObjectType::Point => {
                let width = if sf.use_point_width_state.0 == 1 {
                    sf.point_width as f32
                } else {
                    // VUE header dword 3: Point Width (seed 004 §1.8).
                    f(verts[0].first().copied().unwrap_or([0; 4])[3])
                };
                let rule = if st.wm.point_rasterization_rule
                    == PointRasterizationRule::RASTRULE_UPPER_RIGHT
                {
                    PointRule::UpperRight
                } else {
                    PointRule::UpperLeft
                };
                (raster::point(xy(0), width, rule, &raster), obj.back_facing)
            }
            ObjectType::Line => {
                return Err(unsupported(
                    "line rasterization",
                    "seed 004 §10.3 and §11.3 (line rules)",
                ));
            }
        };
        if pixels.is_empty() {
            continue;
        }
        let corners: Vec<Corner> = (0..verts.len())
            .map(|i| Corner {
                xy: xy(i),
                z: screen[i][2],
                rhw: screen[i][3],
                vue: verts[i],
            })
            .collect();
        ps.shade(
            st,
            mem,
            &Primitive {
                corners,
                provoking: obj.provoking,
                back_facing,
                pixels,
            },
            stats,
        )?;
    }
    Ok(())
}

fn viewport(st: &DrawState) -> Viewport {
    let v = &st.sf_clip_viewport;
    Viewport {
        m00: v.viewport_matrix_element_m00,
        m11: v.viewport_matrix_element_m11,
        m22: v.viewport_matrix_element_m22,
        m30: v.viewport_matrix_element_m30,
        m31: v.viewport_matrix_element_m31,
        m32: v.viewport_matrix_element_m32,
    }
}

/// The rasterizer's state: subpixel precision (3DSTATE_SF), the sampling grid
/// (3DSTATE_MULTISAMPLE Pixel Location) and the drawing rectangle intersected with the
/// scissor rectangle when enabled (§10.3.11, §11.3.1).
fn raster_state(st: &DrawState) -> RasterState {
    let d = &st.drawing_rectangle;
    let mut rect = [
        d.clipped_drawing_rectangle_x_min as u32,
        d.clipped_drawing_rectangle_y_min as u32,
        d.clipped_drawing_rectangle_x_max as u32,
        d.clipped_drawing_rectangle_y_max as u32,
    ];
    if st.sf.scissor_rectangle_enable {
        let s = &st.scissor;
        rect[0] = rect[0].max(s.scissor_rectangle_x_min as u32);
        rect[1] = rect[1].max(s.scissor_rectangle_y_min as u32);
        rect[2] = rect[2].min(s.scissor_rectangle_x_max as u32);
        rect[3] = rect[3].min(s.scissor_rectangle_y_max as u32);
    }
    RasterState {
        subpixel: if st.sf.vertex_sub_pixel_precision_select
            == VertexSubPixelPrecisionSelect::_4_SUB_PIXEL_PRECISION_BITS
        {
            SubpixelBits::Four
        } else {
            SubpixelBits::Eight
        },
        half_pixel_centers: st.multisample.pixel_location == PixelLocation::PIXLOC_CENTER,
        rect,
    }
}

/// The CLIP stage's decision for one object (seed 004 §9.4.2): trivially accepted
/// objects pass, rejected ones are dropped; objects that must be clipped fail as
/// unsupported until clipping is modelled.
fn clip_accepts(
    st: &DrawState,
    pos: &[[f32; 4]],
    stats: &mut Statistics,
) -> Result<bool, DrawError> {
    let c = &st.clip;
    if !c.clip_enable {
        return Ok(true);
    }
    if c.clipper_statistics_enable {
        stats.cl_invocations += 1;
    }
    let accepted = match c.clip_mode {
        ClipMode::CLIPMODE_NORMAL => {
            let v = &st.sf_clip_viewport;
            let test = ClipTest {
                viewport_xy: c.viewport_xy_clip_test_enable,
                viewport_z: c.viewport_z_clip_test_enable,
                guardband: c.guardband_clip_test_enable,
                gb: [
                    v.x_min_clip_guardband,
                    v.x_max_clip_guardband,
                    v.y_min_clip_guardband,
                    v.y_max_clip_guardband,
                ],
                opengl_z: c.api_mode == ApiMode::APIMODE_OGL,
                ucd_mask: c.user_clip_distance_clip_test_enable_bitmask,
            };
            let codes: Vec<_> = pos
                .iter()
                .map(|p| {
                    let rhw = 1.0 / p[3];
                    vertex_clip_test([p[0] * rhw, p[1] * rhw, p[2] * rhw], rhw, &test, &[0.0; 8])
                })
                .collect();
            if test.ucd_mask != 0 {
                return Err(unsupported(
                    "user clip distances",
                    "seed 004 §9.2 (VUE clip distance slots)",
                ));
            }
            match clip_determination(&codes, false) {
                ClipStatus::Accept => true,
                ClipStatus::Reject | ClipStatus::Bad => false,
                ClipStatus::MustClip => {
                    return Err(unsupported(
                        "clipping of an object that crosses the guard band or the near/far planes",
                        "seed 004 §9.5",
                    ));
                }
            }
        }
        ClipMode::CLIPMODE_REJECT_ALL => false,
        ClipMode::CLIPMODE_ACCEPT_ALL => true,
        other => {
            return Err(DrawError::State {
                command: "3DSTATE_CLIP",
                why: format!("Clip Mode {} is reserved", other.0),
            });
        }
    };
    if accepted && c.clipper_statistics_enable {
        stats.cl_primitives += 1;
    }
    Ok(accepted)
}
