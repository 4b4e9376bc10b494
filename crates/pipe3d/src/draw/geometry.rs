//! The GS stage (seed 004 ch.7): the objects of each run staged in the order the GS unit
//! passes them (`crate::gs_order`, §7.4.1), GS threads dispatched per object and
//! instance (§7.2.1.1 Dispatch Mode) with the SIMD4x2 payload of §7.4.3, and each
//! thread's output URB entry parsed (§7.5.1) into runs of the output topology for the
//! clipper.
//!
//! Threads run one after the other, in object order, so their outputs reach the clipper
//! in the order §7.6 requires ("The GS unit will output primitives ... in the proper
//! order").

use super::router::Router;
use super::staging::{Staged, Stager};
use super::{DrawError, KernelCache, Statistics, Vue, Watchdog};
use crate::gs_order::Staging;
use crate::state::{
    ControlData, DrawState, Front, GeometryShader, GsDispatch, GsVertexCount, ShaderStage,
};
use gtsim_dataport::urb::MAX_SLOTS;
use gtsim_eu::exec::{DEFAULT_BUDGET, ExecError, FpMode, Program};
use gtsim_mem::Memory;
use gtsim_spec::shared::ThreeDPrimTopoType as T;
use std::sync::Arc;

/// What one instance of one object output: the vertices of its URB entry, each with
/// whether a cut follows it and its StreamID.
pub(super) struct Output {
    pub vertices: Vec<(Vue, bool, u32)>,
    /// The input object's PrimitiveID, which its output primitives carry to the SF.
    pub primitive_id: u32,
}

/// The GS unit with its kernel, staging the objects of the current run.
pub(super) struct GeometryStage {
    gs: GeometryShader,
    addr: u64,
    prog: Arc<Program>,
    staging: Staging,
    topology: T,
    run: Stager,
}

impl GeometryStage {
    /// The GS stage of a draw, `None` when the GS is disabled.
    pub fn new(
        st: &DrawState,
        mem: &dyn Memory,
        kernels: &mut KernelCache,
    ) -> Result<Option<GeometryStage>, DrawError> {
        let Some(gs) = &st.gs else {
            return Ok(None);
        };
        let addr = gs.kernel.checked("3DSTATE_GS Kernel Start Pointer")?;
        // §7.5.1.2: the topologies a GS thread may output.
        if matches!(
            gs.output_topology,
            T::_3DPRIM_LINELIST_ADJ
                | T::_3DPRIM_LINESTRIP_ADJ
                | T::_3DPRIM_LINELOOP
                | T::_3DPRIM_QUADLIST
                | T::_3DPRIM_QUADSTRIP
                | T::_3DPRIM_TRILIST_ADJ
                | T::_3DPRIM_TRISTRIP_ADJ
        ) {
            return Err(DrawError::State {
                command: "3DSTATE_GS",
                why: format!(
                    "Output Topology {:#x} is not supported for GS thread output (seed 004 §7.5.1.2)",
                    gs.output_topology.0
                ),
            });
        }
        let prog = kernels.get(st.encoding, mem, addr)?;
        let staging = Staging {
            reorder: gs.reorder,
            trailing: gs.reorder_trailing,
            discard_adjacency: gs.discard_adjacency,
        };
        Ok(Some(GeometryStage {
            gs: gs.clone(),
            addr,
            prog,
            staging,
            topology: st.vf.topology,
            run: Stager::new(st.vf.topology, staging),
        }))
    }

    /// The GS state.
    pub fn state(&self) -> &GeometryShader {
        &self.gs
    }

    /// Starts a new run (a cut or a new instance of the draw).
    pub fn begin_run(&mut self) {
        self.run = Stager::new(self.topology, self.staging);
    }

    /// Starts a run of `topology`: the DS's output for one patch (the TE's topology).
    pub fn begin_run_of(&mut self, topology: T) {
        self.topology = topology;
        self.begin_run();
    }

