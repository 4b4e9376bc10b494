//! `vk_secondary`: draws recorded in secondary command buffers that continue a render
//! pass (`RENDER_PASS_CONTINUE`), executed from the primary. anv and hasvk copy the
//! subpass's attachment surface states into the secondary's own storage when it is
//! executed, with a streamout memory copy on the GPU (genX_gpu_memcpy.c: a draw of
//! points whose vertex fetch reads the source and whose streamout writes the
//! destination, with rasterization off). Two secondaries draw the `vk_triangle`
//! triangle and a copy moved and darkened by push constants.

use std::process::ExitCode;

use gtsim_clients::vk::{self, Res, Vk, ash::vk as v};

fn main() -> ExitCode {
    vk::run_vk("vk_secondary", draw)
}

fn draw(g: &Vk, size: [u32; 2]) -> Res<Vec<u8>> {
    let vk::ColorTarget {
        image: color,
        pass,
        fb,
        ..
    } = vk::color_target(g, size)?;
    let vertices = g.buffer_with(
        &vk::f32_bytes(&vk::TRIANGLE),
        v::BufferUsageFlags::VERTEX_BUFFER,
    )?;
    let layout = vk::pipeline_layout(g, &[], 32)?;
    let pipeline = vk::color_pipeline(g, layout, pass, size)?;
    let fail = |what: &'static str| move |e: v::Result| format!("{what}: {e}");
    // SAFETY: a live device; each info lives across its call; the secondaries are
    // recorded completely before the primary that executes them is submitted.
    let secondaries = unsafe {
        let pool = g
            .device
            .create_command_pool(&v::CommandPoolCreateInfo::default(), None)
            .map_err(fail("vkCreateCommandPool"))?;
        let bufs = g
            .device
            .allocate_command_buffers(
                &v::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .level(v::CommandBufferLevel::SECONDARY)
                    .command_buffer_count(2),
            )
            .map_err(fail("vkAllocateCommandBuffers"))?;
        let pushes = [
            [0.0f32, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
            [0.3, 0.2, 0.0, 0.0, 0.5, 0.5, 0.5, 1.0],
        ];
        for (i, (&cmd, push)) in bufs.iter().zip(pushes).enumerate() {
            let inheritance = v::CommandBufferInheritanceInfo::default()
                .render_pass(pass)
                .subpass(0)
                .framebuffer(fb);
            g.device
                .begin_command_buffer(
                    cmd,
                    &v::CommandBufferBeginInfo::default()
                        .flags(v::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
                        .inheritance_info(&inheritance),
                )
                .map_err(fail("vkBeginCommandBuffer"))?;
            g.device
                .cmd_bind_pipeline(cmd, v::PipelineBindPoint::GRAPHICS, pipeline);
            g.device.cmd_push_constants(
                cmd,
                layout,
                v::ShaderStageFlags::ALL,
                0,
                &vk::f32_bytes(&push),
            );
            g.device
                .cmd_bind_vertex_buffers(cmd, 0, &[vertices.buffer], &[0]);
            // The second draws its instance 1: moved by its push constant's offset.
            g.device.cmd_draw(cmd, 3, 1, 0, i as u32);
            g.device
                .end_command_buffer(cmd)
                .map_err(fail("vkEndCommandBuffer"))?;
        }
        bufs
    };
    g.submit(|d, cmd| {
        let clears = [v::ClearValue {
            color: v::ClearColorValue {
                float32: [0.1, 0.1, 0.1, 1.0],
            },
        }];
        let info = v::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(fb)
            .render_area(v::Rect2D {
                offset: v::Offset2D { x: 0, y: 0 },
                extent: v::Extent2D {
                    width: size[0],
                    height: size[1],
                },
            })
            .clear_values(&clears);
        // SAFETY: recording the primary with secondaries recorded for this subpass.
        unsafe {
            d.cmd_begin_render_pass(cmd, &info, v::SubpassContents::SECONDARY_COMMAND_BUFFERS);
            d.cmd_execute_commands(cmd, &secondaries);
            d.cmd_end_render_pass(cmd);
        }
    })?;
    g.read_image(&color, v::ImageLayout::TRANSFER_SRC_OPTIMAL)
}
