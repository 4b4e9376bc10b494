//! KMS on the emulated card0: one virtual connector, its encoder, one CRTC with a
//! primary plane and a cursor plane, framebuffers, dumb buffers, mode setting and page
//! flips with their events, answered as Linux 6.1's DRM core answers them
//! (drivers/gpu/drm/drm_mode_config.c, drm_connector.c, drm_encoder.c, drm_crtc.c,
//! drm_plane.c, drm_framebuffer.c, drm_dumb_buffers.c; the structures of
//! include/uapi/drm/drm_mode.h).
//!
//! * **Objects.** Their ids are fixed: planes 31 (primary) and 32 (cursor), CRTC 51,
//!   encoder 52 (virtual), connector 53 (virtual, always connected). Framebuffer ids
//!   count from 100.
//! * **Modes.** The connector offers its preferred mode (1024x768 at 60 Hz unless
//!   `GTSIM_DISPLAY_MODE=WxH` says otherwise) and the smaller of 800x600 and 640x480,
//!   each with simple blanking (160 pixels, 30 lines) and the pixel clock that makes 60
//!   Hz.
//! * **Master.** The first file to open card0 while no file is master becomes master
//!   (drm_master_open); SETCRTC and PAGE_FLIP need it (their DRM_MASTER flag: EACCES
//!   otherwise). SET_MASTER makes a file master when no other is (EBUSY otherwise), and
//!   DROP_MASTER gives it up (EINVAL for a file that is not master). The render node
//!   serves no KMS ioctl (EACCES: not DRM_RENDER_ALLOW).
//! * **At start** the CRTC is lit in the preferred mode with no client framebuffer, as
//!   the kernel's console leaves it; the encoder and connector are bound to it.
//! * **Flips.** A page flip completes at once ("as fast as frames come"): its event,
//!   when asked for (DRM_MODE_PAGE_FLIP_EVENT), is queued on the file at the flip and
//!   read from the fd (`read`, `Kernel::read_events`); its sequence is the vblank it
//!   completed at. WAIT_VBLANK passes the vblanks it waits for at once.
//! * **Scanout.** Every frame a mode set or flip shows is written, when
//!   `GTSIM_DISPLAY=DIR` is set (`gtsim run --display DIR`), as `DIR/frame-NNNNN.png`
//!   (or, for a path ending in `.y4m`, appended to that YUV4MPEG2 video at 60 frames a
//!   second, BT.601 4:4:4):
//!   the framebuffer detiled by its modifier (linear, X- or Y-tiled) and converted from
//!   its format (XRGB8888, ARGB8888, XBGR8888, ABGR8888, RGB565) to RGB.

use crate::errno::Errno;
use crate::kernel::{Kernel, Node};
use crate::user;
use std::collections::BTreeMap;

/// Events queued on all files: reads of other fds need not look while it is 0.
static QUEUED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Whether any file has an event queued.
pub fn events_queued() -> bool {
    QUEUED.load(std::sync::atomic::Ordering::Acquire) > 0
}

/// The primary plane.
pub const PRIMARY_PLANE: u32 = 31;
/// The cursor plane.
pub const CURSOR_PLANE: u32 = 32;
/// The CRTC.
pub const CRTC: u32 = 51;
/// The encoder.
pub const ENCODER: u32 = 52;
/// The connector.
pub const CONNECTOR: u32 = 53;
/// The first framebuffer id.
const FIRST_FB: u32 = 100;
/// The largest framebuffer (intel_mode_config_init, Linux 6.1: 16384 from display
/// version 7 on).
pub const MAX_SIZE: u32 = 16384;

// The KMS ioctl numbers (include/uapi/drm/drm.h).
/// DRM_IOCTL_WAIT_VBLANK.
pub const WAIT_VBLANK: u32 = 0x3a;
/// DRM_IOCTL_MODE_GETRESOURCES.
pub const MODE_GETRESOURCES: u32 = 0xa0;
/// DRM_IOCTL_MODE_GETCRTC.
pub const MODE_GETCRTC: u32 = 0xa1;
/// DRM_IOCTL_MODE_SETCRTC.
pub const MODE_SETCRTC: u32 = 0xa2;
/// DRM_IOCTL_MODE_GETENCODER.
pub const MODE_GETENCODER: u32 = 0xa6;
/// DRM_IOCTL_MODE_GETCONNECTOR.
pub const MODE_GETCONNECTOR: u32 = 0xa7;
/// DRM_IOCTL_MODE_GETFB.
pub const MODE_GETFB: u32 = 0xad;
/// DRM_IOCTL_MODE_ADDFB.
pub const MODE_ADDFB: u32 = 0xae;
/// DRM_IOCTL_MODE_RMFB.
pub const MODE_RMFB: u32 = 0xaf;
/// DRM_IOCTL_MODE_PAGE_FLIP.
pub const MODE_PAGE_FLIP: u32 = 0xb0;
/// DRM_IOCTL_MODE_CREATE_DUMB.
pub const MODE_CREATE_DUMB: u32 = 0xb2;
/// DRM_IOCTL_MODE_MAP_DUMB.
pub const MODE_MAP_DUMB: u32 = 0xb3;
/// DRM_IOCTL_MODE_DESTROY_DUMB.
pub const MODE_DESTROY_DUMB: u32 = 0xb4;
/// DRM_IOCTL_MODE_GETPLANERESOURCES.
pub const MODE_GETPLANERESOURCES: u32 = 0xb5;
/// DRM_IOCTL_MODE_GETPLANE.
pub const MODE_GETPLANE: u32 = 0xb6;
/// DRM_IOCTL_MODE_ADDFB2.
pub const MODE_ADDFB2: u32 = 0xb8;

/// DRM_MODE_PAGE_FLIP_EVENT.
const PAGE_FLIP_EVENT: u32 = 1;
/// DRM_MODE_PAGE_FLIP_ASYNC.
const PAGE_FLIP_ASYNC: u32 = 2;
/// DRM_MODE_FB_MODIFIERS (ADDFB2 flags).
const FB_MODIFIERS: u32 = 2;
/// DRM_MODE_FB_INTERLACED.
const FB_INTERLACED: u32 = 1;
/// DRM_EVENT_FLIP_COMPLETE.
const EVENT_FLIP_COMPLETE: u32 = 2;
/// DRM_MODE_CONNECTOR_VIRTUAL.
const CONNECTOR_VIRTUAL: u32 = 15;
/// DRM_MODE_ENCODER_VIRTUAL.
const ENCODER_VIRTUAL: u32 = 5;
/// DRM_MODE_TYPE_PREFERRED | DRM_MODE_TYPE_DRIVER.
const MODE_PREFERRED_DRIVER: u32 = 0x8 | 0x40;
/// DRM_MODE_TYPE_DRIVER.
const MODE_DRIVER: u32 = 0x40;
/// DRM_MODE_FLAG_NHSYNC | DRM_MODE_FLAG_NVSYNC.
const SYNC_FLAGS: u32 = 0x2 | 0x8;

/// DRM_FORMAT_MOD_LINEAR.
pub const MOD_LINEAR: u64 = 0;
/// I915_FORMAT_MOD_X_TILED.
pub const MOD_X_TILED: u64 = 1 << 56 | 1;
/// I915_FORMAT_MOD_Y_TILED.
pub const MOD_Y_TILED: u64 = 1 << 56 | 2;

/// A fourcc code.
const fn fourcc(s: &[u8; 4]) -> u32 {
    s[0] as u32 | (s[1] as u32) << 8 | (s[2] as u32) << 16 | (s[3] as u32) << 24
}

/// DRM_FORMAT_XRGB8888.
pub const XRGB8888: u32 = fourcc(b"XR24");
/// DRM_FORMAT_ARGB8888.
pub const ARGB8888: u32 = fourcc(b"AR24");
/// DRM_FORMAT_XBGR8888.
pub const XBGR8888: u32 = fourcc(b"XB24");
/// DRM_FORMAT_ABGR8888.
pub const ABGR8888: u32 = fourcc(b"AB24");
/// DRM_FORMAT_RGB565.
pub const RGB565: u32 = fourcc(b"RG16");
/// The primary plane's formats.
const FORMATS: [u32; 5] = [XRGB8888, ARGB8888, XBGR8888, ABGR8888, RGB565];

