//! Many elements of one size taking one value, written as runs of neighbouring bytes.
//!
//! Clears store the same bytes at every pixel of a surface (a depth buffer clear, a
//! render target fast clear). Pixel by pixel that is one small write per pixel; a tiled
//! surface keeps neighbouring pixels in neighbouring bytes only within a tile row or
//! column, and a whole tile in one 4 KiB page. A [`Fill`] collects the elements' addresses
//! by page, one bit per byte, and then writes each run of marked bytes at once: the same
//! memory as the writes one by one, since every element takes the same bytes and the
//! order of writes to distinct bytes changes nothing.

use crate::layout::{ImageOffsets, LayoutError};
use crate::memory::Memory;
use crate::space::Fault;
use std::collections::HashMap;
use std::ops::Range;

/// Bytes per page of the collection.
const PAGE: u64 = 0x1000;

/// Elements of `size` bytes to be written with one value (see the module documentation).
#[derive(Debug)]
pub struct Fill {
    size: usize,
    /// The pages touched, each with its mask of marked bytes, in the order first touched.
    pages: Vec<(u64, [u64; 64])>,
    /// Page address to its place in `pages`.
    index: HashMap<u64, usize>,
    /// The place of the page last added to (elements of a row come in runs on a page).
    last: usize,
}

impl Fill {
    /// A fill of elements of `size` bytes; `None` unless the size is a power of two of at
    /// most 64 bytes (so that an element at a multiple of its size lies in one word of a
    /// page's mask).
    pub fn new(size: usize) -> Option<Fill> {
        (size.is_power_of_two() && size <= 64).then(|| Fill {
            size,
            pages: Vec::new(),
            index: HashMap::new(),
            last: 0,
        })
    }

    /// Adds the element at `addr`; `false` (and nothing added) when `addr` is not a
    /// multiple of the element size, for which the caller writes elements one by one.
    pub fn add(&mut self, addr: u64) -> bool {
        self.add_run(addr, 1)
    }

    /// Adds `count` elements one after the other from `addr` (the elements of `count`
    /// calls of [`Fill::add`] at `addr`, `addr + size`, ..., marked a word of bits at a
    /// time); `false` (and nothing added) when `addr` is not a multiple of the element
    /// size.
    pub fn add_run(&mut self, addr: u64, count: usize) -> bool {
        if !addr.is_multiple_of(self.size as u64) {
            return false;
        }
        let mut at = addr;
        let end = addr.saturating_add((count * self.size) as u64);
        while at < end {
            let page = at & !(PAGE - 1);
            let stop = end.min(page + PAGE);
            let mask = self.page_mask(page);
            let (mut b, e) = ((at - page) as usize, (stop - page) as usize);
            while b < e {
                let n = (64 - b % 64).min(e - b);
                let bits = if n == 64 {
                    u64::MAX
                } else {
                    ((1u64 << n) - 1) << (b % 64)
                };
                mask[b / 64] |= bits;
                b += n;
            }
            at = stop;
        }
        true
    }

    /// Adds the elements of texels `xs` x `ys` of image `img` of a surface at `base`
    /// (a rectangle inside the image, of one-texel blocks of this fill's size), a
    /// column of pieces at a time: the pieces of the rows a piece stacks over
    /// ([`ImageOffsets::column`]) are one run. `Ok(false)` when an element is not at a
    /// multiple of the size (the caller then goes element by element; what was added
    /// is to be dropped); the layout's error for a texel it refuses.
    pub fn add_rect(
        &mut self,
        base: u64,
        img: &ImageOffsets,
        xs: Range<u32>,
        ys: Range<u32>,
    ) -> Result<bool, LayoutError> {
        let mut x = xs.start;
        while x < xs.end {
            let want = xs.end - x;
            let mut y = ys.start;
            // The piece's width, from the first row (it depends on x only).
            let (_, k, _) = img.column(x, y, want)?;
            while y < ys.end {
                let (off, kk, rows) = img.column(x, y, k)?;
                if kk != k {
                    return Ok(false);
                }
                let rows = rows.min(ys.end - y);
                if !self.add_run(base.wrapping_add(off), (k * rows) as usize) {
                    return Ok(false);
                }
                y += rows;
            }
            x += k;
        }
        Ok(true)
    }

    /// The byte mask of `page`, added empty the first time.
    fn page_mask(&mut self, page: u64) -> &mut [u64; 64] {
        if self.pages.get(self.last).is_none_or(|p| p.0 != page) {
            self.last = match self.index.get(&page) {
                Some(&i) => i,
                None => {
                    self.pages.push((page, [0; 64]));
                    self.index.insert(page, self.pages.len() - 1);
                    self.pages.len() - 1
                }
            };
        }
        &mut self.pages[self.last].1
    }

