//! The HS, TE and DS stages (seed 004 ch.4-6): each patch of a PATCHLIST run goes
//! through a group of HS threads that write its patch record, the TE divides the
//! domain its tessellation factors select (`crate::tessellator`), and DS threads turn
//! the domain points into vertices (VUEs) for the rest of the pipeline.
//!
//! The URB as the threads see it is the patch's entries by handle: handle 0 the patch
//! record, handles 1 on its input control points (ICPs, the VS's VUEs) for the HS; for
//! the DS, handles 0 and 1 its two output vertices and handle 2 the patch record. The
//! kernels only pass on the handles their payload gives them.
//!
//! An HS patch's thread instances may synchronise with a gateway barrier and `wait`
//! (crocus's do, before the first instance releases the ICPs): they run one at a time,
//! each until it ends or waits, and once all wait with the barrier complete, each is
//! notified and resumed (seed 004 §4.7; IVB PRM Vol4 Part2 "Message Gateway").

use super::router::Router;
use super::staging::Staged;
use super::{DrawError, KernelCache, Statistics, Vue, Watchdog};
use crate::state::{DrawState, Front, ShaderStage, Tessellation};
use crate::tessellator::{Tessellated, tessellate};
use gtsim_eu::exec::{DEFAULT_BUDGET, FpMode, Program, Thread};
use gtsim_mem::Memory;
use gtsim_spec::shared::ThreeDPrimTopoType as T;
use std::sync::Arc;

/// The tessellation stages of a draw with their kernels.
pub(super) struct TessellationStage {
    state: Tessellation,
    hs: (u64, Arc<Program>),
    ds: (u64, Arc<Program>),
}

/// One patch's output: the DS's vertices in the TE's topology, with the patch's
/// PrimitiveID.
pub(super) struct Domain {
    pub topology: T,
    pub vues: Vec<Vue>,
    pub primitive_id: u32,
}

impl TessellationStage {
    /// The stages of the draw, `None` when tessellation is disabled.
    pub fn new(
        st: &DrawState,
        mem: &dyn Memory,
        kernels: &mut KernelCache,
    ) -> Result<Option<TessellationStage>, DrawError> {
        let Some(t) = &st.tess else {
            return Ok(None);
        };
        // §5: "When these stages are enabled, only patchlist topologies should be
        // issued to the pipeline, else behavior is UNDEFINED."
        if !(0x20..=0x3f).contains(&st.vf.topology.0) {
            return Err(DrawError::State {
                command: "3DPRIMITIVE",
                why: format!(
                    "topology {:#x} with tessellation enabled (only PATCHLIST topologies, seed 004 §5)",
                    st.vf.topology.0
                ),
            });
        }
        let hs = t.hs.kernel.checked("3DSTATE_HS Kernel Start Pointer")?;
        let ds = t.ds.kernel.checked("3DSTATE_DS Kernel Start Pointer")?;
        Ok(Some(TessellationStage {
            state: t.clone(),
            hs: (hs, kernels.get(st.encoding, mem, hs)?),
            ds: (ds, kernels.get(st.encoding, mem, ds)?),
        }))
    }

    /// Runs `patches` (staged PATCHLIST objects) through the HS, TE and DS; returns
    /// each patch's vertices (none for a culled patch), in patch order.
    pub fn patches(
        &self,
        st: &DrawState,
        front: &dyn Front,
        mem: &mut dyn Memory,
        patches: &[Staged],
        stats: &mut Statistics,
        watchdog: &mut Watchdog,
    ) -> Result<Vec<Domain>, DrawError> {
        let mut out = vec![];
        for patch in patches {
            if self.state.hs.statistics {
                // §4.10.1: "the number of patches processed by the HS stage".
                stats.hs_invocations += 1;
            }
            let record = self.hull(st, front, mem, patch, watchdog)?;
            let mut header = [0u32; 8];
            for (i, dw) in header.iter_mut().enumerate() {
                *dw = record.get(i / 4).map_or(0, |s| s[i % 4]);
            }
            match tessellate(&self.state.te, &header)? {
                Tessellated::Culled => {}
                Tessellated::Points {
                    topology,
                    points,
                    indices,
                } => {
                    if self.state.ds.statistics {
                        // §6.4: every incoming domain point (each shaded once here).
                        stats.ds_invocations += points.len() as u64;
                    }
                    let shaded =
                        self.domain(st, front, mem, &record, patch.pid, &points, watchdog)?;
                    out.push(Domain {
                        topology,
                        vues: indices.iter().map(|&i| shaded[i].clone()).collect(),
                        primitive_id: patch.pid,
                    });
                }
            }
        }
        Ok(out)
    }