/// Bytes per pixel of a format the planes take.
fn cpp(format: u32) -> Option<u32> {
    match format {
        XRGB8888 | ARGB8888 | XBGR8888 | ABGR8888 => Some(4),
        RGB565 => Some(2),
        _ => None,
    }
}

/// struct drm_mode_modeinfo.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct ModeInfo {
    pub clock: u32,
    pub hdisplay: u16,
    pub hsync_start: u16,
    pub hsync_end: u16,
    pub htotal: u16,
    pub hskew: u16,
    pub vdisplay: u16,
    pub vsync_start: u16,
    pub vsync_end: u16,
    pub vtotal: u16,
    pub vscan: u16,
    pub vrefresh: u32,
    pub flags: u32,
    pub type_: u32,
    pub name: [u8; 32],
}

impl ModeInfo {
    /// A `w` x `h` mode at 60 Hz with 160 pixels and 30 lines of blanking.
    pub fn new(w: u16, h: u16, preferred: bool) -> ModeInfo {
        let (htotal, vtotal) = (w.saturating_add(160), h.saturating_add(30));
        let mut name = [0u8; 32];
        let text = format!("{w}x{h}");
        name[..text.len().min(31)].copy_from_slice(&text.as_bytes()[..text.len().min(31)]);
        ModeInfo {
            clock: (u32::from(htotal) * u32::from(vtotal) * 60).div_ceil(1000),
            hdisplay: w,
            hsync_start: w.saturating_add(48),
            hsync_end: w.saturating_add(80),
            htotal,
            hskew: 0,
            vdisplay: h,
            vsync_start: h.saturating_add(3),
            vsync_end: h.saturating_add(9),
            vtotal,
            vscan: 0,
            vrefresh: 60,
            flags: SYNC_FLAGS,
            type_: if preferred {
                MODE_PREFERRED_DRIVER
            } else {
                MODE_DRIVER
            },
            name,
        }
    }

    /// Whether a mode set may use `self`: one of `modes` in its timings (the name and
    /// type are the client's to keep).
    fn offered(&self, modes: &[ModeInfo]) -> bool {
        let key = |m: &ModeInfo| {
            (
                m.clock,
                [m.hdisplay, m.hsync_start, m.hsync_end, m.htotal],
                [m.vdisplay, m.vsync_start, m.vsync_end, m.vtotal],
            )
        };
        modes.iter().any(|m| key(m) == key(self))
    }
}

/// union drm_wait_vblank: the request (type, sequence, signal) and, over it, the reply
/// (type, sequence, tval_sec in `signal`'s place, tval_usec).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm.h's own")]
pub struct WaitVblank {
    pub kind: u32,
    pub sequence: u32,
    pub signal: u64,
    pub usec: i64,
}

/// struct drm_mode_card_res.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct CardRes {
    pub fb_id_ptr: u64,
    pub crtc_id_ptr: u64,
    pub connector_id_ptr: u64,
    pub encoder_id_ptr: u64,
    pub count_fbs: u32,
    pub count_crtcs: u32,
    pub count_connectors: u32,
    pub count_encoders: u32,
    pub min_width: u32,
    pub max_width: u32,
    pub min_height: u32,
    pub max_height: u32,
}

/// struct drm_mode_crtc.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct ModeCrtc {
    pub set_connectors_ptr: u64,
    pub count_connectors: u32,
    pub crtc_id: u32,
    pub fb_id: u32,
    pub x: u32,
    pub y: u32,
    pub gamma_size: u32,
    pub mode_valid: u32,
    pub mode: ModeInfo,
}

/// struct drm_mode_get_encoder.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct GetEncoder {
    pub encoder_id: u32,
    pub encoder_type: u32,
    pub crtc_id: u32,
    pub possible_crtcs: u32,
    pub possible_clones: u32,
}

/// struct drm_mode_get_connector.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct GetConnector {
    pub encoders_ptr: u64,
    pub modes_ptr: u64,
    pub props_ptr: u64,
    pub prop_values_ptr: u64,
    pub count_modes: u32,
    pub count_props: u32,
    pub count_encoders: u32,
    pub encoder_id: u32,
    pub connector_id: u32,
    pub connector_type: u32,
    pub connector_type_id: u32,
    pub connection: u32,
    pub mm_width: u32,
    pub mm_height: u32,
    pub subpixel: u32,
    pub pad: u32,
}

/// struct drm_mode_fb_cmd.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct FbCmd {
    pub fb_id: u32,
    pub width: u32,
    pub height: u32,
    pub pitch: u32,
    pub bpp: u32,
    pub depth: u32,
    pub handle: u32,
}

/// struct drm_mode_fb_cmd2.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct FbCmd2 {
    pub fb_id: u32,
    pub width: u32,
    pub height: u32,
    pub pixel_format: u32,
    pub flags: u32,
    pub handles: [u32; 4],
    pub pitches: [u32; 4],
    pub offsets: [u32; 4],
    pub modifier: [u64; 4],
}

/// struct drm_mode_crtc_page_flip.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct PageFlip {
    pub crtc_id: u32,
    pub fb_id: u32,
    pub flags: u32,
    pub reserved: u32,
    pub user_data: u64,
}

/// struct drm_mode_create_dumb.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct CreateDumb {
    pub height: u32,
    pub width: u32,
    pub bpp: u32,
    pub flags: u32,
    pub handle: u32,
    pub pitch: u32,
    pub size: u64,
}

/// struct drm_mode_map_dumb.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct MapDumb {
    pub handle: u32,
    pub pad: u32,
    pub offset: u64,
}

/// struct drm_mode_get_plane_res.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct GetPlaneRes {
    pub plane_id_ptr: u64,
    pub count_planes: u32,
}

/// struct drm_mode_get_plane.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct GetPlane {
    pub plane_id: u32,
    pub crtc_id: u32,
    pub fb_id: u32,
    pub possible_crtcs: u32,
    pub gamma_size: u32,
    pub count_format_types: u32,
    pub format_type_ptr: u64,
}

// The layouts of include/uapi/drm/drm_mode.h, checked by size.
const _: () = {
    assert!(size_of::<WaitVblank>() == 24);
    assert!(size_of::<ModeInfo>() == 68);
    assert!(size_of::<CardRes>() == 64);
    assert!(size_of::<ModeCrtc>() == 104);
    assert!(size_of::<GetEncoder>() == 20);
    assert!(size_of::<GetConnector>() == 80);
    assert!(size_of::<FbCmd>() == 28);
    assert!(size_of::<FbCmd2>() == 104);
    assert!(size_of::<PageFlip>() == 24);
    assert!(size_of::<CreateDumb>() == 32);
    assert!(size_of::<MapDumb>() == 16);
    assert!(size_of::<GetPlaneRes>() == 16);
    assert!(size_of::<GetPlane>() == 32);
};

/// A framebuffer: its object, layout, format and modifier, and the file that made it.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct Fb {
    pub file: u64,
    pub bo: u64,
    pub width: u32,
    pub height: u32,
    pub format: u32,
    pub pitch: u32,
    pub offset: u32,
    pub modifier: u64,
}

/// The display's state.
#[derive(Debug)]
pub struct Kms {
    /// The connector's modes, the preferred one first.
    pub modes: Vec<ModeInfo>,
    /// Framebuffers by id.
    pub fbs: BTreeMap<u32, Fb>,
    next_fb: u32,
    /// The CRTC's framebuffer (0: off), position in it and mode.
    pub crtc: (u32, u32, u32, Option<ModeInfo>),
    /// Frames scanned out.
    pub frames: u32,
    /// Vblanks so far: each flip completes at one, each WAIT_VBLANK passes the ones it
    /// waits for at once.
    pub vblanks: u32,
    /// The master file, if any.
    pub master: Option<u64>,
    /// Events queued per file, in order.
    pub events: BTreeMap<u64, std::collections::VecDeque<Vec<u8>>>,
    /// Where frames go (`GTSIM_DISPLAY`): a folder of PNGs, or a `.y4m` video.
    pub display: Option<std::path::PathBuf>,
    /// The `.y4m` video being written, with its frame size.
    video: Option<(std::fs::File, u32, u32)>,
}