    /// Writes `value` (the element's bytes) into every element added, page by page in
    /// address order, each run of marked bytes at once.
    pub fn write(mut self, mem: &mut dyn Memory, value: &[u8]) -> Result<(), Fault> {
        self.pages.sort_unstable_by_key(|p| p.0);
        if value.is_empty() {
            return Ok(());
        }
        // Every run starts at an element, so the value repeats from its first byte.
        let mut pattern = vec![0u8; PAGE as usize];
        let mut have = value.len().min(pattern.len());
        pattern[..have].copy_from_slice(&value[..have]);
        while have < pattern.len() {
            let n = have.min(pattern.len() - have);
            pattern.copy_within(..n, have);
            have += n;
        }
        let mut found = vec![];
        for (page, mask) in &self.pages {
            runs_into(mask, &mut found);
            for &(start, len) in &found {
                mem.write(page + start as u64, &pattern[..len])?;
            }
        }
        Ok(())
    }
}

/// Runs of pixels along rows ((row, first x, length), in any order) as rectangles
/// (columns, rows): the runs of consecutive rows that start and end at the same x
/// merged, the others one row high. The pixels are the same.
pub fn rectangles(runs: &[(u32, u32, u32)]) -> Vec<(Range<u32>, Range<u32>)> {
    let mut sorted = runs.to_vec();
    sorted.sort_unstable_by_key(|&(y, x, n)| (x, n, y));
    let mut out: Vec<(Range<u32>, Range<u32>)> = vec![];
    for (y, x, n) in sorted {
        match out.last_mut() {
            Some((xs, ys)) if xs.start == x && xs.end == x.saturating_add(n) && ys.end == y => {
                ys.end = y.saturating_add(1)
            }
            _ => out.push((x..x.saturating_add(n), y..y.saturating_add(1))),
        }
    }
    out
}

/// The runs of set bits of a 4096-bit mask: (first bit, length), in order.
#[cfg(test)]
fn runs(mask: &[u64; 64]) -> Vec<(usize, usize)> {
    let mut out = vec![];
    runs_into(mask, &mut out);
    out
}

