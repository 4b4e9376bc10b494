//! `clipping`: primitives the clipper has to cut, filled (the scene is
//! `gtsim_clients::clipped`).

use std::process::ExitCode;

use gtsim_clients::{Attachments, clipped, run};

fn main() -> ExitCode {
    run("clipping", Attachments::Color, |s| clipped::draw(s, false))
}
