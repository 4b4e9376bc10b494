//! Hand-worked data port messages: payloads laid out as the seed's tables give them,
//! memory contents and writebacks worked out from those tables.

use super::*;
use gtsim_mem::layout::{ArraySpacing, MsaaLayout, SurfaceDesc, SurfaceType};
use gtsim_mem::space::AddressSpace;
use gtsim_mem::tiling::Tiling;

pub(super) const BASE: u64 = 0x10_0000;

pub(super) fn memory() -> AddressSpace {
    let mut m = AddressSpace::new();
    m.map(BASE, 0x10000);
    // Dword i of the buffer holds 1000 + i.
    let bytes: Vec<u8> = (0..0x4000u32)
        .flat_map(|i| (1000 + i).to_le_bytes())
        .collect();
    m.load(BASE, &bytes);
    m
}

pub(super) fn reg(dws: [u32; 8]) -> [u8; 32] {
    let mut r = [0u8; 32];
    for (i, d) in dws.iter().enumerate() {
        r[4 * i..4 * i + 4].copy_from_slice(&d.to_le_bytes());
    }
    r
}

/// `r` is the message refused as invalid, the reason saying `why`.
#[track_caller]
fn assert_invalid<T: std::fmt::Debug>(r: Result<T, gtsim_message::MessageError>, why: &str) {
    match r {
        Err(gtsim_message::MessageError::Invalid(m)) => {
            assert!(m.contains(why), "{m:?} does not say {why:?}")
        }
        other => panic!("{other:?}: expected an invalid message ({why})"),
    }
}

fn dwords(r: &[u8; 32]) -> [u32; 8] {
    std::array::from_fn(|i| {
        u32::from_le_bytes([r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]])
    })
}

fn raw_buffer(bytes: u64) -> DataSurface {
    DataSurface::Buffer {
        base: BASE,
        entries: bytes,
        format: SurfaceFormat::RAW,
        any_format_reads: false,
        typed: None,
    }
}

fn run(
    mem: &mut AddressSpace,
    msg: DataMessage,
    surface: Option<DataSurface>,
    payload: &[[u8; 32]],
    mask: u32,
    rlen: usize,
) -> Result<Response, MessageError> {
    let payload: Payload = payload.iter().copied().collect();
    let mut t = Target {
        mem,
        surface,
        general: GeneralState {
            base: BASE,
            bound: None,
        },
        slm: None,
        color_processing: None,
    };
    execute(&msg, &payload, mask, rlen, &mut t)
}

fn untyped(access: Access, simd: Simd, channels: [bool; 4], header: bool) -> DataMessage {
    DataMessage {
        op: DataOp::Untyped {
            access,
            simd,
            channels,
        },
        model: AddressModel::Surface(1),
        header,
    }
}

/// §3.9.9.10.5 / §3.9.9.11.2: a SIMD8 untyped read of R and B (G masked): red to W0,
/// blue to W1 (the masked channel's register is skipped); only the enabled slots are
/// written.
#[test]
fn untyped_simd8_read_packs_the_enabled_channels() {
    let mut mem = memory();
    // Slot s reads byte offset 16·s: dwords 4s (R) and 4s+2 (B).
    let addr = reg(std::array::from_fn(|s| 16 * s as u32));
    let msg = untyped(Access::Read, Simd::Simd8, [true, false, true, false], false);
    let r = run(
        &mut mem,
        msg,
        Some(raw_buffer(0x1000)),
        &[addr],
        0b1010_1111,
        2,
    )
    .unwrap();
    let w = r.written.unwrap();
    assert_eq!(w, vec![0b1010_1111, 0b1010_1111]);
    assert_eq!(dwords(&r.registers[0])[3], 1000 + 12);
    assert_eq!(dwords(&r.registers[1])[3], 1000 + 14);
    assert_eq!(dwords(&r.registers[1])[7], 1000 + 30);
}

/// Out-of-bounds reads return 0, writes are dropped (§3.9.9): a raw buffer of 64
/// bytes; slot 1 reads past it.
#[test]
fn untyped_out_of_bounds_reads_zero_and_drops_writes() {
    let mut mem = memory();
    let addr = reg([60, 64, 0, 0, 0, 0, 0, 0]);
    let msg = untyped(
        Access::Read,
        Simd::Simd8,
        [true, false, false, false],
        false,
    );
    let r = run(&mut mem, msg, Some(raw_buffer(64)), &[addr], 0b11, 1).unwrap();
    assert_eq!(dwords(&r.registers[0])[..2], [1015, 0]);
    let msg = untyped(
        Access::Write,
        Simd::Simd8,
        [true, false, false, false],
        false,
    );
    run(
        &mut mem,
        msg,
        Some(raw_buffer(64)),
        &[addr, reg([7, 8, 0, 0, 0, 0, 0, 0])],
        0b11,
        0,
    )
    .unwrap();
    assert_eq!(mem.read_u32(BASE + 60).unwrap(), 7);
    assert_eq!(mem.read_u32(BASE + 64).unwrap(), 1016);
}

