//! Properties and blobs: the DRM core's standard properties on the connector, the CRTC
//! and the planes (drm_connector.c, drm_crtc.c, drm_plane.c, drm_mode_config.c's
//! drm_mode_create_standard_properties; Linux 6.1), what OBJ_GETPROPERTIES, GETPROPERTY
//! and GETCONNECTOR report of them, and property blobs (drm_property.c).
//!
//! * **Ids.** Properties are 1 to 22 (the kernel makes them before any object);
//!   the planes' IN_FORMATS blobs are 33 and 34. Blobs clients create (and the blobs of
//!   modes set by the legacy SETCRTC) take ids from the counter framebuffers use, as the
//!   kernel's one object idr does.
//! * **Atomic properties** (flag DRM_MODE_PROP_ATOMIC: the planes' FB_ID, CRTC_ID,
//!   SRC_*, CRTC_*, IN_FENCE_FD; the CRTC's ACTIVE, MODE_ID, OUT_FENCE_PTR; the
//!   connector's CRTC_ID) are listed only to a file with DRM_CLIENT_CAP_ATOMIC
//!   (drm_mode_object_get_properties).
//! * **Blobs** a client creates are its own: DESTROYPROPBLOB of another's is EPERM, and
//!   they go when the file closes (an unknown one is ENOENT); a blob whose mode the CRTC shows lives on until the
//!   CRTC stops showing it (the state holds a reference). Their bytes are bounded: 16
//!   MiB in all (ENOMEM past it: the model's bound; Linux bounds them by memory).

use super::uapi::{CreateBlob, GetBlob, GetProperty, ObjGetProperties, PropertyEnum};
use super::*;

/// DRM_MODE_PROP_RANGE.
const RANGE: u32 = 1 << 1;
/// DRM_MODE_PROP_IMMUTABLE.
const IMMUTABLE: u32 = 1 << 2;
/// DRM_MODE_PROP_ENUM.
const ENUM: u32 = 1 << 3;
/// DRM_MODE_PROP_BLOB.
const BLOB: u32 = 1 << 4;
/// DRM_MODE_PROP_OBJECT.
const OBJECT: u32 = 1 << 6;
/// DRM_MODE_PROP_SIGNED_RANGE.
const SIGNED_RANGE: u32 = 2 << 6;
/// DRM_MODE_PROP_ATOMIC.
pub(super) const ATOMIC: u32 = 0x8000_0000;

// Object types (drm_mode.h).
/// DRM_MODE_OBJECT_CRTC.
pub const OBJECT_CRTC: u32 = 0xcccc_cccc;
/// DRM_MODE_OBJECT_CONNECTOR.
pub const OBJECT_CONNECTOR: u32 = 0xc0c0_c0c0;
/// DRM_MODE_OBJECT_ENCODER.
pub const OBJECT_ENCODER: u32 = 0xe0e0_e0e0;
/// DRM_MODE_OBJECT_PROPERTY.
pub const OBJECT_PROPERTY: u32 = 0xb0b0_b0b0;
/// DRM_MODE_OBJECT_FB.
pub const OBJECT_FB: u32 = 0xfbfb_fbfb;
/// DRM_MODE_OBJECT_BLOB.
pub const OBJECT_BLOB: u32 = 0xbbbb_bbbb;
/// DRM_MODE_OBJECT_PLANE.
pub const OBJECT_PLANE: u32 = 0xeeee_eeee;

