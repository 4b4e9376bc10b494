//! The observer that records a replay for the report: every submission's commands, and
//! for each draw its state, the pictures of what it read and wrote, its kernels, counts
//! and times; for each hang the moment it happened.
//!
//! Work and memory stay bounded whatever the capture: at most [`MAX_COMMANDS`] commands
//! are listed per submission and [`MAX_DRAWS`] draws recorded in full (later ones keep
//! their counts); a draw's page is written when the next draw starts and a submission's
//! when the next submission starts, and only what the index needs is kept of them;
//! pictures are charged to the budgets of [`crate::image`]; a surface's pictures are
//! taken once until a draw writes it or a new submission starts (the CPU may have written
//! it between submissions); each kernel is disassembled once per contents.

use crate::image::{Images, Kind, Shade};
use crate::model::{
    BoundSurface, Command, Draw, HangPage, Picture, Report, Shader, Structure, Submission, Written,
};
use crate::shader::Shaders;
use crate::state::fields;
use gtsim_gpu::device::observe::{DrawOutcome, DrawView, Observer};
use gtsim_gpu::device::{Hang, Ring};
use gtsim_mem::Memory;
use gtsim_mem::surface::Surface;
use gtsim_pipe3d::state::{DrawState, ShaderStage};
use gtsim_spec::shared::SurfaceFormat;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Commands listed per submission.
pub const MAX_COMMANDS: usize = 65_536;
/// Draws recorded in full.
pub const MAX_DRAWS: usize = 4096;
/// Commands shown after the one that hung.
const AFTER: usize = 8;
/// Dwords shown from the address that hung.
const RAW: u64 = 16;

/// Records a replay into a [`Report`], writing pictures as it goes.
pub struct Recorder {
    /// What has been recorded.
    pub report: Report,
    images: Images,
    shaders: Shaders,
    /// Pictures of surfaces taken since the last submission started, by surface (address,
    /// layout, format); dropped when a draw writes the address.
    surfaces: HashMap<(u64, String), Vec<Picture>>,
    pending: Option<Pending>,
    /// Where the pages go.
    dir: std::path::PathBuf,
    /// The last draw recorded in full, whose page is not written yet.
    open_draw: Option<usize>,
    /// The first error writing a page.
    io_error: Option<std::io::Error>,
}

/// A render target, depth or stencil image: the surface, its level and slice.
type View = (Surface, u32, u32);

/// What a draw's start left for its end.
struct Pending {
    state: Option<DrawState>,
    stages: Vec<StageKernels>,
    /// The pixel shader's render targets before the draw, by address, level and slice:
    /// the binding table entry, the target and its picture.
    before: BTreeMap<(u64, u32, u32), (u8, View, Picture)>,
    depth: Option<(View, Picture)>,
    stencil: Option<(View, Picture)>,
}

impl Recorder {
    /// A recorder writing pictures under `dir`.
    pub fn new(source: String, dir: std::path::PathBuf) -> Recorder {
        Recorder {
            report: Report {
                source,
                ..Report::default()
            },
            images: Images::new(dir.clone()),
            shaders: Shaders::default(),
            surfaces: HashMap::new(),
            pending: None,
            dir,
            open_draw: None,
            io_error: None,
        }
    }

    fn keep_error(&mut self, r: std::io::Result<()>) {
        if let Err(e) = r
            && self.io_error.is_none()
        {
            self.io_error = Some(e);
        }
    }

    /// Writes the open draw's page (`has_next`: another draw follows) and keeps only
    /// what the index needs of it.
    fn flush_draw(&mut self, has_next: bool) {
        let Some(i) = self.open_draw.take() else {
            return;
        };
        let page = crate::html::draw_page(i, &self.report.draws[i], has_next);
        let r = std::fs::write(self.dir.join(format!("draw-{i}.html")), page);
        self.keep_error(r);
        self.report.draws[i].light();
    }

    /// Writes the last submission's page and drops its commands.
    fn flush_submission(&mut self) {
        let Some(i) = self.report.submissions.len().checked_sub(1) else {
            return;
        };
        let page = crate::html::submission_page(&self.report, i);
        let r = std::fs::write(self.dir.join(format!("submission-{i}.html")), page);
        self.keep_error(r);
        self.report.submissions[i].commands = vec![];
    }