/// §3.9.9.10.1/4: SIMD16 write of R and G: U in M1-M2, red in M3-M4, green in M5-M6.
/// The header's Pixel/Sample Mask (M0.7) ANDs with the execution mask.
#[test]
fn untyped_simd16_write_with_header_mask() {
    let mut mem = memory();
    let header = reg([0, 0, 0, 0, 0, 0, 0, 0xffff_7fff]);
    let u = |hi: u32| reg(std::array::from_fn(|s| 8 * (s as u32 + 8 * hi)));
    let red = |hi: u32| reg(std::array::from_fn(|s| 100 + s as u32 + 8 * hi));
    let green = |hi: u32| reg(std::array::from_fn(|s| 200 + s as u32 + 8 * hi));
    let msg = untyped(
        Access::Write,
        Simd::Simd16,
        [true, true, false, false],
        true,
    );
    run(
        &mut mem,
        msg,
        Some(raw_buffer(0x1000)),
        &[header, u(0), u(1), red(0), red(1), green(0), green(1)],
        0xffff,
        0,
    )
    .unwrap();
    for s in 0..15u64 {
        assert_eq!(mem.read_u32(BASE + 8 * s).unwrap(), 100 + s as u32);
        assert_eq!(mem.read_u32(BASE + 8 * s + 4).unwrap(), 200 + s as u32);
    }
    // Slot 15 is masked by the header: memory keeps 1000 + dword index.
    assert_eq!(mem.read_u32(BASE + 120).unwrap(), 1000 + 30);
}

/// §3.9.9.10.6 / §3.9.9.11.7: SIMD8 untyped atomic add with return: the old values
/// come back, memory holds old + src0. Two slots hit the same dword: the second sees
/// the first's result.
#[test]
fn untyped_atomic_add_returns_old_values_in_slot_order() {
    let mut mem = memory();
    let msg = untyped(
        Access::Atomic {
            op: AtomicOp::Add,
            ret: true,
        },
        Simd::Simd8,
        [true, true, true, true],
        false,
    );
    let addr = reg([0, 0, 4, 0, 0, 0, 0, 0]);
    let src = reg([1, 2, 3, 0, 0, 0, 0, 0]);
    let r = run(
        &mut mem,
        msg,
        Some(raw_buffer(0x1000)),
        &[addr, src],
        0b111,
        1,
    )
    .unwrap();
    assert_eq!(dwords(&r.registers[0])[..3], [1000, 1001, 1001]);
    assert_eq!(r.written.unwrap(), vec![0b111]);
    assert_eq!(mem.read_u32(BASE).unwrap(), 1003);
    assert_eq!(mem.read_u32(BASE + 4).unwrap(), 1004);
}

/// AOP_CMPWR takes Source0 then Source1 (§3.9.9.10.6); AOP_INC takes no source, so the
/// address payload is the whole message.
#[test]
fn untyped_cmpwr_and_inc_payloads() {
    let mut mem = memory();
    let atomic = |op, ret| untyped(Access::Atomic { op, ret }, Simd::Simd8, [true; 4], false);
    let addr = reg([0, 4, 0, 0, 0, 0, 0, 0]);
    // Slot 0 compares 1000 (equal: writes 5); slot 1 compares 0 against 1001 (keeps).
    let r = run(
        &mut mem,
        atomic(AtomicOp::CmpWr, true),
        Some(raw_buffer(0x1000)),
        &[
            addr,
            reg([1000, 0, 0, 0, 0, 0, 0, 0]),
            reg([5, 6, 0, 0, 0, 0, 0, 0]),
        ],
        0b11,
        1,
    )
    .unwrap();
    assert_eq!(dwords(&r.registers[0])[..2], [1000, 1001]);
    assert_eq!(mem.read_u32(BASE).unwrap(), 5);
    assert_eq!(mem.read_u32(BASE + 4).unwrap(), 1001);
    let r = run(
        &mut mem,
        atomic(AtomicOp::Inc, false),
        Some(raw_buffer(0x1000)),
        &[addr],
        0b10,
        0,
    )
    .unwrap();
    assert!(r.registers.is_empty());
    assert_eq!(mem.read_u32(BASE + 4).unwrap(), 1002);
}

/// §3.9.9.10.9 / §3.9.9.11.4: SIMD4x2 read: slot 0's U in M1.0, slot 1's in M1.4; the
/// writeback holds slot 0's RGBA in W0.0-3 and slot 1's in W0.4-7; a slot whose four
/// mask bits are all clear is not written.
#[test]
fn untyped_simd4x2_read() {
    let mut mem = memory();
    let msg = untyped(
        Access::Read,
        Simd::Simd4x2,
        [true, true, false, true],
        false,
    );
    let addr = reg([32, 0, 0, 0, 64, 0, 0, 0]);
    let r = run(&mut mem, msg, Some(raw_buffer(0x1000)), &[addr], 0x0f, 1).unwrap();
    assert_eq!(r.written.unwrap(), vec![0b0000_1011]);
    let d = dwords(&r.registers[0]);
    assert_eq!([d[0], d[1], d[3]], [1008, 1009, 1011]);
}

/// Structured buffers: U × pitch + V (§3.9.9).
#[test]
fn untyped_structured_buffer_addressing() {
    let mut mem = memory();
    let msg = untyped(
        Access::Read,
        Simd::Simd8,
        [true, false, false, false],
        false,
    );
    let u = reg([3, 0, 0, 0, 0, 0, 0, 0]);
    let v = reg([8, 0, 0, 0, 0, 0, 0, 0]);
    let s = DataSurface::Structured {
        base: BASE,
        entries: 4,
        pitch: 24,
    };
    let r = run(&mut mem, msg, Some(s), &[u, v], 1, 1).unwrap();
    // 3·24 + 8 = 80 bytes = dword 20.
    assert_eq!(dwords(&r.registers[0])[0], 1020);
}

