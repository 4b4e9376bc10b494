//! The legacy KMS ioctls: the getters, framebuffers (ADDFB, ADDFB2, GETFB, RMFB), dumb
//! buffers, SETCRTC and PAGE_FLIP, as the DRM core serves them for an atomic driver
//! (drm_mode_config.c, drm_crtc.c, drm_connector.c, drm_encoder.c, drm_plane.c,
//! drm_framebuffer.c, drm_dumb_buffers.c; Linux 6.1). SETCRTC and PAGE_FLIP change the
//! display's state through the checks of `atomic.rs`.

use super::formats::{self, MOD_LINEAR, MOD_X_TILED, MOD_Y_TILED_CCS};
use super::state::PlaneState;
use super::*;

/// DRM_MODE_FB_MODIFIERS (ADDFB2 flags).
const FB_MODIFIERS: u32 = 2;
/// DRM_MODE_FB_INTERLACED.
const FB_INTERLACED: u32 = 1;

impl Kernel {
    /// The legacy KMS ioctls and WAIT_VBLANK.
    pub(super) fn legacy_ioctl(
        &mut self,
        fd: i32,
        file: u64,
        n: u32,
        a: &mut user::Args,
    ) -> Result<(), Errno> {
        match n {
            WAIT_VBLANK => self.wait_vblank(file, a),
            MODE_GETRESOURCES => {
                let mut r: CardRes = a.get();
                let fbs = self.kms.fbs_of(file);
                r.count_fbs = put_some_ids(r.fb_id_ptr, r.count_fbs, &fbs)?;
                r.count_crtcs = put_some_ids(r.crtc_id_ptr, r.count_crtcs, &[CRTC])?;
                r.count_connectors =
                    put_some_ids(r.connector_id_ptr, r.count_connectors, &[CONNECTOR])?;
                r.count_encoders = put_some_ids(r.encoder_id_ptr, r.count_encoders, &[ENCODER])?;
                (r.min_width, r.max_width, r.min_height, r.max_height) = (0, MAX_SIZE, 0, MAX_SIZE);
                a.put(&r)
            }
            MODE_GETCRTC => {
                let mut c: ModeCrtc = a.get();
                if c.crtc_id != CRTC {
                    return Err(Errno::ENOENT);
                }
                let s = self.kms.state;
                c.fb_id = s.primary.fb;
                (c.x, c.y) = s.legacy_xy();
                c.gamma_size = gamma::GAMMA_SIZE;
                c.mode_valid = u32::from(s.crtc.mode.is_some());
                c.mode = s.crtc.mode.unwrap_or_default();
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
                e.crtc_id = self.kms.state.connector_crtc;
                // fixup_encoder_possible_clones: an encoder is its own clone.
                (e.possible_crtcs, e.possible_clones) = (1, 1);
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
                c.count_props = self.put_props(
                    file,
                    CONNECTOR,
                    (c.props_ptr, c.prop_values_ptr, c.count_props),
                )?;
                c.count_encoders = put_ids(c.encoders_ptr, c.count_encoders, &[ENCODER])?;
                c.encoder_id = if self.kms.state.connector_crtc != 0 {
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
                // Without the universal-planes cap a file sees overlay planes only.
                let mut r: GetPlaneRes = a.get();
                let universal = self.kms.caps.get(&file).is_some_and(|c| c.universal_planes);
                let planes: &[u32] = if universal {
                    &[PRIMARY_PLANE, CURSOR_PLANE]
                } else {
                    &[]
                };
                r.count_planes = put_some_ids(r.plane_id_ptr, r.count_planes, planes)?;
                a.put(&r)
            }
            MODE_GETPLANE => {
                let mut p: GetPlane = a.get();
                let plane = *self.kms.state.plane(p.plane_id).ok_or(Errno::ENOENT)?;
                let formats = formats::plane_formats(self.platform, p.plane_id == PRIMARY_PLANE);
                (p.crtc_id, p.fb_id) = (plane.crtc, plane.fb);
                (p.possible_crtcs, p.gamma_size) = (1, 0);
                p.count_format_types = put_ids(p.format_type_ptr, p.count_format_types, formats)?;
                a.put(&p)
            }
            MODE_ADDFB => {
                let mut c: FbCmd = a.get();
                // drm_mode_addfb: the legacy bpp/depth pairs (drm_mode_legacy_fb_format).
                let format = match (c.bpp, c.depth) {
                    (32, 24) => XRGB8888,
                    (32, 30) => formats::XRGB2101010,
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
                // Multi-planar framebuffers need GETFB2 (drm_mode_getfb).
                if f.modifier == MOD_Y_TILED_CCS {
                    return Err(Errno::EINVAL);
                }
                (c.width, c.height, c.pitch) = (f.width, f.height, f.pitch);
                (c.bpp, c.depth) = match f.format {
                    RGB565 => (16, 16),
                    ARGB8888 | ABGR8888 => (32, 32),
                    formats::XRGB2101010
                    | formats::XBGR2101010
                    | formats::ARGB2101010
                    | formats::ABGR2101010 => (32, 30),
                    _ => (32, 24),
                };
                // A handle of the caller's own to the object for the master or root
                // (drm_mode_getfb: 0 for anyone else).
                // SAFETY: geteuid has no preconditions.
                let root = unsafe { libc::geteuid() } == 0;
                c.handle = if self.kms.master == Some(file) || root {
                    self.bos.get_mut(&f.bo).ok_or(Errno::ENOENT)?.refs += 1;
                    self.add_handle(fd, f.bo)?
                } else {
                    0
                };
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
                // drm_mode_create_dumb: sizes nonzero (flags are not looked at), bpp
                // rounded up to bytes, the pitch and size not overflowing;
                // i915_gem_dumb_create: 1, 2 or 4 bytes per pixel (C8, RGB565, XRGB8888).
                if c.width == 0 || c.height == 0 || ![1, 2, 4].contains(&c.bpp.div_ceil(8)) {
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

    /// ADDFB2 (drm_mode_addfb2 and framebuffer_check, drm_framebuffer.c; then i915's
    /// intel_user_framebuffer_create and intel_framebuffer_init). `file` 0 makes a
    /// framebuffer of the kernel's own.
    ///
    /// framebuffer_check first: unknown flags or interlacing EINVAL, a format no plane
    /// takes EINVAL, a size of 0 or past 16384 EINVAL; per plane of the format (two for
    /// Y_TILED_CCS), handle 0 EINVAL, rows x pitch + offset past 4 GiB ERANGE, a pitch
    /// under the width's bytes EINVAL, a modifier without DRM_MODE_FB_MODIFIERS or one
    /// that differs from plane 0's EINVAL; past the format's planes a modifier EINVAL,
    /// and with DRM_MODE_FB_MODIFIERS a handle, pitch or offset EINVAL. Then the handle
    /// (ENOENT), and i915's checks: the object's tiling must be the modifier's, and
    /// without modifiers gives it (Y tiling EINVAL there); a format and modifier no
    /// plane takes on this platform EINVAL; plane 0's offset must be 0; the pitch must
    /// be whole tiles and, for a tiled object, its fence stride; the planes must fit in
    /// the object. A Y_TILED_CCS framebuffer (Ice Lake) has its control surface in
    /// plane 1 of the same object ("bad plane handle" otherwise, EINVAL), a byte per
    /// 8x16 pixels in Y tiles of its own pitch; scanout reads the main surface, which
    /// the model always keeps resolved (`gtsim_gen11`'s CCS notes).
    pub(super) fn add_fb(&mut self, fd: i32, file: u64, c: &FbCmd2) -> Result<u32, Errno> {
        if c.flags & !(FB_INTERLACED | FB_MODIFIERS) != 0 || c.flags & FB_INTERLACED != 0 {
            return Err(Errno::EINVAL);
        }
        let cpp = formats::cpp(c.pixel_format).ok_or(Errno::EINVAL)?;
        if c.width == 0 || c.height == 0 || c.width > MAX_SIZE || c.height > MAX_SIZE {
            return Err(Errno::EINVAL);
        }
        let modifiers = c.flags & FB_MODIFIERS != 0;
        let planes = if modifiers && c.modifier[0] == MOD_Y_TILED_CCS {
            2
        } else {
            1
        };
        for i in 0..planes {
            // The CCS plane: a byte per 8 pixels across, a row per 16 down.
            let (w, h, bytes) = if i == 0 {
                (c.width, c.height, cpp)
            } else {
                (c.width.div_ceil(8), c.height.div_ceil(16), 1)
            };
            if c.handles[i] == 0 {
                return Err(Errno::EINVAL);
            }
            if u64::from(h) * u64::from(c.pitches[i]) + u64::from(c.offsets[i])
                > u64::from(u32::MAX)
            {
                return Err(Errno::ERANGE);
            }
            if u64::from(c.pitches[i]) < u64::from(w) * u64::from(bytes) {
                return Err(Errno::EINVAL);
            }
            if (c.modifier[i] != 0 && !modifiers) || (modifiers && c.modifier[i] != c.modifier[0]) {
                return Err(Errno::EINVAL);
            }
        }
        for i in planes..4 {
            if c.modifier[i] != 0
                || (modifiers && (c.handles[i] != 0 || c.pitches[i] != 0 || c.offsets[i] != 0))
            {
                return Err(Errno::EINVAL);
            }
        }
        let bo = self.bo_id(fd, c.handles[0]).map_err(|_| Errno::ENOENT)?;
        let (size, tiling, stride) = {
            let b = &self.bos[&bo];
            (b.size, b.tiling, b.stride)
        };
        let tiling_modifier = match tiling {
            0 => MOD_LINEAR,
            1 => MOD_X_TILED,
            _ => formats::MOD_Y_TILED,
        };
        let modifier = if modifiers {
            // "tiling_mode doesn't match fb modifier" (CCS is Y-tiled).
            let wanted = if c.modifier[0] == MOD_Y_TILED_CCS {
                formats::MOD_Y_TILED
            } else {
                c.modifier[0]
            };
            if tiling != 0 && tiling_modifier != wanted {
                return Err(Errno::EINVAL);
            }
            c.modifier[0]
        } else {
            // "No Y tiling for legacy addfb".
            if tiling > 1 {
                return Err(Errno::EINVAL);
            }
            tiling_modifier
        };
        if !formats::any_plane_takes(self.platform, c.pixel_format, modifier) || c.offsets[0] != 0 {
            return Err(Errno::EINVAL);
        }
        let (tile_pitch, tile_rows) = match modifier {
            MOD_LINEAR => (64, 1),
            MOD_X_TILED => (512, 8),
            _ => (128, 32),
        };
        let pitch = c.pitches[0];
        if !pitch.is_multiple_of(tile_pitch) || (tiling != 0 && pitch != stride) {
            return Err(Errno::EINVAL);
        }
        let rows = u64::from(c.height).div_ceil(tile_rows) * tile_rows;
        if u64::from(pitch) * rows > size {
            return Err(Errno::EINVAL);
        }
        if planes == 2 {
            let aux_rows = u64::from(c.height.div_ceil(16)).div_ceil(32) * 32;
            if c.handles[1] != c.handles[0]
                || !c.pitches[1].is_multiple_of(128)
                || !c.offsets[1].is_multiple_of(4096)
                || u64::from(c.offsets[1]) + u64::from(c.pitches[1]) * aux_rows > size
            {
                return Err(Errno::EINVAL);
            }
        }
        let id = self.kms.new_id()?;
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
                modifier,
            },
        );
        Ok(id)
    }

    /// Removes framebuffer `id` (drm_framebuffer_remove, atomic_remove_fb): the planes
    /// showing it are disabled. The CRTC stays lit (atomic_remove_fb turns CRTCs off only
    /// when the plane-only commit fails, and i915 takes an active CRTC with its primary
    /// plane off: it shows black).
    pub(crate) fn remove_fb(&mut self, id: u32) {
        let Some(f) = self.kms.fbs.remove(&id) else {
            return;
        };
        let s = &mut self.kms.state;
        if s.primary.fb == id {
            s.primary = PlaneState::default();
        }
        if s.cursor.fb == id {
            s.cursor = PlaneState::default();
        }
        self.unref_bo(f.bo);
    }

    /// SETCRTC (drm_mode_setcrtc), in its order: an unknown CRTC ENOENT; x or y past 16
    /// bits ERANGE; no mode turns the CRTC off (connectors with it are EINVAL); with a
    /// mode, an unknown framebuffer ENOENT (-1 keeps the one shown, EINVAL when there is
    /// none), a format the primary plane does not take EINVAL, a mode that does not fit
    /// the framebuffer at (x, y) ENOSPC (drm_crtc_check_viewport), no connectors or more
    /// than the one EINVAL, an unknown connector ENOENT; then the state's checks (a mode
    /// the connector does not offer EINVAL, i915's mode_valid).
    fn set_crtc(&mut self, c: &ModeCrtc) -> Result<(), Errno> {
        if c.crtc_id != CRTC {
            return Err(Errno::ENOENT);
        }
        if (c.x | c.y) & 0xffff_0000 != 0 {
            return Err(Errno::ERANGE);
        }
        let old = self.kms.state;
        let mut new = old;
        if c.mode_valid == 0 {
            // Off; connectors without a mode are EINVAL.
            if c.count_connectors != 0 {
                return Err(Errno::EINVAL);
            }
            new.off();
            self.commit_state(new);
            return Ok(());
        }
        // A framebuffer id of -1 keeps the one shown (EINVAL when there is none).
        let fb_id = if c.fb_id == u32::MAX {
            match old.primary.fb {
                0 => return Err(Errno::EINVAL),
                shown => shown,
            }
        } else {
            c.fb_id
        };
        let f = *self.kms.fbs.get(&fb_id).ok_or(Errno::ENOENT)?;
        if !formats::plane_takes(self.platform, true, f.format, f.modifier) {
            return Err(Errno::EINVAL);
        }
        let (w, h) = (u32::from(c.mode.hdisplay), u32::from(c.mode.vdisplay));
        if u64::from(c.x) + u64::from(w) > u64::from(f.width)
            || u64::from(c.y) + u64::from(h) > u64::from(f.height)
        {
            return Err(Errno::ENOSPC);
        }
        if c.count_connectors != 1 {
            return Err(Errno::EINVAL);
        }
        let connector: u32 = user::read(c.set_connectors_ptr)?;
        if connector != CONNECTOR {
            return Err(Errno::ENOENT);
        }
        if !c.mode.offered(&self.kms.modes) {
            return Err(Errno::EINVAL);
        }
        if old.crtc.mode.map(|m| m.timings()) != Some(c.mode.timings()) {
            new.crtc.mode_blob = 0;
        }
        new.crtc.mode = Some(c.mode);
        new.crtc.active = true;
        new.connector_crtc = CRTC;
        new.primary = PlaneState::whole(fb_id, (c.x, c.y), (w, h), (0, 0));
        self.check_state(&old, &new, true, false)?;
        self.commit_state(new);
        Ok(())
    }

    /// PAGE_FLIP (drm_mode_page_flip_ioctl), in its order: flags other than EVENT and
    /// ASYNC EINVAL, an unknown CRTC ENOENT, no framebuffer shown EBUSY ("currently
    /// unbound"), an unknown framebuffer ENOENT, one too small for the primary plane's
    /// source rectangle ENOSPC, one of another format EINVAL, no room for the event
    /// ENOMEM, a CRTC that is off EINVAL; then the flip, done at the next vblank, and
    /// its event. ASYNC (DRM_CAP_ASYNC_PAGE_FLIP is 1: i915's async flips from display
    /// version 5) takes X-tiled framebuffers of the shown one's pitch only
    /// (intel_async_flip_check_uapi: EINVAL otherwise) and completes at once, without
    /// waiting for a vblank.
    fn page_flip(&mut self, file: u64, f: &PageFlip) -> Result<(), Errno> {
        if f.flags & !(PAGE_FLIP_EVENT | PAGE_FLIP_ASYNC) != 0 || f.reserved != 0 {
            return Err(Errno::EINVAL);
        }
        if f.crtc_id != CRTC {
            return Err(Errno::ENOENT);
        }
        let old = self.kms.state;
        let shown = *self.kms.fbs.get(&old.primary.fb).ok_or(Errno::EBUSY)?;
        let fb = *self.kms.fbs.get(&f.fb_id).ok_or(Errno::ENOENT)?;
        let p = old.primary;
        let (x, y) = old.legacy_xy();
        if u64::from(x) + u64::from(p.src_w >> 16) > u64::from(fb.width)
            || u64::from(y) + u64::from(p.src_h >> 16) > u64::from(fb.height)
        {
            return Err(Errno::ENOSPC);
        }
        if shown.format != fb.format {
            return Err(Errno::EINVAL);
        }
        let async_flip = f.flags & PAGE_FLIP_ASYNC != 0;
        if async_flip
            && (fb.modifier != MOD_X_TILED
                || shown.modifier != MOD_X_TILED
                || fb.pitch != shown.pitch)
        {
            return Err(Errno::EINVAL);
        }
        let event = f.flags & PAGE_FLIP_EVENT != 0;
        if event {
            self.event_room(file, 32)?;
        }
        let mut new = old;
        new.primary.fb = f.fb_id;
        self.check_state(&old, &new, false, true)?;
        if async_flip {
            self.apply_state(new, false);
        } else {
            self.commit_state(new);
        }
        if event {
            self.queue_flip_event(file, f.user_data)?;
        }
        Ok(())
    }
}
