//! `depth`: depth testing with a depth renderbuffer.
//!
//! Two overlapping flat triangles on a black background: a red one pointing
//! up at depth z = -0.5 (near) and a blue one pointing down at z = +0.5
//! (far). They are drawn in the *wrong* order, near first, with
//! `GL_DEPTH_TEST` and `GL_LESS` against a depth buffer cleared to 1.0, so
//! the red triangle must stay in front where they overlap (the middle band
//! of the image). Without a working depth test the blue one would cover it.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, COLOR_ATTRIB, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("depth", Attachments::ColorDepth, draw)
}

#[rustfmt::skip]
const VERTICES: [f32; 42] = [
    // x     y     z     r    g    b    a
    // near, red, pointing up: drawn first
    -0.8, -0.8, -0.5,  1.0, 0.0, 0.0, 1.0,
     0.8, -0.8, -0.5,  1.0, 0.0, 0.0, 1.0,
     0.0,  0.6, -0.5,  1.0, 0.0, 0.0, 1.0,
    // far, blue, pointing down: drawn second
    -0.8,  0.8,  0.5,  0.0, 0.0, 1.0, 1.0,
     0.0, -0.6,  0.5,  0.0, 0.0, 1.0, 1.0,
     0.8,  0.8,  0.5,  0.0, 0.0, 1.0, 1.0,
];

fn draw(session: &Session) -> Result<(), String> {
    let program = session.color_program()?;
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
        gl.bind_vertex_array(Some(vao));
        // Two draw calls, near triangle first.
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.draw_arrays(glow::TRIANGLES, 3, 3);
    }
    Ok(())
}
