//! `vk_indirect`: indirect, instanced and indexed draws with push constants. A small
//! triangle is drawn four times by `vkCmdDrawIndirect` (instanceCount 4, each instance
//! moved by the push-constant offset times gl_InstanceIndex); a square from a 16-bit
//! index buffer three times by `vkCmdDrawIndexedIndirect` (firstInstance 1, so the
//! offsets start one step in), tinted by another push constant.

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_indirect", draw)
}

/// A small triangle at the top left, then the four corners of a square below it.
const VERTICES: [f32; 49] = [
    -0.9, -0.9, 0.0, 1.0, 0.3, 0.3, 1.0, //
    -0.6, -0.9, 0.0, 0.3, 1.0, 0.3, 1.0, //
    -0.75, -0.6, 0.0, 0.3, 0.3, 1.0, 1.0, //
    -0.9, 0.1, 0.0, 1.0, 1.0, 1.0, 1.0, //
    -0.6, 0.1, 0.0, 1.0, 1.0, 1.0, 1.0, //
    -0.6, 0.4, 0.0, 0.5, 0.5, 0.5, 1.0, //
    -0.9, 0.4, 0.0, 0.5, 0.5, 0.5, 1.0,
];

/// The square's two triangles (vertices 0..3, indexed from vertexOffset 3).
const INDICES: [u16; 6] = [0, 1, 2, 0, 2, 3];

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    let vk::ColorTarget {
        image: color,
        pass,
        fb,
        ..
    } = vk::color_target(g, size)?;
    let vertices = g.buffer_with(
        &vk::f32_bytes(&VERTICES),
        v::BufferUsageFlags::VERTEX_BUFFER,
    )?;
    let index_bytes: Vec<u8> = INDICES.iter().flat_map(|i| i.to_le_bytes()).collect();
    let indices = g.buffer_with(&index_bytes, v::BufferUsageFlags::INDEX_BUFFER)?;
    // VkDrawIndirectCommand {vertexCount, instanceCount, firstVertex, firstInstance},
    // then VkDrawIndexedIndirectCommand {indexCount, instanceCount, firstIndex,
    // vertexOffset, firstInstance} at byte 16.
    let commands = vk::u32_bytes(&[3, 4, 0, 0, 6, 3, 0, 3, 1]);
    let indirect = g.buffer_with(&commands, v::BufferUsageFlags::INDIRECT_BUFFER)?;
    let layout = vk::pipeline_layout(g, &[], 32)?;
    let pipeline = vk::color_pipeline(g, layout, pass, size)?;
    let triangles = vk::f32_bytes(&[0.45, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    let squares = vk::f32_bytes(&[0.45, 0.1, 0.0, 0.0, 1.0, 0.6, 0.2, 1.0]);
    g.submit(|d, cmd| {
        vk::begin_pass(d, cmd, pass, fb, size, [0.05, 0.05, 0.05, 1.0]);
        // SAFETY: recording inside the render pass begun above, with objects of this device.
        unsafe {
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_bind_vertex_buffers(cmd, 0, &[vertices.buffer], &[0]);
            d.cmd_bind_index_buffer(cmd, indices.buffer, 0, v::IndexType::UINT16);
            d.cmd_push_constants(cmd, layout, v::ShaderStageFlags::ALL, 0, &triangles);
            d.cmd_draw_indirect(cmd, indirect.buffer, 0, 1, 16);
            d.cmd_push_constants(cmd, layout, v::ShaderStageFlags::ALL, 0, &squares);
            d.cmd_draw_indexed_indirect(cmd, indirect.buffer, 16, 1, 20);
            d.cmd_end_render_pass(cmd);
        }
    })?;
    g.read_image(&color, v::ImageLayout::TRANSFER_SRC_OPTIMAL)
}
