//! `gtsim`: the command line of gtsim, a functional model of Intel Gen graphics.
//!
//! ```text
//! gtsim decode [FILE]   decode a raw batch or an AUB trace (the embedded sample if no FILE)
//! gtsim disasm FILE    disassemble EU machine code (native and compacted mixed)
//! gtsim asm FILE.asm -o OUT   assemble Mesa's dump syntax
//! gtsim inspect [FILE.aub] -o DIR [--serve [ADDR]]
//!                       a capture replayed into a browsable report, draw by draw
//! gtsim run [--capture FILE.aub] [--] APP [ARGS...]
//!                       run a program on Mesa's crocus driver with the GPU emulated
//! ```

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use gtsim_gpu::aub;
use gtsim_gpu::decode::{Decoder, Item, RenderOptions, render};
use gtsim_mem::AddressSpace;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "gtsim",
    version,
    about = "A functional model of Intel Gen graphics (Ivy Bridge first)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Only warnings and errors in the log (the model's and, under `gtsim run`, the i915
    /// emulation's); `GTSIM_LOG` (a tracing filter such as `info,gtsim_eu::jit=info`)
    /// takes precedence.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Debugging detail in the log.
    #[arg(short, long, global = true)]
    verbose: bool,
}

/// The log's filter: `GTSIM_LOG` if set, else by `-q` / `-v` (warn, info, debug).
fn log_filter(quiet: bool, verbose: bool) -> String {
    std::env::var("GTSIM_LOG").unwrap_or_else(|_| {
        match (quiet, verbose) {
            (true, _) => "warn",
            (_, true) => "debug",
            _ => "info",
        }
        .to_string()
    })
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// An AUB trace if the file starts with an AUB header, else raw dwords.
    Auto,
    /// Little-endian dwords of one batch buffer.
    Raw,
    /// An AUB trace as Mesa's intel_dump_gpu writes it.
    Aub,
}

