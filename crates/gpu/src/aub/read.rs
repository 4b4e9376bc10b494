//! Reading legacy AUB traces into events.

use super::*;
use thiserror::Error;

/// Something a trace records, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The version header.
    Header {
        /// Major.minor version.
        version: (u8, u8),
        /// Application name.
        app: String,
        /// Comment (carries `PCI-ID=0x...`).
        comment: String,
    },
    /// Bytes written to graphics memory.
    Write {
        /// GTT address.
        addr: u64,
        /// Data.
        data: Vec<u8>,
        /// Trace type (batch, surface, ...), informational.
        kind: u32,
    },
    /// GTT page-table entries written (the model's GTT is an identity view; recorded only).
    GttEntries {
        /// Offset into the GTT.
        offset: u64,
        /// Bytes of entries.
        len: usize,
    },
    /// Commands written to a ring: a submission.
    Exec {
        /// Ring (2 render, 3 video, 4 blitter).
        ring: u32,
        /// Where in the ring.
        offset: u64,
        /// The ring commands (usually MI_BATCH_BUFFER_START).
        commands: Vec<u32>,
    },
    /// A bitmap to dump (CMD_AUB_DUMP_BMP): what a display showed, in graphics memory
    /// as the packet describes it ([`DumpBmp`]).
    DumpBmp(DumpBmp),
    /// An MMIO register write.
    Mmio {
        /// Register offset.
        offset: u64,
        /// Values written.
        values: Vec<u32>,
    },
}

/// A trace could not be read any further.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AubError {
    /// The file ends inside a packet.
    #[error(
        "AUB byte offset {offset:#x}: file ends inside a {what} ({need} bytes needed, {have} left)"
    )]
    Truncated {
        /// Byte offset of the packet.
        offset: usize,
        /// Packet kind.
        what: &'static str,
        /// Bytes needed.
        need: usize,
        /// Bytes left.
        have: usize,
    },
    /// Not an AUB packet header.
    #[error(
        "AUB byte offset {offset:#x}: dword {dw0:#010x} is not an AUB packet (bits 31:29 must be 7)"
    )]
    NotAub {
        /// Byte offset.
        offset: usize,
        /// The dword found.
        dw0: u32,
    },
}

/// A parsed trace: its events and the problems met on the way (parsing resumes after a
/// packet it cannot use when its length is known).
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// Events in file order.
    pub events: Vec<Event>,
    /// Diagnostics for skipped packets (byte offset, message).
    pub diagnostics: Vec<(usize, String)>,
    /// A fatal error that ended parsing early.
    pub error: Option<AubError>,
}

impl Trace {
    /// The PCI device id named in the header comment, if any.
    pub fn pci_id(&self) -> Option<u32> {
        self.events.iter().find_map(|e| match e {
            Event::Header { comment, .. } => {
                let id = comment.split("PCI-ID=").nth(1)?;
                let id = id.trim_start_matches("0x").trim_start_matches("0X");
                let end = id
                    .find(|c: char| !c.is_ascii_hexdigit())
                    .unwrap_or(id.len());
                u32::from_str_radix(&id[..end], 16).ok()
            }
            _ => None,
        })
    }
}

