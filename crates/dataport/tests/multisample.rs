//! Render target writes to multisampled targets and dual-source writes (seed 004 §11.4,
//! §11.7, §12.1.1, §12.1.7; seed 000 §3.7.2, §3.9.11.5), with values worked by hand.

use gtsim_dataport::blend::BlendState;
use gtsim_dataport::rt_message::{AlphaCoverage, RenderTarget, RtSubtype, RtWrite};
use gtsim_dataport::rt_path::{PixelWrites, RenderTargets, RtMode};
use gtsim_dataport::rt_samples::SampleWrites;
use gtsim_dataport::rt_write::RtState;
use gtsim_mem::layout::SurfaceDesc;
use gtsim_mem::surface::Surface;
use gtsim_mem::tiling::Tiling;
use gtsim_mem::{AddressSpace, Memory};
use gtsim_message::MessageError;
use gtsim_spec::shared::{
    SurfaceFormat as F, ThreeDColorBufferBlendFactor as Bf, ThreeDColorBufferBlendFunction,
};

const RT: u64 = 0x10000;
const MCS: u64 = 0x40000;

fn cc(blend: Option<BlendState>) -> RtState {
    RtState {
        blend,
        constant: [0.0; 4],
        pre_clamp: None,
        post_clamp: None,
        logic_op: None,
        logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
        write_disable: [false; 4],
    }
}

/// A 4x4 R8G8B8A8_UNORM render target with `samples` samples in array layout (and an
/// 8-bit-per-pixel MCS when `mcs`), clear colour red.
fn target(samples: u32, mcs: bool, state: RtState, coverage: AlphaCoverage) -> RenderTarget {
    let desc = SurfaceDesc {
        samples,
        ..SurfaceDesc::plain_2d(4, 4, 4, Tiling::Linear, 16)
    };
    RenderTarget {
        surface: Surface {
            base: RT,
            desc,
            format: F::R8G8B8A8_UNORM,
        },
        lod: 0,
        min_array_element: 0,
        array_extent: 0,
        clear_color: [true, false, false, true],
        clear_value: None,
        cc: state,
        alpha_test: None,
        alpha_coverage: coverage,
        mcs: mcs.then_some(Surface {
            base: MCS,
            desc: SurfaceDesc {
                samples: 1,
                block_bytes: 1,
                ..desc
            },
            format: F::R8_UINT,
        }),
    }
}

fn memory() -> AddressSpace {
    let mut mem = AddressSpace::new();
    mem.map(RT, 0x10000);
    mem.map(MCS, 0x1000);
    mem
}

fn sample_addr(rt: &RenderTarget, x: u32, y: u32, s: u32) -> u64 {
    RT + rt.surface.desc.texel_offset(x, y, 0, 0, s).unwrap()
}

fn read4(mem: &AddressSpace, a: u64) -> [u8; 4] {
    let mut b = [0u8; 4];
    mem.read(a, &mut b).unwrap();
    b
}

