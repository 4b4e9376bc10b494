//! OpenGL test clients for gtsim.
//!
//! Each binary in `src/bin/` renders one small, fixed, deterministic scene
//! with OpenGL through EGL on Mesa's *surfaceless* platform (no window, no
//! X11, no Wayland), reads the framebuffer back and writes it as a PNG.
//!
//! The same binaries serve two purposes:
//!
//! * run on plain Mesa with `LIBGL_ALWAYS_SOFTWARE=1` they render on
//!   llvmpipe and produce the *reference images*;
//! * run on Mesa's Intel `crocus` driver on top of the emulated Gen7 GPU
//!   they exercise the gtsim functional model, and their output is compared
//!   with the references.
//!
//! They therefore only use what OpenGL 3.0 / GLSL 1.30 offers, always render
//! into an off-screen framebuffer object of fixed size (64x64 by default)
//! and read it back with `glReadPixels` as RGBA8.
//!
//! This library holds the shared part: argument parsing ([`Options`]), EGL
//! and GL setup plus the framebuffer object ([`Session`]), small helpers to
//! build shader programs and vertex arrays, and the read-back to PNG. A
//! client is just a scene function handed to [`run`].
//!
//! Nothing is linked at build time: `libEGL.so.1` is opened at run time and
//! every GL function is looked up with `eglGetProcAddress`.

use std::ffi::{CStr, c_void};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub use glow;

pub mod clipped;
pub mod vk;
use glow::HasContext;
use khronos_egl as egl;

/// Default width and height of the rendered image, in pixels.
pub const DEFAULT_SIZE: u32 = 64;

/// The vertex shader of [`Session::draw_fullscreen`]: positions in clip space.
pub const FULLSCREEN_VERTEX_SHADER: &str = "#version 330
layout(location = 0) in vec2 position;
void main() { gl_Position = vec4(position, 0.0, 1.0); }
";

/// Largest accepted `--size`.
pub const MAX_SIZE: u32 = 4096;

/// `EGL_PLATFORM_SURFACELESS_MESA` from `EGL_MESA_platform_surfaceless`.
const PLATFORM_SURFACELESS_MESA: egl::Enum = 0x31DD;

/// The EGL entry points we need (1.4 is enough: everything newer is looked up
/// as an extension).
type Egl = egl::DynamicInstance<egl::EGL1_4>;

/// Signature of `eglGetPlatformDisplayEXT` (`EGL_EXT_platform_base`).
type GetPlatformDisplayExt = unsafe extern "system" fn(
    platform: egl::Enum,
    native_display: *mut c_void,
    attrib_list: *const egl::Int,
) -> egl::EGLDisplay;

/// Attribute location of `position` in [`COLOR_VERTEX_SHADER`].
pub const POSITION_ATTRIB: u32 = 0;
/// Attribute location of `color` in [`COLOR_VERTEX_SHADER`].
pub const COLOR_ATTRIB: u32 = 1;

/// The `triangle` scene (also drawn by `queries`): x, y, z, r, g, b, a per vertex; red
/// bottom left, green bottom right, blue at the top centre.
#[rustfmt::skip]
pub const TRIANGLE_VERTICES: [f32; 21] = [
    -0.8, -0.8, 0.0,  1.0, 0.0, 0.0, 1.0,
     0.8, -0.8, 0.0,  0.0, 1.0, 0.0, 1.0,
     0.0,  0.8, 0.0,  0.0, 0.0, 1.0, 1.0,
];

/// GLSL 1.30 vertex shader shared by the flat-geometry clients: passes a
/// `vec3 position` (already in clip space, w = 1) and a `vec4 color` through.
pub const COLOR_VERTEX_SHADER: &str = "#version 130
in vec3 position;
in vec4 color;
out vec4 v_color;
void main() {
    v_color = color;
    gl_Position = vec4(position, 1.0);
}
";

/// GLSL 1.30 fragment shader matching [`COLOR_VERTEX_SHADER`]: outputs the
/// interpolated vertex colour.
pub const COLOR_FRAGMENT_SHADER: &str = "#version 130
in vec4 v_color;
out vec4 frag_color;
void main() {
    frag_color = v_color;
}
";

/// Command-line options shared by all clients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Where to write the PNG (`--out`, default `<name>.png`).
    pub out: PathBuf,
    /// Width and height of the framebuffer in pixels (`--size N` or `--size WxH`,
    /// default 64x64).
    pub size: [u32; 2],
}

/// Why [`Options::parse`] did not produce options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    /// `--help` / `-h` was given.
    Help,
    /// The arguments were wrong; the message says how.
    Invalid(String),
}

