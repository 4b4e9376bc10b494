//! Where two replays first diverge: the first draw whose outputs (the images it wrote,
//! what it ran, whether it completed) differ, with its state differences and the first
//! differing pixel; else the hangs, the number of draws or the memory left at the end.
//! `gtsim inspect A.aub --diff B.aub` compares two captures on this build;
//! `gtsim inspect A.aub --with OTHER_GTSIM` one capture on two builds (the other build's
//! digest read from its `gtsim inspect --digest -`), for bisecting the model itself.
//!
//! The comparison is two passes: the digests ([`crate::digest`]) find the draw; both
//! replays then run again keeping that draw's state and images in full.

use crate::digest::{Detail, Digest, DrawDigest, TargetDigest};
use std::fmt::Write;

/// What a comparison found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Divergence {
    /// The replays agree: the same draws with the same outputs, the same hangs, the same
    /// memory at the end.
    Same {
        /// Draws compared.
        draws: usize,
    },
    /// Draw `index` is the first whose outputs differ.
    Draw {
        /// Its index in both replays.
        index: usize,
        /// Why (one line each): which target, what ran, the error.
        why: Vec<String>,
    },
    /// Every draw both ran agrees; one replay ran more draws.
    DrawCount {
        /// Draws of each.
        a: usize,
        /// Draws of the second replay.
        b: usize,
    },
    /// The draws agree; the hangs differ.
    Hangs {
        /// Each side's hangs.
        a: Vec<(usize, String)>,
        /// The second replay's.
        b: Vec<(usize, String)>,
    },
    /// The draws agree; the memory at the end differs (compute dispatches, blits,
    /// stores from the command streamer): the first page that differs or exists on one
    /// side only.
    Memory {
        /// The page's address.
        page: u64,
        /// Pages that differ.
        pages: usize,
    },
}

/// The first point where digests `a` and `b` diverge.
pub fn compare(a: &Digest, b: &Digest) -> Divergence {
    for (da, db) in a.draws.iter().zip(&b.draws) {
        let why = draw_differences(da, db);
        if !why.is_empty() {
            return Divergence::Draw {
                index: da.index,
                why,
            };
        }
    }
    if a.draws.len() != b.draws.len() {
        return Divergence::DrawCount {
            a: a.draws.len(),
            b: b.draws.len(),
        };
    }
    if a.hangs != b.hangs {
        return Divergence::Hangs {
            a: a.hangs.clone(),
            b: b.hangs.clone(),
        };
    }
    let pa: std::collections::BTreeMap<u64, u64> = a.pages.iter().copied().collect();
    let pb: std::collections::BTreeMap<u64, u64> = b.pages.iter().copied().collect();
    let mut differ = pa
        .iter()
        .filter(|(k, v)| pb.get(k) != Some(v))
        .map(|(k, _)| *k)
        .chain(pb.keys().filter(|k| !pa.contains_key(k)).copied())
        .collect::<Vec<u64>>();
    differ.sort_unstable();
    match differ.first() {
        Some(&page) => Divergence::Memory {
            page,
            pages: differ.len(),
        },
        None => Divergence::Same {
            draws: a.draws.len(),
        },
    }
}

/// How two draws' outputs differ, one line each; empty when they agree.
fn draw_differences(a: &DrawDigest, b: &DrawDigest) -> Vec<String> {
    let mut why = vec![];
    if a.error != b.error {
        why.push(format!(
            "it ended {} / {}",
            a.error.as_deref().unwrap_or("complete"),
            b.error.as_deref().unwrap_or("complete")
        ));
    }
    for ta in &a.targets {
        match b.targets.iter().find(|tb| same_image(ta, tb)) {
            None => why.push(format!("{}: B has no such image", describe(ta))),
            Some(tb) if shape(ta) != shape(tb) => {
                why.push(format!("{}: {} / {}", ta.what, describe(ta), describe(tb)));
            }
            Some(tb) if ta.hash != tb.hash || ta.hash.is_none() => {
                why.push(format!("{}: its contents differ", describe(ta)));
            }
            Some(_) => {}
        }
    }
    for tb in &b.targets {
        if !a.targets.iter().any(|ta| same_image(ta, tb)) {
            why.push(format!("{}: A has no such image", describe(tb)));
        }
    }
    let names = [
        "vertices",
        "primitives",
        "pixels",
        "EU threads",
        "EU instructions",
    ];
    for ((n, x), y) in names.iter().zip(a.ran).zip(b.ran) {
        if x != y {
            why.push(format!("{n} run: {x} / {y}"));
        }
    }
    why
}

