//! Seeded random testing of the input paths behind `gtsim decode` and `gtsim exec`:
//!
//! * random and mutated batches (raw dwords at random bases) and mutated AUB traces
//!   through the command decoder and its text rendering: no panic, and every run ends;
//! * random kernels (decodable random instructions, structured branches and jumps) run
//!   on one EU thread with a bounded instruction budget: no panic, and a kernel that
//!   does not reach EOT or its end stops with an error.
//!
//! Each test also requires both of its outcomes (batches decoded cleanly and with
//! diagnostics, traces read whole and refused, kernels that end and that stop with an
//! error), each a large share of the cases whatever the seed.
//!
//! `GTSIM_FUZZ_CASES` scales the case counts (default: a few seconds in a debug build),
//! `GTSIM_FUZZ_SEED` changes the seed. docs/FUZZING.md lists the campaigns run.

use gtsim_eu::exec::Thread;
use gtsim_eu::harness;
use gtsim_fuzzkit::{Rng, env_u64};
use gtsim_gpu::aub;
use gtsim_gpu::decode::{Decoder, Item, RenderOptions, render};
use gtsim_mem::AddressSpace;
use std::panic::{AssertUnwindSafe, catch_unwind};

fn cases(default: u64) -> u64 {
    // GTSIM_FUZZ_CASES is the byte-level case count of the ISA tests; these cases are
    // heavier, so they take a fixed fraction of it.
    std::env::var("GTSIM_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(default, |n| (n / 50).max(1))
}

fn rng(salt: u64) -> Rng {
    Rng(env_u64("GTSIM_FUZZ_SEED", 0x6774_7369_6d00_0002) ^ salt | 1)
}

/// Dwords worth hitting: those of the embedded sample submission (real command headers,
/// state and addresses).
fn headers() -> Vec<u32> {
    let mut out = vec![];
    let sample = gtsim_gpu::sample::aub().expect("the embedded sample builds");
    for c in sample.chunks_exact(4) {
        out.push(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    }
    out
}

/// Decodes and renders the batch `bytes` at `base`; whether it decoded cleanly (no
/// diagnostic).
fn decode_batch(bytes: &[u8], base: u64) -> bool {
    let mut mem = AddressSpace::new();
    mem.load(base, bytes);
    let mut d = Decoder::new(&gtsim_spec::gen7::GENERATION, &mem);
    d.decode_batch(base, Some(base.saturating_add(bytes.len() as u64)));
    let _ = render(
        &d.items,
        RenderOptions {
            color: false,
            raw: true,
        },
    );
    !d.items.iter().any(|i| matches!(i, Item::Diagnostic { .. }))
}

#[test]
fn random_batches_decode_without_panicking() {
    let words = headers();
    let mut r = rng(1);
    let n = cases(400);
    let (mut clean, mut diagnosed) = (0, 0);
    for case in 0..n {
        let len = 1 + r.below(64);
        let batch: Vec<u8> = (0..len)
            .map(|_| match r.below(4) {
                0 => r.next_u64() as u32,
                1 => [0, 0x0500_0000, 0x1880_0001, 0xffff_ffff][r.below(4)],
                _ => words[r.below(words.len())],
            })
            .flat_map(u32::to_le_bytes)
            .collect();
        let base = match r.below(4) {
            0 => 0,
            1 => r.next_u64() & 0xffff_fffc,
            2 => u64::MAX - 4 * len as u64 - (r.next_u64() & 0xfc),
            _ => r.next_u64() & !3 & 0x0000_ffff_ffff_ffff,
        };
        let ok =
            catch_unwind(AssertUnwindSafe(|| decode_batch(&batch, base))).unwrap_or_else(|_| {
                panic!("case {case}: decode panicked on {batch:02x?} at {base:#x}")
            });
        if ok {
            clean += 1;
        } else {
            diagnosed += 1;
        }
    }
    eprintln!("random batches: {n} cases, {clean} decoded cleanly, {diagnosed} diagnosed");
    // Both outcomes: a batch whose first dword is MI_BATCH_BUFFER_END (one in sixteen at
    // least) decodes cleanly, and most others meet a random dword or 0xffffffff that is no
    // command.
    assert!(
        clean > 0 && diagnosed > 0,
        "both outcomes: {clean} decoded cleanly, {diagnosed} with diagnostics"
    );
}

#[test]
fn mutated_traces_decode_without_panicking() {
    let sample = gtsim_gpu::sample::aub().expect("the embedded sample builds");
    let mut r = rng(2);
    let n = cases(200);
    let (mut whole, mut refused) = (0, 0);
    for case in 0..n {
        let mut t = sample.clone();
        for _ in 0..1 + r.below(8) {
            let i = r.below(t.len());
            match r.below(3) {
                0 => t[i] ^= 1 << r.below(8),
                1 => t[i] = r.next_u64() as u8,
                _ => {
                    // A dword to an extreme value (lengths, addresses, sizes).
                    let i = i & !3;
                    if i + 4 <= t.len() {
                        let v = [0u32, 1, 0x7fff_ffff, 0xffff_ffff][r.below(4)];
                        t[i..i + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
            }
        }
        if r.below(4) == 0 {
            t.truncate(r.below(t.len() + 1));
        }
        let read_whole = catch_unwind(AssertUnwindSafe(|| {
            let trace = aub::parse(&t);
            let items = gtsim_gpu::trace::decode_trace(&gtsim_spec::gen7::GENERATION, &trace);
            let _ = render(
                &items,
                RenderOptions {
                    color: false,
                    raw: false,
                },
            );
            trace.error.is_none() && trace.diagnostics.is_empty()
        }))
        .unwrap_or_else(|_| panic!("case {case}: trace decode panicked"));
        if read_whole {
            whole += 1;
        } else {
            refused += 1;
        }
    }
    eprintln!("mutated traces: {n} cases, {whole} read whole, {refused} refused");
    // Both outcomes: a quarter of the traces are cut (almost always inside a packet: a
    // typed error), and the mutated bytes miss the packets' headers, lengths and
    // operations (some 15% of the file) in about half of the others.
    assert!(
        whole > 0 && refused > 0,
        "both outcomes: {whole} read whole, {refused} refused"
    );
}

/// A random kernel: decodable random instructions, with structured branches, jumps and
/// sends mixed in, sometimes ending in an EOT send.
fn kernel(r: &mut Rng) -> Vec<u8> {
    let templates = [
        "add(8) g10<1>F g2<8,8,1>F g3<8,8,1>F { align1 1Q };",
        "(+f0.0) if(8) JIP: LABEL1 UIP: LABEL1 { align1 1Q };",
        "else(8) JIP: LABEL1 { align1 1Q };",
        "endif(8) JIP: LABEL1 { align1 1Q };",
        "(+f0.0) while(8) JIP: LABEL0 { align1 1Q };",
        "while(8) JIP: LABEL0 { align1 1Q };",
        "(+f0.0) break(8) JIP: LABEL1 UIP: LABEL1 { align1 1Q };",
        "cont(8) JIP: LABEL0 UIP: LABEL0 { align1 1Q };",
        "halt(8) JIP: LABEL1 UIP: LABEL1 { align1 1Q };",
        "jmpi(1) -16D { align1 1N };",
        "jmpi(1) 0D { align1 1N };",
        "cmp.l.f0.0(8) null<1>F g4<8,8,1>F g5<8,8,1>F { align1 1Q };",
        "mov(8) a0<1>UW 0x0040UW { align1 1Q };",
        "mov(8) g20<1>F g[a0]<8,8,1>F { align1 1Q };",
        "send(8) g30<1>UW g2<8,8,1>UD 0x04420001 sampler MsgDesc: x { align1 1Q };",
        "math inv(8) g6<1>F g7<8,8,1>F null<8,8,1>F { align1 1Q };",
        "math intdiv(8) g6<1>D g7<8,8,1>D g8<8,8,1>D { align1 1Q };",
    ];
    let mut text = String::from("LABEL0:\n");
    let n = 1 + r.below(10);
    let mut out = vec![];
    for i in 0..n {
        if r.below(2) == 0 {
            text.push_str(templates[r.below(templates.len())]);
            text.push('\n');
        } else {
            // A random instruction that decodes, re-encoded natively.
            for _ in 0..50 {
                let mut b = [0u8; 16];
                b.iter_mut().for_each(|x| *x = r.next_u64() as u8);
                b[0] &= !0x20 & 0x7f; // native, real opcode range
                b[3] &= !0x20;
                if let Ok((ins, 16)) = gtsim_isa::gen7::decode::decode(&b)
                    && ins.opcode.kind() != gtsim_isa::opcode::Kind::Branch
                {
                    // As text (so labels in the template lines still resolve).
                    if let Ok(lines) = gtsim_isa::disasm::disassemble(&b) {
                        text.push_str(&lines.join("\n"));
                        text.push('\n');
                    }
                    break;
                }
            }
        }
        if i == n / 2 {
            text.push_str("LABEL1:\n");
        }
    }
    if !text.contains("LABEL1:") {
        text.push_str("LABEL1:\n");
    }
    if r.below(2) == 0 {
        text.push_str("send(8) null<1>UW g127<8,8,1>UD 0x82000000 thread_spawner MsgDesc: { align1 1Q EOT };\n");
    }
    if let Ok(b) = gtsim_isa::asm::assemble(&text, gtsim_isa::asm::Compaction::Never) {
        out = b;
    }
    out
}

#[test]
fn random_kernels_run_to_an_end() {
    let mut r = rng(3);
    let n = cases(300);
    let budget = 2_000;
    let (mut ran, mut stopped) = (0, 0);
    for case in 0..n {
        let code = kernel(&mut r);
        if code.is_empty() {
            continue;
        }
        let simd = [1u8, 8, 16][r.below(3)];
        let mut t = Thread::new(simd);
        for b in t.grf_bytes_mut().iter_mut() {
            *b = r.next_u64() as u8;
        }
        let res = catch_unwind(AssertUnwindSafe(|| harness::run_thread(t, &code, budget)))
            .unwrap_or_else(|_| panic!("case {case}: exec panicked on {code:02x?}"));
        match res {
            Ok(run) => {
                assert!(run.executed <= budget, "case {case}: ran past the budget");
                ran += 1;
            }
            Err(_) => stopped += 1,
        }
    }
    eprintln!("random kernels: {n} cases, {ran} ended, {stopped} stopped with an error");
    // Both outcomes: campaigns (docs/FUZZING.md) ended 37% and stopped 60% of the kernels.
    assert!(
        ran > 0 && stopped > 0,
        "both outcomes: {ran} ended, {stopped} stopped with an error"
    );
}

#[test]
fn a_runaway_kernel_is_an_error() {
    let code = gtsim_isa::asm::assemble(
        "LABEL0:\nwhile(8) JIP: LABEL0 { align1 1Q };\n",
        gtsim_isa::asm::Compaction::Never,
    )
    .unwrap();
    let e = harness::run_thread(Thread::new(8), &code, 500)
        .unwrap_err()
        .to_string();
    assert!(e.contains("runaway"), "{e}");
}
