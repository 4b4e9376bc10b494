//! The media sampler's Gen7 state (seed 000 §2.12.2.2 MEDIA_SURFACE_STATE, §2.12.3.2
//! SAMPLER_STATE for Sample_8x8, §2.12.4 SAMPLER_8x8_STATE), decoded into the sampler's
//! neutral [`gtsim_sampler::media`] types.

use gtsim_mem::tiling::Tiling;
use gtsim_message::MessageError;
use gtsim_sampler::media::avs::AvsConfig;
use gtsim_sampler::media::dndi::DndiConfig;
use gtsim_sampler::media::dndi::deinterlace::Motion;
use gtsim_sampler::media::dndi::denoise::Temporal;
use gtsim_sampler::media::surface::{Channel, MediaFormat, MediaSurfaceView, PictureStructure};
use gtsim_spec::gen7::deinterlace_sampler_state::{
    DnDiFirstFrame, DnDiTopFirst, VdiWalkerEnable, VdiWalkerFrameSharingEnable,
};
use gtsim_spec::gen7::media_surface_state::{PictureStructure as Picture, TileMode};
use gtsim_spec::gen7::sampler_8x8_state::{BypassXAdaptiveFiltering, BypassYAdaptiveFiltering};
use gtsim_spec::gen7::{
    DeinterlaceSamplerState, MediaSurfaceState, Sample8x8SamplerState, Sampler8x8State,
};

/// MEDIA_SURFACE_STATE as the media sampler sees it (seed 000 §2.12.2.2).
pub(crate) fn media_surface_view(s: &MediaSurfaceState) -> Result<MediaSurfaceView, MessageError> {
    let tiling = match s.tile_mode {
        TileMode::TILEMODE_LINEAR => Tiling::Linear,
        TileMode::TILEMODE_XMAJOR => Tiling::X,
        TileMode::TILEMODE_YMAJOR => Tiling::Y,
        other => {
            return Err(MessageError::State {
                structure: "MEDIA_SURFACE_STATE",
                why: format!(
                    "Tile Mode {} is reserved (seed 000 §2.12.2.2 DW2 1:0)",
                    other.0
                ),
            });
        }
    };
    Ok(MediaSurfaceView {
        base: s.surface_base_address,
        width: u32::from(s.width) + 1,
        height: u32::from(s.height) + 1,
        pitch: u64::from(s.surface_pitch) + 1,
        tiling,
        format: MediaFormat::from_raw(s.surface_format.0),
        picture: match s.picture_structure {
            Picture::FRAME_PICTURE => Ok(PictureStructure::Frame),
            Picture::TOP_FIELD_PICTURE => Ok(PictureStructure::TopField),
            Picture::BOTTOM_FIELD_PICTURE => Ok(PictureStructure::BottomField),
            other => Err(other.0),
        },
        interleave_chroma: s.interleave_chroma,
        half_pitch_chroma: s.half_pitch_for_chroma,
        u_offset: (
            u32::from(s.x_offset_for_u_cb),
            u32::from(s.y_offset_for_u_cb),
        ),
        v_offset: (
            u32::from(s.x_offset_for_v_cr),
            u32::from(s.y_offset_for_v_cr),
        ),
        chroma_v_offset_quarters: (s.cr_v_cb_u_pixel_offset_v_direction * 4.0) as u32,
    })
}

/// Byte `b` of dword `d` of SAMPLER_8x8_STATE, an S1.6 coefficient in 1/64.
fn coefficient(raw: &[u32], d: usize, b: usize) -> i8 {
    (raw[d] >> (8 * b)) as u8 as i8
}

