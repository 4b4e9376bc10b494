//! A replay's digest: for each draw, a hash of the state it ran with and of every image
//! it wrote (its render targets, depth and stencil), the hangs, and a hash of each page of
//! memory at the end; for one chosen draw, its state field by field and its images row by
//! row. Two digests locate where two replays first diverge ([`crate::diff`]): two
//! captures on this build, or one capture on two builds (`gtsim inspect --digest`
//! writes one for another build's `--with` to read).
//!
//! The text form (`gtsim-digest 1`) is tab separated, one record a line:
//!
//! | record | fields |
//! |---|---|
//! | `draw` | index, submission, 3DPRIMITIVE address, vertices, primitives, pixels, threads, EU instructions, state hash, error or `-` |
//! | `target` | what (`render target N`, `depth`, `stencil`), base, LOD, slice, format, width, height, samples, block width, block height, block bytes, hash or `-` when over budget |
//! | `hang` | submission, report |
//! | `page` | address, hash |
//! | `field` | key (group / structure#n / field path), value: the chosen draw's state |
//! | `row` | target index in the draw, row, the row's bytes in hex: the chosen draw's images |
//!
//! Hashes are FNV-1a 64 (Fowler, Noll and Vo; offset basis 0xcbf29ce484222325, prime
//! 0x100000001b3), fixed by its definition so that digests of two builds compare.
//! Work and memory stay bounded: images are read up to [`IMAGE_BUDGET`] bytes per draw
//! (a target past it is recorded without a hash), rows are kept for the chosen draw only.

use gtsim_gpu::device::front::Latched;
use gtsim_gpu::device::observe::{DrawOutcome, DrawView, Observer};
use gtsim_gpu::device::{Hang, Ring};
use gtsim_mem::Memory;
use gtsim_mem::surface::Surface;

/// Bytes of images read per draw.
pub const IMAGE_BUDGET: u64 = 256 << 20;

/// FNV-1a 64 of `bytes`, continuing from `h` (start from [`FNV_OFFSET`]).
pub fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The FNV-1a 64 offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// A replay, digested.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Digest {
    /// The draws in the order they ran.
    pub draws: Vec<DrawDigest>,
    /// Submissions that hung: submission index and report.
    pub hangs: Vec<(usize, String)>,
    /// Every mapped page of memory after the replay: address and hash, by address.
    pub pages: Vec<(u64, u64)>,
    /// The chosen draw's state and images, when one was chosen and it ran.
    pub detail: Option<Detail>,
}

/// One draw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DrawDigest {
    /// Its index among the replay's draws.
    pub index: usize,
    /// The submission it ran in.
    pub submission: usize,
    /// The 3DPRIMITIVE's address.
    pub addr: u64,
    /// What ran: vertices, primitives, pixels, EU threads and instructions.
    pub ran: [u64; 5],
    /// Hash of its state (every latched command and the indirect state it reaches,
    /// field by field, as [`Detail::state`] lists it).
    pub state: u64,
    /// Why it stopped, when it did not complete.
    pub error: Option<String>,
    /// The images it wrote, its depth and stencil buffers, and the render targets the
    /// draw before it wrote.
    pub targets: Vec<TargetDigest>,
}

/// An image a draw wrote (or the draw before it wrote), after the draw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetDigest {
    /// `render target N` (its binding table order), `depth` or `stencil`.
    pub what: String,
    /// The surface's base address.
    pub base: u64,
    /// LOD and array slice.
    pub lod: u32,
    /// Array slice (or 3D depth).
    pub slice: u32,
    /// SURFACE_FORMAT name.
    pub format: String,
    /// Width and height of the LOD, in texels.
    pub size: (u32, u32),
    /// Samples per pixel.
    pub samples: u32,
    /// Block width and height (1x1 but for compressed formats), and bytes per block.
    pub block: (u32, u32, u32),
    /// Hash of the image's texels in row order (each row's blocks, each block's
    /// samples), or `None` when the draw's image budget ran out first.
    pub hash: Option<u64>,
}