/// Whether two targets are the same image: the same surface, LOD and slice.
fn same_image(a: &TargetDigest, b: &TargetDigest) -> bool {
    (a.base, a.lod, a.slice) == (b.base, b.lod, b.slice)
}

/// What must agree for two images' contents to compare.
fn shape(t: &TargetDigest) -> (&str, (u32, u32), u32, (u32, u32, u32)) {
    (&t.format, t.size, t.samples, t.block)
}

/// A target in a few words.
fn describe(t: &TargetDigest) -> String {
    format!(
        "{} (LOD {} slice {}) {} {}x{}{}",
        t.what,
        t.lod,
        t.slice,
        t.format,
        t.size.0,
        t.size.1,
        if t.samples > 1 {
            format!(" {}x MSAA", t.samples)
        } else {
            String::new()
        }
    )
}

/// The report of a comparison: `a` and `b` the two digests, `detail` both replays' full
/// record of the diverging draw (when it is a draw), `names` the two sides.
pub fn report(
    names: (&str, &str),
    a: &Digest,
    b: &Digest,
    divergence: &Divergence,
    detail: Option<(&Detail, &Detail)>,
) -> String {
    let (na, nb) = names;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "A: {na}: {} draws, {} hangs\nB: {nb}: {} draws, {} hangs",
        a.draws.len(),
        a.hangs.len(),
        b.draws.len(),
        b.hangs.len()
    );
    match divergence {
        Divergence::Same { draws } => {
            let _ = writeln!(
                o,
                "the same: {draws} draws with the same outputs, the same hangs and the same memory at the end"
            );
        }
        Divergence::Draw { index, why } => {
            let (da, db) = (&a.draws[*index], &b.draws[*index]);
            if *index > 0 {
                let _ = writeln!(o, "draws 0-{} have the same outputs", index - 1);
            }
            let _ = writeln!(
                o,
                "draw {index} is the first whose outputs differ (A: submission {}, 3DPRIMITIVE at {:#x}; B: submission {}, at {:#x}):",
                da.submission, da.addr, db.submission, db.addr
            );
            for w in why {
                let _ = writeln!(o, "  {w}");
            }
            if let Some((fa, fb)) = detail {
                pixels(&mut o, da, db, fa, fb);
                state(&mut o, fa, fb);
            }
        }
        Divergence::DrawCount { a, b } => {
            let _ = writeln!(
                o,
                "the first {} draws have the same outputs; A ran {a} draws, B {b}",
                a.min(b)
            );
        }
        Divergence::Hangs { a, b } => {
            let _ = writeln!(o, "every draw has the same outputs; the hangs differ:");
            for (side, h) in [("A", a), ("B", b)] {
                if h.is_empty() {
                    let _ = writeln!(o, "  {side}: none");
                }
                for (s, why) in h {
                    let _ = writeln!(o, "  {side}: submission {s}: {why}");
                }
            }
        }
        Divergence::Memory { page, pages } => {
            let _ = writeln!(
                o,
                "every draw has the same outputs; the memory at the end differs in {pages} pages, the first at {page:#x}"
            );
        }
    }
    o
}

