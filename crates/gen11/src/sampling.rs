//! Gen11 sampler messages: not modelled yet, refused by name.

use crate::bases::Bases;
use crate::draw::StageTables;
use gtsim_eu::exec::{Message, MessageError, Response};
use gtsim_mem::Memory;

/// Carries out sampler message `m` of a thread whose stage has `tables`.
pub(crate) fn message(
    _bases: &Bases,
    _tables: StageTables,
    _mem: &dyn Memory,
    _m: &Message,
) -> Result<Response, MessageError> {
    Err(gtsim_spec::Unsupported::new(
        "Gen11 sampler messages",
        "seed 003 Message_Descriptor_Sampling_Engine",
    )
    .into())
}
