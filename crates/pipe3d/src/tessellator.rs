//! The tessellation engine (seed 004 ch.5): a patch's tessellation factors read from its
//! patch header, the patch culled (§5.5), the factors clamped and rounded by the
//! partitioning (§5.6-5.7), and the domain divided into points, lines or triangles.
//!
//! The seed leaves the point pattern out ("considered an implementation detail", §5);
//! it is the D3D11 reference tessellator's. This model produces it where every factor,
//! once partitioned, is 1, the domain undivided: the square's four corners as two
//! triangles, the triangle's three corners, one isoline from (0, 0) to (1, 0). Other
//! factors fail as not modelled rather than produce another pattern.
//!
//! Triangles are output as a TRILIST. Their winding is the Output Topology's in the
//! (u, v) domain with u to the right and v downward: Mesa programs TRI_CW for GL's
//! counter-clockwise (u right, v up) primitives, "Hardware winding order is backwards
//! from OpenGL" (brw_compile_tes).

use crate::state::{Partitioning, TessDomain, TessOutput, Tessellator};
use gtsim_spec::Unsupported;
use gtsim_spec::shared::ThreeDPrimTopoType as T;

/// What the TE makes of one patch.
#[derive(Debug, Clone, PartialEq)]
pub enum Tessellated {
    /// An outside factor is <= 0 or NaN: the patch is discarded (§5.5).
    Culled,
    /// Domain points, each (u, v) (w = 1 - u - v for the triangle domain) and each
    /// once, and the primitives of `topology` (POINTLIST, LINESTRIP or TRILIST) as
    /// indices into them.
    Points {
        /// The topology the points form.
        topology: T,
        /// The distinct domain points.
        points: Vec<[f32; 2]>,
        /// The primitives' vertices, in order, as indices into `points`.
        indices: Vec<usize>,
    },
}

/// The tessellation factors of a patch header's eight dwords (seed 004 §4.9.1): for
/// QUAD DW7-DW4 UEQ0, VEQ0, UEQ1, VEQ1 and DW3-DW2 Inside U, V; for TRI DW7-DW5 UEQ0,
/// VEQ0, WEQ0 and DW4 Inside; for ISOLINE DW7 Line Detail and DW6 Line Density.
/// Returns the outside and the inside factors.
pub fn factors(domain: TessDomain, header: &[u32; 8]) -> (Vec<f32>, Vec<f32>) {
    let f = |dw: usize| f32::from_bits(header[dw]);
    match domain {
        TessDomain::Quad => (vec![f(7), f(6), f(5), f(4)], vec![f(3), f(2)]),
        TessDomain::Tri => (vec![f(7), f(6), f(5)], vec![f(4)]),
        TessDomain::Isoline => (vec![f(7), f(6)], vec![]),
    }
}

/// A factor clamped and rounded as `partitioning` says (§5.6-5.7): INTEGER rounds up
/// within [1, Max TessFactor Not Odd], ODD_FRACTIONAL up to an odd number within [1,
/// Max TessFactor Odd], EVEN_FRACTIONAL up to an even number within [2, Max TessFactor
/// Not Odd]. A NaN inside factor takes the low end.
pub fn partitioned(te: &Tessellator, partitioning: Partitioning, factor: f32) -> u32 {
    let (low, high) = match partitioning {
        Partitioning::Integer => (1.0, te.max_not_odd),
        Partitioning::OddFractional => (1.0, te.max_odd),
        Partitioning::EvenFractional => (2.0, te.max_not_odd),
    };
    let high = if high.is_nan() { low } else { high.max(low) };
    let clamped = if factor.is_nan() {
        low
    } else {
        factor.clamp(low, high)
    };
    let up = clamped.ceil() as u32;
    match partitioning {
        Partitioning::Integer => up,
        Partitioning::OddFractional => up | 1,
        Partitioning::EvenFractional => up + (up & 1),
    }
}

