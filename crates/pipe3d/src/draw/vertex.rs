//! VF and VS: from vertex indices to the VUEs the rest of the pipeline reads.

use super::router::Router;
use super::{DrawError, KernelCache, Statistics, Vue, Watchdog, parallel};
use crate::state::{DrawState, Front, ShaderStage};
use crate::vf::{PrimitiveIds, VertexIds, assemble_element, fetch_source, vb_index};
use gtsim_eu::exec::{DEFAULT_BUDGET, ExecError, FpMode, Program};
use gtsim_mem::Memory;
use gtsim_mem::format::texel;
use gtsim_mem::overlay::Overlay;
use gtsim_spec::shared::ThreeDVertexComponentControl as C;
use std::sync::Arc;

/// The VS unit with its kernel.
pub(super) struct VertexStage {
    kernel: Option<(u64, Arc<Program>)>,
    /// PrimitiveID generation of the current instance (seed 004 §2.5.13); `None` for
    /// topologies without PrimitiveIDs.
    primitive_ids: Option<PrimitiveIds>,
}

impl VertexStage {
    pub fn new(
        st: &DrawState,
        mem: &dyn Memory,
        kernels: &mut KernelCache,
    ) -> Result<VertexStage, DrawError> {
        let kernel = match &st.vs.kernel {
            Some(k) => Some((k.address, kernels.get(st.encoding, mem, k.address)?)),
            None => None,
        };
        Ok(VertexStage {
            kernel,
            primitive_ids: None,
        })
    }

    /// Starts an instance: PrimitiveID restarts at 0 (seed 004 §2.5.13).
    pub fn begin_instance(&mut self, st: &DrawState) {
        self.primitive_ids = PrimitiveIds::new(st.vf.topology, 0);
    }

    /// A cut: the next vertices start a new run of the topology.
    pub fn begin_run(&mut self) {
        if let Some(p) = &mut self.primitive_ids {
            p.start_run();
        }
    }

    /// The VUEs of the next vertices of the current run of one instance, with each
    /// vertex's PrimitiveID (§2.5.13; what the GS takes for an object, §7.4.1) and
    /// EdgeFlag ([`edge_flags`]).
    #[expect(
        clippy::too_many_arguments,
        reason = "the draw's state and front, memory, the run and the counters"
    )]
    pub fn shade(
        &mut self,
        st: &DrawState,
        front: &dyn Front,
        mem: &mut dyn Memory,
        run: &[super::stream::VertexRef],
        instance: u32,
        stats: &mut Statistics,
        watchdog: &mut Watchdog,
    ) -> Result<Shaded, DrawError> {
        let pids: Vec<u32> = match &mut self.primitive_ids {
            Some(g) => run.iter().map(|_| g.next_id()).collect(),
            None => vec![0; run.len()],
        };
        let inputs = run
            .iter()
            .zip(&pids)
            .map(|(v, &pid)| fetch_vertex(st, &*mem, v.index, v.id, instance, pid))
            .collect::<Result<Vec<_>, _>>()?;
        let edges = edge_flags(st, &inputs);
        if st.vs.statistics {
            // §3.6.1: one per vertex, shaded or passed through.
            stats.vs_invocations += run.len() as u64;
        }
        let Some((addr, prog)) = &self.kernel else {
            // §3.1: with the VS disabled, vertices pass through unmodified.
            return Ok((inputs, pids, edges));
        };
        // The threads (two vertices each) run on the host's cores in batches, each over
        // an overlay of memory whose writes land in dispatch order, as the PS threads do
        // (`super::parallel`); a run of few threads runs one thread after the other.
        // SIMD4x2: two vertices a thread; SIMD8: eight.
        let per_thread = if st.vs.simd8 { 8 } else { 2 };
        let pairs: Vec<&[Vue]> = inputs.chunks(per_thread).collect();
        let mut out = Vec::with_capacity(inputs.len());
        let failed = |error| DrawError::Thread {
            stage: "VS",
            kernel: *addr,
            error,
        };
        // A kernel sending atomics runs its threads one after the other on memory itself
        // (`router::sends_atomics`).
        if pairs.len() < parallel::MIN_BATCH || super::router::sends_atomics(front, prog) {
            for pair in pairs {
                let budget = watchdog.thread_budget(DEFAULT_BUDGET);
                let traced = gtsim_dataport::probe::next_vertices(pair.len());
                let (result, vues, lines) =
                    run_vs_thread(st, front, &mut *mem, prog, pair, budget, traced)?;
                record_trace(st, traced, lines);
                watchdog
                    .thread_ran(result, budget, DEFAULT_BUDGET)?
                    .map_err(failed)?;
                out.extend(vues);
            }
            return Ok((out, pids, edges));
        }
        for batch in pairs.chunks(parallel::BATCH) {
            let budget = watchdog.thread_budget(DEFAULT_BUDGET);
            let base: &dyn Memory = &*mem;
            // (The watched vertex, if any, found in dispatch order on this thread.)
            let traced: Vec<Option<usize>> = batch
                .iter()
                .map(|p| gtsim_dataport::probe::next_vertices(p.len()))
                .collect();
            let outcomes = parallel::run(batch.len(), |i| {
                let mut overlay = Overlay::new(base);
                let r = run_vs_thread(st, front, &mut overlay, prog, batch[i], budget, traced[i]);
                (r, overlay.into_log())
            });
            for ((r, log), t) in outcomes.into_iter().zip(traced) {
                let (result, vues, lines) = r?;
                record_trace(st, t, lines);
                watchdog
                    .thread_ran_in_order(result, DEFAULT_BUDGET)?
                    .map_err(failed)?;
                log.apply(mem).map_err(|fault| DrawError::Fault {
                    unit: "VS thread",
                    fault,
                })?;
                out.extend(vues);
            }
        }
        Ok((out, pids, edges))
    }
}

