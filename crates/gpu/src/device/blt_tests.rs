//! The blitter ring (IVB PRM Vol1 Part4): hand-assembled XY_COLOR_BLT and
//! XY_SRC_COPY_BLT batches (dword 0 = 2 << 29 | opcode << 22 | flags | length, as Linux
//! i915's XY_COLOR_BLT_CMD and XY_SRC_COPY_BLT_CMD), and the bytes they must leave.

use super::*;
use gtsim_mem::AddressSpace;

const BATCH: u64 = 0x10000;
const DST: u64 = 0x20000;
const SRC: u64 = 0x30000;
const END: u32 = 0x0500_0000;

fn run_on(ring: Ring, batch: &[u32], mem: &mut AddressSpace) -> Result<SubmitReport, Hang> {
    let bytes: Vec<u8> = batch.iter().flat_map(|d| d.to_le_bytes()).collect();
    mem.write(BATCH, &bytes).unwrap();
    Device::new().submit_on(ring, 1, BATCH, mem)
}

fn memory() -> AddressSpace {
    let mut mem = AddressSpace::new();
    mem.map(BATCH, 0x30000);
    mem
}

fn read(mem: &AddressSpace, at: u64, n: usize) -> Vec<u8> {
    let mut b = vec![0; n];
    mem.read(at, &mut b).unwrap();
    b
}

/// XY_COLOR_BLT: DW0 0x54000004 | flags, BR13, (y1, x1), (y2, x2), address, colour.
fn color_blt(
    flags: u32,
    br13: u32,
    (x1, y1): (u32, u32),
    (x2, y2): (u32, u32),
    colour: u32,
) -> Vec<u32> {
    vec![
        0x5400_0004 | flags,
        br13,
        y1 << 16 | x1,
        y2 << 16 | x2,
        DST as u32,
        colour,
    ]
}

#[test]
fn xy_color_blt_fills_the_rectangle_and_nothing_else() {
    // The VA driver's clear of an NV12 surface's Y plane: 8-bit, PATCOPY (0xF0), pitch
    // 64; here the rectangle x 2..5, y 1..3 with 0x10.
    let mut mem = memory();
    let batch = [
        color_blt(0, 0xf0 << 16 | 64, (2, 1), (5, 3), 0x10),
        vec![END],
    ]
    .concat();
    let r = run_on(Ring::Blitter, &batch, &mut mem).unwrap();
    assert_eq!(r.blits, 1);
    for y in 0..4u64 {
        let row = read(&mem, DST + 64 * y, 8);
        let inside = |x: usize| (1..3).contains(&y) && (2..5).contains(&x);
        let expect: Vec<u8> = (0..8).map(|x| if inside(x) { 0x10 } else { 0 }).collect();
        assert_eq!(row, expect, "row {y}");
    }
    // 16-bit (its UV plane, 0x8080 per pair) and 32-bit with only the RGB bytes
    // (bit 20), the alpha byte kept.
    let mut mem = memory();
    mem.write(DST, &[9; 16]).unwrap();
    let batch = [
        color_blt(0, 1 << 24 | 0xf0 << 16 | 64, (0, 0), (2, 1), 0x8080),
        vec![END],
    ]
    .concat();
    run_on(Ring::Blitter, &batch, &mut mem).unwrap();
    assert_eq!(read(&mem, DST, 6), [0x80, 0x80, 0x80, 0x80, 9, 9]);
    let batch = [
        color_blt(
            1 << 20,
            3 << 24 | 0xf0 << 16 | 64,
            (1, 0),
            (2, 1),
            0x1122_3344,
        ),
        vec![END],
    ]
    .concat();
    run_on(Ring::Blitter, &batch, &mut mem).unwrap();
    assert_eq!(read(&mem, DST + 4, 4), [0x44, 0x33, 0x22, 9]);
}

#[test]
fn a_tiled_destination_is_x_major_with_its_pitch_in_dwords() {
    // Tiling Enable (bit 11), pitch 256 dwords = 1024 bytes: two X tiles (512 bytes by
    // 8 rows, 4 KiB each) per row of tiles. Byte x of row y is at (y / 8) · 8192 +
    // (x / 512) · 4096 + (y % 8) · 512 + x % 512: (3, 9) is 8192 + 512 + 3 = 8707, where
    // a linear surface would have it at 9 · 1024 + 3 = 9219.
    let mut mem = memory();
    let batch = [
        color_blt(1 << 11, 0xf0 << 16 | 256, (3, 9), (4, 10), 0x77),
        vec![END],
    ]
    .concat();
    run_on(Ring::Blitter, &batch, &mut mem).unwrap();
    assert_eq!(read(&mem, DST + 8707, 1), [0x77]);
    assert_eq!(
        read(&mem, DST + 9219, 1),
        [0],
        "not where a linear row would be"
    );
}

