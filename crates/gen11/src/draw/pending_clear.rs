//! Fast clears whose clear value is only known later.
//!
//! A Gen9+ fast clear marks the CCS blocks of its render target "clear"; the value such
//! a block reads as is the one at the Clear Color Address of whichever
//! RENDER_SURFACE_STATE later renders to, samples or resolves the surface (seed 003
//! RENDER_SURFACE_STATE Clear Value Address Enable; the ICL PRM's "HwManaged FastClear",
//! quoted in Mesa's iris_clear.c). The model keeps no CCS: the main surface always holds
//! the true values, so a fast clear stores its value at once (`output.rs`), read from
//! the clear's own surface state. Mesa 22.3's iris points that state at the surface's
//! clear colour; newer Mesa (25.0's blorp) points the fast clear's surface state at a
//! scratch address and writes the real value (with PIPE_CONTROL post-sync writes) only
//! to the address the later surface states name.
//!
//! So each fast clear is also remembered until the surface is next seen in a binding
//! table with a CCS: that surface state's clear value is then the one the cleared
//! pixels hold, and if it differs from what the clear stored, the cleared slices are
//! stored again with it, before the draw that sees it runs (nothing has rendered to
//! them in between: a draw rendering to the surface names it in its binding table).
//! Seen without a CCS (the memory reused), the entry is dropped.
//!
//! The entries looked at are those the draw's kernels name (each enabled stage's
//! binding table, at the Binding Table Index of every immediate sampler and data port
//! descriptor; all of 00h-EFh for a kernel with a descriptor in a register, where
//! entries past the table's end may be stale). A surface state that names the clear's
//! own clear value address (a stale copy of the clear's state, or one naming the same
//! value) is passed over: it gives the value already stored. A draw that renders to a remembered surface
//! without its binding tables showing it forgets it, so that no later value is stored
//! over what it drew. Compute dispatches do not look (iris resolves a CCS surface
//! before compute uses it as an image, with a 3D resolve draw that does look). The
//! entries are kept per context: a surface fast-cleared in one context and first used
//! in another keeps the value its clear stored.

use super::{DrawFront, get};
use crate::bases::address;
use gtsim_dataport::rt_message::RenderTarget;
use gtsim_eu::exec::Program;
use gtsim_mem::Memory;
use gtsim_pipe3d::draw::{DrawError, KernelCache};
use gtsim_pipe3d::state::{DrawState, Front, KernelPointer};
use gtsim_spec::gen11::RenderSurfaceState;
use gtsim_spec::gen11::render_surface_state::{AuxiliarySurfaceMode as Aux, SurfaceType as St};
use std::ops::Range;

/// Most fast clears remembered at once (a client that clears surfaces it never uses
/// again leaves its oldest entries behind: they are forgotten first).
const MAX_PENDING: usize = 64;

/// Binding table entries read per stage (00h-EFh index the binding table, seed 003).
const ENTRIES: u8 = 0xf0;

/// A fast clear not yet seen by a later surface state.
#[derive(Debug, Clone)]
struct Pending {
    /// The render target as the clear stored it.
    target: RenderTarget,
    /// The slices it cleared (Minimum Array Element and Render Target View Extent).
    slices: Range<u32>,
    /// The clear value address of the clear's own RENDER_SURFACE_STATE: a surface
    /// state naming it gives the value already stored (stale copies of the clear's
    /// state, which binding tables past their end can still reach, among them).
    clear_address: Option<u64>,
}

/// A context's fast clears whose value a later surface state may still change.
#[derive(Debug, Clone, Default)]
pub struct PendingClears {
    entries: Vec<Pending>,
}

