//! The observer that records a replay for the report: every submission's commands, and
//! for each draw its state, the pictures of what it read and wrote, its kernels, counts
//! and times; for each hang the moment it happened.

use crate::image::{Images, Shade};
use crate::model::{
    BoundSurface, Command, Draw, HangPage, Picture, Report, Shader, Structure, Submission, Written,
};
use crate::state::{fields, groups};
use gtsim_gpu::device::observe::{DrawOutcome, DrawView, Observer};
use gtsim_gpu::device::{Hang, Ring};
use gtsim_mem::Memory;
use gtsim_mem::surface::Surface;
use gtsim_pipe3d::state::{DrawState, ShaderStage};
use gtsim_spec::gen7::GENERATION;
use gtsim_spec::shared::SurfaceFormat;
use std::collections::{BTreeMap, BTreeSet};

/// Commands shown after the one that hung.
const AFTER: usize = 8;

/// Dwords shown from the address that hung.
const RAW: u64 = 16;

/// Records a replay into a [`Report`], writing pictures as it goes.
pub struct Recorder {
    /// What has been recorded.
    pub report: Report,
    images: Images,
    pending: Option<Pending>,
}

/// What a draw's start left for its end.
struct Pending {
    state: Option<DrawState>,
    stages: Vec<StageKernels>,
    /// Before-pictures of the pixel shader's possible render targets, by address.
    before: BTreeMap<u64, (u8, Picture)>,
    depth: Option<(Surface, u32, u32, Picture)>,
    stencil: Option<(Surface, u32, u32, Picture)>,
}

