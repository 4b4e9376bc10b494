//! Pixel history (`gtsim inspect --pixel`) on the triangle client's capture: the history
//! of a pixel the triangle covers and of one it does not, each ending in the value the
//! replayed image holds there (read without the probe), with the triangle's write
//! storing the shader's colour as the UNORM8 conversion gives it (no blending).

use gtsim_dataport::probe::Event;
use gtsim_gpu::aub;
use gtsim_inspect::history::{LaneTrace, history, report, targets};
use gtsim_mem::format::texel::Texel;

const TRIANGLE: &[u8] = include_bytes!("../../cli/data/triangle.aub");

/// The replayed image's pixel (x, y) of the first render target, as `gtsim replay`
/// writes it (RGBA8), without the probe.
fn replayed(trace: &aub::Trace, x: u32, y: u32) -> [u8; 4] {
    let r = gtsim_gpu::replay::replay(trace, |_, _| {});
    let rt = &r.render_targets[0];
    let (w, _, px) = gtsim_gpu::replay::read_rgba8(&r.mem, rt).unwrap();
    let i = 4 * (y * w + x) as usize;
    [px[i], px[i + 1], px[i + 2], px[i + 3]]
}

#[test]
fn a_pixel_under_the_triangle_has_the_clear_then_the_triangle() {
    let trace = aub::parse(TRIANGLE);
    let t = targets(&trace);
    assert!(!t.is_empty());
    let r = gtsim_gpu::replay::replay(&trace, |_, _| {});
    assert_eq!(t[0].surface.base, r.render_targets[0].surface.base);
    // (6, 6): the first pixel of the triangle in memory order (crates/inspect/tests/diff.rs
    // finds it by comparing the replays with and without the triangle).
    let h = history(&trace, t[0], (6, 6), LaneTrace::Off);
    assert_eq!(
        h,
        history(&trace, t[0], (6, 6), LaneTrace::Off),
        "not deterministic"
    );
    let text = report(&h);
    let draws: Vec<usize> = h.draws.iter().map(|d| d.draw).collect();
    assert_eq!(draws, [1, 2], "{text}");
    let tri = &h.draws[1];
    assert_eq!(
        tri.events.iter().filter(|e| **e == Event::Covered).count(),
        1,
        "{text}"
    );
    let writes: Vec<_> = tri
        .events
        .iter()
        .filter_map(|e| match e {
            Event::RtWrite(w) => Some(w),
            _ => None,
        })
        .collect();
    assert_eq!(writes.len(), 1, "{text}");
    let w = writes[0];
    assert!(w.dropped.is_none() && w.float && !w.blends, "{text}");
    // No blending: the stored value is the shader's colour converted to UNORM8
    // (round(255 c) / 255, seed 004 §12.1.7's float to UNORM conversion).
    let Some(Texel::Float(after)) = w.after else {
        panic!("{text}");
    };
    for (c, a) in w.colour.iter().zip(after) {
        let want = (f32::from_bits(*c).clamp(0.0, 1.0) * 255.0).round() / 255.0;
        assert!((a - want).abs() < 1e-6, "{c:#x} {a} {want}\n{text}");
    }
    assert_eq!(tri.after.as_ref().ok(), w.after.as_ref(), "{text}");
    // The history ends in the replayed image's value.
    let [r_, g, b, a] = replayed(&trace, 6, 6);
    assert!(
        text.ends_with(&format!("final {r_} {g} {b} {a}\n")),
        "{text}"
    );
}

#[test]
fn a_pixel_outside_the_triangle_has_the_clear_only() {
    let trace = aub::parse(TRIANGLE);
    let t = targets(&trace);
    let h = history(&trace, t[0], (0, 0), LaneTrace::Off);
    let text = report(&h);
    let draws: Vec<usize> = h.draws.iter().map(|d| d.draw).collect();
    assert_eq!(draws, [1], "{text}");
    let [r_, g, b, a] = replayed(&trace, 0, 0);
    assert!(
        text.ends_with(&format!("final {r_} {g} {b} {a}\n")),
        "{text}"
    );
}

