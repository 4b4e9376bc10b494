//! The tessellation engine (seed 004 ch.5): a patch's tessellation factors read from its
//! patch header, the patch culled (§5.5), the factors clamped and rounded by the
//! partitioning (§5.6-5.7), and the domain divided into points, lines or triangles.
//!
//! The seed leaves the point pattern out ("considered an implementation detail", §5);
//! it is the D3D11 reference tessellator's, which D3D11 hardware reproduces exactly
//! and llvmpipe uses. This module implements that pattern from its public description:
//! [`division`] places points along an edge in 16.16 fixed point, [`quad`], [`tri`]
//! and [`isoline`] lay out each domain's points in rings, and [`stitch`] joins rows of
//! points with triangles.
//!
//! Triangles are output as a TRILIST, lines as a LINELIST, points as a POINTLIST.
//! Their winding is the Output Topology's in the (u, v) domain with u to the right and
//! v downward: Mesa programs TRI_CW for GL's counter-clockwise (u right, v up)
//! primitives, "Hardware winding order is backwards from OpenGL" (brw_compile_tes).

mod division;
mod factors;
mod isoline;
mod quad;
mod stitch;
mod tri;

use crate::state::{TessDomain, TessOutput, Tessellator};
use division::{Fxp, ONE, to_float};
use gtsim_spec::Unsupported;
use gtsim_spec::shared::ThreeDPrimTopoType as T;
use stitch::Triangles;

