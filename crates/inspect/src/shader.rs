//! A kernel's disassembly, from its first instruction to the end of thread that ends it,
//! with the binding table entries and samplers its messages name. Kernels are read a page
//! at a time up to their end (at most [`MAX_BYTES`]) and disassembled once per address
//! and contents ([`Shaders`]).

use crate::model::Shader;
use gtsim_isa::Encoding;
use gtsim_isa::disasm::listing_for;
use gtsim_isa::ir::{Instruction, Sfid};
use gtsim_mem::Memory;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};

/// The most bytes read of one kernel.
const MAX_BYTES: usize = 256 * 1024;

/// The render cache's Render Target Write message type (seed 000 §3.9.2.1.1, descriptor
/// bits 17:14; Mesa GEN7_DATAPORT_RC_RENDER_TARGET_WRITE).
const RT_WRITE: u32 = 12;

/// Kernels already disassembled, by address and a hash of their bytes.
#[derive(Default)]
pub struct Shaders {
    seen: HashMap<(u64, u64), Shader>,
}

/// What a scan of a kernel found.
#[derive(Default)]
struct Scan {
    /// Bytes up to and including the end of thread, when found.
    end: Option<usize>,
    /// Why the scan stopped without one.
    error: Option<String>,
    bindings: BTreeSet<u8>,
    render_targets: BTreeSet<u8>,
    samplers: BTreeSet<u8>,
    indirect: bool,
}

impl Shaders {
    /// The kernel at `addr` in `enc`, labelled `stage`.
    pub fn shader(&mut self, mem: &dyn Memory, enc: Encoding, addr: u64, stage: String) -> Shader {
        let (bytes, scan) = scan(mem, enc, addr);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        let key = (addr, h.finish());
        if let Some(s) = self.seen.get(&key) {
            return Shader { stage, ..s.clone() };
        }
        let listing = listing_for(enc, &bytes, false);
        let mut error = scan.error;
        if let Some((off, e)) = &listing.error {
            error = Some(format!("instruction at +{off:#x}: {e}"));
        }
        let instructions = listing
            .lines
            .iter()
            .filter(|l| !l.is_empty() && !l.ends_with(':'))
            .count();
        let s = Shader {
            stage,
            addr,
            instructions,
            listing: listing.lines,
            error,
            bindings: scan.bindings.into_iter().collect(),
            render_targets: scan.render_targets.into_iter().collect(),
            samplers: scan.samplers.into_iter().collect(),
            indirect: scan.indirect,
        };
        self.seen.insert(key, s.clone());
        s
    }
}

/// Reads and decodes the kernel at `addr` up to its end: through the first instruction
/// with End Of Thread that no earlier branch jumps past. Returns its bytes (the first 4
/// KiB when no end was found) and what its messages name.
fn scan(mem: &dyn Memory, enc: Encoding, addr: u64) -> (Vec<u8>, Scan) {
    let mut bytes = vec![];
    let mut s = Scan::default();
    let mut off = 0usize;
    let mut furthest = 0i64;
    loop {
        // An instruction is at most 16 bytes: read another page when fewer remain.
        if bytes.len() - off < 16 && bytes.len() < MAX_BYTES {
            let at = addr.wrapping_add(bytes.len() as u64);
            let len = (4096 - at % 4096) as usize;
            let mut chunk = vec![0u8; len];
            if mem.read(at, &mut chunk).is_ok() {
                bytes.extend_from_slice(&chunk);
                continue;
            }
        }
        if off >= bytes.len() {
            s.error = Some("the kernel runs past readable memory without an end of thread".into());
            break;
        }
        let (i, len) = match enc.decode(&bytes[off..]) {
            Ok(d) => d,
            Err(e) => {
                s.error = Some(format!("instruction at +{off:#x}: {e}"));
                break;
            }
        };
        for target in [i.jip, i.uip].into_iter().flatten() {
            furthest = furthest.max(off as i64 + i64::from(target));
        }
        messages(&i, &mut s);
        off += len;
        if i.eot && furthest <= off as i64 {
            s.end = Some(off);
            break;
        }
        if off >= MAX_BYTES {
            s.error = Some(format!("no end of thread in the first {MAX_BYTES} bytes"));
            break;
        }
    }
    let end = s.end.unwrap_or(off.min(4096)).min(bytes.len());
    bytes.truncate(end);
    (bytes, s)
}

/// The binding table entries a message names in its immediate descriptor (bits 7:0 of a
/// sampler or data port descriptor, seed 000 §2.11.1, §3.9.2: 254 and 255 are shared
/// local memory and the stateless model, not entries), the sampler state a sampler
/// message names (bits 11:8), whether it is a render target write, and whether it takes
/// its descriptor from a register (its entries are then unknown here).
fn messages(i: &Instruction, s: &mut Scan) {
    let Some(sfid) = i.sfid else {
        return;
    };
    if !sfid.names_surfaces() {
        return;
    }
    let Some(d) = i.desc else {
        s.indirect = true;
        return;
    };
    let bti = (d & 0xff) as u8;
    if bti < 254 {
        s.bindings.insert(bti);
        if sfid == Sfid::DataPortRenderCache && d >> 14 & 0xf == RT_WRITE {
            s.render_targets.insert(bti);
        }
    }
    if sfid == Sfid::Sampler {
        s.samplers.insert((d >> 8 & 0xf) as u8);
    }
}