    /// The report, every page of a draw and a submission written.
    pub fn finish(mut self) -> std::io::Result<Report> {
        self.flush_draw(false);
        self.flush_submission();
        match self.io_error {
            Some(e) => Err(e),
            None => Ok(self.report),
        }
    }

    fn submission(&mut self) -> &mut Submission {
        if self.report.submissions.is_empty() {
            self.report.submissions.push(Submission::default());
        }
        self.report
            .submissions
            .last_mut()
            .expect("one pushed above")
    }

    /// Every level and slice of `surface`, taken once per submission until written.
    fn surface_pictures(&mut self, mem: &dyn Memory, surface: &Surface) -> Vec<Picture> {
        let key = (
            surface.base,
            format!("{:?} {:?}", surface.desc, surface.format),
        );
        if let Some(p) = self.surfaces.get(&key) {
            return p.clone();
        }
        let p = self.images.all(mem, surface, Shade::Colour);
        self.surfaces.insert(key, p.clone());
        p
    }
}

/// One shader stage of a draw: its kernels and the binding table entries they reach.
struct StageKernels {
    stage: ShaderStage,
    name: &'static str,
    binding_table: u64,
    /// The stage's Binding Table Entry Count (a prefetch hint; may be 0).
    count: u8,
    shaders: Vec<Shader>,
}

impl StageKernels {
    /// The entries the kernels' messages name (`rt`: only their render target writes);
    /// with a register descriptor among them, also every entry the count declares.
    fn entries(&self, rt: bool) -> BTreeSet<u8> {
        let mut e: BTreeSet<u8> = self
            .shaders
            .iter()
            .flat_map(|s| {
                if rt {
                    s.render_targets.iter()
                } else {
                    s.bindings.iter()
                }
            })
            .copied()
            .collect();
        if self.shaders.iter().any(|s| s.indirect) {
            e.extend(0..self.count);
        }
        e
    }
}

/// Each shader stage the draw runs, with its kernels disassembled.
fn stage_kernels(
    shaders: &mut Shaders,
    st: &DrawState,
    view: &DrawView,
    mem: &dyn Memory,
) -> Vec<StageKernels> {
    let s = view.state;
    let enc = st.encoding;
    let mut k = |addr: u64, label: String| shaders.shader(mem, enc, addr, label);
    let mut out = vec![];
    if let Some(kp) = st.vs.kernel {
        out.push(StageKernels {
            stage: ShaderStage::Vertex,
            name: "vertex shader",
            binding_table: st.vs.resources.binding_table,
            count: s
                .and_then(|s| s.vs.as_ref())
                .map_or(0, |c| c.binding_table_entry_count),
            shaders: vec![k(
                kp.address,
                if st.vs.simd8 {
                    "vertex shader, SIMD8"
                } else {
                    "vertex shader, SIMD4x2"
                }
                .into(),
            )],
        });
    }
    if let Some(t) = &st.tess {
        out.push(StageKernels {
            stage: ShaderStage::Hull,
            name: "hull shader",
            binding_table: t.hs.resources.binding_table,
            count: s
                .and_then(|s| s.hs.as_ref())
                .map_or(0, |c| c.binding_table_entry_count),
            shaders: vec![k(t.hs.kernel.address, "hull shader".into())],
        });
        out.push(StageKernels {
            stage: ShaderStage::Domain,
            name: "domain shader",
            binding_table: t.ds.resources.binding_table,
            count: s
                .and_then(|s| s.ds.as_ref())
                .map_or(0, |c| c.binding_table_entry_count),
            shaders: vec![k(t.ds.kernel.address, "domain shader".into())],
        });
    }
    if let Some(g) = &st.gs {
        out.push(StageKernels {
            stage: ShaderStage::Geometry,
            name: "geometry shader",
            binding_table: g.resources.binding_table,
            count: s
                .and_then(|s| s.gs.as_ref())
                .map_or(0, |c| c.binding_table_entry_count),
            shaders: vec![k(
                g.kernel.address,
                format!("geometry shader, {:?}", g.dispatch),
            )],
        });
    }
    if !st.ps.kernels.is_empty() {
        let kernels: Vec<Shader> = st
            .ps
            .kernels
            .iter()
            .map(|p| k(p.kernel.address, format!("pixel shader, SIMD{}", p.simd)))
            .collect();
        out.push(StageKernels {
            stage: ShaderStage::Pixel,
            name: "pixel shader",
            binding_table: st.ps.resources.binding_table,
            count: s
                .and_then(|s| s.ps.as_ref())
                .map_or(0, |c| c.binding_table_entry_count),
            shaders: kernels,
        });
    }
    out
}

