//! `vk_blend`: blending. Over a dark background, three overlapping instances of a
//! square (moved by a push-constant offset per instance) are blended with
//! SRC_ALPHA/ONE_MINUS_SRC_ALPHA at alpha 0.5, then one more with additive blending
//! (ONE/ONE) in a different tint.

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_blend", draw)
}

/// A square in the top-left quarter, two triangles, colour per corner (alpha 0.5).
const SQUARE: [f32; 42] = [
    -0.8, -0.8, 0.0, 1.0, 0.2, 0.2, 0.5, //
    0.2, -0.8, 0.0, 0.2, 1.0, 0.2, 0.5, //
    -0.8, 0.2, 0.0, 0.2, 0.2, 1.0, 0.5, //
    -0.8, 0.2, 0.0, 0.2, 0.2, 1.0, 0.5, //
    0.2, -0.8, 0.0, 0.2, 1.0, 0.2, 0.5, //
    0.2, 0.2, 0.0, 1.0, 1.0, 0.2, 0.5,
];

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    let vk::ColorTarget {
        image: color,
        pass,
        fb,
        ..
    } = vk::color_target(g, size)?;
    let vertices = g.buffer_with(&vk::f32_bytes(&SQUARE), v::BufferUsageFlags::VERTEX_BUFFER)?;
    let layout = vk::pipeline_layout(g, &[], 32)?;
    let blend = |src, dst| {
        v::PipelineColorBlendAttachmentState::default()
            .blend_enable(true)
            .src_color_blend_factor(src)
            .dst_color_blend_factor(dst)
            .color_blend_op(v::BlendOp::ADD)
            .src_alpha_blend_factor(v::BlendFactor::ONE)
            .dst_alpha_blend_factor(v::BlendFactor::ZERO)
            .alpha_blend_op(v::BlendOp::ADD)
            .color_write_mask(v::ColorComponentFlags::RGBA)
    };
    let desc = |b| vk::PipelineDesc {
        vertex: include_bytes!("../../shaders/color.vert.spv"),
        fragment: include_bytes!("../../shaders/color.frag.spv"),
        vertex_input: vk::COLOR_VERTEX_INPUT,
        topology: v::PrimitiveTopology::TRIANGLE_LIST,
        blend: Some(b),
        depth: None,
        stencil: None,
        samples: v::SampleCountFlags::TYPE_1,
        layout,
        render_pass: pass,
        size,
    };
    let over = vk::pipeline(
        g,
        &desc(blend(
            v::BlendFactor::SRC_ALPHA,
            v::BlendFactor::ONE_MINUS_SRC_ALPHA,
        )),
    )?;
    let add = vk::pipeline(g, &desc(blend(v::BlendFactor::ONE, v::BlendFactor::ONE)))?;
    let three = vk::f32_bytes(&[0.3, 0.3, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    let fourth = vk::f32_bytes(&[0.6, 0.0, 0.0, 0.0, 0.5, 0.25, 0.0, 1.0]);
    g.submit(|d, cmd| {
        vk::begin_pass(d, cmd, pass, fb, size, [0.1, 0.1, 0.2, 1.0]);
        // SAFETY: recording inside the render pass begun above, with objects of this device.
        unsafe {
            d.cmd_bind_vertex_buffers(cmd, 0, &[vertices.buffer], &[0]);
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, over);
            d.cmd_push_constants(cmd, layout, v::ShaderStageFlags::ALL, 0, &three);
            d.cmd_draw(cmd, 6, 3, 0, 0);
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, add);
            d.cmd_push_constants(cmd, layout, v::ShaderStageFlags::ALL, 0, &fourth);
            d.cmd_draw(cmd, 6, 1, 0, 1);
            d.cmd_end_render_pass(cmd);
        }
    })?;
    g.read_image(&color, v::ImageLayout::TRANSFER_SRC_OPTIMAL)
}
