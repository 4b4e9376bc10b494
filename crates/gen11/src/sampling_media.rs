//! The Gen11 media sampler's state: MEDIA_SURFACE_STATE and SAMPLER_STATE_8x8_AVS
//! decoded into the neutral sampler's views ([`MediaSurfaceView`], [`AvsConfig`]), for
//! the SIMD32/64 `sample_8x8` message (`gtsim_sampler::media`).
//!
//! Where Gen11 differs from Gen7 (seed 000 §2.12.2.2, §2.12.4), from seed 003:
//!
//! * MEDIA_SURFACE_STATE is 8 dwords (L14486-14761): the base address in DW6-7, a 5-bit
//!   Surface Format whose values 5-7 and 13 and up mean other formats than Gen7's, and
//!   fields Gen7 lacks (origin offsets, rotation, mirroring, vertical line stride), each
//!   refused here when set.
//! * SAMPLER_STATE_8x8_AVS (L18159-18490) holds the filter coefficients itself, all 32
//!   phases (Filter Coefficient[0..16] from DW16, [17..31] from DW160), Table 0X and 0Y
//!   interleaved byte by byte (SAMPLER_STATE_8x8_AVS_COEFFICIENTS, L18081-18157); the
//!   sharpness and adaptive-bypass controls are Gen7's (DW152-153). The IEF Bypass is
//!   no longer in the state: the message carries it (M1.7 27, `PayloadLayout::Gen9`).
//! * The state of Sampler Index `i` is 2048 bytes apart from the next ([`AVS_STRIDE`]).

use crate::bases::address;
use gtsim_mem::Memory;
use gtsim_mem::tiling::Tiling;
use gtsim_message::MessageError;
use gtsim_sampler::media::avs::{ALL_PHASES, AvsConfig, PayloadLayout};
use gtsim_sampler::media::surface::{MediaFormat, MediaSurfaceView, PictureStructure};
use gtsim_spec::Unsupported;
use gtsim_spec::gen11::{MediaSurfaceState, SamplerState8x8Avs, SamplerState8x8AvsCoefficients};

/// Bytes from one sample_8x8 sampler index's SAMPLER_STATE_8x8_AVS to the next. Seed 003
/// does not say (the table lost its header block); Intel's media-driver places them so
/// (`MHW_SAMPLER_STATE_AVS_INC_G11` = 2048, `renderhal_g11.cpp`: "128 elements for
/// SKL"), and iHD's kernels find their state there (sampler index 1, 2048 bytes past
/// the Sampler State Pointer).
pub(crate) const AVS_STRIDE: u64 = 2048;

fn state(structure: &'static str, why: String) -> MessageError {
    MessageError::State { structure, why }
}

/// The media surface at `at` (a binding table entry's surface state).
pub(crate) fn media_surface(mem: &dyn Memory, at: u64) -> Result<MediaSurfaceView, MessageError> {
    let raw = mem
        .read_dwords(at, MediaSurfaceState::DWORDS)
        .map_err(|fault| MessageError::Fault {
            what: "MEDIA_SURFACE_STATE".into(),
            fault,
        })?;
    let s =
        MediaSurfaceState::unpack(&raw).map_err(|e| state("MEDIA_SURFACE_STATE", e.to_string()))?;
    media_surface_view(&s, &raw)
}

