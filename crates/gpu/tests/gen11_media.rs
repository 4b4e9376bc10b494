//! A Gen11 MEDIA_OBJECT_WALKER end to end: a SIMD16 media kernel (assembled here from
//! the disassembler's syntax) writes, into a slot its position picks, its R0.1 plus its
//! CURBE's first dword, through a data port untyped surface write. The batch is built
//! from genxml's and seed 003's layouts as iHD's composite path builds one
//! (`vphal_render_composite.cpp` RenderBufferMediaWalker: the raster walk). The
//! expectations are worked by hand from the walker's loops and the Gen11 media
//! payload: R0.1 11:0 X, 23:12 Y, 31:24 the colour (Intel's graphics compiler,
//! `visa/BuildIRImpl.cpp`, reads them so from Ice Lake on).

use gtsim_gpu::device::{Device, Platform};
use gtsim_mem::{AddressSpace, Memory};
use gtsim_spec::gen11::*;
use gtsim_spec::shared::SurfaceFormat;

const INSTRUCTIONS: u64 = 0x10_0000;
const DYNAMIC: u64 = 0x20_0000;
const SURFACES: u64 = 0x30_0000;
const BATCH: u64 = 0x40_0000;
const VALUES: u64 = 0x51_0000;
const CURBE_VALUE: u32 = 0x5000;

/// The kernel: slot = X + 8·Y, 16 lanes write R0.1 + g1.0 at byte slot·64 of
/// binding table entry 2 (all lanes the same address and value), then end.
const KERNEL: &str = "\
and(1)          g20<1>UD        g0.1<0,1,0>UD   0x00000fffUD    { align1 1N };
shr(1)          g20.1<1>UD      g0.1<0,1,0>UD   0x0000000cUD    { align1 1N };
and(1)          g20.1<1>UD      g20.1<0,1,0>UD  0x00000fffUD    { align1 1N };
shl(1)          g20.2<1>UD      g20.1<0,1,0>UD  0x00000003UD    { align1 1N };
add(1)          g20.3<1>UD      g20<0,1,0>UD    g20.2<0,1,0>UD  { align1 1N };
shl(1)          g20.4<1>UD      g20.3<0,1,0>UD  0x00000006UD    { align1 1N };
mov(16)         g42<1>UD        g20.4<0,1,0>UD                  { align1 1H };
add(16)         g44<1>UD        g0.1<0,1,0>UD   g1<0,1,0>UD     { align1 1H };
sends(16)       nullUD          g42UD           g44UD           0x04025e02                0x00000080
                            dp data 1 MsgDesc: (DC untyped surface write, Surface = 2, SIMD16, Mask = 0xe) mlen 2 ex_mlen 2 rlen 0 { align1 1H };
mov(8)          g126<1>UD       g0<8,8,1>UD                     { align1 WE_all 1Q };
send(16)        null<1>UW       g126<8,8,1>UW   0x82000000
                            thread_spawner MsgDesc: mlen 1 rlen 0           { align1 WE_all 1H EOT };
";

fn write_dwords(m: &mut AddressSpace, at: u64, dw: &[u32]) {
    let bytes: Vec<u8> = dw.iter().flat_map(|d| d.to_le_bytes()).collect();
    m.write(at, &bytes).unwrap();
}