/// The runs of set bits of a 4096-bit mask, (first bit, length) in order, into `out`
/// (cleared first, its allocation reused).
fn runs_into(mask: &[u64; 64], out: &mut Vec<(usize, usize)>) {
    out.clear();
    for (w, &word) in mask.iter().enumerate() {
        let mut m = word;
        while m != 0 {
            let lo = m.trailing_zeros() as usize;
            let n = (m >> lo).trailing_ones() as usize;
            let start = w * 64 + lo;
            match out.last_mut() {
                Some((s, l)) if *s + *l == start => *l += n,
                _ => out.push((start, n)),
            }
            m = if lo + n >= 64 {
                0
            } else {
                m & !(((1u64 << n) - 1) << lo)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AddressSpace;

    /// The project's seeded generator (`gtsim_fuzzkit::Rng`) from `seed`: each call
    /// gives a number below its argument.
    fn below(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut rng = gtsim_fuzzkit::Rng::new(gtsim_fuzzkit::seed(seed));
        move |n| rng.below(n as usize) as u64
    }

    #[test]
    fn runs_of_a_mask_cross_words_and_stop_at_gaps() {
        let mut m = [0u64; 64];
        m[0] = 0xf000_0000_0000_00f0;
        m[1] = 0x0000_0000_0000_0003;
        m[63] = 1 << 63;
        assert_eq!(runs(&m), vec![(4, 4), (60, 6), (4095, 1)]);
        assert_eq!(runs(&[u64::MAX; 64]), vec![(0, 4096)]);
    }

    /// Random elements of each size written with a fill leave the memory that writing
    /// them one by one leaves; a misaligned element is refused.
    #[test]
    fn a_fill_writes_what_the_elements_one_by_one_write() {
        let mut next = below(0x0123_4567_89ab_cdef);
        for size in [1usize, 2, 4, 8, 16, 64] {
            let mut base = AddressSpace::new();
            let bytes: Vec<u8> = (0..0x4000u32).map(|i| (i * 13 + 5) as u8).collect();
            base.load(0x8000, &bytes);
            let value: Vec<u8> = (0..size).map(|i| 0xa0 + i as u8).collect();
            let mut one_by_one = base.clone();
            let mut fill = Fill::new(size).unwrap();
            for _ in 0..500 {
                let addr = 0x8000 + next(0x4000 / size as u64) * size as u64;
                one_by_one.write(addr, &value).unwrap();
                assert!(fill.add(addr));
            }
            if size > 1 {
                assert!(!fill.add(0x8001));
            }
            let mut filled = base.clone();
            fill.write(&mut filled, &value).unwrap();
            let (mut a, mut b) = (vec![0u8; 0x4000], vec![0u8; 0x4000]);
            one_by_one.read(0x8000, &mut a).unwrap();
            filled.read(0x8000, &mut b).unwrap();
            assert!(a == b, "size {size}");
        }
        assert!(Fill::new(12).is_none());
        assert!(Fill::new(128).is_none());
    }

    /// Runs of elements (across words and pages) added with `add_run` fill what adding
    /// their elements one by one fills; a misaligned run is refused.
    #[test]
    fn a_run_fills_what_its_elements_fill() {
        let mut next = below(0x9e37_79b9_7f4a_7c15);
        for size in [1usize, 2, 4, 8, 16, 64] {
            let mut base = AddressSpace::new();
            base.load(0x8000, &vec![0x55u8; 0x6000]);
            let value: Vec<u8> = (0..size).map(|i| 0xa0 + i as u8).collect();
            let (mut elements, mut runs) = (Fill::new(size).unwrap(), Fill::new(size).unwrap());
            for _ in 0..200 {
                let count = 1 + next(200) as usize;
                let first = next((0x6000 / size - count) as u64);
                let addr = 0x8000 + first * size as u64;
                for i in 0..count {
                    assert!(elements.add(addr + (i * size) as u64));
                }
                assert!(runs.add_run(addr, count));
            }
            if size > 1 {
                assert!(!runs.add_run(0x8001, 3));
            }
            let (mut a, mut b) = (base.clone(), base.clone());
            elements.write(&mut a, &value).unwrap();
            runs.write(&mut b, &value).unwrap();
            let (mut ra, mut rb) = (vec![0u8; 0x6000], vec![0u8; 0x6000]);
            a.read(0x8000, &mut ra).unwrap();
            b.read(0x8000, &mut rb).unwrap();
            assert!(ra == rb, "size {size}");
        }
    }

    /// A rectangle added a column of pieces at a time marks the bytes its texels, added
    /// one by one at their `texel_offset`, mark: for linear (a pitch the rows fill and
    /// one they do not), X- and Y-tiled images of 1- to 16-byte texels at origins inside
    /// their surface (mip levels), for random rectangles. Rows stack only where a piece
    /// is a whole tile row or OWord column, so both ways must agree on which bytes.
    #[test]
    fn a_rectangle_fills_what_its_texels_fill() {
        use crate::layout::SurfaceDesc;
        use crate::tiling::Tiling;
        let mut next = below(0x1234_5678_9abc_def1);
        let mut rects = 0;
        for (tiling, pitch, width) in [
            (Tiling::Linear, 256u64, 64u32),
            (Tiling::Linear, 512, 64),
            (Tiling::X, 1024, 300),
            (Tiling::Y, 256, 120),
        ] {
            for bytes in [1u32, 2, 4, 8, 16] {
                if u64::from(width * bytes) > pitch && tiling == Tiling::Linear {
                    continue;
                }
                let w = width.min((pitch / u64::from(bytes)) as u32);
                let mut d = SurfaceDesc::plain_2d(w, 70, bytes, tiling, pitch);
                d.levels = 3;
                for lod in 0..3 {
                    let Some(img) = d.image_offsets(0, lod) else {
                        continue;
                    };
                    let (iw, ih) = img.size();
                    for i in 0..22 {
                        // The whole image first, then whole rows from row 3 (whole tile
                        // rows and rows stack, from a row inside a tile).
                        let (x0, y0) = match i {
                            0 => (0, 0),
                            1 => (0, 3.min(ih - 1)),
                            _ => (next(u64::from(iw)) as u32, next(u64::from(ih)) as u32),
                        };
                        let (x1, y1) = if i < 2 {
                            (iw, ih)
                        } else {
                            (
                                x0 + 1 + next(u64::from(iw - x0)) as u32,
                                y0 + 1 + next(u64::from(ih - y0)) as u32,
                            )
                        };
                        let base = 0x10_0000u64;
                        let (mut one, mut rect) = (
                            Fill::new(bytes as usize).unwrap(),
                            Fill::new(bytes as usize).unwrap(),
                        );
                        for y in y0..y1 {
                            for x in x0..x1 {
                                let at = d.texel_offset(x, y, 0, lod, 0).unwrap();
                                assert!(one.add(base + at));
                            }
                        }
                        assert!(rect.add_rect(base, &img, x0..x1, y0..y1).unwrap());
                        let masks = |f: &mut Fill| {
                            f.pages.sort_unstable_by_key(|p| p.0);
                            f.pages.clone()
                        };
                        assert!(
                            masks(&mut one) == masks(&mut rect),
                            "{tiling:?} pitch {pitch} {bytes}-byte lod {lod} {x0}..{x1} x {y0}..{y1}"
                        );
                        rects += 1;
                    }
                }
            }
        }
        assert!(rects > 700, "{rects}");
    }

    /// Rows with the same run merge into one rectangle; others stay rows; every pixel is
    /// kept once.
    #[test]
    fn runs_become_rectangles() {
        let runs = [
            (3, 10, 5),
            (4, 10, 5),
            (5, 10, 5),
            (5, 20, 2),
            (7, 10, 5),
            (6, 20, 2),
        ];
        let mut r = rectangles(&runs);
        r.sort_by_key(|(xs, ys)| (ys.start, xs.start));
        assert_eq!(r, vec![(10..15, 3..6), (20..22, 5..7), (10..15, 7..8)]);
    }
}
