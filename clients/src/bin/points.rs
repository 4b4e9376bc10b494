//! `points`: wide points coloured by `gl_PointCoord`.
//!
//! Nine points on a 3x3 grid with sizes 3 to 11 pixels (set in the vertex
//! shader through `gl_PointSize`), each shading red = s and green = t of
//! its point sprite coordinate, on black. Exercises point width from the
//! vertex header, point rasterization and point sprite coordinates.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, COLOR_ATTRIB, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("points", Attachments::Color, draw)
}

const VERTEX: &str = "#version 130
in vec3 position;
in vec4 color;
void main() {
    gl_PointSize = color.x;
    gl_Position = vec4(position, 1.0);
}
";

const FRAGMENT: &str = "#version 130
out vec4 frag_color;
void main() {
    frag_color = vec4(gl_PointCoord, 0.0, 1.0);
}
";

fn draw(session: &Session) -> Result<(), String> {
    let mut data = vec![];
    for i in 0..9 {
        let (x, y) = ((i % 3) as f32 * 0.6 - 0.6, (i / 3) as f32 * 0.6 - 0.6);
        data.extend([x + 0.01, y + 0.02, 0.0, 3.0 + i as f32, 0.0, 0.0, 1.0]);
    }
    let program = session.program(
        VERTEX,
        FRAGMENT,
        &[(POSITION_ATTRIB, "position"), (COLOR_ATTRIB, "color")],
    )?;
    let (vao, _vbo) = session.vertices(&data, &[(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)])?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program and vertex array were created through it.
    unsafe {
        gl.enable(glow::PROGRAM_POINT_SIZE);
        gl.clear_color(0.0, 0.0, 0.0, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(program));
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays(glow::POINTS, 0, 9);
    }
    Ok(())
}
