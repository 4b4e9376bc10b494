//! CLIP and SF for one run of VUEs: assembly into objects, the clip test, the
//! perspective divide and viewport transform, culling and rasterization; each object's
//! covered pixels then go to the WM.

use super::Vue;
use super::pixel::{Corner, PixelStage, Primitive, SourceTriangle};
use super::stream::RunAssembler;
use super::{DrawError, Statistics, Watchdog, clipper};
use crate::assembly::{Boundary, Object, ObjectType};
use crate::clip::{ClipStatus, clip_determination, vertex_clip_test};
use crate::coverage::SampleMask;
use crate::raster::{self, RasterState};
use crate::sf::culled;
use crate::state::{ClipMode, DrawState, FillMode, Front, SetupState};
use gtsim_mem::Memory;
use gtsim_spec::shared::ThreeDPrimTopoType;

/// VUE slot of the position (seed 004 §1.8: slot 0 is the vertex header).
const POSITION: usize = 1;

fn f(v: u32) -> f32 {
    f32::from_bits(v)
}

/// Runs assembled objects of one run through CLIP, SF and the WM; each comes with
/// whether it is the last object of its run.
#[expect(
    clippy::too_many_arguments,
    reason = "the draw's stage state, passed down unchanged"
)]
pub(super) fn primitives(
    st: &DrawState,
    front: &dyn Front,
    run: &RunAssembler,
    objects: &[(Object, bool)],
    mem: &mut dyn Memory,
    ps: &mut PixelStage,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
) -> Result<(), DrawError> {
    let whole = st;
    // The viewport array's other entries (seed 004 §10.3), each its own state: an object
    // maps, clips and scissors with the entry its Viewport Index selects.
    let variants: Vec<(DrawState, RasterState)> = (1..=whole.viewports.len())
        .filter_map(|i| whole.with_viewport(i))
        .map(|v| {
            let r = raster_state(&v);
            (v, r)
        })
        .collect();
    let whole_raster = raster_state(whole);
    let list = matches!(
        run.topology(),
        ThreeDPrimTopoType::_3DPRIM_LINELIST | ThreeDPrimTopoType::_3DPRIM_LINELIST_ADJ
    );
    // Seed 004 §11.3.2.3: the line stipple counter, reset for each new object unless
    // it continues a strip.
    let stipple_counter = std::cell::Cell::new(0u32);
    for (obj, last_in_run) in objects {
        let verts: Vec<&Vue> = obj.v.iter().map(|&i| run.vue(i)).collect();
        let (st, raster) = match viewport_index(whole, &verts) {
            0 => (whole, &whole_raster),
            vp => match variants.get(vp as usize - 1) {
                Some((v, r)) => (v, r),
                None => {
                    return Err(DrawError::State {
                        command: "3DSTATE_CLIP",
                        why: format!(
                            "an object's Viewport Index {vp} is within Maximum VPIndex {} but \
                             its viewport state was not read",
                            whole.clip.max_vp_index
                        ),
                    });
                }
            },
        };
        let sf = &st.setup;
        let last_pixel = sf.last_pixel && (list || *last_in_run);
        if !obj.continue_stipple {
            stipple_counter.set(0);
        }
        // Seed 004 §10.3.13 Fill Mode: WIREFRAME and POINT follow "the topology type"
        // (the primitive's outline) and are "controlled by the vertex EdgeFlags": edge i
        // is drawn when vertex i's flag is set, and a vertex as a point likewise (as
        // OpenGL draws the vertices that start a boundary edge).
        let boundary = {
            let flag = |k: usize| obj.v.get(k).is_none_or(|&i| run.edge(i));
            Boundary {
                edges: std::array::from_fn(|e| obj.boundary.edges[e] && flag(e)),
                vertices: std::array::from_fn(|k| obj.boundary.vertices[k] && flag(k)),
            }
        };
        // Seed 004 §2.5.13: "The PrimitiveID associated with the provoking,
        // non-adjacent vertex of an object is applied to the object" -- the vertex that
        // completes it, the last (§7.4.1 underlines it); a LINELOOP's closing line takes
        // the initial vertex's (§2.5.13 S/R table note: "an invalid PrimitiveID of 0").
        let pid_vertex = match obj.v.as_slice() {
            &[a, 0] if a > 0 => 0,
            v => v.iter().copied().max().unwrap_or(0),
        };
        let primitive_id = run.pid(pid_vertex);
        let clip_pos: Vec<[f32; 4]> = verts.iter().map(|v| position(v)).collect();
        // A point is one vertex: no part of it lies beyond a plane the rest does not. A
        // must-clip point (inside the guard band, outside the viewport) is drawn whole,
        // bounded by the drawing rectangle (§9.2.4.5: software disables the guard band
        // when GL wants wide points trivially rejected instead).
        let decision = match clip_decision(st, &clip_pos, &verts, stats)? {
            Clip::Must if obj.kind == ObjectType::Point => Clip::Accept,
            d => d,
        };
        match decision {
            Clip::Reject => {}
            Clip::Accept => {
                // §10.6.1: the SF counts the objects it receives from the clipper, when
                // its own Statistics Enable is set.
                if sf.statistics {
                    stats.cl_primitives += 1;
                }
                let o = Obj {
                    provoking_vue: verts[obj.provoking],
                    last_pixel,
                    kind: obj.kind,
                    invert: obj.invert_orientation,
                    back_facing: obj.back_facing,
                    primitive_id,
                    source: None,
                    poly_stipple: obj.poly_stipple,
                    stipple_counter: &stipple_counter,
                    z_bias: 0.0,
                    boundary,
                };
                object(st, front, &verts, &o, raster, mem, ps, stats, watchdog)?;
            }
            Clip::Must => {
                if obj.kind == ObjectType::Line {
                    if let Some(([a, b], ts)) = clipper::clip_line(&clip_planes(st), &verts) {
                        if sf.statistics {
                            stats.cl_primitives += 1;
                        }
                        // As for triangles: the piece interpolates the source line's
                        // attributes, through its ends' parameters along it (clip-space
                        // for perspective, screen-space for noperspective ones).
                        let w = [clip_pos[0][3], clip_pos[1][3]];
                        let perspective = ts.map(|t| [1.0 - t, t, 0.0]);
                        let linear = ts.map(|t| {
                            let pw = (1.0 - t) * w[0] + t * w[1];
                            let s = if pw == 0.0 { t } else { t * w[1] / pw };
                            [1.0 - s, s, 0.0]
                        });
                        let o = Obj {
                            provoking_vue: verts[obj.provoking],
                            last_pixel,
                            kind: ObjectType::Line,
                            invert: false,
                            back_facing: obj.back_facing,
                            primitive_id,
                            poly_stipple: false,
                            stipple_counter: &stipple_counter,
                            z_bias: 0.0,
                            boundary: Boundary::ALL,
                            source: Some(SourceTriangle {
                                vues: [verts[0], verts[1], verts[0]],
                                perspective: [perspective[0], perspective[1], perspective[0]],
                                linear: [linear[0], linear[1], linear[0]],
                            }),
                        };
                        object(st, front, &[&a, &b], &o, raster, mem, ps, stats, watchdog)?;
                    }
                    continue;
                }
                if obj.kind != ObjectType::Triangle {
                    // §9.2.4.6: "there are [a] number of restrictions on the use of
                    // RECTLIST, especially regarding the CLIP unit" (its implied fourth
                    // vertex is not clipped): a rectangle that must be clipped is the
                    // driver's mistake.
                    return Err(DrawError::State {
                        command: "3DPRIMITIVE",
                        why: "a RECTLIST rectangle needs clipping, which the CLIP unit does not do for rectangles (seed 004 §9.2.4.6)".into(),
                    });
                }
                let polygon = clipper::clip_triangle(&clip_planes(st), &verts, boundary.edges);
                // Each polygon vertex's screen-linear barycentrics in the source
                // triangle: a clip-space point P = Σ λk·Vk projects to Σ μk·(Vk.xy/wk)
                // with μk = λk·wk / P.w.
                let w = [0, 1, 2].map(|k| clip_pos[k][3]);
                let linear: Vec<[f32; 3]> = polygon
                    .iter()
                    .map(|(_, l, _)| {
                        let pw: f32 = (0..3).map(|k| l[k] * w[k]).sum();
                        std::array::from_fn(|k| if pw == 0.0 { l[k] } else { l[k] * w[k] / pw })
                    })
                    .collect();
                // The clipped polygon goes on as a fan (v0, vi, vi+1), each triangle
                // keeping the source triangle's orientation.
                // Seed 004 §10.3.13 Fill Mode: WIREFRAME draws lines along the boundary of
                // what is left of the triangle (its source edges and the user clip
                // planes' cuts, `clipper::ClippedVertex`), never the fan's inner edges;
                // POINT draws "points at the triangle vertices ... not at clip-inserted
                // vertices": its original vertices alone (a barycentric of 1), those the
                // object draws.
                let original = |l: [f32; 3]| {
                    l.iter().filter(|&&x| x == 0.0).count() == 2
                        && l.iter()
                            .position(|&x| x == 1.0)
                            .is_some_and(|k| boundary.vertices[k])
                };
                let n = polygon.len();
                for i in 1..n.saturating_sub(1) {
                    if sf.statistics {
                        stats.cl_primitives += 1;
                    }
                    let fan = [0, i, i + 1];
                    let l = fan.map(|k| polygon[k].1);
                    // The fan's edges 0-i and (i+1)-0 are the polygon's only at its ends.
                    let polygon_edge = [
                        i == 1 && polygon[0].2,
                        polygon[i].2,
                        i + 1 == n - 1 && polygon[n - 1].2,
                    ];
                    let boundary = Boundary {
                        edges: polygon_edge,
                        vertices: l.map(original),
                    };
                    let tri = fan.map(|k| &polygon[k].0);
                    let o = Obj {
                        provoking_vue: verts[obj.provoking],
                        last_pixel: false,
                        kind: ObjectType::Triangle,
                        invert: obj.invert_orientation,
                        back_facing: false,
                        primitive_id,
                        poly_stipple: obj.poly_stipple,
                        stipple_counter: &stipple_counter,
                        z_bias: 0.0,
                        boundary,
                        source: Some(SourceTriangle {
                            vues: [verts[0], verts[1], verts[2]],
                            perspective: fan.map(|k| polygon[k].1),
                            linear: fan.map(|k| linear[k]),
                        }),
                    };
                    object(st, front, &tri, &o, raster, mem, ps, stats, watchdog)?;
                }
            }
        }
    }
    Ok(())
}