/// MEDIA_SURFACE_STATE (seed 003 L14486-14761) as the media sampler reads it; `raw` its
/// eight dwords (DW3 29:16 X Offset for U(Cb), L14657, sits inside the seed's HTML cell
/// and is read from them).
pub(crate) fn media_surface_view(
    s: &MediaSurfaceState,
    raw: &[u32],
) -> Result<MediaSurfaceView, MessageError> {
    let refuse = |field: &str, value: u32| -> Result<(), MessageError> {
        if value == 0 {
            return Ok(());
        }
        Err(Unsupported::new(
            format!("MEDIA_SURFACE_STATE {field} {value} (only 0 is modelled)"),
            "seed 003 MEDIA_SURFACE_STATE",
        )
        .into())
    };
    refuse("Rotation", u32::from(s.rotation))?;
    refuse("X Offset", u32::from(s.x_offset))?;
    refuse("Y Offset", u32::from(s.y_offset))?;
    refuse("Address Control (MIRROR)", u32::from(s.address_control))?;
    refuse(
        "Memory Compression Enable",
        u32::from(s.memory_compression_enable),
    )?;
    refuse("Vertical Line Stride", u32::from(s.vertical_line_stride))?;
    refuse("Tiled Resource Mode", u32::from(s.tiled_resource_mode))?;
    refuse(
        "Cr(V)/Cb(U) Pixel Offset U Direction (in halves)",
        (s.cr_v_cb_u_pixel_offset_u_direction * 2.0) as u32,
    )?;
    let tiling = match s.tile_mode {
        0 => Tiling::Linear,
        2 => Tiling::X,
        3 => Tiling::Y,
        other => {
            return Err(state(
                "MEDIA_SURFACE_STATE",
                format!("Tile Mode {other} is reserved (seed 003 DW2 1:0)"),
            ));
        }
    };
    let dword = |i: usize| raw.get(i).copied().unwrap_or(0);
    Ok(MediaSurfaceView {
        base: u64::from(dword(6)) | u64::from(dword(7) & 0xffff) << 32,
        width: u32::from(s.width) + 1,
        height: u32::from(s.height) + 1,
        pitch: u64::from(s.surface_pitch) + 1,
        tiling,
        format: media_format(s.surface_format),
        picture: match s.picture_structure {
            0 => Ok(PictureStructure::Frame),
            1 => Ok(PictureStructure::TopField),
            2 => Ok(PictureStructure::BottomField),
            other => Err(u32::from(other)),
        },
        interleave_chroma: s.interleave_chroma,
        half_pitch_chroma: s.half_pitch_for_chroma,
        u_offset: ((dword(3) >> 16) & 0x3fff, u32::from(s.y_offset_for_u_cb)),
        v_offset: (
            u32::from(s.x_offset_for_v_cr),
            u32::from(s.y_offset_for_v_cr),
        ),
        // DW1 1:0 (U0.2) with DW2 24, its MSB: a U1.2 offset in quarter rows.
        chroma_v_offset_quarters: (s.cr_v_cb_u_pixel_offset_v_direction * 4.0) as u32
            + 4 * u32::from(s.cr_v_cb_u_pixel_offset_v_direction_msb),
    })
}

/// Seed 003's Surface Format (DW2 31:27, L14574) as the neutral formats: 0-4 and 8-12
/// are Gen7's; 5-7 (Y8_UNORM_VA, Y16_SNORM, Y16_UNORM_VA, "Sample_8x8 only except
/// AVS"), 13 and up (A8Y8U8V8, B8G8R8A8, R16G16B16A16, PLANAR_422_8, 16-bit planes, the
/// structure buffers) are not modelled: [`MediaFormat::Reserved`], which the sampler
/// refuses naming the value.
fn media_format(v: u8) -> MediaFormat {
    match v {
        0..=4 | 8..=12 => MediaFormat::from_raw(u32::from(v)),
        other => MediaFormat::Reserved(u32::from(other)),
    }
}

/// SAMPLER_STATE_8x8_AVS of `index` in the table at `table` (graphics address).
pub(crate) fn avs(mem: &dyn Memory, table: u64, index: u8) -> Result<AvsConfig, MessageError> {
    let at = address(table.wrapping_add(u64::from(index) * AVS_STRIDE));
    let raw = mem
        .read_dwords(at, SamplerState8x8Avs::DWORDS)
        .map_err(|fault| MessageError::Fault {
            what: "SAMPLER_STATE_8x8_AVS".into(),
            fault,
        })?;
    let s = SamplerState8x8Avs::unpack(&raw)
        .map_err(|e| state("SAMPLER_STATE_8x8_AVS", e.to_string()))?;
    Ok(avs_config(&s))
}

