//! KMS on the emulated card0: one virtual connector, its encoder, one CRTC with a
//! primary plane and a cursor plane, properties, framebuffers, dumb buffers, legacy and
//! atomic mode setting, page flips and vblanks with their events, answered as Linux
//! 6.1's DRM core and i915 answer them (drivers/gpu/drm/drm_mode_config.c,
//! drm_connector.c, drm_encoder.c, drm_crtc.c, drm_plane.c, drm_framebuffer.c,
//! drm_dumb_buffers.c, drm_property.c, drm_atomic_uapi.c, drm_vblank.c; the structures of
//! include/uapi/drm/drm_mode.h).
//!
//! * **Objects.** Their ids are fixed: properties 1 to 22 (`props.rs`), planes 31
//!   (primary) and 32 (cursor), the planes' IN_FORMATS blobs 33 and 34, CRTC 51,
//!   encoder 52 (virtual), connector 53 (virtual, always connected). Framebuffers and
//!   blobs take ids from 100 on, from one counter.
//! * **Modes.** The connector offers its preferred mode (1024x768 at 60 Hz unless
//!   `GTSIM_DISPLAY_MODE=WxH` says otherwise) and the smaller of 800x600 and 640x480,
//!   each with simple blanking (160 pixels, 30 lines) and the pixel clock that makes 60
//!   Hz.
//! * **Client caps** (drm_setclientcap): UNIVERSAL_PLANES lists the primary and cursor
//!   planes in GETPLANERESOURCES (without it a file sees only overlay planes, and there
//!   are none); ATOMIC (value 1 or 2) implies it and opens ATOMIC and the atomic
//!   properties; STEREO_3D and ASPECT_RATIO are taken; WRITEBACK_CONNECTORS needs ATOMIC
//!   first. Unknown caps and values past a cap's range are EINVAL; the render node gets
//!   EACCES (not DRM_RENDER_ALLOW).
//! * **Master.** The first file to open card0 while no file is master becomes master
//!   (drm_master_open); SETCRTC, PAGE_FLIP, ATOMIC, SETPLANE, CURSOR and the property
//!   setters need it (their DRM_MASTER flag: EACCES otherwise). SET_MASTER makes a file
//!   master when no other is (EBUSY otherwise), and DROP_MASTER gives it up (EINVAL for
//!   a file that is not master). The render node serves no KMS ioctl (EACCES: not
//!   DRM_RENDER_ALLOW).
//! * **At start** the CRTC is lit in the preferred mode with no client framebuffer, as
//!   the kernel's console leaves it; the encoder and connector are bound to it.
//! * **State and checks.** Every change (SETCRTC, PAGE_FLIP, ATOMIC, SETPLANE, CURSOR,
//!   OBJ_SETPROPERTY) builds a new [`state::State`] and passes the same checks
//!   (`atomic.rs`) before it is shown.
//! * **Vblanks** (`events.rs`) come as fast as frames do, or, with
//!   `GTSIM_DISPLAY_VBLANK=realtime`, at the mode's refresh rate in real time: a flip or
//!   commit then completes at the next vblank (the ioctl returns there), and a wait
//!   sleeps until the vblank it waits for.
//! * **Gamma** (`gamma.rs`): the legacy 256-entry tables of GETGAMMA/SETGAMMA, a linear
//!   ramp at start, applied at scanout.
//! * **Scanout** (`scanout.rs`). Every frame a mode set, flip or commit shows is
//!   composed (the primary plane, then the cursor blended over it, through the gamma
//!   tables) and written, when
//!   `GTSIM_DISPLAY=DIR` is set (`gtsim run --display DIR`), as `DIR/frame-NNNNN.png`
//!   (or, for a path ending in `.y4m`, appended to that YUV4MPEG2 video at 60 frames a
//!   second, BT.601 4:4:4).

mod atomic;
mod events;
pub mod formats;
pub mod gamma;
mod legacy;
pub mod props;
mod scanout;
pub mod state;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_atomic;
pub mod uapi;

pub use events::events_queued;
pub use formats::{
    ABGR8888, ARGB8888, MOD_LINEAR, MOD_X_TILED, MOD_Y_TILED, MOD_Y_TILED_CCS, RGB565, XBGR8888,
    XRGB8888,
};
pub use scanout::yuv444;
pub use uapi::*;

