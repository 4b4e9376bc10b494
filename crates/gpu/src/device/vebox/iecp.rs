//! The VEBOX's IECP colour pipe: VEBOX_IECP_STATE in the VEBOX heap (seed 003
//! L23403-23429), its sub-states in the seed's order: STD/STE, ACE, TCC, ProcAmp, CSC,
//! Alpha/AOI, CCM, the front-end CSC and gamut control.
//!
//! ProcAmp is modelled: VEBOX_PROCAMP_STATE (seed 003 L23430-23445) has the fields and
//! formats of the Gen7 render cache's COLOR_PROCESSING_STATE ProcAmp (U4.7 contrast,
//! S7.4 brightness, S7.8 Cos_c_s and Sin_c_s), and seed 000 §3.6.1.5 gives its
//! arithmetic on the 12-bit pipe; the two generations share that code
//! (`gtsim_dataport::dc::iecp::ProcAmp`). Every other sub-state that is enabled is
//! refused by name: their seed 003 tables give thresholds and coefficients, and their
//! arithmetic (skin-tone detection, ACE curves, TCC, Gen11's S2.16 CSC) is not modelled
//! yet.

use super::super::Hang;
use super::super::cs::unsupported;
use super::super::fields::Fields;
use gtsim_dataport::dc::iecp::ProcAmp;
use gtsim_mem::memory::Memory;
use gtsim_spec::table::Generation;

/// The IECP state's size in dwords (seed 003: 3680 bits).
pub const DWORDS: usize = 115;

/// Where the IECP pipe is defined.
const REFERENCE: &str = "seed 003 VEBOX_IECP_STATE L23403-23429 (its sub-states L22072-24158)";

/// The IECP pipe as the model runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pipe {
    /// ProcAmp, when PROCAMP Enable is set.
    pub procamp: Option<ProcAmp>,
}

/// `bits` wide two's complement `v`, sign-extended.
fn signed(v: u64, bits: u32) -> i32 {
    let shift = 64 - bits;
    ((v << shift) as i64 >> shift) as i32
}

impl Pipe {
    /// Reads VEBOX_IECP_STATE at `addr` and decodes the parts the frame uses, refusing
    /// the enabled sub-states that are not modelled.
    pub(super) fn read(
        generation: &'static Generation,
        mem: &dyn Memory,
        addr: u64,
        at: u64,
    ) -> Result<Pipe, Hang> {
        let dw = super::read_state(mem, addr, DWORDS, at)?;
        Pipe::decode(generation, &dw, at)
    }

    /// Decodes the IECP state's dwords `dw`.
    pub fn decode(generation: &'static Generation, dw: &[u32], at: u64) -> Result<Pipe, Hang> {
        let part = |name: &'static str, first: usize| -> Result<Fields<'_>, Hang> {
            let def = generation.def(name).ok_or_else(|| {
                unsupported(
                    "VEB_DI_IECP",
                    at,
                    format!("{name} has no definition"),
                    REFERENCE,
                )
            })?;
            let end = first + def.dwords as usize;
            Ok(Fields {
                generation,
                def,
                dw: &dw[first..end.min(dw.len())],
            })
        };
        // (sub-state, its first dword, the fields that enable it, what it is).
        let refused: [(&str, usize, &[&str], &str); 6] = [
            (
                "VEBOX_STD_STE_STATE",
                0,
                &["STD Enable", "STE Enable"],
                "skin tone detection and enhancement (STD/STE)",
            ),
            (
                "VEBOX_ACE_LACE_STATE",
                29,
                &["ACE Enable"],
                "automatic contrast enhancement (ACE)",
            ),
            (
                "VEBOX_TCC_STATE",
                42,
                &["TCC Enable"],
                "total colour control (TCC)",
            ),
            (
                "VEBOX_CSC_STATE",
                55,
                &["Transform Enable"],
                "the colour space converter (S2.16 coefficients)",
            ),
            (
                "VEBOX_CCM_STATE",
                70,
                &["Color Correction Matrix Enable"],
                "the colour correction matrix (CCM)",
            ),
            (
                "VEBOX_FRONT_END_CSC_STATE",
                85,
                &["Front End CSC Transform Enable"],
                "the front-end colour space converter",
            ),
        ];
        for (name, first, enables, what) in refused {
            let f = part(name, first)?;
            if let Some(e) = enables.iter().find(|e| f.flag(e)) {
                return Err(unsupported(
                    "VEB_DI_IECP",
                    at,
                    format!("the IECP pipe's {what} ({name} {e})"),
                    REFERENCE,
                ));
            }
        }
        let p = part("VEBOX_PROCAMP_STATE", 53)?;
        let procamp = p.flag("PROCAMP Enable").then(|| ProcAmp {
            contrast: p.u("Contrast") as i32,
            brightness: signed(p.u("Brightness"), 12),
            cos_c_s: signed(p.u("Cos_c_s"), 16),
            sin_c_s: signed(p.u("Sin_c_s"), 16),
        });
        Ok(Pipe { procamp })
    }