// The property ids.
/// The connector's EDID (none: a virtual connector).
pub const EDID: u32 = 1;
/// The connector's DPMS.
pub const DPMS: u32 = 2;
/// The connector's TILE (none).
pub const TILE: u32 = 3;
/// The connector's link-status.
pub const LINK_STATUS: u32 = 4;
/// The connector's non-desktop.
pub const NON_DESKTOP: u32 = 5;
/// A plane's type.
pub const TYPE: u32 = 6;
/// SRC_X.
pub const SRC_X: u32 = 7;
/// SRC_Y.
pub const SRC_Y: u32 = 8;
/// SRC_W.
pub const SRC_W: u32 = 9;
/// SRC_H.
pub const SRC_H: u32 = 10;
/// CRTC_X.
pub const CRTC_X: u32 = 11;
/// CRTC_Y.
pub const CRTC_Y: u32 = 12;
/// CRTC_W.
pub const CRTC_W: u32 = 13;
/// CRTC_H.
pub const CRTC_H: u32 = 14;
/// A plane's FB_ID.
pub const FB_ID: u32 = 15;
/// A plane's IN_FENCE_FD.
pub const IN_FENCE_FD: u32 = 16;
/// A plane's or the connector's CRTC_ID.
pub const CRTC_ID: u32 = 17;
/// The CRTC's ACTIVE.
pub const ACTIVE: u32 = 18;
/// The CRTC's MODE_ID.
pub const MODE_ID: u32 = 19;
/// The CRTC's OUT_FENCE_PTR.
pub const OUT_FENCE_PTR: u32 = 20;
/// The CRTC's VRR_ENABLED.
pub const VRR_ENABLED: u32 = 21;
/// A plane's IN_FORMATS.
pub const IN_FORMATS: u32 = 22;
/// The primary plane's IN_FORMATS blob.
pub const PRIMARY_FORMATS_BLOB: u32 = 33;
/// The cursor plane's IN_FORMATS blob.
pub const CURSOR_FORMATS_BLOB: u32 = 34;

/// A property: its name, flags, values (a range's bounds, an enum's values, an
/// object property's type) and enum names.
pub struct Prop {
    /// Its name.
    pub name: &'static str,
    /// DRM_MODE_PROP_* flags.
    pub flags: u32,
    /// Its values.
    pub values: &'static [u64],
    /// Its enum values and their names.
    pub enums: &'static [(u64, &'static str)],
}

const fn prop(name: &'static str, flags: u32, values: &'static [u64]) -> Prop {
    Prop {
        name,
        flags,
        values,
        enums: &[],
    }
}

const I32_MIN: u64 = i32::MIN as i64 as u64;
const I32_MAX: u64 = i32::MAX as u64;

/// Property `id`.
pub fn property(id: u32) -> Option<Prop> {
    Some(match id {
        EDID => prop("EDID", BLOB | IMMUTABLE, &[]),
        DPMS => Prop {
            name: "DPMS",
            flags: ENUM,
            values: &[0, 1, 2, 3],
            enums: &[(0, "On"), (1, "Standby"), (2, "Suspend"), (3, "Off")],
        },
        TILE => prop("TILE", BLOB | IMMUTABLE, &[]),
        LINK_STATUS => Prop {
            name: "link-status",
            flags: ENUM,
            values: &[0, 1],
            enums: &[(0, "Good"), (1, "Bad")],
        },
        NON_DESKTOP => prop("non-desktop", RANGE | IMMUTABLE, &[0, 1]),
        TYPE => Prop {
            name: "type",
            flags: ENUM | IMMUTABLE,
            values: &[0, 1, 2],
            enums: &[(0, "Overlay"), (1, "Primary"), (2, "Cursor")],
        },
        SRC_X => prop("SRC_X", RANGE | ATOMIC, &[0, u32::MAX as u64]),
        SRC_Y => prop("SRC_Y", RANGE | ATOMIC, &[0, u32::MAX as u64]),
        SRC_W => prop("SRC_W", RANGE | ATOMIC, &[0, u32::MAX as u64]),
        SRC_H => prop("SRC_H", RANGE | ATOMIC, &[0, u32::MAX as u64]),
        CRTC_X => prop("CRTC_X", SIGNED_RANGE | ATOMIC, &[I32_MIN, I32_MAX]),
        CRTC_Y => prop("CRTC_Y", SIGNED_RANGE | ATOMIC, &[I32_MIN, I32_MAX]),
        CRTC_W => prop("CRTC_W", RANGE | ATOMIC, &[0, I32_MAX]),
        CRTC_H => prop("CRTC_H", RANGE | ATOMIC, &[0, I32_MAX]),
        FB_ID => prop("FB_ID", OBJECT | ATOMIC, &[OBJECT_FB as u64]),
        IN_FENCE_FD => prop("IN_FENCE_FD", SIGNED_RANGE | ATOMIC, &[u64::MAX, I32_MAX]),
        CRTC_ID => prop("CRTC_ID", OBJECT | ATOMIC, &[OBJECT_CRTC as u64]),
        ACTIVE => prop("ACTIVE", RANGE | ATOMIC, &[0, 1]),
        MODE_ID => prop("MODE_ID", BLOB | ATOMIC, &[]),
        OUT_FENCE_PTR => prop("OUT_FENCE_PTR", RANGE | ATOMIC, &[0, u64::MAX]),
        VRR_ENABLED => prop("VRR_ENABLED", RANGE, &[0, 1]),
        IN_FORMATS => prop("IN_FORMATS", BLOB | IMMUTABLE, &[]),
        _ => return None,
    })
}

