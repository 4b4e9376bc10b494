//! `sampling`: the sampler messages beyond plain 2D sampling, each in a band of the
//! image, all with NEAREST filtering and explicit or exact LODs so every texel read is
//! the same on any correct implementation (except the seamless cube's corners, see the
//! tolerance in `tests/on_gtsim.rs`).
//!
//! * Top left: a cube map (six 4x4 faces, each its own hue with a texel gradient)
//!   sampled with `textureLod` along directions that sweep a wide arc, crossing faces:
//!   NEAREST above, LINEAR with seamless filtering across face edges below.
//! * Top right: a 4x4 depth texture compared with `texture(sampler2DShadow, ...)`
//!   (`GL_LEQUAL`) against a reference that grows from left to right.
//! * Middle left: `textureGather` of a 4x4 RGBA8 texture's green channel, the four
//!   texels of each footprint shown as the four colour channels.
//! * Middle right: `textureGrad` over a three-level mipmap whose levels differ in
//!   colour, with gradients selecting level 0, 1 and 2 in thirds of the quad.
//! * Bottom: a row of quads whose vertex shader fetches its colour with `texelFetch`
//!   and its offset with `textureLod` from a 4x1 texture (SIMD4x2 ld and sample_l).
//!
//! Exercises SIMD8/16 sample_l, sample_c, gather4, sample_d (or the driver's lowering)
//! and SIMD4x2 ld/sample_l, cube face selection, TEXCOORDMODE_CUBE and shadow
//! comparison.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, Session, run};

fn main() -> ExitCode {
    run("sampling", Attachments::Color, draw)
}

const QUAD_VS: &str = "#version 150
in vec2 position;
in vec2 coord;
out vec2 v_coord;
uniform vec4 rect;
void main() {
    v_coord = coord;
    gl_Position = vec4(mix(rect.xy, rect.zw, position * 0.5 + 0.5), 0.0, 1.0);
}
";

const CUBE_FS: &str = "#version 150
uniform samplerCube cube;
in vec2 v_coord;
out vec4 frag_color;
void main() {
    // Directions over about 200 degrees around y, tilted up and down.
    float a = (v_coord.x - 0.5) * 3.5;
    vec3 d = vec3(sin(a), (v_coord.y - 0.5) * 1.7, cos(a));
    frag_color = textureLod(cube, d, 0.0);
}
";

const SHADOW_FS: &str = "#version 150
uniform sampler2DShadow depth;
in vec2 v_coord;
out vec4 frag_color;
void main() {
    float lit = texture(depth, vec3(v_coord, v_coord.x * 0.875 + 0.0625));
    frag_color = vec4(lit, 0.25 + 0.5 * v_coord.y, 1.0 - lit, 1.0);
}
";

const GATHER_FS: &str = "#version 150
#extension GL_ARB_gpu_shader5 : require
uniform sampler2D tex;
in vec2 v_coord;
out vec4 frag_color;
void main() {
    frag_color = textureGather(tex, v_coord, 1);
}
";

const GRAD_FS: &str = "#version 150
uniform sampler2D mips;
in vec2 v_coord;
out vec4 frag_color;
void main() {
    // 8x8 at level 0: gradients of 1/8, 2/8 and 4/8 per pixel select levels 0, 1, 2.
    float g = exp2(floor(v_coord.x * 3.0)) / 8.0;
    frag_color = textureGrad(mips, v_coord, vec2(g, 0.0), vec2(0.0, g));
}
";

const FETCH_VS: &str = "#version 150
in vec2 position;
uniform sampler2D table;
uniform vec4 rect;
out vec4 v_color;
void main() {
    int i = gl_InstanceID;
    v_color = texelFetch(table, ivec2(i, 0), 0);
    float lift = textureLod(table, vec2((float(i) + 0.5) / 4.0, 0.5), 0.0).b * 0.5;
    vec2 p = position * 0.5 + 0.5;
    float x = mix(rect.x, rect.z, (float(i) + p.x * 0.8) / 4.0);
    float y = mix(rect.y, rect.w, p.y * 0.5 + lift);
    gl_Position = vec4(x, y, 0.0, 1.0);
}
";

const COLOR_FS: &str = "#version 150
in vec4 v_color;
out vec4 frag_color;
void main() {
    frag_color = v_color;
}
";

