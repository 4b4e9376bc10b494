//! The render target write message (seed 000 §3.9.11): which pixels a pixel shader's
//! `send` writes, with which colours, and the per-pixel path into the render target
//! (alpha test, then the colour calculator of [`crate::rt_write`]).
//!
//! Payload layouts (seed 000 §3.9.11.4, "SIMD16 single source", "SIMD8 single source",
//! "replicated data"): after the optional two-register header, SIMD16 sends eight
//! registers — red for slots 0-7, red for slots 8-15, then green, blue and alpha the same
//! way; SIMD8 sends one register per channel for the slot group the descriptor selects;
//! SIMD16 replicated data sends one register whose first four dwords are the RGBA every
//! pixel receives.

use crate::blend::{Rgba, clamp};
use crate::compare::{AlphaReference, alpha_test};
use crate::rt_write::{RtState, color_calc_into};
use gtsim_mem::Memory;
use gtsim_mem::format::texel::{self, Texel};
use gtsim_mem::layout::{ImageOffsets, LayoutError};
use gtsim_mem::surface::Surface;
use gtsim_message::{MessageError, invalid};
use gtsim_spec::Unsupported;
use gtsim_spec::shared::ThreeDCompareFunction;

/// The payload layout of a render target write (seed 000 §3.9.11.2 message subtypes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtSubtype {
    /// SIMD16 single source.
    Simd16,
    /// SIMD16 replicated data.
    Simd16RepData,
    /// SIMD8 single source, low slots.
    Simd8Lo,
    /// SIMD8 dual source (seed 000 §3.7.2): slots 7:0 (`hi` false) or 15:8 of the
    /// dispatch, each with two colours.
    Simd8Dual {
        /// SIMD8_DUALSRC_HI: slots 15:8.
        hi: bool,
    },
    /// A subtype not modelled yet (dual source), by its manual name.
    Other(&'static str),
}

/// The render target write's header (seed 000 §3.9.11.3), as the write uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RtHeader {
    /// Render Target Array Index.
    pub array_index: u32,
    /// Render Target Index (the blend state entry).
    pub render_target_index: u8,
    /// Pixel/Sample Enables (16 bits).
    pub pixel_enables: u32,
    /// Source Depth Present to Render Target.
    pub source_depth: bool,
    /// oMask to Render Target.
    pub omask: bool,
    /// Source0 Alpha Present to Render Target.
    pub source0_alpha: bool,
    /// Stencil Present to Render Target (Gen9+ DW0 bit 14: the shader's stencil
    /// reference values follow the colours and source depth, seed 003 Render Target
    /// Message Header Control).
    pub stencil: bool,
}

/// One render target read message (Gen9+ render cache message type 0Dh), decoded by the
/// generation's front: the pixels of the thread's slots read back from the render target
/// at the binding table index, four channels a register set (Mesa brw gfx9_fb_READ and
/// its response: R, G, B and A, each one register per eight slots).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtRead {
    /// The binding table index of the render target.
    pub binding_table_index: u8,
    /// Sixteen slots (else eight).
    pub simd16: bool,
    /// Slot Group Select: the message's slots are the thread's slots 16 on.
    pub slot_group_hi: bool,
    /// Per-sample reads (a per-sample dispatch's own sample).
    pub per_sample: bool,
    /// The header's Render Target Array Index.
    pub array_index: u32,
}

/// One render target write message, its descriptor and header decoded once by the
/// generation's front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RtWrite {
    /// The payload layout.
    pub subtype: RtSubtype,
    /// Slot Group Select HI: the message carries slots 16-31 (SIMD16) or 16-23 (SIMD8).
    pub slot_group_hi: bool,
    /// Last Render Target Select.
    pub last: bool,
    /// Binding table index of the render target.
    pub binding_table_index: u8,
    /// The header, when the message has one (it then takes the first two registers).
    pub header: Option<RtHeader>,
    /// What a Gen11 headerless write carries in its extended descriptor instead of the
    /// header (Gen7 writes leave it at its default).
    pub extended: RtExtended,
}