    /// The HS threads of one patch (§4.6-4.8); returns its patch record.
    fn hull(
        &self,
        st: &DrawState,
        front: &dyn Front,
        mem: &mut dyn Memory,
        patch: &Staged,
        watchdog: &mut Watchdog,
    ) -> Result<Vue, DrawError> {
        let hs = &self.state.hs;
        let (addr, prog) = (&self.hs.0, &self.hs.1);
        let failed = |error| DrawError::Thread {
            stage: "HS",
            kernel: *addr,
            error,
        };
        // The URB the patch's threads see: the record, then the ICPs.
        let mut entries: Vec<Vue> = Vec::with_capacity(patch.vues.len() + 1);
        entries.push(Vue::new());
        entries.extend(patch.vues.iter().cloned());
        let mut threads: Vec<Box<Thread>> = Vec::with_capacity(hs.instances as usize);
        for instance in 0..hs.instances {
            let mut t = Box::new(Thread::new(8));
            t.timestamp = super::clock::tm0_start();
            // §4.7.1: "HS threads will be dispatched with the dispatch mask set to
            // 0xFFFF" (all eight SIMD4x2 channels).
            t.dispatch_mask = 0xff;
            t.fp_mode = if hs.alt_float_mode {
                FpMode::Alt
            } else {
                FpMode::Ieee
            };
            t.write_payload(|grf| {
                let l = st.payload;
                l.hs_patch_handle.put(grf, 0);
                l.hs_primitive_id.put(grf, patch.pid);
                l.hs_instance.put(grf, instance);
                l.hs_barrier.put(grf, 0);
                super::put_pointers(&l.pointers, grf, (&hs.scratch, instance), &hs.resources);
                let mut used = 1;
                if hs.include_vertex_handles {
                    for k in 0..patch.vues.len() {
                        l.hs_icp_handle
                            .offset(k / 8, k % 8)
                            .put(grf, k as u32 + 1);
                    }
                    used += patch.vues.len().div_ceil(8);
                }
                let consts = hs.resources.constants.len();
                let start = hs.urb_data_start;
                // §4.6.1 ICP Vertex Data: vertex 0's dwords from Rn.0 on, each vertex
                // right after the previous one.
                let data_regs = (patch.vues.len() * hs.slots).div_ceil(2);
                if start < used || start + consts + data_regs > 128 {
                    return (Err(DrawError::State {
                        command: "3DSTATE_HS",
                        why: format!(
                            "payload URB data at g{start} ({consts} constant and {data_regs} ICP registers) overlaps R0-R{} or leaves the GRF",
                            used - 1
                        ),
                    }), 128);
                }
                super::put_constants(grf, start, &hs.resources);
                let data = start + consts;
                for (v, vue) in patch.vues.iter().enumerate() {
                    for k in 0..hs.slots {
                        let n = v * hs.slots + k;
                        let slot = vue.get(hs.first_slot + k).copied().unwrap_or([0; 4]);
                        for (c, &val) in slot.iter().enumerate() {
                            super::put_dword(grf, data + n / 2, (n % 2) * 4 + c, val);
                        }
                    }
                }
                (Ok(()), start + consts + data_regs)
            })?;
            threads.push(t);
        }
        // Run the instances, each until it ends or waits at the barrier.
        let group = super::group::Group {
            count: hs.instances,
            barrier: true,
            who: "HS instances of a patch".into(),
            command: "HS threads",
            failed: &failed,
        };
        group.run(&mut threads, watchdog, &mut |t, barrier, resume, budget| {
            let mut router = Router {
                interpolator: None,
                slm: None,
                front,
                stage: ShaderStage::Hull,
                mem: &mut *mem,
                urb: Some(&mut entries),
                vertex_counts: None,
                barrier: Some(barrier),
                pixels: None,
            };
            if resume {
                t.resume_program(prog, &mut router, budget)
            } else {
                t.run_program(prog, &mut router, budget)
            }
        })?;
        Ok(entries.swap_remove(0))
    }

