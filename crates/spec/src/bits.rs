//! Bit-field access over dword slices, used only by generated code: the bit positions
//! themselves always come from the spec files.
//!
//! Bits are numbered as in the manuals: bit `n` of a structure is bit `n % 32` of dword
//! `n / 32`, dwords little-endian. Reads are total (bits beyond the slice read as 0), so
//! no guest data can make them panic.

use crate::error::{PackError, UnpackError};

/// Reads bits `start..=end` (at most 64).
pub fn get(dw: &[u32], start: u32, end: u32) -> u64 {
    let mut v = 0u64;
    let mut bit = start;
    while bit <= end {
        let word = (bit / 32) as usize;
        let off = bit % 32;
        let take = (32 - off).min(end - bit + 1);
        let w = dw.get(word).copied().unwrap_or(0) as u64;
        let mask = if take == 64 {
            u64::MAX
        } else {
            (1u64 << take) - 1
        };
        v |= ((w >> off) & mask) << (bit - start);
        bit += take;
    }
    v
}

/// Writes bits `start..=end` (at most 64) with `value` (truncated to the width).
pub fn set(dw: &mut [u32], start: u32, end: u32, value: u64) {
    let mut bit = start;
    while bit <= end {
        let word = (bit / 32) as usize;
        let off = bit % 32;
        let take = (32 - off).min(end - bit + 1);
        let mask = ((1u64 << take) - 1) as u32;
        let chunk = ((value >> (bit - start)) as u32) & mask;
        if let Some(w) = dw.get_mut(word) {
            *w = (*w & !(mask << off)) | (chunk << off);
        }
        bit += take;
    }
}

/// ORs `value` (truncated to the width) into bits `start..=end`. Generated `pack` code
/// builds on a zeroed buffer with this, so alternative interpretations of the same bits
/// (`overlay` fields) combine instead of erasing each other.
pub fn or_in(dw: &mut [u32], start: u32, end: u32, value: u64) {
    let old = get(dw, start, end);
    set(dw, start, end, old | value);
}

/// Sign-extends the low `width` bits of `v`.
pub fn sext(v: u64, width: u32) -> i64 {
    let sh = 64 - width;
    ((v << sh) as i64) >> sh
}

fn width_max(start: u32, end: u32) -> u64 {
    let w = end - start + 1;
    if w >= 64 { u64::MAX } else { (1u64 << w) - 1 }
}

/// Writes an unsigned value, failing if it does not fit.
pub fn put(
    dw: &mut [u32],
    start: u32,
    end: u32,
    value: u64,
    def: &'static str,
    field: &'static str,
) -> Result<(), PackError> {
    if value > width_max(start, end) {
        return Err(PackError::TooWide {
            def,
            field,
            value: value as i128,
            bits: end - start + 1,
        });
    }
    or_in(dw, start, end, value);
    Ok(())
}

/// Writes a two's complement value, failing if it does not fit.
pub fn put_signed(
    dw: &mut [u32],
    start: u32,
    end: u32,
    value: i64,
    def: &'static str,
    field: &'static str,
) -> Result<(), PackError> {
    let w = end - start + 1;
    let (lo, hi) = if w >= 64 {
        (i64::MIN, i64::MAX)
    } else {
        (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
    };
    if value < lo || value > hi {
        return Err(PackError::TooWide {
            def,
            field,
            value: value as i128,
            bits: w,
        });
    }
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    or_in(dw, start, end, value as u64 & mask);
    Ok(())
}

/// Writes an address or offset whose bits `lo..` are stored in place: the low `lo` bits
/// of `value` must be zero.
pub fn put_aligned(
    dw: &mut [u32],
    start: u32,
    end: u32,
    lo: u32,
    value: u64,
    def: &'static str,
    field: &'static str,
) -> Result<(), PackError> {
    if lo > 0 && value & ((1u64 << lo) - 1) != 0 {
        return Err(PackError::Misaligned {
            def,
            field,
            value,
            align: 1u64 << lo,
        });
    }
    put(dw, start, end, value >> lo, def, field)
}

/// Writes a fixed-point value with `frac` fraction bits; it must be exactly representable.
#[expect(
    clippy::too_many_arguments,
    reason = "generated call sites pass the field's whole description"
)]
pub fn put_fixed(
    dw: &mut [u32],
    start: u32,
    end: u32,
    frac: u32,
    signed: bool,
    value: f64,
    def: &'static str,
    field: &'static str,
) -> Result<(), PackError> {
    let scaled = value * (1u64 << frac) as f64;
    if !scaled.is_finite() || scaled.fract() != 0.0 {
        return Err(PackError::NotRepresentable { def, field, value });
    }
    if signed {
        put_signed(dw, start, end, scaled as i64, def, field)
            .map_err(|_| PackError::NotRepresentable { def, field, value })
    } else if scaled < 0.0 {
        Err(PackError::NotRepresentable { def, field, value })
    } else {
        put(dw, start, end, scaled as u64, def, field).map_err(|_| PackError::NotRepresentable {
            def,
            field,
            value,
        })
    }
}

