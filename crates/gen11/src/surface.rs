//! The surfaces Gen11 data port messages address: a binding table entry's
//! RENDER_SURFACE_STATE (seed 003 RENDER_SURFACE_STATE, 16 dwords) as the neutral
//! [`DataSurface`]: buffers (SURFTYPE_BUFFER, raw or of a format, with the typed view of
//! a formatted one), SURFTYPE_NULL, and 2D and 3D images with their mips and slices in
//! the Gen8+ layout (`ArraySpacing::QPitch`: slices Surface QPitch rows apart, 3D as 2D
//! arrays of its z slices), 1D images (the GFX9 1D layout); an image with a CCS is its
//! main surface, which holds the true values in this model. The layouts the sampler and
//! render targets share ([`layout`]) include multisampled surfaces (samples as slices,
//! or interleaved) and their MCS ([`mcs_surface`]); through the data port, multisampled
//! images and auxiliary modes other than CCS are refused by name.

use crate::bases::Bases;
use gtsim_dataport::dc::{DataSurface, ImageView};
use gtsim_mem::layout::{ArraySpacing, MsaaLayout, SurfaceDesc, SurfaceType};
use gtsim_mem::surface::Surface;
use gtsim_mem::tiling::Tiling;
use gtsim_message::MessageError;
use gtsim_pipe3d::state::read_indirect as indirect;
use gtsim_spec::gen11::RenderSurfaceState;
use gtsim_spec::gen11::render_surface_state::{
    AuxiliarySurfaceMode, NumberOfMultisamples, SurfaceType as St, SurfaceVerticalAlignment,
    TileMode,
};
use gtsim_spec::shared::SurfaceFormat;

/// The elements of a buffer surface (seed 003 RENDER_SURFACE_STATE Width, Height, Depth:
/// "for buffers ... the number of entries" - 1; Depth's 10 bits count for RAW, 7 for a
/// formatted buffer, per the seed's value ranges).
pub fn buffer_entries(s: &RenderSurfaceState) -> u64 {
    let depth_bits = if s.surface_format == SurfaceFormat::RAW {
        10
    } else {
        7
    };
    gtsim_mem::layout::buffer_entries(
        u32::from(s.width),
        u32::from(s.height),
        u32::from(s.depth),
        depth_bits,
    )
}

/// Refuses an ASTC surface by name. Seed 003 RENDER_SURFACE_STATE DW0 bit 27
/// ASTC_Enable: "the definition of Surface Format encoding will follow a new convention
/// defined by ASTC", in a table the seed does not include; Mesa's isl.h numbers those
/// formats 0x200 and up, the 9-bit Surface Format being their low bits
/// (ISL_FORMAT_ASTC_LDR_2D_5X5_FLT16 = 0x249). ASTC is not decoded yet, and reading the
/// field as a legacy format would name the wrong one.
pub(crate) fn refuse_astc(rss: &RenderSurfaceState) -> Result<(), MessageError> {
    if !rss.astc_enable {
        return Ok(());
    }
    Err(gtsim_spec::Unsupported::new(
        format!(
            "decoding an ASTC surface (ASTC_Enable with Surface Format {:#x}: Mesa isl.h format {:#x})",
            rss.surface_format.0,
            0x200 | rss.surface_format.0
        ),
        "seed 003 RENDER_SURFACE_STATE ASTC_Enable (the ASTC format table is not in the seeds)",
    )
    .into())
}

/// The surface at entry `bti` of the binding table at graphics address `table`, or the
/// bindless one `ex_desc` names (`crate::bases::surface_state_address`).
pub fn data_surface(
    mem: &dyn gtsim_mem::Memory,
    bases: &Bases,
    table: u64,
    bti: u8,
    ex_desc: u32,
) -> Result<DataSurface, MessageError> {
    let addr = crate::bases::surface_state_address(mem, bases, table, bti, ex_desc)
        .map_err(gtsim_pipe3d::draw::DrawError::into_message_error)?;
    let rss = indirect(
        mem,
        "RENDER_SURFACE_STATE",
        addr,
        RenderSurfaceState::DWORDS,
        RenderSurfaceState::unpack,
    )
    .map_err(gtsim_pipe3d::draw::DrawError::into_message_error)?;
    refuse_astc(&rss)?;
    Ok(match rss.surface_type {
        St::SURFTYPE_NULL => DataSurface::Null,
        // A buffer of any format: the untyped, block and scattered messages address its
        // bytes; typed messages need the typed view, which the Gen9+ layouts will give.
        St::SURFTYPE_BUFFER => DataSurface::Buffer {
            base: crate::bases::address(rss.surface_base_address),
            entries: buffer_entries(&rss),
            format: rss.surface_format,
            any_format_reads: true,
            typed: (rss.surface_format != SurfaceFormat::RAW)
                .then(|| {
                    let entries = buffer_entries(&rss) as u32;
                    layout(
                        &rss,
                        SurfaceType::Buffer,
                        (entries, 1, 1),
                        1,
                        ArraySpacing::Full,
                    )
                })
                .and_then(Result::ok),
        },
        St::SURFTYPE_1D | St::SURFTYPE_2D | St::SURFTYPE_3D => image(&rss, bti)?,
        other => {
            return Err(gtsim_spec::Unsupported::new(
                format!(
                    "data port access to a {} surface of format {} (binding table entry {bti}): the Gen9+ surface layouts are not modelled yet",
                    other.name().unwrap_or("reserved"),
                    rss.surface_format.name().unwrap_or("reserved"),
                ),
                "seed 003 RENDER_SURFACE_STATE",
            )
            .into());
        }
    })
}

