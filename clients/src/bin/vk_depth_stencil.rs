//! `vk_depth_stencil`: the depth and stencil tests. A diamond is first drawn into the
//! stencil buffer only (colour writes off, stencil REPLACE 1); then two triangles that
//! cross in depth (one flat at z = 0.5, one slanted from 0.1 to 0.9) are drawn with
//! depth test LESS and stencil test EQUAL 1, so they show inside the diamond alone, each
//! in front where it is nearer. The depth/stencil format is the first of D24S8 and
//! D32S8 the driver can attach.

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_depth_stencil", draw)
}

/// x, y, z and RGBA per vertex: the stencil diamond (two triangles), then the flat
/// orange triangle and the slanted cyan one.
const VERTICES: [f32; 84] = [
    0.0, -0.8, 0.0, 1.0, 1.0, 1.0, 1.0, //
    0.8, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, //
    -0.8, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, //
    -0.8, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, //
    0.8, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, //
    0.0, 0.8, 0.0, 1.0, 1.0, 1.0, 1.0, //
    -0.9, -0.7, 0.5, 1.0, 0.5, 0.0, 1.0, //
    0.9, -0.7, 0.5, 1.0, 0.5, 0.0, 1.0, //
    0.0, 0.9, 0.5, 1.0, 0.5, 0.0, 1.0, //
    -0.9, 0.7, 0.1, 0.0, 0.8, 0.9, 1.0, //
    0.9, 0.7, 0.9, 0.0, 0.8, 0.9, 1.0, //
    0.0, -0.9, 0.5, 0.0, 0.8, 0.9, 1.0,
];

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    let vk::ColorTarget {
        image: color,
        pass,
        fb,
        depth: _ds,
    } = vk::color_depth_target(g, size)?;
    let vertices = g.buffer_with(
        &vk::f32_bytes(&VERTICES),
        v::BufferUsageFlags::VERTEX_BUFFER,
    )?;
    let layout = vk::pipeline_layout(g, &[], 32)?;
    let stencil = |compare, pass_op| v::StencilOpState {
        fail_op: v::StencilOp::KEEP,
        pass_op,
        depth_fail_op: v::StencilOp::KEEP,
        compare_op: compare,
        compare_mask: 0xff,
        write_mask: 0xff,
        reference: 1,
    };
    let desc = |blend, depth, stencil| vk::PipelineDesc {
        vertex: include_bytes!("../../shaders/color.vert.spv"),
        fragment: include_bytes!("../../shaders/color.frag.spv"),
        vertex_input: vk::COLOR_VERTEX_INPUT,
        topology: v::PrimitiveTopology::TRIANGLE_LIST,
        blend,
        depth,
        stencil,
        samples: v::SampleCountFlags::TYPE_1,
        layout,
        render_pass: pass,
        size,
    };
    let no_color = v::PipelineColorBlendAttachmentState::default();
    let mask = vk::pipeline(
        g,
        &desc(
            Some(no_color),
            None,
            Some(stencil(v::CompareOp::ALWAYS, v::StencilOp::REPLACE)),
        ),
    )?;
    let scene = vk::pipeline(
        g,
        &desc(
            None,
            Some(v::CompareOp::LESS),
            Some(stencil(v::CompareOp::EQUAL, v::StencilOp::KEEP)),
        ),
    )?;
    let push = vk::f32_bytes(&[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    g.submit(|d, cmd| {
        vk::begin_pass(d, cmd, pass, fb, size, [0.1, 0.1, 0.1, 1.0]);
        // SAFETY: recording inside the render pass begun above, with objects of this device.
        unsafe {
            d.cmd_push_constants(cmd, layout, v::ShaderStageFlags::ALL, 0, &push);
            d.cmd_bind_vertex_buffers(cmd, 0, &[vertices.buffer], &[0]);
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, mask);
            d.cmd_draw(cmd, 6, 1, 0, 0);
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, scene);
            d.cmd_draw(cmd, 6, 1, 6, 0);
            d.cmd_end_render_pass(cmd);
        }
    })?;
    g.read_image(&color, v::ImageLayout::TRANSFER_SRC_OPTIMAL)
}