/// The AVS state of a sample_8x8 message: its SAMPLER_STATE (§2.12.3.2) and the
/// SAMPLER_8x8_STATE it points to (§2.12.4), `raw` being the latter's 138 dwords. Each
/// of the 17 elements is 8 dwords: Table 0X coefficients 0-3 in DW0 (coefficient 0 in
/// bits 7:0) and 4-7 in DW1, Table 0Y likewise in DW2-3, Table 1X coefficients 2-3 in
/// DW4 31:16 and 4-5 in DW5 15:0, Table 1Y likewise in DW6-7.
pub(crate) fn avs_config(s: &Sample8x8SamplerState, t: &Sampler8x8State, raw: &[u32]) -> AvsConfig {
    // Table `table`'s coefficients of phase `p`: 8 taps from dword `at` (0X, 0Y), or
    // taps 2-5 from the upper half of `at` and the lower half of `at + 1` (1X, 1Y).
    let eight = |p: usize, at: usize| -> [i8; 8] {
        std::array::from_fn(|k| coefficient(raw, 8 * p + at + k / 4, k % 4))
    };
    let four = |p: usize, at: usize| -> [i8; 8] {
        std::array::from_fn(|k| match k {
            2 | 3 => coefficient(raw, 8 * p + at, k),
            4 | 5 => coefficient(raw, 8 * p + at + 1, k - 4),
            _ => 0,
        })
    };
    let coefficients = [
        std::array::from_fn(|p| eight(p, 0)),
        std::array::from_fn(|p| eight(p, 2)),
        std::array::from_fn(|p| four(p, 4)),
        std::array::from_fn(|p| four(p, 6)),
    ];
    AvsConfig {
        ief_bypass: s.ief_bypass,
        chroma_key: s.chroma_key_enable,
        coefficients: AvsConfig::mirrored(coefficients),
        default_sharpness: t.default_sharpness_level,
        bypass_x_adaptive: t.bypass_x_adaptive_filtering
            == BypassXAdaptiveFiltering::DISABLE_X_ADAPTIVE_FILTERING,
        bypass_y_adaptive: t.bypass_y_adaptive_filtering
            == BypassYAdaptiveFiltering::DISABLE_Y_ADAPTIVE_FILTERING,
        shuffle: false,
        four_tap_all: false,
        layout: gtsim_sampler::media::avs::PayloadLayout::Gen7,
        centred: false,
    }
}

/// "For the sample_8x8 message, this field must be a multiple of 4" (seed 000 §2.13.1.1
/// Sampler Index): Gen7's SAMPLER_STATE entries are 16 bytes and a sample_8x8 one takes
/// four of them.
pub(crate) fn sample_8x8_index(index: u8) -> Result<(), MessageError> {
    if index.is_multiple_of(4) {
        Ok(())
    } else {
        Err(gtsim_message::invalid(format!(
            "sample_8x8 sampler index {index} is not a multiple of 4 (seed 000 §2.13.1.1)"
        )))
    }
}

/// DEINTERLACE_SAMPLER_STATE as the deinterlace message uses it (seed 000 §2.12.3.3).
pub(crate) fn dndi_config(s: &DeinterlaceSamplerState) -> DndiConfig {
    DndiConfig {
        dn_enable: s.dn_enable,
        di_enable: s.di_enable,
        di_partial: s.di_partial,
        first_frame: s.dn_di_first_frame == DnDiFirstFrame::FIRST_FIELD,
        progressive_dn: s.progressive_dn,
        top_first: s.dn_di_top_first == DnDiTopFirst::TOP_FIELD_OCCURS_FIRST,
        walker: s.vdi_walker_enable == VdiWalkerEnable::WALKER_ENABLED
            || s.vdi_walker_frame_sharing_enable
                != VdiWalkerFrameSharingEnable::SINGLE_DEINTERLACER_WALKS_THE_ENTIRE_FRAME,
        good_neighbor_th: s.good_neighbor_threshold,
        bne_edge_th: s.bne_edge_threshold,
        bne_noise_th: s.block_noise_estimate_noise_threshold,
        temporal: Temporal {
            stad_th: u32::from(s.denoise_stad_threshold),
            moving_pixel_th: u32::from(s.denoise_moving_pixel_threshold),
            tasd_th: u32::from(s.denoise_asd_threshold),
            scm_th: u32::from(s.denoise_threshold_for_sum_of_complexity_measure),
            history_max: u32::from(s.denoise_maximum_history),
            history_delta: u32::from(s.denoise_history_delta),
            diff_th: u32::from(s.temporal_difference_threshold),
            diff_low: u32::from(s.low_temporal_difference_threshold),
        },
        motion: motion(s),
        mcdi: s.mcdi_enable,
        cadence: s.fmd_for_1st_field_of_current_frame.0 != 0
            || s.fmd_for_2nd_field_of_previous_frame.0 != 0,
    }
}

