//! Intel's VA-API driver for Ivy Bridge (Debian `i965-va-driver`) on gtsim, driven by a
//! real program: ffmpeg's VA-API video post-processing filters. The driver runs its
//! media kernels (MEDIA_OBJECT threads sampling through the media sampler's sample_8x8
//! AVS messages, seed 000 §2.9) on the emulated render ring; the frames that come back
//! are compared with the seed's formulas worked from the same input (`avs` for the
//! scaler) and elsewhere with ffmpeg's own software filters on the same input.
//!
//! Needs ffmpeg and the VA driver (`apt-get install -y ffmpeg i965-va-driver`). Where
//! they are missing the tests say so and pass, except under CI (`CI` set), where they
//! fail.

#[path = "va_on_gtsim/avs.rs"]
mod avs;
mod common;

use common::{gtsim, psnr};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh file path for `name` (`common::tmp` in this test's folder).
fn tmp(name: &str) -> PathBuf {
    common::tmp("gtsim-va", name)
}

fn va_present() -> bool {
    let present = Path::new("/usr/lib/x86_64-linux-gnu/dri/i965_drv_video.so").is_file()
        && Path::new("/usr/lib/x86_64-linux-gnu/dri/crocus_dri.so").is_file()
        && Command::new("ffmpeg").arg("-version").output().is_ok();
    if !present {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install ffmpeg, i965-va-driver and Mesa"
        );
        eprintln!("SKIPPED: ffmpeg, Intel's i965 VA driver or Mesa is not installed");
    }
    present
}

/// One frame of the lavfi source `source` at `size`, through `filters`, as raw NV12:
/// on gtsim through the VA driver when `hardware`, else in ffmpeg's software.
fn frame(hardware: bool, source: &str, size: &str, filters: &str, out: &Path) -> (Vec<u8>, String) {
    frames(hardware, source, size, filters, 1, out)
}

/// [`frame`] for the first `count` frames of the source.
fn frames(
    hardware: bool,
    source: &str,
    size: &str,
    filters: &str,
    count: u32,
    out: &Path,
) -> (Vec<u8>, String) {
    let input = format!("{source}=size={size}:rate=25");
    let mut cmd = if hardware {
        let mut c = Command::new(gtsim());
        c.args(["run", "--", "ffmpeg"]);
        c.args([
            "-init_hw_device",
            "vaapi=va:/dev/dri/renderD128",
            "-filter_hw_device",
            "va",
        ]);
        c
    } else {
        Command::new("ffmpeg")
    };
    cmd.args(["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"]);
    cmd.arg(&input);
    cmd.args(["-frames:v", &count.to_string(), "-vf", filters]);
    cmd.args(["-f", "rawvideo", "-y"]);
    cmd.arg(out);
    let o = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        o.status.success() || hardware,
        "software ffmpeg failed: {stderr}"
    );
    (std::fs::read(out).unwrap_or_default(), stderr)
}

/// scale_vaapi to `w` x `h` on gtsim and ffmpeg's bicubic `scale` on the CPU, NV12 out,
/// the frame uploaded as `upload` (yuv420p or nv12): the (Y, UV) PSNR between them.
fn scale(source: &str, size: &str, upload: &str, w: u32, h: u32) -> (f64, f64) {
    let hw = format!(
        "format={upload},hwupload,scale_vaapi=w={w}:h={h}:format=nv12,hwdownload,format=nv12"
    );
    let sw = format!("format={upload},scale={w}:{h}:flags=bicubic,format=nv12");
    let (a, log) = frame(true, source, size, &hw, &tmp("hw.yuv"));
    assert!(!log.contains("GPU HANG"), "{log}");
    let (b, _) = frame(false, source, size, &sw, &tmp("sw.yuv"));
    let n = (w * h) as usize;
    assert_eq!(a.len(), n * 3 / 2, "an NV12 frame of {w}x{h}: {log}");
    (psnr(&a[..n], &b[..n]), psnr(&a[n..], &b[n..]))
}

