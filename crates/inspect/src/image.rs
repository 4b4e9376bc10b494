//! Surfaces as PNG files: every level and slice of a colour surface as RGBA8 (as
//! `gtsim replay` shows render targets), depth and stencil as grey scales. Files are
//! named by a hash of their pixels, so an image that recurs across draws is written once.

use crate::model::Picture;
use gtsim_mem::Memory;
use gtsim_mem::format::texel::Texel;
use gtsim_mem::layout::SurfaceType;
use gtsim_mem::surface::{Surface, TexelCoord};
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

/// The largest image written, in pixels a side; larger levels are noted, not drawn.
pub const MAX_SIDE: u32 = 4096;
/// The most slices shown of one surface.
pub const MAX_SLICES: u32 = 64;
/// The most pixels one report reads for each kind of picture ([`Kind`]; a hostile
/// capture's surfaces could ask for far more); past it, pictures are noted, not drawn.
pub const BUDGET: u64 = 1 << 28;

/// Which budget a picture is charged to: what draws wrote has its own, so that the
/// textures of early draws cannot leave later render targets undrawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Render targets, depth and stencil before and after a draw.
    Written,
    /// The surfaces the binding tables name.
    Surface,
}

/// How a surface's texels become grey or colour pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shade {
    /// RGBA as the format decodes it.
    Colour,
    /// The first channel as grey: 0.0 black, 1.0 white (depth).
    Depth,
    /// The first channel as grey, 0 to 255 (stencil).
    Stencil,
}

/// Where pictures go.
pub struct Images {
    dir: PathBuf,
    written: HashSet<String>,
    /// Pixels still to be read ([`BUDGET`]), written pictures and surfaces.
    budget: [u64; 2],
}

impl Images {
    /// Pictures in `dir`/img.
    pub fn new(dir: PathBuf) -> Images {
        Images {
            dir,
            written: HashSet::new(),
            budget: [BUDGET; 2],
        }
    }

    /// Level `lod`, slice `slice` of `surface` as a picture labelled `label`.
    pub fn picture(
        &mut self,
        mem: &dyn Memory,
        surface: &Surface,
        (lod, slice): (u32, u32),
        (shade, kind): (Shade, Kind),
        label: String,
    ) -> Picture {
        let d = &surface.desc;
        let (w, h) = (
            (d.width >> lod).max(1),
            if d.ty == SurfaceType::D1 {
                1
            } else {
                (d.height >> lod).max(1)
            },
        );
        // A multisampled surface shows its sample 0.
        let label = if d.samples > 1 {
            format!("{label}, sample 0 of {}", d.samples)
        } else {
            label
        };
        let mut picture = Picture {
            label,
            size: (w, h),
            ..Picture::default()
        };
        if w > MAX_SIDE || h > MAX_SIDE {
            picture.note = Some(format!("{w}x{h}: larger than {MAX_SIDE} a side, not drawn"));
            return picture;
        }
        let pixels = u64::from(w) * u64::from(h);
        let budget = &mut self.budget[kind as usize];
        if pixels > *budget {
            picture.note = Some(format!(
                "not drawn: the report's budget of {BUDGET} pixels is spent"
            ));
            return picture;
        }
        *budget -= pixels;
        let mut px = Vec::with_capacity((w * h * 4) as usize);
        for y in 0..h {
            for x in 0..w {
                let at = TexelCoord {
                    x,
                    y,
                    slice,
                    lod,
                    sample: 0,
                };
                match surface.read_texel(mem, at) {
                    Ok(t) => px.extend_from_slice(&pixel(t, shade)),
                    Err(e) => {
                        picture.note = Some(format!("texel ({x}, {y}): {e}"));
                        return picture;
                    }
                }
            }
        }
        if shade == Shade::Colour {
            // Colour is shown opaque (a render target's alpha is often 0, which a browser
            // would show as nothing); alpha goes beside it as a grey scale when it varies,
            // or in the caption when it is one value other than 255.
            let first = px[3];
            if px.chunks(4).all(|p| p[3] == first) {
                picture.alpha_value = (first != 255).then_some(first);
            } else {
                let alpha: Vec<u8> = px.chunks(4).flat_map(|p| [p[3], p[3], p[3], 255]).collect();
                match self.store(w, h, &alpha) {
                    Ok(file) => picture.alpha = Some(file),
                    Err(e) => picture.note = Some(e),
                }
            }
            for p in px.chunks_mut(4) {
                p[3] = 255;
            }
        }
        match self.store(w, h, &px) {
            Ok(file) => picture.file = Some(file),
            Err(e) => picture.note = Some(e),
        }
        picture
    }

