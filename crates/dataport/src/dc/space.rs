//! The bytes a message addresses: a bounded range of graphics memory (a buffer
//! surface, or the stateless model's immediate buffer), a structured buffer, a typed
//! surface, shared local memory, or nothing (seed 000 §3.2).

use super::{AddressModel, DataMessage, DataOp, DataSurface, ImageView, Regs, Target};
use gtsim_mem::Memory;
use gtsim_mem::surface::Surface;
use gtsim_message::MessageError;
use gtsim_spec::shared::SurfaceFormat;

/// The size of a thread group's shared local memory window: "Addresses beyond the size
/// (64KB) of the SLM will wrap around" (seed 000 §3.2.3).
pub const SLM_BYTES: usize = 64 * 1024;

/// How a message's byte offsets map to storage.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// `bound` bytes (unchecked when `None`) of graphics memory from `base`.
    Linear { base: u64, bound: Option<u64> },
    /// A structured buffer: `entries` structures of `pitch` bytes from `base`.
    Structured { base: u64, entries: u64, pitch: u64 },
    /// A typed surface.
    Image {
        surface: Surface,
        array: bool,
        view: ImageView,
    },
    /// Shared local memory.
    Slm,
    /// Nothing: every access is out of bounds.
    Null,
}

/// The storage one message addresses.
pub(crate) struct Space<'t> {
    pub mem: &'t mut dyn Memory,
    pub kind: Kind,
    slm: Option<&'t mut [u8]>,
}

fn refuse(what: &str, seed: &str) -> MessageError {
    gtsim_message::invalid(format!("{what} ({seed})"))
}