/// scale_vaapi of the lavfi `source` at `size`, uploaded as `upload` (yuv420p or nv12),
/// to `w` x `h` NV12 on gtsim, against the seed's AVS result worked in [`avs`] from the
/// driver's coefficient tables: every Y, U and V sample in the range the formula allows.
fn scale_is_the_seeds_avs(
    source: &str,
    (size, width, height): (&str, u32, u32),
    upload: &str,
    (w, h): (u32, u32),
    (luma, chroma): (&avs::Table, &avs::Table),
) {
    let hw = format!(
        "format={upload},hwupload,scale_vaapi=w={w}:h={h}:format=nv12,hwdownload,format=nv12"
    );
    let (got, log) = frame(true, source, size, &hw, &tmp("hw.yuv"));
    assert!(!log.contains("GPU HANG"), "{log}");
    let n = (w * h) as usize;
    assert_eq!(got.len(), n * 3 / 2, "an NV12 frame of {w}x{h}: {log}");
    // The frame the driver uploads, as ffmpeg converts it in software.
    let (src, _) = frame(
        false,
        source,
        size,
        &format!("format={upload}"),
        &tmp("src.yuv"),
    );
    let (sw, sh) = (width as usize, height as usize);
    assert_eq!(src.len(), sw * sh * 3 / 2, "the {upload} source frame");
    let plane = |offset, width, height, stride, step| avs::Plane {
        data: &src,
        width,
        height,
        offset,
        stride,
        step,
    };
    let (cw, ch) = (width / 2, height / 2);
    // Y, then U and V: NV12 interleaves them (U first), yuv420p has a plane each.
    let sources = if upload == "nv12" {
        [
            plane(0, width, height, sw, 1),
            plane(sw * sh, cw, ch, sw, 2),
            plane(sw * sh + 1, cw, ch, sw, 2),
        ]
    } else {
        let q = sw * sh / 4;
        [
            plane(0, width, height, sw, 1),
            plane(sw * sh, cw, ch, sw / 2, 1),
            plane(sw * sh + q, cw, ch, sw / 2, 1),
        ]
    };
    let out = |offset, width, height, step| avs::Plane {
        data: &got,
        width,
        height,
        offset,
        stride: w as usize,
        step,
    };
    let planes = [
        ("Y", out(0, w, h, 1), (w, h), luma),
        ("U", out(n, w / 2, h / 2, 2), (w / 2, h / 2), chroma),
        ("V", out(n + 1, w / 2, h / 2, 2), (w / 2, h / 2), chroma),
    ];
    for ((name, got, to, table), source) in planes.iter().zip(&sources) {
        let (wrong, loose) = avs::check(source, *to, table, got);
        assert!(
            wrong.is_empty(),
            "{size} {upload} to {w}x{h}, plane {name}: {} samples outside the seed's AVS \
             result, e.g. (x, y, got, lowest, highest) {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(8)]
        );
        // The range is one value but where the sum falls within a 16-bit step of a
        // rounding boundary: a bound that let most samples take two values would not
        // test much.
        let samples = (to.0 * to.1) as usize;
        assert!(
            loose * 50 < samples,
            "plane {name}: {loose} of {samples} samples have two allowed values"
        );
    }
}

#[test]
fn scale_vaapi_on_gtsim_is_the_seeds_avs_filter() {
    if !va_present() {
        return;
    }
    // Same size: every sample lands on a texel (phase 0 of the driver's tables is the
    // identity there), so the frame comes back bit for bit.
    let (y, uv) = scale("testsrc", "64x48", "yuv420p", 64, 48);
    assert_eq!((y, uv), (99.0, 99.0), "identity scaling is exact");
    // An NV12 upload writes the driver's Y-tiled surface through a GTT map (the i915
    // emulation's linear view, crates/i915/src/detile.rs).
    let (y, uv) = scale("testsrc", "64x48", "nv12", 64, 48);
    assert_eq!((y, uv), (99.0, 99.0), "NV12 upload through a GTT map");
    // 2:1 down from a planar (I420) upload, the driver's PL3 kernel; 2:3 up from an
    // NV12 one, its NV12 AVS kernel.
    scale_is_the_seeds_avs(
        "testsrc2",
        ("128x96", 128, 96),
        "yuv420p",
        (64, 48),
        (&avs::LUMA_DOWN_2, &avs::CHROMA_DOWN_2),
    );
    scale_is_the_seeds_avs(
        "testsrc2",
        ("64x48", 64, 48),
        "nv12",
        (96, 72),
        (&avs::LUMA_UP, &avs::CHROMA_UP),
    );
}

/// One 64x48 testsrc2 frame as NV12 (ffmpeg's software conversion), and the same frame
/// through `filter` on gtsim.
fn filtered(filter: &str) -> (Vec<u8>, Vec<u8>) {
    let (src, _) = frame(false, "testsrc2", "64x48", "format=nv12", &tmp("src.yuv"));
    let hw = format!("format=nv12,hwupload,{filter},hwdownload,format=nv12");
    let (out, log) = frame(true, "testsrc2", "64x48", &hw, &tmp("filtered.yuv"));
    assert!(!log.contains("GPU HANG"), "{log}");
    assert_eq!(out.len(), src.len(), "{log}");
    (src, out)
}

const W: i64 = 64;
const H: i64 = 48;

/// The luma of an NV12 frame at (x, y), clamped to the frame.
fn luma(f: &[u8], x: i64, y: i64) -> u8 {
    f[(y.clamp(0, H - 1) * W + x.clamp(0, W - 1)) as usize]
}

