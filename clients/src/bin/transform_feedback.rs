//! `transform_feedback`: vertex shader outputs captured into buffers, read back and
//! printed, with the triangles also drawn.
//!
//! * Three triangles go through a vertex shader whose `scaled` and `gl_Position`
//!   outputs are captured interleaved into a buffer with room for two triangles
//!   only: the third overflows. `GL_PRIMITIVES_GENERATED` (3) and
//!   `GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN` (2) are printed, then the
//!   buffer's floats.
//! * One triangle is captured, the next drawn while the capture is paused (not
//!   captured); a new capture of a line strip starts again at the buffer's start
//!   and writes its segments as separate lines over the triangle.
//! * In separate-attributes mode each output goes to its own buffer.
//! * Draw-auto: a transform feedback object captures the first triangle, is paused
//!   over the second and resumed for the third; `glDrawTransformFeedback` then
//!   draws what it captured (two triangles, six vertices: the count comes from the
//!   SO write offset the GPU stored at the end of the capture), squashed into the
//!   bottom band in a single colour.
//!
//! Every captured value is a small multiple of 1/8 or an integer (`gl_VertexID`,
//! which counts from the draw's first vertex), exact in binary, so the printed
//! text is the same on every correct implementation.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, COLOR_ATTRIB, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("transform_feedback", Attachments::Color, draw)
}

const VERTEX: &str = "#version 150
in vec3 position;
in vec4 color;
out vec4 scaled;
out vec4 v_color;
void main() {
    scaled = vec4(position.xy * 2.0, float(gl_VertexID), 0.5);
    v_color = color;
    gl_Position = vec4(position, 1.0);
}
";

/// Draws captured `gl_Position`s halved in height and moved into the bottom band.
const REPLAY: &str = "#version 150
in vec4 position;
void main() {
    gl_Position = vec4(position.x, position.y * 0.5 - 0.625, 0.0, 1.0);
}
";

const REPLAY_FRAGMENT: &str = "#version 150
out vec4 frag_color;
void main() {
    frag_color = vec4(1.0, 0.875, 0.25, 1.0);
}
";

const FRAGMENT: &str = "#version 150
in vec4 v_color;
out vec4 frag_color;
void main() {
    frag_color = v_color;
}
";

/// Reads `len` floats of the buffer bound to GL_TRANSFORM_FEEDBACK_BUFFER.
///
/// # Safety
/// The session's context is current and `buffer` holds at least `len` floats.
unsafe fn floats(gl: &glow::Context, buffer: glow::Buffer, len: usize) -> Vec<f32> {
    let mut bytes = vec![0u8; len * 4];
    // SAFETY: as the caller promises.
    unsafe {
        gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, Some(buffer));
        gl.get_buffer_sub_data(glow::TRANSFORM_FEEDBACK_BUFFER, 0, &mut bytes);
    }
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

fn print_floats(what: &str, v: &[f32]) {
    println!("{what}:");
    for row in v.chunks(8) {
        let text: Vec<String> = row.iter().map(|f| format!("{f}")).collect();
        println!("  {}", text.join(" "));
    }
}

