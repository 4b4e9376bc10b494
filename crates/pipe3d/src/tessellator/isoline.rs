//! The ISOLINE domain (seed 004 §5.4): lines of constant v, as many as the Line
//! Density factor's INTEGER division has points less the v = 1 one, each divided by
//! the Line Detail factor with the state's partitioning.

use super::division::{Division, Fxp, Parity, integer_parity, to_fixed};
use super::factors::Range;
use crate::state::{Partitioning, Tessellator};

/// The points of an isoline patch as (u, v) in 16.16, line after line, and the points
/// per line. `detail` and `density` are the patch's factors, both above 0.
pub(super) fn points(te: &Tessellator, detail: f32, density: f32) -> (Vec<[Fxp; 2]>, usize) {
    let detail = Range::of(te, te.partitioning).clamp(detail);
    let (detail, detail_parity) = match te.partitioning {
        Partitioning::Integer => (detail.ceil(), integer_parity(detail.ceil(), false)),
        Partitioning::OddFractional => (detail, Parity::Odd),
        Partitioning::EvenFractional => (detail, Parity::Even),
    };
    let detail = Division::new(to_fixed(detail), detail_parity);
    // 3DSTATE_TE DW2-3: "ISOLINE's LineDensity TF is always subjected to INTEGER
    // partitioning regardless of the Partitioning state".
    let density = Range::of(te, Partitioning::Integer).clamp(density).ceil();
    let density = Division::new(to_fixed(density), integer_parity(density, false));
    let mut points = vec![];
    for line in 0..density.points as u32 - 1 {
        let v = density.place(line);
        for p in 0..detail.points as u32 {
            points.push([detail.place(p), v]);
        }
    }
    (points, detail.points)
}
