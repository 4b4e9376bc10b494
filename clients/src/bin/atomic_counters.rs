//! `atomic_counters`: atomic counters (`GL_ARB_shader_atomic_counters`) incremented and
//! decremented by every fragment and vertex of a full-screen draw, read by a second.
//!
//! The first draw's fragment shader increments `fragments` once per pixel, `left` for
//! the pixels of the left half, and decrements `budget` (from 100000) once per pixel;
//! its vertex shader increments `vertices` (6). The second draw reads the counters:
//! the pixel shows red = fragments & 255, green = (fragments >> 8) & 255, blue =
//! (left >> 4) & 255, alpha = 255 when budget + fragments = 100000 and vertices = 6, else 128.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("atomic_counters", Attachments::Color, draw)
}

const COUNT_VS: &str = "#version 420
layout(location = 0) in vec2 position;
layout(binding = 0, offset = 12) uniform atomic_uint vertices;
void main() {
    atomicCounterIncrement(vertices);
    gl_Position = vec4(position, 0.0, 1.0);
}
";

const COUNT_FS: &str = "#version 420
layout(binding = 0, offset = 0) uniform atomic_uint fragments;
layout(binding = 0, offset = 4) uniform atomic_uint left;
layout(binding = 0, offset = 8) uniform atomic_uint budget;
uniform float half_width;
out vec4 frag_color;
void main() {
    atomicCounterIncrement(fragments);
    if (gl_FragCoord.x < half_width)
        atomicCounterIncrement(left);
    atomicCounterDecrement(budget);
    frag_color = vec4(0.0);
}
";

const SHOW_FS: &str = "#version 420
layout(binding = 0, offset = 0) uniform atomic_uint fragments;
layout(binding = 0, offset = 4) uniform atomic_uint left;
layout(binding = 0, offset = 8) uniform atomic_uint budget;
layout(binding = 0, offset = 12) uniform atomic_uint vertices;
out vec4 frag_color;
void main() {
    uint f = atomicCounter(fragments);
    bool whole = atomicCounter(budget) + f == 100000u && atomicCounter(vertices) == 6u;
    frag_color = vec4(float(f & 255u), float((f >> 8) & 255u), float((atomicCounter(left) >> 4) & 255u),
                      whole ? 255.0 : 128.0) / 255.0;
}
";

fn draw(session: &Session) -> Result<(), String> {
    let [w, _] = session.size();
    let gl = session.gl();
    let counters: Vec<u8> = [0u32, 0, 100_000, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    // SAFETY: the session keeps its context current on this thread; the buffer is
    // created here and the upload copies `counters`.
    unsafe {
        let b = gl.create_buffer()?;
        gl.bind_buffer(glow::ATOMIC_COUNTER_BUFFER, Some(b));
        gl.buffer_data_u8_slice(glow::ATOMIC_COUNTER_BUFFER, &counters, glow::DYNAMIC_COPY);
        gl.bind_buffer_base(glow::ATOMIC_COUNTER_BUFFER, 0, Some(b));
    }
    let count = session.program(COUNT_VS, COUNT_FS, &[(POSITION_ATTRIB, "position")])?;
    let quad = [
        -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0f32,
    ];
    let (vao, _vbo) = session.vertices(&quad, &[(POSITION_ATTRIB, 2)])?;
    // SAFETY: as above.
    unsafe {
        gl.use_program(Some(count));
        gl.uniform_1_f32(
            gl.get_uniform_location(count, "half_width").as_ref(),
            w as f32 / 2.0,
        );
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        gl.memory_barrier(glow::ATOMIC_COUNTER_BARRIER_BIT);
    }
    session.check_error("counting draw")?;
    session.draw_fullscreen(SHOW_FS, &|_, _| {})
}
