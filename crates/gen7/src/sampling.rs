//! What a shader's sampler messages see: the stage's binding table and sampler state
//! table (seed 000 §2.12 "State": BINDING_TABLE_STATE, SAMPLER_STATE and
//! SAMPLER_BORDER_COLOR_STATE, all found from the thread's R0 pointers).

use crate::front::StageTables;
use crate::indirect::{Bases, binding_table_surface};
use gtsim_eu::exec::Message;
use gtsim_mem::Memory;
use gtsim_sampler::message::SamplerResources;
use gtsim_spec::gen7::{RenderSurfaceState, SamplerBorderColorState, SamplerState};

/// Carries out a sampler message (seed 000 ch.2): the sampler state table is the
/// header's when the message has one, else the stage's (the thread's R0.3).
pub(crate) fn message(
    bases: &Bases,
    mut tables: StageTables,
    mem: &dyn Memory,
    m: &Message,
) -> Result<Vec<[u8; 32]>, String> {
    if let Some(p) = gtsim_sampler::message::header_sampler_state_pointer(m.desc, &m.payload) {
        tables.sampler_state = p;
    }
    let s = StageSampling { bases, tables, mem };
    // The sampler numbers the message's channels from 0 (a 2H send's channels 16-31
    // are its 0-15).
    gtsim_sampler::message::handle(m.desc, &m.payload, m.channel_mask >> m.first_channel, &s)
}

/// A stage's sampling resources over graphics memory.
struct StageSampling<'a> {
    bases: &'a Bases,
    tables: StageTables,
    mem: &'a dyn Memory,
}

impl StageSampling<'_> {
    fn dwords(&self, what: &str, addr: u64, n: usize) -> Result<Vec<u32>, String> {
        self.mem
            .read_dwords(addr, n)
            .map_err(|f| format!("{what} at {addr:#x}: {f}"))
    }
}

impl SamplerResources for StageSampling<'_> {
    fn surface(&self, bti: u8) -> Result<RenderSurfaceState, String> {
        binding_table_surface(self.mem, self.bases, self.tables.binding_table, bti)
            .map(|(_, rss)| rss)
            .map_err(|e| format!("binding table entry {bti}: {e}"))
    }

    fn sampler(&self, index: u8) -> Result<(SamplerState, [f32; 4]), String> {
        let base = self.bases.dynamic;
        let addr = base
            .wrapping_add(self.tables.sampler_state)
            .wrapping_add(index as u64 * 16);
        let dw = self.dwords("SAMPLER_STATE", addr, SamplerState::DWORDS)?;
        let s =
            SamplerState::unpack(&dw).map_err(|e| format!("SAMPLER_STATE at {addr:#x}: {e}"))?;
        let baddr = base.wrapping_add(s.border_color_pointer);
        let bdw = self.dwords(
            "SAMPLER_BORDER_COLOR_STATE",
            baddr,
            SamplerBorderColorState::DWORDS,
        )?;
        let b = SamplerBorderColorState::unpack(&bdw)
            .map_err(|e| format!("SAMPLER_BORDER_COLOR_STATE at {baddr:#x}: {e}"))?;
        Ok((
            s,
            [
                b.border_color_float_red,
                b.border_color_float_green,
                b.border_color_float_blue,
                b.border_color_float_alpha,
            ],
        ))
    }

    fn memory(&self) -> &dyn Memory {
        self.mem
    }
}
