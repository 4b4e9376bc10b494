//! `geometry`: geometry shaders that make new primitives.
//!
//! Four draws, each through its own GLSL 1.50 geometry shader:
//! * six triangles, each shrunk toward its centre and coloured by
//!   `gl_PrimitiveIDIn`, followed (after `EndPrimitive`) by a small second
//!   triangle at the centre: two strips from one input object;
//! * five points, each expanded into a square (a 4-vertex strip) whose size
//!   comes from the vertex;
//! * a line strip with adjacency, each segment emitted as a line between its
//!   two inner vertices (the adjacent ones only steer its colour);
//! * four points along the top through an instanced geometry shader
//!   (ARB_gpu_shader5 `invocations = 3`), each invocation emitting a small
//!   triangle placed and coloured by `gl_InvocationID`.
//!
//! Exercises GS object staging (triangles, points, line strips with
//! adjacency), GS output with cuts, several output topologies, the
//! PrimitiveID payload and GS instancing.
//!
//! Every colour channel is a product of multiples of 0.2, so it is a whole
//! number of 0.04 and its value x 255 is never within 0.1 of a rounding
//! half: interpolation's last bits cannot round it differently.

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, COLOR_ATTRIB, POSITION_ATTRIB, Session, run};

fn main() -> ExitCode {
    run("geometry", Attachments::Color, draw)
}

const VERTEX: &str = "#version 150
in vec3 position;
in vec4 color;
out vec4 v_color;
void main() {
    v_color = color;
    gl_Position = vec4(position, 1.0);
}
";

const FRAGMENT: &str = "#version 150
in vec4 g_color;
out vec4 frag_color;
void main() {
    frag_color = g_color;
}
";

const GS_TRIANGLES: &str = "#version 150
layout(triangles) in;
layout(triangle_strip, max_vertices = 6) out;
in vec4 v_color[];
out vec4 g_color;
void main() {
    vec4 c = (gl_in[0].gl_Position + gl_in[1].gl_Position + gl_in[2].gl_Position) / 3.0;
    vec4 tint = vec4(float(gl_PrimitiveIDIn % 3) * 0.4, float(gl_PrimitiveIDIn / 3) * 0.4, 0.6, 1.0);
    for (int i = 0; i < 3; i++) {
        gl_Position = mix(c, gl_in[i].gl_Position, 0.8);
        g_color = v_color[i] * 0.4 + tint * 0.6;
        EmitVertex();
    }
    EndPrimitive();
    for (int i = 0; i < 3; i++) {
        gl_Position = c + (c - gl_in[i].gl_Position) * 0.25;
        g_color = vec4(1.0, 1.0, 1.0, 1.0) - tint * 0.6;
        EmitVertex();
    }
    EndPrimitive();
}
";

const GS_POINTS: &str = "#version 150
layout(points) in;
layout(triangle_strip, max_vertices = 4) out;
in vec4 v_color[];
out vec4 g_color;
void main() {
    float s = v_color[0].a * 0.1;
    vec4 p = gl_in[0].gl_Position;
    g_color = vec4(v_color[0].rgb, 1.0);
    gl_Position = p + vec4(-s, -s, 0.0, 0.0); EmitVertex();
    gl_Position = p + vec4( s, -s, 0.0, 0.0); EmitVertex();
    gl_Position = p + vec4(-s,  s, 0.0, 0.0); EmitVertex();
    gl_Position = p + vec4( s,  s, 0.0, 0.0); EmitVertex();
}
";

const GS_LINES_ADJ: &str = "#version 150
layout(lines_adjacency) in;
layout(line_strip, max_vertices = 2) out;
in vec4 v_color[];
out vec4 g_color;
void main() {
    g_color = vec4(v_color[0].rg, v_color[3].b, 1.0);
    gl_Position = gl_in[1].gl_Position; EmitVertex();
    gl_Position = gl_in[2].gl_Position; EmitVertex();
}
";

