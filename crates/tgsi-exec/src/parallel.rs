//! Running the parts of a stage at once. The calling thread takes the
//! first part itself and the others go to rayon's pool of waiting threads:
//! starting a thread costs 50-90 µs on the machines measured (a frame of a
//! draw starts nine stages), waking a pool thread much less, and the
//! caller, already running, starts at once instead of sleeping until the
//! others are done. Which part computes what never depends on the thread
//! that runs it, so results are the same for any pool size.

use crate::ExecError;
use std::panic::resume_unwind;

/// `f(item)` for every item, the first on the calling thread and the
/// others on the pool's threads; the results in item order. A part that
/// panics makes this panic once every part has ended.
pub fn each<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let mut items = items.into_iter();
    let Some(first) = items.next() else {
        return Vec::new();
    };
    let f = &f;
    let others: Vec<T> = items.collect();
    let mut slots: Vec<Option<std::thread::Result<R>>> = (0..others.len()).map(|_| None).collect();
    let first_result = rayon::in_place_scope(|s| {
        for (item, slot) in others.into_iter().zip(slots.iter_mut()) {
            s.spawn(move |_| {
                *slot = Some(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                    || f(item),
                )));
            });
        }
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(first)))
    });
    let mut results = Vec::with_capacity(slots.len() + 1);
    results.push(first_result.unwrap_or_else(|e| resume_unwind(e)));
    for slot in slots {
        results.push(
            slot.expect("every part ran")
                .unwrap_or_else(|e| resume_unwind(e)),
        );
    }
    results
}

/// `f()`, or the error "a worker thread panicked" when it panics: for a
/// part whose stage reports a failed part as an error rather than
/// panicking the caller.
pub fn caught<R>(f: impl FnOnce() -> R) -> Result<R, ExecError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|_| ExecError::general("a worker thread panicked"))
}

/// [`each`] over the parts numbered `0..count`.
pub fn parts<R: Send>(count: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    each((0..count).collect(), f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn results_come_in_item_order_and_the_caller_takes_the_first() {
        let caller = std::thread::current().id();
        let out = each(vec![3, 1, 4, 1, 5], |x| {
            (x * 10, std::thread::current().id())
        });
        let values: Vec<i32> = out.iter().map(|(v, _)| *v).collect();
        assert_eq!(values, vec![30, 10, 40, 10, 50]);
        assert_eq!(out[0].1, caller);
        assert!(out[1..].iter().all(|(_, id)| *id != caller));
        assert!(each(Vec::<u8>::new(), |x| x).is_empty());
    }

    #[test]
    fn every_part_runs_once_and_mutable_shares_stay_apart() {
        let ran = AtomicUsize::new(0);
        let mut cells = vec![0u32; 1000];
        let shares: Vec<&mut [u32]> = cells.chunks_mut(300).collect();
        each(shares, |share| {
            ran.fetch_add(1, Ordering::Relaxed);
            share.iter_mut().for_each(|c| *c += 1);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 4);
        assert!(cells.iter().all(|&c| c == 1));
        assert_eq!(parts(3, |k| k * k), vec![0, 1, 4]);
    }

    #[test]
    fn a_panicking_part_panics_the_caller_after_the_others_end() {
        let ended = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(|| {
            parts(3, |k| {
                if k == 2 {
                    panic!("part {k}");
                }
                ended.fetch_add(1, Ordering::Relaxed);
            })
        });
        assert!(result.is_err());
        assert_eq!(ended.load(Ordering::Relaxed), 2);
        let failed = caught(|| -> u8 { panic!("a part") }).unwrap_err();
        assert_eq!(failed.message, "a worker thread panicked");
        assert_eq!(caught(|| 7).unwrap(), 7);
    }
}