/// An object as the SF sees it.
struct Obj<'v> {
    /// The provoking vertex's VUE (the source object's, for clipped pieces).
    provoking_vue: &'v Vue,
    kind: ObjectType,
    /// The last pixel of this line is drawn (3DSTATE_SF Last Pixel Enable applies to each
    /// line of a list, and to the last line of a strip).
    last_pixel: bool,
    invert: bool,
    back_facing: bool,
    /// The object's PrimitiveID (its provoking vertex's, seed 004 §2.5.13).
    primitive_id: u32,
    /// For a piece of a clipped triangle: its source triangle.
    source: Option<SourceTriangle<'v>>,
    /// Polygon stipple applies (seed 004 §11.3.3.1: not to TRIFAN_NOSTIPPLE objects).
    poly_stipple: bool,
    /// The line stipple counter s (§11.3.2.3).
    stipple_counter: &'v std::cell::Cell<u32>,
    /// Added to every screen z: the global depth offset of the triangle whose edge or
    /// vertex this is (fill modes WIREFRAME and POINT), 0 otherwise.
    z_bias: f32,
    /// For a triangle in WIREFRAME or POINT fill: which of its edges (i to i + 1) and
    /// vertices are drawn: its primitive's outline (`Object::boundary`) where its
    /// vertices' EdgeFlags are set; a piece of a clipped triangle has its fan's inner
    /// edges, view volume cuts and clip-inserted vertices clear too.
    boundary: Boundary,
}