impl Options {
    /// Parses the arguments (without the program name) of client `name`.
    ///
    /// Accepts `--out FILE`, `--out=FILE`, `--size N`, `--size WxH` (also with `=`)
    /// and `--help`.
    pub fn parse<I>(name: &str, args: I) -> Result<Options, ArgError>
    where
        I: IntoIterator<Item = String>,
    {
        let mut out = PathBuf::from(format!("{name}.png"));
        let mut size = [DEFAULT_SIZE; 2];
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (key, inline) = match arg.split_once('=') {
                Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
                _ => (arg.clone(), None),
            };
            let mut value = |key: &str| {
                inline
                    .clone()
                    .or_else(|| args.next())
                    .ok_or_else(|| ArgError::Invalid(format!("{key} needs a value")))
            };
            match key.as_str() {
                "-h" | "--help" => return Err(ArgError::Help),
                "--out" | "-o" => out = PathBuf::from(value("--out")?),
                "--size" => {
                    let v = value("--size")?;
                    size = parse_size(&v).ok_or_else(|| {
                        ArgError::Invalid(format!(
                            "--size must be N or WxH with integers in 1..={MAX_SIZE}, got {v:?}"
                        ))
                    })?;
                }
                other => return Err(ArgError::Invalid(format!("unknown argument {other:?}"))),
            }
        }
        Ok(Options { out, size })
    }

    /// The usage text of client `name`.
    pub fn usage(name: &str) -> String {
        format!(
            "usage: {name} [--out FILE.png] [--size N|WxH]\n\
             \n\
             Renders the {name:?} scene with OpenGL on EGL's surfaceless platform\n\
             into an off-screen framebuffer and writes it as an RGBA PNG.\n\
             \n\
             \x20 --out FILE   output file (default: {name}.png in the current directory)\n\
             \x20 --size N     framebuffer width and height in pixels (default: {DEFAULT_SIZE})\n\
             \x20 --size WxH   framebuffer width W and height H in pixels\n"
        )
    }
}

/// Which buffers the off-screen framebuffer has besides the RGBA8 colour one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attachments {
    /// Only an RGBA8 colour renderbuffer.
    Color,
    /// An RGBA8 colour renderbuffer and a 24-bit depth renderbuffer.
    ColorDepth,
    /// Only an RGBA8 colour renderbuffer, in a compatibility-profile context: for the
    /// state only that profile has (line and polygon stipple, wide lines).
    ColorCompatibility,
}

