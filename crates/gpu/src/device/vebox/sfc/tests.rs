//! The SFC on hand-assembled VEBOX batches (command layouts as in
//! `defs/gen11/media_driver_vebox.spec`), each output worked by hand from the module
//! docs' steps and seed 003's field definitions.

use super::super::super::*;
use gtsim_mem::AddressSpace;

const END: u32 = 0x0500_0000;
const INPUT: u32 = 0x5_0000;
const OUTPUT: u32 = 0x6_0000;
const DNDI: u32 = 0x4_0000;

/// Runs `commands` (each a whole command) on the video enhancement ring with `frame`
/// at INPUT and OUTPUT's first 4 KiB cleared.
fn run(m: &mut AddressSpace, commands: &[Vec<u32>], frame: &[u8]) -> Result<SubmitReport, Hang> {
    let mut batch: Vec<u32> = commands.iter().flatten().copied().collect();
    batch.push(END);
    let bytes: Vec<u8> = batch.iter().flat_map(|d| d.to_le_bytes()).collect();
    m.write(0x20000, &bytes).unwrap();
    m.write(u64::from(INPUT), frame).unwrap();
    m.write(u64::from(OUTPUT), &[0; 4096]).unwrap();
    let mut dev = Device::with_platform(Platform::IceLake);
    dev.submit_on(Ring::VideoEnhance, 1, 0x20000, m)
}

fn mem() -> AddressSpace {
    let mut m = AddressSpace::new();
    for base in [0x20000, DNDI, INPUT, OUTPUT] {
        m.map(u64::from(base), 0x10000);
    }
    m
}

/// A command of `dwords` dwords with `header` and the dwords `fill` sets.
fn command(header: u32, dwords: usize, fill: &[(usize, u32)]) -> Vec<u32> {
    let mut c = vec![0u32; dwords];
    c[0] = header;
    for &(i, v) in fill {
        c[i] |= v;
    }
    c
}

/// VEBOX_STATE (chroma up- and downsampling bypassed, DW18 bits 10 and 11, unless
/// `dw18` says otherwise; `dw1` its DW1), the input NV12 surface `w` x `h` (linear,
/// pitch `w`, chroma at row `h`), SFC_LOCK, `sfc` (SFC_STATE and the others),
/// SFC_FRAME_START and VEB_DI_IECP over the whole width from INPUT.
fn frame(dw1: u32, dw18: u32, (w, h): (u32, u32), sfc: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    let mut c = vec![
        command(0x7402_0011, 19, &[(1, dw1), (2, DNDI), (18, dw18)]),
        command(
            0x7400_0007,
            9,
            &[
                (2, (w - 1) << 4 | (h - 1) << 18),
                (3, 4 << 27 | 1 << 20 | (w - 1) << 3),
                (4, h),
            ],
        ),
        vec![0x7500_0000, 1],
    ];
    c.extend(sfc);
    c.push(vec![0x7504_0000, 0]);
    c.push(command(0x7403_0016, 24, &[(1, w - 1), (2, INPUT)]));
    c
}

/// SFC_STATE: VE-to-SFC, input `w` x `h` at `subsampling` (1 4:2:0, 2 4:2:2), the whole
/// frame as the source region, output frame `out` at OUTPUT with `pitch`, and `fill`.
fn sfc_state(
    subsampling: u32,
    (w, h): (u32, u32),
    out: (u32, u32),
    pitch: u32,
    fill: &[(usize, u32)],
) -> Vec<u32> {
    let mut s = command(
        0x7501_0020,
        34,
        &[
            (1, 1 | subsampling << 4),
            (2, (w - 1) | (h - 1) << 16),
            (5, (w - 1) | (h - 1) << 16),
            (7, (out.0 - 1) | (out.1 - 1) << 16),
            (17, OUTPUT),
            (29, (pitch - 1) << 3 | 1 << 27),
        ],
    );
    for &(i, v) in fill {
        s[i] |= v;
    }
    s
}

fn read(m: &AddressSpace, at: u32, n: usize) -> Vec<u8> {
    let mut b = vec![0; n];
    m.read(u64::from(at), &mut b).unwrap();
    b
}