/// Tessellates one patch whose header's dwords are `header`.
pub fn tessellate(te: &Tessellator, header: &[u32; 8]) -> Result<Tessellated, Unsupported> {
    let (outside, inside) = factors(te.domain, header);
    // §5.5: "if any 'outside' TF is <= 0.0 or NaN, the entire patch is culled".
    if outside.iter().any(|f| f.is_nan() || *f <= 0.0) {
        return Ok(Tessellated::Culled);
    }
    let all_one = match te.domain {
        // §5.1: "ISOLINE's LineDensity TF is always subjected to INTEGER partitioning".
        TessDomain::Isoline => {
            partitioned(te, te.partitioning, outside[0]) == 1
                && partitioned(te, Partitioning::Integer, outside[1]) == 1
        }
        _ => outside
            .iter()
            .chain(&inside)
            .all(|&f| partitioned(te, te.partitioning, f) == 1),
    };
    if !all_one {
        return Err(Unsupported::new(
            format!(
                "the TE's point pattern for {:?} partitioning of the {:?} domain with factors {outside:?} outside and {inside:?} inside (only factors that partition to 1 are modelled)",
                te.partitioning, te.domain
            ),
            "seed 004 ch.5 (the D3D11 reference tessellator's pattern)",
        ));
    }
    const SQUARE: [[f32; 2]; 4] = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    const TRIANGLE: [[f32; 2]; 3] = [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]];
    const LINE: [[f32; 2]; 2] = [[0.0, 0.0], [1.0, 0.0]];
    let (topology, points, indices): (T, Vec<[f32; 2]>, Vec<usize>) = match (te.domain, te.output) {
        (TessDomain::Quad, TessOutput::Point) => {
            (T::_3DPRIM_POINTLIST, SQUARE.to_vec(), vec![0, 1, 2, 3])
        }
        (TessDomain::Quad, TessOutput::TriCw) => {
            (T::_3DPRIM_TRILIST, SQUARE.to_vec(), vec![0, 1, 2, 0, 2, 3])
        }
        (TessDomain::Quad, TessOutput::TriCcw) => {
            (T::_3DPRIM_TRILIST, SQUARE.to_vec(), vec![0, 2, 1, 0, 3, 2])
        }
        (TessDomain::Tri, TessOutput::Point) => {
            (T::_3DPRIM_POINTLIST, TRIANGLE.to_vec(), vec![0, 1, 2])
        }
        (TessDomain::Tri, TessOutput::TriCw) => {
            (T::_3DPRIM_TRILIST, TRIANGLE.to_vec(), vec![0, 1, 2])
        }
        (TessDomain::Tri, TessOutput::TriCcw) => {
            (T::_3DPRIM_TRILIST, TRIANGLE.to_vec(), vec![0, 2, 1])
        }
        // §5.4: one line per density step, none on the v = 1 edge.
        (TessDomain::Isoline, TessOutput::Line) => {
            (T::_3DPRIM_LINESTRIP, LINE.to_vec(), vec![0, 1])
        }
        (TessDomain::Isoline, TessOutput::Point) => {
            (T::_3DPRIM_POINTLIST, LINE.to_vec(), vec![0, 1])
        }
        (domain, output) => {
            return Err(Unsupported::new(
                format!(
                    "3DSTATE_TE Output Topology {output:?} with the {domain:?} domain (LINE is valid only for ISOLINE, triangles not for it)"
                ),
                "seed 004 §5.1",
            ));
        }
    };
    Ok(Tessellated::Points {
        topology,
        points,
        indices,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn te(domain: TessDomain, partitioning: Partitioning, output: TessOutput) -> Tessellator {
        Tessellator {
            domain,
            partitioning,
            output,
            max_odd: 63.0,
            max_not_odd: 64.0,
        }
    }

    /// Patch header dwords with the factors where §4.9.1 puts them (DW7 down).
    fn header(from_dw7: &[f32]) -> [u32; 8] {
        let mut h = [0u32; 8];
        for (i, f) in from_dw7.iter().enumerate() {
            h[7 - i] = f.to_bits();
        }
        h
    }

    #[test]
    fn factors_are_read_from_the_header_dwords_of_each_domain() {
        let h = header(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(
            factors(TessDomain::Quad, &h),
            (vec![1.0, 2.0, 3.0, 4.0], vec![5.0, 6.0])
        );
        assert_eq!(
            factors(TessDomain::Tri, &h),
            (vec![1.0, 2.0, 3.0], vec![4.0])
        );
        assert_eq!(factors(TessDomain::Isoline, &h), (vec![1.0, 2.0], vec![]));
    }

    /// §5.7 worked by hand: INTEGER rounds 2.2 up to 3; ODD_FRACTIONAL 2.2 to 3 and 3.5
    /// to 5; EVEN_FRACTIONAL 2.2 to 4 and 0.5 to its minimum 2; clamps at the maxima.
    #[test]
    fn partitioning_rounds_and_clamps_as_the_seed_says() {
        let t = te(TessDomain::Quad, Partitioning::Integer, TessOutput::TriCw);
        assert_eq!(partitioned(&t, Partitioning::Integer, 2.2), 3);
        assert_eq!(partitioned(&t, Partitioning::Integer, 0.25), 1);
        assert_eq!(partitioned(&t, Partitioning::Integer, 100.0), 64);
        assert_eq!(partitioned(&t, Partitioning::OddFractional, 2.2), 3);
        assert_eq!(partitioned(&t, Partitioning::OddFractional, 3.5), 5);
        assert_eq!(partitioned(&t, Partitioning::OddFractional, 100.0), 63);
        assert_eq!(partitioned(&t, Partitioning::EvenFractional, 2.2), 4);
        assert_eq!(partitioned(&t, Partitioning::EvenFractional, 0.5), 2);
        assert_eq!(partitioned(&t, Partitioning::Integer, f32::NAN), 1);
    }

    /// §5.5: any outside factor <= 0 or NaN culls the patch; inside factors never do.
    #[test]
    fn patches_with_a_non_positive_or_nan_outside_factor_are_culled() {
        let t = te(TessDomain::Quad, Partitioning::Integer, TessOutput::TriCw);
        for bad in [0.0, -1.0, f32::NAN] {
            let h = header(&[1.0, bad, 1.0, 1.0, 1.0, 1.0]);
            assert_eq!(tessellate(&t, &h).unwrap(), Tessellated::Culled);
        }
        let h = header(&[1.0, 1.0, 1.0, 1.0, f32::NAN, -3.0]);
        assert!(matches!(
            tessellate(&t, &h).unwrap(),
            Tessellated::Points { .. }
        ));
    }

    /// Factors of 1 leave the domain undivided: the square's two triangles in either
    /// winding (u right, v down: (0,0) (1,0) (1,1) is clockwise), the triangle, the line.
    #[test]
    fn unit_factors_give_the_undivided_domain() {
        let h = header(&[1.0; 6]);
        let cross = |p: &[[f32; 2]]| {
            (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0])
        };
        for (domain, output, n, sign) in [
            (TessDomain::Quad, TessOutput::TriCw, 4, 1.0),
            (TessDomain::Quad, TessOutput::TriCcw, 4, -1.0),
            (TessDomain::Tri, TessOutput::TriCw, 3, 1.0),
            (TessDomain::Tri, TessOutput::TriCcw, 3, -1.0),
        ] {
            let Tessellated::Points {
                topology,
                points,
                indices,
            } = tessellate(&te(domain, Partitioning::Integer, output), &h).unwrap()
            else {
                panic!("culled");
            };
            assert_eq!(topology, T::_3DPRIM_TRILIST);
            // Each domain point once; every one used.
            assert_eq!(points.len(), n);
            assert!((0..n).all(|i| indices.contains(&i)));
            let points: Vec<[f32; 2]> = indices.iter().map(|&i| points[i]).collect();
            // (p1 - p0) x (p2 - p0) in (u, v) is positive for a clockwise triangle when
            // v points down.
            for tri in points.chunks(3) {
                assert_eq!(cross(tri).signum(), sign, "{domain:?} {output:?}");
            }
        }
        let iso = te(TessDomain::Isoline, Partitioning::Integer, TessOutput::Line);
        assert_eq!(
            tessellate(&iso, &header(&[1.0, 1.0])).unwrap(),
            Tessellated::Points {
                topology: T::_3DPRIM_LINESTRIP,
                points: vec![[0.0, 0.0], [1.0, 0.0]],
                indices: vec![0, 1]
            }
        );
    }

    /// Factors above 1 (and EVEN_FRACTIONAL, whose minimum is 2) need the reference
    /// pattern: reported as not modelled, with the seed chapter.
    #[test]
    fn other_factors_fail_loudly() {
        let h = header(&[2.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
        let e = tessellate(
            &te(TessDomain::Quad, Partitioning::Integer, TessOutput::TriCw),
            &h,
        )
        .unwrap_err();
        assert!(e.to_string().contains("seed 004 ch.5"), "{e}");
        assert!(
            tessellate(
                &te(
                    TessDomain::Tri,
                    Partitioning::EvenFractional,
                    TessOutput::TriCw
                ),
                &header(&[1.0; 4])
            )
            .is_err()
        );
    }
}
