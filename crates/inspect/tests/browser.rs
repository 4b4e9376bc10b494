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
    let out = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
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

#[test]
fn the_report_opens_in_a_browser() {
    let Some(bin) = chromium() else {
        assert!(
            std::env::var_os("GTSIM_REQUIRE_CHROMIUM").is_none(),
            "GTSIM_REQUIRE_CHROMIUM is set but no chromium is on PATH"
        );
        eprintln!("skipped: no Chromium on PATH (apt-get install -y chromium)");
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
