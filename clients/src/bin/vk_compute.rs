//! `vk_compute`: a compute dispatch writing a storage buffer and a storage image.
//!
//! One 8x8 workgroup per 8x8 block of the image: invocation i (row-major over the
//! image) stores i*i + 3 into a storage buffer and a colour made from its coordinates
//! into an RGBA8 storage image (`shaders/squares.comp`). The image is the PNG; the
//! buffer's digest is printed, and the client checks every value itself.

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_compute", compute)
}

fn compute(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    if !size[0].is_multiple_of(8) || !size[1].is_multiple_of(8) {
        return Err(format!(
            "--size must be a multiple of 8 (the workgroup), got {size:?}"
        ));
    }
    let count = u64::from(size[0]) * u64::from(size[1]);
    let data = g.buffer(count * 4, v::BufferUsageFlags::STORAGE_BUFFER)?;
    let image = g.image(
        size,
        v::Format::R8G8B8A8_UNORM,
        v::ImageUsageFlags::STORAGE | v::ImageUsageFlags::TRANSFER_SRC,
        v::SampleCountFlags::TYPE_1,
        1,
    )?;
    let (set_layout, set) = g.descriptors(&[
        (
            v::DescriptorType::STORAGE_BUFFER,
            v::ShaderStageFlags::COMPUTE,
        ),
        (
            v::DescriptorType::STORAGE_IMAGE,
            v::ShaderStageFlags::COMPUTE,
        ),
    ])?;
    let buffer_info = [v::DescriptorBufferInfo {
        buffer: data.buffer,
        offset: 0,
        range: v::WHOLE_SIZE,
    }];
    let image_info = [v::DescriptorImageInfo {
        sampler: v::Sampler::null(),
        image_view: image.view,
        image_layout: v::ImageLayout::GENERAL,
    }];
    let writes = [
        v::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(0)
            .descriptor_type(v::DescriptorType::STORAGE_BUFFER)
            .buffer_info(&buffer_info),
        v::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(1)
            .descriptor_type(v::DescriptorType::STORAGE_IMAGE)
            .image_info(&image_info),
    ];
    // SAFETY: the set and the resources it names are live objects of this device.
    unsafe { g.device.update_descriptor_sets(&writes, &[]) };
    let layout = vk::pipeline_layout(g, &[set_layout], 0)?;
    let module = g.shader(include_bytes!("../../shaders/squares.comp.spv"))?;
    let stage = v::PipelineShaderStageCreateInfo::default()
        .stage(v::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(c"main");
    let info = v::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(layout);
    // SAFETY: the info and the module live across the call.
    let pipeline = unsafe {
        g.device
            .create_compute_pipelines(v::PipelineCache::null(), &[info], None)
    }
    .map_err(|(_, e)| format!("vkCreateComputePipelines: {e}"))?[0];
    g.submit(|d, cmd| {
        vk::barrier(
            d,
            cmd,
            &image,
            v::ImageLayout::UNDEFINED,
            v::ImageLayout::GENERAL,
            1,
        );
        // SAFETY: recording with objects of this device.
        unsafe {
            d.cmd_bind_pipeline(cmd, v::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(cmd, v::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
            d.cmd_dispatch(cmd, size[0] / 8, size[1] / 8, 1);
        }
        vk::memory_barrier(d, cmd);
    })?;
    let bytes = g.read(&data)?;
    gtsim_clients::print_bytes_digest("storage buffer", &bytes);
    for (i, w) in bytes.chunks_exact(4).enumerate() {
        let got = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        let want = (i as u32).wrapping_mul(i as u32).wrapping_add(3);
        if got != want {
            return Err(format!("storage buffer word {i} is {got}, expected {want}"));
        }
    }
    g.read_image(&image, v::ImageLayout::GENERAL)
}