/// The fields of seed 003's "Extended Message Descriptor Render Target" that stand for
/// the header's ("SW must not send a header to send ... but instead, it must set this
/// bit-field").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RtExtended {
    /// Render Target Index (14:12): the BLEND_STATE entry of an MRT write.
    pub render_target_index: u8,
    /// Src0 Alpha Present (15).
    pub source0_alpha: bool,
    /// Null Render Target (20): the write goes to no render target.
    pub null_render_target: bool,
    /// Coarse Write: the descriptor's bit 18 on Gen10+ (Mesa brw_eu.h brw_fb_write_desc
    /// `SET_BITS(coarse_write, 18, 18)`), set by a pixel shader dispatched per coarse
    /// pixel; each slot's colour then reaches every pixel of its coarse pixel
    /// (`crate::rt_path::CoarseWrites`). Seed 003's descriptor table marks 29:14
    /// reserved.
    pub coarse_write: bool,
    /// The slots the send's execution mask enables, when the generation lets it select
    /// the pixels written (Gen11 headerless writes: without the header's pixel enables,
    /// Mesa's Gen11 compiler discards pixels by predicating the send, brw_fs.cpp
    /// lower_fb_write_logical_send); `None`: ignored, as Gen7's "Execution Mask" rule
    /// says (seed 000 §3.9.11).
    pub execution_mask: Option<u32>,
}

/// The decoded colours of one render target write: per slot (0..16) the RGBA bits the
/// shader sent, and the slots the message covers.
#[derive(Debug, Clone, PartialEq)]
pub struct RtPayload {
    /// Binding table index of the render target.
    pub binding_table_index: u8,
    /// Colours per slot (0..32: a 32-pixel dispatch writes slots 16-31 with SIMD16
    /// messages whose Slot Group Select is HI), as raw dwords (the render target's
    /// format decides whether they are floats or integers).
    pub colors: [[u32; 4]; 32],
    /// Slots this message carries data for.
    pub slots: u32,
    /// Render Target Array Index from the header (0 without one).
    pub array_index: u32,
    /// Render Target Index from the header, selecting the BLEND_STATE entry (0 without
    /// one; §3.9.11.3 M0.2).
    pub render_target_index: u8,
    /// Pixel enables from the header (M1.7 15:0), when a header is present.
    pub header_pixel_mask: Option<u32>,
    /// Whether this is the last render target write of the thread.
    pub last: bool,
    /// Source depth per slot (float bits), when the message carries it.
    pub depth: Option<[u32; 32]>,
    /// Source 0 alpha per slot (float bits), when the message carries it (§3.9.11.4):
    /// the alpha the alpha test and alpha-to-coverage use instead of the colour's.
    pub source0_alpha: Option<[u32; 32]>,
    /// oMask per slot, when the message carries it (§3.9.11.5): sample n of the slot's
    /// pixel is killed when bit n is clear.
    pub omask: Option<[u16; 32]>,
    /// A dual source message's second colour per slot (seed 000 §3.7.2), which blend
    /// factors BLENDFACTOR_*_SRC1_* read.
    pub colors1: Option<[[u32; 4]; 32]>,
    /// The shader's stencil reference value per slot, when the message carries it.
    pub stencil: Option<[u8; 32]>,
}

fn dword(reg: &[u8; 32], i: usize) -> u32 {
    u32::from_le_bytes([reg[i * 4], reg[i * 4 + 1], reg[i * 4 + 2], reg[i * 4 + 3]])
}

/// Decodes a render target write's payload registers (header included, when the
/// message has one). Without a header, whether source depth follows the colours is the
/// thread's dispatch-time R0.0 bit 13 ("Source Depth to Render Target", seed 004
/// §11.10.3), given as `depth_without_header`; such a message carries no oMask.
pub fn decode_payload(
    d: &RtWrite,
    payload: &[[u8; 32]],
    depth_without_header: bool,
) -> Result<RtPayload, MessageError> {
    decode_payload_with(
        d,
        payload,
        Headerless {
            source_depth: depth_without_header,
            omask: false,
            stencil: false,
        },
    )
}

/// What a headerless render target write takes from the thread's dispatch-time R0.0
/// (seed 004 §11.10.3.1: bit 13 Source Depth to Render Target, bit 12 oMask to Render
/// Target; a message without a header takes the header's fields from the payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Headerless {
    /// Source depth follows the colours.
    pub source_depth: bool,
    /// oMask precedes the colours.
    pub omask: bool,
    /// The shader's stencil reference values follow the colours (3DSTATE_PS_EXTRA Pixel
    /// Shader Computes Stencil).
    pub stencil: bool,
}

