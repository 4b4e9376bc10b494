//! AUB traces: the legacy trace-block format of Mesa's `intel_dump_gpu` (facts from Mesa's
//! `intel_aub.h` / `aub_write.c`, cited in `gtsim_gpu::aub`).

use gtsim_gpu::aub::{self, AubWriter, Event};
use proptest::prelude::*;

/// A trace assembled by hand from the format facts, independently of `AubWriter`.
fn hand_made() -> Vec<u8> {
    let mut d: Vec<u32> = vec![];
    // CMD_AUB_HEADER (0xe0850000) | (16 - 2): 16 dwords = header, version 4.0, 32-byte name,
    // 64-bit timestamp, comment length 12, "PCI-ID=0x162" (3 dwords).
    d.push(0xe085_0000 | 14);
    d.push(4 << 24);
    let mut name = [0u8; 32];
    name[..4].copy_from_slice(b"test");
    d.extend(
        name.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    d.extend([0, 0, 12]);
    d.extend(
        b"PCI-ID=0x162"
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    // CMD_AUB_TRACE_HEADER_BLOCK (0xe0c10000) | 3: data write (op 1) of type batch (1 << 8)
    // to GTT address 0x1000, 8 bytes: MI_NOOP, MI_BATCH_BUFFER_END.
    d.extend([0xe0c1_0003, 0x0000_0101, 0, 0x1000, 8, 0, 0x0500_0000]);
    // Command write (op 2) to the render ring (PRB0, 2 << 8) at 0: MI_BATCH_BUFFER_START
    // (0x18800000) to 0x1000.
    d.extend([0xe0c1_0003, 0x0000_0202, 0, 0, 8, 0x1880_0000, 0x1000]);
    d.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn reads_a_hand_made_trace() {
    let t = aub::parse(&hand_made());
    assert!(
        t.error.is_none() && t.diagnostics.is_empty(),
        "{:?} {:?}",
        t.error,
        t.diagnostics
    );
    assert_eq!(t.pci_id(), Some(0x162));
    assert!(matches!(&t.events[0], Event::Header { version: (4, 0), app, .. } if app == "test"));
    assert_eq!(
        t.events[1],
        Event::Write {
            addr: 0x1000,
            data: vec![0, 0, 0, 0, 0, 0, 0, 5],
            kind: 1
        }
    );
    assert_eq!(
        t.events[2],
        Event::Exec {
            ring: 2,
            offset: 0,
            commands: vec![0x1880_0000, 0x1000]
        }
    );
}

#[test]
fn writer_output_reads_back() {
    let mut w = AubWriter::new("roundtrip", 0x0162);
    let big: Vec<u8> = (0..100_000u32).map(|i| (i * 7) as u8).collect();
    w.write_memory(0x20000, &big, 0);
    w.write_memory(0x1_0000_0000, &[1, 2, 3], 0); // above 4 GiB: 6-dword header; odd size padded
    w.exec(0x20000, 0);
    let t = aub::parse(&w.finish());
    assert!(t.error.is_none(), "{:?}", t.error);
    // Rebuild memory from the writes.
    let mut mem = gtsim_mem::AddressSpace::new();
    for e in &t.events {
        if let Event::Write { addr, data, .. } = e {
            mem.load(*addr, data);
        }
    }
    let mut back = vec![0u8; big.len()];
    mem.read(0x20000, &mut back).unwrap();
    assert_eq!(back, big);
    let mut three = [0u8; 3];
    mem.read(0x1_0000_0000, &mut three).unwrap();
    assert_eq!(three, [1, 2, 3]);
    assert!(
        matches!(t.events.last(), Some(Event::Exec { commands, .. }) if commands == &vec![0x1880_0000, 0x20000])
    );
}

/// Submissions tagged with MI_SET_CONTEXT replay in their own contexts: context 2
/// selects the GPGPU pipeline, and context 1's 3DPRIMITIVE (of no vertices) still runs
/// under the 3D pipeline its own context never left. In one shared context the draw
/// would be a hang (a 3DPRIMITIVE under GPGPU).
#[test]
fn replays_keep_each_context_apart() {
    let dwords = |d: &[u32]| -> Vec<u8> { d.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let mut w = AubWriter::new("contexts", 0x0162);
    // PIPELINE_SELECT GPGPU (1:0 = 2), MI_BATCH_BUFFER_END.
    w.write_memory(0x20000, &dwords(&[0x6904_0002, 0x0500_0000]), 0);
    // 3DPRIMITIVE (7 dwords) of 0 vertices, MI_BATCH_BUFFER_END.
    w.write_memory(
        0x21000,
        &dwords(&[0x7b00_0005, 0, 0, 0, 0, 0, 0, 0x0500_0000]),
        0,
    );
    w.exec_in_context(0x20000, 2, 0x30000);
    w.exec_in_context(0x21000, 1, 0x30100);
    let t = aub::parse(&w.finish());
    assert!(
        matches!(&t.events[3], Event::Exec { commands, .. } if commands[..2] == [0x0c00_0000, 0x2100])
    );
    let r = gtsim_gpu::replay::replay(&t, |_, _| {});
    assert_eq!(r.submissions, 2);
    assert!(r.hangs.is_empty(), "{:?}", r.hangs);
    // The same batches without the tags share one context: the draw hangs.
    let mut w = AubWriter::new("one context", 0x0162);
    w.write_memory(0x20000, &dwords(&[0x6904_0002, 0x0500_0000]), 0);
    w.write_memory(
        0x21000,
        &dwords(&[0x7b00_0005, 0, 0, 0, 0, 0, 0, 0x0500_0000]),
        0,
    );
    w.exec(0x20000, 0x30000);
    w.exec(0x21000, 0x30100);
    let r = gtsim_gpu::replay::replay(&aub::parse(&w.finish()), |_, _| {});
    assert_eq!(r.hangs.len(), 1, "{:?}", r.hangs);
}

#[test]
fn truncated_trace_reports_the_offset() {
    let mut b = hand_made();
    b.truncate(b.len() - 6);
    let t = aub::parse(&b);
    let e = t.error.expect("truncation is an error");
    assert!(e.to_string().contains("ends inside"), "{e}");
}

#[test]
fn decoding_the_hand_made_trace_follows_the_ring_into_the_batch() {
    let t = aub::parse(&hand_made());
    let items = gtsim_gpu::trace::decode_trace(&gtsim_spec::gen7::GENERATION, &t);
    let text = gtsim_gpu::decode::render(&items, Default::default());
    assert!(
        text.contains("0x00000000:  0x18800000:  MI_BATCH_BUFFER_START"),
        "{text}"
    );
    assert!(text.contains("0x00001000:  0x00000000:  MI_NOOP"), "{text}");
    assert!(
        text.contains("0x00001004:  0x05000000:  MI_BATCH_BUFFER_END"),
        "{text}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic_the_reader(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let t = aub::parse(&bytes);
        let _ = gtsim_gpu::trace::decode_trace(&gtsim_spec::gen7::GENERATION, &t);
    }

    #[test]
    fn corrupted_real_traces_never_panic(flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)) {
        let mut b = gtsim_gpu::sample::aub().unwrap();
        for (i, v) in flips {
            let at = i.index(b.len());
            b[at] = v;
        }
        let t = aub::parse(&b);
        let _ = gtsim_gpu::trace::decode_trace(&gtsim_spec::gen7::GENERATION, &t);
    }
}

/// A capture of a blitter-ring submission (ring type PRB2, Mesa's intel_aub.h `4 << 8`)
/// replays on the blitter: the hand-assembled XY_COLOR_BLT (2 << 29 | 0x50 << 22 | 4,
/// 8-bit, PATCOPY, pitch 16) fills its 4x2 rectangle. The same batch on the render ring
/// is refused.
#[test]
fn a_blitter_ring_capture_replays_on_the_blitter() {
    let batch: Vec<u8> = [
        0x5400_0004u32,
        0xf0 << 16 | 16,
        0,
        2 << 16 | 4,
        0x3000,
        0x7f,
        0x0500_0000,
    ]
    .iter()
    .flat_map(|d| d.to_le_bytes())
    .collect();
    for (ring, filled) in [(aub::TYPE_RING_PRB2, true), (aub::TYPE_RING_PRB0, false)] {
        let mut w = AubWriter::new("blit", 0x162);
        w.write_memory(0x2000, &batch, aub::TYPE_BATCH);
        w.write_memory(0x3000, &[0; 64], 0);
        w.exec_on_ring(ring, 0x2000, 1, 0);
        let t = aub::parse(&w.drain());
        assert!(matches!(t.events.last(), Some(Event::Exec { ring: r, .. }) if *r == ring));
        let r = gtsim_gpu::replay::replay(&t, |_, _| {});
        let mut row = [0u8; 8];
        r.mem.read(0x3000 + 16, &mut row).unwrap();
        if filled {
            assert!(r.hangs.is_empty(), "{:?}", r.hangs);
            assert_eq!(row, [0x7f, 0x7f, 0x7f, 0x7f, 0, 0, 0, 0]);
        } else {
            assert_eq!(r.hangs.len(), 1, "a blit on the render ring hangs");
            assert_eq!(row, [0; 8]);
        }
    }
}
