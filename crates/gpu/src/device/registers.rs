//! The MMIO register file of a context.
//!
//! Registers are 32-bit MMIO locations (64-bit registers are two: offset and offset + 4,
//! IVB PRM Vol1 Part3). Masked registers (defs/gen7/registers.spec: those with `... Mask`
//! fields, e.g. INSTPM, CACHE_MODE_0/1, GFX_MODE) take writes whose upper 16 bits select
//! which of the lower 16 bits change. TIMESTAMP reads the device clock.

use gtsim_spec::table::Generation;
use std::collections::BTreeMap;

/// Register values by MMIO offset; unwritten registers read 0.
#[derive(Debug, Clone)]
pub struct RegisterFile {
    values: BTreeMap<u32, u32>,
    /// Whose register definitions say which registers are masked.
    generation: &'static Generation,
}

impl Default for RegisterFile {
    /// Ivy Bridge's registers.
    fn default() -> Self {
        Self::for_generation(&gtsim_spec::gen7::GENERATION)
    }
}

impl PartialEq for RegisterFile {
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values && self.generation.name == other.generation.name
    }
}

impl Eq for RegisterFile {}

impl RegisterFile {
    /// An empty register file of `generation` (its spec says which registers are masked;
    /// TIMESTAMP is 0x2358 on every generation modelled).
    pub fn for_generation(generation: &'static Generation) -> Self {
        Self {
            values: BTreeMap::new(),
            generation,
        }
    }

    fn is_masked(&self, offset: u32) -> bool {
        self.generation.register(offset).is_some_and(|d| {
            d.fields
                .iter()
                .any(|f| f.name.ends_with(" Mask") && f.start >= 16)
        })
    }

    /// Reads a register; `clock` is the device time for TIMESTAMP.
    pub fn read(&self, offset: u32, clock: u64) -> u32 {
        let ts = gtsim_spec::gen7::Timestamp::OFFSET;
        if offset == ts {
            return clock as u32;
        }
        if offset == ts + 4 {
            return (clock >> 32) as u32;
        }
        self.values.get(&offset).copied().unwrap_or(0)
    }

    /// Writes a register, honouring masked-write semantics.
    pub fn write(&mut self, offset: u32, value: u32) {
        let v = if self.is_masked(offset) {
            let mask = value >> 16;
            let old = self.values.get(&offset).copied().unwrap_or(0);
            (old & !mask) | (value & mask)
        } else {
            value
        };
        self.values.insert(offset, v);
    }

    /// Reads a 64-bit register pair.
    pub fn read64(&self, offset: u32, clock: u64) -> u64 {
        self.read(offset, clock) as u64 | (self.read(offset + 4, clock) as u64) << 32
    }

    /// Writes a 64-bit register pair.
    pub fn write64(&mut self, offset: u32, value: u64) {
        self.write(offset, value as u32);
        self.write(offset + 4, (value >> 32) as u32);
    }
}
