//! Render target writes of alike threads carried out at once (`rt_path::write_alike`)
//! against the same message written thread by thread (`PixelWrites::write`, the path
//! every other render target write takes): the same bytes in memory and the same
//! visible pixels per thread, or, when the bulk path declines, nothing written at all.
//! Over linear, X- and Y-tiled targets of 4-, 8-, 12- and 16-byte formats, replicated
//! and per-slot SIMD16 payloads with and without a header, random subspans and lit
//! masks, the alpha test, blending (which reads the destination), colours that differ
//! between slots, and a target with an unmapped page.

use gtsim_dataport::blend::BlendState;
use gtsim_dataport::compare::AlphaReference;
use gtsim_dataport::rt_message::{RenderTarget, RtHeader, RtSubtype, RtWrite};
use gtsim_dataport::rt_path::{AlikeThread, PixelWrites, RenderTargets, RtMode, write_alike};
use gtsim_dataport::rt_write::RtState;
use gtsim_fuzzkit::Rng;
use gtsim_mem::layout::SurfaceDesc;
use gtsim_mem::surface::Surface;
use gtsim_mem::tiling::Tiling;
use gtsim_mem::{AddressSpace, Memory};
use gtsim_message::MessageError;
use gtsim_spec::shared::{
    SurfaceFormat as F, ThreeDColorBufferBlendFactor as Factor,
    ThreeDColorBufferBlendFunction as Func, ThreeDCompareFunction,
};

const BASE: u64 = 0x10000;
const SIZE: u64 = 0x10000;
const WIDTH: u32 = 40;
const HEIGHT: u32 = 36;

/// Memory with a byte pattern over the target, optionally without its third page.
fn fresh(hole: bool) -> AddressSpace {
    let pattern: Vec<u8> = (0..SIZE as u32).map(|i| (i * 7 + i / 256) as u8).collect();
    let mut m = AddressSpace::new();
    if hole {
        m.load(BASE, &pattern[..0x2000]);
        m.load(BASE + 0x3000, &pattern[0x3000..]);
    } else {
        m.map(BASE, SIZE);
        m.load(BASE, &pattern);
    }
    m
}

/// Every page of the target's range: its bytes, or `None` where unmapped.
fn snapshot(m: &AddressSpace) -> Vec<Option<Vec<u8>>> {
    (0..SIZE / 0x1000)
        .map(|page| {
            let mut b = vec![0u8; 0x1000];
            m.read(BASE + page * 0x1000, &mut b).ok().map(|()| b)
        })
        .collect()
}

fn target(format: F, bytes: u32, tiling: Tiling, cc: RtState) -> RenderTarget {
    RenderTarget {
        surface: Surface {
            base: BASE,
            desc: SurfaceDesc::plain_2d(WIDTH, HEIGHT, bytes, tiling, 1024),
            format,
        },
        lod: 0,
        min_array_element: 0,
        array_extent: 0,
        clear_color: [false; 4],
        clear_value: None,
        cc,
        alpha_test: None,
        alpha_coverage: Default::default(),
        mcs: None,
    }
}

fn plain() -> RtState {
    RtState {
        blend: None,
        constant: [0.0; 4],
        pre_clamp: None,
        post_clamp: None,
        logic_op: None,
        logic_op_formats: gtsim_dataport::rt_write::LogicOpFormats::Unorm,
        write_disable: [false; 4],
    }
}

/// A register whose dword i is `f(i)`.
fn reg(f: impl Fn(usize) -> u32) -> [u8; 32] {
    let mut r = [0u8; 32];
    for i in 0..8 {
        r[i * 4..i * 4 + 4].copy_from_slice(&f(i).to_le_bytes());
    }
    r
}

/// Random distinct subspans in raster order (a primitive's), in threads of four (SIMD16
/// dispatches) with their slots as the windower places them and random lit masks (most
/// whole), as the pixel stage dispatches them. Some subspans reach past the right and
/// bottom edges.
fn threads(rng: &mut Rng) -> Vec<AlikeThread> {
    let mut subspans = vec![];
    for sy in 0..=HEIGHT / 2 {
        for sx in 0..=WIDTH / 2 {
            if rng.below(4) != 0 {
                let lit = if rng.below(3) == 0 {
                    1 + rng.below(15) as u32
                } else {
                    0xf
                };
                subspans.push(((sy, sx), lit));
            }
        }
    }
    subspans
        .chunks(4)
        .map(|group| {
            let mut t = AlikeThread {
                slots: [(0, 0); 32],
                lit: 0,
            };
            for (i, &((sy, sx), m)) in group.iter().enumerate() {
                for p in 0..4u32 {
                    t.slots[i * 4 + p as usize] = (sx * 2 + (p & 1), sy * 2 + (p >> 1));
                }
                t.lit |= m << (i * 4);
            }
            t
        })
        .collect()
}

