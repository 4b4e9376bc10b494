//! The JIT's disk cache: compiled programs kept across processes.
//!
//! Each process that runs a GL program compiles the same kernels again (every piglit
//! test compiles the driver's clear and blit kernels; a client run twice compiles its
//! shaders twice), and the optimized tier costs milliseconds per kernel (the Julia-set
//! kernel: about 18 ms). Mesa does the same for its own compilers (the shader disk cache
//! crocus and llvmpipe use, llvmpipe's holding host machine code too). Here a program's
//! machine code and relocations ([`MachineCode`]) are written to a file once compiled,
//! and a later process that meets the same program loads them instead of compiling
//! ([`super::code::HostCode::load`], the path fresh code takes too). Quick code found
//! there marks the program as hot before: it is optimized as soon as it is hot again
//! (`super::Tier::wants_optimizing`).
//!
//! An entry is found by a hash of its key and trusted only when its whole key matches:
//! the program's bytes, the tier, the host's code generator settings and CPU features,
//! and the identity of the gtsim build that compiled it (the path, size, inode and
//! modification and change times of the executable or library the JIT is part of), so
//! that a rebuilt gtsim never runs code an earlier build generated. A checksum over the file catches truncated or
//! damaged entries, which are ignored (and overwritten by the next compile). Entries
//! are written to a temporary file and renamed, so concurrent processes see whole
//! entries or none. The cache is an optimization only: any failure to read or write it
//! compiles as before, and the code is the same bits either way (Cranelift is
//! deterministic, and the key holds everything the code depends on).
//!
//! Location: `GTSIM_JIT_CACHE_DIR`, else `$XDG_CACHE_HOME/gtsim/jit`, else
//! `$HOME/.cache/gtsim/jit`; `GTSIM_JIT_CACHE=0` turns it off. The directory is created
//! readable by its owner only; like Mesa's cache, it holds code this process will run,
//! so it must not be writable by others. It is kept under [`MAX_BYTES`]: a store that
//! finds more deletes the oldest entries.

use super::Quality;
use super::code::{Kind, MachineCode, Reloc, Target};
use std::path::PathBuf;

/// The entry format's version (part of every entry).
const FORMAT: u32 = 1;

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"GTSIMJIT";

/// The largest entry read back (a larger file is not one of ours).
const MAX_ENTRY: u64 = 16 << 20;

/// The most the directory holds before a store deletes the oldest entries (down to
/// three quarters of it).
pub(crate) const MAX_BYTES: u64 = 64 << 20;

/// What an entry is for: everything its code depends on, compared whole on lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Key {
    bytes: Vec<u8>,
}

impl Key {
    /// The key of `program` (the bytes of the decoded instructions, with the encoding
    /// that decoded them) compiled at `quality` by a code generator whose settings and
    /// CPU features `isa` describes, with the host's DAZ support `daz`, by this build.
    pub(crate) fn new(
        program: &[u8],
        encoding: &str,
        quality: Quality,
        isa: &str,
        daz: bool,
    ) -> Key {
        let mut bytes = vec![];
        let mut field = |b: &[u8]| {
            bytes.extend_from_slice(&(b.len() as u64).to_le_bytes());
            bytes.extend_from_slice(b);
        };
        field(build_id().as_bytes());
        field(isa.as_bytes());
        field(encoding.as_bytes());
        field(&[quality as u8, u8::from(daz)]);
        field(program);
        Key { bytes }
    }

    /// The entry's file name: the key's hash and the tier.
    fn file_name(&self, quality: Quality) -> String {
        let tier = match quality {
            Quality::Quick => "quick",
            Quality::Optimized => "opt",
        };
        format!("{:016x}.{tier}", fnv1a(&self.bytes))
    }
}

/// FNV-1a, 64 bits (the public Fowler-Noll-Vo hash): file names and checksums, not
/// security (the key is compared whole).
fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// This build's identity: the path, size, inode and modification and change times of
/// the file (executable or shared library) this code was loaded from; empty when unknown
/// (the cache is then off, see [`DiskCache::from_env`]).
fn build_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let Some(path) = loaded_from() else {
            return String::new();
        };
        let Ok(meta) = std::fs::metadata(&path) else {
            return String::new();
        };
        use std::os::unix::fs::MetadataExt;
        format!(
            "{}|{}|{}|{}.{}|{}.{}",
            path.display(),
            meta.len(),
            meta.ino(),
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec()
        )
    })
}

