//! The GPGPU walker: thread groups of compute threads on the EU (IVB PRM Vol2 Part2,
//! GPGPU_WALKER; the seeds describe the shared functions the threads use, seed 000
//! ch.3, but not the walker itself).
//!
//! The walker visits the thread group IDs from the start to the end of each dimension,
//! X fastest, then Y, then Z. Each group gets its own shared local memory (seed 000
//! §3.2.3: "not backed up by system memory ... its contents are uninitialized after
//! creation": the model starts it zeroed) and its threads, `width × height × depth` of
//! them, each dispatched with its execution mask (the Right Execution Mask on the last
//! thread of each row, the Bottom Execution Mask on the last row) and a payload of R0
//! (the group's IDs, the barrier ID, the binding table, sampler and scratch pointers)
//! and the thread's own rows of the CURBE.
//!
//! A group whose interface descriptor enables the barrier runs its threads round-robin:
//! each until it ends or waits (`wait` on n0.0) after sending its barrier message to
//! the gateway; once as many threads as the barrier counts have arrived, every waiting
//! thread is notified and runs on. Threads of one group run one after the other. Groups
//! run in parallel batches over overlays of memory, in dispatch order when the kernel
//! sends atomics (which must see every earlier one).

use super::router::Router;
use super::{DrawError, KernelCache, Watchdog, parallel};
use crate::state::{ComputeDispatch, Front, ShaderStage};
use gtsim_dataport::dc::SLM_BYTES;
use gtsim_eu::exec::{FpMode, Program, Thread};
use gtsim_mem::Memory;
use gtsim_mem::overlay::Overlay;

/// What one walker did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ComputeStatistics {
    /// Thread groups run.
    pub groups: u64,
    /// Threads dispatched.
    pub threads: u64,
    /// Channels enabled in them: the compute shader invocations.
    pub invocations: u64,
}

/// Runs the GPGPU walker `front` was made for.
pub fn walk(
    front: &dyn Front,
    mem: &mut dyn Memory,
    kernels: &mut KernelCache,
    watchdog: &mut Watchdog,
) -> Result<ComputeStatistics, DrawError> {
    // `gtsim inspect --invocation`: counted before anything can end the walker early.
    let watched = gtsim_dataport::probe::begin_walker();
    let Some(cs) = front.compute_state(mem)? else {
        return Ok(ComputeStatistics::default());
    };
    let addr = cs.kernel.checked("the compute kernel")?;
    let prog = kernels.get(cs.encoding, mem, addr)?;
    let per_group = cs.threads_per_group();
    // No groups when any dimension walks none (or its start is past its end): the
    // other dimensions are not walked at all, however long they are.
    if per_group == 0 || cs.groups.iter().any(|r| r.is_empty()) {
        return Ok(ComputeStatistics::default());
    }
    if let Some(n) = cs.barrier
        && (n == 0 || n > per_group)
    {
        return Err(DrawError::State {
            command: "INTERFACE_DESCRIPTOR_DATA",
            why: format!(
                "Number of Threads in GPGPU Thread Group is {n} with the barrier enabled, but the walker dispatches {per_group} threads per group"
            ),
        });
    }
    let mut stats = ComputeStatistics::default();
    let per_group_invocations = cs.invocations_per_group();
    let serial = super::router::sends_atomics(front, &prog);
    let [xs, ys, zs] = cs.groups.clone();
    let mut pending = Vec::with_capacity(parallel::BATCH);
    let run = GroupRun {
        cs: &cs,
        front,
        prog: &prog,
        addr,
        serial,
        traced: watched.and_then(|w| locate(&cs, w)),
    };
    for z in zs {
        for y in ys.clone() {
            for x in xs.clone() {
                pending.push([x, y, z]);
                if pending.len() == parallel::BATCH {
                    run.groups(mem, &pending, watchdog)?;
                    pending.clear();
                }
                stats.groups += 1;
                stats.threads += u64::from(per_group);
                stats.invocations += per_group_invocations;
            }
        }
    }
    run.groups(mem, &pending, watchdog)?;
    Ok(stats)
}

/// What every group of a walker shares.
struct GroupRun<'a> {
    cs: &'a ComputeDispatch,
    front: &'a dyn Front,
    prog: &'a Program,
    addr: u64,
    /// The kernel sends atomics: its groups run one after the other on memory itself.
    serial: bool,
    /// `gtsim inspect --invocation`: the group, thread and channel traced.
    traced: Option<([u32; 3], u32, usize)>,
}

