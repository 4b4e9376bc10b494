//! The colour processing pipe on media block writes (seed 000 §3.6.1, §3.9.6), worked
//! by hand from the seed's formulas in 8-bit terms: a 12-bit pipe value is the 8-bit
//! value times 16, so the seed's 256 (black) and 2048 (zero chroma) are 16 and 128.

use super::iecp::*;
use super::tests::{BASE, media, memory, r8_surface, reg};
use super::*;
use gtsim_mem::space::AddressSpace;

/// Where the tests put COLOR_PROCESSING_STATE: General State Base Address (BASE) +
/// M0.3's pointer.
const STATE: u32 = 0x2000;

/// Writes `data` (one register) as a `width`-byte, `rows`-row block at (0, 0) of an
/// R8G8B8A8 surface 4 DWords wide, colour processed with `state` in message format
/// `format`; returns the surface's first row (16 bytes) and second row.
fn write(
    state: ColorProcessing,
    format: u32,
    width: u32,
    rows: u32,
    data: [u32; 8],
) -> Result<(Vec<u8>, Vec<u8>), MessageError> {
    let mut mem = memory();
    let seen = std::cell::Cell::new(0u64);
    let decode = |_: &dyn Memory, address: u64| {
        seen.set(address);
        Ok(state)
    };
    let header = reg([
        0,
        0,
        (rows - 1) << 16 | (width - 1),
        STATE | format << 2 | 1,
        0,
        0,
        0,
        0,
    ]);
    let payload: Payload = [header, reg(data)].into_iter().collect();
    let mut t = Target {
        mem: &mut mem,
        surface: Some(r8_surface(4, 4, SurfaceFormat::R8G8B8A8_UNORM)),
        general: GeneralState {
            base: BASE,
            bound: None,
        },
        slm: None,
        color_processing: Some(&decode),
    };
    execute(&media(true), &payload, 0, 0, &mut t)?;
    assert_eq!(seen.get(), BASE + u64::from(STATE), "the state's address");
    let row = |r: u64| {
        let mut b = vec![0u8; 16];
        mem.read(BASE + 64 * r, &mut b).unwrap();
        b
    };
    Ok((row(0), row(1)))
}

fn none() -> ColorProcessing {
    ColorProcessing {
        procamp: None,
        csc: None,
        alpha: AlphaSource::Message,
        chroma: ChromaMode::Auto,
    }
}

/// Contrast 2.0, brightness +10, Cos_c_s 0.5, Sin_c_s 0.25 on Y 116, U 160, V 96:
/// Y' = (116 − 16)·2 + 10 + 16 = 226; U' = (32·0.5 + (−32)·0.25) + 128 = 136;
/// V' = ((−32)·0.5 − 32·0.25) + 128 = 104 (§3.6.1.5). Alpha passes from the message.
/// A second pixel, Y 250, clips at the top: (234·2 + 26) > 255.
#[test]
fn procamp_is_the_seeds_formula() {
    let state = ColorProcessing {
        procamp: Some(ProcAmp {
            contrast: 256,
            brightness: 160,
            cos_c_s: 128,
            sin_c_s: 64,
        }),
        ..none()
    };
    // 4:4:4 8-bit dwords: A Y U V from bit 31 down.
    let px = |a: u32, y: u32, u: u32, v: u32| a << 24 | y << 16 | u << 8 | v;
    let (row, _) = write(
        state,
        1,
        8,
        1,
        [
            px(0x7f, 116, 160, 96),
            px(9, 250, 128, 128),
            0,
            0,
            0,
            0,
            0,
            0,
        ],
    )
    .unwrap();
    assert_eq!(row[..4], [104, 136, 226, 0x7f]);
    assert_eq!(row[4..8], [128, 128, 255, 9]);
}

