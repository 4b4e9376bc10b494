//! `spilling`: a fragment shader whose temporaries do not fit the register file, so
//! the compiler spills them to scratch space (and indexes an array of temporaries
//! through it), and a vertex shader indexing a temporary array dynamically.
//!
//! Each pixel fills a 96-element array with a hash of its position, reads it back in a
//! data-dependent order and keeps 32 running sums live across the loop; the sums fold
//! into the colour.

use std::process::ExitCode;

use gtsim_clients::glow::HasContext;
use gtsim_clients::{Attachments, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("spilling", Attachments::Color, draw)
}

const VS: &str = "#version 330
layout(location = 0) in vec2 position;
uniform int pick;
out vec4 tint;
void main() {
    vec4 table[8];
    for (int i = 0; i < 8; i++)
        table[i] = vec4(float(i) / 8.0, 0.5 - float(i) / 16.0, 0.125 * float(i & 3), 1.0);
    tint = table[(gl_VertexID + pick) & 7];
    gl_Position = vec4(position, 0.0, 1.0);
}
";

const FS: &str = "#version 330
in vec4 tint;
out vec4 frag_color;
uniform uint seed;
void main() {
    uvec2 p = uvec2(gl_FragCoord.xy);
    uint a[96];
    uint h = p.x * 73856093u ^ p.y * 19349663u ^ seed;
    for (int i = 0; i < 96; i++) {
        h = h * 1664525u + 1013904223u;
        a[i] = h >> 8;
    }
    uint s[32];
    for (int k = 0; k < 32; k++)
        s[k] = a[(k * 7 + int(p.x)) % 96];
    uint j = p.y % 96u;
    for (int i = 0; i < 64; i++) {
        j = (a[j] + uint(i)) % 96u;
        for (int k = 0; k < 32; k++)
            s[k] = s[k] * 3u + a[(j + uint(k)) % 96u];
    }
    uint r = 0u, g = 0u, b = 0u;
    for (int k = 0; k < 32; k++) {
        r ^= s[k];
        g += s[k] >> 3;
        b ^= s[k] >> 11;
    }
    frag_color = vec4(float(r & 255u), float(g & 255u), float(b & 255u), 255.0) / 255.0 * 0.75
        + tint * 0.25;
}
";

fn draw(session: &Session) -> Result<(), String> {
    let program = session.program(VS, FS, &[(POSITION_ATTRIB, "position")])?;
    let quad = [
        -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0f32,
    ];
    let (vao, _vbo) = session.vertices(&quad, &[(POSITION_ATTRIB, 2)])?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the program and
    // vertex array were created through it.
    unsafe {
        gl.use_program(Some(program));
        gl.uniform_1_u32(gl.get_uniform_location(program, "seed").as_ref(), 12345);
        gl.uniform_1_i32(gl.get_uniform_location(program, "pick").as_ref(), 3);
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays(gtsim_clients::glow::TRIANGLES, 0, 6);
    }
    session.check_error("spilling draw")
}