/// The lane trace (`--trace`): the pixel shader lane of the last draw that wrote the
/// pixel, instruction by instruction; its render target write's payload holds, in the
/// lane's column, the colour the history's write reports (the two read independently:
/// the GRF as the lane left it, the data port's decode of the message); tracing changes
/// nothing else, and `--draw` picks another draw's lane.
#[test]
fn the_lane_trace_ends_in_the_colour_the_write_reports() {
    let trace = aub::parse(TRIANGLE);
    let t = targets(&trace);
    let plain = history(&trace, t[0], (6, 6), LaneTrace::Off);
    let traced = history(&trace, t[0], (6, 6), LaneTrace::LastWrite);
    let lanes = |h: &gtsim_inspect::history::History| -> Vec<(usize, Vec<String>)> {
        h.draws
            .iter()
            .flat_map(|d| {
                d.events.iter().filter_map(move |e| match e {
                    Event::LaneTrace { lines, .. } => Some((d.draw, lines.clone())),
                    _ => None,
                })
            })
            .collect()
    };
    let text = report(&traced);
    let found = lanes(&traced);
    assert_eq!(found.len(), 1, "{text}");
    assert_eq!(found[0].0, 2, "{text}");
    let without = |h: &gtsim_inspect::history::History| -> Vec<Vec<Event>> {
        h.draws
            .iter()
            .map(|d| {
                d.events
                    .iter()
                    .filter(|e| !matches!(e, Event::LaneTrace { .. }))
                    .cloned()
                    .collect()
            })
            .collect()
    };
    assert_eq!(without(&plain), without(&traced));
    let send = found[0]
        .1
        .iter()
        .rev()
        .find(|l| l.contains("RT write"))
        .expect("the render target write in the trace");
    let colour = traced.draws[1]
        .events
        .iter()
        .find_map(|e| match e {
            Event::RtWrite(w) => Some(w.colour),
            _ => None,
        })
        .unwrap();
    for c in colour {
        let v = format!("({})", f32::from_bits(c));
        assert!(send.contains(&v), "{v} not in {send}");
    }
    let other = history(&trace, t[0], (6, 6), LaneTrace::Draw(1));
    let o = lanes(&other);
    assert_eq!(o.len(), 1);
    assert_eq!(o[0].0, 1);
}

/// `--vertex N --draw M`: the triangle's three vertices, each traced through the vertex
/// shader from the vertex data the client put in its buffer (the `triangle` client's
/// TRIANGLE_VERTICES, clients/src/lib.rs: (-0.8, -0.8), (0.8, -0.8), (0, 0.8)); a
/// vertex or draw that is not there says so.
#[test]
fn a_vertex_is_traced_from_the_clients_vertex_data() {
    use gtsim_inspect::history::{report_vertex, vertex_trace};
    let trace = aub::parse(TRIANGLE);
    let positions: [(f32, f32); 3] = [(-0.8, -0.8), (0.8, -0.8), (0.0, 0.8)];
    for (v, (x, y)) in positions.iter().enumerate() {
        let t = vertex_trace(&trace, 2, v);
        let text = report_vertex(&t);
        assert_eq!(t.shaded, Some(3), "{text}");
        let Some(Event::LaneTrace { lines, width, .. }) = t.events.first() else {
            panic!("{text}");
        };
        // Gen7: SIMD4x2, the vertex's four channels; the first instruction moves the
        // position the vertex fetcher stored.
        assert_eq!(*width, 4, "{text}");
        for c in [x, y] {
            let bits = format!("({:#x})", c.to_bits());
            assert!(lines[0].contains(&bits), "{bits} in {}", lines[0]);
        }
    }
    assert!(report_vertex(&vertex_trace(&trace, 2, 3)).contains("there is no vertex 3"));
    assert!(report_vertex(&vertex_trace(&trace, 9, 0)).contains("is not in the capture"));
}
