//! Primitive assembly: a topology's vertex stream split into point, line, triangle and
//! rectangle objects, following the decomposition pseudocode of seed 004 §10.2.1–10.2.8
//! (L6380-6560): vertex order, `invertOrientation` for strips, `backFacing` for the _BF
//! topologies, the provoking vertex and the stipple flags. Incomplete trailing objects
//! are dropped, as the seed says they are "silently ignored" by the hardware.

use gtsim_spec::gen7::ThreeDPrimTopoType as T;

/// The basic object kinds (seed 004 §10.2 "3D Object Types").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectType {
    /// 3DOBJ_POINT.
    Point,
    /// 3DOBJ_LINE.
    Line,
    /// 3DOBJ_TRIANGLE.
    Triangle,
    /// 3DOBJ_RECTANGLE.
    Rectangle,
}

/// One object handed to object setup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    /// Kind.
    pub kind: ObjectType,
    /// Indices into the topology's vertex stream.
    pub v: Vec<usize>,
    /// Triangle orientation to be inverted (odd strip triangles, TRISTRIP_REVERSE).
    pub invert_orientation: bool,
    /// Point/line objects of _BF topologies.
    pub back_facing: bool,
    /// Index into `v` of the provoking vertex.
    pub provoking: usize,
    /// Polygon stipple applies (FALSE for TRIFAN_NOSTIPPLE).
    pub poly_stipple: bool,
    /// Line stipple continues from the previous line.
    pub continue_stipple: bool,
}

/// 3DSTATE_SF provoking vertex selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProvokingVertex {
    /// Triangle List/Strip Provoking Vertex Select (0..2).
    pub tri_list_strip: usize,
    /// Triangle Fan Provoking Vertex Select (0..2).
    pub tri_fan: usize,
    /// Line List/Strip Provoking Vertex Select (0..1).
    pub line: usize,
}

/// Why a topology cannot be assembled here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("3DPRIMITIVE topology {0:#x} is not assembled by the SF (seed 004 §10.2: {1})")]
pub struct AssemblyError(pub u32, pub &'static str);

/// Splits `count` vertices of topology `t` into objects.
pub fn decompose(t: T, count: usize, pv: ProvokingVertex) -> Result<Vec<Object>, AssemblyError> {
    let obj = |kind, v: Vec<usize>, provoking| Object {
        kind,
        v,
        invert_orientation: false,
        back_facing: false,
        provoking,
        poly_stipple: true,
        continue_stipple: false,
    };
    let mut out = vec![];
    match t {
        T::_3DPRIM_POINTLIST | T::_3DPRIM_POINTLIST_BF => {
            for i in 0..count {
                let mut o = obj(ObjectType::Point, vec![i], 0);
                o.back_facing = t == T::_3DPRIM_POINTLIST_BF;
                out.push(o);
            }
        }
        T::_3DPRIM_LINELIST => {
            for i in (0..count.saturating_sub(1)).step_by(2) {
                out.push(obj(ObjectType::Line, vec![i, i + 1], pv.line.min(1)));
            }
        }
        T::_3DPRIM_LINESTRIP
        | T::_3DPRIM_LINESTRIP_CONT
        | T::_3DPRIM_LINESTRIP_BF
        | T::_3DPRIM_LINESTRIP_CONT_BF => {
            let bf = matches!(t, T::_3DPRIM_LINESTRIP_BF | T::_3DPRIM_LINESTRIP_CONT_BF);
            let cont = matches!(t, T::_3DPRIM_LINESTRIP_CONT | T::_3DPRIM_LINESTRIP_CONT_BF);
            for i in 0..count.saturating_sub(1) {
                let mut o = obj(ObjectType::Line, vec![i, i + 1], pv.line.min(1));
                o.back_facing = bf;
                // The first line continues only for _CONT; later ones always continue.
                o.continue_stipple = cont || i > 0;
                out.push(o);
            }
        }
        T::_3DPRIM_TRILIST | T::_3DPRIM_RECTLIST => {
            let (kind, p) = if t == T::_3DPRIM_RECTLIST {
                (ObjectType::Rectangle, 0)
            } else {
                (ObjectType::Triangle, pv.tri_list_strip.min(2))
            };
            for i in (0..count.saturating_sub(2)).step_by(3) {
                out.push(obj(kind, vec![i, i + 1, i + 2], p));
            }
        }
        T::_3DPRIM_TRISTRIP | T::_3DPRIM_TRISTRIP_REVERSE => {
            let mut invert = t == T::_3DPRIM_TRISTRIP_REVERSE;
            for i in 0..count.saturating_sub(2) {
                let mut o = obj(
                    ObjectType::Triangle,
                    vec![i, i + 1, i + 2],
                    pv.tri_list_strip.min(2),
                );
                o.invert_orientation = invert;
                out.push(o);
                invert = !invert;
            }
        }
        T::_3DPRIM_TRIFAN | T::_3DPRIM_TRIFAN_NOSTIPPLE | T::_3DPRIM_POLYGON => {
            let p = if t == T::_3DPRIM_POLYGON {
                0
            } else {
                pv.tri_fan.min(2)
            };
            for i in 1..count.saturating_sub(1) {
                let mut o = obj(ObjectType::Triangle, vec![0, i, i + 1], p);
                o.poly_stipple = t != T::_3DPRIM_TRIFAN_NOSTIPPLE;
                out.push(o);
            }
        }
        other => {
            return Err(AssemblyError(
                other.0,
                "QUADLIST/QUADSTRIP/LINELOOP, adjacency and patch topologies must be converted by the driver, a GS or the tessellator first; not modelled",
            ));
        }
    }
    Ok(out)
}
