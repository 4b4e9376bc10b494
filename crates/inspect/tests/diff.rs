//! Where two replays diverge (`gtsim inspect --diff`): a capture against itself agrees; a
//! capture with one draw changed on purpose diverges at that draw, at the pixel the two
//! replays' final images (read without the digest) first differ; the digest's text
//! form reads back as it was written, and hostile text ends in a typed error.

use gtsim_gpu::aub::{self, Trace};
use gtsim_inspect::diff::{Divergence, compare};
use gtsim_inspect::digest::{Digest, digest};
use gtsim_mem::Memory;
use gtsim_mem::surface::TexelCoord;

const TRIANGLE: &[u8] = include_bytes!("../../cli/data/triangle.aub");

/// Gen7 3DPRIMITIVE's header (seed 004 §1.10.6: command type 3, 3D subtype 3, opcode 3,
/// sub-opcode 0, DWord Length 5): 7 dwords, Vertex Count Per Instance in DW2.
const PRIMITIVE: u32 = 0x7b00_0005;

/// The trace with the vertex count of its `n`th 3DPRIMITIVE set to 0, and how many
/// 3DPRIMITIVEs it holds.
fn without_vertices(trace: &Trace, n: usize) -> (Trace, usize) {
    gtsim_inspect::diff::with_command_dword(trace, PRIMITIVE, 7, n, 2, 0)
}

#[test]
fn a_capture_agrees_with_itself() {
    let trace = aub::parse(TRIANGLE);
    let a = digest(&trace, None);
    let b = digest(&trace, None);
    assert!(!a.draws.is_empty() && !a.pages.is_empty());
    assert!(
        a.draws
            .iter()
            .all(|d| d.targets.iter().all(|t| t.hash.is_some()))
    );
    assert_eq!(
        compare(&a, &b),
        Divergence::Same {
            draws: a.draws.len()
        }
    );
}

#[test]
fn a_changed_draw_is_found_with_its_first_differing_pixel() {
    let trace = aub::parse(TRIANGLE);
    let a = digest(&trace, None);
    // The last 3DPRIMITIVE in the batches draws the triangle (crocus's clear before it
    // is its own draw).
    let (_, count) = without_vertices(&trace, usize::MAX);
    assert!(count >= 1, "no 3DPRIMITIVE found");
    let (changed, _) = without_vertices(&trace, count - 1);
    let b = digest(&changed, None);
    let last = a.draws.len() - 1;
    let Divergence::Draw { index, why } = compare(&a, &b) else {
        panic!("{:?}", compare(&a, &b));
    };
    assert_eq!(index, last, "{why:?}");
    assert!(
        why.iter().any(|w| w.starts_with("vertices run: 3 / 0")),
        "{why:?}"
    );
    assert!(
        why.iter().any(|w| w.contains("its contents differ")),
        "{why:?}"
    );
    assert_eq!(
        a.draws[last].targets.len(),
        b.draws[last].targets.len(),
        "the changed draw wrote nothing; the target the draw before wrote is compared"
    );
    // The first differing pixel, found without the digest: the two replays' render
    // target after the last draw (the end of the replay), texel by texel in memory's
    // row order.
    let ra = gtsim_gpu::replay::replay(&trace, |_, _| {});
    let rb = gtsim_gpu::replay::replay(&changed, |_, _| {});
    let rt = a.draws[last].targets[0].clone();
    let target = ra
        .render_targets
        .iter()
        .find(|t| t.surface.base == rt.base)
        .expect("the replay's render target");
    let (w, h) = (rt.size.0, rt.size.1);
    let texel = |mem: &dyn Memory, x: u32, y: u32| {
        let at = TexelCoord {
            x,
            y,
            slice: rt.slice,
            lod: rt.lod,
            sample: 0,
        };
        let off = target
            .surface
            .desc
            .texel_offset(at.x, at.y, at.slice, at.lod, 0)
            .unwrap();
        let mut b = vec![0u8; target.surface.desc.block_bytes as usize];
        mem.read(target.surface.base + off, &mut b).unwrap();
        b
    };
    let first = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .find(|&(x, y)| texel(&ra.mem, x, y) != texel(&rb.mem, x, y))
        .expect("the images differ");
    let detail_a = digest(&trace, Some(last)).detail.unwrap();
    let detail_b = digest(&changed, Some(last)).detail.unwrap();
    let report = gtsim_inspect::diff::report(
        ("a", "b"),
        &a,
        &b,
        &compare(&a, &b),
        Some((&detail_a, &detail_b)),
    );
    assert!(
        report.contains(&format!("the first at ({}, {})", first.0, first.1)),
        "{first:?}\n{report}"
    );
    // The state differs in the vertex count alone (the 3DPRIMITIVE's fields are part of
    // the draw's state).
    assert!(
        report.contains("its state differs in 1 fields:")
            && report.contains("Vertex Count Per Instance: A 3, B 0"),
        "{report}"
    );
}

#[test]
fn the_digest_text_reads_back_as_written() {
    let trace = aub::parse(TRIANGLE);
    let d = digest(&trace, Some(1));
    let det = d.detail.as_ref().expect("draw 1 in full");
    assert!(!det.state.is_empty() && !det.rows.is_empty());
    let text = d.to_text();
    assert_eq!(Digest::from_text(&text).unwrap(), d);
}

#[test]
fn hostile_digest_text_ends_in_a_result_or_a_typed_error() {
    let trace = aub::parse(TRIANGLE);
    let text = digest(&trace, Some(1)).to_text();
    let lines: Vec<&str> = text.lines().collect();
    let mut rng = gtsim_fuzzkit::Rng::new(gtsim_fuzzkit::seed(0x00d1_9e57));
    let (mut ok, mut err) = (0, 0);
    for case in 0..300 {
        // Odd cases drop or repeat whole lines (mostly still well formed); even cases
        // also change bytes.
        let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        for _ in 0..1 + rng.below(3) {
            let i = 1 + rng.below(l.len() - 1);
            match rng.below(3) {
                0 => {
                    l.remove(i.min(l.len() - 1).max(1));
                }
                1 => {
                    let dup = l[i.min(l.len() - 1)].clone();
                    l.insert(i.min(l.len()), dup);
                }
                _ if case % 2 == 0 => {
                    let at = i.min(l.len() - 1);
                    let s = &mut l[at];
                    let mut b = std::mem::take(s).into_bytes();
                    if !b.is_empty() {
                        let k = rng.below(b.len());
                        b[k] = b"\t0x-zg19\n "[rng.below(10)];
                    }
                    *s = String::from_utf8_lossy(&b).into_owned();
                }
                _ => {}
            }
        }
        match Digest::from_text(&l.join("\n")) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(e.line >= 1 && !e.why.is_empty(), "{e}");
                err += 1;
            }
        }
    }
    assert!(ok > 0 && err > 0, "both outcomes: {ok} read, {err} refused");
}
