//! [`ComputeFront`]: the Gen7 front of one GPGPU_WALKER. It reads the walker with the
//! latched MEDIA_VFE_STATE, MEDIA_CURBE_LOAD and MEDIA_INTERFACE_DESCRIPTOR_LOAD (whose
//! INTERFACE_DESCRIPTOR_DATA it follows into dynamic state) into the neutral
//! [`ComputeDispatch`]. The seeds do not describe the GPGPU pipeline: the layouts are
//! those of `defs/gen7/media.spec` (Mesa's gen7.xml and the IVB PRM Vol2 Part2), and
//! the thread payload is the one Mesa's Gen7 compute shaders read (R0.1, R0.6 and R0.7
//! the thread group IDs X, Y and Z, R0.2 27:24 the barrier ID, the thread's constants
//! from R1).

use crate::front::{Pointers, StageTables};
use crate::indirect::indirect;
use crate::latched::{LatchedState, Registers, get};
use gtsim_dataport::dc::{DataSurface, GeneralState};
use gtsim_eu::exec::{Message, MessageError, Response};
use gtsim_mem::Memory;
use gtsim_pipe3d::draw::{DrawError, RenderTarget};
use gtsim_pipe3d::state::{
    ComputeDispatch, ComputePayload, DrawState, Front, KernelPointer, MediaPayload, MediaThread,
    MessageKind, PayloadField, Scratch, ShaderStage, StageResources,
};
use gtsim_spec::gen7::gpgpu_walker::SimdSize;
use gtsim_spec::gen7::media_object;
use gtsim_spec::gen7::media_vfe_state::GpgpuMode;
use gtsim_spec::gen7::{
    GpgpuDispatchdimx, GpgpuDispatchdimy, GpgpuDispatchdimz, GpgpuWalker, InterfaceDescriptorData,
    MediaObject, MediaVfeState,
};
use std::sync::OnceLock;

/// Gen7's GPGPU thread payload.
static PAYLOAD: ComputePayload = ComputePayload {
    group_id: [
        PayloadField {
            reg: 0,
            dword: 1,
            shift: 0,
            bits: 32,
        },
        PayloadField {
            reg: 0,
            dword: 6,
            shift: 0,
            bits: 32,
        },
        PayloadField {
            reg: 0,
            dword: 7,
            shift: 0,
            bits: 32,
        },
    ],
    barrier_id: PayloadField {
        reg: 0,
        dword: 2,
        shift: 24,
        bits: 4,
    },
    common: &crate::payload::POINTERS,
    curbe_start: 1,
};

/// Gen7's media thread payload: R0.1 the object's X (15:0) and Y (31:16), R0.2 3:0 its
/// colour (the pre-"new R0" layout Intel's IGC reads, visa BuildIRImpl.cpp
/// expandPredefinedVars: thread_x = r0.2:uw & 0x1FF, thread_y = r0.3:uw, colour = r0.2 &
/// 0xF), the common pointers, and the CURBE rows from R1.
static MEDIA_PAYLOAD: MediaPayload = MediaPayload {
    position: [
        PayloadField {
            reg: 0,
            dword: 1,
            shift: 0,
            bits: 16,
        },
        PayloadField {
            reg: 0,
            dword: 1,
            shift: 16,
            bits: 16,
        },
    ],
    color: PayloadField {
        reg: 0,
        dword: 2,
        shift: 0,
        bits: 4,
    },
    common: &crate::payload::POINTERS,
    curbe_start: 1,
};

/// What the front runs: a GPGPU_WALKER's thread groups, or one MEDIA_OBJECT's thread.
#[derive(Clone, Copy)]
pub enum Job<'a> {
    /// A GPGPU_WALKER (the GPGPU pipeline).
    Walker(&'a GpgpuWalker),
    /// A MEDIA_OBJECT (the media pipeline).
    Object(&'a MediaObject),
}

impl Job<'_> {
    fn command(self) -> &'static str {
        match self {
            Job::Walker(_) => "GPGPU_WALKER",
            Job::Object(_) => "MEDIA_OBJECT",
        }
    }
}

