//! The draw's neutral state from Gen11's latched commands and the indirect state they
//! point to (seed 003's 3DSTATE_*_BODY tables; headers and what the seed lacks from
//! Mesa's genxml gen11.xml, `crates/spec/defs/gen11`). Commands never sent read as their
//! all-zero power-on state.

use super::{DrawFront, get};
use crate::bases::address;
use gtsim_mem::Memory;
use gtsim_pipe3d::assembly::ProvokingVertex;
use gtsim_pipe3d::clip::ClipTest;
use gtsim_pipe3d::draw::{DrawError, unsupported};
use gtsim_pipe3d::index::IndexBuffer;
use gtsim_pipe3d::raster::{DiamondRule, PointRule, SubpixelBits, Winding};
use gtsim_pipe3d::sf::{CullMode, DepthOffset, DepthOffsetFormat, Viewport};
use gtsim_pipe3d::state::{
    AttributeSetup, AttributeSwizzle, ClipMode, ClipState, CoarseShading, ConstantSource,
    DrawCounts, DrawState, DrawingRectangle, FillMode, GeometryShader, KernelPointer, LineStipple,
    Multisample, PixelShader, PolygonStipple, PositionOffset, PsKernel, Scratch, SetupState,
    StageResources, SwizzleSelect, VertexElement, VertexFetch, VertexShader, check_bound,
    read_indirect,
};
use gtsim_pipe3d::vf::VertexBuffer;
use gtsim_spec::gen11::*;
use gtsim_spec::shared::{SurfaceFormat, ThreeDVertexComponentControl as C};

fn bad(command: &'static str, why: impl Into<String>) -> DrawError {
    DrawError::State {
        command,
        why: why.into(),
    }
}

/// The draw's state, or `None` when it draws nothing (zero vertices or instances: no
/// state is read).
pub(super) fn draw_state(f: &DrawFront, mem: &dyn Memory) -> Result<Option<DrawState>, DrawError> {
    let s = f.state;
    let p = f.primitive;
    let counts = draw_counts(f.registers, p)?;
    if p.end_offset_enable {
        return Err(unsupported(
            "3DPRIMITIVE End Offset Enable on Gen11",
            "Gen11 PRM Vol 2a 3DPRIMITIVE",
        ));
    }
    if counts.vertex_count == 0 || counts.instance_count == 0 {
        return Ok(None);
    }
    let vf = vertex_fetch(f, counts)?;
    let vs = vertex_shader(f, mem)?;
    let tess = tessellation(f, mem)?;
    let gs = geometry_shader(f, mem)?;
    let so = get(&s.streamout);
    let sol = super::stream_out::stream_output(s, f.registers, &so)?;
    let raster = get(&s.raster);
    let sf = get(&s.sf);
    let clip = get(&s.clip);
    let wm = get(&s.wm);
    let dynamic = |off: u64| address(f.bases.dynamic.wrapping_add(off));
    let viewport = if sf.viewport_transform_enable || clip.clip_enable {
        Some(dynamic_state(
            f,
            mem,
            "SF_CLIP_VIEWPORT",
            dynamic(get(&s.viewport_state_pointers_sf_clip).sf_clip_viewport_pointer),
            SfClipViewport::DWORDS,
            SfClipViewport::unpack,
        )?)
    } else {
        None
    };
    let scissor0 = scissor(f, mem, &raster, viewport.as_ref(), 0)?;
    // The viewport array's entries past the first, up to 3DSTATE_CLIP's Maximum VP Index
    // (seed 004 §10.3 "Up to 16 structures"; SF_CLIP_VIEWPORT and SCISSOR_RECT entries
    // follow each other): what an object whose Viewport Index selects one maps, clips
    // and scissors with.
    let used = sf.viewport_transform_enable || clip.clip_enable;
    let viewports = (1..=u64::from(clip.maximum_vp_index))
        .filter(|_| used)
        .map(|i| {
            let v = dynamic_state(
                f,
                mem,
                "SF_CLIP_VIEWPORT",
                dynamic(get(&s.viewport_state_pointers_sf_clip).sf_clip_viewport_pointer)
                    .wrapping_add(i * SfClipViewport::DWORDS as u64 * 4),
                SfClipViewport::DWORDS,
                SfClipViewport::unpack,
            )?;
            let sc = scissor(f, mem, &raster, Some(&v), i)?;
            let setup = setup_state(f, &sf, &raster, &wm, Some(&v), sc)?;
            let c = clip_state(s, &clip, &raster, Some(&v))?;
            Ok(gtsim_pipe3d::state::ViewportSet {
                viewport: setup.viewport,
                scissor: setup.scissor,
                guardband: c.test.gb,
            })
        })
        .collect::<Result<Vec<_>, DrawError>>()?;
    let ps = pixel_shader(f, mem)?;
    let msaa = multisample(f)?;
    // Seed 003 3DSTATE_MULTISAMPLE_BODY Number of Multisamples: "how many samples/pixel
    // exist in all RTs and the Depth Buffer".
    let depth = super::depth::depth_buffer(f, mem, msaa.samples)?;
    Ok(Some(DrawState {
        encoding: gtsim_isa::Encoding::IceLake,
        payload: &crate::payload::DRAW,
        vf,
        vs,
        tess,
        gs,
        sol,
        clip: clip_state(s, &clip, &raster, viewport.as_ref())?,
        setup: setup_state(f, &sf, &raster, &wm, viewport.as_ref(), scissor0)?,
        attributes: attribute_setup(f),
        ps,
        depth,
        multisample: msaa,
        viewports,
    }))
}

/// Indirect state at `addr`, checked against Dynamic State Buffer Size.
fn dynamic_state<T>(
    f: &DrawFront,
    mem: &dyn Memory,
    name: &'static str,
    addr: u64,
    dwords: usize,
    unpack: fn(&[u32]) -> Result<T, gtsim_spec::UnpackError>,
) -> Result<T, DrawError> {
    check_bound(
        name,
        "Dynamic State Buffer Size",
        addr,
        dwords as u64 * 4,
        f.bases.dynamic_bound,
    )?;
    read_indirect(mem, name, addr, dwords, unpack)
}

/// 3DPRIMITIVE's counts, or with Indirect Parameter Enable the 3DPRIM_* registers
/// (Gen11 PRM Vol 2a 3DPRIMITIVE; the same registers as Gen7's, seed 004 §2.5.1).
fn draw_counts(
    l: &dyn gtsim_pipe3d::state::Registers,
    p: &ThreeDPrimitive,
) -> Result<DrawCounts, DrawError> {
    if p.indirect_parameter_enable {
        return Ok(DrawCounts {
            vertex_count: l.register(ThreeDPrimVertexCount::OFFSET),
            start_vertex: l.register(ThreeDPrimStartVertex::OFFSET),
            instance_count: l.register(ThreeDPrimInstanceCount::OFFSET),
            start_instance: l.register(ThreeDPrimStartInstance::OFFSET),
            base_vertex: l.register(ThreeDPrimBaseVertex::OFFSET) as i32,
        });
    }
    Ok(DrawCounts {
        vertex_count: p.vertex_count_per_instance,
        start_vertex: p.start_vertex_location,
        instance_count: p.instance_count,
        start_instance: p.start_instance_location,
        base_vertex: p.base_vertex_location,
    })
}

