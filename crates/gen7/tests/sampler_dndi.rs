//! The media sampler's deinterlace message on a stream's first frame (seed 000 §2.8.2,
//! §2.8.3, §2.8.4, §2.8.6, §2.13.2.6) on a small NV12 frame. Every expected value is
//! worked by hand from the seed's formulas: the good-neighbour spatial filter with its
//! gn_q_table, the block complexity sums, the block noise estimate, the first field kept
//! and the missing lines interpolated at 90 degrees, the STMM written as 255.

use gtsim_gen7::sampling::{SamplerTables, handle};
use gtsim_mem::AddressSpace;
use gtsim_message::MessageError;
use gtsim_spec::gen7::deinterlace_sampler_state::{DnDiFirstFrame, DnDiTopFirst};
use gtsim_spec::gen7::media_surface_state::SurfaceFormat as MediaFormat;
use gtsim_spec::gen7::message_descriptor_sampling_engine::SimdMode;
use gtsim_spec::gen7::{
    DeinterlaceSamplerState, MediaSurfaceState, MessageDescriptorSamplingEngine,
    RenderSurfaceState, SamplerMessageType, SamplerState,
};

const BASE: u64 = 0x1_0000;
const W: u32 = 32;
const H: u32 = 16;

struct Fake {
    mem: AddressSpace,
    surface: MediaSurfaceState,
    state: DeinterlaceSamplerState,
    /// The previous frame (BTI 4) and the statistics surface (BTI 5).
    others: Vec<MediaSurfaceState>,
}

impl SamplerTables for Fake {
    fn surface(&self, bti: u8) -> Result<RenderSurfaceState, MessageError> {
        Err(MessageError::Invalid(format!("no 3D surface at {bti}")))
    }
    fn sampler(&self, index: u8) -> Result<(SamplerState, [f32; 4]), MessageError> {
        Err(MessageError::Invalid(format!("no 3D sampler {index}")))
    }
    fn memory(&self) -> &dyn gtsim_mem::Memory {
        &self.mem
    }
    fn media_surface(&self, bti: u8) -> Result<MediaSurfaceState, MessageError> {
        match bti {
            3 => Ok(self.surface.clone()),
            4 | 5 => self
                .others
                .get(usize::from(bti - 4))
                .cloned()
                .ok_or_else(|| MessageError::Invalid(format!("no surface at BTI {bti}"))),
            _ => Err(MessageError::Invalid(format!("no surface at BTI {bti}"))),
        }
    }
    fn deinterlace_sampler(&self, index: u8) -> Result<DeinterlaceSamplerState, MessageError> {
        match index {
            0 => Ok(self.state.clone()),
            _ => Err(MessageError::Invalid(format!("no sampler {index}"))),
        }
    }
}

/// A 32x16 NV12 frame, pitch 32: luma `y(x, y)`, then from row 16 the chroma rows of
/// (Cb, Cr) pairs `uv(x, j)`; and a first-frame state with `dn` / `di` enabled.
fn frame(
    y: impl Fn(u32, u32) -> u8,
    uv: impl Fn(u32, u32) -> (u8, u8),
    dn: bool,
    di: bool,
) -> Fake {
    let mut mem = AddressSpace::new();
    mem.map(BASE, 0x1000);
    for r in 0..H {
        let row: Vec<u8> = (0..W).map(|x| y(x, r)).collect();
        mem.load(BASE + u64::from(r * W), &row);
    }
    for j in 0..H / 2 {
        let row: Vec<u8> = (0..W / 2)
            .flat_map(|x| {
                let (cb, cr) = uv(x, j);
                [cb, cr]
            })
            .collect();
        mem.load(BASE + u64::from((H + j) * W), &row);
    }
    Fake {
        mem,
        surface: MediaSurfaceState {
            surface_base_address: BASE,
            width: (W - 1) as u16,
            height: (H - 1) as u16,
            surface_pitch: W - 1,
            surface_format: MediaFormat::PLANAR_420_8,
            interleave_chroma: true,
            y_offset_for_u_cb: H as u16,
            ..Default::default()
        },
        state: DeinterlaceSamplerState {
            dn_enable: dn,
            di_enable: di,
            dn_di_first_frame: DnDiFirstFrame::FIRST_FIELD,
            dn_di_top_first: DnDiTopFirst::TOP_FIELD_OCCURS_FIRST,
            progressive_dn: true,
            good_neighbor_threshold: 4,
            bne_edge_threshold: 1,
            block_noise_estimate_noise_threshold: 20,
            ..Default::default()
        },
        others: vec![],
    }
}

