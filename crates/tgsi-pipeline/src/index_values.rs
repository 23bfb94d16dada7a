//! The distinct values of a draw's indices (the vertex shader runs once
//! per distinct value) and each value's place among them: a mark per value
//! set in one pass over the indices while every value is below a few
//! times their count (a byte each, so that neighbouring indices' marks do
//! not wait for each other's stores), the values sorted otherwise. When
//! the values are all of 0 up to the largest (the usual mesh), a value is
//! its own place; else the marks become bits, counted to place a value.

use crate::input::RESTART;

/// How a value's place among the distinct values is found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Lookup {
    /// The values are 0 up to the largest: each is its own place.
    #[default]
    Identity,
    /// The set bits below the value's bit.
    Ranked,
    /// A binary search of the sorted values.
    Sorted,
}

/// The distinct values of one draw's indices, with the buffers a later
/// draw reuses.
#[derive(Default)]
pub(crate) struct DistinctValues {
    /// The distinct values, ascending.
    pub(crate) values: Vec<u32>,
    /// Each marking thread's marks.
    marks: Vec<Marks>,
    /// The marks as bits (`Ranked`).
    bits: Vec<u64>,
    /// Per word of `bits`, the bits set in the words before it (`Ranked`).
    rank: Vec<u32>,
    lookup: Lookup,
}

impl DistinctValues {
    /// The values 0..count (a draw without indices).
    pub(crate) fn all_below(&mut self, count: u32) {
        self.values.clear();
        self.values.extend(0..count);
        self.lookup = Lookup::Identity;
    }

    /// Finds the distinct values of `ix`, RESTART left out when
    /// `restarts` (strips cut there), marking on up to `threads` threads.
    pub(crate) fn find(&mut self, ix: &[u32], restarts: bool, threads: usize) {
        self.values.clear();
        // values past the limit (about 4 per index) are sorted instead
        let limit = ix.len().saturating_mul(4).saturating_add(4096);
        let threads = threads.clamp(1, (ix.len() / MARKS_PER_THREAD).max(1));
        if self.marks.len() < threads {
            self.marks.resize_with(threads, Marks::default);
        }
        let per = ix.len().div_ceil(threads).max(1);
        let parts: Vec<_> = ix.chunks(per).zip(self.marks.iter_mut()).collect();
        let found = match parts.len() {
            0 | 1 => {
                let m = self.marks.first_mut().expect("marks for one thread");
                vec![m.mark(ix, restarts, limit)]
            }
            _ => tgsi_exec::parallel::each(parts, |(ix, m)| m.mark(ix, restarts, limit)),
        };
        if found.contains(&Marked::Overflow) {
            self.values
                .extend(ix.iter().copied().filter(|&v| !restarts || v != RESTART));
            self.values.sort_unstable();
            self.values.dedup();
            self.lookup = Lookup::Sorted;
            return;
        }
        self.lookup = Lookup::Identity;
        let Some(largest) = found
            .iter()
            .filter_map(|f| match f {
                Marked::Largest(l) => Some(*l),
                _ => None,
            })
            .max()
        else {
            return;
        };
        let used = largest as usize + 1;
        // the other threads' marks into the first's
        let (first, others) = self.marks.split_at_mut(1);
        let first = &mut first[0];
        if first.bytes.len() < used {
            first.bytes.resize(used, 0);
        }
        first.dirty = first.dirty.max(used);
        let marked = &mut first.bytes[..used];
        for other in &others[..found.len() - 1] {
            let theirs = &other.bytes[..other.dirty.min(used)];
            for (m, &o) in marked.iter_mut().zip(theirs) {
                *m |= o;
            }
        }
        let count: u64 = marked.iter().map(|&m| u64::from(m)).sum();
        if count == used as u64 {
            self.values.extend(0..largest + 1);
            return;
        }
        self.bits.clear();
        self.rank.clear();
        let mut before = 0u32;
        for (k, chunk) in marked.chunks(64).enumerate() {
            let word = chunk
                .iter()
                .enumerate()
                .fold(0u64, |w, (i, &m)| w | u64::from(m) << i);
            self.bits.push(word);
            self.rank.push(before);
            before += word.count_ones();
            let mut rest = word;
            while rest != 0 {
                self.values.push((k as u32) << 6 | rest.trailing_zeros());
                rest &= rest - 1;
            }
        }
        self.lookup = Lookup::Ranked;
    }

    /// Into `out`, the place of each of `values` among the distinct values
    /// (each one of them, or RESTART when `restarts`, which stays RESTART)
    /// plus `first`.
    pub(crate) fn places(&self, values: &[u32], restarts: bool, first: u32, out: &mut [u32]) {
        let blocks = values.chunks(BLOCK).zip(out.chunks_mut(BLOCK));
        for (k, (block, out)) in blocks.enumerate() {
            fetch_ahead(values, (k + 2) * BLOCK);
            self.block_places(block, restarts, first, out);
        }
    }

