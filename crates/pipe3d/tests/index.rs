//! Index buffer access worked by hand (seed 004 §2.2).

use gtsim_mem::{AddressSpace, Fault};
use gtsim_pipe3d::index::{IndexBuffer, IndexError, fetch, split_at_cuts};
use gtsim_spec::shared::ThreeDPrimTopoType as T;

fn mem_with(bytes: &[u8]) -> AddressSpace {
    let mut m = AddressSpace::new();
    m.map(0x1000, 4096);
    m.write(0x1000, bytes).unwrap();
    m
}

#[test]
fn word_indices_with_a_cut() {
    // Words 0, 1, 2, 0xffff, 3, 4, 5: with Cut Index Enable, 0xffff cuts the strip into
    // (0 1 2) and (3 4 5).
    let words: Vec<u8> = [0u16, 1, 2, 0xffff, 3, 4, 5]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let m = mem_with(&words);
    let ib = IndexBuffer {
        start: 0x1000,
        end: 0,
        format: 1,
        cut_index: Some(0xffff),
        cut_any_topology: false,
    };
    let got = fetch(&m, &ib, T::_3DPRIM_TRISTRIP, 0, 7).unwrap();
    assert_eq!(got[3], None);
    assert_eq!(split_at_cuts(&got), vec![vec![0, 1, 2], vec![3, 4, 5]]);
    // Without cut enable 0xffff is an ordinary index.
    let plain = IndexBuffer {
        cut_index: None,
        ..ib
    };
    assert_eq!(
        fetch(&m, &plain, T::_3DPRIM_TRISTRIP, 3, 1).unwrap(),
        vec![Some(0xffff)]
    );
}

#[test]
fn reads_past_the_end_address_are_zero() {
    // Dwords 7, 8, 9 with the end address at the last byte of the second: the third
    // reads 0.
    let dw: Vec<u8> = [7u32, 8, 9].iter().flat_map(|d| d.to_le_bytes()).collect();
    let m = mem_with(&dw);
    let ib = IndexBuffer {
        start: 0x1000,
        end: 0x1007,
        format: 2,
        cut_index: None,
        cut_any_topology: false,
    };
    assert_eq!(
        fetch(&m, &ib, T::_3DPRIM_TRILIST, 0, 3).unwrap(),
        vec![Some(7), Some(8), Some(0)]
    );
    // Byte indices from index 1 on.
    let b = IndexBuffer {
        format: 0,
        end: 0,
        ..ib
    };
    assert_eq!(
        fetch(&m, &b, T::_3DPRIM_POINTLIST, 1, 2).unwrap(),
        vec![Some(0), Some(0)]
    );
}

#[test]
fn bad_state_is_an_error() {
    let m = mem_with(&[0; 16]);
    let ib = IndexBuffer {
        start: 0x1001,
        end: 0,
        format: 1,
        cut_index: None,
        cut_any_topology: false,
    };
    assert_eq!(
        fetch(&m, &ib, T::_3DPRIM_TRILIST, 0, 1),
        Err(IndexError::Misaligned(0x1001))
    );
    let ib = IndexBuffer {
        start: 0x1000,
        end: 0,
        format: 3,
        cut_index: None,
        cut_any_topology: false,
    };
    assert_eq!(
        fetch(&m, &ib, T::_3DPRIM_TRILIST, 0, 1),
        Err(IndexError::Format(3))
    );
    let ib = IndexBuffer {
        start: 0x1000,
        end: 0,
        format: 1,
        cut_index: Some(0xffff),
        cut_any_topology: false,
    };
    assert!(matches!(
        fetch(&m, &ib, T::_3DPRIM_TRIFAN, 0, 1),
        Err(IndexError::CutTopology(6))
    ));
    // Unmapped memory faults: the fault names the 4-byte read of the first dword index,
    // at the start address on the unmapped page 0x8000.
    let ib = IndexBuffer {
        start: 0x8000,
        end: 0,
        format: 2,
        cut_index: None,
        cut_any_topology: false,
    };
    assert!(matches!(
        fetch(&m, &ib, T::_3DPRIM_TRILIST, 0, 1),
        Err(IndexError::Fault(Fault {
            addr: 0x8000,
            len: 4,
            page: 0x8000,
            kind: "read"
        }))
    ));
}

/// Gen8+ (seed 003 3DSTATE_VF_BODY Cut Index): any value cuts where an index equals it;
/// the format's all-ones is then an ordinary index, and a Cut Index wider than the
/// format "will never match" (iris passes OpenGL's glPrimitiveRestartIndex value).
#[test]
fn any_cut_index_cuts_where_an_index_equals_it() {
    let bytes = [0u8, 1, 2, 0x80, 0xff, 3, 4];
    let m = mem_with(&bytes);
    let ib = IndexBuffer {
        start: 0x1000,
        end: 0,
        format: 0,
        cut_index: Some(0x80),
        cut_any_topology: false,
    };
    let got = fetch(&m, &ib, T::_3DPRIM_TRISTRIP, 0, 7).unwrap();
    assert_eq!(
        got,
        vec![
            Some(0),
            Some(1),
            Some(2),
            None,
            Some(0xff),
            Some(3),
            Some(4)
        ]
    );
    assert_eq!(split_at_cuts(&got), vec![vec![0, 1, 2], vec![0xff, 3, 4]]);
    // Gen8+ cuts any topology, fans and loops too (Ivy Bridge's table refuses them).
    assert!(matches!(
        fetch(&m, &ib, T::_3DPRIM_TRIFAN, 0, 7),
        Err(IndexError::CutTopology(6))
    ));
    let any = IndexBuffer {
        cut_any_topology: true,
        ..ib
    };
    assert_eq!(fetch(&m, &any, T::_3DPRIM_TRIFAN, 0, 7).unwrap(), got);
    assert_eq!(fetch(&m, &any, T::_3DPRIM_LINELOOP, 0, 7).unwrap(), got);
    // 0x1ff matches no byte index, however its low byte reads.
    let wide = IndexBuffer {
        cut_index: Some(0x1ff),
        ..ib
    };
    assert!(
        fetch(&m, &wide, T::_3DPRIM_TRISTRIP, 0, 7)
            .unwrap()
            .iter()
            .all(Option::is_some)
    );
}
