//! The one command streamer on both generations: the same MI program, encoded by hand
//! for each generation's layouts (IVB PRM Vol1 Part3 and Mesa genxml gen7.xml; Gen11 PRM
//! Vol 2a and genxml gen11.xml), leaves the same memory and registers; and the commands
//! only Gen8+ has behave as the Gen11 PRM says.

use super::*;
use gtsim_mem::AddressSpace;

const END: u32 = 0x0500_0000;
const GPR0: u32 = 0x2600;

fn run(platform: Platform, batch: &[u32]) -> (Device, AddressSpace, Result<SubmitReport, Hang>) {
    let mut m = AddressSpace::new();
    m.map(0x10000, 0x10000);
    let bytes: Vec<u8> = batch.iter().flat_map(|d| d.to_le_bytes()).collect();
    m.write(0x10000, &bytes).unwrap();
    let mut dev = Device::with_platform(platform);
    let r = dev.submit(1, 0x10000, &mut m);
    (dev, m, r)
}

/// MI_LOAD_REGISTER_IMM of two registers, MI_STORE_REGISTER_MEM of one, MI_STORE_DATA_IMM
/// and a PIPE_CONTROL immediate write: the store lands, the register holds its value,
/// the fence is written as a qword.
#[test]
fn one_program_two_generations_same_result() {
    // Gen7: LRI DWord Length 3 (two pairs); SRM 3 dwords (32-bit address); SDI 4 dwords
    // (DW1 reserved, DW2 address); PIPE_CONTROL 5 dwords, Post-Sync 1 (bit 14), address
    // in DW2, immediate data in DW3-4.
    let gen7 = [
        0x1100_0003,
        0x2608,
        0xdead_beef,
        0x260c,
        0x1234_5678,
        0x1200_0001,
        0x2608,
        0x18000,
        0x1000_0002,
        0,
        0x18010,
        42,
        0x7a00_0003,
        1 << 14,
        0x18020,
        0x0000_0007,
        0x0000_0001,
        END,
    ];
    // Gen11: LRI the same; SRM 4 dwords (48-bit address in DW2-3); SDI 4 dwords (address
    // DW1-2, data DW3); PIPE_CONTROL 6 dwords (address DW2-3, data DW4-5).
    let gen11 = [
        0x1100_0003,
        0x2608,
        0xdead_beef,
        0x260c,
        0x1234_5678,
        0x1200_0002,
        0x2608,
        0x18000,
        0,
        0x1000_0002,
        0x18010,
        0,
        42,
        0x7a00_0004,
        1 << 14,
        0x18020,
        0,
        0x0000_0007,
        0x0000_0001,
        END,
    ];
    for (platform, batch) in [
        (Platform::IvyBridge, &gen7[..]),
        (Platform::IceLake, &gen11[..]),
    ] {
        let (mut dev, m, r) = run(platform, batch);
        assert_eq!(r.unwrap().commands, 5, "{platform:?}");
        assert_eq!(m.read_u32(0x18000).unwrap(), 0xdead_beef, "{platform:?}");
        assert_eq!(m.read_u32(0x18010).unwrap(), 42, "{platform:?}");
        assert_eq!(m.read_u64(0x18020).unwrap(), 0x1_0000_0007, "{platform:?}");
        assert_eq!(dev.read_register(1, 0x260c), 0x1234_5678, "{platform:?}");
    }
}

/// Gen7's MI_BATCH_BUFFER_START chains (no second level: the field does not exist), so
/// the commands after it never run; Gen11's second-level batch returns after its end.
#[test]
fn batch_start_chains_on_gen7_and_calls_on_gen11() {
    // At 0x10000: start a batch at 0x10100, then SDI 1 to 0x18000, end. At 0x10100: SDI
    // 2 to 0x18004, end.
    let mut gen7 = vec![0x1880_0000, 0x10100, 0x1000_0002, 0, 0x18000, 1, END];
    gen7.resize(64, 0);
    gen7.extend([0x1000_0002, 0, 0x18004, 2, END]);
    let (_, m, r) = run(Platform::IvyBridge, &gen7);
    r.unwrap();
    assert_eq!(m.read_u32(0x18000).unwrap(), 0, "chained: never returns");
    assert_eq!(m.read_u32(0x18004).unwrap(), 2);

    // Gen11: Second Level Batch Buffer (bit 22), DWord Length 1, 48-bit address.
    let mut gen11 = vec![
        0x1880_0001 | 1 << 22,
        0x10100,
        0,
        0x1000_0002,
        0x18000,
        0,
        1,
        END,
    ];
    gen11.resize(64, 0);
    gen11.extend([0x1000_0002, 0x18004, 0, 2, END]);
    let (_, m, r) = run(Platform::IceLake, &gen11);
    r.unwrap();
    assert_eq!(
        m.read_u32(0x18000).unwrap(),
        1,
        "returned after the second level"
    );
    assert_eq!(m.read_u32(0x18004).unwrap(), 2);
}