/// Gen9+ A64 OWord block reads (seed 003 MT1R_A64_B): the block at the graphics
/// address of the header's first qword, not at M0.2. Two OWords at BASE + 20: aligned,
/// the address is taken down to BASE + 16 (dwords 4-11: 1004-1011); unaligned, DWord
/// aligned, dwords 5-12 (1005-1012). M0.2 holds a decoy OWord offset.
#[test]
fn a64_oword_block_reads_take_the_headers_address() {
    let mut mem = memory();
    let addr = BASE + 20;
    let header = reg([addr as u32, (addr >> 32) as u32, 7, 0, 0, 0, 0, 0]);
    let msg = |unaligned| DataMessage {
        op: DataOp::OwordBlock {
            write: false,
            unaligned,
            owords: 2,
            high: false,
        },
        model: AddressModel::A64,
        header: true,
    };
    let r = run(&mut mem, msg(false), None, &[header], 0xffff, 1).unwrap();
    assert_eq!(
        dwords(&r.registers[0]),
        std::array::from_fn(|i| 1004 + i as u32)
    );
    let r = run(&mut mem, msg(true), None, &[header], 0xffff, 1).unwrap();
    assert_eq!(
        dwords(&r.registers[0]),
        std::array::from_fn(|i| 1005 + i as u32)
    );
}

/// §3.9.3: OWord Block Read of 4 OWords at Global Offset 2 (OWords): W0 = OWords 2, 3,
/// W1 = OWords 4, 5. The 1-OWord high form fills only the high half.
#[test]
fn oword_block_read_and_one_oword_high() {
    let mut mem = memory();
    let header = reg([0, 0, 2, 0, 0, 0, 0, 0]);
    let msg = |owords, high| DataMessage {
        op: DataOp::OwordBlock {
            write: false,
            unaligned: false,
            owords,
            high,
        },
        model: AddressModel::Surface(0),
        header: true,
    };
    let ubo = DataSurface::Buffer {
        base: BASE,
        entries: 64,
        format: SurfaceFormat::R32G32B32A32_FLOAT,
        any_format_reads: false,
        typed: None,
    };
    let r = run(&mut mem, msg(4, false), Some(ubo), &[header], 0xffff, 2).unwrap();
    assert_eq!(
        dwords(&r.registers[0]),
        std::array::from_fn(|i| 1008 + i as u32)
    );
    assert_eq!(
        dwords(&r.registers[1]),
        std::array::from_fn(|i| 1016 + i as u32)
    );
    let r = run(&mut mem, msg(1, true), Some(ubo), &[header], 0xffff, 1).unwrap();
    assert_eq!(r.written.unwrap(), vec![0xf0]);
    assert_eq!(dwords(&r.registers[0])[4..], [1008, 1009, 1010, 1011]);
    // 64 entries of 16 bytes: OWord 64 is out of bounds.
    let far = reg([0, 0, 63, 0, 0, 0, 0, 0]);
    let r = run(&mut mem, msg(2, false), Some(ubo), &[far], 0xffff, 1).unwrap();
    assert_eq!(
        dwords(&r.registers[0]),
        [1252, 1253, 1254, 1255, 0, 0, 0, 0]
    );
}

/// §3.9.5: dual block read, Block Offset 0 in M1.0 and 1 in M1.4 plus Global Offset:
/// W0 low = OWord[O0], high = OWord[O1].
#[test]
fn oword_dual_block_read_and_write() {
    let mut mem = memory();
    let header = reg([0, 0, 1, 0, 0, 0, 0, 0]);
    let offsets = reg([0, 0, 0, 0, 3, 0, 0, 0]);
    let msg = |write| DataMessage {
        op: DataOp::OwordDualBlock { write, owords: 1 },
        model: AddressModel::Surface(0),
        header: true,
    };
    let r = run(
        &mut mem,
        msg(false),
        Some(raw_buffer(0x1000)),
        &[header, offsets],
        0xff,
        1,
    )
    .unwrap();
    assert_eq!(
        dwords(&r.registers[0]),
        [1004, 1005, 1006, 1007, 1016, 1017, 1018, 1019]
    );
    // Write with dword 1 and 6 disabled.
    let data = reg([1, 2, 3, 4, 5, 6, 7, 8]);
    run(
        &mut mem,
        msg(true),
        Some(raw_buffer(0x1000)),
        &[header, offsets, data],
        0b1011_1101,
        0,
    )
    .unwrap();
    assert_eq!(mem.read_dwords(BASE + 16, 4).unwrap(), vec![1, 1005, 3, 4]);
    assert_eq!(mem.read_dwords(BASE + 64, 4).unwrap(), vec![5, 6, 1018, 8]);
}

/// §3.9.7: DWord scattered read, SIMD16: Offset n in DWords plus Global Offset.
#[test]
fn dword_scattered_read_simd16() {
    let mut mem = memory();
    let header = reg([0, 0, 10, 0, 0, 0, 0, 0]);
    let lo = reg(std::array::from_fn(|s| 2 * s as u32));
    let hi = reg(std::array::from_fn(|s| 2 * (s as u32 + 8)));
    let msg = DataMessage {
        op: DataOp::DwordScattered {
            write: false,
            slots: 16,
        },
        model: AddressModel::Surface(0),
        header: true,
    };
    let r = run(
        &mut mem,
        msg,
        Some(raw_buffer(0x1000)),
        &[header, lo, hi],
        0xffff,
        2,
    )
    .unwrap();
    assert_eq!(dwords(&r.registers[0])[1], 1012);
    assert_eq!(dwords(&r.registers[1])[7], 1000 + 10 + 30);
}

/// §3.9.8: byte scattered write of 2-byte elements at odd byte offsets; the read
/// returns them right-justified.
#[test]
fn byte_scattered_write_and_read() {
    let mut mem = memory();
    let msg = |write| DataMessage {
        op: DataOp::ByteScattered {
            write,
            slots: 8,
            bytes: 2,
        },
        model: AddressModel::Surface(0),
        header: false,
    };
    let offs = reg([1, 5, 0, 0, 0, 0, 0, 0]);
    run(
        &mut mem,
        msg(true),
        Some(raw_buffer(0x1000)),
        &[offs, reg([0xaabb_ccdd, 0x1234, 0, 0, 0, 0, 0, 0])],
        0b11,
        0,
    )
    .unwrap();
    // 1000 = 0x3e8: bytes e8 03 00 00; bytes 1-2 become dd cc.
    assert_eq!(mem.read_u32(BASE).unwrap(), 0x00cc_dde8);
    let r = run(
        &mut mem,
        msg(false),
        Some(raw_buffer(0x1000)),
        &[offs],
        0b11,
        1,
    )
    .unwrap();
    assert_eq!(dwords(&r.registers[0])[..2], [0xccdd, 0x1234]);
}

