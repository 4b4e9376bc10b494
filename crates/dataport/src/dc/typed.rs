//! Typed Surface Read/Write and Typed Atomic Operation (seed 000 §3.9.9): SIMD8 over
//! SURFTYPE_1D, 2D, 3D and BUFFER surfaces, addressed by U, V, R and LOD (which of them
//! mean what depends on the surface type and Surface Array), converting between the
//! message's U32, S31 or float data and the surface format.

use super::atomic::{self, AtomicOp};
use super::space::{Kind, Space};
use super::untyped::param;
use super::{
    Access, DataMessage, DataOp, ImageView, Regs, Simd, Writeback, header_pixel_mask, short,
};
use gtsim_mem::format::texel::{self, NumericClass, Texel};
use gtsim_mem::layout::SurfaceType;
use gtsim_mem::surface::{Surface, TexelCoord};
use gtsim_message::{MessageError, Response};
use gtsim_spec::shared::SurfaceFormat;

/// "The Surface Format for typed surface reads must be" one of these (§3.9.9), and
/// R16_UINT and R8_UINT: Ivy Bridge reads those too, "undocumented behavior that typed
/// reads from surfaces of the unsupported R8 and R16 formats return useful data in
/// their least significant bits. However, the data in the high bits is garbage" (Mesa,
/// brw_nir_lower_storage_image.c, whose image lowering relies on it). The model
/// returns the texel zero-extended: the garbage is not reproducible.
const READ_FORMATS: [SurfaceFormat; 5] = [
    SurfaceFormat::R32_SINT,
    SurfaceFormat::R32_UINT,
    SurfaceFormat::R32_FLOAT,
    SurfaceFormat::R16_UINT,
    SurfaceFormat::R8_UINT,
];

/// "The Surface Format for typed surface writes must be" one of these (§3.9.9).
const WRITE_FORMATS: [SurfaceFormat; 46] = [
    SurfaceFormat::R32G32B32A32_FLOAT,
    SurfaceFormat::R32G32B32A32_SINT,
    SurfaceFormat::R32G32B32A32_UINT,
    SurfaceFormat::R16G16B16A16_UNORM,
    SurfaceFormat::R16G16B16A16_SNORM,
    SurfaceFormat::R16G16B16A16_SINT,
    SurfaceFormat::R16G16B16A16_UINT,
    SurfaceFormat::R16G16B16A16_FLOAT,
    SurfaceFormat::R32G32_FLOAT,
    SurfaceFormat::R32G32_SINT,
    SurfaceFormat::R32G32_UINT,
    SurfaceFormat::B8G8R8A8_UNORM,
    SurfaceFormat::R10G10B10A2_UNORM,
    SurfaceFormat::R10G10B10A2_UINT,
    SurfaceFormat::R8G8B8A8_UNORM,
    SurfaceFormat::R8G8B8A8_SNORM,
    SurfaceFormat::R8G8B8A8_SINT,
    SurfaceFormat::R8G8B8A8_UINT,
    SurfaceFormat::R16G16_UNORM,
    SurfaceFormat::R16G16_SNORM,
    SurfaceFormat::R16G16_SINT,
    SurfaceFormat::R16G16_UINT,
    SurfaceFormat::R16G16_FLOAT,
    SurfaceFormat::B10G10R10A2_UNORM,
    SurfaceFormat::R11G11B10_FLOAT,
    SurfaceFormat::R32_SINT,
    SurfaceFormat::R32_UINT,
    SurfaceFormat::R32_FLOAT,
    SurfaceFormat::B5G6R5_UNORM,
    SurfaceFormat::B5G5R5A1_UNORM,
    SurfaceFormat::B4G4R4A4_UNORM,
    SurfaceFormat::R8G8_UNORM,
    SurfaceFormat::R8G8_SNORM,
    SurfaceFormat::R8G8_SINT,
    SurfaceFormat::R8G8_UINT,
    SurfaceFormat::R16_UNORM,
    SurfaceFormat::R16_SNORM,
    SurfaceFormat::R16_SINT,
    SurfaceFormat::R16_UINT,
    SurfaceFormat::R16_FLOAT,
    SurfaceFormat::B5G5R5X1_UNORM,
    SurfaceFormat::R8_UNORM,
    SurfaceFormat::R8_SNORM,
    SurfaceFormat::R8_SINT,
    SurfaceFormat::R8_UINT,
    SurfaceFormat::A8_UNORM,
];

fn format_name(f: SurfaceFormat) -> String {
    f.name().map_or(format!("{:#x}", f.0), str::to_owned)
}

