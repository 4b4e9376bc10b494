//! A draw's pipeline statistics added to their MMIO counters (seed 004 §1.9 statistics
//! table; the counters keep their names and offsets on Gen11, Mesa genxml gen11.xml),
//! found by name in the generation's register tables, so that one function serves every
//! generation.

use super::cs::CommandStreamer;
use super::front::Front;
use gtsim_pipe3d::draw::Statistics;

impl<F: Front> CommandStreamer<'_, F> {
    /// Adds a GPGPU_WALKER's compute shader invocations (the channels its threads ran)
    /// to CS_INVOCATION_COUNT (0x2290: Mesa genxml; crocus, iris and anv read the GL and
    /// Vulkan compute invocation statistics there unscaled).
    pub(super) fn add_compute_invocations(&mut self, n: u64) {
        if let Some(off) = F::INFO.register("CS_INVOCATION_COUNT") {
            let v = self.ctx.registers.read64(off, 0);
            self.ctx.registers.write64(off, v.wrapping_add(n));
        }
    }

    /// Adds `stats` to the 64-bit counters, and the SO write offsets the SOL stage
    /// moved (seed 004 §8.2, §8.8).
    pub(super) fn add_statistics(&mut self, stats: &Statistics) {
        let info = F::INFO;
        let mut add = |name: &str, n: u64| {
            if let Some(off) = info.register(name) {
                let v = self.ctx.registers.read64(off, 0);
                self.ctx.registers.write64(off, v.wrapping_add(n));
            }
        };
        for (name, n) in [
            ("IA_VERTICES_COUNT", stats.ia_vertices),
            ("IA_PRIMITIVES_COUNT", stats.ia_primitives),
            ("VS_INVOCATION_COUNT", stats.vs_invocations),
            ("HS_INVOCATION_COUNT", stats.hs_invocations),
            ("DS_INVOCATION_COUNT", stats.ds_invocations),
            ("GS_INVOCATION_COUNT", stats.gs_invocations),
            ("GS_PRIMITIVES_COUNT", stats.gs_primitives),
            ("CL_INVOCATION_COUNT", stats.cl_invocations),
            ("CL_PRIMITIVES_COUNT", stats.cl_primitives),
            ("PS_INVOCATION_COUNT", stats.ps_invocations),
            ("PS_DEPTH_COUNT", stats.ps_depth_count),
        ] {
            add(name, n);
        }
        for (s, (written, needed)) in stats
            .so_prims_written
            .iter()
            .zip(stats.so_prim_storage_needed)
            .enumerate()
        {
            add(&format!("SO_NUM_PRIMS_WRITTEN{s}"), *written);
            add(&format!("SO_PRIM_STORAGE_NEEDED{s}"), needed);
        }
        if let Some(offsets) = stats.so_write_offsets {
            for (b, o) in offsets.into_iter().enumerate() {
                if let Some(off) = info.register(&format!("SO_WRITE_OFFSET{b}")) {
                    self.ctx.registers.write(off, o);
                }
            }
        }
    }
}
