//! The GS unit's object staging: which vertices of a run make up each object a GS
//! thread receives, in which order, which vertex gives the object its PrimitiveID, and
//! which topology the thread is told (seed 004 §7.4.1 "Object Vertex Ordering",
//! L4841-4896, with the 3DSTATE_GS Reorder Enable and Discard Adjacency rules of
//! §7.2.1.1).
//!
//! Objects are produced one at a time by index, as the SF's assembly is
//! (`crate::assembly`), so that a run of any length streams through a bounded window.
//! Whether object `k` exists depends on how many vertices have arrived and whether the
//! run has ended; the trailing object of a TRISTRIP_ADJ run even takes a different
//! vertex than the same object would were the run longer.

use crate::assembly::AssemblyError;
use gtsim_spec::shared::ThreeDPrimTopoType as T;

/// One object as the GS thread receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GsObject {
    /// Indices into the run's vertices, in payload order.
    pub v: Vec<usize>,
    /// The run vertex whose PrimitiveID the object takes (the table's underlined one).
    pub primitive_id_vertex: usize,
    /// The topology passed in the payload (TRISTRIP and TRISTRIP_REV alternate for strip
    /// objects; otherwise the incoming topology).
    pub topology: T,
}

/// What object `k` of a run is, given the vertices that have arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GsNext {
    /// The object, complete.
    Ready(GsObject),
    /// More vertices must arrive before the object is known.
    Wait,
    /// The run has ended and has no object `k` (an incomplete trailing object is
    /// discarded).
    End,
}

/// The GS unit's controls of object staging (3DSTATE_GS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Staging {
    /// Reorder Enable: "odd" TRISTRIP (and "even" TRISTRIP_REV) triangles are reordered.
    pub reorder: bool,
    /// Gen8+ Reorder Mode TRAILING (seed 003 3DSTATE_GS_BODY: "the trailing (last)
    /// vertices are in consecutive order starting at v2"): a reordered triangle is the
    /// LEADING one (Gen7's Reorder Enable order, `(k, k+2, k+1)`) rotated to end on the
    /// strip's last vertex, `(k+1, k, k+2)`, OpenGL's order; an odd TRISTRIP_ADJ object
    /// likewise, its adjacent vertices moving with their edges. The seed's Object Vertex
    /// Ordering table is not in seed 003; the rotation is the one the SO stage's
    /// REORDER_TRAILING makes (seed 004 §8.1, `draw::stream_out`).
    pub trailing: bool,
    /// Discard Adjacency: only the non-adjacent vertices of adjacency objects are passed.
    pub discard_adjacency: bool,
}

fn obj(v: Vec<usize>, pid: usize, topology: T) -> GsObject {
    GsObject {
        v,
        primitive_id_vertex: pid,
        topology,
    }
}

/// Object `k` of a run of topology `t` of which `count` vertices have arrived; `ended`:
/// no more will.
pub fn gs_object(
    t: T,
    k: usize,
    count: usize,
    ended: bool,
    s: Staging,
) -> Result<GsNext, AssemblyError> {
    let o = match t {
        T::_3DPRIM_TRISTRIP_ADJ => return Ok(tristrip_adj(k, count, ended, s)),
        T::_3DPRIM_LINELOOP => {
            // (k, k+1) while the loop goes on; its closing line (N-1, 0) once it ended.
            if k + 1 < count {
                obj(vec![k, k + 1], k + 1, t)
            } else if ended && k + 1 == count && count >= 2 {
                obj(vec![k, 0], 0, t)
            } else if ended {
                return Ok(GsNext::End);
            } else {
                return Ok(GsNext::Wait);
            }
        }
        _ => fixed(t, k, s)?,
    };
    Ok(if o.v.iter().all(|&i| i < count) {
        GsNext::Ready(discard_adjacency(t, o, s))
    } else if ended {
        GsNext::End
    } else {
        GsNext::Wait
    })
}

/// With Discard Adjacency, the non-adjacent vertices of an adjacency object (its whole
/// vertex list decides whether it is complete).
fn discard_adjacency(t: T, o: GsObject, s: Staging) -> GsObject {
    let keep: &[usize] = match t {
        _ if !s.discard_adjacency => return o,
        T::_3DPRIM_LINELIST_ADJ | T::_3DPRIM_LINESTRIP_ADJ => &[1, 2],
        T::_3DPRIM_TRILIST_ADJ | T::_3DPRIM_TRISTRIP_ADJ => &[0, 2, 4],
        _ => return o,
    };
    GsObject {
        v: keep.iter().map(|&i| o.v[i]).collect(),
        ..o
    }
}

