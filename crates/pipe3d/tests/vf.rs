//! Vertex element assembly against hand-worked dwords (seed 004 §2.4.2).

use gtsim_mem::format::texel::FormatError;
use gtsim_pipe3d::vf::{VertexIds, VfError, assemble_element};
use gtsim_spec::shared::{SurfaceFormat as Sf, ThreeDVertexComponentControl as C};

const SRC: C = C::VFCOMP_STORE_SRC;
const IDS: VertexIds = VertexIds {
    vertex: 7,
    instance: 3,
    primitive: 9,
};

#[test]
fn float_vec3_padded_with_one() {
    // R32G32B32_FLOAT (1.5, -2, 0.25) + STORE_1_FP: 0x3fc00000 0xc0000000 0x3e800000
    // 0x3f800000.
    let bytes: Vec<u8> = [1.5f32, -2.0, 0.25]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let d = assemble_element(
        Sf::R32G32B32_FLOAT,
        &bytes,
        [SRC, SRC, SRC, C::VFCOMP_STORE_1_FP],
        IDS,
    )
    .unwrap();
    assert_eq!(d, vec![0x3fc0_0000, 0xc000_0000, 0x3e80_0000, 0x3f80_0000]);
}

#[test]
fn unorm_bytes_and_integer_formats() {
    // R8G8B8A8_UNORM (255, 0, 51, 128): 1.0, 0.0, 0.2 (51/255), 128/255.
    let d = assemble_element(Sf::R8G8B8A8_UNORM, &[255, 0, 51, 128], [SRC; 4], IDS).unwrap();
    assert_eq!(
        d,
        vec![
            1.0f32.to_bits(),
            0,
            (51.0f32 / 255.0).to_bits(),
            (128.0f32 / 255.0).to_bits()
        ]
    );
    // R16G16_SINT (-2, 5) stays integer, sign-extended; then STORE_1_INT and VID.
    let d = assemble_element(
        Sf::R16G16_SINT,
        &[0xfe, 0xff, 5, 0],
        [SRC, SRC, C::VFCOMP_STORE_1_INT, C::VFCOMP_STORE_VID],
        IDS,
    )
    .unwrap();
    assert_eq!(d, vec![0xffff_fffe, 5, 1, 7]);
    // R16G16_SSCALED (-2, 5) becomes floats -2.0, 5.0.
    let d = assemble_element(
        Sf::R16G16_SSCALED,
        &[0xfe, 0xff, 5, 0],
        [SRC, SRC, C::VFCOMP_NOSTORE, C::VFCOMP_NOSTORE],
        IDS,
    )
    .unwrap();
    assert_eq!(d, vec![(-2.0f32).to_bits(), 5.0f32.to_bits()]);
}

#[test]
fn generated_ids_without_a_source() {
    let d = assemble_element(
        Sf::R32_FLOAT,
        &[],
        [
            C::VFCOMP_STORE_IID,
            C::VFCOMP_STORE_PID,
            C::VFCOMP_STORE_0,
            C::VFCOMP_NOSTORE,
        ],
        IDS,
    )
    .unwrap();
    assert_eq!(d, vec![3, 9, 0]);
}

#[test]
fn holes_are_errors() {
    let e = assemble_element(Sf::R32_FLOAT, &[0; 4], [C::VFCOMP_NOSTORE; 4], IDS).unwrap_err();
    assert!(matches!(e, VfError::ComponentControl { component: 0, .. }));
    let e = assemble_element(
        Sf::R32_FLOAT,
        &[0; 4],
        [SRC, C::VFCOMP_NOSTORE, SRC, C::VFCOMP_NOSTORE],
        IDS,
    )
    .unwrap_err();
    assert!(matches!(e, VfError::ComponentControl { component: 2, .. }));
    let e = assemble_element(
        Sf::R32_FLOAT,
        &[0; 4],
        [C::VFCOMP_STORE_0, SRC, SRC, SRC],
        IDS,
    )
    .unwrap_err();
    assert!(matches!(e, VfError::ComponentControl { component: 1, .. }));
    // A source shorter than its format is a format error, not a panic.
    let e = assemble_element(Sf::R32G32B32_FLOAT, &[0; 4], [SRC; 4], IDS).unwrap_err();
    assert_eq!(
        e,
        VfError::Format(FormatError::WrongLength {
            format: "R32G32B32_FLOAT",
            expected: 12,
            got: 4
        }),
        "{e}"
    );
}

