//! The shape every generation's latched state takes (seed 004 §1.4.1: state commands
//! are latched into the context and consumed by later primitives; the Gen11 structure
//! reference, seed 003, keeps that model).
//!
//! [`latched_state!`](crate::latched_state) writes a front's typed latched state from a
//! list of its generation's commands: one `Option` field per command the front reads,
//! decoded once by the generated `unpack` when the command streamer latches it. Commands
//! the hardware merges at latch time name the front's merge function
//! (STATE_BASE_ADDRESS by its Modify Enables, 3DSTATE_VERTEX_BUFFERS by buffer index);
//! commands that define one of several instances are kept per instance, indexed by the
//! front's index function (3DSTATE_SO_BUFFER by SO Buffer Index, ...). Each front keeps
//! its own list, since each generation has its own commands; the code is written once.

use crate::UnpackError;

/// Why a state command could not be latched.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{command}: {error}")]
pub struct LatchError {
    /// The command.
    pub command: &'static str,
    /// Why it does not decode.
    pub error: UnpackError,
}

/// Unpacks `dw` as `command` with `f`, naming the command in the error.
pub fn unpack<T>(
    command: &'static str,
    f: fn(&[u32]) -> Result<T, UnpackError>,
    dw: &[u32],
) -> Result<T, LatchError> {
    f(dw).map_err(|error| LatchError { command, error })
}

/// Merges the elements of a command that lists some of several instances (a vertex
/// buffer per Vertex Buffer Index) into `old`: each of `new`'s elements replaces the one
/// with its key, the others stay; the result is ordered by key.
pub fn merge_by_key<E, K: Ord>(old: &mut Vec<E>, new: Vec<E>, key: impl Fn(&E) -> K) {
    for e in new {
        old.retain(|o| key(o) != key(&e));
        old.push(e);
    }
    old.sort_by_key(key);
}

/// Writes a typed latched-state struct (see the module docs). Syntax:
///
/// ```ignore
/// gtsim_spec::latched_state! {
///     /// Docs.
///     pub struct LatchedState {
///         merged {
///             "STATE_BASE_ADDRESS" => state_base_address: StateBaseAddress = merge_bases,
///         }
///         indexed {
///             "3DSTATE_SO_BUFFER" => so_buffers: [ThreeDStateSoBuffer; 4] = so_index,
///         }
///         plain {
///             "3DSTATE_VS" => vs: ThreeDStateVs,
///         }
///     }
/// }
/// ```
///
/// A merge function is `fn(Option<T>, T) -> T` (the state before, the command); an index
/// function `fn(&T) -> usize`, taken modulo the array's length (each front sizes its
/// arrays to cover the index field's whole range). The struct gets `COMMANDS` (the names
/// kept, in this order), `latch(name, dwords) -> Result<bool, LatchError>` (whether the
/// command is kept) and `commands()` (every latched command packed again, for tools).
#[macro_export]
macro_rules! latched_state {
    (
        $(#[$meta:meta])*
        pub struct $State:ident {
            merged { $($mname:literal => $mfield:ident: $mty:ty = $mfn:path),* $(,)? }
            indexed { $($iname:literal => $ifield:ident: [$ity:ty; $n:literal] = $ifn:path),* $(,)? }
            plain { $($name:literal => $field:ident: $ty:ty),* $(,)? }
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone)]
        pub struct $State {
            $(
                #[doc = concat!("The latched ", $mname, ", merged as the hardware merges it.")]
                pub $mfield: Option<$mty>,
            )*
            $(
                #[doc = concat!("The latched ", $iname, " commands, one per instance.")]
                pub $ifield: [Option<$ity>; $n],
            )*
            $(
                #[doc = concat!("The last ", $name, ".")]
                pub $field: Option<$ty>,
            )*
        }

        impl Default for $State {
            /// Nothing latched: every command reads as its power-on state.
            fn default() -> Self {
                Self {
                    $($mfield: None,)*
                    $($ifield: std::array::from_fn(|_| None),)*
                    $($field: None,)*
                }
            }
        }

        impl $State {
            /// The spec names of the commands kept here.
            pub const COMMANDS: &[&str] = &[$($mname,)* $($iname,)* $($name),*];

            /// Latches the command `name` (its dwords). Returns whether the state keeps
            /// it: other state commands leave nothing the model reads.
            pub fn latch(
                &mut self,
                name: &str,
                dw: &[u32],
            ) -> Result<bool, $crate::latched::LatchError> {
                match name {
                    $($mname => {
                        let new = $crate::latched::unpack($mname, <$mty>::unpack, dw)?;
                        self.$mfield = Some($mfn(self.$mfield.take(), new));
                    })*
                    $($iname => {
                        let c = $crate::latched::unpack($iname, <$ity>::unpack, dw)?;
                        let index = $ifn(&c) % $n;
                        self.$ifield[index] = Some(c);
                    })*
                    $($name => self.$field = Some($crate::latched::unpack($name, <$ty>::unpack, dw)?),)*
                    _ => return Ok(false),
                }
                Ok(true)
            }

            /// Every command latched, in the order of [`Self::COMMANDS`], as its spec
            /// name and the dwords its typed value packs to (what tools show with the
            /// field tables). Commands never sent are left out.
            pub fn commands(&self) -> Vec<(&'static str, Vec<u32>)> {
                let mut out = vec![];
                $(
                    if let Some(Ok(dw)) = self.$mfield.as_ref().map(|c| c.pack()) {
                        out.push(($mname, dw));
                    }
                )*
                $(
                    for c in self.$ifield.iter().flatten() {
                        if let Ok(dw) = c.pack() {
                            out.push(($iname, dw));
                        }
                    }
                )*
                $(
                    if let Some(Ok(dw)) = self.$field.as_ref().map(|c| c.pack()) {
                        out.push(($name, dw));
                    }
                )*
                out
            }
        }
    };
}