/// The properties attached to object `id`, in the order the kernel attaches them
/// (drm_connector_init, drm_crtc_init_with_planes, drm_universal_plane_init); `None`
/// for an object without properties.
pub fn attached(id: u32) -> Option<&'static [u32]> {
    match id {
        // No EDID: drm_connector_init attaches none to a virtual connector.
        CONNECTOR => Some(&[DPMS, LINK_STATUS, NON_DESKTOP, TILE, CRTC_ID]),
        CRTC => Some(&[ACTIVE, MODE_ID, OUT_FENCE_PTR, VRR_ENABLED]),
        PRIMARY_PLANE | CURSOR_PLANE => Some(&[
            TYPE,
            FB_ID,
            IN_FENCE_FD,
            CRTC_ID,
            CRTC_X,
            CRTC_Y,
            CRTC_W,
            CRTC_H,
            SRC_X,
            SRC_Y,
            SRC_W,
            SRC_H,
            IN_FORMATS,
        ]),
        _ => None,
    }
}

/// Writes `vals` to the user array at `ptr` for as many as `room` holds
/// (put_user element by element, as the property getters do).
fn put_some<T: Copy>(ptr: u64, room: u32, vals: &[T]) -> Result<(), Errno> {
    for (i, v) in vals.iter().take(room as usize).enumerate() {
        user::write(ptr + (i * size_of::<T>()) as u64, v)?;
    }
    Ok(())
}

impl Kernel {
    /// The type of object `id` (drm_mode_object_find), if there is one.
    pub(super) fn object_type(&self, id: u32) -> Option<u32> {
        match id {
            CONNECTOR => Some(OBJECT_CONNECTOR),
            CRTC => Some(OBJECT_CRTC),
            ENCODER => Some(OBJECT_ENCODER),
            PRIMARY_PLANE | CURSOR_PLANE => Some(OBJECT_PLANE),
            PRIMARY_FORMATS_BLOB | CURSOR_FORMATS_BLOB => Some(OBJECT_BLOB),
            id if property(id).is_some() => Some(OBJECT_PROPERTY),
            id if self.kms.fbs.contains_key(&id) => Some(OBJECT_FB),
            id if self.kms.blobs.contains_key(&id) => Some(OBJECT_BLOB),
            _ => None,
        }
    }

    /// Object `id` of type `ty` (DRM_MODE_OBJECT_ANY, 0, matches any), ENOENT if there
    /// is none.
    pub(super) fn find_object(&self, id: u32, ty: u32) -> Result<u32, Errno> {
        match self.object_type(id) {
            Some(t) if ty == 0 || t == ty => Ok(t),
            _ => Err(Errno::ENOENT),
        }
    }

    /// Whether `value` is one property `prop` may take (drm_property_change_valid_get):
    /// a range's or signed range's bounds, an enum's values, 0 or an existing object of
    /// the property's type, 0 or an existing blob.
    pub(super) fn value_valid(&self, prop: u32, value: u64) -> bool {
        let Some(p) = property(prop) else {
            return false;
        };
        match p.flags & 0xffc0 {
            OBJECT => {
                value == 0
                    || u32::try_from(value)
                        .is_ok_and(|id| self.object_type(id) == Some(p.values[0] as u32))
            }
            SIGNED_RANGE => (p.values[0] as i64..=p.values[1] as i64).contains(&(value as i64)),
            _ if p.flags & RANGE != 0 => (p.values[0]..=p.values[1]).contains(&value),
            _ if p.flags & ENUM != 0 => p.values.contains(&value),
            _ if p.flags & BLOB != 0 => {
                value == 0 || u32::try_from(value).is_ok_and(|b| self.blob(b).is_some())
            }
            _ => false,
        }
    }

    /// Whether `file` set DRM_CLIENT_CAP_ATOMIC.
    pub(super) fn is_atomic(&self, file: u64) -> bool {
        self.kms.caps.get(&file).is_some_and(|c| c.atomic)
    }