/// §3.9.10 with §3.2.2: scratch at General State Base + M0.5 31:10 + Offset·32; the
/// FFTID in M0.5's low bits is not part of the address. Dword mode: a write of two
/// registers with the high 8 mask bits clear writes only the first.
#[test]
fn scratch_block_write_then_read() {
    let mut mem = memory();
    let header = reg([0, 0, 0, 0, 0, 0x400 | 7, 0, 0]);
    let msg = |write, regs| DataMessage {
        op: DataOp::ScratchBlock {
            write,
            dword_mode: true,
            regs,
            offset: 2,
        },
        model: AddressModel::Stateless,
        header: true,
    };
    let a = reg([1; 8]);
    let b = reg([2; 8]);
    run(&mut mem, msg(true, 2), None, &[header, a, b], 0x00ff, 0).unwrap();
    let at = BASE + 0x400 + 64;
    assert_eq!(mem.read_dwords(at, 8).unwrap(), vec![1; 8]);
    assert_eq!(mem.read_u32(at + 32).unwrap(), 1000 + (0x400 + 96) / 4);
    let r = run(&mut mem, msg(false, 1), None, &[header], 0xffff, 1).unwrap();
    assert_eq!(dwords(&r.registers[0]), [1; 8]);
    // Without a header the stateless model has no base: an error, not a guess.
    let e = run(
        &mut mem,
        DataMessage {
            header: false,
            ..msg(false, 1)
        },
        None,
        &[a],
        0xff,
        1,
    );
    assert_invalid(
        e,
        "a stateless data port message without its header (the Immediate Buffer Base Address)",
    );
}

/// The stateless model's bound is General State Access Upper Bound.
#[test]
fn stateless_bound_is_the_general_state_upper_bound() {
    let mut mem = memory();
    let payload: Payload = [reg([0, 0, 0, 0, 0, 0x400, 0, 0])].into_iter().collect();
    let msg = DataMessage {
        op: DataOp::ScratchBlock {
            write: false,
            dword_mode: true,
            regs: 1,
            offset: 0,
        },
        model: AddressModel::Stateless,
        header: true,
    };
    let mut t = Target {
        mem: &mut mem,
        surface: None,
        general: GeneralState {
            base: BASE,
            bound: Some(BASE + 0x410),
        },
        slm: None,
        color_processing: None,
    };
    let r = execute(&msg, &payload, 0xff, 1, &mut t).unwrap();
    assert_eq!(dwords(&r.registers[0]), [0; 8]);
}

/// §3.2.3: SLM through untyped messages, wrapping at 64 KiB; other messages refuse
/// binding table index 254.
#[test]
fn slm_untyped_access_wraps_at_64k() {
    let mut mem = memory();
    let mut slm = vec![0u8; SLM_BYTES];
    let write = DataMessage {
        model: AddressModel::Slm,
        ..untyped(
            Access::Write,
            Simd::Simd8,
            [true, false, false, false],
            false,
        )
    };
    let payload: Payload = [reg([0x1_0004, 0, 0, 0, 0, 0, 0, 0]), reg([42; 8])]
        .into_iter()
        .collect();
    let mut t = Target {
        mem: &mut mem,
        surface: None,
        general: GeneralState::default(),
        slm: Some(&mut slm),
        color_processing: None,
    };
    execute(&write, &payload, 1, 0, &mut t).unwrap();
    assert_eq!(slm[4..8], 42u32.to_le_bytes());
    let block = DataMessage {
        op: DataOp::DwordScattered {
            write: false,
            slots: 8,
        },
        model: AddressModel::Slm,
        header: false,
    };
    let mut t = Target {
        mem: &mut mem,
        surface: None,
        general: GeneralState::default(),
        slm: Some(&mut slm),
        color_processing: None,
    };
    assert_invalid(
        execute(&block, &payload, 1, 1, &mut t),
        "shared local memory (binding table index 254) takes only Byte Scattered and the untyped messages",
    );
}

/// A linear, single-level 2D `format` surface of `width` x `height` at `BASE`.
fn surface_2d(format: SurfaceFormat, width: u32, height: u32, pitch: u64) -> DataSurface {
    let desc = SurfaceDesc {
        ty: SurfaceType::D2,
        width,
        height,
        depth: 1,
        levels: 1,
        samples: 1,
        msaa_layout: MsaaLayout::Array,
        halign: 4,
        valign: 2,
        array_spacing: ArraySpacing::Full,
        block: (1, 1),
        block_bytes: 1,
        tiling: Tiling::Linear,
        pitch,
        origin: (0, 0),
    };
    DataSurface::Image {
        surface: Surface::new(BASE, desc, format).unwrap(),
        array: false,
        view: ImageView {
            base_level: 0,
            levels: 1,
            base_slice: 0,
            ..Default::default()
        },
    }
}

fn image(format: SurfaceFormat, width: u32, height: u32) -> DataSurface {
    surface_2d(format, width, height, u64::from(width) * 4)
}

fn typed(access: Access, high: bool, channels: [bool; 4]) -> DataMessage {
    DataMessage {
        op: DataOp::Typed {
            access,
            high,
            channels,
        },
        model: AddressModel::Surface(2),
        header: true,
    }
}

