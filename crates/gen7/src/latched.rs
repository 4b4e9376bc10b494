//! The latched commands, as the front reads them.

use gtsim_pipe3d::draw::DrawError;
use gtsim_spec::UnpackError;

/// The context's latched state as the draw sees it.
pub trait Latched {
    /// The dwords of the last `name` command (by spec name, e.g. "3DSTATE_VS").
    fn command(&self, name: &str) -> Option<&[u32]>;
    /// An MMIO register's value.
    fn register(&self, offset: u32) -> u32;
}

/// A state error naming the command or structure that did not decode.
pub(crate) fn bad(command: &'static str) -> impl Fn(UnpackError) -> DrawError {
    move |e| DrawError::State {
        command,
        why: e.to_string(),
    }
}

/// The last `name` command, decoded, or its power-on (all-zero) state.
pub(crate) fn cmd<T: Default>(
    l: &dyn Latched,
    name: &'static str,
    unpack: fn(&[u32]) -> Result<T, UnpackError>,
) -> Result<T, DrawError> {
    match l.command(name) {
        Some(dw) => unpack(dw).map_err(bad(name)),
        None => Ok(T::default()),
    }
}