/// The memory and batch of one walker: `walker` after the media state, in `pipeline`.
fn setup(walker: MediaObjectWalker, pipeline: pipeline_select::PipelineSelection) -> AddressSpace {
    let mut m = AddressSpace::new();
    for base in [INSTRUCTIONS, DYNAMIC, SURFACES, BATCH, VALUES] {
        m.map(base, 0x1_0000);
    }
    let kernel = gtsim_isa::asm::assemble_for(
        gtsim_isa::Encoding::IceLake,
        KERNEL,
        gtsim_isa::asm::Compaction::Never,
    )
    .unwrap();
    m.write(INSTRUCTIONS, &kernel).unwrap();
    // Binding table entry 2: a RAW buffer over VALUES (seed 003 RENDER_SURFACE_STATE:
    // size − 1 across Width 6:0, Height 20:7).
    let n = 0x1_0000u32 - 1;
    let state = RenderSurfaceState {
        surface_type: render_surface_state::SurfaceType::SURFTYPE_BUFFER,
        surface_format: SurfaceFormat::RAW,
        width: (n & 0x7f) as u16,
        height: ((n >> 7) & 0x3fff) as u16,
        surface_base_address: VALUES,
        ..Default::default()
    }
    .pack()
    .unwrap();
    write_dwords(&mut m, SURFACES + 0x100, &[0, 0, 0x200]);
    write_dwords(&mut m, SURFACES + 0x200, &state);
    let mut curbe = vec![0u32; 8];
    curbe[0] = CURBE_VALUE;
    write_dwords(&mut m, DYNAMIC + 0x400, &curbe);
    let idd = InterfaceDescriptorData {
        binding_table_pointer: 0x100,
        binding_table_entry_count: 3,
        constant_indirect_urb_entry_read_length: 1,
        ..Default::default()
    }
    .pack()
    .unwrap();
    write_dwords(&mut m, DYNAMIC + 0x800, &idd);
    let mut batch = vec![];
    let mut push = |dw: Vec<u32>| batch.extend(dw);
    push(
        StateBaseAddress {
            surface_state_base_address: SURFACES,
            surface_state_base_address_modify_enable: true,
            dynamic_state_base_address: DYNAMIC,
            dynamic_state_base_address_modify_enable: true,
            instruction_base_address: INSTRUCTIONS,
            instruction_base_address_modify_enable: true,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    push(
        PipelineSelect {
            mask_bits: 3,
            pipeline_selection: pipeline,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    push(
        MediaVfeState {
            maximum_number_of_threads: 447,
            number_of_urb_entries: 2,
            urb_entry_allocation_size: 2,
            curbe_allocation_size: 2,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    push(
        MediaCurbeLoad {
            curbe_total_data_length: 32,
            curbe_data_start_address: 0x400,
        }
        .pack()
        .unwrap(),
    );
    push(
        MediaInterfaceDescriptorLoad {
            interface_descriptor_total_length: 32,
            interface_descriptor_data_start_address: 0x800,
        }
        .pack()
        .unwrap(),
    );
    push(walker.pack().unwrap());
    push(MediaStateFlush::default().pack().unwrap());
    push(MiBatchBufferEnd::default().pack().unwrap());
    write_dwords(&mut m, BATCH, &batch);
    m
}

/// iHD's raster walk over `w` x `h` blocks (RenderBufferMediaWalker with no offset).
fn raster(w: u16, h: u16) -> MediaObjectWalker {
    MediaObjectWalker {
        global_loop_exec_count: 1,
        local_loop_exec_count: h - 1,
        block_resolution_x: w,
        block_resolution_y: h,
        local_outer_loop_stride_y: 1,
        local_inner_loop_unit_x: 1,
        global_resolution_x: w,
        global_resolution_y: h,
        global_outer_loop_stride_x: w as i16,
        global_inner_loop_unit_y: h as i16,
        ..Default::default()
    }
}

fn slot(m: &AddressSpace, x: u32, y: u32) -> u32 {
    m.read_u32(VALUES + u64::from(x + 8 * y) * 64).unwrap()
}

/// A 3x2 raster walk: six threads, each writing its X | Y << 12 plus the CURBE value
/// in its slot; the slots around them stay zero.
#[test]
fn a_raster_walk_runs_one_thread_per_block_with_its_position() {
    let mut m = setup(raster(3, 2), pipeline_select::PipelineSelection::MEDIA);
    let mut dev = Device::with_platform(Platform::IceLake);
    let r = dev.submit(1, BATCH, &mut m).unwrap();
    assert_eq!(r.walkers, 1);
    for y in 0..3 {
        for x in 0..8 {
            let expected = if x < 3 && y < 2 {
                (x | y << 12) + CURBE_VALUE
            } else {
                0
            };
            assert_eq!(slot(&m, x, y), expected, "slot ({x}, {y})");
        }
    }
}

/// Color Count Minus One 1: each position runs for colour 0 and then colour 1, so the
/// slot keeps colour 1's value (R0.1 31:24 = 1); a Global Start of (1, 1) in a 3x2
/// area leaves the blocks at (1, 1) and (2, 1), clipped.
#[test]
fn colours_and_a_global_start_reach_the_payload() {
    let w = MediaObjectWalker {
        color_count_minus_one: 1,
        global_start_x: 1,
        global_start_y: 1,
        ..raster(3, 2)
    };
    let mut m = setup(w, pipeline_select::PipelineSelection::MEDIA);
    let mut dev = Device::with_platform(Platform::IceLake);
    dev.submit(1, BATCH, &mut m).unwrap();
    let mut written = vec![];
    for y in 0..3 {
        for x in 0..8 {
            let v = slot(&m, x, y);
            if v != 0 {
                written.push((x, y, v));
            }
        }
    }
    let with = |x: u32, y: u32| (x | y << 12 | 1 << 24) + CURBE_VALUE;
    assert_eq!(written, [(1, 1, with(1, 1)), (2, 1, with(2, 1))]);
}

/// The walker outside the media pipeline, and one that would never end (zero inner
/// units), are hangs naming the command.
#[test]
fn walkers_outside_the_media_pipeline_or_without_end_hang() {
    let mut m = setup(raster(2, 2), pipeline_select::PipelineSelection::GPGPU);
    let e = Device::with_platform(Platform::IceLake)
        .submit(1, BATCH, &mut m)
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not select the media pipeline"), "{e}");
    let stuck = MediaObjectWalker {
        local_inner_loop_unit_x: 0,
        ..raster(2, 2)
    };
    let mut m = setup(stuck, pipeline_select::PipelineSelection::MEDIA);
    let e = Device::with_platform(Platform::IceLake)
        .submit(1, BATCH, &mut m)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("MEDIA_OBJECT_WALKER") && e.contains("never leaves its block"),
        "{e}"
    );
}

/// Hostile media state: the batch (the walker's loop fields above all), the interface
/// descriptor, the CURBE, the binding table, the surface state and the kernel of the
/// raster walk above, mutated dword by dword, run under small limits. Whatever the
/// bytes, the submission ends (done or a typed hang, both reached), never panics, and
/// gives the same memory and result twice. `GTSIM_FUZZ_CASES=N` runs N cases.
#[test]
fn hostile_media_walkers_end_in_a_report_or_a_hang() {
    use gtsim_gpu::device::DeviceLimits;
    use gtsim_pipe3d::draw::WorkLimits;
    const LIMITS: DeviceLimits = DeviceLimits {
        max_commands: 2_000,
        work: WorkLimits {
            eu_instructions: 200_000,
            vertices: 1_000,
            pixels: 20_000,
            host_seconds: 0, // counts only: the outcome may not depend on the host
        },
    };
    let batch_len = {
        let m = setup(raster(3, 2), pipeline_select::PipelineSelection::MEDIA);
        let mut b = vec![0u8; 4 * 96];
        m.read(BATCH, &mut b).unwrap();
        // Up to and including MI_BATCH_BUFFER_END.
        b.chunks_exact(4)
            .position(|d| d == 0x0500_0000u32.to_le_bytes())
            .map_or(b.len(), |i| 4 * i)
    };
    // (region, bytes): what a mutation may touch; the batch, and the walker alone (17
    // dwords before MEDIA_STATE_FLUSH and the end).
    let regions: [(u64, usize); 7] = [
        (BATCH, batch_len),
        (BATCH + batch_len as u64 - 4 * 19, 4 * 17),
        (DYNAMIC + 0x800, 32),
        (DYNAMIC + 0x400, 32),
        (SURFACES + 0x100, 12),
        (SURFACES + 0x200, 0x40),
        (INSTRUCTIONS, 0x90),
    ];
    let interesting = [
        0,
        1,
        2,
        0xff,
        0xfe,
        0xffff_ffff,
        0x8000_0000,
        0x10,
        0xfff,
        0x7ff,
    ];
    let cases = gtsim_fuzzkit::cases(120);
    let mut rng = gtsim_fuzzkit::Rng::new(gtsim_fuzzkit::seed(0x3ed1_a11c));
    let mut outcomes = [0usize; 2];
    for _ in 0..cases {
        let mut m = setup(raster(3, 2), pipeline_select::PipelineSelection::MEDIA);
        let (base, len) = regions[rng.below(regions.len())];
        let mut bytes = vec![0u8; len];
        m.read(base, &mut bytes).unwrap();
        gtsim_fuzzkit::mutate_dwords(&mut rng, &mut bytes, &interesting);
        m.write(base, &bytes).unwrap();
        let run = |mut m: AddressSpace| {
            let mut dev = Device::with_platform(Platform::IceLake);
            dev.limits = LIMITS;
            let r = dev.submit(1, BATCH, &mut m).map(|r| r.walkers);
            let mut values = vec![0u8; 0x800];
            m.read(VALUES, &mut values).unwrap();
            (format!("{r:?}"), values)
        };
        let first = run(m.clone());
        assert_eq!(first, run(m), "the same submission must give the same bits");
        outcomes[usize::from(first.0.starts_with("Err"))] += 1;
    }
    let [completed, hung] = outcomes;
    eprintln!("{completed} completed, {hung} hung");
    assert!(
        completed > 0 && hung > 0,
        "both outcomes: {completed} completed, {hung} hung"
    );
}