/// The AVS state the sampler uses (see the module docs). Enable 8-tap filter (DW3
/// 29:28, L18224-18236): 00b and 01b filter G (and alpha) with Table 0's eight taps and R
/// and B with Table 1's four (00b on an RGB surface is refused by the sampler: which taps
/// its G channel takes is not given; "in case it is a YUV surface it will default to ...
/// 01"); 10b and 11b filter every channel with Table 0 ("UV-ch uses the
/// Y-coefficients"). The adaptive forms (01b, 11b) act only with adaptive filtering,
/// which the sampler refuses while Bypass X/Y Adaptive Filtering is clear.
pub(crate) fn avs_config(s: &SamplerState8x8Avs) -> AvsConfig {
    let phase = |p: usize| -> &SamplerState8x8AvsCoefficients {
        if p < 17 {
            &s.filter_coefficient_0_16[p]
        } else {
            &s.filter_coefficient_17_31[p - 17]
        }
    };
    // S1.6 coefficients as 1/64 units.
    let q = |c: f64| (c * 64.0).round() as i8;
    let table = |f: &dyn Fn(&SamplerState8x8AvsCoefficients) -> [f64; 8]| -> [[i8; 8]; ALL_PHASES] {
        std::array::from_fn(|p| f(phase(p)).map(q))
    };
    let x0 = table(&|c| {
        [
            c.table_0_x_filter_coefficient_n_0,
            c.table_0_x_filter_coefficient_n_1,
            c.table_0_x_filter_coefficient_n_2,
            c.table_0_x_filter_coefficient_n_3,
            c.table_0_x_filter_coefficient_n_4,
            c.table_0_x_filter_coefficient_n_5,
            c.table_0_x_filter_coefficient_n_6,
            c.table_0_x_filter_coefficient_n_7,
        ]
    });
    let y0 = table(&|c| {
        [
            c.table_0_y_filter_coefficient_n_0,
            c.table_0_y_filter_coefficient_n_1,
            c.table_0_y_filter_coefficient_n_2,
            c.table_0_y_filter_coefficient_n_3,
            c.table_0_y_filter_coefficient_n_4,
            c.table_0_y_filter_coefficient_n_5,
            c.table_0_y_filter_coefficient_n_6,
            c.table_0_y_filter_coefficient_n_7,
        ]
    });
    let eight_tap_all = s.enable_8_tap_filter >= 2;
    let (x1, y1) = if eight_tap_all {
        (x0, y0)
    } else {
        (
            table(&|c| {
                [
                    0.0,
                    0.0,
                    c.table_1_x_filter_coefficient_n_2,
                    c.table_1_x_filter_coefficient_n_3,
                    c.table_1_x_filter_coefficient_n_4,
                    c.table_1_x_filter_coefficient_n_5,
                    0.0,
                    0.0,
                ]
            }),
            table(&|c| {
                [
                    0.0,
                    0.0,
                    c.table_1_y_filter_coefficient_n_2,
                    c.table_1_y_filter_coefficient_n_3,
                    c.table_1_y_filter_coefficient_n_4,
                    c.table_1_y_filter_coefficient_n_5,
                    0.0,
                    0.0,
                ]
            }),
        )
    };
    AvsConfig {
        // Set from the message (M1.7 27) by the sampler.
        ief_bypass: true,
        // Gen11's AVS state has no chroma key.
        chroma_key: false,
        coefficients: [x0, y0, x1, y1],
        default_sharpness: s.default_sharpness_level,
        bypass_x_adaptive: s.bypass_x_adaptive_filtering,
        bypass_y_adaptive: s.bypass_y_adaptive_filtering,
        shuffle: s.shuffle_output_writeback_for_sample_8x8 != 0,
        four_tap_all: s.enable_8_tap_filter == 0,
        layout: PayloadLayout::Gen9,
        centred: true,
    }
}

#[cfg(test)]
mod tests;
