//! `runaway`: a draw no GPU finishes in reasonable time, for the hangcheck.
//!
//! The `triangle` client's triangle drawn 2^31 - 1 times (`glDrawArraysInstanced` with
//! the largest instance count GL accepts), then `glFinish`. On hardware the kernel's
//! hangcheck resets the engine and marks the context guilty; on gtsim the model's
//! watchdog ends the submission as a GPU hang report (docs/FEATURES.md, "The
//! hangcheck"). `scripts/bench-hang.sh` times how long the report takes. The client
//! then prints `glGetError` (GL_CONTEXT_LOST, 0x507, once the driver has seen the
//! reset) and writes
//! whatever the framebuffer holds. Not one of the clients compared with llvmpipe: on
//! llvmpipe it runs for hours.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, COLOR_ATTRIB, POSITION_ATTRIB, Session, TRIANGLE_VERTICES, run};

fn main() -> ExitCode {
    run("runaway", Attachments::Color, draw)
}

fn draw(session: &Session) -> Result<(), String> {
    let program = session.color_program()?;
    let (vao, _vbo) = session.vertices(
        &TRIANGLE_VERTICES,
        &[(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)],
    )?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program and vertex array were created through it.
    unsafe {
        gl.clear_color(0.1, 0.1, 0.1, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(program));
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays_instanced(glow::TRIANGLES, 0, 3, i32::MAX);
        gl.finish();
        eprintln!("runaway: glGetError after glFinish: {:#x}", gl.get_error());
    }
    Ok(())
}