/// §3.9.9.10.7: a typed write of float data to R8G8B8A8_UNORM converts (0.5 → 128,
/// round to nearest even of 127.5); (U, V) = (x, y) on a 2D surface with a 16-byte
/// pitch.
#[test]
fn typed_write_converts_to_the_surface_format() {
    let mut mem = memory();
    let header = reg([0, 0, 0, 0, 0, 0, 0, 0xffff]);
    let u = reg([1, 0, 0, 0, 0, 0, 0, 0]);
    let v = reg([2, 0, 0, 0, 0, 0, 0, 0]);
    let f = |x: f32| reg([x.to_bits(); 8]);
    let msg = typed(Access::Write, false, [true; 4]);
    run(
        &mut mem,
        msg,
        Some(image(SurfaceFormat::R8G8B8A8_UNORM, 4, 4)),
        &[header, u, v, f(1.0), f(0.0), f(0.5), f(0.25)],
        1,
        0,
    )
    .unwrap();
    // (1, 2): 2·16 + 4 = 36 bytes.
    assert_eq!(mem.read_u32(BASE + 36).unwrap(), 0x40_80_00_ff);
}

/// Typed reads take R32 formats; the Slot Group picks the high 8 mask bits; out of
/// bounds returns zero (the seed's errata).
#[test]
fn typed_read_slot_group_and_bounds() {
    let mut mem = memory();
    let header = reg([0, 0, 0, 0, 0, 0, 0, 0xffff]);
    let u = reg([1, 9, 0, 0, 0, 0, 0, 0]);
    let v = reg([0; 8]);
    let msg = typed(Access::Read, true, [true, false, false, false]);
    let r = run(
        &mut mem,
        msg,
        Some(image(SurfaceFormat::R32_UINT, 4, 4)),
        &[header, u, v],
        0x0300,
        1,
    )
    .unwrap();
    assert_eq!(r.written.unwrap(), vec![0b11]);
    assert_eq!(dwords(&r.registers[0])[..2], [1001, 0]);
    // RGBA8 is not a typed read format.
    let e = run(
        &mut mem,
        msg,
        Some(image(SurfaceFormat::R8G8B8A8_UNORM, 4, 4)),
        &[header, u, v],
        0x0300,
        1,
    );
    assert_invalid(e, "a typed surface read of a R8G8B8A8_UNORM surface");
}

/// An array view from Minimum Array Element 2 with two elements (Depth 1), over a
/// layout of four 4x4 R32_UINT slices of 64 bytes (LOD0 spacing: QPitch 4 rows of 16
/// bytes; the fronts lay an array out up to
/// Minimum Array Element + Depth): the array index "is added to" Minimum Array Element
/// (seed 000 §2.12.2), so index 1 reads slice 3, texel (1, 0) at dword 16 · 3 + 1
/// (1049); index 2 is past the view and reads zero (§3.9 "Out-of-Bounds Accesses"),
/// as a read of slice 4 would, which the layout does not have.
#[test]
fn typed_array_reads_count_from_the_minimum_array_element() {
    let mut mem = memory();
    let mut surface = surface_2d(SurfaceFormat::R32_UINT, 4, 4, 16);
    if let DataSurface::Image {
        surface,
        array,
        view,
        ..
    } = &mut surface
    {
        *surface = Surface::new(
            BASE,
            SurfaceDesc {
                depth: 4,
                block_bytes: 4,
                array_spacing: ArraySpacing::Lod0,
                ..surface.desc
            },
            SurfaceFormat::R32_UINT,
        )
        .unwrap();
        *array = true;
        view.base_slice = 2;
    }
    let header = reg([0, 0, 0, 0, 0, 0, 0, 0xffff]);
    let u = reg([1, 1, 0, 0, 0, 0, 0, 0]);
    let v = reg([0; 8]);
    let r = reg([1, 2, 0, 0, 0, 0, 0, 0]);
    let msg = typed(Access::Read, false, [true, false, false, false]);
    let got = run(&mut mem, msg, Some(surface), &[header, u, v, r], 0x03, 1).unwrap();
    assert_eq!(dwords(&got.registers[0])[..2], [1049, 0]);
}

/// Typed atomics on R32_UINT (§3.9.9.3): AOP_UMAX returns the old value.
#[test]
fn typed_atomic_umax() {
    let mut mem = memory();
    let header = reg([0, 0, 0, 0, 0, 0, 0, 0xff]);
    let u = reg([0, 1, 0, 0, 0, 0, 0, 0]);
    let v = reg([1, 1, 0, 0, 0, 0, 0, 0]);
    let src = reg([5000, 7, 0, 0, 0, 0, 0, 0]);
    let msg = typed(
        Access::Atomic {
            op: AtomicOp::UMax,
            ret: true,
        },
        false,
        [true; 4],
    );
    let r = run(
        &mut mem,
        msg,
        Some(image(SurfaceFormat::R32_UINT, 4, 4)),
        &[header, u, v, src],
        0b11,
        1,
    )
    .unwrap();
    // (0, 1) is dword 4, (1, 1) dword 5.
    assert_eq!(dwords(&r.registers[0])[..2], [1004, 1005]);
    assert_eq!(mem.read_u32(BASE + 16).unwrap(), 5000);
    assert_eq!(mem.read_u32(BASE + 20).unwrap(), 1005);
}

/// A memory fence with Commit Enable returns one register.
#[test]
fn fence_commit_returns_one_register() {
    let mut mem = memory();
    let msg = DataMessage {
        op: DataOp::Fence { commit: true },
        model: AddressModel::Surface(0),
        header: true,
    };
    let r = run(&mut mem, msg, None, &[reg([0; 8])], 0xff, 1).unwrap();
    assert_eq!(r.registers.len(), 1);
}

