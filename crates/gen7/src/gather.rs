//! The draw's neutral state from Gen7's latched commands and the indirect state they
//! point to. Commands never sent read as their all-zero power-on state.

use crate::depth::depth_buffer;
use crate::front::DrawFront;
use crate::indirect::{Bases, dynamic_state};
use crate::latched::{LatchedState, Registers, get};
use crate::output::color_calc_state;
use gtsim_mem::Memory;
use gtsim_pipe3d::assembly::ProvokingVertex;
use gtsim_pipe3d::clip::ClipTest;
use gtsim_pipe3d::draw::{DrawError, unsupported};
use gtsim_pipe3d::index::IndexBuffer;
use gtsim_pipe3d::raster::{DiamondRule, PointRule, SubpixelBits, Winding};
use gtsim_pipe3d::sf::{CullMode, DepthOffset, DepthOffsetFormat, Viewport};
use gtsim_pipe3d::state::{
    AttributeSetup, AttributeSwizzle, ClipMode, ClipState, ConstantSource, ControlData,
    DomainShader, DrawCounts, DrawState, DrawingRectangle, FillMode, GeometryShader, GsDispatch,
    GsVertexCount, HullShader, KernelPointer, LineStipple, Multisample, Partitioning, PixelShader,
    PolygonStipple, PositionOffset, PsKernel, Scratch, SetupState, SoBuffer, SoDecl, SoFunction,
    SoStream, StageResources, StreamOutput, SwizzleSelect, TessDomain, TessOutput, Tessellation,
    Tessellator, VertexElement, VertexFetch, VertexShader, ViewportSet,
};
use gtsim_pipe3d::vf::VertexBuffer;
use gtsim_spec::gen7::vertex_buffer_state::BufferAccessType;
use gtsim_spec::gen7::*;

/// The draw's state, or `None` when it draws nothing: with zero vertices or instances
/// (and no End Offset Enable) no state is read at all (crocus emits such draws).
pub(crate) fn draw_state(
    front: &DrawFront,
    s: &LatchedState,
    l: &dyn Registers,
    p: &ThreeDPrimitive,
    mem: &dyn Memory,
) -> Result<Option<DrawState>, DrawError> {
    let counts = draw_counts(l, p)?;
    if !p.end_offset_enable && (counts.vertex_count == 0 || counts.instance_count == 0) {
        return Ok(None);
    }
    let pointers = *front.pointers();
    let bases = pointers.bases;
    let streamout = get(&s.streamout);
    let mut vf = vertex_fetch(s, p, counts)?;
    if p.end_offset_enable {
        vf.counts.vertex_count = end_offset_vertex_count(l, p, &counts, &vf.vertex_buffers)?;
    }
    // INSTPM bit 6, CONSTANT_BUFFER Address Offset Disable (IVB PRM Vol1 Part3).
    let instpm = Instpm::unpack(&[l.register(Instpm::OFFSET)]).unwrap_or_default();
    let constant_base = if instpm.constant_buffer_address_offset_disable {
        0
    } else {
        bases.dynamic
    };
    let vs_state = get(&s.vs);
    let vs = vertex_shader(
        &vs_state,
        &bases,
        StageResources {
            binding_table: pointers.vs.binding_table,
            sampler_state: pointers.vs.sampler_state,
            constants: push_constants(mem, constant_base, &get(&s.constant_vs).constant_body)?,
        },
    );
    let tess = tessellation(
        s,
        &bases,
        [
            StageResources {
                binding_table: pointers.hs.binding_table,
                sampler_state: pointers.hs.sampler_state,
                constants: push_constants(mem, constant_base, &get(&s.constant_hs).constant_body)?,
            },
            StageResources {
                binding_table: pointers.ds.binding_table,
                sampler_state: pointers.ds.sampler_state,
                constants: push_constants(mem, constant_base, &get(&s.constant_ds).constant_body)?,
            },
        ],
    )?;
    let gs = geometry_shader(
        &get(&s.gs),
        &bases,
        StageResources {
            binding_table: pointers.gs.binding_table,
            sampler_state: pointers.gs.sampler_state,
            constants: push_constants(mem, constant_base, &get(&s.constant_gs).constant_body)?,
        },
    )?;
    let ps_state = get(&s.ps);
    let ps_resources = StageResources {
        binding_table: pointers.ps.binding_table,
        sampler_state: pointers.ps.sampler_state,
        constants: push_constants(mem, constant_base, &get(&s.constant_ps).constant_body)?,
    };
    let sf = get(&s.sf);
    let dynamic = |off: u64| bases.dynamic.wrapping_add(off);
    let clip = get(&s.clip);
    // The viewport is read only by the units that use it: the SF's viewport transform
    // and the clip tests.
    let sf_clip_viewport = if !(sf.view_transform_enable || clip.clip_enable) {
        SfClipViewport::default()
    } else {
        dynamic_state(
            mem,
            bases.dynamic_bound,
            "SF_CLIP_VIEWPORT",
            dynamic(get(&s.viewport_sf_clip).pointer_to_sf_clip_viewport),
            SfClipViewport::DWORDS,
            SfClipViewport::unpack,
        )?
    };
    // Entry `i` of the scissor rectangle array (seed 004 §10.3: up to 16, selected by
    // the object's Viewport Index), when scissoring is enabled.
    let scissor_at = |i: u64| -> Result<Option<[u32; 4]>, DrawError> {
        if !sf.scissor_rectangle_enable {
            return Ok(None);
        }
        let s = dynamic_state(
            mem,
            bases.dynamic_bound,
            "SCISSOR_RECT",
            dynamic(get(&s.scissor).pointer_to_scissor_rect)
                .wrapping_add(i * ScissorRect::DWORDS as u64 * 4),
            ScissorRect::DWORDS,
            ScissorRect::unpack,
        )?;
        Ok(Some([
            s.scissor_rectangle_x_min as u32,
            s.scissor_rectangle_y_min as u32,
            s.scissor_rectangle_x_max as u32,
            s.scissor_rectangle_y_max as u32,
        ]))
    };
    let scissor = scissor_at(0)?;
    // The viewport array's entries past the first, up to 3DSTATE_CLIP's Maximum VPIndex
    // (SF_CLIP_VIEWPORT entries follow each other, SfClipViewport::DWORDS apart).
    let used = sf.view_transform_enable || clip.clip_enable;
    let viewports = (1..=u64::from(clip.maximum_vpindex))
        .filter(|_| used)
        .map(|i| {
            let v = dynamic_state(
                mem,
                bases.dynamic_bound,
                "SF_CLIP_VIEWPORT",
                dynamic(get(&s.viewport_sf_clip).pointer_to_sf_clip_viewport)
                    .wrapping_add(i * SfClipViewport::DWORDS as u64 * 4),
                SfClipViewport::DWORDS,
                SfClipViewport::unpack,
            )?;
            Ok(ViewportSet {
                viewport: viewport_transform(&sf, &v),
                scissor: scissor_at(i)?,
                guardband: guardband(&v),
            })
        })
        .collect::<Result<Vec<_>, DrawError>>()?;
    let depth_buffer_state = get(&s.depth_buffer);
    // Depth and stencil state matter only with a depth buffer bound (a null depth buffer
    // makes the tests pass and the writes vanish, seed 004 §11.5).
    let null_depth =
        depth_buffer_state.surface_type == three_d_state_depth_buffer::SurfaceType::SURFTYPE_NULL;
    let cc_viewport = if null_depth {
        CcViewport::default()
    } else {
        dynamic_state(
            mem,
            bases.dynamic_bound,
            "CC_VIEWPORT",
            dynamic(get(&s.viewport_cc).pointer_to_cc_viewport),
            CcViewport::DWORDS,
            CcViewport::unpack,
        )?
    };
    let depth_stencil = if null_depth {
        DepthStencilState::default()
    } else {
        dynamic_state(
            mem,
            bases.dynamic_bound,
            "DEPTH_STENCIL_STATE",
            dynamic(get(&s.depth_stencil_pointers).pointer_to_depth_stencil_state),
            DepthStencilState::DWORDS,
            DepthStencilState::unpack,
        )?
    };
    let wm = get(&s.wm);
    let depth = depth_buffer(
        &depth_buffer_state,
        &wm,
        &depth_stencil,
        [cc_viewport.minimum_depth, cc_viewport.maximum_depth],
        s,
        || {
            let cc = color_calc_state(&pointers, mem)?;
            Ok((
                cc.stencil_reference_value,
                cc.back_face_stencil_reference_value,
            ))
        },
    )?;
    let multisample = get(&s.multisample);
    let drawing_rectangle = get(&s.drawing_rectangle);
    Ok(Some(DrawState {
        encoding: gtsim_isa::Encoding::IvyBridge,
        payload: &crate::payload::PAYLOAD,
        vs,
        tess,
        gs,
        sol: stream_output(s, l, &streamout)?,
        clip: clip_state(&clip, &sf_clip_viewport),
        setup: SetupState {
            line_stipple: wm.line_stipple_enable.then(|| {
                let l = get(&s.line_stipple);
                LineStipple {
                    pattern: l.line_stipple_pattern,
                    repeat: u32::from(l.line_stipple_repeat_count).max(1),
                }
            }),
            polygon_stipple: wm.polygon_stipple_enable.then(|| polygon_stipple(s)),
            ..setup_state(&sf, &wm, &sf_clip_viewport, &drawing_rectangle, scissor)
        },
        attributes: attribute_setup(&get(&s.sbe)),
        ps: pixel_shader(&wm, &ps_state, &bases, ps_resources),
        depth,
        multisample: multisample_state(&multisample, &wm, s.sample_mask.as_ref())?,
        viewports,
        vf,
    }))
}