#[test]
fn xy_src_copy_blt_copies_a_rectangle() {
    // 16-bit pixels, SRCCOPY (0xCC): source (1, 2) of a 32-byte-pitch surface to
    // destination (0, 0) of a 64-byte-pitch one, 2 x 2 pixels.
    let mut mem = memory();
    for y in 0..4u64 {
        let row: Vec<u8> = (0..32).map(|x| (16 * y + x) as u8).collect();
        mem.write(SRC + 32 * y, &row).unwrap();
    }
    let batch = [
        0x54c0_0006,
        1 << 24 | 0xcc << 16 | 64,
        0,
        2 << 16 | 2,
        DST as u32,
        2 << 16 | 1,
        32,
        SRC as u32,
        END,
    ];
    let r = run_on(Ring::Blitter, &batch, &mut mem).unwrap();
    assert_eq!(r.blits, 1);
    // Source row 2 from byte 2: 34, 35, 36, 37; row 3: 50, 51, 52, 53.
    assert_eq!(read(&mem, DST, 4), [34, 35, 36, 37]);
    assert_eq!(read(&mem, DST + 64, 4), [50, 51, 52, 53]);
    assert_eq!(read(&mem, DST + 4, 1), [0]);
}

#[test]
fn mi_flush_dw_on_the_blitter_ring_writes_its_post_sync_data() {
    // MI_FLUSH_DW, DWord Length 1, Post Sync Operation Write Immediate Data (15:14 =
    // 01b): the dword at the address.
    let mut mem = memory();
    let batch = [0x1300_0001 | 1 << 14, DST as u32, 0xcafe_f00d, END];
    run_on(Ring::Blitter, &batch, &mut mem).unwrap();
    assert_eq!(mem.read_u32(DST).unwrap(), 0xcafe_f00d);
}

#[test]
fn linear_rows_run_past_the_pitch_and_reserved_values_are_refused() {
    // A linear row is `pitch` bytes after the one above, whatever the rectangle's width:
    // 8-bit, pitch 16, x 14..18 of row 1 writes bytes 30..34 (into row 2's start).
    let mut mem = memory();
    let batch = [
        color_blt(0, 0xf0 << 16 | 16, (14, 1), (18, 2), 7),
        vec![END],
    ]
    .concat();
    run_on(Ring::Blitter, &batch, &mut mem).unwrap();
    assert_eq!(read(&mem, DST + 29, 6), [0, 7, 7, 7, 7, 0]);
    // A linear pitch with bit 15 set (a bottom-up pitch), MI_FLUSH_DW's reserved Post
    // Sync Operation 2: refused.
    let r = run_on(
        Ring::Blitter,
        &[
            color_blt(0, 0xf0 << 16 | 0x8000, (0, 0), (1, 1), 1),
            vec![END],
        ]
        .concat(),
        &mut mem,
    );
    assert!(
        matches!(&r, Err(Hang::Unsupported { command: "XY_COLOR_BLT", addr: BATCH, unsupported })
            if unsupported.what == "a linear pitch of 32768 bytes (bit 15 set: a bottom-up pitch)"),
        "{r:?}"
    );
    let r = run_on(
        Ring::Blitter,
        &[0x1300_0001 | 2 << 14, DST as u32, 1, END],
        &mut mem,
    );
    assert!(
        matches!(&r, Err(Hang::Unsupported { command: "MI_FLUSH_DW", addr: BATCH, unsupported })
            if unsupported.what == "MI_FLUSH_DW Post Sync Operation 2, a reserved value"),
        "{r:?}"
    );
    assert_eq!(mem.read_u32(DST).unwrap(), 0, "nothing written");
}

