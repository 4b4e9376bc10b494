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

/// A state field holding a value the seed reserves or forbids: the structure, the field,
/// its value and the section that gives the rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{structure} {field} {value} {rule} ({seed})")]
pub struct StateRule {
    /// The state structure.
    pub structure: &'static str,
    /// The field (or fields) breaking the rule.
    pub field: &'static str,
    /// Their value(s), as the manual writes them.
    pub value: String,
    /// The rule broken ("is reserved", "must ...").
    pub rule: &'static str,
    /// The seed section that states it.
    pub seed: &'static str,
}

impl From<StateRule> for MessageError {
    fn from(e: StateRule) -> MessageError {
        MessageError::State {
            structure: e.structure,
            why: format!("{} {} {} ({})", e.field, e.value, e.rule, e.seed),
        }
    }
}

/// A [`MessageError::Invalid`]: the message breaks the rule `why` states.
pub fn invalid(why: impl Into<String>) -> MessageError {
    MessageError::Invalid(why.into())
}

/// A message's payload registers, kept in the message: at most 15, the largest 4-bit
/// Message Length (seed 000 §1.5), so a send allocates nothing. Reads as a slice of
/// registers.
#[derive(Clone, Copy)]
pub struct Payload {
    regs: [[u8; 32]; Payload::MAX],
    len: u8,
}

impl Payload {
    /// The most registers a payload holds.
    pub const MAX: usize = 15;

    /// An empty payload.
    pub fn new() -> Payload {
        Payload {
            regs: [[0; 32]; Payload::MAX],
            len: 0,
        }
    }

    /// Makes the payload the registers of `bytes` (32 each; the first [`Payload::MAX`]
    /// whole ones), in place: a send fills its message's payload from the register file
    /// with this.
    #[inline]
    pub fn set_registers(&mut self, bytes: &[u8]) {
        let mut len = 0;
        for (r, b) in self.regs.iter_mut().zip(bytes.chunks_exact(32)) {
            r.copy_from_slice(b);
            len += 1;
        }
        self.len = len;
    }

    /// Appends a register; `false` (and nothing appended) when the payload is full.
    pub fn push(&mut self, reg: [u8; 32]) -> bool {
        match self.regs.get_mut(self.len as usize) {
            Some(r) => {
                *r = reg;
                self.len += 1;
                true
            }
            None => false,
        }
    }
}

impl Default for Payload {
    fn default() -> Payload {
        Payload::new()
    }
}

impl std::ops::Deref for Payload {
    type Target = [[u8; 32]];
    fn deref(&self) -> &[[u8; 32]] {
        &self.regs[..self.len as usize]
    }
}

impl PartialEq for Payload {
    fn eq(&self, other: &Payload) -> bool {
        **self == **other
    }
}

impl Eq for Payload {}

impl std::fmt::Debug for Payload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl FromIterator<[u8; 32]> for Payload {
    /// The first [`Payload::MAX`] registers of `iter`.
    fn from_iter<I: IntoIterator<Item = [u8; 32]>>(iter: I) -> Payload {
        let mut p = Payload::new();
        for r in iter.into_iter().take(Payload::MAX) {
            p.push(r);
        }
        p
    }
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
    pub payload: Payload,
    /// A split send's second payload (Gen9+ `sends`: the extended message length of
    /// registers, starting at src1); empty for a `send`, and on Gen7.
    pub payload2: Payload,
    /// Response length in registers.
    pub response_length: u8,
    /// Destination register of the response.
    pub dst: u8,
    /// End of thread.
    pub eot: bool,
    /// Byte offset of the send instruction in its kernel: not part of the message the
    /// hardware carries, but what a failure of it is reported at (a dispatcher replaying
    /// a thread's messages reports a failed one as the thread would have).
    pub ip: usize,
}

/// A shared function's response with the parts of the destination it leaves alone.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Response {
    /// The response registers (`response_length` of them).
    pub registers: Vec<[u8; 32]>,
    /// Per register, the dwords written (bit i: dword i), for responses that leave
    /// channels of the destination unwritten (seed 000 §2.13.2.3: a SIMD4x2 sampler
    /// writeback writes only the active samples' unmasked channels). `None`: every dword
    /// of every register is written.
    pub written: Option<Vec<u8>>,
}

impl From<Vec<[u8; 32]>> for Response {
    fn from(registers: Vec<[u8; 32]>) -> Response {
        Response {
            registers,
            written: None,
        }
    }
}

/// The shared functions a thread talks to (sampler, data port, URB, ...).
pub trait SharedFunctions {
    /// Handles a message and returns its response registers (`response_length` of them),
    /// or why the shared function could not carry it out (a page fault, a malformed
    /// message, a message type not modelled yet); the thread then stops with
    /// `ExecError::SharedFunction` (gtsim-eu).
    fn send(&mut self, m: &Message) -> Result<Vec<[u8; 32]>, MessageError>;

    /// [`SharedFunctions::send`] with the dwords the response writes: what the EU
    /// calls. Shared functions whose responses may leave parts of the destination
    /// unwritten override it; the default writes whole registers.
    fn send_masked(&mut self, m: &Message) -> Result<Response, MessageError> {
        self.send(m).map(Response::from)
    }
}

#[cfg(test)]
mod payload_tests {
    use super::Payload;

    #[test]
    fn a_payload_set_from_registers_is_the_registers_pushed() {
        let bytes: Vec<u8> = (0..20 * 32).map(|i| (i / 32) as u8).collect();
        for n in [0, 1, 4, 15, 20] {
            let want: Payload = (0..n as u8).map(|r| [r; 32]).collect();
            let mut p: Payload = (0..7u8).map(|r| [r + 100; 32]).collect();
            p.set_registers(&bytes[..n * 32]);
            assert_eq!(p, want, "{n} registers");
        }
        // A partial register is not one.
        let mut p = Payload::new();
        p.set_registers(&bytes[..40]);
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn a_payload_holds_fifteen_registers_and_reads_as_their_slice() {
        let mut p = Payload::new();
        assert!(p.is_empty());
        for r in 0..15u8 {
            assert!(p.push([r; 32]));
        }
        assert!(
            !p.push([99; 32]),
            "a 16th register does not fit Message Length"
        );
        assert_eq!(p.len(), 15);
        assert_eq!(p[14], [14; 32]);
        let q: Payload = (0..20u8).map(|r| [r; 32]).collect();
        assert_eq!(p, q);
        assert_ne!(p, (0..3u8).map(|r| [r; 32]).collect());
    }
}
