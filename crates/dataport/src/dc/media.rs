//! Media Block Read/Write (seed 000 §3.9.6): a rectangle of `width` bytes by `height`
//! rows of a 2D surface, at a byte X offset and row Y offset (the header's M0.0 and
//! M0.1), copied without format conversion. In the GRF the rows are packed at the block's
//! base pitch, "the next power-of-2 that is greater than or equal to the Block Width",
//! from the low bytes of the first register (Sub-Register Offset and Register Pitch
//! Control zero, as the render cache requires, §3.9.6.2).
//!
//! Reads outside the surface return the nearest edge pixel ("the address being clamped
//! to the nearest edge of the surface"): the surface format's element is the pixel, so
//! an 8-bit surface replicates its edge byte, a 16-bit one its edge word, a 32-bit one
//! its edge dword. Writes outside are dropped. The YCrCb formats' own boundary rules and
//! the PIXEL_MASK mode, colour processing and register pitch control fail as
//! unsupported, naming §3.9.6.

use super::space::{Kind, Space};
use super::{DataMessage, DataOp, Regs, short};
use gtsim_mem::layout::SurfaceType;
use gtsim_message::{MessageError, Response};
use gtsim_spec::Unsupported;

pub(super) fn execute(
    msg: &DataMessage,
    regs: &Regs,
    space: &mut Space,
) -> Result<Response, MessageError> {
    let DataOp::MediaBlock { write } = msg.op else {
        unreachable!("media::execute takes the media block messages");
    };
    let (Some(x), Some(y), Some(m2), Some(m3)) = (
        regs.header(0),
        regs.header(1),
        regs.header(2),
        regs.header(3),
    ) else {
        return Err(gtsim_message::invalid(
            "a media block message without its header (seed 000 §3.9.2: header required)",
        ));
    };
    let unsupported = |what: &str| -> MessageError {
        Unsupported::new(
            format!("media block messages with {what}"),
            "seed 000 §3.9.6",
        )
        .into()
    };
    if m3 >> 4 & 1 != 0 {
        return Err(unsupported("Message Mode PIXEL_MASK"));
    }
    if m3 & 1 != 0 {
        return Err(unsupported("Color Processing Enable (IECP)"));
    }
    if m2 >> 24 & 0x1f != 0 || m2 >> 8 & 3 != 0 {
        return Err(unsupported(
            "a Sub-Register Offset or Register Pitch Control",
        ));
    }
    let (x, y) = (x as i32 as i64, y as i32 as i64);
    let width = u64::from(m2 & 0x1f) + 1;
    let height = u64::from(m2 >> 16 & 0x3f) + 1;
    let pitch = width.next_power_of_two();
    if write && (x & 3 != 0 || width % 4 != 0) {
        return Err(gtsim_message::invalid(format!(
            "a media block write at X offset {x}, {width} bytes wide: both must be DWord aligned (seed 000 §3.9.6 restriction 8)"
        )));
    }
    let Kind::Image { surface, array, .. } = space.kind else {
        return Err(gtsim_message::invalid(
            "a media block message to a surface that is not SURFTYPE_2D (seed 000 §3.9.6 restriction 1)",
        ));
    };
    let d = surface.desc;
    if d.ty != SurfaceType::D2 || array || d.samples > 1 {
        return Err(gtsim_message::invalid(
            "a media block message to an arrayed, multisampled or non-2D surface (seed 000 §3.9.6 restriction 1)",
        ));
    }
    if gtsim_mem::format::texel::decode_ycrcb(surface.format, &[0; 4], false).is_ok() {
        return Err(unsupported(
            "YCrCb surfaces (their boundary replication rules)",
        ));
    }
    let bpe = u64::from(d.block_bytes.max(1));
    // Seed 000 RENDER_SURFACE_STATE Width (L2239-2240): "For surfaces accessed with the
    // Media Block Read/Write message, this field is in units of DWords" (the IECP NV12
    // exception, in Words, is refused above with IECP). Intel's VA driver programs its
    // R8/R8G8 targets so (i965_gpe_utils.c: width in DWORDs for media read & write).
    let (w_bytes, h_rows) = (u64::from(d.width) * 4, u64::from(d.height));
    let regs_needed = (height * pitch).div_ceil(32) as usize;
    // The byte at (column, row) of the surface, the column in bytes: the surface's
    // tiling over its pitch, as for its texels.
    let address = |col: u64, row: u64| -> Result<u64, MessageError> {
        let off = d
            .tiling
            .offset(d.pitch, col, row)
            .map_err(|e| gtsim_message::invalid(format!("media block message: {e}")))?;
        Ok(surface.base.wrapping_add(off))
    };
    if write {
        if regs.len() < regs_needed {
            return Err(short("Media Block Write", regs_needed, regs.len()));
        }
        for r in 0..height {
            let row = y + r as i64;
            for c in 0..width {
                let col = x + c as i64;
                if row < 0 || col < 0 || row as u64 >= h_rows || col as u64 >= w_bytes {
                    continue;
                }
                let at = (r * pitch + c) as usize;
                let b = regs.dword(at / 32, at % 32 / 4).to_le_bytes()[at % 4];
                let addr = address(col as u64, row as u64)?;
                space
                    .mem
                    .write(addr, &[b])
                    .map_err(|fault| MessageError::Fault {
                        what: format!("media block write at {addr:#x}"),
                        fault,
                    })?;
            }
        }
        return Ok(Response::default());
    }
    let mut out = vec![[0u8; 32]; regs_needed];
    for r in 0..height {
        let row = (y + r as i64).clamp(0, h_rows as i64 - 1) as u64;
        for c in 0..width {
            let col = x + c as i64;
            // Clamped to the nearest pixel, keeping the byte's place in the pixel.
            let within = col.rem_euclid(bpe as i64) as u64;
            let last = (w_bytes / bpe).max(1) as i64 - 1;
            let pixel = col.div_euclid(bpe as i64).clamp(0, last) as u64;
            let addr = address(pixel * bpe + within, row)?;
            let mut b = [0u8; 1];
            space
                .mem
                .read(addr, &mut b)
                .map_err(|fault| MessageError::Fault {
                    what: format!("media block read at {addr:#x}"),
                    fault,
                })?;
            let at = (r * pitch + c) as usize;
            out[at / 32][at % 32] = b[0];
        }
    }
    Ok(Response::from(out))
}
