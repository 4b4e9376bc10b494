//! Gen11 sampler messages, decoded into the sampler's neutral message
//! (`gtsim_sampler::state`) and carried out by `gtsim_sampler::message::handle`.
//!
//! * The descriptor: seed 003 "Message Descriptor - Sampling Engine" (SIMD Mode split
//!   over bits 29 and 18:17; SIMD8 is 1, SIMD16 2, Mesa brw_eu_defines.h
//!   BRW_SAMPLER_SIMD_MODE_*). The seed does not list the message types; they are Mesa's
//!   (brw_eu_defines.h GFX5_SAMPLER_MESSAGE_* and GFX9_SAMPLER_MESSAGE_*): Gen7's codes,
//!   and from Gen9 sample_lz (24), sample_c_lz (25), ld_lz (26), ld2dms_w (28).
//! * The Gen9+ argument orders (Mesa brw_fs.cpp lower_sampler_logical_send for ver >=
//!   9): ld sends "u v lod r", the `_lz` forms drop the LOD. The neutral message keeps
//!   the Gen7 tables (seed 000 §2.13.1.3.1), so the front moves the parameters into that
//!   order: ld as "u lod v r", ld_lz as ld with LOD 0, sample_lz as sample_l "lod u v r
//!   ai" with LOD 0, sample_c_lz as sample_l_c "ref lod u v r ai" with LOD 0.
//! * The header (Mesa lower_sampler_logical_send, the same M0.2 as Gen7's: texel offsets
//!   11:0, write channel masks 15:12, gather4 source channel 17:16).
//! * RENDER_SURFACE_STATE (seed 003) in the Gen9+ layouts, its Shader Channel Selects
//!   applied to the returned channels; SAMPLER_STATE (seed 003, 4 dwords) with the border
//!   colour at Indirect State Pointer from Dynamic State Base Address
//!   (SAMPLER_BORDER_COLOR_STATE's RGBA floats).

use crate::bases::{Bases, address};
use crate::draw::StageTables;
use gtsim_eu::exec::{Message, MessageError, Response};
use gtsim_mem::Memory;
use gtsim_mem::layout::{ArraySpacing, SurfaceType};
use gtsim_sampler::address::TexCoordMode;
use gtsim_sampler::cache::TableCache;
use gtsim_sampler::filter::MapFilter;
use gtsim_sampler::lod::MipFilter;
use gtsim_sampler::media::avs::AvsConfig;
use gtsim_sampler::media::surface::MediaSurfaceView;
use gtsim_sampler::message::SamplerResources;
use gtsim_sampler::state::{
    SamplerConfig, SamplerHeader, SamplerMessage, SamplerOp, SamplerSimd, SurfaceKind, SurfaceView,
};
use gtsim_spec::Unsupported;
use gtsim_spec::gen11::render_surface_state::SurfaceType as St;
use gtsim_spec::gen11::{MessageDescriptorSamplingEngine, RenderSurfaceState, SamplerState};

fn dwords(reg: &[u8; 32]) -> [u32; 8] {
    std::array::from_fn(|i| {
        u32::from_le_bytes([reg[4 * i], reg[4 * i + 1], reg[4 * i + 2], reg[4 * i + 3]])
    })
}

fn state_error(structure: &'static str, why: impl std::fmt::Display) -> MessageError {
    MessageError::State {
        structure,
        why: why.to_string(),
    }
}

/// The message types (Mesa brw_eu_defines.h) as the neutral operation, with the Gen7
/// parameter order each Gen9+ form moves into: for each Gen7 parameter, the Gen11
/// parameter it takes, or `None` for a zero LOD.
fn op(t: u8) -> (SamplerOp, Option<&'static [Option<usize>]>) {
    match t {
        0 => (SamplerOp::Sample, None),
        1 => (SamplerOp::SampleB, None),
        2 => (SamplerOp::SampleL, None),
        3 => (SamplerOp::SampleC, None),
        4 => (SamplerOp::SampleD, None),
        5 => (SamplerOp::SampleBC, None),
        6 => (SamplerOp::SampleLC, None),
        // ld "u v lod r" -> "u lod v r".
        7 => (SamplerOp::Ld, Some(&[Some(0), Some(2), Some(1), Some(3)])),
        8 => (SamplerOp::Gather4, None),
        9 => (SamplerOp::Lod, None),
        10 => (SamplerOp::Resinfo, None),
        11 => (SamplerOp::Sampleinfo, None),
        16 => (SamplerOp::Gather4C, None),
        17 => (SamplerOp::Gather4Po, None),
        18 => (SamplerOp::Gather4PoC, None),
        20 => (SamplerOp::SampleDC, None),
        // sample_lz "u v r ai" -> sample_l "lod u v r ai".
        24 => (
            SamplerOp::SampleL,
            Some(&[None, Some(0), Some(1), Some(2), Some(3)]),
        ),
        // sample_c_lz "ref u v r ai" -> sample_l_c "ref lod u v r ai".
        25 => (
            SamplerOp::SampleLC,
            Some(&[Some(0), None, Some(1), Some(2), Some(3), Some(4)]),
        ),
        // ld_lz "u v r" -> ld "u lod v r".
        26 => (SamplerOp::Ld, Some(&[Some(0), None, Some(1), Some(2)])),
        // ld2dms_w "si mcs0 mcs1 u v r" (Mesa lower_sampler_logical_send_gfx7: no LOD),
        // the neutral sampler's own form: the MCS's low and high dwords (16 samples
        // take 64 bits).
        28 => (SamplerOp::Ld2dmsW, None),
        // ld_mcs "u v r" -> "u v r lod".
        29 => (SamplerOp::LdMcs, Some(&[Some(0), Some(1), Some(2), None])),
        30 => (SamplerOp::Ld2dms, None),
        31 => (SamplerOp::Ld2dss, None),
        other => (SamplerOp::Invalid(u32::from(other)), None),
    }
}