/// [`decode_payload`] with the headerless message's R0.0 bits.
///
/// The phases follow seed 000 §3.9.11.4-3.9.11.9 in order: the header, Source 0 Alpha
/// (M2-M3 for SIMD16, one register for SIMD8), oMask (one register: slot 2k in bits
/// 15:0 and slot 2k+1 in bits 31:16 of dword k), the colours, source depth.
pub fn decode_payload_with(
    d: &RtWrite,
    payload: &[[u8; 32]],
    headerless: Headerless,
) -> Result<RtPayload, MessageError> {
    let subtype = match d.subtype {
        RtSubtype::Simd16 => "SIMD16",
        RtSubtype::Simd16RepData => "SIMD16_REPDATA",
        RtSubtype::Simd8Lo => "SIMD8_LO",
        RtSubtype::Simd8Dual { hi: false } => "SIMD8_DUALSRC_LO",
        RtSubtype::Simd8Dual { hi: true } => "SIMD8_DUALSRC_HI",
        RtSubtype::Other(name) => name,
    };
    let need = |n: usize| {
        if payload.len() < n {
            Err(invalid(format!(
                "render target write ({subtype:?}) needs {n} payload registers, the message has {} (seed 000 §3.9.11.4)",
                payload.len()
            )))
        } else {
            Ok(())
        }
    };
    let header = d.header;
    let mut data = if header.is_some() {
        need(2)?;
        &payload[2..]
    } else {
        payload
    };
    let (src0_alpha, omask) = match &header {
        Some(h) => (h.source0_alpha, h.omask),
        None => (d.extended.source0_alpha, headerless.omask),
    };
    let base = if d.slot_group_hi { 16 } else { 0 };
    // §3.9.11.4 Source 0 Alpha: "not supported on replicated data message types".
    let mut alpha0 = None;
    if src0_alpha {
        let regs = match d.subtype {
            RtSubtype::Simd16 => 2,
            RtSubtype::Simd8Lo => 1,
            _ => {
                return Err(invalid(format!(
                    "Source0 Alpha Present is not supported on {subtype} render target writes (seed 000 §3.9.11.3)"
                )));
            }
        };
        if data.len() < regs {
            need(payload.len() - data.len() + regs)?;
        }
        let mut a = [0u32; 32];
        for s in 0..regs * 8 {
            a[base + s] = dword(&data[s / 8], s % 8);
        }
        alpha0 = Some(a);
        data = &data[regs..];
    }
    let mut samples = None;
    if omask {
        if data.is_empty() {
            need(payload.len() + 1)?;
        }
        let mut m = [0u16; 32];
        for (s, v) in m[base..base + 16].iter_mut().enumerate() {
            *v = (dword(&data[0], s / 2) >> (16 * (s % 2))) as u16;
        }
        samples = Some(m);
        data = &data[1..];
    }
    let with_depth = header
        .as_ref()
        .map_or(headerless.source_depth, |h| h.source_depth);
    let with_stencil = header.as_ref().map_or(headerless.stencil, |h| h.stencil);
    // The stencil register follows everything else, in SIMD8 writes only (Mesa
    // lower_fb_write_logical_send: "FB write OS", one register whose bytes 7:0 are the
    // eight slots' stencil values; it asserts a dispatch width of 8).
    if with_stencil && d.subtype != RtSubtype::Simd8Lo {
        return Err(invalid(format!(
            "a {subtype} render target write with Stencil Present: computed stencil is carried by SIMD8 writes"
        )));
    }
    let mut stencil = None;
    let mut colors = [[0u32; 4]; 32];
    let mut colors1 = None;
    let mut depth = None;
    let slots = match d.subtype {
        RtSubtype::Simd16 => {
            need(8 + 2 * usize::from(with_depth) + payload.len() - data.len())?;
            let base = if d.slot_group_hi { 16 } else { 0 };
            // Channel `ch` of slots 7:0 in register 2 * ch, of slots 15:8 in the next.
            for (r, reg) in data[..8].iter().enumerate() {
                let (ch, half) = (r / 2, r % 2);
                for (i, d) in reg.chunks_exact(4).enumerate() {
                    colors[base + half * 8 + i][ch] = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
                }
            }
            if with_depth {
                // §3.9.11.9: sZ follows the colours, slots 7:0 then 15:8.
                let mut z = [0u32; 32];
                for s in 0..16 {
                    z[base + s] = dword(&data[8 + s / 8], s % 8);
                }
                depth = Some(z);
            }
            0xffff << base
        }
        RtSubtype::Simd16RepData if with_depth => {
            return Err(invalid(
                "replicated-data render target writes cannot carry source depth (seed 000 §3.9.11.8)",
            ));
        }
        RtSubtype::Simd16RepData => {
            need(1 + payload.len() - data.len())?;
            for c in colors.iter_mut() {
                for (ch, v) in c.iter_mut().enumerate() {
                    *v = dword(&data[0], ch);
                }
            }
            if d.slot_group_hi { 0xffff_0000 } else { 0xffff }
        }
        RtSubtype::Simd8Lo => {
            need(4 + usize::from(with_depth) + payload.len() - data.len())?;
            // §3.9.11.2: with SLOTGRP_HI a SIMD8 message covers slots 23:16 instead of 7:0.
            let base = if d.slot_group_hi { 16 } else { 0 };
            for s in 0..8 {
                for (ch, v) in colors[base + s].iter_mut().enumerate() {
                    *v = dword(&data[ch], s);
                }
            }
            if with_depth {
                let mut d = [0u32; 32];
                for s in 0..8 {
                    d[base + s] = dword(&data[4], s);
                }
                depth = Some(d);
            }
            if with_stencil {
                let at = 4 + usize::from(with_depth);
                need(at + 1 + payload.len() - data.len())?;
                let mut st = [0u8; 32];
                st[base..base + 8].copy_from_slice(&data[at][..8]);
                stencil = Some(st);
            }
            0xff << base
        }
        RtSubtype::Simd8Dual { hi } => {
            // Source 0's red, green, blue, alpha registers, then source 1's (IVB PRM Vol4
            // Part1 "SIMD8 Dual Source" payload; the seed's table is lost), then sZ.
            need(8 + usize::from(with_depth) + payload.len() - data.len())?;
            let base = if d.slot_group_hi { 16 } else { 0 } + if hi { 8 } else { 0 };
            let mut second = [[0u32; 4]; 32];
            for s in 0..8 {
                for ch in 0..4 {
                    colors[base + s][ch] = dword(&data[ch], s);
                    second[base + s][ch] = dword(&data[4 + ch], s);
                }
            }
            colors1 = Some(second);
            if with_depth {
                let mut z = [0u32; 32];
                for s in 0..8 {
                    z[base + s] = dword(&data[8], s);
                }
                depth = Some(z);
            }
            0xff << base
        }
        RtSubtype::Other(name) => {
            return Err(Unsupported::new(
                format!("render target write subtype {name}"),
                "seed 000 §3.9.11",
            )
            .into());
        }
    };
    Ok(RtPayload {
        binding_table_index: d.binding_table_index,
        colors,
        slots,
        array_index: header.as_ref().map_or(0, |h| h.array_index),
        render_target_index: header
            .as_ref()
            .map_or(d.extended.render_target_index, |h| h.render_target_index),
        // The header's pixel enables cover 16 slots: the upper 16 of a 32-pixel
        // dispatch for a SIMD16 message with Slot Group Select HI.
        header_pixel_mask: header
            .as_ref()
            .map(|h| h.pixel_enables << if d.slot_group_hi { 16 } else { 0 }),
        depth,
        last: d.last,
        source0_alpha: alpha0,
        omask: samples,
        stencil,
        colors1,
    })
}