/// 3DSTATE_SF Front/Back Face Fill Mode (seed 004 §10.3.13).
fn fill_mode(v: u32) -> FillMode {
    match v {
        0 => FillMode::Solid,
        1 => FillMode::Wireframe,
        2 => FillMode::Point,
        other => FillMode::Reserved(other),
    }
}

/// 3DSTATE_POLY_STIPPLE_PATTERN and 3DSTATE_POLY_STIPPLE_OFFSET (seed 004 §11.3.3).
fn polygon_stipple(s: &LatchedState) -> PolygonStipple {
    let p = get(&s.poly_stipple_pattern);
    let o = get(&s.poly_stipple_offset);
    let dw = p.pack().unwrap_or_default();
    let mut rows = [0u32; 32];
    // Rows 1 to 32 are DWords 1 to 32 (the packed command's, read back as they came).
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
}

/// 3DSTATE_MULTISAMPLE, 3DSTATE_WM's multisample modes and 3DSTATE_SAMPLE_MASK (seed
/// 004 §11.4, §11.2.5). A sample mask never sent covers every sample (the power-on
/// state the seed does not give; every driver sends one before multisampled drawing).
fn multisample_state(
    ms: &ThreeDStateMultisample,
    wm: &ThreeDStateWm,
    sample_mask: Option<&ThreeDStateSampleMask>,
) -> Result<Multisample, DrawError> {
    use three_d_state_multisample::NumberOfMultisamples as N;
    use three_d_state_wm::{MultisampleDispatchMode, MultisampleRasterizationMode as M};
    let samples = match ms.number_of_multisamples {
        N::NUMSAMPLES_1 => 1,
        N::NUMSAMPLES_4 => 4,
        N::NUMSAMPLES_8 => 8,
        other => {
            return Err(DrawError::State {
                command: "3DSTATE_MULTISAMPLE",
                why: format!(
                    "Number of Multisamples {} is reserved (seed 004 §11.4.2)",
                    other.0
                ),
            });
        }
    };
    let mode = wm.multisample_rasterization_mode;
    let pattern_polygons = matches!(mode, M::MSRASTMODE_OFF_PATTERN | M::MSRASTMODE_ON_PATTERN);
    if pattern_polygons && samples == 1 {
        // §11.4.2 Number of Multisamples: "Setting Multisample Rasterization Mode to
        // MSRASTMODE_xxx_PATTERN when Number of Multisamples == NUMSAMPLES_1 is UNDEFINED."
        return Err(DrawError::State {
            command: "3DSTATE_WM",
            why: "Multisample Rasterization Mode PATTERN with NUMSAMPLES_1 is UNDEFINED (seed 004 §11.4.2)".into(),
        });
    }
    let o = [
        [ms.sample0_x_offset, ms.sample0_y_offset],
        [ms.sample1_x_offset, ms.sample1_y_offset],
        [ms.sample2_x_offset, ms.sample2_y_offset],
        [ms.sample3_x_offset, ms.sample3_y_offset],
        [ms.sample4_x_offset, ms.sample4_y_offset],
        [ms.sample5_x_offset, ms.sample5_y_offset],
        [ms.sample6_x_offset, ms.sample6_y_offset],
        [ms.sample7_x_offset, ms.sample7_y_offset],
    ];
    let mask = ((1u32 << samples) - 1) as u8;
    let mut single = Multisample::single(
        ms.pixel_location == three_d_state_multisample::PixelLocation::PIXLOC_CENTER,
    );
    if samples == 1 {
        return Ok(single);
    }
    single.samples = samples;
    single.pattern = gtsim_pipe3d::coverage::SamplePattern::from_offsets(&o[..samples as usize]);
    single.pattern_polygons = pattern_polygons;
    single.pattern_lines = matches!(mode, M::MSRASTMODE_ON_PIXEL | M::MSRASTMODE_ON_PATTERN);
    single.per_sample =
        wm.multisample_dispatch_mode == MultisampleDispatchMode::MSDISPMODE_PERSAMPLE;
    single.sample_mask = u16::from(sample_mask.map_or(mask, |m| m.sample_mask & mask));
    Ok(single)
}

