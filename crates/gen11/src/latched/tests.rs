use super::*;
use gtsim_spec::table::DefKind;

fn sba(surface: u64, modify: bool) -> Vec<u32> {
    StateBaseAddress {
        surface_state_base_address: surface,
        surface_state_base_address_modify_enable: modify,
        dynamic_state_base_address: 0x7000,
        dynamic_state_base_address_modify_enable: true,
        dynamic_state_buffer_size: 0x20,
        dynamic_state_buffer_size_modify_enable: modify,
        ..Default::default()
    }
    .pack()
    .unwrap()
}

/// Gen11 PRM Vol 2a STATE_BASE_ADDRESS: a base (48-bit here) or size changes only with
/// its Modify Enable.
#[test]
fn state_base_address_keeps_what_it_does_not_modify() {
    let mut s = LatchedState::default();
    assert!(
        s.latch("STATE_BASE_ADDRESS", &sba(0x1234_5678_9000, true))
            .unwrap()
    );
    s.latch("STATE_BASE_ADDRESS", &sba(0x9000, false)).unwrap();
    let b = s.state_base_address.unwrap();
    assert_eq!(b.surface_state_base_address, 0x1234_5678_9000);
    assert_eq!(b.dynamic_state_base_address, 0x7000);
    assert_eq!(
        b.dynamic_state_buffer_size, 0x20,
        "kept: its enable was clear"
    );
}

#[test]
fn vertex_buffers_change_only_the_buffers_listed() {
    let vbs = |list: &[(u8, u64)]| {
        ThreeDStateVertexBuffers {
            vertex_buffer_state: list
                .iter()
                .map(|&(i, a)| VertexBufferState {
                    vertex_buffer_index: i,
                    buffer_starting_address: a,
                    buffer_size: 64,
                    ..Default::default()
                })
                .collect(),
        }
        .pack()
        .unwrap()
    };
    let mut s = LatchedState::default();
    s.latch(
        "3DSTATE_VERTEX_BUFFERS",
        &vbs(&[(0, 0x1_0000_0100), (2, 0x200)]),
    )
    .unwrap();
    s.latch("3DSTATE_VERTEX_BUFFERS", &vbs(&[(2, 0x300), (1, 0x400)]))
        .unwrap();
    let got: Vec<(u8, u64)> = s
        .vertex_buffers
        .unwrap()
        .vertex_buffer_state
        .iter()
        .map(|v| (v.vertex_buffer_index, v.buffer_starting_address))
        .collect();
    assert_eq!(got, [(0, 0x1_0000_0100), (1, 0x400), (2, 0x300)]);
}

/// 3DSTATE_VF_INSTANCING sets one vertex element's instancing (Gen8+): element 33 and
/// element 1 are kept apart.
#[test]
fn vf_instancing_is_kept_per_element() {
    let cmd = |element: u8, rate: u32| {
        ThreeDStateVfInstancing {
            vertex_element_index: element,
            instancing_enable: true,
            instance_data_step_rate: rate,
        }
        .pack()
        .unwrap()
    };
    let mut s = LatchedState::default();
    s.latch("3DSTATE_VF_INSTANCING", &cmd(33, 3)).unwrap();
    s.latch("3DSTATE_VF_INSTANCING", &cmd(1, 7)).unwrap();
    assert_eq!(
        s.vf_instancing[33]
            .as_ref()
            .unwrap()
            .instance_data_step_rate,
        3
    );
    assert_eq!(
        s.vf_instancing[1].as_ref().unwrap().instance_data_step_rate,
        7
    );
    assert_eq!(s.commands().len(), 2);
}

/// Every GFXPIPE state command of the Gen11 spec (command type 3) is latched, typed;
/// the commands the command streamer executes instead are the only ones left out, with
/// the video enhancement ring's VEBOX and SFC commands, which that ring latches
/// (`gtsim_gpu` device/vebox.rs).
#[test]
fn every_gen11_state_command_is_latched() {
    const EXECUTED: &[&str] = &[
        "3DPRIMITIVE",
        "GPGPU_WALKER",
        "MEDIA_OBJECT",
        "MEDIA_OBJECT_GRPID",
        "MEDIA_OBJECT_PRT",
        "MEDIA_OBJECT_WALKER",
        "MEDIA_STATE_FLUSH",
        "PIPE_CONTROL",
    ];
    for def in GENERATION.defs {
        let gfxpipe = matches!(def.kind, DefKind::Command { .. })
            && def.field("Command Type").and_then(|f| f.fixed) == Some(3);
        let vebox = ["VEBOX_", "VEB_", "SFC_"]
            .iter()
            .any(|p| def.name.starts_with(p));
        if !gfxpipe || EXECUTED.contains(&def.name) || vebox {
            continue;
        }
        assert!(
            LatchedState::COMMANDS.contains(&def.name),
            "{} is not latched",
            def.name
        );
    }
    for name in LatchedState::COMMANDS {
        assert!(
            GENERATION.def(name).is_some(),
            "{name} is not a Gen11 command"
        );
    }
}

/// A malformed command is a latch error naming it; an unknown name is not kept.
#[test]
fn malformed_commands_are_errors() {
    let mut s = LatchedState::default();
    let e = s.latch("3DSTATE_VS", &[0x7810_0007]).unwrap_err();
    assert_eq!(e.command, "3DSTATE_VS");
    assert!(!s.latch("MI_NOOP", &[0]).unwrap());
}
