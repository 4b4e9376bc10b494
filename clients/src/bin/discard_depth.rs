//! `discard_depth`: a fragment shader that discards and writes `gl_FragDepth`,
//! with the depth test on.
//!
//! First a full-screen red quad whose fragment shader discards a 4x4-pixel
//! checkerboard and writes `gl_FragDepth = gl_FragCoord.x / 64`; then a
//! full-screen blue quad at window depth 0.5 with `GL_LESS`. The blue quad
//! shows where the red one was discarded (depth still 1.0) and in the right
//! half, where the red depth (x + 0.5) / 64 exceeds 0.5; the red remains on
//! the left half's other squares. The depth and stencil tests have to run
//! after the pixel shader here, which is what this client exercises.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{
    Attachments, COLOR_ATTRIB, COLOR_VERTEX_SHADER, POSITION_ATTRIB, Session, run,
};

fn main() -> ExitCode {
    run("discard_depth", Attachments::ColorDepth, draw)
}

const FRAGMENT: &str = "#version 130
in vec4 v_color;
out vec4 frag_color;
uniform bool discarding;
void main() {
    ivec2 c = ivec2(gl_FragCoord.xy) / 4;
    if (discarding && ((c.x + c.y) & 1) == 0)
        discard;
    frag_color = v_color;
    gl_FragDepth = discarding ? gl_FragCoord.x / 64.0 : gl_FragCoord.z;
}
";

#[rustfmt::skip]
const VERTICES: [f32; 84] = [
    // x     y    z     r    g    b    a
    -1.0, -1.0, 0.0,  1.0, 0.0, 0.0, 1.0,
     1.0, -1.0, 0.0,  1.0, 0.0, 0.0, 1.0,
     1.0,  1.0, 0.0,  1.0, 0.0, 0.0, 1.0,
    -1.0, -1.0, 0.0,  1.0, 0.0, 0.0, 1.0,
     1.0,  1.0, 0.0,  1.0, 0.0, 0.0, 1.0,
    -1.0,  1.0, 0.0,  1.0, 0.0, 0.0, 1.0,
    -1.0, -1.0, 0.0,  0.0, 0.0, 1.0, 1.0,
     1.0, -1.0, 0.0,  0.0, 0.0, 1.0, 1.0,
     1.0,  1.0, 0.0,  0.0, 0.0, 1.0, 1.0,
    -1.0, -1.0, 0.0,  0.0, 0.0, 1.0, 1.0,
     1.0,  1.0, 0.0,  0.0, 0.0, 1.0, 1.0,
    -1.0,  1.0, 0.0,  0.0, 0.0, 1.0, 1.0,
];

fn draw(session: &Session) -> Result<(), String> {
    let program = session.program(
        COLOR_VERTEX_SHADER,
        FRAGMENT,
        &[(POSITION_ATTRIB, "position"), (COLOR_ATTRIB, "color")],
    )?;
    let (vao, _vbo) = session.vertices(&VERTICES, &[(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)])?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program and vertex array were created through it.
    unsafe {
        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::LESS);
        gl.depth_mask(true);
        gl.clear_color(0.0, 0.0, 0.0, 1.0);
        gl.clear_depth_f64(1.0);
        gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
        gl.use_program(Some(program));
        let loc = gl.get_uniform_location(program, "discarding");
        gl.bind_vertex_array(Some(vao));
        gl.uniform_1_i32(loc.as_ref(), 1);
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        gl.uniform_1_i32(loc.as_ref(), 0);
        gl.draw_arrays(glow::TRIANGLES, 6, 6);
    }
    Ok(())
}
