//! `vk_msaa`: 4x multisampling resolved by the render pass. Two crossing triangles
//! (the `vk_triangle` one and a thin slanted one) are drawn into a 4-sample colour
//! attachment whose subpass resolves into a single-sample image, which is read back:
//! the edges carry the resolved coverage.

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_msaa", draw)
}

const VERTICES: [f32; 42] = [
    -0.8, 0.8, 0.0, 1.0, 0.0, 0.0, 1.0, //
    0.8, 0.8, 0.0, 0.0, 1.0, 0.0, 1.0, //
    0.0, -0.8, 0.0, 0.0, 0.0, 1.0, 1.0, //
    -0.95, -0.3, 0.0, 1.0, 1.0, 1.0, 1.0, //
    0.95, 0.1, 0.0, 1.0, 1.0, 0.0, 1.0, //
    -0.95, -0.2, 0.0, 1.0, 1.0, 1.0, 1.0,
];

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    let format = v::Format::R8G8B8A8_UNORM;
    let samples = v::SampleCountFlags::TYPE_4;
    let ms = g.image(
        size,
        format,
        v::ImageUsageFlags::COLOR_ATTACHMENT,
        samples,
        1,
    )?;
    let resolved = g.image(
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
    let pass = vk::render_pass(g, format, samples, None, true)?;
    let fb = vk::framebuffer(g, pass, &[ms.view, resolved.view], size)?;
    let layout = vk::pipeline_layout(g, &[], 32)?;
    let pipeline = vk::pipeline(
        g,
        &vk::PipelineDesc {
            vertex: include_bytes!("../../shaders/color.vert.spv"),
            fragment: include_bytes!("../../shaders/color.frag.spv"),
            vertex_input: vk::COLOR_VERTEX_INPUT,
            topology: v::PrimitiveTopology::TRIANGLE_LIST,
            blend: None,
            depth: None,
            stencil: None,
            samples,
            layout,
            render_pass: pass,
            size,
        },
    )?;
    let push = vk::f32_bytes(&[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    g.submit(|d, cmd| {
        vk::begin_pass(d, cmd, pass, fb, size, [0.1, 0.1, 0.1, 1.0]);
        // SAFETY: recording inside the render pass begun above, with objects of this device.
        unsafe {
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_push_constants(cmd, layout, v::ShaderStageFlags::ALL, 0, &push);
            d.cmd_bind_vertex_buffers(cmd, 0, &[vertices.buffer], &[0]);
            d.cmd_draw(cmd, 6, 1, 0, 0);
            d.cmd_end_render_pass(cmd);
        }
    })?;
    g.read_image(&resolved, v::ImageLayout::TRANSFER_SRC_OPTIMAL)
}