/// The texel slot `s` addresses, or `None` outside the surface. Seed 000 §3.9.9's
/// table: 1D: U = x (V = array index when arrayed); 2D: U = x, V = y (R = array
/// index when arrayed); 3D: U, V, R = x, y, z; BUFFER: U = index; LOD always last.
fn coord(
    surface: &Surface,
    array: bool,
    view: ImageView,
    regs: &Regs,
    s: usize,
    n_addr: usize,
) -> Option<TexelCoord> {
    let p = |i: usize| {
        if i < n_addr {
            param(regs, Simd::Simd8, i, s)
        } else {
            0
        }
    };
    let d = &surface.desc;
    if p(3) >= view.levels.max(1) {
        return None;
    }
    let lod = view.base_level + p(3);
    let minify = |v: u32| (v >> lod).max(1);
    let (x, y, slice) = match d.ty {
        SurfaceType::Buffer => (p(0), 0, 0),
        SurfaceType::D1 => (p(0), 0, if array { p(1) } else { 0 }),
        SurfaceType::D3 => (p(0), p(1), p(2)),
        _ => (p(0), p(1), if array { p(2) } else { 0 }),
    };
    let height = if matches!(d.ty, SurfaceType::Buffer | SurfaceType::D1) {
        1
    } else {
        minify(d.height)
    };
    // An array's slices count from Minimum Array Element, and the layout reaches
    // Minimum Array Element + Depth (the fronts lay it out so), so the view has the
    // layout's slices from there (and a 3D view's z where the generation offsets it,
    // `ImageView::base_slice_3d`). An index past them is out of bounds: a read returns
    // zero and a write is dropped (seed 000 §3.9 "Out-of-Bounds Accesses").
    let base = if array || (view.base_slice_3d && d.ty == SurfaceType::D3) {
        view.base_slice
    } else {
        0
    };
    let slices = match d.ty {
        SurfaceType::D3 => minify(d.depth).saturating_sub(base),
        _ if array => d.depth.saturating_sub(base),
        _ => 1,
    };
    (x < minify(d.width) && y < height && slice < slices).then_some(TexelCoord {
        x,
        y,
        slice: base + slice,
        lod,
        sample: 0,
    })
}

fn texel_error(e: impl std::fmt::Display) -> MessageError {
    gtsim_message::invalid(format!("typed surface message: {e}"))
}