/// A deinterlace descriptor (SIMD32/64 type 01000): header, message length 2, BTI 3.
fn desc(rlen: u8, sampler: u8) -> u32 {
    MessageDescriptorSamplingEngine {
        message_length: 2,
        response_length: rlen,
        header_present: true,
        simd_mode: SimdMode::SIMD32_64,
        message_type: SamplerMessageType(0b01000),
        sampler_index: sampler,
        binding_table_index: 3,
    }
    .pack()
    .unwrap()[0]
}

/// Header and M1 with the block's U (M1.2) and V (M1.6) in their low words and garbage
/// above, as Intel's VA driver's kernels leave them.
fn payload(u: u32, v: u32) -> [[u8; 32]; 2] {
    let mut m1 = [0xa5u8; 32];
    m1[8..12].copy_from_slice(&(0xdead_0000 | u).to_le_bytes());
    m1[24..28].copy_from_slice(&(0xbeef_0000 | v).to_le_bytes());
    [[0; 32], m1]
}

fn dword(r: &[u8; 32], i: usize) -> u32 {
    u32::from_le_bytes([r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]])
}

/// Luma 101 but for a patch around (5, 3):
///   row 2: 104 105 140
///   row 3: 103 101  60
///   row 4:  98 200   0
fn patch(x: u32, y: u32) -> u8 {
    match (x, y) {
        (4, 2) => 104,
        (5, 2) => 105,
        (6, 2) => 140,
        (4, 3) => 103,
        (6, 3) => 60,
        (4, 4) => 98,
        (5, 4) => 200,
        (6, 4) => 0,
        _ => 101,
    }
}

#[test]
fn denoise_on_the_first_frame_is_the_good_neighbour_spatial_filter() {
    let f = frame(patch, |_, _| (128, 128), true, false);
    let w = handle(desc(5, 0), &payload(0, 0), 0, &f).unwrap();
    assert_eq!(w.len(), 5);
    // (5, 3): neighbours within 4 of 101 are 104, 105, 103, 101, 98: num 5, sum 511,
    // ((511 + 2) · 409) >> 11 = 102. Row 3 is the second row of W1.
    assert_eq!(w[1][16 + 5], 102);
    // (0, 0) in flat 101: all nine good, ((909 + 4) · 227) >> 11 = 101.
    assert_eq!(w[0][0], 101);
    // Progressive DN off: lines 1 and 5 (all 101) instead of 2 and 4: eight good
    // (140 and 60 on the own line are not), sum 810, ((810 + 4) · 256) >> 11 = 101.
    let mut g = frame(patch, |_, _| (128, 128), true, false);
    g.state.progressive_dn = false;
    let w2 = handle(desc(5, 0), &payload(0, 0), 0, &g).unwrap();
    assert_eq!(w2[1][16 + 5], 101);
    // W4: the first frame's history is 0; the complexity sums of the top and bottom
    // 16x4 (within each 4x4): SHCM top 75 + 84 = 159, SVCM top 4 + 8 + 119 = 131,
    // SHCM bottom 102 + 200 + 101 = 403, SVCM bottom 3 + 99 + 101 = 203; STAD needs the
    // previous frame: 0. The flat pixels qualify for the noise estimate with metric 0.
    let s = &w[4];
    assert_eq!((dword(s, 0), dword(s, 1)), (0, 0), "history");
    assert_eq!(dword(s, 2) & 0xff, 0, "block noise estimate");
    assert_eq!(dword(s, 4), 403 << 16 | 203);
    assert_eq!(dword(s, 5), 131 << 16);
    assert_eq!(dword(s, 6), 159);
    assert_eq!(dword(s, 7), 0, "Y << 16 | X of the block");
    // With a noise threshold of 0 no pixel qualifies: 255.
    let mut g = frame(patch, |_, _| (128, 128), true, false);
    g.state.block_noise_estimate_noise_threshold = 0;
    let w3 = handle(desc(5, 0), &payload(16, 8), 0, &g).unwrap();
    assert_eq!(dword(&w3[4], 2) & 0xff, 255);
    assert_eq!(
        dword(&w3[4], 7),
        8 << 16 | 16,
        "X and Y from the low words only"
    );
}

