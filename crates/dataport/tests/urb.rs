//! URB writes (IVB PRM Vol4 Part2 "URB"): an interleaved SIMD4x2 register splits between
//! the two vertices' entries, worked by hand.

use gtsim_dataport::urb::{UrbWrite, Vue, write};
use gtsim_message::MessageError;

/// `r` is the message refused as invalid, the reason saying `why`.
fn assert_invalid<T: std::fmt::Debug>(r: Result<T, MessageError>, why: &str) {
    match r {
        Err(MessageError::Invalid(m)) => assert!(m.contains(why), "{m:?} does not say {why:?}"),
        other => panic!("{other:?}: expected an invalid message ({why})"),
    }
}

fn reg(f: impl Fn(u32) -> u32) -> [u8; 32] {
    let mut r = [0u8; 32];
    for i in 0..8 {
        r[i * 4..i * 4 + 4].copy_from_slice(&f(i as u32).to_le_bytes());
    }
    r
}

#[test]
fn interleaved_registers_split_between_the_two_handles_at_the_global_offset() {
    let mut vues = vec![Vue::new(); 2];
    // Handles swapped: the first vertex's dwords (0-3) go to entry 1.
    let w = UrbWrite {
        oword: false,
        interleave: true,
        global_offset: 1,
        handles: [1, 0],
        channel_mask: 0xff,
        slot_offsets: [0, 0],
        vertex_counts: [0, 0],
    };
    write(&mut vues, &w, &[reg(|i| 10 + i), reg(|i| 20 + i)], 0xff).unwrap();
    // Global Offset 1 = two 128-bit slots; two registers fill slots 2 and 3.
    assert_eq!(vues[1].len(), 4);
    assert_eq!(vues[1][2], [10, 11, 12, 13]);
    assert_eq!(vues[1][3], [20, 21, 22, 23]);
    assert_eq!(vues[0][2], [14, 15, 16, 17]);
    assert_eq!(vues[0][0], [0; 4]);
}

#[test]
fn channel_mask_and_execution_mask_select_dwords() {
    let mut vues = vec![Vue::new(); 2];
    let w = UrbWrite {
        oword: false,
        interleave: true,
        global_offset: 0,
        handles: [0, 1],
        channel_mask: 0b0000_0101,
        slot_offsets: [0, 0],
        vertex_counts: [0, 0],
    };
    // Only the first vertex's channels execute.
    write(&mut vues, &w, &[reg(|i| 100 + i)], 0x0f).unwrap();
    assert_eq!(vues[0][0], [100, 0, 102, 0]);
    assert!(vues[1].is_empty());
    let bad = UrbWrite {
        handles: [0, 7],
        ..w
    };
    assert_invalid(
        write(&mut vues, &bad, &[reg(|_| 0)], 0xff),
        "URB write to handle 7, which this thread was not given",
    );
}

/// Per-slot offsets (M0.3/M0.4, 256-bit rows) add to the Global Offset, each for its
/// own handle: the GS writes vertex n of each object at its own place.
#[test]
fn per_slot_offsets_add_to_the_global_offset_per_handle() {
    let mut vues = vec![Vue::new(); 2];
    let w = UrbWrite {
        oword: false,
        interleave: true,
        global_offset: 1,
        handles: [0, 1],
        channel_mask: 0xff,
        slot_offsets: [2, 0],
        vertex_counts: [0, 0],
    };
    write(&mut vues, &w, &[reg(|i| i), reg(|i| 8 + i)], 0xff).unwrap();
    // Handle 0: rows 1 + 2 = 3, slots 6 and 7; handle 1: row 1, slots 2 and 3.
    assert_eq!(vues[0].len(), 8);
    assert_eq!(vues[0][6], [0, 1, 2, 3]);
    assert_eq!(vues[0][7], [8, 9, 10, 11]);
    assert_eq!(vues[1].len(), 4);
    assert_eq!(vues[1][2], [4, 5, 6, 7]);
    assert_eq!(vues[1][3], [12, 13, 14, 15]);
    // Past the largest entry (512 rows of 512 bits, 2048 slots): refused, not grown.
    let far = UrbWrite {
        slot_offsets: [1023, 0],
        ..w
    };
    // Handle 0: 2 x (1 + 1023) = slot 2048, the first past the end.
    assert_invalid(
        write(&mut vues, &far, &[reg(|_| 0)], 0x0f),
        "URB write to 128-bit slot 2048 of handle 0, past the largest URB entry (2048 slots)",
    );
    assert_eq!(vues[0].len(), 8);
}

/// URB_WRITE_OWORD: one 128-bit slot per handle, the offsets counting slots (the GS's
/// control data header, Mesa's BRW_URB_WRITE_OWORD).
#[test]
fn an_oword_write_counts_its_offsets_in_slots_and_writes_one_slot() {
    let mut vues = vec![Vue::new(); 2];
    let w = UrbWrite {
        oword: true,
        interleave: true,
        global_offset: 1,
        handles: [0, 1],
        channel_mask: 0xff,
        slot_offsets: [2, 0],
        vertex_counts: [0, 0],
    };
    write(&mut vues, &w, &[reg(|i| 50 + i)], 0xff).unwrap();
    assert_eq!(vues[0].len(), 4);
    assert_eq!(vues[0][3], [50, 51, 52, 53]);
    assert_eq!(vues[1].len(), 2);
    assert_eq!(vues[1][1], [54, 55, 56, 57]);
    assert_invalid(
        write(&mut vues, &w, &[reg(|_| 0), reg(|_| 0)], 0xff),
        "URB OWord write with 2 data registers",
    );
}

