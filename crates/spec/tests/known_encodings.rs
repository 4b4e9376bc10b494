//! Encodings worked out by hand from the manuals, checked against the generated packers.
//! Each expected dword is computed in the comment from the seed table it cites, not taken
//! from the code under test.

use gtsim_spec::gen7::*;
use gtsim_spec::shared::*;

#[test]
fn command_headers() {
    // Seed 004 §3.2.1.2: Command Type 3h (31:29), SubType 3h (28:27), Opcode 0h (26:24),
    // Sub Opcode 10h (23:16), DWord Length 4h (7:0): 0x60000000|0x18000000|0x00100000|4.
    assert_eq!(ThreeDStateVs::default().pack().unwrap()[0], 0x7810_0004);
    // Seed 004 §1.10.4.1 PIPE_CONTROL: 3h, 3h, Opcode 2h, Sub Opcode 0, length 3 (5 dwords).
    assert_eq!(PipeControl::default().pack().unwrap()[0], 0x7a00_0003);
    // Seed 004 §2.5.1 3DPRIMITIVE: 3h, 3h, Opcode 3h, Sub Opcode 0, length 5 (7 dwords).
    assert_eq!(ThreeDPrimitive::default().pack().unwrap()[0], 0x7b00_0005);
    // MI_BATCH_BUFFER_END: MI opcode 0Ah in 28:23 (IVB PRM Vol1 Part3) = 0x05000000.
    assert_eq!(
        MiBatchBufferEnd::default().pack().unwrap(),
        vec![0x0500_0000]
    );
    // STATE_BASE_ADDRESS: 3h, SubType 0, Opcode 1, Sub Opcode 1, length 8 (10 dwords).
    assert_eq!(StateBaseAddress::default().pack().unwrap()[0], 0x6101_0008);
    // PIPELINE_SELECT 3D: 3h, SubType 1, Opcode 1, Sub Opcode 4, selection 0: 0x69040000.
    assert_eq!(PipelineSelect::default().pack().unwrap(), vec![0x6904_0000]);
    // MEDIA_VFE_STATE: type 3, Pipeline 2 (28:27), opcode 0, sub 0, length 6: 0x70000006.
    assert_eq!(MediaVfeState::default().pack().unwrap()[0], 0x7000_0006);
}

#[test]
fn variable_length_commands_compute_their_length() {
    // MI_LOAD_REGISTER_IMM (opcode 22h: 0x11000000) with one pair: 3 dwords, length 1.
    let lri = MiLoadRegisterImm {
        registers: vec![MiLoadRegisterImmPair {
            register_offset: 0x2358,
            data_dword: 7,
        }],
        ..Default::default()
    };
    assert_eq!(lri.pack().unwrap(), vec![0x1100_0001, 0x2358, 7]);
    // Two vertex buffers: 1 + 2*4 dwords, DWord Length 7; Sub Opcode 08h.
    let vb = ThreeDStateVertexBuffers {
        vertex_buffer_state: vec![VertexBufferState::default(), VertexBufferState::default()],
    };
    let dw = vb.pack().unwrap();
    assert_eq!((dw.len(), dw[0]), (9, 0x7808_0007));
    // And it unpacks back to two buffers.
    assert_eq!(
        ThreeDStateVertexBuffers::unpack(&dw)
            .unwrap()
            .vertex_buffer_state
            .len(),
        2
    );
}

#[test]
fn state_structures() {
    // Seed 004 §12.2.3 BLEND_STATE DW0: Color Buffer Blend Enable bit 31, Source Blend
    // Factor 9:5 = SRC_ALPHA (03h), Destination Blend Factor 4:0 = INV_SRC_ALPHA (13h):
    // 0x80000000 | 3 << 5 | 0x13 = 0x80000073.
    let e = BlendStateEntry {
        color_buffer_blend_enable: true,
        source_blend_factor: ThreeDColorBufferBlendFactor::BLENDFACTOR_SRC_ALPHA,
        destination_blend_factor: ThreeDColorBufferBlendFactor::BLENDFACTOR_INV_SRC_ALPHA,
        ..Default::default()
    };
    assert_eq!(e.pack().unwrap(), vec![0x8000_0073, 0]);
    // Seed 004 §2.4.2 VERTEX_ELEMENT_STATE for a vec3 float attribute: Valid bit 25,
    // Source Element Format 24:16 = R32G32B32_FLOAT (40h): 0x02400000; components 30:28,
    // 26:24, 22:20 = STORE_SRC (1), 18:16 = STORE_1_FP (3): 0x11130000.
    let ve = VertexElementState {
        valid: true,
        source_element_format: SurfaceFormat::R32G32B32_FLOAT,
        component_0_control: ThreeDVertexComponentControl::VFCOMP_STORE_SRC,
        component_1_control: ThreeDVertexComponentControl::VFCOMP_STORE_SRC,
        component_2_control: ThreeDVertexComponentControl::VFCOMP_STORE_SRC,
        component_3_control: ThreeDVertexComponentControl::VFCOMP_STORE_1_FP,
        ..Default::default()
    };
    assert_eq!(ve.pack().unwrap(), vec![0x0240_0000, 0x1113_0000]);
    // Seed 000 §2.12 RENDER_SURFACE_STATE DW0: Surface Type 31:29 = SURFTYPE_2D (1),
    // Surface Format 26:18 = B8G8R8A8_UNORM (C0h): 0x20000000 | 0xC0 << 18 = 0x23000000.
    let rss = RenderSurfaceState {
        surface_type: render_surface_state::SurfaceType::SURFTYPE_2D,
        surface_format: SurfaceFormat::B8G8R8A8_UNORM,
        ..Default::default()
    };
    assert_eq!(rss.pack().unwrap()[0], 0x2300_0000);
}