/// Luma 3y² + x, chroma Cb 20j + x, Cr 200 − 10j − x.
fn curved(x: u32, y: u32) -> u8 {
    (3 * y * y + x) as u8
}

fn chroma(x: u32, j: u32) -> (u8, u8) {
    ((20 * j + x) as u8, (200 - 10 * j - x) as u8)
}

#[test]
fn deinterlace_on_the_first_frame_keeps_the_first_field_and_interpolates_the_other() {
    let f = frame(curved, chroma, false, true);
    let w = handle(desc(10, 0), &payload(0, 4), 0, &f).unwrap();
    assert_eq!(w.len(), 10);
    // Top field first: lines 4 and 6 kept (48 + x, 108 + x); 5 = (48 + 108 + 1) >> 1 +
    // x = 78 + x; 7 = (108 + 192 + 1) >> 1 + x = 150 + x. W4 rows 4-5, W5 rows 6-7.
    for x in 0..16u8 {
        let x_ = usize::from(x);
        assert_eq!(
            [w[4][x_], w[4][16 + x_], w[5][x_], w[5][16 + x_]],
            [48 + x, 78 + x, 108 + x, 150 + x],
            "x = {x}"
        );
    }
    // Chroma, (Cr, Cb) pairs: the top field's lines 4-6 use its chroma row 2 (Cr 180 −
    // k, Cb 40 + k); line 7 averages rows 2 and 4: Cr (180 + 160 − 2k + 1) >> 1 = 170 −
    // k, Cb (40 + 80 + 2k + 1) >> 1 = 60 + k.
    for k in 0..8u8 {
        let at = 2 * usize::from(k);
        assert_eq!(
            (w[6][at], w[6][at + 1]),
            (180 - k, 40 + k),
            "line 4, pair {k}"
        );
        assert_eq!(
            (w[7][16 + at], w[7][16 + at + 1]),
            (170 - k, 60 + k),
            "line 7"
        );
    }
    // The previous frame's second field does not exist: zeros; the STMM is 255.
    assert!(w[..4].iter().all(|r| r.iter().all(|&b| b == 0)));
    assert_eq!(w[8], [0xff; 32]);
    // W9: Diff_cTcB = ((48 − 75)² + (108 − 147)²) · 16 / 16 = 2250; the differences to
    // the previous frame at their maximum; X 0, Y 4.
    let s = &w[9];
    assert_eq!(dword(s, 4), 0xffff_0000 | 2250);
    assert_eq!(dword(s, 3), 0xffff_ffff);
    assert_eq!(dword(s, 5), 0xffff);
    assert_eq!(dword(s, 7), 4 << 16);
    // Bottom field first: lines 5 and 7 kept (75 + x, 147 + x); 4 = (27 + 75 + 1) >> 1
    // + x = 51 + x; 6 = (75 + 147 + 1) >> 1 + x = 111 + x.
    let mut g = frame(curved, chroma, false, true);
    g.state.dn_di_top_first = DnDiTopFirst::BOTTOM_FIELD_OCCURS_FIRST;
    let w = handle(desc(10, 0), &payload(0, 4), 0, &g).unwrap();
    assert_eq!(
        [w[4][3], w[4][16 + 3], w[5][3], w[5][16 + 3]],
        [54, 78, 114, 150]
    );
}