/// The front of one GPGPU_WALKER or MEDIA_OBJECT over a context's latched state and
/// registers.
pub struct ComputeFront<'a> {
    state: &'a LatchedState,
    registers: &'a dyn Registers,
    job: Job<'a>,
    pointers: Pointers,
    /// The interface descriptor's binding table and sampler state, once read.
    tables: OnceLock<StageTables>,
    sampler_cache: crate::sampling::SamplerCache,
}

impl<'a> ComputeFront<'a> {
    /// The front of `walker` against `state` and `registers`.
    pub fn new(
        state: &'a LatchedState,
        registers: &'a dyn Registers,
        walker: &'a GpgpuWalker,
    ) -> ComputeFront<'a> {
        ComputeFront::of(state, registers, Job::Walker(walker))
    }

    /// The front of `job` against `state` and `registers`.
    pub fn of(state: &'a LatchedState, registers: &'a dyn Registers, job: Job<'a>) -> Self {
        ComputeFront {
            state,
            registers,
            job,
            pointers: Pointers::latched(state),
            tables: OnceLock::new(),
            sampler_cache: crate::sampling::SamplerCache::new([(0, 0); 4]),
        }
    }

    fn tables(&self, stage: ShaderStage) -> StageTables {
        match stage {
            ShaderStage::Compute => self.tables.get().copied().unwrap_or_default(),
            other => self.pointers.stage(other),
        }
    }

    /// MEDIA_VFE_STATE, which must select `mode` (GPGPU Mode: the walker needs the GPGPU
    /// pipeline's, a media object the media pipeline's).
    fn vfe(&self, mode: GpgpuMode) -> Result<&'a MediaVfeState, DrawError> {
        let command = self.job.command();
        let Some(vfe) = &self.state.media_vfe_state else {
            return Err(state_error(
                command,
                format!("no MEDIA_VFE_STATE was sent before the {command}"),
            ));
        };
        if vfe.gpgpu_mode != mode {
            return Err(DrawError::Unsupported(gtsim_spec::Unsupported::new(
                format!(
                    "{command} with MEDIA_VFE_STATE in {} mode",
                    if mode == GpgpuMode::GPGPU_MODE {
                        "media"
                    } else {
                        "GPGPU"
                    }
                ),
                "IVB PRM Vol2 Part2 MEDIA_VFE_STATE GPGPU Mode",
            )));
        }
        Ok(vfe)
    }

    /// Interface descriptor `index` of those MEDIA_INTERFACE_DESCRIPTOR_LOAD loaded; its
    /// binding table and sampler state become the threads' tables.
    fn interface_descriptor(
        &self,
        mem: &dyn Memory,
        index: u32,
    ) -> Result<InterfaceDescriptorData, DrawError> {
        let load = get(&self.state.media_interface_descriptor_load);
        let offset = u64::from(index) * 32;
        if offset + 32 > u64::from(load.interface_descriptor_total_length) {
            return Err(state_error(
                self.job.command(),
                format!(
                    "Interface Descriptor Offset {index} is past the {} bytes MEDIA_INTERFACE_DESCRIPTOR_LOAD loaded",
                    load.interface_descriptor_total_length
                ),
            ));
        }
        let idd_addr = self
            .pointers
            .bases
            .dynamic
            .wrapping_add(load.interface_descriptor_data_start_address)
            .wrapping_add(offset);
        let idd = indirect(
            mem,
            "INTERFACE_DESCRIPTOR_DATA",
            idd_addr,
            InterfaceDescriptorData::DWORDS,
            InterfaceDescriptorData::unpack,
        )?;
        let _ = self.tables.set(StageTables {
            binding_table: idd.binding_table_pointer,
            sampler_state: idd.sampler_state_pointer,
        });
        Ok(idd)
    }

    /// The CURBE: MEDIA_CURBE_LOAD's bytes, read when the threads run, by register.
    fn curbe(&self, mem: &dyn Memory) -> Result<Vec<[u8; 32]>, DrawError> {
        let curbe_load = get(&self.state.media_curbe_load);
        let at = self
            .pointers
            .bases
            .dynamic
            .wrapping_add(curbe_load.curbe_data_start_address);
        gtsim_pipe3d::state::read_curbe(mem, at, curbe_load.curbe_total_data_length as usize)
    }

    /// Scratch space as MEDIA_VFE_STATE gives it: Ivy Bridge counts KiB linearly, "[0, 11]
    /// to mean [1kB, 12kB]" (Mesa crocus_state.c, which programs it so).
    fn scratch(vfe: &MediaVfeState) -> Scratch {
        Scratch {
            base: vfe.scratch_space_base_pointer,
            per_thread: u32::from(vfe.per_thread_scratch_space),
            bytes_per_thread: (u64::from(vfe.per_thread_scratch_space) + 1) * 1024,
        }
    }
}

