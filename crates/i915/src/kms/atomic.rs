//! Atomic mode setting (drm_atomic_uapi.c, drm_atomic.c, drm_atomic_helper.c; Linux
//! 6.1) and the legacy plane ioctls built on it, as an atomic driver serves them
//! (drm_plane.c's SETPLANE and CURSOR through __setplane_atomic, drm_mode_object.c's
//! OBJ_SETPROPERTY through set_property_atomic).
//!
//! A request builds a new [`State`] from the current one, property by property; the
//! new state is checked whole ([`Kernel::check_state`]) and, unless the request only
//! tests, replaces the current one at once: the commit completes at the next vblank
//! (`events.rs`; the legacy cursor's updates do not wait for one), its frame is scanned out, its CRTC's OUT_FENCE_PTR gets a signalled
//! sync_file and its event, when asked for, is queued on the file.
//!
//! The checks, in the order the kernel makes them:
//! * a property the object does not have ENOENT (ATOMIC) or EINVAL (SETPROPERTY); a
//!   value the property cannot take EINVAL (drm_property_change_valid_get: out of a
//!   range, not an enum value, an object or blob that does not exist); a property that
//!   cannot be set (immutable ones, DPMS through ATOMIC) EINVAL; IN_FENCE_FD that is not
//!   a sync_file, or set twice, EINVAL; a MODE_ID blob that is not a valid mode EINVAL;
//! * per plane (drm_atomic_plane_check): a CRTC without a framebuffer or the reverse
//!   EINVAL, a format or modifier the plane does not take EINVAL, a destination
//!   overflowing an int ERANGE, a source outside the framebuffer ENOSPC; then i915's
//!   plane checks on an enabled CRTC: no scaling (ERANGE); Ivy Bridge's primary plane
//!   must cover the whole CRTC (no windowing, EINVAL); the cursor is 64, 128 or 256
//!   wide, 8 rows up to its width high, from its framebuffer's origin, of a pitch of its
//!   width's bytes (EINVAL, with the CRTC off too);
//! * per CRTC (drm_atomic_crtc_check, drm_atomic_helper_check_modeset): active without
//!   a mode EINVAL, a mode the connector does not offer EINVAL, a mode without the
//!   connector routed to it (or the reverse) EINVAL, a change of mode, active or
//!   routing without DRM_MODE_ATOMIC_ALLOW_MODESET EINVAL, an event (or an out-fence,
//!   which brings one) for a CRTC off before and after EINVAL.

use super::props::*;
use super::state::PlaneState;
use super::uapi::{Atomic, Cursor, ObjSetProperty, SetPlane};
use super::*;

/// DRM_MODE_ATOMIC_TEST_ONLY.
const TEST_ONLY: u32 = 0x100;
/// DRM_MODE_ATOMIC_NONBLOCK.
const NONBLOCK: u32 = 0x200;
/// DRM_MODE_ATOMIC_ALLOW_MODESET.
const ALLOW_MODESET: u32 = 0x400;
/// DRM_MODE_CURSOR_BO.
const CURSOR_BO: u32 = 1;
/// DRM_MODE_CURSOR_MOVE.
const CURSOR_MOVE: u32 = 2;
/// The properties one ATOMIC request may set (the model's bound on the work a request
/// makes; Linux has none but time and memory). More is ENOMEM, as a request the kernel
/// could not allocate the state of.
const MAX_ATOMIC_PROPS: u64 = 1 << 16;

/// What one request changes besides the state: the fences it carries.
#[derive(Debug, Default)]
pub(super) struct Request {
    /// Planes whose IN_FENCE_FD was set.
    in_fences: u32,
    /// Where the CRTC's out-fence goes, if asked for.
    out_fence: Option<u64>,
    /// Whether a CRTC property was set (the CRTC is in the request's state).
    crtc_touched: bool,
    /// The planes a property was set on (bit 0 primary, bit 1 cursor).
    planes: u32,
    /// Whether a connector property was set.
    connector: bool,
}