impl PendingClears {
    /// Whether no fast clear is waiting.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// After a draw: when it was a fast clear (3DSTATE_PS Render Target Fast Clear
    /// Enable), remembers the render targets it cleared (`written`, as the draw returned
    /// them), replacing what was remembered of the same surfaces.
    pub fn record(&mut self, f: &DrawFront, mem: &dyn Memory, written: &[RenderTarget]) {
        if !get(&f.state.ps).render_target_fast_clear_enable {
            // Rendered over without its settle having seen it (a surface state the
            // kernels' binding tables did not show): its clear value can no longer be
            // stored over it.
            self.entries.retain(|p| {
                !written
                    .iter()
                    .any(|t| t.surface.base == p.target.surface.base)
            });
            return;
        }
        for t in written.iter().filter(|t| t.clear_value.is_some()) {
            // The slices: the clear's render target view (its binding table entry 0,
            // the one render target a fast clear writes).
            let own = entry(f, mem, f.tables.ps.binding_table, 0)
                .filter(|(_, r)| address(r.surface_base_address) == t.surface.base);
            let slices =
                own.as_ref()
                    .map_or(t.min_array_element..t.min_array_element + 1, |(_, r)| {
                        let first = u32::from(r.minimum_array_element);
                        first..first + u32::from(r.render_target_view_extent) + 1
                    });
            self.entries
                .retain(|p| p.target.surface.base != t.surface.base);
            if self.entries.len() == MAX_PENDING {
                self.entries.remove(0);
            }
            self.entries.push(Pending {
                target: *t,
                slices,
                clear_address: own
                    .as_ref()
                    .and_then(|(_, r)| crate::surface::clear_color_address(r)),
            });
        }
    }

    /// Before a draw: each remembered surface that an entry of a binding table the
    /// draw's kernels name (`kernels` decodes them) holds with a CCS takes that surface
    /// state's clear value (stored again if it differs from the one its clear stored)
    /// and is forgotten; one named without a CCS is forgotten.
    pub fn settle(
        &mut self,
        f: &DrawFront,
        mem: &mut dyn Memory,
        kernels: &mut KernelCache,
    ) -> Result<(), DrawError> {
        if self.entries.is_empty() {
            return Ok(());
        }
        // A draw whose state does not gather runs into that error itself.
        let Ok(Some(st)) = f.draw_state(&*mem) else {
            return Ok(());
        };
        let named = named_entries(f, &st, &*mem, kernels);
        self.settle_entries(f, mem, &named)
    }

    /// [`Self::settle`] over the binding table entries `named` ((table, index) pairs).
    fn settle_entries(
        &mut self,
        f: &DrawFront,
        mem: &mut dyn Memory,
        named: &[(u64, u8)],
    ) -> Result<(), DrawError> {
        let mut seen: Vec<(u64, Option<[u32; 4]>)> = vec![];
        for &(table, bti) in named {
            let Some((_, r)) = entry(f, &*mem, table, bti) else {
                continue;
            };
            let base = address(r.surface_base_address);
            let named = crate::surface::clear_color_address(&r);
            if r.surface_type == St::SURFTYPE_NULL
                || seen.iter().any(|(b, _)| *b == base)
                || !self.entries.iter().any(|p| {
                    p.target.surface.base == base && (named.is_none() || named != p.clear_address)
                })
            {
                continue;
            }
            let value = match r.auxiliary_surface_mode {
                Aux::AUX_CCS_D | Aux::AUX_CCS_E => crate::surface::clear_value(&*mem, &r).ok(),
                _ => None,
            };
            seen.push((base, value));
        }
        for (base, value) in seen {
            let Some(i) = self
                .entries
                .iter()
                .position(|p| p.target.surface.base == base)
            else {
                continue;
            };
            let p = self.entries.remove(i);
            let Some(value) = value else { continue };
            if p.target.clear_value == Some(value) {
                continue;
            }
            let target = RenderTarget {
                clear_value: Some(value),
                ..p.target
            };
            for slice in p.slices {
                gtsim_dataport::rt_path::fast_clear_slice(mem, &target, slice).map_err(|e| {
                    DrawError::State {
                        command: "RENDER_SURFACE_STATE",
                        why: format!(
                            "storing the clear value a later surface state gives the fast-cleared surface at {base:#x}: {e}"
                        ),
                    }
                })?;
            }
        }
        Ok(())
    }
}

