use super::*;
use gtsim_mem::AddressSpace;
use gtsim_spec::gen7::GENERATION;

fn decode_raw(dwords: &[u32]) -> Vec<Item> {
    let bytes: Vec<u8> = dwords.iter().flat_map(|d| d.to_le_bytes()).collect();
    let mut mem = AddressSpace::new();
    mem.load(0x1000, &bytes);
    let mut d = Decoder::new(&GENERATION, &mem);
    d.decode_batch(0x1000, Some(0x1000 + bytes.len() as u64));
    d.items
}

fn names(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            Item::Command { addr, def, .. } => format!("{addr:#x} {}", def.name),
            Item::State { addr, def, .. } => format!("{addr:#x} state {}", def.name),
            Item::Kernel { addr, .. } => format!("{addr:#x} kernel"),
            Item::Note { addr, .. } => format!("{addr:#x} note"),
            Item::Diagnostic { addr, msg } => format!("{addr:#x} error {msg}"),
        })
        .collect()
}

#[test]
fn hand_assembled_batch_names_commands_and_fields() {
    // Hand-assembled from seed 004: 3DSTATE_VF_STATISTICS (single dword: type 3,
    // subtype 1, opcode 0, sub-opcode 0Bh, enable bit 0 = 0x680b0001), then 3DPRIMITIVE
    // (0x7b000005) drawing 3 vertices of a TRILIST (04h), then MI_BATCH_BUFFER_END.
    let items = decode_raw(&[
        0x680b_0001,
        0x7b00_0005,
        0x0000_0004,
        3,
        0,
        1,
        0,
        0,
        0x0500_0000,
    ]);
    assert_eq!(
        names(&items),
        [
            "0x1000 3DSTATE_VF_STATISTICS",
            "0x1004 3DPRIMITIVE",
            "0x1020 MI_BATCH_BUFFER_END"
        ]
    );
    let Item::Command { lines, .. } = &items[1] else {
        panic!()
    };
    let find = |n: &str| lines.iter().find(|l| l.name == n).map(|l| l.value.clone());
    assert_eq!(
        find("Primitive Topology Type").as_deref(),
        Some("4 (3DPRIM_TRILIST)")
    );
    assert_eq!(find("Vertex Count Per Instance").as_deref(), Some("3"));
    assert_eq!(find("Instance Count").as_deref(), Some("1"));
}

#[test]
fn unknown_opcode_is_reported_and_decoding_resumes() {
    // 0xe0000000 is command type 7: not a render command.
    let items = decode_raw(&[0xe000_0000, 0x0000_0000, 0x0500_0000]);
    let n = names(&items);
    assert!(
        n[0].starts_with("0x1000 error unknown command 0xe0000000"),
        "{n:?}"
    );
    assert_eq!(&n[1..], ["0x1004 MI_NOOP", "0x1008 MI_BATCH_BUFFER_END"]);
}

#[test]
fn truncated_command_is_reported_with_its_offset() {
    // PIPE_CONTROL needs 5 dwords; only 2 are in the batch.
    let n = names(&decode_raw(&[0x7a00_0003, 0]));
    assert_eq!(n.len(), 1);
    assert!(
        n[0].starts_with("0x1000 error PIPE_CONTROL truncated: needs 5 dwords, only 2"),
        "{n:?}"
    );
}

#[test]
fn impossible_length_skips_one_dword() {
    // 3DSTATE_VS is 6 dwords; a DWord Length of 0 says 2.
    let n = names(&decode_raw(&[0x7810_0000, 0x0500_0000]));
    assert!(
        n[0].starts_with("0x1000 error 3DSTATE_VS: impossible length"),
        "{n:?}"
    );
    assert_eq!(n[1], "0x1004 MI_BATCH_BUFFER_END");
}

