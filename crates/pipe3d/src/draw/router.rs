//! The one place a thread's messages reach their shared functions: the generation's
//! front says what each `send` is ([`Front::message`]); the router hands it to the
//! sampler (through the front, which resolves the stage's surfaces and samplers), to the
//! URB, to the gateway's barrier, to the render target write path or the memory
//! messages of the data port (`gtsim_dataport::dc`, over the surface the front
//! resolves), a pixel shader's pixel interpolator messages to its primitive
//! (`pixel::Interpolation`), and reports everything else as not modelled, naming the
//! seed (seed 000 §1.5).

use crate::state::{Front, MessageKind, ShaderStage};
use gtsim_dataport::rt_path::PixelWrites;
use gtsim_dataport::urb::{self, Vue};
use gtsim_eu::exec::{Message, MessageError, Response, SharedFunctions};
use gtsim_mem::Memory;
use gtsim_spec::Unsupported;

/// The shared functions one thread reaches.
pub(super) struct Router<'a> {
    /// The generation's front (message decoding, sampler resources, render targets).
    pub front: &'a dyn Front,
    /// The thread's stage.
    pub stage: ShaderStage,
    /// Graphics memory.
    pub mem: &'a mut dyn Memory,
    /// A vertex or geometry shader thread's URB entries, by handle.
    pub urb: Option<&'a mut [Vue]>,
    /// The output vertex counts a GS thread's EOT URB write reported (seed 004
    /// §7.5.3), once it has.
    pub vertex_counts: Option<[u32; 2]>,
    /// The gateway barrier of the thread's group (the HS instances of a patch).
    pub barrier: Option<&'a mut Barrier>,
    /// A pixel shader thread's render target writes.
    pub pixels: Option<PixelWrites<'a>>,
    /// The shared local memory of a compute thread's group (seed 000 §3.2.3).
    pub slm: Option<&'a mut [u8]>,
    /// A pixel shader thread's primitive and slots, for the pixel interpolator.
    pub interpolator: Option<super::pixel::Interpolation<'a>>,
}

/// Whether `prog`'s threads must run one after the other on memory itself rather than
/// in parallel over private overlays (`parallel.rs`): it sends atomic operations (seed
/// 000 §3.9.9: "no read or write to the same memory location from this thread or any
/// other thread can occur between the read and the write", which threads over private
/// copies of memory would break), or data port messages whose descriptor is in a
/// register and so may be atomics.
pub(crate) fn sends_atomics(front: &dyn Front, prog: &gtsim_eu::exec::Program) -> bool {
    use gtsim_isa::ir::Sfid;
    prog.sends().any(|(sfid, desc)| {
        let data_port = matches!(
            sfid,
            Sfid::DataPortDataCache | Sfid::DataPortRenderCache | Sfid::DataPortConstantCache
        );
        match desc {
            None => data_port,
            Some(desc) => {
                let m = Message {
                    sfid,
                    desc,
                    ex_desc: 0,
                    payload2: gtsim_message::Payload::new(),
                    exec_size: 8,
                    channel_mask: 0,
                    first_channel: 0,
                    payload: gtsim_message::Payload::new(),
                    response_length: 0,
                    dst: 0,
                    eot: false,
                    ip: 0,
                };
                matches!(front.message(&m), MessageKind::DataPort(d) if d.is_atomic())
            }
        }
    })
}

/// One thread group's gateway barrier (IVB PRM Vol4 Part2 "Message Gateway"): the
/// threads that sent their barrier message and the count that completes it. The
/// dispatcher notifies the waiting threads once it is complete.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Barrier {
    /// Threads arrived since the barrier last completed.
    pub arrived: u32,
    /// The Barrier Count of the messages (when they enable it).
    pub count: Option<u32>,
}

impl Barrier {
    fn arrive(&mut self, count: Option<u32>) {
        self.arrived += 1;
        if count.is_some() {
            self.count = count;
        }
    }
}

