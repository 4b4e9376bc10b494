//! Atomic mode setting, properties, planes and the cursor: unit tests.

use super::events::EVENT_FLIP_COMPLETE;
use super::formats::fourcc;
use super::props::*;
use super::tests::*;
use super::*;
use crate::platform::Platform;
use crate::uapi::*;

/// An atomic request as libdrm's drmModeAtomicCommit passes it: objects in order, the
/// count of each one's properties, then all property ids and values.
#[derive(Default)]
struct Req {
    objs: Vec<u32>,
    counts: Vec<u32>,
    props: Vec<u32>,
    values: Vec<u64>,
}

impl Req {
    fn add(mut self, obj: u32, prop: u32, value: u64) -> Req {
        if self.objs.last() != Some(&obj) {
            self.objs.push(obj);
            self.counts.push(0);
        }
        *self.counts.last_mut().unwrap() += 1;
        self.props.push(prop);
        self.values.push(value);
        self
    }

    /// The primary plane showing all of `fb` on the whole 1024x768 CRTC.
    fn plane(self, fb: u32, (x, y): (i32, i32), (w, h): (u32, u32)) -> Req {
        let p = PRIMARY_PLANE;
        self.add(p, FB_ID, fb.into())
            .add(p, CRTC_ID, CRTC.into())
            .add(p, SRC_X, 0)
            .add(p, SRC_Y, 0)
            .add(p, SRC_W, u64::from(w) << 16)
            .add(p, SRC_H, u64::from(h) << 16)
            .add(p, CRTC_X, x as i64 as u64)
            .add(p, CRTC_Y, y as i64 as u64)
            .add(p, CRTC_W, w.into())
            .add(p, CRTC_H, h.into())
    }

    fn commit(&self, k: &mut Kernel, fd: i32, flags: u32, user_data: u64) -> Result<(), Errno> {
        let mut a = Atomic {
            flags,
            count_objs: self.objs.len() as u32,
            objs_ptr: self.objs.as_ptr() as u64,
            count_props_ptr: self.counts.as_ptr() as u64,
            props_ptr: self.props.as_ptr() as u64,
            prop_values_ptr: self.values.as_ptr() as u64,
            reserved: 0,
            user_data,
        };
        call(k, fd, MODE_ATOMIC, &mut a)
    }
}

const TEST_ONLY: u32 = 0x100;
const NONBLOCK: u32 = 0x200;
const ALLOW_MODESET: u32 = 0x400;

fn set_cap(k: &mut Kernel, fd: i32, capability: u64, value: u64) -> Result<(), Errno> {
    let mut c = DrmGetCap { capability, value };
    call(k, fd, DRM_SET_CLIENT_CAP, &mut c)
}

/// An object's properties as libdrm's drmModeObjectGetProperties reads them (count,
/// then arrays of that size), with their names.
fn properties(k: &mut Kernel, fd: i32, obj: u32, ty: u32) -> Vec<(String, u64)> {
    let mut o = ObjGetProperties {
        obj_id: obj,
        obj_type: ty,
        ..ObjGetProperties::default()
    };
    call(k, fd, MODE_OBJ_GETPROPERTIES, &mut o).unwrap();
    let mut ids = vec![0u32; o.count_props as usize];
    let mut values = vec![0u64; o.count_props as usize];
    o.props_ptr = ids.as_mut_ptr() as u64;
    o.prop_values_ptr = values.as_mut_ptr() as u64;
    call(k, fd, MODE_OBJ_GETPROPERTIES, &mut o).unwrap();
    ids.iter()
        .zip(values)
        .map(|(&id, v)| {
            let mut g = GetProperty {
                prop_id: id,
                ..GetProperty::default()
            };
            call(k, fd, MODE_GETPROPERTY, &mut g).unwrap();
            let end = g.name.iter().position(|&b| b == 0).unwrap_or(32);
            (String::from_utf8_lossy(&g.name[..end]).into_owned(), v)
        })
        .collect()
}

fn value(props: &[(String, u64)], name: &str) -> u64 {
    props.iter().find(|p| p.0 == name).unwrap().1
}

fn blob(k: &mut Kernel, id: u32) -> Vec<u8> {
    let mut g = GetBlob {
        blob_id: id,
        ..GetBlob::default()
    };
    call(k, CARD, MODE_GETPROPBLOB, &mut g).unwrap();
    let mut data = vec![0u8; g.length as usize];
    g.data = data.as_mut_ptr() as u64;
    call(k, CARD, MODE_GETPROPBLOB, &mut g).unwrap();
    data
}

fn create_blob(k: &mut Kernel, fd: i32, data: &[u8]) -> Result<u32, Errno> {
    let mut c = CreateBlob {
        data: data.as_ptr() as u64,
        length: data.len() as u32,
        blob_id: 0,
    };
    call(k, fd, MODE_CREATEPROPBLOB, &mut c)?;
    Ok(c.blob_id)
}

fn mode_blob(k: &mut Kernel, mode: &ModeInfo) -> u32 {
    create_blob(k, CARD, &bytes_of(mode)).unwrap()
}

/// The frame the display shows now, composed.
fn frame(k: &Kernel) -> Vec<u8> {
    k.compose(1024, 768).unwrap()
}

fn rgb_at(rgb: &[u8], x: usize, y: usize) -> [u8; 3] {
    let i = 3 * (y * 1024 + x);
    [rgb[i], rgb[i + 1], rgb[i + 2]]
}

