//! The Vulkan clients' shared part: a headless device, memory, images, one-shot command
//! buffers and the read-back to PNG.
//!
//! The Vulkan clients (`src/bin/vk_*.rs`) mirror the GL ones: each renders or computes
//! one small, fixed scene with no window and no swapchain, reads the result back through
//! a host-visible buffer and writes a PNG (and, for compute, prints a digest of its
//! buffers). Run directly they use whatever driver the Vulkan loader offers first;
//! the tests run them on lavapipe (`VK_DRIVER_FILES=.../lvp_icd.x86_64.json`) for the
//! reference and under `gtsim run`, which points the loader at hasvk (Ivy Bridge) or
//! anv (Ice Lake).
//!
//! `libvulkan.so.1` is opened at run time (`ash`'s loaded entry), so the clients build
//! on machines without Vulkan. The shaders are SPIR-V compiled from the GLSL in
//! `clients/shaders/` by `clients/shaders/build.sh` and embedded.

use std::ffi::CStr;
use std::process::ExitCode;

pub use ash;
use ash::vk;

use crate::{ArgError, Options, write_png};

/// A result whose error says what failed.
pub type Res<T> = Result<T, String>;

/// Names a failed Vulkan call.
fn fail(what: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// An instance, its first physical device that can draw and compute, a device with one
/// queue, and a command pool on it.
pub struct Vk {
    _entry: ash::Entry,
    /// The instance.
    pub instance: ash::Instance,
    /// The physical device in use.
    pub physical: vk::PhysicalDevice,
    /// The logical device.
    pub device: ash::Device,
    /// The graphics and compute queue.
    pub queue: vk::Queue,
    pool: vk::CommandPool,
    memory: vk::PhysicalDeviceMemoryProperties,
    /// The device's name (`VkPhysicalDeviceProperties::deviceName`).
    pub name: String,
    /// Its limits.
    pub limits: vk::PhysicalDeviceLimits,
    /// Descriptor indexing is enabled: runtime arrays of sampled images, indexed
    /// non-uniformly, updated after binding, partially bound.
    pub descriptor_indexing: bool,
    /// Pipeline fragment shading rates are enabled (VK_KHR_fragment_shading_rate).
    pub shading_rate: bool,
}

/// A buffer and its memory, bound.
pub struct Buffer {
    /// The buffer.
    pub buffer: vk::Buffer,
    /// Its memory.
    pub memory: vk::DeviceMemory,
    /// Its size in bytes.
    pub size: u64,
}

/// A 2D image, its memory and a view of all its levels.
pub struct Image {
    /// The image.
    pub image: vk::Image,
    /// Its memory.
    pub memory: vk::DeviceMemory,
    /// A view of every level and the aspect `aspect`.
    pub view: vk::ImageView,
    /// Its format.
    pub format: vk::Format,
    /// Width and height of level 0.
    pub size: [u32; 2],
    /// The aspect the view shows.
    pub aspect: vk::ImageAspectFlags,
}

impl Vk {
    /// Loads the Vulkan loader and creates the instance and the device.
    pub fn new(name: &str) -> Res<Vk> {
        // SAFETY: loading the system's Vulkan loader; its initialisation runs no code of
        // ours.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| format!("cannot load libvulkan.so.1 (apt-get install -y libvulkan1 mesa-vulkan-drivers): {e}"))?;
        let app_name = std::ffi::CString::new(name).unwrap_or_default();
        let app = vk::ApplicationInfo::default()
            .application_name(&app_name)
            .api_version(vk::API_VERSION_1_1);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: the create info and what it points to live across the call.
        let instance =
            unsafe { entry.create_instance(&info, None) }.map_err(fail("vkCreateInstance"))?;
        // SAFETY: a live instance.
        let physicals = unsafe { instance.enumerate_physical_devices() }
            .map_err(fail("vkEnumeratePhysicalDevices"))?;
        let wanted = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
        let (physical, family) = physicals
            .iter()
            .find_map(|&p| {
                // SAFETY: a physical device of this instance.
                let families = unsafe { instance.get_physical_device_queue_family_properties(p) };
                let f = families
                    .iter()
                    .position(|q| q.queue_flags.contains(wanted))?;
                Some((p, f as u32))
            })
            .ok_or("no Vulkan device with a graphics and compute queue")?;
        // SAFETY: a physical device of this instance.
        let props = unsafe { instance.get_physical_device_properties(physical) };
        let device_name = props
            .device_name_as_c_str()
            .unwrap_or(c"?")
            .to_string_lossy()
            .into_owned();
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        // Descriptor indexing (Vulkan 1.2 core, VK_EXT_descriptor_indexing before):
        // the four features `vk_descriptor_indexing` uses, enabled when all are offered.
        let mut offered = vk::PhysicalDeviceDescriptorIndexingFeatures::default();
        let mut rate_offered = vk::PhysicalDeviceFragmentShadingRateFeaturesKHR::default();
        // The extension must be listed before its features struct is read.
        // SAFETY: a physical device of this instance.
        let extensions_offered =
            unsafe { instance.enumerate_device_extension_properties(physical) }
                .map_err(fail("vkEnumerateDeviceExtensionProperties"))?;
        let rate_extension = extensions_offered.iter().any(|e| {
            e.extension_name_as_c_str()
                .is_ok_and(|n| n == c"VK_KHR_fragment_shading_rate")
        });
        let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut offered);
        if rate_extension {
            features = features.push_next(&mut rate_offered);
        }
        // SAFETY: a physical device of this instance; the chain lives across the call.
        unsafe { instance.get_physical_device_features2(physical, &mut features) };
        let shading_rate = rate_extension && rate_offered.pipeline_fragment_shading_rate != 0;
        let descriptor_indexing = offered.runtime_descriptor_array != 0
            && offered.shader_sampled_image_array_non_uniform_indexing != 0
            && offered.descriptor_binding_sampled_image_update_after_bind != 0
            && offered.descriptor_binding_partially_bound != 0;
        let mut enable = vk::PhysicalDeviceDescriptorIndexingFeatures::default()
            .runtime_descriptor_array(true)
            .shader_sampled_image_array_non_uniform_indexing(true)
            .descriptor_binding_sampled_image_update_after_bind(true)
            .descriptor_binding_partially_bound(true);
        let mut enable_rate = vk::PhysicalDeviceFragmentShadingRateFeaturesKHR::default()
            .pipeline_fragment_shading_rate(true);
        let mut extensions = vec![];
        let mut info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
        if descriptor_indexing {
            extensions.push(c"VK_EXT_descriptor_indexing".as_ptr());
            info = info.push_next(&mut enable);
        }
        if shading_rate {
            extensions.push(c"VK_KHR_fragment_shading_rate".as_ptr());
            extensions.push(c"VK_KHR_create_renderpass2".as_ptr());
            info = info.push_next(&mut enable_rate);
        }
        let info = info.enabled_extension_names(&extensions);
        // SAFETY: the create info and its arrays live across the call.
        let device = unsafe { instance.create_device(physical, &info, None) }
            .map_err(fail("vkCreateDevice"))?;
        // SAFETY: queue 0 of the family the device was created with.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: a live device.
        let pool = unsafe { device.create_command_pool(&info, None) }
            .map_err(fail("vkCreateCommandPool"))?;
        // SAFETY: a physical device of this instance.
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        Ok(Vk {
            _entry: entry,
            instance,
            physical,
            device,
            queue,
            pool,
            memory,
            name: device_name,
            limits: props.limits,
            descriptor_indexing,
            shading_rate,
        })
    }

    /// A memory type allowed by `bits` with `flags`.
    fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> Res<u32> {
        (0..self.memory.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.memory.memory_types[i as usize]
                        .property_flags
                        .contains(flags)
            })
            .ok_or_else(|| {
                format!(
                    "no memory type with flags {:#x} in {bits:#x}",
                    flags.as_raw()
                )
            })
    }

    fn allocate(
        &self,
        req: vk::MemoryRequirements,
        flags: vk::MemoryPropertyFlags,
    ) -> Res<vk::DeviceMemory> {
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(self.memory_type(req.memory_type_bits, flags)?);
        // SAFETY: a live device; the info is valid for the call.
        unsafe { self.device.allocate_memory(&info, None) }.map_err(fail("vkAllocateMemory"))
    }

    /// A buffer of `size` bytes in host-visible, coherent memory.
    pub fn buffer(&self, size: u64, usage: vk::BufferUsageFlags) -> Res<Buffer> {
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a live device; the info is valid for the call.
        let buffer =
            unsafe { self.device.create_buffer(&info, None) }.map_err(fail("vkCreateBuffer"))?;
        // SAFETY: a buffer of this device.
        let req = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let memory = self.allocate(
            req,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )?;
        // SAFETY: fresh memory of a type the buffer allows, bound once.
        unsafe { self.device.bind_buffer_memory(buffer, memory, 0) }
            .map_err(fail("vkBindBufferMemory"))?;
        Ok(Buffer {
            buffer,
            memory,
            size,
        })
    }

    /// A buffer holding `data`.
    pub fn buffer_with(&self, data: &[u8], usage: vk::BufferUsageFlags) -> Res<Buffer> {
        let b = self.buffer(data.len() as u64, usage)?;
        self.write(&b, 0, data)?;
        Ok(b)
    }

    /// Copies `data` into `b` at `offset` through a mapping.
    pub fn write(&self, b: &Buffer, offset: u64, data: &[u8]) -> Res<()> {
        if offset + data.len() as u64 > b.size {
            return Err(format!(
                "write of {} bytes at {offset} past a {}-byte buffer",
                data.len(),
                b.size
            ));
        }
        // SAFETY: host-visible memory of this device, mapped whole and unmapped below.
        unsafe {
            let p = self
                .device
                .map_memory(b.memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(fail("vkMapMemory"))?;
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                p.cast::<u8>().add(offset as usize),
                data.len(),
            );
            self.device.unmap_memory(b.memory);
        }
        Ok(())
    }

    /// The bytes of `b`.
    pub fn read(&self, b: &Buffer) -> Res<Vec<u8>> {
        let mut out = vec![0u8; b.size as usize];
        // SAFETY: host-visible memory of this device, mapped whole and unmapped below.
        unsafe {
            let p = self
                .device
                .map_memory(b.memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(fail("vkMapMemory"))?;
            std::ptr::copy_nonoverlapping(p.cast::<u8>(), out.as_mut_ptr(), out.len());
            self.device.unmap_memory(b.memory);
        }
        Ok(out)
    }

    /// An optimally tiled 2D image in device-local memory with a view of its `levels`
    /// levels.
    pub fn image(
        &self,
        size: [u32; 2],
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        samples: vk::SampleCountFlags,
        levels: u32,
    ) -> Res<Image> {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: size[0],
                height: size[1],
                depth: 1,
            })
            .mip_levels(levels)
            .array_layers(1)
            .samples(samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: a live device; the info is valid for the call.
        let image =
            unsafe { self.device.create_image(&info, None) }.map_err(fail("vkCreateImage"))?;
        // SAFETY: an image of this device.
        let req = unsafe { self.device.get_image_memory_requirements(image) };
        let memory = self.allocate(req, vk::MemoryPropertyFlags::DEVICE_LOCAL)?;
        // SAFETY: fresh memory of a type the image allows, bound once.
        unsafe { self.device.bind_image_memory(image, memory, 0) }
            .map_err(fail("vkBindImageMemory"))?;
        let aspect = aspect_of(format);
        let view_info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format)
            .subresource_range(range(aspect, levels));
        // SAFETY: a view of the image just made.
        let view = unsafe { self.device.create_image_view(&view_info, None) }
            .map_err(fail("vkCreateImageView"))?;
        Ok(Image {
            image,
            memory,
            view,
            format,
            size,
            aspect,
        })
    }

    /// A shader module from embedded SPIR-V.
    pub fn shader(&self, spv: &[u8]) -> Res<vk::ShaderModule> {
        let words = ash::util::read_spv(&mut std::io::Cursor::new(spv))
            .map_err(|e| format!("bad SPIR-V: {e}"))?;
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: a live device; the words live across the call.
        unsafe { self.device.create_shader_module(&info, None) }
            .map_err(fail("vkCreateShaderModule"))
    }

    /// Records one command buffer with `record`, submits it and waits for it.
    pub fn submit(&self, record: impl FnOnce(&ash::Device, vk::CommandBuffer)) -> Res<()> {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the device and pool are live; the buffer is freed below.
        unsafe {
            let cmd = self
                .device
                .allocate_command_buffers(&info)
                .map_err(fail("vkAllocateCommandBuffers"))?[0];
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            self.device
                .begin_command_buffer(cmd, &begin)
                .map_err(fail("vkBeginCommandBuffer"))?;
            record(&self.device, cmd);
            self.device
                .end_command_buffer(cmd)
                .map_err(fail("vkEndCommandBuffer"))?;
            let fence = self
                .device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(fail("vkCreateFence"))?;
            let cmds = [cmd];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            self.device
                .queue_submit(self.queue, &submit, fence)
                .map_err(fail("vkQueueSubmit"))?;
            self.device
                .wait_for_fences(&[fence], true, u64::MAX)
                .map_err(fail("vkWaitForFences"))?;
            self.device.destroy_fence(fence, None);
            self.device.free_command_buffers(self.pool, &cmds);
        }
        Ok(())
    }

    /// A descriptor set layout, pool and set for `bindings` (one descriptor each).
    pub fn descriptors(
        &self,
        bindings: &[(vk::DescriptorType, vk::ShaderStageFlags)],
    ) -> Res<(vk::DescriptorSetLayout, vk::DescriptorSet)> {
        let layout_bindings: Vec<_> = bindings
            .iter()
            .enumerate()
            .map(|(i, &(ty, stages))| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(i as u32)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(stages)
            })
            .collect();
        let sizes: Vec<_> = bindings
            .iter()
            .map(|&(ty, _)| vk::DescriptorPoolSize {
                ty,
                descriptor_count: 1,
            })
            .collect();
        // SAFETY: a live device; the infos and their arrays live across each call.
        unsafe {
            let layout = self
                .device
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings),
                    None,
                )
                .map_err(fail("vkCreateDescriptorSetLayout"))?;
            let pool = self
                .device
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(1)
                        .pool_sizes(&sizes),
                    None,
                )
                .map_err(fail("vkCreateDescriptorPool"))?;
            let layouts = [layout];
            let set = self
                .device
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(pool)
                        .set_layouts(&layouts),
                )
                .map_err(fail("vkAllocateDescriptorSets"))?[0];
            Ok((layout, set))
        }
    }

    /// Copies level 0 of a colour image in `layout` into a new host buffer and returns
    /// its texels, rows top to bottom (4 bytes each for the RGBA8 formats).
    pub fn read_image(&self, img: &Image, layout: vk::ImageLayout) -> Res<Vec<u8>> {
        let [w, h] = img.size;
        let buf = self.buffer(
            u64::from(w) * u64::from(h) * 4,
            vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        self.submit(|d, cmd| {
            barrier(
                d,
                cmd,
                img,
                layout,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                1,
            );
            let region = vk::BufferImageCopy::default()
                .image_subresource(layers(img.aspect, 0))
                .image_extent(vk::Extent3D {
                    width: w,
                    height: h,
                    depth: 1,
                });
            // SAFETY: recording into a command buffer in the recording state.
            unsafe {
                d.cmd_copy_image_to_buffer(
                    cmd,
                    img.image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    buf.buffer,
                    &[region],
                )
            };
        })?;
        self.read(&buf)
    }
}

