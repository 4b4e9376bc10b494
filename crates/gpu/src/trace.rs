//! Replaying an AUB trace's memory writes and submissions into an address space, and
//! decoding each submission as it would have executed.

use crate::aub::{Event, Trace};
use crate::decode::{Decoder, Item};
use gtsim_mem::AddressSpace;
use gtsim_spec::table::Generation;

/// Decodes every submission in a trace, in order, against the memory the trace had
/// written up to that point. State bases carry over between submissions, as they do in a
/// hardware context.
pub fn decode_trace(generation: &'static Generation, trace: &Trace) -> Vec<Item> {
    let mut mem = AddressSpace::new();
    let mut items = vec![];
    let mut bases = Default::default();
    let mut submission = 0;
    for ev in &trace.events {
        match ev {
            Event::Write { addr, data, .. } => mem.load(*addr, data),
            Event::Exec {
                ring,
                offset,
                commands,
            } => {
                let bytes: Vec<u8> = commands.iter().flat_map(|d| d.to_le_bytes()).collect();
                mem.load(*offset, &bytes);
                items.push(Item::Note {
                    addr: *offset,
                    msg: format!(
                        "submission {submission} on ring {ring}: {} ring dwords",
                        commands.len()
                    ),
                });
                submission += 1;
                let mut d = Decoder::new(generation, &mem);
                d.bases = bases;
                d.decode_batch(*offset, Some(*offset + bytes.len() as u64));
                bases = d.bases;
                items.extend(d.items);
            }
            Event::DumpBmp(b) => items.push(Item::Note {
                addr: b.addr,
                msg: format!(
                    "display frame: a {}x{} bitmap (format {}, pitch {}) at {:#x}",
                    b.width, b.height, b.format, b.pitch, b.addr
                ),
            }),
            Event::Header { .. } | Event::GttEntries { .. } | Event::Mmio { .. } => {}
        }
    }
    for (at, msg) in &trace.diagnostics {
        items.push(Item::Diagnostic {
            addr: *at as u64,
            msg: format!("AUB: {msg}"),
        });
    }
    if let Some(e) = &trace.error {
        items.push(Item::Diagnostic {
            addr: 0,
            msg: format!("AUB: {e}"),
        });
    }
    items
}
