//! The Gen11 command streamer, on hand-assembled batches. Expectations come from the
//! command layouts worked by hand (genxml gen11.xml's bit positions) and from iris's own
//! `INTEL_DEBUG=bat` decode of what it submitted on gtsim.

use super::*;
use gtsim_mem::AddressSpace;

/// A canonical high address as iris uses them (bit 47 set, bits 63:48 copying it), and
/// the 48-bit address the command streamer uses for it.
const HIGH: u64 = 0xffff_fffe_fffe_e000;
const HIGH48: u64 = HIGH & ((1 << 48) - 1);

fn run_at(batch: &[u32], at: u64, mem: &mut AddressSpace) -> (Device, Result<SubmitReport, Hang>) {
    mem.write(
        at & ((1 << 48) - 1),
        &batch
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let mut dev = Device::with_platform(Platform::IceLake);
    let r = dev.submit(1, at, mem);
    (dev, r)
}

fn mem() -> AddressSpace {
    let mut m = AddressSpace::new();
    m.map(HIGH48, 0x10000);
    m.map(0x20000, 0x10000);
    m
}

const END: u32 = 0x0500_0000;

#[test]
fn iris_fence_write_lands_at_the_48_bit_address() {
    // PIPE_CONTROL (Gen8+: 6 dwords, DWord Length 4) with Post Sync Operation 01b
    // (bit 14 of DW1) writing the qword in DW4-5 to the canonical address in DW2-3.
    let target = 0xffff_fffe_fffe_f000u64;
    let batch = [
        0x7a00_0004,
        1 << 14,
        target as u32,
        (target >> 32) as u32,
        0x0000_0007,
        0x0000_0000,
        END,
    ];
    let mut m = mem();
    let (_, r) = run_at(&batch, HIGH, &mut m);
    assert_eq!(r.unwrap().commands, 2);
    assert_eq!(m.read_u64(target & ((1 << 48) - 1)).unwrap(), 7);
}

#[test]
fn mi_atomic_move8b_as_iris_sent_it() {
    // iris's first render batch on gtsim, as its INTEL_DEBUG=bat decode printed it:
    // 0x178c2405 = MI_ATOMIC, DWord Length 5, MOVE8B, Inline Data, Data Size QWORD;
    // Memory Address 0xfffeffc05000; Operand1 Data Dword 0 = 0x3e4cccce, Operand2 Data
    // Dword 0 = 0, Operand1 Data Dword 1 = 0x3eccccce, Operand2 Data Dword 1 = 0. The
    // qword stored is Operand1: 0x3eccccce_3e4cccce.
    let batch = [
        0x178c_2405,
        0xffc0_5000,
        0x0000_fffe,
        0x3e4c_ccce,
        0,
        0x3ecc_ccce,
        0,
        END,
    ];
    let mut m = mem();
    m.map(0xfffe_ffc0_5000, 0x1000);
    m.write_u64(0xfffe_ffc0_5000, 0x1111_2222_3333_4444)
        .unwrap();
    let (dev, r) = run_at(&batch, HIGH, &mut m);
    r.unwrap();
    assert_eq!(m.read_u64(0xfffe_ffc0_5000).unwrap(), 0x3ecc_ccce_3e4c_ccce);
    // Without Return Data Control, CS_GPR0 is untouched.
    let mut dev = dev;
    assert_eq!(dev.gen11_context(1).registers.read64(0x2600, 0), 0);
}

#[test]
fn mi_atomic_dword_add_returns_the_old_value() {
    // MI_ATOMIC ADD (7), DWORD, Inline Data, Return Data Control: DWord Length 3 (5
    // dwords: header, address, Operand1, Operand2).
    let header = (47 << 23) | (1 << 18) | (1 << 16) | (0x07 << 8) | 3;
    let batch = [header, 0x20100, 0, 5, 0, END];
    let mut m = mem();
    m.write_u32(0x20100, 10).unwrap();
    let (mut dev, r) = run_at(&batch, 0x20000, &mut m);
    r.unwrap();
    assert_eq!(m.read_u32(0x20100).unwrap(), 15);
    assert_eq!(dev.gen11_context(1).registers.read64(0x2600, 0), 10);
}

#[test]
fn registers_load_store_and_math() {
    // LRI CS_GPR0 = 5 and CS_GPR1 = 7 (one LRI, two pairs: DWord Length 3), MI_MATH
    // (opcode 0x1a, DWord Length 2 = 4 ALU dwords... here 4: LOAD SRCA R0, LOAD SRCB R1,
    // ADD, STORE R2 ACCU), then SRM R2 -> 0x20200.
    let lri = [0x1100_0003, 0x2600, 5, 0x2608, 7];
    let math = [
        (0x1a << 23) | 3,
        (0x080 << 20) | (0x20 << 10),
        (0x080 << 20) | (0x21 << 10) | 1,
        0x100 << 20,
        (0x180 << 20) | (2 << 10) | 0x31,
    ];
    let srm = [(0x24 << 23) | 2, 0x2610, 0x20200, 0];
    let batch = [&lri[..], &math[..], &srm[..], &[END]].concat();
    let mut m = mem();
    let (_, r) = run_at(&batch, 0x20000, &mut m);
    assert_eq!(r.unwrap().commands, 4);
    assert_eq!(m.read_u32(0x20200).unwrap(), 12);
}

#[test]
fn second_level_batches_return() {
    // MI_BATCH_BUFFER_START (0x31 << 23, DWord Length 1) with Second Level Batch Buffer
    // (bit 22) to 0x20800, whose MI_STORE_DATA_IMM writes 9 and ends; the first batch then
    // stores 3 after the call.
    let call = [(0x31 << 23) | (1 << 22) | (1 << 8) | 1, 0x20800, 0];
    let sdi = |addr: u32, v: u32| [(0x20 << 23) | 2, addr, 0, v];
    let first = [&call[..], &sdi(0x20300, 3)[..], &[END]].concat();
    let second = [&sdi(0x20304, 9)[..], &[END]].concat();
    let mut m = mem();
    m.write(
        0x20800,
        &second
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let (_, r) = run_at(&first, 0x20000, &mut m);
    assert_eq!(r.unwrap().commands, 5);
    assert_eq!(m.read_u32(0x20300).unwrap(), 3);
    assert_eq!(m.read_u32(0x20304).unwrap(), 9);
}

/// A 3DPRIMITIVE runs through the Gen11 draw front: with nothing programmed but a null
/// depth buffer and the topology (VS and PS disabled, no vertex elements), its three
/// vertices are fetched and nothing is drawn. Enabling the GS (3DSTATE_GS DW7 bit 0, Enable), which
/// the Gen11 front does not model yet, makes the same draw a hang naming it.
#[test]
fn state_is_latched_and_draws_run() {
    // PIPELINE_SELECT (Gen9+: Mask Bits 15:8 = 3, 3D), a null 3DSTATE_DEPTH_BUFFER
    // (Surface Type 31:29 = 7), 3DSTATE_VF_TOPOLOGY (3D opcode 0, sub-opcode 0x4b, DWord
    // Length 0) with TRILIST (4), then 3DPRIMITIVE (7 dwords: 3 vertices, 1 instance).
    let draw = [
        0x6904_0300,
        0x7805_0006,
        7 << 29,
        0,
        0,
        0,
        0,
        0,
        0,
        0x784b_0000,
        4,
        0x7b00_0005,
        0,
        3,
        0,
        1,
        0,
        0,
    ];
    let mut batch = draw.to_vec();
    batch.push(END);
    let mut m = mem();
    let (mut dev, r) = run_at(&batch, 0x20000, &mut m);
    let report = r.expect("the draw runs");
    assert_eq!(report.draws, 1);
    let state = &dev.gen11_context(1).state;
    assert_eq!(
        state
            .vf_topology
            .as_ref()
            .map(|t| t.primitive_topology_type.0),
        Some(4),
        "3DPRIM_TRILIST (seed 003 3DSTATE_VF_TOPOLOGY)"
    );
    assert_eq!(
        state.pipeline(),
        gtsim_spec::gen11::pipeline_select::PipelineSelection::_3D
    );
    // 3DSTATE_GS (sub-opcode 0x11, DWord Length 8) with Enable, before the draw.
    let mut gs = vec![0x7811_0008, 0, 0, 0, 0, 0, 0, 1, 0, 0];
    gs.extend_from_slice(&draw);
    gs.push(END);
    let mut m = mem();
    let (_, r) = run_at(&gs, 0x20000, &mut m);
    match r {
        Err(Hang::Draw { error, .. }) => {
            let e = error.to_string();
            assert!(
                e.contains("3DSTATE_GS") && e.contains("not modelled"),
                "{e}"
            );
        }
        other => panic!("a GS draw should be refused: {other:?}"),
    }
}

#[test]
fn malformed_state_is_a_decode_hang() {
    // 3DSTATE_VF_TOPOLOGY with a DWord Length of 1 (3 dwords) where the command has 2.
    let batch = [0x784b_0001, 4, 0, END];
    let mut m = mem();
    let (_, r) = run_at(&batch, 0x20000, &mut m);
    assert!(
        matches!(
            r,
            Err(Hang::Decode {
                command: "3DSTATE_VF_TOPOLOGY",
                ..
            })
        ),
        "{r:?}"
    );
}

#[test]
fn pci_ids_name_their_platform() {
    // Mesa's PCI tables: 0x0162 is IVB GT2 (crocus), 0x8A52 ICL GT2 (iris), 0x1912 a
    // Skylake (not modelled).
    assert_eq!(Platform::from_pci_id(0x0162), Some(Platform::IvyBridge));
    assert_eq!(Platform::from_pci_id(0x8a52), Some(Platform::IceLake));
    assert_eq!(Platform::from_pci_id(0x1912), None);
}

/// The video enhancement ring: MI_FLUSH_DW's post-sync write (4 dwords, as iHD sends
/// it), the VEBOX and SFC state commands latched, and VEB_DI_IECP with denoise refused
/// by name with what it was asked: the frame as VEBOX_SURFACE_STATE describes it (Width/Height minus
/// one, Surface Format 4 = PLANAR4208, media-driver mhw_vebox_hwcmd_g11_X.h) and the
/// SFC's scaled size (SFC_STATE DW8 Scaled Region Size minus one). A VEBOX command on the
/// render ring and a 3D command on the video enhancement ring are refused.
#[test]
fn the_video_enhancement_ring_latches_vebox_state_and_refuses_the_frame() {
    let mut m = mem();
    let run = |m: &mut AddressSpace, batch: &[u32], ring: Ring| {
        m.write(
            0x20000,
            &batch
                .iter()
                .flat_map(|d| d.to_le_bytes())
                .collect::<Vec<_>>(),
        )
        .unwrap();
        let mut dev = Device::with_platform(Platform::IceLake);
        dev.submit_on(ring, 1, 0x20000, m)
    };
    // MI_FLUSH_DW, post-sync write of 0x55 to 0x28000, then the end.
    let r = run(
        &mut m,
        &[0x1300_4002, 0x2_8000, 0, 0x55, END],
        Ring::VideoEnhance,
    );
    assert_eq!(r.unwrap().commands, 2);
    assert_eq!(m.read_u32(0x2_8000).unwrap(), 0x55);
    // VEBOX_STATE with Global IECP Enable and DN Enable (DW1 bits 2 and 3: denoise is
    // refused, the seeds lack its filter); the input and output surfaces,
    // 320x240 PLANAR4208 (DW2: Width-1 in 17:4, Height-1 in 31:18; DW3: format in
    // 31:27); SFC_LOCK, SFC_STATE scaling to 160x120 (DW8: width-1 in 11:0, height-1
    // in 27:16), SFC_FRAME_START; VEB_DI_IECP over columns 0..=319.
    let mut batch = vec![0x7402_0011, 1 << 2 | 1 << 3];
    batch.extend([0u32; 17]);
    for id in 0..2 {
        batch.extend([
            0x7400_0007,
            id,
            319 << 4 | 239 << 18,
            4 << 27,
            0,
            0,
            0,
            0,
            0,
        ]);
    }
    batch.extend([0x7500_0000, 1]);
    let mut sfc = vec![0u32; 34];
    sfc[0] = 0x7501_0020;
    sfc[8] = 159 | 119 << 16;
    batch.extend(sfc);
    batch.extend([0x7504_0000, 0]);
    let mut iecp = vec![0u32; 24];
    iecp[0] = 0x7403_0016;
    iecp[1] = 319;
    batch.extend(iecp);
    batch.push(END);
    let err = run(&mut m, &batch, Ring::VideoEnhance)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("VEB_DI_IECP")
            && err.contains("320x240 PLANAR4208 frame (columns 0..=319)")
            && err.contains("into a 320x240 PLANAR4208 output")
            && err.contains("with denoise, the IECP colour pipe")
            && err.contains("the SFC's scaling to 160x120")
            && err.contains("is not modelled yet"),
        "{err}"
    );
    // VEB_DI_IECP before any VEBOX_STATE.
    let mut lone = vec![0u32; 24];
    lone[0] = 0x7403_0016;
    lone.push(END);
    let err = run(&mut m, &lone, Ring::VideoEnhance)
        .unwrap_err()
        .to_string();
    assert!(err.contains("without a VEBOX_STATE"), "{err}");
    // VEBOX_STATE on the render ring; PIPE_CONTROL on the video enhancement ring.
    let mut state = vec![0x7402_0011u32];
    state.extend([0u32; 18]);
    state.push(END);
    let err = run(&mut m, &state, Ring::Render).unwrap_err().to_string();
    assert!(err.contains("outside the video enhancement ring"), "{err}");
    let err = run(
        &mut m,
        &[0x7a00_0004, 0, 0, 0, 0, 0, END],
        Ring::VideoEnhance,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("on the video enhancement ring"), "{err}");
}

/// 3DSTATE_SO_BUFFER's Stream Offset Write Enable loads SO_WRITE_OFFSETn (5280h + 4n)
/// when the command runs, not at each draw (genxml gen11.xml: DW1 bit 31 SO Buffer
/// Enable, 30:29 SO Buffer Index, bit 21 Stream Offset Write Enable, bit 20 Stream
/// Output Buffer Offset Address Enable; DW2-3 Surface Base Address, DW4 Surface Size,
/// DW5-6 Stream Output Buffer Offset Address, DW7 Stream Offset): buffer 1 takes 0x44
/// (the low two bits dropped: 0x47), buffer 2 with 0xFFFFFFFF the dword 0x88 at its
/// offset address. MI_STORE_REGISTER_MEM then stores both registers.
#[test]
fn so_buffer_stream_offsets_load_the_write_offset_registers() {
    let base = 0x2_0000u32;
    let offset_at = 0x2_0800u32;
    let so_buffer = |index: u32, offset: u32| {
        [
            0x7918_0006,
            1 << 31 | index << 29 | 1 << 21 | 1 << 20,
            base,
            0,
            63,
            offset_at,
            0,
            offset,
        ]
    };
    let srm = |reg: u32, to: u32| [0x1200_0002, reg, to, 0];
    let mut batch = vec![];
    batch.extend(so_buffer(1, 0x47));
    batch.extend(so_buffer(2, u32::MAX));
    batch.extend(srm(0x5284, 0x2_0900));
    batch.extend(srm(0x5288, 0x2_0904));
    batch.push(END);
    let mut m = mem();
    m.write_u32(u64::from(offset_at), 0x88).unwrap();
    let (_, r) = run_at(&batch, HIGH, &mut m);
    r.unwrap();
    assert_eq!(m.read_u32(0x2_0900).unwrap(), 0x44);
    assert_eq!(m.read_u32(0x2_0904).unwrap(), 0x88);
}
