//! COLOR_PROCESSING_STATE (seed 000 §3.8.3), decoded into the data port's neutral
//! [`gtsim_dataport::dc::iecp`] pipe. The stages the model does not carry out (skin
//! tone detection and enhancement §3.6.1.2, ACE §3.6.1.3, TCC §3.6.1.4, colour gamut
//! compression §3.6.1.7) are refused by name when the state enables them, so that a
//! write never comes out as if they had been skipped.

use gtsim_dataport::dc::iecp::{AlphaSource, ChromaMode, ColorProcessing, Csc, ProcAmp};
use gtsim_mem::Memory;
use gtsim_message::MessageError;
use gtsim_spec::Unsupported;
use gtsim_spec::gen7::ColorProcessingState;
use gtsim_spec::gen7::color_processing_state::{AlphaFromStateSelect, OutputControl};

/// The state's size in dwords (DW0-66).
const DWORDS: usize = 67;

/// The COLOR_PROCESSING_STATE at graphics address `address`.
pub(crate) fn decode(mem: &dyn Memory, address: u64) -> Result<ColorProcessing, MessageError> {
    let dw = mem
        .read_dwords(address, DWORDS)
        .map_err(|fault| MessageError::Fault {
            what: format!("COLOR_PROCESSING_STATE at {address:#x}"),
            fault,
        })?;
    let s = ColorProcessingState::unpack(&dw).map_err(|e| MessageError::State {
        structure: "COLOR_PROCESSING_STATE",
        why: format!("at {address:#x}: {e}"),
    })?;
    from_state(&s)
}

