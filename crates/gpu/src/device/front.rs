//! What the command streamer asks of a generation: its device-info record, and the
//! commands that are not MI commands (state to latch, primitives, walkers, blits). The
//! MI commands, PIPE_CONTROL, MI_PREDICATE and MI_MATH are executed once for every
//! generation (`cs.rs`); a front adds only what its pipeline does.

use super::cs::CommandStreamer;
use super::{Hang, SubmitReport};
use gtsim_spec::DeviceInfo;
use gtsim_spec::table::{Def, Generation};

/// A context's latched state as tools see it, whatever its generation (every front's
/// state is one).
pub trait Latched {
    /// The generation's tables (to name the fields of [`Latched::commands`]).
    fn generation(&self) -> &'static Generation;
    /// Every latched command, by spec name, packed again.
    fn commands(&self) -> Vec<(&'static str, Vec<u32>)>;
    /// The typed state, for a tool that knows the generation.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A generation's front as the command streamer runs it: its latched state type is the
/// state a context keeps.
pub trait Front: Default + Clone + std::fmt::Debug + Send + 'static {
    /// The part.
    const INFO: &'static DeviceInfo;

    /// Every latched command, by spec name, packed again (`gtsim_spec::latched_state!`'s
    /// `commands`).
    fn latched_commands(&self) -> Vec<(&'static str, Vec<u32>)>;

    /// Executes `def` (dwords `dw`, at `at`), a command the MI executor does not know:
    /// latch state, run a primitive, a walker or a blit. A command the front does not
    /// execute is a [`Hang::Unsupported`] naming where it is specified.
    fn execute(
        cs: &mut CommandStreamer<'_, Self>,
        def: &'static Def,
        at: u64,
        dw: &[u32],
        report: &mut SubmitReport,
    ) -> Result<(), Hang>;
}

impl<F: Front> Latched for F {
    fn generation(&self) -> &'static Generation {
        F::INFO.tables
    }

    fn commands(&self) -> Vec<(&'static str, Vec<u32>)> {
        self.latched_commands()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
