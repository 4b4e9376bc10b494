//! The report's trace pages, made on request by `gtsim inspect --serve`:
//!
//! * `pixel.html?rt=0xBASE:LOD:SLICE&x=X&y=Y`, which a click on a render target picture
//!   of a draw page asks for: what `gtsim inspect --pixel X,Y --trace` prints (the
//!   pixel's history, [`crate::history`]);
//! * `vertex.html?draw=M&vertex=N`, from a draw page's form: `--vertex N --draw M`;
//! * `invocation.html?walker=N&id=X,Y,Z[&local=X,Y,Z]`, from the index's form:
//!   `--invocation X,Y,Z --walker N [--local-size X,Y,Z]`.
//!
//! Each lane trace on them is a stepping view: the lane's instructions as a list, one of
//! them current with its values, moved by the previous and next buttons or the arrow
//! keys.
//!
//! A report opened from the file system has no server to make the pages: the click and
//! the forms then say to serve the report.

use crate::history::{self, LaneTrace, Target};
use crate::html::esc;
use crate::serve::Pages;
use gtsim_dataport::probe::Event;
use std::fmt::Write;
use std::sync::{Mutex, OnceLock};

/// The render target a picture shows: surface base address, LOD and array slice (the
/// `rt` of the page's query).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PictureTarget {
    /// Surface Base Address.
    pub base: u64,
    /// The LOD.
    pub lod: u32,
    /// The array slice.
    pub slice: u32,
}

impl PictureTarget {
    /// As the query writes it: `0xBASE:LOD:SLICE`.
    pub fn query(&self) -> String {
        format!("{:#x}:{}:{}", self.base, self.lod, self.slice)
    }

    fn parse(text: &str) -> Option<PictureTarget> {
        let mut p = text.split(':');
        let base = u64::from_str_radix(p.next()?.strip_prefix("0x")?, 16).ok()?;
        let lod = p.next()?.parse().ok()?;
        let slice = p.next()?.parse().ok()?;
        p.next()
            .is_none()
            .then_some(PictureTarget { base, lod, slice })
    }
}

/// A pixel page's request: the picture's target and the pixel (surface coordinates, row
/// 0 first in memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelQuery {
    /// The picture's render target.
    pub target: PictureTarget,
    /// The pixel.
    pub at: (u32, u32),
}

impl PixelQuery {
    /// Parses `rt=0xBASE:LOD:SLICE&x=X&y=Y` (any order, nothing else).
    pub fn parse(query: &str) -> Result<PixelQuery, String> {
        let (mut target, mut x, mut y) = (None, None, None);
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| format!("{pair:?} is not NAME=VALUE"))?;
            match k {
                "rt" => {
                    target = Some(
                        PictureTarget::parse(v)
                            .ok_or_else(|| format!("rt={v:?} is not 0xBASE:LOD:SLICE"))?,
                    );
                }
                "x" => x = Some(v.parse::<u32>().map_err(|_| format!("x={v:?}"))?),
                "y" => y = Some(v.parse::<u32>().map_err(|_| format!("y={v:?}"))?),
                other => return Err(format!("unknown parameter {other:?}")),
            }
        }
        match (target, x, y) {
            (Some(target), Some(x), Some(y)) => Ok(PixelQuery { target, at: (x, y) }),
            _ => Err("a pixel page needs rt, x and y".into()),
        }
    }
}

/// Trace pages of one capture, each made by replaying it with a pixel, vertex or
/// invocation watched; one at a time (a replay holds the capture's memory), the render
/// targets listed once.
pub struct TracePages {
    trace: gtsim_gpu::aub::Trace,
    targets: OnceLock<Vec<Target>>,
    one_at_a_time: Mutex<()>,
}

impl TracePages {
    /// Pages of `trace`.
    pub fn new(trace: gtsim_gpu::aub::Trace) -> TracePages {
        TracePages {
            trace,
            targets: OnceLock::new(),
            one_at_a_time: Mutex::new(()),
        }
    }

    /// The page for `q`, or why there is none.
    pub fn pixel(&self, q: &PixelQuery) -> Result<String, String> {
        let _one = self
            .one_at_a_time
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let targets = self.targets.get_or_init(|| history::targets(&self.trace));
        let t = targets
            .iter()
            .find(|t| {
                (t.surface.base, t.lod, t.slice) == (q.target.base, q.target.lod, q.target.slice)
            })
            .ok_or_else(|| {
                format!(
                    "no render target {} in the capture's replay",
                    q.target.query()
                )
            })?;
        let (w, h) = t.surface.desc.level_extent(t.lod);
        if q.at.0 >= w || q.at.1 >= h {
            return Err(format!(
                "pixel ({}, {}) is outside the {w}x{h} render target",
                q.at.0, q.at.1
            ));
        }
        let h = history::history(&self.trace, *t, q.at, LaneTrace::LastWrite);
        Ok(page(q, &h))
    }
}

