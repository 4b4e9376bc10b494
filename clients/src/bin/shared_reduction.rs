//! `shared_reduction`: a compute shader sums 64 values per work group in shared memory,
//! halving the active invocations after each `barrier()` (shared local memory and the
//! gateway barrier), and a second pass reads the sums.
//!
//! Group g sums `(g * 64 + i) * 3 % 97` over its invocations i; pixel (x, y) shows group
//! `y * width / 8 + x / 8`'s sum: red its low byte, green the next, blue the group's
//! maximum (a shared-memory atomicMax) times 2. The sums are read back and printed as a
//! digest first, so runs compare without a draw.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, Session, run};

fn main() -> ExitCode {
    run("shared_reduction", Attachments::Color, draw)
}

const CS: &str = "#version 420
#extension GL_ARB_compute_shader : require
#extension GL_ARB_shader_storage_buffer_object : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Sums { uvec2 sums[]; };
shared uint partial[64];
shared uint largest;
void main() {
    uint i = gl_LocalInvocationIndex;
    uint v = ((gl_WorkGroupID.x * 64u + i) * 3u) % 97u;
    if (i == 0u)
        largest = 0u;
    partial[i] = v;
    barrier();
    atomicMax(largest, v);
    for (uint n = 32u; n > 0u; n >>= 1) {
        if (i < n)
            partial[i] += partial[i + n];
        barrier();
    }
    if (i == 0u)
        sums[gl_WorkGroupID.x] = uvec2(partial[0], largest);
}
";

const FS: &str = "#version 420
#extension GL_ARB_shader_storage_buffer_object : require
layout(std430, binding = 0) buffer Sums { uvec2 sums[]; };
uniform uint columns;
out vec4 frag_color;
void main() {
    uvec2 p = uvec2(gl_FragCoord.xy) / 8u;
    uvec2 s = sums[p.y * columns + p.x];
    frag_color = vec4(float(s.x & 255u), float((s.x >> 8) & 255u), float(s.y * 2u), 255.0) / 255.0;
}
";

fn draw(session: &Session) -> Result<(), String> {
    let [w, h] = session.size();
    if w % 8 != 0 || h % 8 != 0 {
        return Err(format!("{w}x{h}: the size must be a multiple of 8"));
    }
    let groups = (w / 8) * (h / 8);
    let cs = session.compute_program(CS)?;
    let sums = session.storage_buffer(0, 2 * groups as usize)?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the program and
    // buffer were created through it.
    unsafe {
        gl.use_program(Some(cs));
        gl.dispatch_compute(groups, 1, 1);
        gl.memory_barrier(glow::SHADER_STORAGE_BARRIER_BIT);
    }
    session.check_error("dispatch")?;
    session.print_digest("sums", sums, 8 * groups as usize)?;
    session.draw_fullscreen(FS, &|gl, p| {
        // SAFETY: as above; `p` is bound.
        unsafe { gl.uniform_1_u32(gl.get_uniform_location(p, "columns").as_ref(), w / 8) }
    })
}
