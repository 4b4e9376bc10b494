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
//! its edge dword, and a YCrCb surface's boundary dword has its edge pixel's luma
//! replicated (§3.6.2). Writes outside are dropped. Rows follow §3.6.2's boundary table
//! for the surface's Vertical Line Stride (Offset), the descriptor's override of them and
//! Media Boundary Pixel Mode: fields, progressive and interlaced frames. A render cache
//! write with Color Processing Enable runs its data through the IECP pipe first
//! ([`super::iecp`], §3.6.1), with the COLOR_PROCESSING_STATE at General State Base
//! Address + M0.3 31:5. The PIXEL_MASK mode and register pitch control fail as
//! unsupported, naming §3.9.6.

use super::iecp::MessageFormat;
use super::space::{Kind, Space};
use super::{
    ColorProcessingState, DataMessage, DataOp, GeneralState, MediaBoundary, MediaRows, Regs, short,
};
use gtsim_mem::layout::SurfaceType;
use gtsim_message::{MessageError, Response};
use gtsim_spec::Unsupported;

pub(super) fn execute(
    msg: &DataMessage,
    regs: &Regs,
    space: &mut Space,
    general: GeneralState,
    color_processing: Option<ColorProcessingState>,
) -> Result<Response, MessageError> {
    let DataOp::MediaBlock {
        write,
        stride_override,
        render_cache,
        normal_header,
    } = msg.op
    else {
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
            if normal_header {
                "seed 003 MHC_MB_CONTROL"
            } else {
                "seed 000 §3.9.6"
            },
        )
        .into()
    };
    if normal_header {
        // Seed 003 MHC_MB_CONTROL 31:30: Normal (0), "Others Reserved".
        if m2 >> 30 != 0 {
            return Err(gtsim_message::invalid(format!(
                "media block Message Mode {} is reserved (seed 003 MHC_MB_CONTROL 31:30)",
                m2 >> 30
            )));
        }
    } else if m3 >> 4 & 1 != 0 {
        return Err(unsupported("Message Mode PIXEL_MASK"));
    }
    // Seed 000 §3.9.6.2 M0.3 bit 0: "This bit must be set to zero on a Media Block Read
    // to the Render Cache"; the pipe is in the render cache pixel backend (§3.6.1). The
    // Gen8+ header's M0.3 is the Mask, which a Normal message ignores.
    let iecp = !normal_header && m3 & 1 != 0;
    if iecp && !(write && render_cache) {
        return Err(gtsim_message::invalid(format!(
            "a media block {} to the {} with Color Processing Enable set: colour \
             processing applies only to render cache writes (seed 000 §3.6.1, §3.9.6.2 \
             M0.3 bit 0)",
            if write { "write" } else { "read" },
            if render_cache {
                "render cache"
            } else {
                "data cache"
            },
        )));
    }
    // Seed 003: Sub-Register Offset and Register Pitch Control are "ignored (reserved)
    // for a media block write message"; a read with either is the Merged subtype.
    if (m2 >> 24 & 0x1f != 0 || m2 >> 8 & 3 != 0) && !(normal_header && write) {
        return Err(unsupported(
            "a Sub-Register Offset or Register Pitch Control",
        ));
    }
    let (x, y) = (x as i32 as i64, y as i32 as i64);
    let width = if normal_header {
        // "For normal Media Block Writes, Range = [0,63] representing 1 to 64 Bytes. For
        // normal Media Block Reads ... Range = [0,31]".
        let w = u64::from(m2 & 0x3f) + 1;
        if !write && w > 32 {
            return Err(gtsim_message::invalid(format!(
                "a media block read {w} bytes wide: reads are at most 32 (seed 003 MHC_MB_CONTROL Block Width)"
            )));
        }
        w
    } else {
        u64::from(m2 & 0x1f) + 1
    };
    let height = u64::from(m2 >> 16 & 0x3f) + 1;
    let pitch = width.next_power_of_two();
    if write && (x & 3 != 0 || width % 4 != 0) {
        return Err(gtsim_message::invalid(format!(
            "a media block write at X offset {x}, {width} bytes wide: both must be DWord aligned (seed 000 §3.9.6 restriction 8)"
        )));
    }
    let Kind::Image {
        surface,
        array,
        view,
    } = space.kind
    else {
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
    // A YCrCb surface's element is the dword of two pixels; its boundary dword has the
    // edge pixel's luma replicated (§3.6.2).
    let ycrcb = ycrcb_luma(surface.format);
    let bpe = if ycrcb.is_some() {
        4
    } else {
        u64::from(d.block_bytes.max(1))
    };
    // Seed 000 RENDER_SURFACE_STATE Width (L2239-2240): "For surfaces accessed with the
    // Media Block Read/Write message, this field is in units of DWords" (the IECP NV12
    // exception, in Words, is refused above with IECP). Intel's VA driver programs its
    // R8/R8G8 targets so (i965_gpe_utils.c: width in DWORDs for media read & write).
    let (w_bytes, h_rows) = (u64::from(d.width) * 4, u64::from(d.height));
    let rows = Rows::new(view.rows, stride_override, h_rows)?;
    let regs_needed = (height * pitch).div_ceil(32) as usize;
    // The byte at (column, row) of the surface, the column in bytes: the surface's
    // tiling over its pitch, as for its texels, from the surface's origin (X Offset and
    // Y Offset, `SurfaceDesc::origin`, in pixels: whole elements of the format).
    let (origin_col, origin_row) = (
        u64::from(d.origin.0 / d.block.0.max(1)) * u64::from(d.block_bytes),
        u64::from(d.origin.1),
    );
    let address = |col: u64, row: u64| -> Result<u64, MessageError> {
        let off = d
            .tiling
            .offset(d.pitch, origin_col + col, origin_row + row)
            .map_err(|e| gtsim_message::invalid(format!("media block message: {e}")))?;
        Ok(surface.base.wrapping_add(off))
    };
    if write {
        if regs.len() < regs_needed {
            return Err(short("Media Block Write", regs_needed, regs.len()));
        }
        // The block as the message carries it, rows at the base pitch.
        let mut data: Vec<u8> = (0..regs_needed)
            .flat_map(|r| (0..8).flat_map(move |d| regs.dword(r, d).to_le_bytes()))
            .take((height * pitch) as usize)
            .collect();
        if iecp {
            let Some(decode) = color_processing else {
                return Err(unsupported(
                    "Color Processing Enable (IECP) on this generation",
                ));
            };
            // "This pointer is relative to the General State Base Address"
            // (GeneralStateOffset[31:5]).
            let address = general.base.wrapping_add(u64::from(m3 & !0x1f));
            // The state's 67 dwords (§3.8.3) within General State Access Upper Bound.
            if let Some(bound) = general.bound
                && address.checked_add(67 * 4).is_none_or(|end| end > bound)
            {
                return Err(MessageError::State {
                    structure: "COLOR_PROCESSING_STATE",
                    why: format!(
                        "at {address:#x}, past General State Access Upper Bound {bound:#x} \
                         (seed 000 §3.9.6.2 M0.3)"
                    ),
                });
            }
            let state = decode(&*space.mem, address)?;
            refuse_iecp_surface(surface.format)?;
            state.process(
                MessageFormat::from_raw(m3 >> 2),
                &mut data,
                width as usize,
                pitch as usize,
            )?;
        }
        for r in 0..height {
            let Some(row) = rows.written(y + r as i64) else {
                continue;
            };
            for c in 0..width {
                let col = x + c as i64;
                if col < 0 || col as u64 >= w_bytes {
                    continue;
                }
                let b = data[(r * pitch + c) as usize];
                let addr = address(col as u64, row)?;
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
        let row = rows.read(y + r as i64);
        for c in 0..width {
            let col = x + c as i64;
            // Clamped to the nearest pixel, keeping the byte's place in the pixel.
            let mut within = col.rem_euclid(bpe as i64) as u64;
            let last = (w_bytes / bpe).max(1) as i64 - 1;
            let element = col.div_euclid(bpe as i64);
            let pixel = element.clamp(0, last) as u64;
            // §3.6.2: "For a boundary dword Y0U0Y1V0, to replicate the left boundary, we
            // get Y0U0Y0V0, and to replicate the right boundary, we get Y1U0Y1V0" (and
            // U0Y0V0Y0 / U0Y1V0Y1 for the orders with chroma first).
            if let Some((y0, y1)) = ycrcb {
                if element < 0 && within == y1 {
                    within = y0;
                } else if element > last && within == y0 {
                    within = y1;
                }
            }
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

/// The surfaces a colour-processed write cannot reach in the model: the seed lists the
/// 10-bit formats and NV12 output (R16_UNORM) among IECP's surfaces (§3.6.1) but gives
/// neither the 10-bit repacking nor where the NV12 output's UV plane is.
fn refuse_iecp_surface(f: gtsim_spec::shared::SurfaceFormat) -> Result<(), MessageError> {
    use gtsim_spec::shared::SurfaceFormat as F;
    let what = match f {
        F::R16_UNORM => {
            "NV12 output (an R16_UNORM surface): the seed does not say where its UV plane is"
        }
        F::R10G10B10A2_UNORM
        | F::R10G10B10A2_UNORM_SRGB
        | F::B10G10R10A2_UNORM
        | F::B10G10R10A2_UNORM_SRGB => {
            "a 10-bit surface: the seed does not give the repacking to 10 bits"
        }
        _ => return Ok(()),
    };
    Err(Unsupported::new(
        format!("colour-processed media block writes to {what}"),
        "seed 000 §3.6.1, §3.9.6.2",
    )
    .into())
}

/// Where a media block message's rows are (seed 000 §3.9.6.1, §3.6.2): the frame's row
/// count, the field read (offset of its first row) if any, and the boundary mode.
struct Rows {
    frame_rows: i64,
    field: Option<i64>,
    boundary: MediaBoundary,
}

impl Rows {
    /// The surface's rows (`height` its Height + 1) as `surface` describes them and the
    /// descriptor's override changes them. With Vertical Line Stride 1 in the surface
    /// state, Height counts a field's rows: the frame has twice as many (§3.9.6.1
    /// "Derived 1-based surface height", (Height + 1) · 2 when the override reads it as
    /// a frame).
    fn new(
        surface: MediaRows,
        stride_override: Option<Option<u8>>,
        height: u64,
    ) -> Result<Rows, MessageError> {
        if let MediaBoundary::Reserved(v) = surface.boundary {
            return Err(gtsim_message::invalid(format!(
                "RENDER_SURFACE_STATE Media Boundary Pixel Mode {v} is reserved (seed 000 \
                 §2.12.2)"
            )));
        }
        let frame_rows = if surface.field.is_some() {
            2 * height
        } else {
            height
        } as i64;
        let field = stride_override
            .unwrap_or(surface.field)
            .map(|offset| i64::from(offset & 1));
        Ok(Rows {
            frame_rows,
            field,
            boundary: surface.boundary,
        })
    }

    /// The frame row a write to row `r` reaches, or `None` outside the frame or field
    /// (writes outside the surface are dropped).
    fn written(&self, r: i64) -> Option<u64> {
        let row = match self.field {
            Some(offset) => r.checked_mul(2)?.checked_add(offset)?,
            None => r,
        };
        (0..self.frame_rows).contains(&row).then_some(row as u64)
    }

    /// The frame row a read of row `r` returns, by §3.6.2's table: a frame clamps to its
    /// rows (INTERLACED_FRAME: to the nearest row of `r`'s own field); a field to its own
    /// rows, except PROGRESSIVE_FRAME, which clamps the field's rows to the frame.
    fn read(&self, r: i64) -> u64 {
        let last = self.frame_rows - 1;
        let row = match (self.field, self.boundary) {
            (None, MediaBoundary::InterlacedFrame) => {
                if r < 0 {
                    r.rem_euclid(2).min(last)
                } else if r > last {
                    // The last row of r's parity.
                    if (last - r).rem_euclid(2) == 0 {
                        last
                    } else {
                        last - 1
                    }
                } else {
                    r
                }
            }
            (None, _) => r.clamp(0, last),
            (Some(offset), MediaBoundary::ProgressiveFrame) => {
                r.saturating_mul(2).saturating_add(offset).clamp(0, last)
            }
            (Some(offset), _) => {
                // The field's rows: offset, offset + 2, ... within the frame.
                let field_rows = (self.frame_rows - offset + 1) / 2;
                2 * r.clamp(0, (field_rows - 1).max(0)) + offset
            }
        };
        row.clamp(0, last.max(0)) as u64
    }
}

/// The bytes of Y0 and Y1 in a dword of a YCrCb surface (seed 000 §2.12.2 surface
/// formats: YCRCB_NORMAL Y0 Cb Y1 Cr, YCRCB_SWAPUV Y0 Cr Y1 Cb, YCRCB_SWAPY Cb Y0 Cr Y1,
/// YCRCB_SWAPUVY Cr Y0 Cb Y1), or `None` for other formats.
fn ycrcb_luma(f: gtsim_spec::shared::SurfaceFormat) -> Option<(u64, u64)> {
    use gtsim_spec::shared::SurfaceFormat as F;
    match f {
        F::YCRCB_NORMAL | F::YCRCB_SWAPUV => Some((0, 2)),
        F::YCRCB_SWAPY | F::YCRCB_SWAPUVY => Some((1, 3)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 000 §3.6.2's table, for a surface of four rows (0 to 3) read from row −4 to
    /// row 7: each string is the row every read returns.
    #[test]
    fn boundary_behaviour_is_the_seeds_table() {
        let cases = [
            (MediaBoundary::Normal, None, "000001233333"),
            (MediaBoundary::Normal, Some(0), "000002222222"),
            (MediaBoundary::Normal, Some(1), "111113333333"),
            (MediaBoundary::ProgressiveFrame, None, "000001233333"),
            (MediaBoundary::ProgressiveFrame, Some(0), "000002333333"),
            (MediaBoundary::ProgressiveFrame, Some(1), "000013333333"),
            (MediaBoundary::InterlacedFrame, None, "010101232323"),
            (MediaBoundary::InterlacedFrame, Some(0), "000002222222"),
            (MediaBoundary::InterlacedFrame, Some(1), "111113333333"),
        ];
        for (boundary, field, expect) in cases {
            // The override reads the 4-row frame as a field (Height 3, stride 0 in the
            // surface state).
            let rows = Rows::new(
                MediaRows {
                    field: None,
                    boundary,
                },
                Some(field),
                4,
            )
            .unwrap();
            let got: String = (-4..8)
                .map(|r| char::from(b'0' + rows.read(r) as u8))
                .collect();
            assert_eq!(got, expect, "{boundary:?}, field {field:?}");
        }
    }

    #[test]
    fn field_writes_reach_every_second_row_and_drop_outside() {
        // A surface whose state says field (stride 1, offset 1) with Height + 1 = 2 rows:
        // the frame has 4; writes to field rows 0 and 1 reach frame rows 1 and 3.
        let rows = Rows::new(
            MediaRows {
                field: Some(1),
                boundary: MediaBoundary::Normal,
            },
            None,
            2,
        )
        .unwrap();
        let got: Vec<Option<u64>> = (-1..3).map(|r| rows.written(r)).collect();
        assert_eq!(got, [None, Some(1), Some(3), None]);
        // The override reads the same surface as the frame.
        let frame = Rows::new(
            MediaRows {
                field: Some(1),
                boundary: MediaBoundary::Normal,
            },
            Some(None),
            2,
        )
        .unwrap();
        assert_eq!(
            (0..5).map(|r| frame.written(r)).collect::<Vec<_>>(),
            [Some(0), Some(1), Some(2), Some(3), None]
        );
    }
}