#[test]
fn malformed_and_unmodelled_deinterlace_messages_are_errors() {
    let f = frame(patch, |_, _| (128, 128), true, false);
    let err = |f: &Fake, rlen: u8, sampler: u8| handle(desc(rlen, sampler), &payload(0, 0), 0, f);
    // DN alone on 4:2:0 answers 5 registers, DI 10.
    let e = err(&f, 10, 0).unwrap_err();
    assert!(e.to_string().contains("response length"), "{e}");
    // The sampler index is even.
    let e = err(&f, 5, 1).unwrap_err();
    assert!(e.to_string().contains("odd"), "{e}");
    // DN and DI both off: not allowed.
    let mut g = frame(patch, |_, _| (128, 128), false, false);
    assert!(
        err(&g, 5, 0)
            .unwrap_err()
            .to_string()
            .contains("cannot both")
    );
    // Frames after the first, DN with DI, DI Partial, other formats: not modelled.
    // Each names what is not modelled and its section.
    let unsupported = |g: &Fake, rlen: u8, what: &str, section: &str| {
        let e = err(g, rlen, 0).unwrap_err();
        assert!(
            matches!(e.root(), MessageError::Unsupported(u)
                if u.what.contains(what) && u.reference == section),
            "{e}"
        );
    };
    g = frame(patch, |_, _| (128, 128), false, true);
    g.state.dn_di_first_frame = DnDiFirstFrame::NOT_FIRST_FIELD;
    g.state.mcdi_enable = true;
    unsupported(&g, 10, "MCDI Enable", "seed 000 §2.8.4.9-§2.8.4.12");
    g = frame(patch, |_, _| (128, 128), true, true);
    unsupported(&g, 11, "DN and DI both enabled", "seed 000 §2.13.2.6");
    g = frame(patch, |_, _| (128, 128), false, true);
    g.state.di_partial = true;
    unsupported(&g, 10, "DI Partial", "seed 000 §2.12.3.3, §2.13.2.6");
    g = frame(patch, |_, _| (128, 128), true, false);
    g.surface.surface_format = MediaFormat::YCRCB_NORMAL;
    unsupported(&g, 5, "on a YcrcbNormal surface", "seed 000 §2.13.2.6");
}

#[test]
fn hostile_deinterlace_messages_end_in_a_result_or_a_typed_error() {
    // Random DEINTERLACE_SAMPLER_STATEs (every DW6/DW7 switch, thresholds), surfaces
    // (formats, sizes, pitches, tilings, plane offsets past memory, field pictures),
    // response lengths, sampler indices and raw M1 registers: the message ends with its
    // writeback or a typed error, never a panic, and both are reached. Every fourth
    // message is a sane one (DN or DI alone on the test frame, its response length,
    // sampler 0) that must complete: random ones complete only some 2.6% of the time, so
    // 300 of them alone missed a result for about one seed in 2,500.
    let mut rng = gtsim_fuzzkit::SplitMix64(gtsim_fuzzkit::env_u64("GTSIM_FUZZ_SEED", 13));
    let (mut ok, mut err) = (0, 0);
    for case in 0..gtsim_fuzzkit::cases(300) {
        if case % 4 == 0 {
            let di = rng.one_in(2);
            let rlen = if di { 10 } else { 5 };
            let f = frame(curved, chroma, !di, di);
            let (u, v) = (rng.below(4) as u32 * 4, rng.below(2) as u32 * 4);
            match handle(desc(rlen, 0), &payload(u, v), 0, &f) {
                Ok(w) => assert_eq!(w.len(), usize::from(rlen)),
                Err(e) => panic!("DI {di} at ({u}, {v}): a sane message must complete: {e}"),
            }
            ok += 1;
            continue;
        }
        let mut f = frame(curved, chroma, rng.one_in(2), rng.one_in(2));
        let mut dw: Vec<u32> = (0..8).map(|_| rng.next_u64() as u32).collect();
        if rng.one_in(2) {
            // Mostly sane switches: first frame, no walker, no partial.
            dw[6] = (dw[6] & !0xe6) | 1 << 5 | (rng.below(4) as u32);
            dw[7] &= !(1 << 18);
            dw[0] &= !(1 << 14);
        }
        f.state = DeinterlaceSamplerState::unpack(&dw).unwrap_or_default();
        if rng.one_in(3) {
            f.surface = MediaSurfaceState {
                surface_base_address: BASE + rng.below(4) * 0x400,
                width: rng.below(80) as u16,
                height: rng.below(80) as u16,
                surface_pitch: rng.below(300) as u32,
                surface_format: MediaFormat(rng.below(16) as u32),
                tile_mode: gtsim_spec::gen7::media_surface_state::TileMode(rng.below(4) as u32),
                picture_structure: gtsim_spec::gen7::media_surface_state::PictureStructure(
                    rng.below(4) as u32,
                ),
                interleave_chroma: rng.one_in(2),
                y_offset_for_u_cb: rng.below(100) as u16,
                ..Default::default()
            };
        }
        if rng.one_in(2) {
            // A previous frame and a statistics surface (BTI 4 and 5), sometimes sane.
            let stats_format = if rng.one_in(2) {
                7
            } else {
                rng.below(16) as u32
            };
            f.others = vec![
                MediaSurfaceState {
                    surface_base_address: BASE + rng.below(4) * 0x400,
                    ..f.surface.clone()
                },
                MediaSurfaceState {
                    surface_base_address: BASE + rng.below(4) * 0x400,
                    width: rng.below(80) as u16,
                    height: rng.below(80) as u16,
                    surface_pitch: rng.below(300) as u32,
                    surface_format: MediaFormat(stats_format),
                    ..Default::default()
                },
            ];
        }
        let m1: [u8; 32] = std::array::from_fn(|_| rng.next_u64() as u8);
        let rlen = [5u8, 10, 9, 11, 12, 0][rng.below(6) as usize];
        let sampler = if rng.one_in(8) { 1 } else { 0 };
        match handle(desc(rlen, sampler), &[[0; 32], m1], 0, &f) {
            Ok(w) => {
                assert_eq!(w.len(), usize::from(rlen));
                ok += 1;
            }
            Err(_) => err += 1,
        }
    }
    assert!(ok > 0 && err > 0, "{ok} results, {err} errors");
}