/// The binding table entries the draw's kernels name: each enabled stage's table with
/// the Binding Table Index of every send to the sampler or a data port whose descriptor
/// is immediate (bits 7:0), in stage order, pixel shader first (its render targets and
/// textures). A kernel with a descriptor in a register may name any entry: its table's
/// entries 00h-EFh are all taken (entries past the table's end may be stale, a binding
/// table pool reusing its memory; a state naming the clear's own clear value address
/// is passed over).
fn named_entries(
    f: &DrawFront,
    st: &DrawState,
    mem: &dyn Memory,
    kernels: &mut KernelCache,
) -> Vec<(u64, u8)> {
    let mut stages: Vec<(u64, KernelPointer)> = st
        .ps
        .kernels
        .iter()
        .map(|k| (f.tables.ps.binding_table, k.kernel))
        .collect();
    stages.extend(st.vs.kernel.map(|k| (f.tables.vs.binding_table, k)));
    if let Some(t) = &st.tess {
        stages.push((f.tables.hs.binding_table, t.hs.kernel));
        stages.push((f.tables.ds.binding_table, t.ds.kernel));
    }
    if let Some(g) = &st.gs {
        stages.push((f.tables.gs.binding_table, g.kernel));
    }
    let mut out: Vec<(u64, u8)> = vec![];
    for (table, k) in stages {
        let Ok(prog) = kernels.program(st.encoding, mem, k.address) else {
            continue;
        };
        for bti in named_by(&prog) {
            if !out.contains(&(table, bti)) {
                out.push((table, bti));
            }
        }
    }
    out
}

