//! The one place a thread's messages reach their shared functions: the generation's
//! front says what each `send` is ([`Front::message`]); the router hands it to the
//! sampler (through the front, which resolves the stage's surfaces and samplers), to the
//! URB or to the render target write path of the data port, and reports everything else
//! as not modelled, naming the seed (seed 000 §1.5).

use crate::state::{Front, MessageKind, ShaderStage};
use gtsim_dataport::rt_path::PixelWrites;
use gtsim_dataport::urb::{self, Vue};
use gtsim_eu::exec::{Message, MessageError, SharedFunctions};
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
    /// A pixel shader thread's render target writes.
    pub pixels: Option<PixelWrites<'a>>,
}

impl Router<'_> {
    /// A message this stage's model does not route.
    fn unrouted(&self, m: &Message) -> MessageError {
        match self.stage {
            ShaderStage::Vertex | ShaderStage::Geometry => Unsupported::new(
                format!(
                    "{} messages to shared function {} (descriptor {:#010x})",
                    if self.stage == ShaderStage::Vertex {
                        "VS"
                    } else {
                        "GS"
                    },
                    m.sfid.mnemonic(),
                    m.desc
                ),
                "seed 000 §1.5",
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
        let front = self.front;
        let reply = vec![[0u8; 32]; m.response_length as usize];
        match front.message(m) {
            // Seed 000 §1.5: the null shared function takes the message and returns
            // nothing.
            MessageKind::Null => Ok(reply),
            MessageKind::Sampler => front.sample(self.stage, &*self.mem, m),
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
            MessageKind::RenderTargetWrite(rt) => {
                let Some(pixels) = self.pixels.as_mut() else {
                    return Err(self.unrouted(m));
                };
                pixels.write(&mut *self.mem, &rt, &m.payload, &|mem, bti, rti| {
                    front
                        .render_target(mem, bti, rti)
                        .map_err(super::DrawError::into_message_error)
                })?;
                Ok(reply)
            }
            // Gateway barriers join the thread groups of the HS (seed 004 ch.4), not
            // modelled yet; no other 3D stage's threads have a barrier to join.
            MessageKind::Barrier { .. } => Err(Unsupported::new(
                "message gateway barriers (HS thread instances)",
                "seed 004 §4.7; IVB PRM Vol4 Part2 Message Gateway",
            )
            .into()),
            MessageKind::Unsupported(u) => Err(u.into()),
            MessageKind::Invalid(e) => Err(e),
            MessageKind::Other { .. } => Err(self.unrouted(m)),
        }
    }
}
