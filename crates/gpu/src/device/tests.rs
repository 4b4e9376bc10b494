use super::*;
use gtsim_mem::AddressSpace;
use gtsim_spec::gen7::*;
use gtsim_spec::shared::*;

fn run(batch: &[u32]) -> (Device, AddressSpace, Result<SubmitReport, Hang>) {
    let mut mem = AddressSpace::new();
    mem.map(0x10000, 0x10000);
    mem.write(
        0x0001_0000,
        &batch
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let mut dev = Device::new();
    let r = dev.submit(1, 0x10000, &mut mem);
    (dev, mem, r)
}

fn cat(parts: &[Vec<u32>]) -> Vec<u32> {
    parts.concat()
}

#[test]
fn pipe_control_writes_its_immediate_qword() {
    // The fence crocus polls: PIPE_CONTROL with post-sync Write Immediate Data (seed 004
    // §1.10.4.1), hand-assembled: 0x7a000003, DW1 bit 14 (post-sync 01b), address, data.
    let batch = [
        0x7a00_0003,
        1 << 14,
        0x18000,
        0xdead_beef,
        0x1234_5678,
        0x0500_0000,
    ];
    let (_, mem, r) = run(&batch);
    assert_eq!(r.unwrap().commands, 2);
    assert_eq!(mem.read_u64(0x18000).unwrap(), 0x1234_5678_dead_beef);
}

/// Intel's VA driver flushes with a 4-dword PIPE_CONTROL (DWord Length 2:
/// intel_batchbuffer_emit_mi_flush on Gen7, 0x7a000002 0x00001420 0 0): it runs, and the
/// command after it is the next command. A short one asking for an immediate write, or a
/// longer one, is refused loudly.
#[test]
fn a_four_dword_pipe_control_flushes() {
    let batch = [0x7a00_0002, 0x0000_1420, 0, 0, 0x0500_0000];
    let (_, _, r) = run(&batch);
    assert_eq!(r.unwrap().commands, 2);
    let (_, mem, r) = run(&[0x7a00_0002, 1 << 14, 0x18000, 0xdead_beef, 0x0500_0000]);
    assert!(
        matches!(&r, Err(Hang::Unsupported { command: "PIPE_CONTROL", addr: 0x10000, unsupported })
            if unsupported.what.starts_with(
                "a 4-dword PIPE_CONTROL with Post-Sync Operation Write Immediate Data"
            ) && unsupported.reference == "seed 004 §1.10.4.1"),
        "{r:?}"
    );
    assert_eq!(mem.read_u64(0x18000).unwrap(), 0, "nothing written");
    // DWord Length 4: six dwords, one past Immediate Data's high dword (DW4).
    let (_, _, r) = run(&[0x7a00_0004, 0, 0, 0, 0, 0, 0x0500_0000]);
    assert!(
        matches!(&r, Err(Hang::Unsupported { command: "PIPE_CONTROL", addr: 0x10000, unsupported })
            if unsupported.what == "a PIPE_CONTROL of 6 dwords (the spec defines 5)"
                && unsupported.reference == "seed 004 §1.10.4.1"),
        "{r:?}"
    );
}

#[test]
fn store_data_imm_and_register_round_trip() {
    let lri = MiLoadRegisterImm {
        registers: vec![MiLoadRegisterImmPair {
            register_offset: 0x2400,
            data_dword: 42,
        }],
        ..Default::default()
    };
    let srm = MiStoreRegisterMem {
        register_address: 0x2400,
        memory_address: 0x18010,
        ..Default::default()
    };
    let sdi = MiStoreDataImm {
        address: 0x18020,
        data_dword_0: 7,
        ..Default::default()
    };
    let batch = cat(&[
        lri.pack().unwrap(),
        srm.pack().unwrap(),
        sdi.pack().unwrap(),
        MiBatchBufferEnd::default().pack().unwrap(),
    ]);
    let (_, mem, r) = run(&batch);
    r.unwrap();
    assert_eq!(mem.read_u32(0x18010).unwrap(), 42);
    assert_eq!(mem.read_u32(0x18020).unwrap(), 7);
}

#[test]
fn masked_registers_change_only_the_selected_bits() {
    // INSTPM (0x20c0) is masked: write 0xffff_0001 sets bit 0 and clears 1..15, then
    // 0x0002_0002 sets bit 1 only (upper half selects which lower bits change).
    let lri = |v: u32| {
        MiLoadRegisterImm {
            registers: vec![MiLoadRegisterImmPair {
                register_offset: 0x20c0,
                data_dword: v,
            }],
            ..Default::default()
        }
        .pack()
        .unwrap()
    };
    let srm = MiStoreRegisterMem {
        register_address: 0x20c0,
        memory_address: 0x18000,
        ..Default::default()
    }
    .pack()
    .unwrap();
    let (_, mem, r) = run(&cat(&[
        lri(0xffff_0001),
        lri(0x0002_0002),
        srm,
        vec![0x0500_0000],
    ]));
    r.unwrap();
    assert_eq!(mem.read_u32(0x18000).unwrap(), 0b11);
}

#[test]
fn predication_skips_a_draw_when_the_sources_differ() {
    // SRC0 = 1, SRC1 = 0; MI_PREDICATE LOAD + SET + SRCS_EQUAL gives false, so a
    // predicated 3DPRIMITIVE is skipped; LOADINV gives true and the draw is reported.
    let lri = |off: u32, v: u32| {
        MiLoadRegisterImm {
            registers: vec![MiLoadRegisterImmPair {
                register_offset: off as u64,
                data_dword: v,
            }],
            ..Default::default()
        }
        .pack()
        .unwrap()
    };
    let pred = |load| {
        MiPredicate {
            load_operation: load,
            combine_operation: mi_predicate::CombineOperation::COMBINE_SET,
            compare_operation: mi_predicate::CompareOperation::COMPARE_SRCS_EQUAL,
        }
        .pack()
        .unwrap()
    };
    let draw = ThreeDPrimitive {
        predicate_enable: true,
        vertex_count_per_instance: 3,
        instance_count: 1,
        primitive_topology_type: ThreeDPrimTopoType::_3DPRIM_TRILIST,
        ..Default::default()
    }
    .pack()
    .unwrap();
    let null_depth = ThreeDStateDepthBuffer {
        surface_type: three_d_state_depth_buffer::SurfaceType::SURFTYPE_NULL,
        ..Default::default()
    }
    .pack()
    .unwrap();
    let batch = |load| {
        cat(&[
            null_depth.clone(),
            lri(0x2400, 1),
            lri(0x2408, 0),
            pred(load),
            draw.clone(),
            vec![0x0500_0000],
        ])
    };
    // The sources differ, so LOAD gives 0 (skip) and LOADINV gives 1 (draw). The draw
    // has power-on state: no vertex elements, every stage off, nothing drawn.
    let (_, _, r) = run(&batch(mi_predicate::LoadOperation::LOAD_LOAD));
    assert_eq!(r.unwrap().draws, 0);
    let (_, _, r) = run(&batch(mi_predicate::LoadOperation::LOAD_LOADINV));
    assert_eq!(r.unwrap().draws, 1);
}

#[test]
fn timestamp_advances_one_tick_per_command() {
    // PIPE_CONTROL post-sync 11b writes TIMESTAMP; it is the 2nd command, so 2 ticks.
    let pc = PipeControl {
        post_sync_operation: gtsim_spec::gen7::pipe_control::PostSyncOperation(3),
        address: 0x18000,
        ..Default::default()
    }
    .pack()
    .unwrap();
    let (dev, mem, r) = run(&cat(&[vec![0], pc, vec![0x0500_0000]]));
    r.unwrap();
    assert_eq!(mem.read_u64(0x18000).unwrap(), 2);
    assert_eq!(dev.clock, 3);
}

#[test]
fn guest_mistakes_are_hangs_with_context() {
    let (_, _, r) = run(&[0, 0xe000_0000]);
    assert_eq!(
        r.unwrap_err(),
        Hang::UnknownCommand {
            addr: 0x10004,
            dw0: 0xe000_0000
        }
    );
    // A post-sync write to unmapped memory.
    let pc = PipeControl {
        post_sync_operation:
            gtsim_spec::gen7::pipe_control::PostSyncOperation::WRITE_IMMEDIATE_DATA,
        address: 0x9000_0000,
        ..Default::default()
    }
    .pack()
    .unwrap();
    let (_, _, r) = run(&cat(&[pc, vec![0x0500_0000]]));
    assert!(
        matches!(
            r,
            Err(Hang::Fault {
                command: "PIPE_CONTROL",
                addr: 0x10000,
                ..
            })
        ),
        "{r:?}"
    );
    // A batch that jumps to itself never ends.
    let mut mem = AddressSpace::new();
    mem.load(
        0x10000,
        &[0x1880_0000u32, 0x10000]
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    let mut dev = Device::new();
    dev.limits.max_commands = 1000;
    assert_eq!(
        dev.submit(0, 0x10000, &mut mem).err(),
        Some(Hang::Runaway {
            start: 0x10000,
            limit: 1000
        })
    );
    // Running off the end of memory.
    let (_, _, r) = run(&[0; 4]);
    assert!(
        matches!(
            r,
            Err(Hang::Fault {
                command: "command fetch",
                ..
            })
        ),
        "{r:?}"
    );
}

#[test]
fn state_is_latched_per_context_across_submissions() {
    let mut mem = AddressSpace::new();
    let vs = ThreeDStateVs {
        maximum_number_of_threads: 7,
        ..Default::default()
    }
    .pack()
    .unwrap();
    mem.load(
        0x10000,
        &cat(&[vs.clone(), vec![0x0500_0000]])
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    mem.load(
        0x20000,
        &[0x0500_0000u32]
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    let mut dev = Device::new();
    dev.submit(1, 0x10000, &mut mem).unwrap();
    dev.submit(1, 0x20000, &mut mem).unwrap();
    // Latched once, decoded: packing it again gives the dwords the batch carried.
    let latched = dev.context(1).state.vs.as_ref().map(|v| v.pack().unwrap());
    assert_eq!(latched, Some(vs));
    assert!(dev.context(2).state.vs.is_none());
}

#[test]
fn conditional_batch_end_compares_memory() {
    // MI_CONDITIONAL_BATCH_BUFFER_END ends the batch when mem <= data.
    let cbe = |data| {
        MiConditionalBatchBufferEnd {
            compare_semaphore: true,
            compare_data_dword: data,
            compare_address: 0x18000,
            ..Default::default()
        }
        .pack()
        .unwrap()
    };
    let sdi = MiStoreDataImm {
        address: 0x18100,
        data_dword_0: 1,
        ..Default::default()
    }
    .pack()
    .unwrap();
    for (data, stored) in [(5u32, 0u32), (3, 1)] {
        let mut mem = AddressSpace::new();
        mem.map(0x10000, 0x10000);
        mem.write(0x18000, &4u32.to_le_bytes()).unwrap();
        mem.write(
            0x10000,
            &cat(&[cbe(data), sdi.clone(), vec![0x0500_0000]])
                .iter()
                .flat_map(|d| d.to_le_bytes())
                .collect::<Vec<_>>(),
        )
        .unwrap();
        Device::new().submit(0, 0x10000, &mut mem).unwrap();
        assert_eq!(
            mem.read_u32(0x18100).unwrap(),
            stored,
            "compare data {data}"
        );
    }
}

#[test]
fn store_data_index_writes_into_the_hardware_status_page() {
    // HWS_PGA (0x4080) = 0x18000: MI_STORE_DATA_INDEX offset 0x40 lands at 0x18040, and a
    // PIPE_CONTROL with Store Data Index writes its qword at 0x18000 + Address (seed 004
    // §1.10.4.1). Before HWS_PGA is set the store is refused, not sent to address 0.
    let lri = MiLoadRegisterImm {
        registers: vec![MiLoadRegisterImmPair {
            register_offset: 0x4080,
            data_dword: 0x18000,
        }],
        ..Default::default()
    }
    .pack()
    .unwrap();
    let sdi = MiStoreDataIndex {
        offset: 0x40,
        data_dword_0: 0xcafe_f00d,
        ..Default::default()
    }
    .pack()
    .unwrap();
    let pc = PipeControl {
        store_data_index: true,
        post_sync_operation:
            gtsim_spec::gen7::pipe_control::PostSyncOperation::WRITE_IMMEDIATE_DATA,
        address: 0x80,
        immediate_data: 0x1122_3344_5566_7788,
        ..Default::default()
    }
    .pack()
    .unwrap();
    let (_, mem, r) = run(&cat(&[lri, sdi.clone(), pc, vec![0x0500_0000]]));
    r.unwrap();
    assert_eq!(mem.read_u32(0x18040).unwrap(), 0xcafe_f00d);
    assert_eq!(mem.read_u64(0x18080).unwrap(), 0x1122_3344_5566_7788);
    let (_, _, r) = run(&cat(&[sdi, vec![0x0500_0000]]));
    assert!(matches!(
        r,
        Err(Hang::Unsupported {
            command: "MI_STORE_DATA_INDEX",
            ..
        })
    ));
}

/// A null depth buffer (3DSTATE_DEPTH_BUFFER SURFTYPE_NULL) and a 3DPRIMITIVE of
/// `instances` instances of one triangle (TRILIST, 3 vertices).
fn null_depth_and_triangles(instances: u32) -> (Vec<u32>, Vec<u32>) {
    let null_depth = ThreeDStateDepthBuffer {
        surface_type: three_d_state_depth_buffer::SurfaceType::SURFTYPE_NULL,
        ..Default::default()
    }
    .pack()
    .unwrap();
    let draw = ThreeDPrimitive {
        vertex_count_per_instance: 3,
        instance_count: instances,
        primitive_topology_type: ThreeDPrimTopoType::_3DPRIM_TRILIST,
        ..Default::default()
    }
    .pack()
    .unwrap();
    (null_depth, draw)
}

#[test]
fn a_batch_looping_over_a_draw_ends_at_the_watchdog_as_a_hang() {
    // The batch's end replaced by a jump back to its start, with a 3-vertex draw inside:
    // without a watchdog this runs until the command limit, millions of draws later. The
    // vertex limit of 1,000 ends it in the 334th draw, as a hang naming the 3DPRIMITIVE.
    let (null_depth, draw) = null_depth_and_triangles(1);
    let jump = MiBatchBufferStart {
        batch_buffer_start_address: 0x10000,
        ..Default::default()
    }
    .pack()
    .unwrap();
    let draw_at = 0x10000 + 4 * null_depth.len() as u64;
    let batch = cat(&[null_depth, draw, jump]);
    let mut mem = AddressSpace::new();
    mem.map(0x10000, 0x10000);
    let bytes: Vec<u8> = batch.iter().flat_map(|d| d.to_le_bytes()).collect();
    mem.write(0x10000, &bytes).unwrap();
    let mut dev = Device::new();
    dev.limits.work.vertices = 1_000;
    let r = dev.submit(1, 0x10000, &mut mem);
    match r {
        Err(Hang::Draw {
            addr,
            error: gtsim_pipe3d::draw::DrawError::Watchdog { what, limit, .. },
        }) => {
            assert_eq!((addr, what, limit), (draw_at, "vertices", 1_000));
        }
        other => panic!("{other:?}"),
    }
    // The next submission starts with a fresh count.
    let mut end = mem.clone();
    end.write(
        0x10000 + bytes.len() as u64 - 8,
        &0x0500_0000u32.to_le_bytes(),
    )
    .unwrap();
    end.write(0x10000 + bytes.len() as u64 - 4, &0u32.to_le_bytes())
        .unwrap();
    dev.submit(1, 0x10000, &mut end).unwrap();
}

#[test]
fn a_draw_that_does_not_finish_ends_at_the_hangcheck_clock() {
    // 2^32 - 1 instances of a triangle, with the vertex limit out of reach: only the
    // per-command clock (one second here) ends it, as a hang naming the 3DPRIMITIVE and
    // the knob. The next command's clock starts afresh: a following submission runs.
    let (null_depth, draw) = null_depth_and_triangles(u32::MAX);
    let draw_at = 0x10000 + 4 * null_depth.len() as u64;
    let (mut dev, mut mem) = (Device::new(), AddressSpace::new());
    dev.limits.work.vertices = u64::MAX;
    dev.limits.work.host_seconds = 1;
    mem.map(0x10000, 0x1000);
    let batch = cat(&[null_depth.clone(), draw, vec![0x0500_0000]]);
    let bytes: Vec<u8> = batch.iter().flat_map(|d| d.to_le_bytes()).collect();
    mem.write(0x10000, &bytes).unwrap();
    match dev.submit(1, 0x10000, &mut mem) {
        Err(Hang::Draw {
            addr,
            error: gtsim_pipe3d::draw::DrawError::Watchdog { what, limit, knob },
        }) => {
            assert_eq!(
                (addr, what, limit, knob),
                (
                    draw_at,
                    "seconds of host time in one command",
                    1,
                    "GTSIM_WATCHDOG_SECONDS"
                )
            );
        }
        other => panic!("{other:?}"),
    }
    let batch = cat(&[null_depth, vec![0x0500_0000]]);
    let bytes: Vec<u8> = batch.iter().flat_map(|d| d.to_le_bytes()).collect();
    mem.write(0x10000, &bytes).unwrap();
    dev.submit(1, 0x10000, &mut mem).unwrap();
}

/// A MEDIA_OBJECT (0x71000004: type 3, pipeline 2, opcode 1, sub-opcode 0, 6 dwords)
/// runs only under PIPELINE_SELECT media: under the 3D pipeline (the default) it is a
/// typed hang naming the pipeline, and with media selected but no MEDIA_VFE_STATE a
/// state error, not a thread run on nothing.
#[test]
fn a_media_object_needs_the_media_pipeline_and_its_state() {
    let object = [0x7100_0004, 0, 0, 0, 0, 0];
    let (_, _, r) = run(&cat(&[object.to_vec(), vec![0x0500_0000]]));
    let e = r.unwrap_err().to_string();
    assert!(e.contains("PIPELINE_SELECT selects the 3D pipeline"), "{e}");
    // PIPELINE_SELECT media: 0x69040001.
    let (_, _, r) = run(&cat(&[
        vec![0x6904_0001],
        object.to_vec(),
        vec![0x0500_0000],
    ]));
    // The MEDIA_OBJECT follows the one-dword PIPELINE_SELECT, at 0x10004.
    let e = r.unwrap_err();
    assert!(
        matches!(&e, Hang::Media {
            walker: false,
            addr: 0x10004,
            error: gtsim_pipe3d::draw::DrawError::State { command: "MEDIA_OBJECT", why },
        } if why == "no MEDIA_VFE_STATE was sent before the MEDIA_OBJECT"),
        "{e}"
    );
    assert!(e.to_string().contains("no MEDIA_VFE_STATE"), "{e}");
}