#[derive(Subcommand)]
#[allow(
    clippy::large_enum_variant,
    reason = "the command line, parsed once per process: `inspect`'s many options cost nothing to keep inline"
)]
enum Command {
    /// Decode a batch buffer or an AUB trace: every command with every field named,
    /// following MI_BATCH_BUFFER_START and the indirect state pointers reach.
    Decode {
        /// The file; without one, the embedded sample submission is decoded.
        file: Option<PathBuf>,
        /// GPU generation.
        #[arg(long, default_value_t = 7)]
        gen_: u32,
        /// Input format.
        #[arg(long, value_enum, default_value_t = Format::Auto)]
        format: Format,
        /// Graphics address of a raw batch's first dword.
        #[arg(long, default_value = "0", value_parser = parse_addr)]
        base: u64,
        /// Show each dword's raw value beside its fields.
        #[arg(long)]
        raw: bool,
        /// Colour the output.
        #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
        color: ColorWhen,
    },
    /// Disassemble EU machine code (a kernel's raw bytes, native and compacted
    /// instructions mixed) in the syntax of Mesa's INTEL_DEBUG shader dumps.
    Disasm {
        /// Raw instruction bytes.
        file: PathBuf,
        /// GPU generation.
        #[arg(long, default_value_t = 7)]
        gen_: u32,
        /// Print each instruction's bytes first, as INTEL_DEBUG=hex does.
        #[arg(long)]
        hex: bool,
    },
    /// Assemble the disassembler's syntax into EU machine code.
    Asm {
        /// The assembly text.
        file: PathBuf,
        /// Output file for the raw bytes.
        #[arg(short, long)]
        output: PathBuf,
        /// GPU generation.
        #[arg(long, default_value_t = 7)]
        gen_: u32,
        /// Never use compacted (64-bit) encodings.
        #[arg(long, conflicts_with = "as_written")]
        no_compact: bool,
        /// Compact exactly the instructions marked `compacted` (default: wherever possible).
        #[arg(long)]
        as_written: bool,
    },
    /// Run one EU kernel on a single thread from the given registers until EOT or the end
    /// of the program; messages go to a null shared function that records them.
    Exec {
        /// The kernel: assembly in the disassembler's syntax, or raw bytes with --bin.
        file: PathBuf,
        /// The file holds machine code.
        #[arg(long)]
        bin: bool,
        /// Dispatch width (channels enabled).
        #[arg(long, default_value_t = 8)]
        simd: u8,
        /// GPU generation of the machine code (7, Ivy Bridge, or 11, Ice Lake).
        #[arg(long = "gen", default_value_t = 7)]
        gen_: u32,
        /// Initial register contents, e.g. `g2:f=1.5,-0,inf,nan` (types ub b uw w ud d f df hf).
        #[arg(long = "set", value_name = "REG:TYPE=v0,v1,...")]
        sets: Vec<String>,
        /// Print a register afterwards, one value per channel, e.g. `g10:f`.
        #[arg(long = "dump", value_name = "REG:TYPE")]
        dumps: Vec<String>,
        /// Run in the ALT floating-point mode instead of IEEE.
        #[arg(long)]
        alt: bool,
        /// Instructions before the thread is reported as runaway.
        #[arg(long, default_value_t = gtsim_eu::exec::DEFAULT_BUDGET)]
        budget: u64,
    },
    /// Compare `gtsim decode` of a capture with Mesa's own decode of the same run
    /// (`INTEL_DEBUG=bat` output), field by field.
    CompareBat {
        /// Mesa's INTEL_DEBUG=bat output (stderr of the run).
        bat: PathBuf,
        /// The AUB capture of the same run (`gtsim run --capture`).
        capture: PathBuf,
    },
    /// Replay a captured AUB trace on the model and write every render target the draws
    /// wrote as a PNG (RGBA8) in DIR.
    Replay {
        /// The trace (`gtsim run --capture`, or Mesa's intel_dump_gpu); without one, the
        /// embedded trace of the triangle client is replayed.
        file: Option<PathBuf>,
        /// Directory for the images (created if missing).
        #[arg(short, long, value_name = "DIR", default_value = ".")]
        output: PathBuf,
        /// Write the rows bottom-up: OpenGL framebuffer objects keep their bottom row
        /// first in memory, so this gives the image as glReadPixels shows it.
        #[arg(long)]
        flip_y: bool,
    },
    /// Replay a captured AUB trace and write a report of it, draw by draw, that a browser
    /// opens from DIR/index.html: each draw's state by stage, its render targets and
    /// depth/stencil before and after, the surfaces it samples, its shaders, counts and
    /// times; each hang on its own page.
    Inspect {
        /// The trace (`gtsim run --capture`); without one, the embedded trace of the
        /// triangle client is inspected.
        file: Option<PathBuf>,
        /// Directory for the report (created if missing).
        #[arg(short, long, value_name = "DIR", default_value = "gtsim-report")]
        output: PathBuf,
        /// Then serve the report over HTTP at ADDR (default 127.0.0.1:8000) until
        /// interrupted.
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8000")]
        serve: Option<String>,
        /// Instead of a report: replay FILE and B.aub and print where they first diverge
        /// (the first draw whose outputs differ, its state differences and first
        /// differing pixel; else the hangs, the draw count or the memory at the end).
        /// Exits 0 when they agree, 1 when they differ.
        #[arg(long, value_name = "B.aub", conflicts_with_all = ["serve", "with", "digest"])]
        diff: Option<PathBuf>,
        /// Instead of a report: compare this build's replay of FILE with another gtsim
        /// build's (its `inspect --digest`), to bisect the model. Exits as `--diff`.
        #[arg(long, value_name = "GTSIM", conflicts_with_all = ["serve", "digest"])]
        with: Option<PathBuf>,
        /// Instead of a report: write the replay's digest (per draw a hash of its state
        /// and of each image it wrote, the hangs, a hash of each page at the end; the
        /// format is in crates/inspect/src/digest.rs) to FILE, `-` for standard output.
        #[arg(long, value_name = "FILE", conflicts_with = "serve")]
        digest: Option<PathBuf>,
        /// With `--digest`: also draw N's state field by field and its images row by row.
        #[arg(long, value_name = "N", requires = "digest")]
        digest_draw: Option<usize>,
        /// Instead of a report: the history of render target pixel X,Y (row 0 first in
        /// memory): every draw that covered or wrote it, with the early depth test's
        /// values and outcome, the shader's colour, why a write was dropped, the pixel
        /// before and after each write; it ends with `final R G B A`.
        #[arg(long, value_name = "X,Y", conflicts_with_all = ["serve", "diff", "with", "digest"])]
        pixel: Option<String>,
        /// With `--pixel`: the render target, numbered in the order the replay first
        /// writes them (0 by default; an N out of range lists them).
        #[arg(long, value_name = "N", requires = "pixel")]
        target: Option<usize>,
        /// With `--pixel`: also the pixel shader lane of the pixel, instruction by
        /// instruction (each instruction as Mesa prints it, whether the lane ran it, its
        /// predicate, the lane's source values and what it left; a send's payload and
        /// what it returned), for the last draw that wrote the pixel or `--draw N`.
        #[arg(long, requires = "pixel")]
        trace: bool,
        /// With `--trace`: the draw whose lane to trace; with `--vertex`: the draw whose
        /// vertex to trace.
        #[arg(long, value_name = "N")]
        draw: Option<usize>,
        /// Instead of a report: the vertex shader lanes of vertex N of `--draw M` (the
        /// draw's Nth vertex handed to the vertex shader, from 0), instruction by
        /// instruction, as `--trace` shows a pixel's.
        #[arg(long, value_name = "N", requires = "draw", conflicts_with_all = ["serve", "diff", "with", "digest", "pixel"])]
        vertex: Option<usize>,
        /// Instead of a report: the compute shader lane of global invocation X,Y,Z of
        /// `--walker N` (the capture's Nth GPGPU walker, from 0; 0 by default),
        /// instruction by instruction, as `--trace` shows a pixel's. Invocations are
        /// numbered as Mesa's drivers lay them out (X-major within a workgroup); the
        /// workgroup size is the shader's `--local-size`.
        #[arg(long, value_name = "X,Y,Z", conflicts_with_all = ["serve", "diff", "with", "digest", "pixel", "vertex"])]
        invocation: Option<String>,
        /// With `--invocation`: the walker.
        #[arg(long, value_name = "N", requires = "invocation")]
        walker: Option<usize>,
        /// With `--invocation`: the shader's workgroup size (local_size_x, _y, _z); by
        /// default the group's channels in a row (threads × SIMD, 1, 1).
        #[arg(long, value_name = "X,Y,Z", requires = "invocation")]
        local_size: Option<String>,
    },
    /// Check what `gtsim run` can drive on this machine: gtsim's preload library, EGL,
    /// Mesa's GL and Vulkan drivers, the VA-API drivers and the tools the docs use, each
    /// with its path and package version; what is missing, with the exact `apt-get
    /// install` line. Exits 0 when `gtsim run` can work (the emulation, EGL and crocus
    /// or iris are there).
    Doctor,
    /// Run a program with the i915 emulation preloaded, so Mesa's Ivy Bridge driver
    /// (crocus) renders through gtsim (EGL surfaceless), and VA-API programs get Intel's
    /// i965 VA driver (video post-processing on the media pipeline). With `--gen 11` the device is an
    /// Ice Lake GT2 and Mesa's iris drives it: submissions run through the command
    /// streamer, draws and compute dispatches run on the Gen11 model (what it does not model yet, such as radial coarse pixel shading, is refused by name).
    Run {
        /// Record every submission (buffers and the exec) as an AUB trace (Gen7: ring trace
        /// blocks; Gen11: memtrace packets and execlist submissions).
        #[arg(long, value_name = "FILE.aub")]
        capture: Option<PathBuf>,
        /// Write each frame the program shows on the emulated display (KMS mode sets,
        /// page flips and atomic commits on card0, the cursor blended in) as
        /// DIR/frame-NNNNN.png, detiled, in RGB; a path ending in .y4m gets them as a
        /// YUV4MPEG2 video instead (60 frames a second, BT.601), one ending in .mkv,
        /// .mp4, .webm, .avi or .mov as a video ffmpeg encodes when the program exits.
        #[arg(long, value_name = "DIR|FILE.y4m|FILE.mkv")]
        display: Option<PathBuf>,
        /// When the display's vblanks come: `fast`, as fast as frames do (a flip
        /// completes at once), or `realtime`, at the mode's 60 Hz (a flip waits for the
        /// next one, so programs run at most at 60 frames a second, as on hardware).
        #[arg(long, default_value = "fast", value_parser = ["fast", "realtime"])]
        vblank: String,
        /// The GPU generation to present: 7 (Ivy Bridge, crocus) or 11 (Ice Lake, iris).
        #[arg(long = "gen", default_value_t = 7, value_parser = clap::builder::TypedValueParser::map(clap::builder::PossibleValuesParser::new(["7", "11"]), |s: String| s.parse::<u32>().unwrap_or(7)))]
        generation: u32,
        /// The program and its arguments.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<std::ffi::OsString>,
    },
}

