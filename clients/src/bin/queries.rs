//! `queries`: the `triangle` scene drawn inside an occlusion query
//! (`GL_SAMPLES_PASSED`) and a primitive query (`GL_PRIMITIVES_GENERATED`),
//! whose results are printed on standard output as
//! `samples passed: N` and `primitives generated: M`.
//!
//! The counts are exact: the triangle covers the same pixels on every
//! correct implementation (the rasterization rules fix them), and one
//! triangle is one primitive. On crocus they come from the GPU's pipeline
//! statistics counters (PS_DEPTH_COUNT and the clipper/stream-out counters)
//! written to memory by PIPE_CONTROL and MI_STORE_REGISTER_MEM, so they test
//! that gtsim counts what the seed says each stage counts.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, COLOR_ATTRIB, POSITION_ATTRIB, Session, TRIANGLE_VERTICES, run};

fn main() -> ExitCode {
    run("queries", Attachments::Color, draw)
}

fn draw(session: &Session) -> Result<(), String> {
    let program = session.color_program()?;
    let (vao, _vbo) = session.vertices(
        &TRIANGLE_VERTICES,
        &[(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)],
    )?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program, vertex array and queries were created through it.
    let (samples, primitives) = unsafe {
        let samples = gl.create_query()?;
        let primitives = gl.create_query()?;
        gl.clear_color(0.1, 0.1, 0.1, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(program));
        gl.bind_vertex_array(Some(vao));
        gl.begin_query(glow::SAMPLES_PASSED, samples);
        gl.begin_query(glow::PRIMITIVES_GENERATED, primitives);
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.end_query(glow::PRIMITIVES_GENERATED);
        gl.end_query(glow::SAMPLES_PASSED);
        (
            gl.get_query_parameter_u32(samples, glow::QUERY_RESULT),
            gl.get_query_parameter_u32(primitives, glow::QUERY_RESULT),
        )
    };
    session.check_error("queries")?;
    println!("samples passed: {samples}");
    println!("primitives generated: {primitives}");
    Ok(())
}