impl TracePages {
    /// The page of vertex `vertex` of draw `draw`.
    pub fn vertex(&self, draw: usize, vertex: usize) -> String {
        let _one = self
            .one_at_a_time
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let v = history::vertex_trace(&self.trace, draw, vertex);
        trace_page(
            &format!("vertex {vertex} of draw {draw}"),
            &format!("gtsim inspect CAPTURE --vertex {vertex} --draw {draw}"),
            &history::report_vertex(&v),
            &v.events,
        )
    }

    /// The page of compute invocation `watch`.
    pub fn invocation(&self, watch: history::InvocationWatch) -> String {
        let _one = self
            .one_at_a_time
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let v = history::invocation_trace(&self.trace, watch);
        let [x, y, z] = watch.id;
        let local = watch
            .local_size
            .map(|[a, b, c]| format!(" --local-size {a},{b},{c}"))
            .unwrap_or_default();
        trace_page(
            &format!("invocation ({x}, {y}, {z}) of walker {}", watch.walker),
            &format!(
                "gtsim inspect CAPTURE --invocation {x},{y},{z} --walker {}{local}",
                watch.walker
            ),
            &history::report_invocation(&v),
            &v.events,
        )
    }
}

/// A query's parameters: `NAME=VALUE` pairs joined by `&`, each name one of `known`
/// and given once.
fn parameters<'q>(
    query: &'q str,
    known: &[&str],
) -> Result<std::collections::BTreeMap<&'q str, &'q str>, String> {
    let mut out = std::collections::BTreeMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| format!("{pair:?} is not NAME=VALUE"))?;
        if !known.contains(&k) {
            return Err(format!("unknown parameter {k:?}"));
        }
        if out.insert(k, v).is_some() {
            return Err(format!("{k} given twice"));
        }
    }
    Ok(out)
}

/// Three unsigned integers `X,Y,Z` (a form sends its commas as `%2C`).
fn triple(name: &str, text: &str) -> Result<[u32; 3], String> {
    let text = text.replace("%2C", ",").replace("%2c", ",");
    let v: Vec<u32> = text
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{name}={text:?} is not X,Y,Z"))?;
    <[u32; 3]>::try_from(v).map_err(|_| format!("{name}={text:?} is not X,Y,Z"))
}

/// A number parameter, `None` when absent or empty.
fn number(name: &str, text: Option<&&str>) -> Result<Option<usize>, String> {
    match text.filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => t
            .parse()
            .map(Some)
            .map_err(|_| format!("{name}={t:?} is not a number")),
    }
}

impl TracePages {
    fn vertex_query(&self, query: &str) -> Result<String, String> {
        let p = parameters(query, &["draw", "vertex"])?;
        let draw = number("draw", p.get("draw"))?.ok_or("draw is missing")?;
        let vertex = number("vertex", p.get("vertex"))?.ok_or("vertex is missing")?;
        Ok(self.vertex(draw, vertex))
    }

    fn invocation_query(&self, query: &str) -> Result<String, String> {
        let p = parameters(query, &["walker", "id", "local"])?;
        let id = triple("id", p.get("id").ok_or("id is missing")?)?;
        let local_size = match p.get("local").filter(|l| !l.is_empty()) {
            Some(l) => Some(triple("local", l)?),
            None => None,
        };
        if local_size.is_some_and(|l| l.contains(&0)) {
            return Err("a workgroup size is at least 1 in each dimension".into());
        }
        let walker = number("walker", p.get("walker"))?.unwrap_or(0);
        Ok(self.invocation(history::InvocationWatch {
            walker,
            id,
            local_size,
        }))
    }
}

impl Pages for TracePages {
    fn page(&self, path: &str, query: &str) -> Option<Result<String, String>> {
        match path {
            "/pixel.html" => Some(PixelQuery::parse(query).and_then(|q| self.pixel(&q))),
            "/vertex.html" => Some(self.vertex_query(query)),
            "/invocation.html" => Some(self.invocation_query(query)),
            _ => None,
        }
    }
}

