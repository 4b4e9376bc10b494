//! The error state a GPU hang leaves, in the format of the Linux i915 driver's error
//! file (`/sys/class/drm/card0/error`, Linux 6.1 `i915_gpu_error.c`), so that Mesa's
//! `aubinator_error_decode` and IGT's `intel_error_decode` read it.
//!
//! What the readers use (Mesa 22.3 `aubinator_error_decode.c` `read_data_file`; IGT
//! 1.27 `tools/intel_error_decode.c`):
//! * `PCI ID: 0x0162`, before any register line: it selects the generation;
//! * an engine block, `rcs0 command stream:` (or `bcs0`) with indented registers:
//!   `HEAD: 0x.. [0x..]` (the bracket is the ring offset the hung request starts at,
//!   where decoding starts), `TAIL: 0x..` (where it stops), `ACTHD: 0xHI LO` (the
//!   address tagged "(ACTHD)" in the decode);
//! * buffers: a line `rcs0 --- NAME = 0xHI LO` (the GPU address, both halves) and one
//!   data line, `~` then the object's little-endian dwords in ASCII85, `z` for a zero
//!   dword, five digits (most significant first, each + 33) otherwise. The kernel
//!   compresses (`:`, zlib); both readers also take the raw form written here.
//!   `batch` and `ring` are decoded as commands (the ring's MI_BATCH_BUFFER_START is
//!   followed into whichever buffer holds its target); `user` buffers are searched for
//!   the state, binding tables and kernels STATE_BASE_ADDRESS locates.
//!
//! The model has no ring buffer: the error state carries a one-page ring at
//! [`RING_ADDR`] (above the 2 GiB the emulated GTT hands out) holding the
//! MI_BATCH_BUFFER_START that started the batch, as the kernel's ring would. Every object
//! the execbuffer listed goes in as a `user` buffer (the kernel takes only those flagged
//! EXEC_OBJECT_CAPTURE), within [`MAX_BYTES`], so the decoders find state and shaders.

use std::fmt::Write;

/// Where the error state's ring buffer is.
pub const RING_ADDR: u64 = 0xffff_f000;
/// The most object bytes one error state carries (the caller's budget).
pub const MAX_BYTES: usize = 64 << 20;

/// What a hang leaves for the error state (the file goes where `Kernel::error_dir`
/// says: `GTSIM_ERROR_DIR`, else the temporary directory, under `gtsim run`).
pub struct ErrorState<'a> {
    /// The engine ("rcs0" or "bcs0").
    pub engine: &'static str,
    /// The PCI device id.
    pub pci_id: u32,
    /// The PCI revision.
    pub revision: u32,
    /// The process and its id.
    pub process: (String, u32),
    /// The hang report.
    pub reason: String,
    /// The address of the command that hung.
    pub acthd: u64,
    /// The batch's start address.
    pub batch_addr: u64,
    /// The batch buffer object: its address and contents.
    pub batch: (u64, &'a [u8]),
    /// The other objects of the execbuffer: address and contents.
    pub objects: Vec<(u64, &'a [u8])>,
    /// Seconds and microseconds since the epoch.
    pub time: (u64, u32),
}

/// `bytes` (padded with zeros to whole dwords) as the error file's raw data line: `~`
/// and the ASCII85 dwords (Linux `include/linux/ascii85.h`: `z` for zero, else five
/// base-85 digits, most significant first, each + 33).
pub fn ascii85(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(1 + bytes.len() * 5 / 4);
    out.push('~');
    for chunk in bytes.chunks(4) {
        let mut w = [0u8; 4];
        w[..chunk.len()].copy_from_slice(chunk);
        let mut v = u32::from_le_bytes(w);
        if v == 0 {
            out.push('z');
            continue;
        }
        let mut digits = [0u8; 5];
        for d in digits.iter_mut().rev() {
            *d = (v % 85) as u8 + 33;
            v /= 85;
        }
        out.extend(digits.iter().map(|&d| d as char));
    }
    out
}

/// One line of text that cannot be taken for a buffer header (`---`) or a device line.
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
        .replace("---", "- - -")
        .replace("PCI ID", "PCI-ID")
}

fn hi_lo(a: u64) -> String {
    format!("0x{:08x} {:08x}", a >> 32, a as u32)
}