    /// Every level and slice of `surface` (at most [`MAX_SLICES`] slices).
    pub fn all(&mut self, mem: &dyn Memory, surface: &Surface, shade: Shade) -> Vec<Picture> {
        let kind = Kind::Surface;
        let d = &surface.desc;
        let mut out = vec![];
        for lod in 0..d.levels.max(1) {
            let slices = match d.ty {
                SurfaceType::D3 => (d.depth >> lod).max(1),
                // Depth counts cubes; each has six faces.
                SurfaceType::Cube => d.depth.max(1).saturating_mul(6),
                _ => d.depth.max(1),
            };
            for slice in 0..slices.min(MAX_SLICES) {
                let label = if slices > 1 {
                    format!("level {lod}, slice {slice}")
                } else {
                    format!("level {lod}")
                };
                out.push(self.picture(mem, surface, (lod, slice), (shade, kind), label));
            }
            if slices > MAX_SLICES {
                out.push(Picture {
                    label: format!("level {lod}, slices {MAX_SLICES}-{}", slices - 1),
                    note: Some(format!("only the first {MAX_SLICES} slices are drawn")),
                    ..Picture::default()
                });
            }
        }
        out
    }

    fn store(&mut self, w: u32, h: u32, rgba: &[u8]) -> Result<String, String> {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (w, h, rgba).hash(&mut hasher);
        let name = format!("img/{:016x}.png", hasher.finish());
        if self.written.contains(&name) {
            return Ok(name);
        }
        let path = self.dir.join(&name);
        std::fs::create_dir_all(self.dir.join("img"))
            .map_err(|e| e.into())
            .and_then(|()| write_png(&path, w, h, rgba))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        self.written.insert(name.clone());
        Ok(name)
    }
}

/// Writes `rgba` (`w` x `h` RGBA8 pixels) as a PNG file (also `gtsim replay`'s images).
pub fn write_png(
    path: &std::path::Path,
    w: u32,
    h: u32,
    rgba: &[u8],
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let f = std::fs::File::create(path)?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(f), w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut wr = enc.write_header()?;
    wr.write_image_data(rgba)?;
    wr.finish()?;
    Ok(())
}

fn pixel(t: Texel, shade: Shade) -> [u8; 4] {
    match shade {
        Shade::Colour => gtsim_gpu::replay::texel_rgba8(t),
        Shade::Depth | Shade::Stencil => {
            let v = match t {
                Texel::Float(c) => {
                    if c[0].is_nan() {
                        0
                    } else {
                        (c[0].clamp(0.0, 1.0) * 255.0).round() as u8
                    }
                }
                Texel::Uint(c) => c[0].min(255) as u8,
                Texel::Sint(c) => c[0].clamp(0, 255) as u8,
            };
            [v, v, v, 255]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gtsim_mem::AddressSpace;
    use gtsim_mem::layout::SurfaceDesc;
    use gtsim_mem::tiling::Tiling;
    use gtsim_spec::shared::SurfaceFormat;

    fn rgba_2x1(texels: [[u8; 4]; 2]) -> (AddressSpace, Surface) {
        let mut mem = AddressSpace::new();
        mem.load(0x1000, &[texels[0], texels[1]].concat());
        let desc = SurfaceDesc::plain_2d(2, 1, 4, Tiling::Linear, 64);
        (
            mem,
            Surface::new(0x1000, desc, SurfaceFormat::R8G8B8A8_UNORM).unwrap(),
        )
    }

    fn pixels(dir: &std::path::Path, file: &str) -> Vec<u8> {
        let dec = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(dir.join(file)).unwrap(),
        ));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        buf
    }

    /// Colour is written opaque; an alpha that varies becomes a grey picture beside it,
    /// one that does not is named in the caption; a repeated image is written once.
    #[test]
    fn colour_is_opaque_and_alpha_goes_beside_it() {
        let dir = std::env::temp_dir().join(format!("gtsim-image-{}", std::process::id()));
        let mut images = Images::new(dir.clone());
        let (mem, s) = rgba_2x1([[10, 20, 30, 0], [40, 50, 60, 128]]);
        let p = images.picture(&mem, &s, (0, 0), (Shade::Colour, Kind::Written), "x".into());
        assert_eq!(
            pixels(&dir, p.file.as_ref().unwrap()),
            [10, 20, 30, 255, 40, 50, 60, 255]
        );
        assert_eq!(
            pixels(&dir, p.alpha.as_ref().unwrap()),
            [0, 0, 0, 255, 128, 128, 128, 255]
        );
        let (mem, s) = rgba_2x1([[10, 20, 30, 0], [40, 50, 60, 0]]);
        let q = images.picture(&mem, &s, (0, 0), (Shade::Colour, Kind::Written), "y".into());
        assert_eq!((q.alpha.as_ref(), q.alpha_value), (None, Some(0)));
        // The same colour as the first picture: the same file.
        assert_eq!(q.file, p.file);
        // As depth, the first channel in grey: UNORM 10/255 shows as 10.
        let d = images.picture(&mem, &s, (0, 0), (Shade::Depth, Kind::Written), "z".into());
        assert_eq!(
            pixels(&dir, d.file.as_ref().unwrap())[..4],
            [10, 10, 10, 255]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