/// Everything the data port needs to write one render target.
#[derive(Debug, Clone, Copy)]
pub struct RenderTarget {
    /// The surface.
    pub surface: Surface,
    /// LOD written.
    pub lod: u32,
    /// First array slice ("Minimum Array Element").
    pub min_array_element: u32,
    /// The largest Render Target Array Index in range, counted from Minimum Array
    /// Element: Depth for 1D and 2D arrays (seed 000 §3.9.11 "the range between Minimum
    /// Array Element and Depth"), Render Target View Extent for 3D surfaces and on Gen9+
    /// (seed 003 RENDER_SURFACE_STATE), 5 less Minimum Array Element for a Gen7 cube ("a
    /// depth value of 5 is used").
    pub array_extent: u32,
    /// The SURFACE_STATE clear colour, per channel: one (CC_ONE) or zero (fast clears,
    /// seed 004 §11.8).
    pub clear_color: [bool; 4],
    /// The clear value of a Gen9+ surface (its raw RGBA dwords, as floats or integers
    /// by the format's class), which a fast clear stores instead of `clear_color`.
    pub clear_value: Option<[u32; 4]>,
    /// The colour calculator state.
    pub cc: RtState,
    /// Alpha test function and reference (BLEND_STATE Alpha Test Enable, COLOR_CALC_STATE).
    pub alpha_test: Option<(ThreeDCompareFunction, AlphaReference)>,
    /// BLEND_STATE AlphaToCoverage Enable and AlphaToOne Enable (seed 004 §12.1.1).
    pub alpha_coverage: AlphaCoverage,
    /// The multisample control surface of a multisampled render target with MCS Enable
    /// set (seed 004 §11.7), as [`crate::mcs`] keeps it.
    pub mcs: Option<Surface>,
}