    /// [`Self::places`] of one block.
    fn block_places(&self, values: &[u32], restarts: bool, first: u32, out: &mut [u32]) {
        let pairs = out.iter_mut().zip(values);
        match (self.lookup, restarts) {
            (Lookup::Identity, false) => pairs.for_each(|(o, &v)| *o = first + v),
            (Lookup::Ranked, false) => pairs.for_each(|(o, &v)| *o = first + self.ranked(v)),
            (lookup, _) => pairs.for_each(|(o, &v)| {
                *o = if restarts && v == RESTART {
                    RESTART
                } else {
                    first
                        + match lookup {
                            Lookup::Identity => v,
                            Lookup::Ranked => self.ranked(v),
                            Lookup::Sorted => self.values.binary_search(&v).unwrap_or(0) as u32,
                        }
                }
            }),
        }
    }

    /// The bits set below value `v`'s (a marked value).
    #[inline]
    fn ranked(&self, v: u32) -> u32 {
        let k = (v >> 6) as usize;
        let (Some(&before), Some(&word)) = (self.rank.get(k), self.bits.get(k)) else {
            return 0;
        };
        before + (word & ((1u64 << (v & 63)) - 1)).count_ones()
    }
}

/// Indices a pass over the indices takes at a time.
const BLOCK: usize = 256;

/// Asks for the block of `values` at `at` (a hint for a pass that will
/// reach it soon, see [`tgsi_exec::tiles::prefetch_lines`]).
fn fetch_ahead(values: &[u32], at: usize) {
    if let Some(block) = values.get(at..) {
        tgsi_exec::tiles::prefetch_lines(&block[..block.len().min(BLOCK)]);
    }
}

/// Indices per thread below which marking stays on one thread.
const MARKS_PER_THREAD: usize = 1 << 16;

/// One thread's marks: a byte per value (1: the value is an index).
#[derive(Default)]
struct Marks {
    bytes: Vec<u8>,
    /// The bytes that may be set (those past it are zero).
    dirty: usize,
}

/// What a thread's marking found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marked {
    /// No value (every index a restart, or none).
    Nothing,
    /// The largest value marked.
    Largest(u32),
    /// A value at or past the limit (the marks are left dirty).
    Overflow,
}

impl Marks {
    /// Marks the values of `ix` (RESTART left out when `restarts`) while
    /// each is below `limit`.
    fn mark(&mut self, ix: &[u32], restarts: bool, limit: usize) -> Marked {
        self.bytes[..self.dirty].fill(0);
        self.dirty = 0;
        let (mut largest, mut seen) = (0u32, false);
        for (k, block) in ix.chunks(BLOCK).enumerate() {
            fetch_ahead(ix, (k + 2) * BLOCK);
            // the block's largest value first (a vector fold), so that the
            // marks grow once per block and the stores below go through a
            // slice held in registers (a store through the vector itself
            // made the compiler read its address again at every index)
            let Some(top) = block_largest(block, restarts) else {
                continue;
            };
            let at = top as usize;
            if at >= self.bytes.len() {
                if at >= limit {
                    self.dirty = self.bytes.len();
                    return Marked::Overflow;
                }
                // (the marks grow with the values: at most twice the largest)
                let len = (at + 1).max(2 * self.bytes.len()).min(limit);
                self.bytes.resize(len, 0);
            }
            let bytes = &mut self.bytes[..=at];
            if restarts {
                for &v in block.iter().filter(|&&v| v != RESTART) {
                    bytes[v as usize] = 1;
                }
            } else {
                for &v in block {
                    bytes[v as usize] = 1;
                }
            }
            largest = largest.max(top);
            seen = true;
        }
        if !seen {
            return Marked::Nothing;
        }
        self.dirty = largest as usize + 1;
        Marked::Largest(largest)
    }
}

