//! Object staging over a bounded window of a run's VUEs: the GS unit's objects and the
//! SOL stage's (both follow `crate::gs_order`; seed 004 §7.4.1 and §8.1), produced as
//! their vertices arrive, keeping only the VUEs later objects read.

use super::{DrawError, Vue};
use crate::gs_order::{GsNext, Staging, gs_object};
use gtsim_spec::shared::ThreeDPrimTopoType as T;
use std::collections::VecDeque;

/// One staged object: its vertices' VUEs in order, its PrimitiveID, the topology passed
/// with it, and its index in the run.
pub(super) struct Staged {
    pub vues: Vec<Vue>,
    pub pid: u32,
    pub topology: T,
    pub index: usize,
    /// The run's LINELOOP closing line (not counted as a VF object).
    pub closing: bool,
}

/// The objects of one run of `topology`, staged as its VUEs arrive.
pub(super) struct Stager {
    topology: T,
    staging: Staging,
    keeps_first: bool,
    /// The run's first vertex, for fans and loops.
    first: Option<(Vue, u32)>,
    /// `window[i]` is vertex `base + i` of the run, with its PrimitiveID.
    window: VecDeque<(Vue, u32)>,
    base: usize,
    count: usize,
    /// Index of the next object.
    next: usize,
    /// Highest vertex index an object used.
    max_used: Option<usize>,
}

impl Stager {
    pub fn new(topology: T, staging: Staging) -> Stager {
        Stager {
            topology,
            staging,
            keeps_first: crate::assembly::keeps_first(topology),
            first: None,
            window: VecDeque::new(),
            base: 0,
            count: 0,
            next: 0,
            max_used: None,
        }
    }

    /// The highest vertex index any object used (IA_VERTICES_COUNT counts up to it).
    pub fn max_used(&self) -> Option<usize> {
        self.max_used
    }

    fn vertex(&self, i: usize) -> &(Vue, u32) {
        if self.keeps_first
            && i == 0
            && let Some(f) = &self.first
        {
            return f;
        }
        &self.window[i - self.base]
    }

    /// Takes the next VUEs of the run (with their PrimitiveIDs, 0 where `pids` is
    /// short); returns the objects now complete. `ended`: the run ends after these, so
    /// its trailing object is known.
    pub fn push(
        &mut self,
        vues: Vec<Vue>,
        pids: &[u32],
        ended: bool,
    ) -> Result<Vec<Staged>, DrawError> {
        for (i, v) in vues.into_iter().enumerate() {
            let pid = pids.get(i).copied().unwrap_or(0);
            if self.keeps_first && self.count == 0 {
                self.first = Some((v.clone(), pid));
            }
            if self.window.is_empty() {
                self.base = self.count;
            }
            self.window.push_back((v, pid));
            self.count += 1;
        }
        let mut out = vec![];
        let next = |s: &Self| {
            gs_object(s.topology, s.next, s.count, ended, s.staging).map_err(|e| DrawError::State {
                command: "3DPRIMITIVE",
                why: e.to_string(),
            })
        };
        while let GsNext::Ready(o) = next(self)? {
            let hi = o.v.iter().copied().max().unwrap_or(0);
            self.max_used = Some(self.max_used.map_or(hi, |m| m.max(hi)));
            out.push(Staged {
                vues: o.v.iter().map(|&i| self.vertex(i).0.clone()).collect(),
                pid: self.vertex(o.primitive_id_vertex).1,
                topology: o.topology,
                index: self.next,
                closing: self.topology == T::_3DPRIM_LINELOOP && o.v.last() == Some(&0),
            });
            self.next += 1;
        }
        // Forget the vertices no later object reads: objects read no vertex below the
        // next one's lowest (adjacency objects reach back at most two vertices; a fan's
        // first vertex is kept apart).
        let keep_from = self.next.saturating_sub(2) * lowest_factor(self.topology);
        while self.base < keep_from && !self.window.is_empty() {
            self.window.pop_front();
            self.base += 1;
        }
        Ok(out)
    }
}

/// How many vertices each object of `t` moves on by: later objects read no vertex below
/// `(k - 2) x` this for object k.
fn lowest_factor(t: T) -> usize {
    match t {
        T::_3DPRIM_LINELIST => 2,
        T::_3DPRIM_TRILIST | T::_3DPRIM_RECTLIST => 3,
        T::_3DPRIM_LINELIST_ADJ | T::_3DPRIM_QUADLIST => 4,
        T::_3DPRIM_TRILIST_ADJ => 6,
        T::_3DPRIM_TRISTRIP_ADJ | T::_3DPRIM_QUADSTRIP => 2,
        p if (0x20..=0x3f).contains(&p.0) => (p.0 - 0x1f) as usize,
        _ => 1,
    }
}