#[test]
fn denoise_vaapi_on_gtsim_is_the_seeds_first_frame_spatial_filter() {
    if !va_present() {
        return;
    }
    let (src, out) = filtered("denoise_vaapi=denoise=20");
    // The VA driver denoises every frame as a first frame ("forced to 100% spatial",
    // seed 000 §2.8.6) with Good Neighbor Threshold 4 and Progressive DN: each luma pixel
    // becomes the mean of its 3x3 neighbours within 4 of it, as seed 000 §2.8.2 computes
    // it with gn_q_table; its kernel copies the chroma.
    const GN_Q_TABLE: [u32; 9] = [2048, 1024, 682, 512, 409, 341, 292, 256, 227];
    let mut changed = 0;
    for y in 0..H {
        for x in 0..W {
            let c = i32::from(luma(&src, x, y));
            let (mut sum, mut num) = (0u32, 0usize);
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let n = luma(&src, x + dx, y + dy);
                    if (i32::from(n) - c).abs() <= 4 {
                        sum += u32::from(n);
                        num += 1;
                    }
                }
            }
            let expect = ((sum + (num as u32 >> 1)) * GN_Q_TABLE[num - 1]) >> 11;
            let got = luma(&out, x, y);
            assert_eq!(u32::from(got), expect, "luma ({x}, {y})");
            changed += usize::from(i32::from(got) != c);
        }
    }
    assert!(changed > 0, "the filter changed nothing");
    assert_eq!(
        out[(W * H) as usize..],
        src[(W * H) as usize..],
        "chroma copied"
    );
}

#[test]
fn deinterlace_vaapi_bob_on_gtsim_keeps_one_field_and_interpolates_the_other() {
    if !va_present() {
        return;
    }
    let (src, out) = filtered("deinterlace_vaapi=mode=bob");
    // A frame not flagged interlaced goes to the driver as bottom field first, field 0:
    // the bottom field (odd lines) is kept, and each even line is the rounded mean of
    // the odd lines around it (seed 000 §2.8.6: the first frame is deinterlaced by the
    // spatial deinterlacer, whose angle tree the seed lost; gtsim uses its 90-degree
    // default).
    for y in 0..H {
        for x in 0..W {
            let expect = if y % 2 == 1 {
                luma(&src, x, y)
            } else {
                let up = if y == 0 { 1 } else { y - 1 };
                ((u32::from(luma(&src, x, up)) + u32::from(luma(&src, x, y + 1)) + 1) >> 1) as u8
            };
            assert_eq!(luma(&out, x, y), expect, "luma ({x}, {y})");
        }
    }
}

#[test]
fn scale_vaapi_to_yuy2_keeps_the_luma_and_the_chroma_close() {
    if !va_present() {
        return;
    }
    // NV12 to packed YUY2 at the same size: the driver samples Y through the AVS at
    // phase 0 (exact) and interleaves it with chroma it upsamples vertically with its
    // own filter, where ffmpeg's software conversion interpolates differently: luma
    // bit for bit, chroma within a stated PSNR (measured 31.3 dB).
    let hw = "format=nv12,hwupload,scale_vaapi=w=64:h=48:format=yuyv422,hwdownload,format=yuyv422";
    let (out, log) = frame(true, "testsrc2", "64x48", hw, &tmp("yuy2.raw"));
    assert!(!log.contains("GPU HANG"), "{log}");
    let (sw, _) = frame(
        false,
        "testsrc2",
        "64x48",
        "format=nv12,format=yuyv422",
        &tmp("yuy2-sw.raw"),
    );
    let (src, _) = frame(false, "testsrc2", "64x48", "format=nv12", &tmp("nv12.raw"));
    assert_eq!(out.len(), (2 * W * H) as usize, "{log}");
    let luma: Vec<u8> = out.iter().step_by(2).copied().collect();
    assert_eq!(luma[..], src[..(W * H) as usize], "luma");
    let chroma = |f: &[u8]| -> Vec<u8> { f.iter().skip(1).step_by(2).copied().collect() };
    let p = psnr(&chroma(&out), &chroma(&sw));
    assert!(p >= 30.0, "chroma PSNR {p:.2}");
}

#[test]
fn deinterlace_vaapi_motion_adaptive_settles_on_the_static_frame() {
    if !va_present() {
        return;
    }
    // Four frames of testsrc2 at 64x48 (frames 0-2 alike, 3 different: the source moves
    // slowly). The first call is a first frame (spatial only, §2.8.6); later ones blend
    // spatial and temporal by the STMM, which the driver feeds back through its
    // statistics surfaces (read here as the render surface it binds). On static content
    // the stored STMM decays, the temporal side wins, and the fourth output is the
    // progressive source frame itself, as a motion-adaptive deinterlacer should give.
    let (out, log) = frames(
        true,
        "testsrc2",
        "64x48",
        "format=nv12,hwupload,deinterlace_vaapi=mode=motion_adaptive,hwdownload,format=nv12",
        4,
        &tmp("ma.yuv"),
    );
    assert!(!log.contains("GPU HANG"), "{log}");
    let (src, _) = frames(
        false,
        "testsrc2",
        "64x48",
        "format=nv12",
        4,
        &tmp("ma-src.yuv"),
    );
    let frame = (W * H * 3 / 2) as usize;
    assert_eq!(out.len(), 4 * frame, "{log}");
    let luma = |f: &[u8], i: usize| f[i * frame..i * frame + (W * H) as usize].to_vec();
    assert_eq!(
        luma(&out, 3),
        luma(&src, 3),
        "the fourth output is the source frame"
    );
    assert!(
        psnr(&luma(&out, 0), &luma(&src, 0)) < 40.0,
        "the first is spatial only"
    );
}