/// Objects whose vertices do not depend on the run's length.
fn fixed(t: T, k: usize, s: Staging) -> Result<GsObject, AssemblyError> {
    Ok(match t {
        T::_3DPRIM_POINTLIST => obj(vec![k], k, t),
        T::_3DPRIM_LINELIST => obj(vec![2 * k, 2 * k + 1], 2 * k + 1, t),
        T::_3DPRIM_LINELIST_ADJ => obj((4 * k..4 * k + 4).collect(), 4 * k + 2, t),
        T::_3DPRIM_LINESTRIP | T::_3DPRIM_LINESTRIP_CONT | T::_3DPRIM_LINESTRIP_CONT_BF => {
            obj(vec![k, k + 1], k + 1, t)
        }
        T::_3DPRIM_LINESTRIP_ADJ => obj((k..k + 4).collect(), k + 2, t),
        T::_3DPRIM_TRILIST | T::_3DPRIM_RECTLIST => {
            obj(vec![3 * k, 3 * k + 1, 3 * k + 2], 3 * k + 2, t)
        }
        T::_3DPRIM_TRILIST_ADJ => obj((6 * k..6 * k + 6).collect(), 6 * k + 4, t),
        T::_3DPRIM_TRISTRIP | T::_3DPRIM_TRISTRIP_REVERSE => {
            // TRISTRIP: "odd" triangles are the reversed ones; TRISTRIP_REV: "even" ones.
            let reversed = k.is_multiple_of(2) != (t == T::_3DPRIM_TRISTRIP);
            let passed = if reversed {
                T::_3DPRIM_TRISTRIP_REVERSE
            } else {
                T::_3DPRIM_TRISTRIP
            };
            let v = if reversed && s.reorder && s.trailing {
                vec![k + 1, k, k + 2]
            } else if reversed && s.reorder {
                vec![k, k + 2, k + 1]
            } else {
                vec![k, k + 1, k + 2]
            };
            obj(v, k + 2, passed)
        }
        T::_3DPRIM_TRIFAN | T::_3DPRIM_TRIFAN_NOSTIPPLE | T::_3DPRIM_POLYGON => {
            obj(vec![0, k + 1, k + 2], k + 2, t)
        }
        T::_3DPRIM_QUADLIST => obj((4 * k..4 * k + 4).collect(), 4 * k + 3, t),
        T::_3DPRIM_QUADSTRIP => obj(vec![2 * k, 2 * k + 1, 2 * k + 3, 2 * k + 2], 2 * k + 3, t),
        p if (0x20..=0x3f).contains(&p.0) => {
            // PATCHLIST_n: n control points per object.
            let n = (p.0 - 0x1f) as usize;
            obj((n * k..n * k + n).collect(), n * k + n - 1, t)
        }
        other => {
            return Err(AssemblyError(
                other.0,
                "not a GS input topology (seed 004 §7.4.1: N/A)",
            ));
        }
    })
}

