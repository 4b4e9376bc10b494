//! [`ComputeFront`]: the Gen11 front of one GPGPU_WALKER or MEDIA_OBJECT_WALKER. It reads
//! the walker with the
//! latched MEDIA_VFE_STATE, MEDIA_CURBE_LOAD and MEDIA_INTERFACE_DESCRIPTOR_LOAD, whose
//! INTERFACE_DESCRIPTOR_DATA (seed 003) it follows into dynamic state, into the neutral
//! [`ComputeDispatch`]. What differs from Gen7 is here: 48-bit kernel pointers (Kernel
//! Start Pointer High), the CURBE's cross-thread block before the per-thread blocks
//! (Cross-Thread Constant Data Read Length), the Shared Local Memory Size encoding
//! (seed 003: 0 none, 1 1K, 2 2K, 3 4K ... 7 64K), the binding table pool, and the
//! Gen9+ data port messages (`messages.rs`). A MEDIA_OBJECT_WALKER's threads share one
//! [`MediaThread`] (the walker's loops give each its position, `media_walker`): the
//! interface descriptor's kernel, its CURBE rows and the walker's inline data, with the
//! Gen11 media payload (`payload::MEDIA`).

use crate::bases::Bases;
use crate::latched::LatchedState;
use crate::payload::COMPUTE;
use gtsim_dataport::dc::{DataSurface, GeneralState};
use gtsim_eu::exec::{Message, MessageError, Response};
use gtsim_mem::Memory;
use gtsim_pipe3d::draw::media_walker::WalkerLoops;
use gtsim_pipe3d::draw::{DrawError, RenderTarget};
use gtsim_pipe3d::state::read_indirect as indirect;
use gtsim_pipe3d::state::{
    ComputeDispatch, DrawState, Front, KernelPointer, MediaThread, MessageKind, Registers, Scratch,
    ShaderStage, StageResources,
};
use gtsim_spec::gen11::gpgpu_walker::SimdSize;
use gtsim_spec::gen11::{
    GpgpuDispatchdimx, GpgpuDispatchdimy, GpgpuDispatchdimz, GpgpuWalker, InterfaceDescriptorData,
    MediaObjectWalker, MediaVfeState,
};

/// What the front runs.
#[derive(Clone, Copy)]
enum Job<'a> {
    /// A GPGPU_WALKER's thread groups.
    Gpgpu(&'a GpgpuWalker),
    /// A MEDIA_OBJECT_WALKER's threads.
    Media(&'a MediaObjectWalker),
}

/// The front of one GPGPU_WALKER over a context's latched state and registers.
pub struct ComputeFront<'a> {
    state: &'a LatchedState,
    registers: &'a dyn Registers,
    job: Job<'a>,
    bases: Bases,
    /// The interface descriptor's binding table (graphics address), once read.
    binding_table: std::sync::OnceLock<u64>,
    /// The interface descriptor's sampler state table (graphics address), once read.
    sampler_state: std::sync::OnceLock<u64>,
    /// The surfaces and sampler states the dispatch's sampler messages resolved.
    sampler_cache: crate::sampling::SamplerCache,
}

fn state_error(why: String) -> DrawError {
    DrawError::State {
        command: "GPGPU_WALKER",
        why,
    }
}

/// A MEDIA_OBJECT_WALKER feature the model does not run (the walker is not in the seeds;
/// its fields are genxml gen11.xml's and media-driver's `mhw_render_hwcmd_g11_X.h`).
fn media_unsupported(what: String) -> DrawError {
    DrawError::Unsupported(gtsim_spec::Unsupported::new(
        format!("MEDIA_OBJECT_WALKER {what}"),
        "media-driver mhw_render_hwcmd_g11_X.h MEDIA_OBJECT_WALKER_CMD",
    ))
}