/// Seed 004 §1.8.1 VUE header DWord 2, the object's Viewport Index, taken from its
/// leading vertex (§10.2, "VPIIndex/RTAIndex Selection"), and 0 past 3DSTATE_CLIP's
/// Maximum VPIndex ("a VPIndex value of 0 is passed down the pipeline").
fn viewport_index(st: &DrawState, verts: &[&Vue]) -> u32 {
    let vp = verts
        .first()
        .and_then(|v| v.first())
        .map_or(0, |header| header[2]);
    if vp > st.clip.max_vp_index { 0 } else { vp }
}

fn position(v: &Vue) -> [f32; 4] {
    v.get(POSITION).copied().unwrap_or([0; 4]).map(f)
}

/// An object's covered pixels in raster order, their sample coverage masks (empty when
/// it is rasterized at the pixel location: every sample of a covered pixel), and whether
/// it faces back.
type Coverage = (Vec<(u32, u32)>, Vec<SampleMask>, bool);

/// The rows of `rect` the object can touch: its vertices' screen rows (with a
/// rectangle's implied fourth vertex, and a point's or wide line's half width) widened
/// by a pixel, clamped to the rectangle; `None` when they miss it.
fn object_rows(screen: &[[f32; 4]], obj: &Obj, rect: [u32; 4]) -> Option<(u32, u32)> {
    let mut ys: Vec<f32> = screen.iter().map(|s| s[1]).collect();
    if obj.kind == ObjectType::Rectangle && screen.len() == 3 {
        ys.push(screen[0][1] - screen[1][1] + screen[2][1]);
    }
    let (lo, hi) = ys
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &y| {
            (a.min(y), b.max(y))
        });
    if !lo.is_finite() || !hi.is_finite() {
        // Non-finite positions: let the rasterizer decide over the whole rectangle.
        return Some((rect[1], rect[3]));
    }
    // Points and wide lines reach up to half their width (at most 1024) beyond.
    let margin = match obj.kind {
        ObjectType::Point | ObjectType::Line => 1026.0,
        _ => 2.0,
    };
    let first = (lo - margin).max(rect[1] as f32) as u32;
    let last = (hi + margin).min(rect[3] as f32);
    if last < rect[1] as f32 || first > rect[3] {
        return None;
    }
    Some((first, (last as u32).min(rect[3])))
}

