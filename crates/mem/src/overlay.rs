//! Buffered writes over a shared memory: how threads that run in parallel stay
//! deterministic.
//!
//! Shader threads of one dispatch batch run at the same time on the host's cores. Each
//! gets an [`Overlay`]: its reads see the shared memory as it was when the batch started,
//! with the thread's own earlier writes laid over it; its writes are checked (a write to
//! an unmapped address faults at once, exactly as it would on the memory itself) and
//! kept in the overlay. When the batch is done, the overlays are applied to the memory
//! one after the other in dispatch order ([`WriteLog::apply`]).
//!
//! The result depends only on how the work is cut into batches, never on how many host
//! threads run them or in which order they finish: the same submission gives the same
//! bits whatever the thread count. Threads of one batch write disjoint pixels (the
//! windower never dispatches a pixel twice in one batch), so for everything but a
//! shader that reads memory another thread of its batch writes, the result is also that
//! of running the threads one at a time; that case is a race on the hardware as well
//! (seed 000 ch.1 orders only writes to the same pixel).

use crate::memory::Memory;
use crate::space::Fault;

/// A thread's view of a shared memory: reads through to it, writes kept aside.
pub struct Overlay<'a> {
    base: &'a dyn Memory,
    /// The writes in order: (address, start in `bytes`, length).
    writes: Vec<(u64, usize, usize)>,
    bytes: Vec<u8>,
    /// A 4 KiB page found writable as a whole: the base's mappings do not change while
    /// it is borrowed, so writes inside it need no further check.
    writable_page: Option<u64>,
    /// Once the overlay holds more than [`INDEXED`] writes: which bytes they cover, by
    /// dword (address / 4, a mask of its four bytes). A read that covers none of them
    /// needs no look at the writes (an early depth test over thousands of pixels reads
    /// each pixel before writing it).
    index: Option<rustc_hash::FxHashMap<u64, u8>>,
}

/// Writes an overlay holds before it indexes them (a thread's handful of render target
/// writes are faster to scan than to index).
const INDEXED: usize = 32;

/// The dwords of bytes `addr..addr + len`, each with the mask of its bytes in the range
/// (bit i: byte 4 * dword + i).
fn dwords(addr: u64, len: u64) -> impl Iterator<Item = (u64, u8)> {
    let end = addr.saturating_add(len);
    let mut at = addr;
    std::iter::from_fn(move || {
        (at < end).then(|| {
            let dword = at >> 2;
            let hi = end.min((dword + 1) << 2);
            let bits = (((1u16 << (hi - at)) - 1) as u8) << (at & 3);
            at = hi;
            (dword, bits)
        })
    })
}

/// Marks bytes `addr..addr + len` in a byte index.
fn mark(index: &mut rustc_hash::FxHashMap<u64, u8>, addr: u64, len: u64) {
    for (dword, bits) in dwords(addr, len) {
        *index.entry(dword).or_default() |= bits;
    }
}

/// Whether a byte index holds any byte of `addr..addr + len`.
fn touched(index: &rustc_hash::FxHashMap<u64, u8>, addr: u64, len: u64) -> bool {
    dwords(addr, len).any(|(dword, bits)| index.get(&dword).is_some_and(|m| m & bits != 0))
}

