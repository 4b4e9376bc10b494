//! The display's unit tests.

use super::events::EVENT_FLIP_COMPLETE;
use super::formats::fourcc;
use super::*;
use crate::uapi::*;

/// DRM_MODE_FB_MODIFIERS.
const FB_MODIFIERS: u32 = 2;

pub(super) const CARD: i32 = 1100;
pub(super) const OTHER: i32 = 1101;
pub(super) const RENDER: i32 = 1102;

pub(super) fn req(nr: u32, size: usize) -> u64 {
    (3u64 << 30) | ((size as u64) << 16) | ((DRM_IOCTL_BASE as u64) << 8) | nr as u64
}

pub(super) fn call<T>(k: &mut Kernel, fd: i32, nr: u32, arg: &mut T) -> Result<(), Errno> {
    k.ioctl(fd, req(nr, size_of::<T>()), arg as *mut T as u64)
}

/// card0 opened twice (the first file master), the render node once, on Ivy Bridge.
fn kernel() -> Kernel {
    kernel_on(crate::platform::Platform::IvyBridge)
}

/// card0 opened twice (the first file master), the render node once, on `platform`,
/// with a 1024x768 display.
pub(super) fn kernel_on(platform: crate::platform::Platform) -> Kernel {
    let mut k = Kernel::for_platform(platform);
    k.kms = Kms::default();
    k.kms.display = None;
    k.kms.realtime = None;
    k.kms.modes = vec![
        ModeInfo::new(1024, 768, true),
        ModeInfo::new(800, 600, false),
        ModeInfo::new(640, 480, false),
    ];
    k.kms.state.crtc.mode = Some(k.kms.modes[0]);
    k.open_file(CARD, Node::Primary);
    k.open_file(OTHER, Node::Primary);
    k.open_file(RENDER, Node::Render);
    k
}

/// SETCRTC on CARD: framebuffer `fb` shown in the connector's preferred mode.
pub(super) fn show(k: &mut Kernel, fb: u32) {
    let conn = CONNECTOR;
    let mut set = ModeCrtc {
        set_connectors_ptr: &conn as *const u32 as u64,
        count_connectors: 1,
        crtc_id: CRTC,
        fb_id: fb,
        mode_valid: 1,
        mode: connector_modes(k)[0],
        ..ModeCrtc::default()
    };
    call(k, CARD, MODE_SETCRTC, &mut set).unwrap();
}

pub(super) fn connector_modes(k: &mut Kernel) -> Vec<ModeInfo> {
    let mut c = GetConnector {
        connector_id: CONNECTOR,
        ..GetConnector::default()
    };
    call(k, CARD, MODE_GETCONNECTOR, &mut c).unwrap();
    // As libdrm's drmModeGetConnector: arrays for the counts the first call gave.
    let mut modes = vec![ModeInfo::default(); c.count_modes as usize];
    let mut encoders = vec![0u32; c.count_encoders as usize];
    let mut props = vec![0u32; c.count_props as usize];
    let mut values = vec![0u64; c.count_props as usize];
    c.modes_ptr = modes.as_mut_ptr() as u64;
    c.encoders_ptr = encoders.as_mut_ptr() as u64;
    c.props_ptr = props.as_mut_ptr() as u64;
    c.prop_values_ptr = values.as_mut_ptr() as u64;
    call(k, CARD, MODE_GETCONNECTOR, &mut c).unwrap();
    assert_eq!(encoders, [ENCODER]);
    // The connector's properties a legacy client sees (drm_connector_init's, less the
    // atomic CRTC_ID, and no EDID on a virtual connector): DPMS (On: the CRTC is lit),
    // link-status, non-desktop, TILE.
    assert_eq!(props, [2, 4, 5, 3]);
    assert_eq!(values[0], if k.kms.state.crtc.active { 0 } else { 3 });
    modes
}

/// A 1024x768 XRGB8888 dumb buffer whose pixel (x, y) is red x, green y, blue 0x80,
/// stored at `offset(x, y)`; its handle.
pub(super) fn pattern(k: &mut Kernel, offset: impl Fn(u64, u64) -> u64) -> u32 {
    pattern_rows(k, 768, offset)
}

/// A `width` x `height` 32-bit dumb buffer made on CARD.
pub(super) fn dumb(k: &mut Kernel, width: u32, height: u32) -> CreateDumb {
    let mut d = CreateDumb {
        width,
        height,
        bpp: 32,
        ..CreateDumb::default()
    };
    call(k, CARD, MODE_CREATE_DUMB, &mut d).unwrap();
    d
}

/// [`pattern`] in a dumb buffer of `rows` rows of 4096 bytes (768 or more).
pub(super) fn pattern_rows(k: &mut Kernel, rows: u32, offset: impl Fn(u64, u64) -> u64) -> u32 {
    let d = dumb(k, 1024, rows);
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

pub(super) fn add_fb(k: &mut Kernel, handle: u32, modifier: Option<u64>) -> Result<u32, Errno> {
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

pub(super) fn read_png(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    (info.width, info.height, buf)
}

/// The scanned-out frame holds the pattern: pixel (x, y) is (x & 255, y & 255, 0x80).
pub(super) fn assert_pattern(path: &std::path::Path) {
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
    // Without DRM_CLIENT_CAP_UNIVERSAL_PLANES a file sees overlay planes only: none.
    call(&mut k, CARD, MODE_GETPLANERESOURCES, &mut pr).unwrap();
    assert_eq!((pr.count_planes, planes), (0, [0, 0]));
    let mut cap = DrmGetCap {
        capability: 2,
        value: 1,
    };
    call(&mut k, CARD, DRM_SET_CLIENT_CAP, &mut cap).unwrap();
    pr.count_planes = 2;
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
    // The mode set completed at the display's first vblank, the flip at the second.
    assert_eq!((dw(24), dw(28)), (2, CRTC));
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
    k.kms.state.off();
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
    show(&mut k, fb);
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
    // An async flip takes X-tiled framebuffers only (this one is linear).
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
    // Removing the framebuffer shown disables the primary plane; the CRTC stays lit
    // (atomic_remove_fb's plane-only commit, which i915 takes).
    let mut id = fb;
    call(&mut k, CARD, MODE_RMFB, &mut id).unwrap();
    let mut c = ModeCrtc {
        crtc_id: CRTC,
        ..ModeCrtc::default()
    };
    call(&mut k, CARD, MODE_GETCRTC, &mut c).unwrap();
    assert_eq!((c.fb_id, c.mode_valid), (0, 1));
}
