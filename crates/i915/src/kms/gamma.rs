//! The CRTC's legacy gamma table (GETGAMMA/SETGAMMA; drm_color_mgmt.c's
//! drm_mode_gamma_get_ioctl and drm_mode_gamma_set_ioctl, Linux 6.1, and i915's 256-entry
//! legacy palette): three arrays of 256 16-bit entries, a linear ramp (entry i = i << 8,
//! drm_mode_crtc_set_gamma_size) until a client sets one. Scanout passes each 8-bit
//! channel through its table (the entry's top 8 bits).

use super::uapi::CrtcLut;
use super::*;

/// Entries per channel (GETCRTC's gamma_size; i915's legacy LUT).
pub const GAMMA_SIZE: u32 = 256;

/// The three tables, red, green and blue.
pub type Gamma = [[u16; GAMMA_SIZE as usize]; 3];

/// The ramp a CRTC starts with.
pub fn linear() -> Gamma {
    let mut g = [[0u16; GAMMA_SIZE as usize]; 3];
    for t in &mut g {
        for (i, e) in t.iter_mut().enumerate() {
            *e = (i as u16) << 8;
        }
    }
    g
}

/// An RGB8 pixel through `g`.
pub fn apply(g: &Gamma, rgb: [u8; 3]) -> [u8; 3] {
    [0, 1, 2].map(|c| (g[c][usize::from(rgb[c])] >> 8) as u8)
}

impl Kernel {
    /// GETGAMMA: an unknown CRTC ENOENT, a size other than the CRTC's EINVAL; the
    /// three tables copied out.
    pub(super) fn get_gamma(&mut self, a: &mut user::Args) -> Result<(), Errno> {
        let l: CrtcLut = a.get();
        if l.crtc_id != CRTC {
            return Err(Errno::ENOENT);
        }
        if l.gamma_size != GAMMA_SIZE {
            return Err(Errno::EINVAL);
        }
        let g = self.kms.gamma;
        for (ptr, t) in [l.red, l.green, l.blue].into_iter().zip(&g) {
            user::write(ptr, t)?;
        }
        Ok(())
    }

    /// SETGAMMA (master only): an unknown CRTC ENOENT, a size other than the CRTC's
    /// EINVAL; the three tables copied in and shown (the frame scanned out again).
    pub(super) fn set_gamma(&mut self, a: &mut user::Args) -> Result<(), Errno> {
        let l: CrtcLut = a.get();
        if l.crtc_id != CRTC {
            return Err(Errno::ENOENT);
        }
        if l.gamma_size != GAMMA_SIZE {
            return Err(Errno::EINVAL);
        }
        let mut g = linear();
        for (ptr, t) in [l.red, l.green, l.blue].into_iter().zip(&mut g) {
            *t = user::read(ptr)?;
        }
        self.kms.gamma = g;
        if self.kms.state.crtc.active {
            self.next_vblank();
            self.scan_out();
        }
        Ok(())
    }
}