impl Vk {
    /// Fills level 0 of a colour image (in UNDEFINED layout) with `texels` from a
    /// staging buffer, recording into `cmd`; the level is left in TRANSFER_DST_OPTIMAL.
    /// `staging` must live until the submission completes.
    pub fn upload(&self, d: &ash::Device, cmd: vk::CommandBuffer, img: &Image, staging: &Buffer) {
        level_barrier(
            d,
            cmd,
            img,
            0,
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        );
        let region = vk::BufferImageCopy::default()
            .image_subresource(layers(img.aspect, 0))
            .image_extent(vk::Extent3D {
                width: img.size[0],
                height: img.size[1],
                depth: 1,
            });
        // SAFETY: recording into a command buffer in the recording state.
        unsafe {
            d.cmd_copy_buffer_to_image(
                cmd,
                staging.buffer,
                img.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            )
        };
    }

    /// A sampler with `filter` for both minification and magnification, `mipmap` between
    /// levels, and `address` on every axis.
    pub fn sampler(
        &self,
        filter: vk::Filter,
        mipmap: vk::SamplerMipmapMode,
        address: vk::SamplerAddressMode,
    ) -> Res<vk::Sampler> {
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(filter)
            .min_filter(filter)
            .mipmap_mode(mipmap)
            .address_mode_u(address)
            .address_mode_v(address)
            .address_mode_w(address)
            .max_lod(vk::LOD_CLAMP_NONE);
        // SAFETY: a live device; the info lives across the call.
        unsafe { self.device.create_sampler(&info, None) }.map_err(fail("vkCreateSampler"))
    }
}