/// Copies bits `start..=end` into a fresh slice of `dwords` dwords, starting at bit 0.
pub fn extract(dw: &[u32], start: u32, end: u32, dwords: usize) -> Vec<u32> {
    let mut out = vec![0u32; dwords.max((end - start) as usize / 32 + 1)];
    let mut bit = start;
    while bit <= end {
        let take = (end - bit + 1).min(32);
        set(
            &mut out,
            bit - start,
            bit - start + take - 1,
            get(dw, bit, bit + take - 1),
        );
        bit += take;
    }
    out.truncate(dwords.max(1));
    out
}

/// Inserts a packed nested structure into bits `start..=end`; bits of `src` beyond the
/// field's width must be zero.
pub fn insert(
    dw: &mut [u32],
    start: u32,
    end: u32,
    src: &[u32],
    def: &'static str,
    field: &'static str,
) -> Result<(), PackError> {
    let width = end - start + 1;
    let total = src.len() as u32 * 32;
    if total > width && get(src, width, total - 1) != 0 {
        return Err(PackError::TooWide {
            def,
            field,
            value: get(src, width, (total - 1).min(width + 63)) as i128,
            bits: width,
        });
    }
    let mut bit = 0;
    while bit < width {
        let take = (width - bit).min(32);
        or_in(
            dw,
            start + bit,
            start + bit + take - 1,
            get(src, bit, bit + take - 1),
        );
        bit += take;
    }
    Ok(())
}

/// Unpacks `N` consecutive structs of `elem` dwords starting at dword `at`.
pub fn unpack_array<T: Default, const N: usize>(
    dw: &[u32],
    at: usize,
    elem: usize,
    f: fn(&[u32]) -> Result<T, UnpackError>,
) -> Result<[T; N], UnpackError> {
    let mut out: [T; N] = std::array::from_fn(|_| T::default());
    for (i, slot) in out.iter_mut().enumerate() {
        let s = at + i * elem;
        *slot = f(dw.get(s..s + elem).unwrap_or(&[]))?;
    }
    Ok(out)
}

/// Unpacks the open array that fills a command from dword `at` to its end.
pub fn unpack_tail<T>(
    def: &'static str,
    field: &'static str,
    dw: &[u32],
    at: usize,
    elem: usize,
    f: fn(&[u32]) -> Result<T, UnpackError>,
) -> Result<Vec<T>, UnpackError> {
    let rest = dw.get(at..).unwrap_or(&[]);
    if rest.len() % elem != 0 {
        return Err(UnpackError::Ragged {
            def,
            field,
            elem_dwords: elem,
            have: rest.len(),
        });
    }
    rest.chunks(elem).map(f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_and_set_cross_dwords() {
        let mut dw = [0u32; 3];
        set(&mut dw, 28, 35, 0xab);
        assert_eq!(dw, [0xb000_0000, 0xa, 0]);
        assert_eq!(get(&dw, 28, 35), 0xab);
        set(&mut dw, 32, 95, u64::MAX);
        assert_eq!(dw, [0xb000_0000, u32::MAX, u32::MAX]);
        assert_eq!(get(&dw, 0, 63), 0xffff_ffff_b000_0000);
    }

    #[test]
    fn reads_past_the_end_are_zero() {
        assert_eq!(get(&[0xffff_ffff], 16, 47), 0xffff);
    }

    #[test]
    fn sign_extension() {
        assert_eq!(sext(0b1111, 4), -1);
        assert_eq!(sext(0b0111, 4), 7);
    }

    #[test]
    fn packing_checks_ranges() {
        let mut dw = [0u32; 1];
        let too_wide = |value: i128| {
            Err(PackError::TooWide {
                def: "T",
                field: "f",
                value,
                bits: 4,
            })
        };
        assert_eq!(put(&mut dw, 0, 3, 16, "T", "f"), too_wide(16));
        assert_eq!(put_signed(&mut dw, 0, 3, -9, "T", "f"), too_wide(-9));
        assert!(put_signed(&mut dw, 0, 3, -8, "T", "f").is_ok());
        assert_eq!(dw[0], 8);
        assert_eq!(
            put_aligned(&mut dw, 6, 31, 6, 0x41, "T", "f"),
            Err(PackError::Misaligned {
                def: "T",
                field: "f",
                value: 0x41,
                align: 64
            })
        );
        // 7 fraction bits: 1/256 is half a step.
        assert_eq!(
            put_fixed(&mut dw, 0, 10, 7, false, 0.5 + 1.0 / 256.0, "T", "f"),
            Err(PackError::NotRepresentable {
                def: "T",
                field: "f",
                value: 0.5 + 1.0 / 256.0
            })
        );
        let mut dw = [0u32; 1];
        put_fixed(&mut dw, 0, 10, 7, false, 1.5, "T", "f").unwrap();
        assert_eq!(dw[0] & 0x7ff, 0xc0);
        // Puts OR into the buffer (pack starts from zero), so overlays combine.
        put(&mut dw, 0, 3, 0x5, "T", "f").unwrap();
        assert_eq!(dw[0] & 0x7ff, 0xc5);
    }
}
