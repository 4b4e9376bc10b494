//! `vk_shading_rate`: a 2x2 pipeline fragment shading rate (VK_KHR_fragment_shading_rate,
//! coarse pixel shading on Ice Lake). A white rectangle at depth 0.25 is drawn at full
//! rate ([`OCCLUDER`]: its edges cut 2x2 blocks in half), then two triangles cover the
//! viewport at depth 0.5 and the 2x2 rate, depth-tested per pixel; the fragment colour
//! comes from interpolated varyings and from the 2x2 block gl_FragCoord falls in, and
//! one block is discarded (which moves the depth test after the shader). So each 2x2
//! block holds the varyings' values at its centre, which is what a full-rate render at
//! half the size computes for each of its pixels, except where the rectangle covers
//! pixels: the test compares this client's image with lavapipe's render at half the
//! size (`--size 32`, without the rectangle), each pixel doubled, and white over the
//! rectangle. (Where in the fragment area gl_FragCoord lies is the driver's choice:
//! Mesa 22.3's Gen11 compiler puts it half a pixel right of and below the centre;
//! flooring it to the block holds any choice inside the area.) A driver without
//! pipeline shading rates fails with "fragment shading rates are not offered" (hasvk on
//! Ivy Bridge); lavapipe has none either.
use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_shading_rate", draw)
}

/// The occluder's pixels at the 2x2 rate: columns 13..41 and rows 7..31, edges through
/// the middle of 2x2 blocks (pixel centres are half a pixel from them).
pub const OCCLUDER: ([u32; 2], [u32; 2]) = ([13, 41], [7, 31]);

/// The occluder's two triangles: x, y, z and RGBA per vertex, white at depth 0.25.
fn occluder_vertices(size: [u32; 2]) -> Vec<f32> {
    let ndc = |p: u32, n: u32| p as f32 / n as f32 * 2.0 - 1.0;
    let ([x0, x1], [y0, y1]) = OCCLUDER;
    let (l, r, t, b) = (
        ndc(x0, size[0]),
        ndc(x1, size[0]),
        ndc(y0, size[1]),
        ndc(y1, size[1]),
    );
    [[l, t], [r, t], [l, b], [l, b], [r, t], [r, b]]
        .iter()
        .flat_map(|&[x, y]| [x, y, 0.25, 1.0, 1.0, 1.0, 1.0])
        .collect()
}

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    // The reference size (half the default) renders at full rate on any driver, without
    // the occluder.
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
        depth: _ds,
    } = vk::color_depth_target(g, size)?;
    let layout = vk::pipeline_layout(g, &[], 32)?;
    let desc = |vertex, fragment, vertex_input, topology| vk::PipelineDesc {
        vertex,
        fragment,
        vertex_input,
        topology,
        blend: None,
        depth: Some(v::CompareOp::LESS),
        stencil: None,
        samples: v::SampleCountFlags::TYPE_1,
        layout,
        render_pass: pass,
        size,
    };
    let occluder = vk::pipeline(
        g,
        &desc(
            include_bytes!("../../shaders/color.vert.spv"),
            include_bytes!("../../shaders/color.frag.spv"),
            vk::COLOR_VERTEX_INPUT,
            v::PrimitiveTopology::TRIANGLE_LIST,
        ),
    )?;
    let pipeline = vk::pipeline_at_rate(
        g,
        &desc(
            include_bytes!("../../shaders/rate.vert.spv"),
            include_bytes!("../../shaders/rate.frag.spv"),
            (0, &[]),
            v::PrimitiveTopology::TRIANGLE_STRIP,
        ),
        rate,
    )?;
    let vertices = g.buffer_with(
        &vk::f32_bytes(&occluder_vertices(size)),
        v::BufferUsageFlags::VERTEX_BUFFER,
    )?;
    // The occluder: no offset, white tint. The quad: fragment coordinates to blocks (a
    // 2x2 fragment is one block, a full-rate pixel of the reference one block).
    let white = vk::f32_bytes(&[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    let scale = if rate.is_some() { 0.5 } else { 1.0 };
    let push = vk::f32_bytes(&[scale, scale]);
    g.submit(|d, cmd| {
        vk::begin_pass(d, cmd, pass, fb, size, [0.0, 0.0, 0.0, 1.0]);
        // SAFETY: recording inside the render pass begun above, with objects of this device.
        unsafe {
            if rate.is_some() {
                d.cmd_push_constants(cmd, layout, v::ShaderStageFlags::ALL, 0, &white);
                d.cmd_bind_vertex_buffers(cmd, 0, &[vertices.buffer], &[0]);
                d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, occluder);
                d.cmd_draw(cmd, 6, 1, 0, 0);
            }
            d.cmd_push_constants(cmd, layout, v::ShaderStageFlags::ALL, 0, &push);
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_draw(cmd, 4, 1, 0, 0);
            d.cmd_end_render_pass(cmd);
        }
    })?;
    g.read_image(&color, v::ImageLayout::TRANSFER_SRC_OPTIMAL)
}