/// The depth buffer's depth and stencil images as surfaces the texel codecs read.
pub(crate) fn depth_surfaces(st: &DrawState) -> (Option<View>, Option<View>) {
    use gtsim_dataport::depth_stencil::DepthFormat;
    let Some(d) = &st.depth else {
        return (None, None);
    };
    let format = match d.format {
        DepthFormat::D32Float => SurfaceFormat::R32_FLOAT,
        DepthFormat::D24Unorm => SurfaceFormat::R24_UNORM_X8_TYPELESS,
        DepthFormat::D16Unorm => SurfaceFormat::R16_UNORM,
    };
    let depth = Surface::new(d.base, d.desc, format)
        .ok()
        .map(|s| (s, d.lod, d.slice));
    let stencil = d.stencil.and_then(|(base, desc)| {
        Surface::new(base, desc, SurfaceFormat::R8_UINT)
            .ok()
            .map(|s| (s, d.lod, d.slice))
    });
    (depth, stencil)
}

impl Recorder {
    /// The pictures, surfaces and kernels of a draw about to run.
    fn begin_full(&mut self, draw: &mut Draw, view: &DrawView, mem: &dyn Memory) -> Pending {
        let st = match view.front.draw_state(mem) {
            Ok(st) => st,
            Err(e) => {
                draw.notes.push(format!("the draw's state: {e}"));
                None
            }
        };
        let mut pending = Pending {
            state: None,
            stages: vec![],
            before: BTreeMap::new(),
            depth: None,
            stencil: None,
        };
        let Some(st) = st else {
            return pending;
        };
        pending.stages = stage_kernels(&mut self.shaders, &st, view, mem);
        // The render targets the pixel shader's render target writes name.
        let rts = pending
            .stages
            .iter()
            .find(|k| k.stage == ShaderStage::Pixel)
            .map(|k| k.entries(true))
            .unwrap_or_default();
        for bti in rts {
            if let Ok(Some(rt)) = view.front.render_target(mem, bti, 0)
                && !rt.is_null()
            {
                let key = (rt.surface.base, rt.lod, rt.min_array_element);
                if pending.before.contains_key(&key) {
                    continue;
                }
                let mut p = self.images.picture(
                    mem,
                    &rt.surface,
                    (rt.lod, rt.min_array_element),
                    (Shade::Colour, Kind::Written),
                    "before".into(),
                );
                if rt.mcs.is_some() {
                    p.note = Some(
                        "multisample control surface not applied: cleared samples show \
                         the plane's stale contents"
                            .into(),
                    );
                }
                pending
                    .before
                    .insert(key, (bti, (rt.surface, rt.lod, rt.min_array_element), p));
            }
        }
        let (depth, stencil) = depth_surfaces(&st);
        let mut before = |v: Option<View>, shade: Shade| {
            v.map(|(s, lod, slice)| {
                let p = self.images.picture(
                    mem,
                    &s,
                    (lod, slice),
                    (shade, Kind::Written),
                    "before".into(),
                );
                ((s, lod, slice), p)
            })
        };
        pending.depth = before(depth, Shade::Depth);
        pending.stencil = before(stencil, Shade::Stencil);
        pending.state = Some(st);
        pending
    }