    /// Takes the next VUEs of the run (with their PrimitiveIDs); returns the objects now
    /// complete. `ended`: the run ends after these, so its trailing object is known.
    pub fn push(
        &mut self,
        vues: Vec<Vue>,
        pids: Vec<u32>,
        ended: bool,
        stats: &mut Statistics,
        count_ia: bool,
    ) -> Result<Vec<Staged>, DrawError> {
        let out = self.run.push(vues, &pids, ended)?;
        if count_ia {
            // Seed 004 §1.9 statistics table: IA_PRIMITIVES_COUNT counts the objects
            // the VF generated (not a loop's closing line, as without a GS).
            stats.ia_primitives += out.iter().filter(|o| !o.closing).count() as u64;
            if ended {
                stats.ia_vertices += self.run.max_used().map_or(0, |m| m as u64 + 1);
            }
        }
        Ok(out)
    }

    /// Runs the GS threads of `inputs` (every instance of each object) and returns their
    /// outputs, in object and instance order.
    pub fn shade(
        &self,
        st: &DrawState,
        front: &dyn Front,
        mem: &mut dyn Memory,
        inputs: &[Staged],
        stats: &mut Statistics,
        watchdog: &mut Watchdog,
    ) -> Result<Vec<Output>, DrawError> {
        let gs = &self.gs;
        // (objects, instance IDs) of each thread, in dispatch order.
        let mut threads: Vec<(Vec<&Staged>, [u32; 2])> = vec![];
        match gs.dispatch {
            GsDispatch::Single => {
                for o in inputs {
                    for i in 0..gs.instances {
                        threads.push((vec![o], [i, i]));
                    }
                }
            }
            GsDispatch::DualInstance => {
                for o in inputs {
                    for i in (0..gs.instances).step_by(2) {
                        if i + 1 < gs.instances {
                            threads.push((vec![o, o], [i, i + 1]));
                        } else {
                            threads.push((vec![o], [i, i]));
                        }
                    }
                }
            }
            GsDispatch::DualObject => {
                for pair in inputs.chunks(2) {
                    threads.push((pair.iter().collect(), [0, 0]));
                }
            }
            GsDispatch::Simd8 => {
                return self.shade_simd8(st, front, mem, inputs, stats, watchdog);
            }
        }
        let mut out = vec![];
        for (objects, ids) in threads {
            if gs.statistics {
                // §7.2.1.1: the increment per instance of each object in the dispatch.
                stats.gs_invocations += gs.invocations_increment * objects.len() as u64;
            }
            let budget = watchdog.thread_budget(DEFAULT_BUDGET);
            let (result, entries, counts) =
                run_gs_thread(st, gs, front, &mut *mem, &self.prog, &objects, ids, budget)?;
            watchdog
                .thread_ran(result, budget, DEFAULT_BUDGET)?
                .map_err(|error| DrawError::Thread {
                    stage: "GS",
                    kernel: self.addr,
                    error,
                })?;
            let Some(counts) = counts else {
                return Err(DrawError::State {
                    command: "GS thread",
                    why: format!(
                        "the GS thread (kernel at {:#x}) ended without a URB write with EOT giving its vertex counts (seed 004 §7.5.3)",
                        self.addr
                    ),
                });
            };
            for (slot, entry) in entries.iter().enumerate() {
                let mut o = parse_output(gs, entry, counts[slot])?;
                o.primitive_id = objects[slot].pid;
                out.push(o);
            }
        }
        Ok(out)
    }
}