/// The vertex fetcher (Gen8+): 3DSTATE_VF_TOPOLOGY's topology, the index buffer by
/// size, vertex buffers by size, instancing per element (3DSTATE_VF_INSTANCING: each
/// instanced element reads its own copy of its buffer with the element's step rate) and
/// the system-generated values of 3DSTATE_VF_SGVS, stored into the components they
/// name as Gen7's STORE_VID/STORE_IID controls do.
fn vertex_fetch(f: &DrawFront, counts: DrawCounts) -> Result<VertexFetch, DrawError> {
    let s = f.state;
    let p = f.primitive;
    let vf = get(&s.vf);
    if vf.component_packing_enable {
        return Err(unsupported(
            "3DSTATE_VF Component Packing Enable",
            "seed 003 3DSTATE_VF_COMPONENT_PACKING",
        ));
    }
    if vf.vertex_id_offset_enable || vf.sequential_draw_cut_index_enable {
        return Err(unsupported(
            "3DSTATE_VF VertexID Offset Enable / Sequential Draw Cut Index Enable",
            "Gen11 PRM Vol 2a 3DSTATE_VF",
        ));
    }
    let index_buffer = if p.vertex_access_type == three_d_primitive::VertexAccessType::RANDOM {
        let ib = get(&s.index_buffer);
        let format = ib.index_format.0;
        let start = address(ib.buffer_starting_address);
        Some(IndexBuffer {
            start,
            // Buffer Size bytes from the start; an empty buffer reads as zeros.
            end: start.wrapping_add(u64::from(ib.buffer_size.max(1))) - 1,
            format,
            // Seed 003 3DSTATE_VF_BODY Cut Index: any value, compared with each index.
            cut_index: vf.indexed_draw_cut_index_enable.then_some(vf.cut_index),
            cut_any_topology: true,
        })
    } else {
        None
    };
    let mut vertex_buffers: Vec<Option<VertexBuffer>> = vec![None; 33];
    for vb in &get(&s.vertex_buffers).vertex_buffer_state {
        let slot = vertex_buffers
            .get_mut(usize::from(vb.vertex_buffer_index))
            .ok_or_else(|| {
                bad(
                    "3DSTATE_VERTEX_BUFFERS",
                    format!("Vertex Buffer Index {} > 32", vb.vertex_buffer_index),
                )
            })?;
        let start = address(vb.buffer_starting_address);
        // A null or empty buffer (anv binds unused slots as size 0 at address 0) has no
        // last byte: it is left unbound, and its end is never worked out.
        *slot = (!vb.null_vertex_buffer && vb.buffer_size != 0).then(|| VertexBuffer {
            start,
            pitch: u32::from(vb.buffer_pitch),
            end: start.wrapping_add(u64::from(vb.buffer_size) - 1),
            instance_step_rate: None,
            address_bits: 48,
        });
    }
    let mut elements: Vec<VertexElement> = get(&s.vertex_elements)
        .element
        .iter()
        .map(|e| VertexElement {
            buffer: usize::from(e.vertex_buffer_index),
            valid: e.valid != 0,
            format: SurfaceFormat(u32::from(e.source_element_format)),
            offset: u32::from(e.source_element_offset),
            components: [
                e.component_0_control,
                e.component_1_control,
                e.component_2_control,
                e.component_3_control,
            ]
            .map(|c| C(u32::from(c))),
            edge_flag: e.edge_flag_enable,
        })
        .collect();
    // Instancing per element: an instanced element reads a copy of its buffer that
    // steps per instance (buffers past index 32 are these copies).
    for (i, e) in elements.iter_mut().enumerate() {
        let Some(inst) = s.vf_instancing.get(i).and_then(Option::as_ref) else {
            continue;
        };
        if !inst.instancing_enable {
            continue;
        }
        if let Some(Some(vb)) = vertex_buffers.get(e.buffer).copied() {
            vertex_buffers.push(Some(VertexBuffer {
                instance_step_rate: Some(inst.instance_data_step_rate),
                ..vb
            }));
            e.buffer = vertex_buffers.len() - 1;
        }
    }
    // 3DSTATE_VF_SGVS: VertexID and InstanceID into the element and component named.
    let sgvs = get(&s.vf_sgvs);
    for (on, element, component, control) in [
        (
            sgvs.vertex_id_enable,
            sgvs.vertex_id_element_offset,
            sgvs.vertex_id_component_number.0,
            C::VFCOMP_STORE_VID,
        ),
        (
            sgvs.instance_id_enable,
            sgvs.instance_id_element_offset,
            sgvs.instance_id_component_number.0,
            C::VFCOMP_STORE_IID,
        ),
    ] {
        if !on {
            continue;
        }
        let e = element_at(&mut elements, usize::from(element));
        e.valid = true;
        e.components[(component & 3) as usize] = control;
    }
    let draw_values = xp_values(f, counts, &mut elements)?;
    Ok(VertexFetch {
        topology: get(&s.vf_topology).primitive_topology_type,
        counts,
        index_buffer,
        vertex_buffers,
        elements,
        statistics: get(&s.vf_statistics).statistics_enable,
        draw_values,
    })
}

/// Element `at`, the elements before it made up to it as empty ones (no source, every
/// component NOSTORE) where the state has none.
fn element_at(elements: &mut Vec<VertexElement>, at: usize) -> &mut VertexElement {
    while elements.len() <= at {
        elements.push(VertexElement {
            buffer: 0,
            valid: false,
            format: SurfaceFormat::R32G32B32A32_FLOAT,
            offset: 0,
            components: [C::VFCOMP_NOSTORE; 4],
            edge_flag: false,
        });
    }
    &mut elements[at]
}

/// 3DSTATE_VF_SGVS_2 (seed 003): the XP0, XP1 and XP2 system values, each stored into
/// every vertex at the element and component it names. XP0 is the vertex location
/// (Start Vertex Location for SEQUENTIAL access, Base Vertex Location for RANDOM) or
/// the 3DPRIMITIVE's XP0 parameter; XP1 the Start Instance Location or its XP1
/// parameter; XP2 always its XP2 parameter. The parameters are those of the extended
/// 3DPRIMITIVE (Extended Parameters Present, DWs 7-9; Mesa genxml gen11.xml
/// 3DPRIMITIVE_EXTENDED); a parameter asked for without them, or with Indirect
/// Parameter Enable (whose 3DPRIM_XP registers the model lacks), is refused.
fn xp_values(
    f: &DrawFront,
    counts: DrawCounts,
    elements: &mut Vec<VertexElement>,
) -> Result<Vec<(usize, usize, u32)>, DrawError> {
    let x = get(&f.state.vf_sgvs_2);
    let random = f.primitive.vertex_access_type == three_d_primitive::VertexAccessType::RANDOM;
    let location = if random {
        counts.base_vertex as u32
    } else {
        counts.start_vertex
    };
    let parameter = |i: usize| -> Result<u32, DrawError> {
        match f.extended {
            Some(xp) if !f.primitive.indirect_parameter_enable => Ok(xp[i]),
            _ => Err(unsupported(
                format!(
                    "3DSTATE_VF_SGVS_2 XP{i} from the 3DPRIMITIVE's XP{i} parameter without the extended 3DPRIMITIVE's parameters (or from the 3DPRIM_XP registers of an indirect draw)"
                ),
                "seed 003 3DSTATE_VF_SGVS_2",
            )),
        }
    };
    let mut out = vec![];
    for (i, on, element, component, location_source) in [
        (
            0,
            x.xp0_enable,
            x.xp0_element_offset,
            x.xp0_component_number.0,
            x.xp0_source_select.0 == 1,
        ),
        (
            1,
            x.xp1_enable,
            x.xp1_element_offset,
            x.xp1_component_number.0,
            x.xp1_source_select.0 == 1,
        ),
        (
            2,
            x.xp2_enable,
            x.xp2_element_offset,
            x.xp2_component_number.0,
            false,
        ),
    ] {
        if on == 0 {
            continue;
        }
        let value = match (i, location_source) {
            (0, true) => location,
            (1, true) => counts.start_instance,
            _ => parameter(i)?,
        };
        let at = usize::from(element);
        element_at(elements, at);
        out.push((at, (component & 3) as usize, value));
    }
    Ok(out)
}

/// Per-thread scratch space on Gen8+ (Mesa iris_state.c programs ffs(size) - 11): 1 KiB
/// << n.
fn scratch(base: u64, n: u8) -> Scratch {
    Scratch {
        base,
        per_thread: u32::from(n),
        bytes_per_thread: 1024 << u64::from(n.min(11)),
    }
}

/// A stage's push constants: 3DSTATE_CONSTANT_* buffers 0-3, each Read Length 256-bit
/// registers at its pointer, in order. Buffer 0's pointer is an offset from Dynamic
/// State Base Address unless CS_DEBUG_MODE2 CONSTANT_BUFFER Address Offset Disable is
/// set (which iris sets); buffers 1-3 are graphics addresses (Gen11 PRM Vol 2a
/// 3DSTATE_CONSTANT_BODY).
fn push_constants(
    f: &DrawFront,
    mem: &dyn Memory,
    body: &ThreeDStateConstantBody,
) -> Result<Vec<[u8; 32]>, DrawError> {
    let debug = f.registers.register(CsDebugMode2::OFFSET);
    let offset_disable = CsDebugMode2::DEF
        .field("CONSTANT_BUFFER Address Offset Disable")
        .is_some_and(|fl| fl.raw(&[debug]) != 0);
    let buffers = [
        (
            body.constant_buffer_0_read_length,
            body.pointer_to_constant_buffer_0,
        ),
        (
            body.constant_buffer_1_read_length,
            body.pointer_to_constant_buffer_1,
        ),
        (
            body.constant_buffer_2_read_length,
            body.pointer_to_constant_buffer_2,
        ),
        (
            body.constant_buffer_3_read_length,
            body.pointer_to_constant_buffer_3,
        ),
    ];
    let mut out = Vec::new();
    for (i, (len, ptr)) in buffers.into_iter().enumerate() {
        if len == 0 {
            continue;
        }
        let at = if i == 0 && !offset_disable {
            address(f.bases.dynamic.wrapping_add(ptr))
        } else {
            address(ptr)
        };
        let regs = gtsim_pipe3d::state::read_curbe(mem, at, usize::from(len) * 32).map_err(
            |e| match e {
                DrawError::Fault { fault, .. } => DrawError::Fault {
                    unit: "3DSTATE_CONSTANT_*",
                    fault,
                },
                other => other,
            },
        )?;
        out.extend(regs);
    }
    if out.len() > 64 {
        return Err(bad(
            "3DSTATE_CONSTANT_*",
            format!("{} push constant registers (at most 64)", out.len()),
        ));
    }
    Ok(out)
}