/// The first differing pixel of each differing target of the diverging draw, with both
/// values, and how many pixels differ.
fn pixels(o: &mut String, da: &DrawDigest, db: &DrawDigest, a: &Detail, b: &Detail) {
    for (i, t) in da.targets.iter().enumerate() {
        let Some(j) = db.targets.iter().position(|tb| same_image(t, tb)) else {
            continue;
        };
        if shape(t) != shape(&db.targets[j]) {
            continue;
        }
        let (Some(ra), Some(rb)) = (a.rows.get(i), b.rows.get(j)) else {
            continue;
        };
        if ra.is_empty() || rb.is_empty() || ra == rb {
            continue;
        }
        let (bw, bh, bytes) = t.block;
        let element = bytes.max(1) as usize;
        let samples = t.samples.max(1) as usize;
        let mut first = None;
        let mut count = 0u64;
        for (y, (x_row, y_row)) in ra.iter().zip(rb).enumerate() {
            for (k, (ea, eb)) in x_row.chunks(element).zip(y_row.chunks(element)).enumerate() {
                if ea != eb {
                    count += 1;
                    if first.is_none() {
                        first = Some((k / samples, y, k % samples, ea.to_vec(), eb.to_vec()));
                    }
                }
            }
        }
        let Some((bx, by, s, ea, eb)) = first else {
            continue;
        };
        let unit = if (bw, bh) == (1, 1) {
            "pixels"
        } else {
            "blocks"
        };
        let sample = if samples > 1 {
            format!(" sample {s}")
        } else {
            String::new()
        };
        let _ = writeln!(
            o,
            "  {}: {count} {unit} differ; the first at ({}, {}){sample} (row 0 first in memory): A {}, B {}",
            describe(t),
            bx as u32 * bw,
            by as u32 * bh,
            value(&t.format, &ea),
            value(&t.format, &eb)
        );
    }
}

/// A texel's bytes, decoded when the format is one the codecs know.
fn value(format: &str, bytes: &[u8]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let code = gtsim_spec::shared::ENUM_SURFACE_FORMAT
        .values
        .iter()
        .find(|(_, n)| *n == format)
        .map(|(v, _)| gtsim_spec::shared::SurfaceFormat(*v as u32));
    match code.and_then(|f| gtsim_mem::format::texel::decode(f, bytes).ok()) {
        Some(t) => format!("{t:?} ({hex})"),
        None => hex,
    }
}

/// The state fields of the diverging draw that differ, or are on one side only.
fn state(o: &mut String, a: &Detail, b: &Detail) {
    let ma: std::collections::BTreeMap<&str, &str> = a
        .state
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mb: std::collections::BTreeMap<&str, &str> = b
        .state
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut lines = vec![];
    for (k, va) in &ma {
        match mb.get(k) {
            Some(vb) if vb == va => {}
            Some(vb) => lines.push(format!("    {k}: A {va}, B {vb}")),
            None => lines.push(format!("    {k}: A {va}, B -")),
        }
    }
    for (k, vb) in &mb {
        if !ma.contains_key(k) {
            lines.push(format!("    {k}: A -, B {vb}"));
        }
    }
    if lines.is_empty() {
        let _ = writeln!(o, "  its state is the same ({} fields)", ma.len());
    } else {
        let _ = writeln!(o, "  its state differs in {} fields:", lines.len());
        for l in lines {
            let _ = writeln!(o, "{l}");
        }
    }
}

/// A copy of `trace` with dword `index` of the `nth` command whose header dword is
/// `header` (and which is `dwords` long) set to `value`, as batches are written in the
/// trace; with the number of such commands. For experiments and tests: a capture with
/// one draw changed on purpose (say 3DPRIMITIVE's Vertex Count Per Instance) must
/// diverge there. A dword that only looks like the header (inside vertex data, say) is
/// counted too: pick `nth` from the end, where a capture's batches are.
pub fn with_command_dword(
    trace: &gtsim_gpu::aub::Trace,
    header: u32,
    dwords: usize,
    nth: usize,
    index: usize,
    value: u32,
) -> (gtsim_gpu::aub::Trace, usize) {
    let mut t = trace.clone();
    let mut seen = 0;
    let len = 4 * dwords.max(index + 1);
    for ev in &mut t.events {
        let gtsim_gpu::aub::Event::Write { data, .. } = ev else {
            continue;
        };
        let mut i = 0;
        while i + len <= data.len() {
            let dw = u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
            if dw != header {
                i += 4;
                continue;
            }
            if seen == nth {
                data[i + 4 * index..i + 4 * index + 4].copy_from_slice(&value.to_le_bytes());
            }
            seen += 1;
            i += len;
        }
    }
    (t, seen)
}
