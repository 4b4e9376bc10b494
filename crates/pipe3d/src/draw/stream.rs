//! Streaming a draw: the vertex indices come in bounded chunks and the objects of a run
//! are assembled from a bounded window of VUEs, so memory stays bounded whatever the
//! vertex and instance counts of a 3DPRIMITIVE (the work itself is bounded by the
//! [`super::Watchdog`]).
//!
//! Seed 004 §2.2.1: a cut index ends the current topology and starts a new one; §1.3:
//! dangling vertices (those of an incomplete trailing object) are discarded.

use super::Vue;
use super::{DrawError, Statistics};
use crate::assembly::{self, Object, ProvokingVertex};
use crate::index;
use crate::state::DrawState;
use crate::vf::vertex_index;
use gtsim_mem::Memory;
use std::collections::VecDeque;

/// Vertices fetched and shaded at a time (even, so VS threads pair the same vertices as
/// they would without chunking).
pub(super) const CHUNK: usize = 1024;

/// One piece of the vertex stream: a vertex, or a cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Item {
    Vertex(VertexRef),
    Cut,
}

/// A vertex of the stream (seed 004 §2.5.6 VertexIndexGeneration): its VertexIndex,
/// the structure index into VERTEXDATA buffers, and its VertexID, what a
/// VFCOMP_STORE_VID component stores: the VertexNumber for SEQUENTIAL access (from 0,
/// without StartVertexLocation), the index buffer's value for RANDOM access (without
/// BaseVertexLocation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct VertexRef {
    pub index: i64,
    pub id: u32,
}

/// The VertexIndex values of one instance of the draw, a chunk at a time.
pub(super) struct VertexSource {
    next: u64,
    count: u64,
}

impl VertexSource {
    pub fn new(st: &DrawState) -> VertexSource {
        VertexSource {
            next: 0,
            count: st.vf.counts.vertex_count as u64,
        }
    }

    /// The next at most [`CHUNK`] items; empty at the end.
    pub fn next_chunk(&mut self, st: &DrawState, mem: &dyn Memory) -> Result<Vec<Item>, DrawError> {
        let n = (self.count - self.next).min(CHUNK as u64);
        let first = self.next;
        self.next += n;
        let Some(ib) = &st.vf.index_buffer else {
            return Ok((first..first + n)
                .filter_map(|k| {
                    vertex_index(st.vf.counts.start_vertex, k as u32, None, 0).map(|index| {
                        Item::Vertex(VertexRef {
                            index,
                            id: k as u32,
                        })
                    })
                })
                .collect());
        };
        let indices = index::fetch(
            mem,
            ib,
            st.vf.topology,
            st.vf.counts.start_vertex as u64 + first,
            n,
        )
        .map_err(|e| DrawError::State {
            command: "3DSTATE_INDEX_BUFFER",
            why: e.to_string(),
        })?;
        Ok(indices
            .into_iter()
            .map(
                |i| match vertex_index(0, 0, Some(i), st.vf.counts.base_vertex) {
                    Some(index) => Item::Vertex(VertexRef {
                        index,
                        id: i.unwrap_or(0),
                    }),
                    None => Item::Cut,
                },
            )
            .collect())
    }
}

/// Assembles one run's objects from its VUEs as they arrive, keeping only the VUEs that
/// objects still to come can use.
pub(super) struct RunAssembler {
    topology: gtsim_spec::shared::ThreeDPrimTopoType,
    pv: ProvokingVertex,
    keeps_first: bool,
    first: Option<(Vue, u32, bool)>,
    /// `window[i]` is vertex `base + i` of the run, with its PrimitiveID.
    window: VecDeque<(Vue, u32, bool)>,
    base: usize,
    /// Vertices received.
    count: usize,
    /// Index of the next object to assemble.
    next: usize,
    /// The last assembled object, held back until it is known whether it ends the run.
    held: Option<Object>,
    /// Highest vertex index any object used.
    max_used: Option<usize>,
}

impl RunAssembler {
    pub fn new(
        topology: gtsim_spec::shared::ThreeDPrimTopoType,
        pv: ProvokingVertex,
    ) -> Result<RunAssembler, DrawError> {
        assembly::object_at(topology, 0, pv).map_err(|e| {
            if e.unmodelled() {
                super::unsupported(e.to_string(), "seed 004 §9.5")
            } else {
                DrawError::State {
                    command: "3DPRIMITIVE",
                    why: e.to_string(),
                }
            }
        })?;
        Ok(RunAssembler {
            topology,
            pv,
            keeps_first: assembly::keeps_first(topology),
            first: None,
            window: VecDeque::new(),
            base: 0,
            count: 0,
            next: 0,
            held: None,
            max_used: None,
        })
    }