impl Router<'_> {
    /// A message this stage's model does not route.
    fn unrouted(&self, m: &Message) -> MessageError {
        match self.stage {
            ShaderStage::Vertex
            | ShaderStage::Hull
            | ShaderStage::Domain
            | ShaderStage::Geometry => Unsupported::new(
                format!(
                    "{} messages to shared function {} (descriptor {:#010x})",
                    match self.stage {
                        ShaderStage::Vertex => "VS",
                        ShaderStage::Hull => "HS",
                        ShaderStage::Domain => "DS",
                        _ => "GS",
                    },
                    m.sfid.mnemonic(),
                    m.desc
                ),
                "seed 000 §1.5",
            ),
            ShaderStage::Compute => Unsupported::new(
                format!(
                    "compute messages to shared function {} (descriptor {:#010x})",
                    m.sfid.mnemonic(),
                    m.desc
                ),
                "seed 000 §1.5, ch.3",
            ),
            ShaderStage::Pixel => Unsupported::new(
                format!(
                    "PS messages to shared function {} (descriptor {:#010x})",
                    m.sfid.mnemonic(),
                    m.desc
                ),
                "seed 000 §1.5, ch.2-3",
            ),
        }
        .into()
    }
}

impl SharedFunctions for Router<'_> {
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError> {
        self.send_masked(m).map(|r| r.registers)
    }

    fn send_masked(&mut self, m: &Message) -> Result<Response, MessageError> {
        let front = self.front;
        match front.message(m) {
            MessageKind::Sampler => front.sample(self.stage, &*self.mem, m),
            MessageKind::DataPort(d) => self.data_port(&d, m),
            _ => self.unmasked(m).map(Response::from),
        }
    }
}

impl Router<'_> {
    /// A data port memory message (seed 000 §3.9): the binding table surface it
    /// addresses resolved by the front, then carried out by `gtsim_dataport::dc`. The
    /// execution mask is the send's channels within its half of the thread's 16
    /// channels (the Slot Group of the typed messages picks the high 8 of those).
    fn data_port(
        &mut self,
        d: &gtsim_dataport::dc::DataMessage,
        m: &Message,
    ) -> Result<Response, MessageError> {
        use gtsim_dataport::dc::{self, AddressModel, Target};
        let front = self.front;
        let surface = match d.model {
            AddressModel::Surface(bti) if !matches!(d.op, dc::DataOp::Fence { .. }) => {
                Some(front.data_surface(self.stage, &*self.mem, bti, m.ex_desc)?)
            }
            _ => None,
        };
        let color_processing =
            |mem: &dyn gtsim_mem::Memory, address: u64| front.color_processing(mem, address);
        let mut target = Target {
            mem: &mut *self.mem,
            surface,
            general: front.general_state(),
            slm: self.slm.as_deref_mut(),
            color_processing: Some(&color_processing),
        };
        let mask = m.channel_mask >> (m.first_channel & !15);
        // A split send's two payloads are one message to the data port: the addresses
        // (and header) in the first, the data in the second, as one send's payload
        // would hold them (seed 003 data port messages; Mesa's split sends put the
        // address payload in src0 and the data in src1).
        let joined;
        let payload = if m.payload2.is_empty() {
            &m.payload
        } else {
            if m.payload.len() + m.payload2.len() > gtsim_message::Payload::MAX {
                return Err(gtsim_spec::Unsupported::new(
                    format!(
                        "a split send to the data port of {} + {} registers (more than one payload's {})",
                        m.payload.len(),
                        m.payload2.len(),
                        gtsim_message::Payload::MAX
                    ),
                    "seed 003 (data port messages)",
                )
                .into());
            }
            joined = m
                .payload
                .iter()
                .chain(m.payload2.iter())
                .copied()
                .collect::<gtsim_message::Payload>();
            &joined
        };
        dc::execute(
            d,
            payload,
            mask,
            usize::from(m.response_length),
            &mut target,
        )
    }
}

