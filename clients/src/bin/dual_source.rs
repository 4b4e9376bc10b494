//! `dual_source`: dual-source blending (`GL_ARB_blend_func_extended`).
//!
//! On a background of (0.2, 0.4, 0.6), two quads drawn by a fragment shader with two
//! outputs for draw buffer 0, the first colour (index 0) and the second (index 1):
//!
//! * left, `glBlendFunc(GL_SRC1_COLOR, GL_ONE)`: first (1, 1, 1) times second
//!   (0.25, 0.5, 0.75) plus the background = (0.45, 0.9, 1.0 clamped);
//! * right, `glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC1_COLOR)`: first (0.1, 0.1, 0.1) plus
//!   the background times one minus the second (0.75, 0.5, 0.25) = (0.25, 0.3, 0.25).

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("dual_source", Attachments::Color, draw)
}

const VS: &str = "#version 330
layout(location = 0) in vec3 position;
void main() { gl_Position = vec4(position, 1.0); }
";

const FS: &str = "#version 330
uniform vec4 first_colour;
layout(location = 0, index = 0) out vec4 first;
layout(location = 0, index = 1) out vec4 second;
void main() {
    first = first_colour;
    second = vec4(0.25, 0.5, 0.75, 1.0);
}
";

/// Two triangles covering (x0, y0)-(x1, y1).
fn quad(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<f32> {
    [(x0, y0), (x1, y0), (x1, y1), (x0, y0), (x1, y1), (x0, y1)]
        .iter()
        .flat_map(|&(x, y)| [x, y, 0.0])
        .collect()
}

fn draw(session: &Session) -> Result<(), String> {
    let program = session.program(VS, FS, &[(POSITION_ATTRIB, "position")])?;
    let mut vertices = quad(-0.9, -0.9, -0.1, 0.9);
    vertices.extend(quad(0.1, -0.9, 0.9, 0.9));
    let (vao, _vbo) = session.vertices(&vertices, &[(POSITION_ATTRIB, 3)])?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the program and
    // vertex array were created through it.
    unsafe {
        gl.clear_color(0.2, 0.4, 0.6, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(program));
        gl.bind_vertex_array(Some(vao));
        let first = gl.get_uniform_location(program, "first_colour");
        gl.enable(glow::BLEND);
        gl.blend_func(glow::SRC1_COLOR, glow::ONE);
        gl.uniform_4_f32(first.as_ref(), 1.0, 1.0, 1.0, 1.0);
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        gl.blend_func(glow::ONE, glow::ONE_MINUS_SRC1_COLOR);
        gl.uniform_4_f32(first.as_ref(), 0.1, 0.1, 0.1, 1.0);
        gl.draw_arrays(glow::TRIANGLES, 6, 6);
        gl.disable(glow::BLEND);
    }
    session.check_error("dual-source blending")
}