/// The previous frame's luma for the temporal denoise test: the current frame is 100
/// everywhere; per 4x4 of the top 16x4:
/// * x 0-3: 98 (STAD 32, TASD 32, complexity 0: a static block whose history resets
///   to 128);
/// * x 4-7: 100 ± 2 in a checkerboard (STAD 32, TASD 0: static, 150 + 8 = 158);
/// * x 8-11: 110 at (8..=10, 0) (three moving pixels > 2: a motion block, 150 / 2 = 75);
/// * x 12-15: 95 at (13, 2) only (static, history 100 < 128: 128).
fn previous(x: u32, y: u32) -> u8 {
    match (x, y) {
        (0..=3, 0..=3) => 98,
        (4..=7, 0..=3) => {
            if (x + y).is_multiple_of(2) {
                102
            } else {
                98
            }
        }
        (8..=10, 0) => 110,
        (13, 2) => 95,
        _ => 100,
    }
}

#[test]
fn denoise_after_the_first_frame_follows_the_history_and_blends_temporal_and_spatial() {
    const PREV: u64 = BASE + 0x400;
    const STATS: u64 = BASE + 0x800;
    let mut f = frame(|_, _| 100, |_, _| (128, 128), true, false);
    for r in 0..H {
        let row: Vec<u8> = (0..W).map(|x| previous(x, r)).collect();
        f.mem.load(PREV + u64::from(r * W), &row);
    }
    // The statistics surface, pitch 64: the history of the 4x4 at (x, y) is the byte at
    // (64 / 2 + x / 4, y / 4) (seed 000 §2.8.6.2): 150, 150, 150, 100 for the top row of
    // 4x4s, 0 below.
    f.mem.load(STATS + 32, &[150, 150, 150, 100]);
    f.others = vec![
        MediaSurfaceState {
            surface_base_address: PREV,
            ..f.surface.clone()
        },
        MediaSurfaceState {
            surface_base_address: STATS,
            width: 63,
            height: 7,
            surface_pitch: 63,
            surface_format: MediaFormat::STMM_DN_STATISTICS,
            ..Default::default()
        },
    ];
    f.state.dn_di_first_frame = DnDiFirstFrame::NOT_FIRST_FIELD;
    f.state.denoise_stad_threshold = 40;
    f.state.denoise_moving_pixel_threshold = 2;
    f.state.denoise_asd_threshold = 10;
    f.state.denoise_threshold_for_sum_of_complexity_measure = 5;
    f.state.denoise_maximum_history = 200;
    f.state.denoise_history_delta = 8;
    f.state.temporal_difference_threshold = 8;
    f.state.low_temporal_difference_threshold = 4;
    let w = handle(desc(5, 0), &payload(0, 0), 0, &f).unwrap();
    // (1, 1), history 128: temporal (128·98 + 128·100 + 128) >> 8 = 99, below the 3x3's
    // minimum 100, so (99 + 100) >> 1 = 99; t_diff 2 < 4: the temporal value.
    assert_eq!(w[0][16 + 1], 99);
    // (5, 1), prev 102, history 158: (158·102 + 98·100 + 128) >> 8 = 101, at or above
    // the maximum 100: (101 + 100) >> 1 = 100.
    assert_eq!(w[0][16 + 5], 100);
    // (13, 2), prev 95, history 128: temporal 98, pulled to 99; t_diff 5 is between 4
    // and 8: ((100·(5 − 4) + 99·(8 − 5) + 2) · q_table[3] = 256) >> 10 = 99.
    assert_eq!(w[1][13], 99);
    // The motion block's pixels are spatial: 100.
    assert_eq!(w[0][9], 100);
    // W4: the new histories (bytes by 4x4, top then bottom: 0 → 128) and STAD 32 + 32 +
    // 30 + 5 = 99 for the top 16x4, 0 below.
    let s = &w[4];
    assert_eq!(dword(s, 0).to_le_bytes(), [128, 158, 75, 128]);
    assert_eq!(dword(s, 1).to_le_bytes(), [128; 4]);
    assert_eq!(dword(s, 6), 99 << 16);
    assert_eq!(dword(s, 5), 0);
    // The blend thresholds' difference must be 1 to 16.
    f.state.low_temporal_difference_threshold = 8;
    let e = handle(desc(5, 0), &payload(0, 0), 0, &f).unwrap_err();
    assert!(e.to_string().contains("Temporal Difference"), "{e}");
}