/// SF for one object that survived the clipper, then the WM.
#[expect(
    clippy::too_many_arguments,
    reason = "the draw's stage state, passed down unchanged"
)]
fn object(
    st: &DrawState,
    front: &dyn Front,
    verts: &[&Vue],
    obj: &Obj,
    raster: &RasterState,
    mem: &mut dyn Memory,
    ps: &mut PixelStage,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
) -> Result<(), DrawError> {
    let sf = &st.setup;
    let clip_pos: Vec<[f32; 4]> = verts.iter().map(|v| position(v)).collect();
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
            let s = match &sf.viewport {
                Some(v) => v.transform(ndc),
                None => ndc,
            };
            let o = sf.drawing_rectangle.origin;
            [s[0] + o[0] as f32, s[1] + o[1] as f32, s[2], rhw]
        })
        .collect();
    let mut screen = screen;
    for s in &mut screen {
        s[2] += obj.z_bias;
    }
    // Seed 004 §11.5.1: Global Depth Offset, applied to triangles only: to solid ones
    // here, to the edges and vertices of the other fill modes through their `z_bias`.
    let offset_bias = |o: &crate::sf::DepthOffset| {
        crate::sf::depth_offset_bias(
            o,
            [0, 1, 2].map(|i| [screen[i][0], screen[i][1], screen[i][2]]),
        )
    };
    if obj.kind == ObjectType::Triangle && sf.fill != [FillMode::Solid; 2] {
        return fill_mode_object(
            st, front, verts, obj, raster, &screen, mem, ps, stats, watchdog,
        );
    }
    if let Some(o) = sf
        .depth_offset
        .filter(|_| obj.kind == ObjectType::Triangle && sf.depth_offset_modes[0])
    {
        let bias = offset_bias(&o);
        for s in &mut screen {
            s[2] += bias;
        }
    }
    let xy = |i: usize| [screen[i][0], screen[i][1]];
    // Without a state point width: VUE header dword 3, Point Width (seed 004 §1.8),
    // clamped to 3DSTATE_CLIP's Minimum and Maximum Point Width (a NaN to the minimum).
    let point_width = sf.point_width.unwrap_or_else(|| {
        let [min, max] = st.clip.point_width_range;
        let w = f(verts[0].first().copied().unwrap_or([0; 4])[3]);
        if w.is_nan() { min } else { w.max(min).min(max) }
    });
    let point = (obj.kind == ObjectType::Point).then(|| {
        (
            [xy(0)[0] - point_width / 2.0, xy(0)[1] - point_width / 2.0],
            point_width,
        )
    });
    // Seed 004 §11.4.1: with multisampling, polygons and points are rasterized at the
    // pattern's samples in the PATTERN modes, lines in the ON modes; otherwise at the
    // pixel location.
    let ms = &st.multisample;
    let pattern = (ms.samples > 1
        && if obj.kind == ObjectType::Line {
            ms.pattern_lines
        } else {
            ms.pattern_polygons
        })
    .then_some(&ms.pattern);
    // §10.3.12.5: a line of non-zero width with 3DSTATE_SF Anti-Aliasing Enable, drawn
    // without multisampling, is the anti-aliased rectangle.
    let aa_line = (obj.kind == ObjectType::Line
        && pattern.is_none()
        && sf.antialiasing
        && sf.line_width > 0.0)
        .then(|| raster::AaLine {
            a: xy(0),
            b: xy(1),
            width: sf.line_width,
            region: sf.aa_regions[0],
            cap: sf.aa_regions[1],
        });
    // The object's pixels inside `raster.rect`; `None` when it is culled.
    let cover = |raster: &RasterState| -> Result<Option<Coverage>, DrawError> {
        Ok(Some(match obj.kind {
            ObjectType::Triangle => {
                let v = [xy(0), xy(1), xy(2)];
                let ((px, masks), winding) = match pattern {
                    Some(p) => crate::coverage::triangle(v, raster, p),
                    None => {
                        let (px, w) = raster::triangle(v, raster);
                        ((px, vec![]), w)
                    }
                };
                let Some(winding) = winding else {
                    return Ok(None);
                };
                let front = sf.front_winding;
                if culled(sf.cull, front, winding, obj.invert) {
                    return Ok(None);
                }
                let facing_front = (winding == front) != obj.invert;
                (px, masks, !facing_front)
            }
            ObjectType::Rectangle => {
                let v = [xy(0), xy(1), xy(2)];
                let (px, masks) = match pattern {
                    Some(p) => crate::coverage::rectangle(v, raster, p),
                    None => (raster::rectangle(v, raster), vec![]),
                };
                (px, masks, false)
            }
            ObjectType::Point => {
                let (px, masks) = match pattern {
                    Some(p) => crate::coverage::point(xy(0), point_width, sf.point_rule, raster, p),
                    None => (
                        raster::point(xy(0), point_width, sf.point_rule, raster),
                        vec![],
                    ),
                };
                (px, masks, obj.back_facing)
            }
            ObjectType::Line => {
                let width = sf.line_width;
                if let Some(p) = pattern {
                    let (px, masks) = crate::coverage::line(xy(0), xy(1), width, raster, p);
                    (px, masks, obj.back_facing)
                } else if width == 0.0 {
                    (
                        raster::zero_width_line(xy(0), xy(1), sf.diamond, obj.last_pixel, raster),
                        vec![],
                        obj.back_facing,
                    )
                } else if let Some(l) = aa_line {
                    (l.pixels(raster), vec![], obj.back_facing)
                } else {
                    (
                        raster::wide_line(xy(0), xy(1), width, raster),
                        vec![],
                        obj.back_facing,
                    )
                }
            }
        }))
    };
    // A stippled line's pixels over the whole drawing rectangle, whose order along the
    // line drives the stipple counter (the bands below see only some of them).
    let line_pixels = match (sf.line_stipple, obj.kind) {
        (Some(_), ObjectType::Line) => cover(raster)?.map(|c| c.0).unwrap_or_default(),
        _ => vec![],
    };
    let stipple_order = if line_pixels.is_empty() {
        Default::default()
    } else {
        line_order(&line_pixels, xy(0), xy(1))
    };
    // The pixels go to the WM in bands of rows, each at most about 2^20 pixels, so that
    // memory stays bounded however large the object and the drawing rectangle (band
    // boundaries are even rows: subspans are never split).
    let full = raster.rect;
    let Some((y_first, y_last)) = object_rows(&screen, obj, full) else {
        return Ok(());
    };
    let width = u64::from(full[2].saturating_sub(full[0])) + 1;
    let rows_per_band = ((1u64 << 20) / width).clamp(2, 1 << 16) as u32 & !1;
    let mut y = y_first;
    while y <= y_last {
        let band_end = (y / rows_per_band)
            .saturating_add(1)
            .saturating_mul(rows_per_band)
            .saturating_sub(1)
            .min(y_last);
        let band = RasterState {
            rect: [full[0], y, full[2], band_end],
            ..*raster
        };
        y = band_end.saturating_add(1);
        let Some((mut pixels, mut coverage, back_facing)) = cover(&band)? else {
            return Ok(());
        };
        // §11.3.3.1: polygon stipple keeps the pixels of the pattern's set bits.
        if let Some(p) = sf.polygon_stipple.filter(|_| obj.poly_stipple)
            && obj.kind == ObjectType::Triangle
        {
            retain_pixels(&mut pixels, &mut coverage, |(x, y)| p.keeps(x, y));
        }
        // §11.3.2.3: line stipple (of non-AA lines) keeps the pixels whose counter
        // selects a set bit; the counter runs over the line's pixels in order from its
        // start.
        if let (Some(l), ObjectType::Line) = (sf.line_stipple, obj.kind) {
            let counter = obj.stipple_counter.get();
            let order = &stipple_order.0;
            retain_pixels(&mut pixels, &mut coverage, |p| {
                order
                    .get(&p)
                    .is_some_and(|&i| l.keeps(counter.wrapping_add(i)))
            });
        }
        if pixels.is_empty() {
            if band_end == u32::MAX {
                break;
            }
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
            front,
            mem,
            &Primitive {
                corners,
                provoking_vue: obj.provoking_vue,
                back_facing,
                primitive_id: obj.primitive_id,
                pixels: pixels.into(),
                coverage: coverage.into(),
                aa_line,
                point,
                source: obj.source.as_ref().map(|s| SourceTriangle {
                    vues: s.vues,
                    perspective: s.perspective,
                    linear: s.linear,
                }),
            },
            stats,
            watchdog,
        )?;
        if band_end == u32::MAX {
            break;
        }
    }
    obj.stipple_counter.set(
        obj.stipple_counter
            .get()
            .wrapping_add(line_pixels.len() as u32),
    );
    Ok(())
}

