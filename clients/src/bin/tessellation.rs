//! `tessellation`: patches through tessellation control and evaluation shaders, with
//! every domain and spacing, so the image shows the tessellator's point pattern.
//!
//! Top row: four quad patches, each coloured in the control shader from
//! `gl_PrimitiveID` (a per-patch output), every level 1, so each becomes the two
//! triangles of its domain. Middle row: quad patches with unequal outer and inner
//! levels in equal, fractional-odd and fractional-even spacing, and a triangle patch in
//! fractional-odd spacing wound clockwise; every domain point is coloured from
//! `gl_TessCoord` and pushed sideways by a bump that vanishes on the patch's edges, so
//! both the interpolation across the triangles and their silhouettes depend on where
//! the tessellator puts each point. Bottom row: three triangle patches at level 1, a
//! triangle patch in point mode, and isolines (4 lines of fractional-even detail, in
//! the patch's colour).
//!
//! Two middle-row patches have more output control points than a SIMD8 HS thread
//! holds (12 and 21) and take their corners from the last thread's, so each instance
//! must know its Instance Number.
//!
//! Exercises HS dispatch (the control points read from the URB by handle), the patch
//! record with its tessellation factors and patch constants, the TE's D3D11 pattern
//! for the QUAD, TRI and ISOLINE domains in every partitioning and output topology,
//! and DS threads over the domain points.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, COLOR_ATTRIB, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("tessellation", Attachments::Color, draw)
}

const VERTEX: &str = "#version 150
in vec3 position;
out vec4 v_pos;
void main() {
    v_pos = vec4(position, 1.0);
}
";

/// A control shader for `n` output control points with the given outer and inner
/// levels; output point i is input point i modulo the patch's input count, so a shader
/// with more than eight outputs runs in more than one HS thread a patch (a SIMD8 HS
/// thread holds eight invocations).
fn control(n: usize, outer: [f32; 4], inner: [f32; 2]) -> String {
    format!(
        "#version 150
#extension GL_ARB_tessellation_shader : require
layout(vertices = {n}) out;
in vec4 v_pos[];
out vec4 c_pos[];
patch out vec4 c_color;
void main() {{
    c_pos[gl_InvocationID] = v_pos[gl_InvocationID % gl_PatchVerticesIn];
    c_color = vec4(float(gl_PrimitiveID % 3) * 0.4, 0.8 - float(gl_PrimitiveID % 2) * 0.4, 0.6, 1.0);
    gl_TessLevelOuter = float[4]({:?}, {:?}, {:?}, {:?});
    gl_TessLevelInner = float[2]({:?}, {:?});
}}
",
        outer[0], outer[1], outer[2], outer[3], inner[0], inner[1]
    )
}

/// An evaluation shader: `layout` the input layout qualifiers, `flat` whether the
/// colour is the patch's (else the domain point's, with the bump), `base` the first
/// control point it reads (the corners are control points `base` on).
fn evaluation(layout: &str, flat: bool, base: usize) -> String {
    let c = |i: usize| format!("c_pos[{}]", base + i);
    let (position, bump) = if layout.starts_with("quads") || layout.starts_with("isolines") {
        (
            format!(
                "mix(mix({}, {}, u), mix({}, {}, u), v)",
                c(0),
                c(1),
                c(3),
                c(2)
            ),
            "u * (1.0 - u) * v * (1.0 - v) * 0.5",
        )
    } else {
        (
            format!("{} * u + {} * v + {} * gl_TessCoord.z", c(0), c(1), c(2)),
            "u * v * gl_TessCoord.z * 1.2",
        )
    };
    let color = if flat {
        "c_color".to_string()
    } else {
        "vec4(u, v, fract(u * 3.0 + v * 5.0), 1.0)".to_string()
    };
    format!(
        "#version 150
#extension GL_ARB_tessellation_shader : require
layout({layout}) in;
in vec4 c_pos[];
patch in vec4 c_color;
out vec4 e_color;
void main() {{
    float u = gl_TessCoord.x;
    float v = gl_TessCoord.y;
    gl_Position = {position} + vec4({bump}, 0.0, 0.0, 0.0);
    e_color = {color};
}}
"
    )
}

const FRAGMENT: &str = "#version 150
in vec4 e_color;
out vec4 frag_color;
void main() {
    frag_color = e_color;
}
";

