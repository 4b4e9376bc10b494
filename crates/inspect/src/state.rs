//! The latched state by pipeline stage, each command's fields named by the spec tables
//! from the typed value the model latched (not decoded a second time from the batch).

use crate::model::{Field, StateGroup, Structure};
use gtsim_gen7::LatchedState;
use gtsim_spec::gen7::GENERATION;

/// The stages in pipeline order (seed 004's chapters), with the commands of each
/// generation latches there (Gen7's and Gen11's names side by side: a name a generation
/// does not latch is absent from its draws).
const STAGES: &[(&str, &[&str])] = &[
    (
        "Command streamer",
        &[
            "STATE_BASE_ADDRESS",
            "PIPELINE_SELECT",
            "3DSTATE_DRAWING_RECTANGLE",
            "STATE_SIP",
            "3DSTATE_3D_MODE",
            "3DSTATE_BINDING_TABLE_POOL_ALLOC",
            "3DSTATE_GATHER_POOL_ALLOC",
            "3DSTATE_SLICE_TABLE_STATE_POINTERS",
            "3DSTATE_URB_CLEAR",
            "3DSTATE_RS_CONSTANT_POINTER",
        ],
    ),
    (
        "Vertex fetch",
        &[
            "3DSTATE_VERTEX_BUFFERS",
            "3DSTATE_VERTEX_ELEMENTS",
            "3DSTATE_INDEX_BUFFER",
            "3DSTATE_VF_STATISTICS",
            "3DSTATE_VF",
            "3DSTATE_VF_INSTANCING",
            "3DSTATE_VF_SGVS",
            "3DSTATE_VF_SGVS_2",
            "3DSTATE_VF_TOPOLOGY",
            "3DSTATE_VF_COMPONENT_PACKING",
        ],
    ),
    (
        "Vertex shader",
        &[
            "3DSTATE_VS",
            "3DSTATE_CONSTANT_VS",
            "3DSTATE_BINDING_TABLE_POINTERS_VS",
            "3DSTATE_SAMPLER_STATE_POINTERS_VS",
            "3DSTATE_URB_VS",
            "3DSTATE_PUSH_CONSTANT_ALLOC_VS",
            "3DSTATE_BINDING_TABLE_EDIT_VS",
            "3DSTATE_GATHER_CONSTANT_VS",
        ],
    ),
    (
        "Hull shader, tessellator, domain shader",
        &[
            "3DSTATE_HS",
            "3DSTATE_CONSTANT_HS",
            "3DSTATE_BINDING_TABLE_POINTERS_HS",
            "3DSTATE_SAMPLER_STATE_POINTERS_HS",
            "3DSTATE_URB_HS",
            "3DSTATE_PUSH_CONSTANT_ALLOC_HS",
            "3DSTATE_BINDING_TABLE_EDIT_HS",
            "3DSTATE_GATHER_CONSTANT_HS",
            "3DSTATE_TE",
            "3DSTATE_DS",
            "3DSTATE_CONSTANT_DS",
            "3DSTATE_BINDING_TABLE_POINTERS_DS",
            "3DSTATE_SAMPLER_STATE_POINTERS_DS",
            "3DSTATE_URB_DS",
            "3DSTATE_PUSH_CONSTANT_ALLOC_DS",
            "3DSTATE_BINDING_TABLE_EDIT_DS",
            "3DSTATE_GATHER_CONSTANT_DS",
        ],
    ),
    (
        "Geometry shader",
        &[
            "3DSTATE_GS",
            "3DSTATE_CONSTANT_GS",
            "3DSTATE_BINDING_TABLE_POINTERS_GS",
            "3DSTATE_SAMPLER_STATE_POINTERS_GS",
            "3DSTATE_URB_GS",
            "3DSTATE_PUSH_CONSTANT_ALLOC_GS",
            "3DSTATE_BINDING_TABLE_EDIT_GS",
            "3DSTATE_GATHER_CONSTANT_GS",
        ],
    ),
    (
        "Stream output",
        &[
            "3DSTATE_STREAMOUT",
            "3DSTATE_SO_DECL_LIST",
            "3DSTATE_SO_BUFFER",
        ],
    ),
    (
        "Clipper",
        &["3DSTATE_CLIP", "3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP"],
    ),
    (
        "Strips and fans (setup)",
        &[
            "3DSTATE_SF",
            "3DSTATE_SBE",
            "3DSTATE_SCISSOR_STATE_POINTERS",
            "3DSTATE_LINE_STIPPLE",
            "3DSTATE_POLY_STIPPLE_OFFSET",
            "3DSTATE_POLY_STIPPLE_PATTERN",
            "3DSTATE_RASTER",
            "3DSTATE_SBE_SWIZ",
            "3DSTATE_AA_LINE_PARAMETERS",
        ],
    ),
    (
        "Windower and pixel shader",
        &[
            "3DSTATE_WM",
            "3DSTATE_PS",
            "3DSTATE_CONSTANT_PS",
            "3DSTATE_BINDING_TABLE_POINTERS_PS",
            "3DSTATE_SAMPLER_STATE_POINTERS_PS",
            "3DSTATE_MULTISAMPLE",
            "3DSTATE_SAMPLE_MASK",
            "3DSTATE_CHROMA_KEY",
            "3DSTATE_PS_EXTRA",
            "3DSTATE_PS_BLEND",
            "3DSTATE_SAMPLE_PATTERN",
            "3DSTATE_CPS",
            "3DSTATE_WM_CHROMAKEY",
            "3DSTATE_PUSH_CONSTANT_ALLOC_PS",
            "3DSTATE_BINDING_TABLE_EDIT_PS",
            "3DSTATE_GATHER_CONSTANT_PS",
            "3DSTATE_SAMPLER_PALETTE_LOAD0",
            "3DSTATE_SAMPLER_PALETTE_LOAD1",
            "3DSTATE_MONOFILTER_SIZE",
        ],
    ),
    (
        "Depth, stencil and colour calculator",
        &[
            "3DSTATE_DEPTH_BUFFER",
            "3DSTATE_STENCIL_BUFFER",
            "3DSTATE_CLEAR_PARAMS",
            "3DSTATE_DEPTH_STENCIL_STATE_POINTERS",
            "3DSTATE_CC_STATE_POINTERS",
            "3DSTATE_BLEND_STATE_POINTERS",
            "3DSTATE_VIEWPORT_STATE_POINTERS_CC",
            "3DSTATE_WM_DEPTH_STENCIL",
            "3DSTATE_HIER_DEPTH_BUFFER",
            "3DSTATE_WM_HZ_OP",
        ],
    ),
];

