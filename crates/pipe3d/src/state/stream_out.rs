//! The stream output logic's state (seed 004 ch.8) as far as the pipeline past it reads
//! it: which topologies go on to be rendered.

/// The SOL stage (seed 004 §8.4 3DSTATE_STREAMOUT, §8.7 Rendering Disable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StreamOutput {
    /// No topology leaves the SOL stage (used "even if SO Function Enable is
    /// DISABLED").
    pub rendering_disable: bool,
    /// The stream whose topologies go down the pipeline; topologies from the VF are
    /// stream 0.
    pub render_stream: u32,
}

impl StreamOutput {
    /// Whether the topologies of `stream` go down the pipeline past the SOL stage.
    pub fn renders(&self, stream: u32) -> bool {
        !self.rendering_disable && stream == self.render_stream
    }
}