/// The largest of `block`'s values, RESTART left out when `restarts`
/// (None when no value is left).
fn block_largest(block: &[u32], restarts: bool) -> Option<u32> {
    if !restarts {
        return block.iter().copied().max();
    }
    // RESTART is u32::MAX: one more than each value, wrapped, puts it at 0
    let top = block.iter().fold(0u32, |m, &v| m.max(v.wrapping_add(1)));
    top.checked_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The places the simple way: the sorted, deduplicated values searched.
    fn expected(ix: &[u32], restarts: bool) -> (Vec<u32>, Vec<u32>) {
        let mut values: Vec<u32> = ix
            .iter()
            .copied()
            .filter(|&v| !restarts || v != RESTART)
            .collect();
        values.sort_unstable();
        values.dedup();
        let places = ix
            .iter()
            .map(|&v| {
                if restarts && v == RESTART {
                    RESTART
                } else {
                    7 + values.binary_search(&v).unwrap() as u32
                }
            })
            .collect();
        (values, places)
    }

    #[test]
    fn every_lookup_gives_the_places_of_the_sorted_values() {
        let mut d = DistinctValues::default();
        let cases: Vec<(Vec<u32>, bool, Lookup)> = vec![
            // a mesh's indices: every value from 0
            (vec![0, 1, 2, 2, 1, 3, 3, 4, 0], false, Lookup::Identity),
            // gaps, values in other words, a restart in a strip
            (vec![5, 64, 65, 200, RESTART, 5, 130], true, Lookup::Ranked),
            (vec![3, 63, 64, 127, 128, 3], false, Lookup::Ranked),
            // far past four per index: sorted (RESTART an ordinary value)
            (vec![1, 1_000_000, RESTART, 1], false, Lookup::Sorted),
            (vec![RESTART, 9, 1 << 30, RESTART], true, Lookup::Sorted),
            // only restarts
            (vec![RESTART, RESTART], true, Lookup::Identity),
            (vec![], false, Lookup::Identity),
        ];
        for (ix, restarts, lookup) in cases {
            d.find(&ix, restarts, 1);
            let (values, places) = expected(&ix, restarts);
            assert_eq!(d.values, values, "{ix:?}");
            assert_eq!(d.lookup, lookup, "{ix:?}");
            let mut out = vec![0; ix.len()];
            d.places(&ix, restarts, 7, &mut out);
            assert_eq!(out, places, "{ix:?}");
        }
    }

    #[test]
    fn marks_of_an_earlier_draw_are_forgotten() {
        let mut d = DistinctValues::default();
        d.find(&[0, 100, 4000], false, 1);
        d.find(&[1, 2, 0], false, 1);
        assert_eq!(d.values, [0, 1, 2]);
        assert_eq!(d.lookup, Lookup::Identity);
        // after a sorted draw (every word counted as marked)
        d.find(&[u32::MAX - 1, 3], false, 1);
        d.find(&[3, 0], false, 1);
        assert_eq!(d.values, [0, 3]);
        let mut out = [0; 2];
        d.places(&[3, 0], false, 0, &mut out);
        assert_eq!(out, [1, 0]);
    }

    #[test]
    fn marking_on_several_threads_finds_what_sorting_does() {
        let n = 3 * MARKS_PER_THREAD;
        let spread = |i: usize| (i * 7919 % 50_000) as u32;
        let cases: Vec<(Vec<u32>, bool, Lookup)> = vec![
            // every value below 50,000 (each thread a mix)
            ((0..n).map(spread).collect(), false, Lookup::Identity),
            // every third value
            (
                (0..n).map(|i| 3 * spread(i)).collect(),
                false,
                Lookup::Ranked,
            ),
            // ascending: each thread marks values of its own
            (
                (0..n).map(|i| (i / 2) as u32).collect(),
                false,
                Lookup::Identity,
            ),
            (
                (0..n).map(|i| (i / 2 * 5) as u32).collect(),
                false,
                Lookup::Ranked,
            ),
            // the last thread's part only restarts, in a strip
            (
                (0..n)
                    .map(|i| {
                        if i >= 2 * MARKS_PER_THREAD {
                            RESTART
                        } else {
                            spread(i) + 9
                        }
                    })
                    .collect(),
                true,
                Lookup::Ranked,
            ),
            // one value past the limit, in the last thread's part
            (
                (0..n)
                    .map(|i| if i == n - 1 { u32::MAX - 5 } else { spread(i) })
                    .collect(),
                false,
                Lookup::Sorted,
            ),
        ];
        let mut d = DistinctValues::default();
        for (k, (ix, restarts, lookup)) in cases.into_iter().enumerate() {
            let (values, places) = expected(&ix, restarts);
            for threads in [3, 1, 2] {
                d.find(&ix, restarts, threads);
                assert_eq!(d.lookup, lookup, "case {k}, {threads} threads");
                assert!(d.values == values, "case {k}, {threads} threads");
                let mut out = vec![0; ix.len()];
                d.places(&ix, restarts, 7, &mut out);
                assert!(out == places, "case {k}, {threads} threads");
            }
        }
    }

    #[test]
    fn random_index_lists_agree_with_sorting() {
        let mut d = DistinctValues::default();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        // over several blocks (each block's largest value is found first):
        // restarts anywhere and whole blocks of them, values that grow the
        // marks block by block or pass the limit
        for round in 0..300 {
            let len = next(4 * BLOCK as u64) as usize;
            let range = [8, 70, 1000, 5000, u64::from(u32::MAX) + 1][round % 5];
            let restarts = round % 3 == 0;
            let mut ix: Vec<u32> = (0..len)
                .map(|_| match next(20) {
                    0 | 1 => RESTART,
                    2 => (range as u32).saturating_mul(3),
                    _ => next(range) as u32,
                })
                .collect();
            if round % 7 == 0 && len > BLOCK {
                ix[..BLOCK].fill(RESTART);
            }
            d.find(&ix, restarts, 1);
            let (values, places) = expected(&ix, restarts);
            assert_eq!(d.values, values, "round {round}");
            let mut out = vec![0; ix.len()];
            d.places(&ix, restarts, 7, &mut out);
            assert_eq!(out, places, "round {round}");
        }
    }
}