/// URB_NOSWIZZLE (not interleaved): each data register's eight dwords go to the first
/// handle, two slots a register; an OWord write takes dwords 0-3 into its one slot (the
/// HS's thread end writes DW0 of its patch record that way, channel mask 0x01).
#[test]
fn a_non_interleaved_write_fills_the_first_handles_slots() {
    let mut vues = vec![Vue::new(); 2];
    let w = UrbWrite {
        oword: false,
        interleave: false,
        global_offset: 1,
        handles: [1, 0],
        channel_mask: 0xff,
        slot_offsets: [0, 0],
        vertex_counts: [0, 0],
    };
    write(&mut vues, &w, &[reg(|i| i), reg(|i| 10 + i)], 0xff).unwrap();
    assert_eq!(
        vues[1][2..6],
        [
            [0, 1, 2, 3],
            [4, 5, 6, 7],
            [10, 11, 12, 13],
            [14, 15, 16, 17]
        ]
    );
    assert!(vues[0].is_empty());
    let ow = UrbWrite {
        oword: true,
        global_offset: 0,
        channel_mask: 0x01,
        ..w
    };
    write(&mut vues, &ow, &[reg(|_| 99)], 0xff).unwrap();
    assert_eq!(vues[1][0], [99, 0, 0, 0]);
}

/// URB reads by handle (the HS's ICPs, the DS's patch record): interleaved, each half
/// of a response register from its handle's slot; not interleaved, the first handle's
/// slots fill whole registers; unwritten slots read as zeros; a handle the thread was
/// not given is refused.
#[test]
fn reads_return_each_handles_slots() {
    use gtsim_dataport::urb::{UrbRead, read};
    let vues: Vec<Vue> = vec![
        vec![[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]],
        vec![[20, 21, 22, 23]],
    ];
    let r = UrbRead {
        oword: true,
        interleave: true,
        global_offset: 1,
        handles: [0, 1],
        slot_offsets: [1, 0],
    };
    let got = read(&vues, &r, 1).unwrap();
    let dw = |reg: &[u8; 32]| -> Vec<u32> {
        reg.chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    };
    // Handle 0 slot 1 + 1 = 2; handle 1 slot 1, never written: zeros.
    assert_eq!(dw(&got[0]), [9, 10, 11, 12, 0, 0, 0, 0]);
    let hword = UrbRead {
        oword: false,
        interleave: false,
        global_offset: 0,
        handles: [0, 1],
        slot_offsets: [0, 0],
    };
    let got = read(&vues, &hword, 2).unwrap();
    assert_eq!(dw(&got[0]), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(dw(&got[1]), [9, 10, 11, 12, 0, 0, 0, 0]);
    assert!(read(&vues, &hword, 0).unwrap().is_empty());
    // Far past any entry (Mesa's out-of-bounds index, 0x0fffffff): zeros, no error.
    let far = UrbRead {
        slot_offsets: [0x0fff_ffff, 0x0fff_ffff],
        ..r
    };
    assert_eq!(read(&vues, &far, 1).unwrap(), vec![[0u8; 32]]);
    let bad = UrbRead {
        handles: [0, 5],
        ..r
    };
    assert_invalid(
        read(&vues, &bad, 1),
        "URB read from handle 5, which this thread was not given",
    );
}

/// A Gen8+ SIMD8 URB write as iris's GS emits one (seed 003 "SIMD8 URB Offset Message
/// Address Payload": "This offset and the Global Offset are specified as Oword units"):
/// Global Offset 3, channel 1's slot offset 4, eight data registers (two OWords). Data
/// register k's dword i goes to channel i's entry at OWord 3 + offset + k / 4,
/// component k % 4; channel 2 is off in the execution mask and channel 0's Channel Mask
/// keeps only data register 0. A SIMD8 read of OWords 7-8 reads channel 1's back.
#[test]
fn simd8_writes_and_reads_address_owords_per_channel() {
    use gtsim_dataport::urb::{Simd8Read, Simd8Write, read_simd8, write_simd8};
    let data: Vec<[u8; 32]> = (0..8u32)
        .map(|k| {
            let mut r = [0u8; 32];
            for i in 0..8u32 {
                r[4 * i as usize..4 * i as usize + 4].copy_from_slice(&(100 * k + i).to_le_bytes());
            }
            r
        })
        .collect();
    let mut vues: Vec<Vue> = vec![Vue::new(); 3];
    let w = Simd8Write {
        global_offset: 3,
        handles: [0, 1, 2, 0, 0, 0, 0, 0],
        slot_offsets: [0, 4, 0, 0, 0, 0, 0, 0],
        channel_masks: [0x01, 0xff, 0xff, 0, 0, 0, 0, 0],
    };
    write_simd8(&mut vues, &w, &data, 0b011).unwrap();
    // Channel 0: only register 0 (component x of OWord 3).
    assert_eq!(vues[0].len(), 4);
    assert_eq!(vues[0][3], [0, 0, 0, 0]);
    // Channel 1: OWord 7 = registers 0-3 (dword 1 of each), OWord 8 = registers 4-7.
    assert_eq!(vues[1][7], [1, 101, 201, 301]);
    assert_eq!(vues[1][8], [401, 501, 601, 701]);
    // Channel 2 is not in the execution mask.
    assert!(vues[2].is_empty());
    let r = Simd8Read {
        global_offset: 7,
        handles: [1; 8],
        slot_offsets: [0; 8],
    };
    let regs = read_simd8(&vues, &r, 8, 0b1).unwrap();
    let dw =
        |reg: &[u8; 32], i: usize| u32::from_le_bytes(reg[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!(
        (0..8).map(|k| dw(&regs[k], 0)).collect::<Vec<_>>(),
        [1, 101, 201, 301, 401, 501, 601, 701]
    );
    assert_eq!(dw(&regs[0], 1), 0, "channel 1 is off: zeros");
}