/// The payload of a SIMD16 render target write of `colors[slot]`: replicated data
/// (one register, slot 0's colour) or per slot (two registers per channel), after a
/// header when there is one.
fn payload(replicated: bool, header: bool, colors: &[[u32; 4]; 16]) -> Vec<[u8; 32]> {
    let mut p = vec![];
    if header {
        p.push([0; 32]);
        p.push([0; 32]);
    }
    if replicated {
        p.push(reg(|i| if i < 4 { colors[0][i] } else { 0 }));
    } else {
        for ch in 0..4 {
            let v = colors.map(|c| c[ch]);
            p.push(reg(|s| v[s]));
            p.push(reg(|s| v[8 + s]));
        }
    }
    p
}

#[test]
fn alike_writes_at_once_leave_what_they_leave_thread_by_thread() {
    let mut rng = Rng::new(gtsim_fuzzkit::seed(0xa11e));
    let (mut bulk, mut declined) = (0, 0);
    let formats = [
        (F::R8G8B8A8_UNORM, 4u32),
        (F::R16G16B16A16_FLOAT, 8),
        (F::R32G32B32_FLOAT, 12),
        (F::R32G32B32A32_FLOAT, 16),
    ];
    for case in 0..240u32 {
        let (format, bytes) = formats[case as usize % 4];
        let tiling = [Tiling::Linear, Tiling::X, Tiling::Y][(case / 4) as usize % 3];
        let variant = (case / 12) % 5;
        let mut cc = plain();
        match variant {
            // Blending reads the destination.
            1 => {
                cc.blend = Some(BlendState {
                    src: Factor::BLENDFACTOR_SRC_ALPHA,
                    dst: Factor::BLENDFACTOR_INV_SRC_ALPHA,
                    func: Func::BLENDFUNCTION_ADD,
                    src_alpha: Factor::BLENDFACTOR_ONE,
                    dst_alpha: Factor::BLENDFACTOR_ZERO,
                    func_alpha: Func::BLENDFUNCTION_ADD,
                    independent_alpha: false,
                })
            }
            // A write-disabled channel keeps the destination's.
            2 => cc.write_disable = [false, true, false, false],
            _ => {}
        }
        let mut rt = target(format, bytes, tiling, cc);
        if variant == 3 {
            // Passes for alpha 0.75, fails for 0.25.
            rt.alpha_test = Some((
                ThreeDCompareFunction::COMPAREFUNCTION_GREATER,
                AlphaReference::Float32(0.5),
            ));
        }
        let hole = variant == 4 && case % 2 == 0;
        let replicated = rng.below(2) == 0;
        let header = !replicated && rng.below(2) == 0;
        let alpha = if rng.below(2) == 0 { 0.75f32 } else { 0.25 };
        let color = [rng.below(100) as f32 / 99.0, 0.5, 1.0, alpha].map(f32::to_bits);
        let mut colors = [color; 16];
        // Colours that differ between slots (per-slot payloads only).
        let differ = !replicated && rng.below(5) == 0;
        if differ {
            colors[9][0] = 0.125f32.to_bits();
        }
        let p = payload(replicated, header, &colors);
        // The header's Pixel/Sample Enables (seed 000 §3.9.11.3 M1.7 15:0).
        let enables: u32 = if !header || rng.below(2) == 0 {
            0xffff
        } else {
            0xf0ff
        };
        let rt_write = RtWrite {
            subtype: if replicated {
                RtSubtype::Simd16RepData
            } else {
                RtSubtype::Simd16
            },
            slot_group_hi: false,
            last: true,
            binding_table_index: 0,
            header: header.then(|| RtHeader {
                pixel_enables: enables,
                ..Default::default()
            }),
            extended: Default::default(),
        };
        let resolve = |_: &dyn Memory,
                       _: Option<u8>,
                       _: u8|
         -> Result<Option<RenderTarget>, MessageError> { Ok(Some(rt)) };
        let threads = threads(&mut rng);
        let what = format!(
            "case {case}: {:?} {tiling:?} variant {variant} hole {hole} replicated {replicated} header {header} differ {differ}",
            format.name()
        );

        // Thread by thread, in order, stopping at the first failure.
        let mut one_by_one = fresh(hole);
        let mut known = RenderTargets::default();
        let mut visible = vec![];
        let mut failed = false;
        for t in &threads {
            let mut w = PixelWrites {
                targets: &mut known,
                slots: t.slots,
                lit: t.lit,
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
            if w.write(&mut one_by_one, &rt_write, &p, &resolve).is_err() {
                failed = true;
                break;
            }
            visible.push(w.visible);
        }

        let mut at_once = fresh(hole);
        let mut known = RenderTargets::default();
        let done = write_alike(
            &mut known,
            (false, 0),
            &mut at_once,
            &rt_write,
            &p,
            &resolve,
            &threads,
        );
        match &done {
            Some(v) => {
                bulk += 1;
                assert!(!failed, "{what}: done at once where a thread fails");
                assert_eq!(*v, visible, "{what}: visible pixels");
                assert!(
                    snapshot(&at_once) == snapshot(&one_by_one),
                    "{what}: memory differs"
                );
                assert_eq!(known.written().len(), 1, "{what}: the target resolved");
            }
            None => {
                declined += 1;
                assert!(
                    snapshot(&at_once) == snapshot(&fresh(hole)),
                    "{what}: declined, but wrote"
                );
            }
        }
        // What needs the destination, several colours, an element size the fill does
        // not take, or a page that is not there goes thread by thread; the rest at once.
        let lit = threads.iter().fold(0, |m, t| m | t.lit) & enables;
        let differs = differ && lit & (1 << 9) != 0;
        // (Pixels that fail the alpha test are not written.)
        let any = lit != 0 && !(variant == 3 && alpha < 0.5);
        // (Colours are compared before the alpha test.)
        let declines = differs || any && (matches!(variant, 1 | 2) || bytes == 12 || hole);
        assert_eq!(done.is_none(), declines, "{what}");
    }
    assert!(
        bulk >= 60 && declined >= 60,
        "{bulk} at once, {declined} declined"
    );
}

/// A render target write without a header takes the Render Target Array Index from the
/// thread's dispatch (its R0.0 26:16, seed 004 §11.10.3.1), given to both paths as
/// `rt_array_index`; with a header, the header's (0 here) applies. Target: linear
/// R8G8B8A8, 40x8, with two slices and LOD0 array spacing, so slice 1 starts 8 rows of
/// 1024 bytes after slice 0. One subspan at (0, 0), red in every slot.
#[test]
fn a_headerless_write_goes_to_the_dispatchs_array_index() {
    use gtsim_mem::layout::ArraySpacing;
    let mut rt = target(F::R8G8B8A8_UNORM, 4, Tiling::Linear, plain());
    rt.surface.desc.height = 8;
    rt.surface.desc.depth = 2;
    rt.surface.desc.array_spacing = ArraySpacing::Lod0;
    // Depth 1: indices 0 and 1 are in range.
    rt.array_extent = 1;
    let resolve = |_: &dyn Memory,
                   _: Option<u8>,
                   _: u8|
     -> Result<Option<RenderTarget>, MessageError> { Ok(Some(rt)) };
    let red = [1.0f32, 0.0, 0.0, 1.0].map(f32::to_bits);
    let mut slots = [(0, 0); 32];
    for p in 0..4u32 {
        slots[p as usize] = (p & 1, p >> 1);
    }
    let slice1 = BASE + 8 * 1024;
    for header in [false, true] {
        let rt_write = RtWrite {
            subtype: RtSubtype::Simd16,
            slot_group_hi: false,
            last: true,
            binding_table_index: 0,
            extended: Default::default(),
            header: header.then(|| RtHeader {
                pixel_enables: 0xffff,
                ..Default::default()
            }),
        };
        let p = payload(false, header, &[red; 16]);
        let byte = |m: &AddressSpace, a: u64| {
            let mut b = [0u8; 4];
            m.read(a, &mut b).unwrap();
            b
        };
        // Thread by thread.
        let mut mem = fresh(false);
        let mut known = RenderTargets::default();
        let mut w = PixelWrites {
            targets: &mut known,
            slots,
            lit: 0xf,
            visible: 0,
            late: None,
            mode: RtMode::Write,
            computes_depth: false,
            rt_array_index: 1,
            omask: false,
            computes_stencil: false,
            samples: None,
            aa_alpha: None,
            coarse: None,
        };
        w.write(&mut mem, &rt_write, &p, &resolve).unwrap();
        let (hit, other) = if header {
            (BASE, slice1)
        } else {
            (slice1, BASE)
        };
        assert_eq!(
            byte(&mem, hit + 1024 + 4),
            [255, 0, 0, 255],
            "header {header}"
        );
        assert_ne!(byte(&mem, other), [255, 0, 0, 255], "header {header}");
        // At once.
        let mut at_once = fresh(false);
        let mut known = RenderTargets::default();
        let t = AlikeThread { slots, lit: 0xf };
        // The bulk path may decline (then it writes nothing and the thread goes alone).
        if write_alike(
            &mut known,
            (false, 1),
            &mut at_once,
            &rt_write,
            &p,
            &resolve,
            &[t],
        )
        .is_some()
        {
            assert!(snapshot(&at_once) == snapshot(&mem), "header {header}");
        }
    }
}