impl GeometryStage {
    /// The SIMD8 GS (Gen8+ DISPATCH_MODE_SIMD8): threads of up to eight objects, one a
    /// channel, in object order; with several instances (Instance Control), threads of
    /// one object and up to eight of its instances, one a channel, in instance order
    /// (the layout Mesa's Gen8+ compiler reads: an instanced GS finds its invocation in
    /// each channel's output handle bits 31:27 and one dword of input vertex handles per
    /// vertex, shared by the channels; brw_fs_nir.cpp emit_system_values_block and
    /// emit_gs_input_load). Each channel's output entry is parsed as Gen7's with the
    /// vertex count where `GeometryShader::vertex_count` says.
    fn shade_simd8(
        &self,
        st: &DrawState,
        front: &dyn Front,
        mem: &mut dyn Memory,
        inputs: &[Staged],
        stats: &mut Statistics,
        watchdog: &mut Watchdog,
    ) -> Result<Vec<Output>, DrawError> {
        let gs = &self.gs;
        // (objects, their instance numbers) of each thread, in dispatch order; None for
        // the threads of eight objects of an uninstanced GS.
        let mut threads: Vec<(Vec<&Staged>, Option<Vec<u32>>)> = vec![];
        if gs.instances == 1 {
            for group in inputs.chunks(8) {
                threads.push((group.iter().collect(), None));
            }
        } else {
            for o in inputs {
                let ids: Vec<u32> = (0..gs.instances).collect();
                for chunk in ids.chunks(8) {
                    threads.push((vec![o; chunk.len()], Some(chunk.to_vec())));
                }
            }
        }
        let mut out = vec![];
        for (objects, instances) in threads {
            if gs.statistics {
                // §7.2.1.1: the increment per instance of each object in the dispatch.
                stats.gs_invocations += gs.invocations_increment * objects.len() as u64;
            }
            let budget = watchdog.thread_budget(DEFAULT_BUDGET);
            let (result, entries) = run_gs_thread_simd8(
                st,
                gs,
                front,
                &mut *mem,
                &self.prog,
                (&objects, instances.as_deref()),
                budget,
            )?;
            watchdog
                .thread_ran(result, budget, DEFAULT_BUDGET)?
                .map_err(|error| DrawError::Thread {
                    stage: "GS",
                    kernel: self.addr,
                    error,
                })?;
            for (i, entry) in entries.iter().take(objects.len()).enumerate() {
                let (count, skip) = match gs.vertex_count {
                    GsVertexCount::Static(n) => (n, 0),
                    GsVertexCount::EntryDword => (entry.first().map_or(0, |s| s[0]), 2),
                    GsVertexCount::EotHeader => {
                        return Err(DrawError::State {
                            command: "3DSTATE_GS",
                            why: "a SIMD8 GS reports its vertex counts in its entries or the state, not in an EOT header".into(),
                        });
                    }
                };
                let rest: Vue = entry.iter().skip(skip).copied().collect();
                let mut o = parse_output(gs, &rest, count)?;
                o.primitive_id = objects[i].pid;
                out.push(o);
            }
        }
        Ok(out)
    }
}

