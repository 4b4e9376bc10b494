//! Which GPU the emulated kernel presents: Ivy Bridge GT2 for crocus (the default), or
//! Ice Lake GT2 for iris (`GTSIM_GEN=11`, set by `gtsim run --gen 11`).
//!
//! What differs between them at the kernel interface: the PCI identity, the GETPARAM
//! answers, the topology query (Gen8+ uapi), the address space (Ivy Bridge: relocations
//! into a 2 GiB GTT; Ice Lake: a 48-bit per-process GTT that the client fills itself with
//! EXEC_OBJECT_PINNED, as iris always does) and the device model behind execbuffer.
//! The values are what Linux 6.1 (Debian 12's kernel) reports for each part:
//! `drivers/gpu/drm/i915/i915_getparam.c`, `i915_query.c`, `intel_sseu.c`.

use crate::errno::Errno;
use crate::uapi::*;
use gtsim_gpu::device::Platform as DevicePlatform;

/// The emulated GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Platform {
    /// Ivy Bridge GT2 desktop, HD Graphics 4000, PCI 8086:0162 (crocus).
    #[default]
    IvyBridge,
    /// Ice Lake GT2, Iris Plus Graphics, PCI 8086:8A52 (iris; Mesa's iris_pci_ids.h
    /// lists 0x8A52 as "ICL GT2").
    IceLake,
}

impl Platform {
    /// The platform `GTSIM_GEN` names: `11` (or `icl`) is Ice Lake, anything else or
    /// nothing Ivy Bridge.
    pub fn from_env() -> Platform {
        match std::env::var("GTSIM_GEN").as_deref().map(str::trim) {
            Ok("11" | "icl" | "gen11") => Platform::IceLake,
            _ => Platform::IvyBridge,
        }
    }

    /// The device model behind it.
    pub fn device(self) -> DevicePlatform {
        match self {
            Platform::IvyBridge => DevicePlatform::IvyBridge,
            Platform::IceLake => DevicePlatform::IceLake,
        }
    }

    /// PCI device id (the part's `gtsim_spec::DeviceInfo`).
    pub fn pci_device(self) -> u32 {
        self.device().info().pci_id
    }

    /// PCI revision (Ice Lake production steppings report 7 and up).
    pub fn pci_revision(self) -> u32 {
        match self {
            Platform::IvyBridge => 0x09,
            Platform::IceLake => 0x07,
        }
    }