impl ErrorState<'_> {
    /// The error file's text.
    pub fn text(&self) -> String {
        let mut t = String::new();
        let (comm, pid) = &self.process;
        let e = self.engine;
        let _ = writeln!(
            t,
            "GPU HANG: ecode 7:1:00000000, in {} [{pid}]",
            one_line(comm)
        );
        let _ = writeln!(t, "Kernel: gtsim i915 emulation");
        let _ = writeln!(t, "Driver: 20201103");
        let _ = writeln!(t, "Time: {} s {} us", self.time.0, self.time.1);
        let _ = writeln!(t, "PCI ID: 0x{:04x}", self.pci_id);
        let _ = writeln!(t, "PCI Revision: 0x{:02x}", self.revision);
        let _ = writeln!(t, "PCI Subsystem: 8086:2010");
        let _ = writeln!(t, "Platform: IVYBRIDGE");
        let _ = writeln!(t, "gtsim hang report: {}", one_line(&self.reason));
        let _ = writeln!(t, "IOMMU enabled?: 0");
        let _ = writeln!(t, "EIR: 0x00000000");
        let _ = writeln!(t, "PGTBL_ER: 0x00000000");
        let _ = writeln!(t, "ERROR: 0x00000000");
        // The ring: MI_BATCH_BUFFER_START (non-secure) of the batch, then MI_NOOPs; the
        // request spans [0, 8).
        let mut ring = vec![0u8; 4096];
        ring[0..4].copy_from_slice(&0x1880_0100u32.to_le_bytes());
        ring[4..8].copy_from_slice(&(self.batch_addr as u32).to_le_bytes());
        let (batch_addr, batch) = self.batch;
        let _ = writeln!(t, "{e} command stream:");
        let _ = writeln!(t, "  START: 0x{:08x}", RING_ADDR as u32);
        let _ = writeln!(t, "  HEAD:  0x00000008 [0x00000000]");
        let _ = writeln!(t, "  TAIL:  0x00000008 [0x00000008, 0x00000008]");
        let _ = writeln!(t, "  CTL:   0x00000001");
        let _ = writeln!(t, "  ACTHD: {}", hi_lo(self.acthd));
        let _ = writeln!(t, "  INSTDONE: 0xffffffff");
        let _ = writeln!(
            t,
            "  batch: [0x{:08x}_{:08x}, 0x{:08x}_{:08x}]",
            batch_addr >> 32,
            batch_addr as u32,
            (batch_addr + batch.len() as u64) >> 32,
            (batch_addr + batch.len() as u64) as u32
        );
        let _ = writeln!(
            t,
            "  BBADDR: 0x{:08x}_{:08x}",
            self.acthd >> 32,
            self.acthd as u32
        );
        let _ = writeln!(t, "{e} --- batch = {}", hi_lo(batch_addr));
        let _ = writeln!(t, "{}", ascii85(batch));
        // The caller keeps the objects within MAX_BYTES; empty ones would make a data line
        // the readers refuse.
        for (addr, bytes) in &self.objects {
            if bytes.is_empty() {
                continue;
            }
            let _ = writeln!(t, "{e} --- user = {}", hi_lo(*addr));
            let _ = writeln!(t, "{}", ascii85(bytes));
        }
        let _ = writeln!(t, "{e} --- ring = {}", hi_lo(RING_ADDR));
        let _ = writeln!(t, "{}", ascii85(&ring));
        t
    }
}

/// The most error state files one process writes (Linux keeps only the first error
/// state until it is read; a client that hangs in a loop must not fill the disk).
pub const MAX_FILES: u32 = 8;

/// Writes `text` as the next error state file of this process in `dir` (a new file:
/// never through a name someone else created); returns its path, or `None` once
/// [`MAX_FILES`] were written.
pub fn write(dir: &std::path::Path, text: &str) -> Option<std::io::Result<std::path::PathBuf>> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU32, Ordering};
    static SEQ: AtomicU32 = AtomicU32::new(0);
    loop {
        let n = SEQ.fetch_add(1, Ordering::Relaxed);
        if n >= MAX_FILES {
            return None;
        }
        let path = dir.join(format!("gtsim-i915-error-{}-{n}.txt", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => return Some(f.write_all(text.as_bytes()).map(|()| path)),
            // A name already taken (left by an earlier process of the same id, or
            // planted): the next one.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Some(Err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's encoding worked by hand: 0x7b000005 = 0x7b000005 in base 85 is
    /// 39, 45, 19, 3, 43 (+33: 'H', 'N', '4', '$', 'L'); zero is 'z'; 0xffffffff is
    /// "s8W-!" (82, 23, 54, 12, 0).
    #[test]
    fn ascii85_is_the_kernels() {
        let words = [0x7b00_0005u32, 0, 0x0500_0000, 1, 0xffff_ffff, 0x1880_0100];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(ascii85(&bytes), "~HN4$Lz\"TSN&!!!!\"s8W-!(k;Ve");
        // A trailing partial dword is padded with zeros.
        assert_eq!(ascii85(&[1]), "~!!!!\"");
    }

    #[test]
    fn lines_that_would_mislead_the_readers_are_defused() {
        let s = ErrorState {
            engine: "rcs0",
            pci_id: 0x0162,
            revision: 9,
            process: ("glx---gears\nPCI ID: 0x1234".into(), 7),
            reason: "a --- b".into(),
            acthd: 0x1_0008,
            batch_addr: 0x1_0000,
            batch: (0x1_0000, &[0; 8]),
            objects: vec![],
            time: (0, 0),
        };
        let t = s.text();
        assert_eq!(t.matches("PCI ID:").count(), 1);
        assert_eq!(
            t.matches("---").count(),
            2,
            "only the batch and ring headers"
        );
        assert!(t.contains("  ACTHD: 0x00000000 00010008\n"));
        assert!(t.contains("rcs0 --- batch = 0x00000000 00010000\n~zz\n"));
    }
}