/// One SIMD8 GS thread for up to eight objects (Mesa brw_fs setup_gs_payload and
/// assign_gs_urb_setup give the layout the compiler reads): R0 the header, R1 the
/// channels' output URB handles, then the PrimitiveIDs (when included) and one
/// register of input vertex URB handles per vertex (when included, for URB reads of
/// what is not pushed); from the URB data start register the push constants, then per
/// input vertex its slots, each component a register (vertex v's slot k component c in
/// register `data + 4 (v slots + k) + c`, dword i object i's).
///
/// A thread of the instances `instances` of one object (`objects` holds it once per
/// channel) has each channel's instance number in its output handle's bits 31:27 and
/// the object's input vertex handles one a dword, vertex v in dword v of the first
/// handle register (the vertex data pushed as for distinct objects).
///
/// Returns how the thread ended and the entries its URB writes filled: the eight
/// output entries (handles 0-7), then the input vertices (handle 8 + i n + v for
/// object i's vertex v of n), which URB reads reach.
fn run_gs_thread_simd8(
    st: &DrawState,
    gs: &GeometryShader,
    front: &dyn Front,
    mem: &mut dyn Memory,
    prog: &Program,
    (objects, instances): (&[&Staged], Option<&[u32]>),
    budget: u64,
) -> Result<(Result<u64, ExecError>, Vec<Vue>), DrawError> {
    let mut t = super::spare::thread(8, prog);
    t.dispatch_mask = (1u32 << objects.len()) - 1;
    t.fp_mode = if gs.alt_float_mode {
        FpMode::Alt
    } else {
        FpMode::Ieee
    };
    let nverts = objects[0].vues.len();
    t.write_payload(|grf| {
        let l = st.payload;
        l.gs_topology.put(grf, objects[0].topology.0);
        l.gs_hint.put(grf, gs.hint);
        super::put_pointers(&l.pointers, grf, (&gs.scratch, 0), &gs.resources);
        for i in 0..objects.len() {
            let instance = instances.map_or(0, |ids| ids[i] & 31);
            l.simd8_urb_handles
                .offset(0, i)
                .put(grf, i as u32 | instance << 27);
        }
        let mut reg = l.simd8_gs_primitive_ids.reg;
        if gs.include_primitive_id {
            for (i, o) in objects.iter().enumerate() {
                l.simd8_gs_primitive_ids.offset(0, i).put(grf, o.pid);
            }
            reg += 1;
        }
        if gs.include_vertex_handles {
            for v in 0..nverts {
                if instances.is_some() {
                    // One object: its vertex handles one a dword (channel 0's entries).
                    super::put_dword(grf, reg, v, (8 + v) as u32);
                    continue;
                }
                for i in 0..objects.len() {
                    super::put_dword(grf, reg + v, i, (8 + i * nverts + v) as u32);
                }
            }
            reg += nverts;
        }
        let (start, first_slot, slots) = (gs.urb_data_start, gs.first_slot, gs.slots);
        let consts = gs.resources.constants.len();
        let data_regs = nverts * slots * 4;
        if start < reg || start + consts + data_regs > 128 {
            return (Err(DrawError::State {
                command: "3DSTATE_GS",
                why: format!(
                    "SIMD8 payload URB data at g{start} ({consts} constant and {data_regs} vertex registers for {nverts} vertices) overlaps R0-R{} or leaves the GRF",
                    reg - 1
                ),
            }), 128);
        }
        super::put_constants(grf, start, &gs.resources);
        let data = start + consts;
        for v in 0..nverts {
            for k in 0..slots {
                for (i, o) in objects.iter().enumerate() {
                    let slot = o.vues[v].get(first_slot + k).copied().unwrap_or([0; 4]);
                    for (c, &val) in slot.iter().enumerate() {
                        super::put_dword(grf, data + 4 * (v * slots + k) + c, i, val);
                    }
                }
            }
        }
        (Ok(()), data + data_regs)
    })?;
    let mut entries = vec![Vue::new(); 8];
    for o in objects {
        entries.extend(o.vues.iter().cloned());
    }
    let mut router = Router {
        interpolator: None,
        slm: None,
        front,
        stage: ShaderStage::Geometry,
        mem,
        urb: Some(&mut entries),
        vertex_counts: None,
        barrier: None,
        pixels: None,
    };
    let result = t.run_program(prog, &mut router, budget);
    super::spare::keep(t);
    entries.truncate(8);
    Ok((result, entries))
}

/// Parses one GS output entry (seed 004 §7.5.1.1): the control data header of
/// `control_header_rows` 256-bit rows, then `count` vertices of `output_vertex_slots`
/// 128-bit slots each. Cut bits (one per vertex) or StreamID bits (two per vertex) are
/// read from the header's dwords in order, bit 0 first (the layout Mesa's GS kernels
/// write, `vertex_count - 1` indexing the bits).
fn parse_output(gs: &GeometryShader, entry: &Vue, count: u32) -> Result<Output, DrawError> {
    let count = count as usize;
    let header = 2 * gs.control_header_rows;
    let per = gs.output_vertex_slots;
    let bits_per_vertex = match gs.control_data {
        ControlData::Cut => 1,
        ControlData::StreamId => 2,
    };
    // Control Data Header Size: "UNDEFINED for a GS thread to report more output
    // vertices than can be accommodated in a non-zero-sized header".
    if gs.control_header_rows > 0 && count * bits_per_vertex > gs.control_header_rows * 256 {
        return Err(DrawError::State {
            command: "GS thread output",
            why: format!(
                "{count} vertices need {} control bits, more than the {}-byte control data header holds (seed 004 §7.2.1.1)",
                count * bits_per_vertex,
                gs.control_header_rows * 32
            ),
        });
    }
    if header + count * per > MAX_SLOTS {
        return Err(DrawError::State {
            command: "GS thread output",
            why: format!(
                "{count} vertices of {per} slots after a {header}-slot header reach past the largest URB entry ({MAX_SLOTS} slots)"
            ),
        });
    }
    let slot = |i: usize| entry.get(i).copied().unwrap_or([0; 4]);
    let dword = |d: usize| slot(d / 4)[d % 4];
    let bits = |j: usize| {
        let b = j * bits_per_vertex;
        (dword(b / 32) >> (b % 32)) & ((1 << bits_per_vertex) - 1)
    };
    let vertices = (0..count)
        .map(|j| {
            let v: Vue = (0..per).map(|s| slot(header + j * per + s)).collect();
            let (cut, stream) = if gs.control_header_rows == 0 {
                (false, gs.default_stream)
            } else {
                match gs.control_data {
                    ControlData::Cut => (bits(j) != 0, gs.default_stream),
                    ControlData::StreamId => (false, bits(j)),
                }
            };
            (v, cut, stream)
        })
        .collect();
    Ok(Output {
        vertices,
        primitive_id: 0,
    })
}

