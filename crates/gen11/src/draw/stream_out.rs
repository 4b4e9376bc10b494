//! Gen8+ stream output: 3DSTATE_STREAMOUT, 3DSTATE_SO_DECL_LIST and 3DSTATE_SO_BUFFER
//! (seed 003 3DSTATE_STREAMOUT_BODY; Mesa genxml gen11.xml). What Gen8 changed from
//! seed 004 ch.8: the buffer pitches moved into 3DSTATE_STREAMOUT, a buffer has a size
//! (DWords - 1) instead of an end address, and the command can load its write offset:
//! with Stream Offset Write Enable, Stream Offset, or with Stream Offset 0xFFFFFFFF the
//! dword at Stream Output Buffer Offset Address, go into the SO_WRITE_OFFSETn register
//! when the command runs (the command streamer, `gtsim_gpu::device::gen11`). Draws
//! write from that register, as on Gen7, and the final offsets are also stored back to
//! the offset address when it is enabled ([`offset_write_backs`]).

use super::get;
use crate::bases::address;
use crate::latched::LatchedState;
use gtsim_pipe3d::draw::DrawError;
use gtsim_pipe3d::state::{Registers, SoBuffer, SoDecl, SoFunction, SoStream, StreamOutput};
use gtsim_spec::gen11::{SoDecl as SoDeclBits, SoWriteOffset0, ThreeDStateStreamout};

fn bad(command: &'static str, why: String) -> DrawError {
    DrawError::State { command, why }
}

/// The SOL stage of a draw.
pub(super) fn stream_output(
    s: &LatchedState,
    l: &dyn Registers,
    so: &ThreeDStateStreamout,
) -> Result<StreamOutput, DrawError> {
    let mut out = StreamOutput {
        rendering_disable: so.rendering_disable,
        render_stream: u32::from(so.render_stream_select),
        function: None,
    };
    if !so.so_function_enable {
        return Ok(out);
    }
    let list = get(&s.so_decl_list);
    let selects = [
        list.stream_to_buffer_selects_0,
        list.stream_to_buffer_selects_1,
        list.stream_to_buffer_selects_2,
        list.stream_to_buffer_selects_3,
    ];
    let counts = [
        list.num_entries_0,
        list.num_entries_1,
        list.num_entries_2,
        list.num_entries_3,
    ];
    let read = [
        (
            so.stream_0_vertex_read_offset,
            so.stream_0_vertex_read_length,
        ),
        (
            so.stream_1_vertex_read_offset,
            so.stream_1_vertex_read_length,
        ),
        (
            so.stream_2_vertex_read_offset,
            so.stream_2_vertex_read_length,
        ),
        (
            so.stream_3_vertex_read_offset,
            so.stream_3_vertex_read_length,
        ),
    ];
    let mut streams: [SoStream; 4] = Default::default();
    for (n, stream) in streams.iter_mut().enumerate() {
        let count = usize::from(counts[n]);
        if count > list.entry.len() {
            return Err(bad(
                "3DSTATE_SO_DECL_LIST",
                format!(
                    "Num Entries [{n}] is {count}, but the command carries {} SO_DECL entries",
                    list.entry.len()
                ),
            ));
        }
        // Vertex Read Offset is in 256-bit units, Read Length 256-bit units - 1.
        stream.read_offset = usize::from(read[n].0) * 2;
        stream.read_length = (usize::from(read[n].1) + 1) * 2;
        stream.buffer_selects = selects[n];
        stream.decls = list.entry[..count]
            .iter()
            .map(|e| {
                let raw = [
                    e.stream_0_decl,
                    e.stream_1_decl,
                    e.stream_2_decl,
                    e.stream_3_decl,
                ][n];
                let d = SoDeclBits::unpack(&[u32::from(raw)]).unwrap_or_default();
                SoDecl {
                    buffer: usize::from(d.output_buffer_slot),
                    hole: d.hole_flag,
                    register: usize::from(d.register_index),
                    mask: d.component_mask,
                }
            })
            .collect();
    }
    let pitches = [
        so.buffer_0_surface_pitch,
        so.buffer_1_surface_pitch,
        so.buffer_2_surface_pitch,
        so.buffer_3_surface_pitch,
    ];
    let mut buffers = [None; 4];
    let mut write_offsets = [0u32; 4];
    for b in 0..4 {
        write_offsets[b] = l.register(SoWriteOffset0::OFFSET + 4 * b as u32) & !3;
        let Some(sob) = s.so_buffers[b].as_ref().filter(|x| x.so_buffer_enable) else {
            continue;
        };
        let pitch = u32::from(pitches[b]);
        if pitch > 2048 || !pitch.is_multiple_of(4) {
            return Err(bad(
                "3DSTATE_STREAMOUT",
                format!("Buffer {b} Surface Pitch {pitch} (0 or a multiple of 4 up to 2048)"),
            ));
        }
        let base = address(sob.surface_base_address);
        buffers[b] = Some(SoBuffer {
            base,
            end: base.wrapping_add((u64::from(sob.surface_size) + 1) * 4),
            pitch,
        });
    }
    out.function = Some(SoFunction {
        statistics: so.so_statistics_enable,
        reorder_trailing: so.reorder_mode.0 == 1,
        streams,
        buffers,
        write_offsets,
    });
    Ok(out)
}

/// Where the draw's final write offsets are stored: per enabled buffer with Stream
/// Output Buffer Offset Address Enable, that address.
pub fn offset_write_backs(s: &LatchedState) -> [Option<u64>; 4] {
    std::array::from_fn(|b| {
        s.so_buffers[b]
            .as_ref()
            .filter(|x| x.so_buffer_enable && x.stream_output_buffer_offset_address_enable)
            .map(|x| address(x.stream_output_buffer_offset_address))
    })
}
