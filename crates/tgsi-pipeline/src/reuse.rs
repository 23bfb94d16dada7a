//! Buffers of finished draws kept for the next ones: a large draw's vertex
//! inputs and outputs, index lists and set-up primitives are then written
//! into memory already mapped (often still cached) instead of into pages
//! the allocator maps afresh every frame and unmaps at its end, whose page
//! faults would otherwise serialise the threads of the next draw.

use std::sync::Mutex;

/// A few buffer sets of one kind (each set a `T` of vectors whose
/// capacity is what is kept; their contents are stale).
pub(crate) struct Kept<T> {
    sets: Mutex<Vec<T>>,
    most: usize,
}

impl<T: Default> Kept<T> {
    /// A pool that keeps at most `most` sets.
    pub(crate) const fn new(most: usize) -> Kept<T> {
        Kept {
            sets: Mutex::new(Vec::new()),
            most,
        }
    }

    /// A set from the pool (one draw running at a time finds the last
    /// draw's), or a new one.
    pub(crate) fn take(&self) -> T {
        let mut sets = self.sets.lock().unwrap_or_else(|e| e.into_inner());
        sets.pop().unwrap_or_default()
    }

    /// Gives a set back; dropped when the pool holds as many as it keeps.
    pub(crate) fn give(&self, set: T) {
        let mut sets = self.sets.lock().unwrap_or_else(|e| e.into_inner());
        if sets.len() < self.most {
            sets.push(set);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Kept;

    #[test]
    fn a_given_set_comes_back_and_the_pool_keeps_at_most_its_count() {
        let pool: Kept<Vec<u32>> = Kept::new(1);
        let mut v = pool.take();
        assert_eq!(v.capacity(), 0);
        v.reserve(100);
        pool.give(v);
        pool.give(Vec::with_capacity(7));
        assert!(pool.take().capacity() >= 100, "the first set given");
        assert_eq!(pool.take().capacity(), 0, "the second was not kept");
    }
}
