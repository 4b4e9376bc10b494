//! What a draw's or dispatch's sampler messages resolved, by table and index.
//!
//! A sampler message names its surface by binding table index and its sampler state by
//! sampler index; the front reads the table entry, the state it points to, and decodes
//! both (seed 000 §2.13.1, seed 003 RENDER_SURFACE_STATE and SAMPLER_STATE). Within one
//! draw or dispatch neither the tables nor the state they point to change (a guest that
//! rewrites them under its own threads is racing the hardware's state caches), so each
//! front reads and decodes each entry once and keeps it here, whichever generation it is.
//!
//! The cache is shared by the work's threads, which may run in parallel. What it holds
//! depends only on memory the threads do not write, so which thread fills an entry does
//! not change what any thread sees.
//!
//! Each host thread also keeps its own copies of the entries it used ([`HostCopy`]):
//! a message then finds its entry without touching anything another host thread
//! writes. Reading the shared map takes its lock's reader count, and cloning a shared
//! `Arc` its reference count; with two host threads doing that for every message,
//! the cache line holding them went back and forth between the cores, and the second
//! host thread made a draw's pixel threads hardly faster.

use std::any::Any;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// An entry a host thread can keep its own copy of: equal to the original, sharing no
/// reference count with it.
pub trait HostCopy: Clone + Send + 'static {
    /// A copy that shares nothing another host thread writes.
    fn host_copy(&self) -> Self;
}

/// A decoded sampler state holds no reference count: a clone is already the thread's own.
impl HostCopy for crate::state::SamplerConfig {
    fn host_copy(&self) -> Self {
        self.clone()
    }
}

impl<T: Clone + Send + Sync + 'static> HostCopy for std::sync::Arc<T> {
    fn host_copy(&self) -> Self {
        std::sync::Arc::new(T::clone(self))
    }
}

/// Decoded entries of indexed state tables, keyed by (table address, index).
#[derive(Debug)]
pub struct TableCache<T> {
    /// This cache among every one made in the process (never reused), which the host
    /// threads' own copies are filed under.
    id: u64,
    /// A read-write lock: after the first few messages every access only reads, and
    /// the work's threads then read side by side rather than queue for the entry.
    entries: RwLock<BTreeMap<(u64, u8), T>>,
}

impl<T> Default for TableCache<T> {
    fn default() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        TableCache {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            entries: RwLock::new(BTreeMap::new()),
        }
    }
}

/// A host thread's copies of the entries it used: (cache id, table, index, entry).
type Copies = Vec<(u64, u64, u8, Box<dyn Any>)>;

/// Copies a host thread keeps before it forgets them all (those of finished draws
/// and dispatches are never asked for again, their caches' ids being gone).
const HOST_COPIES: usize = 64;

thread_local! {
    static COPIES: RefCell<Copies> = const { RefCell::new(Vec::new()) };
}

impl<T: HostCopy> TableCache<T> {
    /// The entry at index `index` of the table at `table`, decoded by `fill` the first
    /// time it is asked for. A `fill` that fails caches nothing: the next message asks
    /// again and reports the same error.
    pub fn get_or<E>(
        &self,
        table: u64,
        index: u8,
        fill: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        // A thread whose own storage is already gone (a draw from an exit handler,
        // after the thread's destructors ran) uses the shared map alone.
        let mine = COPIES
            .try_with(|c| {
                c.borrow()
                    .iter()
                    .find(|e| (e.0, e.1, e.2) == (self.id, table, index))
                    .and_then(|e| e.3.downcast_ref::<T>())
                    .cloned()
            })
            .ok()
            .flatten();
        if let Some(v) = mine {
            return Ok(v);
        }
        let v = self.shared(table, index, fill)?.host_copy();
        // Nothing to keep on a thread whose storage is gone.
        let _ = COPIES.try_with(|c| {
            let mut c = c.borrow_mut();
            if c.len() >= HOST_COPIES {
                c.clear();
            }
            c.push((self.id, table, index, Box::new(v.clone())));
        });
        Ok(v)
    }

    /// The entry from the map all host threads share, filled by `fill` if missing.
    fn shared<E>(
        &self,
        table: u64,
        index: u8,
        fill: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        let key = (table, index);
        // A panic elsewhere while the lock was held left no partial entry (an insert is
        // whole or absent), so a poisoned lock is still usable.
        let found = self
            .entries
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(v) = found {
            return Ok(v);
        }
        let v = fill()?;
        self.entries
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, v.clone());
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::{HostCopy, TableCache};
    use std::cell::Cell;