/// A message's registers, held on the stack (a sampler message is at most 11
/// registers, seed 000 §2.13.1.3.1; a split send's two payloads at most
/// 2 × [`gtsim_message::Payload::MAX`], and one header the model may add).
struct Regs {
    regs: [[u8; 32]; Regs::CAPACITY],
    len: usize,
}

impl Regs {
    const CAPACITY: usize = 2 * gtsim_message::Payload::MAX + 2;

    fn push(&mut self, r: [u8; 32]) -> Result<(), MessageError> {
        let slot = self.regs.get_mut(self.len).ok_or_else(|| {
            gtsim_message::invalid(format!(
                "a sampler message of more than {} registers",
                Regs::CAPACITY
            ))
        })?;
        *slot = r;
        self.len += 1;
        Ok(())
    }

    /// Inserts `r` before the first register.
    fn insert_first(&mut self, r: [u8; 32]) -> Result<(), MessageError> {
        self.push(r)?;
        self.regs[..self.len].rotate_right(1);
        Ok(())
    }
}

impl Default for Regs {
    fn default() -> Regs {
        Regs {
            regs: [[0; 32]; Regs::CAPACITY],
            len: 0,
        }
    }
}

impl std::ops::Deref for Regs {
    type Target = [[u8; 32]];
    fn deref(&self) -> &[[u8; 32]] {
        &self.regs[..self.len]
    }
}

/// Carries out sampler message `m` of a thread whose stage has `tables`.
pub(crate) fn message(
    cache: &SamplerCache,
    bases: &Bases,
    tables: StageTables,
    mem: &dyn Memory,
    m: &Message,
) -> Result<Response, MessageError> {
    let d = MessageDescriptorSamplingEngine::unpack(&[m.desc]).map_err(|e| {
        state_error(
            "sampler message descriptor",
            format!("{:#010x}: {e}", m.desc),
        )
    })?;
    let simd = match (d.simd_mode_2 << 2) | d.simd_mode_1_0 {
        1 => SamplerSimd::Simd8,
        2 => SamplerSimd::Simd16,
        // SIMD Mode[2:0] 011b: SIMD32/64, the media sampler's messages.
        3 => SamplerSimd::Simd32_64,
        other => {
            return Err(Unsupported::new(
                format!(
                    "sampler SIMD mode {other} on Gen11 (SIMD8, SIMD16 and SIMD32/64 are modelled)"
                ),
                "seed 003 Message Descriptor - Sampling Engine",
            )
            .into());
        }
    };
    if d.return_format != 0 {
        return Err(Unsupported::new(
            "16-bit sampler return format",
            "seed 003 Message Descriptor - Sampling Engine Return Format",
        )
        .into());
    }
    let (op, order) = if simd == SamplerSimd::Simd32_64 {
        (op_simd32_64(d.message_type)?, None)
    } else {
        op(d.message_type)
    };
    // The message registers on the stack: a message is at most two payloads (a split
    // send) and a header, and this runs once per sampler message.
    let mut joined = Regs::default();
    for r in m.payload.iter().chain(m.payload2.iter()) {
        joined.push(*r)?;
    }
    let h = usize::from(d.header_present);
    let mut tables = tables;
    let header = if d.header_present {
        let r = joined
            .first()
            .ok_or_else(|| gtsim_message::invalid("sampler message without its header"))?;
        let m2 = dwords(r)[2];
        // M0.3 31:5: the Sampler State Pointer, from Dynamic State Base Address, which
        // the header's sampler state replaces the stage's with (Mesa sets it for sampler
        // indices past 15).
        let pointer = u64::from(dwords(r)[3] & !0x1f);
        if pointer != 0 {
            tables.sampler_state = address(bases.dynamic.wrapping_add(pointer));
        }
        // M0.2 19:18 Output Format Control of a media sampler message (Gen8+: 16- or
        // 8-bit, full or chroma downsampled; IGC `visa/VisaToG4/TranslateSendMedia.cpp`,
        // not in seed 003): the 16-bit full writeback (0) is modelled.
        let control = (m2 >> 18) & 3;
        if simd == SamplerSimd::Simd32_64 && control != 0 {
            return Err(Unsupported::new(
                format!(
                    "sample_8x8 Output Format Control {control} (M0.2 19:18; 16-bit full, 0, is modelled)"
                ),
                "Gen8+ sampler message header (IGC TranslateSendMedia.cpp; not in seed 003)",
            )
            .into());
        }
        Some(SamplerHeader {
            write_masks: [12, 13, 14, 15].map(|b| m2 >> b & 1 != 0),
            offsets: [8, 4, 0].map(|s| (((m2 >> s) as i8) << 4) >> 4),
            force_lod_zero: false,
            gather_channel: ((m2 >> 16) & 3) as u8,
        })
    } else {
        None
    };
    let mut mlen = usize::from(d.message_length) + m.payload2.len();
    let mut payload = joined;
    if let Some(order) = order {
        let w = if simd == SamplerSimd::Simd16 { 2 } else { 1 };
        let params = &payload[h.min(payload.len())..mlen.min(payload.len())];
        let count = params.len() / w;
        let mut out = Regs::default();
        for r in &payload[..h.min(payload.len())] {
            out.push(*r)?;
        }
        // Parameters past those sent read as zeros; trailing ones are not sent.
        let last = order
            .iter()
            .rposition(|p| p.is_some_and(|i| i < count))
            .map_or(0, |i| i + 1);
        for p in &order[..last] {
            for r in 0..w {
                out.push(match p {
                    Some(i) if *i < count => params[i * w + r],
                    _ => [0; 32],
                })?;
            }
        }
        mlen = out.len();
        payload = out;
    }
    // Without a header, a Gen9+ response shorter than the four channels' registers
    // carries the first channels only (Mesa lower_sampler_logical_send sends a header
    // with write channel masks only when it has one anyway, and otherwise shortens the
    // response length).
    let w = if simd == SamplerSimd::Simd16 { 2 } else { 1 };
    let rlen = usize::from(d.response_length);
    let truncated = header.is_none() && rlen < 4 * w && rlen.is_multiple_of(w);
    let msg = SamplerMessage {
        op,
        simd,
        header,
        message_length: mlen,
        response_length: if truncated { 4 * w } else { rlen },
        binding_table_index: d.binding_table_index,
        sampler_index: d.sampler_index,
        // Named only when it fails (below): a name per message would cost an allocation
        // per message.
        name: String::new(),
    };
    let res = Resources {
        cache,
        bases,
        tables,
        mem,
        last: std::cell::RefCell::new(None),
        ex_desc: m.ex_desc,
    };
    let named = |e: MessageError| {
        e.context(format!(
            "sampler message type {} (descriptor {:#010x}, BTI {}, sampler {})",
            d.message_type, m.desc, d.binding_table_index, d.sampler_index
        ))
    };
    let gather = matches!(
        op,
        SamplerOp::Gather4 | SamplerOp::Gather4C | SamplerOp::Gather4Po | SamplerOp::Gather4PoC
    );
    let mut msg = msg;
    // A gather4 returns four texels of one channel: the Shader Channel Select of the
    // channel it gathers picks the surface channel read (or a constant), rather than
    // permuting what it returns.
    let mut constant = None;
    if gather {
        let entry = res.entry(d.binding_table_index).map_err(named)?;
        let mut h = msg.header.unwrap_or_default();
        let select = entry.selects[usize::from(h.gather_channel & 3)];
        match select {
            4..=7 => h.gather_channel = (select - 4) as u8,
            0 | 1 => constant = Some(select),
            other => {
                return Err(state_error(
                    "RENDER_SURFACE_STATE",
                    format!("Shader Channel Select {other} is reserved"),
                ));
            }
        }
        if msg.header.is_some() || h.gather_channel != 0 {
            // The neutral message takes the channel from a header; the payload keeps
            // its parameters where they were (the header register stays counted).
            msg.header = Some(h);
            if d.header_present {
                // Already counted in the payload.
            } else {
                payload.insert_first([0; 32])?;
                msg.message_length += 1;
            }
        }
    }
    // A header masking channels of a surface whose Shader Channel Selects permute them:
    // the four channels are sampled, selected, and the masked ones then left out of the
    // response (the masks apply to the channels the shader sees).
    let masked_selects = match msg.header {
        Some(h) if h.write_masks.iter().any(|&m| m) && !gather && op_swizzles(op) => {
            let entry = res.entry(d.binding_table_index).map_err(named)?;
            (entry.selects != [4, 5, 6, 7]).then_some(h.write_masks)
        }
        _ => None,
    };
    if masked_selects.is_some() {
        if let Some(h) = &mut msg.header {
            h.write_masks = [false; 4];
        }
        msg.response_length = 4 * w;
    }
    // The sampler numbers the message's channels from 0 (a 2Q send's channels 8-15
    // are its 0-7).
    let mut response =
        gtsim_sampler::message::handle(&msg, &payload, m.channel_mask >> m.first_channel, &res)
            .map_err(named)?;
    if let Some(c) = constant {
        let one = res.entry(d.binding_table_index).map_err(named)?.one;
        let v = if c == 1 { one } else { 0 };
        for reg in &mut response.registers {
            for dw in reg.chunks_exact_mut(4) {
                dw.copy_from_slice(&v.to_le_bytes());
            }
        }
    } else if !gather && op_swizzles(op) {
        let entry = res.entry(d.binding_table_index).map_err(named)?;
        swizzle(&entry, &msg, &mut response).map_err(named)?;
    }
    if let Some(masks) = masked_selects {
        // The kept channels' registers, with the dwords each writes (the execution
        // mask's, `gtsim_sampler::message`).
        let all = std::mem::take(&mut response.registers);
        let written = response.written.take();
        let kept = |r: usize| masks.get(r / w).is_some_and(|masked| !masked);
        response.registers = all
            .iter()
            .enumerate()
            .filter(|(r, _)| kept(*r))
            .map(|(_, reg)| *reg)
            .take(rlen)
            .collect();
        response.written = written.map(|wr| {
            wr.iter()
                .enumerate()
                .filter(|(r, _)| kept(*r))
                .map(|(_, d)| *d)
                .take(rlen)
                .collect()
        });
    }
    if truncated {
        response.registers.truncate(rlen);
        if let Some(written) = &mut response.written {
            written.truncate(rlen);
        }
    }
    Ok(response)
}

