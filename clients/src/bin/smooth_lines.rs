//! `smooth_lines`: anti-aliased (`GL_LINE_SMOOTH`) wide lines, blended with
//! `GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA` over a dark grey background, in a
//! compatibility-profile context: a 2.5-pixel-wide white line rising to the right and
//! a 4-pixel-wide yellow one falling. Their coverage fades their edges and ends into the
//! background.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("smooth_lines", Attachments::ColorCompatibility, draw)
}

const VS: &str = "#version 130
in vec3 position;
void main() { gl_Position = vec4(position, 1.0); }
";

const FS: &str = "#version 130
uniform vec4 colour;
out vec4 result;
void main() { result = colour; }
";

fn draw(session: &Session) -> Result<(), String> {
    let program = session.program(VS, FS, &[(POSITION_ATTRIB, "position")])?;
    #[rustfmt::skip]
    let vertices: [f32; 12] = [
        -0.8, -0.7, 0.0,   0.75, 0.35, 0.0,
        -0.7,  0.8, 0.0,   0.6, -0.75, 0.0,
    ];
    let (vao, _vbo) = session.vertices(&vertices, &[(POSITION_ATTRIB, 3)])?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the program and
    // vertex array were created through it.
    unsafe {
        gl.clear_color(0.2, 0.2, 0.2, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(program));
        gl.bind_vertex_array(Some(vao));
        let colour = gl.get_uniform_location(program, "colour");
        gl.enable(glow::LINE_SMOOTH);
        gl.enable(glow::BLEND);
        gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
        gl.line_width(2.5);
        gl.uniform_4_f32(colour.as_ref(), 1.0, 1.0, 1.0, 1.0);
        gl.draw_arrays(glow::LINES, 0, 2);
        gl.line_width(4.0);
        gl.uniform_4_f32(colour.as_ref(), 1.0, 1.0, 0.0, 1.0);
        gl.draw_arrays(glow::LINES, 2, 2);
        gl.disable(glow::BLEND);
        gl.disable(glow::LINE_SMOOTH);
    }
    session.check_error("smooth lines")
}