fn draw(session: &Session) -> Result<(), String> {
    let stages = [
        (glow::VERTEX_SHADER, "vertex", VERTEX),
        (glow::FRAGMENT_SHADER, "fragment", FRAGMENT),
    ];
    let attributes = [(POSITION_ATTRIB, "position"), (COLOR_ATTRIB, "color")];
    let interleaved = session.program_with_feedback(
        &stages,
        &attributes,
        &["scaled", "gl_Position"],
        glow::INTERLEAVED_ATTRIBS,
    )?;
    let separate = session.program_with_feedback(
        &stages,
        &attributes,
        &["scaled", "gl_Position"],
        glow::SEPARATE_ATTRIBS,
    )?;
    // Three triangles (positions multiples of 1/8) and a four-vertex line strip.
    let mut data = vec![];
    for i in 0..3 {
        let x = -0.75 + 0.5 * i as f32;
        let c = [(i % 2) as f32, 0.5, 1.0 - 0.25 * i as f32, 1.0];
        for (dx, dy) in [(0.0, -0.5), (0.375, -0.5), (0.125, 0.25)] {
            data.extend([x + dx, dy, 0.0]);
            data.extend(c);
        }
    }
    for (x, y) in [(-0.875, 0.5), (-0.25, 0.875), (0.25, 0.5), (0.875, 0.875)] {
        data.extend([x, y, 0.0, 1.0, 1.0, 1.0, 1.0]);
    }
    let (vao, _vbo) = session.vertices(&data, &[(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)])?;
    let gl = session.gl();
    // Each captured vertex is 8 floats interleaved (scaled, gl_Position).
    const VERTEX_FLOATS: usize = 8;
    // SAFETY: the session keeps its context current on this thread; every object
    // used was created through it, and the buffers are large enough for the reads.
    unsafe {
        gl.clear_color(0.05, 0.05, 0.1, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.bind_vertex_array(Some(vao));

        // 1. Room for two triangles: the third overflows.
        let buffer = gl.create_buffer()?;
        gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, Some(buffer));
        gl.buffer_data_size(
            glow::TRANSFORM_FEEDBACK_BUFFER,
            (6 * VERTEX_FLOATS * 4) as i32,
            glow::STATIC_READ,
        );
        gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, 0, Some(buffer));
        let generated = gl.create_query()?;
        let written = gl.create_query()?;
        gl.use_program(Some(interleaved));
        gl.begin_query(glow::PRIMITIVES_GENERATED, generated);
        gl.begin_query(glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, written);
        gl.begin_transform_feedback(glow::TRIANGLES);
        gl.draw_arrays(glow::TRIANGLES, 0, 9);
        gl.end_transform_feedback();
        gl.end_query(glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
        gl.end_query(glow::PRIMITIVES_GENERATED);
        println!(
            "primitives generated: {}",
            gl.get_query_parameter_u32(generated, glow::QUERY_RESULT)
        );
        println!(
            "primitives written: {}",
            gl.get_query_parameter_u32(written, glow::QUERY_RESULT)
        );
        print_floats("interleaved", &floats(gl, buffer, 6 * VERTEX_FLOATS));

        // 2. A paused capture writes nothing; the next capture (of a line strip, as
        //    three separate lines) starts again at the buffer's start.
        let buffer = gl.create_buffer()?;
        gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, Some(buffer));
        gl.buffer_data_size(
            glow::TRANSFORM_FEEDBACK_BUFFER,
            (9 * VERTEX_FLOATS * 4) as i32,
            glow::STATIC_READ,
        );
        gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, 0, Some(buffer));
        gl.begin_transform_feedback(glow::TRIANGLES);
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.pause_transform_feedback();
        gl.draw_arrays(glow::TRIANGLES, 3, 3);
        gl.end_transform_feedback();
        gl.begin_transform_feedback(glow::LINES);
        gl.draw_arrays(glow::LINE_STRIP, 9, 4);
        gl.end_transform_feedback();
        print_floats(
            "lines over a triangle",
            &floats(gl, buffer, 9 * VERTEX_FLOATS),
        );

        // 3. Separate attributes: `scaled` and gl_Position each to its buffer.
        let a = gl.create_buffer()?;
        let b = gl.create_buffer()?;
        for (i, buf) in [a, b].into_iter().enumerate() {
            gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, Some(buf));
            gl.buffer_data_size(
                glow::TRANSFORM_FEEDBACK_BUFFER,
                3 * 4 * 4,
                glow::STATIC_READ,
            );
            gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, i as u32, Some(buf));
        }
        gl.use_program(Some(separate));
        gl.begin_transform_feedback(glow::TRIANGLES);
        gl.draw_arrays(glow::TRIANGLES, 6, 3);
        gl.end_transform_feedback();
        print_floats("separate scaled", &floats(gl, a, 12));
        print_floats("separate position", &floats(gl, b, 12));

        // 4. Draw-auto: capture, pause, resume, then draw what was captured.
        let captured = gl.create_buffer()?;
        gl.bind_buffer(glow::TRANSFORM_FEEDBACK_BUFFER, Some(captured));
        gl.buffer_data_size(
            glow::TRANSFORM_FEEDBACK_BUFFER,
            (9 * VERTEX_FLOATS * 4) as i32,
            glow::STATIC_DRAW,
        );
        let tfb = gl.create_transform_feedback()?;
        gl.bind_transform_feedback(glow::TRANSFORM_FEEDBACK, Some(tfb));
        gl.bind_buffer_base(glow::TRANSFORM_FEEDBACK_BUFFER, 0, Some(captured));
        gl.use_program(Some(interleaved));
        gl.bind_vertex_array(Some(vao));
        gl.begin_transform_feedback(glow::TRIANGLES);
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.pause_transform_feedback();
        gl.draw_arrays(glow::TRIANGLES, 3, 3);
        gl.resume_transform_feedback();
        gl.draw_arrays(glow::TRIANGLES, 6, 3);
        gl.end_transform_feedback();
        gl.bind_transform_feedback(glow::TRANSFORM_FEEDBACK, None);
        // Mesa 22.3's crocus reads the stored offset on the CPU for draw-auto on Ivy
        // Bridge, and under its threaded context it maps the offset buffer without
        // waiting for the batch holding the MI_STORE_REGISTER_MEM (so it would read a
        // stale 0 on real hardware too): finishing first makes the read see the store.
        gl.finish();
        let replay_vao = gl.create_vertex_array()?;
        gl.bind_vertex_array(Some(replay_vao));
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(captured));
        // The captured gl_Position follows `scaled` in each 8-float vertex.
        gl.vertex_attrib_pointer_f32(
            POSITION_ATTRIB,
            4,
            glow::FLOAT,
            false,
            (VERTEX_FLOATS * 4) as i32,
            16,
        );
        gl.enable_vertex_attrib_array(POSITION_ATTRIB);
        let replay = session.program_stages(
            &[
                (glow::VERTEX_SHADER, "replay vertex", REPLAY),
                (glow::FRAGMENT_SHADER, "replay fragment", REPLAY_FRAGMENT),
            ],
            &[(POSITION_ATTRIB, "position")],
        )?;
        gl.use_program(Some(replay));
        let draw_transform_feedback = session
            .proc_address("glDrawTransformFeedback")
            .ok_or("glDrawTransformFeedback is missing")?;
        // SAFETY: glDrawTransformFeedback(GLenum mode, GLuint id) is the entry point's
        // signature (GL 4.0 / ARB_transform_feedback2), called with a current context.
        let draw_transform_feedback: extern "system" fn(u32, u32) =
            std::mem::transmute(draw_transform_feedback);
        draw_transform_feedback(glow::TRIANGLES, tfb.0.get());
    }
    session.check_error("transform feedback")
}
