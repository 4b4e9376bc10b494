//! A command's fields read by their manual names through the generation's field tables,
//! so one executor reads every generation's MI commands: where two generations give a
//! command different shapes (Gen7's 32-bit addresses, Gen8+'s 48-bit ones; fields one of
//! them lacks), the spec files keep the names the same, as Mesa's genxml does across
//! generations. A field a generation's command does not have reads as 0, its power-on
//! meaning (Gen7's MI_BATCH_BUFFER_START has no Predication Enable or Second Level Batch
//! Buffer: it is never predicated and always chains).

use super::Hang;
use gtsim_spec::table::{Def, Generation, Ty};

/// One command (or array element) and its dwords.
#[derive(Clone, Copy)]
pub(super) struct Fields<'a> {
    pub generation: &'static Generation,
    pub def: &'static Def,
    pub dw: &'a [u32],
}

impl<'a> Fields<'a> {
    /// `dw` as `def`, its fixed fields (opcodes, fixed lengths) and size checked as the
    /// generated `unpack` checks them; a command that fails is a decode hang at `at`.
    pub fn of(
        generation: &'static Generation,
        def: &'static Def,
        dw: &'a [u32],
        at: u64,
    ) -> Result<Fields<'a>, Hang> {
        def.check_fixed(dw).map_err(|error| Hang::Decode {
            command: def.name,
            addr: at,
            error,
        })?;
        Ok(Fields {
            generation,
            def,
            dw,
        })
    }

    /// The raw value of the field `name` (0 when this generation's command lacks it).
    pub fn u(&self, name: &str) -> u64 {
        self.def.field(name).map_or(0, |f| f.raw(self.dw))
    }

    /// Whether the field `name` is set.
    pub fn flag(&self, name: &str) -> bool {
        self.u(name) != 0
    }

    /// The address or offset field `name` as bytes (its bits in place).
    pub fn address(&self, name: &str) -> u64 {
        self.def.field(name).map_or(0, |f| f.address(self.dw))
    }

    /// The elements of the open array field `name` (none when the command lacks it).
    pub fn array(&self, name: &str) -> Vec<Fields<'a>> {
        let Some(f) = self.def.field(name) else {
            return vec![];
        };
        let Ty::Array { elem, .. } = f.ty else {
            return vec![];
        };
        let Some(elem) = self.generation.def(elem) else {
            return vec![];
        };
        let first = (f.start / 32) as usize;
        let size = (elem.dwords as usize).max(1);
        self.dw
            .get(first..)
            .unwrap_or(&[])
            .chunks_exact(size)
            .map(|dw| Fields {
                generation: self.generation,
                def: elem,
                dw,
            })
            .collect()
    }
}