/// The aspect a view of `format` shows: depth for depth formats, else colour.
pub fn aspect_of(format: vk::Format) -> vk::ImageAspectFlags {
    match format {
        vk::Format::D16_UNORM | vk::Format::D32_SFLOAT | vk::Format::X8_D24_UNORM_PACK32 => {
            vk::ImageAspectFlags::DEPTH
        }
        vk::Format::D24_UNORM_S8_UINT
        | vk::Format::D32_SFLOAT_S8_UINT
        | vk::Format::D16_UNORM_S8_UINT => {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        }
        _ => vk::ImageAspectFlags::COLOR,
    }
}

/// The first `levels` levels of layer 0.
pub fn range(aspect: vk::ImageAspectFlags, levels: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: aspect,
        base_mip_level: 0,
        level_count: levels,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// Level `level` of layer 0.
pub fn layers(aspect: vk::ImageAspectFlags, level: u32) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: aspect,
        mip_level: level,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// A full pipeline barrier moving the first `levels` levels of `img` from `old` to
/// `new` (everything before waits for everything after: the clients are not about
/// overlap).
pub fn barrier(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    img: &Image,
    old: vk::ImageLayout,
    new: vk::ImageLayout,
    levels: u32,
) {
    let b = vk::ImageMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
        .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE)
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(img.image)
        .subresource_range(range(img.aspect, levels));
    // SAFETY: recording into a command buffer in the recording state.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[b],
        )
    };
}