/// The vertices' EdgeFlags (seed 004 VERTEX_ELEMENT_STATE Edge Flag Enable: "the source
/// element is interpreted as an EdgeFlag for the vertex. If the source element is zero,
/// the EdgeFlag will be set to FALSE. If the source element is non-zero, the EdgeFlag
/// will be set to TRUE"; without such an element "the vertex will be assigned a default
/// EdgeFlag of TRUE"): the first component the VF stored for that element, read from
/// the fetched vertices before the VS (the flag travels beside the vertex, not through
/// the shader). Empty when no element carries one (every flag TRUE).
fn edge_flags(st: &DrawState, inputs: &[Vue]) -> Vec<bool> {
    let Some(e) = st.vf.elements.iter().position(|e| e.valid && e.edge_flag) else {
        return vec![];
    };
    inputs
        .iter()
        .map(|v| v.get(e).is_none_or(|slot| slot[0] != 0))
        .collect()
}

/// Shaded vertices: their VUEs, PrimitiveIDs and EdgeFlags (empty: every flag TRUE).
pub(super) type Shaded = (Vec<Vue>, Vec<u32>, Vec<bool>);

/// VF: one vertex's elements, each into its 128-bit VUE slot (seed 004 §2.5, the
/// ElementLoop through URBWrite).
fn fetch_vertex(
    st: &DrawState,
    mem: &dyn Memory,
    vertex: i64,
    vertex_id: u32,
    instance: u32,
    primitive: u32,
) -> Result<Vue, DrawError> {
    let vf = &st.vf;
    let mut vue = Vec::with_capacity(vf.elements.len());
    for (i, e) in vf.elements.iter().enumerate() {
        let controls = e.components;
        let mut slot = [0u32; 4];
        if e.valid {
            let layout = texel::layout(e.format).map_err(|err| DrawError::State {
                command: "VERTEX_ELEMENT_STATE",
                why: format!("element {i}: {err}"),
            })?;
            let size = layout.bits_per_element.div_ceil(8) as usize;
            let source = match vf.vertex_buffers.get(e.buffer).copied().flatten() {
                Some(vb) if controls.contains(&C::VFCOMP_STORE_SRC) => {
                    let idx = vb_index(&vb, vertex, instance, vf.counts.start_instance);
                    fetch_source(mem, &vb, idx, e.offset, size).map_err(|fault| {
                        DrawError::Fault {
                            unit: "VF vertex fetch",
                            fault,
                        }
                    })?
                }
                _ => vec![0; size],
            };
            let ids = VertexIds {
                vertex: vertex_id,
                instance,
                primitive,
            };
            let dws = assemble_element(e.format, &source, controls, ids).map_err(|err| {
                DrawError::State {
                    command: "VERTEX_ELEMENT_STATE",
                    why: format!("element {i}: {err}"),
                }
            })?;
            slot[..dws.len()].copy_from_slice(&dws);
        }
        vue.push(slot);
    }
    for &(element, component, value) in &vf.draw_values {
        if let Some(slot) = vue.get_mut(element) {
            slot[component & 3] = value;
        }
    }
    Ok(vue)
}