/// The pattern's pixel (x, y) (`tests::pattern`).
fn pat(x: usize, y: usize) -> [u8; 3] {
    [(x & 255) as u8, (y & 255) as u8, 0x80]
}

/// The properties of the planes, the CRTC and the connector as drm_mode_object_get_
/// properties lists them (the atomic ones only to an atomic file), their values, their
/// enum names, and the blobs behind MODE_ID and IN_FORMATS (worked by hand from
/// drm_mode.h's struct drm_format_modifier_blob and i915's plane format lists).
#[test]
fn objects_report_their_properties_and_blobs() {
    for platform in [Platform::IvyBridge, Platform::IceLake] {
        let mut k = kernel_on(platform);
        // A legacy file: the plane's type and IN_FORMATS only.
        let legacy = properties(&mut k, CARD, PRIMARY_PLANE, OBJECT_PLANE);
        let names: Vec<&str> = legacy.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(names, ["type", "IN_FORMATS"]);
        set_cap(&mut k, CARD, 3, 1).unwrap();
        let plane = properties(&mut k, CARD, PRIMARY_PLANE, OBJECT_PLANE);
        assert_eq!(plane.len(), 13);
        assert_eq!(value(&plane, "type"), 1, "DRM_PLANE_TYPE_PRIMARY");
        assert_eq!(value(&plane, "IN_FENCE_FD"), u64::MAX, "-1");
        let cursor = properties(&mut k, CARD, CURSOR_PLANE, 0);
        assert_eq!(value(&cursor, "type"), 2, "DRM_PLANE_TYPE_CURSOR");
        let crtc = properties(&mut k, CARD, CRTC, OBJECT_CRTC);
        assert_eq!(value(&crtc, "ACTIVE"), 1);
        let mode = blob(&mut k, value(&crtc, "MODE_ID") as u32);
        assert_eq!(mode, bytes_of(&k.kms.modes[0]));
        let conn = properties(&mut k, CARD, CONNECTOR, OBJECT_CONNECTOR);
        assert_eq!(value(&conn, "CRTC_ID"), u64::from(CRTC));
        assert_eq!(value(&conn, "DPMS"), 0, "On");
        // The type enum's names.
        let mut names = [PropertyEnum::default(); 3];
        let mut g = GetProperty {
            prop_id: TYPE,
            enum_blob_ptr: names.as_mut_ptr() as u64,
            count_enum_blobs: 3,
            ..GetProperty::default()
        };
        call(&mut k, CARD, MODE_GETPROPERTY, &mut g).unwrap();
        assert_eq!(&names[1].name[..8], b"Primary\0");
        assert_eq!(names[2].value, 2);
        // IN_FORMATS: version 1, the formats at 24, the modifiers after.
        let b = blob(&mut k, value(&plane, "IN_FORMATS") as u32);
        let dw = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let qw = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        assert_eq!((dw(0), dw(4), dw(12)), (1, 0, 24));
        let formats: Vec<u32> = (0..dw(8) as usize).map(|i| dw(24 + 4 * i)).collect();
        assert!(formats.contains(&fourcc(b"XR24")));
        let mods: Vec<(u64, u64)> = (0..dw(16) as usize)
            .map(|i| {
                (
                    qw(dw(20) as usize + 24 * i),
                    qw(dw(20) as usize + 24 * i + 16),
                )
            })
            .collect();
        match platform {
            // i9xx primary planes: X-tiled and linear, every format.
            Platform::IvyBridge => {
                assert_eq!(formats.len(), 5);
                assert_eq!(mods, [(0x1f, 1 << 56 | 1), (0x1f, 0)]);
            }
            // CCS for the four 8-bit RGB formats only (indices 1 to 4 of RG16, XR24,
            // XB24, AR24, AB24, XR30, XB30, AR30, AB30).
            Platform::IceLake => {
                assert_eq!(
                    formats[..5],
                    [
                        fourcc(b"RG16"),
                        fourcc(b"XR24"),
                        fourcc(b"XB24"),
                        fourcc(b"AR24"),
                        fourcc(b"AB24")
                    ]
                );
                assert_eq!(mods[0], (0b1_1110, 1 << 56 | 4));
                assert_eq!(mods[1], (0x1ff, 1 << 56 | 2));
            }
        }
        // Objects without properties, unknown ones, another type.
        let mut o = ObjGetProperties {
            obj_id: ENCODER,
            ..ObjGetProperties::default()
        };
        assert_eq!(
            call(&mut k, CARD, MODE_OBJ_GETPROPERTIES, &mut o),
            Err(Errno::EINVAL)
        );
        o.obj_id = 77;
        assert_eq!(
            call(&mut k, CARD, MODE_OBJ_GETPROPERTIES, &mut o),
            Err(Errno::ENOENT)
        );
        (o.obj_id, o.obj_type) = (CRTC, OBJECT_PLANE);
        assert_eq!(
            call(&mut k, CARD, MODE_OBJ_GETPROPERTIES, &mut o),
            Err(Errno::ENOENT)
        );
        let mut g = GetProperty {
            prop_id: 99,
            ..GetProperty::default()
        };
        assert_eq!(
            call(&mut k, CARD, MODE_GETPROPERTY, &mut g),
            Err(Errno::ENOENT)
        );
    }
}