/// A typed read of an R16_UINT surface (which Mesa's Ivy Bridge image lowering relies
/// on) returns the texel in the low bits: texel 0 is bytes 0-1, texel 2 bytes 4-5.
#[test]
fn typed_read_of_r16_uint_returns_the_texel() {
    let mut mem = memory();
    let s = surface_2d(SurfaceFormat::R16_UINT, 8, 2, 16);
    let header = reg([0, 0, 0, 0, 0, 0, 0, 0xff]);
    let r = run(
        &mut mem,
        typed(Access::Read, false, [true, false, false, false]),
        Some(s),
        &[header, reg([0, 2, 0, 0, 0, 0, 0, 0]), reg([0; 8])],
        0b11,
        1,
    )
    .unwrap();
    // Dword 0 = 1000 = 0x3e8 (bytes e8 03 00 00), dword 1 = 1001 (e9 03 00 00).
    assert_eq!(dwords(&r.registers[0])[..2], [0x3e8, 0x3e9]);
}

pub(super) fn r8_surface(width: u32, height: u32, format: SurfaceFormat) -> DataSurface {
    surface_2d(format, width, height, 64)
}

/// A data port 1 media block message with the Gen8+ header (seed 003 MH_MB).
fn media_gen8(write: bool) -> DataMessage {
    DataMessage {
        op: DataOp::MediaBlock {
            write,
            stride_override: None,
            render_cache: false,
            normal_header: true,
        },
        model: AddressModel::Surface(3),
        header: true,
    }
}

pub(super) fn media(write: bool) -> DataMessage {
    DataMessage {
        op: DataOp::MediaBlock {
            write,
            stride_override: None,
            render_cache: true,
            normal_header: false,
        },
        model: AddressModel::Surface(3),
        header: true,
    }
}

