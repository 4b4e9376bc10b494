//! Vblanks and the events read from a DRM fd (drm_vblank.c, drm_file.c; Linux 6.1).
//!
//! * **Vblank timing.** By default vblanks come as fast as frames do: a flip or commit
//!   completes at the next vblank at once, and WAIT_VBLANK passes the vblanks it waits
//!   for at once. With `GTSIM_DISPLAY_VBLANK=realtime` vblank `n` is at `n / refresh`
//!   seconds after the display started (the mode's refresh, 60 Hz): a flip or commit
//!   sleeps until the next one (the ioctl returns when the frame is shown, its event
//!   queued then), and a wait sleeps until the vblank it waits for.
//! * **Events** (struct drm_event_vblank: type, length 32, user data, the time, the
//!   sequence and the CRTC) are queued on the file and read from the fd whole and in
//!   order (`read`, [`Kernel::read_events`]); a file's queue holds 4 KiB (ENOMEM past
//!   it, drm_event_reserve_init).

use super::*;

/// Events queued on all files: reads of other fds need not look while it is 0.
static QUEUED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Whether any file has an event queued.
pub fn events_queued() -> bool {
    QUEUED.load(std::sync::atomic::Ordering::Acquire) > 0
}

/// DRM_EVENT_VBLANK.
const EVENT_VBLANK: u32 = 1;
/// DRM_EVENT_FLIP_COMPLETE.
pub(super) const EVENT_FLIP_COMPLETE: u32 = 2;
/// The bytes of events a file may have queued (drm_event_reserve_init's 4096).
const EVENT_SPACE: usize = 4096;

