//! `clear`: the simplest client. Clears the whole framebuffer with
//! `glClear` to one opaque colour, RGB (51, 102, 204) = (0.2, 0.4, 0.8),
//! and draws nothing else. Every pixel of the PNG has that colour.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, Session, run};

fn main() -> ExitCode {
    run("clear", Attachments::Color, draw)
}

fn draw(session: &Session) -> Result<(), String> {
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread.
    unsafe {
        gl.clear_color(0.2, 0.4, 0.8, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
    }
    Ok(())
}