/// Whether `op`'s response is subject to the Shader Channel Selects (seed 003: they "do
/// not affect ... resinfo, sampleinfo, LOD, and ld_mcs").
fn op_swizzles(op: SamplerOp) -> bool {
    !matches!(
        op,
        SamplerOp::Resinfo
            | SamplerOp::Sampleinfo
            | SamplerOp::LdMcs
            | SamplerOp::Lod
            // A media surface (MEDIA_SURFACE_STATE) has no channel selects.
            | SamplerOp::Sample8x8 { .. }
    )
}

/// A SIMD32/64 Message Type: the media layout's sample_8x8 (01011b, the value of seed
/// 000 §2.13.1.3.1's SIMD32/64 table, which Intel's vISA lowering sends on Gen8+: IGC
/// `TranslateSendMedia.cpp` "Message Type = sample8x8 Media layout"); the others are
/// refused by name.
fn op_simd32_64(t: u8) -> Result<SamplerOp, MessageError> {
    match t {
        0b01011 => Ok(SamplerOp::Sample8x8 { media: true }),
        other => Err(Unsupported::new(
            format!(
                "SIMD32/64 sampler message type {other:#07b} on Gen11 (the media sample_8x8, \
                 01011b, is modelled)"
            ),
            "seed 003 Message Descriptor - Sampling Engine",
        )
        .into()),
    }
}

