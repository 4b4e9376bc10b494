//! The interface every GPU-side memory access goes through.

use crate::space::Fault;

/// Graphics memory as the GPU sees it: byte-addressed, faulting on unmapped addresses.
///
/// Implemented by [`crate::AddressSpace`] (traces, tests) and by the i915 emulation's view
/// of buffer objects (a real driver's memory).
///
/// `Sync`: threads that run in parallel read one memory at the same time (each buffering
/// its writes in an [`crate::overlay::Overlay`]); writes still take `&mut`.
pub trait Memory: Sync {
    /// Reads `out.len()` bytes at `addr`.
    fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault>;
    /// Writes `data` at `addr`; nothing is written if any byte is unmapped.
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault>;

    /// The fault a `len`-byte write at `addr` would raise, if any, without writing.
    fn check_write(&self, addr: u64, len: u64) -> Result<(), Fault> {
        let mut probe = vec![0u8; len.min(1 << 20) as usize];
        self.read(addr, &mut probe)
            .map_err(|f| Fault { kind: "write", ..f })
    }

    /// Reads one little-endian dword.
    fn read_u32(&self, addr: u64) -> Result<u32, Fault> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Reads one little-endian qword.
    fn read_u64(&self, addr: u64) -> Result<u64, Fault> {
        let mut b = [0u8; 8];
        self.read(addr, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Reads `n` little-endian dwords.
    fn read_dwords(&self, addr: u64, n: usize) -> Result<Vec<u32>, Fault> {
        let mut b = vec![0u8; n * 4];
        self.read(addr, &mut b)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// Writes one little-endian dword.
    fn write_u32(&mut self, addr: u64, v: u32) -> Result<(), Fault> {
        self.write(addr, &v.to_le_bytes())
    }

    /// Writes one little-endian qword.
    fn write_u64(&mut self, addr: u64, v: u64) -> Result<(), Fault> {
        self.write(addr, &v.to_le_bytes())
    }
}

impl Memory for crate::AddressSpace {
    fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        crate::AddressSpace::read(self, addr, out)
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        crate::AddressSpace::write(self, addr, data)
    }

    fn check_write(&self, addr: u64, len: u64) -> Result<(), Fault> {
        self.check(addr, len, "write")
    }
}
