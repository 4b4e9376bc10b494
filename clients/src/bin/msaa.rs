//! `msaa`: a 4x multisampled scene resolved into the single-sampled framebuffer.
//!
//! Into a 4x multisampled framebuffer (RGBA8 colour, 24-bit depth), cleared to black
//! and depth 1.0:
//!
//! * two triangles that pierce each other (depth from -0.5 to +0.5 across each, with
//!   `GL_LESS`): their crossing line is resolved sample by sample, so its pixels blend
//!   red and green by the samples each wins, and their outer edges are antialiased;
//! * a quad shaded per sample (`GL_ARB_sample_shading`'s `gl_SampleID`): sample *n*
//!   writes blue n/3, so every covered pixel resolves to the mean, 0.5;
//! * a quad drawn with `GL_SAMPLE_ALPHA_TO_COVERAGE` at alpha 0.5 over black: half of
//!   each pixel's samples take its white, which resolves to grey 0.5;
//! * a quad whose fragment shader writes `gl_SampleMask` = 0b0101: two of four samples
//!   take its yellow.
//!
//! The multisampled colour buffer is then resolved with `glBlitFramebuffer` and read
//! back.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, COLOR_ATTRIB, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("msaa", Attachments::Color, draw)
}

/// Samples per pixel of the multisampled framebuffer.
const SAMPLES: i32 = 4;

#[rustfmt::skip]
const PIERCING: [f32; 42] = [
    // x     y     z     r    g    b    a
    -0.9, -0.9, -0.5,  1.0, 0.0, 0.0, 1.0,
     0.1, -0.8,  0.5,  1.0, 0.0, 0.0, 1.0,
    -0.4,  0.1,  0.5,  1.0, 0.0, 0.0, 1.0,
    -0.9, -0.3,  0.5,  0.0, 1.0, 0.0, 1.0,
     0.1, -0.5, -0.5,  0.0, 1.0, 0.0, 1.0,
    -0.2,  0.0, -0.5,  0.0, 1.0, 0.0, 1.0,
];

/// Two triangles covering (x0, y0)-(x1, y1) at depth 0, position only.
fn quad(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<f32> {
    [(x0, y0), (x1, y0), (x1, y1), (x0, y0), (x1, y1), (x0, y1)]
        .iter()
        .flat_map(|&(x, y)| [x, y, 0.0])
        .collect()
}

const POSITION_VS: &str = "#version 130
in vec3 position;
void main() { gl_Position = vec4(position, 1.0); }
";

const PER_SAMPLE_FS: &str = "#version 130
#extension GL_ARB_sample_shading : require
out vec4 color;
void main() { color = vec4(0.0, 0.0, float(gl_SampleID) / 3.0, 1.0); }
";

const HALF_ALPHA_FS: &str = "#version 130
out vec4 color;
void main() { color = vec4(1.0, 1.0, 1.0, 0.5); }
";

const SAMPLE_MASK_FS: &str = "#version 130
#extension GL_ARB_sample_shading : require
out vec4 color;
void main() {
    gl_SampleMask[0] = 5;
    color = vec4(1.0, 1.0, 0.0, 1.0);
}
";

fn draw(session: &Session) -> Result<(), String> {
    let [w, h] = session.size().map(|n| n as i32);
    let colour = session.color_program()?;
    let attrs = [(POSITION_ATTRIB, "position")];
    let per_sample = session.program(POSITION_VS, PER_SAMPLE_FS, &attrs)?;
    let half_alpha = session.program(POSITION_VS, HALF_ALPHA_FS, &attrs)?;
    let sample_mask = session.program(POSITION_VS, SAMPLE_MASK_FS, &attrs)?;
    let (piercing, _b0) =
        session.vertices(&PIERCING, &[(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)])?;
    let mut quads = quad(0.2, -0.9, 0.9, -0.2);
    quads.extend(quad(-0.9, 0.2, -0.2, 0.9));
    quads.extend(quad(0.2, 0.2, 0.9, 0.9));
    let (quads, _b1) = session.vertices(&quads, &[(POSITION_ATTRIB, 3)])?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; every object used
    // was created through it, and the multisampled framebuffer is deleted before the
    // session's own is bound back.
    unsafe {
        let fbo = gl.create_framebuffer()?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
        let rb_colour = gl.create_renderbuffer()?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb_colour));
        gl.renderbuffer_storage_multisample(glow::RENDERBUFFER, SAMPLES, glow::RGBA8, w, h);
        gl.framebuffer_renderbuffer(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::RENDERBUFFER,
            Some(rb_colour),
        );
        let rb_depth = gl.create_renderbuffer()?;
        gl.bind_renderbuffer(glow::RENDERBUFFER, Some(rb_depth));
        gl.renderbuffer_storage_multisample(
            glow::RENDERBUFFER,
            SAMPLES,
            glow::DEPTH_COMPONENT24,
            w,
            h,
        );
        gl.framebuffer_renderbuffer(
            glow::FRAMEBUFFER,
            glow::DEPTH_ATTACHMENT,
            glow::RENDERBUFFER,
            Some(rb_depth),
        );
        if gl.check_framebuffer_status(glow::FRAMEBUFFER) != glow::FRAMEBUFFER_COMPLETE {
            return Err("the 4x multisampled framebuffer is incomplete".into());
        }
        gl.viewport(0, 0, w, h);
        gl.clear_color(0.0, 0.0, 0.0, 1.0);
        gl.clear_depth_f64(1.0);
        gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
        gl.enable(glow::MULTISAMPLE);

        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::LESS);
        gl.use_program(Some(colour));
        gl.bind_vertex_array(Some(piercing));
        gl.draw_arrays(glow::TRIANGLES, 0, 6);
        gl.disable(glow::DEPTH_TEST);

        gl.bind_vertex_array(Some(quads));
        // A static use of gl_SampleID makes the whole shader run per sample.
        gl.use_program(Some(per_sample));
        gl.draw_arrays(glow::TRIANGLES, 0, 6);

        gl.enable(glow::SAMPLE_ALPHA_TO_COVERAGE);
        gl.use_program(Some(half_alpha));
        gl.draw_arrays(glow::TRIANGLES, 6, 6);
        gl.disable(glow::SAMPLE_ALPHA_TO_COVERAGE);

        gl.use_program(Some(sample_mask));
        gl.draw_arrays(glow::TRIANGLES, 12, 6);
        session.check_error("multisampled drawing")?;

        // Resolve into the session's framebuffer.
        gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fbo));
        gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, session.framebuffer());
        gl.blit_framebuffer(
            0,
            0,
            w,
            h,
            0,
            0,
            w,
            h,
            glow::COLOR_BUFFER_BIT,
            glow::NEAREST,
        );
        session.check_error("resolve")?;
        gl.bind_framebuffer(glow::FRAMEBUFFER, session.framebuffer());
        gl.delete_framebuffer(fbo);
        gl.delete_renderbuffer(rb_colour);
        gl.delete_renderbuffer(rb_depth);
    }
    Ok(())
}