/// MI_SEMAPHORE_WAIT (Gen11 PRM Vol 2a; genxml gen11.xml: Wait Mode bit 15, Compare
/// Operation 14:12, Semaphore Data DW1, address DW2-3): a met condition goes on, an unmet
/// one can never be met while the batch runs, and hangs naming the semaphore.
#[test]
fn semaphore_waits_pass_when_met_and_hang_when_not() {
    // SAD (5) >= SDD (5): COMPARE_SAD_GREATER_THAN_OR_EQUAL_SDD = 1, polling.
    let wait = |op: u32, sdd: u32| [0x0e00_0002 | 1 << 15 | op << 12, sdd, 0x18000, 0];
    let store = [0x1000_0002, 0x18000, 0, 5];
    let mut batch = store.to_vec();
    batch.extend(wait(1, 5));
    batch.push(END);
    let (_, _, r) = run(Platform::IceLake, &batch);
    assert_eq!(r.unwrap().commands, 3);

    let mut batch = store.to_vec();
    batch.extend(wait(0, 5)); // SAD > SDD: 5 > 5 never holds.
    batch.push(END);
    let (_, _, r) = run(Platform::IceLake, &batch);
    match r {
        Err(Hang::Semaphore {
            addr,
            semaphore,
            value,
            data,
        }) => {
            assert_eq!((addr, semaphore, value, data), (0x10010, 0x18000, 5, 5));
        }
        other => panic!("an unmet wait must hang: {other:?}"),
    }
}

/// PIPE_CONTROL's LRI Post-Sync Operation (bit 23) writes Immediate Data's low dword
/// into the register Address names (Gen11 PRM Vol 2a PIPE_CONTROL).
#[test]
fn pipe_control_lri_post_sync_writes_the_register() {
    let batch = [0x7a00_0004, 1 << 23, GPR0, 0, 0x0bad_cafe, 0, END];
    let (mut dev, _, r) = run(Platform::IceLake, &batch);
    r.unwrap();
    assert_eq!(dev.read_register(1, GPR0), 0x0bad_cafe);
}

/// What the executor does not model is refused by name: Compare Mask Mode, Byte Write
/// Disables.
#[test]
fn unmodelled_mi_fields_are_refused() {
    let refused = |platform: Platform, batch: &[u32], what: &str| {
        let mut b = batch.to_vec();
        b.push(END);
        match run(platform, &b).2 {
            Err(Hang::Unsupported { unsupported, .. }) => {
                assert!(unsupported.to_string().contains(what), "{unsupported}")
            }
            other => panic!("{what} must be refused: {other:?}"),
        }
    };
    // MI_CONDITIONAL_BATCH_BUFFER_END, Compare Semaphore (21) and Compare Mask Mode (19).
    refused(
        Platform::IceLake,
        &[0x1b00_0002 | 1 << 21 | 1 << 19, 0, 0x18000, 0],
        "Compare Mask Mode",
    );
    // MI_LOAD_REGISTER_IMM with Byte Write Disables (11:8), on Gen7.
    refused(
        Platform::IvyBridge,
        &[0x1100_0001 | 0xf << 8, 0x2608, 1],
        "Byte Write Disables",
    );
}

/// Gen11's "Add CS MMIO Start Offset" makes a register offset relative to the render
/// command streamer's MMIO base, 0x2000 (Linux RENDER_RING_BASE): an LRI of 0x600 with
/// the flag (bit 19) writes CS_GPR0 at 0x2600, and an SRM of 0x600 with it (bit 19)
/// reads it back; without the flag 0x600 is another register.
#[test]
fn engine_relative_register_offsets_add_the_render_mmio_base() {
    let batch = [
        0x1100_0001 | 1 << 19,
        0x600,
        0x1234_5678,
        // MI_STORE_REGISTER_MEM (0x24), relative, to 0x18000.
        0x1240_0002 | 1 << 19,
        0x600,
        0x18000,
        0,
        END,
    ];
    let (mut dev, mem, r) = run(Platform::IceLake, &batch);
    r.unwrap();
    assert_eq!(dev.read_register(1, GPR0), 0x1234_5678);
    assert_eq!(mem.read_u32(0x18000).unwrap(), 0x1234_5678);
    assert_eq!(dev.read_register(1, 0x600), 0, "0x600 itself is untouched");
}

/// A Gen11 MI_STORE_DATA_IMM longer than a qword (DWord Length 7, Store Qword set, as
/// anv 25 writes a clear colour: address in DW1-2, six data dwords in DW3-8) stores every
/// data dword in turn.
#[test]
fn a_long_store_data_imm_stores_each_of_its_dwords() {
    let batch = [0x1020_0007, 0x18040, 0, 11, 12, 13, 14, 15, 16, END];
    let (_, m, r) = run(Platform::IceLake, &batch);
    assert_eq!(r.unwrap().commands, 2, "the store and the batch end");
    for (i, v) in (11..=16).enumerate() {
        assert_eq!(m.read_u32(0x18040 + 4 * i as u64).unwrap(), v, "dword {i}");
    }
    assert_eq!(m.read_u32(0x18058).unwrap(), 0, "nothing past the sixth");
}