/// An initialised EGL display with a current GL 3.0+ context and a bound
/// off-screen framebuffer object.
///
/// While a `Session` exists its context is current on the thread that made
/// it (the type is neither `Send` nor `Sync`), which is what makes the GL
/// calls of the clients sound. Dropping it deletes the GL objects, releases
/// the context and terminates the display.
pub struct Session {
    gl: glow::Context,
    egl: Egl,
    display: egl::Display,
    context: egl::Context,
    fbo: Option<glow::Framebuffer>,
    renderbuffers: Vec<glow::Renderbuffer>,
    size: [u32; 2],
    /// Raw-pointer marker: keeps the type `!Send` and `!Sync`.
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Session {
    /// Sets up EGL (surfaceless platform), a GL 3.0+ context and a
    /// `size[0]`x`size[1]` framebuffer object, and leaves the FBO bound with the
    /// viewport covering it.
    ///
    /// The fallback path (`eglGetDisplay`) relies on `EGL_PLATFORM` being
    /// `surfaceless`, which [`run`] sets before calling this.
    pub fn new(size: [u32; 2], attachments: Attachments) -> Result<Session, String> {
        if !size.iter().all(|n| (1..=MAX_SIZE).contains(n)) {
            return Err(format!(
                "framebuffer size {}x{} out of range",
                size[0], size[1]
            ));
        }
        // SAFETY: libEGL.so.1 is the system's EGL library (Mesa or glvnd);
        // it follows the EGL ABI that khronos-egl declares.
        let egl =
            unsafe { Egl::load_required() }.map_err(|e| format!("cannot load libEGL.so.1: {e}"))?;

        let display = surfaceless_display(&egl)?;
        let (major, minor) = egl
            .initialize(display)
            .map_err(|e| format!("eglInitialize failed: {e}"))?;
        eprintln!(
            "EGL {major}.{minor}, vendor {}",
            egl_string(&egl, display, egl::VENDOR)
        );

        let extensions = egl_string(&egl, display, egl::EXTENSIONS);
        let has_ext = |name: &str| extensions.split_ascii_whitespace().any(|e| e == name);
        if !has_ext("EGL_KHR_surfaceless_context") {
            return Err("the EGL display lacks EGL_KHR_surfaceless_context".into());
        }
        egl.bind_api(egl::OPENGL_API)
            .map_err(|e| format!("eglBindAPI(EGL_OPENGL_API) failed: {e}"))?;
        let config = choose_config(&egl, display, has_ext("EGL_KHR_no_config_context"))?;
        let compatibility = attachments == Attachments::ColorCompatibility;
        let context = create_context(&egl, display, config, compatibility)?;
        if let Err(e) = egl.make_current(display, None, None, Some(context)) {
            let _ = egl.destroy_context(display, context);
            return Err(format!("eglMakeCurrent(EGL_NO_SURFACE) failed: {e}"));
        }

        // SAFETY: the context is current on this thread, and every pointer
        // eglGetProcAddress returns is a GL entry point of that driver.
        let gl = unsafe {
            glow::Context::from_loader_function_cstr(|name: &CStr| {
                name.to_str()
                    .ok()
                    .and_then(|n| egl.get_proc_address(n))
                    .map_or(std::ptr::null(), |f| f as *const c_void)
            })
        };

        // From here on the Drop impl tears everything down on error.
        let mut session = Session {
            gl,
            egl,
            display,
            context,
            fbo: None,
            renderbuffers: Vec::new(),
            size,
            _not_send: std::marker::PhantomData,
        };
        session.report_and_check_version()?;
        session.create_framebuffer(attachments)?;
        Ok(session)
    }

    fn report_and_check_version(&self) -> Result<(), String> {
        let gl = &self.gl;
        // SAFETY: the session's context is current on this thread.
        let (renderer, version, glsl) = unsafe {
            (
                gl.get_parameter_string(glow::RENDERER),
                gl.get_parameter_string(glow::VERSION),
                gl.get_parameter_string(glow::SHADING_LANGUAGE_VERSION),
            )
        };
        eprintln!("GL_RENDERER: {renderer}");
        eprintln!("GL_VERSION: {version}");
        eprintln!("GL_SHADING_LANGUAGE_VERSION: {glsl}");
        let v = gl.version();
        if v.is_embedded || v.major < 3 {
            return Err(format!("need desktop OpenGL 3.0 or newer, got {version:?}"));
        }
        Ok(())
    }

    fn create_framebuffer(&mut self, attachments: Attachments) -> Result<(), String> {
        let [w, h] = self.size.map(|n| n as i32);
        let gl = &self.gl;
        // SAFETY: the session's context is current on this thread; all
        // objects used are created right here.
        unsafe {
            let fbo = gl.create_framebuffer()?;
            self.fbo = Some(fbo);
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));

            let color = gl.create_renderbuffer()?;
            self.renderbuffers.push(color);
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(color));
            gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, w, h);
            gl.framebuffer_renderbuffer(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::RENDERBUFFER,
                Some(color),
            );

            if attachments == Attachments::ColorDepth {
                let depth = gl.create_renderbuffer()?;
                self.renderbuffers.push(depth);
                gl.bind_renderbuffer(glow::RENDERBUFFER, Some(depth));
                gl.renderbuffer_storage(glow::RENDERBUFFER, glow::DEPTH_COMPONENT24, w, h);
                gl.framebuffer_renderbuffer(
                    glow::FRAMEBUFFER,
                    glow::DEPTH_ATTACHMENT,
                    glow::RENDERBUFFER,
                    Some(depth),
                );
            }
            gl.bind_renderbuffer(glow::RENDERBUFFER, None);

            let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
            if status != glow::FRAMEBUFFER_COMPLETE {
                return Err(format!("framebuffer incomplete: status 0x{status:04x}"));
            }
            gl.draw_buffer(glow::COLOR_ATTACHMENT0);
            gl.viewport(0, 0, w, h);
        }
        self.check_error("framebuffer setup")
    }

    /// The GL function table. Calling it is `unsafe` (glow's rule); it is
    /// sound while this session lives, on this thread, with objects created
    /// through it.
    pub fn gl(&self) -> &glow::Context {
        &self.gl
    }

    /// The entry point `name` from `eglGetProcAddress`, for the few GL functions glow
    /// does not wrap (`glDrawTransformFeedback`). The caller casts it to the
    /// function's real signature.
    pub fn proc_address(&self, name: &str) -> Option<extern "system" fn()> {
        self.egl.get_proc_address(name)
    }

    /// Width and height of the framebuffer in pixels.
    pub fn size(&self) -> [u32; 2] {
        self.size
    }

    /// Returns `Err` naming `what` and the GL error code if `glGetError`
    /// reports one.
    pub fn check_error(&self, what: &str) -> Result<(), String> {
        // SAFETY: the session's context is current on this thread.
        let err = unsafe { self.gl.get_error() };
        if err == glow::NO_ERROR {
            Ok(())
        } else {
            Err(format!(
                "GL error 0x{err:04x} ({}) after {what}",
                gl_error_name(err)
            ))
        }
    }

    /// Compiles a vertex and a fragment shader and links them into a
    /// program.
    ///
    /// `attributes` binds vertex attribute names to locations (GLSL 1.30 has
    /// no `layout(location)`); the fragment output `frag_color`, if declared,
    /// is bound to draw buffer 0. Compile and link logs are printed on
    /// failure.
    pub fn program(
        &self,
        vertex_src: &str,
        fragment_src: &str,
        attributes: &[(u32, &str)],
    ) -> Result<glow::Program, String> {
        self.program_stages(
            &[
                (glow::VERTEX_SHADER, "vertex", vertex_src),
                (glow::FRAGMENT_SHADER, "fragment", fragment_src),
            ],
            attributes,
        )
    }

    /// Compiles shaders of any stages (`(GL shader type, name for messages,
    /// source)`) and links them into a program, as [`Session::program`] does.
    pub fn program_stages(
        &self,
        stages: &[(u32, &str, &str)],
        attributes: &[(u32, &str)],
    ) -> Result<glow::Program, String> {
        self.link(stages, attributes, None)
    }

    /// [`Session::program_stages`] with transform feedback of `varyings`, in
    /// `buffer_mode` (`GL_INTERLEAVED_ATTRIBS` or `GL_SEPARATE_ATTRIBS`).
    pub fn program_with_feedback(
        &self,
        stages: &[(u32, &str, &str)],
        attributes: &[(u32, &str)],
        varyings: &[&str],
        buffer_mode: u32,
    ) -> Result<glow::Program, String> {
        self.link(stages, attributes, Some((varyings, buffer_mode)))
    }

    fn link(
        &self,
        stages: &[(u32, &str, &str)],
        attributes: &[(u32, &str)],
        feedback: Option<(&[&str], u32)>,
    ) -> Result<glow::Program, String> {
        let gl = &self.gl;
        // SAFETY: the session's context is current on this thread; the
        // shader and program objects are created and used right here.
        unsafe {
            let mut shaders = Vec::with_capacity(stages.len());
            for &(kind, what, source) in stages {
                match compile_shader(gl, kind, what, source) {
                    Ok(s) => shaders.push(s),
                    Err(e) => {
                        for s in shaders {
                            gl.delete_shader(s);
                        }
                        return Err(e);
                    }
                }
            }
            let program = gl.create_program()?;
            for &s in &shaders {
                gl.attach_shader(program, s);
            }
            for &(index, name) in attributes {
                gl.bind_attrib_location(program, index, name);
            }
            gl.bind_frag_data_location(program, 0, "frag_color");
            if let Some((varyings, mode)) = feedback {
                gl.transform_feedback_varyings(program, varyings, mode);
            }
            gl.link_program(program);
            let ok = gl.get_program_link_status(program);
            let log = gl.get_program_info_log(program);
            for s in shaders {
                gl.detach_shader(program, s);
                gl.delete_shader(s);
            }
            if !ok {
                gl.delete_program(program);
                return Err(format!("program link failed:\n{}", log.trim_end()));
            }
            if !log.trim().is_empty() {
                eprintln!("program link log:\n{}", log.trim_end());
            }
            self.check_error("program creation")?;
            Ok(program)
        }
    }

    /// Builds the program of [`COLOR_VERTEX_SHADER`] and
    /// [`COLOR_FRAGMENT_SHADER`] with their attribute locations bound.
    pub fn color_program(&self) -> Result<glow::Program, String> {
        self.program(
            COLOR_VERTEX_SHADER,
            COLOR_FRAGMENT_SHADER,
            &[(POSITION_ATTRIB, "position"), (COLOR_ATTRIB, "color")],
        )
    }

    /// Uploads interleaved `f32` vertex data into a new buffer and records
    /// its layout in a new vertex array object, which is left bound.
    ///
    /// `layout` lists `(attribute location, component count)` in the order
    /// the components appear in each vertex.
    pub fn vertices(
        &self,
        data: &[f32],
        layout: &[(u32, i32)],
    ) -> Result<(glow::VertexArray, glow::Buffer), String> {
        let floats_per_vertex: i32 = layout.iter().map(|&(_, n)| n).sum();
        if floats_per_vertex == 0 || !data.len().is_multiple_of(floats_per_vertex as usize) {
            return Err(format!(
                "vertex data of {} floats does not fit a layout of {floats_per_vertex} floats per vertex",
                data.len()
            ));
        }
        let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_ne_bytes()).collect();
        let stride = floats_per_vertex * 4;
        let gl = &self.gl;
        // SAFETY: the session's context is current on this thread; the
        // buffer upload copies `bytes`, which outlives the call.
        unsafe {
            let vao = gl.create_vertex_array()?;
            gl.bind_vertex_array(Some(vao));
            let vbo = gl.create_buffer()?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &bytes, glow::STATIC_DRAW);
            let mut offset = 0;
            for &(index, components) in layout {
                gl.enable_vertex_attrib_array(index);
                gl.vertex_attrib_pointer_f32(index, components, glow::FLOAT, false, stride, offset);
                offset += components * 4;
            }
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
            self.check_error("vertex upload")?;
            Ok((vao, vbo))
        }
    }

    /// Compiles and links a compute shader (`GL_ARB_compute_shader`) into a program.
    pub fn compute_program(&self, source: &str) -> Result<glow::Program, String> {
        self.program_stages(&[(glow::COMPUTE_SHADER, "compute", source)], &[])
    }

    /// A shader storage buffer of `dwords` zeroed dwords bound to binding `index`.
    pub fn storage_buffer(&self, index: u32, dwords: usize) -> Result<glow::Buffer, String> {
        let gl = &self.gl;
        // SAFETY: the session's context is current on this thread; the upload copies
        // the zeroed bytes, which outlive the call.
        unsafe {
            let b = gl.create_buffer()?;
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(b));
            gl.buffer_data_u8_slice(
                glow::SHADER_STORAGE_BUFFER,
                &vec![0u8; 4 * dwords],
                glow::DYNAMIC_COPY,
            );
            gl.bind_buffer_base(glow::SHADER_STORAGE_BUFFER, index, Some(b));
            self.check_error("storage buffer")?;
            Ok(b)
        }
    }

    /// Reads the first `len` bytes of shader storage buffer `buffer` back (after a
    /// buffer-update barrier) and prints their FNV-1a digest and first four words, so
    /// that what a compute dispatch wrote compares between drivers without a draw.
    pub fn print_digest(&self, what: &str, buffer: glow::Buffer, len: usize) -> Result<(), String> {
        let gl = &self.gl;
        let mut bytes = vec![0u8; len];
        // SAFETY: the session's context is current on this thread; the read copies into
        // `bytes`, which holds `len` bytes (the caller's buffer holds at least as many).
        unsafe {
            gl.memory_barrier(glow::BUFFER_UPDATE_BARRIER_BIT);
            gl.bind_buffer(glow::SHADER_STORAGE_BUFFER, Some(buffer));
            gl.get_buffer_sub_data(glow::SHADER_STORAGE_BUFFER, 0, &mut bytes);
        }
        self.check_error("read back")?;
        print_bytes_digest(what, &bytes);
        Ok(())
    }

    /// Reads level 0 of 2D texture `texture` back (`len` bytes as `format`/`ty`, after a
    /// texture-update barrier) and prints its digest as [`Session::print_digest`] does.
    pub fn print_texture_digest(
        &self,
        what: &str,
        texture: glow::Texture,
        (format, ty): (u32, u32),
        len: usize,
    ) -> Result<(), String> {
        let gl = &self.gl;
        let mut bytes = vec![0u8; len];
        // SAFETY: the session's context is current on this thread; the read copies into
        // `bytes`, which holds the `len` bytes the caller's level has as `format`/`ty`.
        unsafe {
            gl.memory_barrier(glow::TEXTURE_UPDATE_BARRIER_BIT);
            gl.bind_texture(glow::TEXTURE_2D, Some(texture));
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            gl.get_tex_image(
                glow::TEXTURE_2D,
                0,
                format,
                ty,
                glow::PixelPackData::Slice(Some(&mut bytes)),
            );
        }
        self.check_error("texture read back")?;
        print_bytes_digest(what, &bytes);
        Ok(())
    }

    /// Draws two triangles covering the viewport with a program of
    /// [`FULLSCREEN_VERTEX_SHADER`] and `fragment_src` (GLSL 4.20 with whatever
    /// extensions it enables); `setup` runs with the program bound, before the draw.
    pub fn draw_fullscreen(
        &self,
        fragment_src: &str,
        setup: &dyn Fn(&glow::Context, glow::Program),
    ) -> Result<(), String> {
        let program = self.program(
            FULLSCREEN_VERTEX_SHADER,
            fragment_src,
            &[(POSITION_ATTRIB, "position")],
        )?;
        let quad = [
            -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0f32,
        ];
        let (vao, _vbo) = self.vertices(&quad, &[(POSITION_ATTRIB, 2)])?;
        let gl = &self.gl;
        // SAFETY: the session's context is current on this thread; the program and
        // vertex array were created through it.
        unsafe {
            gl.use_program(Some(program));
            setup(gl, program);
            gl.bind_vertex_array(Some(vao));
            gl.draw_arrays(glow::TRIANGLES, 0, 6);
        }
        self.check_error("full-screen draw")
    }

    /// The session's own framebuffer object (what [`Session::read_rgba`] reads).
    pub fn framebuffer(&self) -> Option<glow::Framebuffer> {
        self.fbo
    }

    /// Reads the colour attachment back as RGBA8, rows from top to bottom
    /// (GL's bottom-up rows flipped so the image is upright).
    pub fn read_rgba(&self) -> Result<Vec<u8>, String> {
        let [w, h] = self.size.map(|n| n as usize);
        let row = w * 4;
        let mut pixels = vec![0u8; row * h];
        let gl = &self.gl;
        // SAFETY: the session's context is current on this thread; the
        // destination slice holds exactly width*height RGBA8 pixels with pack
        // alignment 1.
        unsafe {
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, self.fbo);
            gl.read_buffer(glow::COLOR_ATTACHMENT0);
            gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            gl.read_pixels(
                0,
                0,
                w as i32,
                h as i32,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut pixels)),
            );
        }
        self.check_error("glReadPixels")?;
        let mut upright = Vec::with_capacity(pixels.len());
        for r in pixels.chunks_exact(row).rev() {
            upright.extend_from_slice(r);
        }
        Ok(upright)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let gl = &self.gl;
        // SAFETY: the context is still current on this thread; the objects
        // deleted were created by this session.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            if let Some(fbo) = self.fbo {
                gl.delete_framebuffer(fbo);
            }
            for &rb in &self.renderbuffers {
                gl.delete_renderbuffer(rb);
            }
        }
        let _ = self.egl.make_current(self.display, None, None, None);
        let _ = self.egl.destroy_context(self.display, self.context);
        let _ = self.egl.terminate(self.display);
    }
}