fn dword(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub(super) fn text(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// Parses a whole trace. Never panics: malformed input ends in `Trace::error`.
pub fn parse(bytes: &[u8]) -> Trace {
    let mut t = Trace::default();
    let mut memtrace = vec![];
    parse_into(bytes, &mut t, &mut memtrace);
    if !memtrace.is_empty() {
        let (events, diagnostics) = super::memtrace::reconstruct(&memtrace);
        t.events.extend(events);
        t.diagnostics.extend(diagnostics);
    }
    t
}

fn parse_into(bytes: &[u8], t: &mut Trace, memtrace: &mut Vec<(usize, super::memtrace::Memtrace)>) {
    let mut at = 0usize;
    while at + 4 <= bytes.len() {
        let dw0 = dword(bytes, at);
        if dw0 >> 29 != 7 {
            t.error = Some(AubError::NotAub { offset: at, dw0 });
            return;
        }
        // Memtrace packets (opcode 0x2e) count their length minus 1, the legacy ones
        // minus 2 (Mesa aub_read.c).
        let is_memtrace = dw0 & 0xff80_0000 == super::memtrace::CMD_MEM_TRACE;
        let dwords = (dw0 & 0xffff) as usize + if is_memtrace { 1 } else { 2 };
        let need = dwords * 4;
        if at + need > bytes.len() {
            t.error = Some(AubError::Truncated {
                offset: at,
                what: "packet header",
                need,
                have: bytes.len() - at,
            });
            return;
        }
        let pkt = &bytes[at..at + need];
        if is_memtrace {
            if dw0 & 0xffff_0000 == super::memtrace::CMD_MEM_TRACE_VERSION {
                // Dwords 1-4 versions and device, then `PCI-ID=0x... <application>`.
                let text = super::read::text(pkt.get(20..).unwrap_or(&[]));
                let (comment, app) = match text.split_once(' ') {
                    Some((c, a)) => (c.to_string(), a.to_string()),
                    None => (text.clone(), String::new()),
                };
                t.events.push(Event::Header {
                    version: (0, 0),
                    app,
                    comment,
                });
            } else {
                match super::memtrace::parse_packet(dw0, pkt) {
                    Ok(Some(r)) => memtrace.push((at, r)),
                    Ok(None) => {}
                    Err(e) => t
                        .diagnostics
                        .push((at, format!("{e}; skipped by its length"))),
                }
            }
            at += need;
            continue;
        }
        match dw0 & 0xffff_0000 {
            CMD_AUB_HEADER => {
                // DW1 version, DW2-9 app name, DW10-11 timestamp, DW12 comment length, comment.
                if dwords < 13 {
                    t.diagnostics.push((
                        at,
                        format!("AUB header of {dwords} dwords is too short (13 needed); skipped"),
                    ));
                } else {
                    let v = dword(pkt, 4);
                    let clen = (dword(pkt, 48) as usize).min(need - 52);
                    t.events.push(Event::Header {
                        version: ((v >> 24) as u8, (v >> 16) as u8),
                        app: text(&pkt[8..40]),
                        comment: text(&pkt[52..52 + clen]),
                    });
                }
                at += need;
            }
            CMD_AUB_TRACE_HEADER_BLOCK => {
                if dwords < 5 {
                    t.error = Some(AubError::Truncated {
                        offset: at,
                        what: "trace block header",
                        need: 20,
                        have: need,
                    });
                    return;
                }
                let op = dword(pkt, 4);
                let mut addr = dword(pkt, 12) as u64;
                if dwords >= 6 {
                    addr |= (dword(pkt, 20) as u64) << 32;
                }
                let size = dword(pkt, 16) as usize;
                let padded = size.div_ceil(4) * 4;
                let data_at = at + need;
                if data_at + padded > bytes.len() {
                    t.error = Some(AubError::Truncated {
                        offset: at,
                        what: "trace block's data",
                        need: padded,
                        have: bytes.len() - data_at,
                    });
                    return;
                }
                let data = &bytes[data_at..data_at + size];
                let (operation, kind, space) = (op & 0xff, (op >> 8) & 0xff, (op >> 16) & 0xff);
                match (operation, space) {
                    (OP_DATA_WRITE, MEMTYPE_GTT) => t.events.push(Event::Write { addr, data: data.to_vec(), kind }),
                    (OP_DATA_WRITE, MEMTYPE_GTT_ENTRY) => t.events.push(Event::GttEntries { offset: addr, len: size }),
                    (OP_COMMAND_WRITE, _) => {
                        let commands = data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
                        t.events.push(Event::Exec { ring: kind, offset: addr, commands });
                    }
                    (OP_MMIO_WRITE, _) => {
                        let values = data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
                        t.events.push(Event::Mmio { offset: addr, values });
                    }
                    _ => t.diagnostics.push((at, format!("trace block with operation {operation} in address space {space} is not modelled; skipped"))),
                }
                at = data_at + padded;
            }
            CMD_AUB_DUMP_BMP => {
                match DumpBmp::parse(pkt) {
                    Some(b) => t.events.push(Event::DumpBmp(b)),
                    None => t.diagnostics.push((
                        at,
                        format!("bitmap dump of {dwords} dwords is too short (6 needed); skipped"),
                    )),
                }
                at += need;
            }
            _ => {
                t.diagnostics.push((at, format!("AUB packet {dw0:#010x} (opcode {:#x}, sub-opcode {:#x}) is not supported (Gen8+ memory-trace packets are not modelled); skipped by its length", (dw0 >> 23) & 0x3f, (dw0 >> 16) & 0x7f)));
                at += need;
            }
        }
    }
    if at < bytes.len() {
        t.error = Some(AubError::Truncated {
            offset: at,
            what: "packet header",
            need: 4,
            have: bytes.len() - at,
        });
    }
}

/// A CMD_AUB_DUMP_BMP packet, as libdrm's drm_intel_gem_bo_aub_dump_bmp writes it
/// (intel_bufmgr_gem.c; the formats of its `enum aub_dump_bmp_format`): dword 1 the
/// origin (y in 31:16, x in 15:0), dword 2 the format (31:24), bits per pixel (23:16) and
/// pitch in dwords (15:0), dword 3 the size (height in 31:16, width in 15:0), dword 4 the
/// graphics address, dword 5 the tiling (bit 2 tiled, bit 3 Y-tiled). A seventh dword,
/// which gtsim writes, holds the address's high half (48-bit traces); readers that know
/// six skip it by the packet's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpBmp {
    /// Origin column.
    pub x: u32,
    /// Origin row.
    pub y: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// AUB_DUMP_BMP_FORMAT_*: 1 8-bit, 4 ARGB4444, 6 ARGB0888, 7 ARGB8888.
    pub format: u32,
    /// Bits per pixel.
    pub bpp: u32,
    /// Bytes per row.
    pub pitch: u32,
    /// Graphics address.
    pub addr: u64,
    /// Tiled (bit 2 of dword 5).
    pub tiled: bool,
    /// Y-tiled rather than X-tiled (bit 3).
    pub y_tiled: bool,
}

/// AUB_DUMP_BMP_FORMAT_ARGB_8888.
pub const BMP_ARGB_8888: u32 = 7;
/// AUB_DUMP_BMP_FORMAT_ARGB_0888.
pub const BMP_ARGB_0888: u32 = 6;

impl DumpBmp {
    /// The packet's fields (`pkt`: its dwords), `None` when it is shorter than six.
    pub fn parse(pkt: &[u8]) -> Option<DumpBmp> {
        let d = |i: usize| {
            pkt.get(4 * i..4 * i + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let high = d(6).unwrap_or(0);
        Some(DumpBmp {
            x: d(1)? & 0xffff,
            y: d(1)? >> 16,
            format: d(2)? >> 24,
            bpp: d(2)? >> 16 & 0xff,
            pitch: (d(2)? & 0xffff) * 4,
            width: d(3)? & 0xffff,
            height: d(3)? >> 16,
            addr: u64::from(d(4)?) | u64::from(high) << 32,
            tiled: d(5)? & 1 << 2 != 0,
            y_tiled: d(5)? & 1 << 3 != 0,
        })
    }

    /// The packet's dwords (seven: the address's high half last).
    pub fn dwords(&self) -> [u32; 7] {
        [
            CMD_AUB_DUMP_BMP | 5,
            self.y << 16 | (self.x & 0xffff),
            self.format << 24 | (self.bpp & 0xff) << 16 | ((self.pitch / 4) & 0xffff),
            self.height << 16 | (self.width & 0xffff),
            self.addr as u32,
            u32::from(self.tiled) << 2 | u32::from(self.y_tiled) << 3,
            (self.addr >> 32) as u32,
        ]
    }
}