#[test]
fn values_that_do_not_fit_are_errors() {
    // Kernel Start Pointer is bits 31:6: a 64-byte aligned offset.
    let vs = ThreeDStateVs {
        kernel_start_pointer: 0x41,
        ..Default::default()
    };
    assert!(matches!(
        vs.pack(),
        Err(gtsim_spec::PackError::Misaligned {
            def: "3DSTATE_VS",
            field: "Kernel Start Pointer",
            value: 0x41,
            align: 64
        })
    ));
    // A 3-bit enum field cannot hold 8.
    let e = BlendStateEntry {
        color_blend_function: ThreeDColorBufferBlendFunction(8),
        ..Default::default()
    };
    assert!(matches!(
        e.pack(),
        Err(gtsim_spec::PackError::TooWide {
            def: "BLEND_STATE_ENTRY",
            field: "Color Blend Function",
            value: 8,
            bits: 3
        })
    ));
}

#[test]
fn unpack_rejects_a_wrong_opcode_and_a_wrong_length() {
    // 3DSTATE_GS's header decoded as 3DSTATE_VS: Sub Opcode 11h instead of 10h.
    assert_eq!(
        ThreeDStateVs::unpack(&[0x7811_0004, 0, 0, 0, 0, 0]),
        Err(gtsim_spec::UnpackError::Mismatch {
            def: "3DSTATE_VS",
            field: "3D Command Sub Opcode",
            expected: 0x10,
            found: 0x11
        })
    );
    // Three dwords of the six 3DSTATE_VS has (seed 004 §3.2.1.2).
    assert_eq!(
        ThreeDStateVs::unpack(&[0x7810_0004, 0, 0]),
        Err(gtsim_spec::UnpackError::Short {
            def: "3DSTATE_VS",
            need: 6,
            have: 3
        })
    );
}

#[test]
fn enum_names_come_from_the_manual() {
    // 3D_Prim_Topo_Type 04h is TRILIST (gen7.xml; seed 004 §1.3 names the topologies).
    assert_eq!(ThreeDPrimTopoType(4).name(), Some("3DPRIM_TRILIST"));
    assert_eq!(SurfaceFormat::R8G8B8A8_UNORM.0, 0xc7);
    // RAW is 1FFh; 1FEh is not a format.
    assert_eq!(SurfaceFormat(0x1ff).name(), Some("RAW"));
    assert_eq!(SurfaceFormat(0x1fe).name(), None);
}

/// Each definition's `ID` is its index in `DEFS`, so a decoded command is matched by
/// value; register structs carry their MMIO offset (Linux i915_reg.h values:
/// MI_PREDICATE_RESULT 0x2418, TIMESTAMP 0x2358, PS_DEPTH_COUNT 0x2350, INSTPM 0x20c0,
/// 3DPRIM_VERTEX_COUNT 0x2434).
#[test]
fn definitions_carry_their_index_and_registers_their_offset() {
    use gtsim_spec::gen7::*;
    for (i, d) in GENERATION.defs.iter().enumerate() {
        assert_eq!(d.id, i, "{}", d.name);
    }
    assert_eq!(GENERATION.defs[MiNoop::ID].name, "MI_NOOP");
    assert_eq!(GENERATION.defs[ThreeDPrimitive::ID].name, "3DPRIMITIVE");
    assert_eq!(MiPredicateResult::OFFSET, 0x2418);
    assert_eq!(Timestamp::OFFSET, 0x2358);
    assert_eq!(PsDepthCount::OFFSET, 0x2350);
    assert_eq!(Instpm::OFFSET, 0x20c0);
    assert_eq!(ThreeDPrimVertexCount::OFFSET, 0x2434);
}

/// The generated EU field accessors give Mesa's Gen7 positions (brw_inst.h, gen7
/// column): dst register number 60:53, src0 align16 swizzle x 65:64, the flag register
/// number at bit 90 in the two-source forms but bit 34 in the three-source form, the
/// conditional modifier (and the math function overlaying it) at 27:24.
#[test]
fn eu_field_accessors_give_the_published_positions() {
    use gtsim_spec::gen7::{EuField as F, EuForm, eu_field, eu_get, eu_set};
    assert_eq!(
        eu_field(EuForm::Align12src, F::DstRegisterNumber),
        Some((53, 60))
    );
    assert_eq!(
        eu_field(EuForm::Align162src, F::Src0SwizzleX),
        Some((64, 65))
    );
    assert_eq!(
        eu_field(EuForm::Align12src, F::FlagRegisterNumber),
        Some((90, 90))
    );
    assert_eq!(
        eu_field(EuForm::N3src, F::FlagRegisterNumber),
        Some((34, 34))
    );
    assert_eq!(
        eu_field(EuForm::Align16Imm, F::ConditionalModifier),
        Some((24, 27))
    );
    assert_eq!(
        eu_field(EuForm::Align12src, F::MathFunction),
        Some((24, 27))
    );
    assert_eq!(eu_field(EuForm::N3src, F::Immediate), None);
    let mut dw = [0u32; 4];
    eu_set(EuForm::Align12src, F::DstRegisterNumber, &mut dw, 0x7f);
    assert_eq!(dw, [0, 0x7f << 21, 0, 0]);
    assert_eq!(eu_get(EuForm::Align1Imm, F::DstRegisterNumber, &dw), 0x7f);
}