impl<'a> ComputeFront<'a> {
    /// The front of `walker` against `state` and `registers`.
    pub fn new(
        state: &'a LatchedState,
        registers: &'a dyn Registers,
        walker: &'a GpgpuWalker,
    ) -> ComputeFront<'a> {
        ComputeFront::of(state, registers, Job::Gpgpu(walker))
    }

    /// The front of MEDIA_OBJECT_WALKER `walker` against `state` and `registers`.
    pub fn media_walker(
        state: &'a LatchedState,
        registers: &'a dyn Registers,
        walker: &'a MediaObjectWalker,
    ) -> ComputeFront<'a> {
        ComputeFront::of(state, registers, Job::Media(walker))
    }

    fn of(state: &'a LatchedState, registers: &'a dyn Registers, job: Job<'a>) -> ComputeFront<'a> {
        ComputeFront {
            state,
            registers,
            job,
            bases: Bases::latched(state, registers),
            binding_table: std::sync::OnceLock::new(),
            sampler_state: std::sync::OnceLock::new(),
            sampler_cache: crate::sampling::SamplerCache::default(),
        }
    }

    fn vfe(&self) -> Result<&'a MediaVfeState, DrawError> {
        self.state
            .media_vfe_state
            .as_ref()
            .ok_or_else(|| state_error("no MEDIA_VFE_STATE was sent before the walker".into()))
    }

    /// Interface descriptor `index` of those MEDIA_INTERFACE_DESCRIPTOR_LOAD loaded.
    fn interface_descriptor(
        &self,
        mem: &dyn Memory,
        index: u32,
    ) -> Result<InterfaceDescriptorData, DrawError> {
        let load = self
            .state
            .media_interface_descriptor_load
            .clone()
            .unwrap_or_default();
        let offset = u64::from(index) * 32;
        if offset + 32 > u64::from(load.interface_descriptor_total_length) {
            return Err(state_error(format!(
                "Interface Descriptor Offset {index} is past the {} bytes MEDIA_INTERFACE_DESCRIPTOR_LOAD loaded",
                load.interface_descriptor_total_length
            )));
        }
        let addr = crate::bases::address(
            self.bases
                .dynamic
                .wrapping_add(load.interface_descriptor_data_start_address)
                .wrapping_add(offset),
        );
        gtsim_pipe3d::state::check_bound(
            "INTERFACE_DESCRIPTOR_DATA",
            "Dynamic State Buffer Size",
            addr,
            32,
            self.bases.dynamic_bound,
        )?;
        indirect(
            mem,
            "INTERFACE_DESCRIPTOR_DATA",
            addr,
            InterfaceDescriptorData::DWORDS,
            InterfaceDescriptorData::unpack,
        )
    }

    /// The CURBE: MEDIA_CURBE_LOAD's bytes, by register.
    fn curbe(&self, mem: &dyn Memory) -> Result<Vec<[u8; 32]>, DrawError> {
        let load = self.state.media_curbe_load.clone().unwrap_or_default();
        let at = crate::bases::address(
            self.bases
                .dynamic
                .wrapping_add(u64::from(load.curbe_data_start_address)),
        );
        gtsim_pipe3d::state::read_curbe(mem, at, load.curbe_total_data_length as usize)
    }

    /// The interface descriptor's kernel, its binding table and sampler state table
    /// noted for the dispatch's messages.
    fn kernel_and_tables(&self, idd: &InterfaceDescriptorData) -> KernelPointer {
        let _ = self
            .binding_table
            .set(self.bases.binding_table(idd.binding_table_pointer));
        let _ = self.sampler_state.set(crate::bases::address(
            self.bases.dynamic.wrapping_add(idd.sampler_state_pointer),
        ));
        let kernel = idd.kernel_start_pointer | idd.kernel_start_pointer_high << 32;
        KernelPointer {
            address: crate::bases::address(self.bases.instruction.wrapping_add(kernel)),
            bound: self.bases.instruction_bound,
        }
    }

    /// Scratch space as MEDIA_VFE_STATE gives it on Gen8+: Per Thread Scratch Space n
    /// is 1 KiB << n (Mesa iris_state.c programs ffs(size) - 11).
    fn scratch(vfe: &MediaVfeState) -> Scratch {
        Scratch {
            base: vfe.scratch_space_base_pointer,
            per_thread: u32::from(vfe.per_thread_scratch_space),
            bytes_per_thread: 1024 << u64::from(vfe.per_thread_scratch_space.min(11)),
        }
    }
}

/// Threads start with round to nearest even: a dispatch's directed rounding mode is
/// refused (seed 003 INTERFACE_DESCRIPTOR_DATA Rounding Mode).
fn check_rounding(idd: &InterfaceDescriptorData) -> Result<(), DrawError> {
    if idd.rounding_mode != 0 {
        return Err(DrawError::Unsupported(gtsim_spec::Unsupported::new(
            format!(
                "INTERFACE_DESCRIPTOR_DATA Rounding Mode {} (only RTNE at dispatch)",
                idd.rounding_mode
            ),
            "seed 003 INTERFACE_DESCRIPTOR_DATA Rounding Mode",
        )));
    }
    Ok(())
}

/// Seed 003 INTERFACE_DESCRIPTOR_DATA Shared Local Memory Size: 0 none, then 1K << (n-1)
/// up to 64K (7); larger values are reserved.
fn slm_bytes(code: u8) -> Result<usize, DrawError> {
    match code {
        0 => Ok(0),
        1..=7 => Ok(1024 << (code - 1)),
        n => Err(state_error(format!(
            "INTERFACE_DESCRIPTOR_DATA Shared Local Memory Size {n} is reserved (seed 003)"
        ))),
    }
}