use crate::errno::Errno;
use crate::kernel::{Kernel, Node};
use crate::user;
use state::{Blob, State};
use std::collections::BTreeMap;

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
/// The first id of framebuffers and blobs.
const FIRST_ID: u32 = 100;
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
/// DRM_IOCTL_MODE_CURSOR.
pub const MODE_CURSOR: u32 = 0xa3;
/// DRM_IOCTL_MODE_GETGAMMA.
pub const MODE_GETGAMMA: u32 = 0xa4;
/// DRM_IOCTL_MODE_SETGAMMA.
pub const MODE_SETGAMMA: u32 = 0xa5;
/// DRM_IOCTL_MODE_GETENCODER.
pub const MODE_GETENCODER: u32 = 0xa6;
/// DRM_IOCTL_MODE_GETCONNECTOR.
pub const MODE_GETCONNECTOR: u32 = 0xa7;
/// DRM_IOCTL_MODE_GETPROPERTY.
pub const MODE_GETPROPERTY: u32 = 0xaa;
/// DRM_IOCTL_MODE_SETPROPERTY (a connector's property).
pub const MODE_SETPROPERTY: u32 = 0xab;
/// DRM_IOCTL_MODE_GETPROPBLOB.
pub const MODE_GETPROPBLOB: u32 = 0xac;
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
/// DRM_IOCTL_MODE_SETPLANE.
pub const MODE_SETPLANE: u32 = 0xb7;
/// DRM_IOCTL_MODE_ADDFB2.
pub const MODE_ADDFB2: u32 = 0xb8;
/// DRM_IOCTL_MODE_OBJ_GETPROPERTIES.
pub const MODE_OBJ_GETPROPERTIES: u32 = 0xb9;
/// DRM_IOCTL_MODE_OBJ_SETPROPERTY.
pub const MODE_OBJ_SETPROPERTY: u32 = 0xba;
/// DRM_IOCTL_MODE_CURSOR2.
pub const MODE_CURSOR2: u32 = 0xbb;
/// DRM_IOCTL_MODE_ATOMIC.
pub const MODE_ATOMIC: u32 = 0xbc;
/// DRM_IOCTL_MODE_CREATEPROPBLOB.
pub const MODE_CREATEPROPBLOB: u32 = 0xbd;
/// DRM_IOCTL_MODE_DESTROYPROPBLOB.
pub const MODE_DESTROYPROPBLOB: u32 = 0xbe;

/// DRM_MODE_PAGE_FLIP_EVENT.
const PAGE_FLIP_EVENT: u32 = 1;
/// DRM_MODE_PAGE_FLIP_ASYNC.
const PAGE_FLIP_ASYNC: u32 = 2;
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

// Client caps (drm.h).
/// DRM_CLIENT_CAP_STEREO_3D.
const CAP_STEREO_3D: u64 = 1;
/// DRM_CLIENT_CAP_UNIVERSAL_PLANES.
const CAP_UNIVERSAL_PLANES: u64 = 2;
/// DRM_CLIENT_CAP_ATOMIC.
const CAP_ATOMIC: u64 = 3;
/// DRM_CLIENT_CAP_ASPECT_RATIO.
const CAP_ASPECT_RATIO: u64 = 4;
/// DRM_CLIENT_CAP_WRITEBACK_CONNECTORS.
const CAP_WRITEBACK_CONNECTORS: u64 = 5;

/// The client caps a file has set.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientCaps {
    /// DRM_CLIENT_CAP_UNIVERSAL_PLANES.
    pub universal_planes: bool,
    /// DRM_CLIENT_CAP_ATOMIC.
    pub atomic: bool,
}

/// A framebuffer: its object (from its start: i915 takes plane 0 at offset 0 only),
/// layout, format and modifier, and the file that made it
/// (0: the kernel's own, made by CURSOR for its image).
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct Fb {
    pub file: u64,
    pub bo: u64,
    pub width: u32,
    pub height: u32,
    pub format: u32,
    pub pitch: u32,
    pub modifier: u64,
}

