//! The report's pixel page (`pixel.html?rt=BASE:LOD:SLICE&x=X&y=Y`), made on request by
//! `gtsim inspect --serve`: a click on a render target picture of a draw page asks for
//! it. It holds what `gtsim inspect --pixel X,Y --trace` prints (the pixel's history,
//! [`crate::history`]) and, for each lane trace, a stepping view: the lane's
//! instructions as a list, one of them current with its values, moved by the previous
//! and next buttons or the arrow keys.
//!
//! A report opened from the file system has no server to make the page: the click then
//! says to serve the report.

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

/// Pixel pages of one capture, each made by replaying it with the pixel watched; one at
/// a time (a replay holds the capture's memory), the render targets listed once.
pub struct PixelPages {
    trace: gtsim_gpu::aub::Trace,
    targets: OnceLock<Vec<Target>>,
    one_at_a_time: Mutex<()>,
}

impl PixelPages {
    /// Pages of `trace`.
    pub fn new(trace: gtsim_gpu::aub::Trace) -> PixelPages {
        PixelPages {
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

impl Pages for PixelPages {
    fn page(&self, path: &str, query: &str) -> Option<Result<String, String>> {
        (path == "/pixel.html").then(|| self.pixel(&PixelQuery::parse(query)?))
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
            let Event::LaneTrace {
                stage,
                lane,
                simd,
                lines,
                ..
            } = e
            else {
                continue;
            };
            let _ = writeln!(
                b,
                "<h2>Draw {}: {} lane {lane} of a SIMD{simd} thread</h2>\
                 <div class=\"stepper\"><button class=\"prev\">previous</button> \
                 <button class=\"next\">next</button> <span class=\"pos\"></span> \
                 <span class=\"note\">(or the arrow keys)</span><ol class=\"steps\">",
                d.draw,
                esc(stage)
            );
            for l in lines {
                let _ = write!(b, "<li>{}</li>", esc(l));
            }
            let _ = writeln!(b, "</ol></div>");
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