/// The motion-adaptive deinterlacer's fields of DEINTERLACE_SAMPLER_STATE (seed 000
/// §2.12.3.3): STMM Shift Down 0-2 shift by 4-6 and Shift Up 0-2 by 6-8. Shift Down 3 is
/// reserved, but Intel's VA driver programs it for motion-adaptive deinterlacing; the
/// model continues the field's progression (shift by 7) there, and refuses Shift Up 3.
fn motion(s: &DeinterlaceSamplerState) -> Result<Motion, gtsim_message::StateRule> {
    if s.stmm_shift_up.0 > 2 {
        return Err(gtsim_message::StateRule {
            structure: "DEINTERLACE_SAMPLER_STATE",
            field: "STMM Shift Up",
            value: s.stmm_shift_up.0.to_string(),
            rule: "is reserved",
            seed: "seed 000 §2.12.3.3",
        });
    }
    let min = u32::from(s.minimum_stmm);
    let max = u32::from(s.maximum_stmm);
    Ok(Motion {
        shift_down: 4 + s.stmm_shift_down.0.min(3),
        shift_up: 6 + s.stmm_shift_up.0,
        c2: u32::from(s.stmm_c2) + 1,
        vecm_mul: u32::from(s.multiplier_for_vecm),
        trc_large: u32::from(s.blending_constant_across_time_for_large_values_of_stmm),
        trc_small: u32::from(s.blending_constant_across_time_for_small_values_of_stmm),
        md_th: if s.stmm_blending_constant_select.0 == 1 {
            max
        } else {
            min
        },
        min,
        max,
        output_shift: u32::from(s.stmm_output_shift),
    })
}

/// The deinterlace message's statistics surface from the 8 dwords its binding table
/// entry points to (seed 000 §2.8.6.2). The seed names a MEDIA_SURFACE_STATE of format
/// STMM_DN_STATISTICS; Intel's VA driver binds a RENDER_SURFACE_STATE (R8_UNORM, 2D)
/// there. The two tell apart by DW2 31:28: the media state's Surface Format, 7 for
/// STMM_DN_STATISTICS; in the render state the top of Height, whose 31:30 are reserved
/// (0 to 3). Either gives the bytes: base, pitch, tiling and rows.
pub(crate) fn statistics(dw: &[u32]) -> Result<Channel, MessageError> {
    let state = |structure: &'static str| {
        move |e: gtsim_spec::UnpackError| MessageError::State {
            structure,
            why: e.to_string(),
        }
    };
    if dw[2] >> 28 == 7 {
        let m = MediaSurfaceState::unpack(dw).map_err(state("MEDIA_SURFACE_STATE"))?;
        return media_surface_view(&m)?.statistics();
    }
    let r =
        gtsim_spec::gen7::RenderSurfaceState::unpack(dw).map_err(state("RENDER_SURFACE_STATE"))?;
    let (surface, _) =
        crate::surface_state::surface_from_state(&r, crate::surface_state::Use::Sampled).map_err(
            |e| MessageError::State {
                structure: "RENDER_SURFACE_STATE",
                why: format!("the statistics surface: {e}"),
            },
        )?;
    if r.surface_type != gtsim_spec::gen7::render_surface_state::SurfaceType::SURFTYPE_2D
        || surface.desc.block_bytes != 1
    {
        return Err(MessageError::State {
            structure: "RENDER_SURFACE_STATE",
            why: "the deinterlace statistics surface must be a 2D surface of 8-bit elements \
                  (seed 000 §2.8.6.2)"
                .into(),
        });
    }
    if surface.desc.origin != (0, 0) {
        return Err(MessageError::Unsupported(gtsim_spec::Unsupported::new(
            "a deinterlace statistics surface with X Offset or Y Offset",
            "seed 000 §2.8.6.2, RENDER_SURFACE_STATE DW5",
        )));
    }
    Ok(Channel::bytes(
        surface.base,
        surface.desc.pitch,
        surface.desc.tiling,
        u32::from(r.height) + 1,
    ))
}