/// How a VS thread ended, its output VUEs, and its traced lanes' lines (when it held the
/// watched vertex).
type VsThread = (Result<u64, ExecError>, Vec<Vue>, Option<Vec<String>>);

/// `gtsim inspect --vertex N --draw M`: the traced vertex's lanes, told to the probe
/// (on the submitting thread, in dispatch order).
fn record_trace(st: &DrawState, vertex: Option<usize>, lines: Option<Vec<String>>) {
    let (Some(v), Some(lines)) = (vertex, lines) else {
        return;
    };
    let (stage, lane, width) = if st.vs.simd8 {
        ("vertex shader", v, 1)
    } else {
        (
            "vertex shader (SIMD4x2: the vertex's x, y, z, w channels)",
            4 * v,
            4,
        )
    };
    gtsim_dataport::probe::record(gtsim_dataport::probe::Event::LaneTrace {
        stage,
        lane,
        width,
        simd: 8,
        lines,
    });
}

/// Runs `prog` on `t` through `router`, traced for vertex `vertex` of the thread when it
/// is the one watched (its lanes: `v` on SIMD8, `4v..4v + 4` on SIMD4x2).
fn run_maybe_traced(
    t: &mut gtsim_eu::exec::Thread,
    prog: &Program,
    router: &mut Router,
    budget: u64,
    (vertex, simd8): (Option<usize>, bool),
) -> (Result<u64, ExecError>, Option<Vec<String>>) {
    match vertex {
        None => (t.run_program(prog, router, budget), None),
        Some(v) => {
            let lanes = if simd8 { v..v + 1 } else { 4 * v..4 * v + 4 };
            let mut steps = vec![];
            let r = t.run_traced(
                prog,
                router,
                budget,
                lanes,
                super::pixel::TRACE_LIMIT,
                &mut steps,
            );
            (
                r,
                Some(steps.iter().map(super::pixel::trace_line).collect()),
            )
        }
    }
}

/// One SIMD4x2 VS thread for one or two vertices (seed 004 §3.3): R0 with the URB return
/// handles, then from the URB data start register the push constants and the vertex
/// data interleaved (vertex 0 in dwords
/// 0-3, vertex 1 in dwords 4-7 of each register).
///
/// Returns how the thread ended (run with `budget` instructions) and its output VUEs.
fn run_vs_thread(
    st: &DrawState,
    front: &dyn Front,
    mem: &mut dyn Memory,
    prog: &Program,
    pair: &[Vue],
    budget: u64,
    traced: Option<usize>,
) -> Result<VsThread, DrawError> {
    let vs = &st.vs;
    if vs.simd8 {
        return run_vs_thread_simd8(st, front, mem, prog, pair, budget, traced);
    }
    let mut t = super::spare::thread(8, prog);
    t.dispatch_mask = if pair.len() == 2 { 0xff } else { 0x0f };
    t.fp_mode = if vs.alt_float_mode {
        FpMode::Alt
    } else {
        FpMode::Ieee
    };
    // The header (g0) and the URB data after it: the registers the payload takes.
    t.write_payload(|grf| {
        // The header, where the generation's layout puts it: the URB return handles of the
        // two vertices (identical for a single vertex), scratch space, sampler and binding
        // table pointers.
        let l = st.payload;
        l.urb_handles[0].put(grf, 0);
        l.urb_handles[1].put(grf, if pair.len() == 2 { 1 } else { 0 });
        super::put_pointers(&l.pointers, grf, (&vs.scratch, 0), &vs.resources);
        let put = super::put_dword;
        // Seed 004 §1.9.4.2.3: the payload URB data, from "Dispatch GRF Start Register for
        // URB Data" on, is the push constants (CURBE) followed by the vertex data.
        let (start, first_slot, slots) = (vs.urb_data_start, vs.first_slot, vs.slots);
        let consts = vs.resources.constants.len();
        if start == 0 || start + consts + slots > 128 {
            return (Err(DrawError::State {
                command: "3DSTATE_VS",
                why: format!(
                    "payload URB data at g{start} ({consts} constant and {slots} vertex registers) overlaps R0 or leaves the GRF"
                ),
            }), 128);
        }
        super::put_constants(grf, start, &vs.resources);
        let data = start + consts;
        for k in 0..slots {
            for (v, vue) in pair.iter().enumerate() {
                let slot = vue.get(first_slot + k).copied().unwrap_or([0; 4]);
                for (c, &val) in slot.iter().enumerate() {
                    put(grf, data + k, v * 4 + c, val);
                }
            }
        }
        (Ok(()), start + consts + slots)
    })?;
    let mut vues = vec![Vue::new(); pair.len()];
    let mut router = Router {
        interpolator: None,
        slm: None,
        front,
        stage: ShaderStage::Vertex,
        mem,
        urb: Some(&mut vues),
        vertex_counts: None,
        barrier: None,
        pixels: None,
    };
    let (result, lines) = run_maybe_traced(&mut t, prog, &mut router, budget, (traced, vs.simd8));
    super::spare::keep(t);
    Ok((result, vues, lines))
}

