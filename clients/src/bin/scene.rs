//! `scene`: an instanced, lit, depth-tested scene: the benchmark's 640x480 client.
//!
//! One cube (36 vertices with position and normal) is drawn 48 times with
//! `glDrawArraysInstanced`: the vertex shader (GLSL 1.40) places instance
//! `gl_InstanceID` on an 8x6 grid, turns it about two axes by angles derived from the
//! instance number, and projects it with a fixed perspective matrix; the fragment
//! shader lights it per pixel (ambient, Lambert diffuse and a Blinn-Phong highlight
//! from one directional light) with a colour per instance. Depth testing (`GL_LESS`
//! against a cleared 24-bit depth buffer) hides the back faces and the cubes behind.
//!
//! The highlight's `pow` is a transcendental whose last bits differ between correct
//! implementations, so the test allows a small difference per channel.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, Session, run};

fn main() -> ExitCode {
    run("scene", Attachments::ColorDepth, draw)
}

const VERTEX_SHADER: &str = "#version 140
in vec3 position;
in vec3 normal;
uniform float aspect;
out vec3 v_normal;
out vec3 v_view;
flat out vec3 v_color;

mat3 rotation(float a, float b) {
    float ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b);
    mat3 rx = mat3(1.0, 0.0, 0.0, 0.0, ca, sa, 0.0, -sa, ca);
    mat3 ry = mat3(cb, 0.0, -sb, 0.0, 1.0, 0.0, sb, 0.0, cb);
    return ry * rx;
}

void main() {
    int i = gl_InstanceID;
    float col = float(i % 8), row = float(i / 8);
    mat3 r = rotation(0.4 + 0.3 * float(i), 0.6 + 0.17 * float(i));
    vec3 world = r * (position * 0.32) + vec3(col - 3.5, row - 2.5, -9.0);
    v_normal = r * normal;
    v_view = -world;
    v_color = vec3(0.35 + 0.08 * col, 0.3 + 0.12 * row, 0.9 - 0.1 * col);
    // A perspective projection with a 60 degree vertical field of view,
    // near 1 and far 20.
    float f = 1.7320508;
    gl_Position = vec4(world.x * f / aspect, world.y * f,
                       (world.z * 21.0 + 40.0) / -19.0, -world.z);
}
";

const FRAGMENT_SHADER: &str = "#version 140
in vec3 v_normal;
in vec3 v_view;
flat in vec3 v_color;
out vec4 frag_color;

void main() {
    vec3 n = normalize(v_normal);
    vec3 l = normalize(vec3(0.4, 0.7, 0.6));
    vec3 v = normalize(v_view);
    vec3 h = normalize(l + v);
    float diffuse = max(dot(n, l), 0.0);
    float specular = pow(max(dot(n, h), 0.0), 24.0);
    vec3 c = v_color * (0.15 + 0.85 * diffuse) + vec3(0.6) * specular;
    frag_color = vec4(min(c, vec3(1.0)), 1.0);
}
";

/// The unit cube's 12 triangles (counter-clockwise from outside): x, y, z and the
/// face normal per vertex.
fn cube() -> Vec<f32> {
    // Each face: its normal axis and sign; two triangles over its corners.
    let mut v = Vec::with_capacity(36 * 6);
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let (u, w) = ((axis + 1) % 3, (axis + 2) % 3);
            let corner = |a: f32, b: f32| {
                let mut p = [0.0f32; 3];
                p[axis] = sign;
                // Swap the in-face axes on the negative face to keep the winding
                // counter-clockwise seen from outside.
                if sign > 0.0 {
                    p[u] = a;
                    p[w] = b;
                } else {
                    p[u] = b;
                    p[w] = a;
                }
                p
            };
            let quad = [
                corner(-1.0, -1.0),
                corner(1.0, -1.0),
                corner(1.0, 1.0),
                corner(-1.0, 1.0),
            ];
            let mut n = [0.0f32; 3];
            n[axis] = sign;
            for k in [0, 1, 2, 0, 2, 3] {
                v.extend_from_slice(&quad[k]);
                v.extend_from_slice(&n);
            }
        }
    }
    v
}

fn draw(session: &Session) -> Result<(), String> {
    let program = session.program(
        VERTEX_SHADER,
        FRAGMENT_SHADER,
        &[(0, "position"), (1, "normal")],
    )?;
    let (vao, _vbo) = session.vertices(&cube(), &[(0, 3), (1, 3)])?;
    let [w, h] = session.size();
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // program and vertex array were created through it.
    unsafe {
        gl.enable(glow::DEPTH_TEST);
        gl.depth_func(glow::LESS);
        gl.enable(glow::CULL_FACE);
        gl.clear_color(0.05, 0.05, 0.1, 1.0);
        gl.clear_depth_f32(1.0);
        gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
        gl.use_program(Some(program));
        let aspect = gl.get_uniform_location(program, "aspect");
        gl.uniform_1_f32(aspect.as_ref(), w as f32 / h as f32);
        gl.bind_vertex_array(Some(vao));
        gl.draw_arrays_instanced(glow::TRIANGLES, 0, 36, 48);
    }
    Ok(())
}