impl<'a> Overlay<'a> {
    /// An overlay with no writes over `base`.
    pub fn new(base: &'a dyn Memory) -> Overlay<'a> {
        // Room for a SIMD16 render target write's pixels without growing.
        Overlay {
            base,
            writes: Vec::with_capacity(16),
            bytes: Vec::with_capacity(64),
            writable_page: None,
            index: None,
        }
    }

    /// The buffered writes, detached from the shared memory, for [`WriteLog::apply`].
    pub fn into_log(self) -> WriteLog {
        WriteLog {
            writes: self.writes,
            bytes: self.bytes,
        }
    }
}

impl Memory for Overlay<'_> {
    fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        self.base.read(addr, out)?;
        if self
            .index
            .as_ref()
            .is_some_and(|ix| !touched(ix, addr, out.len() as u64))
        {
            return Ok(());
        }
        // Later writes cover earlier ones: lay them over in order.
        let end = addr + out.len() as u64;
        for &(at, start, len) in &self.writes {
            let wend = at + len as u64;
            if wend <= addr || at >= end {
                continue;
            }
            let lo = at.max(addr);
            let hi = wend.min(end);
            let n = (hi - lo) as usize;
            let src = start + (lo - at) as usize;
            let dst = (lo - addr) as usize;
            out[dst..dst + n].copy_from_slice(&self.bytes[src..src + n]);
        }
        Ok(())
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let page = addr & !0xfff;
        let within = addr
            .checked_add(data.len() as u64)
            .is_some_and(|end| end <= page + 0x1000);
        if !(within && self.writable_page == Some(page)) {
            self.base.check_write(addr, data.len() as u64)?;
            if within && self.base.check_write(page, 0x1000).is_ok() {
                self.writable_page = Some(page);
            }
        }
        // A write that continues the previous one extends it (neighbouring pixels of a
        // tile row), so applying the log takes fewer, longer writes.
        match self.writes.last_mut() {
            Some((at, start, len))
                if *at + *len as u64 == addr && *start + *len == self.bytes.len() =>
            {
                *len += data.len();
            }
            _ => self.writes.push((addr, self.bytes.len(), data.len())),
        }
        self.bytes.extend_from_slice(data);
        match &mut self.index {
            Some(ix) => mark(ix, addr, data.len() as u64),
            None if self.writes.len() > INDEXED => {
                let mut ix = rustc_hash::FxHashMap::default();
                for &(at, _, len) in &self.writes {
                    mark(&mut ix, at, len as u64);
                }
                self.index = Some(ix);
            }
            None => {}
        }
        Ok(())
    }

    fn check_write(&self, addr: u64, len: u64) -> Result<(), Fault> {
        self.base.check_write(addr, len)
    }
}

/// An [`Overlay`]'s writes, ready to be applied.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WriteLog {
    writes: Vec<(u64, usize, usize)>,
    bytes: Vec<u8>,
}

impl WriteLog {
    /// Carries out the writes on `mem`, in the order they were made. Each was checked
    /// when it was made, so this faults only if `mem` is not the memory the overlay was
    /// over (or its mapping changed since).
    pub fn apply(&self, mem: &mut dyn Memory) -> Result<(), Fault> {
        for &(at, start, len) in &self.writes {
            mem.write(at, &self.bytes[start..start + len])?;
        }
        Ok(())
    }

