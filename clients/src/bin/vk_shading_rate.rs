//! `vk_shading_rate`: a 2x2 pipeline fragment shading rate (VK_KHR_fragment_shading_rate,
//! coarse pixel shading on Ice Lake). Two triangles cover the viewport; the fragment
//! colour comes from interpolated varyings and from the 2x2 block gl_FragCoord falls in,
//! so at the 2x2 rate each 2x2 block holds the varyings' values at its centre, which is
//! what a full-rate render at half the size computes for each of its pixels: the test
//! compares this client's image with lavapipe's render at half the size, each pixel
//! doubled. (Where in the fragment area gl_FragCoord lies is the driver's choice: Mesa
//! 22.3's Gen11 compiler puts it half a pixel right of and below the centre; flooring it
//! to the block holds any choice inside the area.) A driver without pipeline shading
//! rates fails with "fragment shading rates are not offered" (hasvk on Ivy Bridge);
//! lavapipe, which has none either, renders the reference at full rate when asked for
//! half the size (`--size 32`).

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_shading_rate", draw)
}

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    // The reference size (half the default) renders at full rate on any driver.
    let rate = (size != [32, 32]).then_some([2, 2]);
    if rate.is_some() && !g.shading_rate {
        return Err(format!(
            "fragment shading rates are not offered by {}",
            g.name
        ));
    }
    let vk::ColorTarget {
        image: color,
        pass,
        fb,
    } = vk::color_target(g, size)?;
    let layout = vk::pipeline_layout(g, &[], 8)?;
    let pipeline = vk::pipeline_at_rate(
        g,
        &vk::PipelineDesc {
            vertex: include_bytes!("../../shaders/rate.vert.spv"),
            fragment: include_bytes!("../../shaders/rate.frag.spv"),
            vertex_input: (0, &[]),
            topology: v::PrimitiveTopology::TRIANGLE_STRIP,
            blend: None,
            depth: None,
            stencil: None,
            samples: v::SampleCountFlags::TYPE_1,
            layout,
            render_pass: pass,
            size,
        },
        rate,
    )?;
    // Fragment coordinates to blocks: a 2x2 fragment is one block, a full-rate pixel of
    // the reference one block.
    let scale = if rate.is_some() { 0.5 } else { 1.0 };
    let push = vk::f32_bytes(&[scale, scale]);
    g.submit(|d, cmd| {
        vk::begin_pass(d, cmd, pass, fb, size, [0.0, 0.0, 0.0, 1.0]);
        // SAFETY: recording inside the render pass begun above, with objects of this device.
        unsafe {
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_push_constants(cmd, layout, v::ShaderStageFlags::ALL, 0, &push);
            d.cmd_draw(cmd, 4, 1, 0, 0);
            d.cmd_end_render_pass(cmd);
        }
    })?;
    g.read_image(&color, v::ImageLayout::TRANSFER_SRC_OPTIMAL)
}
