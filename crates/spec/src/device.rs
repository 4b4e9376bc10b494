//! The device-info record: what one GPU part is, as data, in place of constants scattered
//! through the model. The command streamer, the fronts and the kernel emulation read a
//! part's facts from its [`DeviceInfo`]; adding a part is adding a record.
//!
//! Sources: the PCI ids from Mesa's `intel_pci_ids` tables (crocus: 0x0162 "IVB GT2";
//! iris: 0x8A52 "ICL GT2"); EU, thread, GRF and URB figures from Mesa's
//! `intel_device_info.c` (`intel_device_info_ivb_gt2`, `intel_device_info_icl_gt2`); the
//! address width from the IVB PRM Vol1 Part3 MI_BATCH_BUFFER_START (31:2) and the Gen11
//! PRM Vol 2a MI_BATCH_BUFFER_START (47:2); batch nesting from the same pages; message
//! lengths from seed 000 §1.5 (4-bit Message Length) and the Gen11 split send's
//! extended message length (`eu.spec`, ExMsgLength, 4 bits).

/// How a vertex-processing stage's thread holds its vertices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VertexDispatch {
    /// Two vertices per thread, four channels each (Gen7's VS, DS and GS).
    Simd4x2,
    /// Eight vertices per thread, one channel each (Gen8+).
    Simd8,
}

/// One GPU part.
#[derive(Debug)]
pub struct DeviceInfo {
    /// The part's marketing name, as the drivers report it.
    pub name: &'static str,
    /// Graphics generation (7, 11).
    pub generation: u32,
    /// PCI device id.
    pub pci_id: u32,
    /// The generation's command, structure and register tables.
    pub tables: &'static crate::Generation,
    /// Width of a graphics address: commands use bits `address_bits - 1 .. 0`.
    pub address_bits: u32,
    /// Whether MI_BATCH_BUFFER_START can start a second-level batch that returns
    /// (Gen8+); without, a batch start only chains.
    pub second_level_batches: bool,
    /// General registers per EU thread.
    pub grf_registers: u32,
    /// EUs in the part.
    pub eus: u32,
    /// Hardware threads per EU.
    pub threads_per_eu: u32,
    /// URB size in KiB, where the part has a fixed one (Gen7: `intel_device_info_ivb_gt2`
    /// .urb.size); Gen8+ carves the URB out of L3 as the driver programs it (`None`).
    pub urb_kib: Option<u32>,
    /// The most registers a send's first payload holds (Message Length).
    pub max_message_length: u32,
    /// The most registers a split send's second payload holds (0: no split sends).
    pub max_extended_message_length: u32,
    /// How the VS, HS, DS and GS threads hold vertices.
    pub vertex_dispatch: VertexDispatch,
    /// Whether the EU executes Align16 instructions.
    pub align16: bool,
    /// Whether the EU has 64-bit (DF, Q, UQ) types.
    pub has_64bit_types: bool,
}

impl DeviceInfo {
    /// The mask of a graphics address's meaningful bits.
    pub const fn address_mask(&self) -> u64 {
        if self.address_bits >= 64 {
            u64::MAX
        } else {
            (1 << self.address_bits) - 1
        }
    }

    /// The MMIO offset of the register `name` in this generation's tables.
    pub fn register(&self, name: &str) -> Option<u32> {
        match self.tables.def(name)?.kind {
            crate::table::DefKind::Register { offset } => Some(offset),
            _ => None,
        }
    }
}

/// Ivy Bridge GT2 (Gen7, 8086:0162): 16 EUs of 8 threads, 256 KiB of URB.
pub static IVY_BRIDGE_GT2: DeviceInfo = DeviceInfo {
    name: "Intel(R) HD Graphics 4000 (IVB GT2)",
    generation: 7,
    pci_id: 0x0162,
    tables: &crate::gen7::GENERATION,
    address_bits: 32,
    second_level_batches: false,
    grf_registers: 128,
    eus: 16,
    threads_per_eu: 8,
    urb_kib: Some(256),
    max_message_length: 15,
    max_extended_message_length: 0,
    vertex_dispatch: VertexDispatch::Simd4x2,
    align16: true,
    has_64bit_types: true,
};

/// Ice Lake GT2 (Gen11, 8086:8A52): one slice of eight subslices of eight EUs, 7
/// threads each (`GFX11_FEATURES`); 48-bit addresses; no Align16, no 64-bit types.
pub static ICE_LAKE_GT2: DeviceInfo = DeviceInfo {
    name: "Intel(R) Iris(R) Plus Graphics (ICL GT2)",
    generation: 11,
    pci_id: 0x8a52,
    tables: &crate::gen11::GENERATION,
    address_bits: 48,
    second_level_batches: true,
    grf_registers: 128,
    eus: 64,
    threads_per_eu: 7,
    urb_kib: None,
    max_message_length: 15,
    max_extended_message_length: 15,
    vertex_dispatch: VertexDispatch::Simd8,
    align16: false,
    has_64bit_types: false,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The registers the command streamer reads by name exist, at the offsets Linux's
    /// i915_reg.h gives, in both generations.
    #[test]
    fn both_parts_name_the_command_streamer_registers() {
        for info in [&IVY_BRIDGE_GT2, &ICE_LAKE_GT2] {
            assert_eq!(info.register("MI_PREDICATE_RESULT"), Some(0x2418));
            assert_eq!(info.register("PS_DEPTH_COUNT"), Some(0x2350));
            assert_eq!(
                info.register("3DSTATE_VS"),
                None,
                "a command, not a register"
            );
        }
        // RENDER_HWS_PGA_GEN7 (0x4080) on Gen7, RING_HWS_PGA(RENDER_RING_BASE) after.
        assert_eq!(IVY_BRIDGE_GT2.register("HWS_PGA"), Some(0x4080));
        assert_eq!(ICE_LAKE_GT2.register("HWS_PGA"), Some(0x2080));
        assert_eq!(IVY_BRIDGE_GT2.address_mask(), 0xffff_ffff);
        assert_eq!(ICE_LAKE_GT2.address_mask(), 0xffff_ffff_ffff);
    }
}
