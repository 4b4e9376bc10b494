//! `stipple`: line and polygon stipple and wide lines, in a compatibility-profile
//! context (the stipples are fixed-function state only that profile has).
//!
//! On a dark grey background:
//!
//! * a triangle filled through a 32x32 polygon stipple of 4x4-pixel checks (bottom
//!   left);
//! * three horizontal 1-pixel lines stippled with `glLineStipple(1, 0x0F0F)`,
//!   `(2, 0x00FF)` and `(3, 0x3333)` (top left);
//! * a 3-pixel-wide line strip whose stipple counter runs on across its two segments
//!   (top right).

use std::process::ExitCode;

use gtsim_clients::glow::{self, HasContext};
use gtsim_clients::{Attachments, POSITION_ATTRIB, Session, run};

/// GL_LINE_STIPPLE and GL_POLYGON_STIPPLE (compatibility-profile enables glow does not
/// name; Khronos gl.xml).
const LINE_STIPPLE: u32 = 0x0B24;
const POLYGON_STIPPLE: u32 = 0x0B42;

fn main() -> ExitCode {
    run("stipple", Attachments::ColorCompatibility, draw)
}

const VS: &str = "#version 130
in vec3 position;
void main() { gl_Position = vec4(position, 1.0); }
";

const FLAT_FS: &str = "#version 130
uniform vec4 colour;
out vec4 result;
void main() { result = colour; }
";

/// glLineStipple(factor, pattern) and glPolygonStipple(mask).
struct Stipple {
    line: extern "system" fn(i32, u16),
    polygon: extern "system" fn(*const u8),
}

impl Stipple {
    fn load(session: &Session) -> Result<Stipple, String> {
        let get = |name: &str| {
            session
                .proc_address(name)
                .ok_or_else(|| format!("{name} is missing"))
        };
        let (line, polygon) = (get("glLineStipple")?, get("glPolygonStipple")?);
        // SAFETY: eglGetProcAddress returned these entry points of the current
        // compatibility-profile context's driver, whose C signatures are
        // `void glLineStipple(GLint, GLushort)` and `void glPolygonStipple(const GLubyte *)`.
        unsafe {
            Ok(Stipple {
                line: std::mem::transmute::<extern "system" fn(), extern "system" fn(i32, u16)>(
                    line,
                ),
                polygon: std::mem::transmute::<extern "system" fn(), extern "system" fn(*const u8)>(
                    polygon,
                ),
            })
        }
    }
}

/// 32 rows of 4 bytes: 4x4-pixel checks.
fn checks() -> [u8; 128] {
    let mut m = [0u8; 128];
    for (row, bytes) in m.chunks_exact_mut(4).enumerate() {
        let fill = if (row / 4) % 2 == 0 { 0xF0 } else { 0x0F };
        bytes.fill(fill);
    }
    m
}

fn draw(session: &Session) -> Result<(), String> {
    let stipple = Stipple::load(session)?;
    let attrs = [(POSITION_ATTRIB, "position")];
    let flat = session.program(VS, FLAT_FS, &attrs)?;
    #[rustfmt::skip]
    let vertices: Vec<f32> = vec![
        // 0: the stippled triangle
        -0.9, -0.9, 0.0,   -0.1, -0.9, 0.0,   -0.5, -0.1, 0.0,
        // 3: three stippled lines
        -0.9, 0.3, 0.0,   -0.1, 0.3, 0.0,
        -0.9, 0.55, 0.0,  -0.1, 0.55, 0.0,
        -0.9, 0.8, 0.0,   -0.1, 0.8, 0.0,
        // 9: the wide strip
        0.15, 0.2, 0.0,   0.5, 0.85, 0.0,   0.85, 0.3, 0.0,
    ];
    let (vao, _vbo) = session.vertices(&vertices, &[(POSITION_ATTRIB, 3)])?;
    let gl = session.gl();
    let mask = checks();
    // SAFETY: the session keeps its context current on this thread; the programs and
    // vertex array were created through it, and the stipple mask outlives the call that
    // copies it.
    unsafe {
        gl.clear_color(0.2, 0.2, 0.2, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.use_program(Some(flat));
        gl.bind_vertex_array(Some(vao));
        let colour = gl.get_uniform_location(flat, "colour");

        gl.enable(POLYGON_STIPPLE);
        (stipple.polygon)(mask.as_ptr());
        gl.uniform_4_f32(colour.as_ref(), 1.0, 0.5, 0.0, 1.0);
        gl.draw_arrays(glow::TRIANGLES, 0, 3);
        gl.disable(POLYGON_STIPPLE);

        gl.enable(LINE_STIPPLE);
        gl.uniform_4_f32(colour.as_ref(), 0.0, 1.0, 0.5, 1.0);
        for (i, (factor, pattern)) in [(1, 0x0F0F), (2, 0x00FF), (3, 0x3333)]
            .into_iter()
            .enumerate()
        {
            (stipple.line)(factor, pattern);
            gl.draw_arrays(glow::LINES, 3 + 2 * i as i32, 2);
        }
        (stipple.line)(1, 0x1C47);
        gl.line_width(3.0);
        gl.uniform_4_f32(colour.as_ref(), 0.3, 0.6, 1.0, 1.0);
        gl.draw_arrays(glow::LINE_STRIP, 9, 3);
        gl.line_width(1.0);
        gl.disable(LINE_STIPPLE);
    }
    session.check_error("stipple")
}