/// The chosen draw, in full.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detail {
    /// Its index.
    pub draw: usize,
    /// Its state: (key, value), the key `group / structure#n / field path`.
    pub state: Vec<(String, String)>,
    /// Each target's rows of bytes (in [`DrawDigest::targets`] order); empty for a
    /// target over budget.
    pub rows: Vec<Vec<Vec<u8>>>,
}

/// The observer that digests a replay.
#[derive(Debug, Default)]
pub struct Digester {
    /// What has been digested.
    pub digest: Digest,
    /// The draw to record in full.
    detail: Option<usize>,
    submission: Option<usize>,
    /// The render target images the previous draw digested.
    previous: Vec<(String, Surface, u32, u32)>,
    /// The last 3DPRIMITIVE the command streamer announced: its dwords.
    primitive: Vec<u32>,
}

impl Digester {
    /// A digester recording draw `detail` in full.
    pub fn new(detail: Option<usize>) -> Digester {
        Digester {
            detail,
            ..Digester::default()
        }
    }
}

impl Observer for Digester {
    fn submission(&mut self, _ring: Ring, _ctx: u32, _batch: u64) {
        self.submission = Some(self.submission.map_or(0, |s| s + 1));
    }

    fn command(&mut self, _addr: u64, def: &'static gtsim_spec::table::Def, dw: &[u32]) {
        if def.name == "3DPRIMITIVE" {
            self.primitive = dw.to_vec();
        }
    }

    fn draw_end(&mut self, view: &DrawView, mem: &dyn Memory, outcome: &DrawOutcome) {
        let index = self.digest.draws.len();
        let full = self.detail == Some(index);
        let mut state = state_lines(view, mem, outcome.targets.len());
        // The draw's own command (vertex count, topology, start, instances).
        let generation = view.latched.generation();
        for f in crate::state::fields_in(generation, "3DPRIMITIVE", &self.primitive) {
            state.push((format!("Draw / 3DPRIMITIVE#0 / {}", f.name), f.value));
        }
        let state_hash = state.iter().fold(FNV_OFFSET, |h, (k, v)| {
            fnv1a(fnv1a(fnv1a(h, k.as_bytes()), b"\t"), v.as_bytes())
        });
        let mut images: Vec<(String, Surface, u32, u32)> = vec![];
        for (i, rt) in outcome.targets.iter().enumerate() {
            for s in 0..=rt.array_extent.min(2047) {
                let slice = rt.min_array_element.saturating_add(s);
                images.push((format!("render target {i}"), rt.surface, rt.lod, slice));
            }
        }
        // The images the draw before wrote, too: a draw that writes nothing (or less) on
        // one side leaves them as they were, which is what the other side's writes are
        // compared with.
        for p in std::mem::take(&mut self.previous) {
            if !images
                .iter()
                .any(|i| (i.1.base, i.2, i.3) == (p.1.base, p.2, p.3))
            {
                images.push(p);
            }
        }
        self.previous = images.clone();
        if let Ok(Some(st)) = view.front.draw_state(mem) {
            let (depth, stencil) = crate::record::depth_surfaces(&st);
            if let Some((s, lod, slice)) = depth {
                images.push(("depth".into(), s, lod, slice));
            }
            if let Some((s, lod, slice)) = stencil {
                images.push(("stencil".into(), s, lod, slice));
            }
        }
        let mut budget = IMAGE_BUDGET;
        let mut targets = vec![];
        let mut rows = vec![];
        for (what, surface, lod, slice) in images {
            let (t, r) = digest_image(what, mem, &surface, lod, slice, &mut budget, full);
            targets.push(t);
            rows.push(r);
        }
        let r = outcome.ran;
        self.digest.draws.push(DrawDigest {
            index,
            submission: self.submission.unwrap_or(0),
            addr: view.addr,
            ran: [
                r.vertices,
                r.primitives,
                r.pixels,
                r.threads,
                r.eu_instructions,
            ],
            state: state_hash,
            error: outcome.error.map(|e| e.to_string()),
            targets,
        });
        if full {
            self.digest.detail = Some(Detail {
                draw: index,
                state,
                rows,
            });
        }
    }

