//! Gen11 split sends (`sends`): two payloads and an extended descriptor. The kernels are
//! iris's own (its ICL vertex shader for the atomic counters client, `INTEL_DEBUG=vs`,
//! `crates/isa/tests/corpus/gen11/atomic_counters.mesa.txt`): Mesa's disassembly names
//! the registers and descriptors each message must carry. The register form follows
//! Mesa brw_eu_emit.c brw_send_indirect_split_message: the extended descriptor is the
//! whole a0 dword, ex_mlen (9:6) included.

use gtsim_eu::exec::{Message, MessageError, Program, SharedFunctions, Thread};
use gtsim_isa::Encoding;
use gtsim_isa::asm::{Compaction, assemble_for};

/// What each message carried.
#[derive(Default)]
struct Recorder {
    seen: Vec<Message>,
}

impl SharedFunctions for Recorder {
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError> {
        self.seen.push(m.clone());
        Ok(vec![[0x5a; 32]; m.response_length as usize])
    }
}

fn bytes(hex: &str) -> Vec<u8> {
    hex.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

/// Runs `code` with every register gN holding N in each byte.
fn run(code: &[u8]) -> Vec<Message> {
    let prog = Program::new(Encoding::IceLake, code);
    let mut t = Thread::new(8);
    for (i, b) in t.grf_bytes_mut().iter_mut().enumerate() {
        *b = (i / 32) as u8;
    }
    let mut r = Recorder::default();
    t.run_program(&prog, &mut r, 100).unwrap();
    r.seen
}

#[test]
fn iris_split_sends_carry_both_payloads_and_the_extended_descriptor() {
    // sends(8) nullUD g7UD g9UD 0x02009700 0x00000040: DC untyped atomic add, mlen 1,
    // ex_mlen 1; then the EOT URB write sends(8) nullUD g126UD g122UD 0x02080017
    // 0x00000100: mlen 1, ex_mlen 4.
    let mut code = bytes("33 00 60 0c 10 90 00 00 e1 00 00 00 00 97 00 02");
    code.extend(bytes("33 00 60 06 10 a0 07 00 c4 0f 00 00 17 00 08 82"));
    let seen = run(&code);
    assert_eq!(seen.len(), 2);
    let (atomic, urb) = (&seen[0], &seen[1]);
    assert_eq!((atomic.desc, atomic.ex_desc), (0x0200_9700, 0x40));
    assert_eq!(*atomic.payload, [[7u8; 32]]);
    assert_eq!(*atomic.payload2, [[9u8; 32]]);
    assert!(!atomic.eot);
    assert_eq!((urb.desc, urb.ex_desc), (0x0208_0017, 0x100));
    assert_eq!(*urb.payload, [[126u8; 32]]);
    assert_eq!(
        *urb.payload2,
        [[122u8; 32], [123; 32], [124; 32], [125; 32]]
    );
    assert!(urb.eot);
}

/// Both descriptors in a0: the descriptor in a0.0 (a split send's sources are both
/// payloads), the extended descriptor in a0.2 with its ex_mlen of 2.
#[test]
fn descriptors_in_a0_are_the_register_values() {
    let text = "mov(1)          a0<1>UD         0x02009700UD                    { align1 WE_all 1N };
mov(1)          a0.2<1>UD       0x0000008cUD                    { align1 WE_all 1N };
sends(8)        nullUD          g7UD            g9UD            a0<0>UD         a0.2<0>UD
                            dp data 1 MsgDesc: indirect ex_mlen 2 { align1 1Q };
sends(8)        nullUD          g126UD          g122UD          0x02080017                0x00000100
                            urb MsgDesc: offset 1 SIMD8 write mlen 1 ex_mlen 4 rlen 0 { align1 1Q EOT };";
    let code = assemble_for(Encoding::IceLake, text, Compaction::Never).unwrap();
    let seen = run(&code);
    assert_eq!(seen[0].desc, 0x0200_9700);
    assert_eq!(seen[0].ex_desc, 0x8c);
    assert_eq!(*seen[0].payload, [[7u8; 32]]);
    assert_eq!(*seen[0].payload2, [[9u8; 32], [10; 32]]);
}
