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
    /// (This default probes every byte of the range by reading it, 64 KiB at a time.)
    fn check_write(&self, addr: u64, len: u64) -> Result<(), Fault> {
        let mut probe = vec![0u8; len.min(1 << 16) as usize];
        let mut at = 0;
        while at < len {
            let n = (len - at).min(probe.len() as u64);
            self.read(addr.wrapping_add(at), &mut probe[..n as usize])
                .map_err(|f| Fault { kind: "write", ..f })?;
            at += n;
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AddressSpace;

    /// Memory with only reads and writes: the default `check_write`.
    struct Plain(AddressSpace);

    impl Memory for Plain {
        fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
            self.0.read(addr, out)
        }
        fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
            self.0.write(addr, data)
        }
    }

    /// The default check probes every byte: a hole 1.5 MiB into a 2 MiB range is found,
    /// as the address space's own check finds it.
    #[test]
    fn the_default_write_check_covers_the_whole_range() {
        let mut space = AddressSpace::new();
        space.map(0x10_0000, 0x18_0000);
        space.map(0x29_0000, 0x7_0000);
        let plain = Plain(space.clone());
        let hole = plain.check_write(0x10_0000, 0x20_0000).unwrap_err();
        assert_eq!(hole.page, 0x28_0000);
        assert_eq!(
            space.check_write(0x10_0000, 0x20_0000).unwrap_err().page,
            0x28_0000
        );
        assert!(plain.check_write(0x10_0000, 0x18_0000).is_ok());
        assert!(plain.check_write(0x29_0000, 0x7_0000).is_ok());
    }
}