    /// The DS threads of one patch's domain points (§6.2-6.3), two points a thread
    /// (one with Single Domain Point Dispatch); returns their VUEs in point order.
    #[expect(
        clippy::too_many_arguments,
        reason = "the draw's state and front, memory, the patch and the watchdog"
    )]
    fn domain(
        &self,
        st: &DrawState,
        front: &dyn Front,
        mem: &mut dyn Memory,
        record: &Vue,
        pid: u32,
        points: &[[f32; 2]],
        watchdog: &mut Watchdog,
    ) -> Result<Vec<Vue>, DrawError> {
        let ds = &self.state.ds;
        let (addr, prog) = (&self.ds.0, &self.ds.1);
        let per_thread = if ds.simd8 {
            8
        } else if ds.single_point {
            1
        } else {
            2
        };
        // The entries a thread's messages reach: its points' outputs, then the record.
        let record_handle = per_thread.max(2);
        let mut out = Vec::with_capacity(points.len());
        for pair in points.chunks(per_thread) {
            let mut t = super::spare::thread(8, prog);
            t.dispatch_mask = if ds.simd8 {
                (1u32 << pair.len()) - 1
            } else if pair.len() == 2 {
                0xff
            } else {
                0x0f
            };
            t.fp_mode = if ds.alt_float_mode {
                FpMode::Alt
            } else {
                FpMode::Ieee
            };
            t.write_payload(|grf| {
                let l = st.payload;
                if ds.simd8 {
                    for k in 0..pair.len() {
                        l.simd8_ds_urb_handles.offset(0, k).put(grf, k as u32);
                    }
                } else {
                    l.urb_handles[0].put(grf, 0);
                    l.urb_handles[1].put(grf, if pair.len() == 2 { 1 } else { 0 });
                }
                super::put_pointers(&l.pointers, grf, (&ds.scratch, 0), &ds.resources);
                for (k, &[u, v]) in pair.iter().enumerate() {
                    let w = if ds.compute_w { 1.0 - u - v } else { 0.0 };
                    for (c, value) in [u, v, w].into_iter().enumerate() {
                        l.ds_domain_point[c]
                            .offset(0, k * l.ds_point_stride)
                            .put(grf, value.to_bits());
                    }
                }
                l.ds_patch_handle.put(grf, record_handle as u32);
                l.ds_primitive_id.put(grf, pid);
                let consts = ds.resources.constants.len();
                let start = ds.urb_data_start;
                let data_regs = ds.slots.div_ceil(2);
                let header = if ds.simd8 { 5 } else { 2 };
                if start < header || start + consts + data_regs > 128 {
                    return (Err(DrawError::State {
                        command: "3DSTATE_DS",
                        why: format!(
                            "payload URB data at g{start} ({consts} constant and {data_regs} patch registers) overlaps R0-R1 or leaves the GRF"
                        ),
                    }), 128);
                }
                super::put_constants(grf, start, &ds.resources);
                // §6.2 Patch URB Data: "The Patch Data arrives in a non-interleaved
                // format", two slots a register.
                let data = start + consts;
                for k in 0..ds.slots {
                    let slot = record.get(ds.first_slot + k).copied().unwrap_or([0; 4]);
                    for (c, &val) in slot.iter().enumerate() {
                        super::put_dword(grf, data + k / 2, (k % 2) * 4 + c, val);
                    }
                }
                (Ok(()), start + consts + data_regs)
            })?;
            let mut entries = vec![Vue::new(); record_handle];
            entries.push(record.clone());
            let budget = watchdog.thread_budget(DEFAULT_BUDGET);
            let mut router = Router {
                interpolator: None,
                slm: None,
                front,
                stage: ShaderStage::Domain,
                mem: &mut *mem,
                urb: Some(&mut entries),
                vertex_counts: None,
                barrier: None,
                pixels: None,
            };
            let result = t.run_program(prog, &mut router, budget);
            super::spare::keep(t);
            watchdog
                .thread_ran(result, budget, DEFAULT_BUDGET)?
                .map_err(|error| DrawError::Thread {
                    stage: "DS",
                    kernel: *addr,
                    error,
                })?;
            entries.truncate(pair.len());
            out.extend(entries);
        }
        Ok(out)
    }
}