/// Where walker `cs` puts watched invocation `w` (Mesa's X-major local IDs, see
/// `gtsim_dataport::probe::InvocationWatch`), told to the probe; the group, thread and
/// channel to trace when the walker runs it.
fn locate(
    cs: &ComputeDispatch,
    w: gtsim_dataport::probe::InvocationWatch,
) -> Option<([u32; 3], u32, usize)> {
    let threads = cs.threads_per_group();
    let lanes = u64::from(threads) * cs.simd as u64;
    let size = w
        .local_size
        .unwrap_or([u32::try_from(lanes).unwrap_or(u32::MAX), 1, 1]);
    let group: [u32; 3] = std::array::from_fn(|i| w.id[i] / size[i].max(1));
    let local: [u32; 3] = std::array::from_fn(|i| w.id[i] % size[i].max(1));
    let index = u64::from(local[0])
        + u64::from(size[0]) * (u64::from(local[1]) + u64::from(size[1]) * u64::from(local[2]));
    let (thread, lane) = (index / cs.simd as u64, (index % cs.simd as u64) as usize);
    let outside = if size.contains(&0) {
        Some("a workgroup size of 0".to_string())
    } else if size.iter().map(|&n| u64::from(n)).product::<u64>() > lanes {
        Some(format!(
            "the workgroup size {size:?} has more invocations than the walker's {threads} threads of SIMD{} ({lanes} channels)",
            cs.simd
        ))
    } else if !(0..3).all(|i| cs.groups[i].contains(&group[i])) {
        Some(format!(
            "thread group {group:?} is not among the walker's ({:?} by {:?} by {:?})",
            cs.groups[0], cs.groups[1], cs.groups[2]
        ))
    } else {
        None
    };
    let thread = u32::try_from(thread).unwrap_or(u32::MAX);
    gtsim_dataport::probe::record(gtsim_dataport::probe::Event::Invocation {
        group,
        thread,
        lane,
        local_size: size,
        simd: cs.simd,
        threads,
        outside: outside.clone(),
    });
    outside.is_none().then_some((group, thread, lane))
}

impl GroupRun<'_> {
    /// Runs the groups `ids` in order. Groups do not share SLM, and ordering between
    /// groups is no more than the hardware's (a race on it too), so unless the kernel
    /// sends atomics a batch of groups runs on the host's cores, each over an overlay of
    /// memory, the overlays and watchdog charges then applied in dispatch order (see
    /// `parallel`): the same bits whatever the thread count.
    fn groups(
        &self,
        mem: &mut dyn Memory,
        ids: &[[u32; 3]],
        watchdog: &mut Watchdog,
    ) -> Result<(), DrawError> {
        // A traced group runs on this thread, where the probe is.
        if self.serial
            || ids.len() < parallel::MIN_BATCH
            || self.traced.is_some_and(|(g, ..)| ids.contains(&g))
        {
            for &id in ids {
                group(
                    self.cs,
                    self.front,
                    mem,
                    self.prog,
                    self.addr,
                    id,
                    watchdog,
                    self.traced_in(id),
                )?;
            }
            return Ok(());
        }
        // Each group of the batch gets an even share of what is left of the budget, so a
        // batch of runaway groups costs no more than the budget; a batch where a group
        // ran out of its share runs again, one group after the other with the whole
        // budget (nothing of it has reached memory yet), so the outcome is the serial
        // one whenever the budget allows it.
        let base: &dyn Memory = &*mem;
        let start = watchdog.share(ids.len() as u64);
        let outcomes = parallel::run(ids.len(), |i| {
            let mut overlay = Overlay::new(base);
            let mut w = start.clone();
            let r = group(
                self.cs,
                self.front,
                &mut overlay,
                self.prog,
                self.addr,
                ids[i],
                &mut w,
                None,
            );
            (r, overlay.into_log(), w)
        });
        if outcomes
            .iter()
            .any(|(r, ..)| matches!(r, Err(DrawError::Watchdog { .. })))
        {
            for &id in ids {
                group(
                    self.cs, self.front, mem, self.prog, self.addr, id, watchdog, None,
                )?;
            }
            return Ok(());
        }
        for (r, log, w) in outcomes {
            watchdog.absorb(&w)?;
            log.apply(mem).map_err(|fault| DrawError::Fault {
                unit: "compute thread write",
                fault,
            })?;
            r?;
        }
        Ok(())
    }
}

impl GroupRun<'_> {
    /// The thread and channel of group `id` to trace, if any.
    fn traced_in(&self, id: [u32; 3]) -> Option<(u32, usize)> {
        self.traced
            .filter(|(g, ..)| *g == id)
            .map(|(_, t, l)| (t, l))
    }
}