/// The display's state.
#[derive(Debug)]
pub struct Kms {
    /// The connector's modes, the preferred one first.
    pub modes: Vec<ModeInfo>,
    /// Framebuffers by id.
    pub fbs: BTreeMap<u32, Fb>,
    /// Property blobs by id (`props.rs`).
    pub blobs: BTreeMap<u32, Blob>,
    next_id: u32,
    /// What the display shows.
    pub state: State,
    /// The CRTC's legacy gamma tables (`gamma.rs`).
    pub gamma: gamma::Gamma,
    /// The legacy cursor position (CURSOR's MOVE).
    pub cursor_xy: (i32, i32),
    /// Frames scanned out.
    pub frames: u32,
    /// Vblanks so far.
    pub vblanks: u32,
    /// With `GTSIM_DISPLAY_VBLANK=realtime`: when vblank 0 was (`events.rs`).
    pub realtime: Option<std::time::Instant>,
    /// The master file, if any.
    pub master: Option<u64>,
    /// Client caps per file.
    pub caps: BTreeMap<u64, ClientCaps>,
    /// Events queued per file, in order.
    pub events: BTreeMap<u64, std::collections::VecDeque<Vec<u8>>>,
    /// The last out-fence fd an atomic commit handed out, for harnesses that must
    /// close what they cannot read back (the fuzzer).
    pub last_out_fence: Option<i32>,
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
        let mut state = State::default();
        state.crtc.active = true;
        state.crtc.mode = Some(modes[0]);
        state.connector_crtc = CRTC;
        let realtime = std::env::var("GTSIM_DISPLAY_VBLANK")
            .is_ok_and(|v| v.trim() == "realtime")
            .then(std::time::Instant::now);
        Kms {
            modes,
            fbs: BTreeMap::new(),
            blobs: BTreeMap::new(),
            next_id: FIRST_ID,
            state,
            gamma: gamma::linear(),
            cursor_xy: (0, 0),
            frames: 0,
            vblanks: 0,
            realtime,
            master: None,
            caps: BTreeMap::new(),
            events: BTreeMap::new(),
            last_out_fence: None,
            display: std::env::var_os("GTSIM_DISPLAY").map(std::path::PathBuf::from),
            video: None,
        }
    }
}

impl Kms {
    /// The ids of `file`'s framebuffers, newest first (the file's list, which
    /// drm_framebuffer_init adds to at its head).
    fn fbs_of(&self, file: u64) -> Vec<u32> {
        self.fbs
            .iter()
            .rev()
            .filter(|(_, f)| f.file == file)
            .map(|(id, _)| *id)
            .collect()
    }

    /// A new framebuffer or blob id (ENOSPC when they run out).
    fn new_id(&mut self) -> Result<u32, Errno> {
        let id = self.next_id;
        self.next_id = id.checked_add(1).ok_or(Errno::ENOSPC)?;
        Ok(id)
    }
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

    /// The mode's timings, what drm_mode_equal compares (not its name or type).
    pub fn timings(&self) -> ([u32; 2], [u16; 10]) {
        (
            [self.clock, self.flags],
            [
                self.hdisplay,
                self.hsync_start,
                self.hsync_end,
                self.htotal,
                self.hskew,
                self.vdisplay,
                self.vsync_start,
                self.vsync_end,
                self.vtotal,
                self.vscan,
            ],
        )
    }

    /// Whether a mode set may use `self`: one of `modes` in its timings.
    fn offered(&self, modes: &[ModeInfo]) -> bool {
        modes.iter().any(|m| m.timings() == self.timings())
    }
}

/// The bytes of a KMS structure.
fn bytes_of<T: Copy>(v: &T) -> Vec<u8> {
    // SAFETY: the KMS structures are plain old data (repr(C) integers and arrays of
    // them), read for their size.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), size_of::<T>()) }.to_vec()
}

/// Copies `ids` to the client's array at `ptr` when it has room for them all (`count`
/// the client's count), as GETCONNECTOR's encoders and GETPLANE's formats are copied;
/// the count to report.
fn put_ids(ptr: u64, count: u32, ids: &[u32]) -> Result<u32, Errno> {
    if count as usize >= ids.len() && !ids.is_empty() {
        put_some_ids(ptr, count, ids)?;
    }
    Ok(ids.len() as u32)
}