/// A triangle of a draw whose fill modes are not both SOLID (seed 004 §10.3.13 Front/
/// Back Face Fill Mode): culled as a triangle, then by the fill mode of the face it
/// shows, drawn solid, as its three edges (WIREFRAME: lines from v0 to v1, v1 to v2
/// and v2 to v0, with the line state) or as its three vertices (POINT: points with the
/// point state), each carrying the triangle's facing, provoking vertex and PrimitiveID,
/// and the triangle's global depth offset when Global Depth Offset Enable Wireframe or
/// Point is set (§11.5.1).
#[expect(
    clippy::too_many_arguments,
    reason = "the draw's stage state, passed down unchanged"
)]
fn fill_mode_object(
    st: &DrawState,
    front: &dyn Front,
    verts: &[&Vue],
    obj: &Obj,
    raster: &RasterState,
    screen: &[[f32; 4]],
    mem: &mut dyn Memory,
    ps: &mut PixelStage,
    stats: &mut Statistics,
    watchdog: &mut Watchdog,
) -> Result<(), DrawError> {
    let sf = &st.setup;
    // Twice the signed screen area (y down: positive is clockwise).
    let area = (screen[1][0] - screen[0][0]) * (screen[2][1] - screen[0][1])
        - (screen[1][1] - screen[0][1]) * (screen[2][0] - screen[0][0]);
    if area == 0.0 || area.is_nan() {
        return Ok(());
    }
    let winding = if area > 0.0 {
        crate::raster::Winding::Cw
    } else {
        crate::raster::Winding::Ccw
    };
    if culled(sf.cull, sf.front_winding, winding, obj.invert) {
        return Ok(());
    }
    let back = (winding == sf.front_winding) == obj.invert;
    let (kind, mode_index) = match sf.fill[usize::from(back)] {
        FillMode::Solid => {
            // This face is solid: the triangle as it is.
            let solid = SetupState {
                fill: [FillMode::Solid; 2],
                ..*sf
            };
            let st = DrawState {
                setup: solid,
                ..st.clone()
            };
            return object(&st, front, verts, obj, raster, mem, ps, stats, watchdog);
        }
        FillMode::Wireframe => (ObjectType::Line, 1),
        FillMode::Point => (ObjectType::Point, 2),
        FillMode::Reserved(v) => {
            return Err(DrawError::State {
                command: "3DSTATE_SF",
                why: format!("Fill Mode {v} is reserved (seed 004 §10.3.13)"),
            });
        }
    };
    let z_bias = match sf
        .depth_offset
        .filter(|_| sf.depth_offset_modes[mode_index])
    {
        Some(o) => crate::sf::depth_offset_bias(
            &o,
            [0, 1, 2].map(|i| [screen[i][0], screen[i][1], screen[i][2]]),
        ),
        None => 0.0,
    };
    let pieces: &[&[usize]] = if kind == ObjectType::Line {
        &[&[0, 1], &[1, 2], &[2, 0]]
    } else {
        &[&[0], &[1], &[2]]
    };
    for piece in pieces {
        // Edge i runs from vertex i; a point is vertex i's.
        let drawn = if kind == ObjectType::Line {
            obj.boundary.edges[piece[0]]
        } else {
            obj.boundary.vertices[piece[0]]
        };
        if !drawn {
            continue;
        }
        let vs: Vec<&Vue> = piece.iter().map(|&i| verts[i]).collect();
        let o = Obj {
            provoking_vue: obj.provoking_vue,
            kind,
            last_pixel: sf.last_pixel,
            invert: false,
            back_facing: back,
            primitive_id: obj.primitive_id,
            source: None,
            poly_stipple: false,
            stipple_counter: obj.stipple_counter,
            z_bias: obj.z_bias + z_bias,
            boundary: Boundary::ALL,
        };
        object(st, front, &vs, &o, raster, mem, ps, stats, watchdog)?;
    }
    Ok(())
}