/// Seed 003 RENDER_SURFACE_STATE Shader Channel Select Red/Green/Blue/Alpha: each
/// returned channel is the surface channel it selects, or 0 or 1 (0 ZERO, 1 ONE, 4 RED,
/// 5 GREEN, 6 BLUE, 7 ALPHA). The identity costs nothing; other selects are applied to
/// whole-channel writebacks (a message whose header masks channels is sampled whole
/// first, `message` leaving the masked channels out after the selects).
fn swizzle(
    entry: &SurfaceEntry,
    msg: &SamplerMessage,
    response: &mut Response,
) -> Result<(), MessageError> {
    let selects = entry.selects;
    if selects == [4, 5, 6, 7] {
        return Ok(());
    }
    if msg.header.is_some_and(|h| h.write_masks.iter().any(|&m| m)) {
        return Err(Unsupported::new(
            "a sampler write channel mask with a non-identity Shader Channel Select",
            "seed 003 RENDER_SURFACE_STATE Shader Channel Select",
        )
        .into());
    }
    let w = if msg.simd == SamplerSimd::Simd16 {
        2
    } else {
        1
    };
    let regs = &mut response.registers;
    if regs.len() < 4 * w {
        return Ok(());
    }
    let one = entry.one;
    let mut source = [[0u8; 32]; 8];
    source[..4 * w].copy_from_slice(&regs[..4 * w]);
    for (c, sel) in selects.iter().enumerate() {
        for r in 0..w {
            regs[c * w + r] = match sel {
                0 => [0; 32],
                1 => {
                    let mut reg = [0u8; 32];
                    for d in reg.chunks_exact_mut(4) {
                        d.copy_from_slice(&one.to_le_bytes());
                    }
                    reg
                }
                4..=7 => source[usize::from(*sel as u8 - 4) * w + r],
                other => {
                    return Err(state_error(
                        "RENDER_SURFACE_STATE",
                        format!("Shader Channel Select {other} is reserved"),
                    ));
                }
            };
        }
    }
    Ok(())
}

/// Shader Channel Select Red, Green, Blue and Alpha.
fn channel_selects(rss: &RenderSurfaceState) -> [u32; 4] {
    [
        rss.shader_channel_select_red.0,
        rss.shader_channel_select_green.0,
        rss.shader_channel_select_blue.0,
        rss.shader_channel_select_alpha.0,
    ]
}

/// SCS_ONE's value in the surface format's class: 1 for integer formats, 1.0 otherwise.
fn one_bits(rss: &RenderSurfaceState) -> u32 {
    match gtsim_mem::format::texel::numeric_class(rss.surface_format) {
        Ok(gtsim_mem::format::texel::NumericClass::Uint)
        | Ok(gtsim_mem::format::texel::NumericClass::Sint) => 1,
        _ => 1.0f32.to_bits(),
    }
}

/// A surface as the Gen11 sampler uses it: the neutral view, and the Shader Channel
/// Selects applied to what it returns.
#[derive(Debug, Clone)]
struct SurfaceEntry {
    view: std::sync::Arc<SurfaceView>,
    /// Shader Channel Select Red, Green, Blue and Alpha.
    selects: [u32; 4],
    /// SCS_ONE's bits in the surface format's class.
    one: u32,
}

impl gtsim_sampler::cache::HostCopy for SurfaceEntry {
    fn host_copy(&self) -> Self {
        SurfaceEntry {
            view: gtsim_sampler::cache::HostCopy::host_copy(&self.view),
            ..*self
        }
    }
}

/// The surfaces and sampler states a draw's or dispatch's sampler messages resolved
/// (the neutral [`TableCache`]): each decoded once per draw.
#[derive(Debug, Default)]
pub(crate) struct SamplerCache {
    surfaces: TableCache<SurfaceEntry>,
    samplers: TableCache<SamplerConfig>,
}

/// The surfaces and sampler states of one stage's tables.
struct Resources<'a> {
    cache: &'a SamplerCache,
    bases: &'a Bases,
    tables: StageTables,
    mem: &'a dyn Memory,
    /// The last surface entry this message looked up (a message names one surface,
    /// and asks for it more than once).
    last: std::cell::RefCell<Option<(u8, SurfaceEntry)>>,
    /// The message's extended descriptor: the surface state offset of a bindless
    /// surface (`crate::bases::surface_state_address`).
    ex_desc: u32,
}

impl Resources<'_> {
    /// The surface state address of binding table entry `bti` (or of the bindless
    /// surface the extended descriptor names).
    fn surface_state_at(&self, bti: u8) -> Result<u64, MessageError> {
        crate::bases::surface_state_address(
            self.mem,
            self.bases,
            self.tables.binding_table,
            bti,
            self.ex_desc,
        )
        .map_err(gtsim_pipe3d::draw::DrawError::into_message_error)
    }

    fn rss(&self, bti: u8) -> Result<RenderSurfaceState, MessageError> {
        let at = self.surface_state_at(bti)?;
        let rss = gtsim_pipe3d::state::read_indirect(
            self.mem,
            "RENDER_SURFACE_STATE",
            at,
            RenderSurfaceState::DWORDS,
            RenderSurfaceState::unpack,
        )
        .map_err(gtsim_pipe3d::draw::DrawError::into_message_error)?;
        crate::surface::refuse_astc(&rss)?;
        Ok(rss)
    }
}