    fn hang(&mut self, hang: &Hang, _state: &dyn Latched, _mem: &dyn Memory) {
        let s = self.submission.unwrap_or(0);
        if !self.digest.hangs.iter().any(|(i, _)| *i == s) {
            self.digest.hangs.push((s, hang.to_string()));
        }
    }
}

/// A draw's state as (key, value) lines: the latched commands by stage with the
/// indirect state their pointers reach, as the draw pages show them.
fn state_lines(view: &DrawView, mem: &dyn Memory, render_targets: usize) -> Vec<(String, String)> {
    let latched = view.latched;
    let mut groups = crate::state::groups_of(latched.generation(), &latched.commands());
    if let Some(state) = view.state {
        crate::state::add_indirect(&mut groups, mem, state, &[], render_targets);
    } else if let Some(state) = latched.as_any().downcast_ref::<gtsim_gen11::LatchedState>() {
        crate::state::add_indirect_gen11(&mut groups, mem, state, &[], render_targets);
    }
    let mut out = vec![];
    for g in &groups {
        let mut seen: std::collections::HashMap<&str, usize> = Default::default();
        for s in &g.structures {
            let n = seen.entry(s.name.as_str()).or_default();
            let structure = format!("{} / {}#{n}", g.stage, s.name);
            *n += 1;
            // A nested field's key holds the names of the fields it is nested in.
            let mut path: Vec<&str> = vec![];
            for f in &s.fields {
                path.truncate(f.depth);
                path.push(&f.name);
                out.push((
                    format!("{structure} / {}", path.join(" / ")),
                    f.value.clone(),
                ));
            }
        }
    }
    out
}

/// The digest of one image (and its rows, when `keep`), charged to `budget`.
fn digest_image(
    what: String,
    mem: &dyn Memory,
    surface: &Surface,
    lod: u32,
    slice: u32,
    budget: &mut u64,
    keep: bool,
) -> (TargetDigest, Vec<Vec<u8>>) {
    let d = &surface.desc;
    let (w, h) = d.level_extent(lod);
    let (bw, bh) = (d.block.0.max(1), d.block.1.max(1));
    let bytes = d.block_bytes.max(1);
    let samples = d.samples.max(1);
    let mut t = TargetDigest {
        what,
        base: surface.base,
        lod,
        slice,
        format: surface
            .format
            .name()
            .map_or(format!("{:#x}", surface.format.0), str::to_owned),
        size: (w, h),
        samples,
        block: (bw, bh, bytes),
        hash: None,
    };
    let row_bytes = u64::from(w.div_ceil(bw)) * u64::from(samples) * u64::from(bytes);
    let total = row_bytes * u64::from(h.div_ceil(bh));
    if total > *budget {
        *budget = 0;
        return (t, vec![]);
    }
    *budget -= total;
    let mut hash = FNV_OFFSET;
    let mut rows = vec![];
    let mut element = vec![0u8; bytes as usize];
    let mut row = Vec::with_capacity(row_bytes as usize);
    // A single-sampled image's offsets once, not the surface's checks per texel.
    let image = d.image_offsets(slice, lod);
    for by in 0..h.div_ceil(bh) {
        row.clear();
        for bx in 0..w.div_ceil(bw) {
            for s in 0..samples {
                let off = match &image {
                    Some(io) => io.offset(bx * bw, by * bh),
                    None => d.texel_offset(bx * bw, by * bh, slice, lod, s),
                };
                let read = off
                    .ok()
                    .and_then(|off| mem.read(surface.base.wrapping_add(off), &mut element).ok());
                // An element that cannot be read (an unmapped page) digests as a marker
                // of its own, not as zeros.
                if read.is_none() {
                    element.fill(0xee);
                }
                row.extend_from_slice(&element);
            }
        }
        hash = fnv1a(hash, &row);
        if keep {
            rows.push(row.clone());
        }
    }
    t.hash = Some(hash);
    (t, rows)
}

