//! Text rendering of decoded items, optionally with colour and raw dwords.

use super::Item;
use anstyle::{AnsiColor, Style};
use std::fmt::Write;

/// How to render.
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderOptions {
    /// ANSI colours (for a terminal).
    pub color: bool,
    /// Show each dword's raw value beside the fields it holds.
    pub raw: bool,
}

fn paint(opts: &RenderOptions, style: Style, text: &str) -> String {
    if opts.color {
        format!("{}{text}{}", style.render(), style.render_reset())
    } else {
        text.to_string()
    }
}

fn fields(
    out: &mut String,
    opts: &RenderOptions,
    indent: usize,
    dwords: &[u32],
    lines: &[gtsim_spec::print::Line],
) {
    let warn = Style::new().fg_color(Some(AnsiColor::Yellow.into()));
    let dim = Style::new().dimmed();
    let mut last_dw = usize::MAX;
    for l in lines {
        if opts.raw && l.dword != last_dw {
            if let Some(v) = dwords.get(l.dword) {
                let _ = writeln!(
                    out,
                    "{:indent$}{}",
                    "",
                    paint(opts, dim, &format!("dw{}: {v:#010x}", l.dword)),
                    indent = indent
                );
            }
            last_dw = l.dword;
        }
        let pad = indent + 4 + l.depth * 4;
        let text = if l.value.is_empty() {
            l.name.clone()
        } else {
            format!("{}: {}", l.name, l.value)
        };
        let text = if l.warning {
            paint(opts, warn, &text)
        } else {
            text
        };
        let _ = writeln!(out, "{:pad$}{text}", "", pad = pad);
    }
}

/// Renders decoded items as text.
pub fn render(items: &[Item], opts: RenderOptions) -> String {
    let mut out = String::new();
    let cmd = Style::new().bold().fg_color(Some(AnsiColor::Cyan.into()));
    let state = Style::new().bold().fg_color(Some(AnsiColor::Green.into()));
    let err = Style::new().bold().fg_color(Some(AnsiColor::Red.into()));
    let note = Style::new().fg_color(Some(AnsiColor::Magenta.into()));
    for it in items {
        match it {
            Item::Command {
                addr,
                def,
                dwords,
                lines,
            } => {
                let _ = writeln!(
                    out,
                    "{addr:#010x}:  {:#010x}:  {}",
                    dwords[0],
                    paint(&opts, cmd, def.name)
                );
                fields(&mut out, &opts, 4, dwords, lines);
            }
            Item::State {
                addr,
                def,
                index,
                dwords,
                lines,
                via,
                depth,
            } => {
                let pad = depth * 2;
                let _ = writeln!(
                    out,
                    "{:pad$}{addr:#010x}:  {}[{index}]  (via {via})",
                    "",
                    paint(&opts, state, def.name),
                    pad = pad
                );
                fields(&mut out, &opts, 4 + pad, dwords, lines);
            }
            Item::Kernel { addr, via, depth } => {
                let pad = depth * 2;
                let _ = writeln!(
                    out,
                    "{:pad$}{addr:#010x}:  {}  (via {via})",
                    "",
                    paint(&opts, state, "kernel"),
                    pad = pad
                );
            }
            Item::Note { addr, msg } => {
                let _ = writeln!(
                    out,
                    "{addr:#010x}:  {}",
                    paint(&opts, note, &format!("note: {msg}"))
                );
            }
            Item::Diagnostic { addr, msg } => {
                let _ = writeln!(
                    out,
                    "{addr:#010x}:  {}",
                    paint(&opts, err, &format!("error: {msg}"))
                );
            }
        }
    }
    out
}
