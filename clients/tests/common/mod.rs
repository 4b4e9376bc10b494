//! What the client tests share: the gtsim binary, fresh temporary paths, reading PNGs
//! and comparing an image with a reference within a stated tolerance.

#![allow(dead_code, reason = "each test binary uses a part")]

use std::path::{Path, PathBuf};

/// The `gtsim` binary built beside the client binaries.
pub fn gtsim() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_BIN_EXE_clear"))
        .parent()
        .unwrap()
        .join("gtsim");
    assert!(p.is_file(), "{} not built", p.display());
    p
}

/// This test binary's folder `prefix` under Cargo's test scratch directory
/// (`target/tmp`), emptied on first use in each run: what a run leaves (captures and
/// images, 160 MB for the GL clients) stays there to look at until the next run
/// replaces it, rather than piling up in `/tmp` one folder per run.
pub fn scratch_dir(prefix: &str) -> PathBuf {
    static CLEARED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(prefix);
    let mut cleared = CLEARED.lock().unwrap_or_else(|e| e.into_inner());
    if !cleared.iter().any(|p| p == prefix) {
        let _ = std::fs::remove_dir_all(&dir);
        cleared.push(prefix.to_string());
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fresh file path for `name` in [`scratch_dir`]`(prefix)`: the tests run in
/// parallel, each call gets its own.
pub fn tmp(prefix: &str, name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    scratch_dir(prefix).join(format!("{n}-{name}"))
}

/// An RGBA8 PNG's size and pixels.
pub fn read_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// Compares the image at `got` with the one at `reference` (rendered by `oracle`):
/// a pixel differs when a channel is more than `tol` apart, and at most `allowed` may.
/// Prints the counts with `why`; returns the failure, if any, after saving an image of
/// the differing pixels (white where they agree, the pixel of `got` where they differ)
/// beside `got` and naming it.
pub fn compare_images(
    name: &str,
    got: &Path,
    reference: &Path,
    oracle: &str,
    (tol, allowed, why): (u8, usize, &str),
) -> Option<String> {
    let (w, h, want) = read_png(reference);
    let (gw, gh, got_pixels) = read_png(got);
    assert_eq!((w, h), (gw, gh), "{name}: image sizes");
    let mut differ = 0;
    let mut worst = 0u8;
    let mut diff = vec![255u8; got_pixels.len()];
    for (i, (a, b)) in got_pixels.chunks(4).zip(want.chunks(4)).enumerate() {
        let d = a
            .iter()
            .zip(b)
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0);
        worst = worst.max(d);
        if d > tol {
            differ += 1;
            diff[i * 4..i * 4 + 4].copy_from_slice(a);
        }
    }
    eprintln!(
        "{name}: {differ} pixels beyond tolerance {tol} ({why}), largest channel difference {worst}"
    );
    if differ <= allowed {
        return None;
    }
    let path = got.with_file_name(format!(
        "{}-difference.png",
        got.file_stem().unwrap().to_string_lossy()
    ));
    let f = std::fs::File::create(&path).unwrap();
    let mut enc = png::Encoder::new(std::io::BufWriter::new(f), w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header().unwrap().write_image_data(&diff).unwrap();
    Some(format!(
        "{name}: {differ} of {} pixels (allowed {allowed}) differ from {oracle} by more than {tol} (largest {worst}); see {}",
        w * h,
        path.display()
    ))
}

/// Peak signal-to-noise ratio of 8-bit samples, in dB (99 for identical ones).
pub fn psnr(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let mse = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum::<f64>()
        / a.len() as f64;
    if mse == 0.0 {
        99.0
    } else {
        10.0 * (255.0 * 255.0 / mse).log10()
    }
}
