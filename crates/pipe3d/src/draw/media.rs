//! MEDIA_OBJECT: one thread of a media kernel (IVB PRM Vol2 Part2; the seeds describe the
//! shared functions its messages go to, seed 000, but not the media pipeline itself).
//!
//! The object's thread gets R0 (the interface descriptor's binding table and sampler
//! pointers, scratch, the object's X, Y and colour), the kernel's CURBE rows and the
//! object's inline data (`state::MediaThread` says where each goes), all channels of a
//! SIMD16 dispatch enabled, and runs to its end of thread. Objects run in command order,
//! one after the other: a thread that waits on the scoreboard for earlier objects'
//! threads (Use Scoreboard) finds them done.

use super::router::Router;
use super::{DrawError, KernelCache, Watchdog};
use crate::state::{Front, MediaThread, ShaderStage};
use gtsim_eu::exec::{DEFAULT_BUDGET, FpMode, Thread};
use gtsim_mem::Memory;

/// Channels of a media thread's dispatch: SIMD16, all enabled (the kernels' instructions
/// choose their own execution sizes).
const CHANNELS: u8 = 16;

/// Runs the MEDIA_OBJECT `front` was made for; `false` if it has none.
pub fn object(
    front: &dyn Front,
    mem: &mut dyn Memory,
    kernels: &mut KernelCache,
    watchdog: &mut Watchdog,
) -> Result<bool, DrawError> {
    let Some(m) = front.media_object(mem)? else {
        return Ok(false);
    };
    let addr = m.kernel.checked("the media kernel")?;
    let prog = kernels.get(m.encoding, mem, addr)?;
    run(front, mem, &prog, &m, addr, watchdog)?;
    Ok(true)
}

/// Runs a MEDIA_OBJECT_WALKER's threads (`front.media_object` gives the thread every
/// position shares; `loops` the positions, `media_walker`), one after the other in the
/// walker's order; `false` if `front` has no media object.
pub fn walk(
    front: &dyn Front,
    mem: &mut dyn Memory,
    kernels: &mut KernelCache,
    watchdog: &mut Watchdog,
    loops: &super::media_walker::WalkerLoops,
) -> Result<bool, DrawError> {
    let Some(mut m) = front.media_object(mem)? else {
        return Ok(false);
    };
    let addr = m.kernel.checked("the media kernel")?;
    let prog = kernels.get(m.encoding, mem, addr)?;
    loops.walk("MEDIA_OBJECT_WALKER", |t| {
        m.position = [t.position.0, t.position.1];
        m.color = t.color;
        run(front, mem, &prog, &m, addr, watchdog)
    })?;
    Ok(true)
}

/// Runs one media thread of kernel `prog` (at `addr`) with `m`'s payload.
fn run(
    front: &dyn Front,
    mem: &mut dyn Memory,
    prog: &gtsim_eu::exec::Program,
    m: &MediaThread,
    addr: u64,
    watchdog: &mut Watchdog,
) -> Result<(), DrawError> {
    // Media threads count against the submission's pixel budget, as compute invocations
    // do (`GTSIM_WATCHDOG_PIXELS`).
    watchdog.pixels(u64::from(CHANNELS))?;
    let mut t = thread(m)?;
    let mut router = Router {
        interpolator: None,
        slm: None,
        front,
        stage: ShaderStage::Compute,
        mem,
        urb: None,
        vertex_counts: None,
        barrier: None,
        pixels: None,
    };
    let budget = watchdog.thread_budget(DEFAULT_BUDGET);
    let result = t.run_program(prog, &mut router, budget);
    watchdog
        .thread_ran(result, budget, DEFAULT_BUDGET)?
        .map_err(|error| DrawError::Thread {
            stage: "media",
            kernel: addr,
            error,
        })?;
    Ok(())
}

/// The thread of `m`, its payload written.
fn thread(m: &MediaThread) -> Result<Box<Thread>, DrawError> {
    let l = m.payload;
    let start = l.curbe_start;
    let inline_regs = m.inline.len().div_ceil(8);
    let end = start + m.curbe.len() + inline_regs;
    if end > 128 {
        return Err(DrawError::State {
            command: "MEDIA_OBJECT",
            why: format!(
                "{} CURBE registers and {} dwords of inline data from g{start} leave the GRF",
                m.curbe.len(),
                m.inline.len()
            ),
        });
    }
    let mut t = Box::new(Thread::new(CHANNELS));
    t.timestamp = super::clock::tm0_start();
    t.dispatch_mask = (1 << CHANNELS) - 1;
    t.illegal_opcode_exception = m.illegal_opcode_exception;
    t.fp_mode = if m.alt_float_mode {
        FpMode::Alt
    } else {
        FpMode::Ieee
    };
    t.write_payload(|grf| {
        // One thread at a time on the model's memory: scratch region 0.
        super::put_pointers(l.common, grf, (&m.scratch, 0), &m.resources);
        l.position[0].put(grf, m.position[0]);
        l.position[1].put(grf, m.position[1]);
        l.color.put(grf, m.color);
        for (r, row) in m.curbe.iter().enumerate() {
            grf[(start + r) * 32..(start + r + 1) * 32].copy_from_slice(row);
        }
        let at = (start + m.curbe.len()) * 32;
        for (k, d) in m.inline.iter().enumerate() {
            grf[at + 4 * k..at + 4 * k + 4].copy_from_slice(&d.to_le_bytes());
        }
        ((), end)
    });
    Ok(t)
}