/// Digests `trace`'s replay, recording draw `detail` in full.
pub fn digest(trace: &gtsim_gpu::aub::Trace, detail: Option<usize>) -> Digest {
    let mut d = Digester::new(detail);
    let replay = gtsim_gpu::replay::replay_observed(
        trace,
        gtsim_gpu::device::DeviceLimits::default(),
        |_, _| {},
        Some(&mut d),
    );
    let mut digest = d.digest;
    // Hangs the observer was not told of.
    for (i, h) in &replay.hangs {
        if !digest.hangs.iter().any(|(s, _)| s == i) {
            digest.hangs.push((*i, h.to_string()));
        }
    }
    digest.hangs.sort_by_key(|(i, _)| *i);
    let mut page = vec![0u8; gtsim_mem::space::PAGE_SIZE as usize];
    for addr in replay.mem.page_addresses() {
        if replay.mem.read(addr, &mut page).is_ok() {
            digest.pages.push((addr, fnv1a(FNV_OFFSET, &page)));
        }
    }
    digest
}

/// A text field without the separators of the text form.
fn clean(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

impl Digest {
    /// The text form (`gtsim-digest 1`).
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut o = String::from("gtsim-digest 1\n");
        for d in &self.draws {
            let [v, p, px, th, ins] = d.ran;
            let _ = writeln!(
                o,
                "draw\t{}\t{}\t{:#x}\t{v}\t{p}\t{px}\t{th}\t{ins}\t{:016x}\t{}",
                d.index,
                d.submission,
                d.addr,
                d.state,
                d.error.as_deref().map_or("-".into(), clean)
            );
            for t in &d.targets {
                let _ = writeln!(
                    o,
                    "target\t{}\t{:#x}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    clean(&t.what),
                    t.base,
                    t.lod,
                    t.slice,
                    t.format,
                    t.size.0,
                    t.size.1,
                    t.samples,
                    t.block.0,
                    t.block.1,
                    t.block.2,
                    t.hash.map_or("-".into(), |h| format!("{h:016x}"))
                );
            }
        }
        for (s, why) in &self.hangs {
            let _ = writeln!(o, "hang\t{s}\t{}", clean(why));
        }
        for (a, h) in &self.pages {
            let _ = writeln!(o, "page\t{a:#x}\t{h:016x}");
        }
        if let Some(det) = &self.detail {
            let _ = writeln!(o, "detail\t{}", det.draw);
            for (k, v) in &det.state {
                let _ = writeln!(o, "field\t{}\t{}", clean(k), clean(v));
            }
            for (i, rows) in det.rows.iter().enumerate() {
                for (y, r) in rows.iter().enumerate() {
                    let hex: String = r.iter().map(|b| format!("{b:02x}")).collect();
                    let _ = writeln!(o, "row\t{i}\t{y}\t{hex}");
                }
            }
        }
        o
    }

    /// Reads the text form; the error names the line and what is wrong with it.
    pub fn from_text(text: &str) -> Result<Digest, DigestError> {
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, "gtsim-digest 1")) => {}
            _ => {
                return Err(DigestError {
                    line: 1,
                    why: "not a gtsim digest (the first line must be `gtsim-digest 1`)".into(),
                });
            }
        }
        let mut d = Digest::default();
        for (n, line) in lines {
            let err = |why: String| DigestError { line: n + 1, why };
            let f: Vec<&str> = line.split('\t').collect();
            let num = |i: usize| -> Result<u64, DigestError> {
                let s = f.get(i).copied().unwrap_or("");
                let v = match s.strip_prefix("0x") {
                    Some(h) => u64::from_str_radix(h, 16),
                    None => s.parse(),
                };
                v.map_err(|_| err(format!("field {} ({s:?}) is not a number", i + 1)))
            };
            let hex = |i: usize| -> Result<u64, DigestError> {
                let s = f.get(i).copied().unwrap_or("");
                u64::from_str_radix(s, 16)
                    .map_err(|_| err(format!("field {} ({s:?}) is not a hash", i + 1)))
            };
            let want = |k: usize| {
                if f.len() == k {
                    Ok(())
                } else {
                    Err(err(format!("{} has {} fields, not {k}", f[0], f.len())))
                }
            };
            let small = |v: u64| u32::try_from(v).map_err(|_| err(format!("{v} is too large")));
            match f[0] {
                "draw" => {
                    want(11)?;
                    d.draws.push(DrawDigest {
                        index: num(1)? as usize,
                        submission: num(2)? as usize,
                        addr: num(3)?,
                        ran: [num(4)?, num(5)?, num(6)?, num(7)?, num(8)?],
                        state: hex(9)?,
                        error: (f[10] != "-").then(|| f[10].to_string()),
                        targets: vec![],
                    });
                }
                "target" => {
                    want(13)?;
                    let t = TargetDigest {
                        what: f[1].to_string(),
                        base: num(2)?,
                        lod: small(num(3)?)?,
                        slice: small(num(4)?)?,
                        format: f[5].to_string(),
                        size: (small(num(6)?)?, small(num(7)?)?),
                        samples: small(num(8)?)?,
                        block: (small(num(9)?)?, small(num(10)?)?, small(num(11)?)?),
                        hash: if f[12] == "-" { None } else { Some(hex(12)?) },
                    };
                    d.draws
                        .last_mut()
                        .ok_or_else(|| err("a target before any draw".into()))?
                        .targets
                        .push(t);
                }
                "hang" => {
                    want(3)?;
                    d.hangs.push((num(1)? as usize, f[2].to_string()));
                }
                "page" => {
                    want(3)?;
                    d.pages.push((num(1)?, hex(2)?));
                }
                "detail" => {
                    want(2)?;
                    d.detail = Some(Detail {
                        draw: num(1)? as usize,
                        ..Detail::default()
                    });
                }
                "field" => {
                    want(3)?;
                    let det = d
                        .detail
                        .as_mut()
                        .ok_or_else(|| err("a field before `detail`".into()))?;
                    det.state.push((f[1].to_string(), f[2].to_string()));
                }
                "row" => {
                    want(4)?;
                    let (i, y) = (num(1)? as usize, num(2)? as usize);
                    let det = d
                        .detail
                        .as_mut()
                        .ok_or_else(|| err("a row before `detail`".into()))?;
                    let bytes = (0..f[3].len() / 2)
                        .map(|k| u8::from_str_radix(f[3].get(2 * k..2 * k + 2).unwrap_or(""), 16))
                        .collect::<Result<Vec<u8>, _>>()
                        .ok()
                        .filter(|_| f[3].len().is_multiple_of(2))
                        .ok_or_else(|| err("a row whose bytes are not hex".into()))?;
                    // Rows come in order, target by target (a target over budget has
                    // none): anything else is refused rather than stored sparse.
                    if i + 1 < det.rows.len() || i >= det.rows.len() && y != 0 || i > 4096 {
                        return Err(err(format!("row {y} of target {i} out of order")));
                    }
                    det.rows.resize_with(det.rows.len().max(i + 1), Vec::new);
                    let rows = &mut det.rows[i];
                    if rows.len() != y {
                        return Err(err(format!("row {y} of target {i} out of order")));
                    }
                    rows.push(bytes);
                }
                other => return Err(err(format!("unknown record {other:?}"))),
            }
        }
        Ok(d)
    }
}

/// A digest's text that does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("digest line {line}: {why}")]
pub struct DigestError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub why: String,
}