/// A patch list: `patches` patches of the corners `shape`, side by side from `x0` in
/// steps of `dx`, at height `y0`.
fn patches(shape: &[(f32, f32)], n: usize, x0: f32, dx: f32, y0: f32) -> Vec<f32> {
    let mut data = vec![];
    for i in 0..n {
        for (sx, sy) in shape {
            data.extend([x0 + dx * i as f32 + sx, y0 + sy, 0.0, 0.0, 0.0, 0.0, 0.0]);
        }
    }
    data
}

fn draw(session: &Session) -> Result<(), String> {
    let program = |tcs: &str, tes: &str| {
        session.program_stages(
            &[
                (glow::VERTEX_SHADER, "vertex", VERTEX),
                (glow::TESS_CONTROL_SHADER, "tessellation control", tcs),
                (glow::TESS_EVALUATION_SHADER, "tessellation evaluation", tes),
                (glow::FRAGMENT_SHADER, "fragment", FRAGMENT),
            ],
            &[(POSITION_ATTRIB, "position")],
        )
    };
    // Corners counter-clockwise from lower left.
    let quad = [(0.0, 0.0), (0.4, 0.0), (0.35, 0.5), (0.05, 0.45)];
    let big_quad = [(0.0, 0.0), (0.44, 0.02), (0.46, 0.58), (0.02, 0.56)];
    let tri = [(0.0, 0.0), (0.4, 0.05), (0.15, 0.5)];
    let big_tri = [(0.0, 0.0), (0.46, 0.04), (0.2, 0.58)];
    let unit = [1.0; 4];
    let draws: Vec<(String, String, usize, Vec<f32>, i32)> = vec![
        // Top row: every level 1, flat per-patch colours.
        (
            control(4, unit, [1.0; 2]),
            evaluation("quads", true, 0),
            4,
            patches(&quad, 4, -0.95, 0.48, 0.4),
            16,
        ),
        // Middle row: the pattern of each spacing.
        (
            // Twelve output control points (two HS threads a patch); the corners
            // are the second thread's.
            control(12, [2.0, 3.0, 5.0, 4.0], [3.0, 6.0]),
            evaluation("quads, equal_spacing", false, 8),
            4,
            patches(&big_quad, 1, -0.98, 0.0, -0.25),
            4,
        ),
        (
            control(4, [2.5, 1.2, 7.3, 4.0], [5.4, 2.2]),
            evaluation("quads, fractional_odd_spacing", false, 0),
            4,
            patches(&big_quad, 1, -0.49, 0.0, -0.25),
            4,
        ),
        (
            control(4, [3.3, 2.0, 6.6, 1.0], [4.1, 3.7]),
            evaluation("quads, fractional_even_spacing", false, 0),
            4,
            patches(&big_quad, 1, 0.0, 0.0, -0.25),
            4,
        ),
        (
            // Twenty-one (three HS threads); the corners are the third thread's.
            control(21, [2.2, 5.0, 3.7, 0.0], [4.6, 0.0]),
            evaluation("triangles, fractional_odd_spacing, cw", false, 18),
            3,
            patches(&big_tri, 1, 0.5, 0.0, -0.25),
            3,
        ),
        // Bottom row: triangles at level 1, points, isolines.
        (
            control(3, unit, [1.0; 2]),
            evaluation("triangles", true, 0),
            3,
            patches(&tri, 3, -0.95, 0.33, -0.9),
            9,
        ),
        (
            control(3, [3.0, 4.0, 5.0, 0.0], [5.0, 0.0]),
            evaluation("triangles, equal_spacing, point_mode", false, 0),
            3,
            patches(&big_tri, 1, 0.0517, 0.0, -0.9471),
            3,
        ),
        (
            control(4, [4.0, 5.5, 1.0, 1.0], [1.0; 2]),
            evaluation("isolines, fractional_even_spacing", true, 0),
            4,
            patches(&quad, 1, 0.5513, 0.0, -0.9029),
            4,
        ),
    ];
    let layout = [(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)];
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread.
    unsafe {
        gl.clear_color(0.05, 0.05, 0.1, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
    }
    for (tcs, tes, n, data, count) in &draws {
        let p = program(tcs, tes)?;
        let (vao, _buffer) = session.vertices(data, &layout)?;
        // SAFETY: as above; the program and vertex array were created through it and
        // the buffer lives until the draw is issued.
        unsafe {
            gl.use_program(Some(p));
            gl.bind_vertex_array(Some(vao));
            gl.patch_parameter_i32(glow::PATCH_VERTICES, *n as i32);
            gl.draw_arrays(glow::PATCHES, 0, *count);
        }
    }
    session.check_error("drawing")
}