/// The payload of thread `(w, h, d)` of group `id`, as the generation lays it out.
fn thread(cs: &ComputeDispatch, id: [u32; 3], t: u32) -> Result<Box<Thread>, DrawError> {
    let (w, h) = (t % cs.threads[0], t / cs.threads[0] % cs.threads[1]);
    let mut th = Box::new(Thread::new(cs.simd as u8));
    th.timestamp = super::clock::tm0_start();
    th.dispatch_mask = cs.execution_mask(w, h);
    th.fp_mode = if cs.alt_float_mode {
        FpMode::Alt
    } else {
        FpMode::Ieee
    };
    let l = cs.payload;
    let first = cs.curbe_offset + cs.cross_thread + t as usize * cs.curbe_read;
    let start = l.curbe_start;
    let rows = cs.cross_thread + cs.curbe_read;
    if start + rows > 128 {
        return Err(DrawError::State {
            command: "INTERFACE_DESCRIPTOR_DATA",
            why: format!(
                "Cross-Thread Constant Data Read Length {} and Constant URB Entry Read Length {} from g{start} leave the GRF",
                cs.cross_thread, cs.curbe_read
            ),
        });
    }
    th.write_payload(|grf| {
        for (i, g) in id.iter().enumerate() {
            l.group_id[i].put(grf, *g);
        }
        l.barrier_id.put(grf, 0);
        super::put_pointers(l.common, grf, (&cs.scratch, t), &cs.resources);
        // The cross-thread rows every thread gets, then the thread's own block (Gen8+;
        // Gen7 has no cross-thread rows). Past the CURBE loaded: zeros (the driver loads
        // what its threads read).
        let sources = (0..cs.cross_thread)
            .map(|r| cs.curbe_offset + r)
            .chain((0..cs.curbe_read).map(|r| first + r));
        for (r, source) in sources.enumerate() {
            let row = cs.curbe.get(source).copied().unwrap_or([0; 32]);
            grf[(start + r) * 32..(start + r + 1) * 32].copy_from_slice(&row);
        }
        ((), start + rows)
    });
    Ok(th)
}

/// Runs one thread group; with `traced`, channel `.1` of thread `.0` on the per-channel
/// interpreter, recorded (`gtsim inspect --invocation`).
#[allow(
    clippy::too_many_arguments,
    reason = "the walker's shared state, one group's own, and the probe's channel"
)]
fn group(
    cs: &ComputeDispatch,
    front: &dyn Front,
    mem: &mut dyn Memory,
    prog: &Program,
    addr: u64,
    id: [u32; 3],
    watchdog: &mut Watchdog,
    traced: Option<(u32, usize)>,
) -> Result<(), DrawError> {
    let failed = |error| DrawError::Thread {
        stage: "CS",
        kernel: addr,
        error,
    };
    let per_group = cs.threads_per_group();
    // Compute invocations count against the submission's pixel budget
    // (`GTSIM_WATCHDOG_PIXELS`), so a walker of billions of tiny groups ends.
    watchdog.pixels(u64::from(per_group) * cs.simd as u64)?;
    let mut slm = (cs.slm_bytes > 0).then(|| vec![0u8; SLM_BYTES]);
    let mut threads = (0..per_group)
        .map(|t| thread(cs, id, t))
        .collect::<Result<Vec<_>, _>>()?;
    let traced_thread: Option<*const Thread> = traced
        .and_then(|(t, _)| threads.get(t as usize))
        .map(|t| &**t as *const Thread);
    let lane = traced.map_or(0, |(_, l)| l);
    let mut steps = vec![];
    let group = super::group::Group {
        count: cs.barrier.unwrap_or(per_group),
        barrier: cs.barrier.is_some(),
        who: format!("threads of thread group {id:?}"),
        command: "GPGPU threads",
        failed: &failed,
    };
    let result = group.run(&mut threads, watchdog, &mut |t, barrier, resume, budget| {
        let mut router = Router {
            interpolator: None,
            slm: slm.as_deref_mut(),
            front,
            stage: ShaderStage::Compute,
            mem: &mut *mem,
            urb: None,
            vertex_counts: None,
            barrier: Some(barrier),
            pixels: None,
        };
        let limit = super::pixel::TRACE_LIMIT;
        match (traced_thread.is_some_and(|p| std::ptr::eq(&*t, p)), resume) {
            (true, false) => {
                t.run_traced(prog, &mut router, budget, lane..lane + 1, limit, &mut steps)
            }
            (true, true) => {
                t.resume_traced(prog, &mut router, budget, lane..lane + 1, limit, &mut steps)
            }
            (false, true) => t.resume_program(prog, &mut router, budget),
            (false, false) => t.run_program(prog, &mut router, budget),
        }
    });
    if traced_thread.is_some() {
        gtsim_dataport::probe::record(gtsim_dataport::probe::Event::LaneTrace {
            stage: "compute shader",
            lane,
            width: 1,
            simd: cs.simd,
            lines: steps.iter().map(super::pixel::trace_line).collect(),
        });
    }
    result
}