    /// What a draw wrote, its surfaces, kernels and indirect state.
    fn end_full(
        &mut self,
        draw: &mut Draw,
        pending: Pending,
        view: &DrawView,
        mem: &dyn Memory,
        outcome: &DrawOutcome,
    ) {
        // The render targets written; a draw that hung has none in its outcome, so the
        // targets it may have written are pictured as it left them.
        let targets: Vec<(u8, View)> = if outcome.error.is_none() {
            outcome
                .targets
                .iter()
                .map(|t| {
                    let key = (t.surface.base, t.lod, t.min_array_element);
                    let bti = pending.before.get(&key).map_or(u8::MAX, |b| b.0);
                    (bti, (t.surface, t.lod, t.min_array_element))
                })
                .collect()
        } else {
            pending
                .before
                .values()
                .map(|(bti, v, _)| (*bti, *v))
                .collect()
        };
        for (bti, (surface, lod, slice)) in targets {
            // The pictures of a render target are clickable (`crate::trace_page`).
            let target = Some(crate::trace_page::PictureTarget {
                base: surface.base,
                lod,
                slice,
            });
            let mut after = self.images.picture(
                mem,
                &surface,
                (lod, slice),
                (Shade::Colour, Kind::Written),
                "after".into(),
            );
            after.target = target;
            let before = match pending.before.get(&(surface.base, lod, slice)) {
                Some((_, _, p)) => Picture {
                    target,
                    ..p.clone()
                },
                None => Picture {
                    label: "before".into(),
                    size: after.size,
                    note: Some("not captured".into()),
                    ..Picture::default()
                },
            };
            self.surfaces.retain(|(base, _), _| *base != surface.base);
            draw.written.push(Written {
                what: if bti == u8::MAX {
                    "render target".into()
                } else {
                    format!("render target (binding table entry {bti})")
                },
                addr: surface.base,
                format: surface.format.name().unwrap_or("?").to_string(),
                before,
                after,
            });
        }
        // A multisampled depth buffer keeps its samples interleaved in one plane, which
        // is what is shown.
        let samples = pending
            .state
            .as_ref()
            .and_then(|st| st.depth.as_ref())
            .map_or(1, |d| d.samples);
        let plane = if samples > 1 {
            format!(" (the plane of its {samples} interleaved samples)")
        } else {
            String::new()
        };
        for (what, shade, buffer) in [
            ("depth buffer", Shade::Depth, &pending.depth),
            ("stencil buffer", Shade::Stencil, &pending.stencil),
        ] {
            if let Some(((s, lod, slice), before)) = buffer {
                let after = self.images.picture(
                    mem,
                    s,
                    (*lod, *slice),
                    (shade, Kind::Written),
                    "after".into(),
                );
                let unchanged = after.file.is_some() && after.file == before.file;
                self.surfaces.retain(|(base, _), _| *base != s.base);
                draw.written.push(Written {
                    what: format!(
                        "{what}{plane}{}",
                        if unchanged { ", unchanged" } else { "" }
                    ),
                    addr: s.base,
                    format: s.format.name().unwrap_or("?").to_string(),
                    before: before.clone(),
                    after,
                });
            }
        }
        for k in &pending.stages {
            if k.shaders.iter().any(|s| s.indirect) && k.count == 0 {
                draw.notes.push(format!(
                    "a {} message takes its descriptor from a register and Binding Table \
                     Entry Count is 0: the entries it reaches are not known here",
                    k.name
                ));
            }
            for bti in k.entries(false) {
                self.bound_surface(draw, k, bti, view, mem);
            }
        }
        // The indirect state the pointers reach, and the sampler states the kernels
        // name, with their stages.
        let samplers: Vec<(&'static str, Vec<u8>)> = pending
            .stages
            .iter()
            .filter_map(|k| {
                let group = match k.stage {
                    ShaderStage::Vertex => "Vertex shader",
                    ShaderStage::Geometry => "Geometry shader",
                    ShaderStage::Pixel => "Windower and pixel shader",
                    _ => return None,
                };
                let i: BTreeSet<u8> = k
                    .shaders
                    .iter()
                    .flat_map(|s| s.samplers.iter().copied())
                    .collect();
                Some((group, i.into_iter().collect()))
            })
            .collect();
        let rts = draw
            .written
            .iter()
            .filter(|w| w.what.starts_with("render target"))
            .count();
        if let Some(state) = view.state {
            crate::state::add_indirect(&mut draw.state, mem, state, &samplers, rts);
        } else if let Some(state) = view
            .latched
            .as_any()
            .downcast_ref::<gtsim_gen11::LatchedState>()
        {
            crate::state::add_indirect_gen11(&mut draw.state, mem, state, &samplers, rts);
        }
        draw.shaders = pending.stages.into_iter().flat_map(|k| k.shaders).collect();
    }

    /// Binding table entry `bti` of stage `k`: its surface state and pictures.
    fn bound_surface(
        &mut self,
        draw: &mut Draw,
        k: &StageKernels,
        bti: u8,
        view: &DrawView,
        mem: &dyn Memory,
    ) {
        let unread = |draw: &mut Draw| {
            draw.notes.push(format!(
                "{} binding table entry {bti}: its surface state does not read",
                k.name
            ));
        };
        // Gen7 reads its typed surface state; another generation's front gives the
        // dwords, named by that generation's tables.
        let (addr, fields_of, summary) = match view.state {
            Some(state) => {
                let Ok((addr, rss)) = gtsim_gen7::surface_state(mem, state, k.binding_table, bti)
                else {
                    return unread(draw);
                };
                let summary = format!(
                    "{} {}x{}x{} {}, {} levels",
                    rss.surface_type.name().unwrap_or("?"),
                    u32::from(rss.width) + 1,
                    u32::from(rss.height) + 1,
                    u32::from(rss.depth) + 1,
                    rss.surface_format.name().unwrap_or("?"),
                    u32::from(rss.mip_count_lod) + 1,
                );
                let fields_of = rss.pack().map(|dw| fields("RENDER_SURFACE_STATE", &dw));
                (addr, fields_of.ok(), summary)
            }
            None => {
                let Some((addr, dw)) = view.front.surface_state(k.stage, mem, bti) else {
                    return unread(draw);
                };
                let fields_of =
                    crate::state::fields_in(view.latched.generation(), "RENDER_SURFACE_STATE", &dw);
                (addr, Some(fields_of), String::new())
            }
        };
        let note = |n: String| {
            vec![Picture {
                label: "contents".into(),
                note: Some(n),
                ..Picture::default()
            }]
        };
        use gtsim_dataport::dc::DataSurface as D;
        let surface = view.front.data_surface(k.stage, mem, bti, 0);
        // A summary from the surface the front resolved, where the state did not give one.
        let summary = match (&surface, summary.is_empty()) {
            (Ok(D::Image { surface: s, .. }), true) => format!(
                "{:?} {}x{}x{} {}, {} levels",
                s.desc.ty,
                s.desc.width,
                s.desc.height,
                s.desc.depth,
                s.format.name().unwrap_or("?"),
                s.desc.levels,
            ),
            (Ok(D::Null), true) => "SURFTYPE_NULL".into(),
            (Ok(D::Buffer { entries, .. } | D::Structured { entries, .. }), true) => {
                format!("a buffer of {entries} entries")
            }
            _ => summary,
        };
        let pictures = match surface {
            Ok(D::Image { surface, .. }) => self.surface_pictures(mem, &surface),
            Ok(D::Null) => note("a null surface".into()),
            Ok(D::Buffer { entries, .. }) => note(format!("a buffer of {entries} entries")),
            Ok(D::Structured { entries, .. }) => {
                note(format!("a structured buffer of {entries} entries"))
            }
            Err(e) => note(e.to_string()),
        };
        draw.surfaces.push(BoundSurface {
            stage: k.name,
            bti,
            state_addr: addr,
            summary,
            state: Structure {
                name: "RENDER_SURFACE_STATE".into(),
                fields: fields_of.unwrap_or_default(),
            },
            pictures,
        });
    }
}

impl Observer for Recorder {
    fn submission(&mut self, ring: Ring, ctx: u32, batch: u64) {
        self.flush_submission();
        // The CPU may have written anything since the last submission.
        self.surfaces.clear();
        self.report.submissions.push(Submission {
            ring: match ring {
                Ring::Render => "render",
                Ring::Blitter => "blitter",
                Ring::VideoEnhance => "video enhancement",
            },
            context: ctx,
            batch,
            ..Submission::default()
        });
    }

