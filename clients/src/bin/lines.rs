//! `lines`: a fan of one-pixel lines in eight directions from the centre, a
//! closed line strip around them, and a row of points, on black.
//!
//! Line and point rasterization are exact rules (the GL's diamond-exit rule
//! for lines, a pixel square for points), so every implementation lights
//! the same pixels. Colours are flat per primitive.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, COLOR_ATTRIB, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("lines", Attachments::Color, draw)
}

/// A vertex: x, y, z, r, g, b, a.
fn v(x: f32, y: f32, c: [f32; 3]) -> [f32; 7] {
    [x, y, 0.0, c[0], c[1], c[2], 1.0]
}

fn draw(session: &Session) -> Result<(), String> {
    let mut data: Vec<[f32; 7]> = vec![];
    // The fan: eight lines from near the centre outwards (GL_LINES).
    let dirs = [
        (0.7, 0.0),
        (0.7, 0.33),
        (0.7, 0.7),
        (0.2, 0.7),
        (-0.7, 0.5),
        (-0.7, -0.13),
        (-0.45, -0.7),
        (0.3, -0.7),
    ];
    for (i, (dx, dy)) in dirs.iter().enumerate() {
        let c = [1.0, (i as f32) / 8.0, 1.0 - (i as f32) / 8.0];
        data.push(v(0.03, 0.02, c));
        data.push(v(0.03 + dx, 0.02 + dy, c));
    }
    let lines = data.len() as i32;
    // The strip: a closed pentagon-ish loop (GL_LINE_STRIP).
    let strip = [
        (-0.9, -0.9),
        (0.85, -0.88),
        (0.9, 0.8),
        (0.1, 0.93),
        (-0.88, 0.6),
        (-0.9, -0.9),
    ];
    for (x, y) in strip {
        data.push(v(x, y, [0.0, 1.0, 0.0]));
    }
    let strip_len = strip.len() as i32;
    // Points along the bottom (GL_POINTS, size 1).
    for i in 0..10 {
        data.push(v(-0.8 + 0.17 * i as f32, -0.8, [1.0, 1.0, 0.0]));
    }
    let flat: Vec<f32> = data.iter().flatten().copied().collect();
    let program = session.color_program()?;
    let (vao, _vbo) = session.vertices(&flat, &[(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)])?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program and vertex array were created through it.
    unsafe {
        gl.clear_color(0.0, 0.0, 0.0, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(program));
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays(glow::LINES, 0, lines);
        gl.draw_arrays(glow::LINE_STRIP, lines, strip_len);
        gl.draw_arrays(glow::POINTS, lines + strip_len, 10);
    }
    Ok(())
}