/// 2:1 down in both directions with the bilinear filter alone (AVS Filter Mode 2), an
/// 8x4 NV12 frame into a 4x2 YUYV one: each output luma is the bilinear value at the
/// centre of a 2x2 block (phase 16 both ways, `scale::position`), the mean of the four;
/// at 12 bits 4·(a+b+c+d) exactly, whose 8 MSBs are the floor of the mean. The flat
/// chroma stays flat: YUYV's U and V are the input's.
#[test]
fn bilinear_two_to_one_into_yuyv() {
    let luma: Vec<u8> = (0..32u32)
        .map(|i| ((i % 8) * 37 + (i / 8) * 11 % 256) as u8)
        .collect();
    let mut input = luma.clone();
    input.extend([100, 200].repeat(4 * 2));
    let sfc = sfc_state(
        1,
        (8, 4),
        (4, 2),
        8,
        &[
            (3, 5),
            (4, 2 << 4 | 1 << 7 | 3 << 8),
            (8, 3 | 1 << 16),
            (14, 1 << 18),
            (15, 1 << 18),
        ],
    );
    let mut m = mem();
    run(&mut m, &frame(0, 3 << 10, (8, 4), vec![sfc]), &input).unwrap();
    let out = read(&m, OUTPUT, 16);
    for j in 0..2 {
        for i in 0..4 {
            let at = |x: usize, y: usize| u32::from(luma[y * 8 + x]);
            let sum = at(2 * i, 2 * j)
                + at(2 * i + 1, 2 * j)
                + at(2 * i, 2 * j + 1)
                + at(2 * i + 1, 2 * j + 1);
            // YUYV: Y0 U Y1 V.
            assert_eq!(u32::from(out[j * 8 + 2 * i]), sum / 4, "Y ({i}, {j})");
        }
        assert_eq!([out[j * 8 + 1], out[j * 8 + 3]], [100, 200]);
    }
}

/// 1:1 (AVS Scaling Enable clear), turned 90 degrees clockwise into a 4x5 AYUV frame
/// with Color Fill: the 4x2 scaled region, 2x4 once turned, sits at (1, 0); input pixel
/// (i, j) lands at (1 + (1 − j), i). Chroma is upsampled at siting 0: luma column 1
/// halfway between the two chroma samples ((60 + 80)/2 = 70, (70 + 90)/2 = 80). The
/// rest is the Gray Bar Pixel colour, 10-bit 0x100, 0x200, 0x300 → 8-bit 0x40, 0x80,
/// 0xc0, and alpha the Alpha Default Value 0x3ff → 0xff. AYUV bytes: V, U, Y, A.
#[test]
fn rotation_and_colour_fill_into_ayuv() {
    let luma = [10u8, 20, 30, 40, 50, 60, 70, 80];
    let mut input = luma.to_vec();
    input.extend([60, 70, 80, 90]);
    let sfc = sfc_state(
        1,
        (4, 2),
        (4, 5),
        16,
        &[
            (4, 1 << 16 | 1 << 18),
            (8, 3 | 1 << 16),
            (9, 1),
            // Gray Bar Pixel U/G (9:0), Y/R (25:16); A (9:0), V/B (25:16).
            (10, 0x200 | 0x100 << 16),
            (11, 0x3ff | 0x300 << 16),
            (13, 0x3ff),
        ],
    );
    let mut m = mem();
    run(&mut m, &frame(0, 3 << 10, (4, 2), vec![sfc]), &input).unwrap();
    let out = read(&m, OUTPUT, 16 * 5);
    let u = [60u8, 70, 80, 80];
    let v = [70u8, 80, 90, 90];
    for y in 0..5 {
        for x in 0..4 {
            let px = &out[y * 16 + 4 * x..y * 16 + 4 * x + 4];
            let expected = if (1..=2).contains(&x) && y < 4 {
                let (i, j) = (y, 2 - x);
                [v[i], u[i], luma[j * 4 + i], 0xff]
            } else {
                [0xc0, 0x80, 0x40, 0xff]
            };
            assert_eq!(px, expected, "({x}, {y})");
        }
    }
}

/// The colour space converter (CSC Enable, SFC_IEF_STATE Transform Enable) into RGBA8
/// with RGBA_Channel_Swap_Enable: Y 116, U 138, V 118 with offsets in −16, −128, −128
/// (S2.8, 11 bits) and the matrix R = Y + 1.5V, G = Y − 0.25U − 0.5V, B = Y + U (S2.10)
/// give R = 100 − 15 = 85, G = 100 − 2.5 + 5 = 102.5 → 102 (12 bits: 1640.5 rounds
/// to 1640, whose 8 MSBs are 102), B = 110; swapped the bytes are B, G, R, A.
#[test]
fn csc_into_swapped_rgba8() {
    let mut input = vec![116u8; 4];
    input.extend([138, 118]);
    let neg13 = |v: u32| (1 << 13) - v;
    let neg11 = |v: u32| (1 << 11) - v;
    let ief = command(
        0x7503_0016,
        24,
        &[
            (16, 1 | 1024 << 3),
            (17, 1536 | 1024 << 13),
            (18, neg13(256) | neg13(512) << 13),
            (19, 1024 | 1024 << 13),
            (21, neg11(16)),
            (22, neg11(128)),
            (23, neg11(128)),
        ],
    );
    let sfc = sfc_state(
        1,
        (2, 2),
        (2, 2),
        8,
        &[(3, 1 | 1 << 5), (4, 1 << 19), (8, 1 | 1 << 16), (13, 0x3ff)],
    );
    let mut m = mem();
    run(&mut m, &frame(0, 3 << 10, (2, 2), vec![sfc, ief]), &input).unwrap();
    assert_eq!(read(&m, OUTPUT, 16), [110, 102, 85, 255].repeat(4));
}