    /// Property `prop`'s value on object `id` in the current state.
    pub(super) fn prop_value(&mut self, id: u32, prop: u32) -> u64 {
        let s = self.kms.state;
        let plane = s.plane(id).copied().unwrap_or_default();
        match prop {
            EDID | TILE | LINK_STATUS | NON_DESKTOP => 0,
            // On while the connector drives an active CRTC.
            DPMS => {
                if s.crtc.active && s.connector_crtc != 0 {
                    0
                } else {
                    3
                }
            }
            TYPE => {
                if id == PRIMARY_PLANE {
                    1
                } else {
                    2
                }
            }
            SRC_X => u64::from(plane.src_x),
            SRC_Y => u64::from(plane.src_y),
            SRC_W => u64::from(plane.src_w),
            SRC_H => u64::from(plane.src_h),
            CRTC_X => plane.crtc_x as i64 as u64,
            CRTC_Y => plane.crtc_y as i64 as u64,
            CRTC_W => u64::from(plane.crtc_w),
            CRTC_H => u64::from(plane.crtc_h),
            FB_ID => u64::from(plane.fb),
            // An in-fence is consumed by its commit: it reads back as -1.
            IN_FENCE_FD => u64::MAX,
            CRTC_ID if id == CONNECTOR => u64::from(s.connector_crtc),
            CRTC_ID => u64::from(plane.crtc),
            ACTIVE => u64::from(s.crtc.active),
            MODE_ID => u64::from(self.mode_blob()),
            OUT_FENCE_PTR => 0,
            VRR_ENABLED => u64::from(s.crtc.vrr_enabled),
            IN_FORMATS if id == PRIMARY_PLANE => u64::from(PRIMARY_FORMATS_BLOB),
            IN_FORMATS => u64::from(CURSOR_FORMATS_BLOB),
            _ => 0,
        }
    }

    /// The blob of the CRTC's mode (0 with none), made when first asked for after a
    /// legacy mode set.
    fn mode_blob(&mut self) -> u32 {
        let Some(mode) = self.kms.state.crtc.mode else {
            return 0;
        };
        if self.kms.state.crtc.mode_blob == 0 {
            let bytes = super::bytes_of(&mode);
            if let Ok(id) = self.kms.new_id() {
                self.kms.blobs.insert(
                    id,
                    Blob {
                        owner: None,
                        data: bytes,
                    },
                );
                self.kms.state.crtc.mode_blob = id;
            }
        }
        self.kms.state.crtc.mode_blob
    }

    /// The properties of object `id` a file sees (`atomic`: it set the atomic cap), with
    /// their values.
    pub(super) fn object_props(&mut self, id: u32, atomic: bool) -> Vec<(u32, u64)> {
        attached(id)
            .unwrap_or(&[])
            .iter()
            .filter(|p| atomic || property(**p).is_some_and(|p| p.flags & ATOMIC == 0))
            .map(|&p| (p, self.prop_value(id, p)))
            .collect()
    }

    /// Writes the properties of object `id` to the client's arrays when they have room
    /// for each (drm_mode_object_get_properties); the count.
    pub(super) fn put_props(
        &mut self,
        file: u64,
        id: u32,
        (props_ptr, values_ptr, room): (u64, u64, u32),
    ) -> Result<u32, Errno> {
        let atomic = self.is_atomic(file);
        let props = self.object_props(id, atomic);
        let ids: Vec<u32> = props.iter().map(|p| p.0).collect();
        let values: Vec<u64> = props.iter().map(|p| p.1).collect();
        put_some(props_ptr, room, &ids)?;
        put_some(values_ptr, room, &values)?;
        Ok(props.len() as u32)
    }

    /// OBJ_GETPROPERTIES (drm_mode_obj_get_properties_ioctl): ENOENT for an unknown
    /// object or one of another type, EINVAL for one without properties.
    pub(super) fn obj_get_properties(
        &mut self,
        file: u64,
        a: &mut user::Args,
    ) -> Result<(), Errno> {
        let mut o: ObjGetProperties = a.get();
        self.find_object(o.obj_id, o.obj_type)?;
        if attached(o.obj_id).is_none() {
            return Err(Errno::EINVAL);
        }
        o.count_props = self.put_props(
            file,
            o.obj_id,
            (o.props_ptr, o.prop_values_ptr, o.count_props),
        )?;
        a.put(&o)
    }