fn state_error(command: &'static str, why: String) -> DrawError {
    DrawError::State { command, why }
}

impl Front for ComputeFront<'_> {
    fn draw_state(&self, _mem: &dyn Memory) -> Result<Option<DrawState>, DrawError> {
        Ok(None)
    }

    fn compute_state(&self, mem: &dyn Memory) -> Result<Option<ComputeDispatch>, DrawError> {
        let Job::Walker(w) = self.job else {
            return Ok(None);
        };
        let bases = &self.pointers.bases;
        let vfe = self.vfe(GpgpuMode::GPGPU_MODE)?;
        let idd = self.interface_descriptor(mem, u32::from(w.interface_descriptor_offset))?;
        let curbe = self.curbe(mem)?;
        let simd = match w.simd_size {
            SimdSize::SIMD8 => 8,
            SimdSize::SIMD16 => 16,
            SimdSize::SIMD32 => 32,
            other => {
                return Err(state_error(
                    "GPGPU_WALKER",
                    format!("SIMD Size {} is reserved", other.0),
                ));
            }
        };
        // Indirect Parameter Enable: the group counts from GPGPU_DISPATCHDIMX/Y/Z
        // (MI_LOAD_REGISTER_MEM'd by the driver from the indirect buffer).
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
            w.thread_group_id_starting_z,
        ];
        Ok(Some(ComputeDispatch {
            kernel: KernelPointer {
                address: bases.instruction.wrapping_add(idd.kernel_start_pointer),
                bound: bases.instruction_bound,
            },
            encoding: gtsim_isa::Encoding::IvyBridge,
            simd,
            threads: [
                u32::from(w.thread_width_counter_maximum) + 1,
                u32::from(w.thread_height_counter_maximum) + 1,
                u32::from(w.thread_depth_counter_maximum) + 1,
            ],
            groups: [starts[0]..dims[0], starts[1]..dims[1], starts[2]..dims[2]],
            right_mask: w.right_execution_mask,
            bottom_mask: w.bottom_execution_mask,
            curbe,
            curbe_read: usize::from(idd.constant_urb_entry_read_length),
            curbe_offset: usize::from(idd.constant_urb_entry_read_offset),
            cross_thread: 0,
            // Shared Local Memory Size in 4 KiB units (media.spec note).
            slm_bytes: usize::from(idd.shared_local_memory_size) * 4096,
            barrier: idd
                .barrier_enable
                .then_some(u32::from(idd.number_of_threads_in_gpgpu_thread_group)),
            resources: StageResources {
                binding_table: idd.binding_table_pointer,
                sampler_state: idd.sampler_state_pointer,
                constants: vec![],
            },
            scratch: Self::scratch(vfe),
            alt_float_mode: idd.floating_point_mode
                == gtsim_spec::gen7::interface_descriptor_data::FloatingPointMode::ALTERNATE,
            payload: &PAYLOAD,
        }))
    }

    fn media_object(&self, mem: &dyn Memory) -> Result<Option<MediaThread>, DrawError> {
        let Job::Object(o) = self.job else {
            return Ok(None);
        };
        let vfe = self.vfe(GpgpuMode::MEDIA_MODE)?;
        let unsupported = |what: &str| {
            Err(DrawError::Unsupported(gtsim_spec::Unsupported::new(
                format!("MEDIA_OBJECT with {what}"),
                "IVB PRM Vol2 Part2 MEDIA_OBJECT",
            )))
        };
        // Indirect data and child threads: no Ivy Bridge client found uses them, and no
        // public source at hand says where indirect data lands in the payload.
        if o.indirect_data_length != 0 {
            return unsupported("indirect data");
        }
        if o.children_present {
            return unsupported("Children Present (the thread spawner's child threads)");
        }
        if o.thread_synchronization
            != media_object::ThreadSynchronization::NO_THREAD_SYNCHRONIZATION
        {
            return unsupported("Thread Synchronization (spawn root thread messages)");
        }
        let idd = self.interface_descriptor(mem, u32::from(o.interface_descriptor_offset))?;
        // Every media thread receives the same CURBE rows: Read Length registers from
        // Read Offset (Intel's VA driver loads one block and points all its objects at it).
        let curbe = self.curbe(mem)?;
        let first = usize::from(idd.constant_urb_entry_read_offset);
        let rows = (first..first + usize::from(idd.constant_urb_entry_read_length))
            .map(|r| curbe.get(r).copied().unwrap_or([0; 32]))
            .collect();
        let bases = &self.pointers.bases;
        Ok(Some(MediaThread {
            kernel: KernelPointer {
                address: bases.instruction.wrapping_add(idd.kernel_start_pointer),
                bound: bases.instruction_bound,
            },
            encoding: gtsim_isa::Encoding::IvyBridge,
            curbe: rows,
            inline: o.inline_data.iter().map(|d| d.data).collect(),
            position: [u32::from(o.scoreboard_x), u32::from(o.scoreboard_y)],
            color: u32::from(o.scoreboard_color),
            resources: StageResources {
                binding_table: idd.binding_table_pointer,
                sampler_state: idd.sampler_state_pointer,
                constants: vec![],
            },
            scratch: Self::scratch(vfe),
            alt_float_mode: idd.floating_point_mode
                == gtsim_spec::gen7::interface_descriptor_data::FloatingPointMode::ALTERNATE,
            illegal_opcode_exception: idd.illegal_opcode_exception_enable,
            payload: &MEDIA_PAYLOAD,
        }))
    }

    fn render_target(
        &self,
        _mem: &dyn Memory,
        _bti: u8,
        _rti: u8,
    ) -> Result<Option<RenderTarget>, DrawError> {
        Err(state_error(
            self.job.command(),
            "a render target write from a compute or media thread".into(),
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
        _ex_desc: u32,
    ) -> Result<DataSurface, MessageError> {
        crate::data_port::surface(
            mem,
            &self.pointers.bases,
            self.tables(stage).binding_table,
            bti,
        )
    }

    fn general_state(&self) -> GeneralState {
        crate::data_port::general_state(&self.pointers.bases)
    }

    fn color_processing(
        &self,
        mem: &dyn Memory,
        address: u64,
    ) -> Result<gtsim_dataport::dc::iecp::ColorProcessing, MessageError> {
        crate::color_processing::decode(mem, address)
    }

    fn sample(
        &self,
        stage: ShaderStage,
        mem: &dyn Memory,
        m: &Message,
    ) -> Result<Response, MessageError> {
        crate::sampling::message(
            &self.sampler_cache,
            &self.pointers.bases,
            self.tables(stage),
            mem,
            m,
        )
    }
}