/// Keeps the pixels (and their coverage masks, when there are some) that `keep` keeps.
fn retain_pixels(
    pixels: &mut Vec<(u32, u32)>,
    coverage: &mut Vec<SampleMask>,
    keep: impl Fn((u32, u32)) -> bool,
) {
    if coverage.is_empty() {
        pixels.retain(|&p| keep(p));
        return;
    }
    let mut masks = std::mem::take(coverage).into_iter();
    pixels.retain(|&p| {
        let m = masks.next().unwrap_or(0);
        let k = keep(p);
        if k {
            coverage.push(m);
        }
        k
    });
}

/// Each pixel of a line's `pixels` with its stipple counter offset (§11.3.2.3: the
/// counter advances as the line's pixels are produced, from its start towards its end),
/// and how far the counter advances over the line. A line produces its pixels column by
/// column along its major axis (x when |dx| >= |dy|): the pixels of one column, a
/// single pixel for a thin line and `width` of them for a wide one, take one counter
/// value, as OpenGL's stipple of wide lines asks. The column holding the start point
/// takes offset 0; the counter advances by the columns from the start point's to the
/// end point's, the end point's column being the next segment's first.
fn line_order(
    pixels: &[(u32, u32)],
    a: [f32; 2],
    b: [f32; 2],
) -> (std::collections::HashMap<(u32, u32), u32>, u32) {
    let x_major = (b[0] - a[0]).abs() >= (b[1] - a[1]).abs();
    let k = usize::from(!x_major);
    let (start, end) = (a[k].floor() as i64, b[k].floor() as i64);
    let forward = end >= start;
    let major = |&(x, y): &(u32, u32)| i64::from(if x_major { x } else { y });
    let order = pixels
        .iter()
        .map(|p| {
            let d = if forward {
                major(p) - start
            } else {
                start - major(p)
            };
            (*p, d.clamp(0, i64::from(u32::MAX)) as u32)
        })
        .collect();
    (order, end.abs_diff(start).min(u64::from(u32::MAX)) as u32)
}