/// §3.9.6: a 4x2 block of an 8-bit surface read at X -2, Y -1: the rows clamp to row 0
/// and the left bytes replicate the edge byte ("B0B0B0B0"); rows sit at the base pitch
/// (4 bytes). A 16-bit surface replicates its edge word (B0B1B0B1). Past the right
/// edge (Width in DWords: 4 DWords = 16 bytes) the last byte replicates.
#[test]
fn media_block_read_clamps_to_the_edge_pixel() {
    let mut mem = memory();
    // Row y of the surface starts at BASE + 64y; its bytes are those of dwords
    // 1000 + 16y, ...: row 0 = e8 03 00 00 e9 03 00 00 ...
    let header = |x: i32, y: i32, w: u32, h: u32| {
        reg([x as u32, y as u32, (h - 1) << 16 | (w - 1), 0, 0, 0, 0, 0])
    };
    let r = run(
        &mut mem,
        media(false),
        Some(r8_surface(16, 4, SurfaceFormat::R8_UINT)),
        &[header(-2, -1, 4, 2)],
        0,
        1,
    )
    .unwrap();
    let b = r.registers[0];
    // Row -1 (clamped to 0) and row 0: bytes -2, -1, 0, 1 = e8 e8 e8 03.
    assert_eq!(b[..8], [0xe8, 0xe8, 0xe8, 0x03, 0xe8, 0xe8, 0xe8, 0x03]);
    // 16-bit pixels at X -4: two edge words, then pixels 0 and 1... of 4 bytes: words
    // (e8 03) (e8 03).
    let r = run(
        &mut mem,
        media(false),
        Some(r8_surface(16, 4, SurfaceFormat::R16_UINT)),
        &[header(-4, 1, 8, 1)],
        0,
        1,
    )
    .unwrap();
    // Row 1 starts with dword 1016 = 0x3f8: f8 03 00 00.
    assert_eq!(
        r.registers[0][..8],
        [0xf8, 0x03, 0xf8, 0x03, 0xf8, 0x03, 0x00, 0x00]
    );
    // An R8 surface of Width 4 DWords is 16 bytes wide: bytes 14..17 of row 0 are the
    // bytes of dword 1003 (0x3eb: eb 03 00 00) at 12..15, so 14, 15 = 00 00, then byte 15
    // replicated.
    let r = run(
        &mut mem,
        media(false),
        Some(r8_surface(4, 4, SurfaceFormat::R8_UINT)),
        &[header(14, 0, 4, 1)],
        0,
        1,
    )
    .unwrap();
    assert_eq!(r.registers[0][..4], [0x00, 0x00, 0x00, 0x00]);
    let r = run(
        &mut mem,
        media(false),
        Some(r8_surface(4, 4, SurfaceFormat::R8_UINT)),
        &[header(12, 0, 8, 1)],
        0,
        1,
    )
    .unwrap();
    assert_eq!(
        r.registers[0][..8],
        [0xeb, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
    );
}

/// §3.6.2: "For a boundary dword Y0U0Y1V0, to replicate the left boundary, we get
/// Y0U0Y0V0, and to replicate the right boundary, we get Y1U0Y1V0"; for U0Y0V0Y1,
/// U0Y0V0Y0 and U0Y1V0Y1. A row of two dwords (Width 2 DWords, 4 pixels) read from X −4
/// to X 11.
#[test]
fn media_block_read_replicates_ycrcb_boundary_luma() {
    for (format, row, expect) in [
        (
            SurfaceFormat::YCRCB_NORMAL,
            [10u8, 20, 11, 30, 12, 21, 13, 31],
            [
                10u8, 20, 10, 30, 10, 20, 11, 30, 12, 21, 13, 31, 13, 21, 13, 31,
            ],
        ),
        (
            SurfaceFormat::YCRCB_SWAPY,
            [20, 10, 30, 11, 21, 12, 31, 13],
            [
                20, 10, 30, 10, 20, 10, 30, 11, 21, 12, 31, 13, 21, 13, 31, 13,
            ],
        ),
    ] {
        let mut mem = memory();
        mem.write(BASE, &row).unwrap();
        let header = reg([(-4i32) as u32, 0, 15, 0, 0, 0, 0, 0]);
        let r = run(
            &mut mem,
            media(false),
            Some(r8_surface(2, 1, format)),
            &[header],
            0,
            1,
        )
        .unwrap();
        assert_eq!(r.registers[0][..16], expect, "{format:?}");
    }
}

/// A write lands inside the surface and drops what falls outside; X and the width must
/// be DWord aligned. The surface's Width counts DWords for media block messages (seed
/// 000 RENDER_SURFACE_STATE Width, L2239-2240): Width 2 is 8 bytes of an R8 surface.
#[test]
fn media_block_write_drops_what_is_outside() {
    let mut mem = memory();
    let s = r8_surface(2, 2, SurfaceFormat::R8_UINT);
    // 8 bytes wide (pitch 8), 1 row, at X 4 of an 8-byte-wide surface: bytes 4-7 land.
    let header = reg([4, 1, 7, 0, 0, 0, 0, 0]);
    let data = reg([0x4433_2211, 0x8877_6655, 0, 0, 0, 0, 0, 0]);
    run(&mut mem, media(true), Some(s), &[header, data], 0, 0).unwrap();
    assert_eq!(mem.read_u32(BASE + 64 + 4).unwrap(), 0x4433_2211);
    // Byte 8 of the row is outside the 8-byte-wide surface: untouched.
    assert_eq!(mem.read_u32(BASE + 64 + 8).unwrap(), 1000 + 18);
    let misaligned = reg([2, 0, 3, 0, 0, 0, 0, 0]);
    // X 2, M0.2 width field 3: 4 bytes wide at a byte offset that is not a DWord's.
    assert_invalid(
        run(&mut mem, media(true), Some(s), &[misaligned, data], 0, 0),
        "a media block write at X offset 2, 4 bytes wide: both must be DWord aligned",
    );
    // Intel's VA driver's NV12 luma target: R8_UINT, Width 16 DWords for a 64-byte row:
    // a write at X 60 lands its 4 bytes (the old pixel rule kept 16 bytes of the row).
    let s = r8_surface(16, 2, SurfaceFormat::R8_UINT);
    let header = reg([60, 0, 3, 0, 0, 0, 0, 0]);
    run(&mut mem, media(true), Some(s), &[header, data], 0, 0).unwrap();
    assert_eq!(mem.read_u32(BASE + 60).unwrap(), 0x4433_2211);
}

/// A media block message addresses the surface from its origin (RENDER_SURFACE_STATE X
/// Offset and Y Offset, `SurfaceDesc::origin`): with the origin at pixel (8, 1) of an R8
/// surface of pitch 64, block byte (0, 0) is byte 64 + 8, dword 18 of `memory()`, 1018
/// (fa 03 00 00); a write at (4, 0) lands at byte 64 + 12.
#[test]
fn media_block_messages_start_at_the_surface_origin() {
    let mut mem = memory();
    let mut s = r8_surface(4, 2, SurfaceFormat::R8_UINT);
    let DataSurface::Image { surface, .. } = &mut s else {
        unreachable!("an image");
    };
    surface.desc.origin = (8, 1);
    let r = run(
        &mut mem,
        media(false),
        Some(s),
        &[reg([0, 0, 3, 0, 0, 0, 0, 0])],
        0,
        1,
    )
    .unwrap();
    assert_eq!(r.registers[0][..4], [0xfa, 0x03, 0x00, 0x00]);
    let data = reg([0x4433_2211, 0, 0, 0, 0, 0, 0, 0]);
    run(
        &mut mem,
        media(true),
        Some(s),
        &[reg([4, 0, 3, 0, 0, 0, 0, 0]), data],
        0,
        0,
    )
    .unwrap();
    assert_eq!(mem.read_u32(BASE + 64 + 12).unwrap(), 0x4433_2211);
}

/// The Gen8+ media block header (seed 003 MH_MB, MHC_MB_CONTROL): M0.2 5:0 the Block
/// Width, "Range = [0,63] representing 1 to 64 Bytes" for a Normal write, whose rows
/// then sit at a 64-byte pitch in the payload (two registers a row); M0.3 is the Mask,
/// "ignored by the Normal Media Block message", so a value there is neither the Gen7
/// PIXEL_MASK mode nor colour processing; Sub-Register Offset and Register Pitch
/// Control are "ignored (reserved) for a media block write"; a read is at most 32 bytes
/// wide, and Message Mode 1-3 is reserved.
#[test]
fn gen8_media_block_headers_write_64_byte_rows_and_ignore_the_mask() {
    let mut mem = memory();
    let s = r8_surface(16, 4, SurfaceFormat::R8_UINT);
    // 64 bytes wide (width field 63), one row, at row 2; the Mask (M0.3) and a
    // Sub-Register Offset (M0.2 28:24) set, both ignored by a write.
    let header = reg([0, 2, 1 << 24 | 63, 0x11, 0, 0, 0, 0]);
    let lo = reg(std::array::from_fn(|i| 0x1000_0000 + i as u32));
    let hi = reg(std::array::from_fn(|i| 0x2000_0000 + i as u32));
    run(&mut mem, media_gen8(true), Some(s), &[header, lo, hi], 0, 0).unwrap();
    for i in 0..8u64 {
        assert_eq!(
            mem.read_u32(BASE + 128 + 4 * i).unwrap(),
            0x1000_0000 + i as u32
        );
        assert_eq!(
            mem.read_u32(BASE + 160 + 4 * i).unwrap(),
            0x2000_0000 + i as u32
        );
    }
    // Reads: 32 bytes at most, and the Mask does not select PIXEL_MASK.
    let r = run(
        &mut mem,
        media_gen8(false),
        Some(s),
        &[reg([0, 2, 31, 0x10, 0, 0, 0, 0])],
        0,
        1,
    )
    .unwrap();
    assert_eq!(r.registers[0][..4], 0x1000_0000u32.to_le_bytes());
    assert_invalid(
        run(
            &mut mem,
            media_gen8(false),
            Some(s),
            &[reg([0, 2, 32, 0, 0, 0, 0, 0])],
            0,
            2,
        ),
        "a media block read 33 bytes wide",
    );
    assert_invalid(
        run(
            &mut mem,
            media_gen8(false),
            Some(s),
            &[reg([0, 2, 1 << 30 | 3, 0, 0, 0, 0, 0])],
            0,
            1,
        ),
        "media block Message Mode 1 is reserved",
    );
}

/// Hostile Gen8+ media block messages (random offsets, controls, masks and payload
/// lengths, reads and writes) end in a response or a typed error, never a panic; every
/// fourth is a sane write and read of a block inside the surface, which must complete.
/// `GTSIM_FUZZ_SEED` and `GTSIM_FUZZ_CASES` as every harness.
#[test]
fn hostile_gen8_media_block_messages_end_in_a_result_or_a_typed_error() {
    let mut rng = gtsim_fuzzkit::Rng::new(gtsim_fuzzkit::seed(0x6d62_0008));
    let s = r8_surface(16, 4, SurfaceFormat::R8_UINT);
    for case in 0..gtsim_fuzzkit::cases(500) {
        let mut mem = memory();
        let sane = case % 4 == 0;
        let write = sane || rng.below(2) == 0;
        let header = if sane {
            // Up to 16 bytes by 2 rows at a DWord-aligned place inside 64x4.
            reg([
                4 * rng.below(12) as u32,
                rng.below(3) as u32,
                1 << 16 | 15,
                0,
                0,
                0,
                0,
                0,
            ])
        } else {
            let mut h = [0u32; 8];
            for d in &mut h[..4] {
                *d = rng.next_u64() as u32;
            }
            if rng.below(2) == 0 {
                // Small offsets, so that many reach the surface.
                h[0] %= 96;
                h[1] %= 8;
                h[2] &= 0xc03f_033f;
            }
            reg(h)
        };
        let data = reg(std::array::from_fn(|i| rng.next_u64() as u32 ^ i as u32));
        let regs = if sane { 1 } else { rng.below(4) };
        let mut payload = vec![header];
        payload.extend(std::iter::repeat_n(data, regs));
        let r = run(&mut mem, media_gen8(write), Some(s), &payload, 0, 0);
        if sane {
            assert!(r.is_ok(), "case {case}: a sane write failed: {r:?}");
            let back = run(&mut mem, media_gen8(false), Some(s), &[header], 0, 1);
            assert!(back.is_ok(), "case {case}: a sane read failed: {back:?}");
        }
    }
}

fn a64(access: Access, simd: Simd, channels: [bool; 4]) -> DataMessage {
    DataMessage {
        op: DataOp::Untyped {
            access,
            simd,
            channels,
        },
        model: AddressModel::A64,
        header: false,
    }
}

/// A64 untyped messages (seed 003 MT1R_A64_US / MT1W_A64_US): each slot's graphics
/// address is a qword, four to a register (slot s: register s/4, dwords 2(s%4) and
/// 2(s%4)+1), data after the two (SIMD8) address registers. A SIMD8 write of R and G
/// to BASE + 8s, then a read of R back; a slot masked off writes nothing.
#[test]
fn a64_untyped_write_and_read_address_graphics_memory() {
    let mut mem = memory();
    let addrs = |first: usize| {
        reg(std::array::from_fn(|d| {
            let s = (first + d / 2) as u64;
            let a = BASE + 8 * s;
            if d % 2 == 0 {
                a as u32
            } else {
                (a >> 32) as u32
            }
        }))
    };
    let red = reg(std::array::from_fn(|s| 500 + s as u32));
    let green = reg(std::array::from_fn(|s| 600 + s as u32));
    let msg = a64(Access::Write, Simd::Simd8, [true, true, false, false]);
    run(
        &mut mem,
        msg,
        None,
        &[addrs(0), addrs(4), red, green],
        0x7f,
        0,
    )
    .unwrap();
    for s in 0..7u64 {
        assert_eq!(mem.read_u32(BASE + 8 * s).unwrap(), 500 + s as u32);
        assert_eq!(mem.read_u32(BASE + 8 * s + 4).unwrap(), 600 + s as u32);
    }
    // Slot 7 was masked: memory keeps 1000 + dword index.
    assert_eq!(mem.read_u32(BASE + 56).unwrap(), 1014);
    let msg = a64(Access::Read, Simd::Simd8, [true, false, false, false]);
    let r = run(&mut mem, msg, None, &[addrs(0), addrs(4)], 0xff, 1).unwrap();
    assert_eq!(
        dwords(&r.registers[0]),
        [500, 501, 502, 503, 504, 505, 506, 1014]
    );
    // An address outside mapped memory is a fault, with its address.
    let far = reg([0, 0x10, 0, 0, 0, 0, 0, 0]);
    let msg = a64(Access::Read, Simd::Simd8, [true, false, false, false]);
    let e = run(&mut mem, msg, None, &[far, far], 1, 1).unwrap_err();
    assert_eq!(e.fault().map(|f| f.addr), Some(0x10_0000_0000), "{e}");
}
