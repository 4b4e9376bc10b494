//! # gtsim-gpu: the device
//!
//! The GPU as a driver sees it: a command streamer that reads batch buffers from the
//! graphics address space, keeps per-context state, and routes work to the pipelines.
//! This first layer holds what every later one builds on:
//!
//! * [`decode`]: walking batches the way the command streamer does (following
//!   `MI_BATCH_BUFFER_START`, tracking `STATE_BASE_ADDRESS`) and naming every field and
//!   every piece of indirect state through `gtsim-spec`'s tables — `gtsim decode`;
//! * [`aub`]: reading and writing AUB traces (the format of Mesa's `intel_dump_gpu`), so a
//!   captured submission can be decoded and later replayed.
//!
//! Execution (MI commands, post-sync writes, the 3D pipeline) arrives with the i915
//! emulation and first-light issues.

pub mod aub;
pub mod decode;
pub mod device;
pub mod mesa_bat;
pub mod replay;
pub mod sample;
pub mod trace;

/// Whether the calling thread is one of the host threads the device runs draws on
/// (`gtsim_pipe3d::draw::parallel`): an embedding that intercepts C library calls must
/// leave that thread's calls alone.
pub fn on_device_worker_thread() -> bool {
    gtsim_pipe3d::draw::parallel::on_worker_thread()
}

/// Log filter directives for the logs a variable asks for by name, which show whatever
/// the level (`GTSIM_JIT_LOG`: each compilation, target `gtsim_eu::jit`;
/// `GTSIM_PS_REPLAY_LOG`: PS threads run and replayed, `gtsim_pipe3d::draw::replay`),
/// to append to a `tracing_subscriber::EnvFilter` (`,target=info` each).
pub fn requested_log_directives() -> String {
    let mut d = String::new();
    if std::env::var_os("GTSIM_JIT_LOG").is_some() {
        d.push_str(",gtsim_eu::jit=info");
    }
    if std::env::var_os("GTSIM_PS_REPLAY_LOG").is_some() {
        d.push_str(",gtsim_pipe3d::draw::replay=info");
    }
    d
}