/// The stepping view's look and behaviour: the current step highlighted and scrolled
/// to; the page's body says how many steps it has and which is current (for the browser
/// test and for a person who reads the DOM).
const STEPPER: &str = "<style>ol.steps{font:12px monospace;max-height:30em;overflow:auto;background:#f7f7f7}
ol.steps li{white-space:pre;color:#777}ol.steps li.cur{background:#ffd;color:#000}</style>
<script>window.addEventListener('load',function(){var all=0;
for(const s of document.querySelectorAll('.stepper')){var li=s.querySelectorAll('li');all+=li.length;var i=0;
var pos=s.querySelector('.pos');function show(k){if(!li.length)return;li[i].classList.remove('cur');
i=Math.max(0,Math.min(li.length-1,k));li[i].classList.add('cur');li[i].scrollIntoView({block:'nearest'});
pos.textContent='step '+(i+1)+' of '+li.length;document.body.dataset.current=i+1;}
s.querySelector('.prev').onclick=function(){show(i-1)};s.querySelector('.next').onclick=function(){show(i+1)};
s.tabIndex=0;s.onkeydown=function(e){if(e.key=='ArrowDown'||e.key=='j'){show(i+1);e.preventDefault();}
if(e.key=='ArrowUp'||e.key=='k'){show(i-1);e.preventDefault();}};show(0);}
document.body.dataset.steps=all;});</script>";

/// A vertex or invocation trace's page: `title`, the command that prints the same,
/// the report's text and a stepping view of each lane trace among `events`.
fn trace_page(title: &str, command: &str, text: &str, events: &[Event]) -> String {
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<nav><a href=\"index.html\">index</a></nav><h1>{}</h1>\
         <p>The same as <code>{}</code>.</p><pre id=\"history\">{}</pre>",
        esc(title),
        esc(command),
        esc(text)
    );
    for e in events {
        stepper(&mut b, None, e);
    }
    crate::html::page_with(title, &b, STEPPER)
}

/// The stepping view of lane trace `e` (of draw `draw`), if it is one.
fn stepper(b: &mut String, draw: Option<usize>, e: &Event) {
    let Event::LaneTrace {
        stage,
        lane,
        width,
        simd,
        lines,
    } = e
    else {
        return;
    };
    let lanes = history::lanes_label(*lane, *width);
    let _ = writeln!(
        b,
        "<h2>{}{} {lanes} of a SIMD{simd} thread</h2>\
         <div class=\"stepper\"><button class=\"prev\">previous</button> \
         <button class=\"next\">next</button> <span class=\"pos\"></span> \
         <span class=\"note\">(or the arrow keys)</span><ol class=\"steps\">",
        draw.map(|d| format!("Draw {d}: ")).unwrap_or_default(),
        esc(stage)
    );
    for l in lines {
        let _ = write!(b, "<li>{}</li>", esc(l));
    }
    let _ = writeln!(b, "</ol></div>");
}

/// The page of history `h` asked for by `q`.
fn page(q: &PixelQuery, h: &history::History) -> String {
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<nav><a href=\"index.html\">index</a></nav><h1>Pixel ({}, {}) of render target <code>{:#x}</code></h1>\
         <p>LOD {}, slice {}; row 0 first in memory. The same as <code>gtsim inspect CAPTURE --pixel {},{} --trace</code>.</p>",
        q.at.0, q.at.1, q.target.base, q.target.lod, q.target.slice, q.at.0, q.at.1
    );
    let _ = writeln!(
        b,
        "<h2>History</h2><pre id=\"history\">{}</pre>",
        esc(&history::report(h))
    );
    for d in &h.draws {
        for e in &d.events {
            stepper(&mut b, Some(d.draw), e);
        }
    }
    crate::html::page_with(&format!("pixel ({}, {})", q.at.0, q.at.1), &b, STEPPER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_parse_and_bad_ones_are_named() {
        let q = PixelQuery::parse("rt=0xfffe0000:0:2&x=6&y=7").unwrap();
        assert_eq!(
            q,
            PixelQuery {
                target: PictureTarget {
                    base: 0xfffe_0000,
                    lod: 0,
                    slice: 2
                },
                at: (6, 7)
            }
        );
        assert_eq!(
            PixelQuery::parse(&format!("x=1&y=2&rt={}", q.target.query()))
                .unwrap()
                .at,
            (1, 2)
        );
        for bad in [
            "",
            "rt=0x10:0:0&x=1",
            "rt=16:0:0&x=1&y=1",
            "rt=0x10:0&x=1&y=1",
            "rt=0x10:0:0:0&x=1&y=1",
            "rt=0x10:0:0&x=-1&y=1",
            "rt=0x10:0:0&x=1&y=1&z=3",
            "rt",
        ] {
            assert!(PixelQuery::parse(bad).is_err(), "{bad:?}");
        }
    }
}