/// One SIMD8 VS thread for up to eight vertices (Gen8+; Mesa brw_fs setup_vs_payload
/// and assign_vs_urb_setup give the layout the compiler reads): R0 the header, R1 the
/// channels' URB return handles (dword i: vertex i's), then from the URB data start
/// register the push constants and the vertex data, one register per attribute
/// component (slot k's component c in register `data + 4k + c`, dword i vertex i's).
fn run_vs_thread_simd8(
    st: &DrawState,
    front: &dyn Front,
    mem: &mut dyn Memory,
    prog: &Program,
    vertices: &[Vue],
    budget: u64,
    traced: Option<usize>,
) -> Result<VsThread, DrawError> {
    let vs = &st.vs;
    let mut t = super::spare::thread(8, prog);
    t.dispatch_mask = (1u32 << vertices.len()) - 1;
    t.fp_mode = if vs.alt_float_mode {
        FpMode::Alt
    } else {
        FpMode::Ieee
    };
    t.write_payload(|grf| {
        let l = st.payload;
        for v in 0..vertices.len() {
            l.simd8_urb_handles.offset(0, v).put(grf, v as u32);
        }
        super::put_pointers(&l.pointers, grf, (&vs.scratch, 0), &vs.resources);
        let (start, first_slot, slots) = (vs.urb_data_start, vs.first_slot, vs.slots);
        let consts = vs.resources.constants.len();
        if start < 2 || start + consts + 4 * slots > 128 {
            return (Err(DrawError::State {
                command: "3DSTATE_VS",
                why: format!(
                    "SIMD8 payload URB data at g{start} ({consts} constant and {} vertex registers) overlaps R0-R1 or leaves the GRF",
                    4 * slots
                ),
            }), 128);
        }
        super::put_constants(grf, start, &vs.resources);
        let data = start + consts;
        for k in 0..slots {
            for (v, vue) in vertices.iter().enumerate() {
                let slot = vue.get(first_slot + k).copied().unwrap_or([0; 4]);
                for (c, &val) in slot.iter().enumerate() {
                    super::put_dword(grf, data + 4 * k + c, v, val);
                }
            }
        }
        (Ok(()), data + 4 * slots)
    })?;
    let mut vues = vec![Vue::new(); vertices.len()];
    let mut router = Router {
        interpolator: None,
        slm: None,
        front,
        stage: ShaderStage::Vertex,
        mem,
        urb: Some(&mut vues),
        vertex_counts: None,
        barrier: None,
        pixels: None,
    };
    let (result, lines) = run_maybe_traced(&mut t, prog, &mut router, budget, (traced, vs.simd8));
    super::spare::keep(t);
    Ok((result, vues, lines))
}