impl RenderTarget {
    /// A null render target (seed 000 §2.12.2 SURFTYPE_NULL, or a write to the null
    /// render target): its colour calculator still runs the alpha test and the alpha
    /// coverage functions on the pixels (a depth-only framebuffer kills pixels by alpha
    /// test), and nothing is written. Its surface holds no pixels (width and height 0),
    /// a float format so that the tests see the shader's colour as floats.
    pub fn is_null(&self) -> bool {
        self.surface.desc.width == 0
    }

    /// The surface of a null render target (see [`RenderTarget::is_null`]).
    pub fn null_surface() -> Surface {
        use gtsim_mem::layout::{ArraySpacing, MsaaLayout, SurfaceDesc, SurfaceType};
        Surface {
            base: 0,
            desc: SurfaceDesc {
                ty: SurfaceType::D2,
                width: 0,
                height: 0,
                depth: 1,
                levels: 1,
                samples: 1,
                msaa_layout: MsaaLayout::Array,
                halign: 4,
                valign: 2,
                array_spacing: ArraySpacing::Full,
                block: (1, 1),
                block_bytes: 4,
                tiling: gtsim_mem::tiling::Tiling::Linear,
                pitch: 0,
                origin: (0, 0),
            },
            format: gtsim_spec::shared::SurfaceFormat::R8G8B8A8_UNORM,
        }
    }
}

/// BLEND_STATE's alpha coverage controls (seed 004 §12.1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AlphaCoverage {
    /// AlphaToCoverage Enable: source 0 alpha masks off samples.
    pub to_coverage: bool,
    /// AlphaToOne Enable: source 0 alpha is replaced with 1.0 after that.
    pub to_one: bool,
}

/// Four dwords as a texel of `surface`'s numeric class (float, uint, sint), the way the
/// render target write reads the shader's colour (seed 000 §3.9.11.6: "IEEE Float, S31,
/// or U32 depending on the Surface Format").
pub fn texel_of(surface: &Surface, color: [u32; 4]) -> Result<Texel, MessageError> {
    use gtsim_mem::format::texel::{NumericClass, numeric_class};
    Ok(
        match numeric_class(surface.format).map_err(|e| MessageError::Texel {
            what: "render target format".into(),
            error: e.into(),
        })? {
            NumericClass::Uint => Texel::Uint(color),
            NumericClass::Sint => Texel::Sint(color.map(|v| v as i32)),
            _ => Texel::Float(color.map(f32::from_bits)),
        },
    )
}

/// The alpha test of one pixel (seed 004 §12.1.3: on source 0 alpha; a pixel that fails
/// is discarded). Integer render targets have no alpha test.
pub fn alpha_passes(rt: &RenderTarget, color: [u32; 4]) -> Result<bool, MessageError> {
    if rt.alpha_test.is_none() {
        return Ok(true);
    }
    match (rt.alpha_test, texel_of(&rt.surface, color)?) {
        (Some((f, r)), Texel::Float(c)) => {
            alpha_test(f, c[3], r).map_err(|e| MessageError::State {
                structure: "BLEND_STATE",
                why: e.to_string(),
            })
        }
        _ => Ok(true),
    }
}

/// Writes one pixel through the colour calculator. `array_index` is the Render Target
/// Array Index: out of the range Minimum Array Element..=Depth it is replaced by Minimum
/// Array Element, and a pixel outside the surface is dropped (seed 000 §3.9.11,
/// "Out-of-Bounds Accesses" and M0.0 26:16). The surface's `depth` must cover the
/// view's slices (the caller extends it to Minimum Array Element + Depth + 1). Returns
/// whether the pixel was written.
pub fn write_pixel(
    mem: &mut dyn Memory,
    rt: &RenderTarget,
    x: u32,
    y: u32,
    array_index: u32,
    color: [u32; 4],
) -> Result<bool, MessageError> {
    PixelSink::new(rt, array_index).write(mem, x, y, color)
}

/// [`write_pixel`] for many pixels of one render target and array index: what does not
/// change from pixel to pixel is worked out once.
#[derive(Debug, Clone)]
pub struct PixelSink<'a> {
    rt: &'a RenderTarget,
    /// The slice written (the array index, or Minimum Array Element out of range).
    slice: u32,
    /// That image's offsets, when the layout has them precomputed.
    image: Option<ImageOffsets>,
    /// The colour calculator reads the destination (blending, a logic op, or a write
    /// mask keeping channels).
    reads_dst: bool,
    /// Without that, on a four-byte UNORM8 or UINT8 format: the channel each byte
    /// stores ([`Bytes4`]), which takes the encode without the general colour
    /// calculator (the bytes are the same, and so is the optional pre-blend clamp:
    /// seed 004 §12.1.6-12.1.8, with nothing to blend, only the clamps and the
    /// conversion to the format remain).
    bytes4: Option<Bytes4>,
    /// The last colour the UNORM8 path encoded and its bytes: neighbouring pixels often
    /// have the same colour (a clear, a flat surface), and the encode is a pure function
    /// of it.
    last: std::cell::Cell<Option<([u32; 4], [u8; 4])>>,
}

