//! `wireframe`: the `clipping` client's triangles as outlines (`glPolygonMode(GL_LINE)`,
//! seed 004 §10.3.13 Fill Mode WIREFRAME): each clipped triangle's outline, without the
//! inner edges of the fan the clipper's polygon is drawn as (the scene is
//! `gtsim_clients::clipped`).

use std::process::ExitCode;

use gtsim_clients::{Attachments, clipped, run};

fn main() -> ExitCode {
    run("wireframe", Attachments::Color, |s| clipped::draw(s, true))
}
