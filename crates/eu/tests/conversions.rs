//! Type conversions on `mov`, checked against the IEEE values worked by hand (IVB PRM
//! Vol4 Part3 "mov": the source is converted from its type to the destination's).

use gtsim_eu::exec::{Message, MessageError, Program, SharedFunctions, Thread};
use gtsim_isa::asm::{Compaction, assemble};

struct Nothing;

impl SharedFunctions for Nothing {
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError> {
        Ok(vec![[0; 32]; m.response_length as usize])
    }
}

/// A signed byte (B) source converts to float by its signed value: Mesa reads packed
/// SNORM8 texels this way (`mov(8) g22<1>F g21<32,8,4>B`), and -128 must stay -128.0,
/// not 4294967168.0.
#[test]
fn signed_bytes_convert_to_float_by_their_signed_value() {
    let values: [i32; 8] = [-128, -85, -1, 0, 1, 85, 127, -2];
    let mut kernel = String::new();
    for (i, v) in values.iter().enumerate() {
        kernel.push_str(&format!(
            "mov(1)          g4.{i}<1>D      {v}D                            {{ align1 WE_all 1N }};\n"
        ));
    }
    kernel.push_str(
        "mov(8)          g2<1>F          g4<32,8,4>B                     { align1 1Q };
mov(8)          g3<1>F          g4<32,8,4>UB                    { align1 1Q };
send(8)         null<1>UW       g2<8,8,1>UD     0x02000000
                            null MsgDesc: { align1 1Q EOT };",
    );
    let prog = Program::new(
        gtsim_isa::Encoding::IvyBridge,
        &assemble(&kernel, Compaction::Never).unwrap(),
    );
    let mut t = Thread::new(8);
    t.run_program(&prog, &mut Nothing, 1000).unwrap();
    let g = t.grf_bytes();
    let f = |reg: usize, c: usize| {
        let o = reg * 32 + 4 * c;
        f32::from_le_bytes([g[o], g[o + 1], g[o + 2], g[o + 3]])
    };
    for (c, v) in values.iter().enumerate() {
        // The low byte of each dword, as B and as UB.
        let b = *v as i8;
        assert_eq!(f(2, c), f32::from(b), "B channel {c}");
        assert_eq!(f(3, c), f32::from(b as u8), "UB channel {c}");
    }
}