/// Seed 003 RENDER_SURFACE_STATE DW5, the X Offset and Y Offset programming notes: an
/// origin other than the base is for one plain 2D image only. Either field must be zero
/// for a Surface Format of other than 8, 16, 32, 64 or 128 bits per element, a Surface
/// Type other than SURFTYPE_2D, a MIP Count / LOD not zero, more than one sample, a
/// Surface Array and an Auxiliary Surface Mode other than AUX_NONE; X Offset must be a
/// multiple of 8 with VALIGN_8, of 16 for 8-bit and of 8 for 16-bit elements. (The
/// linear-surface rule is [`layout`]'s; Render Target Rotation other than 0 degrees is
/// refused wherever it is read.) A surface that breaks one is a guest error naming the
/// rule: the hardware's origin there is not defined.
fn offset_rules(rss: &RenderSurfaceState) -> Result<(), MessageError> {
    if (rss.x_offset, rss.y_offset) == (0, 0) {
        return Ok(());
    }
    let bits =
        gtsim_mem::format::texel::layout(rss.surface_format).map_or(0, |l| l.bits_per_element);
    let x = u32::from(rss.x_offset) * 4;
    let broken = if ![8, 16, 32, 64, 128].contains(&bits) {
        Some(format!("a Surface Format of {bits} bits per element"))
    } else if rss.surface_type != St::SURFTYPE_2D {
        Some(format!(
            "Surface Type {}",
            rss.surface_type.name().unwrap_or("reserved")
        ))
    } else if rss.mip_count_lod != 0 {
        Some(format!("MIP Count / LOD {}", rss.mip_count_lod))
    } else if rss.number_of_multisamples != NumberOfMultisamples::MULTISAMPLECOUNT_1 {
        Some("more than one sample".into())
    } else if rss.surface_array {
        Some("Surface Array enabled".into())
    } else if rss.auxiliary_surface_mode != AuxiliarySurfaceMode::AUX_NONE {
        Some(format!(
            "Auxiliary Surface Mode {}",
            rss.auxiliary_surface_mode.name().unwrap_or("reserved")
        ))
    } else if rss.surface_vertical_alignment == SurfaceVerticalAlignment::VALIGN_8 && x % 8 != 0 {
        Some(format!(
            "VALIGN_8 and an X Offset of {x} pixels, not a multiple of 8"
        ))
    } else if bits == 8 && x % 16 != 0 {
        Some(format!(
            "8-bit elements and an X Offset of {x} pixels, not a multiple of 16"
        ))
    } else if bits == 16 && x % 8 != 0 {
        Some(format!(
            "16-bit elements and an X Offset of {x} pixels, not a multiple of 8"
        ))
    } else {
        None
    };
    match broken {
        None => Ok(()),
        Some(what) => Err(MessageError::State {
            structure: "RENDER_SURFACE_STATE",
            why: format!(
                "X Offset {} and Y Offset {} (pixels {x}, {}) with {what}: the offsets must be zero there (seed 003 RENDER_SURFACE_STATE DW5 X Offset and Y Offset programming notes)",
                rss.x_offset,
                rss.y_offset,
                u32::from(rss.y_offset) * 4
            ),
        }),
    }
}

/// The layout of `rss` as `ty`: `width` by `height` by `depth` (array layers or 3D
/// slices), `levels` levels, slices `spacing` apart.
pub(crate) fn layout(
    rss: &RenderSurfaceState,
    ty: SurfaceType,
    (width, height, depth): (u32, u32, u32),
    levels: u32,
    spacing: ArraySpacing,
) -> Result<Surface, MessageError> {
    let tiling = match rss.tile_mode {
        TileMode::LINEAR => Tiling::Linear,
        TileMode::WMAJOR => Tiling::W,
        TileMode::XMAJOR => Tiling::X,
        TileMode::YMAJOR => Tiling::Y,
        other => {
            return Err(gtsim_spec::Unsupported::new(
                format!(
                    "data port access to a {} surface",
                    other.name().unwrap_or("reserved Tile Mode")
                ),
                "seed 003 RENDER_SURFACE_STATE Tile Mode",
            )
            .into());
        }
    };
    // A tiled 1D surface is laid out as a 2D one of height 1 (Mesa isl
    // isl_surf_choose_dim_layout, quoting the Skylake PRM's 1D Surfaces: "a 1D surface
    // can be defined as a 2D tiled surface (e.g. TileY or TileX) with a height of 0";
    // ISL_DIM_LAYOUT_GFX9_1D is only for linear ones).
    let ty = if ty == SurfaceType::D1 && tiling != Tiling::Linear {
        SurfaceType::D2
    } else {
        ty
    };
    // Seed 003 Surface Horizontal/Vertical Alignment: 4, 8 or 16 (0 is reserved).
    let align = |code: u32| 2u32 << code.clamp(1, 3);
    let (samples, msaa_layout) = multisampling(rss)?;
    let desc = SurfaceDesc {
        ty,
        width,
        height,
        depth,
        levels,
        samples,
        msaa_layout,
        // A linear 1D surface's LODs are 64 elements apart whatever Surface Horizontal
        // Alignment says (Mesa isl_gfx9_choose_image_alignment_el, from the Skylake
        // BSpec's "1D Alignment Requirements"; the QPitch isl programs for a 1D array,
        // the row of all its LODs, confirms it).
        halign: if ty == SurfaceType::D1 {
            64
        } else {
            align(rss.surface_horizontal_alignment.0)
        },
        valign: align(rss.surface_vertical_alignment.0),
        array_spacing: spacing,
        block: (1, 1),
        block_bytes: 1,
        tiling,
        // A linear 1D surface (Mesa isl's GFX9 1D layout) has its slices in rows QPitch
        // elements long, whose Surface Pitch the hardware ignores (isl programs 0):
        // the row pitch is QPitch elements (`SurfaceDesc::image_origin`); a QPitch of 0
        // (one slice) leaves a row as long as its LODs reach. Elsewhere Surface Pitch + 1
        // bytes: the row pitch, or a buffer's element stride (Mesa isl_buffer_fill_state
        // programs stride - 1).
        pitch: if ty == SurfaceType::D1 {
            let bits = gtsim_mem::format::texel::layout(rss.surface_format)
                .map_or(8, |l| l.bits_per_element);
            let texels = match spacing {
                ArraySpacing::QPitch(q) if q > 0 => u64::from(q),
                _ => 2 * u64::from(width) + 64 * u64::from(levels),
            };
            texels * u64::from(bits.div_ceil(8))
        } else if tiling == Tiling::W {
            w_major_pitch(rss.surface_pitch.into())
        } else {
            u64::from(rss.surface_pitch) + 1
        },
        // Seed 003 RENDER_SURFACE_STATE DW5: X Offset is PixelOffset[8:2] and Y Offset
        // RowOffset[4:2] ("in multiples of 4"); both must be zero on a linear surface.
        origin: (u32::from(rss.x_offset) * 4, u32::from(rss.y_offset) * 4),
    };
    if tiling == Tiling::Linear && desc.origin != (0, 0) {
        return Err(MessageError::State {
            structure: "RENDER_SURFACE_STATE",
            why: format!(
                "X Offset {} and Y Offset {} on a linear surface: \"For linear surfaces, this field must be zero\" (seed 003 RENDER_SURFACE_STATE DW5)",
                rss.x_offset, rss.y_offset
            ),
        });
    }
    offset_rules(rss)?;
    // Ice Lake's formats: Mesa's ×10 generation 110 (`caps_on`).
    let mut surface = Surface::new_on(
        crate::bases::address(rss.surface_base_address),
        desc,
        rss.surface_format,
        110,
    )
    .map_err(|e| MessageError::State {
        structure: "RENDER_SURFACE_STATE",
        why: e.to_string(),
    })?;
    // Gen9+ counts the alignments of a compressed format in blocks (Mesa
    // isl_gfx9_choose_image_alignment_el: "the alignment is in units of surface
    // elements", a compression block each; HALIGN_4 is four blocks, 16 texels of BC1).
    let (bw, bh) = surface.desc.block;
    if (bw, bh) != (1, 1) && ty != SurfaceType::D1 {
        surface.desc.halign *= bw;
        surface.desc.valign *= bh;
    }
    Ok(surface)
}