    impl HostCopy for u32 {
        fn host_copy(&self) -> Self {
            *self
        }
    }

    #[test]
    fn each_entry_is_decoded_once_and_failures_are_not_kept() {
        let c: TableCache<u32> = TableCache::default();
        let calls = Cell::new(0);
        let fill = |v: u32| {
            calls.set(calls.get() + 1);
            Ok::<u32, ()>(v)
        };
        assert_eq!(c.get_or(0x1000, 3, || fill(7)), Ok(7));
        // The same key is not decoded again, whatever the second closure would give.
        assert_eq!(c.get_or(0x1000, 3, || fill(9)), Ok(7));
        assert_eq!(calls.get(), 1);
        // Another table or index is another entry.
        assert_eq!(c.get_or(0x2000, 3, || fill(8)), Ok(8));
        assert_eq!(c.get_or(0x1000, 4, || fill(5)), Ok(5));
        assert_eq!(calls.get(), 3);
        // Another thread finds the entries the first filled, decoding nothing.
        std::thread::scope(|s| {
            s.spawn(|| {
                assert_eq!(c.get_or(0x1000, 3, || Err::<u32, ()>(())), Ok(7));
            });
        });
        // A failed decode leaves the entry empty.
        assert_eq!(c.get_or(0x3000, 0, || Err::<u32, ()>(())), Err(()));
        assert_eq!(c.get_or(0x3000, 0, || fill(1)), Ok(1));
    }
}

#[cfg(test)]
mod host_copies {
    use super::TableCache;
    use std::sync::Arc;

    #[test]
    fn a_host_thread_keeps_its_own_copy_of_an_arc_entry() {
        let c: TableCache<Arc<Vec<u8>>> = TableCache::default();
        let first = c
            .get_or(0x1000, 0, || Ok::<_, ()>(Arc::new(vec![1, 2, 3])))
            .unwrap();
        // The filling thread's later lookups give its own copy, not the map's.
        let again = c.get_or(0x1000, 0, || Err(())).unwrap();
        assert_eq!(again, first);
        assert!(Arc::ptr_eq(&again, &first));
        // Another host thread gets an equal entry in an allocation of its own.
        let other = std::thread::scope(|s| {
            s.spawn(|| c.get_or(0x1000, 0, || Err(())).unwrap())
                .join()
                .unwrap()
        });
        assert_eq!(other, first);
        assert!(!Arc::ptr_eq(&other, &first));
        // The map's own entry is shared with neither.
        let shared = c.shared(0x1000, 0, || Err(())).unwrap();
        assert!(!Arc::ptr_eq(&shared, &first) && !Arc::ptr_eq(&shared, &other));
        // Another cache's entry at the same key is its own.
        let d: TableCache<Arc<Vec<u8>>> = TableCache::default();
        assert_eq!(
            d.get_or(0x1000, 0, || Ok::<_, ()>(Arc::new(vec![9])))
                .unwrap(),
            Arc::new(vec![9])
        );
    }

    /// A lookup from a thread's exit, after the thread's own copies were dropped (an
    /// exit handler that flushes a last batch), is answered from the shared map.
    #[test]
    fn a_lookup_after_the_threads_copies_are_gone_uses_the_shared_map() {
        static CACHE: std::sync::LazyLock<TableCache<Arc<Vec<u8>>>> =
            std::sync::LazyLock::new(TableCache::default);
        static SEEN: std::sync::Mutex<Option<Vec<u8>>> = std::sync::Mutex::new(None);
        struct AtExit;
        impl Drop for AtExit {
            fn drop(&mut self) {
                let v = CACHE.get_or(0x1000, 1, || Err(())).unwrap();
                *SEEN.lock().unwrap() = Some(v.to_vec());
            }
        }
        thread_local! { static GUARD: AtExit = const { AtExit }; }
        CACHE
            .get_or(0x1000, 1, || Ok::<_, ()>(Arc::new(vec![4, 5])))
            .unwrap();
        std::thread::spawn(|| {
            // The guard is registered before the thread's copies, so it is dropped
            // after them.
            GUARD.with(|_| ());
            CACHE.get_or(0x1000, 1, || Err(())).unwrap();
        })
        .join()
        .unwrap();
        assert_eq!(*SEEN.lock().unwrap(), Some(vec![4, 5]));
    }
}