#[test]
fn vertex_and_instance_indices_and_fetch_bounds() {
    use gtsim_mem::AddressSpace;
    use gtsim_pipe3d::vf::{VertexBuffer, fetch_source, vb_index, vertex_index};
    // SEQUENTIAL: start 10 + number 3 = 13. RANDOM: IB value 5 + base vertex -2 = 3; a cut
    // gives no index.
    assert_eq!(vertex_index(10, 3, None, 0), Some(13));
    assert_eq!(vertex_index(10, 3, Some(Some(5)), -2), Some(3));
    assert_eq!(vertex_index(10, 3, Some(None), 0), None);
    // INSTANCEDATA, step rate 2, start instance 4: instance 5 -> 4 + 5/2 = 6.
    let mut vb = VertexBuffer {
        start: 0x1000,
        pitch: 8,
        end: 0x1017,
        instance_step_rate: Some(2),
        address_bits: 32,
    };
    assert_eq!(vb_index(&vb, 99, 5, 4), 6);
    vb.instance_step_rate = None;
    assert_eq!(vb_index(&vb, 99, 5, 4), 99);
    // Three 8-byte structures (end 0x1017): structure 2 at 0x1010 reads; structure 3
    // (0x1018) is past the end and reads zeros; so does a negative index.
    let mut m = AddressSpace::new();
    m.map(0x1000, 4096);
    m.write(0x1010, &[1, 2, 3, 4]).unwrap();
    m.write(0x1018, &[9, 9, 9, 9]).unwrap();
    assert_eq!(fetch_source(&m, &vb, 2, 0, 4).unwrap(), vec![1, 2, 3, 4]);
    assert_eq!(fetch_source(&m, &vb, 3, 0, 4).unwrap(), vec![0; 4]);
    assert_eq!(fetch_source(&m, &vb, -1, 0, 4).unwrap(), vec![0; 4]);
    // Element offset 6 with 4 bytes crosses the end of structure 2's buffer: zeros.
    assert_eq!(fetch_source(&m, &vb, 2, 6, 4).unwrap(), vec![0; 4]);
    // A start 0xf00 bytes below 0 (0xfffff100 in 32 bits, as Mesa points a client
    // array's buffer before its upload): structure 0x401 is at 0xfffff100 + 0x2008 =
    // 0x1_0000_1108, 0x1108 modulo 2^32, below the End Address 0x1fff: it reads.
    m.write(0x1108, &[5, 6, 7, 8]).unwrap();
    let low = VertexBuffer {
        start: 0xffff_f100,
        pitch: 8,
        end: 0x1fff,
        instance_step_rate: None,
        address_bits: 32,
    };
    assert_eq!(
        fetch_source(&m, &low, 0x401, 0, 4).unwrap(),
        vec![5, 6, 7, 8]
    );
}

#[test]
fn primitive_ids_follow_the_seed_table() {
    // Seed 004 §2.5.13, "PrimitiveID Outputs" column.
    use gtsim_pipe3d::vf::primitive_ids;
    use gtsim_spec::shared::ThreeDPrimTopoType as T;
    let ids = |t, n| primitive_ids(t, n, 0).unwrap().0;
    assert_eq!(ids(T::_3DPRIM_POINTLIST, 4), [0, 1, 2, 3]);
    assert_eq!(ids(T::_3DPRIM_LINELIST, 8), [0, 0, 1, 1, 2, 2, 3, 3]);
    assert_eq!(ids(T::_3DPRIM_LINELIST_ADJ, 8), [0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(ids(T::_3DPRIM_LINESTRIP, 5), [0, 0, 1, 2, 3]);
    assert_eq!(ids(T::_3DPRIM_TRILIST, 9), [0, 0, 0, 1, 1, 1, 2, 2, 2]);
    // The table lists five leading 0s for TRILIST_ADJ and TRISTRIP_ADJ, but its own S, R
    // (1, 5 and 5, 1) and the pseudocode give six, which is also what a 6-vertex
    // TRILIST_ADJ triangle needs. The pseudocode is followed.
    assert_eq!(
        ids(T::_3DPRIM_TRILIST_ADJ, 12),
        [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
    );
    assert_eq!(ids(T::_3DPRIM_TRISTRIP, 6), [0, 0, 0, 1, 2, 3]);
    assert_eq!(
        ids(T::_3DPRIM_TRISTRIP_ADJ, 10),
        [0, 0, 0, 0, 0, 0, 1, 1, 2, 2]
    );
    assert_eq!(ids(T::_3DPRIM_TRIFAN, 6), [0, 0, 0, 1, 2, 3]);
    assert_eq!(ids(T::_3DPRIM_QUADLIST, 8), [0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(ids(T::_3DPRIM_QUADSTRIP, 8), [0, 0, 0, 0, 1, 1, 2, 2]);
    assert_eq!(ids(T::_3DPRIM_PATCHLIST_1, 4), [0, 1, 2, 3]);
    assert_eq!(ids(T::_3DPRIM_PATCHLIST_2, 4), [0, 0, 1, 1]);
    // The ID carries on from `start`, and the next run continues from the last one.
    assert_eq!(
        primitive_ids(T::_3DPRIM_POINTLIST, 2, 5).unwrap(),
        (vec![5, 6], 6)
    );
}