impl Front for ComputeFront<'_> {
    fn draw_state(&self, _mem: &dyn Memory) -> Result<Option<DrawState>, DrawError> {
        Ok(None)
    }

    fn compute_state(&self, mem: &dyn Memory) -> Result<Option<ComputeDispatch>, DrawError> {
        let Job::Gpgpu(w) = self.job else {
            return Ok(None);
        };
        let vfe = self.vfe()?;
        let idd = self.interface_descriptor(mem, u32::from(w.interface_descriptor_offset))?;
        if w.indirect_data_length != 0 {
            return Err(DrawError::Unsupported(gtsim_spec::Unsupported::new(
                "GPGPU_WALKER indirect data",
                "seed 003 GPGPU_WALKER",
            )));
        }
        // Threads start with round to nearest even and single precision denormals
        // flushed: Denorm Mode Ftz, or SetByKernel ("handled by kernel": its cr0, which
        // starts clear). A kernel may change both in cr0, which the EU models; a
        // dispatch's directed rounding mode is refused.
        check_rounding(&idd)?;
        let simd = match w.simd_size {
            SimdSize::SIMD8 => 8,
            SimdSize::SIMD16 => 16,
            SimdSize::SIMD32 => 32,
            other => return Err(state_error(format!("SIMD Size {} is reserved", other.0))),
        };
        // Indirect Parameter Enable: the group counts from GPGPU_DISPATCHDIMX/Y/Z.
        let dims = if w.indirect_parameter_enable {
            [
                self.registers.register(GpgpuDispatchdimx::OFFSET),
                self.registers.register(GpgpuDispatchdimy::OFFSET),
                self.registers.register(GpgpuDispatchdimz::OFFSET),
            ]
        } else {
            [
                w.thread_group_id_x_dimension,
                w.thread_group_id_y_dimension,
                w.thread_group_id_z_dimension,
            ]
        };
        let starts = [
            w.thread_group_id_starting_x,
            w.thread_group_id_starting_y,
            w.thread_group_id_starting_resume_z,
        ];
        let kernel = self.kernel_and_tables(&idd);
        Ok(Some(ComputeDispatch {
            kernel,
            encoding: gtsim_isa::Encoding::IceLake,
            simd,
            threads: [
                u32::from(w.thread_width_counter_maximum) + 1,
                u32::from(w.thread_height_counter_maximum) + 1,
                u32::from(w.thread_depth_counter_maximum) + 1,
            ],
            groups: [starts[0]..dims[0], starts[1]..dims[1], starts[2]..dims[2]],
            right_mask: w.right_execution_mask,
            bottom_mask: w.bottom_execution_mask,
            curbe: self.curbe(mem)?,
            curbe_read: usize::from(idd.constant_indirect_urb_entry_read_length),
            curbe_offset: usize::from(idd.constant_urb_entry_read_offset),
            cross_thread: usize::from(idd.cross_thread_constant_data_read_length),
            slm_bytes: slm_bytes(idd.shared_local_memory_size)?,
            barrier: idd
                .barrier_enable
                .then_some(u32::from(idd.number_of_threads_in_gpgpu_thread_group)),
            resources: StageResources {
                binding_table: idd.binding_table_pointer,
                sampler_state: idd.sampler_state_pointer,
                constants: vec![],
            },
            scratch: Self::scratch(vfe),
            // Seed 003 INTERFACE_DESCRIPTOR_DATA Floating Point Mode: 1 is ALT.
            alt_float_mode: idd.floating_point_mode == 1,
            payload: &COMPUTE,
        }))
    }

    fn media_object(&self, mem: &dyn Memory) -> Result<Option<MediaThread>, DrawError> {
        let Job::Media(w) = self.job else {
            return Ok(None);
        };
        let vfe = self.vfe()?;
        if w.indirect_data_length != 0 {
            return Err(media_unsupported("indirect data".into()));
        }
        if w.thread_synchronization.0 != 0 {
            return Err(media_unsupported(
                "Thread Synchronization (spawn root thread messages)".into(),
            ));
        }
        if w.masked_dispatch != 0 {
            return Err(media_unsupported(format!(
                "Masked Dispatch {} (the mask's layout in the CURBE is not public)",
                w.masked_dispatch
            )));
        }
        if w.group_id_loop_select.0 != 0 {
            return Err(media_unsupported(format!(
                "Group ID Loop Select {} (thread groups)",
                w.group_id_loop_select.0
            )));
        }
        let idd = self.interface_descriptor(mem, u32::from(w.interface_descriptor_offset))?;
        check_rounding(&idd)?;
        // Every media thread receives the same CURBE rows: the cross-thread rows and
        // Constant URB Entry Read Length more, from Constant URB Entry Read Offset.
        let curbe = self.curbe(mem)?;
        let first = usize::from(idd.constant_urb_entry_read_offset);
        let count = usize::from(idd.cross_thread_constant_data_read_length)
            + usize::from(idd.constant_indirect_urb_entry_read_length);
        let rows = (first..first + count)
            .map(|r| curbe.get(r).copied().unwrap_or([0; 32]))
            .collect();
        let kernel = self.kernel_and_tables(&idd);
        Ok(Some(MediaThread {
            kernel,
            encoding: gtsim_isa::Encoding::IceLake,
            curbe: rows,
            inline: w.entries.iter().map(|e| e.inline_data).collect(),
            position: [0, 0],
            color: 0,
            resources: StageResources {
                binding_table: idd.binding_table_pointer,
                sampler_state: idd.sampler_state_pointer,
                constants: vec![],
            },
            scratch: Self::scratch(vfe),
            alt_float_mode: idd.floating_point_mode == 1,
            illegal_opcode_exception: idd.illegal_opcode_exception_enable,
            payload: &crate::payload::MEDIA,
        }))
    }

    fn render_target(
        &self,
        _mem: &dyn Memory,
        _bti: u8,
        _rti: u8,
    ) -> Result<Option<RenderTarget>, DrawError> {
        Err(state_error(
            "a render target write from a compute thread".into(),
        ))
    }

    fn message(&self, m: &Message) -> MessageKind {
        crate::messages::kind(m)
    }

    fn data_surface(
        &self,
        stage: ShaderStage,
        mem: &dyn Memory,
        bti: u8,
        ex_desc: u32,
    ) -> Result<DataSurface, MessageError> {
        if stage != ShaderStage::Compute {
            return Err(gtsim_message::invalid(
                "a 3D stage's message under a walker",
            ));
        }
        let table = self
            .binding_table
            .get()
            .copied()
            .unwrap_or(self.bases.binding_table);
        crate::surface::data_surface(mem, &self.bases, table, bti, ex_desc)
    }

    fn general_state(&self) -> GeneralState {
        self.bases.general_state()
    }

    fn color_processing(
        &self,
        _mem: &dyn Memory,
        _address: u64,
    ) -> Result<gtsim_dataport::dc::iecp::ColorProcessing, MessageError> {
        Err(crate::messages::no_color_processing())
    }

    fn sample(
        &self,
        _stage: ShaderStage,
        mem: &dyn Memory,
        m: &Message,
    ) -> Result<Response, MessageError> {
        // The interface descriptor's tables, as the walker read them.
        let tables = crate::draw::StageTables {
            binding_table: self
                .binding_table
                .get()
                .copied()
                .unwrap_or(self.bases.binding_table),
            binding_table_pointer: 0,
            sampler_state: self
                .sampler_state
                .get()
                .copied()
                .unwrap_or(self.bases.dynamic),
            sampler_state_pointer: 0,
        };
        crate::sampling::message(&self.sampler_cache, &self.bases, tables, mem, m)
    }
}