fn kernel(f: &DrawFront, offset: u64) -> KernelPointer {
    KernelPointer {
        address: address(f.bases.instruction.wrapping_add(offset)),
        bound: f.bases.instruction_bound,
    }
}

/// 3DSTATE_VS (seed 003 3DSTATE_VS_BODY): a SIMD8 kernel (Gen8+ SIMD4x2 dispatch is
/// refused, as is SIMD8 single-instance dispatch).
fn vertex_shader(f: &DrawFront, mem: &dyn Memory) -> Result<VertexShader, DrawError> {
    let s = f.state;
    let vs = get(&s.vs);
    let t = f.tables.vs;
    let resources = StageResources {
        binding_table: t.binding_table_pointer,
        sampler_state: t.sampler_state_pointer,
        constants: if vs.enable {
            push_constants(f, mem, &get(&s.constant_vs).constant_body)?
        } else {
            Vec::new()
        },
    };
    if vs.enable && !vs.simd8_dispatch_enable {
        return Err(unsupported(
            "3DSTATE_VS SIMD4x2 dispatch on Gen11 (SIMD8 Dispatch Enable clear)",
            "seed 003 3DSTATE_VS_BODY",
        ));
    }
    if vs.enable && vs.simd8_single_instance_dispatch_enable {
        return Err(unsupported(
            "3DSTATE_VS SIMD8 Single Instance Dispatch Enable",
            "seed 003 3DSTATE_VS_BODY",
        ));
    }
    Ok(VertexShader {
        kernel: vs.enable.then(|| kernel(f, vs.kernel_start_pointer)),
        simd8: true,
        statistics: vs.statistics_enable,
        alt_float_mode: vs.floating_point_mode.0 == 1,
        scratch: scratch(vs.scratch_space_base_pointer, vs.per_thread_scratch_space),
        urb_data_start: usize::from(vs.dispatch_grf_start_register_for_urb_data),
        first_slot: usize::from(vs.vertex_urb_entry_read_offset) * 2,
        slots: usize::from(vs.vertex_urb_entry_read_length) * 2,
        resources,
    })
}

/// The scissor rectangle the rasterizer applies for viewport array entry `index`:
/// 3DSTATE_RASTER's Scissor Rectangle Enable with that SCISSOR_RECT entry, intersected with the viewport's extents (SF_CLIP_VIEWPORT X/Y
/// Min/Max ViewPort, inclusive: on Gen8+ pixels outside the viewport are not rendered,
/// which iris relies on, its drawing rectangle covering the whole 16K surface).
fn scissor(
    f: &DrawFront,
    mem: &dyn Memory,
    raster: &ThreeDStateRaster,
    viewport: Option<&SfClipViewport>,
    index: u64,
) -> Result<Option<[u32; 4]>, DrawError> {
    let mut rect: Option<[i64; 4]> = None;
    if raster.scissor_rectangle_enable {
        let addr = address(
            f.bases
                .dynamic
                .wrapping_add(get(&f.state.scissor_state_pointers).scissor_rect_pointer)
                .wrapping_add(index * ScissorRect::DWORDS as u64 * 4),
        );
        let s = dynamic_state(
            f,
            mem,
            "SCISSOR_RECT",
            addr,
            ScissorRect::DWORDS,
            ScissorRect::unpack,
        )?;
        rect = Some([
            i64::from(s.scissor_rectangle_x_min),
            i64::from(s.scissor_rectangle_y_min),
            i64::from(s.scissor_rectangle_x_max),
            i64::from(s.scissor_rectangle_y_max),
        ]);
    }
    if let Some(v) = viewport {
        // The extents are inclusive pixel coordinates: iris programs X Max ViewPort as
        // the viewport's right edge - 1 (iris_state.c upload of SF_CLIP_VIEWPORT).
        let lo = |x: f32| x.floor().clamp(0.0, 16384.0) as i64;
        let hi = |x: f32| (x.floor() as i64).clamp(-1, 16383);
        let ext = [
            lo(v.x_min_view_port),
            lo(v.y_min_view_port),
            hi(v.x_max_view_port),
            hi(v.y_max_view_port),
        ];
        rect = Some(match rect {
            None => ext,
            Some(r) => [
                r[0].max(ext[0]),
                r[1].max(ext[1]),
                r[2].min(ext[2]),
                r[3].min(ext[3]),
            ],
        });
    }
    Ok(rect.map(|r| {
        if r[2] < r[0] || r[3] < r[1] || r[2] < 0 || r[3] < 0 {
            // Empty: a rectangle no pixel is inside.
            [1, 1, 0, 0]
        } else {
            r.map(|v| v.max(0) as u32)
        }
    }))
}

/// The user clip distance clip and cull test masks the clipper uses (seed 003
/// 3DSTATE_CLIP_BODY Force User Clip Distance Clip/Cull Test Enable Bitmask: "Normal"
/// takes Clip_INT's bitmasks as they come, "Force" 3DSTATE_CLIP's own). What comes
/// normally is the last enabled vertex stage's: 3DSTATE_GS, else 3DSTATE_DS, else
/// 3DSTATE_VS, each with its User Clip Distance Clip and Cull Test Enable Bitmasks
/// (seed 003 3DSTATE_VS_BODY, _DS_BODY, _GS_BODY; anv programs them there from Gen8 on,
/// and 3DSTATE_CLIP's only on Gen7).
fn clip_cull_masks(s: &crate::LatchedState, c: &ThreeDStateClip) -> (u8, u8) {
    let (gs, ds, vs) = (get(&s.gs), get(&s.ds), get(&s.vs));
    let (clip, cull) = if gs.enable {
        (
            gs.user_clip_distance_clip_test_enable_bitmask,
            gs.user_clip_distance_cull_test_enable_bitmask,
        )
    } else if ds.enable {
        (
            ds.user_clip_distance_clip_test_enable_bitmask,
            ds.user_clip_distance_cull_test_enable_bitmask,
        )
    } else {
        (
            vs.user_clip_distance_clip_test_enable_bitmask,
            vs.user_clip_distance_cull_test_enable_bitmask,
        )
    };
    (
        if c.force_user_clip_distance_clip_test_enable_bitmask {
            c.user_clip_distance_clip_test_enable_bitmask
        } else {
            clip
        },
        if c.force_user_clip_distance_cull_test_enable_bitmask {
            c.user_clip_distance_cull_test_enable_bitmask
        } else {
            cull
        },
    )
}

/// 3DSTATE_CLIP with 3DSTATE_RASTER's Z clip tests and the viewport's guardband.
fn clip_state(
    s: &crate::LatchedState,
    c: &ThreeDStateClip,
    raster: &ThreeDStateRaster,
    v: Option<&SfClipViewport>,
) -> Result<ClipState, DrawError> {
    use three_d_state_clip::ClipMode as Mode;
    if raster.viewport_z_near_clip_test_enable != raster.viewport_z_far_clip_test_enable {
        return Err(unsupported(
            "3DSTATE_RASTER Viewport Z Near and Far Clip Test Enable set differently",
            "seed 003 3DSTATE_RASTER_BODY",
        ));
    }
    let v = v.cloned().unwrap_or_default();
    let (ucd_mask, cull_mask) = clip_cull_masks(s, c);
    Ok(ClipState {
        enabled: c.clip_enable,
        max_vp_index: u32::from(c.maximum_vp_index),
        point_width_range: [c.minimum_point_width as f32, c.maximum_point_width as f32],
        force_zero_rta_index: c.force_zero_rta_index_enable,
        statistics: c.clipper_statistics_enable != 0,
        mode: match c.clip_mode {
            Mode::CLIPMODE_NORMAL => ClipMode::Normal,
            Mode::CLIPMODE_REJECT_ALL => ClipMode::RejectAll,
            Mode::CLIPMODE_ACCEPT_ALL => ClipMode::AcceptAll,
            other => ClipMode::Reserved(other.0),
        },
        test: ClipTest {
            viewport_xy: c.viewport_xy_clip_test_enable,
            viewport_z: raster.viewport_z_near_clip_test_enable,
            guardband: c.guardband_clip_test_enable,
            gb: [
                v.x_min_clip_guardband,
                v.x_max_clip_guardband,
                v.y_min_clip_guardband,
                v.y_max_clip_guardband,
            ],
            // APIMODE_OGL is 0 in 3DSTATE_CLIP (Gen11 PRM Vol 2a).
            opengl_z: c.api_mode.0 == 0,
            ucd_mask,
        },
        cull_mask,
        perspective_divide_disable: c.perspective_divide_disable,
    })
}

/// 3DSTATE_RASTER / 3DSTATE_SF Front and Back Face Fill Mode.
fn fill_mode(v: u32) -> FillMode {
    match v {
        0 => FillMode::Solid,
        1 => FillMode::Wireframe,
        2 => FillMode::Point,
        other => FillMode::Reserved(other),
    }
}