/// The file this function's code was loaded from (`dladdr`).
fn loaded_from() -> Option<PathBuf> {
    // SAFETY: `Dl_info` is plain data; zeroed is a valid value for it.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let here = loaded_from as *const libc::c_void;
    // SAFETY: `here` is an address in this process's code and `info` a valid place to
    // write the answer to.
    if unsafe { libc::dladdr(here, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: on success `dli_fname` is a NUL-terminated path owned by the loader,
    // valid while the object stays loaded (it holds this very function).
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let path = PathBuf::from(
        <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name.to_bytes()),
    );
    // A bare name means the main executable on some loaders.
    if path.is_absolute() {
        Some(path)
    } else {
        std::env::current_exe().ok()
    }
}

/// A cache directory.
#[derive(Debug, Clone)]
pub(crate) struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// The cache at `dir`.
    pub(crate) fn at(dir: impl Into<PathBuf>) -> DiskCache {
        DiskCache { dir: dir.into() }
    }

    /// The process's cache as the environment sets it (see the module documentation),
    /// or `None` when it is off or has no place.
    pub(crate) fn from_env() -> Option<&'static DiskCache> {
        static CACHE: std::sync::OnceLock<Option<DiskCache>> = std::sync::OnceLock::new();
        CACHE
            .get_or_init(|| {
                if matches!(std::env::var("GTSIM_JIT_CACHE").as_deref(), Ok("0")) {
                    return None;
                }
                if build_id().is_empty() {
                    return None;
                }
                let nonempty = |v: &str| std::env::var_os(v).filter(|d| !d.is_empty());
                let dir = if let Some(d) = nonempty("GTSIM_JIT_CACHE_DIR") {
                    PathBuf::from(d)
                } else if let Some(d) = nonempty("XDG_CACHE_HOME") {
                    PathBuf::from(d).join("gtsim/jit")
                } else {
                    PathBuf::from(nonempty("HOME")?).join(".cache/gtsim/jit")
                };
                Some(DiskCache { dir })
            })
            .as_ref()
    }

    /// The code stored for `key` at `quality`, if there is a whole entry for exactly
    /// that key.
    pub(crate) fn lookup(&self, key: &Key, quality: Quality) -> Option<MachineCode> {
        let path = self.dir.join(key.file_name(quality));
        let file = std::fs::File::open(&path).ok()?;
        if file.metadata().ok()?.len() > MAX_ENTRY {
            return None;
        }
        let mut data = vec![];
        std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_ENTRY), &mut data).ok()?;
        decode(&data, key)
    }

    /// Stores `code` for `key` at `quality` (best effort: the cache is an
    /// optimization), then keeps the directory under [`MAX_BYTES`].
    pub(crate) fn store(&self, key: &Key, quality: Quality, code: &MachineCode) {
        if self.try_store(key, quality, code).is_err() {
            return;
        }
        self.trim(MAX_BYTES);
    }

    fn try_store(&self, key: &Key, quality: Quality, code: &MachineCode) -> std::io::Result<()> {
        {
            let mut b = std::fs::DirBuilder::new();
            b.recursive(true);
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            b.create(&self.dir)?;
        }
        let name = key.file_name(quality);
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let tmp = self.dir.join(format!(
            ".tmp-{}-{}-{name}",
            std::process::id(),
            SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::write(&tmp, encode(key, code))?;
        std::fs::rename(&tmp, self.dir.join(name)).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// Deletes the oldest entries while the directory's entries add up to more than
    /// `limit` bytes, down to three quarters of it.
    pub(crate) fn trim(&self, limit: u64) {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut entries: Vec<(std::time::SystemTime, u64, PathBuf)> = dir
            .flatten()
            .filter_map(|e| {
                let m = e.metadata().ok()?;
                m.is_file().then(|| {
                    (
                        m.modified().unwrap_or(std::time::UNIX_EPOCH),
                        m.len(),
                        e.path(),
                    )
                })
            })
            .collect();
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        if total <= limit {
            return;
        }
        entries.sort();
        for (_, len, path) in entries {
            if total <= limit / 4 * 3 {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(len);
            }
        }
    }
}

/// An entry's bytes: magic, format, key, code, relocations, checksum (all integers
/// little-endian).
fn encode(key: &Key, code: &MachineCode) -> Vec<u8> {
    let mut out = vec![];
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&(key.bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(&key.bytes);
    out.extend_from_slice(&(code.bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(&code.bytes);
    out.extend_from_slice(&(code.relocs.len() as u64).to_le_bytes());
    for r in &code.relocs {
        out.extend_from_slice(&r.offset.to_le_bytes());
        out.push(r.kind as u8);
        out.push(r.target as u8);
        out.extend_from_slice(&r.addend.to_le_bytes());
    }
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The code of entry `data` if it is whole (checksum), of this format and for exactly
/// `key`.
fn decode(data: &[u8], key: &Key) -> Option<MachineCode> {
    let (body, sum) = data.split_at_checked(data.len().checked_sub(8)?)?;
    if fnv1a(body) != u64::from_le_bytes(sum.try_into().ok()?) {
        return None;
    }
    let mut r = Reader(body);
    if r.take(8)? != MAGIC || u32::from_le_bytes(r.take(4)?.try_into().ok()?) != FORMAT {
        return None;
    }
    let n = r.len()?;
    if r.take(n)? != key.bytes.as_slice() {
        return None;
    }
    let n = r.len()?;
    let bytes = r.take(n)?.to_vec();
    let count = r.len()?;
    // 14 bytes per relocation: a count beyond what is left is damage.
    if count > r.0.len() / 14 {
        return None;
    }
    let mut relocs = Vec::with_capacity(count);
    for _ in 0..count {
        let offset = u32::from_le_bytes(r.take(4)?.try_into().ok()?);
        let kind = Kind::from_u8(r.take(1)?[0])?;
        let target = Target::from_u8(r.take(1)?[0])?;
        let addend = i64::from_le_bytes(r.take(8)?.try_into().ok()?);
        relocs.push(Reloc {
            offset,
            kind,
            target,
            addend,
        });
    }
    r.0.is_empty().then_some(MachineCode { bytes, relocs })
}

/// Bytes read front to back.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (a, b) = self.0.split_at_checked(n)?;
        self.0 = b;
        Some(a)
    }

    /// A length: 8 bytes, at most what is left.
    fn len(&mut self) -> Option<usize> {
        let n = usize::try_from(u64::from_le_bytes(self.take(8)?.try_into().ok()?)).ok()?;
        (n <= self.0.len()).then_some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (Key, MachineCode) {
        let key = Key::new(
            &[1, 2, 3, 4, 5, 6, 7, 8],
            "IvyBridge",
            Quality::Quick,
            "x86_64 sse4.1",
            true,
        );
        let code = MachineCode {
            bytes: (0..100u8).collect(),
            relocs: vec![
                Reloc {
                    offset: 3,
                    kind: Kind::Abs8,
                    target: Target::Interpret,
                    addend: -4,
                },
                Reloc {
                    offset: 40,
                    kind: Kind::PcRel4,
                    target: Target::FmaF32,
                    addend: 0,
                },
            ],
        };
        (key, code)
    }

    /// A fresh directory under the system's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("gtsim-jit-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn an_entry_round_trips_and_only_for_its_key() {
        let (key, code) = sample();
        assert_eq!(decode(&encode(&key, &code), &key), Some(code.clone()));
        // Another program, tier, encoding, host or DAZ support: another key.
        let program = [1, 2, 3, 4, 5, 6, 7, 8];
        let program2 = [1, 2, 3, 4, 5, 6, 7, 9];
        let others: [(&[u8], &str, Quality, &str, bool); 5] = [
            (
                &program2,
                "IvyBridge",
                Quality::Quick,
                "x86_64 sse4.1",
                true,
            ),
            (&program, "Gen11", Quality::Quick, "x86_64 sse4.1", true),
            (
                &program,
                "IvyBridge",
                Quality::Optimized,
                "x86_64 sse4.1",
                true,
            ),
            (&program, "IvyBridge", Quality::Quick, "x86_64", true),
            (
                &program,
                "IvyBridge",
                Quality::Quick,
                "x86_64 sse4.1",
                false,
            ),
        ];
        for (p, e, q, isa, daz) in others {
            let other = Key::new(p, e, q, isa, daz);
            assert_eq!(
                decode(&encode(&key, &code), &other),
                None,
                "{e} {q:?} {isa} {daz}"
            );
        }
    }

    #[test]
    fn damaged_or_truncated_entries_are_ignored() {
        let (key, code) = sample();
        let good = encode(&key, &code);
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x10;
            assert_eq!(decode(&bad, &key), None, "byte {i} flipped");
        }
        for n in 0..good.len() {
            assert_eq!(decode(&good[..n], &key), None, "cut to {n}");
        }
        // Right checksum, wrong contents: a relocation count past the end.
        let mut forged = good[..good.len() - 8].to_vec();
        let at = forged.len() - 2 * 14 - 8;
        forged[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let sum = fnv1a(&forged);
        forged.extend_from_slice(&sum.to_le_bytes());
        assert_eq!(decode(&forged, &key), None);
    }

    #[test]
    fn stores_are_found_by_later_lookups_and_per_tier() {
        let dir = scratch("store");
        let cache = DiskCache::at(&dir);
        let (key, code) = sample();
        assert_eq!(cache.lookup(&key, Quality::Quick), None);
        cache.store(&key, Quality::Quick, &code);
        assert_eq!(cache.lookup(&key, Quality::Quick), Some(code));
        assert_eq!(cache.lookup(&key, Quality::Optimized), None);
        // Only the entry is left (no temporary files), readable by its owner only.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&dir).unwrap().permissions(),
        );
        assert_eq!(mode & 0o077, 0, "{mode:o}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_full_cache_deletes_its_oldest_entries() {
        let dir = scratch("trim");
        let cache = DiskCache::at(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let t0 = std::time::SystemTime::now() - std::time::Duration::from_secs(100);
        for i in 0..10u64 {
            let p = dir.join(format!("e{i}"));
            std::fs::write(&p, vec![0u8; 1000]).unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(t0 + std::time::Duration::from_secs(i))
                .unwrap();
        }
        cache.trim(20_000);
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            10,
            "under the limit"
        );
        // 10,000 bytes over a limit of 8,000: down to 6,000, the four oldest gone.
        cache.trim(8_000);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["e4", "e5", "e6", "e7", "e8", "e9"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Fuzzing the entry decoder (`docs/FUZZING.md`): random bytes, and whole entries
    /// with random bytes changed, inserted or cut, with the checksum made right again
    /// (what a hostile writer of the cache could make), never panic and never give code
    /// for another key; an entry accepted has its relocations inside its code or is
    /// refused by the loader. Both outcomes are reached for any seed: three cases in four
    /// change a whole entry, and when each of its 1-4 changes is a byte replaced within the
    /// code or a relocation's offset or addend (a third of the changes are replacements,
    /// and those bytes are about a third of an entry) the entry is still accepted, some 3%
    /// of the cases; the rest (random bytes, inserted bytes, cuts, a changed key, format
    /// or length) are refused. `GTSIM_FUZZ_CASES` sizes the campaign.
    #[test]
    fn hostile_entries_never_panic_the_decoder() {
        let mut rng = gtsim_fuzzkit::Rng::new(gtsim_fuzzkit::seed(0x6a17_cace));
        let (key, code) = sample();
        let good = encode(&key, &code);
        let (mut accepted, mut loaded, mut refused) = (0, 0, 0);
        for case in 0..gtsim_fuzzkit::cases(4000) {
            let mut data: Vec<u8> = if case % 4 == 0 {
                (0..rng.below(300)).map(|_| rng.next_u64() as u8).collect()
            } else {
                good[..good.len() - 8].to_vec()
            };
            for _ in 0..1 + rng.below(4) {
                if data.is_empty() {
                    break;
                }
                let at = rng.below(data.len());
                match rng.below(3) {
                    0 => data[at] = rng.next_u64() as u8,
                    1 => data.insert(at, rng.next_u64() as u8),
                    _ => data.truncate(at),
                }
            }
            let sum = fnv1a(&data);
            data.extend_from_slice(&sum.to_le_bytes());
            if let Some(m) = decode(&data, &key) {
                // Only the code and relocation fields may differ from the original.
                accepted += 1;
                loaded += usize::from(super::super::code::HostCode::load(&m).is_some());
            } else {
                refused += 1;
            }
            let other = Key::new(&[9], "IvyBridge", Quality::Optimized, "x", false);
            assert_eq!(decode(&data, &other), None, "case {case}");
        }
        assert!(
            accepted > 0 && refused > 0,
            "both outcomes: {accepted} accepted ({loaded} loaded), {refused} refused"
        );
    }

    #[test]
    fn the_build_is_known() {
        // The test binary itself: a path with its size and modification time.
        let id = build_id();
        assert!(id.starts_with('/'), "{id}");
        assert_eq!(id.split('|').count(), 5, "{id}");
    }
}
