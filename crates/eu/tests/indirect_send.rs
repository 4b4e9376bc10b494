//! A send whose message descriptor is in a register (IVB PRM Vol4 Part3 "send": src1 an
//! immediate or a register; Mesa's indirect sends put it in the address register a0.0).

use gtsim_eu::exec::{Message, MessageError, Program, SharedFunctions, Thread};
use gtsim_isa::asm::{Compaction, assemble};

/// Records the descriptors it is sent and answers with `rlen` registers of 0x5a.
#[derive(Default)]
struct Recorder {
    descs: Vec<u32>,
}

impl SharedFunctions for Recorder {
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError> {
        self.descs.push(m.desc);
        Ok(vec![[0x5a; 32]; m.response_length as usize])
    }
}

fn run(kernel: &str) -> (Vec<u32>, Vec<u8>) {
    let prog = Program::new(
        gtsim_isa::Encoding::IvyBridge,
        &assemble(kernel, Compaction::Never).unwrap(),
    );
    let mut t = Thread::new(8);
    let mut r = Recorder::default();
    t.run_program(&prog, &mut r, 100).unwrap();
    (r.descs, t.grf_bytes()[64..96].to_vec())
}

/// The descriptor 0x02107000 (sampler ld, mlen 1, rlen 1) set in a0.0 by `mov`: the
/// message carries it and its one response register lands in g2.
#[test]
fn a_descriptor_in_a0_is_the_register_value() {
    let kernel =
        "mov(1)          a0<1>UD         0x02107000UD                    { align1 WE_all 1N };
send(8)         g2<1>UW         g4<8,8,1>UD     a0<0,1,0>UD     0x00000200
                            sampler MsgDesc: indirect { align1 1Q };
send(8)         null<1>UW       g2<8,8,1>UD     0x02000000
                            null MsgDesc: { align1 1Q EOT };";
    let (descs, g2) = run(kernel);
    assert_eq!(descs[0], 0x0210_7000);
    assert_eq!(g2, vec![0x5a; 32]);
}

/// The same descriptor in g6.0 (src1 a GRF register).
#[test]
fn a_descriptor_in_a_grf_is_its_first_dword() {
    let kernel =
        "mov(1)          g6<1>UD         0x02107000UD                    { align1 WE_all 1N };
send(8)         g2<1>UW         g4<8,8,1>UD     g6<0,1,0>UD
                            sampler MsgDesc: indirect { align1 1Q };
send(8)         null<1>UW       g2<8,8,1>UD     0x02000000
                            null MsgDesc: { align1 1Q EOT };";
    let (descs, g2) = run(kernel);
    assert_eq!(descs[0], 0x0210_7000);
    assert_eq!(g2, vec![0x5a; 32]);
}
