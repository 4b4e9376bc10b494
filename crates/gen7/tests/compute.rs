//! A GPGPU walker end to end: PIPELINE_SELECT, STATE_BASE_ADDRESS, MEDIA_VFE_STATE,
//! MEDIA_CURBE_LOAD and MEDIA_INTERFACE_DESCRIPTOR_LOAD latched as the command streamer
//! latches them, the interface descriptor, CURBE, binding table and a RAW buffer in
//! memory, and a kernel assembled from text that reads its payload (the group IDs in
//! R0.1 and R0.6, its CURBE row in R1), exchanges a value with the other thread of its
//! group through shared local memory across a gateway barrier, and writes one dword per
//! channel with an untyped surface write. Every dword of the buffer is worked out by
//! hand from those rules.
//!
//! MEDIA_OBJECT over the same state in media mode: two objects whose kernel reads its
//! payload the way Intel's VA driver's and Linux i915's Ivy Bridge media kernels do (R0.1
//! the object's X and Y, R0.2 3:0 its colour, R1 the CURBE row every object shares, R2
//! its inline data), each buffer dword again worked out by hand.

use gtsim_gen7::compute::{ComputeFront, Job};
use gtsim_gen7::latched::{LatchedState, Registers};
use gtsim_isa::asm::{Compaction, assemble};
use gtsim_mem::{AddressSpace, Memory};
use gtsim_pipe3d::draw::compute::walk;
use gtsim_pipe3d::draw::media;
use gtsim_pipe3d::draw::{DrawError, KernelCache, Watchdog, WorkLimits};
use gtsim_spec::gen7::*;
use gtsim_spec::shared::SurfaceFormat;

const SURFACE_BASE: u64 = 0x10000;
const INSTRUCTION_BASE: u64 = 0x20000;
const BUFFER: u64 = 0x60000;
const BUFFER_BYTES: u64 = 4096;
const IDD: u64 = 0x400;
const CURBE: u64 = 0x600;

/// Channel c of thread t of group (x, y): U = 4c + 32t + 64x + 256y, the value
/// 1000x + 100y + 10t + c + 10000·(the other thread's t, read from SLM after the
/// barrier).
const KERNEL: &str =
    "mov(8)          g10<1>D         0x76543210V                     { align1 1Q };
shl(8)          g20<1>D         g10<8,8,1>D     0x00000002UD    { align1 1Q };
mul(8)          g12<1>D         g1<0,1,0>D      32D             { align1 1Q };
add(8)          g20<1>D         g20<8,8,1>D     g12<8,8,1>D     { align1 1Q };
mul(8)          g12<1>D         g0.1<0,1,0>D    64D             { align1 1Q };
add(8)          g20<1>D         g20<8,8,1>D     g12<8,8,1>D     { align1 1Q };
mul(8)          g12<1>D         g0.6<0,1,0>D    256D            { align1 1Q };
add(8)          g20<1>D         g20<8,8,1>D     g12<8,8,1>D     { align1 1Q };
mul(8)          g21<1>D         g0.1<0,1,0>D    1000D           { align1 1Q };
mul(8)          g12<1>D         g0.6<0,1,0>D    100D            { align1 1Q };
add(8)          g21<1>D         g21<8,8,1>D     g12<8,8,1>D     { align1 1Q };
mul(8)          g12<1>D         g1<0,1,0>D      10D             { align1 1Q };
add(8)          g21<1>D         g21<8,8,1>D     g12<8,8,1>D     { align1 1Q };
add(8)          g21<1>D         g21<8,8,1>D     g10<8,8,1>D     { align1 1Q };
shl(8)          g30<1>D         g1<0,1,0>D      0x00000002UD    { align1 WE_all 1Q };
mov(8)          g31<1>D         g1<0,1,0>D                      { align1 WE_all 1Q };
send(8)         null<1>UW       g30<8,8,1>UD    0x04036efe
                            data MsgDesc: { align1 WE_all 1Q };
mov(8)          g17<1>UD        0x00000000UD                    { align1 WE_all 1Q };
send(8)         null<1>UW       g17<8,8,1>UD    0x02000004
                            gateway MsgDesc: { align1 WE_all 1Q };