/// A first frame deinterlaced (DI Enable, DN/DI First Frame, DI Output Frames 2 "current
/// frame only") with DN/DI Top First (VEBOX_DNDI_STATE DW38 bit 3) and sent to the SFC as
/// 4:2:2 into NV12 (vertical co-siting 4/8). Luma: the top field's rows 0 and 2 kept,
/// row 1 their mean rounded up, row 3 (no field row below) row 2. Chroma: the top field
/// owns chroma row 0 (interlaced 4:2:0), so every 4:2:2 row is row 0's, and the SFC's
/// mean of rows 0 and 1 is row 0's again; chroma row 1 (the bottom field's) is gone.
#[test]
fn first_frame_deinterlaced_through_the_sfc() {
    let luma = [
        10u8, 20, 30, 40, //
        99, 99, 99, 99, //
        15, 26, 37, 48, //
        77, 77, 77, 77,
    ];
    let mut input = luma.to_vec();
    input.extend([10, 20, 30, 40, 200, 210, 220, 230]);
    let mut m = mem();
    let mut dndi = vec![0u8; 45 * 4];
    dndi[38 * 4] = 1 << 3;
    m.write(u64::from(DNDI), &dndi).unwrap();
    let sfc = sfc_state(
        2,
        (4, 4),
        (4, 4),
        4,
        &[(3, 4 | 4 << 8), (8, 3 | 3 << 16), (30, 4)],
    );
    // DW1: DI Enable (4), DN/DI First Frame (5), DI Output Frames 2 (9:8).
    run(
        &mut m,
        &frame(1 << 4 | 1 << 5 | 2 << 8, 3 << 10, (4, 4), vec![sfc]),
        &input,
    )
    .unwrap();
    let out = read(&m, OUTPUT, 24);
    let mean = |a: u8, b: u8| (u16::from(a) + u16::from(b)).div_ceil(2) as u8;
    let row1: Vec<u8> = (0..4).map(|x| mean(luma[x], luma[8 + x])).collect();
    assert_eq!(&out[0..4], &luma[0..4]);
    assert_eq!(&out[4..8], &row1[..]);
    assert_eq!(&out[8..12], &luma[8..12]);
    assert_eq!(&out[12..16], &luma[8..12]);
    assert_eq!(&out[16..24], &[10, 20, 30, 40, 10, 20, 30, 40]);
}

/// What the SFC does not model is refused by name at the VEB_DI_IECP that runs it: the
/// image enhancement filter, the adaptive AVS weight, another pipe mode; a later
/// motion-adaptive frame; and a source region outside the input frame is invalid state.
#[test]
fn unmodelled_sfc_and_di_are_refused_by_name() {
    let input = vec![0u8; 96];
    let mut m = mem();
    let case = |m: &mut AddressSpace, dw1: u32, fill: &[(usize, u32)]| {
        let sfc = sfc_state(1, (8, 8), (8, 8), 8, &[(3, 4), (8, 7 | 7 << 16), (30, 8)]);
        let mut sfc = sfc;
        for &(i, v) in fill {
            sfc[i] = v;
        }
        run(m, &frame(dw1, 3 << 10, (8, 8), vec![sfc]), &input)
            .unwrap_err()
            .to_string()
    };
    let e = case(&mut m, 0, &[(4, 1)]);
    assert!(
        e.contains("VEB_DI_IECP") && e.contains("image enhancement filter"),
        "{e}"
    );
    let e = case(
        &mut m,
        0,
        &[(4, 1 << 7 | 1 << 4), (14, 1 << 17), (15, 1 << 17)],
    );
    assert!(e.contains("adaptive blend"), "{e}");
    let e = case(&mut m, 0, &[(1, 1 << 4)]);
    assert!(e.contains("SFC Pipe Mode 0"), "{e}");
    let e = case(&mut m, 0, &[(6, 1)]);
    assert!(e.contains("exceeds the 8x8 input frame"), "{e}");
    let e = case(&mut m, 1 << 4 | 2 << 8, &[]);
    assert!(
        e.contains("motion-adaptive deinterlacing of a frame after the first"),
        "{e}"
    );
}
