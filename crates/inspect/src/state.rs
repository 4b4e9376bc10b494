//! The latched state by pipeline stage, each command's fields named by the spec tables
//! from the typed value the model latched (not decoded a second time from the batch).

use crate::model::{Field, StateGroup, Structure};
use gtsim_gen7::LatchedState;
use gtsim_spec::gen7::GENERATION;

/// The stages in pipeline order (seed 004's chapters), with the commands of each.
const STAGES: &[(&str, &[&str])] = &[
    (
        "Command streamer",
        &[
            "STATE_BASE_ADDRESS",
            "PIPELINE_SELECT",
            "3DSTATE_DRAWING_RECTANGLE",
        ],
    ),
    (
        "Vertex fetch",
        &[
            "3DSTATE_VERTEX_BUFFERS",
            "3DSTATE_VERTEX_ELEMENTS",
            "3DSTATE_INDEX_BUFFER",
            "3DSTATE_VF_STATISTICS",
        ],
    ),
    (
        "Vertex shader",
        &[
            "3DSTATE_VS",
            "3DSTATE_CONSTANT_VS",
            "3DSTATE_BINDING_TABLE_POINTERS_VS",
            "3DSTATE_SAMPLER_STATE_POINTERS_VS",
        ],
    ),
    (
        "Hull shader, tessellator, domain shader",
        &[
            "3DSTATE_HS",
            "3DSTATE_CONSTANT_HS",
            "3DSTATE_BINDING_TABLE_POINTERS_HS",
            "3DSTATE_SAMPLER_STATE_POINTERS_HS",
            "3DSTATE_TE",
            "3DSTATE_DS",
            "3DSTATE_CONSTANT_DS",
            "3DSTATE_BINDING_TABLE_POINTERS_DS",
            "3DSTATE_SAMPLER_STATE_POINTERS_DS",
        ],
    ),
    (
        "Geometry shader",
        &[
            "3DSTATE_GS",
            "3DSTATE_CONSTANT_GS",
            "3DSTATE_BINDING_TABLE_POINTERS_GS",
            "3DSTATE_SAMPLER_STATE_POINTERS_GS",
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
        ],
    ),
];

/// The fields of structure `name` held in `dw`.
pub fn fields(name: &str, dw: &[u32]) -> Vec<Field> {
    let Some(def) = GENERATION.def(name) else {
        return vec![];
    };
    gtsim_spec::print::describe(&GENERATION, def, dw)
        .into_iter()
        .map(|l| Field {
            depth: l.depth,
            name: l.name,
            value: l.value,
            warning: l.warning,
        })
        .collect()
}

/// `state` by stage; commands the table above does not place (media state) come last.
pub fn groups(state: &LatchedState) -> Vec<StateGroup> {
    let commands = state.commands();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command the latched state keeps is placed in a stage or the media group,
    /// and the stage table names only commands it keeps.
    #[test]
    fn every_latched_command_has_a_stage() {
        for (_, names) in STAGES {
            for n in *names {
                assert!(LatchedState::COMMANDS.contains(n), "{n} is not latched");
            }
        }
        let media: Vec<&&str> = LatchedState::COMMANDS
            .iter()
            .filter(|n| !STAGES.iter().any(|(_, names)| names.contains(n)))
            .collect();
        assert!(
            media.iter().all(|n| n.starts_with("MEDIA_")),
            "unplaced: {media:?}"
        );
    }
}
