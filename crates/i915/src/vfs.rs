//! The device files a real i915 machine has, made up: the DRM nodes and their sysfs
//! directory (facts: Linux sysfs for DRM minors; what libdrm's drmGetDevices2 and Mesa's
//! loader read, listed in shared/REAL_CLIENTS.md).
//!
//! The sysfs part is a real directory tree written once under the temp directory; paths
//! under `/sys/dev/char/226:{0,128}` are redirected there, so open, fopen, stat, access,
//! opendir, readlink and realpath all behave like the real thing. `/dev/dri` is redirected
//! to a directory listing `card0` and `renderD128`; the nodes themselves are emulated.

use crate::kernel::Node;
use std::path::PathBuf;

/// DRM character device major.
pub const DRM_MAJOR: u32 = 226;

/// What a path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Virtual {
    /// A DRM node to emulate.
    Node(Node),
    /// Redirected to this real path.
    Redirect(PathBuf),
}

/// PCI vendor of the emulated GPU (the device id and revision are the platform's:
/// [`crate::platform::Platform`]).
pub const PCI_VENDOR: u32 = 0x8086;

/// Root of the made-up tree: one per user and platform (`GTSIM_GEN`), since the tree
/// says which device it is.
pub fn root() -> PathBuf {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let platform = crate::platform::Platform::from_env().short();
    std::env::temp_dir().join(format!("gtsim-i915-{uid}-v1-{platform}"))
}

/// Classifies a path the client used.
pub fn classify(path: &str) -> Option<Virtual> {
    match path {
        "/dev/dri/renderD128" => return Some(Virtual::Node(Node::Render)),
        "/dev/dri/card0" => return Some(Virtual::Node(Node::Primary)),
        "/dev/dri" | "/dev/dri/" => return Some(Virtual::Redirect(root().join("dev/dri"))),
        _ => {}
    }
    for minor in ["226:128", "226:0"] {
        let base = format!("/sys/dev/char/{minor}");
        if let Some(rest) = path.strip_prefix(&base)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return Some(Virtual::Redirect(
                root().join(format!("sys/dev/char/{minor}{rest}")),
            ));
        }
    }
    None
}

/// Writes a file only if its content differs, atomically (write a temporary, rename), so
/// processes building the tree at the same time never see a half-written file.
fn put(path: &std::path::Path, content: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|c| c == content) {
        return Ok(());
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, content)?;
    std::fs::rename(&tmp, path)
}

/// Writes the tree (idempotent; every process may call it, concurrently).
pub fn build_tree() -> std::io::Result<()> {
    let r = root();
    let dri = r.join("dev/dri");
    std::fs::create_dir_all(&dri)?;
    for n in ["card0", "renderD128"] {
        put(&dri.join(n), "")?;
    }
    let slot = "0000:00:02.0";
    let platform = crate::platform::Platform::from_env();
    let (pci_device, pci_revision) = (platform.pci_device(), platform.pci_revision());
    let device_files = [
        ("vendor", format!("0x{PCI_VENDOR:04x}\n")),
        ("device", format!("0x{pci_device:04x}\n")),
        ("subsystem_vendor", format!("0x{PCI_VENDOR:04x}\n")),
        ("subsystem_device", "0x2010\n".to_string()),
        ("revision", format!("0x{pci_revision:02x}\n")),
        ("class", "0x030000\n".to_string()),
        (
            "uevent",
            format!(
                "DRIVER=i915\nPCI_CLASS=30000\nPCI_ID={PCI_VENDOR:04X}:{pci_device:04X}\nPCI_SUBSYS_ID={PCI_VENDOR:04X}:2010\nPCI_SLOT_NAME={slot}\nMODALIAS=pci:v0000{PCI_VENDOR:04X}d0000{pci_device:04X}sv0000{PCI_VENDOR:04X}sd00002010bc03sc00i00\n"
            ),
        ),
    ];
    for (minor, name) in [(128, "renderD128"), (0, "card0")] {
        let node = r.join(format!("sys/dev/char/{DRM_MAJOR}:{minor}"));
        let dev = node.join("device");
        std::fs::create_dir_all(dev.join("drm/card0"))?;
        std::fs::create_dir_all(dev.join("drm/renderD128"))?;
        put(
            &node.join("uevent"),
            &format!("MAJOR={DRM_MAJOR}\nMINOR={minor}\nDEVNAME=dri/{name}\nDEVTYPE=drm_minor\n"),
        )?;
        put(&node.join("dev"), &format!("{DRM_MAJOR}:{minor}\n"))?;
        for (f, content) in &device_files {
            put(&dev.join(f), content)?;
        }
        for (link, target) in [
            ("subsystem", "../../../../bus/pci"),
            ("driver", "../../../../bus/pci/drivers/i915"),
        ] {
            let p = dev.join(link);
            if std::fs::symlink_metadata(&p).is_err() {
                match std::os::unix::fs::symlink(target, &p) {
                    Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// `stat` of an emulated DRM node: a character device, major 226.
pub fn node_stat(node: Node) -> libc::stat {
    let minor = match node {
        Node::Render => 128,
        Node::Primary => 0,
    };
    // SAFETY: an all-zero stat is a valid value to fill in.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    st.st_mode = libc::S_IFCHR | 0o666;
    st.st_rdev = libc::makedev(DRM_MAJOR, minor);
    st.st_dev = libc::makedev(0, 6);
    st.st_ino = 0x6757_0000 + minor as u64;
    st.st_nlink = 1;
    st.st_blksize = 4096;
    st
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_classified() {
        assert_eq!(
            classify("/dev/dri/renderD128"),
            Some(Virtual::Node(Node::Render))
        );
        assert!(
            matches!(classify("/sys/dev/char/226:128/device/vendor"), Some(Virtual::Redirect(p)) if p.ends_with("sys/dev/char/226:128/device/vendor"))
        );
        assert_eq!(classify("/sys/dev/char/226:1280/x"), None);
        assert_eq!(classify("/etc/passwd"), None);
    }

    #[test]
    fn tree_has_what_libdrm_reads() {
        build_tree().unwrap();
        let dev = root().join("sys/dev/char/226:128/device");
        assert!(
            std::fs::read_to_string(dev.join("uevent"))
                .unwrap()
                .contains("PCI_ID=8086:0162")
        );
        assert_eq!(
            std::fs::read_to_string(dev.join("device")).unwrap(),
            "0x0162\n"
        );
        assert!(
            std::fs::read_link(dev.join("subsystem"))
                .unwrap()
                .ends_with("pci")
        );
        assert!(dev.join("drm").is_dir());
        assert_eq!(node_stat(Node::Render).st_rdev, libc::makedev(226, 128));
    }
}
