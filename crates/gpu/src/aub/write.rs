//! Writing legacy AUB traces (the same packets `intel_dump_gpu` writes for Gen7).

use super::*;

/// Builds an AUB trace in memory.
#[derive(Debug, Clone, Default)]
pub struct AubWriter {
    out: Vec<u8>,
}

impl AubWriter {
    /// A trace starting with the version header naming the application and the PCI id.
    pub fn new(app: &str, pci_id: u32) -> Self {
        let mut w = Self::default();
        let comment = format!("PCI-ID=0x{pci_id:x}");
        let cdw = comment.len().div_ceil(4);
        let dwords = 13 + cdw;
        w.dw(CMD_AUB_HEADER | (dwords as u32 - 2));
        w.dw(4 << 24);
        let mut name = [0u8; 32];
        let n = app.len().min(31);
        name[..n].copy_from_slice(&app.as_bytes()[..n]);
        w.out.extend_from_slice(&name);
        w.dw(0);
        w.dw(0);
        w.dw(comment.len() as u32);
        let mut c = comment.into_bytes();
        c.resize(cdw * 4, 0);
        w.out.extend_from_slice(&c);
        w
    }

    fn dw(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn block(&mut self, op: u32, addr: u64, data: &[u8]) {
        let wide = addr > u32::MAX as u64;
        self.dw(CMD_AUB_TRACE_HEADER_BLOCK | if wide { 4 } else { 3 });
        self.dw(op);
        self.dw(0);
        self.dw(addr as u32);
        self.dw(data.len() as u32);
        if wide {
            self.dw((addr >> 32) as u32);
        }
        self.out.extend_from_slice(data);
        self.out.resize(self.out.len().div_ceil(4) * 4, 0);
    }

    /// Records memory contents at a GTT address (split into 32 KiB blocks as
    /// `aub_write_trace_block` does, so the 16-bit-era tools stay happy).
    pub fn write_memory(&mut self, addr: u64, data: &[u8], kind: u32) {
        for (i, chunk) in data.chunks(32 * 1024).enumerate() {
            self.block(
                (MEMTYPE_GTT << 16) | (kind << 8) | OP_DATA_WRITE,
                addr + (i * 32 * 1024) as u64,
                chunk,
            );
        }
    }

    /// Records a submission of the batch at `batch` on the render ring.
    pub fn exec(&mut self, batch: u64, ring_offset: u64) {
        // MI_BATCH_BUFFER_START, 2 dwords on Gen7 (see defs/gen7/mi.spec).
        let cmds = [(0x31u32 << 23), batch as u32];
        let bytes: Vec<u8> = cmds.iter().flat_map(|d| d.to_le_bytes()).collect();
        self.block(
            (MEMTYPE_GTT << 16) | (TYPE_RING_PRB0 << 8) | OP_COMMAND_WRITE,
            ring_offset,
            &bytes,
        );
    }

    /// Records a submission of the batch at `batch` in hardware context `context`: the
    /// ring holds MI_SET_CONTEXT, as the Linux driver's ring submission switches
    /// contexts (its Logical Context Address is the context's number in bits 31:12,
    /// standing for the context image the driver would point at; bit 8 "must be 1"),
    /// then MI_BATCH_BUFFER_START. A replay runs each context's submissions against
    /// that context's own state.
    pub fn exec_in_context(&mut self, batch: u64, context: u32, ring_offset: u64) {
        self.exec_on_ring(TYPE_RING_PRB0, batch, context, ring_offset);
    }

    /// [`AubWriter::exec_in_context`] on the ring of command-write type `ring`
    /// ([`TYPE_RING_PRB0`] render, [`TYPE_RING_PRB2`] blitter).
    pub fn exec_on_ring(&mut self, ring: u32, batch: u64, context: u32, ring_offset: u64) {
        let cmds = [
            0x18u32 << 23,
            (context << 12) | 1 << 8,
            0x31u32 << 23,
            batch as u32,
        ];
        let bytes: Vec<u8> = cmds.iter().flat_map(|d| d.to_le_bytes()).collect();
        self.block(
            (MEMTYPE_GTT << 16) | (ring << 8) | OP_COMMAND_WRITE,
            ring_offset,
            &bytes,
        );
    }

    /// Records a bitmap dump: the picture at `bmp.addr` (written before) is what a
    /// display shows from here.
    pub fn dump_bmp(&mut self, bmp: &DumpBmp) {
        for d in bmp.dwords() {
            self.dw(d);
        }
    }

    /// Takes the bytes written so far, leaving the writer ready to append more (for
    /// streaming a capture to a file submission by submission).
    pub fn drain(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }

    /// The trace's bytes.
    pub fn finish(self) -> Vec<u8> {
        self.out
    }
}
