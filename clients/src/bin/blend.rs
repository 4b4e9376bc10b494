//! `blend`: alpha blending of two translucent quads over a white background.
//!
//! A red quad with alpha 0.5 (lower left) is drawn first, then a blue quad
//! with alpha 0.75 (upper right) overlapping it, both with
//! `glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA)` for colour (alpha uses
//! `GL_ONE, GL_ONE_MINUS_SRC_ALPHA` through `glBlendFuncSeparate` so the
//! result stays opaque). Expected colours (each channel +-1 for rounding):
//! white background; red over white = (255, 127, 127); blue over white =
//! (64, 64, 255); the overlap, blue over red over white = (64, 32, 223).
//! The two alphas differ so that blending in the wrong order would give a
//! different overlap colour.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, COLOR_ATTRIB, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("blend", Attachments::Color, draw)
}

/// Two triangles covering the axis-aligned rectangle (x0, y0)-(x1, y1) in
/// clip space, in colour `rgba`.
fn quad(x0: f32, y0: f32, x1: f32, y1: f32, rgba: [f32; 4]) -> Vec<f32> {
    let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y0), (x1, y1), (x0, y1)];
    corners
        .iter()
        .flat_map(|&(x, y)| [x, y, 0.0, rgba[0], rgba[1], rgba[2], rgba[3]])
        .collect()
}

fn draw(session: &Session) -> Result<(), String> {
    let mut vertices = quad(-0.75, -0.75, 0.25, 0.25, [1.0, 0.0, 0.0, 0.5]);
    vertices.extend(quad(-0.25, -0.25, 0.75, 0.75, [0.0, 0.0, 1.0, 0.75]));
    let program = session.color_program()?;
    let (vao, _vbo) = session.vertices(&vertices, &[(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)])?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program and vertex array were created through it.
    unsafe {
        gl.clear_color(1.0, 1.0, 1.0, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.enable(glow::BLEND);
        gl.blend_equation(glow::FUNC_ADD);
        gl.blend_func_separate(
            glow::SRC_ALPHA,
            glow::ONE_MINUS_SRC_ALPHA,
            glow::ONE,
            glow::ONE_MINUS_SRC_ALPHA,
        );
        gl.use_program(Some(program));
        gl.bind_vertex_array(Some(vao));
        // One draw call: GL blends primitives in submission order.
        gl.draw_arrays(glow::TRIANGLES, 0, 12);
    }
    Ok(())
}