wait(1)         n0<1>.xUD                                       { align16 WE_all 1N };
add(8)          g32<1>D         -g1<0,1,0>D     1D              { align1 WE_all 1Q };
shl(8)          g32<1>D         g32<8,8,1>D     0x00000002UD    { align1 WE_all 1Q };
send(8)         g23<1>UW        g32<8,8,1>UD    0x02116efe
                            data MsgDesc: { align1 WE_all 1Q };
mul(8)          g12<1>D         g23<8,8,1>D     10000D          { align1 1Q };
add(8)          g21<1>D         g21<8,8,1>D     g12<8,8,1>D     { align1 1Q };
send(8)         null<1>UW       g20<8,8,1>UD    0x04036e00
                            data MsgDesc: { align1 1Q };
send(8)         null<1>UW       g0<8,8,1>UD     0x02000010
                            thread_spawner MsgDesc: { align1 WE_all 1Q EOT };";

struct NoRegisters;

impl Registers for NoRegisters {
    fn register(&self, _offset: u32) -> u32 {
        0
    }
}

fn latch(s: &mut LatchedState, name: &str, dw: Vec<u32>) {
    assert!(s.latch(name, &dw).unwrap(), "{name} is latched");
}

fn bytes(dw: &[u32]) -> Vec<u8> {
    dw.iter().flat_map(|d| d.to_le_bytes()).collect()
}

/// Latched state and memory for a walker of `groups` (X, Y) groups of two SIMD8
/// threads, the last thread of each group masked by `right_mask`.
fn setup(right_mask: u32, barrier: bool) -> (LatchedState, AddressSpace, GpgpuWalker) {
    setup_kernel(KERNEL, right_mask, barrier)
}