/// The W-major row's bytes of a W-tiled (stencil) surface from its programmed Surface
/// Pitch (bytes - 1): half of it, "the pitch must be set to 2x the value computed based
/// on width, as the stencil buffer is stored with two rows interleaved" (the Broadwell
/// PRM's RENDER_SURFACE_STATE Surface Pitch, as Mesa's isl quotes it; isl describes the
/// 64x64-byte W tile as a 128x32-byte one and programs that row pitch in
/// 3DSTATE_STENCIL_BUFFER and RENDER_SURFACE_STATE alike, on every generation).
pub(crate) fn w_major_pitch(surface_pitch: u64) -> u64 {
    let programmed_bytes = surface_pitch + 1;
    programmed_bytes / 2
}

/// Seed 003 RENDER_SURFACE_STATE Number of Multisamples (MULTISAMPLECOUNT_1 to _16) and
/// Multisampled Surface Storage Format: MSFMT_MSS keeps each sample as an array slice
/// (physical slice = slice * samples + sample), MSFMT_DEPTH_STENCIL interleaves the
/// samples in the plane.
pub(crate) fn multisampling(rss: &RenderSurfaceState) -> Result<(u32, MsaaLayout), MessageError> {
    let samples = match rss.number_of_multisamples.0 {
        n @ 0..=4 => 1u32 << n,
        other => {
            return Err(MessageError::State {
                structure: "RENDER_SURFACE_STATE",
                why: format!("Number of Multisamples {other} is reserved"),
            });
        }
    };
    // Multisampled Surface Storage Format 1: MSFMT_DEPTH_STENCIL.
    let layout = if samples > 1 && rss.multisampled_surface_storage_format.0 == 1 {
        MsaaLayout::Interleaved
    } else {
        MsaaLayout::Array
    };
    Ok((samples, layout))
}

/// The multisample control surface of multisampled `main` (seed 003 RENDER_SURFACE_STATE
/// Auxiliary Surface Mode: with Number of Multisamples > 1, AUX_CCS_D and AUX_CCS_E
/// "indicate that the auxiliary surface is a multisample control surface (MCS)"): at
/// Auxiliary Surface Base Address, Y-tiled, Auxiliary Surface Pitch + 1 tiles (of 128
/// bytes) wide, slices Auxiliary Surface QPitch rows apart, "Surface Horizontal
/// Alignment of 16 and Surface Vertical Alignment of 4", and the main surface's width,
/// height, slices and levels; one element per pixel, 8 bits for 2x and 4x, 32 bits for
/// 8x and 64 bits for 16x (log2(samples) bits per sample; Mesa isl
/// ISL_FORMAT_MCS_2X/4X/8X/16X), read as R8_UINT, R32_UINT and R32G32_UINT. `None`
/// without one.
pub(crate) fn mcs_surface(
    rss: &RenderSurfaceState,
    main: &Surface,
) -> Option<Result<Surface, MessageError>> {
    let samples = main.desc.samples;
    let mcs = matches!(
        rss.auxiliary_surface_mode,
        AuxiliarySurfaceMode::AUX_CCS_D | AuxiliarySurfaceMode::AUX_CCS_E
    );
    if samples < 2 || !mcs || main.desc.msaa_layout != MsaaLayout::Array {
        return None;
    }
    // A multisampled surface with X Offset or Y Offset is refused by `layout` (seed 003
    // DW5: the offsets must be zero with more than one sample and with an auxiliary
    // surface); a main surface laid out some other way is refused here too.
    if main.desc.origin != (0, 0) {
        return Some(Err(MessageError::Unsupported(
            gtsim_spec::Unsupported::new(
                "an MCS for a surface with X Offset or Y Offset",
                "seed 003 RENDER_SURFACE_STATE X Offset, Auxiliary Surface Base Address",
            ),
        )));
    }
    let (bytes, format) = match samples {
        16 => (8, SurfaceFormat::R32G32_UINT),
        8 => (4, SurfaceFormat::R32_UINT),
        _ => (1, SurfaceFormat::R8_UINT),
    };
    let desc = SurfaceDesc {
        samples: 1,
        halign: 16,
        valign: 4,
        array_spacing: ArraySpacing::QPitch(u32::from(rss.auxiliary_surface_qpitch) << 2),
        block: (1, 1),
        block_bytes: bytes,
        tiling: Tiling::Y,
        pitch: (u64::from(rss.auxiliary_surface_pitch) + 1) * 128,
        ..main.desc
    };
    Some(
        Surface::new(
            crate::bases::address(rss.auxiliary_surface_base_address),
            desc,
            format,
        )
        .map_err(|e| MessageError::State {
            structure: "RENDER_SURFACE_STATE",
            why: format!("the MCS (Auxiliary Surface Base Address, Pitch, QPitch): {e}"),
        }),
    )
}

