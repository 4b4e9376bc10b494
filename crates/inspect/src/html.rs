//! The report's pages: `index.html` (submissions and draws), `submission-N.html` (its
//! commands), `draw-N.html` (a draw: what it wrote, before and after; its surfaces,
//! kernels, counts, times and state by stage) and `hang-N.html` (a hang: the reason,
//! the command and draw, the batch around it, the state). Plain HTML with one inline
//! style sheet and one inline script: nothing is fetched, the folder opens from the
//! file system.

use crate::model::{Command, Draw, Field, HangPage, Picture, Report, StateGroup, Structure};
use std::fmt::Write;
use std::path::Path;

const STYLE: &str = "body{font:14px/1.4 sans-serif;margin:1em 2em;color:#222}
h1{font-size:1.4em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.5em}
h3{font-size:1.05em}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3}code,pre{font:12px monospace}pre{background:#f7f7f7;padding:6px;overflow:auto;max-height:40em}
.warn{color:#a00}.note{color:#555;font-style:italic}.hang{background:#fdd}.draw{background:#eef6ff}
figure{display:inline-block;margin:4px 8px 4px 0;vertical-align:top}
figcaption{font-size:12px;color:#555}img{border:1px solid #999;image-rendering:pixelated;background:repeating-conic-gradient(#ddd 0 25%,#fff 0 50%) 0 0/16px 16px}
nav a{margin-right:1em}details{margin:.3em 0}body.flip img.surface{transform:scaleY(-1)}";

/// Marks the page with how many of its images decoded (for the browser test and for a
/// person: a broken image is counted, not silently blank).
/// The flip box shows surfaces bottom row first, as OpenGL shows a window-system
/// framebuffer (memory keeps its top row first).
const SCRIPT: &str = "window.addEventListener('load',function(){var ok=0,bad=0;
for(const i of document.images){if(i.complete&&i.naturalWidth>0)ok++;else bad++;}
document.body.dataset.imagesDecoded=ok;document.body.dataset.imagesBroken=bad;
var f=document.getElementById('flip');if(f){f.onchange=function(){document.body.classList.toggle('flip',f.checked);};}
for(const i of document.querySelectorAll('img[data-rt]')){i.title='click a pixel for its history';i.style.cursor='crosshair';
i.onclick=function(e){var w=i.naturalWidth,h=i.naturalHeight,x=Math.floor(e.offsetX*w/i.clientWidth),y=Math.floor(e.offsetY*h/i.clientHeight);
if(document.body.classList.contains('flip'))y=h-1-y;x=Math.max(0,Math.min(w-1,x));y=Math.max(0,Math.min(h-1,y));
var u=pixelUrl(i.dataset.rt,x,y);if(location.protocol=='file:'){alert('pixel ('+x+', '+y+'): its history is made by the report server: gtsim inspect CAPTURE -o DIR --serve');}else{location.href=u;}};}});
for(const f of document.querySelectorAll('form.served')){f.onsubmit=function(e){if(location.protocol=='file:'){e.preventDefault();
alert('traces are made by the report server: gtsim inspect CAPTURE -o DIR --serve');}};}
function pixelUrl(rt,x,y){return 'pixel.html?rt='+rt+'&x='+x+'&y='+y;}";

/// The flip box (see [`SCRIPT`]).
const FLIP: &str = "<label><input type=\"checkbox\" id=\"flip\"> show surfaces bottom row \
                    first (as OpenGL shows a window's framebuffer)</label>";

/// Text made safe for HTML.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn page(title: &str, body: &str) -> String {
    page_with(title, body, "")
}

/// A page with `head` (its own style or script) after the report's.
pub(crate) fn page_with(title: &str, body: &str, head: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>{STYLE}</style><script>{SCRIPT}</script>{head}</head><body>\n{body}</body></html>\n",
        esc(title)
    )
}