impl Default for Kms {
    fn default() -> Kms {
        let (w, h) = std::env::var("GTSIM_DISPLAY_MODE")
            .ok()
            .and_then(|v| {
                let (w, h) = v.trim().split_once('x')?;
                let (w, h) = (w.parse::<u16>().ok()?, h.parse::<u16>().ok()?);
                (w >= 64 && h >= 64 && u32::from(w) <= MAX_SIZE && u32::from(h) <= MAX_SIZE)
                    .then_some((w, h))
            })
            .unwrap_or((1024, 768));
        let mut modes = vec![ModeInfo::new(w, h, true)];
        for (mw, mh) in [(800, 600), (640, 480)] {
            if mw < w && mh < h {
                modes.push(ModeInfo::new(mw, mh, false));
            }
        }
        // As at boot with the kernel's console on the display (fbdev emulation): the
        // CRTC lit in the preferred mode, showing no client's framebuffer, the
        // encoder and connector bound to it. Programs such as glmark2 take the CRTC
        // from the connector's encoder.
        let console = Some(modes[0]);
        Kms {
            modes,
            fbs: BTreeMap::new(),
            next_fb: FIRST_FB,
            crtc: (0, 0, 0, console),
            frames: 0,
            vblanks: 0,
            master: None,
            events: BTreeMap::new(),
            display: std::env::var_os("GTSIM_DISPLAY").map(std::path::PathBuf::from),
            video: None,
        }
    }
}

/// Copies `ids` to the client's array at `ptr` when it has room for them all (`count`
/// the client's count), as the DRM core's getters do; the count to report.
fn put_ids(ptr: u64, count: u32, ids: &[u32]) -> Result<u32, Errno> {
    if count as usize >= ids.len() && !ids.is_empty() {
        for (i, id) in ids.iter().enumerate() {
            user::write(ptr + 4 * i as u64, id)?;
        }
    }
    Ok(ids.len() as u32)
}

impl Kernel {
    /// Whether `n` is a KMS ioctl this module answers.
    pub(crate) fn is_kms(n: u32) -> bool {
        matches!(
            n,
            WAIT_VBLANK
                | MODE_GETRESOURCES
                | MODE_GETCRTC
                | MODE_SETCRTC
                | MODE_GETENCODER
                | MODE_GETCONNECTOR
                | MODE_GETFB
                | MODE_ADDFB
                | MODE_RMFB
                | MODE_PAGE_FLIP
                | MODE_CREATE_DUMB
                | MODE_MAP_DUMB
                | MODE_DESTROY_DUMB
                | MODE_GETPLANERESOURCES
                | MODE_GETPLANE
                | MODE_ADDFB2
        )
    }

    /// The id of `fd`'s file, EACCES on the render node (no KMS ioctl is
    /// DRM_RENDER_ALLOW).
    fn kms_file(&mut self, fd: i32) -> Result<u64, Errno> {
        let id = *self.fds.get(&fd).ok_or(Errno::EBADF)?;
        if self.file(fd)?.node == Node::Render {
            return Err(Errno::EACCES);
        }
        Ok(id)
    }

    /// EACCES unless `file` is master (the DRM_MASTER ioctls).
    fn master_only(&self, file: u64) -> Result<(), Errno> {
        if self.kms.master == Some(file) {
            Ok(())
        } else {
            Err(Errno::EACCES)
        }
    }

    /// A KMS ioctl.
    pub(crate) fn kms_ioctl(&mut self, fd: i32, n: u32, a: &mut user::Args) -> Result<(), Errno> {
        let file = self.kms_file(fd)?;
        match n {
            WAIT_VBLANK => self.wait_vblank(file, a),
            MODE_GETRESOURCES => {
                let mut r: CardRes = a.get();
                let fbs: Vec<u32> = self
                    .kms
                    .fbs
                    .iter()
                    .filter(|(_, f)| f.file == file)
                    .map(|(id, _)| *id)
                    .collect();
                r.count_fbs = put_ids(r.fb_id_ptr, r.count_fbs, &fbs)?;
                r.count_crtcs = put_ids(r.crtc_id_ptr, r.count_crtcs, &[CRTC])?;
                r.count_connectors = put_ids(r.connector_id_ptr, r.count_connectors, &[CONNECTOR])?;
                r.count_encoders = put_ids(r.encoder_id_ptr, r.count_encoders, &[ENCODER])?;
                (r.min_width, r.max_width, r.min_height, r.max_height) = (0, MAX_SIZE, 0, MAX_SIZE);
                a.put(&r)
            }
            MODE_GETCRTC => {
                let mut c: ModeCrtc = a.get();
                if c.crtc_id != CRTC {
                    return Err(Errno::ENOENT);
                }
                let (fb, x, y, mode) = self.kms.crtc;
                (c.fb_id, c.x, c.y, c.gamma_size) = (fb, x, y, 256);
                c.mode_valid = u32::from(mode.is_some());
                c.mode = mode.unwrap_or_default();
                a.put(&c)
            }
            MODE_SETCRTC => {
                self.master_only(file)?;
                let c: ModeCrtc = a.get();
                self.set_crtc(&c)
            }
            MODE_GETENCODER => {
                let mut e: GetEncoder = a.get();
                if e.encoder_id != ENCODER {
                    return Err(Errno::ENOENT);
                }
                e.encoder_type = ENCODER_VIRTUAL;
                e.crtc_id = if self.kms.crtc.3.is_some() { CRTC } else { 0 };
                (e.possible_crtcs, e.possible_clones) = (1, 0);
                a.put(&e)
            }
            MODE_GETCONNECTOR => {
                let mut c: GetConnector = a.get();
                if c.connector_id != CONNECTOR {
                    return Err(Errno::ENOENT);
                }
                let modes = self.kms.modes.clone();
                if c.count_modes as usize >= modes.len() {
                    for (i, m) in modes.iter().enumerate() {
                        user::write(c.modes_ptr + (i * size_of::<ModeInfo>()) as u64, m)?;
                    }
                }
                c.count_modes = modes.len() as u32;
                c.count_encoders = put_ids(c.encoders_ptr, c.count_encoders, &[ENCODER])?;
                c.count_props = 0;
                c.encoder_id = if self.kms.crtc.3.is_some() {
                    ENCODER
                } else {
                    0
                };
                (c.connector_type, c.connector_type_id) = (CONNECTOR_VIRTUAL, 1);
                // DRM_MODE_CONNECTED; no physical size; DRM_MODE_SUBPIXEL_UNKNOWN.
                (c.connection, c.mm_width, c.mm_height, c.subpixel) = (1, 0, 0, 1);
                a.put(&c)
            }
            MODE_GETPLANERESOURCES => {
                let mut r: GetPlaneRes = a.get();
                r.count_planes = put_ids(
                    r.plane_id_ptr,
                    r.count_planes,
                    &[PRIMARY_PLANE, CURSOR_PLANE],
                )?;
                a.put(&r)
            }
            MODE_GETPLANE => {
                let mut p: GetPlane = a.get();
                let formats: &[u32] = match p.plane_id {
                    PRIMARY_PLANE => &FORMATS,
                    CURSOR_PLANE => &[ARGB8888],
                    _ => return Err(Errno::ENOENT),
                };
                let on = p.plane_id == PRIMARY_PLANE && self.kms.crtc.3.is_some();
                p.crtc_id = if on { CRTC } else { 0 };
                p.fb_id = if on { self.kms.crtc.0 } else { 0 };
                (p.possible_crtcs, p.gamma_size) = (1, 0);
                p.count_format_types = put_ids(p.format_type_ptr, p.count_format_types, formats)?;
                a.put(&p)
            }
            MODE_ADDFB => {
                let mut c: FbCmd = a.get();
                // drm_mode_addfb: the legacy bpp/depth pairs (drm_mode_legacy_fb_format).
                let format = match (c.bpp, c.depth) {
                    (32, 24) => XRGB8888,
                    (32, 32) => ARGB8888,
                    (16, 16) => RGB565,
                    _ => return Err(Errno::EINVAL),
                };
                let cmd = FbCmd2 {
                    width: c.width,
                    height: c.height,
                    pixel_format: format,
                    handles: [c.handle, 0, 0, 0],
                    pitches: [c.pitch, 0, 0, 0],
                    ..FbCmd2::default()
                };
                c.fb_id = self.add_fb(fd, file, &cmd)?;
                a.put(&c)
            }
            MODE_ADDFB2 => {
                let mut c: FbCmd2 = a.get();
                c.fb_id = self.add_fb(fd, file, &c)?;
                a.put(&c)
            }
            MODE_GETFB => {
                let mut c: FbCmd = a.get();
                let f = *self.kms.fbs.get(&c.fb_id).ok_or(Errno::ENOENT)?;
                (c.width, c.height, c.pitch) = (f.width, f.height, f.pitch);
                (c.bpp, c.depth) = match f.format {
                    RGB565 => (16, 16),
                    ARGB8888 | ABGR8888 => (32, 32),
                    _ => (32, 24),
                };
                // A handle of the caller's own to the object (drm_mode_getfb: 0 unless
                // the caller may see it; every file here may).
                self.bos.get_mut(&f.bo).ok_or(Errno::ENOENT)?.refs += 1;
                c.handle = self.add_handle(fd, f.bo)?;
                a.put(&c)
            }
            MODE_RMFB => {
                let id: u32 = a.get();
                match self.kms.fbs.get(&id) {
                    Some(f) if f.file == file => {}
                    _ => return Err(Errno::ENOENT),
                }
                self.remove_fb(id);
                Ok(())
            }
            MODE_PAGE_FLIP => {
                self.master_only(file)?;
                let f: PageFlip = a.get();
                self.page_flip(file, &f)
            }
            MODE_CREATE_DUMB => {
                let mut c: CreateDumb = a.get();
                // drm_mode_create_dumb: no flags, sizes nonzero, bpp rounded up to bytes,
                // the pitch and size not overflowing.
                if c.flags != 0 || c.width == 0 || c.height == 0 || c.bpp == 0 {
                    return Err(Errno::EINVAL);
                }
                let pitch = u64::from(c.width) * u64::from(c.bpp.div_ceil(8));
                // i915_gem_dumb_create: the pitch aligned to 64 bytes.
                let pitch = pitch.div_ceil(64) * 64;
                let size = pitch
                    .checked_mul(u64::from(c.height))
                    .ok_or(Errno::EINVAL)?;
                if pitch > u64::from(u32::MAX) || size > 1 << 31 {
                    return Err(Errno::EINVAL);
                }
                let (size, handle) = self.create_object(fd, size)?;
                (c.handle, c.pitch, c.size) = (handle, pitch as u32, size);
                a.put(&c)
            }
            MODE_MAP_DUMB => {
                let mut m: MapDumb = a.get();
                let id = self.bo_id(fd, m.handle)?;
                m.offset = self.mmap_offset(id);
                a.put(&m)
            }
            MODE_DESTROY_DUMB => {
                let h: u32 = a.get();
                let id = self.file(fd)?.handles.remove(&h).ok_or(Errno::EINVAL)?;
                self.unref_bo(id);
                Ok(())
            }
            _ => Err(Errno::ENOTTY),
        }
    }