/// [`barrier`] for level `level` alone.
pub fn level_barrier(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    img: &Image,
    level: u32,
    old: vk::ImageLayout,
    new: vk::ImageLayout,
) {
    let mut r = range(img.aspect, 1);
    r.base_mip_level = level;
    let b = vk::ImageMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
        .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE)
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(img.image)
        .subresource_range(r);
    // SAFETY: recording into a command buffer in the recording state.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[b],
        )
    };
}

/// A memory barrier between everything before and everything after.
pub fn memory_barrier(d: &ash::Device, cmd: vk::CommandBuffer) {
    let b = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
        .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE);
    // SAFETY: recording into a command buffer in the recording state.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::DependencyFlags::empty(),
            &[b],
            &[],
            &[],
        )
    };
}

/// What a graphics pipeline of [`pipeline`] draws with.
pub struct PipelineDesc<'a> {
    /// Vertex and fragment SPIR-V.
    pub vertex: &'a [u8],
    /// Fragment SPIR-V.
    pub fragment: &'a [u8],
    /// Vertex buffer 0's stride and its attributes: (location, format, offset).
    pub vertex_input: (u32, &'a [(u32, vk::Format, u32)]),
    /// Primitive topology.
    pub topology: vk::PrimitiveTopology,
    /// Colour blending of attachment 0, if any.
    pub blend: Option<vk::PipelineColorBlendAttachmentState>,
    /// Depth test and write with this compare op, if any.
    pub depth: Option<vk::CompareOp>,
    /// Stencil state (front and back alike), if any.
    pub stencil: Option<vk::StencilOpState>,
    /// Rasterisation samples.
    pub samples: vk::SampleCountFlags,
    /// The pipeline layout.
    pub layout: vk::PipelineLayout,
    /// The render pass (subpass 0).
    pub render_pass: vk::RenderPass,
    /// The viewport and scissor size.
    pub size: [u32; 2],
}

