//! `image_store`: image load/store (`GL_ARB_shader_image_load_store`) with format
//! conversion, from a compute shader.
//!
//! A compute shader, one invocation per pixel, stores a float colour into an RGBA8
//! image (converted to UNORM8 on the way), an R32F image and, after `imageLoad` of an
//! R32UI image a first dispatch filled with `x * y`, their sum into the R32UI image
//! with `imageAtomicAdd`. A fragment shader shows the RGBA8 image's red and green,
//! the R32F image in blue, and the R32UI image's low bits in alpha.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, Session, run};

fn main() -> ExitCode {
    run("image_store", Attachments::Color, draw)
}

const FILL: &str = "#version 420
#extension GL_ARB_compute_shader : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(r32ui, binding = 2) uniform uimage2D counts;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    imageStore(counts, p, uvec4(uint(p.x * p.y)));
}
";

const CS: &str = "#version 420
#extension GL_ARB_compute_shader : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(rgba8, binding = 0) writeonly uniform image2D colour;
layout(r32f, binding = 1) writeonly uniform image2D level;
layout(r32ui, binding = 2) uniform uimage2D counts;
uniform vec2 size;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec2 t = (vec2(p) + 0.5) / size;
    imageStore(colour, p, vec4(t.x, t.y * t.y, 0.25, 1.0));
    imageStore(level, p, vec4(t.x * t.y * 0.75));
    uint c = imageLoad(counts, p).x;
    imageAtomicAdd(counts, p, c + uint(p.x + p.y));
}
";

const FS: &str = "#version 420
layout(binding = 0) uniform sampler2D colour;
layout(binding = 1) uniform sampler2D level;
layout(binding = 2) uniform usampler2D counts;
out vec4 frag_color;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 c = texelFetch(colour, p, 0);
    frag_color = vec4(c.r, c.g, texelFetch(level, p, 0).r,
                      float(texelFetch(counts, p, 0).r & 255u) / 255.0);
}
";

fn texture(
    gl: &glow::Context,
    unit: u32,
    format: u32,
    w: u32,
    h: u32,
) -> Result<glow::Texture, String> {
    // SAFETY: the caller's context is current on this thread; the texture is created
    // here.
    unsafe {
        let t = gl.create_texture()?;
        gl.active_texture(glow::TEXTURE0 + unit);
        gl.bind_texture(glow::TEXTURE_2D, Some(t));
        gl.tex_storage_2d(glow::TEXTURE_2D, 1, format, w as i32, h as i32);
        gl.tex_parameter_i32(
            glow::TEXTURE_2D,
            glow::TEXTURE_MIN_FILTER,
            glow::NEAREST as i32,
        );
        gl.tex_parameter_i32(
            glow::TEXTURE_2D,
            glow::TEXTURE_MAG_FILTER,
            glow::NEAREST as i32,
        );
        gl.bind_image_texture(unit, Some(t), 0, false, 0, glow::READ_WRITE, format);
        Ok(t)
    }
}

fn draw(session: &Session) -> Result<(), String> {
    let [w, h] = session.size();
    if w % 8 != 0 || h % 8 != 0 {
        return Err(format!("{w}x{h}: the size must be a multiple of 8"));
    }
    let fill = session.compute_program(FILL)?;
    let cs = session.compute_program(CS)?;
    let gl = session.gl();
    let colour = texture(gl, 0, glow::RGBA8, w, h)?;
    let level = texture(gl, 1, glow::R32F, w, h)?;
    let counts = texture(gl, 2, glow::R32UI, w, h)?;
    // SAFETY: the session keeps its context current on this thread; the programs and
    // textures were created through it.
    unsafe {
        gl.use_program(Some(fill));
        gl.dispatch_compute(w / 8, h / 8, 1);
        gl.memory_barrier(glow::SHADER_IMAGE_ACCESS_BARRIER_BIT);
        gl.use_program(Some(cs));
        gl.uniform_2_f32(
            gl.get_uniform_location(cs, "size").as_ref(),
            w as f32,
            h as f32,
        );
        gl.dispatch_compute(w / 8, h / 8, 1);
        gl.memory_barrier(glow::TEXTURE_FETCH_BARRIER_BIT);
    }
    session.check_error("dispatch")?;
    let texels = 4 * (w * h) as usize;
    session.print_texture_digest("colour", colour, (glow::RGBA, glow::UNSIGNED_BYTE), texels)?;
    session.print_texture_digest("level", level, (glow::RED, glow::FLOAT), texels)?;
    session.print_texture_digest(
        "counts",
        counts,
        (glow::RED_INTEGER, glow::UNSIGNED_INT),
        texels,
    )?;
    session.draw_fullscreen(FS, &|_, _| {})
}