impl Kernel {
    /// Sets property `prop` of object `id` to `value` in `new` (drm_atomic_set_property).
    pub(super) fn set_prop(
        &mut self,
        new: &mut State,
        req: &mut Request,
        id: u32,
        prop: u32,
        value: u64,
    ) -> Result<(), Errno> {
        // drm_atomic_set_property: a value the property cannot take is EINVAL. Past
        // this an object id names an existing object of its type (CRTC_ID: 0 or the
        // CRTC; FB_ID: 0 or a framebuffer) and a blob id an existing blob or 0.
        if !self.value_valid(prop, value) {
            return Err(Errno::EINVAL);
        }
        if id == CRTC {
            req.crtc_touched = true;
            match prop {
                ACTIVE => new.crtc.active = value != 0,
                // Blob 0: no mode (the CRTC disabled).
                MODE_ID => match self.blob(value as u32) {
                    Some(data) if value != 0 => {
                        new.crtc.mode = Some(mode_from_blob(&data).ok_or(Errno::EINVAL)?);
                        new.crtc.mode_blob = value as u32;
                    }
                    _ => {
                        new.crtc.mode = None;
                        new.crtc.mode_blob = 0;
                    }
                },
                OUT_FENCE_PTR => {
                    if value != 0 {
                        user::write(value, &(-1i32))?;
                        req.out_fence = Some(value);
                    }
                }
                VRR_ENABLED => new.crtc.vrr_enabled = value != 0,
                _ => return Err(Errno::EINVAL),
            }
            return Ok(());
        }
        if id == CONNECTOR {
            req.connector = true;
            return match prop {
                CRTC_ID => {
                    new.connector_crtc = value as u32;
                    Ok(())
                }
                // link-status may be set back to Good, which it always is.
                LINK_STATUS => Ok(()),
                _ => Err(Errno::EINVAL),
            };
        }
        let index = u32::from(id == CURSOR_PLANE);
        req.planes |= 1 << index;
        if prop == IN_FENCE_FD {
            if req.in_fences & 1 << index != 0 {
                return Err(Errno::EINVAL);
            }
            if value as i64 == -1 {
                return Ok(());
            }
            let fd = i32::try_from(value).map_err(|_| Errno::EINVAL)?;
            if !crate::execbuffer::is_sync_file(fd) {
                return Err(Errno::EINVAL);
            }
            req.in_fences |= 1 << index;
            return Ok(());
        }
        let p = new.plane_mut(id).ok_or(Errno::EINVAL)?;
        match prop {
            FB_ID => p.fb = value as u32,
            CRTC_ID => p.crtc = value as u32,
            CRTC_X => p.crtc_x = value as i32,
            CRTC_Y => p.crtc_y = value as i32,
            CRTC_W => p.crtc_w = value as u32,
            CRTC_H => p.crtc_h = value as u32,
            SRC_X => p.src_x = value as u32,
            SRC_Y => p.src_y = value as u32,
            SRC_W => p.src_w = value as u32,
            SRC_H => p.src_h = value as u32,
            _ => return Err(Errno::EINVAL),
        }
        Ok(())
    }

    /// Whether the request's state includes the CRTC: a CRTC property set, or a
    /// property set on a plane or the connector that is on it before or after
    /// (drm_atomic_get_plane_state and drm_atomic_get_connector_state pull their CRTC's
    /// state in, whether or not a value changes).
    fn crtc_in_request(old: &State, new: &State, req: &Request) -> bool {
        req.crtc_touched
            || (req.planes & 1 != 0 && (old.primary.crtc | new.primary.crtc) != 0)
            || (req.planes & 2 != 0 && (old.cursor.crtc | new.cursor.crtc) != 0)
            || (req.connector && (old.connector_crtc | new.connector_crtc) != 0)
    }

