//! Depth and stencil tests and buffer updates for one pixel (seed 004 §12.1.4, §12.1.5,
//! §12.1.11.1–12.1.11.2).

use crate::ReservedValue;
use crate::compare::{compare, stencil_op, stencil_test, stencil_write};
use gtsim_spec::shared::{ThreeDCompareFunction, ThreeDStencilOperation};

/// Depth buffer formats of 3DSTATE_DEPTH_BUFFER "Surface Format" (D32_FLOAT = 1,
/// D24_UNORM_X8_UINT = 3, D16_UNORM = 5; Gen7 uses a separate stencil buffer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepthFormat {
    /// 32-bit float.
    D32Float,
    /// 24-bit UNORM in the low bits of a dword.
    D24Unorm,
    /// 16-bit UNORM.
    D16Unorm,
}

impl DepthFormat {
    /// From the 3-bit field.
    pub fn from_field(v: u32) -> Result<DepthFormat, ReservedValue> {
        match v {
            1 => Ok(DepthFormat::D32Float),
            3 => Ok(DepthFormat::D24Unorm),
            5 => Ok(DepthFormat::D16Unorm),
            _ => Err(ReservedValue {
                field: "3DSTATE_DEPTH_BUFFER Surface Format",
                value: v,
                seed: "seed 004 §11 3DSTATE_DEPTH_BUFFER; only D32_FLOAT, D24_UNORM_X8_UINT and D16_UNORM with separate stencil are modelled",
            }),
        }
    }

    /// The stored bits of depth `z` (already clamped to [0, 1] for UNORM formats):
    /// UNORM rounds to nearest, `round(z·(2^n − 1))`.
    pub fn encode(self, z: f32) -> u32 {
        match self {
            DepthFormat::D32Float => z.to_bits(),
            DepthFormat::D24Unorm => unorm(z, 24),
            DepthFormat::D16Unorm => unorm(z, 16),
        }
    }
}

fn unorm(z: f32, bits: u32) -> u32 {
    let max = ((1u64 << bits) - 1) as f64;
    let z = if z.is_nan() {
        0.0
    } else {
        (z as f64).clamp(0.0, 1.0)
    };
    gtsim_mem::format::texel::round_even(z * max) as u32
}

/// One face's stencil state (DEPTH_STENCIL_STATE, front or back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StencilFace {
    /// Stencil Test Function.
    pub func: ThreeDCompareFunction,
    /// Stencil Fail Op.
    pub fail: ThreeDStencilOperation,
    /// Stencil Pass Depth Fail Op.
    pub depth_fail: ThreeDStencilOperation,
    /// Stencil Pass Depth Pass Op.
    pub pass: ThreeDStencilOperation,
    /// Stencil Test Reference.
    pub reference: u8,
    /// Stencil Test Mask.
    pub test_mask: u8,
    /// Stencil Write Mask.
    pub write_mask: u8,
}

/// The depth/stencil state a pixel sees (the face already chosen).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthStencilState {
    /// Depth Test Enable with its function.
    pub depth_test: Option<ThreeDCompareFunction>,
    /// Depth Buffer Write Enable.
    pub depth_write: bool,
    /// CC_VIEWPORT Minimum and Maximum Depth.
    pub depth_range: [f32; 2],
    /// Stencil Test Enable with the face's state.
    pub stencil: Option<StencilFace>,
    /// Stencil Buffer Write Enable.
    pub stencil_write: bool,
}

/// What happens to one pixel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthStencilResult {
    /// The pixel survives (goes on to the colour buffer).
    pub pass: bool,
    /// New depth bits to store, if any.
    pub depth: Option<u32>,
    /// New stencil value to store, if any.
    pub stencil: Option<u8>,
}

/// Tests a pixel of source depth `z` against the stored depth bits and stencil value.
pub fn depth_stencil(
    s: &DepthStencilState,
    format: DepthFormat,
    z: f32,
    stored_depth: u32,
    stored_stencil: u8,
) -> Result<DepthStencilResult, ReservedValue> {
    // §12.1.5: clamp to the CC_VIEWPORT range, then compare in the buffer's format.
    let z = z.clamp(s.depth_range[0], s.depth_range[1]);
    let src = format.encode(z);
    let depth_pass = match s.depth_test {
        None => true,
        Some(f) => match format {
            DepthFormat::D32Float => compare(f, z, f32::from_bits(stored_depth))?,
            _ => compare(f, src, stored_depth)?,
        },
    };
    let (stencil_pass, new_stencil) = match s.stencil {
        None => (true, None),
        Some(face) => {
            let pass = stencil_test(face.func, face.reference, stored_stencil, face.test_mask)?;
            let op = match (pass, depth_pass) {
                (false, _) => face.fail,
                (true, false) => face.depth_fail,
                (true, true) => face.pass,
            };
            let v = stencil_op(op, stored_stencil, face.reference)?;
            let write = s
                .stencil_write
                .then(|| stencil_write(stored_stencil, v, face.write_mask));
            (pass, write)
        }
    };
    let pass = depth_pass && stencil_pass;
    Ok(DepthStencilResult {
        pass,
        depth: (pass && s.depth_write).then_some(src),
        stencil: new_stencil,
    })
}
