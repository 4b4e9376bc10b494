//! `vk_triangle`: the GL `triangle` scene in Vulkan: one vertex-coloured triangle on a
//! dark grey background (red bottom-left, green bottom-right, blue top centre; Vulkan's
//! clip space has y down, so the vertices' y is negated), drawn from a vertex buffer in
//! a render pass that clears, then copied to a host buffer.

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_triangle", draw)
}

/// Position (x, y, z) and colour (RGBA) per vertex.
const VERTICES: [f32; 21] = [
    -0.8, 0.8, 0.0, 1.0, 0.0, 0.0, 1.0, //
    0.8, 0.8, 0.0, 0.0, 1.0, 0.0, 1.0, //
    0.0, -0.8, 0.0, 0.0, 0.0, 1.0, 1.0,
];

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    let format = v::Format::R8G8B8A8_UNORM;
    let color = g.image(
        size,
        format,
        v::ImageUsageFlags::COLOR_ATTACHMENT | v::ImageUsageFlags::TRANSFER_SRC,
        v::SampleCountFlags::TYPE_1,
        1,
    )?;
    let vertices = g.buffer_with(
        &vk::f32_bytes(&VERTICES),
        v::BufferUsageFlags::VERTEX_BUFFER,
    )?;
    let pass = vk::render_pass(g, format, v::SampleCountFlags::TYPE_1, None, false)?;
    let fb = vk::framebuffer(g, pass, &[color.view], size)?;
    let layout = vk::pipeline_layout(g, &[], 32)?;
    let pipeline = vk::pipeline(
        g,
        &vk::PipelineDesc {
            vertex: include_bytes!("../../shaders/color.vert.spv"),
            fragment: include_bytes!("../../shaders/color.frag.spv"),
            vertex_input: (
                28,
                &[
                    (0, v::Format::R32G32B32_SFLOAT, 0),
                    (1, v::Format::R32G32B32A32_SFLOAT, 12),
                ],
            ),
            topology: v::PrimitiveTopology::TRIANGLE_LIST,
            blend: None,
            depth: None,
            stencil: None,
            samples: v::SampleCountFlags::TYPE_1,
            layout,
            render_pass: pass,
            size,
        },
    )?;
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