impl Router<'_> {
    /// The messages whose responses write whole registers.
    fn unmasked(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError> {
        let front = self.front;
        let reply = vec![[0u8; 32]; m.response_length as usize];
        match front.message(m) {
            // Seed 000 §1.5: the null shared function takes the message and returns
            // nothing.
            MessageKind::Null => Ok(reply),
            MessageKind::Sampler => front.sample(self.stage, &*self.mem, m).map(|r| r.registers),
            MessageKind::UrbWrite(w) => {
                let Some(entries) = self.urb.as_deref_mut() else {
                    return Err(self.unrouted(m));
                };
                urb::write(
                    entries,
                    &w,
                    m.payload.get(1..).unwrap_or(&[]),
                    m.channel_mask,
                )?;
                // Seed 004 §7.5.3: a GS thread ends with a URB write whose header gives
                // the number of vertices it output into each entry.
                if m.eot && self.stage == ShaderStage::Geometry {
                    self.vertex_counts = Some(w.vertex_counts);
                }
                Ok(reply)
            }
            MessageKind::PixelInterpolator(pi) => {
                let Some(i) = &self.interpolator else {
                    return Err(self.unrouted(m));
                };
                Ok(i.respond(&pi, &m.payload))
            }
            MessageKind::UrbRead(r) => {
                let Some(entries) = self.urb.as_deref() else {
                    return Err(self.unrouted(m));
                };
                urb::read(entries, &r, m.response_length as usize)
            }
            MessageKind::UrbWriteSimd8 { write, data_start } => {
                let Some(entries) = self.urb.as_deref_mut() else {
                    return Err(self.unrouted(m));
                };
                // A split send's second payload continues the first (the data).
                let joined: Vec<[u8; 32]> =
                    m.payload.iter().chain(m.payload2.iter()).copied().collect();
                urb::write_simd8(
                    entries,
                    &write,
                    joined.get(data_start..).unwrap_or(&[]),
                    m.channel_mask,
                )?;
                Ok(reply)
            }
            MessageKind::UrbReadSimd8(r) => {
                let Some(entries) = self.urb.as_deref() else {
                    return Err(self.unrouted(m));
                };
                urb::read_simd8(entries, &r, m.response_length as usize, m.channel_mask)
            }
            MessageKind::Barrier { count, .. } => {
                let Some(barrier) = self.barrier.as_deref_mut() else {
                    return Err(Unsupported::new(
                        "message gateway barriers outside an HS patch's instances or a GPGPU thread group",
                        "IVB PRM Vol4 Part2 Message Gateway",
                    )
                    .into());
                };
                barrier.arrive(count);
                Ok(reply)
            }
            MessageKind::RenderTargetWrite(rt) => {
                let Some(pixels) = self.pixels.as_mut() else {
                    return Err(self.unrouted(m));
                };
                // A split send's second payload continues the first (Gen11's
                // headerless writes send the colours there).
                let joined;
                let payload: &[[u8; 32]] = if m.payload2.is_empty() {
                    &m.payload
                } else {
                    joined = m
                        .payload
                        .iter()
                        .chain(m.payload2.iter())
                        .copied()
                        .collect::<Vec<_>>();
                    &joined
                };
                pixels.write(&mut *self.mem, &rt, payload, &|mem, bti, rti| {
                    super::resolve_target(front, mem, bti, rti)
                })?;
                Ok(reply)
            }
            MessageKind::RenderTargetRead(rd) => {
                let Some(pixels) = self.pixels.as_ref() else {
                    return Err(self.unrouted(m));
                };
                pixels.read(
                    &mut *self.mem,
                    &rd,
                    m.channel_mask >> m.first_channel,
                    &|mem, bti, rti| super::resolve_target(front, mem, bti, rti),
                )
            }
            MessageKind::DataPort(d) => self.data_port(&d, m).map(|r| r.registers),
            MessageKind::Unsupported(u) => Err(u.into()),
            MessageKind::Invalid(e) => Err(e),
            MessageKind::Other { .. } => Err(self.unrouted(m)),
        }
    }
}