    /// Number of writes.
    pub fn len(&self) -> usize {
        self.writes.len()
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AddressSpace;

    fn space() -> AddressSpace {
        let mut m = AddressSpace::new();
        m.load(0x1000, &[0xaa; 0x2000]);
        m
    }

    #[test]
    fn reads_see_own_writes_over_the_base_and_the_base_stays_untouched() {
        let m = space();
        let mut o = Overlay::new(&m);
        o.write(0x1ffe, &[1, 2, 3, 4]).unwrap();
        o.write(0x2000, &[9]).unwrap();
        let mut b = [0u8; 8];
        o.read(0x1ffc, &mut b).unwrap();
        assert_eq!(b, [0xaa, 0xaa, 1, 2, 9, 4, 0xaa, 0xaa]);
        let mut b = [0u8; 2];
        m.read(0x1ffe, &mut b).unwrap();
        assert_eq!(b, [0xaa, 0xaa]);
    }

    #[test]
    fn a_write_to_unmapped_memory_faults_at_once_like_the_memory() {
        let mut m = space();
        let want = m.write(0x2ffe, &[0; 4]).unwrap_err();
        let m = m;
        let mut o = Overlay::new(&m);
        assert_eq!(o.write(0x2ffe, &[0; 4]), Err(want));
        assert!(o.into_log().is_empty());
    }

    /// A memory with byte-granular mappings: [0x3000, 0x3800) only.
    struct HalfPage;

    impl Memory for HalfPage {
        fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
            if addr >= 0x3000 && addr + out.len() as u64 <= 0x3800 {
                out.fill(0);
                return Ok(());
            }
            Err(Fault {
                addr,
                len: out.len() as u64,
                page: 0x3000,
                kind: "read",
            })
        }
        fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
            self.read(addr, &mut vec![0; data.len()])
        }
    }

    /// Writes inside a page found writable as a whole skip the check; a page mapped
    /// only in part is checked at every write, so its unmapped bytes still fault.
    #[test]
    fn only_whole_writable_pages_skip_the_check() {
        let m = space();
        let mut o = Overlay::new(&m);
        o.write(0x1010, &[1; 4]).unwrap();
        o.write(0x1ffc, &[1; 4]).unwrap();
        assert_eq!(
            o.write(0x2ffe, &[1; 4]),
            Err(Fault {
                addr: 0x2ffe,
                len: 4,
                page: 0x3000,
                kind: "write"
            }),
            "crosses into unmapped 0x3000"
        );
        let h = HalfPage;
        let mut o = Overlay::new(&h);
        o.write(0x3000, &[1; 4]).unwrap();
        o.write(0x37fc, &[1; 4]).unwrap();
        for addr in [0x3800, 0x3ffc] {
            assert!(
                matches!(
                    o.write(addr, &[1; 4]),
                    Err(Fault { addr: a, len: 4, kind: "write", .. }) if a == addr
                ),
                "{addr:#x}"
            );
        }
    }

    #[test]
    fn applying_the_log_equals_writing_directly() {
        let writes: [(u64, &[u8]); 4] = [
            (0x1000, &[1, 2, 3]),
            (0x1001, &[7]),
            (0x2fe0, &[5; 32]),
            (0x1002, &[8, 8]),
        ];
        let mut direct = space();
        for (a, d) in writes {
            direct.write(a, d).unwrap();
        }
        direct.write(0x1004, &[9]).unwrap();
        let base = space();
        let mut o = Overlay::new(&base);
        for (a, d) in writes {
            o.write(a, d).unwrap();
        }
        // A write that continues the one before merges into it.
        o.write(0x1004, &[9]).unwrap();
        let log = o.into_log();
        assert_eq!(log.len(), 4);
        let mut applied = base.clone();
        log.apply(&mut applied).unwrap();
        let (mut a, mut b) = (vec![0u8; 0x2000], vec![0u8; 0x2000]);
        direct.read(0x1000, &mut a).unwrap();
        applied.read(0x1000, &mut b).unwrap();
        assert_eq!(a, b);
    }
    /// Random writes and reads (across page boundaries, overlapping, repeated): every
    /// read through the overlay equals the same read of a memory written directly, and
    /// applying the log leaves the memory written directly.
    #[test]
    fn random_writes_and_reads_match_writing_directly() {
        let mut rng = gtsim_fuzzkit::Rng::new(gtsim_fuzzkit::seed(0x9e37_79b9_7f4a_7c15));
        let mut next = move |n: u64| rng.below(n as usize) as u64;
        for round in 0..50 {
            let base = space();
            let mut direct = base.clone();
            let mut o = Overlay::new(&base);
            for _ in 0..200 {
                let len = 1 + next(if round % 2 == 0 { 8 } else { 300 }) as usize;
                let addr = 0x1000 + next(0x2000 - len as u64);
                if next(3) == 0 {
                    let (mut a, mut b) = (vec![0u8; len], vec![0u8; len]);
                    direct.read(addr, &mut a).unwrap();
                    o.read(addr, &mut b).unwrap();
                    assert_eq!(a, b, "round {round}: read {addr:#x}+{len}");
                } else {
                    let data: Vec<u8> = (0..len).map(|_| next(256) as u8).collect();
                    direct.write(addr, &data).unwrap();
                    o.write(addr, &data).unwrap();
                }
            }
            let log = o.into_log();
            let mut applied = base.clone();
            log.apply(&mut applied).unwrap();
            let (mut a, mut b) = (vec![0u8; 0x2000], vec![0u8; 0x2000]);
            direct.read(0x1000, &mut a).unwrap();
            applied.read(0x1000, &mut b).unwrap();
            assert_eq!(a, b, "round {round}: applied log");
        }
    }
}