/// One SIMD4x2 GS thread for one or two object instances (seed 004 §7.4.3): R0 with the
/// URB return handles, instance IDs, topology and the stage's pointers; R1 with the
/// PrimitiveIDs when included; from the URB data start register the push constants and
/// the vertex data: interleaved per object in DUAL_OBJECT mode, otherwise two slots of
/// the one object's vertex per register ("There is no upper/lower swizzling of data").
///
/// Returns how the thread ended, its output entries (one per slot) and the vertex counts
/// its EOT write reported.
#[expect(
    clippy::too_many_arguments,
    reason = "the draw's state, the thread's objects and its budget"
)]
#[expect(
    clippy::type_complexity,
    reason = "the thread's end, its entries and its counts"
)]
fn run_gs_thread(
    st: &DrawState,
    gs: &GeometryShader,
    front: &dyn Front,
    mem: &mut dyn Memory,
    prog: &Program,
    objects: &[&Staged],
    instance_ids: [u32; 2],
    budget: u64,
) -> Result<(Result<u64, ExecError>, Vec<Vue>, Option<[u32; 2]>), DrawError> {
    let mut t = super::spare::thread(8, prog);
    let two = objects.len() == 2;
    t.dispatch_mask = if two { 0xff } else { 0x0f };
    t.fp_mode = if gs.alt_float_mode {
        FpMode::Alt
    } else {
        FpMode::Ieee
    };
    let dual_object = gs.dispatch == GsDispatch::DualObject;
    t.write_payload(|grf| {
        let l = st.payload;
        l.urb_handles[0].put(grf, 0);
        l.urb_handles[1].put(grf, if two { 1 } else { 0 });
        l.gs_instance_ids[0].put(grf, instance_ids[0]);
        l.gs_instance_ids[1].put(grf, instance_ids[1]);
        // One topology field: the first object's (DUAL_OBJECT pairs may differ only in
        // TRISTRIP vs TRISTRIP_REV, which Reorder Enable makes moot).
        l.gs_topology.put(grf, objects[0].topology.0);
        l.gs_hint.put(grf, gs.hint);
        super::put_pointers(&l.pointers, grf, (&gs.scratch, 0), &gs.resources);
        let mut used = 1;
        if gs.include_primitive_id {
            l.gs_primitive_ids[0].put(grf, objects[0].pid);
            l.gs_primitive_ids[1].put(grf, objects[objects.len() - 1].pid);
            used = 2;
        }
        let put = super::put_dword;
        let (start, first_slot, slots) = (gs.urb_data_start, gs.first_slot, gs.slots);
        let consts = gs.resources.constants.len();
        let nverts = objects[0].vues.len();
        let data_regs = if dual_object {
            nverts * slots
        } else {
            nverts * slots.div_ceil(2)
        };
        if start < used || start + consts + data_regs > 128 {
            return (Err(DrawError::State {
                command: "3DSTATE_GS",
                why: format!(
                    "payload URB data at g{start} ({consts} constant and {data_regs} vertex registers for {nverts} vertices) overlaps R0-R{} or leaves the GRF",
                    used - 1
                ),
            }), 128);
        }
        super::put_constants(grf, start, &gs.resources);
        let data = start + consts;
        let slot_of = |vue: &Vue, s: usize| vue.get(first_slot + s).copied().unwrap_or([0; 4]);
        for v in 0..nverts {
            if dual_object {
                for k in 0..slots {
                    for (o, obj) in objects.iter().enumerate() {
                        let slot = slot_of(&obj.vues[v], k);
                        for (c, &val) in slot.iter().enumerate() {
                            put(grf, data + v * slots + k, o * 4 + c, val);
                        }
                    }
                }
            } else {
                let per = slots.div_ceil(2);
                for j in 0..per {
                    for half in 0..2 {
                        if 2 * j + half >= slots {
                            continue;
                        }
                        let slot = slot_of(&objects[0].vues[v], 2 * j + half);
                        for (c, &val) in slot.iter().enumerate() {
                            put(grf, data + v * per + j, half * 4 + c, val);
                        }
                    }
                }
            }
        }
        (Ok(()), start + consts + data_regs)
    })?;
    let mut entries = vec![Vue::new(); objects.len()];
    let mut router = Router {
        interpolator: None,
        slm: None,
        front,
        stage: ShaderStage::Geometry,
        mem,
        urb: Some(&mut entries),
        vertex_counts: None,
        barrier: None,
        pixels: None,
    };
    let result = t.run_program(prog, &mut router, budget);
    let counts = router.vertex_counts;
    super::spare::keep(t);
    Ok((result, entries, counts))
}