#[test]
fn batch_buffer_start_is_followed_and_loops_are_caught() {
    let mut mem = AddressSpace::new();
    // At 0x1000: jump to 0x2000. At 0x2000: jump back to 0x1000.
    let bbs = |to: u32| [0x1880_0000u32, to];
    mem.load(
        0x1000,
        &bbs(0x2000)
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    mem.load(
        0x2000,
        &bbs(0x1000)
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    let mut d = Decoder::new(&GENERATION, &mem);
    d.decode_batch(0x1000, None);
    let n = names(&d.items);
    assert_eq!(
        &n[..3],
        [
            "0x1000 MI_BATCH_BUFFER_START",
            "0x1000 note",
            "0x2000 MI_BATCH_BUFFER_START"
        ]
    );
    assert!(
        n[3].starts_with("0x2000 error") && n[3].contains("already decoded"),
        "{n:?}"
    );
    assert_eq!(n.len(), 4);
}

#[test]
fn running_off_mapped_memory_is_a_fault_not_a_panic() {
    let mut mem = AddressSpace::new();
    mem.load(0x1ffc, &0u32.to_le_bytes()); // one MI_NOOP at the end of a page
    let mut d = Decoder::new(&GENERATION, &mem);
    d.decode_batch(0x1ffc, None);
    let n = names(&d.items);
    assert_eq!(n[0], "0x1ffc MI_NOOP");
    assert!(
        n[1].contains("page fault") && n[1].contains("0x2000"),
        "{n:?}"
    );
}

#[test]
fn pointers_are_followed_relative_to_their_base() {
    // STATE_BASE_ADDRESS with Dynamic State Base Address = 0x10000 (bits 31:12 of DW3,
    // Modify Enable bit 0), then 3DSTATE_CC_STATE_POINTERS (sub-opcode 0Eh) pointing at
    // offset 0x40 (bits 31:6) with the must-be-one bit 0.
    let mut sba = vec![0x6101_0008u32];
    sba.extend([0, 0, 0x0001_0001, 0, 0, 0, 0, 0, 0]);
    let mut batch = sba;
    batch.extend([0x780e_0000, 0x0000_0041, 0x0500_0000]);
    let mut mem = AddressSpace::new();
    mem.load(
        0x1000,
        &batch
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    // COLOR_CALC_STATE at 0x10040: Stencil Reference Value 31:24 = 0x5a.
    mem.load(
        0x10040,
        &[
            0u8, 0, 0, 0x5a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ],
    );
    let mut d = Decoder::new(&GENERATION, &mem);
    d.decode_batch(0x1000, None);
    assert_eq!(d.bases.dynamic, Some(0x10000));
    let state = d.items.iter().find_map(|i| match i {
        Item::State {
            addr, def, lines, ..
        } => Some((*addr, def.name, lines.clone())),
        _ => None,
    });
    let (addr, name, lines) = state.expect("COLOR_CALC_STATE decoded");
    assert_eq!((addr, name), (0x10040, "COLOR_CALC_STATE"));
    assert!(
        lines
            .iter()
            .any(|l| l.name == "Stencil Reference Value" && l.value == "90"),
        "{lines:?}"
    );
}

#[test]
fn a_pointer_without_its_base_is_not_followed() {
    let n = names(&decode_raw(&[0x780e_0000, 0x0000_0041]));
    assert_eq!(n, ["0x1000 3DSTATE_CC_STATE_POINTERS", "0x1000 note"]);
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        /// Random batches never panic the decoder, and every item it reports lies inside
        /// the batch or memory it was given.
        #[test]
        fn random_batches_never_panic(dw in proptest::collection::vec(any::<u32>(), 0..200)) {
            let items = decode_raw(&dw);
            let text = render(&items, RenderOptions { color: true, raw: true });
            prop_assert!(text.len() < 10_000_000);
        }

        /// The same, with plausible headers: random opcodes of the GFXPIPE and MI families.
        #[test]
        fn random_headers_never_panic(dw in proptest::collection::vec(prop_oneof![any::<u32>(), (0u32..0x1000_0000).prop_map(|x| 0x6000_0000 | x), (0u32..0x0800_0000).prop_map(|x| 0x1000_0000 | x)], 0..100)) {
            let _ = decode_raw(&dw);
        }
    }
}

/// Intel's VA driver's 4-dword PIPE_CONTROL (DWord Length 2, seed 004 §1.10.4.1's `=n`)
/// decodes as one command, and the next command is found after it.
#[test]
fn a_four_dword_pipe_control_decodes_whole() {
    let items = decode_raw(&[0x7a00_0002, 0x0000_1420, 0, 0, 0x0500_0000]);
    assert_eq!(
        names(&items),
        vec!["0x1000 PIPE_CONTROL", "0x1010 MI_BATCH_BUFFER_END"]
    );
}
