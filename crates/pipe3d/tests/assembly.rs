//! Primitive decomposition against the seed's pseudocode (004 §10.2), worked by hand.

use gtsim_pipe3d::assembly::{ObjectType, ProvokingVertex, decompose};
use gtsim_spec::shared::ThreeDPrimTopoType as T;

const PV: ProvokingVertex = ProvokingVertex {
    tri_list_strip: 0,
    tri_fan: 1,
    line: 1,
};

fn verts(t: T, n: usize) -> Vec<Vec<usize>> {
    decompose(t, n, PV)
        .unwrap()
        .into_iter()
        .map(|o| o.v)
        .collect()
}

#[test]
fn lists_drop_incomplete_objects() {
    assert_eq!(
        verts(T::_3DPRIM_TRILIST, 7),
        vec![vec![0, 1, 2], vec![3, 4, 5]]
    );
    assert_eq!(verts(T::_3DPRIM_LINELIST, 5), vec![vec![0, 1], vec![2, 3]]);
    assert_eq!(verts(T::_3DPRIM_POINTLIST, 2), vec![vec![0], vec![1]]);
    let r = decompose(T::_3DPRIM_RECTLIST, 3, PV).unwrap();
    assert_eq!((r[0].kind, r[0].provoking), (ObjectType::Rectangle, 0));
}

#[test]
fn strips_alternate_orientation() {
    // v0,v1,v2; v1,v2,v3; v2,v3,v4 with invertOrientation F, T, F (TRISTRIP) and T, F, T
    // (TRISTRIP_REVERSE).
    let s = decompose(T::_3DPRIM_TRISTRIP, 5, PV).unwrap();
    assert_eq!(
        s.iter().map(|o| o.v.clone()).collect::<Vec<_>>(),
        vec![vec![0, 1, 2], vec![1, 2, 3], vec![2, 3, 4]]
    );
    assert_eq!(
        s.iter().map(|o| o.invert_orientation).collect::<Vec<_>>(),
        vec![false, true, false]
    );
    let r = decompose(T::_3DPRIM_TRISTRIP_REVERSE, 5, PV).unwrap();
    assert_eq!(
        r.iter().map(|o| o.invert_orientation).collect::<Vec<_>>(),
        vec![true, false, true]
    );
}

#[test]
fn fans_and_polygons() {
    // v0,v1,v2; v0,v2,v3; v0,v3,v4. Fan provoking from state (1); POLYGON forces 0;
    // NOSTIPPLE turns polygon stipple off.
    let f = decompose(T::_3DPRIM_TRIFAN, 5, PV).unwrap();
    assert_eq!(
        f.iter().map(|o| o.v.clone()).collect::<Vec<_>>(),
        vec![vec![0, 1, 2], vec![0, 2, 3], vec![0, 3, 4]]
    );
    assert!(f.iter().all(|o| o.provoking == 1 && o.poly_stipple));
    assert!(
        decompose(T::_3DPRIM_POLYGON, 4, PV)
            .unwrap()
            .iter()
            .all(|o| o.provoking == 0)
    );
    assert!(
        decompose(T::_3DPRIM_TRIFAN_NOSTIPPLE, 4, PV)
            .unwrap()
            .iter()
            .all(|o| !o.poly_stipple)
    );
}

#[test]
fn line_strips_back_facing_and_stipple_continuation() {
    // LINESTRIP: first line resets the stipple, later ones continue; _CONT continues from
    // the first; _BF marks every line back-facing.
    let l = decompose(T::_3DPRIM_LINESTRIP, 4, PV).unwrap();
    assert_eq!(
        l.iter().map(|o| o.v.clone()).collect::<Vec<_>>(),
        vec![vec![0, 1], vec![1, 2], vec![2, 3]]
    );
    assert_eq!(
        l.iter().map(|o| o.continue_stipple).collect::<Vec<_>>(),
        vec![false, true, true]
    );
    let c = decompose(T::_3DPRIM_LINESTRIP_CONT_BF, 3, PV).unwrap();
    assert!(c.iter().all(|o| o.continue_stipple && o.back_facing));
    assert!(decompose(T::_3DPRIM_POINTLIST_BF, 1, PV).unwrap()[0].back_facing);
    assert_eq!(l[0].provoking, 1);
}

/// Seed 004 §1.3: QUADLIST and QUADSTRIP become POLYGONs at the top of the pipeline, and
/// the SF takes a polygon's vertex 0 as provoking (L6281); the GS order table (L4890-4891)
/// names the quad's provoking vertex: 3 of (0, 1, 2, 3), 2k+3 of strip quad k. So quad
/// (0,1,2,3) is the polygon (3,0,1,2), the fan (3,0,1) (3,1,2); strip quad k, perimeter
/// (2k, 2k+1, 2k+3, 2k+2), is the polygon (2k+3, 2k+2, 2k, 2k+1).
#[test]
fn quads_become_polygons_led_by_their_provoking_vertex() {
    let tris = |t, n| -> Vec<Vec<usize>> {
        decompose(t, n, PV)
            .unwrap()
            .into_iter()
            .map(|o| {
                assert_eq!((o.kind, o.provoking), (ObjectType::Triangle, 0));
                o.v
            })
            .collect()
    };
    assert_eq!(
        tris(T::_3DPRIM_QUADLIST, 9),
        vec![vec![3, 0, 1], vec![3, 1, 2], vec![7, 4, 5], vec![7, 5, 6]]
    );
    assert_eq!(
        tris(T::_3DPRIM_QUADSTRIP, 7),
        vec![vec![3, 2, 0], vec![3, 0, 1], vec![5, 4, 2], vec![5, 2, 3]]
    );
    assert!(tris(T::_3DPRIM_QUADSTRIP, 3).is_empty());
}