    /// The topology the run is assembled as.
    pub fn topology(&self) -> gtsim_spec::shared::ThreeDPrimTopoType {
        self.topology
    }

    fn object(&self, k: usize) -> Object {
        assembly::object_at(self.topology, k, self.pv).expect("topology checked in new")
    }

    /// The lowest vertex index (other than a kept first vertex) that `o` reads.
    fn lowest(&self, o: &Object) -> usize {
        o.v.iter()
            .copied()
            .filter(|&i| !(self.keeps_first && i == 0))
            .min()
            .unwrap_or(0)
    }

    fn vertex(&self, i: usize) -> &(Vue, u32, bool) {
        if self.keeps_first
            && i == 0
            && let Some(f) = &self.first
        {
            return f;
        }
        &self.window[i - self.base]
    }

    /// The VUE of vertex `i` of the run.
    pub fn vue(&self, i: usize) -> &Vue {
        &self.vertex(i).0
    }

    /// The PrimitiveID of vertex `i` of the run (seed 004 §2.5.13).
    pub fn pid(&self, i: usize) -> u32 {
        self.vertex(i).1
    }

    /// Vertex `i`'s EdgeFlag (seed 004 VERTEX_ELEMENT_STATE Edge Flag Enable: it
    /// "will travel down the fixed function pipeline along with the vertex handle";
    /// TRUE where the VF had none).
    pub fn edge(&self, i: usize) -> bool {
        self.vertex(i).2
    }

    /// Takes the next VUEs of the run, with their PrimitiveIDs (0 where `pids` is
    /// short) and EdgeFlags (TRUE where `edges` is short); returns the objects now
    /// complete (each with `false`: not the last of its run), in order.
    pub fn push(
        &mut self,
        vues: Vec<Vue>,
        (pids, edges): (&[u32], &[bool]),
        stats: &mut Statistics,
        count_ia: bool,
    ) -> Vec<(Object, bool)> {
        // Forget what neither the held object nor any later one reads.
        let keep_from = self
            .held
            .as_ref()
            .map(|h| self.lowest(h))
            .unwrap_or_else(|| self.lowest(&self.object(self.next)));
        while self.base < keep_from && !self.window.is_empty() {
            self.window.pop_front();
            self.base += 1;
        }
        for (i, v) in vues.into_iter().enumerate() {
            let pid = pids.get(i).copied().unwrap_or(0);
            let edge = edges.get(i).copied().unwrap_or(true);
            if self.keeps_first && self.count == 0 {
                self.first = Some((v.clone(), pid, edge));
            }
            if self.window.is_empty() {
                self.base = self.count;
            }
            self.window.push_back((v, pid, edge));
            self.count += 1;
        }
        let mut out = vec![];
        loop {
            let o = self.object(self.next);
            if o.last >= self.count {
                break;
            }
            let counted = assembly::counts_as_object(self.topology, self.next);
            self.next += 1;
            self.note_used(&o, stats, count_ia, counted);
            if let Some(h) = self.held.replace(o) {
                out.push((h, false));
            }
        }
        out
    }

    fn note_used(&mut self, o: &Object, stats: &mut Statistics, count_ia: bool, primitive: bool) {
        let hi = o.last;
        self.max_used = Some(self.max_used.map_or(hi, |m| m.max(hi)));
        if count_ia && primitive {
            stats.ia_primitives += 1;
        }
    }

    /// Ends the run: the held object (the run's last, or the last before a LINELOOP's
    /// closing line) and the closing line.
    pub fn finish(&mut self, stats: &mut Statistics, count_ia: bool) -> Vec<(Object, bool)> {
        let closing = assembly::closing_object(self.topology, self.count, self.pv);
        let mut out = vec![];
        if let Some(mut h) = self.held.take() {
            assembly::close_polygon(self.topology, &mut h);
            out.push((h, closing.is_none()));
        }
        if let Some(c) = closing {
            // Seed 004 §1.9 statistics table: the closing line of a LINELOOP is not
            // counted in IA_PRIMITIVES_COUNT.
            self.note_used(&c, stats, count_ia, false);
            out.push((c, true));
        }
        if count_ia {
            // Every vertex of a complete object; dangling vertices are not counted.
            stats.ia_vertices += self.max_used.map_or(0, |m| m as u64 + 1);
        }
        out
    }
}