const GS_INSTANCED: &str = "#version 150
#extension GL_ARB_gpu_shader5 : require
layout(points, invocations = 3) in;
layout(triangle_strip, max_vertices = 3) out;
in vec4 v_color[];
out vec4 g_color;
void main() {
    float i = float(gl_InvocationID);
    vec4 p = gl_in[0].gl_Position + vec4(0.1 * i, 0.0, 0.0, 0.0);
    g_color = vec4(0.2 * (i + 1.0), v_color[0].g, 1.0 - 0.2 * i, 1.0);
    gl_Position = p; EmitVertex();
    gl_Position = p + vec4(0.08, 0.0, 0.0, 0.0); EmitVertex();
    gl_Position = p + vec4(0.04, 0.05, 0.0, 0.0); EmitVertex();
}
";

fn draw(session: &Session) -> Result<(), String> {
    let attributes = [(POSITION_ATTRIB, "position"), (COLOR_ATTRIB, "color")];
    let program = |gs: &str| {
        session.program_stages(
            &[
                (glow::VERTEX_SHADER, "vertex", VERTEX),
                (glow::GEOMETRY_SHADER, "geometry", gs),
                (glow::FRAGMENT_SHADER, "fragment", FRAGMENT),
            ],
            &attributes,
        )
    };
    let triangles = program(GS_TRIANGLES)?;
    let points = program(GS_POINTS)?;
    let lines = program(GS_LINES_ADJ)?;
    let instanced = program(GS_INSTANCED)?;

    // Six triangles on a 3x2 grid in the upper part of the screen.
    let mut tris = vec![];
    for i in 0..6 {
        let (x, y) = ((i % 3) as f32 * 0.6 - 0.85, (i / 3) as f32 * 0.45 + 0.05);
        let c = [(i % 2) as f32, ((i + 1) % 2) as f32, 0.4, 1.0];
        for (dx, dy) in [(0.0, 0.0), (0.5, 0.05), (0.1, 0.4)] {
            tris.extend([x + dx, y + dy, 0.0]);
            tris.extend(c);
        }
    }
    // Five points across the lower left; alpha is the square's size.
    let mut pts = vec![];
    for i in 0..5 {
        let x = i as f32 * 0.2 - 0.9;
        let c = [
            1.0 - 0.2 * i as f32,
            0.2 * i as f32,
            0.8,
            0.2 + 0.15 * i as f32,
        ];
        pts.extend([x, -0.35 - 0.1 * i as f32, 0.0]);
        pts.extend(c);
    }
    // A zigzag line strip with adjacency across the lower right (colour channels
    // multiples of 0.2, whole numbers of 255ths, so no rounding sits on a half).
    let mut strip = vec![];
    for i in 0..7 {
        let x = 0.05 + i as f32 * 0.15;
        let y = if i % 2 == 0 { -0.3 } else { -0.8 };
        strip.extend([x, y, 0.0]);
        strip.extend([
            0.2 * i as f32,
            1.0 - 0.2 * i as f32,
            (i % 3) as f32 * 0.4,
            1.0,
        ]);
    }
    // Four points along the top, above the triangles' grid.
    let mut top = vec![];
    for k in 0..4 {
        top.extend([-0.8 + 0.4 * k as f32, 0.92, 0.0]);
        top.extend([0.0, 0.2 * k as f32, 0.0, 1.0]);
    }
    let layout = [(POSITION_ATTRIB, 3), (COLOR_ATTRIB, 4)];
    let (tri_vao, _b0) = session.vertices(&tris, &layout)?;
    let (pt_vao, _b1) = session.vertices(&pts, &layout)?;
    let (strip_vao, _b2) = session.vertices(&strip, &layout)?;
    let (top_vao, _b3) = session.vertices(&top, &layout)?;
    let gl = session.gl();
    // SAFETY: the session keeps its context current on this thread; the
    // programs and vertex arrays were created through it.
    unsafe {
        gl.clear_color(0.05, 0.05, 0.1, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(triangles));
        gl.bind_vertex_array(Some(tri_vao));
        gl.draw_arrays(glow::TRIANGLES, 0, 18);
        gl.use_program(Some(points));
        gl.bind_vertex_array(Some(pt_vao));
        gl.draw_arrays(glow::POINTS, 0, 5);
        gl.use_program(Some(lines));
        gl.bind_vertex_array(Some(strip_vao));
        gl.draw_arrays(glow::LINE_STRIP_ADJACENCY, 0, 7);
        gl.use_program(Some(instanced));
        gl.bind_vertex_array(Some(top_vao));
        gl.draw_arrays(glow::POINTS, 0, 4);
    }
    session.check_error("drawing")
}