/// Seed 004 §1.3: LINELOOP is a LINESTRIP whose last vertex connects back to the first,
/// the 2-vertex case included.
#[test]
fn a_line_loop_closes_back_to_its_first_vertex() {
    let lines = |n| -> Vec<Vec<usize>> {
        decompose(T::_3DPRIM_LINELOOP, n, PV)
            .unwrap()
            .into_iter()
            .map(|o| o.v)
            .collect()
    };
    assert_eq!(lines(3), vec![vec![0, 1], vec![1, 2], vec![2, 0]]);
    assert_eq!(lines(2), vec![vec![0, 1], vec![1, 0]]);
    assert!(lines(1).is_empty());
}

#[test]
fn topologies_needing_conversion_fail_loudly() {
    // Patch lists need the tessellator; TRISTRIP_ADJ's pass-through is not in the seed
    // (the other adjacency topologies pass the clipper: above).
    for t in [T::_3DPRIM_TRISTRIP_ADJ, T(0x20), T(0x3f)] {
        let e = decompose(t, 4, PV).unwrap_err();
        assert_eq!(e.0, t.0, "the error names the topology: {e}");
        assert!(e.to_string().contains("§10.2"), "{e}");
        // Only TRISTRIP_ADJ is a topology the hardware draws and the model lacks.
        assert_eq!(e.unmodelled(), t == T::_3DPRIM_TRISTRIP_ADJ, "{e}");
    }
    assert!(decompose(T::_3DPRIM_TRISTRIP, 2, PV).unwrap().is_empty());
}

/// WIREFRAME and POINT follow "the topology type" (seed 004 §10.3.13): a polygon's fan
/// triangles keep only the polygon's edges and give each of its vertices to one triangle;
/// a quad's two triangles likewise; list and fan triangles keep all three. Worked by
/// hand for a pentagon (triangles 0-1-2, 0-2-3, 0-3-4) and a quad (3-0-1, 3-1-2).
#[test]
fn polygon_and_quad_triangles_keep_only_their_outline() {
    use gtsim_pipe3d::assembly::Boundary;
    let pv = ProvokingVertex::default();
    let polygon = decompose(T::_3DPRIM_POLYGON, 5, pv).unwrap();
    let b: Vec<Boundary> = polygon.iter().map(|o| o.boundary).collect();
    assert_eq!(
        b,
        [
            Boundary {
                edges: [true, true, false],
                vertices: [true, true, true]
            },
            Boundary {
                edges: [false, true, false],
                vertices: [false, false, true]
            },
            Boundary {
                edges: [false, true, true],
                vertices: [false, false, true]
            },
        ]
    );
    let quad = decompose(T::_3DPRIM_QUADLIST, 4, pv).unwrap();
    assert_eq!(quad[0].v, [3, 0, 1]);
    assert_eq!(quad[0].boundary.edges, [true, true, false]);
    assert_eq!(quad[1].v, [3, 1, 2]);
    assert_eq!(
        quad[1].boundary,
        Boundary {
            edges: [false, true, true],
            vertices: [false, false, true]
        }
    );
    for t in [T::_3DPRIM_TRILIST, T::_3DPRIM_TRIFAN, T::_3DPRIM_TRISTRIP] {
        for o in decompose(t, 5, pv).unwrap() {
            assert_eq!(o.boundary, Boundary::ALL, "{t:?}");
        }
    }
}

#[test]
fn adjacency_topologies_pass_the_clipper_as_their_plain_forms() {
    // Seed 004 §9.5 pass-through table (adjacent vertices removed) with the vertices of
    // §8.1's SOL table: LINELIST_ADJ (1,2), (5,6); a dangling 4-vertex group is dropped.
    assert_eq!(
        verts(T::_3DPRIM_LINELIST_ADJ, 11),
        vec![vec![1, 2], vec![5, 6]]
    );
    // LINESTRIP_ADJ (N >= 4): (1,2), (2,3), ..., (N-3, N-2).
    assert_eq!(
        verts(T::_3DPRIM_LINESTRIP_ADJ, 6),
        vec![vec![1, 2], vec![2, 3], vec![3, 4]]
    );
    assert!(verts(T::_3DPRIM_LINESTRIP_ADJ, 3).is_empty());
    // TRILIST_ADJ: (0,2,4), (6,8,10); 17 vertices hold two whole objects.
    assert_eq!(
        verts(T::_3DPRIM_TRILIST_ADJ, 17),
        vec![vec![0, 2, 4], vec![6, 8, 10]]
    );
    // Each object counts its adjacent-only vertices: the last TRILIST_ADJ object of 17
    // vertices ends at 11.
    let t = decompose(T::_3DPRIM_TRILIST_ADJ, 17, PV).unwrap();
    assert_eq!(t.last().map(|o| o.last), Some(11));
    assert!(
        t.iter()
            .all(|o| o.kind == ObjectType::Triangle && o.provoking == 0)
    );
    let l = decompose(T::_3DPRIM_LINESTRIP_ADJ, 6, PV).unwrap();
    assert_eq!(l.iter().map(|o| o.last).collect::<Vec<_>>(), [3, 4, 5]);
    assert_eq!(
        l.iter().map(|o| o.continue_stipple).collect::<Vec<_>>(),
        [false, true, true]
    );
}