/// TRISTRIP_ADJ (seed 004 §7.4.1): object k is (0,1,2,6,4,3) for k = 0, (2k, 2k-2, 2k+2,
/// 2k+6, 2k+4, 2k+3) for even k and (2k, 2k+3, 2k+4, 2k+6, 2k+2, 2k-2) for odd k, except
/// that the trailing object (k = N/2 - 3) takes N-1 = 2k+5 where the others take 2k+6.
/// An odd vertex count rounds down (N = 7 is N = 6's single object). PrimitiveID comes
/// from 2k+4 throughout. Under Reorder Mode TRAILING ([`Staging::trailing`]) an odd
/// object is (2k+2, 2k-2, 2k, 2k+3, 2k+4, 2k+6).
fn tristrip_adj(k: usize, count: usize, ended: bool, s: Staging) -> GsNext {
    let n = count & !1;
    let trailing = if n >= 2 * k + 8 {
        false
    } else if ended && n >= 2 * k + 6 {
        true
    } else if ended {
        return GsNext::End;
    } else {
        return GsNext::Wait;
    };
    let fourth = if trailing { 2 * k + 5 } else { 2 * k + 6 };
    let v = if k == 0 {
        vec![0, 1, 2, fourth, 4, 3]
    } else if k.is_multiple_of(2) {
        vec![2 * k, 2 * k - 2, 2 * k + 2, fourth, 2 * k + 4, 2 * k + 3]
    } else if s.trailing {
        vec![2 * k + 2, 2 * k - 2, 2 * k, 2 * k + 3, 2 * k + 4, fourth]
    } else {
        vec![2 * k, 2 * k + 3, 2 * k + 4, fourth, 2 * k + 2, 2 * k - 2]
    };
    let o = obj(v, 2 * k + 4, T::_3DPRIM_TRISTRIP_ADJ);
    GsNext::Ready(discard_adjacency(T::_3DPRIM_TRISTRIP_ADJ, o, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// All objects of a finished run of `n` vertices.
    fn all(t: T, n: usize, s: Staging) -> Vec<GsObject> {
        let mut out = vec![];
        for k in 0.. {
            match gs_object(t, k, n, true, s).unwrap() {
                GsNext::Ready(o) => out.push(o),
                GsNext::End => break,
                GsNext::Wait => unreachable!("a finished run never waits"),
            }
        }
        out
    }

    fn verts(t: T, n: usize, s: Staging) -> Vec<Vec<usize>> {
        all(t, n, s).into_iter().map(|o| o.v).collect()
    }

    const REORDER: Staging = Staging {
        reorder: true,
        trailing: false,
        discard_adjacency: false,
    };
    const PLAIN: Staging = Staging {
        reorder: false,
        trailing: false,
        discard_adjacency: false,
    };
    const TRAILING: Staging = Staging {
        reorder: true,
        trailing: true,
        discard_adjacency: false,
    };

    /// Reorder Mode TRAILING passes strip triangles in OpenGL's order: the OpenGL 4.6
    /// core specification §10.1.6 (triangle strips: triangle i is (i, i+1, i+2) for
    /// even i, (i+1, i, i+2) for odd i) and §10.1.13 table 10.1 (triangle strips with
    /// adjacency, vertices numbered from 1: the first triangle (1, 2, 3, 7, 5, 4) when
    /// there is more than one, middle odd i (2i+3, 2i-1, 2i+1, 2i+4, 2i+5, 2i+6), middle
    /// even i (2i+1, 2i-1, 2i+3, 2i+7, 2i+5, 2i+4), the last odd i (2i+3, 2i-1, 2i+1,
    /// 2i+4, 2i+5, 2i+6) and the last even i (2i+1, 2i-1, 2i+3, 2i+6, 2i+5, 2i+4)),
    /// worked here for 5 and 10 vertices and written from 0.
    #[test]
    fn trailing_reorder_gives_opengl_order() {
        assert_eq!(
            verts(T::_3DPRIM_TRISTRIP, 5, TRAILING),
            [[0, 1, 2], [2, 1, 3], [2, 3, 4]]
        );
        // TRISTRIP_REV reorders the even triangles the same way.
        assert_eq!(
            verts(T::_3DPRIM_TRISTRIP_REVERSE, 4, TRAILING),
            [[1, 0, 2], [1, 2, 3]]
        );
        // 10 vertices, three triangles: first (i = 0), middle odd (i = 1), last even
        // (i = 2): 1-based (1,2,3,7,5,4), (5,1,3,6,7,9), (5,3,7,10,9,8).
        assert_eq!(
            verts(T::_3DPRIM_TRISTRIP_ADJ, 10, TRAILING),
            [[0, 1, 2, 6, 4, 3], [4, 0, 2, 5, 6, 8], [4, 2, 6, 9, 8, 7]]
        );
        // 12 vertices: the middle odd object and the last odd one, 1-based
        // (5,1,3,6,7,9) and (9,5,7,10,11,12).
        let v = verts(T::_3DPRIM_TRISTRIP_ADJ, 12, TRAILING);
        assert_eq!(v[1], [4, 0, 2, 5, 6, 8]);
        assert_eq!(v[3], [8, 4, 6, 9, 10, 11]);
        // Without adjacency passed, the inner triangle of an odd object is TRISTRIP's.
        let s = Staging {
            discard_adjacency: true,
            ..TRAILING
        };
        assert_eq!(verts(T::_3DPRIM_TRISTRIP_ADJ, 10, s)[1], [4, 2, 6]);
    }

    /// The seed's rows for the simple topologies, with the underlined PrimitiveID vertex.
    #[test]
    fn list_and_strip_objects_follow_the_table() {
        assert_eq!(verts(T::_3DPRIM_POINTLIST, 3, PLAIN), [[0], [1], [2]]);
        assert_eq!(verts(T::_3DPRIM_LINELIST, 5, PLAIN), [[0, 1], [2, 3]]);
        assert_eq!(verts(T::_3DPRIM_LINESTRIP, 3, PLAIN), [[0, 1], [1, 2]]);
        assert_eq!(
            verts(T::_3DPRIM_LINELOOP, 3, PLAIN),
            [[0, 1], [1, 2], [2, 0]]
        );
        assert_eq!(
            verts(T::_3DPRIM_LINESTRIP_ADJ, 5, PLAIN),
            [[0, 1, 2, 3], [1, 2, 3, 4]]
        );
        assert_eq!(
            verts(T::_3DPRIM_TRILIST_ADJ, 12, PLAIN),
            [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]]
        );
        assert_eq!(
            verts(T::_3DPRIM_TRIFAN, 5, PLAIN),
            [[0, 1, 2], [0, 2, 3], [0, 3, 4]]
        );
        assert_eq!(
            verts(T::_3DPRIM_QUADSTRIP, 6, PLAIN),
            [[0, 1, 3, 2], [2, 3, 5, 4]]
        );
        assert_eq!(
            verts(T::_3DPRIM_PATCHLIST_3, 7, PLAIN),
            [[0, 1, 2], [3, 4, 5]]
        );
        let pids: Vec<usize> = all(T::_3DPRIM_TRILIST_ADJ, 12, PLAIN)
            .iter()
            .map(|o| o.primitive_id_vertex)
            .collect();
        assert_eq!(pids, [4, 10]);
        let pids: Vec<usize> = all(T::_3DPRIM_LINELIST_ADJ, 8, PLAIN)
            .iter()
            .map(|o| o.primitive_id_vertex)
            .collect();
        assert_eq!(pids, [2, 6]);
    }

    /// TRISTRIP with Reorder ENABLED: odd triangles (k, k+2, k+1) passed as
    /// TRISTRIP_REV; DISABLED: (k, k+1, k+2) with the type still toggling. TRISTRIP_REV
    /// mirrors it on the even triangles.
    #[test]
    fn strip_triangles_are_reordered_and_typed_as_the_table_says() {
        let s = all(T::_3DPRIM_TRISTRIP, 5, REORDER);
        assert_eq!(
            s.iter().map(|o| o.v.clone()).collect::<Vec<_>>(),
            [[0, 1, 2], [1, 3, 2], [2, 3, 4]]
        );
        assert_eq!(
            s.iter().map(|o| o.topology).collect::<Vec<_>>(),
            [
                T::_3DPRIM_TRISTRIP,
                T::_3DPRIM_TRISTRIP_REVERSE,
                T::_3DPRIM_TRISTRIP
            ]
        );
        assert!(
            s.iter()
                .zip(2..)
                .all(|(o, pid)| o.primitive_id_vertex == pid)
        );
        let s = all(T::_3DPRIM_TRISTRIP, 4, PLAIN);
        assert_eq!(
            s.iter()
                .map(|o| (o.v.clone(), o.topology))
                .collect::<Vec<_>>(),
            [
                (vec![0, 1, 2], T::_3DPRIM_TRISTRIP),
                (vec![1, 2, 3], T::_3DPRIM_TRISTRIP_REVERSE)
            ]
        );
        let s = all(T::_3DPRIM_TRISTRIP_REVERSE, 4, REORDER);
        assert_eq!(
            s.iter()
                .map(|o| (o.v.clone(), o.topology))
                .collect::<Vec<_>>(),
            [
                (vec![0, 2, 1], T::_3DPRIM_TRISTRIP_REVERSE),
                (vec![1, 2, 3], T::_3DPRIM_TRISTRIP)
            ]
        );
        let s = all(T::_3DPRIM_TRISTRIP_REVERSE, 4, PLAIN);
        assert_eq!(s[0].v, [0, 1, 2]);
        assert_eq!(s[0].topology, T::_3DPRIM_TRISTRIP_REVERSE);
    }

    /// Every TRISTRIP_ADJ row of the table: N = 6 or 7, N = 8 or 9, N > 10 with its
    /// generic even and odd objects and the trailing object of either parity.
    #[test]
    fn tristrip_adjacency_objects_follow_every_row_of_the_table() {
        for n in [6, 7] {
            assert_eq!(
                verts(T::_3DPRIM_TRISTRIP_ADJ, n, PLAIN),
                [[0, 1, 2, 5, 4, 3]]
            );
        }
        for n in [8, 9] {
            assert_eq!(
                verts(T::_3DPRIM_TRISTRIP_ADJ, n, PLAIN),
                [[0, 1, 2, 6, 4, 3], [2, 5, 6, 7, 4, 0]]
            );
        }
        // N = 14: objects 0-4; 2 even, 3 odd, 4 the trailing even one.
        let n = 14;
        assert_eq!(
            verts(T::_3DPRIM_TRISTRIP_ADJ, n, PLAIN),
            [
                vec![0, 1, 2, 6, 4, 3],
                vec![2, 5, 6, 8, 4, 0],
                vec![4, 2, 6, 10, 8, 7],
                vec![6, 9, 10, 12, 8, 4],
                // [(N/2)-3, even] = (N-6, N-8, N-4, N-1, N-2, N-3)
                vec![n - 6, n - 8, n - 4, n - 1, n - 2, n - 3],
            ]
        );
        // N = 12: the trailing object 3 is odd: (N-6, N-3, N-2, N-1, N-4, N-8).
        let n = 12;
        let objs = verts(T::_3DPRIM_TRISTRIP_ADJ, n, PLAIN);
        assert_eq!(objs[3], [n - 6, n - 3, n - 2, n - 1, n - 4, n - 8]);
        let pids: Vec<usize> = all(T::_3DPRIM_TRISTRIP_ADJ, 12, PLAIN)
            .iter()
            .map(|o| o.primitive_id_vertex)
            .collect();
        assert_eq!(pids, [4, 6, 8, 10]);
        // While streaming, object 0 waits for vertex 7 before it knows its fourth vertex.
        assert_eq!(
            gs_object(T::_3DPRIM_TRISTRIP_ADJ, 0, 7, false, PLAIN).unwrap(),
            GsNext::Wait
        );
        assert!(matches!(
            gs_object(T::_3DPRIM_TRISTRIP_ADJ, 0, 8, false, PLAIN).unwrap(),
            GsNext::Ready(o) if o.v[3] == 6
        ));
    }

    /// Discard Adjacency: "only the non-adjacent vertices will be passed in the same
    /// fashion as the without-adjacency form of the primitive".
    #[test]
    fn discarding_adjacency_passes_the_inner_object() {
        let s = Staging {
            reorder: true,
            trailing: false,
            discard_adjacency: true,
        };
        assert_eq!(verts(T::_3DPRIM_LINELIST_ADJ, 8, s), [[1, 2], [5, 6]]);
        assert_eq!(verts(T::_3DPRIM_LINESTRIP_ADJ, 5, s), [[1, 2], [2, 3]]);
        assert_eq!(verts(T::_3DPRIM_TRILIST_ADJ, 6, s), [[0, 2, 4]]);
        // The strip of vertices 0, 2, 4, 6: its odd triangle reordered as TRISTRIP's.
        assert_eq!(
            verts(T::_3DPRIM_TRISTRIP_ADJ, 10, s),
            [[0, 2, 4], [2, 6, 4], [4, 6, 8]]
        );
    }

    #[test]
    fn topologies_without_a_gs_form_are_refused_and_waiting_is_reported() {
        for (t, count) in [(T::_3DPRIM_POINTLIST_BF, 1), (T::_3DPRIM_LINESTRIP_BF, 2)] {
            assert!(
                matches!(
                    gs_object(t, 0, count, true, PLAIN),
                    Err(AssemblyError(code, why))
                        if code == t.0 && why.starts_with("not a GS input topology")
                ),
                "{t:?}"
            );
        }
        assert_eq!(
            gs_object(T::_3DPRIM_TRILIST, 1, 5, false, PLAIN).unwrap(),
            GsNext::Wait
        );
        assert_eq!(
            gs_object(T::_3DPRIM_TRILIST, 1, 5, true, PLAIN).unwrap(),
            GsNext::End
        );
        assert_eq!(
            gs_object(T::_3DPRIM_LINELOOP, 0, 1, true, PLAIN).unwrap(),
            GsNext::End
        );
    }
}