impl<'t> Space<'t> {
    /// The storage `msg` addresses under its address model.
    pub fn new(
        msg: &DataMessage,
        regs: &Regs,
        target: &'t mut Target<'_>,
    ) -> Result<Space<'t>, MessageError> {
        let kind = match msg.model {
            // Seed 000 §3.2.3: only byte scattered and the untyped messages reach SLM.
            AddressModel::Slm => match msg.op {
                DataOp::ByteScattered { .. } | DataOp::Untyped { .. } => {
                    if target.slm.is_none() {
                        return Err(refuse(
                            "a shared local memory access (binding table index 254) from a thread that has no thread group",
                            "seed 000 §3.2.3",
                        ));
                    }
                    Kind::Slm
                }
                DataOp::Fence { .. } => Kind::Null,
                _ => {
                    return Err(refuse(
                        "shared local memory (binding table index 254) takes only Byte Scattered and the untyped messages",
                        "seed 000 §3.2.3",
                    ));
                }
            },
            AddressModel::Stateless => {
                match msg.op {
                    DataOp::Typed { .. } => {
                        return Err(refuse(
                            "the typed messages have no stateless model",
                            "seed 000 §3.9.9 restrictions",
                        ));
                    }
                    DataOp::ByteScattered { .. } => {
                        return Err(refuse(
                            "Byte Scattered Read/Write has no stateless model",
                            "seed 000 §3.9.8 restrictions",
                        ));
                    }
                    DataOp::MediaBlock { .. } => {
                        return Err(refuse(
                            "Media Block Read/Write has no stateless model",
                            "seed 000 §3.9.6 restriction 1",
                        ));
                    }
                    _ => {}
                }
                // Seed 000 §3.2.2: Surface Base Address = General State Base Address +
                // Immediate Base Address (M0.5 31:10, §3.9.2.2, §3.9.10.2).
                let Some(m05) = regs.header(5) else {
                    if matches!(msg.op, DataOp::Fence { .. }) {
                        return Ok(Space {
                            mem: &mut *target.mem,
                            kind: Kind::Null,
                            slm: None,
                        });
                    }
                    return Err(refuse(
                        "a stateless data port message without its header (the Immediate Buffer Base Address)",
                        "seed 000 §3.9.2, §3.9.5, §3.9.7",
                    ));
                };
                let base = target.general.base.wrapping_add(u64::from(m05 & !0x3ff));
                // "Buffer Size = checked only against General State Access Upper Bound".
                let bound = target.general.bound.map(|b| b.saturating_sub(base));
                Kind::Linear { base, bound }
            }
            // The untyped messages' A64 forms address graphics memory directly: each
            // slot's address is whole, nothing bounds it (a fault is a fault).
            AddressModel::A64 => match msg.op {
                DataOp::Untyped { .. } | DataOp::OwordBlock { .. } => Kind::Linear {
                    base: 0,
                    bound: None,
                },
                _ => {
                    return Err(gtsim_spec::Unsupported::new(
                        "A64 messages other than the untyped and OWord block ones",
                        "seed 003 MT_DP1 (A64 scattered and block messages)",
                    )
                    .into());
                }
            },
            AddressModel::Surface(bti) => {
                if matches!(msg.op, DataOp::ScratchBlock { .. }) {
                    return Err(refuse(
                        "Scratch Block Read/Write uses only the stateless model",
                        "seed 000 §3.9.10",
                    ));
                }
                match target.surface {
                    None | Some(DataSurface::Null) => Kind::Null,
                    Some(s) => surface_kind(msg, bti, s)?,
                }
            }
        };
        Ok(Space {
            mem: &mut *target.mem,
            kind,
            slm: target.slm.as_deref_mut(),
        })
    }

    /// Reads `out.len()` bytes at byte `off` of the space: zeros out of bounds.
    pub fn read(&mut self, off: u64, out: &mut [u8]) -> Result<(), MessageError> {
        match self.kind {
            Kind::Slm => {
                let slm = self.slm.as_deref().unwrap_or(&[]);
                for (i, b) in out.iter_mut().enumerate() {
                    *b = slm
                        .get((off as usize).wrapping_add(i) % SLM_BYTES)
                        .copied()
                        .unwrap_or(0);
                }
                Ok(())
            }
            _ => match self.address(off, out.len() as u64) {
                Some(addr) => self
                    .mem
                    .read(addr, out)
                    .map_err(|fault| MessageError::Fault {
                        what: format!("data port read of {} bytes at {addr:#x}", out.len()),
                        fault,
                    }),
                None => {
                    out.fill(0);
                    Ok(())
                }
            },
        }
    }

    /// Writes `data` at byte `off` of the space: dropped out of bounds.
    pub fn write(&mut self, off: u64, data: &[u8]) -> Result<(), MessageError> {
        match self.kind {
            Kind::Slm => {
                if let Some(slm) = self.slm.as_deref_mut() {
                    for (i, b) in data.iter().enumerate() {
                        if let Some(d) = slm.get_mut((off as usize).wrapping_add(i) % SLM_BYTES) {
                            *d = *b;
                        }
                    }
                }
                Ok(())
            }
            _ => match self.address(off, data.len() as u64) {
                Some(addr) => self
                    .mem
                    .write(addr, data)
                    .map_err(|fault| MessageError::Fault {
                        what: format!("data port write of {} bytes at {addr:#x}", data.len()),
                        fault,
                    }),
                None => Ok(()),
            },
        }
    }

    /// A dword at byte `off`.
    pub fn read_u32(&mut self, off: u64) -> Result<u32, MessageError> {
        let mut b = [0u8; 4];
        self.read(off, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// The graphics address of `len` bytes at `off`, when they are inside the bounds.
    fn address(&self, off: u64, len: u64) -> Option<u64> {
        match self.kind {
            Kind::Linear { base, bound } => {
                let end = off.checked_add(len)?;
                bound
                    .is_none_or(|b| end <= b)
                    .then(|| base.wrapping_add(off))
            }
            Kind::Structured {
                base,
                entries,
                pitch,
            } => {
                let end = off.checked_add(len)?;
                (end <= entries.saturating_mul(pitch)).then(|| base.wrapping_add(off))
            }
            Kind::Image { .. } | Kind::Slm | Kind::Null => None,
        }
    }
}

/// How message `msg` sees binding table surface `s` (seed 000 §3.9.3-§3.9.9
/// restrictions).
fn surface_kind(msg: &DataMessage, bti: u8, s: DataSurface) -> Result<Kind, MessageError> {
    let what = |m: &str| format!("binding table entry {bti}: {m}");
    match (msg.op, s) {
        (DataOp::Fence { .. }, _) => Ok(Kind::Null),
        // Seed 000 §2.12.2 Vertical Line Stride: field access of an interlaced surface,
        // which only the media block messages model.
        (DataOp::Typed { .. }, DataSurface::Image { view, .. }) if view.rows.field.is_some() => {
            Err(gtsim_spec::Unsupported::new(
                what("typed surface access to a field (Vertical Line Stride 1)"),
                "seed 000 §2.12.2, §3.9.9",
            )
            .into())
        }
        (
            DataOp::Typed { .. } | DataOp::MediaBlock { .. },
            DataSurface::Image {
                surface,
                array,
                view,
            },
        ) => Ok(Kind::Image {
            surface,
            array,
            view,
        }),
        (
            DataOp::Typed { .. },
            DataSurface::Buffer {
                typed,
                format,
                any_format_reads,
                ..
            },
        ) => match typed {
            Some(surface) => Ok(Kind::Image {
                surface,
                array: false,
                view: ImageView {
                    base_level: 0,
                    levels: 1,
                    base_slice: 0,
                    any_format_reads,
                    ..Default::default()
                },
            }),
            None => Err(refuse(
                &what(&format!(
                    "the typed messages need a surface format other than {}",
                    format.name().unwrap_or("this one")
                )),
                "seed 000 §3.9.9",
            )),
        },
        (DataOp::MediaBlock { .. }, _) => Err(refuse(
            &what("Media Block Read/Write takes only a SURFTYPE_2D surface"),
            "seed 000 §3.9.6 restriction 1",
        )),
        (DataOp::Typed { .. }, DataSurface::Structured { .. }) => Err(refuse(
            &what("the typed messages take SURFTYPE_1D, 2D, 3D or BUFFER, not SURFTYPE_STRBUF"),
            "seed 000 §3.9.9 restrictions",
        )),
        (
            DataOp::Untyped { .. },
            DataSurface::Buffer {
                base,
                entries,
                format,
                ..
            },
        ) => {
            if format != SurfaceFormat::RAW {
                return Err(refuse(
                    &what(&format!(
                        "the untyped messages need Surface Format RAW, not {}",
                        format.name().unwrap_or("reserved")
                    )),
                    "seed 000 §3.9.9 restrictions",
                ));
            }
            Ok(Kind::Linear {
                base,
                bound: Some(entries),
            })
        }
        (
            DataOp::Untyped { .. },
            DataSurface::Structured {
                base,
                entries,
                pitch,
            },
        ) => Ok(Kind::Structured {
            base,
            entries,
            pitch,
        }),
        (DataOp::Untyped { .. }, DataSurface::Image { .. }) => Err(refuse(
            &what("the untyped messages take SURFTYPE_BUFFER or SURFTYPE_STRBUF"),
            "seed 000 §3.9.9 restrictions",
        )),
        (
            _,
            DataSurface::Buffer {
                base,
                entries,
                format,
                ..
            },
        ) => {
            // Seed 000 §3.9.3 (and §3.9.4, §3.9.5, §3.9.7): "An element size (pitch)
            // of 16 bytes is used to determine the size of the buffer for
            // out-of-bounds checking"; §3.9.8: 4 bytes for Byte Scattered. A RAW
            // buffer's entries are bytes ("a surface pitch of 1 byte", §3.9.9).
            let element = if format == SurfaceFormat::RAW {
                1
            } else if matches!(msg.op, DataOp::ByteScattered { .. }) {
                4
            } else {
                16
            };
            Ok(Kind::Linear {
                base,
                bound: Some(entries.saturating_mul(element)),
            })
        }
        (_, DataSurface::Null) => Ok(Kind::Null),
        (_, _) => Err(refuse(
            &what("the block and scattered messages take only SURFTYPE_BUFFER"),
            "seed 000 §3.9.3-§3.9.8 restrictions",
        )),
    }
}