    fn command(&mut self, addr: u64, def: &'static gtsim_spec::table::Def, dw: &[u32]) {
        let sub = self.submission();
        sub.count += 1;
        if sub.commands.len() < MAX_COMMANDS {
            sub.commands.push(Command {
                addr,
                name: def.name,
                dwords: dw.to_vec(),
                draw: None,
            });
        } else {
            sub.unlisted += 1;
        }
    }

    fn draw_begin(&mut self, view: &DrawView, mem: &dyn Memory) {
        self.flush_draw(true);
        self.submission().draws += 1;
        let submission = self.report.submissions.len().saturating_sub(1);
        let index = self.report.draws.len();
        // Once a command is left unlisted, every later one of the submission is.
        let listed = self.submission().unlisted == 0;
        let primitive = match self.submission().commands.last_mut() {
            Some(c) if listed => {
                c.draw = Some(index);
                fields(c.name, &c.dwords)
            }
            _ => vec![],
        };
        let mut draw = Draw {
            submission,
            addr: view.addr,
            primitive,
            ..Draw::default()
        };
        self.pending = if index < MAX_DRAWS {
            // The latched state by stage, whatever the generation (the indirect state
            // and bound surfaces are added for Gen7 below).
            draw.state =
                crate::state::groups_of(view.latched.generation(), &view.latched.commands());
            self.open_draw = Some(index);
            Some(self.begin_full(&mut draw, view, mem))
        } else {
            draw.summary_only = true;
            None
        };
        self.report.draws.push(draw);
    }

