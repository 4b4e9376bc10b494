//! The `clipping` and `wireframe` clients' scene: three triangles the clipper has to cut.
//!
//! * A green triangle with a user clip plane (`gl_ClipDistance[0]`, enabled
//!   with `GL_CLIP_DISTANCE0`) that keeps the part left of a slanted line.
//! * A red triangle in perspective (w = 1 - z / 2) reaching behind the near
//!   plane, so it must be clipped in clip space before the divide.
//! * A blue triangle reaching far outside the viewport on the right, beyond
//!   the guard band crocus programs.
//!
//! Filled (`clipping`), or as outlines (`wireframe`, `glPolygonMode(GL_LINE)`): what
//! the clipper leaves of each triangle drawn as lines along its source edges and the
//! user clip plane's cut, not along the view volume's planes and not along the inner
//! edges of the fan the clipped polygon is drawn as.

use crate::glow::{self, HasContext};
use crate::{COLOR_ATTRIB, COLOR_FRAGMENT_SHADER, POSITION_ATTRIB, Session};

const VERTEX: &str = "#version 130
in vec3 position;
in vec4 color;
out vec4 v_color;
uniform int mode;
void main() {
    v_color = color;
    if (mode == 1) {
        // Perspective: w shrinks with z; z beyond the near plane for z < -w.
        gl_Position = vec4(position.xy, position.z, 1.0 - position.z * 0.5);
    } else {
        gl_Position = vec4(position, 1.0);
    }
    gl_ClipDistance[0] = mode == 0 ? 0.15 - position.x - 0.4 * position.y : 1.0;
}
";

#[rustfmt::skip]
const VERTICES: [f32; 63] = [
    // x     y     z     r    g    b    a
    -0.9, -0.9,  0.0,  0.0, 1.0, 0.0, 1.0,
     0.9, -0.9,  0.0,  0.0, 1.0, 0.0, 1.0,
     0.0,  0.9,  0.0,  0.0, 1.0, 0.0, 1.0,
    -0.6,  0.2, -3.0,  1.0, 0.0, 0.0, 1.0,
     0.3,  0.1,  0.5,  1.0, 0.0, 0.0, 1.0,
    -0.2,  0.8,  0.5,  1.0, 0.0, 0.0, 1.0,
     0.2, -0.7,  0.0,  0.0, 0.0, 1.0, 1.0,
    900.0, -0.5, 0.0,  0.0, 0.0, 1.0, 1.0,
     0.4, -0.2,  0.0,  0.0, 0.0, 1.0, 1.0,
];

/// Draws the scene, filled or (`outline`) as outlines.
pub fn draw(session: &Session, outline: bool) -> Result<(), String> {
    let program = session.program(
        VERTEX,
        COLOR_FRAGMENT_SHADER,
        &[(POSITION_ATTRIB, "position"), (COLOR_ATTRIB, "color")],
    )?;
    let (vao, _vbo) = session.vertices(&VERTICES, &[(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)])?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program and vertex array were created through it.
    unsafe {
        gl.clear_color(0.0, 0.0, 0.0, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        if outline {
            gl.polygon_mode(glow::FRONT_AND_BACK, glow::LINE);
        }
        gl.use_program(Some(program));
        gl.bind_vertex_array(Some(vao));
        let mode = gl.get_uniform_location(program, "mode");
        gl.enable(glow::CLIP_DISTANCE0);
        gl.uniform_1_i32(mode.as_ref(), 0);
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.uniform_1_i32(mode.as_ref(), 1);
        gl.draw_arrays(glow::TRIANGLES, 3, 3);
        gl.uniform_1_i32(mode.as_ref(), 2);
        gl.draw_arrays(glow::TRIANGLES, 6, 3);
    }
    Ok(())
}
