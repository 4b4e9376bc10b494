//! The display's state, as the DRM core's atomic state objects hold it
//! (drm_crtc_state, drm_plane_state, drm_connector_state; include/drm/drm_crtc.h,
//! drm_plane.h, drm_connector.h): what an atomic commit replaces whole, and what the
//! legacy ioctls (SETCRTC, PAGE_FLIP, SETPLANE, CURSOR) change through the same checks.

use super::ModeInfo;

/// A plane's state: the CRTC and framebuffer it shows (0: none), the source rectangle
/// in the framebuffer (16.16 fixed point) and the destination rectangle on the CRTC.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(missing_docs, reason = "the fields are drm_plane_state's own")]
pub struct PlaneState {
    pub crtc: u32,
    pub fb: u32,
    pub src_x: u32,
    pub src_y: u32,
    pub src_w: u32,
    pub src_h: u32,
    pub crtc_x: i32,
    pub crtc_y: i32,
    pub crtc_w: u32,
    pub crtc_h: u32,
}

impl PlaneState {
    /// The plane showing all of a `w` x `h` framebuffer `fb` at (`x`, `y`) on the CRTC
    /// (what the legacy ioctls set: no scaling).
    pub fn whole(
        fb: u32,
        (src_x, src_y): (u32, u32),
        (w, h): (u32, u32),
        (x, y): (i32, i32),
    ) -> Self {
        PlaneState {
            crtc: super::CRTC,
            fb,
            src_x: src_x << 16,
            src_y: src_y << 16,
            src_w: w << 16,
            src_h: h << 16,
            crtc_x: x,
            crtc_y: y,
            crtc_w: w,
            crtc_h: h,
        }
    }
}

/// The CRTC's state: its mode (`enable` is a mode being set), whether it is active
/// (DPMS on), the blob its MODE_ID names (0 until a reader asks for the blob of a mode
/// set by the legacy SETCRTC) and VRR_ENABLED.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(missing_docs, reason = "the fields are drm_crtc_state's own")]
pub struct CrtcState {
    pub active: bool,
    pub mode: Option<ModeInfo>,
    pub mode_blob: u32,
    pub vrr_enabled: bool,
}

/// The whole display's state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct State {
    /// The one CRTC.
    pub crtc: CrtcState,
    /// The primary plane.
    pub primary: PlaneState,
    /// The cursor plane.
    pub cursor: PlaneState,
    /// The CRTC the connector is routed to (its CRTC_ID; 0: none).
    pub connector_crtc: u32,
}

impl State {
    /// Plane `id`'s state.
    pub fn plane(&self, id: u32) -> Option<&PlaneState> {
        match id {
            super::PRIMARY_PLANE => Some(&self.primary),
            super::CURSOR_PLANE => Some(&self.cursor),
            _ => None,
        }
    }

    /// Plane `id`'s state, to change.
    pub fn plane_mut(&mut self, id: u32) -> Option<&mut PlaneState> {
        match id {
            super::PRIMARY_PLANE => Some(&mut self.primary),
            super::CURSOR_PLANE => Some(&mut self.cursor),
            _ => None,
        }
    }

    /// The CRTC off, its connector unrouted and its primary plane disabled (what a
    /// legacy SETCRTC without a mode and the removal of the framebuffer shown do).
    pub fn off(&mut self) {
        self.crtc.active = false;
        self.crtc.mode = None;
        self.crtc.mode_blob = 0;
        self.primary = PlaneState::default();
        self.connector_crtc = 0;
    }

    /// The legacy position (x, y) of the CRTC in the primary plane's framebuffer.
    pub fn legacy_xy(&self) -> (u32, u32) {
        (self.primary.src_x >> 16, self.primary.src_y >> 16)
    }
}

/// A property blob: its bytes and the file that made it (`None`: the kernel's own, or a
/// client's destroyed while the CRTC still shows its mode).
#[derive(Debug, Clone)]
pub struct Blob {
    /// The file that created it.
    pub owner: Option<u64>,
    /// Its bytes.
    pub data: Vec<u8>,
}