/// Blobs belong to the file that made them: another's destroy is EPERM (the kernel's
/// IN_FORMATS blobs too), an unknown one ENOENT, a length of 0 EINVAL; a short read reports the length without copying.
#[test]
fn blobs_are_their_files_own() {
    let mut k = kernel_on(Platform::IvyBridge);
    let id = create_blob(&mut k, CARD, b"hello").unwrap();
    assert!(id >= 100);
    assert_eq!(create_blob(&mut k, CARD, b""), Err(Errno::EINVAL));
    let mut short = [0u8; 2];
    let mut g = GetBlob {
        blob_id: id,
        length: 2,
        data: short.as_mut_ptr() as u64,
    };
    call(&mut k, CARD, MODE_GETPROPBLOB, &mut g).unwrap();
    assert_eq!((g.length, short), (5, [0, 0]));
    assert_eq!(blob(&mut k, id), b"hello");
    let mut d = id;
    assert_eq!(
        call(&mut k, OTHER, MODE_DESTROYPROPBLOB, &mut d),
        Err(Errno::EPERM)
    );
    let mut kernel_blob = PRIMARY_FORMATS_BLOB;
    assert_eq!(
        call(&mut k, CARD, MODE_DESTROYPROPBLOB, &mut kernel_blob),
        Err(Errno::EPERM)
    );
    call(&mut k, CARD, MODE_DESTROYPROPBLOB, &mut d).unwrap();
    assert_eq!(
        call(&mut k, CARD, MODE_DESTROYPROPBLOB, &mut d),
        Err(Errno::ENOENT)
    );
}