/// A graphics pipeline as `desc` says.
pub fn pipeline(vk_: &Vk, desc: &PipelineDesc) -> Res<vk::Pipeline> {
    pipeline_at_rate(vk_, desc, None)
}

/// [`pipeline`] shading fragments of `rate` pixels (VK_KHR_fragment_shading_rate's
/// pipeline rate, the combiners keeping it) when given.
pub fn pipeline_at_rate(
    vk_: &Vk,
    desc: &PipelineDesc,
    rate: Option<[u32; 2]>,
) -> Res<vk::Pipeline> {
    let vs = vk_.shader(desc.vertex)?;
    let fs = vk_.shader(desc.fragment)?;
    let main: &CStr = c"main";
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vs)
            .name(main),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(fs)
            .name(main),
    ];
    let (stride, attrs) = desc.vertex_input;
    let bindings = [vk::VertexInputBindingDescription {
        binding: 0,
        stride,
        input_rate: vk::VertexInputRate::VERTEX,
    }];
    let attributes: Vec<_> = attrs
        .iter()
        .map(
            |&(location, format, offset)| vk::VertexInputAttributeDescription {
                location,
                binding: 0,
                format,
                offset,
            },
        )
        .collect();
    let vertex_input = if attrs.is_empty() {
        vk::PipelineVertexInputStateCreateInfo::default()
    } else {
        vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&bindings)
            .vertex_attribute_descriptions(&attributes)
    };
    let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(desc.topology);
    let viewports = [vk::Viewport {
        x: 0.0,
        y: 0.0,
        width: desc.size[0] as f32,
        height: desc.size[1] as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    }];
    let scissors = [vk::Rect2D {
        offset: vk::Offset2D { x: 0, y: 0 },
        extent: vk::Extent2D {
            width: desc.size[0],
            height: desc.size[1],
        },
    }];
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0);
    let multisample =
        vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(desc.samples);
    let no_stencil = vk::StencilOpState::default();
    let depth = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(desc.depth.is_some())
        .depth_write_enable(desc.depth.is_some())
        .depth_compare_op(desc.depth.unwrap_or(vk::CompareOp::ALWAYS))
        .stencil_test_enable(desc.stencil.is_some())
        .front(desc.stencil.unwrap_or(no_stencil))
        .back(desc.stencil.unwrap_or(no_stencil));
    let attachments = [desc.blend.unwrap_or(
        vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA),
    )];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .depth_stencil_state(&depth)
        .color_blend_state(&blend)
        .layout(desc.layout)
        .render_pass(desc.render_pass)
        .subpass(0);
    let mut rate_state = vk::PipelineFragmentShadingRateStateCreateInfoKHR::default()
        .fragment_size(vk::Extent2D {
            width: rate.map_or(1, |r| r[0]),
            height: rate.map_or(1, |r| r[1]),
        })
        .combiner_ops([vk::FragmentShadingRateCombinerOpKHR::KEEP; 2]);
    let info = if rate.is_some() {
        info.push_next(&mut rate_state)
    } else {
        info
    };
    // SAFETY: every state struct and array lives across the call.
    let pipelines = unsafe {
        vk_.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
    }
    .map_err(|(_, e)| format!("vkCreateGraphicsPipelines: {e}"))?;
    Ok(pipelines[0])
}

