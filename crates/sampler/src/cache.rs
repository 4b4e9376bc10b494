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

use std::collections::BTreeMap;
use std::sync::RwLock;

/// Decoded entries of indexed state tables, keyed by (table address, index).
#[derive(Debug)]
pub struct TableCache<T> {
    /// A read-write lock: after the first few messages every access only reads, and
    /// the work's threads then read side by side rather than queue for the entry.
    entries: RwLock<BTreeMap<(u64, u8), T>>,
}

impl<T> Default for TableCache<T> {
    fn default() -> Self {
        TableCache {
            entries: RwLock::new(BTreeMap::new()),
        }
    }
}

impl<T: Clone> TableCache<T> {
    /// The entry at index `index` of the table at `table`, decoded by `fill` the first
    /// time it is asked for. A `fill` that fails caches nothing: the next message asks
    /// again and reports the same error.
    pub fn get_or<E>(
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
    use super::TableCache;
    use std::cell::Cell;

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
        // A failed decode leaves the entry empty.
        assert_eq!(c.get_or(0x3000, 0, || Err::<u32, ()>(())), Err(()));
        assert_eq!(c.get_or(0x3000, 0, || fill(1)), Ok(1));
    }
}