    /// Plane `id` in `p` on a CRTC in state `crtc` (drm_atomic_plane_check, then i915's
    /// i9xx_plane_check / skl_plane_check / intel_check_cursor).
    fn check_plane(&self, id: u32, p: &PlaneState, crtc: &state::CrtcState) -> Result<(), Errno> {
        if (p.crtc != 0) != (p.fb != 0) {
            return Err(Errno::EINVAL);
        }
        if p.crtc == 0 {
            return Ok(());
        }
        let fb = self.kms.fbs.get(&p.fb).ok_or(Errno::EINVAL)?;
        let primary = id == PRIMARY_PLANE;
        if !formats::plane_takes(self.platform, primary, fb.format, fb.modifier) {
            return Err(Errno::EINVAL);
        }
        let fits = |x: i32, w: u32| w <= i32::MAX as u32 && x <= i32::MAX - w as i32;
        if !fits(p.crtc_x, p.crtc_w) || !fits(p.crtc_y, p.crtc_h) {
            return Err(Errno::ERANGE);
        }
        let (fw, fh) = (u64::from(fb.width) << 16, u64::from(fb.height) << 16);
        let (sx, sy, sw, sh) = (
            u64::from(p.src_x),
            u64::from(p.src_y),
            u64::from(p.src_w),
            u64::from(p.src_h),
        );
        if sw > fw || sx > fw - sw || sh > fh || sy > fh - sh {
            return Err(Errno::ENOSPC);
        }
        // i915's cursor (intel_check_cursor, i9xx_cursor_size_ok with HAS_CUR_FBC, Ivy
        // Bridge on): 64, 128 or 256 wide, 8 rows up to its width, from its framebuffer's
        // origin, the framebuffer's pitch its width's bytes; checked with the CRTC off too.
        if !primary
            && (![64, 128, 256].contains(&p.crtc_w)
                || !(8..=p.crtc_w).contains(&p.crtc_h)
                || p.src_x != 0
                || p.src_y != 0
                || fb.pitch != 4 * p.crtc_w)
        {
            return Err(Errno::EINVAL);
        }
        let Some(mode) = crtc.mode else {
            // On a disabled CRTC the plane is not visible: nothing more to check.
            return Ok(());
        };
        // No scaler is modelled: the source is the destination's size (drm_atomic_
        // helper_check_plane_state with DRM_PLANE_NO_SCALING: ERANGE).
        if sw != u64::from(p.crtc_w) << 16 || sh != u64::from(p.crtc_h) << 16 {
            return Err(Errno::ERANGE);
        }
        if primary && self.platform == crate::platform::Platform::IvyBridge {
            // i9xx planes have no windowing: the visible part is the whole CRTC.
            let (w, h) = (i64::from(mode.hdisplay), i64::from(mode.vdisplay));
            let clip = |x: i32, len: u32, max: i64| {
                (
                    i64::from(x).max(0),
                    (i64::from(x) + i64::from(len)).min(max),
                )
            };
            if clip(p.crtc_x, p.crtc_w, w) != (0, w) || clip(p.crtc_y, p.crtc_h, h) != (0, h) {
                return Err(Errno::EINVAL);
            }
        }
        Ok(())
    }

    /// Checks `new` against `old` (see the module's list); `event`: the request asks
    /// for an event on the CRTC.
    pub(super) fn check_state(
        &self,
        old: &State,
        new: &State,
        allow_modeset: bool,
        event: bool,
    ) -> Result<(), Errno> {
        self.check_plane(PRIMARY_PLANE, &new.primary, &new.crtc)?;
        self.check_plane(CURSOR_PLANE, &new.cursor, &new.crtc)?;
        let c = &new.crtc;
        if c.active && c.mode.is_none() {
            return Err(Errno::EINVAL);
        }
        let mode_changed = old.crtc.mode.map(|m| m.timings()) != c.mode.map(|m| m.timings());
        if mode_changed && c.mode.is_some_and(|m| !m.offered(&self.kms.modes)) {
            return Err(Errno::EINVAL);
        }
        if c.mode.is_some() != (new.connector_crtc == CRTC) {
            return Err(Errno::EINVAL);
        }
        let modeset =
            mode_changed || old.crtc.active != c.active || old.connector_crtc != new.connector_crtc;
        if modeset && !allow_modeset {
            return Err(Errno::EINVAL);
        }
        if event && !c.active && !old.crtc.active {
            return Err(Errno::EINVAL);
        }
        Ok(())
    }

    /// Makes `new` the state: blobs and internal framebuffers the old state alone held
    /// go, the commit completes at a vblank, and its frame is scanned out.
    pub(super) fn commit_state(&mut self, new: State) {
        self.apply_state(new, true);
    }

    /// [`Kernel::commit_state`], at the next vblank (`wait`) or at once (the legacy
    /// cursor's fast path, intel_legacy_cursor_update, which does not wait).
    pub(super) fn apply_state(&mut self, new: State, wait: bool) {
        let old = std::mem::replace(&mut self.kms.state, new);
        if old.crtc.mode_blob != new.crtc.mode_blob
            && self
                .kms
                .blobs
                .get(&old.crtc.mode_blob)
                .is_some_and(|b| b.owner.is_none())
        {
            self.kms.blobs.remove(&old.crtc.mode_blob);
        }
        for fb in [old.primary.fb, old.cursor.fb] {
            let internal = self.kms.fbs.get(&fb).is_some_and(|f| f.file == 0);
            if internal && new.primary.fb != fb && new.cursor.fb != fb {
                self.remove_fb(fb);
            }
        }
        if wait {
            self.next_vblank();
        }
        self.scan_out();
    }

