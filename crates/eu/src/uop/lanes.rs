//! Lane arrays of a constant channel count, built, compared and blended by loops the
//! compiler unrolls and vectorises.
//!
//! `std::array::from_fn` and `<[T; N]>::map` go through a fallible builder the compiler
//! does not always inline (a profile of the corpus benchmark showed it as a function of
//! its own, called per micro-op); these loops over a cleared array are plain code.
//! Channel masks are bit masks, channel `c` at bit `c`, as everywhere in the EU model.

use gtsim_isa::ir::CondModifier;

/// The `N` lanes `f(0)`..`f(N - 1)`.
#[inline(always)]
pub(crate) fn lanes<T: Copy + Default, const N: usize>(f: impl Fn(usize) -> T) -> [T; N] {
    let mut v = [T::default(); N];
    for (c, x) in v.iter_mut().enumerate() {
        *x = f(c);
    }
    v
}

/// The channels `c` (bit `c`) where `hit(c)` holds.
#[inline(always)]
pub(crate) fn bits<const N: usize>(hit: impl Fn(usize) -> bool) -> u32 {
    let mut m = 0u32;
    for c in 0..N {
        m |= u32::from(hit(c)) << c;
    }
    m
}

/// Per channel, `a`'s lane where `take` has the channel's bit, `b`'s elsewhere.
#[inline(always)]
pub(crate) fn select<T: Copy + Default, const N: usize>(
    take: u32,
    a: &[T; N],
    b: &[T; N],
) -> [T; N] {
    lanes(|c| if take & (1 << c) != 0 { a[c] } else { b[c] })
}

/// All ones in the channels of `m`, zero elsewhere.
#[inline(always)]
pub(crate) fn expand<const N: usize>(m: u32) -> [u32; N] {
    lanes(|c| 0u32.wrapping_sub((m >> c) & 1))
}

/// The channels where relational condition `cond` (z, nz, g, ge, l, le) holds between
/// `a` and `b` (`crate::ops::compare`, per channel); the others (overflow, unordered,
/// none) hold nowhere. The condition is chosen once, outside the loop: each arm passes
/// its own constant, which the inlined comparison folds.
#[inline(always)]
pub(crate) fn compare<T: PartialOrd + Copy, const N: usize>(
    cond: Option<CondModifier>,
    a: &[T; N],
    b: &[T; N],
) -> u32 {
    #[inline(always)]
    fn with<T: PartialOrd + Copy, const N: usize>(k: CondModifier, a: &[T; N], b: &[T; N]) -> u32 {
        bits::<N>(|c| crate::ops::compare(Some(k), a[c], b[c]))
    }
    match cond {
        Some(CondModifier::Z) => with(CondModifier::Z, a, b),
        Some(CondModifier::Nz) => with(CondModifier::Nz, a, b),
        Some(CondModifier::G) => with(CondModifier::G, a, b),
        Some(CondModifier::Ge) => with(CondModifier::Ge, a, b),
        Some(CondModifier::L) => with(CondModifier::L, a, b),
        Some(CondModifier::Le) => with(CondModifier::Le, a, b),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_and_expand_are_inverse() {
        let m = 0b1011_0000_0110_1001u32;
        let e = expand::<16>(m);
        assert_eq!(bits::<16>(|c| e[c] == u32::MAX), m);
        assert!(e.iter().all(|&x| x == 0 || x == u32::MAX));
    }

    #[test]
    fn select_takes_a_where_the_bit_is_set() {
        let a = lanes::<u32, 8>(|c| c as u32);
        let b = [100u32; 8];
        assert_eq!(
            select(0b0000_0101, &a, &b),
            [0, 100, 2, 100, 100, 100, 100, 100]
        );
    }

    #[test]
    fn compare_matches_each_relation_and_nothing_for_the_others() {
        let a = [1i32, 2, 3, -4];
        let b = [2i32, 2, 2, 2];
        assert_eq!(compare(Some(CondModifier::Z), &a, &b), 0b0010);
        assert_eq!(compare(Some(CondModifier::Nz), &a, &b), 0b1101);
        assert_eq!(compare(Some(CondModifier::G), &a, &b), 0b0100);
        assert_eq!(compare(Some(CondModifier::Ge), &a, &b), 0b0110);
        assert_eq!(compare(Some(CondModifier::L), &a, &b), 0b1001);
        assert_eq!(compare(Some(CondModifier::Le), &a, &b), 0b1011);
        assert_eq!(compare(Some(CondModifier::O), &a, &b), 0);
        assert_eq!(compare(None, &a, &b), 0);
        // NaN is unordered: only nz holds.
        let n = [f32::NAN; 4];
        assert_eq!(compare(Some(CondModifier::Nz), &n, &n), 0b1111);
        assert_eq!(compare(Some(CondModifier::Z), &n, &n), 0);
    }
}
