//! `vk_textured`: a checkerboard texture with a full mip chain, made on the GPU with
//! `vkCmdBlitImage` (linear filter) from level 0, sampled trilinearly with REPEAT on a
//! quad seen in perspective (its far edge four times as far), so that the far rows
//! blend several levels.

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_textured", draw)
}

/// Side of the texture's level 0.
const TEXTURE: u32 = 32;

/// A checkerboard of 4x4-texel cells alternating between a colour that changes along
/// the diagonal and white.
fn checkerboard() -> Vec<u8> {
    let mut t = Vec::with_capacity((TEXTURE * TEXTURE * 4) as usize);
    for y in 0..TEXTURE {
        for x in 0..TEXTURE {
            if (x / 4 + y / 4) % 2 == 0 {
                t.extend_from_slice(&[255, 255, 255, 255]);
            } else {
                t.extend_from_slice(&[(x * 8) as u8, (y * 8) as u8, 160, 255]);
            }
        }
    }
    t
}

/// x, y, z, w and u, v per vertex: a triangle strip whose top edge is at w = 4.
const QUAD: [f32; 24] = [
    -0.9, 0.9, 0.5, 1.0, 0.0, 0.0, //
    0.9, 0.9, 0.5, 1.0, 4.0, 0.0, //
    -3.6, -3.6, 2.0, 4.0, 0.0, 8.0, //
    3.6, -3.6, 2.0, 4.0, 4.0, 8.0,
];

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    let levels = TEXTURE.ilog2() + 1;
    let texture = g.image(
        [TEXTURE; 2],
        v::Format::R8G8B8A8_UNORM,
        v::ImageUsageFlags::SAMPLED
            | v::ImageUsageFlags::TRANSFER_DST
            | v::ImageUsageFlags::TRANSFER_SRC,
        v::SampleCountFlags::TYPE_1,
        levels,
    )?;
    let staging = g.buffer_with(&checkerboard(), v::BufferUsageFlags::TRANSFER_SRC)?;
    g.submit(|d, cmd| {
        g.upload(d, cmd, &texture, &staging);
        for level in 1..levels {
            let src = (TEXTURE >> (level - 1)) as i32;
            let dst = (TEXTURE >> level) as i32;
            vk::level_barrier(
                d,
                cmd,
                &texture,
                level - 1,
                v::ImageLayout::TRANSFER_DST_OPTIMAL,
                v::ImageLayout::TRANSFER_SRC_OPTIMAL,
            );
            vk::level_barrier(
                d,
                cmd,
                &texture,
                level,
                v::ImageLayout::UNDEFINED,
                v::ImageLayout::TRANSFER_DST_OPTIMAL,
            );
            let blit = v::ImageBlit::default()
                .src_subresource(vk::layers(texture.aspect, level - 1))
                .src_offsets([
                    v::Offset3D::default(),
                    v::Offset3D {
                        x: src,
                        y: src,
                        z: 1,
                    },
                ])
                .dst_subresource(vk::layers(texture.aspect, level))
                .dst_offsets([
                    v::Offset3D::default(),
                    v::Offset3D {
                        x: dst,
                        y: dst,
                        z: 1,
                    },
                ]);
            // SAFETY: recording with the texture's levels in the layouts named.
            unsafe {
                d.cmd_blit_image(
                    cmd,
                    texture.image,
                    v::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    texture.image,
                    v::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[blit],
                    v::Filter::LINEAR,
                )
            };
        }
        for level in 0..levels {
            let old = if level + 1 == levels {
                v::ImageLayout::TRANSFER_DST_OPTIMAL
            } else {
                v::ImageLayout::TRANSFER_SRC_OPTIMAL
            };
            vk::level_barrier(
                d,
                cmd,
                &texture,
                level,
                old,
                v::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            );
        }
    })?;
    let sampler = g.sampler(
        v::Filter::LINEAR,
        v::SamplerMipmapMode::LINEAR,
        v::SamplerAddressMode::REPEAT,
    )?;
    let (set_layout, set) = g.descriptors(&[(
        v::DescriptorType::COMBINED_IMAGE_SAMPLER,
        v::ShaderStageFlags::FRAGMENT,
    )])?;
    let image_info = [v::DescriptorImageInfo {
        sampler,
        image_view: texture.view,
        image_layout: v::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
    }];
    let write = v::WriteDescriptorSet::default()
        .dst_set(set)
        .dst_binding(0)
        .descriptor_type(v::DescriptorType::COMBINED_IMAGE_SAMPLER)
        .image_info(&image_info);
    // SAFETY: the set, sampler and view are live objects of this device.
    unsafe { g.device.update_descriptor_sets(&[write], &[]) };

    let vk::ColorTarget {
        image: color,
        pass,
        fb,
        ..
    } = vk::color_target(g, size)?;
    let vertices = g.buffer_with(&vk::f32_bytes(&QUAD), v::BufferUsageFlags::VERTEX_BUFFER)?;
    let layout = vk::pipeline_layout(g, &[set_layout], 0)?;
    let pipeline = vk::pipeline(
        g,
        &vk::PipelineDesc {
            vertex: include_bytes!("../../shaders/textured.vert.spv"),
            fragment: include_bytes!("../../shaders/textured.frag.spv"),
            vertex_input: (
                24,
                &[
                    (0, v::Format::R32G32B32A32_SFLOAT, 0),
                    (1, v::Format::R32G32_SFLOAT, 16),
                ],
            ),
            topology: v::PrimitiveTopology::TRIANGLE_STRIP,
            blend: None,
            depth: None,
            stencil: None,
            samples: v::SampleCountFlags::TYPE_1,
            layout,
            render_pass: pass,
            size,
        },
    )?;
    g.submit(|d, cmd| {
        vk::begin_pass(d, cmd, pass, fb, size, [0.0, 0.0, 0.2, 1.0]);
        // SAFETY: recording inside the render pass begun above, with objects of this device.
        unsafe {
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_bind_descriptor_sets(cmd, v::PipelineBindPoint::GRAPHICS, layout, 0, &[set], &[]);
            d.cmd_bind_vertex_buffers(cmd, 0, &[vertices.buffer], &[0]);
            d.cmd_draw(cmd, 4, 1, 0, 0);
            d.cmd_end_render_pass(cmd);
        }
    })?;
    g.read_image(&color, v::ImageLayout::TRANSFER_SRC_OPTIMAL)
}