/// 3DSTATE_SF and 3DSTATE_RASTER (seed 003 3DSTATE_SF_BODY, 3DSTATE_RASTER_BODY), the
/// viewport transform and the drawing rectangle.
fn setup_state(
    f: &DrawFront,
    sf: &ThreeDStateSf,
    r: &ThreeDStateRaster,
    wm: &ThreeDStateWm,
    v: Option<&SfClipViewport>,
    scissor: Option<[u32; 4]>,
) -> Result<SetupState, DrawError> {
    if r.conservative_rasterization_enable {
        return Err(unsupported(
            "3DSTATE_RASTER Conservative Rasterization Enable",
            "seed 003 3DSTATE_RASTER_BODY",
        ));
    }
    let d = get(&f.state.drawing_rectangle);
    let v = v.cloned().unwrap_or_default();
    let depth_format = get(&f.state.depth_buffer).surface_format.0;
    Ok(SetupState {
        provoking: ProvokingVertex {
            tri_list_strip: usize::from(sf.triangle_strip_list_provoking_vertex_select),
            tri_fan: usize::from(sf.triangle_fan_provoking_vertex_select),
            line: usize::from(sf.line_strip_list_provoking_vertex_select),
        },
        last_pixel: sf.last_pixel_enable,
        statistics: sf.statistics_enable,
        viewport: sf.viewport_transform_enable.then_some(Viewport {
            m00: v.viewport_matrix_element_m00,
            m11: v.viewport_matrix_element_m11,
            m22: v.viewport_matrix_element_m22,
            m30: v.viewport_matrix_element_m30,
            m31: v.viewport_matrix_element_m31,
            m32: v.viewport_matrix_element_m32,
        }),
        drawing_rectangle: DrawingRectangle {
            rect: [
                u32::from(d.clipped_drawing_rectangle_x_min),
                u32::from(d.clipped_drawing_rectangle_y_min),
                u32::from(d.clipped_drawing_rectangle_x_max),
                u32::from(d.clipped_drawing_rectangle_y_max),
            ],
            origin: [
                i32::from(d.drawing_rectangle_origin_x),
                i32::from(d.drawing_rectangle_origin_y),
            ],
        },
        scissor,
        depth_offset_modes: [
            r.global_depth_offset_enable_solid,
            r.global_depth_offset_enable_wireframe,
            r.global_depth_offset_enable_point,
        ],
        depth_offset: (r.global_depth_offset_enable_solid
            || r.global_depth_offset_enable_wireframe
            || r.global_depth_offset_enable_point)
            .then_some(DepthOffset {
                constant: r.global_depth_offset_constant,
                scale: r.global_depth_offset_scale,
                clamp: r.global_depth_offset_clamp,
                legacy: sf.legacy_global_depth_bias_enable,
                // 3DSTATE_DEPTH_BUFFER Surface Format: D32_FLOAT 1, D16_UNORM 5, else
                // 24-bit UNORM (Gen11 PRM Vol 2a).
                format: match depth_format {
                    1 => DepthOffsetFormat::Float,
                    5 => DepthOffsetFormat::Unorm(16),
                    _ => DepthOffsetFormat::Unorm(24),
                },
            }),
        // Point Width Source 1: the state's Point Width; 0: the vertex's.
        point_width: (sf.point_width_source.0 == 1).then_some(sf.point_width as f32),
        fill: [
            fill_mode(r.front_face_fill_mode.0),
            fill_mode(r.back_face_fill_mode.0),
        ],
        // 3DSTATE_RASTER Front Winding: 1 is FRONTWINDING_CCW.
        front_winding: if r.front_winding.0 == 1 {
            Winding::Ccw
        } else {
            Winding::Cw
        },
        cull: CullMode::from_field(r.cull_mode.0),
        line_width: sf.line_width as f32,
        antialiasing: r.antialiasing_enable,
        aa_regions: [
            0.5 * f32::from(1u8 << wm.line_antialiasing_region_width.0.min(3)),
            0.5 * f32::from(1u8 << sf.line_end_cap_antialiasing_region_width.0.min(3)),
        ],
        // 3DSTATE_LINE_STIPPLE and the polygon stipple, as on Gen7 (seed 004 §11.3.3;
        // Gen11 keeps the commands, Mesa genxml gen11.xml).
        line_stipple: wm.line_stipple_enable.then(|| {
            let l = get(&f.state.line_stipple);
            LineStipple {
                pattern: l.line_stipple_pattern,
                repeat: u32::from(l.line_stipple_repeat_count).max(1),
            }
        }),
        polygon_stipple: wm.polygon_stipple_enable.then(|| {
            let p = get(&f.state.poly_stipple_pattern);
            let o = get(&f.state.poly_stipple_offset);
            // Rows 0-31 are DWords 1-32 of the packed command.
            let dw = p.pack().unwrap_or_default();
            let mut rows = [0u32; 32];
            for (r, v) in rows.iter_mut().zip(dw.iter().skip(1)) {
                *r = *v;
            }
            PolygonStipple {
                rows,
                offset: [
                    u32::from(o.polygon_stipple_x_offset),
                    u32::from(o.polygon_stipple_y_offset),
                ],
            }
        }),
        diamond: if wm.legacy_diamond_line_rasterization {
            DiamondRule::Legacy
        } else {
            DiamondRule::Dx10
        },
        point_rule: if wm.point_rasterization_rule.0 == 1 {
            PointRule::UpperRight
        } else {
            PointRule::UpperLeft
        },
        // Vertex Sub Pixel Precision Select 1: 4 bits.
        subpixel: if sf.vertex_sub_pixel_precision_select.0 == 1 {
            SubpixelBits::Four
        } else {
            SubpixelBits::Eight
        },
    })
}

/// 3DSTATE_SBE and 3DSTATE_SBE_SWIZ (seed 003 3DSTATE_SBE_BODY, SBE_SWIZ): what the
/// pixel shader's attribute setup reads.
fn attribute_setup(f: &DrawFront) -> AttributeSetup {
    let sbe = get(&f.state.sbe);
    let swiz = get(&f.state.sbe_swiz);
    let details: [&SfOutputAttributeDetail; 16] = [
        &swiz.attribute_0,
        &swiz.attribute_1,
        &swiz.attribute_2,
        &swiz.attribute_3,
        &swiz.attribute_4,
        &swiz.attribute_5,
        &swiz.attribute_6,
        &swiz.attribute_7,
        &swiz.attribute_8,
        &swiz.attribute_9,
        &swiz.attribute_10,
        &swiz.attribute_11,
        &swiz.attribute_12,
        &swiz.attribute_13,
        &swiz.attribute_14,
        &swiz.attribute_15,
    ];
    AttributeSetup {
        count: usize::from(sbe.number_of_sf_output_attributes),
        first_slot: usize::from(sbe.vertex_urb_entry_read_offset) * 2,
        swizzles: sbe.attribute_swizzle_enable.then(|| {
            details
                .iter()
                .map(|d| AttributeSwizzle {
                    source: usize::from(d.source_attribute),
                    select: match d.swizzle_select {
                        0 => SwizzleSelect::Input,
                        1 => SwizzleSelect::InputFacing,
                        2 => SwizzleSelect::Other("INPUTATTR_W"),
                        _ => SwizzleSelect::Other("INPUTATTR_FACING_W"),
                    },
                    overrides: [
                        d.component_override_x,
                        d.component_override_y,
                        d.component_override_z,
                        d.component_override_w,
                    ],
                    constant: match d.constant_source {
                        0 => ConstantSource::Zero,
                        1 => ConstantSource::ZeroOne,
                        2 => ConstantSource::One,
                        _ => ConstantSource::PrimitiveId,
                    },
                })
                .collect()
        }),
        swizzles_upper: false,
        point_sprite: sbe.point_sprite_texture_coordinate_enable,
        // Point Sprite Texture Coordinate Origin 1: LOWERLEFT.
        point_sprite_lower_left: sbe.point_sprite_texture_coordinate_origin.0 == 1,
        flat: sbe.constant_interpolation_enable,
        primitive_id_override: {
            let c = [
                sbe.primitive_id_override_component_x,
                sbe.primitive_id_override_component_y,
                sbe.primitive_id_override_component_z,
                sbe.primitive_id_override_component_w,
            ];
            c.iter()
                .any(|&b| b)
                .then_some((usize::from(sbe.primitive_id_override_attribute_select), c))
        },
    }
}

