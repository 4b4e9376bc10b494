//! PIPE_CONTROL's post-sync operations, the same on every generation (seed 004
//! §1.10.4.1; Gen11 PRM Vol 2a PIPE_CONTROL): after the flushes, which a model that
//! executes in order needs not do, write the immediate data (a qword), PS_DEPTH_COUNT or
//! TIMESTAMP to Address, or (LRI Post-Sync Operation) the immediate data's low dword
//! into the register Address names. Store Data Index makes Address an offset into the
//! hardware status page. Instruction Cache Invalidate empties the context's kernel cache.

use super::Hang;
use super::cs::{CommandStreamer, unsupported};
use super::fields::Fields;
use super::front::Front;

const NO_WRITE: u64 = 0;
const WRITE_IMMEDIATE_DATA: u64 = 1;
const WRITE_PS_DEPTH_COUNT: u64 = 2;

/// Executes one PIPE_CONTROL.
pub(super) fn execute<F: Front>(
    cs: &mut CommandStreamer<'_, F>,
    c: &Fields,
    at: u64,
) -> Result<(), Hang> {
    let name = c.def.name;
    // The command's last field ends its defined dwords: a longer command (Gen7's is
    // variable, pipe_common.spec's note) holds dwords nothing gives a meaning.
    let defined = c
        .def
        .fields
        .iter()
        .map(|f| f.end as usize / 32 + 1)
        .max()
        .unwrap_or(1);
    if c.dw.len() > defined {
        return Err(unsupported(
            name,
            at,
            format!(
                "a PIPE_CONTROL of {} dwords (the spec defines {defined})",
                c.dw.len()
            ),
            "seed 004 §1.10.4.1",
        ));
    }
    if c.flag("Instruction Cache Invalidate Enable") {
        cs.ctx.kernels.invalidate();
    }
    if c.flag("LRI Post-Sync Operation") {
        // MMIO Write Immediate Data: Address holds the register offset.
        cs.ctx
            .registers
            .write(c.address("Address") as u32, c.u("Immediate Data") as u32);
        return Ok(());
    }
    let op = c.u("Post-Sync Operation");
    if op == NO_WRITE {
        return Ok(());
    }
    let base = if c.flag("Store Data Index") {
        cs.status_page(name, at)?
    } else {
        0
    };
    let value = match op {
        WRITE_IMMEDIATE_DATA => {
            // The short form (Gen7's 4 dwords) lacks Immediate Data's high dword.
            let immediate = c.def.field("Immediate Data");
            if immediate.is_none_or(|f| f.end as usize / 32 >= c.dw.len()) {
                return Err(unsupported(
                    name,
                    at,
                    format!(
                        "a {}-dword PIPE_CONTROL with Post-Sync Operation Write Immediate Data: the qword write needs both Immediate Data dwords",
                        c.dw.len()
                    ),
                    "seed 004 §1.10.4.1",
                ));
            }
            c.u("Immediate Data")
        }
        WRITE_PS_DEPTH_COUNT => {
            let offset = F::INFO.register("PS_DEPTH_COUNT").unwrap_or(0);
            cs.ctx.registers.read64(offset, cs.clock())
        }
        _ => cs.clock(),
    };
    cs.write_u64(name, at, base + c.address("Address"), value)
}
