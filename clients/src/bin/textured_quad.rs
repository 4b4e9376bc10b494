//! `textured_quad`: trilinear (mipmapped) texture sampling on a receding
//! floor.
//!
//! A procedurally generated 64x64 RGBA8 checkerboard (8x8-texel squares,
//! orange and blue) gets a full mipmap chain from `glGenerateMipmap` and is
//! sampled with `GL_LINEAR_MIPMAP_LINEAR` and `GL_REPEAT`. It is mapped,
//! once across and eight times deep, onto a quad seen in perspective like a
//! floor: the near edge spans the bottom of the image, the far edge is an
//! eighth as wide at the top centre (clip-space w goes from 1 to 8). Near
//! the bottom one texel covers about one pixel (level 0); every row further
//! up is minified more, up to level 6 (the 1x1 level) at the top, so crisp
//! checks in front shrink and blur into the flat average colour in the
//! distance. The background is dark grey.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, Session, run};

fn main() -> ExitCode {
    run("textured_quad", Attachments::Color, draw)
}

/// Texture width and height in texels (level 0).
const TEXTURE_SIZE: usize = 64;
/// Width and height of one checkerboard square in texels.
const CHECK: usize = 8;
const ORANGE: [u8; 4] = [255, 160, 0, 255];
const BLUE: [u8; 4] = [0, 64, 224, 255];

/// w of the far edge: it appears this many times narrower than the near one.
const FAR_W: f32 = 8.0;

const VERTEX_SHADER: &str = "#version 130
in vec4 position;
in vec2 texcoord;
out vec2 v_texcoord;
void main() {
    v_texcoord = texcoord;
    gl_Position = position;
}
";

const FRAGMENT_SHADER: &str = "#version 130
uniform sampler2D checker;
in vec2 v_texcoord;
out vec4 frag_color;
void main() {
    frag_color = texture(checker, v_texcoord);
}
";

#[rustfmt::skip]
const VERTICES: [f32; 24] = [
    // clip-space x, y, z, w (far edge: larger w)      s    t
    -1.0,  -1.0,  0.0, 1.0,                            0.0, 0.0,
     1.0,  -1.0,  0.0, 1.0,                            1.0, 0.0,
    -1.0,  FAR_W, 0.0, FAR_W,                          0.0, 8.0,
     1.0,  FAR_W, 0.0, FAR_W,                          1.0, 8.0,
];

/// The level-0 checkerboard, rows bottom to top as GL expects.
fn checkerboard() -> Vec<u8> {
    let mut texels = Vec::with_capacity(TEXTURE_SIZE * TEXTURE_SIZE * 4);
    for y in 0..TEXTURE_SIZE {
        for x in 0..TEXTURE_SIZE {
            let odd = (x / CHECK + y / CHECK) % 2 == 1;
            texels.extend_from_slice(if odd { &BLUE } else { &ORANGE });
        }
    }
    texels
}

fn draw(session: &Session) -> Result<(), String> {
    let program = session.program(
        VERTEX_SHADER,
        FRAGMENT_SHADER,
        &[(0, "position"), (1, "texcoord")],
    )?;
    let (vao, _vbo) = session.vertices(&VERTICES, &[(0, 4), (1, 2)])?;
    let texels = checkerboard();
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program, vertex array and texture were created through it, and the
    // upload reads `texels`, which holds exactly 64x64 RGBA8 texels.
    unsafe {
        let texture = gl.create_texture()?;
        gl.active_texture(glow::TEXTURE0);
        gl.bind_texture(glow::TEXTURE_2D, Some(texture));
        gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            TEXTURE_SIZE as i32,
            TEXTURE_SIZE as i32,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(&texels)),
        );
        gl.generate_mipmap(glow::TEXTURE_2D);
        let filters = [
            (glow::TEXTURE_MIN_FILTER, glow::LINEAR_MIPMAP_LINEAR),
            (glow::TEXTURE_MAG_FILTER, glow::LINEAR),
            (glow::TEXTURE_WRAP_S, glow::REPEAT),
            (glow::TEXTURE_WRAP_T, glow::REPEAT),
        ];
        for (name, value) in filters {
            gl.tex_parameter_i32(glow::TEXTURE_2D, name, value as i32);
        }
        session.check_error("texture setup")?;

        gl.clear_color(0.15, 0.15, 0.15, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(program));
        let sampler = gl.get_uniform_location(program, "checker");
        gl.uniform_1_i32(sampler.as_ref(), 0);
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays(glow::TRIANGLE_STRIP, 0, 4);
    }
    Ok(())
}
