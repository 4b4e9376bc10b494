//! `vk_triangle`: the GL `triangle` scene in Vulkan: one vertex-coloured triangle on a
//! dark grey background (red bottom-left, green bottom-right, blue top centre; Vulkan's
//! clip space has y down, so the vertices' y is negated), drawn from a vertex buffer in
//! a render pass that clears, then copied to a host buffer.

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_triangle", draw)
}

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    let vk::ColorTarget {
        image: color,
        pass,
        fb,
        ..
    } = vk::color_target(g, size)?;
    let vertices = g.buffer_with(
        &vk::f32_bytes(&vk::TRIANGLE),
        v::BufferUsageFlags::VERTEX_BUFFER,
    )?;
    let layout = vk::pipeline_layout(g, &[], 32)?;
    let pipeline = vk::color_pipeline(g, layout, pass, size)?;
    // No instance offset, no tint.
    let push = vk::f32_bytes(&[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    g.submit(|d, cmd| {
        vk::begin_pass(d, cmd, pass, fb, size, [0.1, 0.1, 0.1, 1.0]);
        // SAFETY: recording inside the render pass begun above, with objects of this device.
        unsafe {
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_push_constants(cmd, layout, v::ShaderStageFlags::ALL, 0, &push);
            d.cmd_bind_vertex_buffers(cmd, 0, &[vertices.buffer], &[0]);
            d.cmd_draw(cmd, 3, 1, 0, 0);
            d.cmd_end_render_pass(cmd);
        }
    })?;
    g.read_image(&color, v::ImageLayout::TRANSFER_SRC_OPTIMAL)
}