/// The binding table indices (00h-EFh) `prog`'s sends to the sampler and the data
/// ports name: each immediate descriptor's bits 7:0; every index when a descriptor is
/// in a register.
fn named_by(prog: &Program) -> Vec<u8> {
    let mut out = vec![];
    for (sfid, desc) in prog.sends() {
        if !sfid.names_surfaces() {
            continue;
        }
        match desc {
            Some(d) if (d & 0xff) < u32::from(ENTRIES) => out.push((d & 0xff) as u8),
            Some(_) => {}
            None => return (0..ENTRIES).collect(),
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The address and RENDER_SURFACE_STATE of entry `bti` of the binding table at
/// `table`, if they read.
fn entry(
    f: &DrawFront,
    mem: &dyn Memory,
    table: u64,
    bti: u8,
) -> Option<(u64, RenderSurfaceState)> {
    super::output::surface_state(f, mem, table, bti).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latched::LatchedState;
    use gtsim_mem::AddressSpace;
    use gtsim_pipe3d::state::{Front, Registers};
    use gtsim_spec::gen11::render_surface_state::{
        ShaderChannelSelectAlpha, ShaderChannelSelectBlue, ShaderChannelSelectGreen,
        ShaderChannelSelectRed,
    };
    use gtsim_spec::gen11::*;
    use gtsim_spec::shared::SurfaceFormat;

    struct NoRegisters;
    impl Registers for NoRegisters {
        fn register(&self, _: u32) -> u32 {
            0
        }
    }

    const SURFACE: u64 = 0x10_0000;

    /// A 4x4 R8G8B8A8_UNORM surface at [`SURFACE`] with a CCS_E (`ccs`) whose clear
    /// value is the four dwords at `clear`, packed at `at`.
    fn surface_state(mem: &mut AddressSpace, at: u64, clear: u64, ccs: bool) {
        let rss = RenderSurfaceState {
            surface_type: render_surface_state::SurfaceType::SURFTYPE_2D,
            surface_format: SurfaceFormat::R8G8B8A8_UNORM,
            width: 3,
            height: 3,
            surface_pitch: 15,
            surface_qpitch: 1,
            surface_base_address: SURFACE,
            auxiliary_surface_mode: if ccs { Aux::AUX_CCS_E } else { Aux::AUX_NONE },
            auxiliary_surface_base_address: if ccs { 0x20_0000 } else { 0 },
            clear_value_address_enable: ccs,
            clear_color_address: clear,
            shader_channel_select_red: ShaderChannelSelectRed(4),
            shader_channel_select_green: ShaderChannelSelectGreen(5),
            shader_channel_select_blue: ShaderChannelSelectBlue(6),
            shader_channel_select_alpha: ShaderChannelSelectAlpha(7),
            ..Default::default()
        };
        for (i, d) in rss.pack().unwrap().iter().enumerate() {
            mem.write_u32(at + 4 * i as u64, *d).unwrap();
        }
    }

    fn floats(mem: &mut AddressSpace, at: u64, v: [f32; 4]) {
        for (i, f) in v.iter().enumerate() {
            mem.write_u32(at + 4 * i as u64, f.to_bits()).unwrap();
        }
    }

    fn state(table: u32, fast_clear: bool) -> LatchedState {
        LatchedState {
            ps: Some(ThreeDStatePs {
                render_target_fast_clear_enable: fast_clear,
                ..Default::default()
            }),
            binding_table_pointers_ps: Some(ThreeDStateBindingTablePointersPs {
                pointer_to_ps_binding_table: u64::from(table),
            }),
            ..Default::default()
        }
    }

    fn pixels(mem: &AddressSpace) -> Vec<[u8; 4]> {
        (0..16u64)
            .map(|i| {
                let mut p = [0u8; 4];
                mem.read(SURFACE + (i / 4) * 16 + (i % 4) * 4, &mut p)
                    .unwrap();
                p
            })
            .collect()
    }

    /// A render target write to the Null Render Target (seed 003 Extended Message
    /// Descriptor Render Target) reads no binding table entry or surface state: with the
    /// PS binding table's entry 0 naming unmapped memory (as iris leaves a depth- or
    /// stencil-only draw's table, pointer 0 into the pool), the binding table entry's
    /// target faults and the null one is a null surface with the blend state's tests.
    #[test]
    fn a_null_render_target_write_reads_no_surface_state() {
        let mut mem = AddressSpace::new();
        mem.map(0, 0x1_0000);
        mem.write_u32(0x1000, 0x9000_0000).unwrap();
        let prim = ThreeDPrimitive::default();
        let st = state(0x1000, false);
        let f = DrawFront::new(&st, &NoRegisters, &prim);
        let e = f.render_target(&mem, 0, 0).unwrap_err().to_string();
        assert!(e.contains("RENDER_SURFACE_STATE"), "{e}");
        let t = f.null_render_target(&mem, 0).unwrap().unwrap();
        assert!(t.is_null());
    }

    /// Mesa 25's order: the fast clear's own surface state names a scratch clear value
    /// (zeros), the later draw's surface state the real one (1.0, 0.5, 0.25, 1.0). The
    /// clear stores zeros; the next draw naming the surface with its CCS stores the
    /// real value (UNORM8 255, 128, 64, 255: 127.5 and 63.75 round to nearest even,
    /// GL 4.6 §2.3.5.1), whatever stale entries (the clear's own state, left in the
    /// binding table pool) the tables also reach; the entry is then forgotten.
    #[test]
    fn a_fast_clear_takes_the_value_of_the_next_surface_state_that_names_its_surface() {
        let mut mem = AddressSpace::new();
        mem.map(0, 0x1_0000);
        mem.map(SURFACE, 0x1000);
        mem.map(0x20_0000, 0x1000);
        floats(&mut mem, 0x3000, [0.0; 4]);
        floats(&mut mem, 0x3040, [1.0, 0.5, 0.25, 1.0]);
        surface_state(&mut mem, 0x2000, 0x3000, true);
        surface_state(&mut mem, 0x2100, 0x3040, true);
        // The clear's table: entry 0 its state. The draw's: entry 0 the clear's state
        // (stale), entry 1 the new one.
        mem.write_u32(0x1000, 0x2000).unwrap();
        mem.write_u32(0x1100, 0x2000).unwrap();
        mem.write_u32(0x1104, 0x2100).unwrap();
        mem.write(SURFACE, &[9; 64]).unwrap();
        let prim = ThreeDPrimitive::default();
        let clear = state(0x1000, true);
        let f = DrawFront::new(&clear, &NoRegisters, &prim);
        let rt = f.render_target(&mem, 0, 0).unwrap().unwrap();
        assert_eq!(rt.clear_value, Some([0; 4]));
        gtsim_dataport::rt_path::fast_clear(&mut mem, &rt).unwrap();
        assert_eq!(
            pixels(&mem),
            vec![[0; 4]; 16],
            "the clear stores its own value"
        );
        let mut pending = PendingClears::default();
        pending.record(&f, &mem, &[rt]);
        assert!(!pending.is_empty());
        // A draw that names only the clear's own state changes nothing.
        pending
            .settle_entries(&f, &mut mem, &[(0x1000, 0)])
            .unwrap();
        assert!(!pending.is_empty());
        assert_eq!(pixels(&mem), vec![[0; 4]; 16]);
        let draw = state(0x1100, false);
        let f = DrawFront::new(&draw, &NoRegisters, &prim);
        pending
            .settle_entries(&f, &mut mem, &[(0x1100, 0), (0x1100, 1)])
            .unwrap();
        assert_eq!(pixels(&mem), vec![[255, 128, 64, 255]; 16]);
        assert!(pending.is_empty());
        // Settled once: a later change of the clear value no longer reaches the pixels.
        floats(&mut mem, 0x3040, [0.0; 4]);
        pending
            .settle_entries(&f, &mut mem, &[(0x1100, 0), (0x1100, 1)])
            .unwrap();
        assert_eq!(pixels(&mem), vec![[255, 128, 64, 255]; 16]);
    }

    /// Named without a CCS (the memory reused for a plain surface), the entry is
    /// forgotten and nothing is stored; a draw that is not a fast clear records nothing.
    #[test]
    fn a_surface_named_without_its_ccs_forgets_the_clear() {
        let mut mem = AddressSpace::new();
        mem.map(0, 0x1_0000);
        mem.map(SURFACE, 0x1000);
        mem.map(0x20_0000, 0x1000);
        floats(&mut mem, 0x3000, [0.0; 4]);
        floats(&mut mem, 0x3040, [1.0; 4]);
        surface_state(&mut mem, 0x2000, 0x3000, true);
        surface_state(&mut mem, 0x2100, 0x3040, false);
        mem.write_u32(0x1000, 0x2000).unwrap();
        mem.write_u32(0x1100, 0x2100).unwrap();
        let prim = ThreeDPrimitive::default();
        let not_a_clear = state(0x1000, false);
        let f = DrawFront::new(&not_a_clear, &NoRegisters, &prim);
        let rt = f.render_target(&mem, 0, 0).unwrap().unwrap();
        let mut pending = PendingClears::default();
        pending.record(&f, &mem, &[rt]);
        assert!(pending.is_empty(), "not a fast clear");
        let clear = state(0x1000, true);
        let f = DrawFront::new(&clear, &NoRegisters, &prim);
        gtsim_dataport::rt_path::fast_clear(&mut mem, &rt).unwrap();
        pending.record(&f, &mem, &[rt]);
        let plain = state(0x1100, false);
        let f = DrawFront::new(&plain, &NoRegisters, &prim);
        pending
            .settle_entries(&f, &mut mem, &[(0x1100, 0)])
            .unwrap();
        assert!(pending.is_empty());
        assert_eq!(pixels(&mem), vec![[0; 4]; 16]);
        // A draw that renders to a remembered surface unseen forgets it too.
        let f = DrawFront::new(&clear, &NoRegisters, &prim);
        pending.record(&f, &mem, &[rt]);
        assert!(!pending.is_empty());
        let f = DrawFront::new(&not_a_clear, &NoRegisters, &prim);
        pending.record(&f, &mem, &[rt]);
        assert!(pending.is_empty());
    }

    /// The entries a kernel names: a sampler `send` with descriptor 0x0c85a001 (ld_lz,
    /// binding table index 1, Mesa's own disassembly in this capture's kernels) and a
    /// render target write with 0x90031000 (index 0); a send with its descriptor in a0
    /// names them all.
    #[test]
    fn a_kernel_names_the_indices_of_its_immediate_descriptors() {
        use gtsim_isa::Encoding;
        use gtsim_isa::asm::{Compaction, assemble_for};
        let code = |text: &str| {
            Program::new(
                Encoding::IceLake,
                &assemble_for(Encoding::IceLake, text, Compaction::Never).unwrap(),
            )
        };
        let p = code(
            "send(16) g119<1>UW g31<0,1,0>UD 0x0c85a001 sampler MsgDesc: ld_lz SIMD16 Surface = 1 Sampler = 0 mlen 6 rlen 8 { align1 1H };\n\
             sendc(16) null<1>UW g119<0,1,0>UD 0x90031000 render MsgDesc: RT write SIMD16 LastRT Surface = 0 mlen 8 rlen 0 { align1 1H EOT };",
        );
        assert_eq!(named_by(&p), vec![0, 1]);
    }
}