    /// GETPROPERTY (drm_mode_getproperty_ioctl): the name, flags, the values and enum
    /// entries that fit; a blob property reports no enum entries.
    pub(super) fn get_property(&mut self, a: &mut user::Args) -> Result<(), Errno> {
        let mut g: GetProperty = a.get();
        let p = property(g.prop_id).ok_or(Errno::ENOENT)?;
        g.name = [0; 32];
        g.name[..p.name.len()].copy_from_slice(p.name.as_bytes());
        g.flags = p.flags;
        put_some(g.values_ptr, g.count_values, p.values)?;
        g.count_values = p.values.len() as u32;
        if p.flags & (ENUM | 1 << 5) != 0 {
            let entries: Vec<PropertyEnum> = p
                .enums
                .iter()
                .map(|(v, n)| {
                    let mut name = [0u8; 32];
                    name[..n.len()].copy_from_slice(n.as_bytes());
                    PropertyEnum { value: *v, name }
                })
                .collect();
            put_some(g.enum_blob_ptr, g.count_enum_blobs, &entries)?;
            g.count_enum_blobs = entries.len() as u32;
        }
        if p.flags & BLOB != 0 {
            g.count_enum_blobs = 0;
        }
        a.put(&g)
    }

    /// Blob `id`'s bytes, if there is such a blob.
    pub(super) fn blob(&self, id: u32) -> Option<Vec<u8>> {
        match id {
            PRIMARY_FORMATS_BLOB => Some(formats::in_formats_blob(self.platform, true)),
            CURSOR_FORMATS_BLOB => Some(formats::in_formats_blob(self.platform, false)),
            id => self.kms.blobs.get(&id).map(|b| b.data.clone()),
        }
    }

    /// GETPROPBLOB (drm_mode_getblob_ioctl): ENOENT for an unknown blob; the bytes are
    /// copied only when the client's length is the blob's.
    pub(super) fn get_prop_blob(&mut self, a: &mut user::Args) -> Result<(), Errno> {
        let mut g: GetBlob = a.get();
        let data = self.blob(g.blob_id).ok_or(Errno::ENOENT)?;
        if g.length as usize == data.len() {
            user::write_bytes(g.data, &data)?;
        }
        g.length = data.len() as u32;
        a.put(&g)
    }

    /// CREATEPROPBLOB (drm_mode_createblob_ioctl): a length of 0 EINVAL; the blob is the
    /// file's.
    pub(super) fn create_prop_blob(&mut self, file: u64, a: &mut user::Args) -> Result<(), Errno> {
        /// The bytes all blobs may hold (the model's bound).
        const MAX_BYTES: usize = 16 << 20;
        let mut c: CreateBlob = a.get();
        if c.length == 0 || c.length > i32::MAX as u32 - 64 {
            return Err(Errno::EINVAL);
        }
        let held: usize = self.kms.blobs.values().map(|b| b.data.len()).sum();
        if held + c.length as usize > MAX_BYTES {
            return Err(Errno::ENOMEM);
        }
        let mut data = vec![0u8; c.length as usize];
        user::read_bytes(c.data, &mut data)?;
        let id = self.kms.new_id()?;
        self.kms.blobs.insert(
            id,
            Blob {
                owner: Some(file),
                data,
            },
        );
        c.blob_id = id;
        a.put(&c)
    }

    /// DESTROYPROPBLOB (drm_mode_destroyblob_ioctl): an unknown blob ENOENT, another
    /// file's (or the kernel's) EPERM.
    pub(super) fn destroy_prop_blob(&mut self, file: u64, a: &mut user::Args) -> Result<(), Errno> {
        let id: u32 = a.get();
        if id == PRIMARY_FORMATS_BLOB || id == CURSOR_FORMATS_BLOB {
            return Err(Errno::EPERM);
        }
        match self.kms.blobs.get(&id) {
            None => Err(Errno::ENOENT),
            Some(b) if b.owner != Some(file) => Err(Errno::EPERM),
            Some(_) => {
                self.release_blob(id);
                Ok(())
            }
        }
    }

    /// Blob `id` is given up by its file: gone, unless the CRTC shows its mode (then
    /// the kernel holds it until the CRTC stops).
    pub(super) fn release_blob(&mut self, id: u32) {
        if self.kms.state.crtc.mode_blob == id {
            if let Some(b) = self.kms.blobs.get_mut(&id) {
                b.owner = None;
            }
        } else {
            self.kms.blobs.remove(&id);
        }
    }
}