impl Resources<'_> {
    /// The surface at `bti`, through the cache.
    fn entry(&self, bti: u8) -> Result<SurfaceEntry, MessageError> {
        if let Some((at, e)) = &*self.last.borrow()
            && *at == bti
        {
            return Ok(e.clone());
        }
        // A bindless surface is cached under its surface state's offset (a key no
        // binding table address takes: bit 63 set).
        let table = if bti == crate::bases::BTI_BINDLESS {
            1 << 63 | u64::from(self.ex_desc & 0xffff_f000)
        } else {
            self.tables.binding_table
        };
        let e = self.cache.surfaces.get_or(table, bti, || {
            let rss = self.rss(bti)?;
            Ok::<_, MessageError>(SurfaceEntry {
                view: std::sync::Arc::new(surface_view(&rss, self.mem)),
                selects: channel_selects(&rss),
                one: one_bits(&rss),
            })
        })?;
        *self.last.borrow_mut() = Some((bti, e.clone()));
        Ok(e)
    }

    /// SAMPLER_STATE `index` of the stage's table, read and decoded.
    fn decode_sampler(&self, index: u8) -> Result<SamplerConfig, MessageError> {
        let at = address(
            self.tables
                .sampler_state
                .wrapping_add(u64::from(index) * 16),
        );
        let s = gtsim_pipe3d::state::read_indirect(
            self.mem,
            "SAMPLER_STATE",
            at,
            SamplerState::DWORDS,
            SamplerState::unpack,
        )
        .map_err(gtsim_pipe3d::draw::DrawError::into_message_error)?;
        // The border colour is read only when an address mode can reach it
        // (TEXCOORDMODE_CLAMP_BORDER 4, HALF_BORDER 6): iris binds its border colour
        // pool only to batches whose samplers need it.
        let modes = [
            s.tcx_address_control_mode,
            s.tcy_address_control_mode,
            s.tcz_address_control_mode,
        ];
        let b = if modes.iter().any(|&m| m == 4 || m == 6) {
            let border_at = address(self.bases.dynamic.wrapping_add(s.indirect_state_pointer));
            self.mem
                .read_dwords(border_at, 4)
                .map_err(|fault| MessageError::Fault {
                    what: "SAMPLER_BORDER_COLOR_STATE".into(),
                    fault,
                })?
        } else {
            vec![0; 4]
        };
        Ok(sampler_config(
            &s,
            b.into_iter().map(f32::from_bits).collect(),
        ))
    }
}

impl SamplerResources for Resources<'_> {
    fn surface(&self, bti: u8) -> Result<std::sync::Arc<SurfaceView>, MessageError> {
        Ok(self.entry(bti)?.view)
    }

    fn sampler(&self, index: u8) -> Result<SamplerConfig, MessageError> {
        self.cache
            .samplers
            .get_or(self.tables.sampler_state, index, || {
                self.decode_sampler(index)
            })
    }

    fn memory(&self) -> &dyn Memory {
        self.mem
    }

    fn media_surface(&self, bti: u8) -> Result<MediaSurfaceView, MessageError> {
        crate::sampling_media::media_surface(self.mem, self.surface_state_at(bti)?)
    }

    fn avs(&self, index: u8) -> Result<AvsConfig, MessageError> {
        crate::sampling_media::avs(self.mem, self.tables.sampler_state, index)
    }
}

/// SAMPLER_STATE (seed 003, the Gen8+ 4-dword form) as the sampler uses it.
fn sampler_config(s: &SamplerState, border: Vec<f32>) -> SamplerConfig {
    let border = [0, 1, 2, 3].map(|i| border.get(i).copied().unwrap_or(0.0));
    SamplerConfig {
        disabled: s.sampler_disable,
        min_filter: MapFilter::from_raw(u32::from(s.min_mode_filter)),
        mag_filter: MapFilter::from_raw(u32::from(s.mag_mode_filter)),
        mip_filter: MipFilter::from_raw(u32::from(s.mip_mode_filter)),
        address: [
            TexCoordMode::from_raw_gen8(u32::from(s.tcx_address_control_mode)),
            TexCoordMode::from_raw_gen8(u32::from(s.tcy_address_control_mode)),
            TexCoordMode::from_raw_gen8(u32::from(s.tcz_address_control_mode)),
        ],
        // The Gen11 front has no 3DSTATE_CHROMA_KEY table wired to the sampler yet; a
        // sampler asking for a chroma key fails at its first use.
        chroma_key: None,
        shadow: gtsim_sampler::shadow::ShadowFunction::from_raw(u32::from(s.shadow_function)),
        border_dx9: s.texture_border_color_mode == 1,
        max_anisotropy: f32::from((s.maximum_anisotropy & 7) + 1) * 2.0,
        // Cube Surface Control Mode 1: OVERRIDE.
        cube_override: s.cube_surface_control_mode == 1,
        trilinear_threshold: match s.trilinear_filter_quality {
            0 => Ok(0.0),
            2 => Ok(0.25),
            3 => Ok(0.375),
            other => Err(u32::from(other)),
        },
        lod_bias: s.texture_lod_bias as f32,
        min_lod: s.min_lod as f32,
        max_lod: s.max_lod as f32,
        // Gen8+ moved Base Mip Level to RENDER_SURFACE_STATE; isl programs 0 there.
        base_mip_level: 0.0,
        // LOD PreClamp Mode 2: OGL.
        lod_pre_clamp: s.lod_pre_clamp_mode == 2,
        non_normalized: s.non_normalized_coordinate_enable,
        border,
        integer_border: true,
    }
}