impl Recorder {
    /// A recorder writing pictures under `dir`.
    pub fn new(source: String, dir: std::path::PathBuf) -> Recorder {
        Recorder {
            report: Report {
                source,
                ..Report::default()
            },
            images: Images::new(dir),
            pending: None,
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
    /// The entries the kernels' messages name; with a register descriptor among them,
    /// also every entry the count declares.
    fn entries(&self) -> BTreeSet<u8> {
        let mut e: BTreeSet<u8> = self
            .shaders
            .iter()
            .flat_map(|s| s.bindings.iter().copied())
            .collect();
        if self.shaders.iter().any(|s| s.indirect) {
            e.extend(0..self.count);
        }
        e
    }
}

/// Each shader stage the draw runs, with its kernels disassembled.
fn stage_kernels(st: &DrawState, view: &DrawView, mem: &dyn Memory) -> Vec<StageKernels> {
    let s = view.state;
    let enc = st.encoding;
    let k = |addr: u64, label: String| crate::shader::shader(mem, enc, addr, label);
    let mut out = vec![];
    if let Some(kp) = st.vs.kernel {
        out.push(StageKernels {
            stage: ShaderStage::Vertex,
            name: "vertex shader",
            binding_table: st.vs.resources.binding_table,
            count: s.vs.as_ref().map_or(0, |c| c.binding_table_entry_count),
            shaders: vec![k(kp.address, "vertex shader, SIMD4x2".into())],
        });
    }
    if let Some(t) = &st.tess {
        out.push(StageKernels {
            stage: ShaderStage::Hull,
            name: "hull shader",
            binding_table: t.hs.resources.binding_table,
            count: s.hs.as_ref().map_or(0, |c| c.binding_table_entry_count),
            shaders: vec![k(t.hs.kernel.address, "hull shader".into())],
        });
        out.push(StageKernels {
            stage: ShaderStage::Domain,
            name: "domain shader",
            binding_table: t.ds.resources.binding_table,
            count: s.ds.as_ref().map_or(0, |c| c.binding_table_entry_count),
            shaders: vec![k(t.ds.kernel.address, "domain shader".into())],
        });
    }
    if let Some(g) = &st.gs {
        out.push(StageKernels {
            stage: ShaderStage::Geometry,
            name: "geometry shader",
            binding_table: g.resources.binding_table,
            count: s.gs.as_ref().map_or(0, |c| c.binding_table_entry_count),
            shaders: vec![k(
                g.kernel.address,
                format!("geometry shader, {:?}", g.dispatch),
            )],
        });
    }
    if !st.ps.kernels.is_empty() {
        out.push(StageKernels {
            stage: ShaderStage::Pixel,
            name: "pixel shader",
            binding_table: st.ps.resources.binding_table,
            count: s.ps.as_ref().map_or(0, |c| c.binding_table_entry_count),
            shaders: st
                .ps
                .kernels
                .iter()
                .map(|p| k(p.kernel.address, format!("pixel shader, SIMD{}", p.simd)))
                .collect(),
        });
    }
    out
}

/// A surface with the level and slice a draw uses.
type View = (Surface, u32, u32);

/// The depth buffer's depth and stencil images as surfaces the texel codecs read.
fn depth_surfaces(st: &DrawState) -> (Option<View>, Option<View>) {
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

impl Observer for Recorder {
    fn submission(&mut self, ring: Ring, ctx: u32, batch: u64) {
        self.report.submissions.push(Submission {
            ring: match ring {
                Ring::Render => "render",
                Ring::Blitter => "blitter",
            },
            context: ctx,
            batch,
            ..Submission::default()
        });
    }

    fn command(&mut self, addr: u64, def: &'static gtsim_spec::table::Def, dw: &[u32]) {
        self.submission().commands.push(Command {
            addr,
            name: def.name,
            dwords: dw.to_vec(),
            draw: None,
        });
    }

    fn draw_begin(&mut self, view: &DrawView, mem: &dyn Memory) {
        let submission = self.report.submissions.len().saturating_sub(1);
        let index = self.report.draws.len();
        let primitive = self
            .submission()
            .commands
            .last_mut()
            .map(|c| {
                c.draw = Some(index);
                fields(c.name, &c.dwords)
            })
            .unwrap_or_default();
        let mut draw = Draw {
            submission,
            addr: view.addr,
            primitive,
            state: groups(view.state),
            ..Draw::default()
        };
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
        if let Some(st) = &st {
            pending.stages = stage_kernels(st, view, mem);
            // The render targets the pixel shader may write: the entries its messages
            // name that are render targets.
            let ps = pending
                .stages
                .iter()
                .find(|k| k.stage == ShaderStage::Pixel)
                .map(StageKernels::entries)
                .unwrap_or_default();
            for bti in ps {
                if let Ok(Some(rt)) = view.front.render_target(mem, bti, 0) {
                    let p = self.images.picture(
                        mem,
                        &rt.surface,
                        (rt.lod, rt.min_array_element),
                        Shade::Colour,
                        "before".into(),
                    );
                    pending.before.entry(rt.surface.base).or_insert((bti, p));
                }
            }
            let (depth, stencil) = depth_surfaces(st);
            pending.depth = depth.map(|(s, lod, slice)| {
                let p = self
                    .images
                    .picture(mem, &s, (lod, slice), Shade::Depth, "before".into());
                (s, lod, slice, p)
            });
            pending.stencil = stencil.map(|(s, lod, slice)| {
                let p = self
                    .images
                    .picture(mem, &s, (lod, slice), Shade::Stencil, "before".into());
                (s, lod, slice, p)
            });
        }
        pending.state = st;
        self.pending = Some(pending);
        self.report.draws.push(draw);
    }

    fn draw_end(&mut self, view: &DrawView, mem: &dyn Memory, outcome: &DrawOutcome) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        let mut draw = self.report.draws.pop().unwrap_or_default();
        draw.stats = *outcome.stats;
        draw.times = *outcome.times;
        draw.error = outcome.error.map(|e| e.to_string());
        let mut written_bases = vec![];
        for t in outcome.targets {
            let after = self.images.picture(
                mem,
                &t.surface,
                (t.lod, t.min_array_element),
                Shade::Colour,
                "after".into(),
            );
            let (bti, before) = match pending.before.get(&t.surface.base) {
                Some((bti, p)) => (Some(*bti), p.clone()),
                None => (
                    None,
                    Picture {
                        label: "before".into(),
                        size: after.size,
                        note: Some("not captured".into()),
                        ..Picture::default()
                    },
                ),
            };
            written_bases.push(t.surface.base);
            draw.written.push(Written {
                what: match bti {
                    Some(b) => format!("render target (binding table entry {b})"),
                    None => "render target".into(),
                },
                addr: t.surface.base,
                format: t.surface.format.name().unwrap_or("?").to_string(),
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
            if let Some((s, lod, slice, before)) = buffer {
                let what = format!("{what}{plane}");
                let after = self
                    .images
                    .picture(mem, s, (*lod, *slice), shade, "after".into());
                draw.written.push(Written {
                    what,
                    addr: s.base,
                    format: s.format.name().unwrap_or("?").to_string(),
                    before: before.clone(),
                    after,
                });
            }
        }
        for k in &pending.stages {
            let entries = k.entries();
            if k.shaders.iter().any(|s| s.indirect) && k.count == 0 {
                draw.notes.push(format!(
                    "a {} message takes its descriptor from a register and Binding Table \
                     Entry Count is 0: the entries it reaches are not known here",
                    k.name
                ));
            }
            for bti in entries {
                let Ok((addr, rss)) =
                    gtsim_gen7::surface_state(mem, view.state, k.binding_table, bti)
                else {
                    draw.notes.push(format!(
                        "{} binding table entry {bti}: its surface state does not read",
                        k.name
                    ));
                    continue;
                };
                let fields_of = rss.pack().map(|dw| fields("RENDER_SURFACE_STATE", &dw));
                let summary = format!(
                    "{} {}x{}x{} {}, {} levels",
                    rss.surface_type.name().unwrap_or("?"),
                    u32::from(rss.width) + 1,
                    u32::from(rss.height) + 1,
                    u32::from(rss.depth) + 1,
                    rss.surface_format.name().unwrap_or("?"),
                    u32::from(rss.mip_count_lod) + 1,
                );
                let note = |n: String| {
                    vec![Picture {
                        label: "contents".into(),
                        note: Some(n),
                        ..Picture::default()
                    }]
                };
                use gtsim_dataport::dc::DataSurface as D;
                let pictures = match view.front.data_surface(k.stage, mem, bti) {
                    _ if written_bases.contains(&rss.surface_base_address) => {
                        note("written by this draw: see above".into())
                    }
                    Ok(D::Image { surface, .. }) => self.images.all(mem, &surface, Shade::Colour),
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
                let mut i: Vec<u8> = k.shaders.iter().flat_map(|s| s.samplers.clone()).collect();
                i.sort_unstable();
                i.dedup();
                Some((group, i))
            })
            .collect();
        crate::state::add_indirect(
            &mut draw.state,
            mem,
            view.state,
            &samplers,
            outcome.targets.len(),
        );
        draw.shaders = pending.stages.into_iter().flat_map(|k| k.shaders).collect();
        self.report.draws.push(draw);
    }

    fn hang(&mut self, hang: &Hang, state: &gtsim_gen7::LatchedState, mem: &dyn Memory) {
        let submission = self.report.submissions.len().saturating_sub(1);
        let index = self.report.hangs.len();
        let sub = self.submission();
        sub.hang = Some(index);
        // The command that hung, when it was fetched (an unknown or unreadable one was
        // not).
        let command = sub
            .commands
            .len()
            .checked_sub(1)
            .filter(|&c| sub.commands[c].addr == hang.addr());
        let draw = command.and_then(|c| sub.commands[c].draw);
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
        let mut at = Some(match command {
            Some(c) => {
                let c = &sub.commands[c];
                c.addr + 4 * c.dwords.len() as u64
            }
            None => hang.addr(),
        });
        let raw: Vec<u32> = (0..RAW)
            .map_while(|i| mem.read_u32(hang.addr() + 4 * i).ok())
            .collect();
        while let Some(addr) = at {
            if after.len() == AFTER {
                break;
            }
            let Ok(dw0) = mem.read_u32(addr) else {
                break;
            };
            let Some(def) = GENERATION.identify(dw0) else {
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
            at = Some(addr + 4 * len as u64);
        }
        let mut state_groups = groups(state);
        crate::state::add_indirect(&mut state_groups, mem, state, &[], 1);
        self.report.hangs.push(HangPage {
            submission,
            command,
            reason,
            draw,
            state: state_groups,
            after,
            addr: hang.addr(),
            raw,
        });
    }
}