/// Returns an EGL string of `display`, or an empty string.
fn egl_string(egl: &Egl, display: egl::Display, name: egl::Int) -> String {
    egl.query_string(Some(display), name)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Gets the surfaceless display: `eglGetPlatformDisplayEXT` when the client
/// extensions allow it, else `eglGetDisplay(EGL_DEFAULT_DISPLAY)` (which Mesa
/// routes to the platform named by `EGL_PLATFORM`).
fn surfaceless_display(egl: &Egl) -> Result<egl::Display, String> {
    let client_ext = egl
        .query_string(None, egl::EXTENSIONS)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let has = |name: &str| client_ext.split_ascii_whitespace().any(|e| e == name);
    if has("EGL_MESA_platform_surfaceless") && has("EGL_EXT_platform_base") {
        if let Some(f) = egl.get_proc_address("eglGetPlatformDisplayEXT") {
            // SAFETY: eglGetProcAddress returned the entry point for
            // eglGetPlatformDisplayEXT, whose C signature is
            // GetPlatformDisplayExt.
            let get_platform_display =
                unsafe { std::mem::transmute::<extern "system" fn(), GetPlatformDisplayExt>(f) };
            // SAFETY: the surfaceless platform takes EGL_DEFAULT_DISPLAY
            // (null) as native display; a null attribute list is allowed.
            let raw = unsafe {
                get_platform_display(
                    PLATFORM_SURFACELESS_MESA,
                    egl::DEFAULT_DISPLAY,
                    std::ptr::null(),
                )
            };
            if !raw.is_null() {
                eprintln!("EGL display: eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA)");
                // SAFETY: `raw` is a non-null EGLDisplay just returned by EGL.
                return Ok(unsafe { egl::Display::from_ptr(raw) });
            }
            eprintln!(
                "eglGetPlatformDisplayEXT(surfaceless) failed ({:?}); trying eglGetDisplay",
                egl.get_error()
            );
        }
    } else {
        eprintln!("EGL_MESA_platform_surfaceless not advertised; trying eglGetDisplay");
    }
    let platform = std::env::var("EGL_PLATFORM").unwrap_or_default();
    if platform != "surfaceless" {
        eprintln!("warning: EGL_PLATFORM is {platform:?}, not \"surfaceless\"");
    }
    // SAFETY: EGL_DEFAULT_DISPLAY is always a valid argument.
    unsafe { egl.get_display(egl::DEFAULT_DISPLAY) }
        .inspect(|_| eprintln!("EGL display: eglGetDisplay(EGL_DEFAULT_DISPLAY)"))
        .ok_or_else(|| "no EGL display (eglGetDisplay returned EGL_NO_DISPLAY)".to_string())
}

/// Picks an RGBA8 OpenGL config usable for pbuffers, then any OpenGL config,
/// then `EGL_NO_CONFIG_KHR` if allowed. We never create a surface, so the
/// config only matters for context creation.
fn choose_config(egl: &Egl, display: egl::Display, no_config: bool) -> Result<egl::Config, String> {
    let attempts: [&[egl::Int]; 2] = [
        &[
            egl::SURFACE_TYPE,
            egl::PBUFFER_BIT,
            egl::RENDERABLE_TYPE,
            egl::OPENGL_BIT,
            egl::RED_SIZE,
            8,
            egl::GREEN_SIZE,
            8,
            egl::BLUE_SIZE,
            8,
            egl::ALPHA_SIZE,
            8,
            egl::NONE,
        ],
        &[
            egl::SURFACE_TYPE,
            0,
            egl::RENDERABLE_TYPE,
            egl::OPENGL_BIT,
            egl::NONE,
        ],
    ];
    for attribs in attempts {
        if let Ok(Some(config)) = egl.choose_first_config(display, attribs) {
            return Ok(config);
        }
    }
    if no_config {
        eprintln!("no matching EGL config; using EGL_NO_CONFIG_KHR");
        // SAFETY: EGL_NO_CONFIG_KHR is the null config, valid for
        // eglCreateContext under EGL_KHR_no_config_context.
        return Ok(unsafe { egl::Config::from_ptr(std::ptr::null_mut()) });
    }
    Err("no EGL config with EGL_RENDERABLE_TYPE = EGL_OPENGL_BIT".into())
}

/// Creates a GL context: core 3.2, else compatibility 3.0, else whatever the
/// driver gives (its version is checked after making it current); with
/// `compatibility`, compatibility 3.0 first.
fn create_context(
    egl: &Egl,
    display: egl::Display,
    config: egl::Config,
    compatibility: bool,
) -> Result<egl::Context, String> {
    let mut attempts: [(&str, &[egl::Int]); 3] = [
        (
            "core 3.2",
            &[
                egl::CONTEXT_MAJOR_VERSION,
                3,
                egl::CONTEXT_MINOR_VERSION,
                2,
                egl::CONTEXT_OPENGL_PROFILE_MASK,
                egl::CONTEXT_OPENGL_CORE_PROFILE_BIT,
                egl::NONE,
            ],
        ),
        (
            "compatibility 3.0",
            &[
                egl::CONTEXT_MAJOR_VERSION,
                3,
                egl::CONTEXT_MINOR_VERSION,
                0,
                egl::NONE,
            ],
        ),
        ("default", &[egl::NONE]),
    ];
    if compatibility {
        attempts.swap(0, 1);
    }
    let mut failures = Vec::new();
    for (what, attribs) in attempts {
        match egl.create_context(display, config, None, attribs) {
            Ok(context) => {
                eprintln!("EGL context: OpenGL {what}");
                return Ok(context);
            }
            Err(e) => failures.push(format!("{what}: {e}")),
        }
    }
    Err(format!("eglCreateContext failed ({})", failures.join("; ")))
}

/// Compiles one shader; on failure returns an error holding its info log.
///
/// # Safety
///
/// A GL context must be current on this thread and `gl` must be its function
/// table.
unsafe fn compile_shader(
    gl: &glow::Context,
    kind: u32,
    what: &str,
    source: &str,
) -> Result<glow::Shader, String> {
    // SAFETY: the caller guarantees a current context matching `gl`.
    unsafe {
        let shader = gl.create_shader(kind)?;
        gl.shader_source(shader, source);
        gl.compile_shader(shader);
        let log = gl.get_shader_info_log(shader);
        if !gl.get_shader_compile_status(shader) {
            gl.delete_shader(shader);
            return Err(format!(
                "{what} shader compilation failed:\n{}",
                log.trim_end()
            ));
        }
        if !log.trim().is_empty() {
            eprintln!("{what} shader compile log:\n{}", log.trim_end());
        }
        Ok(shader)
    }
}

fn gl_error_name(err: u32) -> &'static str {
    match err {
        glow::INVALID_ENUM => "GL_INVALID_ENUM",
        glow::INVALID_VALUE => "GL_INVALID_VALUE",
        glow::INVALID_OPERATION => "GL_INVALID_OPERATION",
        glow::INVALID_FRAMEBUFFER_OPERATION => "GL_INVALID_FRAMEBUFFER_OPERATION",
        glow::OUT_OF_MEMORY => "GL_OUT_OF_MEMORY",
        _ => "unknown",
    }
}

