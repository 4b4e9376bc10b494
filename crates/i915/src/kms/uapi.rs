//! The KMS ioctls' argument structures, as include/uapi/drm/drm_mode.h and drm.h lay
//! them out (Linux 6.1), checked by size.

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

/// struct drm_mode_obj_get_properties.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct ObjGetProperties {
    pub props_ptr: u64,
    pub prop_values_ptr: u64,
    pub count_props: u32,
    pub obj_id: u32,
    pub obj_type: u32,
    pub pad: u32,
}

/// struct drm_mode_get_property.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct GetProperty {
    pub values_ptr: u64,
    pub enum_blob_ptr: u64,
    pub prop_id: u32,
    pub flags: u32,
    pub name: [u8; 32],
    pub count_values: u32,
    pub count_enum_blobs: u32,
}

/// struct drm_mode_property_enum.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct PropertyEnum {
    pub value: u64,
    pub name: [u8; 32],
}

/// struct drm_mode_get_blob.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct GetBlob {
    pub blob_id: u32,
    pub length: u32,
    pub data: u64,
}

/// struct drm_mode_create_blob.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct CreateBlob {
    pub data: u64,
    pub length: u32,
    pub blob_id: u32,
}

/// struct drm_mode_atomic.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct Atomic {
    pub flags: u32,
    pub count_objs: u32,
    pub objs_ptr: u64,
    pub count_props_ptr: u64,
    pub props_ptr: u64,
    pub prop_values_ptr: u64,
    pub reserved: u64,
    pub user_data: u64,
}

/// struct drm_mode_obj_set_property.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct ObjSetProperty {
    pub value: u64,
    pub prop_id: u32,
    pub obj_id: u32,
    pub obj_type: u32,
    pub pad: u32,
}

/// struct drm_mode_connector_set_property.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct ConnectorSetProperty {
    pub value: u64,
    pub prop_id: u32,
    pub connector_id: u32,
}

/// struct drm_mode_set_plane (note `src_h` before `src_w`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct SetPlane {
    pub plane_id: u32,
    pub crtc_id: u32,
    pub fb_id: u32,
    pub flags: u32,
    pub crtc_x: i32,
    pub crtc_y: i32,
    pub crtc_w: u32,
    pub crtc_h: u32,
    pub src_x: u32,
    pub src_y: u32,
    pub src_h: u32,
    pub src_w: u32,
}

/// struct drm_mode_cursor2 (struct drm_mode_cursor is its first 28 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct Cursor {
    pub flags: u32,
    pub crtc_id: u32,
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub handle: u32,
    pub hot_x: i32,
    pub hot_y: i32,
}

/// struct drm_mode_crtc_lut.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs, reason = "the fields are drm_mode.h\'s own")]
pub struct CrtcLut {
    pub crtc_id: u32,
    pub gamma_size: u32,
    pub red: u64,
    pub green: u64,
    pub blue: u64,
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
    assert!(size_of::<ObjGetProperties>() == 32);
    assert!(size_of::<GetProperty>() == 64);
    assert!(size_of::<PropertyEnum>() == 40);
    assert!(size_of::<GetBlob>() == 16);
    assert!(size_of::<CreateBlob>() == 16);
    assert!(size_of::<Atomic>() == 56);
    assert!(size_of::<ObjSetProperty>() == 24);
    assert!(size_of::<ConnectorSetProperty>() == 16);
    assert!(size_of::<SetPlane>() == 48);
    assert!(size_of::<Cursor>() == 36);
    assert!(size_of::<CrtcLut>() == 32);
};