/// A pipeline layout with `sets` and a push-constant range of `push` bytes (all stages).
pub fn pipeline_layout(
    vk_: &Vk,
    sets: &[vk::DescriptorSetLayout],
    push: u32,
) -> Res<vk::PipelineLayout> {
    let ranges = [vk::PushConstantRange {
        stage_flags: vk::ShaderStageFlags::ALL,
        offset: 0,
        size: push,
    }];
    let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(sets);
    if push > 0 {
        info = info.push_constant_ranges(&ranges);
    }
    // SAFETY: a live device; the info lives across the call.
    unsafe { vk_.device.create_pipeline_layout(&info, None) }
        .map_err(fail("vkCreatePipelineLayout"))
}

/// A render pass with one colour attachment (cleared, stored, ending in
/// TRANSFER_SRC_OPTIMAL) and optionally a depth/stencil one (cleared) and a
/// single-sample resolve target for a multisampled colour attachment.
pub fn render_pass(
    vk_: &Vk,
    color: vk::Format,
    samples: vk::SampleCountFlags,
    depth: Option<vk::Format>,
    resolve: bool,
) -> Res<vk::RenderPass> {
    let mut attachments = vec![
        vk::AttachmentDescription::default()
            .format(color)
            .samples(samples)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
    ];
    let color_ref = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let depth_ref = vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    if let Some(f) = depth {
        attachments.push(
            vk::AttachmentDescription::default()
                .format(f)
                .samples(samples)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::DONT_CARE)
                .stencil_load_op(vk::AttachmentLoadOp::CLEAR)
                .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
        );
    }
    let resolve_ref = [vk::AttachmentReference {
        attachment: attachments.len() as u32,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    if resolve {
        attachments.push(
            vk::AttachmentDescription::default()
                .format(color)
                .samples(vk::SampleCountFlags::TYPE_1)
                .load_op(vk::AttachmentLoadOp::DONT_CARE)
                .store_op(vk::AttachmentStoreOp::STORE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
        );
    }
    let mut subpass = vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&color_ref);
    if depth.is_some() {
        subpass = subpass.depth_stencil_attachment(&depth_ref);
    }
    if resolve {
        subpass = subpass.resolve_attachments(&resolve_ref);
    }
    let subpasses = [subpass];
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&attachments)
        .subpasses(&subpasses);
    // SAFETY: a live device; the info and its arrays live across the call.
    unsafe { vk_.device.create_render_pass(&info, None) }.map_err(fail("vkCreateRenderPass"))
}

