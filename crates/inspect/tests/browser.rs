//! The report in a real browser: Debian's headless Chromium loads the pages of the
//! triangle capture's report from the file system and the test checks what a person
//! would see: the draw list, a state table with the manual's field names, images that
//! decode (the page counts them once loaded), and a screenshot with the triangle's
//! colours in it. Skipped with a note when Chromium is absent; CI installs it and sets
//! `GTSIM_REQUIRE_CHROMIUM=1`, which turns the skip into a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

const TRIANGLE: &[u8] = include_bytes!("../../cli/data/triangle.aub");

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// Runs the browser headless on `page` with `args`; returns its standard output.
fn browse(bin: &Path, profile: &Path, args: &[&str], page: &Path) -> String {
    browse_url(bin, profile, args, &format!("file://{}", page.display()))
}

/// Runs the browser headless on `url` with `args`; returns its standard output.
fn browse_url(bin: &Path, profile: &Path, args: &[&str], url: &str) -> String {
    let out = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The `data-NAME` attribute of the DOM's body.
fn body_attr(dom: &str, name: &str) -> Option<u32> {
    let body = &dom[dom.find("<body")?..];
    let body = &body[..body.find('>')?];
    let at = body.find(&format!("data-{name}=\""))? + name.len() + 7;
    body[at..].split('"').next()?.parse().ok()
}

/// Chromium, or `None` with a note (a failure under `GTSIM_REQUIRE_CHROMIUM`).
fn chromium_or_skip() -> Option<PathBuf> {
    let bin = chromium();
    if bin.is_none() {
        assert!(
            std::env::var_os("GTSIM_REQUIRE_CHROMIUM").is_none(),
            "GTSIM_REQUIRE_CHROMIUM is set but no chromium is on PATH"
        );
        eprintln!("skipped: no Chromium on PATH (apt-get install -y chromium)");
    }
    bin
}

/// The served report's trace pages: a render target picture of a draw page is clickable
/// (the report's script marks it), and the page its click asks for, made by the server
/// from the capture, holds the pixel's history, ending in the replayed image's value at
/// the pixel, and a stepping view over as many steps as the lane trace
/// (`history::history`) has, the first one current once the page has loaded; the same
/// for a vertex through the draw page's form.
#[test]
fn the_served_trace_pages_step_through_the_lane_traces() {
    let Some(bin) = chromium_or_skip() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("gtsim-browser-pixel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let trace = gtsim_gpu::aub::parse(TRIANGLE);
    gtsim_inspect::inspect(&trace, "triangle.aub", &dir, |_, _| {}).unwrap();
    let profile = dir.join("profile");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let pages: std::sync::Arc<dyn gtsim_inspect::serve::Pages> = std::sync::Arc::new(
        gtsim_inspect::trace_page::TracePages::new(gtsim_gpu::aub::parse(TRIANGLE)),
    );
    let root = dir.clone();
    std::thread::spawn(move || gtsim_inspect::serve::serve_with(&root, listener, Some(pages)));

    let dom = browse_url(
        &bin,
        &profile,
        &["--dump-dom"],
        &format!("http://{addr}/draw-2.html"),
    );
    let img = dom
        .split("<img ")
        .find(|i| i.contains("alt=\"after\"") && i.contains("data-rt=\""))
        .expect("the render target's after picture carries its target");
    assert!(img.contains("click a pixel for its history"), "{img}");
    let rt = img
        .split("data-rt=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();

    // (32, 40): inside the triangle (crates/inspect/tests/history.rs).
    let (x, y) = (32, 40);
    let r = gtsim_gpu::replay::replay(&trace, |_, _| {});
    let (w, _, px) = gtsim_gpu::replay::read_rgba8(&r.mem, &r.render_targets[0]).unwrap();
    let i = 4 * (y * w + x) as usize;
    let final_line = format!("final {} {} {} {}", px[i], px[i + 1], px[i + 2], px[i + 3]);
    let t = gtsim_inspect::history::targets(&trace);
    let h = gtsim_inspect::history::history(
        &trace,
        t[0],
        (x, y),
        gtsim_inspect::history::LaneTrace::LastWrite,
    );
    let steps: usize = h
        .draws
        .iter()
        .flat_map(|d| &d.events)
        .map(|e| match e {
            gtsim_dataport::probe::Event::LaneTrace { lines, .. } => lines.len(),
            _ => 0,
        })
        .sum();
    assert!(steps > 0, "the history has a lane trace");

    let dom = browse_url(
        &bin,
        &profile,
        &["--dump-dom"],
        &format!("http://{addr}/pixel.html?rt={rt}&x={x}&y={y}"),
    );
    assert!(dom.contains(&final_line), "{final_line} in {dom}");
    assert_eq!(body_attr(&dom, "steps"), Some(steps as u32), "{dom}");
    assert_eq!(body_attr(&dom, "current"), Some(1), "{dom}");
    assert!(dom.contains("<li class=\"cur\">"), "{dom}");

    // The draw page's vertex form asks for vertex.html: vertex 1 of draw 2, stepped
    // over as many instructions as its trace has.
    let v = gtsim_inspect::history::vertex_trace(&trace, 2, 1);
    let vsteps: usize = v
        .events
        .iter()
        .map(|e| match e {
            gtsim_dataport::probe::Event::LaneTrace { lines, .. } => lines.len(),
            _ => 0,
        })
        .sum();
    assert!(vsteps > 0);
    let draw = browse_url(
        &bin,
        &profile,
        &["--dump-dom"],
        &format!("http://{addr}/draw-2.html"),
    );
    assert!(draw.contains("action=\"vertex.html\""), "{draw}");
    let dom = browse_url(
        &bin,
        &profile,
        &["--dump-dom"],
        &format!("http://{addr}/vertex.html?draw=2&vertex=1"),
    );
    assert_eq!(body_attr(&dom, "steps"), Some(vsteps as u32), "{dom}");
    assert!(dom.contains("vertex 1 of the 3 vertices draw 2"), "{dom}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_report_opens_in_a_browser() {
    let Some(bin) = chromium_or_skip() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("gtsim-browser-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let trace = gtsim_gpu::aub::parse(TRIANGLE);
    gtsim_inspect::inspect(&trace, "triangle.aub", &dir, |_, _| {}).unwrap();
    let profile = dir.join("profile");

    // The index: the draw list with its three draws, its thumbnails decoded.
    let dom = browse(&bin, &profile, &["--dump-dom"], &dir.join("index.html"));
    let list = &dom[dom.find("id=\"draw-list\"").expect("the draw list")..];
    let list = &list[..list.find("</table>").unwrap()];
    assert_eq!(list.matches("<tr class=\"draw\">").count(), 3, "{list}");
    assert_eq!(body_attr(&dom, "images-broken"), Some(0), "broken images");
    assert!(body_attr(&dom, "images-decoded") >= Some(1));

    // The last draw's page: the state table with the manual's field names, before and
    // after images decoded, none broken.
    let page = dir.join("draw-2.html");
    let dom = browse(&bin, &profile, &["--dump-dom"], &page);
    assert!(dom.contains("<h3>Vertex shader</h3>"));
    assert!(
        dom.contains("<td>Kernel Start Pointer</td>"),
        "a state table"
    );
    assert!(dom.contains("IA_VERTICES_COUNT</td><td>3</td>"));
    assert!(body_attr(&dom, "images-decoded") >= Some(2));
    assert_eq!(body_attr(&dom, "images-broken"), Some(0));

    // What a person sees: the screenshot has the after image's saturated colours (the
    // triangle's red, green and blue corners), which nothing else on the page has.
    let shot = dir.join("shot.png");
    browse(
        &bin,
        &profile,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1000,800",
        ],
        &page,
    );
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    let saturated = |want: usize| {
        buf[..info.buffer_size()]
            .chunks(step)
            .filter(|p| (0..3).all(|c| if c == want { p[c] > 150 } else { p[c] < 90 }))
            .count()
    };
    for (c, name) in [(0, "red"), (1, "green"), (2, "blue")] {
        assert!(saturated(c) > 20, "the screenshot shows no {name} corner");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