/// PIPELINE_SELECT `selection`, STATE_BASE_ADDRESS, `vfe`, a 64-byte MEDIA_CURBE_LOAD at
/// CURBE and one interface descriptor at IDD, latched as the command streamer latches
/// them.
fn latched(selection: pipeline_select::PipelineSelection, vfe: MediaVfeState) -> LatchedState {
    let mut s = LatchedState::default();
    latch(
        &mut s,
        "PIPELINE_SELECT",
        PipelineSelect {
            pipeline_selection: selection,
        }
        .pack()
        .unwrap(),
    );
    latch(
        &mut s,
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
    latch(&mut s, "MEDIA_VFE_STATE", vfe.pack().unwrap());
    latch(
        &mut s,
        "MEDIA_CURBE_LOAD",
        MediaCurbeLoad {
            curbe_total_data_length: 64,
            curbe_data_start_address: CURBE,
        }
        .pack()
        .unwrap(),
    );
    latch(
        &mut s,
        "MEDIA_INTERFACE_DESCRIPTOR_LOAD",
        MediaInterfaceDescriptorLoad {
            interface_descriptor_total_length: 32,
            interface_descriptor_data_start_address: IDD,
        }
        .pack()
        .unwrap(),
    );
    s
}

/// Memory holding `kernel` at the instruction base, a binding table at 0x100 whose
/// entry 0 is a RAW buffer of 4096 bytes of 0xee, and the interface descriptor `idd`
/// and CURBE dwords `curbe`.
fn memory(kernel: &str, idd: &InterfaceDescriptorData, curbe: &[u32]) -> AddressSpace {
    let mut mem = AddressSpace::new();
    mem.load(BUFFER, &vec![0xee; BUFFER_BYTES as usize]);
    mem.load(
        INSTRUCTION_BASE,
        &assemble(kernel, Compaction::Never).unwrap(),
    );
    mem.load(SURFACE_BASE + IDD, &bytes(&idd.pack().unwrap()));
    mem.load(SURFACE_BASE + CURBE, &bytes(curbe));
    mem.load(SURFACE_BASE + 0x100, &bytes(&[0x200]));
    // A RAW buffer of 4096 bytes: 4095 = Width 127 | Height 31 << 7.
    let rss = RenderSurfaceState {
        surface_type: render_surface_state::SurfaceType::SURFTYPE_BUFFER,
        surface_format: SurfaceFormat::RAW,
        surface_base_address: BUFFER,
        width: 127,
        height: 31,
        ..Default::default()
    };
    mem.load(SURFACE_BASE + 0x200, &bytes(&rss.pack().unwrap()));
    mem
}

/// [`setup`] with another kernel, and scratch space at 0x8000 of 2 KiB per thread
/// (Ivy Bridge's linear KiB encoding: 1 = 2 KiB).
fn setup_kernel(
    kernel: &str,
    right_mask: u32,
    barrier: bool,
) -> (LatchedState, AddressSpace, GpgpuWalker) {
    let s = latched(
        pipeline_select::PipelineSelection::GPGPU,
        MediaVfeState {
            maximum_number_of_threads: 63,
            scratch_space_base_pointer: 0x8000,
            per_thread_scratch_space: 1,
            gpgpu_mode: media_vfe_state::GpgpuMode::GPGPU_MODE,
            ..Default::default()
        },
    );
    let idd = InterfaceDescriptorData {
        kernel_start_pointer: 0,
        binding_table_pointer: 0x100,
        binding_table_entry_count: 1,
        constant_urb_entry_read_length: 1,
        barrier_enable: barrier,
        shared_local_memory_size: 1,
        number_of_threads_in_gpgpu_thread_group: 2,
        ..Default::default()
    };
    // Thread t's CURBE row: dword 0 = t.
    let mut curbe = [0u32; 16];
    curbe[8] = 1;
    let mem = memory(kernel, &idd, &curbe);
    let walker = GpgpuWalker {
        simd_size: gpgpu_walker::SimdSize::SIMD8,
        thread_width_counter_maximum: 1,
        thread_group_id_x_dimension: 4,
        thread_group_id_y_dimension: 3,
        thread_group_id_z_dimension: 1,
        right_execution_mask: right_mask,
        bottom_execution_mask: 0xffff_ffff,
        ..Default::default()
    };
    (s, mem, walker)
}

fn run(s: &LatchedState, mem: &mut AddressSpace, w: &GpgpuWalker) -> Result<(), DrawError> {
    let front = ComputeFront::new(s, &NoRegisters, w);
    let mut watchdog = Watchdog::new(WorkLimits::BUILT_IN);
    let stats = walk(&front, mem, &mut KernelCache::default(), &mut watchdog)?;
    assert_eq!((stats.groups, stats.threads), (12, 24));
    Ok(())
}

#[test]
fn thread_groups_see_their_ids_curbe_rows_shared_memory_and_barrier() {
    // The second thread of each group keeps channels 0-3 (Right Execution Mask).
    let (s, mut mem, w) = setup(0x0f, true);
    run(&s, &mut mem, &w).unwrap();
    for y in 0..3u64 {
        for x in 0..4u64 {
            for t in 0..2u64 {
                for c in 0..8u64 {
                    let u = 4 * c + 32 * t + 64 * x + 256 * y;
                    let got = mem.read_u32(BUFFER + u).unwrap();
                    let want = if t == 1 && c >= 4 {
                        0xeeee_eeee
                    } else {
                        (1000 * x + 100 * y + 10 * t + c + 10000 * (1 - t)) as u32
                    };
                    assert_eq!(got, want, "group ({x}, {y}) thread {t} channel {c}");
                }
            }
        }
    }
    // Nothing past the 12 groups' 768 bytes.
    assert_eq!(mem.read_u32(BUFFER + 768).unwrap(), 0xeeee_eeee);
}

/// Without Barrier Enable the `wait` has no gateway to notify it: a typed hang, not a
/// frozen walker.
#[test]
fn a_wait_without_the_barrier_enabled_is_a_hang() {
    let (s, mut mem, w) = setup(0xff, false);
    let e = run(&s, &mut mem, &w).unwrap_err();
    assert!(e.to_string().contains("wait"), "{e}");
}

/// A walker needs the GPGPU mode of MEDIA_VFE_STATE and an interface descriptor inside
/// what MEDIA_INTERFACE_DESCRIPTOR_LOAD loaded.
#[test]
fn a_walker_past_its_interface_descriptors_is_a_state_error() {
    let (s, mut mem, mut w) = setup(0xff, true);
    w.interface_descriptor_offset = 1;
    let e = run(&s, &mut mem, &w).unwrap_err();
    assert!(e.to_string().contains("Interface Descriptor Offset"), "{e}");
}

/// The 12 groups run in parallel batches over overlays of memory: the buffer holds the
/// same bytes whatever the host thread count.
#[test]
fn walker_results_do_not_depend_on_the_host_thread_count() {
    let image = |threads: usize| {
        let (s, mut mem, w) = setup(0x0f, true);
        gtsim_pipe3d::draw::parallel::with_threads(threads, || run(&s, &mut mem, &w)).unwrap();
        let mut b = vec![0u8; BUFFER_BYTES as usize];
        mem.read(BUFFER, &mut b).unwrap();
        b
    };
    assert_eq!(image(1), image(3));
}

/// Each thread of a group has its own scratch region: R0.5 holds Scratch Space Base
/// Pointer + FFTID x the per-thread size in 31:10 and the FFTID (here the thread's
/// index in its group) in 7:0; threads of a group interleave at their barriers, so
/// their spills must not meet.
#[test]
fn threads_of_a_group_get_their_own_scratch_regions() {
    const R05: &str =
        "mul(8)          g20<1>D         g1<0,1,0>D      4D              { align1 1Q };
mul(8)          g12<1>D         g0.1<0,1,0>D    8D              { align1 1Q };
add(8)          g20<1>D         g20<8,8,1>D     g12<8,8,1>D     { align1 1Q };
mul(8)          g12<1>D         g0.6<0,1,0>D    32D             { align1 1Q };
add(8)          g20<1>D         g20<8,8,1>D     g12<8,8,1>D     { align1 1Q };
mov(8)          g21<1>UD        g0.5<0,1,0>UD                   { align1 1Q };
send(8)         null<1>UW       g20<8,8,1>UD    0x04036e00
                            data MsgDesc: { align1 1Q };
send(8)         null<1>UW       g0<8,8,1>UD     0x02000010
                            thread_spawner MsgDesc: { align1 WE_all 1Q EOT };";
    let (s, mut mem, w) = setup_kernel(R05, 0xff, false);
    run(&s, &mut mem, &w).unwrap();
    for y in 0..3u64 {
        for x in 0..4u64 {
            for t in 0..2u32 {
                let got = mem
                    .read_u32(BUFFER + 32 * y + 8 * x + 4 * u64::from(t))
                    .unwrap();
                assert_eq!(got, (0x8000 + 2048 * t) | t, "group ({x}, {y}) thread {t}");
            }
        }
    }
}

/// Fuzz (docs/FUZZING.md): hostile walkers, interface descriptors, MEDIA_VFE_STATE and
/// kernels (the barrier kernel, one that waits with no barrier, one that loops for
/// ever, the R0.5 kernel): random SIMD sizes (the reserved one included), thread
/// counters, group ranges (empty, reversed, up to a million groups), execution masks,
/// CURBE read lengths and offsets past the CURBE and the GRF, SLM sizes, barrier thread
/// counts (0, fewer and more than the group has), media mode. Under small work limits
/// every walker ends with its result or a typed error, both reached. `GTSIM_FUZZ_CASES`
/// (default 300), `GTSIM_FUZZ_SEED`.
#[test]
fn hostile_walkers_end_in_a_result_or_a_typed_error() {
    const SPIN: &str = "LABEL0:
while(8)        JIP:  LABEL0                                    { align1 1Q };";
    const WAIT: &str =
        "wait(1)         n0<1>UD                                         { align1 WE_all 1N };
send(8)         null<1>UW       g0<8,8,1>UD     0x02000010
                            thread_spawner MsgDesc: { align1 WE_all 1Q EOT };";
    let mut rng = gtsim_fuzzkit::SplitMix64(gtsim_fuzzkit::env_u64("GTSIM_FUZZ_SEED", 5));
    let (mut ok, mut errors) = (0, 0);
    for _ in 0..gtsim_fuzzkit::cases(300) {
        let kernel = [KERNEL, WAIT, SPIN][rng.below(3) as usize];
        let (mut s, mut mem, mut w) = setup_kernel(kernel, rng.next_u64() as u32, rng.one_in(2));
        w.simd_size = gpgpu_walker::SimdSize(rng.below(4) as u32);
        w.thread_width_counter_maximum = rng.below(64) as u8;
        w.thread_height_counter_maximum = rng.below(3) as u8;
        w.thread_depth_counter_maximum = rng.below(2) as u8;
        let dim = |rng: &mut gtsim_fuzzkit::SplitMix64| match rng.below(4) {
            0 => 0,
            1 => rng.below(1 << 20) as u32,
            _ => rng.below(4) as u32,
        };
        w.thread_group_id_x_dimension = dim(&mut rng);
        w.thread_group_id_y_dimension = dim(&mut rng);
        w.thread_group_id_z_dimension = dim(&mut rng);
        w.thread_group_id_starting_x = rng.below(3) as u32;
        w.bottom_execution_mask = rng.next_u64() as u32;
        w.interface_descriptor_offset = rng.below(2) as u8;
        let idd = InterfaceDescriptorData {
            kernel_start_pointer: 0,
            binding_table_pointer: 0x100,
            binding_table_entry_count: 1,
            constant_urb_entry_read_length: rng.below(200) as u16,
            constant_urb_entry_read_offset: rng.below(8) as u16,
            barrier_enable: rng.one_in(2),
            shared_local_memory_size: rng.below(20) as u8,
            number_of_threads_in_gpgpu_thread_group: rng.below(70) as u8,
            ..Default::default()
        };
        mem.load(SURFACE_BASE + IDD, &bytes(&idd.pack().unwrap()));
        if rng.one_in(8) {
            latch(
                &mut s,
                "MEDIA_VFE_STATE",
                MediaVfeState::default().pack().unwrap(),
            );
        }
        let front = ComputeFront::new(&s, &NoRegisters, &w);
        let mut watchdog = Watchdog::new(WorkLimits {
            eu_instructions: 200_000,
            vertices: 1000,
            pixels: 50_000,
            host_seconds: 0, // counts only: the outcome may not depend on the host
        });
        match walk(&front, &mut mem, &mut KernelCache::default(), &mut watchdog) {
            Ok(_) => ok += 1,
            Err(_) => errors += 1,
        }
    }
    assert!(ok > 0 && errors > 0, "{ok} results, {errors} errors");
}

// ---------------------------------------------------------------------------------------
// MEDIA_OBJECT: the media pipeline over the same latched state
// ---------------------------------------------------------------------------------------

/// Channel c of the object with inline data (n, k): U = 32n + 4c, the value
/// 1000X + 100Y + 10·colour + CURBE R1.0 + k + c.
const MEDIA_KERNEL: &str =
    "mov(8)          g10<1>D         0x76543210V                     { align1 1Q };
shl(8)          g20<1>D         g10<8,8,1>D     0x00000002UD    { align1 1Q };
mul(8)          g12<1>D         g2<0,1,0>D      32D             { align1 1Q };
add(8)          g20<1>D         g20<8,8,1>D     g12<8,8,1>D     { align1 1Q };
mov(8)          g14<1>D         g0.2<0,1,0>UW                   { align1 1Q };
mul(8)          g21<1>D         g14<8,8,1>D     1000D           { align1 1Q };
mov(8)          g14<1>D         g0.3<0,1,0>UW                   { align1 1Q };
mul(8)          g12<1>D         g14<8,8,1>D     100D            { align1 1Q };
add(8)          g21<1>D         g21<8,8,1>D     g12<8,8,1>D     { align1 1Q };
and(8)          g12<1>UD        g0.2<0,1,0>UD   0x0000000fUD    { align1 1Q };
mul(8)          g12<1>D         g12<8,8,1>D     10D             { align1 1Q };
add(8)          g21<1>D         g21<8,8,1>D     g12<8,8,1>D     { align1 1Q };
add(8)          g21<1>D         g21<8,8,1>D     g1<0,1,0>D      { align1 1Q };
add(8)          g21<1>D         g21<8,8,1>D     g2.1<0,1,0>D    { align1 1Q };
add(8)          g21<1>D         g21<8,8,1>D     g10<8,8,1>D     { align1 1Q };
send(8)         null<1>UW       g20<8,8,1>UD    0x04036e00
                            data MsgDesc: { align1 1Q };
send(8)         null<1>UW       g0<8,8,1>UD     0x02000010
                            thread_spawner MsgDesc: { align1 WE_all 1Q EOT };";

/// Latched media state (VFE mode `mode`) and memory: the media kernel, its interface
/// descriptor (CURBE Read Length 1 from offset 1), a CURBE of two rows whose second
/// row's dword 0 is 7, and the RAW buffer.
fn setup_media(mode: media_vfe_state::GpgpuMode) -> (LatchedState, AddressSpace) {
    let s = latched(
        pipeline_select::PipelineSelection::MEDIA,
        MediaVfeState {
            maximum_number_of_threads: 59,
            gpgpu_mode: mode,
            ..Default::default()
        },
    );
    let idd = InterfaceDescriptorData {
        binding_table_pointer: 0x100,
        binding_table_entry_count: 1,
        constant_urb_entry_read_offset: 1,
        constant_urb_entry_read_length: 1,
        ..Default::default()
    };
    let mut curbe = [0u32; 16];
    curbe[0] = 99; // row 0, not read (Read Offset 1)
    curbe[8] = 7;
    (s, memory(MEDIA_KERNEL, &idd, &curbe))
}

fn media_object(x: u16, y: u16, color: u8, inline: &[u32]) -> MediaObject {
    MediaObject {
        scoreboard_x: x,
        scoreboard_y: y,
        scoreboard_color: color,
        inline_data: inline
            .iter()
            .map(|&data| MediaInlineData { data })
            .collect(),
        ..Default::default()
    }
}

fn run_object(
    s: &LatchedState,
    mem: &mut AddressSpace,
    o: &MediaObject,
) -> Result<bool, DrawError> {
    let front = ComputeFront::of(s, &NoRegisters, Job::Object(o));
    let mut watchdog = Watchdog::new(WorkLimits::BUILT_IN);
    media::object(&front, mem, &mut KernelCache::default(), &mut watchdog)
}

fn dwords(mem: &AddressSpace, at: u64, n: usize) -> Vec<u32> {
    (0..n as u64)
        .map(|i| mem.read_u32(at + 4 * i).unwrap())
        .collect()
}

#[test]
fn media_objects_see_their_position_colour_curbe_and_inline_data() {
    let (s, mut mem) = setup_media(media_vfe_state::GpgpuMode::MEDIA_MODE);
    // Object 0 at (3, 2), colour 1, inline (0, 40): 3000 + 200 + 10 + 7 + 40 + c.
    assert!(run_object(&s, &mut mem, &media_object(3, 2, 1, &[0, 40])).unwrap());
    // Object 1 at (5, 1), colour 0, inline (1, 50): 5000 + 100 + 0 + 7 + 50 + c.
    assert!(run_object(&s, &mut mem, &media_object(5, 1, 0, &[1, 50])).unwrap());
    let want: Vec<u32> = (0..8)
        .map(|c| 3257 + c)
        .chain((0..8).map(|c| 5157 + c))
        .collect();
    assert_eq!(dwords(&mem, BUFFER, 16), want);
    assert_eq!(
        dwords(&mem, BUFFER + 64, 4),
        vec![0xeeee_eeee; 4],
        "untouched"
    );
}

#[test]
fn media_objects_need_the_media_pipeline_and_modelled_features() {
    // MEDIA_VFE_STATE in GPGPU mode.
    let (s, mut mem) = setup_media(media_vfe_state::GpgpuMode::GPGPU_MODE);
    let e = run_object(&s, &mut mem, &media_object(0, 0, 0, &[0, 0])).unwrap_err();
    assert!(
        matches!(&e, DrawError::Unsupported(u)
            if u.what.contains("MEDIA_VFE_STATE in GPGPU mode")
                && u.reference.ends_with("MEDIA_VFE_STATE GPGPU Mode")),
        "{e}"
    );
    let (s, mut mem) = setup_media(media_vfe_state::GpgpuMode::MEDIA_MODE);
    // Indirect data, child threads: refused, naming what.
    let o = MediaObject {
        indirect_data_length: 64,
        ..media_object(0, 0, 0, &[])
    };
    let e = run_object(&s, &mut mem, &o).unwrap_err().to_string();
    assert!(e.contains("indirect data"), "{e}");
    let o = MediaObject {
        children_present: true,
        ..media_object(0, 0, 0, &[])
    };
    let e = run_object(&s, &mut mem, &o).unwrap_err().to_string();
    assert!(
        e.contains("Children Present") && e.contains("not modelled"),
        "{e}"
    );
    // Inline data that does not fit the GRF after the CURBE row.
    let e = run_object(&s, &mut mem, &media_object(0, 0, 0, &[0; 8 * 127])).unwrap_err();
    assert!(
        matches!(&e, DrawError::State { command: "MEDIA_OBJECT", why }
            if why.contains("inline data") && why.contains("leave the GRF")),
        "{e}"
    );
    // An interface descriptor past those loaded.
    let o = MediaObject {
        interface_descriptor_offset: 1,
        ..media_object(0, 0, 0, &[])
    };
    let e = run_object(&s, &mut mem, &o).unwrap_err();
    assert!(
        matches!(&e, DrawError::State { command: "MEDIA_OBJECT", why }
            if why.contains("Interface Descriptor Offset 1")),
        "{e}"
    );
    assert_eq!(dwords(&mem, BUFFER, 4), vec![0xeeee_eeee; 4], "nothing ran");
}

/// Hostile objects and descriptors (docs/FUZZING.md): long inline data, CURBE reads past
/// the GRF, spinning kernels, bad descriptor offsets, the wrong VFE mode. Each ends in a
/// result or a typed error within the watchdog's budget.
#[test]
fn hostile_media_objects_end_in_a_result_or_a_typed_error() {
    const SPIN: &str = "LABEL0:
while(8)        JIP:  LABEL0                                    { align1 1Q };";
    let mut rng = gtsim_fuzzkit::SplitMix64(gtsim_fuzzkit::env_u64("GTSIM_FUZZ_SEED", 7));
    let (mut ok, mut errors) = (0, 0);
    for _ in 0..gtsim_fuzzkit::cases(300) {
        let (s, mut mem) = setup_media(if rng.one_in(8) {
            media_vfe_state::GpgpuMode::GPGPU_MODE
        } else {
            media_vfe_state::GpgpuMode::MEDIA_MODE
        });
        if rng.one_in(3) {
            mem.load(
                INSTRUCTION_BASE,
                &assemble(SPIN, Compaction::Never).unwrap(),
            );
        }
        let idd = InterfaceDescriptorData {
            binding_table_pointer: 0x100,
            binding_table_entry_count: 1,
            constant_urb_entry_read_length: rng.below(200) as u16,
            constant_urb_entry_read_offset: rng.below(8) as u16,
            ..Default::default()
        };
        mem.load(SURFACE_BASE + IDD, &bytes(&idd.pack().unwrap()));
        let inline: Vec<u32> = (0..rng.below(1200)).map(|_| rng.below(4) as u32).collect();
        let o = MediaObject {
            interface_descriptor_offset: rng.below(2) as u8,
            indirect_data_length: if rng.one_in(8) { 32 } else { 0 },
            children_present: rng.one_in(16),
            ..media_object(
                rng.below(512) as u16,
                rng.below(512) as u16,
                rng.below(16) as u8,
                &inline,
            )
        };
        let front = ComputeFront::of(&s, &NoRegisters, Job::Object(&o));
        let mut watchdog = Watchdog::new(WorkLimits {
            eu_instructions: 200_000,
            vertices: 1000,
            pixels: 50_000,
            host_seconds: 0, // counts only: the outcome may not depend on the host
        });
        match media::object(&front, &mut mem, &mut KernelCache::default(), &mut watchdog) {
            Ok(_) => ok += 1,
            Err(_) => errors += 1,
        }
    }
    assert!(ok > 0 && errors > 0, "{ok} results, {errors} errors");
}

/// A media kernel's render cache Media Block Write with Color Processing Enable (seed
/// 000 §3.9.6.2 M0.3): two 4:4:4 8-bit pixels through ProcAmp, contrast 2.0, brightness
/// +10, Cos_c_s 0.5, Sin_c_s 0.25, from a COLOR_PROCESSING_STATE at General State Base
/// Address (0) + 0x1000. By hand in 8-bit terms (§3.6.1.5): Y 116, U 160, V 96 give
/// Y' = (116 − 16)·2 + 10 + 16 = 226, U' = 32·0.5 − 32·0.25 + 128 = 136,
/// V' = −32·0.5 − 32·0.25 + 128 = 104; Y 250 clips to 255 and neutral chroma stays 128.
#[test]
fn a_media_kernel_writes_through_the_colour_processing_pipe() {
    const IECP_KERNEL: &str =
        "mov(8)          g20<1>UD        0x00000000UD                    { align1 WE_all 1Q };
mov(1)          g20.2<1>UD      0x00000007UD                    { align1 WE_all 1N };
mov(1)          g20.3<1>UD      0x00001005UD                    { align1 WE_all 1N };
mov(1)          g21<1>UD        0x7f74a060UD                    { align1 WE_all 1N };
mov(1)          g21.1<1>UD      0x09fa8080UD                    { align1 WE_all 1N };
send(8)         null<1>UW       g20<8,8,1>UD    0x040a8000
                            render MsgDesc: { align1 WE_all 1Q };
send(8)         null<1>UW       g0<8,8,1>UD     0x02000010
                            thread_spawner MsgDesc: { align1 WE_all 1Q EOT };";
    let s = latched(
        pipeline_select::PipelineSelection::MEDIA,
        MediaVfeState {
            maximum_number_of_threads: 59,
            gpgpu_mode: media_vfe_state::GpgpuMode::MEDIA_MODE,
            ..Default::default()
        },
    );
    let idd = InterfaceDescriptorData {
        binding_table_pointer: 0x100,
        binding_table_entry_count: 1,
        ..Default::default()
    };
    let mut mem = memory(IECP_KERNEL, &idd, &[0; 16]);
    // Binding table entry 0: a 2D R8G8B8A8 surface 4 DWords wide (Width counts DWords
    // for media block messages), 4 rows, pitch 64.
    let rss = RenderSurfaceState {
        surface_type: render_surface_state::SurfaceType::SURFTYPE_2D,
        surface_format: SurfaceFormat::R8G8B8A8_UNORM,
        surface_base_address: BUFFER,
        width: 3,
        height: 3,
        surface_pitch: 63,
        ..Default::default()
    };
    mem.load(SURFACE_BASE + 0x200, &bytes(&rss.pack().unwrap()));
    // COLOR_PROCESSING_STATE (seed 000 §3.8.3): DW53 Contrast 27:17, Brightness 12:1
    // (S7.4), PROCAMP Enable 0; DW54 Cos_c_s 31:16, Sin_c_s 15:0 (S7.8).
    let mut state = [0u32; 67];
    state[53] = 256 << 17 | 160 << 1 | 1;
    state[54] = 128 << 16 | 64;
    mem.load(0x1000, &bytes(&state));
    assert!(run_object(&s, &mut mem, &media_object(0, 0, 0, &[])).unwrap());
    let mut row = [0u8; 8];
    mem.read(BUFFER, &mut row).unwrap();
    assert_eq!(row, [104, 136, 226, 0x7f, 128, 128, 255, 9]);
    // The same kernel with TCC enabled (DW42 bit 7) stops as unsupported, naming it.
    state[42] = 1 << 7;
    mem.load(0x1000, &bytes(&state));
    let e = run_object(&s, &mut mem, &media_object(0, 0, 0, &[])).unwrap_err();
    assert!(e.to_string().contains("§3.6.1.4"), "{e}");
}