/// Seed 004 §2.5.1 3DPRIMITIVE DW0 bit 10 "Indirect Parameter Enable": "the values in
/// DW 2-5 are ignored and replaced by the current values of the corresponding 3DPRIM_xxx
/// MMIO registers" (3DPRIM_BASE_VERTEX for DW6 too); both it and End Offset Enable set
/// is UNDEFINED, reported as a hang.
fn draw_counts(l: &dyn Registers, p: &ThreeDPrimitive) -> Result<DrawCounts, DrawError> {
    if p.indirect_parameter_enable && p.end_offset_enable {
        return Err(DrawError::State {
            command: "3DPRIMITIVE",
            why: "Indirect Parameter Enable and End Offset Enable are both set (UNDEFINED, seed 004 §2.5.1)".into(),
        });
    }
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

/// Seed 004 §2.5.1 3DPRIMITIVE DW1 bit 9 "End Offset Enable": the vertex count is how
/// many whole vertices of VB0 lie before the offset in 3DPRIM_END_OFFSET ("If EndOffset
/// is reached or exceeded within the data associated with a vertex, that vertex is
/// considered incomplete and will not be output"). The restrictions the seed lists
/// (VB0 enabled, SEQUENTIAL, one instance, zero start and base locations) are checked:
/// anything else is UNDEFINED and reported.
fn end_offset_vertex_count(
    l: &dyn Registers,
    p: &ThreeDPrimitive,
    counts: &DrawCounts,
    vertex_buffers: &[Option<VertexBuffer>],
) -> Result<u32, DrawError> {
    let fail = |why: &str| DrawError::State {
        command: "3DPRIMITIVE",
        why: format!("End Offset Enable with {why} (UNDEFINED, seed 004 §2.5.1)"),
    };
    let Some(vb0) = vertex_buffers.first().copied().flatten() else {
        return Err(fail("VB0 not enabled"));
    };
    if p.vertex_access_type != three_d_primitive::VertexAccessType::SEQUENTIAL {
        return Err(fail("RANDOM vertex access"));
    }
    if counts.instance_count != 1
        || counts.start_vertex != 0
        || counts.start_instance != 0
        || counts.base_vertex != 0
    {
        return Err(fail(
            "an instance count other than 1 or a non-zero start or base location",
        ));
    }
    if vb0.pitch == 0 {
        return Err(fail("a VB0 Buffer Pitch of 0"));
    }
    Ok(l.register(ThreeDPrimEndOffset::OFFSET) / vb0.pitch)
}

/// The vertex fetcher: 3DPRIMITIVE, 3DSTATE_INDEX_BUFFER, 3DSTATE_VERTEX_BUFFERS,
/// 3DSTATE_VERTEX_ELEMENTS and 3DSTATE_VF_STATISTICS (seed 004 ch.2).
fn vertex_fetch(
    s: &LatchedState,
    p: &ThreeDPrimitive,
    counts: DrawCounts,
) -> Result<VertexFetch, DrawError> {
    let index_buffer = if p.vertex_access_type == three_d_primitive::VertexAccessType::RANDOM {
        let ib = get(&s.index_buffer);
        Some(IndexBuffer {
            start: ib.buffer_starting_address,
            end: ib.buffer_ending_address,
            format: ib.index_format.0,
            cut_index: ib
                .cut_index_enable
                .then(|| gtsim_pipe3d::index::all_ones(ib.index_format.0)),
            cut_any_topology: false,
        })
    } else {
        None
    };
    let vbs = get(&s.vertex_buffers);
    let mut vertex_buffers = vec![None; 33];
    for vb in &vbs.vertex_buffer_state {
        let slot = vertex_buffers
            .get_mut(vb.vertex_buffer_index as usize)
            .ok_or_else(|| DrawError::State {
                command: "3DSTATE_VERTEX_BUFFERS",
                why: format!("Vertex Buffer Index {} > 32", vb.vertex_buffer_index),
            })?;
        *slot = (!vb.null_vertex_buffer).then_some(VertexBuffer {
            start: vb.buffer_starting_address,
            pitch: vb.buffer_pitch as u32,
            end: vb.end_address,
            instance_step_rate: (vb.buffer_access_type == BufferAccessType::INSTANCEDATA)
                .then_some(vb.instance_data_step_rate),
            // VERTEX_BUFFER_STATE addresses are GraphicsAddress[31:0].
            address_bits: 32,
        });
    }
    let elements = get(&s.vertex_elements)
        .element
        .iter()
        .map(|e| VertexElement {
            buffer: e.vertex_buffer_index as usize,
            valid: e.valid,
            format: e.source_element_format,
            offset: e.source_element_offset as u32,
            components: [
                e.component_0_control,
                e.component_1_control,
                e.component_2_control,
                e.component_3_control,
            ],
            edge_flag: e.edge_flag_enable,
        })
        .collect();
    Ok(VertexFetch {
        topology: p.primitive_topology_type,
        counts,
        index_buffer,
        vertex_buffers,
        elements,
        statistics: get(&s.vf_statistics).statistics_enable,
        draw_values: vec![],
    })
}

/// 3DSTATE_VS (seed 004 §3.2.1).
fn vertex_shader(vs: &ThreeDStateVs, bases: &Bases, resources: StageResources) -> VertexShader {
    VertexShader {
        kernel: vs.vs_function_enable.then_some(KernelPointer {
            address: bases.instruction.wrapping_add(vs.kernel_start_pointer),
            bound: bases.instruction_bound,
        }),
        simd8: false,
        statistics: vs.statistics_enable,
        alt_float_mode: vs.floating_point_mode == three_d_state_vs::FloatingPointMode::ALTERNATE,
        scratch: Scratch {
            base: vs.scratch_space_base_offset,
            per_thread: u32::from(vs.per_thread_scratch_space),
            // Seed 004 §3.2.1 (and each stage's state): 2^n KiB per thread.
            bytes_per_thread: 1024 << (vs.per_thread_scratch_space & 0xf),
        },
        urb_data_start: vs.dispatch_grf_start_register_for_urb_data as usize,
        first_slot: vs.vertex_urb_entry_read_offset as usize * 2,
        slots: vs.vertex_urb_entry_read_length as usize * 2,
        resources,
    }
}

/// 3DSTATE_HS, 3DSTATE_TE and 3DSTATE_DS (seed 004 §4.4, §5.1, §6.1): `None` with all
/// three disabled. "The HS, TE, and DS stages must be enabled and disabled together"
/// (§5): anything else is reported, as is SW_TESS mode (its domain points come from
/// memory at the SWTESS_BASE_ADDRESS, which the seeds only name).
fn tessellation(
    s: &LatchedState,
    bases: &Bases,
    [hs_resources, ds_resources]: [StageResources; 2],
) -> Result<Option<Tessellation>, DrawError> {
    use three_d_state_te::{Domain, OutputTopology, Partitioning as P, TeMode};
    let (hs, te, ds) = (get(&s.hs), get(&s.te), get(&s.ds));
    let enabled = [hs.hs_enable, te.te_enable, ds.ds_function_enable];
    if enabled == [false; 3] {
        return Ok(None);
    }
    if enabled != [true; 3] {
        return Err(DrawError::State {
            command: "3DSTATE_TE",
            why: format!(
                "HS Enable {}, TE Enable {}, DS Function Enable {}: the HS, TE and DS must be enabled and disabled together (seed 004 §5.1)",
                enabled[0], enabled[1], enabled[2]
            ),
        });
    }
    if te.te_mode != TeMode::HW_TESS {
        return Err(unsupported(
            format!(
                "3DSTATE_TE TE Mode {}",
                te.te_mode.name().unwrap_or("reserved")
            ),
            "seed 004 §4.9.1-4.9.2, §5.1",
        ));
    }
    let bad = |why: String| DrawError::State {
        command: "3DSTATE_TE",
        why,
    };
    let kernel = |offset: u64| KernelPointer {
        address: bases.instruction.wrapping_add(offset),
        bound: bases.instruction_bound,
    };
    Ok(Some(Tessellation {
        hs: HullShader {
            kernel: kernel(hs.kernel_start_pointer),
            instances: u32::from(hs.instance_count) + 1,
            statistics: hs.hs_statistics_enable,
            alt_float_mode: hs.floating_point_mode
                == three_d_state_hs::FloatingPointMode::ALTERNATE,
            scratch: Scratch {
                base: hs.scratch_space_base_pointer,
                per_thread: u32::from(hs.per_thread_scratch_space),
                // Seed 004 §3.2.1 (and each stage's state): 2^n KiB per thread.
                bytes_per_thread: 1024 << (hs.per_thread_scratch_space & 0xf),
            },
            urb_data_start: usize::from(hs.dispatch_grf_start_register_for_urb_data),
            first_slot: usize::from(hs.vertex_urb_entry_read_offset) * 2,
            slots: usize::from(hs.vertex_urb_entry_read_length) * 2,
            include_vertex_handles: hs.include_vertex_handles,
            resources: hs_resources,
        },
        te: Tessellator {
            domain: match te.domain {
                Domain::QUAD => TessDomain::Quad,
                Domain::TRI => TessDomain::Tri,
                Domain::ISOLINE => TessDomain::Isoline,
                other => return Err(bad(format!("Domain {} is reserved", other.0))),
            },
            partitioning: match te.partitioning {
                P::INTEGER => Partitioning::Integer,
                P::ODD_FRACTIONAL => Partitioning::OddFractional,
                P::EVEN_FRACTIONAL => Partitioning::EvenFractional,
                other => return Err(bad(format!("Partitioning {} is reserved", other.0))),
            },
            output: match te.output_topology {
                OutputTopology::POINT => TessOutput::Point,
                OutputTopology::LINE => TessOutput::Line,
                OutputTopology::TRI_CW => TessOutput::TriCw,
                _ => TessOutput::TriCcw,
            },
            max_odd: te.max_tess_factor_odd,
            max_not_odd: te.max_tess_factor_not_odd,
        },
        ds: DomainShader {
            kernel: kernel(ds.kernel_start_pointer),
            single_point: ds.single_domain_point_dispatch.0 != 0,
            simd8: false,
            statistics: ds.statistics_enable,
            alt_float_mode: ds.floating_point_mode
                == three_d_state_ds::FloatingPointMode::ALTERNATE,
            scratch: Scratch {
                base: ds.scratch_space_base_offset,
                per_thread: u32::from(ds.per_thread_scratch_space),
                // Seed 004 §3.2.1 (and each stage's state): 2^n KiB per thread.
                bytes_per_thread: 1024 << (ds.per_thread_scratch_space & 0xf),
            },
            urb_data_start: usize::from(ds.dispatch_grf_start_register_for_urb_data),
            first_slot: usize::from(ds.patch_urb_entry_read_offset) * 2,
            slots: usize::from(ds.patch_urb_entry_read_length) * 2,
            compute_w: ds.compute_w_coordinate_enable,
            resources: ds_resources,
        },
    }))
}

/// 3DSTATE_GS (seed 004 §7.2.1.1): `None` with GS Enable clear (vertices pass through).
/// The combinations the seed calls invalid are reported as state errors; the pull model
/// (Include Vertex Handles, for PATCHLIST objects from the HS/DS) is not modelled.
fn geometry_shader(
    gs: &ThreeDStateGs,
    bases: &Bases,
    resources: StageResources,
) -> Result<Option<GeometryShader>, DrawError> {
    use three_d_state_gs::{ControlDataFormat, DispatchMode, FloatingPointMode};
    if !gs.gs_enable {
        return Ok(None);
    }
    let bad = |why: String| DrawError::State {
        command: "3DSTATE_GS",
        why,
    };
    let instances = u32::from(gs.instance_control) + 1;
    let dispatch = match gs.dispatch_mode {
        DispatchMode::SINGLE => GsDispatch::Single,
        DispatchMode::DUAL_INSTANCE => GsDispatch::DualInstance,
        DispatchMode::DUAL_OBJECT => GsDispatch::DualObject,
        other => return Err(bad(format!("Dispatch Mode {} is reserved", other.0))),
    };
    // Dispatch Mode: DUAL_OBJECT is "Not valid if InstanceCount > 1".
    if dispatch == GsDispatch::DualObject && instances > 1 {
        return Err(bad(format!(
            "Dispatch Mode DUAL_OBJECT with InstanceCount {instances} (valid only for 1)"
        )));
    }
    if gs.include_vertex_handles {
        return Err(unsupported(
            "3DSTATE_GS Include Vertex Handles (pull-model GS input, PATCHLIST objects)",
            "seed 004 §7.4.3",
        ));
    }
    // Control Data Header Size: [0,8] 32B units.
    if gs.control_data_header_size > 8 {
        return Err(bad(format!(
            "Control Data Header Size {} (at most 8 32-byte units)",
            gs.control_data_header_size
        )));
    }
    Ok(Some(GeometryShader {
        kernel: KernelPointer {
            address: bases.instruction.wrapping_add(gs.kernel_start_pointer),
            bound: bases.instruction_bound,
        },
        dispatch,
        instances,
        // GS Invocations Increment Value: "[0,31] indicating an increment of [1,32]"
        // (crocus leaves it 0 and counts one invocation per instance).
        invocations_increment: u64::from(gs.gs_invocations_increment_value) + 1,
        statistics: gs.gs_statistics_enable,
        alt_float_mode: gs.floating_point_mode == FloatingPointMode::ALTERNATE,
        scratch: Scratch {
            base: gs.scratch_space_base_pointer,
            per_thread: u32::from(gs.per_thread_scratch_space),
            // Seed 004 §3.2.1 (and each stage's state): 2^n KiB per thread.
            bytes_per_thread: 1024 << (gs.per_thread_scratch_space & 0xf),
        },
        urb_data_start: usize::from(gs.dispatch_grf_start_register_for_urb_data),
        first_slot: usize::from(gs.vertex_urb_entry_read_offset) * 2,
        slots: usize::from(gs.vertex_urb_entry_read_length) * 2,
        include_vertex_handles: gs.include_vertex_handles,
        include_primitive_id: gs.include_primitive_id,
        output_vertex_slots: usize::from(gs.output_vertex_size) + 1,
        output_topology: gs.output_topology,
        control_data: if gs.control_data_format == ControlDataFormat::GSCTL_SID {
            ControlData::StreamId
        } else {
            ControlData::Cut
        },
        control_header_rows: usize::from(gs.control_data_header_size),
        default_stream: u32::from(gs.default_stream_id),
        reorder: gs.reorder_enable,
        // Seed 004 §7.4.1: Ivy Bridge reorders one way only.
        reorder_trailing: false,
        discard_adjacency: gs.discard_adjacency,
        hint: u32::from(gs.hint),
        vertex_count: GsVertexCount::EotHeader,
        resources,
    }))
}

/// 3DSTATE_STREAMOUT, 3DSTATE_SO_DECL_LIST and 3DSTATE_SO_BUFFER (seed 004 §8.4-8.6),
/// with the buffers' Write Offsets from the SO_WRITE_OFFSETn registers (§8.2).
fn stream_output(
    s: &LatchedState,
    l: &dyn Registers,
    so: &ThreeDStateStreamout,
) -> Result<StreamOutput, DrawError> {
    let mut out = StreamOutput {
        rendering_disable: so.rendering_disable,
        render_stream: u32::from(so.render_stream_select),
        function: None,
    };
    if !so.so_function_enable {
        return Ok(out);
    }
    let bad = |command, why: String| DrawError::State { command, why };
    let list = get(&s.so_decl_list);
    let selects = [
        list.stream_to_buffer_selects_0,
        list.stream_to_buffer_selects_1,
        list.stream_to_buffer_selects_2,
        list.stream_to_buffer_selects_3,
    ];
    let counts = [
        list.num_entries_0,
        list.num_entries_1,
        list.num_entries_2,
        list.num_entries_3,
    ];
    // Stream n Vertex Read Offset (256-bit units) and Length (U5-1, 256-bit units).
    let read = [
        (
            so.stream_0_vertex_read_offset,
            so.stream_0_vertex_read_length,
        ),
        (
            so.stream_1_vertex_read_offset,
            so.stream_1_vertex_read_length,
        ),
        (
            so.stream_2_vertex_read_offset,
            so.stream_2_vertex_read_length,
        ),
        (
            so.stream_3_vertex_read_offset,
            so.stream_3_vertex_read_length,
        ),
    ];
    let mut streams: [SoStream; 4] = Default::default();
    for (n, stream) in streams.iter_mut().enumerate() {
        let count = usize::from(counts[n]);
        // Num Entries: [0,128], no more than the command carries.
        if count > 128 || count > list.so_decl_entries.len() {
            return Err(bad(
                "3DSTATE_SO_DECL_LIST",
                format!(
                    "Num Entries [{n}] is {count}, but the command carries {} SO_DECL entries (at most 128)",
                    list.so_decl_entries.len()
                ),
            ));
        }
        stream.read_offset = usize::from(read[n].0) * 2;
        stream.read_length = (usize::from(read[n].1) + 1) * 2;
        stream.buffer_selects = selects[n];
        stream.decls = list.so_decl_entries[..count]
            .iter()
            .map(|e| {
                let d = [
                    &e.stream_0_decl,
                    &e.stream_1_decl,
                    &e.stream_2_decl,
                    &e.stream_3_decl,
                ][n];
                SoDecl {
                    buffer: usize::from(d.output_buffer_slot),
                    hole: d.hole_flag,
                    register: usize::from(d.register_index),
                    mask: d.component_mask,
                }
            })
            .collect();
    }
    let enables = [
        so.so_buffer_enable_0,
        so.so_buffer_enable_1,
        so.so_buffer_enable_2,
        so.so_buffer_enable_3,
    ];
    let mut buffers = [None; 4];
    for (b, slot) in buffers.iter_mut().enumerate() {
        if !enables[b] {
            continue;
        }
        let sob = get(&s.so_buffers[b]);
        // Surface Pitch: [0,2048], 0 or a multiple of 4 bytes.
        if sob.surface_pitch > 2048 || !sob.surface_pitch.is_multiple_of(4) {
            return Err(bad(
                "3DSTATE_SO_BUFFER",
                format!(
                    "SO buffer {b}: Surface Pitch {} (0 or a multiple of 4 up to 2048)",
                    sob.surface_pitch
                ),
            ));
        }
        *slot = Some(SoBuffer {
            base: sob.surface_base_address,
            end: sob.surface_end_address,
            pitch: u32::from(sob.surface_pitch),
        });
    }
    let offset = |reg: u32| l.register(reg) & !3;
    out.function = Some(SoFunction {
        statistics: so.so_statistics_enable,
        reorder_trailing: so.reorder_mode == three_d_state_streamout::ReorderMode::REORDER_TRAILING,
        streams,
        buffers,
        write_offsets: [
            offset(SoWriteOffset0::OFFSET),
            offset(SoWriteOffset1::OFFSET),
            offset(SoWriteOffset2::OFFSET),
            offset(SoWriteOffset3::OFFSET),
        ],
    });
    Ok(out)
}

/// SF_CLIP_VIEWPORT's guard band in NDC: x min, x max, y min, y max.
fn guardband(v: &SfClipViewport) -> [f32; 4] {
    [
        v.x_min_clip_guardband,
        v.x_max_clip_guardband,
        v.y_min_clip_guardband,
        v.y_max_clip_guardband,
    ]
}

/// SF_CLIP_VIEWPORT's viewport transform, when 3DSTATE_SF enables it.
fn viewport_transform(sf: &ThreeDStateSf, v: &SfClipViewport) -> Option<Viewport> {
    sf.view_transform_enable.then_some(Viewport {
        m00: v.viewport_matrix_element_m00,
        m11: v.viewport_matrix_element_m11,
        m22: v.viewport_matrix_element_m22,
        m30: v.viewport_matrix_element_m30,
        m31: v.viewport_matrix_element_m31,
        m32: v.viewport_matrix_element_m32,
    })
}

/// 3DSTATE_CLIP with SF_CLIP_VIEWPORT's guard band (seed 004 §9.x).
fn clip_state(c: &ThreeDStateClip, v: &SfClipViewport) -> ClipState {
    use three_d_state_clip::{ApiMode, ClipMode as Mode};
    ClipState {
        enabled: c.clip_enable,
        max_vp_index: u32::from(c.maximum_vpindex),
        point_width_range: [c.minimum_point_width as f32, c.maximum_point_width as f32],
        force_zero_rta_index: c.force_zero_rtaindex_enable,
        statistics: c.clipper_statistics_enable,
        mode: match c.clip_mode {
            Mode::CLIPMODE_NORMAL => ClipMode::Normal,
            Mode::CLIPMODE_REJECT_ALL => ClipMode::RejectAll,
            Mode::CLIPMODE_ACCEPT_ALL => ClipMode::AcceptAll,
            other => ClipMode::Reserved(other.0),
        },
        test: ClipTest {
            viewport_xy: c.viewport_xy_clip_test_enable,
            viewport_z: c.viewport_z_clip_test_enable,
            guardband: c.guardband_clip_test_enable,
            gb: guardband(v),
            opengl_z: c.api_mode == ApiMode::APIMODE_OGL,
            ucd_mask: c.user_clip_distance_clip_test_enable_bitmask,
        },
        cull_mask: c.user_clip_distance_cull_test_enable_bitmask,
        perspective_divide_disable: c.perspective_divide_disable,
    }
}

/// 3DSTATE_SF, the rasterization controls of 3DSTATE_WM, the viewport transform, the
/// drawing rectangle and the scissor rectangle (seed 004 ch.10, §11.3).
fn setup_state(
    sf: &ThreeDStateSf,
    wm: &ThreeDStateWm,
    v: &SfClipViewport,
    d: &ThreeDStateDrawingRectangle,
    scissor: Option<[u32; 4]>,
) -> SetupState {
    use three_d_state_sf::{
        DepthBufferSurfaceFormat as F, FrontWinding, VertexSubPixelPrecisionSelect,
    };
    SetupState {
        provoking: ProvokingVertex {
            tri_list_strip: sf.triangle_strip_list_provoking_vertex_select.0 as usize,
            tri_fan: sf.triangle_fan_provoking_vertex_select.0 as usize,
            line: sf.line_strip_list_provoking_vertex_select.0 as usize,
        },
        last_pixel: sf.last_pixel_enable,
        statistics: sf.statistics_enable,
        viewport: viewport_transform(sf, v),
        drawing_rectangle: DrawingRectangle {
            rect: [
                d.clipped_drawing_rectangle_x_min as u32,
                d.clipped_drawing_rectangle_y_min as u32,
                d.clipped_drawing_rectangle_x_max as u32,
                d.clipped_drawing_rectangle_y_max as u32,
            ],
            origin: [
                d.drawing_rectangle_origin_x as i32,
                d.drawing_rectangle_origin_y as i32,
            ],
        },
        scissor,
        depth_offset_modes: [
            sf.global_depth_offset_enable_solid,
            sf.global_depth_offset_enable_wireframe,
            sf.global_depth_offset_enable_point,
        ],
        depth_offset: (sf.global_depth_offset_enable_solid
            || sf.global_depth_offset_enable_wireframe
            || sf.global_depth_offset_enable_point)
            .then_some(DepthOffset {
                constant: sf.global_depth_offset_constant,
                scale: sf.global_depth_offset_scale,
                clamp: sf.global_depth_offset_clamp,
                legacy: sf.legacy_global_depth_bias_enable,
                format: match sf.depth_buffer_surface_format {
                    F::D32_FLOAT | F::D32_FLOAT_S8X24_UINT => DepthOffsetFormat::Float,
                    F::D16_UNORM => DepthOffsetFormat::Unorm(16),
                    _ => DepthOffsetFormat::Unorm(24),
                },
            }),
        point_width: (sf.use_point_width_state.0 == 1).then_some(sf.point_width as f32),
        fill: [
            fill_mode(sf.front_face_fill_mode.0),
            fill_mode(sf.back_face_fill_mode.0),
        ],
        front_winding: if sf.front_winding == FrontWinding::FRONTWINDING_CCW {
            Winding::Ccw
        } else {
            Winding::Cw
        },
        cull: CullMode::from_field(sf.cull_mode.0),
        line_width: sf.line_width as f32,
        antialiasing: sf.anti_aliasing_enable,
        // 0.5, 1, 2, 4 pixels (seed 004 §10.3.13 and 3DSTATE_WM).
        aa_regions: [
            0.5 * f32::from(1u8 << wm.line_antialiasing_region_width.0.min(3)),
            0.5 * f32::from(1u8 << sf.line_end_cap_antialiasing_region_width.0.min(3)),
        ],
        line_stipple: None,
        polygon_stipple: None,
        diamond: if wm.legacy_diamond_line_rasterization {
            DiamondRule::Legacy
        } else {
            DiamondRule::Dx10
        },
        point_rule: if wm.point_rasterization_rule
            == three_d_state_wm::PointRasterizationRule::RASTRULE_UPPER_RIGHT
        {
            PointRule::UpperRight
        } else {
            PointRule::UpperLeft
        },
        subpixel: if sf.vertex_sub_pixel_precision_select
            == VertexSubPixelPrecisionSelect::_4_SUB_PIXEL_PRECISION_BITS
        {
            SubpixelBits::Four
        } else {
            SubpixelBits::Eight
        },
    }
}

/// 3DSTATE_SBE (seed 004 §10.3.14).
fn attribute_setup(sbe: &ThreeDStateSbe) -> AttributeSetup {
    use sf_output_attribute_detail::SwizzleSelect as Select;
    use three_d_state_sbe::AttributeSwizzleControlMode;
    let details: [&SfOutputAttributeDetail; 16] = [
        &sbe.attribute_0,
        &sbe.attribute_1,
        &sbe.attribute_2,
        &sbe.attribute_3,
        &sbe.attribute_4,
        &sbe.attribute_5,
        &sbe.attribute_6,
        &sbe.attribute_7,
        &sbe.attribute_8,
        &sbe.attribute_9,
        &sbe.attribute_10,
        &sbe.attribute_11,
        &sbe.attribute_12,
        &sbe.attribute_13,
        &sbe.attribute_14,
        &sbe.attribute_15,
    ];
    AttributeSetup {
        count: sbe.number_of_sf_output_attributes as usize,
        first_slot: sbe.vertex_urb_entry_read_offset as usize * 2,
        swizzles: sbe.attribute_swizzle_enable.then(|| {
            details
                .iter()
                .map(|d| AttributeSwizzle {
                    source: d.source_attribute as usize,
                    select: match d.swizzle_select {
                        Select::INPUTATTR => SwizzleSelect::Input,
                        Select::INPUTATTR_FACING => SwizzleSelect::InputFacing,
                        other => SwizzleSelect::Other(other.name().unwrap_or("reserved")),
                    },
                    overrides: [
                        d.component_override_x,
                        d.component_override_y,
                        d.component_override_z,
                        d.component_override_w,
                    ],
                    constant: match d.constant_source.0 {
                        0 => ConstantSource::Zero,
                        1 => ConstantSource::ZeroOne,
                        2 => ConstantSource::One,
                        _ => ConstantSource::PrimitiveId,
                    },
                })
                .collect()
        }),
        swizzles_upper: sbe.attribute_swizzle_control_mode
            != AttributeSwizzleControlMode::SWIZ_0_15,
        point_sprite: sbe.point_sprite_texture_coordinate_enable,
        point_sprite_lower_left: sbe.point_sprite_texture_coordinate_origin.0 == 1,
        flat: sbe.constant_interpolation_enable,
        // Gen7's 3DSTATE_SBE has no Primitive ID Override (a Gen8+ field).
        primitive_id_override: None,
    }
}

/// 3DSTATE_WM and 3DSTATE_PS (seed 004 §11.10).
fn pixel_shader(
    wm: &ThreeDStateWm,
    ps: &ThreeDStatePs,
    bases: &Bases,
    resources: StageResources,
) -> PixelShader {
    use three_d_state_ps::{FloatingPointMode, PositionXyOffsetSelect};
    // Kernel Start Pointer / GRF start slot of each enabled dispatch width (seed 004
    // §11.10 3DSTATE_PS; IVB PRM Vol2 Part1 "PS Kernel Start Pointer" table): alone, a
    // width uses [0]; with others, SIMD8 stays in [0], SIMD32 moves to [1] and SIMD16
    // to [2].
    let enabled = [
        (8, ps.n8_pixel_dispatch_enable),
        (16, ps.n16_pixel_dispatch_enable),
        (32, ps.n32_pixel_dispatch_enable),
    ];
    let count = enabled.iter().filter(|e| e.1).count();
    let slots = [
        (
            ps.kernel_start_pointer_0,
            ps.dispatch_grf_start_register_for_constant_setup_data_0,
        ),
        (
            ps.kernel_start_pointer_1,
            ps.dispatch_grf_start_register_for_constant_setup_data_1,
        ),
        (
            ps.kernel_start_pointer_2,
            ps.dispatch_grf_start_register_for_constant_setup_data_2,
        ),
    ];
    let kernels = if wm.thread_dispatch_enable {
        enabled
            .iter()
            .filter(|e| e.1)
            .map(|&(simd, _)| {
                let slot = match (count, simd) {
                    (1, _) | (_, 8) => 0,
                    (_, 32) => 1,
                    _ => 2,
                };
                let (ksp, grf) = slots[slot];
                PsKernel {
                    simd,
                    kernel: KernelPointer {
                        address: bases.instruction.wrapping_add(ksp),
                        bound: bases.instruction_bound,
                    },
                    grf_start: grf as usize,
                }
            })
            .collect()
    } else {
        vec![]
    };
    // Every 3DSTATE_WM/3DSTATE_PS feature is modelled: dual-source writes carry their
    // second colour (seed 000 §3.7.2), oMask and the position offset and input
    // coverage phases are modelled with multisampling (seed 004 §11.10.3).
    let unsupported = vec![];
    PixelShader {
        scratch: Scratch {
            base: ps.scratch_space_base_pointer,
            per_thread: u32::from(ps.per_thread_scratch_space),
            // Seed 004 §3.2.1 (and each stage's state): 2^n KiB per thread.
            bytes_per_thread: 1024 << (ps.per_thread_scratch_space & 0xf),
        },
        kernels,
        dispatch: wm.thread_dispatch_enable,
        statistics: wm.statistics_enable,
        alt_float_mode: ps.floating_point_mode == FloatingPointMode::ALT,
        kills_pixels: wm.pixel_shader_kill_pixel,
        computes_depth: wm.pixel_shader_computed_depth_mode.0 != 0,
        // Computed stencil is Gen9+.
        computes_stencil: false,
        // Seed 004 §11.5 3DSTATE_WM Early Depth/Stencil Control; the seed lost the
        // value names: 0 EDSC_NORMAL, 1 EDSC_PSEXEC, 2 EDSC_PREPS (Mesa gen7.xml).
        early_depth_forced: wm.early_depth_stencil_control.0 == 2,
        ps_exec_forced: wm.early_depth_stencil_control.0 == 1,
        barycentric_modes: wm.barycentric_interpolation_mode,
        source_depth: wm.pixel_shader_uses_source_depth,
        source_w: wm.pixel_shader_uses_source_w,
        push_constants: ps.push_constant_enable,
        attributes: ps.attribute_enable,
        input_coverage: wm.pixel_shader_uses_input_coverage_mask,
        // Seed 004 §11.10.3.1: Ivy Bridge's mask is the covered samples.
        input_coverage_post_depth: false,
        position_offset: match ps.position_xy_offset_select {
            PositionXyOffsetSelect::POSOFFSET_CENTROID => PositionOffset::Centroid,
            PositionXyOffsetSelect::POSOFFSET_SAMPLE => PositionOffset::Sample,
            _ => PositionOffset::None,
        },
        omask: ps.o_mask_present_to_render_target,
        fast_clear: ps.render_target_fast_clear_enable,
        resolve: ps.render_target_resolve_enable,
        coarse: None,
        unsupported,
        resources,
    }
}

/// The push constants of a 3DSTATE_CONSTANT_* body: buffers 0 to 3, each Read Length
/// registers from its pointer (seed 004 §3.2.1.3; the pointer is an offset from Dynamic
/// State Base Address unless INSTPM's CONSTANT_BUFFER Address Offset Disable is set).
fn push_constants(
    mem: &dyn Memory,
    base: u64,
    b: &ThreeDStateConstantBody,
) -> Result<Vec<[u8; 32]>, DrawError> {
    let mut out = vec![];
    for (len, ptr) in [
        (
            b.constant_buffer_0_read_length,
            b.pointer_to_constant_buffer_0,
        ),
        (
            b.constant_buffer_1_read_length,
            b.pointer_to_constant_buffer_1,
        ),
        (
            b.constant_buffer_2_read_length,
            b.pointer_to_constant_buffer_2,
        ),
        (
            b.constant_buffer_3_read_length,
            b.pointer_to_constant_buffer_3,
        ),
    ] {
        for r in 0..len as u64 {
            let mut reg = [0u8; 32];
            mem.read(base.wrapping_add(ptr).wrapping_add(r * 32), &mut reg)
                .map_err(|fault| DrawError::Fault {
                    unit: "push constants",
                    fault,
                })?;
            out.push(reg);
        }
    }
    if out.len() > 64 {
        return Err(DrawError::State {
            command: "3DSTATE_CONSTANT_*",
            why: format!(
                "the read lengths add up to {} registers, more than 64 (seed 004 §3.2.1.3)",
                out.len()
            ),
        });
    }
    Ok(out)
}