    /// ATOMIC (drm_mode_atomic_ioctl): for a file with the atomic cap; flags other than
    /// EVENT, TEST_ONLY, NONBLOCK and ALLOW_MODESET EINVAL, ASYNC EINVAL, TEST_ONLY with
    /// EVENT EINVAL; an unknown object, or one without properties, ENOENT; then the
    /// properties, the check and the commit (NONBLOCK completes as a blocking commit
    /// does: at once). An EVENT with no CRTC in the request EINVAL.
    pub(super) fn atomic(&mut self, file: u64, a: &mut user::Args) -> Result<(), Errno> {
        let c: Atomic = a.get();
        if !self.is_atomic(file) {
            return Err(Errno::EINVAL);
        }
        let known = PAGE_FLIP_EVENT | PAGE_FLIP_ASYNC | TEST_ONLY | NONBLOCK | ALLOW_MODESET;
        if c.flags & !known != 0
            || c.reserved != 0
            || c.flags & PAGE_FLIP_ASYNC != 0
            || (c.flags & TEST_ONLY != 0 && c.flags & PAGE_FLIP_EVENT != 0)
        {
            return Err(Errno::EINVAL);
        }
        let old = self.kms.state;
        let mut new = old;
        let mut req = Request::default();
        let mut copied = 0u64;
        for i in 0..u64::from(c.count_objs) {
            let obj: u32 = user::read(c.objs_ptr.wrapping_add(4 * i))?;
            self.find_object(obj, 0)?;
            let props = attached(obj).ok_or(Errno::ENOENT)?;
            let count: u32 = user::read(c.count_props_ptr.wrapping_add(4 * i))?;
            for _ in 0..count {
                if copied >= MAX_ATOMIC_PROPS {
                    return Err(Errno::ENOMEM);
                }
                let prop: u32 = user::read(c.props_ptr.wrapping_add(4 * copied))?;
                if !props.contains(&prop) {
                    return Err(Errno::ENOENT);
                }
                let value: u64 = user::read(c.prop_values_ptr.wrapping_add(8 * copied))?;
                self.set_prop(&mut new, &mut req, obj, prop, value)?;
                copied += 1;
            }
        }
        let crtc = Kernel::crtc_in_request(&old, &new, &req);
        let event = c.flags & PAGE_FLIP_EVENT != 0;
        if event && !crtc {
            return Err(Errno::EINVAL);
        }
        // prepare_signaling (not for TEST_ONLY) gives the CRTC an event for an out-fence
        // too, so an out-fence on a CRTC off before and after is EINVAL as well.
        let signalled = event || (req.out_fence.is_some() && crtc && c.flags & TEST_ONLY == 0);
        self.check_state(&old, &new, c.flags & ALLOW_MODESET != 0, signalled)?;
        if c.flags & TEST_ONLY != 0 {
            return Ok(());
        }
        if event {
            self.event_room(file, 32)?;
        }
        let fence = match req.out_fence.filter(|_| crtc) {
            Some(ptr) => Some((ptr, signalled_sync_file()?)),
            None => None,
        };
        if let Some((ptr, fd)) = fence
            && let Err(e) = user::write(ptr, &fd)
        {
            // SAFETY: closing the eventfd made just above, which nothing else holds.
            unsafe { libc::close(fd) };
            return Err(e);
        }
        if let Some((_, fd)) = fence {
            self.kms.last_out_fence = Some(fd);
        }
        self.commit_state(new);
        if event {
            self.queue_flip_event(file, c.user_data)?;
        }
        Ok(())
    }

    /// OBJ_SETPROPERTY and CONNECTOR_SETPROPERTY (set_property_atomic): an unknown object
    /// ENOENT, one without properties or without this property EINVAL; DPMS turns the
    /// connector's CRTC on (On) or off (anything else) keeping its mode; every other
    /// property as ATOMIC sets it, committed with mode sets allowed.
    pub(super) fn obj_set_property(&mut self, o: &ObjSetProperty) -> Result<(), Errno> {
        self.find_object(o.obj_id, o.obj_type)?;
        let props = attached(o.obj_id).ok_or(Errno::EINVAL)?;
        if !props.contains(&o.prop_id) {
            return Err(Errno::EINVAL);
        }
        let old = self.kms.state;
        let mut new = old;
        if o.prop_id == DPMS {
            if !self.value_valid(DPMS, o.value) {
                return Err(Errno::EINVAL);
            }
            if new.connector_crtc == CRTC {
                new.crtc.active = o.value == 0;
            }
        } else {
            let mut req = Request::default();
            self.set_prop(&mut new, &mut req, o.obj_id, o.prop_id, o.value)?;
        }
        self.check_state(&old, &new, true, false)?;
        if new != old {
            self.commit_state(new);
        }
        Ok(())
    }

