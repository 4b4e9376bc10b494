//! `tessellation`: patches through tessellation control and evaluation shaders.
//!
//! Two draws of 4-vertex patches on a quad domain and one of 3-vertex patches on
//! a triangle domain, each patch's colour chosen in the control shader from
//! `gl_PrimitiveID` and passed as a per-patch output, its corners placed by the
//! evaluation shader from `gl_TessCoord`. Every tessellation level is 1, so each
//! quad patch becomes the two triangles of its domain and each triangle patch
//! one triangle.
//!
//! Exercises HS dispatch (one thread per patch, the control points read from the
//! URB by handle), the patch record with its tessellation factors and patch
//! constants, the TE's domains at factor 1 and DS threads over the domain points.

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

const TCS_QUAD: &str = "#version 150
#extension GL_ARB_tessellation_shader : require
layout(vertices = 4) out;
in vec4 v_pos[];
out vec4 c_pos[];
patch out vec4 c_color;
void main() {
    c_pos[gl_InvocationID] = v_pos[gl_InvocationID];
    c_color = vec4(float(gl_PrimitiveID % 3) * 0.4, 0.8 - float(gl_PrimitiveID % 2) * 0.4, 0.6, 1.0);
    gl_TessLevelOuter = float[4](1.0, 1.0, 1.0, 1.0);
    gl_TessLevelInner = float[2](1.0, 1.0);
}
";

const TES_QUAD: &str = "#version 150
#extension GL_ARB_tessellation_shader : require
layout(quads) in;
in vec4 c_pos[];
patch in vec4 c_color;
out vec4 e_color;
void main() {
    gl_Position = mix(mix(c_pos[0], c_pos[1], gl_TessCoord.x),
                      mix(c_pos[3], c_pos[2], gl_TessCoord.x), gl_TessCoord.y);
    e_color = c_color;
}
";

const TCS_TRI: &str = "#version 150
#extension GL_ARB_tessellation_shader : require
layout(vertices = 3) out;
in vec4 v_pos[];
out vec4 c_pos[];
patch out vec4 c_color;
void main() {
    c_pos[gl_InvocationID] = v_pos[gl_InvocationID];
    c_color = vec4(1.0, 0.2 * float(gl_PrimitiveID), 0.2, 1.0);
    gl_TessLevelOuter = float[4](1.0, 1.0, 1.0, 0.0);
    gl_TessLevelInner = float[2](1.0, 0.0);
}
";

const TES_TRI: &str = "#version 150
#extension GL_ARB_tessellation_shader : require
layout(triangles) in;
in vec4 c_pos[];
patch in vec4 c_color;
out vec4 e_color;
void main() {
    gl_Position = c_pos[0] * gl_TessCoord.x + c_pos[1] * gl_TessCoord.y + c_pos[2] * gl_TessCoord.z;
    e_color = c_color;
}
";

const FRAGMENT: &str = "#version 150
in vec4 e_color;
out vec4 frag_color;
void main() {
    frag_color = e_color;
}
";

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
    let quads = program(TCS_QUAD, TES_QUAD)?;
    let tris = program(TCS_TRI, TES_TRI)?;
    // Four quads on the upper half (corners counter-clockwise from lower left).
    let mut quad_data = vec![];
    for i in 0..4 {
        let x = -0.9 + 0.45 * i as f32;
        for (dx, dy) in [(0.0, 0.1), (0.4, 0.1), (0.35, 0.8), (0.05, 0.7)] {
            quad_data.extend([x + dx, dy, 0.0, 0.0, 0.0, 0.0, 0.0]);
        }
    }
    // Three triangles on the lower half.
    let mut tri_data = vec![];
    for i in 0..3 {
        let x = -0.9 + 0.6 * i as f32;
        for (dx, dy) in [(0.0, -0.9), (0.5, -0.8), (0.2, -0.15)] {
            tri_data.extend([x + dx, dy, 0.0, 0.0, 0.0, 0.0, 0.0]);
        }
    }
    let layout = [(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)];
    let (quad_vao, _b0) = session.vertices(&quad_data, &layout)?;
    let (tri_vao, _b1) = session.vertices(&tri_data, &layout)?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // programs and vertex arrays were created through it.
    unsafe {
        gl.clear_color(0.05, 0.05, 0.1, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(quads));
        gl.bind_vertex_array(Some(quad_vao));
        gl.patch_parameter_i32(glow::PATCH_VERTICES, 4);
        gl.draw_arrays(glow::PATCHES, 0, 16);
        gl.use_program(Some(tris));
        gl.bind_vertex_array(Some(tri_vao));
        gl.patch_parameter_i32(glow::PATCH_VERTICES, 3);
        gl.draw_arrays(glow::PATCHES, 0, 9);
    }
    session.check_error("drawing")
}