/// An n x n RGBA8 image from a texel function.
fn image(n: usize, f: impl Fn(usize, usize) -> [u8; 4]) -> Vec<u8> {
    (0..n * n).flat_map(|i| f(i % n, i / n)).collect()
}

fn draw(session: &Session) -> Result<(), String> {
    let quad = [
        -1.0f32, -1.0, 0.0, 0.0, 1.0, -1.0, 1.0, 0.0, -1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    ];
    let (vao, _vbo) = session.vertices(&quad, &[(0, 2), (1, 2)])?;
    let program = |vs: &str, fs: &str| {
        session.program_stages(
            &[
                (glow::VERTEX_SHADER, "vertex", vs),
                (glow::FRAGMENT_SHADER, "fragment", fs),
            ],
            &[(0, "position"), (1, "coord")],
        )
    };
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; every object used
    // was created through it, and each upload reads an image of exactly its size.
    unsafe {
        gl.clear_color(0.05, 0.05, 0.1, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
        let nearest = |target: u32| {
            for (name, value) in [
                (glow::TEXTURE_MIN_FILTER, glow::NEAREST),
                (glow::TEXTURE_MAG_FILTER, glow::NEAREST),
                (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
                (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
                (glow::TEXTURE_WRAP_R, glow::CLAMP_TO_EDGE),
            ] {
                gl.tex_parameter_i32(target, name, value as i32);
            }
        };
        let rgba = |target: u32, level: i32, n: usize, data: &[u8]| {
            gl.tex_image_2d(
                target,
                level,
                glow::RGBA8 as i32,
                n as i32,
                n as i32,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(data)),
            );
        };
        let draw_in = |p: glow::Program, rect: [f32; 4]| {
            gl.use_program(Some(p));
            let r = gl.get_uniform_location(p, "rect");
            gl.uniform_4_f32(r.as_ref(), rect[0], rect[1], rect[2], rect[3]);
            gl.bind_vertex_array(Some(vao));
            gl.draw_arrays(glow::TRIANGLE_STRIP, 0, 4);
        };

        // Cube map: face f has hue f, texel gradient in red/green.
        let cube = gl.create_texture()?;
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_CUBE_MAP, Some(cube));
        let hues: [[u8; 3]; 6] = [
            [255, 64, 64],
            [64, 255, 64],
            [64, 64, 255],
            [255, 255, 64],
            [255, 64, 255],
            [64, 255, 255],
        ];
        for (f, hue) in hues.iter().enumerate() {
            let data = image(4, |x, y| {
                [
                    hue[0] / 2 + 30 * x as u8,
                    hue[1] / 2 + 30 * y as u8,
                    hue[2],
                    255,
                ]
            });
            rgba(glow::TEXTURE_CUBE_MAP_POSITIVE_X + f as u32, 0, 4, &data);
        }
        nearest(glow::TEXTURE_CUBE_MAP);
        let p = program(QUAD_VS, CUBE_FS)?;
        gl.use_program(Some(p));
        gl.uniform_1_i32(gl.get_uniform_location(p, "cube").as_ref(), 0);
        draw_in(p, [-0.97, 0.67, -0.03, 0.97]);
        // The same cube filtered LINEAR with seamless filtering across face edges.
        gl.enable(glow::TEXTURE_CUBE_MAP_SEAMLESS);
        gl.tex_parameter_i32(
            glow::TEXTURE_CUBE_MAP,
            glow::TEXTURE_MIN_FILTER,
            glow::LINEAR as i32,
        );
        gl.tex_parameter_i32(
            glow::TEXTURE_CUBE_MAP,
            glow::TEXTURE_MAG_FILTER,
            glow::LINEAR as i32,
        );
        draw_in(p, [-0.97, 0.37, -0.03, 0.64]);

        // Shadow: a 4x4 depth texture with depths rising along x and y.
        let depth = gl.create_texture()?;
        gl.active_texture(glow::TEXTURE1);
        gl.bind_texture(glow::TEXTURE_2D, Some(depth));
        let depths: Vec<f32> = (0..16)
            .map(|i| ((i % 4) as f32 * 2.0 + (i / 4) as f32) / 10.0 + 0.05)
            .collect();
        let bytes: Vec<u8> = depths.iter().flat_map(|d| d.to_le_bytes()).collect();
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::DEPTH_COMPONENT32F as i32,
            4,
            4,
            0,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            glow::PixelUnpackData::Slice(Some(&bytes)),
        );
        nearest(glow::TEXTURE_2D);
        gl.tex_parameter_i32(
            glow::TEXTURE_2D,
            glow::TEXTURE_COMPARE_MODE,
            glow::COMPARE_REF_TO_TEXTURE as i32,
        );
        gl.tex_parameter_i32(
            glow::TEXTURE_2D,
            glow::TEXTURE_COMPARE_FUNC,
            glow::LEQUAL as i32,
        );
        let p = program(QUAD_VS, SHADOW_FS)?;
        gl.use_program(Some(p));
        gl.uniform_1_i32(gl.get_uniform_location(p, "depth").as_ref(), 1);
        draw_in(p, [0.03, 0.37, 0.97, 0.97]);

        // Gather: a 4x4 texture with distinct greens.
        let gather = gl.create_texture()?;
        gl.active_texture(glow::TEXTURE2);
        gl.bind_texture(glow::TEXTURE_2D, Some(gather));
        let data = image(4, |x, y| [200, 16 * (x + 4 * y) as u8 + 8, 50, 255]);
        rgba(glow::TEXTURE_2D, 0, 4, &data);
        nearest(glow::TEXTURE_2D);
        let p = program(QUAD_VS, GATHER_FS)?;
        gl.use_program(Some(p));
        gl.uniform_1_i32(gl.get_uniform_location(p, "tex").as_ref(), 2);
        draw_in(p, [-0.97, -0.27, -0.03, 0.33]);

        // textureGrad: three levels, 8x8, 4x4, 2x2, each a flat colour with a texel
        // checker.
        let mips = gl.create_texture()?;
        gl.active_texture(glow::TEXTURE3);
        gl.bind_texture(glow::TEXTURE_2D, Some(mips));
        let levels = [[230u8, 80, 40], [40, 200, 90], [60, 90, 230]];
        for (l, c) in levels.iter().enumerate() {
            let n = 8 >> l;
            let data = image(n, |x, y| {
                let dark = (x + y) % 2 == 0;
                [c[0] - if dark { 30 } else { 0 }, c[1], c[2], 255]
            });
            rgba(glow::TEXTURE_2D, l as i32, n, &data);
        }
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAX_LEVEL, 2);
        nearest(glow::TEXTURE_2D);
        gl.tex_parameter_i32(
            glow::TEXTURE_2D,
            glow::TEXTURE_MIN_FILTER,
            glow::NEAREST_MIPMAP_NEAREST as i32,
        );
        let p = program(QUAD_VS, GRAD_FS)?;
        gl.use_program(Some(p));
        gl.uniform_1_i32(gl.get_uniform_location(p, "mips").as_ref(), 3);
        draw_in(p, [0.03, -0.27, 0.97, 0.33]);

        // Vertex fetch: a 4x1 table of colours whose blue lifts each quad.
        let table = gl.create_texture()?;
        gl.active_texture(glow::TEXTURE4);
        gl.bind_texture(glow::TEXTURE_2D, Some(table));
        let row: Vec<u8> = [
            [250u8, 120, 0, 255],
            [0, 200, 128, 255],
            [120, 0, 255, 255],
            [255, 255, 64, 255],
        ]
        .concat();
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            4,
            1,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(&row)),
        );
        nearest(glow::TEXTURE_2D);
        let p = session.program_stages(
            &[
                (glow::VERTEX_SHADER, "fetch vertex", FETCH_VS),
                (glow::FRAGMENT_SHADER, "fragment", COLOR_FS),
            ],
            &[(0, "position")],
        )?;
        gl.use_program(Some(p));
        gl.uniform_1_i32(gl.get_uniform_location(p, "table").as_ref(), 4);
        let r = gl.get_uniform_location(p, "rect");
        gl.uniform_4_f32(r.as_ref(), -0.95, -0.95, 0.95, -0.35);
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays_instanced(glow::TRIANGLE_STRIP, 0, 4, 4);
    }
    session.check_error("sampling")
}