    /// ADDFB2 (drm_mode_addfb2 and framebuffer_check, drm_framebuffer.c; i915's
    /// intel_framebuffer_init for the modifiers and the tiling of objects added without
    /// one).
    fn add_fb(&mut self, fd: i32, file: u64, c: &FbCmd2) -> Result<u32, Errno> {
        if c.flags & !(FB_INTERLACED | FB_MODIFIERS) != 0 || c.flags & FB_INTERLACED != 0 {
            return Err(Errno::EINVAL);
        }
        let cpp = cpp(c.pixel_format).ok_or(Errno::EINVAL)?;
        if c.width == 0 || c.height == 0 || c.width > MAX_SIZE || c.height > MAX_SIZE {
            return Err(Errno::EINVAL);
        }
        // One plane: the others' handles, pitches and offsets must be 0.
        if c.handles[1..].iter().any(|&h| h != 0)
            || c.pitches[1..].iter().any(|&p| p != 0)
            || c.offsets[1..].iter().any(|&o| o != 0)
        {
            return Err(Errno::EINVAL);
        }
        let bo = self.bo_id(fd, c.handles[0]).map_err(|_| Errno::ENOENT)?;
        let (size, tiling) = {
            let b = &self.bos[&bo];
            (b.size, b.tiling)
        };
        let modifier = if c.flags & FB_MODIFIERS != 0 {
            c.modifier[0]
        } else {
            // Without modifiers the object's tiling says (I915_TILING_X: 1, Y: 2).
            match tiling {
                0 => MOD_LINEAR,
                1 => MOD_X_TILED,
                _ => return Err(Errno::EINVAL),
            }
        };
        let tile_pitch = match modifier {
            MOD_LINEAR => 64,
            MOD_X_TILED => 512,
            MOD_Y_TILED => 128,
            _ => return Err(Errno::EINVAL),
        };
        let pitch = c.pitches[0];
        if u64::from(pitch) < u64::from(c.width) * u64::from(cpp)
            || !pitch.is_multiple_of(tile_pitch)
        {
            return Err(Errno::EINVAL);
        }
        let rows = match modifier {
            MOD_LINEAR => u64::from(c.height),
            MOD_X_TILED => u64::from(c.height).div_ceil(8) * 8,
            _ => u64::from(c.height).div_ceil(32) * 32,
        };
        let end = u64::from(c.offsets[0]) + u64::from(pitch) * rows;
        if end > size {
            return Err(Errno::EINVAL);
        }
        let id = self.kms.next_fb;
        self.kms.next_fb = id.checked_add(1).ok_or(Errno::ENOSPC)?;
        self.bos.get_mut(&bo).ok_or(Errno::ENOENT)?.refs += 1;
        self.kms.fbs.insert(
            id,
            Fb {
                file,
                bo,
                width: c.width,
                height: c.height,
                format: c.pixel_format,
                pitch,
                offset: c.offsets[0],
                modifier,
            },
        );
        Ok(id)
    }

    /// Removes framebuffer `id`; the CRTC showing it turns off (drm_framebuffer_remove).
    pub(crate) fn remove_fb(&mut self, id: u32) {
        if let Some(f) = self.kms.fbs.remove(&id) {
            if self.kms.crtc.0 == id {
                self.kms.crtc = (0, 0, 0, None);
            }
            self.unref_bo(f.bo);
        }
    }