/// YUV to RGB with input offsets −16·4, −128·4, −128·4 (10-bit steps: −16, −128, −128
/// in 8-bit terms) and the matrix [1 0 1.5; 1 −0.25 −0.5; 1 2 0] on Y 116, U 160, V 96
/// (Y − 16 = 100, U − 128 = 32, V − 128 = −32): R = 100 − 48 = 52, G = 100 − 8 + 16 =
/// 108, B = 100 + 64 = 164 (§3.6.1.6). The 4:4:4 message's Y, U, V places then hold R,
/// G, B: memory order B G R A. An output offset of +8 (two 8-bit steps) lifts all three.
#[test]
fn csc_converts_yuv_to_rgb() {
    let k = |f: f64| (f * 1024.0) as i32;
    let csc = Csc {
        coefficients: [
            k(1.0),
            0,
            k(1.5),
            k(1.0),
            k(-0.25),
            k(-0.5),
            k(1.0),
            k(2.0),
            0,
        ],
        offset_in: Some([-64, -512, -512]),
        offset_out: None,
    };
    let px = 0xff << 24 | 116 << 16 | 160 << 8 | 96;
    let state = ColorProcessing {
        csc: Some(csc),
        ..none()
    };
    let (row, _) = write(state, 1, 4, 1, [px, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(row[..4], [164, 108, 52, 0xff]);
    let state = ColorProcessing {
        csc: Some(Csc {
            offset_out: Some([8, 8, 8]),
            ..csc
        }),
        ..none()
    };
    let (row, _) = write(state, 1, 4, 1, [px, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(row[..4], [166, 110, 54, 0xff]);
}

/// A 4:2:2 pair (Y0 64, Y1 96, U 100, V 50) through a converter whose U row is
/// 0.5·Y + U: U'0 = 32 + 100 = 132, U'1 = 48 + 100 = 148, and the repacked pair takes
/// "the average of two adjacent pixels", 140 (§3.6.1.1). Y and V pass.
#[test]
fn a_422_pair_repacks_the_average_chroma() {
    let k = 1024;
    let state = ColorProcessing {
        csc: Some(Csc {
            coefficients: [k, 0, 0, k / 2, k, 0, 0, 0, k],
            offset_in: None,
            offset_out: None,
        }),
        ..none()
    };
    // V Y1 U Y0 from bit 31 down.
    let (row, _) = write(
        state,
        0,
        4,
        1,
        [50 << 24 | 96 << 16 | 100 << 8 | 64, 0, 0, 0, 0, 0, 0, 0],
    )
    .unwrap();
    assert_eq!(row[..4], [64, 140, 96, 50]);
}

/// 16-bit channels keep their 12 MSBs through the pipe and come back with 0000 below
/// (§3.6.1.1); Color Pipe Alpha 0xABCD replaces the message's alpha as 0xABC0. The
/// 4:4:4 16-bit qword is A V Y U from bit 63 down.
#[test]
fn sixteen_bit_channels_and_state_alpha() {
    let state = ColorProcessing {
        alpha: AlphaSource::State(0xabcd),
        ..none()
    };
    // U 0x8123, Y 0x4567, V 0x89ab, A 0x1111.
    let (row, _) = write(state, 3, 8, 1, [0x4567_8123, 0x1111_89ab, 0, 0, 0, 0, 0, 0]).unwrap();
    let words: Vec<u16> = row[..8]
        .chunks(2)
        .map(|w| u16::from_le_bytes([w[0], w[1]]))
        .collect();
    assert_eq!(words, [0x8120, 0x4560, 0x89a0, 0xabc0]);
}

/// §3.6.1.1's auto UV detection on 4:4:4 16-bit input: a horizontal pair whose U and V
/// agree in their 8 MSBs (0x64 in U 0x6410 and 0x6470) runs as 4:2:2 and both take the
/// average, (0x641 + 0x647 + 1) / 2 = 0x644 in the pipe's 12 bits; Forced 444 for 444
/// keeps them apart. A pair that differs in the MSBs (U 0x6400, 0x6600) stays 4:4:4
/// unless Forced 422 for 444, which averages it to 0x650.
#[test]
fn the_422_detection_and_the_forced_modes() {
    let qword = |u: u32, v: u32| [0x4000 << 16 | u, 0xffff << 16 | v];
    let pair = |u0, u1| {
        let (a, b) = (qword(u0, 0x8000), qword(u1, 0x8000));
        [a[0], a[1], b[0], b[1], 0, 0, 0, 0]
    };
    let u_of = |row: &[u8], px: usize| u16::from_le_bytes([row[8 * px], row[8 * px + 1]]);
    let run = |chroma, data| {
        let (row, _) = write(ColorProcessing { chroma, ..none() }, 3, 16, 1, data).unwrap();
        (u_of(&row, 0), u_of(&row, 1))
    };
    assert_eq!(
        run(ChromaMode::Auto, pair(0x6410, 0x6470)),
        (0x6440, 0x6440)
    );
    assert_eq!(
        run(ChromaMode::Forced444For444, pair(0x6410, 0x6470)),
        (0x6410, 0x6470)
    );
    assert_eq!(
        run(ChromaMode::Auto, pair(0x6400, 0x6600)),
        (0x6400, 0x6600)
    );
    assert_eq!(
        run(ChromaMode::Forced422For444, pair(0x6400, 0x6600)),
        (0x6500, 0x6500)
    );
}

/// A width that cuts a message pixel, a colour-processed read, and a front without the
/// state's decoder are errors, not guesses.
#[test]
fn malformed_colour_processed_messages_are_refused() {
    // 4:2:2 16-bit pixels are 8 bytes: a 4-byte write cuts one.
    let e = write(none(), 2, 4, 1, [0; 8]).unwrap_err();
    assert!(
        matches!(&e, MessageError::Invalid(m) if m.contains(
            "write 4 bytes wide: Message Format YUV 4:2:2, 16 bits per channel takes whole 8-byte pixels"
        )),
        "{e:?}"
    );
    let mut mem: AddressSpace = memory();
    let header = reg([0, 0, 3, STATE | 1, 0, 0, 0, 0]);
    let payload: Payload = [header, reg([0; 8])].into_iter().collect();
    let mut t = Target {
        mem: &mut mem,
        surface: Some(r8_surface(4, 4, SurfaceFormat::R8G8B8A8_UNORM)),
        general: GeneralState::default(),
        slm: None,
        color_processing: None,
    };
    let e = execute(&media(true), &payload, 0, 0, &mut t).unwrap_err();
    assert!(
        matches!(&e, MessageError::Unsupported(u)
            if u.what.contains("Color Processing Enable (IECP)") && u.reference == "seed 000 §3.9.6"),
        "{e:?}"
    );
    let e = execute(&media(false), &payload, 0, 1, &mut t).unwrap_err();
    assert!(
        matches!(&e, MessageError::Invalid(m) if m.contains("colour processing applies only")),
        "{e:?}"
    );
}