/// kmscube's atomic path: a mode set with ALLOW_MODESET (connector CRTC_ID, MODE_ID,
/// ACTIVE, the plane's ten properties), then non-blocking flips carrying an in-fence
/// and asking for an out-fence and an event; the out-fence is a signalled sync_file,
/// the event names the CRTC and the user data, and each commit shows its frame.
#[test]
fn an_atomic_mode_set_and_flips_show_frames_with_fences_and_events() {
    let mut k = kernel_on(Platform::IvyBridge);
    let a = pattern(&mut k, |xb, y| y * 4096 + xb);
    let fa = add_fb(&mut k, a, None).unwrap();
    let b = pattern(&mut k, |xb, y| {
        (y / 8) * 4096 * 8 + (xb / 512) * 4096 + (y % 8) * 512 + xb % 512
    });
    let fb = add_fb(&mut k, b, Some(MOD_X_TILED)).unwrap();
    let mode = connector_modes(&mut k)[0];
    let blob = mode_blob(&mut k, &mode);
    let modeset = Req::default()
        .add(CONNECTOR, CRTC_ID, CRTC.into())
        .add(CRTC, MODE_ID, blob.into())
        .add(CRTC, ACTIVE, 1)
        .plane(fa, (0, 0), (1024, 768));
    // Not without the cap.
    assert_eq!(
        modeset.commit(&mut k, CARD, ALLOW_MODESET, 0),
        Err(Errno::EINVAL)
    );
    set_cap(&mut k, CARD, 3, 1).unwrap();
    set_cap(&mut k, OTHER, 3, 1).unwrap();
    assert_eq!(
        modeset.commit(&mut k, OTHER, ALLOW_MODESET, 0),
        Err(Errno::EACCES)
    );
    modeset.commit(&mut k, CARD, ALLOW_MODESET, 0).unwrap();
    let shown = frame(&k);
    for (x, y) in [(0, 0), (700, 300), (1023, 767)] {
        assert_eq!(rgb_at(&shown, x, y), pat(x, y));
    }
    // The flip: an in-fence (a signalled sync_file), an out-fence pointer, an event.
    // SAFETY: plain syscall.
    let in_fence = unsafe { libc::eventfd(1, 0) };
    let mut out_fence: i32 = 0;
    let flip = Req::default()
        .add(CRTC, OUT_FENCE_PTR, &mut out_fence as *mut i32 as u64)
        .add(PRIMARY_PLANE, FB_ID, fb.into())
        .add(PRIMARY_PLANE, IN_FENCE_FD, in_fence as u64);
    let vblank = k.kms.vblanks;
    flip.commit(&mut k, CARD, NONBLOCK | PAGE_FLIP_EVENT, 0xcafe)
        .unwrap();
    assert!(out_fence > 2, "an out-fence fd: {out_fence}");
    let mut pfd = libc::pollfd {
        fd: out_fence,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: polling our own fd for no time.
    assert_eq!(unsafe { libc::poll(&mut pfd, 1, 0) }, 1, "signalled");
    let e = k.read_events(CARD, 64).unwrap();
    let dw = |i: usize| u32::from_le_bytes(e[i..i + 4].try_into().unwrap());
    assert_eq!((dw(0), e.len()), (EVENT_FLIP_COMPLETE, 32));
    assert_eq!(u64::from_le_bytes(e[8..16].try_into().unwrap()), 0xcafe);
    assert_eq!((dw(24), dw(28)), (vblank + 1, CRTC));
    assert_eq!(
        rgb_at(&frame(&k), 600, 20),
        pat(600, 20),
        "the X-tiled frame"
    );
    assert_eq!(
        properties(&mut k, CARD, PRIMARY_PLANE, 0)[1],
        ("FB_ID".into(), fb.into())
    );
    // SAFETY: closing our own fds.
    unsafe {
        libc::close(in_fence);
        libc::close(out_fence);
    }
    // An in-fence that is not a sync_file, and one set twice.
    let mut pipe = [0i32; 2];
    // SAFETY: plain syscall into our array.
    assert_eq!(unsafe { libc::pipe(pipe.as_mut_ptr()) }, 0);
    let bad = Req::default().add(PRIMARY_PLANE, IN_FENCE_FD, pipe[0] as u64);
    assert_eq!(bad.commit(&mut k, CARD, 0, 0), Err(Errno::EINVAL));
    // SAFETY: closing our own fds.
    unsafe {
        libc::close(pipe[0]);
        libc::close(pipe[1]);
    }
    // An event with no CRTC in the request (a property of the cursor, which is on no
    // CRTC); a property of the connector brings its CRTC in, changed or not, and the
    // event comes; TEST_ONLY with an event.
    let none = Req::default().add(CURSOR_PLANE, SRC_X, 0);
    assert_eq!(
        none.commit(&mut k, CARD, PAGE_FLIP_EVENT, 0),
        Err(Errno::EINVAL)
    );
    let link = Req::default().add(CONNECTOR, LINK_STATUS, 0);
    link.commit(&mut k, CARD, PAGE_FLIP_EVENT, 7).unwrap();
    assert_eq!(k.read_events(CARD, 64).unwrap()[8], 7);
    assert_eq!(
        flip_to(fa).commit(&mut k, CARD, TEST_ONLY | PAGE_FLIP_EVENT, 0),
        Err(Errno::EINVAL)
    );
    // TEST_ONLY checks and changes nothing.
    flip_to(fa).commit(&mut k, CARD, TEST_ONLY, 0).unwrap();
    assert_eq!(k.kms.state.primary.fb, fb);
}

fn flip_to(fb: u32) -> Req {
    Req::default().add(PRIMARY_PLANE, FB_ID, fb.into())
}

/// What the atomic checks refuse, each with drm_atomic_plane_check's, drm_atomic_
/// crtc_check's, drm_atomic_helper_check_modeset's or i915's errno; and what Ice Lake's
/// planes allow that Ivy Bridge's do not: a primary plane smaller than the CRTC (the
/// rest black).
#[test]
fn atomic_checks_refuse_what_the_kernel_refuses() {
    for platform in [Platform::IvyBridge, Platform::IceLake] {
        let mut k = kernel_on(platform);
        set_cap(&mut k, CARD, 3, 2).unwrap();
        let h = pattern(&mut k, |xb, y| y * 4096 + xb);
        let fb = add_fb(&mut k, h, None).unwrap();
        let ok = Req::default().plane(fb, (0, 0), (1024, 768));
        // A change of routing or activity needs ALLOW_MODESET.
        let off = Req::default()
            .add(CRTC, ACTIVE, 0)
            .add(CRTC, MODE_ID, 0)
            .add(CONNECTOR, CRTC_ID, 0);
        assert_eq!(off.commit(&mut k, CARD, 0, 0), Err(Errno::EINVAL));
        // Active without a mode; a mode without the connector.
        let no_mode = Req::default().add(CRTC, MODE_ID, 0);
        assert_eq!(
            no_mode.commit(&mut k, CARD, ALLOW_MODESET, 0),
            Err(Errno::EINVAL)
        );
        let unrouted = Req::default().add(CONNECTOR, CRTC_ID, 0);
        assert_eq!(
            unrouted.commit(&mut k, CARD, ALLOW_MODESET, 0),
            Err(Errno::EINVAL)
        );
        // Values the property cannot take (drm_property_change_valid_get): a CRTC_ID
        // naming no CRTC, an FB_ID naming no framebuffer, a MODE_ID naming no blob,
        // ACTIVE of 2, a CRTC_X past an int; a property the object lacks; a bad mode blob.
        for (obj, prop, v) in [
            (PRIMARY_PLANE, CRTC_ID, 7),
            (PRIMARY_PLANE, FB_ID, 999),
            (CRTC, MODE_ID, 999),
            (CRTC, ACTIVE, 2),
            (PRIMARY_PLANE, CRTC_X, 1 << 40),
        ] {
            let bad = Req::default().add(obj, prop, v);
            assert_eq!(
                bad.commit(&mut k, CARD, ALLOW_MODESET, 0),
                Err(Errno::EINVAL),
                "{prop} = {v}"
            );
        }
        let foreign = Req::default().add(CRTC, FB_ID, u64::from(fb));
        assert_eq!(foreign.commit(&mut k, CARD, 0, 0), Err(Errno::ENOENT));
        let junk = create_blob(&mut k, CARD, &[1, 2, 3]).unwrap();
        let bad_mode = Req::default().add(CRTC, MODE_ID, junk.into());
        assert_eq!(
            bad_mode.commit(&mut k, CARD, ALLOW_MODESET, 0),
            Err(Errno::EINVAL)
        );
        // A CRTC without a framebuffer, a source outside it, scaling.
        let bare = Req::default().add(PRIMARY_PLANE, CRTC_ID, CRTC.into());
        assert_eq!(bare.commit(&mut k, CARD, 0, 0), Err(Errno::EINVAL));
        let outside =
            Req::default()
                .plane(fb, (0, 0), (1024, 768))
                .add(PRIMARY_PLANE, SRC_X, 1 << 16);
        assert_eq!(outside.commit(&mut k, CARD, 0, 0), Err(Errno::ENOSPC));
        let scaled = Req::default()
            .plane(fb, (0, 0), (1024, 768))
            .add(PRIMARY_PLANE, CRTC_W, 512);
        assert_eq!(scaled.commit(&mut k, CARD, 0, 0), Err(Errno::ERANGE));
        ok.commit(&mut k, CARD, 0, 0).unwrap();
        // A window: 512x384 at (100, 50).
        let window = Req::default().plane(fb, (100, 50), (512, 384));
        match platform {
            Platform::IvyBridge => {
                assert_eq!(window.commit(&mut k, CARD, 0, 0), Err(Errno::EINVAL));
            }
            Platform::IceLake => {
                window.commit(&mut k, CARD, 0, 0).unwrap();
                let f = frame(&k);
                assert_eq!(rgb_at(&f, 99, 50), [0, 0, 0], "black outside the plane");
                assert_eq!(rgb_at(&f, 100, 50), pat(0, 0));
                assert_eq!(rgb_at(&f, 611, 433), pat(511, 383));
                assert_eq!(rgb_at(&f, 612, 433), [0, 0, 0]);
            }
        }
        // Off, with ALLOW_MODESET: an event for a CRTC off before and after is EINVAL.
        let off = off
            .add(PRIMARY_PLANE, FB_ID, 0)
            .add(PRIMARY_PLANE, CRTC_ID, 0);
        off.commit(&mut k, CARD, ALLOW_MODESET, 0).unwrap();
        assert!(!k.kms.state.crtc.active);
        let again = Req::default().add(CRTC, ACTIVE, 0);
        assert_eq!(
            again.commit(&mut k, CARD, PAGE_FLIP_EVENT, 0),
            Err(Errno::EINVAL)
        );
    }
}

/// The cursor: CURSOR with a 64x64 ARGB8888 object and a position, blended over the
/// primary plane as premultiplied alpha (worked by hand below); an unsupported size
/// EINVAL; handle 0 hides it; only the master may move it.
#[test]
fn the_cursor_is_blended_over_the_frame() {
    let mut k = kernel_on(Platform::IvyBridge);
    let h = pattern(&mut k, |xb, y| y * 4096 + xb);
    let fb = add_fb(&mut k, h, None).unwrap();
    show(&mut k, fb);
    // A 64x64 cursor, every pixel premultiplied ARGB (0x80, 0x80, 0, 0): half-covering
    // red.
    let d = dumb(&mut k, 64, 64);
    let px = vec![0x8080_0000u32; 64 * 64];
    let mut w = I915GemPread {
        handle: d.handle,
        pad: 0,
        offset: 0,
        size: 4 * 64 * 64,
        data_ptr: px.as_ptr() as u64,
    };
    call(&mut k, CARD, DRM_COMMAND_BASE + I915_GEM_PWRITE, &mut w).unwrap();
    let mut c = Cursor {
        flags: 1 | 2,
        crtc_id: CRTC,
        x: 10,
        y: 20,
        width: 64,
        height: 64,
        handle: d.handle,
        ..Cursor::default()
    };
    assert_eq!(
        call(&mut k, OTHER, MODE_CURSOR2, &mut c),
        Err(Errno::EACCES)
    );
    call(&mut k, CARD, MODE_CURSOR2, &mut c).unwrap();
    let f = frame(&k);
    // Below (10, 20) the pattern is (10, 20, 128); over it: 128 + 10 x 127 / 255 = 133,
    // 0 + 20 x 127 / 255 = 10, 0 + 128 x 127 / 255 = 64 (rounded).
    assert_eq!(rgb_at(&f, 10, 20), [133, 10, 64]);
    assert_eq!(rgb_at(&f, 9, 20), pat(9, 20), "left of the cursor");
    assert_eq!(rgb_at(&f, 74, 84), pat(74, 84), "past its corner");
    // MOVE alone keeps the image.
    c.flags = 2;
    (c.x, c.y) = (500, 400);
    call(&mut k, CARD, MODE_CURSOR2, &mut c).unwrap();
    assert_eq!(rgb_at(&frame(&k), 10, 20), pat(10, 20));
    assert_ne!(rgb_at(&frame(&k), 500, 400), pat(500, 400));
    // A 32x32 cursor: no such size on i915.
    (c.flags, c.width, c.height) = (1, 32, 32);
    assert_eq!(call(&mut k, CARD, MODE_CURSOR2, &mut c), Err(Errno::EINVAL));
    // Handle 0 hides it, and its internal framebuffer goes with it.
    let fbs = k.kms.fbs.len();
    (c.flags, c.handle) = (1, 0);
    call(&mut k, CARD, MODE_CURSOR2, &mut c).unwrap();
    assert_eq!(rgb_at(&frame(&k), 500, 400), pat(500, 400));
    assert_eq!(k.kms.fbs.len(), fbs - 1);
    c.flags = 0;
    assert_eq!(call(&mut k, CARD, MODE_CURSOR2, &mut c), Err(Errno::EINVAL));
}

/// DPMS through the legacy property setter turns the CRTC off and on keeping its mode;
/// SETPLANE disables and re-enables the primary plane.
#[test]
fn dpms_and_setplane_change_what_is_shown() {
    let mut k = kernel_on(Platform::IvyBridge);
    let h = pattern(&mut k, |xb, y| y * 4096 + xb);
    let fb = add_fb(&mut k, h, None).unwrap();
    let mut s = SetPlane {
        plane_id: PRIMARY_PLANE,
        crtc_id: CRTC,
        fb_id: fb,
        crtc_w: 1024,
        crtc_h: 768,
        src_w: 1024 << 16,
        src_h: 768 << 16,
        ..SetPlane::default()
    };
    call(&mut k, CARD, MODE_SETPLANE, &mut s).unwrap();
    assert_eq!(rgb_at(&frame(&k), 3, 4), pat(3, 4));
    let mut p = ConnectorSetProperty {
        value: 3,
        prop_id: DPMS,
        connector_id: CONNECTOR,
    };
    call(&mut k, CARD, MODE_SETPROPERTY, &mut p).unwrap();
    assert!(!k.kms.state.crtc.active && k.kms.state.crtc.mode.is_some());
    let mut w = WaitVblank::default();
    assert_eq!(
        call(&mut k, CARD, WAIT_VBLANK, &mut w),
        Err(Errno::EINVAL),
        "off"
    );
    p.value = 0;
    call(&mut k, CARD, MODE_SETPROPERTY, &mut p).unwrap();
    assert!(k.kms.state.crtc.active);
    s.fb_id = 0;
    call(&mut k, CARD, MODE_SETPLANE, &mut s).unwrap();
    assert_eq!(rgb_at(&frame(&k), 3, 4), [0, 0, 0]);
    s.fb_id = 999;
    assert_eq!(
        call(&mut k, CARD, MODE_SETPLANE, &mut s),
        Err(Errno::ENOENT)
    );
    let mut bad = ObjSetProperty {
        value: 0,
        prop_id: TYPE,
        obj_id: PRIMARY_PLANE,
        obj_type: OBJECT_PLANE,
        pad: 0,
    };
    assert_eq!(
        call(&mut k, CARD, MODE_OBJ_SETPROPERTY, &mut bad),
        Err(Errno::EINVAL),
        "immutable"
    );
}

/// A Y_TILED_CCS framebuffer on Ice Lake: its control surface in plane 1 of the same
/// object; scanned out from the main surface, Y-tiled (the layout worked by hand: 4 KiB
/// tiles of 32 rows of 128 bytes, in 16-byte columns of 32 rows). Ivy Bridge has no
/// such modifier, and Y tiling is not for its planes.
#[test]
fn ccs_framebuffers_scan_out_on_ice_lake_only() {
    let y_tiled = |xb: u64, y: u64| {
        (y / 32) * 4096 * 32 + (xb / 128) * 4096 + (xb % 128 / 16) * 512 + (y % 32) * 16 + xb % 16
    };
    for platform in [Platform::IvyBridge, Platform::IceLake] {
        let mut k = kernel_on(platform);
        let h = pattern_rows(&mut k, 800, y_tiled);
        let mut f = FbCmd2 {
            width: 1024,
            height: 768,
            pixel_format: XRGB8888,
            fb_id: 0,
            flags: 2, // DRM_MODE_FB_MODIFIERS
            handles: [h, h, 0, 0],
            pitches: [4096, 128, 0, 0],
            offsets: [0, 4096 * 768, 0, 0],
            modifier: [MOD_Y_TILED_CCS, MOD_Y_TILED_CCS, 0, 0],
        };
        let r = call(&mut k, CARD, MODE_ADDFB2, &mut f);
        if platform == Platform::IvyBridge {
            assert_eq!(r, Err(Errno::EINVAL));
            assert_eq!(add_fb(&mut k, h, Some(MOD_Y_TILED)), Err(Errno::EINVAL));
            continue;
        }
        r.unwrap();
        show(&mut k, f.fb_id);
        let shown = frame(&k);
        for (x, y) in [(0, 0), (5, 3), (37, 33), (700, 300), (1023, 767)] {
            assert_eq!(rgb_at(&shown, x, y), pat(x, y), "({x}, {y})");
        }
        // The control surface elsewhere, a modifier of the wrong format, too small.
        let mut bad = f;
        bad.handles[1] = pattern(&mut k, |xb, y| y * 4096 + xb);
        assert_eq!(
            call(&mut k, CARD, MODE_ADDFB2, &mut bad),
            Err(Errno::EINVAL)
        );
        let mut bad = f;
        bad.pixel_format = RGB565;
        assert_eq!(
            call(&mut k, CARD, MODE_ADDFB2, &mut bad),
            Err(Errno::EINVAL)
        );
        let mut bad = f;
        bad.offsets[1] = 4096 * 799;
        assert_eq!(
            call(&mut k, CARD, MODE_ADDFB2, &mut bad),
            Err(Errno::EINVAL)
        );
    }
}

/// Real-time vblanks: a wait for three vblanks lasts at least two frames of 60 Hz (the
/// first may be partly past), and its reply's sequence is three on.
#[test]
fn realtime_vblanks_pace_waits() {
    let mut k = kernel_on(Platform::IvyBridge);
    k.kms.realtime = Some(std::time::Instant::now());
    let mut w = WaitVblank {
        kind: 1,
        sequence: 0,
        ..WaitVblank::default()
    };
    call(&mut k, CARD, WAIT_VBLANK, &mut w).unwrap();
    let before = w.sequence;
    let t = std::time::Instant::now();
    w = WaitVblank {
        kind: 1,
        sequence: 3,
        ..WaitVblank::default()
    };
    call(&mut k, CARD, WAIT_VBLANK, &mut w).unwrap();
    assert!(w.sequence >= before + 3);
    assert!(t.elapsed() >= std::time::Duration::from_millis(2 * 1000 / 60));
}

/// With a capture, every frame shown goes into the trace as a data write and a
/// CMD_AUB_DUMP_BMP (both trace forms): a replay of the trace gives the frames back, in
/// order, pixel for pixel, as the display composed them.
#[test]
fn captured_frames_replay_as_shown() {
    for platform in [Platform::IvyBridge, Platform::IceLake] {
        let path = std::env::temp_dir().join(format!(
            "gtsim-kms-capture-{}-{platform:?}.aub",
            std::process::id()
        ));
        let mut k = kernel_on(platform);
        let writer = match platform {
            Platform::IvyBridge => {
                crate::kernel::CaptureWriter::Legacy(gtsim_gpu::aub::AubWriter::new("t", 0x162))
            }
            Platform::IceLake => crate::kernel::CaptureWriter::Execlist(
                gtsim_gpu::aub::MemtraceWriter::new("t", 0x8a52),
            ),
        };
        k.capture = Some(crate::kernel::Capture {
            file: std::fs::File::create(&path).unwrap(),
            writer,
        });
        let a = pattern(&mut k, |xb, y| y * 4096 + xb);
        let fa = add_fb(&mut k, a, None).unwrap();
        show(&mut k, fa);
        let first = frame(&k);
        // A second frame: the same framebuffer, the cursor over it.
        let d = dumb(&mut k, 64, 64);
        let mut c = Cursor {
            flags: 3,
            crtc_id: CRTC,
            x: 5,
            y: 6,
            width: 64,
            height: 64,
            handle: d.handle,
            ..Cursor::default()
        };
        call(&mut k, CARD, MODE_CURSOR2, &mut c).unwrap();
        let second = frame(&k);
        drop(k);
        let bytes = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let trace = gtsim_gpu::aub::parse(&bytes);
        assert!(trace.error.is_none(), "{:?}", trace.error);
        let r = gtsim_gpu::replay::replay(&trace, |_, _| {});
        assert_eq!(r.display_frames.len(), 2, "{platform:?}");
        for (got, want) in r.display_frames.iter().zip([first, second]) {
            let (w, h, rgba) = got.as_ref().unwrap();
            assert_eq!((*w, *h), (1024, 768));
            let rgb: Vec<u8> = rgba.chunks(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
            assert!(rgb == want, "{platform:?}: a frame differs");
            assert!(rgba.chunks(4).all(|p| p[3] == 255));
        }
        // The cursor (transparent: zeros) left the second frame as the first.
        assert_eq!(rgb_at(&frame_of(&r, 1), 5, 6), pat(5, 6));
    }
}

fn frame_of(r: &gtsim_gpu::replay::Replay, i: usize) -> Vec<u8> {
    let (_, _, rgba) = r.display_frames[i].as_ref().unwrap();
    rgba.chunks(4).flat_map(|p| [p[0], p[1], p[2]]).collect()
}

/// The legacy gamma tables: a linear ramp at start (entry i = i << 8, drm_mode_crtc_set_
/// gamma_size), replaced by SETGAMMA (master only, the CRTC's size only) and applied at
/// scanout: an inverted red table turns the pattern's red 10 into 245.
#[test]
fn the_gamma_tables_read_back_and_shape_the_frame() {
    let mut k = kernel_on(Platform::IvyBridge);
    let h = pattern(&mut k, |xb, y| y * 4096 + xb);
    let fb = add_fb(&mut k, h, None).unwrap();
    show(&mut k, fb);
    let mut t = [[0u16; 256]; 3];
    let mut l = CrtcLut {
        crtc_id: CRTC,
        gamma_size: 256,
        red: t[0].as_mut_ptr() as u64,
        green: t[1].as_mut_ptr() as u64,
        blue: t[2].as_mut_ptr() as u64,
    };
    call(&mut k, CARD, MODE_GETGAMMA, &mut l).unwrap();
    assert_eq!((t[0][5], t[1][255], t[2][0]), (0x500, 0xff00, 0));
    let mut inv = t;
    for (i, e) in inv[0].iter_mut().enumerate() {
        *e = ((255 - i) as u16) << 8;
    }
    let mut s = CrtcLut {
        red: inv[0].as_ptr() as u64,
        green: inv[1].as_ptr() as u64,
        blue: inv[2].as_ptr() as u64,
        ..l
    };
    assert_eq!(
        call(&mut k, OTHER, MODE_SETGAMMA, &mut s),
        Err(Errno::EACCES)
    );
    call(&mut k, CARD, MODE_SETGAMMA, &mut s).unwrap();
    assert_eq!(rgb_at(&frame(&k), 10, 20), [245, 20, 0x80]);
    call(&mut k, CARD, MODE_GETGAMMA, &mut l).unwrap();
    assert_eq!(t[0][10], 245 << 8);
    s.gamma_size = 1024;
    assert_eq!(
        call(&mut k, CARD, MODE_SETGAMMA, &mut s),
        Err(Errno::EINVAL)
    );
    l.crtc_id = 7;
    assert_eq!(
        call(&mut k, CARD, MODE_GETGAMMA, &mut l),
        Err(Errno::ENOENT)
    );
}

/// Details the DRM core and i915 answer in their own way: SETCRTC's ERANGE for a
/// position past 16 bits; ADDFB2's handle 0 (EINVAL), plane 0 offset (EINVAL), rows
/// past 4 GiB (ERANGE), an object tiled other than the modifier (EINVAL); dumb buffers
/// of 3 bytes a pixel (EINVAL); a cursor 64 wide and 32 high (taken); WAIT_VBLANK's
/// FLIP bit (EINVAL); an async flip between X-tiled framebuffers (taken, at once); event
/// times on CLOCK_MONOTONIC; GETRESOURCES copying as many ids as fit.
#[test]
fn kernel_details_are_the_kernels() {
    let mut k = kernel_on(Platform::IvyBridge);
    let x_tiled =
        |xb: u64, y: u64| (y / 8) * 4096 * 8 + (xb / 512) * 4096 + (y % 8) * 512 + xb % 512;
    let h = pattern(&mut k, x_tiled);
    let fa = add_fb(&mut k, h, Some(MOD_X_TILED)).unwrap();
    let h2 = pattern(&mut k, x_tiled);
    let fb = add_fb(&mut k, h2, Some(MOD_X_TILED)).unwrap();
    show(&mut k, fa);
    let conn = CONNECTOR;
    let mut set = ModeCrtc {
        set_connectors_ptr: &conn as *const u32 as u64,
        count_connectors: 1,
        crtc_id: CRTC,
        fb_id: fa,
        x: 1 << 16,
        mode_valid: 1,
        mode: connector_modes(&mut k)[0],
        ..ModeCrtc::default()
    };
    assert_eq!(
        call(&mut k, CARD, MODE_SETCRTC, &mut set),
        Err(Errno::ERANGE)
    );
    let base = FbCmd2 {
        width: 1024,
        height: 768,
        pixel_format: XRGB8888,
        handles: [h, 0, 0, 0],
        pitches: [4096, 0, 0, 0],
        ..FbCmd2::default()
    };
    for (change, want) in [
        (
            &(|f: &mut FbCmd2| f.handles[0] = 0) as &dyn Fn(&mut FbCmd2),
            Errno::EINVAL,
        ),
        (&|f: &mut FbCmd2| f.offsets[0] = 4096, Errno::EINVAL),
        (&|f: &mut FbCmd2| f.pitches[0] = 1 << 23, Errno::ERANGE),
        (&|f: &mut FbCmd2| f.modifier[1] = 1, Errno::EINVAL),
    ] {
        let mut f = base;
        change(&mut f);
        assert_eq!(call(&mut k, CARD, MODE_ADDFB2, &mut f), Err(want), "{f:?}");
    }
    // An X-tiled object (SET_TILING) added as linear: the modifier is not its tiling.
    let mut t = I915GemSetTiling {
        handle: h,
        tiling_mode: 1,
        stride: 4096,
        swizzle_mode: 0,
    };
    let d = dumb(&mut k, 1024, 768);
    t.handle = d.handle;
    call(&mut k, CARD, DRM_COMMAND_BASE + I915_GEM_SET_TILING, &mut t).unwrap();
    let mut f = base;
    f.handles[0] = d.handle;
    f.flags = 2;
    assert_eq!(call(&mut k, CARD, MODE_ADDFB2, &mut f), Err(Errno::EINVAL));
    f.modifier[0] = MOD_X_TILED;
    call(&mut k, CARD, MODE_ADDFB2, &mut f).unwrap();
    // A framebuffer's object keeps its tiling.
    assert_eq!(
        call(&mut k, CARD, DRM_COMMAND_BASE + I915_GEM_SET_TILING, &mut t),
        Err(Errno::EBUSY)
    );
    let mut d24 = CreateDumb {
        width: 64,
        height: 64,
        bpp: 24,
        ..CreateDumb::default()
    };
    assert_eq!(
        call(&mut k, CARD, MODE_CREATE_DUMB, &mut d24),
        Err(Errno::EINVAL)
    );
    // A 64x32 cursor.
    let cd = dumb(&mut k, 64, 32);
    let mut c = Cursor {
        flags: 1,
        crtc_id: CRTC,
        width: 64,
        height: 32,
        handle: cd.handle,
        ..Cursor::default()
    };
    call(&mut k, CARD, MODE_CURSOR2, &mut c).unwrap();
    let mut w = WaitVblank {
        kind: 0x0800_0001,
        ..WaitVblank::default()
    };
    assert_eq!(call(&mut k, CARD, WAIT_VBLANK, &mut w), Err(Errno::EINVAL));
    // An async flip, with its event stamped on the monotonic clock.
    let vblank = k.kms.vblanks;
    let mut flip = PageFlip {
        crtc_id: CRTC,
        fb_id: fb,
        flags: 1 | 2,
        ..PageFlip::default()
    };
    call(&mut k, CARD, MODE_PAGE_FLIP, &mut flip).unwrap();
    assert_eq!(k.kms.vblanks, vblank, "no vblank waited for");
    let e = k.read_events(CARD, 64).unwrap();
    let sec = u32::from_le_bytes(e[16..20].try_into().unwrap());
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime into our own variable.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    assert!(
        (now.tv_sec - i64::from(sec)).abs() <= 1,
        "{sec} vs {}",
        now.tv_sec
    );
    // GETRESOURCES with room for one framebuffer id of three: the newest.
    let mut one = [0u32; 1];
    let mut r = CardRes {
        fb_id_ptr: one.as_mut_ptr() as u64,
        count_fbs: 1,
        ..CardRes::default()
    };
    call(&mut k, CARD, MODE_GETRESOURCES, &mut r).unwrap();
    assert_eq!((r.count_fbs, one[0]), (3, f.fb_id));
}