/// 3DSTATE_WM, 3DSTATE_PS and 3DSTATE_PS_EXTRA (seed 003 3DSTATE_WM_BODY,
/// 3DSTATE_PS_BODY, 3DSTATE_PS_EXTRA_BODY). The kernels: with one dispatch width
/// enabled its kernel is at Kernel Start Pointer 0; SIMD8 is always at pointer 0, SIMD32
/// at pointer 1, SIMD16 at pointer 2 when SIMD8 is also enabled (and at 0 otherwise),
/// each with the Dispatch GRF Start Register of the same number (Mesa brw_compiler.h
/// brw_wm_prog_data_prog_offset and _dispatch_grf_start_reg).
fn pixel_shader(f: &DrawFront, mem: &dyn Memory) -> Result<PixelShader, DrawError> {
    use three_d_state_ps::RenderTargetResolveType as Resolve;
    let s = f.state;
    let (wm, ps, extra) = (get(&s.wm), get(&s.ps), get(&s.ps_extra));
    let widths = [
        ps.n8_pixel_dispatch_enable,
        ps.n16_pixel_dispatch_enable,
        ps.n32_pixel_dispatch_enable,
    ];
    let pointers = [
        ps.kernel_start_pointer_0,
        ps.kernel_start_pointer_1,
        ps.kernel_start_pointer_2,
    ];
    let grf = [
        ps.dispatch_grf_start_register_for_constant_setup_data_0,
        ps.dispatch_grf_start_register_for_constant_setup_data_1,
        ps.dispatch_grf_start_register_for_constant_setup_data_2,
    ];
    let index = |simd: usize| -> usize {
        match simd {
            8 => 0,
            16 if widths[0] => 2,
            16 => 0,
            _ if widths[0] || widths[1] => 1,
            _ => 0,
        }
    };
    let kernels = if extra.pixel_shader_valid {
        [8usize, 16, 32]
            .into_iter()
            .zip(widths)
            .filter(|(_, on)| *on)
            .map(|(simd, _)| {
                let i = index(simd);
                PsKernel {
                    simd,
                    kernel: kernel(f, pointers[i]),
                    grf_start: usize::from(grf[i]),
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut unsupported = Vec::new();
    // The dispatch's rounding and single precision denormal modes: threads start with
    // round to nearest even and denormals flushed (a kernel may change both in cr0,
    // which the EU models; Mesa programs neither here).
    if ps.rounding_mode.0 != 0 || ps.single_precision_denormal_mode.0 != 0 {
        unsupported.push((
            "3DSTATE_PS Rounding Mode other than RTNE or Single Precision Denormal Mode Retained",
            "seed 003 3DSTATE_PS_BODY Rounding Mode, Single Precision Denormal Mode",
        ));
    }
    // Pixel Shader Pulls Bary: "the Pixel Shader uses Pull Bary i.e. PI message" (seed
    // 003 3DSTATE_PS_EXTRA_BODY), which the router answers (`PiMessage`); nothing of
    // the payload changes. The plane coefficients in the payload are not modelled.
    if extra.pixel_shader_requires_perspective_bary_plane_coefficients
        || extra.pixel_shader_requires_non_perspective_bary_plane_coefficients
    {
        unsupported.push((
            "barycentric plane coefficients in the PS payload",
            "seed 003 3DSTATE_PS_EXTRA_BODY Pixel Shader Requires (Non-)Perspective Bary Plane Coefficients",
        ));
    }
    let coarse = coarse_shading(&get(&s.cps), &extra, &mut unsupported);
    // Input Coverage Mask State 1: ICMS_NORMAL, 3: ICMS_DEPTH_COVERAGE (the samples the
    // early depth and stencil tests left); the inner-conservative mask (2) is not
    // modelled (the model has no conservative rasterization).
    if extra.input_coverage_mask_state.0 == 2 {
        unsupported.push((
            "3DSTATE_PS_EXTRA Input Coverage Mask State ICMS_INNER_CONSERVATIVE",
            "seed 003 3DSTATE_PS_EXTRA_BODY Input Coverage Mask State",
        ));
    }
    let t = f.tables.ps;
    let push = ps.push_constant_enable;
    Ok(PixelShader {
        kernels,
        scratch: scratch(ps.scratch_space_base_pointer, ps.per_thread_scratch_space),
        // Gen8+ dispatches when the PS is valid (3DSTATE_WM Force Thread Dispatch
        // Enable ForceOff stops it).
        dispatch: extra.pixel_shader_valid && wm.force_thread_dispatch_enable.0 != 1,
        statistics: wm.statistics_enable,
        alt_float_mode: ps.floating_point_mode.0 == 1,
        // WM_INT::Pixel Shader Kill Pixel, "computed normally" (seed 003 3DSTATE_WM
        // Force Kill Pixel Enable, L3051-3056) from what can drop a pixel after the
        // shader: the kernel's kills, 3DSTATE_PS_BLEND's alpha test and alpha to coverage
        // and 3DSTATE_WM_CHROMAKEY's kill (the Gen8+ PRM's 3DSTATE_WM field description);
        // ForceOn and ForceOff override it.
        kills_pixels: match wm.force_kill_pixel_enable.0 {
            1 => false,
            2 => true,
            _ => {
                let blend = get(&s.ps_blend);
                extra.pixel_shader_kills_pixel
                    || blend.alpha_test_enable
                    || blend.alpha_to_coverage_enable
                    || get(&s.wm_chromakey).chroma_key_kill_enable
            }
        },
        computes_depth: extra.pixel_shader_computed_depth_mode.0 != 0,
        computes_stencil: extra.pixel_shader_computes_stencil,
        early_depth_forced: wm.early_depth_stencil_control.0 == 2,
        ps_exec_forced: wm.early_depth_stencil_control.0 == 1,
        barycentric_modes: wm.barycentric_interpolation_mode.0 as u8,
        source_depth: extra.pixel_shader_uses_source_depth,
        source_w: extra.pixel_shader_uses_source_w,
        push_constants: push,
        attributes: extra.attribute_enable,
        input_coverage: extra.input_coverage_mask_state.0 != 0,
        input_coverage_post_depth: extra.input_coverage_mask_state.0 == 3,
        position_offset: match ps.position_xy_offset_select.0 {
            2 => PositionOffset::Centroid,
            3 => PositionOffset::Sample,
            _ => PositionOffset::None,
        },
        omask: extra.o_mask_present_to_render_target,
        fast_clear: ps.render_target_fast_clear_enable,
        resolve: ps.render_target_resolve_type != Resolve::RESOLVE_DISABLED,
        coarse,
        unsupported,
        resources: StageResources {
            binding_table: t.binding_table_pointer,
            sampler_state: t.sampler_state_pointer,
            constants: if push && extra.pixel_shader_valid {
                push_constants(f, mem, &get(&s.constant_ps).constant_body)?
            } else {
                Vec::new()
            },
        },
    })
}

/// The coarse pixel shading 3DSTATE_CPS and 3DSTATE_PS_EXTRA ask for (seed 003
/// 3DSTATE_CPS_BODY and its programming notes):
///
/// * Pixel Shader Is Per Coarse Pixel off: per-pixel (or per-sample) dispatch, whatever
///   the CPS mode ("3DSTATE_PS_EXTRA configuration overrides 3DSTATE_CPS").
/// * On, with CPS_MODE_NONE: "dispatched at pixel-rate; shader inputs specific to
///   coarse-rate have undefined value". The model dispatches 1x1 coarse pixels, the
///   pixel rate, and delivers the size it uses (1x1), so that a kernel built for
///   coarse dispatch still finds its pixels.
/// * On, with CPS_MODE_CONSTANT: coarse pixels of MinCPSizeX x MinCPSizeY ("Coarse
///   Pixel Shading Ratios are defined per DRAW based on MinCPSIZEX and MinCPSIZEY").
///   The hardware "quantizes this value to determine Decoupled Rate"; the seed does
///   not say how, so sizes other than 1, 2 and 4 (Vulkan's rates, what anv programs)
///   are refused by name.
/// * CPS_MODE_RADIAL, Statistics Enable (the CPS invocation counter) and the requested
///   size in the payload are refused by name.
fn coarse_shading(
    cps: &ThreeDStateCps,
    extra: &ThreeDStatePsExtra,
    unsupported: &mut Vec<(&'static str, &'static str)>,
) -> Option<CoarseShading> {
    const SEED: &str = "seed 003 3DSTATE_CPS_BODY, 3DSTATE_PS_EXTRA_BODY";
    if !extra.pixel_shader_is_per_coarse_pixel || extra.pixel_shader_is_per_sample {
        return None;
    }
    if extra.pixel_shader_requires_requested_coarse_pixel_shading_size {
        unsupported.push((
            "3DSTATE_PS_EXTRA Pixel Shader Requires Requested Coarse Pixel Shading Size (its payload place is not given)",
            SEED,
        ));
    }
    if cps.statistics_enable {
        unsupported.push((
            "3DSTATE_CPS Statistics Enable (the CPS invocation counter)",
            SEED,
        ));
    }
    let size = match cps.coarse_pixel_shading_mode.0 {
        0 => (1, 1),
        1 => {
            let quantized = |v: f64| [1u32, 2, 4].into_iter().find(|&n| f64::from(n) == v);
            match (quantized(cps.min_cp_size_x), quantized(cps.min_cp_size_y)) {
                (Some(w), Some(h)) => (w, h),
                _ => {
                    unsupported.push((
                        "3DSTATE_CPS MinCPSize other than 1, 2 or 4 (the hardware's quantization is not given)",
                        SEED,
                    ));
                    (1, 1)
                }
            }
        }
        _ => {
            unsupported.push((
                "3DSTATE_CPS Coarse Pixel Shading Mode CPS_MODE_RADIAL",
                SEED,
            ));
            (1, 1)
        }
    };
    Some(CoarseShading {
        size,
        depth_w_coefficients: extra.pixel_shader_requires_source_depth_and_or_w_plane_coefficients,
    })
}

/// 3DSTATE_MULTISAMPLE, 3DSTATE_SAMPLE_PATTERN, 3DSTATE_SAMPLE_MASK, 3DSTATE_RASTER and
/// 3DSTATE_PS_EXTRA as the neutral [`Multisample`]:
///
/// * Number of Multisamples (seed 003 3DSTATE_MULTISAMPLE_BODY: log2 of 1 to 16, 5-7
///   reserved); coverage masks hold up to 16 samples
///   ([`gtsim_pipe3d::coverage::SampleMask`]).
/// * The sample positions of that count from 3DSTATE_SAMPLE_PATTERN (Mesa genxml
///   gen11.xml: U0.4 offsets from the pixel's upper-left corner, per count).
/// * The rasterization mode the hardware derives from 3DSTATE_RASTER (seed 003
///   3DSTATE_RASTER_BODY): with Force Multisampling, DX Multisample Rasterization Mode
///   as programmed ("Forces the DX Multisampling mode to be used directly"); otherwise
///   MSRASTMODE_ON_PATTERN when DX Multisample Rasterization Enable is set ("Software
///   sets this according to the API's multisample enable") and MSRASTMODE_OFF_PIXEL
///   when it is clear, the mapping Mesa's Gen7 drivers program by hand for GL
///   (crocus: multisample enable → ON_PATTERN, else OFF_PIXEL). RT-independent
///   rasterization (Forced Sample Count) is refused by name.
/// * Per-sample dispatch from 3DSTATE_PS_EXTRA Pixel Shader Is Per Sample.
/// * The sample mask, its bits past the sample count zeroed (seed 003
///   3DSTATE_SAMPLE_MASK_BODY programming notes).
fn multisample(f: &DrawFront) -> Result<Multisample, DrawError> {
    let ms = get(&f.state.multisample);
    let raster = get(&f.state.raster);
    // Pixel Location 0: CENTER.
    let pixel_center = ms.pixel_location.0 == 0;
    if raster.forced_sample_count.0 != 0 {
        return Err(unsupported(
            format!(
                "RT-independent rasterization (3DSTATE_RASTER Forced Sample Count {})",
                raster.forced_sample_count.0
            ),
            "seed 003 3DSTATE_RASTER_BODY Forced Sample Count",
        ));
    }
    let samples = match ms.number_of_multisamples {
        n @ 0..=4 => 1u32 << n,
        other => {
            return Err(DrawError::State {
                command: "3DSTATE_MULTISAMPLE",
                why: format!(
                    "Number of Multisamples {other} is reserved (seed 003 3DSTATE_MULTISAMPLE_BODY)"
                ),
            });
        }
    };
    let mut out = Multisample::single(pixel_center);
    if samples == 1 {
        return Ok(out);
    }
    if ms.pixel_position_offset_enable && !pixel_center {
        return Err(unsupported(
            "the DX9 half-pixel offset (3DSTATE_MULTISAMPLE Pixel Position Offset Enable)",
            "seed 003 3DSTATE_MULTISAMPLE_BODY Pixel Position Offset Enable",
        ));
    }
    let p = get(&f.state.sample_pattern);
    let offsets: Vec<[f64; 2]> = match samples {
        2 => vec![
            [p.n2x_sample0_x_offset, p.n2x_sample0_y_offset],
            [p.n2x_sample1_x_offset, p.n2x_sample1_y_offset],
        ],
        4 => vec![
            [p.n4x_sample0_x_offset, p.n4x_sample0_y_offset],
            [p.n4x_sample1_x_offset, p.n4x_sample1_y_offset],
            [p.n4x_sample2_x_offset, p.n4x_sample2_y_offset],
            [p.n4x_sample3_x_offset, p.n4x_sample3_y_offset],
        ],
        16 => vec![
            [p.n16x_sample0_x_offset, p.n16x_sample0_y_offset],
            [p.n16x_sample1_x_offset, p.n16x_sample1_y_offset],
            [p.n16x_sample2_x_offset, p.n16x_sample2_y_offset],
            [p.n16x_sample3_x_offset, p.n16x_sample3_y_offset],
            [p.n16x_sample4_x_offset, p.n16x_sample4_y_offset],
            [p.n16x_sample5_x_offset, p.n16x_sample5_y_offset],
            [p.n16x_sample6_x_offset, p.n16x_sample6_y_offset],
            [p.n16x_sample7_x_offset, p.n16x_sample7_y_offset],
            [p.n16x_sample8_x_offset, p.n16x_sample8_y_offset],
            [p.n16x_sample9_x_offset, p.n16x_sample9_y_offset],
            [p.n16x_sample10_x_offset, p.n16x_sample10_y_offset],
            [p.n16x_sample11_x_offset, p.n16x_sample11_y_offset],
            [p.n16x_sample12_x_offset, p.n16x_sample12_y_offset],
            [p.n16x_sample13_x_offset, p.n16x_sample13_y_offset],
            [p.n16x_sample14_x_offset, p.n16x_sample14_y_offset],
            [p.n16x_sample15_x_offset, p.n16x_sample15_y_offset],
        ],
        _ => vec![
            [p.n8x_sample0_x_offset, p.n8x_sample0_y_offset],
            [p.n8x_sample1_x_offset, p.n8x_sample1_y_offset],
            [p.n8x_sample2_x_offset, p.n8x_sample2_y_offset],
            [p.n8x_sample3_x_offset, p.n8x_sample3_y_offset],
            [p.n8x_sample4_x_offset, p.n8x_sample4_y_offset],
            [p.n8x_sample5_x_offset, p.n8x_sample5_y_offset],
            [p.n8x_sample6_x_offset, p.n8x_sample6_y_offset],
            [p.n8x_sample7_x_offset, p.n8x_sample7_y_offset],
        ],
    };
    out.samples = samples;
    out.pattern = gtsim_pipe3d::coverage::SamplePattern::from_offsets(&offsets);
    // MSRASTMODE_OFF_PIXEL 0, OFF_PATTERN 1, ON_PIXEL 2, ON_PATTERN 3.
    let mode = if raster.force_multisampling != 0 {
        raster.dx_multisample_rasterization_mode.0
    } else if raster.dx_multisample_rasterization_enable {
        3
    } else {
        0
    };
    out.pattern_polygons = mode & 1 != 0;
    out.pattern_lines = mode == 3;
    out.per_sample = get(&f.state.ps_extra).pixel_shader_is_per_sample;
    out.sample_mask =
        (u32::from(get(&f.state.sample_mask).sample_mask) & ((1u32 << samples) - 1)) as u16;
    Ok(out)
}

/// 3DSTATE_GS (seed 003 3DSTATE_GS_BODY): DISPATCH_MODE_SIMD8 with its Gen8+ fields
/// (Include Vertex Handles for the pull model, Static Output and its vertex count, the
/// 6-bit Dispatch GRF Start Register, Reorder Mode TRAILING); the SIMD4x2 dispatch modes
/// are refused by name.
fn geometry_shader(f: &DrawFront, mem: &dyn Memory) -> Result<Option<GeometryShader>, DrawError> {
    use gtsim_pipe3d::state::{ControlData, GsDispatch, GsVertexCount};
    let s = f.state;
    let gs = get(&s.gs);
    if !gs.enable {
        return Ok(None);
    }
    // Dispatch Mode 3: SIMD8 (Mesa genxml gen11.xml DISPATCH_MODE_SIMD8).
    if gs.dispatch_mode.0 != 3 {
        return Err(unsupported(
            format!(
                "3DSTATE_GS Dispatch Mode {} on Gen11 (SIMD8 is modelled)",
                gs.dispatch_mode.0
            ),
            "seed 003 3DSTATE_GS_BODY",
        ));
    }
    if gs.control_data_header_size > 8 {
        return Err(bad(
            "3DSTATE_GS",
            format!(
                "Control Data Header Size {} (at most 8 32-byte units)",
                gs.control_data_header_size
            ),
        ));
    }
    let t = f.tables.gs;
    Ok(Some(GeometryShader {
        kernel: kernel(f, gs.kernel_start_pointer),
        dispatch: GsDispatch::Simd8,
        instances: u32::from(gs.instance_control) + 1,
        invocations_increment: u64::from(gs.invocations_increment_value) + 1,
        statistics: gs.statistics_enable,
        alt_float_mode: gs.floating_point_mode.0 == 1,
        scratch: scratch(gs.scratch_space_base_pointer, gs.per_thread_scratch_space),
        urb_data_start: usize::from(gs.dispatch_grf_start_register_for_urb_data)
            | usize::from(gs.dispatch_grf_start_register_for_urb_data_5_4) << 4,
        first_slot: usize::from(gs.vertex_urb_entry_read_offset) * 2,
        slots: usize::from(gs.vertex_urb_entry_read_length) * 2,
        include_vertex_handles: gs.include_vertex_handles,
        include_primitive_id: gs.include_primitive_id,
        output_vertex_slots: usize::from(gs.output_vertex_size) + 1,
        output_topology: gs.output_topology,
        // Control Data Format 1: GSCTL_SID.
        control_data: if gs.control_data_format.0 == 1 {
            ControlData::StreamId
        } else {
            ControlData::Cut
        },
        control_header_rows: usize::from(gs.control_data_header_size),
        default_stream: u32::from(gs.default_stream_id),
        // Seed 003 3DSTATE_GS_BODY Reorder Mode: alternating strip triangles are always
        // reordered, LEADING (0h, Gen7's Reorder Enable order) or TRAILING (1h).
        reorder: true,
        reorder_trailing: gs.reorder_mode.0 == 1,
        discard_adjacency: gs.discard_adjacency,
        hint: u32::from(gs.hint),
        vertex_count: if gs.static_output {
            GsVertexCount::Static(u32::from(gs.static_output_vertex_count))
        } else {
            GsVertexCount::EntryDword
        },
        resources: StageResources {
            binding_table: t.binding_table_pointer,
            sampler_state: t.sampler_state_pointer,
            constants: push_constants(f, mem, &get(&s.constant_gs).constant_body)?,
        },
    }))
}

/// 3DSTATE_HS, 3DSTATE_TE and 3DSTATE_DS (seed 003 3DSTATE_HS_BODY, 3DSTATE_TE_BODY,
/// 3DSTATE_DS_BODY): the HS in SINGLE_PATCH mode (Instance Count + 1 threads a patch,
/// a channel an output control point, the ICPs read through their handles), the TE in
/// HW_TESS mode, the DS in SIMD8_SINGLE_PATCH mode (eight domain points of one patch a
/// thread). The three are enabled and disabled together (seed 004 §5.1). Other
/// dispatch modes and pushed ICP data are refused by name.
fn tessellation(
    f: &DrawFront,
    mem: &dyn Memory,
) -> Result<Option<gtsim_pipe3d::state::Tessellation>, DrawError> {
    use gtsim_pipe3d::state::{
        DomainShader, HullShader, Partitioning, TessDomain, TessOutput, Tessellation, Tessellator,
    };
    let s = f.state;
    let (hs, te, ds) = (get(&s.hs), get(&s.te), get(&s.ds));
    let enabled = [hs.enable, te.te_enable, ds.enable];
    if enabled == [false; 3] {
        return Ok(None);
    }
    if enabled != [true; 3] {
        return Err(bad(
            "3DSTATE_TE",
            format!(
                "HS Enable {}, TE Enable {}, DS Enable {}: the HS, TE and DS are enabled and disabled together (seed 004 §5.1)",
                enabled[0], enabled[1], enabled[2]
            ),
        ));
    }
    if te.te_mode.0 != 0 {
        return Err(unsupported(
            format!("3DSTATE_TE TE Mode {}", te.te_mode.0),
            "seed 003 3DSTATE_TE_BODY",
        ));
    }
    // 3DSTATE_HS Dispatch Mode 0: SINGLE_PATCH; 3DSTATE_DS Dispatch Mode 1:
    // SIMD8_SINGLE_PATCH (Mesa genxml gen11.xml).
    if hs.dispatch_mode.0 != 0 || ds.dispatch_mode.0 != 1 {
        return Err(unsupported(
            format!(
                "HS Dispatch Mode {} / DS Dispatch Mode {} (SINGLE_PATCH and SIMD8_SINGLE_PATCH are modelled)",
                hs.dispatch_mode.0, ds.dispatch_mode.0
            ),
            "seed 003 3DSTATE_HS_BODY, 3DSTATE_DS_BODY",
        ));
    }
    if hs.vertex_urb_entry_read_length != 0 {
        return Err(unsupported(
            "pushed ICP data in a SINGLE_PATCH HS (Vertex URB Entry Read Length)",
            "seed 003 3DSTATE_HS_BODY",
        ));
    }
    let (th, td) = (f.tables.hs, f.tables.ds);
    Ok(Some(Tessellation {
        hs: HullShader {
            kernel: kernel(f, hs.kernel_start_pointer),
            instances: u32::from(hs.instance_count) + 1,
            statistics: hs.statistics_enable,
            alt_float_mode: hs.floating_point_mode.0 == 1,
            scratch: scratch(hs.scratch_space_base_pointer, hs.per_thread_scratch_space),
            urb_data_start: usize::from(hs.dispatch_grf_start_register_for_urb_data)
                | usize::from(hs.dispatch_grf_start_register_for_urb_data_5) << 5,
            first_slot: usize::from(hs.vertex_urb_entry_read_offset) * 2,
            slots: 0,
            include_vertex_handles: hs.include_vertex_handles,
            resources: StageResources {
                binding_table: th.binding_table_pointer,
                sampler_state: th.sampler_state_pointer,
                constants: push_constants(f, mem, &get(&s.constant_hs).constant_body)?,
            },
        },
        te: Tessellator {
            domain: match te.te_domain.0 {
                0 => TessDomain::Quad,
                1 => TessDomain::Tri,
                2 => TessDomain::Isoline,
                other => {
                    return Err(bad("3DSTATE_TE", format!("TE Domain {other} is reserved")));
                }
            },
            partitioning: match te.partitioning.0 {
                0 => Partitioning::Integer,
                1 => Partitioning::OddFractional,
                2 => Partitioning::EvenFractional,
                other => {
                    return Err(bad(
                        "3DSTATE_TE",
                        format!("Partitioning {other} is reserved"),
                    ));
                }
            },
            output: match te.output_topology.0 {
                0 => TessOutput::Point,
                1 => TessOutput::Line,
                2 => TessOutput::TriCw,
                _ => TessOutput::TriCcw,
            },
            max_odd: te.maximum_tessellation_factor_odd,
            max_not_odd: te.maximum_tessellation_factor_not_odd,
        },
        ds: DomainShader {
            kernel: kernel(f, ds.kernel_start_pointer),
            single_point: false,
            simd8: true,
            statistics: ds.statistics_enable,
            alt_float_mode: ds.floating_point_mode.0 == 1,
            scratch: scratch(ds.scratch_space_base_pointer, ds.per_thread_scratch_space),
            urb_data_start: usize::from(ds.dispatch_grf_start_register_for_urb_data),
            first_slot: usize::from(ds.patch_urb_entry_read_offset) * 2,
            slots: usize::from(ds.patch_urb_entry_read_length) * 2,
            compute_w: ds.compute_w_coordinate_enable,
            resources: StageResources {
                binding_table: td.binding_table_pointer,
                sampler_state: td.sampler_state_pointer,
                constants: push_constants(f, mem, &get(&s.constant_ds).constant_body)?,
            },
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::vertex_fetch;
    use super::{DrawFront, multisample};
    use crate::latched::LatchedState;
    use gtsim_pipe3d::draw::DrawError;
    use gtsim_pipe3d::state::DrawCounts;
    use gtsim_pipe3d::state::Registers;
    use gtsim_spec::gen11::*;

    struct NoRegisters;
    impl Registers for NoRegisters {
        fn register(&self, _: u32) -> u32 {
            0
        }
    }

    /// Mesa's default 4x pattern (intel_sample_positions: (6,2) (14,6) (2,10) (10,14)
    /// sixteenths) in 3DSTATE_SAMPLE_PATTERN, with the 2x and 8x patterns left zero.
    fn four_x(state: &mut LatchedState) {
        state.sample_pattern = Some(ThreeDStateSamplePattern {
            n4x_sample0_x_offset: 6.0 / 16.0,
            n4x_sample0_y_offset: 2.0 / 16.0,
            n4x_sample1_x_offset: 14.0 / 16.0,
            n4x_sample1_y_offset: 6.0 / 16.0,
            n4x_sample2_x_offset: 2.0 / 16.0,
            n4x_sample2_y_offset: 10.0 / 16.0,
            n4x_sample3_x_offset: 10.0 / 16.0,
            n4x_sample3_y_offset: 14.0 / 16.0,
            ..Default::default()
        });
        state.multisample = Some(ThreeDStateMultisample {
            number_of_multisamples: 2,
            ..Default::default()
        });
    }

    fn gathered(state: &LatchedState) -> Result<gtsim_pipe3d::state::Multisample, DrawError> {
        let prim = ThreeDPrimitive::default();
        multisample(&DrawFront::new(state, &NoRegisters, &prim))
    }

    /// 3DSTATE_VF_SGVS_2 (seed 003): XP0 from the vertex location into element 5 .y
    /// (Start Vertex Location 7 for a SEQUENTIAL draw), XP1 from the Start Instance
    /// Location (3) into element 5 .z, XP2 from the extended 3DPRIMITIVE's third
    /// parameter (42) into element 6 .x; without the extended parameters an XP2 is
    /// refused by name.
    #[test]
    fn sgvs_2_stores_the_draw_values_it_names() {
        let s = LatchedState {
            vf_sgvs_2: Some(ThreeDStateVfSgvs2 {
                xp0_enable: 1,
                xp0_source_select: three_d_state_vf_sgvs_2::Xp0SourceSelect(1),
                xp0_element_offset: 5,
                xp0_component_number: three_d_state_vf_sgvs_2::Xp0ComponentNumber(1),
                xp1_enable: 1,
                xp1_source_select: three_d_state_vf_sgvs_2::Xp1SourceSelect(1),
                xp1_element_offset: 5,
                xp1_component_number: three_d_state_vf_sgvs_2::Xp1ComponentNumber(2),
                xp2_enable: 1,
                xp2_element_offset: 6,
                ..Default::default()
            }),
            ..Default::default()
        };
        let prim = ThreeDPrimitive::default();
        let counts = DrawCounts {
            start_vertex: 7,
            start_instance: 3,
            ..Default::default()
        };
        let f = DrawFront::new(&s, &NoRegisters, &prim).with_extended_parameters([9, 8, 42]);
        let vf = vertex_fetch(&f, counts).unwrap();
        assert_eq!(vf.draw_values, vec![(5, 1, 7), (5, 2, 3), (6, 0, 42)]);
        assert_eq!(vf.elements.len(), 7, "elements up to 6 exist");
        let e = vertex_fetch(&DrawFront::new(&s, &NoRegisters, &prim), counts)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("XP2 from the 3DPRIMITIVE's XP2 parameter"),
            "{e}"
        );
    }

    /// 4x: the pattern of that count, ON_PATTERN when the API's multisample enable is
    /// set, the sample mask cut to four bits, per-sample dispatch from PS_EXTRA.
    #[test]
    fn four_samples_take_the_4x_pattern_and_the_raster_enable() {
        let mut s = LatchedState::default();
        four_x(&mut s);
        s.raster = Some(ThreeDStateRaster {
            dx_multisample_rasterization_enable: true,
            ..Default::default()
        });
        s.sample_mask = Some(ThreeDStateSampleMask {
            sample_mask: 0xfff6,
        });
        s.ps_extra = Some(ThreeDStatePsExtra {
            pixel_shader_is_per_sample: true,
            ..Default::default()
        });
        let m = gathered(&s).unwrap();
        assert_eq!(m.samples, 4);
        assert_eq!(m.pattern.count, 4);
        assert_eq!(m.pattern.offsets[..4], [[6, 2], [14, 6], [2, 10], [10, 14]]);
        assert!(m.pattern_polygons && m.pattern_lines);
        assert!(m.per_sample);
        assert_eq!(m.sample_mask, 0b0110);
        assert!(m.pixel_center);
    }

    /// Multisample enable off: objects are rasterized at the pixel (OFF_PIXEL); Force
    /// Multisampling takes the programmed mode as it is.
    #[test]
    fn the_raster_mode_follows_the_enable_or_the_forced_mode() {
        let mut s = LatchedState::default();
        four_x(&mut s);
        let m = gathered(&s).unwrap();
        assert!(!m.pattern_polygons && !m.pattern_lines);
        s.raster = Some(ThreeDStateRaster {
            force_multisampling: 1,
            // MSRASTMODE_OFF_PATTERN.
            dx_multisample_rasterization_mode: three_d_state_raster::DxMultisampleRasterizationMode(
                1,
            ),
            ..Default::default()
        });
        let m = gathered(&s).unwrap();
        assert!(m.pattern_polygons && !m.pattern_lines);
    }

    /// 16x: sample k of a made-up pattern at (k, 15 - k) sixteenths comes back as
    /// such (the U0.4 fields decode to k/16), and the sample mask keeps all 16 bits.
    #[test]
    fn sixteen_samples_take_the_16x_pattern_and_a_16_bit_mask() {
        let mut s = LatchedState::default();
        let mut p = ThreeDStateSamplePattern::default();
        let fields: [(&mut f64, &mut f64); 16] = [
            (&mut p.n16x_sample0_x_offset, &mut p.n16x_sample0_y_offset),
            (&mut p.n16x_sample1_x_offset, &mut p.n16x_sample1_y_offset),
            (&mut p.n16x_sample2_x_offset, &mut p.n16x_sample2_y_offset),
            (&mut p.n16x_sample3_x_offset, &mut p.n16x_sample3_y_offset),
            (&mut p.n16x_sample4_x_offset, &mut p.n16x_sample4_y_offset),
            (&mut p.n16x_sample5_x_offset, &mut p.n16x_sample5_y_offset),
            (&mut p.n16x_sample6_x_offset, &mut p.n16x_sample6_y_offset),
            (&mut p.n16x_sample7_x_offset, &mut p.n16x_sample7_y_offset),
            (&mut p.n16x_sample8_x_offset, &mut p.n16x_sample8_y_offset),
            (&mut p.n16x_sample9_x_offset, &mut p.n16x_sample9_y_offset),
            (&mut p.n16x_sample10_x_offset, &mut p.n16x_sample10_y_offset),
            (&mut p.n16x_sample11_x_offset, &mut p.n16x_sample11_y_offset),
            (&mut p.n16x_sample12_x_offset, &mut p.n16x_sample12_y_offset),
            (&mut p.n16x_sample13_x_offset, &mut p.n16x_sample13_y_offset),
            (&mut p.n16x_sample14_x_offset, &mut p.n16x_sample14_y_offset),
            (&mut p.n16x_sample15_x_offset, &mut p.n16x_sample15_y_offset),
        ];
        for (k, (x, y)) in fields.into_iter().enumerate() {
            *x = k as f64 / 16.0;
            *y = (15 - k) as f64 / 16.0;
        }
        s.sample_pattern = Some(p);
        s.multisample = Some(ThreeDStateMultisample {
            number_of_multisamples: 4,
            ..Default::default()
        });
        s.sample_mask = Some(ThreeDStateSampleMask {
            sample_mask: 0xfff6,
        });
        let m = gathered(&s).unwrap();
        assert_eq!((m.samples, m.pattern.count), (16, 16));
        let want: Vec<[u8; 2]> = (0..16u8).map(|k| [k, 15 - k]).collect();
        assert_eq!(m.pattern.offsets[..], want[..]);
        assert_eq!(m.sample_mask, 0xfff6);
    }

    /// One sample per pixel ignores the pattern; 5-7 are reserved.
    #[test]
    fn other_counts_are_single_or_reserved() {
        let mut s = LatchedState::default();
        let m = gathered(&s).unwrap();
        assert_eq!((m.samples, m.pattern.count), (1, 1));
        s.multisample = Some(ThreeDStateMultisample {
            number_of_multisamples: 6,
            ..Default::default()
        });
        let e = gathered(&s).unwrap_err().to_string();
        assert!(e.contains("reserved"), "{e}");
    }
}

#[cfg(test)]
mod clip_mask_tests {
    use super::clip_cull_masks;
    use crate::latched::LatchedState;
    use gtsim_spec::gen11::*;

    /// Seed 003 3DSTATE_CLIP_BODY: without the Force bits the masks come from the last
    /// enabled vertex stage (the GS over the VS here), with them from 3DSTATE_CLIP;
    /// each bit on its own (iris forces the clip mask and leaves the cull mask to the
    /// shader stage, arb_cull_distance `clip-cull-4`).
    #[test]
    fn masks_come_from_the_last_stage_unless_forced() {
        let mut s = LatchedState {
            vs: Some(ThreeDStateVs {
                user_clip_distance_clip_test_enable_bitmask: 0x01,
                user_clip_distance_cull_test_enable_bitmask: 0x02,
                ..Default::default()
            }),
            ..Default::default()
        };
        let clip = ThreeDStateClip {
            user_clip_distance_clip_test_enable_bitmask: 0x10,
            user_clip_distance_cull_test_enable_bitmask: 0x20,
            ..Default::default()
        };
        assert_eq!(clip_cull_masks(&s, &clip), (0x01, 0x02));
        s.gs = Some(ThreeDStateGs {
            enable: true,
            user_clip_distance_clip_test_enable_bitmask: 0x04,
            user_clip_distance_cull_test_enable_bitmask: 0x08,
            ..Default::default()
        });
        assert_eq!(clip_cull_masks(&s, &clip), (0x04, 0x08));
        let forced = ThreeDStateClip {
            force_user_clip_distance_clip_test_enable_bitmask: true,
            ..clip
        };
        assert_eq!(clip_cull_masks(&s, &forced), (0x10, 0x08));
    }
}