/// A four-byte format whose bytes [`PixelSink`] encodes without the general colour
/// calculator: per byte, the source channel it stores (None: an X byte, stored as 0).
#[derive(Debug, Clone, Copy)]
enum Bytes4 {
    /// UNORM8 channels ([`texel::unorm8x4_layout`]).
    Unorm8([Option<u8>; 4]),
    /// UINT8 channels ([`texel::uint8x4_layout`]).
    Uint8([Option<u8>; 4]),
}

/// The slice of render target `rt` a write with Render Target Array Index `array_index`
/// reaches. Seed 000 §2.12.2 Minimum Array Element, for render targets: "This field is
/// added to the delivered array index before it is used to address the surface"; and
/// §3.9 "Out-of-Bounds Accesses": "if the Render Target Array Index is out of bounds, it
/// is set to zero and the surface write is not surpressed" (the bounds: Minimum Array
/// Element and Depth, §3.9.11; for cube surfaces "a depth value of 5", the index being
/// the face, +x 0 to -z 5), so the slice is Minimum Array Element + the index, or
/// Minimum Array Element itself for an index past [`RenderTarget::array_extent`].
pub fn target_slice(rt: &RenderTarget, array_index: u32) -> u32 {
    let index = if array_index <= rt.array_extent {
        array_index
    } else {
        0
    };
    rt.min_array_element.saturating_add(index)
}