pub(super) fn execute(
    msg: &DataMessage,
    regs: &Regs,
    exec_mask: u32,
    space: &mut Space,
) -> Result<Response, MessageError> {
    let DataOp::Typed {
        access,
        high,
        channels,
    } = msg.op
    else {
        unreachable!("typed::execute takes the typed messages");
    };
    // Whether a header is required is the generation's rule (Gen7's front refuses a
    // headerless typed message, seed 000 §3.9.9.9; Gen9+ sends them headerless).
    // SIMD8: the Slot Group picks the low or high 8 bits of the execution mask and of
    // the header's Pixel/Sample Mask, all set without a header (§3.9.9 "Execution
    // Mask").
    let slots = ((exec_mask & header_pixel_mask(regs)) >> if high { 8 } else { 0 }) & 0xff;
    let enabled: Vec<usize> = (0..4).filter(|&c| channels[c]).collect();
    if enabled.is_empty() && !matches!(access, Access::Atomic { .. }) {
        return Err(gtsim_message::invalid(
            "a typed surface message with all four channels masked (seed 000 §3.9.9.1)",
        ));
    }
    let data = match access {
        Access::Read => 0,
        Access::Write => enabled.len(),
        Access::Atomic { op, .. } => op.sources(),
    };
    let n_addr = regs.len().saturating_sub(data);
    if n_addr < 1 {
        return Err(short("typed surface message", data + 1, regs.len()));
    }
    let (surface, array, view) = match space.kind {
        Kind::Image {
            surface,
            array,
            view,
        } => (surface, array, view),
        // SURFTYPE_NULL: out of bounds everywhere.
        _ => {
            return Ok(match access {
                Access::Read => {
                    let mut wb = Writeback::new(enabled.len());
                    for s in (0..8).filter(|&s| slots >> s & 1 != 0) {
                        for k in 0..enabled.len() {
                            wb.put(k, s, 0);
                        }
                    }
                    wb.into_response()
                }
                Access::Atomic { ret: true, .. } => {
                    let mut wb = Writeback::new(1);
                    for s in (0..8).filter(|&s| slots >> s & 1 != 0) {
                        wb.put(0, s, 0);
                    }
                    wb.into_response()
                }
                _ => Response::default(),
            });
        }
    };
    let f = surface.format;
    let class = texel::numeric_class(f).map_err(texel_error)?;
    match access {
        Access::Read => {
            if !view.any_format_reads && !READ_FORMATS.contains(&f) {
                return Err(gtsim_message::invalid(format!(
                    "a typed surface read of a {} surface (seed 000 §3.9.9: reads take R32_SINT, R32_UINT or R32_FLOAT)",
                    format_name(f)
                )));
            }
            let mut wb = Writeback::new(enabled.len());
            for s in (0..8).filter(|&s| slots >> s & 1 != 0) {
                // Out of bounds: zero in every channel (the seed's errata to its "1 in
                // alpha").
                let t = match coord(&surface, array, view, regs, s, n_addr) {
                    Some(at) => surface.read_texel(&*space.mem, at).map_err(|error| {
                        MessageError::Texel {
                            what: format!("typed surface read slot {s}"),
                            error,
                        }
                    })?,
                    None => Texel::Uint([0; 4]),
                };
                let bits = match t {
                    Texel::Float(v) => v.map(f32::to_bits),
                    Texel::Uint(v) => v,
                    Texel::Sint(v) => v.map(|x| x as u32),
                };
                for (k, &c) in enabled.iter().enumerate() {
                    wb.put(k, s, bits[c]);
                }
            }
            Ok(wb.into_response())
        }
        Access::Write => {
            if !WRITE_FORMATS.contains(&f) {
                return Err(gtsim_message::invalid(format!(
                    "a typed surface write of a {} surface (seed 000 §3.9.9: not a typed write format)",
                    format_name(f)
                )));
            }
            for s in (0..8).filter(|&s| slots >> s & 1 != 0) {
                let Some(at) = coord(&surface, array, view, regs, s, n_addr) else {
                    continue;
                };
                let mut v = [0u32; 4];
                for (k, &c) in enabled.iter().enumerate() {
                    v[c] = param(regs, Simd::Simd8, n_addr + k, s);
                }
                // Masked channels keep the texel's old value.
                if enabled.len() < 4 {
                    let old = surface.read_texel(&*space.mem, at).map_err(|error| {
                        MessageError::Texel {
                            what: format!("typed surface write slot {s}"),
                            error,
                        }
                    })?;
                    let old = match old {
                        Texel::Float(o) => o.map(f32::to_bits),
                        Texel::Uint(o) => o,
                        Texel::Sint(o) => o.map(|x| x as u32),
                    };
                    for c in (0..4).filter(|&c| !channels[c]) {
                        v[c] = old[c];
                    }
                }
                // "SINT formats use S31, UINT formats use U32, and all other formats
                // use Float" (§3.9.9.10.7).
                let t = match class {
                    NumericClass::Uint => Texel::Uint(v),
                    NumericClass::Sint => Texel::Sint(v.map(|x| x as i32)),
                    _ => Texel::Float(v.map(f32::from_bits)),
                };
                surface
                    .write_texel(&mut *space.mem, at, t)
                    .map_err(|error| MessageError::Texel {
                        what: format!("typed surface write slot {s}"),
                        error,
                    })?;
            }
            Ok(Response::default())
        }
        Access::Atomic { op, ret } => {
            if !matches!(f, SurfaceFormat::R32_UINT | SurfaceFormat::R32_SINT) {
                return Err(gtsim_message::invalid(format!(
                    "a typed atomic on a {} surface (seed 000 §3.9.9: R32_UINT or R32_SINT only)",
                    format_name(f)
                )));
            }
            if op == AtomicOp::CmpWr8B {
                return Err(gtsim_message::invalid(
                    "Atomic Operation Type 0 is reserved for typed atomics (seed 000 §3.9.9.3)",
                ));
            }
            let mut wb = Writeback::new(1);
            for s in (0..8).filter(|&s| slots >> s & 1 != 0) {
                let r = match coord(&surface, array, view, regs, s, n_addr) {
                    Some(at) => {
                        let off = surface
                            .desc
                            .texel_offset(at.x, at.y, at.slice, at.lod, 0)
                            .map_err(texel_error)?;
                        let addr = surface.base.wrapping_add(off);
                        let fault = |fault| MessageError::Fault {
                            what: format!("typed atomic slot {s} at {addr:#x}"),
                            fault,
                        };
                        let old = space.mem.read_u32(addr).map_err(fault)?;
                        let src = |i: usize| param(regs, Simd::Simd8, n_addr + i, s);
                        let (new, r) = atomic::apply(op, old, src(0), src(1));
                        space.mem.write(addr, &new.to_le_bytes()).map_err(fault)?;
                        r
                    }
                    None => 0,
                };
                wb.put(0, s, r);
            }
            Ok(if ret {
                wb.into_response()
            } else {
                Response::default()
            })
        }
    }
}
