//! `compute_ssbo`: a compute shader writes a shader storage buffer
//! (`GL_ARB_compute_shader`, `GL_ARB_shader_storage_buffer_object`), a fragment shader
//! shows it.
//!
//! Work groups of 8x4 invocations, one per pixel, each store a value of their global ID
//! (`v = (x * 7 + y * 13) ^ (x * y)`) and, through a second SSBO binding, the group ID
//! and local index. The fragment shader reads the buffers back: red = v & 255, green =
//! the group's x·16 + y·8, blue = the local invocation index·8.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, Session, run};

fn main() -> ExitCode {
    run("compute_ssbo", Attachments::Color, draw)
}

const CS: &str = "#version 420
#extension GL_ARB_compute_shader : require
#extension GL_ARB_shader_storage_buffer_object : require
layout(local_size_x = 8, local_size_y = 4) in;
layout(std430, binding = 0) buffer Values { uint values[]; };
layout(std430, binding = 1) buffer Ids { uvec2 ids[]; };
uniform uint width;
void main() {
    uvec2 g = gl_GlobalInvocationID.xy;
    uint i = g.y * width + g.x;
    values[i] = (g.x * 7u + g.y * 13u) ^ (g.x * g.y);
    ids[i] = uvec2(gl_WorkGroupID.x * 16u + gl_WorkGroupID.y * 8u, gl_LocalInvocationIndex);
}
";

const FS: &str = "#version 420
#extension GL_ARB_shader_storage_buffer_object : require
layout(std430, binding = 0) buffer Values { uint values[]; };
layout(std430, binding = 1) buffer Ids { uvec2 ids[]; };
uniform uint width;
out vec4 frag_color;
void main() {
    uint i = uint(gl_FragCoord.y) * width + uint(gl_FragCoord.x);
    uvec2 id = ids[i];
    frag_color = vec4(float(values[i] & 255u), float(id.x & 255u), float((id.y * 8u) & 255u), 255.0) / 255.0;
}
";

fn draw(session: &Session) -> Result<(), String> {
    let [w, h] = session.size();
    if w % 8 != 0 || h % 4 != 0 {
        return Err(format!("{w}x{h}: the size must be a multiple of 8x4"));
    }
    let cs = session.compute_program(CS)?;
    let values = session.storage_buffer(0, (w * h) as usize)?;
    let ids = session.storage_buffer(1, 2 * (w * h) as usize)?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the program and
    // buffers were created through it.
    unsafe {
        gl.use_program(Some(cs));
        gl.uniform_1_u32(gl.get_uniform_location(cs, "width").as_ref(), w);
        gl.dispatch_compute(w / 8, h / 4, 1);
        gl.memory_barrier(glow::SHADER_STORAGE_BARRIER_BIT);
    }
    session.check_error("dispatch")?;
    session.print_digest("values", values, 4 * (w * h) as usize)?;
    session.print_digest("ids", ids, 8 * (w * h) as usize)?;
    session.draw_fullscreen(FS, &|gl, p| {
        // SAFETY: as above; `p` is bound.
        unsafe { gl.uniform_1_u32(gl.get_uniform_location(p, "width").as_ref(), w) }
    })
}
