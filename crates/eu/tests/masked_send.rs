//! A shared function's response that leaves dwords of the destination unwritten (seed 000
//! §2.13.2.3: a SIMD4x2 sampler writeback writes only the active samples' unmasked
//! channels): the EU writes the dwords the response says it writes and keeps the others.

use gtsim_eu::exec::{Message, MessageError, Program, Response, SharedFunctions, Thread};
use gtsim_isa::asm::{Compaction, assemble};

const KERNEL: &str =
    "mov(8)          g2<1>UD         0x11111111UD                    { align1 1Q };
send(8)         g2<1>UW         g4<8,8,1>UD     0x02107000
                            sampler MsgDesc: ld SIMD4x2 Surface = 0 Sampler = 0 mlen 1 rlen 1 { align1 1Q };
send(8)         null<1>UW       g2<8,8,1>UD     0x02000000
                            null MsgDesc: { align1 1Q EOT };";

/// Answers every message with dwords 0xaaaaaaaa of which only `written` are written.
struct Partial {
    written: Option<u8>,
}

impl SharedFunctions for Partial {
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError> {
        Ok(vec![[0xaa; 32]; m.response_length as usize])
    }

    fn send_masked(&mut self, m: &Message) -> Result<Response, MessageError> {
        Ok(Response {
            registers: self.send(m)?,
            written: self.written.map(|w| vec![w; m.response_length as usize]),
        })
    }
}

fn g2_after(written: Option<u8>) -> Vec<u32> {
    let prog = Program::new(
        gtsim_isa::Encoding::IvyBridge,
        &assemble(KERNEL, Compaction::Never).unwrap(),
    );
    let mut t = Thread::new(8);
    t.run_program(&prog, &mut Partial { written }, 100).unwrap();
    t.grf_bytes()[64..96]
        .chunks(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

#[test]
fn only_the_written_dwords_of_a_response_reach_the_grf() {
    let (a, k) = (0xaaaa_aaaa, 0x1111_1111);
    // Sample 0's R, B, A and sample 1's G written.
    assert_eq!(g2_after(Some(0b0010_1101)), [a, k, a, a, k, a, k, k]);
    assert_eq!(g2_after(Some(0)), [k; 8]);
    // A response without a mask writes whole registers.
    assert_eq!(g2_after(None), [a; 8]);
}
