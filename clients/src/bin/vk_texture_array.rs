//! `vk_texture_array`: `vk_descriptor_indexing`'s scene drawn with the four patterns as
//! the layers of one 2D array texture (a 2D_ARRAY view, one copy per layer), the layer
//! chosen per fragment as the descriptor was there. With nearest sampling the two give
//! the same image, so this client's image on lavapipe (which offers no descriptor
//! indexing) is the reference for that one, besides being compared itself.

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_texture_array", draw)
}

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    let layers = vk::PATTERNS as u32;
    let fail = |what: &'static str| move |e: v::Result| format!("{what}: {e}");
    let info = v::ImageCreateInfo::default()
        .image_type(v::ImageType::TYPE_2D)
        .format(v::Format::R8G8B8A8_UNORM)
        .extent(v::Extent3D {
            width: 4,
            height: 4,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(layers)
        .samples(v::SampleCountFlags::TYPE_1)
        .tiling(v::ImageTiling::OPTIMAL)
        .usage(v::ImageUsageFlags::SAMPLED | v::ImageUsageFlags::TRANSFER_DST)
        .initial_layout(v::ImageLayout::UNDEFINED);
    let patterns: Vec<u8> = (0..vk::PATTERNS).flat_map(vk::pattern).collect();
    let staging = g.buffer_with(&patterns, v::BufferUsageFlags::TRANSFER_SRC)?;
    let all = v::ImageSubresourceRange {
        aspect_mask: v::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: layers,
    };
    // SAFETY: a live device; the infos live across each call; the memory is bound once.
    let (image, view) = unsafe {
        let image = g
            .device
            .create_image(&info, None)
            .map_err(fail("vkCreateImage"))?;
        let req = g.device.get_image_memory_requirements(image);
        let memory = g
            .device
            .allocate_memory(
                &v::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(req.memory_type_bits.trailing_zeros()),
                None,
            )
            .map_err(fail("vkAllocateMemory"))?;
        g.device
            .bind_image_memory(image, memory, 0)
            .map_err(fail("vkBindImageMemory"))?;
        let view = g
            .device
            .create_image_view(
                &v::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(v::ImageViewType::TYPE_2D_ARRAY)
                    .format(v::Format::R8G8B8A8_UNORM)
                    .subresource_range(all),
                None,
            )
            .map_err(fail("vkCreateImageView"))?;
        (image, view)
    };
    let to = |old, new| {
        v::ImageMemoryBarrier::default()
            .src_access_mask(v::AccessFlags::MEMORY_WRITE)
            .dst_access_mask(v::AccessFlags::MEMORY_READ)
            .old_layout(old)
            .new_layout(new)
            .src_queue_family_index(v::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(v::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(all)
    };
    g.submit(|d, cmd| {
        let regions: Vec<_> = (0..layers)
            .map(|l| {
                v::BufferImageCopy::default()
                    .buffer_offset(u64::from(l) * 64)
                    .image_subresource(v::ImageSubresourceLayers {
                        aspect_mask: v::ImageAspectFlags::COLOR,
                        mip_level: 0,
                        base_array_layer: l,
                        layer_count: 1,
                    })
                    .image_extent(v::Extent3D {
                        width: 4,
                        height: 4,
                        depth: 1,
                    })
            })
            .collect();
        let stages = v::PipelineStageFlags::ALL_COMMANDS;
        // SAFETY: recording with the image in the layouts named.
        unsafe {
            d.cmd_pipeline_barrier(
                cmd,
                stages,
                stages,
                v::DependencyFlags::empty(),
                &[],
                &[],
                &[to(
                    v::ImageLayout::UNDEFINED,
                    v::ImageLayout::TRANSFER_DST_OPTIMAL,
                )],
            );
            d.cmd_copy_buffer_to_image(
                cmd,
                staging.buffer,
                image,
                v::ImageLayout::TRANSFER_DST_OPTIMAL,
                &regions,
            );
            d.cmd_pipeline_barrier(
                cmd,
                stages,
                stages,
                v::DependencyFlags::empty(),
                &[],
                &[],
                &[to(
                    v::ImageLayout::TRANSFER_DST_OPTIMAL,
                    v::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                )],
            );
        }
    })?;
    let sampler = g.sampler(
        v::Filter::NEAREST,
        v::SamplerMipmapMode::NEAREST,
        v::SamplerAddressMode::REPEAT,
    )?;
    let (set_layout, set) = g.descriptors(&[(
        v::DescriptorType::COMBINED_IMAGE_SAMPLER,
        v::ShaderStageFlags::FRAGMENT,
    )])?;
    let image_info = [v::DescriptorImageInfo {
        sampler,
        image_view: view,
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
    let layout = vk::pipeline_layout(g, &[set_layout], 0)?;
    let pipeline = vk::pipeline(
        g,
        &vk::PipelineDesc {
            vertex: include_bytes!("../../shaders/indexed.vert.spv"),
            fragment: include_bytes!("../../shaders/layered.frag.spv"),
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
    )?;
    g.submit(|d, cmd| {
        vk::begin_pass(d, cmd, pass, fb, size, [0.0, 0.0, 0.0, 1.0]);
        // SAFETY: recording inside the render pass begun above, with objects of this device.
        unsafe {
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_bind_descriptor_sets(cmd, v::PipelineBindPoint::GRAPHICS, layout, 0, &[set], &[]);
            d.cmd_draw(cmd, 4, layers, 0, 0);
            d.cmd_end_render_pass(cmd);
        }
    })?;
    g.read_image(&color, v::ImageLayout::TRANSFER_SRC_OPTIMAL)
}