/// RENDER_SURFACE_STATE (seed 003) as the sampler sees it, in the Gen9+ layouts: 2D
/// and cube surfaces as 2D arrays, 3D surfaces as 2D arrays of their slices, slices
/// Surface QPitch rows apart; 1D surfaces in the GFX9 1D layout; buffers; multisampled
/// 2D surfaces with their samples as slices (or interleaved), their MCS and its clear
/// value (read from `mem` when at the Clear Value Address).
fn surface_view(rss: &RenderSurfaceState, mem: &dyn Memory) -> SurfaceView {
    let (kind, ty) = match rss.surface_type {
        St::SURFTYPE_1D => (SurfaceKind::D1, SurfaceType::D1),
        St::SURFTYPE_2D => (SurfaceKind::D2, SurfaceType::D2),
        St::SURFTYPE_3D => (SurfaceKind::D3, SurfaceType::D3),
        St::SURFTYPE_CUBE => (SurfaceKind::Cube, SurfaceType::Cube),
        St::SURFTYPE_BUFFER => (SurfaceKind::Buffer, SurfaceType::Buffer),
        St::SURFTYPE_NULL => (SurfaceKind::Null, SurfaceType::D2),
        other => (SurfaceKind::Reserved(other.0), SurfaceType::D2),
    };
    let levels = u32::from(rss.mip_count_lod) + u32::from(rss.surface_min_lod) + 1;
    let (w, h, d) = (
        u32::from(rss.width) + 1,
        u32::from(rss.height) + 1,
        u32::from(rss.depth) + 1,
    );
    let entries = crate::surface::buffer_entries(rss);
    let layout = match kind {
        SurfaceKind::Buffer => crate::surface::layout(
            rss,
            SurfaceType::Buffer,
            (entries as u32, 1, 1),
            1,
            ArraySpacing::Full,
        ),
        _ => crate::surface::layout(
            rss,
            ty,
            (
                w,
                if kind == SurfaceKind::D1 { 1 } else { h },
                // The layout reaches the view's slices from Minimum Array Element (a
                // texture view of an array's later layers; a 3D surface's Depth is its z
                // count).
                match kind {
                    SurfaceKind::Cube => 6 * d + u32::from(rss.minimum_array_element),
                    SurfaceKind::D3 => d,
                    _ => d + u32::from(rss.minimum_array_element),
                },
            ),
            levels,
            ArraySpacing::QPitch(u32::from(rss.surface_qpitch) << 2),
        ),
    };
    let samples = layout.as_ref().map_or(1, |l| l.desc.samples);
    let mcs = layout
        .as_ref()
        .ok()
        .and_then(|l| crate::surface::mcs_surface(rss, l));
    // The clear value an MCS-cleared pixel reads.
    let (clear_value, layout) = match &mcs {
        Some(_) => match crate::surface::clear_value(mem, rss) {
            Ok(v) => (Some(v), layout),
            Err(fault) => (
                None,
                Err(MessageError::Fault {
                    what: "the surface's clear value".into(),
                    fault,
                }),
            ),
        },
        None => (None, layout),
    };
    SurfaceView {
        kind,
        layout,
        size: [w, h, d],
        array: rss.surface_array,
        mip_count: u32::from(rss.mip_count_lod),
        surface_min_lod: u32::from(rss.surface_min_lod),
        resource_min_lod: rss.resource_min_lod as f32,
        min_array_element: u32::from(rss.minimum_array_element),
        samples,
        sample_palette_index: 0,
        mcs,
        clear_color: [false; 4],
        clear_value,
        buffer_entries: entries as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::op;
    use gtsim_sampler::state::SamplerOp;

    /// Mesa's Gen9+ ld sends "u v lod r"; the neutral (Gen7) ld reads "u lod v r":
    /// parameter 1 (lod) of the Gen7 order is Gen11's parameter 2. The `_lz` forms put a
    /// zero LOD where Gen7 has one.
    #[test]
    fn gen9_argument_orders_map_onto_the_gen7_tables() {
        let (ld, order) = op(7);
        assert_eq!(ld, SamplerOp::Ld);
        assert_eq!(order.unwrap(), &[Some(0), Some(2), Some(1), Some(3)]);
        let (ld_lz, order) = op(26);
        assert_eq!(ld_lz, SamplerOp::Ld);
        assert_eq!(order.unwrap(), &[Some(0), None, Some(1), Some(2)]);
        let (lz, order) = op(24);
        assert_eq!(lz, SamplerOp::SampleL);
        assert_eq!(order.unwrap()[0], None);
        let (c_lz, order) = op(25);
        assert_eq!(c_lz, SamplerOp::SampleLC);
        assert_eq!(order.unwrap()[..2], [Some(0), None]);
        // ld2dms_w "si mcs0 mcs1 u v r" (Mesa lower_sampler_logical_send_gfx7) is the
        // neutral sampler's ld2dms_w, parameters as they are.
        let (ms, order) = op(28);
        assert_eq!(ms, SamplerOp::Ld2dmsW);
        assert!(order.is_none());
        // ld_mcs "u v r" onto "u v r lod".
        let (mcs, order) = op(29);
        assert_eq!(mcs, SamplerOp::LdMcs);
        assert_eq!(order.unwrap(), &[Some(0), Some(1), Some(2), None]);
    }
}

#[cfg(test)]
mod masked_select_tests {
    use super::{SamplerCache, message};
    use crate::bases::Bases;
    use crate::draw::StageTables;
    use gtsim_eu::exec::Message;
    use gtsim_isa::ir::Sfid;
    use gtsim_mem::{AddressSpace, Memory};
    use gtsim_message::Payload;
    use gtsim_spec::gen11::render_surface_state::{
        ShaderChannelSelectAlpha, ShaderChannelSelectBlue, ShaderChannelSelectGreen,
        ShaderChannelSelectRed, SurfaceType as St,
    };
    use gtsim_spec::gen11::{MessageDescriptorSamplingEngine, RenderSurfaceState};
    use gtsim_spec::shared::SurfaceFormat;

    fn reg(dw: [u32; 8]) -> [u8; 32] {
        let mut r = [0u8; 32];
        for (i, d) in dw.iter().enumerate() {
            r[i * 4..i * 4 + 4].copy_from_slice(&d.to_le_bytes());
        }
        r
    }

    /// An `ld` (SIMD8, header present) of texel (1, 0) = (10, 20, 30, 40) of an
    /// R8G8B8A8_UINT surface whose Shader Channel Selects are BLUE, RED, ONE, ALPHA,
    /// with the header masking green (M0.2 bit 13): the shader sees red = 30 (blue),
    /// green masked, blue = 1 (SCS_ONE of an integer format), alpha = 40, so the three
    /// response registers are 30, 1 and 40 (seed 003 RENDER_SURFACE_STATE Shader
    /// Channel Select; the masks apply to the channels the shader sees).
    #[test]
    fn a_masked_channel_of_a_swizzled_surface_is_left_out_after_the_selects() {
        let mut mem = AddressSpace::new();
        mem.map(0x1000, 0x2000);
        mem.write_u32(0x1000, 0x1100).unwrap();
        let rss = RenderSurfaceState {
            surface_type: St::SURFTYPE_2D,
            surface_format: SurfaceFormat::R8G8B8A8_UINT,
            width: 3,
            height: 0,
            surface_pitch: 15,
            surface_base_address: 0x1800,
            shader_channel_select_red: ShaderChannelSelectRed(6),
            shader_channel_select_green: ShaderChannelSelectGreen(4),
            shader_channel_select_blue: ShaderChannelSelectBlue(1),
            shader_channel_select_alpha: ShaderChannelSelectAlpha(7),
            ..Default::default()
        };
        let bytes: Vec<u8> = rss
            .pack()
            .unwrap()
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect();
        mem.write(0x1100, &bytes).unwrap();
        mem.write(0x1804, &[10, 20, 30, 40]).unwrap();
        let desc = MessageDescriptorSamplingEngine {
            message_length: 4,
            response_length: 3,
            header_present: true,
            simd_mode_1_0: 1,
            message_type: 7,
            ..Default::default()
        }
        .pack()
        .unwrap()[0];
        let mut payload = Payload::new();
        payload.push(reg([0, 0, 1 << 13, 0, 0, 0, 0, 0]));
        payload.push(reg([1; 8]));
        payload.push(reg([0; 8]));
        payload.push(reg([0; 8]));
        let m = Message {
            sfid: Sfid::Sampler,
            desc,
            ex_desc: 0,
            exec_size: 8,
            channel_mask: 1,
            first_channel: 0,
            payload,
            payload2: Payload::new(),
            response_length: 3,
            dst: 0,
            eot: false,
            ip: 0,
        };
        let tables = StageTables {
            binding_table: 0x1000,
            ..Default::default()
        };
        let r = message(
            &SamplerCache::default(),
            &Bases::default(),
            tables,
            &mem,
            &m,
        )
        .unwrap();
        let lane0: Vec<u32> = r
            .registers
            .iter()
            .map(|g| u32::from_le_bytes([g[0], g[1], g[2], g[3]]))
            .collect();
        assert_eq!(lane0, [30, 1, 40]);
        // Only channel 0 is enabled: the writeback leaves the other seven channels of
        // each register as they were (seed 000 §2.13.2.2, "the pixels written within
        // each destination register is determined by the execution mask").
        assert_eq!(r.written, Some(vec![1, 1, 1]));
    }

    /// 16 samples per pixel (seed 003 MULTISAMPLECOUNT_16) with an MCS of 64-bit
    /// elements (Mesa isl ISL_FORMAT_MCS_16X: 4 bits per sample, sample 0 lowest):
    /// pixel (0, 0)'s MCS sends sample 11 to sample slice 5 and every other sample to
    /// slice 0. `ld_mcs` returns the element's low and high dwords; `ld2dms_w` with them
    /// reads sample 11 from slice 5 and sample 3 from slice 0 (texel of slice k: k, k+1,
    /// k+2, k+3); the all-ones element reads the surface's clear value. Worked by hand.
    #[test]
    fn sixteen_sample_surfaces_read_through_a_64_bit_mcs() {
        use gtsim_mem::layout::{ArraySpacing, SurfaceType};
        use gtsim_spec::gen11::render_surface_state::{
            AuxiliarySurfaceMode, NumberOfMultisamples, TileMode,
        };
        let mut mem = AddressSpace::new();
        mem.map(0x1000, 0x1000);
        mem.map(0x10_0000, 0x10_0000);
        mem.map(0x40_0000, 0x1000);
        mem.write_u32(0x1000, 0x1100).unwrap();
        let rss = RenderSurfaceState {
            surface_type: St::SURFTYPE_2D,
            surface_format: SurfaceFormat::R8G8B8A8_UINT,
            width: 1,
            height: 0,
            tile_mode: TileMode::YMAJOR,
            surface_pitch: 127,
            surface_qpitch: 1,
            surface_base_address: 0x10_0000,
            number_of_multisamples: NumberOfMultisamples::MULTISAMPLECOUNT_16,
            auxiliary_surface_mode: AuxiliarySurfaceMode::AUX_CCS_E,
            auxiliary_surface_base_address: 0x40_0000,
            auxiliary_surface_pitch: 0,
            auxiliary_surface_qpitch: 1,
            shader_channel_select_red: ShaderChannelSelectRed(4),
            shader_channel_select_green: ShaderChannelSelectGreen(5),
            shader_channel_select_blue: ShaderChannelSelectBlue(6),
            shader_channel_select_alpha: ShaderChannelSelectAlpha(7),
            red_clear_color: 70,
            green_clear_color: 71,
            blue_clear_color: 72,
            alpha_clear_color: 73,
            ..Default::default()
        };
        let bytes: Vec<u8> = rss
            .pack()
            .unwrap()
            .iter()
            .flat_map(|d| d.to_le_bytes())
            .collect();
        mem.write(0x1100, &bytes).unwrap();
        // Each sample slice's texel (0, 0), where the layout places it.
        let main =
            crate::surface::layout(&rss, SurfaceType::D2, (2, 1, 1), 1, ArraySpacing::QPitch(4))
                .unwrap();
        for k in 0..16u8 {
            let off = main.desc.texel_offset(0, 0, 0, 0, u32::from(k)).unwrap();
            mem.write(0x10_0000 + off, &[k, k + 1, k + 2, k + 3])
                .unwrap();
        }
        // The MCS element of pixel (0, 0): Y tile offset 0, 8 bytes.
        let mcs: u64 = 5 << (11 * 4);
        mem.write(0x40_0000, &mcs.to_le_bytes()).unwrap();
        let tables = StageTables {
            binding_table: 0x1000,
            ..Default::default()
        };
        let send = |message_type: u8, params: &[[u32; 8]], rlen: u8| {
            let desc = MessageDescriptorSamplingEngine {
                message_length: params.len() as u8,
                response_length: rlen,
                simd_mode_1_0: 1,
                message_type,
                ..Default::default()
            }
            .pack()
            .unwrap()[0];
            let mut payload = Payload::new();
            for p in params {
                payload.push(reg(*p));
            }
            let m = Message {
                sfid: Sfid::Sampler,
                desc,
                ex_desc: 0,
                exec_size: 8,
                channel_mask: 1,
                first_channel: 0,
                payload,
                payload2: Payload::new(),
                response_length: rlen,
                dst: 0,
                eot: false,
                ip: 0,
            };
            let r = message(
                &SamplerCache::default(),
                &Bases::default(),
                tables,
                &mem,
                &m,
            )
            .unwrap();
            r.registers
                .iter()
                .map(|g| u32::from_le_bytes([g[0], g[1], g[2], g[3]]))
                .collect::<Vec<u32>>()
        };
        // ld_mcs "u v r" (type 29): the element as R32G32_UINT.
        let lo = (mcs & 0xffff_ffff) as u32;
        let hi = (mcs >> 32) as u32;
        assert_eq!(send(29, &[[0; 8], [0; 8], [0; 8]], 2), [lo, hi]);
        // ld2dms_w "si mcs0 mcs1 u v r" (type 28).
        let ld2dms_w = |si: u32, mcs: u64| {
            send(
                28,
                &[
                    [si; 8],
                    [(mcs & 0xffff_ffff) as u32; 8],
                    [(mcs >> 32) as u32; 8],
                    [0; 8],
                    [0; 8],
                    [0; 8],
                ],
                4,
            )
        };
        assert_eq!(ld2dms_w(11, mcs), [5, 6, 7, 8]);
        assert_eq!(ld2dms_w(3, mcs), [0, 1, 2, 3]);
        assert_eq!(ld2dms_w(15, mcs), [0, 1, 2, 3]);
        assert_eq!(ld2dms_w(11, u64::MAX), [70, 71, 72, 73]);
    }

    /// A SIMD8 `sample` at u = 2 (outside the map) with CLAMP_BORDER on an R16G16_SINT
    /// surface whose SAMPLER_BORDER_COLOR_STATE holds (−5, 7, 9, 11) as integers: seed
    /// 003 (DX10/OpenGL mode) reads it as R32G32B32A32_SINT and gives the channels the
    /// format lacks 0 and 1, so the response is −5, 7, 0, 1. Gen7 refuses the same
    /// (seed 000 §2.13.1.4).
    #[test]
    fn an_integer_surface_takes_the_border_colour_as_integers() {
        let mut mem = AddressSpace::new();
        mem.map(0x1000, 0x3000);
        // Binding table at 0x1000, its entry 0 the surface state at 0x1100.
        mem.write_u32(0x1000, 0x1100).unwrap();
        let rss = RenderSurfaceState {
            surface_type: St::SURFTYPE_2D,
            surface_format: SurfaceFormat::R16G16_SINT,
            width: 3,
            height: 3,
            surface_pitch: 15,
            surface_base_address: 0x1800,
            shader_channel_select_red: ShaderChannelSelectRed(4),
            shader_channel_select_green: ShaderChannelSelectGreen(5),
            shader_channel_select_blue: ShaderChannelSelectBlue(6),
            shader_channel_select_alpha: ShaderChannelSelectAlpha(7),
            ..Default::default()
        };
        let words = |v: Vec<u32>| -> Vec<u8> { v.iter().flat_map(|d| d.to_le_bytes()).collect() };
        mem.write(0x1100, &words(rss.pack().unwrap())).unwrap();
        // SAMPLER_STATE at 0x2000: NEAREST, CLAMP_BORDER (4) on every axis, the border
        // colour at Dynamic State Base (0) + 0x2800.
        let sampler = gtsim_spec::gen11::SamplerState {
            tcx_address_control_mode: 4,
            tcy_address_control_mode: 4,
            tcz_address_control_mode: 4,
            indirect_state_pointer: 0x2800,
            ..Default::default()
        };
        mem.write(0x2000, &words(sampler.pack().unwrap())).unwrap();
        mem.write(0x2800, &words(vec![(-5i32) as u32, 7, 9, 11]))
            .unwrap();
        let desc = MessageDescriptorSamplingEngine {
            message_length: 2,
            response_length: 4,
            simd_mode_1_0: 1,
            message_type: 0,
            ..Default::default()
        }
        .pack()
        .unwrap()[0];
        let mut payload = Payload::new();
        payload.push(reg([2.0f32.to_bits(); 8]));
        payload.push(reg([0.5f32.to_bits(); 8]));
        let m = Message {
            sfid: Sfid::Sampler,
            desc,
            ex_desc: 0,
            exec_size: 8,
            channel_mask: 1,
            first_channel: 0,
            payload,
            payload2: Payload::new(),
            response_length: 4,
            dst: 0,
            eot: false,
            ip: 0,
        };
        let tables = StageTables {
            binding_table: 0x1000,
            sampler_state: 0x2000,
            ..Default::default()
        };
        let r = message(
            &SamplerCache::default(),
            &Bases::default(),
            tables,
            &mem,
            &m,
        )
        .unwrap();
        let lane0: Vec<i32> = r
            .registers
            .iter()
            .map(|g| i32::from_le_bytes([g[0], g[1], g[2], g[3]]))
            .collect();
        assert_eq!(lane0, [-5, 7, 0, 1]);
        // In DX9 border colour mode the integer border depends on a register the model
        // does not read: refused by name.
        let dx9 = gtsim_spec::gen11::SamplerState {
            texture_border_color_mode: 1,
            ..sampler
        };
        mem.write(0x2000, &words(dx9.pack().unwrap())).unwrap();
        let e = message(
            &SamplerCache::default(),
            &Bases::default(),
            tables,
            &mem,
            &m,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("DX9 border colour mode"), "{e}");
    }
}