/// The fields of Gen7 structure `name` held in `dw`.
pub fn fields(name: &str, dw: &[u32]) -> Vec<Field> {
    fields_in(&GENERATION, name, dw)
}

/// The fields of `generation`'s structure `name` held in `dw`.
pub fn fields_in(
    generation: &'static gtsim_spec::table::Generation,
    name: &str,
    dw: &[u32],
) -> Vec<Field> {
    let Some(def) = generation.def(name) else {
        return vec![];
    };
    gtsim_spec::print::describe(generation, def, dw)
        .into_iter()
        .map(|l| Field {
            depth: l.depth,
            name: l.name,
            value: l.value,
            warning: l.warning,
        })
        .collect()
}

/// `commands` (latched state of `generation`, by spec name) by stage; commands the
/// table above does not place (media state) come last.
pub fn groups_of(
    generation: &'static gtsim_spec::table::Generation,
    commands: &[(&'static str, Vec<u32>)],
) -> Vec<StateGroup> {
    let fields = |n: &str, dw: &[u32]| fields_in(generation, n, dw);
    let mut out: Vec<StateGroup> = STAGES
        .iter()
        .map(|(stage, names)| StateGroup {
            stage,
            structures: commands
                .iter()
                .filter(|(n, _)| names.contains(n))
                .map(|(n, dw)| Structure {
                    name: n.to_string(),
                    fields: fields(n, dw),
                })
                .collect(),
        })
        .filter(|g| !g.structures.is_empty())
        .collect();
    let rest: Vec<Structure> = commands
        .iter()
        .filter(|(n, _)| !STAGES.iter().any(|(_, names)| names.contains(n)))
        .map(|(n, dw)| Structure {
            name: n.to_string(),
            fields: fields(n, dw),
        })
        .collect();
    if !rest.is_empty() {
        out.push(StateGroup {
            stage: "Media and GPGPU",
            structures: rest,
        });
    }
    out
}

/// The indirect state structures a draw's pointers reach (seed 004: the viewports,
/// scissor, depth/stencil, colour calculator and blend state in dynamic state; seed 000
/// §2.12.3: the SAMPLER_STATE entries `samplers` names per stage), read from memory as
/// the front reads them and added to their stage's group. `render_targets` BLEND_STATE
/// entries are shown.
pub fn add_indirect(
    groups: &mut Vec<StateGroup>,
    mem: &dyn gtsim_mem::Memory,
    state: &LatchedState,
    samplers: &[(&'static str, Vec<u8>)],
    render_targets: usize,
) {
    let mut found: Vec<(&'static str, Structure)> = vec![];
    let mut read = |stage: &'static str, name: &'static str, label: String, offset: u64| {
        let Some(def) = GENERATION.def(name) else {
            return;
        };
        let structure =
            match gtsim_gen7::dynamic_state_dwords(mem, state, name, offset, def.dwords as usize) {
                Ok((addr, dw)) => Structure {
                    name: format!("{label} at {addr:#x}"),
                    fields: fields(name, &dw),
                },
                Err(e) => Structure {
                    name: format!("{label}: {e}"),
                    fields: vec![],
                },
            };
        found.push((stage, structure));
    };
    if let Some(p) = &state.viewport_sf_clip {
        read(
            "Clipper",
            "SF_CLIP_VIEWPORT",
            "SF_CLIP_VIEWPORT".into(),
            p.pointer_to_sf_clip_viewport,
        );
    }
    if let Some(p) = &state.scissor {
        read(
            "Strips and fans (setup)",
            "SCISSOR_RECT",
            "SCISSOR_RECT".into(),
            p.pointer_to_scissor_rect,
        );
    }
    const OM: &str = "Depth, stencil and colour calculator";
    if let Some(p) = &state.viewport_cc {
        read(
            OM,
            "CC_VIEWPORT",
            "CC_VIEWPORT".into(),
            p.pointer_to_cc_viewport,
        );
    }
    if let Some(p) = &state.depth_stencil_pointers {
        read(
            OM,
            "DEPTH_STENCIL_STATE",
            "DEPTH_STENCIL_STATE".into(),
            p.pointer_to_depth_stencil_state,
        );
    }
    if let Some(p) = &state.cc_state_pointers {
        read(
            OM,
            "COLOR_CALC_STATE",
            "COLOR_CALC_STATE".into(),
            p.pointer_to_color_calc_state,
        );
    }
    if let Some(p) = &state.blend_state_pointers {
        for rt in 0..render_targets.max(1) {
            read(
                OM,
                "BLEND_STATE_ENTRY",
                format!("BLEND_STATE entry {rt}"),
                p.pointer_to_blend_state + 8 * rt as u64,
            );
        }
    }
    sampler_states(
        samplers,
        [
            state
                .sampler_state_pointers_vs
                .as_ref()
                .map(|p| p.pointer_to_vs_sampler_state),
            state
                .sampler_state_pointers_gs
                .as_ref()
                .map(|p| p.pointer_to_gs_sampler_state),
            state
                .sampler_state_pointers_ps
                .as_ref()
                .map(|p| p.pointer_to_ps_sampler_state),
        ],
        &mut read,
    );
    place(groups, found);
}

/// [`add_indirect`] for a Gen11 draw: the structures its pointers reach from Dynamic
/// State Base Address (seed 003: SF_CLIP_VIEWPORT, CC_VIEWPORT, SCISSOR_RECT,
/// COLOR_CALC_STATE, BLEND_STATE and its `render_targets` entries, each stage's
/// SAMPLER_STATE entries `samplers` names), named by Gen11's tables. (Depth and stencil
/// state is 3DSTATE_WM_DEPTH_STENCIL itself, already listed.)
pub fn add_indirect_gen11(
    groups: &mut Vec<StateGroup>,
    mem: &dyn gtsim_mem::Memory,
    state: &gtsim_gen11::LatchedState,
    samplers: &[(&'static str, Vec<u8>)],
    render_targets: usize,
) {
    let generation = &gtsim_spec::gen11::GENERATION;
    let dynamic = state
        .state_base_address
        .as_ref()
        .map_or(0, |b| b.dynamic_state_base_address);
    let mut found: Vec<(&'static str, Structure)> = vec![];
    let mut read = |stage: &'static str, name: &'static str, label: String, offset: u64| {
        let Some(def) = generation.def(name) else {
            return;
        };
        let addr = gtsim_gen11::bases::address(dynamic.wrapping_add(offset));
        let structure = match mem.read_dwords(addr, def.dwords as usize) {
            Ok(dw) => Structure {
                name: format!("{label} at {addr:#x}"),
                fields: fields_in(generation, name, &dw),
            },
            Err(e) => Structure {
                name: format!("{label} at {addr:#x}: {e}"),
                fields: vec![],
            },
        };
        found.push((stage, structure));
    };
    if let Some(p) = &state.viewport_state_pointers_sf_clip {
        read(
            "Clipper",
            "SF_CLIP_VIEWPORT",
            "SF_CLIP_VIEWPORT".into(),
            p.sf_clip_viewport_pointer,
        );
    }
    if let Some(p) = &state.scissor_state_pointers {
        read(
            "Strips and fans (setup)",
            "SCISSOR_RECT",
            "SCISSOR_RECT".into(),
            p.scissor_rect_pointer,
        );
    }
    const OM: &str = "Depth, stencil and colour calculator";
    if let Some(p) = &state.viewport_state_pointers_cc {
        read(
            OM,
            "CC_VIEWPORT",
            "CC_VIEWPORT".into(),
            p.cc_viewport_pointer,
        );
    }
    if let Some(p) = &state.cc_state_pointers {
        read(
            OM,
            "COLOR_CALC_STATE",
            "COLOR_CALC_STATE".into(),
            p.color_calc_state_pointer,
        );
    }
    if let Some(p) = &state.blend_state_pointers {
        read(
            OM,
            "BLEND_STATE",
            "BLEND_STATE".into(),
            p.blend_state_pointer,
        );
        // The entries follow the one-dword header, two dwords each.
        for rt in 0..render_targets.max(1) {
            read(
                OM,
                "BLEND_STATE_ENTRY",
                format!("BLEND_STATE entry {rt}"),
                p.blend_state_pointer + 4 + 8 * rt as u64,
            );
        }
    }
    sampler_states(
        samplers,
        [
            state
                .sampler_state_pointers_vs
                .as_ref()
                .map(|p| p.pointer_to_vs_sampler_state),
            state
                .sampler_state_pointers_gs
                .as_ref()
                .map(|p| p.pointer_to_gs_sampler_state),
            state
                .sampler_state_pointers_ps
                .as_ref()
                .map(|p| p.pointer_to_ps_sampler_state),
        ],
        &mut read,
    );
    place(groups, found);
}

/// The SAMPLER_STATE entries `samplers` names per stage, read through `read` from each
/// stage's table (`pointers`: the vertex, geometry and pixel shaders').
fn sampler_states(
    samplers: &[(&'static str, Vec<u8>)],
    [vs, gs, ps]: [Option<u64>; 3],
    read: &mut impl FnMut(&'static str, &'static str, String, u64),
) {
    for (stage, indices) in samplers {
        let pointer = match *stage {
            "Vertex shader" => vs,
            "Geometry shader" => gs,
            "Windower and pixel shader" => ps,
            _ => None,
        };
        if let Some(base) = pointer {
            for &i in indices {
                read(
                    stage,
                    "SAMPLER_STATE",
                    format!("SAMPLER_STATE {i}"),
                    base + 16 * u64::from(i),
                );
            }
        }
    }
}

/// Adds each structure `found` to its stage's group (a new group where it has none).
fn place(groups: &mut Vec<StateGroup>, found: Vec<(&'static str, Structure)>) {
    for (stage, s) in found {
        match groups.iter_mut().find(|g| g.stage == stage) {
            Some(g) => g.structures.push(s),
            None => groups.push(StateGroup {
                stage,
                structures: vec![s],
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command either generation latches is placed in a stage or the media group,
    /// and the stage table names only commands one of them latches.
    #[test]
    fn every_latched_command_has_a_stage() {
        let gen11 = gtsim_gen11::latched::LatchedState::COMMANDS;
        let latched = |n: &str| LatchedState::COMMANDS.contains(&n) || gen11.contains(&n);
        for (_, names) in STAGES {
            for n in *names {
                assert!(latched(n), "{n} is latched by neither generation");
            }
        }
        let media: Vec<&&str> = LatchedState::COMMANDS
            .iter()
            .chain(gen11.iter())
            .filter(|n| !STAGES.iter().any(|(_, names)| names.contains(n)))
            .collect();
        assert!(
            media.iter().all(|n| n.starts_with("MEDIA_")),
            "unplaced: {media:?}"
        );
    }
}
