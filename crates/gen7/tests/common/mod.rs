//! Shared by the whole-draw tests: a 16x16 render target, hand-packed state and kernels
//! assembled from text.

#![allow(dead_code, reason = "each test file uses a different part")]

use gtsim_gen7::{DrawFront, LatchedState, Registers};
use gtsim_isa::asm::{Compaction, assemble};
use gtsim_mem::AddressSpace;
use gtsim_pipe3d::draw::{DrawError, KernelCache, Statistics, Watchdog, WorkLimits, draw};
use gtsim_spec::gen7::*;
use gtsim_spec::shared::*;
use std::collections::BTreeMap;

pub const SURFACE_BASE: u64 = 0x10000;
pub const INSTRUCTION_BASE: u64 = 0x20000;
pub const VB: u64 = 0x30000;
pub const RT: u64 = 0x40000;
pub const PS_KERNEL: u64 = 0x100;
pub const VS_KERNEL: u64 = 0x400;
/// 16x16 R8G8B8A8_UNORM, linear, 64-byte pitch.
pub const W: u32 = 16;

pub struct State {
    pub commands: BTreeMap<&'static str, Vec<u32>>,
    /// MMIO registers the draw reads (unset ones read 0).
    pub registers: BTreeMap<u32, u32>,
}

impl State {
    /// The commands latched the way the command streamer latches them.
    pub fn latched(&self) -> Result<LatchedState, DrawError> {
        let mut latched = LatchedState::default();
        for (name, dw) in &self.commands {
            latched.latch(name, dw).map_err(|e| DrawError::State {
                command: e.command,
                why: e.error.to_string(),
            })?;
        }
        Ok(latched)
    }
}

impl Registers for State {
    fn register(&self, offset: u32) -> u32 {
        self.registers.get(&offset).copied().unwrap_or(0)
    }
}

pub fn bytes(dw: &[u32]) -> Vec<u8> {
    dw.iter().flat_map(|d| d.to_le_bytes()).collect()
}

pub fn floats(f: &[f32]) -> Vec<u8> {
    f.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A SIMD16 pixel shader that writes attribute 0's a0 (the flat value) to every pixel
/// with a replicated-data render target write: the kernel blorp uses for clears.
pub const PS_FLAT_SIMD16: &str = "mov(4)          g114<1>UD       g2.3<8,2,4>UD                   { align1 WE_all 1N };
sendc(16)       null<1>UW       g114<8,8,1>F    0x82031100
                            render MsgDesc: RT write SIMD16/RepData LastRT Surface = 0 mlen 1 rlen 0 { align1 1H EOT };";

/// A SIMD8 pixel shader interpolating attribute 0 with `pln` (setup data at g4-g5,
/// perspective pixel barycentrics at g2-g3): crocus's shader for `out = in`.
pub const PS_PLN_SIMD8: &str = "pln(8)          g124<1>F        g4<0,1,0>F      g2<8,8,1>F      { align1 1Q };
pln(8)          g125<1>F        g4.4<0,1,0>F    g2<8,8,1>F      { align1 1Q };
pln(8)          g126<1>F        g5<0,1,0>F      g2<8,8,1>F      { align1 1Q };
pln(8)          g127<1>F        g5.4<0,1,0>F    g2<8,8,1>F      { align1 1Q };
sendc(8)        null<1>UW       g124<8,8,1>UD   0x88031400
                            render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };";

/// A SIMD4x2 vertex shader: position (g1) times 2, colour (g2) copied, written to the
/// URB as VUE slots 0 (header, zero), 1 and 2.
pub const VS_SCALE2: &str = "mov(8)          g114<1>UD       0x00000000UD                    { align16 1Q };
mul(8)          g115<1>F        g1<4>F          0x40000000F     { align16 1Q };
mov(8)          g116<1>F        g2<4>F                          { align16 1Q };
mov(8)          g113<1>UD       g0<4>UD                         { align16 WE_all 1Q };
or(1)           g113.5<1>UD     g0.5<0,1,0>UD   0x0000ff00UD    { align1 WE_all 1N };
send(8)         null<1>F        g113<4>F        0x8a08c000
                            urb MsgDesc: offset 0 write HWord interleave complete mlen 5 rlen 0 { align16 1Q EOT };";

