//! The report of real captures: the triangle client's trace (crocus through gtsim,
//! `crates/cli/data/triangle.aub`) and a trace that hangs.

use gtsim_gpu::aub::{self, AubWriter};
use gtsim_gpu::device::DeviceLimits;
use gtsim_inspect::record::Recorder;
use std::path::{Path, PathBuf};

const TRIANGLE: &[u8] = include_bytes!("../../cli/data/triangle.aub");

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gtsim-inspect-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn read(dir: &Path, page: &str) -> String {
    std::fs::read_to_string(dir.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"))
}

fn png(dir: &Path, file: &str) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(dir.join(file)).unwrap(),
    ));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// Every draw of the capture is listed and has its page with the state by stage, the
/// kernels, the counts and the render target before and after; the last render target
/// is what `gtsim replay` (the same trace without an observer) reads back.
#[test]
fn the_triangle_capture_shows_every_draw() {
    let dir = out_dir("triangle");
    let trace = aub::parse(TRIANGLE);
    let summary = gtsim_inspect::inspect(&trace, "triangle.aub", &dir, |_, _| {}).unwrap();
    assert_eq!(
        (summary.submissions, summary.draws, summary.hangs),
        (2, 3, 0)
    );
    let index = read(&dir, "index.html");
    for i in 0..3 {
        assert!(
            index.contains(&format!("href=\"draw-{i}.html\"")),
            "draw {i} listed"
        );
    }
    // The model behind the pages.
    let mut rec = Recorder::new("t".into(), dir.clone());
    gtsim_gpu::replay::replay_observed(&trace, DeviceLimits::default(), |_, _| {}, Some(&mut rec));
    let plain = gtsim_gpu::replay::replay(&trace, |_, _| {});
    let report = rec.finish().unwrap();
    let r = &report;
    let last = r.draws.last().unwrap();
    // One triangle: three vertices, one primitive (the client draws glDrawArrays of 3).
    assert_eq!((last.stats.ia_vertices, last.stats.ia_primitives), (3, 1));
    let w = &last.written[0];
    let (aw, ah, after) = png(&dir, w.after.file.as_ref().unwrap());
    let rt = plain
        .render_targets
        .iter()
        .find(|t| t.surface.base == w.addr)
        .expect("the replay wrote the same render target");
    let (rw, rh, replayed) = gtsim_gpu::replay::read_rgba8(&plain.mem, rt).unwrap();
    assert_eq!((aw, ah), (rw, rh));
    // Colour is shown opaque: the replay's RGB, alpha 255.
    let opaque: Vec<u8> = replayed
        .chunks(4)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    assert_eq!(
        after, opaque,
        "the report's after image is the replay's render target"
    );
    let (_, _, before) = png(&dir, w.before.file.as_ref().unwrap());
    assert_ne!(before, after, "the draw changed its render target");
    // What ran, counted whatever the statistics count: the three vertices, the one
    // triangle, a pixel dispatched for every pixel it changed (its interpolated colours
    // are never the clear colour), and at least a pixel shader thread per 16 of them
    // (SIMD16, Gen7's widest pixel dispatch).
    let changed = before
        .chunks(4)
        .zip(after.chunks(4))
        .filter(|(b, a)| b != a)
        .count() as u64;
    assert_eq!((last.ran.vertices, last.ran.primitives), (3, 1));
    assert_eq!(last.ran.pixels, changed, "pixels dispatched");
    assert!(last.ran.threads >= changed.div_ceil(16), "{:?}", last.ran);
    assert!(last.ran.eu_instructions >= last.ran.threads);
    // The driver's own clear before it ran with statistics off: its counters say 0,
    // what ran says every pixel of the render target.
    assert!(
        r.draws[..r.draws.len() - 1]
            .iter()
            .any(|d| d.stats.ps_invocations == 0 && d.ran.pixels == u64::from(aw * ah)),
        "the clear's pixels are counted"
    );
    // Its page: state by stage with the manual's field names, kernels, counts.
    let page = read(&dir, &format!("draw-{}.html", r.draws.len() - 1));
    for want in [
        "<h3>Vertex shader</h3>",
        "3DSTATE_VS",
        "Kernel Start Pointer",
        "<h3>Windower and pixel shader</h3>",
        "3DSTATE_PS",
        "pixel shader, SIMD8",
        "EOT",
        "IA_VERTICES_COUNT</td><td>3",
        "R8G8B8A8_UNORM",
        // The indirect state the pointers reach, with its fields.
        "SF_CLIP_VIEWPORT at 0x",
        "BLEND_STATE entry 0 at 0x",
        "Color Buffer Blend Enable",
    ] {
        assert!(page.contains(want), "draw page lacks {want:?}");
    }
    // Every picture the pages name exists and decodes.
    for d in &r.draws {
        for w in &d.written {
            for p in [&w.before, &w.after] {
                if let Some(f) = &p.file {
                    let (x, y, px) = png(&dir, f);
                    assert_eq!((x, y), p.size);
                    assert_eq!(px.len(), (x * y * 4) as usize);
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A submission that hangs opens on its own page: the reason, the command, the batch
/// around it, the state at that moment; the index links it.
#[test]
fn a_hang_has_its_own_page() {
    let dwords = |d: &[u32]| -> Vec<u8> { d.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let mut w = AubWriter::new("hang", 0x0162);
    // PIPELINE_SELECT 3D, MI_NOOP, then a dword no Gen7 command has (opcode 0x1f of the
    // MI client is not defined), then MI_BATCH_BUFFER_END.
    w.write_memory(
        0x20000,
        &dwords(&[0x6904_0000, 0, 0x0f80_0000, 0x0500_0000]),
        0,
    );
    w.exec(0x20000, 0);
    let trace = aub::parse(&w.finish());
    let dir = out_dir("hang");
    let summary = gtsim_inspect::inspect(&trace, "hang.aub", &dir, |_, _| {}).unwrap();
    assert_eq!(summary.hangs, 1);
    let index = read(&dir, "index.html");
    assert!(index.contains("href=\"hang-0.html\""));
    let page = read(&dir, "hang-0.html");
    assert!(
        page.contains("unknown command 0x0f800000 at 0x20008"),
        "{page}"
    );
    assert!(page.contains("PIPELINE_SELECT"), "the batch before it");
    assert!(
        page.contains("In a command that could not be fetched or is not listed at <code>0x20008")
    );
    assert!(
        page.contains("0f800000 05000000"),
        "the dwords from the hang"
    );
    assert!(page.contains("Command streamer"), "the state at the hang");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A batch that jumps to itself runs past the command limit: its hang page says so and
/// names where the batch started, without taking a listed command for the culprit.
#[test]
fn a_runaway_batch_names_where_it_started() {
    let dwords = |d: &[u32]| -> Vec<u8> { d.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let mut w = AubWriter::new("runaway", 0x0162);
    // MI_NOOP, then MI_BATCH_BUFFER_START back to the batch's start.
    w.write_memory(0x20000, &dwords(&[0, 0x1880_0000, 0x20000]), 0);
    w.exec(0x20000, 0);
    let trace = aub::parse(&w.finish());
    let dir = out_dir("runaway");
    let limits = DeviceLimits {
        max_commands: 1000,
        ..DeviceLimits::BUILT_IN
    };
    let s = gtsim_inspect::inspect_limited(&trace, "runaway.aub", &dir, limits, |_, _| {}).unwrap();
    assert_eq!(s.hangs, 1);
    let page = read(&dir, "hang-0.html");
    assert!(
        page.contains("executed 1000 commands without MI_BATCH_BUFFER_END"),
        "{page}"
    );
    // The replay starts each submission at its ring (offset 0 here), which jumps to the
    // batch.
    assert!(
        page.contains("In the batch that started at <code>0x0<"),
        "{page}"
    );
    assert!(
        !page.contains("class=\"hang\"><td>"),
        "no listed command marked"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A draw that hangs (the pixel watchdog set below the triangle's pixels) keeps its page
/// with the render target as it left it, linked from its hang page.
#[test]
fn a_draw_that_hangs_shows_what_it_had_written() {
    let dir = out_dir("draw-hang");
    let limits = DeviceLimits {
        work: gtsim_pipe3d::draw::WorkLimits {
            pixels: 10,
            ..DeviceLimits::BUILT_IN.work
        },
        ..DeviceLimits::BUILT_IN
    };
    let trace = aub::parse(TRIANGLE);
    let s = gtsim_inspect::inspect_limited(&trace, "t", &dir, limits, |_, _| {}).unwrap();
    assert_eq!(s.hangs, 1);
    let hang = read(&dir, "hang-0.html");
    assert!(hang.contains("watchdog"), "{hang}");
    let d = hang
        .split("<a href=\"draw-")
        .nth(1)
        .and_then(|r| r.split('.').next())
        .expect("the hang page links its draw");
    let page = read(&dir, &format!("draw-{d}.html"));
    assert!(page.contains("The draw hung"));
    assert!(
        page.contains("render target (binding table entry 0)"),
        "{page}"
    );
    assert!(page.contains("after (64x64"));
    let _ = std::fs::remove_dir_all(&dir);
}