    /// A short name for paths and logs.
    pub fn short(self) -> &'static str {
        match self {
            Platform::IvyBridge => "ivb",
            Platform::IceLake => "icl",
        }
    }

    /// The GPU virtual address space a context has (I915_CONTEXT_PARAM_GTT_SIZE):
    /// Ivy Bridge's 2 GiB aliasing PPGTT, Ice Lake's full PPGTT of its address width.
    pub fn gtt_size(self) -> u64 {
        match self {
            Platform::IvyBridge => crate::bo::GTT_END,
            Platform::IceLake => 1 << self.device().info().address_bits,
        }
    }

    /// Whether execbuffer takes EXEC_OBJECT_PINNED addresses (softpin, Gen8+ PPGTT).
    pub fn softpin(self) -> bool {
        self == Platform::IceLake
    }

    /// The command streamer's timestamp frequency: Ivy Bridge 12.5 MHz (80 ns), Ice Lake's
    /// 19.2 MHz crystal (i915 intel_gt_clock_frequency on Gen11).
    pub fn timestamp_frequency(self) -> i32 {
        match self {
            Platform::IvyBridge => 12_500_000,
            Platform::IceLake => 19_200_000,
        }
    }

    /// GETPARAM as Linux 6.1 answers on this part.
    pub fn getparam(self, param: i32) -> Result<i32, Errno> {
        let ivb = crate::kernel::Kernel::getparam(param);
        if self == Platform::IvyBridge {
            return ivb;
        }
        Ok(match param {
            I915_PARAM_CHIPSET_ID => self.pci_device() as i32,
            I915_PARAM_REVISION => self.pci_revision() as i32,
            I915_PARAM_CS_TIMESTAMP_FREQUENCY => self.timestamp_frequency(),
            // Full PPGTT with softpin; no command parser on the Gen9+ render ring.
            I915_PARAM_HAS_EXEC_SOFTPIN => 1,
            I915_PARAM_HAS_ALIASING_PPGTT => 2,
            I915_PARAM_CMD_PARSER_VERSION => 0,
            // Every engine class's contexts are isolated (bitmask of uabi classes:
            // render, copy, video, video enhance); iris requires it.
            I915_PARAM_HAS_CONTEXT_ISOLATION => 0xf,
            I915_PARAM_HAS_VEBOX | I915_PARAM_HAS_BSD2 => 1,
            // The 6.1 scheduler: enabled, priority, preemption, semaphores.
            I915_PARAM_HAS_SCHEDULER => 0xf,
            // ICL GT2: one slice of eight subslices of eight EUs (the topology query
            // says the same).
            I915_PARAM_SLICE_MASK => 0x1,
            I915_PARAM_SUBSLICE_MASK => 0xff,
            I915_PARAM_SUBSLICE_TOTAL => 8,
            I915_PARAM_EU_TOTAL => 64,
            // Relocation-era parameters that no longer apply on Gen8+ (GEN7_SOL_RESET is
            // a Gen7 kernel feature).
            I915_PARAM_HAS_GEN7_SOL_RESET => 0,
            _ => return ivb,
        })
    }

    /// DRM_I915_QUERY_TOPOLOGY_INFO's answer (i915_query.c query_topology_info, from
    /// intel_sseu.c): a 16-byte header (flags, max slices, max subslices, max EUs per
    /// subslice, subslice offset and stride, EU offset and stride, all u16), then the
    /// slice mask, the subslice masks and the EU masks. `None` on parts without the query.
    pub fn topology(self) -> Option<Vec<u8>> {
        if self != Platform::IceLake {
            return None;
        }
        let (slices, subslices, eus) = (1u16, 8u16, 8u16);
        let subslice_offset = 1u16; // after the one slice-mask byte
        let subslice_stride = subslices.div_ceil(8);
        let eu_offset = subslice_offset + slices * subslice_stride;
        let eu_stride = eus.div_ceil(8);
        let mut out = vec![];
        for v in [
            0,
            slices,
            subslices,
            eus,
            subslice_offset,
            subslice_stride,
            eu_offset,
            eu_stride,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.push(0x01); // slice 0
        out.push(0xff); // subslices 0-7
        out.extend(std::iter::repeat_n(0xffu8, (slices * subslices) as usize)); // 8 EUs each
        Some(out)
    }

    /// DRM_I915_QUERY_ENGINE_INFO's answer (i915_query.c query_engine_info): a 16-byte
    /// header (u32 count, three reserved u32), then 56 bytes per engine: class u16,
    /// instance u16, reserved u32, flags u64 (bit 0: logical instance valid),
    /// capabilities u64, logical instance u16, reserved. The engines modelled are
    /// listed: the render engine rcs0 and the video enhancement engine vecs0, with its
    /// SFC (intel_engine_cs.c __setup_engine_capabilities: a Gen9+ VECS whose SFC is
    /// present); a real ICL also has bcs0 and vcs0/1, which are not modelled.
    pub fn engines(self) -> Option<Vec<u8>> {
        if self != Platform::IceLake {
            return None;
        }
        let engines: [(u16, u64); 2] = [
            (crate::uapi::I915_ENGINE_CLASS_RENDER, 0),
            (
                crate::uapi::I915_ENGINE_CLASS_VIDEO_ENHANCE,
                crate::uapi::I915_VIDEO_AND_ENHANCE_CLASS_CAPABILITY_SFC,
            ),
        ];
        let mut out = vec![0u8; 16 + 56 * engines.len()];
        out[0..4].copy_from_slice(&(engines.len() as u32).to_le_bytes());
        for (i, (class, caps)) in engines.iter().enumerate() {
            let e = &mut out[16 + 56 * i..16 + 56 * (i + 1)];
            // Instance 0 of its class, logical instance 0 (valid).
            e[0..2].copy_from_slice(&class.to_le_bytes());
            e[8..16].copy_from_slice(&1u64.to_le_bytes());
            e[16..24].copy_from_slice(&caps.to_le_bytes());
        }
        Some(out)
    }

    /// DRM_I915_QUERY_MEMORY_REGIONS's answer: one system-memory region (an integrated
    /// part has no device memory), sized `ram` bytes. 16-byte header (u32 count and three
    /// reserved u32), then 88 bytes per region: class u16, instance u16, reserved u32,
    /// probed size u64, unallocated size u64, then CPU-visible sizes and reserved words.
    pub fn memory_regions(self, ram: u64) -> Option<Vec<u8>> {
        if self != Platform::IceLake {
            return None;
        }
        let mut out = vec![0u8; 16 + 88];
        out[0..4].copy_from_slice(&1u32.to_le_bytes());
        // Region 0: I915_MEMORY_CLASS_SYSTEM (0), instance 0.
        out[16 + 8..16 + 16].copy_from_slice(&ram.to_le_bytes());
        out[16 + 16..16 + 24].copy_from_slice(&ram.to_le_bytes());
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ICL GT2 answer worked by hand from i915_query.c: header (0, 1, 8, 8, 1, 1, 2,
    /// 1), slice mask 0x01, subslice mask 0xff, eight EU masks 0xff: 26 bytes.
    #[test]
    fn ice_lake_topology_is_one_slice_of_eight_by_eight() {
        let t = Platform::IceLake.topology().unwrap();
        let header: Vec<u16> = t[..16]
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(header, [0, 1, 8, 8, 1, 1, 2, 1]);
        assert_eq!(
            &t[16..],
            &[0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
        );
        assert!(Platform::IvyBridge.topology().is_none());
    }

    #[test]
    fn ice_lake_answers_what_iris_requires() {
        let p = Platform::IceLake;
        assert_ne!(p.getparam(I915_PARAM_HAS_CONTEXT_ISOLATION).unwrap(), 0);
        assert_eq!(p.getparam(I915_PARAM_CHIPSET_ID).unwrap(), 0x8a52);
        assert_eq!(
            p.getparam(I915_PARAM_CS_TIMESTAMP_FREQUENCY).unwrap(),
            19_200_000
        );
        // iris_bufmgr_create wants more than 12 GiB of address space.
        assert!(p.gtt_size() > 12 << 30 && p.gtt_size() <= 1 << 48);
        // Ivy Bridge keeps its own answers.
        assert_eq!(
            Platform::IvyBridge.getparam(I915_PARAM_CHIPSET_ID).unwrap(),
            0x0162
        );
        assert_eq!(
            Platform::IvyBridge
                .getparam(I915_PARAM_HAS_CONTEXT_ISOLATION)
                .unwrap(),
            0
        );
    }
}