/// A framebuffer of `views` for `pass`.
pub fn framebuffer(
    vk_: &Vk,
    pass: vk::RenderPass,
    views: &[vk::ImageView],
    size: [u32; 2],
) -> Res<vk::Framebuffer> {
    let info = vk::FramebufferCreateInfo::default()
        .render_pass(pass)
        .attachments(views)
        .width(size[0])
        .height(size[1])
        .layers(1);
    // SAFETY: a live device; the info lives across the call.
    unsafe { vk_.device.create_framebuffer(&info, None) }.map_err(fail("vkCreateFramebuffer"))
}

/// Begins `pass` on `fb` clearing colour to `clear` (and depth to 1, stencil to 0).
pub fn begin_pass(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    pass: vk::RenderPass,
    fb: vk::Framebuffer,
    size: [u32; 2],
    clear: [f32; 4],
) {
    let clears = [
        vk::ClearValue {
            color: vk::ClearColorValue { float32: clear },
        },
        vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue {
                depth: 1.0,
                stencil: 0,
            },
        },
        vk::ClearValue {
            color: vk::ClearColorValue { float32: clear },
        },
    ];
    let info = vk::RenderPassBeginInfo::default()
        .render_pass(pass)
        .framebuffer(fb)
        .render_area(vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: size[0],
                height: size[1],
            },
        })
        .clear_values(&clears);
    // SAFETY: recording into a command buffer in the recording state.
    unsafe { d.cmd_begin_render_pass(cmd, &info, vk::SubpassContents::INLINE) };
}

/// How many [`pattern`]s there are.
pub const PATTERNS: usize = 4;

/// Texture `t` of `vk_descriptor_indexing` and `vk_texture_array`: a 4x4 RGBA8 pattern
/// of two colours, a different pattern for each `t` below [`PATTERNS`].
pub fn pattern(t: usize) -> Vec<u8> {
    let colours = [
        ([230, 40, 40, 255], [250, 220, 60, 255]),
        ([40, 200, 70, 255], [20, 40, 120, 255]),
        ([60, 90, 240, 255], [240, 240, 240, 255]),
        ([200, 60, 220, 255], [30, 30, 30, 255]),
    ];
    let (a, b) = colours[t];
    let mut out = Vec::with_capacity(64);
    for y in 0..4 {
        for x in 0..4 {
            let first = match t {
                0 => (x + y) % 2 == 0,
                1 => x < 2,
                2 => y < 2,
                _ => x == y || x + y == 3,
            };
            out.extend_from_slice(if first { &a } else { &b });
        }
    }
    out
}

/// The vertex layout of `shaders/color.vert`: a position (3 floats) and a colour (4
/// floats) per 28-byte vertex, from vertex buffer 0.
pub const COLOR_VERTEX_INPUT: (u32, &[(u32, vk::Format, u32)]) = (
    28,
    &[
        (0, vk::Format::R32G32B32_SFLOAT, 0),
        (1, vk::Format::R32G32B32A32_SFLOAT, 12),
    ],
);

/// A single-sample RGBA8 colour image to draw into and read back, a render pass that
/// clears it, and the framebuffer of the two.
pub struct ColorTarget {
    /// The colour image.
    pub image: Image,
    /// The render pass ([`render_pass`] without depth or resolve).
    pub pass: vk::RenderPass,
    /// The framebuffer.
    pub fb: vk::Framebuffer,
    /// The depth/stencil image ([`color_depth_target`]), cleared to depth 1.0 and
    /// stencil 0 by [`begin_pass`].
    pub depth: Option<Image>,
}

/// The `vk_triangle` triangle in `shaders/color.vert`'s layout: red at the bottom left,
/// green at the bottom right, blue at the top centre (Vulkan's clip space has y down).
pub const TRIANGLE: [f32; 21] = [
    -0.8, 0.8, 0.0, 1.0, 0.0, 0.0, 1.0, //
    0.8, 0.8, 0.0, 0.0, 1.0, 0.0, 1.0, //
    0.0, -0.8, 0.0, 0.0, 0.0, 1.0, 1.0,
];