    /// A closing file's framebuffers go (drm_fb_release) and it stops being master.
    pub(crate) fn kms_file_closed(&mut self, file: u64) {
        let ids: Vec<u32> = self
            .kms
            .fbs
            .iter()
            .filter(|(_, f)| f.file == file)
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            self.remove_fb(id);
        }
        if let Some(q) = self.kms.events.remove(&file) {
            QUEUED.fetch_sub(q.len(), std::sync::atomic::Ordering::AcqRel);
        }
        if self.kms.master == Some(file) {
            self.kms.master = None;
        }
    }

    /// SETCRTC (drm_mode_setcrtc): no mode turns the CRTC off (connectors with it are
    /// EINVAL); with a mode, ENOENT for an unknown CRTC, framebuffer (id 0 included; -1
    /// keeps the one shown) or connector; a mode the connector does not offer EINVAL; a
    /// mode that does not fit the framebuffer at (x, y) ENOSPC (drm_crtc_check_viewport).
    fn set_crtc(&mut self, c: &ModeCrtc) -> Result<(), Errno> {
        if c.crtc_id != CRTC {
            return Err(Errno::ENOENT);
        }
        if c.mode_valid == 0 {
            // Off; connectors without a mode are EINVAL.
            if c.count_connectors != 0 {
                return Err(Errno::EINVAL);
            }
            self.kms.crtc = (0, 0, 0, None);
            return Ok(());
        }
        // A framebuffer id of -1 keeps the one shown (EINVAL when there is none).
        let fb_id = if c.fb_id == u32::MAX {
            match self.kms.crtc.0 {
                0 => return Err(Errno::EINVAL),
                shown => shown,
            }
        } else {
            c.fb_id
        };
        let f = *self.kms.fbs.get(&fb_id).ok_or(Errno::ENOENT)?;
        if !c.mode.offered(&self.kms.modes) {
            return Err(Errno::EINVAL);
        }
        if c.count_connectors == 0 || c.count_connectors > 1 {
            return Err(Errno::EINVAL);
        }
        let connector: u32 = user::read(c.set_connectors_ptr)?;
        if connector != CONNECTOR {
            return Err(Errno::ENOENT);
        }
        if u64::from(c.x) + u64::from(c.mode.hdisplay) > u64::from(f.width)
            || u64::from(c.y) + u64::from(c.mode.vdisplay) > u64::from(f.height)
        {
            return Err(Errno::ENOSPC);
        }
        self.kms.crtc = (fb_id, c.x, c.y, Some(c.mode));
        self.scan_out();
        Ok(())
    }

    /// PAGE_FLIP (drm_mode_page_flip_ioctl): flags other than EVENT and ASYNC EINVAL,
    /// ASYNC EINVAL (no async flips: DRM_CAP_ASYNC_PAGE_FLIP is 0), an unknown CRTC or
    /// framebuffer ENOENT, a CRTC that is off EINVAL, one showing no framebuffer EBUSY, a framebuffer of another size
    /// than the one shown ENOSPC; then the flip, done at once, and its event.
    fn page_flip(&mut self, file: u64, f: &PageFlip) -> Result<(), Errno> {
        if f.flags & !(PAGE_FLIP_EVENT | PAGE_FLIP_ASYNC) != 0
            || f.flags & PAGE_FLIP_ASYNC != 0
            || f.reserved != 0
        {
            return Err(Errno::EINVAL);
        }
        if f.crtc_id != CRTC {
            return Err(Errno::ENOENT);
        }
        let (shown, x, y, mode) = self.kms.crtc;
        let mode = mode.ok_or(Errno::EINVAL)?;
        // "The framebuffer is currently unbound": EBUSY.
        if shown == 0 {
            return Err(Errno::EBUSY);
        }
        let fb = *self.kms.fbs.get(&f.fb_id).ok_or(Errno::ENOENT)?;
        if u64::from(x) + u64::from(mode.hdisplay) > u64::from(fb.width)
            || u64::from(y) + u64::from(mode.vdisplay) > u64::from(fb.height)
        {
            return Err(Errno::ENOSPC);
        }
        self.kms.crtc.0 = f.fb_id;
        self.kms.vblanks = self.kms.vblanks.wrapping_add(1);
        self.scan_out();
        if f.flags & PAGE_FLIP_EVENT != 0 {
            // struct drm_event_vblank: the header, user_data, the time, the sequence
            // and the CRTC.
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            let mut e = Vec::with_capacity(32);
            e.extend_from_slice(&EVENT_FLIP_COMPLETE.to_le_bytes());
            e.extend_from_slice(&32u32.to_le_bytes());
            e.extend_from_slice(&f.user_data.to_le_bytes());
            e.extend_from_slice(&(now.as_secs() as u32).to_le_bytes());
            e.extend_from_slice(&now.subsec_micros().to_le_bytes());
            e.extend_from_slice(&self.kms.vblanks.to_le_bytes());
            e.extend_from_slice(&CRTC.to_le_bytes());
            self.queue_event(file, e)?;
        }
        Ok(())
    }

    /// Queues event `e` on `file` (drm_event_reserve: a file's event space is bounded,
    /// 4 KiB; ENOMEM past it).
    fn queue_event(&mut self, file: u64, e: Vec<u8>) -> Result<(), Errno> {
        let q = self.kms.events.entry(file).or_default();
        if q.iter().map(Vec::len).sum::<usize>() + e.len() > 4096 {
            return Err(Errno::ENOMEM);
        }
        q.push_back(e);
        QUEUED.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(())
    }

    /// WAIT_VBLANK (drm_wait_vblank_ioctl): the one CRTC (index 0: no high-CRTC bits,
    /// no SECONDARY), lit (EINVAL otherwise); unknown type bits EINVAL. Vblanks come as
    /// fast as asked for: a wait passes the vblanks it waits for at once (ABSOLUTE to
    /// the sequence asked, RELATIVE by the count asked) and answers the count and the
    /// time; with EVENT the reply comes at once and a DRM_EVENT_VBLANK with the
    /// request's signal is queued on the file.
    fn wait_vblank(&mut self, file: u64, a: &mut user::Args) -> Result<(), Errno> {
        const RELATIVE: u32 = 0x1;
        const HIGH_CRTC: u32 = 0x3e;
        const EVENT: u32 = 0x0400_0000;
        const FLIP: u32 = 0x0800_0000;
        const NEXTONMISS: u32 = 0x1000_0000;
        const SECONDARY: u32 = 0x2000_0000;
        let mut w: WaitVblank = a.get();
        if w.kind & !(RELATIVE | HIGH_CRTC | EVENT | FLIP | NEXTONMISS | SECONDARY) != 0
            || w.kind & (HIGH_CRTC | SECONDARY) != 0
            || self.kms.crtc.3.is_none()
        {
            return Err(Errno::EINVAL);
        }
        let now = self.kms.vblanks;
        let target = if w.kind & RELATIVE != 0 {
            now.wrapping_add(w.sequence)
        } else if w.sequence.wrapping_sub(now) as i32 > 0 {
            w.sequence
        } else if w.kind & NEXTONMISS != 0 {
            now.wrapping_add(1)
        } else {
            now
        };
        self.kms.vblanks = target;
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        if w.kind & EVENT != 0 {
            // struct drm_event_vblank, type DRM_EVENT_VBLANK.
            let mut e = Vec::with_capacity(32);
            e.extend_from_slice(&1u32.to_le_bytes());
            e.extend_from_slice(&32u32.to_le_bytes());
            e.extend_from_slice(&w.signal.to_le_bytes());
            e.extend_from_slice(&(t.as_secs() as u32).to_le_bytes());
            e.extend_from_slice(&t.subsec_micros().to_le_bytes());
            e.extend_from_slice(&target.to_le_bytes());
            e.extend_from_slice(&CRTC.to_le_bytes());
            self.queue_event(file, e)?;
        }
        // The reply: type, sequence, tval_sec, tval_usec over the request.
        w.sequence = target;
        w.signal = t.as_secs();
        w.usec = i64::from(t.subsec_micros());
        a.put(&w)
    }

    /// The events of `fd`'s file that fit in `len` bytes, whole, in order (drm_read);
    /// none when the fd is not a DRM file or no event is queued.
    pub fn read_events(&mut self, fd: i32, len: usize) -> Option<Vec<u8>> {
        let file = *self.fds.get(&fd)?;
        let q = self.kms.events.get_mut(&file)?;
        let mut out = vec![];
        while let Some(e) = q.front() {
            if out.len() + e.len() > len {
                break;
            }
            out.extend(q.pop_front().unwrap_or_default());
            QUEUED.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        }
        Some(out)
    }

    /// Counts a frame and writes it to the display folder when there is one.
    fn scan_out(&mut self) {
        self.kms.frames = self.kms.frames.wrapping_add(1);
        let Some(dir) = self.kms.display.clone() else {
            return;
        };
        let (fb, x, y, Some(mode)) = self.kms.crtc else {
            return;
        };
        let Some(f) = self.kms.fbs.get(&fb).copied() else {
            return;
        };
        let Some(bo) = self.bos.get(&f.bo) else {
            return;
        };
        let (w, h) = (u32::from(mode.hdisplay), u32::from(mode.vdisplay));
        match frame_rgb(bo, &f, (x, y), (w, h)) {
            Ok(rgb) if dir.extension().is_some_and(|e| e == "y4m") => {
                if let Err(e) = self.kms.video_frame(&dir, w, h, &rgb) {
                    crate::log(&format!("display: cannot write {}: {e}", dir.display()));
                }
            }
            Ok(rgb) => {
                let path = dir.join(format!("frame-{:05}.png", self.kms.frames));
                if let Err(e) = write_png(&path, w, h, &rgb) {
                    crate::log(&format!("display: cannot write {}: {e}", path.display()));
                }
            }
            Err(e) => crate::log(&format!(
                "display: frame {} not written: {e}",
                self.kms.frames
            )),
        }
    }
}