/// Writes `rgba` (rows top to bottom, `width*height*4` bytes) as an 8-bit
/// RGBA PNG.
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), String> {
    let expected = width as usize * height as usize * 4;
    if rgba.len() != expected {
        return Err(format!(
            "image has {} bytes, expected {expected}",
            rgba.len()
        ));
    }
    let file = File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let fail = |e: png::EncodingError| format!("cannot write {}: {e}", path.display());
    let mut writer = encoder.write_header().map_err(fail)?;
    writer.write_image_data(rgba).map_err(fail)?;
    writer.finish().map_err(fail)
}

/// Runs client `name`: parses the command line, sets up a [`Session`] with
/// the given attachments, calls `scene` to draw, reads the framebuffer back
/// and writes the PNG.
///
/// Returns exit code 0 on success, 1 (with a message on stderr) if EGL/GL
/// setup, drawing or writing fails, and 2 on bad arguments.
pub fn run(
    name: &str,
    attachments: Attachments,
    scene: fn(&Session) -> Result<(), String>,
) -> ExitCode {
    let options = match Options::parse(name, std::env::args().skip(1)) {
        Ok(o) => o,
        Err(ArgError::Help) => {
            print!("{}", Options::usage(name));
            return ExitCode::SUCCESS;
        }
        Err(ArgError::Invalid(msg)) => {
            eprintln!("{name}: {msg}\n\n{}", Options::usage(name));
            return ExitCode::from(2);
        }
    };
    if std::env::var_os("EGL_PLATFORM").is_none() {
        // SAFETY: this runs at the start of the program, before libEGL is
        // loaded and before any thread exists, so nothing reads or writes
        // the environment concurrently.
        unsafe { std::env::set_var("EGL_PLATFORM", "surfaceless") };
    }
    match render(name, &options, attachments, scene) {
        Ok(()) => {
            eprintln!("{name}: wrote {}", options.out.display());
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("{name}: error: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// `N` (a square) or `WxH`, each in 1..=[`MAX_SIZE`].
fn parse_size(v: &str) -> Option<[u32; 2]> {
    let one = |s: &str| s.parse::<u32>().ok().filter(|n| (1..=MAX_SIZE).contains(n));
    match v.split_once('x') {
        Some((w, h)) => Some([one(w)?, one(h)?]),
        None => one(v).map(|n| [n, n]),
    }
}

fn render(
    name: &str,
    options: &Options,
    attachments: Attachments,
    scene: fn(&Session) -> Result<(), String>,
) -> Result<(), String> {
    let session = Session::new(options.size, attachments)?;
    scene(&session)?;
    session.check_error(&format!("drawing the {name} scene"))?;
    let rgba = session.read_rgba()?;
    drop(session);
    write_png(&options.out, options.size[0], options.size[1], &rgba)
}

/// Prints `bytes`' FNV-1a digest and first four words: `what: N bytes, fnv1a D, first ...`.
pub fn print_bytes_digest(what: &str, bytes: &[u8]) {
    let digest = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    let first: Vec<String> = bytes
        .chunks_exact(4)
        .take(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]).to_string())
        .collect();
    println!(
        "{what}: {} bytes, fnv1a {digest:#018x}, first {}",
        bytes.len(),
        first.join(" ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options, ArgError> {
        Options::parse("scene", args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn defaults() {
        assert_eq!(
            parse(&[]),
            Ok(Options {
                out: PathBuf::from("scene.png"),
                size: [DEFAULT_SIZE; 2]
            })
        );
    }

    #[test]
    fn out_and_size() {
        let want = Options {
            out: PathBuf::from("/tmp/x.png"),
            size: [32, 32],
        };
        assert_eq!(
            parse(&["--out", "/tmp/x.png", "--size", "32"]),
            Ok(want.clone())
        );
        assert_eq!(parse(&["--size=32", "--out=/tmp/x.png"]), Ok(want));
    }

    #[test]
    fn width_by_height() {
        assert_eq!(
            parse(&["--size", "320x240"]).map(|o| o.size),
            Ok([320, 240])
        );
        assert_eq!(parse(&["--size=7x5"]).map(|o| o.size), Ok([7, 5]));
    }

    #[test]
    fn bad_arguments() {
        assert_eq!(parse(&["--help"]), Err(ArgError::Help));
        // Each refusal names the argument and, for a bad size, the value it got.
        let invalid = |args: &[&str]| match parse(args) {
            Err(ArgError::Invalid(why)) => why,
            other => panic!("{args:?}: {other:?}"),
        };
        for size in ["0", "x", "3x", "0x4", "4x4x4"] {
            let why = invalid(&["--size", size]);
            assert!(
                why.starts_with("--size must be N or WxH")
                    && why.ends_with(&format!("got {size:?}")),
                "{why}"
            );
        }
        assert_eq!(invalid(&["--out"]), "--out needs a value");
        assert_eq!(invalid(&["--bogus"]), "unknown argument \"--bogus\"");
    }
}