/// A CCS or MCS surface's clear value: with Clear Value Address Enable, the four raw
/// dwords at Clear Color Address (bits 47:6, High holding 47:32; iris writes them with
/// MI_STORE_DATA_IMM or MI_ATOMIC before the clear); otherwise Red/Green/Blue/Alpha
/// Clear Color in DW12-15 (seed 003 RENDER_SURFACE_STATE).
pub(crate) fn clear_value(
    mem: &dyn gtsim_mem::Memory,
    rss: &RenderSurfaceState,
) -> Result<[u32; 4], gtsim_mem::Fault> {
    if !rss.clear_value_address_enable {
        return Ok([
            rss.red_clear_color as u32,
            rss.green_clear_color as u32,
            rss.blue_clear_color as u32,
            rss.alpha_clear_color as u32,
        ]);
    }
    let at = clear_color_address(rss).unwrap_or_default();
    let dw = mem.read_dwords(at, 4)?;
    Ok([dw[0], dw[1], dw[2], dw[3]])
}

/// With Clear Value Address Enable, the graphics address of the surface's clear value
/// (Clear Color Address bits 47:6, High holding 47:32).
pub(crate) fn clear_color_address(rss: &RenderSurfaceState) -> Option<u64> {
    rss.clear_value_address_enable.then(|| {
        crate::bases::address(
            (rss.clear_color_address & 0xffff_ffc0) | u64::from(rss.clear_color_address_high) << 32,
        )
    })
}