/// A GS that passes each input triangle through in DUAL_OBJECT mode: vertex v's slot k
/// of object 0 in dwords 0-3 and of object 1 in dwords 4-7 of register 1 + 4v + k
/// (§7.4.3 "split into upper and lower halves"); it writes vertex v of each object at
/// per-slot offset 2v rows (M0.3 and M0.4) and reports 3 vertices per slot.
pub const GS_PASS_DUAL_OBJECT: &str = "mov(8)          g20<1>UD        g0<8,8,1>UD                     { align1 WE_all 1Q };
or(1)           g20.5<1>UD      g0.5<0,1,0>UD   0x0000ff00UD    { align1 WE_all 1N };
mov(8)          g21<1>UD        0x00000000UD                    { align16 1Q };
mov(1)          g20.3<1>UD      0x00000000UD                    { align1 WE_all 1N };
mov(1)          g20.4<1>UD      0x00000000UD                    { align1 WE_all 1N };
mov(8)          g22<1>F         g2<4>F                          { align16 1Q };
mov(8)          g23<1>F         g3<4>F                          { align16 1Q };
send(8)         null<1>F        g20<4>F         0x08094000
                            urb MsgDesc: offset 0 write HWord per-slot interleave mlen 4 rlen 0 { align16 1Q };
mov(1)          g20.3<1>UD      0x00000002UD                    { align1 WE_all 1N };
mov(1)          g20.4<1>UD      0x00000002UD                    { align1 WE_all 1N };
mov(8)          g22<1>F         g6<4>F                          { align16 1Q };
mov(8)          g23<1>F         g7<4>F                          { align16 1Q };
send(8)         null<1>F        g20<4>F         0x08094000
                            urb MsgDesc: offset 0 write HWord per-slot interleave mlen 4 rlen 0 { align16 1Q };
mov(1)          g20.3<1>UD      0x00000004UD                    { align1 WE_all 1N };
mov(1)          g20.4<1>UD      0x00000004UD                    { align1 WE_all 1N };
mov(8)          g22<1>F         g10<4>F                         { align16 1Q };
mov(8)          g23<1>F         g11<4>F                         { align16 1Q };
send(8)         null<1>F        g20<4>F         0x08094000
                            urb MsgDesc: offset 0 write HWord per-slot interleave mlen 4 rlen 0 { align16 1Q };
mov(8)          g20<1>UD        g0<8,8,1>UD                     { align1 WE_all 1Q };
mov(1)          g20.2<1>UD      0x00030003UD                    { align1 WE_all 1N };
send(8)         null<1>F        g20<4>F         0x0208c000
                            urb MsgDesc: offset 0 write HWord interleave complete mlen 1 rlen 0 { align16 1Q EOT };";

/// A valid VERTEX_ELEMENT_STATE: `format` at `offset`, its four components as
/// `controls` say.
pub fn element(
    format: SurfaceFormat,
    offset: u16,
    controls: [ThreeDVertexComponentControl; 4],
) -> VertexElementState {
    VertexElementState {
        valid: true,
        source_element_format: format,
        source_element_offset: offset,
        component_0_control: controls[0],
        component_1_control: controls[1],
        component_2_control: controls[2],
        component_3_control: controls[3],
        ..Default::default()
    }
}

