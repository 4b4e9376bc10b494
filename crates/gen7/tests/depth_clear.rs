//! The depth buffer clear of 3DSTATE_WM Depth Buffer Clear (seed 004 §11.5.3.1) with the
//! value 3DSTATE_CLEAR_PARAMS gives, or, when its Depth Clear Value Valid is clear, the
//! primitive's own depth. Expectations worked by hand from the seed.

mod common;

use common::*;
use gtsim_spec::gen7::{
    DepthStencilState, ThreeDStateClearParams, ThreeDStateDepthBuffer,
    ThreeDStateDepthStencilStatePointers, ThreeDStateVertexElements, ThreeDStateWm,
    three_d_state_depth_buffer as db,
};
use gtsim_spec::shared::{
    SurfaceFormat, ThreeDPrimTopoType as T, ThreeDVertexComponentControl as C,
};

/// The D32_FLOAT depth buffer (16 x 16 in one 4 KiB Y tile: depth buffers are Y-tiled,
/// seed 004 §11.5.5).
const DEPTH: u64 = 0x80000;

/// Byte offset of pixel (x, y) of a 4-byte format in a Y tile of pitch 128: 16-byte
/// columns of 32 rows, one after the other (512 bytes each).
fn y_tiled(x: u32, y: u32) -> usize {
    let byte = 4 * x;
    ((byte / 16) * 512 + y * 16 + byte % 16) as usize
}

/// A RECTLIST over [2, 14) x [2, 14) at depth `z` (each vertex's third float, which the
/// vertex elements below read as the position's z), cleared with Depth Buffer Clear, with
/// 3DSTATE_CLEAR_PARAMS holding `field` and `valid`; returns the depth buffer's dwords in
/// raster order.
fn clear(z: f32, field: f32, valid: bool) -> Vec<u32> {
    let v = |x: f32, y: f32| [x, y, z, 0.0, 0.0, 1.0];
    let (mut st, mut mem) = setup(
        &[v(14.0, 14.0), v(2.0, 14.0), v(2.0, 2.0)],
        PS_FLAT_SIMD16,
        false,
        None,
        true,
    );
    // The VUE: a zero header, the position (x, y, z, 1) and the colour.
    let header = element(SurfaceFormat::R32G32B32A32_FLOAT, 0, [C::VFCOMP_STORE_0; 4]);
    let position = element(
        SurfaceFormat::R32G32B32_FLOAT,
        0,
        [
            C::VFCOMP_STORE_SRC,
            C::VFCOMP_STORE_SRC,
            C::VFCOMP_STORE_SRC,
            C::VFCOMP_STORE_1_FP,
        ],
    );
    let colour = element(
        SurfaceFormat::R32G32B32A32_FLOAT,
        8,
        [C::VFCOMP_STORE_SRC; 4],
    );
    st.commands.insert(
        "3DSTATE_VERTEX_ELEMENTS",
        ThreeDStateVertexElements {
            element: vec![header, position, colour],
        }
        .pack()
        .unwrap(),
    );
    mem.load(DEPTH, &[0u8; 4096]);
    st.commands.insert(
        "3DSTATE_DEPTH_BUFFER",
        ThreeDStateDepthBuffer {
            surface_type: db::SurfaceType::SURFTYPE_2D,
            surface_format: db::SurfaceFormat::D32_FLOAT,
            depth_write_enable: true,
            surface_pitch: 128 - 1,
            surface_base_address: DEPTH,
            width: (W - 1) as u16,
            height: (W - 1) as u16,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    // DEPTH_STENCIL_STATE with depth writes on (what BLORP's HiZ clear programs), in the
    // dynamic state at +0x380.
    let ds = DepthStencilState {
        depth_buffer_write_enable: true,
        ..Default::default()
    };
    mem.load(SURFACE_BASE + 0x380, &bytes(&ds.pack().unwrap()));
    st.commands.insert(
        "3DSTATE_DEPTH_STENCIL_STATE_POINTERS",
        ThreeDStateDepthStencilStatePointers {
            pointer_to_depth_stencil_state: 0x380,
        }
        .pack()
        .unwrap(),
    );
    // A depth clear dispatches no pixel shader (§11.5.3.1).
    st.commands.insert(
        "3DSTATE_WM",
        ThreeDStateWm {
            depth_buffer_clear: true,
            ..Default::default()
        }
        .pack()
        .unwrap(),
    );
    st.commands.insert(
        "3DSTATE_CLEAR_PARAMS",
        ThreeDStateClearParams {
            depth_clear_value: field.to_bits(),
            depth_clear_value_valid: valid,
        }
        .pack()
        .unwrap(),
    );
    run(&st, &mut mem, &primitive(T::_3DPRIM_RECTLIST, 3)).unwrap();
    let mut raw = [0u8; 4096];
    mem.read(DEPTH, &mut raw).unwrap();
    (0..W * W)
        .map(|i| {
            let at = y_tiled(i % W, i / W);
            u32::from_le_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]])
        })
        .collect()
}

/// Every dword of the 16 x 16 buffer: `inside` in the rectangle's 144 pixels, 0 outside.
fn assert_cleared(got: &[u32], inside: u32) {
    for y in 0..W {
        for x in 0..W {
            let lit = (2..14).contains(&x) && (2..14).contains(&y);
            let want = if lit { inside } else { 0 };
            assert_eq!(got[(y * W + x) as usize], want, "({x}, {y})");
        }
    }
}

#[test]
fn a_valid_clear_value_is_what_the_clear_stores() {
    // Depth Clear Value Valid set: "the depth clear value is obtained from the Depth
    // Clear Value field of this command" (seed 004 3DSTATE_CLEAR_PARAMS), whatever the
    // rectangle's depth.
    assert_cleared(&clear(0.25, 0.75, true), 0.75f32.to_bits());
}

#[test]
fn without_a_valid_clear_value_the_clear_stores_the_primitive_depth() {
    // Valid clear: "the depth clear value is obtained from interpolated depth of an
    // arbitrary pixel of the primitive rendered with Depth Buffer Clear set": the
    // rectangle's depth is 0.25 everywhere (0x3E800000), not the field's 0.75.
    assert_cleared(&clear(0.25, 0.75, false), 0x3e80_0000);
}
