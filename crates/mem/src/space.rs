//! A sparse, page-granular graphics address space.

use thiserror::Error;

/// Page size of the Gen7 GTT (IVB PRM Vol1 Part1, "Graphics Translation Tables": 4 KiB
/// pages).
pub const PAGE_SIZE: u64 = 4096;

/// An access touched memory that is not mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("page fault: {len}-byte {kind} at {addr:#x} touches unmapped page {page:#x}")]
pub struct Fault {
    /// First byte of the access.
    pub addr: u64,
    /// Access size in bytes.
    pub len: u64,
    /// The first unmapped page touched.
    pub page: u64,
    /// "read" or "write".
    pub kind: &'static str,
}

/// Sparse memory: 4 KiB pages, present or not, found by a hash of their address (a
/// pixel's access looks one page up; nothing needs them in order).
#[derive(Debug, Clone, Default)]
pub struct AddressSpace {
    pages: rustc_hash::FxHashMap<u64, Box<[u8]>>,
}

impl AddressSpace {
    /// An empty space: every access faults.
    pub fn new() -> Self {
        Self::default()
    }

    fn page_range(addr: u64, len: u64) -> impl Iterator<Item = u64> {
        let first = addr / PAGE_SIZE;
        let last = if len == 0 {
            first
        } else {
            addr.saturating_add(len - 1) / PAGE_SIZE
        };
        (first..=last).map(|p| p * PAGE_SIZE)
    }

    /// Maps zero-filled pages covering `addr..addr+len` (existing pages keep their data).
    pub fn map(&mut self, addr: u64, len: u64) {
        for p in Self::page_range(addr, len) {
            self.pages
                .entry(p)
                .or_insert_with(|| vec![0u8; PAGE_SIZE as usize].into_boxed_slice());
        }
    }

    /// Whether every byte of `addr..addr+len` is mapped.
    pub fn is_mapped(&self, addr: u64, len: u64) -> bool {
        Self::page_range(addr, len).all(|p| self.pages.contains_key(&p))
    }

    pub(crate) fn check(&self, addr: u64, len: u64, kind: &'static str) -> Result<(), Fault> {
        if addr.checked_add(len).is_none() {
            return Err(Fault {
                addr,
                len,
                page: !(PAGE_SIZE - 1),
                kind,
            });
        }
        match Self::page_range(addr, len).find(|p| !self.pages.contains_key(p)) {
            Some(page) => Err(Fault {
                addr,
                len,
                page,
                kind,
            }),
            None => Ok(()),
        }
    }

    /// Writes `data` at `addr`, mapping pages as needed (how a trace or a loader fills
    /// memory).
    pub fn load(&mut self, addr: u64, data: &[u8]) {
        self.map(addr, data.len() as u64);
        self.copy_in(addr, data);
    }

    /// Splits `addr..addr+len` at page boundaries: `(page, offset in page, offset in the
    /// buffer, length)`.
    fn pieces(addr: u64, len: usize) -> impl Iterator<Item = (u64, usize, usize, usize)> {
        let mut done = 0usize;
        std::iter::from_fn(move || {
            (done < len).then(|| {
                let a = addr + done as u64;
                let page = a & !(PAGE_SIZE - 1);
                let off = (a - page) as usize;
                let n = (PAGE_SIZE as usize - off).min(len - done);
                let piece = (page, off, done, n);
                done += n;
                piece
            })
        })
    }

    fn copy_in(&mut self, addr: u64, data: &[u8]) {
        for (page, off, at, n) in Self::pieces(addr, data.len()) {
            if let Some(p) = self.pages.get_mut(&page) {
                p[off..off + n].copy_from_slice(&data[at..at + n]);
            }
        }
    }