    /// SETPLANE (drm_mode_setplane): an unknown plane ENOENT; framebuffer 0 disables
    /// the plane; otherwise an unknown framebuffer or CRTC ENOENT, then the plane's
    /// checks.
    pub(super) fn set_plane(&mut self, s: &SetPlane) -> Result<(), Errno> {
        let old = self.kms.state;
        let mut new = old;
        let plane = new.plane_mut(s.plane_id).ok_or(Errno::ENOENT)?;
        if s.fb_id == 0 {
            *plane = PlaneState::default();
        } else {
            if !self.kms.fbs.contains_key(&s.fb_id) || s.crtc_id != CRTC {
                return Err(Errno::ENOENT);
            }
            *plane = PlaneState {
                crtc: CRTC,
                fb: s.fb_id,
                src_x: s.src_x,
                src_y: s.src_y,
                src_w: s.src_w,
                src_h: s.src_h,
                crtc_x: s.crtc_x,
                crtc_y: s.crtc_y,
                crtc_w: s.crtc_w,
                crtc_h: s.crtc_h,
            };
        }
        self.check_state(&old, &new, true, false)?;
        self.commit_state(new);
        Ok(())
    }

    /// CURSOR and CURSOR2 (drm_mode_cursor_common, drm_mode_cursor_universal): no flags
    /// or unknown ones EINVAL, an unknown CRTC ENOENT; BO sets the image (a handle makes
    /// an internal ARGB8888 framebuffer of the object, as ADDFB2 checks it; handle 0
    /// hides the cursor), MOVE the position; then the cursor plane's checks.
    pub(super) fn cursor(&mut self, fd: i32, c: &Cursor) -> Result<(), Errno> {
        if c.flags == 0 || c.flags & !(CURSOR_BO | CURSOR_MOVE) != 0 {
            return Err(Errno::EINVAL);
        }
        if c.crtc_id != CRTC {
            return Err(Errno::ENOENT);
        }
        let old = self.kms.state;
        let mut new = old;
        let fb = if c.flags & CURSOR_BO != 0 {
            if c.handle == 0 {
                0
            } else {
                let cmd = uapi::FbCmd2 {
                    width: c.width,
                    height: c.height,
                    pixel_format: formats::ARGB8888,
                    handles: [c.handle, 0, 0, 0],
                    pitches: [c.width.saturating_mul(4), 0, 0, 0],
                    ..uapi::FbCmd2::default()
                };
                self.add_fb(fd, 0, &cmd)?
            }
        } else {
            old.cursor.fb
        };
        let (x, y) = if c.flags & CURSOR_MOVE != 0 {
            (c.x, c.y)
        } else {
            self.kms.cursor_xy
        };
        new.cursor = match self.kms.fbs.get(&fb) {
            Some(f) if fb != 0 => PlaneState::whole(fb, (0, 0), (f.width, f.height), (x, y)),
            _ => PlaneState::default(),
        };
        if let Err(e) = self.check_state(&old, &new, true, false) {
            if fb != old.cursor.fb {
                self.remove_fb(fb);
            }
            return Err(e);
        }
        if c.flags & CURSOR_MOVE != 0 {
            self.kms.cursor_xy = (c.x, c.y);
        }
        self.apply_state(new, false);
        Ok(())
    }
}

/// A mode from a MODE_ID blob (drm_mode_convert_umode and drm_mode_validate_basic):
/// the size of struct drm_mode_modeinfo, a clock and refresh that fit an int, a clock
/// and sizes that are not 0 and timings in order.
fn mode_from_blob(data: &[u8]) -> Option<ModeInfo> {
    if data.len() != size_of::<ModeInfo>() {
        return None;
    }
    // SAFETY: ModeInfo is plain old data (repr(C) integers) and `data` holds its size;
    // the read is unaligned.
    let m: ModeInfo = unsafe { data.as_ptr().cast::<ModeInfo>().read_unaligned() };
    let ordered = |a: u16, b: u16, c: u16, d: u16| a != 0 && a <= b && b <= c && c <= d;
    (m.clock != 0
        && m.clock <= i32::MAX as u32
        && m.vrefresh <= i32::MAX as u32
        && ordered(m.hdisplay, m.hsync_start, m.hsync_end, m.htotal)
        && ordered(m.vdisplay, m.vsync_start, m.vsync_end, m.vtotal))
    .then_some(m)
}

/// A sync_file that is already signalled: the emulation's out-fences are eventfds
/// holding a count, which poll readable (as `execbuffer.rs`'s FENCE_OUT).
fn signalled_sync_file() -> Result<i32, Errno> {
    // SAFETY: plain syscall; the result is checked.
    let fd = unsafe { libc::eventfd(1, libc::EFD_CLOEXEC) };
    if fd < 0 { Err(Errno::ENOMEM) } else { Ok(fd) }
}