/// The pipeline of `shaders/color.vert` and `color.frag` drawing triangle lists into
/// `pass` (one sample, no blending, depth or stencil) with `layout` (whose push
/// constants are the instance offset and the tint).
pub fn color_pipeline(
    vk_: &Vk,
    layout: vk::PipelineLayout,
    pass: vk::RenderPass,
    size: [u32; 2],
) -> Res<vk::Pipeline> {
    pipeline(
        vk_,
        &PipelineDesc {
            vertex: include_bytes!("../shaders/color.vert.spv"),
            fragment: include_bytes!("../shaders/color.frag.spv"),
            vertex_input: COLOR_VERTEX_INPUT,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            blend: None,
            depth: None,
            stencil: None,
            samples: vk::SampleCountFlags::TYPE_1,
            layout,
            render_pass: pass,
            size,
        },
    )
}

/// A depth/stencil format the device can attach: D24S8, else D32S8.
pub fn depth_format(g: &Vk) -> Res<vk::Format> {
    [
        vk::Format::D24_UNORM_S8_UINT,
        vk::Format::D32_SFLOAT_S8_UINT,
    ]
    .into_iter()
    .find(|&f| {
        // SAFETY: a physical device of this instance.
        let p = unsafe {
            g.instance
                .get_physical_device_format_properties(g.physical, f)
        };
        p.optimal_tiling_features
            .contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT)
    })
    .ok_or_else(|| "neither D24S8 nor D32S8 can be a depth/stencil attachment".to_string())
}

/// A [`ColorTarget`] of `size`.
pub fn color_target(vk_: &Vk, size: [u32; 2]) -> Res<ColorTarget> {
    target(vk_, size, false)
}

/// A [`ColorTarget`] of `size` with a depth/stencil attachment ([`depth_format`]).
pub fn color_depth_target(vk_: &Vk, size: [u32; 2]) -> Res<ColorTarget> {
    target(vk_, size, true)
}

fn target(vk_: &Vk, size: [u32; 2], with_depth: bool) -> Res<ColorTarget> {
    let format = vk::Format::R8G8B8A8_UNORM;
    let image = vk_.image(
        size,
        format,
        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
        vk::SampleCountFlags::TYPE_1,
        1,
    )?;
    let ds_format = with_depth.then(|| depth_format(vk_)).transpose()?;
    let depth = ds_format
        .map(|f| {
            vk_.image(
                size,
                f,
                vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
                vk::SampleCountFlags::TYPE_1,
                1,
            )
        })
        .transpose()?;
    let pass = render_pass(vk_, format, vk::SampleCountFlags::TYPE_1, ds_format, false)?;
    let views: Vec<vk::ImageView> = std::iter::once(image.view)
        .chain(depth.as_ref().map(|d| d.view))
        .collect();
    let fb = framebuffer(vk_, pass, &views, size)?;
    Ok(ColorTarget {
        image,
        pass,
        fb,
        depth,
    })
}

/// `f32`s as bytes.
pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `u32`s as bytes.
pub fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Runs Vulkan client `name`: parses the command line as the GL clients do, creates
/// the device, calls `scene` for the RGBA8 image (rows top to bottom) and writes it.
/// Exit codes as [`crate::run`].
pub fn run_vk(name: &str, scene: fn(&Vk, [u32; 2]) -> Res<Vec<u8>>) -> ExitCode {
    let options = match Options::parse(name, std::env::args().skip(1)) {
        Ok(o) => o,
        Err(ArgError::Help) => {
            print!(
                "{}",
                Options::usage(name)
                    .replace("OpenGL on EGL's surfaceless platform", "Vulkan, headless,")
            );
            return ExitCode::SUCCESS;
        }
        Err(ArgError::Invalid(msg)) => {
            eprintln!("{name}: {msg}\n\n{}", Options::usage(name));
            return ExitCode::from(2);
        }
    };
    let result = Vk::new(name).and_then(|v| {
        eprintln!("{name}: on {}", v.name);
        let rgba = scene(&v, options.size)?;
        // SAFETY: the device is idle after the scene's last waited-for submission;
        // destroying it and the instance last.
        unsafe {
            v.device
                .device_wait_idle()
                .map_err(fail("vkDeviceWaitIdle"))?;
        }
        write_png(&options.out, options.size[0], options.size[1], &rgba)
    });
    match result {
        Ok(()) => {
            eprintln!("{name}: wrote {}", options.out.display());
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("{name}: error: {msg}");
            ExitCode::FAILURE
        }
    }
}