    /// Runs the pipe on one 12-bit YUV pixel.
    pub fn apply(&self, yuv: [i32; 3]) -> [i32; 3] {
        match &self.procamp {
            Some(p) => p.apply(yuv),
            None => yuv,
        }
    }

    /// Whether the pipe leaves every pixel as it is.
    pub fn is_identity(&self) -> bool {
        self.procamp.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen11() -> &'static Generation {
        &gtsim_spec::gen11::GENERATION
    }

    /// VEBOX_PROCAMP_STATE (seed 003 L23430): DW53 holds Contrast in 27:17, Brightness
    /// in 12:1, PROCAMP Enable in 0; DW54 Cos_c_s in 31:16 and Sin_c_s in 15:0. Contrast
    /// 1.5 (U4.7: 192), brightness −2.5 (S7.4: −40), cos 0.5 (S7.8: 128), sin −0.25
    /// (−64). Then seed 000 §3.6.1.5 on Y=1000, U=2048+400, V=2048−200 (12-bit):
    /// Y' = (1000−256)·1.5 − 40 + 256 = 1332; U' = 400·0.5 + (−200)·(−0.25) + 2048 =
    /// 2298; V' = (−200)·0.5 − 400·(−0.25) + 2048 = 2048.
    #[test]
    fn procamp_from_the_heap_state_by_hand() {
        let mut dw = vec![0u32; DWORDS];
        dw[53] = 192 << 17 | ((-40i32 as u32) & 0xfff) << 1 | 1;
        dw[54] = 128 << 16 | (-64i32 as u32 & 0xffff);
        let pipe = Pipe::decode(gen11(), &dw, 0).unwrap();
        assert_eq!(
            pipe.procamp,
            Some(ProcAmp {
                contrast: 192,
                brightness: -40,
                cos_c_s: 128,
                sin_c_s: -64
            })
        );
        assert_eq!(pipe.apply([1000, 2448, 1848]), [1332, 2298, 2048]);
        // PROCAMP Enable clear: the pipe changes nothing.
        dw[53] &= !1;
        let pipe = Pipe::decode(gen11(), &dw, 0).unwrap();
        assert!(pipe.is_identity());
        assert_eq!(pipe.apply([1000, 2448, 1848]), [1000, 2448, 1848]);
    }

    /// Each enabled sub-state the model does not run is refused by name: STD Enable (DW0
    /// bit 0), ACE Enable (DW29 bit 0), TCC Enable (DW42 bit 7), CSC Transform Enable
    /// (DW55 bit 31), CCM enable (DW70 bit 31), front-end CSC (DW85 bit 31).
    #[test]
    fn unmodelled_sub_states_are_refused_by_name() {
        for (dword, bit, name) in [
            (0, 0, "STD Enable"),
            (29, 0, "ACE Enable"),
            (42, 7, "TCC Enable"),
            (55, 31, "Transform Enable"),
            (70, 31, "Color Correction Matrix Enable"),
            (85, 31, "Front End CSC Transform Enable"),
        ] {
            let mut dw = vec![0u32; DWORDS];
            dw[dword] = 1 << bit;
            let err = Pipe::decode(gen11(), &dw, 0x40).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains("not modelled"), "{err}");
        }
    }
}