/// A 1D, 2D or 3D image as the typed messages address it. As Mesa's isl programs storage
/// images on Gen9+ (isl_surface_state.c: a non-render-target view has Surface Min LOD
/// its base level and MIP Count / LOD its levels - 1; Minimum Array Element its first
/// layer, or z slice of a 3D image), the view is MIP Count / LOD + 1 levels from Surface
/// Min LOD and its slices from Minimum Array Element; slices are Surface QPitch rows
/// apart (seed 003: U15[16:2], the rows' bits 16:2).
fn image(rss: &RenderSurfaceState, bti: u8) -> Result<DataSurface, MessageError> {
    let refuse = |what: String| -> MessageError {
        gtsim_spec::Unsupported::new(
            format!("{what} (binding table entry {bti})"),
            "seed 003 RENDER_SURFACE_STATE",
        )
        .into()
    };
    if rss.number_of_multisamples != NumberOfMultisamples::MULTISAMPLECOUNT_1 {
        return Err(refuse("a multisampled image through the data port".into()));
    }
    // CCS_D and CCS_E hold no data the model needs: the main surface always has the
    // true values (a fast clear stores its value there at once, `draw/output.rs`).
    if !matches!(
        rss.auxiliary_surface_mode,
        AuxiliarySurfaceMode::AUX_NONE
            | AuxiliarySurfaceMode::AUX_CCS_D
            | AuxiliarySurfaceMode::AUX_CCS_E
    ) {
        return Err(refuse(format!(
            "data port access to an image with an auxiliary surface ({}): the main surface may not hold the data",
            rss.auxiliary_surface_mode.name().unwrap_or("reserved")
        )));
    }
    // Mesa's isl programs a storage image, a non-render-target view, as Surface Min
    // LOD its base level and MIP Count / LOD its levels - 1 (isl_surface_state.c: "For
    // non render target surfaces, the hardware interprets field MIPCount/LOD as
    // MIPCount"); a typed message's LOD counts from Surface Min LOD.
    let level = u32::from(rss.surface_min_lod);
    let view_levels = u32::from(rss.mip_count_lod) + 1;
    // Depth counts the view's slices from Minimum Array Element (for arrays; a 3D
    // surface's Depth is its z count): the layout reaches both.
    let depth = if rss.surface_type == St::SURFTYPE_3D {
        u32::from(rss.depth) + 1
    } else {
        u32::from(rss.depth) + 1 + u32::from(rss.minimum_array_element)
    };
    let ty = match rss.surface_type {
        St::SURFTYPE_1D => SurfaceType::D1,
        St::SURFTYPE_3D => SurfaceType::D3,
        _ => SurfaceType::D2,
    };
    let qpitch = u32::from(rss.surface_qpitch) << 2;
    let height = if ty == SurfaceType::D1 {
        1
    } else {
        u32::from(rss.height) + 1
    };
    let surface = layout(
        rss,
        ty,
        (u32::from(rss.width) + 1, height, depth),
        level + view_levels,
        ArraySpacing::QPitch(qpitch),
    )?;
    Ok(DataSurface::Image {
        surface,
        array: rss.surface_array,
        view: ImageView {
            base_level: level,
            levels: view_levels,
            base_slice: u32::from(rss.minimum_array_element),
            any_format_reads: true,
            base_slice_3d: true,
            ..Default::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gtsim_mem::{AddressSpace, Memory};
    use gtsim_spec::gen11::render_surface_state::{
        SurfaceHorizontalAlignment as Ha, SurfaceVerticalAlignment as Va,
    };

    /// A binding table at 0x1000 whose entry 0 points at `rss` (0x1100), Surface State
    /// Base 0.
    fn bound(rss: RenderSurfaceState) -> (AddressSpace, Bases) {
        let mut m = AddressSpace::new();
        m.map(0x1000, 0x1000);
        m.write_u32(0x1000, 0x1100).unwrap();
        let dw = rss.pack().unwrap();
        let bytes: Vec<u8> = dw.iter().flat_map(|d| d.to_le_bytes()).collect();
        m.write(0x1100, &bytes).unwrap();
        (m, Bases::default())
    }

    /// A storage view as isl programs it: a 64x32 R32_UINT 2D array of 6 layers, Y-tiled,
    /// HALIGN 16 / VALIGN 4, QPitch field 12 (48 rows), viewing level 2 (Surface Min LOD,
    /// one level: MIP Count / LOD 0) from layer 3.
    #[test]
    fn a_mipmapped_array_image_is_seen_at_its_level_and_layer() {
        let (m, bases) = bound(RenderSurfaceState {
            surface_type: St::SURFTYPE_2D,
            surface_array: true,
            surface_format: SurfaceFormat::R32_UINT,
            surface_horizontal_alignment: Ha::HALIGN_16,
            surface_vertical_alignment: Va::VALIGN_4,
            tile_mode: TileMode::YMAJOR,
            width: 63,
            height: 31,
            depth: 5,
            surface_pitch: 255,
            surface_qpitch: 12,
            surface_min_lod: 2,
            minimum_array_element: 3,
            surface_base_address: 0xffff_8000_0010_0000,
            ..Default::default()
        });
        let DataSurface::Image {
            surface,
            array,
            view,
        } = data_surface(&m, &bases, 0x1000, 0, 0).unwrap()
        else {
            panic!("an image");
        };
        assert!(array);
        assert_eq!((view.base_level, view.levels, view.base_slice), (2, 1, 3));
        assert_eq!(
            surface.base, 0x8000_0010_0000,
            "the canonical address, 48 bits"
        );
        let d = surface.desc;
        // The view's 6 layers from layer 3: the layout reaches layer 9.
        assert_eq!((d.width, d.height, d.depth, d.levels), (64, 32, 9, 3));
        assert_eq!((d.halign, d.valign, d.tiling), (16, 4, Tiling::Y));
        assert_eq!(d.array_spacing, ArraySpacing::QPitch(48));
        // Layer 3's level 2 (16x8): below level 0 (32 rows), right of level 1 (32
        // wide), 3 × 48 rows down.
        assert_eq!(d.image_origin(3, 2).unwrap(), (32, 3 * 48 + 32));
    }

    /// X Offset and Y Offset (seed 003 RENDER_SURFACE_STATE DW5, both in multiples of
    /// 4): X Offset 3 and Y Offset 5 put a Y-tiled surface's origin 12 texels right and
    /// 20 rows down of its base; on a linear surface they are refused.
    #[test]
    fn x_and_y_offset_move_the_origin_of_a_tiled_surface() {
        let mut rss = RenderSurfaceState {
            surface_type: St::SURFTYPE_2D,
            surface_format: SurfaceFormat::R32_UINT,
            surface_horizontal_alignment: Ha::HALIGN_4,
            surface_vertical_alignment: Va::VALIGN_4,
            tile_mode: TileMode::YMAJOR,
            width: 15,
            height: 7,
            surface_pitch: 127,
            x_offset: 3,
            y_offset: 5,
            ..Default::default()
        };
        let spacing = ArraySpacing::QPitch(8);
        let s = layout(&rss, SurfaceType::D2, (16, 8, 1), 1, spacing).unwrap();
        assert_eq!(s.desc.origin, (12, 20));
        // Texel (0, 0): byte 48 of row 20, OWord column 3 of the Y tile: 3 * 512 + 20 * 16.
        assert_eq!(s.desc.texel_offset(0, 0, 0, 0, 0).unwrap(), 3 * 512 + 320);
        rss.tile_mode = TileMode::LINEAR;
        let e = layout(&rss, SurfaceType::D2, (16, 8, 1), 1, spacing).unwrap_err();
        assert!(e.to_string().contains("X Offset 3 and Y Offset 5"), "{e}");
    }

    /// An auxiliary surface the model does not keep (HiZ on a colour image) is refused,
    /// by name; a CCS is not.
    /// A 4x MSS render target with AUX_CCS_D: its MCS is at the Auxiliary Surface Base
    /// Address, (Auxiliary Surface Pitch + 1) Y tiles of 128 bytes wide, slices
    /// Auxiliary Surface QPitch * 4 rows apart, aligned 16x4, one byte per pixel (8x:
    /// four), with the main surface's size and slices (seed 003 RENDER_SURFACE_STATE
    /// Auxiliary Surface Mode programming notes).
    #[test]
    fn a_multisampled_surface_has_its_mcs() {
        // Each variant's main surface: 100x50, three slices 52 rows apart.
        let lay = |rss: &RenderSurfaceState| {
            layout(
                rss,
                SurfaceType::D2,
                (100, 50, 3),
                1,
                ArraySpacing::QPitch(52),
            )
            .unwrap()
        };
        let rss = RenderSurfaceState {
            surface_type: St::SURFTYPE_2D,
            surface_format: SurfaceFormat::R8G8B8A8_UNORM,
            width: 99,
            height: 49,
            depth: 2,
            tile_mode: TileMode::YMAJOR,
            surface_pitch: 511,
            surface_qpitch: 13,
            number_of_multisamples: NumberOfMultisamples::MULTISAMPLECOUNT_4,
            auxiliary_surface_mode: AuxiliarySurfaceMode::AUX_CCS_D,
            auxiliary_surface_base_address: 0x40_0000,
            auxiliary_surface_pitch: 0,
            auxiliary_surface_qpitch: 16,
            ..Default::default()
        };
        let main = lay(&rss);
        assert_eq!(
            (main.desc.samples, main.desc.msaa_layout),
            (4, MsaaLayout::Array)
        );
        let mcs = mcs_surface(&rss, &main).unwrap().unwrap();
        assert_eq!(mcs.base, 0x40_0000);
        assert_eq!(mcs.format, SurfaceFormat::R8_UINT);
        let d = mcs.desc;
        assert_eq!((d.width, d.height, d.depth, d.samples), (100, 50, 3, 1));
        assert_eq!(
            (d.pitch, d.halign, d.valign, d.block_bytes),
            (128, 16, 4, 1)
        );
        assert_eq!((d.tiling, d.qpitch()), (Tiling::Y, 64));
        // 8x: 32-bit elements.
        let eight = RenderSurfaceState {
            number_of_multisamples: NumberOfMultisamples::MULTISAMPLECOUNT_8,
            ..rss.clone()
        };
        let main8 = lay(&eight);
        let mcs8 = mcs_surface(&eight, &main8).unwrap().unwrap();
        assert_eq!(
            (mcs8.format, mcs8.desc.block_bytes),
            (SurfaceFormat::R32_UINT, 4)
        );
        // Single-sampled, its CCS is no MCS; 16 samples take 64-bit elements.
        let single = RenderSurfaceState {
            number_of_multisamples: NumberOfMultisamples::MULTISAMPLECOUNT_1,
            ..rss.clone()
        };
        let main1 = lay(&single);
        assert!(mcs_surface(&single, &main1).is_none());
        let sixteen = RenderSurfaceState {
            number_of_multisamples: NumberOfMultisamples::MULTISAMPLECOUNT_16,
            ..rss
        };
        let main16 = lay(&sixteen);
        assert_eq!(main16.desc.samples, 16);
        let mcs16 = mcs_surface(&sixteen, &main16).unwrap().unwrap();
        assert_eq!(
            (mcs16.format, mcs16.desc.block_bytes),
            (SurfaceFormat::R32G32_UINT, 8)
        );
        // With X Offset a multisampled surface is refused (the offsets must be zero
        // with more than one sample), before any MCS is looked for.
        let offset = RenderSurfaceState {
            x_offset: 1,
            ..eight.clone()
        };
        let e = layout(
            &offset,
            SurfaceType::D2,
            (100, 50, 3),
            1,
            ArraySpacing::QPitch(52),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("with more than one sample: the offsets must be zero"),
            "{e}"
        );
    }

    /// Seed 003 RENDER_SURFACE_STATE DW5, the X Offset and Y Offset programming notes:
    /// each case below breaks one rule and is refused naming it; the same surfaces
    /// without the offending setting lay out.
    #[test]
    fn offsets_are_refused_where_the_seed_says_they_must_be_zero() {
        let base = RenderSurfaceState {
            surface_type: St::SURFTYPE_2D,
            surface_format: SurfaceFormat::R32_UINT,
            surface_horizontal_alignment: Ha::HALIGN_4,
            surface_vertical_alignment: Va::VALIGN_4,
            tile_mode: TileMode::YMAJOR,
            width: 63,
            height: 63,
            surface_pitch: 511,
            x_offset: 1,
            y_offset: 1,
            ..Default::default()
        };
        let lay = |rss: &RenderSurfaceState| {
            layout(
                rss,
                SurfaceType::D2,
                (64, 64, 1),
                1,
                ArraySpacing::QPitch(64),
            )
        };
        lay(&base).unwrap();
        let with = |f: &dyn Fn(&mut RenderSurfaceState)| {
            let mut r = base.clone();
            f(&mut r);
            r
        };
        let refused = [
            (
                with(&|r| r.surface_format = SurfaceFormat::R8G8B8_UNORM),
                "a Surface Format of 24 bits per element",
            ),
            (
                with(&|r| r.surface_type = St::SURFTYPE_3D),
                "Surface Type SURFTYPE_3D",
            ),
            (with(&|r| r.mip_count_lod = 2), "MIP Count / LOD 2"),
            (with(&|r| r.surface_array = true), "Surface Array enabled"),
            (
                with(&|r| r.auxiliary_surface_mode = AuxiliarySurfaceMode::AUX_CCS_E),
                "Auxiliary Surface Mode AUX_CCS_E",
            ),
            (
                with(&|r| r.surface_vertical_alignment = Va::VALIGN_8),
                "VALIGN_8 and an X Offset of 4 pixels",
            ),
            (
                with(&|r| r.surface_format = SurfaceFormat::R8_UINT),
                "8-bit elements and an X Offset of 4 pixels",
            ),
            (
                with(&|r| r.surface_format = SurfaceFormat::R16_UINT),
                "16-bit elements and an X Offset of 4 pixels",
            ),
        ];
        for (rss, rule) in &refused {
            let e = lay(rss).unwrap_err();
            assert!(
                e.to_string().contains(rule) && e.to_string().contains("programming notes"),
                "{rule}: {e}"
            );
        }
        // The multiples the element sizes ask for lay out: 16 pixels of 8-bit elements,
        // 8 of 16-bit ones, 8 with VALIGN_8.
        lay(&with(&|r| {
            r.surface_format = SurfaceFormat::R8_UINT;
            r.x_offset = 4;
        }))
        .unwrap();
        lay(&with(&|r| {
            r.surface_format = SurfaceFormat::R16_UINT;
            r.x_offset = 2;
        }))
        .unwrap();
        lay(&with(&|r| {
            r.surface_vertical_alignment = Va::VALIGN_8;
            r.x_offset = 2;
        }))
        .unwrap();
    }

    /// SSO_BINDLESS (binding table index FCh): the surface state is at Bindless Surface
    /// State Base Address plus the extended descriptor's bits 31:12 as offset bits 25:6
    /// (seed 003 DP_EXTDESC_BTI252), as anv's handles are made (offset << 6). Worked by
    /// hand: a surface state at offset 0x140 of a heap at 0x20_0000 has handle 0x5000.
    #[test]
    fn a_bindless_surface_is_found_through_the_extended_descriptor() {
        let mut m = AddressSpace::new();
        m.map(0x20_0000, 0x1000);
        let rss = RenderSurfaceState {
            surface_type: St::SURFTYPE_BUFFER,
            surface_format: SurfaceFormat::RAW,
            width: 0x7f,
            surface_base_address: 0x30_0000,
            ..Default::default()
        };
        let bytes: Vec<u8> = rss
            .pack()
            .unwrap()
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect();
        m.write(0x20_0140, &bytes).unwrap();
        let bases = Bases {
            bindless_surface: 0x20_0000,
            ..Bases::default()
        };
        let Ok(DataSurface::Buffer { base, entries, .. }) =
            data_surface(&m, &bases, 0x1000, 0xfc, 0x140 << 6)
        else {
            panic!("the bindless buffer");
        };
        assert_eq!((base, entries), (0x30_0000, 0x80));
        // The extended descriptor's low 12 bits (the SFID and lengths of a `sends`) are
        // not part of the offset.
        assert!(data_surface(&m, &bases, 0x1000, 0xfc, 0x140 << 6 | 0xa5c).is_ok());
        // Reserved indices are refused by name, not read as binding table entries.
        let e = data_surface(&m, &bases, 0x1000, 0xf5, 0).unwrap_err();
        assert!(e.to_string().contains("reserved"), "{e}");
    }

    #[test]
    fn aux_surfaces_other_than_ccs_are_refused() {
        let hiz = RenderSurfaceState {
            surface_type: St::SURFTYPE_2D,
            surface_format: SurfaceFormat::R32_UINT,
            width: 63,
            height: 31,
            auxiliary_surface_mode: AuxiliarySurfaceMode::AUX_HIZ,
            ..Default::default()
        };
        let (m, bases) = bound(hiz.clone());
        let e = data_surface(&m, &bases, 0x1000, 0, 0).unwrap_err();
        assert!(e.to_string().contains("auxiliary"), "{e}");
        // A CCS_E image is its main surface (which holds the true values).
        let ccs = RenderSurfaceState {
            auxiliary_surface_mode: AuxiliarySurfaceMode::AUX_CCS_E,
            ..hiz
        };
        let (m, bases) = bound(ccs);
        assert!(matches!(
            data_surface(&m, &bases, 0x1000, 0, 0),
            Ok(DataSurface::Image { .. })
        ));
    }

    /// The GFX9 1D layout (Mesa isl ISL_DIM_LAYOUT_GFX9_1D): a linear 16-texel R32_UINT
    /// 1D array of 2 layers and 3 levels, as isl lays it out: the LODs of a layer side
    /// by side, each 64 texels apart whatever the Surface Horizontal Alignment (level 1
    /// at x 64, level 2 at x 128), a layer's row 3 * 64 = 192 texels, which isl programs
    /// as QPitch (field 48) with Surface Pitch 0. Viewed at level 2 of layer 1, texel 3
    /// is texel 192 + 128 + 3 = 323 of the surface.
    #[test]
    fn one_d_arrays_with_mips_lie_in_one_row() {
        let (m, bases) = bound(RenderSurfaceState {
            surface_type: St::SURFTYPE_1D,
            surface_array: true,
            surface_format: SurfaceFormat::R32_UINT,
            surface_horizontal_alignment: Ha::HALIGN_16,
            surface_vertical_alignment: Va::VALIGN_4,
            width: 15,
            depth: 1,
            surface_qpitch: 48,
            surface_min_lod: 2,
            minimum_array_element: 1,
            ..Default::default()
        });
        let DataSurface::Image { surface, view, .. } =
            data_surface(&m, &bases, 0x1000, 0, 0).unwrap()
        else {
            panic!("an image");
        };
        assert_eq!((view.base_level, view.base_slice), (2, 1));
        assert_eq!(surface.desc.texel_offset(3, 0, 1, 2, 0), Ok(323 * 4));
        assert_eq!(surface.desc.texel_offset(0, 0, 0, 1, 0), Ok(64 * 4));
    }

    /// Gen9+ counts a compressed format's alignments in blocks: a linear 16x16 BC1
    /// surface (8-byte 4x4 blocks) with HALIGN_4 and VALIGN_4 aligns its LODs to 16
    /// texels: LOD1 (8x8) below LOD0 at y 16, LOD2 (4x4) right of LOD1 at x 16 (LOD1's
    /// 8 texels aligned to 16), so LOD2's first block is block (4, 4): 4 block rows of
    /// the 64-byte pitch and 4 blocks of 8 bytes in.
    #[test]
    fn compressed_alignment_counts_blocks() {
        let rss = RenderSurfaceState {
            surface_type: St::SURFTYPE_2D,
            surface_format: SurfaceFormat::BC1_UNORM,
            surface_horizontal_alignment: Ha::HALIGN_4,
            surface_vertical_alignment: Va::VALIGN_4,
            width: 15,
            height: 15,
            surface_pitch: 63,
            ..Default::default()
        };
        let s = layout(
            &rss,
            SurfaceType::D2,
            (16, 16, 1),
            3,
            ArraySpacing::QPitch(16),
        )
        .unwrap();
        assert_eq!((s.desc.halign, s.desc.valign), (16, 16));
        assert_eq!(s.desc.texel_offset(0, 0, 0, 1, 0), Ok(4 * 64));
        assert_eq!(s.desc.texel_offset(0, 0, 0, 2, 0), Ok(4 * 64 + 4 * 8));
    }

    /// ETC2 and EAC are Ice Lake formats (seed 003 SURFACE_FORMAT 1AAh, 1C2h; Mesa isl:
    /// sampled from Gen8), 4x4 blocks of 8 and 16 bytes, refused on Ivy Bridge.
    #[test]
    fn etc2_surfaces_are_ice_lake_formats() {
        for (format, bytes) in [
            (SurfaceFormat::ETC2_RGB8, 8),
            (SurfaceFormat::ETC2_EAC_RGBA8, 16),
            (SurfaceFormat::EAC_RG11, 16),
        ] {
            let rss = RenderSurfaceState {
                surface_type: St::SURFTYPE_2D,
                surface_format: format,
                surface_horizontal_alignment: Ha::HALIGN_4,
                surface_vertical_alignment: Va::VALIGN_4,
                width: 15,
                height: 15,
                surface_pitch: 63,
                ..Default::default()
            };
            let s = layout(
                &rss,
                SurfaceType::D2,
                (16, 16, 1),
                1,
                ArraySpacing::QPitch(16),
            )
            .unwrap();
            assert_eq!((s.desc.block, s.desc.block_bytes), ((4, 4), bytes));
            assert!(Surface::new(0, s.desc, format).is_err());
        }
    }

    /// A W-tiled stencil surface of 100x80 R8_UINT programmed, as isl programs it, with
    /// Surface Pitch 255 (twice the 128-byte W-major row, two 64x64 tiles across): row 64
    /// starts the second tile row, 128 * 64 bytes on; byte (70, 3) is in the second tile
    /// (4096), 8x8 block (6 / 8 = 0 across, 3 / 8 = 0 down) at x0 y0 x1 y1 x2 y2
    /// interleaving of (6, 3): 0 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4 = 30.
    #[test]
    fn w_tiled_surfaces_take_half_their_programmed_pitch() {
        let rss = RenderSurfaceState {
            surface_type: St::SURFTYPE_2D,
            surface_format: SurfaceFormat::R8_UINT,
            tile_mode: TileMode::WMAJOR,
            width: 99,
            height: 79,
            surface_pitch: 255,
            ..Default::default()
        };
        let s = layout(
            &rss,
            SurfaceType::D2,
            (100, 80, 1),
            1,
            ArraySpacing::QPitch(80),
        )
        .unwrap();
        assert_eq!((s.desc.tiling, s.desc.pitch), (Tiling::W, 128));
        assert_eq!(s.desc.texel_offset(0, 64, 0, 0, 0), Ok(128 * 64));
        assert_eq!(s.desc.texel_offset(70, 3, 0, 0, 0), Ok(4096 + 30));
        assert_eq!(w_major_pitch(127), 64);
    }

    /// A Y-tiled 1D array is a 2D array of height 1: slices QPitch rows apart, rows
    /// Surface Pitch + 1 bytes, in Y tiles (128 bytes by 32 rows, 16-byte columns of 32
    /// rows each). R32_UINT, QPitch 64 rows, pitch 256: texel 5 of slice 3 is at row 192,
    /// tile row 6 (6 * 256 * 32), column 1 (bytes 16-31, + 512), byte 4; texel 40 of
    /// slice 33 at row 2112, tile row 66, the second tile across (160 / 128: + 4096),
    /// column 2 (+ 1024).
    #[test]
    fn tiled_one_d_arrays_are_two_d_arrays_of_height_one() {
        let (m, bases) = bound(RenderSurfaceState {
            surface_type: St::SURFTYPE_1D,
            surface_array: true,
            surface_format: SurfaceFormat::R32_UINT,
            surface_horizontal_alignment: Ha::HALIGN_16,
            surface_vertical_alignment: Va::VALIGN_4,
            tile_mode: TileMode::YMAJOR,
            width: 63,
            depth: 39,
            surface_qpitch: 16,
            surface_pitch: 255,
            ..Default::default()
        });
        let DataSurface::Image { surface, .. } = data_surface(&m, &bases, 0x1000, 0, 0).unwrap()
        else {
            panic!("an image");
        };
        assert_eq!(
            surface.desc.texel_offset(5, 0, 3, 0, 0),
            Ok(6 * 256 * 32 + 512 + 4)
        );
        assert_eq!(
            surface.desc.texel_offset(40, 0, 33, 0, 0),
            Ok(66 * 256 * 32 + 4096 + 1024)
        );
    }

    /// Seed 003 RENDER_SURFACE_STATE ASTC_Enable: the Surface Format then follows the
    /// ASTC table. iris's 5x5 LDR texture (piglit `khr_texture_compression_astc`) has
    /// ASTC_Enable and 0x49, Mesa isl.h's ISL_FORMAT_ASTC_LDR_2D_5X5_FLT16 = 585 =
    /// 0x249: refused by that name, not read as the legacy format 0x49.
    #[test]
    fn an_astc_surface_is_refused_by_its_astc_format() {
        let mut rss = RenderSurfaceState {
            surface_format: SurfaceFormat(0x49),
            astc_enable: true,
            ..Default::default()
        };
        let e = refuse_astc(&rss).unwrap_err().to_string();
        assert!(
            e.contains("Mesa isl.h format 0x249") && e.contains("ASTC_Enable"),
            "{e}"
        );
        rss.astc_enable = false;
        assert!(refuse_astc(&rss).is_ok());
    }
}