/// The rasterizer's state: subpixel precision (3DSTATE_SF), the sampling grid
/// (3DSTATE_MULTISAMPLE Pixel Location) and the drawing rectangle intersected with the
/// scissor rectangle when enabled (§10.3.11, §11.3.1).
fn raster_state(st: &DrawState) -> RasterState {
    let sf = &st.setup;
    let mut rect = sf.drawing_rectangle.rect;
    if let Some(s) = sf.scissor {
        rect[0] = rect[0].max(s[0]);
        rect[1] = rect[1].max(s[1]);
        rect[2] = rect[2].min(s[2]);
        rect[3] = rect[3].min(s[3]);
    }
    RasterState {
        subpixel: sf.subpixel,
        half_pixel_centers: st.multisample.pixel_center,
        rect,
    }
}

/// What the CLIP stage does with an object.
enum Clip {
    Accept,
    Reject,
    Must,
}

/// The planes the clipper clips against, from the same controls as the clip test: the
/// guard band (or the viewport) in x and y, near and far when the Z test is on.
fn clip_planes(st: &DrawState) -> clipper::Planes {
    let t = st.clip.test;
    let xy = if t.guardband {
        Some(t.gb)
    } else if t.viewport_xy {
        Some([-1.0, 1.0, -1.0, 1.0])
    } else {
        None
    };
    clipper::Planes {
        xy,
        z: t.viewport_z.then_some(if t.opengl_z { -1.0 } else { 0.0 }),
        user: t.ucd_mask,
    }
}

