//! Cube map faces (seed 000 §2.1.2, §2.2.3.6): which face a direction selects and where
//! on it, and the way back from a face position to a direction, which TEXCOORDMODE_CUBE
//! uses to take a filter's taps past a face edge from the adjoining face.
//!
//! The seed describes the selection ("the vector component with the largest absolute
//! value determines the proper (major) axis, and then the sign of that component is used
//! to select between the two faces"; "the coordinates along the two minor axes are then
//! divided by the coordinate of the major axis, and scaled and translated") but its figure
//! and the orientation of each face are lost. The orientation is the one OpenGL and
//! Direct3D share (OpenGL 4.6 §8.13, Table 8.19 "Selection of cube map images"), the
//! order of the faces in the surface's array +X, -X, +Y, -Y, +Z, -Z (the same table's
//! order, and the order of Mesa's cube layouts for Intel).

/// A face and its coordinates `sc`, `tc` in [-1, 1] (outside for a position past the
/// face's edges).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FacePoint {
    /// 0..6: +X, -X, +Y, -Y, +Z, -Z.
    pub face: u32,
    /// The face's horizontal coordinate, -1 at its left edge, 1 at its right.
    pub sc: f32,
    /// The face's vertical coordinate, -1 at its top edge, 1 at its bottom.
    pub tc: f32,
}

impl FacePoint {
    /// The normalized face coordinates s, t: (sc + 1) / 2, (tc + 1) / 2.
    pub fn st(self) -> [f32; 2] {
        [(self.sc + 1.0) * 0.5, (self.tc + 1.0) * 0.5]
    }
}

/// The face the direction `d` selects, and where on it (OpenGL 4.6 Table 8.19). Ties go
/// to X, then Y. NaN components read 0; the zero vector selects +X's centre.
pub fn select(d: [f32; 3]) -> FacePoint {
    let d = d.map(|c| if c.is_nan() { 0.0 } else { c });
    let [x, y, z] = d.map(f32::abs);
    let axis: usize = if x >= y && x >= z {
        0
    } else if y >= z {
        1
    } else {
        2
    };
    project(d, 2 * axis as u32 + u32::from(d[axis] < 0.0))
}

/// The direction `d` on the plane of `face`, whatever its major axis (positions past the
/// face's edges fall outside [-1, 1]).
pub fn project(d: [f32; 3], face: u32) -> FacePoint {
    let [x, y, z] = d;
    let (sc, tc, ma) = match face {
        0 => (-z, -y, x),
        1 => (z, -y, x),
        2 => (x, z, y),
        3 => (x, -z, y),
        4 => (x, -y, z),
        _ => (-x, -y, z),
    };
    let m = ma.abs();
    let (sc, tc) = if m > 0.0 {
        (sc / m, tc / m)
    } else {
        (0.0, 0.0)
    };
    FacePoint { face, sc, tc }
}

/// The direction of position `sc`, `tc` on the plane of `face` (the inverse of
/// [`project`] for a unit major component).
pub fn direction(face: u32, sc: f32, tc: f32) -> [f32; 3] {
    match face {
        0 => [1.0, -tc, -sc],
        1 => [-1.0, -tc, sc],
        2 => [sc, 1.0, tc],
        3 => [sc, -1.0, -tc],
        4 => [sc, -tc, 1.0],
        _ => [-sc, -tc, -1.0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 8.19 worked by hand: each axis direction selects its face's centre; a
    /// direction toward a face's +s/+t corner lands at (1, 1) of that face.
    #[test]
    fn each_major_axis_selects_its_face() {
        let axes = [
            [1.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
        ];
        for (f, d) in axes.into_iter().enumerate() {
            let p = select(d);
            assert_eq!((p.face, p.sc, p.tc), (f as u32, 0.0, 0.0), "{d:?}");
        }
        // +X: sc = -rz, tc = -ry; +Y: sc = rx, tc = rz; -Z: sc = -rx, tc = -ry.
        assert_eq!(select([1.0, -0.5, -0.5]).st(), [0.75, 0.75]);
        assert_eq!(select([0.5, 1.0, 0.5]).st(), [0.75, 0.75]);
        assert_eq!(select([-0.5, -0.5, -1.0]).st(), [0.75, 0.75]);
    }

    /// `direction` inverts `project` on every face, inside and past its edges.
    #[test]
    fn direction_inverts_projection() {
        for face in 0..6 {
            for (sc, tc) in [(0.25, -0.5), (1.5, 0.0), (-1.25, 1.25)] {
                let p = project(direction(face, sc, tc), face);
                assert_eq!((p.face, p.sc, p.tc), (face, sc, tc));
            }
        }
    }

    /// Past +X's right edge (sc > 1, i.e. toward -z) lies -Z: the position re-selects the
    /// neighbouring face, near its matching edge.
    #[test]
    fn past_an_edge_is_the_neighbouring_face() {
        let p = select(direction(0, 1.2, 0.0));
        assert_eq!(p.face, 5);
        assert!((p.sc - (-1.0 / 1.2)).abs() < 1e-6, "{p:?}");
    }
}