impl<'a> PixelSink<'a> {
    /// The sink of render target `rt` at Render Target Array Index `array_index`
    /// ([`target_slice`]).
    pub fn new(rt: &'a RenderTarget, array_index: u32) -> PixelSink<'a> {
        let s = &rt.surface;
        // Seed 000 §3.9.11 header Render Target Array Index: "overridden with the
        // Minimum Array Element ... if it is out of the range between Minimum Array
        // Element and Depth. For cube surfaces, a depth value of 5 is used for this
        // determination" (the index is the face, +x 0 to -z 5).
        let slice = target_slice(rt, array_index);
        let cc = &rt.cc;
        let reads_dst =
            cc.blend.is_some() || cc.logic_op.is_some() || cc.write_disable.contains(&true);
        PixelSink {
            rt,
            slice,
            image: s.desc.image_offsets(slice, rt.lod),
            reads_dst,
            bytes4: if reads_dst {
                None
            } else {
                texel::unorm8x4_layout(rt.surface.format)
                    .map(Bytes4::Unorm8)
                    .or_else(|| texel::uint8x4_layout(rt.surface.format).map(Bytes4::Uint8))
            },
            last: std::cell::Cell::new(None),
        }
    }

    /// Writes one pixel ([`write_pixel`]).
    pub fn write(
        &self,
        mem: &mut dyn Memory,
        x: u32,
        y: u32,
        color: [u32; 4],
    ) -> Result<bool, MessageError> {
        self.write_sample(mem, (x, y, 0), color)
    }

    /// The slice the sink writes (the array index, or Minimum Array Element out of
    /// range).
    pub fn slice(&self) -> u32 {
        self.slice
    }

    /// Writes sample `sample` of pixel (x, y) ([`write_pixel`]; sample 0 of a
    /// single-sampled surface is its pixel).
    pub fn write_sample(
        &self,
        mem: &mut dyn Memory,
        at: (u32, u32, u32),
        color: [u32; 4],
    ) -> Result<bool, MessageError> {
        self.write_dual(mem, at, color, None)
    }

    /// [`Self::write_sample`] with a dual source message's second colour `src1`.
    pub fn write_dual(
        &self,
        mem: &mut dyn Memory,
        (x, y, sample): (u32, u32, u32),
        color: [u32; 4],
        src1: Option<[u32; 4]>,
    ) -> Result<bool, MessageError> {
        let rt = self.rt;
        let s = &rt.surface;
        let offset = match &self.image {
            Some(img) => img.offset(x, y),
            None => s.desc.texel_offset(x, y, self.slice, rt.lod, sample),
        };
        let off = match offset {
            Ok(o) => o,
            Err(LayoutError::Outside { .. }) => return Ok(false),
            Err(e) => {
                return Err(MessageError::Texel {
                    what: format!("render target ({x}, {y})"),
                    error: e.into(),
                });
            }
        };
        let addr = s.base.wrapping_add(off);
        // Render target elements are at most 128 bits: a stack buffer holds them.
        let mut stack = [0u8; 16];
        let mut heap = Vec::new();
        let n = s.desc.block_bytes as usize;
        let dst: &mut [u8] = if n <= stack.len() {
            &mut stack[..n]
        } else {
            heap.resize(n, 0);
            &mut heap
        };
        let fault = |fault| MessageError::Fault {
            what: format!("render target ({x}, {y})"),
            fault,
        };
        // The colour calculator reads the destination only to blend, for a logic op or to
        // keep write-disabled channels; otherwise the pixel is just stored.
        if self.reads_dst {
            mem.read(addr, dst).map_err(fault)?;
        }
        let mut out = [0u8; 16];
        let len = match src1 {
            Some(c1) => self.encode_dual(color, c1, dst, &mut out)?,
            None => self.encode(color, dst, &mut out)?,
        };
        mem.write(addr, &out[..len]).map_err(fault)?;
        Ok(true)
    }

    /// The four bytes of `color` on a UNORM8 format whose bytes hold the channels
    /// `layout` says, with nothing read from the destination: the optional pre-blend
    /// clamp, then each channel converted (seed 004 §12.1.6-12.1.8).
    fn encode4(&self, layout: Bytes4, color: [u32; 4]) -> [u8; 4] {
        let layout = match layout {
            Bytes4::Unorm8(l) => l,
            // Seed 004 §12.1.6.1: integer formats do not blend; the value is
            // saturated to the format (`texel::encode_into`'s clamp to 255).
            Bytes4::Uint8(l) => {
                return l.map(|ch| ch.map_or(0, |ch| color[ch as usize & 3].min(255) as u8));
            }
        };
        let mut c = color.map(f32::from_bits);
        if let Some(r) = self.rt.cc.pre_clamp {
            c = clamp(c, r);
        }
        let mut bytes = [0u8; 4];
        for (b, ch) in bytes.iter_mut().zip(layout) {
            if let Some(ch) = ch {
                *b = texel::float_to_unorm8(c[ch as usize & 3]);
            }
        }
        bytes
    }

    /// The bytes the colour calculator stores for `color` over the destination's bytes
    /// `dst` (read only when [`PixelSink`] says it reads them): into `out`, with their
    /// number.
    fn encode(
        &self,
        color: [u32; 4],
        dst: &[u8],
        out: &mut [u8; 16],
    ) -> Result<usize, MessageError> {
        let rt = self.rt;
        let cc = &rt.cc;
        if let Some(layout) = self.bytes4 {
            if let Some((c, bytes)) = self.last.get()
                && c == color
            {
                out[..4].copy_from_slice(&bytes);
                return Ok(4);
            }
            let bytes = self.encode4(layout, color);
            self.last.set(Some((color, bytes)));
            out[..4].copy_from_slice(&bytes);
            return Ok(4);
        }
        let src1: Rgba = [0.0; 4];
        let src = texel_of(&rt.surface, color)?;
        color_calc_into(cc, rt.surface.format, src, src1, dst, out).map_err(|e| {
            MessageError::State {
                structure: "BLEND_STATE",
                why: e.to_string(),
            }
        })
    }

    /// [`Self::encode`] with a second source colour (floats; integer formats do not
    /// blend, so it is not read for them).
    fn encode_dual(
        &self,
        color: [u32; 4],
        src1: [u32; 4],
        dst: &[u8],
        out: &mut [u8; 16],
    ) -> Result<usize, MessageError> {
        let rt = self.rt;
        let src = texel_of(&rt.surface, color)?;
        color_calc_into(
            &rt.cc,
            rt.surface.format,
            src,
            src1.map(f32::from_bits),
            dst,
            out,
        )
        .map_err(|e| MessageError::State {
            structure: "BLEND_STATE",
            why: e.to_string(),
        })
    }

    /// Stores `color` at every pixel of `runs` (row, first x, length; distinct pixels)
    /// at once, page by page ([`gtsim_mem::fill::Fill`]): the bytes [`PixelSink::write`]
    /// pixel by pixel stores, when nothing can fail: the colour calculator does not read
    /// the destination (so every pixel takes the same bytes), the image's offsets are
    /// precomputed and every byte it may occupy is writable
    /// ([`gtsim_mem::layout::ImageOffsets::byte_range`]). Pixels past the image's right or
    /// bottom edge are dropped, as there. `None` when that does not hold (nothing was
    /// written, unless a write failed after the check; writing the same bytes again
    /// changes nothing).
    pub fn fill_runs(
        &self,
        mem: &mut dyn Memory,
        color: [u32; 4],
        runs: &[(u32, u32, u32)],
    ) -> Option<()> {
        if self.reads_dst {
            return None;
        }
        let img = self.image.as_ref()?;
        let s = &self.rt.surface;
        let n = s.desc.block_bytes as usize;
        if !(1..=16).contains(&n) {
            return None;
        }
        let (unread, mut bytes) = ([0u8; 16], [0u8; 16]);
        if self.encode(color, &unread[..n], &mut bytes).ok()? != n {
            return None;
        }
        let range = img.byte_range()?;
        mem.check_write(s.base.checked_add(range.start)?, range.end - range.start)
            .ok()?;
        let mut fill = gtsim_mem::fill::Fill::new(n)?;
        // As rectangles cut to the image: a column of pieces at a time.
        let (w, h) = img.size();
        for (xs, ys) in gtsim_mem::fill::rectangles(runs) {
            let (xs, ys) = (xs.start..xs.end.min(w), ys.start..ys.end.min(h));
            if xs.is_empty() || ys.is_empty() {
                continue;
            }
            if !fill.add_rect(s.base, img, xs, ys).ok()? {
                return None;
            }
        }
        fill.write(mem, &bytes[..n]).ok()
    }

    /// Writes the pixels (x0 + i, y) with colours `colors[i]`, left to right: the same
    /// bytes and the same errors as [`PixelSink::write`] pixel by pixel, but pixels that
    /// are neighbours in memory too (along a linear row, an X-tile row, a Y-tile OWord)
    /// are read and written together, their offsets worked out once.
    pub fn write_run(
        &self,
        mem: &mut dyn Memory,
        x0: u32,
        y: u32,
        colors: &[[u32; 4]],
    ) -> Result<(), MessageError> {
        let one_by_one = |mem: &mut dyn Memory, from: usize, to: usize| {
            for (i, &c) in colors.iter().enumerate().take(to).skip(from) {
                self.write(mem, x0 + i as u32, y, c)?;
            }
            Ok(())
        };
        let s = &self.rt.surface;
        let n = s.desc.block_bytes as usize;
        let Some(img) = self.image.as_ref().filter(|_| (1..=16).contains(&n)) else {
            return one_by_one(mem, 0, colors.len());
        };
        // Room for 32 pixels of 16 bytes; longer runs go in pieces.
        const MAX: usize = 32;
        let mut dst = [0u8; MAX * 16];
        let mut out = [0u8; MAX * 16];
        let mut i = 0;
        while i < colors.len() {
            let x = x0 + i as u32;
            let (off, k) = match img.run(x, y) {
                Ok(r) => r,
                // Past the right or bottom edge: so is every pixel after this one.
                Err(LayoutError::Outside { .. }) => return Ok(()),
                Err(_) => return one_by_one(mem, i, i + 1),
            };
            let k = (k as usize).min(colors.len() - i).min(MAX);
            let addr = s.base.wrapping_add(off);
            let bytes = k * n;
            if self.reads_dst && mem.read(addr, &mut dst[..bytes]).is_err() {
                // A fault: pixel by pixel, for the error the first faulting pixel gives.
                one_by_one(mem, i, i + k)?;
                i += k;
                continue;
            }
            if let (Some(layout), 4) = (self.bytes4, n) {
                // The UNORM8 path of `encode` (the destination is not read), inline:
                // a run's pixels mostly repeat the colour before them.
                let mut last = self.last.get();
                for (j, &c) in colors[i..i + k].iter().enumerate() {
                    let bytes = match last {
                        Some((lc, b)) if lc == c => b,
                        _ => {
                            let b = self.encode4(layout, c);
                            last = Some((c, b));
                            b
                        }
                    };
                    out[j * 4..j * 4 + 4].copy_from_slice(&bytes);
                }
                self.last.set(last);
            } else {
                for j in 0..k {
                    let mut px = [0u8; 16];
                    let len = self.encode(colors[i + j], &dst[j * n..(j + 1) * n], &mut px)?;
                    if len != n {
                        return one_by_one(mem, i, colors.len());
                    }
                    out[j * n..(j + 1) * n].copy_from_slice(&px[..n]);
                }
            }
            if mem.write(addr, &out[..bytes]).is_err() {
                one_by_one(mem, i, i + k)?;
            }
            i += k;
        }
        Ok(())
    }
}