/// A SIMD8 write (no header) of colour `c` (and `c1` for a dual-source LO message) to
/// every slot, with oMask `omask` for slot 0 when given.
fn message(c: [f32; 4], c1: Option<[f32; 4]>, omask: Option<u16>) -> (RtWrite, Vec<[u8; 32]>) {
    let splat = |v: u32| {
        let mut r = [0u8; 32];
        for i in 0..8 {
            r[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        r
    };
    let mut payload = vec![];
    if let Some(m) = omask {
        payload.push(splat(u32::from(m) | u32::from(m) << 16));
    }
    payload.extend(c.map(|v| splat(v.to_bits())));
    if let Some(c1) = c1 {
        payload.extend(c1.map(|v| splat(v.to_bits())));
    }
    let w = RtWrite {
        subtype: if c1.is_some() {
            RtSubtype::Simd8Dual { hi: false }
        } else {
            RtSubtype::Simd8Lo
        },
        slot_group_hi: false,
        last: true,
        binding_table_index: 0,
        header: None,
        extended: Default::default(),
    };
    (w, payload)
}

/// Runs the write for one lit slot at `xy` whose samples are `mask`; returns the
/// visible sample count.
fn write(
    mem: &mut AddressSpace,
    rt: RenderTarget,
    xy: (u32, u32),
    samples: Option<(u32, u16)>,
    (w, payload, omask): (RtWrite, Vec<[u8; 32]>, bool),
) -> Result<u32, MessageError> {
    let mut known = RenderTargets::default();
    let mut slots = [(0, 0); 32];
    slots[0] = xy;
    let mut masks = [0u16; 32];
    if let Some((_, m)) = samples {
        masks[0] = m;
    }
    let mut p = PixelWrites {
        targets: &mut known,
        slots,
        lit: 1,
        visible: 0,
        late: None,
        mode: RtMode::Write,
        computes_depth: false,
        rt_array_index: 0,
        omask,
        computes_stencil: false,
        samples: samples.map(|(n, _)| SampleWrites::new(n, masks, [[0.0; 16]; 32])),
        aa_alpha: None,
        coarse: None,
    };
    let resolve = move |_: &dyn Memory,
                        _: Option<u8>,
                        _: u8|
          -> Result<Option<RenderTarget>, MessageError> { Ok(Some(rt)) };
    p.write(mem, &w, &payload, &resolve)?;
    Ok(match &p.samples {
        Some(s) => s.visible_samples(p.visible),
        None => p.visible.count_ones(),
    })
}

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];

/// A cleared pixel (MCS 0xff) written at samples 0 and 1: samples 2 and 3 take the clear
/// colour red, 0 and 1 green, and the MCS becomes the identity 0b11_10_01_00. A pixel
/// whose MCS maps sample n to slice 3 - n (0b00_01_10_11), slices holding 10, 20, 30,
/// 40 in red, written at sample 0 only: sample 1 reads slice 2 (30), 2 slice 1 (20),
/// 3 slice 0 (10).
#[test]
fn writes_expand_cleared_and_permuted_mcs_pixels() {
    let mut mem = memory();
    let rt = target(4, true, cc(None), AlphaCoverage::default());
    mem.write(MCS, &[0xff]).unwrap();
    let (w, payload) = message([0.0, 1.0, 0.0, 1.0], None, None);
    let seen = write(
        &mut mem,
        rt,
        (0, 0),
        Some((4, 0b0011)),
        (w.clone(), payload.clone(), false),
    )
    .unwrap();
    assert_eq!(seen, 2);
    let got: Vec<[u8; 4]> = (0..4)
        .map(|s| read4(&mem, sample_addr(&rt, 0, 0, s)))
        .collect();
    assert_eq!(got, vec![GREEN, GREEN, RED, RED]);
    let mut m = [0u8];
    mem.read(MCS, &mut m).unwrap();
    assert_eq!(m[0], 0b1110_0100);

    // Pixel (1, 0): MCS byte 1 (linear, pitch 16).
    mem.write(MCS + 1, &[0b0001_1011]).unwrap();
    for s in 0..4u8 {
        mem.write(
            sample_addr(&rt, 1, 0, u32::from(s)),
            &[10 * (s + 1), 0, 0, 255],
        )
        .unwrap();
    }
    write(&mut mem, rt, (1, 0), Some((4, 0b0001)), (w, payload, false)).unwrap();
    let got: Vec<[u8; 4]> = (0..4)
        .map(|s| read4(&mem, sample_addr(&rt, 1, 0, s)))
        .collect();
    assert_eq!(
        got,
        vec![GREEN, [30, 0, 0, 255], [20, 0, 0, 255], [10, 0, 0, 255]]
    );
    mem.read(MCS + 1, &mut m).unwrap();
    assert_eq!(m[0], 0b1110_0100);
}

/// oMask 0b0101 keeps samples 0 and 2 of a fully covered pixel; alpha-to-coverage is
/// then off ("If Pixel Shader outputs oMask, AlphaToCoverage is disabled in hardware").
/// Without oMask, alpha 0.5 covers round(0.5 x 4) = 2 samples, 0 and 1, and AlphaToOne
/// writes alpha 1.0.
#[test]
fn omask_and_alpha_to_coverage_mask_samples() {
    let coverage = AlphaCoverage {
        to_coverage: true,
        to_one: true,
    };
    let mut mem = memory();
    let rt = target(4, false, cc(None), coverage);
    let (w, payload) = message([0.0, 1.0, 0.0, 0.5], None, Some(0b0101));
    let seen = write(&mut mem, rt, (2, 3), Some((4, 0b1111)), (w, payload, true)).unwrap();
    assert_eq!(seen, 2);
    let got: Vec<[u8; 4]> = (0..4)
        .map(|s| read4(&mem, sample_addr(&rt, 2, 3, s)))
        .collect();
    assert_eq!(got, vec![GREEN, [0; 4], GREEN, [0; 4]]);

    let mut mem = memory();
    let (w, payload) = message([0.0, 1.0, 0.0, 0.5], None, None);
    let seen = write(&mut mem, rt, (2, 3), Some((4, 0b1111)), (w, payload, false)).unwrap();
    assert_eq!(seen, 2);
    let got: Vec<[u8; 4]> = (0..4)
        .map(|s| read4(&mem, sample_addr(&rt, 2, 3, s)))
        .collect();
    assert_eq!(got, vec![GREEN, GREEN, [0; 4], [0; 4]]);
}

/// Dual source (seed 000 §3.7.2, §12.1.7): src0 (1, 0.5, 0.25, 1) times the SRC1_COLOR
/// factor (0.5, 0.5, 1, 0), plus dst times ZERO: (0.5, 0.25, 0.25, 0), stored as UNORM8
/// 128, 64, 64, 0 (0.5 × 255 = 127.5 and 63.75 round to nearest).
#[test]
fn dual_source_blends_with_the_second_colour() {
    let mut mem = memory();
    let add = ThreeDColorBufferBlendFunction::BLENDFUNCTION_ADD;
    let blend = BlendState {
        src: Bf::BLENDFACTOR_SRC1_COLOR,
        dst: Bf::BLENDFACTOR_ZERO,
        func: add,
        src_alpha: Bf::BLENDFACTOR_SRC1_COLOR,
        dst_alpha: Bf::BLENDFACTOR_ZERO,
        func_alpha: add,
        independent_alpha: false,
    };
    let rt = target(1, false, cc(Some(blend)), AlphaCoverage::default());
    let (w, payload) = message([1.0, 0.5, 0.25, 1.0], Some([0.5, 0.5, 1.0, 0.0]), None);
    write(&mut mem, rt, (1, 1), None, (w, payload, false)).unwrap();
    assert_eq!(read4(&mem, RT + 16 + 4), [128, 64, 64, 0]);
}

/// Seed 004 §11.4.1: the render target's sample count must match 3DSTATE_MULTISAMPLE's.
#[test]
fn a_sample_count_mismatch_is_a_state_error() {
    let mut mem = memory();
    let rt = target(4, false, cc(None), AlphaCoverage::default());
    let (w, payload) = message([0.0; 4], None, None);
    let e = write(&mut mem, rt, (0, 0), None, (w, payload, false)).unwrap_err();
    // The render target has 4 samples, the draw (no 3DSTATE_MULTISAMPLE) 1.
    assert!(
        matches!(&e, MessageError::State { structure: "RENDER_SURFACE_STATE", why }
            if why.contains("has 4 samples per pixel, 3DSTATE_MULTISAMPLE 1 (they must match, seed 004 §11.4.1)")),
        "{e:?}"
    );
}

/// Seed 004 §12.1.1: an anti-aliased line's coverage multiplies source 0 alpha before
/// the write: alpha 1.0 at coverage 0.25 stores UNORM8 round(63.75) = 64, with the
/// colour channels untouched.
#[test]
fn aa_coverage_scales_source_alpha() {
    let mut mem = memory();
    let rt = target(1, false, cc(None), AlphaCoverage::default());
    let (w, payload) = message([0.0, 1.0, 0.0, 1.0], None, None);
    let mut known = RenderTargets::default();
    let mut slots = [(0, 0); 32];
    slots[0] = (3, 2);
    let mut aa = [1.0f32; 32];
    aa[0] = 0.25;
    let mut p = PixelWrites {
        targets: &mut known,
        slots,
        lit: 1,
        visible: 0,
        late: None,
        mode: RtMode::Write,
        computes_depth: false,
        rt_array_index: 0,
        omask: false,
        computes_stencil: false,
        samples: None,
        aa_alpha: Some(aa),
        coarse: None,
    };
    let resolve = move |_: &dyn Memory,
                        _: Option<u8>,
                        _: u8|
          -> Result<Option<RenderTarget>, MessageError> { Ok(Some(rt)) };
    p.write(&mut mem, &w, &payload, &resolve).unwrap();
    assert_eq!(read4(&mem, RT + 2 * 16 + 3 * 4), [0, 255, 0, 64]);
}