mod display;
mod doctor;
mod exec;
mod input;
mod inspect;
mod replay;
mod run;

/// The generation to decode as: the trace's PCI id decides when it names one (Ivy Bridge
/// 0x0162 and its siblings, Ice Lake 0x8a5x), else `--gen` (7 or 11).
fn decode_generation(
    gen_: u32,
    trace: Option<&aub::Trace>,
) -> Result<&'static gtsim_spec::table::Generation> {
    if gen_ != 7 && gen_ != 11 {
        bail!("generation {gen_} is not modelled (--gen 7, Ivy Bridge, or --gen 11, Ice Lake)");
    }
    use gtsim_gpu::device::Platform;
    let from_trace = trace
        .and_then(|t| t.pci_id())
        .and_then(Platform::from_pci_id)
        .map(|p| if p == Platform::IceLake { 11 } else { 7 });
    match from_trace.unwrap_or(gen_) {
        7 => Ok(&gtsim_spec::gen7::GENERATION),
        11 => Ok(&gtsim_spec::gen11::GENERATION),
        g => bail!("generation {g} is not modelled (--gen 7, Ivy Bridge, or --gen 11, Ice Lake)"),
    }
}

fn parse_addr(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|e| format!("bad address `{s}`: {e}"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let filter = log_filter(cli.quiet, cli.verbose);
    let directives = filter.clone() + &gtsim_gpu::requested_log_directives();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_new(&directives)
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .without_time()
        .init();
    // A program under `gtsim run` logs through the same filter.
    if std::env::var_os("GTSIM_LOG").is_none() && (cli.quiet || cli.verbose) {
        // SAFETY: at the start of main, before any thread exists.
        unsafe { std::env::set_var("GTSIM_LOG", &filter) };
    }
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gtsim: {e:#}");
            ExitCode::from(input::status(&e))
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run {
            capture,
            display,
            vblank,
            generation,
            command,
        } => run::run(capture, display, &vblank, generation, command),
        Command::Doctor => {
            let (text, works) = doctor::report(&doctor::Host);
            print!("{text}");
            Ok(if works {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Replay {
            file,
            output,
            flip_y,
        } => replay::replay(file.as_deref(), &output, flip_y),
        Command::Inspect {
            file,
            output,
            serve,
            diff,
            with,
            digest,
            digest_draw,
            pixel,
            target,
            trace,
            draw,
            vertex,
            invocation,
            walker,
            local_size,
        } => {
            if let Some(id) = invocation {
                inspect::invocation(
                    file.as_deref(),
                    &id,
                    walker.unwrap_or(0),
                    local_size.as_deref(),
                )
            } else if let (Some(n), Some(m)) = (vertex, draw) {
                inspect::vertex(file.as_deref(), m, n)
            } else if draw.is_some() && !trace {
                anyhow::bail!("--draw goes with --trace or --vertex")
            } else if let Some(at) = pixel {
                use gtsim_inspect::history::LaneTrace;
                let lanes = match (trace, draw) {
                    (false, _) => LaneTrace::Off,
                    (true, None) => LaneTrace::LastWrite,
                    (true, Some(n)) => LaneTrace::Draw(n),
                };
                inspect::pixel(file.as_deref(), &at, target.unwrap_or(0), lanes)
            } else if let Some(to) = digest {
                inspect::write_digest(file.as_deref(), &to, digest_draw)
            } else if let Some(b) = diff {
                inspect::diff(file.as_deref(), inspect::Other::Capture(&b))
            } else if let Some(g) = with {
                inspect::diff(file.as_deref(), inspect::Other::Build(&g))
            } else {
                inspect::inspect(file.as_deref(), &output, serve.as_deref())
            }
        }
        Command::Exec {
            file,
            bin,
            simd,
            gen_,
            sets,
            dumps,
            alt,
            budget,
        } => {
            let Some(encoding) = gtsim_isa::Encoding::from_generation(gen_) else {
                bail!("generation {gen_} is not modelled (--gen 7, Ivy Bridge, or 11, Ice Lake)");
            };
            let out = exec::exec(&exec::ExecArgs {
                file: &file,
                bin,
                simd,
                encoding,
                sets: &sets,
                dumps: &dumps,
                alt,
                budget,
            })?;
            let _ = std::io::stdout().lock().write_all(out.as_bytes());
            Ok(ExitCode::SUCCESS)
        }
        Command::Disasm { file, gen_, hex } => {
            let Some(enc) = gtsim_isa::Encoding::from_generation(gen_) else {
                bail!("generation {gen_} is not modelled (--gen 7, Ivy Bridge, or 11, Ice Lake)");
            };
            let bytes = input::read(&file)?;
            let listing = gtsim_isa::disasm::listing_for(enc, &bytes, hex);
            let mut out = listing.lines.join("\n");
            if !out.is_empty() {
                out.push('\n');
            }
            let _ = std::io::stdout().lock().write_all(out.as_bytes());
            if let Some((off, e)) = listing.error {
                eprintln!("gtsim: {}: byte offset {off:#x}: {e}", file.display());
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Asm {
            file,
            output,
            gen_,
            no_compact,
            as_written,
        } => {
            let Some(enc) = gtsim_isa::Encoding::from_generation(gen_) else {
                bail!("generation {gen_} is not modelled (--gen 7, Ivy Bridge, or 11, Ice Lake)");
            };
            let text = input::read_text(&file)?;
            let mode = if no_compact {
                gtsim_isa::asm::Compaction::Never
            } else if as_written {
                gtsim_isa::asm::Compaction::AsWritten
            } else {
                gtsim_isa::asm::Compaction::Auto
            };
            let bytes = gtsim_isa::asm::assemble_for(enc, &text, mode)
                .map_err(|e| input::InputProblem(format!("{}: {e}", file.display())))?;
            std::fs::write(&output, &bytes)
                .with_context(|| format!("cannot write {}", output.display()))?;
            eprintln!(
                "gtsim: {} bytes written to {}",
                bytes.len(),
                output.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::CompareBat { bat, capture } => {
            let text = input::read_text(&bat)?;
            let bytes = input::read(&capture)?;
            let trace = aub::parse(&bytes);
            let generation = decode_generation(7, Some(&trace))?;
            let items = gtsim_gpu::trace::decode_trace(generation, &trace);
            let mesa = gtsim_gpu::mesa_bat::parse_bat(&text);
            if mesa.is_empty() {
                return Err(input::InputProblem(format!(
                    "{} holds no INTEL_DEBUG=bat batches",
                    bat.display()
                ))
                .into());
            }
            let c = gtsim_gpu::mesa_bat::compare(&mesa, &items);
            print!("{}", c.report());
            Ok(if c.differ.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Decode {
            file,
            gen_,
            format,
            base,
            raw,
            color,
        } => {
            let bytes = match &file {
                Some(f) => input::read(f)?,
                None => gtsim_gpu::sample::aub().context("building the embedded sample")?,
            };
            let mut trailing = 0;
            let is_aub = match format {
                Format::Aub => true,
                Format::Raw => false,
                Format::Auto => {
                    bytes.len() >= 4
                        && u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
                            & 0xffff_0000
                            == aub::CMD_AUB_HEADER
                }
            };
            let is_aub = is_aub
                || (matches!(format, Format::Auto)
                    && bytes.len() >= 4
                    && u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) & 0xffff_0000
                        == aub::memtrace::CMD_MEM_TRACE_VERSION);
            let trace = is_aub.then(|| aub::parse(&bytes));
            let generation = decode_generation(gen_, trace.as_ref())?;
            let items = if let Some(trace) = &trace {
                gtsim_gpu::trace::decode_trace(generation, trace)
            } else {
                if bytes.len() % 4 != 0 {
                    eprintln!(
                        "gtsim: byte {:#x}: {} bytes is not a whole number of dwords; the last {} bytes are ignored",
                        bytes.len() / 4 * 4,
                        bytes.len(),
                        bytes.len() % 4
                    );
                    trailing = 1;
                }
                let len = bytes.len() / 4 * 4;
                if base.checked_add(len as u64).is_none() {
                    bail!(
                        "--base {base:#x}: a batch of {len} bytes there would run past the end of the 64-bit address space"
                    );
                }
                let mut mem = AddressSpace::new();
                mem.load(base, &bytes[..len]);
                let mut d = Decoder::new(generation, &mem);
                d.decode_batch(base, Some(base + len as u64));
                d.items
            };
            let color = match color {
                ColorWhen::Always => true,
                ColorWhen::Never => false,
                ColorWhen::Auto => {
                    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
                }
            };
            let text = render(&items, RenderOptions { color, raw });
            let mut out = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth reporting.
            let _ = out.write_all(text.as_bytes());
            let errors = items
                .iter()
                .filter(|i| matches!(i, Item::Diagnostic { .. }))
                .count()
                + trailing;
            if errors > 0 {
                eprintln!("gtsim: {errors} problem(s) found in the input");
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
