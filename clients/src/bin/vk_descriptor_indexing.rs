//! `vk_descriptor_indexing`: a runtime-sized array of sampled images indexed
//! non-uniformly (descriptor indexing, Vulkan 1.2). Four 4x4 textures, each a different
//! two-colour pattern, fill a descriptor array bound UPDATE_AFTER_BIND and
//! PARTIALLY_BOUND (anv reaches such descriptors bindlessly); four instanced quads pick
//! their texture by instance and by 16-pixel column, so neighbouring fragments of one
//! draw sample different textures. The descriptors are written after the set is bound.
//!
//! A driver that does not offer the four features fails with "descriptor indexing is
//! not offered" (hasvk on Ivy Bridge does not).

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_descriptor_indexing", draw)
}

const COUNT: u32 = vk::PATTERNS as u32;

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    if !g.descriptor_indexing {
        return Err(format!("descriptor indexing is not offered by {}", g.name));
    }
    let mut textures = vec![];
    let mut staging = vec![];
    for t in 0..COUNT as usize {
        textures.push(g.image(
            [4, 4],
            v::Format::R8G8B8A8_UNORM,
            v::ImageUsageFlags::SAMPLED | v::ImageUsageFlags::TRANSFER_DST,
            v::SampleCountFlags::TYPE_1,
            1,
        )?);
        staging.push(g.buffer_with(&vk::pattern(t), v::BufferUsageFlags::TRANSFER_SRC)?);
    }
    g.submit(|d, cmd| {
        for (t, s) in textures.iter().zip(&staging) {
            g.upload(d, cmd, t, s);
            vk::level_barrier(
                d,
                cmd,
                t,
                0,
                v::ImageLayout::TRANSFER_DST_OPTIMAL,
                v::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            );
        }
    })?;
    let sampler = g.sampler(
        v::Filter::NEAREST,
        v::SamplerMipmapMode::NEAREST,
        v::SamplerAddressMode::REPEAT,
    )?;

    // The set layout: one binding of COUNT combined image samplers, update-after-bind
    // and partially bound, in an update-after-bind pool.
    let binding_flags = [
        v::DescriptorBindingFlags::UPDATE_AFTER_BIND | v::DescriptorBindingFlags::PARTIALLY_BOUND
    ];
    let mut flags_info =
        v::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&binding_flags);
    let bindings = [v::DescriptorSetLayoutBinding::default()
        .binding(0)
        .descriptor_type(v::DescriptorType::COMBINED_IMAGE_SAMPLER)
        .descriptor_count(COUNT)
        .stage_flags(v::ShaderStageFlags::FRAGMENT)];
    let layout_info = v::DescriptorSetLayoutCreateInfo::default()
        .flags(v::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL)
        .bindings(&bindings)
        .push_next(&mut flags_info);
    let sizes = [v::DescriptorPoolSize {
        ty: v::DescriptorType::COMBINED_IMAGE_SAMPLER,
        descriptor_count: COUNT,
    }];
    // SAFETY: a live device; each info and its arrays live across its call.
    let (set_layout, set) = unsafe {
        let set_layout = g
            .device
            .create_descriptor_set_layout(&layout_info, None)
            .map_err(|e| format!("vkCreateDescriptorSetLayout: {e}"))?;
        let pool = g
            .device
            .create_descriptor_pool(
                &v::DescriptorPoolCreateInfo::default()
                    .flags(v::DescriptorPoolCreateFlags::UPDATE_AFTER_BIND)
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )
            .map_err(|e| format!("vkCreateDescriptorPool: {e}"))?;
        let layouts = [set_layout];
        let set = g
            .device
            .allocate_descriptor_sets(
                &v::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&layouts),
            )
            .map_err(|e| format!("vkAllocateDescriptorSets: {e}"))?[0];
        (set_layout, set)
    };

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
            fragment: include_bytes!("../../shaders/indexed.frag.spv"),
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
    let alloc = g.device.clone();
    let cmd_set = set;
    // Record with the set bound while it is still empty, write the descriptors (allowed
    // by UPDATE_AFTER_BIND until submission), then submit.
    g.submit(|d, cmd| {
        vk::begin_pass(d, cmd, pass, fb, size, [0.0, 0.0, 0.0, 1.0]);
        // SAFETY: recording inside the render pass begun above, with objects of this device.
        unsafe {
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_bind_descriptor_sets(
                cmd,
                v::PipelineBindPoint::GRAPHICS,
                layout,
                0,
                &[cmd_set],
                &[],
            );
            d.cmd_draw(cmd, 4, COUNT, 0, 0);
            d.cmd_end_render_pass(cmd);
        }
        let infos: Vec<_> = textures
            .iter()
            .map(|t| v::DescriptorImageInfo {
                sampler,
                image_view: t.view,
                image_layout: v::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            })
            .collect();
        let write = v::WriteDescriptorSet::default()
            .dst_set(cmd_set)
            .dst_binding(0)
            .descriptor_type(v::DescriptorType::COMBINED_IMAGE_SAMPLER)
            .image_info(&infos);
        // SAFETY: an update-after-bind set, written before the command buffer is submitted.
        unsafe { alloc.update_descriptor_sets(&[write], &[]) };
    })?;
    g.read_image(&color, v::ImageLayout::TRANSFER_SRC_OPTIMAL)
}