/// Memory and state for a draw of `vertices` (x, y, r, g, b, a each) into a cleared
/// 16x16 render target, with the given kernels.
pub fn setup(
    vertices: &[[f32; 6]],
    ps: &str,
    simd8: bool,
    vs: Option<&str>,
    flat: bool,
) -> (State, AddressSpace) {
    let mut mem = AddressSpace::new();
    mem.load(RT, &vec![0u8; (W * W * 4) as usize]);
    let vb: Vec<f32> = vertices.iter().flatten().copied().collect();
    mem.load(VB, &floats(&vb));
    mem.load(
        INSTRUCTION_BASE + PS_KERNEL,
        &assemble(ps, Compaction::Never).unwrap(),
    );
    if let Some(vs) = vs {
        mem.load(
            INSTRUCTION_BASE + VS_KERNEL,
            &assemble(vs, Compaction::Never).unwrap(),
        );
    }
    // Binding table at +0x100 pointing at the surface state at +0x200.
    mem.load(SURFACE_BASE + 0x100, &bytes(&[0x200]));
    let rss = RenderSurfaceState {
        surface_type: render_surface_state::SurfaceType::SURFTYPE_2D,
        surface_format: SurfaceFormat::R8G8B8A8_UNORM,
        surface_base_address: RT,
        width: (W - 1) as u16,
        height: (W - 1) as u16,
        surface_pitch: W * 4 - 1,
        ..Default::default()
    };
    mem.load(SURFACE_BASE + 0x200, &bytes(&rss.pack().unwrap()));
    // BLEND_STATE (no blending), COLOR_CALC_STATE, both zero.
    mem.load(SURFACE_BASE + 0x300, &[0u8; 64]);
    let mut c: BTreeMap<&'static str, Vec<u32>> = BTreeMap::new();
    let mut put = |name, dw: Vec<u32>| {
        c.insert(name, dw);
    };
    put(
        "STATE_BASE_ADDRESS",
        StateBaseAddress {
            surface_state_base_address: SURFACE_BASE,
            dynamic_state_base_address: SURFACE_BASE,
            instruction_base_address: INSTRUCTION_BASE,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    put(
        "3DSTATE_VERTEX_BUFFERS",
        ThreeDStateVertexBuffers {
            vertex_buffer_state: vec![VertexBufferState {
                buffer_pitch: 24,
                buffer_starting_address: VB,
                end_address: VB + vb.len() as u64 * 4 - 1,
                ..Default::default()
            }],
        }
        .pack()
        .unwrap(),
    );
    use ThreeDVertexComponentControl as C;
    let position = element(
        SurfaceFormat::R32G32_FLOAT,
        0,
        [
            C::VFCOMP_STORE_SRC,
            C::VFCOMP_STORE_SRC,
            C::VFCOMP_STORE_0,
            C::VFCOMP_STORE_1_FP,
        ],
    );
    let colour = element(
        SurfaceFormat::R32G32B32A32_FLOAT,
        8,
        [C::VFCOMP_STORE_SRC; 4],
    );
    let header = element(SurfaceFormat::R32G32B32A32_FLOAT, 0, [C::VFCOMP_STORE_0; 4]);
    let (elements, vs_state) = match vs {
        // With a VS: the VF writes position and colour; the VS makes the header.
        Some(_) => (
            vec![position, colour],
            ThreeDStateVs {
                kernel_start_pointer: VS_KERNEL,
                dispatch_grf_start_register_for_urb_data: 1,
                vertex_urb_entry_read_length: 1,
                vs_function_enable: true,
                ..Default::default()
            },
        ),
        // Without: the VF output is the VUE, header first.
        None => (vec![header, position, colour], ThreeDStateVs::default()),
    };
    put(
        "3DSTATE_VERTEX_ELEMENTS",
        ThreeDStateVertexElements { element: elements }
            .pack()
            .unwrap(),
    );
    put("3DSTATE_VS", vs_state.pack().unwrap());
    put(
        "3DSTATE_VF_STATISTICS",
        ThreeDStateVfStatistics {
            statistics_enable: true,
        }
        .pack()
        .unwrap(),
    );
    put(
        "3DSTATE_SF",
        ThreeDStateSf {
            cull_mode: three_d_state_sf::CullMode::CULLMODE_NONE,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    put(
        "3DSTATE_CLIP",
        ThreeDStateClip {
            perspective_divide_disable: true,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    put(
        "3DSTATE_SBE",
        ThreeDStateSbe {
            number_of_sf_output_attributes: 1,
            vertex_urb_entry_read_length: 1,
            vertex_urb_entry_read_offset: 1,
            constant_interpolation_enable: u32::from(flat),
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    put(
        "3DSTATE_WM",
        ThreeDStateWm {
            statistics_enable: true,
            thread_dispatch_enable: true,
            barycentric_interpolation_mode: if simd8 { 1 } else { 0 },
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    put(
        "3DSTATE_PS",
        ThreeDStatePs {
            kernel_start_pointer_0: PS_KERNEL,
            attribute_enable: true,
            n16_pixel_dispatch_enable: !simd8,
            n8_pixel_dispatch_enable: simd8,
            dispatch_grf_start_register_for_constant_setup_data_0: if simd8 { 4 } else { 2 },
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    put(
        "3DSTATE_BINDING_TABLE_POINTERS_PS",
        ThreeDStateBindingTablePointersPs {
            pointer_to_ps_binding_table: 0x100,
        }
        .pack()
        .unwrap(),
    );
    put(
        "3DSTATE_BLEND_STATE_POINTERS",
        ThreeDStateBlendStatePointers {
            pointer_to_blend_state: 0x300,
        }
        .pack()
        .unwrap(),
    );
    put(
        "3DSTATE_CC_STATE_POINTERS",
        ThreeDStateCcStatePointers {
            pointer_to_color_calc_state: 0x340,
        }
        .pack()
        .unwrap(),
    );
    put(
        "3DSTATE_DEPTH_BUFFER",
        ThreeDStateDepthBuffer {
            surface_type: three_d_state_depth_buffer::SurfaceType::SURFTYPE_NULL,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    put(
        "3DSTATE_DRAWING_RECTANGLE",
        ThreeDStateDrawingRectangle {
            clipped_drawing_rectangle_x_max: (W - 1) as u16,
            clipped_drawing_rectangle_y_max: (W - 1) as u16,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    (
        State {
            commands: c,
            registers: BTreeMap::new(),
        },
        mem,
    )
}

pub fn primitive(topology: ThreeDPrimTopoType, count: u32) -> Vec<u32> {
    ThreeDPrimitive {
        primitive_topology_type: topology,
        vertex_count_per_instance: count,
        instance_count: 1,
        ..Default::default()
    }
    .pack()
    .unwrap()
}

pub fn pixel(mem: &AddressSpace, x: u32, y: u32) -> [u8; 4] {
    let mut p = [0u8; 4];
    mem.read(RT + (y * W * 4 + x * 4) as u64, &mut p).unwrap();
    p
}

pub fn run(state: &State, mem: &mut AddressSpace, prim: &[u32]) -> Result<Statistics, DrawError> {
    run_limited(state, mem, prim, WorkLimits::BUILT_IN)
}

/// A draw under the given watchdog limits.
pub fn run_limited(
    state: &State,
    mem: &mut AddressSpace,
    prim: &[u32],
    limits: WorkLimits,
) -> Result<Statistics, DrawError> {
    let mut stats = Statistics::default();
    let mut watchdog = Watchdog::new(limits);
    let latched = state.latched()?;
    let prim = ThreeDPrimitive::unpack(prim).map_err(|e| DrawError::State {
        command: "3DPRIMITIVE",
        why: e.to_string(),
    })?;
    draw(
        &DrawFront::new(&latched, state, &prim),
        mem,
        &mut KernelCache::default(),
        &mut stats,
        &mut watchdog,
    )?;
    Ok(stats)
}