/// Writes the index and the hang pages of `r` into `dir` (the recorder wrote the draw
/// and submission pages and the pictures as it went).
pub fn write(r: &Report, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("index.html"), index(r))?;
    for (i, h) in r.hangs.iter().enumerate() {
        std::fs::write(dir.join(format!("hang-{i}.html")), hang(r, i, h))?;
    }
    Ok(())
}

fn index(r: &Report) -> String {
    let mut b = String::new();
    let _ = writeln!(b, "<h1>gtsim inspect: {}</h1>", esc(&r.source));
    let _ = writeln!(
        b,
        "<p>{} submissions, {} draws, {} hangs.</p>",
        r.submissions.len(),
        r.draws.len(),
        r.hangs.len()
    );
    for n in &r.notes {
        let _ = writeln!(b, "<p class=\"warn\">{}</p>", esc(n));
    }
    if !r.hangs.is_empty() {
        let _ = writeln!(b, "<h2 id=\"hangs\">Hangs</h2><ul>");
        for (i, h) in r.hangs.iter().enumerate() {
            let _ = writeln!(
                b,
                "<li class=\"hang\"><a href=\"hang-{i}.html\">Hang {i}</a> in submission {}: {}</li>",
                h.submission,
                esc(&h.reason)
            );
        }
        let _ = writeln!(b, "</ul>");
    }
    // Served reports make traces on request (`trace_page`).
    let _ = writeln!(
        b,
        "<form class=\"served\" action=\"invocation.html\">Trace compute invocation \
         <input name=\"id\" value=\"0,0,0\" size=\"12\"> (X,Y,Z) of walker \
         <input name=\"walker\" type=\"number\" min=\"0\" value=\"0\" style=\"width:5em\">, workgroup size \
         <input name=\"local\" placeholder=\"X,Y,Z\" size=\"10\"> <button>trace</button></form>"
    );
    if !r.display.is_empty() {
        // What the display showed, in order (KMS flips, recorded by `--capture`).
        let _ = writeln!(
            b,
            "<h2 id=\"display\">Display</h2><p>{} frames shown on the display.</p><div class=\"display\">",
            r.display.len()
        );
        for (i, f) in r.display.iter().enumerate() {
            let _ = match f {
                Ok(file) => writeln!(
                    b,
                    "<figure class=\"frame\"><a href=\"{0}\"><img src=\"{0}\" alt=\"frame {1}\" style=\"max-width:160px\"></a><figcaption>frame {1}</figcaption></figure>",
                    esc(file),
                    i + 1
                ),
                Err(e) => writeln!(b, "<p class=\"warn\">frame {}: {}</p>", i + 1, esc(e)),
            };
        }
        let _ = writeln!(b, "</div>");
    }
    let _ = writeln!(b, "<h2 id=\"draws\">Draws</h2>");
    let _ = writeln!(
        b,
        "<table id=\"draw-list\"><tr><th>draw</th><th>submission</th><th>address</th>\
         <th>vertices</th><th>primitives</th><th>pixel shader invocations</th>\
         <th>ran: vertices / primitives / pixels / EU threads</th>\
         <th>render target after</th><th>outcome</th></tr>"
    );
    for (i, d) in r.draws.iter().enumerate() {
        let thumb = d
            .written
            .iter()
            .find(|w| w.what.starts_with("render target"))
            .and_then(|w| w.after.file.as_ref())
            .map(|f| {
                format!(
                    "<img src=\"{}\" alt=\"after\" style=\"max-width:96px\">",
                    esc(f)
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            b,
            "<tr class=\"draw\"><td><a href=\"draw-{i}.html\">draw {i}</a></td><td>{}</td>\
             <td><code>{:#x}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{} / {} / {} / {}</td><td>{thumb}</td><td>{}</td></tr>",
            d.submission,
            d.addr,
            d.stats.ia_vertices,
            d.stats.ia_primitives,
            d.stats.ps_invocations,
            d.ran.vertices,
            d.ran.primitives,
            d.ran.pixels,
            d.ran.threads,
            match &d.error {
                Some(e) => format!("<span class=\"warn\">hang: {}</span>", esc(e)),
                None => "completed".into(),
            }
        );
    }
    let _ = writeln!(b, "</table>");
    let _ = writeln!(b, "<h2 id=\"submissions\">Submissions</h2>");
    let _ = writeln!(
        b,
        "<table id=\"submission-list\"><tr><th>submission</th><th>ring</th><th>context</th>\
         <th>batch</th><th>commands</th><th>draws</th><th>outcome</th></tr>"
    );
    for (i, s) in r.submissions.iter().enumerate() {
        let draws = s.draws;
        let _ = writeln!(
            b,
            "<tr><td><a href=\"submission-{i}.html\">submission {i}</a></td><td>{}</td><td>{}</td>\
             <td><code>{:#x}</code></td><td>{}</td><td>{draws}</td><td>{}</td></tr>",
            s.ring,
            s.context,
            s.batch,
            s.count,
            match s.hang {
                Some(h) => format!("<a class=\"warn\" href=\"hang-{h}.html\">hang {h}</a>"),
                None => "completed".into(),
            }
        );
    }
    let _ = writeln!(b, "</table>");
    page(&format!("gtsim inspect: {}", r.source), &b)
}

fn command_row(
    b: &mut String,
    generation: &'static gtsim_spec::table::Generation,
    c: &Command,
    mark: &str,
) {
    let link = match c.draw {
        Some(d) => format!(" <a href=\"draw-{d}.html\">draw {d}</a>"),
        None => String::new(),
    };
    let _ = writeln!(
        b,
        "<tr class=\"{mark}\"><td><code>{:#x}</code></td><td>{}{link}</td><td><details>\
         <summary>{} dwords</summary>{}</details></td></tr>",
        c.addr,
        esc(c.name),
        c.dwords.len(),
        fields_table(&crate::state::fields_in(generation, c.name, &c.dwords))
    );
}

/// Submission `i`'s page: its commands with every field.
pub fn submission_page(r: &Report, i: usize) -> String {
    let s = &r.submissions[i];
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<nav><a href=\"index.html\">index</a></nav><h1>Submission {i}</h1>\
         <p>{} ring, context {}, batch at <code>{:#x}</code>, {} commands.</p>",
        s.ring, s.context, s.batch, s.count
    );
    if let Some(h) = s.hang {
        let _ = writeln!(
            b,
            "<p class=\"hang\">Ended by <a href=\"hang-{h}.html\">hang {h}</a>: {}</p>",
            esc(&r.hangs[h].reason)
        );
    }
    let _ = writeln!(
        b,
        "<table id=\"commands\"><tr><th>address</th><th>command</th><th>fields</th></tr>"
    );
    // The command that hung: the last listed, when the hang names it.
    let hung = s.hang.and_then(|h| {
        r.hangs[h]
            .command
            .map(|_| s.commands.len().saturating_sub(1))
    });
    for (k, c) in s.commands.iter().enumerate() {
        let mark = if Some(k) == hung {
            "hang"
        } else if c.draw.is_some() {
            "draw"
        } else {
            ""
        };
        command_row(&mut b, r.generation(), c, mark);
    }
    let _ = writeln!(b, "</table>");
    if s.unlisted > 0 {
        let _ = writeln!(
            b,
            "<p class=\"note\">{} more commands ran; only the first {} are listed.</p>",
            s.unlisted,
            crate::record::MAX_COMMANDS
        );
    }
    page(&format!("submission {i}"), &b)
}

fn fields_table(fields: &[Field]) -> String {
    let mut b = String::from("<table class=\"fields\">");
    for f in fields {
        let pad = "&nbsp;&nbsp;".repeat(f.depth);
        let class = if f.warning { " class=\"warn\"" } else { "" };
        let _ = write!(
            b,
            "<tr{class}><td>{pad}{}</td><td><code>{}</code></td></tr>",
            esc(&f.name),
            esc(&f.value)
        );
    }
    b.push_str("</table>");
    b
}

fn structure(b: &mut String, s: &Structure) {
    let _ = writeln!(
        b,
        "<details><summary>{}</summary>{}</details>",
        esc(&s.name),
        fields_table(&s.fields)
    );
}

fn state(b: &mut String, groups: &[StateGroup]) {
    for g in groups {
        let _ = writeln!(b, "<h3>{}</h3>", esc(g.stage));
        for s in &g.structures {
            structure(b, s);
        }
    }
}

/// The size a picture is shown at: small surfaces magnified (whole pixels) to at least
/// 128 wide, large ones shrunk to 512 wide.
fn shown(size: (u32, u32)) -> (u32, u32) {
    let (w, h) = (size.0.max(1), size.1.max(1));
    if w > 512 {
        (512, (h * 512 / w).max(1))
    } else {
        let k = (128 / w).clamp(1, 8);
        (w * k, h * k)
    }
}

fn figure(p: &Picture) -> String {
    let (w, h) = shown(p.size);
    // A render target's colour picture: a click asks the report server for the
    // pixel's history (`trace_page`).
    let rt = p
        .target
        .map(|t| format!(" data-rt=\"{}\"", esc(&t.query())))
        .unwrap_or_default();
    let image = |f: &str, alt: &str, rt: &str| {
        format!(
            "<img class=\"surface\" src=\"{}\" alt=\"{}\" width=\"{w}\" height=\"{h}\"{rt}>",
            esc(f),
            esc(alt),
        )
    };
    let mut img = p
        .file
        .as_ref()
        .map(|f| image(f, &p.label, &rt))
        .unwrap_or_default();
    if let Some(a) = &p.alpha {
        img.push(' ');
        img.push_str(&image(a, &format!("{} alpha", p.label), ""));
    }
    let alpha = match (&p.alpha, p.alpha_value) {
        (Some(_), _) => ", colour and alpha".to_string(),
        (None, Some(v)) => format!(", alpha {v} everywhere"),
        _ => String::new(),
    };
    let note = p
        .note
        .as_ref()
        .map(|n| format!("<br><span class=\"note\">{}</span>", esc(n)))
        .unwrap_or_default();
    format!(
        "<figure>{img}<figcaption>{} ({}x{}{alpha}){note}</figcaption></figure>",
        esc(&p.label),
        p.size.0,
        p.size.1
    )
}

/// Draw `i`'s page; `has_next`: a draw follows it.
pub fn draw_page(i: usize, d: &Draw, has_next: bool) -> String {
    let mut b = String::new();
    let prev = if i > 0 {
        format!("<a href=\"draw-{}.html\">previous draw</a>", i - 1)
    } else {
        String::new()
    };
    let next = if has_next {
        format!("<a href=\"draw-{}.html\">next draw</a>", i + 1)
    } else {
        String::new()
    };
    let _ = writeln!(
        b,
        "<nav><a href=\"index.html\">index</a><a href=\"submission-{}.html\">submission {}</a>{prev}{next}</nav>\
         <h1>Draw {i}</h1><p>3DPRIMITIVE at <code>{:#x}</code> in submission {}.</p>",
        d.submission, d.submission, d.addr, d.submission
    );
    if let Some(e) = &d.error {
        let _ = writeln!(b, "<p class=\"hang\">The draw hung: {}</p>", esc(e));
    }
    // Served reports make traces on request (`trace_page`).
    let _ = writeln!(
        b,
        "<form class=\"served\" action=\"vertex.html\"><input type=\"hidden\" name=\"draw\" value=\"{i}\">\
         Trace vertex <input name=\"vertex\" type=\"number\" min=\"0\" value=\"0\" style=\"width:6em\"> of this draw \
         <button>trace</button> <span class=\"note\">(or click a pixel of a render target picture for its history)</span></form>"
    );
    if d.summary_only {
        let _ = writeln!(
            b,
            "<p class=\"note\">Only the first {} draws are recorded in full; this one \
             keeps its counts and time.</p>",
            crate::record::MAX_DRAWS
        );
    }
    for n in &d.notes {
        let _ = writeln!(b, "<p class=\"warn\">{}</p>", esc(n));
    }
    let _ = writeln!(
        b,
        "<nav><a href=\"#written\">what it wrote</a><a href=\"#surfaces\">surfaces</a>\
         <a href=\"#shaders\">shaders</a><a href=\"#counts\">counts and time</a>\
         <a href=\"#state\">state</a></nav><p>{FLIP}</p><h2 id=\"written\">What it wrote</h2>"
    );
    if d.written.is_empty() {
        let _ = writeln!(b, "<p>No render target, depth or stencil buffer.</p>");
    }
    for w in &d.written {
        let _ = writeln!(
            b,
            "<h3>{} at <code>{:#x}</code>, {}</h3>{}{}",
            esc(&w.what),
            w.addr,
            esc(&w.format),
            figure(&w.before),
            figure(&w.after)
        );
    }
    let _ = writeln!(
        b,
        "<h2 id=\"surfaces\">Surfaces its binding tables name</h2>"
    );
    for s in &d.surfaces {
        let _ = writeln!(
            b,
            "<h3>{} binding table entry {}: {}</h3><p>RENDER_SURFACE_STATE at <code>{:#x}</code></p>",
            esc(s.stage),
            s.bti,
            esc(&s.summary),
            s.state_addr
        );
        for p in &s.pictures {
            b.push_str(&figure(p));
        }
        structure(&mut b, &s.state);
    }
    let _ = writeln!(b, "<h2 id=\"shaders\">Shaders</h2>");
    for sh in &d.shaders {
        let _ = writeln!(
            b,
            "<h3>{} at <code>{:#x}</code>: {} instructions</h3>",
            esc(&sh.stage),
            sh.addr,
            sh.instructions
        );
        let entries: Vec<String> = sh.bindings.iter().map(|b| b.to_string()).collect();
        let _ = writeln!(
            b,
            "<p>Binding table entries its messages name: {}{}</p>",
            if entries.is_empty() {
                "none".to_string()
            } else {
                entries.join(", ")
            },
            if sh.indirect {
                "; some message takes its descriptor from a register"
            } else {
                ""
            }
        );
        if let Some(e) = &sh.error {
            let _ = writeln!(b, "<p class=\"warn\">{}</p>", esc(e));
        }
        let _ = writeln!(b, "<pre>{}</pre>", esc(&sh.listing.join("\n")));
    }
    let s = &d.stats;
    let _ = writeln!(
        b,
        "<h2 id=\"counts\">Counts and time</h2><div style=\"display:flex;gap:2em;align-items:flex-start\"><table id=\"counts-table\">\
         <tr><th>counter</th><th>value</th></tr>"
    );
    for (name, v) in [
        ("IA_VERTICES_COUNT", s.ia_vertices),
        ("IA_PRIMITIVES_COUNT", s.ia_primitives),
        ("VS_INVOCATION_COUNT", s.vs_invocations),
        ("HS_INVOCATION_COUNT", s.hs_invocations),
        ("DS_INVOCATION_COUNT", s.ds_invocations),
        ("GS_INVOCATION_COUNT", s.gs_invocations),
        ("GS_PRIMITIVES_COUNT", s.gs_primitives),
        ("CL_INVOCATION_COUNT", s.cl_invocations),
        ("CL_PRIMITIVES_COUNT", s.cl_primitives),
        ("PS_INVOCATION_COUNT", s.ps_invocations),
        ("PS_DEPTH_COUNT", s.ps_depth_count),
    ] {
        let _ = writeln!(b, "<tr><td>{name}</td><td>{v}</td></tr>");
    }
    let _ = writeln!(b, "</table>");
    let r = &d.ran;
    let _ = writeln!(
        b,
        "<table id=\"ran-table\"><tr><th>what ran (counted by the model, statistics on or off)</th><th>count</th></tr>"
    );
    for (name, v) in [
        ("vertices fetched", r.vertices),
        ("primitives rasterized", r.primitives),
        ("pixels dispatched", r.pixels),
        ("EU threads", r.threads),
        ("EU instructions", r.eu_instructions),
    ] {
        let _ = writeln!(b, "<tr><td>{name}</td><td>{v}</td></tr>");
    }
    let _ = writeln!(b, "</table>");
    let t = &d.times;
    let _ = writeln!(
        b,
        "<table><tr><th>stage (host time the model spent, not GPU time)</th><th>ms</th></tr>\
         <tr><td>vertex fetch and vertex shader</td><td>{:.3}</td></tr>\
         <tr><td>tessellation, geometry shader, stream output, clip, setup, rasterization</td><td>{:.3}</td></tr>\
         <tr><td>depth, pixel shader and output</td><td>{:.3}</td></tr>\
         <tr><th>whole draw</th><th>{:.3}</th></tr></table></div>",
        t.vertex.as_secs_f64() * 1e3,
        t.primitives.as_secs_f64() * 1e3,
        t.pixel.as_secs_f64() * 1e3,
        t.total.as_secs_f64() * 1e3
    );
    let _ = writeln!(
        b,
        "<h2 id=\"state\">State</h2><h3>3DPRIMITIVE</h3>{}",
        fields_table(&d.primitive)
    );
    state(&mut b, &d.state);
    page(&format!("draw {i}"), &b)
}

fn hang(r: &Report, i: usize, h: &HangPage) -> String {
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<nav><a href=\"index.html\">index</a><a href=\"submission-{}.html\">submission {}</a></nav>\
         <h1>Hang {i}</h1><p class=\"hang\" id=\"reason\">{}</p>",
        h.submission,
        h.submission,
        esc(&h.reason)
    );
    let s = &r.submissions[h.submission];
    let what = match h.command.and_then(|c| h.before.get(c)) {
        Some(c) => esc(c.name),
        None if h.runaway => "the batch that started".into(),
        None => "a command that could not be fetched or is not listed".into(),
    };
    let _ = writeln!(
        b,
        "<p>In {what} at <code>{:#x}</code>, submission {} ({} ring, context {}).</p>",
        h.addr, h.submission, s.ring, s.context
    );
    let raw: Vec<String> = h.raw.iter().map(|d| format!("{d:08x}")).collect();
    let _ = writeln!(
        b,
        "<p>Dwords from <code>{:#x}</code>: <code id=\"raw\">{}</code></p>",
        h.addr,
        raw.join(" ")
    );
    if let Some(d) = h.draw {
        let _ = writeln!(
            b,
            "<p>During <a href=\"draw-{d}.html\">draw {d}</a>: its page shows what it had \
             written when it stopped.</p>"
        );
    }
    let _ = writeln!(
        b,
        "<h2 id=\"batch\">The batch around it</h2><table><tr><th>address</th><th>command</th><th>fields</th></tr>"
    );
    // The commands before it (and it, when it was fetched).
    for (j, c) in h.before.iter().enumerate() {
        command_row(
            &mut b,
            r.generation(),
            c,
            if Some(j) == h.command { "hang" } else { "" },
        );
    }
    for c in &h.after {
        command_row(&mut b, r.generation(), c, "");
    }
    let _ = writeln!(
        b,
        "</table><p>The rows after the command that hung are read from memory; they did not run.</p>"
    );
    let _ = writeln!(b, "<h2 id=\"state\">State at the hang</h2>");
    state(&mut b, &h.state);
    page(&format!("hang {i}"), &b)
}
