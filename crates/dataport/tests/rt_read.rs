//! The Gen9+ render target read (render cache message type 0Dh): each slot reads its
//! pixel of the render target back in the format's channels, R then G, B and A, a
//! register per eight slots; a slot past the target's edge reads zeros; a null target
//! reads zeros.

use gtsim_dataport::blend::ClampRange;
use gtsim_dataport::rt_message::{RenderTarget, RtRead};
use gtsim_dataport::rt_path::{PixelWrites, RenderTargets, RtMode};
use gtsim_dataport::rt_write::RtState;
use gtsim_mem::layout::SurfaceDesc;
use gtsim_mem::surface::Surface;
use gtsim_mem::tiling::Tiling;
use gtsim_mem::{AddressSpace, Memory};
use gtsim_message::MessageError;
use gtsim_spec::shared::SurfaceFormat as Sf;

const BASE: u64 = 0x20_0000;

fn target(format: Sf, bytes: u32) -> RenderTarget {
    RenderTarget {
        surface: Surface {
            base: BASE,
            desc: SurfaceDesc::plain_2d(6, 3, bytes, Tiling::Linear, 64),
            format,
        },
        lod: 0,
        min_array_element: 0,
        array_extent: 0,
        clear_color: [false; 4],
        clear_value: None,
        cc: RtState {
            blend: None,
            constant: [0.0; 4],
            pre_clamp: Some(ClampRange::Unorm),
            post_clamp: None,
            logic_op: None,
            logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
            write_disable: [false; 4],
        },
        alpha_test: None,
        alpha_coverage: Default::default(),
        mcs: None,
    }
}

fn dword(r: &[u8; 32], i: usize) -> u32 {
    u32::from_le_bytes([r[i * 4], r[i * 4 + 1], r[i * 4 + 2], r[i * 4 + 3]])
}

fn read(
    rt: Option<RenderTarget>,
    mem: &mut AddressSpace,
    simd16: bool,
    mask: u32,
) -> Vec<[u8; 32]> {
    let mut targets = RenderTargets::default();
    // Slots: a 2x2 subspan at (4, 2) (two of its pixels past the 6x3 target's edge),
    // then (0, 0), (1, 0), (0, 1), (1, 1), then (2, 0) on.
    let mut slots = [(0u32, 0u32); 32];
    let first = [
        (4, 2),
        (5, 2),
        (4, 3),
        (5, 3),
        (0, 0),
        (1, 0),
        (0, 1),
        (1, 1),
    ];
    slots[..8].copy_from_slice(&first);
    for (i, s) in slots.iter_mut().enumerate().skip(8) {
        *s = ((i as u32 - 6) % 6, (i as u32 / 6) % 3);
    }
    let w = PixelWrites {
        targets: &mut targets,
        slots,
        lit: u32::MAX,
        visible: 0,
        late: None,
        mode: RtMode::Write,
        computes_depth: false,
        rt_array_index: 0,
        omask: false,
        computes_stencil: false,
        samples: None,
        aa_alpha: None,
        coarse: None,
    };
    let rd = RtRead {
        binding_table_index: 0,
        simd16,
        slot_group_hi: false,
        per_sample: false,
        array_index: 0,
    };
    let resolve = move |_: &dyn Memory,
                        _: Option<u8>,
                        _: u8|
          -> Result<Option<RenderTarget>, MessageError> { Ok(rt) };
    w.read(mem, &rd, mask, &resolve).unwrap()
}

/// R8G8B8A8_UNORM pixel (x, y) holds bytes (10x + y, 20, 255 - x, 128): slot 4, pixel
/// (0, 0), reads R 10/255... as floats; slot 2 (4, 3) is past the edge and reads 0;
/// slot 5 (1, 0), disabled by the mask, reads 0.
#[test]
fn unorm_pixels_read_back_as_floats_a_channel_a_register() {
    let rt = target(Sf::R8G8B8A8_UNORM, 4);
    let mut mem = AddressSpace::new();
    for y in 0..3u32 {
        for x in 0..6u32 {
            let o = rt.surface.desc.texel_offset(x, y, 0, 0, 0).unwrap();
            mem.load(BASE + o, &[(10 * x + y) as u8, 20, (255 - x) as u8, 128]);
        }
    }
    let r = read(Some(rt), &mut mem, false, 0xff & !(1 << 5));
    assert_eq!(r.len(), 4);
    let unorm = |b: u32| (b as f32 / 255.0).to_bits();
    // Slot 0: pixel (4, 2).
    assert_eq!(
        [0, 1, 2, 3].map(|c| dword(&r[c], 0)),
        [unorm(42), unorm(20), unorm(251), unorm(128)]
    );
    // Slot 2: (4, 3), past the bottom edge.
    assert_eq!([0, 1, 2, 3].map(|c| dword(&r[c], 2)), [0; 4]);
    // Slot 5: masked off.
    assert_eq!([0, 1, 2, 3].map(|c| dword(&r[c], 5)), [0; 4]);
    // Slot 7: (1, 1).
    assert_eq!(dword(&r[0], 7), unorm(11));
}

/// An R32G32_UINT target reads its integers as they are, the missing blue 0 and alpha
/// 1; sixteen slots take two registers per channel.
#[test]
fn integer_pixels_read_back_as_integers_sixteen_slots() {
    let rt = target(Sf::R32G32_UINT, 8);
    let mut mem = AddressSpace::new();
    for y in 0..3u32 {
        for x in 0..6u32 {
            let o = rt.surface.desc.texel_offset(x, y, 0, 0, 0).unwrap();
            let v = [1000 + 10 * x + y, 7u32];
            mem.load(BASE + o, &[v[0].to_le_bytes(), v[1].to_le_bytes()].concat());
        }
    }
    let r = read(Some(rt), &mut mem, true, 0xffff);
    assert_eq!(r.len(), 8);
    // Slot 6: pixel (0, 1); slot 9: (3, 1) (slots 8 on start at (2, 0) in rows of 6).
    assert_eq!(
        [
            dword(&r[0], 6),
            dword(&r[2], 6),
            dword(&r[4], 6),
            dword(&r[6], 6)
        ],
        [1001, 7, 0, 1]
    );
    assert_eq!(dword(&r[1], 1), 1000 + 30 + 1);
}

/// A null render target reads zeros.
#[test]
fn a_null_target_reads_zeros() {
    let mut mem = AddressSpace::new();
    let r = read(None, &mut mem, false, 0xff);
    assert!(r.iter().all(|reg| reg.iter().all(|&b| b == 0)));
}
