//! `triangle`: one vertex-coloured triangle on a dark grey background.
//!
//! The triangle spans most of the image with its base along the bottom:
//! red at the bottom-left corner, green at the bottom-right and blue at the
//! top centre, the colours interpolated smoothly in between. Vertex data
//! comes from a VBO described by a VAO; the shaders are GLSL 1.30.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, COLOR_ATTRIB, POSITION_ATTRIB, Session, TRIANGLE_VERTICES, run};

fn main() -> ExitCode {
    run("triangle", Attachments::Color, draw)
}

fn draw(session: &Session) -> Result<(), String> {
    let program = session.color_program()?;
    let (vao, _vbo) = session.vertices(
        &TRIANGLE_VERTICES,
        &[(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)],
    )?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program and vertex array were created through it.
    unsafe {
        gl.clear_color(0.1, 0.1, 0.1, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(program));
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
    }
    Ok(())
}