    /// Writes `data` at `addr`; faults if any byte is unmapped (nothing is written then).
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        // Inside one mapped page (most accesses): one look-up.
        let (page, off) = (addr & !(PAGE_SIZE - 1), (addr & (PAGE_SIZE - 1)) as usize);
        if !data.is_empty()
            && off + data.len() <= PAGE_SIZE as usize
            && addr.checked_add(data.len() as u64).is_some()
            && let Some(p) = self.pages.get_mut(&page)
        {
            p[off..off + data.len()].copy_from_slice(data);
            return Ok(());
        }
        self.check(addr, data.len() as u64, "write")?;
        self.copy_in(addr, data);
        Ok(())
    }

    /// Reads `out.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let (page, off) = (addr & !(PAGE_SIZE - 1), (addr & (PAGE_SIZE - 1)) as usize);
        if !out.is_empty()
            && off + out.len() <= PAGE_SIZE as usize
            && addr.checked_add(out.len() as u64).is_some()
            && let Some(p) = self.pages.get(&page)
        {
            out.copy_from_slice(&p[off..off + out.len()]);
            return Ok(());
        }
        self.check(addr, out.len() as u64, "read")?;
        for (page, off, at, n) in Self::pieces(addr, out.len()) {
            out[at..at + n].copy_from_slice(&self.pages[&page][off..off + n]);
        }
        Ok(())
    }

    /// How many bytes from `addr` on are mapped contiguously.
    pub fn mapped_run(&self, addr: u64) -> u64 {
        let mut page = addr & !(PAGE_SIZE - 1);
        let mut run = 0;
        while self.pages.contains_key(&page) {
            run += PAGE_SIZE;
            page += PAGE_SIZE;
        }
        run.saturating_sub(addr & (PAGE_SIZE - 1))
    }

    /// Number of mapped pages.
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// The addresses of the mapped pages, in order.
    pub fn page_addresses(&self) -> Vec<u64> {
        let mut a: Vec<u64> = self.pages.keys().copied().collect();
        a.sort_unstable();
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Memory;

    #[test]
    fn unmapped_access_faults_with_the_page() {
        let m = AddressSpace::new();
        let e = m.read_u32(0x1234).unwrap_err();
        assert_eq!((e.addr, e.len, e.page), (0x1234, 4, 0x1000));
    }

    #[test]
    fn load_spans_pages_and_reads_back() {
        let mut m = AddressSpace::new();
        let data: Vec<u8> = (0..6000u32).map(|i| i as u8).collect();
        m.load(0xffe, &data);
        let mut out = vec![0u8; 6000];
        m.read(0xffe, &mut out).unwrap();
        assert_eq!(out, data);
        assert_eq!(m.page_count(), 3);
        // The last page ends at 0x3000; one byte beyond the mapped run faults.
        assert_eq!(m.mapped_run(0xffe), 0x3000 - 0xffe);
        assert_eq!(m.read_u32(0x2ffe).unwrap_err().page, 0x3000);
    }

    #[test]
    fn write_needs_mapping_and_is_all_or_nothing() {
        let mut m = AddressSpace::new();
        m.map(0, 4096);
        // Bytes 4096 and 4097 are on the unmapped page 0x1000.
        assert_eq!(
            m.write(4094, &[1, 2, 3, 4]),
            Err(Fault {
                addr: 4094,
                len: 4,
                page: 0x1000,
                kind: "write"
            })
        );
        assert_eq!(m.read_u32(4092).unwrap(), 0);
        m.write(4092, &[1, 2, 3, 4]).unwrap();
        assert_eq!(m.read_u32(4092).unwrap(), 0x0403_0201);
    }

    #[test]
    fn address_overflow_is_a_fault_not_a_panic() {
        let m = AddressSpace::new();
        // The access runs off the end of the address space: the fault names it and
        // the last page.
        assert_eq!(
            m.read_u32(u64::MAX - 1),
            Err(Fault {
                addr: u64::MAX - 1,
                len: 4,
                page: !(PAGE_SIZE - 1),
                kind: "read"
            })
        );
    }
}