/// The CLIP stage's decision for one object (seed 004 §9.4.2-9.4.3): ClipDetermination
/// on the vertices' outcodes in CLIPMODE_NORMAL; everything passes when the stage is
/// disabled.
fn clip_decision(
    st: &DrawState,
    pos: &[[f32; 4]],
    verts: &[&Vue],
    stats: &mut Statistics,
) -> Result<Clip, DrawError> {
    let c = &st.clip;
    if !c.enabled {
        return Ok(Clip::Accept);
    }
    // Seed 004 §1.9 statistics table and §9.7.1: every object entering the (enabled)
    // clipper counts, whatever the clipping does.
    if c.statistics {
        stats.cl_invocations += 1;
    }
    Ok(match c.mode {
        ClipMode::Normal => {
            let test = c.test;
            let cull = c.cull_mask;
            let dists: Vec<[f32; 8]> = verts.iter().map(|v| clipper::clip_distances(v)).collect();
            // The cull test (§9.3.1, User Clip Distance Cull Test Enable Bitmask): an
            // object all of whose vertices are outside one enabled distance is rejected;
            // it never makes the object must-clip.
            let outside = |d: f32| d < 0.0 || d.is_nan();
            if (0..8).any(|i| cull & (1 << i) != 0 && dists.iter().all(|d| outside(d[i]))) {
                return Ok(Clip::Reject);
            }
            let codes: Vec<_> = pos
                .iter()
                .zip(&dists)
                .map(|(p, d)| {
                    let rhw = 1.0 / p[3];
                    vertex_clip_test([p[0] * rhw, p[1] * rhw, p[2] * rhw], rhw, &test, d)
                })
                .collect();
            // The clip-test distances take part in trivial reject, trivial accept and
            // must-clip alike (§9.3.1), i.e. UserClipFlags MustClip is enabled.
            match clip_determination(&codes, true) {
                ClipStatus::Accept => Clip::Accept,
                ClipStatus::Reject | ClipStatus::Bad => Clip::Reject,
                ClipStatus::MustClip => Clip::Must,
            }
        }
        ClipMode::RejectAll => Clip::Reject,
        // §9.4.3.5: everything passes except BAD objects (a NaN or infinite coordinate).
        ClipMode::AcceptAll => {
            let bad = pos
                .iter()
                .any(|p| p.iter().any(|v| !v.is_finite()) || !(1.0 / p[3]).is_finite());
            if bad { Clip::Reject } else { Clip::Accept }
        }
        ClipMode::Reserved(v) => {
            return Err(DrawError::State {
                command: "3DSTATE_CLIP",
                why: format!("Clip Mode {v} is reserved"),
            });
        }
    })
}