/// What the TE makes of one patch.
#[derive(Debug, Clone, PartialEq)]
pub enum Tessellated {
    /// An outside factor is <= 0 or NaN: the patch is discarded (§5.5).
    Culled,
    /// Domain points, each (u, v) (w = 1 - u - v for the triangle domain) and each
    /// once, and the primitives of `topology` (POINTLIST, LINELIST or TRILIST) as
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

/// Tessellates one patch whose header's dwords are `header`.
pub fn tessellate(te: &Tessellator, header: &[u32; 8]) -> Result<Tessellated, Unsupported> {
    let (outside, inside) = factors(te.domain, header);
    // §5.5: "if any 'outside' TF is <= 0.0 or NaN, the entire patch is culled".
    if outside.iter().any(|f| f.is_nan() || *f <= 0.0) {
        return Ok(Tessellated::Culled);
    }
    let triangles = match te.output {
        TessOutput::TriCw => Some(true),
        TessOutput::TriCcw => Some(false),
        TessOutput::Point | TessOutput::Line => None,
    };
    let invalid = || {
        Unsupported::new(
            format!(
                "3DSTATE_TE Output Topology {:?} with the {:?} domain (LINE is valid only for ISOLINE, triangles not for it)",
                te.output, te.domain
            ),
            "seed 004 §5.1-5.2",
        )
    };
    let mut mesh = Triangles {
        indices: vec![],
        clockwise: triangles.unwrap_or(true),
    };
    let points: Vec<[Fxp; 2]> = match te.domain {
        TessDomain::Isoline => {
            if triangles.is_some() {
                return Err(invalid());
            }
            let (points, per_line) = isoline::points(te, outside[0], outside[1]);
            if te.output == TessOutput::Line {
                // Each line's segments; none joins two lines.
                mesh.indices = (0..points.len())
                    .filter(|i| i % per_line != 0)
                    .flat_map(|i| [i - 1, i])
                    .collect();
                return Ok(finish(T::_3DPRIM_LINELIST, &points, mesh.indices));
            }
            points
        }
        _ if te.output == TessOutput::Line => return Err(invalid()),
        TessDomain::Quad | TessDomain::Tri => {
            let d = factors::divisions(te, te.partitioning, &outside, &inside);
            if d.minimal {
                return Ok(undivided(te.domain, &mut mesh, triangles.is_some()));
            }
            if te.domain == TessDomain::Quad {
                if triangles.is_some() {
                    quad::triangles(&mut mesh, &d.outside, &d.inside);
                }
                quad::points(&d.outside, &d.inside)
            } else {
                if triangles.is_some() {
                    tri::triangles(&mut mesh, &d.outside, &d.inside[0]);
                }
                tri::points(&d.outside, &d.inside[0])
            }
        }
    };
    Ok(if triangles.is_some() {
        finish(T::_3DPRIM_TRILIST, &points, mesh.indices)
    } else {
        finish(T::_3DPRIM_POINTLIST, &points, (0..points.len()).collect())
    })
}

/// The domain undivided, every factor 1: the square's corners (0, 0), (1, 0), (1, 1),
/// (0, 1) as triangles 0 1 3 and 1 2 3, the triangle's (0, 1), (0, 0), (1, 0) as one.
fn undivided(domain: TessDomain, mesh: &mut Triangles, triangles: bool) -> Tessellated {
    let points: &[[Fxp; 2]] = if domain == TessDomain::Quad {
        &[[0, 0], [ONE, 0], [ONE, ONE], [0, ONE]]
    } else {
        &[[0, ONE], [0, 0], [ONE, 0]]
    };
    if !triangles {
        return finish(T::_3DPRIM_POINTLIST, points, (0..points.len()).collect());
    }
    if domain == TessDomain::Quad {
        mesh.cw(0, 1, 3);
        mesh.cw(1, 2, 3);
    } else {
        mesh.cw(0, 1, 2);
    }
    finish(
        T::_3DPRIM_TRILIST,
        points,
        std::mem::take(&mut mesh.indices),
    )
}

fn finish(topology: T, points: &[[Fxp; 2]], indices: Vec<usize>) -> Tessellated {
    Tessellated::Points {
        topology,
        points: points
            .iter()
            .map(|&[u, v]| [to_float(u), to_float(v)])
            .collect(),
        indices,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Partitioning;

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
                topology: T::_3DPRIM_LINELIST,
                points: vec![[0.0, 0.0], [1.0, 0.0]],
                indices: vec![0, 1]
            }
        );
    }

    /// The triangles of a tessellation as (u, v) corners.
    fn tris(t: &Tessellator, h: &[u32; 8]) -> (Vec<[f32; 2]>, Vec<[[f32; 2]; 3]>) {
        let Tessellated::Points {
            topology,
            points,
            indices,
        } = tessellate(t, h).unwrap()
        else {
            panic!("culled");
        };
        assert_eq!(topology, T::_3DPRIM_TRILIST);
        assert_eq!(indices.len() % 3, 0);
        let tris = indices
            .chunks(3)
            .map(|c| [points[c[0]], points[c[1]], points[c[2]]])
            .collect();
        (points, tris)
    }

    /// Twice the signed area, positive for clockwise with v down.
    fn area2(t: &[[f32; 2]; 3]) -> f64 {
        let d = |a: [f32; 2], b: [f32; 2]| [f64::from(b[0] - a[0]), f64::from(b[1] - a[1])];
        let (e1, e2) = (d(t[0], t[1]), d(t[0], t[2]));
        e1[0] * e2[1] - e1[1] * e2[0]
    }

    /// §5.3: a triangulation of the whole domain. Every triangle is wound as the
    /// output topology says (or degenerate), their areas add up to the domain's,
    /// every point is used, and the outside edges carry as many points as their
    /// factor's division has (watertight with a neighbour of the same factor).
    fn check_tiling(t: &Tessellator, factors: &[f32]) {
        let (points, tris) = tris(t, &header(factors));
        let sign = if t.output == TessOutput::TriCw {
            1.0
        } else {
            -1.0
        };
        let mut sum = 0.0;
        for tri in &tris {
            let a = area2(tri) * sign;
            assert!(a >= -1e-9, "{factors:?}: {tri:?} wound the wrong way");
            sum += a;
        }
        let domain = if t.domain == TessDomain::Quad {
            2.0
        } else {
            1.0
        };
        assert!(
            (sum - domain).abs() < 1e-4,
            "{factors:?}: area {sum} of {domain}"
        );
        let Ok(Tessellated::Points { indices, .. }) = tessellate(t, &header(factors)) else {
            panic!()
        };
        let used: std::collections::BTreeSet<usize> = indices.into_iter().collect();
        assert_eq!(used.len(), points.len(), "{factors:?}: unused points");
        // The U = 0 edge's points come first, from (0, 1) down to (0, 0) where the V = 0
        // edge starts, as many as the first outside factor's division has.
        let expect = match t.partitioning {
            Partitioning::Integer => factors[0].clamp(1.0, 64.0).ceil() as usize + 1,
            Partitioning::EvenFractional => {
                (factors[0].clamp(2.0, 64.0) / 2.0).ceil() as usize * 2 + 1
            }
            Partitioning::OddFractional => {
                ((factors[0].clamp(1.0, 63.0) + 1.0) / 2.0).ceil() as usize * 2
            }
        };
        let corners = if t.domain == TessDomain::Quad { 4 } else { 3 };
        if points.len() == corners {
            // The undivided domain has its own order (tested above).
            return;
        }
        let edge = &points[..expect];
        assert_eq!(
            (edge[0], edge[expect - 1]),
            ([0.0, 1.0], [0.0, 0.0]),
            "{factors:?}"
        );
        assert!(
            edge.windows(2)
                .all(|w| w[0][0] == 0.0 && w[1][1] <= w[0][1]),
            "{factors:?}"
        );
    }

    /// Deterministic factors from a seed, in (0, 70).
    fn some_factors(seed: u64, n: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match x % 5 {
                    0 => (x >> 40) as f32 % 8.0 + 1.0,
                    _ => ((x >> 20) % 70_000) as f32 / 1000.0 + 0.001,
                }
            })
            .collect()
    }

    #[test]
    fn every_domain_and_partitioning_tiles_the_domain() {
        for partitioning in [
            Partitioning::Integer,
            Partitioning::OddFractional,
            Partitioning::EvenFractional,
        ] {
            for output in [TessOutput::TriCw, TessOutput::TriCcw] {
                for seed in 0..60 {
                    let q = te(TessDomain::Quad, partitioning, output);
                    check_tiling(&q, &some_factors(seed, 6));
                    let t = te(TessDomain::Tri, partitioning, output);
                    check_tiling(&t, &some_factors(seed + 1000, 4));
                }
                // Equal factors, and the degenerate inside factors of 1.
                for f in [1.0, 1.5, 2.0, 3.0, 4.0, 5.5, 63.0, 64.0] {
                    check_tiling(&te(TessDomain::Quad, partitioning, output), &[f; 6]);
                    check_tiling(&te(TessDomain::Tri, partitioning, output), &[f; 4]);
                    let mut quad = [f, f, f, f, 1.0, 1.0];
                    check_tiling(&te(TessDomain::Quad, partitioning, output), &quad);
                    quad[4] = 7.0;
                    check_tiling(&te(TessDomain::Quad, partitioning, output), &quad);
                    check_tiling(
                        &te(TessDomain::Tri, partitioning, output),
                        &[f, 2.0, 9.0, 1.0],
                    );
                }
            }
        }
    }

    /// §5.3: equal INTEGER factors in both directions give "a regular grid, with no
    /// noticeable transition regions": (n + 1)^2 points at multiples of 1/n, 2n^2
    /// triangles each half a cell.
    #[test]
    fn equal_integer_factors_give_a_regular_grid() {
        for n in [2usize, 3, 4, 7, 8, 16] {
            let t = te(TessDomain::Quad, Partitioning::Integer, TessOutput::TriCw);
            let (points, tris) = tris(&t, &header(&[n as f32; 6]));
            assert_eq!(points.len(), (n + 1) * (n + 1), "n = {n}");
            assert_eq!(tris.len(), 2 * n * n, "n = {n}");
            for p in &points {
                for c in p {
                    let k = (c * n as f32).round();
                    assert!((c - k / n as f32).abs() < 2.0 / 65536.0, "n = {n}: {p:?}");
                }
            }
            for tri in &tris {
                let a = area2(tri);
                assert!((a - 1.0 / (n * n) as f64).abs() < 1e-3 / (n * n) as f64);
            }
        }
    }

    /// The pattern is mirror symmetric: equal factors give a point set invariant under
    /// u -> 1 - u and v -> 1 - v (the D3D11 pattern places both halves of an edge as
    /// mirror images).
    #[test]
    fn equal_factors_give_a_symmetric_point_set() {
        for partitioning in [
            Partitioning::Integer,
            Partitioning::OddFractional,
            Partitioning::EvenFractional,
        ] {
            for f in [2.5f32, 3.0, 6.25, 11.0] {
                let t = te(TessDomain::Quad, partitioning, TessOutput::Point);
                let Tessellated::Points { points, .. } = tessellate(&t, &header(&[f; 6])).unwrap()
                else {
                    panic!()
                };
                let key = |p: [f32; 2]| {
                    (
                        (p[0] * 65536.0).round() as i64,
                        (p[1] * 65536.0).round() as i64,
                    )
                };
                let set: std::collections::BTreeSet<_> = points.iter().map(|&p| key(p)).collect();
                for &p in &points {
                    assert!(
                        set.contains(&key([1.0 - p[0], p[1]])),
                        "{partitioning:?} {f}: {p:?}"
                    );
                    assert!(
                        set.contains(&key([p[0], 1.0 - p[1]])),
                        "{partitioning:?} {f}: {p:?}"
                    );
                }
            }
        }
    }

    /// §5.4 worked by hand: Line Detail 4 and Line Density 3 (INTEGER) give the lines
    /// v = 0, 1/3, 2/3 (none at v = 1), each of 4 segments; POINT output gives their
    /// 15 points.
    #[test]
    fn isolines_are_lines_of_constant_v() {
        let t = te(TessDomain::Isoline, Partitioning::Integer, TessOutput::Line);
        let Tessellated::Points {
            topology,
            points,
            indices,
        } = tessellate(&t, &header(&[4.0, 3.0])).unwrap()
        else {
            panic!()
        };
        assert_eq!(topology, T::_3DPRIM_LINELIST);
        assert_eq!(points.len(), 15);
        assert_eq!(indices.len(), 3 * 4 * 2);
        for seg in indices.chunks(2) {
            let (a, b) = (points[seg[0]], points[seg[1]]);
            assert_eq!(a[1], b[1], "a line keeps v");
            assert!((b[0] - a[0] - 0.25).abs() < 1e-4, "{a:?} {b:?}");
        }
        let vs: std::collections::BTreeSet<u32> =
            points.iter().map(|p| (p[1] * 3.0).round() as u32).collect();
        assert_eq!(vs, [0, 1, 2].into());
        let p = te(
            TessDomain::Isoline,
            Partitioning::EvenFractional,
            TessOutput::Point,
        );
        let Tessellated::Points {
            topology,
            points,
            indices,
        } = tessellate(&p, &header(&[2.0, 2.5])).unwrap()
        else {
            panic!()
        };
        // Density 2.5 rounds up to 3 lines (INTEGER always); detail 2 even: 3 points.
        assert_eq!(topology, T::_3DPRIM_POINTLIST);
        assert_eq!((points.len(), indices.len()), (9, 9));
    }

    /// Output topologies a domain does not have are reported with the seed section.
    #[test]
    fn invalid_output_topologies_fail_loudly() {
        let h = header(&[2.0; 6]);
        for (domain, output) in [
            (TessDomain::Quad, TessOutput::Line),
            (TessDomain::Tri, TessOutput::Line),
            (TessDomain::Isoline, TessOutput::TriCw),
        ] {
            let e = tessellate(&te(domain, Partitioning::Integer, output), &h).unwrap_err();
            assert!(e.to_string().contains("seed 004 §5"), "{e}");
        }
    }

    /// Hostile factors (any bits: NaN, infinities, denormals, negatives, huge values)
    /// for every domain, partitioning and output: a result or a typed error, never a
    /// panic; indices stay within the points, and the points within the domain.
    #[test]
    fn any_header_bits_tessellate_within_bounds() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let specials = [
            0u32,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x0000_0001,
            0x3f80_0000,
            0x3f80_0001,
            0x4280_0000,
            0x4f00_0000,
            0xbf80_0000,
        ];
        for _ in 0..3000 {
            let mut h = [0u32; 8];
            for dw in &mut h {
                let r = next();
                *dw = match r % 4 {
                    0 => specials[(r >> 8) as usize % specials.len()],
                    1 => (r >> 32) as u32,
                    _ => (((r >> 16) % 70_000) as f32 / 1000.0).to_bits(),
                };
            }
            let r = next();
            let domain = [TessDomain::Quad, TessDomain::Tri, TessDomain::Isoline][r as usize % 3];
            let partitioning = [
                Partitioning::Integer,
                Partitioning::OddFractional,
                Partitioning::EvenFractional,
            ][(r >> 8) as usize % 3];
            let output = [
                TessOutput::Point,
                TessOutput::Line,
                TessOutput::TriCw,
                TessOutput::TriCcw,
            ][(r >> 16) as usize % 4];
            let mut t = te(domain, partitioning, output);
            t.max_odd = f32::from_bits((next() >> 32) as u32);
            if let Ok(Tessellated::Points {
                points, indices, ..
            }) = tessellate(&t, &h)
            {
                assert!(points.len() <= 65 * 65, "{h:x?}");
                assert!(indices.iter().all(|&i| i < points.len()), "{h:x?}");
                assert!(
                    points.iter().flatten().all(|c| (0.0..=1.0).contains(c)),
                    "{h:x?}"
                );
            }
        }
    }
}
