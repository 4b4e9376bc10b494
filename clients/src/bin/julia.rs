//! `julia`: a shader-heavy frame, the Julia set of z² + c computed per pixel.
//!
//! A full-screen triangle runs a fragment shader that iterates z ← z² + c (c =
//! -0.8 + 0.156i) up to 96 times from the pixel's position in [-a, a] x [-1, 1] (a the
//! framebuffer's aspect ratio), with a data-dependent `break` when |z|²
//! exceeds 4. The colour is a polynomial palette of the escape count, so the image
//! needs only float multiply-add, compares and divergent loops: every pixel runs a
//! different number of iterations, up to a few hundred instructions each.
//!
//! It is the benchmark's shader-heavy client (`scripts/bench-clients.sh` runs it at
//! 320x240). Near the set's boundary the escape count is chaotic, so a rounding
//! difference between two correct implementations (a fused or separate multiply-add)
//! can change a few pixels; the test allows for that.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, Session, run};

fn main() -> ExitCode {
    run("julia", Attachments::Color, draw)
}

const VERTEX_SHADER: &str = "#version 130
in vec2 position;
void main() {
    gl_Position = vec4(position, 0.0, 1.0);
}
";

const FRAGMENT_SHADER: &str = "#version 130
uniform vec2 size;
out vec4 frag_color;

void main() {
    vec2 uv = gl_FragCoord.xy / size;
    float aspect = size.x / size.y;
    vec2 z = vec2((uv.x * 2.0 - 1.0) * aspect, uv.y * 2.0 - 1.0);
    const vec2 c = vec2(-0.8, 0.156);
    int n = 0;
    for (int i = 0; i < 96; i++) {
        float x = z.x * z.x - z.y * z.y + c.x;
        float y = 2.0 * z.x * z.y + c.y;
        z = vec2(x, y);
        if (x * x + y * y > 4.0) {
            break;
        }
        n++;
    }
    float t = float(n) / 96.0;
    frag_color = vec4(t, t * t, 1.0 - t, 1.0);
}
";

/// One triangle covering the whole viewport.
const VERTICES: [f32; 6] = [-1.0, -1.0, 3.0, -1.0, -1.0, 3.0];

fn draw(session: &Session) -> Result<(), String> {
    let program = session.program(VERTEX_SHADER, FRAGMENT_SHADER, &[(0, "position")])?;
    let (vao, _vbo) = session.vertices(&VERTICES, &[(0, 2)])?;
    let [w, h] = session.size();
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program and vertex array were created through it.
    unsafe {
        gl.clear_color(0.0, 0.0, 0.0, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(program));
        let size = gl.get_uniform_location(program, "size");
        gl.uniform_2_f32(size.as_ref(), w as f32, h as f32);
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
    }
    Ok(())
}
