//! Property tests over every generated definition: for any canonical encoding (reserved
//! bits zero, opcode fields at their fixed values, DWord Length consistent), `unpack`
//! then `pack` gives back exactly the same dwords; and `unpack` never panics on
//! arbitrary dwords.
//!
//! The canonical form is computed from the field tables, independently of the generated
//! pack/unpack code under test.

use gtsim_spec::bits;
use gtsim_spec::gen7::{GENERATION, ROUNDTRIP};

/// A generated module's round trip (`unpack` then `pack`) of one definition.
type RoundTrip = fn(&[u32]) -> Result<Vec<u32>, gtsim_spec::CodecError>;

/// Every generation's tables and round trips.
fn generations() -> [(&'static Generation, &'static [(&'static str, RoundTrip)]); 2] {
    [
        (&GENERATION, ROUNDTRIP),
        (&gtsim_spec::gen11::GENERATION, gtsim_spec::gen11::ROUNDTRIP),
    ]
}
use gtsim_spec::table::{Def, DefKind, Generation, Ty};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Marks in `mask` the bits of `def` (placed at bit `base`) that carry data, and records
/// the fixed values to write.
fn layout(
    generation: &Generation,
    def: &Def,
    base: u32,
    len_dwords: usize,
    mask: &mut [u32],
    fixed: &mut Vec<(u32, u32, u64)>,
) {
    for f in def.fields {
        let (s, e) = (base + f.start, base + f.end);
        if let Some(v) = f.fixed {
            fixed.push((s, e, v));
            continue;
        }
        match f.ty {
            Ty::Mbz | Ty::Length => {}
            Ty::Struct(n) => layout(
                generation,
                generation.def(n).expect("nested def"),
                s,
                len_dwords,
                mask,
                fixed,
            ),
            Ty::Array { elem, count } => {
                let ed = generation.def(elem).expect("element def");
                let n = match count {
                    Some(c) => c as usize,
                    None => (len_dwords - (s / 32) as usize) / ed.dwords as usize,
                };
                for i in 0..n {
                    layout(
                        generation,
                        ed,
                        s + (i as u32) * ed.dwords * 32,
                        len_dwords,
                        mask,
                        fixed,
                    );
                }
            }
            _ => {
                let mut b = s;
                while b <= e {
                    let take = (e - b + 1).min(32 - b % 32);
                    let m = if take == 32 {
                        u32::MAX
                    } else {
                        ((1u32 << take) - 1) << (b % 32)
                    };
                    if let Some(w) = mask.get_mut((b / 32) as usize) {
                        *w |= m;
                    }
                    b += take;
                }
            }
        }
    }
}

/// The lengths a definition can have in this test: fixed size, or for variable commands
/// the fixed part plus 0..=3 array elements (at least the minimum `dwords`), or each
/// length up to its last optional field.
fn lengths(generation: &Generation, def: &Def) -> Vec<usize> {
    let open = def.fields.iter().find_map(|f| match f.ty {
        Ty::Array { elem, count: None } => {
            Some((f.start / 32, generation.def(elem).expect("element").dwords))
        }
        _ => None,
    });
    match (def.kind, open) {
        (_, Some((at, size))) => (0..=3)
            .map(|k| (at + k * size) as usize)
            .filter(|&n| n >= def.dwords as usize)
            .collect(),
        (DefKind::Command { variable: true, .. }, None) => {
            let extent = def
                .fields
                .iter()
                .map(|f| f.end / 32 + 1)
                .max()
                .unwrap_or(def.dwords) as usize;
            (def.dwords as usize..=extent.max(def.dwords as usize)).collect()
        }
        _ => vec![def.dwords as usize],
    }
}

fn canonical(generation: &Generation, def: &Def, random: &[u32]) -> Vec<u32> {
    let n = random.len();
    let mut mask = vec![0u32; n];
    let mut fixed = vec![];
    layout(generation, def, 0, n, &mut mask, &mut fixed);
    let mut dw: Vec<u32> = random.iter().zip(&mask).map(|(r, m)| r & m).collect();
    for (s, e, v) in fixed {
        bits::set(&mut dw, s, e, v);
    }
    if let DefKind::Command { bias, .. } = def.kind
        && let Some(f) = def
            .fields
            .iter()
            .find(|f| matches!(f.ty, Ty::Length) && f.fixed.is_none())
    {
        bits::set(
            &mut dw,
            f.start,
            f.end,
            (n as u64).wrapping_sub(bias as u64),
        );
    }
    dw
}

#[test]
fn every_definition_round_trips() {
    for (generation, roundtrip) in generations() {
        round_trips(generation, roundtrip);
    }
}

fn round_trips(generation: &Generation, roundtrip: &[(&str, RoundTrip)]) {
    let mut checked = 0;
    let cases = std::cell::Cell::new(0usize);
    for (name, rt) in roundtrip.iter().copied() {
        let def = generation
            .def(name)
            .expect("every roundtrip entry has a table");
        for len in lengths(generation, def) {
            // A runner per definition and length: each gets its full set of cases.
            let mut runner = TestRunner::new(Config {
                cases: 64,
                failure_persistence: None,
                ..Config::default()
            });
            let result = runner.run(&proptest::collection::vec(any::<u32>(), len), |random| {
                let dw = canonical(generation, def, &random);
                cases.set(cases.get() + 1);
                let back = rt(&dw).map_err(|e| {
                    TestCaseError::fail(format!("{name} ({len} dwords) {dw:08x?}: {e}"))
                })?;
                prop_assert_eq!(&back, &dw, "{} ({} dwords) did not round-trip", name, len);
                Ok(())
            });
            if let Err(e) = result {
                panic!("{e}");
            }
            checked += 1;
        }
    }
    assert_eq!(roundtrip.len(), generation.defs.len());
    let cases = cases.get();
    assert!(cases >= checked * 64, "only {cases} cases ran");
    eprintln!(
        "round-tripped {} definitions in {checked} lengths, {cases} cases",
        roundtrip.len()
    );
}

#[test]
fn unpack_never_panics_on_arbitrary_dwords() {
    for (name, rt) in generations()
        .into_iter()
        .flat_map(|(_, r)| r.iter().copied())
    {
        TestRunner::new(Config {
            cases: 32,
            failure_persistence: None,
            ..Config::default()
        })
        .run(&proptest::collection::vec(any::<u32>(), 0..40), |random| {
            let _ = rt(&random);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// Every command's own header identifies it (no opcode is shadowed by another).
#[test]
fn every_command_header_identifies_its_command() {
    for (generation, _) in generations() {
        headers_identify(generation);
    }
}

fn headers_identify(generation: &'static Generation) {
    for def in generation.defs {
        if !matches!(def.kind, DefKind::Command { .. }) {
            continue;
        }
        let len = lengths(generation, def)[0];
        let dw = canonical(generation, def, &vec![0; len]);
        let found = generation.identify(dw[0]).map(|d| d.name);
        assert_eq!(
            found,
            Some(def.name),
            "header {:#010x} of {}",
            dw[0],
            def.name
        );
        assert_eq!(
            def.length(dw[0]),
            Some(len),
            "{}: DWord Length of its own header",
            def.name
        );
    }
}

/// The README states how many definitions and shared enumerations the spec has; the
/// numbers must be the generated tables' own.
#[test]
fn the_readme_counts_the_definitions_and_enumerations() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md at the repository root");
    let defs = format!("{} definitions", GENERATION.defs.len());
    let enums = format!("{} shared enumerations", GENERATION.enums.len());
    assert!(readme.contains(&defs), "README.md should say \"{defs}\"");
    assert!(readme.contains(&enums), "README.md should say \"{enums}\"");
}

/// `identify` and `register` remember their answers; asked twice, over every command's
/// opcode and register's offset and pseudo-random headers, they answer what a search of
/// the whole table answers.
#[test]
fn remembered_lookups_answer_as_the_table_search() {
    let search = |dw0: u32| {
        GENERATION
            .defs
            .iter()
            .filter(|d| d.matches(dw0))
            .max_by_key(|d| d.opcode_mask.count_ones())
            .map(|d| d.name)
    };
    let mut x = 0x1234_5678u32;
    let mut headers: Vec<u32> = GENERATION.defs.iter().map(|d| d.opcode_value).collect();
    for _ in 0..5000 {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        headers.push(x);
    }
    for _ in 0..2 {
        for &h in &headers {
            assert_eq!(
                GENERATION.identify(h).map(|d| d.name),
                search(h),
                "{h:#010x}"
            );
        }
        for d in GENERATION.defs {
            if let DefKind::Register { offset } = d.kind {
                let found = GENERATION.register(offset).map(|r| r.kind);
                assert_eq!(found, Some(DefKind::Register { offset }));
            }
        }
        assert!(GENERATION.register(0xffff_fff0).is_none());
    }
}
