//! The SO function of the SOL stage (seed 004 ch.8): each incoming object of a stream
//! with SO_DECLs is checked for overflow against every buffer the stream writes, then
//! its vertices are written through the stream's SO_DECL list, each buffer's Write
//! Offset moving on by its pitch per vertex; SO_PRIM_STORAGE_NEEDED and
//! SO_NUM_PRIMS_WRITTEN count the objects.
//!
//! Objects are decomposed as §8.1's table says: without adjacency, strip triangles
//! reordered as Reorder Mode selects (the GS unit's staging with Reorder Enable and
//! Discard Adjacency gives REORDER.LEADING; REORDER.TRAILING rotates the reordered
//! triangles to end on their strip's last vertex).

use super::staging::{Staged, Stager};
use super::{DrawError, Statistics, Vue};
use crate::gs_order::Staging;
use crate::state::{DrawState, SoFunction};
use gtsim_mem::Memory;
use gtsim_spec::shared::ThreeDPrimTopoType as T;

/// The staging of §8.1: adjacent-only vertices dropped, strip triangles reordered.
pub(super) const SO_STAGING: Staging = Staging {
    reorder: true,
    trailing: false,
    discard_adjacency: true,
};

/// The SO function of one draw, with the buffers' Write Offsets as they move.
pub(super) struct SolStage {
    f: SoFunction,
    offsets: [u32; 4],
}

impl SolStage {
    /// The SO function of the draw, `None` when SO Function Enable is clear.
    pub fn new(st: &DrawState) -> Option<SolStage> {
        let f = st.sol.function.clone()?;
        let offsets = f.write_offsets;
        Some(SolStage { f, offsets })
    }

    /// Streams out the objects of a whole run of `topology` in `stream` (GS output runs
    /// and cut-delimited VF runs arrive whole or through [`SolStage::objects`]).
    pub fn run(
        &mut self,
        mem: &mut dyn Memory,
        stream: u32,
        topology: T,
        vues: Vec<Vue>,
        stats: &mut Statistics,
    ) -> Result<(), DrawError> {
        if self.stream_is_idle(stream) {
            return Ok(());
        }
        let objects = Stager::new(topology, SO_STAGING).push(vues, &[], true)?;
        self.objects(mem, stream, topology, &objects, stats)
    }

    /// Whether `stream` has no SO_DECLs (its objects are "effectively ignored").
    pub fn stream_is_idle(&self, stream: u32) -> bool {
        self.f.streams[stream as usize & 3].decls.is_empty()
    }

    /// Streams out staged objects of a run of `topology` in `stream`.
    pub fn objects(
        &mut self,
        mem: &mut dyn Memory,
        stream: u32,
        topology: T,
        objects: &[Staged],
        stats: &mut Statistics,
    ) -> Result<(), DrawError> {
        for o in objects {
            let rotate = self.f.reorder_trailing
                && match topology {
                    T::_3DPRIM_TRISTRIP | T::_3DPRIM_TRISTRIP_REVERSE => {
                        o.topology == T::_3DPRIM_TRISTRIP_REVERSE
                    }
                    T::_3DPRIM_TRISTRIP_ADJ => !o.index.is_multiple_of(2),
                    _ => false,
                };
            let mut vues: Vec<&Vue> = o.vues.iter().collect();
            if rotate {
                vues.rotate_right(1);
            }
            // Seed 004 §1.3: the VF converts QUADLIST and QUADSTRIP into a POLYGON per
            // quad, led by the quad's last vertex (L4890-4891; the GS unit's order is
            // (0, 1, 2, 3) and (2k, 2k+1, 2k+3, 2k+2)), which §8.1 streams out "Same as
            // TRIFAN": two triangles.
            let polygon: Option<[&Vue; 4]> = match (topology, vues.as_slice()) {
                (T::_3DPRIM_QUADLIST, &[a, b, c, d]) => Some([d, a, b, c]),
                (T::_3DPRIM_QUADSTRIP, &[a, b, c, d]) => Some([c, d, a, b]),
                _ => None,
            };
            if let Some([p0, p1, p2, p3]) = polygon {
                self.object(mem, stream as usize & 3, &[p0, p1, p2], stats)?;
                self.object(mem, stream as usize & 3, &[p0, p2, p3], stats)?;
                continue;
            }
            self.object(mem, stream as usize & 3, &vues, stats)?;
        }
        Ok(())
    }

    /// One object of `stream` (seed 004 §8.3).
    fn object(
        &mut self,
        mem: &mut dyn Memory,
        stream: usize,
        vues: &[&Vue],
        stats: &mut Statistics,
    ) -> Result<(), DrawError> {
        let s = &self.f.streams[stream];
        if s.decls.is_empty() {
            return Ok(());
        }
        if self.f.statistics {
            stats.so_prim_storage_needed[stream] += 1;
        }
        // The overflow check: a targeted buffer that is not enabled, or one whose
        // Write Offset would pass its end address after this object's vertices.
        for b in 0..4 {
            if s.buffer_selects & (1 << b) == 0 {
                continue;
            }
            let Some(buf) = self.f.buffers[b] else {
                return Ok(());
            };
            let after = buf
                .base
                .wrapping_add(u64::from(self.offsets[b]))
                .wrapping_add(vues.len() as u64 * u64::from(buf.pitch));
            if after > buf.end {
                return Ok(());
            }
        }
        for vue in vues {
            let mut at = self.offsets;
            for d in &s.decls {
                let Some(buf) = self.f.buffers.get(d.buffer).copied().flatten() else {
                    continue;
                };
                // A pitch of 0 is an unbound buffer: "No writes are performed."
                if buf.pitch == 0 || s.buffer_selects & (1 << d.buffer) == 0 {
                    continue;
                }
                if d.hole {
                    at[d.buffer] = at[d.buffer].wrapping_add(4 * d.mask.count_ones());
                    continue;
                }
                let slot = (d.register < s.read_length)
                    .then(|| vue.get(s.read_offset + d.register).copied())
                    .flatten()
                    .unwrap_or([0; 4]);
                for c in (0..4).filter(|c| d.mask & (1 << c) != 0) {
                    let addr = buf.base.wrapping_add(u64::from(at[d.buffer]));
                    // Writes past the buffer's end are dropped.
                    if addr.saturating_add(4) <= buf.end {
                        mem.write(addr, &slot[c].to_le_bytes()).map_err(|fault| {
                            DrawError::Fault {
                                unit: "SOL stream output",
                                fault,
                            }
                        })?;
                    }
                    at[d.buffer] = at[d.buffer].wrapping_add(4);
                }
            }
            for b in 0..4 {
                if s.buffer_selects & (1 << b) != 0
                    && let Some(buf) = self.f.buffers[b]
                {
                    self.offsets[b] = self.offsets[b].wrapping_add(buf.pitch);
                }
            }
        }
        if self.f.statistics {
            stats.so_prims_written[stream] += 1;
        }
        Ok(())
    }

    /// Records the Write Offsets the draw leaves in the SO_WRITE_OFFSETn registers.
    pub fn finish(&self, stats: &mut Statistics) {
        stats.so_write_offsets = Some(self.offsets);
    }
}