/// Copies as many of `ids` as the client's array holds (`count`), as GETRESOURCES and
/// GETPLANERESOURCES copy theirs (put_user while `count` is under the client's); the
/// count to report.
fn put_some_ids(ptr: u64, count: u32, ids: &[u32]) -> Result<u32, Errno> {
    for (i, id) in ids.iter().take(count as usize).enumerate() {
        user::write(ptr + 4 * i as u64, id)?;
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
                | MODE_CURSOR
                | MODE_GETGAMMA
                | MODE_SETGAMMA
                | MODE_GETENCODER
                | MODE_GETCONNECTOR
                | MODE_GETPROPERTY
                | MODE_SETPROPERTY
                | MODE_GETPROPBLOB
                | MODE_GETFB
                | MODE_ADDFB
                | MODE_RMFB
                | MODE_PAGE_FLIP
                | MODE_CREATE_DUMB
                | MODE_MAP_DUMB
                | MODE_DESTROY_DUMB
                | MODE_GETPLANERESOURCES
                | MODE_GETPLANE
                | MODE_SETPLANE
                | MODE_ADDFB2
                | MODE_OBJ_GETPROPERTIES
                | MODE_OBJ_SETPROPERTY
                | MODE_CURSOR2
                | MODE_ATOMIC
                | MODE_CREATEPROPBLOB
                | MODE_DESTROYPROPBLOB
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

    /// SET_CLIENT_CAP (drm_setclientcap; see the module's notes).
    pub(crate) fn set_client_cap(&mut self, fd: i32, cap: u64, value: u64) -> Result<(), Errno> {
        let file = self.kms_file(fd)?;
        let c = self.kms.caps.entry(file).or_default();
        match cap {
            CAP_STEREO_3D | CAP_ASPECT_RATIO if value <= 1 => Ok(()),
            CAP_UNIVERSAL_PLANES if value <= 1 => {
                c.universal_planes = value == 1;
                Ok(())
            }
            CAP_ATOMIC if value <= 2 => {
                c.atomic = value != 0;
                c.universal_planes = value != 0;
                Ok(())
            }
            CAP_WRITEBACK_CONNECTORS if c.atomic && value <= 1 => Ok(()),
            _ => Err(Errno::EINVAL),
        }
    }

    /// A KMS ioctl.
    pub(crate) fn kms_ioctl(&mut self, fd: i32, n: u32, a: &mut user::Args) -> Result<(), Errno> {
        let file = self.kms_file(fd)?;
        match n {
            MODE_GETPROPERTY => self.get_property(a),
            MODE_GETGAMMA => self.get_gamma(a),
            MODE_SETGAMMA => {
                self.master_only(file)?;
                self.set_gamma(a)
            }
            MODE_GETPROPBLOB => self.get_prop_blob(a),
            MODE_OBJ_GETPROPERTIES => self.obj_get_properties(file, a),
            MODE_CREATEPROPBLOB => self.create_prop_blob(file, a),
            MODE_DESTROYPROPBLOB => self.destroy_prop_blob(file, a),
            MODE_ATOMIC => {
                self.master_only(file)?;
                self.atomic(file, a)
            }
            MODE_OBJ_SETPROPERTY => {
                self.master_only(file)?;
                self.obj_set_property(&a.get())
            }
            MODE_SETPROPERTY => {
                self.master_only(file)?;
                let c: uapi::ConnectorSetProperty = a.get();
                self.obj_set_property(&uapi::ObjSetProperty {
                    value: c.value,
                    prop_id: c.prop_id,
                    obj_id: c.connector_id,
                    obj_type: props::OBJECT_CONNECTOR,
                    pad: 0,
                })
            }
            MODE_SETPLANE => {
                self.master_only(file)?;
                self.set_plane(&a.get())
            }
            MODE_CURSOR | MODE_CURSOR2 => {
                self.master_only(file)?;
                let mut c = uapi::Cursor::default();
                if n == MODE_CURSOR {
                    // struct drm_mode_cursor: the first 28 bytes, no hot spot.
                    let b: [u32; 7] = a.get();
                    (c.flags, c.crtc_id, c.x, c.y) = (b[0], b[1], b[2] as i32, b[3] as i32);
                    (c.width, c.height, c.handle) = (b[4], b[5], b[6]);
                } else {
                    c = a.get();
                }
                self.cursor(fd, &c)
            }
            _ => self.legacy_ioctl(fd, file, n, a),
        }
    }

    /// A closing file's framebuffers and blobs go (drm_fb_release,
    /// drm_property_destroy_user_blobs) and it stops being master.
    pub(crate) fn kms_file_closed(&mut self, file: u64) {
        for id in self.kms.fbs_of(file) {
            self.remove_fb(id);
        }
        let blobs: Vec<u32> = self
            .kms
            .blobs
            .iter()
            .filter(|(_, b)| b.owner == Some(file))
            .map(|(id, _)| *id)
            .collect();
        for id in blobs {
            self.release_blob(id);
        }
        self.kms.caps.remove(&file);
        self.drop_events(file);
        if self.kms.master == Some(file) {
            self.kms.master = None;
        }
    }
}