/// A later-frame deinterlace setup: the current frame from `current` (luma, chroma),
/// the previous frame (BTI 4) from `previous`, the stored STMM (BTI 5, an
/// STMM_DN_STATISTICS surface of pitch 32) all `stored`, and the VA driver's blend
/// thresholds: STMM Minimum 118, Maximum 150, Output Shift 5, large/small blending
/// constants 64/125, the small-values threshold the minimum, shifts by 4 and 6.
fn later(current: (u8, (u8, u8)), previous: (u8, (u8, u8)), stored: u8, c2: u8) -> Fake {
    const PREV: u64 = BASE + 0x400;
    const STATS: u64 = BASE + 0x800;
    let mut f = frame(|_, _| current.0, |_, _| current.1, false, true);
    f.mem.load(PREV, &[previous.0; (W * H) as usize]);
    let uv: Vec<u8> = (0..W * H / 4)
        .flat_map(|_| [previous.1.0, previous.1.1])
        .collect();
    f.mem.load(PREV + u64::from(W * H), &uv);
    f.mem.load(STATS, &[stored; (W * H) as usize]);
    f.others = vec![
        MediaSurfaceState {
            surface_base_address: PREV,
            ..f.surface.clone()
        },
        MediaSurfaceState {
            surface_base_address: STATS,
            width: (W - 1) as u16,
            height: (H - 1) as u16,
            surface_pitch: W - 1,
            surface_format: MediaFormat::STMM_DN_STATISTICS,
            ..Default::default()
        },
    ];
    f.state.dn_di_first_frame = DnDiFirstFrame::NOT_FIRST_FIELD;
    f.state.minimum_stmm = 118;
    f.state.maximum_stmm = 150;
    f.state.stmm_output_shift = 5;
    f.state
        .blending_constant_across_time_for_large_values_of_stmm = 64;
    f.state
        .blending_constant_across_time_for_small_values_of_stmm = 125;
    f.state.stmm_c2 = c2;
    f
}

