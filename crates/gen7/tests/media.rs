//! MEDIA_OBJECT end to end: PIPELINE_SELECT media, STATE_BASE_ADDRESS, MEDIA_VFE_STATE in
//! media mode, MEDIA_CURBE_LOAD and MEDIA_INTERFACE_DESCRIPTOR_LOAD latched as the command
//! streamer latches them, and two objects whose kernel (assembled from text) reads its
//! payload the way Intel's VA driver's and Linux i915's Ivy Bridge media kernels do: R0.1
//! the object's X (15:0) and Y (31:16), R0.2 3:0 its colour, R1 the CURBE row every
//! object shares, R2 its inline data; it writes one dword per channel with an untyped
//! surface write. Every dword of the buffer is worked out by hand from those rules.

use gtsim_gen7::compute::{ComputeFront, Job};
use gtsim_gen7::latched::{LatchedState, Registers};
use gtsim_isa::asm::{Compaction, assemble};
use gtsim_mem::{AddressSpace, Memory};
use gtsim_pipe3d::draw::media::object;
use gtsim_pipe3d::draw::{DrawError, KernelCache, Watchdog, WorkLimits};
use gtsim_spec::gen7::*;
use gtsim_spec::shared::SurfaceFormat;

const SURFACE_BASE: u64 = 0x10000;
const INSTRUCTION_BASE: u64 = 0x20000;
const BUFFER: u64 = 0x60000;
const IDD: u64 = 0x400;
const CURBE: u64 = 0x600;

/// Channel c of the object with inline data (n, k): U = 32n + 4c, the value
/// 1000X + 100Y + 10·colour + CURBE R1.0 + k + c.
const KERNEL: &str =
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

/// Latched media state (VFE mode `mode`) and memory: the kernel, its interface
/// descriptor (CURBE Read Length 1 from offset 1), a CURBE of two rows whose second row's
/// dword 0 is 7, and a RAW buffer.
fn setup(mode: media_vfe_state::GpgpuMode) -> (LatchedState, AddressSpace) {
    let mut s = LatchedState::default();
    latch(
        &mut s,
        "PIPELINE_SELECT",
        PipelineSelect {
            pipeline_selection: pipeline_select::PipelineSelection::MEDIA,
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
    latch(
        &mut s,
        "MEDIA_VFE_STATE",
        MediaVfeState {
            maximum_number_of_threads: 59,
            gpgpu_mode: mode,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
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
    let mut mem = AddressSpace::new();
    mem.load(BUFFER, &[0xee; 256]);
    mem.load(
        INSTRUCTION_BASE,
        &assemble(KERNEL, Compaction::Never).unwrap(),
    );
    let idd = InterfaceDescriptorData {
        binding_table_pointer: 0x100,
        binding_table_entry_count: 1,
        constant_urb_entry_read_offset: 1,
        constant_urb_entry_read_length: 1,
        ..Default::default()
    };
    mem.load(SURFACE_BASE + IDD, &bytes(&idd.pack().unwrap()));
    let mut curbe = [0u32; 16];
    curbe[0] = 99; // row 0, not read (Read Offset 1)
    curbe[8] = 7;
    mem.load(SURFACE_BASE + CURBE, &bytes(&curbe));
    mem.load(SURFACE_BASE + 0x100, &bytes(&[0x200]));
    // A RAW buffer of 256 bytes: 255 = Width 127 | Height 1 << 7.
    let rss = RenderSurfaceState {
        surface_type: render_surface_state::SurfaceType::SURFTYPE_BUFFER,
        surface_format: SurfaceFormat::RAW,
        surface_base_address: BUFFER,
        width: 127,
        height: 1,
        ..Default::default()
    };
    mem.load(SURFACE_BASE + 0x200, &bytes(&rss.pack().unwrap()));
    (s, mem)
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

fn run(s: &LatchedState, mem: &mut AddressSpace, o: &MediaObject) -> Result<bool, DrawError> {
    let front = ComputeFront::of(s, &NoRegisters, Job::Object(o));
    let mut watchdog = Watchdog::new(WorkLimits::BUILT_IN);
    object(&front, mem, &mut KernelCache::default(), &mut watchdog)
}

fn dwords(mem: &AddressSpace, at: u64, n: usize) -> Vec<u32> {
    (0..n as u64)
        .map(|i| mem.read_u32(at + 4 * i).unwrap())
        .collect()
}

#[test]
fn media_objects_see_their_position_colour_curbe_and_inline_data() {
    let (s, mut mem) = setup(media_vfe_state::GpgpuMode::MEDIA_MODE);
    // Object 0 at (3, 2), colour 1, inline (0, 40): 3000 + 200 + 10 + 7 + 40 + c.
    assert!(run(&s, &mut mem, &media_object(3, 2, 1, &[0, 40])).unwrap());
    // Object 1 at (5, 1), colour 0, inline (1, 50): 5000 + 100 + 0 + 7 + 50 + c.
    assert!(run(&s, &mut mem, &media_object(5, 1, 0, &[1, 50])).unwrap());
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
    let (s, mut mem) = setup(media_vfe_state::GpgpuMode::GPGPU_MODE);
    let e = run(&s, &mut mem, &media_object(0, 0, 0, &[0, 0])).unwrap_err();
    assert!(matches!(e, DrawError::Unsupported(_)), "{e}");
    let (s, mut mem) = setup(media_vfe_state::GpgpuMode::MEDIA_MODE);
    // Indirect data, child threads: refused, naming what.
    let o = MediaObject {
        indirect_data_length: 64,
        ..media_object(0, 0, 0, &[])
    };
    let e = run(&s, &mut mem, &o).unwrap_err().to_string();
    assert!(e.contains("indirect data"), "{e}");
    let o = MediaObject {
        children_present: true,
        ..media_object(0, 0, 0, &[])
    };
    assert!(run(&s, &mut mem, &o).is_err());
    // Inline data that does not fit the GRF after the CURBE row.
    let e = run(&s, &mut mem, &media_object(0, 0, 0, &[0; 8 * 127])).unwrap_err();
    assert!(matches!(e, DrawError::State { .. }), "{e}");
    // An interface descriptor past those loaded.
    let o = MediaObject {
        interface_descriptor_offset: 1,
        ..media_object(0, 0, 0, &[])
    };
    assert!(matches!(
        run(&s, &mut mem, &o).unwrap_err(),
        DrawError::State { .. }
    ));
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
        let (s, mut mem) = setup(if rng.one_in(8) {
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
        });
        match object(&front, &mut mem, &mut KernelCache::default(), &mut watchdog) {
            Ok(_) => ok += 1,
            Err(_) => errors += 1,
        }
    }
    assert!(ok > 0 && errors > 0, "{ok} results, {errors} errors");
}