/// The time now on CLOCK_MONOTONIC, which the event's tv_sec and tv_usec and
/// WAIT_VBLANK's reply say it in (drm_vblank.c stamps with ktime_get; GET_CAP's
/// DRM_CAP_TIMESTAMP_MONOTONIC is 1).
fn now() -> std::time::Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into our own variable.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    std::time::Duration::new(
        t.tv_sec.max(0) as u64,
        t.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// A struct drm_event_vblank.
fn vblank_event(kind: u32, user_data: u64, sequence: u32) -> Vec<u8> {
    let t = now();
    let mut e = Vec::with_capacity(32);
    e.extend_from_slice(&kind.to_le_bytes());
    e.extend_from_slice(&32u32.to_le_bytes());
    e.extend_from_slice(&user_data.to_le_bytes());
    e.extend_from_slice(&(t.as_secs() as u32).to_le_bytes());
    e.extend_from_slice(&t.subsec_micros().to_le_bytes());
    e.extend_from_slice(&sequence.to_le_bytes());
    e.extend_from_slice(&CRTC.to_le_bytes());
    e
}

impl Kernel {
    /// ENOMEM unless `file`'s queue has room for `len` more bytes of events.
    pub(super) fn event_room(&self, file: u64, len: usize) -> Result<(), Errno> {
        let queued: usize = self
            .kms
            .events
            .get(&file)
            .map_or(0, |q| q.iter().map(Vec::len).sum());
        if queued + len > EVENT_SPACE {
            Err(Errno::ENOMEM)
        } else {
            Ok(())
        }
    }

    /// Queues event `e` on `file` (ENOMEM when its queue is full).
    fn queue_event(&mut self, file: u64, e: Vec<u8>) -> Result<(), Errno> {
        self.event_room(file, e.len())?;
        self.kms.events.entry(file).or_default().push_back(e);
        QUEUED.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(())
    }

    /// Queues the DRM_EVENT_FLIP_COMPLETE of a flip or commit that completed at the
    /// current vblank.
    pub(super) fn queue_flip_event(&mut self, file: u64, user_data: u64) -> Result<(), Errno> {
        let e = vblank_event(EVENT_FLIP_COMPLETE, user_data, self.kms.vblanks);
        self.queue_event(file, e)
    }

    /// Forgets the events queued on a closing file.
    pub(super) fn drop_events(&mut self, file: u64) {
        if let Some(q) = self.kms.events.remove(&file) {
            QUEUED.fetch_sub(q.len(), std::sync::atomic::Ordering::AcqRel);
        }
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

    /// The length of a frame of the current mode (1/60 s without one).
    fn frame_time(&self) -> std::time::Duration {
        let hz = self
            .kms
            .state
            .crtc
            .mode
            .map_or(60, |m| m.vrefresh.clamp(1, 1000));
        std::time::Duration::from_secs(1) / hz
    }

    /// The vblanks passed since the display started (real-time vblanks only).
    fn vblanks_passed(&self, start: std::time::Instant) -> u32 {
        (start.elapsed().as_nanos() / self.frame_time().as_nanos().max(1)) as u32
    }

    /// Waits for vblank `target` (real-time vblanks: sleeps until it; otherwise it
    /// comes at once) and makes it the current one.
    fn reach_vblank(&mut self, target: u32) {
        if let Some(start) = self.kms.realtime {
            let at = self.frame_time() * target;
            if let Some(wait) = at.checked_sub(start.elapsed()) {
                std::thread::sleep(wait);
            }
        }
        self.kms.vblanks = target;
    }

    /// The current vblank count.
    fn current_vblank(&self) -> u32 {
        match self.kms.realtime {
            Some(start) => self.vblanks_passed(start).max(self.kms.vblanks),
            None => self.kms.vblanks,
        }
    }

    /// A flip or commit completes at the next vblank.
    pub(super) fn next_vblank(&mut self) {
        let next = self.current_vblank().wrapping_add(1);
        self.reach_vblank(next);
    }

    /// WAIT_VBLANK (drm_wait_vblank_ioctl): the one CRTC (index 0: no high-CRTC bits,
    /// no SECONDARY), active (EINVAL otherwise); type bits outside the types, flags and
    /// high-CRTC masks (FLIP among them) EINVAL. A wait
    /// reaches the vblank it waits for (ABSOLUTE: the sequence asked, or the next one
    /// with NEXTONMISS when it has passed; RELATIVE: by the count asked) and answers
    /// its count and the time; with EVENT a DRM_EVENT_VBLANK with the request's signal
    /// is queued on the file at that vblank, when the reply comes (the kernel replies
    /// at once and queues the event later: with vblanks as fast as asked for the two
    /// are one moment).
    /// A real-time wait is bounded: a second at most (the kernel's wait times out too,
    /// drm_wait_vblank_ioctl's 3 s), after which the reply says the vblank reached.
    pub(super) fn wait_vblank(&mut self, file: u64, a: &mut user::Args) -> Result<(), Errno> {
        const RELATIVE: u32 = 0x1;
        const HIGH_CRTC: u32 = 0x3e;
        const EVENT: u32 = 0x0400_0000;
        const NEXTONMISS: u32 = 0x1000_0000;
        const SECONDARY: u32 = 0x2000_0000;
        const SIGNAL: u32 = 0x4000_0000;
        let mut w: WaitVblank = a.get();
        // _DRM_VBLANK_TYPES_MASK | _DRM_VBLANK_FLAGS_MASK | _DRM_VBLANK_HIGH_CRTC_MASK:
        // FLIP (0x08000000) is not among them (EINVAL); SIGNAL is taken and ignored.
        if w.kind & !(RELATIVE | HIGH_CRTC | EVENT | NEXTONMISS | SECONDARY | SIGNAL) != 0
            || w.kind & (HIGH_CRTC | SECONDARY) != 0
            || !self.kms.state.crtc.active
        {
            return Err(Errno::EINVAL);
        }
        let current = self.current_vblank();
        let target = if w.kind & RELATIVE != 0 {
            current.wrapping_add(w.sequence)
        } else if w.sequence.wrapping_sub(current) as i32 > 0 {
            w.sequence
        } else if w.kind & NEXTONMISS != 0 {
            current.wrapping_add(1)
        } else {
            current
        };
        // At most a second of real-time waiting.
        let hz = 1_000_000_000 / self.frame_time().as_nanos().max(1) as u32;
        let target = if self.kms.realtime.is_some() && target.wrapping_sub(current) > hz {
            current.wrapping_add(hz)
        } else {
            target
        };
        if w.kind & EVENT != 0 {
            self.event_room(file, 32)?;
        }
        self.reach_vblank(target);
        if w.kind & EVENT != 0 {
            self.queue_event(file, vblank_event(EVENT_VBLANK, w.signal, target))?;
        }
        // The reply: type, sequence, tval_sec, tval_usec over the request.
        let t = now();
        w.sequence = target;
        w.signal = t.as_secs();
        w.usec = i64::from(t.subsec_micros());
        a.put(&w)
    }
}