impl Kms {
    /// Appends an RGB frame to the `.y4m` video at `path`, created with the first
    /// frame's size (a YUV4MPEG2 stream cannot change size: frames of another size are
    /// left out, said once each).
    fn video_frame(
        &mut self,
        path: &std::path::Path,
        w: u32,
        h: u32,
        rgb: &[u8],
    ) -> Result<(), String> {
        use std::io::Write;
        if self.video.is_none() {
            let mut f = std::fs::File::create(path).map_err(|e| e.to_string())?;
            f.write_all(format!("YUV4MPEG2 W{w} H{h} F60:1 Ip A1:1 C444\n").as_bytes())
                .map_err(|e| e.to_string())?;
            self.video = Some((f, w, h));
        }
        let Some((f, vw, vh)) = self.video.as_mut() else {
            return Ok(());
        };
        if (*vw, *vh) != (w, h) {
            return Err(format!("a {w}x{h} frame in a {vw}x{vh} video: left out"));
        }
        let mut out = Vec::with_capacity(6 + rgb.len());
        out.extend_from_slice(b"FRAME\n");
        out.extend(yuv444(rgb));
        f.write_all(&out).map_err(|e| e.to_string())
    }
}

/// RGB8 pixels as the three planes of 8-bit Y'CbCr 4:4:4, BT.601 limited range (what a
/// YUV4MPEG2 stream without a colour range tag means): Y' = 16 + 219 E'Y, Cb/Cr = 128 +
/// 224 E'Pb/E'Pr, with E'Y = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601).
pub fn yuv444(rgb: &[u8]) -> Vec<u8> {
    let n = rgb.len() / 3;
    let mut out = vec![0u8; 3 * n];
    for (i, p) in rgb.chunks_exact(3).enumerate() {
        let [r, g, b] = [p[0], p[1], p[2]].map(|c| f64::from(c) / 255.0);
        let y = 0.299 * r + 0.587 * g + 0.114 * b;
        let (pb, pr) = ((b - y) / 1.772, (r - y) / 1.402);
        out[i] = (16.0 + 219.0 * y).round() as u8;
        out[n + i] = (128.0 + 224.0 * pb).round().clamp(0.0, 255.0) as u8;
        out[2 * n + i] = (128.0 + 224.0 * pr).round().clamp(0.0, 255.0) as u8;
    }
    out
}

/// The `w` x `h` pixels at (`x`, `y`) of framebuffer `f` as RGB8, detiled by its
/// modifier (the tile layouts of `gtsim_mem::tiling`, no swizzling).
fn frame_rgb(
    bo: &crate::bo::Bo,
    f: &Fb,
    (x, y): (u32, u32),
    (w, h): (u32, u32),
) -> Result<Vec<u8>, String> {
    use gtsim_mem::tiling::Tiling;
    let tiling = match f.modifier {
        MOD_LINEAR => Tiling::Linear,
        MOD_X_TILED => Tiling::X,
        MOD_Y_TILED => Tiling::Y,
        m => return Err(format!("modifier {m:#x}")),
    };
    let cpp = cpp(f.format).ok_or_else(|| format!("format {:#x}", f.format))?;
    let mut out = Vec::with_capacity(w as usize * h as usize * 3);
    let mut px = [0u8; 4];
    for row in y..y + h {
        for col in x..x + w {
            let at = tiling
                .offset(u64::from(f.pitch), u64::from(col * cpp), u64::from(row))
                .map_err(|e| e.to_string())?;
            bo.read(u64::from(f.offset) + at, &mut px[..cpp as usize])
                .map_err(|e| format!("reading the framebuffer: {e:?}"))?;
            let v = u32::from_le_bytes(px);
            let rgb = match f.format {
                XRGB8888 | ARGB8888 => [(v >> 16) as u8, (v >> 8) as u8, v as u8],
                XBGR8888 | ABGR8888 => [v as u8, (v >> 8) as u8, (v >> 16) as u8],
                _ => {
                    let (r, g, b) = ((v >> 11) & 31, (v >> 5) & 63, v & 31);
                    [
                        (r * 255 / 31) as u8,
                        (g * 255 / 63) as u8,
                        (b * 255 / 31) as u8,
                    ]
                }
            };
            out.extend_from_slice(&rgb);
        }
    }
    Ok(out)
}