/// The runs of one GS output, each a stream and a list of VUEs of the output topology:
/// the output split after every vertex with its cut bit set and where the StreamID
/// changes (StreamID bits come only with POINTLIST output, whose every vertex is an
/// object). Also counts the output's complete primitives in GS_PRIMITIVES_COUNT (§1.9:
/// "Will not include partial primitives"), whatever their stream.
pub(super) fn output_runs(
    gs: &GeometryShader,
    out: Output,
    stats: &mut Statistics,
) -> Vec<(u32, Vec<Vue>)> {
    let t = gs.output_topology;
    let mut runs: Vec<(u32, Vec<Vue>)> = vec![];
    let mut run: Vec<Vue> = vec![];
    let mut run_stream = 0;
    let mut strip = 0usize;
    for (v, cut, stream) in out.vertices {
        if stream != run_stream && !run.is_empty() {
            runs.push((run_stream, std::mem::take(&mut run)));
        }
        run_stream = stream;
        run.push(v);
        strip += 1;
        if cut {
            if gs.statistics {
                stats.gs_primitives += complete_objects(t, strip);
            }
            strip = 0;
            runs.push((run_stream, std::mem::take(&mut run)));
        }
    }
    if gs.statistics {
        stats.gs_primitives += complete_objects(t, strip);
    }
    if !run.is_empty() {
        runs.push((run_stream, run));
    }
    runs
}

/// The complete objects of `n` vertices of topology `t` (for GS output topologies).
fn complete_objects(t: T, n: usize) -> u64 {
    let n = n as u64;
    match t {
        T::_3DPRIM_POINTLIST | T::_3DPRIM_POINTLIST_BF => n,
        T::_3DPRIM_LINELIST => n / 2,
        T::_3DPRIM_LINESTRIP
        | T::_3DPRIM_LINESTRIP_BF
        | T::_3DPRIM_LINESTRIP_CONT
        | T::_3DPRIM_LINESTRIP_CONT_BF => n.saturating_sub(1),
        T::_3DPRIM_TRILIST | T::_3DPRIM_RECTLIST => n / 3,
        T::_3DPRIM_TRISTRIP
        | T::_3DPRIM_TRISTRIP_REVERSE
        | T::_3DPRIM_TRIFAN
        | T::_3DPRIM_TRIFAN_NOSTIPPLE => n.saturating_sub(2),
        T::_3DPRIM_POLYGON => u64::from(n >= 3),
        p if (0x20..=0x3f).contains(&p.0) => n / u64::from(p.0 - 0x1f),
        _ => 0,
    }
}
