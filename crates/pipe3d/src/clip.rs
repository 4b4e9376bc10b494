//! CLIP stage clip test and clip determination (seed 004 §9.2.1 view volume L5698-5731,
//! §9.2.3 guard band, §9.4.2 ClipDetermination pseudocode L6046-6129).

/// One vertex's outcode: a bit per boundary the vertex is outside of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutCode(pub u32);

impl OutCode {
    /// Viewport left (x < -w).
    pub const VP_L: u32 = 1 << 0;
    /// Viewport right.
    pub const VP_R: u32 = 1 << 1;
    /// Viewport bottom (y < -w).
    pub const VP_B: u32 = 1 << 2;
    /// Viewport top.
    pub const VP_T: u32 = 1 << 3;
    /// Near plane.
    pub const VP_N: u32 = 1 << 4;
    /// Far plane.
    pub const VP_Z: u32 = 1 << 5;
    /// Guard band left.
    pub const GB_L: u32 = 1 << 6;
    /// Guard band right.
    pub const GB_R: u32 = 1 << 7;
    /// Guard band bottom.
    pub const GB_B: u32 = 1 << 8;
    /// Guard band top.
    pub const GB_T: u32 = 1 << 9;
    /// Behind the w = 0 plane (negative 1/w).
    pub const NEGW: u32 = 1 << 10;
    /// A NaN or infinite coordinate.
    pub const BAD: u32 = 1 << 11;
    /// User clip distance `i` (bits 16..23).
    pub const fn ucf(i: u32) -> u32 {
        1 << (16 + i)
    }
    const VPXY: u32 = Self::VP_L | Self::VP_R | Self::VP_B | Self::VP_T;
    const GB: u32 = Self::GB_L | Self::GB_R | Self::GB_B | Self::GB_T;
    const VPZ: u32 = Self::VP_N | Self::VP_Z;
    const UC: u32 = 0xff << 16;
}

/// The clip-test controls of 3DSTATE_CLIP and the guard band of CLIP_VIEWPORT.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipTest {
    /// Viewport XY ClipTest Enable.
    pub viewport_xy: bool,
    /// Viewport Z ClipTest Enable.
    pub viewport_z: bool,
    /// Guardband ClipTest Enable.
    pub guardband: bool,
    /// Guard band in NDC: x min, x max, y min, y max.
    pub gb: [f32; 4],
    /// OpenGL near plane (z < -1) rather than Direct3D (z < 0) ("API Mode").
    pub opengl_z: bool,
    /// User Clip Distance Clip Test Enable Bitmask.
    pub ucd_mask: u8,
}

/// VertexClipTest on an NDC position with its 1/w (§9.2.1): the sign of 1/w picks the
/// comparison direction, negative 1/w sets NEGW, NaN/inf sets BAD. A disabled guard band
/// with the viewport test enabled acts as if it coincided with the viewport; with both
/// disabled nothing is outside in x and y (3DSTATE_CLIP "Guardband ClipTest Enable").
/// User clip distances below 0 or NaN set their UCF bit (VUE header D8 note).
pub fn vertex_clip_test(
    ndc: [f32; 3],
    rhw: f32,
    t: &ClipTest,
    clip_distances: &[f32; 8],
) -> OutCode {
    let mut c = 0;
    if ndc.iter().chain([rhw].iter()).any(|v| !v.is_finite()) {
        c |= OutCode::BAD;
    }
    let neg = rhw < 0.0;
    if neg {
        c |= OutCode::NEGW;
    }
    // "outside below": v < lo; with negative w the inequalities flip.
    let below = |v: f32, lo: f32| if neg { v > lo } else { v < lo };
    let above = |v: f32, hi: f32| if neg { v < hi } else { v > hi };
    let [x, y, z] = ndc;
    let vp = [-1.0, 1.0, -1.0, 1.0];
    let gb = if t.guardband { t.gb } else { vp };
    if t.viewport_xy {
        c |= bits(below(x, vp[0]), OutCode::VP_L) | bits(above(x, vp[1]), OutCode::VP_R);
        c |= bits(below(y, vp[2]), OutCode::VP_B) | bits(above(y, vp[3]), OutCode::VP_T);
    }
    if t.viewport_xy || t.guardband {
        c |= bits(below(x, gb[0]), OutCode::GB_L) | bits(above(x, gb[1]), OutCode::GB_R);
        c |= bits(below(y, gb[2]), OutCode::GB_B) | bits(above(y, gb[3]), OutCode::GB_T);
    }
    if t.viewport_z {
        let near = if t.opengl_z { -1.0 } else { 0.0 };
        c |= bits(below(z, near), OutCode::VP_N) | bits(above(z, 1.0), OutCode::VP_Z);
    }
    for (i, d) in clip_distances.iter().enumerate() {
        if t.ucd_mask & (1 << i) != 0 && (*d < 0.0 || d.is_nan()) {
            c |= OutCode::ucf(i as u32);
        }
    }
    OutCode(c)
}

fn bits(cond: bool, b: u32) -> u32 {
    if cond { b } else { 0 }
}

/// ClipDetermination's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipStatus {
    /// A vertex has an invalid coordinate.
    Bad,
    /// Trivially rejected.
    Reject,
    /// Trivially accepted.
    Accept,
    /// Must be clipped.
    MustClip,
}

/// ClipDetermination over the object's vertices (1, 2 or 3), exactly as the seed's
/// pseudocode (L6046-6129); `ucmc` is "UserClipFlags MustClip Enable".
pub fn clip_determination(v: &[OutCode], ucmc: bool) -> ClipStatus {
    let and = v.iter().fold(u32::MAX, |a, c| a & c.0);
    let or = v.iter().fold(0, |a, c| a | c.0);
    if or & OutCode::BAD != 0 {
        return ClipStatus::Bad;
    }
    let tr_vpxy = and & OutCode::VPXY != 0;
    let tr_gb = and & OutCode::GB != 0;
    let ta_gb = or & OutCode::GB == 0;
    let ta_vpz = or & OutCode::VPZ == 0;
    let tr_vpz = and & OutCode::VPZ != 0;
    let ta_uc = or & OutCode::UC == 0;
    let tr_uc = and & OutCode::UC != 0;
    let ta_negw = or & OutCode::NEGW == 0;
    let tr_negw = and & OutCode::NEGW != 0;
    let tr = tr_gb || tr_vpxy || tr_vpz || tr_uc || tr_negw;
    let ta = !tr && ta_gb && ta_vpz && ta_negw && ((ucmc && ta_uc) || (!ucmc && !tr_uc));
    if tr {
        ClipStatus::Reject
    } else if ta {
        ClipStatus::Accept
    } else {
        ClipStatus::MustClip
    }
}
