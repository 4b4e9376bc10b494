//! # gtsim-message: what threads and shared functions say to each other
//!
//! An EU thread's `send` becomes a [`Message`]: the shared function's id, the message
//! descriptor, the payload registers and the channels enabled (seed 000 §1.5). A shared
//! function (sampler, data port, URB, ...) answers with its response registers or a
//! typed [`MessageError`]. This crate sits below the EU and the shared functions, so
//! they share one vocabulary without depending on each other; the generation's front
//! decodes descriptors, and the pipeline routes each message to its shared function.

use gtsim_isa::ir::Sfid;
use gtsim_mem::Fault;
use gtsim_mem::surface::SurfaceError;
use gtsim_spec::Unsupported;
use thiserror::Error;

/// Why a shared function refused a message (seed 000 §1.5), as the thread reports it.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MessageError {
    /// The message, its state or its shared function is not modelled yet.
    #[error(transparent)]
    Unsupported(#[from] Unsupported),
    /// A memory access for the message faulted; the fault keeps its address.
    #[error("{what}: {fault}")]
    Fault {
        /// What was being read or written.
        what: String,
        /// The fault.
        #[source]
        fault: Fault,
    },
    /// State the message uses does not decode or holds a value the hardware does not
    /// define.
    #[error("{structure}: {why}")]
    State {
        /// The state structure or command.
        structure: &'static str,
        /// What is wrong.
        why: String,
    },
    /// A texel the message reads or writes is outside its surface or not decodable.
    #[error("{what}: {error}")]
    Texel {
        /// Which texel.
        what: String,
        /// Why.
        #[source]
        error: SurfaceError,
    },
    /// The message itself breaks a rule (descriptor, payload or response length).
    #[error("{0}")]
    Invalid(String),
    /// An error with what the shared function was doing when it happened (the message,
    /// the channel).
    #[error("{context}: {error}")]
    Context {
        /// What the shared function was doing.
        context: String,
        /// The error.
        #[source]
        error: Box<MessageError>,
    },
}

impl MessageError {
    /// This error with `context` in front of it.
    pub fn context(self, context: impl Into<String>) -> MessageError {
        MessageError::Context {
            context: context.into(),
            error: Box::new(self),
        }
    }

    /// The innermost error, under every [`MessageError::Context`].
    pub fn root(&self) -> &MessageError {
        match self {
            MessageError::Context { error, .. } => error.root(),
            e => e,
        }
    }

    /// The page fault behind this error, if one is: with its address.
    pub fn fault(&self) -> Option<Fault> {
        match self.root() {
            MessageError::Fault { fault, .. } => Some(*fault),
            MessageError::Texel {
                error: SurfaceError::Fault(fault),
                ..
            } => Some(*fault),
            _ => None,
        }
    }
}

/// A [`MessageError::Invalid`]: the message breaks the rule `why` states.
pub fn invalid(why: impl Into<String>) -> MessageError {
    MessageError::Invalid(why.into())
}

/// A message to a shared function (seed 000 §1.5: descriptor, header and payload
/// registers, response length, end of thread).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The shared function addressed.
    pub sfid: Sfid,
    /// The 32-bit message descriptor.
    pub desc: u32,
    /// The extended message descriptor of generations that have one (Gen8+ `sends`,
    /// where it also carries the SFID and the second payload's length); 0 on Gen7, whose
    /// send encodes the SFID in the instruction.
    pub ex_desc: u32,
    /// Execution size of the send.
    pub exec_size: u8,
    /// Channels enabled when it was sent (bit per channel, numbered from channel 0 of the
    /// thread, so a `2H` SIMD16 send has its channels in bits 16-31).
    pub channel_mask: u32,
    /// First channel of the send's channel group (quarter control: 0, 8, 16 or 24).
    pub first_channel: u8,
    /// The payload registers (message length of them, starting at src0), 32 bytes each.
    pub payload: Vec<[u8; 32]>,
    /// Response length in registers.
    pub response_length: u8,
    /// Destination register of the response.
    pub dst: u8,
    /// End of thread.
    pub eot: bool,
}

/// The shared functions a thread talks to (sampler, data port, URB, ...).
pub trait SharedFunctions {
    /// Handles a message and returns its response registers (`response_length` of them),
    /// or why the shared function could not carry it out (a page fault, a malformed
    /// message, a message type not modelled yet); the thread then stops with
    /// `ExecError::SharedFunction` (gtsim-eu).
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError>;
}
