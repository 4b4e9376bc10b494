//! SF unit pieces: viewport transform (seed 004 §10.3.2) and face culling
//! (§10.3.x "Cull", L6904-6914; 3DSTATE_SF Cull Mode and Front Winding, L5863-5898).

use crate::raster::Winding;

/// SF_VIEWPORT matrix elements (m00, m11, m22 scale; m30, m31, m32 translate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    /// x scale.
    pub m00: f32,
    /// y scale.
    pub m11: f32,
    /// z scale.
    pub m22: f32,
    /// x translate.
    pub m30: f32,
    /// y translate.
    pub m31: f32,
    /// z translate.
    pub m32: f32,
}

impl Viewport {
    /// x' = m00·x + m30, y' = m11·y + m31, z' = m22·z + m32 (seed 004 §10.3.2,
    /// L6706-6712), each a multiply then an add rounded separately (the seed gives no
    /// fused form).
    pub fn transform(&self, p: [f32; 3]) -> [f32; 3] {
        [
            self.m00 * p[0] + self.m30,
            self.m11 * p[1] + self.m31,
            self.m22 * p[2] + self.m32,
        ]
    }
}

/// 3DSTATE_SF "Cull Mode".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CullMode {
    /// CULLMODE_BOTH (0): every triangle is discarded.
    Both,
    /// CULLMODE_NONE (1).
    None,
    /// CULLMODE_FRONT (2): front-facing triangles are discarded.
    Front,
    /// CULLMODE_BACK (3): back-facing triangles are discarded.
    Back,
}

impl CullMode {
    /// From the 2-bit field (all four values are defined).
    pub fn from_field(v: u32) -> CullMode {
        match v & 3 {
            0 => CullMode::Both,
            1 => CullMode::None,
            2 => CullMode::Front,
            _ => CullMode::Back,
        }
    }
}

/// Whether a triangle is discarded by face culling. `front` is the "Front Winding"
/// (FRONTWINDING_CW = 0 means clockwise triangles face front); `invert` is the
/// primitive-decomposition flag for odd triangles of strips (L6904). Orientation is
/// taken in the screen's y-down space, as [`crate::raster::triangle`] reports it.
pub fn culled(mode: CullMode, front: Winding, winding: Winding, invert: bool) -> bool {
    let facing_front = (winding == front) != invert;
    match mode {
        CullMode::Both => true,
        CullMode::None => false,
        CullMode::Front => facing_front,
        CullMode::Back => !facing_front,
    }
}

/// Attribute setup for one channel of a triangle's attribute: the deltas the pixel
/// shader combines with the barycentrics (`a0 = A(v0)`, `a1 = A(v1) − A(v0)`,
/// `a2 = A(v2) − A(v0)`, seed 004 §11.6), or, for a constant-interpolated attribute
/// (3DSTATE_SBE "Constant Interpolation Enable"), the provoking vertex's value with zero
/// deltas (3DSTATE_SF "Triangle Strip/List Provoking Vertex Select" picks vertex 0, 1
/// or 2).
pub fn attribute_setup(a: [f32; 3], constant_from: Option<usize>) -> [f32; 3] {
    match constant_from {
        Some(v) => [a[v.min(2)], 0.0, 0.0],
        None => [a[0], a[1] - a[0], a[2] - a[0]],
    }
}

/// What the Global Depth Offset needs to know of the depth buffer (3DSTATE_SF Depth
/// Buffer Surface Format).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepthOffsetFormat {
    /// A UNORM depth buffer (or none) with this many bits.
    Unorm(u32),
    /// A float32 depth buffer.
    Float,
}

/// 3DSTATE_SF's Global Depth Offset state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthOffset {
    /// Global Depth Offset Constant.
    pub constant: f32,
    /// Global Depth Offset Scale.
    pub scale: f32,
    /// Global Depth Offset Clamp (0: none).
    pub clamp: f32,
    /// Legacy Global Depth Bias Enable: the constant is used unscaled.
    pub legacy: bool,
    /// The depth buffer format.
    pub format: DepthOffsetFormat,
}

/// The bias Global Depth Offset adds to every screen z of a triangle with screen
/// vertices `v` ([x, y, z]), seed 004 §11.5.1 (L8782-8812), in float32:
/// MaxDepthSlope = max(|dz/dx|, |dz/dy|); for a UNORM depth buffer (or none) Bias =
/// Constant·r + Scale·MaxDepthSlope with r the smallest representable value > 0 (1.0 with
/// Legacy Global Depth Bias Enable); for a float one Bias = Constant·2^(exponent(max z) -
/// 23) + Scale·MaxDepthSlope (the constant unscaled with Legacy Global Depth Bias Enable);
/// then clamped to the Clamp when it is not 0 (min for a positive one, max for a negative
/// one).
pub fn depth_offset_bias(o: &DepthOffset, v: [[f32; 3]; 3]) -> f32 {
    let [a, b, c] = v;
    let area = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
    let max_slope = if area == 0.0 || !area.is_finite() {
        0.0
    } else {
        let dzdx = ((b[2] - a[2]) * (c[1] - a[1]) - (c[2] - a[2]) * (b[1] - a[1])) / area;
        let dzdy = ((b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2])) / area;
        dzdx.abs().max(dzdy.abs())
    };
    let unit = match (o.format, o.legacy) {
        (_, true) => 1.0,
        (DepthOffsetFormat::Unorm(bits), false) => 1.0 / ((1u64 << bits) - 1) as f32,
        (DepthOffsetFormat::Float, false) => {
            let max_z = a[2].max(b[2]).max(c[2]);
            let exponent = ((max_z.to_bits() >> 23) & 0xff) as i32 - 127;
            2f32.powi(exponent - 23)
        }
    };
    let bias = o.constant * unit + o.scale * max_slope;
    if o.clamp > 0.0 {
        bias.min(o.clamp)
    } else if o.clamp < 0.0 {
        bias.max(o.clamp)
    } else {
        bias
    }
}
