//! Where a thread payload's header fields go: a per-generation, declarative layout that
//! the generation's front supplies and the stages write through, so that no stage knows
//! a generation's payload bit positions.

/// One field of a payload register: register, dword, lowest bit and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PayloadField {
    /// Register (0 = R0).
    pub reg: usize,
    /// Dword within the register.
    pub dword: usize,
    /// Lowest bit.
    pub shift: u32,
    /// Width in bits.
    pub bits: u32,
}

impl PayloadField {
    /// The same field `regs` registers and `dwords` dwords further on (for fields that
    /// repeat per subspan or per block).
    pub const fn offset(self, regs: usize, dwords: usize) -> PayloadField {
        PayloadField {
            reg: self.reg + regs,
            dword: self.dword + dwords,
            ..self
        }
    }

    /// Writes `value` into the field of the thread's GRF bytes (other bits kept).
    pub fn put(self, grf: &mut [u8], value: u32) {
        let at = self.reg * 32 + self.dword * 4;
        let Some(b) = grf.get_mut(at..at + 4) else {
            return;
        };
        let mask = if self.bits >= 32 {
            u32::MAX
        } else {
            ((1u32 << self.bits) - 1) << self.shift
        };
        let old = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let new = (old & !mask) | ((value << self.shift) & mask);
        b.copy_from_slice(&new.to_le_bytes());
    }
}

/// The header fields every thread's payload carries: scratch space and the state
/// pointers (compute and media threads' payloads have these and their own fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointerFields {
    /// Per-thread scratch space (R0.3 3:0 of the geometry stages).
    pub scratch_space: PayloadField,
    /// The thread's Scratch Space Pointer (R0.5 31:10, every stage).
    pub scratch_pointer: PayloadField,
    /// The thread's FFTID (R0.5's low bits, every stage).
    pub fftid: PayloadField,
    /// The sampler state pointer (its 32-byte-aligned bits).
    pub sampler_state: PayloadField,
    /// The binding table pointer (its 32-byte-aligned bits).
    pub binding_table: PayloadField,
}

/// The header fields of the vertex and pixel shader payloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PayloadLayout {
    /// VS and GS: the URB return handles of the thread's two vertices or outputs.
    pub urb_handles: [PayloadField; 2],
    /// A SIMD8 VS or GS: channel 0's URB return handle; channel i's is `i` dwords on.
    pub simd8_urb_handles: PayloadField,
    /// A SIMD8 GS: channel 0's PrimitiveID (when included); channel i's `i` dwords on.
    /// The input vertices' URB handles (when included) follow in the next registers,
    /// one register per vertex.
    pub simd8_gs_primitive_ids: PayloadField,
    /// Scratch space and the state pointers.
    pub pointers: PointerFields,
    /// GS: the instance numbers of the thread's two instances (or objects).
    pub gs_instance_ids: [PayloadField; 2],
    /// GS: the primitive topology of the object, as the GS unit passes it.
    pub gs_topology: PayloadField,
    /// GS: the state's Hint bit.
    pub gs_hint: PayloadField,
    /// GS: the PrimitiveIDs of the thread's two objects (in the register after R0).
    pub gs_primitive_ids: [PayloadField; 2],
    /// HS: the patch record's URB handle.
    pub hs_patch_handle: PayloadField,
    /// HS: the patch's PrimitiveID.
    pub hs_primitive_id: PayloadField,
    /// HS: the thread's Instance Number.
    pub hs_instance: PayloadField,
    /// HS: the Barrier Index of the thread's gateway barrier.
    pub hs_barrier: PayloadField,
    /// HS: the first ICP handle (ICP k in the dword k on, eight to a register).
    pub hs_icp_handle: PayloadField,
    /// DS: domain point 0's U, V and W (point 1's are `ds_point_stride` dwords on).
    pub ds_domain_point: [PayloadField; 3],
    /// DS: dwords from domain point 0's coordinates to point 1's.
    pub ds_point_stride: usize,
    /// DS: the patch record's URB handle.
    pub ds_patch_handle: PayloadField,
    /// A SIMD8 DS: point 0's output URB handle; point i's is `i` dwords on.
    pub simd8_ds_urb_handles: PayloadField,
    /// DS: the patch's PrimitiveID.
    pub ds_primitive_id: PayloadField,
    /// PS: the primitive topology.
    pub topology: PayloadField,
    /// PS: the object faces back.
    pub back_facing: PayloadField,
    /// PS: the object's Render Target Array Index (its provoking vertex's VUE header
    /// DWord 1, unless 3DSTATE_CLIP forces 0).
    pub rt_array_index: PayloadField,
    /// PS: source depth goes to the render target write (the shader computes depth).
    pub source_depth_to_rt: PayloadField,
    /// PS: oMask goes to the render target write.
    pub omask_to_rt: PayloadField,
    /// PS: the Starting Sample Pair Index of a per-sample dispatch.
    pub starting_sample_pair: PayloadField,
    /// PS: a per-sample dispatch's sample numbers of the first 16 slots, four bits per
    /// group of four slots (a subspan), group 0 lowest; each further 16 slots are a
    /// register on. Gen8+ (Mesa brw_fs.cpp emit_sampleid_setup for Gen8+: "Sample ID
    /// comes in as 4-bit numbers in g1.0"); a layout without it has a zero-width field.
    pub sample_ids: PayloadField,
    /// PS: the actual coarse pixel size of a thread dispatched per coarse pixel, width
    /// in bits 7:0 and height in 15:8 (seed 003 3DSTATE_PS_EXTRA Pixel Shader Requires
    /// Requested Coarse Pixel Shading Size: "Actual coarse pixel shading rate is always
    /// delivered (constant across thread slot)"; Mesa brw_fs_visitor.cpp reads it as
    /// "r1.0 - 0:7 ActualCoarsePixelShadingSize.X, 15:8 ActualCoarsePixelShadingSize.Y");
    /// a layout without coarse pixel shading has a zero-width field.
    pub coarse_size: PayloadField,
    /// PS: subspan 0's upper-left x; subspan i is `i % 4` dwords and `i / 4` registers on.
    pub subspan_x: PayloadField,
    /// PS: subspan 0's upper-left y, likewise.
    pub subspan_y: PayloadField,
    /// PS: the pixel mask of the first 16 pixels; each further 16 are a register on.
    pub pixel_mask: PayloadField,
    /// PS: the dispatch mask of the first 16 pixels, likewise.
    pub dispatch_mask: PayloadField,
}