fn write_png(path: &std::path::Path, w: u32, h: u32, rgb: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut wr = enc.write_header().map_err(|e| e.to_string())?;
    wr.write_image_data(rgb).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uapi::*;

    const CARD: i32 = 1100;
    const OTHER: i32 = 1101;
    const RENDER: i32 = 1102;

    fn req(nr: u32, size: usize) -> u64 {
        (3u64 << 30) | ((size as u64) << 16) | ((DRM_IOCTL_BASE as u64) << 8) | nr as u64
    }

    fn call<T>(k: &mut Kernel, fd: i32, nr: u32, arg: &mut T) -> Result<(), Errno> {
        k.ioctl(fd, req(nr, size_of::<T>()), arg as *mut T as u64)
    }

    /// card0 opened twice (the first file master), the render node once.
    fn kernel() -> Kernel {
        let mut k = Kernel::default();
        k.kms = Kms::default();
        k.kms.modes = vec![
            ModeInfo::new(1024, 768, true),
            ModeInfo::new(800, 600, false),
            ModeInfo::new(640, 480, false),
        ];
        k.open_file(CARD, Node::Primary);
        k.open_file(OTHER, Node::Primary);
        k.open_file(RENDER, Node::Render);
        k
    }

    fn connector_modes(k: &mut Kernel) -> Vec<ModeInfo> {
        let mut c = GetConnector {
            connector_id: CONNECTOR,
            ..GetConnector::default()
        };
        call(k, CARD, MODE_GETCONNECTOR, &mut c).unwrap();
        // As libdrm's drmModeGetConnector: arrays for the counts the first call gave.
        let mut modes = vec![ModeInfo::default(); c.count_modes as usize];
        let mut encoders = vec![0u32; c.count_encoders as usize];
        c.modes_ptr = modes.as_mut_ptr() as u64;
        c.encoders_ptr = encoders.as_mut_ptr() as u64;
        call(k, CARD, MODE_GETCONNECTOR, &mut c).unwrap();
        assert_eq!(encoders, [ENCODER]);
        modes
    }

    /// A 1024x768 XRGB8888 dumb buffer whose pixel (x, y) is red x, green y, blue 0x80,
    /// stored at `offset(x, y)`; its handle.
    fn pattern(k: &mut Kernel, offset: impl Fn(u64, u64) -> u64) -> u32 {
        let mut d = CreateDumb {
            width: 1024,
            height: 768,
            bpp: 32,
            ..CreateDumb::default()
        };
        call(k, CARD, MODE_CREATE_DUMB, &mut d).unwrap();
        assert_eq!(d.pitch, 4096);
        assert!(d.size >= 4096 * 768);
        let mut bytes = vec![0u8; d.size as usize];
        for y in 0..768u64 {
            for x in 0..1024u64 {
                let v: u32 = (x as u32 & 255) << 16 | (y as u32 & 255) << 8 | 0x80;
                let at = offset(x * 4, y) as usize;
                bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        let mut p = I915GemPread {
            handle: d.handle,
            pad: 0,
            offset: 0,
            size: bytes.len() as u64,
            data_ptr: bytes.as_ptr() as u64,
        };
        call(k, CARD, DRM_COMMAND_BASE + I915_GEM_PWRITE, &mut p).unwrap();
        d.handle
    }

    fn add_fb(k: &mut Kernel, handle: u32, modifier: Option<u64>) -> Result<u32, Errno> {
        let mut f = FbCmd2 {
            width: 1024,
            height: 768,
            pixel_format: XRGB8888,
            flags: if modifier.is_some() { FB_MODIFIERS } else { 0 },
            handles: [handle, 0, 0, 0],
            pitches: [4096, 0, 0, 0],
            modifier: [modifier.unwrap_or(0), 0, 0, 0],
            ..FbCmd2::default()
        };
        call(k, CARD, MODE_ADDFB2, &mut f)?;
        Ok(f.fb_id)
    }

    fn read_png(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
        let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb);
        (info.width, info.height, buf)
    }

    /// The scanned-out frame holds the pattern: pixel (x, y) is (x & 255, y & 255, 0x80).
    fn assert_pattern(path: &std::path::Path) {
        let (w, h, rgb) = read_png(path);
        assert_eq!((w, h), (1024, 768));
        for (x, y) in [(0, 0), (5, 3), (511, 7), (512, 8), (700, 300), (1023, 767)] {
            let i = 3 * (y * w + x) as usize;
            assert_eq!(
                rgb[i..i + 3],
                [(x & 255) as u8, (y & 255) as u8, 0x80],
                "pixel ({x}, {y}) of {}",
                path.display()
            );
        }
    }

    /// GETRESOURCES, GETCONNECTOR, GETENCODER and the planes as drm_mode.h lays them out:
    /// counts first, ids when the arrays have room; one always-connected virtual
    /// connector whose preferred mode is first and refreshes at 60 Hz (pixel clock /
    /// (htotal x vtotal)); the render node serves none of it.
    #[test]
    fn the_display_describes_itself_as_linux_reports_a_connector() {
        let mut k = kernel();
        let mut r = CardRes::default();
        call(&mut k, CARD, MODE_GETRESOURCES, &mut r).unwrap();
        assert_eq!(
            (
                r.count_fbs,
                r.count_crtcs,
                r.count_connectors,
                r.count_encoders
            ),
            (0, 1, 1, 1)
        );
        assert_eq!((r.max_width, r.max_height), (16384, 16384));
        let (mut crtc, mut conn, mut enc) = (0u32, 0u32, 0u32);
        r.crtc_id_ptr = &mut crtc as *mut u32 as u64;
        r.connector_id_ptr = &mut conn as *mut u32 as u64;
        r.encoder_id_ptr = &mut enc as *mut u32 as u64;
        call(&mut k, CARD, MODE_GETRESOURCES, &mut r).unwrap();
        assert_eq!((crtc, conn, enc), (CRTC, CONNECTOR, ENCODER));

        let modes = connector_modes(&mut k);
        assert_eq!(modes.len(), 3);
        let m = modes[0];
        assert_eq!((m.hdisplay, m.vdisplay), (1024, 768));
        assert_eq!(m.type_ & 0x8, 0x8, "preferred");
        for m in &modes {
            let hz = f64::from(m.clock) * 1000.0 / (f64::from(m.htotal) * f64::from(m.vtotal));
            assert!((hz - 60.0).abs() < 0.1, "{m:?}: {hz} Hz");
            assert_eq!(m.vrefresh, 60);
        }
        let mut e = GetEncoder {
            encoder_id: ENCODER,
            ..GetEncoder::default()
        };
        call(&mut k, CARD, MODE_GETENCODER, &mut e).unwrap();
        // Bound to the CRTC, which the console left lit in the preferred mode.
        assert_eq!((e.possible_crtcs, e.crtc_id), (1, CRTC));
        let mut c = ModeCrtc {
            crtc_id: CRTC,
            ..ModeCrtc::default()
        };
        call(&mut k, CARD, MODE_GETCRTC, &mut c).unwrap();
        assert_eq!((c.fb_id, c.mode_valid, c.mode.hdisplay), (0, 1, 1024));
        let mut planes = [0u32; 2];
        let mut pr = GetPlaneRes {
            plane_id_ptr: planes.as_mut_ptr() as u64,
            count_planes: 2,
        };
        call(&mut k, CARD, MODE_GETPLANERESOURCES, &mut pr).unwrap();
        assert_eq!(planes, [PRIMARY_PLANE, CURSOR_PLANE]);
        let mut formats = [0u32; 8];
        let mut p = GetPlane {
            plane_id: PRIMARY_PLANE,
            count_format_types: 8,
            format_type_ptr: formats.as_mut_ptr() as u64,
            ..GetPlane::default()
        };
        call(&mut k, CARD, MODE_GETPLANE, &mut p).unwrap();
        assert!(formats[..p.count_format_types as usize].contains(&fourcc(b"XR24")));
        // Unknown objects and the render node.
        let mut bad = GetEncoder {
            encoder_id: 7,
            ..GetEncoder::default()
        };
        assert_eq!(
            call(&mut k, CARD, MODE_GETENCODER, &mut bad),
            Err(Errno::ENOENT)
        );
        assert_eq!(
            call(&mut k, RENDER, MODE_GETRESOURCES, &mut CardRes::default()),
            Err(Errno::EACCES)
        );
    }

    /// A mode set, then flips between a linear and an X-tiled framebuffer (the X tile's
    /// layout worked by hand: 512-byte rows of 8-row tiles, tile rows `pitch` x 8 bytes
    /// apart), each scanned out as a PNG holding the pattern, each flip's event read
    /// back whole with its user data, vblank sequence and CRTC; only the master modesets.
    #[test]
    fn mode_set_and_flips_scan_out_frames_and_send_events() {
        let dir = std::env::temp_dir().join(format!("gtsim-kms-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut k = kernel();
        k.kms.display = Some(dir.clone());
        let linear = pattern(&mut k, |xb, y| y * 4096 + xb);
        let x_tiled = pattern(&mut k, |xb, y| {
            (y / 8) * 4096 * 8 + (xb / 512) * 4096 + (y % 8) * 512 + xb % 512
        });
        let a = add_fb(&mut k, linear, None).unwrap();
        let b = add_fb(&mut k, x_tiled, Some(MOD_X_TILED)).unwrap();
        let mode = connector_modes(&mut k)[0];
        let conn = CONNECTOR;
        let mut set = ModeCrtc {
            set_connectors_ptr: &conn as *const u32 as u64,
            count_connectors: 1,
            crtc_id: CRTC,
            fb_id: a,
            mode_valid: 1,
            mode,
            ..ModeCrtc::default()
        };
        assert_eq!(
            call(&mut k, OTHER, MODE_SETCRTC, &mut set),
            Err(Errno::EACCES)
        );
        call(&mut k, CARD, MODE_SETCRTC, &mut set).unwrap();
        assert_pattern(&dir.join("frame-00001.png"));
        let mut flip = PageFlip {
            crtc_id: CRTC,
            fb_id: b,
            flags: PAGE_FLIP_EVENT,
            user_data: 0xfeed,
            ..PageFlip::default()
        };
        call(&mut k, CARD, MODE_PAGE_FLIP, &mut flip).unwrap();
        assert_pattern(&dir.join("frame-00002.png"));
        let e = k.read_events(CARD, 4096).unwrap();
        assert_eq!(e.len(), 32);
        let dw = |i: usize| u32::from_le_bytes(e[i..i + 4].try_into().unwrap());
        assert_eq!((dw(0), dw(4)), (EVENT_FLIP_COMPLETE, 32));
        assert_eq!(u64::from_le_bytes(e[8..16].try_into().unwrap()), 0xfeed);
        // The flip completed at the display's first vblank.
        assert_eq!((dw(24), dw(28)), (1, CRTC));
        assert_eq!(k.read_events(CARD, 4096).unwrap(), Vec::<u8>::new());
        // An event does not go out in pieces.
        call(&mut k, CARD, MODE_PAGE_FLIP, &mut flip).unwrap();
        assert!(k.read_events(CARD, 31).unwrap().is_empty());
        assert_eq!(k.read_events(CARD, 64).unwrap().len(), 32);
        let mut c = ModeCrtc {
            crtc_id: CRTC,
            ..ModeCrtc::default()
        };
        call(&mut k, CARD, MODE_GETCRTC, &mut c).unwrap();
        assert_eq!((c.fb_id, c.mode_valid, c.mode.hdisplay), (b, 1, 1024));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// WAIT_VBLANK: relative waits pass the vblanks asked for, an absolute one in the
    /// past answers the count now, one with EVENT queues a DRM_EVENT_VBLANK with the
    /// signal; a dark CRTC or another CRTC is EINVAL.
    #[test]
    fn vblank_waits_count_and_send_events() {
        let mut k = kernel();
        let mut w = WaitVblank {
            kind: 1,
            sequence: 3,
            ..WaitVblank::default()
        };
        call(&mut k, CARD, WAIT_VBLANK, &mut w).unwrap();
        assert_eq!(w.sequence, 3);
        let mut w = WaitVblank {
            kind: 0,
            sequence: 1,
            ..WaitVblank::default()
        };
        call(&mut k, CARD, WAIT_VBLANK, &mut w).unwrap();
        assert_eq!(w.sequence, 3, "a sequence already past");
        let mut w = WaitVblank {
            kind: 1 | 0x0400_0000,
            sequence: 2,
            signal: 0xabc,
            ..WaitVblank::default()
        };
        call(&mut k, CARD, WAIT_VBLANK, &mut w).unwrap();
        let e = k.read_events(CARD, 64).unwrap();
        assert_eq!(e.len(), 32);
        assert_eq!(u32::from_le_bytes(e[0..4].try_into().unwrap()), 1);
        assert_eq!(u64::from_le_bytes(e[8..16].try_into().unwrap()), 0xabc);
        assert_eq!(u32::from_le_bytes(e[24..28].try_into().unwrap()), 5);
        let mut w = WaitVblank {
            kind: 1 << 1,
            ..WaitVblank::default()
        };
        assert_eq!(call(&mut k, CARD, WAIT_VBLANK, &mut w), Err(Errno::EINVAL));
        k.kms.crtc = (0, 0, 0, None);
        let mut w = WaitVblank::default();
        assert_eq!(call(&mut k, CARD, WAIT_VBLANK, &mut w), Err(Errno::EINVAL));
    }

    /// A `.y4m` display: the YUV4MPEG2 header with the mode's size, one FRAME per mode
    /// set or flip, BT.601 limited range worked by hand (white Y' 235, black 16, grey
    /// 128 Y' 126 with Cb = Cr = 128; pure red Y' = 16 + 219 x 0.299 = 81, Cr = 128 +
    /// 224 x 0.5 = 240).
    #[test]
    fn a_y4m_display_gets_one_frame_per_scanout_in_bt601() {
        assert_eq!(
            yuv444(&[255, 255, 255, 0, 0, 0, 128, 128, 128, 255, 0, 0]),
            [
                235, 16, 126, 81, // Y'
                128, 128, 128, 90, // Cb: 128 - 224 x 0.299 / 1.772 for red
                128, 128, 128, 240 // Cr
            ]
        );
        let path = std::env::temp_dir().join(format!("gtsim-kms-{}.y4m", std::process::id()));
        let mut k = kernel();
        k.kms.display = Some(path.clone());
        let h = pattern(&mut k, |xb, y| y * 4096 + xb);
        let fb = add_fb(&mut k, h, None).unwrap();
        let conn = CONNECTOR;
        let mut set = ModeCrtc {
            set_connectors_ptr: &conn as *const u32 as u64,
            count_connectors: 1,
            crtc_id: CRTC,
            fb_id: fb,
            mode_valid: 1,
            mode: connector_modes(&mut k)[0],
            ..ModeCrtc::default()
        };
        call(&mut k, CARD, MODE_SETCRTC, &mut set).unwrap();
        let mut flip = PageFlip {
            crtc_id: CRTC,
            fb_id: fb,
            ..PageFlip::default()
        };
        call(&mut k, CARD, MODE_PAGE_FLIP, &mut flip).unwrap();
        drop(k);
        let bytes = std::fs::read(&path).unwrap();
        let header = b"YUV4MPEG2 W1024 H768 F60:1 Ip A1:1 C444\n";
        assert!(bytes.starts_with(header));
        let frame = 6 + 3 * 1024 * 768;
        assert_eq!(bytes.len(), header.len() + 2 * frame);
        let first = &bytes[header.len()..header.len() + frame];
        assert!(first.starts_with(b"FRAME\n"));
        // Pixel (0, 0): red 0, green 0, blue 0x80.
        let want = yuv444(&[0, 0, 0x80]);
        let planes = &first[6..];
        let n = 1024 * 768;
        assert_eq!(
            [planes[0], planes[n], planes[2 * n]],
            [want[0], want[1], want[2]]
        );
        let _ = std::fs::remove_file(&path);
    }

    /// What the DRM core refuses: formats, pitches, handles and modifiers it does not
    /// take, another file's framebuffer, a mode the connector does not offer, async
    /// flips, a flip with no framebuffer shown; and master passing from one file to
    /// another.
    #[test]
    fn bad_requests_get_the_kernels_errno_and_master_passes() {
        let mut k = kernel();
        let h = pattern(&mut k, |xb, y| y * 4096 + xb);
        let mut f = FbCmd2 {
            width: 1024,
            height: 768,
            pixel_format: fourcc(b"NV12"),
            handles: [h, 0, 0, 0],
            pitches: [4096, 0, 0, 0],
            ..FbCmd2::default()
        };
        assert_eq!(call(&mut k, CARD, MODE_ADDFB2, &mut f), Err(Errno::EINVAL));
        f.pixel_format = XRGB8888;
        f.pitches[0] = 2048;
        assert_eq!(call(&mut k, CARD, MODE_ADDFB2, &mut f), Err(Errno::EINVAL));
        f.pitches[0] = 4096;
        f.handles[0] = 999;
        assert_eq!(call(&mut k, CARD, MODE_ADDFB2, &mut f), Err(Errno::ENOENT));
        assert_eq!(add_fb(&mut k, h, Some(0x1234)), Err(Errno::EINVAL));
        let fb = add_fb(&mut k, h, None).unwrap();
        let mut id = fb;
        assert_eq!(call(&mut k, OTHER, MODE_RMFB, &mut id), Err(Errno::ENOENT));
        let mut flip = PageFlip {
            crtc_id: CRTC,
            fb_id: fb,
            ..PageFlip::default()
        };
        // Nothing of a client's shown yet: nothing to flip from.
        assert_eq!(
            call(&mut k, CARD, MODE_PAGE_FLIP, &mut flip),
            Err(Errno::EBUSY)
        );
        let conn = CONNECTOR;
        let mut set = ModeCrtc {
            set_connectors_ptr: &conn as *const u32 as u64,
            count_connectors: 1,
            crtc_id: CRTC,
            fb_id: fb,
            mode_valid: 1,
            mode: ModeInfo::new(1000, 700, false),
            ..ModeCrtc::default()
        };
        assert_eq!(
            call(&mut k, CARD, MODE_SETCRTC, &mut set),
            Err(Errno::EINVAL)
        );
        set.mode = connector_modes(&mut k)[1];
        call(&mut k, CARD, MODE_SETCRTC, &mut set).unwrap();
        flip.flags = PAGE_FLIP_ASYNC;
        assert_eq!(
            call(&mut k, CARD, MODE_PAGE_FLIP, &mut flip),
            Err(Errno::EINVAL)
        );
        // Master: OTHER cannot take it while CARD holds it, can once CARD drops it.
        let m = |k: &mut Kernel, fd: i32, nr: u32| k.ioctl(fd, req(nr, 0) & !(3 << 30), 0);
        assert_eq!(m(&mut k, OTHER, DRM_DROP_MASTER), Err(Errno::EINVAL));
        assert_eq!(m(&mut k, OTHER, DRM_SET_MASTER), Err(Errno::EBUSY));
        m(&mut k, CARD, DRM_DROP_MASTER).unwrap();
        m(&mut k, OTHER, DRM_SET_MASTER).unwrap();
        assert_eq!(
            call(&mut k, CARD, MODE_SETCRTC, &mut set),
            Err(Errno::EACCES)
        );
        // Removing the framebuffer shown turns the CRTC off.
        let mut id = fb;
        call(&mut k, CARD, MODE_RMFB, &mut id).unwrap();
        let mut c = ModeCrtc {
            crtc_id: CRTC,
            ..ModeCrtc::default()
        };
        call(&mut k, CARD, MODE_GETCRTC, &mut c).unwrap();
        assert_eq!((c.fb_id, c.mode_valid), (0, 0));
    }
}