#[test]
fn deinterlace_after_the_first_frame_blends_spatial_and_temporal_by_the_stmm() {
    // Flat frames, current luma 100 and (Cb, Cr) (120, 140), previous 96 and (110,
    // 150); stored STMM 230; STMM C2 7 (divisor bias 8). For every missing pair: SVCM,
    // SHCM, VECM 0; the cross-filtered frames differ by 4 on 20 pixels: TDM 80;
    // STMM = ((80 >> 4) << 6) / (0 + 8) = 40; at most the minimum 118, so STMM2 =
    // (125·230 + 131·40) / 256 = 132, and STMM3 = 132: between 118 and 150, the blend
    // is (sdi·14 + tdi·18) >> 5.
    let f = later((100, (120, 140)), (96, (110, 150)), 230, 7);
    let w = handle(desc(10, 0), &payload(0, 4), 0, &f).unwrap();
    // Top field first. The current frame's first field (W4-W7): rows 4, 6 kept (100),
    // rows 5, 7: sdi 100, tdi (96 + 100 + 1) >> 1 = 98: (1400 + 1764) >> 5 = 98.
    assert_eq!(w[4][..16], [100; 16]);
    assert_eq!(w[4][16..], [98; 16]);
    // The previous frame's second field (W0-W3): rows 5, 7 kept (96); rows 4, 6: sdi
    // 96, tdi 98: (1344 + 1764) >> 5 = 97.
    assert_eq!(w[0][..16], [97; 16]);
    assert_eq!(w[0][16..], [96; 16]);
    // Chroma, (Cr, Cb): the current field's missing row 5: spatial (140, 120), temporal
    // ((150 + 140 + 1) >> 1, (110 + 120 + 1) >> 1) = (145, 115): Cr (1960 + 2610) >> 5 =
    // 142, Cb (1680 + 2070) >> 5 = 117. The previous field's missing row 4: spatial
    // (150, 110): Cr (2100 + 2610) >> 5 = 147, Cb (1540 + 2070) >> 5 = 112.
    assert_eq!((w[6][0], w[6][1]), (140, 120), "kept row 4");
    assert_eq!((w[6][16], w[6][17]), (142, 117), "current, row 5");
    assert_eq!((w[2][0], w[2][1]), (147, 112), "previous, row 4");
    assert_eq!((w[2][16], w[2][17]), (150, 110), "previous, kept row 5");
    // W8: STMM2 of every pair, 132; W9: the variances, (100 − 96)² · 32 / 16 = 32 for
    // each difference between the frames, 0 within the current one.
    assert_eq!(w[8], [132; 32]);
    let s = &w[9];
    assert_eq!(dword(s, 3), 32 << 16 | 32);
    assert_eq!(dword(s, 4), 32 << 16);
    assert_eq!(dword(s, 5), 32);
    assert_eq!(dword(s, 7), 4 << 16);
    // Moving (current 100, previous 60, stored 0, C2 0): TDM 800, STMM ((800 >> 4) << 6)
    // / 1 = 3200, at most 255; above the minimum: (64·0 + 192·255) / 256 = 191 > 150:
    // spatial only, each frame its own lines.
    let f = later((100, (120, 140)), (60, (110, 150)), 0, 0);
    let w = handle(desc(10, 0), &payload(0, 4), 0, &f).unwrap();
    assert_eq!(w[4][16..], [100; 16]);
    assert_eq!(w[0][..16], [60; 16]);
    assert_eq!(w[8], [191; 32]);
    // Static (the same curved frame twice, stored 0): TDM 0, STMM 0, STMM3 0 below the
    // minimum: temporal, the frame's own missing lines, so each output is the frame.
    let mut f = later((0, (128, 128)), (0, (128, 128)), 0, 0);
    for r in 0..H {
        let row: Vec<u8> = (0..W).map(|x| curved(x, r)).collect();
        f.mem.load(BASE + u64::from(r * W), &row);
        f.mem.load(BASE + 0x400 + u64::from(r * W), &row);
    }
    let w = handle(desc(10, 0), &payload(0, 4), 0, &f).unwrap();
    for (reg, row) in [(4, 4u32), (0, 4)] {
        let expect: Vec<u8> = (0..16).map(|x| curved(x, row)).collect();
        assert_eq!(w[reg][..16], expect[..], "W{reg}");
    }
    let expect: Vec<u8> = (0..16).map(|x| curved(x, 5)).collect();
    assert_eq!(w[4][16..], expect[..], "the current field's missing row 5");
}