#[test]
fn rings_refuse_each_others_commands_and_huge_blits_end_at_the_watchdog() {
    let mut mem = memory();
    let blit = [color_blt(0, 0xf0 << 16 | 64, (0, 0), (1, 1), 1), vec![END]].concat();
    let r = run_on(Ring::Render, &blit, &mut mem);
    assert!(
        matches!(&r, Err(Hang::Unsupported { command: "XY_COLOR_BLT", addr: BATCH, unsupported })
            if unsupported.what == "2D blitter commands on the render ring"),
        "{r:?}"
    );
    // PIPELINE_SELECT (a render command) on the blitter ring.
    let r = run_on(Ring::Blitter, &[0x6904_0000, END], &mut mem);
    assert!(
        matches!(&r, Err(Hang::Unsupported { command: "PIPELINE_SELECT", addr: BATCH, unsupported })
            if unsupported.what == "3D, media and GPGPU commands on the blitter ring"),
        "{r:?}"
    );
    // Other raster operations, clipping: not modelled.
    let r = run_on(
        Ring::Blitter,
        &[color_blt(0, 0x5a << 16 | 64, (0, 0), (1, 1), 1), vec![END]].concat(),
        &mut mem,
    );
    assert!(
        matches!(&r, Err(Hang::Unsupported { command: "XY_COLOR_BLT", addr: BATCH, unsupported })
            if unsupported.what == "raster operation 0x5a in XY_COLOR_BLT (only PATCOPY, 0xf0)"),
        "{r:?}"
    );
    // 65535 x 65535 32-bit pixels: more than the submission's pixel budget.
    let mut dev = Device::new();
    dev.limits.work.pixels = 1 << 20;
    let batch = [
        color_blt(
            0,
            3 << 24 | 0xf0 << 16 | 0xffff,
            (0, 0),
            (0xffff, 0xffff),
            1,
        ),
        vec![END],
    ]
    .concat();
    let bytes: Vec<u8> = batch.iter().flat_map(|d| d.to_le_bytes()).collect();
    mem.write(BATCH, &bytes).unwrap();
    let r = dev.submit_on(Ring::Blitter, 1, BATCH, &mut mem);
    // The pixel budget set above (1 << 20 = 0x10_0000) is what ends it.
    let Err(Hang::Blit {
        command: "XY_COLOR_BLT",
        addr: BATCH,
        error,
    }) = &r
    else {
        panic!("{r:?}");
    };
    assert!(
        matches!(
            **error,
            gtsim_pipe3d::draw::DrawError::Watchdog {
                what: "pixels",
                limit: 0x10_0000,
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn hostile_blitter_batches_end_in_a_report_or_a_hang() {
    // Random XY_COLOR_BLT / XY_SRC_COPY_BLT / MI_FLUSH_DW / random dwords on the
    // blitter ring, over mapped and unmapped memory, every depth, ROP, tiling and pitch,
    // rectangles up to 65535 wide: the submission completes or ends as a typed hang,
    // never a panic, within a small pixel budget.
    let mut rng = gtsim_fuzzkit::SplitMix64(gtsim_fuzzkit::env_u64("GTSIM_FUZZ_SEED", 17));
    let (mut ok, mut hung) = (0, 0);
    for _ in 0..gtsim_fuzzkit::cases(300) {
        let mut batch = vec![];
        for _ in 0..rng.below(4) + 1 {
            let coord = |rng: &mut gtsim_fuzzkit::SplitMix64| -> u32 {
                if rng.one_in(4) {
                    rng.next_u64() as u32
                } else {
                    (rng.below(64) as u32) << 16 | rng.below(64) as u32
                }
            };
            let br13 = (rng.below(4) as u32) << 24
                | [0xf0u32, 0xcc, rng.below(256) as u32][rng.below(3) as usize] << 16
                | if rng.one_in(8) { 1 << 30 } else { 0 }
                | if rng.one_in(4) {
                    rng.next_u64() as u32 & 0xffff
                } else {
                    64
                };
            let flags = (rng.below(4) as u32) << 20 | (rng.below(2) as u32) << 11;
            let address = if rng.one_in(4) {
                rng.next_u64() as u32
            } else {
                DST as u32
            };
            match rng.below(4) {
                0 => batch.extend([
                    0x5400_0004 | flags,
                    br13,
                    coord(&mut rng),
                    coord(&mut rng),
                    address,
                    rng.next_u64() as u32,
                ]),
                1 => batch.extend([
                    0x54c0_0006 | flags | (rng.below(2) as u32) << 15,
                    br13,
                    coord(&mut rng),
                    coord(&mut rng),
                    address,
                    coord(&mut rng),
                    rng.next_u64() as u32 & 0xffff,
                    SRC as u32,
                ]),
                2 => batch.extend([0x1300_0001 | (rng.below(4) as u32) << 14, address, 1]),
                _ => batch.push(rng.next_u64() as u32),
            }
        }
        batch.push(END);
        let mut mem = memory();
        let bytes: Vec<u8> = batch.iter().flat_map(|d| d.to_le_bytes()).collect();
        mem.write(BATCH, &bytes).unwrap();
        let mut dev = Device::new();
        dev.limits.work.pixels = 1 << 16;
        dev.limits.max_commands = 64;
        match dev.submit_on(Ring::Blitter, 1, BATCH, &mut mem) {
            Ok(_) => ok += 1,
            Err(_) => hung += 1,
        }
    }
    assert!(ok > 0 && hung > 0, "{ok} completed, {hung} hung");
}
