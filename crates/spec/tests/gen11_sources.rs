//! Gen11's two sources, checked against each other. Seed 003 gives the bodies of the 3D
//! commands (`3DSTATE_VS_BODY`, ...) without their headers; the commands themselves
//! (header, opcode, every field) are transcribed from Mesa's genxml `gen11.xml`
//! (`defs/gen11/genxml_*.spec`). Every field of a seed body must sit in the command one
//! dword further on (after the header), at the same bits: two independent readings of
//! the hardware agreeing.

use gtsim_spec_gen::model::{Def, Spec};
use gtsim_spec_gen::seedrows::{Leaf, leaves};
use std::path::Path;

fn gen11() -> Spec {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("defs/gen11");
    let (spec, errors) = gtsim_spec_gen::load(&dir).expect("spec files readable");
    assert!(errors.is_empty(), "{errors:?}");
    spec
}

/// The seed body a command's fields follow its header with.
fn body_of<'a>(spec: &'a Spec, command: &str) -> Option<&'a Def> {
    let body = if command.starts_with("3DSTATE_CONSTANT_") {
        "3DSTATE_CONSTANT_Body".to_string()
    } else {
        format!("{command}_BODY")
    };
    spec.defs.get(&body)
}

/// Seed body fields where seed 003 (Lakefield) and the Ice Lake command iHD sends
/// (media-driver `mhw_sfc_hwcmd_g11_X.h`, `defs/gen11/media_driver_vebox.spec`) disagree:
/// the SFC's scaling factors are U4.19 in 27:5 in the seed and U4.17 in 20:0 in the ICL
/// header (iHD writes `round(ratio * 2^17)`, mhw_sfc_g11_X.cpp AddSfcState), and the
/// seed's body runs to 46 dwords (a source X window, a Y phase shift, line tile buffer
/// modes) where the ICL command has 34. The model decodes what iHD sends.
fn known_difference(body: &str, field: &str) -> bool {
    body == "SFC_STATE_BODY"
        && [
            "Scaling Factor Height",
            "Scale Factor Width",
            "SourceStartX",
            "SourceEndX",
            "Yphaseshift",
            "AVS Line Tile Buffer Tiled Mode",
            "IEF Line Tile Buffer Tiled Mode",
            "SFD Line Tile Buffer Tiled Mode",
        ]
        .contains(&field)
}

#[test]
fn seed_bodies_agree_with_the_transcribed_commands() {
    let spec = gen11();
    let mut checked = 0;
    let mut fields = 0;
    let mut differ = vec![];
    for def in spec.defs.values() {
        let Some(body) = body_of(&spec, &def.name) else {
            continue;
        };
        if !matches!(def.kind, gtsim_spec_gen::model::DefKind::Command { .. }) {
            continue;
        }
        checked += 1;
        let mut seed = vec![];
        leaves(&spec, body, 32, "", &mut seed);
        let mut ours = vec![];
        leaves(&spec, def, 0, "", &mut ours);
        // Bits the seed body leaves reserved (its mbz rows and any bit no row covers).
        let seed_reserved = |bit: u32| {
            !seed
                .iter()
                .any(|l: &Leaf| !l.mbz && l.lo <= bit && bit <= l.hi)
        };
        for f in seed.iter().filter(|l| !l.mbz) {
            fields += 1;
            let (lo, hi) = (f.lo, f.hi);
            // The same bits, or a wider field of genxml's that starts there and goes on
            // only over bits the seed reserves (genxml's 64-bit Scratch Space Base
            // Pointer, whose high dword seed 003 marks reserved).
            let agrees = ours.iter().any(|g| {
                g.lo == lo && (g.hi == hi || (g.hi > hi && (hi + 1..=g.hi).all(seed_reserved)))
            });
            if !agrees && !known_difference(&body.name, &f.name) {
                differ.push(format!(
                    "{} `{}` bits {}..{} (seed {}): no such field in {} ({})",
                    body.name, f.name, lo, hi, body.source, def.name, def.source
                ));
            }
        }
    }
    println!("{checked} commands checked against their seed bodies, {fields} fields");
    assert!(checked >= 30, "only {checked} commands have a seed body");
    assert!(
        differ.is_empty(),
        "{} of {fields} seed body fields are not in the transcribed commands:\n{}",
        differ.len(),
        differ.join("\n")
    );
}