    fn draw_end(&mut self, view: &DrawView, mem: &dyn Memory, outcome: &DrawOutcome) {
        let Some(mut draw) = self.report.draws.pop() else {
            return;
        };
        draw.stats = *outcome.stats;
        draw.ran = outcome.ran;
        draw.times = *outcome.times;
        draw.error = outcome.error.map(|e| e.to_string());
        if let Some(pending) = self.pending.take() {
            self.end_full(&mut draw, pending, view, mem, outcome);
        }
        self.report.draws.push(draw);
    }

    fn hang(&mut self, hang: &Hang, latched: &dyn gtsim_gpu::device::Latched, mem: &dyn Memory) {
        let submission = self.report.submissions.len().saturating_sub(1);
        let index = self.report.hangs.len();
        let listed = self.submission().unlisted == 0;
        let runaway = matches!(hang, Hang::Runaway { .. });
        let sub = self.submission();
        sub.hang = Some(index);
        // The command that hung, when it was fetched and listed (an unknown or unreadable
        // one was not; a runaway batch names where it started).
        let command = sub
            .commands
            .len()
            .checked_sub(1)
            .filter(|&c| listed && !runaway && sub.commands[c].addr == hang.addr());
        let draw = command.and_then(|c| sub.commands[c].draw);
        // The listed commands before it, and it.
        let upto = command.map_or(sub.commands.len(), |c| c + 1);
        let before: Vec<Command> = sub.commands[upto.saturating_sub(17)..upto].to_vec();
        let command = command.map(|_| before.len() - 1);
        let mut reason = hang.to_string();
        let mut source = std::error::Error::source(hang);
        while let Some(s) = source {
            let text = s.to_string();
            if !reason.contains(&text) {
                reason.push_str(&format!(": {text}"));
            }
            source = s.source();
        }
        // The commands after the one that hung, as they are in memory (not executed).
        let mut after = vec![];
        let mut at = match command {
            Some(c) => {
                let c = &before[c];
                c.addr.checked_add(4 * c.dwords.len() as u64)
            }
            None if runaway => None,
            None => Some(hang.addr()),
        };
        while let Some(addr) = at {
            if after.len() == AFTER {
                break;
            }
            let Ok(dw0) = mem.read_u32(addr) else {
                break;
            };
            let Some(def) = latched.generation().identify(dw0) else {
                break;
            };
            let len = def.length(dw0).unwrap_or(1).clamp(1, 1024);
            let Ok(dwords) = mem.read_dwords(addr, len) else {
                break;
            };
            after.push(Command {
                addr,
                name: def.name,
                dwords,
                draw: None,
            });
            at = addr.checked_add(4 * len as u64);
        }
        let raw: Vec<u32> = (0..RAW)
            .map_while(|i| {
                let a = hang.addr().checked_add(4 * i)?;
                mem.read_u32(a).ok()
            })
            .collect();
        let mut state_groups = crate::state::groups_of(latched.generation(), &latched.commands());
        // The indirect state the pointers reach, where the front's reads are modelled.
        if let Some(state) = latched.as_any().downcast_ref::<gtsim_gen7::LatchedState>() {
            crate::state::add_indirect(&mut state_groups, mem, state, &[], 1);
        } else if let Some(state) = latched.as_any().downcast_ref::<gtsim_gen11::LatchedState>() {
            crate::state::add_indirect_gen11(&mut state_groups, mem, state, &[], 1);
        }
        self.report.hangs.push(HangPage {
            submission,
            before,
            command,
            runaway,
            reason,
            draw,
            state: state_groups,
            after,
            addr: hang.addr(),
            raw,
        });
    }
}
