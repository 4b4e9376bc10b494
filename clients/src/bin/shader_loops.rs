//! `shader_loops`: control flow and integer arithmetic in a fragment shader.
//!
//! A full-screen triangle runs a GLSL 1.30 fragment shader that computes
//! every pixel's colour from its integer window position
//! (`ivec2(gl_FragCoord.xy)`) only, so the image is exact and
//! deterministic:
//!
//! * red: a `for` loop over 6 bit planes with an `if/else` per iteration
//!   accumulating the XOR of the coordinates (`^`, `>>`, `&`, `<<`): the
//!   nested-squares "munching squares" pattern;
//! * green: a data-dependent loop with `break` counting the Collatz steps
//!   of `x + y + 1` (`&`, `/`, `*`), so neighbouring pixels run different
//!   iteration counts: streaks along the anti-diagonals;
//! * blue: an `if / else if / else` chain on a `uint` hash of the 8x8 tile
//!   position picks one of three levels (40, 120, 200): a tiled backdrop.
//!
//! The image is split into four 16-pixel-wide bands from left to right
//! (repeating for sizes above 64); pixels of band 1 and 3 show the channels
//! swapped (red <-> green), taking yet another branch. The result is exact
//! integer arithmetic, so any correct implementation gives the same bytes.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, Session, run};

fn main() -> ExitCode {
    run("shader_loops", Attachments::Color, draw)
}

const VERTEX_SHADER: &str = "#version 130
in vec2 position;
void main() {
    gl_Position = vec4(position, 0.0, 1.0);
}
";

const FRAGMENT_SHADER: &str = "#version 130
out vec4 frag_color;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);

    // Fixed-count loop with a branch per iteration: XOR bit planes.
    int acc = 0;
    for (int i = 0; i < 6; i++) {
        int bit = ((p.x >> i) ^ (p.y >> i)) & 1;
        if (bit == 1) {
            acc += 1 << i;
        } else {
            acc -= i;
        }
    }
    int red = clamp(acc * 4, 0, 255);

    // Data-dependent loop with break: Collatz steps of a per-pixel seed.
    int n = p.x + p.y + 1;
    int steps = 0;
    for (int k = 0; k < 200; k++) {
        if (n == 1) {
            break;
        }
        if ((n & 1) == 0) {
            n = n / 2;
        } else {
            n = 3 * n + 1;
        }
        steps++;
    }
    int green = min(steps * 2, 255);

    // Unsigned hash and an if / else if / else chain.
    uint h = uint(p.x >> 3) * 73856093u ^ uint(p.y >> 3) * 19349663u;
    h ^= h >> 13u;
    h *= 0x5bd1e995u;
    h ^= h >> 15u;
    uint pick = h % 3u;
    int blue;
    if (pick == 0u) {
        blue = 40;
    } else if (pick == 1u) {
        blue = 120;
    } else {
        blue = 200;
    }

    int band = (p.x / 16) % 4;
    if (band == 1 || band == 3) {
        int t = red;
        red = green;
        green = t;
    }
    frag_color = vec4(float(red), float(green), float(blue), 255.0) / 255.0;
}
";

/// One triangle covering the whole viewport.
const VERTICES: [f32; 6] = [-1.0, -1.0, 3.0, -1.0, -1.0, 3.0];

fn draw(session: &Session) -> Result<(), String> {
    let program = session.program(VERTEX_SHADER, FRAGMENT_SHADER, &[(0, "position")])?;
    let (vao, _vbo) = session.vertices(&VERTICES, &[(0, 2)])?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program and vertex array were created through it.
    unsafe {
        gl.clear_color(0.0, 0.0, 0.0, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(program));
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
    }
    Ok(())
}
