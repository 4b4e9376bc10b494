//! A kernel's disassembly, from its first instruction to the end of thread that ends it.

use crate::model::Shader;
use gtsim_isa::Encoding;
use gtsim_isa::disasm::{labels_for, listing_for};
use gtsim_isa::ir::Sfid;
use gtsim_mem::Memory;
use std::collections::BTreeSet;

/// The most bytes read of one kernel.
const MAX_BYTES: usize = 256 * 1024;

/// The kernel at `addr` in `enc`, labelled `stage`.
pub fn shader(mem: &dyn Memory, enc: Encoding, addr: u64, stage: String) -> Shader {
    let mut bytes = vec![];
    let mut error = None;
    // Up to the end of the mapped run of pages, as the model's kernel cache reads.
    let page = 4096u64;
    let mut at = addr;
    while bytes.len() < MAX_BYTES {
        let len = (page - at % page) as usize;
        let mut chunk = vec![0u8; len];
        if mem.read(at, &mut chunk).is_err() {
            break;
        }
        bytes.extend_from_slice(&chunk);
        at += len as u64;
    }
    let end = kernel_end(enc, &bytes);
    if end.is_none() {
        error = Some("no end of thread found".to_string());
    }
    let (bindings, samplers, indirect) = bindings(enc, &bytes[..end.unwrap_or(0)]);
    let code = &bytes[..end.unwrap_or(bytes.len().min(4096))];
    let listing = listing_for(enc, code, false);
    if let Some((off, e)) = &listing.error {
        error = Some(format!("instruction at +{off:#x}: {e}"));
    }
    let instructions = listing
        .lines
        .iter()
        .filter(|l| !l.is_empty() && !l.ends_with(':'))
        .count();
    Shader {
        stage,
        addr,
        instructions,
        listing: listing.lines,
        error,
        bindings: bindings.into_iter().collect(),
        samplers: samplers.into_iter().collect(),
        indirect,
    }
}

/// The binding table entries the kernel's messages name in their immediate descriptors
/// (bits 7:0 of a sampler or data port descriptor, seed 000 §2.11.1, §3.9.2: 254 and 255
/// are shared local memory and the stateless model, not entries), the sampler states
/// its sampler messages name (bits 11:8, seed 000 §2.11.1), and whether any send takes
/// its descriptor from a register (its entries are then unknown here).
fn bindings(enc: Encoding, code: &[u8]) -> (BTreeSet<u8>, BTreeSet<u8>, bool) {
    let mut used = BTreeSet::new();
    let mut samplers = BTreeSet::new();
    let mut indirect = false;
    let mut off = 0;
    while off < code.len() {
        let Ok((i, len)) = enc.decode(&code[off..]) else {
            break;
        };
        off += len;
        let Some(sfid) = i.sfid else {
            continue;
        };
        let surfaces = matches!(
            sfid,
            Sfid::Sampler
                | Sfid::DataPortSamplerCache
                | Sfid::DataPortRenderCache
                | Sfid::DataPortConstantCache
                | Sfid::DataPortDataCache
                | Sfid::DataPortDataCache1
        );
        if !surfaces {
            continue;
        }
        match i.desc {
            Some(d) => {
                if (d & 0xff) < 254 {
                    used.insert((d & 0xff) as u8);
                }
                if sfid == Sfid::Sampler {
                    samplers.insert((d >> 8 & 0xf) as u8);
                }
            }
            None => indirect = true,
        }
    }
    (used, samplers, indirect)
}

/// The byte length of the kernel: through the first instruction with End Of Thread
/// that no earlier branch jumps past.
fn kernel_end(enc: Encoding, bytes: &[u8]) -> Option<usize> {
    let mut ins = vec![];
    let mut off = 0;
    while off < bytes.len() {
        let Ok((i, len)) = enc.decode(&bytes[off..]) else {
            return None;
        };
        let eot = i.eot;
        ins.push((off, i));
        off += len;
        if eot {
            let labels = labels_for(enc, &ins);
            if labels.keys().all(|&target| target <= off) {
                return Some(off);
            }
        }
    }
    None
}