/// The modelled pipe of an unpacked state.
pub(crate) fn from_state(s: &ColorProcessingState) -> Result<ColorProcessing, MessageError> {
    let refuse = |stage: &str, section: &'static str| -> MessageError {
        Unsupported::new(format!("the colour processing pipe's {stage}"), section).into()
    };
    if s.std_enable || s.ste_enable || s.output_control != OutputControl(0) {
        return Err(refuse(
            "skin tone detection and enhancement (STD Enable, STE Enable or Output STD \
             Decisions)",
            "seed 000 §3.6.1.2",
        ));
    }
    if s.ace_enable {
        return Err(refuse(
            "adaptive contrast enhancement (ACE Enable)",
            "seed 000 §3.6.1.3",
        ));
    }
    if s.tcc_enable {
        return Err(refuse(
            "total color control (TCC Enable)",
            "seed 000 §3.6.1.4",
        ));
    }
    if s.color_gamut_compression_enable {
        return Err(refuse(
            "color gamut compression (Color Gamut Compression Enable)",
            "seed 000 §3.6.1.7",
        ));
    }
    // The fixed-point fields are exact multiples of their step: back to raw integers.
    let raw = |v: f64, fraction_bits: i32| (v * f64::from(1 << fraction_bits)).round() as i32;
    let procamp = s.procamp_enable.then(|| ProcAmp {
        contrast: raw(s.contrast, 7),
        brightness: raw(s.brightness, 4),
        cos_c_s: raw(s.cos_c_s, 8),
        sin_c_s: raw(s.sin_c_s, 8),
    });
    let csc = s.transform_enable.then(|| Csc {
        coefficients: [s.c0, s.c1, s.c2, s.c3, s.c4, s.c5, s.c6, s.c7, s.c8].map(|c| raw(c, 10)),
        offset_in: s
            .yuv_in
            .then(|| [s.offset_in_1, s.offset_in_2, s.offset_in_3].map(i32::from)),
        offset_out: s
            .yuv_out
            .then(|| [s.offset_out_1, s.offset_out_2, s.offset_out_3].map(i32::from)),
    });
    let alpha = if s.alpha_from_state_select == AlphaFromStateSelect(1) {
        AlphaSource::State(s.color_pipe_alpha)
    } else {
        AlphaSource::Message
    };
    // Seed 000 §3.6.1.1: the three Forced flags select one operation each; two of them
    // at once contradict each other when they concern the same input (both 4:4:4 ones).
    let chroma = match (
        s.forced_444_for_444,
        s.forced_422_for_444,
        s.forced_444_for_422,
    ) {
        (true, true, _) => {
            return Err(MessageError::State {
                structure: "COLOR_PROCESSING_STATE",
                why: "Forced 444 for 444 and Forced 422 for 444 are both set (seed 000 \
                      §3.8.3 DW66 30:29)"
                    .into(),
            });
        }
        (true, false, _) => ChromaMode::Forced444For444,
        (false, true, _) => ChromaMode::Forced422For444,
        (false, false, true) => ChromaMode::Forced444For422,
        (false, false, false) => ChromaMode::Auto,
    };
    Ok(ColorProcessing {
        procamp,
        csc,
        alpha,
        chroma,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state whose dwords are written by hand from seed 000 §3.8.3's tables; all
    /// others zero.
    fn state(set: &[(usize, u32)]) -> Result<ColorProcessing, MessageError> {
        let mut dw = [0u32; DWORDS];
        for &(i, v) in set {
            dw[i] |= v;
        }
        let s = ColorProcessingState::unpack(&dw).expect("the hand-made state unpacks");
        from_state(&s)
    }

    /// Two's complement of `v` in `bits` bits.
    fn twos(v: i32, bits: u32) -> u32 {
        (v as u32) & ((1 << bits) - 1)
    }

    #[test]
    fn procamp_csc_and_repacker_fields_decode_to_their_raw_values() {
        let got = state(&[
            // DW53: Contrast 27:17 (U4.7 2.0), Brightness 12:1 (S7.4 −10), Enable 0.
            (53, 256 << 17 | twos(-160, 12) << 1 | 1),
            // DW54: Cos_c_s 31:16 (0.5), Sin_c_s 15:0 (−0.25), S7.8.
            (54, 128 << 16 | twos(-64, 16)),
            // DW55: C1 28:16 = 0, C0 15:3 = 1.0, YUV_IN 2, Transform Enable 0.
            (55, 1024 << 3 | 1 << 2 | 1),
            // DW56-59: C3/C2, C5/C4, C7/C6, C8 (S2.10, 13 bits, high at 25:13).
            (56, 1024 << 13 | 1536),
            (57, twos(-512, 13) << 13 | twos(-256, 13)),
            (58, 2048 << 13 | 1024),
            // DW60-62: Offset Out 19:10, Offset In 9:0 (S9).
            (60, twos(-64, 10)),
            (61, twos(-512, 10)),
            (62, 5 << 10 | twos(-512, 10)),
            // DW63: Alpha from State Select 16, Color Pipe Alpha 15:0.
            (63, 1 << 16 | 0xabcd),
            // DW66: Forced 422 for 444 (bit 29).
            (66, 1 << 29),
        ])
        .unwrap();
        assert_eq!(
            got,
            ColorProcessing {
                procamp: Some(ProcAmp {
                    contrast: 256,
                    brightness: -160,
                    cos_c_s: 128,
                    sin_c_s: -64,
                }),
                csc: Some(Csc {
                    coefficients: [1024, 0, 1536, 1024, -256, -512, 1024, 2048, 0],
                    offset_in: Some([-64, -512, -512]),
                    // YUV_OUT clear: Offset Out 3's 5 is not applied.
                    offset_out: None,
                }),
                alpha: AlphaSource::State(0xabcd),
                chroma: ChromaMode::Forced422For444,
            }
        );
        // Enables clear: the stages drop out, alpha comes from the message.
        let idle = state(&[(53, 256 << 17), (63, 0xabcd)]).unwrap();
        assert_eq!(
            (idle.procamp, idle.csc, idle.alpha),
            (None, None, AlphaSource::Message)
        );
    }

    #[test]
    fn stages_not_modelled_are_refused_by_name() {
        for (dw, bit, section) in [
            (0, 0, "§3.6.1.2"),
            (0, 1, "§3.6.1.2"),
            (0, 2, "§3.6.1.2"),
            (29, 0, "§3.6.1.3"),
            (42, 7, "§3.6.1.4"),
            (64, 31, "§3.6.1.7"),
        ] {
            let e = state(&[(dw, 1 << bit)]).unwrap_err().to_string();
            assert!(e.contains(section), "DW{dw} bit {bit}: {e}");
        }
        // Two Forced flags for 4:4:4 input contradict each other.
        let e = state(&[(66, 3 << 29)]).unwrap_err().to_string();
        assert!(
            e.contains("Forced 444 for 444 and Forced 422 for 444 are both set"),
            "{e}"
        );
    }
}