/// The walker loops of MEDIA_OBJECT_WALKER `w` (its signed fields sign-extended).
pub fn walker_loops(w: &MediaObjectWalker) -> WalkerLoops {
    let p = |x: i16, y: i16| (i64::from(x), i64::from(y));
    let u = |x: u16, y: u16| (i64::from(x), i64::from(y));
    WalkerLoops {
        color_count_minus_one: u32::from(w.color_count_minus_one),
        middle_loop_extra_steps: u32::from(w.middle_loop_extra_steps),
        mid_loop_unit: (
            i64::from(w.mid_loop_unit_x),
            i64::from(w.local_mid_loop_unit_y),
        ),
        global_loop_exec_count: u32::from(w.global_loop_exec_count),
        local_loop_exec_count: u32::from(w.local_loop_exec_count),
        block_resolution: u(w.block_resolution_x, w.block_resolution_y),
        local_start: u(w.local_start_x, w.local_start_y),
        local_outer_loop_stride: p(w.local_outer_loop_stride_x, w.local_outer_loop_stride_y),
        local_inner_loop_unit: p(w.local_inner_loop_unit_x, w.local_inner_loop_unit_y),
        global_resolution: u(w.global_resolution_x, w.global_resolution_y),
        global_start: p(w.global_start_x, w.global_start_y),
        global_outer_loop_stride: p(w.global_outer_loop_stride_x, w.global_outer_loop_stride_y),
        global_inner_loop_unit: p(w.global_inner_loop_unit_x, w.global_inner_loop_unit_y),
    }
}
